#include "toposcope/report/score.h"

#include <map>
#include <set>

#include "toposcope/base/file_io.h"
#include "toposcope/report/result_json.h"
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
