//===- CApi.cpp - the C API of gemmc's runtime ----------------------------===//
//
// Handles are ids into a registry, never pointers: a destroyed handle is
// not found, rather than dereferenced. Every entry point catches what the
// C++ runtime throws and turns it into a status and this thread's message.
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/CApi.h"
#include "gemmc-rt/Autotune.h"
#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Driver.h"
#include "gemmc-rt/Launch.h"

#include "CApiInternal.h"


#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

using namespace gemmc::rt;
using namespace gemmc::rt::capi_internal;

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
CUcontext capi_internal::useContext(CUcontext context) {
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

capi_internal::ChoiceKey
capi_internal::choiceKey(const gemmc_problem &p) {
  uint32_t alpha, beta;
  std::memcpy(&alpha, &p.alpha, sizeof(alpha));
  std::memcpy(&beta, &p.beta, sizeof(beta));
  return {p.m,        p.n,        p.k,        p.lda, p.ldb, p.ldc,      p.batch,
          p.stride_a, p.stride_b, p.stride_c, alpha, beta,  p.bias != 0};
}

namespace {
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

std::shared_ptr<LoadedModule> capi_internal::findModule(gemmc_module handle) {
  return registry().find(handle);
}

bool capi_internal::isLoaded(gemmc_module handle) {
  return registry().find(handle) != nullptr;
}

gemmc_status capi_internal::invalidHandle(gemmc_module handle) {
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
  switch (type) {
  case DType::F16:
    return GEMMC_F16;
  case DType::BF16:
    return GEMMC_BF16;
  case DType::E4M3:
    return GEMMC_E4M3;
  case DType::E5M2:
    return GEMMC_E5M2;
  case DType::F32:
    break;
  }
  return GEMMC_F32;
}

Operands capi_internal::toOperands(const gemmc_operands &given) {
  Operands operands;
  operands.a = CUdeviceptr(given.a);
  operands.b = CUdeviceptr(given.b);
  operands.c = CUdeviceptr(given.c);
  operands.bias = CUdeviceptr(given.bias);
  operands.residual = CUdeviceptr(given.residual);
  operands.scaleA = CUdeviceptr(given.scale_a);
  operands.scaleB = CUdeviceptr(given.scale_b);
  operands.amax = CUdeviceptr(given.amax);
  operands.scaleC = CUdeviceptr(given.scale_c);
  return operands;
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
  info->activation = c.activation == "relu"        ? GEMMC_ACTIVATION_RELU
                     : c.activation == "gelu"      ? GEMMC_ACTIVATION_GELU
                     : c.activation == "gelu-tanh" ? GEMMC_ACTIVATION_GELU_TANH
                     : c.activation == "silu"      ? GEMMC_ACTIVATION_SILU
                                                   : GEMMC_ACTIVATION_NONE;
  info->relu = info->activation == GEMMC_ACTIVATION_RELU;
  info->batched = p.batch != 1;
  info->grouped = p.grouped;
  info->group_table = p.groupTable;
  info->residual = c.residual;
  info->amax = c.amax;
  info->output_scale = c.outputScale;
  info->scales = c.scales == "tensor"    ? GEMMC_SCALES_TENSOR
                 : c.scales == "rowwise" ? GEMMC_SCALES_ROWWISE
                 : c.scales == "block"   ? GEMMC_SCALES_BLOCK
                                         : GEMMC_SCALES_NONE;
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
    why = checkPointers(contract, operandsOf(*given));
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
    if (status != GEMMC_SUCCESS)
      return status;
    // A measured choice (gemmc_autotune) runs the problem where one was
    // made.
    if (const KernelFamily *kernels = choice.kernels) {
      std::lock_guard<std::mutex> lock(module->choiceMutex);
      auto it = module->choices.find(choiceKey(*given));
      if (it != module->choices.end())
        for (size_t i = 0; i < kernels->variants().size(); ++i)
          if (kernels->variants()[i].get() == &it->second->kernel())
            *variant = int(i);
    }
    return capi::succeed();
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

extern "C" gemmc_status gemmc_autotune(gemmc_module handle,
                                       const gemmc_problem *given, void *stream,
                                       int candidates, int *variant) {
  std::shared_ptr<LoadedModule> module = registry().find(handle);
  if (!module)
    return invalidHandle(handle);
  if (!given)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_autotune: the problem must not be null");
  if (candidates < 1)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_autotune: candidates must be 1 or more, got " +
                          std::to_string(candidates));
  return guarded([&] {
    const KernelFamily &kernels = module->kernels();
    int chosen = -1;
    Problem problem;
    gemmc_status status = choose(*module, given, &kernels, chosen, problem);
    if (status != GEMMC_SUCCESS)
      return status;
    std::string why = checkBuffers(
        kernels.variants()[size_t(chosen)]->contract(), problem, *given);
    if (!why.empty())
      return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                        module->name + ": " + why);
    AutotuneOptions options;
    options.candidates = candidates;
    std::vector<MeasuredVariant> measured =
        measureChoice(kernels, problem, toOperands(operandsOf(*given)),
                      static_cast<CUstream>(stream), options);
    const MeasuredVariant &best = fastestMeasured(measured);
    auto plan = std::make_shared<const LaunchPlan>(
        *kernels.variants()[best.index], problem, best.splits);
    {
      std::lock_guard<std::mutex> lock(module->choiceMutex);
      module->choices[choiceKey(*given)] = plan;
    }
    if (variant)
      *variant = int(best.index);
    return capi::succeed();
  });
}

gemmc_status capi_internal::prepare(LoadedModule &module,
                                    const gemmc_problem *given,
                                    std::shared_ptr<const LaunchPlan> &out,
                                    bool pointers) {
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
          pointers ? checkPointers(module.contracts.front(), operandsOf(*given))
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
    Operands operands = toOperands(operandsOf(*given));
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
