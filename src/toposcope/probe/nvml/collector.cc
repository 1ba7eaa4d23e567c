// probe/nvml/collector: one row per GPU per iteration, on a fixed schedule of deadlines.
#include "toposcope/probe/nvml/collector.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <utility>

#include "toposcope/base/text.h"
#include "toposcope/formats/dcgm/dcgm_fields.h"

namespace toposcope::probe {
namespace {

// Columns, in output order.
enum Col { kSmClk, kMemClk, kTemp, kPower, kGpuUtil, kMemUtil, kPcieTx, kPcieRx, kNvlTx, kNvlRx, kSmAct, kSmOcc, kDramA, kCols };
constexpr int kFieldIds[kCols] = {100, 101, 150, 155, 203, 204, 1009, 1010, 1011, 1012, 1002, 1003, 1005};

constexpr double kMiB = 1024.0 * 1024.0;

int64_t MonoNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
int64_t WallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One GPU's handle and what the previous iteration left for interval metrics.
struct GpuState {
  int index = 0;
  NvmlDevice dev = nullptr;
  std::string name;
  bool gpm = false;
  NvmlGpmSample prev = nullptr, cur = nullptr;
  bool have_prev = false;
  bool counters = true;  // NVLink data counters answer
  double prev_tx_kib = NAN, prev_rx_kib = NAN;
  int64_t prev_mono_ns = 0;
};

class Sampler {
 public:
  explicit Sampler(const NvmlLibrary& nvml) : nvml_(nvml), a_(nvml.api()) {}
  ~Sampler() {
    for (GpuState& g : gpus_) {
      for (NvmlGpmSample s : {g.prev, g.cur}) {
        if (s != nullptr && a_.GpmSampleFree != nullptr) a_.GpmSampleFree(s);
      }
    }
  }
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  Status Open(const std::vector<int>& asked) {
    unsigned count = 0;
    if (auto s = nvml_.Check(a_.DeviceGetCount(&count), "nvmlDeviceGetCount_v2"); !s.ok()) return s;
    if (count == 0) return MakeError("NVML sees no GPU");
    std::vector<int> idx = asked;
    if (idx.empty()) {
      for (unsigned i = 0; i < count; ++i) idx.push_back(static_cast<int>(i));
    }
    std::sort(idx.begin(), idx.end());
    idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    for (int i : idx) {
      if (i < 0 || static_cast<unsigned>(i) >= count) {
        return MakeKindError(ErrorKind::kUsage, "GPU " + std::to_string(i) + " does not exist: NVML sees " +
                                                    std::to_string(count) + " GPU(s), 0.." + std::to_string(count - 1));
      }
      GpuState g;
      g.index = i;
      if (auto s = nvml_.Check(a_.DeviceGetHandleByIndex(static_cast<unsigned>(i), &g.dev),
                               "nvmlDeviceGetHandleByIndex_v2(" + std::to_string(i) + ")");
          !s.ok()) {
        return s;
      }
      char name[96] = {};
      if (a_.DeviceGetName(g.dev, name, sizeof name) == kNvmlSuccess) g.name.assign(name, strnlen(name, sizeof name));
      g.gpm = GpmReady(g);
      gpus_.push_back(std::move(g));
    }
    return {};
  }

  // One row's values for GPU g at monotonic time mono_ns.
  std::vector<double> Sample(GpuState& g, int64_t mono_ns) {
    std::vector<double> v(kCols, NAN);
    unsigned u = 0;
    if (a_.DeviceGetClockInfo(g.dev, kNvmlClockSm, &u) == kNvmlSuccess) v[kSmClk] = u;
    if (a_.DeviceGetClockInfo(g.dev, kNvmlClockMem, &u) == kNvmlSuccess) v[kMemClk] = u;
    if (a_.DeviceGetTemperature(g.dev, kNvmlTemperatureGpu, &u) == kNvmlSuccess) v[kTemp] = u;
    if (a_.DeviceGetPowerUsage(g.dev, &u) == kNvmlSuccess) v[kPower] = u / 1000.0;
    NvmlUtilization util;
    if (a_.DeviceGetUtilizationRates(g.dev, &util) == kNvmlSuccess) {
      v[kGpuUtil] = util.gpu;
      v[kMemUtil] = util.memory;
    }
    SampleGpm(g, v);
    if (std::isnan(v[kPcieTx]) && a_.DeviceGetPcieThroughput != nullptr) {
      if (a_.DeviceGetPcieThroughput(g.dev, kNvmlPcieUtilTxBytes, &u) == kNvmlSuccess) v[kPcieTx] = u * 1024.0;
      if (a_.DeviceGetPcieThroughput(g.dev, kNvmlPcieUtilRxBytes, &u) == kNvmlSuccess) v[kPcieRx] = u * 1024.0;
    }
    if (std::isnan(v[kNvlTx])) SampleNvlinkCounters(g, mono_ns, v);
    for (int c : {kPcieTx, kPcieRx, kNvlTx, kNvlRx}) {
      if (!std::isnan(v[c])) v[c] = std::round(v[c]);  // int64 fields in DCGM
    }
    for (int c = 0; c < kCols; ++c) answered_[c] = answered_[c] || !std::isnan(v[c]);
    return v;
  }

