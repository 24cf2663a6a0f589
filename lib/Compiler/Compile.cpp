//===- Compile.cpp - a schedule file to PTX, in process -------------------===//
//
// The compilation policy lives here, not in the tool: the stages, where the
// contract is read off the kernels, and the lowering options their launch
// attributes call for (index width, calling convention).
//
//===----------------------------------------------------------------------===//

#include "gemmc/Compiler/Compile.h"
#include "gemmc/Dialect/Gemm/IR/GemmDialect.h"
#include "gemmc/Dialect/Gemm/IR/GemmOps.h"
#include "gemmc/Frontend/MLIRGen.h"
#include "gemmc/Frontend/Parser.h"
#include "gemmc/Frontend/Sema.h"
#include "gemmc/InitGemmc.h"
#include "gemmc/Pipelines/Pipelines.h"
#include "gemmc/Target/Contract.h"
#include "gemmc/Target/PTX.h"
#include "gemmc/Target/Ptxas.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace gemmc;

/// Parses and checks the schedule file, and builds the gemm dialect from it:
/// one `gemm.kernel`, or one per variant of a family, in one module; reports
/// errors through `sourceMgr`, and `checked` holds the kernels as checked.
/// With EmitKind::AST, prints the checked schedules instead and returns a
/// null module with `done` set.
static OwningOpRef<ModuleOp>
parseSchedule(MLIRContext &ctx, llvm::SourceMgr &sourceMgr,
              const CompileOptions &options, llvm::raw_ostream &os, bool &done,
              std::optional<KernelDecl> &file,
              SmallVectorImpl<CheckedKernel> &checked) {
  file = parseScheduleFile(sourceMgr);
  if (!file)
    return nullptr;
  if (file->isFamily() && !checkFamily(*file, sourceMgr))
    return nullptr;
  SmallVector<KernelDecl, 1> kernels = getKernels(*file);
  // Spill warnings wait for ptxas where there will be PTX to assemble.
  bool holdSpills = options.askPtxas && options.emit == EmitKind::PTX;
  for (const KernelDecl &kernel : kernels) {
    std::optional<CheckedKernel> result =
        checkSchedule(kernel, sourceMgr, options.arch, holdSpills);
    if (!result)
      return nullptr;
    checked.push_back(std::move(*result));
  }
  if (options.emit == EmitKind::AST) {
    for (auto [i, kernel] : llvm::enumerate(kernels)) {
      if (file->isFamily()) {
        const VariantDecl &variant = file->variants[i];
        os << "variant " << variant.name << " when "
           << getShapeRange(variant).str();
        if (variant.cost)
          for (auto [name, value] :
               llvm::zip(CostDecl::kNames, variant.cost->values))
            os << " " << name << "=" << llvm::format("%.3f", value);
        os << "\n";
      }
      dump(kernel, checked[i].facts, os);
    }
    done = true;
    return nullptr;
  }
  for (auto [kernel, result] : llvm::zip(kernels, checked))
    if (!checkImplemented(kernel, result, sourceMgr))
      return nullptr;
  OwningOpRef<ModuleOp> module = createModule(ctx, *file, sourceMgr);
  for (auto [kernel, result] : llvm::zip(kernels, checked))
    mlirGen(*module, kernel, result, sourceMgr);
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

/// Whether the kernel makes its tensor maps on the device: the general
/// form's producer with `tma` (GroupMaps.cpp).
static bool rewritesTensorMaps(const gemm::KernelContract &contract) {
  return contract.groupTable && contract.schedule.getValue().hasTma();
}

/// A family is one PTX module: moves the kernels of every gpu.module into
/// the first, renamed after the family. The modules hold the kernels and
/// the declarations they share (the dynamic shared memory), which must
/// agree. Used before the lowering (one module a variant) and after it
/// (a module per index width, setIndexWidths).
static LogicalResult mergeGPUModules(ModuleOp module, StringRef family) {
  auto modules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
  if (modules.size() < 2)
    return success();
  gpu::GPUModuleOp first = modules.front();
  Block *body = first.getBody();
  for (gpu::GPUModuleOp other : llvm::drop_begin(modules)) {
    for (Operation &op : llvm::make_early_inc_range(*other.getBody())) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        continue;
      auto symbol = dyn_cast<SymbolOpInterface>(op);
      Operation *existing =
          symbol ? SymbolTable::lookupSymbolIn(first, symbol.getNameAttr())
                 : nullptr;
      if (!existing) {
        op.moveBefore(body, body->end());
        continue;
      }
      if (!OperationEquivalence::isEquivalentTo(
              &op, existing, OperationEquivalence::ignoreValueEquivalence,
              /*markEquivalent=*/nullptr,
              OperationEquivalence::IgnoreLocations))
        return op.emitError("the variants of family '")
               << family << "' declare '" << symbol.getName()
               << "' differently";
      op.erase();
    }
    other.erase();
  }
  first.setName((family + "_module").str());
  return success();
}

