//===- Transforms.h - entry points of the gemm transformations --*- C++ -*-===//
//
// The pieces of gemmc's passes that other code may call on their own, as
// upstream's NVGPU declares its transformations: each is one focused unit
// of lib/Dialect/Gemm/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_DIALECT_GEMM_TRANSFORMS_TRANSFORMS_H
#define GEMMC_DIALECT_GEMM_TRANSFORMS_TRANSFORMS_H

#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::gemm {

//===----------------------------------------------------------------------===//
// gemm-vectorize's lowerings
//===----------------------------------------------------------------------===//

/// How block-cooperative copies are lowered: pieces stored into shared
/// memory `storeWidth` elements at a time, swizzled (`promote ... swizzle`),
/// guarded by the matrix bounds (a problem with tails), and with
/// `splitEdges` lowered twice, unguarded for tiles inside the matrix.
struct TileCopyLowering {
  int64_t storeWidth = 1;
  bool swizzle = false;
  bool guard = false;
  bool splitEdges = false;
};

/// gemm.copy as each thread's pieces: vector loads and stores, or cp.async
/// (TileCopies.cpp).
void lowerCopy(CopyOp copy, const TileCopyLowering &options);
/// gemm.load_tile as each thread's pieces, loaded into one vector.
void lowerLoadTile(LoadTileOp load, const TileCopyLowering &options);
/// gemm.store_tile: the loaded pieces stored into shared memory.
void lowerStoreTile(StoreTileOp store, int64_t storeWidth, bool swizzle);

/// gemm.load_fragment as ldmatrix, or two 32-bit loads for tf32's B
/// (Fragments.cpp). Fails where the fragment is not in shared memory.
LogicalResult lowerLoadFragment(LoadFragmentOp fragment, bool swizzle);

/// A 1-D vector transfer of a 2-D tile as vector (or element) loads and
/// stores, guarded by the matrix bounds with `guard` (Transfers.cpp).
LogicalResult lowerTransferRead(vector::TransferReadOp read, bool guard);
LogicalResult lowerTransferWrite(vector::TransferWriteOp write,
                                 int64_t storeWidth, bool guard);

/// `promote ... swizzle`: the column that (row, col) of a shared tile of
/// `type` moves to (Swizzle.cpp).
Value swizzleColumn(OpBuilder &b, Location loc, MemRefType type, Value row,
                    Value col);

/// Records in `kernel`'s launch attribute the widest vector access (or
/// cp.async copy) to each of A, B and C, in elements: their leading
/// dimensions must be multiples of it. Run by gemm-vectorize after it has
/// made the accesses (LeadingDimensions.cpp).
void recordLeadingDimensionMultiples(gpu::GPUFuncOp kernel);

} // namespace mlir::gemm

#endif // GEMMC_DIALECT_GEMM_TRANSFORMS_TRANSFORMS_H
