//===- Consumer.cpp - the consumer warpgroups ----------------------------===//
//
// The consumer warpgroups: wgmma over the stages, tf32x3's three
// products, and split-K's partials.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

Value KernelBuilder::addAccumulators(Value acc, Value sum,
                                     const TileScales *scales, int64_t mt,
                                     int64_t nt) {
  auto type = cast<LLVM::LLVMStructType>(acc.getType());
  Value result = acc;
  // The factor of each block of 128 columns this thread's part reaches,
  // at its rows r and r + 8 (elements i with i / 2 % 2 of 0 and 1), and
  // whether column offset `o` of the part lies in its block `d`'s or later.
  auto factorAt = [&](int64_t half, int64_t o) {
    ArrayRef<Value> ofRow = ArrayRef<Value>(scales->products)
                                .slice((mt * 2 + half) * k.scaleBlocks,
                                       k.scaleBlocks);
    Value factor = ofRow[0];
    for (int64_t d = 1; d < k.scaleBlocks; ++d) {
      Value reached = addOffset(b, loc, scales->startInBlock, o);
      Value past = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::uge, reached,
          index(d * gemmc::kScaleBlock));
      factor = arith::SelectOp::create(b, loc, past, ofRow[d], factor);
    }
    return factor;
  };
  for (int64_t i = 0, e = type.getBody().size(); i < e; ++i) {
    Value x = LLVM::ExtractValueOp::create(b, loc, acc, i);
    Value y = LLVM::ExtractValueOp::create(b, loc, sum, i);
    Value added;
    if (scales) {
      // Columns 8 * (i / 4) (and the next) of wgmma tile nt of the part.
      Value factor = factorAt(i / 2 % 2, nt * k.instN + 8 * (i / 4));
      added = LLVM::FMAOp::create(b, loc, y, factor, x);
    } else {
      added = LLVM::FAddOp::create(b, loc, x, y);
    }
    result = LLVM::InsertValueOp::create(b, loc, result, added, i);
  }
  return result;
}

Value KernelBuilder::baseDescriptor(const TmaOperand &t, int64_t offset) {
  // Bits 0-13: the address >> 4; 16-29: the leading byte offset >> 4;
  // 32-45: the stride byte offset >> 4; 62-63: 1 for the 128-byte swizzle.
  Value address = arith::AddIOp::create(b, loc, sharedAddress, i32(offset));
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), address);
  Value field = arith::ShRUIOp::create(b, loc, wide, i64(4));
  Value masked = arith::AndIOp::create(b, loc, field, i64(0x3FFF));
  uint64_t constant = (uint64_t(t.leadingByteOffset() >> 4) << 16) |
                      (uint64_t(t.strideByteOffset() >> 4) << 32) |
                      (uint64_t(1) << 62);
  return arith::OrIOp::create(b, loc, masked, i64(int64_t(constant)));
}

/// wgmma's type of an operand of `type` (f32 goes in as tf32).
static NVVM::WGMMATypes getWgmmaType(gemmc::ElementType type) {
  switch (type) {
  case gemmc::ElementType::F16:
    return NVVM::WGMMATypes::f16;
  case gemmc::ElementType::BF16:
    return NVVM::WGMMATypes::bf16;
  case gemmc::ElementType::E4M3:
    return NVVM::WGMMATypes::e4m3;
  case gemmc::ElementType::E5M2:
    return NVVM::WGMMATypes::e5m2;
  case gemmc::ElementType::F32:
    return NVVM::WGMMATypes::tf32;
  }
  llvm_unreachable("unknown element type");
}

