// What the slow-node search reads: a run's nccl-tests output (the real 2-node H100 fixture, and
// bad files: garbled rows, cut runs, other hosts, other tests, empty) and the priors an analysis
// result gives.
#include "toposcope/act/slow_node_evidence.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace toposcope::act {
namespace slow_node_evidence_test {

const std::string kFixture =
    std::string(TOPOSCOPE_FIXTURES) + "/nccl_tests/gcp_a3mega_h100_2node16gpu_all_reduce_perf.txt";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

PlannedRun TwoHosts() {
  PlannedRun r;
  r.id = 7;
  r.hosts = {"ztan-mig-235z", "ztan-mig-gq73"};
  r.tested = r.hosts;
  return r;
}

TEST(ReadRunObservation, RealFixture) {
  auto o = ReadRunObservation(Slurp(kFixture), kFixture, TwoHosts());
  ASSERT_TRUE(o.ok()) << o.error().ToString();
  EXPECT_EQ(o->id, 7);
  EXPECT_NEAR(o->busbw_gbps, (338.82 + 337.35) / 2, 1e-9);  // 8 GiB, out-of-place and in-place
  EXPECT_NEAR(o->spread_rel, (338.82 - 337.35) / ((338.82 + 337.35) / 2), 1e-9);
  EXPECT_FALSE(o->failed);
}

TEST(ReadRunObservation, OtherHostsNameTheDeviceLine) {
  PlannedRun r = TwoHosts();
  r.hosts = {"ztan-mig-235z", "other"};
  auto o = ReadRunObservation(Slurp(kFixture), "result-007.txt", r);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().path, "result-007.txt");
  EXPECT_EQ(o.error().line, 4);  // the first `Rank` line
  EXPECT_NE(o.error().ToString().find("ztan-mig-gq73"), std::string::npos) << o.error().ToString();
}

TEST(ReadRunObservation, GarbledRowNamesItsLine) {
  std::string text = Slurp(kFixture);
  const size_t at = text.find("338.82");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, "33x.82");
  auto o = ReadRunObservation(text, "result-003.txt", TwoHosts());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().path, "result-003.txt");
  EXPECT_EQ(o.error().line, 54);
  EXPECT_NE(o.error().message.find("run 7: garbled"), std::string::npos) << o.error().ToString();
}

TEST(ReadRunObservation, CutRunHasNoRow) {
  const std::string text = Slurp(kFixture);
  const std::string head = text.substr(0, text.find("#       size"));
  auto o = ReadRunObservation(head, "result-002.txt", TwoHosts());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().path, "result-002.txt");
  EXPECT_EQ(o.error().line, 1);
  EXPECT_NE(o.error().message.find("no table row"), std::string::npos) << o.error().ToString();
}

TEST(ReadRunObservation, EmptyAndForeignFiles) {
  auto empty = ReadRunObservation("", "result-001.txt", TwoHosts());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().path, "result-001.txt");
  auto junk = ReadRunObservation("mpirun: command not found\n", "result-001.txt", TwoHosts());
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.error().ToString().find("result-001.txt"), std::string::npos);
  std::string other = "# Collective test starting: all_gather_perf\n" + Slurp(kFixture);
  auto gather = ReadRunObservation(other, "result-001.txt", TwoHosts());
  ASSERT_FALSE(gather.ok());
  EXPECT_NE(gather.error().message.find("not all_reduce_perf"), std::string::npos) << gather.error().ToString();
}

TEST(ReadRunObservation, WrongResultsFailTheRun) {
  std::string text = Slurp(kFixture);
  const size_t row = text.find("  8589934592");
  const size_t eol = text.find('\n', row);
  const size_t zero = text.rfind('0', eol);
  text[zero] = '3';  // in-place #wrong of the last row
  auto o = ReadRunObservation(text, "r.txt", TwoHosts());
  ASSERT_TRUE(o.ok()) << o.error().ToString();
  EXPECT_TRUE(o->failed);
}

TEST(PriorsFromAnalysis, FindingsRaiseTheirHosts) {
  analysis::AnalysisResult r;
  analysis::CollectiveFinding f;
  f.kind = "slow_host_set";
  f.test = "all_reduce_perf";
  f.hosts = {"a", "b"};
  r.collectives.findings.push_back(f);
  analysis::TelemetryFinding straggler;
  straggler.kind = analysis::TelemetryFindingKind::kStraggler;
  straggler.host = "b";
  straggler.confidence = 0.8;
  r.telemetry.findings.push_back(straggler);
  analysis::TelemetryFinding step;
  step.kind = analysis::TelemetryFindingKind::kClockStep;
  step.host = "c";
  r.telemetry.findings.push_back(step);
  analysis::LinkReport l;
  l.a = "d/gpu0";
  l.b = "d/gpu1";
  l.degraded = true;
  l.confidence = 0.9;
  r.links.push_back(l);
  analysis::LinkReport ok = l;
  ok.a = "e/gpu0";
  ok.b = "e/gpu1";
  ok.degraded = false;
  r.links.push_back(ok);
  const auto p = PriorsFromAnalysis(r, {"a", "b", "c", "d", "e"});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].host, "a");
  EXPECT_NEAR(p[0].prior, 0.25, 1e-12);  // 1/2 shared by the two hosts of the set
  EXPECT_EQ(p[1].host, "b");
  EXPECT_NEAR(p[1].prior, 1 - 0.75 * 0.2, 1e-12);
  EXPECT_NE(p[1].evidence.find("straggler"), std::string::npos);
  EXPECT_EQ(p[2].host, "d");
  EXPECT_NEAR(p[2].prior, 0.9, 1e-12);
  EXPECT_TRUE(PriorsFromAnalysis(r, {"x", "y"}).empty());  // hosts outside the search are left out
}

}  // namespace slow_node_evidence_test
}  // namespace toposcope::act
