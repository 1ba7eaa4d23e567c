// plan-ring end to end in the library: a simulated cluster written in real formats, read, planned,
// and every action file written and read back (hostfiles line by line, the NCCL graph file through
// our reader, ring_plan.json as JSON with the figures the plan measured); the hosts file as the
// default order; bad inputs (no inputs, no topology, one host, a bad hosts file) with their kinds.
#include "toposcope/app/plan_ring_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "toposcope/app/simulate_command.h"
#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/formats/nccl/nccl_xml.h"

namespace toposcope::app {
namespace plan_ring_command_test {

namespace fs = std::filesystem;

std::vector<std::string> Lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void SimulateInto(const std::string& dir, int hosts, bool fabric, uint64_t seed = 2) {
  sim::SimOptions o = SimulateDefaults();
  o.arch = sim::Arch::kFatTree;
  o.hosts = hosts;
  o.seed = seed;
  o.with_telemetry = false;
  o.with_rdma = false;
  o.with_fabric = fabric;
  auto s = RunSimulate(o, dir);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
}

TEST(PlanRingCommand, WritesEveryActionFile) {
  sim::TempDir tmp("plan_ring_files");
  const std::string data = (tmp.path() / "data").string();
  SimulateInto(data, 16, true);
  PlanRingRequest req;
  req.paths = {data};
  req.out = (tmp.path() / "plan").string();
  auto o = RunPlanRing(req);
  ASSERT_TRUE(o.ok()) << o.error().ToString();
  const act::RingPlan& p = o->plan;
  ASSERT_EQ(p.order.size(), 16u);
  EXPECT_LE(p.after.hops, p.before.hops);
  const fs::path out(req.out);

  const std::vector<std::string> hostfile = Lines(out / "hostfile");
  ASSERT_EQ(hostfile.size(), 16u);
  int ranks = 0;
  for (size_t i = 0; i < hostfile.size(); ++i) {
    EXPECT_EQ(hostfile[i], p.order[i] + " slots=" + std::to_string(p.ranks[i].slots));
    ranks += p.ranks[i].slots;
    EXPECT_FALSE(p.ranks[i].gpu_order.empty());  // the node files list the GPUs
  }
  EXPECT_EQ(Lines(out / "torchrun_hosts"), p.order);
  const std::vector<std::string> slurm = Lines(out / "slurm_hostfile");
  ASSERT_EQ(static_cast<int>(slurm.size()), ranks);
  EXPECT_EQ(slurm.front(), p.order.front());
  EXPECT_EQ(slurm.back(), p.order.back());

  ASSERT_FALSE(o->graphs.empty());
  EXPECT_EQ(o->graphs[0].file, "nccl_graph.xml");
  size_t graph_hosts = 0;
  for (const GraphFileOut& g : o->graphs) {
    graph_hosts += g.hosts.size();
    auto text = ReadFileText((out / g.file).string());
    ASSERT_TRUE(text.ok());
    Diagnostics diag;
    ReadCounts counts;
    auto graphs = formats::ParseNcclGraphXml(*text, g.file, diag, counts);
    ASSERT_TRUE(graphs.ok()) << graphs.error().ToString();
    EXPECT_EQ(counts.rejected, 0);
    ASSERT_EQ(graphs->graphs.size(), 1u);
    EXPECT_EQ(graphs->graphs[0].pattern, 4);
    EXPECT_EQ(graphs->graphs[0].channels.size(), 2u);
    EXPECT_EQ(graphs->graphs[0].channels[0].steps.size(), g.gpu_order.size() + 2);
  }
  EXPECT_EQ(graph_hosts, 16u);

  auto json_text = ReadFileText((out / "ring_plan.json").string());
  ASSERT_TRUE(json_text.ok());
  const nlohmann::json j = nlohmann::json::parse(*json_text);
  EXPECT_EQ(j["schema"], "toposcope.ring_plan/1");
  EXPECT_DOUBLE_EQ(j["hops_before"].get<double>(), p.before.hops);
  EXPECT_DOUBLE_EQ(j["hops_after"].get<double>(), p.after.hops);
  EXPECT_EQ(j["order"].get<std::vector<std::string>>(), p.order);
  EXPECT_EQ(j["after"]["edges"].size(), 16u);
  EXPECT_EQ(o->written.size(), 4 + o->graphs.size());

  const std::string text = RingPlanText(*o);
  EXPECT_NE(text.find("hops per AllReduce"), std::string::npos);
  EXPECT_NE(text.find("inter-leaf crossings"), std::string::npos);

  // Same inputs, same bytes.
  PlanRingRequest again = req;
  again.out = (tmp.path() / "plan2").string();
  ASSERT_TRUE(RunPlanRing(again).ok());
  EXPECT_EQ(ReadFileText((fs::path(again.out) / "ring_plan.json").string()).value(), *json_text);
}

TEST(PlanRingCommand, OneGraphFilePerGpuLayout) {
  sim::TempDir tmp("plan_ring_layouts");
  const std::string data = (tmp.path() / "data").string();
  sim::SimOptions o = SimulateDefaults();
  o.hosts = 8;
  o.seed = 2;
  o.with_rdma = false;
  o.node_types = {"h100-nvswitch", "pcie-bridge"};
  ASSERT_TRUE(RunSimulate(o, data).ok());
  PlanRingRequest req;
  req.paths = {data};
  req.out = (tmp.path() / "plan").string();
  auto out = RunPlanRing(req);
  ASSERT_TRUE(out.ok()) << out.error().ToString();
  ASSERT_EQ(out->graphs.size(), 2u);
  EXPECT_EQ(out->graphs[0].hosts.size() + out->graphs[1].hosts.size(), 8u);
  std::vector<std::string> types;
  for (const GraphFileOut& g : out->graphs) {
    auto text = ReadFileText((fs::path(req.out) / g.file).string());
    ASSERT_TRUE(text.ok());
    Diagnostics diag;
    ReadCounts counts;
    auto graphs = formats::ParseNcclGraphXml(*text, g.file, diag, counts);
    ASSERT_TRUE(graphs.ok());
    types.push_back(graphs->graphs[0].typeintra);
  }
  std::sort(types.begin(), types.end());
  EXPECT_EQ(types, (std::vector<std::string>{"NVL", "SYS"}));  // the NVSwitch hosts, the PCIe-bridge pairs
}

TEST(PlanRingCommand, RealFabricDumpGolden) {
  // ibnetdiscover(8)'s example fabric: two leaves with two adapters each (named by GUID). The
  // name order alternates leaves (4 crossings, 12 hops); the plan keeps each leaf's pair together.
  sim::TempDir tmp("plan_ring_golden");
  PlanRingRequest req;
  req.paths = {std::string(TOPOSCOPE_TESTDATA) + "/real/ibnetdiscover"};
  req.out = (tmp.path() / "plan").string();
  auto o = RunPlanRing(req);
  ASSERT_TRUE(o.ok()) << o.error().ToString();
  EXPECT_EQ(ReadFileText((tmp.path() / "plan" / "hostfile").string()).value(),
            "H-0008f10403960558 slots=8\n"
            "H-0008f10403961354 slots=8\n"
            "H-0008f10403960984 slots=8\n"
            "H-005442b100004900 slots=8\n");
  EXPECT_EQ(ReadFileText((tmp.path() / "plan" / "torchrun_hosts").string()).value(),
            "H-0008f10403960558\nH-0008f10403961354\nH-0008f10403960984\nH-005442b100004900\n");
  EXPECT_EQ(Lines(tmp.path() / "plan" / "slurm_hostfile").size(), 32u);
  EXPECT_DOUBLE_EQ(o->plan.before.hops, 12);
  EXPECT_DOUBLE_EQ(o->plan.after.hops, 10);
  EXPECT_EQ(o->plan.before.inter_leaf, 4);
  EXPECT_EQ(o->plan.after.inter_leaf, 2);
  // The 1x-against-4x switch link of the example is named; with no probes no edge is known to cross it.
  ASSERT_EQ(o->plan.avoided.size(), 1u);
  EXPECT_EQ(o->plan.avoided[0].kind, "degraded");
  EXPECT_NE(o->plan.avoided[0].reason.find("1xSDR and 4xSDR"), std::string::npos) << o->plan.avoided[0].reason;
}

TEST(PlanRingCommand, HostsFileIsTheDefaultOrder) {
  sim::TempDir tmp("plan_ring_hosts");
  const std::string data = (tmp.path() / "data").string();
  SimulateInto(data, 8, true, 3);
  PlanRingRequest req;
  req.paths = {data};
  req.out = (tmp.path() / "plan").string();
  auto first = RunPlanRing(req);
  ASSERT_TRUE(first.ok());
  std::vector<std::string> reversed(first->plan.default_order.rbegin(), first->plan.default_order.rend());
  const fs::path hosts = tmp.path() / "hosts.txt";
  {
    std::ofstream f(hosts);
    for (const std::string& h : reversed) f << h << " slots=8\n";
  }
  req.hosts_file = hosts.string();
  auto o = RunPlanRing(req);
  ASSERT_TRUE(o.ok()) << o.error().ToString();
  EXPECT_EQ(o->plan.default_source, "hostfile");
  EXPECT_EQ(o->plan.default_order, reversed);
}

TEST(PlanRingCommand, BadInputs) {
  sim::TempDir tmp("plan_ring_bad");
  PlanRingRequest req;
  req.out = (tmp.path() / "plan").string();
  auto o = RunPlanRing(req);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().kind, ErrorKind::kUsage);

  // Node files only: no fabric dump, no probes.
  const std::string nodes = (tmp.path() / "nodes").string();
  SimulateInto(nodes, 4, false);
  req.paths = {nodes};
  o = RunPlanRing(req);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().kind, ErrorKind::kInput);
  EXPECT_NE(o.error().message.find("no topology found"), std::string::npos) << o.error().ToString();

  // One host.
  const std::string one = (tmp.path() / "one").string();
  SimulateInto(one, 1, true);
  req.paths = {one};
  o = RunPlanRing(req);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().kind, ErrorKind::kInput);
  EXPECT_NE(o.error().ToString().find("host"), std::string::npos) << o.error().ToString();

  // A hosts file naming one host.
  const std::string data = (tmp.path() / "data").string();
  SimulateInto(data, 4, true);
  const fs::path hosts = tmp.path() / "hosts.txt";
  std::ofstream(hosts) << "solo\n";
  req.paths = {data};
  req.hosts_file = hosts.string();
  o = RunPlanRing(req);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().kind, ErrorKind::kInput);
  EXPECT_NE(o.error().ToString().find("hosts.txt"), std::string::npos) << o.error().ToString();
}

}  // namespace plan_ring_command_test
}  // namespace toposcope::app
