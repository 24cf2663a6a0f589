//===- Launch.h - launching a kernel as its contract says ---------------===//

#ifndef GEMMC_RT_LAUNCH_H
#define GEMMC_RT_LAUNCH_H

#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Driver.h"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gemmc::rt {

/// A launch that cannot be made as asked, whatever the driver would say:
/// the C API's GEMMC_ERROR_INVALID_ARGUMENT.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Device pointers of the operands.
struct Operands {
  CUdeviceptr a = 0, b = 0, c = 0;
  CUdeviceptr bias = 0; ///< the epilogue's bias vector, if any
  /// R, added last where the problem has `residual` (C's shape and
  /// strides; it must not overlap C).
  CUdeviceptr residual = 0;
  /// FP8's scales (f32): one each, or one per row of A and per column of
  /// B, where the problem has `scales`.
  CUdeviceptr scaleA = 0, scaleB = 0;
  /// Where the problem has `amax`: an f32 that the launch zeroes (on the
  /// launch's stream, before the kernel) and the kernel raises to max |C|.
  CUdeviceptr amax = 0;
  /// Where the problem has `output-scale`: C's scale (one f32), by which
  /// the kernel multiplies an FP8 C's values before their cast.
  CUdeviceptr scaleC = 0;
  /// A grouped GEMM's offsets (i32, one a group: where its rows end).
  CUdeviceptr offsets = 0;
  /// Its general form's group table (i64, a row a group: GroupColumn).
  CUdeviceptr table = 0;
  /// Split-K's partial tiles and counters where the caller gives them (of
  /// ContractKernel::workspaceBytes; the counters zero, as the kernel
  /// leaves them), so that a launch allocates nothing (a CUDA graph's
  /// capture allows no allocation); 0: the kernel's own, per stream.
  CUdeviceptr partials = 0, counters = 0;
};

/// The bytes of split-K's partial tiles and of its counters for one launch.
struct WorkspaceBytes {
  size_t partials = 0, counters = 0;
};

/// A kernel from a PTX file with its contract, ready to launch.
class ContractKernel {
public:
  /// Parses the contract of `ptx`, JIT-compiles it and looks up its entry.
  /// Throws CudaError (or std::runtime_error for a bad contract).
  ContractKernel(const std::string &ptx, const std::string &file,
                 int optLevel);
  /// The kernel of `contract` in an already loaded module (a family's
  /// variants share theirs).
  ContractKernel(std::shared_ptr<const Module> module, Contract contract,
                 const std::string &file);

  const Contract &contract() const { return spec; }
  const KernelInfo &info() const { return jitInfo; }
  /// The blocks of a persistent grid (`grid: SM`) on this device.
  int persistentBlocks() const { return residentBlocks; }

  /// Returns an empty string if the kernel can compute `problem`, otherwise
  /// why not.
  std::string whyNot(const Problem &problem) const;

  /// The splits of K a launch for `problem` takes: where the kernel's
  /// contract leaves them to the launch (`split-k ?`), those the cost model
  /// predicts fastest on this device (chooseSplits, the rule that ranks a
  /// family's variants); the contract's count otherwise.
  int64_t splitsFor(const Problem &problem) const;

  /// What a launch for `problem` with `splits` splits of K (as launch
  /// takes them) needs of workspace: none for a kernel that does not split.
  WorkspaceBytes workspaceBytes(const Problem &problem, int64_t splits) const;

  /// Launches on `stream` (null: the default stream) for `problem`, which
  /// the kernel must accept (see whyNot), with `splits` splits of K where
  /// the contract leaves them to the launch (0: splitsFor; at most
  /// Contract::maxSplits). Thread-safe. (A LaunchPlan made once and
  /// launched many times does the same for less.)
  void launch(const Operands &operands, const Problem &problem,
              CUstream stream = nullptr, int64_t splits = 0) const;

private:
  friend class LaunchPlan;
  /// The launch of a cluster kernel with a grid of `gridX` x 1 x 1
  /// (`cluster` holds its one attribute).
  CUlaunchConfig launchConfig(unsigned gridX,
                              CUlaunchAttribute &cluster) const;

