// RUN: gemmc-opt %s -gemm-approximate-math | FileCheck %s

// The epilogue's activations (GELU's erf, the tanh of GELU's tanh form
// and of SiLU) become polynomials of arith ops and llvm.intr.fma, the
// absolute value a mask of the sign bit: no math op is left for the
// conversion to call libdevice for.
// CHECK-LABEL: func.func @activations
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK-NOT: math.absf
// CHECK: llvm.intr.fma
// CHECK: arith.andi %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK-NOT: math.
// CHECK: return
func.func @activations(%x: f32, %v: vector<2xf32>) -> (f32, f32, vector<2xf32>) {
  %0 = math.erf %x : f32
  %1 = math.tanh %x : f32
  %2 = math.tanh %v : vector<2xf32>
  return %0, %1, %2 : f32, f32, vector<2xf32>
}

// A tanh marked `afn` (the epilogue's where C has 16 bits or fewer) becomes
// LLVM's intrinsic with `afn`, which NVPTX selects as tanh.approx.f32; the
// others stay polynomials.
// CHECK-LABEL: func.func @approximate_tanh
// CHECK: llvm.intr.tanh(%{{.*}}) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK: llvm.intr.tanh(%{{.*}}) {fastmathFlags = #llvm.fastmath<afn>} : (vector<4xf32>) -> vector<4xf32>
// CHECK-NOT: math.tanh
// CHECK: llvm.intr.fma
// CHECK-NOT: llvm.intr.tanh
// CHECK: return
func.func @approximate_tanh(%x: f32, %v: vector<4xf32>) -> (f32, vector<4xf32>, f32) {
  %0 = math.tanh %x fastmath<afn> : f32
  %1 = math.tanh %v fastmath<afn> : vector<4xf32>
  %2 = math.tanh %x : f32
  return %0, %1, %2 : f32, vector<4xf32>, f32
}
