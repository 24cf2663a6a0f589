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
  if (auto activation = kernel->getAttrOfType<StringAttr>(kActivationAttr))
    contract.activation = activation.getValue().str();
  contract.residual = kernel->hasAttr(kResidualAttr);
  contract.amax = kernel->hasAttr(kAmaxAttr);
  contract.outputScale = kernel->hasAttr(kOutputScaleAttr);
  if (auto scales = kernel->getAttrOfType<StringAttr>(kScalesAttr))
    contract.scales = scales.getValue().str();
  if (auto batch = kernel->getAttrOfType<DenseI64ArrayAttr>(kBatchAttr))
    contract.batch.assign(batch.asArrayRef().begin(), batch.asArrayRef().end());
  if (auto groups = kernel->getAttrOfType<IntegerAttr>(kGroupsAttr))
    contract.groups = groups.getInt();
  contract.groupTable = kernel->hasAttr(kGroupTableAttr);
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

/// The contract's element type of an MLIR type (f32, f16, bf16, e4m3 or
/// e5m2, as the problem attribute's verifier allows).
static gemmc::contract::DType toDType(Type type) {
  if (type.isF16())
    return gemmc::contract::DType::F16;
  if (type.isBF16())
    return gemmc::contract::DType::BF16;
  if (isa<Float8E4M3FNType>(type))
    return gemmc::contract::DType::E4M3;
  if (isa<Float8E5M2Type>(type))
    return gemmc::contract::DType::E5M2;
  return gemmc::contract::DType::F32;
}

static gemmc::contract::Layout toLayout(Layout layout) {
  return layout == Layout::RowMajor ? gemmc::contract::Layout::Row
                                    : gemmc::contract::Layout::Col;
}

/// A size of the contract: 0 where given at launch.
static int64_t toSize(int64_t value) {
  return ShapedType::isDynamic(value) ? 0 : value;
}

static gemmc::contract::GridExpr toGridExpr(GridDim dim) {
  switch (dim.dim) {
  case Dim::One:
    return {'1', dim.divisor};
  case Dim::SMs:
    return {'S', 1};
  case Dim::Splits:
    return {'Z', 1};
  default:
    return {stringifyDim(dim.dim).front(), dim.divisor};
  }
}

