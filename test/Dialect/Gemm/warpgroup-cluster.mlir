// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-warpgroup)))' | FileCheck %s

// `cluster 2x1` and `tma a b c`: clusters of two blocks along M that share
// B's tile (each copies half of its rows and multicasts them), and C stored
// through shared memory by TMA.
module attributes {gpu.container_module} {
  gpu.module @wg_module {
    gpu.func @wgc(%a: memref<512x128xf16>, %b: memref<128x512xf16>, %c: memref<512x512xf16>, %ta: !llvm.ptr, %tb: !llvm.ptr, %tc: !llvm.ptr) kernel attributes {gemm.problem = #gemm.problem<512x512x128, a = f16 row, b = f16 row, c = f16 row, acc = f32>, gemm.schedule = #gemm.schedule<tile = 128x256x64, stages = 2, wgmma = 64x256x16, tma = [a, b, c], warp_specialize = 2, persistent, cluster = 2x1>} {
      gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<512x128xf16>, memref<128x512xf16>, memref<512x512xf16>
      gpu.return
    }
  }
}

// Shared memory: A's stages (2 x 16 KB), B's (2 x 32 KB), C's store buffers
// (2 consumers x 2 x 8 KB), the mbarriers. C's leading dimension at 16
// bytes for TMA.
// CHECK-LABEL: gpu.func @wgc
// CHECK-SAME: gemm.launch = #gemm.launch<block = [384, 1, 1], grid = [SM, 1, 1], shared = 131104, index = 64, ld_multiple = [8, 8, 8]>
// CHECK-SAME: known_cluster_size = array<i32: 2, 1, 1>
// The block's rank in the cluster: tile row rank % 2, column rank / 2; the
// cluster walks ceil(tiles M / 2) x tiles N cluster tiles.
// CHECK: %[[RANK32:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[RANK:.*]] = arith.index_castui %[[RANK32]]
// CHECK: arith.remui %[[RANK]], %c2
// CHECK: arith.divui %[[RANK]], %c2
// "empty" counts the consumers of both blocks: 2 x (2 + 1 - 1).
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c4_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// The producer: A plainly, B's half (32 of 64 rows, at 32 x 128 bytes into
// each box) multicast to both blocks.
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg3, %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: arith.muli %{{.*}}, %c4096_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg4, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %{{.*}} : !llvm.ptr<7>, !llvm.ptr
// Its copies issued, the producer waits for the releases of both stages'
// last uses (the waits of iterations end and end + 1) before its block
// may leave: the peers then neither copy into it nor arrive on it.
// CHECK: arith.addi %[[END:[0-9]+]], %c0{{(_[0-9]+)?}} : index
// CHECK: %[[PHASE0:.*]] = arith.xori
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PHASE0]]
// CHECK: arith.addi %[[END]], %c1{{(_[0-9]+)?}} : index
// CHECK: %[[PHASE1:.*]] = arith.xori
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PHASE1]]
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// The consumers release a stage on both blocks' "empty" barriers.
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// C: for each group, the leader waits until no store reads the buffer (all
// at the tile's first group), the warpgroup meets, writes, fences, meets,
// and the leader stores the group.
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.barrier id = %[[ID:.*]] number_of_threads = %c128_i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %arg5, %{{.*}}, box[%{{.*}}, %{{.*}}]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 1 {read}
// After the last tile the stores complete before the block ends; no
// cluster barrier closes the kernel (it held the producer's warps).
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT: {read}
// CHECK-NOT: nvvm.cluster.arrive
// CHECK: gpu.return
