//===- Launch.cpp - launching a kernel as its contract says -------------===//

#include "gemmc-rt/Launch.h"

#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
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
    : ContractKernel(std::make_shared<const Module>(ptx, file, optLevel),
                     parseOrThrow(ptx, file), file) {}

ContractKernel::ContractKernel(std::shared_ptr<const Module> loaded,
                               Contract contract, const std::string &file)
    : spec(std::move(contract)), module(std::move(loaded)),
      deviceModel(currentDeviceModel()) {
  function = module->getFunction(spec.entry);
  jitInfo = Module::getInfo(function);
  const DriverApi &api = DriverApi::get();
  if (spec.dynamicSharedBytes > 48 * 1024)
    GEMMC_CU(api.cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        static_cast<int>(spec.dynamicSharedBytes)));
  CUdevice device;
  GEMMC_CU(api.cuCtxGetDevice(&device));
  GEMMC_CU(api.cuDeviceGetAttribute(
      &residentBlocks, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  if (spec.clusterSize() > 1) {
    // Not every multiprocessor can host a block of a cluster (a cluster
    // lives in one GPC): a persistent grid of whole clusters that all run
    // at once.
    CUlaunchAttribute attribute;
    // (The query's grid, like a launch's, is whole clusters.)
    unsigned size = spec.clusterSize();
    CUlaunchConfig config =
        launchConfig(unsigned(residentBlocks) / size * size, attribute);
    int clusters = 0;
    GEMMC_CU(api.cuOccupancyMaxActiveClusters(&clusters, function, &config));
    if (clusters < 1)
      throw std::runtime_error(
          file + ": no cluster of " + std::to_string(spec.clusterSize()) +
          " blocks of kernel '" + spec.entry + "' fits on the device");
    residentBlocks = clusters * int(spec.clusterSize());
  }
}

CUlaunchConfig ContractKernel::launchConfig(unsigned gridX,
                                            CUlaunchAttribute &cluster) const {
  CUlaunchConfig config = {};
  config.gridDimX = gridX;
  config.gridDimY = 1;
  config.gridDimZ = 1;
  config.blockDimX = spec.block[0];
  config.blockDimY = spec.block[1];
  config.blockDimZ = spec.block[2];
  config.sharedMemBytes = unsigned(spec.dynamicSharedBytes);
  cluster = {};
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = spec.cluster[0];
  cluster.value.clusterDim.y = spec.cluster[1];
  cluster.value.clusterDim.z = spec.cluster[2];
  config.attrs = &cluster;
  config.numAttrs = 1;
  return config;
}

/// The tensor map of operand A, B or C (`name`) of `p` at `base`: 2-D, the
/// contiguous dimension first, its rows `ld` elements apart, copied in
/// boxes of `box` to or from 128-byte-swizzled shared memory; reads past
/// the matrix fill zeros, writes past it are dropped.
static CUtensorMap encodeTensorMap(const std::string &name, const Problem &p,
                                   CUdeviceptr base, TensorMapBox box) {
  struct Matrix {
    Layout layout;
    int64_t rows, cols;
    DType type;
    int64_t ld;
  } matrix = name == "tmap-A"   ? Matrix{p.aLayout, p.m, p.k, p.a, p.ldOfA()}
             : name == "tmap-B" ? Matrix{p.bLayout, p.k, p.n, p.b, p.ldOfB()}
                                : Matrix{p.cLayout, p.m, p.n, p.c, p.ldOfC()};
  Layout layout = matrix.layout;
  int64_t rows = matrix.rows, cols = matrix.cols;
  DType type = matrix.type;
  int64_t ld = matrix.ld;
  bool rowMajor = layout == Layout::Row;
  cuuint64_t dims[2] = {cuuint64_t(rowMajor ? cols : rows),
                        cuuint64_t(rowMajor ? rows : cols)};
  cuuint64_t strides[1] = {cuuint64_t(ld) * sizeOf(type)};
  cuuint32_t boxDims[2] = {cuuint32_t(box.inner), cuuint32_t(box.outer)};
  cuuint32_t elementStrides[2] = {1, 1};
  CUtensorMapDataType dataType =
      type == DType::F16    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
      : type == DType::BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                            : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  CUtensorMap map;
  GEMMC_CU(DriverApi::get().cuTensorMapEncodeTiled(
      &map, dataType, 2, reinterpret_cast<void *>(base), dims, strides, boxDims,
      elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
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

int64_t ContractKernel::splitsFor(const Problem &problem) const {
  return chooseSplits(spec, problem, deviceModel, CostConstants::of(spec));
}

WorkspaceBytes ContractKernel::workspaceBytes(const Problem &problem,
                                              int64_t splits) const {
  if (!spec.splitsK())
    return {};
  if (!spec.splitsAtLaunch())
    splits = spec.splits;
  else if (splits <= 0)
    splits = splitsFor(problem);
  return {size_t(spec.workspaceFloats(problem, splits)) * sizeof(float),
          size_t(spec.tiles(problem)) * sizeof(int32_t)};
}

std::pair<CUdeviceptr, CUdeviceptr>
ContractKernel::reserveWorkspace(const Problem &problem, int64_t splits,
                                 CUstream stream) const {
  struct Workspace {
    std::unique_ptr<DeviceBuffer> partials, counters;
  };
  static std::mutex mutex;
  // Never destroyed: the driver may be gone when statics are.
  static auto *pool = new std::map<std::pair<CUcontext, CUstream>, Workspace>;
  WorkspaceBytes need = workspaceBytes(problem, splits);
  CUcontext context = nullptr;
  GEMMC_CU(DriverApi::get().cuCtxGetCurrent(&context));
  std::lock_guard<std::mutex> lock(mutex);
  Workspace &w = (*pool)[{context, stream}];
  if (!w.partials || w.partials->size() < need.partials)
    w.partials = std::make_unique<DeviceBuffer>(need.partials);
  if (!w.counters || w.counters->size() < need.counters) {
    w.counters = std::make_unique<DeviceBuffer>(need.counters);
    w.counters->fill32(0);
  }
  return {w.partials->ptr(), w.counters->ptr()};
}

/// The offset, sizes and strides of the memref descriptor of matrix `name`
/// (rank 2, or 3 for a batch) in its logical orientation: A is M x K, B
/// K x N, C M x N, a row bias M x 1, a column bias 1 x N.
static std::vector<int64_t> descriptorFields(const std::string &name, int rank,
                                             const Problem &p) {
  struct Shape {
    int64_t rows, cols, ld, stride;
    Layout layout;
  } shape;
  if (name == "A")
    shape = {p.m, p.k, p.ldOfA(), p.strideOfA(), p.aLayout};
  else if (name == "B")
    shape = {p.k, p.n, p.ldOfB(), p.strideOfB(), p.bLayout};
  else if (name == "C")
    shape = {p.m, p.n, p.ldOfC(), p.strideOfC(), p.cLayout};
  else if (p.bias == "row")
    shape = {p.m, 1, 1, 0, Layout::Row};
  else
    shape = {1, p.n, p.n, 0, Layout::Row};
  bool rowMajor = shape.layout == Layout::Row;
  int64_t rowStride = rowMajor ? shape.ld : 1;
  int64_t colStride = rowMajor ? 1 : shape.ld;
  if (rank == 3)
    return {0,         p.batch,  shape.rows, shape.cols, shape.stride,
            rowStride, colStride};
  return {0, shape.rows, shape.cols, rowStride, colStride};
}

void ContractKernel::launch(const Operands &operands, const Problem &p,
                            CUstream stream, int64_t splits) const {
  // One slot per parameter, in the contract's order; a memref descriptor
  // takes 3 + 2R slots (pointer, pointer, offset, R sizes, R strides).
  std::vector<CUdeviceptr> pointers(spec.params.size());
  std::vector<int32_t> sizes(spec.params.size());
  std::vector<float> scalars(spec.params.size());
  std::vector<std::vector<int64_t>> fields(spec.params.size());
  std::vector<std::vector<int32_t>> fields32(spec.params.size());
  std::vector<CUtensorMap> maps(spec.params.size());
  std::vector<void *> args;
  CUdeviceptr workspace = 0, counters = 0;
  if (!spec.splitsAtLaunch())
    splits = spec.splits;
  else if (splits <= 0)
    splits = splitsFor(p);
  if (spec.splitsK()) {
    if (splits > spec.maxSplits(p))
      throw std::runtime_error(
          "kernel '" + spec.entry + "': " + std::to_string(splits) +
          " splits of K for " + p.str() + ", where at most " +
          std::to_string(spec.maxSplits(p)) + " fit");
    if (operands.partials && operands.counters) {
      workspace = operands.partials;
      counters = operands.counters;
    } else {
      std::tie(workspace, counters) = reserveWorkspace(p, splits, stream);
    }
  }
  for (size_t i = 0; i < spec.params.size(); ++i) {
    const std::string &name = spec.params[i].name;
    const std::string &kind = spec.params[i].kind;
    if (kind == "ptr" || kind.rfind("memref", 0) == 0) {
      pointers[i] = name == "A"           ? operands.a
                    : name == "B"         ? operands.b
                    : name == "bias"      ? operands.bias
                    : name == "workspace" ? workspace
                    : name == "counters"  ? counters
                                          : operands.c;
      args.push_back(&pointers[i]);
      if (kind == "ptr")
        continue;
      args.push_back(&pointers[i]);
      // A 1-D buffer: offset, size, stride.
      if (kind[6] == '1')
        fields[i] = {0,
                     name == "workspace" ? spec.workspaceFloats(p, splits)
                                         : spec.tiles(p),
                     1};
      else
        fields[i] = descriptorFields(name, kind[6] - '0', p);
      if (spec.indexBits() == 32) {
        fields32[i].assign(fields[i].begin(), fields[i].end());
        for (int32_t &field : fields32[i])
          args.push_back(&field);
      } else {
        for (int64_t &field : fields[i])
          args.push_back(&field);
      }
      continue;
    }
    if (kind == "tensormap") {
      // Passed by value: the launch copies the 128 bytes.
      maps[i] = encodeTensorMap(name, p,
                                name == "tmap-A"   ? operands.a
                                : name == "tmap-B" ? operands.b
                                                   : operands.c,
                                name == "tmap-A"   ? spec.boxA
                                : name == "tmap-B" ? spec.boxB
                                                   : spec.boxC);
      args.push_back(&maps[i]);
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
    grid[i] = unsigned(
        spec.grid[i].evaluate(p.m, p.n, p.k, p.batch, residentBlocks, splits));
  if (spec.clusterSize() > 1) {
    // The cluster's dimension as a launch attribute (the PTX states it too,
    // .reqnctapercluster).
    CUlaunchAttribute attribute;
    CUlaunchConfig config = launchConfig(grid[0], attribute);
    config.gridDimY = grid[1];
    config.gridDimZ = grid[2];
    config.hStream = stream;
    GEMMC_CU(DriverApi::get().cuLaunchKernelEx(&config, function, args.data(),
                                               nullptr));
    return;
  }
  GEMMC_CU(DriverApi::get().cuLaunchKernel(
      function, grid[0], grid[1], grid[2], spec.block[0], spec.block[1],
      spec.block[2], unsigned(spec.dynamicSharedBytes), stream, args.data(),
      nullptr));
}

static std::vector<Contract> parseAllOrThrow(const std::string &ptx,
                                             const std::string &file) {
  std::vector<Contract> contracts;
  std::string error;
  if (!parseContracts(ptx, contracts, error))
    throw std::runtime_error(file + ": " + error);
  return contracts;
}

KernelFamily::KernelFamily(const std::string &ptx, const std::string &file,
                           int optLevel)
    : KernelFamily(parseAllOrThrow(ptx, file), ptx, file, optLevel) {}

KernelFamily::KernelFamily(std::vector<Contract> parsed, const std::string &ptx,
                           const std::string &file, int optLevel)
    : contracts(std::move(parsed)) {
  auto module = std::make_shared<const Module>(ptx, file, optLevel);
  deviceModel = currentDeviceModel();
  for (const Contract &contract : contracts)
    kernels.push_back(std::make_unique<ContractKernel>(module, contract, file));
  const Contract &first = kernels.front()->contract();
  familyName = first.family.empty() ? first.entry : first.family;
}

const ContractKernel *KernelFamily::select(const Problem &problem,
                                           std::string &why) const {
  // The model's occupancy is the contract's estimate, the one the cost
  // constants were fitted with.
  int index =
      selectVariant(contracts, problem, deviceModel, why,
                    [&](size_t i) { return kernels[i]->whyNot(problem); });
  return index < 0 ? nullptr : kernels[size_t(index)].get();
}

std::vector<RankedVariant> KernelFamily::rank(const Problem &problem) const {
  return rankVariants(contracts, problem, deviceModel,
                      [&](size_t i) { return kernels[i]->whyNot(problem); });
}
