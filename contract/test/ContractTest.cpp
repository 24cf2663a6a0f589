//===- ContractTest.cpp - the kernel contract: parse, format, accept ------===//
//
// The contract library alone (no GPU, no LLVM): contracts read and written
// back, what a kernel takes, families, size ranges, the shapes and results
// formats.
//
//===----------------------------------------------------------------------===//

#include "gemmc-contract/Contract.h"
#include "gemmc-contract/Cost.h"
#include "gemmc-contract/Results.h"
#include "gemmc-contract/Shapes.h"

#include <gtest/gtest.h>

using namespace gemmc::contract;

static const char *kFixed = R"(//
.version 7.8
.target sm_90
.address_size 64

// gemmc-contract-begin v1
// entry: sgemm_coalesced
// arch: sm_90
// block: 1024 1 1
// grid: N/32 M/32 1
// dynamic-shared-bytes: 0
// params: A:ptr B:ptr C:ptr
// alignment: 16
// semantics: C = A * B
// problem: m=1024 n=512 k=256 a=f32:row b=f32:row c=f32:col acc=f32
// schedule: tile=32x32x1 coalesce
// source: examples/coalesced.gemm
// gemmc-contract-end

.visible .entry sgemm_coalesced()
)";

static const char *kDynamic = R"(
// gemmc-contract-begin v1
// entry: ptx_naive
// block: 32 32 1
// grid: M/32 N/32 1
// dynamic-shared-bytes: 65536
// params: A:ptr B:ptr C:ptr M:i32 N:i32 K:i32
// problem: m=? n=? k=? a=f32:row b=f32:row c=f32:row acc=f32
// size-multiple: m=32 n=64 k=8
// gemmc-contract-end
)";

static std::string replace(std::string text, const std::string &from,
                           const std::string &to) {
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return text.replace(pos, from.size(), to);
}

TEST(Contract, ParsesFixedSizeKernel) {
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(kFixed, c, error)) << error;
  EXPECT_EQ(c.entry, "sgemm_coalesced");
  EXPECT_EQ(c.arch, "sm_90");
  EXPECT_EQ(c.block[0], 1024u);
  EXPECT_EQ(c.block[1], 1u);
  EXPECT_EQ(c.grid[0].evaluate(1024, 512, 256), 16);
  EXPECT_EQ(c.grid[1].evaluate(1024, 512, 256), 32);
  EXPECT_EQ(c.grid[2].evaluate(1024, 512, 256), 1);
  ASSERT_EQ(c.params.size(), 3u);
  EXPECT_EQ(c.params[2].name, "C");
  EXPECT_EQ(c.params[2].kind, "ptr");
  EXPECT_EQ(c.alignment, 16);
  EXPECT_EQ(c.problem.m, 1024);
  EXPECT_EQ(c.problem.n, 512);
  EXPECT_EQ(c.problem.k, 256);
  EXPECT_EQ(c.problem.cLayout, Layout::Col);
  EXPECT_EQ(c.schedule, "tile=32x32x1 coalesce");
}

TEST(Contract, RoundTripsThroughFormat) {
  Contract c, again;
  std::string error;
  ASSERT_TRUE(parseContract(kDynamic, c, error)) << error;
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(c), formatContract(again));
  EXPECT_EQ(again.multipleN, 64);
  EXPECT_EQ(again.dynamicSharedBytes, 65536);
}

TEST(Contract, ReadsTheMathMode) {
  Contract c, again;
  std::string error;
  ASSERT_TRUE(
      parseContract(replace(kFixed, "acc=f32", "acc=f32 math=tf32"), c, error))
      << error;
  EXPECT_TRUE(c.problem.tf32);
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_TRUE(again.problem.tf32);
  ASSERT_TRUE(parseContract(replace(kFixed, "acc=f32", "acc=f32 math=tf32x3"),
                            c, error))
      << error;
  EXPECT_TRUE(c.problem.tf32x3);
  EXPECT_FALSE(c.problem.tf32);
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_TRUE(again.problem.tf32x3);
  ASSERT_TRUE(parseContract(kFixed, c, error)) << error;
  EXPECT_FALSE(c.problem.tf32);
  EXPECT_FALSE(c.problem.tf32x3);
  EXPECT_FALSE(
      parseContract(replace(kFixed, "acc=f32", "acc=f32 math=fp8"), c, error));
}

TEST(Contract, ReadsABatch) {
  Contract c;
  std::string error, why;
  ASSERT_TRUE(parseContract(
      replace(replace(kFixed, "// grid: N/32 M/32 1", "// grid: N/32 M/32 B/1"),
              "acc=f32", "acc=f32 batch=3 strides=2000000,1048576,1048576"),
      c, error))
      << error;
  EXPECT_EQ(c.problem.batch, 3);
  EXPECT_EQ(c.problem.strideOfA(), 2000000);
  EXPECT_EQ(c.problem.strideOfC(), 1024 * 1024);
  EXPECT_EQ(c.grid[2].evaluate(1024, 1024, 1024, 3), 3);
  EXPECT_NE(formatContract(c).find("batch=3 strides=2000000,1048576,1048576"),
            std::string::npos);
  Problem p = c.problem;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  p.strideA = 0; // dense: 1024 * 1024
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_NE(why.find("batches differ"), std::string::npos);
  EXPECT_FALSE(
      parseContract(replace(kFixed, "acc=f32", "acc=f32 batch=2"), c, error));
}

TEST(Contract, GridRoundsUp) {
  GridExpr g{'M', 128};
  EXPECT_EQ(g.evaluate(129, 1, 1), 2);
  EXPECT_EQ(g.evaluate(128, 1, 1), 1);
  EXPECT_EQ(g.str(), "M/128");
}

TEST(Contract, AcceptsOnlyWhatTheKernelComputes) {
  Contract fixed, dynamic;
  std::string error, why;
  ASSERT_TRUE(parseContract(kFixed, fixed, error));
  ASSERT_TRUE(parseContract(kDynamic, dynamic, error));
  Problem p = fixed.problem;
  EXPECT_TRUE(accepts(fixed, p, why)) << why;
  p.m = 2048;
  EXPECT_FALSE(accepts(fixed, p, why));
  EXPECT_EQ(why, "the kernel was compiled for M = 1024, not 2048");

  Problem q;
  q.m = 96, q.n = 128, q.k = 16;
  EXPECT_TRUE(accepts(dynamic, q, why)) << why;
  q.n = 96;
  EXPECT_FALSE(accepts(dynamic, q, why));
  EXPECT_EQ(why, "N = 96 is not a multiple of 64");
  q.n = 128;
  q.a = q.b = DType::F16;
  EXPECT_FALSE(accepts(dynamic, q, why));
  EXPECT_NE(why.find("element types differ"), std::string::npos);
  q.a = q.b = DType::F32;
  q.bLayout = Layout::Col;
  EXPECT_FALSE(accepts(dynamic, q, why));
  EXPECT_NE(why.find("layouts differ"), std::string::npos);

  // alpha and beta: only a kernel that takes them computes other than 1, 0.
  p = fixed.problem;
  p.beta = 0.5f;
  EXPECT_FALSE(accepts(fixed, p, why));
  EXPECT_EQ(why, "the kernel computes C = A * B: it takes no alpha and beta");
  Contract scaled;
  ASSERT_TRUE(parseContract(
      replace(kFixed, "C:ptr", "C:ptr alpha:f32 beta:f32"), scaled, error))
      << error;
  EXPECT_TRUE(scaled.alphaBeta);
  EXPECT_TRUE(accepts(scaled, p, why)) << why;

  // A bias and ReLU: the problem must ask for exactly the kernel's.
  Contract biased;
  ASSERT_TRUE(parseContract(
      replace(replace(kFixed, "C:ptr", "C:ptr bias:ptr"),
              "// alignment:", "// epilogue: bias=col relu\n// alignment:"),
      biased, error))
      << error;
  EXPECT_EQ(biased.bias, "col");
  EXPECT_EQ(biased.activation, "relu");
  p = fixed.problem;
  EXPECT_FALSE(accepts(biased, p, why));
  p.bias = "col";
  p.activation = "relu";
  EXPECT_TRUE(accepts(biased, p, why)) << why;
  EXPECT_FALSE(accepts(fixed, p, why));
}

/// gemmc's contract for sizes given at launch: memref descriptors.
static const char *kDescriptors = R"(
// gemmc-contract-begin v1
// entry: sgemm_dynamic
// arch: sm_90
// block: 256 1 1
// grid: N/128 M/128 1
// dynamic-shared-bytes: 0
// params: A:memref2.i32 B:memref2.i32 C:memref2.i32
// alignment: 16
// leading-dim-multiple: a=4 b=4 c=2
// semantics: C = A * B
// problem: m=? n=? k=? a=f32:row b=f32:row c=f32:row acc=f32
// gemmc-contract-end
)";

