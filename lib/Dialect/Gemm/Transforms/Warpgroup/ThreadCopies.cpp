//===- ThreadCopies.cpp - the producer threads' copies -------------------===//
//
// The producer threads' copies of an operand without `tma`: cp.async into
// the swizzled tile, 2-byte runs as aligned windows realigned in place,
// a transposed operand's 4 x 4 blocks turned in place, tf32x3's split of
// a landed stage.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

void KernelBuilder::copyByThreads(const TmaOperand &t, Value matrix,
                                  int64_t offset, int64_t stride, Value stage,
                                  Value mn0, Value k0) {
  int64_t e = k.elementBytes;
  int64_t width = t.copyBytes() / e;
  Value stageBase = stageBaseOf(offset, stride, stage);
  // The extents along the matrix's lines (M or N where K is contiguous, K
  // otherwise) and along its contiguous dimension.
  bool kContiguous = t.kMajor != t.transposed;
  Value mnExtent = t.operand == gemmc::Operand::A ? m : n;
  Value lineExtent = kContiguous ? mnExtent : kExtent;
  Value contiguousExtent = kContiguous ? kExtent : mnExtent;
  Value line0 = kContiguous ? mn0 : k0;
  Value contiguous0 = kContiguous ? k0 : mn0;
  CopySource source = copySource(t, matrix);
  Value matrixBase = source.base, lineStride = source.lineStride;
  Value positionStride = source.positionStride;
  Value pieceStride =
      arith::MulIOp::create(b, loc, positionStride, index(width));
  Value firstLine = arith::MulIOp::create(b, loc, line0, lineStride);
  Value firstPosition = arith::MulIOp::create(b, loc, contiguous0, positionStride);
  Value tileBase = arith::AddIOp::create(b, loc, matrixBase, firstLine);
  tileBase = arith::AddIOp::create(b, loc, tileBase, firstPosition);
  if (t.realignsInShared()) {
    copyWindows(t, stageBase, source, tileBase, line0, contiguous0, lineExtent,
                contiguousExtent);
    return;
  }
  if (t.transposesInShared()) {
    copyBlocks(t, stageBase, source, tileBase, line0, contiguous0, lineExtent,
               contiguousExtent);
    return;
  }
  auto cpAsync = [&](Value destination, Value address, Value position,
                     Value lineInside, int64_t count) {
    copyAsync(destination, address, position, lineInside, contiguousExtent,
              matrixBase, count);
  };
  // Copies through registers check where they lie (`checked`) only in the
  // tiles that reach past the matrix's edges: inside it, a round's loads
  // need no branch; a round's loads all issue before its stores.
  auto copyRounds = [&](bool checked) {
    SmallVector<RegisterCopy, 8> pending;
    auto flush = [&]() {
      if (pending.empty())
        return;
      if (checked) {
        loadThroughRegisters(pending, contiguousExtent);
      } else {
        for (RegisterCopy &copy : pending)
          setWords(copy, loadWholeCopy(copy));
      }
      for (const RegisterCopy &copy : pending)
        storeThroughRegisters(copy);
      pending.clear();
    };
    auto copy = [&](Value line, Value piece) {
      Value destination = copyDestination(t, stageBase, line, piece);
      // Where it comes from, and how much of it lies inside the matrix:
      // the tile's first element plus the piece's line and position.
      Value lineAt = arith::AddIOp::create(b, loc, line0, line);
      Value pieceElements = arith::MulIOp::create(b, loc, piece, index(width));
      Value position =
          arith::AddIOp::create(b, loc, contiguous0, pieceElements);
      Value lineInside = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, lineAt, lineExtent);
      Value lineBytes = arith::MulIOp::create(b, loc, line, lineStride);
      Value pieceBytes = arith::MulIOp::create(b, loc, piece, pieceStride);
      Value address = arith::AddIOp::create(b, loc, tileBase, lineBytes);
      address = arith::AddIOp::create(b, loc, address, pieceBytes);
      if (t.usesCpAsync()) {
        cpAsync(destination, address, position, lineInside, width);
        return;
      }
      RegisterCopy registerCopy;
      registerCopy.t = &t;
      registerCopy.address = address;
      registerCopy.position = position;
      registerCopy.lineInside = lineInside;
      registerCopy.destination = destination;
      pending.push_back(registerCopy);
    };
    forEachCopy(t, copy, flush);
  };
  if (t.usesCpAsync()) {
    copyRounds(/*checked=*/true);
    return;
  }
  Value lineEnd = addOffset(b, loc, line0, t.boxOuter);
  Value contiguousEnd = addOffset(b, loc, contiguous0, t.lineBytes() / e);
  Value linesInside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                            lineEnd, lineExtent);
  Value positionsInside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ule, contiguousEnd, contiguousExtent);
  Value interior = arith::AndIOp::create(b, loc, linesInside, positionsInside);
  auto ifInterior = scf::IfOp::create(b, loc, interior, /*withElse=*/true);
  OpBuilder::InsertionGuard branches(b);
  b.setInsertionPointToStart(&ifInterior.getThenRegion().front());
  copyRounds(/*checked=*/false);
  b.setInsertionPointToStart(&ifInterior.getElseRegion().front());
  copyRounds(/*checked=*/true);
}

