//===- Producer.cpp - the producer's copies ------------------------------===//
//
// The producer warpgroup: TMA copies of A and B, and the dispatch of the
// operands TMA does not copy (and of the block scales) to the threads'
// copies.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

void KernelBuilder::copyOperand(const TmaOperand &t, Value map,
                                int64_t offset, int64_t stride, Value stage,
                                Value mn0, Value k0, Value full) {
  Value stage32 = toI32(stage);
  Value stageOffset = arith::MulIOp::create(b, loc, stage32, i32(stride));
  // Shared by a cluster row (A) or column (B): this block copies slice
  // `slice` of each box's rows and multicasts it to the blocks of `mask`.
  Value slice, mask, sliceOffset;
  if (t.multicast > 1) {
    bool isA = t.operand == gemmc::Operand::A;
    slice = toI32(isA ? rankN : rankM);
    Value rm = toI32(rankM), rn = toI32(rankN);
    // Ranks are rm + CM * rn: A goes to rm + CM * j, B to i + CM * rn.
    int64_t pattern = 0;
    for (int64_t j = 0; j < t.multicast; ++j)
      pattern |= int64_t(1) << (isA ? k.clusterM * j : j);
    Value first = isA ? rm : arith::MulIOp::create(b, loc, rn, i32(k.clusterM));
    Value bits = arith::ShLIOp::create(b, loc, i32(pattern), first);
    mask = arith::TruncIOp::create(b, loc, b.getI16Type(), bits);
    sliceOffset = arith::MulIOp::create(
        b, loc, slice, i32(t.sliceRows() * gemmc::kSwizzleBytes));
    stageOffset = arith::AddIOp::create(b, loc, stageOffset, sliceOffset);
  }
  // A staged operand's boxes are its chunks of 128 bytes along M or N,
  // into the staging tile.
  int64_t e = k.elementBytes;
  int64_t chunks = t.staged() ? t.boxOuter * e / gemmc::kSwizzleBytes
                              : t.chunks;
  int64_t chunkBytes = t.staged()
                           ? t.stagingRows(e) * gemmc::kSwizzleBytes
                           : t.chunkBytes;
  int64_t first = offset + (t.staged() ? t.stagingOffset() : 0);
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    Value at = arith::AddIOp::create(b, loc, stageOffset,
                                     i32(first + chunk * chunkBytes));
    // The block's own shared memory, as the cluster's address space names
    // it (the form every PTX version since 8.0 takes).
    Value local = sharedPointer(at);
    auto clusterType = LLVM::LLVMPointerType::get(b.getContext(), 7);
    Value dst = LLVM::AddrSpaceCastOp::create(b, loc, clusterType, local);
    // Coordinates innermost first: the contiguous dimension, cut into
    // 128-byte boxes, then the other, then a batch's matrix.
    bool contiguousK = t.kMajor && !t.staged();
    Value inner = contiguousK ? k0 : mn0;
    Value outer = contiguousK ? mn0 : k0;
    Value innerAt = arith::AddIOp::create(b, loc, inner, i32(chunk * t.boxInner));
    if (slice) {
      Value sliceRow = arith::MulIOp::create(b, loc, slice, i32(t.sliceRows()));
      outer = arith::AddIOp::create(b, loc, outer, sliceRow);
    }
    SmallVector<Value, 3> coordinates = {innerAt, outer};
    // A batch's maps are 3-D; of a grouped GEMM's, B's alone.
    bool hasMatrices = batchCount || t.operand == gemmc::Operand::B;
    if (tmaBatch && hasMatrices)
      coordinates.push_back(tmaBatch);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, dst, map, coordinates, full,
        /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/mask,
        /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false, /*group=*/nullptr, /*predicate=*/Value());
  }
}

