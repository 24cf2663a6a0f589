//===- Mma.cpp - a warp's tile on tensor cores with mma.sync --------------===//

#include "Lowering/Epilogue.h"
#include "Lowering/SplitK.h"
#include "Lowering/MmaLayout.h"
#include "Utils/Utils.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Dialect/Gemm/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir::gemm {
#define GEN_PASS_DEF_GEMMMMA
#include "gemmc/Dialect/Gemm/Transforms/Passes.h.inc"
} // namespace mlir::gemm

using namespace mlir;
using namespace mlir::gemm;

/// One mma.sync with f32 accumulation: m16n8k16 for f16 and bf16, m16n8k8
/// for f32 inputs in tf32. f16 and tf32 go through nvgpu; MLIR 22's nvgpu
/// lowering cannot type bf16 operands, so bf16 calls nvvm.mma.sync directly,
/// with the fragments packed two to a 32-bit register as the instruction
/// takes them.
static Value mmaSync(OpBuilder &b, Location loc, Value aFrag, Value bFrag,
                     Value acc) {
  Type element = cast<VectorType>(aFrag.getType()).getElementType();
  if (element.isF16())
    return nvgpu::MmaSyncOp::create(b, loc, aFrag, bFrag, acc,
                                    ArrayRef<int64_t>{16, 8, 16});
  if (element.isF32())
    return nvgpu::MmaSyncOp::create(b, loc, aFrag, bFrag, acc,
                                    ArrayRef<int64_t>{16, 8, 8},
                                    /*tf32Enabled=*/true);
  auto wordType = VectorType::get({1}, b.getI32Type());
  auto words = [&](Value fragment, int64_t rows) {
    SmallVector<Value> out;
    for (int64_t r = 0; r < rows; ++r) {
      Value pair = vector::ExtractOp::create(b, loc, fragment, r);
      Value word = vector::BitCastOp::create(b, loc, wordType, pair);
      out.push_back(vector::ExtractOp::create(b, loc, word, 0));
    }
    return out;
  };
  SmallVector<Value> c;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      c.push_back(
          vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, e}));
  Type f32 = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  auto mma = NVVM::MmaOp::create(
      b, loc, resultType, words(aFrag, 4), words(bFrag, 2), c,
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> d;
  for (int64_t i = 0; i < 4; ++i)
    d.push_back(LLVM::ExtractValueOp::create(b, loc, mma.getResult(), i));
  return vector::FromElementsOp::create(b, loc, acc.getType(), d);
}

/// tf32x3: a fragment of f32 values as its tf32 parts and remainders
/// (splitTf32, element by element).
static std::pair<Value, Value> splitFragment(OpBuilder &b, Location loc,
                                             Value fragment) {
  auto type = cast<VectorType>(fragment.getType());
  Value big = fragment, small = fragment;
  for (int64_t r = 0; r < type.getDimSize(0); ++r) {
    SmallVector<int64_t, 2> pos = {r, 0};
    Value x = vector::ExtractOp::create(b, loc, fragment, pos);
    auto [high, low] = splitTf32(b, loc, x);
    big = vector::InsertOp::create(b, loc, high, big, pos);
    small = vector::InsertOp::create(b, loc, low, small, pos);
  }
  return {big, small};
}

