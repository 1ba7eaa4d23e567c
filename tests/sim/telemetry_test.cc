// Tests of the simulator's second part: clocks and their sync logs, the training job's DCGM
// samples, traces and NCCL Inspector records, the telemetry faults and the telemetry truth. The
// written files are read back through the formats readers.
#include "toposcope/sim/telemetry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/names.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/trace/chrome_trace.h"
#include "toposcope/formats/clock/chrony.h"
#include "toposcope/formats/dcgm/dcgm_csv.h"
#include "toposcope/formats/dcgm/dcgm_dmon.h"
#include "toposcope/formats/trace/event_jsonl.h"
#include "toposcope/formats/clock/linuxptp.h"
#include "toposcope/formats/nccl/nccl_inspector.h"
#include "toposcope/formats/dcgm/prometheus_text.h"
#include "toposcope/formats/clock/sync_csv.h"
#include "toposcope/sim/clocks.h"
#include "toposcope/sim/simulate.h"
#include "toposcope/sim/traffic.h"
#include "temp_dir.h"

namespace toposcope::sim {
namespace telemetry_test {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ReadAll(const std::string& path) {
  Result<std::string> text = ReadFileText(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? *text : std::string();
}

std::string ReadRaw(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return {};
  std::string s;
  char buf[65536];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

std::vector<std::string> ListFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A small, fast telemetry configuration.
SimOptions SmallOptions(uint64_t seed, int hosts) {
  SimOptions o;
  o.seed = seed;
  o.hosts = hosts;
  o.faults = 2;
  o.with_telemetry = true;
  o.duration_s = 120;
  o.telemetry_s = 40;
  o.trace_iterations = 12;
  o.clock_checks_per_host = 100;
  return o;
}

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// ---- The clock model ----

TEST(Clocks, ModelTermsStepsAndInverse) {
  ClockParams p;
  p.epoch_ns = int64_t{1714564800} * 1000000000;
  p.duration_s = 100;
  p.offset0_ns = 50000;
  p.skew_ppm = 0.5;
  p.aging_ppm_per_s = 1e-3;
  p.rw_sigma_ppm = 0;
  p.boot_local_ns = p.epoch_ns - int64_t{3600} * 1000000000;
  p.steps.push_back({p.epoch_ns + int64_t{50} * 1000000000, 0, 2000000});
  HostClock c(p, 1);
  EXPECT_DOUBLE_EQ(c.OffsetNs(p.epoch_ns), 50000.0);
  // 10 s: 0.5 ppm -> 5 us, aging 0.5 * 1e-3 ppm/s * 100 s^2 = 0.05 ppm s = 50 ns.
  EXPECT_NEAR(c.OffsetNs(p.epoch_ns + int64_t{10} * 1000000000), 50000.0 + 5000.0 + 50.0, 1e-6);
  EXPECT_NEAR(c.FreqPpm(p.epoch_ns + int64_t{10} * 1000000000), 0.5 + 0.01, 1e-12);
  // The step: +2 ms in realtime, none in monotonic.
  const int64_t before = p.epoch_ns + int64_t{50} * 1000000000 - 1;
  const int64_t after = before + 2;
  EXPECT_NEAR(static_cast<double>(c.LocalNs(after) - c.LocalNs(before)), 2000002.0, 2.0);
  EXPECT_NEAR(static_cast<double>(c.MonotonicNs(after) - c.MonotonicNs(before)), 2.0, 2.0);
  EXPECT_EQ(c.MonotonicNs(p.epoch_ns), c.LocalNs(p.epoch_ns) - p.boot_local_ns);
  for (int64_t s : {1, 20, 49, 70, 99}) {
    const int64_t t = p.epoch_ns + s * 1000000000 + 123456;
    EXPECT_EQ(c.TrueNsAt(c.LocalNs(t)), t) << s;
  }
}

TEST(Clocks, RandomWalkIsContinuousAndSeeded) {
  Rng rng(7);
  const int64_t epoch = int64_t{1714564800} * 1000000000;
  const ClockParams p = DrawClockParams(ClockDiscipline::kNtp, epoch, 60, rng);
  const HostClock a(p, 99);
  const HostClock b(p, 99);
  const HostClock c(p, 100);
  double max_jump = 0;
  bool differs = false;
  for (int64_t t = epoch; t < epoch + int64_t{60} * 1000000000; t += 250000000) {
    EXPECT_EQ(a.OffsetNs(t), b.OffsetNs(t));
    differs = differs || a.OffsetNs(t) != c.OffsetNs(t);
    max_jump = std::max(max_jump, std::abs(a.OffsetNs(t + 1000) - a.OffsetNs(t)));
  }
  EXPECT_TRUE(differs);
  EXPECT_LT(max_jump, 10.0);  // 1 us apart: nothing like a step
  // Disciplined ranges.
  EXPECT_GE(std::abs(p.offset0_ns), 10e3);
  EXPECT_LE(std::abs(p.offset0_ns), 100e3);
  EXPECT_GE(std::abs(p.skew_ppm), 0.01);
  EXPECT_LE(std::abs(p.skew_ppm), 1.0);
}

TEST(Clocks, SyncRecordsMeasureTheModel) {
  const int64_t epoch = int64_t{1714564800} * 1000000000;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Rng rng(seed);
    const ClockParams pn = DrawClockParams(ClockDiscipline::kNtp, epoch, 600, rng);
    const HostClock ntp(pn, seed);
    const auto tracking = SimulateChronyTracking(ntp, "10.0.0.1", rng);
    ASSERT_GT(tracking.size(), 5u);
    for (const auto& r : tracking) {
      const int64_t t = ntp.TrueNsAt(r.time_ns);
      EXPECT_EQ(ntp.LocalNs(t), r.time_ns);
      EXPECT_EQ(r.time_ns % 1000000000, 0);
      const double err = r.offset_s * 1e9 - ntp.OffsetNs(t);
      EXPECT_LE(std::abs(err), 6.0 * r.offset_sd_s * 1e9) << r.offset_s;
    }
    const ClockParams pp = DrawClockParams(ClockDiscipline::kPtp, epoch, 120, rng);
    const HostClock ptp(pp, seed);
    const auto samples = SimulatePtp4l(ptp, rng);
    ASSERT_GT(samples.size(), 100u);
    std::vector<double> errs;
    for (const auto& s : samples)
      errs.push_back(std::abs(static_cast<double>(s.offset_ns) - ptp.OffsetNs(s.true_ns)));
    EXPECT_LT(Median(errs), 3.0 * pp.meas_sigma_ns);
    for (const auto& s : samples) EXPECT_LT(std::abs(ptp.OffsetNs(s.true_ns)), 5000.0);  // PTP grade
  }
}

// ---- Whole runs ----

TEST(Telemetry, DeterministicAndSeedSensitive) {
  TempDir a("det_a");
  TempDir b("det_b");
  TempDir c("det_c");
  const SimOptions o = SmallOptions(42, 8);
  ASSERT_TRUE(Simulate(o, a.str()).ok());
  ASSERT_TRUE(Simulate(o, b.str()).ok());
  const auto fa = ListFiles(a.str());
  ASSERT_EQ(fa, ListFiles(b.str()));
  EXPECT_GT(fa.size(), 8u * 3u + 1u + 8u * 3u);
  for (const auto& f : fa) EXPECT_EQ(ReadRaw(a.str() + "/" + f), ReadRaw(b.str() + "/" + f)) << f;
  SimOptions o2 = o;
  o2.seed = 43;
  ASSERT_TRUE(Simulate(o2, c.str()).ok());
  int differing = 0;
  for (const auto& f : fa) differing += ReadRaw(a.str() + "/" + f) != ReadRaw(c.str() + "/" + f);
  EXPECT_GT(differing, static_cast<int>(fa.size()) / 2);
}

TEST(Telemetry, InvalidOptionsAreErrors) {
  TempDir d("invalid");
  SimOptions o = SmallOptions(1, 2);
  o.slow_dcgm_period_ms = 150;
  EXPECT_FALSE(Simulate(o, d.str()).ok());
  o = SmallOptions(1, 2);
  o.telemetry_s = 1000;
  EXPECT_FALSE(Simulate(o, d.str()).ok());
  o = SmallOptions(1, 2);
  o.dcgm_period_ms = 0;
  EXPECT_FALSE(Simulate(o, d.str()).ok());
  // No host limit, but the job plan held while rendering is capped: an hour-long window over
  // 100,000 hosts is refused, the compact volume over 12,500 hosts (100,000 GPUs) is not.
  o = SmallOptions(1, 100000);
  o.duration_s = 3600;
  o.telemetry_s = 3600;
  const Status big = ValidateTelemetryOptions(o);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("MiB of job plan"), std::string::npos) << big.error().message;
  o.with_telemetry = false;  // the limits apply to telemetry only
  EXPECT_TRUE(ValidateTelemetryOptions(o).ok());
  o = SmallOptions(1, 12500);
  EXPECT_TRUE(ValidateTelemetryOptions(WithTelemetryVolume(o, TelemetryVolume::kAuto)).ok());
  EXPECT_EQ(WithTelemetryVolume(o, TelemetryVolume::kAuto).telemetry_s, 12);
  o.hosts = 512;
  EXPECT_EQ(WithTelemetryVolume(o, TelemetryVolume::kAuto).telemetry_s, 40);  // full: as given
}

// Everything one run wrote, parsed back.
struct Parsed {
  json truth;
  std::map<std::string, std::vector<formats::SyncPoint>> sync;             // host -> points on the ref axis
  std::map<std::string, formats::DmonLog> dmon;                            // host -> rows
  std::map<std::string, std::vector<formats::TraceEvent>> kernels;         // "host/gpuN" -> NCCL kernels
  std::map<std::string, std::vector<formats::InspectorRecord>> inspector;  // host -> records
  std::map<std::string, size_t> events;                                    // host -> JSONL events
  int64_t files = 0;
};

void ExpectClean(const Diagnostics& diag, const ReadCounts& counts, const std::string& path) {
  EXPECT_TRUE(counts.Balanced()) << path;
  EXPECT_GT(counts.read, 0) << path;
  EXPECT_EQ(counts.rejected, 0) << path << (diag.items().empty() ? "" : ": " + diag.items()[0].ToString());
}

void ParseRun(const std::string& dir, Parsed& p) {
  p.truth = json::parse(ReadAll(dir + "/truth.json"));
  for (const auto& h : p.truth["hosts"]) {
    const std::string host = h["name"];
    for (const auto& fj : h["telemetry_files"]) {
      const std::string rel = fj;
      const std::string path = dir + "/" + rel;
      ++p.files;
      Diagnostics diag;
      ReadCounts counts;
      if (rel.ends_with("chrony-tracking.log")) {
        auto log = formats::ParseChronyLog(ReadAll(path), path, host, diag, counts);
        ASSERT_TRUE(log.ok()) << path;
        EXPECT_EQ(log->kind, formats::ChronyLogKind::kTracking);
        for (auto sp : log->sync_points) p.sync[host].push_back(sp);
      } else if (rel.ends_with("ptp4l.log")) {
        auto log = formats::ParsePtpLog(ReadAll(path), path, host, diag, counts);
        ASSERT_TRUE(log.ok()) << path;
        for (const auto& r : log->records) {
          EXPECT_EQ(r.kind, formats::PtpLineKind::kMasterOffset) << r.message;
          EXPECT_EQ(r.host, host);
          EXPECT_EQ(r.program, "ptp4l");
          const auto realtime = ParseIsoTimeNs(r.syslog_time);
          ASSERT_TRUE(realtime.has_value()) << r.syslog_time;
          // The journal's realtime places the sample on the host's clock; ref = local - offset.
          formats::SyncPoint sp;
          sp.host = host;
          sp.local_ns = *realtime;
          sp.offset_ns = static_cast<double>(r.offset_ns);
          sp.ref_ns = *realtime - r.offset_ns;
          sp.source = "ptp4l";
          p.sync[host].push_back(sp);
        }
        EXPECT_EQ(log->sync_points.size(), log->records.size());
      } else if (rel.ends_with("sync-pairs.csv")) {
        auto pts = formats::ParseSyncCsv(ReadAll(path), path, diag, counts);
        ASSERT_TRUE(pts.ok()) << path;
        for (const auto& sp : *pts) {
          EXPECT_EQ(sp.host, host);
          p.sync[host + "#csv"].push_back(sp);
        }
      } else if (rel.ends_with("dcgm-dmon.txt")) {
        formats::DmonOptions opt;
        opt.host = host;
        auto log = formats::ParseDmonText(ReadAll(path), path, opt, diag, counts);
        ASSERT_TRUE(log.ok()) << path;
        EXPECT_EQ(log->summary.timestamp_style, formats::DmonTimestampStyle::kIso);
        for (const auto& r : log->rows) EXPECT_NE(r.ts_ns, kNoTime);
        p.dmon[host] = std::move(*log);
      } else if (rel.ends_with("dcgm-exporter.prom")) {
        auto prom = formats::ParsePromText(ReadAll(path), path, diag, counts);
        ASSERT_TRUE(prom.ok()) << path;
        EXPECT_EQ(prom->summary.with_timestamp, prom->summary.samples);
        EXPECT_GT(prom->summary.scrapes, 10);
        for (const auto& s : prom->samples) {
          const auto d = formats::ToDcgmSample(s);
          EXPECT_EQ(d.host, host);
          EXPECT_GE(d.gpu, 0);
        }
      } else if (rel.ends_with("dcgm-samples.csv")) {
        auto csv = formats::ParseDcgmCsv(ReadAll(path), path, diag, counts);
        ASSERT_TRUE(csv.ok()) << path;
        EXPECT_EQ(csv->summary.layout, formats::DcgmCsvLayout::kLong);
        for (const auto& s : csv->samples) EXPECT_EQ(s.host, host);
      } else if (rel.ends_with("train-events.jsonl")) {
        const auto events = formats::ParseEventJsonl(ReadAll(path), path, diag, counts);
        EXPECT_FALSE(events.empty());
        for (const auto& e : events) {
          EXPECT_EQ(e.host, host);
          EXPECT_EQ(e.type, "train_step");
          EXPECT_GT(e.dur_ns, 200000000);
        }
        p.events[host] = events.size();
      } else if (rel.find("/trace/") != std::string::npos) {
        formats::ChromeTraceOptions opt;
        std::vector<formats::TraceEvent> events;
        auto info = formats::ReadChromeTraceFile(
            path, opt, [&](formats::TraceEvent&& e) { events.push_back(std::move(e)); }, diag, counts);
        ASSERT_TRUE(info.ok()) << path;
        EXPECT_TRUE(info->has_base_time);
        EXPECT_TRUE(info->distributed.present);
        EXPECT_EQ(info->distributed.world_size, p.truth["telemetry"]["world_size"].get<int>());
        EXPECT_EQ(rel.ends_with(".gz"), ReadRaw(path).starts_with("\x1f\x8b"));
        for (auto& e : events) {
          if (e.category != "kernel" || !e.type.starts_with("ncclDevKernel_")) continue;
          EXPECT_EQ(e.rank, info->distributed.rank);
          p.kernels[host + "/" + e.device].push_back(std::move(e));
        }
      } else if (rel.find("/nccl-inspector/") != std::string::npos) {
        auto recs = formats::ParseNcclInspector(ReadAll(path), path, diag, counts);
        ASSERT_TRUE(recs.ok()) << path;
        for (auto& r : *recs) {
          EXPECT_EQ(r.metadata.hostname, host);
          p.inspector[host].push_back(std::move(r));
        }
      } else {
        ADD_FAILURE() << "unexpected file " << rel;
        continue;
      }
      ExpectClean(diag, counts, path);
    }
  }
}

TEST(Telemetry, FilesParseBackWithoutRejects) {
  TempDir d("parse");
  const SimOptions o = SmallOptions(11, 8);
  auto s = Simulate(o, d.str());
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  Parsed p;
  ParseRun(d.str(), p);
  EXPECT_GT(p.files, 8 * 10);
  // Every file the summary lists exists, and every file on disk is listed.
  std::set<std::string> listed = {"truth.json"};
  for (const auto& h : s->hosts) listed.insert(h.files.begin(), h.files.end());
  const auto on_disk = ListFiles(d.str());
  EXPECT_EQ(std::set<std::string>(on_disk.begin(), on_disk.end()), listed);
  // Each reader was exercised.
  std::set<std::string> formats;
  for (const auto& [host, fmt] : p.truth["telemetry"]["dcgm_format"].items())
    formats.insert(fmt.get<std::string>());
  EXPECT_EQ(formats, (std::set<std::string>{"dcgmi-dmon", "dcgm-exporter", "dcgm-csv"}));
  EXPECT_EQ(p.events.size(), 2u);  // hosts 3 and 7
  std::set<std::string> disciplines;
  for (const auto& c : p.truth["clocks"]) disciplines.insert(c["discipline"].get<std::string>());
  EXPECT_EQ(disciplines, (std::set<std::string>{"ptp", "ntp"}));
  // dmon rows: 8 GPUs per sample, the sampling period as the truth says.
  for (const auto& [host, log] : p.dmon) {
    ASSERT_FALSE(log.rows.empty());
    EXPECT_EQ(log.rows.size() % 8, 0u);
    const int period = p.truth["sampling"][host];
    const int64_t span = log.rows.back().ts_ns - log.rows.front().ts_ns;
    const double per = static_cast<double>(span) / static_cast<double>(log.rows.size() / 8 - 1) / 1e6;
    EXPECT_NEAR(per, period, 1.0) << host;
  }
  // Sampling: both periods present.
  std::set<int> periods;
  for (const auto& [host, v] : p.truth["sampling"].items()) periods.insert(v.get<int>());
  EXPECT_EQ(periods, (std::set<int>{100, 1000}));
}

// Piecewise-linear interpolation of offset(ref) through sync points, at global time g.
double InterpolateOffset(const std::vector<formats::SyncPoint>& pts, int64_t g) {
  auto it = std::lower_bound(pts.begin(), pts.end(), g,
                             [](const formats::SyncPoint& p, int64_t v) { return p.ref_ns < v; });
  if (it == pts.begin()) return it->offset_ns;
  if (it == pts.end()) return pts.back().offset_ns;
  const auto& b = *it;
  const auto& a = *(it - 1);
  const double w =
      static_cast<double>(g - a.ref_ns) / static_cast<double>(std::max<int64_t>(1, b.ref_ns - a.ref_ns));
  return a.offset_ns + w * (b.offset_ns - a.offset_ns);
}

TEST(Telemetry, CheckInstantsMatchWhatSyncRecordsImply) {
  TempDir d("clocks");
  SimOptions o = SmallOptions(5, 8);
  o.duration_s = 240;
  ASSERT_TRUE(Simulate(o, d.str()).ok());
  Parsed p;
  ParseRun(d.str(), p);
  std::map<std::string, const json*> clock_of;
  for (const auto& c : p.truth["clocks"]) clock_of[c["host"]] = &c;
  std::map<std::string, std::vector<const json*>> checks;
  for (const auto& c : p.truth["clock_checks"]) checks[c["host"]].push_back(&c);
  ASSERT_EQ(checks.size(), 8u);
  int step_hosts = 0;
  for (auto& [key, pts] : p.sync) {
    const std::string host = key.substr(0, key.find('#'));
    std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.ref_ns < b.ref_ns; });
    const json& clock = *clock_of.at(host);
    const bool ptp = clock["discipline"] == "ptp" && key == host;
    std::vector<int64_t> step_at;
    for (const auto& s : clock["steps"]) step_at.push_back(s["global_ns"].get<int64_t>());
    step_hosts += !step_at.empty() && key == host;
    const double interval_ns = key == host ? clock["sync_interval_s"].get<double>() * 1e9 : 10e9;
    std::vector<double> errs;
    for (const json* c : checks.at(host)) {
      const int64_t g = (*c)["global_ns"];
      const int64_t l = (*c)["local_ns"];
      bool near_step = false;
      for (int64_t s : step_at)
        near_step = near_step || std::abs(static_cast<double>(g - s)) < 2 * interval_ns;
      if (near_step) continue;
      errs.push_back(std::abs(InterpolateOffset(pts, g) - static_cast<double>(l - g)));
    }
    ASSERT_GT(errs.size(), 50u) << key;
    std::sort(errs.begin(), errs.end());
    const double med = errs[errs.size() / 2];
    const double p90 = errs[errs.size() * 9 / 10];
    if (key != host) {  // the sync CSV: 100 ns read noise every 10 s
      EXPECT_LT(med, 1000.0) << key;
    } else if (ptp) {
      EXPECT_LT(med, 100.0) << key;
      EXPECT_LT(p90, 500.0) << key;
    } else {  // NTP: a few us of noise, drift between 16-64 s updates
      EXPECT_LT(med, 20000.0) << key;
    }
  }
  EXPECT_EQ(step_hosts, 1);
}

