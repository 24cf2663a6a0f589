//===- Passes.td - gemm dialect transformation passes ------*- tablegen -*-===//

#ifndef GEMMC_DIALECT_GEMM_TRANSFORMS_PASSES_TD
#define GEMMC_DIALECT_GEMM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def GemmTileBlocks : Pass<"gemm-tile-blocks", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Distribute a gemm.matmul over thread blocks";
  let description = [{
    Applies the `tile` directive: a grid-level `gemm.matmul` becomes a
    block-level `gemm.matmul` on the BM x K slice of A, the K x BN slice of B
    and the BM x BN tile of C that block `(blockIdx.y, blockIdx.x)` owns.
    The kernel gets `gpu.known_block_size`, and the `gemm.launch` attribute
    from which the kernel contract is written (grid x over N, grid y over M).

    Problem sizes must be multiples of the block tile; the pass fails
    otherwise.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def GemmMapThreads : Pass<"gemm-map-threads", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Map a block-level gemm.matmul onto the threads of a block";
  let description = [{
    One thread per element of the block tile of C, each computing a dot
    product over K straight from global memory, accumulating in the
    accumulator type and storing once.

    Without `coalesce`, consecutive threads own consecutive rows of C (the
    naive mapping: a warp's loads of A and stores of a row-major C are
    strided). With `coalesce`, consecutive threads own consecutive elements
    along C's contiguous dimension, so a warp's stores of C and loads of the
    matching operand coalesce and the other operand is broadcast.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // GEMMC_DIALECT_GEMM_TRANSFORMS_PASSES_TD