void KernelBuilder::copyAsync(Value destination, Value address,
                              Value position, Value lineInside,
                              Value contiguousExtent, Value matrixBase,
                              int64_t count) {
  // One cp.async of `count` elements from `address` (index) at `position`
  // along the contiguous dimension: only the bytes inside the matrix
  // (cp.async fills the rest with zeros), none where its line lies outside
  // (`lineInside`); then the matrix's first element stands in as the
  // source (nothing of it is read). (Tiles wholly inside the matrix
  // without these checks, a second loop beside these, spilled: LLVM
  // hoists both loops' offsets out of the pipeline's.)
  MLIRContext *ctx = b.getContext();
  int64_t e = k.elementBytes;
  auto globalType = LLVM::LLVMPointerType::get(ctx, 1);
  Value positionInside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, position, contiguousExtent);
  Value inside = arith::AndIOp::create(b, loc, lineInside, positionInside);
  Value from = arith::SelectOp::create(b, loc, inside, address, matrixBase);
  Value address64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), from);
  Value source = LLVM::IntToPtrOp::create(b, loc, globalType, address64);
  Value left = arith::SubIOp::create(b, loc, contiguousExtent, position);
  Value elements = arith::MinUIOp::create(b, loc, left, index(count));
  Value elements32 = toI32(elements);
  Value bytes = arith::MulIOp::create(b, loc, elements32, i32(e));
  Value size = arith::SelectOp::create(b, loc, inside, bytes, i32(0));
  int64_t copyBytes = count * e;
  auto cache = copyBytes == 16 ? NVVM::LoadCacheModifierKind::CG
                               : NVVM::LoadCacheModifierKind::CA;
  NVVM::CpAsyncOp::create(b, loc, destination, source,
                          b.getI32IntegerAttr(copyBytes),
                          NVVM::LoadCacheModifierKindAttr::get(ctx, cache),
                          size);
}

void KernelBuilder::forEachBlock(const TmaOperand &t,
                                 function_ref<void(Value, Value)> visit) {
  // Block lane + 128 j is group (its % groups) of K in the block of four
  // lines (its / groups): a quarter warp's eight threads take consecutive
  // groups of K, so their 16-byte units of a line lie in distinct banks
  // (the swizzle moves each line's units by the same phase), and a warp's
  // cp.async of a row read 64 consecutive bytes of each of eight rows. A
  // loop, as forEachCopy's: unrolled, every block's offsets were hoisted
  // out of the pipeline's loop.
  int64_t threads = gemmc::kWarpgroupSize;
  int64_t groups = t.lineBytes() / 16;
  int64_t perThread = llvm::divideCeil(t.blocks(), threads);
  bool ragged = perThread * threads != t.blocks();
  Value zero = index(0);
  Value count = index(perThread);
  Value one = index(1);
  auto walk = scf::ForOp::create(b, loc, zero, count, one);
  OpBuilder::InsertionGuard inWalk(b);
  b.setInsertionPoint(walk.getBody()->getTerminator());
  Value first = arith::MulIOp::create(b, loc, walk.getInductionVar(),
                                      index(threads));
  Value linear = arith::AddIOp::create(b, loc, threadId, first);
  if (ragged) {
    Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         linear, index(t.blocks()));
    auto ifExists = scf::IfOp::create(b, loc, exists, false);
    b.setInsertionPointToStart(&ifExists.getThenRegion().front());
  }
  if (!t.staged()) {
    Value group = arith::RemUIOp::create(b, loc, linear, index(groups));
    Value quad = arith::DivUIOp::create(b, loc, linear, index(groups));
    visit(group, quad);
    return;
  }
  // Staged (read from the staging tile, M- or N-major, written into the
  // K-major one): the blocks fall into squares of 8 groups of K (a 128-byte
  // line of the tile) by 8 blocks of lines (a 128-byte row of the staging
  // tile), each cut into 8 diagonals; eight threads take a diagonal, thread
  // l group (l + d) % 8 and block of lines l, so that both their reads of
  // the staging tile's rows and their writes of the tile's lines meet 8
  // distinct 16-byte units of the banks (the 128-byte swizzle moves unit x
  // of row or line r to x xor r % 8).
  Value lane = arith::RemUIOp::create(b, loc, linear, index(8));
  Value diagonals = arith::DivUIOp::create(b, loc, linear, index(8));
  Value diagonal = arith::RemUIOp::create(b, loc, diagonals, index(8));
  Value square = arith::DivUIOp::create(b, loc, diagonals, index(8));
  int64_t kSquares = groups / 8;
  Value kSquare = arith::RemUIOp::create(b, loc, square, index(kSquares));
  Value lineSquare = arith::DivUIOp::create(b, loc, square, index(kSquares));
  Value shifted = arith::AddIOp::create(b, loc, lane, diagonal);
  Value inSquare = arith::RemUIOp::create(b, loc, shifted, index(8));
  Value groupBase = arith::MulIOp::create(b, loc, kSquare, index(8));
  Value group = arith::AddIOp::create(b, loc, groupBase, inSquare);
  Value quadBase = arith::MulIOp::create(b, loc, lineSquare, index(8));
  Value quad = arith::AddIOp::create(b, loc, quadBase, lane);
  visit(group, quad);
}

