//===- RegisterTile.cpp - TM x TN results per thread, in registers --------===//

#include "Lowering/Epilogue.h"
#include "Lowering/SplitK.h"
#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMREGISTERTILE
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

namespace {
/// Where a thread's elements of C lie in the block tile: TM rows in chunks
/// of `rowChunk` starting at `rowBase + i * rowStride`, and TN columns in
/// chunks of `colChunk` starting at `colBase + j * colStride`.
struct ThreadPlacement {
  Value rowBase, colBase;
  int64_t rowChunk, colChunk, rowStride, colStride;
};
} // namespace

/// A warp's view (from gemm-warp-tile) is addressed through the block's view
/// it was cut from, at the warp's offsets; other operands as they are.
struct Operand {
  Value memref;
  Value rowOffset, colOffset; ///< null for 0
};

static Operand throughWarpView(OpBuilder &b, Location loc, Value value) {
  auto view = value.getDefiningOp<memref::SubViewOp>();
  if (!view || !view->hasAttr(kWarpViewAttr))
    return {value, Value(), Value()};
  SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
  return {view.getSource(), getValueOrCreateConstantIndexOp(b, loc, offsets[0]),
          getValueOrCreateConstantIndexOp(b, loc, offsets[1])};
}

/// Places the threads that share `matmul`'s tile of C: the 32 lanes of a
/// warp for a warp-level op, the threads of a K slice (the block's, without
/// `slice-k`) for a block-level one, `thread` this one's index among them.
/// `origin` is where that tile starts in the memref C is addressed through.
static ThreadPlacement placeThread(OpBuilder &b, Location loc, MatmulOp matmul,
                                   Value thread, const Operand &origin) {
  const gemmc::Schedule &s = getKernelSchedule(matmul);
  auto cType = cast<MemRefType>(matmul.getC().getType());
  int64_t tm = s.tm(), tn = s.tn();
  int64_t lanesM = cType.getDimSize(0) / tm, lanesN = cType.getDimSize(1) / tn;
  int64_t width = s.registerLoadWidth();

  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  Value lane = thread;
  if (matmul.getLevel() == Level::Warp)
    lane = arith::RemUIOp::create(b, loc, lane, c(32));
  Value laneRow = arith::DivUIOp::create(b, loc, lane, c(lanesN));
  Value laneCol = arith::RemUIOp::create(b, loc, lane, c(lanesN));

  ThreadPlacement p;
  p.rowChunk = tm % width == 0 ? width : 1;
  p.colChunk = tn % width == 0 ? width : 1;
  p.rowStride = lanesM * p.rowChunk;
  p.colStride = lanesN * p.colChunk;
  auto base = [&](Value offset, Value laneIdx, int64_t chunk) -> Value {
    Value l = arith::MulIOp::create(b, loc, laneIdx, c(chunk));
    return offset ? arith::AddIOp::create(b, loc, offset, l).getResult() : l;
  };
  p.rowBase = base(origin.rowOffset, laneRow, p.rowChunk);
  p.colBase = base(origin.colOffset, laneCol, p.colChunk);
  return p;
}

/// A `width`-element read of `source` at (row, col) along dimension `dim`.
static Value readChunk(OpBuilder &b, Location loc, Value source, Value row,
                       Value col, int64_t width, unsigned dim) {
  auto type = cast<MemRefType>(source.getType());
  MLIRContext *ctx = b.getContext();
  AffineMap map = AffineMap::get(2, 0, getAffineDimExpr(dim, ctx));
  Value pad =
      arith::ConstantOp::create(b, loc, type.getElementType(),
                                b.getFloatAttr(type.getElementType(), 0.0));
  bool inBounds[] = {true};
  return vector::TransferReadOp::create(
      b, loc, VectorType::get({width}, type.getElementType()), source,
      ValueRange{row, col}, pad, map, ArrayRef<bool>(inBounds));
}

/// The named barrier at which slice 0's threads meet (split-K's count).
static constexpr int64_t kSliceBarrier = 1;

namespace {
/// `slice-k`: where the K slices' sums lie in shared memory, those of
/// slice 1 (or of the second warp's slices) first: each of a slice's `pieces`
/// accumulators (vectors of `width`) in a strip of the slice's threads side by
/// side, so that a warp's accesses are whole lines.
struct SliceSums {
  Value buffer;
  int64_t pieces, width, threads;