/// wgmma.mma_async with A's fragment in registers (tf32: four .b32 a
/// thread) and B at descriptor `descB`, into the accumulators `acc`.
/// MLIR 22's NVVM dialect has the instruction only with both operands in
/// shared memory; this is the inline PTX its ops lower to themselves
/// (NVVM's BasicPtxBuilder): the accumulators written and read (tied), the
/// fragment, the descriptor, and scale-d as a predicate (0: D = A * B).
static Value createRegisterWgmma(OpBuilder &b, Location loc, Type accType,
                                 Value acc, ArrayRef<Value> fragment,
                                 Value descB, int64_t instN, int64_t instK,
                                 bool accumulate) {
  int64_t count = cast<LLVM::LLVMStructType>(accType).getBody().size();
  int64_t firstA = 2 * count, descriptor = firstA + 4;
  std::string text, constraints;
  llvm::raw_string_ostream os(text), cs(constraints);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << descriptor + 1
     << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << instN << "k" << instK
     << ".f32.tf32.tf32 {";
  for (int64_t i = 0; i < count; ++i)
    os << (i ? ", $" : "$") << i;
  os << "}, {$" << firstA << ", $" << firstA + 1 << ", $" << firstA + 2
     << ", $" << firstA + 3 << "}, $" << descriptor << ", p, 1, 1;\n}";
  SmallVector<Value> operands;
  for (int64_t i = 0; i < count; ++i) {
    cs << "=f,";
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  }
  for (int64_t i = 0; i < count; ++i)
    cs << i << ",";
  cs << "r,r,r,r,l,n";
  operands.append(fragment.begin(), fragment.end());
  operands.push_back(descB);
  operands.push_back(arith::ConstantIntOp::create(b, loc, accumulate ? 1 : 0,
                                                  /*width=*/32));
  return LLVM::InlineAsmOp::create(
             b, loc, accType, operands, text, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

SmallVector<Value> KernelBuilder::loadFragments(const ConsumerSetup &cs,
                                                Value aStage) {
  // Of the tile's M-major lines (TmaOperand: line k of a chunk of 128
  // bytes of M), the thread's elements of wgmma tile mt and K step kk lie
  // 2 * mt chunks (64 rows) and kk * instK lines past its first fragment's.
  SmallVector<Value> fragments;
  for (int64_t kk = 0; kk < k.kSteps; ++kk) {
    for (int64_t mt = 0; mt < k.mTiles; ++mt) {
      int64_t step = mt * k.instM * k.elementBytes / gemmc::kSwizzleBytes *
                         k.a.chunkBytes +
                     kk * k.instK * gemmc::kSwizzleBytes;
      Value base = arith::AddIOp::create(b, loc, aStage, i32(step));
      for (Value offset : cs.fragmentOffsets) {
        Value at = arith::AddIOp::create(b, loc, base, offset);
        fragments.push_back(LLVM::LoadOp::create(b, loc, b.getI32Type(),
                                                 sharedPointer(at), 4));
      }
    }
  }
  return fragments;
}

KernelBuilder::ConsumerSetup KernelBuilder::buildConsumerSetup() {
  MLIRContext *ctx = b.getContext();
  ConsumerSetup cs;
  if (k.consumerRegisters)
    NVVM::SetMaxRegisterOp::create(b, loc, k.consumerRegisters,
                                   NVVM::SetMaxRegisterAction::increase);
  cs.consumer = arith::SubIOp::create(b, loc, warpgroup, index(1));
  if (k.pingPong) {
    // The consumers' walks differ by their index, which ptxas must see
    // uniform in a warp (as lane 0's, like CUTLASS's warp-group index):
    // wgmma on a path that depends on the thread serialises (C7520).
    Value all = i32(-1);
    Value lane0 = i32(0);
    Value clamp = i32(0x1f);
    Value own = toI32(cs.consumer);
    Value uniform = NVVM::ShflOp::create(b, loc, b.getI32Type(), all, own,
                                         lane0, clamp, NVVM::ShflKind::idx,
                                         /*return_value_and_is_valid=*/nullptr);
    cs.consumer = toIndex(uniform);
  }
  Value laneInGroup =
      arith::RemUIOp::create(b, loc, threadId, index(gemmc::kWarpgroupSize));
  cs.leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                    laneInGroup, index(0));
  // The descriptors of this warpgroup's rows of A in stage 0, and of B.
  int64_t e = k.elementBytes;
  Value descA = baseDescriptor(k.a, k.aOffset);
  int64_t rowsIn16Bytes = k.a.offsetOf(k.consumerRowStride(), 0, e) >> 4;
  Value rowsOffset =
      arith::MulIOp::create(b, loc, cs.consumer, index(rowsIn16Bytes));
  Value rowsField = arith::IndexCastOp::create(b, loc, b.getI64Type(), rowsOffset);
  cs.descA = arith::AddIOp::create(b, loc, descA, rowsField);
  cs.descB = baseDescriptor(k.b, k.bOffset);
  if (k.a.inRegisters) {
    // wgmma's fragment of A (tf32): element 0 at the thread's row r = 16
    // * warp + lane / 4 of the 64 and column c = lane % 4 of the 8 of K,
    // element 1 at r + 8, 2 at c + 4, 3 at both. In the M-major tile, byte x
    // = 4 * (row % 32) of a 128-byte chunk of M lies in line c at
    // ((x / 16) ^ (c % 8)) * 16 + x % 16 (c < 8), chunk row / 32.
    auto [threadRow, laneCol] = accumulatorPosition();
    Value quad = arith::DivUIOp::create(b, loc, laneCol, index(2));
    Value ownRows =
        arith::MulIOp::create(b, loc, cs.consumer,
                              index(k.consumerRowStride()));
    Value firstRow = arith::AddIOp::create(b, loc, ownRows, threadRow);
    int64_t rowsPerChunk = gemmc::kSwizzleBytes / k.elementBytes;
    for (int64_t element = 0; element < 4; ++element) {
      Value row = addOffset(b, loc, firstRow, 8 * (element % 2));
      Value line = addOffset(b, loc, quad, 4 * (element / 2));
      Value chunk = arith::DivUIOp::create(b, loc, row, index(rowsPerChunk));
      Value chunkOffset =
          arith::MulIOp::create(b, loc, chunk, index(k.a.chunkBytes));
      Value inChunk = arith::RemUIOp::create(b, loc, row, index(rowsPerChunk));
      Value x = arith::MulIOp::create(b, loc, inChunk, index(k.elementBytes));
      Value unit = arith::DivUIOp::create(b, loc, x, index(gemmc::kWindowBytes));
      Value swizzled = arith::XOrIOp::create(b, loc, unit, line);
      Value unitOffset =
          arith::MulIOp::create(b, loc, swizzled, index(gemmc::kWindowBytes));
      Value inUnit = arith::RemUIOp::create(b, loc, x, index(gemmc::kWindowBytes));
      Value lineOffset =
          arith::MulIOp::create(b, loc, line, index(gemmc::kSwizzleBytes));
      Value sum = arith::AddIOp::create(b, loc, chunkOffset, lineOffset);
      sum = arith::AddIOp::create(b, loc, sum, unitOffset);
      sum = arith::AddIOp::create(b, loc, sum, inUnit);
      cs.fragmentOffsets.push_back(toI32(sum));
    }
  }

  cs.accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(k.instN / 2, b.getF32Type()));
  cs.shape = NVVM::MMAShapeAttr::get(ctx, k.instM, k.instN, k.instK);
  cs.inputTypeA = getWgmmaType(p.a);
  cs.inputTypeB = getWgmmaType(p.b);
  // wgmma's "row" A and "col" B are K-major.
  cs.layoutA = k.a.kMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  cs.layoutB = k.b.kMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  return cs;
}

