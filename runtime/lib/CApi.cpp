//===- CApi.cpp - the C API of gemmc's runtime ----------------------------===//
//
// Handles are ids into a registry, never pointers: a destroyed handle is
// not found, rather than dereferenced. Every entry point catches what the
// C++ runtime throws and turns it into a status and this thread's message.
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/CApi.h"
#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Driver.h"
#include "gemmc-rt/Launch.h"

#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <tuple>
#include <memory>
#include <mutex>
#include <stdexcept>

using namespace gemmc::rt;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

static thread_local std::string lastError;

gemmc_status capi::fail(gemmc_status status, const std::string &message) {
  lastError = message;
  return status;
}

gemmc_status capi::succeed() {
  lastError.clear();
  return GEMMC_SUCCESS;
}

char *capi::copyOut(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (copy)
    std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

/// Runs `body`, mapping what it throws to a status.
template <typename Body> static gemmc_status guarded(Body &&body) {
  try {
    return body();
  } catch (const NoGpuError &e) {
    return capi::fail(GEMMC_ERROR_NO_GPU, e.what());
  } catch (const CudaError &e) {
    return capi::fail(GEMMC_ERROR_CUDA, e.what());
  } catch (const std::bad_alloc &) {
    return capi::fail(GEMMC_ERROR_INTERNAL, "out of host memory");
  } catch (const std::exception &e) {
    return capi::fail(GEMMC_ERROR_INTERNAL, e.what());
  }
}

extern "C" const char *gemmc_last_error(void) { return lastError.c_str(); }

extern "C" const char *gemmc_status_name(gemmc_status status) {
  switch (status) {
  case GEMMC_SUCCESS:
    return "GEMMC_SUCCESS";
  case GEMMC_ERROR_INVALID_ARGUMENT:
    return "GEMMC_ERROR_INVALID_ARGUMENT";
  case GEMMC_ERROR_INVALID_HANDLE:
    return "GEMMC_ERROR_INVALID_HANDLE";
  case GEMMC_ERROR_COMPILE:
    return "GEMMC_ERROR_COMPILE";
  case GEMMC_ERROR_CONTRACT:
    return "GEMMC_ERROR_CONTRACT";
  case GEMMC_ERROR_UNSUPPORTED_PROBLEM:
    return "GEMMC_ERROR_UNSUPPORTED_PROBLEM";
  case GEMMC_ERROR_NO_GPU:
    return "GEMMC_ERROR_NO_GPU";
  case GEMMC_ERROR_CUDA:
    return "GEMMC_ERROR_CUDA";
  case GEMMC_ERROR_IO:
    return "GEMMC_ERROR_IO";
  case GEMMC_ERROR_INTERNAL:
    return "GEMMC_ERROR_INTERNAL";
  }
  return "unknown gemmc_status";
}

extern "C" void gemmc_free(void *pointer) { std::free(pointer); }

//===----------------------------------------------------------------------===//
// The registry of loaded modules
//===----------------------------------------------------------------------===//

/// Makes `context` current on this thread, or, with none given, the current
/// context or else device 0's primary one; returns the one current.
static CUcontext useContext(CUcontext context) {
  const DriverApi &api = DriverApi::get();
  CUcontext current = nullptr;
  GEMMC_CU(api.cuCtxGetCurrent(&current));
  if (context) {
    if (current != context)
      GEMMC_CU(api.cuCtxSetCurrent(context));
    return context;
  }
  if (current)
    return current;
  Device::open(0);
  GEMMC_CU(api.cuCtxGetCurrent(&current));
  return current;
}

namespace {
/// A problem as the choice sees it: every field but the pointers (and
/// whether a bias is given).
using ChoiceKey = std::array<int64_t, 13>;

static ChoiceKey choiceKey(const gemmc_problem &p) {
  uint32_t alpha, beta;
  std::memcpy(&alpha, &p.alpha, sizeof(alpha));
  std::memcpy(&beta, &p.beta, sizeof(beta));
  return {p.m,        p.n,        p.k,        p.lda, p.ldb, p.ldc,      p.batch,
          p.stride_a, p.stride_b, p.stride_c, alpha, beta,  p.bias != 0};
}

/// A module's contracts, read at load; its kernels, JIT-compiled into a
/// context at the first launch (or gemmc_module_jit), from the PTX kept
/// until then.
struct LoadedModule {
  std::string name, ptx;
  std::vector<Contract> contracts;
  std::mutex jitMutex;
  /// The launches worked out after the JIT, per problem: a launch of a
  /// problem seen before ranks no variant again.
  std::mutex choiceMutex;
  std::map<ChoiceKey, std::shared_ptr<const LaunchPlan>> choices;
  std::unique_ptr<KernelFamily> family;
  CUcontext context = nullptr;

  /// The JIT-compiled kernels, in the current context (or device 0's
  /// primary one) the first time.
  const KernelFamily &kernels() {
    std::lock_guard<std::mutex> lock(jitMutex);
    if (!family) {
      CUcontext current = useContext(nullptr);
      family = std::make_unique<KernelFamily>(contracts, ptx, name, 4);
      context = current;
      ptx.clear(); // the driver holds the module now
    }
    useContext(context);
    return *family;
  }
};

class Registry {
public:
  gemmc_module add(std::shared_ptr<LoadedModule> module) {
    std::lock_guard<std::mutex> lock(mutex);
    uintptr_t id = next++;
    modules[id] = std::move(module);
    return reinterpret_cast<gemmc_module>(id);
  }
  std::shared_ptr<LoadedModule> find(gemmc_module handle) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = modules.find(reinterpret_cast<uintptr_t>(handle));
    return it == modules.end() ? nullptr : it->second;
  }
  std::shared_ptr<LoadedModule> remove(gemmc_module handle) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = modules.find(reinterpret_cast<uintptr_t>(handle));
    if (it == modules.end())
      return nullptr;
    std::shared_ptr<LoadedModule> module = std::move(it->second);
    modules.erase(it);
    return module;
  }

private:
  std::mutex mutex;
  /// Ids are never reused: a destroyed handle stays unknown.
  uintptr_t next = 1;
  std::map<uintptr_t, std::shared_ptr<LoadedModule>> modules;
};
} // namespace