static LogicalResult lowerToMma(MatmulOp matmul) {
  const gemmc::Schedule &s = getKernelSchedule(matmul);
  auto aType = cast<MemRefType>(matmul.getA().getType());
  auto bType = cast<MemRefType>(matmul.getB().getType());
  auto cType = cast<MemRefType>(matmul.getC().getType());
  int64_t wm = cType.getDimSize(0), wn = cType.getDimSize(1);
  ArrayRef<int64_t> shape = *s.mma;
  Type element = aType.getElementType();
  // A fragment holds 4 x (32 bits of elements) of A and 2 x of B per lane
  // (MmaLayout.h).
  int64_t perWord = getMmaElementsPerWord(element);
  int64_t mmaK = getMmaK(element);
  if (!(element.isF16() || element.isBF16() || element.isF32()) ||
      bType.getElementType() != element || !matmul.getAccType().isF32())
    return matmul.emitOpError("mma takes f16, bf16 or f32 (tf32) A and B "
                              "and accumulates in f32");
  if (shape[0] != 16 || shape[1] != 8 || shape[2] != mmaK)
    return matmul.emitOpError("mma m16n8k")
           << shape[2] << " does not match " << element
           << " inputs (m16n8k16 for f16 and bf16, m16n8k8 for tf32)";
  bool tf32x3 = isTf32x3Kernel(matmul);
  if (tf32x3 && !element.isF32())
    return matmul.emitOpError("tf32x3 takes f32 A and B");
  OpBuilder b(matmul);
  Location loc = matmul.getLoc();
  // A K given at launch is rounded up to BK (a multiple of the mma's K) by
  // the promoted copies' zero-fill.
  OpFoldResult k =
      kLoopExtent(b, loc, matmul, matmul.getA(), s.bk(), s.hasPromotion());
  std::optional<int64_t> knownK = getConstantIntValue(k);
  if (wm % 16 || wn % 8 || (knownK && *knownK % mmaK) ||
      (!knownK && (!s.hasPromotion() || s.bk() % mmaK)))
    return matmul.emitOpError("a ")
           << wm << "x" << wn << "x"
           << (knownK ? *knownK : ShapedType::kDynamic)
           << " warp tile is not made of 16x8x" << mmaK << " mma fragments";

  auto c = [&](int64_t v) { return indexConstant(b, loc, v); };
  int64_t mTiles = wm / 16, nTiles = wn / 8;
  VectorType accType = getMmaAccumulatorType(b.getContext());
  VectorType aFragType = getMmaAType(element);
  Value zero = arith::ConstantOp::create(b, loc, accType,
                                         DenseElementsAttr::get(accType, 0.0f));
  SmallVector<Value> inits(mTiles * nTiles, zero);
  // 16-bit B fragments come two at a time (one ldmatrix x4.trans of a
  // 16 x 16 tile) when the warp tile has an even number of them.
  int64_t perLoad = perWord == 2 && nTiles % 2 == 0 ? 2 : 1;
  VectorType bFragType = getMmaBType(element);
  Value zeroB = arith::ConstantOp::create(
      b, loc, bFragType,
      DenseElementsAttr::get(bFragType, b.getZeroAttr(element)));

  // Operands are built one statement at a time: C++ leaves the order of a
  // call's arguments unspecified, and the IR must not depend on the host
  // compiler.
  Value lower = c(0);
  Value upper = getValueOrCreateConstantIndexOp(b, loc, k);
  Value step = c(mmaK);
  auto loop = scf::ForOp::create(
      b, loc, lower, upper, step, inits,
      [&](OpBuilder &lb, Location l, Value kk, ValueRange acc) {
        auto lc = [&](int64_t v) { return indexConstant(lb, l, v); };
        SmallVector<Value> aFrags, bFrags;
        for (int64_t mi = 0; mi < mTiles; ++mi)
          aFrags.push_back(LoadFragmentOp::create(
              lb, l, aFragType, matmul.getA(), lc(mi * 16), kk, /*a=*/true));
        VectorType loadType = getMmaBType(element, perLoad);
        for (int64_t ni = 0; ni < nTiles; ni += perLoad) {
          Value frags = LoadFragmentOp::create(lb, l, loadType, matmul.getB(),
                                               kk, lc(ni * 8), /*a=*/false);
          if (perLoad == 1) {
            bFrags.push_back(frags);
            continue;
          }
          // Rows 0-1 are fragment ni, rows 2-3 fragment ni + 1 (row by row:
          // the LLVM lowering takes no 2-D strided slices).
          for (int64_t half = 0; half < 2; ++half) {
            Value frag = zeroB;
            for (int64_t r = 0; r < 2; ++r)
              frag = vector::InsertOp::create(
                  lb, l, vector::ExtractOp::create(lb, l, frags, 2 * half + r),
                  frag, r);
            bFrags.push_back(frag);
          }
        }
        SmallVector<Value> next;
        if (!tf32x3) {
          for (int64_t mi = 0; mi < mTiles; ++mi)
            for (int64_t ni = 0; ni < nTiles; ++ni)
              next.push_back(mmaSync(lb, l, aFrags[mi], bFrags[ni],
                                     acc[mi * nTiles + ni]));
          scf::YieldOp::create(lb, l, next);
          return;
        }
        // tf32x3: per step, the three products of a fragment pair are
        // summed on the tensor cores from zero (the two small ones first,
        // while the sum is small), and that sum is added to the accumulator
        // with an f32 add. The tensor cores round their sums toward zero:
        // accumulating K / 8 x 3 of them in place drifted by 30 times
        // cuBLAS SGEMM's error at 4096^3 on an H200 (an error that grows
        // with K); rounded to nearest, the long sum's error is SGEMM's.
        SmallVector<std::pair<Value, Value>> aParts, bParts;
        for (Value frag : aFrags)
          aParts.push_back(splitFragment(lb, l, frag));
        for (Value frag : bFrags)
          bParts.push_back(splitFragment(lb, l, frag));
        for (int64_t mi = 0; mi < mTiles; ++mi)
          for (int64_t ni = 0; ni < nTiles; ++ni) {
            auto [aBig, aSmall] = aParts[mi];
            auto [bBig, bSmall] = bParts[ni];
            Value step = mmaSync(lb, l, aSmall, bBig, zero);
            step = mmaSync(lb, l, aBig, bSmall, step);
            step = mmaSync(lb, l, aBig, bBig, step);
            next.push_back(
                arith::AddFOp::create(lb, l, acc[mi * nTiles + ni], step));
          }
        scf::YieldOp::create(lb, l, next);
      });
  loop->setAttr(kKLoopAttr, b.getUnitAttr());

  SmallVector<Value> accs(loop.getResults());
  if (failed(reduceSplits(b, loc, matmul, accs)))
    return failure();

  // Lane l holds rows l / 4 and l / 4 + 8, columns 2 (l mod 4) + {0, 1}, of
  // each 16 x 8 fragment of C.
  Value lane = getLaneId(b, loc);
  AccumulatorLanes lanes = getAccumulatorLanes(b, loc, lane);
  Value laneRow = lanes.row, laneCol = lanes.col;
  Type cElement = cType.getElementType();
  auto pairType = VectorType::get({2}, cElement);
  AffineMap alongColumns =
      AffineMap::get(2, 0, getAffineDimExpr(1, b.getContext()));
  bool inBounds[] = {true};
  // C is read (for beta) in the pieces it is written in: pairs, or with
  // `global-store 1` element by element (any leading dimension of C).
  bool pairs = getKernelSchedule(matmul).globalStoreWidth() > 1;
  // R (`residual = add`) is read as C is.
  auto readPair = [&](OpBuilder &sb, Value matrix, Value row,
                      Value col) -> Value {
    if (pairs)
      return readAlongRow(sb, loc, pairType, matrix, row, col);
    auto elementType = VectorType::get({1}, cElement);
    Value first = readAlongRow(sb, loc, elementType, matrix, row, col);
    Value second = readAlongRow(sb, loc, elementType, matrix, row,
                                addOffset(sb, loc, col, 1));
    return vector::ShuffleOp::create(sb, loc, first, second,
                                     ArrayRef<int64_t>{0, 1});
  };
  auto rowOf = [&](OpBuilder &sb, int64_t mi, int64_t half) {
    return addOffset(sb, loc, laneRow, mi * 16 + half * 8);
  };
  auto colOf = [&](OpBuilder &sb, int64_t ni) {
    return addOffset(sb, loc, laneCol, ni * 8);
  };
  LogicalResult built = buildEpilogue(
      b, loc, matmul, matmul.getC(),
      [&](OpBuilder &sb, const EpilogueValues &e) {
        for (int64_t mi = 0; mi < mTiles; ++mi) {
          // Where the epilogue reads C, a row of fragments' reads go first, in
          // flight together (all of them would need as many registers again as
          // the accumulators).
          auto readRow = [&](Value matrix) {
            SmallVector<Value> reads(nTiles * 2);
            for (int64_t ni = 0; ni < nTiles && matrix; ++ni)
              for (int64_t half = 0; half < 2; ++half) {
                Value row = rowOf(sb, mi, half);
                Value col = colOf(sb, ni);
                reads[ni * 2 + half] =
                    extendToF32(sb, loc, readPair(sb, matrix, row, col));
              }
            return reads;
          };
          SmallVector<Value> olds = readRow(e.readsC ? matmul.getC() : Value());
          SmallVector<Value> addeds = readRow(e.residual);
          for (int64_t ni = 0; ni < nTiles; ++ni)
            for (int64_t half = 0; half < 2; ++half) {
              Value pair = vector::ExtractOp::create(
                  sb, loc, accs[mi * nTiles + ni], half);
              pair = e.apply(sb, loc, pair, olds[ni * 2 + half],
                             addeds[ni * 2 + half], matmul.getC(),
                             [&] {
                               Value row = rowOf(sb, mi, half);
                               return std::make_pair(row, colOf(sb, ni));
                             });
              if (!cElement.isF32())
                pair = arith::TruncFOp::create(sb, loc, pairType, pair);
              vector::TransferWriteOp::create(
                  sb, loc, pair, matmul.getC(),
                  ValueRange{rowOf(sb, mi, half), colOf(sb, ni)}, alongColumns,
                  ArrayRef<bool>(inBounds));
            }
        }
      });
  if (failed(built))
    return failure();
  matmul.erase();
  return success();
}

namespace {
struct GemmMmaPass : public mlir::gemm::impl::GemmMmaBase<GemmMmaPass> {
  void runOnOperation() override {
    FailureOr<SmallVector<MatmulOp>> matmuls = collectMatmuls(
        getOperation(), [](MatmulOp op, const gemmc::Schedule &s) {
          return op.getLevel() == Level::Warp && s.hasMma();
        });
    if (failed(matmuls))
      return signalPassFailure();
    for (MatmulOp matmul : *matmuls)
      if (failed(lowerToMma(matmul)))
        return signalPassFailure();
  }
};
} // namespace
