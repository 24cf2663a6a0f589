//===- SplitK.cpp - the reduction of split-K's partial tiles --------------===//
//
// The workspace holds, per tile of C (blockIdx.y * gridDim.x + blockIdx.x),
// S partial tiles of BM x BN f32, one per split; in a partial tile each
// accumulator of the threads lies contiguously, thread after thread, so
// that a warp's stores and loads are whole lines. The counters hold one i32
// per tile.
//
//===----------------------------------------------------------------------===//

#include "Lowering/SplitK.h"
#include "Lowering/Accesses.h"
#include "Lowering/Bounds.h"
#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::gemm;

/// The pieces an accumulator is stored in: the rows of a 2-D fragment, or
/// the accumulator itself (a 1-D vector or a scalar). (Rows, not one
/// flattened vector: the canonicalizer folds a flattening into a 2-D
/// vector.shape_cast, which does not lower to LLVM.)
static void appendPieces(OpBuilder &b, Location loc, Value acc,
                         SmallVectorImpl<Value> &pieces) {
  auto type = dyn_cast<VectorType>(acc.getType());
  if (!type || type.getRank() == 1) {
    pieces.push_back(acc);
    return;
  }
  for (int64_t r = 0; r < type.getDimSize(0); ++r)
    pieces.push_back(vector::ExtractOp::create(b, loc, acc, r));
}

/// The accumulator of `type` whose pieces start at `pieces[next]`.
static Value assemble(OpBuilder &b, Location loc, Type type,
                      ArrayRef<Value> pieces, size_t &next) {
  auto vectorType = dyn_cast<VectorType>(type);
  if (!vectorType || vectorType.getRank() == 1)
    return pieces[next++];
  Value result = arith::ConstantOp::create(
      b, loc, vectorType, cast<TypedAttr>(b.getZeroAttr(vectorType)));
  for (int64_t r = 0; r < vectorType.getDimSize(0); ++r)
    result = vector::InsertOp::create(b, loc, pieces[next++], result, r);
  return result;
}

static int64_t widthOf(Value piece) {
  auto type = dyn_cast<VectorType>(piece.getType());
  return type ? type.getNumElements() : 1;
}

static void storeAt(OpBuilder &b, Location loc, Value value, Value memref,
                    Value index) {
  if (auto type = dyn_cast<VectorType>(value.getType())) {
    vector::StoreOp::create(b, loc, value, memref, ValueRange{index},
                            /*nontemporal=*/false, alignmentOf(type));
    return;
  }
  memref::StoreOp::create(b, loc, value, memref, index);
}

static Value loadAt(OpBuilder &b, Location loc, Type type, Value memref,
                    Value index) {
  if (auto vectorType = dyn_cast<VectorType>(type))
    return vector::LoadOp::create(b, loc, vectorType, memref, ValueRange{index},
                                  /*nontemporal=*/false,
                                  alignmentOf(vectorType));
  return memref::LoadOp::create(b, loc, memref, index);
}

OpFoldResult mlir::gemm::getSplitCount(OpBuilder &b, Location loc,
                                       const gemmc::Schedule &schedule) {
  if (!schedule.splitsAtLaunch())
    return b.getIndexAttr(schedule.splits());
  return gpu::GridDimOp::create(b, loc, gpu::Dimension::z).getResult();
}

SplitRange mlir::gemm::getSplitRange(OpBuilder &b, Location loc, OpFoldResult k,
                                     OpFoldResult splits, int64_t bk) {
  Value z = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  std::optional<int64_t> knownK = getConstantIntValue(k);
  std::optional<int64_t> knownSplits = getConstantIntValue(splits);
  if (knownK && knownSplits) {
    int64_t chunk = *knownK / *knownSplits;
    Value start =
        arith::MulIOp::create(b, loc, z, indexConstant(b, loc, chunk));
    return {start, b.getIndexAttr(chunk), Value()};
  }
  Value kValue = getValueOrCreateConstantIndexOp(b, loc, k);
  Value count = getValueOrCreateConstantIndexOp(b, loc, splits);
  Value stride =
      arith::MulIOp::create(b, loc, count, indexConstant(b, loc, bk));
  Value steps = arith::CeilDivUIOp::create(b, loc, kValue, stride);
  Value chunk = arith::MulIOp::create(b, loc, steps, indexConstant(b, loc, bk));
  Value start = arith::MulIOp::create(b, loc, z, chunk);
  Value empty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, start, kValue);
  Value zero = indexConstant(b, loc, 0);
  Value from = arith::SelectOp::create(b, loc, empty, zero, start);
  Value left = arith::SubIOp::create(b, loc, kValue, from);
  Value extent = arith::MinUIOp::create(b, loc, left, chunk);
  return {from, extent, empty};
}

