// schedule --simulate ground truth: over the three architectures (seed 1, 16 hosts) the clean runs
// decide nothing, every event (congestion, flapping, degraded) is found on a link whose traffic it
// changed, no decision on any run is wrong, and the scheduled order is faster under congestion (on
// the fat-tree and dragonfly) and a degraded cable, and no slower (within the latency of the moved
// hops) under a flapping one; the JSON carries the score keys.
#include "toposcope/app/schedule_sim_command.h"

#include <gtest/gtest.h>

#include <string>

#include "temp_dir.h"

namespace toposcope::app {
namespace schedule_sim_command_test {

TEST(ScheduleSim, GroundTruthOverArchitectures) {
  sim::TempDir tmp("schedule_sim");
  ScheduleSimRequest r;
  r.seeds = {1};
  r.out = tmp.str();
  auto o = RunScheduleSim(r);
  ASSERT_TRUE(o.ok()) << o.error().ToString();
  EXPECT_EQ(o->runs.size(), 12u);
  EXPECT_EQ(o->clean_decisions, 0);
  EXPECT_DOUBLE_EQ(o->precision, 1.0);
  EXPECT_DOUBLE_EQ(o->recall, 1.0);
  for (const ScheduleSimRun& run : o->runs) {
    EXPECT_EQ(run.correct, run.move_offs) << run.arch << " " << run.event;
    EXPECT_GE(run.speedup, 0.999) << run.arch << " " << run.event;
    if (run.event != "none") {
      EXPECT_TRUE(run.detected) << run.arch << " " << run.event;
    }
    if (run.event == "degraded") {
      EXPECT_GT(run.speedup, 1.2) << run.arch;
    }
    if (run.event == "congestion") {
      EXPECT_TRUE(run.detected) << run.arch;
      EXPECT_NEAR(run.time_to_decision_s, 3.0, 0.5 + 1e-9) << run.arch;
      if (run.arch != "hhre") {
        EXPECT_GT(run.speedup, 1.5) << run.arch;
      }
    }
    if (run.event == "none") {
      EXPECT_EQ(run.decisions, 0) << run.arch;
    }
  }
  const auto j = ScheduleSimJson(*o);
  for (const char* k : {"precision", "recall", "clean_decisions", "allreduce_speedup", "time_to_decision_s"}) {
    EXPECT_TRUE(j["schedule"].contains(k)) << k;
  }
  EXPECT_NE(ScheduleSimText(*o).find("| fat-tree | congestion |"), std::string::npos);
}

TEST(ScheduleSim, BadRequests) {
  ScheduleSimRequest r;
  EXPECT_EQ(RunScheduleSim(r).error().kind, ErrorKind::kUsage);  // no --out
  r.out = "/tmp/unused";
  r.archs = {"torus"};
  EXPECT_EQ(RunScheduleSim(r).error().kind, ErrorKind::kUsage);
  r.archs = {"fat-tree"};
  r.events = {"earthquake"};
  EXPECT_EQ(RunScheduleSim(r).error().kind, ErrorKind::kUsage);
}

}  // namespace schedule_sim_command_test
}  // namespace toposcope::app
