// Unit tests of leaf/pod inference from RTT probes (analysis/leaf_inference) on synthetic probes
// built from an additive model (per-host offset + per-tier fabric latency + noise): clean tiers,
// a slow host whose offset exceeds the tier gap, outliers, missing pairs, hosts with too little
// evidence, bad probes, determinism under reordering, hop lists ignored, and the names of leaves
// and pods.
#include "toposcope/analysis/fabric/leaf_inference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"
#include "toposcope/report/score/grouping.h"

namespace toposcope::analysis {
namespace leaf_inference_test {

struct Synth {
  int leaves = 8;
  int hosts_per_leaf = 4;
  int leaves_per_pod = 4;
  std::vector<double> level_us{1.0, 1.9, 4.0};  // same leaf, same pod, across pods
  int probes = 8;
  double outlier_rate = 0;
  int slow_host = -1;          // +1.2 µs
  double drop_pairs = 0;       // fraction of cross-leaf pairs never probed
  double leaf_switch_us = 0;   // per leaf, a switch latency uniform in [0, this) on every path through it
  int slow_leaf = -1;          // a leaf whose switch adds slow_leaf_us on every crossing (congested)
  double slow_leaf_us = 0;
  uint64_t seed = 1;
};

std::string HostName(int i) { return StringPrintf("n%03d", i + 1); }

std::vector<formats::PathProbe> Generate(const Synth& s) {
  Rng rng(s.seed);
  const int n = s.leaves * s.hosts_per_leaf;
  std::vector<double> off(static_cast<size_t>(n));
  for (double& o : off) o = rng.Uniform(0.6, 0.8);
  if (s.slow_host >= 0) off[static_cast<size_t>(s.slow_host)] += 1.2;
  std::vector<double> sw(static_cast<size_t>(s.leaves), 0.0);
  for (double& v : sw) v = s.leaf_switch_us > 0 ? rng.Uniform(0.0, s.leaf_switch_us) : 0.0;
  if (s.slow_leaf >= 0) sw[static_cast<size_t>(s.slow_leaf)] += s.slow_leaf_us;
  std::vector<formats::PathProbe> out;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const int la = a / s.hosts_per_leaf, lb = b / s.hosts_per_leaf;
      const int tier = la == lb ? 0 : (la / s.leaves_per_pod == lb / s.leaves_per_pod ? 1 : 2);
      if (tier > 0 && s.drop_pairs > 0) {
        Rng pr(Rng::Mix(s.seed, static_cast<uint64_t>(std::min(a, b)) * 100000 + static_cast<uint64_t>(std::max(a, b))));
        if (pr.Uniform() < s.drop_pairs) continue;
      }
      for (int k = 0; k < s.probes; ++k) {
        formats::PathProbe p;
        p.ts_ns = 1000 * (a * n + b) + k;
        p.src = HostName(a);
        p.dst = HostName(b);
        p.hops = {"switch-names-are-ignored"};
        double rtt = off[static_cast<size_t>(a)] + off[static_cast<size_t>(b)] + s.level_us[static_cast<size_t>(tier)];
        rtt += 2 * sw[static_cast<size_t>(la)] + (la == lb ? 0.0 : 2 * sw[static_cast<size_t>(lb)]);
        rtt += rng.Exponential() * 0.05;
        if (rng.Uniform() < s.outlier_rate) rtt += rng.Uniform(15, 250);
        p.rtt_us = rtt;
        out.push_back(std::move(p));
      }
    }
  }
  return out;
}

std::vector<std::vector<std::string>> TrueGroups(const Synth& s, int per_group) {
  std::vector<std::vector<std::string>> g;
  const int n = s.leaves * s.hosts_per_leaf;
  for (int i = 0; i < n; ++i) {
    if (i % per_group == 0) g.emplace_back();
    g.back().push_back(HostName(i));
  }
  return g;
}

std::vector<std::string> AllHosts(const Synth& s) {
  std::vector<std::string> h;
  for (int i = 0; i < s.leaves * s.hosts_per_leaf; ++i) h.push_back(HostName(i));
  return h;
}

double LeafAcc(const LeafInference& inf, const Synth& s) {
  std::vector<std::vector<std::string>> g;
  for (const InferredLeaf& l : inf.leaves) g.push_back(l.hosts);
  return report::GroupingAccuracy(g, TrueGroups(s, s.hosts_per_leaf), AllHosts(s));
}

double PodAcc(const LeafInference& inf, const Synth& s) {
  std::vector<std::vector<std::string>> g;
  for (const InferredPod& p : inf.pods) g.push_back(p.hosts);
  return report::GroupingAccuracy(g, TrueGroups(s, s.hosts_per_leaf * s.leaves_per_pod), AllHosts(s));
}

