//===- CApiPlans.cpp - plans and grouped GEMMs of the C API --------------===//
//
// A plan holds a problem's launch worked out once (variant, splits,
// workspace), with the module it came from; grouped GEMMs launch through
// it or at once. The modules and one-call launches are CApi.cpp's.
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/CApi.h"
#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Launch.h"

#include "CApiInternal.h"
#include "TableStaging.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace gemmc::rt;
using namespace gemmc::rt::capi_internal;

//===----------------------------------------------------------------------===//
// Plans: a problem's launch worked out once
//===----------------------------------------------------------------------===//

struct gemmc_plan_opaque {
  std::shared_ptr<LoadedModule> module;
  std::shared_ptr<const LaunchPlan> plan;
  /// A group-table plan's memory for rows from the host
  /// (gemmc_grouped_table_plan_launch_rows), made at its first launch.
  std::once_flag stagingMade;
  std::unique_ptr<TableStaging> staging;
  /// A group-table family's launch of each variant (by its place in the
  /// family; null where its contract refuses the plan's problem), where
  /// it has more than one: rows from the host choose among them by the
  /// rows a group. `plan` is the one for a table on the device alone.
  std::vector<std::shared_ptr<const LaunchPlan>> variants;
};

/// A plan of module `handle` into `plan`, its launch made by `make` (of
/// the module); `caller` and `given` (whether the problem is) for the
/// messages.
static gemmc_status
createPlan(gemmc_module handle, bool given, const char *caller,
           gemmc_plan *plan,
           const std::function<gemmc_status(
               LoadedModule &, std::shared_ptr<const LaunchPlan> &)> &make) {
  std::shared_ptr<LoadedModule> module = findModule(handle);
  if (!module)
    return invalidHandle(handle);
  if (!given || !plan)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) +
                          ": the problem and the plan must not be null");
  return guarded([&] {
    auto made = std::make_unique<gemmc_plan_opaque>();
    made->module = module;
    gemmc_status status = make(*module, made->plan);
    if (status != GEMMC_SUCCESS)
      return status;
    *plan = made.release();
    return capi::succeed();
  });
}

extern "C" gemmc_status gemmc_plan_create(gemmc_module handle,
                                          const gemmc_problem *problem,
                                          gemmc_plan *plan) {
  return createPlan(
      handle, problem, "gemmc_plan_create", plan,
      [&](LoadedModule &module, std::shared_ptr<const LaunchPlan> &out) {
        // The pointers are the launches'; whether a bias is given, the
        // contract's.
        const Contract &contract = module.contracts.front();
        gemmc_problem shape = *problem;
        shape.a = shape.b = shape.c = 0;
        shape.bias = contract.bias.empty() ? 0 : 1;
        shape.residual = contract.residual ? 1 : 0;
        shape.amax = contract.amax ? 1 : 0;
        shape.scale_c = contract.outputScale ? 1 : 0;
        shape.scale_a = shape.scale_b = contract.scales.empty() ? 0 : 1;
        return prepare(module, &shape, out, false);
      });
}

extern "C" gemmc_status gemmc_plan_destroy(gemmc_plan plan) {
  return guarded([&] {
    if (plan && plan->staging)
      plan->module->kernels(); // the staging's context current
    delete plan;
    return capi::succeed();
  });
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
  gemmc_operands operands = {a, b, c, bias, 0, 0, 0, 0, 0};
  return gemmc_plan_launch_operands(plan, &operands, stream, partials,
                                    counters);
}

