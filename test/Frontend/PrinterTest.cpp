//===- PrinterTest.cpp - the DSL printer reads back to the same model -----===//
//
// Every example and every shipped family's variants: parsed and checked,
// printed from the model (gemmc/Frontend/Printer.h), parsed and checked
// again: the same problem and schedule, and printing is a fixed point.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Frontend/Parser.h"
#include "gemmc/Frontend/Printer.h"
#include "gemmc/Frontend/Sema.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace gemmc;

namespace {
/// The kernels of a schedule file (each variant of a family as its own),
/// checked for `arch`; diagnostics (warnings too) go to `errors`.
std::vector<std::pair<std::string, CheckedKernel>>
checkText(llvm::StringRef text, llvm::StringRef arch, std::string &errors) {
  llvm::SourceMgr sourceMgr;
  llvm::raw_string_ostream os(errors);
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *out) {
        d.print("", *static_cast<llvm::raw_string_ostream *>(out));
      },
      &os);
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text),
                               llvm::SMLoc());
  std::vector<std::pair<std::string, CheckedKernel>> kernels;
  std::optional<KernelDecl> file = parseScheduleFile(sourceMgr);
  if (!file)
    return kernels;
  for (const KernelDecl &kernel : getKernels(*file))
    if (std::optional<CheckedKernel> checked =
            gemmc::checkSchedule(kernel, sourceMgr, arch))
      kernels.emplace_back(kernel.name, *checked);
  return kernels;
}

std::string print(llvm::StringRef name, const CheckedKernel &k) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printKernel(os, name, k.problem, k.schedule);
  return text;
}

std::string fields(const Schedule &s) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printScheduleFields(os, s);
  return text;
}

/// Round trip of every kernel of the file at `path`.
void roundTrip(const std::string &path, llvm::StringRef arch) {
  SCOPED_TRACE(path);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(buffer));
  std::string errors;
  auto kernels = checkText((*buffer)->getBuffer(), arch, errors);
  ASSERT_FALSE(kernels.empty()) << errors;
  for (const auto &[name, kernel] : kernels) {
    SCOPED_TRACE(name);
    std::string printed = print(name, kernel);
    std::string again;
    auto reparsed = checkText(printed, arch, again);
    ASSERT_EQ(reparsed.size(), 1u) << printed << again;
    const CheckedKernel &k = reparsed.front().second;
    EXPECT_EQ(fields(k.schedule), fields(kernel.schedule)) << printed;
    EXPECT_EQ(k.problem.m, kernel.problem.m);
    EXPECT_EQ(k.problem.n, kernel.problem.n);
    EXPECT_EQ(k.problem.k, kernel.problem.k);
    EXPECT_EQ(k.problem.a, kernel.problem.a);
    EXPECT_EQ(k.problem.c, kernel.problem.c);
    EXPECT_EQ(k.problem.aLayout, kernel.problem.aLayout);
    EXPECT_EQ(k.problem.bLayout, kernel.problem.bLayout);
    EXPECT_EQ(k.problem.cLayout, kernel.problem.cLayout);
    EXPECT_EQ(k.problem.tf32, kernel.problem.tf32);
    EXPECT_EQ(k.problem.tf32x3, kernel.problem.tf32x3);
    EXPECT_EQ(k.problem.alphaBeta, kernel.problem.alphaBeta);
    EXPECT_EQ(k.problem.bias, kernel.problem.bias);
    EXPECT_EQ(k.problem.activation, kernel.problem.activation);
    EXPECT_EQ(k.problem.residual, kernel.problem.residual);
    EXPECT_EQ(k.problem.batched, kernel.problem.batched);
    EXPECT_EQ(k.problem.batchCount, kernel.problem.batchCount);
    EXPECT_EQ(k.problem.batchStrides, kernel.problem.batchStrides);
    EXPECT_EQ(print(name, k), printed);
  }
}

/// The `.gemm` files under `dir` (of the source tree).
std::vector<std::string> schedules(const std::string &dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".gemm")
      paths.push_back(it->path());
  std::sort(paths.begin(), paths.end());
  return paths;
}
} // namespace

TEST(Printer, EveryExampleReadsBackToTheSameModel) {
  std::vector<std::string> paths = schedules(GEMMC_SOURCE_DIR "/examples");
  ASSERT_GE(paths.size(), 20u);
  for (const std::string &path : paths)
    roundTrip(path, path.find("hopper") != std::string::npos ? "sm_90a"
                                                              : "sm_90");
}

TEST(Printer, EveryShippedVariantReadsBackToTheSameModel) {
  // Four types (f32, tf32, f16, bf16) by four layouts; sm_90a's families
  // have batched twins, grouped kernels (f16 and bf16, B of either
  // layout; FP8's e4m3 into bf16, two kinds of scales, two of sums), the
  // general form's (f16 and bf16, B of either layout), and FP8's 44 scaled
  // families (three pairs of types, three of C, two kinds of scales, two
  // of sums; and with torch's bias e4m3 x e4m3 into bf16 or f16).
  for (const char *arch : {"sm_90a", "sm_80"}) {
    std::vector<std::string> paths =
        schedules(std::string(GEMMC_SOURCE_DIR "/families/") + arch);
    ASSERT_EQ(paths.size(), std::string(arch) == "sm_90a" ? 90u : 16u);
    for (const std::string &path : paths)
      roundTrip(path, arch);
  }
}

TEST(Printer, PrintsWhatDiffersFromTheDefaults) {
  Problem p;
  p.m = 64;
  p.k = 128;
  p.a = p.b = p.c = ElementType::F16;
  p.bLayout = MatrixLayout::Col;
  p.alphaBeta = true;
  p.bias = BiasKind::Col;
  p.activation = Activation::ReLU;
  p.residual = true;
  p.batched = true;
  p.batchCount = 4;
  std::string text;
  llvm::raw_string_ostream os(text);
  printProblem(os, p, "  ");
  EXPECT_EQ(text, "  m = 64\n  n = ?\n  k = 128\n  a = f16 row\n"
                  "  b = f16 col\n  c = f16 row\n  epilogue = alpha-beta\n"
                  "  bias = col\n  activation = relu\n  residual = add\n"
                  "  batch = 4\n");
}
