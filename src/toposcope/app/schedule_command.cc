#include "toposcope/app/schedule_command.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <system_error>

#include "toposcope/act/eadps_stream.h"
#include "toposcope/act/ring_actions.h"
#include "toposcope/analysis/analyze.h"
#include "toposcope/analysis/fabric/architecture.h"
#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/app/analyze_command.h"
#include "toposcope/app/find_slow_nodes_command.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/report/export/opensm_export.h"
#include "toposcope/report/html/html_report.h"
#include "toposcope/report/result_json.h"

namespace toposcope::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Pair = std::pair<std::string, std::string>;

Pair Unordered(const std::string& a, const std::string& b) { return a < b ? Pair{a, b} : Pair{b, a}; }

// "hostA~hostB" -> the pair; anything else -> nullopt.
std::optional<Pair> HostPairOfLink(const std::string& link) {
  if (link.rfind("capture:", 0) == 0) return std::nullopt;
  const size_t t = link.find('~');
  if (t == std::string::npos || t == 0 || t + 1 >= link.size()) return std::nullopt;
  return Unordered(link.substr(0, t), link.substr(t + 1));
}

json NumArray(const std::vector<double>& v, int d) {
  json a = json::array();
  for (const double x : v) a.push_back(report::Num(x, d));
  return a;
}

std::string EnvText(const std::vector<act::NcclSetting>& s) {
  std::string out = "# NCCL settings of this decision (source it before launching the job)\n";
  for (const act::NcclSetting& x : s) {
    out += "# " + x.name + ": " + x.reason + "\n";
    out += x.changed ? "export " + x.name + "=" + x.value + "\n" : "unset " + x.name + "\n";
  }
  return out;
}

}  // namespace

ActionPlanner::ActionPlanner(std::vector<std::string> order, int qps_per_connection,
                             std::function<std::vector<Pair>(const std::string&)> pairs_of,
                             std::function<double(const std::string&, const std::string&)> edge_cost,
                             std::function<bool(const std::string&)> inter_switch)
    : initial_(order), current_(std::move(order)), qps_(qps_per_connection), pairs_of_(std::move(pairs_of)),
      edge_cost_(std::move(edge_cost)), inter_switch_(std::move(inter_switch)) {}

ScheduleAction ActionPlanner::Plan(const act::EadpsDecision& d) { return PlanBatch({d}).front(); }

std::vector<ScheduleAction> ActionPlanner::PlanBatch(const std::vector<act::EadpsDecision>& ds) {
  const std::vector<std::string> before = current_;
  std::set<Pair> avoid_before;
  for (const auto& [link, pairs] : moved_) avoid_before.insert(pairs.begin(), pairs.end());
  std::vector<std::vector<Pair>> seg_pairs;
  bool any_merge = false;
  for (const act::EadpsDecision& d : ds) {
    seg_pairs.push_back(pairs_of_ ? pairs_of_(d.evidence.link) : std::vector<Pair>{});
    if (d.action == "move_off") {
      moved_[d.evidence.link] = seg_pairs.back();
    } else {
      moved_.erase(d.evidence.link);
      any_merge = true;
    }
  }
  std::set<Pair> avoid;
  for (const auto& [link, pairs] : moved_) avoid.insert(pairs.begin(), pairs.end());
  // A move re-orders from the current order; a merge goes back toward the job's own order with
  // the segments still moved kept off. Neither puts more (expected) ring edges on the moved
  // segments' cables than the order it starts from. Decisions of one instant are planned together.
  const std::vector<std::string>& from = any_merge ? initial_ : current_;
  std::set<std::string> moved_links;
  for (const auto& [link, pairs] : moved_) moved_links.insert(link);
  std::function<double(const std::vector<std::string>&)> penalty;
  if (load_of_) {
    const double base = load_of_(from, moved_links);
    penalty = [this, base, moved_links](const std::vector<std::string>& o) {
      return std::max(0.0, load_of_(o, moved_links) - base - 1e-9);
    };
  }
  current_ = act::ReorderAvoiding(from, avoid, edge_cost_, penalty);
  std::vector<ScheduleAction> out;
  for (size_t i = 0; i < ds.size(); ++i) {
    const act::EadpsDecision& d = ds[i];
    ScheduleAction a;
    a.order_before = before;
    a.segment_pairs = seg_pairs[i];
    std::set<Pair> judged = avoid_before;
    judged.insert(a.segment_pairs.begin(), a.segment_pairs.end());
    a.avoided_before = act::AvoidedNeighbours(before, d.action == "move_off" ? avoid : judged);
    a.avoided_after = act::AvoidedNeighbours(current_, avoid);
    a.order = current_;
    act::SegmentView seg;
    seg.pairs = a.segment_pairs;
    seg.inter_switch = inter_switch_ && inter_switch_(d.evidence.link);
    a.nccl = act::NcclSettingsFor(d.action, seg, qps_);
    out.push_back(std::move(a));
  }
  return out;
}

