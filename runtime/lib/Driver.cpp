//===- Driver.cpp - the CUDA driver API, loaded at run time -------------===//

#include "gemmc-rt/Driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

using namespace gemmc::rt;

// cuda.h maps some names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2);
// stringify after macro expansion to look up the symbol the header means.
#define GEMMC_STR(x) #x
#define GEMMC_XSTR(x) GEMMC_STR(x)

static DriverApi loadDriver() {
  // GEMMC_CUDA_DRIVER names another driver library (tests use it to check
  // the behaviour without a driver on any machine).
  const char *path = std::getenv("GEMMC_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    throw NoGpuError(std::string("no CUDA driver: cannot load ") + path +
                     (why ? std::string(" (") + why + ")" : ""));
  }
  DriverApi api;
#define GEMMC_LOAD(fn)                                                         \
  api.fn = reinterpret_cast<decltype(api.fn)>(dlsym(handle, GEMMC_XSTR(fn)));  \
  if (!api.fn)                                                                 \
    throw NoGpuError("the CUDA driver lacks " GEMMC_XSTR(fn));
  GEMMC_CU_FUNCTIONS(GEMMC_LOAD)
#undef GEMMC_LOAD
  return api;
}

const DriverApi &DriverApi::get() {
  static DriverApi api;
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    try {
      api = loadDriver();
      CUresult result = api.cuInit(0);
      if (result != CUDA_SUCCESS) {
        const char *name = nullptr;
        api.cuGetErrorName(result, &name);
        failure = std::string("no usable GPU: cuInit failed: ") +
                  (name ? name : "unknown error");
      }
    } catch (const NoGpuError &e) {
      failure = e.what();
    }
  });
  if (!failure.empty())
    throw NoGpuError(failure);
  return api;
}

void gemmc::rt::check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  const DriverApi &api = DriverApi::get();
  const char *name = nullptr, *message = nullptr;
  api.cuGetErrorName(result, &name);
  api.cuGetErrorString(result, &message);
  throw CudaError(std::string(call) + ": " + (name ? name : "?") + ": " +
                  (message ? message : "unknown error"));
}

Device Device::open(int ordinal) {
  const DriverApi &api = DriverApi::get();
  int count = 0;
  GEMMC_CU(api.cuDeviceGetCount(&count));
  if (count == 0)
    throw NoGpuError("no usable GPU: the CUDA driver reports no device");
  if (ordinal < 0 || ordinal >= count)
    throw CudaError("device " + std::to_string(ordinal) +
                    " does not exist (there are " + std::to_string(count) +
                    ")");
  Device d;
  GEMMC_CU(api.cuDeviceGet(&d.device, ordinal));
  char name[256] = {};
  GEMMC_CU(api.cuDeviceGetName(name, sizeof(name), d.device));
  d.name = name;
  auto attribute = [&](CUdevice_attribute attr) {
    int value = 0;
    GEMMC_CU(api.cuDeviceGetAttribute(&value, attr, d.device));
    return value;
  };
  d.smCount = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  d.clockKHz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  d.major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d.minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d.maxSharedPerBlockOptin =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  GEMMC_CU(api.cuDevicePrimaryCtxRetain(&d.context, d.device));
  GEMMC_CU(api.cuCtxSetCurrent(d.context));
  return d;
}

DeviceModel gemmc::rt::currentDeviceModel() {
  const DriverApi &api = DriverApi::get();
  CUdevice device;
  GEMMC_CU(api.cuCtxGetDevice(&device));
  auto attribute = [&](CUdevice_attribute attr) {
    int value = 0;
    GEMMC_CU(api.cuDeviceGetAttribute(&value, attr, device));
    return value;
  };
  char name[256] = {};
  GEMMC_CU(api.cuDeviceGetName(name, sizeof(name), device));
  DeviceModel model;
  model.name = name;
  model.major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  model.minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  model.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  if (int clockKHz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE))
    model.clockGHz = clockKHz * 1e-6;
  // Double data rate: two transfers a clock over the bus.
  double memoryHz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) * 1e3;
  double busBytes =
      attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8.0;
  if (memoryHz > 0 && busBytes > 0)
    model.memoryBandwidth = 2 * memoryHz * busBytes;
  return model;
}

double Device::peakFp32Tflops() const {
  return smCount * 128.0 * 2.0 * clockKHz * 1e3 / 1e12;
}

