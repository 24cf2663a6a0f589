// RUN: gemmc-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-vectorize)))' \
// RUN: | gemmc-opt -cse | FileCheck %s

// A block-cooperative copy of a 64x8 row-major tile in 4-element pieces by 64
// threads: thread t loads pieces t and t + 64 (rows t/2 and 32 + t/2,
// columns (t mod 2) * 4) with 128-bit loads, and stores them transposed,
// element by element.
// CHECK-LABEL: gpu.func @copy_transposed
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c2
// CHECK: %[[POS:.*]] = arith.remui %[[TID]], %c2
// CHECK: %[[COL:.*]] = arith.muli %[[POS]], %c4
// CHECK: %[[V0:.*]] = vector.load %arg0[%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<64x8xf32>, vector<4xf32>
// CHECK: vector.load %arg0{{.*}} {alignment = 16 : i64}
// CHECK: %[[E0:.*]] = vector.extract %[[V0]][0]
// CHECK: memref.store %[[E0]], %arg1[%[[COL]], %[[ROW]]]
// CHECK-COUNT-7: memref.store
gpu.module @m {
  gpu.func @copy_transposed(%src: memref<64x8xf32>, %dst: memref<8x64xf32, #gpu.address_space<workgroup>>) kernel {
    gemm.copy %src to %dst {threads = 64 : i64, transpose, vector = 4 : i64} : memref<64x8xf32> to memref<8x64xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Same orientation: one 128-bit store per piece (shared-store width 4).
// CHECK-LABEL: gpu.func @copy
// CHECK: %[[V:.*]] = vector.load %arg0[%[[R:.*]], %[[C:.*]]] {alignment = 16 : i64}
// CHECK: vector.store %[[V]], %arg1[%[[R]], %[[C]]] {alignment = 16 : i64}
gpu.module @m {
  gpu.func @copy(%src: memref<8x32xf32>, %dst: memref<8x32xf32, #gpu.address_space<workgroup>>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x32x8, vectorize = [4, 4, 4, 4]>} {
    gemm.copy %src to %dst {threads = 64 : i64, vector = 4 : i64} : memref<8x32xf32> to memref<8x32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Fragment reads: contiguous along the vector becomes one vector load; along
// a strided dimension, one load per element. Writes of C are split into
// global-store-wide pieces (2 here).
// CHECK-LABEL: gpu.func @fragments
// CHECK: vector.load %arg0[%arg2, %arg3] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK: memref.load %arg1[%arg2, %arg3]
// CHECK: memref.load %arg1[%{{.*}}, %arg3]
// CHECK-COUNT-2: memref.load %arg1
// CHECK: vector.from_elements {{.*}} : vector<4xf32>
// CHECK: %[[LO:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1]
// CHECK: vector.store %[[LO]], %arg4[%arg2, %arg3] {alignment = 8 : i64} : memref<64x64xf32>, vector<2xf32>
// CHECK: %[[HI:.*]] = vector.shuffle %{{.*}}, %{{.*}} [2, 3]
// CHECK: vector.store %[[HI]], %arg4[%arg2, %{{.*}}] {alignment = 8 : i64}
#rows = affine_map<(d0, d1) -> (d0)>
gpu.module @m {
  gpu.func @fragments(%a: memref<8x64xf32>, %b: memref<64x8xf32>, %i: index, %j: index, %c: memref<64x64xf32>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 64x64x8, vectorize = [4, 4, 4, 2]>} {
    %pad = arith.constant 0.0 : f32
    %x = vector.transfer_read %a[%i, %j], %pad {in_bounds = [true]} : memref<8x64xf32>, vector<4xf32>
    %y = vector.transfer_read %b[%i, %j], %pad {in_bounds = [true], permutation_map = #rows} : memref<64x8xf32>, vector<4xf32>
    %z = arith.addf %x, %y : vector<4xf32>
    vector.transfer_write %z, %c[%i, %j] {in_bounds = [true]} : vector<4xf32>, memref<64x64xf32>
    gpu.return
  }
}

// -----

// mma fragments come from shared memory with ldmatrix: four 8x8 matrices for
// A (lane l addresses row l mod 16 of column block l / 16), two transposed
// for B (lane l addresses row l mod 16), four transposed for two adjacent B
// fragments (laid out as A's).
// CHECK-LABEL: gpu.func @fragments_mma
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[R:.*]] = arith.remui %[[LANE]], %c16
// CHECK: %[[ROW:.*]] = arith.addi %arg2, %[[R]]
// CHECK: %[[HALF:.*]] = arith.divui %[[LANE]], %c16
// CHECK: %[[C8:.*]] = arith.muli %[[HALF]], %c8
// CHECK: %[[COL:.*]] = arith.addi %arg3, %[[C8]]
// CHECK: nvgpu.ldmatrix %arg0[%[[ROW]], %[[COL]]] {numTiles = 4 : i32, transpose = false} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %arg1[%{{.*}}, %arg3] {numTiles = 2 : i32, transpose = true} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: nvgpu.ldmatrix %arg1[%{{.*}}, %[[COL]]] {numTiles = 4 : i32, transpose = true} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
gpu.module @m {
  gpu.func @fragments_mma(%a: memref<32x32xf16, #gpu.address_space<workgroup>>, %b: memref<32x16xf16, #gpu.address_space<workgroup>>, %i: index, %j: index, %out: memref<2xvector<4x2xf16>>, %out2: memref<2xvector<2x2xf16>>) kernel {
    %x = gemm.load_fragment %a[%i, %j] {a} : memref<32x32xf16, #gpu.address_space<workgroup>> to vector<4x2xf16>
    %y = gemm.load_fragment %b[%i, %j] : memref<32x16xf16, #gpu.address_space<workgroup>> to vector<2x2xf16>
    %z = gemm.load_fragment %b[%i, %j] : memref<32x16xf16, #gpu.address_space<workgroup>> to vector<4x2xf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    memref.store %x, %out[%c0] : memref<2xvector<4x2xf16>>
    memref.store %z, %out[%c1] : memref<2xvector<4x2xf16>>
    memref.store %y, %out2[%c0] : memref<2xvector<2x2xf16>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @fragments_global(%a: memref<32x32xf16>, %i: index, %out: memref<2xvector<4x2xf16>>) kernel {
    // expected-error @+1 {{mma fragments are read from shared memory: the schedule must promote A and B}}
    %x = gemm.load_fragment %a[%i, %i] {a} : memref<32x32xf16> to vector<4x2xf16>
    %c0 = arith.constant 0 : index
    memref.store %x, %out[%c0] : memref<2xvector<4x2xf16>>
    gpu.return
  }
}

// -----

// `swizzle`: the 16-byte chunk c of shared row r moves to chunk c xor f(r),
// f(r) = 2 (r mod 4) + (r / 4) mod 2 for B's 16-chunk rows and (r / 2) mod 4
// for A's 4-chunk rows; the copy's stores and ldmatrix's addresses agree.
// CHECK-LABEL: gpu.func @swizzled
// CHECK: %[[R:.*]] = arith.divui %{{.*}}, %c16
// CHECK: %[[C:.*]] = arith.muli %{{.*}}, %c8
// CHECK: %[[LO:.*]] = arith.remui %[[R]], %c4
// CHECK: %[[LO2:.*]] = arith.muli %[[LO]], %c2
// CHECK: %[[HI:.*]] = arith.divui %[[R]], %c4
// CHECK: %[[HI2:.*]] = arith.remui %[[HI]], %c2
// CHECK: %[[F:.*]] = arith.addi %[[LO2]], %[[HI2]]
// CHECK: %[[CH:.*]] = arith.divui %[[C]], %c8
// CHECK: %[[IN:.*]] = arith.remui %[[C]], %c8
// CHECK: %[[X:.*]] = arith.xori %[[CH]], %[[F]]
// CHECK: %[[M:.*]] = arith.muli %[[X]], %c8
// CHECK: %[[COL:.*]] = arith.addi %[[M]], %[[IN]]
// CHECK: memref.store %{{.*}}, %arg1[%[[R]], %[[COL]]]
// CHECK: %[[AROW:.*]] = arith.addi %arg3
// CHECK: %[[ACOL:.*]] = arith.addi %arg4
// CHECK: %[[PAIR:.*]] = arith.divui %[[AROW]], %c2
// CHECK: %[[AF:.*]] = arith.remui %[[PAIR]], %c4
// CHECK: %[[ACH:.*]] = arith.divui %[[ACOL]], %c8
// CHECK: %[[AX:.*]] = arith.xori %[[ACH]], %[[AF]]
// CHECK: nvgpu.ldmatrix %arg2[%[[AROW]], %{{.*}}] {numTiles = 4
// CHECK: %[[BLO:.*]] = arith.remui %[[AROW]], %c4
// CHECK: %[[BLO2:.*]] = arith.muli %[[BLO]], %c2
// CHECK: %[[BHI:.*]] = arith.divui %[[AROW]], %c4
// CHECK: %[[BHI2:.*]] = arith.remui %[[BHI]], %c2
// CHECK: %[[BF:.*]] = arith.addi %[[BLO2]], %[[BHI2]]
// CHECK: %[[BCH:.*]] = arith.divui %arg4, %c8
// CHECK: %[[BX:.*]] = arith.xori %[[BCH]], %[[BF]]
// CHECK: nvgpu.ldmatrix %arg1[%[[AROW]], %{{.*}}] {numTiles = 2
gpu.module @m {
  gpu.func @swizzled(%src: memref<32x128xf16>, %b: memref<32x128xf16, #gpu.address_space<workgroup>>, %a: memref<128x32xf16, #gpu.address_space<workgroup>>, %i: index, %j: index, %out: memref<2xvector<4x2xf16>>, %out2: memref<2xvector<2x2xf16>>) kernel attributes {gemm.schedule = #gemm.schedule<tile = 128x128x32, warp_tile = 64x64, promote = [a, b], swizzle, vectorize = [8, 1, 1, 1], mma = 16x8x16>} {
    gemm.copy %src to %b {threads = 128 : i64, vector = 8 : i64} : memref<32x128xf16> to memref<32x128xf16, #gpu.address_space<workgroup>>
    %x = gemm.load_fragment %a[%i, %j] {a} : memref<128x32xf16, #gpu.address_space<workgroup>> to vector<4x2xf16>
    %y = gemm.load_fragment %b[%i, %j] : memref<32x128xf16, #gpu.address_space<workgroup>> to vector<2x2xf16>
    %c0 = arith.constant 0 : index
    memref.store %x, %out[%c0] : memref<2xvector<4x2xf16>>
    memref.store %y, %out2[%c0] : memref<2xvector<2x2xf16>>
    gpu.return
  }
}

// -----

// tf32 (m16n8k8): A's four 8x4 tiles of 32-bit elements with ldmatrix x4
// (lanes 16-31 four columns on); B with two 32-bit loads per lane, (k, n) =
// (l mod 4, l / 4) and (l mod 4 + 4, l / 4), since ldmatrix transposes only
// 16-bit elements.
// CHECK-LABEL: gpu.func @fragments_tf32
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[HALF:.*]] = arith.divui %[[LANE]], %c16
// CHECK: %[[C4:.*]] = arith.muli %[[HALF]], %c4
// CHECK: %[[COL:.*]] = arith.addi %arg3, %[[C4]]
// CHECK: nvgpu.ldmatrix %arg0[%{{.*}}, %[[COL]]] {numTiles = 4 : i32, transpose = false} : {{.*}} -> vector<4x1xf32>
// CHECK: %[[T:.*]] = arith.remui %[[LANE]], %c4
// CHECK: %[[K:.*]] = arith.addi %arg2, %[[T]]
// CHECK: %[[G:.*]] = arith.divui %[[LANE]], %c4
// CHECK: %[[N:.*]] = arith.addi %arg3, %[[G]]
// CHECK: %[[B0:.*]] = memref.load %arg1[%[[K]], %[[N]]]
// CHECK: %[[K4:.*]] = arith.addi %[[K]], %c4
// CHECK: %[[B1:.*]] = memref.load %arg1[%[[K4]], %[[N]]]
// CHECK: vector.from_elements %[[B0]], %[[B1]] : vector<2x1xf32>
gpu.module @m {
  gpu.func @fragments_tf32(%a: memref<64x16xf32, #gpu.address_space<workgroup>>, %b: memref<16x64xf32, #gpu.address_space<workgroup>>, %i: index, %j: index, %out: memref<2xvector<4x1xf32>>, %out2: memref<2xvector<2x1xf32>>) kernel {
    %x = gemm.load_fragment %a[%i, %j] {a} : memref<64x16xf32, #gpu.address_space<workgroup>> to vector<4x1xf32>
    %y = gemm.load_fragment %b[%i, %j] : memref<16x64xf32, #gpu.address_space<workgroup>> to vector<2x1xf32>
    %c0 = arith.constant 0 : index
    memref.store %x, %out[%c0] : memref<2xvector<4x1xf32>>
    memref.store %y, %out2[%c0] : memref<2xvector<2x1xf32>>
    gpu.return
  }
}
