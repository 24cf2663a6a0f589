//===- Results.cpp - the tuning-results format ----------------------------===//

#include "gemmc-contract/Results.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

using namespace gemmc::contract;

std::string gemmc::contract::fileNameOf(const std::string &path) {
  return path.substr(path.find_last_of('/') + 1);
}

std::string ResultRow::fileName() const { return fileNameOf(file); }

static std::string number(double v) {
  if (std::isnan(v))
    return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6g", v);
  return buffer;
}

std::string gemmc::contract::formatResult(const ResultRow &r) {
  std::string line = r.problem + "\t" + r.file + "\t" + r.kernel + "\t" +
                     r.status + "\t" + number(r.ms) + "\t" +
                     number(r.cublasMs);
  if (r.splits > 0)
    line += "\t" + std::to_string(r.splits);
  return line + "\n";
}

bool gemmc::contract::parseResult(const std::string &line, ResultRow &row) {
  std::vector<std::string> fields;
  std::stringstream is(line);
  for (std::string field; std::getline(is, field, '\t');)
    fields.push_back(field);
  if ((fields.size() != 6 && fields.size() != 7) || fields[0].empty() ||
      fields[1].empty())
    return false;
  auto time = [](const std::string &text, double &value) {
    if (text == "null") {
      value = NAN;
      return true;
    }
    char *end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return !text.empty() && *end == '\0';
  };
  row.problem = fields[0];
  row.file = fields[1];
  row.kernel = fields[2];
  row.status = fields[3];
  row.splits = 0;
  if (fields.size() == 7) {
    char *end = nullptr;
    row.splits = std::strtoll(fields[6].c_str(), &end, 10);
    if (fields[6].empty() || *end != '\0' || row.splits < 1)
      return false;
  }
  return time(fields[4], row.ms) && time(fields[5], row.cublasMs);
}

std::vector<ResultRow> gemmc::contract::parseResults(const std::string &text) {
  std::vector<ResultRow> rows;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);) {
    ResultRow row;
    if (parseResult(line, row))
      rows.push_back(row);
  }
  return rows;
}