TEST(LeafInference, CleanThreeTiers) {
  Synth s;
  const LeafInference inf = InferLeaves(Generate(s));
  EXPECT_EQ(inf.leaves.size(), 8U);
  EXPECT_EQ(inf.pods.size(), 2U);
  EXPECT_DOUBLE_EQ(LeafAcc(inf, s), 1.0);
  EXPECT_DOUBLE_EQ(PodAcc(inf, s), 1.0);
  EXPECT_TRUE(inf.unplaced.empty());
  EXPECT_TRUE(inf.converged);
  EXPECT_EQ(inf.hosts.size(), 32U);
  EXPECT_EQ(inf.offset_us.size(), 32U);
  EXPECT_EQ(inf.pairs, 32 * 31 / 2);
  EXPECT_EQ(inf.probes_used, 32 * 31 * 8);
  ASSERT_EQ(inf.levels_us.size(), 3U);
  // Level differences are the model's (offsets absorb the common part).
  EXPECT_NEAR(inf.levels_us[1] - inf.levels_us[0], 0.9, 0.1);
  EXPECT_NEAR(inf.levels_us[2] - inf.levels_us[1], 2.1, 0.1);
  EXPECT_GT(inf.margin_us, 0.5);
  EXPECT_GT(inf.confidence, 0.5);
  EXPECT_EQ(inf.leaves[0].name, "leaf-00");
  EXPECT_EQ(inf.leaves[0].hosts, (std::vector<std::string>{"n001", "n002", "n003", "n004"}));
  EXPECT_EQ(inf.pods[0].leaves, (std::vector<std::string>{"leaf-00", "leaf-01", "leaf-02", "leaf-03"}));
  EXPECT_FALSE(inf.evidence.empty());
}

TEST(LeafInference, SlowHostOffsetLargerThanTierGap) {
  // Two hosts per leaf (dragonfly routers), tier gap 0.9 µs, one host 1.2 µs slow: the raw
  // minimum RTT of the slow host's leaf pair sits above the other leaves' cross pairs.
  Synth s;
  s.leaves = 16;
  s.hosts_per_leaf = 2;
  s.slow_host = 5;
  s.outlier_rate = 0.01;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    s.seed = seed;
    const LeafInference inf = InferLeaves(Generate(s));
    EXPECT_DOUBLE_EQ(LeafAcc(inf, s), 1.0) << seed;
    EXPECT_DOUBLE_EQ(PodAcc(inf, s), 1.0) << seed;
    // The slow host's fitted offset stands out by about its extra 1.2 µs.
    const auto it = std::find(inf.hosts.begin(), inf.hosts.end(), HostName(5));
    ASSERT_NE(it, inf.hosts.end());
    const double slow = inf.offset_us[static_cast<size_t>(it - inf.hosts.begin())];
    double others = 0;
    for (size_t i = 0; i < inf.hosts.size(); ++i) {
      if (inf.hosts[i] != HostName(5)) others += inf.offset_us[i] / static_cast<double>(inf.hosts.size() - 1);
    }
    EXPECT_NEAR(slow - others, 1.2, 0.25) << seed;
    // Without offsets the slow host's leaf is split.
    LeafInferenceOptions plain;
    plain.fit_offsets = false;
    EXPECT_LT(LeafAcc(InferLeaves(Generate(s), plain), s), 1.0) << seed;
  }
}

// One leaf whose switch delays every crossing (a congested leaf switch) by more than three
// quarters of the tier step: its hosts' nearest peers sit above the global tier midpoint, yet each
// of their rows still has its own gap between the leaf mates and the rest, so the leaf stays whole
// and the single pod is not split. The tiers are close (0.7 µs, switches ~0.1 µs faster than usual).
TEST(LeafInference, LeafWhoseSwitchDelaysEveryPairStaysWhole) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Synth s;
    s.leaves = 4;
    s.hosts_per_leaf = 4;
    s.leaves_per_pod = 4;
    s.level_us = {1.0, 1.7, 3.0};
    s.slow_leaf = 0;
    s.slow_leaf_us = 0.32;
    s.seed = seed;
    const LeafInference inf = InferLeaves(Generate(s));
    EXPECT_DOUBLE_EQ(LeafAcc(inf, s), 1.0) << seed;
    EXPECT_EQ(inf.leaves.size(), 4U) << seed;
    EXPECT_EQ(inf.pods.size(), 1U) << seed;
    EXPECT_DOUBLE_EQ(PodAcc(inf, s), 1.0) << seed;
  }
}

