// Tests of analysis/telemetry: sampling warnings, thermal link down-speed, stragglers, clock steps.
#include <gtest/gtest.h>

#include "toposcope/analysis/time/telemetry.h"

#include "toposcope/base/file_io.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace toposcope::analysis {
namespace telemetry_analysis_test {

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

// A training GPU's NVLinks idle through its compute phases (60 % of the samples read 0) and burst
// in its collectives; link 3 trains down at 85 C while heating and back up only below 83 C, so it
// is still down in cool samples under the 87 C limit. Raw rx medians see an idle link either side
// (no cool level); each link's share of the GPU's rx in the same sample (its peers' median) shows
// link 3 at 0.45 while hot and near 1 otherwise. A GPU whose links all carry less while hot (less
// traffic, not a link) gives nothing.
TEST(Telemetry, FindsTheDownLinkByItsShareOfBurstyTraffic) {
  model::DcgmStore s;
  bool down = false;
  for (int i = 0; i < 600; ++i) {
    const int64_t t = i * 100'000'000LL;
    double temp = 70;
    if (i >= 200 && i < 300) temp = 70 + 0.22 * (i - 200);
    if (i >= 300 && i < 400) temp = 92;
    if (i >= 400) temp = 92 - 0.11 * (i - 400);
    if (!down && temp >= 85) down = true;
    if (down && temp < 83) down = false;
    s.Add(Point("h", 2, 150, t, std::round(temp)));
    s.Add(Point("h", 4, 150, t, std::round(temp)));
    const bool busy = i % 5 < 2;
    const double burst = 20e9 * (0.5 + 0.1 * (i % 7));
    for (int link = 0; link < 4; ++link) {
      const double jitter = 1 + 0.05 * (((i * 7 + link * 3) % 11) - 5) / 5.0;
      double rx = busy ? burst * jitter : 0.0;
      if (down && link == 3) rx *= 0.45;
      s.Add(Point("h", 2, 1041 + 2 * link, t, rx));
      s.Add(Point("h", 4, 1041 + 2 * link, t, busy ? burst * jitter * (temp >= 87 ? 0.6 : 1.0) : 0.0));
    }
  }
  TelemetryOptions opt;
  opt.hot_c = 87;
  const TelemetryReport r = AnalyzeTelemetry(s, {}, opt);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0].gpu, 2);
  EXPECT_EQ(r.findings[0].link, 3);
  EXPECT_GT(r.findings[0].confidence, 0.99);
  EXPECT_NE(r.findings[0].evidence.find("rx share fell to"), std::string::npos) << r.findings[0].evidence;
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
  // Measured: late in all 19 collectives where the others never are, so binomially certain.
  EXPECT_GT(f[0].confidence, 0.999);
  EXPECT_NE(f[0].evidence.find("the other ranks are that late in"), std::string::npos) << f[0].evidence;
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

// A GPU whose link 3 slows to `drop` of its share while the GPU is "hot" (samples 300..449 of 600,
// every 100 ms); its temperature is `cool_c` / `hot_c`; `extra` adds other series at each sample.
template <typename Extra>
model::DcgmStore HotGpuStore(double cool_c, double hot_c, double drop, double noise, Extra extra) {
  model::DcgmStore s;
  uint64_t x = 12345;
  auto jitter = [&]() {  // deterministic, +-noise
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return noise * (static_cast<double>(x >> 11) / 9007199254740992.0 * 2 - 1);
  };
  for (int i = 0; i < 600; ++i) {
    const int64_t t = i * 100'000'000LL;
    const bool hot = i >= 300 && i < 450;
    const double load = 1.0 + 0.3 * ((i / 7) % 2);
    s.Add(Point("h", 2, 150, t, hot ? hot_c : cool_c));
    for (int link = 0; link < 4; ++link) {
      double rx = 20e9 * load * (1 + jitter());
      if (hot && link == 3) rx *= drop;
      s.Add(Point("h", 2, 1041 + 2 * link, t, rx));
    }
    extra(s, t, hot);
  }
  return s;
}

model::DcgmStore HotGpuStore(double cool_c, double hot_c, double drop = 0.45, double noise = 0.0) {
  return HotGpuStore(cool_c, hot_c, drop, noise, [](model::DcgmStore&, int64_t, bool) {});
}

