// RUN: gemmc-opt %s | gemmc-opt | FileCheck %s

// CHECK: gemm.kernel @k problem <128x64x32, a = f32 col, b = f32 row, c = bf16 col, acc = f32> schedule <tile = 32x32x1, coalesce>
gemm.kernel @k problem <128x64x32, a = f32 col, b = f32 row, c = bf16 col, acc = f32> schedule <tile = 32x32x1, coalesce>

// CHECK: gemm.kernel @x3 problem <256x256x64, a = f32 row, b = f32 row, c = f32 row, acc = f32, math = tf32x3> schedule <tile = 128x128x16, warp_tile = 64x64, promote = [a, b], mma = 16x8x8>
gemm.kernel @x3 problem <256x256x64, a = f32 row, b = f32 row, c = f32 row, acc = f32, math = tf32x3> schedule <tile = 128x128x16, warp_tile = 64x64, promote = [a, b], mma = 16x8x8>

// CHECK-LABEL: func.func @matmul
// CHECK: gemm.matmul %{{.*}}, %{{.*}}, %{{.*}} {acc_type = f32, level = #gemm<level block>}
func.func @matmul(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) {
  gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
  return
}

// CHECK: gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 64, 1], shared = 4096>
func.func @launch() attributes {gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 64, 1], shared = 4096>} {
  return
}

// The index width and the leading-dimension multiples, printed when not
// the defaults (32 bits, all 1).
// CHECK-LABEL: func.func @launch_recorded
// CHECK: gemm.launch = #gemm.launch<block = [128, 1, 1], grid = [N / 64, M / 64, 1], shared = 0, index = 64, ld_multiple = [8, 8, 2]>
func.func @launch_recorded() attributes {gemm.launch = #gemm.launch<block = [128, 1, 1], grid = [N / 64, M / 64, 1], shared = 0, index = 64, ld_multiple = [8, 8, 2]>} {
  return
}

// CHECK-LABEL: func.func @launch_ld_only
// CHECK: gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 128, 1], shared = 0, ld_multiple = [4, 4, 1]>
func.func @launch_ld_only() attributes {gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 128, 1], shared = 0, ld_multiple = [4, 4, 1]>} {
  return
}

// Every field of a schedule, printed back as parsed (visitScheduleFields).
// CHECK-LABEL: func.func @schedule_fields_mma
// CHECK: gemm.schedule = #gemm.schedule<tile = 128x128x32, warp_tile = 64x64, promote = [a, b], swizzle, vectorize = [8, 1, 1, 2], stages = 3, registers, cp_async, raster = 8, unroll = full, mma = 16x8x16, split_edges>
func.func @schedule_fields_mma() attributes {gemm.schedule = #gemm.schedule<tile = 128x128x32, warp_tile = 64x64, promote = [a, b], swizzle, vectorize = [8, 1, 1, 2], stages = 3, registers, cp_async, raster = 8, unroll = full, mma = 16x8x16, split_edges>} {
  return
}

// B's global-load width where it differs from A's.
// CHECK-LABEL: func.func @schedule_load_b
// CHECK: gemm.schedule = #gemm.schedule<tile = 64x16x64, warp_tile = 16x16, promote = [a, b], pad = 8, vectorize = [8, 1, 8, 1], global_load_b = 1, stages = 2, mma = 16x8x16>
func.func @schedule_load_b() attributes {gemm.schedule = #gemm.schedule<tile = 64x16x64, warp_tile = 16x16, promote = [a, b], pad = 8, vectorize = [8, 1, 8, 1], global_load_b = 1, stages = 2, mma = 16x8x16>} {
  return
}

// CHECK-LABEL: func.func @schedule_fields_simt
// CHECK: gemm.schedule = #gemm.schedule<tile = 64x64x8, coalesce, register_tile = 4x4, promote = [b], pad = 1, unroll = 2, split_k = 2>
func.func @schedule_fields_simt() attributes {gemm.schedule = #gemm.schedule<unroll = 2, tile = 64x64x8, promote = [b], coalesce, split_k = 2, pad = 1, register_tile = 4x4>} {
  return
}

// Hopper's fields: `tma` names C too, `cluster` is CMxCN.
// CHECK-LABEL: func.func @schedule_fields_wgmma
// CHECK: gemm.schedule = #gemm.schedule<tile = 128x256x64, stages = 4, raster = 8, wgmma = 64x256x16, tma = [a, b, c], warp_specialize = 2, persistent, cluster = 2x1>
func.func @schedule_fields_wgmma() attributes {gemm.schedule = #gemm.schedule<tile = 128x256x64, cluster = 2x1, tma = [c, a, b], wgmma = 64x256x16, stages = 4, warp_specialize = 2, persistent, raster = 8>} {
  return
}
