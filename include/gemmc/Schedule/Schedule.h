//===- Schedule.h - the schedule model: one home for a schedule's facts -*- C++
//-*-===//
//
// A GEMM problem and the schedule that maps it onto the GPU, as plain data,
// with everything that follows from them: threads per block, shared memory,
// the register estimate and cap, the per-architecture limits, and the rules
// a schedule must satisfy (with their diagnostics). The front end's checks,
// the gemm dialect's verifiers and attribute, the passes and the driver all
// ask this model; it needs LLVM's ADT only (no MLIR), so tools such as the
// schedule fuzzer can link it alone.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_SCHEDULE_SCHEDULE_H
#define GEMMC_SCHEDULE_SCHEDULE_H

#include "gemmc/Schedule/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <array>
#include <optional>
#include <string>

namespace gemmc {

//===----------------------------------------------------------------------===//
// Architectures
//===----------------------------------------------------------------------===//

/// What the model needs to know of a GPU architecture.
struct Arch {
  llvm::StringRef name;
  /// Shared memory one block may use, in bytes.
  int64_t sharedMemoryLimit = 0;
  /// sm_90 and sm_90a.
  bool hopper = false;
};

/// The architecture named `name` (sm_80, sm_86, sm_89, sm_90, sm_90a), or
/// std::nullopt.
std::optional<Arch> lookupArch(llvm::StringRef name);

/// The architectures gemmc compiles for, for messages: "sm_80, sm_86, ...".
llvm::StringRef getSupportedArchList();

/// Above this, a block's shared memory is dynamic and requested at launch.
inline constexpr int64_t kStaticSharedMemoryLimit = 48 * 1024;

/// Threads a block may have, a multiprocessor may hold, and lanes of a
/// warp.
inline constexpr int64_t kMaxThreadsPerBlock = 1024;
inline constexpr int64_t kMaxThreadsPerSM = 2048;
inline constexpr int64_t kWarpSize = 32;
/// Four consecutive warps that issue wgmma together.
inline constexpr int64_t kWarpgroupSize = 128;

/// Shared-memory buffers start at multiples of this many bytes.
inline constexpr int64_t kSharedBufferAlignment = 16;

//===----------------------------------------------------------------------===//
// Problem
//===----------------------------------------------------------------------===//

enum class Operand { A, B, C };

/// The GEMM: C = A * B, then the epilogue.
struct Problem {
  /// Sizes; std::nullopt for `?` (given at launch, with the leading
  /// dimensions and a batch's strides).
  std::optional<int64_t> m, n, k;
  ElementType a = ElementType::F32, b = ElementType::F32, c = ElementType::F32,
              acc = ElementType::F32;
  MatrixLayout aLayout = MatrixLayout::Row, bLayout = MatrixLayout::Row,
               cLayout = MatrixLayout::Row;
  /// `math = tf32`: f32 inputs rounded to tf32 on tensor cores.
  bool tf32 = false;
  /// `math = tf32x3` (tf32 too): each f32 input split into a tf32 part and
  /// a tf32 remainder, three mma.sync per pair of fragments.
  bool tf32x3 = false;
  /// `math = fast-accumulate` (FP8 inputs): the k tiles' products summed
  /// on the tensor cores throughout, not each tile's sum added in f32.
  bool fastAccumulate = false;
  /// `epilogue = alpha-beta`: C = alpha * A * B + beta * C.
  bool alphaBeta = false;
  std::optional<BiasKind> bias;
  /// `scales = tensor | rowwise`: A's and B's dequantisation scales.
  std::optional<ScaleKind> scales;
  /// `activation = ...`, applied after the bias.
  Activation activation = Activation::None;
  /// `residual = add`: then plus R, an M x N matrix of C's type, layout,
  /// leading dimension and batch stride (a transformer's skip connection).
  bool residual = false;
  /// `amax = c`: the kernel writes max |C| over the values it stores,
  /// taken before their cast to C's type (f32; the scale FP8's next step
  /// needs, as cuBLASLt's AMAX_D), to a scalar given at launch.
  bool amax = false;
  /// `output-scale = tensor`: the values stored to an FP8 C are multiplied
  /// by one f32 given at launch just before their cast (the amax is of
  /// them before it), as cuBLASLt's D scale and torch._scaled_mm's
  /// scale_result.
  bool outputScale = false;
  /// A batch: `batchCount` GEMMs (std::nullopt: given at launch), A, B and
  /// C `batchStrides` elements apart (dense where not given).
  bool batched = false;
  std::optional<int64_t> batchCount;
  std::optional<std::array<int64_t, 3>> batchStrides;
  /// Grouped GEMM, the mixture-of-experts form (`groups = G`): `groupCount`
  /// GEMMs (std::nullopt: given at launch) that share N and K. A is M x K,
  /// the groups' rows one after the other; B is `groupCount` K x N
  /// matrices, one a group, dense one after the other; C is M x N. Where
  /// each group's rows end comes at launch, on the device: the kernel's
  /// `offsets` (i32, one a group, cumulative, as torch._grouped_mm's
  /// `offs`), so that group g has rows [offsets[g-1], offsets[g]) of A and
  /// C (from 0 for the first); rows past the last are left as they are.
  bool grouped = false;
  std::optional<int64_t> groupCount;
  /// The general form (`groups = G ptr-array`, CUTLASS's pointer-array
  /// grouped GEMM): each group its own M, N and K, matrices and leading
  /// dimensions, read on the device from the kernel's group table (i64,
  /// kGroupTableColumns a group: gemmc-contract/Contract.h) in place of the
  /// offsets; the problem's sizes are `?` and A, B and C stand for their
  /// types and layouts alone.
  bool groupTable = false;

