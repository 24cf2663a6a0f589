//===- GemmDialect.cpp - gemm dialect -------------------------------------===//

#include "gemmc/Dialect/Gemm/IR/GemmDialect.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::gemm;

#include "gemmc/Dialect/Gemm/IR/GemmDialect.cpp.inc"

void GemmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "gemmc/Dialect/Gemm/IR/GemmOps.cpp.inc"
      >();
  registerAttributes();
}

/// The dialect's discardable attributes (GemmBase.td): the kernel's
/// contract goes on a function, each marker on the kind of op the passes
/// put it on.
LogicalResult GemmDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  StringAttr name = attribute.getName();
  Attribute value = attribute.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "'" << name.getValue() << "' " << what;
  };
  bool onFunction = isa<FunctionOpInterface>(op);
  bool unit = isa<UnitAttr>(value);

  // The kernel's contract.
  if (name == getProblemAttrHelper().getName())
    return expect(isa<ProblemAttr>(value) && onFunction,
                  "must be a #gemm.problem on a function");
  if (name == getScheduleAttrHelper().getName())
    return expect(isa<ScheduleAttr>(value) && onFunction,
                  "must be a #gemm.schedule on a function");
  if (name == getLaunchAttrHelper().getName())
    return expect(isa<LaunchAttr>(value) && onFunction,
                  "must be a #gemm.launch on a function");
  if (name == getAlphaBetaAttrHelper().getName() ||
      name == getResidualAttrHelper().getName() ||
      name == getAmaxAttrHelper().getName() ||
      name == getOutputScaleAttrHelper().getName() ||
      name == getTailsAttrHelper().getName())
    return expect(unit && onFunction, "must be a unit attribute on a function");
  if (name == getBiasAttrHelper().getName()) {
    auto bias = dyn_cast<StringAttr>(value);
    return expect(bias && onFunction &&
                      (bias.getValue() == "row" || bias.getValue() == "col"),
                  "must be \"row\" or \"col\" on a function");
  }
  if (name == getActivationAttrHelper().getName()) {
    auto activation = dyn_cast<StringAttr>(value);
    return expect(activation && onFunction &&
                      gemmc::activationNamed(activation.getValue()) &&
                      activation.getValue() != "none",
                  "must be \"relu\", \"gelu\", \"gelu-tanh\" or \"silu\" on a "
                  "function");
  }
  if (name == getScalesAttrHelper().getName()) {
    auto scales = dyn_cast<StringAttr>(value);
    return expect(scales && onFunction &&
                      gemmc::scaleKindNamed(scales.getValue()),
                  "must be \"tensor\", \"rowwise\" or \"block\" on a "
                  "function");
  }
  if (name == getGroupsAttrHelper().getName()) {
    auto groups = dyn_cast<IntegerAttr>(value);
    return expect(groups && onFunction &&
                      (ShapedType::isDynamic(groups.getInt()) ||
                       groups.getInt() > 0),
                  "must be a positive group count (or dynamic) on a "
                  "function");
  }
  if (name == getGroupTableAttrHelper().getName())
    return expect(unit && onFunction && op->hasAttr(getGroupsAttrHelper().getName()),
                  "must be a unit attribute on a grouped function");
  if (name == getBatchAttrHelper().getName()) {
    auto batch = dyn_cast<DenseI64ArrayAttr>(value);
    return expect(batch && batch.size() == 4 && onFunction,
                  "must be [count, SA, SB, SC] on a function");
  }

  // Markers between passes.
  if (name == getKLoopAttrHelper().getName() ||
      name == getKTilesAttrHelper().getName() ||
      name == getInnerKAttrHelper().getName())
    return expect(unit && isa<LoopLikeOpInterface>(op),
                  "must be a unit attribute on a loop");
  if (name == getStageAttrHelper().getName())
    return expect(unit && op->hasTrait<OpTrait::ConstantLike>(),
                  "must be a unit attribute on a constant");
  if (name == getWarpViewAttrHelper().getName())
    return expect(unit && isa<ViewLikeOpInterface>(op),
                  "must be a unit attribute on a view");
  return op->emitError() << "unknown gemm dialect attribute '"
                         << name.getValue() << "'";
}
