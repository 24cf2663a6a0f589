// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-warpgroup)))' | FileCheck %s

// A wgmma schedule becomes Hopper's warp-specialised kernel: 128x256x64
// tiles, two consumer warpgroups of m64n256k16, two stages, a persistent
// grid in groups of 2 tile rows.
module attributes {gpu.container_module} {
  gpu.module @wg_module {
    gpu.func @wg(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %ta: !llvm.ptr, %tb: !llvm.ptr) kernel attributes {gemm.problem = #gemm.problem<256x512x128, a = f16 row, b = f16 row, c = f16 row, acc = f32>, gemm.schedule = #gemm.schedule<tile = 128x256x64, stages = 2, raster = 2, wgmma = 64x256x16, tma = [a, b], warp_specialize = 2, persistent>} {
      gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<256x128xf16>, memref<128x512xf16>, memref<256x512xf16>
      gpu.return
    }
  }
  gpu.module @wg_threads_module {
    gpu.func @wg_threads(%a: memref<256x100xf16>, %b: memref<100x512xf16>, %c: memref<256x512xf16>, %tb: !llvm.ptr) kernel attributes {gemm.problem = #gemm.problem<256x512x100, a = f16 row, b = f16 row, c = f16 row, acc = f32>, gemm.schedule = #gemm.schedule<tile = 128x256x64, vectorize = [4, 1, 1, 1], stages = 4, wgmma = 64x256x16, tma = [b], warp_specialize = 2, persistent>} {
      gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<256x100xf16>, memref<100x512xf16>, memref<256x512xf16>
      gpu.return
    }
  }
  gpu.module @wg_mixed_module {
    gpu.func @wg_mixed(%a: memref<256x101xf16>, %b: memref<101x512xf16>, %c: memref<256x512xf16>) kernel attributes {gemm.problem = #gemm.problem<256x512x101, a = f16 row, b = f16 row, c = f16 row, acc = f32>, gemm.schedule = #gemm.schedule<tile = 128x256x64, vectorize = [1, 1, 1, 1], global_load_b = 8, stages = 4, wgmma = 64x256x16, warp_specialize = 2, persistent>} {
      gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<256x101xf16>, memref<101x512xf16>, memref<256x512xf16>
      gpu.return
    }
  }
  gpu.module @wg_registers_module {
    gpu.func @wg_registers(%a: memref<256x101xf16>, %b: memref<101x512xf16>, %c: memref<256x512xf16>) kernel attributes {gemm.problem = #gemm.problem<256x512x101, a = f16 row, b = f16 row, c = f16 row, acc = f32>, gemm.schedule = #gemm.schedule<tile = 128x128x64, vectorize = [1, 1, 1, 1], global_load_b = 8, stages = 7, wgmma = 64x128x16, warp_specialize = 2, persistent>} {
      gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<256x101xf16>, memref<101x512xf16>, memref<256x512xf16>
      gpu.return
    }
  }
}

