//===- Passes.td - gemm dialect transformation passes ------*- tablegen -*-===//

#ifndef GEMMC_DIALECT_GEMM_TRANSFORMS_PASSES_TD
#define GEMMC_DIALECT_GEMM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def GemmWarpgroup : Pass<"gemm-warpgroup", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Lower a wgmma schedule to Hopper's warp-specialised kernel";
  let description = [{
    For a kernel whose schedule has `wgmma` (sm_90a), replaces the
    grid-level `gemm.matmul` with the whole kernel of
    `gemmc/Schedule/Warpgroup.h`: the mbarriers and tiles in 1024-byte
    aligned dynamic shared memory; a producer warpgroup (`setmaxnreg.dec`)
    whose first thread waits on each stage's "empty" barrier, arms its
    "full" barrier with the stage's bytes and issues the TMA copies of A and
    B (`cp.async.bulk.tensor` through the tensor-map arguments); consumer
    warpgroups (`setmaxnreg.inc` with two) that wait on "full" with
    `mbarrier.try_wait.parity`, issue `wgmma.mma_async` on shared-memory
    descriptors into f32 accumulators, keep one group in flight and release
    each stage once its wgmma completed; then store C with the epilogue
    (alpha/beta, bias, ReLU): from the accumulators, guarded by the bounds
    where the sizes allow tails, or with `tma ... c` through two swizzled
    shared-memory buffers per consumer that TMA stores (clipped at the
    edges; `fence.proxy.async`, a named barrier per warpgroup, bulk groups).
    With `split-k S` each block covers its split's K tiles (blockIdx.z)
    and the consumers reduce through the workspace (SplitK.h, at a named
    barrier of their own); the tile's last block stores C.
    With `persistent` each block loops over the tiles (blockIdx.x, stepping
    by gridDim.x); `raster G` walks them in groups of G tile rows. With
    `cluster CMxCN` the cluster's blocks walk its tiles together, copy
    slices of the shared A and B tiles multicast to their cluster row and
    column, release stages on their peers' "empty" barriers (`mapa`), and
    meet at the start and the end (`barrier.cluster`). Other kernels are
    left alone.
  }];
  let dependentDialects = [
    "::mlir::math::MathDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GemmGridConstant : Pass<"gemm-grid-constant", "::mlir::LLVM::LLVMFuncOp"> {
  let summary = "Pass a kernel's tensor maps by value as grid constants";
  let description = [{
    Runs after the GPU-to-NVVM conversion (a `gpu.func` cannot declare it):
    marks the tensor-map parameters of a kernel with `tma` (the last ones,
    by the kernel ABI) `llvm.byval = !llvm.array<128 x i8>`, `llvm.align =
    64` and `nvvm.grid_constant`, so that PTX declares them
    `.param .align 64 .b8 name[128]` and the kernel reads the runtime's
    CUtensorMap in parameter space, with no copy.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

def GemmTileBlocks : Pass<"gemm-tile-blocks", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Distribute a gemm.matmul over thread blocks";
  let description = [{
    Applies the `tile` directive: a grid-level `gemm.matmul` becomes a
    block-level `gemm.matmul` on the BM x K slice of A, the K x BN slice of B
    and the BM x BN tile of C that block `(blockIdx.y, blockIdx.x)` owns.
    The kernel gets `gpu.known_block_size`, and the `gemm.launch` attribute
    from which the kernel contract is written (grid x over N, grid y over M).

    Problem sizes need not be multiples of the block tile: the grid rounds
    up, and the kernel gets the `gemm.tails` attribute, which makes the
    passes that lower global accesses guard them by the matrix bounds. A
    batched kernel (`gemm.batch`) runs its GEMMs along z.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def GemmRaster : Pass<"gemm-raster", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Swizzle the block index for L2 reuse";
  let description = [{
    Applies `raster G` to the kernel `gemm-tile-blocks` made: block (x, y)
    computes the tile that the grouped order assigns to its linear index
    y * gridDim.x + x, so that G block rows are walked column by column and
    consecutive blocks share tiles of A and B in L2. Uses of `gpu.block_id`
    are replaced by the swizzled tile column (x) and row (y).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def GemmWarpTile : Pass<"gemm-warp-tile", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Distribute a block-level gemm.matmul over the block's warps";
  let description = [{
    Applies `warp-tile` (without `mma`): warp w of the block (thread id / 32)
    computes the WM x WN tile of C at row (w / (BN / WN)) * WM and column
    (w mod (BN / WN)) * WN of the block tile. The block-level `gemm.matmul`
    becomes a warp-level one on subviews of A, B and C (the views of A and B
    are marked `gemm.warp_view`, so that `gemm-promote` stages the block's
    whole tiles). `gemm-register-tile` then places the 32 lanes.
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

    In a kernel with `gemm.tails`, a thread past the matrix reads row or
    column 0 and stores nothing. Where only one operand is promoted, the
    loop over K runs to K rounded up to BK, and the other operand is read
    with one-element `vector.transfer_read`s, which gemm-vectorize guards
    by the matrix bounds (zero past K).
  }];
  let dependentDialects = [
    "::mlir::math::MathDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GemmRegisterTile : Pass<"gemm-register-tile", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Give each thread a TM x TN tile of C, accumulated in registers";
  let description = [{
    Applies `register-tile` to a warp-level `gemm.matmul` (after
    `gemm-warp-tile`), or to a block-level one without warp tiles (schedules
    with neither go through `gemm-map-threads`). Each thread keeps
    TM x TN accumulators as vectors carried by the loop over K (marked
    `gemm.k_loop`); per step of K it reads TM values of A and TN of B and
    does TM x TN FMAs, then writes its tile of C.

    Thread placement: the 32 lanes of a warp over its WM/TM x WN/TN thread
    tiles (the block's threads over BM/TM x BN/TN without warp tiles). A
    thread's TM rows come in chunks of the
    shared-load width w, chunks `w x (WM/TM)` rows apart (so its TN columns):
    with w = TM the thread tile is contiguous; with w < TM consecutive
    lanes' chunks are adjacent, which keeps a warp's 128-bit shared loads
    free of bank conflicts. Reads and writes are `vector.transfer_read` and
    `vector.transfer_write` of those chunks, lowered by `gemm-vectorize`.

    With `slice-k S` (block-level, no warp tiles) the block's threads are S
    slices of BM/TM x BN/TN: slice s runs the loop over K from s in steps
    of S, slices 1 to S - 1 store their accumulators in a workgroup buffer
    (a strip per slice and accumulator, the slice's threads side by side),
    and after a `gpu.barrier` slice 0 adds them in slice order and alone
    goes on to split-K's reduction (its threads at named barrier 1; the
    other slices join the block's count) and the writes of C. Slices of
    fewer threads than a warp first add a warp's sums up by `gpu.shuffle
    xor` (lane ^ T, ^ 2T, ...); the first slice of each warp but the first
    then stores them, and slice 0 adds them in warp order.
  }];
  let dependentDialects = [
    "::mlir::math::MathDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GemmMma : Pass<"gemm-mma", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Compute a warp's tile with tensor-core mma.sync";
  let description = [{
    Applies `mma m16n8k16` (f16, bf16) or `mma m16n8k8` (f32 inputs in
    tf32) to a warp-level `gemm.matmul` (after `gemm-warp-tile`): the
    WM x WN warp tile is (WM/16) x (WN/8) mma fragments whose f32
    accumulators (`vector<2x2xf32>`) the loop over K (step 16 or 8,
    `gemm.k_loop`) carries; per step each lane loads its A fragments
    (`gemm.load_fragment`, 16 x K) and B fragments (K x 8; 16-bit ones two
    at a time, as one 16 x 16 load, when WN / 8 is even) and issues
    `nvgpu.mma.sync` (f16; tf32 with `tf32Enabled`) or `nvvm.mma.sync`
    (bf16, whose operands nvgpu cannot type). Then each lane writes its two rows of two elements
    per fragment, converted to C's type; in a kernel with `gemm.alpha_beta`,
    under one branch on beta != 0, as alpha * acc + beta * C (C read a row
    of fragments at a time) or alpha * acc.
  }];
  let dependentDialects = [
    "::mlir::math::MathDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GemmPromote : Pass<"gemm-promote", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Stage the tiles of A and B in shared memory";
  let description = [{
    Applies `promote`: the loop over K (`gemm.k_loop`) is strip-mined by BK.
    Per step the block copies the BM x BK tile of A and the BK x BN tile of B
    into shared memory (`gemm.copy`, all threads, coalesced), waits at a
    barrier, computes the BK steps (`gemm.inner_k`) reading fragments from
    shared memory, and waits again. Shared buffers are workgroup attributions
    of the kernel: `stages` x BK x (BM + pad) for A stored transposed
    (`transpose-a`), `stages` x BM x (BK + pad) otherwise, and `stages` x BK x
    (BN + pad) for B. Stage 0 is used; `gemm-pipeline` uses the others.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GemmPipeline : Pass<"gemm-pipeline", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Multi-buffer shared memory, prefetching the next tiles into registers";
  let description = [{
    Applies `pipeline stages S` (S >= 2) to the loop over K tiles that
    `gemm-promote` made: the first tiles are copied before the loop; in step
    t the block loads tile t + 1 into registers (`gemm.load_tile`) while it
    computes on buffer t mod S, stores it into buffer (t + 1) mod S
    (`gemm.store_tile`), and waits at one barrier (maxas-style double
    buffering). The last step reloads tile 0 instead of reading past K, so
    the loop has no branch.

    With `cp-async`, tiles 0 .. S-2 are copied with cp.async before the loop
    (one commit group each); step t waits until tile t has landed
    (`cp.async.wait_group S-2`), meets the block at the barrier, computes on
    stage t mod S, and starts the copy of tile t + S - 1 into the stage step
    t - 1 computed on.

    With `cp-async` and `registers` (mma only), the mma fragments are
    double-buffered too, across tiles: the first fragments of tile 0 are read
    before the loop; step t starts the copy of tile t + S - 1, computes all
    but the last step of the loop over BK with the next step's fragments
    read meanwhile (they travel in the loops' iter_args), waits for tile
    t + 1 and meets the block at the barrier, reads the first fragments of
    tile t + 1, and computes its last step.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GemmVectorize : Pass<"gemm-vectorize", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Lower tile copies and fragment accesses to vector loads and stores";
  let description = [{
    Applies `vectorize`: `gemm.copy`, `gemm.load_tile` and `gemm.store_tile`
    become each thread's loads of `global-load`-wide pieces of the tile and
    stores of `shared-store`-wide pieces (element by element where the
    target runs the other way, as a transposed A does); the
    `vector.transfer_read` and `vector.transfer_write` of fragments and of C
    become `vector.load` and `vector.store` (128-bit for four f32, with their
    alignment) where memory is contiguous along the vector, and scalar
    accesses where it is not. Stores of C are split into `global-store`-wide
    pieces. `gemm.load_fragment` becomes `nvgpu.ldmatrix`. With the
    schedule's `swizzle`, every shared-memory store of a copy and every
    ldmatrix address moves the 16-byte chunk c of row r to chunk c xor f(r)
    (see the DSL reference). In a kernel with `gemm.tails`, every access to
    a global matrix finds its bounds through its views: loads past them read
    zeros from a clamped address, `cp.async` copies past them copy 0 elements
    (zero-fill), and stores past them are skipped (`scf.if`).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def GemmUnroll : Pass<"gemm-unroll", "::mlir::gpu::GPUFuncOp"> {
  let summary = "Unroll the inner loop over BK";
  let description = [{
    Applies `unroll N` or `unroll full` to the loops marked `gemm.inner_k`
    (by `gemm-promote`), with upstream loop unrolling. Where a register
    tile reads global memory itself (no `promote`), `unroll N` unrolls its
    loop over K (`gemm.k_loop`) by N, the steps past a multiple of N in a
    loop of their own, so that the reads of N steps are in flight together.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def GemmFoldAlignedViews
    : Pass<"gemm-fold-aligned-views", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Fold subviews into aligned vector loads and stores";
  let description = [{
    Folds the `memref.subview` a `vector.load` or `vector.store` with an
    alignment goes through into the access, keeping the alignment, which
    upstream's `fold-memref-alias-ops` drops. Kernels whose leading
    dimensions are given at launch need it: LLVM cannot infer the alignment
    of an access at a dynamic stride, and splits it into scalar accesses.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect"
  ];
}

def GemmApproximateMath : Pass<"gemm-approximate-math"> {
  let summary = "Turn the epilogue's erf and tanh into polynomials";
  let description = [{
    The activations of the epilogue (GELU's erf, the tanh of GELU's tanh
    form and of SiLU) are `math` ops; NVPTX has no instruction for them,
    and the GPU-to-NVVM conversion would call libdevice, which gemmc does
    not link. This pass rewrites them with upstream MLIR's polynomial
    approximations (f32, a few ulp;
    `populateMathPolynomialApproximationPatterns`) into `arith` ops,
    `math.fma` and `math.absf`, and those into `llvm.intr.fma` (PTX's
    fma.rn.f32) and the bits with the sign cleared (the conversion would
    call libdevice for them too). A `math.tanh` of f32 marked `afn` (the
    epilogue marks it where C has 16 bits or fewer) becomes
    `llvm.intr.tanh` with `afn` instead, which NVPTX selects as
    `tanh.approx.f32` (relative error at most 2^-11).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // GEMMC_DIALECT_GEMM_TRANSFORMS_PASSES_TD