void KernelBuilder::issueWgmma(const ConsumerSetup &cs, Value stageDescA,
                               Value stageDescB, ArrayRef<Value> fragments,
                               int64_t firstStep, int64_t endStep,
                               SmallVectorImpl<Value> &into) {
  int64_t e = k.elementBytes;
  // tf32x3's products of a step: A's remainder times B, A times B's
  // remainder (the small ones first, while the sum is small), A times B.
  // The remainders lie remainderOffset() bytes past the tiles, or for A's
  // fragments in registers in the second half of `fragments`.
  struct Product {
    bool aRemainder, bRemainder;
  };
  SmallVector<Product, 3> products = {{false, false}};
  if (k.tf32x3)
    products = {{true, false}, {false, true}, {false, false}};
  int64_t fragmentCount = k.tf32x3 ? fragments.size() / 2 : fragments.size();
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kk = firstStep; kk < endStep; ++kk) {
    for (auto [pi, product] : llvm::enumerate(products)) {
      for (int64_t mt = 0; mt < k.mTiles; ++mt) {
        Value opA;
        if (!k.a.inRegisters) {
          int64_t offsetA = k.a.offsetOf(mt * k.instM, kk * k.instK, e) +
                            (product.aRemainder ? k.a.remainderOffset() : 0);
          opA = arith::AddIOp::create(b, loc, stageDescA, i64(offsetA >> 4));
        }
        for (int64_t nt = 0; nt < k.nTiles; ++nt) {
          int64_t offsetB = k.b.offsetOf(nt * k.instN, kk * k.instK, e) +
                            (product.bRemainder ? k.b.remainderOffset() : 0);
          Value opB =
              arith::AddIOp::create(b, loc, stageDescB, i64(offsetB >> 4));
          Value &d = into[mt * k.nTiles + nt];
          bool fromZero = k.promotes && kk == firstStep && pi == 0;
          if (k.a.inRegisters) {
            int64_t first = (kk * k.mTiles + mt) * 4 +
                            (product.aRemainder ? fragmentCount : 0);
            ArrayRef<Value> fragment = fragments.slice(first, 4);
            d = createRegisterWgmma(b, loc, cs.accType, d, fragment, opB,
                                    k.instN, k.instK, !fromZero);
            continue;
          }
          d = NVVM::WgmmaMmaAsyncOp::create(
              b, loc, cs.accType, d, opA, opB, cs.shape, cs.inputTypeA,
              cs.inputTypeB, NVVM::WGMMATypes::f32,
              fromZero ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
              NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, cs.layoutA,
              cs.layoutB, /*satfinite=*/nullptr);
        }
      }
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
}

void KernelBuilder::multiplyStage(const ConsumerSetup &cs, scf::ForOp steps,
                                  Value kBegin, Value col0, Value passes) {
  MLIRContext *ctx = b.getContext();
  PipelineStep step = pipelineStep(steps);
  Value stage = step.stage;
  Value full = barrier(k.fullBarrierOffset, stage);
  NVVM::MBarrierTryWaitParityOp::create(b, loc, full, step.parity,
                                        i32(kWaitHintNs));
  // Copies of the producer's threads that arrived as they landed were
  // written by the generic proxy; wgmma reads through the async one.
  if (k.asyncArrivals)
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  Value stage64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), stage);
  Value aStage =
      arith::MulIOp::create(b, loc, stage64, i64(k.aStageStride >> 4));
  Value bStage =
      arith::MulIOp::create(b, loc, stage64, i64(k.bStageStride >> 4));
  Value stageDescA = arith::AddIOp::create(b, loc, cs.descA, aStage);
  Value stageDescB = arith::AddIOp::create(b, loc, cs.descB, bStage);
  SmallVector<Value> acc(steps.getRegionIterArgs().drop_front(stepValues()));
  // With tf32x3 (and FP8 but with fast accumulation) the k tile's
  // products go into sums of their own, each started from zero by the
  // tile's first product.
  SmallVector<Value> sums;
  if (k.promotes)
    for (size_t i = 0; i < acc.size(); ++i)
      sums.push_back(LLVM::PoisonOp::create(b, loc, cs.accType));
  // A's fragments are loaded before wgmma's fence, which orders them
  // before the wgmma that read them; tf32x3 splits them into their tf32
  // parts, then the remainders.
  SmallVector<Value> fragments;
  if (k.a.inRegisters)
    fragments = loadFragments(cs, stageBaseOf(k.aOffset, k.aStageStride, stage));
  if (k.a.inRegisters && k.tf32x3) {
    size_t count = fragments.size();
    for (size_t i = 0; i < count; ++i) {
      auto [part, remainder] = splitWord(b, loc, fragments[i]);
      fragments[i] = part;
      fragments.push_back(remainder);
    }
  }
  // Block scales: the k tile's, which the producer's threads copied into
  // the stage, read as its wgmma run.
  std::optional<TileScales> scales;
  // The tensor cores round their sums toward zero (and keep about 14 bits
  // of FP8's): each promoted sum (the k tile's, or tf32x3's 32 elements of
  // K) is added to the accumulators in f32 (rounded to nearest; with block
  // scales, times them) once its wgmma completed; the last frees the stage
  // too. wgmma reads A's registers as it runs: the next stage's fragments,
  // which go into the same registers, wait for it too (loaded while it
  // ran, the third k tile's rows of the second consumer came out wrong on
  // an H200).
  auto promote = [&]() {
    for (auto [position, d] : llvm::enumerate(acc)) {
      int64_t mt = int64_t(position) / k.nTiles;
      int64_t nt = int64_t(position) % k.nTiles;
      d = addAccumulators(d, sums[position], scales ? &*scales : nullptr, mt,
                          nt);
    }
  };
  for (int64_t first = 0; first < k.kSteps; first += k.promoteSteps) {
    int64_t end = std::min(first + k.promoteSteps, k.kSteps);
    issueWgmma(cs, stageDescA, stageDescB, fragments, first, end,
               k.promotes ? sums : acc);
    if (first == 0 && k.blockScales)
      scales = tileScales(readScales(cs, stage), col0);
    if (end == k.kSteps)
      break;
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    promote();
  }
  if (k.drainsEachStage()) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    if (k.promotes)
      promote();
    releaseStageIf(cs.leader, [&] { return stage; });
  } else {
    // One group stays in flight: the one before it has read its stage.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    Value iv = steps.getInductionVar();
    Value notFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, iv, kBegin);
    releaseStepBefore(step, arith::AndIOp::create(b, loc, notFirst, cs.leader));
    if (k.freesLastStageInLoop)
      finishLastStep(cs, steps, stage, passes);
  }
  SmallVector<Value> yields = nextStep(step);
  yields.append(acc);
  scf::YieldOp::create(b, loc, yields);
}

