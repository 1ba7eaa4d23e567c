// formats/dcgm/prometheus_query: see prometheus_query.h.
#include "toposcope/formats/dcgm/prometheus_query.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "toposcope/base/text.h"
#include "toposcope/base/time.h"

namespace toposcope::formats {
namespace {

using json = nlohmann::json;

// Times the API can carry that fit ns since the epoch in int64 (years 1678..2262).
constexpr double kMaxAbsUnixS = 9.2e9;

// A sample value as Prometheus writes it: a decimal or exponent number, "NaN", "+Inf", "-Inf".
std::optional<double> ParseApiValue(std::string_view s, bool* non_finite) {
  *non_finite = s == "NaN" || s == "+Inf" || s == "-Inf" || s == "Inf";
  if (*non_finite) return NAN;
  return ParseDouble(s);
}

// "<name>{k=\"v\",...}" of a series, for messages (labels cut at 120 characters).
std::string SeriesName(const json& metric) {
  if (!metric.is_object()) return "(no metric object)";
  std::string name;
  std::string labels;
  for (const auto& [k, v] : metric.items()) {
    const std::string value = v.is_string() ? v.get<std::string>() : v.dump();
    if (k == "__name__") {
      name = value;
    } else {
      labels += (labels.empty() ? "" : ",") + k + "=\"" + value + "\"";
    }
  }
  if (labels.size() > 120) labels = labels.substr(0, 117) + "...";
  return name + "{" + labels + "}";
}

// The labels of a series' metric object: nullopt when it is not an object of strings.
std::optional<PromLabels> LabelsOf(const json& metric, std::string* name) {
  if (!metric.is_object()) return std::nullopt;
  PromLabels labels;
  for (const auto& [k, v] : metric.items()) {
    if (!v.is_string()) return std::nullopt;
    if (k == "__name__") {
      *name = v.get<std::string>();
    } else {
      labels.emplace_back(k, v.get<std::string>());
    }
  }
  return labels;
}

// The answer's data object, or why there is none.
Result<const json*> DataOf(const json& root, std::string_view source) {
  const std::string src(source);
  if (!root.is_object() || !root.contains("status") || !root["status"].is_string()) {
    return MakeError(src, 0, 0, "not an answer of the Prometheus query API (no \"status\")",
                     "is the URL a Prometheus server (e.g. http://HOST:9090)?");
  }
  const std::string status = root["status"].get<std::string>();
  if (status != "success") {
    const auto text = [&](const char* key) {
      return root.contains(key) && root[key].is_string() ? root[key].get<std::string>() : std::string("?");
    };
    return MakeError(src, 0, 0, "Prometheus answered " + status + " (" + text("errorType") + "): " + text("error"));
  }
  if (!root.contains("data") || !root["data"].is_object()) {
    return MakeError(src, 0, 0, "the answer has no \"data\" object");
  }
  return &root["data"];
}

// One series: each value pair (and native histogram point) is a record.
void ReadSeries(const json& entry, int64_t series_index, std::string_view source, const PromSampleSink& sink,
                Diagnostics& diag, ReadCounts& counts, PromQueryInfo* info) {
  const json* metric = entry.is_object() && entry.contains("metric") ? &entry["metric"] : nullptr;
  const std::string where = "series " + std::to_string(series_index) + " " + (metric ? SeriesName(*metric) : "");
  PromSample s;
  std::optional<PromLabels> labels = metric ? LabelsOf(*metric, &s.name) : std::nullopt;
  const json empty = json::array();
  const json* values = &empty;
  bool single = false;  // an instant vector: one "value" pair
  if (entry.is_object() && entry.contains("values")) {
    values = &entry["values"];
  } else if (entry.is_object() && entry.contains("value")) {
    values = &entry["value"];
    single = true;
  }
  int64_t n = single ? 1 : (values->is_array() ? static_cast<int64_t>(values->size()) : 1);
  if (!labels && n == 0) n = 1;  // an entry that is not a series at all is one bad record
  if (!labels || (!single && !values->is_array())) {
    counts.read += n;
    counts.rejected += n;
    const std::string why = !labels ? "its \"metric\" is not an object of string labels" : "its \"values\" is not an array";
    for (int64_t i = 0; i < n; ++i) diag.Reject(source, 0, "", where + ": " + why);
    return;
  }
  s.labels = std::move(*labels);
  for (int64_t i = 0; i < n; ++i) {
    const json& pair = single ? *values : (*values)[static_cast<size_t>(i)];
    ++counts.read;
    const auto reject = [&](const std::string& why) {
      ++counts.rejected;
      diag.Reject(source, 0, pair.dump().substr(0, 80), where + ", value " + std::to_string(i) + ": " + why);
    };
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_string()) {
      reject("not a [time, \"value\"] pair");
      continue;
    }
    const double t = pair[0].get<double>();
    if (!std::isfinite(t) || std::fabs(t) > kMaxAbsUnixS) {
      reject("time out of range");
      continue;
    }
    bool non_finite = false;
    const std::optional<double> v = ParseApiValue(pair[1].get<std::string>(), &non_finite);
    if (!v) {
      reject("the value is not a number");
      continue;
    }
    s.value = *v;
    s.ts_ms = std::llround(t * 1000.0);
    s.scrape_index = i;
    s.line = 0;
    ++counts.accepted;
    ++info->samples;
    if (non_finite) ++info->non_finite;
    sink(s);
  }
  // Native histograms carry no DCGM value: each point is a record, rejected.
  if (entry.contains("histograms") || entry.contains("histogram")) {
    const json& h = entry.contains("histograms") ? entry["histograms"] : entry["histogram"];
    const int64_t m = h.is_array() && entry.contains("histograms") ? static_cast<int64_t>(h.size()) : 1;
    for (int64_t i = 0; i < m; ++i) {
      ++counts.read;
      ++counts.rejected;
      diag.Reject(source, 0, "", where + ": a native histogram point (not a DCGM field value)");
    }
  }
}

}  // namespace

