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
  for (const std::string &param : spec.params)
    if (param != "A:ptr" && param != "B:ptr" && param != "C:ptr")
      throw std::runtime_error(file + ": contract parameter '" + param +
                               "' is not supported by this runtime");
}

std::string ContractKernel::whyNot(const Problem &p) const {
  const Problem &k = spec.problem;
  if (p.m != k.m || p.n != k.n || p.k != k.k)
    return "the kernel was compiled for " + std::to_string(k.m) + "x" +
           std::to_string(k.n) + "x" + std::to_string(k.k) + ", not " +
           std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
           std::to_string(p.k);
  if (p.a != k.a || p.b != k.b || p.c != k.c || p.acc != k.acc)
    return "element types differ: kernel " + k.str() + ", problem " + p.str();
  if (p.aLayout != k.aLayout || p.bLayout != k.bLayout ||
      p.cLayout != k.cLayout)
    return "layouts differ: kernel " + k.str() + ", problem " + p.str();
  int threads = int(spec.block[0] * spec.block[1] * spec.block[2]);
  if (threads > jitInfo.maxThreadsPerBlock)
    return "the block needs " + std::to_string(threads) +
           " threads but the JIT allows " +
           std::to_string(jitInfo.maxThreadsPerBlock);
  return "";
}

void ContractKernel::launch(const Operands &operands) const {
  const Problem &p = spec.problem;
  std::vector<CUdeviceptr> pointers;
  for (const std::string &param : spec.params)
    pointers.push_back(param[0] == 'A'   ? operands.a
                       : param[0] == 'B' ? operands.b
                                         : operands.c);
  std::vector<void *> args;
  for (CUdeviceptr &ptr : pointers)
    args.push_back(&ptr);
  unsigned grid[3];
  for (int i = 0; i < 3; ++i)
    grid[i] = unsigned(spec.grid[i].evaluate(p.m, p.n, p.k));
  GEMMC_CU(DriverApi::get().cuLaunchKernel(
      function, grid[0], grid[1], grid[2], spec.block[0], spec.block[1],
      spec.block[2], unsigned(spec.dynamicSharedBytes), nullptr, args.data(),
      nullptr));
}