void KernelBuilder::finishLastStep(const ConsumerSetup &cs, scf::ForOp steps,
                                   Value stage, Value passes) {
  Value it = steps.getRegionIterArg(0);
  Value itLast;
  {
    // The pipeline iteration of the loop's last step.
    OpBuilder::InsertionGuard before(b);
    b.setInsertionPoint(steps);
    Value count = arith::SubIOp::create(b, loc, steps.getUpperBound(),
                                        steps.getLowerBound());
    Value end = arith::AddIOp::create(b, loc, steps.getInitArgs()[0], count);
    itLast = arith::SubIOp::create(b, loc, end, index(1));
  }
  Value last =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, it, itLast);
  auto ifLast = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifLast.thenBlock());
  // The turn passes as the last wgmma run: the other consumer's queue
  // behind them on the tensor cores.
  if (passes)
    passTurn(cs, passes);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  releaseStageIf(cs.leader, [&] { return stage; });
}

LogicalResult KernelBuilder::finishTile(const ConsumerSetup &cs, Value tile,
                                        Value tileRow0, Value tileCol,
                                        ArrayRef<Value> accumulators, Value one,
                                        const WorkUnit *unit) {
  Value ownRows =
      arith::MulIOp::create(b, loc, cs.consumer, index(k.consumerRowStride()));
  Value row0 = arith::AddIOp::create(b, loc, tileRow0, ownRows);
  Value col0 = arith::MulIOp::create(b, loc, tileCol, index(s.bn()));
  SmallVector<Value> results(accumulators);
  auto store = [&]() -> LogicalResult {
    if (!k.c)
      return storeC(results, row0, col0);
    if (!offsets)
      return storeCWithTma(results, cs.consumer, cs.leader, row0, col0);
    // A grouped GEMM's TMA boxes of rows would cross a group's last row
    // into the next group's: the warpgroup's rows wholly inside their
    // group go by TMA, the others by the threads, up to the group's end.
    Value rowsEnd = addOffset(b, loc, row0, k.rowsPerConsumer);
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, rowsEnd, m);
    auto ifInside = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifInside.thenBlock());
    if (failed(storeCWithTma(results, cs.consumer, cs.leader, row0, col0)))
      return failure();
    b.setInsertionPointToStart(ifInside.elseBlock());
    return storeC(results, row0, col0);
  };
  // A stream-K tile that this block computes alone is stored at once;
  // a shared one, like a split-K tile, by its last block, from the sum.
  scf::IfOp alone;
  std::optional<TileSharing> sharing;
  if (unit) {
    sharing = sharingOf(*unit);
    Value single = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         sharing->pieces, one);
    alone = scf::IfOp::create(b, loc, single, /*withElseRegion=*/true);
    b.setInsertionPointToStart(alone.thenBlock());
    if (failed(store()))
      return failure();
    b.setInsertionPointToStart(alone.elseBlock());
  }
  Operation *lastOnly = nullptr;
  if (s.splitsK() || unit) {
    if (failed(reduceSplits(tile, row0, col0, results,
                            sharing ? &*sharing : nullptr)))
      return failure();
    lastOnly = b.getInsertionBlock()->getParentOp();
  }
  if (failed(store()))
    return failure();
  if (lastOnly)
    b.setInsertionPointAfter(lastOnly);
  if (alone)
    b.setInsertionPointAfter(alone);
  return success();
}

