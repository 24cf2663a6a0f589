//===- ParseFields.h - a contract's field values ---------------*- C++ -*-===//
//
// Private to the contract library: the parsers of single field values
// (ParseFields.cpp) that Parse.cpp's reading of a contract block uses.
// Each returns false on a malformed value.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_CONTRACT_LIB_PARSEFIELDS_H
#define GEMMC_CONTRACT_LIB_PARSEFIELDS_H

#include "gemmc-contract/Contract.h"

#include <map>
#include <string>

namespace gemmc::contract::detail {

/// `row` or `col`.
bool parseLayout(const std::string &text, Layout &layout);

/// `X Y Z`: three positive extents whose product (and so each) is at most
/// `most` (a block's threads, a cluster's blocks).
bool parseExtents(const std::string &text, int64_t most, unsigned extents[3]);

/// The `key=value` words of a field; false if a word has no `=`.
bool parseKeyValues(const std::string &text,
                    std::map<std::string, std::string> &parts);

/// One of the grid's three words: a count, `SM`, `splits`, or `D/T`.
bool parseGrid(const std::string &word, GridExpr &expr);

/// `f32:row`: a matrix's element type and layout.
bool parseMatrix(const std::string &value, DType &type, Layout &layout);

/// The `problem` field: sizes, types, layouts, math and the batch.
bool parseProblem(const std::string &text, Problem &problem);

/// The `cost` field: the unit, the occupancy and the fitted constants.
bool parseCost(const std::string &text, CostFacts &cost);

} // namespace gemmc::contract::detail

#endif // GEMMC_CONTRACT_LIB_PARSEFIELDS_H
