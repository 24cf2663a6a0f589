//===- Vectorize.cpp - tile copies and fragments as vector accesses ------===//

#include "Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "gemmc/Dialect/Gemm/Transforms/Transforms.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMVECTORIZE
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

/// Whether `width` consecutive elements along dimension `dim` of `type` are
/// adjacent in memory.
static bool isContiguousAlong(MemRefType type, unsigned dim) {
  auto [strides, offset] = type.getStridesAndOffset();
  return dim == strides.size() - 1 && strides[dim] == 1;
}

static llvm::MaybeAlign alignmentOf(VectorType type) {
  int64_t bytes = type.getNumElements() *
                  type.getElementType().getIntOrFloatBitWidth() / 8;
  return llvm::MaybeAlign(std::min<int64_t>(bytes, 16));
}

static bool isShared(Value memref) {
  return nvgpu::NVGPUDialect::hasSharedMemoryAddressSpace(
      cast<MemRefType>(memref.getType()));
}

/// (row, col) of `view` if the `width` elements from there along `dim` lie
/// inside the global matrix it views (`p` is where (row, col) lies in it),
/// else a point inside it: (0, 0) of the view where that is inside, else the
/// matrix's own (0, 0). With the condition.
static std::tuple<Value, Value, Value>
clampToMatrix(OpBuilder &b, Location loc, Value view, const MatrixPoint &p,
              Value row, Value col, unsigned dim, int64_t width) {
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
static Value elementsInside(OpBuilder &b, Location loc, const MatrixPoint &p,
                            unsigned dim, int64_t width) {
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
static Value readAlong(OpBuilder &b, Location loc, Value source, Value row,
                       Value col, int64_t width, unsigned dim,
                       bool guard = false) {
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
  SmallVector<Value> elements;
  for (int64_t e = 0; e < width; ++e) {
    Value r = dim == 0 ? addOffset(b, loc, row, e) : row;
    Value c = dim == 1 ? addOffset(b, loc, col, e) : col;
    Value inside;
    if (guard)
      std::tie(inside, r, c) = clampToMatrix(
          b, loc, source, pointInMatrix(b, loc, source, r, c), r, c, dim, 1);
    Value element = memref::LoadOp::create(b, loc, source, ValueRange{r, c});
    if (guard)
      element = arith::SelectOp::create(
          b, loc, inside, element,
          arith::ConstantOp::create(b, loc,
                                    b.getZeroAttr(type.getElementType())));
    elements.push_back(element);
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
static void writeAlong(OpBuilder &b, Location loc, Value value, Value target,
                       Value row, Value col, unsigned dim, int64_t maxWidth,
                       bool guard = false) {
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

/// `promote ... swizzle`: the 16-byte chunk of (row, col) in a shared tile
/// moves to chunk XOR f(row), where f spreads the 8 rows one ldmatrix reads
/// over distinct 16-byte bank groups. For rows of 8 chunks or more, f(row) =
/// 2 (row mod 4) + (row / 4) mod 2, a permutation of row mod 8 that also
/// keeps tf32's B fragment loads free of conflicts (the 4 rows x 2 adjacent
/// chunks a warp reads land in 8 distinct chunks, where row mod 8 puts two
/// in each of 4). Rows of fewer chunks share a 128-byte
/// line, so f steps every 8 / chunks rows. `col` is chunk-aligned or the
/// piece stays in its chunk.
static Value swizzleColumn(OpBuilder &b, Location loc, MemRefType type,
                           Value row, Value col) {
  int64_t chunk = 128 / type.getElementTypeBitWidth();
  int64_t chunks = type.getDimSize(1) / chunk;
  if (chunks <= 1)
    return col;
  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  // One op per statement: a call's arguments have no set order, and the IR
  // must not depend on the host compiler.
  Value f;
  if (chunks >= 8) {
    Value rowMod4 = arith::RemUIOp::create(b, loc, row, c(4));
    Value twice = arith::MulIOp::create(b, loc, rowMod4, c(2));
    Value quad = arith::DivUIOp::create(b, loc, row, c(4));
    Value quadMod2 = arith::RemUIOp::create(b, loc, quad, c(2));
    f = arith::AddIOp::create(b, loc, twice, quadMod2);
  } else {
    Value group = arith::DivUIOp::create(b, loc, row, c(8 / chunks));
    f = arith::RemUIOp::create(b, loc, group, c(chunks));
  }
  Value index = arith::DivUIOp::create(b, loc, col, c(chunk));
  Value within = arith::RemUIOp::create(b, loc, col, c(chunk));
  Value moved = arith::XOrIOp::create(b, loc, index, f);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, moved, c(chunk)), within);
}

namespace {
/// Piece `i` of this thread in a block-cooperative copy of a `rows x cols`
/// tile cut into `width`-element pieces along its contiguous dimension.
struct Piece {
  Value row, col;
  unsigned dim;
};

struct Distribution {
  int64_t rows, cols, width, threads;
  bool rowMajor;

  int64_t piecesPerThread() const {
    return rows * cols / (width * threads);
  }

  Piece piece(OpBuilder &b, Location loc, Value tid, int64_t i) const {
    int64_t perLine = (rowMajor ? cols : rows) / width;
    Value linear = addOffset(b, loc, tid, i * threads);
    Value line = arith::DivUIOp::create(b, loc, linear,
                                        indexConstant(b, loc, perLine));
    Value inLine = arith::RemUIOp::create(b, loc, linear,
                                          indexConstant(b, loc, perLine));
    Value pos =
        arith::MulIOp::create(b, loc, inLine, indexConstant(b, loc, width));
    if (rowMajor)
      return {line, pos, 1};
    return {pos, line, 0};
  }
};
} // namespace

static Distribution distributionOf(MemRefType source, int64_t threads,
                                   int64_t width) {
  return {source.getDimSize(0), source.getDimSize(1), width, threads,
          isRowMajor(source)};
}

/// Stores piece `p` (read from the source tile) into `target`, transposed or
/// not.
static void storePiece(OpBuilder &b, Location loc, Value value, Value target,
                       const Piece &p, bool transpose, int64_t maxWidth,
                       bool swizzle) {
  if (swizzle && isShared(target)) {
    // gemmc::checkImplemented: swizzled copies are 16-byte pieces along rows.
    Value col = swizzleColumn(b, loc, cast<MemRefType>(target.getType()),
                              p.row, p.col);
    return writeAlong(b, loc, value, target, p.row, col, p.dim, maxWidth);
  }
  if (!transpose)
    return writeAlong(b, loc, value, target, p.row, p.col, p.dim, maxWidth);
  writeAlong(b, loc, value, target, p.col, p.row, 1 - p.dim, maxWidth);
}

/// Whether the whole tile `view` (static shape) lies inside the matrix.
static Value tileInside(OpBuilder &b, Location loc, Value view) {
  auto type = cast<MemRefType>(view.getType());
  Value lastRow = indexConstant(b, loc, type.getDimSize(0) - 1);
  Value lastCol = indexConstant(b, loc, type.getDimSize(1) - 1);
  MatrixPoint last = pointInMatrix(b, loc, view, lastRow, lastCol);
  return isInside(b, loc, last, /*dim=*/1, /*width=*/1);
}

/// `edges split`: a guarded tile copy or load `op` is lowered twice, under
/// one branch (the same for the whole block) on whether its source tile
/// lies inside the matrix: unguarded there, guarded at the edges.
template <typename OpTy>
static void splitAtEdges(OpTy op, function_ref<void(OpTy, bool)> lower) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value inside = tileInside(b, loc, op.getSource());
  auto ifInside = scf::IfOp::create(b, loc, op->getResultTypes(), inside,
                                    /*withElseRegion=*/true);
  for (bool guard : {false, true}) {
    Block *block = guard ? ifInside.elseBlock() : ifInside.thenBlock();
    OpBuilder::InsertionGuard insertion(b);
    // Without results the branches come with their terminators.
    if (op->getNumResults())
      b.setInsertionPointToEnd(block);
    else
      b.setInsertionPoint(block->getTerminator());
    auto clone = cast<OpTy>(b.clone(*op));
    if (op->getNumResults())
      scf::YieldOp::create(b, loc, clone->getResults());
    lower(clone, guard);
  }
  op->replaceAllUsesWith(ifInside.getResults());
  op->erase();
}

static void lowerCopy(CopyOp copy, int64_t storeWidth, bool swizzle,
                      bool guard) {
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  Distribution d = distributionOf(cast<MemRefType>(copy.getSource().getType()),
                                  copy.getThreads(), copy.getVector());
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  if (copy.getAsync()) {
    // One cp.async a piece, global to shared, same orientation; 16-byte
    // pieces bypass L1.
    auto elementBits =
        cast<MemRefType>(copy.getSource().getType()).getElementTypeBitWidth();
    bool bypassL1 = d.width * elementBits == 128;
    for (int64_t i = 0; i < d.piecesPerThread(); ++i) {
      Piece p = d.piece(b, loc, tid, i);
      Value col = swizzle ? swizzleColumn(b, loc,
                                          cast<MemRefType>(
                                              copy.getTarget().getType()),
                                          p.row, p.col)
                          : p.col;
      // Past the matrix bounds: no bytes read (from a valid address), the
      // piece zero-filled.
      // Where the matrix's extent is given at launch, a piece crossing its
      // edge reads up to the edge.
      Value srcRow = p.row, srcCol = p.col, srcElements;
      if (guard) {
        MatrixPoint point =
            pointInMatrix(b, loc, copy.getSource(), p.row, p.col);
        srcElements = elementsInside(b, loc, point, p.dim, d.width);
        Value inside;
        std::tie(inside, srcRow, srcCol) =
            clampToMatrix(b, loc, copy.getSource(), point, p.row, p.col, p.dim,
                          srcElements ? 1 : d.width);
        if (!srcElements) {
          Value all = indexConstant(b, loc, d.width);
          Value none = indexConstant(b, loc, 0);
          srcElements = arith::SelectOp::create(b, loc, inside, all, none);
        }
      }
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()),
          copy.getTarget(), ValueRange{p.row, col}, copy.getSource(),
          ValueRange{srcRow, srcCol}, b.getIndexAttr(d.width), srcElements,
          bypassL1 ? b.getUnitAttr() : UnitAttr());
    }
    copy.erase();
    return;
  }
  // All loads first, then the stores: the loads are independent and in
  // flight together.
  SmallVector<std::pair<Piece, Value>> pieces;
  for (int64_t i = 0; i < d.piecesPerThread(); ++i) {
    Piece p = d.piece(b, loc, tid, i);
    pieces.push_back({p, readAlong(b, loc, copy.getSource(), p.row, p.col,
                                   d.width, p.dim, guard)});
  }
  for (auto &[p, value] : pieces)
    storePiece(b, loc, value, copy.getTarget(), p, copy.getTranspose(),
               storeWidth, swizzle);
  copy.erase();
}

