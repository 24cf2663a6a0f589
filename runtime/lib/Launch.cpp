//===- Launch.cpp - launching a kernel as its contract says -------------===//

#include "gemmc-rt/Launch.h"

#include <cstring>
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
/// the matrix fill zeros, writes past it are dropped. A `batched` kernel's
/// maps are 3-D, as is a grouped GEMM's B: the batch's (groups') matrices
/// last, the batch stride apart, one a box. The general form's are
/// templates (2-D, one box at `base`).
static CUtensorMap encodeTensorMap(const std::string &name, const Problem &p,
                                   bool batched, CUdeviceptr base,
                                   TensorMapBox box) {
  const DType type = name == "tmap-A" ? p.a : name == "tmap-B" ? p.b : p.c;
  cuuint64_t bytes = sizeOf(type);
  cuuint32_t rank = 2;
  cuuint64_t dims[3] = {}, strides[2] = {};
  if (p.groupTable) {
    // The general form's maps are templates: the kernel puts each group's
    // matrix, sizes and row stride in (GroupMaps.cpp). Any matrix the
    // driver takes will do: one box at `base`.
    dims[0] = cuuint64_t(box.inner);
    dims[1] = cuuint64_t(box.outer);
    strides[0] = (dims[0] * bytes + 15) / 16 * 16;
  } else {
    // A grouped GEMM's B holds a matrix a group: 3-D, like a batch's.
    int64_t count = p.batch;
    if (p.grouped && name == "tmap-B") {
      batched = true;
      count = p.groups;
    }
    struct Matrix {
      Layout layout;
      int64_t rows, cols, ld, stride;
    } matrix = name == "tmap-A"
                   ? Matrix{p.aLayout, p.m, p.k, p.ldOfA(), p.strideOfA()}
               : name == "tmap-B"
                   ? Matrix{p.bLayout, p.k, p.n, p.ldOfB(), p.strideOfB()}
                   : Matrix{p.cLayout, p.m, p.n, p.ldOfC(), p.strideOfC()};
    bool rowMajor = matrix.layout == Layout::Row;
    // A batch of one takes any stride (the contract checks only those that
    // step): its map steps by the matrix, at a 16-byte multiple as its rows.
    if (count == 1)
      matrix.stride = matrix.ld * (rowMajor ? matrix.rows : matrix.cols);
    rank = batched ? 3 : 2;
    dims[0] = cuuint64_t(rowMajor ? matrix.cols : matrix.rows);
    dims[1] = cuuint64_t(rowMajor ? matrix.rows : matrix.cols);
    dims[2] = cuuint64_t(count);
    strides[0] = cuuint64_t(matrix.ld) * bytes;
    strides[1] = cuuint64_t(matrix.stride) * bytes;
  }
  cuuint32_t boxDims[3] = {cuuint32_t(box.inner), cuuint32_t(box.outer), 1};
  cuuint32_t elementStrides[3] = {1, 1, 1};
  // FP8 goes as bytes (TMA copies them as they are).
  CUtensorMapDataType dataType =
      type == DType::F16    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
      : type == DType::BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
      : bytes == 1          ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                            : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  CUtensorMap map;
  GEMMC_CU(DriverApi::get().cuTensorMapEncodeTiled(
      &map, dataType, rank, reinterpret_cast<void *>(base), dims, strides,
      boxDims, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
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
  if (spec.streamK)
    return {size_t(spec.workspaceFloats(problem, 1, persistentBlocks())) *
                sizeof(float),
            size_t(spec.counters(problem)) * sizeof(int32_t)};
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
  // A graph captured on the stream would hold the runtime's workspace,
  // which every later launch on the stream shares (and the capture cannot
  // allocate it): a capture gives its own.
  const DriverApi &api = DriverApi::get();
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  GEMMC_CU(api.cuStreamIsCapturing(stream, &capture));
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE)
    throw UsageError(
        "kernel '" + spec.entry + "' splits K for " + problem.str() +
        " on a stream capturing a CUDA graph: give the launch a workspace "
        "of its own (gemmc_launch_workspace, or gemmc_plan_launch's "
        "partials and counters), which the graph keeps");
  WorkspaceBytes need = workspaceBytes(problem, splits);
  CUcontext context = nullptr;
  GEMMC_CU(api.cuCtxGetCurrent(&context));
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
/// K x N, C and R M x N, a row bias M x 1, a column bias 1 x N. A `transposed`
/// kernel reads each the other way round (B as B^T, N x K): rows and
/// columns swap.
static std::vector<int64_t> descriptorFields(const std::string &name, int rank,
                                             const Problem &p,
                                             bool transposed) {
  struct Shape {
    int64_t rows, cols, ld, stride;
    Layout layout;
  } shape;
  if (name == "A")
    shape = {p.m, p.k, p.ldOfA(), p.strideOfA(), p.aLayout};
  else if (name == "B")
    shape = {p.k, p.n, p.ldOfB(), p.strideOfB(), p.bLayout};
  else if (name == "C" || name == "R")
    shape = {p.m, p.n, p.ldOfC(), p.strideOfC(), p.cLayout};
  else if (p.bias == "row")
    shape = {p.m, 1, 1, 0, Layout::Row};
  else
    shape = {1, p.n, p.n, 0, Layout::Row};
  bool rowMajor = shape.layout == Layout::Row;
  int64_t rowStride = rowMajor ? shape.ld : 1;
  int64_t colStride = rowMajor ? 1 : shape.ld;
  if (transposed) {
    std::swap(shape.rows, shape.cols);
    std::swap(rowStride, colStride);
  }
  if (rank == 3)
    return {0,         name == "B" ? p.countOfB() : p.batch,
            shape.rows, shape.cols, shape.stride, rowStride, colStride};
  return {0, shape.rows, shape.cols, rowStride, colStride};
}

void ContractKernel::launch(const Operands &operands, const Problem &p,
                            CUstream stream, int64_t splits) const {
  LaunchPlan(*this, p, splits).launch(operands, stream);
}

/// Appends `bytes` bytes of `value` to `image` at the next multiple of
/// `align`; returns their offset.
static size_t append(std::vector<unsigned char> &image, const void *value,
                     size_t bytes, size_t align) {
  size_t offset = (image.size() + align - 1) / align * align;
  image.resize(offset + bytes);
  std::memcpy(image.data() + offset, value, bytes);
  return offset;
}

/// The arguments of a launch live in a buffer of this many bytes on the
/// launching thread's stack.
static constexpr size_t maxArgumentBytes = 4096;

LaunchPlan::LaunchPlan(const ContractKernel &kernel, const Problem &problem,
                       int64_t splits)
    : owner(&kernel), p(problem) {
  const Contract &spec = kernel.contract();
  if (!spec.splitsAtLaunch())
    splits = spec.splits;
  else if (splits <= 0)
    splits = kernel.splitsFor(p);
  if (spec.splitsK() && splits > spec.maxSplits(p))
    throw std::runtime_error(
        "kernel '" + spec.entry + "': " + std::to_string(splits) +
        " splits of K for " + p.str() + ", where at most " +
        std::to_string(spec.maxSplits(p)) + " fit");
  if (spec.usesWorkspace())
    need = kernel.workspaceBytes(p, splits);
  splitCount = spec.splitsK() ? splits : 1;
  // One argument per parameter, in the contract's order; a memref
  // descriptor takes 3 + 2R (pointer, pointer, offset, R sizes, R strides).
  auto sourceOf = [](const std::string &name) {
    return name == "A" || name == "tmap-A"   ? Source::A
           : name == "B" || name == "tmap-B" ? Source::B
           : name == "offsets"               ? Source::Offsets
           : name == "table"                 ? Source::Table
           : name == "bias"                  ? Source::Bias
           : name == "R"                     ? Source::Residual
           : name == "scale-A"               ? Source::ScaleA
           : name == "scale-B"               ? Source::ScaleB
           : name == "amax"                  ? Source::Amax
           : name == "scale-C"               ? Source::ScaleC
           : name == "workspace"             ? Source::Partials
           : name == "counters"              ? Source::Counters
                                             : Source::C;
  };
  auto pointer = [&](Source source) {
    CUdeviceptr zero = 0;
    size_t offset = append(image, &zero, sizeof(zero), alignof(CUdeviceptr));
    offsets.push_back(offset);
    patches.push_back({offset, source, false, {}});
  };
  // The elements of a 1-D buffer parameter.
  auto bufferElements = [&](const std::string &name) -> int64_t {
    if (name == "workspace")
      return spec.workspaceFloats(p, splits, kernel.persistentBlocks());
    if (name == "counters")
      return spec.counters(p);
    if (name == "offsets")
      return p.groups;
    if (name == "table")
      return p.groups * kGroupTableColumns;
    if (name == "amax" || name == "scale-C")
      return 1;
    // (A grouped problem's B has its scales a group.)
    return scaleCount(spec.scales, name == "scale-A", p.m, p.n, p.k,
                      p.grouped ? p.groups : 1);
  };
  for (const Param &param : spec.params) {
    const std::string &name = param.name;
    const std::string &kind = param.kind;
    if (kind == "ptr" || kind.rfind("memref", 0) == 0) {
      Source source = sourceOf(name);
      pointer(source);
      if (kind == "ptr")
        continue;
      pointer(source);
      // A 1-D buffer: offset, size, stride.
      std::vector<int64_t> fields =
          kind[6] == '1'
              ? std::vector<int64_t>{0, bufferElements(name), 1}
              : descriptorFields(name, kind[6] - '0', p, spec.transposed);
      for (int64_t field : fields) {
        if (spec.indexBits() == 32) {
          int32_t narrow = int32_t(field);
          offsets.push_back(append(image, &narrow, sizeof(narrow), 4));
        } else {
          offsets.push_back(append(image, &field, sizeof(field), 8));
        }
      }
      continue;
    }
    if (kind == "tensormap") {
      // Passed by value: the launch copies the 128 bytes.
      CUtensorMap zero = {};
      size_t offset = append(image, &zero, sizeof(zero), 64);
      offsets.push_back(offset);
      Source source = sourceOf(name);
      patches.push_back({offset, source, true,
                         source == Source::A   ? spec.boxA
                         : source == Source::B ? spec.boxB
                                               : spec.boxC});
      continue;
    }
    if (kind == "f32") {
      float scalar = name == "alpha" ? p.alpha : p.beta;
      offsets.push_back(append(image, &scalar, sizeof(scalar), 4));
      continue;
    }
    int32_t size = int32_t(name == "M" ? p.m : name == "N" ? p.n : p.k);
    offsets.push_back(append(image, &size, sizeof(size), 4));
  }
  if (image.size() > maxArgumentBytes)
    throw std::runtime_error("kernel '" + spec.entry + "': its arguments take " +
                             std::to_string(image.size()) +
                             " bytes, more than a launch holds (" +
                             std::to_string(maxArgumentBytes) + ")");
  for (int i = 0; i < 3; ++i)
    grid[i] = unsigned(spec.grid[i].evaluate(
        p.m, p.n, p.k, p.batch, kernel.persistentBlocks(), splits));
}

void LaunchPlan::launch(const Operands &operands, CUstream stream) const {
  const Contract &spec = owner->contract();
  CUdeviceptr partials = operands.partials, counters = operands.counters;
  if (spec.usesWorkspace() && !(partials && counters))
    std::tie(partials, counters) =
        owner->reserveWorkspace(p, splitCount, stream);
  alignas(64) unsigned char bytes[maxArgumentBytes];
  std::memcpy(bytes, image.data(), image.size());
  for (const Patch &patch : patches) {
    CUdeviceptr address = patch.source == Source::A          ? operands.a
                          : patch.source == Source::B        ? operands.b
                          : patch.source == Source::Offsets  ? operands.offsets
                          : patch.source == Source::Table    ? operands.table
                          : patch.source == Source::Bias     ? operands.bias
                          : patch.source == Source::Residual ? operands.residual
                          : patch.source == Source::ScaleA   ? operands.scaleA
                          : patch.source == Source::ScaleB   ? operands.scaleB
                          : patch.source == Source::Amax     ? operands.amax
                          : patch.source == Source::ScaleC   ? operands.scaleC
                          : patch.source == Source::Partials ? partials
                          : patch.source == Source::Counters ? counters
                                                             : operands.c;
    if (!patch.tensorMap) {
      std::memcpy(bytes + patch.offset, &address, sizeof(address));
      continue;
    }
    // The general form's templates lie at no matrix of theirs: at the
    // table's 16 bytes (never read).
    if (p.groupTable)
      address = operands.table & ~CUdeviceptr(15);
    CUtensorMap map = encodeTensorMap(patch.source == Source::A   ? "tmap-A"
                                      : patch.source == Source::B ? "tmap-B"
                                                                  : "tmap-C",
                                      p, spec.problem.batched, address,
                                      patch.box);
    std::memcpy(bytes + patch.offset, &map, sizeof(map));
  }
  void *args[maxArgumentBytes / 4];
  for (size_t i = 0; i < offsets.size(); ++i)
    args[i] = bytes + offsets[i];
  const DriverApi &api = DriverApi::get();
  // The kernel raises the amax from zero (0.0f's bits), ordered before it
  // on its stream (a graph captures both).
  if (spec.amax) {
    if (!operands.amax)
      throw UsageError("kernel '" + spec.entry +
                       "' writes the amax of C: give it one (Operands::amax)");
    GEMMC_CU(api.cuMemsetD32Async(operands.amax, 0, 1, stream));
  }
  if (spec.outputScale && !operands.scaleC)
    throw UsageError("kernel '" + spec.entry +
                     "' multiplies C by its scale: give it one "
                     "(Operands::scaleC)");
  if (spec.clusterSize() > 1) {
    // The cluster's dimension as a launch attribute (the PTX states it too,
    // .reqnctapercluster).
    CUlaunchAttribute attribute;
    CUlaunchConfig config = owner->launchConfig(grid[0], attribute);
    config.gridDimY = grid[1];
    config.gridDimZ = grid[2];
    config.hStream = stream;
    GEMMC_CU(api.cuLaunchKernelEx(&config, owner->function, args, nullptr));
    return;
  }
  GEMMC_CU(api.cuLaunchKernel(owner->function, grid[0], grid[1], grid[2],
                              spec.block[0], spec.block[1], spec.block[2],
                              unsigned(spec.dynamicSharedBytes), stream, args,
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
