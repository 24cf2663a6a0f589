//===- Contract.cpp - the kernel contract written into the PTX -----------===//

#include "gemmc/Target/Contract.h"
#include "gemmc/Dialect/Gemm/IR/GemmDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gemm;

/// The argument of `kernel` that `memref` is a view of (through subviews and
/// casts), or -1.
static int viewedArgument(gpu::GPUFuncOp kernel, Value memref) {
  while (Operation *op = memref.getDefiningOp()) {
    if (auto subView = dyn_cast<memref::SubViewOp>(op))
      memref = subView.getSource();
    else if (auto cast = dyn_cast<memref::CastOp>(op))
      memref = cast.getSource();
    else
      return -1;
  }
  auto arg = dyn_cast<BlockArgument>(memref);
  if (!arg || arg.getOwner() != &kernel.getBody().front() ||
      arg.getArgNumber() >= kernel.getNumArguments())
    return -1;
  return int(arg.getArgNumber());
}

/// The widest access (in elements) of each of A, B and C (arguments 0-2):
/// vector loads and stores and cp.async copies, whose addresses must be
/// aligned to their width, so the leading dimensions must be its multiples.
static void findWidestAccesses(gpu::GPUFuncOp kernel, int64_t widest[3]) {
  auto note = [&](Value memref, int64_t width) {
    int arg = viewedArgument(kernel, memref);
    if (arg >= 0 && arg < 3)
      widest[arg] = std::max(widest[arg], width);
  };
  kernel.walk([&](Operation *op) {
    if (auto load = dyn_cast<vector::LoadOp>(op))
      note(load.getBase(), load.getVectorType().getNumElements());
    else if (auto store = dyn_cast<vector::StoreOp>(op))
      note(store.getBase(), store.getVectorType().getNumElements());
    else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
      note(copy.getSrc(), copy.getDstElements().getZExtValue());
  });
}

FailureOr<KernelContract>
mlir::gemm::getKernelContract(gpu::GPUFuncOp kernel, StringRef arch,
                              StringRef source) {
  KernelContract contract;
  contract.entry = kernel.getName().str();
  contract.arch = arch.str();
  contract.source = source.str();
  contract.problem = kernel->getAttrOfType<ProblemAttr>(kProblemAttr);
  contract.schedule = kernel->getAttrOfType<ScheduleAttr>(kScheduleAttr);
  contract.launch = kernel->getAttrOfType<LaunchAttr>(kLaunchAttr);
  contract.alphaBeta = kernel->hasAttr(kAlphaBetaAttr);
  if (auto bias = kernel->getAttrOfType<StringAttr>(kBiasAttr))
    contract.bias = bias.getValue().str();
  contract.relu = kernel->hasAttr(kReluAttr);
  if (auto batch = kernel->getAttrOfType<DenseI64ArrayAttr>(kBatchAttr))
    contract.batch.assign(batch.asArrayRef().begin(), batch.asArrayRef().end());
  if (!contract.problem || !contract.schedule || !contract.launch)
    return kernel.emitError("kernel lacks the gemm.problem, gemm.schedule or "
                            "gemm.launch attribute of its contract");
  contract.descriptors = contract.problem.isDynamic();
  if (contract.descriptors)
    findWidestAccesses(kernel, contract.ldMultiple);
  return contract;
}

static void printGridDim(llvm::raw_ostream &os, GridDim dim) {
  if (dim.dim == Dim::One) {
    os << "1";
    return;
  }
  os << stringifyDim(dim.dim) << "/" << dim.divisor;
}

static void printMatrix(llvm::raw_ostream &os, StringRef name, Type type,
                        Layout layout) {
  os << " " << name << "=" << type << ":" << stringifyLayout(layout);
}

