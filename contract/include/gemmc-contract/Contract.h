//===- Contract.h - the kernel contract: one home for compiler and runtime ===//
//
// gemmc (and every hand-written PTX kernel) carries a contract: a block of
// `//` comment lines in the PTX, between `// gemmc-contract-begin vN` and
// `// gemmc-contract-end`. docs/contract.md describes it. The compiler
// fills a Contract and formats it here; the runtime, the C API and the
// tuner parse it here and ask whether a kernel takes a problem. This
// library depends on the C++ standard library only and throws nothing.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_CONTRACT_CONTRACT_H
#define GEMMC_CONTRACT_CONTRACT_H

#include <cstdint>
#include <string>
#include <vector>

namespace gemmc::contract {

/// FP8: e4m3 (`f8E4M3FN`) and e5m2 (version 11).
enum class DType { F32, F16, BF16, E4M3, E5M2 };
enum class Layout { Row, Col };

const char *toString(DType type);
/// Parses `f32`, `f16`, `bf16`, `e4m3` or `e5m2`.
bool parseDType(const std::string &text, DType &type);
const char *toString(Layout layout);
/// Bytes per element.
unsigned sizeOf(DType type);
/// e4m3 or e5m2.
inline bool isFloat8(DType type) {
  return type == DType::E4M3 || type == DType::E5M2;
}

/// Parses a non-negative decimal integer (the whole text).
bool parseInt(const std::string &text, int64_t &value);
/// The whitespace-separated words of `text`.
std::vector<std::string> splitWords(const std::string &text);

/// One grid extent: ceildiv(dim, divisor) where dim is M, N or K, or 1.
struct GridExpr {
  char dim = '1'; ///< 'M', 'N', 'K', 'B', 'S', 'Z' or '1'.
  /// For '1', a fixed count of blocks (1, or split-K's splits).
  int64_t divisor = 1;

