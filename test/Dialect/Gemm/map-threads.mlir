// RUN: gemmc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-map-threads)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// Naive: consecutive threads own consecutive rows of C.
// CHECK-LABEL: gpu.func @naive
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[TID:.*]] = gpu.thread_id x
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[ROW:.*]] = arith.remui %[[TID]], %[[C32]]
// CHECK: %[[COL:.*]] = arith.divui %[[TID]], %[[C32]]
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[C8]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK:   %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[K]]]
// CHECK:   %[[Y:.*]] = memref.load %arg1[%[[K]], %[[COL]]]
// CHECK:   %[[P:.*]] = arith.mulf %[[X]], %[[Y]] fastmath<contract>
// CHECK:   %[[S:.*]] = arith.addf %[[ACC]], %[[P]] fastmath<contract>
// CHECK:   scf.yield %[[S]]
// CHECK: memref.store %[[SUM]], %arg2[%[[ROW]], %[[COL]]]
gpu.module @m {
  gpu.func @naive(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x1>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
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
  gpu.func @coalesced(%a: memref<16x8xf32>, %b: memref<8x64xf32>, %c: memref<16x64xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 16x64x1, coalesce>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<16x8xf32>, memref<8x64xf32>, memref<16x64xf32>
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
  gpu.func @coalesced_col(%a: memref<16x8xf32>, %b: memref<8x64xf32>, %c: memref<16x64xf32, strided<[1, 16]>>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 16x64x1, coalesce>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<16x8xf32>, memref<8x64xf32>, memref<16x64xf32, strided<[1, 16]>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @mismatch(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 16x16x1>} {
    // expected-error @+1 {{block tile 32x32 does not match the schedule's 256 threads per block}}
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
    gpu.return
  }
}

// -----

// Tails: a thread past the matrix reads row or column 0 (valid addresses)
// and stores nothing.
// CHECK-LABEL: gpu.func @tails
// CHECK: %[[ROW:.*]] = arith.remui
// CHECK: %[[COL:.*]] = arith.divui
// CHECK: %[[AROW:.*]] = arith.addi %[[ROW]], %arg3
// CHECK: %[[RIN:.*]] = arith.cmpi ult, %[[AROW]], %{{.*}}
// CHECK: %[[IN:.*]] = arith.andi %[[RIN]], %{{.*}}
// CHECK: %[[R:.*]] = arith.select %[[IN]], %[[ROW]]
// CHECK: %[[C:.*]] = arith.select %[[IN]], %[[COL]]
// CHECK: %[[SUM:.*]] = scf.for
// CHECK:   memref.load %{{.*}}[%[[R]], %{{.*}}]
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: memref.store %[[SUM]], %{{.*}}[%[[R]], %[[C]]]
gpu.module @m {
  gpu.func @tails(%a: memref<100x8xf32>, %b: memref<8x40xf32>, %c: memref<100x40xf32>, %i: index, %j: index) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x1>, gemm.tails} {
    %ta = memref.subview %a[%i, 0] [32, 8] [1, 1] : memref<100x8xf32> to memref<32x8xf32, strided<[8, 1], offset: ?>>
    %tb = memref.subview %b[0, %j] [8, 32] [1, 1] : memref<8x40xf32> to memref<8x32xf32, strided<[40, 1], offset: ?>>
    %tc = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<100x40xf32> to memref<32x32xf32, strided<[40, 1], offset: ?>>
    gemm.matmul %ta, %tb, %tc {acc_type = f32, level = #gemm<level block>} : memref<32x8xf32, strided<[8, 1], offset: ?>>, memref<8x32xf32, strided<[40, 1], offset: ?>>, memref<32x32xf32, strided<[40, 1], offset: ?>>
    gpu.return
  }
}

// -----

// Tails with only A staged (`promote a`): the loop over K runs to K rounded
// up to BK (20 for K = 18), and B, read from global memory past K there,
// is read through a transfer read, which gemm-vectorize guards by B's
// bounds like every global access (past B's end lies other memory; 0 x NaN
// would be NaN). A's reads move to shared memory in gemm-promote.
// CHECK-LABEL: gpu.func @tails_promote_a
// CHECK: scf.for %[[KK:.*]] = %{{.*}} to %c20
// CHECK:   memref.load %arg0[%{{.*}}, %[[KK]]]
// CHECK:   %[[B:.*]] = vector.transfer_read %arg1[%[[KK]], %{{.*}}], %{{.*}} {in_bounds = [true]{{.*}}} : memref<18x32xf32>, vector<1xf32>
// CHECK:   vector.extract %[[B]][0]
gpu.module @m {
  gpu.func @tails_promote_a(%a: memref<32x18xf32>, %b: memref<18x32xf32>, %c: memref<32x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x4, promote = [a]>, gemm.tails} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<32x18xf32>, memref<18x32xf32>, memref<32x32xf32>
    gpu.return
  }
}
