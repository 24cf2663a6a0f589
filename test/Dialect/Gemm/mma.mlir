// RUN: gemmc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-mma)))' | FileCheck %s

// A 32x16 warp tile: 2 x 2 fragments of 16x8, f32 accumulators carried by the
// loop over K in steps of 16; per step two A fragments, the two B fragments
// in one load of their 16x16 tile (rows 0-1 the first, 2-3 the second) and
// four mma.sync; then each lane writes two pairs per fragment, as f16.
// CHECK-LABEL: gpu.func @warp
// CHECK: %[[ACC:.*]]:4 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c16{{.*}} -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
// CHECK:   %[[A0:.*]] = gemm.load_fragment %arg0[%{{.*}}, %[[K]]] {a} : memref<32x32xf16> to vector<4x2xf16>
// CHECK:   %[[A1:.*]] = gemm.load_fragment %arg0
// CHECK:   %[[BB:.*]] = gemm.load_fragment %arg1[%[[K]], %{{.*}}] : memref<32x16xf16> to vector<4x2xf16>
// CHECK:   %[[R0:.*]] = vector.extract %[[BB]][0]
// CHECK:   %[[H0:.*]] = vector.insert %[[R0]], %{{.*}} [0]
// CHECK:   %[[R1:.*]] = vector.extract %[[BB]][1]
// CHECK:   %[[B0:.*]] = vector.insert %[[R1]], %[[H0]] [1]
// CHECK:   %[[R2:.*]] = vector.extract %[[BB]][2]
// CHECK:   %[[H1:.*]] = vector.insert %[[R2]], %{{.*}} [0]
// CHECK:   %[[R3:.*]] = vector.extract %[[BB]][3]
// CHECK:   %[[B1:.*]] = vector.insert %[[R3]], %[[H1]] [1]
// CHECK:   nvgpu.mma.sync(%[[A0]], %[[B0]], %{{.*}}) {mmaShape = [16, 8, 16]}
// CHECK:   nvgpu.mma.sync(%[[A0]], %[[B1]]
// CHECK:   nvgpu.mma.sync(%[[A1]], %[[B0]]
// CHECK:   nvgpu.mma.sync(%[[A1]], %[[B1]]
// CHECK: } {gemm.k_loop}
// CHECK: %[[PAIR:.*]] = vector.extract %[[ACC]]#0[0] : vector<2xf32> from vector<2x2xf32>
// CHECK: %[[HALF:.*]] = arith.truncf %[[PAIR]] : vector<2xf32> to vector<2xf16>
// CHECK: vector.transfer_write %[[HALF]], %arg2
// CHECK-COUNT-7: vector.transfer_write
gpu.module @m {
  gpu.func @warp(%a: memref<32x32xf16>, %b: memref<32x16xf16>, %c: memref<32x16xf16>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x32, warp_tile = 32x16, promote = [a, b], mma = 16x8x16>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<32x32xf16>, memref<32x16xf16>, memref<32x16xf16>
    gpu.return
  }
}

// -----

// bf16: nvvm.mma.sync on the fragments packed two to an i32.
// CHECK-LABEL: gpu.func @bf16
// CHECK: %[[A:.*]] = gemm.load_fragment %arg0{{.*}} to vector<4x2xbf16>
// CHECK: %[[B:.*]] = gemm.load_fragment %arg1{{.*}} to vector<2x2xbf16>
// CHECK: %[[ROW:.*]] = vector.extract %[[A]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK: vector.bitcast %[[ROW]] : vector<2xbf16> to vector<1xi32>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
gpu.module @m {
  gpu.func @bf16(%a: memref<16x16xbf16>, %b: memref<16x8xbf16>, %c: memref<16x8xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x16, warp_tile = 16x8, promote = [a, b], mma = 16x8x16>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<16x16xbf16>, memref<16x8xbf16>, memref<16x8xf32>
    gpu.return
  }
}

// -----

