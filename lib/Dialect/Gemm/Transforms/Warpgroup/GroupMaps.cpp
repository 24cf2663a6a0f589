//===- GroupMaps.cpp - the general form's tensor maps, made on the device -===//
//
// With `groups = ? ptr-array` each group's A and B lie at addresses, with
// sizes and leading dimensions, read from the group table on the device:
// no tensor map the host encodes describes them. With `tma a b` the
// producer's issuer makes them, as CUTLASS's pointer-array grouped GEMM
// does: the kernel's `tmap-A` and `tmap-B` are templates (element type,
// box, swizzle; any matrix), and where a block meets a new group its issuer
// copies each template into a slot of global memory, replaces its address,
// sizes and row stride with the group's (`tensormap.replace`), and fences
// the tensormap proxy (release, then acquire on each map) before TMA reads
// it. Reads past a group's rows, columns or K fill zeros, as the host's
// maps' do.
//
// The slots: a pool in the module's global memory, 256 bytes a slot (A's
// map, B's), zero at load, with a word a slot that says it is taken. A
// block's issuer takes a free one when it starts (an atomic exchange from
// slot blockIdx.x on) and gives it back at its end, so that neither a
// workspace argument nor the runtime is involved, and launches on several
// streams, or replayed from CUDA graphs, never share a slot. The pool holds
// kMapSlots: more than the blocks of a kernel resident at once on any GPU
// (one or two a multiprocessor), whatever the launches in flight.
//
// A map is rewritten only once the copies that read it landed: at a new
// group, the issuer first waits for the "full" barriers of the pipeline's
// last `stages` iterations (those a copy of the group before may still
// fill); before giving the slot back, for the consumers' release of the
// stages.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::gemm;
using namespace mlir::gemm::warpgroup;

/// Slots in the pool, and bytes a slot (A's map, then B's).
static constexpr int64_t kMapSlots = 1024;
static constexpr int64_t kMapBytes = 128;
static constexpr int64_t kMapSlotBytes = 2 * kMapBytes;

/// Defines `name`, a zero array of `type` in global memory, in the kernel's
/// module unless it is there.
static void defineZeroGlobal(OpBuilder &b, Location loc,
                             gpu::GPUModuleOp module, StringRef name, Type type,
                             int64_t alignment) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto global = LLVM::GlobalOp::create(
      b, loc, type, /*isConstant=*/false, LLVM::Linkage::Internal, name,
      /*value=*/Attribute(), alignment, /*addrSpace=*/1);
  Block *init = b.createBlock(&global.getInitializerRegion());
  b.setInsertionPointToStart(init);
  Value zero = LLVM::ZeroOp::create(b, loc, type);
  LLVM::ReturnOp::create(b, loc, zero);
}

void KernelBuilder::claimMapSlot() {
  MLIRContext *ctx = b.getContext();
  auto gpuModule = func->getParentOfType<gpu::GPUModuleOp>();
  // A module's kernels each have their own pool (a family's variants in
  // one PTX module).
  std::string poolName = (func.getName() + "_group_maps").str();
  std::string takenName = (func.getName() + "_group_maps_taken").str();
  Type i8Type = b.getI8Type();
  Type i32Type = b.getI32Type();
  Type i64Type = b.getI64Type();
  defineZeroGlobal(b, loc, gpuModule, poolName,
                   LLVM::LLVMArrayType::get(i8Type, kMapSlots * kMapSlotBytes),
                   kMapBytes);
  defineZeroGlobal(b, loc, gpuModule, takenName,
                   LLVM::LLVMArrayType::get(i32Type, kMapSlots), 4);
  auto globalType = LLVM::LLVMPointerType::get(ctx, 1);
  Value pool = LLVM::AddressOfOp::create(b, loc, globalType, poolName);
  Value taken = LLVM::AddressOfOp::create(b, loc, globalType, takenName);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value first = arith::RemUIOp::create(b, loc, block, index(kMapSlots));
  Type indexType = b.getIndexType();
  auto search = scf::WhileOp::create(
      b, loc, TypeRange{indexType}, ValueRange{first},
      [&](OpBuilder &ob, Location l, ValueRange state) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        Value slot64 = arith::IndexCastUIOp::create(b, loc, i64Type, state[0]);
        Value flag = LLVM::GEPOp::create(b, loc, globalType, i32Type, taken,
                                         ValueRange{slot64});
        Value was =
            LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::xchg, flag,
                                      i32(1), LLVM::AtomicOrdering::acquire);
        Value busy = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                           was, i32(0));
        scf::ConditionOp::create(b, loc, busy, state);
      },
      [&](OpBuilder &ob, Location l, ValueRange state) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        Value next = arith::AddIOp::create(b, loc, state[0], index(1));
        Value wrapped = arith::RemUIOp::create(b, loc, next, index(kMapSlots));
        scf::YieldOp::create(b, loc, wrapped);
      });
  mapSlot = search.getResult(0);
  // (NVPTX emits the exchange relaxed whatever its ordering: the fences
  // order the slot's last owner's accesses before this one's.)
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, "device");
  Value slot64 = arith::IndexCastUIOp::create(b, loc, i64Type, mapSlot);
  Value bytes = arith::MulIOp::create(b, loc, slot64, i64(kMapSlotBytes));
  slotA =
      LLVM::GEPOp::create(b, loc, globalType, i8Type, pool, ValueRange{bytes});
  slotB = LLVM::GEPOp::create(b, loc, globalType, i8Type, slotA,
                              ArrayRef<LLVM::GEPArg>{kMapBytes});
  // TMA reads a map by its generic address.
  auto genericType = LLVM::LLVMPointerType::get(ctx);
  templateA = mapA;
  templateB = mapB;
  mapA = LLVM::AddrSpaceCastOp::create(b, loc, genericType, slotA);
  mapB = LLVM::AddrSpaceCastOp::create(b, loc, genericType, slotB);
}