SmallVector<Value, 4> KernelBuilder::blockUnits(const TmaOperand &t,
                                                Value stageBase, Value group,
                                                Value quad) {
  // Lines 4 quad + i of the tile at K group `group`: the first line is a
  // multiple of 4, so line 4 quad + i swizzles its units by the first's
  // phase xor i (bits 4-6 of an offset are its unit, the stage and chunk
  // offsets being multiples of 128), plus i lines.
  Value group32 = toI32(group);
  Value quad32 = toI32(quad);
  Value x = arith::MulIOp::create(b, loc, group32, i32(16));
  Value line = arith::MulIOp::create(b, loc, quad32, i32(4));
  Value first = swizzledOffset(t, stageBase, line, x);
  SmallVector<Value, 4> units{first};
  for (int64_t i = 1; i < 4; ++i) {
    Value unit = arith::XOrIOp::create(b, loc, first, i32(16 * i));
    units.push_back(
        arith::AddIOp::create(b, loc, unit, i32(gemmc::kSwizzleBytes * i)));
  }
  return units;
}

SmallVector<Value, 4> KernelBuilder::stagedRows(const TmaOperand &t,
                                                Value stageBase, Value group,
                                                Value quad) {
  // Row 4 group + i of the staging tile (K), at the block's 16 bytes of M
  // or N: chunk quad / 8 (BK rows of 128 bytes each), unit quad % 8 of the
  // row, swizzled by the row's phase.
  int64_t e = k.elementBytes;
  int64_t rowsPerChunk = t.stagingRows(e);
  Value group32 = toI32(group);
  Value quad32 = toI32(quad);
  Value chunk = arith::ShRUIOp::create(b, loc, quad32, i32(3));
  Value unit = arith::AndIOp::create(b, loc, quad32, i32(7));
  Value chunkBytes = arith::MulIOp::create(
      b, loc, chunk, i32(rowsPerChunk * gemmc::kSwizzleBytes));
  Value stagingOffset = i32(t.stagingOffset());
  Value staging = arith::AddIOp::create(b, loc, stageBase, stagingOffset);
  staging = arith::AddIOp::create(b, loc, staging, chunkBytes);
  Value firstRow = arith::MulIOp::create(b, loc, group32, i32(4));
  SmallVector<Value, 4> rows;
  for (int64_t i = 0; i < 4; ++i) {
    Value row = arith::AddIOp::create(b, loc, firstRow, i32(i));
    Value phase = arith::AndIOp::create(b, loc, row, i32(7));
    Value swizzled = arith::XOrIOp::create(b, loc, unit, phase);
    Value unitBytes = arith::ShLIOp::create(b, loc, swizzled, i32(4));
    Value rowBytes =
        arith::MulIOp::create(b, loc, row, i32(gemmc::kSwizzleBytes));
    Value at = arith::AddIOp::create(b, loc, staging, rowBytes);
    rows.push_back(arith::AddIOp::create(b, loc, at, unitBytes));
  }
  return rows;
}

