// report/score/node_score: islands (ARI over the truth's GPUs) and links (type, bandwidth class,
// lanes, degraded) against the truth.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/report/result_json.h"
#include "toposcope/report/score/score_sections.h"
#include "toposcope/stats/ari.h"

namespace toposcope::report::score_internal {

using nlohmann::json;

namespace {

// The seed's three bandwidth classes of a link type.
std::string ClassOfType(const std::string& type) {
  if (type == "NVLINK" || type == "NVSWITCH" || type == "C2C") return "nvlink";
  if (type == "PIX" || type == "PXB") return "pcie_switch";
  if (type == "PHB" || type == "NODE" || type == "SYS") return "pcie_cpu";
  return "";
}

}  // namespace

// Islands: ARI over the truth's GPUs; a GPU the result lacks gets a label of its own.
json ScoreIslands(const json& truth, const json& result) {
  std::map<std::string, std::string> result_island;
  if (result.contains("gpus")) {
    for (const auto& g : result["gpus"]) result_island[StrField(g, "id")] = StrField(g, "island");
  }
  std::map<std::string, int> tl, rl;
  std::vector<int> a, b;
  int missing_gpus = 0;
  if (truth.contains("gpus")) {
    for (const auto& g : truth["gpus"]) {
      const std::string id = StrField(g, "id");
      a.push_back(tl.emplace(StrField(g, "island"), static_cast<int>(tl.size())).first->second);
      auto it = result_island.find(id);
      std::string key = it != result_island.end() ? it->second : "<missing>/" + id;
      if (it == result_island.end()) ++missing_gpus;
      b.push_back(rl.emplace(key, static_cast<int>(rl.size())).first->second);
    }
  }
  return {{"ari", Num(a.empty() ? 1.0 : stats::AdjustedRandIndex(a, b), 6)},
          {"gpus", a.size()},
          {"gpus_missing", missing_gpus},
          {"truth_islands", tl.size()},
          {"result_islands", rl.size()}};
}

// Links: type accuracy and degraded precision/recall over the truth's links.
json ScoreLinks(const json& truth, const json& result) {
  std::map<std::pair<std::string, std::string>, const json*> rlinks;
  if (result.contains("links")) {
    for (const auto& l : result["links"]) rlinks[{StrField(l, "a"), StrField(l, "b")}] = &l;
  }
  int64_t n = 0, type_ok = 0, lanes_n = 0, lanes_ok = 0, found = 0, tp = 0, fp = 0, fn = 0;
  int64_t class_n = 0, class_ok = 0;
  std::set<std::pair<std::string, std::string>> truth_pairs;
  if (truth.contains("links")) {
    for (const auto& t : truth["links"]) {
      ++n;
      const auto key = std::make_pair(StrField(t, "a"), StrField(t, "b"));
      truth_pairs.insert(key);
      const bool t_deg = t.value("degraded", false);
      auto it = rlinks.find(key);
      if (it == rlinks.end()) {
        if (t_deg) ++fn;
        continue;
      }
      ++found;
      const json& r = *it->second;
      if (StrField(r, "type") == StrField(t, "type")) ++type_ok;
      if (!StrField(r, "bandwidth_class").empty()) {
        ++class_n;
        const std::string want = ClassOfType(StrField(t, "type"));
        const std::string got = StrField(r, "bandwidth_class");
        // "pcie": PCIe whose path bandwidth cannot tell, right for either PCIe class.
        if (got == want || (got == "pcie" && (want == "pcie_switch" || want == "pcie_cpu"))) ++class_ok;
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
  return {{"truth_links", n},
          {"found", found},
          {"extra", extra},
          {"type_accuracy", Num(Ratio(static_cast<double>(type_ok), static_cast<double>(n)), 6)},
          {"bandwidth_class_accuracy", Num(Ratio(static_cast<double>(class_ok), static_cast<double>(class_n)), 6)},
          {"bandwidth_class_links", class_n},
          {"lanes_accuracy", Num(Ratio(static_cast<double>(lanes_ok), static_cast<double>(lanes_n)), 6)},
          {"degraded", DetectionJson(tp, fp, fn)}};
}

}  // namespace toposcope::report::score_internal
