//===- StoreC.cpp - the stores of C --------------------------------------===//
//
// The consumers' stores of C with the epilogue: from registers, or with
// `tma c` through shared memory.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "Lowering/Accesses.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

Value KernelBuilder::groupOffset(Value row, Value col) {
  const gemmc::TmaStore &t = *k.c;
  int64_t lineElements = gemmc::kSwizzleBytes / t.elementBytes;
  // A row of a row-major group is a line; a column-major group's boxes
  // each hold `lineElements` rows, its columns the lines.
  Value line = col, element = row, box;
  if (t.rowMajor) {
    line = row;
    element = col;
  } else {
    box = arith::DivUIOp::create(b, loc, row, i32(lineElements));
    element = arith::RemUIOp::create(b, loc, row, i32(lineElements));
  }
  Value x = arith::MulIOp::create(b, loc, element, i32(t.elementBytes));
  Value unit = arith::ShRUIOp::create(b, loc, x, i32(4));
  Value phase = arith::AndIOp::create(b, loc, line, i32(7));
  Value swizzled = arith::XOrIOp::create(b, loc, unit, phase);
  Value unitOffset = arith::ShLIOp::create(b, loc, swizzled, i32(4));
  Value inUnit = arith::AndIOp::create(b, loc, x, i32(15));
  Value lineOffset =
      arith::MulIOp::create(b, loc, line, i32(gemmc::kSwizzleBytes));
  Value offset = arith::AddIOp::create(b, loc, lineOffset, unitOffset);
  offset = arith::OrIOp::create(b, loc, offset, inUnit);
  if (box) {
    Value boxOffset = arith::MulIOp::create(b, loc, box, i32(t.boxBytes()));
    offset = arith::AddIOp::create(b, loc, offset, boxOffset);
  }
  return offset;
}

Value KernelBuilder::consumerTileInside(OpBuilder &ob, Value row0, Value col0) {
  Value rowEnd = addOffset(ob, loc, row0, k.rowsPerConsumer);
  Value colEnd = addOffset(ob, loc, col0, s.bn());
  Value rowsInside =
      arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ule, rowEnd, m);
  Value colsInside =
      arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ule, colEnd, n);
  return arith::AndIOp::create(ob, loc, rowsInside, colsInside);
}

/// `stores` under a branch on `inside`: with `true` on its side, `false`
/// on the other.
static void storeOnEachSide(OpBuilder &ob, Location loc, Value inside,
                            function_ref<void(OpBuilder &, bool)> stores) {
  scf::IfOp::create(
      ob, loc, inside,
      [&](OpBuilder &tb, Location) {
        stores(tb, true);
        scf::YieldOp::create(tb, loc);
      },
      [&](OpBuilder &eb, Location) {
        stores(eb, false);
        scf::YieldOp::create(eb, loc);
      });
}

