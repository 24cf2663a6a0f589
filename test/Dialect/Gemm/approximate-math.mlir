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
