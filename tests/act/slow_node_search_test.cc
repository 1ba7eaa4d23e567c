// The slow-node search's planner: screening, the belief update (halves run, halves inferred,
// hosts cleared), stopping, thresholds that follow the data, borderline readings repeated,
// priors, contradictions and bad calls. Results come from a small oracle here: the healthy level
// times the slowest member's factor, with a deterministic wobble.
#include "toposcope/act/slow_node_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace toposcope::act {
namespace slow_node_search_test {

std::vector<std::string> Hosts(int n) {
  std::vector<std::string> h;
  for (int i = 0; i < n; ++i) h.push_back("h" + std::to_string(100 + i));
  return h;
}

using Oracle = std::function<double(const PlannedRun&)>;

// busbw = level x the slowest member's factor x (1 + 0.2 % wobble by run id).
Oracle SlowOracle(std::map<std::string, double> slow, double level = 340) {
  return [slow, level](const PlannedRun& r) {
    double f = 1;
    for (const std::string& h : r.hosts) {
      if (auto it = slow.find(h); it != slow.end()) f = std::min(f, it->second);
    }
    return level * f * (1 + 0.002 * std::sin(1.7 * r.id));
  };
}

// Runs the search to the end (or `max_rounds`) against an oracle.
SlowNodeAnswer RunAll(SlowNodeSearch& s, const Oracle& oracle, int max_rounds = 1000) {
  for (int round = 0; round < max_rounds && !s.Done(); ++round) {
    for (const PlannedRun& r : s.Pending()) {
      RunObservation o;
      o.id = r.id;
      o.busbw_gbps = oracle(r);
      EXPECT_TRUE(s.Observe(o).ok());
    }
  }
  return s.Answer();
}

SlowNodeSearch Make(int n, const std::vector<SlowNodePrior>& priors = {}, SlowNodeSearchOptions opt = {}) {
  auto s = SlowNodeSearch::Create(Hosts(n), priors, opt);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().ToString());
  return std::move(*s);
}

TEST(SlowNodeSearch, ScreensInEqualGroupsOfAtLeastTwo) {
  SlowNodeSearch s = Make(64);
  const auto p = s.Pending();
  ASSERT_EQ(p.size(), 8u);
  for (const PlannedRun& r : p) {
    EXPECT_EQ(r.hosts.size(), 8u);
    EXPECT_EQ(r.round, 1);
  }
  SlowNodeSearch small = Make(5);
  ASSERT_EQ(small.Pending().size(), 2u);  // 5 hosts: groups of 2 and 3, never a host alone
  EXPECT_EQ(small.Pending()[0].hosts.size() + small.Pending()[1].hosts.size(), 5u);
}

TEST(SlowNodeSearch, NoSlowNodeStopsAfterTheScreen) {
  SlowNodeSearch s = Make(64);
  const SlowNodeAnswer a = RunAll(s, SlowOracle({}));
  EXPECT_TRUE(a.done);
  EXPECT_TRUE(a.slow.empty());
  EXPECT_EQ(a.runs, 8);
  EXPECT_EQ(a.rounds, 1);
  EXPECT_GT(a.confidence, 0.99);
  EXPECT_NEAR(a.healthy_busbw_gbps, 340, 2);
}

TEST(SlowNodeSearch, BeliefUpdateRunsTheLighterHalfAndInfersTheOther) {
  SlowNodeSearch s = Make(64);
  const std::string slow = "h110";  // in screen 2 (h108..h115)
  const Oracle oracle = SlowOracle({{slow, 0.6}});
  for (const PlannedRun& r : s.Pending()) ASSERT_TRUE(s.Observe({r.id, oracle(r), -1, false, ""}).ok());
  // Round 2: one run, half of the slow screen group; the other screens' hosts are cleared.
  auto p = s.Pending();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].round, 2);
  EXPECT_EQ(p[0].hosts.size(), 4u);
  for (const std::string& h : p[0].hosts) EXPECT_TRUE(h >= "h108" && h <= "h115") << h;
  EXPECT_EQ(s.runs()[1].verdict, RunVerdict::kSlow);
  EXPECT_EQ(s.runs()[0].verdict, RunVerdict::kHealthy);
  EXPECT_EQ(std::count(p[0].hosts.begin(), p[0].hosts.end(), slow), 0);  // the lighter half: h112..h115
  ASSERT_TRUE(s.Observe({p[0].id, oracle(p[0]), -1, false, ""}).ok());
  // It read healthy: the other half is inferred slow without a run and split; its lighter quarter runs.
  p = s.Pending();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].hosts, (std::vector<std::string>{"h110", "h111"}));
  ASSERT_TRUE(s.Observe({p[0].id, oracle(p[0]), -1, false, ""}).ok());
  // That quarter read slow: the search goes on in it ({h111} with a known-good host); {h108, h109} waits.
  p = s.Pending();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(std::count(p[0].hosts.begin(), p[0].hosts.end(), "h111"), 1);
  EXPECT_EQ(p[0].hosts.size(), 2u);
  const SlowNodeAnswer a = RunAll(s, oracle);
  EXPECT_EQ(a.slow, std::vector<std::string>{slow});
  // screen + one run per halving + a confirmation + the rest of the screen group ({h108, h109}).
  EXPECT_EQ(a.runs, 8 + 3 + 1 + 1);
  EXPECT_EQ(s.runs().back().plan.hosts, (std::vector<std::string>{"h108", "h109"}));
  EXPECT_NE(s.runs().back().plan.reason.find("rest of screen group 2"), std::string::npos);
  EXPECT_GT(a.confidence, 0.9);
}