/// The participants meet: at the whole block's barrier, or at their
/// named one.
static void participantsBarrier(OpBuilder &b, Location loc,
                                const SplitParticipants &who) {
  if (!who.barrierId) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  Value id = arith::ConstantIntOp::create(b, loc, who.barrierId, 32);
  Value count = arith::ConstantIntOp::create(b, loc, who.threads, 32);
  NVVM::BarrierOp::create(b, loc, Type(), id, count, {}, Value());
}

/// bar.red.or over the whole block (NVVM's reductions take barrier 0
/// only): whether `predicate` (i32) holds in any thread.
static Value blockOr(OpBuilder &b, Location loc, Value predicate) {
  auto reduction = NVVM::BarrierReductionAttr::get(b.getContext(),
                                                   NVVM::BarrierReduction::OR);
  return NVVM::BarrierOp::create(b, loc, b.getI32Type(), Value(), Value(),
                                 reduction, predicate)
      .getResult(0);
}

/// Whether a launch of `splits` (chosen at launch) has more than one split:
/// null where the count is a constant. A launch of one split skips the
/// workspace, the count and the sum: its blocks hold their tiles' sums.
static Value severalSplits(OpBuilder &b, Location loc, OpFoldResult splits) {
  if (getConstantIntValue(splits))
    return Value();
  Value count = getValueOrCreateConstantIndexOp(b, loc, splits);
  Value one = indexConstant(b, loc, 1);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, count, one);
}

/// Builds `body` (returning values of `types`) with `b` where `several`
/// holds, else `otherwise` (the same types); builds `body` unguarded where
/// `several` is null. Returns the values, and leaves `b` after them.
static SmallVector<Value>
ifSeveral(OpBuilder &b, Location loc, Value several, TypeRange types,
          function_ref<SmallVector<Value>()> body,
          function_ref<SmallVector<Value>()> otherwise) {
  if (!several)
    return body();
  auto branch = scf::IfOp::create(b, loc, types, several,
                                  /*withElseRegion=*/!types.empty());
  OpBuilder::InsertionGuard guard(b);
  if (types.empty()) {
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    body();
    return {};
  }
  b.setInsertionPointToStart(branch.thenBlock());
  SmallVector<Value> values = body();
  scf::YieldOp::create(b, loc, values);
  b.setInsertionPointToStart(branch.elseBlock());
  values = otherwise();
  scf::YieldOp::create(b, loc, values);
  return SmallVector<Value>(branch.getResults());
}

/// For the builds of ifSeveral without results.
static SmallVector<Value> nothing() { return {}; }

void mlir::gemm::joinSplitCount(OpBuilder &b, Location loc,
                                OpFoldResult splits) {
  Value several = severalSplits(b, loc, splits);
  ifSeveral(
      b, loc, several, TypeRange(),
      [&] {
        Value no = arith::ConstantIntOp::create(b, loc, 0, 32);
        blockOr(b, loc, no);
        return nothing();
      },
      nothing);
}