  /// Where `thread` of sums `group` (1 to Schedule::sliceSums() - 1)
  /// keeps accumulator `piece`: ((group - 1) x pieces + piece) x threads x
  /// width + thread x width.
  Value slot(OpBuilder &b, Location loc, Value group, int64_t piece,
             Value thread) const {
    Value one = indexConstant(b, loc, 1);
    Value before = arith::SubIOp::create(b, loc, group, one);
    Value strips =
        arith::MulIOp::create(b, loc, before, indexConstant(b, loc, pieces));
    Value strip = addOffset(b, loc, strips, piece);
    Value start = arith::MulIOp::create(b, loc, strip,
                                        indexConstant(b, loc, threads * width));
    Value mine =
        arith::MulIOp::create(b, loc, thread, indexConstant(b, loc, width));
    return arith::AddIOp::create(b, loc, start, mine);
  }
};
} // namespace

/// `acc` (f32 or a vector of f32) plus the same value of the lane `offset`
/// away (lane ^ offset): shuffles of the whole warp, element by element.
static Value addAcrossLanes(OpBuilder &b, Location loc, Value acc,
                            int64_t offset) {
  Value offsetValue = arith::ConstantIntOp::create(b, loc, offset, 32);
  Value width = arith::ConstantIntOp::create(b, loc, kWarpSize, 32);
  auto other = [&](Value element) {
    return gpu::ShuffleOp::create(b, loc, element, offsetValue, width,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  auto vectorType = dyn_cast<VectorType>(acc.getType());
  if (!vectorType) {
    Value theirs = other(acc);
    return arith::AddFOp::create(b, loc, acc, theirs);
  }
  Value sum = acc;
  for (int64_t i = 0; i < vectorType.getNumElements(); ++i) {
    Value element = vector::ExtractOp::create(b, loc, acc, i);
    Value theirs = other(element);
    Value added = arith::AddFOp::create(b, loc, element, theirs);
    sum = vector::InsertOp::create(b, loc, added, sum, i);
  }
  return sum;
}

/// Adds the sums of the K slices (`slice-k`) into slice 0's `accs`, in a
/// fixed order. Where a warp holds several slices (fewer than 32 threads
/// each), they first add theirs up by butterfly shuffles (lane ^ T, lane ^
/// 2T, ..., T the threads of a slice), which leave every slice of the warp
/// the same sums, bit for bit. Then each warp's worth of slices but the
/// first (its first slice's threads) stores its sums in a shared buffer
/// (the schedule model's), and after the block's barrier every thread adds
/// those up in warp order (slice 0's are the ones kept).
static void sumSlices(OpBuilder &b, Location loc, gpu::GPUFuncOp func,
                      const gemmc::Schedule &s, Value slice, Value thread,
                      SmallVectorImpl<Value> &accs) {
  int64_t perWarp = s.slicesPerWarp();
  for (int64_t offset = s.threadsPerSlice();
       perWarp > 1 && offset < gemmc::kWarpSize; offset *= 2)
    for (Value &acc : accs)
      acc = addAcrossLanes(b, loc, acc, offset);
  if (s.sliceSums() == 1)
    return;

  MLIRContext *ctx = b.getContext();
  auto vectorType = cast<VectorType>(accs.front().getType());
  SliceSums sums;
  sums.pieces = int64_t(accs.size());
  sums.width = vectorType.getNumElements();
  sums.threads = s.threadsPerSlice();
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  int64_t floats = (s.sliceSums() - 1) * s.bm() * s.bn();
  BlockArgument buffer = func.addWorkgroupAttribution(
      MemRefType::get({floats}, b.getF32Type(), AffineMap(), workgroup), loc);
  func.setWorkgroupAttributionAttr(
      buffer.getArgNumber() - func.getNumArguments(), "llvm.align",
      IntegerAttr::get(IntegerType::get(ctx, 64), 16));
  sums.buffer = buffer;
  llvm::MaybeAlign alignment(
      std::min<int64_t>(16, sums.width * int64_t(sizeof(float))));

  // The sums' index among the warps' worth of slices, and whether this
  // slice is its warp's first (the one that stores them).
  Value zero = indexConstant(b, loc, 0);
  Value group = slice;
  Value stores =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, slice, zero);
  if (perWarp > 1) {
    Value perWarpValue = indexConstant(b, loc, perWarp);
    group = arith::DivUIOp::create(b, loc, slice, perWarpValue);
    Value within = arith::RemUIOp::create(b, loc, slice, perWarpValue);
    Value laterGroup =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, group, zero);
    Value firstInWarp =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, within, zero);
    stores = arith::AndIOp::create(b, loc, laterGroup, firstInWarp);
  }
  auto ifStores = scf::IfOp::create(b, loc, stores, /*withElseRegion=*/false);
  {
    OpBuilder tb = ifStores.getThenBodyBuilder();
    for (auto [i, acc] : llvm::enumerate(accs)) {
      Value at = sums.slot(tb, loc, group, int64_t(i), thread);
      vector::StoreOp::create(tb, loc, acc, sums.buffer, ValueRange{at},
                              /*nontemporal=*/false, alignment);
    }
  }
  gpu::BarrierOp::create(b, loc);
  for (int64_t from = 1; from < s.sliceSums(); ++from) {
    Value other = indexConstant(b, loc, from);
    for (auto [i, acc] : llvm::enumerate(accs)) {
      Value at = sums.slot(b, loc, other, int64_t(i), thread);
      Value partial = vector::LoadOp::create(
          b, loc, cast<VectorType>(acc.getType()), sums.buffer, ValueRange{at},
          /*nontemporal=*/false, alignment);
      acc = arith::AddFOp::create(b, loc, acc, partial);
    }
  }
}

