// Tests of the simulator's fourth part (sim/fabric_sim): the fabric files read back through the
// formats readers (path probes, QP state logs, ibnetdiscover) with nothing rejected, RTTs are in
// the idle-RDMA range, the faults show in the probes, QP logs hold only legal transitions, the
// truth agrees with the files, and the same seed gives the same bytes.
#include "toposcope/sim/fabric_sim.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/formats/rdma/qp_state_log.h"
#include "toposcope/sim/simulate.h"
#include "toposcope/sim/writers.h"

namespace toposcope::sim {
namespace fabric_sim_test {

namespace fs = std::filesystem;
using nlohmann::json;

SimOptions FabricOptions(const std::string& arch, uint64_t seed, int hosts = 16) {
  SimOptions o;
  o.arch = ParseArch(arch).value();
  o.seed = seed;
  o.hosts = hosts;
  o.with_fabric = true;
  return o;
}

struct Rendered {
  Cluster cluster;
  FabricPlan plan;
  FabricStats stats;
  std::map<std::string, std::string> files;
  json truth;
};

Rendered Render(const SimOptions& o) {
  Result<Cluster> c = BuildCluster(o);
  EXPECT_TRUE(c.ok());
  EXPECT_TRUE(ValidateFabricOptions(o).ok());
  Rendered r{*c, PlanFabric(*c), {}, {}, {}};
  for (RenderedFile& f : RenderFabric(r.cluster, r.plan, &r.stats)) r.files[f.path] = std::move(f.text);
  r.truth = json::parse(TruthJson(r.cluster, nullptr, nullptr, &r.plan, &r.stats));
  return r;
}

std::vector<formats::PathProbe> ReadProbes(const Rendered& r, int64_t* rejected) {
  std::vector<formats::PathProbe> all;
  for (const HostModel& h : r.cluster.hosts) {
    const std::string path = FabricHostFiles(h)[0];
    Diagnostics diag;
    Result<formats::PathProbeSummary> s = formats::ParsePathProbes(
        r.files.at(path), path, diag, [&](const formats::PathProbe& p) { all.push_back(p); });
    EXPECT_TRUE(s.ok()) << path;
    if (s.ok()) {
      EXPECT_TRUE(s->counts.Balanced());
      *rejected += s->counts.rejected;
    }
  }
  return all;
}

TEST(FabricSim, DeterministicPerSeed) {
  const Rendered a = Render(FabricOptions("fat-tree", 7));
  const Rendered b = Render(FabricOptions("fat-tree", 7));
  const Rendered c = Render(FabricOptions("fat-tree", 8));
  ASSERT_EQ(a.files.size(), b.files.size());
  EXPECT_EQ(a.files, b.files);
  EXPECT_EQ(a.truth.dump(), b.truth.dump());
  EXPECT_NE(a.files.at("node001/probes.csv"), c.files.at("node001/probes.csv"));
}

TEST(FabricSim, EcmpHashIsSymmetricAndSeeded) {
  const uint32_t a = 0x0a000001, b = 0x0a000002;
  EXPECT_EQ(EcmpHash(a, b, 0xC123, 5), EcmpHash(b, a, 0xC123, 5));
  EXPECT_NE(EcmpHash(a, b, 0xC123, 5), EcmpHash(a, b, 0xC123, 6));
  EXPECT_NE(EcmpHash(a, b, 0xC123, 5), EcmpHash(a, b, 0xC124, 5));
  // Many source ports spread over 2 members roughly evenly.
  int ones = 0;
  for (uint32_t p = 0xC000; p < 0xC000 + 4000; ++p) ones += static_cast<int>(EcmpHash(a, b, static_cast<uint16_t>(p), 9) % 2);
  EXPECT_GT(ones, 1800);
  EXPECT_LT(ones, 2200);
}

TEST(FabricSim, ProbesParseBackWithRealisticRtts) {
  for (const std::string arch : {"fat-tree", "dragonfly", "hhre"}) {
    SCOPED_TRACE(arch);
    SimOptions o = FabricOptions(arch, 3);
    o.fabric_faults = false;
    const Rendered r = Render(o);
    int64_t rejected = 0;
    const std::vector<formats::PathProbe> probes = ReadProbes(r, &rejected);
    EXPECT_EQ(rejected, 0);
    EXPECT_EQ(static_cast<int64_t>(probes.size()), 16 * 15 * o.probes_per_pair);
    EXPECT_EQ(static_cast<int64_t>(probes.size()), r.stats.probes);
    std::map<size_t, std::vector<double>> by_hops;
    for (const formats::PathProbe& p : probes) {
      EXPECT_FALSE(p.hops.empty());
      by_hops[p.hops.size()].push_back(p.rtt_us);
    }
    for (auto& [hops, rtts] : by_hops) {
      std::sort(rtts.begin(), rtts.end());
      const double median = rtts[rtts.size() / 2];
      SCOPED_TRACE(hops);
      // DOMAIN §2.3 RoCE: same leaf ~3-5 µs, 3 switches ~5-7 µs; a few µs per switch more.
      EXPECT_GT(rtts.front(), 2.0);
      if (hops == 1) {
        EXPECT_GT(median, 2.5);
        EXPECT_LT(median, 5.0);
      }
      if (hops <= 3) { EXPECT_LT(median, 8.0); }
      EXPECT_LT(median, 4.0 + 1.6 * static_cast<double>(hops));
    }
    // Idle RTT model: the minimum over a pair's probes is near 2 x sum(latency_us).
    EXPECT_GT(r.stats.min_rtt_us, 2.0);
    EXPECT_LT(r.stats.median_rtt_us, 9.0);
  }
}

TEST(FabricSim, RouteMatchesIdleRttAndIsSymmetric) {
  const Rendered r = Render(FabricOptions("fat-tree", 11));
  const FabricPlan& p = r.plan;
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      if (a == b) continue;
      const FabricRoute f = RouteFlow(p, a, b, 0xC777, p.probe_start_ns);
      const FabricRoute g = RouteFlow(p, b, a, 0xC777, p.probe_start_ns);
      std::vector<int> rev(g.nodes.rbegin(), g.nodes.rend());
      EXPECT_EQ(f.nodes, rev);
      EXPECT_EQ(f.links.size() + 1, f.nodes.size());
      double sum = 0;
      for (int l : f.links) sum += p.links[static_cast<size_t>(l)].latency_us;
      EXPECT_DOUBLE_EQ(IdleRttUs(p, f), 2 * sum);
      if (p.host_switch[static_cast<size_t>(a)] == p.host_switch[static_cast<size_t>(b)]) {
        EXPECT_EQ(f.nodes.size(), 3U);
      } else if (!f.detour) {
        EXPECT_EQ(f.nodes.size(), 5U);  // leaf, spine, leaf
      }
    }
  }
}