/// Counts the block in at its tile's counter, its partials stored: returns
/// (i1) whether it came last, after every split's partials are fenced.
/// One thread fences for the participants, as a grid's synchronisation
/// does: their barrier orders their stores before its fence (the fence is
/// cumulative), and its fence after the count orders the others' partials
/// before the barrier that tells them the count. (Each thread fencing its
/// own stores, then each thread of the last block, spent 9% of a
/// transposed 128 x 96 tile's stalls at 2 splits in the fences.)
static Value countIn(OpBuilder &b, Location loc, Value counters, Value tile,
                     OpFoldResult splits, const SplitParticipants &who) {
  std::optional<int64_t> knownSplits = getConstantIntValue(splits);
  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  participantsBarrier(b, loc, who);

  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, who.thread, c(0));
  auto count = scf::IfOp::create(b, loc, TypeRange{b.getI32Type()}, first,
                                 /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(count.thenBlock());
    // Release: the participants' partials reach the GPU's scope before the
    // block counts itself in.
    NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
    Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
    Value before = memref::AtomicRMWOp::create(
        b, loc, arith::AtomicRMWKind::addi, one, counters, ValueRange{tile});
    Value lastCount;
    if (knownSplits) {
      lastCount = arith::ConstantIntOp::create(b, loc, *knownSplits - 1, 32);
    } else {
      Value count = getValueOrCreateConstantIndexOp(b, loc, splits);
      Value count32 =
          arith::IndexCastUIOp::create(b, loc, b.getI32Type(), count);
      Value one32 = arith::ConstantIntOp::create(b, loc, 1, 32);
      lastCount = arith::SubIOp::create(b, loc, count32, one32);
    }
    Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         before, lastCount);
    // Every split of the tile has counted in: ready for the next launch.
    auto reset = scf::IfOp::create(b, loc, isLast, /*withElseRegion=*/false);
    b.setInsertionPointToStart(reset.thenBlock());
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
    memref::StoreOp::create(b, loc, zero, counters, ValueRange{tile});
    // Acquire: the other blocks' partials, fenced before their count,
    // before this block's threads learn it came last.
    NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
    b.setInsertionPointAfter(reset);
    Value flag = arith::ExtUIOp::create(b, loc, b.getI32Type(), isLast);
    scf::YieldOp::create(b, loc, flag);
    b.setInsertionPointToStart(count.elseBlock());
    Value notLast = arith::ConstantIntOp::create(b, loc, 0, 32);
    scf::YieldOp::create(b, loc, notLast);
  }
  Value anyLast;
  if (who.flag) {
    // Through the flag: the first participant writes it, all read it once
    // they met. (Its next write follows their next meeting, which each
    // reaches after reading this one.)
    auto ifFirst = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifFirst.thenBlock());
      LLVM::StoreOp::create(b, loc, count.getResult(0), who.flag);
    }
    participantsBarrier(b, loc, who);
    anyLast = LLVM::LoadOp::create(b, loc, b.getI32Type(), who.flag);
  } else {
    // bar.red.or: the block learns whether the first participant counted
    // it in last.
    anyLast = blockOr(b, loc, count.getResult(0));
  }
  Value zero32 = arith::ConstantIntOp::create(b, loc, 0, 32);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, anyLast,
                               zero32);
}

