// formats/rdma/qp_state_log: reader and writers of QP state-transition logs (docs/qp_state_log.md).
#include "toposcope/formats/rdma/qp_state_log.h"

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/csv.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"

namespace toposcope::formats {
namespace {

// Control characters or malformed UTF-8: not a usable name.
bool HasBadChars(std::string_view s) { return HasControlChars(s) || !ValidUtf8(s); }

using nlohmann::json;

constexpr std::string_view kStateNames[kNumQpStates] = {"RESET", "INIT", "RTR", "RTS",
                                                        "SQD",   "SQE",  "ERR", "UNKNOWN"};
constexpr uint32_t kMaxQpn = (1u << 24) - 1;


// A QP number: decimal or 0x hex, < 2^24.
std::optional<uint32_t> ParseQpn(std::string_view s) {
  s = Trim(s);
  uint64_t v = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    if (s.size() > 8) return std::nullopt;
    const std::optional<uint64_t> hex = ParseHexU64(s);
    if (!hex) return std::nullopt;
    v = *hex;
  } else {
    if (!AllDigits(s) || s.size() > 10) return std::nullopt;
    for (const char c : s) v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > kMaxQpn) return std::nullopt;
  return static_cast<uint32_t>(v);
}

struct QpLast {
  int64_t ts_ns;
  QpState from, to;
  int64_t line;
};

// Shared per-record checks (duplicates, order, continuity) and the sink call.
class Emitter {
 public:
  Emitter(std::string_view source, Diagnostics& diag, QpStateLogSummary& sum, const QpStateSink& sink)
      : source_(source), diag_(diag), sum_(sum), sink_(sink) {}

  // Returns a rejection reason, or empty when the record was accepted.
  std::string Emit(QpStateRecord& r, std::string_view raw) {
    r.legal = IsLegalQpTransition(r.from, r.to);
    auto& last_map = last_[r.host];
    const auto it = last_map.find(r.qp);
    if (it != last_map.end()) {
      const QpLast& l = it->second;
      if (l.ts_ns == r.ts_ns && l.from == r.from && l.to == r.to) {
        return "duplicate of line " + std::to_string(l.line) + " (same QP, time and transition)";
      }
    }
    if (!r.legal) {
      ++sum_.illegal_transitions;
      ++sum_.illegal[static_cast<size_t>(r.from)][static_cast<size_t>(r.to)];
      diag_.Warn(source_, r.line, raw,
                 "illegal transition " + std::string(QpStateName(r.from)) + "->" +
                     std::string(QpStateName(r.to)) + " (not in the kernel's qp_state_table)");
    }
    if (it != last_map.end()) {
      const QpLast& l = it->second;
      if (r.ts_ns < l.ts_ns) {
        ++sum_.out_of_order;
        diag_.Warn(source_, r.line, raw,
                   "older than line " + std::to_string(l.line) + " of the same QP (out of order)");
      } else if (l.to != r.from) {
        ++sum_.discontinuities;
        diag_.Warn(source_, r.line, raw,
                   "from_state " + std::string(QpStateName(r.from)) + " but line " +
                       std::to_string(l.line) + " left the QP in " + std::string(QpStateName(l.to)) +
                       " (records missing)");
      }
    }
    if (it == last_map.end() || r.ts_ns >= it->second.ts_ns) {
      last_map[r.qp] = QpLast{r.ts_ns, r.from, r.to, r.line};
    }
    ++sum_.counts.accepted;
    if (sink_) sink_(r);
    return {};
  }

