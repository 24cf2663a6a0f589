//===- MmaLayout.h - which lane holds what of an mma.sync fragment -*- C++
//-*-===//
//
// One module for the fragment layouts of mma.sync m16n8k16 (f16, bf16) and
// m16n8k8 (tf32), shared by gemm-mma (which creates the fragments and
// stores the accumulators) and gemm-vectorize (which reads the fragments
// from shared memory, Fragments.cpp). PTX ISA, "Matrix Fragments for
// mma.m16n8k16 / mma.m16n8k8".
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_MMALAYOUT_H
#define GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_MMALAYOUT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::gemm {

/// Elements of `element` per 32-bit register: 2 for f16 and bf16, 1 for
/// f32 (tf32).
int64_t getMmaElementsPerWord(Type element);

/// The K of the mma shape for `element`: 16, or 8 for tf32.
int64_t getMmaK(Type element);

/// A lane's accumulators of a 16 x 8 tile of C: 2 x 2 f32, rows l / 4 and
/// l / 4 + 8, columns 2 (l mod 4) + {0, 1} (getAccumulatorLanes).
VectorType getMmaAccumulatorType(MLIRContext *ctx);

/// A lane's fragment of a 16 x K tile of A: 4 registers of elements.
VectorType getMmaAType(Type element);

/// A lane's `fragments` adjacent fragments of K x 8 tiles of B: 2 registers
/// each.
VectorType getMmaBType(Type element, int64_t fragments = 1);

/// The lane of the current thread in its warp: thread id mod 32.
Value getLaneId(OpBuilder &b, Location loc);

/// Where lane `lane`'s accumulators lie in a 16 x 8 tile of C: row l / 4
/// (and l / 4 + 8), column 2 (l mod 4) (and the next).
struct AccumulatorLanes {
  Value row, col;
};
AccumulatorLanes getAccumulatorLanes(OpBuilder &b, Location loc, Value lane);

/// ldmatrix: the row of a tile at `row` that lane `lane` addresses (lanes
/// 0-15 rows 0-15, and again for 16-31).
Value getLdmatrixRow(OpBuilder &b, Location loc, Value lane, Value row);

/// ldmatrix.x4 of a 16 x 16 tile at `col`: lanes 16-31 address its right
/// half, 16 bytes (of `bits`-bit elements) further along the row.
Value getLdmatrixColumn(OpBuilder &b, Location loc, Value lane, Value col,
                        int64_t bits);

/// tf32's B fragment of the 8 x 8 tile at (row, col): lane l holds
/// (row + l mod 4, col + l / 4) and the element 4 rows below (ldmatrix
/// transposes only 16-bit elements, so these are two 32-bit loads).
std::pair<Value, Value> getTf32BLane(OpBuilder &b, Location loc, Value lane,
                                     Value row, Value col);

} // namespace mlir::gemm

#endif // GEMMC_LIB_DIALECT_GEMM_TRANSFORMS_MMALAYOUT_H
