//===- GemmDialect.h - gemm dialect -----------------------------*- C++ -*-===//

#ifndef GEMMC_DIALECT_GEMM_IR_GEMMDIALECT_H
#define GEMMC_DIALECT_GEMM_IR_GEMMDIALECT_H

#include "gemmc/Dialect/Gemm/IR/GemmAttrs.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "gemmc/Dialect/Gemm/IR/GemmDialect.h.inc"

namespace mlir::gemm {

/// The names of the attributes the dialect puts on other ops, as its
/// declaration (GemmBase.td) spells them; GemmDialect's helpers get and set
/// them with their types.
///
/// On the kernel: its problem, schedule and launch configuration, its
/// epilogue (alpha and beta parameters, a bias "row" or "col", ReLU), a
/// batch ([count, SA, SB, SC]), a grouped GEMM's group count (`groups`),
/// and `tails` where the problem is not a
/// multiple of the block tile (gemm-tile-blocks): global accesses are then
/// guarded by the matrix bounds.
inline constexpr llvm::StringLiteral kProblemAttr =
    GemmDialect::ProblemAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kScheduleAttr =
    GemmDialect::ScheduleAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kLaunchAttr =
    GemmDialect::LaunchAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kAlphaBetaAttr =
    GemmDialect::AlphaBetaAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kBiasAttr =
    GemmDialect::BiasAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kScalesAttr =
    GemmDialect::ScalesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kActivationAttr =
    GemmDialect::ActivationAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kResidualAttr =
    GemmDialect::ResidualAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kAmaxAttr =
    GemmDialect::AmaxAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kOutputScaleAttr =
    GemmDialect::OutputScaleAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kBatchAttr =
    GemmDialect::BatchAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kGroupsAttr =
    GemmDialect::GroupsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kGroupTableAttr =
    GemmDialect::GroupTableAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kTailsAttr =
    GemmDialect::TailsAttrHelper::getNameStr();

/// Markers by which the passes find what the others made: the loop over K
/// (gemm-map-threads, gemm-register-tile, gemm-mma), the loop over K tiles
/// and the inner loop over BK (gemm-promote, gemm-pipeline), the stage
/// index of a shared-memory buffer (gemm-promote), and a warp's view of a
/// tile (gemm-warp-tile).
inline constexpr llvm::StringLiteral kKLoopAttr =
    GemmDialect::KLoopAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kKTilesAttr =
    GemmDialect::KTilesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kInnerKAttr =
    GemmDialect::InnerKAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kStageAttr =
    GemmDialect::StageAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kWarpViewAttr =
    GemmDialect::WarpViewAttrHelper::getNameStr();

} // namespace mlir::gemm

#endif // GEMMC_DIALECT_GEMM_IR_GEMMDIALECT_H
