//===- BenchOptions.cpp - gemm-bench's command line ---------------------===//

#include "gemmc-rt/BenchOptions.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <sstream>

using namespace gemmc::rt;

const char *gemmc::rt::kBenchUsage =
    "usage: gemm-bench [options] [KERNEL.ptx...]\n"
    "Verifies, then times, each kernel and cuBLAS on the same random inputs.\n"
    "  --size S           problem sizes: N (N^3), MxNxK, or a comma list;\n"
    "                     default: each fixed-size kernel's own size\n"
    "  --dtype T          element type of A and B: f32, f16, bf16 (default:\n"
    "                     the first kernel's, else f32)\n"
    "  --ctype T          element type of C (default: as A and B)\n"
    "  --math M           exact or tf32, for f32 inputs (default: tf32 if\n"
    "                     the first kernel's contract says math=tf32)\n"
    "  --layout XYZ       layouts of A, B, C: r (row) or c (col), e.g. rrr\n"
    "  --no-cublas        do not run cuBLAS\n"
    "  --runs N           timed runs; the median is reported (default 20)\n"
    "  --warmup N         untimed runs first (default 5)\n"
    "  --flush-l2         overwrite a buffer larger than L2 before each run\n"
    "  --seed N           seed of the random inputs (default 1)\n"
    "  --samples N        entries checked against fp64 (default 1024)\n"
    "  --alpha X, --beta Y  C = alpha * A * B + beta * C (default 1 and 0;\n"
    "                     beta = 0 never reads C); kernels without alpha and\n"
    "                     beta parameters are skipped unless 1 and 0\n"
    "  --bias row|col     then + bias[row] or bias[col] (random, seed + 4)\n"
    "  --scales S         FP8's scales of A and B: tensor, rowwise, block or "
    "none\n"
    "                     (random; default: the first kernel's)\n"
    "  --batch N          a batch of N GEMMs, dense (default: the first\n"
    "                     kernel's batch and strides)\n"
    "  --lda N, --ldb N, --ldc N  leading dimensions (default: dense);\n"
    "                     kernels that take them at launch only\n"
    "  --sweep random     verify (untimed) random cases instead: sizes from\n"
    "                     1 to --max-size (default 3000, primes included),\n"
    "                     padded leading dimensions, random beta for\n"
    "                     alpha-beta kernels; each case runs one kernel\n"
    "                     (in turn) with its layouts and batch, and cuBLAS\n"
    "  --count N          cases of the sweep (default 100); --seed seeds it\n"
    "  --grouped FILE     a grouped kernel's problems (one `groups=G\n"
    "                     tokens=T n=N k=K routing=balanced|zipf` per line):\n"
    "                     each verified group by group against cuBLAS and\n"
    "                     fp64, then timed beside a loop of cuBLAS calls (on\n"
    "                     the GPU, and with the loop's host synchronisation)\n"
    "  --shapes FILE      time a list of problems (one `MxNxK [lda=L ldb=L\n"
    "                     ldc=L batch=B]` per line, `#` comments): each\n"
    "                     kernel that takes one runs it; prints the best\n"
    "                     kernel's ratio to cuBLAS per problem and their\n"
    "                     geometric mean\n"
    "  --shape-summary FILE  also write that summary as CSV\n"
    "  --results FILE     with --shapes: append each kernel's outcome per\n"
    "                     problem to FILE as it comes, and skip what FILE\n"
    "                     already holds (a run cut short resumes)\n"
    "  --budget SECONDS   start no problem after this long\n"
    "  --splits N         kernels that choose their splits of K at launch\n"
    "                     (split-k ?) run with N (at most what fits;\n"
    "                     default: the cost model's count, in a sweep a\n"
    "                     random count)\n"
    "  --autotune N       a family runs each problem on the fastest of the\n"
    "                     cost model's first N variants (within 1.5x of\n"
    "                     its first prediction), timed on the problem's\n"
    "                     operands first (docs/selection.md); with\n"
    "                     --explain, the variants it would time\n"
    "  --prune F          with --shapes: run a kernel on a problem only if\n"
    "                     the cost model predicts it at most F times slower\n"
    "                     than the fastest prediction among the kernels\n"
    "  --activation A     then relu, gelu, gelu-tanh or silu (--relu: relu)\n"
    "  --relu             then ReLU; kernels run only with the epilogue\n"
    "                     their contract states (cuBLAS's result gets the\n"
    "                     bias and ReLU on the host, untimed)\n"
    "  --tolerance X      relative Frobenius error that passes (default by\n"
    "                     precision and K: 1e-5 + 2^-23 sqrt(K) for f32)\n"
    "  --explain          print, without a GPU, how each family would choose\n"
    "                     its variant for each --size (or --shapes, or\n"
    "                     --grouped) problem: every variant's predicted\n"
    "                     time, or why it cannot run it, in the order of\n"
    "                     choice\n"
    "  --device-model D   the device --explain predicts for: h200 (default),\n"
    "                     h100 or a100\n"
    "  --opt-level N      JIT optimisation level 0-4 (default 4)\n"
    "  --device N         CUDA device (default 0)\n"
    "  --csv FILE         also write the results as CSV (rewritten after each\n"
    "                     problem: a run cut short keeps its rows)\n"
    "  --json FILE        also write the results as JSON\n"
    "exit status: 0 all verified, 1 a failure or error, 2 bad usage, 3 no "
    "GPU\n";

