//===- Cublas.cpp - cuBLAS as the baseline, loaded at run time ----------===//

#include "gemmc-rt/Cublas.h"

#include "BlasLibrary.h"

#include <cublas_v2.h>

using namespace gemmc::rt;

// cublas_v2.h maps names to versioned symbols (cublasCreate ->
// cublasCreate_v2); stringify after macro expansion.
#define GEMMC_STR(x) #x
#define GEMMC_XSTR(x) GEMMC_STR(x)

namespace {
struct CublasApi {
#define GEMMC_CUBLAS_FUNCTIONS(X)                                              \
  X(cublasCreate)                                                              \
  X(cublasDestroy)                                                             \
  X(cublasGetVersion)                                                          \
  X(cublasSetMathMode)                                                         \
  X(cublasSgemm)                                                               \
  X(cublasGetStatusString)
#define GEMMC_DECLARE(fn) decltype(&::fn) fn = nullptr;
  GEMMC_CUBLAS_FUNCTIONS(GEMMC_DECLARE)
#undef GEMMC_DECLARE
  // C++ sees two overloads of cublasGemmEx; this is the C one.
  using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                    cublasOperation_t, int, int, int,
                                    const void *, const void *, cudaDataType,
                                    int, const void *, cudaDataType, int,
                                    const void *, void *, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
  GemmEx cublasGemmEx = nullptr;
  using GemmStridedBatchedEx = cublasStatus_t (*)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
      const void *, const void *, cudaDataType, int, long long, const void *,
      cudaDataType, int, long long, const void *, void *, cudaDataType, int,
      long long, int, cublasComputeType_t, cublasGemmAlgo_t);
  GemmStridedBatchedEx cublasGemmStridedBatchedEx = nullptr;
};
} // namespace

static CublasApi &api() {
  static CublasApi instance;
  return instance;
}

static void check(cublasStatus_t status, const char *call) {
  blas::check(status, call, api().cublasGetStatusString);
}

#define GEMMC_CUBLAS(call) check((call), #call)