  bool isDynamic() const { return !m || !n || !k; }
  MatrixLayout layoutOf(Operand operand) const;
  /// Rows and columns of `operand` (M x K, K x N, M x N).
  std::pair<std::optional<int64_t>, std::optional<int64_t>>
  shapeOf(Operand operand) const;
  /// The leading dimension of `operand` where the sizes are static.
  std::optional<int64_t> leadingDimension(Operand operand) const;
  /// The batch stride of `operand` where it is declared (a dense batch's
  /// matrices start where their leading dimensions allow).
  std::optional<int64_t> batchStride(Operand operand) const {
    if (!batchStrides)
      return std::nullopt;
    return (*batchStrides)[static_cast<int>(operand)];
  }
};

/// The transposed problem C^T = B^T * A^T: N x M x K, its A the problem's
/// B read the other way round (a row-major B is a column-major B^T), its B
/// A^T, its C C^T; a bias along the other side, the batch strides swapped.
/// The same computation on the same memory. (The contract library's
/// transposeProblem is this for its own Problem, the launcher's, which has
/// leading dimensions and no optional sizes.)
Problem transposeProblem(const Problem &problem);

//===----------------------------------------------------------------------===//
// Schedule
//===----------------------------------------------------------------------===//

/// A schedule's directives with their defaults filled in: the one options
/// struct that the front end builds, the gemm dialect's ScheduleAttr holds,
/// and the passes read.
struct Schedule {
  /// `tile BMxBNxBK`: a block computes BM x BN of C, BK along K at a time.
  std::array<int64_t, 3> tile = {1, 1, 1};
  /// `coalesce`: consecutive threads along C's contiguous dimension.
  bool coalesce = false;
  /// `register-tile TMxTN` (each thread's elements of C) and `warp-tile
  /// WMxWN` (each warp's).
  std::optional<std::array<int64_t, 2>> registerTile, warpTile;
  /// `promote`: tiles of A and B staged in shared memory, rows padded by
  /// `pad` elements or XOR-swizzled, A stored K-major with `transposeA`.
  bool promoteA = false, promoteB = false;
  int64_t pad = 0;
  bool swizzle = false, transposeA = false;
  /// `vectorize`: elements per global load, shared load, shared store and
  /// global store; `globalLoadB`, B's global loads where they differ from
  /// A's (`vectorize global-load a 8 global-load b 1`).
  std::optional<std::array<int64_t, 4>> vectorize;
  std::optional<int64_t> globalLoadB;
  /// `pipeline`: shared-memory stages, double-buffered fragments, cp.async.
  int64_t stages = 1;
  bool registerDoubleBuffer = false, cpAsync = false;
  /// `raster G`, `unroll N` (0: full), `split-k S` (0: `split-k ?`, the
  /// splits chosen at launch).
  std::optional<int64_t> raster, unroll, splitK;
  /// `slice-k S`: S groups of the block's threads (slices) each take every
  /// S-th step of its loop over K, their sums added in shared memory.
  std::optional<int64_t> sliceK;
  /// `blocks-per-sm N`: the register cap gives N blocks of the kernel a
  /// multiprocessor (Schedule::registerCap), where the model's own choice
  /// is two blocks' worth when the tiles fit that, else one.
  std::optional<int64_t> blocksPerSM;
  /// `mma mMnNkK`: tensor-core mma.sync of this shape.
  std::optional<std::array<int64_t, 3>> mma;
  /// `edges split`: guarded copies lowered twice, unguarded inside.
  bool splitEdges = false;
  /// `wgmma mMnNkK`: Hopper's warpgroup MMA of this shape (sm_90a), reading
  /// A and B from shared memory (gemmc/Schedule/Warpgroup.h).
  std::optional<std::array<int64_t, 3>> wgmma;
  /// `wgmma ... registers`: the consumers load their rows of A's tile from
  /// shared memory into registers, which wgmma reads; A's tile lies as the
  /// matrix holds it, M-major too (tf32).
  bool wgmmaRegistersA = false;
  /// `tma a b [c]`: tiles of A and B copied by the tensor memory
  /// accelerator into 128-byte-swizzled shared memory, completing on
  /// mbarriers; with `c`, C stored through shared memory by TMA.
  bool tmaA = false, tmaB = false, tmaC = false;
  /// `warp-specialize N`: a producer warpgroup issues the copies, N consumer
  /// warpgroups the wgmma. With `ping-pong` each consumer computes whole
  /// tiles of the block's walk, in turn (the first consumer the block's
  /// first tile, the second its second, ...): one's epilogue runs while
  /// the other's wgmma do; otherwise they share each tile, BM / N rows
  /// each.
  std::optional<int64_t> consumers;
  bool pingPong = false;
  /// `persistent`: one block per multiprocessor, looping over the tiles;
  /// with `stream-k` the blocks share out the tiles' K steps evenly, a
  /// tile's pieces summed by the block that finishes it last.
  bool persistent = false, streamK = false;
  /// `cluster CMxCN`: thread-block clusters of CM tile rows by CN tile
  /// columns; the blocks of a row share A's tile and those of a column
  /// B's, each copying a slice that TMA multicasts to all of them.
  std::optional<std::array<int64_t, 2>> cluster;
  /// `transpose`: the kernel computes C^T = B^T * A^T, the problem
  /// transposed (transposeProblem): its A is B^T, its B A^T, its rows run
  /// along N. Every other directive is of that problem; the contract
  /// states the problem the user wrote, with `transposed`.
  bool transpose = false;

