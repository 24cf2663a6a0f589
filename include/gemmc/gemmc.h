/*===- gemmc.h - gemmc's C API ----------------------------------*- C -*-===//
 *
 * Two libraries, one header:
 *   libgemmc_compiler  (gemmc::compiler)  compiles a schedule to PTX in
 *                      process; needs LLVM/MLIR's libLLVM.so at run time.
 *   libgemmc_runtime   (gemmc::runtime)   loads PTX through the CUDA driver
 *                      API (opened at run time), answers questions about
 *                      its contract and launches it on the caller's
 *                      buffers and stream; needs no LLVM.
 *
 * Every function returns a gemmc_status; on failure gemmc_last_error()
 * gives the message (per thread, valid until the thread's next call). All
 * functions may be called from several threads at once. Handles are opaque:
 * a destroyed handle is refused with GEMMC_ERROR_INVALID_HANDLE, never
 * dereferenced. docs/library.md describes the API with examples.
 *
 *===----------------------------------------------------------------------===*/

#ifndef GEMMC_GEMMC_H
#define GEMMC_GEMMC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this API (major * 10000 + minor * 100 + patch). */
#define GEMMC_API_VERSION 200

typedef enum gemmc_status {
  GEMMC_SUCCESS = 0,
  /* A null pointer, a bad size, or a value out of range. */
  GEMMC_ERROR_INVALID_ARGUMENT = 1,
  /* A handle that is not (or no longer) live. */
  GEMMC_ERROR_INVALID_HANDLE = 2,
  /* The schedule does not compile: the message holds its diagnostics. */
  GEMMC_ERROR_COMPILE = 3,
  /* The PTX has no contract gemmc can read (malformed, or from a newer
     gemmc). */
  GEMMC_ERROR_CONTRACT = 4,
  /* No variant of the kernel computes this problem (sizes, multiples,
     alignment, epilogue): the message gives each variant's reason. */
  GEMMC_ERROR_UNSUPPORTED_PROBLEM = 5,
  /* No CUDA driver or no GPU. */
  GEMMC_ERROR_NO_GPU = 6,
  /* A CUDA driver call failed: the message names it. */
  GEMMC_ERROR_CUDA = 7,
  /* A file could not be read. */
  GEMMC_ERROR_IO = 8,
  GEMMC_ERROR_INTERNAL = 9
} gemmc_status;

/* The last failure's message on this thread ("" after a success). */
const char *gemmc_last_error(void);
/* The name of a status, e.g. "GEMMC_ERROR_COMPILE". */
const char *gemmc_status_name(gemmc_status status);

/*===--------------------------------------------------------------------===
 * Compiling (libgemmc_compiler)
 *===--------------------------------------------------------------------===*/

/* Compiles the schedule `text` (its file name for diagnostics and the
   contract: `source_name`, may be NULL) for `arch` ("sm_80" ... "sm_90a";
   NULL: "sm_90") and returns the PTX, with its contract, in *ptx: a string
   to release with gemmc_free. On GEMMC_ERROR_COMPILE the message holds
   the diagnostics (file:line:col: error: ...). */
gemmc_status gemmc_compile(const char *text, const char *source_name,
                           const char *arch, char **ptx);
/* The same for a schedule file. */
gemmc_status gemmc_compile_file(const char *path, const char *arch,
                                char **ptx);

/*===--------------------------------------------------------------------===
 * Loading and launching (libgemmc_runtime)
 *===--------------------------------------------------------------------===*/

typedef struct gemmc_module_opaque *gemmc_module;

typedef enum gemmc_dtype {
  GEMMC_F32 = 0,
  GEMMC_F16 = 1,
  GEMMC_BF16 = 2,
  /* f32 in memory, multiplied in tf32 where tensor cores do it (torch's
     allow_tf32, cuBLAS's FAST_TF32): a shipped family's type only, for
     gemmc_family_load, gemmc_batched_family_load and gemmc_matmul; a
     module's contract says f32 (gemmc_kernel_info). */
  GEMMC_TF32 = 3,
  /* FP8 (OCP e4m3 and e5m2, torch's float8_e4m3fn and float8_e5m2): the
     operand types of FP8 kernels (gemmc_kernel_info), and C's where a
     kernel stores e4m3; their shipped families are scaled products
     (gemmc_scaled_family_load, gemmc_scaled_matmul). */
  GEMMC_E4M3 = 4,
  GEMMC_E5M2 = 5
} gemmc_dtype;

