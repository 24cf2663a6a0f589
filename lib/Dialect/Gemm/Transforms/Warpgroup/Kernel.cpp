//===- Kernel.cpp - the wgmma kernel's frame -----------------------------===//
//
// The kernel's frame: the barriers' setup, the tile walk, and the
// producer and consumer warpgroups placed in it (KernelBuilder.h).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

/// tf32x3's split of an f32 element held as an i32 word: its tf32 part and
/// the remainder, as i32 words.
std::pair<Value, Value> mlir::gemm::warpgroup::splitWord(OpBuilder &b,
                                                         Location loc,
                                                         Value word) {
  Value x = arith::BitcastOp::create(b, loc, b.getF32Type(), word);
  auto [big, small] = splitTf32(b, loc, x);
  Value bigWord = arith::BitcastOp::create(b, loc, b.getI32Type(), big);
  Value smallWord = arith::BitcastOp::create(b, loc, b.getI32Type(), small);
  return {bigWord, smallWord};
}

KernelBuilder::TilePosition KernelBuilder::tileCoordinates(Value tile) {
  // Without a cluster, each cluster tile is one tile.
  Value rows = s.cluster ? clusterTilesM : tilesM;
  Value cols = s.cluster ? clusterTilesN : tilesN;
  TilePosition at;
  // A grouped GEMM's groups one after the other, each in its own order.
  if (offsets) {
    locateGroup(at, tile);
    return at;
  }
  if (table) {
    locateTableGroup(at, tile);
    return at;
  }
  // A batch's matrices one after the other: tile t of the grid's walk is
  // tile t % T of matrix t / T, T tiles a matrix.
  if (batchCount) {
    Value perMatrix = arith::MulIOp::create(b, loc, rows, cols);
    at.batch = arith::DivUIOp::create(b, loc, tile, perMatrix);
    tile = arith::RemUIOp::create(b, loc, tile, perMatrix);
  }
  if (s.raster) {
    std::tie(at.row, at.col) = rasterize(b, loc, tile, rows, cols, *s.raster);
  } else {
    at.row = arith::DivUIOp::create(b, loc, tile, cols);
    at.col = arith::RemUIOp::create(b, loc, tile, cols);
  }
  if (!s.cluster)
    return at;
  Value rowStart = arith::MulIOp::create(b, loc, at.row, index(k.clusterM));
  Value colStart = arith::MulIOp::create(b, loc, at.col, index(k.clusterN));
  at.row = arith::AddIOp::create(b, loc, rowStart, rankM);
  at.col = arith::AddIOp::create(b, loc, colStart, rankN);
  return at;
}

void KernelBuilder::viewBatch(Value batch) {
  a = createBatchMatrixView(b, loc, batchA, batch);
  bMatrix = createBatchMatrixView(b, loc, batchB, batch);
  c = createBatchMatrixView(b, loc, batchC, batch);
  tmaBatch = toI32(batch);
}

Value KernelBuilder::tileFirstRow(const TilePosition &at) {
  if (at.firstRow)
    return at.firstRow;
  return arith::MulIOp::create(b, loc, at.row, index(s.bm()));
}

KernelBuilder::TileScope::TileScope(KernelBuilder &kb, const TilePosition &at)
    : kb(kb), saved{kb.a, kb.bMatrix, kb.c,       kb.tmaBatch, kb.m,
                    kb.group, kb.n, kb.kExtent, kb.kTiles} {
  if (!at.batch)
    return;
  // The general form's group: its own matrices and sizes.
  if (kb.table) {
    kb.viewTableGroup(at.batch);
    return;
  }
  if (kb.batchCount) {
    kb.viewBatch(at.batch);
    return;
  }
  // A group: its B, and its rows' end.
  kb.bMatrix = createBatchMatrixView(kb.b, kb.loc, kb.batchB, at.batch);
  kb.tmaBatch = kb.toI32(at.batch);
  kb.m = at.rowEnd;
  kb.group = at.batch;
}

KernelBuilder::TileScope::~TileScope() {
  kb.a = saved[0];
  kb.bMatrix = saved[1];
  kb.c = saved[2];
  kb.tmaBatch = saved[3];
  kb.m = saved[4];
  kb.group = saved[5];
  kb.n = saved[6];
  kb.kExtent = saved[7];
  kb.kTiles = saved[8];
}