/// The index width of a kernel's arithmetic and descriptors (its launch
/// attribute's: 64 bits where nvgpu's ops are used, else 32).
static unsigned getIndexWidth(gpu::GPUFuncOp func) {
  auto launch = func->getAttrOfType<gemm::LaunchAttr>(gemm::kLaunchAttr);
  return launch ? launch.getIndexBitwidth() : 32;
}

/// The lowering takes each gpu.module's index width from its data layout:
/// a family whose variants differ is split into a module per width (32-bit
/// indices halve the registers of addresses; SIMT variants lowered with 64
/// ran up to 40% slower on an H200 beside mma.sync ones), and the modules
/// are merged again once lowered (mergeGPUModules). Each copy keeps the
/// declarations the kernels share.
static void setIndexWidths(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<DLTIDialect>();
  auto withWidth = [&](gpu::GPUModuleOp gpuModule, unsigned width) {
    auto entry = DataLayoutEntryAttr::get(
        IndexType::get(ctx),
        IntegerAttr::get(IntegerType::get(ctx, 32), width));
    gpuModule->setAttr(DLTIDialect::kDataLayoutAttrName,
                       DataLayoutSpecAttr::get(ctx, {entry}));
  };
  for (auto gpuModule : llvm::to_vector(module.getOps<gpu::GPUModuleOp>())) {
    bool narrow = false, wide = false;
    for (auto func : gpuModule.getOps<gpu::GPUFuncOp>())
      if (func.isKernel())
        (getIndexWidth(func) == 64 ? wide : narrow) = true;
    if (!(narrow && wide)) {
      withWidth(gpuModule, wide ? 64 : 32);
      continue;
    }
    OpBuilder builder(gpuModule);
    builder.setInsertionPointAfter(gpuModule);
    auto wideModule = cast<gpu::GPUModuleOp>(builder.clone(*gpuModule));
    wideModule.setName((gpuModule.getName() + "_i64").str());
    for (auto [copy, width] :
         {std::make_pair(gpuModule, 32u), std::make_pair(wideModule, 64u)}) {
      for (auto func : llvm::to_vector(copy.getOps<gpu::GPUFuncOp>()))
        if (func.isKernel() && getIndexWidth(func) != width)
          func.erase();
      withWidth(copy, width);
    }
  }
}

/// The data layouts setIndexWidths gave the modules: lowered, they are
/// no longer needed.
static void dropIndexWidths(ModuleOp module) {
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    gpuModule->removeAttr(DLTIDialect::kDataLayoutAttrName);
}

/// Records each variant's place and sizes in its contract, and checks that
/// the family refuses no problem its sizes allow.
static LogicalResult
describeFamily(const KernelDecl &file,
               MutableArrayRef<gemm::KernelContract> contracts,
               llvm::SourceMgr &sourceMgr) {
  for (auto [i, contract] : llvm::enumerate(contracts)) {
    // The kernels come in the order of the variants (mlirGen's order).
    const VariantDecl &variant = file.variants[i];
    assert(contract.entry == file.name + "_" + variant.name &&
           "kernels out of the variants' order");
    contract.family = file.name;
    contract.variant = unsigned(i);
    contract.variants = unsigned(contracts.size());
    contract.when = getShapeRange(variant);
    if (variant.cost)
      contract.cost = contract::CostConstants::fromArray(variant.cost->values);
  }
  // A grouped GEMM's kernels read A and B through TMA (or in 2-byte
  // pieces at the least): its callers give operands at their multiples
  // (gemmc.grouped_mm copies what they cannot read), a family of them as
  // each of its kernels alone.
  if (!contracts.front().descriptors ||
      gemm::toContract(contracts.front()).problem.grouped ||
      llvm::any_of(contracts, [](const gemm::KernelContract &contract) {
        return contract::takesEveryProblem(gemm::toContract(contract));
      }))
    return success();
  const VariantDecl &last = file.variants.back();
  ArrayRef<int64_t> multiples = contracts.back().launch.getLdMultiple();
  sourceMgr.PrintMessage(
      last.loc, llvm::SourceMgr::DK_Error,
      "family '" + file.name +
          "' refuses some problems: no variant without 'when' takes every "
          "leading dimension (the last asks multiples of " +
          llvm::Twine(multiples[0]) + ", " + llvm::Twine(multiples[1]) +
          " and " + llvm::Twine(multiples[2]) + " for a, b and c); add one " +
          (contract::isFloat8(gemm::toContract(contracts.back()).problem.a)
               ? "that stores C without TMA (FP8's A and B rows must lie "
                 "16 bytes apart)"
               : "with 'vectorize 1'"));
  return failure();
}

