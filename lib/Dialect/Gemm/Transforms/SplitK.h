//===- SplitK.h - the reduction of split-K's partial tiles ------*- C++ -*-===//
//
// With `split-k S`, S blocks compute one tile of C, each over its range of
// K (gemm-tile-blocks), and the last of them to finish applies the epilogue
// to the sum of their partial tiles. The stores of C (gemm-map-threads,
// gemm-register-tile, gemm-mma) call reduceSplits between their loop over K
// and their epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_SPLITK_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_SPLITK_H

#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::gemm {

/// The range of K of split blockIdx.z out of `splits` of a loop over `k`
/// (static or given at launch) in steps of `bk`. Every split but the last
/// covers the same whole number of BK steps, ceil(K / (splits x BK)) x BK,
/// so that no split reads into the next (the guards of tails stop at the
/// matrix's edge only). A split past K is `empty`: it covers split 0's range
/// instead (loops over K assume one step at least; its views stay inside
/// the matrix, where the guards clamp to) and counts in with zeros. With a
/// static K (a multiple of splits x BK: the rules ask it) all is static.
struct SplitRange {
  OpFoldResult start, extent;
  /// Null where no split can be empty.
  Value empty;
};
SplitRange getSplitRange(OpBuilder &b, Location loc, OpFoldResult k,
                         int64_t splits, int64_t bk);

/// Split-K's reduction of one thread's accumulators `accs` (f32 scalars or
/// vectors) of `matmul`'s kernel, deterministic: every block stores its
/// partials into the workspace (its tile's slot for its split, each
/// thread's values side by side with the other threads'), fences them and
/// counts itself in at its tile's counter; the block that arrives last sums
/// the S partials in split order (0, 1, ..., S - 1, whichever block came
/// last) and resets the counter to zero. Leaves `b` inside that block's
/// branch with `accs` replaced by the sums, where the caller builds the
/// epilogue. Does nothing without `split-k`.
LogicalResult reduceSplits(OpBuilder &b, Location loc, MatmulOp matmul,
                           SmallVectorImpl<Value> &accs);

} // namespace mlir::gemm

#endif // GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_SPLITK_H