TEST(FabricSim, CongestedSwitchHopsAreSlowerAndConcentrated) {
  for (const std::string arch : {"fat-tree", "dragonfly", "hhre"}) {
    SCOPED_TRACE(arch);
    const Rendered r = Render(FabricOptions(arch, 5));
    ASSERT_GE(r.plan.congested_switch, 0);
    const std::string x = r.plan.switches[static_cast<size_t>(r.plan.congested_switch)].name;
    int64_t rejected = 0;
    const std::vector<formats::PathProbe> probes = ReadProbes(r, &rejected);
    EXPECT_EQ(rejected, 0);
    // Excess RTT over the idle model, with and without the congested switch, same hop count.
    std::map<size_t, std::vector<double>> with, without;
    for (const formats::PathProbe& p : probes) {
      const bool through = std::find(p.hops.begin(), p.hops.end(), x) != p.hops.end();
      (through ? with : without)[p.hops.size()].push_back(p.rtt_us);
    }
    bool compared = false;
    for (auto& [hops, w] : with) {
      auto it = without.find(hops);
      if (it == without.end() || w.size() < 20 || it->second.size() < 20) continue;
      std::sort(w.begin(), w.end());
      std::sort(it->second.begin(), it->second.end());
      EXPECT_GT(w[w.size() / 2], it->second[it->second.size() / 2] + 2.0) << "hops " << hops;
      compared = true;
    }
    EXPECT_TRUE(compared);
    ASSERT_EQ(r.truth["fabric"]["bottlenecks"].size(), 1U);
    EXPECT_EQ(r.truth["fabric"]["bottlenecks"][0]["node"], x);
    EXPECT_GT(r.stats.probes_through_congested, 0);
  }
}

