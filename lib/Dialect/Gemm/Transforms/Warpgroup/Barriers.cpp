//===- Barriers.cpp - the pipeline's arrivals ----------------------------===//
//
// The pipeline's mbarriers: the producer's arrivals once its copies
// landed, the consumers' releases of stages (remote ones in a cluster).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

void KernelBuilder::signalCopies(Value it, bool drain, const CopiedTile *tile) {
  if (k.asyncArrivals) {
    // Arrives once the thread's copies so far have landed; the consumers
    // fence them for the async proxy.
    if (drain)
      return;
    Value stage = arith::RemUIOp::create(b, loc, it, index(k.stages));
    Value full = barrier(k.fullBarrierOffset, stage);
    NVVM::CpAsyncMBarrierArriveOp::create(b, loc, full, /*noinc=*/true);
    return;
  }
  bool cpAsync = k.a.usesCpAsync() || k.b.usesCpAsync();
  int64_t lag = k.copyLag;
  // Without a lag every iteration was signalled as it was issued.
  if (drain && lag == 0)
    return;
  if (cpAsync && !drain)
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  if (cpAsync)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, drain ? 0 : lag);
  // The copies landed, by the generic proxy, before wgmma reads them;
  // tf32x3's are split first, windows realigned, blocks transposed.
  bool splits = k.a.splitsInShared() || k.b.splitsInShared();
  bool realigns = k.a.realignsInShared() || k.b.realignsInShared();
  bool transposes = k.a.transposesInShared() || k.b.transposesInShared();
  bool transforms = splits || realigns || transposes;
  auto fence = [&]() {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  };
  if (!transforms)
    fence();
  auto arrive = [&](Value iteration) {
    // TMA's staged tiles of the iteration landed.
    Value stage, parity;
    if (k.stagesByTma()) {
      std::tie(stage, parity) = stageAndPhase(iteration);
      Value landed = barrier(k.landedBarrierOffset, stage);
      NVVM::MBarrierTryWaitParityOp::create(b, loc, landed, parity,
                                            i32(kWaitHintNs));
    } else {
      stage = arith::RemUIOp::create(b, loc, iteration, index(k.stages));
    }
    if (splits)
      splitLanded(stage);
    if (realigns)
      realignLanded(stage, tile);
    if (transposes)
      transposeLanded(stage);
    if (transforms)
      fence();
    Value full = barrier(k.fullBarrierOffset, stage);
    NVVM::MBarrierArriveOp::create(b, loc, Type(), full, Value());
  };
  if (lag == 0) {
    arrive(it);
    return;
  }
  // Iteration it - lag, or when draining it - lag .. it - 1: those that
  // exist.
  for (int64_t back = drain ? 1 : lag; back <= lag; ++back) {
    Value first = index(back);
    if (tile)
      first = arith::AddIOp::create(b, loc, tile->it0, first);
    Value exists =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, it, first);
    auto ifExists = scf::IfOp::create(b, loc, exists, false);
    OpBuilder::InsertionGuard then(b);
    b.setInsertionPointToStart(&ifExists.getThenRegion().front());
    arrive(arith::SubIOp::create(b, loc, it, index(back)));
  }
}

void KernelBuilder::releaseStageBefore(Value it, Value when) {
  releaseStageIf(when, [&]() -> Value {
    Value before = arith::AddIOp::create(b, loc, it, index(k.stages - 1));
    return arith::RemUIOp::create(b, loc, before, index(k.stages));
  });
}

void KernelBuilder::releaseStageIf(Value when, function_ref<Value()> stage) {
  auto ifRelease = scf::IfOp::create(b, loc, when, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard then(b);
  b.setInsertionPointToStart(ifRelease.thenBlock());
  releaseStage(stage());
}

void KernelBuilder::releaseStage(Value stage) {
  Value empty = barrier(k.emptyBarrierOffset, stage);
  if (!s.cluster) {
    NVVM::MBarrierArriveOp::create(b, loc, Type(), empty, Value());
    return;
  }
  // The blocks of this block's cluster row (itself included) and column
  // (the others).
  Value rm = toI32(rankM), rn = toI32(rankN);
  Value rowBase = arith::MulIOp::create(b, loc, rn, i32(k.clusterM));
  for (int64_t j = 0; j < k.clusterN; ++j) {
    Value column = i32(k.clusterM * j);
    arriveRemote(empty, arith::AddIOp::create(b, loc, rm, column));
  }
  for (int64_t d = 1; d < k.clusterM; ++d) {
    Value shifted = arith::AddIOp::create(b, loc, rm, i32(d));
    Value i = arith::RemUIOp::create(b, loc, shifted, i32(k.clusterM));
    arriveRemote(empty, arith::AddIOp::create(b, loc, rowBase, i));
  }
}

void KernelBuilder::arriveRemote(Value local, Value peer) {
  auto clusterType = LLVM::LLVMPointerType::get(b.getContext(), 7);
  Value remote = NVVM::MapaOp::create(b, loc, clusterType, local, peer);
  // The default release.cta: the stage's reads were wgmma's, complete at
  // its wait, and the peer only copies into it. (A release at cluster
  // scope held the warpgroup at every stage: 0.65x of the CTA scope's
  // speed on an H200.)
  NVVM::MBarrierArriveOp::create(b, loc, Type(), remote, Value());
}