extern "C" gemmc_status
gemmc_plan_launch_operands(gemmc_plan plan, const gemmc_operands *given,
                           void *stream, uint64_t partials,
                           uint64_t counters) {
  if (!plan || !given)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      !plan ? "gemmc_plan_launch: the plan must not be null"
                            : "gemmc_plan_launch_operands: the operands must "
                              "not be null");
  return guarded([&] {
    LoadedModule &module = *plan->module;
    const Contract &contract = plan->plan->kernel().contract();
    if (contract.problem.grouped)
      return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                        module.name + ": the plan is of a grouped GEMM: "
                                      "launch it with "
                                      "gemmc_grouped_plan_launch");
    std::string why = checkPointers(contract, *given, contract.alignment);
    if (why.empty() && plan->plan->workspace().partials && !partials != !counters)
      why = "the workspace's partials and counters are given together, or "
            "neither";
    if (!why.empty())
      return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                        module.name + ": " + why);
    module.kernels(); // its context current
    Operands operands = toOperands(*given);
    operands.partials = CUdeviceptr(partials);
    operands.counters = CUdeviceptr(counters);
    plan->plan->launch(operands, static_cast<CUstream>(stream));
    return capi::succeed();
  });
}

//===----------------------------------------------------------------------===//
// Grouped GEMMs
//===----------------------------------------------------------------------===//

extern "C" void gemmc_grouped_problem_init(gemmc_grouped_problem *problem,
                                           int64_t m, int64_t n, int64_t k,
                                           int64_t groups) {
  if (!problem)
    return;
  *problem = {};
  problem->m = m;
  problem->n = n;
  problem->k = k;
  problem->groups = groups;
  problem->alpha = 1;
}

/// The launch of grouped problem `given` on `module`'s kernel (the
/// variant its rule picks; JIT-compiles the module), or a failure.
static gemmc_status prepareGrouped(LoadedModule &module,
                                   const gemmc_grouped_problem *given,
                                   std::shared_ptr<const LaunchPlan> &out) {
  if (!given)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "the problem must not be null");
  const Contract &contract = module.contracts.front();
  if (!contract.problem.grouped)
    return capi::fail(GEMMC_ERROR_UNSUPPORTED_PROBLEM,
                      module.name + " computes one GEMM, not a grouped one: "
                                    "launch it with gemmc_launch");
  gemmc_problem shape;
  gemmc_problem_init(&shape, given->m, given->n, given->k);
  shape.lda = given->lda;
  shape.ldb = given->ldb;
  shape.ldc = given->ldc;
  shape.stride_b = given->stride_b;
  shape.alpha = given->alpha;
  std::string why = checkSizes(shape);
  if (why.empty() && (given->groups < 1 || given->groups > INT32_MAX))
    why = "groups must be at least 1 (and below 2^31), got " +
          std::to_string(given->groups);
  if (!why.empty())
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT, module.name + ": " + why);
  Problem problem = toProblem(contract, shape);
  problem.grouped = true;
  problem.groups = given->groups;
  const KernelFamily &kernels = module.kernels();
  const ContractKernel *kernel = kernels.select(problem, why);
  if (!kernel)
    return capi::fail(GEMMC_ERROR_UNSUPPORTED_PROBLEM,
                      module.name + " cannot compute " + problem.str() + ": " +
                          why);
  out = std::make_shared<const LaunchPlan>(*kernel, problem);
  return GEMMC_SUCCESS;
}

/// The operands of a grouped launch.
static Operands groupedOperands(const gemmc_operands &given,
                                uint64_t offsets) {
  Operands operands = toOperands(given);
  operands.offsets = CUdeviceptr(offsets);
  return operands;
}

extern "C" gemmc_status
gemmc_grouped_launch(gemmc_module handle, const gemmc_grouped_problem *given,
                     void *stream) {
  std::shared_ptr<LoadedModule> module = findModule(handle);
  if (!module)
    return invalidHandle(handle);
  return guarded([&] {
    std::shared_ptr<const LaunchPlan> plan;
    gemmc_status status = prepareGrouped(*module, given, plan);
    if (status != GEMMC_SUCCESS)
      return status;
    const Contract &contract = plan->kernel().contract();
    gemmc_operands operands = {given->a,       given->b,       given->c, 0, 0,
                               given->scale_a, given->scale_b, 0,        0};
    std::string why = checkPointers(contract, operands);
    if (why.empty() && !given->offsets)
      why = "the offsets must not be null";
    if (why.empty())
      why = checkGroupedBuffers(contract, plan->problem(), operands,
                                given->offsets);
    if (!why.empty())
      return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                        module->name + ": " + why);
    plan->launch(groupedOperands(operands, given->offsets),
                 static_cast<CUstream>(stream));
    return capi::succeed();
  });
}