void KernelBuilder::copyBlocks(const TmaOperand &t, Value stageBase,
                               const CopySource &source, Value tileBase,
                               Value line0, Value contiguous0,
                               Value lineExtent, Value contiguousExtent) {
  // Row i of a block (element 4 group + i of K, the matrix's line, and its
  // 4 elements of M or N from 4 quad) goes into the block's unit of line
  // 4 quad + i, in pieces of the operand's width; transposeLanded turns
  // the block once it landed.
  int64_t e = k.elementBytes;
  int64_t width = t.pieceBytes / e;
  forEachBlock(t, [&](Value group, Value quad) {
    SmallVector<Value, 4> units = blockUnits(t, stageBase, group, quad);
    Value firstRow = arith::MulIOp::create(b, loc, group, index(4));
    Value firstElement = arith::MulIOp::create(b, loc, quad, index(4));
    Value position0 =
        arith::AddIOp::create(b, loc, contiguous0, firstElement);
    Value elementBytes =
        arith::MulIOp::create(b, loc, firstElement, source.positionStride);
    Value blockBase = arith::AddIOp::create(b, loc, tileBase, elementBytes);
    for (int64_t i = 0; i < 4; ++i) {
      Value row = addOffset(b, loc, firstRow, i);
      Value rowAt = arith::AddIOp::create(b, loc, line0, row);
      Value rowInside = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, rowAt, lineExtent);
      Value rowBytes = arith::MulIOp::create(b, loc, row, source.lineStride);
      Value rowBase = arith::AddIOp::create(b, loc, blockBase, rowBytes);
      for (int64_t q = 0; q < 4; q += width) {
        Value pieceBytes = arith::MulIOp::create(b, loc, source.positionStride,
                                                 index(q));
        Value address = arith::AddIOp::create(b, loc, rowBase, pieceBytes);
        Value position = addOffset(b, loc, position0, q);
        Value unit = arith::AddIOp::create(b, loc, units[i], i32(e * q));
        Value destination = sharedPointer(unit);
        copyAsync(destination, address, position, rowInside, contiguousExtent,
                  source.base, width);
      }
    }
  });
}

void KernelBuilder::transposeLanded(Value stage) {
  // A producer thread's blocks of the stage landed, row i of each in its
  // unit i: it turns each, column j into unit j (the four elements of K
  // of line 4 quad + j), split into tf32 parts and remainders under
  // tf32x3.
  Type wordType = b.getI32Type();
  auto vectorType = VectorType::get({4}, wordType);
  for (const auto &[operand, offset, stride] :
       {std::tuple(&k.a, k.aOffset, k.aStageStride),
        std::tuple(&k.b, k.bOffset, k.bStageStride)}) {
    const TmaOperand &t = *operand;
    if (!t.transposesInShared())
      continue;
    Value stageBase = stageBaseOf(offset, stride, stage);
    forEachBlock(t, [&](Value group, Value quad) {
      SmallVector<Value, 4> units = blockUnits(t, stageBase, group, quad);
      // Where its rows landed: its own units, or the staging tile's.
      SmallVector<Value, 4> rows =
          t.staged() ? stagedRows(t, stageBase, group, quad) : units;
      SmallVector<Value, 4> pointers;
      SmallVector<Value, 16> words;
      for (auto [unit, rowAt] : llvm::zip_equal(units, rows)) {
        pointers.push_back(sharedPointer(unit));
        Value from = sharedPointer(rowAt);
        Value row = LLVM::LoadOp::create(b, loc, vectorType, from, 16);
        for (int64_t j = 0; j < 4; ++j)
          words.push_back(LLVM::ExtractElementOp::create(b, loc, row, i32(j)));
      }
      for (int64_t j = 0; j < 4; ++j) {
        Value column = LLVM::PoisonOp::create(b, loc, vectorType);
        Value rest = column;
        for (int64_t i = 0; i < 4; ++i) {
          Value word = words[4 * i + j];
          if (t.split) {
            auto [tf32Word, restWord] = splitWord(b, loc, word);
            word = tf32Word;
            rest = LLVM::InsertElementOp::create(b, loc, rest, restWord, i32(i));
          }
          column = LLVM::InsertElementOp::create(b, loc, column, word, i32(i));
        }
        LLVM::StoreOp::create(b, loc, column, pointers[j], 16);
        if (!t.split)
          continue;
        Value restOffset = i32(t.remainderOffset());
        Value restAt =
            LLVM::GEPOp::create(b, loc, pointers[j].getType(), b.getI8Type(),
                                pointers[j], ValueRange{restOffset});
        LLVM::StoreOp::create(b, loc, rest, restAt, 16);
      }
    });
  }
}

KernelBuilder::CopySource KernelBuilder::copySource(const TmaOperand &t,
                                                    Value matrix) {
  // A row-major A's lines are the matrix's rows, a column-major B's its
  // columns (a transposed operand's the other way).
  int64_t e = k.elementBytes;
  bool kContiguous = t.kMajor != t.transposed;
  bool linesAreRows = (t.operand == gemmc::Operand::A) == kContiguous;
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, matrix);
  CopySource source;
  source.lineStride = arith::MulIOp::create(
      b, loc, metadata.getStrides()[linesAreRows ? 0 : 1], index(e));
  source.positionStride = arith::MulIOp::create(
      b, loc, metadata.getStrides()[linesAreRows ? 1 : 0], index(e));
  Value offsetBytes =
      arith::MulIOp::create(b, loc, metadata.getOffset(), index(e));
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, matrix);
  source.base = arith::AddIOp::create(b, loc, aligned, offsetBytes);
  return source;
}