static Registry &registry() {
  static Registry *r = new Registry; // outlives every static destructor
  return *r;
}

static gemmc_status invalidHandle(gemmc_module handle) {
  return capi::fail(GEMMC_ERROR_INVALID_HANDLE,
                    "gemmc_module " +
                        std::to_string(reinterpret_cast<uintptr_t>(handle)) +
                        " is not a loaded module (destroyed, or never "
                        "loaded)");
}

//===----------------------------------------------------------------------===//
// Loading and querying
//===----------------------------------------------------------------------===//

extern "C" gemmc_status gemmc_module_load(const char *ptx, const char *name,
                                          gemmc_module *module) {
  if (!ptx || !module)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_module_load: ptx and module must not be null");
  *module = nullptr;
  return guarded([&] {
    auto loaded = std::make_shared<LoadedModule>();
    loaded->name = name ? name : "<ptx>";
    std::string error;
    if (!parseContracts(ptx, loaded->contracts, error))
      return capi::fail(GEMMC_ERROR_CONTRACT, loaded->name + ": " + error);
    loaded->ptx = ptx;
    *module = registry().add(std::move(loaded));
    return capi::succeed();
  });
}

extern "C" gemmc_status gemmc_module_load_file(const char *path,
                                               gemmc_module *module) {
  if (!path || !module)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_module_load_file: path and module must not be "
                      "null");
  std::string ptx;
  try {
    ptx = readFile(path);
  } catch (const std::exception &e) {
    return capi::fail(GEMMC_ERROR_IO, e.what());
  }
  return gemmc_module_load(ptx.c_str(), path, module);
}

extern "C" gemmc_status gemmc_module_destroy(gemmc_module handle) {
  std::shared_ptr<LoadedModule> module = registry().remove(handle);
  if (!module)
    return invalidHandle(handle);
  return guarded([&] {
    if (module->context)
      useContext(module->context);
    module.reset(); // unloads, unless a call in flight still holds it
    return capi::succeed();
  });
}

extern "C" gemmc_status gemmc_module_jit(gemmc_module handle) {
  std::shared_ptr<LoadedModule> module = registry().find(handle);
  if (!module)
    return invalidHandle(handle);
  return guarded([&] {
    module->kernels();
    return capi::succeed();
  });
}

static gemmc_dtype toC(DType type) {
  return type == DType::F16    ? GEMMC_F16
         : type == DType::BF16 ? GEMMC_BF16
                               : GEMMC_F32;
}

static gemmc_layout toC(Layout layout) {
  return layout == Layout::Row ? GEMMC_ROW : GEMMC_COL;
}

