// RUN: gemmc-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-vectorize)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// A matrix whose extents are given at launch: a vector may cross its edge.
// A load reads the whole vector (inside the row's leading dimension, a
// multiple of the width) when its first element is inside, and zeroes the
// lanes past the edge; a cp.async copies the elements up to the edge; a
// store crossing the edge goes element by element.
// CHECK-LABEL: gpu.func @load
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32, strided<[?, 1]>>
// CHECK: %[[COLS:.*]] = memref.dim %[[A]], %c1
// CHECK: %[[FIRST:.*]] = arith.andi
// CHECK: %[[LEFT:.*]] = arith.subi %[[COLS]], %[[COL:.*]] : index
// CHECK: %[[MIN:.*]] = arith.minui %[[LEFT]], %c4
// CHECK: %[[N:.*]] = arith.select %[[FIRST]], %[[MIN]], %c0
// CHECK: %[[V:.*]] = vector.load
// CHECK: %[[L1:.*]] = arith.cmpi ult, %c1, %[[N]]
// CHECK: %[[MASK:.*]] = vector.from_elements %{{.*}}, %[[L1]], %{{.*}}, %{{.*}} : vector<4xi1>
// CHECK: arith.select %[[MASK]], %[[V]], %{{.*}} : vector<4xi1>, vector<4xf32>
gpu.module @m {
  gpu.func @load(%a: memref<?x?xf32, strided<[?, 1]>>, %s: memref<32x8xf32, #gpu.address_space<workgroup>>, %i: index, %k: index) kernel attributes {gemm.tails, gemm.schedule = #gemm.schedule<tile = 32x32x8, vectorize = [4, 1, 1, 4]>} {
    %tile = memref.subview %a[%i, %k] [32, 8] [1, 1] : memref<?x?xf32, strided<[?, 1]>> to memref<32x8xf32, strided<[?, 1], offset: ?>>
    gemm.copy %tile to %s {threads = 64 : i64, vector = 4 : i64} : memref<32x8xf32, strided<[?, 1], offset: ?>> to memref<32x8xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @async
// CHECK: %[[COLS:.*]] = memref.dim %arg0, %c1
// CHECK: %[[MIN:.*]] = arith.minui %{{.*}}, %c4
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %[[MIN]], %c0
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 4, %[[N]] {bypassL1}
gpu.module @m {
  gpu.func @async(%a: memref<?x?xf32, strided<[?, 1]>>, %s: memref<32x8xf32, #gpu.address_space<workgroup>>, %i: index, %k: index) kernel attributes {gemm.tails, gemm.schedule = #gemm.schedule<tile = 32x32x8, vectorize = [4, 1, 1, 4]>} {
    %tile = memref.subview %a[%i, %k] [32, 8] [1, 1] : memref<?x?xf32, strided<[?, 1]>> to memref<32x8xf32, strided<[?, 1], offset: ?>>
    gemm.copy %tile to %s {async, threads = 64 : i64, vector = 4 : i64} : memref<32x8xf32, strided<[?, 1], offset: ?>> to memref<32x8xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @store
// CHECK: %[[N:.*]] = arith.select
// CHECK: %[[WHOLE:.*]] = arith.cmpi eq, %[[N]], %c4
// CHECK: scf.if %[[WHOLE]] {
// CHECK-NEXT: vector.store %arg1
// CHECK: } else {
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %c0, %[[N]]
// CHECK: scf.if %[[IN0]] {
// CHECK: memref.store
// CHECK-COUNT-3: scf.if
gpu.module @m {
  gpu.func @store(%c: memref<?x?xf32, strided<[?, 1]>>, %v: vector<4xf32>, %i: index, %j: index) kernel attributes {gemm.tails, gemm.schedule = #gemm.schedule<tile = 32x32x8, vectorize = [4, 1, 1, 4]>} {
    %ctile = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<?x?xf32, strided<[?, 1]>> to memref<32x32xf32, strided<[?, 1], offset: ?>>
    %c0 = arith.constant 0 : index
    vector.transfer_write %v, %ctile[%c0, %c0] {in_bounds = [true]} : vector<4xf32>, memref<32x32xf32, strided<[?, 1], offset: ?>>
    gpu.return
  }
}

// -----

// `edges split`: one branch, the same for the whole block, on whether the
// tile lies inside the matrix: its copy unguarded there, guarded at the
// edges.
// CHECK-LABEL: gpu.func @split
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: scf.if %[[IN]] {
// CHECK-NOT: arith.minui
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 4 {bypassL1}
// CHECK: } else {
// CHECK: arith.minui
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 4, %{{.*}} {bypassL1}
gpu.module @m {
  gpu.func @split(%a: memref<?x?xf32, strided<[?, 1]>>, %s: memref<32x8xf32, #gpu.address_space<workgroup>>, %i: index, %k: index) kernel attributes {gemm.tails, gemm.schedule = #gemm.schedule<tile = 32x32x8, vectorize = [4, 1, 1, 4], split_edges>} {
    %tile = memref.subview %a[%i, %k] [32, 8] [1, 1] : memref<?x?xf32, strided<[?, 1]>> to memref<32x8xf32, strided<[?, 1], offset: ?>>
    gemm.copy %tile to %s {async, threads = 64 : i64, vector = 4 : i64} : memref<32x8xf32, strided<[?, 1], offset: ?>> to memref<32x8xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
