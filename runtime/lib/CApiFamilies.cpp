//===- CApiFamilies.cpp - the C API's shipped families --------------------===//
//
// gemmc_family_load, gemmc_batched_family_load, gemmc_grouped_family_load,
// gemmc_grouped_table_family_load and gemmc_scaled_family_load find the families gemmc ships; gemmc_matmul
// and gemmc_scaled_matmul run a problem on them in one call, a batch in one
// launch of the batched family where gemmc_prefer_batched says so. Built on
// the rest of the C API (CApi.cpp).
//
//===----------------------------------------------------------------------===//

#include "CApiInternal.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

using namespace gemmc::rt;
using namespace gemmc::rt::capi_internal;

//===----------------------------------------------------------------------===//
// The families gemmc ships
//===----------------------------------------------------------------------===//

/// The folder of the shipped families: $GEMMC_FAMILY_DIR, else
/// share/gemmc/families beside the folder (lib/ or bin/) of the library or
/// program this code is in: installed, and in the build tree alike.
static std::string familyDirectory() {
  if (const char *dir = std::getenv("GEMMC_FAMILY_DIR"))
    return dir;
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&familyDirectory), &info) ||
      !info.dli_fname)
    return "share/gemmc/families";
  std::string self = info.dli_fname;
  size_t slash = self.find_last_of('/');
  std::string folder = slash == std::string::npos ? "." : self.substr(0, slash);
  return folder + "/../share/gemmc/families";
}

/// The architecture of the current device's families.
static std::string currentArch() {
  const DriverApi &api = DriverApi::get();
  useContext(nullptr);
  CUdevice device;
  GEMMC_CU(api.cuCtxGetDevice(&device));
  int major = 0, minor = 0;
  GEMMC_CU(api.cuDeviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  GEMMC_CU(api.cuDeviceGetAttribute(
      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  if (major == 9 && minor == 0)
    return "sm_90a";
  if (major >= 8)
    return "sm_80";
  throw std::runtime_error("the shipped families need compute capability 8.0 "
                           "or newer; the device has " +
                           std::to_string(major) + "." + std::to_string(minor));
}

/// Loads the shipped family `name` (ARCH/NAME.ptx) for `arch` (null: the
/// current device's), once per process; `caller` names the entry point
/// in errors.
static gemmc_status loadShipped(const char *caller, const char *arch,
                                const std::string &name,
                                gemmc_module *module) {
  if (arch && std::strcmp(arch, "sm_90a") && std::strcmp(arch, "sm_80"))
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": gemmc ships families for sm_90a and sm_80, "
                          "not " +
                          arch);
  return guarded([&] {
    std::string target = arch ? arch : currentArch();
    std::string path = familyDirectory() + "/" + target + "/" + name + ".ptx";
    // One module per family and process, loaded again if destroyed.
    static std::mutex mutex;
    static std::map<std::string, gemmc_module> *loaded =
        new std::map<std::string, gemmc_module>;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = loaded->find(path);
    if (it != loaded->end() && isLoaded(it->second)) {
      *module = it->second;
      return capi::succeed();
    }
    gemmc_status status = gemmc_module_load_file(path.c_str(), module);
    if (status == GEMMC_ERROR_IO)
      return capi::fail(GEMMC_ERROR_IO,
                        "no shipped family " + target + "/" + name + ": " +
                            gemmc_last_error() +
                            " (set GEMMC_FAMILY_DIR to the installed "
                            "share/gemmc/families)");
    if (status == GEMMC_SUCCESS)
      (*loaded)[path] = *module;
    return status;
  });
}

/// Loads the shipped family of `dtype` and the layouts for `arch` (null:
/// the current device's), of one GEMM (`suffix` empty), batched (`_batched`)
/// or grouped (`_grouped`, or `_ptr_array` for the general form), once per
/// process.
static gemmc_status loadFamily(gemmc_dtype dtype, gemmc_layout aLayout,
                               gemmc_layout bLayout, const char *arch,
                               const std::string &suffix,
                               gemmc_module *module) {
  const char *caller = suffix == "_batched"   ? "gemmc_batched_family_load"
                       : suffix == "_grouped" ? "gemmc_grouped_family_load"
                       : suffix == "_ptr_array"
                           ? "gemmc_grouped_table_family_load"
                           : "gemmc_family_load";
  if (!module)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) + ": module must not be null");
  *module = nullptr;
  const char *types[] = {"f32", "f16", "bf16", "tf32"};
  if (dtype == GEMMC_E4M3 || dtype == GEMMC_E5M2)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": FP8's shipped families are scaled products: "
                          "gemmc_scaled_family_load");
  if (int(dtype) < 0 || int(dtype) > 3 ||
      (aLayout != GEMMC_ROW && aLayout != GEMMC_COL) ||
      (bLayout != GEMMC_ROW && bLayout != GEMMC_COL))
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) + ": unknown element type or layout");
  std::string name = std::string(types[int(dtype)]) + "_" +
                     (aLayout == GEMMC_ROW ? "r" : "c") +
                     (bLayout == GEMMC_ROW ? "r" : "c") + "r" + suffix;
  return loadShipped(caller, arch, name, module);
}