extern "C" gemmc_status gemmc_module_info(gemmc_module handle,
                                          gemmc_kernel_info *info) {
  std::shared_ptr<LoadedModule> module = registry().find(handle);
  if (!module)
    return invalidHandle(handle);
  if (!info)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_module_info: info must not be null");
  const Contract &c = module->contracts.front();
  const Problem &p = c.problem;
  *info = {};
  info->name = c.family.empty() ? c.entry.c_str() : c.family.c_str();
  info->arch = c.arch.c_str();
  info->variants = int(module->contracts.size());
  info->m = p.m;
  info->n = p.n;
  info->k = p.k;
  info->a = toC(p.a);
  info->b = toC(p.b);
  info->c = toC(p.c);
  info->a_layout = toC(p.aLayout);
  info->b_layout = toC(p.bLayout);
  info->c_layout = toC(p.cLayout);
  info->alpha_beta = c.alphaBeta;
  info->bias = c.bias == "row"   ? GEMMC_BIAS_ROW
               : c.bias == "col" ? GEMMC_BIAS_COL
                                 : GEMMC_BIAS_NONE;
  info->relu = c.relu;
  info->batched = p.batch != 1;
  return capi::succeed();
}

extern "C" gemmc_status gemmc_module_variant(gemmc_module handle, int index,
                                             gemmc_variant_info *info) {
  std::shared_ptr<LoadedModule> module = registry().find(handle);
  if (!module)
    return invalidHandle(handle);
  if (!info || index < 0 || size_t(index) >= module->contracts.size())
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_module_variant: index " + std::to_string(index) +
                          " is not one of the module's " +
                          std::to_string(module->contracts.size()) +
                          " variants, or info is null");
  const Contract &c = module->contracts[size_t(index)];
  *info = {};
  info->entry = c.entry.c_str();
  info->min_m = c.when.lo[0];
  info->max_m = c.when.hi[0];
  info->min_n = c.when.lo[1];
  info->max_n = c.when.hi[1];
  info->min_k = c.when.lo[2];
  info->max_k = c.when.hi[2];
  info->multiple_m = c.multipleM;
  info->multiple_n = c.multipleN;
  info->multiple_k = c.multipleK;
  info->ld_multiple_a = c.ldMultiple[0];
  info->ld_multiple_b = c.ldMultiple[1];
  info->ld_multiple_c = c.ldMultiple[2];
  info->block_threads = c.block[0] * c.block[1] * c.block[2];
  info->shared_bytes = c.dynamicSharedBytes;
  info->split_k = int(c.splits);
  return capi::succeed();
}

//===----------------------------------------------------------------------===//
// Launching
//===----------------------------------------------------------------------===//

extern "C" void gemmc_problem_init(gemmc_problem *problem, int64_t m, int64_t n,
                                   int64_t k) {
  if (!problem)
    return;
  *problem = {};
  problem->m = m;
  problem->n = n;
  problem->k = k;
  problem->alpha = 1;
  problem->batch = 1;
}

/// The runtime's problem for `given` on `contract`'s types, layouts and
/// epilogue.
static Problem toProblem(const Contract &contract, const gemmc_problem &given) {
  Problem p = contract.problem;
  p.m = given.m;
  p.n = given.n;
  p.k = given.k;
  p.lda = given.lda;
  p.ldb = given.ldb;
  p.ldc = given.ldc;
  p.alpha = given.alpha;
  p.beta = given.beta;
  p.bias = contract.bias;
  p.relu = contract.relu;
  p.batch = given.batch > 0 ? given.batch : 1;
  p.strideA = given.stride_a;
  p.strideB = given.stride_b;
  p.strideC = given.stride_c;
  return p;
}

/// Why `given`'s sizes cannot be launched whatever the variant.
static std::string checkSizes(const gemmc_problem &given) {
  if (given.m < 1 || given.n < 1 || given.k < 1)
    return "sizes must be positive, got " + std::to_string(given.m) + "x" +
           std::to_string(given.n) + "x" + std::to_string(given.k);
  if (given.m > INT32_MAX || given.n > INT32_MAX || given.k > INT32_MAX)
    return "sizes must be below 2^31";
  if (given.batch < 0 || given.lda < 0 || given.ldb < 0 || given.ldc < 0 ||
      given.stride_a < 0 || given.stride_b < 0 || given.stride_c < 0)
    return "leading dimensions, strides and the batch must not be negative";
  return "";
}

