//===- SplitK.h - the reduction of split-K's partial tiles ------*- C++ -*-===//
//
// With `split-k S`, S blocks compute one tile of C, each over its range of
// K (gemm-tile-blocks; with `split-k ?` S is the grid's z, which the
// launch chooses), and the last of them to finish applies the epilogue
// to the sum of their partial tiles. The stores of C (gemm-map-threads,
// gemm-register-tile, gemm-mma) call reduceSplits between their loop over K
// and their epilogue; gemm-warpgroup calls reducePartials with its
// consumers' accumulators.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_SPLITK_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_SPLITK_H

#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Schedule/Schedule.h"
#include "mlir/IR/Builders.h"

#include <functional>

namespace mlir::gemm {

/// The splits of `schedule`: its count, or the grid's z where the launch
/// chooses them (`split-k ?`).
OpFoldResult getSplitCount(OpBuilder &b, Location loc,
                           const gemmc::Schedule &schedule);

/// The range of K of split blockIdx.z out of `splits` (getSplitCount) of a
/// loop over `k` (static or given at launch) in steps of `bk`. Every split but the last
/// covers the same whole number of BK steps, ceil(K / (splits x BK)) x BK,
/// so that no split reads into the next (the guards of tails stop at the
/// matrix's edge only). A split past K is `empty`: it covers split 0's range
/// instead (loops over K assume one step at least; its views stay inside
/// the matrix, where the guards clamp to) and counts in with zeros. With a
/// static K (a multiple of splits x BK: the rules ask it) and count all is
/// static.
struct SplitRange {
  OpFoldResult start, extent;
  /// Null where no split can be empty.
  Value empty;
};
SplitRange getSplitRange(OpBuilder &b, Location loc, OpFoldResult k,
                         OpFoldResult splits, int64_t bk);

/// The threads that reduce a block's partial tile: `thread` is this one's
/// index among them, and they meet at the whole block's barrier
/// (`barrierId` 0) or at a named barrier of their own (a warp-specialised
/// kernel's consumers). The block learns whether it came last at a
/// bar.red.or of all its threads (NVVM's reductions take barrier 0 only):
/// threads outside the participants join it with joinSplitCount, once per
/// reduction.
struct SplitParticipants {
  Value thread;
  int64_t threads = 0;
  int64_t barrierId = 0;
  /// Where set (an i32 in shared memory, a pointer of address space 3),
  /// the participants learn whether they came last through it, at their
  /// own barrier, and no other thread joins the count (stream-K).
  Value flag;
};

/// Where stream-K's partial tiles lie (`persistent stream-k`): a tile's
/// pieces, one per block that shares it, each where its block put it.
struct PartialSlots {
  /// The blocks that share the tile (index, at least 2).
  Value count;
  /// The first float of this block's partial tile.
  Value mine;
  /// The first float of the partial tile of the tile's piece `piece`
  /// (index values).
  std::function<Value(OpBuilder &, Location, Value piece)> baseOf;
};

/// The reduction under reduceSplits, for a kernel that knows its tile,
/// split and threads, of `splits` splits (getSplitCount): `pieces` (f32 scalars or vectors of one width, the
/// participants' together filling the `tileFloats` of a tile) are this
/// block's partials of linear tile `tile` (the counters' index) for split
/// `split`; `empty` (may be null) says the split covered no K; `inside`
/// (empty, or an i1 per piece) says which pieces hold elements of C: the
/// others are neither stored nor read. Leaves `b` inside the branch of the
/// block that holds the sums (the last, or the only one where the launch
/// chose one split) with `pieces` replaced by them. With `slots`
/// (stream-K) the tile's partials lie there, `slots->count` of them, in
/// place of `splits` slots from tile x splits x floats (`split` unused).
LogicalResult reducePartials(OpBuilder &b, Location loc, Operation *op,
                             OpFoldResult splits, int64_t tileFloats,
                             Value tile,
                             Value split, Value empty,
                             const SplitParticipants &who,
                             SmallVectorImpl<Value> &pieces,
                             ArrayRef<Value> inside = {},
                             const PartialSlots *slots = nullptr);

/// The bar.red.or of reducePartials for a thread that is not one of its
/// participants (a warp-specialised kernel's producer), of `splits` splits.
void joinSplitCount(OpBuilder &b, Location loc, OpFoldResult splits);

/// Split-K's reduction of one thread's accumulators `accs` (f32 scalars or
/// vectors) of `matmul`'s kernel, deterministic: every block stores its
/// partials into the workspace (its tile's slot for its split, each
/// thread's values side by side with the other threads'), fences them and
/// counts itself in at its tile's counter; the block that arrives last sums
/// the S partials in split order (0, 1, ..., S - 1, whichever block came
/// last) and resets the counter to zero. Leaves `b` inside that block's
/// branch with `accs` replaced by the sums, where the caller builds the
/// epilogue. Does nothing without `split-k`. The participants are the
/// block's threads, or `who` (`slice-k`'s slice 0; the others join the
/// count with joinSplitCount).
LogicalResult reduceSplits(OpBuilder &b, Location loc, MatmulOp matmul,
                           SmallVectorImpl<Value> &accs,
                           const SplitParticipants *who = nullptr);

} // namespace mlir::gemm

#endif // GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_SPLITK_H