void KernelBuilder::buildProducer(Value tileStart, Value tileStep) {
  NVVM::SetMaxRegisterOp::create(b, loc, k.producerRegisters,
                                 NVVM::SetMaxRegisterAction::decrease);
  Value issuer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       threadId, index(0));
  // With TMA alone the first thread issues every copy; where the threads
  // copy an operand or the block scales, all of them walk the pipeline.
  bool allThreads = k.threadsCopy();
  OpBuilder::InsertionGuard guard(b);
  if (s.streamK) {
    buildStreamKProducer(issuer, allThreads);
    return;
  }
  scf::IfOp ifIssuer;
  if (!allThreads) {
    ifIssuer = scf::IfOp::create(b, loc, issuer, false);
    b.setInsertionPointToStart(&ifIssuer.getThenRegion().front());
  }
  if (mapsGroups())
    claimMapSlot();
  SmallVector<Value> inits = walkInits(index(0));
  auto tiles =
      scf::ForOp::create(b, loc, tileStart, numTiles, tileStep, inits);
  b.setInsertionPointToStart(tiles.getBody());
  enterWalk(tiles);
  Value end = produceTile(tiles.getInductionVar(), kBegin, kEnd,
                          tiles.getRegionIterArg(0), issuer, allThreads);
  scf::YieldOp::create(b, loc, walkYields(end));
  b.setInsertionPointAfter(tiles);
  if (mapsGroups())
    releaseMapSlot(tiles.getResult(0));
  // (Unless each tile's were finished.)
  if (allThreads && !k.finishesCopiesEachTile)
    signalCopies(tiles.getResult(0), /*drain=*/true);
  if (s.cluster)
    waitForLastReleases(tiles.getResult(0));
  // With split-K the whole warpgroup joins the consumers' count of the
  // block's one tile (the grid is not persistent).
  if (s.splitsK()) {
    if (ifIssuer)
      b.setInsertionPointAfter(ifIssuer);
    joinSplitCount(b, loc, splitCount);
  }
}

void KernelBuilder::buildStreamKProducer(Value issuer, bool allThreads) {
  // As the persistent kernel copies its tiles (the issuer alone, unless
  // the threads copy an operand): the whole tiles, then the shared units.
  // The consumers count a shared tile in among themselves: the producer
  // only copies.
  scf::IfOp ifIssuer;
  if (!allThreads) {
    ifIssuer = scf::IfOp::create(b, loc, issuer, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifIssuer.getThenRegion().front());
  }
  // One op a statement: C++ leaves the order of a call's arguments open.
  Value zero = index(0);
  Value one = index(1);
  auto whole = scf::ForOp::create(b, loc, zero, wholeUnitCount, one,
                                  ValueRange{zero});
  {
    OpBuilder::InsertionGuard inWhole(b);
    b.setInsertionPointToStart(whole.getBody());
    Value tile = wholeTileAt(whole.getInductionVar());
    Value end = produceTile(tile, zero, kTiles, whole.getRegionIterArg(0),
                            issuer, allThreads);
    scf::YieldOp::create(b, loc, end);
  }
  auto units = scf::ForOp::create(b, loc, zero, sharedUnitCount, one,
                                  ValueRange{whole.getResult(0)});
  {
    OpBuilder::InsertionGuard inUnits(b);
    b.setInsertionPointToStart(units.getBody());
    WorkUnit unit = sharedUnit();
    Value end = produceTile(unit.tile, unit.kBegin, unit.kEnd,
                            units.getRegionIterArg(0), issuer, allThreads);
    scf::YieldOp::create(b, loc, end);
  }
  if (allThreads && !k.finishesCopiesEachTile)
    signalCopies(units.getResult(0), /*drain=*/true);
}

void KernelBuilder::waitForLastReleases(Value end) {
  // The waits of the stages' next uses, as the walk would make them: each
  // passes once the consumers of the blocks that share the stage (this
  // one's among them) released its last use. Their copies into this
  // block's stages landed before they did, and no arrival of theirs is
  // left to come. (A cluster barrier closing the kernel instead, where
  // the producer's idle warps wait from its start, ran 128x128 tiles in
  // clusters of 2 at 0.81-0.90x the speed of the same tiles without a
  // cluster on an H200, with or without the multicast; these waits, at
  // 0.97-1.02x.)
  for (int64_t next = 0; next < k.stages; ++next)
    waitUntilStageFree(arith::AddIOp::create(b, loc, end, index(next)));
}