 private:
  std::string_view source_;
  Diagnostics& diag_;
  QpStateLogSummary& sum_;
  const QpStateSink& sink_;
  std::map<std::string, std::map<uint32_t, QpLast>, std::less<>> last_;
};

// JSON value -> string for string fields (numbers allowed for job/dev).
std::optional<std::string> JsonString(const json& v, bool allow_number) {
  if (v.is_string()) return v.get<std::string>();
  if (allow_number && v.is_number_integer()) return v.dump();
  return std::nullopt;
}

// Parses one JSONL object into `r`; returns a rejection reason or empty.
std::string ParseJsonRecord(std::string_view t, QpStateRecord& r) {
  json j = json::parse(t, nullptr, false);
  if (j.is_discarded()) return "not valid JSON";
  if (!j.is_object()) return "not a JSON object";
  bool have_ts = false, have_host = false, have_qp = false, have_from = false, have_to = false;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (k == "ts_ns" || k == "ts" || k == "time" || k == "timestamp") {
      if (have_ts) return "two timestamp keys";
      have_ts = true;
      std::optional<int64_t> ts;
      if (v.is_number_integer()) {
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
          return "'" + k + "' out of range";
        }
        const int64_t n = v.get<int64_t>();
        ts = k == "ts_ns" ? std::optional<int64_t>(n) : ParseEpochAutoNs(std::to_string(n));
      } else if (v.is_number_float()) {
        ts = ParseEpochAutoNs(v.dump());
      } else if (v.is_string()) {
        ts = ParseTimestampNs(v.get<std::string>(), k == "ts_ns");
      }
      if (!ts) return "'" + k + "' " + QuoteRaw(v.dump()) + " is not a time (epoch number or ISO 8601)";
      r.ts_ns = *ts;
    } else if (k == "host") {
      const auto s = JsonString(v, false);
      if (!s || Trim(*s).empty() || HasBadChars(*s)) return "empty or non-string host";
      r.host = std::string(Trim(*s));
      have_host = true;
    } else if (k == "qp" || k == "qpn" || k == "lqpn") {
      std::optional<uint32_t> q;
      if (v.is_number_unsigned()) {
        if (v.get<uint64_t>() <= kMaxQpn) q = static_cast<uint32_t>(v.get<uint64_t>());
      } else if (v.is_string()) {
        q = ParseQpn(v.get<std::string>());
      }
      if (!q) return "qp " + QuoteRaw(v.dump()) + " is not a QP number (0..2^24-1, decimal or 0x hex)";
      r.qp = *q;
      have_qp = true;
    } else if (k == "dev" || k == "job") {
      if (v.is_null()) continue;
      const auto s = JsonString(v, true);
      if (!s || HasBadChars(*s)) return "'" + k + "' is not a string";
      (k == "dev" ? r.dev : r.job) = std::string(Trim(*s));
    } else if (k == "from" || k == "from_state" || k == "to" || k == "to_state") {
      std::optional<QpState> st;
      if (v.is_number_unsigned() && v.get<uint64_t>() < kNumQpStates) {
        st = static_cast<QpState>(v.get<uint64_t>());
      } else if (v.is_string()) {
        st = ParseQpState(v.get<std::string>());
      }
      if (!st) return "'" + k + "' " + QuoteRaw(v.dump()) + " is not a QP state";
      if (k[0] == 'f') {
        if (have_from) return "two from_state keys";
        r.from = *st;
        have_from = true;
      } else {
        if (have_to) return "two to_state keys";
        r.to = *st;
        have_to = true;
      }
    }
    // Other keys are ignored.
  }
  if (!have_ts) return "no ts";
  if (!have_host) return "no host";
  if (!have_qp) return "no qp";
  if (!have_from) return "no from_state";
  if (!have_to) return "no to_state";
  return {};
}

}  // namespace

std::string_view QpStateName(QpState s) {
  const auto i = static_cast<size_t>(s);
  return i < kNumQpStates ? kStateNames[i] : std::string_view("UNKNOWN");
}

std::optional<QpState> ParseQpState(std::string_view s) {
  s = Trim(s);
  if (s.size() == 1 && s[0] >= '0' && s[0] <= '7') return static_cast<QpState>(s[0] - '0');
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string_view v = u;
  if (StartsWith(v, "IBV_QPS_")) v.remove_prefix(8);
  for (size_t i = 0; i < kNumQpStates; ++i) {
    if (v == kStateNames[i]) return static_cast<QpState>(i);
  }
  return std::nullopt;
}

