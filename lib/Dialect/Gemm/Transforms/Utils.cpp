//===- Utils.cpp - helpers shared by the gemm transformation passes -------===//

#include "Utils.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gemm;

/// The view `view` is a subview or cast of, or null.
static Value viewedMemRef(Value view) {
  if (auto cast = view.getDefiningOp<memref::CastOp>())
    return cast.getSource();
  if (auto subView = view.getDefiningOp<memref::SubViewOp>())
    return subView.getSource();
  return Value();
}

bool mlir::gemm::viewsMatrix(Value view) {
  for (; Value source = viewedMemRef(view); view = source)
    if (auto subView = view.getDefiningOp<memref::SubViewOp>())
      if (subView.getSourceType().getRank() != 2 ||
          !llvm::all_of(subView.getStaticStrides(),
                        [](int64_t stride) { return stride == 1; }))
        return false;
  auto type = dyn_cast<MemRefType>(view.getType());
  return type && type.getRank() == 2 && type.hasStaticShape();
}

MatrixPoint mlir::gemm::pointInMatrix(OpBuilder &b, Location loc, Value view,
                                      Value row, Value col) {
  assert(viewsMatrix(view) && "not a view of a matrix of static shape");
  for (; Value source = viewedMemRef(view); view = source) {
    auto subView = view.getDefiningOp<memref::SubViewOp>();
    if (!subView)
      continue;
    SmallVector<OpFoldResult> offsets = subView.getMixedOffsets();
    row = arith::AddIOp::create(
        b, loc, row, getValueOrCreateConstantIndexOp(b, loc, offsets[0]));
    col = arith::AddIOp::create(
        b, loc, col, getValueOrCreateConstantIndexOp(b, loc, offsets[1]));
  }
  auto type = cast<MemRefType>(view.getType());
  return {row, col, type.getDimSize(0), type.getDimSize(1)};
}

Value mlir::gemm::isInside(OpBuilder &b, Location loc, const MatrixPoint &p,
                           unsigned dim, int64_t width) {
  auto below = [&](Value v, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v,
                                 indexConstant(b, loc, bound));
  };
  Value lastRow = dim == 0 ? addOffset(b, loc, p.row, width - 1) : p.row;
  Value lastCol = dim == 1 ? addOffset(b, loc, p.col, width - 1) : p.col;
  return arith::AndIOp::create(b, loc, below(lastRow, p.rows),
                               below(lastCol, p.cols));
}

int64_t mlir::gemm::kLoopExtent(Operation *matmul, int64_t k, int64_t bk,
                                bool promoted) {
  auto func = matmul->getParentOfType<gpu::GPUFuncOp>();
  if (!promoted || !func || !func->hasAttr(kTailsAttr))
    return k;
  return llvm::divideCeil(k, bk) * bk;
}

Value EpilogueValues::apply(OpBuilder &b, Location loc, Value acc,
                            Value old) const {
  if (!alpha)
    return acc;
  auto splat = [&](Value scalar) -> Value {
    if (auto vector = dyn_cast<VectorType>(acc.getType()))
      return vector::BroadcastOp::create(b, loc, vector, scalar);
    return scalar;
  };
  Value scaled = arith::MulFOp::create(b, loc, splat(alpha), acc);
  if (!readsC)
    return scaled;
  return arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, splat(beta), old), scaled);
}

void mlir::gemm::buildEpilogue(
    OpBuilder &b, Location loc, Operation *at,
    function_ref<void(OpBuilder &, const EpilogueValues &)> stores) {
  auto func = at->getParentOfType<gpu::GPUFuncOp>();
  if (!func || !func->hasAttr(kAlphaBetaAttr)) {
    stores(b, EpilogueValues{});
    return;
  }
  Value alpha = func.getArgument(3), beta = func.getArgument(4);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value readsC = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                       beta, zero);
  scf::IfOp::create(
      b, loc, readsC,
      [&](OpBuilder &tb, Location) {
        stores(tb, EpilogueValues{alpha, beta, true});
        scf::YieldOp::create(tb, loc);
      },
      [&](OpBuilder &eb, Location) {
        stores(eb, EpilogueValues{alpha, beta, false});
        scf::YieldOp::create(eb, loc);
      });
}