  /// 'B' is the batch count, 'S' (`SM`, a persistent grid) the number of
  /// multiprocessors, 'Z' (`splits`) split-K's splits chosen at launch.
  int64_t evaluate(int64_t m, int64_t n, int64_t k, int64_t batch = 1,
                   int64_t multiprocessors = 1, int64_t splits = 1) const;
  std::string str() const;
};

/// A problem. In a contract, a size of 0 means "given at launch" (`?`).
struct Problem {
  int64_t m = 0, n = 0, k = 0;
  DType a = DType::F32, b = DType::F32, c = DType::F32, acc = DType::F32;
  Layout aLayout = Layout::Row, bLayout = Layout::Row, cLayout = Layout::Row;
  /// `math=tf32`: f32 inputs multiplied in tf32 on tensor cores.
  bool tf32 = false;
  /// `math=tf32x3`: f32 inputs split into two tf32 parts, three products on
  /// tensor cores per pair: about f32's accuracy, so verified and compared
  /// as f32 (cuBLAS SGEMM).
  bool tf32x3 = false;
  /// `math=fast-accumulate`: FP8 products summed over all of K on the
  /// tensor cores (fewer bits than f32; cuBLASLt's fast accumulation).
  /// A kernel that adds each k tile's sum in f32 serves either problem; a
  /// fast one only problems that allow it.
  bool fastAccumulate = false;
  /// C = alpha * A * B + beta * C; a kernel without alpha and beta
  /// parameters computes alpha = 1, beta = 0 only.
  float alpha = 1, beta = 0;
  /// Then `+ bias[row]` ("row": M values) or `+ bias[col]` ("col": N
  /// values), or no bias (empty); then the activation: "relu", "gelu",
  /// "gelu-tanh", "silu" (version 11 for the last three), or none (empty).
  std::string bias;
  std::string activation;
  /// `residual=add` (version 13): then plus R, an M x N matrix with C's
  /// type, layout, leading dimension and batch stride (device memory that
  /// does not overlap C; Operands::residual).
  bool residual = false;
  /// `amax` (version 16): the kernel also writes max |C| (f32, over the
  /// values it stores, before their cast to C's type) to the device
  /// scalar Operands::amax, which the launch zeroes first.
  bool amax = false;
  /// `output-scale` (version 17): the values stored to an FP8 C are
  /// multiplied by the device scalar Operands::scaleC just before their
  /// cast (after the amax takes them; cuBLASLt's D scale).
  bool outputScale = false;
  /// FP8's dequantisation scales, applied to A * B first: "tensor" (an
  /// f32 for A and one for B), "rowwise" (one per row of A, M, and per
  /// column of B, N), "block" (per 1 x 128 block of A and 128 x 128 block
  /// of B: scaleCount), or none (empty).
  std::string scales;
  /// A batch of `batch` GEMMs whose A, B and C lie strideA, strideB and
  /// strideC elements apart (0: dense, one matrix after the other; in a
  /// contract, given at launch). `batched`: a contract's problem states a
  /// batch (`batch=` in its problem line), even of one.
  int64_t batch = 1;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  bool batched = false;
  /// A grouped GEMM (`groups=G` in a contract's problem line, version 12),
  /// the mixture-of-experts form: `groups` GEMMs (in a contract, 0: given
  /// at launch) that share N and K. A is M x K and C M x N, the groups'
  /// rows one after the other; B holds a K x N matrix a group, strideB
  /// elements apart (0: dense). The kernel's `offsets` parameter (i32, one
  /// a group, on the device) says where each group's rows end, as
  /// torch._grouped_mm's `offs`: group g has rows [offsets[g-1],
  /// offsets[g]) (from 0 for the first); rows past the last group's are
  /// left as they are.
  bool grouped = false;
  int64_t groups = 0;
  /// Its general form (`group-form=ptr-array`, version 14): each group its
  /// own M, N and K, matrices and leading dimensions, in the kernel's
  /// `table` parameter (i64, kGroupTableColumns a group: GroupColumn) in
  /// place of the offsets; m, n and k are '?', and A, B and C give the
  /// types and layouts. A problem of it on the host (n and k stand-ins)
  /// has as `m` its groups' rows in all where the host knows them (the
  /// table's rows given from the host: tableRows), else 0: the table is on
  /// the device alone, and the rows a group are unknown.
  bool groupTable = false;
  /// The matrices B holds: a batch's, or a grouped GEMM's groups.
  int64_t countOfB() const { return grouped ? groups : batch; }
  /// Leading dimensions (elements between consecutive rows of a row-major
  /// matrix, columns of a column-major one); 0: dense.
  int64_t lda = 0, ldb = 0, ldc = 0;

  int64_t ldOfA() const { return lda ? lda : aLayout == Layout::Row ? k : m; }
  int64_t ldOfB() const { return ldb ? ldb : bLayout == Layout::Row ? n : k; }
  int64_t ldOfC() const { return ldc ? ldc : cLayout == Layout::Row ? n : m; }
  /// Elements a matrix spans, its leading dimension's padding included.
  int64_t spanOfA() const { return ldOfA() * (aLayout == Layout::Row ? m : k); }
  int64_t spanOfB() const { return ldOfB() * (bLayout == Layout::Row ? k : n); }
  int64_t spanOfC() const { return ldOfC() * (cLayout == Layout::Row ? m : n); }
  int64_t strideOfA() const { return strideA ? strideA : spanOfA(); }
  int64_t strideOfB() const { return strideB ? strideB : spanOfB(); }
  int64_t strideOfC() const { return strideC ? strideC : spanOfC(); }

  /// For messages: `m=… n=… k=… a=f16:row …`.
  std::string str() const;
};

/// The sizes a variant of a kernel family is for (`when: m<=64 k>=4096`,
/// `256<=m<=1024`, `group-rows<=128`, or `any`): closed ranges of M, N, K
/// and, for a grouped GEMM, the rows a group (M over the groups, rounded
/// up: what the host knows of the groups' rows, which lie on the device;
/// of the general form, its groups' rows in all over the groups, where
/// the host knows them). The schedule language's `when` builds one
/// (docs/dsl.md), the contract states it.
struct SizeRange {
  static constexpr int64_t kUnbounded = INT64_MAX;
  static constexpr int kDimensions = 4;
  /// Indexed by dimension: 0 is M, 1 is N, 2 is K, 3 the rows a group
  /// (groupRows).
  int64_t lo[kDimensions] = {1, 1, 1, 1};
  int64_t hi[kDimensions] = {kUnbounded, kUnbounded, kUnbounded, kUnbounded};

