//===- Family.h - the files gemmc-tune select writes ------------*- C++ -*-===//
//
// What a chosen family becomes: its schedule file's kernel (the tuned
// problem, each variant with its fitted constants and directives), the
// table of its variants, the choice on each training problem, and the
// cost model's terms per measurement (`--features`). Also the rewriting of
// a candidate's schedule file for another type, layouts or a batch
// (retargeting). gemmc-tune select composes them.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_TUNING_FAMILY_H
#define GEMMC_TUNING_FAMILY_H

#include "gemmc/Tuning/Choose.h"
#include "gemmc/Tuning/Fit.h"

#include <string>
#include <vector>

namespace gemmc::tuning {

/// A candidate's schedule file for another element type (`type`, empty:
/// as it is) and other layouts (`layouts`, three of r and c; empty: as
/// they are): the lines `    a = TYPE LAYOUT` of its problem rewritten;
/// with `batch`, `    batch = ?` after K's line.
std::string retargetSchedule(const std::string &text, const std::string &type,
                             const std::string &layouts, bool batch);

/// The lines between `  schedule {` and its closing brace: a candidate's
/// directives, as its schedule file spells them.
std::string directivesOf(const std::string &text);

/// A variant's name: its candidate's without the type (`f16_w12` is `w12`,
/// which a bf16 family retargeted from f16's candidates shares).
std::string variantName(const std::string &candidate);

/// A chosen family with what it was chosen from: the candidates, their
/// schedule files and fits, the training problems measured.
struct ChosenFamily {
  const std::vector<Candidate> &candidates;
  const std::vector<std::string> &texts;
  const std::vector<FitResult> &fits;
  const std::vector<ProblemRecord> &measured;
  const FamilyChoice &choice;

  /// The variants in the order they joined, the fallback (the first
  /// chosen) last: the runtime's order of ties.
  std::vector<size_t> order() const;
  /// The family's kernel `name`: the problem of its first variant's file
  /// (`math = tf32x3` where a variant computes so), then each variant with
  /// its constants, how many problems it won and its fit, and the probes it
  /// joined to cover.
  std::string kernelText(const std::string &name) const;
  /// family.tsv: a row per variant, its problems won, fit and constants.
  std::string variantTable() const;
  /// training.csv (gemm-bench's shape-summary format): each training
  /// problem's chosen variant, its time (measured, or predicted) and
  /// cuBLAS's.
  std::string trainingTable() const;
};

/// `--features`: a row per measured time, with the candidate's tile and
/// the cost model's terms (Cost.h) before its constants.
std::string featureTable(const std::vector<Candidate> &candidates,
                         const std::vector<ProblemRecord> &problems,
                         const contract::DeviceModel &device);

} // namespace gemmc::tuning

#endif // GEMMC_TUNING_FAMILY_H
