//===- Contract.h - the runtime's names for the kernel contract ---------===//
//
// The contract, its cost model and the file formats live in the contract
// library (contract/, gemmc-contract/*.h), which the compiler writes them
// with too; the runtime uses them under its own namespace.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RT_CONTRACT_H
#define GEMMC_RT_CONTRACT_H

#include "gemmc-contract/Contract.h"
#include "gemmc-contract/Cost.h"
#include "gemmc-contract/Results.h"
#include "gemmc-contract/Shapes.h"

#include <string>

namespace gemmc::rt {

using namespace gemmc::contract;

/// The whole content of a file; throws std::runtime_error naming the file
/// and the system's reason.
std::string readFile(const std::string &path);

} // namespace gemmc::rt

#endif // GEMMC_RT_CONTRACT_H