TEST(Contract, ReadsMemrefDescriptors) {
  Contract c;
  std::string error, why;
  ASSERT_TRUE(parseContract(kDescriptors, c, error)) << error;
  EXPECT_TRUE(c.descriptors());
  EXPECT_EQ(c.indexBits(), 32);
  EXPECT_EQ(c.ldMultiple[0], 4);
  EXPECT_EQ(c.ldMultiple[2], 2);
  EXPECT_NE(formatContract(c).find("// leading-dim-multiple: a=4 b=4 c=2"),
            std::string::npos);

  // Any size; leading dimensions at least the dense ones and multiples of
  // the contract's.
  Problem p = c.problem;
  p.m = 1, p.n = 4097, p.k = 4093;
  p.lda = 4096, p.ldb = 4100, p.ldc = 4098;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  p.ldb = 4098;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the leading dimension of B (4098) must be at least 4097 "
                 "and a multiple of 4");
  p.k = 0;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "K = 0: sizes must be at least 1");
  p.k = 4093;
  p.ldb = 4100;
  p.lda = 4092;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the leading dimension of A (4092) must be at least 4093 "
                 "and a multiple of 4");
  // 32-bit index fields: no matrix of 2^31 elements or more.
  p.lda = 4096;
  p.m = 1 << 20;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the kernel indexes in 32 bits: A spans 2^31 elements or "
                 "more");

  // A kernel with pointers takes dense matrices only.
  Contract fixed;
  ASSERT_TRUE(parseContract(kFixed, fixed, error)) << error;
  Problem q = fixed.problem;
  q.lda = q.k + 4;
  EXPECT_FALSE(accepts(fixed, q, why));
  EXPECT_EQ(why, "the kernel takes dense matrices: the leading dimension of "
                 "A must be 256");

  // A batch whose count and strides are given at launch.
  Contract batched;
  ASSERT_TRUE(parseContract(
      replace(replace(kDescriptors, "memref2.i32 B:memref2.i32 C:memref2.i32",
                      "memref3.i64 B:memref3.i64 C:memref3.i64"),
              "acc=f32", "acc=f32 batch=? strides=?,?,?"),
      batched, error))
      << error;
  EXPECT_EQ(batched.problem.batch, 0);
  EXPECT_EQ(batched.indexBits(), 64);
  Problem b = batched.problem;
  b.m = 3, b.n = 5, b.k = 7, b.batch = 3;
  b.lda = 8, b.ldb = 8, b.ldc = 6;
  EXPECT_TRUE(accepts(batched, b, why)) << why;
  b.strideA = 23; // at least 3 x 8 elements
  EXPECT_FALSE(accepts(batched, b, why));
  EXPECT_EQ(why, "the batch stride of A (23) must be at least 24 and a "
                 "multiple of 4");

  // Matrices are all pointers or all descriptors.
  EXPECT_FALSE(
      parseContract(replace(kDescriptors, "B:memref2.i32", "B:ptr"), c, error));
  EXPECT_EQ(error, "line 8: A, B, C (and the offsets, the bias, R, the "
                   "scales, the amax, C's scale, the workspace and counters) "
                   "are all pointers or all memref descriptors");
  EXPECT_FALSE(parseContract(
      replace(kDescriptors, "a=4 b=4 c=2", "a=4 b=0 c=2"), c, error));
  EXPECT_NE(error.find("malformed 'leading-dim-multiple'"), std::string::npos);
}

TEST(Contract, RejectsMalformedContracts) {
  Contract c;
  std::string error;
  EXPECT_FALSE(parseContract("no contract", c, error));
  EXPECT_EQ(error, "no kernel contract ('// gemmc-contract-begin v1') in the "
                   "PTX");
  EXPECT_FALSE(parseContract(replace(kFixed, "N/32", "N/0"), c, error));
  EXPECT_EQ(error, "line 10: malformed 'grid' field: 'N/0 M/32 1'");
  EXPECT_FALSE(
      parseContract(replace(kFixed, "1024 1 1", "2048 1 1"), c, error));
  EXPECT_EQ(error, "line 9: malformed 'block' field: '2048 1 1'");
  EXPECT_FALSE(
      parseContract(replace(kFixed, "// gemmc-contract-end", ""), c, error));
  EXPECT_EQ(error, "line 18: the kernel contract has no "
                   "'// gemmc-contract-end' line");
  EXPECT_FALSE(
      parseContract(replace(kFixed, "C:ptr", "C:ptr gamma:f32"), c, error));
  EXPECT_EQ(error, "line 12: unsupported kernel parameter 'gamma:f32' (known: "
                   "A:ptr B:ptr C:ptr M:i32 N:i32 K:i32 alpha:f32 beta:f32 "
                   "bias:ptr R:ptr, memref2|3.i32|i64 for A, B, C, R, bias, "
                   "workspace:ptr counters:ptr scale-A:ptr scale-B:ptr "
                   "scale-C:ptr amax:ptr offsets:ptr or "
                   "memref1.i32|i64, and "
                   "tmap-A:tensormap tmap-B:tensormap tmap-C:tensormap)");
  // Tensor-map parameters come with the boxes of their maps.
  EXPECT_FALSE(parseContract(
      replace(kFixed, "C:ptr", "C:ptr tmap-A:tensormap tmap-B:tensormap"), c,
      error));
  EXPECT_EQ(error, "the tensor-map parameters and the 'tensor-maps' field "
                   "come together");
  EXPECT_FALSE(
      parseContract(replace(kFixed, "C:ptr", "C:ptr bias:ptr"), c, error));
  EXPECT_EQ(error, "line 12: a bias:ptr parameter needs 'epilogue: bias=row' "
                   "or 'bias=col', and the other way round");
  EXPECT_FALSE(
      parseContract(replace(kFixed, "C:ptr", "C:ptr alpha:f32"), c, error));
  EXPECT_EQ(error, "line 12: a kernel takes both alpha:f32 and beta:f32, or "
                   "neither");
  EXPECT_FALSE(parseContract(replace(kFixed, "m=1024", "m=?"), c, error));
  EXPECT_EQ(error, "the problem's size M is given at launch but is not a "
                   "kernel parameter");
  // Versions 2 to 17 (tensor maps, persistent grids, clusters, split-K,
  // families, splits at launch, stream-K, transposed kernels, batches
  // copied by TMA, batch-stride multiples, FP8, groups, R, the groups'
  // table, the rows a group in `when`, the amax, C's scale) are read; a
  // later one is
  // not.
  EXPECT_FALSE(parseContract(replace(kFixed, "v1", "v18"), c, error));
  EXPECT_EQ(error, "line 6: unsupported contract version: "
                   "// gemmc-contract-begin v18");
  EXPECT_FALSE(parseContract(replace(kFixed, "// entry: sgemm_coalesced\n", ""),
                             c, error));
  EXPECT_EQ(error, "the kernel contract has no 'entry' field");
  EXPECT_FALSE(parseContract(replace(kDynamic, "n=64", "n=0"), c, error));
  EXPECT_NE(error.find("malformed 'size-multiple'"), std::string::npos);
}

static const char *kSplitK = R"(
// gemmc-contract-begin v4
// entry: splitk_mma
// arch: sm_90
// block: 128 1 1
// grid: N/64 M/64 4
// dynamic-shared-bytes: 0
// split-k: splits=4 workspace=16384
// params: A:memref2.i64 B:memref2.i64 C:memref2.i64 alpha:f32 beta:f32 workspace:memref1.i64 counters:memref1.i64
// alignment: 16
// leading-dim-multiple: a=8 b=8 c=2
// semantics: C = alpha * A * B + beta * C
// problem: m=? n=? k=? a=f16:row b=f16:row c=f16:row acc=f32
// gemmc-contract-end
)";

/// One variant of a family's contract (version 5): `place` of 3, `when`,
/// the leading-dimension multiple of every matrix.
static std::string variantContract(int place, const std::string &when,
                                   int ldMultiple, int variants = 3) {
  std::string m = std::to_string(ldMultiple);
  return "// gemmc-contract-begin v5\n"
         "// entry: fam_" +
         std::to_string(place) +
         "\n"
         "// family: fam " +
         std::to_string(place) + "/" + std::to_string(variants) +
         "\n"
         "// when: " +
         when +
         "\n"
         "// block: 256 1 1\n"
         "// grid: N/64 M/64 1\n"
         "// dynamic-shared-bytes: 0\n"
         "// params: A:memref2.i64 B:memref2.i64 C:memref2.i64\n"
         "// leading-dim-multiple: a=" +
         m + " b=" + m + " c=" + m +
         "\n"
         "// problem: m=? n=? k=? a=f32:row b=f32:row c=f32:row acc=f32\n"
         "// gemmc-contract-end\n";
}

TEST(Contract, SelectsAFamilysVariant) {
  std::string ptx = variantContract(1, "m<=64 k>=4096", 4) +
                    variantContract(2, "any", 4) + variantContract(3, "any", 1);
  std::vector<Contract> family;
  std::string error;
  ASSERT_TRUE(parseContracts(ptx, family, error)) << error;
  ASSERT_EQ(family.size(), 3u);
  EXPECT_EQ(family[0].family, "fam");
  EXPECT_EQ(family[2].variant, 3);
  EXPECT_EQ(family[0].when.str(), "m<=64 k>=4096");
  // parseContract reads the first block only.
  Contract first;
  ASSERT_TRUE(parseContract(ptx, first, error)) << error;
  EXPECT_EQ(first.entry, "fam_1");

  Problem p = family[0].problem;
  p.m = 32, p.n = 100, p.k = 8192;
  std::string why;
  // Skinny with a long K: the first variant.
  EXPECT_EQ(selectVariant(family, p, DeviceModel(), why), 0) << why;
  // A short K: not the first's sizes, the second takes it.
  p.k = 1000;
  EXPECT_EQ(selectVariant(family, p, DeviceModel(), why), 1) << why;
  // A leading dimension no multiple of 4: only the fallback.
  p.k = 8192;
  p.lda = 8193;
  EXPECT_EQ(selectVariant(family, p, DeviceModel(), why), 2) << why;
  // Nothing takes a problem of other types: each variant's reason.
  p.a = DType::F16;
  EXPECT_EQ(selectVariant(family, p, DeviceModel(), why), -1);
  EXPECT_EQ(why.find("fam_1: "), 0u) << why;
  EXPECT_NE(why.find("; fam_2: "), std::string::npos) << why;
  EXPECT_NE(why.find("; fam_3: "), std::string::npos) << why;

  // Written back as read, version 5.
  Contract again;
  ASSERT_TRUE(parseContract(formatContract(family[0]), again, error)) << error;
  EXPECT_EQ(formatContract(again), formatContract(family[0]));

  // Not one family in turn: a kernel beside a family, places out of order,
  // two families.
  EXPECT_FALSE(
      parseContracts(ptx + replace(kSplitK, "\n", "\n"), family, error));
  EXPECT_FALSE(parseContracts(variantContract(2, "any", 1) +
                                  variantContract(1, "any", 1),
                              family, error));
  EXPECT_EQ(error, "contract 1 ('fam_2'): the contracts of a PTX module are "
                   "one kernel's, or the variants 1..2 of one family in turn");
  EXPECT_FALSE(parseContracts(
      variantContract(1, "any", 1) +
          replace(variantContract(2, "any", 1), "family: fam", "family: g"),
      family, error));
}

TEST(Contract, ReadsSizeRanges) {
  SizeRange range;
  for (const char *text :
       {"any", "m<=64", "k>=4096", "m<=64 k>=4096", "256<=m<=1024 n>=2"}) {
    ASSERT_TRUE(parseSizeRange(text, range)) << text;
    EXPECT_EQ(range.str(), text);
  }
  ASSERT_TRUE(parseSizeRange("256<=m<=1024 n>=2", range));
  EXPECT_TRUE(range.contains(256, 2, 1));
  EXPECT_TRUE(range.contains(1024, 1 << 30, 1 << 30));
  EXPECT_FALSE(range.contains(255, 2, 1));
  EXPECT_FALSE(range.contains(1025, 2, 1));
  EXPECT_FALSE(range.contains(300, 1, 1));
  for (const char *text :
       {"", "m", "m<=", "x<=5", "m>=5 m<=6", "0<=m", "m<=0", "7<=m<=6", "m<64",
        "m=<64", "any m<=4", "group<=4", "group-rows", "rows<=4",
        "group-rows<=0", "group-rows<=4 group-rows>=2"})
    EXPECT_FALSE(parseSizeRange(text, range)) << text;
}

