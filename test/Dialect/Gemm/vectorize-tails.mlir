// RUN: gemmc-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-vectorize)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// Tails (`gemm.tails`): each global access finds the matrix bounds through
// its views. A piece past them reads zeros from the tile's first element (a
// valid address), a cp.async piece copies 0 elements (zero-fill), and a
// store past them does not happen.
// CHECK-LABEL: gpu.func @guarded
// CHECK-SAME: (%[[A:.*]]: memref<100x40xf32>, %[[S:.*]]: memref<32x8xf32, #gpu.address_space<workgroup>>, %[[C:.*]]: memref<100x60xf32>, %[[I:.*]]: index, %[[J:.*]]: index, %[[V:.*]]: vector<4xf32>)
// CHECK: %[[TILE:.*]] = memref.subview %[[A]][%[[I]], 32]
// CHECK: %[[ROW:.*]] = arith.divui
// CHECK: %[[COL:.*]] = arith.muli
// CHECK: %[[AROW:.*]] = arith.addi %[[ROW]], %[[I]]
// CHECK: %[[ACOL:.*]] = arith.addi %[[COL]], %c32
// CHECK: %[[LAST:.*]] = arith.addi %[[ACOL]], %c3
// CHECK: %[[RIN:.*]] = arith.cmpi ult, %[[AROW]], %c100
// CHECK: %[[CIN:.*]] = arith.cmpi ult, %[[LAST]], %c40
// CHECK: %[[IN:.*]] = arith.andi %[[RIN]], %[[CIN]]
// CHECK: %[[R:.*]] = arith.select %[[IN]], %[[ROW]], %c0
// CHECK: %[[CC:.*]] = arith.select %[[IN]], %[[COL]], %c0
// CHECK: %[[LOAD:.*]] = vector.load %[[TILE]][%[[R]], %[[CC]]]
// CHECK: arith.select %[[IN]], %[[LOAD]], %{{.*}} : vector<4xf32>
// CHECK: %[[CTILE:.*]] = memref.subview %[[C]]
// CHECK: %[[SIN:.*]] = arith.andi
// CHECK: scf.if %[[SIN]] {
// CHECK-NEXT: vector.store %[[V]], %[[CTILE]]
// CHECK-LABEL: gpu.func @async
// CHECK: %[[AIN:.*]] = arith.andi
// CHECK: %[[N:.*]] = arith.select %[[AIN]], %c4, %c0
// CHECK: nvgpu.device_async_copy %{{.*}}, %{{.*}}, 4, %[[N]] {bypassL1}
gpu.module @m {
  gpu.func @guarded(%a: memref<100x40xf32>, %s: memref<32x8xf32, #gpu.address_space<workgroup>>, %c: memref<100x60xf32>, %i: index, %j: index, %v: vector<4xf32>) kernel attributes {gemm.tails, gemm.schedule = #gemm.schedule<tile = 32x32x8, vectorize = [4, 1, 1, 4]>} {
    %tile = memref.subview %a[%i, 32] [32, 8] [1, 1] : memref<100x40xf32> to memref<32x8xf32, strided<[40, 1], offset: ?>>
    gemm.copy %tile to %s {threads = 64 : i64, vector = 4 : i64} : memref<32x8xf32, strided<[40, 1], offset: ?>> to memref<32x8xf32, #gpu.address_space<workgroup>>
    %ctile = memref.subview %c[%i, %j] [32, 32] [1, 1] : memref<100x60xf32> to memref<32x32xf32, strided<[60, 1], offset: ?>>
    %c0 = arith.constant 0 : index
    vector.transfer_write %v, %ctile[%c0, %c0] {in_bounds = [true]} : vector<4xf32>, memref<32x32xf32, strided<[60, 1], offset: ?>>
    gpu.return
  }
  gpu.func @async(%a: memref<100x40xf32>, %s: memref<32x8xf32, #gpu.address_space<workgroup>>, %i: index) kernel attributes {gemm.tails, gemm.schedule = #gemm.schedule<tile = 32x32x8, vectorize = [4, 1, 1, 4]>} {
    %tile = memref.subview %a[%i, 32] [32, 8] [1, 1] : memref<100x40xf32> to memref<32x8xf32, strided<[40, 1], offset: ?>>
    gemm.copy %tile to %s {async, threads = 64 : i64, vector = 4 : i64} : memref<32x8xf32, strided<[40, 1], offset: ?>> to memref<32x8xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// A warp's tile may start past the matrix's edge (the last block's second
// warp row when M = 100): reads past the edge fall back to the matrix's own
// (0, 0), not to the warp tile's.
// CHECK-LABEL: gpu.func @warp_read
// CHECK: %[[BLOCK:.*]] = memref.subview %arg0[%arg1, 0] [64, 32]
// CHECK: %[[WARP:.*]] = memref.subview %[[BLOCK]][32, 0] [32, 32]
// CHECK: %[[MROW:.*]] = arith.addi %{{.*}}, %arg1
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: %[[BACK:.*]] = arith.subi %c0, %[[MROW]]
// CHECK: %[[R:.*]] = arith.select %[[IN]], %c0, %[[BACK]]
// CHECK: vector.load %[[WARP]][%[[R]],
gpu.module @m {
  gpu.func @warp_read(%c: memref<100x32xf32>, %i: index) kernel attributes {gemm.tails, gemm.schedule = #gemm.schedule<tile = 64x32x8, vectorize = [4, 1, 1, 4]>} {
    %block = memref.subview %c[%i, 0] [64, 32] [1, 1] : memref<100x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    %warp = memref.subview %block[32, 0] [32, 32] [1, 1] {gemm.warp_view} : memref<64x32xf32, strided<[32, 1], offset: ?>> to memref<32x32xf32, strided<[32, 1], offset: ?>>
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f32
    %v = vector.transfer_read %warp[%c0, %c0], %pad {in_bounds = [true]} : memref<32x32xf32, strided<[32, 1], offset: ?>>, vector<2xf32>
    vector.transfer_write %v, %warp[%c0, %c0] {in_bounds = [true]} : vector<2xf32>, memref<32x32xf32, strided<[32, 1], offset: ?>>
    gpu.return
  }
}

// -----

// The mma epilogue reads C (beta != 0) in pairs along a row. Where N is odd
// (33), a pair may cross the matrix's edge (columns 32 and 33) and its
// address may be misaligned (row 1 starts at element 33): the pair is read
// an element at a time, each guarded, so column 32 keeps its value. (Read
// whole and dropped, it was zero: a wrong result with beta != 0.) Each
// element is loaded under a branch from its own, unclamped, position and is
// zero outside the matrix.
// CHECK-LABEL: gpu.func @odd_pairs
// CHECK-NOT: vector.load
// CHECK: %[[IN0:.*]] = arith.andi
// CHECK: %[[E0:.*]] = scf.if %[[IN0]] -> (f16) {
// CHECK-NEXT: %[[L0:.*]] = memref.load %arg0[%arg1, %arg2]
// CHECK-NEXT: scf.yield %[[L0]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: scf.yield %[[Z]]
// CHECK: %[[NEXT:.*]] = arith.addi %arg2, %c1
// CHECK: %[[IN1:.*]] = arith.andi
// CHECK: %[[E1:.*]] = scf.if %[[IN1]] -> (f16) {
// CHECK-NEXT: memref.load %arg0[%arg1, %[[NEXT]]]
// CHECK: vector.from_elements %[[E0]], %[[E1]]
// CHECK-NOT: vector.load
gpu.module @m {
  gpu.func @odd_pairs(%c: memref<200x33xf16>, %i: index, %j: index) kernel attributes {gemm.tails, gemm.schedule = #gemm.schedule<tile = 256x128x64, warp_tile = 32x64, promote = [a, b], mma = 16x8x16>} {
    %pad = arith.constant 0.0 : f16
    %v = vector.transfer_read %c[%i, %j], %pad {in_bounds = [true]} : memref<200x33xf16>, vector<2xf16>
    vector.transfer_write %v, %c[%i, %j] {in_bounds = [true]} : vector<2xf16>, memref<200x33xf16>
    gpu.return
  }
}
