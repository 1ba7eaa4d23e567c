// schedule end to end in the library: a simulated ring with another tenant congesting one cable
// (sim/ring_events, real-format files) is replayed: the decision names a link whose traffic the
// event changed, its hostfiles are golden against its order, its NCCL graph file reads back through
// our reader, result.json carries the schedule section; the clean run decides nothing; --follow over
// a JSON-lines stream emits the decision as it fires, with golden hostfile order; bad streams
// (empty, one window, NaN, bad JSON) are named by line.
#include "toposcope/app/schedule_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/formats/nccl/nccl_xml.h"
#include "toposcope/sim/ring_events.h"

namespace toposcope::app {
namespace schedule_command_test {

namespace fs = std::filesystem;

std::vector<std::string> Lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Writes a scene's dataset and returns the schedule request over its real-format files.
ScheduleRequest RequestFor(const sim::RingEventScene& s, const fs::path& dir) {
  auto files = sim::WriteRingEventDataset(s, (dir / "data").string());
  EXPECT_TRUE(files.ok());
  ScheduleRequest r;
  for (const std::string& f : *files) {
    if (f != "truth.json" && f != "hostfile") r.paths.push_back((dir / "data" / f).string());
  }
  r.hosts_file = (dir / "data" / "hostfile").string();
  r.out = (dir / "out").string();
  r.entropy_window_ns = 500'000'000;
  return r;
}

TEST(ScheduleCommand, CongestionDecidesAndWritesActions) {
  sim::TempDir tmp("schedule_congestion");
  sim::RingEventOptions o;
  o.seed = 2;
  o.event = sim::RingEventKind::kCongestion;
  auto scene = sim::PlanRingEvent(o);
  ASSERT_TRUE(scene.ok()) << scene.error().ToString();
  auto out = RunSchedule(RequestFor(*scene, tmp.path()));
  ASSERT_TRUE(out.ok()) << out.error().ToString();
  ASSERT_FALSE(out->decisions.empty());
  const ScheduledDecision& d = out->decisions.front();
  EXPECT_EQ(d.decision.action, "move_off");
  EXPECT_TRUE(std::find(scene->affected_links.begin(), scene->affected_links.end(), d.decision.evidence.link) !=
              scene->affected_links.end())
      << d.decision.evidence.link;
  const double t_s = static_cast<double>(d.decision.t_ns - scene->base_ns) / 1e9;
  EXPECT_GE(t_s, o.event_start_s + 3.0);
  EXPECT_LE(t_s, o.event_start_s + 4.0);
  EXPECT_EQ(out->order_source, "hostfile");
  EXPECT_EQ(d.action.avoided_after, 0);
  // Hostfiles of the new order.
  const fs::path dd = tmp.path() / "out" / "decision-0";
  std::vector<std::string> mpi, torch;
  for (const std::string& h : d.action.order) mpi.push_back(h + " slots=8"), torch.push_back(h);
  EXPECT_EQ(Lines(dd / "hostfile"), mpi);
  EXPECT_EQ(Lines(dd / "torchrun_hosts"), torch);
  EXPECT_EQ(Lines(dd / "slurm_hostfile").size(), 8 * d.action.order.size());
  // The NCCL graph file reads back through our reader.
  auto text = ReadFileText((dd / "nccl_graph.xml").string());
  ASSERT_TRUE(text.ok());
  Diagnostics diag;
  ReadCounts counts;
  auto graphs = formats::ParseNcclGraphXml(*text, "nccl_graph.xml", diag, counts);
  ASSERT_TRUE(graphs.ok()) << graphs.error().ToString();
  EXPECT_EQ(counts.rejected, 0);
  ASSERT_EQ(graphs->graphs.size(), 1u);
  EXPECT_EQ(graphs->graphs[0].pattern, 4);
  // Golden: two ring channels through 8 GPUs, 400 Gb/s host cables / 8 / 2 channels = 25 GB/s.
  std::string golden =
      "<graphs version=\"1\">\n"
      "  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"2\" speedintra=\"25\" speedinter=\"25\" "
      "latencyinter=\"0\" typeintra=\"SYS\" typeinter=\"SYS\" samechannels=\"1\">\n";
  for (int ch = 0; ch < 2; ++ch) {
    golden += "    <channel>\n      <net dev=\"0\"/>\n";
    for (int g = 0; g < 8; ++g) golden += "      <gpu dev=\"" + std::to_string(g) + "\"/>\n";
    golden += "      <net dev=\"0\"/>\n    </channel>\n";
  }
  golden += "  </graph>\n</graphs>\n";
  EXPECT_EQ(*text, golden);
  auto env = Lines(dd / "nccl.env");
  EXPECT_TRUE(std::find(env.begin(), env.end(), "export NCCL_IB_QPS_PER_CONNECTION=4") != env.end());
  // result.json has the schedule section; schedule.json its schema.
  auto rj = ReadFileText((tmp.path() / "out" / "result.json").string());
  ASSERT_TRUE(rj.ok());
  const auto j = nlohmann::json::parse(*rj);
  ASSERT_TRUE(j.contains("schedule"));
  EXPECT_EQ(j["schedule"]["decisions"].size(), out->decisions.size());
  EXPECT_EQ(j["schedule"]["estimator"], "message_size");
  auto sj = nlohmann::json::parse(*ReadFileText((tmp.path() / "out" / "schedule.json").string()));
  EXPECT_EQ(sj["schema"], "toposcope.schedule/1");
  // Deterministic: the same inputs give the same schedule.json.
  auto again = RunSchedule(RequestFor(*scene, tmp.path() / "again"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ScheduleJson(*again).dump(), ScheduleJson(*out).dump());
}

TEST(ScheduleCommand, CleanRunDecidesNothing) {
  for (const sim::Arch arch : {sim::Arch::kFatTree, sim::Arch::kDragonfly, sim::Arch::kHhre}) {
    sim::TempDir tmp("schedule_clean");
    sim::RingEventOptions o;
    o.arch = arch;
    o.event = sim::RingEventKind::kNone;
    auto scene = sim::PlanRingEvent(o);
    ASSERT_TRUE(scene.ok());
    auto out = RunSchedule(RequestFor(*scene, tmp.path()));
    ASSERT_TRUE(out.ok()) << out.error().ToString();
    EXPECT_TRUE(out->decisions.empty()) << sim::ArchName(arch);
    EXPECT_GT(out->links, 0);
  }
}

TEST(ScheduleCommand, NoCapturesIsAnInputError) {
  sim::TempDir tmp("schedule_nocap");
  ASSERT_TRUE(WriteFileText((tmp.path() / "hosts").string(), "a\nb\n").ok());
  ScheduleRequest r;
  r.paths = {(tmp.path() / "hosts").string()};
  r.out = (tmp.path() / "out").string();
  auto out = RunSchedule(r);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().kind, ErrorKind::kInput);
  r.out.clear();
  EXPECT_EQ(RunSchedule(r).error().kind, ErrorKind::kUsage);
}

std::string Stream(const std::vector<double>& bits, const std::string& link = "h2~h3") {
  std::string s;
  for (size_t k = 0; k < bits.size(); ++k) {
    s += R"({"link":")" + link + R"(","t_s":)" + std::to_string(0.5 * static_cast<double>(k)) +
         R"(,"window_s":0.5,"bits":)" + std::to_string(bits[k]) + "}\n";
  }
  return s;
}

TEST(ScheduleFollow, EmitsDecisionLinesAsTheyFire) {
  sim::TempDir tmp("schedule_follow");
  ASSERT_TRUE(WriteFileText((tmp.path() / "hosts").string(), "h0\nh1\nh2\nh3\nh4\nh5\n").ok());
  ScheduleRequest r;
  r.hosts_file = (tmp.path() / "hosts").string();
  std::vector<double> bits(4, 1.0);
  bits.insert(bits.end(), 8, 3.0);
  std::istringstream in(Stream(bits) + R"({"link":"h2~h3","estimator":"seed_header","t_s":9,"window_s":0.5,"bits":9.1})" "\n");
  std::ostringstream out;
  auto n = FollowSchedule(r, in, "<stdin>", out);
  ASSERT_TRUE(n.ok()) << n.error().ToString();
  EXPECT_EQ(*n, 1);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["action"], "move_off");
  EXPECT_EQ(j["link"], "h2~h3");
  EXPECT_EQ(j["t_ns"], 5'000'000'000);
  // Golden order: h2 and h3 are no longer ring neighbours; h0 stays first.
  const std::vector<std::string> order = j["actions"]["order"];
  EXPECT_EQ(order, (std::vector<std::string>{"h0", "h2", "h1", "h3", "h4", "h5"})) << j["actions"]["order"].dump();
}

TEST(ScheduleFollow, BadStreamsAreNamedByLine) {
  ScheduleRequest r;
  auto run = [&](const std::string& text) {
    std::istringstream in(text);
    std::ostringstream out;
    return FollowSchedule(r, in, "<stdin>", out);
  };
  auto empty = run("");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos);
  auto one = run(Stream({1.0}));
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().message.find("single window"), std::string::npos);
  auto nan = run(Stream({1.0}) + R"({"link":"h2~h3","t_s":0.5,"window_s":0.5,"bits":"nan"})" "\n");
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.error().message.find("<stdin>:2:"), std::string::npos);
  EXPECT_NE(nan.error().message.find("NaN"), std::string::npos);
  auto json = run("{not json\n");
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.error().message.find("<stdin>:1: not a JSON object"), std::string::npos);
  auto back = run(Stream({1.0, 1.0}) + R"({"link":"h2~h3","t_s":0,"window_s":0.5,"bits":1})" "\n");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("<stdin>:3:"), std::string::npos);
}

}  // namespace schedule_command_test
}  // namespace toposcope::app
