// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-fold-aligned-views)))' | FileCheck %s

// Aligned vector loads and stores through unit-stride subviews (a stage of a
// multi-buffered tile, dropping the stage dimension) read and write the
// subview's source, alignment kept; unaligned ones are left to upstream
// fold-memref-alias-ops.
// CHECK-LABEL: gpu.func @fold
// CHECK-SAME: (%[[BUF:.*]]: memref<3x32x256xf32, #gpu.address_space<workgroup>>, %[[S:.*]]: index, %[[I:.*]]: index, %[[J:.*]]: index
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK: %[[V:.*]] = vector.load %[[BUF]][%[[S]], %[[I]], %[[J]]] {alignment = 8 : i64} : memref<3x32x256xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: vector.store %[[V]], %[[BUF]][%[[S]], %[[I]], %[[J]]] {alignment = 8 : i64}
// CHECK: vector.load %[[VIEW]][%[[I]], %[[J]]] : memref
gpu.module @m {
  gpu.func @fold(%buf: memref<3x32x256xf32, #gpu.address_space<workgroup>>, %s: index, %i: index, %j: index, %out: memref<2xvector<2xf32>>) kernel {
    %view = memref.subview %buf[%s, 0, 0] [1, 32, 256] [1, 1, 1] : memref<3x32x256xf32, #gpu.address_space<workgroup>> to memref<32x256xf32, strided<[256, 1], offset: ?>, #gpu.address_space<workgroup>>
    %v = vector.load %view[%i, %j] {alignment = 8 : i64} : memref<32x256xf32, strided<[256, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<2xf32>
    vector.store %v, %view[%i, %j] {alignment = 8 : i64} : memref<32x256xf32, strided<[256, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<2xf32>
    %u = vector.load %view[%i, %j] : memref<32x256xf32, strided<[256, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<2xf32>
    %c0 = arith.constant 0 : index
    memref.store %u, %out[%c0] : memref<2xvector<2xf32>>
    gpu.return
  }
}
