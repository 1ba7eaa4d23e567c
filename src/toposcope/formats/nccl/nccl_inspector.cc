// formats/nccl/nccl_inspector: reader and writer of NCCL Inspector JSON output.
//
// Framing: the input is a stream of JSON values. The plugin writes one compact object per line;
// the README prints them pretty, one object over many lines. A string-aware brace counter cuts
// values (several per line are fine); a line that starts with '{' in column 0 while a value is
// still open means that value was cut short: it is rejected and the new one starts there. Each
// value is then parsed on its own (nlohmann::json, bounded by one record).
//
// Records (v4.0): {header, metadata, coll_perf | p2p_perf}. v4.1+: a {header, metadata,
// dump_stats} marker, then coll_perf / p2p_perf / proxy_trace records without header/metadata
// that belong to it (carried forward here). Doubles may be the string "nan".
#include "toposcope/formats/nccl/nccl_inspector.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "toposcope/base/text.h"
#include "toposcope/formats/trace/chrome_trace.h"
#include "toposcope/formats/trace/json_fields.h"

namespace toposcope::formats {
namespace {

using nlohmann::json;

constexpr size_t kMaxRecordBytes = size_t{16} << 20;

// Field readers: nullopt + reason on a bad value; absent keys give the default.
struct FieldError {
  std::string reason;
};

bool GetInt32(const json& o, const char* key, int* out, std::string* err, bool required = false) {
  int64_t v = *out;
  if (!JsonInt(o, key, &v, err, required)) return false;
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    *err = std::string(key) + " out of range";
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool GetDouble(const json& o, const char* key, double* out, std::string* err) {
  auto it = o.find(key);
  if (it == o.end()) return true;
  if (it->is_number()) {
    *out = it->get<double>();
    return true;
  }
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    if (s == "nan" || s == "-nan" || s == "NaN") {
      *out = NAN;
      return true;
    }
  }
  *err = std::string(key) + " is not a number (or \"nan\")";
  return false;
}

bool ReadHeader(const json& o, InspectorHeader* h, std::string* err) {
  if (!o.is_object()) {
    *err = "header is not an object";
    return false;
  }
  h->present = true;
  return JsonString(o, "id", &h->id, err) && JsonString(o, "comm_name", &h->comm_name, err) &&
         GetInt32(o, "rank", &h->rank, err) && GetInt32(o, "n_ranks", &h->n_ranks, err) &&
         GetInt32(o, "nnodes", &h->nnodes, err);
}

bool ReadMetadata(const json& o, InspectorMetadata* m, std::string* err) {
  if (!o.is_object()) {
    *err = "metadata is not an object";
    return false;
  }
  m->present = true;
  return JsonString(o, "inspector_output_format_version", &m->version, err) &&
         JsonString(o, "git_rev", &m->git_rev, err) && JsonString(o, "rec_mechanism", &m->rec_mechanism, err) &&
         JsonInt(o, "dump_timestamp_us", &m->dump_timestamp_us, err) && JsonString(o, "hostname", &m->hostname, err) &&
         JsonInt(o, "pid", &m->pid, err);
}

std::string K(const std::string& prefix, const char* suffix) { return prefix + suffix; }

bool ReadKernels(const json& arr, bool ts, std::vector<InspectorKernelEvent>* kernels, std::string* err) {
  if (!arr.is_array()) {
    *err = "kernel_events is not an array";
    return false;
  }
  size_t i = 0;
  for (const auto& k : arr) {
    if (!k.is_object()) {
      *err = "kernel event is not an object";
      return false;
    }
    int channel = -1;
    if (!GetInt32(k, "channel_id", &channel, err)) return false;
    // Pair by position (the _sn and _ts lists list the same kernels in order).
    if (i >= kernels->size()) kernels->emplace_back();
    auto& ke = (*kernels)[i++];
    ke.channel_id = channel;
    if (ts) {
      if (!JsonInt(k, "kernel_start_ts", &ke.start_ts_us, err) || !JsonInt(k, "kernel_stop_ts", &ke.stop_ts_us, err) ||
          !JsonInt(k, "kernel_record_ts", &ke.record_ts_us, err)) {
        return false;
      }
    } else {
      if (!JsonInt(k, "kernel_start_sn", &ke.start_sn, err) || !JsonInt(k, "kernel_stop_sn", &ke.stop_sn, err) ||
          !JsonInt(k, "kernel_record_sn", &ke.record_sn, err)) {
        return false;
      }
    }
  }
  return true;
}

// The optional `event_trace_<unit>` object of a perf record (unit "sn": sequence numbers, "ts":
// timestamps): its `<prefix>_start_<unit>` / `<prefix>_stop_<unit>` and kernel events.
bool ReadEventTrace(const json& o, const std::string& prefix, const std::string& unit, int64_t* start, int64_t* stop,
                    InspectorPerf* p, std::string* err) {
  auto it = o.find("event_trace_" + unit);
  if (it == o.end()) return true;
  if (!it->is_object()) {
    *err = "event_trace_" + unit + " is not an object";
    return false;
  }
  p->has_event_trace = true;
  if (!JsonInt(*it, (prefix + "_start_" + unit).c_str(), start, err) ||
      !JsonInt(*it, (prefix + "_stop_" + unit).c_str(), stop, err)) {
    return false;
  }
  if (auto k = it->find("kernel_events"); k != it->end() && !ReadKernels(*k, unit == "ts", &p->kernels, err)) {
    return false;
  }
  return true;
}

bool ReadPerf(const json& o, const std::string& prefix, InspectorPerf* p, std::string* err) {
  if (!o.is_object()) {
    *err = prefix + "perf is not an object";
    return false;
  }
  if (!JsonString(o, prefix.c_str(), &p->op, err, true)) return false;
  if (p->op.empty()) {
    *err = prefix + " is empty";
    return false;
  }
  if (!JsonInt(o, K(prefix, "_sn").c_str(), &p->sn, err, true)) return false;
  if (p->sn < 0) {
    *err = prefix + "_sn is negative";
    return false;
  }
  if (prefix == "p2p" && !GetInt32(o, "p2p_peer", &p->peer, err)) return false;
  if (!JsonInt(o, K(prefix, "_msg_size_bytes").c_str(), &p->msg_size_bytes, err)) return false;
  if (!GetDouble(o, K(prefix, "_exec_time_us").c_str(), &p->exec_time_us, err)) return false;
  if (!JsonString(o, K(prefix, "_timing_source").c_str(), &p->timing_source, err)) return false;
  if (!GetDouble(o, K(prefix, "_algobw_gbs").c_str(), &p->algobw_gbs, err)) return false;
  if (!GetDouble(o, K(prefix, "_busbw_gbs").c_str(), &p->busbw_gbs, err)) return false;
  if (o.contains(K(prefix, "_msg_size_bytes")) && p->msg_size_bytes < 0) {
    *err = prefix + "_msg_size_bytes is negative";
    return false;
  }
  if (p->exec_time_us < 0) {
    *err = prefix + "_exec_time_us is negative";
    return false;
  }
  if (p->algobw_gbs < 0 || p->busbw_gbs < 0) {
    *err = "negative bandwidth";
    return false;
  }
  return ReadEventTrace(o, prefix, "sn", &p->start_sn, &p->stop_sn, p, err) &&
         ReadEventTrace(o, prefix, "ts", &p->start_ts_us, &p->stop_ts_us, p, err);
}

// v4.1+ records without header/metadata belong to the last marker: a record's own `part` becomes
// the `last` one; a record without it takes the last one (setting `part_inherited` and `inherited`).
template <class Part>
void CarryForward(bool has, Part& part, Part& last, bool& part_inherited, bool& inherited) {
  if (has) {
    last = part;
  } else if (last.present) {
    part = last;
    inherited = true;
    part_inherited = true;
  }
}

// The value-cutting state machine.
class ValueCutter {
 public:
  // Feeds one line; complete values are appended to `done` (text, first line).
  void Feed(std::string_view line, int64_t line_no, int64_t byte_offset,
            std::vector<std::tuple<std::string, int64_t, int64_t, bool>>* done) {
    if (depth_ > 0 && !line.empty() && line[0] == '{' && !in_string_) {
      // A new top-level object while one is open: the open one was cut short.
      done->emplace_back(std::move(buf_), start_line_, start_byte_, true);
      Reset();
    }
    size_t i = 0;
    while (i < line.size()) {
      if (buf_.empty() && depth_ == 0) {
        // Skip blanks between values.
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == ',')) ++i;
        if (i >= line.size()) break;
        start_line_ = line_no;
        start_byte_ = byte_offset + static_cast<int64_t>(i);
        if (line[i] != '{' && line[i] != '[') {
          // Not a JSON container: the whole rest of the line is one (bad) value.
          done->emplace_back(std::string(line.substr(i)), line_no, start_byte_, false);
          return;
        }
      }
      const char c = line[i];
      buf_ += c;
      ++i;
      if (buf_.size() > kMaxRecordBytes) {
        done->emplace_back(std::move(buf_), start_line_, start_byte_, true);
        Reset();
        skip_until_new_ = true;
        return;
      }
      if (in_string_) {
        if (escape_) {
          escape_ = false;
        } else if (c == '\\') {
          escape_ = true;
        } else if (c == '"') {
          in_string_ = false;
        }
        continue;
      }
      if (c == '"') {
        in_string_ = true;
      } else if (c == '{' || c == '[') {
        ++depth_;
      } else if (c == '}' || c == ']') {
        --depth_;
        if (depth_ <= 0) {
          done->emplace_back(std::move(buf_), start_line_, start_byte_, false);
          Reset();
        }
      }
    }
    if (!buf_.empty()) buf_ += '\n';
  }
  // End of input: an open value is cut short.
  void Finish(std::vector<std::tuple<std::string, int64_t, int64_t, bool>>* done) {
    if (!buf_.empty()) done->emplace_back(std::move(buf_), start_line_, start_byte_, true);
    Reset();
  }
  bool skip_until_new_ = false;

