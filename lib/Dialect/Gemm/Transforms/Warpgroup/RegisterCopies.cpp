//===- RegisterCopies.cpp - copies through registers ---------------------===//
//
// The producer threads' 16-byte copies of 2-byte elements through
// registers: loads of the aligned words that hold them, shifted into
// place, and shared stores.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

Value KernelBuilder::isWhole(const RegisterCopy &copy, Value contiguousExtent) {
  Value end = addOffset(b, loc, copy.position, copyElements());
  Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end,
                                     contiguousExtent);
  return arith::AndIOp::create(b, loc, copy.lineInside, fits);
}

SmallVector<Value, 6> KernelBuilder::loadWholeCopy(const RegisterCopy &copy) {
  Type wordType = b.getI32Type();
  auto globalType = LLVM::LLVMPointerType::get(b.getContext(), 1);
  auto loadAt = [&](Value at, Type type, int64_t alignment) {
    Value pointer = LLVM::IntToPtrOp::create(b, loc, globalType, at);
    return LLVM::LoadOp::create(b, loc, type, pointer, alignment).getResult();
  };
  Value at = arith::IndexCastOp::create(b, loc, b.getI64Type(), copy.address);
  SmallVector<Value, 6> loaded;
  // 2-byte elements: the aligned words from the one holding the first
  // element, and the last element (the half word the shift takes where the
  // first is not 4-byte aligned). Nothing past the last element is read;
  // before the first, at most the 2 bytes of its word (an allocation starts
  // 256-byte aligned, so they lie in the matrix's).
  Value wordAt = arith::AndIOp::create(b, loc, at, i64(~int64_t(3)));
  for (int64_t w = 0; w < kCopyWords; ++w) {
    Value wordAddress = arith::AddIOp::create(b, loc, wordAt, i64(4 * w));
    loaded.push_back(loadAt(wordAddress, wordType, 4));
  }
  Value lastAt = arith::AddIOp::create(b, loc, at, i64(2 * copyElements() - 2));
  Value last = loadAt(lastAt, b.getI16Type(), 2);
  loaded.push_back(arith::ExtUIOp::create(b, loc, wordType, last));
  Value halves = arith::ShRUIOp::create(b, loc, at, i64(1));
  Value odd = arith::AndIOp::create(b, loc, halves, i64(1));
  Value odd32 = arith::TruncIOp::create(b, loc, wordType, odd);
  loaded.push_back(arith::ShLIOp::create(b, loc, odd32, i32(4)));
  return loaded;
}

SmallVector<Value, 6> KernelBuilder::loadEdgeCopy(const RegisterCopy &copy,
                                                  Value contiguousExtent) {
  // The elements inside, one by one, as whole words (shift 0); none where
  // the copy lies wholly outside. Its first element stands in for those
  // past the edge (nothing of it is used).
  Type wordType = b.getI32Type();
  Value some = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     copy.position, contiguousExtent);
  Value partly = arith::AndIOp::create(b, loc, copy.lineInside, some);
  SmallVector<Type, 4> wordTypes(kCopyWords, wordType);
  auto ifPartly = scf::IfOp::create(b, loc, wordTypes, partly, true);
  {
    OpBuilder::InsertionGuard then(b);
    b.setInsertionPointToStart(&ifPartly.getThenRegion().front());
    auto globalType = LLVM::LLVMPointerType::get(b.getContext(), 1);
    Value first =
        arith::IndexCastOp::create(b, loc, b.getI64Type(), copy.address);
    Value zero = i32(0);
    int64_t e = k.elementBytes;
    Type elementType = b.getIntegerType(8 * e);
    SmallVector<Value, 8> halves;
    for (int64_t i = 0; i < copyElements(); ++i) {
      Value position = addOffset(b, loc, copy.position, i);
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           position, contiguousExtent);
      Value next = arith::AddIOp::create(b, loc, first, i64(e * i));
      Value at = arith::SelectOp::create(b, loc, inside, next, first);
      Value pointer = LLVM::IntToPtrOp::create(b, loc, globalType, at);
      Value bits = LLVM::LoadOp::create(b, loc, elementType, pointer, e);
      Value half = arith::ExtUIOp::create(b, loc, wordType, bits);
      halves.push_back(arith::SelectOp::create(b, loc, inside, half, zero));
    }
    // The 2-byte elements paired into words.
    SmallVector<Value, 4> elements;
    for (int64_t w = 0; w < kCopyWords; ++w) {
      Value high = arith::ShLIOp::create(b, loc, halves[2 * w + 1], i32(16));
      elements.push_back(arith::OrIOp::create(b, loc, halves[2 * w], high));
    }
    scf::YieldOp::create(b, loc, elements);
  }
  {
    OpBuilder::InsertionGuard otherwise(b);
    b.setInsertionPointToStart(&ifPartly.getElseRegion().front());
    SmallVector<Value, 4> zeros(kCopyWords, i32(0));
    scf::YieldOp::create(b, loc, zeros);
  }
  SmallVector<Value, 6> words(ifPartly.getResults());
  words.push_back(i32(0));
  words.push_back(i32(0));
  return words;
}

