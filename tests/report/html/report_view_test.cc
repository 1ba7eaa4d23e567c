// Tests of report/html/report_view: hosts by index, leaves from the dump (switch descriptions),
// name groups when no leaf is known, cable marks from the hypothesis tree (flapping over degraded),
// entropy series (decided links first, downsampled, too-few-packet windows as null), the caps on
// long lists, and the diagnostics matched to their files.
#include "toposcope/report/html/report_view.h"

#include <gtest/gtest.h>

#include <string>

namespace toposcope::report::html {
namespace report_view_test {

using nlohmann::json;

json WithHosts(const std::vector<std::string>& hosts) {
  json r = {{"schema", "toposcope.result/1"}, {"gpus", json::array()}};
  for (const auto& h : hosts) r["gpus"].push_back({{"host", h}, {"id", h + "/gpu0"}, {"index", 0}});
  return r;
}

TEST(ReportView, NameGroupsWithoutAFabric) {
  std::vector<std::string> hosts;
  for (const char* rack : {"rackA-", "rackB-"}) {
    for (int i = 1; i <= 10; ++i) hosts.push_back(rack + std::to_string(100 + i));
  }
  const json v = ReportViewJson(WithHosts(hosts));
  ASSERT_EQ(v["fabric"]["leaves"].size(), 2U);
  EXPECT_EQ(v["fabric"]["leaves"][0]["name"], "rackA*");
  EXPECT_EQ(v["fabric"]["leaves"][0]["hosts"].size(), 10U);
  EXPECT_TRUE(v["fabric"]["leaves"][1]["guessed"].get<bool>());

  hosts.clear();
  for (int i = 1; i <= 40; ++i) hosts.push_back("node" + std::to_string(1000 + i));
  const json w = ReportViewJson(WithHosts(hosts));
  ASSERT_EQ(w["fabric"]["leaves"].size(), 2U);
  EXPECT_EQ(w["fabric"]["leaves"][0]["name"], "hosts 1-32");
  EXPECT_EQ(w["fabric"]["leaves"][1]["hosts"].size(), 8U);
}

TEST(ReportView, LeavesAndMarkedCablesFromTheDump) {
  json r = WithHosts({"h1", "h2"});
  r["fabric"] = {
      {"source", "ibnetdiscover"},
      {"switches", {{{"id", "S-1"}, {"desc", "leaf1"}}, {{"id", "S-2"}, {"desc", "spine1"}}, {{"id", "S-3"}, {"desc", "spine2"}}}},
      {"cas", {{{"id", "H-1"}, {"name", "h1"}}, {{"id", "H-2"}, {"name", "h2"}}}},
      {"links", {{{"a", "H-1"}, {"b", "S-1"}, {"tier", "host-leaf"}, {"width", "4x"}, {"speed", "NDR"}},
                 {{"a", "S-1"}, {"b", "S-2"}, {"tier", "leaf-spine"}, {"width", "4x"}, {"speed", "NDR"}},
                 {{"a", "S-1"}, {"b", "S-3"}, {"tier", "leaf-spine"}, {"width", "1x"}, {"speed", "NDR"}}}},
      {"leaves", {{{"switch", "S-1"}, {"hosts", {"h1"}}}}},
      {"spines", {"S-2", "S-3"}},
      {"findings", {{{"kind", "link_below_usual"}, {"node", "S-1"}, {"peer", "S-3"}}}}};
  r["link_weights"] = {{{"link", "h1--leaf1"}, {"latency_us", 0.5}, {"queue_spread_us", 0.1}}};
  r["hypotheses"] = {{"symptoms", {{{"kind", "slow_cable"}, {"entity", "leaf1--spine1"},
                                    {"hypotheses", {{{"kind", "degraded_link"}, {"entity", "leaf1--spine1"}, {"probability", 0.7}},
                                                    {{"kind", "flapping_link"}, {"entity", "leaf1--spine1"}, {"probability", 0.6}},
                                                    {{"kind", "noise"}, {"entity", "leaf1--spine1"}, {"probability", 0.9}}}}}}}};
  const json v = ReportViewJson(r);
  const json& f = v["fabric"];
  EXPECT_EQ(v["hosts"], json({"h1", "h2"}));
  ASSERT_EQ(f["leaves"].size(), 2U);  // leaf1, then the host no leaf holds
  EXPECT_EQ(f["leaves"][0]["name"], "leaf1");
  EXPECT_EQ(f["leaves"][0]["hosts"], json::array({0}));
  EXPECT_TRUE(f["leaves"][1]["unplaced"].get<bool>());
  EXPECT_EQ(f["spines"], json({"spine1", "spine2"}));
  ASSERT_EQ(f["cables"].size(), 3U);
  // Rows: [a, b, tier, rate, state, latency us, queueing us, mark], by name.
  std::map<std::string, json> by;
  for (const json& c : f["cables"]) by[c[0].get<std::string>() + "--" + c[1].get<std::string>()] = c;
  EXPECT_EQ(by["h1--leaf1"], json({"h1", "leaf1", "host-leaf", "4x NDR", "", 0.5, 0.1, ""}));
  EXPECT_EQ(by["leaf1--spine1"][7], "flapping");  // flapping over degraded; noise never marks
  EXPECT_EQ(by["leaf1--spine2"][7], "degraded");  // below its tier's usual width
  EXPECT_EQ(by["leaf1--spine2"][3], "1x NDR");
  EXPECT_TRUE(by["leaf1--spine2"][5].is_null());
}

TEST(ReportView, EntropySeriesDecidedLinksFirstAndDownsampled) {
  json r = {{"schema", "toposcope.result/1"}, {"link_entropy", json::array()}};
  for (const std::string link : {"a~b", "c~d"}) {
    for (int w = 0; w < 100; ++w) {
      const int64_t t = 1'000'000'000 + static_cast<int64_t>(w) * 10'000'000;
      const double bits = link == "a~b" ? 1.0 : (w % 2 ? 3.0 : 0.5);  // c~d swings wider
      r["link_entropy"].push_back({{"link", link}, {"estimator", "message_size"}, {"window_start_ns", t}, {"bits", bits},
                                   {"not_enough_packets", w == 0}});
      r["link_entropy"].push_back({{"link", link}, {"estimator", "seed_header"}, {"window_start_ns", t}, {"bits", 4.0}});
      r["link_entropy"].push_back({{"link", link}, {"estimator", "flow_qp"}, {"window_start_ns", t}, {"bits", 9.0}});
    }
  }
  ViewLimits lim;
  lim.entropy_points = 25;
  json v = ReportViewJson(r, lim)["entropy"];
  ASSERT_EQ(v["series"].size(), 2U);
  EXPECT_EQ(v["series"][0]["link"], "c~d");  // the wider swing first
  EXPECT_EQ(v["series"][0]["points"].size(), 25U);
  EXPECT_EQ(v["series"][0]["windows"], 100);
  EXPECT_FALSE(v["scheduled"].get<bool>());
  EXPECT_EQ(v["thresholds"]["hot_bits"], 2.5);
  // The first window had too few packets: the first bucket averages the other three.
  EXPECT_EQ(v["series"][1]["points"][0], json({0.0, 1.0, 4.0}));

  r["schedule"] = {{"estimator", "message_size"}, {"shown_estimator", "seed_header"}, {"options", {{"hot_bits", 2.0}, {"cool_bits", 1.0}}},
                   {"decisions", {{{"t_ns", 1'500'000'000}, {"action", "move_off"}, {"link", "a~b"}}}}};
  v = ReportViewJson(r, lim)["entropy"];
  EXPECT_EQ(v["series"][0]["link"], "a~b");  // a decision's link first
  EXPECT_EQ(v["decisions"][0]["t"], 0.5);
  EXPECT_EQ(v["thresholds"]["hot_bits"], 2.0);
  EXPECT_TRUE(v["scheduled"].get<bool>());
}

TEST(ReportView, CapsAndDiagnostics) {
  json r = {{"schema", "toposcope.result/1"}, {"inputs", json::array()}, {"hypotheses", {{"symptoms", json::array()}}}};
  for (int i = 0; i < 30; ++i) {
    r["inputs"].push_back({{"path", "/d/f" + std::to_string(i) + ":x.txt"}, {"format", i % 2 ? "a" : "b"}, {"records", 10},
                           {"rejected", i == 7 ? 2 : 0}, {"skipped", i == 9}, {"skip_reason", i == 9 ? "unknown format" : ""}});
    r["hypotheses"]["symptoms"].push_back({{"kind", "k"}, {"entity", std::to_string(i)}});
  }
  r["diagnostics"] = {{"rejected", 2}, {"kept", {"/d/f7:x.txt:3: rejected: bad", "/d/f7:x.txt:4: rejected: worse", "other"}}};
  ViewLimits lim;
  lim.files = 5;
  lim.symptoms = 4;
  const json v = ReportViewJson(r, lim);
  EXPECT_EQ(v["hypotheses"]["symptoms"].size(), 4U);
  EXPECT_EQ(v["hypotheses"]["total"], 30);
  const json& in = v["inputs"];
  EXPECT_EQ(in["files"].size(), 5U);
  EXPECT_EQ(in["files_total"], 30);
  EXPECT_EQ(in["files"][0]["path"], "/d/f9:x.txt");  // skipped first
  EXPECT_EQ(in["files"][1]["path"], "/d/f7:x.txt");  // then the most rejections
  EXPECT_EQ(in["files"][1]["diagnostics"], json({"/d/f7:x.txt:3: rejected: bad", "/d/f7:x.txt:4: rejected: worse"}));
  ASSERT_EQ(in["formats"].size(), 2U);
  EXPECT_EQ(in["formats"][0], json({{"format", "a"}, {"files", 15}, {"read", 150}, {"rejected", 2}, {"skipped", 1}}));
}

}  // namespace report_view_test
}  // namespace toposcope::report::html
