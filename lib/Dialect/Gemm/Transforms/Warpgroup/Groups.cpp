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
  // no tile reaches past C. (All groups' M: in a TileScope `m` is the
  // group's end.)
  Value end = memref::LoadOp::create(b, loc, offsets, ValueRange{g});
  Value zero = i32(0);
  Value nonNegative = arith::MaxSIOp::create(b, loc, end, zero);
  Value row = toIndex(nonNegative);
  return arith::MinUIOp::create(b, loc, row, rowsOfA);
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

SmallVector<Value> KernelBuilder::walkInits(Value it0,
                                            const GroupCursor *from) {
  if (!offsets && !table)
    return {it0};
  if (from)
    return {it0, from->group, from->tilesBefore, from->rowStart};
  Value zero = index(0);
  return {it0, zero, zero, zero};
}

SmallVector<Value> KernelBuilder::walkYields(Value it) {
  if (!offsets && !table)
    return {it};
  return {it, cursor.group, cursor.tilesBefore, cursor.rowStart};
}

void KernelBuilder::enterWalk(scf::ForOp tiles) {
  if (!offsets && !table)
    return;
  cursor = {tiles.getRegionIterArg(1), tiles.getRegionIterArg(2),
            tiles.getRegionIterArg(3)};
}

void KernelBuilder::moveCursor(Value tile, GroupStep step) {
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
        Value tiles = step(g, start).second;
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
        auto [end, tiles] = step(g, start);
        Value next = arith::AddIOp::create(b, loc, g, index(1));
        Value after = arith::AddIOp::create(b, loc, before, tiles);
        scf::YieldOp::create(b, loc, ValueRange{next, after, end});
      });
  cursor = {moveOn.getResult(0), moveOn.getResult(1), moveOn.getResult(2)};
}

void KernelBuilder::placeInGroup(TilePosition &at, Value tile, Value rows,
                                 Value cols) {
  Value inGroup = arith::SubIOp::create(b, loc, tile, cursor.tilesBefore);
  if (s.raster) {
    std::tie(at.row, at.col) =
        rasterize(b, loc, inGroup, rows, cols, *s.raster);
    return;
  }
  at.row = arith::DivUIOp::create(b, loc, inGroup, cols);
  at.col = arith::RemUIOp::create(b, loc, inGroup, cols);
}

void KernelBuilder::locateGroup(TilePosition &at, Value tile) {
  // On past every group whose tiles end at or before this one (which
  // comes after the block's last).
  moveCursor(tile, [&](Value g, Value start) { return groupExtent(g, start); });
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
  placeInGroup(at, tile, walked, tilesN);
  Value rowsBefore = arith::MulIOp::create(b, loc, at.row, index(s.bm()));
  at.batch = group;
  at.firstRow = arith::AddIOp::create(b, loc, rowStart, rowsBefore);
  at.rowEnd = rowEnd;
}

//===----------------------------------------------------------------------===//
// The general form: the group table
//===----------------------------------------------------------------------===//

Value KernelBuilder::tableEntry(Value g, gemmc::GroupColumn column) {
  Value row =
      arith::MulIOp::create(b, loc, g, index(gemmc::kGroupTableColumns));
  Value at = addOffset(b, loc, row, static_cast<int64_t>(column));
  // The table's i64 entries are 8-byte aligned (the contract's): one load
  // each, where MLIR's default data layout would give i64 4 bytes and LLVM
  // two 32-bit loads.
  return memref::LoadOp::create(b, loc, table, ValueRange{at},
                                /*nontemporal=*/false, llvm::Align(8));
}

Value KernelBuilder::tableSize(Value g, gemmc::GroupColumn column) {
  Value value = tableEntry(g, column);
  Value zero = i64(0);
  Value size = arith::MaxSIOp::create(b, loc, value, zero);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), size);
}

std::pair<Value, Value> KernelBuilder::tableGroupTiles(Value g) {
  Value rows = tableSize(g, gemmc::GroupColumn::M);
  Value cols = tableSize(g, gemmc::GroupColumn::N);
  Value tileRows = arith::CeilDivUIOp::create(b, loc, rows, index(s.bm()));
  Value tileCols = arith::CeilDivUIOp::create(b, loc, cols, index(s.bn()));
  return {tileRows, tileCols};
}

Value KernelBuilder::tableTileCount() {
  // Every thread sums the groups' tiles (a few loads a group, from L2 once
  // the first block read them); a group of no rows or columns has none.
  Value zero = index(0);
  Value one = index(1);
  auto groups = scf::ForOp::create(b, loc, zero, groupCount, one,
                                   ValueRange{zero});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(groups.getBody());
    auto [tileRows, tileCols] = tableGroupTiles(groups.getInductionVar());
    Value tiles = arith::MulIOp::create(b, loc, tileRows, tileCols);
    Value sum =
        arith::AddIOp::create(b, loc, groups.getRegionIterArg(0), tiles);
    scf::YieldOp::create(b, loc, sum);
  }
  return groups.getResult(0);
}

