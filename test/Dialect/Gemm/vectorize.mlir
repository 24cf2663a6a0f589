// RUN: gemmc-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-vectorize)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// A block-cooperative copy of a 64x8 row-major tile in 4-element pieces by 64
// threads: thread t loads pieces t and t + 64 (rows t/2 and 32 + t/2,
// columns (t mod 2) * 4) with 128-bit loads, and stores them transposed,
// element by element.
// CHECK-LABEL: gpu.func @copy_transposed
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c2
// CHECK: %[[POS:.*]] = arith.remui %[[TID]], %c2
// CHECK: %[[COL:.*]] = arith.muli %[[POS]], %c4
// CHECK: %[[V0:.*]] = vector.load %arg0[%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<64x8xf32>, vector<4xf32>
// CHECK: vector.load %arg0{{.*}} {alignment = 16 : i64}
// CHECK: %[[E0:.*]] = vector.extract %[[V0]][0]
// CHECK: memref.store %[[E0]], %arg1[%[[COL]], %[[ROW]]]
// CHECK-COUNT-7: memref.store
gpu.module @m {
  gpu.func @copy_transposed(%src: memref<64x8xf32>, %dst: memref<8x64xf32, #gpu.address_space<workgroup>>) kernel {
    gemm.copy %src to %dst {threads = 64 : i64, transpose, vector = 4 : i64} : memref<64x8xf32> to memref<8x64xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Same orientation: one 128-bit store per piece (shared-store width 4).
// CHECK-LABEL: gpu.func @copy
// CHECK: %[[V:.*]] = vector.load %arg0[%[[R:.*]], %[[C:.*]]] {alignment = 16 : i64}
// CHECK: vector.store %[[V]], %arg1[%[[R]], %[[C]]] {alignment = 16 : i64}
gpu.module @m {
  gpu.func @copy(%src: memref<8x32xf32>, %dst: memref<8x32xf32, #gpu.address_space<workgroup>>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, vectorize = [4, 4, 4, 4]>} {
    gemm.copy %src to %dst {threads = 64 : i64, vector = 4 : i64} : memref<8x32xf32> to memref<8x32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Fragment reads: contiguous along the vector becomes one vector load; along
// a strided dimension, one load per element. Writes of C are split into
// global-store-wide pieces (2 here).
// CHECK-LABEL: gpu.func @fragments
// CHECK: vector.load %arg0[%arg2, %arg3] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK: memref.load %arg1[%arg2, %arg3]
// CHECK: memref.load %arg1[%{{.*}}, %arg3]
// CHECK-COUNT-2: memref.load %arg1
// CHECK: vector.from_elements {{.*}} : vector<4xf32>
// CHECK: %[[LO:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1]
// CHECK: vector.store %[[LO]], %arg4[%arg2, %arg3] {alignment = 8 : i64} : memref<64x64xf32>, vector<2xf32>
// CHECK: %[[HI:.*]] = vector.shuffle %{{.*}}, %{{.*}} [2, 3]
// CHECK: vector.store %[[HI]], %arg4[%arg2, %{{.*}}] {alignment = 8 : i64}
#rows = affine_map<(d0, d1) -> (d0)>
gpu.module @m {
  gpu.func @fragments(%a: memref<8x64xf32>, %b: memref<64x8xf32>, %i: index, %j: index, %c: memref<64x64xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x64x8, vectorize = [4, 4, 4, 2]>} {
    %pad = arith.constant 0.0 : f32
    %x = vector.transfer_read %a[%i, %j], %pad {in_bounds = [true]} : memref<8x64xf32>, vector<4xf32>
    %y = vector.transfer_read %b[%i, %j], %pad {in_bounds = [true], permutation_map = #rows} : memref<64x8xf32>, vector<4xf32>
    %z = arith.addf %x, %y : vector<4xf32>
    vector.transfer_write %z, %c[%i, %j] {in_bounds = [true]} : vector<4xf32>, memref<64x64xf32>
    gpu.return
  }
}
