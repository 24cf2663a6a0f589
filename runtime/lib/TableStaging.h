//===- TableStaging.h - a group table's rows from the host ----*- C++ -*-===//
//
// Private to libgemmc_runtime: the memory through which a group-table plan
// takes its rows from the host (gemmc_grouped_table_plan_launch_rows).
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RT_LIB_TABLESTAGING_H
#define GEMMC_RT_LIB_TABLESTAGING_H

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace gemmc::rt {

/// Slots of pinned host memory and device memory, each the size of one
/// table, in the context current when the first is made. A launch takes a
/// slot whose last launch is done (its event), copies the rows into it and
/// on to the device on its stream, and records the slot's event after the
/// kernel. A slot still in flight is not waited for: another is made, so a
/// launch needs no synchronisation, and once as many slots exist as
/// launches are in flight at once, no allocation (up to 1,024 slots; past
/// them a launch waits for the oldest). Thread-safe.
class TableStaging {
public:
  explicit TableStaging(size_t bytes) : bytes(bytes) {}
  ~TableStaging();
  TableStaging(const TableStaging &) = delete;
  TableStaging &operator=(const TableStaging &) = delete;

  /// Copies `rows` (the table's bytes, read before this returns) to the
  /// device on `stream`, calls `launch` with their device address, then
  /// records that the slot is in use until the stream gets past it.
  /// Throws CudaError (the launch's exceptions pass through).
  template <typename Launch>
  void launch(const int64_t *rows, CUstream stream, Launch &&launch) {
    std::lock_guard<std::mutex> lock(mutex);
    Slot &slot = take(rows, stream);
    try {
      launch(slot.device);
    } catch (...) {
      release(slot, stream); // the copy is enqueued all the same
      throw;
    }
    release(slot, stream);
  }

private:
  struct Slot {
    void *host = nullptr;
    CUdeviceptr device = 0;
    CUevent done = nullptr;
  };
  /// A free slot (made where none is) holding `rows`, their copy to the
  /// device enqueued on `stream`.
  Slot &take(const int64_t *rows, CUstream stream);
  void release(Slot &slot, CUstream stream);

  size_t bytes;
  std::mutex mutex;
  std::vector<Slot> slots;
  /// Where the search for a free slot starts: the slot after the last one
  /// taken, the oldest in flight.
  size_t next = 0;
};

} // namespace gemmc::rt

#endif // GEMMC_RT_LIB_TABLESTAGING_H