Value KernelBuilder::waitUntilStageFree(Value it) {
  auto [stage, parity] = stageAndPhase(it);
  waitUntilFree(stage, parity);
  return stage;
}

void KernelBuilder::waitUntilFree(Value stage, Value parity) {
  // A fresh barrier completes the phase before its first: the first
  // round of waits on "empty" passes at once.
  Value previous = arith::XOrIOp::create(b, loc, parity, i32(1));
  Value empty = barrier(k.emptyBarrierOffset, stage);
  NVVM::MBarrierTryWaitParityOp::create(b, loc, empty, previous,
                                        i32(kWaitHintNs));
}

Value KernelBuilder::produceTile(Value tile, Value tileKBegin, Value tileKEnd,
                                 Value it0, Value issuer, bool allThreads) {
  TilePosition at = tileCoordinates(tile);
  FailureOr<Value> end = whereTileExists(at, it0, [&]() -> FailureOr<Value> {
    if (mapsGroups())
      mapTileGroup(tile, it0);
    return produceTileAt(at, tileKBegin, tileKEnd, it0, issuer, allThreads);
  });
  return *end;
}

Value KernelBuilder::produceTileAt(const TilePosition &at, Value tileKBegin,
                                   Value tileKEnd, Value it0, Value issuer,
                                   bool allThreads) {
  TileScope inTile(*this, at);
  // The general form's group: its own K.
  if (table) {
    tileKBegin = index(0);
    tileKEnd = kTiles;
  }
  Value rowIndex = tileFirstRow(at);
  Value colIndex = arith::MulIOp::create(b, loc, at.col, index(s.bn()));
  Value row0 = toI32(rowIndex);
  Value col0 = toI32(colIndex);
  Value one = index(1);
  CopiedTile copied{it0, rowIndex, colIndex};
  const CopiedTile *tile = k.finishesCopiesEachTile ? &copied : nullptr;
  SmallVector<Value> inits = stepInits(it0);
  auto steps = scf::ForOp::create(b, loc, tileKBegin, tileKEnd, one, inits);
  keepStepsRolled(steps);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(steps.getBody());
    PipelineStep step = pipelineStep(steps);
    Value it = step.it, stage = step.stage;
    waitUntilFree(stage, step.parity);
    Value full = barrier(k.fullBarrierOffset, stage);
    Value kIndex =
        arith::MulIOp::create(b, loc, steps.getInductionVar(), index(s.bk()));
    if (k.usesTma()) {
      OpBuilder::InsertionGuard tma(b);
      if (allThreads) {
        auto ifFirst = scf::IfOp::create(b, loc, issuer, false);
        b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      }
      // Staged operands land on "landed", the rest on "full".
      Value landed;
      if (k.fullByTma())
        NVVM::MBarrierArriveExpectTxOp::create(
            b, loc, Type(), full, i32(k.stageTransactionBytes),
            NVVM::MemScopeKind::CTA, /*relaxed=*/false, /*predicate=*/Value());
      if (k.stagesByTma()) {
        landed = barrier(k.landedBarrierOffset, stage);
        NVVM::MBarrierArriveExpectTxOp::create(
            b, loc, Type(), landed, i32(k.landedTransactionBytes),
            NVVM::MemScopeKind::CTA, /*relaxed=*/false, /*predicate=*/Value());
      }
      Value k0 = toI32(kIndex);
      if (k.a.byTma)
        copyOperand(k.a, mapA, k.aOffset, k.aStageStride, stage, row0, k0,
                    k.a.staged() ? landed : full);
      if (k.b.byTma)
        copyOperand(k.b, mapB, k.bOffset, k.bStageStride, stage, col0, k0,
                    k.b.staged() ? landed : full);
    }
    if (allThreads) {
      if (!k.a.byTma)
        copyByThreads(k.a, a, k.aOffset, k.aStageStride, stage, rowIndex,
                      kIndex);
      if (!k.b.byTma)
        copyByThreads(k.b, bMatrix, k.bOffset, k.bStageStride, stage,
                      colIndex, kIndex);
      if (k.blockScales)
        copyScales(stage, rowIndex, colIndex, steps.getInductionVar());
      signalCopies(it, /*drain=*/false, tile);
    }
    scf::YieldOp::create(b, loc, nextStep(step));
  }
  b.setInsertionPointAfter(steps);
  if (allThreads && tile)
    signalCopies(steps.getResult(0), /*drain=*/true, tile);
  return steps.getResult(0);
}

