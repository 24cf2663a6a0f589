//===- Schedule.cpp - what a schedule implies -----------------------------===//

#include "gemmc/Schedule/Schedule.h"
#include "gemmc/Schedule/Registers.h"
#include "gemmc/Schedule/Saturating.h"
#include "gemmc/Schedule/Warpgroup.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <tuple>

using namespace gemmc;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Architectures
//===----------------------------------------------------------------------===//

std::optional<Arch> gemmc::lookupArch(StringRef name) {
  return llvm::StringSwitch<std::optional<Arch>>(name)
      .Case("sm_80", Arch{"sm_80", 163 * 1024, false})
      .Case("sm_86", Arch{"sm_86", 99 * 1024, false})
      .Case("sm_89", Arch{"sm_89", 99 * 1024, false})
      .Case("sm_90", Arch{"sm_90", 227 * 1024, true})
      .Case("sm_90a", Arch{"sm_90a", 227 * 1024, true})
      .Default(std::nullopt);
}

StringRef gemmc::getSupportedArchList() {
  return "sm_80, sm_86, sm_89, sm_90, sm_90a";
}

//===----------------------------------------------------------------------===//
// Problem
//===----------------------------------------------------------------------===//

MatrixLayout Problem::layoutOf(Operand operand) const {
  switch (operand) {
  case Operand::A:
    return aLayout;
  case Operand::B:
    return bLayout;
  case Operand::C:
    return cLayout;
  }
  llvm_unreachable("unknown operand");
}

std::pair<std::optional<int64_t>, std::optional<int64_t>>
Problem::shapeOf(Operand operand) const {
  switch (operand) {
  case Operand::A:
    return {m, k};
  case Operand::B:
    return {k, n};
  case Operand::C:
    return {m, n};
  }
  llvm_unreachable("unknown operand");
}

std::optional<int64_t> Problem::leadingDimension(Operand operand) const {
  auto [rows, cols] = shapeOf(operand);
  return layoutOf(operand) == MatrixLayout::Row ? cols : rows;
}

static MatrixLayout flip(MatrixLayout layout) {
  return layout == MatrixLayout::Row ? MatrixLayout::Col : MatrixLayout::Row;
}

Problem gemmc::transposeProblem(const Problem &p) {
  Problem t = p;
  t.m = p.n;
  t.n = p.m;
  t.a = p.b;
  t.b = p.a;
  t.aLayout = flip(p.bLayout);
  t.bLayout = flip(p.aLayout);
  t.cLayout = flip(p.cLayout);
  if (p.bias)
    t.bias = *p.bias == BiasKind::Row ? BiasKind::Col : BiasKind::Row;
  if (p.batchStrides)
    t.batchStrides = std::array<int64_t, 3>{
        (*p.batchStrides)[1], (*p.batchStrides)[0], (*p.batchStrides)[2]};
  return t;
}

Problem gemmc::computedProblem(const Problem &problem,
                               const Schedule &schedule) {
  return schedule.transpose ? transposeProblem(problem) : problem;
}

//===----------------------------------------------------------------------===//
// Schedule
//===----------------------------------------------------------------------===//

/// The value a field holds, for equality and hashing.
template <typename Field> static auto fieldValue(const Field &field) {
  return field.value;
}
template <typename T>
static std::tuple<bool, bool, bool> fieldValue(const OperandsField<T> &field) {
  return {field.a, field.b, field.c && *field.c};
}

bool Schedule::operator==(const Schedule &other) const {
  bool equal = true;
  visitScheduleFields(
      [&](const auto &mine, const auto &theirs) {
        equal = equal && fieldValue(mine) == fieldValue(theirs);
      },
      *this, other);
  return equal;
}

template <typename T> static llvm::hash_code hashField(const T &value) {
  return llvm::hash_value(value);
}

template <typename T, size_t N>
static llvm::hash_code hashField(const std::array<T, N> &values) {
  return llvm::hash_combine_range(values.begin(), values.end());
}

template <typename T>
static llvm::hash_code hashField(const std::optional<T> &value) {
  if (!value)
    return llvm::hash_value(false);
  return llvm::hash_combine(true, hashField(*value));
}

llvm::hash_code gemmc::hash_value(const Schedule &s) {
  llvm::hash_code hash = llvm::hash_value(0);
  visitScheduleFields(
      [&](const auto &field) {
        hash = llvm::hash_combine(hash, hashField(fieldValue(field)));
      },
      s);
  return hash;
}

namespace {
/// Prints each field that differs from its default (the tile always).
struct FieldPrinter {
  llvm::raw_ostream &os;
  bool first = true;

