// Unit tests of the simulator's variation (sim/variation): without `vary` nothing changes; with it
// every unset option is drawn from the seed within DOMAIN.md's ranges, given options are kept, the
// draws reach truth.json and the summary (never the analyzer's inputs), and the output stays
// byte-identical for the same seed.
#include "toposcope/sim/variation.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "toposcope/base/file_io.h"
#include "toposcope/sim/simulate.h"

namespace toposcope::sim {
namespace variation_test {

namespace fs = std::filesystem;

std::string TempDir(const std::string& name) {
  return (fs::temp_directory_path() / ("toposcope_variation_" + name + "_" + std::to_string(::getpid()))).string();
}

TEST(Variation, WithoutVaryNothingChanges) {
  SimOptions o;
  o.seed = 9;
  const SimOptions r = ResolveVariation(o);
  EXPECT_TRUE(r.switch_class.empty());
  EXPECT_TRUE(r.link_class.empty());
  EXPECT_TRUE(r.clock_profile.empty());
  EXPECT_EQ(r.dcgm_period_ms, 100);
  EXPECT_EQ(r.slow_dcgm_period_ms, 1000);
  EXPECT_TRUE(r.nccl_version.empty());
  EXPECT_TRUE(r.node_types.empty());
  EXPECT_TRUE(r.drawn_options.empty());
  EXPECT_TRUE(VariationSummary(r).empty());
  // The fixed ranges.
  EXPECT_DOUBLE_EQ(FindSwitchClass("")->lo_us, 0.30);
  EXPECT_DOUBLE_EQ(FindSwitchClass("")->hi_us, 0.50);
  EXPECT_DOUBLE_EQ(FindLinkClass("")->lo_us, 0.05);
  EXPECT_DOUBLE_EQ(FindLinkClass("")->hi_us, 0.12);
}

TEST(Variation, SeedsDrawEveryDimensionWithinItsRange) {
  std::set<std::string> switches, links, clocks, versions, types;
  std::set<int> fast, slow;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SimOptions o;
    o.seed = seed;
    o.vary = true;
    const SimOptions r = ResolveVariation(o);
    EXPECT_NE(FindSwitchClass(r.switch_class), nullptr);
    EXPECT_FALSE(r.switch_class.empty());
    EXPECT_NE(FindLinkClass(r.link_class), nullptr);
    EXPECT_FALSE(r.link_class.empty());
    EXPECT_TRUE(r.clock_profile == "mixed" || r.clock_profile == "ptp" || r.clock_profile == "ntp") << r.clock_profile;
    EXPECT_GE(r.dcgm_period_ms, 100);
    EXPECT_LE(r.dcgm_period_ms, 1000);
    EXPECT_GE(r.slow_dcgm_period_ms, r.dcgm_period_ms);
    EXPECT_EQ(r.slow_dcgm_period_ms % r.dcgm_period_ms, 0);
    EXPECT_LE(r.slow_dcgm_period_ms, r.telemetry_s * 1000.0);
    EXPECT_TRUE(r.nccl_version == "2.26.2" || r.nccl_version == "2.16.5") << r.nccl_version;
    ASSERT_GE(r.node_types.size(), 1U);
    ASSERT_LE(r.node_types.size(), 4U);
    for (const std::string& t : r.node_types) {
      ASSERT_NE(FindNodeType(t), nullptr) << t;
      EXPECT_TRUE(FindNodeType(t)->in_default_mix) << t;
      types.insert(t);
    }
    EXPECT_EQ(r.drawn_options.size(), 7U);
    EXPECT_EQ(VariationSummary(r).size(), 9U);
    EXPECT_TRUE(ValidateVariation(r).ok());
    switches.insert(r.switch_class);
    links.insert(r.link_class);
    clocks.insert(r.clock_profile);
    versions.insert(r.nccl_version);
    fast.insert(r.dcgm_period_ms);
    slow.insert(r.slow_dcgm_period_ms);
    // Deterministic.
    EXPECT_EQ(ResolveVariation(o).switch_class, r.switch_class);
    EXPECT_EQ(ResolveVariation(o).node_types, r.node_types);
  }
  // No dimension is stuck at one value over 40 seeds.
  EXPECT_EQ(switches.size(), 3U);
  EXPECT_EQ(links.size(), 2U);
  EXPECT_EQ(clocks.size(), 3U);
  EXPECT_EQ(versions.size(), 2U);
  EXPECT_EQ(types.size(), 4U);
  EXPECT_GE(fast.size(), 3U);
  EXPECT_GE(slow.size(), 3U);
  EXPECT_TRUE(slow.count(30000)) << "the dcgm-exporter default interval is drawn";
}

TEST(Variation, GivenOptionsAreKept) {
  SimOptions o;
  o.seed = 3;
  o.vary = true;
  o.switch_class = "ib";
  o.clock_profile = "ntp";
  o.dcgm_period_ms = 250;
  o.slow_dcgm_period_ms = 2500;
  o.dcgm_periods_fixed = true;
  o.node_types = {"pcie-only"};
  const SimOptions r = ResolveVariation(o);
  EXPECT_EQ(r.switch_class, "ib");
  EXPECT_EQ(r.clock_profile, "ntp");
  EXPECT_EQ(r.dcgm_period_ms, 250);
  EXPECT_EQ(r.slow_dcgm_period_ms, 2500);
  EXPECT_EQ(r.node_types, std::vector<std::string>{"pcie-only"});
  EXPECT_EQ(r.drawn_options, (std::vector<std::string>{"link_class", "nccl_version"}));
  // Fixing one option leaves the other draws as they were.
  SimOptions free = o;
  free.switch_class.clear();
  EXPECT_EQ(ResolveVariation(free).link_class, r.link_class);
  EXPECT_EQ(ResolveVariation(free).nccl_version, r.nccl_version);
}

TEST(Variation, UnknownNamesAreUsageErrors) {
  SimOptions o;
  o.switch_class = "myrinet";
  Status st = ValidateVariation(o);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::kUsage);
  EXPECT_NE(st.error().ToString().find("myrinet"), std::string::npos);
  o.switch_class.clear();
  o.link_class = "carrier-pigeon";
  EXPECT_FALSE(ValidateVariation(o).ok());
  o.link_class.clear();
  o.clock_profile = "gps";
  EXPECT_FALSE(ValidateVariation(o).ok());
  // Simulate refuses them too.
  auto s = Simulate(o, TempDir("bad"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::kUsage);
}

// A varied simulation: the draws are in truth.json and the summary, the fabric's switch and link
// latencies lie in the drawn classes, the clock disciplines follow the profile, and the same seed
// gives the same bytes.
TEST(Variation, SimulateWritesTheDrawsToTruthAndSummary) {
  SimOptions o;
  o.hosts = 8;
  o.vary = true;
  o.with_telemetry = true;
  o.with_fabric = true;
  o.telemetry_faults = false;
  o.trace_iterations = 0;
  o.probes_per_pair = 2;
  for (uint64_t seed : {2, 5}) {
    o.seed = seed;
    const std::string a = TempDir("a"), b = TempDir("b");
    fs::remove_all(a);
    fs::remove_all(b);
    auto sa = Simulate(o, a);
    ASSERT_TRUE(sa.ok()) << sa.error().ToString();
    ASSERT_TRUE(Simulate(o, b).ok());
    const SimOptions r = ResolveVariation(o);
    EXPECT_EQ(sa->variation, VariationSummary(r));
    EXPECT_EQ(sa->drawn_options, r.drawn_options);
    const std::string text = SimSummaryText(*sa);
    EXPECT_NE(text.find("switch_class " + r.switch_class + " (drawn)"), std::string::npos) << text;
    EXPECT_NE(text.find("dcgm_period_ms " + std::to_string(r.dcgm_period_ms)), std::string::npos) << text;

    const std::string truth_text = *ReadFileText(a + "/truth.json");
    EXPECT_EQ(truth_text, *ReadFileText(b + "/truth.json"));
    const nlohmann::json t = nlohmann::json::parse(truth_text);
    ASSERT_TRUE(t.contains("variation"));
    EXPECT_EQ(t["variation"]["switch_class"], r.switch_class);
    EXPECT_EQ(t["variation"]["clock_profile"], r.clock_profile);
    EXPECT_EQ(t["variation"]["nccl_version"], r.nccl_version);
    EXPECT_EQ(t["variation"]["drawn"].size(), 7U);
    const LatencyClass* sw = FindSwitchClass(r.switch_class);
    for (const auto& s : t["fabric"]["switches"]) {
      EXPECT_GE(s["latency_us"].get<double>(), sw->lo_us - 1e-3) << s.dump();
      EXPECT_LE(s["latency_us"].get<double>(), sw->hi_us + 1e-3) << s.dump();
    }
    EXPECT_EQ(t["telemetry"]["dcgm_period_ms"], r.dcgm_period_ms);
    for (const auto& c : t["clocks"]) {
      if (r.clock_profile != "mixed") {
        EXPECT_EQ(c["discipline"], r.clock_profile) << c.dump();
      }
    }
    // The draws reach no input file: only truth.json names the switch class ("ib" is too short to
    // look for).
    for (const auto& e : fs::recursive_directory_iterator(a)) {
      if (r.switch_class.size() < 3) break;
      if (!e.is_regular_file() || e.path().filename() == "truth.json") continue;
      const auto body = ReadFileText(e.path().string());
      if (body.ok()) {
        EXPECT_EQ(body->find(r.switch_class), std::string::npos) << e.path();
      }
    }
    fs::remove_all(a);
    fs::remove_all(b);
  }
}

}  // namespace variation_test
}  // namespace toposcope::sim