TEST(SlowNodeSearch, ThresholdFollowsTheData) {
  // The same cluster on hardware 10x slower: the same runs, the same answer.
  const std::map<std::string, double> slow{{"h105", 0.7}, {"h140", 0.8}};
  SlowNodeSearch fast = Make(64), slow_hw = Make(64);
  const SlowNodeAnswer a = RunAll(fast, SlowOracle(slow, 340));
  const SlowNodeAnswer b = RunAll(slow_hw, SlowOracle(slow, 34));
  EXPECT_EQ(a.slow, (std::vector<std::string>{"h105", "h140"}));
  EXPECT_EQ(b.slow, a.slow);
  EXPECT_EQ(b.runs, a.runs);
  EXPECT_NEAR(b.healthy_busbw_gbps * 10, a.healthy_busbw_gbps, 0.5);
  EXPECT_LT(a.slow_below_gbps, a.healthy_above_gbps);
  EXPECT_LT(a.healthy_above_gbps, a.healthy_busbw_gbps);
}

TEST(SlowNodeSearch, NoiseComesFromTheRunsSpread) {
  // Healthy runs spread by +-3 %: the noise grows past the 1 % floor and a 40 % loss is still told.
  SlowNodeSearch s = Make(64);
  const std::map<std::string, double> slow{{"h120", 0.6}};
  const SlowNodeAnswer a = RunAll(s, [&](const PlannedRun& r) {
    return SlowOracle(slow)(r) * (1 + 0.03 * std::cos(2.3 * r.id));
  });
  EXPECT_GT(a.noise_rel, 0.015);
  EXPECT_EQ(a.slow, std::vector<std::string>{"h120"});
}

TEST(SlowNodeSearch, BorderlineReadingIsRepeated) {
  SlowNodeSearch s = Make(16);
  const auto screen = s.Pending();
  ASSERT_EQ(screen.size(), 8u);
  // Screen 3 reads 6 % low (between 4 and 8 noise sigmas of 1 %): repeated, then reads healthy.
  for (const PlannedRun& r : screen) ASSERT_TRUE(s.Observe({r.id, r.id == 3 ? 319.6 : 340.0, -1, false, ""}).ok());
  auto p = s.Pending();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].hosts, screen[2].hosts);
  EXPECT_NE(p[0].reason.find("repeat of run 3"), std::string::npos) << p[0].reason;
  EXPECT_EQ(s.runs()[2].verdict, RunVerdict::kBorderline);
  ASSERT_TRUE(s.Observe({p[0].id, 340.5, -1, false, ""}).ok());  // median of 319.6 and 340.5: healthy
  EXPECT_TRUE(s.Done());
  EXPECT_TRUE(s.Answer().slow.empty());
  EXPECT_EQ(s.Answer().runs, 9);
}

TEST(SlowNodeSearch, BorderlineAfterRepeatsIsDecidedByTheNearerBand) {
  SlowNodeSearchOptions opt;
  opt.max_repeats = 1;
  SlowNodeSearch s = Make(16, {}, opt);
  for (const PlannedRun& r : s.Pending()) ASSERT_TRUE(s.Observe({r.id, r.id == 1 ? 315.0 : 340.0, -1, false, ""}).ok());
  auto p = s.Pending();
  ASSERT_EQ(p.size(), 1u);
  ASSERT_TRUE(s.Observe({p[0].id, 316.0, -1, false, ""}).ok());  // 7 sigmas below twice: slow
  EXPECT_FALSE(s.Done());
  ASSERT_FALSE(s.Answer().notes.empty());
  EXPECT_NE(s.Answer().notes.back().find("taken as slow"), std::string::npos);
}

