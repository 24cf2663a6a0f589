//===- CApiTest.cpp - CPU-only unit tests of the C API ------------------===//
//
// The C API's loading, description and checks of modules, families,
// grouped kernels and plans: everything before a launch. No GPU needed.
//
//===----------------------------------------------------------------------===//

#include "gemmc/gemmc.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

/// That a C API call failed with `expected` and its message names `text`.
static void expectFailure(gemmc_status status, gemmc_status expected,
                          const std::string &text) {
  EXPECT_EQ(status, expected);
  EXPECT_NE(std::string(gemmc_last_error()).find(text), std::string::npos)
      << gemmc_last_error();
}

/// That `module` refuses `problem` without A's and B's scales (the message
/// naming `missing`) and runs it on its one variant with them.
static void expectSelectedWithScalesOnly(gemmc_module module,
                                         gemmc_problem problem,
                                         const std::string &missing) {
  int variant = -1;
  expectFailure(gemmc_select(module, &problem, &variant),
                GEMMC_ERROR_INVALID_ARGUMENT, missing);
  problem.scale_a = 0x7f0000200000;
  problem.scale_b = 0x7f0000300000;
  EXPECT_EQ(gemmc_select(module, &problem, &variant), GEMMC_SUCCESS)
      << gemmc_last_error();
  EXPECT_EQ(variant, 0);
}

