// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-warp-tile,gemm-register-tile,gemm-promote)))' \
// RUN: | gemmc-opt -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-pipeline)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// Two stages (64x8 tiles of A and 8x32 of B, 4-element pieces): the first tiles are copied before the loop; each step loads the
// next tiles (wrapping to tile 0 at the end) into registers, computes on
// stage t mod 2, stores into stage (t + 1) mod 2, and waits once.
// CHECK-LABEL: gpu.func @pipeline
// CHECK-SAME: workgroup(%[[AS:[a-z0-9]+]] : memref<2x8x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BS:[a-z0-9]+]] : memref<2x8x32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: gemm.copy %{{.*}} to %{{.*}} {threads = 64 : i64, transpose, vector = 4 : i64}
// CHECK: gemm.copy
// CHECK: gpu.barrier
// CHECK: scf.for %[[KT:.*]] = %c0 to %c16 step %c8 iter_args
// CHECK:   %[[TILE:.*]] = arith.divui %[[KT]], %c8
// CHECK:   %[[STAGE:.*]] = arith.remui %[[TILE]], %c2
// CHECK:   %[[NEXT:.*]] = arith.addi %[[TILE]], %c1
// CHECK:   %[[NSTAGE:.*]] = arith.remui %[[NEXT]], %c2
// CHECK:   %[[KT8:.*]] = arith.addi %[[KT]], %c8
// CHECK:   %[[NKT:.*]] = arith.remui %[[KT8]], %c16
// CHECK:   %[[AV:.*]] = memref.subview %[[AS]][%[[STAGE]], 0, 0]
// CHECK:   %[[ANEXT:.*]] = memref.subview %arg0[%c0, %[[NKT]]] [64, 8]
// CHECK:   %[[AREG:.*]] = gemm.load_tile %[[ANEXT]] {threads = 64 : i64, vector = 4 : i64} : {{.*}} to vector<8xf32>
// CHECK:   gemm.load_tile
// CHECK-NOT: gpu.barrier
// CHECK:   scf.for
// CHECK:   } {gemm.inner_k}
// CHECK:   %[[ANV:.*]] = memref.subview %[[AS]][%[[NSTAGE]], 0, 0]
// CHECK:   gemm.store_tile %[[AREG]] to %[[ANV]] {source_row_major = true, source_shape = array<i64: 64, 8>, threads = 64 : i64, transpose, vector = 4 : i64}
// CHECK:   gemm.store_tile
// CHECK:   gpu.barrier
// CHECK: } {gemm.k_tiles}
gpu.module @m {
  gpu.func @pipeline(%a: memref<64x16xf32>, %b: memref<16x32xf32>, %c: memref<64x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, register_tile = 8x4, warp_tile = 32x32, promote = [a, b], transpose_a, vectorize = [4, 4, 4, 4], stages = 2>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<64x16xf32>, memref<16x32xf32>, memref<64x32xf32>
    gpu.return
  }
}
