// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-tile-blocks,gemm-raster)))' | FileCheck %s

// raster 2 over a 4 x 2 grid of tiles: the linear block index walks two block
// rows at a time, column by column.
// CHECK-LABEL: gpu.func @raster
// CHECK-DAG: %[[BX:.*]] = gpu.block_id x
// CHECK-DAG: %[[BY:.*]] = gpu.block_id y
// CHECK: %[[Y2:.*]] = arith.muli %[[BY]], %c2
// CHECK: %[[PID:.*]] = arith.addi %[[Y2]], %[[BX]]
// CHECK: %[[GROUP:.*]] = arith.divui %[[PID]], %c4
// CHECK: %[[FIRST:.*]] = arith.muli %[[GROUP]], %c2
// CHECK: %[[LEFT:.*]] = arith.subi %c4{{.*}}, %[[FIRST]]
// CHECK: %[[ROWS:.*]] = arith.minui %[[LEFT]], %c2
// CHECK: %[[IN:.*]] = arith.remui %[[PID]], %c4
// CHECK: %[[R:.*]] = arith.remui %[[IN]], %[[ROWS]]
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[R]]
// CHECK: %[[COL:.*]] = arith.divui %[[IN]], %[[ROWS]]
// CHECK: arith.muli %[[ROW]], %c32
// CHECK: arith.muli %[[COL]], %c32
gpu.module @m {
  gpu.func @raster(%a: memref<128x16xf32>, %b: memref<16x64xf32>, %c: memref<128x64xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x1, raster = 2>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<128x16xf32>, memref<16x64xf32>, memref<128x64xf32>
    gpu.return
  }
}

// In a batch the z block index (the batch's GEMM) stays as it is; only x
// and y are swizzled.
// CHECK-LABEL: gpu.func @batched_raster
// CHECK: %[[Z:.*]] = gpu.block_id z
// CHECK: memref.subview %arg0[%[[Z]], 0, 0]
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[BY:.*]] = gpu.block_id y
// CHECK: arith.muli %[[BY]], %c2
gpu.module @m2 {
  gpu.func @batched_raster(%a: memref<2x128x16xf32>, %b: memref<16x64xf32>, %c: memref<128x64xf32>) kernel attributes {gemm.batch = array<i64: 2, 2048, 1024, 8192>, gemm.schedule = #gemm.schedule<tile = 32x32x1, raster = 2>} {
    %z = gpu.block_id z
    %a0 = memref.subview %a[%z, 0, 0] [1, 128, 16] [1, 1, 1] : memref<2x128x16xf32> to memref<128x16xf32, strided<[16, 1], offset: ?>>
    gemm.matmul %a0, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<128x16xf32, strided<[16, 1], offset: ?>>, memref<16x64xf32>, memref<128x64xf32>
    gpu.return
  }
}
