// RUN: gemmc-opt %s -gemmc-schedule-to-gpu | FileCheck %s

// tf32 wgmma with B row-major (N-major) by TMA: B's tile lands as the
// matrix holds it (four boxes of 32 elements of N by 32 rows of K, 4 KB
// each) in a staging tile after the stage's K-major one (B's stage: 16 KB
// tile + 16 KB staging, from 64 KB on), on the stage's "landed" mbarrier;
// a stage later (lag 2 of 4 stages) each producer thread waits for it,
// reads its two blocks' four rows from the staging tile, writes their
// columns into the K-major tile, fences them for wgmma's async proxy and
// arrives on "full", which counts 129 arrivals: the issuer's, with A's
// bytes, and the 128 threads'.
module {
    gemm.kernel @staged problem <256x260x96, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 128x128x32, stages = 4, wgmma = 64x128x8, tma = [a, b], warp_specialize = 2, persistent>
}

// CHECK-LABEL: gpu.func @staged
// Full (129 arrivals), empty (2) and landed (1) of each stage.
// CHECK: nvvm.mbarrier.init %{{.*}}, %c129_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c2_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.setmaxregister decrease 152
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: scf.if
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c16384_i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[LANDED:.*]], %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg3, %[[FULL]], box[%{{.*}}, %{{.*}}]
// CHECK: %[[B:.*]] = arith.muli %{{.*}}, %c32768_i32 : i32
// CHECK-NEXT: arith.addi %[[B]], %c81920_i32 : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg4, %[[LANDED]], box[%[[N0:.*]], %[[K0:.*]]]
// CHECK: arith.addi %[[B]], %c86016_i32 : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg4, %[[LANDED]], box[%{{.*}}, %[[K0]]]
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg4, %[[LANDED]]
// CHECK: arith.cmpi uge, %{{.*}}, %c2 : index
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.cp.async
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NOT: llvm.store
// CHECK: nvvm.mbarrier.arrive
