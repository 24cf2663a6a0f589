// RUN: gemmc-opt %s -convert-gemm-to-gpu | FileCheck %s

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @sgemm_module
// CHECK: gpu.func @sgemm(%[[A:.*]]: memref<64x16xf32, strided<[1, 64]>> {llvm.align = 16 : i64, llvm.noalias}, %[[B:.*]]: memref<16x32xf32> {{.*}}, %[[C:.*]]: memref<64x32xf32> {{.*}}) kernel
// CHECK-SAME: gemm.problem = #gemm.problem<64x32x16, a = f32 col, b = f32 row, c = f32 row, acc = f32>
// CHECK-SAME: gemm.schedule = #gemm.schedule<tile = 32x32x1, coalesce>
// CHECK: gemm.matmul %[[A]], %[[B]], %[[C]] {acc_type = f32, level = #gemm<level grid>}
// CHECK-NEXT: gpu.return
// CHECK-NOT: gemm.kernel
gemm.kernel @sgemm problem <64x32x16, a = f32 col, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1, coalesce>

// `alpha_beta`: alpha and beta (f32) follow the matrices.
// CHECK: gpu.func @scaled(%{{.*}}: memref<64x16xf32> {{.*}}, %{{.*}}: memref<16x32xf32> {{.*}}, %{{.*}}: memref<64x32xf32> {{.*}}, %{{.*}}: f32, %{{.*}}: f32) kernel
// CHECK-SAME: gemm.alpha_beta
gemm.kernel @scaled problem <64x32x16, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1> alpha_beta

// A batch: count x rows x cols memrefs stepping by the strides; the
// kernel's GEMM is the one of blockIdx.z.
// CHECK: gpu.func @batched(%[[BA:.*]]: memref<3x64x16xf32, strided<[2000, 16, 1]>> {{.*}}, %[[BB:.*]]: memref<3x16x32xf32, strided<[512, 32, 1]>> {{.*}}, %[[BC:.*]]: memref<3x64x32xf32, strided<[4096, 32, 1]>> {{.*}}) kernel
// CHECK-SAME: gemm.batch = array<i64: 3, 2000, 512, 4096>
// CHECK: %[[Z:.*]] = gpu.block_id z
// CHECK: %[[A:.*]] = memref.subview %[[BA]][%[[Z]], 0, 0] [1, 64, 16] [1, 1, 1] : memref<3x64x16xf32, strided<[2000, 16, 1]>> to memref<64x16xf32, strided<[16, 1], offset: ?>>
// CHECK: %[[B:.*]] = memref.subview %[[BB]][%[[Z]], 0, 0]
// CHECK: %[[C:.*]] = memref.subview %[[BC]][%[[Z]], 0, 0]
// CHECK: gemm.matmul %[[A]], %[[B]], %[[C]]
gemm.kernel @batched problem <64x32x16, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1> batch [3, 2000, 512, 4096]

// FP8 with `scales`: A's and B's scales (f32) follow C (and alpha and
// beta): one each for `tensor`, one per row of A and per column of B for
// `rowwise`.
// CHECK: gpu.func @fp8_tensor(%{{.*}}: memref<128x256xf8E4M3FN> {{.*}}, %{{.*}}: memref<256x64xf8E5M2, strided<[1, 256]>> {{.*}}, %{{.*}}: memref<128x64xbf16> {{.*}}, %{{.*}}: memref<1xf32> {{.*}}, %{{.*}}: memref<1xf32> {{.*}}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) kernel
// CHECK-SAME: gemm.scales = "tensor"
gemm.kernel @fp8_tensor problem <128x64x256, a = f8E4M3FN row, b = f8E5M2 col, c = bf16 row, acc = f32> schedule <tile = 128x64x128, stages = 2, wgmma = 64x64x32, tma = [a, b], warp_specialize = 1> scales "tensor"
// CHECK: gpu.func @fp8_rowwise(%{{.*}}: memref<128x256xf8E4M3FN> {{.*}}, %{{.*}}: memref<256x64xf8E4M3FN, strided<[1, 256]>> {{.*}}, %{{.*}}: memref<128x64xf32> {{.*}}, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: memref<128xf32> {{.*}}, %{{.*}}: memref<64xf32> {{.*}}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) kernel
// CHECK-SAME: gemm.problem = #gemm.problem<128x64x256, a = f8E4M3FN row, b = f8E4M3FN col, c = f32 row, acc = f32, math = fast_accumulate>
// CHECK-SAME: gemm.scales = "rowwise"
gemm.kernel @fp8_rowwise problem <128x64x256, a = f8E4M3FN row, b = f8E4M3FN col, c = f32 row, acc = f32, math = fast_accumulate> schedule <tile = 128x64x128, stages = 2, wgmma = 64x64x32, tma = [a, b], warp_specialize = 1> alpha_beta scales "rowwise"
