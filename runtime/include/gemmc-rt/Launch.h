//===- Launch.h - launching a kernel as its contract says ---------------===//

#ifndef GEMMC_RT_LAUNCH_H
#define GEMMC_RT_LAUNCH_H

#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Driver.h"

#include <memory>
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
  /// The blocks of a persistent grid (`grid: SM`) on this device.
  int persistentBlocks() const { return residentBlocks; }

  /// Returns an empty string if the kernel can compute `problem`, otherwise
  /// why not.
  std::string whyNot(const Problem &problem) const;

  /// Launches on the default stream for `problem`, which the kernel must
  /// accept (see whyNot).
  void launch(const Operands &operands, const Problem &problem) const;

private:
  /// The launch of a cluster kernel with a grid of `gridX` x 1 x 1
  /// (`cluster` holds its one attribute).
  CUlaunchConfig launchConfig(unsigned gridX,
                              CUlaunchAttribute &cluster) const;

  Contract spec;
  Module module;
  CUfunction function = nullptr;
  KernelInfo jitInfo;
  /// A persistent grid's size: the device's multiprocessors, or for a
  /// cluster kernel the blocks of as many clusters as fit at once.
  int residentBlocks = 1;
  /// Split-K's workspace and counters, grown to the largest problem
  /// launched (launches on one stream use them in turn).
  mutable std::unique_ptr<DeviceBuffer> workspace, counters;
  /// The workspace and counters for `problem`, allocated on first need.
  void reserveWorkspace(const Problem &problem) const;
};

} // namespace gemmc::rt

#endif // GEMMC_RT_LAUNCH_H
