// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-warpgroup)))' | FileCheck %s

// f32 on wgmma with math = tf32x3: the producer's threads copy A (row-major,
// K-major as tf32 wgmma reads it) in pieces of 4 and B (row-major, N-major)
// in pieces of 2, transposing B, and store each element's tf32 part and
// remainder; the consumers sum each k tile's three products from zero and
// add that sum to the accumulators in f32.
module attributes {gpu.container_module} {
  gpu.module @x3_module {
    gpu.func @x3(%a: memref<256x100xf32>, %b: memref<100x260xf32>, %c: memref<256x260xf32>) kernel attributes {gemm.problem = #gemm.problem<256x260x100, a = f32 row, b = f32 row, c = f32 row, acc = f32, math = tf32x3>, gemm.schedule = #gemm.schedule<tile = 128x128x32, vectorize = [4, 1, 1, 1], global_load_b = 2, stages = 3, wgmma = 64x128x8, warp_specialize = 2, persistent>} {
      gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<256x100xf32>, memref<100x260xf32>, memref<256x260xf32>
      gpu.return
    }
  }
}

// Each stage holds A's tf32 part (16 KB) then its remainder, and B's. The
// producer's 128 threads all arrive on "full".
// CHECK-LABEL: gpu.func @x3
// CHECK-SAME: ld_multiple = [4, 2, 1]
// CHECK: nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK: nvvm.setmaxregister decrease 160
// CHECK-NOT: nvvm.cp.async
// A inside the matrix: a round of 8 copies of one 16-byte load each, all
// loaded before they are split (round to nearest: add 0x1000, clear the
// 13 low bits; the remainder is rounded the same way) and stored: the tf32
// parts at the copy's place, the remainders 16 KB (16384 bytes) after.
// CHECK: scf.for
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: %[[HALF:.*]] = arith.constant 4096 : i32
// CHECK: %[[MASK:.*]] = arith.constant -8192 : i32
// CHECK: %[[UP:.*]] = arith.addi %{{.*}}, %[[HALF]] : i32
// CHECK: %[[BIG:.*]] = arith.andi %[[UP]], %[[MASK]] : i32
// CHECK: arith.subf
// CHECK: llvm.store %{{.*}}, %[[PART:.*]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: %[[REST:.*]] = llvm.getelementptr %[[PART]][%c16384_i32{{.*}}]
// CHECK: llvm.store %{{.*}}, %[[REST]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// At the edges, a copy's elements one by one.
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (i32, i32, i32, i32) {
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// B, row-major, is transposed: rounds of 4 copies of two 8-byte loads,
// each element stored into its own line of the K-major tile, its tf32 part
// then its remainder.
// CHECK: scf.for
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
// CHECK-NOT: -> vector<2xi32>
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: llvm.getelementptr %{{.*}}[%c16384_i32{{.*}}]
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive
// The consumers: per k step (4 of 8), A's remainder times B (the k tile's
// first product starts the sum from zero), A times B's remainder, A times
// B, into sums of their own.
// CHECK: nvvm.setmaxregister increase 168
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: arith.constant 1024 : i64
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: arith.addi
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.constant 1024 : i64
// CHECK-NEXT: arith.addi
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-COUNT-10: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// The sums are added to the accumulators once their wgmma completed, which
// releases the stage at once.
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-64: llvm.fadd
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned
// CHECK: gpu.return
