#include "toposcope/app/plan_ring_command.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <system_error>
#include <tuple>

#include "toposcope/act/ring_actions.h"
#include "toposcope/analysis/analyze.h"
#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/app/analyze_command.h"
#include "toposcope/app/find_slow_nodes_command.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/report/result_json.h"

namespace toposcope::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string F(double v, int d) { return std::isfinite(v) ? FormatFixed(v, d) : std::string("n/a"); }

// The NCCL graph files: one per distinct GPU layout (GPU order, island sizes, one NVLink island),
// the layout of most hosts first (ties: first in plan order) as nccl_graph.xml.
std::vector<GraphFileOut> GraphFiles(const act::RingPlan& p) {
  std::map<std::tuple<std::vector<int>, std::vector<int>, bool>, size_t> layout_index;
  std::vector<GraphFileOut> g;
  for (const act::HostRanks& r : p.ranks) {
    auto [it, fresh] = layout_index.emplace(std::make_tuple(r.gpu_order, r.island_sizes, r.one_nvlink_island), g.size());
    if (fresh) g.push_back({"", {}, r.gpu_order});
    g[it->second].hosts.push_back(r.host);
  }
  std::stable_sort(g.begin(), g.end(), [](const GraphFileOut& a, const GraphFileOut& b) { return a.hosts.size() > b.hosts.size(); });
  for (size_t k = 0; k < g.size(); ++k) g[k].file = k == 0 ? "nccl_graph.xml" : "nccl_graph-" + std::to_string(k) + ".xml";
  return g;
}

act::RingGraphSpec GraphSpec(const act::RingPlan& p, const GraphFileOut& g, int nchannels) {
  act::RingGraphSpec s;
  s.gpu_order = g.gpu_order;
  if (s.gpu_order.empty()) {
    for (int i = 0; i < p.ranks.front().slots; ++i) s.gpu_order.push_back(i);
  }
  s.nchannels = nchannels;
  // Per channel GB/s: the ring's lowest edge rate (Gb/s) / 8 / channels; 1 when no rate is known.
  const double bw = p.after.min_bandwidth_gbps;
  s.speed_inter_gbs = std::isfinite(bw) ? bw / 8 / nchannels : 1;
  s.speed_intra_gbs = s.speed_inter_gbs;
  bool nvl = false;
  for (const act::HostRanks& r : p.ranks) {
    if (r.host == g.hosts.front()) nvl = r.one_nvlink_island;
  }
  s.type_intra = nvl ? "NVL" : "SYS";
  s.type_inter = "SYS";
  return s;
}

Status Write(const fs::path& dir, const std::string& name, const std::string& text, std::vector<std::string>* written) {
  const std::string path = (dir / name).string();
  if (Status st = WriteFileText(path, text); !st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
  written->push_back(path);
  return {};
}

Status WriteAll(const PlanRingRequest& req, PlanRingOutcome& o) {
  std::error_code ec;
  fs::create_directories(req.out, ec);
  if (ec) return MakeKindError(ErrorKind::kOutput, req.out + ": cannot create: " + ec.message());
  const act::RingPlan& p = o.plan;
  std::vector<int> slots;
  for (const act::HostRanks& r : p.ranks) slots.push_back(r.slots);
  const fs::path dir(req.out);
  if (Status st = Write(dir, "hostfile", act::MpirunHostfileText(p.order, slots), &o.written); !st.ok()) return st;
  if (Status st = Write(dir, "torchrun_hosts", act::TorchrunHostsText(p.order), &o.written); !st.ok()) return st;
  if (Status st = Write(dir, "slurm_hostfile", act::SlurmHostfileText(p.order, slots), &o.written); !st.ok()) return st;
  for (const GraphFileOut& g : o.graphs) {
    if (Status st = Write(dir, g.file, act::RingGraphXml(GraphSpec(p, g, req.nchannels)), &o.written); !st.ok()) return st;
  }
  return Write(dir, "ring_plan.json", RingPlanJson(o), &o.written);
}

json MetricsJson(const act::RingMetrics& m) {
  json edges = json::array();
  for (const act::RingEdge& e : m.edges) {
    json j = {{"a", e.a}, {"b", e.b}, {"links", report::Num(e.links, 3)}, {"inter_leaf", e.inter_leaf},
              {"bandwidth_gbps", report::Num(e.bandwidth_gbps, 3)}, {"latency_us", report::Num(e.latency_us, 3)}};
    if (!e.avoided.empty()) j["avoided_cables"] = e.avoided;
    j["cables"] = e.cables;
    edges.push_back(std::move(j));
  }
  return {{"hops", report::Num(m.hops, 3)},
          {"mean_hops_per_edge", report::Num(m.edges.empty() ? NAN : m.hops / static_cast<double>(m.edges.size()), 3)},
          {"inter_leaf_crossings", m.inter_leaf},
          {"edges_on_avoided_cables", m.avoided_edges},
          {"unreachable_edges", m.unreachable_edges},
          {"min_bandwidth_gbps", report::Num(m.min_bandwidth_gbps, 3)},
          {"max_latency_us", report::Num(m.max_latency_us, 3)},
          {"allreduce_us", report::Num(m.allreduce_us, 3)},
          {"edges", std::move(edges)}};
}

}  // namespace