Module::Module(const std::string &ptx, const std::string &name, int optLevel) {
  const DriverApi &api = DriverApi::get();
  constexpr unsigned kLogSize = 1 << 16;
  std::vector<char> infoLog(kLogSize, '\0'), errorLog(kLogSize, '\0');
  CUjit_option options[] = {
      CU_JIT_INFO_LOG_BUFFER,    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER,   CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_LOG_VERBOSE};
  void *values[] = {infoLog.data(),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(kLogSize)),
                    errorLog.data(),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(kLogSize)),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(optLevel)),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(1))};
  CUresult result =
      api.cuModuleLoadDataEx(&module, ptx.c_str(), 6, options, values);
  log = infoLog.data();
  if (result != CUDA_SUCCESS) {
    try {
      check(result, "cuModuleLoadDataEx");
    } catch (const CudaError &e) {
      throw CudaError(name + ": " + e.what() + "\nJIT error log:\n" +
                      errorLog.data());
    }
  }
}

Module::~Module() {
  if (module)
    DriverApi::get().cuModuleUnload(module);
}

CUfunction Module::getFunction(const std::string &entry) const {
  CUfunction function = nullptr;
  GEMMC_CU(
      DriverApi::get().cuModuleGetFunction(&function, module, entry.c_str()));
  return function;
}

KernelInfo Module::getInfo(CUfunction function) {
  const DriverApi &api = DriverApi::get();
  KernelInfo info;
  GEMMC_CU(api.cuFuncGetAttribute(&info.registers, CU_FUNC_ATTRIBUTE_NUM_REGS,
                                  function));
  GEMMC_CU(api.cuFuncGetAttribute(
      &info.localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function));
  GEMMC_CU(api.cuFuncGetAttribute(
      &info.staticSharedBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function));
  GEMMC_CU(api.cuFuncGetAttribute(&info.maxThreadsPerBlock,
                                  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                  function));
  return info;
}

DeviceBuffer::DeviceBuffer(size_t size) : bytes(size) {
  GEMMC_CU(DriverApi::get().cuMemAlloc(&devPtr, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (devPtr)
    DriverApi::get().cuMemFree(devPtr);
}

void DeviceBuffer::upload(const void *host) {
  GEMMC_CU(DriverApi::get().cuMemcpyHtoD(devPtr, host, bytes));
}

void DeviceBuffer::download(void *host) const {
  GEMMC_CU(DriverApi::get().cuMemcpyDtoH(host, devPtr, bytes));
}

void DeviceBuffer::fill32(unsigned word) {
  GEMMC_CU(DriverApi::get().cuMemsetD32(devPtr, word, bytes / 4));
}

void DeviceBuffer::fill16(uint16_t word) {
  GEMMC_CU(DriverApi::get().cuMemsetD16(devPtr, word, bytes / 2));
}

void DeviceBuffer::fill8(unsigned char byte) {
  GEMMC_CU(DriverApi::get().cuMemsetD8(devPtr, byte, bytes));
}

EventTimer::EventTimer(bool gated) {
  const DriverApi &api = DriverApi::get();
  GEMMC_CU(api.cuEventCreate(&begin, CU_EVENT_DEFAULT));
  GEMMC_CU(api.cuEventCreate(&end, CU_EVENT_DEFAULT));
  if (!gated)
    return;
  void *host = nullptr;
  GEMMC_CU(api.cuMemHostAlloc(&host, sizeof(uint32_t),
                              CU_MEMHOSTALLOC_DEVICEMAP |
                                  CU_MEMHOSTALLOC_PORTABLE));
  GEMMC_CU(api.cuMemHostGetDevicePointer(&flagOnDevice, host, 0));
  flag = static_cast<volatile uint32_t *>(host);
  *flag = 1;
  // A device that cannot wait on memory times ungated.
  if (api.cuStreamWaitValue32(nullptr, flagOnDevice, 1,
                              CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS) {
    api.cuMemFreeHost(host);
    flag = nullptr;
  }
}

EventTimer::~EventTimer() {
  release();
  const DriverApi &api = DriverApi::get();
  api.cuEventDestroy(begin);
  api.cuEventDestroy(end);
  if (flag)
    api.cuMemFreeHost(const_cast<uint32_t *>(flag));
}

void EventTimer::start() {
  const DriverApi &api = DriverApi::get();
  if (flag) {
    release();
    *flag = 0;
    GEMMC_CU(api.cuStreamWaitValue32(nullptr, flagOnDevice, 1,
                                     CU_STREAM_WAIT_VALUE_GEQ));
    open = false;
    watchdog = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex);
      if (!stopped.wait_for(lock, std::chrono::seconds(1), [this] {
            return open;
          }))
        *flag = 1;
    });
  }
  GEMMC_CU(api.cuEventRecord(begin, nullptr));
}

void EventTimer::release() {
  if (!watchdog.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    *flag = 1;
  }
  stopped.notify_one();
  watchdog.join();
}

float EventTimer::stop() {
  const DriverApi &api = DriverApi::get();
  GEMMC_CU(api.cuEventRecord(end, nullptr));
  release();
  GEMMC_CU(api.cuEventSynchronize(end));
  float ms = 0;
  GEMMC_CU(api.cuEventElapsedTime(&ms, begin, end));
  return ms;
}
