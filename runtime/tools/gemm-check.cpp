//===- gemm-check.cpp - run gemmc's PTX and check it against fp64 -------===//
//
// gemm-check [options] KERNEL.ptx...
//
// JIT-loads each PTX file with the CUDA driver API, launches its kernel as
// the kernel contract says on random inputs (output poisoned with NaN first),
// compares the result with an fp64 CPU reference, and times it (CUDA events,
// median of --runs launches after --warmup).
//
// Exit status: 0 every kernel passed; 1 a kernel failed or an error occurred;
// 2 bad usage; 3 no GPU (no driver or no device).
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/BenchOptions.h"
#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Driver.h"
#include "gemmc-rt/Host.h"
#include "gemmc-rt/Launch.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace gemmc::rt;

namespace {
struct Options {
  std::vector<std::string> files;
  bool printContract = false;
  uint64_t seed = 1;
  int runs = 20;
  int warmup = 5;
  double tolerance = 0; ///< 0: by precision and K (toleranceFor)
  int optLevel = 4;
  int64_t fullLimit = int64_t(1) << 31;
  int64_t samples = 4096;
  int device = 0;
};
} // namespace

static const char *kUsage =
    "usage: gemm-check [options] KERNEL.ptx...\n"
    "  --print-contract   print each file's kernel contracts and exit "
    "(no GPU needed)\n"
    "  --seed N           seed of the random inputs (default 1)\n"
    "  --runs N           timed launches; the median is reported (default "
    "20)\n"
    "  --warmup N         untimed launches first (default 5)\n"
    "  --tolerance X      largest relative Frobenius error that passes\n"
    "                     (default by precision and K: 1e-5 + 2^-23 sqrt(K) "
    "for f32)\n"
    "  --opt-level N      JIT optimisation level 0-4 (default 4)\n"
    "  --full-limit N     compare every entry of C while M*N*K <= N, else a "
    "sample (default 2^31)\n"
    "  --samples N        entries compared when sampling (default 4096)\n"
    "  --device N         CUDA device ordinal (default 0)\n"
    "exit status: 0 all passed, 1 a failure or error, 2 bad usage, 3 no GPU\n";

static bool parseOptions(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](auto &out) {
      if (i + 1 >= argc) {
        std::cerr << "gemm-check: error: " << arg << " needs a value\n";
        return false;
      }
      std::istringstream is(argv[++i]);
      if (!(is >> out) || !is.eof()) {
        std::cerr << "gemm-check: error: bad value '" << argv[i] << "' for "
                  << arg << "\n";
        return false;
      }
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (arg == "--print-contract")
      o.printContract = true;
    else if (arg == "--seed") {
      if (!value(o.seed))
        return false;
    } else if (arg == "--runs") {
      if (!value(o.runs) || o.runs < 1)
        return false;
    } else if (arg == "--warmup") {
      if (!value(o.warmup) || o.warmup < 0)
        return false;
    } else if (arg == "--tolerance") {
      if (!value(o.tolerance))
        return false;
    } else if (arg == "--opt-level") {
      if (!value(o.optLevel) || o.optLevel < 0 || o.optLevel > 4)
        return false;
    } else if (arg == "--full-limit") {
      if (!value(o.fullLimit))
        return false;
    } else if (arg == "--samples") {
      if (!value(o.samples) || o.samples < 1)
        return false;
    } else if (arg == "--device") {
      if (!value(o.device))
        return false;
    } else if (arg.rfind("-", 0) == 0) {
      std::cerr << "gemm-check: error: unknown option '" << arg << "'\n"
                << kUsage;
      return false;
    } else
      o.files.push_back(arg);
  }
  if (o.files.empty()) {
    std::cerr << "gemm-check: error: no PTX file given\n" << kUsage;
    return false;
  }
  return true;
}