  llvm::raw_ostream &entry(llvm::StringRef key) {
    os << (first ? "" : ", ") << key;
    first = false;
    return os;
  }
  template <size_t N>
  void printShape(llvm::StringRef key, const std::array<int64_t, N> &shape) {
    entry(key) << " = ";
    llvm::interleave(shape, os, "x");
  }
  template <size_t N>
  void operator()(ShapeField<const std::array<int64_t, N>> f) {
    printShape(f.key, f.value);
  }
  template <size_t N>
  void operator()(ShapeField<const std::optional<std::array<int64_t, N>>> f) {
    if (f.value)
      printShape(f.key, *f.value);
  }
  template <size_t N>
  void operator()(ListField<const std::optional<std::array<int64_t, N>>> f) {
    if (!f.value)
      return;
    entry(f.key) << " = [";
    llvm::interleaveComma(*f.value, os);
    os << "]";
  }
  void operator()(FlagField<const bool> f) {
    if (f.value)
      entry(f.key);
  }
  void operator()(IntField<const int64_t> f) {
    if (f.value != f.defaultValue)
      entry(f.key) << " = " << f.value;
  }
  void operator()(OptionalIntField<const std::optional<int64_t>> f) {
    if (!f.value)
      return;
    entry(f.key) << " = ";
    if (*f.value == 0 && !f.zeroKeyword.empty())
      os << f.zeroKeyword;
    else
      os << *f.value;
  }
  void operator()(OperandsField<const bool> f) {
    llvm::SmallVector<llvm::StringRef, 3> names;
    if (f.a)
      names.push_back("a");
    if (f.b)
      names.push_back("b");
    if (f.c && *f.c)
      names.push_back("c");
    if (names.empty())
      return;
    entry(f.key) << " = [";
    llvm::interleaveComma(names, os);
    os << "]";
  }
};
} // namespace

void gemmc::printScheduleFields(llvm::raw_ostream &os, const Schedule &s) {
  visitScheduleFields(FieldPrinter{os}, s);
}

int64_t Schedule::threadsPerBlock() const {
  if (hasWgmma())
    return satMul(kWarpgroupSize, satAdd(consumers.value_or(1), 1));
  if (hasMma())
    return satMul(kWarpSize, satMul(bm() / wm(), bn() / wn()));
  return satMul(threadsPerSlice(), slices());
}

int64_t Schedule::threadsPerSlice() const {
  return satMul(bm() / tm(), bn() / tn());
}

int64_t Schedule::slicesPerWarp() const {
  int64_t perSlice = threadsPerSlice();
  if (slices() < 2 || perSlice <= 0 || perSlice >= kWarpSize ||
      kWarpSize % perSlice)
    return 1;
  return kWarpSize / perSlice;
}

int64_t Schedule::innerSteps() const {
  if (hasWgmma())
    return bk() / (*wgmma)[2];
  return hasMma() ? bk() / (*mma)[2] : bk();
}

int64_t Schedule::tileRegisters() const {
  return gemmc::tileRegisters(hasMma(), tm(), tn(), wm(), wn());
}

int64_t Schedule::registerCap() const {
  if (blocksPerSM)
    return gemmc::registerCapFor(threadsPerBlock(), *blocksPerSM);
  return gemmc::registerCap(threadsPerBlock(), tileRegisters());
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

int64_t SharedBuffer::bytes() const {
  return satMul(satMul(stages, satMul(rows, cols + pad)), sizeInBytes(type));
}

int64_t SharedMemory::bytesPerStage() const {
  int64_t bytes = 0;
  for (const SharedBuffer &buffer : buffers)
    bytes = satAdd(bytes, satMul(satMul(buffer.rows, buffer.cols + buffer.pad),
                                 sizeInBytes(buffer.type)));
  return bytes;
}

int64_t SharedMemory::offsetOf(size_t i) const {
  int64_t offset = 0;
  for (size_t j = 0; j < i && j < buffers.size(); ++j)
    offset = satAdd(offset,
                    llvm::alignTo(buffers[j].bytes(), kSharedBufferAlignment));
  return offset;
}

int64_t SharedMemory::totalBytes() const { return offsetOf(buffers.size()); }

SharedMemory gemmc::getSharedMemory(const Schedule &s, ElementType a,
                                    ElementType b) {
  SharedMemory shared;
  // A is staged BM x BK, or BK x BM (K-major) with transpose-a.
  if (s.promoteA)
    shared.buffers.push_back({Operand::A, s.stages,
                              s.transposeA ? s.bk() : s.bm(),
                              s.transposeA ? s.bm() : s.bk(), s.pad, a});
  if (s.promoteB)
    shared.buffers.push_back({Operand::B, s.stages, s.bk(), s.bn(), s.pad, b});
  // The sums of slices 1 to S - 1 (`slice-k`), which slice 0 adds to its
  // own: a BM x BN f32 tile each, or each warp's but the first where a
  // warp's slices add theirs up by shuffles.
  if (s.sliceSums() > 1)
    shared.buffers.push_back(
        {Operand::C, s.sliceSums() - 1, s.bm(), s.bn(), 0, ElementType::F32});
  return shared;
}

int64_t gemmc::estimateOccupancy(const Problem &p, const Schedule &s) {
  constexpr int64_t kBlocksPerSM = 32, kSharedPerSM = 233472,
                    kReservedPerBlock = 1024;
  int64_t threads = std::max<int64_t>(s.threadsPerBlock(), 1);
  int64_t shared, registers;
  if (s.hasWgmma()) {
    WarpgroupKernel k = getWarpgroupKernel(p, s);
    shared = k.sharedBytes;
    // The consumers' accumulators (and tf32x3's sums) and the rest, the
    // allocation's multiple of 8.
    registers = std::min<int64_t>(
        llvm::alignTo(k.liveValues() + kConsumerOverheadRegisters, 8),
        kMaxRegistersPerThread);
  } else {
    shared = getSharedMemory(s, p.a, p.b).totalBytes();
    registers = s.registerCap();
  }
  int64_t blocks = std::min(kMaxThreadsPerSM / threads, kBlocksPerSM);
  blocks = std::min(blocks, kRegistersPerSM / (threads * registers));
  blocks = std::min(blocks, kSharedPerSM / (shared + kReservedPerBlock));
  return std::max<int64_t>(blocks, 1);
}
