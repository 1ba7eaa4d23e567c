// The GPU-pair NVLink traffic matrix (analysis/traffic_matrix) against the simulator's truth
// (truth.json "traffic_matrix"): the simulator's per-pair bytes agree with its per-GPU counters and
// with the ring orders its NCCL logs print; the estimate from the rendered DCGM counters and logs
// is scored (median relative error over true pairs above 1 % of the host's largest, coverage of
// the error bars) over seeds 1-3 on 16 hosts and over the three architectures.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "toposcope/analysis/traffic/rings.h"
#include "toposcope/analysis/traffic/traffic_matrix.h"
#include "toposcope/base/file_io.h"
#include "toposcope/model/dataset.h"
#include "toposcope/report/score/traffic_matrix_score.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/rdma_traffic.h"
#include "toposcope/sim/simulate.h"
#include "toposcope/sim/telemetry.h"
#include "toposcope/sim/traffic.h"
#include "temp_dir.h"

namespace toposcope::sim {
namespace traffic_matrix_sim_test {

namespace fs = std::filesystem;
using nlohmann::json;

SimOptions Options(uint64_t seed, const std::string& arch) {
  SimOptions o;
  o.seed = seed;
  o.arch = sim::ParseArch(arch).value();
  o.hosts = 16;
  o.with_telemetry = true;
  o.with_rdma = true;     // the NCCL logs with the ring orders
  o.rdma_window_ms = 2;   // few packets: the captures are not used here
  o.nccl_channels = 2;
  return o;
}

// The simulator's own consistency: the per-pair sends add up to every rank's NVLink tx and rx in
// every op, and the channel entry GPUs are the ones the NCCL communicator uses.
TEST(TrafficMatrixSim, PairSendsMatchCountersAndRings) {
  for (int channels : {2, 4, 16}) {
    SimOptions o = Options(5, "fat-tree");
    o.nccl_channels = channels;
    Result<Cluster> cluster = BuildCluster(o);
    ASSERT_TRUE(cluster.ok()) << cluster.error().ToString();
    const Telemetry t = SimulateTelemetry(*cluster);
    const JobPlan& plan = t.job;
    ASSERT_EQ(plan.channels, channels);
    int checked = 0;
    for (size_t i = 0; i < plan.ops.size() && i < 20; ++i) {
      const JobOp& op = plan.ops[i];
      std::vector<double> rx(static_cast<size_t>(plan.world), 0.0);
      for (int r = 0; r < plan.world; ++r) {
        double tx = 0;
        for (const NvlinkSend& s : NvlinkSends(plan, op, r)) {
          EXPECT_EQ(plan.rank_host[static_cast<size_t>(s.dst_rank)], plan.rank_host[static_cast<size_t>(r)]);
          tx += s.bytes;
          rx[static_cast<size_t>(s.dst_rank)] += s.bytes;
        }
        EXPECT_NEAR(tx, op.ranks[static_cast<size_t>(r)].nvl_tx, 1e-6 * (1 + tx)) << "op " << i << " rank " << r;
        ++checked;
      }
      for (int r = 0; r < plan.world; ++r) {
        EXPECT_NEAR(rx[static_cast<size_t>(r)], op.ranks[static_cast<size_t>(r)].nvl_rx, 1e-6 * (1 + rx[static_cast<size_t>(r)]))
            << "op " << i << " rank " << r;
      }
    }
    EXPECT_GT(checked, 0);
    const RdmaPlan rp = PlanRdma(*cluster, &t);
    ASSERT_EQ(static_cast<int>(rp.rings.size()), channels);
    for (const RdmaRing& ring : rp.rings) {
      for (const HostModel& h : cluster->hosts) {
        EXPECT_EQ(ring.host_entry_gpu[static_cast<size_t>(h.index)],
                  plan.channel_entry_gpu[static_cast<size_t>(h.index)][static_cast<size_t>(ring.channel)]);
      }
      // Inside a host the ring goes g -> g - 1: the edges NvlinkSends uses.
      const size_t n = ring.ranks.size();
      for (size_t k = 0; k < n; ++k) {
        const int a = ring.ranks[k], b = ring.ranks[(k + 1) % n];
        if (rp.rank_host[static_cast<size_t>(a)] != rp.rank_host[static_cast<size_t>(b)]) continue;
        const int ga = rp.rank_gpu[static_cast<size_t>(a)], gb = rp.rank_gpu[static_cast<size_t>(b)];
        EXPECT_EQ(gb, (ga + plan.gpus_per_host - 1) % plan.gpus_per_host);
      }
    }
  }
}

struct Scored {
  report::TrafficMatrixScore score;
  int nvswitch_hosts = 0;
  int estimated = 0;
  int not_estimable_non_nvswitch = 0;
  int non_nvswitch_hosts = 0;
  double truth_rx_vs_counter = 0;  // worst |truth tx - measured tx| / truth tx over GPUs
  double ring_median = 0, pipeline_median = 0;  // median relative error per kind of pair
  double median_bar = 0;                        // median error-bar half-width / true rate
};

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Scored RunAndScore(const SimOptions& o, const std::string& tag) {
  Scored out;
  TempDir dir(tag);
  Result<SimSummary> sim = Simulate(o, dir.str());
  EXPECT_TRUE(sim.ok()) << (sim.ok() ? "" : sim.error().ToString());
  if (!sim.ok()) return out;
  Result<std::string> text = ReadFileText(dir.str() + "/truth.json");
  EXPECT_TRUE(text.ok());
  if (!text.ok()) return out;
  const json truth = json::parse(*text);
  EXPECT_TRUE(truth.contains("traffic_matrix"));
  Result<model::Dataset> ds = model::LoadPaths({dir.str()}, {});
  EXPECT_TRUE(ds.ok());
  if (!ds.ok()) return out;
  const analysis::RingReport rings = analysis::RingsFromLogs(*ds);
  const analysis::TrafficMatrixReport rep = analysis::EstimateTrafficMatrix(*ds, rings);
  std::map<std::string, const analysis::HostTrafficMatrix*> by;
  for (const auto& h : rep.hosts) by[h.host] = &h;
  std::vector<report::TruePairTraffic> pairs;
  std::vector<double> ring_err, pipeline_err, bars;
  for (const json& h : truth["traffic_matrix"]["hosts"]) {
    const std::string host = h["host"];
    if (h["fabric"] != "nvswitch") {
      ++out.non_nvswitch_hosts;
      auto it = by.find(host);
      if (it == by.end() || !it->second->estimable) ++out.not_estimable_non_nvswitch;
      continue;
    }
    ++out.nvswitch_hosts;
    auto it = by.find(host);
    for (const json& p : h["pairs"]) {
      pairs.push_back({host, p["src"].get<int>(), p["dst"].get<int>(), p["bytes_per_s"].get<double>()});
      if (it == by.end() || !it->second->estimable) continue;
      for (const auto& q : it->second->pairs) {
        if (q.src_gpu != p["src"].get<int>() || q.dst_gpu != p["dst"].get<int>()) continue;
        const double t = p["bytes_per_s"].get<double>();
        (p["pipeline"].get<bool>() && p["channels"].empty() ? pipeline_err : ring_err)
            .push_back(std::abs(q.bytes_per_s - t) / t);
        bars.push_back(q.err_bytes_per_s / t);
      }
    }
    if (it != by.end() && it->second->estimable) {
      ++out.estimated;
      for (int g = 0; g < static_cast<int>(h["tx_bytes_per_s"].size()); ++g) {
        const double t = h["tx_bytes_per_s"][static_cast<size_t>(g)].get<double>();
        const double m = it->second->tx_bytes_per_s[static_cast<size_t>(g)];
        if (t > 0) out.truth_rx_vs_counter = std::max(out.truth_rx_vs_counter, std::abs(m - t) / t);
      }
    }
  }
  out.score = report::ScoreTrafficMatrix(rep, pairs, 0.01);
  out.ring_median = Median(ring_err);
  out.pipeline_median = Median(pipeline_err);
  out.median_bar = Median(bars);
  return out;
}

TEST(TrafficMatrixSim, AccuracyOverSeeds) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const Scored s = RunAndScore(Options(seed, "fat-tree"), "seed" + std::to_string(seed));
    std::printf("seed %llu: nvswitch hosts %d estimated %d; pairs %d, median rel error %.4f, p90 %.4f, "
                "coverage %.3f, below-floor max abs error %.3g B/s; worst measured-vs-true GPU tx %.4f; "
                "non-NVSwitch hosts not estimable %d/%d\n",
                static_cast<unsigned long long>(seed), s.nvswitch_hosts, s.estimated, s.score.pairs_scored,
                s.score.median_rel_error, s.score.p90_rel_error, s.score.coverage,
                s.score.max_abs_error_below_floor, s.truth_rx_vs_counter, s.not_estimable_non_nvswitch,
                s.non_nvswitch_hosts);
    std::printf("  median rel error: ring pairs %.4f, pipeline-only pairs %.4f; median error bar %.4f of the true rate\n",
                s.ring_median, s.pipeline_median, s.median_bar);
    EXPECT_GT(s.nvswitch_hosts, 0);
    EXPECT_EQ(s.estimated, s.nvswitch_hosts);
    EXPECT_EQ(s.not_estimable_non_nvswitch, s.non_nvswitch_hosts);
    EXPECT_EQ(s.score.pairs_missing, 0);
    EXPECT_LE(s.score.median_rel_error, 0.10) << "seed " << seed;
    EXPECT_GE(s.score.coverage, 0.5) << "seed " << seed;
  }
}

TEST(TrafficMatrixSim, AccuracyOverArchitectures) {
  for (const char* arch : {"dragonfly", "hhre"}) {
    const Scored s = RunAndScore(Options(1, arch), arch);
    std::printf("%s: nvswitch hosts %d estimated %d; pairs %d, median rel error %.4f, coverage %.3f\n", arch,
                s.nvswitch_hosts, s.estimated, s.score.pairs_scored, s.score.median_rel_error, s.score.coverage);
    EXPECT_EQ(s.estimated, s.nvswitch_hosts);
    EXPECT_LE(s.score.median_rel_error, 0.10) << arch;
  }
}

}  // namespace traffic_matrix_sim_test
}  // namespace toposcope::sim