LogicalResult KernelBuilder::storeCWithTma(ArrayRef<Value> accumulators,
                                           Value consumer, Value leader,
                                           Value row0, Value col0) {
  const gemmc::TmaStore &t = *k.c;
  Value threadRow, laneCol;
  std::tie(threadRow, laneCol) = accumulatorPosition();
  Value threadRow32 = toI32(threadRow), laneCol32 = toI32(laneCol);

  int64_t cBytes = t.elementBytes;
  auto f32Pair = VectorType::get({2}, b.getF32Type());
  auto sharedType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  // Tiles may reach past the matrix (TMA clips their stores): the reads of
  // C, R and the bias of such a tile are then clamped into it, element by
  // element. Where the epilogue reads C or R, the tiles inside the matrix
  // read them unclamped, by pairs along a row-major C's rows.
  bool edgeTiles = gemmc::hasEdgeTiles(p, s);
  Value lastRow, lastCol;
  if (edgeTiles) {
    lastRow = arith::SubIOp::create(b, loc, m, index(1));
    lastCol = arith::SubIOp::create(b, loc, n, index(1));
  }
  auto clamp = [&](OpBuilder &ob, Value v, Value last, bool edges) -> Value {
    if (!edges)
      return v;
    return arith::MinUIOp::create(ob, loc, v, last);
  };
  // This warpgroup's buffers, and its named barrier (0 is the block's).
  int64_t bufferStride =
      llvm::alignTo(t.groupBytes(), gemmc::kSwizzleAtomBytes);
  Value consumer32 = toI32(consumer);
  Value ownBuffers = arith::MulIOp::create(
      b, loc, consumer32, i32(bufferStride * gemmc::TmaStore::kBuffers));
  Value buffers = arith::AddIOp::create(b, loc, ownBuffers, i32(k.cOffset));
  Value barrierId = arith::AddIOp::create(b, loc, consumer32, i32(1));
  Value groupThreads = i32(gemmc::kWarpgroupSize);
  Value row0_32 = toI32(row0), col0_32 = toI32(col0);
  int64_t groupsPerRow = s.bn() / t.groupColumns;

  // The pairs (accumulator nt, element i) of column group `g` a thread
  // holds, in the order it writes them.
  auto groupPairs = [&](int64_t g) {
    SmallVector<std::pair<int64_t, int64_t>, 32> pairs;
    for (int64_t nt = 0; nt < k.nTiles; ++nt)
      for (int64_t i = 0; i < k.instN / 2; i += 2)
        if ((nt * k.instN + 8 * (i / 4)) / t.groupColumns == g)
          pairs.push_back({nt, i});
    return pairs;
  };
  // The place in C of pair (nt, i) of the wgmma tile row `mt`.
  auto placeOf = [&](OpBuilder &ob, int64_t mt, int64_t nt, int64_t i) {
    int64_t dRow = 8 * ((i / 2) % 2), dCol = nt * k.instN + 8 * (i / 4);
    Value row = addOffset(ob, loc, row0, mt * k.instM + dRow);
    row = arith::AddIOp::create(ob, loc, row, threadRow);
    Value col = addOffset(ob, loc, col0, dCol);
    col = arith::AddIOp::create(ob, loc, col, laneCol);
    return std::make_pair(row, col);
  };
  // A group's reads of C and R by pairs, as C's type holds them (each
  // widened to f32 where it is used).
  auto readGroup = [&](OpBuilder &ob, const EpilogueValues &epilogue,
                       int64_t q) {
    int64_t mt = q / groupsPerRow, g = q % groupsPerRow;
    SmallVector<StoreInputs, 16> inputs;
    for (auto [nt, i] : groupPairs(g)) {
      auto [row, col] = placeOf(ob, mt, nt, i);
      inputs.push_back(readStoreInputs(ob, epilogue, row, col, /*pair=*/true,
                                       /*widen=*/false));
    }
    return inputs;
  };

  // The element values of one group, with the epilogue applied, written to
  // its buffer at `base`; `ahead` the group's reads where they were issued
  // before (readGroup), or empty.
  auto writeGroup = [&](OpBuilder &ob, const EpilogueValues &epilogue,
                        int64_t mt, int64_t g, Value base, bool edges,
                        ArrayRef<StoreInputs> ahead) {
    // The group's values raise the amax at once, by a tree of maxima.
    AmaxRun amax;
    for (auto [index, place] : llvm::enumerate(groupPairs(g))) {
      auto [nt, i] = place;
      Value acc = accumulators[mt * k.nTiles + nt];
      int64_t dCol = nt * k.instN + 8 * (i / 4);
      int64_t dRow = 8 * ((i / 2) % 2);
      Value localRow = arith::AddIOp::create(ob, loc, threadRow32, i32(dRow));
      Value localCol =
          arith::AddIOp::create(ob, loc, laneCol32, i32(dCol % t.groupColumns));
      Value row, col;
      std::tie(row, col) = placeOf(ob, mt, nt, i);
      Value x = LLVM::ExtractValueOp::create(ob, loc, acc, i);
      Value y = LLVM::ExtractValueOp::create(ob, loc, acc, i + 1);
      SmallVector<Value, 2> values;
      if (!edges && t.rowMajor) {
        // A pair along the row, read and applied at once.
        Value pair =
            vector::FromElementsOp::create(ob, loc, f32Pair, ValueRange{x, y});
        const StoreInputs *read = ahead.empty() ? nullptr : &ahead[index];
        values.push_back(epiloguePair(ob, epilogue, pair, row, col, read));
      } else {
        for (int64_t j = 0; j < 2; ++j) {
          Value at = addOffset(ob, loc, col, j);
          Value readRow = clamp(ob, row, lastRow, edges);
          Value readCol = clamp(ob, at, lastCol, edges);
          values.push_back(
              epilogueElement(ob, epilogue, j ? y : x, readRow, readCol));
        }
      }
      // TMA clips what lies past the matrix: so does the amax, where the
      // epilogue can make something there of the copies' zeros.
      for (auto [j, value] : llvm::enumerate(values)) {
        if (!edges || !amaxSeesPastTheMatrix(epilogue)) {
          addToAmax(ob, amax, value);
          continue;
        }
        Value at = addOffset(ob, loc, col, int64_t(j));
        Value inRows =
            arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult, row, m);
        Value inCols =
            arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult, at, n);
        Value inside = arith::AndIOp::create(ob, loc, inRows, inCols);
        addToAmax(ob, amax, value, inside);
      }
      for (Value &value : values)
        value = epilogue.scaleOutput(ob, loc, value);
      if (t.rowMajor) {
        Value pair =
            values.size() == 1
                ? values[0]
                : vector::FromElementsOp::create(ob, loc, f32Pair, values)
                      .getResult();
        pair = narrowToC(ob, pair, /*bits=*/true);
        Value offset = groupOffset(localRow, localCol);
        Value at = arith::AddIOp::create(ob, loc, base, offset);
        Value ptr = LLVM::GEPOp::create(ob, loc, sharedType, ob.getI8Type(),
                                        sharedBase, ValueRange{at});
        LLVM::StoreOp::create(ob, loc, pair, ptr, 2 * cBytes);
        continue;
      }
      for (int64_t j = 0; j < 2; ++j) {
        Value value = narrowToC(ob, values[j], /*bits=*/true);
        Value elementCol = arith::AddIOp::create(ob, loc, localCol, i32(j));
        Value offset = groupOffset(localRow, elementCol);
        Value at = arith::AddIOp::create(ob, loc, base, offset);
        Value ptr = LLVM::GEPOp::create(ob, loc, sharedType, ob.getI8Type(),
                                        sharedBase, ValueRange{at});
        LLVM::StoreOp::create(ob, loc, value, ptr, cBytes);
      }
    }
    raiseAmax(ob, amax);
  };

  auto stores = [&](OpBuilder &ob, const EpilogueValues &epilogue, bool edges) {
    OpBuilder::InsertionGuard guard(ob);
    // Inside the matrix, the reads of C and R go `readAhead` groups ahead
    // of the writes (WarpgroupKernel::storeGroupsReadAhead): in flight
    // together, not a group's latency at a time.
    int64_t matrices =
        int64_t(epilogue.readsC) + int64_t(bool(epilogue.residual));
    int64_t readAhead =
        !edges && t.rowMajor ? k.storeGroupsReadAhead(matrices) : 1;
    std::vector<SmallVector<StoreInputs, 16>> reads(t.groupsPerTile);
    if (readAhead > 1)
      for (int64_t q = 0; q < readAhead; ++q)
        reads[q] = readGroup(ob, epilogue, q);
    for (int64_t q = 0; q < t.groupsPerTile; ++q) {
      int64_t mt = q / groupsPerRow, g = q % groupsPerRow;
      int64_t buffer = q % gemmc::TmaStore::kBuffers;
      Value base = arith::AddIOp::create(ob, loc, buffers,
                                         i32(buffer * bufferStride));
      // The buffer's previous store has read it: at most one other is in
      // flight (none at a tile's first group, whose buffers the last
      // tile's stores may still read).
      auto ifLeader = scf::IfOp::create(ob, loc, leader, false);
      {
        OpBuilder::InsertionGuard then(ob);
        ob.setInsertionPointToStart(&ifLeader.getThenRegion().front());
        NVVM::CpAsyncBulkWaitGroupOp::create(ob, loc, q == 0 ? 0 : 1,
                                             ob.getUnitAttr());
      }
      NVVM::BarrierOp::create(ob, loc, Type(), barrierId, groupThreads,
                              /*reductionOp=*/nullptr,
                              /*reductionPredicate=*/Value());
      writeGroup(ob, epilogue, mt, g, base, edges, reads[q]);
      if (readAhead > 1 && q + readAhead < t.groupsPerTile)
        reads[q + readAhead] = readGroup(ob, epilogue, q + readAhead);
      // The writes, by the generic proxy, before TMA reads them.
      NVVM::FenceProxyOp::create(
          ob, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(ob.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      NVVM::BarrierOp::create(ob, loc, Type(), barrierId, groupThreads,
                              /*reductionOp=*/nullptr,
                              /*reductionPredicate=*/Value());
      auto ifIssuer = scf::IfOp::create(ob, loc, leader, false);
      OpBuilder::InsertionGuard then(ob);
      ob.setInsertionPointToStart(&ifIssuer.getThenRegion().front());
      Value groupRow =
          arith::AddIOp::create(ob, loc, row0_32, i32(mt * k.instM));
      Value groupCol =
          arith::AddIOp::create(ob, loc, col0_32, i32(g * t.groupColumns));
      for (int64_t box = 0; box < t.boxes; ++box) {
        Value at = arith::AddIOp::create(ob, loc, base, i32(box * t.boxBytes()));
        Value src = LLVM::GEPOp::create(ob, loc, sharedType, ob.getI8Type(),
                                        sharedBase, ValueRange{at});
        // Coordinates innermost first (a batch's matrix last).
        SmallVector<Value, 3> coordinates = {groupCol, groupRow};
        if (!t.rowMajor) {
          Value boxRow =
              arith::AddIOp::create(ob, loc, groupRow, i32(box * t.boxInner));
          coordinates = {boxRow, groupCol};
        }
        // (A grouped GEMM's C is one matrix: its map is 2-D.)
        if (tmaBatch && batchCount)
          coordinates.push_back(tmaBatch);
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
            ob, loc, mapC, src, coordinates, /*l2CacheHint=*/Value(),
            NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
      }
      NVVM::CpAsyncBulkCommitGroupOp::create(ob, loc);
    }
  };

  Operation *at = b.getInsertionBlock()->getParentOp();
  return buildEpilogue(
      b, loc, at, c,
      [&](OpBuilder &ob, const EpilogueValues &epilogue) {
        // (Where the epilogue reads vectors alone, a bias or rowwise
        // scales, both kinds of tile take the clamped path: unclamped,
        // e4m3 128x192 tiles with rowwise scales ran within 1% either
        // way.)
        // Nor for the amax, masked in every tile where it must be
        // (amaxSeesPastTheMatrix): with the tiles inside the matrix
        // raising it unmasked in a second copy of the stores (1,968 SASS
        // instructions against 1,584), e4m3 128x192 tiles into bf16, sizes
        // at launch, ran 7.4-10% slower than without the amax on an H200;
        // masked everywhere 1.4-4.6%.
        bool readsMatrix = epilogue.readsC || epilogue.residual;
        if (!edgeTiles || !readsMatrix) {
          stores(ob, epilogue, /*edges=*/edgeTiles);
          return;
        }
        // The warpgroup's rows of the tile (or of its group's rows) and
        // its columns inside the matrix: unclamped reads, by pairs along a
        // row-major C's rows (the contract's 16-byte alignment of every
        // pointer, and TMA's of C's leading dimension, which R shares,
        // align each pair). On an H200, sizes at launch, f16: ping-pong
        // 128x192 tiles adding R 0.4-1.8% faster, 128x192 and 128x256
        // tiles reading beta * C 0.8-1.7% (but one of ten 0.6% slower);
        // cooperative 128x256 tiles in clusters of 2 adding R 0.2-0.7%
        // slower. Bringing R's lines into L2 ahead, from the producer,
        // made no tile faster
        // (benchmarks/results/h100-issue33/inside-reads-ab.txt).
        Value inside = consumerTileInside(ob, row0, col0);
        storeOnEachSide(ob, loc, inside, [&](OpBuilder &sb, bool inner) {
          stores(sb, epilogue, /*edges=*/!inner);
        });
      },
      group, k.clampsBiasReads());
}

std::pair<Value, Value> KernelBuilder::accumulatorPosition() {
  Value lane = arith::RemUIOp::create(b, loc, threadId, index(32));
  Value inGroup =
      arith::RemUIOp::create(b, loc, threadId, index(gemmc::kWarpgroupSize));
  Value warp = arith::DivUIOp::create(b, loc, inGroup, index(32));
  Value warpRow = arith::MulIOp::create(b, loc, warp, index(16));
  Value laneRow = arith::DivUIOp::create(b, loc, lane, index(4));
  Value threadRow = arith::AddIOp::create(b, loc, warpRow, laneRow);
  Value quad = arith::RemUIOp::create(b, loc, lane, index(4));
  Value laneCol = arith::MulIOp::create(b, loc, quad, index(2));
  return {threadRow, laneCol};
}

Value KernelBuilder::narrowToC(OpBuilder &ob, Value value, bool bits) {
  Type cType = cast<MemRefType>(c.getType()).getElementType();
  auto pairType = dyn_cast<VectorType>(value.getType());
  if (cType.isF32())
    return value;
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(cType)) {
    Type narrow = pairType ? Type(pairType.clone(cType)) : cType;
    return arith::TruncFOp::create(ob, loc, narrow, value);
  }
  // cvt packs its first operand into the high byte: the pair's first
  // element goes second, so that it lies first in memory.
  Value first = value, second;
  if (pairType) {
    first = vector::ExtractOp::create(ob, loc, value, 0);
    second = vector::ExtractOp::create(ob, loc, value, 1);
  } else {
    second = arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(0.0f));
  }
  auto bytes = VectorType::get({2}, ob.getI8Type());
  Value packed = NVVM::ConvertF32x2ToF8x2Op::create(
      ob, loc, bytes, second, first, NVVM::FPRoundingMode::RN,
      NVVM::SaturationMode::SATFINITE, /*relu=*/false, cType);
  if (!pairType)
    packed = vector::ExtractOp::create(ob, loc, packed, 0);
  if (bits)
    return packed;
  Type typed = pairType ? Type(bytes.clone(cType)) : cType;
  return arith::BitcastOp::create(ob, loc, typed, packed);
}

