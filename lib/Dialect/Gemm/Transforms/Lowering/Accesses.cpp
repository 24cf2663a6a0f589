//===- Accesses.cpp - element and vector accesses
//--------------------------===//
//
// Reads and writes along a row or a column of a memref: vectors where the
// elements are adjacent, guarded by the matrix bounds where asked.
//
//===----------------------------------------------------------------------===//

#include "Lowering/Accesses.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gemm;

/// Whether `width` consecutive elements along dimension `dim` of `type` are
/// adjacent in memory.
bool mlir::gemm::isContiguousAlong(MemRefType type, unsigned dim) {
  auto [strides, offset] = type.getStridesAndOffset();
  return dim == strides.size() - 1 && strides[dim] == 1;
}

llvm::MaybeAlign mlir::gemm::alignmentOf(VectorType type) {
  int64_t bytes =
      type.getNumElements() * type.getElementType().getIntOrFloatBitWidth() / 8;
  return llvm::MaybeAlign(std::min<int64_t>(bytes, 16));
}

bool mlir::gemm::isShared(Value memref) {
  return nvgpu::NVGPUDialect::hasSharedMemoryAddressSpace(
      cast<MemRefType>(memref.getType()));
}

/// (row, col) of `view` if the `width` elements from there along `dim` lie
/// inside the global matrix it views (`p` is where (row, col) lies in it),
/// else a point inside it: (0, 0) of the view where that is inside, else the
/// matrix's own (0, 0). With the condition.
std::tuple<Value, Value, Value>
mlir::gemm::clampToMatrix(OpBuilder &b, Location loc, Value view,
                          const MatrixPoint &p, Value row, Value col,
                          unsigned dim, int64_t width) {
  Value inside = isInside(b, loc, p, dim, width);
  Value zero = indexConstant(b, loc, 0);
  Value rowOutside = zero, colOutside = zero;
  if (!startsInsideMatrix(view)) {
    // The view's index of the matrix's (0, 0): minus the view's origin.
    rowOutside = arith::SubIOp::create(b, loc, row, p.row);
    colOutside = arith::SubIOp::create(b, loc, col, p.col);
  }
  return {inside, arith::SelectOp::create(b, loc, inside, row, rowOutside),
          arith::SelectOp::create(b, loc, inside, col, colOutside)};
}

/// How many of the `width` elements from `p` along `dim` lie inside the
/// matrix (0 to `width`) where its extent along `dim` is given at launch, so
/// that a vector may cross its edge; null where the extent is static (a
/// multiple of the width: the front-end checked the leading dimension).
Value mlir::gemm::elementsInside(OpBuilder &b, Location loc,
                                 const MatrixPoint &p, unsigned dim,
                                 int64_t width) {
  Value extent = dim == 0 ? p.rows : p.cols;
  if (width == 1 || getConstantIntValue(extent))
    return Value();
  Value first = isInside(b, loc, p, dim, 1);
  Value left = arith::SubIOp::create(b, loc, extent, dim == 0 ? p.row : p.col);
  Value count =
      arith::MinUIOp::create(b, loc, left, indexConstant(b, loc, width));
  return arith::SelectOp::create(b, loc, first, count,
                                 indexConstant(b, loc, 0));
}

/// Reads `width` elements of `source` from (row, col) along `dim`: one
/// vector load where they are adjacent, else one load each. With `guard`,
/// elements of a global matrix past its bounds read as zero (from a valid
/// address). A vector that crosses the edge of a matrix whose extent is
/// given at launch is read whole (it lies inside the row's leading
/// dimension, a multiple of the width) and its lanes past the edge zeroed.
Value mlir::gemm::readAlong(OpBuilder &b, Location loc, Value source, Value row,
                            Value col, int64_t width, unsigned dim,
                            bool guard) {
  auto type = cast<MemRefType>(source.getType());
  auto vectorType = VectorType::get({width}, type.getElementType());
  guard = guard && !isShared(source);
  // A vector along a static extent that is not a multiple of its width (the
  // mma epilogue's pairs of C where N is odd) may cross the edge, where it
  // can be neither kept nor dropped whole, and may be misaligned: it is read
  // an element at a time.
  int64_t extent = guard ? matrixTypeOf(source).getDimSize(dim) : 0;
  bool alignedExtent = ShapedType::isDynamic(extent) || extent % width == 0;
  if (width > 1 && isContiguousAlong(type, dim) && alignedExtent) {
    Value inside, count;
    if (guard) {
      // The pass checked that global views resolve (viewsMatrix).
      MatrixPoint p = pointInMatrix(b, loc, source, row, col);
      count = elementsInside(b, loc, p, dim, width);
      std::tie(inside, row, col) =
          clampToMatrix(b, loc, source, p, row, col, dim, count ? 1 : width);
    }
    Value value =
        vector::LoadOp::create(b, loc, vectorType, source, ValueRange{row, col},
                               /*nontemporal=*/false, alignmentOf(vectorType));
    if (!guard)
      return value;
    Value zeros = arith::ConstantOp::create(b, loc, vectorType,
                                            b.getZeroAttr(vectorType));
    if (count) {
      SmallVector<Value> lanes;
      for (int64_t e = 0; e < width; ++e)
        lanes.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                              indexConstant(b, loc, e), count));
      Value mask = vector::FromElementsOp::create(
          b, loc, VectorType::get({width}, b.getI1Type()), lanes);
      return arith::SelectOp::create(b, loc, mask, value, zeros);
    }
    return arith::SelectOp::create(b, loc, inside, value, zeros);
  }
  // An element at a time, each guarded by a branch rather than a clamped
  // address: each is read from its own position, so that addresses a
  // constant apart stay so (TileCopies.cpp places a thread's pieces that
  // way), and ptxas predicates the loads.
  SmallVector<Value> elements;
  Type elementType = type.getElementType();
  for (int64_t e = 0; e < width; ++e) {
    Value r = dim == 0 ? addOffset(b, loc, row, e) : row;
    Value c = dim == 1 ? addOffset(b, loc, col, e) : col;
    if (!guard) {
      elements.push_back(
          memref::LoadOp::create(b, loc, source, ValueRange{r, c}));
      continue;
    }
    Value inside =
        isInside(b, loc, pointInMatrix(b, loc, source, r, c), dim, 1);
    auto ifInside = scf::IfOp::create(
        b, loc, inside,
        [&](OpBuilder &tb, Location) {
          Value element =
              memref::LoadOp::create(tb, loc, source, ValueRange{r, c});
          scf::YieldOp::create(tb, loc, element);
        },
        [&](OpBuilder &eb, Location) {
          Value zero =
              arith::ConstantOp::create(eb, loc, eb.getZeroAttr(elementType));
          scf::YieldOp::create(eb, loc, zero);
        });
    elements.push_back(ifInside.getResult(0));
  }
  return vector::FromElementsOp::create(b, loc, vectorType, elements);
}