  std::vector<GpuState>& gpus() { return gpus_; }
  [[nodiscard]] bool Answered(int c) const { return answered_[c]; }
  [[nodiscard]] bool AnyGpm() const {
    return std::any_of(gpus_.begin(), gpus_.end(), [](const GpuState& g) { return g.gpm; });
  }

 private:
  bool GpmReady(GpuState& g) {
    if (a_.GpmQueryDeviceSupport == nullptr || a_.GpmSampleAlloc == nullptr || a_.GpmSampleGet == nullptr ||
        a_.GpmMetricsGet == nullptr || a_.GpmSampleFree == nullptr) {
      return false;
    }
    NvmlGpmSupport support;
    if (a_.GpmQueryDeviceSupport(g.dev, &support) != kNvmlSuccess || support.is_supported_device == 0) return false;
    if (a_.GpmSampleAlloc(&g.prev) != kNvmlSuccess) return false;
    if (a_.GpmSampleAlloc(&g.cur) != kNvmlSuccess) return false;
    return true;
  }

  void SampleGpm(GpuState& g, std::vector<double>& v) {
    if (!g.gpm) return;
    if (a_.GpmSampleGet(g.dev, g.cur) != kNvmlSuccess) {
      g.have_prev = false;
      return;
    }
    if (g.have_prev) {
      NvmlGpmMetricsGet req;
      const std::pair<unsigned, int> want[] = {
          {kNvmlGpmMetricSmUtil, kSmAct},          {kNvmlGpmMetricSmOccupancy, kSmOcc},
          {kNvmlGpmMetricDramBwUtil, kDramA},      {kNvmlGpmMetricPcieTxPerSec, kPcieTx},
          {kNvmlGpmMetricPcieRxPerSec, kPcieRx},   {kNvmlGpmMetricNvlinkTotalTxPerSec, kNvlTx},
          {kNvmlGpmMetricNvlinkTotalRxPerSec, kNvlRx}};
      req.num_metrics = std::size(want);
      req.sample1 = g.prev;
      req.sample2 = g.cur;
      for (size_t k = 0; k < std::size(want); ++k) req.metrics[k].metric_id = want[k].first;
      if (a_.GpmMetricsGet(&req) == kNvmlSuccess) {
        for (size_t k = 0; k < std::size(want); ++k) {
          const NvmlGpmMetric& m = req.metrics[k];
          if (m.nvml_return != kNvmlSuccess || !std::isfinite(m.value)) continue;
          const int c = want[k].second;
          const bool percent = c == kSmAct || c == kSmOcc || c == kDramA;
          v[c] = percent ? m.value / 100.0 : m.value * kMiB;
        }
      }
    }
    std::swap(g.prev, g.cur);
    g.have_prev = true;
  }

  void SampleNvlinkCounters(GpuState& g, int64_t mono_ns, std::vector<double>& v) {
    if (!g.counters || a_.DeviceGetFieldValues == nullptr) return;
    NvmlFieldValue f[2];
    f[0].field_id = kNvmlFiNvlinkThroughputDataTx;
    f[1].field_id = kNvmlFiNvlinkThroughputDataRx;
    if (a_.DeviceGetFieldValues(g.dev, 2, f) != kNvmlSuccess || f[0].nvml_return != kNvmlSuccess ||
        f[1].nvml_return != kNvmlSuccess) {
      g.counters = false;  // not supported here: stop asking
      return;
    }
    const double tx = NvmlFieldAsDouble(f[0]), rx = NvmlFieldAsDouble(f[1]);
    const double dt_s = static_cast<double>(mono_ns - g.prev_mono_ns) * 1e-9;
    if (!std::isnan(g.prev_tx_kib) && dt_s > 0 && tx >= g.prev_tx_kib && rx >= g.prev_rx_kib) {
      v[kNvlTx] = (tx - g.prev_tx_kib) * 1024.0 / dt_s;
      v[kNvlRx] = (rx - g.prev_rx_kib) * 1024.0 / dt_s;
    }
    g.prev_tx_kib = tx;
    g.prev_rx_kib = rx;
    g.prev_mono_ns = mono_ns;
  }

  const NvmlLibrary& nvml_;
  const NvmlApi& a_;
  std::vector<GpuState> gpus_;
  bool answered_[kCols] = {};
};

std::vector<formats::DmonField> Columns() {
  std::vector<formats::DmonField> cols;
  for (int id : kFieldIds) {
    const formats::DcgmField* f = formats::FindFieldById(id);
    formats::DmonField c;
    c.field_id = id;
    c.short_name = f != nullptr ? std::string(f->short_name) : std::to_string(id);
    cols.push_back(std::move(c));
  }
  return cols;
}

Status ValidateOptions(const CollectOptions& o) {
  if (!(o.hz > 0 && o.hz <= 1000)) return MakeKindError(ErrorKind::kUsage, "the rate must be in (0, 1000] Hz");
  if (!(o.duration_s >= 0) || o.max_iterations < 0) {
    return MakeKindError(ErrorKind::kUsage, "the duration and iteration limit must not be negative");
  }
  return {};
}

// Sleeps until `deadline_ns` (monotonic) or until stop is set, in short slices.
void SleepUntil(int64_t deadline_ns, const std::atomic<bool>& stop) {
  while (!stop.load(std::memory_order_relaxed)) {
    const int64_t left = deadline_ns - MonoNs();
    if (left <= 0) return;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<int64_t>(left, 20'000'000)));
  }
}

}  // namespace

