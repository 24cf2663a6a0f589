// RUN: gemmc-opt %s -gemmc-to-nvvm='chip=sm_80' | FileCheck %s
// RUN: gemmc-opt %s -gemmc-schedule-to-gpu | FileCheck %s --check-prefix=GPU

// The schedule pipeline leaves a gpu.func with scf/memref/arith only.
// GPU: gpu.func @sgemm
// GPU-NOT: gemm.matmul
// GPU: scf.for

// The whole pipeline ends in the llvm and nvvm dialects, with the target that
// serializes to PTX attached and bare-pointer kernel arguments.
// CHECK: gpu.module @sgemm_module [#nvvm.target<O = 3, chip = "sm_80">]
// CHECK: llvm.func @sgemm(%{{.*}}: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias}, %{{.*}}: !llvm.ptr {{.*}}, %{{.*}}: !llvm.ptr {{.*}}) attributes {{{.*}}gpu.kernel{{.*}}nvvm.kernel
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.x
// CHECK-DAG: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.fmul {{.*}} {fastmathFlags = #llvm.fastmath<contract>}
// CHECK-NOT: memref.
// CHECK-NOT: scf.
gemm.kernel @sgemm problem <64x64x16, a = f32 row, b = f32 row, c = f32 row, acc = f32> schedule <tile = 32x32x1, coalesce>
