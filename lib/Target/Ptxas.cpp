//===- Ptxas.cpp - ptxas's resource report, in process -------------------===//
//
// libnvJitLink holds ptxas: given PTX and `-verbose`, it assembles it in
// this process and logs the resources of each kernel as the ptxas tool
// does. gemmc loads it at run time (GEMMC_NVJITLINK, else the library CMake
// found, else the soname), so that neither building nor running the
// compiler needs it.
//
//===----------------------------------------------------------------------===//

#include "gemmc/Target/Ptxas.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Process.h"
#include <cstdlib>
#include <optional>

using namespace gemmc;
using llvm::StringRef;

namespace {
/// The part of libnvJitLink's C API used here (nvJitLink.h of CUDA 12 and
/// 13: the handle is opaque, results are an enum whose success is 0).
struct NvJitLink {
  using Handle = void *;
  static constexpr int kInputPtx = 2; // NVJITLINK_INPUT_PTX
  int (*create)(Handle *, uint32_t, const char **);
  int (*destroy)(Handle *);
  int (*addData)(Handle, int, const void *, size_t, const char *);
  int (*complete)(Handle);
  int (*infoLogSize)(Handle, size_t *);
  int (*infoLog)(Handle, char *);
  int (*errorLogSize)(Handle, size_t *);
  int (*errorLog)(Handle, char *);
};

struct Loaded {
  std::optional<NvJitLink> api;
  /// Why it could not be loaded.
  std::string why;
};
} // namespace

static Loaded load() {
  Loaded result;
  // GEMMC_NVJITLINK names the library; set empty, none is loaded.
  std::optional<std::string> env =
      llvm::sys::Process::GetEnv("GEMMC_NVJITLINK");
  std::string path = env ? *env : "";
#ifdef GEMMC_NVJITLINK_PATH
  if (!env)
    path = GEMMC_NVJITLINK_PATH;
#endif
  std::string error = "GEMMC_NVJITLINK is empty";
  llvm::sys::DynamicLibrary library;
  // (An empty name would load this program itself.)
  if (!path.empty())
    library =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
  if (!library.isValid() && !env)
    library = llvm::sys::DynamicLibrary::getPermanentLibrary(
        "libnvJitLink.so.13", &error);
  if (!library.isValid()) {
    result.why = "libnvJitLink cannot be loaded (" + error + ")";
    return result;
  }
  NvJitLink api;
  bool missing = false;
  auto symbol = [&](auto &function, const char *name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
        library.getAddressOfSymbol(name));
    missing |= !function;
  };
  symbol(api.create, "nvJitLinkCreate");
  symbol(api.destroy, "nvJitLinkDestroy");
  symbol(api.addData, "nvJitLinkAddData");
  symbol(api.complete, "nvJitLinkComplete");
  symbol(api.infoLogSize, "nvJitLinkGetInfoLogSize");
  symbol(api.infoLog, "nvJitLinkGetInfoLog");
  symbol(api.errorLogSize, "nvJitLinkGetErrorLogSize");
  symbol(api.errorLog, "nvJitLinkGetErrorLog");
  if (missing) {
    result.why = "libnvJitLink lacks the functions gemmc calls";
    return result;
  }
  result.api = api;
  return result;
}

/// The library, loaded once per process.
static const Loaded &getNvJitLink() {
  static const Loaded loaded = load();
  return loaded;
}

/// The number before `suffix` in `line` (`0 bytes spill stores`), or 0.
static int64_t numberBefore(StringRef line, StringRef suffix) {
  size_t at = line.find(suffix);
  if (at == StringRef::npos)
    return 0;
  StringRef digits = line.take_front(at).rtrim().rsplit(' ').second;
  int64_t value = 0;
  return digits.getAsInteger(10, value) ? 0 : value;
}

llvm::StringMap<KernelResources> gemmc::parsePtxasLog(StringRef log) {
  llvm::StringMap<KernelResources> kernels;
  KernelResources *current = nullptr;
  llvm::SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    // The ptxas tool's lines, as libnvJitLink passes them on (its own
    // "info : Function properties for" lines follow and are left alone).
    if (!line.starts_with("ptxas"))
      continue;
    StringRef entry = "Compiling entry function '";
    if (size_t at = line.find(entry); at != StringRef::npos) {
      StringRef name = line.drop_front(at + entry.size());
      current = &kernels[name.take_until([](char c) { return c == '\''; })];
      continue;
    }
    if (!current)
      continue;
    if (line.contains("bytes spill stores")) {
      current->spillStoreBytes = numberBefore(line, "bytes spill stores");
      current->spillLoadBytes = numberBefore(line, "bytes spill loads");
    } else if (line.contains("Used ") && line.contains(" registers")) {
      StringRef used = line.drop_front(line.find("Used ") + 5);
      used.take_while([](char c) { return c >= '0' && c <= '9'; })
          .getAsInteger(10, current->registers);
    }
  }
  return kernels;
}

/// The log of kind `size`/`get` of `handle`.
static std::string getLog(NvJitLink::Handle handle,
                          int (*size)(NvJitLink::Handle, size_t *),
                          int (*get)(NvJitLink::Handle, char *)) {
  size_t bytes = 0;
  if (size(handle, &bytes) != 0 || bytes == 0)
    return {};
  std::string log(bytes, '\0');
  if (get(handle, log.data()) != 0)
    return {};
  while (!log.empty() && log.back() == '\0')
    log.pop_back();
  return log;
}

PtxasReport gemmc::assembleWithPtxas(StringRef ptx, StringRef arch) {
  PtxasReport report;
  const Loaded &loaded = getNvJitLink();
  if (!loaded.api) {
    report.log = loaded.why;
    return report;
  }
  const NvJitLink &api = *loaded.api;
  std::string archOption = ("-arch=" + arch).str();
  const char *options[] = {archOption.c_str(), "-verbose"};
  NvJitLink::Handle handle = nullptr;
  if (api.create(&handle, 2, options) != 0) {
    report.log = "libnvJitLink refuses " + archOption;
    return report;
  }
  bool assembled =
      api.addData(handle, NvJitLink::kInputPtx, ptx.data(), ptx.size(),
                  "gemmc.ptx") == 0 &&
      api.complete(handle) == 0;
  std::string info = getLog(handle, api.infoLogSize, api.infoLog);
  if (assembled) {
    report.status = PtxasReport::Status::Assembled;
    report.kernels = parsePtxasLog(info);
  } else {
    report.status = PtxasReport::Status::Rejected;
    report.log = getLog(handle, api.errorLogSize, api.errorLog);
  }
  api.destroy(&handle);
  return report;
}
