// Tests of analysis/telemetry: sampling warnings, thermal link down-speed, stragglers, clock steps.
#include <gtest/gtest.h>

#include "toposcope/analysis/time/telemetry.h"

#include <string>
#include <vector>

namespace toposcope::analysis {
namespace {

model::DcgmPoint Point(const std::string& host, int gpu, int field, int64_t ts_ns, double v, int link = -1) {
  model::DcgmPoint p;
  p.host = host;
  p.gpu = gpu;
  p.link = link;
  p.field_id = field;
  p.field = std::to_string(field);
  p.ts_ns = ts_ns;
  p.value = v;
  return p;
}

TEST(Telemetry, WarnsWhenCommunicationFieldsAreSampledSlowly) {
  model::DcgmStore s;
  for (int i = 0; i < 50; ++i) {
    s.Add(Point("fast", 0, 1011, i * 100'000'000LL, 1e9));   // NVLink tx every 100 ms: fine
    s.Add(Point("slow", 0, 1011, i * 1'000'000'000LL, 1e9)); // every 1 s: too slow
    s.Add(Point("slow", 0, 150, i * 1'000'000'000LL, 60));   // temperature every 1 s: fine
  }
  const TelemetryReport r = AnalyzeTelemetry(s, {});
  ASSERT_EQ(r.sampling_warnings.size(), 1U);
  EXPECT_EQ(r.sampling_warnings[0].host, "slow");
  EXPECT_NEAR(r.sampling_warnings[0].period_ms, 1000, 1e-6);
  EXPECT_EQ(r.sampling_warnings[0].needed_period_ms, 100);
  bool saw_comm = false;
  for (const auto& f : r.fields) {
    if (f.field_id == 1011) {
      saw_comm = true;
      EXPECT_EQ(f.field_class, "communication");
      EXPECT_FALSE(f.ok);
    }
  }
  EXPECT_TRUE(saw_comm);
}

TEST(Telemetry, FindsTheLinkThatSlowsWhileTheGpuIsHot) {
  model::DcgmStore s;
  for (int i = 0; i < 600; ++i) {
    const int64_t t = i * 100'000'000LL;
    const bool hot = i >= 300 && i < 450;
    const double load = 1.0 + 0.3 * ((i / 7) % 2);  // traffic phases
    s.Add(Point("h", 2, 150, t, hot ? 88.0 : 70.0));
    for (int link = 0; link < 4; ++link) {
      double rx = 20e9 * load;
      if (hot && link == 3) rx *= 0.45;
      s.Add(Point("h", 2, 1041 + 2 * link, t, rx));
    }
    // Another GPU is hot too but its links do not slow.
    s.Add(Point("h", 5, 150, t, hot ? 90.0 : 70.0));
    for (int link = 0; link < 4; ++link) s.Add(Point("h", 5, 1041 + 2 * link, t, 20e9 * load * (hot ? 0.9 : 1.0)));
  }
  const TelemetryReport r = AnalyzeTelemetry(s, {});
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(TelemetryFindingKindName(r.findings[0].kind), "thermal_link_downspeed");
  EXPECT_EQ(r.findings[0].gpu, 2);
  EXPECT_EQ(r.findings[0].link, 3);
  EXPECT_FALSE(r.findings[0].evidence.empty());
}

TEST(Telemetry, StragglerStartsItsKernelsLate) {
  StragglerDetector d;
  for (int k = 0; k < 20; ++k) {
    for (int g = 0; g < 8; ++g) {
      MergedEvent m;
      m.event.phase = 'X';
      m.event.type = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
      m.event.host = g < 4 ? "a" : "b";
      m.event.device = "gpu" + std::to_string(g % 4);
      // The straggler computes 2.5 ms longer, so it enters each collective late; every rank leaves
      // the collective together (the others waited inside it).
      m.global_ns = k * 10'000'000LL + (g * 7919 % 13) * 1000 + (g == 6 ? 2'500'000 : 0);
      m.event.dur_ns = k * 10'000'000LL + 4'000'000 - m.global_ns;
      d.Add(m);
    }
  }
  const auto f = d.Finish();
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(TelemetryFindingKindName(f[0].kind), "straggler");
  EXPECT_EQ(f[0].host, "b");
  EXPECT_EQ(f[0].gpu, 2);
}

TEST(Telemetry, NoStragglerWhenEveryoneIsOnTime) {
  StragglerDetector d;
  for (int k = 0; k < 20; ++k) {
    for (int g = 0; g < 8; ++g) {
      MergedEvent m;
      m.event.phase = 'X';
      m.event.type = "ncclKernel_AllReduce_RING_LL_Sum_float";
      m.event.host = "a";
      m.event.device = "gpu" + std::to_string(g);
      m.global_ns = k * 10'000'000LL + ((g * 31 + k * 17) % 11) * 1000;
      d.Add(m);
    }
  }
  EXPECT_TRUE(d.Finish().empty());
}

TEST(Telemetry, ClockStepsBecomeFindings) {
  HostClockFit fit;
  fit.host = "h";
  ClockModel m;
  m.kind = ClockModelKind::kRobust;
  m.steps_local_ns = {123};
  fit.models = {m};
  const TelemetryReport r = AnalyzeTelemetry({}, {fit});
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(TelemetryFindingKindName(r.findings[0].kind), "clock_step");
}

// `dcgmi dmon -l` (real, DCGM 3.1.8): the host's field list is read and checked against the
// fields the analyses use; a host whose list lacks the GPU temperature is told so.
TEST(Telemetry, OfferedFieldsOfARealFieldListAndAMissingOne) {
  auto ds = model::LoadPaths({std::string(TOPOSCOPE_FIXTURES) + "/dcgmi_dmon/dcgm318_dmon_list_fields.txt"}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->inputs.size(), 1u);
  EXPECT_EQ(ds->inputs[0].format, "dcgmi-dmon-fields");
  EXPECT_FALSE(ds->inputs[0].skipped) << ds->inputs[0].skip_reason;
  std::vector<OfferedFields> offered = CheckOfferedFields(*ds);
  ASSERT_EQ(offered.size(), 1u);
  EXPECT_GT(offered[0].offered, 100);
  EXPECT_EQ(offered[0].offered, static_cast<int>(ds->inputs[0].accepted));
  for (const auto& m : offered[0].missing) EXPECT_EQ(m.find("DCGM_FI_DEV_GPU_TEMP"), std::string::npos) << m;

  model::Dataset small;
  small.Host("h").dcgm_offered.push_back({"power_usage", "POWER", 155, 1});
  offered = CheckOfferedFields(small);
  ASSERT_EQ(offered.size(), 1u);
  EXPECT_EQ(offered[0].offered, 1);
  ASSERT_EQ(offered[0].missing.size(), 4u);
  EXPECT_EQ(offered[0].missing[0], "DCGM_FI_DEV_GPU_TEMP (thermal findings)");
}

}  // namespace
}  // namespace toposcope::analysis
