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
    With `alpha_beta`, the kernel computes `C = alpha * A * B + beta * C`,
    alpha and beta given at launch (`epilogue = alpha-beta`); `bias` (`row`
    or `col`) adds a vector given at launch, one value per row or column of
    C; `activation` (`relu`, `gelu`, `gelu-tanh` or `silu`) is applied
    next; `residual` then adds R, an M x N matrix given at launch with C's
    type, layout, leading dimension and batch stride; `amax` makes it
    write the largest magnitude of the values it stores (before their cast
    to C's type) to an f32 given at launch; `output_scale` multiplies the
    values stored to an FP8 C by an f32 given at launch just before their
    cast (after the amax takes them). `scales` (`tensor` or `rowwise`) first
    multiplies the product by A's and B's dequantisation scales, given at
    launch: one f32 each, or one per row of A and per column of B. `batch = [count, SA, SB, SC]` makes it a
    batch of `count` GEMMs whose A, B and C lie SA, SB and SC elements apart.
    `groups = G` (the dynamic size for a count given at launch) makes it a
    grouped GEMM: G GEMMs sharing N and K, A's and C's rows split among them
    by offsets given at launch on the device, B one K x N matrix a group;
    with `group_table` its general form (`groups = G ptr-array`): each
    group its own sizes, matrices and leading dimensions, read from a table
    given at launch on the device (gemmc-contract/Contract.h, GroupColumn).

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
    Gemm_ScheduleAttr:$schedule,
    UnitAttr:$alpha_beta,
    OptionalAttr<StrAttr>:$bias,
    OptionalAttr<StrAttr>:$scales,
    OptionalAttr<StrAttr>:$activation,
    UnitAttr:$residual,
    UnitAttr:$amax,
    UnitAttr:$output_scale,
    OptionalAttr<DenseI64ArrayAttr>:$batch,
    OptionalAttr<I64Attr>:$groups,
    UnitAttr:$group_table
  );
  let assemblyFormat = [{
    $sym_name `problem` $problem `schedule` $schedule
    (`alpha_beta` $alpha_beta^)? (`bias` $bias^)?
    (`scales` $scales^)? (`activation` $activation^)?
    (`residual` $residual^)? (`amax` $amax^)?
    (`output_scale` $output_scale^)? (`batch` $batch^)? (`groups` $groups^)?
    (`group_table` $group_table^)? attr-dict
  }];
  let hasVerifier = 1;
}

def Gemm_MatmulOp : Gemm_Op<"matmul"> {
  let summary = "C = A * B on memrefs, to be distributed by the schedule";
  let description = [{
    Computes `C[i, j] = sum_k A[i, k] * B[k, j]`, accumulating in `acc_type`
    and overwriting `C`. The operands are logical views: `A` is M x K, `B` is
    K x N and `C` is M x N whatever their storage order, which their strided
    layouts express. Sizes may be dynamic (given at launch) at the grid
    level; a block's or a warp's tile of C is static, its extent along K
    may be dynamic.

    `level` says which part of the problem the op covers: `grid` is the whole
    problem, `block` is one thread block's tile (after `gemm-tile-blocks`),
    `warp` one warp's tile (after `gemm-warp-tile`).

    The schedule is the kernel's: the `gemm.schedule` attribute of the
    `gpu.func` around the op (lookupSchedule).
  }];
  let arguments = (ins
    AnyMemRef:$a,
    AnyMemRef:$b,
    AnyMemRef:$c,
    TypeAttr:$acc_type,
    Gemm_LevelAttr:$level
  );
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Block-cooperative tile copies (from gemm-promote and gemm-pipeline, lowered
// by gemm-vectorize)
//===----------------------------------------------------------------------===//

def Gemm_CopyOp : Gemm_Op<"copy"> {
  let summary = "all threads of a block copy a tile, global to shared";
  let description = [{
    `target = source`, or `target[j][i] = source[i][j]` with `transpose`.
    Every one of the block's `threads` threads executes it and moves its
    share: the tile is cut into `vector`-element pieces along the source's
    contiguous dimension, and thread `t` moves pieces `t`, `t + threads`, ...
    With `async`, the pieces are `cp.async` copies that complete in the
    thread's current group (`gemm-pipeline` commits and waits for groups).
    `gemm-vectorize` lowers it.
  }];
  let arguments = (ins
    AnyMemRef:$source,
    AnyMemRef:$target,
    UnitAttr:$transpose,
    UnitAttr:$async,
    I64Attr:$threads,
    I64Attr:$vector
  );
  let assemblyFormat = [{
    $source `to` $target attr-dict `:` type($source) `to` type($target)
  }];
  let hasVerifier = 1;
}

def Gemm_LoadTileOp : Gemm_Op<"load_tile"> {
  let summary = "this thread's share of a block-cooperative copy, loaded";
  let description = [{
    The first half of a `gemm.copy`: this thread's pieces of `source`, in
    order, as one vector (`gemm-pipeline` loads the next tile into registers
    while the current one is computed).
  }];
  let arguments = (ins AnyMemRef:$source, I64Attr:$threads, I64Attr:$vector);
  let results = (outs AnyVectorOfNonZeroRank:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `to` type($result)
  }];
  let hasVerifier = 1;
}

def Gemm_StoreTileOp : Gemm_Op<"store_tile"> {
  let summary = "this thread's share of a block-cooperative copy, stored";
  let description = [{
    The second half of a `gemm.copy`: stores what `gemm.load_tile` loaded
    from a tile shaped like `source_shape` into `target` (transposed with
    `transpose`).
  }];
  let arguments = (ins
    AnyVectorOfNonZeroRank:$value,
    AnyMemRef:$target,
    DenseI64ArrayAttr:$source_shape,
    BoolAttr:$source_row_major,
    UnitAttr:$transpose,
    I64Attr:$threads,
    I64Attr:$vector
  );
  let assemblyFormat = [{
    $value `to` $target attr-dict `:` type($value) `to` type($target)
  }];
}

def Gemm_LoadFragmentOp : Gemm_Op<"load_fragment"> {
  let summary = "this lane's mma.sync fragment of a tile of A or B";
  let description = [{
    With `a`: the 16 x 16 tile of `source` at (row, col), rows along M and
    columns along K, as the `vector<4x2xT>` a lane holds for mma.sync
    m16n8k16 (`vector<4x1xf32>` of a 16 x 8 tile for tf32 m16n8k8).
    Without: the 16 x 8 tile at (row, col), rows along K, as the
    `vector<2x2xT>` of B (the 8 x 8 tile as `vector<2x1xf32>` for tf32), or
    for 16-bit types two adjacent B fragments at once: the 16 x 16 tile as
    a `vector<4x2xT>`, rows 0-1 the first fragment.
    `gemm-mma` creates it, `gemm-promote` points it at
    shared memory, and `gemm-vectorize` lowers it to `nvgpu.ldmatrix`.
  }];
  let arguments = (ins AnyMemRef:$source, Index:$row, Index:$col, UnitAttr:$a);
  let results = (outs AnyVectorOfNonZeroRank:$result);
  let assemblyFormat = [{
    $source `[` $row `,` $col `]` attr-dict `:` type($source) `to` type($result)
  }];
}

#endif // GEMMC_DIALECT_GEMM_IR_GEMMOPS_TD
