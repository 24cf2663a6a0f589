// RUN: gemmc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-register-tile)))' \
// RUN: | gemmc-opt -split-input-file -cse | FileCheck %s

// A warp's 32x32 tile in 8x4 register tiles (4 x 8 lanes): a thread's 8 rows
// are two 4-row chunks 16 apart (shared-load width 4), its 4 columns one
// chunk; 8 vector<4> accumulators carried by the loop over K.
// CHECK-LABEL: gpu.func @tile
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[LROW:.*]] = arith.divui %[[LANE]], %c8
// CHECK: %[[LCOL:.*]] = arith.remui %[[LANE]], %c8
// CHECK: %[[ACC:.*]]:8 = scf.for %[[K:.*]] = %c0 to %c8 step %c1 iter_args({{.*}}) -> (vector<4xf32>, {{.*}}) {
// CHECK:   %[[A0:.*]] = vector.transfer_read %arg0[%[[ROW:[0-9]+]], %[[K]]]{{.*}}permutation_map = #[[ALONG_ROWS:.*]]} : memref<32x8xf32>, vector<4xf32>
// CHECK:   %[[ROW16:.*]] = arith.addi %[[ROW]], %c16
// CHECK:   %[[A1:.*]] = vector.transfer_read %arg0[%[[ROW16]], %[[K]]]
// CHECK:   %[[B:.*]] = vector.transfer_read %arg1[%[[K]], %[[COL:[0-9]+]]]{{.*}} : memref<8x32xf32>, vector<4xf32>
// CHECK:   %[[A00:.*]] = vector.extract %[[A0]][0]
// CHECK:   %[[S:.*]] = vector.broadcast %[[A00]] : f32 to vector<4xf32>
// CHECK:   vector.fma %[[S]], %[[B]], %{{.*}} : vector<4xf32>
// CHECK-COUNT-7: vector.fma
// CHECK: } {gemm.k_loop}
// CHECK: vector.transfer_write %[[ACC]]#0, %arg2[%[[ROW]], %[[COL]]]
// CHECK-COUNT-7: vector.transfer_write
gpu.module @m {
  gpu.func @tile(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, register_tile = 8x4, warp_tile = 32x32, vectorize = [4, 4, 4, 4]>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @lanes(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, register_tile = 8x8, warp_tile = 32x32>} {
    // expected-error @+1 {{a 32x32 tile of 8x8 register tiles does not match the 32 lanes of a warp}}
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @f16(%a: memref<64x8xf16>, %b: memref<8x32xf16>, %c: memref<64x32xf16>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, register_tile = 8x4>} {
    // expected-error @+1 {{register tiles of f32 only are implemented}}
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<64x8xf16>, memref<8x32xf16>, memref<64x32xf16>
    gpu.return
  }
}

// -----

// slice-k 8: 8 slices of 32 threads (a 1x128 tile of 1x4 register tiles).
// Slice s runs K from s in steps of 8; slices 1 to 7 store their sums into
// a workgroup buffer of 7 x 128 floats (slice s's strip at (s - 1) x 128,
// a thread's 4 floats at 4 x its index), and after the barrier every
// thread adds the 7 strips in slice order; slice 0 alone writes C.
// CHECK-LABEL: gpu.func @slices
// CHECK-SAME: workgroup(%[[SUMS:.*]] : memref<896xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[K:.*]] = memref.dim %arg0, %c1
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[SLICE:.*]] = arith.divui %[[TID]], %c32
// CHECK: %[[THREAD:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %[[SLICE]] to %[[K]] step %c8 iter_args({{.*}}) -> (vector<4xf32>) {
// CHECK: } {gemm.k_loop}
// CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[SLICE]], %c0
// CHECK: scf.if %[[LATER]] {
// CHECK:   vector.store %[[ACC]], %[[SUMS]]
// CHECK: }
// CHECK: gpu.barrier
// CHECK: %[[S1:.*]] = vector.load %[[SUMS]]
// CHECK: %[[SUM1:.*]] = arith.addf %[[ACC]], %[[S1]] : vector<4xf32>
// CHECK-COUNT-6: arith.addf
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[SLICE]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK:   vector.transfer_write
// CHECK: } else {
// CHECK-NEXT: }
gpu.module @m {
  gpu.func @slices(%a: memref<1x?xf32>, %b: memref<?x128xf32>, %c: memref<1x128xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 1x128x1, register_tile = 1x4, vectorize = [4, 1, 1, 4], slice_k = 8>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<1x?xf32>, memref<?x128xf32>, memref<1x128xf32>
    gpu.return
  }
}

// -----

// slice-k 64 of 8 threads (a 1x32 tile of 1x4 register tiles): a warp holds
// 4 slices, which add their sums up by butterfly shuffles (lane ^ 8, then
// lane ^ 16), element by element. Then the first slice of each warp but the
// first (slice % 4 == 0, slice / 4 != 0) stores the warp's sums into a
// buffer of 15 x 32 floats, and after the barrier every thread adds the 15
// strips in warp order; slice 0 alone writes C.
// CHECK-LABEL: gpu.func @subWarpSlices
// CHECK-SAME: workgroup(%[[SUMS:.*]] : memref<480xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[SLICE:.*]] = arith.divui %{{.*}}, %c8
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %[[SLICE]] to %{{.*}} step %c64 iter_args({{.*}}) -> (vector<4xf32>) {
// CHECK: } {gemm.k_loop}
// CHECK: %[[E0:.*]] = vector.extract %[[ACC]][0]
// CHECK: %[[SH0:.*]], %{{.*}} = gpu.shuffle  xor %[[E0]], %c8_i32, %c32_i32 : f32
// CHECK: arith.addf %[[E0]], %[[SH0]] : f32
// CHECK-COUNT-3: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-COUNT-4: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: %[[GROUP:.*]] = arith.divui %[[SLICE]], %c4
// CHECK: %[[WITHIN:.*]] = arith.remui %[[SLICE]], %c4
// CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[GROUP]], %c0
// CHECK: %[[FIRSTIN:.*]] = arith.cmpi eq, %[[WITHIN]], %c0
// CHECK: %[[STORES:.*]] = arith.andi %[[LATER]], %[[FIRSTIN]]
// CHECK: scf.if %[[STORES]] {
// CHECK:   vector.store %{{.*}}, %[[SUMS]]
// CHECK: }
// CHECK: gpu.barrier
// CHECK-COUNT-15: arith.addf %{{.*}} : vector<4xf32>
// CHECK-NOT: arith.addf
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[SLICE]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK:   vector.transfer_write
gpu.module @m {
  gpu.func @subWarpSlices(%a: memref<1x?xf32>, %b: memref<?x32xf32>, %c: memref<1x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 1x32x1, register_tile = 1x4, vectorize = [4, 1, 1, 4], slice_k = 64>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<1x?xf32>, memref<?x32xf32>, memref<1x32xf32>
    gpu.return
  }
}

// -----

// slice-k 4 of 8 threads: the block is one warp, whose shuffles leave
// slice 0 every sum; no shared memory, no barrier.
// CHECK-LABEL: gpu.func @oneWarpOfSlices
// CHECK-NOT: workgroup
// CHECK-COUNT-8: gpu.shuffle  xor
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK:   vector.transfer_write
gpu.module @m {
  gpu.func @oneWarpOfSlices(%a: memref<1x?xf32>, %b: memref<?x32xf32>, %c: memref<1x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 1x32x1, register_tile = 1x4, vectorize = [4, 1, 1, 4], slice_k = 4>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<1x?xf32>, memref<?x32xf32>, memref<1x32xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @warpSlices(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, register_tile = 8x4, warp_tile = 32x32, slice_k = 2>} {
    // expected-error @+1 {{slice-k splits a block's register tiles, not a warp's}}
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
    gpu.return
  }
}