/// Why these pointers cannot be launched on `contract`'s kernels: null, a
/// bias given or missing against the contract, or (checked only where
/// `alignment` is given) misaligned.
static std::string checkPointers(const Contract &contract, uint64_t a,
                                 uint64_t b, uint64_t c, uint64_t bias,
                                 int64_t alignment = 1) {
  if (!a || !b || !c)
    return "the pointers to A, B and C must not be null";
  if (!contract.bias.empty() && !bias)
    return "the kernel adds a " + contract.bias +
           " bias: its pointer must not be null";
  if (contract.bias.empty() && bias)
    return "the kernel adds no bias, but a bias pointer was given";
  if (alignment > 1 && (a | b | c | bias) % uint64_t(alignment))
    return "the pointers must be aligned to " + std::to_string(alignment) +
           " bytes";
  return "";
}

/// Why the buffer at `pointer` cannot hold `bytes` for operand `name`: not
/// device memory, misaligned, or too small.
static std::string checkBuffer(const char *name, uint64_t pointer,
                               int64_t bytes, int64_t alignment) {
  const DriverApi &api = DriverApi::get();
  // The operand's name in a message (built only for one).
  auto operandName = [&] {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "%llx", (unsigned long long)pointer);
    return std::string(name) + " (0x" + hex + ")";
  };
  // One query for the three attributes (a launch's cost is mostly such
  // calls).
  unsigned memoryType = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                      CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void *values[] = {&memoryType, &start, &size};
  CUresult r =
      api.cuPointerGetAttributes(3, attributes, values, CUdeviceptr(pointer));
  if (r != CUDA_SUCCESS || memoryType == CU_MEMORYTYPE_HOST || memoryType == 0)
    return operandName() + " is not device memory of the current context";
  if (alignment > 1 && pointer % uint64_t(alignment))
    return operandName() + " must be aligned to " + std::to_string(alignment) +
           " bytes";
  if (size && uint64_t(bytes) > start + size - pointer)
    return operandName() + " needs " + std::to_string(bytes) +
           " bytes, but its allocation has " +
           std::to_string(start + size - pointer) + " from there";
  return "";
}

static std::string checkBuffers(const Contract &contract, const Problem &p,
                                const gemmc_problem &given) {
  auto extent = [&](int64_t stride, int64_t span, DType type) {
    return ((p.batch - 1) * stride + span) * int64_t(sizeOf(type));
  };
  std::string why =
      checkBuffer("A", given.a, extent(p.strideOfA(), p.spanOfA(), p.a),
                  contract.alignment);
  if (why.empty())
    why = checkBuffer("B", given.b, extent(p.strideOfB(), p.spanOfB(), p.b),
                      contract.alignment);
  if (why.empty())
    why = checkBuffer("C", given.c, extent(p.strideOfC(), p.spanOfC(), p.c),
                      contract.alignment);
  if (why.empty() && given.bias)
    why = checkBuffer("the bias", given.bias,
                      (p.bias == "row" ? p.m : p.n) * int64_t(sizeOf(p.c)),
                      contract.alignment);
  return why;
}

/// The variant for `given` (its index), or a failure status. With
/// `kernels` (JIT-compiled), a variant must also fit the device. The
/// pointers are checked where `pointers` says so.
static gemmc_status choose(LoadedModule &module, const gemmc_problem *given,
                           const KernelFamily *kernels, int &variant,
                           Problem &problem, bool pointers = true) {
  if (!given)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "the problem must not be null");
  const Contract &contract = module.contracts.front();
  std::string why = checkSizes(*given);
  if (why.empty() && pointers)
    why = checkPointers(contract, given->a, given->b, given->c, given->bias);
  if (!why.empty())
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT, module.name + ": " + why);
  problem = toProblem(contract, *given);
  // Before the JIT, by the contracts on the model's default device; after
  // it, by the device's limits and facts too.
  WhyNot fits;
  DeviceModel device;
  if (kernels) {
    fits = [&](size_t i) { return kernels->variants()[i]->whyNot(problem); };
    device = kernels->device();
  }
  variant = selectVariant(module.contracts, problem, device, why, fits);
  if (variant < 0)
    return capi::fail(GEMMC_ERROR_UNSUPPORTED_PROBLEM,
                      module.name + " cannot compute " + problem.str() + ": " +
                          why);
  return GEMMC_SUCCESS;
}

