// report/score/fabric_score: QP patterns, path findings, leaf and pod membership, tomography and
// the architecture against the truth.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "toposcope/report/result_json.h"
#include "toposcope/report/score/grouping.h"
#include "toposcope/report/score/score_sections.h"

namespace toposcope::report::score_internal {

using nlohmann::json;

namespace {

using Groups = std::vector<std::vector<std::string>>;

// The host lists of an array of leaves or pods.
Groups GroupsOf(const json& arr) {
  Groups g;
  for (const auto& l : arr) g.push_back(l.value("hosts", std::vector<std::string>{}));
  return g;
}

// Patterns: each host's class against its job's kind.
json ScorePatterns(const json& tf, const json& result) {
  std::map<std::string, std::string> got;
  for (const auto& p : result["patterns"]) {
    const std::string scope = StrField(p, "scope");
    if (scope.rfind("host:", 0) == 0) got[scope.substr(5)] = StrField(p, "class");
  }
  std::map<std::string, std::string> want;
  for (const auto& c : tf["cas"]) {
    if (!StrField(c, "host").empty() && !StrField(c, "qp_pattern").empty()) {
      want[StrField(c, "host")] = StrField(c, "qp_pattern");
    }
  }
  int64_t ok = 0;
  for (const auto& [h, k] : want) ok += got.count(h) > 0 && got[h] == k ? 1 : 0;
  return {{"hosts", want.size()}, {"correct", ok},
          {"accuracy", Num(Ratio(static_cast<double>(ok), static_cast<double>(want.size())), 6)}};
}

// Path findings of one kind: precision and recall by node.
json ScorePathFindings(const json& tf, const json& result, const char* truth_key, const char* result_key) {
  std::set<std::string> want, got;
  if (tf.contains(truth_key)) {
    for (const auto& b : tf[truth_key]) want.insert(StrField(b, "node"));
  }
  if (result.contains("paths") && result["paths"].contains(result_key)) {
    for (const auto& b : result["paths"][result_key]) got.insert(StrField(b, "node"));
  }
  int64_t tp = 0;
  for (const auto& n : got) tp += want.count(n);
  const auto fp = static_cast<int64_t>(got.size()) - tp;
  const auto fn = static_cast<int64_t>(want.size()) - tp;
  return DetectionJson(tp, fp, fn);
}

// Leaf and pod accuracy of the leaves inferred from probe RTTs alone (result fabric.inferred).
json ScoreInferredLeaves(const json& tf, const json& result) {
  const json& inf = result["fabric"]["inferred"];
  const Groups truth_leaves = GroupsOf(tf["leaves"]);
  std::vector<std::string> hosts;
  for (const auto& g : truth_leaves) hosts.insert(hosts.end(), g.begin(), g.end());
  std::sort(hosts.begin(), hosts.end());
  json f = {{"hosts", hosts.size()}, {"source", "probes"},
            {"leaf_accuracy", Num(GroupingAccuracy(GroupsOf(inf.value("leaves", json::array())), truth_leaves, hosts), 6)}};
  // Pods: the truth's pods (fat-tree: one; dragonfly: its groups; HHRE: its rings), as hosts.
  std::map<std::string, std::vector<std::string>> leaf_hosts;
  for (const auto& l : tf["leaves"]) leaf_hosts[StrField(l, "switch")] = l.value("hosts", std::vector<std::string>{});
  Groups truth_pods;
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
    f["pod_accuracy"] = Num(GroupingAccuracy(GroupsOf(inf.value("pods", json::array())), truth_pods, hosts), 6);
  }
  return f;
}

// Leaf membership of the discovered fabric's leaves: hosts whose leaf (by the set of hosts sharing
// it) matches the truth. Beside the probes' figure in `out`["fabric"] when that exists.
void ScoreDiscoveredLeaves(const json& tf, const json& result, json& out) {
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
json ScoreTomography(const json& tf, const json& result) {
  std::map<std::string, double> want;
  for (const auto& l : tf["links"]) {
    if (l.contains("latency_us") && l["latency_us"].is_number()) want[UndirectedId(StrField(l, "id"))] = l["latency_us"].get<double>();
  }
  std::vector<double> rel;
  int64_t identifiable = 0, not_identifiable = 0, unknown = 0;
  for (const auto& l : result["link_weights"]) {
    auto it = want.find(UndirectedId(StrField(l, "link")));
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
  return {{"truth_links", want.size()}, {"identifiable", identifiable},
          {"not_identifiable", not_identifiable}, {"links_not_in_truth", unknown},
          {"median_rel_error", q(0.5)}, {"p90_rel_error", q(0.9)}, {"max_rel_error", q(1.0)}};
}

}  // namespace

// Patterns, path findings, leaf membership and tomography against truth["fabric"].
void ScoreFabric(const json& truth, const json& result, json& out) {
  if (!truth.contains("fabric") || !truth["fabric"].is_object()) return;
  const json& tf = truth["fabric"];
  if (tf.contains("cas") && result.contains("patterns")) out["patterns"] = ScorePatterns(tf, result);
  if (result.contains("paths")) {
    out["paths"] = {{"bottleneck", ScorePathFindings(tf, result, "bottlenecks", "bottlenecks")},
                    {"redundant_hop", ScorePathFindings(tf, result, "redundant_hops", "redundant_hops")}};
  }
  // From probe RTTs alone (fabric.inferred) when present; from the discovered fabric's leaves beside it.
  if (tf.contains("leaves") && result.contains("fabric") && result["fabric"].contains("inferred")) {
    out["fabric"] = ScoreInferredLeaves(tf, result);
  }
  if (tf.contains("leaves") && result.contains("fabric") && result["fabric"].contains("leaves") &&
      StrField(result["fabric"], "source") != "probes") {
    ScoreDiscoveredLeaves(tf, result, out);
  }
  if (tf.contains("links") && result.contains("link_weights")) out["tomography"] = ScoreTomography(tf, result);
}

// The architecture class against the truth's; an imported real fabric is not scored.
void ScoreArchitecture(const json& truth, const json& result, json& out) {
  if (!truth.contains("arch") || !truth["arch"].is_string()) return;
  const std::string want = truth["arch"].get<std::string>();
  const std::string got = result.contains("architecture") ? StrField(result["architecture"], "class") : "";
  if (want == "fat-tree" || want == "dragonfly" || want == "hhre") {
    out["architecture"] = {{"truth", want}, {"result", got}, {"correct", want == got ? 1 : 0}};
  } else {  // an imported real fabric: its architecture is not known to the truth
    out["architecture"] = {{"truth", want}, {"result", got}, {"scored", false}};
  }
}

}  // namespace toposcope::report::score_internal