Value KernelBuilder::stageBaseOf(int64_t offset, int64_t stride, Value stage) {
  // One op a statement: C++ leaves the order of a call's arguments open.
  Value stage32 = toI32(stage);
  Value stageOffset = arith::MulIOp::create(b, loc, stage32, i32(stride));
  return arith::AddIOp::create(b, loc, stageOffset, i32(offset));
}

void KernelBuilder::forEachCopy(const TmaOperand &t,
                                function_ref<void(Value, Value)> copy,
                                function_ref<void()> endRound) {
  int64_t linePieces = t.lineBytes() / t.copyBytes();
  int64_t threads = gemmc::kWarpgroupSize;
  Value lane = threadId;
  // The thread's copies, in rounds of `unroll` (a loop: unrolled whole, the
  // copies' addresses were all hoisted out of the pipeline's loop and held
  // across it; LLVM still unrolls a loop of few rounds).
  // Copy lane + 128 j: consecutive threads take consecutive pieces of a
  // line (coalesced reads).
  int64_t perThread = t.piecesPerThread();
  bool ragged = perThread * threads != t.pieces();
  int64_t unroll = std::gcd(perThread, t.piecesPerRound());
  // One op a statement: C++ leaves the order of a call's arguments open.
  Value zero = index(0);
  Value roundCount = index(perThread / unroll);
  Value one = index(1);
  auto rounds = scf::ForOp::create(b, loc, zero, roundCount, one);
  OpBuilder::InsertionGuard inRounds(b);
  b.setInsertionPoint(rounds.getBody()->getTerminator());
  Value round =
      arith::MulIOp::create(b, loc, rounds.getInductionVar(), index(unroll));
  for (int64_t u = 0; u < unroll; ++u) {
    Value j = addOffset(b, loc, round, u);
    Value line, piece;
    if (threads % linePieces == 0) {
      line = arith::DivUIOp::create(b, loc, lane, index(linePieces));
      Value lines =
          arith::MulIOp::create(b, loc, j, index(threads / linePieces));
      line = arith::AddIOp::create(b, loc, line, lines);
      piece = arith::RemUIOp::create(b, loc, lane, index(linePieces));
    } else if (linePieces % threads == 0) {
      int64_t perLine = linePieces / threads;
      line = arith::DivUIOp::create(b, loc, j, index(perLine));
      Value part = arith::RemUIOp::create(b, loc, j, index(perLine));
      Value first = arith::MulIOp::create(b, loc, part, index(threads));
      piece = arith::AddIOp::create(b, loc, lane, first);
    } else {
      Value first = arith::MulIOp::create(b, loc, j, index(threads));
      Value linear = arith::AddIOp::create(b, loc, lane, first);
      line = arith::DivUIOp::create(b, loc, linear, index(linePieces));
      piece = arith::RemUIOp::create(b, loc, linear, index(linePieces));
    }
    if (!ragged) {
      copy(line, piece);
      continue;
    }
    // The last round may leave threads without a copy.
    endRound();
    OpBuilder::InsertionGuard guarded(b);
    Value first = arith::MulIOp::create(b, loc, j, index(threads));
    Value linear = arith::AddIOp::create(b, loc, lane, first);
    Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         linear, index(t.pieces()));
    auto ifExists = scf::IfOp::create(b, loc, exists, false);
    b.setInsertionPointToStart(&ifExists.getThenRegion().front());
    copy(line, piece);
    endRound();
  }
  endRound();
}

Value KernelBuilder::copyDestination(const TmaOperand &t, Value stageBase,
                                     Value line, Value piece) {
  // Byte x of `line` of the tile, swizzled.
  Value piece32 = toI32(piece);
  Value line32 = toI32(line);
  Value x = arith::MulIOp::create(b, loc, piece32, i32(t.copyBytes()));
  Value at = swizzledOffset(t, stageBase, line32, x);
  return sharedPointer(at);
}