// The smallest real tier step: one more InfiniBand switch (~0.1 µs) and a short cable each way,
// 0.3 µs in all, still separates leaves and pods.
TEST(LeafInference, TierStepOfTheFastestSwitchesIsSeen) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Synth s;
    s.leaves = 8;
    s.hosts_per_leaf = 2;
    s.leaves_per_pod = 4;
    s.level_us = {1.0, 1.3, 2.5};
    s.seed = seed;
    const LeafInference inf = InferLeaves(Generate(s));
    EXPECT_DOUBLE_EQ(LeafAcc(inf, s), 1.0) << seed;
    EXPECT_EQ(inf.leaves.size(), 8U) << seed;
    EXPECT_DOUBLE_EQ(PodAcc(inf, s), 1.0) << seed;
  }
}

TEST(LeafInference, OutliersAndMissingPairs) {
  Synth s;
  s.outlier_rate = 0.05;
  s.drop_pairs = 0.5;
  s.probes = 4;
  const LeafInference inf = InferLeaves(Generate(s));
  EXPECT_DOUBLE_EQ(LeafAcc(inf, s), 1.0);
  EXPECT_DOUBLE_EQ(PodAcc(inf, s), 1.0);
  EXPECT_LT(inf.pairs, 32 * 31 / 2);
}

TEST(LeafInference, SingleTierFabricIsOnePod) {
  Synth s;
  s.leaves_per_pod = 8;  // every leaf in one pod: two levels only
  const LeafInference inf = InferLeaves(Generate(s));
  EXPECT_DOUBLE_EQ(LeafAcc(inf, s), 1.0);
  EXPECT_EQ(inf.pods.size(), 1U);
  EXPECT_EQ(inf.pods[0].leaves.size(), 8U);
}

// Pods a fraction of a microsecond apart (switches of ~0.1 us, long cables between pods) are split
// where the leaves' dendrogram jumps, whatever the absolute size of the jump.
TEST(LeafInference, PodsCloserThanAMicrosecondAreSplit) {
  for (double pod_step : {0.4, 0.6, 2.1}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      Synth s;
      s.leaves = 8;
      s.hosts_per_leaf = 2;
      s.leaves_per_pod = 4;
      s.level_us = {1.0, 1.5, 1.5 + pod_step};
      s.leaf_switch_us = 0.1;
      s.seed = seed;
      const LeafInference inf = InferLeaves(Generate(s));
      EXPECT_DOUBLE_EQ(LeafAcc(inf, s), 1.0) << pod_step << " " << seed;
      EXPECT_EQ(inf.pods.size(), 2U) << pod_step << " " << seed;
      EXPECT_DOUBLE_EQ(PodAcc(inf, s), 1.0) << pod_step << " " << seed;
    }
  }
}

// One pod whose leaf-to-leaf residuals spread by about a microsecond (per-leaf switch latencies)
// against a 2 us tier step: the spread has no jump, so no split.
TEST(LeafInference, OnePodWithWideLeafSpreadIsNotSplit) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Synth s;
    s.leaves = 32;
    s.hosts_per_leaf = 4;
    s.leaves_per_pod = 32;
    s.level_us = {1.0, 3.0, 3.0};
    s.leaf_switch_us = 0.5;
    s.probes = 4;
    s.seed = seed;
    const LeafInference inf = InferLeaves(Generate(s));
    EXPECT_DOUBLE_EQ(LeafAcc(inf, s), 1.0) << seed;
    EXPECT_EQ(inf.pods.size(), 1U) << seed;
  }
}

TEST(LeafInference, HostsWithTooLittleEvidenceAreUnplacedNotDropped) {
  Synth s;
  std::vector<formats::PathProbe> probes = Generate(s);
  formats::PathProbe lone;
  lone.src = "straggler";
  lone.dst = "n001";
  lone.rtt_us = 5;
  probes.push_back(lone);
  LeafInferenceOptions opt;
  opt.min_peers = 2;
  const LeafInference inf = InferLeaves(probes, opt);
  EXPECT_EQ(inf.unplaced, (std::vector<std::string>{"straggler"}));
  EXPECT_EQ(inf.hosts.size(), 33U);
  for (const InferredLeaf& l : inf.leaves) {
    EXPECT_EQ(std::count(l.hosts.begin(), l.hosts.end(), "straggler"), 0);
  }
  bool said = false;
  for (const std::string& e : inf.evidence) said = said || e.find("unplaced straggler") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_DOUBLE_EQ(LeafAcc(inf, s), 1.0);
}