static void lowerLoadTile(LoadTileOp load, bool guard) {
  OpBuilder b(load);
  Location loc = load.getLoc();
  Distribution d = distributionOf(cast<MemRefType>(load.getSource().getType()),
                                  load.getThreads(), load.getVector());
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < d.piecesPerThread(); ++i) {
    Piece p = d.piece(b, loc, tid, i);
    Value piece = readAlong(b, loc, load.getSource(), p.row, p.col, d.width,
                            p.dim, guard);
    for (int64_t e = 0; e < d.width; ++e)
      elements.push_back(vector::ExtractOp::create(b, loc, piece, e));
  }
  Value all = vector::FromElementsOp::create(
      b, loc, cast<VectorType>(load.getType()), elements);
  load.replaceAllUsesWith(all);
  load.erase();
}

static void lowerStoreTile(StoreTileOp store, int64_t storeWidth,
                           bool swizzle) {
  OpBuilder b(store);
  Location loc = store.getLoc();
  ArrayRef<int64_t> shape = store.getSourceShape();
  Distribution d{shape[0], shape[1], int64_t(store.getVector()),
                 int64_t(store.getThreads()), store.getSourceRowMajor()};
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  auto valueType = cast<VectorType>(store.getValue().getType());
  auto pieceType = VectorType::get({d.width}, valueType.getElementType());
  for (int64_t i = 0; i < d.piecesPerThread(); ++i) {
    Piece p = d.piece(b, loc, tid, i);
    SmallVector<Value> elements;
    for (int64_t e = 0; e < d.width; ++e)
      elements.push_back(
          vector::ExtractOp::create(b, loc, store.getValue(), i * d.width + e));
    Value piece = vector::FromElementsOp::create(b, loc, pieceType, elements);
    storePiece(b, loc, piece, store.getTarget(), p, store.getTranspose(),
               storeWidth, swizzle);
  }
  store.erase();
}

