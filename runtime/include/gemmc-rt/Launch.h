//===- Launch.h - launching a kernel as its contract says ---------------===//

#ifndef GEMMC_RT_LAUNCH_H
#define GEMMC_RT_LAUNCH_H

#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Driver.h"

#include <string>

namespace gemmc::rt {

/// Device pointers of the operands.
struct Operands {
  CUdeviceptr a = 0, b = 0, c = 0;
  CUdeviceptr bias = 0; ///< the epilogue's bias vector, if any
};

/// A kernel from a PTX file with its contract, ready to launch.
class ContractKernel {
public:
  /// Parses the contract of `ptx`, JIT-compiles it and looks up its entry.
  /// Throws CudaError (or std::runtime_error for a bad contract).
  ContractKernel(const std::string &ptx, const std::string &file,
                 int optLevel);

  const Contract &contract() const { return spec; }
  const KernelInfo &info() const { return jitInfo; }

  /// Returns an empty string if the kernel can compute `problem`, otherwise
  /// why not.
  std::string whyNot(const Problem &problem) const;

  /// Launches on the default stream for `problem`, which the kernel must
  /// accept (see whyNot).
  void launch(const Operands &operands, const Problem &problem) const;

private:
  Contract spec;
  Module module;
  CUfunction function = nullptr;
  KernelInfo jitInfo;
  /// The device's multiprocessors: a persistent grid's size.
  int multiprocessors = 1;
};

} // namespace gemmc::rt

#endif // GEMMC_RT_LAUNCH_H