/// The module's choice for `given`: the variant, the runtime's problem,
/// and the JIT's kernels once compiled (null before: the contracts alone
/// then decide).
struct Choice {
  int variant = -1;
  Problem problem;
  const KernelFamily *kernels = nullptr;
};

static gemmc_status chooseFor(LoadedModule &module, const gemmc_problem *given,
                              bool pointers, Choice &choice) {
  {
    std::lock_guard<std::mutex> lock(module.jitMutex);
    choice.kernels = module.family.get();
  }
  return choose(module, given, choice.kernels, choice.variant, choice.problem,
                pointers);
}

extern "C" gemmc_status gemmc_select(gemmc_module handle,
                                     const gemmc_problem *given, int *variant) {
  std::shared_ptr<LoadedModule> module = registry().find(handle);
  if (!module)
    return invalidHandle(handle);
  if (!variant)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_select: variant must not be null");
  return guarded([&] {
    Choice choice;
    gemmc_status status = chooseFor(*module, given, /*pointers=*/true, choice);
    *variant = choice.variant;
    return status == GEMMC_SUCCESS ? capi::succeed() : status;
  });
}

extern "C" gemmc_status gemmc_predict(gemmc_module handle,
                                      const gemmc_problem *given,
                                      double *seconds) {
  std::shared_ptr<LoadedModule> module = registry().find(handle);
  if (!module)
    return invalidHandle(handle);
  if (!seconds)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_predict: seconds must not be null");
  return guarded([&] {
    Choice choice;
    gemmc_status status = chooseFor(*module, given, /*pointers=*/false, choice);
    if (status != GEMMC_SUCCESS)
      return status;
    WhyNot fits;
    DeviceModel device;
    if (const KernelFamily *kernels = choice.kernels) {
      const Problem &problem = choice.problem;
      fits = [=](size_t i) { return kernels->variants()[i]->whyNot(problem); };
      device = kernels->device();
    }
    for (const RankedVariant &r :
         rankVariants(module->contracts, choice.problem, device, fits))
      if (r.index == size_t(choice.variant))
        *seconds = r.seconds;
    return capi::succeed();
  });
}

/// The launch of `given` on the variant the module chooses for it, from
/// the module's cache where the problem was seen before (JIT-compiles the
/// module). The pointers are checked where `pointers` says so.
static gemmc_status prepare(LoadedModule &module, const gemmc_problem *given,
                            std::shared_ptr<const LaunchPlan> &out,
                            bool pointers = true) {
  const KernelFamily &kernels = module.kernels();
  if (!given)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "the problem must not be null");
  ChoiceKey key = choiceKey(*given);
  {
    std::lock_guard<std::mutex> lock(module.choiceMutex);
    auto it = module.choices.find(key);
    if (it != module.choices.end()) {
      std::string why =
          pointers ? checkPointers(module.contracts.front(), given->a,
                                   given->b, given->c, given->bias)
                   : "";
      if (!why.empty())
        return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                          module.name + ": " + why);
      out = it->second;
      return GEMMC_SUCCESS;
    }
  }
  int variant = -1;
  Problem problem;
  gemmc_status status =
      choose(module, given, &kernels, variant, problem, pointers);
  if (status != GEMMC_SUCCESS)
    return status;
  out = std::make_shared<const LaunchPlan>(*kernels.variants()[size_t(variant)],
                                           problem);
  std::lock_guard<std::mutex> lock(module.choiceMutex);
  module.choices.emplace(key, out);
  return GEMMC_SUCCESS;
}

