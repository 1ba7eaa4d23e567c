// Ground truth under variation: small clusters simulated with SimOptions::vary (switch and link
// classes, clock profile, DCGM periods, NCCL version and node types drawn from each seed; see
// sim/variation.h) are analysed from their real-format files and scored with the thresholds the
// fixed-configuration end-to-end tests use (tests/experiments/ground_truth_test.cc,
// tests/cli/end_to_end.sh): no analysis may lean on one simulator value.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "toposcope/analysis/analyze.h"
#include "toposcope/analysis/time/align.h"
#include "toposcope/base/file_io.h"
#include "toposcope/model/dataset.h"
#include "toposcope/report/result_json.h"
#include "toposcope/report/score.h"
#include "toposcope/sim/simulate.h"
#include "toposcope/sim/variation.h"

namespace toposcope {
namespace varied_ground_truth_test {

// Seeds 1-5 on each of the three architectures (the variation is what `simulate` and the demo do
// by default).
class VariedGroundTruth : public ::testing::TestWithParam<std::string> {};

TEST_P(VariedGroundTruth, ScoresHoldOverDrawnConfigurations) {
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    sim::SimOptions opt;
    opt.arch = sim::ParseArch(GetParam()).value();
    opt.seed = seed;
    opt.vary = true;
    opt.hosts = 8;
    opt.faults = 3;
    opt.with_telemetry = true;
    opt.with_fabric = true;
    opt.probes_per_pair = 32;  // the CLI's default
    const sim::SimOptions drawn = sim::ResolveVariation(opt);
    std::string what = GetParam() + " seed " + std::to_string(seed) + ":";
    for (const auto& [name, value] : sim::VariationSummary(drawn)) what += " " + name + "=" + value;

    const std::string dir =
        (std::filesystem::temp_directory_path() / ("toposcope_varied_gt_" + std::to_string(::getpid()))).string();
    std::filesystem::remove_all(dir);
    auto s = sim::Simulate(opt, dir);
    ASSERT_TRUE(s.ok()) << what << ": " << s.error().ToString();
    auto ds = model::LoadPaths({dir}, {});
    ASSERT_TRUE(ds.ok()) << what;
    analysis::AnalysisResult r = analysis::Analyze(*ds, analysis::AnalyzeOptions{});
    // Stragglers come from the global timeline, as in the fixed-configuration test.
    auto aligned = analysis::AlignDataset(*ds, r.clocks, [](const analysis::MergedEvent&) {});
    ASSERT_TRUE(aligned.ok()) << what;
    r.timeline = aligned->timeline;
    for (auto& f : aligned->stragglers) r.telemetry.findings.push_back(f);
    for (const auto& in : r.inputs) {
      if (in.format == "toposcope-truth") continue;
      EXPECT_FALSE(in.skipped) << what << " " << in.path << ": " << in.skip_reason;
      EXPECT_EQ(in.rejected, 0) << what << " " << in.path;
    }
    const nlohmann::json truth = nlohmann::json::parse(*ReadFileText(dir + "/truth.json"));
    auto score = report::Score(truth, report::ResultToJson(r));
    ASSERT_TRUE(score.ok()) << what;
    const nlohmann::json& sc = *score;
    const std::string dump = what + "\n" + sc.dump(2);
    // Node topology (ground_truth_test's ExpectPerfect).
    EXPECT_DOUBLE_EQ(sc["islands"]["ari"].get<double>(), 1.0) << dump;
    EXPECT_GE(sc["links"]["type_accuracy"].get<double>(), 0.995) << dump;
    EXPECT_GE(sc["links"]["degraded"]["precision"].get<double>(), 0.99) << dump;
    EXPECT_GE(sc["links"]["degraded"]["recall"].get<double>(), 0.99) << dump;
    // Clocks and telemetry faults (ground_truth_test's TelemetryClocksAndFaults): every injected
    // fault found, nothing false (a pcie-only cluster has no NVLink to down-speed).
    EXPECT_EQ(sc["clocks"]["hosts_best_worse_than_quadratic"].get<int>(), 0) << dump;
    for (const char* kind : {"thermal_link_downspeed", "straggler"}) {
      if (!sc["detection"].contains(kind)) continue;
      EXPECT_GE(sc["detection"][kind]["recall"].get<double>(), 1.0) << kind << " " << dump;
      EXPECT_GE(sc["detection"][kind]["precision"].get<double>(), 1.0) << kind << " " << dump;
    }
    EXPECT_GE(sc["detection"]["clock_step"]["precision"].get<double>(), 1.0) << dump;
    // Fabric from probes (end_to_end.sh).
    EXPECT_EQ(sc["fabric"]["source"], "probes") << dump;
    EXPECT_DOUBLE_EQ(sc["fabric"]["leaf_accuracy"].get<double>(), 1.0) << dump;
    EXPECT_DOUBLE_EQ(sc["fabric"]["pod_accuracy"].get<double>(), 1.0) << dump;
    EXPECT_LE(sc["tomography"]["median_rel_error"].get<double>(), 0.05) << dump;
    std::filesystem::remove_all(dir);
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, VariedGroundTruth, ::testing::Values("fat-tree", "dragonfly", "hhre"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

}  // namespace varied_ground_truth_test
}  // namespace toposcope
