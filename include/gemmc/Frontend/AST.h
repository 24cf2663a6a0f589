//===- AST.h - the schedule language's syntax tree --------------*- C++ -*-===//

#ifndef GEMMC_FRONTEND_AST_H
#define GEMMC_FRONTEND_AST_H

#include "gemmc/Schedule/Types.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace gemmc {

/// A problem size: `m = 1024`, or `m = ?` for a size given at launch.
struct SizeDecl {
  std::optional<int64_t> value; ///< std::nullopt for `?`.
  llvm::SMLoc loc;

  bool isDynamic() const { return !value.has_value(); }
};

/// A matrix declaration: `a = f32 row`.
struct MatrixDecl {
  ElementType type = ElementType::F32;
  MatrixLayout layout = MatrixLayout::Row;
  llvm::SMLoc loc;
  llvm::SMLoc typeLoc;
};

/// `accumulate = f32`.
struct AccumulateDecl {
  ElementType type = ElementType::F32;
  llvm::SMLoc loc;
};

/// `math = exact`, `math = tf32` or `math = tf32x3`.
struct MathDecl {
  MathMode mode = MathMode::Exact;
  llvm::SMLoc loc;
};

/// `epilogue = store` (C = A*B) or `epilogue = alpha-beta`
/// (C = alpha*A*B + beta*C).
struct EpilogueDecl {
  Epilogue kind = Epilogue::Store;
  llvm::SMLoc loc;
};

/// `bias = row | col`.
struct BiasDecl {
  BiasKind kind = BiasKind::Col;
  llvm::SMLoc loc;
};

/// `scales = tensor | rowwise | block`: the dequantisation scales of A and B.
struct ScalesDecl {
  ScaleKind kind = ScaleKind::Tensor;
  llvm::SMLoc loc;
};

/// `activation = none | relu | gelu | gelu-tanh | silu`, applied last.
struct ActivationDecl {
  Activation kind = Activation::None;
  llvm::SMLoc loc;
};

/// `residual = add`: R, an M x N matrix like C, added last.
struct ResidualDecl {
  llvm::SMLoc loc;
};

/// `amax = c`: the largest magnitude of C's values, before their cast to
/// C's type, written to a scalar given at launch.
struct AmaxDecl {
  llvm::SMLoc loc;
};

/// `output-scale = tensor`: an FP8 C's values times one scale given at
/// launch, before their cast.
struct OutputScaleDecl {
  llvm::SMLoc loc;
};

/// `batch = 8` or `batch = 8 strides 4096 4096 4096` (elements between
/// consecutive A, B and C matrices; dense when not given).
struct BatchDecl {
  SizeDecl count;
  std::optional<std::array<int64_t, 3>> strides;
  llvm::SMLoc loc;
};

/// `groups = 8` or `groups = ?`: a grouped GEMM (Problem::grouped), and
/// with `ptr-array` its general form (Problem::groupTable).
struct GroupsDecl {
  SizeDecl count;
  llvm::SMLoc loc;
  /// Where `ptr-array` was written, if it was.
  std::optional<llvm::SMLoc> ptrArray;
};

struct ProblemDecl {
  llvm::SMLoc loc;
  std::optional<SizeDecl> m, n, k;
  std::optional<MatrixDecl> a, b, c;
  std::optional<AccumulateDecl> acc;
  std::optional<MathDecl> math;
  std::optional<EpilogueDecl> epilogue;
  std::optional<BiasDecl> bias;
  std::optional<ScalesDecl> scales;
  std::optional<ActivationDecl> activation;
  std::optional<ResidualDecl> residual;
  std::optional<AmaxDecl> amax;
  std::optional<OutputScaleDecl> outputScale;
  std::optional<BatchDecl> batch;
  std::optional<GroupsDecl> groups;
};

/// One schedule directive. Which fields mean something depends on `kind`;
/// the parser fills only those.
struct Directive {
  DirectiveKind kind = DirectiveKind::Tile;
  llvm::SMLoc loc;

  /// tile (BMxBN[xBK]), register-tile (TMxTN), warp-tile (WMxWN), cluster
  /// (CMxCN), and the
  /// mma instruction shape (M, N, K of mNnNkK).
  llvm::SmallVector<int64_t, 3> shape;

  /// promote and tma: which operands (promote: to shared memory, and how
  /// they are laid out there); tma may name C too.
  bool operandA = false, operandB = false, operandC = false;
  int64_t pad = 0;      ///< elements of padding per shared-memory row
  bool swizzle = false; ///< XOR swizzle instead of padding
  bool transposeA = false;

  /// vectorize: elements per access (global loads per operand).
  int64_t globalLoadA = 1, globalLoadB = 1, sharedLoad = 1, sharedStore = 1,
          globalStore = 1;

  /// pipeline: shared-memory stages, register double-buffering, cp.async.
  int64_t stages = 1;
  bool registerDoubleBuffer = false;
  bool cpAsync = false;

  /// raster: group size; split-k: number of splits; slice-k: number of
  /// slices; unroll: factor (0 means full); blocks-per-sm: blocks;
  /// warp-specialize: consumer warpgroups.
  int64_t count = 0;

  /// edges: `split` (copies of tiles inside the matrix unguarded) or
  /// `guard` (every copy guarded).
  bool splitEdges = false;

  /// persistent: `stream-k`, the K steps of the tiles spread evenly over
  /// the grid's blocks.
  bool streamK = false;

  /// warp-specialize: `ping-pong`, each consumer warpgroup computing whole
  /// tiles of its own, in turn.
  bool pingPong = false;

  /// wgmma: `registers`, A's fragments loaded from shared memory into the
  /// consumers' registers.
  bool registersA = false;
};

struct ScheduleDecl {
  llvm::SMLoc loc;
  llvm::SmallVector<Directive, 8> directives;

  const Directive *find(DirectiveKind kind) const {
    for (const Directive &d : directives)
      if (d.kind == kind)
        return &d;
    return nullptr;
  }
};

/// One condition of a variant's `when`: `m <= 64` or `k >= 4096`.
struct ConditionDecl {
  /// `m`, `n`, `k` or `group-rows` (contract::SizeRange::dimension).
  std::string dim = "m";
  bool atMost = true;
  int64_t value = 1;
  llvm::SMLoc loc;
};

/// A variant's cost constants, `cost fixed F latency L compute C memory M
/// reduce R`: what the cost model (gemmc-contract/Cost.h) multiplies its
/// terms by for this variant, fitted from measurements by gemmc-tune.
struct CostDecl {
  static constexpr const char *kNames[5] = {"fixed", "latency", "compute",
                                            "memory", "reduce"};
  /// In the order of kNames.
  double values[5] = {0, 0, 0, 0, 0};
  llvm::SMLoc loc;
};

/// A variant of a kernel family: `variant NAME [when COND, ...] [cost ...]
/// { ... }`, its directives those of a `schedule` section.
struct VariantDecl {
  std::string name;
  llvm::SMLoc loc;
  llvm::SmallVector<ConditionDecl, 2> conditions;
  std::optional<CostDecl> cost;
  ScheduleDecl schedule;
};

/// The whole schedule file: `kernel NAME { problem {...} schedule {...} }`,
/// or a kernel family, `kernel NAME { problem {...} variant ... }`.
struct KernelDecl {
  std::string name;
  llvm::SMLoc loc;
  std::optional<ProblemDecl> problem;
  std::optional<ScheduleDecl> schedule;
  llvm::SmallVector<VariantDecl, 0> variants;

  bool isFamily() const { return !variants.empty(); }
};

} // namespace gemmc

#endif // GEMMC_FRONTEND_AST_H