/// The dimension a 1-D transfer runs along (its permutation map's result).
static unsigned transferDim(AffineMap map) {
  return cast<AffineDimExpr>(map.getResult(0)).getPosition();
}

static LogicalResult lowerTransferRead(vector::TransferReadOp read,
                                       bool guard) {
  if (read.getVectorType().getRank() != 1 || read.getMask() ||
      read.getIndices().size() != 2)
    return read.emitOpError("gemm-vectorize expects 1-D reads of 2-D tiles");
  OpBuilder b(read);
  Value value =
      readAlong(b, read.getLoc(), read.getBase(), read.getIndices()[0],
                read.getIndices()[1], read.getVectorType().getNumElements(),
                transferDim(read.getPermutationMap()), guard);
  read.replaceAllUsesWith(value);
  read.erase();
  return success();
}

static LogicalResult lowerTransferWrite(vector::TransferWriteOp write,
                                        int64_t storeWidth, bool guard) {
  if (write.getVectorType().getRank() != 1 || write.getMask() ||
      write.getIndices().size() != 2)
    return write.emitOpError("gemm-vectorize expects 1-D writes of 2-D tiles");
  OpBuilder b(write);
  writeAlong(b, write.getLoc(), write.getVector(), write.getBase(),
             write.getIndices()[0], write.getIndices()[1],
             transferDim(write.getPermutationMap()), storeWidth, guard);
  write.erase();
  return success();
}

