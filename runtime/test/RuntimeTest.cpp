//===- RuntimeTest.cpp - CPU-only unit tests of the runtime -------------===//
//
// Contract parsing, the fp64 reference and the comparisons, the f16/bf16
// conversions, the mapping of problems onto column-major cuBLAS, and
// gemm-bench's option handling. No GPU needed.
//
//===----------------------------------------------------------------------===//

#include "gemmc-rt/BenchOptions.h"
#include "gemmc-rt/Contract.h"
#include "gemmc-rt/Cublas.h"
#include "gemmc-rt/Host.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gemmc::rt;

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
  ASSERT_TRUE(parseContract(replace(kFixed, "acc=f32", "acc=f32 math=tf32"),
                            c, error))
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
  EXPECT_FALSE(parseContract(replace(kFixed, "acc=f32", "acc=f32 math=fp8"),
                             c, error));
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
  EXPECT_TRUE(biased.relu);
  p = fixed.problem;
  EXPECT_FALSE(accepts(biased, p, why));
  p.bias = "col";
  p.relu = true;
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
  EXPECT_EQ(error, "line 8: A, B, C (and the bias, the workspace and counters) "
                   "are all pointers or all memref descriptors");
  EXPECT_FALSE(parseContract(
      replace(kDescriptors, "a=4 b=4 c=2", "a=4 b=0 c=2"), c, error));
  EXPECT_NE(error.find("malformed 'leading-dim-multiple'"), std::string::npos);
}

TEST(Host, LeadingDimensionsPadRowsAndColumns) {
  HostMatrix row(3, 5, Layout::Row, DType::F32, 8);
  EXPECT_EQ(row.data.size(), 24u);
  EXPECT_EQ(row.index(2, 4), 20u);
  HostMatrix col(3, 5, Layout::Col, DType::F16, 4);
  EXPECT_EQ(col.data.size(), 20u);
  EXPECT_EQ(col.index(2, 4), 18u);
  EXPECT_EQ(col.bytes(), 40u);
}

