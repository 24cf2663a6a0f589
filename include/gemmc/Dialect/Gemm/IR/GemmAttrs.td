//===- GemmAttrs.td - gemm dialect attributes --------------*- tablegen -*-===//

#ifndef GEMMC_DIALECT_GEMM_IR_GEMMATTRS_TD
#define GEMMC_DIALECT_GEMM_IR_GEMMATTRS_TD

include "gemmc/Dialect/Gemm/IR/GemmBase.td"

def Gemm_Layout : I32EnumAttr<"Layout", "storage order of a matrix", [
    I32EnumAttrCase<"RowMajor", 0, "row">,
    I32EnumAttrCase<"ColMajor", 1, "col">
  ]> {
  let cppNamespace = "::mlir::gemm";
  let genSpecializedAttr = 0;
}

def Gemm_LayoutAttr : EnumAttr<Gemm_Dialect, Gemm_Layout, "layout">;

def Gemm_Level : I32EnumAttr<"Level", "the part of the problem an op covers", [
    I32EnumAttrCase<"Grid", 0, "grid">,
    I32EnumAttrCase<"Block", 1, "block">,
    I32EnumAttrCase<"Warp", 2, "warp">
  ]> {
  let cppNamespace = "::mlir::gemm";
  let genSpecializedAttr = 0;
}

def Gemm_LevelAttr : EnumAttr<Gemm_Dialect, Gemm_Level, "level">;

def Gemm_Dim : I32EnumAttr<"Dim", "a dimension of the GEMM problem", [
    I32EnumAttrCase<"One", 0, "1">,
    I32EnumAttrCase<"M", 1, "M">,
    I32EnumAttrCase<"N", 2, "N">,
    I32EnumAttrCase<"K", 3, "K">,
    I32EnumAttrCase<"Batch", 4, "B">,
    // The number of multiprocessors: a persistent grid.
    I32EnumAttrCase<"SMs", 5, "SM">,
    // Split-K's splits, chosen at launch (`split-k ?`).
    I32EnumAttrCase<"Splits", 6, "splits">
  ]> {
  let cppNamespace = "::mlir::gemm";
  let genSpecializedAttr = 0;
}

def Gemm_ProblemAttr : Gemm_Attr<"Problem", "problem"> {
  let summary = "the GEMM problem: sizes, element types and layouts";
  let description = [{
    `C[M x N] = A[M x K] * B[K x N]`, with the element type and storage order
    of each matrix and the type the products are accumulated in.

    ```mlir
    #gemm.problem<1024x1024x1024, a = f32 row, b = f32 row, c = f32 row,
                  acc = f32>
    ```

    A size `?` is given at launch; the leading dimensions then are too.
    `math = tf32x3` (f32 inputs on tensor cores) splits each input into a
    tf32 part and a tf32 remainder and sums three products per pair (about
    f32's accuracy); without it, f32 inputs on tensor cores are rounded to
    tf32 once. `math = fast_accumulate` (FP8 inputs) sums the products over
    all of K on the tensor cores; without it, each k tile's sum is added to
    the accumulators in f32. (`math` is exact, tf32x3 or fast_accumulate
    here: plain tf32 follows from f32 inputs on tensor cores.)
  }];
  let parameters = (ins
    "int64_t":$m, "int64_t":$n, "int64_t":$k,
    "::mlir::Type":$aType, "::mlir::gemm::Layout":$aLayout,
    "::mlir::Type":$bType, "::mlir::gemm::Layout":$bLayout,
    "::mlir::Type":$cType, "::mlir::gemm::Layout":$cLayout,
    "::mlir::Type":$accType,
    DefaultValuedParameter<"::gemmc::MathMode", "::gemmc::MathMode::Exact">:$math
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether a size is `?`: given at launch, with the leading dimensions.
    bool isDynamic() const {
      return ::mlir::ShapedType::isDynamic(getM()) ||
             ::mlir::ShapedType::isDynamic(getN()) ||
             ::mlir::ShapedType::isDynamic(getK());
    }
  }];
}

def Gemm_ScheduleParameter
    : AttrParameter<"::gemmc::Schedule", "the schedule model's directives"> {
  let parser = "::mlir::gemm::parseScheduleParameter($_parser)";
  let printer = "::mlir::gemm::printScheduleParameter($_printer, $_self)";
  // The passes hold on to the schedule: a reference into the storage.
  let cppAccessorType = "const ::gemmc::Schedule &";
}

