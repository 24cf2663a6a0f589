// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-warp-tile,gemm-register-tile)))' \
// RUN: | gemmc-opt -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-promote)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// The loop over K is strip-mined by BK = 4. Each step copies the block's 64x4
// tile of A, transposed, and 4x32 tile of B into padded shared buffers (one
// stage), waits, computes from shared memory, and waits again. A warp's lanes
// read their rows of A at the warp's offset in the block tile.
// CHECK-LABEL: gpu.func @promote
// CHECK-SAME: workgroup(%[[AS:[a-z0-9]+]] : memref<1x4x66xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BS:[a-z0-9]+]] : memref<1x4x34xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[WROW:.*]] = arith.muli %{{.*}}, %c32
// CHECK: %[[R:.*]] = arith.addi %[[WROW]], %{{.*}}
// CHECK: scf.for %[[KT:.*]] = %c0 to %c8 step %c4 iter_args
// CHECK:   %[[AV:.*]] = memref.subview %[[AS]][%{{.*}}, 0, 0] [1, 4, 64] [1, 1, 1]
// CHECK:   %[[AT:.*]] = memref.subview %arg0[%{{.*}}, %[[KT]]] [64, 4] [1, 1]
// CHECK:   gemm.copy %[[AT]] to %[[AV]] {threads = 64 : i64, transpose, vector = 1 : i64}
// CHECK:   %[[BV:.*]] = memref.subview %[[BS]][%{{.*}}, 0, 0] [1, 4, 32] [1, 1, 1]
// CHECK:   %[[BT:.*]] = memref.subview %arg1[%[[KT]], %{{.*}}] [4, 32] [1, 1]
// CHECK:   gemm.copy %[[BT]] to %[[BV]] {threads = 64 : i64, vector = 1 : i64}
// CHECK:   gpu.barrier
// CHECK:   scf.for %[[KK:.*]] = %c0 to %c4 step %c1
// Fragments of A run along dimension 1 of the transposed tile.
// CHECK:     vector.transfer_read %[[AV]][%[[KK]], %[[R]]], %{{.*}} {in_bounds = [true]}
// CHECK:     vector.transfer_read %[[BV]][%[[KK]], %{{.*}}]
// CHECK:   } {gemm.inner_k}
// CHECK:   gpu.barrier
// CHECK: } {gemm.k_tiles}
gpu.module @m {
  gpu.func @promote(%a: memref<64x8xf32>, %b: memref<8x32xf32>, %c: memref<64x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x4, register_tile = 8x4, warp_tile = 32x32, promote = [a, b], pad = 2, transpose_a>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<64x8xf32>, memref<8x32xf32>, memref<64x32xf32>
    gpu.return
  }
}
