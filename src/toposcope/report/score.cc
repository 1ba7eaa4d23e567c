#include "toposcope/report/score.h"

#include <cstdio>
#include <exception>
#include <filesystem>

#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/report/result_json.h"
#include "toposcope/report/score/input_shape.h"
#include "toposcope/report/score/ring_plan_score.h"
#include "toposcope/report/score/schedule_score.h"
#include "toposcope/report/score/score_sections.h"

namespace toposcope::report {

using nlohmann::json;
using namespace score_internal;  // NOLINT(google-build-using-namespace): the sections of this score

namespace {

// Line and column (1-based) of byte offset `byte` of `text`.
std::pair<int64_t, int64_t> LineColOf(const std::string& text, size_t byte) {
  int64_t line = 1, col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// Reads and parses a JSON file (gz/zst accepted); a parse error names where it stopped.
Result<json> LoadJson(const std::string& path) {
  auto text = ReadFileText(path);
  if (!text.ok()) return text.error();
  try {
    return json::parse(*text);
  } catch (const json::parse_error& e) {
    const auto [line, col] = LineColOf(*text, e.byte > 0 ? e.byte - 1 : 0);
    const std::string what = e.what();  // "[json.exception.parse_error.N] parse error at ...: detail"
    const size_t colon = what.find(": ");
    const std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    return MakeError(path, line, col, "not valid JSON: " + detail,
                     e.byte >= text->size() ? "the text ends early: truncated?" : "");
  }
}

bool HasSchema(const json& j, const std::string& prefix) {
  return j.is_object() && j.contains("schema") && j["schema"].is_string() &&
         j["schema"].get<std::string>().rfind(prefix, 0) == 0;
}

// What a document's "schema" says, for a message: its value, or that it has none.
std::string SchemaOf(const json& j) {
  if (!j.is_object()) return std::string("it is ") + j.type_name() + ", not an object";
  if (!j.contains("schema") || !j["schema"].is_string()) return "it has no \"schema\"";
  return "its schema is " + j["schema"].get<std::string>();
}

// Every section of the score, in order; `section` names the one being scored (for an error).
json ScoreSections(const json& truth, const json& result, const char*& section) {
  json out;
  out["schema"] = "toposcope.score/1";
  section = "islands";
  out["islands"] = ScoreIslands(truth, result);
  section = "links";
  out["links"] = ScoreLinks(truth, result);
  section = "clocks";
  const json clocks = ScoreClocks(truth, result);
  if (!clocks.empty()) out["clocks"] = clocks;
  section = "detection";
  const json detections = ScoreDetections(truth, result);
  if (!detections.empty()) out["detection"] = detections;
  section = "rdma";
  ScoreRdma(truth, result, out);
  section = "architecture";
  ScoreArchitecture(truth, result, out);
  section = "traffic_matrix";
  ScoreTrafficMatrixJson(truth, result, out);
  section = "fabric";
  ScoreFabric(truth, result, out);
  section = "schedule";
  ScoreSchedule(truth, result, out);
  section = "hypotheses";
  ScoreHypotheses(truth, result, out);
  return out;
}

// Score with the documents named `truth_name` and `result_name` in errors.
Result<json> ScoreNamed(const json& truth, const json& result, const std::string& truth_name,
                        const std::string& result_name) {
  if (!HasSchema(truth, "toposcope.truth/")) {
    return MakeError(truth_name, 0, 0, "not a toposcope ground truth (toposcope.truth/1): " + SchemaOf(truth));
  }
  if (!HasSchema(result, "toposcope.result/")) {
    return MakeError(result_name, 0, 0, "not a toposcope result (toposcope.result/1): " + SchemaOf(result));
  }
  if (Status st = CheckTruthShape(truth, truth_name); !st.ok()) return st.error();
  if (Status st = CheckResultShape(result, result_name); !st.ok()) return st.error();
  const char* section = "";
  try {
    return ScoreSections(truth, result, section);
  } catch (const std::exception& e) {  // a value of a type the shape check does not cover
    return MakeError(std::string("cannot score '") + section + "': " + truth_name + " or " + result_name +
                         " holds a value of an unexpected type",
                     e.what());
  }
}

}  // namespace

namespace score_internal {

std::string StrField(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

std::string UndirectedId(const std::string& id) {
  for (const std::string sep : {"--", "~"}) {
    const size_t at = id.find(sep);
    if (at == std::string::npos) continue;
    const std::string a = id.substr(0, at);
    const std::string b = id.substr(at + sep.size());
    return a <= b ? id : b + sep + a;
  }
  return id;
}

double Ratio(double num, double den) { return den > 0 ? num / den : 1.0; }

json DetectionJson(int64_t tp, int64_t fp, int64_t fn) {
  return {{"precision", Num(Ratio(static_cast<double>(tp), static_cast<double>(tp + fp)), 6)},
          {"recall", Num(Ratio(static_cast<double>(tp), static_cast<double>(tp + fn)), 6)},
          {"true_positives", tp},
          {"false_positives", fp},
          {"false_negatives", fn}};
}

}  // namespace score_internal

Result<json> Score(const json& truth, const json& result) {
  return ScoreNamed(truth, result, "truth.json", "result.json");
}

Result<json> ScoreFiles(const std::string& truth_path, const std::string& result_path) {
  auto t = LoadJson(truth_path);
  if (!t.ok()) return t.error();
  auto r = LoadJson(result_path);
  if (!r.ok()) return r.error();
  auto s = ScoreNamed(*t, *r, truth_path, result_path);
  // A ring plan (`toposcope plan-ring --out` into the same directory) is scored beside the result.
  const std::filesystem::path plan_path = std::filesystem::path(result_path).parent_path() / "ring_plan.json";
  if (s.ok() && std::filesystem::exists(plan_path)) {
    auto plan = LoadJson(plan_path.string());
    if (!plan.ok()) return plan.error();
    json section = ScoreRingPlan(*t, *plan);
    if (!section.empty()) (*s)["ring_plan"] = std::move(section);
  }
  if (!s.ok() && s.error().path.empty()) {
    Error e = s.error();
    if (e.hint.empty()) e.hint = "truth: " + truth_path + ", result: " + result_path;
    return e;
  }
  return s;
}

std::string ScoreHeadlineText(const json& score, size_t per_line) {
  std::string out;
  if (!score.is_object()) return out;
  for (const auto& [section, body] : score.items()) {
    if (!body.is_object()) continue;
    std::string line;
    size_t shown = 0, more = 0;
    for (const auto& [key, v] : body.items()) {
      std::string value;
      if (v.is_boolean()) {
        value = v.get<bool>() ? "yes" : "no";
      } else if (v.is_number_integer() || v.is_number_unsigned()) {
        value = v.dump();
      } else if (v.is_number_float()) {
        value = FormatFixed(v.get<double>(), 3);
      } else {
        continue;  // nested sections and text stay in score.json
      }
      if (shown == per_line) {
        ++more;
        continue;
      }
      line += (shown == 0 ? "" : ", ") + key + " " + value;
      ++shown;
    }
    if (shown == 0) continue;
    if (more > 0) line += ", ... (" + std::to_string(more) + " more)";
    char head[40];
    std::snprintf(head, sizeof head, "  %-22s ", section.c_str());
    out += head + line + "\n";
  }
  return out;
}

}  // namespace toposcope::report