TEST(SlowNodeSearch, PriorsPutSuspectsInSmallGroupsAndSaveRuns) {
  const std::map<std::string, double> slow{{"h777", 0.6}};
  SlowNodeSearch plain = Make(1024);
  const SlowNodeAnswer a = RunAll(plain, SlowOracle(slow));
  SlowNodeSearch hinted = Make(1024, {{"h777", 0.5, "straggler"}});
  const auto screen = hinted.Pending();
  ASSERT_FALSE(screen.empty());
  EXPECT_EQ(screen[0].hosts.size(), 2u);  // the suspect and one other host
  EXPECT_EQ(std::count(screen[0].hosts.begin(), screen[0].hosts.end(), "h777"), 1);
  const SlowNodeAnswer b = RunAll(hinted, SlowOracle(slow));
  EXPECT_EQ(a.slow, std::vector<std::string>{"h777"});
  EXPECT_EQ(b.slow, a.slow);
  EXPECT_LT(b.runs, a.runs);
  EXPECT_FALSE(b.notes.empty());
}

TEST(SlowNodeSearch, FalseSlowReadingIsRecheckedAndClears) {
  SlowNodeSearch s = Make(32);
  // Screen 1 reads slow once (a transient); every later run is healthy.
  const SlowNodeAnswer a = RunAll(s, [](const PlannedRun& r) { return r.id == 1 ? 200.0 : 340.0; });
  EXPECT_TRUE(a.done);
  EXPECT_TRUE(a.slow.empty());
  EXPECT_TRUE(a.unresolved.empty());
  bool noted = false;
  for (const std::string& n : a.notes) noted = noted || n.find("inferred slow but read healthy") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(SlowNodeSearch, FailedValidationCountsAsSlow) {
  SlowNodeSearch s = Make(16);
  const SlowNodeAnswer a = RunAll(s, SlowOracle({}), 0);
  (void)a;
  for (const PlannedRun& r : s.Pending()) {
    RunObservation o{r.id, 340, -1, false, ""};
    o.failed = std::count(r.hosts.begin(), r.hosts.end(), "h103") > 0;
    ASSERT_TRUE(s.Observe(o).ok());
  }
  const SlowNodeAnswer b = RunAll(s, [](const PlannedRun& r) {
    return std::count(r.hosts.begin(), r.hosts.end(), "h103") ? 100.0 : 340.0;
  });
  EXPECT_EQ(b.slow, std::vector<std::string>{"h103"});
}

TEST(SlowNodeSearch, SeveralSlowNodesInOneGroup) {
  SlowNodeSearch s = Make(64);
  const SlowNodeAnswer a = RunAll(s, SlowOracle({{"h100", 0.5}, {"h101", 0.8}, {"h107", 0.7}}));
  EXPECT_EQ(a.slow, (std::vector<std::string>{"h100", "h101", "h107"}));
}

TEST(SlowNodeSearch, BudgetLeavesHostsUnresolved) {
  SlowNodeSearchOptions opt;
  opt.max_runs = 9;
  SlowNodeSearch s = Make(64, {}, opt);
  const SlowNodeAnswer a = RunAll(s, SlowOracle({{"h130", 0.5}}));
  EXPECT_TRUE(a.done);
  EXPECT_FALSE(a.unresolved.empty());
  EXPECT_EQ(a.confidence, 0.0);
}

TEST(SlowNodeSearch, BadCalls) {
  EXPECT_FALSE(SlowNodeSearch::Create({"a"}, {}).ok());
  EXPECT_EQ(SlowNodeSearch::Create({"a"}, {}).error().kind, ErrorKind::kUsage);
  EXPECT_FALSE(SlowNodeSearch::Create({"a", "a"}, {}).ok());
  EXPECT_FALSE(SlowNodeSearch::Create({"a", ""}, {}).ok());
  EXPECT_FALSE(SlowNodeSearch::Create({"a", "b"}, {{"a", 1.5, ""}}).ok());
  SlowNodeSearchOptions bad;
  bad.slow_sigmas = 1;
  EXPECT_FALSE(SlowNodeSearch::Create({"a", "b"}, {}, bad).ok());
  auto s = SlowNodeSearch::Create({"a", "b", "c", "d"}, {{"zz", 0.5, "x"}});
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->Observe({99, 1, -1, false, "f"}).ok());
  EXPECT_FALSE(s->Observe({1, NAN, -1, false, "f"}).ok());
  EXPECT_TRUE(s->Observe({1, 300, -1, false, "f"}).ok());
  EXPECT_FALSE(s->Observe({1, 300, -1, false, "f"}).ok());  // observed already
  EXPECT_NE(s->Answer().notes.front().find("zz"), std::string::npos);
}

}  // namespace slow_node_search_test
}  // namespace toposcope::act