Cublas::Cublas() {
  library = blas::openLibrary(
      {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, "cuBLAS");
#define GEMMC_LOAD(fn)                                                         \
  blas::lookUp(library, api().fn, GEMMC_XSTR(fn), "cuBLAS");
  GEMMC_CUBLAS_FUNCTIONS(GEMMC_LOAD)
  GEMMC_LOAD(cublasGemmEx)
  GEMMC_LOAD(cublasGemmStridedBatchedEx)
#undef GEMMC_LOAD
  cublasHandle_t h = nullptr;
  GEMMC_CUBLAS(api().cublasCreate(&h));
  handle = h;
  GEMMC_CUBLAS(api().cublasGetVersion(h, &libraryVersion));
}

Cublas::~Cublas() {
  if (handle)
    api().cublasDestroy(static_cast<cublasHandle_t>(handle));
}

ColumnMajorCall gemmc::rt::mapToColumnMajor(const Problem &p) {
  ColumnMajorCall call;
  int M = int(p.m), N = int(p.n), K = int(p.k);
  if (p.cLayout == Layout::Col) {
    // C = A B. A column-major is A (ld M); row-major is A^T stored
    // column-major (transposed, ld K). Likewise B.
    call.m = M, call.n = N, call.k = K;
    call.transX = p.aLayout == Layout::Row;
    call.ldx = int(p.ldOfA());
    call.transY = p.bLayout == Layout::Row;
    call.ldy = int(p.ldOfB());
    call.ldc = int(p.ldOfC());
    return call;
  }
  // C row-major is C^T column-major: C^T = B^T A^T. A row-major B is B^T
  // stored column-major (ld N); a column-major one must be transposed.
  call.swap = true;
  call.m = N, call.n = M, call.k = K;
  call.transX = p.bLayout == Layout::Col;
  call.ldx = int(p.ldOfB());
  call.transY = p.aLayout == Layout::Col;
  call.ldy = int(p.ldOfA());
  call.ldc = int(p.ldOfC());
  return call;
}

std::string Cublas::describe(const Problem &p, MathMode math) {
  if (p.batch > 1)
    return std::string("cublasGemmStridedBatchedEx (") + toString(p.a) +
           (p.a == DType::F32 && math == MathMode::TF32 ? ", FAST_TF32)"
                                                        : ", COMPUTE_32F)");
  if (p.a == DType::F32 && math == MathMode::Exact)
    return "cublasSgemm (FP32, no TF32)";
  if (p.a == DType::F32)
    return "cublasGemmEx (CUBLAS_COMPUTE_32F_FAST_TF32)";
  return std::string("cublasGemmEx (") + toString(p.a) +
         " inputs, CUBLAS_COMPUTE_32F)";
}

bool Cublas::takes(const Problem &p, std::string &why) {
  if (p.a != p.b) {
    why = std::string("cuBLAS takes no ") + toString(p.a) + " x " +
          toString(p.b) + " product";
    return false;
  }
  bool sixteen = p.a == DType::F16 || p.a == DType::BF16;
  if (p.a != DType::F32 && !sixteen) {
    why = std::string("cuBLAS's GEMMs take no ") + toString(p.a) + " inputs";
    return false;
  }
  if (p.c != p.a && !(sixteen && p.c == DType::F32)) {
    why = std::string("cuBLAS writes no ") + toString(p.c) + " C from " +
          toString(p.a) + " inputs";
    return false;
  }
  return true;
}

void Cublas::gemm(const Problem &p, MathMode math, const Operands &ops) {
  auto h = static_cast<cublasHandle_t>(handle);
  ColumnMajorCall call = mapToColumnMajor(p);
  cublasOperation_t opX = call.transX ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opY = call.transY ? CUBLAS_OP_T : CUBLAS_OP_N;
  const void *x = reinterpret_cast<const void *>(call.swap ? ops.b : ops.a);
  const void *y = reinterpret_cast<const void *>(call.swap ? ops.a : ops.b);
  void *c = reinterpret_cast<void *>(ops.c);
  const float alpha = p.alpha, beta = p.beta;
  if (p.batch > 1) {
    // One strided-batched call; plain FP32 math for exact f32.
    GEMMC_CUBLAS(api().cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    cublasComputeType_t compute = p.a == DType::F32 && math == MathMode::TF32
                                      ? CUBLAS_COMPUTE_32F_FAST_TF32
                                      : CUBLAS_COMPUTE_32F;
    DType xType = call.swap ? p.b : p.a, yType = call.swap ? p.a : p.b;
    long long strideX = call.swap ? p.strideOfB() : p.strideOfA();
    long long strideY = call.swap ? p.strideOfA() : p.strideOfB();
    GEMMC_CUBLAS(api().cublasGemmStridedBatchedEx(
        h, opX, opY, call.m, call.n, call.k, &alpha, x, blas::toCuda(xType),
        call.ldx, strideX, y, blas::toCuda(yType), call.ldy, strideY, &beta, c,
        blas::toCuda(p.c), call.ldc, p.strideOfC(), int(p.batch), compute,
        CUBLAS_GEMM_DEFAULT));
    return;
  }
  if (p.a == DType::F32 && math == MathMode::Exact) {
    GEMMC_CUBLAS(api().cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    GEMMC_CUBLAS(api().cublasSgemm(h, opX, opY, call.m, call.n, call.k, &alpha,
                                   static_cast<const float *>(x), call.ldx,
                                   static_cast<const float *>(y), call.ldy,
                                   &beta, static_cast<float *>(c), call.ldc));
    return;
  }
  cublasComputeType_t compute =
      p.a == DType::F32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  DType xType = call.swap ? p.b : p.a, yType = call.swap ? p.a : p.b;
  GEMMC_CUBLAS(api().cublasGemmEx(
      h, opX, opY, call.m, call.n, call.k, &alpha, x, blas::toCuda(xType),
      call.ldx, y, blas::toCuda(yType), call.ldy, &beta, c, blas::toCuda(p.c),
      call.ldc, compute, CUBLAS_GEMM_DEFAULT));
}