TEST(Telemetry, ThermalLinkDownspeedIsVisible) {
  TempDir d("thermal");
  SimOptions o = SmallOptions(3, 8);
  o.telemetry_s = 60;
  ASSERT_TRUE(Simulate(o, d.str()).ok());
  Parsed p;
  ParseRun(d.str(), p);
  const json* fault = nullptr;
  for (const auto& f : p.truth["telemetry_faults"]) {
    if (f["kind"] == "thermal_link_downspeed") fault = &f;
  }
  ASSERT_NE(fault, nullptr) << p.truth["telemetry_faults"].dump();
  const std::string host = (*fault)["host"];
  const auto gpu = ParseGpuName((*fault)["gpu"].get<std::string>());
  ASSERT_TRUE(gpu.has_value());
  const int link = (*fault)["link"];
  ASSERT_TRUE(p.dmon.count(host));
  const auto& log = p.dmon.at(host);
  const auto& fields = log.summary.header.fields;
  auto col = [&](int id) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].field_id == id) return static_cast<int>(i);
    }
    return -1;
  };
  const int temp = col(150), crc = col(409), down = col(1041 + 2 * link);
  ASSERT_GE(temp, 0);
  ASSERT_GE(crc, 0);
  ASSERT_GE(down, 0);
  std::vector<int> others;
  for (int l = 0; l < 18; ++l) {
    if (l != link && col(1041 + 2 * l) >= 0) others.push_back(col(1041 + 2 * l));
  }
  ASSERT_FALSE(others.empty());
  // The window is in true time; local clocks are within a few ms of it.
  const int64_t a = (*fault)["start_ns"], b = (*fault)["end_ns"];
  std::vector<double> ratio_in, ratio_out, temp_in, temp_out, crc_in, crc_before;
  for (const auto& r : log.rows) {
    if (r.entity.id != gpu->index || std::isnan(r.values[static_cast<size_t>(down)])) continue;
    double other = 0;
    int n = 0;
    for (int c : others) {
      if (r.values[static_cast<size_t>(c)] > 0) {
        other += r.values[static_cast<size_t>(c)];
        ++n;
      }
    }
    const bool inside = r.ts_ns > a + 300000000 && r.ts_ns < b - 300000000;
    const bool outside = r.ts_ns < a - 300000000 || r.ts_ns > b + 5000000000;
    if (n > 0 && other > 1e6) {
      const double ratio = r.values[static_cast<size_t>(down)] / (other / n);
      if (inside) ratio_in.push_back(ratio);
      if (outside) ratio_out.push_back(ratio);
    }
    if (inside) {
      temp_in.push_back(r.values[static_cast<size_t>(temp)]);
      crc_in.push_back(r.values[static_cast<size_t>(crc)]);
    }
    if (r.ts_ns < a - 300000000) {
      temp_out.push_back(r.values[static_cast<size_t>(temp)]);
      crc_before.push_back(r.values[static_cast<size_t>(crc)]);
    }
  }
  ASSERT_GT(ratio_in.size(), 20u);
  ASSERT_GT(ratio_out.size(), 20u);
  EXPECT_LE(Median(ratio_in), 0.6 * Median(ratio_out)) << Median(ratio_in) << " vs " << Median(ratio_out);
  EXPECT_GE(*std::min_element(temp_in.begin(), temp_in.end()), 84.0);
  EXPECT_LT(Median(temp_out), 80.0);
  EXPECT_GT(crc_in.back(), crc_before.back() + 10);
}

