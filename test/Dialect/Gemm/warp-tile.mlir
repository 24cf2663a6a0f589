// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-warp-tile)))' | FileCheck %s

// Eight warps over a 128x128 block tile of 64x32 warp tiles (2 x 4): warp w
// owns rows (w / 4) * 64 and columns (w mod 4) * 32.
// CHECK-LABEL: gpu.func @warps
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: %[[WR:.*]] = arith.divui %[[WARP]], %c4
// CHECK: %[[ROW:.*]] = arith.muli %[[WR]], %c64
// CHECK: %[[WC:.*]] = arith.remui %[[WARP]], %c4
// CHECK: %[[COL:.*]] = arith.muli %[[WC]], %c32
// CHECK: %[[A:.*]] = memref.subview %arg0[%[[ROW]], %c0] [64, 16] [1, 1] {gemm.warp_view}
// CHECK: %[[B:.*]] = memref.subview %arg1[%c0, %[[COL]]] [16, 32] [1, 1] {gemm.warp_view}
// CHECK: %[[C:.*]] = memref.subview %arg2[%[[ROW]], %[[COL]]] [64, 32] [1, 1]
// CHECK: gemm.matmul %[[A]], %[[B]], %[[C]] {{{.*}}level = #gemm<level warp>
gpu.module @m {
  gpu.func @warps(%a: memref<128x16xf32>, %b: memref<16x128xf32>, %c: memref<128x128xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 128x128x16, register_tile = 8x8, warp_tile = 64x32>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<128x16xf32>, memref<16x128xf32>, memref<128x128xf32>
    gpu.return
  }
}