 private:
  void Reset() {
    buf_.clear();
    depth_ = 0;
    in_string_ = false;
    escape_ = false;
  }
  std::string buf_;
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  int64_t start_line_ = 0;
  int64_t start_byte_ = 0;
};

// As the plugin prints it ("%.6f"); a magnitude of 1e15 or more (no real bandwidth or time) in the
// shortest form that reads back to the same double: "%.6f" spells out every digit of such a number,
// and the JSON reader may round that long integer to a neighbouring double.
std::string Fmt6(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (!std::isfinite(v)) return "\"nan\"";
  char buf[64];
  if (std::fabs(v) >= 1e15) {
    const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
    if (ec == std::errc()) return std::string(buf, end);
  }
  std::snprintf(buf, sizeof(buf), "%.6f", v);
  return buf;
}

std::string FmtExec(double v) {
  if (std::isnan(v) || !std::isfinite(v)) return "\"nan\"";
  if (v == std::floor(v) && std::fabs(v) < 9e15) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.0f", v);
    return buf;
  }
  return Fmt6(v);
}

std::string Q(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

}  // namespace

bool InspectorRecordToEvent(const InspectorRecord& r, std::string_view source, TraceEvent* e) {
  if (r.kind != InspectorKind::kCollPerf && r.kind != InspectorKind::kP2pPerf) return false;
  const InspectorPerf& p = r.perf;
  auto us_to_ns = [](int64_t us, int64_t* ns) { return !__builtin_mul_overflow(us, int64_t{1000}, ns); };
  int64_t first_k = -1;
  int64_t last_k = -1;
  for (const auto& k : p.kernels) {
    if (k.start_ts_us >= 0 && (first_k < 0 || k.start_ts_us < first_k)) first_k = k.start_ts_us;
    if (k.stop_ts_us >= 0 && k.stop_ts_us > last_k) last_k = k.stop_ts_us;
  }
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  bool from_dump = false;
  if (first_k >= 0 || p.start_ts_us >= 0) {
    const int64_t b = first_k >= 0 ? first_k : p.start_ts_us;
    const int64_t end = first_k >= 0 ? last_k : p.stop_ts_us;
    if (!us_to_ns(b, &start_ns)) return false;
    if (end >= b && !us_to_ns(end - b, &dur_ns)) dur_ns = 0;
  } else if (r.metadata.dump_timestamp_us >= 0) {
    from_dump = true;
    if (!us_to_ns(r.metadata.dump_timestamp_us, &start_ns)) return false;
    if (std::isfinite(p.exec_time_us) && p.exec_time_us < 9e12) {
      dur_ns = static_cast<int64_t>(std::llround(p.exec_time_us * 1000.0));
      start_ns -= dur_ns;
    }
  } else {
    return false;
  }
  e->local_ts_ns = start_ns;
  e->dur_ns = dur_ns;
  e->host = r.metadata.hostname;
  e->rank = r.header.rank;
  e->device = r.header.rank >= 0 ? "rank" + std::to_string(r.header.rank) : std::string();
  e->type = p.op;
  e->category = r.kind == InspectorKind::kCollPerf ? "coll_perf" : "p2p_perf";
  e->context = "comm=" + r.header.id + ";seq=" + std::to_string(p.sn);
  if (r.kind == InspectorKind::kP2pPerf) e->context += ";peer=" + std::to_string(p.peer);
  if (from_dump) e->context += ";timing=dump";
  e->pid = r.metadata.pid;
  e->tid = 0;
  e->source_file = std::string(source);
  e->line = r.line;
  e->phase = 'X';
  e->value = std::isnan(p.busbw_gbs) ? 0.0 : p.busbw_gbs;
  return true;
}

