// find-slow-nodes end to end in the library: ground truth over seeds (every slow node found, none
// wrongly, within 2 k log2 N + 4 runs for N = 64..1024 and k <= 4), the directory protocol
// (plans written, results read back re-entrantly, the same answer as the simulation), and bad
// inputs (hosts files, garbled, cut and foreign result files) named with file and line.
#include "toposcope/app/find_slow_nodes_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "temp_dir.h"
#include "toposcope/sim/nccl_tests_sim.h"

namespace toposcope::app {
namespace find_slow_nodes_command_test {

namespace fs = std::filesystem;

void Write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

FindSlowNodesRequest Simulated(int n, int k, uint64_t seed) {
  FindSlowNodesRequest r;
  r.simulate = true;
  r.hosts_count = n;
  r.slow = k;
  r.seed = seed;
  return r;
}

TEST(FindSlowNodes, GroundTruthOverSeeds) {
  for (int n : {64, 256, 1024}) {
    for (int k = 1; k <= 4; ++k) {
      for (uint64_t seed = 1; seed <= 6; ++seed) {
        auto o = RunFindSlowNodes(Simulated(n, k, seed));
        ASSERT_TRUE(o.ok()) << o.error().ToString();
        const std::string what = "N=" + std::to_string(n) + " k=" + std::to_string(k) + " seed=" + std::to_string(seed);
        EXPECT_EQ(o->answer.slow, o->truth) << what;
        EXPECT_EQ(static_cast<int>(o->truth.size()), k) << what;
        EXPECT_LE(o->answer.runs, 2 * k * std::log2(n) + 4) << what;
        EXPECT_TRUE(o->pending.empty()) << what;
        EXPECT_GT(o->answer.confidence, 0.9) << what;
        EXPECT_LT(o->answer.runs, o->pairwise_runs) << what;
      }
    }
  }
}

TEST(FindSlowNodes, EvidenceSavesRuns) {
  int plain = 0, hinted = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    FindSlowNodesRequest r = Simulated(1024, 2, seed);
    auto a = RunFindSlowNodes(r);
    r.hinted = 2;
    auto b = RunFindSlowNodes(r);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(b->answer.slow, b->truth);
    plain += a->answer.runs;
    hinted += b->answer.runs;
  }
  EXPECT_LT(hinted, plain);
}

TEST(FindSlowNodes, DirectoryProtocolIsReentrant) {
  sim::TempDir tmp("find_slow_dir");
  std::string hosts;
  for (int i = 1; i <= 32; ++i) hosts += "gpu-" + std::to_string(i) + " slots=8\n";
  Write(tmp.path() / "hosts.txt", "# the cluster\n" + hosts);
  // The simulation, writing its files.
  FindSlowNodesRequest s = Simulated(0, 2, 4);
  s.hosts_file = (tmp.path() / "hosts.txt").string();
  s.results_dir = (tmp.path() / "sim").string();
  auto truth = RunFindSlowNodes(s);
  ASSERT_TRUE(truth.ok()) << truth.error().ToString();
  ASSERT_EQ(truth->answer.slow, truth->truth);
  EXPECT_TRUE(fs::exists(tmp.path() / "sim" / "answer.json"));
  // The field: each invocation plans, the results arrive, the next one reads them.
  FindSlowNodesRequest f;
  f.hosts_file = s.hosts_file;
  f.results_dir = (tmp.path() / "field").string();
  f.launcher = "srun";
  int invocations = 0;
  for (;; ++invocations) {
    ASSERT_LT(invocations, 100);
    auto o = RunFindSlowNodes(f);
    ASSERT_TRUE(o.ok()) << o.error().ToString();
    if (o->pending.empty()) {
      EXPECT_EQ(o->answer.slow, truth->answer.slow);
      EXPECT_EQ(o->answer.runs, truth->answer.runs);
      break;
    }
    for (const act::PlannedRun& r : o->pending) {
      char name[32];
      std::snprintf(name, sizeof name, "plan-%03d.sh", r.id);
      const std::string plan = Read(fs::path(f.results_dir) / name);
      EXPECT_NE(plan.find("srun -N " + std::to_string(r.hosts.size()) + " -w "), std::string::npos) << plan;
      EXPECT_NE(plan.find("all_reduce_perf -b 8 -e 8G -f 2 -g 1"), std::string::npos) << plan;
      std::snprintf(name, sizeof name, "result-%03d.txt", r.id);
      fs::copy_file(fs::path(s.results_dir) / name, fs::path(f.results_dir) / name);
    }
  }
  EXPECT_GT(invocations, 2);
  // Another hosts list on the same directory is refused.
  Write(tmp.path() / "other.txt", "a\nb\nc\nd\n");
  f.hosts_file = (tmp.path() / "other.txt").string();
  auto other = RunFindSlowNodes(f);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().kind, ErrorKind::kUsage);
  EXPECT_NE(other.error().message.find("plan-001.sh"), std::string::npos);
}

