//===- Groups.cpp - a grouped GEMM's tiles -------------------------------===//
//
// A grouped GEMM (`groups`) learns its groups' rows on the device, from the
// offsets: offsets[g] is where group g's rows end (cumulative, i32), its
// rows start where the group before ends (0 for the first). Group g has
// ceil((e(g) - e(g-1)) / BM) tile rows, e the offsets clamped into [0, M],
// times the tile columns. The walk takes the groups one after the other,
// each group's tiles in its own raster order (`raster G`: bands of G tile
// rows, the columns walked band by band), so that no band mixes two
// groups' B; the grid deals the walk's tiles round, block by block, with
// no hole between groups (a hole sets the blocks after it a tile ahead of
// their neighbours, and deals some blocks more tiles than others). A block
// meets its tiles in the walk's order, so it finds each one's group by
// moving a cursor on from its last one's: every block passes every group
// once, with no pass over them first (nor shared memory). The walk's
// bound is a closed form over the last offset: floor(e(G-1)/BM) + G tile
// rows (at least the tile rows of all groups); tiles past the last group's
// are none.
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

Value KernelBuilder::groupSlotRows() {
  // The launcher passes one group or more.
  Value last = arith::SubIOp::create(b, loc, groupCount, index(1));
  Value end = groupRowEnd(last);
  Value tileRows = arith::DivUIOp::create(b, loc, end, index(s.bm()));
  return arith::AddIOp::create(b, loc, tileRows, groupCount);
}

std::pair<Value, Value> KernelBuilder::groupExtent(Value g, Value rowStart) {
  Value last = arith::SubIOp::create(b, loc, groupCount, index(1));
  Value group = arith::MinUIOp::create(b, loc, g, last);
  Value ownEnd = groupRowEnd(group);
  Value end = arith::MaxUIOp::create(b, loc, ownEnd, rowStart);
  Value rows = arith::SubIOp::create(b, loc, end, rowStart);
  Value tileRows = arith::CeilDivUIOp::create(b, loc, rows, index(s.bm()));
  Value tiles = arith::MulIOp::create(b, loc, tileRows, tilesN);
  return {end, tiles};
}

SmallVector<Value> KernelBuilder::walkInits(Value it0) {
  if (!offsets)
    return {it0};
  Value zero = index(0);
  return {it0, zero, zero, zero};
}

SmallVector<Value> KernelBuilder::walkYields(Value it) {
  if (!offsets)
    return {it};
  return {it, cursor.group, cursor.tilesBefore, cursor.rowStart};
}

void KernelBuilder::enterWalk(scf::ForOp tiles) {
  if (!offsets)
    return;
  cursor = {tiles.getRegionIterArg(1), tiles.getRegionIterArg(2),
            tiles.getRegionIterArg(3)};
}

void KernelBuilder::locateGroup(TilePosition &at, Value tile) {
  // On past every group whose tiles end at or before this one (which
  // comes after the block's last).
  SmallVector<Type, 3> types(3, b.getIndexType());
  SmallVector<Value, 3> from = {cursor.group, cursor.tilesBefore,
                                cursor.rowStart};
  auto moveOn = scf::WhileOp::create(
      b, loc, types, from,
      [&](OpBuilder &ob, Location l, ValueRange state) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        Value g = state[0], before = state[1], start = state[2];
        Value inGroups = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, g, groupCount);
        Value tiles = groupExtent(g, start).second;
        Value after = arith::AddIOp::create(b, loc, before, tiles);
        Value passed = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ule, after, tile);
        Value go = arith::AndIOp::create(b, loc, inGroups, passed);
        scf::ConditionOp::create(b, loc, go, state);
      },
      [&](OpBuilder &ob, Location l, ValueRange state) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        Value g = state[0], before = state[1], start = state[2];
        auto [end, tiles] = groupExtent(g, start);
        Value next = arith::AddIOp::create(b, loc, g, index(1));
        Value after = arith::AddIOp::create(b, loc, before, tiles);
        scf::YieldOp::create(b, loc, ValueRange{next, after, end});
      });
  cursor = {moveOn.getResult(0), moveOn.getResult(1), moveOn.getResult(2)};
  // Past the last group, no tile (the walk's bound counts slots).
  Value rowStart = cursor.rowStart;
  at.present = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     cursor.group, groupCount);
  Value last = arith::SubIOp::create(b, loc, groupCount, index(1));
  Value group = arith::MinUIOp::create(b, loc, cursor.group, last);
  Value rowEnd = groupExtent(group, rowStart).first;
  Value rows = arith::SubIOp::create(b, loc, rowEnd, rowStart);
  Value tileRows = arith::CeilDivUIOp::create(b, loc, rows, index(s.bm()));
  // (A tile past the groups: a grid of one tile row to place it.)
  Value walked = arith::MaxUIOp::create(b, loc, tileRows, index(1));
  Value inGroup = arith::SubIOp::create(b, loc, tile, cursor.tilesBefore);
  if (s.raster) {
    std::tie(at.row, at.col) =
        rasterize(b, loc, inGroup, walked, tilesN, *s.raster);
  } else {
    at.row = arith::DivUIOp::create(b, loc, inGroup, tilesN);
    at.col = arith::RemUIOp::create(b, loc, inGroup, tilesN);
  }
  Value rowsBefore = arith::MulIOp::create(b, loc, at.row, index(s.bm()));
  at.batch = group;
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
