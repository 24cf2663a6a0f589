//===- CublasLt.cpp - cuBLASLt as the FP8 baseline, loaded at run time --===//

#include "gemmc-rt/CublasLt.h"
#include "BlasLibrary.h"
#include "gemmc-rt/Cublas.h"

#include <cublasLt.h>

#include <algorithm>
#include <climits>
#include <type_traits>

using namespace gemmc::rt;

#define GEMMC_STR(x) #x
#define GEMMC_XSTR(x) GEMMC_STR(x)

// The outer-vector scale mode (a vector of f32 scales along M for A and
// along N for B) came with cuBLAS 12.9; older headers lack the name.
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120900
#define GEMMC_LT_ROWWISE 1
#else
#define GEMMC_LT_ROWWISE 0
#endif

namespace {
struct LtApi {
#define GEMMC_CUBLASLT_FUNCTIONS(X)                                            \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtGetVersion)                                                        \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)
#define GEMMC_DECLARE(fn) decltype(&::fn) fn = nullptr;
  GEMMC_CUBLASLT_FUNCTIONS(GEMMC_DECLARE)
#undef GEMMC_DECLARE
};
} // namespace

static LtApi &api() {
  static LtApi instance;
  return instance;
}

static void checkLt(cublasStatus_t status, const char *call) {
  blas::check(status, call, api().cublasLtGetStatusString);
}

#define GEMMC_CUBLASLT(call) checkLt((call), #call)

/// Sets attribute `attr` of a matmul descriptor to `value` (an lvalue: the
/// library copies sizeof(value) bytes from its address).
#define GEMMC_LT_SET(desc, attr, value)                                        \
  checkLt(api().cublasLtMatmulDescSetAttribute((desc), (attr), &(value),       \
                                               sizeof(value)),                 \
          "cublasLtMatmulDescSetAttribute(" #attr ")")

/// Everything of a problem's call but the operands' addresses: made once,
/// since the heuristic costs far more than the GEMM at small sizes.
struct CublasLt::Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  /// cuBLASLt's A, B and D: our B, A and C where the call is swapped; its
  /// C is D but for an FP8 D, whose C is bf16 (`layoutC16`).
  cublasLtMatrixLayout_t layoutX = nullptr, layoutY = nullptr,
                         layoutC = nullptr, layoutC16 = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool swap = false;

  Plan() = default;
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;
  ~Plan() {
    for (cublasLtMatrixLayout_t layout : {layoutX, layoutY, layoutC, layoutC16})
      if (layout)
        api().cublasLtMatrixLayoutDestroy(layout);
    if (desc)
      api().cublasLtMatmulDescDestroy(desc);
  }
};

CublasLt::CublasLt() {
  library = blas::openLibrary(
      {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}, "cuBLASLt");
#define GEMMC_LOAD(fn)                                                         \
  blas::lookUp(library, api().fn, GEMMC_XSTR(fn), "cuBLASLt");
  GEMMC_CUBLASLT_FUNCTIONS(GEMMC_LOAD)
#undef GEMMC_LOAD
  libraryVersion = api().cublasLtGetVersion();
  cublasLtHandle_t h = nullptr;
  GEMMC_CUBLASLT(api().cublasLtCreate(&h));
  handle = h;
  workspace = std::make_unique<DeviceBuffer>(kWorkspaceBytes);
}

CublasLt::~CublasLt() {
  // The descriptors go before the handle, both through the loaded library.
  plans.clear();
  if (handle)
    api().cublasLtDestroy(static_cast<cublasLtHandle_t>(handle));
}