/// Launches `given` with the caller's workspace (`partials` and
/// `counters`, of the sizes gemmc_workspace_size gives), or the runtime's
/// own for the stream where both are 0.
static gemmc_status launchWith(gemmc_module handle, const gemmc_problem *given,
                               void *stream, uint64_t partials,
                               size_t partialBytes, uint64_t counters,
                               size_t counterBytes) {
  std::shared_ptr<LoadedModule> module = registry().find(handle);
  if (!module)
    return invalidHandle(handle);
  return guarded([&] {
    std::shared_ptr<const LaunchPlan> plan;
    gemmc_status status = prepare(*module, given, plan);
    if (status != GEMMC_SUCCESS)
      return status;
    std::string why =
        checkBuffers(plan->kernel().contract(), plan->problem(), *given);
    if (!why.empty())
      return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                        module->name + ": " + why);
    Operands operands;
    operands.a = CUdeviceptr(given->a);
    operands.b = CUdeviceptr(given->b);
    operands.c = CUdeviceptr(given->c);
    operands.bias = CUdeviceptr(given->bias);
    if (partials || counters) {
      WorkspaceBytes need = plan->workspace();
      if (!partials || !counters || partialBytes < need.partials ||
          counterBytes < need.counters)
        return capi::fail(
            GEMMC_ERROR_INVALID_ARGUMENT,
            module->name + ": the workspace for " + plan->problem().str() +
                " takes " + std::to_string(need.partials) +
                " bytes of partials and " + std::to_string(need.counters) +
                " of counters; given " + std::to_string(partialBytes) +
                " and " + std::to_string(counterBytes));
      operands.partials = CUdeviceptr(partials);
      operands.counters = CUdeviceptr(counters);
    }
    plan->launch(operands, static_cast<CUstream>(stream));
    return capi::succeed();
  });
}

extern "C" gemmc_status gemmc_launch(gemmc_module handle,
                                     const gemmc_problem *given, void *stream) {
  return launchWith(handle, given, stream, 0, 0, 0, 0);
}

extern "C" gemmc_status gemmc_workspace_size(gemmc_module handle,
                                             const gemmc_problem *given,
                                             size_t *partialBytes,
                                             size_t *counterBytes) {
  std::shared_ptr<LoadedModule> module = registry().find(handle);
  if (!module)
    return invalidHandle(handle);
  if (!partialBytes || !counterBytes)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_workspace_size: the sizes must not be null");
  return guarded([&] {
    std::shared_ptr<const LaunchPlan> plan;
    gemmc_status status = prepare(*module, given, plan);
    if (status != GEMMC_SUCCESS)
      return status;
    WorkspaceBytes need = plan->workspace();
    *partialBytes = need.partials;
    *counterBytes = need.counters;
    return capi::succeed();
  });
}

extern "C" gemmc_status
gemmc_launch_workspace(gemmc_module handle, const gemmc_problem *given,
                       void *stream, uint64_t partials, size_t partialBytes,
                       uint64_t counters, size_t counterBytes) {
  if (!partials || !counters)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_launch_workspace: the workspace must not be "
                      "null (gemmc_launch uses the module's own)");
  return launchWith(handle, given, stream, partials, partialBytes, counters,
                    counterBytes);
}

//===----------------------------------------------------------------------===//
// Plans: a problem's launch worked out once
//===----------------------------------------------------------------------===//

struct gemmc_plan_opaque {
  std::shared_ptr<LoadedModule> module;
  std::shared_ptr<const LaunchPlan> plan;
};

extern "C" gemmc_status gemmc_plan_create(gemmc_module handle,
                                          const gemmc_problem *problem,
                                          gemmc_plan *plan) {
  std::shared_ptr<LoadedModule> module = registry().find(handle);
  if (!module)
    return invalidHandle(handle);
  if (!problem || !plan)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_plan_create: the problem and the plan must not "
                      "be null");
  return guarded([&] {
    // The pointers are the launches'; whether a bias is given, the
    // contract's.
    gemmc_problem shape = *problem;
    shape.a = shape.b = shape.c = 0;
    shape.bias = module->contracts.front().bias.empty() ? 0 : 1;
    auto made = std::make_unique<gemmc_plan_opaque>();
    made->module = module;
    gemmc_status status = prepare(*module, &shape, made->plan, false);
    if (status != GEMMC_SUCCESS)
      return status;
    *plan = made.release();
    return capi::succeed();
  });
}

extern "C" gemmc_status gemmc_plan_destroy(gemmc_plan plan) {
  delete plan;
  return capi::succeed();
}

extern "C" gemmc_status gemmc_plan_workspace_size(gemmc_plan plan,
                                                  size_t *partialBytes,
                                                  size_t *counterBytes) {
  if (!plan || !partialBytes || !counterBytes)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_plan_workspace_size: the plan and the sizes must "
                      "not be null");
  *partialBytes = plan->plan->workspace().partials;
  *counterBytes = plan->plan->workspace().counters;
  return capi::succeed();
}