typedef enum gemmc_layout { GEMMC_ROW = 0, GEMMC_COL = 1 } gemmc_layout;

typedef enum gemmc_bias {
  GEMMC_BIAS_NONE = 0,
  GEMMC_BIAS_ROW = 1, /* one value per row of C (M values) */
  GEMMC_BIAS_COL = 2  /* one value per column of C (N values) */
} gemmc_bias;

/* The activation applied last (docs/dsl.md): ReLU, GELU (erf), GELU's
   tanh form, SiLU. */
typedef enum gemmc_activation {
  GEMMC_ACTIVATION_NONE = 0,
  GEMMC_ACTIVATION_RELU = 1,
  GEMMC_ACTIVATION_GELU = 2,
  GEMMC_ACTIVATION_GELU_TANH = 3,
  GEMMC_ACTIVATION_SILU = 4
} gemmc_activation;

/* The scales the product is multiplied by first (docs/dsl.md): one f32
   for A and one for B, one per row of A (M) and per column of B (N), or
   FP8's per block (A's 1 x 128, B's 128 x 128). */
typedef enum gemmc_scales {
  GEMMC_SCALES_NONE = 0,
  GEMMC_SCALES_TENSOR = 1,
  GEMMC_SCALES_ROWWISE = 2,
  GEMMC_SCALES_BLOCK = 3
} gemmc_scales;

/* What every variant of a loaded module computes (its contract). */
typedef struct gemmc_kernel_info {
  const char *name; /* the family's name, or the kernel's entry */
  const char *arch;
  int variants;     /* 1 for a kernel */
  int64_t m, n, k;  /* 0: given at launch */
  gemmc_dtype a, b, c;
  gemmc_layout a_layout, b_layout, c_layout;
  int alpha_beta; /* C = alpha*A*B + beta*C; else C = A*B */
  gemmc_bias bias;
  int relu; /* activation == GEMMC_ACTIVATION_RELU (kept for old callers) */
  int batched; /* takes a batch (count and strides) */
  gemmc_activation activation;
  int grouped; /* a grouped GEMM: launched with gemmc_grouped_problem */
  int residual; /* adds R last: C = act(...) + R (`residual = add`) */
  gemmc_scales scales;
  int group_table; /* a grouped GEMM's general form: launched with
                      gemmc_grouped_table_plan_create */
  int amax;        /* writes max |C| (before the cast to C's type) to `amax`
                      (`amax = c`) */
  int output_scale; /* multiplies an FP8 C's values by `scale_c` before
                       their cast (`output-scale = tensor`) */
} gemmc_kernel_info;

/* One variant of a family (or the one kernel). */
typedef struct gemmc_variant_info {
  const char *entry;
  /* The sizes the variant is for (`when`), inclusive; INT64_MAX: no
     bound. */
  int64_t min_m, max_m, min_n, max_n, min_k, max_k;
  /* Sizes given at launch must be multiples of these. */
  int64_t multiple_m, multiple_n, multiple_k;
  /* Leading dimensions must be multiples of these (A, B, C). */
  int64_t ld_multiple_a, ld_multiple_b, ld_multiple_c;
  unsigned block_threads;
  int64_t shared_bytes;
  /* Split-K's splits: 1 without, 0 where each launch chooses them (the
     cost model's count for the problem, `split-k ?`). */
  int split_k;
} gemmc_variant_info;