bool IsLegalQpTransition(QpState from, QpState to) {
  using S = QpState;
  if (from == S::kUnknown || to == S::kUnknown) return false;
  if (to == S::kReset) return true;  // every state may go to RESET
  switch (from) {
    case S::kReset:
      return to == S::kInit || to == S::kErr;
    case S::kInit:
      return to == S::kInit || to == S::kRtr || to == S::kErr;
    case S::kRtr:
      return to == S::kRts || to == S::kErr;
    case S::kRts:
      return to == S::kRts || to == S::kSqd || to == S::kSqe || to == S::kErr;
    case S::kSqd:
      return to == S::kRts || to == S::kSqd || to == S::kErr;
    case S::kSqe:
      return to == S::kRts || to == S::kErr;
    case S::kErr:
      return to == S::kErr;
    case S::kUnknown:
      return false;
  }
  return false;
}

namespace {

// The columns of a QP state CSV, from its header.
struct QpColumns {
  int ts = -1, host = -1, qp = -1, dev = -1, job = -1, from = -1, to = -1;
  bool ts_is_ns = false;  // the ts column is `ts_ns`
  size_t count = 0;
};

// The CSV header line `t`; fails when it has a broken quote, names a column twice or lacks one.
Status ReadQpHeader(std::string_view t, int64_t ln, std::string_view source, std::vector<std::string>& cells,
                    QpColumns& cols) {
  if (!SplitCsvLine(t, cells)) return MakeError(std::string(source), ln, 0, "QP state CSV header has a broken quote");
  const int twice = FindCsvColumns(cells, {{"ts|ts_ns|time|timestamp", &cols.ts},
                                           {"host", &cols.host},
                                           {"qp|qpn|lqpn", &cols.qp},
                                           {"dev", &cols.dev},
                                           {"job", &cols.job},
                                           {"from_state|from", &cols.from},
                                           {"to_state|to", &cols.to}});
  if (twice >= 0) {
    return MakeError(std::string(source), ln, 0,
                     "QP state CSV header names a column twice: " + QuoteRaw(cells[static_cast<size_t>(twice)]));
  }
  if (cols.ts < 0 || cols.host < 0 || cols.qp < 0 || cols.from < 0 || cols.to < 0) {
    return MakeError(std::string(source), ln, 0,
                     "not a QP state log: the first line " + QuoteRaw(t) +
                         " is neither a JSON object nor a CSV header with ts, host, qp, from_state, to_state",
                     "see docs/qp_state_log.md");
  }
  cols.ts_is_ns = ToLowerAscii(cells[static_cast<size_t>(cols.ts)]) == "ts_ns";
  cols.count = cells.size();
  return {};
}

// One CSV data line `t` into `r`; "" when it is a record, else why not.
std::string ReadQpCsvRow(std::string_view t, const QpColumns& cols, std::vector<std::string>& cells, QpStateRecord& r) {
  if (!SplitCsvLine(t, cells)) return "broken quote";
  if (cells.size() != cols.count) {
    return "row has " + std::to_string(cells.size()) + " cells, the header " + std::to_string(cols.count);
  }
  auto cell = [&](int c) -> const std::string& { return cells[static_cast<size_t>(c)]; };
  const auto ts = ParseTimestampNs(cell(cols.ts), cols.ts_is_ns);
  if (!ts) return "ts " + QuoteRaw(cell(cols.ts)) + " is not a time (epoch number or ISO 8601)";
  r.ts_ns = *ts;
  r.host = cell(cols.host);
  if (r.host.empty() || HasBadChars(r.host)) return "empty host or control characters / malformed UTF-8 in it";
  const auto qp = ParseQpn(cell(cols.qp));
  if (!qp) return "qp " + QuoteRaw(cell(cols.qp)) + " is not a QP number (0..2^24-1, decimal or 0x hex)";
  r.qp = *qp;
  if (cols.dev >= 0) r.dev = cell(cols.dev);
  if (cols.job >= 0) r.job = cell(cols.job);
  if (HasBadChars(r.dev) || HasBadChars(r.job)) return "control characters or malformed UTF-8 in dev or job";
  const auto from = ParseQpState(cell(cols.from));
  const auto to = ParseQpState(cell(cols.to));
  if (!from) return "from_state " + QuoteRaw(cell(cols.from)) + " is not a QP state";
  if (!to) return "to_state " + QuoteRaw(cell(cols.to)) + " is not a QP state";
  r.from = *from;
  r.to = *to;
  return {};
}

}  // namespace

