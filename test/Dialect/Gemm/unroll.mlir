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

// -----

// A register tile without `promote`: `unroll 4` unrolls its loop over K
// (`gemm.k_loop`, dynamic), four bodies a trip, and the steps past a
// multiple of 4 in a loop of their own after it.
// CHECK-LABEL: gpu.func @over_k
// CHECK: %[[FOUR:.*]] = arith.muli %c1, %c4
// CHECK: %[[MAIN:.*]] = scf.for %{{.*}} = %c0 to %[[END:.*]] step %[[FOUR]] iter_args
// CHECK-COUNT-4: arith.addf
// CHECK-NEXT: scf.yield
// CHECK: scf.for %{{.*}} = %[[END]] to %arg1 step %c1 iter_args(%{{.*}} = %[[MAIN]])
// CHECK-NEXT: arith.addf
// CHECK-NEXT: scf.yield
gpu.module @m {
  gpu.func @over_k(%x: f32, %k: index, %out: memref<f32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 1x512x1, register_tile = 1x4, unroll = 4>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %x) -> (f32) {
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    } {gemm.k_loop}
    memref.store %r, %out[] : memref<f32>
    gpu.return
  }
}