/* One GEMM on device memory: C = act(alpha * scales * A * B + beta * C +
   bias) + R, as the kernel's contract says (gemmc_kernel_info). Pointers
   are CUdeviceptr values; leading dimensions and batch strides are in
   elements (0: dense). R (`residual`) has C's type, layout, leading
   dimension and batch stride, and does not overlap C; `scale_a` and
   `scale_b` are f32 vectors of 1, or of M and N (rowwise), values, or
   FP8's block scales: A's M x ceil(K/128) (A's 1 x 128 blocks, the block
   of K outer: scale_a[(k / 128) * M + m]) and B's ceil(N/128) x
   ceil(K/128) (its 128 x 128 blocks: scale_b[(n / 128) * ceil(K/128) +
   k / 128]). `amax`, where the kernel writes one (gemmc_kernel_info's
   amax; else 0): one f32 on the device, 4-byte aligned, which the launch
   zeroes on its stream and the kernel raises to max |C| over every
   element it stores, taken before the cast to C's type (FP8's next scale,
   as cuBLASLt's AMAX_D). `scale_c`, where the kernel takes C's scale
   (gemmc_kernel_info's output_scale; else 0): one f32 on the device,
   4-byte aligned, by which the kernel multiplies each value of an FP8 C
   just before its cast (after the amax takes it; cuBLASLt's D scale,
   torch._scaled_mm's scale_result). */
typedef struct gemmc_problem {
  int64_t m, n, k;
  uint64_t a, b, c, bias;
  int64_t lda, ldb, ldc;
  float alpha, beta;
  int64_t batch; /* 0 or 1: one GEMM */
  int64_t stride_a, stride_b, stride_c;
  uint64_t residual, scale_a, scale_b;
  uint64_t amax;
  uint64_t scale_c;
} gemmc_problem;

/* Fills `problem` with an m x n x k GEMM: null pointers, dense leading
   dimensions, alpha = 1, beta = 0, no batch. */
void gemmc_problem_init(gemmc_problem *problem, int64_t m, int64_t n,
                        int64_t k);

/* Loads `ptx` (a kernel or a kernel family with its contract) and reads
   its contract; `name` names it in messages (may be NULL). Needs no GPU:
   the driver JIT-compiles the PTX at the first launch (or
   gemmc_module_jit), into the current CUDA context, or device 0's
   primary context if there is none; later calls use that context. */
gemmc_status gemmc_module_load(const char *ptx, const char *name,
                               gemmc_module *module);
gemmc_status gemmc_module_load_file(const char *path, gemmc_module *module);
/* JIT-compiles the module now (GEMMC_ERROR_NO_GPU without a GPU). */
gemmc_status gemmc_module_jit(gemmc_module module);
/* Unloads the module; the handle is dead afterwards. */
gemmc_status gemmc_module_destroy(gemmc_module module);

/* The module's contract. Strings live as long as the module. */
gemmc_status gemmc_module_info(gemmc_module module, gemmc_kernel_info *info);
gemmc_status gemmc_module_variant(gemmc_module module, int index,
                                  gemmc_variant_info *info);

/* The variant that would run `problem` (docs/contract.md, "Families"), or
   GEMMC_ERROR_UNSUPPORTED_PROBLEM with each variant's reason; by the
   contracts alone before the JIT, also by the device's limits after, and
   the measured choice where gemmc_autotune made one for the problem. */
gemmc_status gemmc_select(gemmc_module module, const gemmc_problem *problem,
                          int *variant);

/* The time the cost model predicts for `problem` on the variant
   gemmc_select chooses, in seconds (the pointers are not looked at). */
gemmc_status gemmc_predict(gemmc_module module, const gemmc_problem *problem,
                           double *seconds);

/* The measured choice (docs/selection.md, "A measured choice"): times the
   cost model's first `candidates` variants for `problem` (those predicted
   within 1.5x of the first; a variant whose `when` holds is taken
   unmeasured) with the problem's operands on `stream`, and makes the
   fastest the module's choice for problems of its sizes, leading
   dimensions, strides, alpha, beta and bias: later launches and plans
   made after it run that variant. A, B, the bias, R and the scales are
   read; C and the amax are not written (the measurement writes buffers
   of its own). It waits for `stream`, so it cannot run while the stream
   is captured into a CUDA graph (GEMMC_ERROR_INVALID_ARGUMENT); nor for a
   grouped module. `variant` (may be null) receives the choice's index. */
gemmc_status gemmc_autotune(gemmc_module module, const gemmc_problem *problem,
                            void *stream, int candidates, int *variant);

