//===- PtxasTest.cpp - reading ptxas's verbose report ---------------------===//

#include "gemmc/Target/Ptxas.h"
#include "gtest/gtest.h"
#include <cstdlib>

using namespace gemmc;

// libnvJitLink's info log for a module of two kernels (CUDA 13.0): ptxas's
// own lines, then the linker's summary, which is left alone.
static const char *kLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'k_spills' for 'sm_90a'\n"
    "ptxas info    : Function properties for k_spills\n"
    "ptxas         .     144 bytes stack frame, 144 bytes spill stores, "
    "120 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 1 barriers, 144 bytes "
    "cumulative stack size, 1 bytes smem\n"
    "ptxas info    : Compiling entry function 'k_fits' for 'sm_90a'\n"
    "ptxas info    : Function properties for k_fits\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes "
    "spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers\n"
    "ptxas info    : Compile time = 8.117 ms\n"
    "info    : 0 bytes gmem\n"
    "info    : Function properties for 'k_fits':\n"
    "info    : used 99 registers, used 0 barriers, 0 stack, 0 bytes smem\n";

TEST(Ptxas, ReadsEachEntry) {
  llvm::StringMap<KernelResources> kernels = parsePtxasLog(kLog);
  ASSERT_EQ(kernels.size(), 2u);
  const KernelResources &spills = kernels.at("k_spills");
  EXPECT_EQ(spills.registers, 255);
  EXPECT_EQ(spills.spillStoreBytes, 144);
  EXPECT_EQ(spills.spillLoadBytes, 120);
  const KernelResources &fits = kernels.at("k_fits");
  EXPECT_EQ(fits.registers, 32);
  EXPECT_EQ(fits.spillStoreBytes, 0);
}

TEST(Ptxas, LinesBeforeAnEntryNameNone) {
  EXPECT_TRUE(parsePtxasLog("ptxas info    : Used 40 registers\n").empty());
  EXPECT_TRUE(parsePtxasLog("").empty());
}

// Without the library, the report says why and names no kernel. (The
// library is loaded once a process: this is the binary's only test that
// asks for it.)
TEST(Ptxas, UnavailableLibrary) {
  ASSERT_EQ(setenv("GEMMC_NVJITLINK", "/nonexistent/libnvJitLink.so.13", 1), 0);
  PtxasReport report = assembleWithPtxas(".version 8.0\n", "sm_90a");
  EXPECT_EQ(report.status, PtxasReport::Status::Unavailable);
  EXPECT_NE(report.log.find("libnvJitLink cannot be loaded"), std::string::npos);
  EXPECT_TRUE(report.kernels.empty());
}