// The threshold follows DCGM's own max operating temperature (field 152): the same 82 C samples are
// hot on a GPU that reports 80 C and not on one that reports 90 C.
TEST(Telemetry, HotThresholdFollowsDcgmMaxOperatingTemperature) {
  for (double limit : {80.0, 90.0}) {
    const auto s = HotGpuStore(70, 82, 0.45, 0.0, [&](model::DcgmStore& st, int64_t t, bool) {
      st.Add(Point("h", 2, 152, t, limit));
    });
    const TelemetryReport r = AnalyzeTelemetry(s, {});
    if (limit == 80.0) {
      ASSERT_EQ(r.findings.size(), 1U);
      EXPECT_EQ(r.findings[0].threshold_source, "dcgm_max_operating_temp");
      EXPECT_DOUBLE_EQ(r.findings[0].hot_c, 80.0);
      EXPECT_NE(r.findings[0].evidence.find("temperature >= 80 C (dcgm_max_operating_temp)"), std::string::npos)
          << r.findings[0].evidence;
    } else {
      EXPECT_TRUE(r.findings.empty());
    }
  }
  // Without 152, DCGM's slowdown temperature (158) is used.
  const auto s = HotGpuStore(70, 82, 0.45, 0.0, [&](model::DcgmStore& st, int64_t t, bool) {
    st.Add(Point("h", 2, 158, t, 81));
  });
  const TelemetryReport r = AnalyzeTelemetry(s, {});
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0].threshold_source, "dcgm_slowdown_temp");
}

// With DCGM's clock throttle reasons the thermal slowdown bits decide, whatever the temperature: a
// GPU at 75 C with HW thermal slowdown (0x40) is hot; power capping (0x04) is not thermal.
TEST(Telemetry, ThermalThrottleBitsMarkTheHotSamples) {
  for (int bits : {0x40, 0x20, 0x04}) {
    const auto s = HotGpuStore(70, 75, 0.45, 0.0, [&](model::DcgmStore& st, int64_t t, bool hot) {
      st.Add(Point("h", 2, 112, t, hot ? bits : 0));
    });
    const TelemetryReport r = AnalyzeTelemetry(s, {});
    if (bits == 0x04) {
      EXPECT_TRUE(r.findings.empty());
      continue;
    }
    ASSERT_EQ(r.findings.size(), 1U) << bits;
    EXPECT_EQ(r.findings[0].threshold_source, "dcgm_clock_throttle_reasons");
    EXPECT_TRUE(std::isnan(r.findings[0].hot_c));
    EXPECT_EQ(r.findings[0].link, 3);
  }
}

// Without DCGM limits the GPU's model decides: 86 C is hot for an A100 (max operating 85 C) and not
// for an H100 SXM (87 C); an unknown model gets the lowest limit of the table.
TEST(Telemetry, HotThresholdFromTheGpuModel) {
  const auto s = HotGpuStore(70, 86);
  GpuModels models;
  models[{"h", 2}] = "NVIDIA A100-SXM4-80GB";
  TelemetryReport r = AnalyzeTelemetry(s, {}, {}, models);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0].threshold_source, "gpu_model");
  EXPECT_DOUBLE_EQ(r.findings[0].hot_c, 85.0);
  models[{"h", 2}] = "NVIDIA H100 80GB HBM3";
  EXPECT_TRUE(AnalyzeTelemetry(s, {}, {}, models).findings.empty());
  EXPECT_EQ(AnalyzeTelemetry(HotGpuStore(70, 88), {}, {}, models).findings.size(), 1U);
  r = AnalyzeTelemetry(s, {});
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0].threshold_source, "lowest_known_model_limit");
  EXPECT_DOUBLE_EQ(r.findings[0].hot_c, LowestKnownMaxOperatingC());
  // The caller's option overrides the data.
  TelemetryOptions opt;
  opt.hot_c = 90;
  EXPECT_TRUE(AnalyzeTelemetry(s, {}, opt).findings.empty());
}

// The confidence measures the drop against its noise: a clear drop on quiet links is near 1, a
// marginal drop on noisy links is lower, and the noise-free case is 1.
TEST(Telemetry, ThermalConfidenceGrowsWithTheDropOverTheNoise) {
  const auto clear = AnalyzeTelemetry(HotGpuStore(70, 95, 0.45, 0.02), {});
  const auto marginal = AnalyzeTelemetry(HotGpuStore(70, 95, 0.66, 0.4), {});
  const auto exact = AnalyzeTelemetry(HotGpuStore(70, 95, 0.45, 0.0), {});
  ASSERT_EQ(clear.findings.size(), 1U);
  ASSERT_EQ(marginal.findings.size(), 1U);
  ASSERT_EQ(exact.findings.size(), 1U);
  EXPECT_GT(clear.findings[0].confidence, 0.999);
  EXPECT_LT(marginal.findings[0].confidence, clear.findings[0].confidence);
  EXPECT_GT(marginal.findings[0].confidence, 0.5);
  EXPECT_DOUBLE_EQ(exact.findings[0].confidence, 1.0);
  EXPECT_NE(clear.findings[0].evidence.find("standard errors below"), std::string::npos);
}