TEST(LeafInference, BadProbesAreCountedAndIgnored) {
  Synth s;
  std::vector<formats::PathProbe> probes = Generate(s);
  const int64_t good = static_cast<int64_t>(probes.size());
  formats::PathProbe bad;
  bad.src = "n001";
  bad.dst = "n002";
  bad.rtt_us = NAN;
  probes.push_back(bad);
  bad.rtt_us = -1;
  probes.push_back(bad);
  bad.rtt_us = 0.01;
  bad.dst = "n001";  // self
  probes.push_back(bad);
  bad.src = "";  // traceroute text without a source
  bad.dst = "n002";
  probes.push_back(bad);
  const LeafInference inf = InferLeaves(probes);
  EXPECT_EQ(inf.probes_used, good);
  EXPECT_EQ(inf.probes_ignored, 4);
  EXPECT_DOUBLE_EQ(LeafAcc(inf, s), 1.0);
}

TEST(LeafInference, EmptyAndTinyInputs) {
  const LeafInference none = InferLeaves({});
  EXPECT_TRUE(none.leaves.empty());
  EXPECT_TRUE(none.hosts.empty());
  EXPECT_FALSE(none.evidence.empty());
  formats::PathProbe p;
  p.src = "a";
  p.dst = "b";
  p.rtt_us = 3;
  const LeafInference one = InferLeaves({p});
  EXPECT_EQ(one.hosts.size(), 2U);
  EXPECT_EQ(one.unplaced.size(), 2U);  // one peer each, fewer than min_peers
  EXPECT_TRUE(one.leaves.empty());
  LeafInferenceOptions lax;
  lax.min_peers = 1;
  const LeafInference two = InferLeaves({p}, lax);
  EXPECT_TRUE(two.unplaced.empty());
  size_t placed = 0;
  for (const InferredLeaf& l : two.leaves) placed += l.hosts.size();
  EXPECT_EQ(placed, 2U);
}

TEST(LeafInference, DeterministicUnderReorderingAndIgnoresHops) {
  Synth s;
  s.slow_host = 9;
  s.outlier_rate = 0.02;
  std::vector<formats::PathProbe> probes = Generate(s);
  const LeafInference a = InferLeaves(probes);
  std::reverse(probes.begin(), probes.end());
  for (formats::PathProbe& p : probes) p.hops = {"x", "y", "z"};
  const LeafInference b = InferLeaves(probes);
  ASSERT_EQ(a.leaves.size(), b.leaves.size());
  for (size_t i = 0; i < a.leaves.size(); ++i) {
    EXPECT_EQ(a.leaves[i].name, b.leaves[i].name);
    EXPECT_EQ(a.leaves[i].hosts, b.leaves[i].hosts);
  }
  ASSERT_EQ(a.pods.size(), b.pods.size());
  for (size_t i = 0; i < a.pods.size(); ++i) EXPECT_EQ(a.pods[i].leaves, b.pods[i].leaves);
  EXPECT_EQ(a.offset_us, b.offset_us);
  EXPECT_EQ(a.levels_us, b.levels_us);
  EXPECT_EQ(a.evidence, b.evidence);
}

// The names report/export/slurm_export writes: leaves "leaf-NN" and pods "pod-NN" in the order of
// their first host, each listing its members sorted.
TEST(LeafInference, NamesLeavesAndPodsInHostOrder) {
  Synth s;
  const LeafInference inf = InferLeaves(Generate(s));
  ASSERT_EQ(inf.leaves.size(), 8U);
  for (int l = 0; l < 8; ++l) {
    EXPECT_EQ(inf.leaves[static_cast<size_t>(l)].name, StringPrintf("leaf-%02d", l));
    std::vector<std::string> hosts;
    for (int h = 0; h < 4; ++h) hosts.push_back(HostName(4 * l + h));
    EXPECT_EQ(inf.leaves[static_cast<size_t>(l)].hosts, hosts);
  }
  ASSERT_EQ(inf.pods.size(), 2U);
  for (int p = 0; p < 2; ++p) {
    const InferredPod& pod = inf.pods[static_cast<size_t>(p)];
    EXPECT_EQ(pod.name, StringPrintf("pod-%02d", p));
    std::vector<std::string> leaves, hosts;
    for (int l = 4 * p; l < 4 * p + 4; ++l) leaves.push_back(StringPrintf("leaf-%02d", l));
    for (int h = 16 * p; h < 16 * p + 16; ++h) hosts.push_back(HostName(h));
    EXPECT_EQ(pod.leaves, leaves);
    EXPECT_EQ(pod.hosts, hosts);
  }
  s.leaves_per_pod = 8;
  const LeafInference one = InferLeaves(Generate(s));
  ASSERT_EQ(one.pods.size(), 1U);
  EXPECT_EQ(one.pods[0].name, "pod-00");
  EXPECT_EQ(one.pods[0].leaves.size(), 8U);
}

}  // namespace leaf_inference_test
}  // namespace toposcope::analysis