Result<PlanRingOutcome> RunPlanRing(const PlanRingRequest& req) {
  auto usage = [](const std::string& m) { return MakeKindError(ErrorKind::kUsage, m); };
  if (req.paths.empty()) return usage("plan-ring: no inputs given (PATH...)");
  if (req.out.empty()) return usage("plan-ring: --out DIR is required");
  if (req.nchannels < 1 || req.nchannels > 64) return usage("--channels: 1 to 64");
  if (!(req.options.message_bytes > 0)) return usage("--message-bytes: above 0");
  analysis::PipelineOptions po;
  po.analyze = AnalyzeDefaults();
  po.paths = req.paths;
  po.only = {analysis::PassId::kFabric, analysis::PassId::kLeaves, analysis::PassId::kLinkWeights,
             analysis::PassId::kIslands};
  analysis::PipelineState state;
  Result<analysis::PipelineRun> run = analysis::RunPipeline(po, &state);
  if (!run.ok()) return run.error();
  const analysis::AnalysisResult result = analysis::AssembleResult(state, po.analyze);
  act::RingPlanInputs in = act::RingPlanInputsOf(result, state.dataset != nullptr ? &state.dataset->path_probes : nullptr);
  if (!req.hosts_file.empty()) {
    Result<std::vector<std::string>> hosts = ReadHostsFile(req.hosts_file);
    if (!hosts.ok()) return hosts.error();
    in.default_order = std::move(*hosts);
  }
  Result<act::RingPlan> plan = act::PlanRing(in, req.options);
  if (!plan.ok()) return plan.error();
  PlanRingOutcome o;
  o.plan = std::move(*plan);
  o.graphs = GraphFiles(o.plan);
  if (Status st = WriteAll(req, o); !st.ok()) return st.error();
  return o;
}