FailureOr<Value> KernelBuilder::consumeTile(const ConsumerSetup &cs, Value tile,
                                            Value kBegin, Value kEnd, Value it0,
                                            const WorkUnit *unit) {
  TilePosition at = tileCoordinates(tile);
  return whereTileExists(at, it0, [&]() -> FailureOr<Value> {
    return consumeTileAt(cs, at, tile, kBegin, kEnd, it0, unit);
  });
}

/// Zeros of `accType` (a struct of f32) in registers of their own, which
/// LLVM cannot see are zeros: where it saw them it copied one zero
/// register into the others (or, a tile's first k tile peeled off its
/// loop, into wgmma's accumulators between its instructions), and ptxas
/// injected waits and arrivals around the wgmma (C7517, C7519) or
/// serialised them (C7520). Every kernel takes them (ping-pong
/// consumers alone did before): of the schedule fuzzer's seed 87
/// (`--hopper-only`, 494 kernels), 100 had such warnings before, 62 of
/// them C7520 (one consumer, not persistent, among others), none after;
/// the shipped families' registers and spills are unchanged.
static Value createOpaqueZeros(OpBuilder &b, Location loc, Type accType) {
  int64_t count = cast<LLVM::LLVMStructType>(accType).getBody().size();
  std::string text, constraints;
  llvm::raw_string_ostream os(text), cs(constraints);
  for (int64_t i = 0; i < count; ++i) {
    os << "mov.b32 $" << i << ", 0;\n";
    cs << (i ? ",=f" : "=f");
  }
  return LLVM::InlineAsmOp::create(
             b, loc, accType, ValueRange(), text, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

/// Named barrier `id` (i32) of both consumers' 256 threads: this
/// warpgroup's arrival (`wait`: and its wait for the other's).
static void meetAtTurn(OpBuilder &b, Location loc, Value id, bool wait) {
  Value threads = arith::ConstantIntOp::create(
      b, loc, 2 * gemmc::kWarpgroupSize, /*width=*/32);
  if (wait) {
    NVVM::BarrierOp::create(b, loc, Type(), id, threads,
                            /*reductionOp=*/nullptr,
                            /*reductionPredicate=*/Value());
    return;
  }
  NVVM::BarrierArriveOp::create(b, loc, id, threads);
}

void KernelBuilder::awaitTurn(const ConsumerSetup &cs, Value tile) {
  Value later = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, tile,
                                      walkStart);
  auto ifLater = scf::IfOp::create(b, loc, later, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifLater.thenBlock());
  // The other consumer's: turnBarrier() + (1 - consumer).
  Value other = arith::SubIOp::create(b, loc, index(k.turnBarrier() + 1),
                                      cs.consumer);
  meetAtTurn(b, loc, toI32(other), /*wait=*/true);
}

Value KernelBuilder::turnPasses(Value tile) {
  Value next = arith::AddIOp::create(b, loc, tile, walkStep);
  Value inWalk =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, next, numTiles);
  if (!offsets)
    return inWalk;
  // A grouped walk counts slots, its tiles the first of them: the turn
  // passes where a group holds the next slot (the other consumer has no
  // tile after a slot without one). The cursor moves on a copy of it.
  GroupCursor saved = cursor;
  moveCursor(next, [&](Value g, Value start) { return groupExtent(g, start); });
  Value held = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     cursor.group, groupCount);
  cursor = saved;
  return arith::AndIOp::create(b, loc, inWalk, held);
}

