//===- CApiInternal.h - what the C API's units share ----------*- C++ -*-===//
//
// Private to libgemmc_runtime (runtime/lib): what CApi.cpp (modules and
// launches), CApiPlans.cpp (plans, grouped GEMMs), CApiFamilies.cpp and
// CApiProblems.cpp share. Not exported (exports.map).
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RT_LIB_CAPIINTERNAL_H
#define GEMMC_RT_LIB_CAPIINTERNAL_H

#include "gemmc-rt/CApi.h"
#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Driver.h"
#include "gemmc-rt/Launch.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace gemmc::rt::capi_internal {

/// Runs `body`, mapping what it throws to a status.
template <typename Body> gemmc_status guarded(Body &&body) {
  try {
    return body();
  } catch (const NoGpuError &e) {
    return capi::fail(GEMMC_ERROR_NO_GPU, e.what());
  } catch (const CudaError &e) {
    return capi::fail(GEMMC_ERROR_CUDA, e.what());
  } catch (const UsageError &e) {
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc &) {
    return capi::fail(GEMMC_ERROR_INTERNAL, "out of host memory");
  } catch (const std::exception &e) {
    return capi::fail(GEMMC_ERROR_INTERNAL, e.what());
  }
}

/// Makes `context` current on this thread, or, with none given, the current
/// context or else device 0's primary one; returns the one current.
CUcontext useContext(CUcontext context);

/// A problem as the choice sees it: every field but the pointers (and
/// whether a bias is given).
using ChoiceKey = std::array<int64_t, 13>;
ChoiceKey choiceKey(const gemmc_problem &p);

/// `given` as a problem of `contract`'s kind (CApiProblems.cpp).
Problem toProblem(const Contract &contract, const gemmc_problem &given);
/// Why `given`'s sizes cannot be launched whatever the variant ("" where
/// they can).
std::string checkSizes(const gemmc_problem &given);
/// The device addresses `given` names.
gemmc_operands operandsOf(const gemmc_problem &given);
/// Why these pointers cannot be launched on `contract`'s kernels: null, a
/// bias, R or scales given or missing against the contract, or (checked
/// only where `alignment` is given) misaligned.
std::string checkPointers(const Contract &contract,
                          const gemmc_operands &operands,
                          int64_t alignment = 1);
/// Why A's, B's, C's, the bias's, R's or the scales' buffer cannot hold
/// `p`'s operands: not device memory, misaligned, or too small.
std::string checkBuffers(const Contract &contract, const Problem &p,
                         const gemmc_problem &given);

/// Why a grouped launch's buffers cannot hold its problem `p`: A, C,
/// B's matrices, the scales (B's a group) and the offsets (`groups`
/// int32).
std::string checkGroupedBuffers(const Contract &contract, const Problem &p,
                                const gemmc_operands &given,
                                uint64_t offsets);

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

/// The module `handle` names, or null (destroyed, or never loaded).
std::shared_ptr<LoadedModule> findModule(gemmc_module handle);
/// Whether `handle` is a loaded module; else GEMMC_ERROR_INVALID_HANDLE
/// with its message.
bool isLoaded(gemmc_module handle);
gemmc_status invalidHandle(gemmc_module handle);

/// The runtime's operands at the addresses of `given`.
Operands toOperands(const gemmc_operands &given);
/// The launch of `given` on the variant the module chooses for it, from
/// the module's cache where the problem was seen before (JIT-compiles the
/// module). The pointers are checked where `pointers` says so.
gemmc_status prepare(LoadedModule &module, const gemmc_problem *given,
                     std::shared_ptr<const LaunchPlan> &out,
                     bool pointers = true);

} // namespace gemmc::rt::capi_internal

#endif // GEMMC_RT_LIB_CAPIINTERNAL_H
