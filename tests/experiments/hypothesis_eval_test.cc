// The hypothesis tree's ground truth on a small simulated case: a fat-tree of 16 hosts with two
// node faults (plus the simulator's telemetry and fabric faults, two congested links and other
// tenants) must keep its top-1 accuracy, and the clean cluster must raise no fault above 0.5.
// Fails when a change to the model, the findings or the scorer drops top-1.
#include "toposcope/experiments/hypothesis_eval.h"

#include <gtest/gtest.h>

namespace toposcope::experiments {
namespace hypothesis_eval_test {

TEST(HypothesisEval, SmallFatTreeKeepsTopOne) {
  HypothesisEvalOptions o;
  o.archs = {sim::Arch::kFatTree};
  o.seeds = {1};
  o.fault_counts = {0, 2};
  auto e = EvaluateHypotheses(o);
  ASSERT_TRUE(e.ok()) << e.error().ToString();
  ASSERT_EQ(e->runs.size(), 2U);
  EXPECT_EQ(e->runs[0].root_causes, 0);
  EXPECT_LE(e->clean_max_probability, 0.5) << e->table;
  EXPECT_GE(e->causes, 20) << e->table;
  EXPECT_GE(e->top1_accuracy, 0.85) << e->table;
  EXPECT_GE(e->top3_accuracy, 0.85) << e->table;
  // Every kind the analysis reports is found at top-1 here (the flapping cable is not: on this
  // fat-tree its routes' probes are too few to show it down, docs/hypotheses.md).
  for (const char* kind : {"pcie_downtrain", "nvlink_lanes_down", "straggler", "clock_step", "congested_switch",
                           "degraded_link", "detour", "slow_host", "periodic_congestion", "thermal_link_downspeed"}) {
    auto it = e->by_kind.find(kind);
    ASSERT_NE(it, e->by_kind.end()) << kind << "\n" << e->table;
    EXPECT_EQ(it->second.top1, it->second.causes) << kind << "\n" << e->table;
  }
}

// Seed 2: the clock step lands on a chrony host polling every 64 s (four records over the run) and
// the thermal down-speed on a GPU whose NVLinks idle through compute phases; both are found, and
// at top-1. Nothing but the flapping cable is missed.
TEST(HypothesisEval, SparseClockStepAndBurstyThermalDownSpeedAreFound) {
  HypothesisEvalOptions o;
  o.archs = {sim::Arch::kFatTree};
  o.seeds = {2};
  o.fault_counts = {1};
  auto e = EvaluateHypotheses(o);
  ASSERT_TRUE(e.ok()) << e.error().ToString();
  ASSERT_EQ(e->runs.size(), 1U);
  for (const char* kind : {"clock_step", "thermal_link_downspeed"}) {
    auto it = e->by_kind.find(kind);
    ASSERT_NE(it, e->by_kind.end()) << kind << "\n" << e->table;
    EXPECT_EQ(it->second.causes, 1) << kind;
    EXPECT_EQ(it->second.top1, 1) << kind << "\n" << e->table;
  }
  for (const std::string& miss : e->runs[0].not_found) EXPECT_EQ(miss.rfind("flapping_link ", 0), 0U) << miss;
}

}  // namespace hypothesis_eval_test
}  // namespace toposcope::experiments
