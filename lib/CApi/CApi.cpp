//===- CApi.cpp - the C API of gemmc's compiler ---------------------------===//
//
// gemmc_compile and gemmc_compile_file: the whole compilation in this
// process, in a context of its own per call (so calls from several threads
// run at once), with the diagnostics gathered into the thread's message.
//
//===----------------------------------------------------------------------===//

#include "gemmc/gemmc.h"
#include "gemmc-rt/CApi.h"
#include "gemmc/Compiler/Compile.h"
#include "llvm/Support/MemoryBuffer.h"

namespace capi = gemmc::rt::capi;

/// Compiles `buffer` for `arch`; the PTX goes to *ptx.
static gemmc_status compile(std::unique_ptr<llvm::MemoryBuffer> buffer,
                            const char *arch, char **ptx) {
  gemmc::CompileOptions options;
  if (arch)
    options.arch = arch;
  options.sourceName = buffer->getBufferIdentifier().str();
  gemmc::CompileResult result =
      gemmc::compileBuffer(std::move(buffer), options);
  if (!result.succeeded) {
    std::string &diagnostics = result.diagnostics;
    if (diagnostics.empty())
      diagnostics = options.sourceName + ": compilation failed";
    while (!diagnostics.empty() && diagnostics.back() == '\n')
      diagnostics.pop_back();
    return capi::fail(GEMMC_ERROR_COMPILE, diagnostics);
  }
  *ptx = capi::copyOut(result.output);
  if (!*ptx)
    return capi::fail(GEMMC_ERROR_INTERNAL, "out of host memory");
  return capi::succeed();
}

extern "C" gemmc_status gemmc_compile(const char *text,
                                      const char *source_name,
                                      const char *arch, char **ptx) {
  if (!text || !ptx)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_compile: text and ptx must not be null");
  *ptx = nullptr;
  return compile(llvm::MemoryBuffer::getMemBufferCopy(
                     text, source_name ? source_name : "<schedule>"),
                 arch, ptx);
}

extern "C" gemmc_status gemmc_compile_file(const char *path, const char *arch,
                                           char **ptx) {
  if (!path || !ptx)
    return capi::fail(GEMMC_ERROR_INVALID_ARGUMENT,
                      "gemmc_compile_file: path and ptx must not be null");
  *ptx = nullptr;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return capi::fail(GEMMC_ERROR_IO, std::string("cannot read ") + path +
                                          ": " + buffer.getError().message());
  return compile(std::move(*buffer), arch, ptx);
}
