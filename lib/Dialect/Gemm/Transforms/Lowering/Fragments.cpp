//===- Fragments.cpp - mma fragments read from shared memory
//----------------===//
//
// gemm.load_fragment as ldmatrix (f16, bf16, tf32 A) or as two 32-bit loads
// (tf32 B), with the lane arithmetic of MmaLayout.h.
//
//===----------------------------------------------------------------------===//

#include "Lowering/MmaLayout.h"
#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/Transforms/Transforms.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::gemm;

/// B's m16n8k8 tf32 fragment: two 32-bit loads (getTf32BLane).
static LogicalResult lowerTf32FragmentB(OpBuilder &b, Location loc,
                                        LoadFragmentOp fragment, Value lane,
                                        bool swizzle) {
  auto type = cast<MemRefType>(fragment.getSource().getType());
  auto [k, n] =
      getTf32BLane(b, loc, lane, fragment.getRow(), fragment.getCol());
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
LogicalResult mlir::gemm::lowerLoadFragment(LoadFragmentOp fragment,
                                            bool swizzle) {
  auto type = cast<MemRefType>(fragment.getSource().getType());
  if (!nvgpu::NVGPUDialect::hasSharedMemoryAddressSpace(type))
    return fragment.emitOpError("mma fragments are read from shared memory: "
                                "the schedule must promote A and B");
  OpBuilder b(fragment);
  Location loc = fragment.getLoc();
  Value lane = getLaneId(b, loc);
  Value row = getLdmatrixRow(b, loc, lane, fragment.getRow());
  Value col = fragment.getCol();
  int64_t bits = type.getElementTypeBitWidth();
  if (!fragment.getA() && bits == 32)
    return lowerTf32FragmentB(b, loc, fragment, lane, swizzle);
  int64_t tiles = cast<VectorType>(fragment.getType()).getDimSize(0);
  if (tiles == 4)
    col = getLdmatrixColumn(b, loc, lane, col, bits);
  if (swizzle)
    col = swizzleColumn(b, loc, type, row, col);
  auto ldmatrix = nvgpu::LdMatrixOp::create(
      b, loc, fragment.getType(), fragment.getSource(), ValueRange{row, col},
      /*transpose=*/!fragment.getA(), /*numTiles=*/tiles);
  fragment.replaceAllUsesWith(ldmatrix.getResult());
  fragment.erase();
  return success();
}
