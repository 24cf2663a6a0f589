// A C++ program that uses gemmc as a library: compiles a schedule (or loads
// PTX), runs it on its own buffers on its own stream (the CUDA runtime
// API's, as an application has them), and compares C with cuBLAS's.
// Without a GPU it checks what needs none (compiling, the contract,
// argument errors) and exits 0. Built twice: `consumer` with gemmc's
// compiler, `consumer-run` with its runtime only (loads PTX; for a machine
// without LLVM).
//
//   consumer SCHEDULE.gemm|KERNEL.ptx [M N K]
//   consumer-run KERNEL.ptx [M N K]

#include <gemmc/gemmc.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    gemmc_status s = (call);                                                   \
    if (s != GEMMC_SUCCESS) {                                                  \
      std::fprintf(stderr, "%s: %s: %s\n", #call, gemmc_status_name(s),        \
                   gemmc_last_error());                                        \
      return 1;                                                                \
    }                                                                          \
  } while (0)

#define CU(call)                                                               \
  do {                                                                         \
    cudaError_t r = (call);                                                    \
    if (r != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(r));   \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static bool expectError(gemmc_status got, gemmc_status want, const char *what) {
  if (got == want && *gemmc_last_error())
    return true;
  std::fprintf(stderr, "%s: expected %s with a message, got %s '%s'\n", what,
               gemmc_status_name(want), gemmc_status_name(got),
               gemmc_last_error());
  return false;
}

/// Eight threads, each on a stream and a C of its own, launch 1,000 times
/// through the shipped f32 family: through a plan of the thread's own
/// problem (A's first 64 + 8t rows) and the one-call gemmc_matmul by turns.
/// Every result is compared with those rows of cuBLAS's C (`ref`, m x n);
/// returns the failures.
static int launchFromThreads(gemmc_module family, const float *dA,
                             const float *dB, const std::vector<float> &ref,
                             int64_t n, int64_t k) {
  constexpr int threads = 8, launches = 1000;
  std::vector<int> failures(threads, 0);
  auto work = [&](int t) {
    int64_t rows = 64 + 8 * t;
    gemmc_problem p;
    gemmc_problem_init(&p, rows, n, k);
    gemmc_plan plan = nullptr;
    cudaStream_t stream = nullptr;
    float *dC = nullptr;
    std::vector<float> c(size_t(rows * n));
    if (gemmc_plan_create(family, &p, &plan) != GEMMC_SUCCESS ||
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) !=
            cudaSuccess ||
        cudaMalloc(&dC, c.size() * 4) != cudaSuccess) {
      std::fprintf(stderr, "thread %d: %s\n", t, gemmc_last_error());
      failures[size_t(t)] = launches;
      return;
    }
    p.a = reinterpret_cast<uint64_t>(dA);
    p.b = reinterpret_cast<uint64_t>(dB);
    p.c = reinterpret_cast<uint64_t>(dC);
    for (int i = 0; i < launches; ++i) {
      gemmc_status s = cudaMemsetAsync(dC, 0xff, c.size() * 4, stream)
                           ? GEMMC_ERROR_CUDA
                       : i % 2 ? gemmc_matmul(GEMMC_F32, GEMMC_ROW, GEMMC_ROW,
                                              GEMMC_ROW, &p, stream)
                               : gemmc_plan_launch(plan, p.a, p.b, p.c, 0,
                                                   stream, 0, 0);
      if (s != GEMMC_SUCCESS ||
          cudaMemcpyAsync(c.data(), dC, c.size() * 4, cudaMemcpyDeviceToHost,
                          stream) != cudaSuccess ||
          cudaStreamSynchronize(stream) != cudaSuccess) {
        std::fprintf(stderr, "thread %d launch %d: %s\n", t, i,
                     gemmc_last_error());
        ++failures[size_t(t)];
        continue;
      }
      for (size_t j = 0; j < c.size(); ++j)
        if (!(std::fabs(c[j] - ref[j]) <= 1e-4f * (1 + std::fabs(ref[j])))) {
          ++failures[size_t(t)];
          break;
        }
    }
    gemmc_plan_destroy(plan);
    cudaFree(dC);
    cudaStreamDestroy(stream);
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(work, t);
  for (std::thread &thread : pool)
    thread.join();
  int failed = 0;
  for (int f : failures)
    failed += f;
  std::printf("%d threads x %d launches on their own streams (plans and "
              "gemmc_matmul): %d failed\n",
              threads, launches, failed);
  return failed;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: consumer SCHEDULE.gemm|KERNEL.ptx [M N K]\n");
    return 2;
  }
  std::string path = argv[1];
  int64_t m = argc == 5 ? std::atoll(argv[2]) : 1000;
  int64_t n = argc == 5 ? std::atoll(argv[3]) : 777;
  int64_t k = argc == 5 ? std::atoll(argv[4]) : 520;

  // Compile (or load the PTX compiled elsewhere: a GPU machine without
  // LLVM).
  gemmc_module module = nullptr;
  if (path.size() > 4 && path.substr(path.size() - 4) == ".ptx") {
    CHECK(gemmc_module_load_file(path.c_str(), &module));
  } else {
#ifdef GEMMC_CONSUMER_RUNTIME_ONLY
    std::fprintf(stderr, "consumer-run loads PTX only\n");
    return 2;
#else
    char *ptx = nullptr;
    CHECK(gemmc_compile_file(path.c_str(), "sm_90", &ptx));
    CHECK(gemmc_module_load(ptx, path.c_str(), &module));
    gemmc_free(ptx);
    // A schedule that does not compile: the diagnostic, not a crash.
    char *bad = nullptr;
    if (!expectError(gemmc_compile("kernel k {\n  problem { m = 0 }\n}\n",
                                   "bad.gemm", nullptr, &bad),
                     GEMMC_ERROR_COMPILE, "a bad schedule"))
      return 1;
    std::printf("a bad schedule: %s\n", gemmc_last_error());
#endif
  }
  gemmc_kernel_info info;
  CHECK(gemmc_module_info(module, &info));
  std::printf("loaded %s: %d variant(s), %s, A %s B %s C %s\n", info.name,
              info.variants, info.arch, info.a == GEMMC_F32 ? "f32" : "16-bit",
              info.b_layout == GEMMC_ROW ? "row" : "col",
              info.c_layout == GEMMC_ROW ? "row" : "col");
  if (info.a != GEMMC_F32 || info.a_layout != GEMMC_ROW ||
      info.b_layout != GEMMC_ROW || info.c_layout != GEMMC_ROW) {
    std::fprintf(stderr, "this program runs f32 row-major kernels\n");
    return 2;
  }

  // Bad use: a null problem, a negative size, a freed handle.
  gemmc_problem p;
  gemmc_problem_init(&p, m, n, k);
  int variant = -1;
  if (!expectError(gemmc_select(module, nullptr, &variant),
                   GEMMC_ERROR_INVALID_ARGUMENT, "a null problem"))
    return 1;
  gemmc_problem negative = p;
  negative.m = -1;
  negative.a = negative.b = negative.c = 1;
  if (!expectError(gemmc_select(module, &negative, &variant),
                   GEMMC_ERROR_INVALID_ARGUMENT, "a negative size"))
    return 1;

  // The families the package installs, found beside its library.
  gemmc_module shipped = nullptr;
  CHECK(gemmc_family_load(GEMMC_F32, GEMMC_ROW, GEMMC_ROW, "sm_90a", &shipped));
  gemmc_kernel_info shippedInfo;
  CHECK(gemmc_module_info(shipped, &shippedInfo));
  std::printf("shipped family %s: %d variants\n", shippedInfo.name,
              shippedInfo.variants);

  // The GPU part.
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    gemmc_module_destroy(module);
    if (!expectError(gemmc_module_destroy(module), GEMMC_ERROR_INVALID_HANDLE,
                     "a destroyed handle"))
      return 1;
    std::printf("no GPU: compiled and checked; the launch is not tested\n");
    return 0;
  }
  CU(cudaSetDevice(0));
  cudaStream_t stream;
  CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // Our own buffers: A (m x k), B (k x n), C (m x n), row-major, dense.
  std::vector<float> a(size_t(m * k)), b(size_t(k * n)), c(size_t(m * n));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (float &x : a)
    x = uniform(rng);
  for (float &x : b)
    x = uniform(rng);
  float *dA, *dB, *dC, *dRef;
  CU(cudaMalloc(&dA, a.size() * 4));
  CU(cudaMalloc(&dB, b.size() * 4));
  CU(cudaMalloc(&dC, c.size() * 4));
  CU(cudaMalloc(&dRef, c.size() * 4));
  CU(cudaMemcpy(dA, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
  CU(cudaMemcpy(dB, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
  CU(cudaMemset(dC, 0xff, c.size() * 4)); // NaN: every entry is written

  p.a = reinterpret_cast<uint64_t>(dA);
  p.b = reinterpret_cast<uint64_t>(dB);
  p.c = reinterpret_cast<uint64_t>(dC);
  CHECK(gemmc_select(module, &p, &variant));
  gemmc_variant_info v;
  CHECK(gemmc_module_variant(module, variant, &v));
  CHECK(gemmc_launch(module, &p, stream));
  CU(cudaStreamSynchronize(stream));

  // The same launch with a workspace of ours (what a CUDA graph captures):
  // the partials any bytes, the counters zero; one too small is refused.
  size_t partialBytes = 0, counterBytes = 0;
  CHECK(gemmc_workspace_size(module, &p, &partialBytes, &counterBytes));
  if (partialBytes) {
    void *partials = nullptr, *counters = nullptr;
    CU(cudaMalloc(&partials, partialBytes));
    CU(cudaMalloc(&counters, counterBytes));
    CU(cudaMemset(counters, 0, counterBytes));
    if (!expectError(gemmc_launch_workspace(
                         module, &p, stream, uint64_t(partials),
                         partialBytes - 1, uint64_t(counters), counterBytes),
                     GEMMC_ERROR_INVALID_ARGUMENT, "a small workspace"))
      return 1;
    std::printf("a small workspace: %s\n", gemmc_last_error());
    CHECK(gemmc_launch_workspace(module, &p, stream, uint64_t(partials),
                                 partialBytes, uint64_t(counters),
                                 counterBytes));
    CU(cudaStreamSynchronize(stream));
    std::printf("split-K with our workspace: %zu bytes of partials, %zu of "
                "counters\n",
                partialBytes, counterBytes);
    CU(cudaFree(partials));
    CU(cudaFree(counters));
  }

  // A host pointer is refused, as is a buffer too small.
  gemmc_problem host = p;
  host.a = reinterpret_cast<uint64_t>(a.data());
  if (!expectError(gemmc_launch(module, &host, stream),
                   GEMMC_ERROR_INVALID_ARGUMENT, "a host pointer"))
    return 1;
  std::printf("a host pointer: %s\n", gemmc_last_error());
  gemmc_problem big = p;
  big.m = m * 2;
  if (!expectError(gemmc_launch(module, &big, stream),
                   GEMMC_ERROR_INVALID_ARGUMENT, "a small buffer"))
    return 1;
  std::printf("a small buffer: %s\n", gemmc_last_error());

  // cuBLAS on the same stream: row-major C = A B is column-major
  // C^T = B^T A^T.
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS ||
      cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS)
    return 1;
  float one = 1, zero = 0;
  if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k),
                  &one, dB, int(n), dA, int(k), &zero, dRef,
                  int(n)) != CUBLAS_STATUS_SUCCESS)
    return 1;
  CU(cudaStreamSynchronize(stream));
  std::vector<float> ref(c.size());
  CU(cudaMemcpy(c.data(), dC, c.size() * 4, cudaMemcpyDeviceToHost));
  CU(cudaMemcpy(ref.data(), dRef, ref.size() * 4, cudaMemcpyDeviceToHost));
  double diff = 0, norm = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    diff += (double(c[i]) - ref[i]) * (double(c[i]) - ref[i]);
    norm += double(ref[i]) * ref[i];
  }
  double rel = std::sqrt(diff / norm);

  // One call through the shipped family, C row-major and column-major.
  double worst = 0;
  for (gemmc_layout layout : {GEMMC_ROW, GEMMC_COL}) {
    CU(cudaMemset(dC, 0xff, c.size() * 4));
    gemmc_problem q = p;
    q.ldc = 0;
    CHECK(gemmc_matmul(GEMMC_F32, GEMMC_ROW, GEMMC_ROW, layout, &q, stream));
    CU(cudaStreamSynchronize(stream));
    CU(cudaMemcpy(c.data(), dC, c.size() * 4, cudaMemcpyDeviceToHost));
    double d = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float got =
            layout == GEMMC_ROW ? c[size_t(i * n + j)] : c[size_t(j * m + i)];
        float want = ref[size_t(i * n + j)];
        d += (double(got) - want) * (double(got) - want);
      }
    worst = std::max(worst, std::sqrt(d / norm));
  }
  std::printf("gemmc_matmul, C row- and column-major: relative error "
              "against cuBLAS %.3g\n",
              worst);
  rel = std::max(rel, worst);

  // The plan of p: a launch checks its addresses' alignment, nothing more.
  gemmc_plan plan = nullptr;
  CHECK(gemmc_plan_create(shipped, &p, &plan));
  if (!expectError(gemmc_plan_launch(plan, p.a + 4, p.b, p.c, 0, stream, 0, 0),
                   GEMMC_ERROR_INVALID_ARGUMENT, "a misaligned A"))
    return 1;
  std::printf("a misaligned A: %s\n", gemmc_last_error());
  CHECK(gemmc_plan_destroy(plan));
  if (m >= 120 && launchFromThreads(shipped, dA, dB, ref, n, k) != 0)
    return 1;
  std::printf("%lldx%lldx%lld on our stream, variant %d (%s): relative "
              "error against cuBLAS %.3g\n",
              (long long)m, (long long)n, (long long)k, variant, v.entry, rel);
  cublasDestroy(handle);
  CHECK(gemmc_module_destroy(module));
  if (!expectError(gemmc_launch(module, &p, stream), GEMMC_ERROR_INVALID_HANDLE,
                   "a destroyed handle"))
    return 1;
  std::printf("a destroyed handle: %s\n", gemmc_last_error());
  if (!(rel < 1e-5)) {
    std::fprintf(stderr, "FAIL: C differs from cuBLAS's\n");
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