TEST(Contract, ReadsGroupRowRanges) {
  SizeRange range;
  for (const char *text :
       {"group-rows<=128", "n>=1024 group-rows<=64", "32<=group-rows<=128"}) {
    ASSERT_TRUE(parseSizeRange(text, range)) << text;
    EXPECT_EQ(range.str(), text);
  }
  ASSERT_TRUE(parseSizeRange("group-rows<=128", range));
  EXPECT_TRUE(range.contains(1 << 20, 1, 1, 128));
  EXPECT_FALSE(range.contains(1, 1, 1, 129));
  // A single GEMM's rows a group are 1.
  EXPECT_TRUE(range.contains(1 << 20, 1, 1));
  // M over the groups, rounded up, at least 1.
  Problem p;
  p.m = 2048;
  EXPECT_EQ(SizeRange::groupRows(p), 1);
  p.grouped = true;
  p.groups = 64;
  EXPECT_EQ(SizeRange::groupRows(p), 32);
  p.m = 2049;
  EXPECT_EQ(SizeRange::groupRows(p), 33);
  p.m = 0;
  EXPECT_EQ(SizeRange::groupRows(p), 1);
}

TEST(Contract, ReadsSplitK) {
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(kSplitK, c, error)) << error;
  EXPECT_TRUE(c.splitsK());
  EXPECT_EQ(c.splits, 4);
  EXPECT_EQ(c.partialFloats, 4096);
  EXPECT_FALSE(c.splitsAtLaunch());
  // The splits are a fixed count of blocks along z.
  EXPECT_EQ(c.grid[2].evaluate(100, 100, 100), 4);
  EXPECT_EQ(c.grid[2].str(), "4");
  Problem p = c.problem;
  p.m = 130;
  p.n = 64;
  p.k = 1000;
  EXPECT_EQ(c.tiles(p), 3);
  std::string why;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  // The workspace is indexed in 32 bits.
  p.m = p.n = 1 << 15;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "split-k's workspace for 262144 tiles of C would exceed 2^31 "
                 "floats");
  // Written back as read, version 4.
  Contract again;
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(again), formatContract(c));
  EXPECT_NE(formatContract(c).find("// split-k: splits=4 workspace=16384"),
            std::string::npos);

  // Malformed: one split, the field without its parameters, and the other
  // way round.
  EXPECT_FALSE(
      parseContract(replace(kSplitK, "splits=4", "splits=1"), c, error));
  EXPECT_EQ(error, "line 8: malformed 'split-k' field: 'splits=1 "
                   "workspace=16384'");
  EXPECT_FALSE(parseContract(
      replace(kSplitK, " workspace:memref1.i64 counters:memref1.i64", ""), c,
      error));
  EXPECT_EQ(error, "the workspace:... and counters:... parameters and the "
                   "'split-k' field come together");
  EXPECT_FALSE(parseContract(
      replace(kSplitK, "// split-k: splits=4 workspace=16384\n", ""), c,
      error));
  EXPECT_EQ(error, "the workspace:... and counters:... parameters and the "
                   "'split-k' field come together");
  EXPECT_FALSE(parseContract(replace(kSplitK, "M/64 4", "M/64 0"), c, error));
  EXPECT_EQ(error, "line 6: malformed 'grid' field: 'N/64 M/64 0'");
  // A workspace that is not whole partial tiles.
  EXPECT_FALSE(parseContract(replace(kSplitK, "workspace=16384",
                                     "workspace=16385"),
                             c, error));
  EXPECT_EQ(error, "line 8: malformed 'split-k' field: 'splits=4 "
                   "workspace=16385'");
}

/// kSplitK with its splits chosen at launch (version 6).
static std::string splitsAtLaunch() {
  std::string text = replace(kSplitK, "v4", "v6");
  text = replace(text, "M/64 4", "M/64 splits");
  text = replace(text, "// split-k: splits=4 workspace=16384",
                 "// split-k: splits=? partial=4096");
  return replace(text, "acc=f32\n",
                 "acc=f32\n// schedule: tile=64x64x32 wgmma=m64n64k16\n");
}

/// One 64 x 64 tile of C and a K of 16384 (512 of `splitsAtLaunch`'s
/// steps), of `c`'s types.
static Problem oneTileLongK(const Contract &c) {
  Problem p = c.problem;
  p.m = p.n = 64;
  p.k = 16384;
  return p;
}

TEST(Contract, ReadsSplitsChosenAtLaunch) {
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(splitsAtLaunch(), c, error)) << error;
  EXPECT_TRUE(c.splitsK());
  EXPECT_TRUE(c.splitsAtLaunch());
  EXPECT_EQ(c.partialFloats, 4096);
  EXPECT_EQ(c.grid[2].str(), "splits");
  EXPECT_EQ(c.grid[2].evaluate(100, 100, 100, 1, 132, 7), 7);
  Problem p = c.problem;
  p.m = 130;
  p.n = 64;
  p.k = 1000;
  EXPECT_EQ(c.tiles(p), 3);
  // 1000 / 32: 32 steps of K, so at most 32 splits.
  EXPECT_EQ(c.kSteps(p), 32);
  EXPECT_EQ(c.maxSplits(p), 32);
  EXPECT_EQ(c.workspaceFloats(p, 5), 3 * 5 * 4096);
  std::string why;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  // The workspace under 2^31 floats bounds the splits; refused only where
  // not one split fits.
  p.m = p.n = 1 << 14;
  p.k = 1 << 20;
  EXPECT_EQ(c.maxSplits(p), ((int64_t(1) << 31) - 1) / (65536 * 4096));
  EXPECT_TRUE(accepts(c, p, why)) << why;
  p.m = p.n = 1 << 16;
  EXPECT_EQ(c.maxSplits(p), 0);
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "split-k's workspace for 1048576 tiles of C would exceed "
                 "2^31 floats");
  // Written back as read, version 6.
  Contract again;
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(again), formatContract(c));
  EXPECT_NE(formatContract(c).find("// gemmc-contract-begin v6\n"),
            std::string::npos);
  EXPECT_NE(formatContract(c).find("// split-k: splits=? partial=4096\n"),
            std::string::npos);

  // Malformed: before version 6, a grid whose z is not the splits, the
  // splits in the grid of a kernel without them, a workspace per tile.
  EXPECT_FALSE(parseContract(replace(splitsAtLaunch(), "v6", "v4"), c, error));
  EXPECT_NE(error.find("malformed 'split-k' field"), std::string::npos);
  EXPECT_FALSE(
      parseContract(replace(splitsAtLaunch(), "M/64 splits", "M/64 4"), c,
                    error));
  EXPECT_NE(error.find("malformed 'split-k' field"), std::string::npos);
  EXPECT_FALSE(
      parseContract(replace(kSplitK, "M/64 4", "M/64 splits"), c, error));
  EXPECT_EQ(error, "line 6: the grid's z is 'splits' where, and only where, "
                   "split-k's splits are chosen at launch ('splits=?')");
  EXPECT_FALSE(parseContract(
      replace(splitsAtLaunch(), "partial=4096", "workspace=4096"), c, error));
  EXPECT_NE(error.find("malformed 'split-k' field"), std::string::npos);
}

/// kSplitK as a stream-K kernel (version 7): a persistent grid whose
/// blocks share out the K steps.
static std::string streamK() {
  std::string text = replace(kSplitK, "v4", "v7");
  text = replace(text, "N/64 M/64 4", "SM 1 1");
  text = replace(text, "// split-k: splits=4 workspace=16384",
                 "// split-k: splits=stream partial=4096");
  return replace(text, "acc=f32\n",
                 "acc=f32\n// schedule: tile=64x64x32 wgmma=m64n64k16\n");
}

TEST(Contract, ReadsStreamK) {
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(streamK(), c, error)) << error;
  EXPECT_TRUE(c.streamK);
  EXPECT_FALSE(c.splitsK());
  EXPECT_TRUE(c.usesWorkspace());
  EXPECT_EQ(c.partialFloats, 4096);
  Problem p = c.problem;
  p.m = 130;
  p.n = 64;
  p.k = 1000;
  // Two partial tiles a block of the grid; a counter per tile of C
  // (3 x 1 tiles of 64 x 64), not per block.
  EXPECT_EQ(c.workspaceFloats(p, 1, 132), 2 * 132 * 4096);
  EXPECT_EQ(c.tilesOfC(p), 3);
  EXPECT_EQ(c.counters(p), 3);
  std::string why;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  // Written back as read, version 7.
  Contract again;
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(again), formatContract(c));
  EXPECT_NE(formatContract(c).find("// gemmc-contract-begin v7\n"),
            std::string::npos);
  EXPECT_NE(formatContract(c).find("// split-k: splits=stream partial=4096\n"),
            std::string::npos);
  // Malformed: before version 7, or without a persistent grid.
  EXPECT_FALSE(parseContract(replace(streamK(), "v7", "v6"), c, error));
  EXPECT_NE(error.find("malformed 'split-k' field"), std::string::npos);
  EXPECT_FALSE(parseContract(replace(streamK(), "SM 1 1", "N/64 M/64 1"), c,
                             error));
  EXPECT_NE(error.find("malformed 'split-k' field"), std::string::npos);
}

// A kernel compiled for C^T = B^T * A^T (`transpose`), as the compiler
// fills its contract before turning it back: 16 x 64 tiles of the
// transposed problem, TMA for both operands, a bias along its rows.
static const char *kTransposedKernel = R"(
// gemmc-contract-begin v6
// entry: decode
// arch: sm_90a
// block: 256 1 1
// grid: N/16 M/64 splits
// dynamic-shared-bytes: 82048
// split-k: splits=? partial=1024
// params: A:memref2.i64 B:memref2.i64 C:memref2.i64 bias:memref2.i64 workspace:memref1.i64 counters:memref1.i64 tmap-A:tensormap tmap-B:tensormap
// alignment: 16
// tensor-maps: A=64x64 B=64x16 swizzle=128
// size-multiple: m=1 n=8 k=1
// leading-dim-multiple: a=8 b=4 c=2
// semantics: C = A * B + bias[row]
// epilogue: bias=row
// problem: m=? n=? k=? a=f16:col b=bf16:col c=f32:col acc=f32
// schedule: tile=64x16x64
// gemmc-contract-end
)";