  /// The dimension named `m`, `n`, `k` or `group-rows`, or -1.
  static int dimension(const std::string &name);
  /// Narrows dimension `dim` to at most (`atMost`) or at least `value`.
  void constrain(int dim, bool atMost, int64_t value);
  /// Whether the sizes lie in the ranges: `groupRows` a grouped GEMM's rows
  /// a group (groupRows()), 1 for a single GEMM.
  bool contains(int64_t m, int64_t n, int64_t k, int64_t groupRows = 1) const;
  /// The rows a group of `problem` as `contains` takes them: M over the
  /// groups rounded up (at least 1), or 1 where it is not grouped; 0 for
  /// the general form whose rows the host does not know (m 0): only a
  /// variant with no condition runs it (rankVariants).
  static int64_t groupRows(const Problem &problem);
  /// Every size (no condition).
  bool isAll() const;
  /// Whether it bounds the rows a group (contract version 15).
  bool boundsGroupRows() const { return lo[3] != 1 || hi[3] != kUnbounded; }
  /// No size of some dimension.
  bool isEmpty() const;
  /// The contract's spelling: `m<=64 k>=4096`, `256<=m<=1024`, or `any`.
  std::string str() const;
};

/// The transposed problem C^T = B^T * A^T of `problem`: N x M x K, its A
/// the problem's B read the other way round (a row-major B is a
/// column-major B^T), its B A^T, its C C^T, a bias along the other side,
/// leading dimensions and batch strides of A and B swapped. The same
/// computation on the same memory. (The schedule model's transposeProblem
/// is this for the compiler's Problem, whose sizes may be given at launch.)
Problem transposeProblem(const Problem &problem);

/// Parses a `when:` value; false if malformed.
bool parseSizeRange(const std::string &text, SizeRange &range);

/// The box of a tensor map (`tensor-maps: A=64x128 B=64x256 swizzle=128`):
/// `inner` x `outer` elements, innermost (the matrix's contiguous
/// dimension) first, with the 128-byte swizzle; 0 x 0 for a matrix that the
/// kernel copies without TMA (the line lists only the others).
struct TensorMapBox {
  int64_t inner = 0, outer = 0;
};

/// A kernel parameter: `NAME:KIND`. Pointers are A, B, C (`ptr`); sizes are
/// M, N, K (`i32`); the epilogue's scalars alpha and beta (`f32`) and its
/// bias vector (`bias:ptr`). A kernel whose sizes are given at launch takes
/// A, B, C and the bias as memref descriptors, `memrefR.iB`: R = 2 (a
/// matrix) or 3 (a batch), index fields of B = 32 or 64 bits; each is
/// 3 + 2R kernel parameters (pointer, pointer, offset, R sizes, R strides).
/// A kernel with TMA takes the tensor maps of A and B (`tmap-A:tensormap`,
/// `tmap-B:tensormap`, contract version 2) and of C where it stores C with
/// TMA (`tmap-C:tensormap`, version 3): 128-byte CUtensorMap structs passed
/// by value, which the launcher encodes from the operands.
struct Param {
  std::string name;
  std::string kind;
};

/// What executes a kernel's products, for the cost model (Cost.h): FP32
/// lanes, mma.sync or wgmma tensor cores.
enum class Unit { Simt, Mma, Wgmma };
const char *toString(Unit unit);

/// `cost: unit=… occupancy=… fixed=… latency=… compute=… memory=…
/// reduce=…`: what the cost model (Cost.h) needs of a kernel beyond the
/// rest of its contract, and the constants fitted from measurements
/// (docs/selection.md). `fitted` is false where the contract gives none:
/// the model's defaults for the unit then apply.
struct CostFacts {
  Unit unit = Unit::Simt;
  /// Blocks a multiprocessor holds at once, by the compiler's estimate of
  /// threads, shared memory and registers.
  int64_t occupancy = 1;
  bool fitted = false;
  /// Microseconds per launch and per round of a multiprocessor's work;
  /// multipliers of the ideal compute, memory and reduction times.
  double fixed = 0, latency = 0, compute = 0, memory = 0, reduce = 0;
};

struct Contract {
  std::string entry;
  std::string arch;
  unsigned block[3] = {1, 1, 1};
  GridExpr grid[3];
  int64_t dynamicSharedBytes = 0;
  std::vector<Param> params;
  int64_t alignment = 1;
  std::string semantics;
  /// alpha:f32 and beta:f32 are parameters: C = alpha * A * B + beta * C.
  bool alphaBeta = false;
  /// `epilogue: bias=row|col relu`: the bias (a `bias:ptr` parameter) and
  /// the activation (`relu`; `gelu`, `gelu-tanh`, `silu` from version 11)
  /// the kernel applies; a problem must ask for exactly these.
  std::string bias;
  std::string activation;
  /// `epilogue: residual=add` (version 13): the kernel takes R (an `R`
  /// parameter shaped as C's) and adds it last.
  bool residual = false;
  /// `epilogue: amax` (version 16): the kernel takes `amax` (an f32 on
  /// the device, zeroed by the launch) and raises it to max |C|.
  bool amax = false;
  /// `epilogue: output-scale` (version 17): the kernel takes `scale-C` (an
  /// f32 on the device) and multiplies an FP8 C's values by it before
  /// their cast.
  bool outputScale = false;
  /// `epilogue: scales=tensor|rowwise|block` (version 11): the kernel
  /// takes `scale-A` and `scale-B` (f32 vectors of scaleCount) and
  /// dequantises A * B with them; a problem must ask for the same.
  std::string scales;
  Problem problem;
  /// `problem` with the epilogue this contract states (bias, activation,
  /// R, scales, amax, C's scale): what a problem the kernel takes asks for.
  Problem problemWithEpilogue() const {
    Problem p = problem;
    p.bias = bias;
    p.activation = activation;
    p.residual = residual;
    p.amax = amax;
    p.outputScale = outputScale;
    p.scales = scales;
    return p;
  }
  /// Sizes given at launch must be multiples of these.
  int64_t multipleM = 1, multipleN = 1, multipleK = 1;
  /// `leading-dim-multiple: a=… b=… c=…`: leading dimensions (and batch
  /// strides) given at launch must be multiples of these.
  int64_t ldMultiple[3] = {1, 1, 1};
  /// `batch-stride-multiple: a=… b=… c=…` (version 10): a batch's strides
  /// given at launch must be multiples of these too (where the kernel
  /// realigns an operand's pieces alike in every matrix: 16 bytes).
  int64_t strideMultiple[3] = {1, 1, 1};
  /// Whether a `batch-stride-multiple` is stated (some multiple not 1).
  bool hasStrideMultiples() const {
    return strideMultiple[0] != 1 || strideMultiple[1] != 1 ||
           strideMultiple[2] != 1;
  }
  /// Whether the matrices are memref descriptors (sizes given at launch).
  bool descriptors() const;
  /// Bits of the descriptors' index fields (32 or 64).
  int indexBits() const;
  /// `tensor-maps:` (version 2): the boxes of the tensor maps of A, B (each
  /// where TMA copies it) and C (`C=IxO`, version 3); a box's inner is 0
  /// where the matrix has none.
  bool tensorMaps = false;
  TensorMapBox boxA, boxB, boxC;
  bool storesWithTma() const { return boxC.inner != 0; }
  /// `cluster: X Y Z` (version 3): blocks per thread-block cluster, launched
  /// with cuLaunchKernelEx.
  unsigned cluster[3] = {1, 1, 1};
  unsigned clusterSize() const { return cluster[0] * cluster[1] * cluster[2]; }
  /// `split-k: splits=S workspace=F` (version 4): S blocks along the grid's
  /// z share each tile of C, through a workspace of F = S x P floats per
  /// tile (`workspace` parameter; P = `partialFloats`, one split's partial
  /// tile) and an i32 counter per tile (`counters`, zero before the first
  /// launch; the kernel leaves them zero). `split-k: splits=? partial=P`
  /// (version 6): the launcher chooses the splits (`splits` is 0, the
  /// grid's z `splits`), the workspace P floats per tile and split.
  int64_t splits = 1, partialFloats = 0;
  bool splitsK() const { return splits != 1; }
  bool splitsAtLaunch() const { return splits == 0; }
  /// `split-k: splits=stream partial=P` (version 7, `persistent
  /// stream-k`): the persistent grid's blocks share out the K steps of the
  /// tiles; the workspace holds two partial tiles of P floats a block of
  /// the grid, the counters an i32 per tile of C.
  bool streamK = false;
  /// Whether the kernel takes the workspace and counters parameters.
  bool usesWorkspace() const { return splitsK() || streamK; }
  /// The tiles of C (grid x times y) of `problem`, for split-K's workspace.
  int64_t tiles(const Problem &problem) const;
  /// The tiles of C of `problem` by the schedule's tile (BM x BN), batch
  /// included.
  int64_t tilesOfC(const Problem &problem) const;
  /// The workspace's counters: one per tile of C.
  int64_t counters(const Problem &problem) const {
    return streamK ? tilesOfC(problem) : tiles(problem);
  }
  /// K's steps of BK (`schedule`'s tile) in `problem`: the most splits
  /// that each have one.
  int64_t kSteps(const Problem &problem) const;
  /// The workspace of `problem` in floats, with `splits` splits (a static
  /// count is the contract's own).
  /// With stream-K, for a grid of `blocks`.
  int64_t workspaceFloats(const Problem &problem, int64_t splits,
                          int64_t blocks = 1) const;
  /// The most splits a launch on `problem` may take: the workspace under
  /// 2^31 floats (the kernels index it in 32 bits), the grid's z within
  /// its limit, and no split without a step of K. 0 where not even one
  /// split fits; the contract's own count where it is static.
  int64_t maxSplits(const Problem &problem) const;
  /// `transposed: C^T = B^T * A^T` (version 8, `transpose`): the kernel
  /// computes the transposed problem (transposeProblem) on the same
  /// memory. The rest of the contract states the problem it serves, as
  /// the user wrote it: the kernel's first matrix parameter is B (read as
  /// B^T), its grid's x runs along that problem's M. Only the memref
  /// descriptors differ: each matrix's in the kernel's orientation, rows
  /// and columns swapped.
  bool transposed = false;
  /// `family: NAME I/N` and `when: RANGE` (version 5): the kernel is
  /// variant I of N of the family NAME and is for the sizes `when` holds;
  /// `family` is empty otherwise.
  std::string family;
  int variant = 1, variants = 1;
  SizeRange when;
  /// `schedule: tile=BMxBNxBK ... [stages=N]`: the schedule's tile, and
  /// the stages of the operands' tiles in shared memory where it copies
  /// them there, which the cost model reads (tile(), stages()).
  std::string schedule;
  std::string source;
  /// `cost:` (optional): the cost model's facts and constants.
  bool hasCost = false;
  CostFacts cost;