/// Loads the shipped FP8 family of these types, scales, bias and sums for
/// `caller`: of one GEMM (`suffix` empty) or grouped (`_grouped`).
static gemmc_status loadScaled(const char *caller, gemmc_dtype aType,
                               gemmc_dtype bType, gemmc_dtype cType,
                               gemmc_scales scales, gemmc_bias bias,
                               int fastAccumulate, const char *arch,
                               const std::string &suffix,
                               gemmc_module *module) {
  if (!module)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) + ": module must not be null");
  *module = nullptr;
  auto fp8 = [](gemmc_dtype t) -> const char * {
    return t == GEMMC_E4M3 ? "e4m3" : t == GEMMC_E5M2 ? "e5m2" : nullptr;
  };
  const char *a = fp8(aType), *b = fp8(bType);
  if (!a || !b || (aType == GEMMC_E5M2 && bType == GEMMC_E5M2))
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": A and B must be GEMMC_E4M3 or GEMMC_E5M2, not "
                          "both GEMMC_E5M2 (as torch._scaled_mm takes them)");
  const char *c = cType == GEMMC_BF16   ? "bf16"
                  : cType == GEMMC_F16  ? "f16"
                  : cType == GEMMC_F32  ? "f32"
                  : cType == GEMMC_E4M3 ? "e4m3"
                                        : nullptr;
  if (!c)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": gemmc ships FP8 products into bf16, f16, f32 "
                          "or e4m3");
  // An FP8 result as torch._scaled_mm writes one: E4M3 x E4M3, per-tensor
  // scales, no bias, and C's scale (its scale_result).
  if (cType == GEMMC_E4M3 && (aType != GEMMC_E4M3 || bType != GEMMC_E4M3 ||
                              scales != GEMMC_SCALES_TENSOR ||
                              bias != GEMMC_BIAS_NONE || !suffix.empty()))
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": the shipped FP8 families into E4M3 are E4M3 x "
                          "E4M3 with per-tensor scales and no bias, one "
                          "launch (C's scale, scale_c, given)");
  if (scales != GEMMC_SCALES_TENSOR && scales != GEMMC_SCALES_ROWWISE)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": the shipped FP8 families take per-tensor or "
                          "rowwise scales (block scales: compile a schedule, "
                          "examples/hopper-fp8-block.gemm)");
  if (bias != GEMMC_BIAS_NONE && bias != GEMMC_BIAS_COL)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": the shipped FP8 families add torch's bias, one "
                          "value per column of C (GEMMC_BIAS_COL), or none");
  if (bias == GEMMC_BIAS_COL &&
      (aType != GEMMC_E4M3 || bType != GEMMC_E4M3 || cType == GEMMC_F32))
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": the shipped FP8 families with a bias are E4M3 x "
                          "E4M3 into bf16 or f16 (torch._scaled_mm adds no "
                          "bias to an f32 result)");
  if (arch && std::strcmp(arch, "sm_90a"))
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": FP8's families are sm_90a's (wgmma), not " +
                          arch);
  std::string name = std::string("fp8_") + a + "_" + b + "_" + c + "_" +
                     (scales == GEMMC_SCALES_TENSOR ? "tensor" : "rowwise") +
                     (fastAccumulate ? "_fast" : "") +
                     (bias == GEMMC_BIAS_COL ? "_bias" : "") + suffix;
  return loadShipped(caller, arch, name, module);
}