TEST(Contract, ReadsATransposedKernel) {
  Contract kernel;
  std::string error, why;
  ASSERT_TRUE(parseContract(kTransposedKernel, kernel, error)) << error;
  Contract c = untransposeContract(kernel);
  // The problem as written: A = (the kernel's B)^T, B = (its A)^T, C row.
  EXPECT_TRUE(c.transposed);
  EXPECT_EQ(c.problem.str(),
            "m=? n=? k=? a=bf16:row b=f16:row c=f32:row acc=f32");
  EXPECT_EQ(c.grid[0].str(), "M/16");
  EXPECT_EQ(c.grid[1].str(), "N/64");
  EXPECT_EQ(c.multipleM, 8);
  EXPECT_EQ(c.multipleN, 1);
  EXPECT_EQ(c.ldMultiple[0], 4);
  EXPECT_EQ(c.ldMultiple[1], 8);
  EXPECT_EQ(c.ldMultiple[2], 2);
  EXPECT_EQ(c.boxA.inner, 64);
  EXPECT_EQ(c.boxA.outer, 16);
  EXPECT_EQ(c.boxB.outer, 64);
  EXPECT_EQ(c.bias, "col");
  EXPECT_EQ(c.semantics, "C = A * B + bias[col]");
  int64_t bm, bn, bk;
  c.tile(bm, bn, bk);
  EXPECT_EQ(bm, 16);
  EXPECT_EQ(bn, 64);
  std::string params;
  for (const Param &p : c.params)
    params += p.name + " ";
  EXPECT_EQ(params, "B A C bias workspace counters tmap-B tmap-A ");

  // It takes the problem it serves, with the multiples turned back.
  Problem p = c.problem;
  p.m = 24, p.n = 1000, p.k = 64;
  p.bias = "col";
  p.lda = 68;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  p.m = 20;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "M = 20 is not a multiple of 8");
  p.m = 24;
  p.lda = 66;
  EXPECT_FALSE(accepts(c, p, why));
  p.lda = 68;
  // The kernel's own problem is another one.
  EXPECT_FALSE(accepts(kernel, p, why));
  // The same computation: transposing the problem twice gives it back.
  Problem twice = transposeProblem(transposeProblem(p));
  EXPECT_EQ(twice.str(), p.str());
  EXPECT_EQ(twice.lda, 68);
  EXPECT_EQ(transposeProblem(p).ldb, 68);
  EXPECT_EQ(transposeProblem(p).bias, "row");

  // Version 8, written back as read.
  std::string text = formatContract(c);
  EXPECT_NE(text.find("// gemmc-contract-begin v8\n"), std::string::npos);
  EXPECT_NE(text.find("// transposed: C^T = B^T * A^T\n"), std::string::npos);
  EXPECT_NE(text.find("// schedule: tile=16x64x64\n"), std::string::npos);
  Contract again;
  ASSERT_TRUE(parseContract(text, again, error)) << error;
  EXPECT_TRUE(again.transposed);
  EXPECT_EQ(formatContract(again), text);
  // Malformed: before version 8, or another value.
  EXPECT_FALSE(parseContract(replace(text, "v8", "v7"), again, error));
  EXPECT_NE(error.find("malformed 'transposed' field"), std::string::npos);
  EXPECT_FALSE(parseContract(replace(text, "C^T = B^T * A^T", "yes"), again,
                             error));
  EXPECT_NE(error.find("malformed 'transposed' field"), std::string::npos);
}

TEST(Cost, PredictsStreamKByItsShare) {
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(streamK(), c, error)) << error;
  DeviceModel h100;
  ASSERT_TRUE(DeviceModel::named("h100", h100));
  Problem p = c.problem;
  // 133 tiles of 64 x 64 x 32 on 132 multiprocessors, K of 32 steps: one
  // round of whole tiles, then the tile left cut into 4 pieces of 8 steps
  // (2 x 4^2 <= 32 < 2 x 5^2), a quarter of a tile's time, and their
  // partials summed.
  p.m = 64 * 133;
  p.n = 64;
  p.k = 32 * 32;
  CostFeatures f = costFeatures(c, p, h100);
  EXPECT_EQ(f.units, 133);
  EXPECT_EQ(f.rounds, 2);
  EXPECT_GT(f.reduce, 0);
  Problem oneRound = p;
  oneRound.m = 64 * 132;
  CostFeatures round = costFeatures(c, oneRound, h100);
  EXPECT_EQ(round.rounds, 1);
  EXPECT_EQ(round.reduce, 0);
  EXPECT_DOUBLE_EQ(f.compute, 1.25 * round.compute);
  // Whole rounds: every tile computed whole, nothing to reduce.
  p.m = 64 * 264;
  f = costFeatures(c, p, h100);
  EXPECT_EQ(f.rounds, 2);
  EXPECT_EQ(f.reduce, 0);
}

TEST(Cost, CutsStreamKTilesAsTheBlocksAndKAllow) {
  // As many pieces as the blocks allow ...
  EXPECT_EQ(streamKPieces(24, 64, 132), 5);
  EXPECT_EQ(streamKPieces(48, 71, 132), 2);
  // ... none where the tiles left are more than half the blocks ...
  EXPECT_EQ(streamKPieces(72, 64, 132), 1);
  // ... at most the largest s <= 8 with 2 s^2 <= the steps ...
  EXPECT_EQ(streamKPieces(1, 7, 132), 1);
  EXPECT_EQ(streamKPieces(1, 8, 132), 2);
  EXPECT_EQ(streamKPieces(1, 127, 132), 7);
  EXPECT_EQ(streamKPieces(1, 4096, 132), 8);
  // ... and as many pieces of ceil(steps / s) steps as that takes, none
  // empty: 18 steps cut 3 ways are 3 pieces of 6; 10 steps cut 2 ways, 2.
  EXPECT_EQ(streamKPieces(1, 18, 132), 3);
  EXPECT_EQ(streamKPieces(1, 10, 132), 2);
  // (A problem without tiles left, or without K: one.)
  EXPECT_EQ(streamKPieces(0, 64, 132), 1);
  EXPECT_EQ(streamKPieces(1, 0, 132), 1);
}

TEST(Cost, SimtMemoryTimeIsTheBusyMultiprocessorsShare) {
  // The same split-K contract as a SIMT kernel and as a wgmma one: one
  // tile of C, its K split S ways, S units.
  std::string simt = replace(
      splitsAtLaunch(), "wgmma=m64n64k16\n",
      "wgmma=m64n64k16\n// cost: unit=simt occupancy=1\n");
  std::string wgmma = replace(
      splitsAtLaunch(), "wgmma=m64n64k16\n",
      "wgmma=m64n64k16\n// cost: unit=wgmma occupancy=1\n");
  Contract s, w;
  std::string error;
  ASSERT_TRUE(parseContract(simt, s, error)) << error;
  ASSERT_TRUE(parseContract(wgmma, w, error)) << error;
  DeviceModel h100;
  ASSERT_TRUE(DeviceModel::named("h100", h100));
  Problem p = oneTileLongK(s);
  // A SIMT block draws three quarters of its multiprocessor's share of
  // the bandwidth (one block a multiprocessor, occupancy 1 here): 1 unit
  // of 132 takes 132 x 4/3 times the compulsory time, 66 units 2 x 4/3;
  // the tensor-core kernel takes the compulsory time at once.
  EXPECT_DOUBLE_EQ(costFeatures(s, p, h100, 1).memory,
                   132 / 0.75 * costFeatures(w, p, h100, 1).memory);
  EXPECT_DOUBLE_EQ(costFeatures(s, p, h100, 66).memory,
                   2 / 0.75 * costFeatures(w, p, h100, 66).memory);
  EXPECT_DOUBLE_EQ(costFeatures(s, p, h100, 132).memory,
                   costFeatures(w, p, h100, 132).memory / 0.75);
  EXPECT_DOUBLE_EQ(costFeatures(w, p, h100, 1).memory,
                   costFeatures(w, p, h100, 256).memory);
}

TEST(Cost, SimtMemoryFactorFollowsTheWavesDraw) {
  // Two blocks resident on a multiprocessor draw all of its share; a
  // wave's blocks spread evenly, a last partial wave draws what its
  // blocks can. The H200's f32 GEMV 1x152064x3584 (75 tiles of 1 x 2048,
  // occupancy 2) split 2, 4, 8 and 16 ways ran 625, 688, 567 and 515 us:
  // 1.21, 1.34, 1.10 and 1 times the fastest; the factors' ratios are
  // 1.23, 1.42, 1.13 and 1.
  EXPECT_DOUBLE_EQ(simtMemoryFactor(264, 132, 2), 1.0);
  EXPECT_DOUBLE_EQ(simtMemoryFactor(528, 132, 2), 1.0);
  EXPECT_DOUBLE_EQ(simtMemoryFactor(132, 132, 2), 1 / 0.75);
  EXPECT_DOUBLE_EQ(simtMemoryFactor(132, 132, 1), 1 / 0.75);
  EXPECT_DOUBLE_EQ(simtMemoryFactor(1, 132, 4), 132 / 0.75);
  // 150 in one wave: 18 multiprocessors of two blocks, 114 of one.
  EXPECT_DOUBLE_EQ(simtMemoryFactor(150, 132, 2),
                   132.0 / (18 + 114 * 0.75));
  // 300: a full wave of 264, then 36 blocks alone.
  EXPECT_DOUBLE_EQ(simtMemoryFactor(300, 132, 2),
                   (264 + 132 / 0.75) / 300);
  double f2 = simtMemoryFactor(150, 132, 2), f4 = simtMemoryFactor(300, 132, 2),
         f8 = simtMemoryFactor(600, 132, 2), f16 = simtMemoryFactor(1200, 132, 2);
  EXPECT_GT(f4, f2);
  EXPECT_GT(f2, f8);
  EXPECT_GT(f8, f16);
  EXPECT_NEAR(f2 / f16, 1.23, 0.01);
  EXPECT_NEAR(f4 / f16, 1.42, 0.01);
  EXPECT_NEAR(f8 / f16, 1.13, 0.01);
}