  bool operator==(const Schedule &other) const;
  bool operator!=(const Schedule &other) const { return !(*this == other); }

  int64_t bm() const { return tile[0]; }
  int64_t bn() const { return tile[1]; }
  int64_t bk() const { return tile[2]; }
  /// The register tile, 1x1 without one.
  int64_t tm() const { return registerTile ? (*registerTile)[0] : 1; }
  int64_t tn() const { return registerTile ? (*registerTile)[1] : 1; }
  /// The warp tile, 0x0 without one.
  int64_t wm() const { return warpTile ? (*warpTile)[0] : 0; }
  int64_t wn() const { return warpTile ? (*warpTile)[1] : 0; }
  bool hasMma() const { return mma.has_value(); }
  bool hasWgmma() const { return wgmma.has_value(); }
  /// Whether TMA copies A or B.
  bool hasTma() const { return tmaA || tmaB; }
  /// The cluster's tile rows and columns, and blocks (1 without one).
  int64_t clusterM() const { return cluster ? (*cluster)[0] : 1; }
  int64_t clusterN() const { return cluster ? (*cluster)[1] : 1; }
  int64_t clusterSize() const { return clusterM() * clusterN(); }
  bool hasPromotion() const { return promoteA || promoteB; }
  /// The blocks that share a tile of C along K (`split-k S`): S, 1
  /// without split-K, 0 where the launch chooses them (`split-k ?`: the
  /// grid's z).
  int64_t splits() const { return splitK.value_or(1); }
  bool splitsK() const { return splitK.has_value(); }
  bool splitsAtLaunch() const { return splitK == 0; }
  /// The slices of a block that share its tile of C along K (`slice-k S`):
  /// S, 1 without.
  int64_t slices() const { return sliceK.value_or(1); }
  /// The threads of one slice: one per register tile of the block tile.
  int64_t threadsPerSlice() const;
  /// The slices that share a warp: 32 / threadsPerSlice() where a slice is
  /// fewer threads than a warp (they add their sums up by shuffles), 1
  /// where it is whole warps.
  int64_t slicesPerWarp() const;
  /// The sums that meet in shared memory after the loop over K: one per
  /// warp's worth of slices (slices() / slicesPerWarp()), slice 0's among
  /// them; 1 without `slice-k`.
  int64_t sliceSums() const { return slices() / slicesPerWarp(); }
  /// Whether the kernel takes split-K's (or stream-K's) workspace of
  /// partial tiles and their counters.
  bool usesWorkspace() const { return splitK.has_value() || streamK; }
  /// One split's partial tile in split-K's (or stream-K's) workspace: BM x
  /// BN floats (0 without one).
  int64_t partialFloats() const { return usesWorkspace() ? bm() * bn() : 0; }
  /// Split-K's workspace per tile of C: the f32 partial tiles of its splits
  /// (splits x BM x BN floats), besides one arrival counter; 0 without
  /// split-K, or where the launch chooses the splits.
  int64_t workspaceFloatsPerTile() const { return splits() * partialFloats(); }
  bool isPipelined() const {
    return stages != 1 || registerDoubleBuffer || cpAsync;
  }
  /// Elements per global load of `operand`'s tiles (A or B).
  int64_t globalLoadWidth(Operand operand) const {
    if (operand == Operand::B && globalLoadB)
      return *globalLoadB;
    return vectorize ? (*vectorize)[0] : 1;
  }
  /// Elements per store of `operand`'s tile into shared memory: the
  /// shared-store width, or the operand's global-load width where that is
  /// narrower (a piece is stored in parts, never wider than it was loaded).
  int64_t sharedStoreWidth(Operand operand) const {
    return std::min(sharedStoreWidth(), globalLoadWidth(operand));
  }
  int64_t sharedLoadWidth() const { return vectorize ? (*vectorize)[1] : 1; }
  /// Whether a register tile reads A and B from global memory itself, no
  /// operand staged in shared memory (`register-tile` without `promote`):
  /// its loop over K then steps K itself, which `unroll` unrolls by a
  /// factor.
  bool readsGlobalInRegisterTile() const {
    return registerTile && !warpTile && !hasMma() && !hasWgmma() &&
           !hasPromotion();
  }
  /// Elements per read of a register tile's fragments: from shared memory
  /// at the shared-load width, or straight from global memory (no
  /// `promote`) at the global-load width.
  int64_t registerLoadWidth() const {
    return readsGlobalInRegisterTile() ? globalLoadWidth(Operand::A)
                                       : sharedLoadWidth();
  }
  int64_t sharedStoreWidth() const { return vectorize ? (*vectorize)[2] : 1; }
  int64_t globalStoreWidth() const { return vectorize ? (*vectorize)[3] : 1; }

