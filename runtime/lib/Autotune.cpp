//===- Autotune.cpp - a family's choice measured on the GPU -------------===//

#include "gemmc-rt/Autotune.h"

#include <algorithm>
#include <cstdio>
#include <memory>

using namespace gemmc::rt;

std::vector<MeasuredVariant>
gemmc::rt::autotuneCandidates(const std::vector<RankedVariant> &ranking,
                              const AutotuneOptions &options) {
  std::vector<MeasuredVariant> candidates;
  for (const RankedVariant &r : ranking) {
    if (!r.whyNot.empty())
      break; // the runnable ones come first
    MeasuredVariant m;
    m.index = r.index;
    m.splits = r.splits;
    m.predictedMs = r.seconds * 1e3;
    if (r.overrides) {
      // A user's `when` decides: the first override alone, unmeasured.
      if (candidates.empty())
        candidates.push_back(m);
      break;
    }
    if (int64_t(candidates.size()) >= std::max(1, options.candidates))
      break;
    if (!candidates.empty() &&
        m.predictedMs > options.within * candidates.front().predictedMs)
      break;
    candidates.push_back(m);
  }
  return candidates;
}

const MeasuredVariant &
gemmc::rt::fastestMeasured(const std::vector<MeasuredVariant> &measured,
                           double margin) {
  const MeasuredVariant &first = measured.front();
  const MeasuredVariant *best = &first;
  for (const MeasuredVariant &m : measured)
    if (m.measuredMs > 0 &&
        (best->measuredMs <= 0 || m.measuredMs < best->measuredMs))
      best = &m;
  if (first.measuredMs > 0 &&
      best->measuredMs >= (1 - margin) * first.measuredMs)
    return first;
  return *best;
}

namespace {
/// Two events on one stream, destroyed with it.
class StreamTimer {
public:
  explicit StreamTimer(CUstream stream) : stream(stream) {
    const DriverApi &api = DriverApi::get();
    GEMMC_CU(api.cuEventCreate(&begin, CU_EVENT_DEFAULT));
    GEMMC_CU(api.cuEventCreate(&end, CU_EVENT_DEFAULT));
  }
  ~StreamTimer() {
    const DriverApi &api = DriverApi::get();
    api.cuEventDestroy(begin);
    api.cuEventDestroy(end);
  }
  StreamTimer(const StreamTimer &) = delete;
  StreamTimer &operator=(const StreamTimer &) = delete;

  /// The time of `launches` calls of `launch`, in milliseconds a call.
  template <typename Launch> double time(int launches, const Launch &launch) {
    const DriverApi &api = DriverApi::get();
    GEMMC_CU(api.cuEventRecord(begin, stream));
    for (int i = 0; i < launches; ++i)
      launch();
    GEMMC_CU(api.cuEventRecord(end, stream));
    GEMMC_CU(api.cuEventSynchronize(end));
    float ms = 0;
    GEMMC_CU(api.cuEventElapsedTime(&ms, begin, end));
    return double(ms) / launches;
  }

private:
  CUstream stream;
  CUevent begin = nullptr, end = nullptr;
};
} // namespace

/// The bytes C spans in memory (every matrix of a batch).
static size_t bytesOfC(const Problem &p) {
  int64_t elements = (p.batch - 1) * p.strideOfC() + p.spanOfC();
  return size_t(std::max<int64_t>(elements, 1)) * sizeOf(p.c);
}

std::vector<MeasuredVariant>
gemmc::rt::measureChoice(const KernelFamily &family, const Problem &problem,
                         const Operands &operands, CUstream stream,
                         const AutotuneOptions &options) {
  if (family.contract().problem.grouped)
    throw UsageError("family '" + family.name() +
                     "' is grouped: its variant is chosen by the rows a "
                     "group, not measured");
  const DriverApi &api = DriverApi::get();
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  GEMMC_CU(api.cuStreamIsCapturing(stream, &capture));
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE)
    throw UsageError("a measured choice runs the kernels: it cannot be made "
                     "while the stream is captured into a CUDA graph (make "
                     "it before the capture)");
  std::vector<MeasuredVariant> measured =
      autotuneCandidates(family.rank(problem), options);
  if (measured.size() < 2)
    return measured;
  // C and the amax of the measurement's own.
  DeviceBuffer c(bytesOfC(problem));
  std::unique_ptr<DeviceBuffer> amax;
  Operands ops = operands;
  ops.c = c.ptr();
  // The caller's workspace fits the caller's launch, not every candidate's.
  ops.partials = ops.counters = 0;
  if (problem.amax) {
    amax = std::make_unique<DeviceBuffer>(sizeof(float));
    ops.amax = amax->ptr();
  }
  std::vector<std::unique_ptr<LaunchPlan>> plans;
  for (const MeasuredVariant &m : measured)
    plans.push_back(std::make_unique<LaunchPlan>(*family.variants()[m.index],
                                                 problem, m.splits));
  StreamTimer timer(stream);
  int launches = std::max(1, options.launches);
  int rounds = std::max(1, options.rounds);
  std::vector<std::vector<double>> times(measured.size());
  // A warm-up round of one launch each, then the rounds, the candidates in
  // turn in each: a drift of the clock or of the memory's state falls on
  // every candidate alike.
  for (int r = -1; r < rounds; ++r)
    for (size_t i = 0; i < plans.size(); ++i) {
      const LaunchPlan &plan = *plans[i];
      double ms =
          timer.time(r < 0 ? 1 : launches, [&] { plan.launch(ops, stream); });
      if (r >= 0)
        times[i].push_back(ms);
    }
  for (size_t i = 0; i < measured.size(); ++i) {
    std::sort(times[i].begin(), times[i].end());
    measured[i].measuredMs = times[i][times[i].size() / 2];
  }
  return measured;
}

std::string
gemmc::rt::describeMeasured(const KernelFamily &family,
                            const std::vector<MeasuredVariant> &measured,
                            const MeasuredVariant &chosen) {
  std::vector<const MeasuredVariant *> order = {&chosen};
  for (const MeasuredVariant &m : measured)
    if (&m != &chosen)
      order.push_back(&m);
  std::string line;
  for (const MeasuredVariant *m : order) {
    char figures[96];
    std::snprintf(figures, sizeof(figures), " x%lld %.4f ms (predicted %.4f)",
                  static_cast<long long>(m->splits), m->measuredMs,
                  m->predictedMs);
    line += (line.empty() ? "" : ", ") +
            family.variants()[m->index]->contract().entry + figures;
  }
  return line;
}
