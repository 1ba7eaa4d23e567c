// report/score/traffic_score: RoCE flows and QP pairing, NCCL rings, link entropy and the GPU-pair
// traffic matrix against the truth.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/report/result_json.h"
#include "toposcope/report/score/score_sections.h"
#include "toposcope/report/score/traffic_matrix_score.h"

namespace toposcope::report::score_internal {

using nlohmann::json;

namespace {

// A cycle rotated so that its smallest element comes first (direction kept).
template <typename T>
std::vector<T> Rotated(std::vector<T> v) {
  if (v.empty()) return v;
  std::rotate(v.begin(), std::min_element(v.begin(), v.end()), v.end());
  return v;
}

std::string FlowId(const std::string& src, const std::string& dst, int64_t dest_qp) {
  return src + ">" + dst + "#" + std::to_string(dest_qp);
}

// The result's flows: id -> (paired, src_qp), and id -> every (method, qp) a pairing proposed.
struct ResultFlows {
  std::map<std::string, std::pair<bool, int64_t>> found;
  std::map<std::string, std::vector<std::pair<std::string, int64_t>>> proposals;
};

ResultFlows ResultFlowsOf(const json& result) {
  ResultFlows rf;
  if (!result.contains("flows")) return rf;
  for (const auto& f : result["flows"]) {
    const bool paired = f.contains("src_qp") && f["src_qp"].is_number();
    const std::string id = FlowId(StrField(f, "src"), StrField(f, "dst"), f.value("dest_qp", int64_t{-1}));
    rf.found[id] = {paired, paired ? f["src_qp"].get<int64_t>() : -1};
    if (f.contains("candidates") && f["candidates"].is_array()) {
      for (const auto& c : f["candidates"]) {
        rf.proposals[id].emplace_back(StrField(c, "method"), c.value("src_qp", int64_t{-1}));
      }
    }
  }
  return rf;
}

// Truth, found and source-QP-right counts as {"truth", "found", "src_qp_right", "src_qp_accuracy"}.
json CountsJson(const std::array<int64_t, 3>& c) {
  return {{"truth", c[0]},
          {"found", c[1]},
          {"src_qp_right", c[2]},
          {"src_qp_accuracy", Num(Ratio(static_cast<double>(c[2]), static_cast<double>(c[1])), 6)}};
}

// Flows: recall over the truth's flows; source-QP accuracy over those found, per kind, per pairing
// method and per number of QPs between the flow's two NICs (the truth's flows of the same source
// and destination address: NCCL_IB_QPS_PER_CONNECTION x channels, plus other tenants' QPs).
json ScoreFlows(const json& tr, const json& result) {
  ResultFlows rf = ResultFlowsOf(result);
  std::map<std::string, std::array<int64_t, 2>> by_method;  // method -> proposed, right
  int64_t n = 0, hit = 0, qp_ok = 0, paired = 0;
  std::map<std::string, std::array<int64_t, 3>> by_kind;  // kind -> truth, found, src_qp right
  std::map<std::pair<std::string, std::string>, int64_t> qps_of_pair;  // (src, dst) -> flows
  for (const auto& f : tr["flows"]) ++qps_of_pair[{StrField(f, "src"), StrField(f, "dst")}];
  std::map<int64_t, std::array<int64_t, 3>> by_qps;  // QPs of the NIC pair -> truth, found, right
  std::array<int64_t, 3> multi{};                    // NIC pairs with two QPs or more
  for (const auto& f : tr["flows"]) {
    ++n;
    auto& k = by_kind[StrField(f, "kind")];
    ++k[0];
    const int64_t qps = qps_of_pair[{StrField(f, "src"), StrField(f, "dst")}];
    auto& q = by_qps[qps];
    ++q[0];
    if (qps > 1) ++multi[0];
    const std::string id = FlowId(StrField(f, "src"), StrField(f, "dst"), f.value("dest_qp", int64_t{-1}));
    for (const auto& [method, qp] : rf.proposals[id]) {
      ++by_method[method][0];
      if (qp == f.value("src_qp", int64_t{-2})) ++by_method[method][1];
    }
    auto it = rf.found.find(id);
    if (it == rf.found.end()) continue;
    ++hit;
    ++k[1];
    ++q[1];
    if (qps > 1) ++multi[1];
    if (it->second.first) ++paired;
    if (it->second.first && it->second.second == f.value("src_qp", int64_t{-2})) {
      ++qp_ok;
      ++k[2];
      ++q[2];
      if (qps > 1) ++multi[2];
    }
  }
  json kinds = json::object();
  for (const auto& [kind, c] : by_kind) kinds[kind.empty() ? "unspecified" : kind] = CountsJson(c);
  json qps_json = json::object();
  for (const auto& [qps, c] : by_qps) qps_json[std::to_string(qps)] = CountsJson(c);
  json methods = json::object();
  for (const auto& [m, c] : by_method) {
    methods[m] = {{"proposed", c[0]}, {"right", c[1]},
                  {"accuracy", Num(Ratio(static_cast<double>(c[1]), static_cast<double>(c[0])), 6)}};
  }
  return {{"truth_flows", n},
          {"found", hit},
          {"result_flows", rf.found.size()},
          {"recall", Num(Ratio(static_cast<double>(hit), static_cast<double>(n)), 6)},
          {"paired", paired},
          {"src_qp_accuracy", Num(Ratio(static_cast<double>(qp_ok), static_cast<double>(hit)), 6)},
          {"src_qp_precision", Num(Ratio(static_cast<double>(qp_ok), static_cast<double>(paired)), 6)},
          {"by_kind", kinds},
          {"by_qps_per_nic_pair", qps_json},
          {"multi_qp", CountsJson(multi)},
          {"by_method", methods}};
}

// Rings: a truth ring is recovered exactly from the logs when a log ring of the same channel has
// the same rank cycle; from the flows when a flow ring has the same host cycle.
json ScoreRings(const json& tr, const json& result) {
  std::set<std::pair<int, std::vector<int>>> log_rings;
  std::set<std::vector<std::string>> flow_cycles, log_cycles;
  if (result.contains("rings")) {
    for (const auto& g : result["rings"]) {
      std::vector<std::string> hosts = g.value("hosts", std::vector<std::string>{});
      if (StrField(g, "source") == "flows") {
        flow_cycles.insert(Rotated(hosts));
      } else if (g.value("complete", true)) {  // a partial ring (cut short) never counts as recovered
        log_rings.insert({g.value("channel", -1), Rotated(g.value("ranks", std::vector<int>{}))});
        log_cycles.insert(Rotated(hosts));
      }
    }
  }
  int64_t rn = 0, exact = 0, flow_exact = 0;
  for (const auto& t : tr["rings"]) {
    ++rn;
    if (log_rings.count({t.value("channel", -1), Rotated(t.value("ranks", std::vector<int>{}))}) > 0) ++exact;
    if (flow_cycles.count(Rotated(t.value("hosts", std::vector<std::string>{}))) > 0) ++flow_exact;
  }
  return {{"truth_rings", rn},
          {"exact_fraction", Num(Ratio(static_cast<double>(exact), static_cast<double>(rn)), 6)},
          {"flows_host_cycle_fraction", Num(Ratio(static_cast<double>(flow_exact), static_cast<double>(rn)), 6)}};
}

// A confusion count of one binary criterion against the truth's backbone links.
struct Confusion {
  int64_t tp = 0, fp = 0, fn = 0, tn = 0;
  void Add(bool truth, bool ours) { (truth ? (ours ? tp : fn) : (ours ? fp : tn))++; }
  [[nodiscard]] json ToJson(const char* method) const {
    json j = DetectionJson(tp, fp, fn);
    j["true_negatives"] = tn;
    j["method"] = method;
    return j;
  }
};

// Entropy: the seed's deterministic (< 2.1 bit) links against the truth's ring backbone, and the
// named spectrum mode per link.
json ScoreEntropy(const json& tr, const json& result) {
  std::map<std::string, bool> det, regular;
  std::map<std::string, std::string> mode;
  if (result.contains("link_entropy_summary")) {
    for (const auto& l : result["link_entropy_summary"]) {
      det[UndirectedId(StrField(l, "link"))] = l.value("deterministic", false);
      regular[UndirectedId(StrField(l, "link"))] = l.value("regular", false);
    }
  }
  if (result.contains("entropy_modes")) {
    for (const auto& m : result["entropy_modes"]) mode[UndirectedId(StrField(m, "link"))] = StrField(m, "mode");
  }
  int64_t seen = 0, mode_n = 0, mode_ok = 0;
  Confusion ours, seed;  // ours: regular; the seed's criterion: deterministic
  std::map<std::string, std::map<std::string, int64_t>> confusion;
  for (const auto& l : tr["links"]) {
    const std::string id = UndirectedId(StrField(l, "link"));
    auto it = det.find(id);
    if (it == det.end()) continue;
    ++seen;
    const bool truth_bb = l.value("backbone", false);
    ours.Add(truth_bb, regular[id]);
    seed.Add(truth_bb, it->second);
    const std::string tm = StrField(l, "mode");
    if (!tm.empty()) {
      ++mode_n;
      const std::string rm = mode.count(id) > 0 ? mode[id] : "missing";
      ++confusion[tm][rm];
      if (rm == tm) ++mode_ok;
    }
  }
  return {{"links_scored", seen},
          {"backbone", ours.ToJson("regular: pooled message-size entropy < 2.1 bit, sustained")},
          {"seed_backbone", seed.ToJson("seed: median per-window header entropy < 2.1 bit")},
          {"modes", {{"accuracy", Num(Ratio(static_cast<double>(mode_ok), static_cast<double>(mode_n)), 6)},
                     {"links", mode_n},
                     {"confusion", confusion}}}};
}

// The result's traffic matrix as the estimate ScoreTrafficMatrix reads (hosts, pairs, error bars).
analysis::TrafficMatrixReport TrafficMatrixOf(const json& result) {
  analysis::TrafficMatrixReport got;
  if (!result.contains("traffic_matrix") || !result["traffic_matrix"].contains("hosts")) return got;
  got.present = true;
  for (const auto& h : result["traffic_matrix"]["hosts"]) {
    analysis::HostTrafficMatrix m;
    m.host = StrField(h, "host");
    m.estimable = h.value("estimable", false);
    if (h.contains("pairs")) {
      for (const auto& p : h["pairs"]) {
        analysis::PairTraffic pt;
        pt.src_gpu = p.value("src", -1);
        pt.dst_gpu = p.value("dst", -1);
        pt.bytes_per_s = p.value("bytes_per_s", 0.0);
        pt.err_bytes_per_s = p.value("err_bytes_per_s", 0.0);
        m.pairs.push_back(pt);
      }
    }
    got.hosts.push_back(std::move(m));
  }
  return got;
}

}  // namespace

// Flows, QP pairing, rings and link entropy against truth["rdma"].
void ScoreRdma(const json& truth, const json& result, json& out) {
  if (!truth.contains("rdma") || !truth["rdma"].is_object()) return;
  const json& tr = truth["rdma"];
  if (tr.contains("flows")) out["flows"] = ScoreFlows(tr, result);
  if (tr.contains("rings") && !tr["rings"].empty()) out["rings"] = ScoreRings(tr, result);
  if (tr.contains("links") && !tr["links"].empty()) out["entropy"] = ScoreEntropy(tr, result);
}

// GPU-pair NVLink traffic of NVSwitch hosts against truth["traffic_matrix"].
void ScoreTrafficMatrixJson(const json& truth, const json& result, json& out) {
  if (!truth.contains("traffic_matrix") || !truth["traffic_matrix"].contains("hosts")) return;
  std::vector<TruePairTraffic> want;
  for (const auto& h : truth["traffic_matrix"]["hosts"]) {
    if (StrField(h, "fabric") != "nvswitch" || !h.contains("pairs")) continue;
    for (const auto& p : h["pairs"]) {
      want.push_back({StrField(h, "host"), p.value("src", -1), p.value("dst", -1), p.value("bytes_per_s", 0.0)});
    }
  }
  const TrafficMatrixScore sc = ScoreTrafficMatrix(TrafficMatrixOf(result), want, 0.01);
  out["traffic_matrix"] = {{"pairs_scored", sc.pairs_scored}, {"pairs_missing", sc.pairs_missing},
                           {"median_rel_error", Num(sc.median_rel_error, 6)}, {"p90_rel_error", Num(sc.p90_rel_error, 6)},
                           {"coverage", Num(sc.coverage, 6)},
                           {"max_abs_error_below_floor_bytes_per_s", Num(sc.max_abs_error_below_floor, 0)},
                           {"floor", "pairs at or above 1 % of their host's largest true pair"}};
}

}  // namespace toposcope::report::score_internal