// f32 inputs in tf32: m16n8k8, 4x1 fragments of A and 2x1 of B, K steps of 8.
// CHECK-LABEL: gpu.func @tf32
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c8
// CHECK: %[[A:.*]] = gemm.load_fragment %arg0[%{{.*}}, %[[K]]] {a} : memref<32x32xf32> to vector<4x1xf32>
// CHECK: %[[B:.*]] = gemm.load_fragment %arg1[%[[K]], %{{.*}}] : memref<32x16xf32> to vector<2x1xf32>
// CHECK: nvgpu.mma.sync(%[[A]], %[[B]], %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
gpu.module @m {
  gpu.func @tf32(%a: memref<32x32xf32>, %b: memref<32x16xf32>, %c: memref<32x16xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x32, warp_tile = 32x16, promote = [a, b], mma = 16x8x8>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<32x32xf32>, memref<32x16xf32>, memref<32x16xf32>
    gpu.return
  }
}

// -----

// tf32x3 (the kernel's problem says `math = tf32x3`): each fragment is split
// into its tf32 part (rounded: + 0x1000, the low 13 bits cleared) and the
// rounded remainder; per step a pair's three products are summed from zero,
// small ones first, and the sum is added to the accumulator in f32.
// CHECK-LABEL: gpu.func @tf32x3
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK: scf.for
// CHECK: %[[A:.*]] = gemm.load_fragment %arg0{{.*}} to vector<4x1xf32>
// CHECK: %[[X:.*]] = vector.extract %[[A]][0, 0]
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[UP:.*]] = arith.addi %[[BITS]], %c4096_i32
// CHECK: %[[HIGH:.*]] = arith.andi %[[UP]], %c-8192_i32
// CHECK: %[[BIG:.*]] = arith.bitcast %[[HIGH]] : i32 to f32
// CHECK: arith.subf %[[X]], %[[BIG]] : f32
// CHECK: %[[S1:.*]] = nvgpu.mma.sync(%[[ASMALL:.*]], %[[BBIG:.*]], %[[ZERO]]) {mmaShape = [16, 8, 8], tf32Enabled}
// CHECK: %[[S2:.*]] = nvgpu.mma.sync(%[[ABIG:.*]], %[[BSMALL:.*]], %[[S1]])
// CHECK: %[[S3:.*]] = nvgpu.mma.sync(%[[ABIG]], %[[BBIG]], %[[S2]])
// CHECK: arith.addf %{{.*}}, %[[S3]] : vector<2x2xf32>
// CHECK-COUNT-9: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: scf.yield
gpu.module @m {
  gpu.func @tf32x3(%a: memref<32x32xf32>, %b: memref<32x16xf32>, %c: memref<32x16xf32>) kernel attributes {gemm.problem = #gemm.problem<32x16x32, a = f32 row, b = f32 row, c = f32 row, acc = f32, math = tf32x3>, gemm.schedule = #gemm.schedule<tile = 64x32x32, warp_tile = 32x16, promote = [a, b], mma = 16x8x8>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<32x32xf32>, memref<32x16xf32>, memref<32x16xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @f32(%a: memref<32x32xf32>, %b: memref<32x16xf32>, %c: memref<32x16xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x32, warp_tile = 32x16, promote = [a, b], mma = 16x8x16>} {
    // expected-error @+1 {{mma m16n8k16 does not match 'f32' inputs (m16n8k16 for f16 and bf16, m16n8k8 for tf32)}}
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<32x32xf32>, memref<32x16xf32>, memref<32x16xf32>
    gpu.return
  }
}

// -----

// A tf32x3 kernel's warp-level matmul on f16 tiles (the problem attribute
// allows tf32x3 with f32 inputs only; hand-written IR can disagree).
gpu.module @m {
  gpu.func @tf32x3_f16(%a: memref<32x32xf16>, %b: memref<32x16xf16>, %c: memref<32x16xf32>) kernel attributes {gemm.problem = #gemm.problem<32x16x32, a = f32 row, b = f32 row, c = f32 row, acc = f32, math = tf32x3>, gemm.schedule = #gemm.schedule<tile = 64x32x32, warp_tile = 32x16, promote = [a, b], mma = 16x8x16>} {
    // expected-error @+1 {{tf32x3 takes f32 A and B}}
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<32x32xf16>, memref<32x16xf16>, memref<32x16xf32>
    gpu.return
  }
}

// -----