void KernelBuilder::passTurn(const ConsumerSetup &cs, Value when) {
  auto ifMore = scf::IfOp::create(b, loc, when, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifMore.thenBlock());
  Value own = arith::AddIOp::create(b, loc, cs.consumer,
                                    index(k.turnBarrier()));
  meetAtTurn(b, loc, toI32(own), /*wait=*/false);
}

FailureOr<Value> KernelBuilder::consumeTileAt(const ConsumerSetup &cs,
                                              const TilePosition &at,
                                              Value tile, Value kBegin,
                                              Value kEnd, Value it0,
                                              const WorkUnit *unit) {
  TileScope inTile(*this, at);
  // The general form's group: its own K.
  if (table) {
    kBegin = index(0);
    kEnd = kTiles;
  }
  SmallVector<Value> inits = stepInits(it0);
  for (int64_t i = 0, e = k.mTiles * k.nTiles; i < e; ++i)
    inits.push_back(createOpaqueZeros(b, loc, cs.accType));
  Value one = index(1);
  Value col0;
  if (k.blockScales)
    col0 = arith::MulIOp::create(b, loc, at.col, index(s.bn()));
  // Ping-pong: whether this consumer passes the turn in the loop's last
  // step.
  Value passes;
  if (k.pingPong)
    awaitTurn(cs, tile);
  if (k.pingPong && k.freesLastStageInLoop)
    passes = turnPasses(tile);
  auto steps = scf::ForOp::create(b, loc, kBegin, kEnd, one, inits);
  keepStepsRolled(steps);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(steps.getBody());
    multiplyStage(cs, steps, kBegin, col0, passes);
  }
  // Unless the loop's last step passed the turn (the loop has one:
  // kTiles), it passes here, as the last wgmma run or once they
  // completed. A general form's group of no K has no step.
  if (k.pingPong && !k.freesLastStageInLoop) {
    Value more = turnPasses(tile);
    passTurn(cs, more);
  } else if (k.pingPong && table) {
    Value none =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kEnd, kBegin);
    Value passesHere = arith::AndIOp::create(b, loc, passes, none);
    passTurn(cs, passesHere);
  }
  Value end = steps.getResult(0);
  if (!k.drainsEachStage()) {
    // (Where the loop's last step waited already, ptxas sees the
    // accumulators complete here.)
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    if (!k.freesLastStageInLoop) {
      // The last stage this tile used, once its wgmma completed.
      Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, kEnd,
                                        kBegin);
      releaseStageBefore(end, arith::AndIOp::create(b, loc, any, cs.leader));
    }
  }
  SmallVector<Value> results(steps.getResults().drop_front(stepValues()));
  Value firstRow = tileFirstRow(at);
  if (failed(finishTile(cs, tile, firstRow, at.col, results, one, unit)))
    return failure();
  return end;
}

