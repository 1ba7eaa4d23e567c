// formats/trace/event_jsonl: toposcope's JSONL event format (docs/event_jsonl.md). One object per line,
// parsed on its own, so memory is bounded by the longest line.
#include "toposcope/formats/trace/event_jsonl.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>

#include "toposcope/base/text.h"
#include "toposcope/formats/trace/chrome_trace.h"

namespace toposcope::formats {
namespace {

using nlohmann::json;

// Reads an integer member; returns false with `err` set on a bad value; absent leaves *out.
bool IntMember(const json& o, const char* key, int64_t* out, bool* present, std::string* err) {
  auto it = o.find(key);
  *present = it != o.end();
  if (!*present) return true;
  if (it->is_number_unsigned()) {
    const auto u = it->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      *err = std::string(key) + " out of range";
      return false;
    }
    *out = static_cast<int64_t>(u);
    return true;
  }
  if (it->is_number_integer()) {
    *out = it->get<int64_t>();
    return true;
  }
  *err = std::string(key) + " is not an integer";
  return false;
}

bool StrMember(const json& o, const char* key, std::string* out, bool* present, std::string* err) {
  auto it = o.find(key);
  *present = it != o.end();
  if (!*present) return true;
  if (!it->is_string()) {
    *err = std::string(key) + " is not a string";
    return false;
  }
  *out = it->get<std::string>();
  return true;
}

}  // namespace

Status ReadEventJsonl(LineReader& reader, std::string_view source, const TraceEventSink& sink, Diagnostics& diag,
                      ReadCounts& counts) {
  std::string_view line;
  while (reader.Next(&line)) {
    const std::string_view t = Trim(line);
    if (t.empty() || t[0] == '#') continue;
    ++counts.read;
    const int64_t line_no = reader.line_number();
    auto reject = [&](const std::string& reason) {
      ++counts.rejected;
      diag.Reject(source, line_no, t, reason);
    };
    json j = json::parse(t, nullptr, false);
    if (j.is_discarded()) {
      reject("not valid JSON");
      continue;
    }
    if (!j.is_object()) {
      reject("line is not a JSON object");
      continue;
    }
    TraceEvent e;
    std::string err;
    bool has = false;
    if (!IntMember(j, "ts_ns", &e.local_ts_ns, &has, &err)) {
      reject(err);
      continue;
    }
    if (!has) {
      reject("missing ts_ns");
      continue;
    }
    if (e.local_ts_ns == kNoTime) {
      reject("ts_ns out of range");
      continue;
    }
    if (!StrMember(j, "host", &e.host, &has, &err)) {
      reject(err);
      continue;
    }
    if (!has || e.host.empty()) {
      reject("missing host");
      continue;
    }
    if (!StrMember(j, "type", &e.type, &has, &err)) {
      reject(err);
      continue;
    }
    if (!has || e.type.empty()) {
      reject("missing type");
      continue;
    }
    if (!StrMember(j, "device", &e.device, &has, &err) || !StrMember(j, "context", &e.context, &has, &err) ||
        !StrMember(j, "category", &e.category, &has, &err)) {
      reject(err);
      continue;
    }
    int64_t rank = -1;
    if (!IntMember(j, "dur_ns", &e.dur_ns, &has, &err) || !IntMember(j, "rank", &rank, &has, &err) ||
        !IntMember(j, "pid", &e.pid, &has, &err) || !IntMember(j, "tid", &e.tid, &has, &err)) {
      reject(err);
      continue;
    }
    if (e.dur_ns < 0) {
      reject("dur_ns is negative");
      continue;
    }
    if (rank < -1 || rank > std::numeric_limits<int>::max()) {
      reject("rank out of range");
      continue;
    }
    e.rank = static_cast<int>(rank);
    if (auto it = j.find("value"); it != j.end()) {
      if (!it->is_number()) {
        reject("value is not a number");
        continue;
      }
      e.value = it->get<double>();
    }
    e.phase = e.dur_ns > 0 ? 'X' : 'i';
    e.source_file = std::string(source);
    e.line = line_no;
    e.byte_offset = reader.byte_offset();
    ++counts.accepted;
    if (sink) sink(std::move(e));
  }
  if (const Error* e = reader.error()) return *e;
  return {};
}

Status ReadEventJsonlFile(const std::string& path, const TraceEventSink& sink, Diagnostics& diag,
                          ReadCounts& counts) {
  auto in = OpenInput(path);
  if (!in.ok()) return in.error();
  LineReader reader(std::move(*in));
  return ReadEventJsonl(reader, path, sink, diag, counts);
}

std::vector<TraceEvent> ParseEventJsonl(std::string_view text, std::string_view source, Diagnostics& diag,
                                        ReadCounts& counts) {
  std::vector<TraceEvent> out;
  LineReader reader(MakeStringInputStream(text, std::string(source)));
  (void)ReadEventJsonl(reader, source, [&](TraceEvent&& e) { out.push_back(std::move(e)); }, diag, counts);
  return out;
}

std::string WriteEventJsonlLine(const TraceEvent& e) {
  std::string s = "{\"ts_ns\":" + std::to_string(e.local_ts_ns) + ",\"host\":";
  AppendJsonString(&s, e.host);
  s += ",\"device\":";
  AppendJsonString(&s, e.device);
  s += ",\"type\":";
  AppendJsonString(&s, e.type);
  s += ",\"context\":";
  AppendJsonString(&s, e.context);
  if (!e.category.empty()) {
    s += ",\"category\":";
    AppendJsonString(&s, e.category);
  }
  if (e.dur_ns > 0) s += ",\"dur_ns\":" + std::to_string(e.dur_ns);
  if (e.rank >= 0) s += ",\"rank\":" + std::to_string(e.rank);
  if (e.pid != 0) s += ",\"pid\":" + std::to_string(e.pid);
  if (e.tid != 0) s += ",\"tid\":" + std::to_string(e.tid);
  if (e.value != 0.0 && std::isfinite(e.value)) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.17g", e.value);
    s += ",\"value\":";
    s += buf;
  }
  s += '}';
  return s;
}

std::string WriteEventJsonl(const std::vector<TraceEvent>& events) { return JoinLines(events, WriteEventJsonlLine); }

}  // namespace toposcope::formats
