#include "toposcope/report/score.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "toposcope/base/file_io.h"
#include "toposcope/base/names.h"
#include "toposcope/report/result_json.h"
#include "toposcope/analysis/time/timesync.h"
#include "toposcope/report/score/grouping.h"
#include "toposcope/report/score/traffic_matrix_score.h"
#include "toposcope/stats/ari.h"

namespace toposcope::report {

using nlohmann::json;

namespace {

Result<json> LoadJson(const std::string& path) {
  auto text = ReadFileText(path);
  if (!text.ok()) return text.error();
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) return MakeError(path, 0, 0, "not valid JSON");
  return j;
}

bool HasSchema(const json& j, const std::string& prefix) {
  return j.is_object() && j.contains("schema") && j["schema"].is_string() &&
         j["schema"].get<std::string>().rfind(prefix, 0) == 0;
}

std::string Str(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

double Ratio(double num, double den) { return den > 0 ? num / den : 1.0; }

// The seed's three bandwidth classes of a link type.
std::string ClassOfType(const std::string& type) {
  if (type == "NVLINK" || type == "NVSWITCH" || type == "C2C") return "nvlink";
  if (type == "PIX" || type == "PXB") return "pcie_switch";
  if (type == "PHB" || type == "NODE" || type == "SYS") return "pcie_cpu";
  return "";
}

}  // namespace

// Rebuilds the clock models of a result: host -> model name -> model.
std::map<std::string, std::map<std::string, analysis::ClockModel>> ClockModelsOf(const json& result) {
  std::map<std::string, std::map<std::string, analysis::ClockModel>> out;
  if (!result.contains("clocks") || !result["clocks"].is_array()) return out;
  for (const auto& c : result["clocks"]) {
    analysis::ClockModel m;
    m.host = Str(c, "host");
    if (!c.contains("segments")) continue;
    for (const auto& sg : c["segments"]) {
      analysis::ClockSegment seg;
      seg.start_local_ns = sg.value("start_local_ns", int64_t{0});
      seg.t0_local_ns = sg.value("t0_local_ns", int64_t{0});
      if (sg.contains("c") && sg["c"].is_array() && sg["c"].size() == 3) {
        seg.c0 = sg["c"][0].is_number() ? sg["c"][0].get<double>() : 0.0;
        seg.c1 = sg["c"][1].is_number() ? sg["c"][1].get<double>() : 0.0;
        seg.c2 = sg["c"][2].is_number() ? sg["c"][2].get<double>() : 0.0;
      }
      m.segments.push_back(seg);
    }
    const std::string name = Str(c, "model");
    out[m.host][name] = m;
    if (c.value("best", false)) out[m.host]["best"] = m;
  }
  return out;
}

double QuantileOf(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// Clock alignment error on the truth's check instants (which no input contains).
json ScoreClocks(const json& truth, const json& result) {
  json out = json::object();
  if (!truth.contains("clock_checks") || !truth["clock_checks"].is_array()) return out;
  const auto models = ClockModelsOf(result);
  std::map<std::string, std::vector<double>> err;                       // model -> |error| us
  std::map<std::string, std::map<std::string, std::vector<double>>> per_host;  // host -> model -> errors
  int64_t checks = 0, unmodelled = 0;
  for (const auto& c : truth["clock_checks"]) {
    const std::string host = Str(c, "host");
    const auto local = c.value("local_ns", int64_t{0});
    const auto global = c.value("global_ns", int64_t{0});
    ++checks;
    auto it = models.find(host);
    for (const char* name : {"none", "linear", "quadratic", "best"}) {
      double e = 0;
      if (it == models.end() || it->second.count(name) == 0U) {
        e = std::abs(static_cast<double>(local - global)) / 1000.0;  // no model: uncompensated
        if (std::string(name) == "best") ++unmodelled;
      } else {
        e = std::abs(static_cast<double>(it->second.at(name).ToGlobalNs(local) - global)) / 1000.0;
      }
      err[name].push_back(e);
      per_host[host][name].push_back(e);
    }
  }
  for (const auto& [name, v] : err) {
    double sum = 0;
    for (double x : v) sum += x;
    out[name] = {{"mean_abs_error_us", Num(v.empty() ? 0 : sum / static_cast<double>(v.size()), 3)},
                 {"p99_abs_error_us", Num(QuantileOf(v, 0.99), 3)}};
  }
  out["checks"] = checks;
  out["hosts_without_model"] = unmodelled;
  int worse = 0;
  json hosts = json::array();
  for (const auto& [host, m] : per_host) {
    auto mean = [](const std::vector<double>& v) {
      double s = 0;
      for (double x : v) s += x;
      return v.empty() ? 0.0 : s / static_cast<double>(v.size());
    };
    const double q = mean(m.at("quadratic"));
    const double b = mean(m.at("best"));
    if (b > q) ++worse;
    hosts.push_back({{"host", host}, {"quadratic_mean_us", Num(q, 3)}, {"best_mean_us", Num(b, 3)}});
  }
  out["hosts"] = hosts;
  out["hosts_best_worse_than_quadratic"] = worse;
  const double qm = out.contains("quadratic") ? out["quadratic"]["mean_abs_error_us"].get<double>() : 0;
  const double bm = out.contains("best") ? out["best"]["mean_abs_error_us"].get<double>() : 0;
  out["quadratic_over_best"] = Num(bm > 0 ? qm / bm : 0, 3);
  return out;
}

// Detection of the injected telemetry faults: a finding matches a fault of the same kind on the
// same host (and GPU, when the fault names one).
json ScoreDetections(const json& truth, const json& result) {
  json out = json::object();
  if (!truth.contains("telemetry_faults") || !truth["telemetry_faults"].is_array()) return out;
  std::map<std::string, std::set<std::pair<std::string, int>>> want, got;
  // The GPU of a fault or finding: a number, or a canonical name "HOST/gpuN".
  auto gpu_of = [](const json& f) {
    if (!f.contains("gpu")) return -1;
    if (f["gpu"].is_number_integer()) return f["gpu"].get<int>();
    if (f["gpu"].is_string()) {
      auto g = ParseGpuName(f["gpu"].get<std::string>());
      return g ? g->index : -1;
    }
    return -1;
  };
  for (const auto& f : truth["telemetry_faults"]) {
    const int gpu = Str(f, "kind") == "clock_step" ? -1 : gpu_of(f);
    want[Str(f, "kind")].insert({Str(f, "host"), gpu});
  }
  if (result.contains("telemetry_findings")) {
    for (const auto& f : result["telemetry_findings"]) {
      const int gpu = Str(f, "kind") == "clock_step" ? -1 : gpu_of(f);
      got[Str(f, "kind")].insert({Str(f, "host"), gpu});
    }
  }
  std::set<std::string> kinds;
  for (const auto& [k, _] : want) kinds.insert(k);
  for (const auto& [k, _] : got) kinds.insert(k);
  for (const auto& k : kinds) {
    int64_t tp = 0, fp = 0, fn = 0;
    for (const auto& x : got[k]) (want[k].count(x) != 0U ? tp : fp)++;
    for (const auto& x : want[k]) fn += got[k].count(x) == 0U ? 1 : 0;
    out[k] = {{"precision", Num(Ratio(static_cast<double>(tp), static_cast<double>(tp + fp)), 6)},
              {"recall", Num(Ratio(static_cast<double>(tp), static_cast<double>(tp + fn)), 6)},
              {"true_positives", tp},
              {"false_positives", fp},
              {"false_negatives", fn}};
  }
  return out;
}

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

// Flows, QP pairing, rings and link entropy against truth["rdma"].
json ScoreRdma(const json& truth, const json& result) {
  json out;
  if (!truth.contains("rdma") || !truth["rdma"].is_object()) return out;
  const json& tr = truth["rdma"];
  // Flows: recall over the truth's flows; source-QP accuracy over those found.
  std::map<std::string, std::pair<bool, int64_t>> found;  // id -> (paired, src_qp)
  std::map<std::string, std::vector<std::pair<std::string, int64_t>>> proposals;  // id -> (method, qp)
  if (result.contains("flows")) {
    for (const auto& f : result["flows"]) {
      const bool paired = f.contains("src_qp") && f["src_qp"].is_number();
      const std::string id = FlowId(Str(f, "src"), Str(f, "dst"), f.value("dest_qp", int64_t{-1}));
      found[id] = {paired, paired ? f["src_qp"].get<int64_t>() : -1};
      if (f.contains("candidates") && f["candidates"].is_array()) {
        for (const auto& c : f["candidates"]) proposals[id].emplace_back(Str(c, "method"), c.value("src_qp", int64_t{-1}));
      }
    }
  }
  std::map<std::string, std::array<int64_t, 2>> by_method;  // method -> proposed, right
  int64_t n = 0, hit = 0, qp_ok = 0, paired = 0;
  std::map<std::string, std::array<int64_t, 3>> by_kind;  // kind -> truth, found, src_qp right
  if (tr.contains("flows")) {
    for (const auto& f : tr["flows"]) {
      ++n;
      auto& k = by_kind[Str(f, "kind")];
      ++k[0];
      const std::string id = FlowId(Str(f, "src"), Str(f, "dst"), f.value("dest_qp", int64_t{-1}));
      for (const auto& [method, qp] : proposals[id]) {
        ++by_method[method][0];
        if (qp == f.value("src_qp", int64_t{-2})) ++by_method[method][1];
      }
      auto it = found.find(id);
      if (it == found.end()) continue;
      ++hit;
      ++k[1];
      if (it->second.first) ++paired;
      if (it->second.first && it->second.second == f.value("src_qp", int64_t{-2})) {
        ++qp_ok;
        ++k[2];
      }
    }
    json kinds = json::object();
    for (const auto& [kind, c] : by_kind) {
      kinds[kind.empty() ? "unspecified" : kind] = {
          {"truth", c[0]}, {"found", c[1]}, {"src_qp_right", c[2]},
          {"src_qp_accuracy", Num(Ratio(static_cast<double>(c[2]), static_cast<double>(c[1])), 6)}};
    }
    json methods = json::object();
    for (const auto& [m, c] : by_method) {
      methods[m] = {{"proposed", c[0]}, {"right", c[1]},
                    {"accuracy", Num(Ratio(static_cast<double>(c[1]), static_cast<double>(c[0])), 6)}};
    }
    out["flows"] = {{"truth_flows", n},
                    {"found", hit},
                    {"result_flows", found.size()},
                    {"recall", Num(Ratio(static_cast<double>(hit), static_cast<double>(n)), 6)},
                    {"paired", paired},
                    {"src_qp_accuracy", Num(Ratio(static_cast<double>(qp_ok), static_cast<double>(hit)), 6)},
                    {"src_qp_precision", Num(Ratio(static_cast<double>(qp_ok), static_cast<double>(paired)), 6)},
                    {"by_kind", kinds},
                    {"by_method", methods}};
  }
  // Rings: a truth ring is recovered exactly from the logs when a log ring of the same channel has
  // the same rank cycle; from the flows when a flow ring has the same host cycle.
  if (tr.contains("rings") && !tr["rings"].empty()) {
    std::set<std::pair<int, std::vector<int>>> log_rings;
    std::set<std::vector<std::string>> flow_cycles, log_cycles;
    if (result.contains("rings")) {
      for (const auto& g : result["rings"]) {
        std::vector<std::string> hosts = g.value("hosts", std::vector<std::string>{});
        if (Str(g, "source") == "flows") {
          flow_cycles.insert(Rotated(hosts));
        } else {
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
    out["rings"] = {{"truth_rings", rn},
                    {"exact_fraction", Num(Ratio(static_cast<double>(exact), static_cast<double>(rn)), 6)},
                    {"flows_host_cycle_fraction", Num(Ratio(static_cast<double>(flow_exact), static_cast<double>(rn)), 6)}};
  }
  // Entropy: the seed's deterministic (< 2.1 bit) links against the truth's ring backbone, and the
  // named spectrum mode per link.
  if (tr.contains("links") && !tr["links"].empty()) {
    std::map<std::string, bool> det, regular;
    std::map<std::string, std::string> mode;
    if (result.contains("link_entropy_summary")) {
      for (const auto& l : result["link_entropy_summary"]) {
        det[Str(l, "link")] = l.value("deterministic", false);
        regular[Str(l, "link")] = l.value("regular", false);
      }
    }
    if (result.contains("entropy_modes")) {
      for (const auto& m : result["entropy_modes"]) mode[Str(m, "link")] = Str(m, "mode");
    }
    int64_t tp = 0, fp = 0, fn = 0, tn = 0, seen = 0, mode_n = 0, mode_ok = 0;
    int64_t stp = 0, sfp = 0, sfn = 0, stn = 0;  // the seed's criterion
    std::map<std::string, std::map<std::string, int64_t>> confusion;
    for (const auto& l : tr["links"]) {
      const std::string id = Str(l, "link");
      auto it = det.find(id);
      if (it == det.end()) continue;
      ++seen;
      const bool truth_bb = l.value("backbone", false);
      const bool ours = regular[id];
      if (truth_bb && ours) ++tp;
      if (!truth_bb && ours) ++fp;
      if (truth_bb && !ours) ++fn;
      if (!truth_bb && !ours) ++tn;
      if (truth_bb && it->second) ++stp;
      if (!truth_bb && it->second) ++sfp;
      if (truth_bb && !it->second) ++sfn;
      if (!truth_bb && !it->second) ++stn;
      const std::string tm = Str(l, "mode");
      if (!tm.empty()) {
        ++mode_n;
        const std::string rm = mode.count(id) > 0 ? mode[id] : "missing";
        ++confusion[tm][rm];
        if (rm == tm) ++mode_ok;
      }
    }
    out["entropy"] = {{"links_scored", seen},
                      {"backbone",
                       {{"precision", Num(Ratio(static_cast<double>(tp), static_cast<double>(tp + fp)), 6)},
                        {"recall", Num(Ratio(static_cast<double>(tp), static_cast<double>(tp + fn)), 6)},
                        {"true_positives", tp},
                        {"false_positives", fp},
                        {"false_negatives", fn},
                        {"true_negatives", tn},
                        {"method", "regular: pooled message-size entropy < 2.1 bit, sustained"}}},
                      {"seed_backbone",
                       {{"precision", Num(Ratio(static_cast<double>(stp), static_cast<double>(stp + sfp)), 6)},
                        {"recall", Num(Ratio(static_cast<double>(stp), static_cast<double>(stp + sfn)), 6)},
                        {"true_positives", stp},
                        {"false_positives", sfp},
                        {"false_negatives", sfn},
                        {"true_negatives", stn},
                        {"method", "seed: median per-window header entropy < 2.1 bit"}}},
                      {"modes", {{"accuracy", Num(Ratio(static_cast<double>(mode_ok), static_cast<double>(mode_n)), 6)},
                                 {"links", mode_n},
                                 {"confusion", confusion}}}};
  }
  return out;
}

// Patterns, path findings and leaf membership against truth["fabric"].
json ScoreFabric(const json& truth, const json& result) {
  json out;
  if (!truth.contains("fabric") || !truth["fabric"].is_object()) return out;
  const json& tf = truth["fabric"];
  // Patterns: each host's class against its job's kind.
  if (tf.contains("cas") && result.contains("patterns")) {
    std::map<std::string, std::string> got;
    for (const auto& p : result["patterns"]) {
      const std::string scope = Str(p, "scope");
      if (scope.rfind("host:", 0) == 0) got[scope.substr(5)] = Str(p, "class");
    }
    std::map<std::string, std::string> want;
    for (const auto& c : tf["cas"]) {
      if (!Str(c, "host").empty() && !Str(c, "qp_pattern").empty()) want[Str(c, "host")] = Str(c, "qp_pattern");
    }
    int64_t ok = 0;
    for (const auto& [h, k] : want) ok += got.count(h) > 0 && got[h] == k ? 1 : 0;
    out["patterns"] = {{"hosts", want.size()}, {"correct", ok},
                       {"accuracy", Num(Ratio(static_cast<double>(ok), static_cast<double>(want.size())), 6)}};
  }
  // Path findings: precision and recall by node.
  auto pr = [&](const char* truth_key, const char* result_key) {
    std::set<std::string> want, got;
    if (tf.contains(truth_key)) {
      for (const auto& b : tf[truth_key]) want.insert(Str(b, "node"));
    }
    if (result.contains("paths") && result["paths"].contains(result_key)) {
      for (const auto& b : result["paths"][result_key]) got.insert(Str(b, "node"));
    }
    int64_t tp = 0;
    for (const auto& n : got) tp += want.count(n);
    const auto fp = static_cast<int64_t>(got.size()) - tp;
    const auto fn = static_cast<int64_t>(want.size()) - tp;
    return json{{"precision", Num(Ratio(static_cast<double>(tp), static_cast<double>(tp + fp)), 6)},
                {"recall", Num(Ratio(static_cast<double>(tp), static_cast<double>(tp + fn)), 6)},
                {"true_positives", tp}, {"false_positives", fp}, {"false_negatives", fn}};
  };
  if (result.contains("paths")) {
    out["paths"] = {{"bottleneck", pr("bottlenecks", "bottlenecks")}, {"redundant_hop", pr("redundant_hops", "redundant_hops")}};
  }
  // Leaf membership: hosts whose leaf (by the set of hosts sharing it) matches the truth. From probe
  // RTTs alone (fabric.inferred) when present; from the discovered fabric's leaves beside it.
  auto groups = [](const json& arr) {
    std::vector<std::vector<std::string>> g;
    for (const auto& l : arr) g.push_back(l.value("hosts", std::vector<std::string>{}));
    return g;
  };
  if (tf.contains("leaves") && result.contains("fabric") && result["fabric"].contains("inferred")) {
    const json& inf = result["fabric"]["inferred"];
    const auto truth_leaves = groups(tf["leaves"]);
    std::vector<std::string> hosts;
    for (const auto& g : truth_leaves) hosts.insert(hosts.end(), g.begin(), g.end());
    std::sort(hosts.begin(), hosts.end());
    json f = {{"hosts", hosts.size()}, {"source", "probes"},
              {"leaf_accuracy", Num(GroupingAccuracy(groups(inf.value("leaves", json::array())), truth_leaves, hosts), 6)}};
    // Pods: the truth's pods (fat-tree: one; dragonfly: its groups; HHRE: its rings), as hosts.
    std::map<std::string, std::vector<std::string>> leaf_hosts;
    for (const auto& l : tf["leaves"]) leaf_hosts[Str(l, "switch")] = l.value("hosts", std::vector<std::string>{});
    std::vector<std::vector<std::string>> truth_pods;
    if (tf.contains("pods") && tf["pods"].is_array()) {
      for (const auto& p : tf["pods"]) {
        std::vector<std::string> hs;
        for (const auto& m : p.value("leaves", std::vector<std::string>{})) {
          hs.insert(hs.end(), leaf_hosts[m].begin(), leaf_hosts[m].end());
        }
        if (!hs.empty()) truth_pods.push_back(hs);
      }
    }
    if (!truth_pods.empty()) {
      f["pod_accuracy"] = Num(GroupingAccuracy(groups(inf.value("pods", json::array())), truth_pods, hosts), 6);
    }
    out["fabric"] = f;
  }
  if (tf.contains("leaves") && result.contains("fabric") && result["fabric"].contains("leaves") &&
      Str(result["fabric"], "source") != "probes") {
    std::map<std::string, std::set<std::string>> truth_group, result_group;
    for (const auto& l : tf["leaves"]) {
      const auto hosts = l.value("hosts", std::vector<std::string>{});
      for (const auto& h : hosts) truth_group[h] = std::set<std::string>(hosts.begin(), hosts.end());
    }
    for (const auto& l : result["fabric"]["leaves"]) {
      const auto hosts = l.value("hosts", std::vector<std::string>{});
      for (const auto& h : hosts) result_group[h] = std::set<std::string>(hosts.begin(), hosts.end());
    }
    int64_t ok = 0, named = 0;
    for (const auto& [h, g] : truth_group) {
      named += result_group.count(h);
      ok += result_group.count(h) > 0 && result_group[h] == g ? 1 : 0;
    }
    const json acc = Num(Ratio(static_cast<double>(ok), static_cast<double>(truth_group.size())), 6);
    if (out.contains("fabric")) {
      // Beside the probes' figure; not when the dump names other endpoints than the truth's.
      if (named > 0) out["fabric"]["ibnetdiscover_leaf_accuracy"] = acc;
    } else {
      out["fabric"] = {{"hosts", truth_group.size()}, {"source", "ibnetdiscover"}, {"leaf_accuracy", acc}};
    }
  }
  // Tomography: solved per-crossing latency of each identifiable cable against its true latency_us.
  if (tf.contains("links") && result.contains("link_weights")) {
    std::map<std::string, double> want;
    for (const auto& l : tf["links"]) {
      if (l.contains("latency_us") && l["latency_us"].is_number()) want[Str(l, "id")] = l["latency_us"].get<double>();
    }
    std::vector<double> rel;
    int64_t identifiable = 0, not_identifiable = 0, unknown = 0;
    for (const auto& l : result["link_weights"]) {
      auto it = want.find(Str(l, "link"));
      if (it == want.end()) {
        ++unknown;
        continue;
      }
      if (!l.value("identifiable", false) || !l.contains("latency_us") || !l["latency_us"].is_number()) {
        ++not_identifiable;
        continue;
      }
      ++identifiable;
      rel.push_back(std::abs(l["latency_us"].get<double>() - it->second) / std::max(it->second, 1e-9));
    }
    std::sort(rel.begin(), rel.end());
    auto q = [&rel](double f) {
      return rel.empty() ? json(nullptr) : json(Num(rel[static_cast<size_t>(f * static_cast<double>(rel.size() - 1))], 6));
    };
    out["tomography"] = {{"truth_links", want.size()}, {"identifiable", identifiable},
                         {"not_identifiable", not_identifiable}, {"links_not_in_truth", unknown},
                         {"median_rel_error", q(0.5)}, {"p90_rel_error", q(0.9)}, {"max_rel_error", q(1.0)}};
  }
  return out;
}

// GPU-pair NVLink traffic of NVSwitch hosts against truth["traffic_matrix"].
json ScoreTrafficMatrixJson(const json& truth, const json& result) {
  json out;
  if (!truth.contains("traffic_matrix") || !truth["traffic_matrix"].contains("hosts")) return out;
  std::vector<TruePairTraffic> want;
  for (const auto& h : truth["traffic_matrix"]["hosts"]) {
    if (Str(h, "fabric") != "nvswitch" || !h.contains("pairs")) continue;
    for (const auto& p : h["pairs"]) {
      want.push_back({Str(h, "host"), p.value("src", -1), p.value("dst", -1), p.value("bytes_per_s", 0.0)});
    }
  }
  analysis::TrafficMatrixReport got;
  if (result.contains("traffic_matrix") && result["traffic_matrix"].contains("hosts")) {
    got.present = true;
    for (const auto& h : result["traffic_matrix"]["hosts"]) {
      analysis::HostTrafficMatrix m;
      m.host = Str(h, "host");
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
  }
  const TrafficMatrixScore sc = ScoreTrafficMatrix(got, want, 0.01);
  auto num = [](double v) { return std::isfinite(v) ? json(Num(v, 6)) : json(nullptr); };
  out["traffic_matrix"] = {{"pairs_scored", sc.pairs_scored}, {"pairs_missing", sc.pairs_missing},
                           {"median_rel_error", num(sc.median_rel_error)}, {"p90_rel_error", num(sc.p90_rel_error)},
                           {"coverage", num(sc.coverage)},
                           {"max_abs_error_below_floor_bytes_per_s", Num(sc.max_abs_error_below_floor, 0)},
                           {"floor", "pairs at or above 1 % of their host's largest true pair"}};
  return out;
}

Result<json> Score(const json& truth, const json& result) {
  if (!HasSchema(truth, "toposcope.truth/")) return MakeError("truth document has no toposcope.truth schema");
  if (!HasSchema(result, "toposcope.result/")) return MakeError("result document has no toposcope.result schema");
  json out;
  out["schema"] = "toposcope.score/1";

  // Islands: ARI over the truth's GPUs; a GPU the result lacks gets a label of its own.
  std::map<std::string, std::string> result_island;
  if (result.contains("gpus")) {
    for (const auto& g : result["gpus"]) result_island[Str(g, "id")] = Str(g, "island");
  }
  std::map<std::string, int> tl, rl;
  std::vector<int> a, b;
  int missing_gpus = 0;
  if (truth.contains("gpus")) {
    for (const auto& g : truth["gpus"]) {
      const std::string id = Str(g, "id");
      a.push_back(tl.emplace(Str(g, "island"), static_cast<int>(tl.size())).first->second);
      auto it = result_island.find(id);
      std::string key = it != result_island.end() ? it->second : "<missing>/" + id;
      if (it == result_island.end()) ++missing_gpus;
      b.push_back(rl.emplace(key, static_cast<int>(rl.size())).first->second);
    }
  }
  out["islands"] = {{"ari", Num(a.empty() ? 1.0 : stats::AdjustedRandIndex(a, b), 6)},
                    {"gpus", a.size()},
                    {"gpus_missing", missing_gpus},
                    {"truth_islands", tl.size()},
                    {"result_islands", rl.size()}};

  // Links: type accuracy and degraded precision/recall over the truth's links.
  std::map<std::pair<std::string, std::string>, const json*> rlinks;
  if (result.contains("links")) {
    for (const auto& l : result["links"]) rlinks[{Str(l, "a"), Str(l, "b")}] = &l;
  }
  int64_t n = 0, type_ok = 0, lanes_n = 0, lanes_ok = 0, found = 0, tp = 0, fp = 0, fn = 0;
  int64_t class_n = 0, class_ok = 0;
  std::set<std::pair<std::string, std::string>> truth_pairs;
  if (truth.contains("links")) {
    for (const auto& t : truth["links"]) {
      ++n;
      const auto key = std::make_pair(Str(t, "a"), Str(t, "b"));
      truth_pairs.insert(key);
      const bool t_deg = t.value("degraded", false);
      auto it = rlinks.find(key);
      if (it == rlinks.end()) {
        if (t_deg) ++fn;
        continue;
      }
      ++found;
      const json& r = *it->second;
      if (Str(r, "type") == Str(t, "type")) ++type_ok;
      if (!Str(r, "bandwidth_class").empty()) {
        ++class_n;
        if (Str(r, "bandwidth_class") == ClassOfType(Str(t, "type"))) ++class_ok;
      }
      if (t.value("lanes", 0) > 0) {
        ++lanes_n;
        if (r.value("lanes", 0) == t.value("lanes", 0)) ++lanes_ok;
      }
      const bool r_deg = r.value("degraded", false);
      if (t_deg && r_deg) ++tp;
      if (!t_deg && r_deg) ++fp;
      if (t_deg && !r_deg) ++fn;
    }
  }
  int64_t extra = 0;
  for (const auto& [key, l] : rlinks) {
    if (truth_pairs.count(key) == 0U) {
      ++extra;
      if (l->value("degraded", false)) ++fp;
    }
  }
  out["links"] = {{"truth_links", n},
                  {"found", found},
                  {"extra", extra},
                  {"type_accuracy", Num(Ratio(static_cast<double>(type_ok), static_cast<double>(n)), 6)},
                  {"bandwidth_class_accuracy",
                   Num(Ratio(static_cast<double>(class_ok), static_cast<double>(class_n)), 6)},
                  {"bandwidth_class_links", class_n},
                  {"lanes_accuracy", Num(Ratio(static_cast<double>(lanes_ok), static_cast<double>(lanes_n)), 6)},
                  {"degraded",
                   {{"precision", Num(Ratio(static_cast<double>(tp), static_cast<double>(tp + fp)), 6)},
                    {"recall", Num(Ratio(static_cast<double>(tp), static_cast<double>(tp + fn)), 6)},
                    {"true_positives", tp},
                    {"false_positives", fp},
                    {"false_negatives", fn}}}};
  const json clocks = ScoreClocks(truth, result);
  if (!clocks.empty()) out["clocks"] = clocks;
  const json detections = ScoreDetections(truth, result);
  if (!detections.empty()) out["detection"] = detections;
  const json rdma = ScoreRdma(truth, result);
  for (const char* key : {"flows", "rings", "entropy"}) {
    if (rdma.contains(key)) out[key] = rdma[key];
  }
  if (truth.contains("arch") && truth["arch"].is_string()) {
    const std::string want = truth["arch"].get<std::string>();
    const std::string got = result.contains("architecture") ? Str(result["architecture"], "class") : "";
    if (want == "fat-tree" || want == "dragonfly" || want == "hhre") {
      out["architecture"] = {{"truth", want}, {"result", got}, {"correct", want == got ? 1 : 0}};
    } else {  // an imported real fabric: its architecture is not known to the truth
      out["architecture"] = {{"truth", want}, {"result", got}, {"scored", false}};
    }
  }
  const json tm = ScoreTrafficMatrixJson(truth, result);
  if (tm.contains("traffic_matrix")) out["traffic_matrix"] = tm["traffic_matrix"];
  const json fabric = ScoreFabric(truth, result);
  for (const char* key : {"patterns", "paths", "fabric", "tomography", "architecture", "traffic_matrix"}) {
    if (fabric.contains(key)) out[key] = fabric[key];
  }
  return out;
}

Result<json> ScoreFiles(const std::string& truth_path, const std::string& result_path) {
  auto t = LoadJson(truth_path);
  if (!t.ok()) return t.error();
  auto r = LoadJson(result_path);
  if (!r.ok()) return r.error();
  auto s = Score(*t, *r);
  if (!s.ok()) {
    Error e = s.error();
    e.hint = "truth: " + truth_path + ", result: " + result_path;
    return e;
  }
  return s;
}

}  // namespace toposcope::report
