// RUN: gemmc-opt %s -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-register-tile)))' \
// RUN: | gemmc-opt -pass-pipeline='builtin.module(gpu.module(gpu.func(gemm-promote)))' | FileCheck %s

// Two stages of 128x64 tiles of A and 64x128 of B are 128 KB: the buffers are
// views of the dynamic shared memory, B after A, and the launch attribute
// records the size.
// CHECK-LABEL: gpu.func @dynamic
// CHECK-SAME: gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 128, 1], shared = 131072>
// CHECK-NOT: workgroup(
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[DYN]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x128x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[C65536:.*]] = arith.constant 65536 : index
// CHECK: memref.view %[[DYN]][%[[C65536]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x128xf32, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @dynamic(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %c: memref<128x128xf32>) kernel attributes {gemm.launch = #gemm.launch<block = [256, 1, 1], grid = [N / 128, M / 128, 1], shared = 0>, gemm.schedule = #gemm.schedule<tile = 128x128x64, register_tile = 8x8, promote = [a, b], stages = 2>} {
    gemm.matmul %a, %b, %c {acc_type = f32, level = #gemm<level block>} : memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32>
    gpu.return
  }
}
