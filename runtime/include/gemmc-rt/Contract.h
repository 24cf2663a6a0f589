//===- Contract.h - the kernel contract, as the runtime reads it --------===//
//
// gemmc (and every hand-written PTX kernel) carries a contract: a block of
// `//` comment lines in the PTX, between `// gemmc-contract-begin v1` and
// `// gemmc-contract-end`. docs/contract.md describes it. This header has no
// dependency beyond the C++ standard library.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RT_CONTRACT_H
#define GEMMC_RT_CONTRACT_H

#include <cstdint>
#include <string>
#include <vector>

namespace gemmc::rt {

enum class DType { F32, F16, BF16 };
enum class Layout { Row, Col };

const char *toString(DType type);
const char *toString(Layout layout);
/// Bytes per element.
unsigned sizeOf(DType type);

/// One grid extent: ceildiv(dim, divisor) where dim is M, N or K, or 1.
struct GridExpr {
  char dim = '1'; ///< 'M', 'N', 'K' or '1'.
  int64_t divisor = 1;

  int64_t evaluate(int64_t m, int64_t n, int64_t k) const;
  std::string str() const;
};

struct Problem {
  int64_t m = 0, n = 0, k = 0;
  DType a = DType::F32, b = DType::F32, c = DType::F32, acc = DType::F32;
  Layout aLayout = Layout::Row, bLayout = Layout::Row, cLayout = Layout::Row;

  std::string str() const;
};

struct Contract {
  std::string entry;
  std::string arch;
  unsigned block[3] = {1, 1, 1};
  GridExpr grid[3];
  int64_t dynamicSharedBytes = 0;
  std::vector<std::string> params; ///< e.g. "A:ptr"
  int64_t alignment = 1;
  std::string semantics;
  Problem problem;
  std::string schedule;
  std::string source;
};

/// Parses the first contract block in `ptx`. Returns false and sets `error`
/// (naming the offending line) if there is none or it is malformed.
bool parseContract(const std::string &ptx, Contract &contract,
                   std::string &error);

/// Formats a contract back into its comment block (used by tests and by
/// `gemm-check --print-contract`).
std::string formatContract(const Contract &contract);

} // namespace gemmc::rt

#endif // GEMMC_RT_CONTRACT_H
