#include "toposcope/report/score/ring_plan_score.h"

#include <cstdint>
#include <set>
#include <string>

#include "toposcope/report/score/score_sections.h"

namespace toposcope::report::score_internal {
namespace {

using nlohmann::json;

// The truth's fabric fault elements of `kind` (link ids, undirected).
std::set<std::string> FaultLinks(const json& truth, const std::string& kind) {
  std::set<std::string> out;
  if (!truth.is_object() || !truth.contains("fabric") || !truth["fabric"].is_object()) return out;
  const json& f = truth["fabric"];
  if (!f.contains("faults") || !f["faults"].is_array()) return out;
  for (const json& fault : f["faults"]) {
    if (StrField(fault, "kind") == kind) out.insert(UndirectedId(StrField(fault, "element")));
  }
  return out;
}

// Edges of `metrics` (a plan's "before" / "after") with a cable in `links`.
int64_t EdgesOn(const json& metrics, const std::set<std::string>& links) {
  int64_t n = 0;
  if (links.empty() || !metrics.is_object() || !metrics.contains("edges") || !metrics["edges"].is_array()) return 0;
  for (const json& e : metrics["edges"]) {
    if (!e.is_object() || !e.contains("cables") || !e["cables"].is_array()) continue;
    bool on = false;
    for (const json& c : e["cables"]) on = on || (c.is_string() && links.count(UndirectedId(c.get<std::string>())) > 0);
    n += on ? 1 : 0;
  }
  return n;
}

}  // namespace

json ScoreRingPlan(const json& truth, const json& plan) {
  if (!plan.is_object() || StrField(plan, "schema").rfind("toposcope.ring_plan/", 0) != 0) return json::object();
  json out;
  for (const char* key : {"hops_before", "hops_after", "inter_leaf_before", "inter_leaf_after", "allreduce_us_before",
                          "allreduce_us_after"}) {
    if (plan.contains(key) && (plan[key].is_number() || plan[key].is_null())) out[key] = plan[key];
  }
  const json none = json::object();
  const json& before = plan.contains("before") ? plan["before"] : none;
  const json& after = plan.contains("after") ? plan["after"] : none;
  const std::set<std::string> degraded = FaultLinks(truth, "degraded_link");
  const std::set<std::string> flapping = FaultLinks(truth, "flapping_link");
  out["degraded_edges_before"] = EdgesOn(before, degraded);
  out["degraded_edges_after"] = EdgesOn(after, degraded);
  out["flapping_edges_before"] = EdgesOn(before, flapping);
  out["flapping_edges_after"] = EdgesOn(after, flapping);
  return out;
}

}  // namespace toposcope::report::score_internal