TEST(CApi, LoadsTheShippedFamilies) {
  // Beside this program's folder, as beside an installed library's.
  gemmc_module module = nullptr;
  gemmc_status status =
      gemmc_family_load(GEMMC_F16, GEMMC_ROW, GEMMC_COL, "sm_90a", &module);
  if (status == GEMMC_ERROR_IO)
    GTEST_SKIP() << "the families are built with the compiler: "
                 << gemmc_last_error();
  ASSERT_EQ(status, GEMMC_SUCCESS) << gemmc_last_error();
  gemmc_kernel_info info;
  ASSERT_EQ(gemmc_module_info(module, &info), GEMMC_SUCCESS);
  EXPECT_STREQ(info.name, "f16_rcr");
  EXPECT_STREQ(info.arch, "sm_90a");
  EXPECT_EQ(info.a, GEMMC_F16);
  EXPECT_EQ(info.b_layout, GEMMC_COL);
  EXPECT_EQ(info.c_layout, GEMMC_ROW);
  EXPECT_GE(info.variants, 2);
  EXPECT_EQ(info.m, 0); // any size
  // Once per process.
  gemmc_module again = nullptr;
  ASSERT_EQ(
      gemmc_family_load(GEMMC_F16, GEMMC_ROW, GEMMC_COL, "sm_90a", &again),
      GEMMC_SUCCESS);
  EXPECT_EQ(again, module);
  // The rule of choice by the contracts (no GPU): a large square problem
  // on a 128-row wgmma tile (two consumer warpgroups and the producer); an
  // odd leading dimension on a variant that takes any.
  gemmc_problem p;
  gemmc_problem_init(&p, 8192, 8192, 8192);
  p.a = p.b = p.c = 0x1000;
  int variant = -1;
  ASSERT_EQ(gemmc_select(module, &p, &variant), GEMMC_SUCCESS)
      << gemmc_last_error();
  gemmc_variant_info v;
  ASSERT_EQ(gemmc_module_variant(module, variant, &v), GEMMC_SUCCESS);
  EXPECT_EQ(v.block_threads, 384u) << v.entry;
  p.lda = 8193;
  ASSERT_EQ(gemmc_select(module, &p, &variant), GEMMC_SUCCESS)
      << gemmc_last_error();
  ASSERT_EQ(gemmc_module_variant(module, variant, &v), GEMMC_SUCCESS);
  EXPECT_EQ(v.ld_multiple_a, 1) << v.entry;
  // Every shipped combination is there.
  for (gemmc_dtype type : {GEMMC_F32, GEMMC_F16, GEMMC_BF16, GEMMC_TF32})
    for (const char *arch : {"sm_90a", "sm_80"})
      for (gemmc_layout a : {GEMMC_ROW, GEMMC_COL})
        for (gemmc_layout b : {GEMMC_ROW, GEMMC_COL})
          EXPECT_EQ(gemmc_family_load(type, a, b, arch, &again), GEMMC_SUCCESS)
              << gemmc_last_error();
  // f32 in tf32 (GEMMC_TF32): a family of its own, whose contract says
  // f32; any other type is refused.
  gemmc_module tf32 = nullptr, f32 = nullptr;
  ASSERT_EQ(gemmc_family_load(GEMMC_TF32, GEMMC_ROW, GEMMC_COL, "sm_90a",
                              &tf32),
            GEMMC_SUCCESS)
      << gemmc_last_error();
  ASSERT_EQ(gemmc_family_load(GEMMC_F32, GEMMC_ROW, GEMMC_COL, "sm_90a", &f32),
            GEMMC_SUCCESS);
  EXPECT_NE(tf32, f32);
  ASSERT_EQ(gemmc_module_info(tf32, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.a, GEMMC_F32);
  EXPECT_EQ(std::string(info.name).rfind("tf32_rcr", 0), 0u) << info.name;
  EXPECT_EQ(gemmc_family_load(gemmc_dtype(4), GEMMC_ROW, GEMMC_COL, "sm_90a",
                              &again),
            GEMMC_ERROR_INVALID_ARGUMENT);
  // Hopper's batched families: a batch's GEMMs in one launch (batch = ?),
  // on variants that take a batch; none for sm_80.
  for (gemmc_dtype type : {GEMMC_F32, GEMMC_F16, GEMMC_BF16, GEMMC_TF32})
    for (gemmc_layout a : {GEMMC_ROW, GEMMC_COL})
      for (gemmc_layout b : {GEMMC_ROW, GEMMC_COL}) {
        ASSERT_EQ(gemmc_batched_family_load(type, a, b, "sm_90a", &again),
                  GEMMC_SUCCESS)
            << gemmc_last_error();
        ASSERT_EQ(gemmc_module_info(again, &info), GEMMC_SUCCESS);
        EXPECT_TRUE(info.batched) << info.name;
        EXPECT_NE(std::string(info.name).find("_batched"), std::string::npos);
      }
  ASSERT_EQ(
      gemmc_batched_family_load(GEMMC_F16, GEMMC_ROW, GEMMC_COL, "sm_90a",
                                &again),
      GEMMC_SUCCESS);
  gemmc_problem_init(&p, 2048, 2048, 128);
  p.a = p.b = p.c = 0x1000;
  p.batch = 32;
  ASSERT_EQ(gemmc_select(again, &p, &variant), GEMMC_SUCCESS)
      << gemmc_last_error();
  // The cost model's times (no GPU): the batch in one launch beats 32
  // launches of the single GEMM, whose time it exceeds.
  double whole = 0, each = 0;
  ASSERT_EQ(gemmc_predict(again, &p, &whole), GEMMC_SUCCESS)
      << gemmc_last_error();
  gemmc_problem one = p;
  one.batch = 1;
  ASSERT_EQ(gemmc_predict(module, &one, &each), GEMMC_SUCCESS)
      << gemmc_last_error();
  EXPECT_GT(whole, each);
  EXPECT_LT(whole, 32 * each);
  EXPECT_EQ(gemmc_predict(again, &p, nullptr), GEMMC_ERROR_INVALID_ARGUMENT);
  // gemmc_matmul's rule, in the C API: the batch in one launch here.
  int useBatched = -1;
  ASSERT_EQ(gemmc_prefer_batched(module, again, &p, &useBatched),
            GEMMC_SUCCESS)
      << gemmc_last_error();
  EXPECT_EQ(useBatched, 1);
  // A batch the batched family cannot run (odd leading dimensions and
  // strides): a launch a matrix.
  gemmc_problem odd = p;
  odd.m = odd.n = 197;
  odd.k = 63;
  ASSERT_EQ(gemmc_prefer_batched(module, again, &odd, &useBatched),
            GEMMC_SUCCESS);
  EXPECT_EQ(useBatched, 0);
  EXPECT_EQ(gemmc_prefer_batched(module, again, nullptr, &useBatched),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmc_prefer_batched(module, again, &p, nullptr),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmc_prefer_batched(module, nullptr, &p, &useBatched),
            GEMMC_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gemmc_batched_family_load(GEMMC_F16, GEMMC_ROW, GEMMC_ROW, "sm_80",
                                      &again),
            GEMMC_ERROR_IO);
  // FP8 (sm_90a): every pair torch._scaled_mm takes, into bf16, f16 or
  // f32, per-tensor or rowwise scales, promoted or fast sums, and torch's
  // bias where it takes one (e4m3 x e4m3 into bf16 or f16); e4m3 x e4m3
  // into e4m3 per tensor without a bias, with C's scale; the rule of
  // choice by the contracts: an N that TMA cannot store C at on the
  // catch-all, which stores C without it.
  for (gemmc_dtype a : {GEMMC_E4M3, GEMMC_E5M2})
    for (gemmc_dtype b : {GEMMC_E4M3, GEMMC_E5M2})
      for (gemmc_dtype c : {GEMMC_BF16, GEMMC_F16, GEMMC_F32, GEMMC_E4M3})
        for (gemmc_scales scales : {GEMMC_SCALES_TENSOR, GEMMC_SCALES_ROWWISE})
          for (gemmc_bias bias : {GEMMC_BIAS_NONE, GEMMC_BIAS_COL})
            for (int fast : {0, 1}) {
              gemmc_module fp8 = nullptr;
              gemmc_status loaded = gemmc_scaled_family_load(
                  a, b, c, scales, bias, fast, "sm_90a", &fp8);
              bool e4m3 = a == GEMMC_E4M3 && b == GEMMC_E4M3;
              bool shipped = c == GEMMC_E4M3
                                 ? e4m3 && scales == GEMMC_SCALES_TENSOR &&
                                       bias == GEMMC_BIAS_NONE
                                 : !(a == GEMMC_E5M2 && b == GEMMC_E5M2) &&
                                       (bias == GEMMC_BIAS_NONE ||
                                        (e4m3 && c != GEMMC_F32));
              if (!shipped) {
                EXPECT_EQ(loaded, GEMMC_ERROR_INVALID_ARGUMENT);
                continue;
              }
              ASSERT_EQ(loaded, GEMMC_SUCCESS) << gemmc_last_error();
              ASSERT_EQ(gemmc_module_info(fp8, &info), GEMMC_SUCCESS);
              EXPECT_EQ(info.a, a);
              EXPECT_EQ(info.b, b);
              EXPECT_EQ(info.c, c);
              EXPECT_EQ(info.scales, scales);
              EXPECT_EQ(info.bias, bias);
              EXPECT_EQ(info.b_layout, GEMMC_COL);
              EXPECT_EQ(info.output_scale, c == GEMMC_E4M3);
            }
  gemmc_module fp8 = nullptr;
  ASSERT_EQ(gemmc_scaled_family_load(GEMMC_E4M3, GEMMC_E4M3, GEMMC_BF16,
                                     GEMMC_SCALES_ROWWISE, GEMMC_BIAS_NONE, 0,
                                     "sm_90a", &fp8),
            GEMMC_SUCCESS);
  gemmc_problem_init(&p, 4096, 4100, 4096);
  p.a = p.b = p.c = p.scale_a = p.scale_b = 0x1000;
  ASSERT_EQ(gemmc_select(fp8, &p, &variant), GEMMC_SUCCESS)
      << gemmc_last_error();
  ASSERT_EQ(gemmc_module_variant(fp8, variant, &v), GEMMC_SUCCESS);
  EXPECT_STREQ(v.entry, "fp8_e4m3_e4m3_bf16_rowwise_any");
  p.k = 4100; // A's rows 4,100 bytes apart: TMA cannot read them
  EXPECT_NE(gemmc_select(fp8, &p, &variant), GEMMC_SUCCESS);
  // Refused with the reason: each argument outside what gemmc ships.
  struct Refused {
    gemmc_dtype a, b, c;
    gemmc_scales scales;
    gemmc_bias bias;
    int fast;
    const char *arch, *why;
  };
  for (const Refused &r : std::initializer_list<Refused>{
           {GEMMC_E4M3, GEMMC_E4M3, GEMMC_E5M2, GEMMC_SCALES_TENSOR,
            GEMMC_BIAS_NONE, 0, "sm_90a", "bf16, f16, f32 or e4m3"},
           {GEMMC_E4M3, GEMMC_E4M3, GEMMC_E4M3, GEMMC_SCALES_ROWWISE,
            GEMMC_BIAS_NONE, 0, "sm_90a", "families into E4M3 are E4M3 x"},
           {GEMMC_E4M3, GEMMC_E4M3, GEMMC_E4M3, GEMMC_SCALES_TENSOR,
            GEMMC_BIAS_COL, 1, "sm_90a", "per-tensor scales and no bias"},
           {GEMMC_E4M3, GEMMC_E4M3, GEMMC_BF16, GEMMC_SCALES_BLOCK,
            GEMMC_BIAS_NONE, 0, "sm_90a", "per-tensor or rowwise"},
           {GEMMC_E4M3, GEMMC_E4M3, GEMMC_BF16, GEMMC_SCALES_TENSOR,
            GEMMC_BIAS_NONE, 0, "sm_80", "sm_90a's"},
           {GEMMC_E4M3, GEMMC_E4M3, GEMMC_BF16, GEMMC_SCALES_TENSOR,
            GEMMC_BIAS_ROW, 0, "sm_90a", "one value per column of C"},
           {GEMMC_E4M3, GEMMC_E5M2, GEMMC_BF16, GEMMC_SCALES_TENSOR,
            GEMMC_BIAS_COL, 0, "sm_90a", "E4M3 x E4M3 into bf16 or f16"},
           {GEMMC_E4M3, GEMMC_E4M3, GEMMC_F32, GEMMC_SCALES_ROWWISE,
            GEMMC_BIAS_COL, 1, "sm_90a", "no bias to an f32 result"}})
    expectFailure(gemmc_scaled_family_load(r.a, r.b, r.c, r.scales, r.bias,
                                           r.fast, r.arch, &fp8),
                  GEMMC_ERROR_INVALID_ARGUMENT, r.why);
  // Its one call, refused before any GPU is asked: no problem, a type
  // gemmc ships no FP8 family of.
  gemmc_problem_init(&p, 64, 64, 64);
  expectFailure(gemmc_scaled_matmul(GEMMC_E4M3, GEMMC_E4M3, GEMMC_BF16,
                                    GEMMC_SCALES_TENSOR, 0, nullptr, nullptr),
                GEMMC_ERROR_INVALID_ARGUMENT, "the problem must not be null");
  expectFailure(gemmc_scaled_matmul(GEMMC_F16, GEMMC_E4M3, GEMMC_BF16,
                                    GEMMC_SCALES_TENSOR, 0, &p, nullptr),
                GEMMC_ERROR_INVALID_ARGUMENT, "must be GEMMC_E4M3");
  p.bias = 0x1000; // the problem's bias picks the family with one
  expectFailure(gemmc_scaled_matmul(GEMMC_E4M3, GEMMC_E4M3, GEMMC_F32,
                                    GEMMC_SCALES_TENSOR, 0, &p, nullptr),
                GEMMC_ERROR_INVALID_ARGUMENT, "no bias to an f32 result");
  // Misuse: an arch gemmc ships nothing for, a folder without families.
  EXPECT_EQ(gemmc_family_load(GEMMC_F16, GEMMC_ROW, GEMMC_ROW, "sm_70", &again),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmc_last_error()).find("sm_90a and sm_80"),
            std::string::npos);
  setenv("GEMMC_FAMILY_DIR", "/nonexistent", 1);
  EXPECT_EQ(gemmc_family_load(GEMMC_F16, GEMMC_ROW, GEMMC_ROW, "sm_80", &again),
            GEMMC_ERROR_IO);
  EXPECT_NE(std::string(gemmc_last_error()).find("GEMMC_FAMILY_DIR"),
            std::string::npos);
  unsetenv("GEMMC_FAMILY_DIR");
  EXPECT_EQ(gemmc_matmul(GEMMC_F16, GEMMC_ROW, GEMMC_ROW, GEMMC_ROW, nullptr,
                         nullptr),
            GEMMC_ERROR_INVALID_ARGUMENT);
}

