//===- GemmToGPU.cpp - outline gemm.kernel into gpu.func ------------------===//
//
// Each gemm.kernel becomes a gpu.module with one kernel gpu.func whose body is
// a grid-level gemm.matmul. The schedule passes take it from there.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Conversion/Passes.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/IR/KernelABI.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_CONVERTGEMMTOGPU
#include "gemmc/Conversion/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

/// The memref type of a `rows x cols` matrix stored in `layout`, in its
/// logical orientation: a column-major matrix gets strides [1, ld]. The
/// leading dimension ld is the number of columns (rows) of a row-major
/// (column-major) matrix, or, in a kernel whose sizes are given at launch
/// (`dynamic`), given at launch too.
static MemRefType getMatrixType(int64_t rows, int64_t cols, Type elementType,
                                Layout layout, bool dynamic) {
  MLIRContext *ctx = elementType.getContext();
  if (layout == Layout::RowMajor && !dynamic)
    return MemRefType::get({rows, cols}, elementType);
  int64_t ld = dynamic ? ShapedType::kDynamic
                       : (layout == Layout::RowMajor ? cols : rows);
  SmallVector<int64_t, 2> strides = {ld, 1};
  if (layout == Layout::ColMajor)
    std::swap(strides[0], strides[1]);
  return MemRefType::get({rows, cols}, elementType,
                         StridedLayoutAttr::get(ctx, /*offset=*/0, strides));
}

/// `count` matrices of `type`, `stride` elements apart: a
/// count x rows x cols memref whose first dimension steps by `stride`
/// (ShapedType::kDynamic: given at launch).
static MemRefType getBatchType(MemRefType type, int64_t count, int64_t stride) {
  auto [strides, offset] = type.getStridesAndOffset();
  auto layout = StridedLayoutAttr::get(type.getContext(), /*offset=*/0,
                                       {stride, strides[0], strides[1]});
  return MemRefType::get({count, type.getDimSize(0), type.getDimSize(1)},
                         type.getElementType(), layout);
}

/// The count of A's scales (`ofA`) or B's: one (`tensor`), one per row of
/// A or column of B (`rowwise`), or per 1 x 128 block of A and 128 x 128
/// block of B (`block`); dynamic where a size it depends on is.
static int64_t scaleExtent(gemmc::ScaleKind kind, bool ofA,
                           ProblemAttr problem, std::optional<int64_t> groups) {
  int64_t m = problem.getM(), n = problem.getN(), k = problem.getK();
  bool dependsOnK = kind == gemmc::ScaleKind::Block;
  // A grouped problem's B has its scales a group (`groups = ?`: given at
  // launch).
  int64_t count = ofA ? 1 : groups.value_or(1);
  if (ShapedType::isDynamic(count) ||
      (kind != gemmc::ScaleKind::Tensor &&
       (ShapedType::isDynamic(ofA ? m : n) ||
        (dependsOnK && ShapedType::isDynamic(k)))))
    return ShapedType::kDynamic;
  return gemmc::contract::scaleCount(gemmc::stringify(kind).str(), ofA, m, n,
                                     k, count);
}

