//===- Contract.cpp - the kernel contract written into the PTX ------------===//

#include "gemmc/Target/Contract.h"
#include "gemmc/Dialect/Gemm/IR/GemmDialect.h"
#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "gemmc/Schedule/Warpgroup.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gemm;

/// A parameter's type in the contract: `f32`, a pointer (`ptr`), or with
/// sizes given at launch a memref descriptor of rank R whose index fields
/// have `index` bits (`memrefR.iN`).
static std::string describeParameter(Type type, bool descriptors,
                                     unsigned index) {
  // A CUtensorMap, passed by value (gemm-grid-constant).
  if (isa<LLVM::LLVMPointerType>(type))
    return "tensormap";
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return text;
  }
  if (!descriptors)
    return "ptr";
  return "memref" + std::to_string(memref.getRank()) + ".i" +
         std::to_string(index);
}

FailureOr<KernelContract> mlir::gemm::getKernelContract(gpu::GPUFuncOp kernel,
                                                        StringRef arch,
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
  // The parameters by the kernel ABI, typed from the kernel's signature.
  KernelABI abi = KernelABI::of(kernel);
  ArrayRef<KernelArg> roles = abi.getRoles();
  if (roles.size() != kernel.getNumArguments())
    return kernel.emitError("kernel has ")
           << kernel.getNumArguments() << " arguments, its ABI "
           << roles.size();
  for (auto [role, type] : llvm::zip(roles, kernel.getArgumentTypes()))
    contract.params.push_back(
        {stringifyKernelArg(role).str(),
         describeParameter(type, contract.descriptors,
                           contract.launch.getIndexBitwidth())});
  return contract;
}

static void printGridDim(llvm::raw_ostream &os, GridDim dim) {
  if (dim.dim == Dim::One) {
    os << dim.divisor;
    return;
  }
  if (dim.dim == Dim::SMs) {
    os << stringifyDim(dim.dim);
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

  const gemmc::Schedule &model = schedule.getValue();
  // Version 2 adds tensor maps and the persistent grid, version 3 C's
  // tensor map and clusters, version 4 split-K's workspace, version 5 a
  // family's variant: a reader of an older version refuses such a kernel
  // rather than launch it wrongly (or for problems it is not for).
  int version = 1;
  if (!contract.family.empty())
    version = 5;
  else if (model.splitK)
    version = 4;
  else if (model.tmaC || model.cluster)
    version = 3;
  else if (model.hasTma() || model.persistent)
    version = 2;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// gemmc-contract-begin v" << version << "\n";
  os << "// entry: " << contract.entry << "\n";
  // A family's variant: its place in the order of choice, and its sizes.
  if (!contract.family.empty()) {
    os << "// family: " << contract.family << " " << contract.variant + 1
       << "/" << contract.variants << "\n";
    os << "// when: " << contract.when.str() << "\n";
  }
  os << "// arch: " << contract.arch << "\n";
  os << "// block: ";
  llvm::interleave(launch.getBlock(), os, " ");
  os << "\n// grid: ";
  llvm::interleave(
      launch.getGrid(), os, [&](GridDim dim) { printGridDim(os, dim); }, " ");
  os << "\n";
  // Blocks per cluster (x y z): launched with cuLaunchKernelEx.
  if (model.cluster)
    os << "// cluster: " << model.clusterSize() << " 1 1\n";
  os << "// dynamic-shared-bytes: " << launch.getSharedBytes() << "\n";
  // Split-K: the grid's z is the splits; per tile of C (grid x by y) the
  // workspace holds `workspace` floats and the counters one i32.
  if (model.splitK)
    os << "// split-k: splits=" << model.splits()
       << " workspace=" << model.workspaceFloatsPerTile() << "\n";
  // Sizes given at launch: each matrix is a memref descriptor (pointer,
  // pointer, offset, sizes, strides: one kernel parameter each).
  os << "// params:";
  for (const auto &[name, type] : contract.params)
    os << " " << name << ":" << type;
  os << "\n// alignment: 16\n";
  // The boxes of the tensor maps the runtime encodes (innermost first, in
  // elements), all with the 128-byte swizzle; in a cluster each block
  // copies a slice of A's and B's tiles.
  std::optional<gemmc::WarpgroupKernel> kernel;
  if (model.hasTma())
    kernel = gemmc::getWarpgroupKernel(getProblemModel(problem), model);
  if (kernel) {
    os << "// tensor-maps: A=" << kernel->a.boxInner << "x"
       << kernel->a.sliceRows() << " B=" << kernel->b.boxInner << "x"
       << kernel->b.sliceRows();
    if (kernel->c)
      os << " C=" << kernel->c->boxInner << "x" << kernel->c->boxOuter;
    os << " swizzle=128\n";
  }
  // Sizes given at launch that `tma c` can store (in 16-byte units).
  if (contract.descriptors && kernel && kernel->c) {
    bool rowMajor = kernel->c->rowMajor;
    int64_t multiple = kernel->c->sizeMultiple();
    os << "// size-multiple: m=" << (rowMajor ? 1 : multiple)
       << " n=" << (rowMajor ? multiple : 1) << " k=1\n";
  }
  if (contract.descriptors) {
    ArrayRef<int64_t> ld = launch.getLdMultiple();
    os << "// leading-dim-multiple: a=" << ld[0] << " b=" << ld[1]
       << " c=" << ld[2] << "\n";
  }
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
  // f32 inputs on tensor cores are rounded to tf32 (math = tf32), or split
  // into two tf32 parts (math = tf32x3).
  if (problem.getTf32x3())
    os << " math=tf32x3";
  else if (problem.getAType().isF32() && (model.hasMma() || model.hasWgmma()))
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