TEST(CApi, DescribesActivationsFloat8AndScales) {
  // GELU, its tanh form and SiLU are described (the launch applies the
  // contract's epilogue, as with ReLU).
  const char *silu = R"(
// gemmc-contract-begin v11
// entry: k
// block: 128 1 1
// grid: N/64 M/64 1
// dynamic-shared-bytes: 0
// params: A:ptr B:ptr C:ptr
// epilogue: silu
// problem: m=64 n=64 k=128 a=f16:row b=f16:row c=f16:row acc=f32
// gemmc-contract-end
)";
  gemmc_module module = nullptr;
  ASSERT_EQ(gemmc_module_load(silu, "silu", &module), GEMMC_SUCCESS)
      << gemmc_last_error();
  gemmc_kernel_info info;
  ASSERT_EQ(gemmc_module_info(module, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.activation, GEMMC_ACTIVATION_SILU);
  EXPECT_EQ(info.relu, 0);
  EXPECT_EQ(gemmc_module_destroy(module), GEMMC_SUCCESS);
  // An FP8 kernel: its types and scales described (its launch needs them).
  const char *fp8 = R"(
// gemmc-contract-begin v11
// entry: k
// block: 128 1 1
// grid: N/64 M/64 1
// dynamic-shared-bytes: 0
// params: A:ptr B:ptr C:ptr scale-A:ptr scale-B:ptr
// epilogue: scales=tensor
// problem: m=64 n=64 k=128 a=e4m3:row b=e5m2:col c=bf16:row acc=f32
// gemmc-contract-end
)";
  module = nullptr;
  ASSERT_EQ(gemmc_module_load(fp8, "fp8", &module), GEMMC_SUCCESS)
      << gemmc_last_error();
  ASSERT_EQ(gemmc_module_info(module, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.a, GEMMC_E4M3);
  EXPECT_EQ(info.b, GEMMC_E5M2);
  EXPECT_EQ(info.c, GEMMC_BF16);
  EXPECT_EQ(info.scales, GEMMC_SCALES_TENSOR);
  gemmc_problem problem;
  gemmc_problem_init(&problem, 64, 64, 128);
  problem.a = problem.b = problem.c = 0x7f0000000000;
  expectSelectedWithScalesOnly(module, problem,
                               "the kernel multiplies by tensor scales");
  EXPECT_EQ(gemmc_module_destroy(module), GEMMC_SUCCESS);
  // FP8's shipped families are scaled products, loaded by their types.
  expectFailure(gemmc_family_load(GEMMC_E4M3, GEMMC_ROW, GEMMC_COL, "sm_90a",
                                  &module),
                GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_scaled_family_load");
  // Scales of f32 inputs and R: described, and their pointers required.
  const char *scaled = R"(
// gemmc-contract-begin v13
// entry: k
// block: 128 1 1
// grid: N/64 M/64 1
// dynamic-shared-bytes: 0
// params: A:ptr B:ptr C:ptr R:ptr scale-A:ptr scale-B:ptr
// epilogue: scales=rowwise residual=add
// problem: m=64 n=64 k=128 a=f32:row b=f32:row c=f32:row acc=f32
// gemmc-contract-end
)";
  ASSERT_EQ(gemmc_module_load(scaled, "scaled", &module), GEMMC_SUCCESS);
  ASSERT_EQ(gemmc_module_info(module, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.residual, 1);
  EXPECT_EQ(info.scales, GEMMC_SCALES_ROWWISE);
  int variant = -1;
  expectFailure(gemmc_select(module, &problem, &variant),
                GEMMC_ERROR_INVALID_ARGUMENT,
                "the kernel adds R: its pointer must not be null");
  problem.residual = 0x7f0000100000;
  expectSelectedWithScalesOnly(module, problem,
                               "the kernel multiplies by rowwise scales");
  EXPECT_EQ(gemmc_module_destroy(module), GEMMC_SUCCESS);
}

TEST(CApi, AmaxIsDescribedAndItsPointerRequired) {
  // `amax = c`: the kernel writes max |C| to one f32 on the device.
  const char *amax = R"(
// gemmc-contract-begin v16
// entry: k
// block: 128 1 1
// grid: N/64 M/64 1
// dynamic-shared-bytes: 0
// params: A:ptr B:ptr C:ptr amax:ptr
// epilogue: amax
// problem: m=64 n=64 k=128 a=f32:row b=f32:row c=f32:row acc=f32
// gemmc-contract-end
)";
  gemmc_module module = nullptr;
  ASSERT_EQ(gemmc_module_load(amax, "amax", &module), GEMMC_SUCCESS)
      << gemmc_last_error();
  gemmc_kernel_info info;
  ASSERT_EQ(gemmc_module_info(module, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.amax, 1);
  EXPECT_EQ(info.residual, 0);
  gemmc_problem problem;
  gemmc_problem_init(&problem, 64, 64, 128);
  EXPECT_EQ(problem.amax, 0u);
  problem.a = problem.b = problem.c = 0x7f0000000000;
  int variant = -1;
  expectFailure(
      gemmc_select(module, &problem, &variant), GEMMC_ERROR_INVALID_ARGUMENT,
      "the kernel writes the amax of C: its pointer must not be null");
  problem.amax = 0x7f0000100002;
  expectFailure(gemmc_select(module, &problem, &variant),
                GEMMC_ERROR_INVALID_ARGUMENT,
                "the amax's pointer must be aligned to 4 bytes");
  problem.amax = 0x7f0000100004;
  EXPECT_EQ(gemmc_select(module, &problem, &variant), GEMMC_SUCCESS)
      << gemmc_last_error();
  EXPECT_EQ(variant, 0);
  EXPECT_EQ(gemmc_module_destroy(module), GEMMC_SUCCESS);
  // A kernel without one refuses the pointer.
  std::string without = amax;
  without.replace(without.find(" amax:ptr"), 9, "");
  without.replace(without.find("// epilogue: amax\n"), 18, "");
  ASSERT_EQ(gemmc_module_load(without.c_str(), "without", &module),
            GEMMC_SUCCESS)
      << gemmc_last_error();
  ASSERT_EQ(gemmc_module_info(module, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.amax, 0);
  expectFailure(gemmc_select(module, &problem, &variant),
                GEMMC_ERROR_INVALID_ARGUMENT,
                "the kernel writes no amax, but an amax pointer was given");
  EXPECT_EQ(gemmc_module_destroy(module), GEMMC_SUCCESS);
}

TEST(CApi, OutputScaleIsDescribedAndItsPointerRequired) {
  // `output-scale = tensor`: the kernel multiplies an FP8 C by one f32 on
  // the device.
  const char *scaled = R"(
// gemmc-contract-begin v17
// entry: k
// block: 128 1 1
// grid: N/64 M/64 1
// dynamic-shared-bytes: 0
// params: A:ptr B:ptr C:ptr scale-A:ptr scale-B:ptr scale-C:ptr
// semantics: C = scale_c * (scale_a * scale_b * A * B)
// epilogue: scales=tensor output-scale
// problem: m=64 n=64 k=128 a=e4m3:row b=e4m3:col c=e4m3:row acc=f32
// gemmc-contract-end
)";
  gemmc_module module = nullptr;
  ASSERT_EQ(gemmc_module_load(scaled, "scaled", &module), GEMMC_SUCCESS)
      << gemmc_last_error();
  gemmc_kernel_info info;
  ASSERT_EQ(gemmc_module_info(module, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.output_scale, 1);
  EXPECT_EQ(info.amax, 0);
  gemmc_problem problem;
  gemmc_problem_init(&problem, 64, 64, 128);
  EXPECT_EQ(problem.scale_c, 0u);
  problem.a = problem.b = problem.c = 0x7f0000000000;
  problem.scale_a = problem.scale_b = 0x7f0000200000;
  int variant = -1;
  expectFailure(gemmc_select(module, &problem, &variant),
                GEMMC_ERROR_INVALID_ARGUMENT,
                "the kernel multiplies C by its scale: the pointer to it "
                "must not be null");
  problem.scale_c = 0x7f0000100002;
  expectFailure(gemmc_select(module, &problem, &variant),
                GEMMC_ERROR_INVALID_ARGUMENT,
                "C's scale's pointer must be aligned to 4 bytes");
  problem.scale_c = 0x7f0000100004;
  EXPECT_EQ(gemmc_select(module, &problem, &variant), GEMMC_SUCCESS)
      << gemmc_last_error();
  EXPECT_EQ(variant, 0);
  EXPECT_EQ(gemmc_module_destroy(module), GEMMC_SUCCESS);
  // A kernel without one refuses the pointer.
  std::string without = scaled;
  without.replace(without.find(" scale-C:ptr"), 12, "");
  without.replace(without.find(" output-scale"), 13, "");
  without.replace(without.find("scale_c * (scale_a * scale_b * A * B)"), 37,
                  "scale_a * scale_b * A * B");
  ASSERT_EQ(gemmc_module_load(without.c_str(), "without", &module),
            GEMMC_SUCCESS)
      << gemmc_last_error();
  ASSERT_EQ(gemmc_module_info(module, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.output_scale, 0);
  expectFailure(gemmc_select(module, &problem, &variant),
                GEMMC_ERROR_INVALID_ARGUMENT,
                "the kernel takes no scale of C, but a pointer to one was "
                "given");
  EXPECT_EQ(gemmc_module_destroy(module), GEMMC_SUCCESS);
}

TEST(CApi, GroupTableEntriesCheckTheirArguments) {
  // A grouped GEMM's general form says it reads a group table; its plan's
  // checks come before the JIT.
  const char *table = R"(
// gemmc-contract-begin v14
// entry: k
// arch: sm_90a
// block: 384 1 1
// grid: SM 1 1
// dynamic-shared-bytes: 131136
// params: A:memref2.i64 B:memref2.i64 C:memref2.i64 table:memref1.i64 alpha:f32 beta:f32
// alignment: 16
// leading-dim-multiple: a=8 b=8 c=1
// semantics: C = alpha * A * B + beta * C
// problem: m=? n=? k=? a=bf16:row b=bf16:col c=bf16:row acc=f32 groups=? group-form=ptr-array
// schedule: tile=128x128x64 stages=4
// gemmc-contract-end
)";
  gemmc_module module = nullptr;
  ASSERT_EQ(gemmc_module_load(table, "table", &module), GEMMC_SUCCESS)
      << gemmc_last_error();
  gemmc_kernel_info info;
  ASSERT_EQ(gemmc_module_info(module, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.grouped, 1);
  EXPECT_EQ(info.group_table, 1);
  gemmc_plan plan = nullptr;
  expectFailure(gemmc_grouped_table_plan_create(module, 0, 1, 0, &plan),
                GEMMC_ERROR_INVALID_ARGUMENT, "groups must be at least 1");
  EXPECT_EQ(gemmc_grouped_table_plan_create(module, 4, 1, 0, nullptr),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmc_grouped_table_plan_launch(nullptr, 256, nullptr),
            GEMMC_ERROR_INVALID_ARGUMENT);
  int64_t rows[9] = {};
  expectFailure(gemmc_grouped_table_plan_launch_rows(nullptr, rows, nullptr),
                GEMMC_ERROR_INVALID_ARGUMENT,
                "the plan and the rows must not be null");
  // The offsets' form reads no table.
  gemmc_module grouped = nullptr;
  ASSERT_EQ(gemmc_grouped_family_load(GEMMC_BF16, GEMMC_COL, "sm_90a",
                                      &grouped),
            GEMMC_SUCCESS)
      << gemmc_last_error();
  ASSERT_EQ(gemmc_module_info(grouped, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.group_table, 0);
  expectFailure(gemmc_grouped_table_plan_create(grouped, 4, 1, 0, &plan),
                GEMMC_ERROR_UNSUPPORTED_PROBLEM, "reads no group table");
  EXPECT_EQ(gemmc_module_destroy(grouped), GEMMC_SUCCESS);
  // The shipped kernels of the general form: f16 and bf16, B either way.
  for (gemmc_dtype dtype : {GEMMC_F16, GEMMC_BF16})
    for (gemmc_layout b : {GEMMC_ROW, GEMMC_COL}) {
      gemmc_module shipped = nullptr;
      ASSERT_EQ(gemmc_grouped_table_family_load(dtype, b, "sm_90a", &shipped),
                GEMMC_SUCCESS)
          << gemmc_last_error();
      ASSERT_EQ(gemmc_module_info(shipped, &info), GEMMC_SUCCESS);
      EXPECT_EQ(info.grouped, 1);
      EXPECT_EQ(info.group_table, 1);
      EXPECT_EQ(info.b_layout, b);
      EXPECT_EQ(gemmc_module_destroy(shipped), GEMMC_SUCCESS);
    }
  gemmc_module none = nullptr;
  expectFailure(gemmc_grouped_table_family_load(GEMMC_F32, GEMMC_COL,
                                                "sm_90a", &none),
                GEMMC_ERROR_IO, "no shipped family sm_90a/f32_rcr_ptr_array");
  EXPECT_EQ(gemmc_module_destroy(module), GEMMC_SUCCESS);
}

TEST(CApi, GroupedEntriesCheckTheirArguments) {
  // The shipped grouped kernels load without a GPU and say they are
  // grouped; their checks come before the JIT.
  gemmc_module grouped = nullptr;
  ASSERT_EQ(gemmc_grouped_family_load(GEMMC_BF16, GEMMC_COL, "sm_90a",
                                      &grouped),
            GEMMC_SUCCESS)
      << gemmc_last_error();
  gemmc_kernel_info info;
  ASSERT_EQ(gemmc_module_info(grouped, &info), GEMMC_SUCCESS);
  EXPECT_EQ(info.grouped, 1);
  EXPECT_EQ(info.a, GEMMC_BF16);
  EXPECT_EQ(info.b_layout, GEMMC_COL);
  gemmc_grouped_problem p;
  gemmc_grouped_problem_init(&p, 4096, 1408, 2048, 64);
  EXPECT_EQ(p.groups, 64);
  EXPECT_EQ(p.alpha, 1.0f);
  EXPECT_EQ(p.offsets, 0u);
  EXPECT_EQ(gemmc_grouped_launch(grouped, nullptr, nullptr),
            GEMMC_ERROR_INVALID_ARGUMENT);
  p.groups = 0;
  expectFailure(gemmc_grouped_launch(grouped, &p, nullptr),
                GEMMC_ERROR_INVALID_ARGUMENT, "groups must be at least 1");
  // A grouped module takes no single GEMM, and the other way round.
  gemmc_problem single;
  gemmc_problem_init(&single, 64, 64, 64);
  single.a = single.b = single.c = 256;
  int variant = -1;
  expectFailure(gemmc_select(grouped, &single, &variant),
                GEMMC_ERROR_UNSUPPORTED_PROBLEM, "grouped GEMM");
  gemmc_module one = nullptr;
  ASSERT_EQ(gemmc_family_load(GEMMC_F16, GEMMC_ROW, GEMMC_ROW, "sm_90a", &one),
            GEMMC_SUCCESS);
  p.groups = 8;
  EXPECT_EQ(gemmc_grouped_launch(one, &p, nullptr),
            GEMMC_ERROR_UNSUPPORTED_PROBLEM);
  EXPECT_NE(std::string(gemmc_last_error()).find("launch it with gemmc_launch"),
            std::string::npos)
      << gemmc_last_error();
  gemmc_plan plan = nullptr;
  EXPECT_EQ(gemmc_grouped_plan_create(grouped, nullptr, &plan),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmc_grouped_plan_launch(nullptr, 256, 256, 256, 256, nullptr),
            GEMMC_ERROR_INVALID_ARGUMENT);
  // Grouped kernels ship for f16 and bf16 only.
  gemmc_module none = nullptr;
  EXPECT_EQ(gemmc_grouped_family_load(GEMMC_F32, GEMMC_COL, "sm_90a", &none),
            GEMMC_ERROR_IO);
  EXPECT_NE(std::string(gemmc_last_error()).find("f32_rcr_grouped"),
            std::string::npos)
      << gemmc_last_error();
  // FP8's (e4m3 into bf16, torch._scaled_grouped_mm's): per-tensor or
  // rowwise scales, promoted or fast sums; other types are not shipped.
  for (gemmc_scales scales : {GEMMC_SCALES_TENSOR, GEMMC_SCALES_ROWWISE})
    for (int fast : {0, 1}) {
      gemmc_module fp8 = nullptr;
      ASSERT_EQ(gemmc_scaled_grouped_family_load(GEMMC_E4M3, GEMMC_E4M3,
                                                 GEMMC_BF16, scales, fast,
                                                 "sm_90a", &fp8),
                GEMMC_SUCCESS)
          << gemmc_last_error();
      ASSERT_EQ(gemmc_module_info(fp8, &info), GEMMC_SUCCESS);
      EXPECT_EQ(info.grouped, 1);
      EXPECT_EQ(info.a, GEMMC_E4M3);
      EXPECT_EQ(info.c, GEMMC_BF16);
      EXPECT_EQ(info.scales, scales);
    }
  expectFailure(gemmc_scaled_grouped_family_load(GEMMC_E4M3, GEMMC_E4M3,
                                                 GEMMC_F16, GEMMC_SCALES_TENSOR,
                                                 0, "sm_90a", &none),
                GEMMC_ERROR_IO, "fp8_e4m3_e4m3_f16_tensor_grouped");
  expectFailure(gemmc_scaled_grouped_family_load(GEMMC_E5M2, GEMMC_E5M2,
                                                 GEMMC_BF16, GEMMC_SCALES_TENSOR,
                                                 0, "sm_90a", &none),
                GEMMC_ERROR_INVALID_ARGUMENT,
                "gemmc_scaled_grouped_family_load");
  gemmc_operands operands = {256, 256, 256, 0, 0, 256, 256, 0, 0};
  expectFailure(
      gemmc_grouped_plan_launch_operands(nullptr, &operands, 256, nullptr),
      GEMMC_ERROR_INVALID_ARGUMENT,
      "gemmc_grouped_plan_launch_operands: the plan must not be null");
  expectFailure(gemmc_grouped_plan_launch_operands(nullptr, nullptr, 256,
                                                   nullptr),
                GEMMC_ERROR_INVALID_ARGUMENT, "the operands must not be null");
}

TEST(CApi, PlanEntriesCheckTheirArguments) {
  gemmc_problem p;
  gemmc_problem_init(&p, 64, 64, 64);
  gemmc_plan plan = nullptr;
  gemmc_module dead = reinterpret_cast<gemmc_module>(uintptr_t(1) << 40);
  EXPECT_EQ(gemmc_plan_create(dead, &p, &plan), GEMMC_ERROR_INVALID_HANDLE);
  gemmc_module module = nullptr;
  ASSERT_EQ(
      gemmc_family_load(GEMMC_F16, GEMMC_ROW, GEMMC_ROW, "sm_90a", &module),
      GEMMC_SUCCESS)
      << gemmc_last_error();
  EXPECT_EQ(gemmc_plan_create(module, nullptr, &plan),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmc_plan_create(module, &p, nullptr),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmc_last_error()).find("must not be null"),
            std::string::npos);
  size_t partials = 0, counters = 0;
  EXPECT_EQ(gemmc_plan_workspace_size(nullptr, &partials, &counters),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmc_plan_launch(nullptr, 256, 256, 256, 0, nullptr, 0, 0),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmc_last_error()).find("the plan must not be null"),
            std::string::npos);
  EXPECT_EQ(gemmc_plan_destroy(nullptr), GEMMC_SUCCESS);
}

TEST(CApi, AutotuneChecksItsArguments) {
  gemmc_problem p;
  gemmc_problem_init(&p, 64, 64, 64);
  int variant = -1;
  gemmc_module dead = reinterpret_cast<gemmc_module>(uintptr_t(1) << 40);
  EXPECT_EQ(gemmc_autotune(dead, &p, nullptr, 3, &variant),
            GEMMC_ERROR_INVALID_HANDLE);
  gemmc_module module = nullptr;
  ASSERT_EQ(
      gemmc_family_load(GEMMC_F16, GEMMC_ROW, GEMMC_ROW, "sm_90a", &module),
      GEMMC_SUCCESS)
      << gemmc_last_error();
  EXPECT_EQ(gemmc_autotune(module, nullptr, nullptr, 3, &variant),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gemmc_last_error(),
               "gemmc_autotune: the problem must not be null");
  EXPECT_EQ(gemmc_autotune(module, &p, nullptr, 0, &variant),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gemmc_last_error(),
               "gemmc_autotune: candidates must be 1 or more, got 0");
  EXPECT_EQ(variant, -1);
  EXPECT_EQ(gemmc_module_destroy(module), GEMMC_SUCCESS);
}

TEST(CApi, WorkspaceEntriesCheckTheirArguments) {
  gemmc_problem p;
  gemmc_problem_init(&p, 64, 64, 16384);
  size_t partials = 0, counters = 0;
  gemmc_module dead = reinterpret_cast<gemmc_module>(uintptr_t(1) << 40);
  EXPECT_EQ(gemmc_workspace_size(dead, &p, &partials, &counters),
            GEMMC_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gemmc_launch_workspace(dead, &p, nullptr, 256, 4, 256, 4),
            GEMMC_ERROR_INVALID_HANDLE);
  gemmc_module module = nullptr;
  ASSERT_EQ(
      gemmc_family_load(GEMMC_F32, GEMMC_ROW, GEMMC_ROW, "sm_90a", &module),
      GEMMC_SUCCESS)
      << gemmc_last_error();
  EXPECT_EQ(gemmc_workspace_size(module, &p, nullptr, &counters),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmc_last_error()).find("must not be null"),
            std::string::npos);
  // A launch with the caller's workspace needs both buffers (gemmc_launch
  // uses the module's own).
  EXPECT_EQ(gemmc_launch_workspace(module, &p, nullptr, 0, 0, 256, 4),
            GEMMC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmc_last_error()).find("gemmc_launch uses"),
            std::string::npos);
}