TEST(FabricSim, FaultsAreInTruthAndVisible) {
  const Rendered r = Render(FabricOptions("fat-tree", 2));
  std::set<std::string> kinds;
  for (const auto& f : r.truth["fabric"]["faults"]) kinds.insert(f["kind"].get<std::string>());
  EXPECT_EQ(kinds, (std::set<std::string>{"congested_switch", "degraded_link", "flapping_link", "detour", "slow_host"}));
  ASSERT_GE(r.plan.degraded_link, 0);
  ASSERT_GE(r.plan.flapping_link, 0);
  EXPECT_GT(r.plan.links[static_cast<size_t>(r.plan.degraded_link)].extra_us, 0.5);
  EXPECT_FALSE(r.plan.flaps.empty());
  // Detour: >= 2 extra hops on most of the pair's flows; its redundant hop is named.
  EXPECT_GT(r.stats.detour_probes, 0);
  ASSERT_FALSE(r.truth["fabric"]["redundant_hops"].empty());
  EXPECT_GE(r.truth["fabric"]["redundant_hops"][0]["extra_hops"].get<int>(), 2);
  // Flapping: some host pair whose flows cross the flapping link's switches shows > 1 path.
  int64_t rejected = 0;
  const std::vector<formats::PathProbe> probes = ReadProbes(r, &rejected);
  std::map<std::pair<std::string, std::string>, std::set<std::vector<std::string>>> paths;
  for (const formats::PathProbe& p : probes) paths[{p.src, p.dst}].insert(p.hops);
  size_t multi = 0;
  for (const auto& [k, v] : paths) multi += v.size() > 1 ? 1 : 0;
  EXPECT_GT(multi, 0U);
  // The flapping link: the same flow routes differently while it is down, and never over it.
  const FlapInterval& down = r.plan.flaps.front();
  const int64_t t_down = (down.start_ns + down.end_ns) / 2;
  const int64_t t_up = down.end_ns + 1;
  int moved = 0, through_up = 0;
  for (int a = 0; a < 16; ++a) {
    for (int b = a + 1; b < 16; ++b) {
      for (uint16_t port = 0xC000; port < 0xC000 + 32; ++port) {
        const FabricRoute up = RouteFlow(r.plan, a, b, port, t_up, false);
        const FabricRoute dn = RouteFlow(r.plan, a, b, port, t_down, false);
        const auto crosses = [&](const FabricRoute& f) {
          return std::find(f.links.begin(), f.links.end(), r.plan.flapping_link) != f.links.end();
        };
        EXPECT_FALSE(crosses(dn));
        through_up += crosses(up) ? 1 : 0;
        moved += up.nodes != dn.nodes ? 1 : 0;
      }
    }
  }
  EXPECT_GT(through_up, 0);
  EXPECT_GE(moved, through_up);
  // Truth link latencies: positive, the degraded one the largest among inter-switch links.
  double max_inter = 0;
  std::string max_id;
  for (const auto& l : r.truth["fabric"]["links"]) {
    EXPECT_GT(l["latency_us"].get<double>(), 0.0);
    if (l["kind"] != "host" && l["latency_us"].get<double>() > max_inter) {
      max_inter = l["latency_us"].get<double>();
      max_id = l["id"].get<std::string>();
    }
  }
  EXPECT_EQ(max_id, FabricLinkId(r.cluster, r.plan, r.plan.degraded_link));
}

TEST(FabricSim, QpLogsParseBackLegalWithTheJobKinds) {
  const Rendered r = Render(FabricOptions("fat-tree", 4));
  std::set<std::string> kinds;
  for (const auto& j : r.truth["fabric"]["qp_jobs"]) kinds.insert(j["kind"].get<std::string>());
  EXPECT_EQ(kinds, (std::set<std::string>{"allreduce", "pipeline", "mixed"}));
  int64_t total = 0;
  for (const HostModel& h : r.cluster.hosts) {
    const std::string path = FabricHostFiles(h)[1];
    Diagnostics diag;
    std::array<std::array<int64_t, 8>, 8> counts{};
    Result<formats::QpStateLogSummary> s = formats::ParseQpStateLog(
        r.files.at(path), path, diag, [&](const formats::QpStateRecord& rec) {
          ++counts[static_cast<size_t>(rec.from)][static_cast<size_t>(rec.to)];
          EXPECT_EQ(rec.host, h.name);
          EXPECT_EQ(rec.dev, "mlx5_0");
        });
    ASSERT_TRUE(s.ok()) << path;
    EXPECT_EQ(s->counts.rejected, 0);
    EXPECT_EQ(s->illegal_transitions, 0);
    EXPECT_EQ(s->discontinuities, 0) << path;
    EXPECT_EQ(s->out_of_order, 0);
    total += s->counts.accepted;
    const QpJobKind kind = r.plan.jobs[static_cast<size_t>(r.plan.host_job[static_cast<size_t>(h.index)])].kind;
    const auto& qp = counts;
    const int64_t recreations = qp[6][0];  // ERR -> RESET
    EXPECT_GT(recreations, 0) << h.name;
    const int64_t side = qp[3][4] + qp[3][5];  // RTS -> SQD / SQE
    if (kind == QpJobKind::kAllreduce) { EXPECT_EQ(side, 0) << h.name; }
  }
  EXPECT_EQ(total, r.stats.qp_records);
}