KernelBuilder::StoreInputs
KernelBuilder::readStoreInputs(OpBuilder &ob, const EpilogueValues &epilogue,
                               Value row, Value col, bool pair, bool widen) {
  Type cType = cast<MemRefType>(c.getType()).getElementType();
  // C's old values and R's, read alike.
  auto readAt = [&](Value matrix) -> Value {
    if (pair) {
      // A pair's place is aligned to the pair (see the callers): one load,
      // where LLVM would otherwise split it into two of an element each
      // (twice the requests: on an H200, f16, the cooperative 128x256
      // tiles adding R or beta * C ran 3-4% faster with one, ping-pong
      // 128x192 tiles 0-2%; benchmarks/results/h100-issue33/pair-loads-ab.txt).
      auto pairType = VectorType::get({2}, cType);
      Value read = vector::LoadOp::create(
          ob, loc, pairType, matrix, ValueRange{row, col},
          /*nontemporal=*/false, alignmentOf(pairType));
      return widen ? extendToF32(ob, loc, read) : read;
    }
    Value read = memref::LoadOp::create(ob, loc, matrix, ValueRange{row, col});
    if (read.getType() == ob.getF32Type())
      return read;
    return arith::ExtFOp::create(ob, loc, ob.getF32Type(), read);
  };
  StoreInputs inputs;
  if (epilogue.readsC)
    inputs.old = readAt(c);
  if (epilogue.residual)
    inputs.added = readAt(epilogue.residual);
  return inputs;
}

