//===- Passes.td - gemmc conversion passes -----------------*- tablegen -*-===//

#ifndef GEMMC_CONVERSION_PASSES_TD
#define GEMMC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertGemmToGPU : Pass<"convert-gemm-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Outline each gemm.kernel into a gpu.func kernel";
  let description = [{
    Replaces every `gemm.kernel @name` with a `gpu.module @name_module`
    holding the kernel `gpu.func @name(%A, %B, %C)`. The arguments are
    statically shaped memrefs in the logical orientation of the problem
    (A is M x K, B is K x N, C is M x N); a column-major matrix gets a strided
    layout. The body is one grid-level `gemm.matmul` that carries the
    schedule, and the function keeps the problem and schedule as
    `gemm.problem` and `gemm.schedule` for the kernel contract. A kernel with
    `alpha_beta` gets two more arguments, alpha and beta (f32), and the
    `gemm.alpha_beta` attribute; one with a `bias` gets it as its last
    argument (an M x 1 or 1 x N memref of C's type) and `gemm.bias`, and
    `activation` becomes `gemm.activation`. With a `batch`, the matrices are
    count x rows x cols memrefs strided by the batch strides, the body's
    `gemm.matmul` takes the GEMM of `blockIdx.z` through rank-reducing
    subviews, and the function keeps the batch as `gemm.batch`. A schedule
    with `tma a b` adds the tensor maps of A and B as the last arguments
    (`!llvm.ptr`: the address of a parameter the runtime passes by value).
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // GEMMC_CONVERSION_PASSES_TD