  /// Threads per block: one per register tile of the block tile in each
  /// K slice, a warp per warp tile with mma, or a warpgroup of 128 per
  /// consumer and one for the producer with wgmma. Saturates rather than
  /// overflows.
  int64_t threadsPerBlock() const;
  /// Steps of the inner loop over BK: BK, or BK / K of the mma shape.
  int64_t innerSteps() const;
  /// The width of the kernel's index arithmetic: 64 bits where it uses
  /// nvgpu's ops (mma.sync, ldmatrix, cp.async), whose lowering computes in
  /// 64 bits, else 32.
  unsigned indexBitwidth() const {
    return hasMma() || hasWgmma() || cpAsync ? 64 : 32;
  }

  /// The registers of the accumulators and of one step's operand fragments
  /// that the register cap weighs (gemmc/Schedule/Registers.h).
  int64_t tileRegisters() const;
  /// The registers a thread of this schedule's kernel may use: the
  /// `nvvm.maxnreg` gemm-tile-blocks sets where below 255.
  int64_t registerCap() const;
};

llvm::hash_code hash_value(const Schedule &schedule);

//===----------------------------------------------------------------------===//
// The spelling of a schedule's fields in `#gemm.schedule<...>`
//===----------------------------------------------------------------------===//

/// One field of a schedule as `#gemm.schedule<...>` spells it, by kind.
/// `T` is the field's type, const where the schedule is. `key = AxBxC` (a
/// fixed or optional shape):
template <typename T> struct ShapeField {
  llvm::StringRef key;
  T &value;
};
/// `key = [w, x, y, z]` (an optional list):
template <typename T> struct ListField {
  llvm::StringRef key;
  T &value;
};
/// `key` alone (a flag):
template <typename T> struct FlagField {
  llvm::StringRef key;
  T &value;
};
/// `key = N`, printed when not the default:
template <typename T> struct IntField {
  llvm::StringRef key;
  T &value;
  int64_t defaultValue;
};
/// `key = N` where set, `key = ZERO` for 0 when a keyword is given:
template <typename T> struct OptionalIntField {
  llvm::StringRef key;
  T &value;
  llvm::StringRef zeroKeyword;
};
/// `key = [a, b]`: which of A and B (and C, where the field has `c`):
template <typename T> struct OperandsField {
  llvm::StringRef key;
  T &a, &b;
  T *c = nullptr;
};

/// Calls `visit` on each field of the schedules `s` (one or more, const or
/// not; `visit` gets the field of each), in the order `#gemm.schedule<...>`
/// prints them. Equality, hashing, and the attribute's printer and parser
/// (GemmAttrs.cpp) are written once over these kinds: a new field is one
/// line here.
template <typename Visitor, typename... S>
void visitScheduleFields(Visitor &&visit, S &...s) {
  auto shape = [](llvm::StringRef k, auto &v) {
    return ShapeField<std::remove_reference_t<decltype(v)>>{k, v};
  };
  auto list = [](llvm::StringRef k, auto &v) {
    return ListField<std::remove_reference_t<decltype(v)>>{k, v};
  };
  auto flag = [](llvm::StringRef k, auto &v) {
    return FlagField<std::remove_reference_t<decltype(v)>>{k, v};
  };
  auto integer = [](llvm::StringRef k, auto &v, int64_t d) {
    return IntField<std::remove_reference_t<decltype(v)>>{k, v, d};
  };
  auto optional = [](llvm::StringRef k, auto &v, llvm::StringRef zero = "") {
    return OptionalIntField<std::remove_reference_t<decltype(v)>>{k, v, zero};
  };
  auto operands = [](llvm::StringRef k, auto &a, auto &b,
                     decltype(&a) c = nullptr) {
    return OperandsField<std::remove_reference_t<decltype(a)>>{k, a, b, c};
  };
  visit(shape("tile", s.tile)...);
  visit(flag("coalesce", s.coalesce)...);
  visit(shape("register_tile", s.registerTile)...);
  visit(shape("warp_tile", s.warpTile)...);
  visit(operands("promote", s.promoteA, s.promoteB)...);
  visit(integer("pad", s.pad, 0)...);
  visit(flag("transpose_a", s.transposeA)...);
  visit(flag("swizzle", s.swizzle)...);
  visit(list("vectorize", s.vectorize)...);
  visit(optional("global_load_b", s.globalLoadB)...);
  visit(integer("stages", s.stages, 1)...);
  visit(flag("registers", s.registerDoubleBuffer)...);
  visit(flag("cp_async", s.cpAsync)...);
  visit(optional("raster", s.raster)...);
  visit(optional("unroll", s.unroll, "full")...);
  visit(shape("mma", s.mma)...);
  visit(optional("split_k", s.splitK, "?")...);
  visit(optional("slice_k", s.sliceK)...);
  visit(optional("blocks_per_sm", s.blocksPerSM)...);
  visit(flag("split_edges", s.splitEdges)...);
  visit(shape("wgmma", s.wgmma)...);
  visit(flag("wgmma_registers", s.wgmmaRegistersA)...);
  visit(operands("tma", s.tmaA, s.tmaB, &s.tmaC)...);
  visit(optional("warp_specialize", s.consumers)...);
  visit(flag("ping_pong", s.pingPong)...);
  visit(flag("persistent", s.persistent)...);
  visit(flag("stream_k", s.streamK)...);
  visit(shape("cluster", s.cluster)...);
  visit(flag("transpose", s.transpose)...);
}

/// The body of `#gemm.schedule<...>`: `tile = 128x128x8, coalesce, ...`.
void printScheduleFields(llvm::raw_ostream &os, const Schedule &schedule);

/// A promoted operand's shared-memory buffer: `stages` tiles of
/// rows x (cols + pad) elements; for C, the sums of the K slices but the
/// first (`slice-k`), one tile a slice.
struct SharedBuffer {
  Operand operand;
  int64_t stages, rows, cols, pad;
  ElementType type;