void KernelBuilder::loadThroughRegisters(MutableArrayRef<RegisterCopy> round,
                                         Value contiguousExtent) {
  // One branch for the round: where all its copies lie inside the matrix
  // (every tile but the edges') their loads all issue before any of their
  // values is used; otherwise each copy is whole or at the edge.
  int64_t perCopy = kCopyWords + 2;
  SmallVector<Type, 24> types(perCopy * round.size(), b.getI32Type());
  SmallVector<Value, 8> whole;
  for (const RegisterCopy &copy : round)
    whole.push_back(isWhole(copy, contiguousExtent));
  Value all = whole.front();
  for (Value w : ArrayRef<Value>(whole).drop_front())
    all = arith::AndIOp::create(b, loc, all, w);
  auto ifAll = scf::IfOp::create(b, loc, types, all, true);
  {
    OpBuilder::InsertionGuard then(b);
    b.setInsertionPointToStart(&ifAll.getThenRegion().front());
    SmallVector<Value, 24> values;
    for (const RegisterCopy &copy : round)
      llvm::append_range(values, loadWholeCopy(copy));
    scf::YieldOp::create(b, loc, values);
  }
  {
    OpBuilder::InsertionGuard otherwise(b);
    b.setInsertionPointToStart(&ifAll.getElseRegion().front());
    SmallVector<Value, 24> values;
    for (auto [copy, isWholeCopy] : llvm::zip_equal(round, whole)) {
      SmallVector<Type, 6> copyTypes(perCopy, b.getI32Type());
      auto ifWhole = scf::IfOp::create(b, loc, copyTypes, isWholeCopy, true);
      {
        OpBuilder::InsertionGuard then(b);
        b.setInsertionPointToStart(&ifWhole.getThenRegion().front());
        scf::YieldOp::create(b, loc, loadWholeCopy(copy));
      }
      {
        OpBuilder::InsertionGuard edge(b);
        b.setInsertionPointToStart(&ifWhole.getElseRegion().front());
        scf::YieldOp::create(b, loc, loadEdgeCopy(copy, contiguousExtent));
      }
      llvm::append_range(values, ifWhole.getResults());
    }
    scf::YieldOp::create(b, loc, values);
  }
  for (auto [i, copy] : llvm::enumerate(round))
    setWords(copy, ifAll.getResults().slice(i * perCopy, perCopy));
}

void KernelBuilder::setWords(RegisterCopy &copy, ValueRange loaded) {
  copy.words.assign(loaded.begin(), loaded.begin() + kCopyWords + 1);
  copy.shift = loaded.back();
}

void KernelBuilder::storeThroughRegisters(const RegisterCopy &copy) {
  // The 2-byte elements shifted into place (word w is the upper half of
  // word w and the lower of w + 1 where the shift is 16: a funnel shift
  // right), stored with one 16-byte shared store.
  auto vectorType = VectorType::get({kCopyWords}, b.getI32Type());
  Value vector = LLVM::PoisonOp::create(b, loc, vectorType);
  for (int64_t w = 0; w < kCopyWords; ++w) {
    Value word = LLVM::FshrOp::create(b, loc, copy.words[w + 1], copy.words[w],
                                      copy.shift);
    vector = LLVM::InsertElementOp::create(b, loc, vector, word, i32(w));
  }
  LLVM::StoreOp::create(b, loc, vector, copy.destination, /*alignment=*/16);
}