/// Verifies then times one kernel; returns whether it passed.
static bool checkKernel(const Options &o, const std::string &file) {
  ContractKernel kernel(readFile(file), file, o.optLevel);
  const Problem &p = kernel.contract().problem;
  if (!kernel.contract().family.empty())
    throw std::runtime_error(file + ": gemm-check runs one kernel; use "
                                    "gemm-bench for a family's variants");
  if (p.m == 0 || p.n == 0 || p.k == 0)
    throw std::runtime_error(file + ": gemm-check runs kernels of fixed "
                                    "size; use gemm-bench --size for this "
                                    "one");
  if (p.a != DType::F32 || p.b != DType::F32 || p.c != DType::F32)
    throw std::runtime_error(file + ": gemm-check handles f32 problems only");
  std::string why = kernel.whyNot(p);
  if (!why.empty())
    throw std::runtime_error(file + ": cannot run: " + why);

  HostMatrix a(p.m, p.k, p.aLayout), b(p.k, p.n, p.bLayout),
      c(p.m, p.n, p.cLayout);
  fillRandom(a, o.seed);
  fillRandom(b, o.seed + 1);
  DeviceBuffer da(a.bytes()), db(b.bytes()), dc(c.bytes());
  da.upload(a.data.data());
  db.upload(b.data.data());

  // Verify first: poison C with NaN so that an unwritten entry fails.
  dc.fill32(0x7fc00000u);
  Operands operands{da.ptr(), db.ptr(), dc.ptr()};
  kernel.launch(operands, p);
  GEMMC_CU(DriverApi::get().cuCtxSynchronize());
  dc.download(c.data.data());
  Sample sample =
      chooseSample(p.m, p.n, p.k, o.fullLimit, o.samples, o.seed + 2);
  Comparison cmp = compareWithReference(a, b, c, sample);
  double tolerance =
      o.tolerance > 0
          ? o.tolerance
          : toleranceFor(p.a, p.c, p.tf32 ? MathMode::TF32 : MathMode::Exact,
                         p.k);
  bool pass = cmp.nonFinite == 0 && cmp.relFrobenius <= tolerance;

  const KernelInfo &info = kernel.info();
  std::printf("%-22s %lldx%lldx%lld a=%s b=%s c=%s\n",
              kernel.contract().entry.c_str(), (long long)p.m,
              (long long)p.n, (long long)p.k, toString(p.aLayout),
              toString(p.bLayout), toString(p.cLayout));
  std::printf("  check   %s: rel. Frobenius error %.3e, max abs error %.3e "
              "over %lld entries%s, %lld non-finite (tolerance %.1e)\n",
              pass ? "PASS" : "FAIL", cmp.relFrobenius, cmp.maxAbs,
              (long long)cmp.entries,
              cmp.entries == p.m * p.n ? " (all)" : " (sampled)",
              (long long)cmp.nonFinite, tolerance);
  std::printf("  jit     %d registers, %d bytes local (spill), %d bytes "
              "static shared, %lld bytes dynamic shared\n",
              info.registers, info.localBytes, info.staticSharedBytes,
              (long long)kernel.contract().dynamicSharedBytes);
  if (!pass)
    return false;

  for (int i = 0; i < o.warmup; ++i)
    kernel.launch(operands, p);
  EventTimer timer;
  std::vector<float> times;
  for (int i = 0; i < o.runs; ++i) {
    timer.start();
    kernel.launch(operands, p);
    times.push_back(timer.stop());
  }
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2];
  double tflops = 2.0 * p.m * p.n * p.k / (median * 1e-3) / 1e12;
  std::printf("  time    median %.4f ms (min %.4f, max %.4f, %d runs), "
              "%.3f TFLOP/s\n",
              median, times.front(), times.back(), o.runs, tflops);
  return true;
}

int main(int argc, char **argv) {
  Options o;
  if (!parseOptions(argc, argv, o))
    return 2;

  if (o.printContract) {
    bool ok = true;
    for (const std::string &file : o.files) {
      try {
        std::vector<Contract> contracts;
        std::string error;
        if (!parseContracts(readFile(file), contracts, error)) {
          std::cerr << "gemm-check: error: " << file << ": " << error << "\n";
          ok = false;
          continue;
        }
        for (const Contract &contract : contracts)
          std::cout << formatContract(contract);
      } catch (const std::exception &e) {
        std::cerr << "gemm-check: error: " << e.what() << "\n";
        ok = false;
      }
    }
    return ok ? 0 : 1;
  }

  try {
    Device device = Device::open(o.device);
    int driver = 0;
    GEMMC_CU(DriverApi::get().cuDriverGetVersion(&driver));
    std::printf("GPU: %s, sm_%d%d, %d SMs, %d MHz; driver %d.%d\n",
                device.name.c_str(), device.major, device.minor,
                device.smCount, device.clockKHz / 1000, driver / 1000,
                (driver % 1000) / 10);
  } catch (const NoGpuError &e) {
    std::cerr << "gemm-check: " << e.what() << "\n";
    return 3;
  } catch (const std::exception &e) {
    std::cerr << "gemm-check: error: " << e.what() << "\n";
    return 1;
  }

  int failures = 0;
  for (const std::string &file : o.files) {
    try {
      if (!checkKernel(o, file))
        ++failures;
    } catch (const std::exception &e) {
      std::cerr << "gemm-check: error: " << e.what() << "\n";
      ++failures;
    }
  }
  std::printf("%zu kernels, %d failed\n", o.files.size(), failures);
  return failures ? 1 : 0;
}
