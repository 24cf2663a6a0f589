// RUN: gemmc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-tile-blocks)))' | FileCheck %s

// CHECK-LABEL: gpu.func @tile
// CHECK-SAME: gemm.launch = #gemm.launch<block = [1024, 1, 1], grid = [N / 32, M / 32, 1], shared = 0>
// CHECK-SAME: known_block_size = array<i32: 1024, 1, 1>
// CHECK-SAME: known_grid_size = array<i32: 2, 4, 1>
// CHECK-DAG: %[[BX:.*]] = gpu.block_id x
// CHECK-DAG: %[[BY:.*]] = gpu.block_id y
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[ROW:.*]] = arith.muli %[[BY]], %[[C32]]
// CHECK: %[[COL:.*]] = arith.muli %[[BX]], %[[C32]]
// CHECK: %[[A:.*]] = memref.subview %arg0[%[[ROW]], 0] [32, 16] [1, 1]
// CHECK: %[[B:.*]] = memref.subview %arg1[0, %[[COL]]] [16, 32] [1, 1]
// CHECK: %[[C:.*]] = memref.subview %arg2[%[[ROW]], %[[COL]]] [32, 32] [1, 1]
// CHECK: gemm.matmul %[[A]], %[[B]], %[[C]] {{{.*}}level = #gemm<level block>
gpu.module @m {
  gpu.func @tile(%a: memref<128x16xf32>, %b: memref<16x64xf32>, %c: memref<128x64xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x1>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<128x16xf32>, memref<16x64xf32>, memref<128x64xf32>
    gpu.return
  }
}

// -----

// Tails: the grid rounds up (100 rows: 4 block rows) and the kernel is
// marked for the passes to guard its global accesses.
// CHECK-LABEL: gpu.func @tail
// CHECK-SAME: gemm.launch = #gemm.launch<block = [1024, 1, 1], grid = [N / 32, M / 32, 1], shared = 0>
// CHECK-SAME: gemm.tails
// CHECK-SAME: known_grid_size = array<i32: 2, 4, 1>
// CHECK-LABEL: gpu.func @no_tail
// CHECK-NOT: gemm.tails
// CHECK: gpu.return
gpu.module @m {
  gpu.func @tail(%a: memref<100x16xf32>, %b: memref<16x64xf32>, %c: memref<100x64xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x1>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<100x16xf32>, memref<16x64xf32>, memref<100x64xf32>
    gpu.return
  }
  gpu.func @no_tail(%a: memref<96x16xf32>, %b: memref<16x64xf32>, %c: memref<96x64xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x1>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<96x16xf32>, memref<16x64xf32>, memref<96x64xf32>
    gpu.return
  }
}


// -----

// Registers: a cap of two blocks per SM where the thread's accumulators,
// fragments and addressing fit in it, else of one. With mma, a 64x64 warp
// tile is 128 accumulators and 32 fragment registers a lane: 8 warps get no
// cap below 255; 16 warps of 32x32 (72 registers) fit one block's 128.
// CHECK-LABEL: gpu.func @mma_one_block
// CHECK-NOT: nvvm.maxnreg
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @mma_small_warps
// CHECK-SAME: nvvm.maxnreg = 128 : i32
gpu.module @m {
  gpu.func @mma_one_block(%a: memref<128x64xf16>, %b: memref<64x256xf16>, %c: memref<128x256xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 128x256x64, warp_tile = 64x64, promote = [a, b], mma = 16x8x16>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<128x64xf16>, memref<64x256xf16>, memref<128x256xf32>
    gpu.return
  }
  gpu.func @mma_small_warps(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 128x128x64, warp_tile = 32x32, promote = [a, b], mma = 16x8x16>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf32>
    gpu.return
  }
}

// -----

// A batch (`gemm.batch`, from convert-gemm-to-gpu) runs along z.
// CHECK-LABEL: gpu.func @batched
// CHECK-SAME: gemm.launch = #gemm.launch<block = [1024, 1, 1], grid = [N / 32, M / 32, B / 1], shared = 0>
// CHECK-SAME: known_grid_size = array<i32: 2, 2, 5>
gpu.module @m {
  gpu.func @batched(%a: memref<64x16xf32>, %b: memref<16x64xf32>, %c: memref<64x64xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x1>, gemm.batch = array<i64: 5, 1024, 1024, 4096>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<64x16xf32>, memref<16x64xf32>, memref<64x64xf32>
    gpu.return
  }
}

// -----

// Sizes given at launch: guarded accesses, no known grid, and the tiles'
// extent along K read from A.
// CHECK-LABEL: gpu.func @dynamic
// CHECK-SAME: gemm.launch = #gemm.launch<block = [1024, 1, 1], grid = [N / 32, M / 32, 1], shared = 0>
// CHECK-SAME: gemm.tails
// CHECK-NOT: known_grid_size
// CHECK: %[[K:.*]] = memref.dim %arg0, %c1
// CHECK: memref.subview %arg0[%{{.*}}, 0] [32, %[[K]]] [1, 1]
// CHECK: memref.subview %arg1[0, %{{.*}}] [%[[K]], 32] [1, 1]
gpu.module @m {
  gpu.func @dynamic(%a: memref<?x?xf32, strided<[?, 1]>>, %b: memref<?x?xf32, strided<[?, 1]>>, %c: memref<?x?xf32, strided<[?, 1]>>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x1>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<?x?xf32, strided<[?, 1]>>, memref<?x?xf32, strided<[?, 1]>>, memref<?x?xf32, strided<[?, 1]>>
    gpu.return
  }
}