extern "C" gemmc_status
gemmc_grouped_plan_create(gemmc_module handle,
                          const gemmc_grouped_problem *problem,
                          gemmc_plan *plan) {
  return createPlan(
      handle, problem, "gemmc_grouped_plan_create", plan,
      [&](LoadedModule &module, std::shared_ptr<const LaunchPlan> &out) {
        return prepareGrouped(module, problem, out);
      });
}

/// Launches grouped plan `plan` with `operands` (their pointers checked
/// for null and alignment) for `caller`.
static gemmc_status launchGroupedPlan(const char *caller, gemmc_plan plan,
                                      const gemmc_operands &operands,
                                      uint64_t offsets, void *stream) {
  if (!plan)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      std::string(caller) + ": the plan must not be null");
  return guarded([&] {
    LoadedModule &module = *plan->module;
    const Contract &contract = plan->plan->kernel().contract();
    if (!contract.problem.grouped)
      return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                        module.name + ": the plan is of one GEMM: launch it "
                                      "with gemmc_plan_launch");
    std::string why = checkPointers(contract, operands, contract.alignment);
    if (why.empty() && (!offsets || offsets % 4))
      why = "the offsets must not be null, and 4-byte aligned";
    if (!why.empty())
      return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                        module.name + ": " + why);
    module.kernels(); // its context current
    plan->plan->launch(groupedOperands(operands, offsets),
                       static_cast<CUstream>(stream));
    return capi::succeed();
  });
}

extern "C" gemmc_status gemmc_grouped_plan_launch(gemmc_plan plan, uint64_t a,
                                                  uint64_t b, uint64_t c,
                                                  uint64_t offsets,
                                                  void *stream) {
  gemmc_operands operands = {a, b, c, 0, 0, 0, 0, 0, 0};
  return launchGroupedPlan("gemmc_grouped_plan_launch", plan, operands,
                           offsets, stream);
}

extern "C" gemmc_status
gemmc_grouped_plan_launch_operands(gemmc_plan plan,
                                   const gemmc_operands *operands,
                                   uint64_t offsets, void *stream) {
  if (!operands)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_grouped_plan_launch_operands: the operands must "
                      "not be null");
  return launchGroupedPlan("gemmc_grouped_plan_launch_operands", plan,
                           *operands, offsets, stream);
}

extern "C" gemmc_status
gemmc_grouped_table_plan_create(gemmc_module handle, int64_t groups,
                                float alpha, float beta, gemmc_plan *plan) {
  std::vector<std::shared_ptr<const LaunchPlan>> variants;
  gemmc_status status = createPlan(
      handle, /*given=*/true, "gemmc_grouped_table_plan_create", plan,
      [&](LoadedModule &module, std::shared_ptr<const LaunchPlan> &out) {
        const Contract &contract = module.contracts.front();
        if (!contract.problem.groupTable)
          return capi::fail(GEMMC_ERROR_UNSUPPORTED_PROBLEM,
                            module.name + " reads no group table: launch it "
                                          "with gemmc_grouped_launch or "
                                          "gemmc_launch");
        if (groups < 1 || groups > INT32_MAX)
          return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                            module.name + ": groups must be at least 1 (and "
                                          "below 2^31), got " +
                                std::to_string(groups));
        // The sizes are the table's, on the device: these stand for them.
        gemmc_problem shape;
        gemmc_problem_init(&shape, 1, 1, 1);
        shape.alpha = alpha;
        shape.beta = beta;
        Problem problem = toProblem(contract, shape);
        problem.grouped = problem.groupTable = true;
        problem.groups = groups;
        // With the table on the device alone the rows a group are unknown
        // (m 0): the variant for any rows.
        Problem unknownRows = problem;
        unknownRows.m = 0;
        const KernelFamily &family = module.kernels();
        std::string why;
        const ContractKernel *kernel = family.select(unknownRows, why);
        if (!kernel)
          return capi::fail(GEMMC_ERROR_UNSUPPORTED_PROBLEM,
                            module.name + " cannot compute " + problem.str() +
                                ": " + why);
        out = std::make_shared<const LaunchPlan>(*kernel, problem);
        if (family.variants().size() > 1)
          for (const auto &variant : family.variants())
            variants.push_back(
                accepts(variant->contract(), problem, why)
                    ? std::make_shared<const LaunchPlan>(*variant, problem)
                    : nullptr);
        return GEMMC_SUCCESS;
      });
  if (status == GEMMC_SUCCESS)
    (*plan)->variants = std::move(variants);
  return status;
}