LogicalResult KernelBuilder::buildConsumer(Value tileStart, Value tileStep) {
  ConsumerSetup cs = buildConsumerSetup();
  OpBuilder::InsertionGuard guard(b);
  startAmax();
  Operation *walk = nullptr;
  if (s.streamK) {
    // The whole tiles, as the persistent kernel walks them; then the
    // shared tile's unit, under a branch: as a loop of at most one trip,
    // ptxas spilled the sums beside the accumulators (a column bias and
    // beta * C with 'tma c': 436 bytes at 128 x 128, none now; 2,984 at
    // 128 x 256, 84 now).
    // One op a statement: C++ leaves the order of a call's arguments open.
    Value zero = index(0);
    Value one = index(1);
    auto whole = scf::ForOp::create(b, loc, zero, wholeUnitCount, one,
                                    ValueRange{zero});
    b.setInsertionPointToStart(whole.getBody());
    Value wholeTile = wholeTileAt(whole.getInductionVar());
    FailureOr<Value> wholeEnd =
        consumeTile(cs, wholeTile, zero, kTiles, whole.getRegionIterArg(0),
                    /*unit=*/nullptr);
    if (failed(wholeEnd))
      return failure();
    scf::YieldOp::create(b, loc, *wholeEnd);
    b.setInsertionPointAfter(whole);
    Value shares = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                         sharedUnitCount, zero);
    auto ifShares = scf::IfOp::create(b, loc, b.getIndexType(), shares,
                                      /*withElseRegion=*/true);
    walk = ifShares;
    b.setInsertionPointToStart(ifShares.thenBlock());
    WorkUnit unit = sharedUnit();
    FailureOr<Value> end = consumeTile(cs, unit.tile, unit.kBegin, unit.kEnd,
                                       whole.getResult(0), &unit);
    if (failed(end))
      return failure();
    scf::YieldOp::create(b, loc, *end);
    b.setInsertionPointToStart(ifShares.elseBlock());
    scf::YieldOp::create(b, loc, whole.getResult(0));
  } else {
    // Ping-pong: consumer i takes the block's tiles i, i + 2, ...; the
    // producer fills the stages of every tile in the walk's order, each
    // tile's kEnd - kBegin of them, so a consumer's next tile starts
    // that many pipeline iterations after its last tile's end. The
    // general form's tiles take their groups' K: a consumer skips the
    // other's tile's own (consumer 1 the block's first tile's), found by
    // moving the cursor on to that tile's group, which comes before the
    // consumer's next tile's.
    Value it0 = index(0);
    Value skip;
    bool skipsTableTiles = k.pingPong && table;
    std::optional<GroupCursor> start;
    if (k.pingPong) {
      if (skipsTableTiles) {
        Value zero = index(0);
        cursor = {zero, zero, zero};
        Value first = tableTileSteps(tileStart);
        it0 = arith::MulIOp::create(b, loc, cs.consumer, first);
        start = cursor;
      } else {
        skip = arith::SubIOp::create(b, loc, kEnd, kBegin);
        it0 = arith::MulIOp::create(b, loc, cs.consumer, skip);
      }
      Value before = arith::MulIOp::create(b, loc, cs.consumer, tileStep);
      tileStart = arith::AddIOp::create(b, loc, tileStart, before);
      tileStep = arith::MulIOp::create(b, loc, tileStep, index(2));
    }
    SmallVector<Value> inits = walkInits(it0, start ? &*start : nullptr);
    auto tiles =
        scf::ForOp::create(b, loc, tileStart, numTiles, tileStep, inits);
    walk = tiles;
    b.setInsertionPointToStart(tiles.getBody());
    enterWalk(tiles);
    Value tile = tiles.getInductionVar();
    FailureOr<Value> end =
        consumeTile(cs, tile, kBegin, kEnd, tiles.getRegionIterArg(0),
                    /*unit=*/nullptr);
    if (failed(end))
      return failure();
    Value next = *end;
    if (skipsTableTiles) {
      Value others = arith::AddIOp::create(b, loc, tile, walkStep);
      skip = tableTileSteps(others);
    }
    if (skip)
      next = arith::AddIOp::create(b, loc, next, skip);
    scf::YieldOp::create(b, loc, walkYields(next));
  }
  b.setInsertionPointAfter(walk);
  finishAmax();
  if (!k.c)
    return success();
  // The block's shared memory must outlive the last stores' reads of it.
  auto ifLeader =
      scf::IfOp::create(b, loc, cs.leader, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, /*read=*/nullptr);
  return success();
}

