// RUN: gemmc-opt %s -split-input-file -verify-diagnostics
//
// The attributes the gemm dialect puts on other ops are declared by the
// dialect and verified by it (GemmDialect::verifyOperationAttribute).

// expected-error @+1 {{unknown gemm dialect attribute 'gemm.schedules'}}
func.func @unknown() attributes {gemm.schedules = #gemm.schedule<tile = 32x32x1>} {
  return
}

// -----

// expected-error @+1 {{'gemm.schedule' must be a #gemm.schedule on a function}}
func.func @wrong_kind() attributes {gemm.schedule = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 64, 1], shared = 0>} {
  return
}

// -----

// expected-error @+1 {{'gemm.bias' must be "row" or "col" on a function}}
func.func @bias() attributes {gemm.bias = "diagonal"} {
  return
}

// -----

// expected-error @+1 {{'gemm.batch' must be [count, SA, SB, SC] on a function}}
func.func @batch() attributes {gemm.batch = array<i64: 2, 512>} {
  return
}

// -----

func.func @marker_on_constant() {
  // expected-error @+1 {{'gemm.k_loop' must be a unit attribute on a loop}}
  %c0 = arith.constant {gemm.k_loop} 0 : index
  return
}

// -----

func.func @stage_on_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gemm.stage' must be a unit attribute on a constant}}
  scf.for %i = %c0 to %n step %c1 {
  } {gemm.stage}
  return
}

// -----

func.func @warp_view_on_constant() {
  // expected-error @+1 {{'gemm.warp_view' must be a unit attribute on a view}}
  %c0 = arith.constant {gemm.warp_view} 0 : index
  return
}

// -----

// The markers on the ops the passes put them on.
func.func @markers(%m: memref<64x64xf32>, %n: index) attributes {gemm.tails, gemm.schedule = #gemm.schedule<tile = 32x32x1>} {
  %c0 = arith.constant {gemm.stage} 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.subview %m[0, 0] [32, 32] [1, 1] {gemm.warp_view} : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1]>>
  scf.for %i = %c0 to %n step %c1 {
  } {gemm.k_loop, gemm.inner_k, gemm.k_tiles}
  return
}

// -----

// expected-error @+1 {{'gemm.scales' must be "tensor", "rowwise" or "block" on a function}}
func.func @scales() attributes {gemm.scales = "blockwise"} {
  return
}
