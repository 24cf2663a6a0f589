//===- Family.cpp - the files gemmc-tune select writes -------------------===//

#include "gemmc/Tuning/Family.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"

using namespace gemmc;
using namespace gemmc::tuning;
namespace ct = gemmc::contract;

std::string tuning::retargetSchedule(const std::string &text,
                                     const std::string &type,
                                     const std::string &layouts, bool batch) {
  std::string out;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n');
  for (auto [i, line] : llvm::enumerate(lines)) {
    llvm::StringRef body = line.ltrim();
    llvm::StringRef indent = line.take_front(line.size() - body.size());
    int operand = body.starts_with("a = ")   ? 0
                  : body.starts_with("b = ") ? 1
                  : body.starts_with("c = ") ? 2
                                             : -1;
    if (operand >= 0) {
      llvm::SmallVector<llvm::StringRef, 2> words;
      body.drop_front(4).split(words, ' ', -1, false);
      std::string newType = type.empty() ? words[0].str() : type;
      std::string newLayout =
          layouts.empty() ? (words.size() > 1 ? words[1].str() : "row")
                          : (layouts[size_t(operand)] == 'c' ? "col" : "row");
      out += indent.str() + std::string(1, "abc"[operand]) + " = " + newType +
             " " + newLayout;
    } else {
      out += line.str();
    }
    if (batch && body.starts_with("k = "))
      out += "\n" + indent.str() + "batch = ?";
    if (i + 1 < lines.size())
      out += "\n";
  }
  return out;
}

std::string tuning::directivesOf(const std::string &text) {
  size_t begin = text.find("  schedule {\n");
  size_t end = text.rfind("  }\n}");
  if (begin == std::string::npos || end == std::string::npos)
    return "";
  begin += 13;
  return text.substr(begin, end - begin);
}

std::string tuning::variantName(const std::string &candidate) {
  return llvm::StringRef(candidate).split('_').second.str();
}

std::vector<size_t> ChosenFamily::order() const {
  std::vector<size_t> order(choice.variants.begin() + 1,
                            choice.variants.end());
  order.push_back(choice.variants.front());
  return order;
}

/// How many training problems the family runs on candidate `v`.
static size_t problemsWon(const FamilyChoice &choice, size_t v) {
  size_t won = 0;
  for (int chosen : choice.score.choice)
    won += chosen == int(v);
  return won;
}

std::string ChosenFamily::kernelText(const std::string &name) const {
  std::vector<size_t> variants = order();
  const std::string &first = texts[variants.front()];
  size_t open = first.find("  problem {");
  std::string problem = first.substr(open, first.find("  schedule {") - open);
  bool tf32x3 = false;
  for (size_t v : variants)
    tf32x3 |= candidates[v].contract.problem.tf32x3;
  size_t math = problem.find("    math = tf32x3\n");
  if (!tf32x3 && math != std::string::npos)
    problem.erase(math, 18);
  if (tf32x3 && math == std::string::npos)
    problem.insert(problem.rfind("  }\n"), "    math = tf32x3\n");
  std::string text = "kernel " + name + " {\n" + problem;
  for (size_t v : variants) {
    const Candidate &c = candidates[v];
    const ct::CostConstants &k = c.constants;
    text += llvm::formatv("  # {0} of the training problems; fitted to {1} "
                          "(rms log error {2:F3} -> {3:F3})\n",
                          problemsWon(choice, v), fits[v].problems,
                          fits[v].rmsBefore, fits[v].rmsAfter)
                .str();
    for (size_t i = 0; i < choice.coverVariants.size(); ++i)
      if (choice.coverVariants[i] == v)
        text += "  # joined to cover " + choice.coverReasons[i] + "\n";
    text += llvm::formatv("  variant {0} cost fixed {1:F3} latency {2:F3} "
                          "compute {3:F3} memory {4:F3} reduce {5:F3} {{\n",
                          variantName(c.name), k.fixed, k.latency, k.compute,
                          k.memory, k.reduce)
                .str();
    text += directivesOf(texts[v]) + "  }\n";
  }
  return text + "}\n";
}

std::string ChosenFamily::variantTable() const {
  std::string table =
      "variant\tproblems_won\tfit_problems\trms_log_before\trms_log_after\t"
      "fixed_us\tlatency_us\tcompute\tmemory\treduce\n";
  for (size_t v : order()) {
    const Candidate &c = candidates[v];
    const ct::CostConstants &k = c.constants;
    table += llvm::formatv("{0}\t{1}\t{2}\t{3:F4}\t{4:F4}\t{5:F3}\t{6:F3}"
                           "\t{7:F3}\t{8:F3}\t{9:F3}\n",
                           c.name, problemsWon(choice, v), fits[v].problems,
                           fits[v].rmsBefore, fits[v].rmsAfter, k.fixed,
                           k.latency, k.compute, k.memory, k.reduce)
                 .str();
  }
  return table;
}

std::string ChosenFamily::trainingTable() const {
  const FamilyScore &s = choice.score;
  std::string training = "problem,kernel,status,ms,cublas_ms,ratio\n";
  for (size_t p = 0; p < measured.size(); ++p) {
    int chosen = s.choice[p];
    if (chosen < 0) {
      training +=
          measured[p].label + ",,refused,nan," +
          llvm::formatv("{0:F5}", measured[p].cublasSeconds * 1e3).str() +
          ",nan\n";
      continue;
    }
    bool predicted = !(measured[p].seconds[size_t(chosen)] > 0);
    training +=
        llvm::formatv("{0},{1},{2},{3:F5},{4:F5},{5:F4}\n", measured[p].label,
                      variantName(candidates[size_t(chosen)].name),
                      predicted ? "predicted" : "run", s.seconds[p] * 1e3,
                      measured[p].cublasSeconds * 1e3, s.ratio[p])
            .str();
  }
  return training;
}

std::string tuning::featureTable(const std::vector<Candidate> &candidates,
                                 const std::vector<ProblemRecord> &problems,
                                 const ct::DeviceModel &device) {
  std::string out = "problem\tm\tn\tk\tcandidate\tbm\tbn\tbk\ttransposed\t"
                    "stream_k\tsplits\toccupancy\tunits\twaves\trounds\t"
                    "compute_s\tmemory_s\treduce_s\tpipeline_s\tmeasured_s\t"
                    "cublas_s\n";
  for (const ProblemRecord &r : problems)
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (!(r.seconds[c] > 0))
        continue;
      const ct::Contract &k = candidates[c].contract;
      int64_t bm, bn, bk;
      k.tile(bm, bn, bk);
      ct::CostFeatures f = ct::costFeatures(k, r.problem, device, r.splits[c]);
      out += llvm::formatv("{0}\t{1}\t{2}\t{3}\t{4}\t{5}\t{6}\t{7}\t{8}\t"
                           "{9}\t{10}\t{11}\t{12}\t{13}\t{14}\t{15:e6}\t"
                           "{16:e6}\t{17:e6}\t{18:e6}\t{19:e6}\t{20:e6}\n",
                           r.label, r.problem.m, r.problem.n, r.problem.k,
                           candidates[c].name, bm, bn, bk, int(k.transposed),
                           int(k.streamK), r.splits[c],
                           k.hasCost ? k.cost.occupancy : 1, f.units, f.waves,
                           f.rounds, f.compute, f.memory, f.reduce,
                           f.pipeline, r.seconds[c], r.cublasSeconds)
                 .str();
    }
  return out;
}