/* The rule gemmc_matmul applies to a batch (problem->batch > 1): whether
   `batched`, a family that takes a batch, runs it in one launch in a lower
   predicted time (gemmc_predict) than `single`, a family of single GEMMs,
   in one launch a matrix. *use_batched is 1 or 0; 0 too where `batched`
   cannot run the batch. */
gemmc_status gemmc_prefer_batched(gemmc_module single, gemmc_module batched,
                                  const gemmc_problem *problem,
                                  int *use_batched);

/* Launches `problem` on `stream` (a CUstream; NULL: the default stream),
   asynchronously. The pointers must be device memory of the module's
   context. A split-K kernel's workspace is the runtime's, one per context
   and stream, shared by every module (launches on a stream run in its
   order). On a stream capturing a CUDA graph such a launch is refused
   (GEMMC_ERROR_INVALID_ARGUMENT, the remedy in gemmc_last_error): the
   graph would share the workspace with the stream's later launches, so a
   capture gives one of its own (gemmc_launch_workspace,
   gemmc_plan_launch). */
gemmc_status gemmc_launch(gemmc_module module, const gemmc_problem *problem,
                          void *stream);

/* The workspace a launch of `problem` (checked as gemmc_launch checks it,
   its pointers too) needs where its variant splits K:
   the bytes of the partial tiles and of the counters (both 0 where it does
   not split). The choice is the one gemmc_launch makes (JIT-compiles the
   module); a module remembers each problem's choice. */
gemmc_status gemmc_workspace_size(gemmc_module module,
                                  const gemmc_problem *problem,
                                  size_t *partial_bytes,
                                  size_t *counter_bytes);

/* gemmc_launch with the caller's workspace: `partials` (any contents) and
   `counters` (zero; each launch leaves them zero), device memory of at
   least the sizes gemmc_workspace_size gives. Nothing is allocated, so a
   CUDA graph can capture the launch; launches that may run at once need
   workspaces of their own. */
gemmc_status gemmc_launch_workspace(gemmc_module module,
                                    const gemmc_problem *problem, void *stream,
                                    uint64_t partials, size_t partial_bytes,
                                    uint64_t counters, size_t counter_bytes);

/*===--------------------------------------------------------------------===
 * Plans: a problem's launch worked out once (the fast path)
 *===--------------------------------------------------------------------===*/

/* A launch of one problem, worked out once: the variant, its splits of K,
   its grid and its arguments but the addresses. gemmc_plan_launch costs
   little more than the driver's launch; it checks the addresses only for
   null and alignment (not that they are device memory large enough, as
   gemmc_launch does): they are the caller's word, as cuBLAS takes them.
   A plan keeps its module's kernels alive; it may be launched from many
   threads at once. */
typedef struct gemmc_plan_opaque *gemmc_plan;

/* The plan of `problem`, whose pointers are ignored (the launches give
   them); the choice is the one gemmc_launch makes (JIT-compiles the
   module). Free it with gemmc_plan_destroy. */
gemmc_status gemmc_plan_create(gemmc_module module,
                               const gemmc_problem *problem, gemmc_plan *plan);

gemmc_status gemmc_plan_destroy(gemmc_plan plan);

/* The workspace a launch of `plan` takes where its variant splits K, as
   gemmc_workspace_size gives it (both 0 where it does not split). */
gemmc_status gemmc_plan_workspace_size(gemmc_plan plan, size_t *partial_bytes,
                                       size_t *counter_bytes);

/* The device addresses of a plan's launch: the matrices, and the bias, R,
   the scales, the amax and C's scale where the module's kernels take them
   (else 0). */
typedef struct gemmc_operands {
  uint64_t a, b, c, bias, residual, scale_a, scale_b;
  uint64_t amax;
  uint64_t scale_c;
} gemmc_operands;

/* Launches `plan` on `stream` with `operands` (gemmc_plan_launch's
   terms). */
gemmc_status gemmc_plan_launch_operands(gemmc_plan plan,
                                        const gemmc_operands *operands,
                                        void *stream, uint64_t partials,
                                        uint64_t counters);