/// Relocatable code, which libnvJitLink assembles, ignores the consumers'
/// `setmaxnreg` (ptxas's C7504) and gives every thread the registers it has
/// at entry: 168 of a block of 384, fewer than two consumers take, more than
/// the producer keeps. So a kernel whose warpgroups split the registers
/// (ScheduleFacts::registerSplit) is judged on a copy capped at the
/// consumers' share (`.maxnreg`, without `.minnctapersm`): the PTX of a
/// query module that holds those kernels alone, `shares` naming each with
/// its registers. Over the schedule fuzzer's seeds 87-93 (--hopper-only,
/// 1,259 such kernels) the copies spilled more than 32 bytes in every
/// kernel spilling more than 64 whole but where the producer spilled, and
/// in 1-8 a seed that spill nothing whole (relocatable code, more than 64:
/// 23-29).
static FailureOr<std::string>
emitConsumersShare(ModuleOp module, const llvm::StringMap<int64_t> &shares) {
  std::string ptx;
  OpBuilder builder(module.getContext());
  for (auto gpuModule : llvm::to_vector(module.getOps<gpu::GPUModuleOp>())) {
    if (llvm::none_of(gpuModule.getOps<LLVM::LLVMFuncOp>(),
                      [&](LLVM::LLVMFuncOp func) {
                        return shares.contains(func.getName());
                      }))
      continue;
    builder.setInsertionPointAfter(gpuModule);
    auto query = cast<gpu::GPUModuleOp>(builder.clone(*gpuModule));
    query.setName((gpuModule.getName() + "_query").str());
    for (auto func : llvm::to_vector(query.getOps<LLVM::LLVMFuncOp>())) {
      if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
        continue;
      auto share = shares.find(func.getName());
      if (share == shares.end()) {
        func.erase();
        continue;
      }
      func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                    builder.getI32IntegerAttr(int32_t(share->second)));
      func->removeAttr(NVVM::NVVMDialect::getMinctasmAttrName());
    }
    FailureOr<gemm::DeviceCode> code = gemm::serializeToPTX(query);
    query.erase();
    if (failed(code))
      return failure();
    ptx += code->ptx;
  }
  return ptx;
}

/// The spill warnings the checks held back (`checked`, in the order of
/// `contracts`): ptxas assembles `ptx`, or the consumers' share of a kernel
/// that splits the registers (emitConsumersShare, from `module`), where one
/// is held, and each is given if its kernel spills there (or, without the
/// library, as the model's).
static LogicalResult reportHeldSpills(ModuleOp module,
                                      ArrayRef<CheckedKernel> checked,
                                      ArrayRef<gemm::KernelContract> contracts,
                                      StringRef ptx, StringRef arch,
                                      llvm::SourceMgr &sourceMgr) {
  // The producer's warnings stand whatever ptxas says (reportSpills).
  auto asksPtxas = [](const CheckedKernel &kernel) {
    return llvm::any_of(kernel.spills, [](const SpillWarning &spill) {
      return !spill.producer;
    });
  };
  llvm::StringMap<int64_t> shares;
  bool asEmitted = false;
  for (auto [kernel, contract] : llvm::zip_equal(checked, contracts)) {
    if (!asksPtxas(kernel))
      continue;
    if (kernel.facts.registerSplit)
      shares[contract.entry] = kernel.facts.registerCap;
    else
      asEmitted = true;
  }
  PtxasReport report, shared;
  if (asEmitted)
    report = assembleWithPtxas(ptx, arch);
  if (!shares.empty()) {
    FailureOr<std::string> query = emitConsumersShare(module, shares);
    if (failed(query))
      return failure();
    shared = assembleWithPtxas(*query, arch);
  }
  for (auto [kernel, contract] : llvm::zip_equal(checked, contracts)) {
    if (kernel.spills.empty())
      continue;
    SpillVerdict verdict;
    if (!asksPtxas(kernel)) {
      reportSpills(kernel.spills, verdict, sourceMgr);
      continue;
    }
    const PtxasReport &asked = kernel.facts.registerSplit ? shared : report;
    if (asked.status == PtxasReport::Status::Rejected) {
      sourceMgr.PrintMessage(kernel.spills.front().loc,
                             llvm::SourceMgr::DK_Error,
                             "ptxas rejects the PTX gemmc emitted (a bug in "
                             "gemmc): " +
                                 StringRef(asked.log).trim());
      return failure();
    }
    verdict.estimate = kernel.facts.registerPressure;
    verdict.cap = kernel.facts.registerCap;
    verdict.warpgroup = kernel.schedule.wgmma.has_value();
    verdict.registerSplit = kernel.facts.registerSplit;
    auto found = asked.kernels.find(contract.entry);
    if (found != asked.kernels.end()) {
      verdict.asked = true;
      verdict.registers = found->second.registers;
      verdict.spillStoreBytes = found->second.spillStoreBytes;
    } else {
      verdict.why = asked.status == PtxasReport::Status::Assembled
                        ? "its report names no kernel '" + contract.entry + "'"
                        : asked.log;
    }
    reportSpills(kernel.spills, verdict, sourceMgr);
  }
  return success();
}

