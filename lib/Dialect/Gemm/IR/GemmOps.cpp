//===- GemmOps.cpp - gemm dialect operations ------------------------------===//

#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::gemm;

#define GET_OP_CLASSES
#include "gemmc/Dialect/Gemm/IR/GemmOps.cpp.inc"

ScheduleAttr mlir::gemm::lookupSchedule(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto schedule = op->getAttrOfType<ScheduleAttr>(kScheduleAttr))
      return schedule;
  return {};
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

/// The schedule model's problem of a kernel: the problem attribute with the
/// kernel's epilogue and batch; f32 inputs on tensor cores compute in tf32.
static gemmc::Problem getKernelProblem(KernelOp kernel) {
  gemmc::Problem problem = getProblemModel(kernel.getProblem());
  const gemmc::Schedule &schedule = kernel.getSchedule().getValue();
  problem.tf32 = problem.tf32x3 || (problem.a == gemmc::ElementType::F32 &&
                                    (schedule.hasMma() || schedule.hasWgmma()));
  problem.alphaBeta = kernel.getAlphaBeta();
  if (std::optional<StringRef> bias = kernel.getBias())
    problem.bias = *bias == "row" ? gemmc::BiasKind::Row : gemmc::BiasKind::Col;
  if (std::optional<StringRef> scales = kernel.getScales())
    problem.scales = gemmc::scaleKindNamed(*scales);
  if (std::optional<StringRef> activation = kernel.getActivation())
    problem.activation =
        gemmc::activationNamed(*activation).value_or(gemmc::Activation::None);
  problem.residual = kernel.getResidual();
  problem.amax = kernel.getAmax();
  problem.outputScale = kernel.getOutputScale();
  if (std::optional<ArrayRef<int64_t>> batch = kernel.getBatch())
    setBatchModel(problem, *batch);
  if (std::optional<int64_t> groups = kernel.getGroups())
    setGroupsModel(problem, *groups, kernel.getGroupTable());
  return problem;
}

LogicalResult KernelOp::verify() {
  if (getGroupTable() && !getGroups())
    return emitOpError("group_table is the general form of 'groups', which "
                       "it lacks");
  if (std::optional<int64_t> groups = getGroups();
      groups && !ShapedType::isDynamic(*groups) && *groups < 1)
    return emitOpError("groups must be positive (or dynamic), got ")
           << *groups;
  if (std::optional<ArrayRef<int64_t>> batch = getBatch()) {
    // Where the sizes are given at launch the strides are '?', and the count
    // may be; else all are positive.
    bool dynamic = getProblem().isDynamic();
    bool countValid =
        ShapedType::isDynamic(batch->front()) ? dynamic : batch->front() > 0;
    bool stridesValid = llvm::all_of(batch->drop_front(), [&](int64_t v) {
      return dynamic ? ShapedType::isDynamic(v) : v > 0;
    });
    if (batch->size() != 4 || !countValid || !stridesValid)
      return emitOpError("batch must be [count, SA, SB, SC], all positive, "
                         "the strides (and maybe the count) '?' where the "
                         "sizes are given at launch");
  }
  if (std::optional<StringRef> bias = getBias();
      bias && *bias != "row" && *bias != "col")
    return emitOpError("bias must be 'row' or 'col', got '") << *bias << "'";
  if (std::optional<StringRef> activation = getActivation();
      activation && (!gemmc::activationNamed(*activation) ||
                     *activation == "none"))
    return emitOpError("activation must be 'relu', 'gelu', 'gelu-tanh' or "
                       "'silu', got '")
           << *activation << "'";
  if (std::optional<StringRef> scales = getScales();
      scales && !gemmc::scaleKindNamed(*scales))
    return emitOpError("scales must be 'tensor', 'rowwise' or 'block', got '")
           << *scales << "'";
  // The whole schedule against its problem: the rules of the schedule
  // model, without an architecture's limits.
  auto emitError = [&] { return emitOpError(); };
  ModelDiagnostics diagnostics(emitError);
  if (!gemmc::checkSchedule(getKernelProblem(*this), getSchedule().getValue(),
                            /*arch=*/nullptr, diagnostics))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  auto a = getA().getType();
  auto b = getB().getType();
  auto c = getC().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands must be 2-D memrefs");
  // Sizes that are both static must agree.
  auto differ = [](int64_t x, int64_t y) {
    return !ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y;
  };
  int64_t m = a.getDimSize(0), k = a.getDimSize(1), n = b.getDimSize(1);
  if (differ(b.getDimSize(0), k))
    return emitOpError("B has ")
           << b.getDimSize(0) << " rows but A has " << k << " columns";
  if (differ(c.getDimSize(0), m) || differ(c.getDimSize(1), n))
    return emitOpError("C must be ")
           << m << "x" << n << ", got " << c.getDimSize(0) << "x"
           << c.getDimSize(1);
  if (getLevel() != Level::Grid && !c.hasStaticShape())
    return emitOpError("a block's or a warp's tile of C must be static");
  for (MemRefType type : {a, b, c})
    if (!isa<FloatType>(type.getElementType()))
      return emitOpError("operands must have floating-point elements");
  if (!isa<FloatType>(getAccType()))
    return emitOpError("accumulator type must be a floating-point type");
  return success();
}

//===----------------------------------------------------------------------===//
// Tile copies
//===----------------------------------------------------------------------===//

/// Whether consecutive elements of a 2-D memref run along its last dimension.
static bool isRowMajor(MemRefType type) {
  auto [strides, offset] = type.getStridesAndOffset();
  return strides[1] == 1;
}

/// The checks shared by gemm.copy and gemm.load_tile on the source tile.
static LogicalResult verifyDistribution(Operation *op, MemRefType source,
                                        int64_t threads, int64_t vector) {
  if (source.getRank() != 2)
    return op->emitOpError("expects a 2-D source tile");
  if (threads <= 0 || vector <= 0)
    return op->emitOpError("threads and vector must be positive");
  int64_t rows = source.getDimSize(0), cols = source.getDimSize(1);
  int64_t contiguous = isRowMajor(source) ? cols : rows;
  if (contiguous % vector)
    return op->emitOpError("vector width ")
           << vector << " does not divide the contiguous side (" << contiguous
           << ") of the source tile";
  if ((rows * cols) % (threads * vector))
    return op->emitOpError("a ")
           << rows << "x" << cols << " tile does not split into " << threads
           << " threads x " << vector << "-element pieces";
  return success();
}

LogicalResult CopyOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto target = cast<MemRefType>(getTarget().getType());
  if (target.getRank() != 2)
    return emitOpError("expects a 2-D target");
  int64_t rows = source.getDimSize(0), cols = source.getDimSize(1);
  int64_t tRows = getTranspose() ? cols : rows;
  int64_t tCols = getTranspose() ? rows : cols;
  if (target.getDimSize(0) != tRows || target.getDimSize(1) != tCols)
    return emitOpError("target must be ")
           << tRows << "x" << tCols << (getTranspose() ? " (transposed)" : "");
  return verifyDistribution(*this, source, getThreads(), getVector());
}

LogicalResult LoadTileOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  if (failed(verifyDistribution(*this, source, getThreads(), getVector())))
    return failure();
  int64_t perThread = source.getNumElements() / getThreads();
  auto result = cast<VectorType>(getResult().getType());
  if (result.getRank() != 1 || result.getNumElements() != perThread)
    return emitOpError("result must be a vector of ")
           << perThread << " elements, this thread's share";
  return success();
}