extern "C" gemmc_status
gemmc_scaled_family_load(gemmc_dtype aType, gemmc_dtype bType,
                         gemmc_dtype cType, gemmc_scales scales,
                         gemmc_bias bias, int fastAccumulate, const char *arch,
                         gemmc_module *module) {
  return loadScaled("gemmc_scaled_family_load", aType, bType, cType, scales,
                    bias, fastAccumulate, arch, "", module);
}

extern "C" gemmc_status gemmc_scaled_grouped_family_load(
    gemmc_dtype aType, gemmc_dtype bType, gemmc_dtype cType,
    gemmc_scales scales, int fastAccumulate, const char *arch,
    gemmc_module *module) {
  return loadScaled("gemmc_scaled_grouped_family_load", aType, bType, cType,
                    scales, GEMMC_BIAS_NONE, fastAccumulate, arch, "_grouped",
                    module);
}

extern "C" gemmc_status gemmc_scaled_matmul(gemmc_dtype aType,
                                            gemmc_dtype bType,
                                            gemmc_dtype cType,
                                            gemmc_scales scales,
                                            int fastAccumulate,
                                            const gemmc_problem *problem,
                                            void *stream) {
  if (!problem)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_scaled_matmul: the problem must not be null");
  gemmc_module module = nullptr;
  gemmc_bias bias = problem->bias ? GEMMC_BIAS_COL : GEMMC_BIAS_NONE;
  gemmc_status status = gemmc_scaled_family_load(
      aType, bType, cType, scales, bias, fastAccumulate, nullptr, &module);
  if (status != GEMMC_SUCCESS)
    return status;
  return gemmc_launch(module, problem, stream);
}

extern "C" gemmc_status
gemmc_family_load(gemmc_dtype dtype, gemmc_layout aLayout, gemmc_layout bLayout,
                  const char *arch, gemmc_module *module) {
  return loadFamily(dtype, aLayout, bLayout, arch, "", module);
}

extern "C" gemmc_status gemmc_batched_family_load(gemmc_dtype dtype,
                                                  gemmc_layout aLayout,
                                                  gemmc_layout bLayout,
                                                  const char *arch,
                                                  gemmc_module *module) {
  return loadFamily(dtype, aLayout, bLayout, arch, "_batched", module);
}

extern "C" gemmc_status gemmc_grouped_family_load(gemmc_dtype dtype,
                                                  gemmc_layout bLayout,
                                                  const char *arch,
                                                  gemmc_module *module) {
  return loadFamily(dtype, GEMMC_ROW, bLayout, arch, "_grouped", module);
}

extern "C" gemmc_status gemmc_grouped_table_family_load(gemmc_dtype dtype,
                                                        gemmc_layout bLayout,
                                                        const char *arch,
                                                        gemmc_module *module) {
  return loadFamily(dtype, GEMMC_ROW, bLayout, arch, "_ptr_array", module);
}

/// A batch of `run` (a row-major C) on a family of single GEMMs: one
/// launch a matrix, each at its strides (or, where none is given, right
/// after the one before).
static gemmc_status perMatrix(gemmc_module module, gemmc_problem run,
                              gemmc_dtype dtype, gemmc_layout aLayout,
                              gemmc_layout bLayout, void *stream) {
  int64_t bytes = dtype == GEMMC_F32 || dtype == GEMMC_TF32 ? 4 : 2;
  auto step = [&](int64_t stride, int64_t ld, int64_t denseLd, int64_t lines) {
    return (stride ? stride : (ld ? ld : denseLd) * lines) * bytes;
  };
  bool aRow = aLayout == GEMMC_ROW, bRow = bLayout == GEMMC_ROW;
  int64_t stepA =
      step(run.stride_a, run.lda, aRow ? run.k : run.m, aRow ? run.m : run.k);
  int64_t stepB =
      step(run.stride_b, run.ldb, bRow ? run.n : run.k, bRow ? run.k : run.n);
  int64_t stepC = step(run.stride_c, run.ldc, run.n, run.m);
  gemmc_problem one = run;
  one.batch = 1;
  one.stride_a = one.stride_b = one.stride_c = 0;
  for (int64_t i = 0; i < run.batch; ++i) {
    one.a = run.a + uint64_t(i * stepA);
    one.b = run.b + uint64_t(i * stepB);
    one.c = run.c + uint64_t(i * stepC);
    if (gemmc_status status = gemmc_launch(module, &one, stream))
      return status;
  }
  return GEMMC_SUCCESS;
}

