// RUN: gemmc-opt %s -split-input-file \
// RUN:   -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-unroll)))' | FileCheck %s

// `unroll full`: the loop over BK is gone, its body repeated 4 times.
// CHECK-LABEL: gpu.func @full
// CHECK-NOT: scf.for
// CHECK-COUNT-4: arith.addf
// CHECK-NOT: arith.addf
gpu.module @m {
  gpu.func @full(%x: f32, %out: memref<f32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x4, unroll = full>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (f32) {
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    } {gemm.inner_k}
    memref.store %r, %out[] : memref<f32>
    gpu.return
  }
}

// -----

// `unroll 2`: two bodies per iteration, half the trips.
// CHECK-LABEL: gpu.func @by_two
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c2
// CHECK-COUNT-2: arith.addf
// CHECK: scf.yield
gpu.module @m {
  gpu.func @by_two(%x: f32, %out: memref<f32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x4, unroll = 2>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (f32) {
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    } {gemm.inner_k}
    memref.store %r, %out[] : memref<f32>
    gpu.return
  }
}