TEST(Cost, BoundsAShallowPipelineByTheMemorysLatency) {
  // The split-K contract staging its tiles in 2 stages, then in 8.
  std::string two = replace(
      splitsAtLaunch(), "wgmma=m64n64k16\n",
      "wgmma=m64n64k16 stages=2\n// cost: unit=wgmma occupancy=1\n");
  std::string eight = replace(two, "stages=2", "stages=8");
  std::string none = replace(two, " stages=2", "");
  Contract c2, c8, c0;
  std::string error;
  ASSERT_TRUE(parseContract(two, c2, error)) << error;
  ASSERT_TRUE(parseContract(eight, c8, error)) << error;
  ASSERT_TRUE(parseContract(none, c0, error)) << error;
  EXPECT_EQ(c2.stages(), 2);
  EXPECT_EQ(c8.stages(), 8);
  EXPECT_EQ(c0.stages(), 0);
  DeviceModel h200;
  ASSERT_TRUE(DeviceModel::named("h200", h200));
  // One tile of C, K of 16384 / 32 = 512 steps: each waits for its
  // stage's tiles from memory (no tile read twice), one in flight behind
  // it in 2 stages, 7 in 8.
  Problem p = oneTileLongK(c2);
  EXPECT_DOUBLE_EQ(costFeatures(c2, p, h200, 1).pipeline,
                   512 * h200.memoryLatency);
  EXPECT_DOUBLE_EQ(costFeatures(c8, p, h200, 1).pipeline,
                   512 * h200.memoryLatency / 7);
  // Split 4 ways, a block takes 128 of them.
  EXPECT_DOUBLE_EQ(costFeatures(c2, p, h200, 4).pipeline,
                   128 * h200.memoryLatency);
  // 64 tiles along N read A's 64 rows each: A's tiles come from L2 but
  // once, B's from memory; the step's latency lies between the two.
  Problem wide = p;
  wide.n = 64 * 64;
  double step = costFeatures(c2, wide, h200, 1).pipeline / 512;
  EXPECT_GT(step, h200.l2Latency);
  EXPECT_LT(step, h200.memoryLatency);
  // Without stages stated (operands not staged), no bound.
  EXPECT_EQ(costFeatures(c0, p, h200, 1).pipeline, 0);
  // The bound holds the prediction up where the bytes and the work would
  // not: 0.28 ms where a tile's feed and bytes take under 0.1.
  CostConstants k = CostConstants::defaults(Unit::Wgmma);
  CostFeatures f = costFeatures(c2, p, h200, 1);
  EXPECT_LT(std::max(k.compute * f.compute, k.memory * f.memory), 0.1e-3);
  EXPECT_GT(f.predict(k), 0.28e-3);
}

TEST(Cost, ChoosesTheSplitsOfTheLowestPredictedTime) {
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(splitsAtLaunch(), c, error)) << error;
  DeviceModel h100;
  ASSERT_TRUE(DeviceModel::named("h100", h100));
  CostConstants constants = CostConstants::defaults(Unit::Wgmma);
  // One tile of C and a long K: many splits, each a run of K's steps
  // (16384 / 32 = 512 of them: never a split without one).
  Problem p = oneTileLongK(c);
  int64_t many = chooseSplits(c, p, h100, constants);
  EXPECT_GT(many, 16);
  EXPECT_LE(many, 256);
  EXPECT_EQ(512 % (512 / many), 0) << many;
  // The choice is the lowest predicted time of the counts it may take.
  double chosen = costFeatures(c, p, h100, many).predict(constants);
  for (int64_t splits : {1, 2, 4, 8, 16, 32, 64, 128, 256})
    EXPECT_LE(chosen, costFeatures(c, p, h100, splits).predict(constants))
        << splits;
  // More tiles than the multiprocessors and a short K: none.
  p.m = p.n = 4096;
  p.k = 256;
  EXPECT_EQ(chooseSplits(c, p, h100, constants), 1);
  // Never more splits than K has steps (3 here).
  p.m = p.n = 64;
  p.k = 96;
  EXPECT_LE(chooseSplits(c, p, h100, constants), 3);
  // A static count is the contract's own.
  Contract fixed;
  ASSERT_TRUE(parseContract(kSplitK, fixed, error)) << error;
  EXPECT_EQ(chooseSplits(fixed, p, h100, constants), 4);
  EXPECT_EQ(splitCounts(fixed, p), std::vector<int64_t>({4}));
  // The counts weighed at launch: K's 3 steps allow 1, 2 and 3, each
  // once (4 splits of 3 steps would leave one empty).
  EXPECT_EQ(splitCounts(c, p), std::vector<int64_t>({1, 2, 3}));
  // The ranking states the splits each variant runs with.
  p.k = 16384;
  std::vector<RankedVariant> ranked = rankVariants({c, fixed}, p, h100);
  ASSERT_EQ(ranked.size(), 2u);
  for (const RankedVariant &r : ranked)
    EXPECT_EQ(r.splits, r.index == 0 ? many : 4);
}

static const char *kCluster = R"(
// gemmc-contract-begin v3
// entry: hopper_f16
// arch: sm_90a
// block: 384 1 1
// grid: SM 1 1
// cluster: 2 1 1
// dynamic-shared-bytes: 229440
// params: A:memref2.i64 B:memref2.i64 C:memref2.i64 tmap-A:tensormap tmap-B:tensormap tmap-C:tensormap
// alignment: 16
// tensor-maps: A=64x128 B=64x32 C=64x64 swizzle=128
// semantics: C = A * B
// problem: m=? n=? k=? a=f16:row b=f16:row c=f16:row acc=f32
// leading-dim-multiple: a=8 b=8 c=8
// size-multiple: m=1 n=8 k=1
// gemmc-contract-end
)";

TEST(Contract, ReadsClustersAndCsTensorMap) {
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(kCluster, c, error)) << error;
  EXPECT_EQ(c.clusterSize(), 2u);
  EXPECT_EQ(c.cluster[0], 2u);
  EXPECT_EQ(c.cluster[1], 1u);
  EXPECT_TRUE(c.tensorMaps);
  EXPECT_TRUE(c.storesWithTma());
  EXPECT_EQ(c.boxB.inner, 64);
  EXPECT_EQ(c.boxB.outer, 32);
  EXPECT_EQ(c.boxC.inner, 64);
  EXPECT_EQ(c.boxC.outer, 64);
  EXPECT_EQ(c.multipleN, 8);
  // Written back as read, version 3.
  Contract again;
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(again), formatContract(c));
  EXPECT_NE(formatContract(c).find("// gemmc-contract-begin v3"),
            std::string::npos);
  EXPECT_NE(formatContract(c).find("// cluster: 2 1 1"), std::string::npos);

  // TMA stores C in 16-byte units: N must be a multiple of 8 (f16).
  Problem p = c.problem;
  p.m = 100;
  p.n = 100;
  p.k = 64;
  std::string why;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "N = 100 is not a multiple of 8 (the kernel stores C with "
                 "TMA, in 16-byte units)");
  p.n = 104;
  p.ldc = 108;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the leading dimension of C (108) must be at least 104 and "
                 "a multiple of 8 (the kernel copies it with TMA, whose rows "
                 "start at multiples of 16 bytes)");
  p.ldc = 112;
  EXPECT_TRUE(accepts(c, p, why)) << why;

  // Malformed: a cluster of 9 blocks, a C box without its parameter.
  EXPECT_FALSE(parseContract(
      replace(kCluster, "cluster: 2 1 1", "cluster: 3 3 1"), c, error));
  EXPECT_EQ(error, "line 7: malformed 'cluster' field: '3 3 1'");
  EXPECT_FALSE(
      parseContract(replace(kCluster, " tmap-C:tensormap", ""), c, error));
  EXPECT_EQ(error, "line 11: the tensor-map parameters and the boxes of "
                   "'tensor-maps' differ");
}

// A wgmma kernel whose producer's threads copy A (pieces of 4 f16) while
// TMA copies B: only B's box and map.
TEST(Contract, ReadsTensorMapsOfSomeMatrices) {
  std::string text =
      replace(replace(replace(kCluster, " tmap-A:tensormap", ""),
                      "A=64x128 B=64x32 C=64x64", "B=64x32"),
              " tmap-C:tensormap", "");
  text = replace(replace(text, "a=8 b=8 c=8", "a=4 b=8 c=1"),
                 "// size-multiple: m=1 n=8 k=1\n", "");
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(text, c, error)) << error;
  EXPECT_TRUE(c.tensorMaps);
  EXPECT_EQ(c.boxA.inner, 0);
  EXPECT_EQ(c.boxB.inner, 64);
  EXPECT_FALSE(c.storesWithTma());
  Contract again;
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(again), formatContract(c));
  EXPECT_NE(formatContract(c).find("// tensor-maps: B=64x32 swizzle=128"),
            std::string::npos);
  // The reason names TMA only for a matrix that TMA copies.
  Problem p = c.problem;
  p.m = p.n = p.k = 700;
  p.lda = 702;
  std::string why;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the leading dimension of A (702) must be at least 700 and "
                 "a multiple of 4");
  p.lda = 704;
  p.ldb = 700;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the leading dimension of B (700) must be at least 700 and "
                 "a multiple of 8 (the kernel copies it with TMA, whose rows "
                 "start at multiples of 16 bytes)");
  p.ldb = 704;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  // A box with no map, and no box at all, are malformed.
  EXPECT_FALSE(parseContract(replace(text, "B=64x32", "A=64x64 B=64x32"), c,
                             error));
  EXPECT_FALSE(parseContract(replace(text, "B=64x32 ", ""), c, error));
}