static bool parseInt64(const std::string &text, int64_t &value) {
  if (text.empty() || text.size() > 18)
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  value = std::stoll(text);
  return true;
}

double gemmc::rt::toleranceFor(DType input, DType output, MathMode math,
                               int64_t k) {
  // The f32 sums over K: each addition rounds with unit roundoff
  // u = 2^-24, and on random inputs the rounding errors add up like a
  // random walk, so the relative error of a dot product grows as u sqrt(K)
  // (docs/fuzzing.md, "Tolerances"). Twice that, whatever else dominates.
  double accumulation = 2 * std::ldexp(1.0, -24) * std::sqrt(double(k));
  // An FP8 C rounds each entry to 3 (e4m3) or 2 (e5m2) mantissa bits: a
  // relative error of up to 2^-4 or 2^-3 an entry, 2^-4 / sqrt(3) = 0.036
  // or 0.072 in the Frobenius norm of random entries.
  if (isFloat8(output))
    return (output == DType::E4M3 ? 5e-2 : 1e-1) +
           2 * std::ldexp(1.0, -14) * std::sqrt(double(k));
  // FP8 inputs (the reference uses the same values): Hopper's tensor cores
  // add FP8 products with fewer mantissa bits than f32 keeps (about 14;
  // DeepSeek-V3's report, section 3.3.2) before the sum reaches the f32
  // accumulators: u = 2^-14 in the random walk, with C's rounding.
  if (isFloat8(input))
    return (output == DType::F32 ? 1e-4 : output == DType::F16 ? 2e-3 : 1e-2) +
           2 * std::ldexp(1.0, -14) * std::sqrt(double(k));
  // Rounding C to 16 bits dominates when C is f16 or bf16: a relative
  // error per entry of up to 2^-11 (f16) or 2^-8 (bf16).
  if (output == DType::BF16)
    return 1e-2 + accumulation;
  if (output == DType::F16)
    return 2e-3 + accumulation;
  // tf32 rounds the inputs to 10 mantissa bits (unit roundoff 2^-11).
  if (input == DType::F32 && math == MathMode::TF32)
    return 5e-3 + accumulation;
  // Exact inputs (f32, or f16/bf16 values the reference also uses) with
  // f32 accumulation.
  return 1e-5 + accumulation;
}

