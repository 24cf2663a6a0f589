//===- SpaceParts.h - the tuning space's Hopper parts -----------*- C++ -*-===//
//
// The parts of the tuning space on Hopper's warpgroup kernel (sm_90a,
// WarpgroupSpace.cpp), each the schedules of one prefix of candidate names
// (docs/tuning.md); empty for f32 inputs but where a part says otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_LIB_TUNING_SPACEPARTS_H
#define GEMMC_LIB_TUNING_SPACEPARTS_H

#include "gemmc/Schedule/Schedule.h"

#include <vector>

namespace gemmc::tuning {

/// `_w`: the warp-specialised kernel with TMA, tiles of 64 or 128 rows.
std::vector<Schedule> enumerateWarpgroup(bool halves);
/// `_wu`: the producer's threads copy what TMA cannot.
std::vector<Schedule> enumerateWarpgroupUnaligned(bool halves);
/// `_wx`: f32 as tf32x3 on wgmma (`split`), or as tf32 (the producer's
/// threads copy without splitting, so a stage takes half the room).
std::vector<Schedule> enumerateWarpgroupSplitTf32(bool halves,
                                                  bool split = true);
/// `_wk`: long K beside small M and N.
std::vector<Schedule> enumerateWarpgroupLongK(bool halves);
/// `_wz`, `_wxz`: split-K chosen at launch.
std::vector<Schedule> enumerateWarpgroupSplitsAtLaunch(bool halves);
std::vector<Schedule> enumerateWarpgroupSplitTf32AtLaunch(bool halves,
                                                          bool split = true);
/// `_wt`, `_wd`, `_wn`: transposed tiles (C^T = B^T * A^T): narrow, narrow
/// with deep K steps, and wide persistent ones.
std::vector<Schedule> enumerateWarpgroupTransposed(bool halves);
std::vector<Schedule> enumerateWarpgroupTransposedDeep(bool halves);
std::vector<Schedule> enumerateWarpgroupTransposedWide(bool halves);
/// `_wm`: transposed tiles that take a short M whole and stream B through
/// every multiprocessor (split-K at launch, or stream-K).
std::vector<Schedule> enumerateWarpgroupTransposedStreaming(bool halves);
/// `_ws`: stream-K of the last round.
std::vector<Schedule> enumerateWarpgroupStreamK(bool halves);
std::vector<Schedule> enumerateWarpgroupPingPong(bool halves);
/// tf32's own parts (`--type tf32`, f32 inputs under `math = tf32`):
/// `_wf` persistent tiles, TMA where an operand is K-major and the
/// producer's threads elsewhere; `_wfs` stream-K; `_wfz` split-K chosen at
/// launch; `_wft` transposed narrow tiles for a short M; `_wfb` those
/// with TMA for both operands in fewer stages, beside the staging tile of
/// an M- or N-major one.
std::vector<Schedule> enumerateWarpgroupTf32();
std::vector<Schedule> enumerateWarpgroupTf32Staged();
/// `_wfr`: the transposed problem's tiles with wgmma's A (B^T) from
/// registers, loaded as it lies where B is row-major.
std::vector<Schedule> enumerateWarpgroupTf32Registers();
/// `_wxr`: f32 as tf32x3 on `_wfr`'s tiles, A's fragments split in the
/// consumers' registers, B split by the producer's threads.
std::vector<Schedule> enumerateWarpgroupSplitTf32Registers();
std::vector<Schedule> enumerateWarpgroupTf32StreamK();
std::vector<Schedule> enumerateWarpgroupTf32AtLaunch();
std::vector<Schedule> enumerateWarpgroupTf32Transposed();

} // namespace gemmc::tuning

#endif // GEMMC_LIB_TUNING_SPACEPARTS_H
