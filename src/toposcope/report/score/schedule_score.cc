#include "toposcope/report/score/schedule_score.h"

#include <cmath>
#include <cstdint>
#include <set>
#include <string>

#include "toposcope/report/result_json.h"
#include "toposcope/report/score/score_sections.h"

namespace toposcope::report::score_internal {
namespace {

using nlohmann::json;

int64_t IntField(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number_integer() ? j[key].get<int64_t>() : 0;
}

double NumField(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

}  // namespace

void ScoreSchedule(const json& truth, const json& result, json& out) {
  if (!truth.is_object() || !truth.contains("ring_event") || !truth["ring_event"].is_object()) return;
  if (!result.is_object() || !result.contains("schedule") || !result["schedule"].is_object()) return;
  const json& ev = truth["ring_event"];
  const json& sc = result["schedule"];
  const std::string kind = StrField(ev, "kind");
  std::set<std::string> affected;
  if (ev.contains("affected_links") && ev["affected_links"].is_array()) {
    for (const json& l : ev["affected_links"]) {
      if (l.is_string()) affected.insert(l.get<std::string>());
    }
  }
  const int64_t start = IntField(ev, "start_ns"), end = IntField(ev, "end_ns");
  const json none = json::object();
  const json& opt = sc.contains("options") && sc["options"].is_object() ? sc["options"] : none;
  const auto slack_ns = static_cast<int64_t>(std::llround(NumField(opt, "hot_hold_s") * 1e9)) + 2 * IntField(sc, "window_ns");
  int64_t decisions = 0, moves = 0, correct = 0;
  double first_s = NAN;
  std::set<std::string> seen;
  if (sc.contains("decisions") && sc["decisions"].is_array()) {
    for (const json& d : sc["decisions"]) {
      if (!d.is_object()) continue;
      ++decisions;
      const std::string link = StrField(d, "link");
      if (StrField(d, "action") != "move_off" || !seen.insert(link).second) continue;
      ++moves;
      const int64_t t = IntField(d, "t_ns");
      if (kind != "none" && affected.count(link) > 0 && t >= start && t <= end + slack_ns) {
        ++correct;
        if (!std::isfinite(first_s)) first_s = static_cast<double>(t - start) / 1e9;
      }
    }
  }
  json s;
  s["event"] = kind;
  if (kind == "none") {
    s["clean_decisions"] = decisions;
  } else {
    s["precision"] = Num(moves > 0 ? static_cast<double>(correct) / static_cast<double>(moves) : NAN, 6);
    s["recall"] = correct > 0 ? 1.0 : 0.0;
    s["move_offs"] = moves;
    s["correct"] = correct;
    s["time_to_decision_s"] = Num(first_s, 3);
  }
  out["schedule"] = std::move(s);
}

}  // namespace toposcope::report::score_internal