void KernelBuilder::moveTableCursor(Value tile) {
  // On past every group whose tiles end at or before this one, as
  // locateGroup (the cursor's row start unused).
  moveCursor(tile, [&](Value g, Value start) {
    Value last = arith::SubIOp::create(b, loc, groupCount, index(1));
    Value group = arith::MinUIOp::create(b, loc, g, last);
    auto [tileRows, tileCols] = tableGroupTiles(group);
    Value tiles = arith::MulIOp::create(b, loc, tileRows, tileCols);
    return std::make_pair(start, tiles);
  });
}

Value KernelBuilder::tableTileSteps(Value tile) {
  moveTableCursor(tile);
  Value last = arith::SubIOp::create(b, loc, groupCount, index(1));
  Value group = arith::MinUIOp::create(b, loc, cursor.group, last);
  Value extent = tableSize(group, gemmc::GroupColumn::K);
  return arith::CeilDivUIOp::create(b, loc, extent, index(s.bk()));
}

void KernelBuilder::locateTableGroup(TilePosition &at, Value tile) {
  moveTableCursor(tile);
  at.present = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     cursor.group, groupCount);
  Value last = arith::SubIOp::create(b, loc, groupCount, index(1));
  Value group = arith::MinUIOp::create(b, loc, cursor.group, last);
  auto [tileRows, tileCols] = tableGroupTiles(group);
  // (A tile past the groups: a grid of one tile to place it.)
  Value walkedRows = arith::MaxUIOp::create(b, loc, tileRows, index(1));
  Value walkedCols = arith::MaxUIOp::create(b, loc, tileCols, index(1));
  placeInGroup(at, tile, walkedRows, walkedCols);
  at.batch = group;
}

void KernelBuilder::viewTableGroup(Value g) {
  using gemmc::GroupColumn;
  m = tableSize(g, GroupColumn::M);
  n = tableSize(g, GroupColumn::N);
  kExtent = tableSize(g, GroupColumn::K);
  kTiles = arith::CeilDivUIOp::create(b, loc, kExtent, index(s.bk()));
  Value lda = tableEntry(g, GroupColumn::Lda);
  Value ldb = tableEntry(g, GroupColumn::Ldb);
  Value ldc = tableEntry(g, GroupColumn::Ldc);
  Value addressA = tableEntry(g, GroupColumn::A);
  Value addressB = tableEntry(g, GroupColumn::B);
  Value addressC = tableEntry(g, GroupColumn::C);
  a = viewAt(addressA, m, kExtent, lda, cast<MemRefType>(a.getType()));
  bMatrix =
      viewAt(addressB, kExtent, n, ldb, cast<MemRefType>(bMatrix.getType()));
  c = viewAt(addressC, m, n, ldc, cast<MemRefType>(c.getType()));
  group = g;
}

Value KernelBuilder::viewAt(Value address, Value rows, Value cols, Value ld,
                            MemRefType type) {
  // The memref descriptor that the conversion to LLVM makes of `type`
  // (allocated and aligned pointers, offset, sizes, strides), built here
  // and cast to the memref: no view of another matrix's address stands in
  // (its GEPs may claim to stay inside that matrix).
  MLIRContext *ctx = b.getContext();
  auto [strides, offset] = type.getStridesAndOffset();
  bool rowMajor = strides[1] == 1;
  auto pointerType = LLVM::LLVMPointerType::get(ctx);
  Type i64Type = b.getI64Type();
  auto pairType = LLVM::LLVMArrayType::get(i64Type, 2);
  auto descriptorType = LLVM::LLVMStructType::getLiteral(
      ctx, {pointerType, pointerType, i64Type, pairType, pairType});
  Value pointer = LLVM::IntToPtrOp::create(b, loc, pointerType, address);
  Value rows64 = arith::IndexCastUIOp::create(b, loc, i64Type, rows);
  Value cols64 = arith::IndexCastUIOp::create(b, loc, i64Type, cols);
  Value unit = i64(1);
  Value zero = i64(0);
  Value rowStride = rowMajor ? ld : unit;
  Value colStride = rowMajor ? unit : ld;
  Value descriptor = LLVM::PoisonOp::create(b, loc, descriptorType);
  auto insert = [&](Value value, ArrayRef<int64_t> position) {
    descriptor =
        LLVM::InsertValueOp::create(b, loc, descriptor, value, position);
  };
  insert(pointer, {0});
  insert(pointer, {1});
  insert(zero, {2});
  insert(rows64, {3, 0});
  insert(cols64, {3, 1});
  insert(rowStride, {4, 0});
  insert(colStride, {4, 1});
  return UnrealizedConversionCastOp::create(b, loc, type, descriptor)
      .getResult(0);
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