Result<PromQueryInfo> ReadPromQueryResponse(std::string_view json_text, std::string_view source,
                                            const PromSampleSink& sink, Diagnostics& diag, ReadCounts& counts) {
  const std::string src(source);
  const json root = json::parse(json_text, nullptr, false);
  if (root.is_discarded()) {
    const std::string head = std::string(json_text.substr(0, 60));
    return MakeError(src, 0, 0, "the answer is not JSON" + (head.empty() ? std::string(" (empty)") : " (starts \"" + head + "\")"),
                     "is the URL a Prometheus server (e.g. http://HOST:9090)?");
  }
  auto data = DataOf(root, source);
  if (!data.ok()) return data.error();
  const json& d = **data;
  PromQueryInfo info;
  for (const char* key : {"warnings", "infos"}) {
    if (!root.contains(key) || !root[key].is_array()) continue;
    for (const json& w : root[key]) info.warnings.push_back(w.is_string() ? w.get<std::string>() : w.dump());
  }
  if (!d.contains("resultType") || !d["resultType"].is_string() || !d.contains("result")) {
    return MakeError(src, 0, 0, "the answer's data has no \"resultType\" and \"result\"");
  }
  info.result_type = d["resultType"].get<std::string>();
  if (info.result_type != "matrix" && info.result_type != "vector") {
    return MakeError(src, 0, 0, "the query gives a " + info.result_type + ", not series",
                     "query a metric (DCGM_FI_...), not an expression that folds it to one number");
  }
  const json& result = d["result"];
  if (!result.is_array()) return MakeError(src, 0, 0, "the answer's data.result is not an array");
  for (const json& entry : result) {
    ReadSeries(entry, info.series, source, sink, diag, counts, &info);
    ++info.series;
  }
  if (counts.read > 0 && counts.accepted == 0) {
    return MakeError(src, 0, 0, "not one of the answer's " + std::to_string(counts.read) + " values could be read");
  }
  return info;
}

Result<PromQueryAnswer> ParsePromQueryResponse(std::string_view json_text, std::string_view source,
                                               Diagnostics& diag, ReadCounts& counts) {
  PromQueryAnswer out;
  auto r = ReadPromQueryResponse(json_text, source, [&](const PromSample& s) { out.samples.push_back(s); }, diag, counts);
  if (!r.ok()) return r.error();
  out.info = std::move(*r);
  return out;
}

std::optional<int64_t> ParsePromApiTimeNs(std::string_view text) {
  const std::string_view s = Trim(text);
  if (s.empty()) return std::nullopt;
  if (s.find('T') != std::string_view::npos || s.find('-', 1) != std::string_view::npos) return ParseIsoTimeNs(s);
  // Unix seconds: [-]digits[.digits], exact to the ns.
  size_t i = s[0] == '-' ? 1 : 0;
  const bool negative = i == 1;
  int64_t secs = 0;
  size_t digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
    if (secs > 9'000'000'000) return std::nullopt;
    secs = secs * 10 + (s[i] - '0');
  }
  if (digits == 0) return std::nullopt;
  int64_t frac_ns = 0;
  if (i < s.size() && s[i] == '.') {
    int64_t scale = 100'000'000;
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      frac_ns += (s[i] - '0') * scale;
      scale /= 10;
    }
  }
  if (i != s.size() || secs > 9'000'000'000) return std::nullopt;
  const int64_t ns = secs * 1'000'000'000 + frac_ns;
  return negative ? -ns : ns;
}

}  // namespace toposcope::formats
