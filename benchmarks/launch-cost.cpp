// The host's cost of a launch through the C API, beside its pieces: a plan's
// launch (gemmc_plan_launch), gemmc_launch (which also asks the driver
// about each pointer), one tensor map's encoding, an event record and a
// context query, each the mean of 20,000 calls on a stream of its own
// (issue 31; docs/library.md, "Plans"). Where a kernel takes longer than a
// launch, the loop is the GPU's (the launch queue fills), not the host's.
//   c++ -O2 -std=c++17 benchmarks/launch-cost.cpp -Iinclude \
//     -I/usr/local/cuda/include -Lbuild/lib -lgemmc_runtime \
//     -L/usr/local/cuda/lib64/stubs -lcuda -o launch-cost
//   LD_LIBRARY_PATH=build/lib ./launch-cost

#include <gemmc/gemmc.h>

#include <cuda.h>

#include <chrono>
#include <cstdio>

static double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// The mean host time of `calls` calls of `fn`, in microseconds.
template <typename Fn> static double perCall(int calls, Fn fn) {
  double start = seconds();
  for (int i = 0; i < calls; ++i)
    fn();
  return (seconds() - start) / calls * 1e6;
}

int main() {
  CUdevice device;
  CUcontext context;
  if (cuInit(0) || cuDeviceGet(&device, 0) ||
      cuDevicePrimaryCtxRetain(&context, device) || cuCtxSetCurrent(context)) {
    std::fprintf(stderr, "no GPU\n");
    return 1;
  }
  struct Case {
    gemmc_dtype type;
    int64_t m, n, k;
    size_t bytes; // an element's
  } cases[] = {{GEMMC_F16, 64, 64, 64, 2},
               {GEMMC_F16, 1, 4096, 4096, 2},
               {GEMMC_F32, 64, 64, 64, 4}};
  constexpr int calls = 20000;
  for (const Case &c : cases) {
    gemmc_module family;
    if (gemmc_family_load(c.type, GEMMC_ROW, GEMMC_ROW, nullptr, &family)) {
      std::fprintf(stderr, "%s\n", gemmc_last_error());
      return 1;
    }
    gemmc_problem p;
    gemmc_problem_init(&p, c.m, c.n, c.k);
    CUdeviceptr a, b, cc;
    cuMemAlloc(&a, size_t(c.m * c.k) * c.bytes);
    cuMemAlloc(&b, size_t(c.k * c.n) * c.bytes);
    cuMemAlloc(&cc, size_t(c.m * c.n) * c.bytes);
    p.a = a;
    p.b = b;
    p.c = cc;
    gemmc_plan plan;
    int variant;
    gemmc_variant_info info;
    if (gemmc_plan_create(family, &p, &plan) ||
        gemmc_select(family, &p, &variant) ||
        gemmc_module_variant(family, variant, &info)) {
      std::fprintf(stderr, "%s\n", gemmc_last_error());
      return 1;
    }
    CUstream stream;
    cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
    auto planLaunch = [&] {
      gemmc_plan_launch(plan, a, b, cc, 0, stream, 0, 0);
    };
    perCall(100, planLaunch); // warm-up
    cuStreamSynchronize(stream);
    double planUs = perCall(calls, planLaunch);
    cuStreamSynchronize(stream);
    double launchUs = perCall(calls, [&] { gemmc_launch(family, &p, stream); });
    cuStreamSynchronize(stream);
    // A tensor map of A as a TMA kernel's launch encodes it.
    CUtensorMap map;
    cuuint64_t dims[2] = {cuuint64_t(c.k), cuuint64_t(c.m)};
    cuuint64_t strides[1] = {cuuint64_t(c.k) * c.bytes};
    cuuint32_t box[2] = {64, 64}, elementStrides[2] = {1, 1};
    double mapUs = perCall(calls, [&] {
      cuTensorMapEncodeTiled(
          &map,
          c.bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                       : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
          2, reinterpret_cast<void *>(a), dims, strides, box, elementStrides,
          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
          CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    });
    CUevent event;
    cuEventCreate(&event, CU_EVENT_DISABLE_TIMING);
    double eventUs = perCall(calls, [&] { cuEventRecord(event, stream); });
    CUcontext current;
    double contextUs = perCall(calls, [&] { cuCtxGetCurrent(&current); });
    cuStreamSynchronize(stream);
    std::printf("%lldx%lldx%lld %s (%s, %u threads, %lld B smem): plan "
                "launch %.2f us, gemmc_launch %.2f us, one tensor map %.2f "
                "us, event record %.2f us, ctx get %.3f us\n",
                (long long)c.m, (long long)c.n, (long long)c.k,
                c.bytes == 2 ? "f16" : "f32", info.entry, info.block_threads,
                (long long)info.shared_bytes, planUs, launchUs, mapUs, eventUs,
                contextUs);
    gemmc_plan_destroy(plan);
    cuEventDestroy(event);
    cuStreamDestroy(stream);
    cuMemFree(a);
    cuMemFree(b);
    cuMemFree(cc);
  }
  return 0;
}
