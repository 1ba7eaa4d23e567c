// formats/trace/event_jsonl: toposcope's JSONL event format (docs/event_jsonl.md). One object per line,
// parsed on its own, so memory is bounded by the longest line.
#include "toposcope/formats/trace/event_jsonl.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "toposcope/base/text.h"
#include "toposcope/formats/trace/chrome_trace.h"
#include "toposcope/formats/trace/json_fields.h"

namespace toposcope::formats {
namespace {

using nlohmann::json;

// One event line's object into `e`; "" when it is an event, else why not.
std::string ReadEvent(const json& j, TraceEvent& e) {
  std::string err;
  if (!JsonInt(j, "ts_ns", &e.local_ts_ns, &err, true)) return err;
  if (e.local_ts_ns == kNoTime) return "ts_ns out of range";
  if (!JsonString(j, "host", &e.host, &err, true)) return err;
  if (e.host.empty()) return "missing host";
  if (!JsonString(j, "type", &e.type, &err, true)) return err;
  if (e.type.empty()) return "missing type";
  if (!JsonString(j, "device", &e.device, &err) || !JsonString(j, "context", &e.context, &err) ||
      !JsonString(j, "category", &e.category, &err)) {
    return err;
  }
  int64_t rank = -1;
  if (!JsonInt(j, "dur_ns", &e.dur_ns, &err) || !JsonInt(j, "rank", &rank, &err) || !JsonInt(j, "pid", &e.pid, &err) ||
      !JsonInt(j, "tid", &e.tid, &err)) {
    return err;
  }
  if (e.dur_ns < 0) return "dur_ns is negative";
  if (rank < -1 || rank > std::numeric_limits<int>::max()) return "rank out of range";
  e.rank = static_cast<int>(rank);
  if (auto it = j.find("value"); it != j.end()) {
    if (!it->is_number()) return "value is not a number";
    e.value = it->get<double>();
  }
  e.phase = e.dur_ns > 0 ? 'X' : 'i';
  return {};
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
    if (const std::string reason = ReadEvent(j, e); !reason.empty()) {
      reject(reason);
      continue;
    }
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
  const Status st = ReadEventJsonl(reader, path, sink, diag, counts);
  RejectOversizedLines(reader, diag, counts);
  return st;
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