TEST(Telemetry, StragglerIsVisibleInTraces) {
  TempDir d("straggler");
  SimOptions o = SmallOptions(9, 8);
  o.trace_iterations = 15;
  ASSERT_TRUE(Simulate(o, d.str()).ok());
  Parsed p;
  ParseRun(d.str(), p);
  const json* fault = nullptr;
  for (const auto& f : p.truth["telemetry_faults"]) {
    if (f["kind"] == "straggler") fault = &f;
  }
  ASSERT_NE(fault, nullptr);
  const std::string slow = (*fault)["gpu"];
  const auto ref = ParseGpuName(slow);
  ASSERT_TRUE(ref.has_value());
  const std::string slow_key = ref->host + "/gpu" + std::to_string(ref->index);
  ASSERT_TRUE(p.kernels.count(slow_key)) << slow_key;
  // Big AllReduce kernels by seq: the straggler's starts late, so it waits less than the others.
  auto big = [](const std::vector<formats::TraceEvent>& ev) {
    std::map<int64_t, const formats::TraceEvent*> out;
    for (const auto& e : ev) {
      if (e.type.find("AllReduce_Sum_f32_RING_SIMPLE") != std::string::npos) {
        out[std::stoll(formats::ContextValue(e.context, "seq"))] = &e;
      }
    }
    return out;
  };
  const auto mine = big(p.kernels.at(slow_key));
  ASSERT_GT(mine.size(), 5u);
  const int64_t start = (*fault)["start_ns"];
  int late = 0, waited = 0, compared = 0;
  for (const auto& [key, ev] : p.kernels) {
    if (key == slow_key) continue;
    for (const auto& [seq, e] : big(ev)) {
      const auto it = mine.find(seq);
      if (it == mine.end()) continue;
      // After the straggler started (local clocks are within ms of true time).
      if (it->second->local_ts_ns < start + 1000000000) continue;
      ++compared;
      // 25 % of 240 ms = 60 ms later; clocks differ by far less.
      late += it->second->local_ts_ns > e->local_ts_ns + 40000000;
      waited += e->dur_ns > it->second->dur_ns + 40000000;  // the others wait for it
    }
  }
  // Its ring neighbours wait in SendRecv instead, and start the AllReduce late too.
  ASSERT_GT(compared, 20);
  EXPECT_GT(late, compared * 8 / 10);
  EXPECT_GT(waited, compared * 8 / 10);
  // Inspector records carry the same collectives (sequence numbers) as the traces.
  std::set<int64_t> seqs;
  for (const auto& r : p.inspector.at(ref->host)) seqs.insert(r.perf.sn);
  for (const auto& [seq, e] : mine) EXPECT_TRUE(seqs.count(seq)) << seq;
}

