// RUN: gemmc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-map-threads)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// Naive: consecutive threads own consecutive rows of C.
// CHECK-LABEL: gpu.func @naive
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[ROW:.*]] = arith.remui %[[TID]], %[[C32]]
// CHECK: %[[COL:.*]] = arith.divui %[[TID]], %[[C32]]
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[C8]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK:   %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[K]]]
// CHECK:   %[[Y:.*]] = memref.load %arg1[%[[K]], %[[COL]]]
// CHECK:   %[[P:.*]] = arith.mulf %[[X]], %[[Y]] fastmath<contract>
// CHECK:   %[[S:.*]] = arith.addf %[[ACC]], %[[P]] fastmath<contract>
// CHECK:   scf.yield %[[S]]
// CHECK: memref.store %[[SUM]], %arg2[%[[ROW]], %[[COL]]]
gpu.module @m {
  gpu.func @naive(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) kernel {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>, schedule = #gemm.schedule<tile = 32x32x1>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
    gpu.return
  }
}

// -----

// Coalesced, row-major C: consecutive threads own consecutive columns.
// CHECK-LABEL: gpu.func @coalesced
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %[[C64]]
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %[[C64]]
// CHECK: memref.store %{{.*}}, %arg2[%[[ROW]], %[[COL]]]
gpu.module @m {
  gpu.func @coalesced(%a: memref<16x8xf32>, %b: memref<8x64xf32>, %c: memref<16x64xf32>) kernel {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>, schedule = #gemm.schedule<tile = 16x64x1, coalesce>} : memref<16x8xf32>, memref<8x64xf32>, memref<16x64xf32>
    gpu.return
  }
}

// -----

// Coalesced, column-major C: rows are C's contiguous dimension.
// CHECK-LABEL: gpu.func @coalesced_col
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[ROW:.*]] = arith.remui %[[TID]], %[[C16]]
// CHECK: %[[COL:.*]] = arith.divui %[[TID]], %[[C16]]
gpu.module @m {
  gpu.func @coalesced_col(%a: memref<16x8xf32>, %b: memref<8x64xf32>, %c: memref<16x64xf32, strided<[1, 16]>>) kernel {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>, schedule = #gemm.schedule<tile = 16x64x1, coalesce>} : memref<16x8xf32>, memref<8x64xf32>, memref<16x64xf32, strided<[1, 16]>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @mismatch(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) kernel {
    // expected-error @+1 {{block tile 32x32 does not match the schedule's 256 threads per block}}
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>, schedule = #gemm.schedule<tile = 16x16x1>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
    gpu.return
  }
}