std::string RingPlanJson(const PlanRingOutcome& o) {
  const act::RingPlan& p = o.plan;
  json avoided = json::array();
  for (const act::AvoidedCable& a : p.avoided) {
    avoided.push_back({{"cable", a.cable}, {"kind", a.kind}, {"reason", a.reason},
                       {"rate_gbps", report::Num(a.rate_gbps, 3)}, {"latency_us", report::Num(a.latency_us, 3)},
                       {"edges_before", a.edges_before}, {"edges_after", a.edges_after},
                       {"unavoidable_edges", a.unavoidable_edges}});
  }
  json graphs = json::array();
  for (const GraphFileOut& g : o.graphs) graphs.push_back({{"file", g.file}, {"hosts", g.hosts}, {"gpu_order", g.gpu_order}});
  json ranks = json::array();
  for (const act::HostRanks& r : p.ranks) {
    ranks.push_back({{"host", r.host}, {"slots", r.slots}, {"gpu_order", r.gpu_order}, {"island_sizes", r.island_sizes}});
  }
  json j = {{"schema", "toposcope.ring_plan/1"},
            {"hosts", p.order.size()},
            {"default_source", p.default_source},
            {"default_order", p.default_order},
            {"order", p.order},
            {"leaf_source", p.leaf_source},
            {"leaf_of", p.leaf_of},
            {"hops_before", report::Num(p.before.hops, 3)},
            {"hops_after", report::Num(p.after.hops, 3)},
            {"inter_leaf_before", p.before.inter_leaf},
            {"inter_leaf_after", p.after.inter_leaf},
            {"allreduce_us_before", report::Num(p.before.allreduce_us, 3)},
            {"allreduce_us_after", report::Num(p.after.allreduce_us, 3)},
            {"message_bytes", p.message_bytes},
            {"time_model", "T = 2(n-1)/n x S / min edge bandwidth + 2(n-1) x max edge latency (docs/ring_plan.md)"},
            {"avoided_cables", std::move(avoided)},
            {"before", MetricsJson(p.before)},
            {"after", MetricsJson(p.after)},
            {"ranks", std::move(ranks)},
            {"nccl_graph_files", std::move(graphs)},
            {"evidence", p.evidence}};
  return j.dump(2) + "\n";
}

std::string RingPlanText(const PlanRingOutcome& o) {
  const act::RingPlan& p = o.plan;
  const bool by_names = p.default_source == "names";
  std::string s = "ring plan over " + std::to_string(p.order.size()) + " hosts (leaves: " + p.leaf_source +
                  "; compared with the " + (by_names ? "host-name order" : "hosts file as written") + ")\n";
  s += "                           default      planned\n";
  auto row = [&](const std::string& what, const std::string& a, const std::string& b) {
    std::string line = "  " + what;
    line.resize(26, ' ');
    std::string ca = a, cb = b;
    ca.insert(0, ca.size() < 11 ? 11 - ca.size() : 0, ' ');
    cb.insert(0, cb.size() < 13 ? 13 - cb.size() : 0, ' ');
    s += line + ca + cb + "\n";
  };
  row("hops per AllReduce", F(p.before.hops, 1), F(p.after.hops, 1));
  row("inter-leaf crossings", std::to_string(p.before.inter_leaf), std::to_string(p.after.inter_leaf));
  row("edges on avoided cables", std::to_string(p.before.avoided_edges), std::to_string(p.after.avoided_edges));
  row("min edge Gb/s", F(p.before.min_bandwidth_gbps, 0), F(p.after.min_bandwidth_gbps, 0));
  row("AllReduce time (us)", F(p.before.allreduce_us, 1), F(p.after.allreduce_us, 1));
  s += "  (simulated ring AllReduce of " + F(p.message_bytes / (1 << 20), 0) +
       " MiB: 2(n-1)/n S / min edge bandwidth + 2(n-1) x max edge latency)\n";
  for (const act::AvoidedCable& a : p.avoided) {
    s += "  avoid " + a.cable + " (" + a.kind + "): " + a.reason + "; ring edges on it " +
         std::to_string(a.edges_before) + " -> " + std::to_string(a.edges_after) +
         (a.unavoidable_edges > 0 ? " (" + std::to_string(a.unavoidable_edges) + " unavoidable: the only way between " +
                                        std::to_string(a.unavoidable_edges) + " parts of the fabric)"
                                  : "") +
         "\n";
  }
  for (const std::string& e : p.evidence) s += "  " + e + "\n";
  s += "apply: mpirun --hostfile hostfile | srun --distribution=arbitrary (SLURM_HOSTFILE=slurm_hostfile) | "
       "NCCL_GRAPH_FILE=nccl_graph.xml\n";
  for (const std::string& w : o.written) s += "  wrote " + w + "\n";
  return s;
}

}  // namespace toposcope::app