LogicalResult mlir::gemm::reducePartials(OpBuilder &b, Location loc,
                                         Operation *op, OpFoldResult splits,
                                         int64_t tileFloats, Value tile,
                                         Value split, Value empty,
                                         const SplitParticipants &who,
                                         SmallVectorImpl<Value> &pieces,
                                         ArrayRef<Value> inside,
                                         const PartialSlots *slots) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  Value workspace = getKernelArgument(func, KernelArg::Workspace);
  Value counters = getKernelArgument(func, KernelArg::Counters);
  if (!workspace || !counters)
    return func.emitOpError("lacks the split-k workspace and counters of the "
                            "kernel ABI");
  if (pieces.empty())
    return op->emitOpError("split-k has no accumulators to reduce");
  if (!inside.empty() && inside.size() != pieces.size())
    return op->emitOpError("split-k needs one bound per accumulator");
  int64_t width = widthOf(pieces.front());
  if (llvm::any_of(pieces, [&](Value p) { return widthOf(p) != width; }))
    return op->emitOpError("split-k needs accumulators of one width");
  int64_t perThread = width * int64_t(pieces.size());
  if (perThread * who.threads != tileFloats)
    return op->emitOpError("the threads' ")
           << perThread * who.threads
           << " accumulators do not fill the tile of " << tileFloats
           << " floats that split-k reduces";

  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  // The tile's partials: `splits` of them, from tile x splits x floats.
  Value tileBase;
  std::optional<int64_t> knownSplits = getConstantIntValue(splits);
  if (slots) {
    tileBase = slots->baseOf(b, loc, c(0));
  } else if (knownSplits) {
    tileBase =
        arith::MulIOp::create(b, loc, tile, c(*knownSplits * tileFloats));
  } else {
    Value count = getValueOrCreateConstantIndexOp(b, loc, splits);
    Value perTile = arith::MulIOp::create(b, loc, count, c(tileFloats));
    tileBase = arith::MulIOp::create(b, loc, tile, perTile);
  }
  Value threadOffset = arith::MulIOp::create(b, loc, who.thread, c(width));
  // Where accumulator `i` of this thread lies in the partial tile at `base`.
  auto slot = [&](OpBuilder &ib, Value base, int64_t i) {
    Value strip = addOffset(ib, loc, base, i * width * who.threads);
    return arith::AddIOp::create(ib, loc, strip, threadOffset).getResult();
  };

  // A split past K counts in with zeros.
  if (empty) {
    for (Value &piece : pieces) {
      Type type = piece.getType();
      Value zero = arith::ConstantOp::create(
          b, loc, type, cast<TypedAttr>(b.getZeroAttr(type)));
      piece = arith::SelectOp::create(b, loc, empty, zero, piece);
    }
  }
  // Pieces outside C are neither stored nor read (zeros): a tile that
  // overhangs a small C moves only what lies inside.
  auto store = [&](size_t i, Value at) {
    if (inside.empty()) {
      storeAt(b, loc, pieces[i], workspace, at);
      return;
    }
    auto ifInside = scf::IfOp::create(b, loc, inside[i],
                                      /*withElseRegion=*/false);
    OpBuilder tb = ifInside.getThenBodyBuilder();
    storeAt(tb, loc, pieces[i], workspace, at);
  };
  // The sum loads every piece, without a branch (a load under one waits
  // for the one before): a piece outside C from the first slot of its
  // partial tile instead (in the workspace, and cached for the warp), its
  // sum set to zero at the end.
  auto load = [&](OpBuilder &lb, size_t i, Type type, Value partial,
                  Value at) -> Value {
    if (!inside.empty())
      at = arith::SelectOp::create(lb, loc, inside[i], at, partial);
    return loadAt(lb, loc, type, workspace, at);
  };
  Value mine = slots ? slots->mine : Value();
  if (!mine) {
    Value splitOffset = arith::MulIOp::create(b, loc, split, c(tileFloats));
    mine = arith::AddIOp::create(b, loc, tileBase, splitOffset);
  }
  for (size_t i = 0; i < pieces.size(); ++i)
    store(i, slot(b, mine, int64_t(i)));
  // Launched with one split (the count chosen at launch), a block holds
  // its tile's sums: it skips the fences, the count and the adds, and
  // reloads the partials it stored itself (a thread its own: no barrier).
  // (Its accumulators carried past the count to the epilogue instead, in
  // registers, ptxas spilled them beside the other blocks' sums.) A
  // stream-K tile's blocks are always several: its caller stores a tile of
  // one block directly.
  Value several = slots ? Value() : severalSplits(b, loc, splits);
  OpFoldResult count = slots ? OpFoldResult(slots->count) : splits;
  Value last = ifSeveral(
      b, loc, several, b.getI1Type(),
      [&] {
        return SmallVector<Value>{countIn(b, loc, counters, tile, count, who)};
      },
      [&] {
        Value whole = arith::ConstantIntOp::create(b, loc, 1, 1);
        return SmallVector<Value>{whole};
      })[0];
  auto ifLast = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifLast.thenBlock());
  // Split 0's partials, then the others' added in split order. The count
  // from the grid, whose z is the splits (the contract's grid), rather
  // than a constant: LLVM then keeps the sum a loop. Unrolled for a few
  // splits, it loaded every split's partials at once beside the
  // accumulators, and ptxas spilled (the schedule fuzzer's findings).
  //
  // A loop sums a group of the pieces, `ahead` splits' partials loaded
  // before it adds them, in split order (a split past the last loads the
  // last's, and adds nothing): one split at a time, each load behind a
  // branch, a block spent 0.36 us a split on a 64 x 64 tile (H100), a
  // round trip to L2 each. Beside the sums, at most 64 floats a thread in
  // flight (16 where the sums take 128 registers), up to 16 splits ahead
  // as the group's own floats allow (a GEMV's thread of 4 sums went 2
  // splits ahead, as a full group would: 32 trips to L2 for 64 splits).
  Value upper = slots ? slots->count
                      : gpu::GridDimOp::create(b, loc, gpu::Dimension::z)
                            .getResult();
  Value lastSplit = arith::SubIOp::create(b, loc, upper, c(1));
  int64_t inFlight = std::clamp<int64_t>(128 - perThread, 16, 64);
  size_t groupPieces =
      size_t(std::max<int64_t>(1, std::min<int64_t>(32, inFlight) / width));
  for (size_t first = 0; first < pieces.size(); first += groupPieces) {
    size_t end = std::min(pieces.size(), first + groupPieces);
    int64_t groupFloats = int64_t(end - first) * width;
    int64_t ahead = std::clamp<int64_t>(inFlight / groupFloats, 1, 16);
    SmallVector<Value> inits;
    for (size_t i = first; i < end; ++i)
      inits.push_back(load(b, i, pieces[i].getType(), tileBase,
                           slot(b, tileBase, int64_t(i))));
    auto sum = scf::ForOp::create(
        b, loc, c(1), upper, c(ahead), inits,
        [&](OpBuilder &lb, Location l, Value index, ValueRange partial) {
          Value floats = indexConstant(lb, l, tileFloats);
          SmallVector<SmallVector<Value>> loaded(static_cast<size_t>(ahead));
          SmallVector<Value> valid(static_cast<size_t>(ahead));
          for (int64_t j = 0; j < ahead; ++j) {
            Value at = addOffset(lb, l, index, j);
            Value from = arith::MinUIOp::create(lb, l, at, lastSplit);
            if (j)
              valid[size_t(j)] = arith::CmpIOp::create(
                  lb, l, arith::CmpIPredicate::ult, at, upper);
            Value base;
            if (slots) {
              base = slots->baseOf(lb, l, from);
            } else {
              Value offset = arith::MulIOp::create(lb, l, from, floats);
              base = arith::AddIOp::create(lb, l, tileBase, offset);
            }
            for (size_t i = first; i < end; ++i)
              loaded[size_t(j)].push_back(
                  load(lb, i, pieces[i].getType(), base, slot(lb, base, i)));
          }
          SmallVector<Value> next(partial.begin(), partial.end());
          for (int64_t j = 0; j < ahead; ++j)
            for (size_t i = 0; i < next.size(); ++i) {
              Value added =
                  arith::AddFOp::create(lb, l, next[i], loaded[size_t(j)][i]);
              next[i] = j ? arith::SelectOp::create(lb, l, valid[size_t(j)],
                                                    added, next[i])
                                .getResult()
                          : added;
            }
          scf::YieldOp::create(lb, l, next);
        });
    for (size_t i = first; i < end; ++i)
      pieces[i] = sum.getResult(unsigned(i - first));
  }
  // Pieces outside C summed what their loads found: zeros instead.
  for (size_t i = 0; i < inside.size(); ++i) {
    Type type = pieces[i].getType();
    Value zero = arith::ConstantOp::create(
        b, loc, type, cast<TypedAttr>(b.getZeroAttr(type)));
    pieces[i] = arith::SelectOp::create(b, loc, inside[i], pieces[i], zero);
  }
  return success();
}