extern "C" gemmc_status gemmc_plan_launch(gemmc_plan plan, uint64_t a,
                                          uint64_t b, uint64_t c,
                                          uint64_t bias, void *stream,
                                          uint64_t partials,
                                          uint64_t counters) {
  if (!plan)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_plan_launch: the plan must not be null");
  return guarded([&] {
    LoadedModule &module = *plan->module;
    const Contract &contract = plan->plan->kernel().contract();
    std::string why =
        checkPointers(contract, a, b, c, bias, contract.alignment);
    if (why.empty() && plan->plan->workspace().partials && !partials != !counters)
      why = "the workspace's partials and counters are given together, or "
            "neither";
    if (!why.empty())
      return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                        module.name + ": " + why);
    module.kernels(); // its context current
    Operands operands;
    operands.a = CUdeviceptr(a);
    operands.b = CUdeviceptr(b);
    operands.c = CUdeviceptr(c);
    operands.bias = CUdeviceptr(bias);
    operands.partials = CUdeviceptr(partials);
    operands.counters = CUdeviceptr(counters);
    plan->plan->launch(operands, static_cast<CUstream>(stream));
    return capi::succeed();
  });
}

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

/// Loads the shipped family of `dtype` and the layouts for `arch` (null:
/// the current device's), batched (`_batched`) or not, once per process.
static gemmc_status loadFamily(gemmc_dtype dtype, gemmc_layout aLayout,
                               gemmc_layout bLayout, const char *arch,
                               bool batched, gemmc_module *module) {
  const char *caller =
      batched ? "gemmc_batched_family_load" : "gemmc_family_load";
  if (!module)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) + ": module must not be null");
  *module = nullptr;
  const char *types[] = {"f32", "f16", "bf16"};
  if (int(dtype) < 0 || int(dtype) > 2 ||
      (aLayout != GEMMC_ROW && aLayout != GEMMC_COL) ||
      (bLayout != GEMMC_ROW && bLayout != GEMMC_COL))
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": unknown element type or layout");
  if (arch && std::strcmp(arch, "sm_90a") && std::strcmp(arch, "sm_80"))
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string("gemmc ships families for sm_90a and sm_80, "
                                  "not ") +
                          arch);
  return guarded([&] {
    std::string target = arch ? arch : currentArch();
    std::string name = std::string(types[int(dtype)]) + "_" +
                       (aLayout == GEMMC_ROW ? "r" : "c") +
                       (bLayout == GEMMC_ROW ? "r" : "c") + "r" +
                       (batched ? "_batched" : "");
    std::string path = familyDirectory() + "/" + target + "/" + name + ".ptx";
    // One module per family and process, loaded again if destroyed.
    static std::mutex mutex;
    static std::map<std::string, gemmc_module> *loaded =
        new std::map<std::string, gemmc_module>;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = loaded->find(path);
    if (it != loaded->end() && registry().find(it->second)) {
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

extern "C" gemmc_status gemmc_family_load(gemmc_dtype dtype,
                                          gemmc_layout aLayout,
                                          gemmc_layout bLayout,
                                          const char *arch,
                                          gemmc_module *module) {
  return loadFamily(dtype, aLayout, bLayout, arch, /*batched=*/false, module);
}

extern "C" gemmc_status
gemmc_batched_family_load(gemmc_dtype dtype, gemmc_layout aLayout,
                          gemmc_layout bLayout, const char *arch,
                          gemmc_module *module) {
  return loadFamily(dtype, aLayout, bLayout, arch, /*batched=*/true, module);
}

/// A batch of `run` (a row-major C) on a family of single GEMMs: one
/// launch a matrix, each at its strides (or, where none is given, right
/// after the one before).
static gemmc_status perMatrix(gemmc_module module, gemmc_problem run,
                              gemmc_dtype dtype, gemmc_layout aLayout,
                              gemmc_layout bLayout, void *stream) {
  int64_t bytes = dtype == GEMMC_F32 ? 4 : 2;
  auto step = [&](int64_t stride, int64_t ld, int64_t denseLd, int64_t lines) {
    return (stride ? stride : (ld ? ld : denseLd) * lines) * bytes;
  };
  bool aRow = aLayout == GEMMC_ROW, bRow = bLayout == GEMMC_ROW;
  int64_t stepA = step(run.stride_a, run.lda, aRow ? run.k : run.m,
                       aRow ? run.m : run.k);
  int64_t stepB = step(run.stride_b, run.ldb, bRow ? run.n : run.k,
                       bRow ? run.k : run.n);
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
  if (!registry().find(single))
    return invalidHandle(single);
  if (!registry().find(batched))
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