/// The launch of `plan` (a group-table plan) for the table's `rows` from
/// the host: its family's variant for the rows a group (the groups' rows
/// in all over the groups).
static const LaunchPlan &launchForRows(const gemmc_plan_opaque &plan,
                                       const int64_t *rows) {
  if (plan.variants.empty())
    return *plan.plan;
  Problem problem = plan.plan->problem();
  problem.m = tableRows(rows, problem.groups);
  std::string why;
  const ContractKernel *kernel = plan.module->kernels().select(problem, why);
  const auto &variants = plan.module->kernels().variants();
  for (size_t i = 0; i < variants.size(); ++i)
    if (variants[i].get() == kernel && plan.variants[i])
      return *plan.variants[i];
  return *plan.plan;
}

/// Success where `plan`'s kernel reads a group table, else the error.
static gemmc_status readsGroupTable(const gemmc_plan_opaque &plan) {
  if (plan.plan->kernel().contract().problem.groupTable)
    return GEMMC_SUCCESS;
  return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                    plan.module->name + ": the plan reads no group table");
}

extern "C" gemmc_status gemmc_grouped_table_plan_launch(gemmc_plan plan,
                                                        uint64_t table,
                                                        void *stream) {
  if (!plan)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_grouped_table_plan_launch: the plan must not be "
                      "null");
  return guarded([&] {
    LoadedModule &module = *plan->module;
    if (gemmc_status status = readsGroupTable(*plan))
      return status;
    if (!table || table % 8)
      return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                        module.name + ": the table must not be null, and "
                                      "8-byte aligned");
    module.kernels(); // its context current
    Operands operands;
    operands.table = CUdeviceptr(table);
    plan->plan->launch(operands, static_cast<CUstream>(stream));
    return capi::succeed();
  });
}

extern "C" gemmc_status
gemmc_grouped_table_plan_launch_rows(gemmc_plan plan, const int64_t *rows,
                                     void *stream) {
  if (!plan || !rows)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_grouped_table_plan_launch_rows: the plan and "
                      "the rows must not be null");
  return guarded([&] {
    LoadedModule &module = *plan->module;
    if (gemmc_status status = readsGroupTable(*plan))
      return status;
    const LaunchPlan &launch = launchForRows(*plan, rows);
    module.kernels(); // its context current
    auto cuStream = static_cast<CUstream>(stream);
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    GEMMC_CU(DriverApi::get().cuStreamIsCapturing(cuStream, &capture));
    if (capture != CU_STREAM_CAPTURE_STATUS_NONE)
      return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                        module.name +
                            ": the rows are copied from the host at the call, "
                            "which a CUDA graph would not replay: capture "
                            "gemmc_grouped_table_plan_launch with the table on "
                            "the device");
    std::call_once(plan->stagingMade, [&] {
      plan->staging = std::make_unique<TableStaging>(
          size_t(launch.problem().groups * kGroupTableColumns) *
          sizeof(int64_t));
    });
    plan->staging->launch(rows, cuStream, [&](CUdeviceptr table) {
      Operands operands;
      operands.table = table;
      launch.launch(operands, cuStream);
    });
    return capi::succeed();
  });
}