TEST(Telemetry, CollectiveEndsAreSimultaneousInTrueTime) {
  // Straight from the model: every AllReduce ends on all ranks within 2 us of true time.
  SimOptions o = SmallOptions(4, 4);
  auto cluster = BuildCluster(o);
  ASSERT_TRUE(cluster.ok());
  const Telemetry t = SimulateTelemetry(*cluster);
  ASSERT_GT(t.job.ops.size(), 20u);
  for (const JobOp& op : t.job.ops) {
    if (op.kind != OpKind::kAllReduce) continue;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const RankSpan& s : op.ranks) {
      lo = std::min(lo, s.end_ns);
      hi = std::max(hi, s.end_ns);
      EXPECT_LE(s.start_ns, s.xfer_ns);
      EXPECT_LT(s.xfer_ns, s.end_ns);
    }
    EXPECT_LE(hi - lo, 2000);
  }
}

TEST(Telemetry, StragglerLowersTheOthersSmActivity) {
  SimOptions o = SmallOptions(9, 8);
  auto cluster = BuildCluster(o);
  ASSERT_TRUE(cluster.ok());
  const Telemetry t = SimulateTelemetry(*cluster);
  ASSERT_GE(t.straggler_rank, 0);
  ASSERT_GT(t.job.straggler_from_iteration, 2);
  const int64_t from = t.job.iteration_start_ns[static_cast<size_t>(t.job.straggler_from_iteration)];
  auto mean_sm = [&](int rank, bool after) {
    const std::vector<DcgmBin> bins = RankDcgmBins(*cluster, t, rank);
    double sum = 0;
    int n = 0;
    for (int k = 0; k < t.grid.bins; ++k) {
      const int64_t end = t.grid.start_ns + (k + 1) * t.grid.step_ns;
      if (after ? end < from + 2000000000 : end > from) continue;
      sum += bins[static_cast<size_t>(k)].sm;
      ++n;
    }
    return n > 0 ? sum / n : NAN;
  };
  double before = 0, after = 0;
  int others = 0;
  for (int r = 0; r < t.job.world; ++r) {
    if (r == t.straggler_rank) continue;
    before += mean_sm(r, false);
    after += mean_sm(r, true);
    ++others;
  }
  before /= others;
  after /= others;
  EXPECT_LT(after, before * 0.95) << before << " -> " << after;
  EXPECT_GT(mean_sm(t.straggler_rank, true), after * 1.1);
}