Result<QpStateLogSummary> ReadQpStateLog(LineReader& reader, std::string_view source, Diagnostics& diag,
                                         const QpStateSink& sink) {
  QpStateLogSummary sum;
  Emitter emitter(source, diag, sum, sink);
  bool layout_known = false;
  QpColumns cols;
  std::vector<std::string> cells;
  std::string_view raw, t;
  while (NextCsvLine(reader, &raw, &t)) {
    const int64_t ln = reader.line_number();
    if (!layout_known) {
      if (LooksBinary(raw)) {
        return MakeError(std::string(source), ln, 0, "not a QP state log: binary data");
      }
      layout_known = true;
      if (t[0] == '{') {
        sum.layout = QpLogLayout::kJsonl;
      } else {
        sum.layout = QpLogLayout::kCsv;
        if (Status st = ReadQpHeader(t, ln, source, cells, cols); !st.ok()) return st.error();
        continue;
      }
    }
    ++sum.counts.read;
    QpStateRecord r;
    r.line = ln;
    std::string why = sum.layout == QpLogLayout::kJsonl ? ParseJsonRecord(t, r) : ReadQpCsvRow(t, cols, cells, r);
    if (why.empty()) why = emitter.Emit(r, raw);
    if (!why.empty()) {
      ++sum.counts.rejected;
      diag.Reject(source, ln, raw, why);
    }
  }
  if (const Error* e = reader.error()) return *e;
  if (sum.counts.read > 0 && sum.counts.accepted == 0) {
    return MakeError(std::string(source), 0, 0,
                     "not a QP state log: all " + std::to_string(sum.counts.read) + " data lines were rejected",
                     "see docs/qp_state_log.md");
  }
  return sum;
}

Result<QpStateLogSummary> ParseQpStateLog(std::string_view text, std::string_view source, Diagnostics& diag,
                                          const QpStateSink& sink) {
  LineReader reader = TextLineReader(text, std::string(source));
  return ReadQpStateLog(reader, source, diag, sink);
}

std::string QpStateCsvHeader() { return "ts_ns,host,qp,dev,job,from_state,to_state\n"; }

std::string FormatQpStateCsvLine(const QpStateRecord& r) {
  std::string out = std::to_string(r.ts_ns);
  out += ',';
  out += CsvCell(r.host);
  out += ',';
  out += std::to_string(r.qp);
  out += ',';
  out += CsvCell(r.dev);
  out += ',';
  out += CsvCell(r.job);
  out += ',';
  out += QpStateName(r.from);
  out += ',';
  out += QpStateName(r.to);
  out += '\n';
  return out;
}

std::string FormatQpStateJsonLine(const QpStateRecord& r) {
  json j = json::object();
  j["ts_ns"] = r.ts_ns;
  j["host"] = r.host;
  j["qp"] = r.qp;
  if (!r.dev.empty()) j["dev"] = r.dev;
  if (!r.job.empty()) j["job"] = r.job;
  j["from"] = std::string(QpStateName(r.from));
  j["to"] = std::string(QpStateName(r.to));
  std::string out = j.dump(-1, ' ', false, json::error_handler_t::replace);
  out += '\n';
  return out;
}

}  // namespace toposcope::formats
