//===- Printer.cpp - schedule files from the schedule model --------------===//
//
// docs/dsl.md's syntax, written from the model: the inverse of the parser
// and Sema for everything the model holds.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Frontend/Printer.h"
#include "llvm/ADT/STLExtras.h"

using namespace gemmc;

static void printSize(llvm::raw_ostream &os, const std::optional<int64_t> &size) {
  if (size)
    os << *size;
  else
    os << "?";
}

void gemmc::printProblem(llvm::raw_ostream &os, const Problem &p,
                         llvm::StringRef indent) {
  os << indent << "m = ";
  printSize(os, p.m);
  os << "\n" << indent << "n = ";
  printSize(os, p.n);
  os << "\n" << indent << "k = ";
  printSize(os, p.k);
  os << "\n";
  auto matrix = [&](const char *operand, ElementType type,
                    MatrixLayout layout) {
    os << indent << operand << " = " << stringify(type) << " "
       << stringify(layout) << "\n";
  };
  matrix("a", p.a, p.aLayout);
  matrix("b", p.b, p.bLayout);
  matrix("c", p.c, p.cLayout);
  if (p.acc != ElementType::F32)
    os << indent << "accumulate = " << stringify(p.acc) << "\n";
  if (p.fastAccumulate)
    os << indent << "math = fast-accumulate\n";
  else if (p.tf32x3)
    os << indent << "math = tf32x3\n";
  else if (p.tf32)
    os << indent << "math = tf32\n";
  if (p.alphaBeta)
    os << indent << "epilogue = alpha-beta\n";
  if (p.bias)
    os << indent << "bias = " << stringify(*p.bias) << "\n";
  if (p.scales)
    os << indent << "scales = " << stringify(*p.scales) << "\n";
  if (p.activation != Activation::None)
    os << indent << "activation = " << stringify(p.activation) << "\n";
  if (p.residual)
    os << indent << "residual = add\n";
  if (p.amax)
    os << indent << "amax = c\n";
  if (p.outputScale)
    os << indent << "output-scale = tensor\n";
  if (p.batched) {
    os << indent << "batch = ";
    printSize(os, p.batchCount);
    if (p.batchStrides)
      os << " strides " << (*p.batchStrides)[0] << " " << (*p.batchStrides)[1]
         << " " << (*p.batchStrides)[2];
    os << "\n";
  }
  if (p.grouped) {
    os << indent << "groups = ";
    printSize(os, p.groupCount);
    os << "\n";
  }
}

void gemmc::printDirectives(llvm::raw_ostream &os, const Schedule &s,
                            llvm::StringRef indent) {
  auto shape = [&](llvm::ArrayRef<int64_t> sizes) {
    llvm::interleave(sizes, os, "x");
  };
  if (s.transpose)
    os << indent << "transpose\n";
  os << indent << "tile ";
  shape(s.tile);
  os << "\n";
  if (s.coalesce)
    os << indent << "coalesce\n";
  if (s.warpTile) {
    os << indent << "warp-tile ";
    shape(*s.warpTile);
    os << "\n";
  }
  if (s.registerTile) {
    os << indent << "register-tile ";
    shape(*s.registerTile);
    os << "\n";
  }
  if (s.mma)
    os << indent << "mma m" << (*s.mma)[0] << "n" << (*s.mma)[1] << "k"
       << (*s.mma)[2] << "\n";
  if (s.wgmma)
    os << indent << "wgmma m" << (*s.wgmma)[0] << "n" << (*s.wgmma)[1] << "k"
       << (*s.wgmma)[2] << (s.wgmmaRegistersA ? " registers" : "") << "\n";
  if (s.hasPromotion()) {
    os << indent << "promote" << (s.promoteA ? " a" : "")
       << (s.promoteB ? " b" : "");
    if (s.pad)
      os << " pad " << s.pad;
    if (s.swizzle)
      os << " swizzle";
    if (s.transposeA)
      os << " transpose-a";
    os << "\n";
  }
  if (s.hasTma() || s.tmaC)
    os << indent << "tma" << (s.tmaA ? " a" : "") << (s.tmaB ? " b" : "")
       << (s.tmaC ? " c" : "") << "\n";
  if (s.vectorize) {
    os << indent << "vectorize global-load ";
    if (s.globalLoadB)
      os << "a " << s.globalLoadWidth(Operand::A) << " global-load b "
         << *s.globalLoadB;
    else
      os << s.globalLoadWidth(Operand::A);
    os << " shared-load " << s.sharedLoadWidth() << " shared-store "
       << s.sharedStoreWidth() << " global-store " << s.globalStoreWidth()
       << "\n";
  }
  if (s.isPipelined())
    os << indent << "pipeline stages " << s.stages
       << (s.registerDoubleBuffer ? " registers" : "")
       << (s.cpAsync ? " cp-async" : "") << "\n";
  if (s.consumers)
    os << indent << "warp-specialize " << *s.consumers
       << (s.pingPong ? " ping-pong" : "") << "\n";
  if (s.persistent)
    os << indent << "persistent" << (s.streamK ? " stream-k" : "") << "\n";
  if (s.cluster) {
    os << indent << "cluster ";
    shape(*s.cluster);
    os << "\n";
  }
  if (s.raster)
    os << indent << "raster " << *s.raster << "\n";
  if (s.unroll) {
    os << indent << "unroll ";
    if (*s.unroll == 0)
      os << "full";
    else
      os << *s.unroll;
    os << "\n";
  }
  if (s.splitEdges)
    os << indent << "edges split\n";
  if (s.splitsAtLaunch())
    os << indent << "split-k ?\n";
  else if (s.splitK)
    os << indent << "split-k " << *s.splitK << "\n";
  if (s.sliceK)
    os << indent << "slice-k " << *s.sliceK << "\n";
  if (s.blocksPerSM)
    os << indent << "blocks-per-sm " << *s.blocksPerSM << "\n";
}

void gemmc::printKernel(llvm::raw_ostream &os, llvm::StringRef name,
                        const Problem &problem, const Schedule &schedule) {
  os << "kernel " << name << " {\n  problem {\n";
  printProblem(os, problem, "    ");
  os << "  }\n  schedule {\n";
  printDirectives(os, schedule, "    ");
  os << "  }\n}\n";
}
