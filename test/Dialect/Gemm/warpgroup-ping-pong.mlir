// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-warpgroup)))' | FileCheck %s

// `warp-specialize 2 ping-pong`: each consumer computes whole 128 x 128
// tiles, the block's even tiles the first, its odd ones the second; one's
// epilogue runs beside the other's wgmma.
module attributes {gpu.container_module} {
  gpu.module @wg_module {
    gpu.func @wgp(%a: memref<512x128xf16>, %b: memref<128x512xf16>, %c: memref<512x512xf16>, %ta: !llvm.ptr, %tb: !llvm.ptr, %tc: !llvm.ptr) kernel attributes {gemm.problem = #gemm.problem<512x512x128, a = f16 row, b = f16 row, c = f16 row, acc = f32>, gemm.schedule = #gemm.schedule<tile = 128x128x64, stages = 4, wgmma = 64x128x16, tma = [a, b, c], warp_specialize = 2, ping_pong, persistent>} {
      gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<512x128xf16>, memref<128x512xf16>, memref<512x512xf16>
      gpu.return
    }
  }
  gpu.module @wg_gelu_module {
    gpu.func @wgp_gelu(%a: memref<512x128xf16>, %b: memref<128x512xf16>, %c: memref<512x512xf16>, %ta: !llvm.ptr, %tb: !llvm.ptr, %tc: !llvm.ptr) kernel attributes {gemm.problem = #gemm.problem<512x512x128, a = f16 row, b = f16 row, c = f16 row, acc = f32>, gemm.schedule = #gemm.schedule<tile = 128x128x64, stages = 4, wgmma = 64x128x16, tma = [a, b, c], warp_specialize = 2, ping_pong, persistent>, gemm.activation = "gelu"} {
      gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<512x128xf16>, memref<128x512xf16>, memref<512x512xf16>
      gpu.return
    }
  }
  gpu.module @wg_six_module {
    gpu.func @wgp_six(%a: memref<512x128xf16>, %b: memref<128x512xf16>, %c: memref<512x512xf16>, %ta: !llvm.ptr, %tb: !llvm.ptr, %tc: !llvm.ptr) kernel attributes {gemm.problem = #gemm.problem<512x512x128, a = f16 row, b = f16 row, c = f16 row, acc = f32>, gemm.schedule = #gemm.schedule<tile = 128x128x64, stages = 6, wgmma = 64x128x16, tma = [a, b, c], warp_specialize = 2, ping_pong, persistent>} {
      gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level grid>} : memref<512x128xf16>, memref<128x512xf16>, memref<512x512xf16>
      gpu.return
    }
  }
}