/* Launches `plan` on `stream` with A, B, C (and the bias where the module
   adds one) at these device addresses (a module whose kernels take R or
   scales: gemmc_plan_launch_operands). `partials` and `counters`: the
   caller's split-K workspace (gemmc_launch_workspace's terms), or both 0
   for the runtime's own for the stream. */
gemmc_status gemmc_plan_launch(gemmc_plan plan, uint64_t a, uint64_t b,
                               uint64_t c, uint64_t bias, void *stream,
                               uint64_t partials, uint64_t counters);

/*===--------------------------------------------------------------------===
 * The families gemmc ships (libgemmc_runtime; docs/library.md)
 *===--------------------------------------------------------------------===*/

/* gemmc is installed with kernel families for each element type (A, B
   and C alike: f32, f16, bf16, and f32 multiplied in tf32) and layouts
   of A and B, C row-major, for
   sm_90a (Hopper) and sm_80 (Ampere and later): share/gemmc/families/
   ARCH/TYPE_AB r.ptx beside the library's lib/ folder, or in
   $GEMMC_FAMILY_DIR. Each runs a problem on the variant the cost model
   predicts fastest (docs/selection.md). They compute C = A * B (alpha 1,
   beta 0, no bias) for any sizes and leading dimensions. */

/* Loads the shipped family of `dtype`, `a_layout` and `b_layout` for
   `arch` ("sm_90a" or "sm_80"; NULL: the current device's: sm_90a for
   compute capability 9.0, else sm_80). Once per process: later calls
   return the same module (loaded again if it was destroyed). */
gemmc_status gemmc_family_load(gemmc_dtype dtype, gemmc_layout a_layout,
                               gemmc_layout b_layout, const char *arch,
                               gemmc_module *module);

/* The shipped batched family (ARCH/TYPE_ABr_batched.ptx: `batch = ?`, a
   batch's GEMMs in one launch) of `dtype` and the layouts, as
   gemmc_family_load; sm_90a only (GEMMC_ERROR_IO where there is none). */
gemmc_status gemmc_batched_family_load(gemmc_dtype dtype,
                                       gemmc_layout a_layout,
                                       gemmc_layout b_layout, const char *arch,
                                       gemmc_module *module);

/* The shipped FP8 family (sm_90a only: ARCH/fp8_A_B_C_SCALES[_fast].ptx)
   of torch._scaled_mm's products: C = scale_a * scale_b * A * B, A
   row-major and B column-major (K contiguous in both, rows 16 bytes
   apart: TMA reads FP8) in GEMMC_E4M3 or GEMMC_E5M2 (not both E5M2), C
   row-major in GEMMC_BF16, GEMMC_F16 or GEMMC_F32, with
   GEMMC_SCALES_TENSOR or GEMMC_SCALES_ROWWISE scales; with `bias`
   GEMMC_BIAS_COL, torch's bias added last (C = scale_a * scale_b * A * B
   + bias[col], N values of C's type), for E4M3 x E4M3 into GEMMC_BF16 or
   GEMMC_F16 (as torch._scaled_mm takes a bias); or C in GEMMC_E4M3 for
   E4M3 x E4M3 with per-tensor scales and no bias, C = sat(scale_c *
   scale_a * scale_b * A * B) with C's scale (gemmc_problem's scale_c,
   torch._scaled_mm's scale_result) required, the cast saturated at 448;
   `fast_accumulate`
   (torch's use_fast_accum) sums the products over all of K on the tensor
   cores, else each k tile's sums are added in f32. `arch` as
   gemmc_family_load's ("sm_90a" or NULL). */
gemmc_status gemmc_scaled_family_load(gemmc_dtype a_type, gemmc_dtype b_type,
                                      gemmc_dtype c_type, gemmc_scales scales,
                                      gemmc_bias bias, int fast_accumulate,
                                      const char *arch, gemmc_module *module);