// Rendering streams host by host: each rank's bins computed alone (RankDcgmBins) are the bins of
// the whole-job computation, the thermal fault's GPU (the one drawing counter events) included.
TEST(Telemetry, RankBinsEqualTheWholeJobsBins) {
  SimOptions o = SmallOptions(5, 8);
  auto cluster = BuildCluster(o);
  ASSERT_TRUE(cluster.ok());
  const Telemetry t = SimulateTelemetry(*cluster);
  ASSERT_GE(t.thermal.host, 0);
  ThermalFault thermal = t.thermal;
  thermal.r_factor = 1.8;  // as SimulateTelemetry placed it, before the bins raise it
  Rng drng(Rng::Mix(o.seed, 0xDC6A5EEDULL));  // the DCGM stream (telemetry.cc kDcgmStreamLabel)
  const std::vector<std::vector<DcgmBin>> whole = ComputeDcgmBins(*cluster, t.job, t.grid, thermal, drng);
  EXPECT_DOUBLE_EQ(thermal.r_factor, t.thermal.r_factor);
  ASSERT_EQ(static_cast<int>(whole.size()), t.job.world);
  int counted = 0;
  for (int r = 0; r < t.job.world; ++r) {
    const std::vector<DcgmBin> one = RankDcgmBins(*cluster, t, r);
    ASSERT_EQ(one.size(), whole[static_cast<size_t>(r)].size());
    for (size_t k = 0; k < one.size(); ++k) {
      const DcgmBin& a = one[k];
      const DcgmBin& b = whole[static_cast<size_t>(r)][k];
      ASSERT_EQ(a.sm, b.sm) << "rank " << r << " bin " << k;
      ASSERT_EQ(a.temp_c, b.temp_c);
      ASSERT_EQ(a.nvl_rx, b.nvl_rx);
      ASSERT_EQ(a.crc_flit_total, b.crc_flit_total);
      ASSERT_EQ(a.replay_total, b.replay_total);
      ASSERT_EQ(a.link_down, b.link_down);
      counted += a.link_down ? 1 : 0;
    }
  }
  EXPECT_GT(counted, 0);  // the thermal fault's link went down: its counter events were drawn
}