namespace {

struct Context {
  analysis::PipelineState state;
  analysis::AnalysisResult result;
  std::map<std::string, std::vector<Pair>> capture_pairs;  // "capture:<point>" -> pairs
  std::map<std::string, int> slots;                        // host -> GPUs
  // Per cable ("a--b", switch names sorted): host pairs every one of whose probed routes crosses it.
  std::map<std::string, std::vector<Pair>> pinned;
  // Per host pair: the share of its probes whose route crosses each cable (an edge's expected load).
  std::map<Pair, std::map<std::string, double>> crossing;
};

// Pinned pairs from the path probes: a pair whose every probe's hop list crosses a cable puts its
// ring edge on that cable whatever its QPs hash to (no ECMP choice around it).
void PinnedPairs(Context& c) {
  if (c.state.dataset == nullptr) return;
  std::map<Pair, std::pair<int64_t, std::map<std::string, int64_t>>> by_pair;  // probes, crossings per cable
  for (const formats::PathProbe& p : c.state.dataset->path_probes) {
    if (p.src.empty() || p.dst.empty() || p.src == p.dst) continue;
    const std::vector<std::string> nodes = formats::ProbeNodes(p);
    auto& [n, cables] = by_pair[Unordered(p.src, p.dst)];
    ++n;
    std::set<std::string> seen;
    for (size_t k = 1; k + 2 < nodes.size(); ++k) {  // switch-to-switch hops only
      const std::string id = nodes[k] < nodes[k + 1] ? nodes[k] + "--" + nodes[k + 1] : nodes[k + 1] + "--" + nodes[k];
      if (seen.insert(id).second) ++cables[id];
    }
  }
  for (const auto& [pair, v] : by_pair) {
    for (const auto& [cable, k] : v.second) {
      if (k == v.first) c.pinned[cable].push_back(pair);
      c.crossing[pair][cable] = static_cast<double>(k) / static_cast<double>(v.first);
    }
  }
}

// Host pairs each capture point's flows joined.
void CapturePairs(Context& c) {
  if (c.state.dataset == nullptr) return;
  std::map<int, std::string> point_of;
  for (const model::CaptureInput& ci : c.state.dataset->captures) point_of[ci.index] = ci.point;
  std::map<std::string, std::set<Pair>> pairs;
  for (const analysis::Flow& f : c.result.rdma.flows.flows) {
    if (f.src_host.empty() || f.dst_host.empty() || f.src_host == f.dst_host) continue;
    for (const int p : f.capture_points) {
      auto it = point_of.find(p);
      if (it != point_of.end()) pairs[analysis::CaptureLinkId(it->second)].insert(Unordered(f.src_host, f.dst_host));
    }
  }
  for (auto& [link, s] : pairs) c.capture_pairs[link].assign(s.begin(), s.end());
}

// Entropy windows of the watched estimator, with the shown one beside (same link and window).
std::vector<act::EntropyPoint> PointsOf(const analysis::RdmaReport& r, const act::EadpsOptions& o, int64_t* skipped) {
  std::map<std::pair<std::string, int64_t>, act::EntropyPoint> by_window;
  std::map<std::pair<std::string, int64_t>, double> shown;
  for (const analysis::LinkEntropySample& s : r.entropy.samples) {
    const std::string name(analysis::EntropyEstimatorName(s.estimator));
    const auto key = std::make_pair(s.link, s.window_start_ns);
    if (name == o.shown_estimator) shown[key] = s.bits;
    if (name != o.estimator) continue;
    // A window with too few packets for an entropy still counts its packets and marks.
    if (s.not_enough_packets) ++*skipped;
    act::EntropyPoint p;
    p.link = s.link;
    p.window_start_ns = s.window_start_ns;
    p.window_ns = r.entropy_window_ns;
    p.has_bits = !s.not_enough_packets;
    p.bits = p.has_bits ? s.bits : 0.0;
    p.packets = s.packets;
    p.marks = s.new_marks;
    by_window[key] = p;
  }
  std::vector<act::EntropyPoint> out;
  for (auto& [key, p] : by_window) {
    auto it = shown.find(key);
    if (it != shown.end()) p.shown_bits = it->second;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<std::string> JobOrder(const ScheduleRequest& req, const Context& c, std::string* source) {
  if (!req.hosts_file.empty()) {
    *source = "hostfile";
    Result<std::vector<std::string>> h = ReadHostsFile(req.hosts_file);
    return h.ok() ? *h : std::vector<std::string>{};
  }
  const auto rings = analysis::RingHostOrders(c.result.rdma.rings);
  if (!rings.empty()) {
    *source = "nccl_log";
    return rings.front();
  }
  *source = "names";
  std::set<std::string> hosts;
  for (const analysis::LinkEntropySample& s : c.result.rdma.entropy.samples) {
    if (auto p = HostPairOfLink(s.link)) hosts.insert({p->first, p->second});
  }
  for (const auto& [link, pairs] : c.capture_pairs) {
    for (const Pair& p : pairs) hosts.insert({p.first, p.second});
  }
  return {hosts.begin(), hosts.end()};
}

// A capture point named "<switch>-p<port>" whose switch (by description or id) the fabric dump knows
// and whose port leads to another switch: that cable's two ends (switch, port), else empty.
std::vector<std::pair<const analysis::FabricSwitch*, int>> CableEnds(const analysis::FabricReport& f, const std::string& link) {
  std::vector<std::pair<const analysis::FabricSwitch*, int>> out;
  if (!f.present || link.rfind("capture:", 0) != 0) return out;
  const std::string point = link.substr(8);
  const size_t at = point.rfind("-p");
  if (at == std::string::npos || at == 0) return out;
  const std::optional<int64_t> port = ParseInt(point.substr(at + 2));
  if (!port) return out;
  const std::string name = point.substr(0, at);
  auto find = [&](const std::string& id_or_desc) -> const analysis::FabricSwitch* {
    for (const analysis::FabricSwitch& sw : f.switches) {
      if (sw.desc == id_or_desc || sw.id == id_or_desc) return &sw;
    }
    return nullptr;
  };
  const analysis::FabricSwitch* a = find(name);
  if (a == nullptr) return out;
  for (const analysis::FabricPort& p : a->ports) {
    if (p.port != *port) continue;
    const analysis::FabricSwitch* b = find(p.peer);
    if (b == nullptr) return out;  // a host port: not a cable between switches
    out.push_back({a, p.port});
    out.push_back({b, p.peer_port});
  }
  return out;
}

// OpenSM hop weights of a decision on a cable between switches: a move_off weighs both ends' ports 2
// (costlier than every path of the same length, so the subnet manager prefers another shortest path
// without detouring by extra hops); a merge writes them back to 1.
std::string HopWeightsText(const std::vector<std::pair<const analysis::FabricSwitch*, int>>& ends, bool move_off) {
  std::vector<analysis::HopWeight> w;
  for (const auto& [sw, port] : ends) w.push_back({"0x" + sw->port_guid, port, move_off ? 2 : 1});
  return report::WriteOpenSmHopWeights(w);
}

// The cable id ("a--b", the two switches' descriptions sorted) of a capture link; "" when unknown.
std::string CableIdOf(const analysis::FabricReport& f, const std::string& link) {
  const auto ends = CableEnds(f, link);
  if (ends.size() != 2) return "";
  const std::string a = ends[0].first->desc.empty() ? ends[0].first->id : ends[0].first->desc;
  const std::string b = ends[1].first->desc.empty() ? ends[1].first->id : ends[1].first->desc;
  return a < b ? a + "--" + b : b + "--" + a;
}

Status WriteDecisionFiles(const ScheduleRequest& req, const Context& c, ScheduledDecision& sd, std::vector<std::string>* written) {
  const std::string sub = "decision-" + std::to_string(sd.decision.index);
  const fs::path dir = fs::path(req.out) / sub;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return MakeKindError(ErrorKind::kOutput, dir.string() + ": cannot create: " + ec.message());
  std::vector<int> slots;
  for (const std::string& h : sd.action.order) {
    auto it = c.slots.find(h);
    slots.push_back(it != c.slots.end() ? it->second : req.default_slots);
  }
  act::RingGraphSpec spec;
  for (int g = 0; g < (slots.empty() ? req.default_slots : slots.front()); ++g) spec.gpu_order.push_back(g);
  spec.nchannels = req.nchannels;
  // Per channel GB/s, as plan-ring writes it: the slowest host cable of the fabric dump / 8 /
  // channels; 1 when the dump gives none.
  double host_gbps = 0;
  for (const analysis::FabricLink& l : c.result.fabric.links) {
    if (l.tier.find("host") != std::string::npos && l.rate_gbps > 0) host_gbps = host_gbps > 0 ? std::min(host_gbps, l.rate_gbps) : l.rate_gbps;
  }
  spec.speed_inter_gbs = host_gbps > 0 ? host_gbps / 8 / req.nchannels : 1;
  spec.speed_intra_gbs = spec.speed_inter_gbs;
  const std::vector<std::pair<std::string, std::string>> files = {
      {"hostfile", act::MpirunHostfileText(sd.action.order, slots)},
      {"torchrun_hosts", act::TorchrunHostsText(sd.action.order)},
      {"slurm_hostfile", act::SlurmHostfileText(sd.action.order, slots)},
      {"nccl_graph.xml", act::RingGraphXml(spec)},
      {"nccl.env", EnvText(sd.action.nccl)}};
  std::vector<std::pair<std::string, std::string>> all = files;
  const auto ends = CableEnds(c.result.fabric, sd.decision.evidence.link);
  if (!ends.empty()) {
    all.emplace_back("opensm_hop_weights.txt", "# EADPS decision " + std::to_string(sd.decision.index) + ": " +
                                                   sd.decision.action + " " + sd.decision.evidence.link +
                                                   " (the cable's two switch ports; weights of this decision, not tomography)\n" +
                                                   HopWeightsText(ends, sd.decision.action == "move_off"));
  }
  for (const auto& [name, text] : all) {
    const std::string path = (dir / name).string();
    if (Status st = WriteFileText(path, text); !st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
    written->push_back(path);
    sd.action.files.push_back(sub + "/" + name);
  }
  return {};
}

std::set<Pair> RingPairs(const std::vector<std::string>& order) {
  std::set<Pair> out;
  for (size_t i = 0; i + 1 < order.size() || (order.size() > 2 && i + 1 == order.size()); ++i) {
    out.insert(Unordered(order[i], order[(i + 1) % order.size()]));
  }
  return out;
}

std::function<double(const std::string&, const std::string&)> EdgeCostOf(const Context& c,
                                                                           const std::vector<std::string>& hosts) {
  analysis::ArchitectureInputs ai;
  ai.fabric = &c.result.fabric;
  ai.probes = c.state.dataset != nullptr ? &c.state.dataset->path_probes : nullptr;
  auto links = std::make_shared<std::vector<double>>(analysis::HostPairLinks(ai, hosts));
  auto index = std::make_shared<std::map<std::string, size_t>>();
  for (size_t i = 0; i < hosts.size(); ++i) (*index)[hosts[i]] = i;
  const size_t n = hosts.size();
  return [links, index, n](const std::string& a, const std::string& b) {
    auto ia = index->find(a), ib = index->find(b);
    if (ia == index->end() || ib == index->end()) return 100.0;
    const double v = (*links)[ia->second * n + ib->second];
    return std::isfinite(v) ? v : 100.0;
  };
}

}  // namespace

Result<ScheduleOutcome> RunSchedule(const ScheduleRequest& req) {
  auto usage = [](const std::string& m) { return MakeKindError(ErrorKind::kUsage, m); };
  if (req.paths.empty()) return usage("schedule: no inputs given (PATH...)");
  if (req.out.empty()) return usage("schedule: --out DIR is required (or --follow)");
  if (Status st = act::ValidateEadpsOptions(req.options); !st.ok()) return st.error();
  auto ctx = std::make_unique<Context>();
  Context& c = *ctx;
  analysis::PipelineOptions po;
  po.analyze = AnalyzeDefaults();
  po.analyze.rdma.entropy.window_ns = req.entropy_window_ns;
  po.paths = req.paths;
  po.only = {analysis::PassId::kRdma, analysis::PassId::kFabric, analysis::PassId::kIslands};
  Result<analysis::PipelineRun> run = analysis::RunPipeline(po, &c.state);
  if (!run.ok()) return run.error();
  c.result = analysis::AssembleResult(c.state, po.analyze);
  if (c.result.rdma.entropy.samples.empty()) {
    return MakeKindError(ErrorKind::kInput, "schedule: no per-link entropy in the inputs (no RoCEv2 capture was read)");
  }
  CapturePairs(c);
  PinnedPairs(c);
  for (const analysis::GpuReport& g : c.result.gpus) ++c.slots[g.host];
  ScheduleOutcome o;
  o.options = req.options;
  o.window_ns = c.result.rdma.entropy_window_ns;
  o.order = JobOrder(req, c, &o.order_source);
  if (!req.hosts_file.empty() && o.order.empty()) return MakeKindError(ErrorKind::kInput, req.hosts_file + ": no hosts read");
  auto seen_pairs = [&c](const std::string& link) {
    if (auto p = HostPairOfLink(link)) return std::vector<Pair>{*p};
    auto it = c.capture_pairs.find(link);
    return it != c.capture_pairs.end() ? it->second : std::vector<Pair>{};
  };
  // A segment's pairs: those its capture saw, and those the probes pin to its cable.
  auto pairs_of = [&c, seen_pairs](const std::string& link) {
    std::vector<Pair> out = seen_pairs(link);
    auto it = c.pinned.find(CableIdOf(c.result.fabric, link));
    if (it != c.pinned.end()) {
      std::set<Pair> all(out.begin(), out.end());
      all.insert(it->second.begin(), it->second.end());
      out.assign(all.begin(), all.end());
    }
    return out;
  };
  // Only the job's ring segments are watched: links that carried a pair of ring neighbours.
  std::vector<act::EntropyPoint> points = PointsOf(c.result.rdma, req.options, &o.skipped_windows);
  const std::set<Pair> ring = RingPairs(o.order);
  std::set<std::string> off_ring;
  std::erase_if(points, [&](const act::EntropyPoint& p) {
    for (const Pair& q : seen_pairs(p.link)) {
      if (ring.count(q) > 0) return false;
    }
    off_ring.insert(p.link);
    return true;
  });
  o.off_ring_links = static_cast<int64_t>(off_ring.size());
  if (points.empty()) {
    return MakeKindError(ErrorKind::kInput,
                         "schedule: no entropy window to watch: " + std::to_string(o.skipped_windows) + " windows of " +
                             req.options.estimator + " had too few packets, " + std::to_string(off_ring.size()) +
                             " links carried no pair of ring neighbours (job order from " + o.order_source + ", " +
                             std::to_string(o.order.size()) + " hosts)");
  }
  Result<act::ScheduleReplay> replay = act::ReplaySchedule(std::move(points), req.options);
  if (!replay.ok()) return replay.error();
  o.links = replay->links, o.windows = replay->windows, o.first_ns = replay->first_ns, o.last_ns = replay->last_ns;
  ActionPlanner planner(o.order, req.qps_per_connection, pairs_of, EdgeCostOf(c, o.order),
                        [&c](const std::string& link) { return !CableEnds(c.result.fabric, link).empty(); });
  // Expected ring edges on the moved (hot) cables, from the share of each pair's probes that cross
  // them.
  // A pair the hot link's capture saw counts whole on it (its QPs were there), others by their share.
  planner.SetLoadOf([&c, seen_pairs](const std::vector<std::string>& order, const std::set<std::string>& moved) {
    std::set<std::string> hot;
    std::set<Pair> seen_hot;
    for (const std::string& l : moved) {
      hot.insert(CableIdOf(c.result.fabric, l));
      for (const Pair& p : seen_pairs(l)) seen_hot.insert(p);
    }
    std::map<std::string, double> load;
    double seen_on_hot = 0;
    for (size_t i = 0; i < order.size() && order.size() > 1; ++i) {
      const Pair e = Unordered(order[i], order[(i + 1) % order.size()]);
      const bool seen = seen_hot.count(e) > 0;
      seen_on_hot += seen ? 1 : 0;
      auto it = c.crossing.find(e);
      if (it == c.crossing.end()) continue;
      for (const auto& [cable, share] : it->second) {
        if (!seen || hot.count(cable) == 0) load[cable] += share;
      }
    }
    double on_hot = seen_on_hot;
    for (const auto& [cable, l] : load) on_hot += hot.count(cable) > 0 ? l : 0;
    return on_hot;
  });
  std::error_code ec;
  fs::create_directories(req.out, ec);
  if (ec) return MakeKindError(ErrorKind::kOutput, req.out + ": cannot create: " + ec.message());
  const std::vector<act::EadpsDecision>& ds = replay->decisions;
  for (size_t i = 0; i < ds.size();) {
    size_t j = i + 1;
    while (j < ds.size() && ds[j].t_ns == ds[i].t_ns) ++j;
    const std::vector<act::EadpsDecision> batch(ds.begin() + static_cast<std::ptrdiff_t>(i), ds.begin() + static_cast<std::ptrdiff_t>(j));
    std::vector<ScheduleAction> actions = planner.PlanBatch(batch);
    for (size_t k = 0; k < batch.size(); ++k) {
      ScheduledDecision sd{batch[k], std::move(actions[k])};
      if (Status st = WriteDecisionFiles(req, c, sd, &o.written); !st.ok()) return st.error();
      o.decisions.push_back(std::move(sd));
    }
    i = j;
  }
  json sched = ScheduleJson(o);
  json sj = sched;
  sj["schema"] = "toposcope.schedule/1";
  json rj = report::ResultToJson(c.result);
  rj["schedule"] = std::move(sched);
  for (const auto& [name, text] : {std::make_pair(std::string("schedule.json"), report::DumpSchemaFirst(sj)),
                                   std::make_pair(std::string("result.json"), report::DumpSchemaFirst(rj)),
                                   std::make_pair(std::string("report.html"), report::html::HtmlReportText(rj))}) {
    const std::string path = (fs::path(req.out) / name).string();
    if (Status st = WriteFileText(path, text); !st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
    o.written.push_back(path);
  }
  return o;
}

json ScheduledDecisionJson(const ScheduledDecision& sd) {
  const act::EadpsDecision& d = sd.decision;
  const act::DecisionEvidence& e = d.evidence;
  json windows = json::array();
  for (const int64_t w : e.windows_ns) windows.push_back(w);
  json pairs = json::array();
  for (const Pair& p : sd.action.segment_pairs) pairs.push_back({p.first, p.second});
  json nccl = json::array();
  for (const act::NcclSetting& s : sd.action.nccl) {
    nccl.push_back({{"name", s.name}, {"value", s.value}, {"changed", s.changed}, {"reason", s.reason}});
  }
  return {{"index", d.index},
          {"t_ns", d.t_ns},
          {"action", d.action},
          {"link", e.link},
          {"evidence",
           {{"rule", e.rule},
            {"estimator", e.estimator},
            {"shown_estimator", e.shown_estimator},
            {"threshold_bits", report::Num(e.threshold_bits, 3)},
            {"hold_s", report::Num(e.hold_s, 3)},
            {"held_s", report::Num(e.held_s, 3)},
            {"wake_ns", e.wake_ns},
            {"wake_jump_bits", report::Num(e.wake_jump_bits, 3)},
            {"run_start_ns", e.run_start_ns},
            {"windows_ns", std::move(windows)},
            {"bits", NumArray(e.bits, 3)},
            {"shown_bits", NumArray(e.shown_bits, 3)},
            {"packets", e.packets},
            {"marks", e.marks}}},
          {"actions",
           {{"segment_pairs", std::move(pairs)},
            {"order_before", sd.action.order_before},
            {"order", sd.action.order},
            {"ring_neighbours_on_moved_segments_before", sd.action.avoided_before},
            {"ring_neighbours_on_moved_segments_after", sd.action.avoided_after},
            {"nccl", std::move(nccl)},
            {"files", sd.action.files}}}};
}

json ScheduleJson(const ScheduleOutcome& o) {
  json decisions = json::array();
  for (const ScheduledDecision& d : o.decisions) decisions.push_back(ScheduledDecisionJson(d));
  const act::EadpsOptions& p = o.options;
  return {{"estimator", p.estimator},
          {"shown_estimator", p.shown_estimator},
          {"options",
           {{"jump_bits", p.jump_bits}, {"hot_bits", p.hot_bits}, {"hot_hold_s", p.hot_hold_s},
            {"cool_bits", p.cool_bits}, {"cool_hold_s", p.cool_hold_s}, {"hysteresis_bits", p.hysteresis_bits},
            {"cooldown_s", p.cooldown_s}, {"awake_s", p.awake_s}, {"mark_fraction", p.mark_fraction},
            {"mark_quiet_s", p.mark_quiet_s}, {"mark_hold_s", p.mark_hold_s}, {"dip_fraction", p.dip_fraction},
            {"flap_cycles", p.flap_cycles}, {"flap_span_s", p.flap_span_s}}},
          {"links", o.links},
          {"windows", o.windows},
          {"window_ns", o.window_ns},
          {"skipped_windows", o.skipped_windows},
          {"off_ring_links", o.off_ring_links},
          {"first_ns", o.first_ns},
          {"last_ns", o.last_ns},
          {"order_source", o.order_source},
          {"order", o.order},
          {"decisions", std::move(decisions)}};
}

// Why a decision fired, in a few words.
std::string RuleText(const act::DecisionEvidence& e) {
  if (e.rule == "mark_hold") {
    int64_t marks = 0, packets = 0;
    for (size_t i = 0; i < e.marks.size(); ++i) marks += std::max<int64_t>(0, e.marks[i]), packets += std::max<int64_t>(0, e.packets[i]);
    return FormatFixed(e.held_s, 2) + " s of congestion marks first seen here, " + std::to_string(marks) + " of " +
           std::to_string(packets) + " packets";
  }
  if (e.rule == "flap_cycles") {
    return std::to_string(e.windows_ns.size()) + " times its traffic fell below " + FormatFixed(100 * e.threshold_bits, 0) +
           " % of its median and came back, within " + FormatFixed(e.held_s, 2) + " s";
  }
  return FormatFixed(e.held_s, 2) + " s " + (e.rule == "hot_hold" ? "above " : "below ") + FormatFixed(e.threshold_bits, 2) +
         " bit, woken by a jump of " + FormatFixed(e.wake_jump_bits, 2) + " bit";
}

std::string ScheduleText(const ScheduleOutcome& o) {
  std::string s = "EADPS over " + std::to_string(o.links) + " links, " + std::to_string(o.windows) + " windows of " +
                  FormatFixed(static_cast<double>(o.window_ns) / 1e6, 1) + " ms (" + std::to_string(o.off_ring_links) +
                  " links off the job's ring not watched) (watching " + o.options.estimator +
                  (o.options.shown_estimator.empty() ? "" : ", showing " + o.options.shown_estimator) + "; job order from " +
                  o.order_source + ")\n";
  if (o.decisions.empty()) s += "  no decision: no link woke and held above " + FormatFixed(o.options.hot_bits, 2) + " bit\n";
  for (const ScheduledDecision& d : o.decisions) {
    const act::DecisionEvidence& e = d.decision.evidence;
    s += "  #" + std::to_string(d.decision.index) + " " + d.decision.action + " " + e.link + " at " +
         FormatFixed(static_cast<double>(d.decision.t_ns - o.first_ns) / 1e9, 2) + " s: " + e.rule + " (" +
         RuleText(e) + "); ring neighbours on moved segments " + std::to_string(d.action.avoided_before) + " -> " +
         std::to_string(d.action.avoided_after) + "\n";
    for (const act::NcclSetting& n : d.action.nccl) {
      if (n.changed) s += "      " + n.name + "=" + n.value + "\n";
    }
  }
  for (const std::string& w : o.written) s += "  wrote " + w + "\n";
  return s;
}

Result<int64_t> FollowSchedule(const ScheduleRequest& req, std::istream& in, const std::string& source, std::ostream& out) {
  if (Status st = act::ValidateEadpsOptions(req.options); !st.ok()) return st.error();
  std::vector<std::string> order;
  if (!req.hosts_file.empty()) {
    Result<std::vector<std::string>> h = ReadHostsFile(req.hosts_file);
    if (!h.ok()) return h.error();
    order = std::move(*h);
  }
  auto pairs_of = [](const std::string& link) {
    if (auto p = HostPairOfLink(link)) return std::vector<Pair>{*p};
    return std::vector<Pair>{};
  };
  ActionPlanner planner(order, req.qps_per_connection, pairs_of, {});
  act::EadpsMachine m(req.options);
  std::map<std::string, int64_t> per_link;
  std::string line;
  int64_t lineno = 0, decisions = 0, points = 0;
  auto bad = [&](const std::string& why) {
    return MakeKindError(ErrorKind::kInput, source + ":" + std::to_string(lineno) + ": " + why);
  };
  while (std::getline(in, line)) {
    ++lineno;
    Result<std::optional<act::EntropyPoint>> parsed = act::ParseEntropySampleLine(line, req.options.estimator);
    if (!parsed.ok()) return bad(parsed.error().message);
    if (!parsed->has_value()) continue;
    const act::EntropyPoint& p = **parsed;
    Result<std::vector<act::EadpsDecision>> d = m.Feed(p);
    if (!d.ok()) return bad(d.error().message);
    ++points;
    ++per_link[p.link];
    for (const act::EadpsDecision& x : *d) {
      ScheduledDecision sd{x, planner.Plan(x)};
      out << ScheduledDecisionJson(sd).dump() << "\n";
      out.flush();
      ++decisions;
    }
  }
  if (points == 0) return MakeKindError(ErrorKind::kInput, source + ": the entropy stream is empty (no window of " + req.options.estimator + ")");
  bool any_series = false;
  for (const auto& [link, n] : per_link) any_series = any_series || n >= 2;
  if (!any_series) {
    return MakeKindError(ErrorKind::kInput, source + ": every link has a single window: no change between windows to watch");
  }
  return decisions;
}

}  // namespace toposcope::app
