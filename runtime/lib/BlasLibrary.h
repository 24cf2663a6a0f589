//===- BlasLibrary.h - cuBLAS and cuBLASLt, opened at run time ----*- C++
//-*-===//
//
// What Cublas.cpp and CublasLt.cpp share: the library opened by the first
// of its names that loads, its entry points looked up by name, a failed
// call's status thrown as a CudaError that names the call, and the CUDA
// types of the element types.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RUNTIME_LIB_BLASLIBRARY_H
#define GEMMC_RUNTIME_LIB_BLASLIBRARY_H

#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Driver.h"

#include <cublas_api.h>
#include <dlfcn.h>
#include <initializer_list>
#include <string>

namespace gemmc::rt::blas {

/// The first of `names` that loads; a CudaError naming `what` otherwise.
inline void *openLibrary(std::initializer_list<const char *> names,
                         const char *what) {
  for (const char *name : names)
    if (void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      return library;
  throw CudaError(std::string("cannot load ") + what + " (" + *names.begin() +
                  "): " + dlerror());
}

/// Sets `fn` to the entry point `name` of `library`; a CudaError naming the
/// library `what` and the entry point where it has none.
template <typename Fn>
void lookUp(void *library, Fn &fn, const char *name, const char *what) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (!fn)
    throw CudaError(std::string(what) + " lacks " + name);
}

/// Throws a CudaError "`call`: message" unless `status` is success;
/// `describe` (the library's status string, possibly not loaded yet) gives
/// the message.
inline void check(cublasStatus_t status, const char *call,
                  const char *(*describe)(cublasStatus_t)) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return;
  const char *message = describe ? describe(status) : "unknown status";
  throw CudaError(std::string(call) + ": " + message);
}

/// The CUDA library type of an element type.
inline cudaDataType_t toCuda(DType type) {
  switch (type) {
  case DType::F32:
    return CUDA_R_32F;
  case DType::F16:
    return CUDA_R_16F;
  case DType::BF16:
    return CUDA_R_16BF;
  case DType::E4M3:
    return CUDA_R_8F_E4M3;
  case DType::E5M2:
    return CUDA_R_8F_E5M2;
  }
  return CUDA_R_32F;
}

} // namespace gemmc::rt::blas

#endif // GEMMC_RUNTIME_LIB_BLASLIBRARY_H