TEST(Contract, RejectsMalformedContracts) {
  Contract c;
  std::string error;
  EXPECT_FALSE(parseContract("no contract", c, error));
  EXPECT_EQ(error, "no kernel contract ('// gemmc-contract-begin v1') in the "
                   "PTX");
  EXPECT_FALSE(parseContract(replace(kFixed, "N/32", "N/0"), c, error));
  EXPECT_EQ(error, "line 10: malformed 'grid' field: 'N/0 M/32 1'");
  EXPECT_FALSE(parseContract(replace(kFixed, "1024 1 1", "2048 1 1"), c,
                             error));
  EXPECT_EQ(error, "line 9: malformed 'block' field: '2048 1 1'");
  EXPECT_FALSE(parseContract(replace(kFixed, "// gemmc-contract-end", ""), c,
                             error));
  EXPECT_EQ(error, "line 18: the kernel contract has no "
                   "'// gemmc-contract-end' line");
  EXPECT_FALSE(
      parseContract(replace(kFixed, "C:ptr", "C:ptr gamma:f32"), c, error));
  EXPECT_EQ(error, "line 12: unsupported kernel parameter 'gamma:f32' (known: "
                   "A:ptr B:ptr C:ptr M:i32 N:i32 K:i32 alpha:f32 beta:f32 "
                   "bias:ptr, memref2|3.i32|i64 for A, B, C, bias, "
                   "workspace:ptr counters:ptr or memref1.i32|i64, and "
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
  EXPECT_FALSE(parseContract(replace(kFixed, "C:ptr", "C:ptr alpha:f32"), c,
                             error));
  EXPECT_EQ(error, "line 12: a kernel takes both alpha:f32 and beta:f32, or "
                   "neither");
  EXPECT_FALSE(parseContract(replace(kFixed, "m=1024", "m=?"), c, error));
  EXPECT_EQ(error, "the problem's size M is given at launch but is not a "
                   "kernel parameter");
  // Versions 2 to 5 (tensor maps, persistent grids, clusters, split-K,
  // families) are read; a later one is not.
  EXPECT_FALSE(parseContract(replace(kFixed, "v1", "v6"), c, error));
  EXPECT_EQ(error, "line 6: unsupported contract version: "
                   "// gemmc-contract-begin v6");
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
                                   int ldMultiple) {
  std::string m = std::to_string(ldMultiple);
  return "// gemmc-contract-begin v5\n"
         "// entry: fam_" + std::to_string(place) + "\n"
         "// family: fam " + std::to_string(place) + "/3\n"
         "// when: " + when + "\n"
         "// block: 256 1 1\n"
         "// grid: N/64 M/64 1\n"
         "// dynamic-shared-bytes: 0\n"
         "// params: A:memref2.i64 B:memref2.i64 C:memref2.i64\n"
         "// leading-dim-multiple: a=" + m + " b=" + m + " c=" + m + "\n"
         "// problem: m=? n=? k=? a=f32:row b=f32:row c=f32:row acc=f32\n"
         "// gemmc-contract-end\n";
}

TEST(Contract, SelectsAFamilysVariant) {
  std::string ptx = variantContract(1, "m<=64 k>=4096", 4) +
                    variantContract(2, "any", 4) +
                    variantContract(3, "any", 1);
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
  EXPECT_EQ(selectVariant(family, p, why), 0) << why;
  // A short K: not the first's sizes, the second takes it.
  p.k = 1000;
  EXPECT_EQ(selectVariant(family, p, why), 1) << why;
  // A leading dimension no multiple of 4: only the fallback.
  p.k = 8192;
  p.lda = 8193;
  EXPECT_EQ(selectVariant(family, p, why), 2) << why;
  // Nothing takes a problem of other types: each variant's reason.
  p.a = DType::F16;
  EXPECT_EQ(selectVariant(family, p, why), -1);
  EXPECT_EQ(why.find("fam_1: "), 0u) << why;
  EXPECT_NE(why.find("; fam_2: "), std::string::npos) << why;
  EXPECT_NE(why.find("; fam_3: "), std::string::npos) << why;

  // Written back as read, version 5.
  Contract again;
  ASSERT_TRUE(parseContract(formatContract(family[0]), again, error)) << error;
  EXPECT_EQ(formatContract(again), formatContract(family[0]));

  // Not one family in turn: a kernel beside a family, places out of order,
  // two families.
  EXPECT_FALSE(parseContracts(ptx + replace(kSplitK, "\n", "\n"), family,
                              error));
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
  for (const char *text : {"", "m", "m<=", "x<=5", "m>=5 m<=6", "0<=m",
                           "m<=0", "7<=m<=6", "m<64", "m=<64", "any m<=4"})
    EXPECT_FALSE(parseSizeRange(text, range)) << text;
}

TEST(Contract, ReadsSplitK) {
  Contract c;
  std::string error;
  ASSERT_TRUE(parseContract(kSplitK, c, error)) << error;
  EXPECT_TRUE(c.splitsK());
  EXPECT_EQ(c.splits, 4);
  EXPECT_EQ(c.workspacePerTile, 16384);
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
  EXPECT_FALSE(parseContract(replace(kSplitK, "splits=4", "splits=1"), c,
                             error));
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
  EXPECT_FALSE(
      parseContract(replace(kCluster, "cluster: 2 1 1", "cluster: 3 3 1"), c,
                    error));
  EXPECT_EQ(error, "line 7: malformed 'cluster' field: '3 3 1'");
  EXPECT_FALSE(parseContract(
      replace(kCluster, " tmap-C:tensormap", ""), c, error));
  EXPECT_EQ(error, "line 11: the tensor-map parameters and the boxes of "
                   "'tensor-maps' differ");
}

TEST(Host, HalfConversionsRoundToNearestEven) {
  EXPECT_EQ(toHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(toHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(toHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(toHalfBits(65520.0f), 0x7c00); // rounds to infinity
  EXPECT_EQ(toHalfBits(0.0f), 0x0000);
  EXPECT_EQ(toHalfBits(5.9604645e-8f), 0x0001); // smallest subnormal
  EXPECT_EQ(toHalfBits(2.9802322e-8f), 0x0000); // half of it: ties to even
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(toHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(toHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_TRUE(std::isnan(fromHalfBits(toHalfBits(NAN))));
  EXPECT_EQ(fromHalfBits(0x3555), 0.333251953125f);
  for (uint32_t bits = 0; bits < 0x7c00; ++bits)
    ASSERT_EQ(toHalfBits(fromHalfBits(uint16_t(bits))), bits);
}

TEST(Host, BFloat16ConversionsRoundToNearestEven) {
  EXPECT_EQ(toBF16Bits(1.0f), 0x3f80);
  EXPECT_EQ(toBF16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80); // tie: even
  EXPECT_EQ(toBF16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(fromBF16Bits(0x4049), 3.140625f);
  EXPECT_TRUE(std::isnan(fromBF16Bits(toBF16Bits(NAN))));
}

TEST(Host, MatricesPackInTheirType) {
  HostMatrix m(2, 3, Layout::Col, DType::F16);
  fillRandom(m, 7);
  for (float v : m.data) {
    EXPECT_EQ(v, roundTo(DType::F16, v));
    EXPECT_GE(v, -1.0f);
    EXPECT_LE(v, 1.0f);
  }
  EXPECT_EQ(m.bytes(), 12u);
  HostMatrix copy(2, 3, Layout::Col, DType::F16);
  copy.unpack(m.pack());
  EXPECT_EQ(copy.data, m.data);
  EXPECT_EQ(m.index(1, 2), 5u); // column-major: j * rows + i
}

/// A small GEMM with an exact answer: entries are small integers.
TEST(Host, ReferenceMatchesExactProduct) {
  HostMatrix a(2, 3, Layout::Row), b(3, 2, Layout::Col), c(2, 2, Layout::Row);
  a.data = {1, 2, 3, 4, 5, 6};
  b.data = {7, 9, 11, 8, 10, 12}; // column-major [[7, 8], [9, 10], [11, 12]]
  c.data = {58, 64, 139, 154};
  Sample all = chooseSample(2, 2, 3, /*fullLimit=*/1 << 20, 0, 1);
  EXPECT_EQ(all.rows.size(), 4u);
  Comparison exact = compareWithReference(a, b, c, all);
  EXPECT_EQ(exact.relFrobenius, 0.0);
  EXPECT_EQ(exact.nonFinite, 0);

  c.data[3] = 155; // one entry off by one
  Comparison off = compareWithReference(a, b, c, all);
  EXPECT_NEAR(off.relFrobenius, 1.0 / std::sqrt(58. * 58 + 64 * 64 +
                                                139 * 139 + 154 * 154),
              1e-12);
  EXPECT_EQ(off.maxAbs, 1.0);

  // alpha * A * B + beta * C0.
  HostMatrix c0(2, 2, Layout::Row);
  c0.data = {1, 2, 3, 4};
  c.data = {2 * 58 - 1, 2 * 64 - 2, 2 * 139 - 3, 2 * 154 - 4};
  Comparison scaled = compareWithReference(a, b, c, all, {2, -1, &c0});
  EXPECT_EQ(scaled.relFrobenius, 0.0);

  // Then + bias[col] and ReLU: [[58 - 100, 64 + 1], [139 - 100, 154 + 1]].
  HostMatrix bias(1, 2, Layout::Row);
  bias.data = {-100, 1};
  Epilogue biased;
  biased.bias = &bias;
  biased.relu = true;
  c.data = {0, 65, 39, 155};
  EXPECT_EQ(compareWithReference(a, b, c, all, biased).relFrobenius, 0.0);
  HostMatrix product(2, 2, Layout::Row);
  product.data = {58, 64, 139, 154};
  finishOnHost(product, biased);
  EXPECT_EQ(product.data, c.data);

  c.data[0] = NAN;
  Comparison nan = compareWithReference(a, b, c, all);
  EXPECT_EQ(nan.nonFinite, 1);
  EXPECT_TRUE(std::isnan(nan.relFrobenius));
}

TEST(Host, SamplesIncludeTheCorners) {
  Sample s = chooseSample(1000, 3000, 4000, /*fullLimit=*/0, 16, 3);
  ASSERT_EQ(s.rows.size(), 20u);
  EXPECT_EQ(s.rows[3], 999);
  EXPECT_EQ(s.cols[3], 2999);
  for (size_t i = 0; i < s.rows.size(); ++i) {
    EXPECT_LT(s.rows[i], 1000);
    EXPECT_LT(s.cols[i], 3000);
  }
}

TEST(Host, CompareMatricesCountsNonFinite) {
  HostMatrix x(1, 3, Layout::Row), y(1, 3, Layout::Row);
  x.data = {1, 2, 2};
  y.data = {1, 2, 3};
  EXPECT_NEAR(compareMatrices(x, y).relFrobenius, 1 / std::sqrt(14.0), 1e-12);
  x.data[0] = INFINITY;
  EXPECT_EQ(compareMatrices(x, y).nonFinite, 1);
}

/// Column-major sgemm on the host, as cuBLAS defines it.
static void hostColumnMajorGemm(const ColumnMajorCall &c, const float *x,
                                const float *y, float *out) {
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      double sum = 0;
      for (int l = 0; l < c.k; ++l) {
        float xv = c.transX ? x[l + i * c.ldx] : x[i + l * c.ldx];
        float yv = c.transY ? y[j + l * c.ldy] : y[l + j * c.ldy];
        sum += double(xv) * yv;
      }
      out[i + j * c.ldc] = float(sum);
    }
}

TEST(Cublas, EveryLayoutMapsOntoColumnMajor) {
  // Every layout, with dense and with padded leading dimensions.
  for (int layouts = 0; layouts < 16; ++layouts) {
    Problem p;
    p.m = 5, p.n = 7, p.k = 3;
    p.aLayout = layouts & 1 ? Layout::Col : Layout::Row;
    p.bLayout = layouts & 2 ? Layout::Col : Layout::Row;
    p.cLayout = layouts & 4 ? Layout::Col : Layout::Row;
    if (layouts & 8) {
      p.lda = p.ldOfA() + 3;
      p.ldb = p.ldOfB() + 1;
      p.ldc = p.ldOfC() + 2;
    }
    HostMatrix a(p.m, p.k, p.aLayout, DType::F32, p.ldOfA()),
        b(p.k, p.n, p.bLayout, DType::F32, p.ldOfB()),
        c(p.m, p.n, p.cLayout, DType::F32, p.ldOfC());
    fillRandom(a, 11);
    fillRandom(b, 12);
    ColumnMajorCall call = mapToColumnMajor(p);
    hostColumnMajorGemm(call, call.swap ? b.data.data() : a.data.data(),
                        call.swap ? a.data.data() : b.data.data(),
                        c.data.data());
    Sample all = chooseSample(p.m, p.n, p.k, 1 << 20, 0, 1);
    EXPECT_LT(compareWithReference(a, b, c, all).relFrobenius, 1e-7)
        << "layouts " << toString(p.aLayout) << toString(p.bLayout)
        << toString(p.cLayout) << (layouts & 8 ? " padded" : "");
  }
}

static bool parse(std::vector<std::string> args, BenchOptions &o,
                  std::string &error) {
  o = BenchOptions();
  return parseBenchOptions(args, o, error);
}

TEST(BenchOptions, ParsesEveryOption) {
  BenchOptions o;
  std::string error;
  ASSERT_TRUE(parse({"a.ptx",       "--size",      "4096,128x256x64",
                     "--dtype",     "f16",         "--layout",
                     "rcr",         "--runs",      "50",
                     "--warmup",    "2",           "--flush-l2",
                     "--seed",      "9",           "--samples",
                     "64",          "--tolerance", "1e-3",
                     "--opt-level", "3",           "--alpha",
                     "2",           "--beta",      "-0.5",
                     "--bias",      "row",         "--relu",
                     "--csv",       "out.csv",     "--json",
                     "out.json",    "b.ptx"},
                    o, error))
      << error;
  ASSERT_EQ(o.kernels.size(), 2u);
  ASSERT_EQ(o.sizes.size(), 2u);
  EXPECT_EQ(o.sizes[0].k, 4096);
  EXPECT_EQ(o.sizes[1].n, 256);
  EXPECT_EQ(o.type, DType::F16);
  EXPECT_EQ(o.cType, DType::F16); // C follows A and B unless --ctype
  EXPECT_EQ(o.bLayout, Layout::Col);
  EXPECT_EQ(o.runs, 50);
  EXPECT_TRUE(o.flushL2);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.tolerance, 1e-3);
  EXPECT_EQ(o.alpha, 2.0f);
  EXPECT_EQ(o.beta, -0.5f);
  EXPECT_EQ(o.bias, "row");
  EXPECT_TRUE(o.relu);
  EXPECT_EQ(o.json, "out.json");

  ASSERT_TRUE(parse({"a.ptx", "--sweep", "random", "--count", "300",
                     "--max-size", "2000", "--lda", "4096", "--ldc", "8"},
                    o, error))
      << error;
  EXPECT_TRUE(o.sweep);
  EXPECT_EQ(o.count, 300);
  EXPECT_EQ(o.maxSize, 2000);
  EXPECT_EQ(o.lda, 4096);
  EXPECT_EQ(o.ldb, 0);
  EXPECT_EQ(o.ldc, 8);

  ASSERT_TRUE(parse({"--size", "64", "--dtype", "bf16", "--ctype", "f32"}, o,
                    error));
  EXPECT_EQ(o.cType, DType::F32);
  ASSERT_TRUE(parse({"--size", "64", "--math", "tf32"}, o, error));
  EXPECT_EQ(o.math, MathMode::TF32);
}

TEST(BenchOptions, RejectsBadUsage) {
  BenchOptions o;
  std::string error;
  EXPECT_FALSE(parse({"--size", "0"}, o, error));
  EXPECT_EQ(error, "bad size '0' (expected N, MxNxK or a list)");
  EXPECT_FALSE(parse({"--size", "1x2"}, o, error));
  EXPECT_FALSE(parse({"--runs", "0", "a.ptx"}, o, error));
  EXPECT_EQ(error, "bad value '0' for --runs");
  EXPECT_FALSE(parse({"--layout", "rrx", "a.ptx"}, o, error));
  EXPECT_FALSE(parse({"--dtype", "f64", "a.ptx"}, o, error));
  EXPECT_FALSE(parse({"--bogus"}, o, error));
  EXPECT_EQ(error, "unknown option '--bogus'");
  EXPECT_FALSE(parse({"--no-cublas"}, o, error));
  EXPECT_EQ(error, "nothing to run: no kernel given and --no-cublas");
  EXPECT_FALSE(parse({}, o, error));
  EXPECT_EQ(error, "cuBLAS alone needs --size");
  EXPECT_FALSE(parse({"--size", "64", "--dtype", "f16", "--math", "tf32"}, o,
                     error));
  EXPECT_FALSE(parse({"a.ptx", "--runs"}, o, error));
  EXPECT_EQ(error, "--runs needs a value");
  EXPECT_FALSE(parse({"a.ptx", "--sweep", "grid"}, o, error));
  EXPECT_EQ(error, "bad sweep 'grid' (random)");
  EXPECT_FALSE(parse({"--sweep", "random", "--size", "64"}, o, error));
  EXPECT_EQ(error, "--sweep runs kernels: give at least one");
  EXPECT_FALSE(parse({"a.ptx", "--size", "64", "--results", "r.tsv"}, o,
                     error));
  EXPECT_EQ(error, "--results needs --shapes");
  EXPECT_FALSE(parse({"a.ptx", "--size", "64", "--budget", "0"}, o, error));
  EXPECT_EQ(error, "--budget needs a positive number of seconds, got '0'");
  EXPECT_FALSE(parse({"a.ptx", "--size", "64", "--budget", "1x"}, o, error));
  ASSERT_TRUE(parse({"a.ptx", "--shapes", "s.txt", "--results", "r.tsv",
                     "--budget", "120.5"},
                    o, error))
      << error;
  EXPECT_EQ(o.resultsFile, "r.tsv");
  EXPECT_EQ(o.budget, 120.5);
}

TEST(BenchOptions, ReadsAShapesFile) {
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
  EXPECT_FALSE(parseShapes("64x64x64\n64x64 ld=3\n", shapes, error));
  EXPECT_EQ(error, "line 2: expected MxNxK, got '64x64'");
  EXPECT_FALSE(parseShapes("64x64x64 ldd=3\n", shapes, error));
  EXPECT_EQ(error, "line 1: expected lda=L, ldb=L or ldc=L, got 'ldd=3'");
  EXPECT_FALSE(parseShapes("# nothing\n", shapes, error));
  EXPECT_EQ(error, "no problem in the shapes file");

  BenchOptions o;
  EXPECT_TRUE(parseBenchOptions({"--shapes", "s.txt", "--shape-summary",
                                 "s.csv", "k.ptx"},
                                o, error))
      << error;
  EXPECT_EQ(o.shapesFile, "s.txt");
  EXPECT_EQ(o.shapeSummary, "s.csv");
  BenchOptions bad;
  EXPECT_FALSE(parseBenchOptions({"--shapes", "s.txt", "--size", "64",
                                  "k.ptx"},
                                 bad, error));
  EXPECT_EQ(error, "--shapes gives the problems: not with --size, --sweep "
                   "or --lda/--ldb/--ldc");
  BenchOptions lone;
  EXPECT_FALSE(
      parseBenchOptions({"--shape-summary", "s.csv", "k.ptx"}, lone, error));
  EXPECT_EQ(error, "--shape-summary needs --shapes");
}

TEST(BenchOptions, TolerancesFollowPrecision) {
  // At K = 1 the f32 sum adds 2 u = 2^-23 to the rounding of the output.
  double u2 = std::ldexp(1.0, -23);
  EXPECT_DOUBLE_EQ(toleranceFor(DType::F32, DType::F32, MathMode::Exact, 1),
                   1e-5 + u2);
  EXPECT_DOUBLE_EQ(toleranceFor(DType::F32, DType::F32, MathMode::TF32, 1),
                   5e-3 + u2);
  EXPECT_DOUBLE_EQ(toleranceFor(DType::F16, DType::F16, MathMode::Exact, 1),
                   2e-3 + u2);
  EXPECT_DOUBLE_EQ(toleranceFor(DType::BF16, DType::BF16, MathMode::Exact, 1),
                   1e-2 + u2);
  EXPECT_DOUBLE_EQ(toleranceFor(DType::BF16, DType::F32, MathMode::Exact, 1),
                   1e-5 + u2);
}

TEST(BenchOptions, TolerancesGrowWithK) {
  // 2 u sqrt(K): 7.6e-6 more at K = 4096. At K = 500,000 an f32 kernel
  // summing K products in sequence was measured at 1.2e-5 against fp64
  // (cuBLAS, summing in parts, 1.6e-6): it passes, with room.
  EXPECT_NEAR(toleranceFor(DType::F32, DType::F32, MathMode::Exact, 4096),
              1e-5 + 7.63e-6, 1e-8);
  double longK = toleranceFor(DType::F32, DType::F32, MathMode::Exact, 500000);
  EXPECT_GT(longK, 1.2e-5 * 4);
  EXPECT_LT(longK, 1e-4);
}