  /// Bytes of all stages, before alignment.
  int64_t bytes() const;
};

/// The shared memory of a block: one buffer per promoted operand (A first),
/// or the K slices' sums, each starting at a multiple of
/// kSharedBufferAlignment.
struct SharedMemory {
  llvm::SmallVector<SharedBuffer, 2> buffers;

  /// Bytes of one stage of every buffer, unaligned (for messages).
  int64_t bytesPerStage() const;
  /// The offset of buffer `i` and the whole size, alignment included.
  int64_t offsetOf(size_t i) const;
  int64_t totalBytes() const;
  /// Whether the buffers exceed the static limit and are carved out of the
  /// dynamic shared memory requested at launch.
  bool isDynamic() const { return totalBytes() > kStaticSharedMemoryLimit; }
};

/// The shared memory `schedule` needs for A and B of types `a` and `b`.
SharedMemory getSharedMemory(const Schedule &schedule, ElementType a,
                             ElementType b);

/// Blocks of the kernel of `schedule` a multiprocessor holds at once, the
/// estimate the contract states and the cost model uses, when fitting and
/// at run time alike (docs/selection.md): the fewest the threads (2048), the
/// blocks (32), the registers (64K, at the kernel's cap) and the shared memory
/// (228 KB, 1 KB reserved per block) allow, at least 1.
int64_t estimateOccupancy(const Problem &problem, const Schedule &schedule);

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

/// The part of a schedule file a diagnostic points at: a declaration of
/// the problem, or a directive. The front end maps each to its place in the
/// file (or the nearest enclosing one).
struct Part {
  enum class Kind {
    Kernel,
    Problem,
    AType,
    BType,
    CType,
    Accumulate,
    Math,
    Scales,
    Batch,
    BatchCount,
    Groups,
    Amax,
    OutputScale,
    Schedule,
    Directive,
  };

