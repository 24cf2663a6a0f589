//===- Groups.cpp - a grouped GEMM's tiles -------------------------------===//
//
// A grouped GEMM (`groups`) learns its groups' rows on the device, from the
// offsets: offsets[g] is where group g's rows end (cumulative, i32), its
// rows start where the group before ends (0 for the first). Each group is
// given floor(e(g)/BM) - floor(e(g-1)/BM) + 1 slots of tile rows, e the
// offsets clamped into [0, M]: at least its ceil((e(g) - e(g-1))/BM)
// tiles, so that the slots of all groups number floor(e(G-1)/BM) + G and
// group g's first is floor(e(g-1)/BM) + g, which grows with g. A slot's
// group is thus found by a binary search over the offsets, per tile, with
// no pass over all the groups (nor shared memory) first; the slots a group
// does not fill (one at most) hold no tile. The walk takes the groups one
// after the other, each group's filled slots x tile columns in its own
// raster order (`raster G`: bands of G slots, the columns walked band by
// band), so that no band mixes two groups' B, then the slot left empty.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

Value KernelBuilder::groupRowEnd(Value g) {
  // Offsets outside [0, M] (which a caller should not pass) are clamped:
  // no tile reaches past C.
  Value end = memref::LoadOp::create(b, loc, offsets, ValueRange{g});
  Value zero = i32(0);
  Value nonNegative = arith::MaxSIOp::create(b, loc, end, zero);
  Value row = toIndex(nonNegative);
  return arith::MinUIOp::create(b, loc, row, m);
}

/// The first slot of group `g` (index), whose rows start at `rowStart`:
/// floor(rowStart / BM) + g.
static Value firstSlot(OpBuilder &b, Location loc, Value rowStart, Value g,
                       int64_t bm) {
  Value tileRow = arith::DivUIOp::create(b, loc, rowStart,
                                         indexConstant(b, loc, bm));
  return arith::AddIOp::create(b, loc, tileRow, g);
}

Value KernelBuilder::groupSlotRows() {
  // The launcher passes one group or more.
  Value last = arith::SubIOp::create(b, loc, groupCount, index(1));
  Value end = groupRowEnd(last);
  return firstSlot(b, loc, end, groupCount, s.bm());
}

void KernelBuilder::locateGroup(TilePosition &at, Value tile) {
  // Group g's tiles are [firstSlot(g) * tilesN, firstSlot(g + 1) * tilesN)
  // of the walk: its group is the last whose first slot is at most
  // tile / tilesN. lo holds one (group 0's first slot is 0), hi none (the
  // group count is past them).
  Value slot = arith::DivUIOp::create(b, loc, tile, tilesN);
  Type indexType = b.getIndexType();
  Value lo0 = index(0);
  auto search = scf::WhileOp::create(
      b, loc, TypeRange{indexType, indexType}, ValueRange{lo0, groupCount},
      [&](OpBuilder &ob, Location l, ValueRange bounds) {
        Value width = arith::SubIOp::create(ob, l, bounds[1], bounds[0]);
        Value one = indexConstant(ob, l, 1);
        Value open =
            arith::CmpIOp::create(ob, l, arith::CmpIPredicate::ugt, width, one);
        scf::ConditionOp::create(ob, l, open, bounds);
      },
      [&](OpBuilder &ob, Location l, ValueRange bounds) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        Value lo = bounds[0], hi = bounds[1];
        Value sum = arith::AddIOp::create(b, loc, lo, hi);
        Value mid = arith::ShRUIOp::create(b, loc, sum, index(1));
        // mid >= 1: group mid's rows start where group mid - 1's end.
        Value before = arith::SubIOp::create(b, loc, mid, index(1));
        Value start = groupRowEnd(before);
        Value first = firstSlot(b, loc, start, mid, s.bm());
        Value reached = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ule, first, slot);
        Value newLo = arith::SelectOp::create(b, loc, reached, mid, lo);
        Value newHi = arith::SelectOp::create(b, loc, reached, hi, mid);
        scf::YieldOp::create(b, loc, ValueRange{newLo, newHi});
      });
  Value g = search.getResult(0);
  // Where the group's rows start (the previous group's end, 0 for the
  // first: its load reads group 0's, which the select drops) and end (no
  // earlier than they start).
  Value one = index(1);
  Value atLeastOne = arith::MaxUIOp::create(b, loc, g, one);
  Value previous = arith::SubIOp::create(b, loc, atLeastOne, one);
  Value previousEnd = groupRowEnd(previous);
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, g,
                                        index(0));
  Value rowStart = arith::SelectOp::create(b, loc, isFirst, index(0),
                                           previousEnd);
  Value ownEnd = groupRowEnd(g);
  Value rowEnd = arith::MaxUIOp::create(b, loc, ownEnd, rowStart);
  // The tile's place among its group's slots x columns (slots: to the next
  // group's first), and its first row. The raster covers the slots the
  // group's rows fill, the slot it leaves empty (one at most) walked after
  // them: an empty tile inside a band would set the blocks after it a tile
  // ahead of their band's neighbours, which then share less of A and B in
  // L2 (Mixtral's experts at 1,024 rows: 703 TFLOP/s with the empty slot
  // in the band, 754 without).
  Value first = firstSlot(b, loc, rowStart, g, s.bm());
  Value tilesBefore = arith::MulIOp::create(b, loc, first, tilesN);
  Value inGroup = arith::SubIOp::create(b, loc, tile, tilesBefore);
  Value rows = arith::SubIOp::create(b, loc, rowEnd, rowStart);
  Value filled = arith::CeilDivUIOp::create(b, loc, rows, index(s.bm()));
  Value tiles = arith::MulIOp::create(b, loc, filled, tilesN);
  at.present = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     inGroup, tiles);
  // (An empty group's tiles are absent: a grid of one row to walk them.)
  Value walked = arith::MaxUIOp::create(b, loc, filled, one);
  Value row;
  if (s.raster) {
    std::tie(row, at.col) =
        rasterize(b, loc, inGroup, walked, tilesN, *s.raster);
  } else {
    row = arith::DivUIOp::create(b, loc, inGroup, tilesN);
    at.col = arith::RemUIOp::create(b, loc, inGroup, tilesN);
  }
  Value rowsBefore = arith::MulIOp::create(b, loc, row, index(s.bm()));
  at.row = arith::AddIOp::create(b, loc, first, row);
  at.batch = g;
  at.firstRow = arith::AddIOp::create(b, loc, rowStart, rowsBefore);
  at.rowEnd = rowEnd;
}

FailureOr<Value>
KernelBuilder::whereTileExists(const TilePosition &at, Value it0,
                               function_ref<FailureOr<Value>()> body) {
  if (!at.present)
    return body();
  auto ifPresent = scf::IfOp::create(b, loc, TypeRange{b.getIndexType()},
                                     at.present, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifPresent.getThenRegion().front());
    FailureOr<Value> end = body();
    if (failed(end))
      return failure();
    scf::YieldOp::create(b, loc, *end);
    b.setInsertionPointToStart(&ifPresent.getElseRegion().front());
    scf::YieldOp::create(b, loc, it0);
  }
  b.setInsertionPointAfter(ifPresent);
  return ifPresent.getResult(0);
}
