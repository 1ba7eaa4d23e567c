// Accuracy of leaf/pod inference from RTT probes alone (analysis/leaf_inference) against the
// simulator's truth: fat-tree, dragonfly and HHRE, several seeds and sizes, faults on (congested
// switch, degraded and flapping links, detour, slow host, outliers), default options. Leaf accuracy
// = fraction of hosts whose inferred leaf-mate set equals the true one; pod accuracy likewise for
// the true pods (fat-tree: one pod; dragonfly: groups; HHRE: rings). Also the kernel-TCP regime
// (probe_extra_rtt_us = 250) and the Slurm export of an inferred fabric.
#include "toposcope/analysis/fabric/leaf_inference.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/rng.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/formats/fabric/slurm_topology.h"
#include "toposcope/report/export/slurm_export.h"
#include "toposcope/report/score/grouping.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/fabric_sim.h"
#include "slurm_normalised.h"

namespace toposcope::analysis {
namespace leaf_inference_sim_test {

struct Dataset {
  std::vector<formats::PathProbe> probes;
  std::vector<std::vector<std::string>> true_leaves, true_pods;
  std::vector<std::string> hosts;
};

Dataset Make(const std::string& arch, uint64_t seed, int hosts, double extra_rtt_us = 0) {
  sim::SimOptions o;
  o.arch = sim::ParseArch(arch).value();
  o.seed = seed;
  o.hosts = hosts;
  o.with_fabric = true;
  o.probe_extra_rtt_us = extra_rtt_us;
  Dataset d;
  Result<sim::Cluster> c = sim::BuildCluster(o);
  EXPECT_TRUE(c.ok());
  if (!c.ok()) return d;
  const sim::FabricPlan plan = sim::PlanFabric(*c);
  sim::FabricStats stats;
  for (const sim::RenderedFile& f : sim::RenderFabric(*c, plan, &stats)) {
    if (f.path.size() < 11 || f.path.compare(f.path.size() - 11, 11, "/probes.csv") != 0) continue;
    Diagnostics diag;
    Result<formats::PathProbeSummary> s =
        formats::ParsePathProbes(f.text, f.path, diag, [&](const formats::PathProbe& p) { d.probes.push_back(p); });
    EXPECT_TRUE(s.ok());
  }
  for (const sim::HostModel& h : c->hosts) d.hosts.push_back(h.name);
  std::map<std::string, std::vector<std::string>> leaf_hosts;
  for (const sim::FabricGroup& g : c->fabric.leaves) {
    d.true_leaves.push_back(g.members);
    leaf_hosts[g.name] = g.members;
  }
  const std::vector<sim::FabricGroup>& pods = arch == "dragonfly" ? c->fabric.groups : c->fabric.rings;
  if (arch == "fat-tree" || pods.empty()) {
    d.true_pods.push_back(d.hosts);
  } else {
    for (const sim::FabricGroup& g : pods) {
      std::vector<std::string> hs;
      for (const std::string& leaf : g.members) {
        for (const std::string& h : leaf_hosts[leaf]) hs.push_back(h);
      }
      d.true_pods.push_back(hs);
    }
  }
  return d;
}

struct Score {
  double leaf = 0, pod = 0;
  LeafInference inf;
};

Score Infer(const Dataset& d, const LeafInferenceOptions& opt = {}) {
  Score s;
  s.inf = InferLeaves(d.probes, opt);
  std::vector<std::vector<std::string>> leaves, pods;
  for (const InferredLeaf& l : s.inf.leaves) leaves.push_back(l.hosts);
  for (const InferredPod& p : s.inf.pods) pods.push_back(p.hosts);
  s.leaf = report::GroupingAccuracy(leaves, d.true_leaves, d.hosts);
  s.pod = report::GroupingAccuracy(pods, d.true_pods, d.hosts);
  return s;
}

bool Verbose() { return std::getenv("LEAF_INFERENCE_VERBOSE") != nullptr; }

void Report(const std::string& arch, uint64_t seed, int hosts, const Score& s) {
  if (!Verbose()) return;
  std::printf("%-9s seed %llu hosts %3d: leaf %.4f pod %.4f leaves %zu pods %zu iters %d margin %.3f sep %.1f conf %.2f\n",
              arch.c_str(), static_cast<unsigned long long>(seed), hosts, s.leaf, s.pod, s.inf.leaves.size(),
              s.inf.pods.size(), s.inf.iterations, s.inf.margin_us, s.inf.separation, s.inf.confidence);
  if (s.leaf < 0.99 || s.pod < 0.99) {
    for (const std::string& e : s.inf.evidence) std::printf("    %s\n", e.c_str());
  }
}

// Verbose only: the rows (residual RTT to the nearest peers, * = true leaf mate) of hosts whose
// inferred leaf is wrong.
void ReportWrong(const Dataset& d, const Score& s) {
  if (!Verbose() || s.leaf >= 0.99) return;
  std::map<std::string, std::vector<std::string>> truth, inferred;
  for (const auto& g : d.true_leaves) for (const auto& h : g) truth[h] = g;
  for (const auto& l : s.inf.leaves) for (const auto& h : l.hosts) inferred[h] = l.hosts;
  std::map<std::string, double> off;
  for (size_t i = 0; i < s.inf.hosts.size(); ++i) off[s.inf.hosts[i]] = s.inf.offset_us[i];
  std::map<std::pair<std::string, std::string>, double> mn;
  for (const auto& p : d.probes) {
    auto k = std::minmax(p.src, p.dst);
    auto key = std::make_pair(k.first, k.second);
    auto it = mn.find(key);
    if (it == mn.end() || p.rtt_us < it->second) mn[key] = p.rtt_us;
  }
  int shown = 0;
  for (const auto& [h, t] : truth) {
    auto tt = t;
    std::sort(tt.begin(), tt.end());
    if (inferred[h] == tt || ++shown > 6) continue;
    std::vector<std::pair<double, std::string>> row;
    for (const auto& [k, v] : mn) {
      if (k.first != h && k.second != h) continue;
      const std::string& o = k.first == h ? k.second : k.first;
      row.push_back({v - off[h] - off[o], o});
    }
    std::sort(row.begin(), row.end());
    std::printf("    %s off %.2f inferred %zu true %zu:", h.c_str(), off[h], inferred[h].size(), tt.size());
    for (size_t i = 0; i < row.size() && i < 7; ++i) {
      const bool mate = std::find(tt.begin(), tt.end(), row[i].second) != tt.end();
      std::printf(" %.2f%s", row[i].first, mate ? "*" : "");
    }
    std::printf("\n");
  }
}

class LeafInferenceSim : public ::testing::TestWithParam<std::string> {};

// Per case: leaf accuracy >= 0.96 and, per architecture, >= 0.99 on average (measured: 1.0 in 35 of
// the 36 cases; dragonfly 128 hosts seed 4 merges two routers whose pairs all queue behind the
// congested router, 0.969). Pods: fat-tree and HHRE >= 0.99 in every case; dragonfly >= 0.75 per
// case and >= 0.9 on average from 64 hosts (16 hosts: two groups wired by so many global links
// that they are one latency domain — reported, not asserted).
TEST_P(LeafInferenceSim, LeavesAndPodsAcrossSeedsAndSizes) {
  const std::string arch = GetParam();
  double leaf_sum = 0, pod_sum = 0;
  int cases = 0, pod_cases = 0;
  for (int hosts : {16, 64, 128}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      SCOPED_TRACE(arch + " hosts " + std::to_string(hosts) + " seed " + std::to_string(seed));
      const Dataset d = Make(arch, seed, hosts);
      const Score s = Infer(d);
      Report(arch, seed, hosts, s);
      ReportWrong(d, s);
      EXPECT_GE(s.leaf, 0.96);
      leaf_sum += s.leaf;
      ++cases;
      if (arch != "dragonfly") {
        EXPECT_GE(s.pod, 0.99);
      } else if (hosts >= 64) {
        EXPECT_GE(s.pod, 0.75);
      }
      if (arch != "dragonfly" || hosts >= 64) {
        pod_sum += s.pod;
        ++pod_cases;
      }
      EXPECT_TRUE(s.inf.unplaced.empty());
      EXPECT_TRUE(s.inf.converged);
      EXPECT_GT(s.inf.margin_us, 0.0);
      EXPECT_EQ(s.inf.hosts.size(), d.hosts.size());
    }
  }
  EXPECT_GE(leaf_sum / cases, 0.99);
  EXPECT_GE(pod_sum / pod_cases, arch == "dragonfly" ? 0.9 : 0.99);
}

INSTANTIATE_TEST_SUITE_P(Archs, LeafInferenceSim, ::testing::Values("fat-tree", "dragonfly", "hhre"),
                         [](const auto& info) { return info.param == "fat-tree" ? std::string("fat_tree") : info.param; });

TEST(LeafInferenceSimLarge, FatTree512) {
  const Dataset d = Make("fat-tree", 1, 512);
  const Score s = Infer(d);
  Report("fat-tree", 1, 512, s);
  EXPECT_GE(s.leaf, 0.99);
  EXPECT_GE(s.pod, 0.99);
  EXPECT_EQ(s.inf.pods.size(), 1U);
}

// The kernel-TCP regime adds a constant 250 µs to every RTT (and nothing else in the simulator): the
// per-pair minimum cancels it, so the leaves are still found. Real kernel stacks add per-probe
// jitter of tens of µs that a constant does not model; with that, the ~1 µs tiers drown unless the
// minimum over many probes still reaches the floor.
TEST(LeafInferenceSimLarge, KernelTcpRegime) {
  for (const std::string arch : {"fat-tree", "dragonfly", "hhre"}) {
    const Dataset d = Make(arch, 2, 64, 250.0);
    const Score s = Infer(d);
    Report(arch + "+250", 2, 64, s);
    EXPECT_GE(s.leaf, 0.99) << arch;
    // Kernel-stack jitter on top (exponential, mean 10 µs per probe; not in the simulator): the
    // minimum of 8-16 probes keeps ~1 µs of it, comparable to the tiers. Reported, and every host
    // must still be placed or listed.
    Dataset j = d;
    Rng rng(Rng::Mix(2, 0x7C9));
    for (formats::PathProbe& p : j.probes) p.rtt_us += 10.0 * rng.Exponential();
    const Score sj = Infer(j);
    Report(arch + "+250j", 2, 64, sj);
    EXPECT_EQ(sj.inf.hosts.size(), d.hosts.size());
    size_t listed = sj.inf.unplaced.size();
    for (const InferredLeaf& l : sj.inf.leaves) listed += l.hosts.size();
    EXPECT_EQ(listed, d.hosts.size());
  }
}

TEST(LeafInferenceSimLarge, SlurmExportRoundTripsAndMatchesTruth) {
  const Dataset d = Make("hhre", 3, 64);
  const Score s = Infer(d);
  const formats::SlurmTopology tree = report::ToSlurmTopology(s.inf);
  Diagnostics diag;
  Result<std::vector<formats::SlurmTopology>> back =
      formats::ParseSlurmTopologyConf(formats::WriteSlurmTopologyConf(tree), "topology.conf", diag);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 1U);
  EXPECT_EQ(formats::Normalised((*back)[0]), tree);
  // The leaf switches' node lists are the true racks.
  std::vector<std::vector<std::string>> leaves;
  for (const formats::SlurmSwitch& sw : (*back)[0].switches) {
    if (!sw.nodes.empty()) leaves.push_back(sw.nodes);
  }
  EXPECT_GE(report::GroupingAccuracy(leaves, d.true_leaves, d.hosts), 0.99);
  EXPECT_EQ((*back)[0].AllNodes().size(), d.hosts.size());
}

}  // namespace leaf_inference_sim_test
}  // namespace toposcope::analysis
