// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(llvm.func(gemm-grid-constant)))' | FileCheck %s

// The lowered kernel of a schedule with `tma`: its last two parameters (the
// tensor maps of A and B, by the kernel ABI) become 128-byte grid constants
// passed by value; the others are left alone.
gpu.module @m {
  // CHECK-LABEL: llvm.func @maps
  // CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr,
  // CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
  // CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
  llvm.func @maps(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr, %ta: !llvm.ptr, %tb: !llvm.ptr) attributes {nvvm.kernel, gemm.schedule = #gemm.schedule<tile = 128x256x64, wgmma = 64x256x16, tma = [a, b], warp_specialize = 2>} {
    llvm.return
  }
  // Without tma nothing changes.
  // CHECK-LABEL: llvm.func @plain
  // CHECK-NOT: grid_constant
  llvm.func @plain(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr) attributes {gemm.schedule = #gemm.schedule<tile = 32x32x1>} {
    llvm.return
  }
}
