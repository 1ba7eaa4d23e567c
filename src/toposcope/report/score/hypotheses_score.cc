// report/score/hypotheses_score: the fault hypothesis tree (result.json "hypotheses") against the
// faults the simulator injected: for every injected root cause, is it the top hypothesis (top-1) or
// among the top three (top-3) of some symptom, with the right kind on the right entity; and the
// highest fault probability, which on a clean cluster must stay at or below 0.5.
//
// Root causes (truth.json): "faults" (node: the cause's entities are its GPUs), "telemetry_faults"
// (its GPU, or its host for a clock step), "fabric"."faults" (the switch, cable or host it names;
// a detour: the switches its routes detour through, truth "fabric"."redundant_hops"), and "rdma"
// "links" whose mode is not "steady" (the host pair; an end the analysis could name only by its
// address, which no input maps to a host, is matched through the truth's "rdma" "addresses").
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "toposcope/report/result_json.h"
#include "toposcope/report/score/score_sections.h"

namespace toposcope::report::score_internal {

using nlohmann::json;

namespace {

struct RootCause {
  std::string kind;
  std::set<std::string> entities;  // any of them is the right entity
};

void AddFabricCauses(const json& tf, std::vector<RootCause>& out) {
  if (!tf.contains("faults") || !tf["faults"].is_array()) return;
  std::set<std::string> detour_via;
  if (tf.contains("redundant_hops") && tf["redundant_hops"].is_array()) {
    for (const auto& r : tf["redundant_hops"]) detour_via.insert(StrField(r, "node"));
  }
  for (const auto& f : tf["faults"]) {
    RootCause c{StrField(f, "kind"), {}};
    const std::string element = StrField(f, "element");
    if (c.kind == "detour") {
      c.entities = detour_via;
    } else {
      c.entities.insert(UndirectedId(element));
    }
    out.push_back(std::move(c));
  }
}

std::vector<RootCause> RootCauses(const json& truth) {
  std::vector<RootCause> out;
  if (truth.contains("faults") && truth["faults"].is_array()) {
    for (const auto& f : truth["faults"]) {
      RootCause c{StrField(f, "kind"), {}};
      if (f.contains("gpus") && f["gpus"].is_array()) {
        for (const auto& g : f["gpus"]) {
          if (g.is_string()) c.entities.insert(g.get<std::string>());
        }
      }
      out.push_back(std::move(c));
    }
  }
  if (truth.contains("telemetry_faults") && truth["telemetry_faults"].is_array()) {
    for (const auto& f : truth["telemetry_faults"]) {
      RootCause c{StrField(f, "kind"), {}};
      const std::string gpu = StrField(f, "gpu");
      c.entities.insert(c.kind == "clock_step" || gpu.empty() ? StrField(f, "host") : gpu);
      out.push_back(std::move(c));
    }
  }
  if (truth.contains("fabric") && truth["fabric"].is_object()) AddFabricCauses(truth["fabric"], out);
  if (truth.contains("rdma") && truth["rdma"].is_object() && truth["rdma"].contains("links") &&
      truth["rdma"]["links"].is_array()) {
    for (const auto& l : truth["rdma"]["links"]) {
      const std::string mode = StrField(l, "mode");
      if (mode.empty() || mode == "steady") continue;
      const std::string id = UndirectedId(StrField(l, "link"));
      out.push_back({mode, {id}});
    }
  }
  return out;
}

// The truth's address -> host table: a host pair the analysis could name only by an address (the
// data maps that address to no host) is the same pair.
std::map<std::string, std::string> AddressHosts(const json& truth) {
  std::map<std::string, std::string> host;
  if (!truth.contains("rdma") || !truth["rdma"].is_object() || !truth["rdma"].contains("addresses") ||
      !truth["rdma"]["addresses"].is_array()) {
    return host;
  }
  for (const auto& a : truth["rdma"]["addresses"]) host[StrField(a, "ip")] = StrField(a, "host");
  return host;
}

// A hypothesis' entity as the truth names it: the ends of a host pair "A~B" given by address mapped
// to their hosts, undirected.
std::string TruthEntity(const std::string& entity, const std::map<std::string, std::string>& hosts) {
  const size_t at = entity.find('~');
  if (at == std::string::npos || hosts.empty()) return UndirectedId(entity);
  auto name = [&hosts](const std::string& end) {
    auto it = hosts.find(end);
    return it == hosts.end() || it->second.empty() ? end : it->second;
  };
  return UndirectedId(name(entity.substr(0, at)) + "~" + name(entity.substr(at + 1)));
}

// The best rank (1-based) any symptom gives a hypothesis of `c`'s kind on one of its entities; 0
// when none does.
int BestRank(const json& symptoms, const RootCause& c, const std::map<std::string, std::string>& hosts) {
  int best = 0;
  for (const auto& s : symptoms) {
    if (!s.contains("hypotheses") || !s["hypotheses"].is_array()) continue;
    int rank = 0;
    for (const auto& h : s["hypotheses"]) {
      ++rank;
      if (StrField(h, "kind") != c.kind) continue;
      if (c.entities.count(TruthEntity(StrField(h, "entity"), hosts)) == 0U) continue;
      if (best == 0 || rank < best) best = rank;
    }
  }
  return best;
}

}  // namespace

void ScoreHypotheses(const json& truth, const json& result, json& out) {
  if (!result.contains("hypotheses") || !result["hypotheses"].is_object()) return;
  const json& hy = result["hypotheses"];
  const json symptoms = hy.contains("symptoms") && hy["symptoms"].is_array() ? hy["symptoms"] : json::array();
  double max_fault = 0;
  for (const auto& s : symptoms) {
    for (const auto& h : s.value("hypotheses", json::array())) {
      if (StrField(h, "kind") != "noise" && h.contains("probability") && h["probability"].is_number()) {
        max_fault = std::max(max_fault, h["probability"].get<double>());
      }
    }
  }
  const std::vector<RootCause> causes = RootCauses(truth);
  const std::map<std::string, std::string> hosts = AddressHosts(truth);
  int64_t top1 = 0, top3 = 0;
  std::map<std::string, std::map<std::string, int64_t>> by_kind;
  json not_found = json::array();
  for (const RootCause& c : causes) {
    const int rank = BestRank(symptoms, c, hosts);
    if (rank == 0) not_found.push_back({{"kind", c.kind}, {"entity", c.entities.empty() ? "" : *c.entities.begin()}});
    auto& k = by_kind[c.kind];
    ++k["causes"];
    if (rank == 1) ++top1, ++k["top1"];
    if (rank >= 1 && rank <= 3) ++top3, ++k["top3"];
    if (rank > 1) ++k["lower_rank"];
  }
  json kinds = json::object();
  for (const auto& [kind, k] : by_kind) {
    const double n = static_cast<double>(k.at("causes"));
    kinds[kind] = {{"causes", k.at("causes")},
                   {"top1_accuracy", Num(Ratio(static_cast<double>(k.count("top1") ? k.at("top1") : 0), n), 6)},
                   {"top3_accuracy", Num(Ratio(static_cast<double>(k.count("top3") ? k.at("top3") : 0), n), 6)},
                   {"found_lower", k.count("lower_rank") ? k.at("lower_rank") : 0}};
  }
  const double n = static_cast<double>(causes.size());
  out["hypotheses"] = {{"root_causes", causes.size()},
                       {"top1_accuracy", Num(Ratio(static_cast<double>(top1), n), 6)},
                       {"top3_accuracy", Num(Ratio(static_cast<double>(top3), n), 6)},
                       {"clean_max_probability", Num(causes.empty() ? max_fault : NAN, 6)},
                       {"max_fault_probability", Num(max_fault, 6)},
                       {"symptoms", symptoms.size()},
                       {"by_kind", kinds},
                       {"not_found", not_found}};
}

}  // namespace toposcope::report::score_internal