/// B's m16n8k8 tf32 fragment: lane l holds (k, n) = (l mod 4, l / 4) and
/// (l mod 4 + 4, l / 4) of the 8x8 tile, two 32-bit loads (ldmatrix
/// transposes only 16-bit elements).
static LogicalResult lowerTf32FragmentB(OpBuilder &b, Location loc,
                                        LoadFragmentOp fragment, Value lane,
                                        bool swizzle) {
  auto type = cast<MemRefType>(fragment.getSource().getType());
  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  Value k = arith::AddIOp::create(b, loc, fragment.getRow(),
                                  arith::RemUIOp::create(b, loc, lane, c(4)));
  Value n = arith::AddIOp::create(b, loc, fragment.getCol(),
                                  arith::DivUIOp::create(b, loc, lane, c(4)));
  SmallVector<Value, 2> elements;
  for (int64_t half = 0; half < 2; ++half) {
    Value row = addOffset(b, loc, k, half * 4);
    Value col = swizzle ? swizzleColumn(b, loc, type, row, n) : n;
    elements.push_back(memref::LoadOp::create(b, loc, fragment.getSource(),
                                              ValueRange{row, col}));
  }
  Value result = vector::FromElementsOp::create(
      b, loc, cast<VectorType>(fragment.getType()), elements);
  fragment.replaceAllUsesWith(result);
  fragment.erase();
  return success();
}