void KernelBuilder::forEachRun(const TmaOperand &t,
                               function_ref<void(Value, Value)> visit) {
  // Consecutive threads take the same unit of consecutive lines: eight
  // swizzle phases, so a quarter warp's 16-byte accesses of a unit meet
  // no bank twice.
  int64_t threads = gemmc::kWarpgroupSize;
  int64_t perThread = llvm::divideCeil(t.runs(), threads);
  for (int64_t j = 0; j < perThread; ++j) {
    OpBuilder::InsertionGuard guard(b);
    Value run = addOffset(b, loc, threadId, threads * j);
    if ((j + 1) * threads > t.runs()) {
      Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           run, index(t.runs()));
      auto ifExists = scf::IfOp::create(b, loc, exists, false);
      b.setInsertionPointToStart(&ifExists.getThenRegion().front());
    }
    Value line = arith::RemUIOp::create(b, loc, run, index(t.boxOuter));
    Value chunk = arith::DivUIOp::create(b, loc, run, index(t.boxOuter));
    visit(line, chunk);
  }
}

SmallVector<Value, 9> KernelBuilder::runSlots(const TmaOperand &t,
                                              Value stageBase, Value line,
                                              Value chunk) {
  // Unit w of a line lies at unit w xor (line % 8) (TmaOperand).
  Value chunkOffset = arith::MulIOp::create(b, loc, chunk, i32(t.chunkBytes));
  Value lineOffset =
      arith::MulIOp::create(b, loc, line, i32(gemmc::kSwizzleBytes));
  Value row = arith::AddIOp::create(b, loc, stageBase, chunkOffset);
  row = arith::AddIOp::create(b, loc, row, lineOffset);
  Value lineInAtom = arith::AndIOp::create(b, loc, line, i32(7));
  Value phase = arith::ShLIOp::create(b, loc, lineInAtom, i32(4));
  Value chunkRuns = arith::MulIOp::create(b, loc, chunk, i32(t.boxOuter));
  Value run = arith::AddIOp::create(b, loc, chunkRuns, line);
  Value runBytes = arith::MulIOp::create(b, loc, run, i32(gemmc::kWindowBytes));
  Value ninth = arith::AddIOp::create(b, loc, stageBase, runBytes);
  Value after = i32(t.remainderOffset());
  ninth = arith::AddIOp::create(b, loc, ninth, after);
  SmallVector<Value, 9> slots;
  int64_t units = gemmc::kSwizzleBytes / gemmc::kWindowBytes;
  for (int64_t w = 0; w < units; ++w) {
    Value unit = arith::XOrIOp::create(b, loc, phase, i32(16 * w));
    slots.push_back(arith::AddIOp::create(b, loc, row, unit));
  }
  slots.push_back(ninth);
  return slots;
}