bool gemmc::rt::parseBenchOptions(const std::vector<std::string> &args,
                                  BenchOptions &o, std::string &error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    auto value = [&](std::string &out) {
      if (i + 1 >= args.size()) {
        error = arg + " needs a value";
        return false;
      }
      out = args[++i];
      return true;
    };
    // One of `choices`, else "bad WHAT 'TEXT' (A or B)".
    auto choice = [&](std::string &out, const std::vector<std::string> &choices,
                      const std::string &what) {
      if (!value(out))
        return false;
      if (std::find(choices.begin(), choices.end(), out) != choices.end())
        return true;
      error = "bad " + what + " '" + out + "' (";
      for (size_t c = 0; c < choices.size(); ++c)
        error += (c ? " or " : "") + choices[c];
      error += ")";
      return false;
    };
    auto number = [&](auto &out, int64_t min, int64_t max) {
      std::string text;
      int64_t v;
      if (!value(text))
        return false;
      if (!parseInt64(text, v) || v < min || v > max) {
        error = "bad value '" + text + "' for " + arg;
        return false;
      }
      out = static_cast<std::remove_reference_t<decltype(out)>>(v);
      return true;
    };
    std::string text;
    // `text` as a number (all of it, as strtod reads it).
    auto decimal = [&](double &out) {
      char *end = nullptr;
      out = std::strtod(text.c_str(), &end);
      return !text.empty() && *end == '\0';
    };
    if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (arg == "--size") {
      if (!value(text))
        return false;
      if (!parseSizes(text, o.sizes)) {
        error = "bad size '" + text + "' (expected N, MxNxK or a list)";
        return false;
      }
    } else if (arg == "--dtype" || arg == "--ctype") {
      if (!value(text))
        return false;
      DType type;
      if (!parseDType(text, type)) {
        error = "bad type '" + text + "' for " + arg +
                " (f32, f16, bf16, e4m3, e5m2)";
        return false;
      }
      if (arg == "--dtype") {
        o.type = o.bType = type;
        o.typeGiven = true;
      } else {
        o.cType = type;
        o.cTypeGiven = true;
      }
    } else if (arg == "--math") {
      if (!choice(text, {"exact", "tf32"}, "math mode"))
        return false;
      o.math = text == "tf32" ? MathMode::TF32 : MathMode::Exact;
      o.mathGiven = true;
    } else if (arg == "--layout") {
      if (!value(text))
        return false;
      if (text.size() != 3 ||
          text.find_first_not_of("rc") != std::string::npos) {
        error = "bad layout '" + text + "' (three of r and c, e.g. rcr)";
        return false;
      }
      Layout *layouts[] = {&o.aLayout, &o.bLayout, &o.cLayout};
      for (int j = 0; j < 3; ++j)
        *layouts[j] = text[j] == 'r' ? Layout::Row : Layout::Col;
      o.layoutGiven = true;
    } else if (arg == "--no-cublas") {
      o.cublas = false;
    } else if (arg == "--runs") {
      if (!number(o.runs, 1, 100000))
        return false;
    } else if (arg == "--warmup") {
      if (!number(o.warmup, 0, 100000))
        return false;
    } else if (arg == "--flush-l2") {
      o.flushL2 = true;
    } else if (arg == "--seed") {
      if (!number(o.seed, 0, INT64_MAX))
        return false;
    } else if (arg == "--samples") {
      if (!number(o.samples, 1, 100000000))
        return false;
    } else if (arg == "--alpha" || arg == "--beta") {
      if (!value(text))
        return false;
      char *end = nullptr;
      float v = std::strtof(text.c_str(), &end);
      if (*end != '\0' || !std::isfinite(v)) {
        error = "bad " + arg.substr(2) + " '" + text + "'";
        return false;
      }
      (arg == "--alpha" ? o.alpha : o.beta) = v;
    } else if (arg == "--bias") {
      if (!choice(o.bias, {"row", "col"}, "bias"))
        return false;
    } else if (arg == "--batch") {
      if (!number(o.batch, 1, 1 << 20))
        return false;
      o.batchGiven = true;
    } else if (arg == "--lda" || arg == "--ldb" || arg == "--ldc") {
      int64_t &ld = arg == "--lda" ? o.lda : arg == "--ldb" ? o.ldb : o.ldc;
      if (!number(ld, 1, int64_t(1) << 31))
        return false;
    } else if (arg == "--sweep") {
      if (!choice(text, {"random"}, "sweep"))
        return false;
      o.sweep = true;
    } else if (arg == "--count") {
      if (!number(o.count, 1, 1000000))
        return false;
    } else if (arg == "--max-size") {
      if (!number(o.maxSize, 1, 1 << 16))
        return false;
    } else if (arg == "--shapes") {
      if (!value(o.shapesFile))
        return false;
    } else if (arg == "--grouped") {
      if (!value(o.groupedFile))
        return false;
    } else if (arg == "--shape-summary") {
      if (!value(o.shapeSummary))
        return false;
    } else if (arg == "--results") {
      if (!value(o.resultsFile))
        return false;
    } else if (arg == "--budget") {
      if (!value(text))
        return false;
      if (!decimal(o.budget) || !(o.budget > 0)) {
        error =
            "--budget needs a positive number of seconds, got '" + text + "'";
        return false;
      }
    } else if (arg == "--splits") {
      if (!number(o.splits, 1, 65535))
        return false;
    } else if (arg == "--autotune") {
      if (!number(o.autotune, 1, 64))
        return false;
    } else if (arg == "--scales") {
      if (!choice(o.scales, {"tensor", "rowwise", "block", "none"}, "scales"))
        return false;
      if (o.scales == "none")
        o.scales.clear();
      o.scalesGiven = true;
    } else if (arg == "--relu") {
      o.activation = "relu";
    } else if (arg == "--activation") {
      if (!choice(o.activation, {"relu", "gelu", "gelu-tanh", "silu", "none"},
                  "activation"))
        return false;
      if (o.activation == "none")
        o.activation.clear();
    } else if (arg == "--tolerance") {
      if (!value(text))
        return false;
      if (!decimal(o.tolerance) || !(o.tolerance > 0)) {
        error = "bad tolerance '" + text + "'";
        return false;
      }
    } else if (arg == "--prune") {
      if (!value(text))
        return false;
      if (!decimal(o.prune) || !(o.prune >= 1)) {
        error = "bad factor '" + text + "' for --prune (at least 1)";
        return false;
      }
    } else if (arg == "--explain") {
      o.explain = true;
    } else if (arg == "--device-model") {
      if (!value(text))
        return false;
      if (!DeviceModel::named(text, o.deviceModel)) {
        error = "bad device model '" + text + "' (h200, h100 or a100)";
        return false;
      }
    } else if (arg == "--opt-level") {
      if (!number(o.optLevel, 0, 4))
        return false;
    } else if (arg == "--device") {
      if (!number(o.device, 0, 1024))
        return false;
    } else if (arg == "--csv") {
      if (!value(o.csv))
        return false;
    } else if (arg == "--json") {
      if (!value(o.json))
        return false;
    } else if (!arg.empty() && arg[0] == '-') {
      error = "unknown option '" + arg + "'";
      return false;
    } else {
      o.kernels.push_back(arg);
    }
  }
  if (o.help)
    return true;
  if (!o.cTypeGiven)
    o.cType = o.type;
  if (o.kernels.empty() && !o.cublas) {
    error = "nothing to run: no kernel given and --no-cublas";
    return false;
  }
  if (o.kernels.empty() && o.sizes.empty() && o.shapesFile.empty()) {
    error = "cuBLAS alone needs --size";
    return false;
  }
  if (!o.shapesFile.empty() &&
      (o.sweep || !o.sizes.empty() || o.lda || o.ldb || o.ldc)) {
    error = "--shapes gives the problems: not with --size, --sweep or "
            "--lda/--ldb/--ldc";
    return false;
  }
  if (o.prune > 0 && o.shapesFile.empty()) {
    error = "--prune needs --shapes";
    return false;
  }
  if (!o.resultsFile.empty() && o.shapesFile.empty()) {
    error = "--results needs --shapes";
    return false;
  }
  if (!o.shapeSummary.empty() && o.shapesFile.empty()) {
    error = "--shape-summary needs --shapes";
    return false;
  }
  if (o.explain &&
      (o.kernels.empty() || o.sweep ||
       (o.sizes.empty() && o.shapesFile.empty() && o.groupedFile.empty()))) {
    error = "--explain ranks the variants of the kernels given for --size, "
            "--shapes or --grouped (not --sweep)";
    return false;
  }
  if (o.sweep && o.kernels.empty()) {
    error = "--sweep runs kernels: give at least one";
    return false;
  }
  if (o.math == MathMode::TF32 && o.type != DType::F32) {
    error = "--math tf32 applies to f32 inputs only";
    return false;
  }
  return true;
}