static LogicalResult registerTile(MatmulOp matmul) {
  const gemmc::Schedule &s = getKernelSchedule(matmul);
  auto aType = cast<MemRefType>(matmul.getA().getType());
  auto cType = cast<MemRefType>(matmul.getC().getType());
  int64_t bm = cType.getDimSize(0), bn = cType.getDimSize(1);
  int64_t tm = s.tm(), tn = s.tn();
  int64_t threads = (bm / tm) * (bn / tn);
  int64_t slices = s.slices();
  if (slices > 1 && matmul.getLevel() == Level::Warp)
    return matmul.emitOpError("slice-k splits a block's register tiles, "
                              "not a warp's");
  if (bm % tm || bn % tn ||
      threads * slices !=
          (matmul.getLevel() == Level::Warp ? 32 : s.threadsPerBlock()))
    return matmul.emitOpError("a ")
           << bm << "x" << bn << " tile of " << tm << "x" << tn
           << " register tiles does not match the "
           << (matmul.getLevel() == Level::Warp ? "32 lanes of a warp"
                                                : "threads of the block");
  Type accType = matmul.getAccType();
  if (!aType.getElementType().isF32() || !accType.isF32() ||
      !cType.getElementType().isF32())
    return matmul.emitOpError("register tiles of f32 only are implemented");

  OpBuilder b(matmul);
  Location loc = matmul.getLoc();
  Value k = getValueOrCreateConstantIndexOp(
      b, loc,
      kLoopExtent(b, loc, matmul, matmul.getA(), s.bk(), s.hasPromotion()));
  // Address through the block's views, so that the warp's offsets and the
  // lanes' fold into one base per thread.
  Operand a = throughWarpView(b, loc, matmul.getA());
  Operand bOperand = throughWarpView(b, loc, matmul.getB());
  Operand cOperand = throughWarpView(b, loc, matmul.getC());
  // With `slice-k`, slice `slice` of the block's threads takes K's steps
  // slice, slice + S, ...: the slices read neighbouring rows of B at once.
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value slice = indexConstant(b, loc, 0);
  if (slices > 1) {
    Value perSlice = indexConstant(b, loc, threads);
    slice = arith::DivUIOp::create(b, loc, thread, perSlice);
    thread = arith::RemUIOp::create(b, loc, thread, perSlice);
  }
  ThreadPlacement p = placeThread(b, loc, matmul, thread, cOperand);
  int64_t rowChunks = tm / p.rowChunk, colChunks = tn / p.colChunk;
  auto accVector = VectorType::get({p.colChunk}, accType);
  Value zero = arith::ConstantOp::create(
      b, loc, accVector, DenseElementsAttr::get(accVector, 0.0f));
  SmallVector<Value> inits(tm * colChunks, zero);

  Value lower = slice;
  Value step = indexConstant(b, loc, slices);
  auto loop = scf::ForOp::create(
      b, loc, lower, k, step, inits,
      [&](OpBuilder &lb, Location l, Value kk, ValueRange acc) {
        SmallVector<Value> aChunks, bChunks;
        for (int64_t i = 0; i < rowChunks; ++i)
          aChunks.push_back(readChunk(
              lb, l, a.memref, addOffset(lb, l, p.rowBase, i * p.rowStride), kk,
              p.rowChunk, /*dim=*/0));
        for (int64_t j = 0; j < colChunks; ++j)
          bChunks.push_back(readChunk(
              lb, l, bOperand.memref, kk,
              addOffset(lb, l, p.colBase, j * p.colStride), p.colChunk,
              /*dim=*/1));
        SmallVector<Value> next;
        for (int64_t i = 0; i < tm; ++i) {
          Value a = vector::ExtractOp::create(lb, l, aChunks[i / p.rowChunk],
                                              i % p.rowChunk);
          Value splat = vector::BroadcastOp::create(lb, l, accVector, a);
          for (int64_t j = 0; j < colChunks; ++j)
            next.push_back(vector::FMAOp::create(lb, l, splat, bChunks[j],
                                                 acc[i * colChunks + j]));
        }
        scf::YieldOp::create(lb, l, next);
      });
  loop->setAttr(kKLoopAttr, b.getUnitAttr());

  SmallVector<Value> accs(loop.getResults());
  // Slice 0 holds the sums and goes on alone: the other slices join only
  // split-K's count, the block's bar.red.or.
  std::optional<SplitParticipants> sliceZero;
  if (slices > 1) {
    auto func = matmul->getParentOfType<gpu::GPUFuncOp>();
    sumSlices(b, loc, func, s, slice, thread, accs);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slice,
                                        indexConstant(b, loc, 0));
    auto ifFirst = scf::IfOp::create(b, loc, first, /*withElseRegion=*/true);
    if (s.splitsK()) {
      OpBuilder eb = ifFirst.getElseBodyBuilder();
      joinSplitCount(eb, loc, getSplitCount(eb, loc, s));
    }
    b.setInsertionPoint(ifFirst.thenBlock()->getTerminator());
    sliceZero = SplitParticipants{thread, threads, kSliceBarrier, Value()};
  }
  if (failed(reduceSplits(b, loc, matmul, accs,
                          sliceZero ? &*sliceZero : nullptr)))
    return failure();

  MLIRContext *ctx = b.getContext();
  AffineMap alongColumns = AffineMap::get(2, 0, getAffineDimExpr(1, ctx));
  bool inBounds[] = {true};
  auto rowOf = [&](OpBuilder &sb, int64_t i) {
    return addOffset(sb, loc, p.rowBase,
                     (i / p.rowChunk) * p.rowStride + i % p.rowChunk);
  };
  auto colOf = [&](OpBuilder &sb, int64_t j) {
    return addOffset(sb, loc, p.colBase, j * p.colStride);
  };
  LogicalResult built = buildEpilogue(
      b, loc, matmul, cOperand.memref,
      [&](OpBuilder &sb, const EpilogueValues &e) {
        for (int64_t i = 0; i < tm; ++i) {
          // Where the epilogue reads C (and R), a row's reads go first, in
          // flight together.
          auto readRow = [&](Value matrix) {
            SmallVector<Value> reads(colChunks);
            for (int64_t j = 0; j < colChunks && matrix; ++j) {
              Value row = rowOf(sb, i);
              Value col = colOf(sb, j);
              reads[j] = readAlongRow(
                  sb, loc,
                  cast<VectorType>(accs[i * colChunks + j].getType()), matrix,
                  row, col);
            }
            return reads;
          };
          SmallVector<Value> olds =
              readRow(e.readsC ? cOperand.memref : Value());
          SmallVector<Value> addeds = readRow(e.residual);
          Value row = rowOf(sb, i);
          for (int64_t j = 0; j < colChunks; ++j) {
            Value col = colOf(sb, j);
            Value value = e.apply(sb, loc, accs[i * colChunks + j],
                                  olds[j], addeds[j], cOperand.memref,
                                  [&] { return std::make_pair(row, col); });
            vector::TransferWriteOp::create(sb, loc, value, cOperand.memref,
                                            ValueRange{row, col}, alongColumns,
                                            ArrayRef<bool>(inBounds));
          }
        }
      });
  if (failed(built))
    return failure();
  matmul.erase();
  return success();
}

namespace {
struct GemmRegisterTilePass
    : public mlir::gemm::impl::GemmRegisterTileBase<GemmRegisterTilePass> {
  void runOnOperation() override {
    FailureOr<SmallVector<MatmulOp>> matmuls = collectMatmuls(
        getOperation(), [](MatmulOp op, const gemmc::Schedule &s) {
          bool blockTiled =
              op.getLevel() == Level::Block && s.registerTile && !s.warpTile;
          bool warpTiled = op.getLevel() == Level::Warp && !s.hasMma();
          return warpTiled || blockTiled;
        });
    if (failed(matmuls))
      return signalPassFailure();
    for (MatmulOp matmul : *matmuls)
      if (failed(registerTile(matmul)))
        return signalPassFailure();
  }
};
} // namespace