TEST(Contract, ReadsABatchCopiedByTma) {
  // A batch's tensor maps are 3-D (the launcher's, runtime/lib/Launch.cpp):
  // version 9, which an older reader refuses.
  std::string text = replace(
      replace(replace(kCluster, "v3", "v9"),
              "A:memref2.i64 B:memref2.i64 C:memref2.i64",
              "A:memref3.i64 B:memref3.i64 C:memref3.i64"),
      "acc=f32\n", "acc=f32 batch=? strides=?,?,?\n");
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(text, c, error)) << error;
  EXPECT_TRUE(c.problem.batched);
  EXPECT_TRUE(c.tensorMaps);
  std::string written = formatContract(c);
  EXPECT_NE(written.find("// gemmc-contract-begin v9\n"), std::string::npos);
  Contract again;
  ASSERT_TRUE(parseContract(written, again, error)) << error;
  EXPECT_EQ(formatContract(again), written);
  EXPECT_FALSE(parseContract(replace(text, "v9", "v8"), c, error));
  EXPECT_NE(error.find("malformed 'problem' field"), std::string::npos);
  // A batch's strides step by the leading dimensions' multiples.
  ASSERT_TRUE(parseContract(text, c, error)) << error;
  Problem p = c.problem;
  p.m = p.n = p.k = 64;
  p.batch = 3;
  p.strideB = 64 * 64 + 4;
  std::string why;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the batch stride of B (4100) must be at least 4096 and a "
                 "multiple of 8");
  p.strideB = 64 * 64 + 8;
  EXPECT_TRUE(accepts(c, p, why)) << why;

  // Version 10: multiples of the batch strides beyond the leading
  // dimensions' (a realigned A: any leading dimension, strides at 16
  // bytes).
  c.ldMultiple[0] = 1;
  c.strideMultiple[0] = 8;
  written = formatContract(c);
  EXPECT_NE(written.find("// gemmc-contract-begin v10\n"), std::string::npos);
  EXPECT_NE(written.find("// batch-stride-multiple: a=8 b=1 c=1\n"),
            std::string::npos);
  ASSERT_TRUE(parseContract(written, again, error)) << error;
  EXPECT_EQ(again.strideMultiple[0], 8);
  EXPECT_EQ(formatContract(again), written);
  EXPECT_FALSE(parseContract(replace(written, "v10", "v9"), again, error));
  EXPECT_NE(error.find("malformed 'batch-stride-multiple' field"),
            std::string::npos);
  p.lda = 65;
  p.strideA = 65 * 64 + 3;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the batch stride of A (4163) must be at least 4160 and a "
                 "multiple of 8");
  p.strideA = 65 * 64 + 8;
  EXPECT_TRUE(accepts(c, p, why)) << why;
}

TEST(Shapes, ReadsAShapesFile) {
  std::vector<Shape> shapes;
  std::string error;
  ASSERT_TRUE(parseShapes("# skinny\n1x4096x4096\n\n777x333x2048 lda=2056 "
                          "ldc=340  # odd\n512\n",
                          shapes, error))
      << error;
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[0].label(), "1x4096x4096");
  EXPECT_EQ(shapes[1].lda, 2056);
  EXPECT_EQ(shapes[1].ldb, 0);
  EXPECT_EQ(shapes[1].ldc, 340);
  EXPECT_EQ(shapes[1].label(), "777x333x2048 lda=2056 ldc=340");
  EXPECT_EQ(shapes[2].size.k, 512);
  EXPECT_EQ(shapes[2].batch, 0);
  // A dense batch.
  ASSERT_TRUE(parseShapes("2048x2048x128 batch=32\n", shapes, error)) << error;
  EXPECT_EQ(shapes[0].batch, 32);
  EXPECT_EQ(shapes[0].label(), "2048x2048x128 batch=32");
  EXPECT_FALSE(parseShapes("64x64x64 batch=0\n", shapes, error));
  EXPECT_FALSE(parseShapes("64x64x64\n64x64 ld=3\n", shapes, error));
  EXPECT_EQ(error, "line 2: expected MxNxK, got '64x64'");
  EXPECT_FALSE(parseShapes("64x64x64 ldd=3\n", shapes, error));
  EXPECT_EQ(error,
            "line 1: expected lda=L, ldb=L, ldc=L or batch=B, got 'ldd=3'");
  EXPECT_FALSE(parseShapes("# nothing\n", shapes, error));
  EXPECT_EQ(error, "no problem in the shapes file");
}

TEST(Results, RoundTripAndSkipOtherLines) {
  ResultRow row{
      "777x333x2048 lda=2056", "dir/f16_c3.ptx", "f16_c3", "PASS", 0.125, 0.25};
  std::string line = formatResult(row);
  EXPECT_EQ(line, "777x333x2048 lda=2056\tdir/f16_c3.ptx\tf16_c3\tPASS\t0.125"
                  "\t0.25\n");
  ResultRow again;
  ASSERT_TRUE(parseResult(line.substr(0, line.size() - 1), again));
  EXPECT_EQ(again.problem, row.problem);
  EXPECT_EQ(again.fileName(), "f16_c3.ptx");
  EXPECT_DOUBLE_EQ(again.ms, 0.125);
  EXPECT_TRUE(again.passed());
  ResultRow skipped{"64x64x64", "k.ptx", "k", "SKIP", NAN, 0.01};
  std::vector<ResultRow> rows =
      parseResults(line + "not a row\n" + formatResult(skipped));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[1].passed());
  EXPECT_TRUE(std::isnan(rows[1].ms));
  EXPECT_FALSE(parseResult("a\tb\tc\tPASS\tfast\t1", again));
  EXPECT_EQ(again.splits, 0);
  // The splits a kernel chose at launch: a seventh field.
  row.splits = 24;
  line = formatResult(row);
  EXPECT_EQ(line, "777x333x2048 lda=2056\tdir/f16_c3.ptx\tf16_c3\tPASS\t0.125"
                  "\t0.25\t24\n");
  ASSERT_TRUE(parseResult(line.substr(0, line.size() - 1), again));
  EXPECT_EQ(again.splits, 24);
  EXPECT_FALSE(parseResult("a\tb\tc\tPASS\t1\t1\t0", again));
  EXPECT_FALSE(parseResult("a\tb\tc\tPASS\t1\t1\tmany", again));
}

TEST(Contract, SelectsAGroupedFamilysVariantByTheRowsAGroup) {
  // The rows a group from version 15: a reader of 14 refuses the bound.
  std::string few = variantContract(1, "group-rows<=128", 4, 2);
  std::string ptx = few + variantContract(2, "any", 4, 2);
  std::vector<Contract> family;
  std::string error;
  EXPECT_FALSE(parseContracts(ptx, family, error));
  EXPECT_NE(error.find("'when'"), std::string::npos) << error;
  few.replace(few.find(" v5\n"), 4, " v15\n");
  ptx = few + variantContract(2, "any", 4, 2);
  ASSERT_TRUE(parseContracts(ptx, family, error)) << error;
  EXPECT_EQ(formatContract(family[0]).find("// gemmc-contract-begin v15\n"),
            0u);
  ASSERT_EQ(family.size(), 2u);
  EXPECT_EQ(family[0].when.str(), "group-rows<=128");
  // The variants' problem grouped (groups at launch), as a grouped
  // kernel's contract states it.
  for (Contract &c : family)
    c.problem.grouped = true;
  Problem p = family[0].problem;
  p.m = 2048, p.n = 1024, p.k = 1024;
  // 64 groups of 2,048 rows: 32 a group.
  p.groups = 64;
  std::string why;
  EXPECT_EQ(selectVariant(family, p, DeviceModel(), why), 0) << why;
  // 8 groups: 256 a group.
  p.groups = 8;
  EXPECT_EQ(selectVariant(family, p, DeviceModel(), why), 1) << why;
  p.groups = 16;
  EXPECT_EQ(selectVariant(family, p, DeviceModel(), why), 0) << why;
}

TEST(Contract, SelectsAGeneralFormsVariantByItsRowsInAll) {
  std::string few = variantContract(1, "group-rows<=64", 4, 2);
  few.replace(few.find(" v5\n"), 4, " v15\n");
  std::string ptx = few + variantContract(2, "any", 4, 2);
  std::vector<Contract> family;
  std::string error;
  ASSERT_TRUE(parseContracts(ptx, family, error)) << error;
  for (Contract &c : family)
    c.problem.grouped = c.problem.groupTable = true;
  // The table's rows on the host: 4 groups of 10, 0, 100 and 90 rows,
  // 200 in all, 50 a group.
  std::vector<int64_t> rows(4 * kGroupTableColumns, 7);
  const int64_t m[] = {10, 0, 100, 90};
  for (int64_t g = 0; g < 4; ++g)
    rows[g * kGroupTableColumns + int64_t(GroupColumn::M)] = m[g];
  Problem p = family[0].problem;
  p.groups = 4;
  p.m = tableRows(rows.data(), p.groups);
  p.n = p.k = 1;
  EXPECT_EQ(p.m, 200);
  EXPECT_EQ(SizeRange::groupRows(p), 50);
  std::string why;
  EXPECT_EQ(selectVariant(family, p, DeviceModel(), why), 0) << why;
  p.m = 257;
  EXPECT_EQ(SizeRange::groupRows(p), 65);
  EXPECT_EQ(selectVariant(family, p, DeviceModel(), why), 1) << why;
  // The table on the device alone: the rows are unknown, and only the
  // variant with no condition runs it.
  p.m = 0;
  EXPECT_EQ(SizeRange::groupRows(p), 0);
  EXPECT_EQ(selectVariant(family, p, DeviceModel(), why), 1) << why;
  std::vector<RankedVariant> ranked =
      rankVariants(family, p, DeviceModel(), nullptr);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[1].index, 0u);
  EXPECT_NE(ranked[1].whyNot.find("on the device alone"), std::string::npos)
      << ranked[1].whyNot;
}

TEST(Contract, SizeRangesNarrowAndEmpty) {
  SizeRange r;
  EXPECT_TRUE(r.isAll());
  r.constrain(SizeRange::dimension("m"), /*atMost=*/true, 64);
  r.constrain(SizeRange::dimension("k"), /*atMost=*/false, 4096);
  EXPECT_EQ(r.str(), "m<=64 k>=4096");
  EXPECT_TRUE(r.contains(64, 1, 4096));
  EXPECT_FALSE(r.contains(65, 1, 4096));
  EXPECT_FALSE(r.isEmpty());
  r.constrain(SizeRange::dimension("m"), /*atMost=*/false, 65);
  EXPECT_TRUE(r.isEmpty());
  EXPECT_EQ(SizeRange::dimension("x"), -1);
}