/// A lane's mma fragment, read from shared memory with ldmatrix: for A four
/// 8x8 matrices (lanes 0-15 address rows 0-15 of the left half, 16-31 of the
/// right), for B two, transposed (lanes 0-15 address rows 0-15), or four for
/// two adjacent B fragments (laid out as A's).
static LogicalResult lowerLoadFragment(LoadFragmentOp fragment,
                                       bool swizzle) {
  auto type = cast<MemRefType>(fragment.getSource().getType());
  if (!nvgpu::NVGPUDialect::hasSharedMemoryAddressSpace(type))
    return fragment.emitOpError("mma fragments are read from shared memory: "
                                "the schedule must promote A and B");
  OpBuilder b(fragment);
  Location loc = fragment.getLoc();
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, loc, tid, indexConstant(b, loc, 32));
  Value row = arith::AddIOp::create(
      b, loc, fragment.getRow(),
      arith::RemUIOp::create(b, loc, lane, indexConstant(b, loc, 16)));
  Value col = fragment.getCol();
  int64_t bits = type.getElementTypeBitWidth();
  if (!fragment.getA() && bits == 32)
    return lowerTf32FragmentB(b, loc, fragment, lane, swizzle);
  int64_t tiles = cast<VectorType>(fragment.getType()).getDimSize(0);
  if (tiles == 4) {
    // Lanes 16-31 address the right half: 16 bytes further along the row.
    Value half = arith::DivUIOp::create(b, loc, lane, indexConstant(b, loc, 16));
    Value offset =
        arith::MulIOp::create(b, loc, half, indexConstant(b, loc, 128 / bits));
    col = arith::AddIOp::create(b, loc, col, offset);
  }
  if (swizzle)
    col = swizzleColumn(b, loc, type, row, col);
  auto ldmatrix = nvgpu::LdMatrixOp::create(
      b, loc, fragment.getType(), fragment.getSource(), ValueRange{row, col},
      /*transpose=*/!fragment.getA(), /*numTiles=*/tiles);
  fragment.replaceAllUsesWith(ldmatrix.getResult());
  fragment.erase();
  return success();
}

namespace {
struct GemmVectorizePass
    : public mlir::gemm::impl::GemmVectorizeBase<GemmVectorizePass> {
  void runOnOperation() override {
    gpu::GPUFuncOp func = getOperation();
    auto schedule = func->getAttrOfType<ScheduleAttr>(kScheduleAttr);
    int64_t sharedStore =
        schedule ? schedule.getValue().sharedStoreWidth() : 1;
    int64_t globalStore =
        schedule ? schedule.getValue().globalStoreWidth() : 1;
    bool swizzle = schedule && schedule.getValue().swizzle;
    bool guard = func->hasAttr(kTailsAttr);
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isa<CopyOp, LoadTileOp, StoreTileOp, LoadFragmentOp,
              vector::TransferReadOp, vector::TransferWriteOp>(op))
        ops.push_back(op);
    });
    // Guarded accesses find the matrix bounds through the views.
    if (guard)
      for (Operation *op : ops)
        for (Value operand : op->getOperands())
          if (isa<MemRefType>(operand.getType()) && !isShared(operand) &&
              !viewsMatrix(operand)) {
            op->emitOpError("gemm-vectorize cannot find the bounds of the "
                            "matrix this access reads or writes");
            return signalPassFailure();
          }
    for (Operation *op : ops) {
      LogicalResult result = success();
      bool split = guard && schedule && schedule.getValue().splitEdges;
      if (auto copy = dyn_cast<CopyOp>(op)) {
        auto lower = [&](CopyOp c, bool g) {
          lowerCopy(c, sharedStore, swizzle, g);
        };
        if (split && !isShared(copy.getSource()))
          splitAtEdges<CopyOp>(copy, lower);
        else
          lower(copy, guard);
      } else if (auto load = dyn_cast<LoadTileOp>(op)) {
        auto lower = [&](LoadTileOp l, bool g) { lowerLoadTile(l, g); };
        if (split)
          splitAtEdges<LoadTileOp>(load, lower);
        else
          lower(load, guard);
      } else if (auto store = dyn_cast<StoreTileOp>(op))
        lowerStoreTile(store, sharedStore, swizzle);
      else if (auto fragment = dyn_cast<LoadFragmentOp>(op))
        result = lowerLoadFragment(fragment, swizzle);
      else if (auto read = dyn_cast<vector::TransferReadOp>(op))
        result = lowerTransferRead(read, guard);
      else
        result = lowerTransferWrite(cast<vector::TransferWriteOp>(op),
                                    globalStore, guard);
      if (failed(result))
        return signalPassFailure();
    }
    recordLeadingDimensionMultiples(func);
  }
};
} // namespace