// The dynamic shared memory, 1024-byte aligned for the swizzled tiles:
// A's stages (2 x 16 KB), B's (2 x 32 KB), then the full and empty
// mbarriers.
// CHECK: llvm.mlir.global external @gemmc_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: gpu.func @wg
// CHECK-SAME: gemm.launch = #gemm.launch<block = [384, 1, 1], grid = [SM, 1, 1], shared = 98336, index = 64, ld_multiple = [8, 8, 1]>
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32
// CHECK-NOT: gemm.matmul
// Thread 0 initialises full[s] (one arrival, the producer's) and empty[s]
// (one per consumer warpgroup), prefetches the tensor maps of A and B
// (parameters), then the block synchronises.
// CHECK: %[[FULL0:.*]] = llvm.getelementptr %{{.*}}[%c98304_i32]
// CHECK: nvvm.mbarrier.init %[[FULL0]], %c1_i32
// CHECK: %[[EMPTY0:.*]] = llvm.getelementptr %{{.*}}[%c98320_i32]
// CHECK: nvvm.mbarrier.init %[[EMPTY0]], %c2_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %arg3
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %arg4
// CHECK: gpu.barrier
// The producer warpgroup gives registers back; its thread 0 walks the
// tiles from blockIdx.x by gridDim.x.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}}
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// One 64x128 box of A (K first) and four 64x64 boxes of B (N first).
// CHECK-COUNT-5: nvvm.cp.async.bulk.tensor.shared.cluster.global
// The consumers take the registers, wait on full[s], and issue four K
// steps of m64n256k16 on descriptors (K-major A, N-major B: "row", "row").
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// One group stays in flight, and the stage before is freed; without an
// activation the tile's last stage is freed after the loop, once its
// wgmma completed (freed in the loop's last step, the branch cost ping-pong
// 128 x 128 tiles 4-7%: warpgroup-ping-pong.mlir has the other form).
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[ANY:.*]] = arith.cmpi ugt, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[RELEASE:.*]] = arith.andi %[[ANY]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[RELEASE]] {
// CHECK: nvvm.mbarrier.arrive
// C from the accumulators in pairs of columns (static sizes that the tiles
// divide: no guards).
// CHECK: vector.store {{.*}} {alignment = 4 : i64} : memref<256x512xf16>, vector<2xf16>

// Without `tma a`, the producer's 128 threads copy A (K = 100: a leading
// dimension of 8-byte multiples) with cp.async in pieces of 4 elements into
// the swizzled layout, zero-filling past K (the producer keeps 72 registers
// for them: the tiles divide C, whose stores need no guards); TMA still
// copies B. Each full
// barrier counts the TMA issuer's arrival and the 128 threads', whose
// copies arrive as they land; the consumers fence each full stage for the
// async proxy before wgmma reads it.
// CHECK-LABEL: gpu.func @wg_threads
// CHECK-SAME: ld_multiple = [4, 8, 1]
// CHECK: nvvm.mbarrier.init %{{.*}}, %c129_i32
// CHECK: nvvm.setmaxregister decrease 72
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: arith.xori
// CHECK: arith.minui
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache = ca, %{{.*}}
// CHECK: nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true}
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: nvvm.setmaxregister increase 216
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.wgmma.fence.aligned

// With A copied in 2-byte pieces beside B's 16-byte cp.async copies, each
// of the 128 threads copies one run of A (a 128-byte line of the tile) as
// the nine aligned 16-byte windows that hold it, with cp.async through L1
// (element by element past the matrix's end); it keeps 2 groups of copies
// in flight (4 stages), then shifts its landed runs into place (A's rows
// are 202 bytes, so each run's first element lies 0 to 14 bytes into its
// first window: words chosen by selects, then a funnel shift by half a
// word), fences them for the async proxy and arrives. A's stages each
// carry the runs' ninth windows (2 KB): 4 x 18 KB + 4 x 32 KB + barriers.
// CHECK-LABEL: gpu.func @wg_mixed
// CHECK-SAME: shared = 204864
// CHECK-SAME: ld_multiple = [1, 8, 1]
// CHECK: nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK: nvvm.setmaxregister decrease 152
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: scf.if
// CHECK-COUNT-9: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = ca, %{{.*}}
// CHECK: } else {
// CHECK: scf.if
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = ca, %{{.*}}
// CHECK: } else {
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}}
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 2
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-COUNT-12: arith.select
// CHECK-COUNT-4: llvm.intr.fshr
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: llvm.intr.fshr
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.intr.fshr
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.setmaxregister increase 176

// Where the ninth windows do not fit beside 7 stages of 128x128x64 tiles
// (7 x 36 KB), A goes through registers (B's 16-byte pieces stay
// cp.async): a thread keeps 5 groups of copies in flight, then fences the
// landed ones for the async proxy and arrives for them.
// CHECK-LABEL: gpu.func @wg_registers
// CHECK-SAME: ld_multiple = [1, 8, 1]
// CHECK: nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK: nvvm.setmaxregister decrease 160
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// A's rows are 202 bytes. Inside the matrix, a round of 8 copies of 16
// bytes: each the four aligned words that hold them and their last
// element, all loaded before a funnel shift lines them up.
// CHECK: scf.if
// CHECK: scf.for
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.intr.fshr
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// At the edges, each round branches once where all its copies are whole;
// otherwise each copy is whole or loads its elements one by one.
// CHECK: } else {
// CHECK: scf.for
// CHECK: scf.if %{{.*}} -> (i32, i32,
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (i32, i32, i32, i32, i32, i32) {
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (i32, i32, i32, i32) {
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}}
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 5
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.fence.proxy
// CHECK-COUNT-5: nvvm.mbarrier.arrive
// CHECK: nvvm.setmaxregister increase 168