TEST(Contract, ReadsAndWritesTheCostLine) {
  std::string text = kFixed;
  std::string cost = "// schedule: tile=32x32x1 coalesce\n// cost: unit=simt "
                     "occupancy=2 fixed=4.500 latency=1.250 compute=1.300 "
                     "memory=1.100 reduce=2.000\n";
  text = replace(text, "// schedule: tile=32x32x1 coalesce\n", cost);
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(text, c, error)) << error;
  ASSERT_TRUE(c.hasCost);
  EXPECT_EQ(c.cost.unit, Unit::Simt);
  EXPECT_EQ(c.cost.occupancy, 2);
  EXPECT_TRUE(c.cost.fitted);
  EXPECT_DOUBLE_EQ(c.cost.latency, 1.25);
  EXPECT_NE(formatContract(c).find(cost), std::string::npos);
  int64_t bm, bn, bk;
  c.tile(bm, bn, bk);
  EXPECT_EQ(bm, 32);
  EXPECT_EQ(bk, 1);
  // Without constants: the unit's defaults apply.
  Contract plain;
  ASSERT_TRUE(parseContract(replace(kFixed, "// source:",
                                    "// cost: unit=wgmma occupancy=1\n"
                                    "// source:"),
                            plain, error))
      << error;
  EXPECT_FALSE(plain.cost.fitted);
  EXPECT_DOUBLE_EQ(CostConstants::of(plain).compute,
                   CostConstants::defaults(Unit::Wgmma).compute);
  // Malformed: an unknown unit, some constants but not all, a negative one.
  for (const char *bad : {"unit=tpu occupancy=1", "unit=mma occupancy=0",
                          "unit=mma occupancy=1 fixed=2",
                          "unit=mma occupancy=1 fixed=-1 latency=1 "
                          "compute=1 memory=1 reduce=1"}) {
    EXPECT_FALSE(parseContract(
        replace(kFixed,
                "// source:", std::string("// cost: ") + bad + "\n// source:"),
        c, error))
        << bad;
    EXPECT_NE(error.find("malformed 'cost' field"), std::string::npos);
  }
}

TEST(Contract, TakesEveryProblemOnlyWithoutMultiplesOrConditions) {
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(kDynamic, c, error)) << error;
  // The hand-written kernel asks sizes in multiples of its tile.
  EXPECT_FALSE(takesEveryProblem(c));
  c.multipleM = c.multipleN = c.multipleK = 1;
  EXPECT_TRUE(takesEveryProblem(c));
  c.ldMultiple[1] = 8;
  EXPECT_FALSE(takesEveryProblem(c));
  c.ldMultiple[1] = 1;
  c.when.constrain(SizeRange::dimension("m"), /*atMost=*/true, 64);
  EXPECT_FALSE(takesEveryProblem(c));
  c.when = SizeRange();
  c.boxC = {64, 64};
  EXPECT_FALSE(takesEveryProblem(c));
}

static const char *kFloat8 = R"(
// gemmc-contract-begin v11
// entry: hopper_fp8
// arch: sm_90a
// block: 384 1 1
// grid: SM 1 1
// dynamic-shared-bytes: 196672
// params: A:memref2.i64 B:memref2.i64 C:memref2.i64 scale-A:memref1.i64 scale-B:memref1.i64 tmap-A:tensormap tmap-B:tensormap
// alignment: 16
// tensor-maps: A=128x128 B=128x256 swizzle=128
// leading-dim-multiple: a=16 b=16 c=1
// semantics: C = scale_a[row] * scale_b[col] * A * B
// epilogue: scales=rowwise
// problem: m=? n=? k=? a=e4m3:row b=e5m2:col c=f16:row acc=f32
// schedule: tile=128x256x128
// gemmc-contract-end
)";

TEST(Contract, ReadsFloat8AndItsScales) {
  Contract c;
  std::string error, why;
  ASSERT_TRUE(parseContract(kFloat8, c, error)) << error;
  EXPECT_EQ(c.problem.a, DType::E4M3);
  EXPECT_EQ(c.problem.b, DType::E5M2);
  EXPECT_EQ(sizeOf(c.problem.a), 1u);
  EXPECT_EQ(c.scales, "rowwise");
  // A problem asks for the kernel's scales, or it is another computation.
  Problem p = c.problem;
  p.m = 300, p.n = 512, p.k = 1024;
  p.scales = "rowwise";
  EXPECT_TRUE(accepts(c, p, why)) << why;
  EXPECT_EQ(p.str(), "m=300 n=512 k=1024 a=e4m3:row b=e5m2:col c=f16:row "
                     "acc=f32 scales=rowwise");
  p.scales = "tensor";
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the kernel's epilogue is C = scale_a[row] * scale_b[col] * "
                 "A * B");
  p.scales.clear();
  EXPECT_FALSE(accepts(c, p, why));
  // Written back as read, at version 11.
  std::string text = formatContract(c);
  EXPECT_NE(text.find("// gemmc-contract-begin v11\n"), std::string::npos);
  EXPECT_NE(text.find("// epilogue: scales=rowwise\n"), std::string::npos);
  Contract again;
  ASSERT_TRUE(parseContract(text, again, error)) << error;
  EXPECT_EQ(formatContract(again), text);
  // A reader of version 10 knows neither FP8 nor the scales.
  EXPECT_FALSE(parseContract(replace(kFloat8, "v11", "v10"), again, error));
  EXPECT_NE(error.find("malformed 'epilogue' field"), std::string::npos);
  EXPECT_FALSE(parseContract(
      replace(replace(kFloat8, "v11", "v10"), "// epilogue: scales=rowwise\n",
              ""),
      again, error));
  EXPECT_NE(error.find("scale-A and scale-B parameters need"),
            std::string::npos);
  // The scales come with their parameters.
  EXPECT_FALSE(parseContract(
      replace(kFloat8, " scale-B:memref1.i64", ""), again, error));
  EXPECT_NE(error.find("scale-A and scale-B parameters need"),
            std::string::npos);
  // A kernel that adds each k tile's sum in f32 serves a problem that
  // allows fast accumulation; one that accumulates fast only such.
  p.scales = "rowwise";
  p.fastAccumulate = true;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  Contract fast;
  ASSERT_TRUE(parseContract(
      replace(kFloat8, "acc=f32", "acc=f32 math=fast-accumulate"), fast,
      error))
      << error;
  EXPECT_TRUE(fast.problem.fastAccumulate);
  EXPECT_TRUE(accepts(fast, p, why)) << why;
  p.fastAccumulate = false;
  EXPECT_FALSE(accepts(fast, p, why));
  EXPECT_NE(why.find("math=fast-accumulate"), std::string::npos);
  EXPECT_NE(formatContract(fast).find(" math=fast-accumulate\n"),
            std::string::npos);
  // GELU and SiLU come with version 11 (ReLU is older).
  Contract gelu;
  ASSERT_TRUE(parseContract(
      replace(kFloat8, "scales=rowwise", "scales=rowwise gelu-tanh"), gelu,
      error))
      << error;
  EXPECT_EQ(gelu.activation, "gelu-tanh");
  EXPECT_EQ(describeSemantics(false, "", "silu"), "C = silu(A * B)");
  EXPECT_FALSE(parseContract(replace(replace(kFloat8, "scales=rowwise", "silu"),
                                     "v11", "v10"),
                             gelu, error));
  EXPECT_NE(error.find("malformed 'epilogue'"), std::string::npos);
  // Transposed, A's scales are the kernel's B's.
  Contract t = untransposeContract(c);
  std::string params;
  for (const Param &param : t.params)
    params += param.name + " ";
  EXPECT_EQ(params, "B A C scale-B scale-A tmap-B tmap-A ");
  EXPECT_EQ(t.scales, "rowwise");
}

TEST(Contract, ReadsBlockScales) {
  Contract c;
  std::string error, why;
  std::string text = replace(
      replace(kFloat8, "scales=rowwise", "scales=block"),
      "C = scale_a[row] * scale_b[col] * A * B",
      "C = (scale_a[row,k/128] * A) * (scale_b[col/128,k/128] * B)");
  ASSERT_TRUE(parseContract(text, c, error)) << error;
  EXPECT_EQ(c.scales, "block");
  EXPECT_EQ(c.semantics, describeSemantics(false, "", "", "block"));
  Problem p = c.problem;
  p.m = 300, p.n = 520, p.k = 1008;
  p.scales = "block";
  EXPECT_TRUE(accepts(c, p, why)) << why;
  p.scales = "rowwise";
  EXPECT_FALSE(accepts(c, p, why));
  Contract again;
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(again), formatContract(c));
  EXPECT_NE(formatContract(c).find("// epilogue: scales=block\n"),
            std::string::npos);
  // A's 1 x 128 blocks, M-major: M x ceil(K/128); B's 128 x 128, K's
  // blocks contiguous: ceil(N/128) x ceil(K/128).
  EXPECT_EQ(scaleCount("block", true, 300, 520, 1000), 300 * 8);
  EXPECT_EQ(scaleCount("block", false, 300, 520, 1000), 5 * 8);
  EXPECT_EQ(scaleCount("rowwise", false, 300, 520, 1000), 520);
  EXPECT_EQ(scaleCount("tensor", true, 300, 520, 1000), 1);
  EXPECT_EQ(scaleCount("", true, 300, 520, 1000), 0);
  // A grouped problem's B has its scales a group; A's are its rows'.
  EXPECT_EQ(scaleCount("tensor", false, 300, 520, 1000, 6), 6);
  EXPECT_EQ(scaleCount("tensor", true, 300, 520, 1000, 6), 1);
  EXPECT_EQ(scaleCount("rowwise", false, 300, 520, 1000, 6), 6 * 520);
  EXPECT_EQ(scaleCount("rowwise", true, 300, 520, 1000, 6), 300);
  EXPECT_EQ(scaleCount("block", false, 300, 520, 1000, 6), 6 * 5 * 8);
  EXPECT_EQ(scaleCount("block", true, 300, 520, 1000, 6), 300 * 8);
  // A(299, 999) lies in block (299, 7); B(999, 519) in block (4, 7).
  EXPECT_EQ(blockScaleIndex(true, 299, 999, 300, 520, 1000), 7 * 300 + 299);
  EXPECT_EQ(blockScaleIndex(false, 999, 519, 300, 520, 1000), 4 * 8 + 7);
  EXPECT_EQ(blockScaleIndex(false, 127, 128, 300, 520, 1000), 1 * 8 + 0);
  // Transposed, each operand's scales would be read as the other's.
  Contract transposed;
  EXPECT_FALSE(parseContract(
      replace(text, "// schedule:",
              std::string("// transposed: ") + kTransposedLine +
                  "\n// schedule:"),
      transposed, error));
  EXPECT_NE(error.find("block scales cannot be transposed"),
            std::string::npos)
      << error;
}