def Gemm_ScheduleAttr : Gemm_Attr<"Schedule", "schedule"> {
  let summary = "how a GEMM is mapped onto the GPU";
  let description = [{
    The schedule directives of a schedule file (docs/dsl.md), after the
    front-end's checks: one `gemmc::Schedule` of the schedule model
    (include/gemmc/Schedule/Schedule.h), which the passes read and ask for
    what follows from it (threads, shared memory, registers). Entries other
    than `tile` are printed only when set.

    - `tile = BMxBNxBK`: each thread block computes a BM x BN tile of C,
      stepping through K by BK.
    - `coalesce`: consecutive threads own consecutive elements along C's
      contiguous dimension.
    - `register_tile = TMxTN`: each thread computes TM x TN elements of C.
    - `warp_tile = WMxWN`: each warp owns a WM x WN tile of C.
    - `promote = [a, b]`, `pad = N`, `transpose_a`, `swizzle`: stage tiles
      in shared memory, rows padded by N elements or XOR-swizzled, A stored
      K-major.
    - `vectorize = [GL, SL, SS, GS]`: elements per global load, shared load,
      shared store and global store.
    - `stages = S`: S shared-memory buffers, the next tile prefetched into
      registers, or with `cp_async` copied by cp.async S - 1 tiles ahead;
      `registers`: double-buffered fragments.
    - `raster = G`: block-index swizzle in groups of G block rows.
    - `unroll = N` or `unroll = full`: unrolling of the inner loop over BK.
    - `mma = 16x8x16`: tensor-core mma.sync of this shape on warp tiles.
    - `split_k = S`: K divided over S blocks (not implemented yet).
    - `split_edges`: guarded tile copies are lowered twice, unguarded for
      tiles inside the matrix and guarded at its edges.

    The verifier checks the schedule model's structural rules
    (gemmc::verifyScheduleStructure); a `gemm.kernel` checks the whole
    schedule against its problem.

    ```mlir
    #gemm.schedule<tile = 128x128x8, register_tile = 8x8,
                   promote = [a, b], transpose_a, vectorize = [4, 4, 4, 4]>
    ```
  }];
  let parameters = (ins Gemm_ScheduleParameter:$value);
  let assemblyFormat = "`<` $value `>`";
  let genVerifyDecl = 1;
}

def Gemm_LaunchAttr : Gemm_Attr<"Launch", "launch"> {
  let summary = "launch configuration chosen by the schedule";
  let description = [{
    Attached by gemmc's passes to the kernel they generate; the kernel
    contract is written from it, and the compiler lowers the kernel with its
    index width. `grid` gives, for x, y and z, the problem dimension whose
    extent is divided (rounded up) by the tile size, or `1`; `shared` the
    bytes of dynamic shared memory (gemm-promote). `index = 64` (printed
    when not 32; gemm-tile-blocks, from the schedule model): the width of
    the kernel's index arithmetic, and of the index fields of its memref
    descriptors. `ld_multiple = [a, b, c]` (printed when not all 1;
    gemm-vectorize): the widest vector access to each of A, B and C, in
    elements, of which the leading dimensions must be multiples.

    ```mlir
    #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 128, 1],
                 shared = 0, index = 64, ld_multiple = [8, 8, 2]>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "threads per block in x, y, z">:$block,
    ArrayRefParameter<"::mlir::gemm::GridDim",
                      "grid extent in x, y, z">:$grid,
    "int64_t":$sharedBytes,
    "unsigned":$indexBitwidth,
    ArrayRefParameter<"int64_t", "leading-dimension multiples of A, B, C">:
      $ldMultiple
  );
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<int64_t>":$block,
                     "::llvm::ArrayRef<::mlir::gemm::GridDim>":$grid,
                     "int64_t":$sharedBytes), [{
      return $_get($_ctxt, block, grid, sharedBytes, 32,
                   ::llvm::ArrayRef<int64_t>{1, 1, 1});
    }]>
  ];
  let extraClassDeclaration = [{
    /// The launch configuration with `sharedBytes` of dynamic shared
    /// memory, `index` bits, or these leading-dimension multiples.
    LaunchAttr withSharedBytes(int64_t bytes) const;
    LaunchAttr withIndexBitwidth(unsigned bits) const;
    LaunchAttr withLdMultiple(::llvm::ArrayRef<int64_t> multiples) const;
  }];
  let hasCustomAssemblyFormat = 1;
}

#endif // GEMMC_DIALECT_GEMM_IR_GEMMATTRS_TD
