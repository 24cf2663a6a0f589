//===- Report.cpp - what a run reports -----------------------------------===//
//
// gemm-bench's report: the table, CSV and JSON, and `--shapes`'s
// summary.
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/Bench.h"

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace gemmc::rt;

std::string gemmc::rt::fmt(double v, const char *format) {
  if (std::isnan(v))
    return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

std::string gemmc::rt::sizeStr(const Size &s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

void gemmc::rt::printTable(const std::vector<Result> &results) {
  std::printf("\n%-26s %-16s %-6s %10s %9s %9s %7s %5s %7s %7s %-21s %s\n",
              "kernel", "size", "status", "ms", "TFLOP/s", "xcuBLAS", "%peak",
              "regs", "smem", "spill", "rel.err(cuBLAS/fp64)",
              "fp64.err/cuBLAS's");
  for (const Result &r : results) {
    std::string smem =
        r.status == "SKIP"
            ? "-"
            : std::to_string(r.info.staticSharedBytes + r.dynamicShared);
    std::string errors =
        fmt(r.relToCublas, "%.2e") + "/" + fmt(r.relToFp64, "%.2e");
    std::printf(
        "%-26s %-16s %-6s %10s %9s %9s %7s %5s %7s %7s %-21s %8s%s%s\n",
        r.kernel.c_str(), sizeStr(r.size).c_str(), r.status.c_str(),
        fmt(r.ms, "%.4f").c_str(), fmt(r.tflops, "%.2f").c_str(),
        fmt(r.vsCublas, "%.3f").c_str(), fmt(r.peakShare * 100, "%.1f").c_str(),
        r.status == "SKIP" ? "-" : std::to_string(r.info.registers).c_str(),
        smem.c_str(),
        r.status == "SKIP" ? "-" : std::to_string(r.info.localBytes).c_str(),
        errors.c_str(), fmt(r.errorVsCublas, "%.2f").c_str(),
        r.note.empty() ? "" : "  ", r.note.c_str());
  }
}

static std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

static std::string jsonNumber(double v) {
  if (std::isnan(v))
    return "null";
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

/// A CSV field, quoted (RFC 4180) since names and notes may hold commas.
static std::string csvField(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"')
      out += '"';
    out += c;
  }
  return out + "\"";
}

/// The CSV of `results`, a header and a row each.
static void writeCsvRows(std::ostream &out, const std::string &gpu,
                         const std::vector<Result> &results) {
  out << "gpu,kernel,file,m,n,k,status,ms,tflops,x_cublas,peak_share,"
         "registers,shared_bytes,spill_bytes,rel_err_cublas,rel_err_fp64,"
         "fp64_err_vs_cublas,note\n";
  for (const Result &r : results)
    out << csvField(gpu) << "," << csvField(r.kernel) << "," << csvField(r.file)
        << "," << r.size.m << "," << r.size.n << "," << r.size.k << ","
        << r.status << "," << jsonNumber(r.ms) << "," << jsonNumber(r.tflops)
        << "," << jsonNumber(r.vsCublas) << "," << jsonNumber(r.peakShare)
        << "," << r.info.registers << ","
        << r.info.staticSharedBytes + r.dynamicShared << ","
        << r.info.localBytes << "," << jsonNumber(r.relToCublas) << ","
        << jsonNumber(r.relToFp64) << "," << jsonNumber(r.errorVsCublas) << ","
        << csvField(r.note) << "\n";
}

void gemmc::rt::writeCsv(const std::string &path, const std::string &gpu,
                     const std::vector<Result> &results) {
  // Written beside and renamed over the path, so that a process killed
  // while writing leaves the previous file whole.
  std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    writeCsvRows(out, gpu, results);
  }
  std::rename(partial.c_str(), path.c_str());
}

void gemmc::rt::writeJson(const std::string &path, const std::string &gpu,
                      const std::vector<Result> &results) {
  std::ofstream out(path);
  out << "{\n  \"gpu\": \"" << jsonEscape(gpu) << "\",\n  \"results\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    out << "    {\"kernel\": \"" << jsonEscape(r.kernel) << "\", \"file\": \""
        << jsonEscape(r.file) << "\", \"m\": " << r.size.m
        << ", \"n\": " << r.size.n << ", \"k\": " << r.size.k
        << ", \"status\": \"" << r.status << "\", \"ms\": " << jsonNumber(r.ms)
        << ", \"tflops\": " << jsonNumber(r.tflops)
        << ", \"x_cublas\": " << jsonNumber(r.vsCublas)
        << ", \"peak_share\": " << jsonNumber(r.peakShare)
        << ", \"registers\": " << r.info.registers
        << ", \"shared_bytes\": " << r.info.staticSharedBytes + r.dynamicShared
        << ", \"spill_bytes\": " << r.info.localBytes
        << ", \"rel_err_cublas\": " << jsonNumber(r.relToCublas)
        << ", \"rel_err_fp64\": " << jsonNumber(r.relToFp64)
        << ", \"fp64_err_vs_cublas\": " << jsonNumber(r.errorVsCublas)
        << ", \"note\": \"" << jsonEscape(r.note) << "\"}"
        << (i + 1 < results.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
}

/// `--shapes`: the outcome of the case whose results are `results`
/// (cuBLAS's first where it ran): the fastest verified kernel against
/// cuBLAS.
ShapeOutcome gemmc::rt::shapeOutcome(const Case &cs,
                                 const std::vector<Result> &results) {
  ShapeOutcome out;
  out.label = cs.label;
  out.status = "refused";
  for (const Result &r : results) {
    if (r.kernel == "cuBLAS") {
      out.cublasMs = r.ms;
      continue;
    }
    if (r.status == "FAIL")
      out.status = "FAIL";
    if (r.status != "PASS" || out.status == "FAIL")
      continue;
    if (out.status != "run" || r.ms < out.ms) {
      out.status = "run";
      out.kernel = r.kernel;
      out.ms = r.ms;
    }
  }
  out.ratio = out.cublasMs / out.ms;
  return out;
}

/// `--shapes`: each problem's best kernel and ratio, then the geometric
/// mean of the ratios, the lowest, and the problems refused or failed.
void gemmc::rt::printShapes(const BenchOptions &o,
                        const std::vector<ShapeOutcome> &outcomes) {
  std::printf("\n%-44s %-24s %10s %10s %9s\n", "problem", "best kernel", "ms",
              "cuBLAS ms", "xcuBLAS");
  double logSum = 0;
  int timed = 0, refused = 0, failed = 0;
  const ShapeOutcome *lowest = nullptr;
  for (const ShapeOutcome &s : outcomes) {
    std::printf("%-44s %-24s %10.4f %10.4f %9.3f%s\n", s.label.c_str(),
                s.status == "run" ? s.kernel.c_str() : s.status.c_str(), s.ms,
                s.cublasMs, s.ratio,
                s.status == "run" ? "" : ("  " + s.status).c_str());
    refused += s.status == "refused";
    failed += s.status == "FAIL";
    if (s.status != "run" || !(s.ratio > 0))
      continue;
    logSum += std::log(s.ratio);
    ++timed;
    if (!lowest || s.ratio < lowest->ratio)
      lowest = &s;
  }
  std::printf("shapes: %zu problems, %d timed, %d refused by every kernel, "
              "%d failed\n",
              outcomes.size(), timed, refused, failed);
  if (timed)
    std::printf("geometric mean x cuBLAS: %.3f over %d problems; lowest "
                "%.3f (%s, %s)\n",
                std::exp(logSum / timed), timed, lowest->ratio,
                lowest->label.c_str(), lowest->kernel.c_str());
  if (o.shapeSummary.empty())
    return;
  std::ofstream csv(o.shapeSummary);
  csv << "problem,kernel,status,ms,cublas_ms,ratio\n";
  for (const ShapeOutcome &s : outcomes)
    csv << s.label << "," << s.kernel << "," << s.status << "," << s.ms << ","
        << s.cublasMs << "," << s.ratio << "\n";
}

/// The line under the table: what was run and how.
void gemmc::rt::printSummary(const BenchOptions &o, const Bench &bench) {
  if (o.sweep) {
    std::printf("sweep: %lld random cases (seed %llu, sizes 1 to %lld), "
                "%d kernel runs verified, %d failed; untimed\n",
                (long long)o.count, (unsigned long long)o.seed,
                (long long)o.maxSize, bench.passed, bench.failures);
    return;
  }
  std::printf(
      "problem: A %s:%s, B %s:%s, C %s:%s, math %s%s; tolerance by "
      "precision%s; median of %d runs after %d warm-up%s; the GPU's time "
      "alone (each launch held back until enqueued)\n",
      toString(o.type), toString(o.aLayout), toString(o.bType),
      toString(o.bLayout), toString(o.cType), toString(o.cLayout),
      o.math == MathMode::TF32 ? "tf32" : "exact",
      o.alpha == 1 && o.beta == 0 ? ""
                                  : (", alpha " + std::to_string(o.alpha) +
                                     ", beta " + std::to_string(o.beta))
                                        .c_str(),
      o.tolerance > 0 ? (" (" + std::to_string(o.tolerance) + ")").c_str() : "",
      o.runs, o.warmup, o.flushL2 ? ", L2 flushed" : "");
}
