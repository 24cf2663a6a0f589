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
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>, schedule = #gemm.schedule<tile = 32x32x1, raster = 2>} : memref<128x16xf32>, memref<16x64xf32>, memref<128x64xf32>
    gpu.return
  }
}
