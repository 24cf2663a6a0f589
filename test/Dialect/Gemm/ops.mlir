// RUN: gemmc-opt %s | gemmc-opt | FileCheck %s

// CHECK: gemm.kernel @k problem <128x64x32, a = f32 col, b = f32 row, c = bf16 col, acc = f32> schedule <tile = 32x32x1, coalesce>
gemm.kernel @k problem <128x64x32, a = f32 col, b = f32 row, c = bf16 col, acc = f32> schedule <tile = 32x32x1, coalesce>

// CHECK-LABEL: func.func @matmul
// CHECK: gemm.matmul %{{.*}}, %{{.*}}, %{{.*}} {acc_type = f32, level = #gemm<level block>}
func.func @matmul(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) {
  gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
  return
}

// CHECK: gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 64, 1], shared = 4096>
func.func @launch() attributes {gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 64, 1], shared = 4096>} {
  return
}

// The index width and the leading-dimension multiples, printed when not
// the defaults (32 bits, all 1).
// CHECK-LABEL: func.func @launch_recorded
// CHECK: gemm.launch = #gemm.launch<block = [128, 1, 1], grid = [N / 64, M / 64, 1], shared = 0, index = 64, ld_multiple = [8, 8, 2]>
func.func @launch_recorded() attributes {gemm.launch = #gemm.launch<block = [128, 1, 1], grid = [N / 64, M / 64, 1], shared = 0, index = 64, ld_multiple = [8, 8, 2]>} {
  return
}

// CHECK-LABEL: func.func @launch_ld_only
// CHECK: gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 128, 1], shared = 0, ld_multiple = [4, 4, 1]>
func.func @launch_ld_only() attributes {gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 128, 1], shared = 0, ld_multiple = [4, 4, 1]>} {
  return
}