std::pair<Value, Value> KernelBuilder::stageAndPhase(Value it) {
  Value stage = arith::RemUIOp::create(b, loc, it, index(k.stages));
  Value round = arith::DivUIOp::create(b, loc, it, index(k.stages));
  Value parity = arith::RemUIOp::create(b, loc, round, index(2));
  return {stage, toI32(parity)};
}

SmallVector<Value> KernelBuilder::stepInits(Value it0) {
  if (!k.carriesStageAndPhase)
    return {it0};
  auto [stage, parity] = stageAndPhase(it0);
  return {it0, toI32(stage), parity};
}

KernelBuilder::PipelineStep KernelBuilder::pipelineStep(scf::ForOp steps) {
  PipelineStep step;
  step.it = steps.getRegionIterArg(0);
  if (!k.carriesStageAndPhase) {
    std::tie(step.stage, step.parity) = stageAndPhase(step.it);
    return step;
  }
  step.carried = steps.getRegionIterArg(1);
  step.parity = steps.getRegionIterArg(2);
  step.stage =
      arith::IndexCastUIOp::create(b, loc, b.getIndexType(), step.carried);
  return step;
}

SmallVector<Value> KernelBuilder::nextStep(const PipelineStep &step) {
  Value next = arith::AddIOp::create(b, loc, step.it, index(1));
  if (!k.carriesStageAndPhase)
    return {next};
  Value after = arith::AddIOp::create(b, loc, step.carried, i32(1));
  Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, after,
                                      i32(k.stages));
  Value stage = arith::SelectOp::create(b, loc, wraps, i32(0), after);
  Value flip = arith::ExtUIOp::create(b, loc, b.getI32Type(), wraps);
  Value parity = arith::XOrIOp::create(b, loc, step.parity, flip);
  return {next, stage, parity};
}

void KernelBuilder::releaseStepBefore(const PipelineStep &step, Value when) {
  if (!k.carriesStageAndPhase) {
    releaseStageBefore(step.it, when);
    return;
  }
  releaseStageIf(when, [&]() -> Value {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        step.carried, i32(0));
    Value previous = arith::SubIOp::create(b, loc, step.carried, i32(1));
    Value before =
        arith::SelectOp::create(b, loc, first, i32(k.stages - 1), previous);
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), before);
  });
}

void KernelBuilder::buildStreamKShare(Value blockIndex, Value gridBlocks) {
  // Stream-K of the last round: the tiles of the grid's full rounds are
  // computed whole, each by one block, as the persistent kernel walks
  // them; the R tiles left (fewer than the blocks) are cut along K into
  // pieces of equal K tiles, S a tile, and block j computes piece j % S of
  // tile j / S. S is as many as the blocks allow (blocks / R) and at most
  // the largest s <= 8 with 2 s^2 <= the K tiles: a piece's time falls as
  // 1 / S, while the tile's last block sums all S partial tiles (the
  // contract library's cost model, Cost.cpp, shares the rule). Every
  // tile's pieces begin at the same K tiles, so that the blocks running
  // together read the same slabs of A and B (from L2). Whole rounds, or
  // S = 1, leave the persistent kernel. In i32 (a problem's tiles and K
  // tiles are below 2^31): the producer walks the units too, in few
  // registers.
  wholeStart = blockIndex;
  wholeStep = gridBlocks;
  block = toI32(blockIndex);
  Value blocks = toI32(gridBlocks);
  Value tiles = toI32(numTiles);
  Value steps = toI32(kTiles);
  Value one = i32(1);
  Value rounds = arith::DivUIOp::create(b, loc, tiles, blocks);
  Value rest = arith::RemUIOp::create(b, loc, tiles, blocks);
  dpTiles = arith::MulIOp::create(b, loc, rounds, blocks);
  Value restOrOne = arith::MaxUIOp::create(b, loc, rest, one);
  Value byBlocks = arith::DivUIOp::create(b, loc, blocks, restOrOne);
  Value bySteps = one;
  for (int64_t s = 2; s <= kStreamKMaxPieces; ++s) {
    Value enough = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                         steps, i32(2 * s * s));
    Value more = arith::ExtUIOp::create(b, loc, b.getI32Type(), enough);
    bySteps = arith::AddIOp::create(b, loc, bySteps, more);
  }
  Value ways = arith::MinUIOp::create(b, loc, byBlocks, bySteps);
  // Pieces of ceil(steps / S) K tiles, the last fewer; as many as that
  // takes (so none is empty), and one for a problem without K.
  Value perPiece = arith::CeilDivUIOp::create(b, loc, steps, ways);
  Value piece = arith::MaxUIOp::create(b, loc, perPiece, one);
  Value pieces = arith::CeilDivUIOp::create(b, loc, steps, piece);
  piecesPerTile = arith::MaxUIOp::create(b, loc, pieces, one);
  Value sharing = arith::MulIOp::create(b, loc, rest, piecesPerTile);
  Value shares = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       block, sharing);
  Value ownPiece = arith::RemUIOp::create(b, loc, block, piecesPerTile);
  Value ownTile = arith::DivUIOp::create(b, loc, block, piecesPerTile);
  Value begin = arith::MulIOp::create(b, loc, ownPiece, piece);
  Value first = arith::MinUIOp::create(b, loc, begin, steps);
  Value end = arith::AddIOp::create(b, loc, first, piece);
  Value last = arith::MinUIOp::create(b, loc, end, steps);
  sharedTile = arith::AddIOp::create(b, loc, dpTiles, ownTile);
  sharedKBegin = first;
  sharedKEnd = last;
  Value sharedUnits = arith::ExtUIOp::create(b, loc, b.getI32Type(), shares);
  wholeUnitCount = toIndex(rounds);
  sharedUnitCount = toIndex(sharedUnits);
}