/* One call: torch._scaled_mm's C = scale_a * scale_b * A * B (+ bias[col]
   where problem->bias is set) with the shipped FP8 family of these types,
   scales, bias and sums (gemmc_scaled_family_load's terms, the current
   device's) for `problem` (its sizes, A, B, C, the leading dimensions,
   scale_a, scale_b, the bias, and C's scale into E4M3), on `stream`,
   asynchronously. */
gemmc_status gemmc_scaled_matmul(gemmc_dtype a_type, gemmc_dtype b_type,
                                 gemmc_dtype c_type, gemmc_scales scales,
                                 int fast_accumulate,
                                 const gemmc_problem *problem, void *stream);

/* One call: C = A * B with the shipped family for the layouts (a
   column-major C runs as the transposed problem, C^T = B^T A^T, on the
   family of those layouts) on `stream`, asynchronously. A batch
   (problem->batch > 1) runs in one launch of the batched family where the
   device's architecture has one and the cost model predicts it faster
   than one launch a matrix (gemmc_predict), else a launch a matrix. */
gemmc_status gemmc_matmul(gemmc_dtype dtype, gemmc_layout a_layout,
                          gemmc_layout b_layout, gemmc_layout c_layout,
                          const gemmc_problem *problem, void *stream);

/*===--------------------------------------------------------------------===
 * Grouped GEMMs (mixture-of-experts; docs/library.md)
 *===--------------------------------------------------------------------===*/

/* A grouped GEMM on device memory, torch._grouped_mm's 2-D x 3-D form, for
   a module whose kernels are grouped (gemmc_kernel_info.grouped): `groups`
   GEMMs sharing n and k. A (m x k) and C (m x n) hold every group's rows
   one after the other; B holds a k x n matrix a group, `stride_b`
   elements apart (0: dense). `offsets` points to `groups` int32 values on
   the device, where each group's rows end (cumulative, torch's `offs`):
   group g has rows [offsets[g-1], offsets[g]) (from 0), any count, 0
   included; rows past offsets[groups-1] are left as they are. The sizes
   of the groups are read on the device only: a launch needs no
   synchronisation, and a CUDA graph replays it with new offsets.
   C = alpha * A * B where the kernel takes alpha (else alpha is 1).
   `scale_a` and `scale_b`, where the kernel takes scales (else 0): f32 on
   the device, A's over all its rows (1 value, or m) and B's a group
   (groups values, or groups x n, group g's n from g * n: torch's
   _scaled_grouped_mm's (G, N)). */
typedef struct gemmc_grouped_problem {
  int64_t m, n, k, groups;
  uint64_t a, b, c, offsets;
  int64_t lda, ldb, ldc, stride_b;
  float alpha;
  uint64_t scale_a, scale_b;
} gemmc_grouped_problem;

/* Fills `problem`: null pointers, dense leading dimensions and B, alpha
   1. */
void gemmc_grouped_problem_init(gemmc_grouped_problem *problem, int64_t m,
                                int64_t n, int64_t k, int64_t groups);

/* Launches `problem` on `stream`, asynchronously, as gemmc_launch does
   (the pointers checked to be device memory large enough; the offsets'
   values are the caller's word: they are clamped into [0, m] on the
   device, never read on the host). */
gemmc_status gemmc_grouped_launch(gemmc_module module,
                                  const gemmc_grouped_problem *problem,
                                  void *stream);

/* The plan of a grouped problem (its pointers ignored), for
   gemmc_grouped_plan_launch; free it with gemmc_plan_destroy. */
gemmc_status gemmc_grouped_plan_create(gemmc_module module,
                                       const gemmc_grouped_problem *problem,
                                       gemmc_plan *plan);

/* Launches a grouped plan on `stream` with A, B, C and the offsets at
   these device addresses (checked for null and alignment only, as
   gemmc_plan_launch). */
gemmc_status gemmc_grouped_plan_launch(gemmc_plan plan, uint64_t a,
                                       uint64_t b, uint64_t c,
                                       uint64_t offsets, void *stream);

/* Launches a grouped plan whose kernel takes scales or R:
   gemmc_grouped_plan_launch with `operands` (A, B, C, R and the scales;
   R is m x n as C). */
gemmc_status gemmc_grouped_plan_launch_operands(gemmc_plan plan,
                                                const gemmc_operands *operands,
                                                uint64_t offsets,
                                                void *stream);