TEST(Telemetry, SmallAndUnusualConfigurations) {
  for (const char* type : {"h100-nvswitch", "a100-nvswitch", "pcie-bridge", "pcie-only"}) {
    TempDir d(std::string("one_") + type);
    SimOptions o = SmallOptions(2, 1);
    o.node_types = {type};
    o.duration_s = 20;
    o.telemetry_s = 4;
    o.dcgm_period_ms = 50;
    o.slow_dcgm_period_ms = 1000;
    auto s = Simulate(o, d.str());
    ASSERT_TRUE(s.ok()) << type << ": " << s.error().ToString();
    Parsed p;
    ParseRun(d.str(), p);
    EXPECT_EQ(p.truth["telemetry"]["world_size"], 8);
  }
  TempDir d("no_traces");
  SimOptions o = SmallOptions(3, 3);
  o.trace_iterations = 0;
  o.telemetry_faults = false;
  o.clock_checks_per_host = 0;
  auto s = Simulate(o, d.str());
  ASSERT_TRUE(s.ok());
  Parsed p;
  ParseRun(d.str(), p);
  EXPECT_TRUE(p.truth["telemetry_faults"].empty());
  EXPECT_TRUE(p.truth["clock_checks"].empty());
  EXPECT_TRUE(p.kernels.empty());
  for (const auto& c : p.truth["clocks"]) EXPECT_TRUE(c["steps"].empty());
}

