//===- AST.cpp - names and printing of the syntax tree --------------------===//

#include "gemmc/Frontend/AST.h"
#include "gemmc/Frontend/Sema.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace gemmc;
using llvm::StringRef;

static void printSize(llvm::raw_ostream &os, const SizeDecl &size) {
  if (size.isDynamic())
    os << "?";
  else
    os << *size.value;
}

static void printShape(llvm::raw_ostream &os, llvm::ArrayRef<int64_t> shape) {
  llvm::interleave(shape, os, "x");
}

static void printOperands(llvm::raw_ostream &os, const Directive &d) {
  if (d.operandA)
    os << " a";
  if (d.operandB)
    os << " b";
  if (d.operandC)
    os << " c";
}

static void printDirective(llvm::raw_ostream &os, const Directive &d) {
  os << stringify(d.kind);
  switch (d.kind) {
  case DirectiveKind::Tile:
  case DirectiveKind::RegisterTile:
  case DirectiveKind::WarpTile:
  case DirectiveKind::Cluster:
    os << " ";
    printShape(os, d.shape);
    break;
  case DirectiveKind::Coalesce:
  case DirectiveKind::Transpose:
    break;
  case DirectiveKind::Promote:
    printOperands(os, d);
    if (d.pad)
      os << " pad " << d.pad;
    if (d.swizzle)
      os << " swizzle";
    if (d.transposeA)
      os << " transpose-a";
    break;
  case DirectiveKind::Vectorize:
    if (d.globalLoadA == d.globalLoadB)
      os << " global-load " << d.globalLoadA;
    else
      os << " global-load a " << d.globalLoadA << " global-load b "
         << d.globalLoadB;
    os << " shared-load " << d.sharedLoad
       << " shared-store " << d.sharedStore << " global-store "
       << d.globalStore;
    break;
  case DirectiveKind::Mma:
  case DirectiveKind::Wgmma:
    os << " m" << d.shape[0] << "n" << d.shape[1] << "k" << d.shape[2];
    if (d.registersA)
      os << " registers";
    break;
  case DirectiveKind::Tma:
    printOperands(os, d);
    break;
  case DirectiveKind::Persistent:
    if (d.streamK)
      os << " stream-k";
    break;
  case DirectiveKind::Pipeline:
    os << " stages " << d.stages;
    if (d.registerDoubleBuffer)
      os << " registers";
    if (d.cpAsync)
      os << " cp-async";
    break;
  case DirectiveKind::SplitK:
    if (d.count == 0) {
      os << " ?";
      break;
    }
    [[fallthrough]];
  case DirectiveKind::Raster:
  case DirectiveKind::SliceK:
  case DirectiveKind::BlocksPerSM:
    os << " " << d.count;
    break;
  case DirectiveKind::WarpSpecialize:
    os << " " << d.count << (d.pingPong ? " ping-pong" : "");
    break;
  case DirectiveKind::Unroll:
    if (d.count == 0)
      os << " full";
    else
      os << " " << d.count;
    break;
  case DirectiveKind::Edges:
    os << (d.splitEdges ? " split" : " guard");
    break;
  }
}

void gemmc::dump(const KernelDecl &kernel, const ScheduleFacts &facts,
                 llvm::raw_ostream &os) {
  const ProblemDecl &p = *kernel.problem;
  auto matrix = [&](const char *name, const std::optional<MatrixDecl> &m) {
    os << " " << name << "=" << stringify(m ? m->type : ElementType::F32) << ":"
       << stringify(m ? m->layout : MatrixLayout::Row);
  };
  os << "kernel " << kernel.name << "\n";
  os << "  problem m=";
  printSize(os, *p.m);
  os << " n=";
  printSize(os, *p.n);
  os << " k=";
  printSize(os, *p.k);
  matrix("a", p.a);
  matrix("b", p.b);
  matrix("c", p.c);
  os << " acc=" << stringify(p.acc ? p.acc->type : ElementType::F32);
  os << " math=" << stringify(p.math ? p.math->mode : MathMode::Exact);
  os << " epilogue="
     << stringify(p.epilogue ? p.epilogue->kind : Epilogue::Store);
  if (p.bias)
    os << " bias=" << (p.bias->kind == BiasKind::Row ? "row" : "col");
  if (p.scales)
    os << " scales=" << stringify(p.scales->kind);
  if (p.activation && p.activation->kind != Activation::None)
    os << " activation=" << stringify(p.activation->kind);
  if (p.residual)
    os << " residual=add";
  if (p.amax)
    os << " amax=c";
  if (p.outputScale)
    os << " output-scale=tensor";
  if (p.batch) {
    os << " batch=";
    printSize(os, p.batch->count);
    if (p.batch->strides)
      os << " strides=" << (*p.batch->strides)[0] << ","
         << (*p.batch->strides)[1] << "," << (*p.batch->strides)[2];
  }
  if (p.groups) {
    os << " groups=";
    printSize(os, p.groups->count);
  }
  os << "\n  schedule\n";
  for (const Directive &d : kernel.schedule->directives) {
    os << "    ";
    printDirective(os, d);
    os << "\n";
  }
  os << "  facts threads=" << facts.threadsPerBlock
     << " shared-bytes=" << facts.sharedBytes << " registers~"
     << facts.registers;
  if (facts.workspaceFloatsPerTile)
    os << " workspace-floats-per-tile=" << facts.workspaceFloatsPerTile;
  if (facts.workspaceFloatsPerSplit)
    os << " workspace-floats-per-split=" << facts.workspaceFloatsPerSplit;
  os << "\n";
}