// The clock-step confidence comes from the step's size over the model's noise: a 50 us step on a
// model with 1 us residuals is certain, a step of one noise sigma is not.
TEST(Telemetry, ClockStepConfidenceFromTheStepOverTheNoise) {
  auto fit_with = [](double step_ns, double mean_abs_us) {
    HostClockFit fit;
    fit.host = "h";
    ClockModel m;
    m.kind = ClockModelKind::kRobust;
    m.segments = {{0, 1'000'000'000, 0, 0, 0, 0}, {1'000'000'000, 2'000'000'000, 0, step_ns, 0, 0}};
    m.steps_local_ns = {1'000'000'000};
    m.mean_abs_residual_us = mean_abs_us;
    fit.models = {m};
    return AnalyzeTelemetry({}, {fit});
  };
  const auto big = fit_with(50'000, 1.0);
  const auto small = fit_with(1'253, 1.0);
  ASSERT_EQ(big.findings.size(), 1U);
  ASSERT_EQ(small.findings.size(), 1U);
  EXPECT_GT(big.findings[0].confidence, 0.999);
  EXPECT_NEAR(small.findings[0].confidence, 0.68, 0.02);  // P(|N| < 1)
  EXPECT_NE(big.findings[0].evidence.find("by 50.0 us"), std::string::npos) << big.findings[0].evidence;
  EXPECT_TRUE(std::isnan(fit_with(50'000, NAN).findings[0].confidence));
}

// With the host's `nvidia-smi -q` (the real H100 file, T.Limit form) the GPU's own limit decides, not
// its model's: loaded as host "h", GPU 2's own max operating limit is 87 C (current + headroom), so
// 86 C is not hot; GPU 6's readings give 83 C, so the same store as GPU 6 is hot, with the file and
// form named. A GPU whose -q gives only a slowdown limit is judged against that; DCGM's own limit
// field (152) still comes first.
TEST(Telemetry, HotThresholdFromTheGpusOwnNvidiaSmiQLimits) {
  auto text = ReadFileText(std::string(TOPOSCOPE_TESTDATA) +
                           "/real/nvidia_smi_q/h100_80gb_hbm3_x8_driver565_tlimit_nvidia_smi_q.txt");
  ASSERT_TRUE(text.ok());
  Diagnostics diag;
  auto q = formats::ParseNvsmiQuery(*text, "q.txt", diag);
  ASSERT_TRUE(q.ok());
  model::Dataset ds;
  model::AddNvsmiQuery(ds, "h", "q.txt", *q);
  GpuOwnLimits limits = GpuOwnLimitsOf(ds);
  ASSERT_EQ(limits.size(), 8U);
  const GpuModels models = GpuModelsOf(ds);
  EXPECT_EQ(models.at({"h", 2}), "NVIDIA H100 80GB HBM3");  // the model from -q
  const auto s = HotGpuStore(70, 86);                       // GPU 2 of host h at 86 C
  EXPECT_TRUE(AnalyzeTelemetry(s, {}, {}, models, limits).findings.empty());
  const HotThreshold own = HotThresholdOf(s, "h", 2, models, {}, limits);
  EXPECT_EQ(own.source, HotSource::kNvsmiLimit);
  EXPECT_EQ(own.source_name, "nvidia_smi_q_max_operating_temp");
  EXPECT_DOUBLE_EQ(own.hot_c, 87);
  limits[{"h", 2}] = limits.at({"h", 6});  // GPU 6's section (83 C) as GPU 2's
  TelemetryReport r = AnalyzeTelemetry(s, {}, {}, models, limits);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0].threshold_source, "nvidia_smi_q_max_operating_temp");
  EXPECT_DOUBLE_EQ(r.findings[0].hot_c, 83);
  EXPECT_EQ(r.findings[0].threshold_file, "q.txt:1352");
  EXPECT_NE(r.findings[0].evidence.find("the GPU's own limit, tlimit form, q.txt:1352"), std::string::npos)
      << r.findings[0].evidence;
  limits[{"h", 2}].max_operating_c = NAN;  // only the slowdown limit (85 C for GPU 6's readings)
  r = AnalyzeTelemetry(s, {}, {}, models, limits);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0].threshold_source, "nvidia_smi_q_slowdown_temp");
  EXPECT_DOUBLE_EQ(r.findings[0].hot_c, 85);
  auto with_dcgm = s;
  with_dcgm.Add({"h", 2, -1, 152, "DCGM_FI_DEV_GPU_MAX_OP_TEMP", 0, 90});
  with_dcgm.Add({"h", 2, -1, 152, "DCGM_FI_DEV_GPU_MAX_OP_TEMP", 1000, 90});
  EXPECT_EQ(HotThresholdOf(with_dcgm, "h", 2, models, {}, limits).source_name, "dcgm_max_operating_temp");
}

// Golden: the limits table agrees with real `nvidia-smi -q` output (testdata/real/nvidia_smi_q):
// absolute "GPU Max Operating Temp" where the driver prints it, else current + T.Limit headroom
// (newer drivers), the median over the file's GPUs.
TEST(Telemetry, ThermalLimitsTableMatchesRealNvidiaSmiOutput) {
  struct Case {
    const char* file;
    int gpus;
    bool absolute;
  };
  const Case cases[] = {{"a100_sxm4_80gb_x4_driver555_nvidia_smi_q.txt", 4, true},
                        {"h800_driver525_nvidia_smi_q.txt", 1, true},
                        {"h100_80gb_hbm3_x8_driver565_tlimit_nvidia_smi_q.txt", 8, false}};
  for (const Case& c : cases) {
    std::ifstream in(std::string(TOPOSCOPE_TESTDATA) + "/real/nvidia_smi_q/" + c.file);
    ASSERT_TRUE(in) << c.file;
    std::string line, product;
    std::vector<double> max_op, slowdown, shutdown, current, tlimit, slowdown_tl, shutdown_tl;
    auto value = [&](const std::string& key) -> double {
      const auto k = line.find(key);
      if (k == std::string::npos || line.find(':', k) == std::string::npos) return NAN;
      const std::string rest = line.substr(line.find(':', k) + 1);
      char* end = nullptr;
      const double v = std::strtod(rest.c_str(), &end);
      return end != rest.c_str() ? v : NAN;
    };
    auto key_is = [&](const std::string& key) {
      const auto k = line.find_first_not_of(' ');
      return k != std::string::npos && line.compare(k, key.size() + 1, key + " ") == 0;
    };
    while (std::getline(in, line)) {
      if (key_is("Product Name")) product = line.substr(line.find(':') + 2);
      if (key_is("GPU Max Operating Temp")) max_op.push_back(value("GPU Max Operating Temp"));
      if (key_is("GPU Slowdown Temp")) slowdown.push_back(value("GPU Slowdown Temp"));
      if (key_is("GPU Shutdown Temp")) shutdown.push_back(value("GPU Shutdown Temp"));
      if (key_is("GPU Current Temp")) current.push_back(value("GPU Current Temp"));
      if (key_is("GPU T.Limit Temp")) tlimit.push_back(value("GPU T.Limit Temp"));
      if (key_is("GPU Slowdown T.Limit Temp")) slowdown_tl.push_back(value("GPU Slowdown T.Limit Temp"));
      if (key_is("GPU Shutdown T.Limit Temp")) shutdown_tl.push_back(value("GPU Shutdown T.Limit Temp"));
    }
    const auto limits = FindGpuThermalLimits(product);
    ASSERT_TRUE(limits.has_value()) << product;
    ASSERT_EQ(current.size(), static_cast<size_t>(c.gpus)) << c.file;
    if (c.absolute) {
      ASSERT_EQ(max_op.size(), static_cast<size_t>(c.gpus)) << c.file;
      for (size_t g = 0; g < max_op.size(); ++g) {
        EXPECT_DOUBLE_EQ(max_op[g], limits->max_operating_c) << c.file;
        EXPECT_DOUBLE_EQ(slowdown[g], limits->slowdown_c) << c.file;
        EXPECT_DOUBLE_EQ(shutdown[g], limits->shutdown_c) << c.file;
      }
    } else {
      EXPECT_TRUE(max_op.empty()) << c.file;  // T.Limit only
      ASSERT_EQ(tlimit.size(), current.size());
      std::vector<double> sum;
      for (size_t g = 0; g < current.size(); ++g) sum.push_back(current[g] + tlimit[g]);
      std::sort(sum.begin(), sum.end());
      EXPECT_DOUBLE_EQ(sum[sum.size() / 2], limits->max_operating_c) << c.file;
      ASSERT_EQ(slowdown_tl.size(), current.size());
      for (size_t g = 0; g < current.size(); ++g) {  // "-2 C": 2 C past the max operating temperature
        EXPECT_DOUBLE_EQ(limits->max_operating_c - slowdown_tl[g], limits->slowdown_c) << c.file;
        EXPECT_DOUBLE_EQ(limits->max_operating_c - shutdown_tl[g], limits->shutdown_c) << c.file;
      }
    }
  }
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

}  // namespace telemetry_analysis_test
}  // namespace toposcope::analysis