// `gemm.alpha_beta` (epilogue = alpha-beta, arguments 3 and 4): one branch
// on beta != 0 around the stores of C. Where beta is not 0, the lane's pairs
// of C are read first (element by element, as the schedule stores C: no
// `global-store` width), then each becomes alpha * acc + beta * C; where it
// is 0, C is not read: alpha * acc.
// CHECK-LABEL: gpu.func @epilogue
// CHECK: %[[ACC:.*]] = scf.for
// CHECK: %[[READS:.*]] = arith.cmpf une, %arg4, %{{.*}} : f32
// CHECK: scf.if %[[READS]] {
// CHECK:   %[[LO:.*]] = vector.transfer_read %arg2{{.*}} vector<1xf16>
// CHECK:   %[[HI:.*]] = vector.transfer_read %arg2{{.*}} vector<1xf16>
// CHECK:   %[[OLD0:.*]] = vector.shuffle %[[LO]], %[[HI]] [0, 1]
// CHECK:   %[[OLD0F:.*]] = arith.extf %[[OLD0]]
// CHECK:   vector.transfer_read %arg2
// CHECK:   %[[PAIR:.*]] = vector.extract %[[ACC]][0]
// CHECK:   %[[ALPHA:.*]] = vector.broadcast %arg3 : f32 to vector<2xf32>
// CHECK:   %[[SCALED:.*]] = arith.mulf %[[ALPHA]], %[[PAIR]]
// CHECK:   %[[BETA:.*]] = vector.broadcast %arg4
// CHECK:   %[[TERM:.*]] = arith.mulf %[[BETA]], %[[OLD0F]]
// CHECK:   %[[SUM:.*]] = arith.addf %[[TERM]], %[[SCALED]]
// CHECK:   %[[HALF:.*]] = arith.truncf %[[SUM]]
// CHECK:   vector.transfer_write %[[HALF]], %arg2
// CHECK: } else {
// CHECK-NOT: vector.transfer_read
// CHECK:   %[[EPAIR:.*]] = vector.extract %[[ACC]][0]
// CHECK:   %[[EALPHA:.*]] = vector.broadcast %arg3
// CHECK:   %[[ESCALED:.*]] = arith.mulf %[[EALPHA]], %[[EPAIR]]
// CHECK:   %[[EHALF:.*]] = arith.truncf %[[ESCALED]]
// CHECK:   vector.transfer_write %[[EHALF]], %arg2
// CHECK: gpu.return
gpu.module @m {
  gpu.func @epilogue(%a: memref<16x16xf16>, %b: memref<16x8xf16>, %c: memref<16x8xf16>, %alpha: f32, %beta: f32) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x16, warp_tile = 16x8, promote = [a, b], mma = 16x8x16>, gemm.alpha_beta} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<16x16xf16>, memref<16x8xf16>, memref<16x8xf16>
    gpu.return
  }
}

// -----

// A per-column bias (`gemm.bias = "col"`, the last argument, 1 x N) and
// ReLU: each pair adds the bias at its columns of the matrix, then clamps.
// CHECK-LABEL: gpu.func @bias_relu
// CHECK: %[[ACC:.*]] = scf.for
// CHECK: %[[COL:.*]] = arith.muli
// CHECK: %[[PAIR:.*]] = vector.extract %[[ACC]][0]
// CHECK: %[[BIAS:.*]] = vector.transfer_read %arg3[%{{.*}}, %[[COL]]]
// CHECK: %[[BIAS32:.*]] = arith.extf %[[BIAS]]
// CHECK: %[[SUM:.*]] = arith.addf %[[PAIR]], %[[BIAS32]]
// CHECK: %[[ZERO:.*]] = vector.broadcast
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]], %[[ZERO]]
// CHECK: %[[HALF:.*]] = arith.truncf %[[RELU]]
// CHECK: vector.transfer_write %[[HALF]], %arg2
gpu.module @m {
  gpu.func @bias_relu(%a: memref<16x16xf16>, %b: memref<16x8xf16>, %c: memref<16x8xf16>, %bias: memref<1x8xf16>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 32x32x16, warp_tile = 16x8, promote = [a, b], mma = 16x8x16>, gemm.bias = "col", gemm.activation = "relu"} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<16x16xf16>, memref<16x8xf16>, memref<16x8xf16>
    gpu.return
  }
}
