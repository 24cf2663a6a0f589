// RUN: gemmc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{problem sizes must be positive or '?', got 0x64x32}}
gemm.kernel @k problem <0x64x32, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1>

// -----

// expected-error @+1 {{element type must be f32, f16, bf16, f8E4M3FN or f8E5M2, got 'f64'}}
gemm.kernel @k problem <64x64x32, a = f64 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1>

// -----

// expected-error @+1 {{accumulator type must be f32, got 'f16'}}
gemm.kernel @k problem <64x64x32, a = f16 row, b = f16 row, c = f16 row, acc = f16> schedule <tile = 32x32x1>

// -----

// expected-error @+1 {{math = tf32x3 needs f32 inputs, got 'f16'}}
gemm.kernel @k problem <64x64x32, a = f16 row, b = f16 row, c = f32 row, acc = f32, math = tf32x3> schedule <tile = 32x32x1>

// -----

// expected-error @+1 {{expected 'tf32x3'}}
gemm.kernel @k problem <64x64x32, a = f32 row, b = f32 row, c = f32 row, acc = f32, math = tf32> schedule <tile = 32x32x1>

// -----

// expected-error @+1 {{expected 'row' or 'col'}}
gemm.kernel @k problem <64x64x32, a = f32 diagonal, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1>

// -----

// expected-error @+2 {{tile must have 3 sizes, got 2}}
// expected-error @+1 {{failed to parse Gemm_ScheduleAttr parameter 'value'}}
gemm.kernel @k problem <64x64x32, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32>

// -----

// expected-error @+2 {{unknown schedule directive 'tcgen05'}}
// expected-error @+1 {{failed to parse Gemm_ScheduleAttr parameter 'value'}}
gemm.kernel @k problem <64x64x32, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1, tcgen05>

// -----

// The whole schedule is checked against the problem by the schedule model.
// expected-error @+1 {{'gemm.kernel' op split-k needs at least 2 splits, got 1}}
gemm.kernel @k problem <64x64x32, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1, split_k = 1>

// -----

// expected-error @+1 {{'gemm.kernel' op A and B must have the same element type (or both be e4m3 or e5m2), got f32 and f16}}
gemm.kernel @k problem <64x64x32, a = f32 row, b = f16 row, c = f32 row, acc = f32> schedule <tile = 32x32x1>

// -----

// expected-error @+2 {{'gemm.kernel' op 'coalesce' cannot be combined with 'mma': mma fixes which lane owns which element}}
// expected-note @+1 {{'mma' is given here}}
gemm.kernel @k problem <64x64x32, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 64x64x16, coalesce, warp_tile = 32x32, promote = [a, b], mma = 16x8x8>

// -----

// expected-error @+1 {{swizzle needs promote and mma, and neither pad nor transpose_a}}
gemm.kernel @k problem <64x64x32, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x8, promote = [a, b], swizzle>

// -----

// expected-error @+1 {{'gemm.kernel' op tile 64x32 needs 2048 threads per block, more than the limit of 1024}}
gemm.kernel @k problem <64x64x32, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 64x32x1>

// -----

// expected-error @+1 {{'gemm.kernel' op tile 8x6 needs 48 threads per block, not a multiple of the warp size 32}}
gemm.kernel @k problem <64x64x32, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 8x6x1>

// -----

func.func @bad_k(%a: memref<32x8xf32>, %b: memref<4x32xf32>, %c: memref<32x32xf32>) {
  // expected-error @+1 {{'gemm.matmul' op B has 4 rows but A has 8 columns}}
  gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<32x8xf32>, memref<4x32xf32>, memref<32x32xf32>
  return
}

// -----

func.func @bad_c(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<16x32xf32>) {
  // expected-error @+1 {{'gemm.matmul' op C must be 32x32, got 16x32}}
  gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<32x8xf32>, memref<8x32xf32>, memref<16x32xf32>
  return
}

// -----

func.func @bad_acc(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) {
  // expected-error @+1 {{'gemm.matmul' op accumulator type must be a floating-point type}}
  gemm.matmul %a, %b, %c {acc_type = i32, level = #gemm<level block>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
  return
}

// -----

// expected-error @+1 {{global_load_b needs vectorize and is 1, 2, 4 or 8}}
func.func @load_b_alone() attributes {gemm.schedule = #gemm.schedule<tile = 64x64x8, promote = [a, b], global_load_b = 4>} {
  return
}

// -----

// expected-error @+1 {{expected M, N, K, B, SM or splits}}
func.func @bad_launch() attributes {gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [Q / 128, M / 64, 1], shared = 0>}

// -----

// expected-error @+1 {{batch must be [count, SA, SB, SC], all positive}}
gemm.kernel @bad_batch problem <64x32x16, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1> batch [2, 0, 512, 2048]

// -----

// expected-error @+2 {{vectorize must have 4 entries, got 2}}
// expected-error @+1 {{failed to parse Gemm_ScheduleAttr parameter 'value'}}
func.func @short_vectorize() attributes {gemm.schedule = #gemm.schedule<tile = 64x64x8, vectorize = [4, 4]>} {
  return
}

// -----

// expected-error @+2 {{expected 'a' or 'b'}}
// expected-error @+1 {{failed to parse Gemm_ScheduleAttr parameter 'value'}}
func.func @promote_c() attributes {gemm.schedule = #gemm.schedule<tile = 64x64x8, promote = [c]>} {
  return
}

// -----

// expected-error @+2 {{expected 'a', 'b' or 'c'}}
// expected-error @+1 {{failed to parse Gemm_ScheduleAttr parameter 'value'}}
func.func @tma_d() attributes {gemm.schedule = #gemm.schedule<tile = 128x256x64, wgmma = 64x256x16, tma = [a, d]>} {
  return
}

// -----


// expected-error @+1 {{cluster sizes must be positive, with persistent}}
gemm.kernel @k problem <1024x1024x1024, a = f16 row, b = f16 row, c = f16 row, acc = f32> schedule <tile = 128x256x64, stages = 2, wgmma = 64x256x16, tma = [a, b], warp_specialize = 2, cluster = 2x1>

// -----

// expected-error @+1 {{tma, warp_specialize, persistent and cluster need wgmma}}
gemm.kernel @k problem <1024x1024x1024, a = f16 row, b = f16 row, c = f16 row, acc = f32> schedule <tile = 128x128x32, persistent, cluster = 2x1>

// -----

// expected-error @+1 {{math = fast_accumulate needs FP8 inputs, got 'f16'}}
gemm.kernel @k problem <64x64x32, a = f16 row, b = f16 col, c = f32 row, acc = f32, math = fast_accumulate> schedule <tile = 32x32x1>
