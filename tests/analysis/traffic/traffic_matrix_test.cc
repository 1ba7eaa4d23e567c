// Tests of analysis/traffic_matrix on hand-built datasets: a known GPU-pair matrix rendered into
// per-GPU DCGM tx/rx series (with noise), the ring orders given as RingsFromLogs would, and the
// hosts that cannot be estimated.
#include "toposcope/analysis/traffic/traffic_matrix.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "toposcope/base/names.h"
#include "toposcope/base/rng.h"
#include "toposcope/report/score/traffic_matrix_score.h"

namespace toposcope::analysis {
namespace traffic_matrix_test {

constexpr int kG = 8;
using Matrix = std::map<std::pair<int, int>, double>;  // (src, dst) -> bytes/s

// A ring view of one channel: the host's GPUs in `order`, then a GPU of another host.
RingView Ring(int channel, const std::string& host, const std::vector<int>& order) {
  RingView v;
  v.source = RingSource::kNcclLog;
  v.channel = channel;
  v.comm = "0xabc";
  int rank = 0;
  for (int g : order) {
    v.ranks.push_back(g);
    v.gpus.push_back(GpuName(host, g));
    ++rank;
  }
  v.ranks.push_back(100);
  v.gpus.push_back(GpuName("other", 0));
  return v;
}

// Renders a pair matrix as DCGM samples: every sample is the true rate x a phase factor (traffic
// comes in bursts) x (1 + noise).
void Render(model::Dataset* ds, const std::string& host, const Matrix& m, double noise, uint64_t seed, int n = 400) {
  std::vector<double> tx(kG, 0.0), rx(kG, 0.0);
  for (const auto& [k, v] : m) {
    tx[static_cast<size_t>(k.first)] += v;
    rx[static_cast<size_t>(k.second)] += v;
  }
  Rng rng(seed);
  for (int i = 0; i < n; ++i) {
    const int64_t ts = 1'000'000'000LL + int64_t{i} * 100'000'000LL;
    const double phase = (i % 3 == 0) ? 2.5 : 0.25;  // mean 1
    for (int g = 0; g < kG; ++g) {
      for (int f = 0; f < 2; ++f) {
        model::DcgmPoint p;
        p.host = host;
        p.gpu = g;
        p.field_id = f == 0 ? 1011 : 1012;
        p.field = f == 0 ? "DCGM_FI_PROF_NVLINK_TX_BYTES" : "DCGM_FI_PROF_NVLINK_RX_BYTES";
        p.ts_ns = ts;
        const double v = (f == 0 ? tx : rx)[static_cast<size_t>(g)];
        p.value = v * phase * (1.0 + noise * (2 * rng.Uniform() - 1));
        ds->dcgm.Add(p);
      }
    }
  }
}

// Two channels: entry GPU 0 (chain 0,7,6,...,1; exit 1) and entry GPU 4 (4,3,...,5; exit 5).
RingReport TwoChannels(const std::string& host) {
  RingReport r;
  r.rings.push_back(Ring(0, host, {0, 7, 6, 5, 4, 3, 2, 1}));
  r.rings.push_back(Ring(1, host, {4, 3, 2, 1, 0, 7, 6, 5}));
  return r;
}

// The true matrix of those channels with channel volume `a` (plus an optional pipeline g -> g+1).
Matrix TwoChannelTruth(double a, double pipeline) {
  Matrix m;
  for (int g = 0; g < kG; ++g) {
    const int dst = (g + kG - 1) % kG;
    double v = 0;
    if (g != 1) v += a;  // channel 0's exit
    if (g != 5) v += a;  // channel 1's exit
    m[{g, dst}] = v;
  }
  if (pipeline > 0) {
    for (int g = 0; g + 1 < kG; ++g) m[{g, g + 1}] += pipeline;
  }
  return m;
}

const PairTraffic* Find(const HostTrafficMatrix& h, int s, int d) {
  for (const PairTraffic& p : h.pairs) {
    if (p.src_gpu == s && p.dst_gpu == d) return &p;
  }
  return nullptr;
}

TEST(TrafficMatrix, RecoversRingChannelsFromMargins) {
  model::Dataset ds;
  const Matrix truth = TwoChannelTruth(4e9, 0);
  Render(&ds, "h0", truth, 0.05, 1);
  TrafficMatrixOptions opt;
  opt.pipeline_successor_edges = false;
  const TrafficMatrixReport rep = EstimateTrafficMatrix(ds, TwoChannels("h0"), opt);
  ASSERT_EQ(rep.hosts.size(), 1u);
  const HostTrafficMatrix& h = rep.hosts[0];
  ASSERT_TRUE(h.estimable) << h.reason;
  EXPECT_EQ(h.gpus, kG);
  EXPECT_EQ(h.unknowns, 8);
  EXPECT_TRUE(h.separable);  // one out-edge per GPU: the tx margins fix every pair
  ASSERT_EQ(h.channel_bytes_per_s.size(), 2u);
  EXPECT_NEAR(h.channel_bytes_per_s[0], 4e9, 0.05 * 4e9);
  EXPECT_EQ(h.pairs.size(), static_cast<size_t>(kG * (kG - 1)));
  int covered = 0;
  for (const auto& [k, v] : truth) {
    const PairTraffic* p = Find(h, k.first, k.second);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(p->supported);
    EXPECT_NEAR(p->bytes_per_s, v, 0.03 * v) << k.first << "->" << k.second;
    EXPECT_GT(p->err_bytes_per_s, 0);
    if (std::abs(p->bytes_per_s - v) <= p->err_bytes_per_s) ++covered;
    EXPECT_NEAR(p->bytes, p->bytes_per_s * h.window_s, 1e-6 * p->bytes);
  }
  EXPECT_GE(covered, 6);
  // A pair no ring connects is 0 with a small bound.
  const PairTraffic* off = Find(h, 0, 3);
  ASSERT_NE(off, nullptr);
  EXPECT_FALSE(off->supported);
  EXPECT_EQ(off->bytes_per_s, 0);
  EXPECT_LT(off->err_bytes_per_s, 0.1 * 4e9);
  // Channel membership of the edges.
  const PairTraffic* p10 = Find(h, 1, 0);
  ASSERT_NE(p10, nullptr);
  EXPECT_EQ(p10->channels, std::vector<int>({1}));
}

TEST(TrafficMatrix, PipelineEdgesAreFittedAndAmbiguityIsReported) {
  model::Dataset ds;
  const Matrix truth = TwoChannelTruth(4e9, 0.3e9);
  Render(&ds, "h0", truth, 0.02, 2);
  const TrafficMatrixReport rep = EstimateTrafficMatrix(ds, TwoChannels("h0"));
  ASSERT_EQ(rep.hosts.size(), 1u);
  const HostTrafficMatrix& h = rep.hosts[0];
  ASSERT_TRUE(h.estimable) << h.reason;
  EXPECT_EQ(h.unknowns, 15);
  EXPECT_FALSE(h.separable);  // an alternating cycle through the even GPUs
  EXPECT_EQ(h.margin_rank, 14);
  EXPECT_FALSE(h.assumption.empty());
  EXPECT_NEAR(h.pipeline_bytes_per_s, 0.3e9, 0.05e9);
  for (const auto& [k, v] : truth) {
    const PairTraffic* p = Find(h, k.first, k.second);
    ASSERT_NE(p, nullptr);
    EXPECT_NEAR(p->bytes_per_s, v, 0.1 * v) << k.first << "->" << k.second;
    EXPECT_LE(p->range_lo, p->bytes_per_s + 1);
    EXPECT_GE(p->range_hi, p->bytes_per_s - 1);
  }
  // The even pipeline edges lie on the ambiguous cycle: a wide feasible range.
  const PairTraffic* p01 = Find(h, 0, 1);
  ASSERT_NE(p01, nullptr);
  EXPECT_TRUE(p01->pipeline);
  EXPECT_GT(p01->range_hi - p01->range_lo, 0.3e9);
  EXPECT_GT(p01->sigma_ambiguity, 0);
}

TEST(TrafficMatrix, DeterministicAcrossRuns) {
  model::Dataset ds;
  Render(&ds, "h0", TwoChannelTruth(2e9, 0.2e9), 0.1, 3);
  const TrafficMatrixReport a = EstimateTrafficMatrix(ds, TwoChannels("h0"));
  const TrafficMatrixReport b = EstimateTrafficMatrix(ds, TwoChannels("h0"));
  ASSERT_EQ(a.hosts.size(), b.hosts.size());
  for (size_t i = 0; i < a.hosts[0].pairs.size(); ++i) {
    EXPECT_EQ(a.hosts[0].pairs[i].bytes_per_s, b.hosts[0].pairs[i].bytes_per_s);
    EXPECT_EQ(a.hosts[0].pairs[i].err_bytes_per_s, b.hosts[0].pairs[i].err_bytes_per_s);
  }
}

// The same counters under another host name give the same estimate and error bars: the bootstrap
// stream follows the data, not the name.
TEST(TrafficMatrix, ErrorBarsDoNotDependOnTheHostName) {
  model::Dataset a, b;
  Render(&a, "node001", TwoChannelTruth(2e9, 0.2e9), 0.1, 3);
  Render(&b, "gpu-r3-n14", TwoChannelTruth(2e9, 0.2e9), 0.1, 3);
  const TrafficMatrixReport ra = EstimateTrafficMatrix(a, TwoChannels("node001"));
  const TrafficMatrixReport rb = EstimateTrafficMatrix(b, TwoChannels("gpu-r3-n14"));
  ASSERT_EQ(ra.hosts.size(), 1u);
  ASSERT_EQ(rb.hosts.size(), 1u);
  ASSERT_EQ(ra.hosts[0].pairs.size(), rb.hosts[0].pairs.size());
  for (size_t i = 0; i < ra.hosts[0].pairs.size(); ++i) {
    EXPECT_EQ(ra.hosts[0].pairs[i].bytes_per_s, rb.hosts[0].pairs[i].bytes_per_s) << i;
    EXPECT_EQ(ra.hosts[0].pairs[i].err_bytes_per_s, rb.hosts[0].pairs[i].err_bytes_per_s) << i;
  }
}

TEST(TrafficMatrix, HostsThatCannotBeEstimatedSayWhy) {
  model::Dataset ds;
  // Bridged host: pairs (0,1) NVLink, (0,2) PCIe.
  Render(&ds, "bridged", TwoChannelTruth(1e9, 0), 0.0, 4);
  model::HostEvidence& hb = ds.Host("bridged");
  hb.nvsmi_links[{0, 1}] = {LinkClass{LinkType::kNvlink, 4}, "x"};
  hb.nvsmi_links[{0, 2}] = {LinkClass{LinkType::kSys, 0}, "x"};
  // Missing rx counters.
  model::DcgmPoint p;
  p.host = "norx";
  p.field_id = 1011;
  for (int g = 0; g < kG; ++g) {
    p.gpu = g;
    p.ts_ns = 1;
    ds.dcgm.Add(p);
  }
  // No ring through this host.
  Render(&ds, "noring", TwoChannelTruth(1e9, 0), 0.0, 5);
  // Zero counters.
  Render(&ds, "idle", TwoChannelTruth(0, 0), 0.0, 6);
  RingReport rings = TwoChannels("bridged");
  for (const RingView& v : TwoChannels("norx").rings) rings.rings.push_back(v);
  for (const RingView& v : TwoChannels("idle").rings) rings.rings.push_back(v);
  const TrafficMatrixReport rep = EstimateTrafficMatrix(ds, rings);
  std::map<std::string, const HostTrafficMatrix*> by;
  for (const HostTrafficMatrix& h : rep.hosts) by[h.host] = &h;
  ASSERT_EQ(by.count("bridged"), 1u);
  EXPECT_FALSE(by["bridged"]->estimable);
  EXPECT_NE(by["bridged"]->reason.find("not an NVSwitch"), std::string::npos);
  ASSERT_EQ(by.count("norx"), 1u);
  EXPECT_FALSE(by["norx"]->estimable);
  EXPECT_NE(by["norx"]->reason.find("missing"), std::string::npos);
  ASSERT_EQ(by.count("noring"), 1u);
  EXPECT_FALSE(by["noring"]->estimable);
  EXPECT_NE(by["noring"]->reason.find("ring"), std::string::npos);
  ASSERT_EQ(by.count("idle"), 1u);
  EXPECT_FALSE(by["idle"]->estimable);
  EXPECT_NE(by["idle"]->reason.find("zero"), std::string::npos);
  EXPECT_EQ(rep.hosts_estimable, 0);
}

// Slow DCGM periods leave a host few sample instants: it is still estimated (what it needs follows
// from its fit, not a fixed count), with the noise part widened to the Student-t quantile of its
// few blocks and a lower stated confidence; one instant is still too little, and says so.
TEST(TrafficMatrix, FewSamplesGiveWiderBarsAndLowerConfidence) {
  model::Dataset ds;
  const Matrix truth = TwoChannelTruth(4e9, 0);
  Render(&ds, "fast", truth, 0.05, 11);
  Render(&ds, "slow", truth, 0.05, 12, 3);
  Render(&ds, "single", truth, 0.05, 13, 1);
  RingReport rings = TwoChannels("fast");
  for (const RingView& v : TwoChannels("slow").rings) rings.rings.push_back(v);
  for (const RingView& v : TwoChannels("single").rings) rings.rings.push_back(v);
  TrafficMatrixOptions opt;
  opt.pipeline_successor_edges = false;
  const TrafficMatrixReport rep = EstimateTrafficMatrix(ds, rings, opt);
  std::map<std::string, const HostTrafficMatrix*> by;
  for (const HostTrafficMatrix& h : rep.hosts) by[h.host] = &h;
  ASSERT_EQ(by.size(), 3u);
  const HostTrafficMatrix& fast = *by["fast"];
  const HostTrafficMatrix& slow = *by["slow"];
  ASSERT_TRUE(fast.estimable) << fast.reason;
  ASSERT_TRUE(slow.estimable) << slow.reason;
  EXPECT_EQ(slow.samples, 3);
  EXPECT_EQ(slow.samples_needed, 2);  // 2 patterns, 16 margins: a spread needs two instants
  EXPECT_EQ(slow.noise_blocks, 3);
  EXPECT_EQ(slow.noise_dof, 2);
  EXPECT_NEAR(slow.noise_z, 4.303, 0.01);  // Student-t, 2 dof, 95 %
  EXPECT_NEAR(fast.noise_z, 1.96, 0.05);
  EXPECT_GT(fast.confidence, 0.85);
  EXPECT_NEAR(slow.confidence, 0.5, 1e-9);  // 1 - 1/sqrt(4)
  EXPECT_LT(slow.confidence, fast.confidence);
  int covered = 0, n = 0;
  for (const auto& [k, v] : truth) {
    const PairTraffic* p = Find(slow, k.first, k.second);
    ASSERT_NE(p, nullptr);
    EXPECT_NEAR(p->bytes_per_s, v, 0.1 * v) << k.first << "->" << k.second;
    const PairTraffic* q = Find(fast, k.first, k.second);
    ASSERT_NE(q, nullptr);
    EXPECT_GT(p->err_bytes_per_s, q->err_bytes_per_s);
    ++n;
    if (std::abs(p->bytes_per_s - v) <= p->err_bytes_per_s) ++covered;
  }
  EXPECT_EQ(covered, n);
  const HostTrafficMatrix& single = *by["single"];
  EXPECT_FALSE(single.estimable);
  EXPECT_EQ(single.samples_needed, 2);
  EXPECT_NE(single.reason.find("too few common DCGM samples (1, need 2"), std::string::npos) << single.reason;
  // An explicit minimum still applies.
  opt.min_samples = 8;
  const TrafficMatrixReport strict = EstimateTrafficMatrix(ds, rings, opt);
  for (const HostTrafficMatrix& h : strict.hosts) {
    if (h.host == "slow") {
      EXPECT_FALSE(h.estimable);
    }
  }
}

TEST(TrafficMatrix, EmptyInputs) {
  const model::Dataset ds;
  const TrafficMatrixReport rep = EstimateTrafficMatrix(ds, RingReport{});
  EXPECT_FALSE(rep.present);
  EXPECT_TRUE(rep.hosts.empty());
}

TEST(TrafficMatrix, ScoreCountsCoverageAndMissingHosts) {
  model::Dataset ds;
  const Matrix truth = TwoChannelTruth(4e9, 0);
  Render(&ds, "h0", truth, 0.02, 7);
  TrafficMatrixOptions opt;
  opt.pipeline_successor_edges = false;
  const TrafficMatrixReport rep = EstimateTrafficMatrix(ds, TwoChannels("h0"), opt);
  std::vector<report::TruePairTraffic> t;
  for (const auto& [k, v] : truth) t.push_back({"h0", k.first, k.second, v});
  t.push_back({"gone", 0, 1, 1e9});
  const report::TrafficMatrixScore sc = report::ScoreTrafficMatrix(rep, t);
  EXPECT_EQ(sc.pairs_scored, 9);
  EXPECT_EQ(sc.pairs_missing, 1);
  EXPECT_LT(sc.median_rel_error, 0.03);
  EXPECT_GT(sc.coverage, 0.5);
  EXPECT_LT(sc.max_abs_error_below_floor, 1e6);
}

}  // namespace traffic_matrix_test
}  // namespace toposcope::analysis