/// A grouped GEMM's contract (examples/hopper-moe-grouped.gemm).
static const char *kGrouped = R"(// gemmc-contract-begin v12
// entry: hopper_moe_grouped
// arch: sm_90a
// block: 384 1 1
// grid: SM 1 1
// dynamic-shared-bytes: 196672
// params: A:memref2.i64 B:memref3.i64 C:memref2.i64 offsets:memref1.i64 tmap-A:tensormap tmap-B:tensormap
// alignment: 16
// tensor-maps: A=64x128 B=64x256 swizzle=128
// leading-dim-multiple: a=8 b=8 c=1
// semantics: C = A * B
// problem: m=? n=? k=? a=bf16:row b=bf16:col c=bf16:row acc=f32 groups=?
// schedule: tile=128x256x64
// gemmc-contract-end
)";

TEST(Contract, ReadsGroups) {
  Contract c;
  std::string error, why;
  ASSERT_TRUE(parseContract(kGrouped, c, error)) << error;
  EXPECT_TRUE(c.problem.grouped);
  EXPECT_EQ(c.problem.groups, 0);
  Problem p = c.problem;
  p.m = 1000, p.n = 1408, p.k = 2048, p.groups = 64;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  EXPECT_EQ(p.countOfB(), 64);
  // The launcher passes one group or more.
  p.groups = 0;
  EXPECT_FALSE(accepts(c, p, why));
  p.groups = 64;
  // B's matrices, one a group, index in the kernel's 64-bit descriptors;
  // its strides step at the leading dimension's multiple.
  p.strideB = 1408 * 2048 + 8;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  p.strideB = 1408 * 2048 + 4;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_NE(why.find("the batch stride of B"), std::string::npos) << why;
  p.strideB = 0;
  // A problem of one GEMM is not a grouped kernel's, nor the other way.
  Problem single = p;
  single.grouped = false;
  EXPECT_FALSE(accepts(c, single, why));
  EXPECT_NE(why.find("grouped GEMM"), std::string::npos) << why;
  Contract again;
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(again), formatContract(c));
  EXPECT_NE(formatContract(c).find("groups=?"), std::string::npos);
  // Groups from version 12, with their offsets parameter.
  EXPECT_FALSE(parseContract(replace(kGrouped, "begin v12", "begin v11"),
                             again, error));
  EXPECT_FALSE(parseContract(
      replace(kGrouped, " offsets:memref1.i64", ""), again, error));
  EXPECT_NE(error.find("offsets parameter"), std::string::npos) << error;
  EXPECT_FALSE(
      parseContract(replace(kGrouped, " groups=?", " groups=0"), again, error));
}

TEST(Contract, ReadsAGroupTable) {
  // Version 14: the general form, `group-form=ptr-array`, with a table
  // parameter in place of the offsets; the sizes and leading dimensions
  // are the table's (not checked on the host).
  std::string text = replace(
      replace(replace(replace(kGrouped, "begin v12", "begin v14"),
                      " offsets:memref1.i64", " table:memref1.i64"),
              " B:memref3.i64", " B:memref2.i64"),
      " groups=?", " groups=? group-form=ptr-array");
  text = replace(replace(text, " tmap-A:tensormap tmap-B:tensormap", ""),
                 "// tensor-maps: A=64x128 B=64x256 swizzle=128\n", "");
  Contract c, again;
  std::string error, why;
  ASSERT_TRUE(parseContract(text, c, error)) << error;
  EXPECT_TRUE(c.problem.grouped);
  EXPECT_TRUE(c.problem.groupTable);
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(again), formatContract(c));
  EXPECT_NE(formatContract(c).find("v14\n"), std::string::npos);
  Problem p = c.problem;
  p.m = p.n = p.k = 1, p.groups = 5;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  // The offsets' form is not the table's, nor the other way.
  Problem moe = p;
  moe.groupTable = false;
  EXPECT_FALSE(accepts(c, moe, why));
  EXPECT_NE(why.find("group table"), std::string::npos) << why;
  // From version 14, with its table parameter.
  EXPECT_FALSE(
      parseContract(replace(text, "begin v14", "begin v13"), again, error));
  EXPECT_FALSE(parseContract(
      replace(text, " table:memref1.i64", " offsets:memref1.i64"), again,
      error));
  EXPECT_NE(error.find("table parameter"), std::string::npos) << error;
}

TEST(Contract, ReadsAResidual) {
  // Version 13: `residual=add` with an R parameter, shaped as C.
  std::string text =
      replace(replace(replace(kFixed, "v1", "v13"), "C:ptr", "C:ptr R:ptr"),
              "// semantics: C = A * B",
              "// semantics: C = A * B + R\n// epilogue: residual=add");
  Contract c, again;
  std::string error, why;
  ASSERT_TRUE(parseContract(text, c, error)) << error;
  EXPECT_TRUE(c.residual);
  EXPECT_EQ(c.semantics, describeSemantics(false, "", "", "", true));
  EXPECT_EQ(describeSemantics(true, "col", "gelu", "", true),
            "C = gelu(alpha * A * B + beta * C + bias[col]) + R");
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(c), formatContract(again));
  EXPECT_NE(formatContract(c).find("v13\n"), std::string::npos);
  EXPECT_NE(formatContract(c).find("// epilogue: residual=add\n"),
            std::string::npos);
  // A problem takes the kernel only with R, and the other way round.
  Problem p = c.problem;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_NE(why.find("+ R"), std::string::npos) << why;
  p.residual = true;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  // An older reader's version does not know the word; R needs it.
  EXPECT_FALSE(parseContract(replace(text, "v13", "v12"), again, error));
  EXPECT_NE(error.find("malformed 'epilogue'"), std::string::npos) << error;
  EXPECT_FALSE(parseContract(replace(text, " R:ptr", ""), again, error));
  EXPECT_NE(error.find("an R parameter needs 'epilogue: residual=add'"),
            std::string::npos)
      << error;
}

TEST(Contract, ReadsAnAmax) {
  // Version 16: `amax` with an amax parameter (one f32 on the device).
  std::string text = replace(
      replace(replace(kFixed, "v1", "v16"), "C:ptr", "C:ptr amax:ptr"),
      "// semantics: C = A * B", "// semantics: C = A * B\n// epilogue: amax");
  Contract c, again;
  std::string error, why;
  ASSERT_TRUE(parseContract(text, c, error)) << error;
  EXPECT_TRUE(c.amax);
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(c), formatContract(again));
  EXPECT_NE(formatContract(c).find("v16\n"), std::string::npos);
  EXPECT_NE(formatContract(c).find("// epilogue: amax\n"), std::string::npos);
  // A problem takes the kernel only with an amax, and the other way round.
  Problem p = c.problem;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the kernel writes the amax of C: give it one");
  p.amax = true;
  EXPECT_TRUE(accepts(c, p, why)) << why;
  EXPECT_TRUE(accepts(c, c.problemWithEpilogue(), why)) << why;
  Contract without;
  ASSERT_TRUE(parseContract(kFixed, without, error)) << error;
  EXPECT_FALSE(accepts(without, p, why));
  EXPECT_EQ(why, "the kernel writes no amax of C");
  // An older reader's version does not know the word; the parameter needs
  // it, and the other way round.
  EXPECT_FALSE(parseContract(replace(text, "v16", "v15"), again, error));
  EXPECT_NE(error.find("malformed 'epilogue'"), std::string::npos) << error;
  EXPECT_FALSE(parseContract(replace(text, " amax:ptr", ""), again, error));
  EXPECT_NE(error.find("an amax parameter needs 'epilogue: amax'"),
            std::string::npos)
      << error;
  EXPECT_FALSE(
      parseContract(replace(text, "amax:ptr", "amax:f32"), again, error));
  EXPECT_NE(error.find("unsupported kernel parameter 'amax:f32'"),
            std::string::npos)
      << error;
}

TEST(Contract, ReadsAnOutputScale) {
  // Version 17: `output-scale` with a scale-C parameter (one f32 on the
  // device), after the scales and before the amax.
  std::string text =
      replace(replace(replace(kFixed, "v1", "v17"), "C:ptr",
                      "C:ptr scale-A:ptr scale-B:ptr scale-C:ptr amax:ptr"),
              "// semantics: C = A * B",
              "// semantics: C = scale_c * (scale_a * scale_b * A * B)\n// "
              "epilogue: scales=tensor amax output-scale");
  Contract c, again;
  std::string error, why;
  ASSERT_TRUE(parseContract(text, c, error)) << error;
  EXPECT_TRUE(c.outputScale);
  EXPECT_TRUE(c.amax);
  ASSERT_TRUE(parseContract(formatContract(c), again, error)) << error;
  EXPECT_EQ(formatContract(c), formatContract(again));
  EXPECT_NE(formatContract(c).find("v17\n"), std::string::npos);
  EXPECT_NE(
      formatContract(c).find("// epilogue: scales=tensor amax output-scale\n"),
      std::string::npos);
  // A problem takes the kernel only with C's scale, and the other way
  // round.
  Problem p = c.problemWithEpilogue();
  EXPECT_TRUE(accepts(c, p, why)) << why;
  p.outputScale = false;
  EXPECT_FALSE(accepts(c, p, why));
  EXPECT_EQ(why, "the kernel multiplies C by its scale: give it one");
  Contract without;
  ASSERT_TRUE(parseContract(
      replace(replace(replace(text, " scale-C:ptr", ""), " output-scale", ""),
              "scale_c * (scale_a * scale_b * A * B)",
              "scale_a * scale_b * A * B"),
      without, error))
      << error;
  EXPECT_EQ(c.semantics,
            describeSemantics(false, "", "", "tensor", false, true));
  p.outputScale = true;
  EXPECT_FALSE(accepts(without, p, why));
  EXPECT_EQ(why, "the kernel takes no scale of C");
  // Version 16 does not know it; the parameter and the word come together.
  EXPECT_FALSE(parseContract(replace(text, "v17", "v16"), again, error));
  EXPECT_NE(error.find("malformed 'epilogue'"), std::string::npos) << error;
  EXPECT_FALSE(parseContract(replace(text, " scale-C:ptr", ""), again, error));
  EXPECT_NE(error.find("a scale-C parameter needs 'epilogue: output-scale'"),
            std::string::npos)
      << error;
  EXPECT_FALSE(
      parseContract(replace(text, "scale-C:ptr", "scale-C:f32"), again, error));
  EXPECT_NE(error.find("unsupported kernel parameter 'scale-C:f32'"),
            std::string::npos)
      << error;
}