TEST(Telemetry, DefaultClusterSizeAndTime) {
  TempDir d("size");
  SimOptions o;
  o.with_telemetry = true;
  const auto t0 = std::chrono::steady_clock::now();
  auto s = Simulate(o, d.str());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  uintmax_t total = 0;
  std::map<std::string, uintmax_t> by_kind;
  for (const auto& e : fs::recursive_directory_iterator(d.str())) {
    if (!e.is_regular_file()) continue;
    total += e.file_size();
    std::string name = e.path().filename().string();
    if (e.path().parent_path().filename() == "trace") name = "trace";
    if (e.path().parent_path().filename() == "nccl-inspector") name = "nccl-inspector";
    by_kind[name] += e.file_size();
  }
  std::printf("default cluster: %d files, %.1f MB, simulate %.2f s\n", s->files_written,
              static_cast<double>(total) / 1e6, secs);
  for (const auto& [k, v] : by_kind)
    std::printf("  %-28s %8.2f MB\n", k.c_str(), static_cast<double>(v) / 1e6);
  EXPECT_LT(total, uintmax_t{100} * 1000 * 1000);
  // Every telemetry fault kind is present in the default cluster.
  const json truth = json::parse(ReadAll(d.str() + "/truth.json"));
  std::set<std::string> kinds;
  for (const auto& f : truth["telemetry_faults"]) kinds.insert(f["kind"].get<std::string>());
  EXPECT_EQ(kinds, (std::set<std::string>{"thermal_link_downspeed", "straggler", "clock_step"}));
}

}  // namespace telemetry_test
}  // namespace toposcope::sim
