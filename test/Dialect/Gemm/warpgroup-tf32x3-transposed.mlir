// RUN: gemmc-opt %s -gemmc-schedule-to-gpu | FileCheck %s

// f32 on wgmma with math = tf32x3 where both operands are transposed (A
// column-major, B row-major): the producer's threads copy each 4 x 4 block
// of the tiles as its four rows of 4 elements (A in pieces of 4: one
// 16-byte cp.async a row; B in pieces of 2: two of 8 bytes) into the
// block's four 16-byte units of the K-major tile, and once they landed
// (a stage behind, 3 stages) turn each block in place, column j into unit
// j, its tf32 parts there and its remainders 16 KB further; no barrier of
// the producer's own (a thread turns only the blocks it copied).
module {
    gemm.kernel @x3t problem <256x260x100, a = f32 col, b = f32 row, c = f32 row, acc = f32, math = tf32x3> schedule <tile = 128x128x32, vectorize = [4, 1, 1, 1], global_load_b = 2, stages = 3, wgmma = 64x128x8, warp_specialize = 2, persistent>
}

// CHECK-LABEL: gpu.func @x3t
// CHECK: nvvm.setmaxregister decrease 152
// CHECK-NOT: nvvm.barrier id
// A's blocks, two a thread: four rows of 16 bytes each.
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// B's: four rows of two 8-byte pieces.
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK-COUNT-8: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache =  ca
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NOT: nvvm.barrier id
// The landed block's four rows, then its columns, split: the tf32 part in
// the unit, the remainder 16 KB after it.
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.load
// CHECK: llvm.store %{{.*}}, %[[UNIT:.*]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NEXT: %[[REST:.*]] = llvm.getelementptr %[[UNIT]][16384]
// CHECK-NEXT: llvm.store %{{.*}}, %[[REST]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.setmaxregister increase 176