bool CublasLt::takes(const Problem &p, std::string &why) {
  if (!isFloat8(p.a) || !isFloat8(p.b)) {
    why = "cuBLASLt baseline is for FP8 (e4m3, e5m2) A and B";
    return false;
  }
  // cuBLASLt's FP8 table has e4m3 x e4m3, e4m3 x e5m2 and e5m2 x e4m3.
  if (p.a == DType::E5M2 && p.b == DType::E5M2) {
    why = "cuBLASLt takes no e5m2 x e5m2 product";
    return false;
  }
  if (p.c != DType::F32 && p.c != DType::F16 && p.c != DType::BF16 &&
      p.c != DType::E4M3) {
    why = "cuBLASLt baseline writes an f32, f16, bf16 or e4m3 C";
    return false;
  }
  // An FP8 D as torch._scaled_mm writes one: per-tensor scales, no bias.
  if (p.c == DType::E4M3 && (p.scales != "tensor" || !p.bias.empty())) {
    why = "cuBLASLt baseline writes an e4m3 C with per-tensor scales and "
          "no bias";
    return false;
  }
  if (p.acc != DType::F32) {
    why = "FP8 accumulates in f32";
    return false;
  }
  if (p.batch != 1) {
    why = "cuBLASLt baseline computes one GEMM, not a batch";
    return false;
  }
  if (p.alpha != 1 || p.beta != 0 || !p.activation.empty() || p.residual) {
    why = "cuBLASLt baseline computes D = scales * A * B (+ bias) only "
          "(alpha = 1, beta = 0, no activation, no R)";
    return false;
  }
  if (!p.bias.empty() && p.c == DType::F32) {
    why = "cuBLASLt baseline adds a bias to a bf16 or f16 C only (as "
          "torch._scaled_mm)";
    return false;
  }
  if (!p.scales.empty() && !isScaleKind(p.scales)) {
    why = "unknown scales '" + p.scales + "'";
    return false;
  }
  if ((p.scales == "rowwise" || p.scales == "block") && !GEMMC_LT_ROWWISE) {
    why = p.scales + " scales need cuBLAS 12.9 headers";
    return false;
  }
  // Seen on an H100 (cuBLASLt 13.0): with block scales its result
  // disagreed with fp64 where K was not a multiple of 128 (28x472x544:
  // 0.56 relative) and where C was column-major (208x152x256: 0.31), and on
  // an H200 where N was not (the schedule fuzzer's seed 38: 384x464x640
  // 0.54, 416x624x256 0.59), the kernels' agreeing; elsewhere it matched
  // them bit for bit. It is not a baseline there.
  if (p.scales == "block" &&
      (p.k % kScaleBlock || p.n % kScaleBlock || p.cLayout != Layout::Row)) {
    why = "cuBLASLt's block scales are used only with N and K multiples of "
          "128 and a row-major C";
    return false;
  }
  // mapToColumnMajor works in int, as does cuBLAS's API.
  for (int64_t extent : {p.m, p.n, p.k, p.ldOfA(), p.ldOfB(), p.ldOfC()})
    if (extent < 1 || extent > INT_MAX) {
      why = "sizes and leading dimensions must lie in 1..2^31-1";
      return false;
    }
  // FP8 is "TN" only: cuBLASLt's A transposed, its B not, so both are
  // K-major. With a row-major C (swapped) its A is our B: transposed iff B
  // is column-major; its B is our A: not transposed iff A is row-major.
  // With a column-major C its A is our A (transposed iff row-major) and
  // its B our B (not transposed iff column-major). Either way: A row-major,
  // B column-major.
  ColumnMajorCall call = mapToColumnMajor(p);
  if (!call.transX || call.transY) {
    why = std::string("cuBLASLt takes FP8 only K-major (\"TN\"): A row-major "
                      "and B column-major, not A ") +
          toString(p.aLayout) + " and B " + toString(p.bLayout);
    return false;
  }
  // Its bias is one value per row of its D: our column's where the call is
  // swapped (a row-major C), our row's where not.
  if (!p.bias.empty() && (p.bias == "col") != call.swap) {
    why = "cuBLASLt adds a bias along its D's rows: a column bias into a "
          "row-major C, or a row bias into a column-major one";
    return false;
  }
  return true;
}

std::string CublasLt::describe(const Problem &p) {
  std::string scales = p.scales.empty() ? "unscaled" : p.scales + " scales";
  // FAST_ACCUM as the problem's math: 0 promotes the tensor cores' partial
  // sums to full FP32 periodically, as our FP8 kernels do by default; 1
  // (math=fast-accumulate) sums on the tensor cores throughout.
  return std::string("cublasLtMatmul (") + toString(p.a) + " x " +
         toString(p.b) + " -> " + toString(p.c) + ", " + scales +
         (p.bias.empty() ? "" : ", " + p.bias + " bias") +
         (p.fastAccumulate ? ", fast accum)" : ", no fast accum)");
}