// Shared memory: A's stages (4 x 16 KB), B's (4 x 16 KB), C's store
// buffers (2 consumers x 2 x 8 KB), the mbarriers.
// CHECK-LABEL: gpu.func @wgp
// CHECK-SAME: gemm.launch = #gemm.launch<block = [384, 1, 1], grid = [SM, 1, 1], shared = 163904
// A stage is used, and released, by one consumer: "empty" counts 1.
// CHECK-COUNT-8: nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// The producer walks every tile of the block.
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: scf.for %{{.*}} = %block_id_x to %{{.*}} step %grid_dim_x
// The consumer's index, uniform in its warps (lane 0's): the walk depends
// on it. Its descriptors of A start at the tile's first row (no offset).
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: %[[WG:.*]] = nvvm.shfl.sync  idx %c-1_i32, %{{.*}}, %c0_i32, %c31_i32 : i32 -> i32
// CHECK: %[[CONSUMER:.*]] = arith.index_castui %[[WG]] : i32 to index
// Consumer i: tiles block + i * grid, step 2 * grid, from pipeline
// iteration i * (its K tiles).
// CHECK: %[[SKIP:.*]] = arith.subi %{{.*}}, %c0 : index
// CHECK-NEXT: %[[IT0:.*]] = arith.muli %[[CONSUMER]], %[[SKIP]] : index
// CHECK: %[[BEFORE:.*]] = arith.muli %[[CONSUMER]], %grid_dim_x : index
// CHECK: %[[FIRST:.*]] = arith.addi %block_id_x, %[[BEFORE]] : index
// CHECK: %[[STEP:.*]] = arith.muli %grid_dim_x, %c2 : index
// CHECK: scf.for %[[TILE:.*]] = %[[FIRST]] to %{{.*}} step %[[STEP]] iter_args(%{{.*}} = %[[IT0]])
// Zeros the accumulators LLVM cannot fold into wgmma's inputs.
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, 0;
// But at the block's first tile, the consumer waits for its turn: the
// other's arrival at barrier 5 + (1 - i) = 6 - i.
// CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[TILE]], %block_id_x : index
// CHECK-NEXT: scf.if %[[LATER]] {
// CHECK-NEXT: %[[C6:.*]] = arith.constant 6 : index
// CHECK-NEXT: %[[OTHER:.*]] = arith.subi %[[C6]], %[[CONSUMER]] : index
// CHECK-NEXT: %[[OTHER32:.*]] = arith.index_cast %[[OTHER]] : index to i32
// CHECK-NEXT: %[[C256:.*]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier id = %[[OTHER32]] number_of_threads = %[[C256]]
// CHECK: nvvm.wgmma.mma_async
// Its wgmma issued, it passes the turn on where the block has a tile
// after this one (so that every arrival is waited for): barrier 5 + i.
// CHECK: %[[NEXT:.*]] = arith.addi %[[TILE]], %grid_dim_x : index
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi ult, %[[NEXT]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[MORE]] {
// CHECK-NEXT: %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[OWN:.*]] = arith.addi %[[CONSUMER]], %[[C5]] : index
// CHECK-NEXT: %[[OWN32:.*]] = arith.index_cast %[[OWN]] : index to i32
// CHECK-NEXT: %[[C256B:.*]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %[[OWN32]] number_of_threads = %[[C256B]]
// The next tile of the consumer starts its K tiles after the other's.
// CHECK: %[[AFTER:.*]] = arith.addi %{{.*}}, %[[SKIP]] : index
// CHECK-NEXT: scf.yield %[[AFTER]] : index

// With an activation, the tile's last K step passes the turn, waits for
// all its wgmma and frees its own stage, in the loop: freed after it,
// ptxas moved GELU's arithmetic above the release. The loop has a last
// step: at K = 0, one K tile of zeros.
// CHECK-LABEL: gpu.func @wgp_gelu
// CHECK: %[[STEPS:.*]] = arith.maxui %{{.*}}, %c1 : index
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: scf.for %[[TILE:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[IT0:.*]] = %{{.*}})
// CHECK: %[[MORE:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: %[[COUNT:.*]] = arith.subi %[[STEPS]], %c0 : index
// CHECK-NEXT: %[[END:.*]] = arith.addi %[[IT0]], %[[COUNT]] : index
// CHECK: %[[LASTIT:.*]] = arith.subi %[[END]], %{{.*}} : index
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %[[STEPS]] step %{{.*}} iter_args(%[[IT:.*]] = %[[IT0]],
// CHECK: %[[STAGE:.*]] = arith.remui %[[IT]], %c4
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[IT]], %[[LASTIT]] : index
// CHECK-NEXT: scf.if %[[LAST]] {
// CHECK-NEXT: scf.if %[[MORE]] {
// CHECK: nvvm.barrier.arrive id
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: scf.if
// CHECK-NEXT: arith.index_cast %[[STAGE]]
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.yield
// CHECK-NEXT: } {loop_annotation
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.barrier.arrive
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: math.exp2

// Six stages, not a power of two: each K loop carries its step's stage and
// phase (i32) beside the pipeline iteration, the next by compare and
// select, the stage before by a select: no division of the iteration.
// CHECK-LABEL: gpu.func @wgp_six
// The producer's.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PIT:[^ ]*]] = %{{[^ ]*}}, %[[PSTAGE:[^ ]*]] = %{{[^ ]*}}, %[[PPHASE:[^ ]*]] = %{{[^ ]*}}) -> (index, i32, i32)
// CHECK-NEXT: arith.index_castui %[[PSTAGE]] : i32 to index
// CHECK-NOT: arith.remui %[[PIT]]
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}} : index, i32, i32
// The consumers'.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[IT:[^ ]*]] = %{{[^ ]*}}, %[[STAGE32:[^ ]*]] = %{{[^ ]*}}, %[[PHASE:[^ ]*]] = %{{[^ ]*}},
// CHECK-NEXT: %[[STAGE:.*]] = arith.index_castui %[[STAGE32]] : i32 to index
// CHECK-NOT: arith.remui %[[IT]]
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PHASE]]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: scf.if
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[STAGE32]], %c0_i32{{.*}} : i32
// CHECK: %[[PREV:.*]] = arith.subi %[[STAGE32]], %c1_i32{{.*}} : i32
// CHECK: %[[BEFORE:.*]] = arith.select %[[FIRST]], %c5_i32, %[[PREV]] : i32
// CHECK-NEXT: arith.index_castui %[[BEFORE]] : i32 to index
// CHECK: nvvm.mbarrier.arrive
// CHECK: %[[AFTER:.*]] = arith.addi %[[STAGE32]], %c1_i32{{.*}} : i32
// CHECK: %[[WRAPS:.*]] = arith.cmpi eq, %[[AFTER]], %c6_i32
// CHECK: %[[NEXT:.*]] = arith.select %[[WRAPS]], %c0_i32{{.*}}, %[[AFTER]] : i32
// CHECK-NEXT: %[[FLIP:.*]] = arith.extui %[[WRAPS]] : i1 to i32
// CHECK-NEXT: %[[FLIPPED:.*]] = arith.xori %[[PHASE]], %[[FLIP]] : i32
// CHECK-NEXT: scf.yield %{{.*}}, %[[NEXT]], %[[FLIPPED]],