/* A grouped GEMM's general form, CUTLASS's pointer-array grouped GEMM,
   for a module whose kernels read a group table
   (gemmc_kernel_info.group_table): `groups` GEMMs each of its own sizes,
   matrices and leading dimensions, listed in `table`, `groups` rows of 9
   int64 on the device: m, n, k, lda, ldb, ldc (elements; each leading
   dimension at least the dense one and a multiple of the kernel's
   leading-dim-multiple), then the device addresses of A, B and C (each
   aligned to the kernel's alignment), the caller's word: read on the
   device only, so that a CUDA graph replays a launch with new rows
   written into the table. A group of m or n 0 computes nothing. C =
   alpha * A * B + beta * C where the kernel takes alpha and beta (else 1
   and 0). The plan holds the group count and the scalars. Of a family
   whose variants are for ranges of the rows a group (`group-rows`: the
   groups' rows in all over the groups), a launch with the table on the
   device runs the variant for any rows, one with the rows from the host
   (gemmc_grouped_table_plan_launch_rows) the variant they choose. */
gemmc_status gemmc_grouped_table_plan_create(gemmc_module module,
                                             int64_t groups, float alpha,
                                             float beta, gemmc_plan *plan);

/* Launches a group-table plan on `stream` with the table at this device
   address (checked for null and 8-byte alignment only). */
gemmc_status gemmc_grouped_table_plan_launch(gemmc_plan plan, uint64_t table,
                                             void *stream);

/* Launches a group-table plan on `stream` with the table's rows on the
   host (`rows`: the plan's `groups` rows of 9 int64, read before the call
   returns, under gemmc_grouped_table_plan_create's rules, unchecked). The
   plan copies them to the device through memory of its own, which a slot
   at a time is reused once the launch that read it is done: no
   synchronisation, and once as many slots exist as launches are in flight,
   no allocation. Refused on a stream capturing a CUDA graph (a replay
   would read the rows of the capture): capture
   gemmc_grouped_table_plan_launch with the table on the device. */
gemmc_status gemmc_grouped_table_plan_launch_rows(gemmc_plan plan,
                                                  const int64_t *rows,
                                                  void *stream);

/* The shipped grouped kernel (ARCH/TYPE_ABr_grouped.ptx: f16 or bf16, A
   row-major, B of `b_layout`, C row-major) as gemmc_family_load loads a
   family; sm_90a only (GEMMC_ERROR_IO where there is none). */
gemmc_status gemmc_grouped_family_load(gemmc_dtype dtype,
                                       gemmc_layout b_layout,
                                       const char *arch,
                                       gemmc_module *module);

/* The shipped grouped FP8 kernel (ARCH/fp8_e4m3_e4m3_bf16_SCALES[_fast]
   _grouped.ptx, sm_90a): torch._scaled_grouped_mm's 2-D x 3-D product in
   gemmc_scaled_family_load's terms, B column-major (each group's N x K
   weight), C in GEMMC_BF16; A and B GEMMC_E4M3 (GEMMC_ERROR_IO for types
   gemmc does not ship). */
gemmc_status gemmc_scaled_grouped_family_load(gemmc_dtype a_type,
                                              gemmc_dtype b_type,
                                              gemmc_dtype c_type,
                                              gemmc_scales scales,
                                              int fast_accumulate,
                                              const char *arch,
                                              gemmc_module *module);

/* The shipped grouped kernel of the general form (ARCH/TYPE_ABr_ptr_array
   .ptx: f16 or bf16, each group's A row-major, B of `b_layout`, C
   row-major; its plans gemmc_grouped_table_plan_create's), as
   gemmc_grouped_family_load; sm_90a only (GEMMC_ERROR_IO where there is
   none). */
gemmc_status gemmc_grouped_table_family_load(gemmc_dtype dtype,
                                             gemmc_layout b_layout,
                                             const char *arch,
                                             gemmc_module *module);

/* Releases what gemmc allocated for the caller (gemmc_compile's PTX). */
void gemmc_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif /* GEMMC_GEMMC_H */