TEST(FabricSim, AllReduceBatchesPipelineStaggers) {
  const Rendered r = Render(FabricOptions("fat-tree", 4));
  // Per job: the largest number of ERR->RESET in any 10 ms window, against the job's QPs.
  std::map<std::string, std::map<int64_t, int>> windows;
  std::map<std::string, QpJobKind> job_kind;
  for (const QpJob& j : r.plan.jobs) job_kind[j.id] = j.kind;
  for (const HostModel& h : r.cluster.hosts) {
    Diagnostics diag;
    const std::string path = FabricHostFiles(h)[1];
    ASSERT_TRUE(formats::ParseQpStateLog(r.files.at(path), path, diag, [&](const formats::QpStateRecord& rec) {
                  if (rec.from == formats::QpState::kErr && rec.to == formats::QpState::kReset) {
                    ++windows[rec.job][rec.ts_ns / 10000000];
                  }
                }).ok());
  }
  for (const QpJob& j : r.plan.jobs) {
    int peak = 0;
    for (const auto& [w, n] : windows[j.id]) peak = std::max(peak, n);
    const int qps = static_cast<int>(j.hosts.size()) * r.cluster.options.qps_per_host;
    if (QpJobKindName(j.kind) == "allreduce") { EXPECT_GE(peak, qps / 2) << j.id; }
    if (QpJobKindName(j.kind) == "pipeline") { EXPECT_LT(peak, std::max(4, qps / 4)) << j.id; }
  }
}

TEST(FabricSim, IbnetDumpParsesBack) {
  for (const std::string arch : {"fat-tree", "dragonfly", "hhre"}) {
    SCOPED_TRACE(arch);
    const Rendered r = Render(FabricOptions(arch, 6));
    Diagnostics diag;
    Result<formats::IbFabric> f = formats::ParseIbnetdiscover(r.files.at(kFabricIbnetFile), "fabric.ibnet", diag);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(f->counts.rejected, 0);
    EXPECT_EQ(diag.warnings_total(), 0);
    EXPECT_EQ(f->SwitchCount(), static_cast<int64_t>(r.plan.switches.size()));
    EXPECT_EQ(f->CaCount(), 16);
    EXPECT_EQ(formats::IbLinks(*f).size(), r.plan.links.size());
    std::set<std::string> descs;
    for (const formats::IbNode& n : f->nodes) descs.insert(n.desc);
    for (const FabricSwitch& s : r.plan.switches) EXPECT_TRUE(descs.count(s.name)) << s.name;
    EXPECT_TRUE(descs.count("node001 mlx5_0"));
    // Round trip: the parsed nodes equal the built ones (lines aside).
    std::vector<formats::IbNode> parsed = f->nodes;
    for (formats::IbNode& n : parsed) {
      n.line = 0;
      for (formats::IbPortLink& pl : n.ports) pl.line = 0;
    }
    EXPECT_EQ(parsed, BuildIbFabric(r.cluster, r.plan).nodes);
  }
}

TEST(FabricSim, TruthHasTheFabricObject) {
  const Rendered r = Render(FabricOptions("dragonfly", 9));
  const json& f = r.truth["fabric"];
  for (const char* key : {"leaves", "spines", "groups", "switches", "links", "cas", "pods", "qp_jobs", "bottlenecks",
                          "redundant_hops", "faults", "probes", "regime"}) {
    EXPECT_TRUE(f.contains(key)) << key;
  }
  EXPECT_EQ(f["cas"].size(), 16U);
  EXPECT_EQ(f["links"].size(), r.plan.links.size());
  EXPECT_EQ(f["regime"], "rdma-idle");
  EXPECT_EQ(r.truth["hosts"][0]["fabric_files"][0], "node001/probes.csv");
}

TEST(FabricSim, OptionsAreValidated) {
  SimOptions o = FabricOptions("fat-tree", 1);
  EXPECT_TRUE(ValidateFabricOptions(o).ok());
  o.hosts = kMaxFabricHosts + 1;
  EXPECT_FALSE(ValidateFabricOptions(o).ok());
  o = FabricOptions("fat-tree", 1);
  o.probes_per_pair = 0;
  EXPECT_FALSE(ValidateFabricOptions(o).ok());
  o = FabricOptions("fat-tree", 1);
  o.qp_window_s = 0;
  EXPECT_FALSE(ValidateFabricOptions(o).ok());
  o.with_fabric = false;
  EXPECT_TRUE(ValidateFabricOptions(o).ok());
}

