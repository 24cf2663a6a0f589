// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-warpgroup)))' | FileCheck %s

// f32 on wgmma with math = tf32x3: the producer's threads copy A (row-major,
// K-major as tf32 wgmma reads it) in 16-byte cp.async pieces and B
// (row-major, N-major) by 4 x 4 blocks, each row of a block two 8-byte
// cp.async into the block's unit of its line; once a stage's copies landed
// they split A's elements in shared memory into their tf32 parts and
// remainders, and turn and split B's blocks. The consumers sum each k
// tile's three products from zero and add that sum to the accumulators in
// f32.
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
// CHECK: nvvm.setmaxregister decrease 152
// A: rounds of 4 copies of 16 bytes, no loads into registers.
// CHECK: scf.for
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}}
// CHECK-NOT: llvm.load
// B, transposed: two blocks a thread, each four rows of two 8-byte pieces.
// CHECK: scf.for
// CHECK-COUNT-8: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache =  ca, %{{.*}}
// CHECK-NOT: llvm.load
// A stage late (3 stages), once the stage's copies landed, the threads
// meet at their own barrier (4) and split A's tile, 16 bytes a thread at a
// time (8 each): round to nearest (add 0x1000, clear the 13 low bits; the
// remainder rounded the same way), the tf32 parts back in place, the
// remainders 16 KB (16384 bytes) after; then each turns its blocks of B
// (two: four loads of 16 bytes each) and splits them; then they fence the
// stage for wgmma and arrive.
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK: nvvm.barrier id = %c4_i32 number_of_threads = %c128_i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8
// CHECK: %[[LANDED:.*]] = llvm.load %[[PART:.*]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: %[[HALF:.*]] = arith.constant 4096 : i32
// CHECK: %[[MASK:.*]] = arith.constant -8192 : i32
// CHECK: %[[UP:.*]] = arith.addi %{{.*}}, %[[HALF]] : i32
// CHECK: %[[BIG:.*]] = arith.andi %[[UP]], %[[MASK]] : i32
// CHECK: arith.subf
// CHECK: llvm.store %{{.*}}, %[[PART]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: %[[REST:.*]] = llvm.getelementptr %[[PART]][%c16384_i32{{.*}}]
// CHECK: llvm.store %{{.*}}, %[[REST]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive
// When the tiles are done: the last stage waited for, split, fenced.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.barrier id
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.mbarrier.arrive
// The consumers: per k step (4 of 8), A's remainder times B (the k tile's
// first product starts the sum from zero), A times B's remainder, A times
// B, into sums of their own.
// CHECK: nvvm.setmaxregister increase 176
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