  constexpr Part(Kind kind) : kind(kind) {}
  constexpr Part(DirectiveKind directive)
      : kind(Kind::Directive), directive(directive) {}
  bool operator==(const Part &other) const {
    return kind == other.kind &&
           (kind != Kind::Directive || directive == other.directive);
  }

  Kind kind;
  /// With Kind::Directive, which one.
  DirectiveKind directive = DirectiveKind::Tile;
};

struct Diagnostic {
  enum class Severity { Error, Warning, Note };
  Severity severity;
  Part part;
  std::string message;
  /// A warning that the kernel may spill registers: `message` gives the
  /// model's reason alone, and the driver asks ptxas whether it does
  /// (docs/dsl.md, "Registers").
  bool spill = false;
  /// A spill warning of the producer warpgroup's registers, which ptxas
  /// assembling relocatable code cannot judge: it ignores `setmaxnreg` and
  /// gives every thread what it has at entry (docs/dsl.md, "Registers").
  bool producerSpill = false;
};

using DiagnosticHandler = llvm::function_ref<void(const Diagnostic &)>;

/// What a checked schedule implies for one block.
struct ScheduleFacts {
  int64_t threadsPerBlock = 0;
  /// Shared memory, buffers aligned (getSharedMemory).
  int64_t sharedBytes = 0;
  /// A rough estimate of registers per thread (accumulators, fragments,
  /// staging registers and addressing), for the > 255 check.
  int64_t registers = 0;
  /// Registers a thread is likely to need with its tile copies in flight,
  /// and the cap its kernel gets (SIMT and mma.sync kernels).
  int64_t registerPressure = 0, registerCap = 0;
  /// The estimate comes within an eighth (a quarter before sm_90) of the
  /// cap: gemmc-tune leaves such schedules out of its candidates.
  bool registersNearCap = false;
  /// The estimate passes the cap by the spill warning's margin: the
  /// warning was given (docs/dsl.md, "Registers").
  bool spillWarned = false;
  /// Two consumer warpgroups take their registers from the producer's with
  /// `setmaxnreg` (registerCap is theirs): assembled as relocatable code,
  /// as libnvJitLink does, ptxas ignores the split (C7504).
  bool registerSplit = false;
  /// Split-K's workspace per tile of C, in floats (0 without split-K), or
  /// with the splits chosen at launch per tile and split.
  int64_t workspaceFloatsPerTile = 0, workspaceFloatsPerSplit = 0;
};

/// The problem a kernel of `schedule` computes: `problem`, transposed with
/// `transpose` (Schedule::transpose): what the rules check the schedule
/// against (the front end and the tuner transpose before checkSchedule)
/// and what the kernel is built for.
Problem computedProblem(const Problem &problem, const Schedule &schedule);

/// The rules of docs/dsl.md. Reports the first error (with its notes) and
/// any warnings through `handler`, and returns the facts of a schedule that
/// passes. Without an architecture (`arch` null), the limits and warnings
/// that depend on one are left out.
std::optional<ScheduleFacts> checkSchedule(const Problem &problem,
                                           const Schedule &schedule,
                                           const Arch *arch,
                                           DiagnosticHandler handler);

/// The rules a schedule must satisfy on its own, whatever the problem: the
/// invariants the passes rely on (positive sizes, tiles that divide, known
/// vector widths, options that need others). The gemm dialect's
/// ScheduleAttr verifies them; checkSchedule implies them.
bool verifyScheduleStructure(const Schedule &schedule,
                             DiagnosticHandler handler);

/// Refuses, with "... is not implemented yet", what the language can say
/// but code generation cannot do yet; reports the first.
bool checkImplemented(const Problem &problem, const Schedule &schedule,
                      DiagnosticHandler handler);

} // namespace gemmc

#endif // GEMMC_SCHEDULE_SCHEDULE_H