gemmc::contract::Contract mlir::gemm::toContract(const KernelContract &kc) {
  namespace ct = gemmc::contract;
  ProblemAttr problem = kc.problem;
  LaunchAttr launch = kc.launch;
  const gemmc::Schedule &model = kc.schedule.getValue();
  ct::Contract c;
  c.entry = kc.entry;
  // A family's variant: its place in the order, and its sizes.
  if (!kc.family.empty()) {
    c.family = kc.family;
    c.variant = int(kc.variant) + 1;
    c.variants = int(kc.variants);
    c.when = kc.when;
  }
  c.arch = kc.arch;
  for (auto [i, extent] : llvm::enumerate(launch.getBlock()))
    c.block[i] = unsigned(extent);
  for (auto [i, dim] : llvm::enumerate(launch.getGrid()))
    c.grid[i] = toGridExpr(dim);
  // Blocks per cluster (x y z): launched with cuLaunchKernelEx.
  if (model.cluster)
    c.cluster[0] = unsigned(model.clusterSize());
  c.dynamicSharedBytes = launch.getSharedBytes();
  // Split-K: the grid's z is the splits (0: chosen at launch); per tile
  // of C (grid x by y) and split the workspace holds a partial tile, the
  // counters one i32 per tile.
  if (model.splitsK()) {
    c.splits = model.splits();
    c.partialFloats = model.partialFloats();
  }
  // Stream-K: two partial tiles a block of the grid, a counter per tile.
  if (model.streamK) {
    c.streamK = true;
    c.partialFloats = model.partialFloats();
  }
  // Sizes given at launch: each matrix is a memref descriptor (pointer,
  // pointer, offset, sizes, strides: one kernel parameter each).
  for (const auto &[name, type] : kc.params)
    c.params.push_back({name, type});
  c.alignment = 16;
  // The boxes of the tensor maps the runtime encodes (innermost first, in
  // elements), all with the 128-byte swizzle; in a cluster each block
  // copies a slice of A's and B's tiles.
  gemmc::Problem modelProblem = getProblemModel(problem);
  std::optional<gemmc::WarpgroupKernel> kernel;
  if (model.hasWgmma())
    kernel = gemmc::getWarpgroupKernel(modelProblem, model);
  if (kernel && (kernel->usesTma() || kernel->c)) {
    c.tensorMaps = true;
    // A staged operand's boxes are BK rows of 128 bytes of M or N.
    auto box = [&](const gemmc::TmaOperand &t) -> gemmc::contract::TensorMapBox {
      if (t.staged())
        return {t.boxInner, t.stagingRows(kernel->elementBytes)};
      return {t.boxInner, t.sliceRows()};
    };
    if (kernel->a.byTma)
      c.boxA = box(kernel->a);
    if (kernel->b.byTma)
      c.boxB = box(kernel->b);
    if (kernel->c)
      c.boxC = {kernel->c->boxInner, kernel->c->boxOuter};
  }
  // Sizes given at launch that `tma c` can store (in 16-byte units).
  if (kc.descriptors && kernel && kernel->c) {
    int64_t multiple = kernel->c->sizeMultiple();
    (kernel->c->rowMajor ? c.multipleN : c.multipleM) = multiple;
  }
  if (kc.descriptors)
    for (auto [i, multiple] : llvm::enumerate(launch.getLdMultiple()))
      c.ldMultiple[i] = multiple;
  // A batch whose operand the producer realigns (2-byte pieces): its runs
  // lie alike in every matrix only where the matrices start 16 bytes
  // apart.
  if (kc.descriptors && kernel && !kc.batch.empty()) {
    const gemmc::TmaOperand *operands[] = {&kernel->a, &kernel->b};
    for (auto [i, t] : llvm::enumerate(operands))
      if (t->realignsInShared())
        c.strideMultiple[i] = 16 / kernel->elementBytes;
  }
  c.alphaBeta = kc.alphaBeta;
  c.bias = kc.bias;
  c.activation = kc.activation;
  c.scales = kc.scales;
  c.residual = kc.residual;
  c.amax = kc.amax;
  c.outputScale = kc.outputScale;
  c.semantics = ct::describeSemantics(kc.alphaBeta, kc.bias, kc.activation,
                                      kc.scales, kc.residual, kc.outputScale);
  ct::Problem &p = c.problem;
  p.m = toSize(problem.getM());
  p.n = toSize(problem.getN());
  p.k = toSize(problem.getK());
  p.a = toDType(problem.getAType());
  p.b = toDType(problem.getBType());
  p.c = toDType(problem.getCType());
  p.acc = toDType(problem.getAccType());
  p.aLayout = toLayout(problem.getALayout());
  p.bLayout = toLayout(problem.getBLayout());
  p.cLayout = toLayout(problem.getCLayout());
  // f32 inputs on tensor cores are rounded to tf32 (math = tf32), or split
  // into two tf32 parts (math = tf32x3).
  p.tf32x3 = problem.getMath() == gemmc::MathMode::TF32x3;
  p.fastAccumulate = problem.getMath() == gemmc::MathMode::FastAccumulate;
  p.tf32 = !p.tf32x3 && problem.getAType().isF32() &&
           (model.hasMma() || model.hasWgmma());
  if (!kc.batch.empty()) {
    p.batched = true;
    p.batch = toSize(kc.batch[0]);
    p.strideA = toSize(kc.batch[1]);
    p.strideB = toSize(kc.batch[2]);
    p.strideC = toSize(kc.batch[3]);
  }
  if (kc.groups) {
    p.grouped = true;
    p.groups = toSize(*kc.groups);
    p.groupTable = kc.groupTable;
  }
  std::string schedule;
  llvm::raw_string_ostream os(schedule);
  os << "tile=";
  llvm::interleave(model.tile, os, "x");
  if (model.coalesce)
    os << " coalesce";
  // The cost model's pipeline bound (docs/selection.md): the stages of the
  // operands' tiles where the kernel copies them to shared memory.
  if (model.hasPromotion() || model.hasWgmma())
    os << " stages=" << model.stages;
  c.schedule = schedule;
  // What the cost model needs beyond the rest (docs/selection.md), and a
  // family's fitted constants.
  c.hasCost = true;
  c.cost.unit = model.hasWgmma() ? ct::Unit::Wgmma
                : model.hasMma() ? ct::Unit::Mma
                                 : ct::Unit::Simt;
  c.cost.occupancy = gemmc::estimateOccupancy(modelProblem, model);
  if (kc.cost) {
    c.cost.fitted = true;
    c.cost.fixed = kc.cost->fixed;
    c.cost.latency = kc.cost->latency;
    c.cost.compute = kc.cost->compute;
    c.cost.memory = kc.cost->memory;
    c.cost.reduce = kc.cost->reduce;
  }
  c.source = kc.source;
  // `transpose`: everything above is of the kernel's problem, C^T = B^T *
  // A^T; the contract states the problem the kernel serves.
  if (model.transpose)
    return ct::untransposeContract(c);
  return c;
}

std::string mlir::gemm::formatContract(const KernelContract &contract) {
  return gemmc::contract::formatContract(toContract(contract));
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
