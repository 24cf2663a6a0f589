//===- GemmBase.td - gemm dialect definition ---------------*- tablegen -*-===//
//
// The gemm dialect carries one GEMM problem and the schedule that maps it onto
// an NVIDIA GPU. It is the entry point of gemmc's pass pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_DIALECT_GEMM_IR_GEMMBASE_TD
#define GEMMC_DIALECT_GEMM_IR_GEMMBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Gemm_Dialect : Dialect {
  let name = "gemm";
  let cppNamespace = "::mlir::gemm";
  let summary = "A GEMM problem and its GPU schedule";
  let description = [{
    The `gemm` dialect describes one matrix multiplication
    `C = A * B` (A is M x K, B is K x N, C is M x N) together with the
    schedule that says how it is mapped onto a GPU: block tiles, thread
    mapping, and (as gemmc grows) shared-memory promotion, register tiling,
    vectorisation, tensor cores and pipelining.

    A schedule file is parsed into a `gemm.kernel` op. gemmc's passes outline
    it into a `gpu.func`, distribute the work over blocks and threads, and
    lower it through the upstream `scf`, `gpu`, `nvvm` and `llvm` dialects.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  // The attributes the dialect puts on other ops: the kernel's contract on
  // the gpu.func (convert-gemm-to-gpu and gemm-tile-blocks), and the
  // markers by which one pass finds what another made. Each is declared
  // here and verified by GemmDialect::verifyOperationAttribute.
  let discardableAttrs = (ins
    // On the kernel (gpu.func).
    "::mlir::gemm::ProblemAttr":$problem,
    "::mlir::gemm::ScheduleAttr":$schedule,
    "::mlir::gemm::LaunchAttr":$launch,
    "::mlir::UnitAttr":$alpha_beta,
    "::mlir::StringAttr":$bias,
    "::mlir::StringAttr":$scales,
    "::mlir::StringAttr":$activation,
    "::mlir::UnitAttr":$residual,
    "::mlir::UnitAttr":$amax,
    "::mlir::UnitAttr":$output_scale,
    "::mlir::DenseI64ArrayAttr":$batch,
    "::mlir::IntegerAttr":$groups,
    "::mlir::UnitAttr":$group_table,
    "::mlir::UnitAttr":$tails,
    // Markers between passes.
    "::mlir::UnitAttr":$k_loop,
    "::mlir::UnitAttr":$k_tiles,
    "::mlir::UnitAttr":$inner_k,
    "::mlir::UnitAttr":$stage,
    "::mlir::UnitAttr":$warp_view
  );
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class Gemm_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Gemm_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class Gemm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Gemm_Dialect, mnemonic, traits>;

#endif // GEMMC_DIALECT_GEMM_IR_GEMMBASE_TD
