//===- Cublas.h - cuBLAS as the baseline, loaded at run time ------------===//
//
// libcublas.so.13 (or .12) is opened with dlopen, like the driver. The GEMM
// routine is picked from the problem: cublasSgemm with plain FP32 math for
// f32, cublasGemmEx with FP32 accumulation for f16 and bf16, and with
// CUBLAS_COMPUTE_32F_FAST_TF32 for tf32. Row-major problems are mapped onto
// column-major cuBLAS by transposing (C^T = B^T A^T).
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RT_CUBLAS_H
#define GEMMC_RT_CUBLAS_H

#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Launch.h"

#include <string>

namespace gemmc::rt {

/// How f32 inputs are multiplied.
enum class MathMode { Exact, TF32 };

/// One column-major GEMM, `C = op(X) op(Y)` with C of m x n, computing a
/// problem whatever its layouts. With a row-major C it computes
/// C^T = B^T A^T, so X is B and Y is A (`swap`).
struct ColumnMajorCall {
  bool transX = false, transY = false;
  int m = 0, n = 0, k = 0;
  bool swap = false;
  int ldx = 0, ldy = 0, ldc = 0;
};

ColumnMajorCall mapToColumnMajor(const Problem &problem);

class Cublas {
public:
  /// Loads cuBLAS and creates a handle. Throws CudaError naming the call.
  Cublas();
  ~Cublas();
  Cublas(const Cublas &) = delete;
  Cublas &operator=(const Cublas &) = delete;

  /// C = A * B for `problem` on the default stream.
  void gemm(const Problem &problem, MathMode math, const Operands &operands);

  /// The routine `gemm` calls for `problem`, for reports.
  static std::string describe(const Problem &problem, MathMode math);
  /// Whether `gemm` computes `problem`'s product: cublasGemmEx takes A and
  /// B of one type and a C of theirs or f32 (f16 or bf16 inputs), or f32
  /// throughout. Else sets `why`.
  static bool takes(const Problem &problem, std::string &why);

  int version() const { return libraryVersion; }

private:
  void *library = nullptr;
  void *handle = nullptr;
  int libraryVersion = 0;
};

} // namespace gemmc::rt

#endif // GEMMC_RT_CUBLAS_H
