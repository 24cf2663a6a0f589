// RUN: gemmc-opt %s -convert-gemm-to-gpu | FileCheck %s

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @sgemm_module
// CHECK: gpu.func @sgemm(%[[A:.*]]: memref<64x16xf32, strided<[1, 64]>> {llvm.align = 16 : i64, llvm.noalias}, %[[B:.*]]: memref<16x32xf32> {{.*}}, %[[C:.*]]: memref<64x32xf32> {{.*}}) kernel
// CHECK-SAME: gemm.problem = #gemm.problem<64x32x16, a = f32 col, b = f32 row, c = f32 row, acc = f32>
// CHECK-SAME: gemm.schedule = #gemm.schedule<tile = 32x32x1, coalesce>
// CHECK: gemm.matmul %[[A]], %[[B]], %[[C]] {acc_type = f32, level = #gemm<level grid>, schedule = #gemm.schedule<tile = 32x32x1, coalesce>}
// CHECK-NEXT: gpu.return
// CHECK-NOT: gemm.kernel
gemm.kernel @sgemm problem <64x32x16, a = f32 col, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1, coalesce>

// `alpha_beta`: alpha and beta (f32) follow the matrices.
// CHECK: gpu.func @scaled(%{{.*}}: memref<64x16xf32> {{.*}}, %{{.*}}: memref<16x32xf32> {{.*}}, %{{.*}}: memref<64x32xf32> {{.*}}, %{{.*}}: f32, %{{.*}}: f32) kernel
// CHECK-SAME: gemm.alpha_beta
gemm.kernel @scaled problem <64x32x16, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1> alpha_beta