LogicalResult mlir::gemm::reduceSplits(OpBuilder &b, Location loc,
                                       MatmulOp matmul,
                                       SmallVectorImpl<Value> &accs,
                                       const SplitParticipants *who) {
  const gemmc::Schedule &s = getKernelSchedule(matmul);
  if (!s.splitsK())
    return success();
  // The threads' accumulators fill a partial tile exactly, and in strips of
  // one width the vectors stay aligned.
  for (Value acc : accs) {
    auto vectorType = dyn_cast<VectorType>(acc.getType());
    if (!getElementTypeOrSelf(acc.getType()).isF32() ||
        (vectorType && vectorType.getRank() > 2))
      return matmul.emitOpError("split-k reduces f32 accumulators of rank 2 "
                                "at most");
  }
  SmallVector<Value> pieces;
  for (Value acc : accs)
    appendPieces(b, loc, acc, pieces);
  // Tile y * gridDim.x + x of C; split blockIdx.z.
  Value blockX = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value blockY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value split = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  Value gridX = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value rowStart = arith::MulIOp::create(b, loc, blockY, gridX);
  Value tile = arith::AddIOp::create(b, loc, rowStart, blockX);
  // A split past K computed split 0's range: it counts in with zeros.
  if (!viewsMatrix(matmul.getA()))
    return matmul.emitOpError("split-k cannot find the extent of K");
  Value zeroIndex = indexConstant(b, loc, 0);
  MatrixPoint origin =
      pointInMatrix(b, loc, matmul.getA(), zeroIndex, zeroIndex);
  OpFoldResult splits = getSplitCount(b, loc, s);
  Value empty = getSplitRange(b, loc, origin.cols, splits, s.bk()).empty;
  SplitParticipants block;
  if (!who) {
    block.thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    block.threads = s.threadsPerBlock();
    who = &block;
  }
  if (failed(reducePartials(b, loc, matmul, splits, s.bm() * s.bn(), tile,
                            split, empty, *who, pieces)))
    return failure();
  size_t next = 0;
  for (Value &acc : accs)
    acc = assemble(b, loc, acc.getType(), pieces, next);
  return success();
}