TEST(FindSlowNodes, BadResultFilesNameFileAndLine) {
  sim::TempDir tmp("find_slow_bad");
  Write(tmp.path() / "hosts.txt", "a\nb\nc\nd\n");
  FindSlowNodesRequest f;
  f.hosts_file = (tmp.path() / "hosts.txt").string();
  f.results_dir = (tmp.path() / "runs").string();
  auto first = RunFindSlowNodes(f);
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  ASSERT_EQ(first->pending.size(), 2u);
  EXPECT_EQ(first->answer.runs, 0);
  const act::PlannedRun run1 = first->pending[0];
  // A run that died before its table.
  Write(fs::path(f.results_dir) / "result-001.txt",
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20\n"
        "a: NCCL WARN Net : Connection closed by remote peer\n");
  auto cut = RunFindSlowNodes(f);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().kind, ErrorKind::kInput);
  EXPECT_EQ(cut.error().path, (fs::path(f.results_dir) / "result-001.txt").string());
  EXPECT_EQ(cut.error().line, 1);
  EXPECT_NE(cut.error().message.find("no table row"), std::string::npos);
  // A garbled row.
  std::string text = sim::AllReducePerfText(run1.hosts, {}, 1, 1);
  const size_t row = text.find("  8589934592");
  const int64_t bad_line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(row), '\n') + 1;
  text.replace(row + 20, 1, "?");  // a digit of the count column
  Write(fs::path(f.results_dir) / "result-001.txt", text);
  auto garbled = RunFindSlowNodes(f);
  ASSERT_FALSE(garbled.ok());
  EXPECT_EQ(garbled.error().path, (fs::path(f.results_dir) / "result-001.txt").string());
  EXPECT_EQ(garbled.error().line, bad_line);
  EXPECT_NE(garbled.error().ToString().find("garbled"), std::string::npos) << garbled.error().ToString();
  // Another run's output.
  Write(fs::path(f.results_dir) / "result-001.txt", sim::AllReducePerfText(first->pending[1].hosts, {}, 1, 1));
  auto foreign = RunFindSlowNodes(f);
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().line, 4);
  EXPECT_NE(foreign.error().message.find("the plan on"), std::string::npos);
  // A missing result is not an error: the run is still pending.
  fs::remove(fs::path(f.results_dir) / "result-001.txt");
  auto waiting = RunFindSlowNodes(f);
  ASSERT_TRUE(waiting.ok());
  EXPECT_EQ(waiting->pending.size(), 2u);
}

TEST(FindSlowNodes, HostsFiles) {
  sim::TempDir tmp("find_slow_hosts");
  Write(tmp.path() / "ok.txt", "# comment\n\nnode-a slots=8\nnode-b:8   # trailing\n\tnode-c\n");
  auto ok = ReadHostsFile((tmp.path() / "ok.txt").string());
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  EXPECT_EQ(*ok, (std::vector<std::string>{"node-a", "node-b", "node-c"}));
  Write(tmp.path() / "dup.txt", "a\nb\na\n");
  auto dup = ReadHostsFile((tmp.path() / "dup.txt").string());
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().line, 3);
  EXPECT_NE(dup.error().message.find("line 1"), std::string::npos);
  Write(tmp.path() / "bad.txt", "a\nb;rm -rf\n");
  auto bad = ReadHostsFile((tmp.path() / "bad.txt").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().line, 2);
  EXPECT_EQ(bad.error().col, 2);
  Write(tmp.path() / "one.txt", "a\n");
  EXPECT_FALSE(ReadHostsFile((tmp.path() / "one.txt").string()).ok());
  EXPECT_FALSE(ReadHostsFile((tmp.path() / "missing.txt").string()).ok());
  FindSlowNodesRequest none;
  none.hosts_file = (tmp.path() / "ok.txt").string();
  auto r = RunFindSlowNodes(none);  // neither --results nor --simulate
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kUsage);
}

TEST(FindSlowNodes, JsonNamesRunsFoundAndTruth) {
  FindSlowNodesRequest r = Simulated(64, 1, 2);
  auto o = RunFindSlowNodes(r);
  ASSERT_TRUE(o.ok());
  const std::string j = FindSlowNodesJson(*o, r);
  EXPECT_EQ(j.find("{\n  \"state\": \"done\",\n  \"runs\": "), 0u) << j.substr(0, 80);
  EXPECT_NE(j.find("\"found\": ["), std::string::npos);
  EXPECT_NE(j.find("\"truth\": ["), std::string::npos);
  EXPECT_NE(FindSlowNodesText(*o, r).find("slow nodes: " + o->truth[0]), std::string::npos);
  const std::string mpirun = RunCommandLine(o->runs[0].plan, r, "result-001.txt");
  EXPECT_EQ(mpirun.rfind("mpirun -np 64 -H node0001:8,node0002:8,", 0), 0u) << mpirun;
  EXPECT_NE(mpirun.find(" all_reduce_perf -b 8 -e 8G -f 2 -g 1 > result-001.txt 2>&1"), std::string::npos) << mpirun;
}

}  // namespace find_slow_nodes_command_test
}  // namespace toposcope::app