/// Whether the cost model predicts `run` faster on `batched` in one launch
/// than on `single` a launch a matrix.
extern "C" gemmc_status gemmc_prefer_batched(gemmc_module single,
                                             gemmc_module batched,
                                             const gemmc_problem *problem,
                                             int *useBatched) {
  if (!problem || !useBatched)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_prefer_batched: the problem and use_batched "
                      "must not be null");
  if (!isLoaded(single))
    return invalidHandle(single);
  if (!isLoaded(batched))
    return invalidHandle(batched);
  gemmc_problem one = *problem;
  one.batch = 1;
  one.stride_a = one.stride_b = one.stride_c = 0;
  double whole = 0, each = 0;
  // Not for the batched family: a launch a matrix. Not for the single
  // GEMMs' (beyond their variants): the batch in one launch.
  *useBatched = 0;
  if (gemmc_predict(batched, problem, &whole) != GEMMC_SUCCESS)
    return capi::succeed();
  *useBatched = gemmc_predict(single, &one, &each) != GEMMC_SUCCESS ||
                whole <= each * double(std::max<int64_t>(problem->batch, 1));
  return capi::succeed();
}

/// Whether the batched family (into `batched`) runs the batch `run` in a
/// lower predicted time than `single`, the family of single GEMMs, a
/// launch a matrix.
static bool fasterBatched(gemmc_dtype dtype, gemmc_layout aLayout,
                          gemmc_layout bLayout, gemmc_module single,
                          const gemmc_problem &run, gemmc_module &batched) {
  if (gemmc_batched_family_load(dtype, aLayout, bLayout, nullptr, &batched) !=
      GEMMC_SUCCESS)
    return false;
  // Decided once per problem (its sizes, strides and the families).
  using Key = std::tuple<gemmc_module, gemmc_module, ChoiceKey>;
  static std::mutex mutex;
  static auto *decided = new std::map<Key, bool>;
  Key key{single, batched, choiceKey(run)};
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = decided->find(key);
    if (it != decided->end())
      return it->second;
  }
  int faster = 0;
  if (gemmc_prefer_batched(single, batched, &run, &faster) != GEMMC_SUCCESS)
    return false;
  std::lock_guard<std::mutex> lock(mutex);
  (*decided)[key] = faster;
  return faster;
}

extern "C" gemmc_status gemmc_matmul(gemmc_dtype dtype, gemmc_layout aLayout,
                                     gemmc_layout bLayout, gemmc_layout cLayout,
                                     const gemmc_problem *problem,
                                     void *stream) {
  if (!problem)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_matmul: the problem must not be null");
  if (cLayout != GEMMC_ROW && cLayout != GEMMC_COL)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_matmul: unknown layout of C");
  // A column-major C is the row-major C^T = B^T A^T: the operands swap,
  // each read the other way round.
  gemmc_problem run = *problem;
  if (cLayout == GEMMC_COL) {
    std::swap(run.m, run.n);
    std::swap(run.a, run.b);
    std::swap(run.lda, run.ldb);
    std::swap(run.stride_a, run.stride_b);
    gemmc_layout flippedA = bLayout == GEMMC_ROW ? GEMMC_COL : GEMMC_ROW;
    gemmc_layout flippedB = aLayout == GEMMC_ROW ? GEMMC_COL : GEMMC_ROW;
    aLayout = flippedA;
    bLayout = flippedB;
  }
  gemmc_module module = nullptr;
  gemmc_status status =
      gemmc_family_load(dtype, aLayout, bLayout, nullptr, &module);
  if (status != GEMMC_SUCCESS)
    return status;
  if (run.batch <= 1)
    return gemmc_launch(module, &run, stream);
  // A batch: one launch of the batched family where the architecture has
  // one (sm_90a) and the cost model predicts it faster than a launch a
  // matrix on the family of single GEMMs (whose variants the batched one
  // lacks: split-K, stream-K, realigned pieces), else a launch a matrix.
  gemmc_module batched = nullptr;
  if (fasterBatched(dtype, aLayout, bLayout, module, run, batched))
    return gemmc_launch(batched, &run, stream);
  return perMatrix(module, run, dtype, aLayout, bLayout, stream);
}