void KernelBuilder::copyWindows(const TmaOperand &t, Value stageBase,
                                const CopySource &source, Value tileBase,
                                Value line0, Value contiguous0,
                                Value lineExtent, Value contiguousExtent) {
  MLIRContext *ctx = b.getContext();
  int64_t e = k.elementBytes;
  int64_t runElements = gemmc::kSwizzleBytes / e;
  int64_t windows = gemmc::kSwizzleBytes / gemmc::kWindowBytes + 1;
  auto globalType = LLVM::LLVMPointerType::get(ctx, 1);
  Type wordType = b.getI32Type();
  auto vectorType = VectorType::get({4}, wordType);
  // The matrix's end: past its last line's last element.
  Value lastLine = addOffset(b, loc, lineExtent, -1);
  Value lastLineBytes =
      arith::MulIOp::create(b, loc, lastLine, source.lineStride);
  Value extentBytes =
      arith::MulIOp::create(b, loc, contiguousExtent, source.positionStride);
  Value matrixEnd = arith::AddIOp::create(b, loc, source.base, lastLineBytes);
  matrixEnd = arith::AddIOp::create(b, loc, matrixEnd, extentBytes);
  // A thread copies its runs' windows itself, and realigns them once they
  // landed (no other thread reads them). (Runs of lines apart in a warp's
  // copies, where eight threads a run read consecutive windows: two
  // thirds of the speed, the windows' addresses and sizes a thread's own
  // work then.)
  forEachRun(t, [&](Value line, Value chunk) {
    Value lineAt = arith::AddIOp::create(b, loc, line0, line);
    Value lineInside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             lineAt, lineExtent);
    Value runOffset = arith::MulIOp::create(b, loc, chunk, index(runElements));
    Value position = arith::AddIOp::create(b, loc, contiguous0, runOffset);
    Value positionInside = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, position, contiguousExtent);
    Value inside = arith::AndIOp::create(b, loc, lineInside, positionInside);
    Value lineBytes = arith::MulIOp::create(b, loc, line, source.lineStride);
    Value runBytes =
        arith::MulIOp::create(b, loc, runOffset, source.positionStride);
    Value first = arith::AddIOp::create(b, loc, tileBase, lineBytes);
    first = arith::AddIOp::create(b, loc, first, runBytes);
    // The windows from the one that holds the run's first element: of the
    // bytes from there to the line's end inside the matrix (none where the
    // run lies outside) each takes its part, zeros after them.
    Value window0 = arith::AndIOp::create(b, loc, first, index(~int64_t(15)));
    Value lead = arith::SubIOp::create(b, loc, first, window0);
    Value left = arith::SubIOp::create(b, loc, contiguousExtent, position);
    Value leftBytes = arith::MulIOp::create(b, loc, left, index(e));
    Value through = arith::AddIOp::create(b, loc, lead, leftBytes);
    Value available =
        arith::SelectOp::create(b, loc, inside, through, index(0));
    Value line32 = toI32(line);
    Value chunk32 = toI32(chunk);
    SmallVector<Value, 9> slots = runSlots(t, stageBase, line32, chunk32);
    struct Window {
      Value from, bytes, some, destination;
    };
    SmallVector<Window, 9> parts;
    for (int64_t w = 0; w < windows; ++w) {
      Window part;
      int64_t offset = gemmc::kWindowBytes * w;
      Value beyond = arith::SubIOp::create(b, loc, available, index(offset));
      Value atLeast = arith::MaxSIOp::create(b, loc, beyond, index(0));
      part.bytes = arith::MinSIOp::create(b, loc, atLeast, index(16));
      part.some = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                        beyond, index(0));
      part.from = addOffset(b, loc, window0, offset);
      part.destination = sharedPointer(slots[w]);
      parts.push_back(part);
    }
    // cp.async through L1 (.ca: a window's 32-byte sector is its
    // neighbour's): a window with nothing inside the matrix copies nothing
    // from the run's first window.
    auto cpAsync = [&](const Window &part) {
      Value from = arith::SelectOp::create(b, loc, part.some, part.from,
                                           parts.front().from);
      Value from64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), from);
      Value pointer = LLVM::IntToPtrOp::create(b, loc, globalType, from64);
      Value bytes32 = toI32(part.bytes);
      NVVM::CpAsyncOp::create(b, loc, part.destination, pointer,
                              b.getI32IntegerAttr(gemmc::kWindowBytes),
                              NVVM::LoadCacheModifierKindAttr::get(
                                  ctx, NVVM::LoadCacheModifierKind::CA),
                              bytes32);
    };
    // The windows lie in the matrix's allocation (before its first element
    // at most the 14 bytes of its window, and allocations start 256-byte
    // aligned) unless they reach past its end: only the last line's may.
    // There each window inside the matrix is copied, one past its end
    // loaded element by element, its elements inside only, and stored, and
    // one with nothing inside is zeros.
    Value runEnd = addOffset(b, loc, window0, gemmc::kWindowBytes * windows);
    Value notLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          lineAt, lastLine);
    Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                       runEnd, matrixEnd);
    Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
    Value noneInside = arith::XOrIOp::create(b, loc, inside, yes);
    Value safe = arith::OrIOp::create(b, loc, notLast, fits);
    safe = arith::OrIOp::create(b, loc, safe, noneInside);
    auto ifSafe = scf::IfOp::create(b, loc, safe, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard then(b);
      b.setInsertionPointToStart(&ifSafe.getThenRegion().front());
      for (const Window &part : parts)
        cpAsync(part);
    }
    OpBuilder::InsertionGuard atEnd(b);
    b.setInsertionPointToStart(&ifSafe.getElseRegion().front());
    for (const Window &part : parts) {
      OpBuilder::InsertionGuard window(b);
      Value to = addOffset(b, loc, part.from, gemmc::kWindowBytes);
      Value within = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                           to, matrixEnd);
      auto ifWithin = scf::IfOp::create(b, loc, within, /*withElse=*/true);
      b.setInsertionPointToStart(&ifWithin.getThenRegion().front());
      cpAsync(part);
      b.setInsertionPointToStart(&ifWithin.getElseRegion().front());
      SmallVector<Value, 8> halves;
      for (int64_t i = 0; i < 8; ++i) {
        Value at = addOffset(b, loc, part.from, e * i);
        Value before = addOffset(b, loc, part.bytes, -e * i);
        Value inWindow = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::sgt, before, index(0));
        Value afterStart = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::uge, at, source.base);
        Value valid = arith::AndIOp::create(b, loc, inWindow, afterStart);
        Value address = arith::SelectOp::create(b, loc, valid, at, source.base);
        Value address64 =
            arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
        Value pointer = LLVM::IntToPtrOp::create(b, loc, globalType, address64);
        Value half = LLVM::LoadOp::create(b, loc, b.getI16Type(), pointer, e);
        Value word = arith::ExtUIOp::create(b, loc, wordType, half);
        halves.push_back(arith::SelectOp::create(b, loc, valid, word, i32(0)));
      }
      Value vector = LLVM::PoisonOp::create(b, loc, vectorType);
      for (int64_t w = 0; w < 4; ++w) {
        Value high = arith::ShLIOp::create(b, loc, halves[2 * w + 1], i32(16));
        Value word = arith::OrIOp::create(b, loc, halves[2 * w], high);
        vector = LLVM::InsertElementOp::create(b, loc, vector, word, i32(w));
      }
      LLVM::StoreOp::create(b, loc, vector, part.destination, 16);
    }
  });
}

