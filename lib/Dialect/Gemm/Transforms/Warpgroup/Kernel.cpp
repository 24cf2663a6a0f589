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

std::pair<Value, Value> KernelBuilder::tileCoordinates(Value tile) {
  // Without a cluster, each cluster tile is one tile.
  Value rows = s.cluster ? clusterTilesM : tilesM;
  Value cols = s.cluster ? clusterTilesN : tilesN;
  Value row, col;
  if (s.raster) {
    std::tie(row, col) = rasterize(b, loc, tile, rows, cols, *s.raster);
  } else {
    row = arith::DivUIOp::create(b, loc, tile, cols);
    col = arith::RemUIOp::create(b, loc, tile, cols);
  }
  if (!s.cluster)
    return {row, col};
  Value rowStart = arith::MulIOp::create(b, loc, row, index(k.clusterM));
  Value colStart = arith::MulIOp::create(b, loc, col, index(k.clusterN));
  Value ownRow = arith::AddIOp::create(b, loc, rowStart, rankM);
  Value ownCol = arith::AddIOp::create(b, loc, colStart, rankN);
  return {ownRow, ownCol};
}

std::pair<Value, Value> KernelBuilder::stageAndPhase(Value it) {
  Value stage = arith::RemUIOp::create(b, loc, it, index(k.stages));
  Value round = arith::DivUIOp::create(b, loc, it, index(k.stages));
  Value parity = arith::RemUIOp::create(b, loc, round, index(2));
  return {stage, toI32(parity)};
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
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
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
  if (matmul.getA() != a || matmul.getB() != bMatrix || matmul.getC() != c)
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
  warpgroup =
      arith::DivUIOp::create(b, loc, threadId, index(gemmc::kWarpgroupSize));
  auto extent = [&](Value matrix, unsigned dim) {
    return getValueOrCreateConstantIndexOp(b, loc,
                                           extentOf(b, loc, matrix, dim));
  };
  m = extent(c, 0);
  n = extent(c, 1);
  kExtent = extent(a, 1);
  auto ceilDiv = [&](Value x, int64_t y) -> Value {
    return arith::CeilDivUIOp::create(b, loc, x, index(y));
  };
  tilesM = ceilDiv(m, s.bm());
  tilesN = ceilDiv(n, s.bn());
  numTiles = arith::MulIOp::create(b, loc, tilesM, tilesN);
  kTiles = ceilDiv(kExtent, s.bk());
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
    Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value blocks = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    int64_t size = s.clusterSize();
    tileStart = arith::DivUIOp::create(b, loc, block, index(size));
    tileStep = arith::DivUIOp::create(b, loc, blocks, index(size));
  } else if (s.persistent) {
    tileStart = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    tileStep = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  } else {
    Value x = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value y = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    Value rowStart = arith::MulIOp::create(b, loc, y, tilesN);
    tileStart = arith::AddIOp::create(b, loc, rowStart, x);
    tileStep = numTiles;
  }

  buildPrologue();
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           warpgroup, index(0));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  b.setInsertionPointToStart(&roles.getThenRegion().front());
  buildProducer(tileStart, tileStep);
  b.setInsertionPointToStart(&roles.getElseRegion().front());
  if (failed(buildConsumer(tileStart, tileStep)))
    return failure();
  // No block leaves while its peers may still copy into it or arrive on
  // its barriers.
  if (s.cluster) {
    b.setInsertionPointAfter(roles);
    clusterBarrier();
  }
  matmul.erase();
  return success();
}
