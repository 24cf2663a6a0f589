//===- Registers.h - the register cap a schedule's kernel gets -*- C++ -*-===//
//
// The schedule model's register rule (Schedule::registerCap, which
// gemm-tile-blocks sets as nvvm.maxnreg and the spill warning weighs the
// estimate against): plain C++, no LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_SCHEDULE_REGISTERS_H
#define GEMMC_SCHEDULE_REGISTERS_H

#include <algorithm>
#include <cstdint>

namespace gemmc {

/// Registers an SM has, and the most a thread can have.
inline constexpr int64_t kRegistersPerSM = 65536;
inline constexpr int64_t kMaxRegistersPerThread = 255;

/// Registers every thread needs beyond its tiles: addresses, indices, loop
/// counters.
inline constexpr int64_t kAddressingRegisters = 24;

/// Registers a wgmma consumer thread needs beyond its live values
/// (WarpgroupKernel::liveValues): descriptors, addresses and the
/// epilogue's values.
inline constexpr int64_t kConsumerOverheadRegisters = 40;

/// The registers a thread of a block of `threads` may use where `blocks`
/// such blocks share a multiprocessor: at most 255.
inline int64_t registerCapFor(int64_t threads, int64_t blocks) {
  return std::min(kMaxRegistersPerThread,
                  kRegistersPerSM / std::max<int64_t>(threads * blocks, 1));
}

/// The registers a thread of a block of `threads` may use: enough for two
/// blocks per SM when the thread's accumulators and fragments (`tiles`
/// registers) and the addressing registers fit that, else enough for one
/// block; at most 255. Left alone, ptxas has been seen to spill 512-thread
/// blocks at 40 registers, and to go one register past two blocks' worth.
inline int64_t registerCap(int64_t threads, int64_t tiles) {
  int64_t twoBlocks = kRegistersPerSM / (2 * threads);
  if (tiles + kAddressingRegisters <= twoBlocks)
    return std::min(twoBlocks, kMaxRegistersPerThread);
  return registerCapFor(threads, 1);
}

/// The registers of the accumulators and of one step's operand fragments
/// that registerCap weighs: a TM x TN register tile and a row and column of
/// it, or an mma warp tile spread over 32 lanes with its A and B fragments
/// (16 x K and K x 8 in 32-bit registers: (WM + WN) / 4 for f16, bf16 and
/// tf32 alike).
inline int64_t tileRegisters(bool mma, int64_t tm, int64_t tn, int64_t wm,
                             int64_t wn) {
  if (mma)
    return wm * wn / 32 + (wm + wn) / 4;
  return tm * tn + tm + tn;
}

} // namespace gemmc

#endif // GEMMC_SCHEDULE_REGISTERS_H