std::vector<int64_t> gemmc::rt::routeTokens(int64_t tokens, int64_t groups,
                                            const std::string &routing,
                                            uint64_t seed) {
  std::vector<int64_t> sizes(static_cast<size_t>(groups), 0);
  if (routing == "balanced") {
    for (int64_t g = 0; g < groups; ++g)
      sizes[size_t(g)] = tokens / groups + (g < tokens % groups);
    return sizes;
  }
  // Zipf (s = 1.2) over the experts in a random order: the shares of the
  // least popular round down to no token at all where tokens are few.
  std::vector<double> weights(static_cast<size_t>(groups));
  for (int64_t g = 0; g < groups; ++g)
    weights[size_t(g)] = 1.0 / std::pow(double(g + 1), 1.2);
  std::mt19937_64 gen(seed);
  std::shuffle(weights.begin(), weights.end(), gen);
  double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  int64_t given = 0;
  for (int64_t g = 0; g < groups; ++g) {
    sizes[size_t(g)] = int64_t(double(tokens) * weights[size_t(g)] / total);
    given += sizes[size_t(g)];
  }
  size_t top = size_t(std::max_element(weights.begin(), weights.end()) -
                      weights.begin());
  sizes[top] += tokens - given;
  return sizes;
}

std::string GroupedShape::label() const {
  return (name.empty() ? "" : name + " ") + "g=" + std::to_string(groups) +
         " t=" + std::to_string(tokens) + " " + std::to_string(n) + "x" +
         std::to_string(k);
}

