// RUN: gemmc-opt %s -gemmc-schedule-to-gpu | FileCheck %s

// f32 on wgmma with math = tf32x3 where both operands are transposed (A
// column-major, B row-major): the producer's threads copy them through
// registers, split each element on its way (cp.async, four 4-byte copies
// an element, ran 0.82x of this on an H100) and store its tf32 part and
// remainder element by element into four lines of the K-major tile; no
// split in shared memory, no barrier of the producer's own.
module {
    gemm.kernel @x3t problem <256x260x100, a = f32 col, b = f32 row, c = f32 row, acc = f32, math = tf32x3> schedule <tile = 128x128x32, vectorize = [4, 1, 1, 1], global_load_b = 2, stages = 3, wgmma = 64x128x8, warp_specialize = 2, persistent>
}

// CHECK-LABEL: gpu.func @x3t
// CHECK: nvvm.setmaxregister decrease 160
// CHECK-NOT: nvvm.cp.async
// CHECK-NOT: nvvm.barrier id
// A's copies inside the matrix: a round of 4 loads of 16 bytes (4 elements
// along M at one k), all issued before any is split and stored.
// CHECK: scf.for
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: arith.andi %{{.*}}, %c-8192_i32 : i32
// The four tf32 parts into four lines, then the remainders 16 KB after.
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: %[[REST:.*]] = llvm.getelementptr %{{.*}}[16384]
// CHECK-NEXT: llvm.store %{{.*}}, %[[REST]] {alignment = 4 : i64} : i32, !llvm.ptr<3>
// B (pieces of 2 elements): two 8-byte loads a copy.
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
// CHECK-NOT: nvvm.cp.async
// CHECK-NOT: nvvm.barrier id
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.setmaxregister increase 168