/// Stores `value` (`width` elements) into `target` from (row, col) along
/// `dim` with `store`, under `scf.if` when they lie inside the global matrix
/// `target` views, or plainly without `guard`. Where the matrix's extent
/// along `dim` is given at launch, a vector crossing its edge is stored an
/// element at a time, up to the edge.
static void storeInside(OpBuilder &b, Location loc, Value value, Value target,
                        Value row, Value col, unsigned dim, bool guard,
                        function_ref<void(OpBuilder &)> store) {
  if (!guard) {
    store(b);
    return;
  }
  int64_t width = 1;
  if (auto vectorType = dyn_cast<VectorType>(value.getType()))
    width = vectorType.getNumElements();
  MatrixPoint p = pointInMatrix(b, loc, target, row, col);
  Value count = elementsInside(b, loc, p, dim, width);
  if (!count) {
    auto inside = scf::IfOp::create(b, loc, isInside(b, loc, p, dim, width),
                                    /*withElseRegion=*/false);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPointToStart(inside.thenBlock());
    store(b);
    return;
  }
  Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count,
                                      indexConstant(b, loc, width));
  auto ifWhole = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard insertion(b);
  b.setInsertionPointToStart(ifWhole.thenBlock());
  store(b);
  b.setInsertionPointToStart(ifWhole.elseBlock());
  for (int64_t e = 0; e < width; ++e) {
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     indexConstant(b, loc, e), count);
    auto ifIn = scf::IfOp::create(b, loc, in, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard element(b);
    b.setInsertionPointToStart(ifIn.thenBlock());
    Value r = dim == 0 ? addOffset(b, loc, row, e) : row;
    Value c = dim == 1 ? addOffset(b, loc, col, e) : col;
    memref::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, value, e),
                            target, ValueRange{r, c});
  }
}

/// Writes `value` into `target` from (row, col) along `dim`, in pieces of at
/// most `maxWidth` elements where they are adjacent, else element by element.
/// With `guard`, pieces past the bounds of a global matrix are not written.
void mlir::gemm::writeAlong(OpBuilder &b, Location loc, Value value,
                            Value target, Value row, Value col, unsigned dim,
                            int64_t maxWidth, bool guard) {
  auto type = cast<MemRefType>(target.getType());
  auto vectorType = cast<VectorType>(value.getType());
  int64_t width = vectorType.getNumElements();
  guard = guard && !isShared(target);
  auto at = [&](int64_t e) {
    Value r = dim == 0 ? addOffset(b, loc, row, e) : row;
    Value c = dim == 1 ? addOffset(b, loc, col, e) : col;
    return SmallVector<Value>{r, c};
  };
  if (width > 1 && maxWidth > 1 && isContiguousAlong(type, dim)) {
    int64_t piece = std::min(width, maxWidth);
    auto pieceType = VectorType::get({piece}, vectorType.getElementType());
    for (int64_t e = 0; e < width; e += piece) {
      Value part = value;
      if (piece != width) {
        SmallVector<int64_t> mask;
        for (int64_t i = 0; i < piece; ++i)
          mask.push_back(e + i);
        part = vector::ShuffleOp::create(b, loc, value, value, mask);
      }
      SmallVector<Value> index = at(e);
      storeInside(b, loc, part, target, index[0], index[1], dim, guard,
                  [&](OpBuilder &sb) {
                    vector::StoreOp::create(sb, loc, part, target, index,
                                            /*nontemporal=*/false,
                                            alignmentOf(pieceType));
                  });
    }
    return;
  }
  for (int64_t e = 0; e < width; ++e) {
    Value element = vector::ExtractOp::create(b, loc, value, e);
    SmallVector<Value> index = at(e);
    storeInside(b, loc, element, target, index[0], index[1], dim, guard,
                [&](OpBuilder &sb) {
                  memref::StoreOp::create(sb, loc, element, target, index);
                });
  }
}