static void outlineKernel(KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  ProblemAttr problem = kernel.getProblem();
  OpBuilder builder(kernel);

  auto gpuModule = gpu::GPUModuleOp::create(
      builder, loc, (kernel.getSymName() + "_module").str());
  builder.setInsertionPointToStart(gpuModule.getBody());

  // Sizes given at launch come with the leading dimensions (and a batch's
  // strides): the matrices are memrefs with dynamic sizes and strides, which
  // the kernel receives as memref descriptors.
  bool dynamic = problem.isDynamic();
  Type matrixTypes[3] = {
      getMatrixType(problem.getM(), problem.getK(), problem.getAType(),
                    problem.getALayout(), dynamic),
      getMatrixType(problem.getK(), problem.getN(), problem.getBType(),
                    problem.getBLayout(), dynamic),
      getMatrixType(problem.getM(), problem.getN(), problem.getCType(),
                    problem.getCLayout(), dynamic)};
  // A batch: each matrix becomes a count x rows x cols memref, and the
  // kernel computes the GEMM of batch blockIdx.z.
  std::optional<ArrayRef<int64_t>> batch = kernel.getBatch();
  if (batch)
    for (int i = 0; i < 3; ++i)
      matrixTypes[i] =
          getBatchType(cast<MemRefType>(matrixTypes[i]), (*batch)[0],
                       dynamic ? ShapedType::kDynamic : (*batch)[i + 1]);
  // A grouped GEMM: B holds a K x N matrix a group, dense one after the
  // other; A and C hold all groups' rows. (The general form's matrices are
  // the table's: A, B and C stand for their types and layouts.)
  std::optional<int64_t> groups = kernel.getGroups();
  bool groupTable = kernel.getGroupTable();
  if (groups && !groupTable) {
    auto bType = cast<MemRefType>(matrixTypes[1]);
    int64_t span = ShapedType::kDynamic;
    if (!dynamic)
      span = problem.getK() * problem.getN();
    matrixTypes[1] = getBatchType(bType, *groups, span);
  }
  // The arguments in the order of the kernel ABI: the matrices, alpha and
  // beta for `C = alpha * A * B + beta * C`, then the bias: a 1 x N row (one
  // value per column of C) or an M x 1 column, in C's type.
  // Then A's and B's scales (f32): one each (`tensor`), one per row of A
  // and per column of B (`rowwise`), or per block (`block`: scaleExtent).
  std::optional<StringRef> bias = kernel.getBias();
  std::optional<StringRef> scales = kernel.getScales();
  const gemmc::Schedule &schedule = kernel.getSchedule().getValue();
  ProblemArgs problemArgs;
  problemArgs.groups = groups.has_value();
  problemArgs.groupTable = groupTable;
  problemArgs.alphaBeta = kernel.getAlphaBeta();
  problemArgs.bias = bias.has_value();
  problemArgs.residual = kernel.getResidual();
  problemArgs.scales = scales.has_value();
  problemArgs.outputScale = kernel.getOutputScale();
  problemArgs.amax = kernel.getAmax();
  KernelABI abi = KernelABI::get(problemArgs, schedule);
  std::optional<gemmc::ScaleKind> scaleKind;
  if (scales)
    scaleKind = gemmc::scaleKindNamed(*scales);
  // Split-K's workspace: per tile of C, the splits' partial tiles, and an
  // arrival counter (sized at launch with the problem).
  int64_t tiles = ShapedType::kDynamic;
  if (!dynamic)
    tiles = llvm::divideCeil(problem.getM(), schedule.bm()) *
            llvm::divideCeil(problem.getN(), schedule.bn());
  auto perTile = [&](int64_t count) {
    return dynamic ? ShapedType::kDynamic : tiles * count;
  };
  SmallVector<Type, 6> argTypes;
  SmallVector<unsigned, 4> pointers;
  for (auto [i, role] : llvm::enumerate(abi.getRoles())) {
    switch (role) {
    case KernelArg::A:
    case KernelArg::B:
    case KernelArg::C:
      argTypes.push_back(matrixTypes[static_cast<int>(role)]);
      pointers.push_back(i);
      break;
    case KernelArg::Residual:
      // R is read as C is: its type, with C's strides.
      argTypes.push_back(matrixTypes[static_cast<int>(KernelArg::C)]);
      pointers.push_back(i);
      break;
    case KernelArg::Offsets:
      // Where each group's rows end (i32, cumulative; 4-byte aligned, as
      // a slice of a caller's tensor may be).
      argTypes.push_back(MemRefType::get({*groups}, builder.getI32Type()));
      break;
    case KernelArg::GroupTable: {
      // A row of GroupColumn's i64 values a group.
      int64_t extent = ShapedType::isDynamic(*groups)
                           ? ShapedType::kDynamic
                           : *groups * gemmc::kGroupTableColumns;
      argTypes.push_back(MemRefType::get({extent}, builder.getI64Type()));
      break;
    }
    case KernelArg::Alpha:
    case KernelArg::Beta:
      argTypes.push_back(builder.getF32Type());
      break;
    case KernelArg::Bias:
      argTypes.push_back(
          MemRefType::get(*bias == "row" ? ArrayRef<int64_t>{problem.getM(), 1}
                                         : ArrayRef<int64_t>{1, problem.getN()},
                          problem.getCType()));
      pointers.push_back(i);
      break;
    case KernelArg::ScaleA:
    case KernelArg::ScaleB: {
      int64_t extent =
          scaleExtent(*scaleKind, role == KernelArg::ScaleA, problem, groups);
      argTypes.push_back(MemRefType::get({extent}, builder.getF32Type()));
      pointers.push_back(i);
      break;
    }
    case KernelArg::OutputScale:
    case KernelArg::Amax:
      argTypes.push_back(MemRefType::get({1}, builder.getF32Type()));
      pointers.push_back(i);
      break;
    case KernelArg::Workspace:
      argTypes.push_back(
          MemRefType::get({perTile(schedule.workspaceFloatsPerTile())},
                          builder.getF32Type()));
      pointers.push_back(i);
      break;
    case KernelArg::Counters:
      argTypes.push_back(
          MemRefType::get({perTile(1)}, builder.getI32Type()));
      pointers.push_back(i);
      break;
    case KernelArg::TensorMapA:
    case KernelArg::TensorMapB:
    case KernelArg::TensorMapC:
      // The address of the CUtensorMap the runtime passes by value (a
      // grid-constant parameter once lowered: gemm-grid-constant).
      argTypes.push_back(LLVM::LLVMPointerType::get(ctx));
      break;
    }
  }
  auto func = gpu::GPUFuncOp::create(builder, loc, kernel.getSymName(),
                                     builder.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                builder.getUnitAttr());
  func->setAttr(kProblemAttr, problem);
  func->setAttr(kScheduleAttr, kernel.getSchedule());
  if (kernel.getAlphaBeta())
    func->setAttr(kAlphaBetaAttr, builder.getUnitAttr());
  if (bias)
    func->setAttr(kBiasAttr, builder.getStringAttr(*bias));
  if (kernel.getResidual())
    func->setAttr(kResidualAttr, builder.getUnitAttr());
  if (kernel.getAmax())
    func->setAttr(kAmaxAttr, builder.getUnitAttr());
  if (kernel.getOutputScale())
    func->setAttr(kOutputScaleAttr, builder.getUnitAttr());
  if (scales)
    func->setAttr(kScalesAttr, builder.getStringAttr(*scales));
  if (std::optional<StringRef> activation = kernel.getActivation())
    func->setAttr(kActivationAttr, builder.getStringAttr(*activation));
  // The runtime passes pointers that are at least 16-byte aligned and never
  // alias (the kernel contract says so).
  // (The lowering puts them on bare pointers only: memref descriptors, for
  // sizes given at launch, go without.)
  if (!dynamic)
    for (unsigned i : pointers) {
      func.setArgAttr(i, "llvm.noalias", builder.getUnitAttr());
      func.setArgAttr(i, "llvm.align", builder.getI64IntegerAttr(16));
    }

  builder.setInsertionPointToStart(&func.getBody().front());
  SmallVector<Value, 3> matrices = {getKernelArgument(func, KernelArg::A),
                                    getKernelArgument(func, KernelArg::B),
                                    getKernelArgument(func, KernelArg::C)};
  if (batch) {
    func->setAttr(kBatchAttr, builder.getDenseI64ArrayAttr(*batch));
    Value z = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::z);
    for (Value &matrix : matrices)
      matrix = createBatchMatrixView(builder, loc, matrix, z);
  }
  // A grouped GEMM multiplies by the first group's B; the wgmma kernel
  // takes each tile's group's in turn.
  if (groups) {
    func->setAttr(kGroupsAttr, builder.getI64IntegerAttr(*groups));
    if (groupTable)
      func->setAttr(kGroupTableAttr, builder.getUnitAttr());
    else
      matrices[1] = createBatchMatrixView(builder, loc, matrices[1],
                                          builder.getIndexAttr(0));
  }
  MatmulOp::create(builder, loc, matrices[0], matrices[1], matrices[2],
                   TypeAttr::get(problem.getAccType()),
                   LevelAttr::get(ctx, Level::Grid));
  gpu::ReturnOp::create(builder, loc);
  kernel.erase();
}

namespace {
struct ConvertGemmToGPUPass
    : public mlir::gemm::impl::ConvertGemmToGPUBase<ConvertGemmToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    if (kernels.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(module.getContext()));
    for (KernelOp kernel : kernels)
      outlineKernel(kernel);
  }
};
} // namespace
