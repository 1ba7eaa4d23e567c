// Implicit clock anchors: collective completions refine hosts with poor or no sync records and
// leave well-synchronised hosts as they were.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "toposcope/analysis/time/anchors.h"
#include "toposcope/base/rng.h"
#include "toposcope/formats/dcgm/dcgm_csv.h"
#include "toposcope/formats/trace/event_jsonl.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {
namespace anchors_test {

constexpr int64_t kT0 = 1700000000LL * 1000000000LL;
constexpr int64_t kS = 1000000000LL;

// The true offset (local - global, ns) of host h at global time g.
double TrueOffset(int h, int64_t g) {
  const double t = static_cast<double>(g - kT0) / 1e9;
  double off = 20000.0 * (h + 1) + (h % 2 == 0 ? 3.0 : -2.0) * 1e3 * t;  // 3 / -2 ppm
  off += 0.002 * t * t;
  if (h == 6 && t > 100) off += 500000;  // a 500 µs step between two sparse NTP polls
  return off;
}

int64_t Local(int h, int64_t g) { return g + static_cast<int64_t>(std::llround(TrueOffset(h, g))); }

struct Cluster {
  std::vector<HostClockFit> fits;
  AnchorGroups groups;
};

// 8 hosts: 0-5 PTP-grade (a point a second, 50 ns noise), 6 NTP-grade (a poll every 40 s, 80 µs
// noise, a step at 100 s), 7 with no sync source. AllReduces every 50 ms over 200 s, completing
// within ±0.5 µs on every host.
Cluster Make() {
  Cluster c;
  Rng rng(11);
  for (int h = 0; h < 7; ++h) {
    std::vector<SyncSample> s;
    const int64_t every = h < 6 ? kS : 40 * kS;
    const double noise = h < 6 ? 50 : 80000;
    for (int64_t g = kT0; g <= kT0 + 200 * kS; g += every) {
      SyncSample x;
      x.ref_ns = g;
      x.local_ns = Local(h, g) + static_cast<int64_t>(std::llround(rng.Normal() * noise));
      s.push_back(x);
    }
    c.fits.push_back(FitHostClock("h" + std::to_string(h), s));
  }
  for (int h = 0; h < 8; ++h) c.groups.hosts.push_back("h" + std::to_string(h));
  for (int64_t g = kT0 + kS / 2; g < kT0 + 200 * kS; g += kS / 20) {
    std::vector<std::pair<int, int64_t>> grp;
    for (int h = 0; h < 8; ++h) grp.emplace_back(h, Local(h, g + static_cast<int64_t>(rng.Uniform(-500, 500))));
    c.groups.groups.push_back(std::move(grp));
  }
  return c;
}

// Mean |error| (µs) of a host's best model over the anchored span.
double MeanErrorUs(const std::vector<HostClockFit>& fits, const std::string& host, int h) {
  for (const auto& f : fits) {
    if (f.host != host) continue;
    double sum = 0;
    int n = 0;
    for (int64_t g = kT0 + 2 * kS; g < kT0 + 198 * kS; g += kS / 3) {
      const int64_t local = Local(h, g);
      sum += std::abs(static_cast<double>(f.Best().ToGlobalNs(local) - g)) / 1000.0;
      ++n;
    }
    return sum / n;
  }
  return INFINITY;
}

TEST(Anchors, RefineSparseNtpHostWithStepAndHostWithoutSync) {
  Cluster c = Make();
  std::vector<double> before;
  for (int h = 0; h < 7; ++h) before.push_back(MeanErrorUs(c.fits, "h" + std::to_string(h), h));
  EXPECT_GT(before[6], 50.0);  // sparse NTP with a step: tens to hundreds of µs
  const auto reports = RefineClocksWithAnchors(&c.fits, c.groups, AnchorOptions{}, TimesyncOptions{});
  ASSERT_EQ(reports.size(), 8u);
  ASSERT_EQ(c.fits.size(), 8u);  // h7 got a model from anchors alone
  for (int h = 0; h < 6; ++h) {
    const double after = MeanErrorUs(c.fits, "h" + std::to_string(h), h);
    EXPECT_LE(after, before[static_cast<size_t>(h)] + 0.05) << "h" << h;
    EXPECT_LT(reports[static_cast<size_t>(h)].weight, 0.5) << "h" << h;  // PTP hosts keep their sync
  }
  EXPECT_LT(MeanErrorUs(c.fits, "h6", 6), 3.0);
  EXPECT_LT(MeanErrorUs(c.fits, "h7", 7), 3.0);
  EXPECT_GT(reports[6].weight, 0.9);
  // The step at 100 s is found by the anchors (the NTP polls at 80 s and 120 s cannot place it).
  ASSERT_FALSE(reports[6].new_steps_local_ns.empty());
  const double step_s = static_cast<double>(reports[6].new_steps_local_ns.front() - Local(6, kT0)) / 1e9;
  EXPECT_NEAR(step_s, 100.0, 1.0);
}

TEST(Anchors, DisabledOrEmptyLeavesModelsUnchanged) {
  Cluster c = Make();
  const double before = MeanErrorUs(c.fits, "h6", 6);
  AnchorOptions off;
  off.enabled = false;
  EXPECT_TRUE(RefineClocksWithAnchors(&c.fits, c.groups, off, TimesyncOptions{}).empty());
  EXPECT_EQ(MeanErrorUs(c.fits, "h6", 6), before);
  EXPECT_TRUE(RefineClocksWithAnchors(&c.fits, AnchorGroups{}, AnchorOptions{}, TimesyncOptions{}).empty());
  EXPECT_EQ(c.fits.size(), 7u);
}

TEST(Anchors, CollectFromJsonlEvents) {
  // Two hosts, two ranks each; `anchor=` contexts group events; a kernel without a seq falls back to
  // the ordinal; an event seen on one host only is dropped.
  const auto dir = std::filesystem::temp_directory_path() / "toposcope_anchor_test";
  std::filesystem::create_directories(dir);
  model::Dataset ds;
  for (int h = 0; h < 2; ++h) {
    std::vector<formats::TraceEvent> ev;
    for (int r = 0; r < 2; ++r) {
      for (int k = 0; k < 3; ++k) {
        formats::TraceEvent e;
        e.local_ts_ns = kT0 + k * kS + h * 1000 + r * 10;
        e.dur_ns = 100;
        e.host = "n" + std::to_string(h);
        e.rank = h * 2 + r;
        e.device = "gpu" + std::to_string(r);
        e.type = "allreduce_done";
        e.category = "train";
        e.context = "anchor=ar" + std::to_string(k);
        ev.push_back(e);
      }
    }
    formats::TraceEvent lone;
    lone.local_ts_ns = kT0;
    lone.host = "n" + std::to_string(h);
    lone.type = "x";
    lone.context = "anchor=only" + std::to_string(h);
    ev.push_back(lone);
    const auto path = dir / ("n" + std::to_string(h) + ".jsonl");
    std::ofstream(path) << formats::WriteEventJsonl(ev);
    ds.event_inputs.push_back({path.string(), "n" + std::to_string(h), formats::FileFormat::kEventJsonl});
  }
  // A DCGM input holds counter samples only: never an anchor, so it is not read at all.
  std::vector<formats::CsvSample> samples;
  for (int i = 0; i < 50; ++i) samples.push_back({kT0 + int64_t{i} * 100'000'000, "n0", 0, "DCGM_FI_DEV_GPU_UTIL", 50.0, 0});
  const auto dcgm_path = dir / "n0.dcgm.csv";
  std::ofstream(dcgm_path) << formats::WriteDcgmCsvLong(samples);
  ds.event_inputs.push_back({dcgm_path.string(), "n0", formats::FileFormat::kDcgmCsv});
  Diagnostics diag;
  const AnchorGroups g = CollectAnchors(ds, AnchorOptions{}, &diag);
  EXPECT_EQ(g.events_scanned, 14);
  EXPECT_EQ(g.candidate_events, 14);
  ASSERT_EQ(g.groups.size(), 3u);
  EXPECT_EQ(g.groups_dropped, 2);
  ASSERT_EQ(g.hosts.size(), 2u);
  for (const auto& grp : g.groups) {
    ASSERT_EQ(grp.size(), 2u);
    // Median of the host's two ranks' ends: +0 or +10 ns -> the upper middle.
    EXPECT_EQ(grp[1].second - grp[0].second, 1000);
  }
  // The loader keeps the candidates as it counts the events: the anchors pass finds the same
  // groups without reading the inputs again (they are gone by then).
  Result<model::Dataset> loaded = model::LoadPaths({dir.string()}, model::LoadOptions{});
  ASSERT_TRUE(loaded.ok()) << loaded.error().ToString();
  int kept_inputs = 0;
  for (const auto& in : loaded->event_inputs) {
    if (in.format != formats::FileFormat::kEventJsonl) continue;
    ++kept_inputs;
    EXPECT_EQ(in.events_streamed, 7);
  }
  EXPECT_EQ(kept_inputs, 2);
  std::filesystem::remove_all(dir);
  const AnchorGroups kept = CollectAnchors(*loaded, AnchorOptions{}, &diag);
  EXPECT_EQ(kept.events_scanned, g.events_scanned);
  EXPECT_EQ(kept.candidate_events, g.candidate_events);
  EXPECT_EQ(kept.groups_dropped, g.groups_dropped);
  auto named = [](const AnchorGroups& a) {
    std::vector<std::vector<std::pair<std::string, int64_t>>> out;
    for (const auto& grp : a.groups) {
      out.emplace_back();
      for (const auto& [h, t] : grp) out.back().emplace_back(a.hosts[static_cast<size_t>(h)], t);
    }
    return out;
  };
  EXPECT_EQ(named(kept), named(g));
}

}  // namespace anchors_test
}  // namespace toposcope::analysis
