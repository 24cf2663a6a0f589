//===- TableStaging.cpp - a group table's rows from the host --------------===//

#include "TableStaging.h"

#include "gemmc-rt/Driver.h"

#include <cstring>

using namespace gemmc::rt;

TableStaging::~TableStaging() {
  if (slots.empty())
    return;
  // (No throwing here: a failure leaves the memory to the context.)
  const DriverApi &api = DriverApi::get();
  for (Slot &slot : slots) {
    api.cuEventSynchronize(slot.done);
    api.cuEventDestroy(slot.done);
    api.cuMemFree(slot.device);
    api.cuMemFreeHost(slot.host);
  }
}

/// The most slots a table keeps: past them, a launch waits for the oldest
/// (as many launches in flight as the driver's queue holds).
static constexpr size_t kMaxSlots = 1024;

TableStaging::Slot &TableStaging::take(const int64_t *rows, CUstream stream) {
  const DriverApi &api = DriverApi::get();
  Slot *free = nullptr;
  // The oldest slot first: where launches keep up, it is done.
  for (size_t i = 0; i < slots.size() && !free; ++i) {
    size_t at = (next + i) % slots.size();
    CUresult status = api.cuEventQuery(slots[at].done);
    if (status == CUDA_ERROR_NOT_READY)
      continue;
    GEMMC_CU(status);
    free = &slots[at];
    next = (at + 1) % slots.size();
  }
  if (!free && slots.size() >= kMaxSlots) {
    GEMMC_CU(api.cuEventSynchronize(slots[next].done));
    free = &slots[next];
    next = (next + 1) % slots.size();
  }
  if (!free) {
    // (A new event, never recorded, reads as done.)
    Slot made;
    try {
      GEMMC_CU(api.cuEventCreate(&made.done, CU_EVENT_DISABLE_TIMING));
      GEMMC_CU(api.cuMemHostAlloc(&made.host, bytes, 0));
      GEMMC_CU(api.cuMemAlloc(&made.device, bytes));
    } catch (...) {
      if (made.device)
        api.cuMemFree(made.device);
      if (made.host)
        api.cuMemFreeHost(made.host);
      if (made.done)
        api.cuEventDestroy(made.done);
      throw;
    }
    slots.push_back(made);
    free = &slots.back();
  }
  std::memcpy(free->host, rows, bytes);
  GEMMC_CU(api.cuMemcpyHtoDAsync(free->device, free->host, bytes, stream));
  return *free;
}

void TableStaging::release(Slot &slot, CUstream stream) {
  GEMMC_CU(DriverApi::get().cuEventRecord(slot.done, stream));
}