  /// The block tile BM x BN x BK of `schedule` (zeros if it has none).
  void tile(int64_t &bm, int64_t &bn, int64_t &bk) const;
  /// The shared-memory stages of `schedule` (`stages=N`); 0 where it
  /// states none (its operands not staged there, or a contract before).
  int64_t stages() const;
};

/// `C = A * B`, `C = alpha * A * B + beta * C`, with ` + bias[row]` and
/// `relu(...)` (or another activation), then ` + R`, all of it times
/// `scale_c` with `outputScale`: the `semantics:` value of a kernel with
/// this epilogue.
std::string describeSemantics(bool alphaBeta, const std::string &bias,
                              const std::string &activation,
                              const std::string &scales = "",
                              bool residual = false, bool outputScale = false);
/// Whether `name` is an activation a contract states (relu, gelu,
/// gelu-tanh, silu).
bool isActivation(const std::string &name);
/// Whether `name` is a kind of scales a contract states (tensor, rowwise,
/// block).
bool isScaleKind(const std::string &name);
/// How many f32 scales of A (`ofA`) or of B an M x N x K problem with
/// `scales` takes: 1 each (tensor); M and N (rowwise); M x ceil(K/128) and
/// ceil(N/128) x ceil(K/128) (block: A's 1 x 128 blocks M-major, B's
/// 128 x 128 blocks K-major); 0 without scales. A grouped problem's B
/// (`groups` K x N matrices) has its own scales a group, one group's after
/// the other's: `groups` times B's count (A's rows are all groups' rows).
int64_t scaleCount(const std::string &scales, bool ofA, int64_t m, int64_t n,
                   int64_t k, int64_t groups = 1);
/// Problem `p`'s count of A's (`ofA`) or B's scales (its `scales`; a
/// grouped problem's B's a group).
int64_t scaleCount(const Problem &p, bool ofA);
/// `scales = block`: the block of the scales that element (`row`, `col`)
/// of A (`ofA`: row of M, col of K) or of B (row of K, col of N) lies in,
/// as an index into the scales.
int64_t blockScaleIndex(bool ofA, int64_t row, int64_t col, int64_t m,
                        int64_t n, int64_t k);
/// The depth along K of a block of `scales = block`.
inline constexpr int64_t kScaleBlock = 128;

/// The general form of a grouped GEMM (`groups = G ptr-array`): the
/// kernel's group table holds a row of kGroupTableColumns i64 values a
/// group, in this order: its M, N and K, the leading dimensions of its A,
/// B and C (elements), and the addresses of its A, B and C (device
/// pointers, 16-byte aligned). A group of M, N or K 0 computes nothing
/// (K 0: C is alpha * 0, beta * C).
enum class GroupColumn : int64_t { M, N, K, Lda, Ldb, Ldc, A, B, C };
inline constexpr int64_t kGroupTableColumns = 9;

/// The rows in all of a group table's `groups` rows, on the host (a
/// general-form problem's `m` for the choice of its variant).
inline int64_t tableRows(const int64_t *rows, int64_t groups) {
  int64_t total = 0;
  for (int64_t g = 0; g < groups; ++g)
    total += rows[g * kGroupTableColumns + int64_t(GroupColumn::M)];
  return total;
}

/// The multiple of an operand's leading dimension that every kernel of
/// its type may ask: 1, but 16 for FP8, which only TMA copies (rows 16
/// bytes apart).
int64_t everyLdMultiple(DType operand);

/// Whether the kernel takes every problem its sizes and types allow: no
/// `when`, no leading-dimension multiple beyond everyLdMultiple's, no
/// size multiple, C not stored by TMA (a family needs such a variant, so
/// that no valid problem is refused).
bool takesEveryProblem(const Contract &contract);

/// Whether the contract's kernel can compute `problem`; if not, `why` says
/// why (sizes, multiples, types or layouts).
bool accepts(const Contract &contract, const Problem &problem,
             std::string &why);

/// Parses the first contract block in `ptx`. Returns false and sets `error`
/// (naming the offending line) if there is none or it is malformed.
bool parseContract(const std::string &ptx, Contract &contract,
                   std::string &error);

/// Parses every contract block in `ptx`: one kernel, or the variants of a
/// kernel family in their order (each of one family, numbered 1..N in
/// turn). Returns false and sets `error` if there is none, one is
/// malformed, or the variants do not make one family.
bool parseContracts(const std::string &ptx, std::vector<Contract> &contracts,
                    std::string &error);

/// The contract of a kernel compiled for the transposed problem (the
/// compiler's `transpose`), in the terms of the problem it serves: the
/// problem, sizes and their multiples, grid, parameters (A and B, M and N
/// renamed), tensor-map boxes, leading-dimension multiples, bias and tile
/// turned back; `transposed` set.
Contract untransposeContract(const Contract &kernel);

/// The value of the `transposed:` line.
inline constexpr const char *kTransposedLine = "C^T = B^T * A^T";

/// Formats a contract into its comment block; what gemmc writes into the
/// PTX, and what parseContract reads back into an equal contract.
std::string formatContract(const Contract &contract);

} // namespace gemmc::contract

#endif // GEMMC_CONTRACT_CONTRACT_H