LogicalResult KernelBuilder::reduceSplits(Value tile, Value row0, Value col0,
                                          SmallVectorImpl<Value> &accs,
                                          const TileSharing *sharing) {
  // Each consumer thread's accumulators in vectors of 4 (16-byte stores
  // and loads of the workspace), in the order of the accumulators: values
  // i..i+3 (i a multiple of 4) hold columns c, c + 1 of rows r and r + 8,
  // inside C where r < M and c < N (C's columns come in pairs).
  constexpr int64_t width = 4;
  auto vectorType = VectorType::get({width}, b.getF32Type());
  auto [threadRow, laneCol] = accumulatorPosition();
  Value rowBase = arith::AddIOp::create(b, loc, row0, threadRow);
  Value colBase = arith::AddIOp::create(b, loc, col0, laneCol);
  SmallVector<Value> pieces, inside;
  for (auto [position, acc] : llvm::enumerate(accs)) {
    int64_t mt = int64_t(position) / k.nTiles;
    int64_t nt = int64_t(position) % k.nTiles;
    Value row = addOffset(b, loc, rowBase, mt * k.instM);
    Value rowInside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, m);
    for (int64_t i = 0; i < k.instN / 2; i += width) {
      SmallVector<Value> elements;
      for (int64_t j = 0; j < width; ++j)
        elements.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i + j));
      pieces.push_back(
          vector::FromElementsOp::create(b, loc, vectorType, elements));
      Value col = addOffset(b, loc, colBase, nt * k.instN + 8 * (i / 4));
      Value colInside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, n);
      inside.push_back(arith::AndIOp::create(b, loc, rowInside, colInside));
    }
  }
  SplitParticipants who;
  who.thread = arith::SubIOp::create(b, loc, threadId,
                                     index(gemmc::kWarpgroupSize));
  who.threads = k.consumers * gemmc::kWarpgroupSize;
  who.barrierId = k.splitKBarrier();
  // Stream-K's consumers count in among themselves: the producer, which
  // walks on to the next tiles' copies, joins nothing.
  if (sharing)
    who.flag = sharedPointer(i32(k.countFlagOffset));
  Operation *at = b.getInsertionBlock()->getParentOp();
  if (sharing) {
    PartialSlots slots = streamKSlots(*sharing);
    if (failed(gemm::reducePartials(b, loc, at, sharing->pieces,
                                    s.bm() * s.bn(), tile, /*split=*/Value(),
                                    /*empty=*/Value(), who, pieces, inside,
                                    &slots)))
      return failure();
  } else if (failed(gemm::reducePartials(b, loc, at, splitCount,
                                         s.bm() * s.bn(), tile, split,
                                         /*empty=*/Value(), who, pieces,
                                         inside))) {
    return failure();
  }
  size_t next = 0;
  for (Value &acc : accs) {
    for (int64_t i = 0; i < k.instN / 2; i += width) {
      Value sum = pieces[next++];
      for (int64_t j = 0; j < width; ++j) {
        Value element = vector::ExtractOp::create(b, loc, sum, j);
        acc = LLVM::InsertValueOp::create(b, loc, acc, element, i + j);
      }
    }
  }
  return success();
}