void KernelBuilder::realignLanded(Value stage, const CopiedTile *tile) {
  // A producer thread's copies of the stage landed: it shifts its runs
  // into place (forEachRun gives it those it copied).
  Type wordType = b.getI32Type();
  auto vectorType = VectorType::get({4}, wordType);
  for (const auto &[operand, offset, stride, matrix] :
       {std::tuple(&k.a, k.aOffset, k.aStageStride, a),
        std::tuple(&k.b, k.bOffset, k.bStageStride, bMatrix)}) {
    const TmaOperand &t = *operand;
    if (!t.realignsInShared())
      continue;
    Value stageBase = stageBaseOf(offset, stride, stage);
    CopySource source = copySource(t, matrix);
    // The tile's first line, where its lines are M or N and it may start
    // at any (a grouped GEMM's rows); along K, and along the contiguous
    // dimension, tiles start at multiples of 16 bytes.
    Value line0;
    if (tile && t.kMajor != t.transposed)
      line0 = t.operand == gemmc::Operand::A ? tile->row0 : tile->col0;
    forEachRun(t, [&](Value line, Value chunk) {
      // The run's first element lies `lead` bytes into its first window,
      // in every tile alike (tiles start at multiples of 8 lines and of 16
      // bytes along them) unless they start at any line (line0): each unit
      // of the run is its window's bytes from `lead` on and the next
      // window's before it. Word i of a unit is the windows' word lead / 4
      // + i and the next, funnel-shifted right by the half word lead % 4
      // leaves.
      Value lineAt = line;
      if (line0)
        lineAt = arith::AddIOp::create(b, loc, line0, line);
      Value lineBytes =
          arith::MulIOp::create(b, loc, lineAt, source.lineStride);
      Value first = arith::AddIOp::create(b, loc, source.base, lineBytes);
      Value leadIndex = arith::AndIOp::create(b, loc, first, index(15));
      Value lead = toI32(leadIndex);
      Value words = arith::ShRUIOp::create(b, loc, lead, i32(2));
      Value oddWords = arith::AndIOp::create(b, loc, words, i32(1));
      Value twoWords = arith::AndIOp::create(b, loc, words, i32(2));
      Value byOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          oddWords, i32(0));
      Value byTwo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          twoWords, i32(0));
      Value halfWord = arith::AndIOp::create(b, loc, lead, i32(2));
      Value shift = arith::ShLIOp::create(b, loc, halfWord, i32(3));
      Value line32 = toI32(line);
      Value chunk32 = toI32(chunk);
      SmallVector<Value, 9> slots = runSlots(t, stageBase, line32, chunk32);
      auto load = [&](Value slot) {
        Value pointer = sharedPointer(slot);
        Value window = LLVM::LoadOp::create(b, loc, vectorType, pointer, 16);
        SmallVector<Value, 4> loaded;
        for (int64_t w = 0; w < 4; ++w)
          loaded.push_back(
              LLVM::ExtractElementOp::create(b, loc, window, i32(w)));
        return loaded;
      };
      // Each unit is stored after its window and the next were read.
      SmallVector<Value, 8> pair = load(slots.front());
      for (int64_t u = 0; u + 1 < int64_t(slots.size()); ++u) {
        llvm::append_range(pair, load(slots[u + 1]));
        // Words x + (lead / 4) % 2, then those + lead / 4 - that.
        SmallVector<Value, 7> byOneWord;
        for (int64_t x = 0; x < 7; ++x)
          byOneWord.push_back(
              arith::SelectOp::create(b, loc, byOne, pair[x + 1], pair[x]));
        SmallVector<Value, 5> lined;
        for (int64_t x = 0; x < 5; ++x)
          lined.push_back(arith::SelectOp::create(
              b, loc, byTwo, byOneWord[x + 2], byOneWord[x]));
        Value unit = LLVM::PoisonOp::create(b, loc, vectorType);
        for (int64_t w = 0; w < 4; ++w) {
          Value word =
              LLVM::FshrOp::create(b, loc, lined[w + 1], lined[w], shift);
          unit = LLVM::InsertElementOp::create(b, loc, unit, word, i32(w));
        }
        Value pointer = sharedPointer(slots[u]);
        LLVM::StoreOp::create(b, loc, unit, pointer, 16);
        pair.erase(pair.begin(), pair.begin() + 4);
      }
    });
  }
}