bool gemmc::rt::parseGroupedShapes(const std::string &text,
                                   std::vector<GroupedShape> &shapes,
                                   std::string &error) {
  std::istringstream lines(text);
  int lineNo = 0;
  for (std::string line; std::getline(lines, line);) {
    ++lineNo;
    line = line.substr(0, line.find('#'));
    std::vector<std::string> words = splitWords(line);
    if (words.empty())
      continue;
    GroupedShape shape;
    for (const std::string &word : words) {
      size_t eq = word.find('=');
      std::string key = word.substr(0, eq);
      std::string value = eq == std::string::npos ? "" : word.substr(eq + 1);
      int64_t *number = key == "groups"   ? &shape.groups
                        : key == "tokens" ? &shape.tokens
                        : key == "n"      ? &shape.n
                        : key == "k"      ? &shape.k
                                          : nullptr;
      bool ok = number ? parseInt(value, *number) && *number > 0
                : key == "routing"
                    ? (value == "balanced" || value == "zipf") &&
                          (shape.routing = value, true)
                : key == "name" ? !value.empty() && (shape.name = value, true)
                                : false;
      if (!ok) {
        error = "line " + std::to_string(lineNo) +
                ": expected groups=G tokens=T n=N k=K routing=balanced|zipf "
                "[name=NAME], got '" +
                word + "'";
        return false;
      }
    }
    if (!shape.groups || !shape.tokens || !shape.n || !shape.k) {
      error = "line " + std::to_string(lineNo) +
              ": groups, tokens, n and k are all needed";
      return false;
    }
    shapes.push_back(shape);
  }
  return true;
}
