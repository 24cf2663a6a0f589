//===- Swizzle.cpp - the XOR swizzle of shared tiles
//-----------------------===//
//
// `promote ... swizzle`: where a 16-byte chunk of a shared tile lives, for
// the copies that write it and the ldmatrix reads of its fragments.
//
//===----------------------------------------------------------------------===//

#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/Transforms/Transforms.h"

using namespace mlir;
using namespace mlir::gemm;

/// `promote ... swizzle`: the 16-byte chunk of (row, col) in a shared tile
/// moves to chunk XOR f(row), where f spreads the 8 rows one ldmatrix reads
/// over distinct 16-byte bank groups. For rows of 8 chunks or more, f(row) =
/// 2 (row mod 4) + (row / 4) mod 2, a permutation of row mod 8 that also
/// keeps tf32's B fragment loads free of conflicts (the 4 rows x 2 adjacent
/// chunks a warp reads land in 8 distinct chunks, where row mod 8 puts two
/// in each of 4). Rows of fewer chunks share a 128-byte
/// line, so f steps every 8 / chunks rows. `col` is chunk-aligned or the
/// piece stays in its chunk.
Value mlir::gemm::swizzleColumn(OpBuilder &b, Location loc, MemRefType type,
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
