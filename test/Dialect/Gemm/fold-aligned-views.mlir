// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gemm-fold-aligned-views))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// A vector access through a subview reads the subview's source at the
// composed indices and keeps its alignment (upstream's fold-memref-alias-ops
// drops it, and at a dynamic stride LLVM cannot infer it again). Accesses
// without an alignment are left to upstream.
// CHECK-LABEL: gpu.func @fold
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32, strided<[?, 1]>>, %[[I:.*]]: index, %[[J:.*]]: index, %[[R:.*]]: index, %[[C:.*]]: index
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK-DAG: %[[ROW:.*]] = affine.apply #{{.*}}()[%[[I]], %[[R]]]
// CHECK-DAG: %[[COL:.*]] = affine.apply #{{.*}}()[%[[J]], %[[C]]]
// CHECK: %[[V:.*]] = vector.load %[[A]][%[[ROW]], %[[COL]]] {alignment = 16 : i64}
// CHECK: vector.store %[[V]], %[[A]][%[[ROW]], %[[COL]]] {alignment = 16 : i64}
// CHECK: vector.load %[[VIEW]][%[[R]], %[[C]]] : memref
gpu.module @m {
  gpu.func @fold(%a: memref<?x?xf32, strided<[?, 1]>>, %i: index, %j: index, %r: index, %c: index) kernel {
    %view = memref.subview %a[%i, %j] [32, 32] [1, 1] : memref<?x?xf32, strided<[?, 1]>> to memref<32x32xf32, strided<[?, 1], offset: ?>>
    %v = vector.load %view[%r, %c] {alignment = 16 : i64} : memref<32x32xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
    vector.store %v, %view[%r, %c] {alignment = 16 : i64} : memref<32x32xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
    %w = vector.load %view[%r, %c] : memref<32x32xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
    vector.store %w, %view[%r, %c] : memref<32x32xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
    gpu.return
  }
}
