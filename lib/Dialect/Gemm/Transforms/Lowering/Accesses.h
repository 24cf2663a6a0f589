//===- Accesses.h - element and vector accesses of gemm-vectorize -*- C++
//-*-===//
//
// The reads and writes the lowerings of gemm-vectorize are made of: a vector
// where the elements are adjacent, one element at a time where not, guarded
// by the matrix bounds where the problem has tails (Accesses.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_ACCESSES_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_ACCESSES_H

#include "Lowering/Bounds.h"
#include "Utils/Utils.h"

namespace mlir::gemm {

/// Whether consecutive elements along dimension `dim` of `type` are
/// adjacent in memory.
bool isContiguousAlong(MemRefType type, unsigned dim);

/// The alignment a vector access of `type` may assume: its size, at most 16.
llvm::MaybeAlign alignmentOf(VectorType type);

/// Whether `memref` is in shared memory.
bool isShared(Value memref);

/// (row, col) of `view` if the `width` elements from there along `dim` lie
/// inside the global matrix it views (`p` is where (row, col) lies in it),
/// else a point inside it: (0, 0) of the view where that is inside, else the
/// matrix's own (0, 0). With the condition.
std::tuple<Value, Value, Value> clampToMatrix(OpBuilder &b, Location loc,
                                              Value view, const MatrixPoint &p,
                                              Value row, Value col,
                                              unsigned dim, int64_t width);

/// How many of the `width` elements from `p` along `dim` lie inside the
/// matrix (0 to `width`) where its extent along `dim` is given at launch, so
/// that a vector may cross its edge; null where the extent is static (a
/// multiple of the width: the front-end checked the leading dimension).
Value elementsInside(OpBuilder &b, Location loc, const MatrixPoint &p,
                     unsigned dim, int64_t width);

/// Reads `width` elements of `source` from (row, col) along `dim`: one
/// vector load where they are adjacent, else one load each. With `guard`,
/// elements of a global matrix past its bounds read as zero (from a valid
/// address).
Value readAlong(OpBuilder &b, Location loc, Value source, Value row, Value col,
                int64_t width, unsigned dim, bool guard = false);

/// Writes `value` into `target` from (row, col) along `dim`, in pieces of at
/// most `maxWidth` elements where they are adjacent, else element by element.
/// With `guard`, pieces past the bounds of a global matrix are not written.
void writeAlong(OpBuilder &b, Location loc, Value value, Value target,
                Value row, Value col, unsigned dim, int64_t maxWidth,
                bool guard = false);

} // namespace mlir::gemm

#endif // GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_ACCESSES_H
