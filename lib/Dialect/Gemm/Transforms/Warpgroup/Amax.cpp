//===- Amax.cpp - the amax of C ------------------------------------------===//
//
// `amax = c`: the largest magnitude of the values the consumers store,
// before their cast to C's type (what FP8's next scale is made from, as
// cuBLASLt's AMAX_D). Each consumer thread keeps its own in a register,
// raised by max.NaN.f32 of |v| (a NaN wins): a run of stores (a group of
// TMA's store, an accumulator's pairs) raises it once, its values' maxima
// taken in AmaxRun::kWays chains and then a tree, so that no one chain of
// dependent maxima runs a tile long. At the consumer's end each
// warp's 32 meet by shuffles on its bits, and its lane 0 raises the
// kernel's amax with one atomic max on them (the launch zeroed it): a
// non-negative f32's bits order as unsigned integers do, and a NaN's lie
// above infinity's. A warp's one atomic for all its tiles.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

void KernelBuilder::createAmaxSlot() {
  if (!p.amax)
    return;
  // In the entry block, where SROA promotes it.
  auto pointerType = LLVM::LLVMPointerType::get(b.getContext());
  Value one = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 1);
  amaxSlot = LLVM::AllocaOp::create(b, loc, pointerType, b.getF32Type(), one);
}

void KernelBuilder::startAmax() {
  if (!amaxSlot)
    return;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  LLVM::StoreOp::create(b, loc, zero, amaxSlot);
}

void KernelBuilder::addToAmax(OpBuilder &ob, AmaxRun &run, Value value,
                              Value inside) {
  if (!amaxSlot)
    return;
  SmallVector<Value, 2> elements = {value};
  if (isa<VectorType>(value.getType())) {
    Value first = vector::ExtractOp::create(ob, loc, value, 0);
    Value second = vector::ExtractOp::create(ob, loc, value, 1);
    elements = {first, second};
  }
  Value zero;
  if (inside)
    zero = arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(0.0f));
  for (Value element : elements) {
    Value magnitude = math::AbsFOp::create(ob, loc, element);
    if (inside)
      magnitude = arith::SelectOp::create(ob, loc, inside, magnitude, zero);
    // max.NaN.f32 with |v| as its operand's modifier: one instruction.
    unsigned way = run.count++ % AmaxRun::kWays;
    if (run.ways.size() <= way) {
      run.ways.push_back(magnitude);
      continue;
    }
    run.ways[way] =
        arith::MaximumFOp::create(ob, loc, run.ways[way], magnitude);
  }
}

void KernelBuilder::raiseAmax(OpBuilder &ob, AmaxRun &run) {
  if (!amaxSlot || run.ways.empty())
    return;
  SmallVector<Value, AmaxRun::kWays> ways = run.ways;
  while (ways.size() > 1) {
    SmallVector<Value, AmaxRun::kWays> next;
    for (size_t i = 0; i + 1 < ways.size(); i += 2)
      next.push_back(arith::MaximumFOp::create(ob, loc, ways[i], ways[i + 1]));
    if (ways.size() % 2)
      next.push_back(ways.back());
    ways = std::move(next);
  }
  Value largest = LLVM::LoadOp::create(ob, loc, ob.getF32Type(), amaxSlot);
  largest = arith::MaximumFOp::create(ob, loc, largest, ways.front());
  LLVM::StoreOp::create(ob, loc, largest, amaxSlot);
  run = AmaxRun();
}

void KernelBuilder::raiseAmax(OpBuilder &ob, Value value) {
  AmaxRun run;
  addToAmax(ob, run, value);
  raiseAmax(ob, run);
}

bool KernelBuilder::amaxSeesPastTheMatrix(const EpilogueValues &epilogue) {
  // (Unmasked where it can, e4m3 128x192 tiles into bf16 with tensor
  // scales, sizes at launch, ran 0-1.5% slower than without the amax on an
  // H200, masked in every tile 1.5-4.6%: 8192^3, 4096^3, 2048x8192x4096.)
  return epilogue.readsC || epilogue.residual || epilogue.bias;
}

void KernelBuilder::finishAmax() {
  if (!amaxSlot)
    return;
  // Every lane of the consumer's warps is here: the walk is the
  // warpgroup's.
  Type i32Type = b.getI32Type();
  Value kept = LLVM::LoadOp::create(b, loc, b.getF32Type(), amaxSlot);
  Value largest = arith::BitcastOp::create(b, loc, i32Type, kept);
  Value all = i32(-1);
  Value clamp = i32(0x1f);
  for (int64_t offset = 16; offset >= 1; offset /= 2) {
    Value lanes = i32(offset);
    Value other = NVVM::ShflOp::create(b, loc, i32Type, all, largest, lanes,
                                       clamp, NVVM::ShflKind::bfly,
                                       /*return_value_and_is_valid=*/nullptr);
    largest = arith::MaxUIOp::create(b, loc, largest, other);
  }
  Value lane = arith::RemUIOp::create(b, loc, threadId, index(32));
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0));
  auto ifFirst = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifFirst.thenBlock());
  Value address = f32BufferAddress(getKernelArgument(func, KernelArg::Amax));
  Value address64 =
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  auto globalType = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value amax = LLVM::IntToPtrOp::create(b, loc, globalType, address64);
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::umax, amax, largest,
                            LLVM::AtomicOrdering::monotonic);
}
