// RUN: gemmc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-register-tile)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// A warp's 32x32 tile in 8x4 register tiles (4 x 8 lanes): a thread's 8 rows
// are two 4-row chunks 16 apart (shared-load width 4), its 4 columns one
// chunk; 8 vector<4> accumulators carried by the loop over K.
// CHECK-LABEL: gpu.func @tile
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[LROW:.*]] = arith.divui %[[LANE]], %c8
// CHECK: %[[LCOL:.*]] = arith.remui %[[LANE]], %c8
// CHECK: %[[ACC:.*]]:8 = scf.for %[[K:.*]] = %c0 to %c8 step %c1 iter_args({{.*}}) -> (vector<4xf32>, {{.*}}) {
// CHECK:   %[[A0:.*]] = vector.transfer_read %arg0[%[[ROW:[0-9]+]], %[[K]]]{{.*}}permutation_map = #[[ALONG_ROWS:.*]]} : memref<32x8xf32>, vector<4xf32>
// CHECK:   %[[ROW16:.*]] = arith.addi %[[ROW]], %c16
// CHECK:   %[[A1:.*]] = vector.transfer_read %arg0[%[[ROW16]], %[[K]]]
// CHECK:   %[[B:.*]] = vector.transfer_read %arg1[%[[K]], %[[COL:[0-9]+]]]{{.*}} : memref<8x32xf32>, vector<4xf32>
// CHECK:   %[[A00:.*]] = vector.extract %[[A0]][0]
// CHECK:   %[[S:.*]] = vector.broadcast %[[A00]] : f32 to vector<4xf32>
// CHECK:   vector.fma %[[S]], %[[B]], %{{.*}} : vector<4xf32>
// CHECK-COUNT-7: vector.fma
// CHECK: } {gemm.k_loop}
// CHECK: vector.transfer_write %[[ACC]]#0, %arg2[%[[ROW]], %[[COL]]]
// CHECK-COUNT-7: vector.transfer_write
gpu.module @m {
  gpu.func @tile(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, register_tile = 8x4, warp_tile = 32x32, vectorize = [4, 4, 4, 4]>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @lanes(%a: memref<32x8xf32>, %b: memref<8x32xf32>, %c: memref<32x32xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, register_tile = 8x8, warp_tile = 32x32>} {
    // expected-error @+1 {{a 32x32 tile of 8x8 register tiles does not match the 32 lanes of a warp}}
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level warp>} : memref<32x8xf32>, memref<8x32xf32>, memref<32x32xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @f16(%a: memref<64x8xf16>, %b: memref<8x32xf16>, %c: memref<64x32xf16>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, register_tile = 8x4>} {
    // expected-error @+1 {{register tiles of f32 only are implemented}}
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<64x8xf16>, memref<8x32xf16>, memref<64x32xf16>
    gpu.return
  }
}