// switch_latency_shift_us moves every switch's drawn latency (and with it each link's halves) by the
// shift, keeping the draws of the seed; out of -0.25..5 it is refused.
TEST(FabricSim, SwitchLatencyShiftMovesEverySwitch) {
  for (const char* arch : {"fat-tree", "dragonfly", "hhre"}) {
    SimOptions o = FabricOptions(arch, 3);
    Result<Cluster> base = BuildCluster(o);
    ASSERT_TRUE(base.ok());
    const FabricPlan p0 = PlanFabric(*base);
    o.switch_latency_shift_us = 0.1;
    ASSERT_TRUE(ValidateFabricOptions(o).ok());
    Result<Cluster> up = BuildCluster(o);
    ASSERT_TRUE(up.ok());
    const FabricPlan p1 = PlanFabric(*up);
    ASSERT_EQ(p0.switches.size(), p1.switches.size());
    for (size_t i = 0; i < p0.switches.size(); ++i) {
      EXPECT_NEAR(p1.switches[i].latency_us - p0.switches[i].latency_us, 0.1, 1e-12) << arch;
    }
    ASSERT_EQ(p0.links.size(), p1.links.size());
    const int sw = static_cast<int>(p0.switches.size());
    for (size_t i = 0; i < p0.links.size(); ++i) {
      const int ends = (p0.links[i].a < sw ? 1 : 0) + (p0.links[i].b < sw ? 1 : 0);
      EXPECT_NEAR(p1.links[i].latency_us - p0.links[i].latency_us, 0.05 * ends, 1e-9) << arch;
    }
  }
  SimOptions o = FabricOptions("fat-tree", 1);
  o.switch_latency_shift_us = -0.3;
  EXPECT_FALSE(ValidateFabricOptions(o).ok());
  o.switch_latency_shift_us = 5.5;
  EXPECT_FALSE(ValidateFabricOptions(o).ok());
  o.switch_latency_shift_us = -0.25;  // the floor keeps every switch at >= 0.05 us
  Result<Cluster> c = BuildCluster(o);
  ASSERT_TRUE(c.ok());
  for (const FabricSwitch& s : PlanFabric(*c).switches) EXPECT_GE(s.latency_us, 0.05);
}

TEST(FabricSim, TinyAndLargeClusters) {
  for (int hosts : {1, 2, 5}) {
    SCOPED_TRACE(hosts);
    const Rendered r = Render(FabricOptions("hhre", 1, hosts));
    EXPECT_EQ(r.stats.probes, static_cast<int64_t>(hosts) * (hosts - 1) * 8);
  }
  SimOptions o = FabricOptions("fat-tree", 1, 256);
  o.probes_per_pair = 2;
  o.qp_window_s = 0.5;
  const Rendered r = Render(o);
  EXPECT_EQ(r.stats.probes, 256 * 64 * 2);
}

TEST(FabricSim, DemoIsCheapAndBounded) {
  const fs::path dir = fs::temp_directory_path() / ("toposcope_fabric_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  SimOptions o;
  o.seed = 1;
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(Simulate(o, dir.string()).ok());
  const auto t1 = std::chrono::steady_clock::now();
  o.with_fabric = true;
  ASSERT_TRUE(Simulate(o, (dir / "f").string()).ok());
  const auto t2 = std::chrono::steady_clock::now();
  uintmax_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "f")) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && (name == kProbesFile || name == kQpStatesFile || name == kFabricIbnetFile)) {
      bytes += e.file_size();
    }
  }
  const double added_s = std::chrono::duration<double>((t2 - t1) - (t1 - t0)).count();
  std::printf("fabric: +%.3f s, %.2f MB of fabric files\n", added_s, static_cast<double>(bytes) / 1e6);
  EXPECT_LT(added_s, 2.0);
  EXPECT_LT(bytes, 10u * 1000 * 1000);
  EXPECT_TRUE(fs::exists(dir / "f" / "fabric.ibnet"));
  EXPECT_TRUE(fs::exists(dir / "f" / "node001" / "probes.csv"));
  fs::remove_all(dir);
}

}  // namespace fabric_sim_test
}  // namespace toposcope::sim