/// All that a plan depends on; the addresses are not part of it.
static std::string planKey(const Problem &p) {
  std::string key;
  for (int64_t v : {p.m, p.n, p.k, p.ldOfA(), p.ldOfB(), p.ldOfC()})
    key += std::to_string(v) + ",";
  key += std::string(toString(p.a)) + toString(p.aLayout) + "," +
         toString(p.b) + toString(p.bLayout) + "," + toString(p.c) +
         toString(p.cLayout) + "," + p.scales + "," + p.bias +
         (p.fastAccumulate ? ",fast" : "") + (p.outputScale ? ",scale-C" : "");
  return key;
}

/// Points `desc` at the scales of `operands`: cuBLASLt's A's are our B's
/// where the call is swapped.
static void setScalePointers(cublasLtMatmulDesc_t desc, bool swap,
                             const Operands &ops) {
  const void *scaleX =
      reinterpret_cast<const void *>(swap ? ops.scaleB : ops.scaleA);
  const void *scaleY =
      reinterpret_cast<const void *>(swap ? ops.scaleA : ops.scaleB);
  GEMMC_LT_SET(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, scaleX);
  GEMMC_LT_SET(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, scaleY);
}

/// Points `desc` at C's scale in `operands` (cuBLASLt's D scale).
static void setScaleCPointer(cublasLtMatmulDesc_t desc, const Operands &ops) {
  const void *scale = reinterpret_cast<const void *>(ops.scaleC);
  GEMMC_LT_SET(desc, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, scale);
}

/// Points `desc` at the bias of `operands`.
static void setBiasPointer(cublasLtMatmulDesc_t desc, const Operands &ops) {
  const void *bias = reinterpret_cast<const void *>(ops.bias);
  GEMMC_LT_SET(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias);
}

CublasLt::Plan &CublasLt::planFor(const Problem &p, const Operands &ops) {
  std::string key = planKey(p);
  auto found = plans.find(key);
  if (found != plans.end())
    return *found->second;

  std::string why;
  if (!takes(p, why))
    throw CudaError("cublasLtMatmul: " + why);
  if ((p.scales == "rowwise" || p.scales == "block") &&
      libraryVersion < 120900)
    throw CudaError("cublasLtMatmul: " + p.scales +
                    " scales need cuBLASLt 12.9 or later (loaded: " +
                    std::to_string(libraryVersion) + ")");

  auto plan = std::make_unique<Plan>();
  ColumnMajorCall call = mapToColumnMajor(p);
  plan->swap = call.swap;
  GEMMC_CUBLASLT(api().cublasLtMatmulDescCreate(&plan->desc, CUBLAS_COMPUTE_32F,
                                                CUDA_R_32F));
  // TN (takes): cuBLASLt's A is stored k x m and read transposed, its B
  // stored k x n.
  int32_t opX = CUBLAS_OP_T, opY = CUBLAS_OP_N;
  GEMMC_LT_SET(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, opX);
  GEMMC_LT_SET(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, opY);
  int8_t fastAccum = p.fastAccumulate ? 1 : 0;
  GEMMC_LT_SET(plan->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, fastAccum);
#if GEMMC_LT_ROWWISE
  if (p.scales == "rowwise") {
    // A vector along the GEMM's M for its A and along N for its B: with
    // the swap, cuBLASLt's M is our N and its A our B, so it reads our
    // scale_b (N entries) for its A, and our scale_a (M) for its B.
    int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    GEMMC_LT_SET(plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode);
    GEMMC_LT_SET(plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode);
  }
  if (p.scales == "block") {
    // Our A's 1 x 128 blocks (a vector of 128 along K per row) and B's
    // 128 x 128, each for the operand cuBLASLt reads it as.
    int32_t ofA = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    int32_t ofB = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    int32_t modeX = plan->swap ? ofB : ofA, modeY = plan->swap ? ofA : ofB;
    GEMMC_LT_SET(plan->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, modeX);
    GEMMC_LT_SET(plan->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, modeY);
  }
#endif
  if (!p.bias.empty()) {
    // One value per row of its D, of C's type (takes).
    uint32_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    int32_t biasType = blas::toCuda(p.c);
    GEMMC_LT_SET(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue);
    GEMMC_LT_SET(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, biasType);
  }
  // The heuristic sees the descriptor whole, scales and bias included.
  if (!p.scales.empty())
    setScalePointers(plan->desc, plan->swap, ops);
  if (!p.bias.empty())
    setBiasPointer(plan->desc, ops);
  if (p.outputScale)
    setScaleCPointer(plan->desc, ops);

  DType typeX = call.swap ? p.b : p.a, typeY = call.swap ? p.a : p.b;
  GEMMC_CUBLASLT(api().cublasLtMatrixLayoutCreate(
      &plan->layoutX, blas::toCuda(typeX), call.k, call.m, call.ldx));
  GEMMC_CUBLASLT(api().cublasLtMatrixLayoutCreate(
      &plan->layoutY, blas::toCuda(typeY), call.k, call.n, call.ldy));
  GEMMC_CUBLASLT(api().cublasLtMatrixLayoutCreate(
      &plan->layoutC, blas::toCuda(p.c), call.m, call.n, call.ldc));
  if (isFloat8(p.c))
    GEMMC_CUBLASLT(api().cublasLtMatrixLayoutCreate(
        &plan->layoutC16, blas::toCuda(DType::BF16), call.m, call.n, call.ldc));
  cublasLtMatrixLayout_t layoutIn =
      plan->layoutC16 ? plan->layoutC16 : plan->layoutC;

  cublasLtMatmulPreference_t preference = nullptr;
  GEMMC_CUBLASLT(api().cublasLtMatmulPreferenceCreate(&preference));
  std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>,
                  decltype(api().cublasLtMatmulPreferenceDestroy)>
      preferenceOwner(preference, api().cublasLtMatmulPreferenceDestroy);
  uint64_t workspaceBytes = kWorkspaceBytes;
  GEMMC_CUBLASLT(api().cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
      sizeof workspaceBytes));
  // The heuristic's first choice, as cuBLAS itself would run it.
  cublasLtMatmulHeuristicResult_t result{};
  int count = 0;
  cublasStatus_t status = api().cublasLtMatmulAlgoGetHeuristic(
      static_cast<cublasLtHandle_t>(handle), plan->desc, plan->layoutX,
      plan->layoutY, layoutIn, plan->layoutC, preference, 1, &result, &count);
  // NOT_SUPPORTED is how it says "no algorithm" for a configuration.
  bool none = status == CUBLAS_STATUS_NOT_SUPPORTED ||
              (status == CUBLAS_STATUS_SUCCESS &&
               (count == 0 || result.state != CUBLAS_STATUS_SUCCESS));
  if (none)
    throw CudaError("cublasLtMatmulAlgoGetHeuristic: no algorithm for " +
                    describe(p) + " on " + p.str());
  checkLt(status, "cublasLtMatmulAlgoGetHeuristic");
  plan->algo = result.algo;
  return *plans.emplace(key, std::move(plan)).first->second;
}

