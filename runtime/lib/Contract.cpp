//===- Contract.cpp - the kernel contract, as the runtime reads it ------===//

#include "gemmc-rt/Contract.h"

#include <cerrno>
#include <cstdlib>
#include <map>
#include <sstream>

using namespace gemmc::rt;

const char *gemmc::rt::toString(DType type) {
  switch (type) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  }
  return "?";
}

const char *gemmc::rt::toString(Layout layout) {
  return layout == Layout::Row ? "row" : "col";
}

unsigned gemmc::rt::sizeOf(DType type) { return type == DType::F32 ? 4 : 2; }

int64_t GridExpr::evaluate(int64_t m, int64_t n, int64_t k) const {
  int64_t extent = 1;
  switch (dim) {
  case 'M':
    extent = m;
    break;
  case 'N':
    extent = n;
    break;
  case 'K':
    extent = k;
    break;
  default:
    return 1;
  }
  return (extent + divisor - 1) / divisor;
}

std::string GridExpr::str() const {
  if (dim == '1')
    return "1";
  return std::string(1, dim) + "/" + std::to_string(divisor);
}

std::string Problem::str() const {
  std::ostringstream os;
  os << "m=" << m << " n=" << n << " k=" << k << " a=" << toString(a) << ":"
     << toString(aLayout) << " b=" << toString(b) << ":" << toString(bLayout)
     << " c=" << toString(c) << ":" << toString(cLayout)
     << " acc=" << toString(acc);
  return os.str();
}

static bool parseInt(const std::string &text, int64_t &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || parsed < 0)
    return false;
  value = parsed;
  return true;
}

static bool parseDType(const std::string &text, DType &type) {
  if (text == "f32")
    type = DType::F32;
  else if (text == "f16")
    type = DType::F16;
  else if (text == "bf16")
    type = DType::BF16;
  else
    return false;
  return true;
}

static bool parseLayout(const std::string &text, Layout &layout) {
  if (text == "row")
    layout = Layout::Row;
  else if (text == "col")
    layout = Layout::Col;
  else
    return false;
  return true;
}

static std::vector<std::string> splitWords(const std::string &text) {
  std::istringstream is(text);
  std::vector<std::string> words;
  for (std::string word; is >> word;)
    words.push_back(word);
  return words;
}

static bool parseGrid(const std::string &word, GridExpr &expr) {
  if (word == "1") {
    expr = GridExpr{};
    return true;
  }
  if (word.size() < 3 || word[1] != '/' ||
      (word[0] != 'M' && word[0] != 'N' && word[0] != 'K'))
    return false;
  expr.dim = word[0];
  return parseInt(word.substr(2), expr.divisor) && expr.divisor > 0;
}

/// `a=f32:row`
static bool parseMatrix(const std::string &value, DType &type,
                        Layout &layout) {
  size_t colon = value.find(':');
  return colon != std::string::npos &&
         parseDType(value.substr(0, colon), type) &&
         parseLayout(value.substr(colon + 1), layout);
}

static bool parseProblem(const std::string &text, Problem &problem) {
  std::map<std::string, std::string> fields;
  for (const std::string &word : splitWords(text)) {
    size_t eq = word.find('=');
    if (eq == std::string::npos)
      return false;
    fields[word.substr(0, eq)] = word.substr(eq + 1);
  }
  for (const char *key : {"m", "n", "k", "a", "b", "c", "acc"})
    if (!fields.count(key))
      return false;
  return parseInt(fields["m"], problem.m) &&
         parseInt(fields["n"], problem.n) &&
         parseInt(fields["k"], problem.k) && problem.m > 0 && problem.n > 0 &&
         problem.k > 0 &&
         parseMatrix(fields["a"], problem.a, problem.aLayout) &&
         parseMatrix(fields["b"], problem.b, problem.bLayout) &&
         parseMatrix(fields["c"], problem.c, problem.cLayout) &&
         parseDType(fields["acc"], problem.acc);
}

