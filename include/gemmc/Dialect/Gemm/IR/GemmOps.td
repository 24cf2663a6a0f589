//===- GemmOps.td - gemm dialect operations ----------------*- tablegen -*-===//

#ifndef GEMMC_DIALECT_GEMM_IR_GEMMOPS_TD
#define GEMMC_DIALECT_GEMM_IR_GEMMOPS_TD

include "gemmc/Dialect/Gemm/IR/GemmAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"

def Gemm_KernelOp : Gemm_Op<"kernel", [Symbol]> {
  let summary = "one scheduled GEMM kernel";
  let description = [{
    The whole content of a schedule file: the kernel's name, the GEMM problem
    and its schedule. `convert-gemm-to-gpu` turns it into a `gpu.func`.

    ```mlir
    gemm.kernel @sgemm_naive
        problem <1024x1024x1024, a = f32 row, b = f32 row, c = f32 row,
                 acc = f32>
        schedule <tile = 32x32x1>
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    Gemm_ProblemAttr:$problem,
    Gemm_ScheduleAttr:$schedule
  );
  let assemblyFormat = [{
    $sym_name `problem` $problem `schedule` $schedule attr-dict
  }];
  let hasVerifier = 1;
}

def Gemm_MatmulOp : Gemm_Op<"matmul"> {
  let summary = "C = A * B on memrefs, to be distributed by the schedule";
  let description = [{
    Computes `C[i, j] = sum_k A[i, k] * B[k, j]`, accumulating in `acc_type`
    and overwriting `C`. The operands are logical views: `A` is M x K, `B` is
    K x N and `C` is M x N whatever their storage order, which their strided
    layouts express.

    `level` says which part of the problem the op covers: `grid` is the whole
    problem, `block` is one thread block's tile (after `gemm-tile-blocks`).
  }];
  let arguments = (ins
    AnyStaticShapeMemRef:$a,
    AnyStaticShapeMemRef:$b,
    AnyStaticShapeMemRef:$c,
    TypeAttr:$acc_type,
    Gemm_ScheduleAttr:$schedule,
    Gemm_LevelAttr:$level
  );
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
}

#endif // GEMMC_DIALECT_GEMM_IR_GEMMOPS_TD
