//===- Warpgroup.h - the Hopper kernel a wgmma schedule implies -*- C++ -*-===//
//
// A schedule with `wgmma` describes a warp-specialised kernel for sm_90a: a
// producer warpgroup copies tiles of A and B with the tensor memory
// accelerator (TMA) into 128-byte-swizzled shared memory, `stages` deep,
// each stage completing on an mbarrier ("full") and released by the
// consumers on another ("empty"); the consumer warpgroups multiply with
// wgmma.mma_async reading both operands from shared memory through matrix
// descriptors, and store C from their accumulators. This header is the one
// home of that kernel's layout: the shared-memory map, the TMA boxes (which
// the kernel contract states and the runtime encodes tensor maps from), the
// wgmma descriptors' strides, the register split of `setmaxnreg`, and the
// rules such a schedule must satisfy.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_SCHEDULE_WARPGROUP_H
#define GEMMC_SCHEDULE_WARPGROUP_H

#include "gemmc/Schedule/Schedule.h"

namespace gemmc {

/// The 128-byte swizzle TMA writes and wgmma reads: rows of 128 bytes in
/// atoms of 8 rows (1024 bytes, the alignment a swizzled tile needs).
inline constexpr int64_t kSwizzleBytes = 128;
inline constexpr int64_t kSwizzleAtomBytes = 1024;

/// How one operand's tile of a stage lies in shared memory: `chunks` TMA
/// boxes of `boxInner` x `boxOuter` elements (innermost first, as
/// cuTensorMapEncodeTiled takes them), `chunkBytes` apart. Each box row is
/// 128 bytes of the operand's contiguous dimension. A K-major operand (A
/// row-major, B column-major) is split along K, an MN-major one along M or
/// N.
struct TmaOperand {
  Operand operand = Operand::A;
  /// K is the contiguous dimension.
  bool kMajor = true;
  int64_t boxInner = 0, boxOuter = 0, chunks = 0, chunkBytes = 0;

  int64_t stageBytes() const { return chunks * chunkBytes; }
  /// The wgmma descriptor's leading and stride byte offsets.
  int64_t leadingByteOffset() const;
  int64_t strideByteOffset() const { return kSwizzleAtomBytes; }
  /// The byte offset, from the start of a stage, of the wgmma operand that
  /// starts at row (of M or N) `mn` and step `kStep` of K (each `kElems`
  /// elements of `elementBytes`).
  int64_t offsetOf(int64_t mn, int64_t kElements, int64_t elementBytes) const;
};

/// The Hopper kernel of a wgmma schedule.
struct WarpgroupKernel {
  int64_t consumers = 1;
  int64_t threads = 0;
  int64_t stages = 1;
  /// wgmma's shape: 64 x N x K.
  int64_t instM = 64, instN = 0, instK = 0;
  int64_t elementBytes = 2;
  /// Rows of C per consumer warpgroup, and the wgmma tiles it covers.
  int64_t rowsPerConsumer = 0, mTiles = 0, nTiles = 0, kSteps = 0;
  TmaOperand a, b;
  /// The shared-memory map: A's stages, B's stages, then the mbarriers
  /// (full, then empty, 8 bytes each); the whole is requested dynamically
  /// and aligned to 1024 bytes.
  int64_t aOffset = 0, bOffset = 0, fullBarrierOffset = 0,
          emptyBarrierOffset = 0, sharedBytes = 0;
  /// Bytes from one stage of A (B) to the next: a multiple of 1024.
  int64_t aStageStride = 0, bStageStride = 0;
  /// Bytes one stage's copies bring (the full barrier's transaction count).
  int64_t stageTransactionBytes = 0;
  /// `setmaxnreg`: the producer gives registers back, the consumers take
  /// them.
  int64_t producerRegisters = 0, consumerRegisters = 0;
  /// f32 accumulators per consumer thread.
  int64_t accumulators = 0;
};

/// The layout of the kernel of `schedule` (which has `wgmma`) for `problem`;
/// meaningful where checkSchedule accepts them.
WarpgroupKernel getWarpgroupKernel(const Problem &problem,
                                   const Schedule &schedule);

} // namespace gemmc

#endif // GEMMC_SCHEDULE_WARPGROUP_H