Value KernelBuilder::wholeTileAt(Value u) {
  Value stride = arith::MulIOp::create(b, loc, u, wholeStep);
  return arith::AddIOp::create(b, loc, wholeStart, stride);
}

KernelBuilder::WorkUnit KernelBuilder::sharedUnit() {
  WorkUnit unit;
  unit.tile = toIndex(sharedTile);
  unit.kBegin = toIndex(sharedKBegin);
  unit.kEnd = toIndex(sharedKEnd);
  return unit;
}

KernelBuilder::TileSharing KernelBuilder::sharingOf(const WorkUnit &unit) {
  // The tile's pieces are blocks (tile - dpTiles) x S onwards.
  Value tile = toI32(unit.tile);
  Value sharedIndex = arith::SubIOp::create(b, loc, tile, dpTiles);
  Value first = arith::MulIOp::create(b, loc, sharedIndex, piecesPerTile);
  TileSharing sharing;
  sharing.pieces = toIndex(piecesPerTile);
  sharing.firstBlock = toIndex(first);
  return sharing;
}

PartialSlots KernelBuilder::streamKSlots(const TileSharing &sharing) {
  int64_t floats = s.bm() * s.bn();
  // Block j's partial tile at slot j, of `floats` each.
  auto slotBase = [floats](OpBuilder &ob, Location l, Value of) {
    Value size = indexConstant(ob, l, floats);
    return arith::MulIOp::create(ob, l, of, size).getResult();
  };
  PartialSlots slots;
  slots.count = sharing.pieces;
  Value own = toIndex(block);
  slots.mine = slotBase(b, loc, own);
  Value first = sharing.firstBlock;
  slots.baseOf = [=](OpBuilder &ob, Location l, Value piece) {
    Value of = arith::AddIOp::create(ob, l, first, piece);
    return slotBase(ob, l, of);
  };
  return slots;
}

void KernelBuilder::buildPrologue() {
  Value zero = index(0);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      threadId, zero);
  auto init = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&init.getThenRegion().front());
    for (int64_t stage = 0; stage < k.stages; ++stage) {
      Value full = sharedPointer(i32(k.fullBarrierOffset + 8 * stage));
      NVVM::MBarrierInitOp::create(b, loc, full, i32(k.fullArrivals),
                                   Value());
      Value empty = sharedPointer(i32(k.emptyBarrierOffset + 8 * stage));
      NVVM::MBarrierInitOp::create(b, loc, empty, i32(k.emptyArrivals),
                                   Value());
      if (!k.stagesByTma())
        continue;
      Value landed = sharedPointer(i32(k.landedBarrierOffset + 8 * stage));
      NVVM::MBarrierInitOp::create(b, loc, landed, i32(1), Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
    // The tensor maps (grid-constant parameters, GridConstant.cpp) into
    // the SM's cache before the first copy or store that reads them, as
    // CUTLASS's kernels do, rather than at it.
    // (The general form's maps of A and B are templates: the producer
    // makes its groups' own.)
    UnitAttr set = b.getUnitAttr();
    bool ownMaps = !mapsGroups();
    for (auto [byTma, map] : {std::pair(ownMaps && k.a.byTma, mapA),
                              std::pair(ownMaps && k.b.byTma, mapB),
                              std::pair(k.c.has_value(), mapC)})
      if (byTma)
        NVVM::PrefetchOp::create(b, loc, /*cacheLevel=*/nullptr,
                                 /*evictPriority=*/nullptr, map,
                                 /*predicate=*/Value(), /*tensormap=*/set,
                                 /*uniform=*/nullptr, /*in_param_space=*/set);
  }
  gpu::BarrierOp::create(b, loc);
  // The peers' copies and arrivals find the barriers initialised.
  if (s.cluster)
    clusterBarrier();
}