  Contract spec;
  std::shared_ptr<const Module> module;
  CUfunction function = nullptr;
  KernelInfo jitInfo;
  /// A persistent grid's size: the device's multiprocessors, or for a
  /// cluster kernel the blocks of as many clusters as fit at once.
  int residentBlocks = 1;
  /// The device as the cost model sees it (splitsFor).
  DeviceModel deviceModel;
  /// The split-K workspace and counters of `stream` in the current context
  /// for `problem` with `splits` splits (their device addresses): one pair
  /// per context and stream that every kernel shares (launches on one
  /// stream run in its order, and each leaves the counters zero), grown to
  /// the largest launch there.
  std::pair<CUdeviceptr, CUdeviceptr>
  reserveWorkspace(const Problem &problem, int64_t splits,
                   CUstream stream) const;
};

/// One problem's launch of a kernel, worked out once: its splits of K, its
/// grid, the workspace it needs and the bytes of every argument but those
/// that hold the operands' addresses (pointers, memref descriptors' base
/// pointers and tensor maps), which each launch fills in. Immutable once
/// made: launches from many threads may share one.
class LaunchPlan {
public:
  /// The launch of `problem`, which `kernel` must accept (whyNot), with
  /// `splits` as ContractKernel::launch takes them. Throws
  /// std::runtime_error where more splits are asked than fit.
  LaunchPlan(const ContractKernel &kernel, const Problem &problem,
             int64_t splits = 0);

  const ContractKernel &kernel() const { return *owner; }
  const Problem &problem() const { return p; }
  /// The splits of K it runs (1 for a kernel that does not split).
  int64_t splits() const { return splitCount; }
  /// The workspace a launch needs where the caller gives it.
  WorkspaceBytes workspace() const { return need; }

  /// Launches on `stream` with the addresses of `operands` (partials and
  /// counters both 0: the runtime's own, per stream). Checks nothing of
  /// the addresses. Thread-safe.
  void launch(const Operands &operands, CUstream stream = nullptr) const;

private:
  /// Where an argument's address comes from.
  enum class Source {
    A,
    B,
    C,
    Offsets,
    Table,
    Bias,
    Residual,
    ScaleA,
    ScaleB,
    Amax,
    ScaleC,
    Partials,
    Counters
  };
  /// An argument that holds an address: a pointer (a memref descriptor's
  /// two), or a tensor map of matrix `source`.
  struct Patch {
    size_t offset;
    Source source;
    bool tensorMap;
    TensorMapBox box;
  };

  const ContractKernel *owner;
  Problem p;
  int64_t splitCount = 1;
  WorkspaceBytes need;
  unsigned grid[3] = {1, 1, 1};
  /// The arguments' bytes, each at `offsets` (64-byte aligned for a tensor
  /// map), with zeros where `patches` go.
  std::vector<unsigned char> image;
  std::vector<size_t> offsets;
  std::vector<Patch> patches;
};

/// The kernels of one PTX module: a kernel, or the variants of a kernel
/// family (contract version 5), JIT-compiled once.
class KernelFamily {
public:
  /// Parses the contracts of `ptx`, JIT-compiles it and looks up each
  /// entry. Throws CudaError (or std::runtime_error for a bad contract).
  KernelFamily(const std::string &ptx, const std::string &file, int optLevel);
  /// The same with the contracts of `ptx` already parsed (parseContracts).
  KernelFamily(std::vector<Contract> contracts, const std::string &ptx,
               const std::string &file, int optLevel);

  /// The family's name, or the one kernel's entry.
  const std::string &name() const { return familyName; }
  bool isFamily() const { return !kernels.front()->contract().family.empty(); }
  const std::vector<std::unique_ptr<ContractKernel>> &variants() const {
    return kernels;
  }
  /// The first variant's contract: its problem (types, layouts, epilogue)
  /// is every variant's.
  const Contract &contract() const { return kernels.front()->contract(); }

  /// The variant that runs `problem` (docs/selection.md): an override
  /// whose `when` holds it, else the one the cost model predicts fastest
  /// on this device, among those whose contract takes it. Null if none
  /// does, with `why` saying each one's reason.
  const ContractKernel *select(const Problem &problem, std::string &why) const;
  /// Every variant in the order of choice, with its predicted time or the
  /// reason it cannot run `problem`.
  std::vector<RankedVariant> rank(const Problem &problem) const;
  /// The device the family was loaded for, as the cost model sees it.
  const DeviceModel &device() const { return deviceModel; }

private:
  std::string familyName;
  DeviceModel deviceModel;
  std::vector<Contract> contracts;
  std::vector<std::unique_ptr<ContractKernel>> kernels;
};

} // namespace gemmc::rt

#endif // GEMMC_RT_LAUNCH_H
