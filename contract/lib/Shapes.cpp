//===- Shapes.cpp - the shapes-file format and problem sizes --------------===//

#include "gemmc-contract/Shapes.h"
#include "gemmc-contract/Contract.h"

#include <sstream>

using namespace gemmc::contract;

bool gemmc::contract::parseSizes(const std::string &text,
                                 std::vector<Size> &sizes) {
  std::stringstream list(text);
  std::string item;
  bool any = false;
  while (std::getline(list, item, ',')) {
    std::vector<int64_t> dims;
    std::stringstream parts(item);
    std::string part;
    while (std::getline(parts, part, 'x')) {
      int64_t v;
      if (part.size() > 18 || !parseInt(part, v) || v <= 0 ||
          v > (int64_t(1) << 31) - 1)
        return false;
      dims.push_back(v);
    }
    if (dims.size() == 1)
      sizes.push_back({dims[0], dims[0], dims[0]});
    else if (dims.size() == 3)
      sizes.push_back({dims[0], dims[1], dims[2]});
    else
      return false;
    any = true;
  }
  return any;
}

std::string Shape::label() const {
  std::string text = std::to_string(size.m) + "x" + std::to_string(size.n) +
                     "x" + std::to_string(size.k);
  const std::pair<const char *, int64_t> lds[] = {
      {"lda", lda}, {"ldb", ldb}, {"ldc", ldc}, {"batch", batch}};
  for (auto [name, ld] : lds)
    if (ld)
      text += std::string(" ") + name + "=" + std::to_string(ld);
  return text;
}

bool gemmc::contract::parseShape(const std::string &text, Shape &shape,
                                 std::string &error) {
  std::vector<std::string> words = splitWords(text);
  if (words.empty()) {
    error = "no problem";
    return false;
  }
  std::vector<Size> sizes;
  if (!parseSizes(words[0], sizes) || sizes.size() != 1) {
    error = "expected MxNxK, got '" + words[0] + "'";
    return false;
  }
  shape = Shape();
  shape.size = sizes.front();
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string &word = words[i];
    size_t eq = word.find('=');
    std::string key = word.substr(0, eq);
    int64_t *ld = key == "lda"     ? &shape.lda
                  : key == "ldb"   ? &shape.ldb
                  : key == "ldc"   ? &shape.ldc
                  : key == "batch" ? &shape.batch
                                   : nullptr;
    if (eq == std::string::npos || !ld || word.size() - eq > 19 ||
        !parseInt(word.substr(eq + 1), *ld) || *ld < 1) {
      error = "expected lda=L, ldb=L, ldc=L or batch=B, got '" + word + "'";
      return false;
    }
  }
  return true;
}

bool gemmc::contract::parseShapes(const std::string &text,
                                  std::vector<Shape> &shapes,
                                  std::string &error) {
  shapes.clear();
  std::istringstream is(text);
  std::string line;
  for (int lineNo = 1; std::getline(is, line); ++lineNo) {
    line = line.substr(0, line.find('#'));
    if (splitWords(line).empty())
      continue;
    Shape shape;
    if (!parseShape(line, shape, error)) {
      error = "line " + std::to_string(lineNo) + ": " + error;
      return false;
    }
    shapes.push_back(shape);
  }
  if (shapes.empty()) {
    error = "no problem in the shapes file";
    return false;
  }
  return true;
}