void KernelBuilder::clusterBarrier() {
  UnitAttr aligned = b.getUnitAttr();
  NVVM::ClusterArriveOp::create(b, loc, aligned);
  NVVM::ClusterWaitOp::create(b, loc, aligned);
}


LogicalResult KernelBuilder::build(MatmulOp matmul) {
  a = getKernelArgument(func, KernelArg::A);
  bMatrix = getKernelArgument(func, KernelArg::B);
  c = getKernelArgument(func, KernelArg::C);
  mapA = getKernelArgument(func, KernelArg::TensorMapA);
  mapB = getKernelArgument(func, KernelArg::TensorMapB);
  mapC = getKernelArgument(func, KernelArg::TensorMapC);
  if (!a || !bMatrix || !c || (k.a.byTma && !mapA) || (k.b.byTma && !mapB) ||
      (k.c && !mapC))
    return func.emitOpError("lacks the matrices or tensor maps of the "
                            "kernel ABI");
  // A batch's GEMM multiplies views of the arguments' matrices (those of
  // blockIdx.z: convert-gemm-to-gpu), which the tiles take in turn here.
  auto multiplies = [](Value operand, Value argument) {
    if (operand == argument)
      return true;
    auto view = operand.getDefiningOp<memref::SubViewOp>();
    return view && view.getSource() == argument &&
           view.getSourceType().getRank() == 3;
  };
  if (!multiplies(matmul.getA(), a) || !multiplies(matmul.getB(), bMatrix) ||
      !multiplies(matmul.getC(), c))
    return matmul.emitOpError("of a wgmma kernel must multiply the kernel's "
                              "own matrices");

  // The dynamic shared memory, 1024-byte aligned for the swizzled tiles.
  auto gpuModule = func->getParentOfType<gpu::GPUModuleOp>();
  auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
  if (!gpuModule.lookupSymbol(kSharedMemorySymbol)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(gpuModule.getBody());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/false,
                           LLVM::Linkage::External, kSharedMemorySymbol,
                           /*value=*/Attribute(), /*alignment=*/1024,
                           /*addrSpace=*/3);
  }

  Block &body = func.getBody().front();
  b.setInsertionPointToStart(&body);
  auto sharedType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  sharedBase =
      LLVM::AddressOfOp::create(b, loc, sharedType, kSharedMemorySymbol);
  sharedAddress = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), sharedBase);
  threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  createAmaxSlot();
  warpgroup =
      arith::DivUIOp::create(b, loc, threadId, index(gemmc::kWarpgroupSize));
  auto extent = [&](Value matrix, unsigned dim) {
    return getValueOrCreateConstantIndexOp(b, loc,
                                           extentOf(b, loc, matrix, dim));
  };
  if (cast<MemRefType>(c.getType()).getRank() == 3) {
    batchA = a;
    batchB = bMatrix;
    batchC = c;
    batchCount = extent(c, 0);
    // Outside a tile's scope, the first matrix (its extents are all's).
    viewBatch(index(0));
  }
  if (p.groupTable) {
    // The general form: a row of the table a group.
    table = getKernelArgument(func, KernelArg::GroupTable);
    if (!table)
      return func.emitOpError("of a grouped GEMM's general form lacks its "
                              "group table");
    // The producer's issuer alone writes the groups' maps, and waits for
    // the copies that read them, which no producer thread's copies may
    // hold back (Rules::checkGroupTable).
    if (k.usesTma() && k.threadsCopy())
      return func.emitOpError("of a grouped GEMM's general form copies "
                              "operands by both TMA and threads");
    Value entries = extent(table, 0);
    groupCount = arith::DivUIOp::create(b, loc, entries,
                                        index(gemmc::kGroupTableColumns));
  } else if (p.grouped) {
    offsets = getKernelArgument(func, KernelArg::Offsets);
    if (!offsets || cast<MemRefType>(bMatrix.getType()).getRank() != 3)
      return func.emitOpError("of a grouped GEMM lacks its offsets or its "
                              "groups' B");
    batchB = bMatrix;
    groupCount = extent(offsets, 0);
    bMatrix = createBatchMatrixView(b, loc, batchB, index(0));
  }
  m = extent(c, 0);
  rowsOfA = m;
  n = extent(c, 1);
  kExtent = extent(a, 1);
  auto ceilDiv = [&](Value x, int64_t y) -> Value {
    return arith::CeilDivUIOp::create(b, loc, x, index(y));
  };
  // A grouped GEMM's walk counts a bound on its groups' tile rows.
  tilesM = offsets ? groupSlotRows() : ceilDiv(m, s.bm());
  tilesN = ceilDiv(n, s.bn());
  numTiles = arith::MulIOp::create(b, loc, tilesM, tilesN);
  if (batchCount)
    numTiles = arith::MulIOp::create(b, loc, numTiles, batchCount);
  // The general form's walk: every group's tiles, counted on the device.
  if (table)
    numTiles = tableTileCount();
  kTiles = ceilDiv(kExtent, s.bk());
  // A ping-pong consumer that passes the turn in its tile's last K step
  // (freesLastStageInLoop) needs one: with K = 0 the tile takes one K
  // tile, all zeros (read past K).
  if (s.pingPong && k.freesLastStageInLoop)
    kTiles = arith::MaxUIOp::create(b, loc, kTiles, index(1));
  kBegin = index(0);
  kEnd = kTiles;
  if (s.splitsK()) {
    // ceil(kTiles / S) K tiles per split, the last fewer; a split past K
    // has none (and adds zeros). S is the grid's z where the launch
    // chooses it.
    split = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    splitCount = getSplitCount(b, loc, s);
    Value count = getValueOrCreateConstantIndexOp(b, loc, splitCount);
    Value perSplit = arith::CeilDivUIOp::create(b, loc, kTiles, count);
    Value start = arith::MulIOp::create(b, loc, split, perSplit);
    kBegin = arith::MinUIOp::create(b, loc, start, kTiles);
    Value stop = arith::AddIOp::create(b, loc, kBegin, perSplit);
    kEnd = arith::MinUIOp::create(b, loc, stop, kTiles);
  }
  // A persistent grid walks the tiles from its block by the grid's size;
  // otherwise each block computes the tile of its linear index. A cluster
  // walks the cluster tiles from its index by the clusters of the grid.
  Value tileStart, tileStep;
  if (s.cluster) {
    auto i32Type = b.getI32Type();
    Value rank32 = NVVM::ClusterId::create(b, loc, i32Type);
    rank = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), rank32);
    rankM = arith::RemUIOp::create(b, loc, rank, index(k.clusterM));
    rankN = arith::DivUIOp::create(b, loc, rank, index(k.clusterM));
    clusterTilesM = ceilDiv(tilesM, k.clusterM);
    clusterTilesN = ceilDiv(tilesN, k.clusterN);
    numTiles = arith::MulIOp::create(b, loc, clusterTilesM, clusterTilesN);
    if (batchCount)
      numTiles = arith::MulIOp::create(b, loc, numTiles, batchCount);
    Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value blocks = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    int64_t size = s.clusterSize();
    tileStart = arith::DivUIOp::create(b, loc, block, index(size));
    tileStep = arith::DivUIOp::create(b, loc, blocks, index(size));
  } else if (s.persistent) {
    tileStart = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    tileStep = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    if (s.streamK)
      buildStreamKShare(tileStart, tileStep);
  } else {
    // The grid's z is the batch's matrix (one matrix's tiles after
    // another's, as tileCoordinates counts them).
    Value x = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value y = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    Value row = y;
    if (batchCount) {
      Value z = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
      Value rowsBefore = arith::MulIOp::create(b, loc, z, tilesM);
      row = arith::AddIOp::create(b, loc, rowsBefore, y);
    }
    Value rowStart = arith::MulIOp::create(b, loc, row, tilesN);
    tileStart = arith::AddIOp::create(b, loc, rowStart, x);
    tileStep = numTiles;
  }

  walkStart = tileStart;
  walkStep = tileStep;
  buildPrologue();
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           warpgroup, index(0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  b.setInsertionPointToStart(&roles.getThenRegion().front());
  buildProducer(tileStart, tileStep);
  b.setInsertionPointToStart(&roles.getElseRegion().front());
  if (failed(buildConsumer(tileStart, tileStep)))
    return failure();
  matmul.erase();
  return success();
}
