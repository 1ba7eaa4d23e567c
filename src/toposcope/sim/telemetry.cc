#include "toposcope/sim/telemetry.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "toposcope/base/json_stream.h"
#include "toposcope/base/names.h"
#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/trace/chrome_trace.h"
#include "toposcope/formats/clock/chrony.h"
#include "toposcope/formats/dcgm/dcgm_csv.h"
#include "toposcope/formats/dcgm/dcgm_dmon.h"
#include "toposcope/formats/dcgm/dcgm_fields.h"
#include "toposcope/formats/trace/event_jsonl.h"
#include "toposcope/formats/clock/linuxptp.h"
#include "toposcope/formats/nccl/nccl_inspector.h"
#include "toposcope/formats/dcgm/prometheus_text.h"
#include "toposcope/formats/clock/sync_csv.h"

namespace toposcope::sim {
namespace {

// RNG stream labels (Rng::Mix(seed, label), then Rng::Mix(that, host or rank)).
constexpr uint64_t kClockStreamLabel = 0xC10C5EEDULL;
constexpr uint64_t kJobStreamLabel = 0x10B5EEDULL;
constexpr uint64_t kDcgmStreamLabel = 0xDC6A5EEDULL;
constexpr uint64_t kNoiseStreamLabel = 0x4015E5EEDULL;
constexpr uint64_t kTelemetryFaultLabel = 0x7E1EFA17ULL;
constexpr uint64_t kTraceStreamLabel = 0x7ACE5EEDULL;

constexpr NamedValue<TelemetryFaultKind> kFaultKindNames[] = {
    {TelemetryFaultKind::kClockStep, "clock_step"}, {TelemetryFaultKind::kStraggler, "straggler"},
    {TelemetryFaultKind::kThermalLinkDownspeed, "thermal_link_downspeed"}};

constexpr double kThermalRFactor = 1.8;
constexpr double kDownLinkShare = 0.45;
constexpr const char* kNtpServer = "10.254.0.1";
constexpr const char* kNcclVersion = "2.21.5";
constexpr int kComputeStream = 7;
// The job plan (every rank's span in every op of the telemetry window) is held whole while the
// hosts are rendered; this caps it (sim/traffic.h JobPlanBytesBound), so that the simulator's memory
// stays bounded whatever the host count. Hosts have at most this many GPUs.
constexpr int64_t kMaxJobPlanBytes = int64_t{2} << 30;
constexpr int kMaxGpusPerHost = 8;
constexpr int kNcclStream = 20;

int64_t Ns(double v) { return static_cast<int64_t>(std::llround(v)); }
double Round3(double v) {
  const double r = std::round(v * 1000.0) / 1000.0;
  return r == 0.0 ? 0.0 : r;
}
std::string HexDigits(uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*llx", digits, static_cast<unsigned long long>(v));
  std::string s = buf;
  return s.substr(s.size() - static_cast<size_t>(digits));
}

// ---- DCGM fields written ----

namespace fid = formats::field_id;
// DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL: the field catalog has no named id for it.
constexpr int kNvlinkReplayErrorTotal = 429;

enum class FieldKind { kNvlTx, kNvlRx, kPcieTx, kPcieRx, kTemp, kPower, kUtil, kSm, kCrc, kReplay, kLinkRx };

struct FieldSpec {
  int id;
  const char* constant;
  const char* short_name;
  FieldKind kind;
  bool prof;  // a profiling (DCP) field: N/A in dmon's first iteration
};

constexpr FieldSpec kGpuFields[] = {
    {fid::kProfNvlinkTxBytes, "DCGM_FI_PROF_NVLINK_TX_BYTES", "NVLTX", FieldKind::kNvlTx, true},
    {fid::kProfNvlinkRxBytes, "DCGM_FI_PROF_NVLINK_RX_BYTES", "NVLRX", FieldKind::kNvlRx, true},
    {fid::kProfPcieTxBytes, "DCGM_FI_PROF_PCIE_TX_BYTES", "PCITX", FieldKind::kPcieTx, true},
    {fid::kProfPcieRxBytes, "DCGM_FI_PROF_PCIE_RX_BYTES", "PCIRX", FieldKind::kPcieRx, true},
    {fid::kGpuTemp, "DCGM_FI_DEV_GPU_TEMP", "TMPTR", FieldKind::kTemp, false},
    {fid::kPowerUsage, "DCGM_FI_DEV_POWER_USAGE", "POWER", FieldKind::kPower, false},
    {fid::kGpuUtil, "DCGM_FI_DEV_GPU_UTIL", "GPUTL", FieldKind::kUtil, false},
    {fid::kProfSmActive, "DCGM_FI_PROF_SM_ACTIVE", "SMACT", FieldKind::kSm, true},
    {fid::kNvlinkCrcFlitErrorTotal, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "NFELT", FieldKind::kCrc, false},
    {kNvlinkReplayErrorTotal, "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "NRELT", FieldKind::kReplay, false},
};

struct HelpText {
  int id;
  const char* help;
  formats::PromMetricType type;
};
constexpr HelpText kHelp[] = {
    {fid::kProfNvlinkTxBytes,
     "The number of bytes of active NvLink tx (transmit) data including both header and payload.",
     formats::PromMetricType::kGauge},
    {fid::kProfNvlinkRxBytes, "The number of bytes of active NvLink rx (read) data including both header and payload.",
     formats::PromMetricType::kGauge},
    {fid::kProfPcieTxBytes, "The number of bytes of active PCIe tx (transmit) data including both header and payload.",
     formats::PromMetricType::kGauge},
    {fid::kProfPcieRxBytes, "The number of bytes of active PCIe rx (read) data including both header and payload.",
     formats::PromMetricType::kGauge},
    {fid::kGpuTemp, "GPU temperature (in C).", formats::PromMetricType::kGauge},
    {fid::kPowerUsage, "Power draw (in W).", formats::PromMetricType::kGauge},
    {fid::kGpuUtil, "GPU utilization (in %).", formats::PromMetricType::kGauge},
    {fid::kProfSmActive,
     "The ratio of cycles an SM has at least 1 warp assigned (in %).", formats::PromMetricType::kGauge},
    {fid::kNvlinkCrcFlitErrorTotal,
     "Total number of NVLink flow-control CRC errors.", formats::PromMetricType::kCounter},
    {kNvlinkReplayErrorTotal, "Total number of NVLink retries.", formats::PromMetricType::kCounter},
};

std::string ConstantOf(const FieldSpec& f) {
  if (const formats::DcgmField* c = formats::FindFieldById(f.id); c != nullptr && !c->constant.empty()) {
    return std::string(c->constant);
  }
  return f.constant;
}
std::string ShortOf(int id, const std::string& fallback) {
  if (const formats::DcgmField* c = formats::FindFieldById(id); c != nullptr && !c->short_name.empty()) {
    return std::string(c->short_name);
  }
  return fallback;
}

// One DCGM sample of one GPU at a host's period (true values, before noise).
struct Sample {
  int64_t true_ns = 0;
  double busy = 0, sm = 0, power_w = 0, temp_c = 0;
  double nvl_tx = 0, nvl_rx = 0, pcie_tx = 0, pcie_rx = 0;
  int64_t crc = 0, replay = 0;
  std::vector<double> link_rx;  // per NVLink port (NvlinkPorts order)
};

// Aggregates base bins [k*m, (k+1)*m) of a rank into one sample.
Sample Aggregate(const std::vector<DcgmBin>& bins, const DcgmGrid& grid, int k, int m,
                 const std::vector<NvlinkPort>& ports, int down_link) {
  Sample s;
  s.link_rx.assign(ports.size(), 0.0);
  const int first = k * m;
  for (int j = first; j < first + m; ++j) {
    const DcgmBin& b = bins[static_cast<size_t>(j)];
    s.busy += b.busy / m;
    s.sm += b.sm / m;
    s.power_w += b.power_w / m;
    s.nvl_tx += b.nvl_tx / m;
    s.nvl_rx += b.nvl_rx / m;
    s.pcie_tx += b.pcie_tx / m;
    s.pcie_rx += b.pcie_rx / m;
    double wsum = 0;
    for (const NvlinkPort& p : ports) {
      if (p.active) wsum += (b.link_down && p.link == down_link) ? kDownLinkShare : 1.0;
    }
    if (wsum > 0) {
      for (size_t i = 0; i < ports.size(); ++i) {
        if (!ports[i].active) continue;
        const double w = (b.link_down && ports[i].link == down_link) ? kDownLinkShare : 1.0;
        s.link_rx[i] += b.nvl_rx * w / wsum / m;
      }
    }
  }
  const DcgmBin& last = bins[static_cast<size_t>(first + m - 1)];
  s.temp_c = last.temp_c;
  s.crc = last.crc_flit_total;
  s.replay = last.replay_total;
  s.true_ns = grid.start_ns + static_cast<int64_t>(first + m) * grid.step_ns;
  return s;
}

// Measured values of a sample: noise applied, rounded as DCGM reports them.
struct Measured {
  std::vector<double> gpu;   // aligned with kGpuFields
  std::vector<double> link;  // aligned with ports (NaN for a link that is down)
};

Measured Measure(const Sample& s, const std::vector<NvlinkPort>& ports, bool has_nvlink,
                 const stats::NoiseModel& noise, Rng& rng) {
  auto rate = [&](double v) {
    return std::round(std::max(0.0, v) * std::max(0.05, 1.0 + noise.Sample(rng)));
  };
  auto ratio = [&](double v) { return std::clamp(v * std::max(0.05, 1.0 + noise.Sample(rng)), 0.0, 1.0); };
  Measured m;
  m.gpu.resize(std::size(kGpuFields));
  for (size_t i = 0; i < std::size(kGpuFields); ++i) {
    double v = 0;
    switch (kGpuFields[i].kind) {
      case FieldKind::kNvlTx:
        v = has_nvlink ? rate(s.nvl_tx) : 0.0;
        break;
      case FieldKind::kNvlRx:
        v = has_nvlink ? rate(s.nvl_rx) : 0.0;
        break;
      case FieldKind::kPcieTx:
        v = rate(s.pcie_tx);
        break;
      case FieldKind::kPcieRx:
        v = rate(s.pcie_rx);
        break;
      case FieldKind::kTemp:
        v = std::round(s.temp_c + 0.3 * rng.Normal());
        break;
      case FieldKind::kPower:
        v = Round3(s.power_w * (1.0 + 0.01 * rng.Normal()));
        break;
      case FieldKind::kUtil:
        v = std::round(100.0 * ratio(s.busy));
        break;
      case FieldKind::kSm:
        v = Round3(ratio(s.sm));
        break;
      case FieldKind::kCrc:
        v = static_cast<double>(s.crc);
        break;
      case FieldKind::kReplay:
        v = static_cast<double>(s.replay);
        break;
      case FieldKind::kLinkRx:
        break;
    }
    m.gpu[i] = v;
  }
  m.link.resize(ports.size());
  for (size_t i = 0; i < ports.size(); ++i) m.link[i] = ports[i].active ? rate(s.link_rx[i]) : 0.0;
  return m;
}

std::string GpuUuid(const HostModel& h, int gpu) {
  const uint64_t a = Rng::Mix(h.host_hash, 0x55D1D000ULL + static_cast<uint64_t>(gpu));
  const uint64_t b = Rng::Mix(a, 0x77ULL);
  const std::string hex = HexDigits(a, 16) + HexDigits(b, 16);
  return "GPU-" + hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

std::string ExporterBusId(const NodeType& t, int gpu) {
  const BusLayout bus = AssignBusNumbers(t);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "00000000:%02X:00.0", bus.gpus[static_cast<size_t>(gpu)] & 0xff);
  return buf;
}

// The host's samples: per GPU, per sample index.
struct HostSamples {
  std::vector<std::vector<Sample>> gpus;
  std::vector<std::vector<NvlinkPort>> ports;
  std::vector<int64_t> print_ns;  // true time each sample is printed / stamped
  int count = 0;
};

HostSamples CollectSamples(const Cluster& cluster, const Telemetry& t, const HostModel& h) {
  HostSamples hs;
  const HostTelemetryPlan& plan = t.plans[static_cast<size_t>(h.index)];
  const int step_ms = static_cast<int>(t.grid.step_ns / 1000000);
  const int m = std::max(1, plan.period_ms / std::max(1, step_ms));
  hs.count = t.grid.bins / m;
  Rng rng(Rng::Mix(Rng::Mix(cluster.options.seed, kDcgmStreamLabel),
                   0x1000000ULL + static_cast<uint64_t>(h.index)));
  for (int k = 0; k < hs.count; ++k) {
    const int64_t sample_ns = t.grid.start_ns + static_cast<int64_t>((k + 1) * m) * t.grid.step_ns;
    hs.print_ns.push_back(sample_ns + static_cast<int64_t>(rng.Below(1000000)));
  }
  for (int g = 0; g < h.type->GpuCount(); ++g) {
    const int rank = t.job.Rank(h.index, g);
    const std::vector<NvlinkPort> ports = NvlinkPorts(h, g);
    const int down = (h.index == t.thermal.host && g == t.thermal.gpu) ? t.thermal.link : -1;
    const std::vector<DcgmBin> bins = RankDcgmBins(cluster, t, rank);
    std::vector<Sample> samples;
    for (int k = 0; k < hs.count; ++k) samples.push_back(Aggregate(bins, t.grid, k, m, ports, down));
    hs.gpus.push_back(std::move(samples));
    hs.ports.push_back(ports);
  }
  return hs;
}

// The host's DCGM noise stream: each renderer starts its own and draws sample by sample, GPU by
// GPU.
Rng NoiseRng(const Cluster& cluster, const HostModel& h) {
  return Rng(Rng::Mix(Rng::Mix(cluster.options.seed, kNoiseStreamLabel), static_cast<uint64_t>(h.index)));
}

// Sample k of every GPU of the host, measured in GPU order.
std::vector<Measured> MeasureRow(const Cluster& cluster, const HostModel& h, const HostSamples& hs, int k, Rng& rng) {
  const bool nvlink = h.type->HasNvlink();
  std::vector<Measured> ms;
  for (int g = 0; g < h.type->GpuCount(); ++g) {
    const auto ug = static_cast<size_t>(g);
    ms.push_back(Measure(hs.gpus[ug][static_cast<size_t>(k)], hs.ports[ug], nvlink, cluster.options.noise, rng));
  }
  return ms;
}

std::string RenderDmon(const Cluster& cluster, const Telemetry& t, const HostModel& h,
                       const HostSamples& hs) {
  const HostClock& clock = t.clocks[static_cast<size_t>(h.index)];
  const bool nvlink = h.type->HasNvlink();
  std::vector<formats::DmonField> fields;
  for (const FieldSpec& f : kGpuFields) fields.push_back({ShortOf(f.id, f.short_name), "", f.id, 0});
  const size_t n_links = nvlink && !hs.ports.empty() ? hs.ports[0].size() : 0;
  for (size_t l = 0; l < n_links; ++l) {
    const int id = fid::kProfNvlinkL0RxBytes + 2 * static_cast<int>(l);
    fields.push_back({ShortOf(id, "NVL" + std::to_string(l) + "R"), "", id, 0});
  }
  formats::DmonWriterOptions wo;
  wo.timestamp_style = formats::DmonTimestampStyle::kIso;
  formats::DmonWriter writer(fields, wo);
  Rng rng = NoiseRng(cluster, h);
  std::string out;
  for (int k = 0; k < hs.count; ++k) {
    writer.BeginIteration(clock.LocalNs(hs.print_ns[static_cast<size_t>(k)]), &out);
    const std::vector<Measured> ms = MeasureRow(cluster, h, hs, k, rng);
    for (int g = 0; g < h.type->GpuCount(); ++g) {
      const Measured& m = ms[static_cast<size_t>(g)];
      std::vector<double> values = m.gpu;
      for (size_t l = 0; l < n_links; ++l) values.push_back(l < m.link.size() ? m.link[l] : 0.0);
      if (k == 0) {  // profiling fields have no value before their first interval completes
        for (size_t i = 0; i < std::size(kGpuFields); ++i) {
          if (kGpuFields[i].prof) values[i] = std::nan("");
        }
        for (size_t l = 0; l < n_links; ++l) values[std::size(kGpuFields) + l] = std::nan("");
      }
      writer.WriteRow({formats::DmonEntityKind::kGpu, g, -1}, values, {}, &out);
    }
  }
  return out;
}

std::string RenderExporter(const Cluster& cluster, const Telemetry& t, const HostModel& h,
                           const HostSamples& hs) {
  const HostClock& clock = t.clocks[static_cast<size_t>(h.index)];
  const HostTelemetryPlan& plan = t.plans[static_cast<size_t>(h.index)];
  formats::PromWriter writer(formats::PromValueStyle::kExporter);
  std::vector<std::string> names;
  for (const FieldSpec& f : kGpuFields) {
    names.push_back(ConstantOf(f));
    for (const HelpText& ht : kHelp) {
      if (ht.id == f.id) writer.SetMetadata({names.back(), ht.help, ht.type, true, true});
    }
  }
  std::vector<formats::PromLabels> labels;
  for (int g = 0; g < h.type->GpuCount(); ++g) {
    labels.push_back({{"gpu", std::to_string(g)},
                      {"UUID", GpuUuid(h, g)},
                      {"pci_bus_id", ExporterBusId(*h.type, g)},
                      {"device", "nvidia" + std::to_string(g)},
                      {"modelName", h.type->gpu_model},
                      {plan.host_label, h.name}});
  }
  Rng rng = NoiseRng(cluster, h);
  std::string out;
  for (int k = 0; k < hs.count; ++k) {
    const int64_t ts_ms = clock.LocalNs(hs.print_ns[static_cast<size_t>(k)]) / 1000000;
    const std::vector<Measured> ms = MeasureRow(cluster, h, hs, k, rng);
    writer.BeginScrape();
    for (size_t i = 0; i < std::size(kGpuFields); ++i) {
      for (int g = 0; g < h.type->GpuCount(); ++g) {
        formats::PromSample s;
        s.name = names[i];
        s.labels = labels[static_cast<size_t>(g)];
        s.value = ms[static_cast<size_t>(g)].gpu[i];
        s.ts_ms = ts_ms;
        writer.Append(&out, s);
      }
    }
  }
  return out;
}

std::string RenderDcgmCsv(const Cluster& cluster, const Telemetry& t, const HostModel& h,
                          const HostSamples& hs) {
  const HostClock& clock = t.clocks[static_cast<size_t>(h.index)];
  std::vector<std::string> names;
  for (const FieldSpec& f : kGpuFields) names.push_back(ConstantOf(f));
  Rng rng = NoiseRng(cluster, h);
  std::string out;
  formats::AppendDcgmCsvHeader(&out, formats::DcgmCsvLayout::kLong);
  for (int k = 0; k < hs.count; ++k) {
    const int64_t ts = clock.LocalNs(hs.print_ns[static_cast<size_t>(k)]);
    const std::vector<Measured> ms = MeasureRow(cluster, h, hs, k, rng);
    for (int g = 0; g < h.type->GpuCount(); ++g) {
      const Measured& m = ms[static_cast<size_t>(g)];
      for (size_t i = 0; i < std::size(kGpuFields); ++i) {
        formats::CsvSample s;
        s.ts_ns = ts;
        s.host = h.name;
        s.gpu = g;
        s.field = names[i];
        s.value = m.gpu[i];
        formats::AppendDcgmCsvLongRow(&out, s, formats::CsvTimeStyle::kIso);
      }
    }
  }
  return out;
}

// `journalctl -o short-iso-precise` time: 2024-05-01T12:00:01.123456+00:00.
std::string JournalTime(int64_t local_ns) {
  const std::string iso = FormatIsoTimeNs(local_ns);  // ...T12:00:01.123456789Z
  return iso.substr(0, 26) + "+00:00";
}

std::string RenderPtp4l(const HostModel& h, const std::vector<PtpSample>& samples, int64_t pid) {
  std::string out;
  for (const PtpSample& s : samples) {
    // linuxptp's own line, then re-prefixed the way the journal prints it.
    const std::string line = formats::FormatPtp4lSampleLine(s.monotonic_ns, s.offset_ns, s.servo_state,
                                                            s.freq_ppb, s.path_delay_ns);
    const size_t open = line.find('[');
    const size_t close = line.find("]: ");
    if (open == std::string::npos || close == std::string::npos) continue;
    out += JournalTime(s.local_ns);
    out += ' ';
    out += h.name;
    out += " ptp4l[" + std::to_string(pid) + "]: [" + line.substr(open + 1, close - open - 1) + "] ";
    out += line.substr(close + 3);
    out += '\n';
  }
  return out;
}

// GEMM kernel names by GPU architecture (as CUPTI reports cuBLAS kernels).
std::string GemmKernel(const NodeType& type) {
  if (type.sm >= 90) {
    return "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_"
           "off_kernel__5x_cublas";
  }
  if (type.sm == 89)
    return "sm89_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_"
           "kernel";
  return "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn";
}
constexpr const char* kOptimizerKernel =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>>";

std::string TraceFileName(const HostModel& h, int rank, int gpu) {
  return h.name + "/trace/rank" + std::to_string(rank) + ".pt.trace.json" + ((gpu % 4 == 1) ? ".gz" : "");
}
std::string InspectorFileName(const HostModel& h, int64_t pid) {
  return h.name + "/nccl-inspector/" + h.name + "-pid" + std::to_string(pid) + ".log";
}

std::string RenderTrace(const Cluster& cluster, const Telemetry& t, const HostModel& h, int gpu) {
  const HostClock& clock = t.clocks[static_cast<size_t>(h.index)];
  const int rank = t.job.Rank(h.index, gpu);
  const int64_t pid = t.rank_pid[static_cast<size_t>(rank)];
  Rng rng(Rng::Mix(Rng::Mix(cluster.options.seed, kTraceStreamLabel), static_cast<uint64_t>(rank)));
  std::ostringstream os;
  formats::ChromeTraceWriter w(os);
  const int first = t.trace_first_iteration;
  const int last = t.trace_last_iteration;
  const auto op = [&](int it, int k) -> const JobOp& { return t.job.ops[static_cast<size_t>(it * 5 + k)]; };
  const auto span = [&](const JobOp& o) -> const RankSpan& { return o.ranks[static_cast<size_t>(rank)]; };
  const int64_t base = clock.LocalNs(span(op(first, 0)).start_ns - 5000000) / 1000 * 1000;
  w.SetSchemaVersion(1);
  w.SetBaseTime(base);
  formats::DistributedInfo di;
  di.present = true;
  di.backend = "nccl";
  di.rank = rank;
  di.world_size = t.job.world;
  di.pg_count = 1;
  formats::ProcessGroupConfig pg;
  pg.pg_name = "0";
  pg.pg_desc = "default_pg";
  pg.backend_config = "cuda:nccl";
  pg.pg_size = t.job.world;
  pg.ranks.AppendRun(0, t.job.world - 1);
  di.pg_config.push_back(std::move(pg));
  di.nccl_version = kNcclVersion;
  w.SetDistributedInfo(di);
  const GpuPhysics ph = PhysicsOf(*h.type);
  std::vector<formats::DeviceProperties> devs;
  for (int g = 0; g < h.type->GpuCount(); ++g) {
    devs.push_back({g, h.type->gpu_model, ph.memory_bytes, ph.cc_major, ph.cc_minor, ph.num_sms});
  }
  w.SetDeviceProperties(devs);
  w.WriteProcessName(pid, "python");
  w.WriteProcessName(gpu, "python");
  w.WriteProcessLabels(gpu, "GPU " + std::to_string(gpu));
  w.WriteThreadName(pid, pid, "python");
  w.WriteThreadName(gpu, kComputeStream, "stream " + std::to_string(kComputeStream));
  w.WriteThreadName(gpu, kNcclStream, "stream " + std::to_string(kNcclStream));

  const std::string device = "gpu" + std::to_string(gpu);
  int64_t corr = 1000 + 100000 * static_cast<int64_t>(first);
  auto ev = [&](int64_t true_start, int64_t true_end, const std::string& name, const char* cat,
                const std::string& dev, int64_t epid, int64_t tid, std::string context) {
    formats::TraceEvent e;
    e.local_ts_ns = clock.LocalNs(true_start);
    e.dur_ns = std::max<int64_t>(0, clock.LocalNs(true_end) - e.local_ts_ns);
    e.host = h.name;
    e.rank = rank;
    e.device = dev;
    e.type = name;
    e.category = cat;
    e.context = std::move(context);
    e.pid = epid;
    e.tid = tid;
    e.phase = 'X';
    w.Write(e);
  };
  for (int it = first; it < last; ++it) {
    const RankSpan& c = span(op(it, 0));
    const RankSpan& o = span(op(it, 4));
    ev(c.start_ns - 300000, o.end_ns, "ProfilerStep#" + std::to_string(it), "user_annotation", "cpu", pid,
       pid, "");
    for (int k = 0; k < 5; ++k) {
      const JobOp& jo = op(it, k);
      const RankSpan& s = span(jo);
      const std::string cs = "corr=" + std::to_string(++corr);
      const bool nccl = jo.kind == OpKind::kSendRecv || jo.kind == OpKind::kAllReduce;
      const int64_t launch = s.start_ns - Ns(rng.Uniform(nccl ? 30e3 : 20e3, nccl ? 80e3 : 200e3));
      const int64_t launch_dur = Ns(rng.Uniform(4e3, 12e3));
      if (nccl) {
        const std::string coll = jo.kind == OpKind::kAllReduce ? "allreduce" : "sendrecv";
        const std::string tail = "pg=0;seq=" + std::to_string(jo.seq);
        ev(launch - 15000, launch - 15000 + Ns(rng.Uniform(6e3, 10e3)), "record_param_comms", "cpu_op", "cpu",
           pid, pid, "coll=" + coll + ";" + tail);
        ev(launch, launch + launch_dur, "cudaLaunchKernel", "cuda_runtime", "cpu", pid, pid, cs);
        ev(s.start_ns, s.end_ns, jo.kernel, "kernel", device, gpu, kNcclStream,
           cs + ";coll=" + coll + ";" + tail);
      } else {
        ev(launch, launch + launch_dur, "cudaLaunchKernel", "cuda_runtime", "cpu", pid, pid, cs);
        ev(s.start_ns, s.end_ns, jo.kind == OpKind::kCompute ? GemmKernel(*h.type) : kOptimizerKernel,
           "kernel", device, gpu, kComputeStream, cs);
      }
    }
  }
  w.Finish();
  return os.str();
}

std::string RenderInspector(const Telemetry& t, const HostModel& h, int gpu, Rng& rng) {
  const HostClock& clock = t.clocks[static_cast<size_t>(h.index)];
  const HostTelemetryPlan& plan = t.plans[static_cast<size_t>(h.index)];
  const int rank = t.job.Rank(h.index, gpu);
  const int n = t.job.world;
  formats::InspectorHeader header;
  header.present = true;
  header.id = "0x" + HexDigits(Rng::Mix(0xC0AAULL, static_cast<uint64_t>(n)), 14);
  header.rank = rank;
  header.n_ranks = n;
  header.nnodes = static_cast<int>(t.plans.size());
  std::vector<formats::InspectorRecord> records;
  int64_t sn_counter = 0;
  for (int it = t.trace_first_iteration; it < t.trace_last_iteration; ++it) {
    for (int k = 2; k <= 3; ++k) {  // the two AllReduces of the iteration
      const JobOp& jo = t.job.ops[static_cast<size_t>(it * 5 + k)];
      const RankSpan& s = jo.ranks[static_cast<size_t>(rank)];
      const int64_t start_us = clock.LocalNs(s.start_ns) / 1000;
      const int64_t stop_us = clock.LocalNs(s.end_ns) / 1000;
      formats::InspectorRecord r;
      r.kind = formats::InspectorKind::kCollPerf;
      r.header = header;
      r.metadata.present = true;
      r.metadata.version = "v4.0";
      r.metadata.git_rev = "5067397c";
      r.metadata.rec_mechanism = "nccl_profiler_interface";
      r.metadata.dump_timestamp_us = clock.LocalNs(s.end_ns + Ns(rng.Uniform(0.1e6, 1e6))) / 1000;
      r.metadata.hostname = h.name;
      r.metadata.pid = t.rank_pid[static_cast<size_t>(rank)];
      r.perf.op = "AllReduce";
      r.perf.sn = jo.seq;
      r.perf.msg_size_bytes = jo.bytes;
      const double exec_us = static_cast<double>(std::max<int64_t>(1, stop_us - start_us));
      r.perf.exec_time_us = exec_us;
      r.perf.timing_source = "kernel_gpu";
      const double algbw = static_cast<double>(jo.bytes) / 1e9 / (exec_us / 1e6);
      r.perf.algobw_gbs = std::round(algbw * 1e6) / 1e6;
      r.perf.busbw_gbs = std::round(algbw * 2.0 * (n - 1) / std::max(1, n) * 1e6) / 1e6;
      if (plan.inspector_verbose) {
        r.perf.has_event_trace = true;
        const int64_t api_us = clock.LocalNs(s.start_ns - Ns(rng.Uniform(30e3, 80e3))) / 1000;
        r.perf.start_sn = ++sn_counter;
        r.perf.stop_sn = ++sn_counter;
        r.perf.start_ts_us = api_us;
        r.perf.stop_ts_us = api_us + 5;
        for (int ch = 0; ch < 2; ++ch) {
          formats::InspectorKernelEvent ke;
          ke.channel_id = ch;
          ke.start_sn = ++sn_counter;
          ke.stop_sn = ++sn_counter;
          ke.record_sn = ke.stop_sn;
          ke.start_ts_us = start_us + ch;
          ke.stop_ts_us = stop_us;
          ke.record_ts_us = stop_us;
          r.perf.kernels.push_back(ke);
        }
      }
      records.push_back(std::move(r));
    }
  }
  return formats::WriteNcclInspector(records);
}

// One `train_step_end` event per rank and iteration: at the end of the optimizer step, lasting the
// whole iteration, on the host's clock.
std::string RenderEvents(const Telemetry& t, const HostModel& h) {
  const HostClock& clock = t.clocks[static_cast<size_t>(h.index)];
  std::vector<formats::TraceEvent> events;
  const int n_iter = static_cast<int>(t.job.iteration_start_ns.size());
  for (int it = 0; it < n_iter; ++it) {
    for (int g = 0; g < h.type->GpuCount(); ++g) {
      const int rank = t.job.Rank(h.index, g);
      const RankSpan& c = t.job.ops[static_cast<size_t>(it * 5)].ranks[static_cast<size_t>(rank)];
      const RankSpan& o = t.job.ops[static_cast<size_t>(it * 5 + 4)].ranks[static_cast<size_t>(rank)];
      formats::TraceEvent e;
      e.local_ts_ns = clock.LocalNs(c.start_ns);
      e.dur_ns = std::max<int64_t>(1, clock.LocalNs(o.end_ns) - e.local_ts_ns);
      e.host = h.name;
      e.rank = rank;
      e.device = "gpu" + std::to_string(g);
      e.type = "train_step";
      e.category = "train";
      e.context = "step=" + std::to_string(it);
      events.push_back(std::move(e));
    }
  }
  return formats::WriteEventJsonl(events);
}

}  // namespace

std::string_view TelemetryFaultKindName(TelemetryFaultKind k) { return NameIn(kFaultKindNames, k, "clock_step"); }

HostTelemetryPlan PlanHostTelemetry(const SimOptions& o, int i) {
  HostTelemetryPlan p;
  const bool ptp = o.clock_profile == "ptp" || (o.clock_profile != "ntp" && (i + i / 4) % 2 == 0);
  p.discipline = ptp ? ClockDiscipline::kPtp : ClockDiscipline::kNtp;
  switch (i % 8) {
    case 3:
      p.dcgm = DcgmOutput::kExporter;
      p.host_label = "Hostname";
      break;
    case 6:
      p.dcgm = DcgmOutput::kExporter;
      p.host_label = "hostname";
      break;
    case 5:
      p.dcgm = DcgmOutput::kCsv;
      break;
    default:
      p.dcgm = DcgmOutput::kDmon;
  }
  p.period_ms = (i % 8 == 2 || i % 8 == 6) ? o.slow_dcgm_period_ms : o.dcgm_period_ms;
  p.sync_csv = i % 4 == 1;
  p.inspector_verbose = i % 2 == 1;
  p.events_jsonl = i % 4 == 3;
  return p;
}

std::optional<TelemetryVolume> ParseTelemetryVolume(std::string_view name) {
  if (name == "auto") return TelemetryVolume::kAuto;
  if (name == "full") return TelemetryVolume::kFull;
  if (name == "compact") return TelemetryVolume::kCompact;
  return std::nullopt;
}

SimOptions WithTelemetryVolume(SimOptions o, TelemetryVolume volume) {
  const bool compact =
      volume == TelemetryVolume::kCompact || (volume == TelemetryVolume::kAuto && o.hosts > kFullTelemetryMaxHosts);
  if (!compact) return o;
  o.telemetry_s = 12;
  o.trace_iterations = 6;
  o.trace_host_every = 32;
  o.duration_s = 60;
  return o;
}

Status ValidateTelemetryOptions(const SimOptions& o) {
  if (!o.with_telemetry) return {};
  const int64_t plan_bytes = JobPlanBytesBound(int64_t{o.hosts} * kMaxGpusPerHost, o.telemetry_s);
  if (plan_bytes > kMaxJobPlanBytes) {
    return MakeKindError(ErrorKind::kUsage,
                         "the job of " + std::to_string(o.hosts) + " hosts over a " + StringPrintf("%g", o.telemetry_s) +
                             " s telemetry window needs up to " + std::to_string(plan_bytes >> 20) +
                             " MiB of job plan (the limit is " + std::to_string(kMaxJobPlanBytes >> 20) + " MiB)",
                         "shorten the telemetry window (--telemetry-volume), simulate fewer hosts, or turn telemetry off");
  }
  if (!(o.duration_s >= 10 && o.duration_s <= 3600)) {
    return MakeKindError(ErrorKind::kUsage, "duration out of range", "use 10..3600 s");
  }
  if (!(o.telemetry_s >= 2 && o.telemetry_s <= o.duration_s)) {
    return MakeKindError(ErrorKind::kUsage, "telemetry window out of range", "use 2 s .. the duration");
  }
  if (o.dcgm_period_ms < 10 || o.dcgm_period_ms > 10000) {
    return MakeKindError(ErrorKind::kUsage, "DCGM period out of range", "use 10..10000 ms");
  }
  if (o.slow_dcgm_period_ms < o.dcgm_period_ms || o.slow_dcgm_period_ms % o.dcgm_period_ms != 0 ||
      o.slow_dcgm_period_ms > 60000) {
    return MakeKindError(ErrorKind::kUsage, "slow DCGM period must be a multiple of the DCGM period",
                         "e.g. 1000 ms with 100 ms");
  }
  if (o.telemetry_s * 1000.0 < o.slow_dcgm_period_ms) {
    return MakeKindError(ErrorKind::kUsage, "telemetry window shorter than one slow DCGM period");
  }
  if (o.trace_iterations < 0 || o.trace_iterations > 1000) {
    return MakeKindError(ErrorKind::kUsage, "trace iterations out of range", "use 0..1000");
  }
  if (o.trace_host_every < 1 || o.trace_host_every > 1000000) {
    return MakeKindError(ErrorKind::kUsage, "trace host stride out of range", "use 1..1000000");
  }
  if (o.clock_checks_per_host < 0 || o.clock_checks_per_host > 100000) {
    return MakeKindError(ErrorKind::kUsage, "clock checks per host out of range", "use 0..100000");
  }
  if (o.start_unix_s < 0 || o.start_unix_s > 4102444800LL) {
    return MakeKindError(ErrorKind::kUsage, "start time out of range", "use seconds since 1970 before 2100");
  }
  return {};
}

namespace {

// A random element of `c` (-1 when empty).
int PickOne(const std::vector<int>& c, Rng& rng) { return c.empty() ? -1 : c[rng.Below(c.size())]; }

// Where the telemetry faults go besides t.thermal and t.straggler_rank: the straggler's factor and
// the clock step's host, time (fraction of the run) and size.
struct FaultPlacement {
  int step_host = -1;
  double step_at = 0, step_ms = 0, straggler_factor = 1.0;
};

// The thermal fault: a GPU and one of its active NVLink links on a fast-sampled dmon NVLink host
// (preferably one without a topology fault); sets t.thermal when one is found.
void PlaceThermalFault(const Cluster& cluster, Rng& frng, Telemetry& t) {
  const SimOptions& o = cluster.options;
  std::vector<int> thermal_c;
  std::vector<int> thermal_pref;
  for (const HostModel& h : cluster.hosts) {
    const HostTelemetryPlan& p = t.plans[static_cast<size_t>(h.index)];
    if (!h.type->HasNvlink() || p.dcgm != DcgmOutput::kDmon || p.period_ms != o.dcgm_period_ms) continue;
    thermal_c.push_back(h.index);
    if (!h.faulty) thermal_pref.push_back(h.index);
  }
  const int th = PickOne(thermal_pref.empty() ? thermal_c : thermal_pref, frng);
  if (th < 0) return;
  const HostModel& h = cluster.hosts[static_cast<size_t>(th)];
  const int gpu = static_cast<int>(frng.Below(static_cast<uint64_t>(h.type->GpuCount())));
  std::vector<int> links;
  for (const NvlinkPort& p : NvlinkPorts(h, gpu)) {
    if (p.active) links.push_back(p.link);
  }
  if (links.empty()) return;
  t.thermal.host = th;
  t.thermal.gpu = gpu;
  t.thermal.link = links[frng.Below(links.size())];
  t.thermal.cool_start_ns = t.job_start_ns + Ns(0.1 * o.telemetry_s * 1e9);
  t.thermal.cool_end_ns = t.job_start_ns + Ns(0.7 * o.telemetry_s * 1e9);
  t.thermal.r_factor = kThermalRFactor;
}

// Places the telemetry faults (with telemetry_faults), all drawn from the fault stream: the
// thermal fault, the straggler on another host, the clock step on a third one.
FaultPlacement PlaceTelemetryFaults(const Cluster& cluster, Telemetry& t) {
  const SimOptions& o = cluster.options;
  const int n_hosts = static_cast<int>(cluster.hosts.size());
  FaultPlacement fp;
  Rng frng(Rng::Mix(o.seed, kTelemetryFaultLabel));
  if (!o.telemetry_faults) return fp;
  PlaceThermalFault(cluster, frng, t);
  std::vector<int> others;
  for (int i = 0; i < n_hosts; ++i) {
    if (i != t.thermal.host) others.push_back(i);
  }
  const int sh = PickOne(others.empty() ? std::vector<int>{0} : others, frng);
  const int sg = static_cast<int>(
      frng.Below(static_cast<uint64_t>(cluster.hosts[static_cast<size_t>(sh)].type->GpuCount())));
  fp.straggler_factor = frng.Uniform(1.25, 1.4);
  t.straggler_rank = sg;
  for (int i = 0; i < sh; ++i) t.straggler_rank += cluster.hosts[static_cast<size_t>(i)].type->GpuCount();
  std::vector<int> rest;
  for (int i : others) {
    if (i != sh) rest.push_back(i);
  }
  fp.step_host = PickOne(rest.empty() ? others : rest, frng);
  if (fp.step_host < 0) fp.step_host = 0;
  fp.step_at = frng.Uniform(0.3, 0.7);
  fp.step_ms = (frng.Uniform() < 0.5 ? -1.0 : 1.0) * frng.Uniform(0.5, 5.0);
  return fp;
}

// Every host's clock (the step host's with its step, recorded as a clock_step fault).
void SimulateClocks(const Cluster& cluster, const FaultPlacement& fp, Telemetry& t) {
  const SimOptions& o = cluster.options;
  for (const HostModel& h : cluster.hosts) {
    const uint64_t hs = Rng::Mix(Rng::Mix(o.seed, kClockStreamLabel), static_cast<uint64_t>(h.index));
    Rng rng(hs);
    ClockParams p =
        DrawClockParams(t.plans[static_cast<size_t>(h.index)].discipline, t.epoch_ns, o.duration_s, rng);
    HostClock clock(p, Rng::Mix(hs, 1));
    if (h.index == fp.step_host) {
      ClockStep st;
      st.true_ns = t.epoch_ns + Ns(fp.step_at * o.duration_s * 1e9);
      st.local_ns = clock.LocalNs(st.true_ns - 1);
      st.step_ns = Ns(fp.step_ms * 1e6);
      p.steps.push_back(st);
      clock = HostClock(p, Rng::Mix(hs, 1));
      char buf[64];
      std::snprintf(buf, sizeof(buf), "clock jumped by %+.3f ms", fp.step_ms);
      t.faults.push_back({TelemetryFaultKind::kClockStep, h.index, -1, -1, st.true_ns, st.true_ns, buf});
    }
    t.clocks.push_back(std::move(clock));
  }
}

// The job and its DCGM physics on the base grid (whole slow periods).
void SimulateJobAndDcgm(const Cluster& cluster, double straggler_factor, Telemetry& t) {
  const SimOptions& o = cluster.options;
  JobOptions jo;
  jo.start_ns = t.job_start_ns;
  jo.end_ns = t.job_end_ns;
  jo.straggler_rank = t.straggler_rank;
  jo.straggler_factor = straggler_factor;
  jo.straggler_from_ns = t.job_start_ns + Ns(0.4 * o.telemetry_s * 1e9);
  Rng jrng(Rng::Mix(o.seed, kJobStreamLabel));
  t.job = PlanJob(cluster, jo, jrng);
  t.grid.start_ns = t.job_start_ns;
  t.grid.step_ns = static_cast<int64_t>(o.dcgm_period_ms) * 1000000;
  t.grid.bins = static_cast<int>(std::llround(o.telemetry_s * 1000.0)) / o.dcgm_period_ms;
  const int slow_m = o.slow_dcgm_period_ms / o.dcgm_period_ms;
  t.grid.bins -= t.grid.bins % slow_m;  // whole slow periods
  // Each rank's counter start, drawn rank after rank as ComputeDcgmBins does; the thermal fault's
  // GPU (the only one drawing more: its counter events) gets its bins here, in its turn.
  Rng drng(Rng::Mix(o.seed, kDcgmStreamLabel));
  const int thermal_rank = t.thermal.host >= 0 ? t.job.Rank(t.thermal.host, t.thermal.gpu) : -1;
  t.dcgm_start.reserve(static_cast<size_t>(t.job.world));
  for (int r = 0; r < t.job.world; ++r) {
    t.dcgm_start.push_back(DrawDcgmCounterStart(drng));
    if (r == thermal_rank) t.thermal_bins = ComputeRankDcgmBins(cluster, t.job, t.grid, t.thermal, r, t.dcgm_start.back(), drng);
  }
}

// The thermal and straggler faults as they came out of the job (when they show), then every fault
// sorted by host and kind.
void RecordJobFaults(double straggler_factor, Telemetry& t) {
  const int n_iter = static_cast<int>(t.job.iteration_start_ns.size());
  if (t.thermal.host >= 0) {
    const auto [a, b] = LinkDownWindow(t.thermal_bins, t.grid);
    if (b > a) {
      double peak = 0;
      for (const DcgmBin& bin : t.thermal_bins) peak = std::max(peak, bin.temp_c);
      char buf[160];
      std::snprintf(buf, sizeof(buf),
                    "cooling degraded (R x%.2f); peak %.1f C; link %d rx share x%.2f while >= 85 C",
                    t.thermal.r_factor, peak, t.thermal.link, kDownLinkShare);
      t.faults.push_back(
          {TelemetryFaultKind::kThermalLinkDownspeed, t.thermal.host, t.thermal.gpu, t.thermal.link, a, b, buf});
    }
  }
  if (t.straggler_rank >= 0 && t.job.straggler_from_iteration >= 0 &&
      t.job.straggler_from_iteration < n_iter) {
    int64_t end = 0;
    for (const JobOp& op : t.job.ops)
      end = std::max(end, op.ranks[static_cast<size_t>(t.straggler_rank)].end_ns);
    char buf[96];
    std::snprintf(buf, sizeof(buf), "compute x%.2f from iteration %d", straggler_factor,
                  t.job.straggler_from_iteration);
    t.faults.push_back({TelemetryFaultKind::kStraggler, t.job.rank_host[static_cast<size_t>(t.straggler_rank)],
                        t.job.rank_gpu[static_cast<size_t>(t.straggler_rank)], -1,
                        t.job.iteration_start_ns[static_cast<size_t>(t.job.straggler_from_iteration)], end,
                        buf});
  }
  std::sort(t.faults.begin(), t.faults.end(), [](const TelemetryFault& a, const TelemetryFault& b) {
    return a.host != b.host ? a.host < b.host : a.kind < b.kind;
  });
}

// The traced iterations: trace_iterations of them, a third before the straggler starts (else in
// the middle of the job).
void PlanTraceWindow(const SimOptions& o, Telemetry& t) {
  const int n_iter = static_cast<int>(t.job.iteration_start_ns.size());
  const int want = std::min(o.trace_iterations, n_iter);
  int first =
      t.job.straggler_from_iteration >= 0 ? t.job.straggler_from_iteration - want / 3 : (n_iter - want) / 2;
  first = std::clamp(first, 0, std::max(0, n_iter - want));
  t.trace_first_iteration = first;
  t.trace_last_iteration = first + want;
}

}  // namespace

std::vector<ClockCheck> HostClockChecks(const Cluster& cluster, const Telemetry& t, const HostModel& h) {
  const SimOptions& o = cluster.options;
  Rng rng(Rng::Mix(Rng::Mix(Rng::Mix(o.seed, kClockStreamLabel), static_cast<uint64_t>(h.index)), 4));
  std::vector<int64_t> at;
  for (int k = 0; k < o.clock_checks_per_host; ++k) {
    at.push_back(t.epoch_ns + static_cast<int64_t>(rng.Below(static_cast<uint64_t>(t.end_ns - t.epoch_ns))));
  }
  std::sort(at.begin(), at.end());
  std::vector<ClockCheck> out;
  out.reserve(at.size());
  for (int64_t g : at) out.push_back({h.index, t.clocks[static_cast<size_t>(h.index)].LocalNs(g), g});
  return out;
}

std::vector<DcgmBin> RankDcgmBins(const Cluster& cluster, const Telemetry& t, int rank) {
  if (t.thermal.host >= 0 && rank == t.job.Rank(t.thermal.host, t.thermal.gpu)) return t.thermal_bins;
  ThermalFault thermal = t.thermal;
  Rng unused(0);  // only the thermal fault's GPU draws counter events
  return ComputeRankDcgmBins(cluster, t.job, t.grid, thermal, rank, t.dcgm_start[static_cast<size_t>(rank)], unused);
}

Telemetry SimulateTelemetry(const Cluster& cluster) {
  const SimOptions& o = cluster.options;
  Telemetry t;
  const int n_hosts = static_cast<int>(cluster.hosts.size());
  t.epoch_ns = o.start_unix_s * 1000000000LL;
  t.end_ns = t.epoch_ns + Ns(o.duration_s * 1e9);
  t.job_start_ns = t.epoch_ns + Ns((o.duration_s - o.telemetry_s) / 2.0 * 1e3) * 1000000;
  t.job_end_ns = t.job_start_ns + Ns(o.telemetry_s * 1e9);
  for (int i = 0; i < n_hosts; ++i) t.plans.push_back(PlanHostTelemetry(o, i));
  const FaultPlacement fp = PlaceTelemetryFaults(cluster, t);
  SimulateClocks(cluster, fp, t);
  SimulateJobAndDcgm(cluster, fp.straggler_factor, t);
  RecordJobFaults(fp.straggler_factor, t);
  PlanTraceWindow(o, t);
  Rng prng(Rng::Mix(o.seed, kTraceStreamLabel));
  for (int r = 0; r < t.job.world; ++r)
    t.rank_pid.push_back(2000 + static_cast<int64_t>(prng.Below(4000000)));
  return t;
}

bool HostTraced(const SimOptions& o, const Telemetry& t, int host) {
  if (t.trace_last_iteration <= t.trace_first_iteration) return false;
  if (o.trace_host_every <= 1 || host % o.trace_host_every == 0) return true;
  return std::any_of(t.faults.begin(), t.faults.end(), [host](const TelemetryFault& f) { return f.host == host; });
}

std::vector<std::string> TelemetryFiles(const Cluster& cluster, const Telemetry& t, const HostModel& h) {
  const HostTelemetryPlan& p = t.plans[static_cast<size_t>(h.index)];
  const std::string dir = h.name + "/";
  std::vector<std::string> out;
  out.push_back(dir + (p.discipline == ClockDiscipline::kNtp ? kChronyFile : kPtpFile));
  if (p.sync_csv) out.push_back(dir + kSyncCsvFile);
  out.push_back(dir + (p.dcgm == DcgmOutput::kDmon       ? kDmonFile
                       : p.dcgm == DcgmOutput::kExporter ? kExporterFile
                                                         : kDcgmCsvFile));
  if (p.events_jsonl) out.push_back(dir + kEventsFile);
  if (HostTraced(cluster.options, t, h.index)) {
    for (int g = 0; g < h.type->GpuCount(); ++g) out.push_back(TraceFileName(h, t.job.Rank(h.index, g), g));
    for (int g = 0; g < h.type->GpuCount(); ++g) {
      out.push_back(InspectorFileName(h, t.rank_pid[static_cast<size_t>(t.job.Rank(h.index, g))]));
    }
  }
  return out;
}

std::vector<RenderedFile> RenderHostTelemetry(const Cluster& cluster, const Telemetry& t, const HostModel& h) {
  std::vector<RenderedFile> out;
  const SimOptions& o = cluster.options;
  const std::vector<std::string> files = TelemetryFiles(cluster, t, h);
  size_t f = 0;
  const HostTelemetryPlan& p = t.plans[static_cast<size_t>(h.index)];
  const HostClock& clock = t.clocks[static_cast<size_t>(h.index)];
  const uint64_t hs = Rng::Mix(Rng::Mix(o.seed, kClockStreamLabel), static_cast<uint64_t>(h.index));
  Rng sync_rng(Rng::Mix(hs, 2));
  if (p.discipline == ClockDiscipline::kNtp) {
    out.push_back({files[f++], formats::WriteChronyTrackingLog(
                                   SimulateChronyTracking(clock, kNtpServer, sync_rng), 32)});
  } else {
    const int64_t pid = 900 + static_cast<int64_t>(sync_rng.Below(3000));
    out.push_back({files[f++], RenderPtp4l(h, SimulatePtp4l(clock, sync_rng), pid)});
  }
  if (p.sync_csv) {
    Rng csv_rng(Rng::Mix(hs, 3));
    out.push_back(
        {files[f++], formats::WriteSyncCsv(SimulateSyncPairs(clock, h.name, 10.0, 100.0, csv_rng))});
  }
  const HostSamples samples = CollectSamples(cluster, t, h);
  switch (p.dcgm) {
    case DcgmOutput::kDmon:
      out.push_back({files[f++], RenderDmon(cluster, t, h, samples)});
      break;
    case DcgmOutput::kExporter:
      out.push_back({files[f++], RenderExporter(cluster, t, h, samples)});
      break;
    case DcgmOutput::kCsv:
      out.push_back({files[f++], RenderDcgmCsv(cluster, t, h, samples)});
      break;
  }
  if (p.events_jsonl) out.push_back({files[f++], RenderEvents(t, h)});
  if (HostTraced(cluster.options, t, h.index)) {
    for (int g = 0; g < h.type->GpuCount(); ++g) {
      std::string text = RenderTrace(cluster, t, h, g);
      if (g % 4 == 1) text = Gzip(text);
      out.push_back({files[f++], std::move(text)});
    }
    Rng irng(Rng::Mix(Rng::Mix(o.seed, kTraceStreamLabel), 0x1F000000ULL + static_cast<uint64_t>(h.index)));
    for (int g = 0; g < h.type->GpuCount(); ++g)
      out.push_back({files[f++], RenderInspector(t, h, g, irng)});
  }
  return out;
}

std::vector<RenderedFile> RenderTelemetry(const Cluster& cluster, const Telemetry& t) {
  std::vector<RenderedFile> out;
  for (const HostModel& h : cluster.hosts) {
    for (RenderedFile& f : RenderHostTelemetry(cluster, t, h)) out.push_back(std::move(f));
  }
  return out;
}

namespace {

// One host's entry of truth.json "traffic_matrix".hosts: the true NVLink bytes per directed GPU pair
// over the DCGM window (`pairs`: the host's (src, dst) -> bytes).
nlohmann::json TrafficMatrixHost(const Cluster& cluster, const Telemetry& t, const HostModel& h,
                                 const std::map<std::pair<int, int>, double>* pairs, double window_s) {
  using nlohmann::json;
  const int n_hosts = static_cast<int>(cluster.hosts.size());
  const auto uh = static_cast<size_t>(h.index);
  const bool nvswitch = uh < t.job.nvswitch_host.size() && t.job.nvswitch_host[uh];
  const int g_count = h.type->GpuCount();
  std::vector<double> tx(static_cast<size_t>(g_count), 0.0), rx(static_cast<size_t>(g_count), 0.0);
  json pj = json::array();
  if (pairs != nullptr) {
    for (const auto& [key, bytes] : *pairs) {
      const auto [src, dst] = key;
      tx[static_cast<size_t>(src)] += bytes;
      rx[static_cast<size_t>(dst)] += bytes;
      json channels = json::array();
      if (nvswitch && dst == (src + g_count - 1) % g_count) {
        const std::vector<int>& entries = t.job.channel_entry_gpu[uh];
        for (int c = 0; c < static_cast<int>(entries.size()); ++c) {
          if (n_hosts > 1 && src == (entries[static_cast<size_t>(c)] + 1) % g_count) continue;
          channels.push_back(c);
        }
      }
      const int rank = t.job.Rank(h.index, src);
      const bool pipeline = dst == src + 1 && static_cast<size_t>(rank) < t.job.sendrecv_nvlink.size() &&
                            t.job.sendrecv_nvlink[static_cast<size_t>(rank)];
      pj.push_back({{"src", src},
                    {"dst", dst},
                    {"bytes", std::round(bytes)},
                    {"bytes_per_s", Round3(bytes / window_s)},
                    {"channels", channels},
                    {"pipeline", pipeline}});
    }
  }
  json txj = json::array(), rxj = json::array();
  for (int g = 0; g < g_count; ++g) {
    txj.push_back(Round3(tx[static_cast<size_t>(g)] / window_s));
    rxj.push_back(Round3(rx[static_cast<size_t>(g)] / window_s));
  }
  return {{"host", h.name},
          {"fabric", nvswitch ? "nvswitch" : "bridge"},
          {"gpus", g_count},
          {"channel_entry_gpus", t.job.channel_entry_gpu[uh]},
          {"tx_bytes_per_s", txj},
          {"rx_bytes_per_s", rxj},
          {"pairs", pj}};
}

// truth.json "traffic_matrix": the window and, per NVLink host, TrafficMatrixHost
// (docs/truth_schema.md).
void WriteTrafficMatrixTruth(const Cluster& cluster, const Telemetry& t, JsonStreamWriter& w, const std::string& key) {
  const int64_t from = t.grid.start_ns;
  const int64_t to = t.grid.start_ns + t.grid.step_ns * t.grid.bins;
  const double window_s = static_cast<double>(to - from) / 1e9;
  const std::vector<std::map<std::pair<int, int>, double>> pairs = NvlinkPairBytes(t.job, from, to);
  w.BeginObject(key);
  w.Value("channels", t.job.channels);
  w.BeginArray("hosts");
  for (const HostModel& h : cluster.hosts) {
    if (!h.type->HasNvlink() || window_s <= 0) continue;
    const auto uh = static_cast<size_t>(h.index);
    w.Element(TrafficMatrixHost(cluster, t, h, uh < pairs.size() ? &pairs[uh] : nullptr, window_s));
  }
  w.End();
  w.Value("window_end_ns", to);
  w.Value("window_s", window_s);
  w.Value("window_start_ns", from);
  w.End();
}

nlohmann::json ClockTruth(const HostModel& h, const ClockParams& p) {
  using nlohmann::json;
  json steps = json::array();
  for (const ClockStep& s : p.steps) {
    steps.push_back({{"local_ns", s.local_ns}, {"global_ns", s.true_ns}, {"step_ns", s.step_ns}});
  }
  return {{"host", h.name},
          {"discipline", ClockDisciplineName(p.discipline)},
          {"offset0_ns", Round3(p.offset0_ns)},
          {"skew_ppm", std::round(p.skew_ppm * 1e6) / 1e6},
          {"aging_ppm_per_s", std::round(p.aging_ppm_per_s * 1e9) / 1e9},
          {"rw_sigma_ppm", p.rw_sigma_ppm},
          {"raw_freq_ppm", Round3(p.raw_freq_ppm)},
          {"sync_interval_s", p.sync_interval_s},
          {"boot_local_ns", p.boot_local_ns},
          {"steps", steps}};
}

nlohmann::json TelemetryFaultsTruth(const Cluster& cluster, const Telemetry& t) {
  using nlohmann::json;
  json faults = json::array();
  for (const TelemetryFault& f : t.faults) {
    const std::string& host = cluster.hosts[static_cast<size_t>(f.host)].name;
    json j = {{"kind", std::string(TelemetryFaultKindName(f.kind))},
              {"host", host},
              {"gpu", f.gpu >= 0 ? GpuName(host, f.gpu) : std::string()},
              {"start_ns", f.start_ns},
              {"end_ns", f.end_ns},
              {"detail", f.detail}};
    if (f.link >= 0) j["link"] = f.link;
    faults.push_back(std::move(j));
  }
  return faults;
}

// truth.json "telemetry": the run and job windows, the periods, the job's size and each host's
// DCGM output format.
nlohmann::json TelemetryWindowTruth(const Cluster& cluster, const Telemetry& t) {
  using nlohmann::json;
  json dcgm_format = json::object();
  for (const HostModel& h : cluster.hosts) {
    const HostTelemetryPlan& p = t.plans[static_cast<size_t>(h.index)];
    dcgm_format[h.name] = p.dcgm == DcgmOutput::kDmon       ? "dcgmi-dmon"
                          : p.dcgm == DcgmOutput::kExporter ? "dcgm-exporter"
                                                            : "dcgm-csv";
  }
  json tel;
  tel["epoch_ns"] = t.epoch_ns;
  tel["end_ns"] = t.end_ns;
  tel["job_start_ns"] = t.job_start_ns;
  tel["job_end_ns"] = t.job_end_ns;
  tel["duration_s"] = cluster.options.duration_s;
  tel["telemetry_s"] = cluster.options.telemetry_s;
  tel["dcgm_period_ms"] = cluster.options.dcgm_period_ms;
  tel["slow_dcgm_period_ms"] = cluster.options.slow_dcgm_period_ms;
  tel["world_size"] = t.job.world;
  tel["iterations"] = t.job.iteration_start_ns.size();
  tel["trace_iterations"] = {t.trace_first_iteration, t.trace_last_iteration};
  tel["dcgm_format"] = std::move(dcgm_format);
  return tel;
}

}  // namespace

void AddTelemetryTruth(const Cluster& cluster, const Telemetry& t, TruthSections* sections) {
  using nlohmann::json;
  const Cluster* c = &cluster;
  const Telemetry* tp = &t;
  (*sections)["clocks"] = [c, tp](JsonStreamWriter& w, const std::string& key) {
    w.BeginArray(key);
    for (const HostModel& h : c->hosts) w.Element(ClockTruth(h, tp->clocks[static_cast<size_t>(h.index)].params()));
    w.End();
  };
  (*sections)["clock_checks"] = [c, tp](JsonStreamWriter& w, const std::string& key) {
    w.BeginArray(key);
    for (const HostModel& h : c->hosts) {
      for (const ClockCheck& k : HostClockChecks(*c, *tp, h)) {
        w.Element({{"host", h.name}, {"local_ns", k.local_ns}, {"global_ns", k.global_ns}});
      }
    }
    w.End();
  };
  (*sections)["telemetry_faults"] = [c, tp](JsonStreamWriter& w, const std::string& key) {
    w.Value(key, TelemetryFaultsTruth(*c, *tp));
  };
  (*sections)["sampling"] = [c, tp](JsonStreamWriter& w, const std::string& key) {
    json sampling = json::object();
    for (const HostModel& h : c->hosts) sampling[h.name] = tp->plans[static_cast<size_t>(h.index)].period_ms;
    w.Value(key, sampling);
  };
  (*sections)["telemetry"] = [c, tp](JsonStreamWriter& w, const std::string& key) {
    w.Value(key, TelemetryWindowTruth(*c, *tp));
  };
  (*sections)["traffic_matrix"] = [c, tp](JsonStreamWriter& w, const std::string& key) {
    WriteTrafficMatrixTruth(*c, *tp, w, key);
  };
}

std::string Gzip(std::string_view data) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(data.size())) + 64);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return {};
  return out;
}

}  // namespace toposcope::sim