Value KernelBuilder::epiloguePair(OpBuilder &ob, const EpilogueValues &epilogue,
                                  Value acc, Value row, Value col,
                                  const StoreInputs *read) {
  StoreInputs in =
      read ? *read : readStoreInputs(ob, epilogue, row, col, /*pair=*/true);
  // (Inputs read ahead may still be in C's type.)
  Value old = in.old ? extendToF32(ob, loc, in.old) : Value();
  Value added = in.added ? extendToF32(ob, loc, in.added) : Value();
  auto position = [&]() { return std::make_pair(row, col); };
  return epilogue.apply(ob, loc, acc, old, added, c, position);
}

Value KernelBuilder::epilogueElement(OpBuilder &ob,
                                     const EpilogueValues &epilogue, Value acc,
                                     Value row, Value col) {
  StoreInputs in = readStoreInputs(ob, epilogue, row, col, /*pair=*/false);
  auto position = [&]() { return std::make_pair(row, col); };
  return epilogue.apply(ob, loc, acc, in.old, in.added, c, position);
}

LogicalResult KernelBuilder::storeC(ArrayRef<Value> accumulators, Value row0,
                                    Value col0) {
  Value threadRow, laneCol;
  std::tie(threadRow, laneCol) = accumulatorPosition();
  Value rowBase = arith::AddIOp::create(b, loc, row0, threadRow);
  Value colBase = arith::AddIOp::create(b, loc, col0, laneCol);

  Type cType = cast<MemRefType>(c.getType()).getElementType();
  bool rowMajor = p.cLayout == gemmc::MatrixLayout::Row;
  auto f32Pair = VectorType::get({2}, b.getF32Type());
  // Tiles inside the matrix store unguarded; the others element by
  // element inside the bounds.
  bool tails = gemmc::hasEdgeTiles(p, s);
  // Pairs of a row-major C's columns are one access where its leading
  // dimension is even, and with a batch each matrix's start (its stride);
  // an odd one (static, or given at launch, when the tiles inside the
  // matrix test it) is stored element by element.
  std::optional<int64_t> ldc = p.leadingDimension(gemmc::Operand::C);
  bool pairs = rowMajor && (!ldc || *ldc % 2 == 0) &&
               (!p.batchStrides || (*p.batchStrides)[2] % 2 == 0);

  // Where the epilogue reads C or R, the pairs' reads go first, this many
  // at a time, in flight together: C's stores may alias them (memref
  // descriptors are not `noalias`), so that LLVM keeps each read after the
  // store before it and the reads' latencies add up. (On an H200, bf16
  // 128x256 tiles with alpha, a bias, GELU and R, sizes at launch: 8-10%
  // faster at 4096^3, 16384x4096x4096 and 4096x14336x4096. Before TMA's
  // store of C, where the stores are to shared memory, reading a group's
  // values ahead of its barrier measured 1% slower.)
  constexpr int64_t kReadAhead = 8;
  auto placeOf = [&](OpBuilder &ob, int64_t mt, int64_t nt, int64_t i) {
    int64_t dRow = mt * k.instM + 8 * ((i / 2) % 2);
    int64_t dCol = nt * k.instN + 8 * (i / 4);
    Value row = addOffset(ob, loc, rowBase, dRow);
    Value col = addOffset(ob, loc, colBase, dCol);
    return std::make_pair(row, col);
  };
  auto stores = [&](OpBuilder &ob, const EpilogueValues &epilogue,
                    bool guarded) {
    bool readsAhead =
        !guarded && pairs && (epilogue.readsC || epilogue.residual);
    for (auto [position, acc] : llvm::enumerate(accumulators)) {
      int64_t mt = position / k.nTiles, nt = position % k.nTiles;
      SmallVector<StoreInputs, kReadAhead> ahead;
      // The accumulator's pairs raise the amax at once (storeCWithTma).
      AmaxRun amax;
      for (int64_t i = 0; i < k.instN / 2; i += 2) {
        if (readsAhead && (i / 2) % kReadAhead == 0) {
          ahead.clear();
          for (int64_t r = i; r < std::min(i + 2 * kReadAhead, k.instN / 2);
               r += 2) {
            auto [readRow, readCol] = placeOf(ob, mt, nt, r);
            ahead.push_back(
                readStoreInputs(ob, epilogue, readRow, readCol, true));
          }
        }
        Value row, col;
        std::tie(row, col) = placeOf(ob, mt, nt, i);
        Value x = LLVM::ExtractValueOp::create(ob, loc, acc, i);
        Value y = LLVM::ExtractValueOp::create(ob, loc, acc, i + 1);
        Value pair = vector::FromElementsOp::create(ob, loc, f32Pair,
                                                    ValueRange{x, y});
        Value col1 = addOffset(ob, loc, col, 1);
        if (!guarded && pairs) {
          const StoreInputs *read =
              readsAhead ? &ahead[size_t((i / 2) % kReadAhead)] : nullptr;
          Value value = epiloguePair(ob, epilogue, pair, row, col, read);
          addToAmax(ob, amax, value);
          value = epilogue.scaleOutput(ob, loc, value);
          Value narrow = narrowToC(ob, value);
          vector::StoreOp::create(
              ob, loc, narrow, c, ValueRange{row, col}, /*nontemporal=*/false,
              llvm::MaybeAlign(2 * cType.getIntOrFloatBitWidth() / 8));
          continue;
        }
        // Element by element: a column-major C, or past the edges.
        for (int64_t j = 0; j < 2; ++j) {
          Value at = j ? col1 : col;
          Value element = j ? y : x;
          auto storeOne = [&](OpBuilder &eb) {
            Value value = epilogueElement(eb, epilogue, element, row, at);
            if (guarded)
              raiseAmax(eb, value);
            else
              addToAmax(ob, amax, value);
            value = epilogue.scaleOutput(eb, loc, value);
            value = narrowToC(eb, value);
            memref::StoreOp::create(eb, loc, value, c, ValueRange{row, at});
          };
          if (!guarded) {
            storeOne(ob);
            continue;
          }
          Value inRows = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult,
                                               row, m);
          Value inCols = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult,
                                               at, n);
          Value inside = arith::AndIOp::create(ob, loc, inRows, inCols);
          auto ifInside = scf::IfOp::create(ob, loc, inside, false);
          OpBuilder tb = OpBuilder::atBlockBegin(&ifInside.getThenRegion().front());
          tb.setInsertionPoint(ifInside.getThenRegion().front().getTerminator());
          storeOne(tb);
        }
      }
      raiseAmax(ob, amax);
    }
  };

  // The epilogue reads the kernel's attributes from an op inside it.
  Operation *at = b.getInsertionBlock()->getParentOp();
  return buildEpilogue(
      b, loc, at, c,
      [&](OpBuilder &ob, const EpilogueValues &epilogue) {
        if (!tails) {
          stores(ob, epilogue, /*guarded=*/false);
          return;
        }
        Value inside = consumerTileInside(ob, row0, col0);
        if (pairs && !ldc) {
          auto metadata = memref::ExtractStridedMetadataOp::create(ob, loc, c);
          Value odd = metadata.getStrides()[0];
          if (batchCount)
            odd = arith::OrIOp::create(ob, loc, odd, metadata.getOffset());
          Value parity =
              arith::RemUIOp::create(ob, loc, odd, indexConstant(ob, loc, 2));
          Value even = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::eq,
                                             parity, indexConstant(ob, loc, 0));
          inside = arith::AndIOp::create(ob, loc, inside, even);
        }
        storeOnEachSide(ob, loc, inside, [&](OpBuilder &sb, bool inner) {
          stores(sb, epilogue, /*guarded=*/!inner);
        });
      },
      group, k.clampsBiasReads());
}