void KernelBuilder::splitLanded(Value stage) {
  // Each producer thread waited for its own copies of the stage; once all
  // have, they split the stage's tiles 16 bytes a thread at a time, in
  // the order they lie (the split is elementwise): each word's tf32 part
  // back in place, its remainder remainderOffset() bytes further.
  int64_t threads = gemmc::kWarpgroupSize;
  Value id = i32(k.producerBarrier());
  Value count = i32(threads);
  NVVM::BarrierOp::create(b, loc, Type(), id, count, /*reductionOp=*/{},
                          /*reductionPredicate=*/Value());
  Type wordType = b.getI32Type();
  auto vectorType = VectorType::get({4}, wordType);
  for (const auto &[t, offset, stride] :
       {std::tuple(&k.a, k.aOffset, k.aStageStride),
        std::tuple(&k.b, k.bOffset, k.bStageStride)}) {
    if (!t->splitsInShared())
      continue;
    Value stageBase = stageBaseOf(offset, stride, stage);
    int64_t units = t->stageBytes() / 16;
    Value lane = toI32(threadId);
    Value laneBytes = arith::MulIOp::create(b, loc, lane, i32(16));
    Value first = arith::AddIOp::create(b, loc, stageBase, laneBytes);
    Value zero = index(0);
    Value steps = index(llvm::divideCeil(units, threads));
    Value one = index(1);
    auto sweep = scf::ForOp::create(b, loc, zero, steps, one);
    OpBuilder::InsertionGuard inSweep(b);
    b.setInsertionPoint(sweep.getBody()->getTerminator());
    Value i32Step = toI32(sweep.getInductionVar());
    Value stepBytes = arith::MulIOp::create(b, loc, i32Step, i32(16 * threads));
    Value at = arith::AddIOp::create(b, loc, first, stepBytes);
    if (units % threads) {
      Value end = i32(t->stageBytes());
      Value before = arith::SubIOp::create(b, loc, at, stageBase);
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, before, end);
      auto ifInside = scf::IfOp::create(b, loc, inside, false);
      b.setInsertionPointToStart(&ifInside.getThenRegion().front());
    }
    Value part = sharedPointer(at);
    Value landed = LLVM::LoadOp::create(b, loc, vectorType, part, 16);
    Value big = LLVM::PoisonOp::create(b, loc, vectorType);
    Value small = big;
    for (int64_t w = 0; w < 4; ++w) {
      Value word = LLVM::ExtractElementOp::create(b, loc, landed, i32(w));
      auto [tf32Word, restWord] = splitWord(b, loc, word);
      big = LLVM::InsertElementOp::create(b, loc, big, tf32Word, i32(w));
      small = LLVM::InsertElementOp::create(b, loc, small, restWord, i32(w));
    }
    LLVM::StoreOp::create(b, loc, big, part, 16);
    Value restOffset = i32(t->remainderOffset());
    Value rest = LLVM::GEPOp::create(b, loc, part.getType(), b.getI8Type(),
                                     part, ValueRange{restOffset});
    LLVM::StoreOp::create(b, loc, small, rest, 16);
  }
}

Value KernelBuilder::swizzledOffset(const TmaOperand &t, Value stageBase,
                                    Value line, Value x) {
  Value chunk = arith::DivUIOp::create(b, loc, x, i32(gemmc::kSwizzleBytes));
  Value inLine = arith::RemUIOp::create(b, loc, x, i32(gemmc::kSwizzleBytes));
  Value unit = arith::ShRUIOp::create(b, loc, inLine, i32(4));
  Value phase = arith::AndIOp::create(b, loc, line, i32(7));
  Value swizzled = arith::XOrIOp::create(b, loc, unit, phase);
  Value unitOffset = arith::ShLIOp::create(b, loc, swizzled, i32(4));
  Value inUnit = arith::AndIOp::create(b, loc, inLine, i32(15));
  Value chunkOffset = arith::MulIOp::create(b, loc, chunk, i32(t.chunkBytes));
  Value lineOffset =
      arith::MulIOp::create(b, loc, line, i32(gemmc::kSwizzleBytes));
  Value at = arith::AddIOp::create(b, loc, stageBase, chunkOffset);
  at = arith::AddIOp::create(b, loc, at, lineOffset);
  at = arith::AddIOp::create(b, loc, at, unitOffset);
  return arith::AddIOp::create(b, loc, at, inUnit);
}
