//===- Launch.cpp - launching a kernel as its contract says -------------===//

#include "gemmc-rt/Launch.h"

#include <stdexcept>
#include <vector>

using namespace gemmc::rt;

static Contract parseOrThrow(const std::string &ptx, const std::string &file) {
  Contract contract;
  std::string error;
  if (!parseContract(ptx, contract, error))
    throw std::runtime_error(file + ": " + error);
  return contract;
}

ContractKernel::ContractKernel(const std::string &ptx, const std::string &file,
                               int optLevel)
    : spec(parseOrThrow(ptx, file)), module(ptx, file, optLevel) {
  function = module.getFunction(spec.entry);
  jitInfo = Module::getInfo(function);
  const DriverApi &api = DriverApi::get();
  if (spec.dynamicSharedBytes > 48 * 1024)
    GEMMC_CU(api.cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        static_cast<int>(spec.dynamicSharedBytes)));
}

std::string ContractKernel::whyNot(const Problem &problem) const {
  std::string why;
  if (!accepts(spec, problem, why))
    return why;
  int threads = int(spec.block[0] * spec.block[1] * spec.block[2]);
  if (threads > jitInfo.maxThreadsPerBlock)
    return "the block needs " + std::to_string(threads) +
           " threads but the JIT allows " +
           std::to_string(jitInfo.maxThreadsPerBlock);
  return "";
}

void ContractKernel::launch(const Operands &operands,
                            const Problem &p) const {
  // One slot per parameter, in the contract's order.
  std::vector<CUdeviceptr> pointers(spec.params.size());
  std::vector<int32_t> sizes(spec.params.size());
  std::vector<float> scalars(spec.params.size());
  std::vector<void *> args;
  for (size_t i = 0; i < spec.params.size(); ++i) {
    const std::string &name = spec.params[i].name;
    if (spec.params[i].kind == "ptr") {
      pointers[i] = name == "A"      ? operands.a
                    : name == "B"    ? operands.b
                    : name == "bias" ? operands.bias
                                     : operands.c;
      args.push_back(&pointers[i]);
      continue;
    }
    if (spec.params[i].kind == "f32") {
      scalars[i] = name == "alpha" ? p.alpha : p.beta;
      args.push_back(&scalars[i]);
      continue;
    }
    sizes[i] = int32_t(name == "M" ? p.m : name == "N" ? p.n : p.k);
    args.push_back(&sizes[i]);
  }
  unsigned grid[3];
  for (int i = 0; i < 3; ++i)
    grid[i] = unsigned(spec.grid[i].evaluate(p.m, p.n, p.k, p.batch));
  GEMMC_CU(DriverApi::get().cuLaunchKernel(
      function, grid[0], grid[1], grid[2], spec.block[0], spec.block[1],
      spec.block[2], unsigned(spec.dynamicSharedBytes), nullptr, args.data(),
      nullptr));
}
