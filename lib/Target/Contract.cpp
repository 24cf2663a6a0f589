//===- Contract.cpp - the kernel contract written into the PTX -----------===//

#include "gemmc/Target/Contract.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gemm;

FailureOr<KernelContract>
mlir::gemm::getKernelContract(gpu::GPUFuncOp kernel, StringRef arch,
                              StringRef source) {
  KernelContract contract;
  contract.entry = kernel.getName().str();
  contract.arch = arch.str();
  contract.source = source.str();
  contract.problem = kernel->getAttrOfType<ProblemAttr>("gemm.problem");
  contract.schedule = kernel->getAttrOfType<ScheduleAttr>("gemm.schedule");
  contract.launch = kernel->getAttrOfType<LaunchAttr>("gemm.launch");
  contract.alphaBeta = kernel->hasAttr("gemm.alpha_beta");
  if (auto bias = kernel->getAttrOfType<StringAttr>("gemm.bias"))
    contract.bias = bias.getValue().str();
  contract.relu = kernel->hasAttr("gemm.relu");
  if (auto batch = kernel->getAttrOfType<DenseI64ArrayAttr>("gemm.batch"))
    contract.batch.assign(batch.asArrayRef().begin(), batch.asArrayRef().end());
  if (!contract.problem || !contract.schedule || !contract.launch)
    return kernel.emitError("kernel lacks the gemm.problem, gemm.schedule or "
                            "gemm.launch attribute of its contract");
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
  os << "// params: A:ptr B:ptr C:ptr";
  if (contract.alphaBeta)
    os << " alpha:f32 beta:f32";
  if (!contract.bias.empty())
    os << " bias:ptr";
  os << "\n// alignment: 16\n";
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
  os << "// problem: m=" << problem.getM() << " n=" << problem.getN()
     << " k=" << problem.getK();
  printMatrix(os, "a", problem.getAType(), problem.getALayout());
  printMatrix(os, "b", problem.getBType(), problem.getBLayout());
  printMatrix(os, "c", problem.getCType(), problem.getCLayout());
  os << " acc=" << problem.getAccType();
  // f32 inputs on tensor cores are rounded to tf32 (math = tf32).
  if (problem.getAType().isF32() && !schedule.getMma().empty())
    os << " math=tf32";
  if (!contract.batch.empty())
    os << " batch=" << contract.batch[0] << " strides=" << contract.batch[1]
       << "," << contract.batch[2] << "," << contract.batch[3];
  os << "\n";
  os << "// schedule: tile=";
  llvm::interleave(schedule.getTile(), os, "x");
  if (schedule.getCoalesce())
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
