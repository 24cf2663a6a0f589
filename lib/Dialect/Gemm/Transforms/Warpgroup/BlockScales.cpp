//===- BlockScales.cpp - the block scales of FP8 -------------------------===//
//
// `scales = block`: A's scales per row and 128 of K, B's per 128 x 128
// block. The producer's threads copy a k tile's into its stage; the
// consumers read theirs there and multiply the tile's sums by them as
// they add them to the accumulators (Consumer.cpp).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

Value KernelBuilder::f32BufferAddress(Value buffer) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  Value offset = metadata.getOffset();
  Value offsetBytes = arith::MulIOp::create(b, loc, offset, index(4));
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  return arith::AddIOp::create(b, loc, aligned, offsetBytes);
}

void KernelBuilder::copyScales(Value stage, Value row0, Value col0,
                               Value kTile) {
  MLIRContext *ctx = b.getContext();
  Value block = index(gemmc::kScaleBlock);
  // A's lie M-major (K tile kTile's at kTile * M, M all groups' rows),
  // B's K-major (block column nb's at nb * kTiles: BK is 128), a grouped
  // GEMM's group after group; rows past M (a group's end) and blocks past
  // N copy the last one (nothing stores there).
  Value baseA = f32BufferAddress(getKernelArgument(func, KernelArg::ScaleA));
  Value baseB = f32BufferAddress(getKernelArgument(func, KernelArg::ScaleB));
  Value lastRow = arith::SubIOp::create(b, loc, m, index(1));
  Value kTileRows = arith::MulIOp::create(b, loc, kTile, rowsOfA);
  Value nBlocks = arith::CeilDivUIOp::create(b, loc, n, block);
  Value lastBlock = arith::SubIOp::create(b, loc, nBlocks, index(1));
  Value firstBlock = arith::DivUIOp::create(b, loc, col0, block);
  Value stageBase = stageBaseOf(k.scaleOffset, k.scaleStageStride, stage);
  auto globalType = LLVM::LLVMPointerType::get(ctx, 1);
  // Entry i of the stage's scales, i = thread + 128 j: A's of row i of
  // the tile, then B's of its block i - BM.
  int64_t entries = s.bm() + k.scaleBlocks;
  int64_t threads = gemmc::kWarpgroupSize;
  for (int64_t j = 0; j * threads < entries; ++j) {
    OpBuilder::InsertionGuard guard(b);
    Value i = addOffset(b, loc, threadId, j * threads);
    if ((j + 1) * threads > entries) {
      Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           i, index(entries));
      auto ifExists = scf::IfOp::create(b, loc, exists, false);
      b.setInsertionPointToStart(&ifExists.getThenRegion().front());
    }
    Value row = arith::AddIOp::create(b, loc, row0, i);
    Value clampedRow = arith::MinUIOp::create(b, loc, row, lastRow);
    Value ofA = arith::AddIOp::create(b, loc, kTileRows, clampedRow);
    Value blockIndex = arith::SubIOp::create(b, loc, i, index(s.bm()));
    Value nb = arith::AddIOp::create(b, loc, firstBlock, blockIndex);
    Value clampedBlock = arith::MinUIOp::create(b, loc, nb, lastBlock);
    if (group) {
      Value groupBlocks = arith::MulIOp::create(b, loc, group, nBlocks);
      clampedBlock = arith::AddIOp::create(b, loc, groupBlocks, clampedBlock);
    }
    Value blockRow = arith::MulIOp::create(b, loc, clampedBlock, kTiles);
    Value ofB = arith::AddIOp::create(b, loc, blockRow, kTile);
    Value isA =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, index(s.bm()));
    Value base = arith::SelectOp::create(b, loc, isA, baseA, baseB);
    Value element = arith::SelectOp::create(b, loc, isA, ofA, ofB);
    Value bytes = arith::MulIOp::create(b, loc, element, index(4));
    Value address = arith::AddIOp::create(b, loc, base, bytes);
    Value address64 =
        arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
    Value source = LLVM::IntToPtrOp::create(b, loc, globalType, address64);
    // One op a statement: C++ leaves the order of a call's arguments open.
    Value i32Index = toI32(i);
    Value slot = arith::MulIOp::create(b, loc, i32Index, i32(4));
    Value at = arith::AddIOp::create(b, loc, stageBase, slot);
    NVVM::CpAsyncOp::create(
        b, loc, sharedPointer(at), source, b.getI32IntegerAttr(4),
        NVVM::LoadCacheModifierKindAttr::get(
            ctx, NVVM::LoadCacheModifierKind::CA),
        /*cpSize=*/Value());
  }
}

SmallVector<Value> KernelBuilder::readScales(const ConsumerSetup &cs,
                                             Value stage) {
  Value stageBase = stageBaseOf(k.scaleOffset, k.scaleStageStride, stage);
  auto [threadRow, laneCol] = accumulatorPosition();
  Value ownRows =
      arith::MulIOp::create(b, loc, cs.consumer, index(k.consumerRowStride()));
  Value rowBase = arith::AddIOp::create(b, loc, ownRows, threadRow);
  auto load = [&](Value entry) -> Value {
    Value entry32 = toI32(entry);
    Value slot = arith::MulIOp::create(b, loc, entry32, i32(4));
    Value at = arith::AddIOp::create(b, loc, stageBase, slot);
    return LLVM::LoadOp::create(b, loc, b.getF32Type(), sharedPointer(at));
  };
  SmallVector<Value> values;
  for (int64_t mt = 0; mt < k.mTiles; ++mt)
    for (int64_t half = 0; half < 2; ++half)
      values.push_back(
          load(addOffset(b, loc, rowBase, mt * k.instM + 8 * half)));
  for (int64_t d = 0; d < k.scaleBlocks; ++d)
    values.push_back(load(index(s.bm() + d)));
  return values;
}

KernelBuilder::TileScales KernelBuilder::tileScales(ArrayRef<Value> values,
                                                    Value col0) {
  TileScales scales;
  scales.startInBlock =
      arith::RemUIOp::create(b, loc, col0, index(gemmc::kScaleBlock));
  ArrayRef<Value> rowScales = values.drop_back(k.scaleBlocks);
  ArrayRef<Value> blockScales = values.take_back(k.scaleBlocks);
  for (Value rowScale : rowScales)
    for (Value blockScale : blockScales)
      scales.products.push_back(
          arith::MulFOp::create(b, loc, rowScale, blockScale));
  return scales;
}
