// Tests for analysis/tomography: exact and noisy recovery on small leaf/spine fat-trees,
// identifiability (uncovered, always together, in the span), edge cases, determinism, and the
// OpenSM hop weights of tomography weights.
#include "toposcope/analysis/fabric/tomography.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "toposcope/base/rng.h"

namespace toposcope::analysis {
namespace tomography_test {

// Two-level leaf/spine fat-tree. Cable ids: "h<leaf>.<k>" host cables, "l<leaf>-s<spine>"
// leaf-spine cables; one id per cable, listed once per crossing (out and back), so the solved
// value is the per-crossing latency of the cable (switch + wire + port, µs; DOMAIN.md §2: an idle
// NDR hop is ~0.1–0.3 µs, host-to-host RTTs a few µs). ECMP: independent spines out and back.
struct FatTree {
  int leaves, spines, hosts_per_leaf;
  std::map<std::string, double> truth;  // per-crossing latency, µs
  static std::string Host(int l, int k) { return "h" + std::to_string(l) + "." + std::to_string(k); }
  static std::string Up(int l, int s) { return "l" + std::to_string(l) + "-s" + std::to_string(s); }

  FatTree(int l, int s, int h, uint64_t seed) : leaves(l), spines(s), hosts_per_leaf(h) {
    Rng rng(seed);
    for (int a = 0; a < l; ++a) {
      for (int k = 0; k < h; ++k) truth[Host(a, k)] = rng.Uniform(0.6, 1.2);  // HCA + cable + port
      for (int b = 0; b < s; ++b) truth[Up(a, b)] = rng.Uniform(0.15, 0.45);  // switch + cable
    }
  }
  TomographyPath Path(int la, int ka, int lb, int kb, int s_out, int s_back) const {
    TomographyPath p;
    p.src = "n" + std::to_string(la) + "." + std::to_string(ka);
    p.dst = "n" + std::to_string(lb) + "." + std::to_string(kb);
    const std::string ha = Host(la, ka), hb = Host(lb, kb);
    if (la == lb) {
      p.links = {ha, hb, hb, ha};
    } else {
      p.links = {ha, Up(la, s_out), Up(lb, s_out), hb, hb, Up(lb, s_back), Up(la, s_back), ha};
    }
    p.rtt_us = 0;
    for (const auto& id : p.links) p.rtt_us += truth.at(id);
    return p;
  }
  // `count` random host pairs (with the intra-leaf pairs that pin the host cables).
  std::vector<TomographyPath> Probes(int count, uint64_t seed) const {
    Rng rng(seed);
    std::vector<TomographyPath> out;
    for (int i = 0; i < count; ++i) {
      const int la = static_cast<int>(rng.Below(leaves)), lb = static_cast<int>(rng.Below(leaves));
      const int ka = static_cast<int>(rng.Below(hosts_per_leaf));
      int kb = static_cast<int>(rng.Below(hosts_per_leaf));
      if (la == lb && ka == kb) kb = (kb + 1) % hosts_per_leaf;
      out.push_back(Path(la, ka, lb, kb, static_cast<int>(rng.Below(spines)),
                         static_cast<int>(rng.Below(spines))));
    }
    return out;
  }
};

const LinkWeight* Find(const TomographyResult& r, const std::string& id) {
  for (const auto& l : r.links)
    if (l.link == id) return &l;
  return nullptr;
}

TEST(Tomography, ExactRecoveryNoiseFree) {
  const FatTree ft(4, 3, 3, 11);
  const auto paths = ft.Probes(400, 12);
  const TomographyResult r = SolveTomography(paths);
  EXPECT_EQ(r.paths, 400);
  EXPECT_EQ(r.link_count, static_cast<int64_t>(ft.truth.size()));
  EXPECT_EQ(r.rank_deficiency, 0) << r.method;
  EXPECT_LT(r.relative_residual, 1e-9);
  EXPECT_GT(r.iterations, 0);
  EXPECT_NE(r.method.find("lsqr"), std::string::npos);
  double wmin = 1e9, wmax = -1e9;
  for (const auto& l : r.links) {
    ASSERT_TRUE(l.identifiable) << l.link << ": " << l.reason;
    EXPECT_NEAR(l.latency_us, ft.truth.at(l.link), 1e-7 * ft.truth.at(l.link)) << l.link;
    EXPECT_GT(l.paths, 0);
    wmin = std::min(wmin, l.weight);
    wmax = std::max(wmax, l.weight);
  }
  EXPECT_DOUBLE_EQ(wmin, 0.1);
  EXPECT_DOUBLE_EQ(wmax, 5.0);
  EXPECT_TRUE(std::is_sorted(r.links.begin(), r.links.end(),
                             [](const auto& a, const auto& b) { return a.link < b.link; }));
  // CG on the normal equations gives the same latencies; W = I too (noise-free data).
  TomographyOptions o;
  o.use_cg = true;
  const TomographyResult rc = SolveTomography(paths, o);
  EXPECT_NE(rc.method.find("cg-normal"), std::string::npos);
  o.use_cg = false;
  o.seed_weighting = false;
  const TomographyResult ru = SolveTomography(paths, o);
  for (size_t j = 0; j < r.links.size(); ++j) {
    EXPECT_NEAR(rc.links[j].latency_us, r.links[j].latency_us, 1e-7);
    EXPECT_NEAR(ru.links[j].latency_us, r.links[j].latency_us, 1e-7);
  }
}

TEST(Tomography, RandomProbeAgreesWithDenseIdentifiability) {
  const FatTree ft(5, 4, 3, 21);
  const auto paths = ft.Probes(30, 22);  // too few paths: some links are not identifiable
  TomographyOptions dense, probe;
  probe.dense_identifiability_limit = 1;  // force the randomised LSQR probe
  const TomographyResult a = SolveTomography(paths, dense);
  const TomographyResult b = SolveTomography(paths, probe);
  EXPECT_NE(a.method.find("dense-eigen"), std::string::npos) << a.method;
  EXPECT_NE(b.method.find("lsqr-probe"), std::string::npos) << b.method;
  ASSERT_EQ(a.links.size(), b.links.size());
  int unident = 0;
  for (size_t j = 0; j < a.links.size(); ++j) {
    EXPECT_EQ(a.links[j].identifiable, b.links[j].identifiable) << a.links[j].link;
    unident += !a.links[j].identifiable;
    if (a.links[j].identifiable) {
      EXPECT_NEAR(a.links[j].latency_us, ft.truth.at(a.links[j].link), 1e-6);
    } else {
      EXPECT_TRUE(std::isnan(a.links[j].weight));
      EXPECT_TRUE(std::isnan(a.links[j].latency_us));
      EXPECT_FALSE(a.links[j].reason.empty());
    }
  }
  EXPECT_GT(unident, 0);
  EXPECT_GT(a.rank_deficiency, 0);
  EXPECT_GE(a.rank_deficiency, b.rank_deficiency);  // the probe's count is a lower bound
}

TEST(Tomography, NoisyRecoveryMedianRelativeError) {
  const FatTree ft(6, 4, 4, 31);
  auto paths = ft.Probes(3000, 32);
  Rng rng(33);
  for (auto& p : paths) p.rtt_us *= 1.0 + 0.02 * rng.Normal();  // 2 % measurement noise
  const TomographyResult r = SolveTomography(paths);
  std::vector<double> rel;
  for (const auto& l : r.links) {
    ASSERT_TRUE(l.identifiable) << l.link;
    rel.push_back(std::abs(l.latency_us - ft.truth.at(l.link)) / ft.truth.at(l.link));
  }
  std::nth_element(rel.begin(), rel.begin() + rel.size() / 2, rel.end());
  const double median = rel[rel.size() / 2];
  std::printf("noisy recovery (2%% RTT noise, %zu links, 3000 paths): median rel error %.4f, "
              "relative residual %.4f, %d iterations\n",
              rel.size(), median, r.relative_residual, r.iterations);
  EXPECT_LT(median, 0.05);
  EXPECT_GT(r.relative_residual, 1e-4);
}

TEST(Tomography, UncoveredAndAlwaysTogether) {
  // Directed ids with symmetric routes: "a->b" and "b->a" are always crossed together.
  std::vector<TomographyPath> paths = {
      {"x", "y", {"x->s", "s->y", "y->s", "s->x"}, 4.0},
      {"x", "z", {"x->s", "s->z", "z->s", "s->x"}, 5.0},
      {"y", "z", {"y->s", "s->z", "z->s", "s->y"}, 6.0},
  };
  TomographyOptions o;
  o.extra_links = {"s->w", "x->s"};  // "x->s" is covered, "s->w" is not
  const TomographyResult r = SolveTomography(paths, o);
  EXPECT_EQ(r.link_count, 7);
  const LinkWeight* w = Find(r, "s->w");
  ASSERT_NE(w, nullptr);
  EXPECT_FALSE(w->identifiable);
  EXPECT_EQ(w->reason, "uncovered");
  EXPECT_EQ(w->paths, 0);
  EXPECT_TRUE(std::isnan(w->weight));
  const LinkWeight* xs = Find(r, "x->s");
  ASSERT_NE(xs, nullptr);
  EXPECT_FALSE(xs->identifiable);
  EXPECT_EQ(xs->reason, "rank-deficient: always together with s->x");
  EXPECT_EQ(xs->paths, 2);
  EXPECT_EQ(Find(r, "s->x")->reason, "rank-deficient: always together with x->s");
  // 7 links: 1 uncovered + 3 pairs → rank 3, deficiency 4.
  EXPECT_EQ(r.rank_deficiency, 4);
  for (const auto& l : r.links) EXPECT_FALSE(l.identifiable);

  // One id per cable instead: the 3 cables are identifiable (x+y=2, x+z=2.5, y+z=3 per crossing).
  std::vector<TomographyPath> cables = {
      {"x", "y", {"x-s", "s-y", "s-y", "x-s"}, 4.0},
      {"x", "z", {"x-s", "s-z", "s-z", "x-s"}, 5.0},
      {"y", "z", {"s-y", "s-z", "s-z", "s-y"}, 6.0},
  };
  const TomographyResult c = SolveTomography(cables);
  EXPECT_EQ(c.rank_deficiency, 0);
  EXPECT_NEAR(Find(c, "x-s")->latency_us, 0.75, 1e-9);
  EXPECT_NEAR(Find(c, "s-y")->latency_us, 1.25, 1e-9);
  EXPECT_NEAR(Find(c, "s-z")->latency_us, 1.75, 1e-9);
  EXPECT_NEAR(Find(c, "x-s")->weight, 0.1, 1e-12);
  EXPECT_NEAR(Find(c, "s-z")->weight, 5.0, 1e-12);
  EXPECT_NEAR(Find(c, "s-y")->weight, 2.55, 1e-9);
}

TEST(Tomography, GroupsStillCarryTheirLatency) {
  // p and q are always together; their sum (3) is part of two RTTs and must not leak into a, b.
  const std::vector<TomographyPath> paths = {{"", "", {"a"}, 1},
                                             {"", "", {"a", "p", "q"}, 4},
                                             {"", "", {"b"}, 2},
                                             {"", "", {"b", "q", "p"}, 5}};
  for (int limit : {2000, 1}) {
    TomographyOptions o;
    o.dense_identifiability_limit = limit;
    const TomographyResult r = SolveTomography(paths, o);
    EXPECT_EQ(r.rank_deficiency, 1);
    EXPECT_NEAR(Find(r, "a")->latency_us, 1, 1e-9);
    EXPECT_NEAR(Find(r, "b")->latency_us, 2, 1e-9);
    EXPECT_LT(r.relative_residual, 1e-9);
    EXPECT_FALSE(Find(r, "p")->identifiable);
    EXPECT_EQ(Find(r, "q")->reason, "rank-deficient: always together with p");
    EXPECT_TRUE(std::isnan(Find(r, "q")->weight));
  }
}

TEST(Tomography, InTheSpanOfOthers) {
  // a+c = b+d over every row: rank 3, no identical columns; all four are unidentifiable.
  std::vector<TomographyPath> paths = {
      {"", "", {"a", "b"}, 3}, {"", "", {"c", "d"}, 7}, {"", "", {"a", "d"}, 5},
      {"", "", {"b", "c"}, 5}};
  for (int limit : {2000, 1}) {
    TomographyOptions o;
    o.dense_identifiability_limit = limit;
    const TomographyResult r = SolveTomography(paths, o);
    EXPECT_EQ(r.rank_deficiency, 1) << r.method;
    for (const auto& l : r.links) {
      EXPECT_FALSE(l.identifiable) << l.link;
      EXPECT_EQ(l.reason, "rank-deficient: in the span of other links");
    }
  }
  // Add a path that pins "a": everything becomes identifiable.
  paths.push_back({"", "", {"a"}, 1});
  const TomographyResult r = SolveTomography(paths);
  EXPECT_EQ(r.rank_deficiency, 0);
  EXPECT_NEAR(Find(r, "a")->latency_us, 1, 1e-9);
  EXPECT_NEAR(Find(r, "b")->latency_us, 2, 1e-9);
  EXPECT_NEAR(Find(r, "c")->latency_us, 3, 1e-9);
  EXPECT_NEAR(Find(r, "d")->latency_us, 4, 1e-9);
}

TEST(Tomography, DirectedLinksInAClosAreNotIdentifiableFromRtts) {
  // Physics, not a bug: with directed ids, up and down latencies of a leaf can be traded
  // (every RTT crosses one up-link and one down-link of each end leaf), so RTTs determine
  // only sums. The identifiability check must say so instead of inventing one-way weights.
  Rng rng(41);
  std::vector<TomographyPath> paths;
  for (int i = 0; i < 300; ++i) {
    const int la = static_cast<int>(rng.Below(4)), lb = (la + 1 + static_cast<int>(rng.Below(3))) % 4;
    const int s1 = static_cast<int>(rng.Below(3)), s2 = static_cast<int>(rng.Below(3));
    auto up = [](int l, int s) { return "l" + std::to_string(l) + ">s" + std::to_string(s); };
    auto dn = [](int s, int l) { return "s" + std::to_string(s) + ">l" + std::to_string(l); };
    paths.push_back({"a", "b", {up(la, s1), dn(s1, lb), up(lb, s2), dn(s2, la)},
                     4.0 + rng.Uniform(0, 1)});
  }
  const TomographyResult r = SolveTomography(paths);
  EXPECT_GT(r.rank_deficiency, 0);
  for (const auto& l : r.links) EXPECT_FALSE(l.identifiable) << l.link;
}

TEST(Tomography, EdgeCases) {
  TomographyResult r = SolveTomography({});
  EXPECT_EQ(r.paths, 0);
  EXPECT_TRUE(r.links.empty());
  EXPECT_EQ(r.method, "empty");
  // one path, one link: exactly determined
  r = SolveTomography({{"a", "b", {"only"}, 2.5}});
  ASSERT_EQ(r.links.size(), 1u);
  EXPECT_TRUE(r.links[0].identifiable);
  EXPECT_NEAR(r.links[0].latency_us, 2.5, 1e-12);
  EXPECT_EQ(r.links[0].weight, 0.1);  // a single value maps to min_weight
  // one path, two links: always together
  r = SolveTomography({{"a", "b", {"p", "q"}, 2.5}});
  EXPECT_EQ(r.rank_deficiency, 1);
  for (const auto& l : r.links) EXPECT_FALSE(l.identifiable);
  // bad paths are dropped and counted
  r = SolveTomography({{"a", "b", {"p"}, std::nan("")},
                       {"a", "b", {"p"}, -1},
                       {"a", "b", {}, 3},
                       {"a", "b", {"p"}, std::numeric_limits<double>::infinity()},
                       {"a", "b", {"p", "p"}, 3}});
  EXPECT_EQ(r.dropped_paths, 4);
  EXPECT_EQ(r.paths, 1);
  ASSERT_EQ(r.links.size(), 1u);
  EXPECT_NEAR(r.links[0].latency_us, 1.5, 1e-12);  // crossed twice
  // zero RTT is allowed (weight 1/1e-6, as the seed)
  r = SolveTomography({{"a", "b", {"z"}, 0.0}, {"a", "b", {"z", "y"}, 1.0}});
  EXPECT_NEAR(Find(r, "z")->latency_us, 0, 1e-9);
  EXPECT_NEAR(Find(r, "y")->latency_us, 1, 1e-9);
  // only extra links, no paths: all uncovered
  TomographyOptions o;
  o.extra_links = {"u1", "u2"};
  r = SolveTomography({}, o);
  EXPECT_EQ(r.link_count, 2);
  EXPECT_EQ(r.rank_deficiency, 2);
  for (const auto& l : r.links) EXPECT_EQ(l.reason, "uncovered");
}

TEST(Tomography, HostTermsAddEndpointConstants) {
  // A dual-homed-free star: host constants and their only cable are always together.
  std::vector<TomographyPath> paths = {{"x", "y", {"x-s", "s-y", "s-y", "x-s"}, 8.0},
                                       {"x", "z", {"x-s", "s-z", "s-z", "x-s"}, 9.0}};
  TomographyOptions o;
  o.host_terms = true;
  const TomographyResult r = SolveTomography(paths, o);
  const LinkWeight* hx = Find(r, "host:x");
  ASSERT_NE(hx, nullptr);
  EXPECT_EQ(hx->paths, 2);
  EXPECT_FALSE(hx->identifiable);
  EXPECT_EQ(hx->reason.rfind("rank-deficient", 0), 0u);
}

TEST(Tomography, Deterministic) {
  const FatTree ft(5, 3, 3, 51);
  auto paths = ft.Probes(500, 52);
  Rng rng(53);
  for (auto& p : paths) p.rtt_us *= 1.0 + 0.05 * rng.Normal();
  const TomographyResult a = SolveTomography(paths), b = SolveTomography(paths);
  ASSERT_EQ(a.links.size(), b.links.size());
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.relative_residual, b.relative_residual);
  for (size_t j = 0; j < a.links.size(); ++j) {
    EXPECT_EQ(a.links[j].link, b.links[j].link);
    EXPECT_EQ(a.links[j].latency_us, b.links[j].latency_us);  // bit-identical
    EXPECT_EQ(a.links[j].weight, b.links[j].weight);
  }
}

TEST(OpenSmHopWeights, WeightsFromTomography) {
  EXPECT_EQ(HopWeightFromTomography(0.1), 1);
  EXPECT_EQ(HopWeightFromTomography(5.0), 50);
  EXPECT_EQ(HopWeightFromTomography(0.26), 3);
  EXPECT_EQ(HopWeightFromTomography(std::nan(""), 0.1, 7), 7);
  EXPECT_EQ(HopWeightFromTomography(-3), 1);
}

}  // namespace tomography_test
}  // namespace toposcope::analysis
