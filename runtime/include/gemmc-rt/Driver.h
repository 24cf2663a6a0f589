//===- Driver.h - the CUDA driver API, loaded at run time ---------------===//
//
// libcuda.so.1 is opened with dlopen, so that the runtime's programs start on
// a machine without a GPU and say so, rather than failing to load. Every call
// is checked; a failure throws CudaError naming the call and the driver's
// message.
//
//===----------------------------------------------------------------------===//

#ifndef GEMMC_RT_DRIVER_H
#define GEMMC_RT_DRIVER_H

#include "gemmc-rt/Contract.h"

#include <cuda.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gemmc::rt {

/// A failed driver call, or no driver at all.
class CudaError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// There is no usable GPU: no driver library, or no device.
class NoGpuError : public CudaError {
public:
  using CudaError::CudaError;
};

/// The driver entry points gemmc uses, resolved from libcuda.so.1.
struct DriverApi {
#define GEMMC_CU_FUNCTIONS(X)                                                  \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuCtxGetDevice)                                                            \
  X(cuCtxGetCurrent)                                                           \
  X(cuPointerGetAttribute)                                                     \
  X(cuPointerGetAttributes)                                                    \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncGetAttribute)                                                        \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuLaunchKernelEx)                                                          \
  X(cuOccupancyMaxActiveClusters)                                              \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemsetD32)                                                               \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD16)                                                               \
  X(cuMemsetD8)                                                                \
  X(cuMemHostAlloc)                                                            \
  X(cuMemHostGetDevicePointer)                                                 \
  X(cuMemFreeHost)                                                             \
  X(cuStreamWaitValue32)                                                       \
  X(cuStreamIsCapturing)                                                       \
  X(cuEventCreate)                                                             \
  X(cuEventRecord)                                                             \
  X(cuEventQuery)                                                              \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuEventDestroy)                                                            \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)

#define GEMMC_DECLARE(fn) decltype(&::fn) fn = nullptr;
  GEMMC_CU_FUNCTIONS(GEMMC_DECLARE)
#undef GEMMC_DECLARE

  /// Loads libcuda.so.1 and calls cuInit once. Throws NoGpuError if the
  /// library is missing or has no device.
  static const DriverApi &get();
};

/// Throws CudaError("<call>: <CUDA_ERROR_NAME>: <message>") unless success.
void check(CUresult result, const char *call);

#define GEMMC_CU(call) ::gemmc::rt::check((call), #call)

/// The current device, its primary context, and what the runtime needs to
/// know about it.
struct Device {
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int smCount = 0;
  int clockKHz = 0;
  int major = 0, minor = 0;
  int maxSharedPerBlockOptin = 0;

  /// Opens device `ordinal` and makes its primary context current.
  static Device open(int ordinal);
  /// Peak FP32 FMA rate in TFLOP/s: SMs x 128 lanes x 2 x clock.
  double peakFp32Tflops() const;
};

/// The cost model's view (gemmc-contract/Cost.h) of the current context's
/// device: multiprocessors, clock, memory bandwidth, compute capability.
DeviceModel currentDeviceModel();

/// What the JIT produced for one kernel.
struct KernelInfo {
  int registers = 0;
  int localBytes = 0;
  int staticSharedBytes = 0;
  int maxThreadsPerBlock = 0;
};

/// A PTX module JIT-compiled by the driver.
class Module {
public:
  /// JIT-compiles `ptx` at `optLevel` (0-4). On failure throws CudaError with
  /// the JIT's error log; `name` is the file it came from.
  Module(const std::string &ptx, const std::string &name, int optLevel);
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  CUfunction getFunction(const std::string &entry) const;
  static KernelInfo getInfo(CUfunction function);

  const std::string &infoLog() const { return log; }

private:
  CUmodule module = nullptr;
  std::string log;
};

/// Device memory, freed on destruction.
class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  CUdeviceptr ptr() const { return devPtr; }
  size_t size() const { return bytes; }
  void upload(const void *host);
  void download(void *host) const;
  /// Fills the buffer with the 32-bit pattern `word` (e.g. a NaN).
  void fill32(unsigned word);
  /// Sets every 16-bit word (the size must be even).
  void fill16(uint16_t word);
  /// Sets every byte.
  void fill8(unsigned char byte);

private:
  CUdeviceptr devPtr = 0;
  size_t bytes = 0;
};

/// Times device work between two events, in milliseconds.
class EventTimer {
public:
  /// A `gated` timer holds the default stream back from start() to stop()
  /// (a wait on a flag in mapped host memory, set at stop), so that the
  /// GPU runs what was launched in between only once it is all enqueued:
  /// the time is the GPU's alone, without the host's cost of launching
  /// (which would otherwise count wherever the GPU waits for it, as it
  /// does for a small kernel). Where the device cannot wait on memory, the
  /// timer is ungated (gated() says which).
  explicit EventTimer(bool gated = false);
  ~EventTimer();
  EventTimer(const EventTimer &) = delete;
  EventTimer &operator=(const EventTimer &) = delete;

  void start();
  /// Records the stop event, waits for it, and returns the elapsed time in
  /// milliseconds.
  float stop();
  bool gated() const { return flag != nullptr; }

private:
  CUevent begin = nullptr, end = nullptr;
  /// The gate's flag (host and device addresses): the stream waits until
  /// it is 1.
  volatile uint32_t *flag = nullptr;
  CUdeviceptr flagOnDevice = 0;
  /// Opens the gate should stop() not come within a second (a launch that
  /// waits for the GPU would otherwise wait forever).
  std::thread watchdog;
  std::mutex mutex;
  std::condition_variable stopped;
  bool open = true;

  void release();
};

} // namespace gemmc::rt

#endif // GEMMC_RT_DRIVER_H
