//===- CublasLt.h - cuBLASLt as the FP8 baseline, loaded at run time ----===//
//
// libcublasLt.so.13 (or .12) is opened with dlopen, like cuBLAS and the
// driver. cuBLAS's GEMM routines take no FP8; cublasLtMatmul does, with a
// scale for A and one for B (tensor-wide scalars, or an f32 per row of A
// and per column of B where the library has the outer-vector scale mode,
// 12.9 and later), FP32 accumulation and an f32, f16 or bf16 C.
//
// cuBLASLt takes FP8 only as "TN" (on Ada and Hopper): after mapping the
// problem onto column-major BLAS (mapToColumnMajor), the first operand
// transposed and the second not, both K-major. For our problems that is A
// row-major and B column-major, whatever C's layout.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RT_CUBLASLT_H
#define GEMMC_RT_CUBLASLT_H

#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Driver.h"
#include "gemmc-rt/Launch.h"

#include <cstddef>
#include <map>
#include <memory>
#include <string>

namespace gemmc::rt {

class CublasLt {
public:
  /// The workspace cublasLtMatmul may use: the heuristic picks among the
  /// algorithms that fit.
  static constexpr size_t kWorkspaceBytes = 64u << 20;

  /// Loads cuBLASLt, creates a handle and allocates the workspace in the
  /// current context (which must exist: Device::open). Throws CudaError
  /// naming the call.
  CublasLt();
  ~CublasLt();
  CublasLt(const CublasLt &) = delete;
  CublasLt &operator=(const CublasLt &) = delete;

  /// D = scale_a * scale_b * (A * B) ("tensor" scales),
  /// D[i,j] = scale_a[i] * scale_b[j] * (A * B)[i,j] ("rowwise"), or
  /// A * B (no scales), plus the bias (`operands.bias`) where the problem
  /// has one, times C's scale (`operands.scaleC`, cuBLASLt's D scale)
  /// where it has `output-scale`, for an FP8 problem that `takes` accepts, on
  /// `stream` (null: the default stream). The scales are device f32 arrays in
  /// `operands.scaleA` and `operands.scaleB`. The first call for a problem
  /// picks the algorithm (cublasLtMatmulAlgoGetHeuristic); later ones
  /// reuse it, so that a timing loop measures the GEMM alone. One thread
  /// at a time. Throws CudaError naming the call.
  void scaledGemm(const Problem &problem, const Operands &operands,
                  CUstream stream = nullptr);

  /// The call `scaledGemm` makes for `problem`, for reports, e.g.
  /// "cublasLtMatmul (e4m3 x e4m3 -> bf16, tensor scales, no fast accum)".
  static std::string describe(const Problem &problem);

  /// Whether cuBLASLt takes `problem`: FP8 A and B (not both e5m2), an
  /// f32, f16 or bf16 C (or an e4m3 one, per-tensor scales, no bias),
  /// FP32 accumulation, both operands K-major after
  /// mapping (A row-major, B column-major), one GEMM, alpha = 1, beta = 0,
  /// no activation or R, a bias only along its D's rows (a column bias into
  /// a row-major bf16 or f16 C); rowwise scales only where the headers
  /// built against have the outer-vector scale mode (the library loaded is
  /// checked at the call). If not, `why` says why.
  static bool takes(const Problem &problem, std::string &why);

  /// cublasLtGetVersion: e.g. 130100 for 13.1.0.
  size_t version() const { return libraryVersion; }

private:
  /// A problem's descriptors and algorithm (cuBLASLt's types, in the .cpp).
  struct Plan;
  /// The plan of `problem`, made on its first call.
  Plan &planFor(const Problem &problem, const Operands &operands);

  void *library = nullptr;
  void *handle = nullptr;
  size_t libraryVersion = 0;
  std::unique_ptr<DeviceBuffer> workspace;
  /// An FP8 D's C (bf16, never read: beta = 0), which cuBLASLt takes
  /// apart from D where their types differ; grown as problems need.
  std::unique_ptr<DeviceBuffer> bf16C;
  /// Keyed by the problem's sizes, types, layouts, leading dimensions and
  /// scales: all that the descriptors and the algorithm depend on.
  std::map<std::string, std::unique_ptr<Plan>> plans;
};

} // namespace gemmc::rt

#endif // GEMMC_RT_CUBLASLT_H
