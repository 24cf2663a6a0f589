//===- CApi.h - the C API's error state, for gemmc's libraries --*- C++ -*-===//
//
// The per-thread message of gemmc_last_error lives in libgemmc_runtime;
// libgemmc_compiler reports through these too, so that one program linking
// both reads one message.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RT_CAPI_H
#define GEMMC_RT_CAPI_H

#include "gemmc/gemmc.h"

#include <string>

namespace gemmc::rt::capi {

/// Records `message` as this thread's last error and returns `status`.
gemmc_status fail(gemmc_status status, const std::string &message);

/// Clears this thread's last error and returns GEMMC_SUCCESS.
gemmc_status succeed();

/// A copy of `text` in memory the caller releases with gemmc_free.
char *copyOut(const std::string &text);

} // namespace gemmc::rt::capi

#endif // GEMMC_RT_CAPI_H
