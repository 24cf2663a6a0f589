// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-warp-tile,gemm-register-tile,gemm-promote)))' \
// RUN: | gemmc-opt -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-pipeline)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// Three stages with cp.async: tiles 0 and 1 are copied before the loop, one
// commit group each; step t waits for tile t (at most one group in flight),
// meets the block at the one barrier, computes on stage t mod 3, then starts
// the copy of tile t + 2 into stage (t + 2) mod 3 and commits it.
// CHECK-LABEL: gpu.func @cp_async
// CHECK: gemm.copy %{{.*}} to %{{.*}} {async, threads = 64 : i64, vector = 4 : i64}
// CHECK: gemm.copy %{{.*}} {async
// CHECK: nvvm.cp.async.commit.group
// CHECK: gemm.copy %{{.*}} {async
// CHECK: gemm.copy %{{.*}} {async
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %[[KT:.*]] = %c0 to %c32 step %c8 iter_args
// CHECK:   %[[TILE:.*]] = arith.divui %[[KT]], %c8
// CHECK:   %[[STAGE:.*]] = arith.remui %[[TILE]], %c3{{.*}}
// CHECK:   nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK:   scf.for
// CHECK:   } {gemm.inner_k}
// CHECK:   %[[T2:.*]] = arith.addi %[[TILE]], %c2
// CHECK:   %[[S2:.*]] = arith.remui %[[T2]], %c3{{.*}}
// CHECK:   %[[K2:.*]] = arith.addi %[[KT]], %c16
// CHECK:   %[[NKT:.*]] = arith.remui %[[K2]], %c32
// CHECK:   %[[SRC:.*]] = memref.subview %arg0[%c0, %[[NKT]]] [64, 8]
// CHECK:   %[[DST:.*]] = memref.subview %{{.*}}[%[[S2]], 0, 0]
// CHECK:   gemm.copy %[[SRC]] to %[[DST]] {async
// CHECK:   gemm.copy {{.*}} {async
// CHECK:   nvvm.cp.async.commit.group
// CHECK-NOT: gpu.barrier
// CHECK: } {gemm.k_tiles}
gpu.module @m {
  gpu.func @cp_async(%a: memref<64x32xf32>, %b: memref<32x32xf32>, %c: memref<64x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, register_tile = 8x4, warp_tile = 32x32, promote = [a, b], vectorize = [4, 4, 4, 4], stages = 3, cp_async>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<64x32xf32>, memref<32x32xf32>, memref<64x32xf32>
    gpu.return
  }
}

// K given at launch: the loop runs to K rounded up to BK, and the tiles
// ahead wrap around modulo that.
// CHECK-LABEL: gpu.func @dynamic_k
// CHECK: %[[K:.*]] = memref.dim %{{.*}}, %c1 : memref<32x?xf32
// CHECK: %[[K7:.*]] = arith.addi %[[K]], %c7
// CHECK: %[[TILES:.*]] = arith.divui %[[K7]], %c8
// CHECK: %[[KR:.*]] = arith.muli %[[TILES]], %c8
// CHECK: %[[SECOND:.*]] = arith.remui %c8, %[[KR]]
// CHECK: memref.subview %arg0[%c0, %[[SECOND]]] [64, 8]
// CHECK: scf.for %[[KT:.*]] = %c0 to %[[KR]] step %c8 iter_args
// CHECK:   %[[K2:.*]] = arith.addi %[[KT]], %c16
// CHECK:   arith.remui %[[K2]], %[[KR]]
gpu.module @m2 {
  gpu.func @dynamic_k(%a: memref<64x?xf32, strided<[?, 1]>>, %b: memref<?x32xf32, strided<[?, 1]>>, %c: memref<64x32xf32>) kernel attributes {gemm.tails, gemm.schedule = #gemm.schedule<tile = 64x32x8, register_tile = 8x4, warp_tile = 32x32, promote = [a, b], vectorize = [4, 4, 4, 4], stages = 3, cp_async>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<64x?xf32, strided<[?, 1]>>, memref<?x32xf32, strided<[?, 1]>>, memref<64x32xf32>
    gpu.return
  }
}