void CublasLt::scaledGemm(const Problem &p, const Operands &ops,
                          CUstream stream) {
  Plan &plan = planFor(p, ops);
  // The addresses may differ from call to call; the algorithm does not
  // depend on them (cuMemAlloc's 256-byte alignment assumed, as the
  // heuristic's default alignment preference does).
  if (!p.scales.empty())
    setScalePointers(plan.desc, plan.swap, ops);
  if (!p.bias.empty())
    setBiasPointer(plan.desc, ops);
  if (p.outputScale)
    setScaleCPointer(plan.desc, ops);
  // An FP8 D's C apart from it (bf16, unread).
  void *in = reinterpret_cast<void *>(ops.c);
  if (plan.layoutC16) {
    size_t bytes = size_t(p.ldOfC()) * size_t(std::max(p.m, p.n)) * 2;
    if (!bf16C || bf16C->size() < bytes)
      bf16C = std::make_unique<DeviceBuffer>(bytes);
    in = reinterpret_cast<void *>(bf16C->ptr());
  }
  const void *x = reinterpret_cast<const void *>(plan.swap ? ops.b : ops.a);
  const void *y = reinterpret_cast<const void *>(plan.swap ? ops.a : ops.b);
  void *c = reinterpret_cast<void *>(ops.c);
  const float alpha = 1, beta = 0;
  // CUstream and cudaStream_t are the same type (CUstream_st *).
  GEMMC_CUBLASLT(api().cublasLtMatmul(
      static_cast<cublasLtHandle_t>(handle), plan.desc, &alpha, x, plan.layoutX,
      y, plan.layoutY, &beta, in,
      plan.layoutC16 ? plan.layoutC16 : plan.layoutC, c, plan.layoutC,
      &plan.algo, reinterpret_cast<void *>(workspace->ptr()), workspace->size(),
      stream));
}