Status ReadNcclInspector(LineReader& reader, std::string_view source, const InspectorRecordSink& records,
                         const TraceEventSink& events, Diagnostics& diag, ReadCounts& counts) {
  ValueCutter cutter;
  std::vector<std::tuple<std::string, int64_t, int64_t, bool>> done;
  InspectorHeader last_header;
  InspectorMetadata last_meta;
  int64_t json_values = 0;
  int64_t values = 0;

  auto handle = [&](std::string& text, int64_t line, int64_t byte_offset, bool cut) {
    ++counts.read;
    ++values;
    auto reject = [&](const std::string& reason) {
      ++counts.rejected;
      diag.Reject(source, line, text, reason);
    };
    if (cut) return reject("record is cut short (unbalanced braces before the next record or the end)");
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& ex) {
      std::string what = ex.what();
      if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
      return reject("not valid JSON: " + what);
    }
    ++json_values;
    if (!j.is_object()) return reject("record is not a JSON object");
    InspectorRecord r;
    r.line = line;
    std::string err;
    const bool has_header = j.contains("header");
    const bool has_meta = j.contains("metadata");
    if (has_header && !ReadHeader(j["header"], &r.header, &err)) return reject(err);
    if (has_meta && !ReadMetadata(j["metadata"], &r.metadata, &err)) return reject(err);
    int kinds = 0;
    if (auto it = j.find("coll_perf"); it != j.end()) {
      ++kinds;
      r.kind = InspectorKind::kCollPerf;
      if (!ReadPerf(*it, "coll", &r.perf, &err)) return reject(err);
    }
    if (auto it = j.find("p2p_perf"); it != j.end()) {
      ++kinds;
      r.kind = InspectorKind::kP2pPerf;
      if (!ReadPerf(*it, "p2p", &r.perf, &err)) return reject(err);
    }
    if (auto it = j.find("dump_stats"); it != j.end()) {
      ++kinds;
      r.kind = InspectorKind::kDumpStats;
      if (!it->is_object()) return reject("dump_stats is not an object");
      if (!JsonInt(*it, "coll_records", &r.stats.coll_records, &err) ||
          !JsonInt(*it, "p2p_records", &r.stats.p2p_records, &err) ||
          !JsonInt(*it, "proxy_records", &r.stats.proxy_records, &err)) {
        return reject(err);
      }
    }
    if (auto it = j.find("proxy_trace"); it != j.end()) {
      ++kinds;
      r.kind = InspectorKind::kProxyTrace;
      r.proxy_json = it->dump(-1, ' ', false, json::error_handler_t::replace);
    }
    if (kinds == 0) return reject("no coll_perf, p2p_perf, dump_stats or proxy_trace in the record");
    if (kinds > 1) return reject("more than one of coll_perf, p2p_perf, dump_stats, proxy_trace in one record");
    CarryForward(has_header, r.header, last_header, r.header_inherited, r.inherited);
    CarryForward(has_meta, r.metadata, last_meta, r.metadata_inherited, r.inherited);
    if (!r.header.present && !r.metadata.present && r.kind != InspectorKind::kDumpStats) {
      diag.Warn(source, line, text, "record without header/metadata and none before it: no host, rank or time");
    }
    ++counts.accepted;
    if (events) {
      TraceEvent e;
      if (InspectorRecordToEvent(r, source, &e)) {
        e.byte_offset = byte_offset;
        events(std::move(e));
      }
    }
    if (records) records(std::move(r));
  };

  std::string_view line;
  while (reader.Next(&line)) {
    if (cutter.skip_until_new_) {
      if (line.empty() || line[0] != '{') continue;
      cutter.skip_until_new_ = false;
    }
    cutter.Feed(line, reader.line_number(), reader.byte_offset(), &done);
    for (auto& [text, l, b, cut] : done) handle(text, l, b, cut);
    done.clear();
  }
  cutter.Finish(&done);
  for (auto& [text, l, b, cut] : done) handle(text, l, b, cut);
  if (const Error* e = reader.error()) return *e;
  if (values > 0 && json_values == 0) {
    return MakeError(std::string(source), 0, 0, "not NCCL Inspector output: no JSON record in the input",
                     "expected JSON lines written by the NCCL Inspector plugin");
  }
  return {};
}