void KernelBuilder::releaseMapSlot(Value end) {
  waitForLastReleases(end);
  auto globalType = LLVM::LLVMPointerType::get(b.getContext(), 1);
  std::string takenName = (func.getName() + "_group_maps_taken").str();
  Value taken = LLVM::AddressOfOp::create(b, loc, globalType, takenName);
  Value slot64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), mapSlot);
  Value flag = LLVM::GEPOp::create(b, loc, globalType, b.getI32Type(), taken,
                                   ValueRange{slot64});
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "device");
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::xchg, flag, i32(0),
                            LLVM::AtomicOrdering::release);
}

/// Writes into `slot` (global memory) the template map at `from` with the
/// matrix at `address` (i64) of `inner` x `outer` elements (i32; the
/// contiguous dimension first), rows `strideBytes` (i64) apart.
static void writeMap(OpBuilder &b, Location loc, Value from, Value slot,
                     Value address, Value inner, Value outer,
                     Value strideBytes) {
  auto words = VectorType::get({2}, b.getI64Type());
  Type i8Type = b.getI8Type();
  for (int64_t at = 0; at < kMapBytes; at += 16) {
    Value source = LLVM::GEPOp::create(b, loc, from.getType(), i8Type, from,
                                       ArrayRef<LLVM::GEPArg>{at});
    Value word = LLVM::LoadOp::create(b, loc, words, source, /*alignment=*/16);
    Value target = LLVM::GEPOp::create(b, loc, slot.getType(), i8Type, slot,
                                       ArrayRef<LLVM::GEPArg>{at});
    LLVM::StoreOp::create(b, loc, word, target, /*alignment=*/16);
  }
  auto replace = [&](StringRef field, ValueRange args) {
    LLVM::CallIntrinsicOp::create(
        b, loc, b.getStringAttr("llvm.nvvm.tensormap.replace." + field.str()),
        args);
  };
  // (The ordinals are immediates: constants, not values.)
  Value dim0 = arith::ConstantIntOp::create(b, loc, 0, 32);
  Value dim1 = arith::ConstantIntOp::create(b, loc, 1, 32);
  replace("global.address", {slot, address});
  replace("global.dim", {slot, dim0, inner});
  replace("global.dim", {slot, dim1, outer});
  // Stride 0 is dimension 1's, in bytes.
  replace("global.stride", {slot, dim0, strideBytes});
}

void KernelBuilder::mapTileGroup(Value tile, Value it0) {
  // The block's tile before this one (tile - the walk's step) lay in an
  // earlier group, or there was none.
  Value inGroup = arith::SubIOp::create(b, loc, tile, cursor.tilesBefore);
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        inGroup, walkStep);
  auto ifFirst = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
  // The copies in flight: those of the last `stages` iterations (earlier
  // ones' stages were released, so they landed).
  Value inFlight = arith::MinUIOp::create(b, loc, it0, index(k.stages));
  Value oldest = arith::SubIOp::create(b, loc, it0, inFlight);
  auto drain = scf::ForOp::create(b, loc, oldest, it0, index(1));
  {
    OpBuilder::InsertionGuard inDrain(b);
    b.setInsertionPointToStart(drain.getBody());
    auto [stage, parity] = stageAndPhase(drain.getInductionVar());
    Value full = barrier(k.fullBarrierOffset, stage);
    NVVM::MBarrierTryWaitParityOp::create(b, loc, full, parity,
                                          i32(kWaitHintNs));
  }
  using gemmc::GroupColumn;
  Value g = cursor.group;
  Type i32Type = b.getI32Type();
  // (A group of K 0 copies nothing, but its maps are made: each size at
  // least 1, a map the driver would take.)
  auto size32 = [&](GroupColumn column) -> Value {
    Value size = tableSize(g, column);
    Value atLeastOne = arith::MaxUIOp::create(b, loc, size, index(1));
    return arith::IndexCastUIOp::create(b, loc, i32Type, atLeastOne);
  };
  auto strideBytes = [&](GroupColumn column) -> Value {
    Value ld = tableEntry(g, column);
    return arith::MulIOp::create(b, loc, ld, i64(k.elementBytes));
  };
  Value rows = size32(GroupColumn::M);
  Value cols = size32(GroupColumn::N);
  Value depth = size32(GroupColumn::K);
  // A is M x K, K contiguous where it is K-major; B K x N, likewise.
  Value addressA = tableEntry(g, GroupColumn::A);
  Value strideA = strideBytes(GroupColumn::Lda);
  writeMap(b, loc, templateA, slotA, addressA, k.a.kMajor ? depth : rows,
           k.a.kMajor ? rows : depth, strideA);
  Value addressB = tableEntry(g, GroupColumn::B);
  Value strideB = strideBytes(GroupColumn::Ldb);
  writeMap(b, loc, templateB, slotB, addressB, k.b.kMajor ? depth : cols,
           k.b.kMajor ? cols : depth, strideB);
  NVVM::FenceProxyReleaseOp::create(b, loc, NVVM::MemScopeKind::GPU);
  for (Value map : {mapA, mapB})
    NVVM::FenceProxyAcquireOp::create(b, loc, NVVM::MemScopeKind::GPU, map,
                                      i32(kMapBytes));
}
