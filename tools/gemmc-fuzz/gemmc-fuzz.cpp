//===- gemmc-fuzz.cpp - libFuzzer target over gemmc's front-end -----------===//
//
// Feeds arbitrary bytes through the lexer, the parser, the semantic checks
// and the AST printer. Diagnostics are discarded; a crash, a sanitizer report,
// an assertion, a leak or a hang is a bug.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Frontend/Parser.h"
#include "gemmc/Frontend/Sema.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

static void discardDiagnostic(const llvm::SMDiagnostic &diagnostic,
                              void *printed) {
  // Render it anyway, so that locations and source lines are exercised.
  std::string text;
  llvm::raw_string_ostream os(text);
  diagnostic.print("gemmc-fuzz", os);
  *static_cast<size_t *>(printed) += text.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t printed = 0;
  llvm::SourceMgr sourceMgr;
  sourceMgr.setDiagHandler(discardDiagnostic, &printed);
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.gemm"),
      llvm::SMLoc());

  std::optional<gemmc::KernelDecl> kernel =
      gemmc::parseScheduleFile(sourceMgr);
  if (!kernel)
    return 0;
  for (llvm::StringRef arch : {"sm_80", "sm_90"}) {
    std::optional<gemmc::CheckedKernel> checked =
        gemmc::checkSchedule(*kernel, sourceMgr, arch);
    if (!checked)
      continue;
    std::string text;
    llvm::raw_string_ostream os(text);
    gemmc::dump(*kernel, checked->facts, os);
  }
  return 0;
}