bool gemmc::rt::parseContract(const std::string &ptx, Contract &contract,
                              std::string &error) {
  const std::string begin = "// gemmc-contract-begin v1";
  const std::string end = "// gemmc-contract-end";
  std::istringstream is(ptx);
  std::string line;
  unsigned lineNo = 0;
  bool inside = false, done = false;
  std::map<std::string, std::string> fields;
  std::map<std::string, unsigned> fieldLines;
  while (!done && std::getline(is, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (!inside) {
      inside = line == begin;
      if (!inside && line.rfind("// gemmc-contract-begin", 0) == 0) {
        error = "line " + std::to_string(lineNo) +
                ": unsupported contract version: " + line;
        return false;
      }
      continue;
    }
    if (line == end) {
      done = true;
      continue;
    }
    if (line.rfind("//", 0) != 0) {
      error = "line " + std::to_string(lineNo) +
              ": the kernel contract has no '" + end + "' line";
      return false;
    }
    size_t colon = line.find(": ");
    if (line.rfind("// ", 0) != 0 || colon == std::string::npos) {
      error = "line " + std::to_string(lineNo) +
              ": expected '// key: value' in the contract, got '" + line + "'";
      return false;
    }
    std::string key = line.substr(3, colon - 3);
    fields[key] = line.substr(colon + 2);
    fieldLines[key] = lineNo;
  }
  if (!inside) {
    error = "no kernel contract ('" + begin + "') in the PTX";
    return false;
  }
  if (!done) {
    error = "the kernel contract has no '" + end + "' line";
    return false;
  }

  for (const char *key : {"entry", "block", "grid", "dynamic-shared-bytes",
                          "params", "problem"}) {
    if (!fields.count(key)) {
      error = std::string("the kernel contract has no '") + key + "' field";
      return false;
    }
  }
  auto bad = [&](const std::string &key) {
    error = "line " + std::to_string(fieldLines[key]) + ": malformed '" + key +
            "' field: '" + fields[key] + "'";
    return false;
  };

  contract.entry = fields["entry"];
  contract.arch = fields["arch"];
  contract.semantics = fields["semantics"];
  contract.schedule = fields["schedule"];
  contract.source = fields["source"];

  std::vector<std::string> block = splitWords(fields["block"]);
  if (block.size() != 3)
    return bad("block");
  int64_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    int64_t v;
    if (!parseInt(block[i], v) || v <= 0 || v > 1024)
      return bad("block");
    contract.block[i] = static_cast<unsigned>(v);
    threads *= v;
  }
  if (threads > 1024)
    return bad("block");

  std::vector<std::string> grid = splitWords(fields["grid"]);
  if (grid.size() != 3)
    return bad("grid");
  for (int i = 0; i < 3; ++i)
    if (!parseGrid(grid[i], contract.grid[i]))
      return bad("grid");

  if (!parseInt(fields["dynamic-shared-bytes"], contract.dynamicSharedBytes))
    return bad("dynamic-shared-bytes");
  contract.params = splitWords(fields["params"]);
  if (contract.params.empty())
    return bad("params");
  if (fields.count("alignment") &&
      (!parseInt(fields["alignment"], contract.alignment) ||
       contract.alignment <= 0))
    return bad("alignment");
  if (!parseProblem(fields["problem"], contract.problem))
    return bad("problem");
  return true;
}

std::string gemmc::rt::formatContract(const Contract &c) {
  std::ostringstream os;
  os << "// gemmc-contract-begin v1\n";
  os << "// entry: " << c.entry << "\n";
  os << "// arch: " << c.arch << "\n";
  os << "// block: " << c.block[0] << " " << c.block[1] << " " << c.block[2]
     << "\n";
  os << "// grid: " << c.grid[0].str() << " " << c.grid[1].str() << " "
     << c.grid[2].str() << "\n";
  os << "// dynamic-shared-bytes: " << c.dynamicSharedBytes << "\n";
  os << "// params:";
  for (const std::string &p : c.params)
    os << " " << p;
  os << "\n// alignment: " << c.alignment << "\n";
  os << "// semantics: " << c.semantics << "\n";
  os << "// problem: " << c.problem.str() << "\n";
  os << "// schedule: " << c.schedule << "\n";
  os << "// source: " << c.source << "\n";
  os << "// gemmc-contract-end\n";
  return os.str();
}