std::string mlir::gemm::formatContract(const KernelContract &contract) {
  ProblemAttr problem = contract.problem;
  ScheduleAttr schedule = contract.schedule;
  LaunchAttr launch = contract.launch;

  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// gemmc-contract-begin v1\n";
  os << "// entry: " << contract.entry << "\n";
  os << "// arch: " << contract.arch << "\n";
  os << "// block: ";
  llvm::interleave(launch.getBlock(), os, " ");
  os << "\n// grid: ";
  llvm::interleave(
      launch.getGrid(), os, [&](GridDim dim) { printGridDim(os, dim); }, " ");
  os << "\n// dynamic-shared-bytes: " << launch.getSharedBytes() << "\n";
  // Sizes given at launch: each matrix is a memref descriptor (pointer,
  // pointer, offset, sizes, strides: one kernel parameter each).
  std::string matrix = "ptr", vector = "ptr";
  if (contract.descriptors) {
    std::string index = ".i" + std::to_string(contract.indexBitwidth);
    matrix = "memref" + std::to_string(contract.batch.empty() ? 2 : 3) + index;
    vector = "memref2" + index;
  }
  os << "// params: A:" << matrix << " B:" << matrix << " C:" << matrix;
  if (contract.alphaBeta)
    os << " alpha:f32 beta:f32";
  if (!contract.bias.empty())
    os << " bias:" << vector;
  os << "\n// alignment: 16\n";
  if (contract.descriptors)
    os << "// leading-dim-multiple: a=" << contract.ldMultiple[0]
       << " b=" << contract.ldMultiple[1] << " c=" << contract.ldMultiple[2]
       << "\n";
  std::string value = contract.alphaBeta ? "alpha * A * B + beta * C" : "A * B";
  if (!contract.bias.empty())
    value += " + bias[" + contract.bias + "]";
  if (contract.relu)
    value = "relu(" + value + ")";
  os << "// semantics: C = " << value << "\n";
  if (!contract.bias.empty() || contract.relu) {
    os << "// epilogue:";
    if (!contract.bias.empty())
      os << " bias=" << contract.bias;
    if (contract.relu)
      os << " relu";
    os << "\n";
  }
  auto size = [](int64_t value) {
    return ShapedType::isDynamic(value) ? std::string("?")
                                        : std::to_string(value);
  };
  os << "// problem: m=" << size(problem.getM())
     << " n=" << size(problem.getN()) << " k=" << size(problem.getK());
  printMatrix(os, "a", problem.getAType(), problem.getALayout());
  printMatrix(os, "b", problem.getBType(), problem.getBLayout());
  printMatrix(os, "c", problem.getCType(), problem.getCLayout());
  os << " acc=" << problem.getAccType();
  // f32 inputs on tensor cores are rounded to tf32 (math = tf32).
  if (problem.getAType().isF32() && schedule.getValue().hasMma())
    os << " math=tf32";
  if (!contract.batch.empty())
    os << " batch=" << size(contract.batch[0])
       << " strides=" << size(contract.batch[1]) << ","
       << size(contract.batch[2]) << "," << size(contract.batch[3]);
  os << "\n";
  os << "// schedule: tile=";
  llvm::interleave(schedule.getValue().tile, os, "x");
  if (schedule.getValue().coalesce)
    os << " coalesce";
  os << "\n// source: " << contract.source << "\n";
  os << "// gemmc-contract-end\n";
  return text;
}

std::string mlir::gemm::insertContract(StringRef ptx, StringRef block) {
  // The header ends with the `.address_size` directive; everything before it
  // is comments and `.version` / `.target`.
  size_t pos = ptx.find(".address_size");
  size_t insertAt = pos == StringRef::npos ? 0 : ptx.find('\n', pos);
  insertAt = insertAt == StringRef::npos ? ptx.size() : insertAt + 1;
  std::string out;
  out.reserve(ptx.size() + block.size() + 2);
  out += ptx.take_front(insertAt);
  out += "\n";
  out += block;
  out += ptx.drop_front(insertAt);
  return out;
}
