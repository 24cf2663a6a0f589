//===- Types.h - element types, layouts and epilogues of a GEMM -*- C++ -*-===//
//
// The vocabulary of a GEMM problem shared by the front end, the schedule
// model and the driver: plain C++ and LLVM's ADT, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_SCHEDULE_TYPES_H
#define GEMMC_SCHEDULE_TYPES_H

#include "gemmc-contract/Contract.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace gemmc {

/// FP8 (`e4m3`: 4 exponent bits, 3 of mantissa, no infinities, saturating
/// at 448; `e5m2`: 5 and 2, IEEE-like) feeds Hopper's wgmma only.
enum class ElementType { F32, F16, BF16, E4M3, E5M2 };
enum class MatrixLayout { Row, Col };
/// `math = exact`: f32 FMA (or 16-bit inputs, exact products); `tf32`: f32
/// inputs rounded to tf32 on tensor cores; `tf32x3`: f32 inputs split into
/// two tf32 parts each, three tensor-core products (big x big, big x small,
/// small x big) per pair: about f32's accuracy (docs/dsl.md);
/// `fast-accumulate`: FP8 products summed over all of K on the tensor
/// cores, whose sums keep fewer bits than f32 (by default each k tile's
/// sum is added to the accumulators in f32).
enum class MathMode { Exact, TF32, TF32x3, FastAccumulate };
enum class Epilogue { Store, AlphaBeta };
/// `bias = row` (a value per row of C, M of them) or `bias = col` (per
/// column, N).
enum class BiasKind { Row, Col };
/// `activation = ...`, applied last: ReLU `max(x, 0)`; GELU `x * Phi(x)`
/// with the normal distribution's erf (`gelu`) or its tanh form
/// (`gelu-tanh`, `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`); SiLU
/// `x / (1 + exp(-x))`.
enum class Activation { None, ReLU, GELU, GELUTanh, SiLU };
/// `scales = tensor` (one f32 for A and one for B) or `scales = rowwise`
/// (an f32 per row of A, M of them, and per column of B, N): the
/// accumulators are multiplied by A's scale and B's, before the rest of
/// the epilogue (torch._scaled_mm's dequantisation). `scales = block`
/// (DeepSeek-V3's): an f32 per row of A and 128 of K (1 x 128 blocks,
/// M x ceil(K/128), M contiguous) and per 128 x 128 block of B
/// (ceil(N/128) x ceil(K/128), K's blocks contiguous), applied to each
/// 128-deep sum of products as it is added to the accumulators.
enum class ScaleKind { Tensor, Rowwise, Block };
/// The depth along K of a block of `scales = block` (the contract
/// library's, which also holds the scales' layout: scaleCount).
using contract::kScaleBlock;
/// The group table's columns (`groups = G ptr-array`; the contract
/// library's).
using contract::GroupColumn;
using contract::kGroupTableColumns;

/// The directives of a schedule, as the language spells them (stringify).
enum class DirectiveKind {
#define GEMMC_DIRECTIVE(Kind, Spelling) Kind,
#include "gemmc/Schedule/Directives.def"
};

llvm::StringRef stringify(DirectiveKind kind);
/// The directive a schedule file spells `spelling`, if any.
std::optional<DirectiveKind> directiveNamed(llvm::StringRef spelling);
llvm::StringRef stringify(ElementType type);
llvm::StringRef stringify(MatrixLayout layout);
llvm::StringRef stringify(MathMode mode);
llvm::StringRef stringify(Epilogue epilogue);
llvm::StringRef stringify(BiasKind bias);
llvm::StringRef stringify(ScaleKind scales);
llvm::StringRef stringify(Activation activation);
/// The scales the language spells `spelling` (tensor, rowwise, block).
std::optional<ScaleKind> scaleKindNamed(llvm::StringRef spelling);
/// The activation the language spells `spelling` (none, relu, gelu,
/// gelu-tanh, silu), if any.
std::optional<Activation> activationNamed(llvm::StringRef spelling);

/// Bytes per element.
int64_t sizeInBytes(ElementType type);
/// e4m3 or e5m2.
inline bool isFloat8(ElementType type) {
  return type == ElementType::E4M3 || type == ElementType::E5M2;
}

} // namespace gemmc

#endif // GEMMC_SCHEDULE_TYPES_H