static LogicalResult
runPipeline(ModuleOp module, const CompileOptions &options,
            llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module->getContext());
  if (options.configurePassManager && failed(options.configurePassManager(pm)))
    return failure();
  build(pm);
  return pm.run(module);
}

LogicalResult gemmc::compileSchedule(MLIRContext &ctx,
                                     llvm::SourceMgr &sourceMgr,
                                     const CompileOptions &options,
                                     llvm::raw_ostream &os) {
  if (!lookupArch(options.arch))
    return emitError(UnknownLoc::get(&ctx))
           << "unsupported arch '" << options.arch << "' (expected one of "
           << getSupportedArchList() << ")";
  bool done = false;
  std::optional<KernelDecl> file;
  SmallVector<CheckedKernel, 1> checked;
  OwningOpRef<ModuleOp> module =
      parseSchedule(ctx, sourceMgr, options, os, done, file, checked);
  if (done)
    return success();
  if (!module)
    return failure();
  if (options.emit == EmitKind::MLIR) {
    module->print(os);
    return success();
  }

  if (failed(runPipeline(*module, options, gemm::buildScheduleToGPUPipeline)))
    return failure();
  if (file->isFamily() && failed(mergeGPUModules(*module, file->name)))
    return failure();
  if (options.emit == EmitKind::GPU) {
    module->print(os);
    return success();
  }

  // The contract is read off the kernels before they become llvm.func.
  SmallVector<gemm::KernelContract, 1> contracts;
  WalkResult walk = module->walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return WalkResult::advance();
    FailureOr<gemm::KernelContract> contract =
        gemm::getKernelContract(func, options.arch, options.sourceName);
    if (failed(contract))
      return WalkResult::interrupt();
    contracts.push_back(std::move(*contract));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (file->isFamily() && failed(describeFamily(*file, contracts, sourceMgr)))
    return failure();

  // The kernels' launch attributes give the index width (the schedule
  // model's: 64 bits where nvgpu's ops are used), each gpu.module's through
  // its data layout, and their problems the calling convention: memref
  // descriptors for sizes given at launch.
  gemm::LowerToNVVMOptions lowering;
  lowering.chip = options.arch;
  // The least PTX version the chip takes (8.0 for sm_90a), unless a kernel
  // rewrites tensor maps on the device (tensormap.replace and its proxy
  // fences: 8.3).
  if (llvm::any_of(contracts, rewritesTensorMaps))
    lowering.features = "+ptx83";
  lowering.indexBitwidth = kDeriveIndexBitwidthFromDataLayout;
  bool dynamic = false;
  for (const gemm::KernelContract &contract : contracts)
    dynamic |= contract.descriptors;
  lowering.barePointers = !dynamic;
  setIndexWidths(*module);
  if (failed(runPipeline(*module, options, [&](OpPassManager &pm) {
        gemm::buildGPUToNVVMPipeline(pm, lowering);
      })))
    return failure();
  dropIndexWidths(*module);
  if (file->isFamily() && failed(mergeGPUModules(*module, file->name)))
    return failure();

  std::string ptx;
  for (auto gpuModule : module->getOps<gpu::GPUModuleOp>()) {
    FailureOr<gemm::DeviceCode> code =
        gemm::serializeToPTX(gpuModule, options.emit == EmitKind::LLVM);
    if (failed(code))
      return failure();
    if (options.emit == EmitKind::LLVM) {
      os << code->llvmIR;
      continue;
    }
    ptx += code->ptx;
  }
  if (options.emit == EmitKind::LLVM)
    return success();
  if (failed(reportHeldSpills(*module, checked, contracts, ptx, options.arch,
                              sourceMgr)))
    return failure();

  std::string block;
  for (const gemm::KernelContract &contract : contracts)
    block += gemm::formatContract(contract);
  os << gemm::insertContract(ptx, block);
  return success();
}

CompileResult gemmc::compileBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                   const CompileOptions &options) {
  DialectRegistry registry;
  gemm::registerGemmcDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  CompileResult result;
  llvm::raw_string_ostream errors(result.diagnostics);
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *os) {
        d.print(nullptr, *static_cast<llvm::raw_string_ostream *>(os),
                /*ShowColors=*/false);
      },
      &errors);
  SourceMgrDiagnosticHandler passErrors(sourceMgr, &ctx, errors);
  llvm::raw_string_ostream os(result.output);
  result.succeeded = succeeded(compileSchedule(ctx, sourceMgr, options, os));
  if (!result.succeeded)
    result.output.clear();
  return result;
}