Status ReadNcclInspectorFile(const std::string& path, const InspectorRecordSink& records,
                             const TraceEventSink& events, Diagnostics& diag, ReadCounts& counts) {
  auto in = OpenInput(path);
  if (!in.ok()) return in.error();
  LineReader reader(std::move(*in));
  const Status st = ReadNcclInspector(reader, path, records, events, diag, counts);
  RejectOversizedLines(reader, diag, counts);
  return st;
}

Result<std::vector<InspectorRecord>> ParseNcclInspector(std::string_view text, std::string_view source,
                                                        Diagnostics& diag, ReadCounts& counts) {
  std::vector<InspectorRecord> out;
  LineReader reader(MakeStringInputStream(text, std::string(source)));
  Status st = ReadNcclInspector(
      reader, source, [&](InspectorRecord&& r) { out.push_back(std::move(r)); }, nullptr, diag, counts);
  if (!st.ok()) return st.error();
  return out;
}

std::string WriteNcclInspectorRecord(const InspectorRecord& r) {
  std::string s = "{";
  bool first = true;
  auto member = [&](const char* k) {
    if (!first) s += ',';
    first = false;
    s += '"';
    s += k;
    s += "\":";
  };
  if (!r.header_inherited && r.header.present) {
    const auto& h = r.header;
    member("header");
    s += "{\"id\":" + Q(h.id);
    if (!h.comm_name.empty()) s += ",\"comm_name\":" + Q(h.comm_name);
    if (h.rank != -1) s += ",\"rank\":" + std::to_string(h.rank);
    if (h.n_ranks != -1) s += ",\"n_ranks\":" + std::to_string(h.n_ranks);
    if (h.nnodes != -1) s += ",\"nnodes\":" + std::to_string(h.nnodes);
    s += '}';
  }
  if (!r.metadata_inherited && r.metadata.present) {
    const auto& m = r.metadata;
    member("metadata");
    s += "{\"inspector_output_format_version\":" + Q(m.version) + ",\"git_rev\":" + Q(m.git_rev) +
         ",\"rec_mechanism\":" + Q(m.rec_mechanism);
    if (m.dump_timestamp_us != -1) s += ",\"dump_timestamp_us\":" + std::to_string(m.dump_timestamp_us);
    s += ",\"hostname\":" + Q(m.hostname);
    if (m.pid != -1) s += ",\"pid\":" + std::to_string(m.pid);
    s += '}';
  }
  switch (r.kind) {
    case InspectorKind::kDumpStats: {
      member("dump_stats");
      std::string b;
      auto add = [&](const char* k, int64_t v) {
        if (v == -1) return;
        if (!b.empty()) b += ',';
        b += '"';
        b += k;
        b += "\":" + std::to_string(v);
      };
      add("coll_records", r.stats.coll_records);
      add("p2p_records", r.stats.p2p_records);
      add("proxy_records", r.stats.proxy_records);
      s += "{" + b + "}";
      break;
    }
    case InspectorKind::kProxyTrace:
      member("proxy_trace");
      s += r.proxy_json.empty() ? "{}" : r.proxy_json;
      break;
    case InspectorKind::kCollPerf:
    case InspectorKind::kP2pPerf: {
      const bool coll = r.kind == InspectorKind::kCollPerf;
      const std::string px = coll ? "coll" : "p2p";
      const auto& p = r.perf;
      member(coll ? "coll_perf" : "p2p_perf");
      s += "{\"" + px + "\":" + Q(p.op) + ",\"" + px + "_sn\":" + std::to_string(p.sn);
      if (!coll && p.peer != -1) s += ",\"p2p_peer\":" + std::to_string(p.peer);
      if (p.msg_size_bytes != -1) s += ",\"" + px + "_msg_size_bytes\":" + std::to_string(p.msg_size_bytes);
      s += ",\"" + px + "_exec_time_us\":" + FmtExec(p.exec_time_us);
      if (!p.timing_source.empty()) s += ",\"" + px + "_timing_source\":" + Q(p.timing_source);
      s += ",\"" + px + "_algobw_gbs\":" + Fmt6(p.algobw_gbs);
      s += ",\"" + px + "_busbw_gbs\":" + Fmt6(p.busbw_gbs);
      if (p.has_event_trace) {
        auto opt = [](const char* k, int64_t v) {
          return v == -1 ? std::string() : ",\"" + std::string(k) + "\":" + std::to_string(v);
        };
        auto strip = [](std::string x) { return x.empty() ? x : x.substr(1); };
        std::string sn = strip(opt((px + "_start_sn").c_str(), p.start_sn) + opt((px + "_stop_sn").c_str(), p.stop_sn));
        std::string ts = strip(opt((px + "_start_ts").c_str(), p.start_ts_us) + opt((px + "_stop_ts").c_str(), p.stop_ts_us));
        if (!p.kernels.empty()) {
          std::string ksn, kts;
          for (size_t i = 0; i < p.kernels.size(); ++i) {
            const auto& k = p.kernels[i];
            if (i > 0) {
              ksn += ',';
              kts += ',';
            }
            ksn += "{\"channel_id\":" + std::to_string(k.channel_id) + opt("kernel_start_sn", k.start_sn) +
                   opt("kernel_stop_sn", k.stop_sn) + opt("kernel_record_sn", k.record_sn) + "}";
            kts += "{\"channel_id\":" + std::to_string(k.channel_id) + opt("kernel_start_ts", k.start_ts_us) +
                   opt("kernel_stop_ts", k.stop_ts_us) + opt("kernel_record_ts", k.record_ts_us) + "}";
          }
          sn += std::string(sn.empty() ? "" : ",") + "\"kernel_events\":[" + ksn + "]";
          ts += std::string(ts.empty() ? "" : ",") + "\"kernel_events\":[" + kts + "]";
        }
        s += ",\"event_trace_sn\":{" + sn + "},\"event_trace_ts\":{" + ts + "}";
      }
      s += '}';
      break;
    }
  }
  s += '}';
  return s;
}

std::string WriteNcclInspector(const std::vector<InspectorRecord>& records) {
  return JoinLines(records, WriteNcclInspectorRecord);
}

}  // namespace toposcope::formats