Result<CollectSummary> RunCollector(const NvmlLibrary& nvml, const CollectOptions& o, const CollectWrite& write,
                                    const std::atomic<bool>& stop) {
  if (auto s = ValidateOptions(o); !s.ok()) return s.error();
  Sampler sampler(nvml);
  if (auto s = sampler.Open(o.devices); !s.ok()) return s.error();
  formats::DmonWriterOptions wo;
  wo.timestamp_style = o.timestamp_style;
  wo.fraction_digits = 6;
  formats::DmonWriter writer(Columns(), wo);

  CollectSummary sum;
  for (const GpuState& g : sampler.gpus()) {
    sum.gpu_names.push_back(g.name);
    sum.gpu_indices.push_back(g.index);
  }
  const auto period_ns = static_cast<int64_t>(std::llround(1e9 / o.hz));
  const int64_t start = MonoNs();
  int64_t deadline = start;
  int64_t first_ns = 0, last_ns = 0;  // monotonic start of the first and the last iteration
  std::string out;
  while (true) {
    if (stop.load(std::memory_order_relaxed)) {
      sum.stopped_by_signal = true;
      break;
    }
    const int64_t now = MonoNs();
    if (o.duration_s > 0 && static_cast<double>(now - start) * 1e-9 >= o.duration_s) break;
    out.clear();
    if (sum.iterations == 0) first_ns = now;
    last_ns = now;
    writer.BeginIteration(WallNs(), &out);
    for (GpuState& g : sampler.gpus()) {
      writer.WriteRow({formats::DmonEntityKind::kGpu, g.index, -1}, sampler.Sample(g, MonoNs()), {}, &out);
      ++sum.rows;
    }
    ++sum.iterations;
    if (!write(out)) return MakeKindError(ErrorKind::kOutput, "cannot write the samples");
    if (o.max_iterations > 0 && sum.iterations >= o.max_iterations) break;
    deadline += period_ns;
    const int64_t after = MonoNs();
    if (after > deadline) {  // a sample overran its period: skip the deadlines already past
      const int64_t missed = (after - deadline) / period_ns + 1;
      sum.late_iterations += missed;
      deadline += missed * period_ns;
    }
    SleepUntil(deadline, stop);
  }
  if (sum.stopped_by_signal) {
    out.clear();
    writer.SetTime(WallNs());
    writer.WriteStop(&out);
    if (!write(out)) return MakeKindError(ErrorKind::kOutput, "cannot write the samples");
  }
  sum.elapsed_s = static_cast<double>(MonoNs() - start) * 1e-9;
  // Iterations per second between the first and the last (n - 1 periods).
  sum.achieved_hz = sum.iterations > 1 && last_ns > first_ns
                        ? static_cast<double>(sum.iterations - 1) / (static_cast<double>(last_ns - first_ns) * 1e-9)
                        : 0;
  sum.gpm = sampler.AnyGpm();
  const std::vector<formats::DmonField> cols = Columns();
  for (int c = 0; c < kCols; ++c) {
    if (!sampler.Answered(c)) sum.unavailable.push_back(cols[static_cast<size_t>(c)].short_name);
  }
  return sum;
}

std::string CollectSummaryText(const CollectSummary& s) {
  std::string out;
  for (size_t k = 0; k < s.gpu_indices.size(); ++k) {
    out += StringPrintf("GPU %d  %s\n", s.gpu_indices[k], s.gpu_names[k].empty() ? "(name unknown)" : s.gpu_names[k].c_str());
  }
  out += StringPrintf("%lld iterations, %lld rows in %.2f s (%.2f Hz)%s%s\n", static_cast<long long>(s.iterations),
                      static_cast<long long>(s.rows), s.elapsed_s, s.achieved_hz,
                      s.late_iterations > 0 ? StringPrintf(", %lld deadlines missed", static_cast<long long>(s.late_iterations)).c_str() : "",
                      s.stopped_by_signal ? ", stopped by a signal" : "");
  out += s.gpm ? "GPM metrics: yes (SMACT, SMOCC, DRAMA, PCIe and NVLink rates over each interval)\n"
               : "GPM metrics: no (this GPU or driver does not offer them)\n";
  if (!s.unavailable.empty()) {
    std::string cols;
    for (const std::string& c : s.unavailable) cols += (cols.empty() ? "" : " ") + c;
    out += "N/A throughout: " + cols + "\n";
  }
  return out;
}

}  // namespace toposcope::probe
