// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-warp-tile,gemm-mma,gemm-promote)))' \
// RUN: | gemmc-opt -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-pipeline)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// `pipeline stages 3 registers cp-async` with mma: the fragments of step
// j + 1 are read while step j computes, from one tile to the next too.
// Before the loop: tile 0 waited for and its first fragments read. Step t
// starts the copy of tile t + 2; its inner loop computes all steps but the
// last, each reading the next step's fragments; then it waits for tile t + 1,
// meets the block at the barrier, reads the first fragments of tile t + 1
// (stage (t + 1) mod 3) and computes the last step with the fragments the
// inner loop read. The fragments travel in the loops' iter_args.
// CHECK-LABEL: gpu.func @registers
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: %[[A0:.*]] = gemm.load_fragment %{{.*}} {a}
// CHECK: %[[A1:.*]] = gemm.load_fragment %{{.*}} {a}
// CHECK: %[[B0:.*]] = gemm.load_fragment
// CHECK: %[[B1:.*]] = gemm.load_fragment
// CHECK: scf.for %[[KT:.*]] = %c0 to %c64 step %c32 iter_args({{.*}}, %[[FA0:.*]] = %[[A0]], %[[FA1:.*]] = %[[A1]], %[[FB0:.*]] = %[[B0]], %[[FB1:.*]] = %[[B1]])
// CHECK-NOT: gpu.barrier
// CHECK:   gemm.copy {{.*}} {async
// CHECK:   gemm.copy {{.*}} {async
// CHECK:   nvvm.cp.async.commit.group
// CHECK:   %[[STEPS:.*]]:12 = scf.for %[[KK:.*]] = %c0 to %c16 step %c16 iter_args({{.*}}, %[[SA0:.*]] = %[[FA0]], %{{.*}} = %[[FA1]], %{{.*}} = %[[FB0]], %{{.*}} = %[[FB1]])
// CHECK:     %[[NEXT:.*]] = arith.addi %[[KK]], %c16
// CHECK:     %[[NA:.*]] = gemm.load_fragment %{{.*}}[%{{.*}}, %[[NEXT]]] {a}
// CHECK:     nvgpu.mma.sync(%[[SA0]],
// CHECK:     scf.yield {{.*}}, %[[NA]],
// CHECK:   } {gemm.inner_k}
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK:   %[[T1:.*]] = arith.addi %[[KT]], %c32
// CHECK:   %[[TILE1:.*]] = arith.divui %[[T1]], %c32
// CHECK:   %[[STAGE1:.*]] = arith.remui %[[TILE1]], %c3
// CHECK:   %[[VIEW1:.*]] = memref.subview %{{.*}}[%[[STAGE1]], 0, 0]
// CHECK:   %[[NA0:.*]] = gemm.load_fragment %[[VIEW1]][%{{.*}}, %c0] {a}
// CHECK:   nvgpu.mma.sync(%[[STEPS]]#8,
// CHECK:   scf.yield {{.*}}, %[[NA0]],
// CHECK: } {gemm.k_tiles}
gpu.module @m {
  gpu.func @registers(%a: memref<64x64xf16>, %b: memref<64x32xf16>, %c: memref<64x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x32, warp_tile = 32x32, promote = [a, b], vectorize = [8, 1, 1, 1], stages = 3, registers, cp_async, mma = 16x8x16>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<64x64xf16>, memref<64x32xf16>, memref<64x32xf32>
    gpu.return
  }
}
