//===- TileCopies.cpp - block-cooperative tile copies
//-----------------------===//
//
// gemm.copy, gemm.load_tile and gemm.store_tile as each thread's share of
// the pieces: their distribution over the threads, the guards by the matrix
// bounds, `edges split`, cp.async, and the swizzled or transposed stores
// into shared memory.
//
//===----------------------------------------------------------------------===//

#include "Lowering/Accesses.h"
#include "Lowering/Bounds.h"
#include "gemmc/Dialect/Gemm/Transforms/Transforms.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gemm;

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

  int64_t piecesPerThread() const { return rows * cols / (width * threads); }

  /// Piece `i`'s position. With `constantApart`, where a thread's pieces
  /// lie a constant apart, it is the first piece's plus that constant rather
  /// than a division of each piece's linear index: LLVM then derives each
  /// address from the last by an add (with static sizes, an immediate
  /// offset). cp.async copies keep the division: the other form changed
  /// ptxas's allocation of a tf32x3 kernel at the 255-register cap into a
  /// 12-byte spill.
  Piece piece(OpBuilder &b, Location loc, Value tid, int64_t i,
              bool constantApart = false) const {
    int64_t perLine = (rowMajor ? cols : rows) / width;
    int64_t offset = i * threads;
    Value line, inLine;
    if (constantApart && threads % perLine == 0) {
      // Whole lines apart.
      Value perLineValue = indexConstant(b, loc, perLine);
      Value first = arith::DivUIOp::create(b, loc, tid, perLineValue);
      line = addOffset(b, loc, first, offset / perLine);
      inLine = arith::RemUIOp::create(b, loc, tid, perLineValue);
    } else if (constantApart && perLine % threads == 0) {
      // Within one line: tid + i * threads never crosses it.
      Value perLineValue = indexConstant(b, loc, perLine);
      Value first = arith::RemUIOp::create(b, loc, tid, perLineValue);
      line = indexConstant(b, loc, offset / perLine);
      inLine = addOffset(b, loc, first, offset % perLine);
    } else {
      Value linear = addOffset(b, loc, tid, offset);
      line = arith::DivUIOp::create(b, loc, linear,
                                    indexConstant(b, loc, perLine));
      inLine = arith::RemUIOp::create(b, loc, linear,
                                      indexConstant(b, loc, perLine));
    }
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
    Value col =
        swizzleColumn(b, loc, cast<MemRefType>(target.getType()), p.row, p.col);
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

static void lowerCopyGuarded(CopyOp copy, int64_t storeWidth, bool swizzle,
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
      Value col =
          swizzle ? swizzleColumn(b, loc,
                                  cast<MemRefType>(copy.getTarget().getType()),
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
    Piece p = d.piece(b, loc, tid, i, /*constantApart=*/true);
    pieces.push_back({p, readAlong(b, loc, copy.getSource(), p.row, p.col,
                                   d.width, p.dim, guard)});
  }
  for (auto &[p, value] : pieces)
    storePiece(b, loc, value, copy.getTarget(), p, copy.getTranspose(),
               storeWidth, swizzle);
  copy.erase();
}

static void lowerLoadTileGuarded(LoadTileOp load, bool guard) {
  OpBuilder b(load);
  Location loc = load.getLoc();
  Distribution d = distributionOf(cast<MemRefType>(load.getSource().getType()),
                                  load.getThreads(), load.getVector());
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < d.piecesPerThread(); ++i) {
    Piece p = d.piece(b, loc, tid, i, /*constantApart=*/true);
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

void mlir::gemm::lowerStoreTile(StoreTileOp store, int64_t storeWidth,
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

void mlir::gemm::lowerCopy(CopyOp copy, const TileCopyLowering &options) {
  auto lower = [&](CopyOp c, bool guard) {
    lowerCopyGuarded(c, options.storeWidth, options.swizzle, guard);
  };
  // Copies out of shared memory need no bounds.
  if (options.guard && options.splitEdges && !isShared(copy.getSource()))
    splitAtEdges<CopyOp>(copy, lower);
  else
    lower(copy, options.guard);
}

void mlir::gemm::lowerLoadTile(LoadTileOp load,
                               const TileCopyLowering &options) {
  auto lower = [&](LoadTileOp l, bool guard) {
    lowerLoadTileGuarded(l, guard);
  };
  if (options.guard && options.splitEdges)
    splitAtEdges<LoadTileOp>(load, lower);
  else
    lower(load, options.guard);
}
