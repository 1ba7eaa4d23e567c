// formats/clock/linuxptp: reader and writers of ptp4l / phc2sys log output (see linuxptp.h for the
// accepted layouts; linuxptp print.c, clock.c, phc2sys.c, port.c for the formats).
#include "toposcope/formats/clock/linuxptp.h"

#include <cstdarg>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <utility>

#include "toposcope/base/text.h"
#include "toposcope/formats/clock/log_lines.h"

namespace toposcope::formats {
namespace {

constexpr int64_t kNsPerS = 1000000000;
constexpr int64_t kMaxMonotonicS = 9000000000;  // ~285 years of uptime; keeps ns in int64
constexpr double kMaxFreqPpb = 1e10;
constexpr double kMaxStat = 1e15;



bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsProgChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-' || c == '.' ||
         c == '/';
}

// A strict decimal int64 with an optional sign.
std::optional<int64_t> ParseDecimal(std::string_view s) {
  std::string_view d = s;
  if (!d.empty() && (d[0] == '-' || d[0] == '+')) d.remove_prefix(1);
  if (!AllDigits(d) || d.size() > 19) return std::nullopt;
  return ParseInt(s);
}

// `1234.567` (seconds with a fraction of 1..9 digits) -> ns.
std::optional<int64_t> ParseMonotonic(std::string_view s) {
  const size_t dot = s.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view sec = s.substr(0, dot);
  const std::string_view frac = s.substr(dot + 1);
  if (!AllDigits(sec) || sec.size() > 11 || !AllDigits(frac) || frac.size() > 9) {
    return std::nullopt;
  }
  const auto v = ParseInt(sec);
  if (!v || *v > kMaxMonotonicS) return std::nullopt;
  int64_t f = *ParseInt(frac);
  for (size_t i = frac.size(); i < 9; ++i) f *= 10;
  return *v * kNsPerS + f;
}

// The parts of a line's prefix.
struct Prefix {
  bool found = false;  // a `prog[...]:` was found
  std::string_view program;
  int64_t pid = -1;
  std::string_view header;  // text before the program (syslog/journal header)
  int64_t monotonic_ns = kNoTime;
  bool bad_time = false;  // a `[...]` that should be a time (or a process id) was malformed
  std::string_view rest;  // after the prefix (tags not yet removed)
};

// Finds `prog[digits(.digits)]:` in the line.
Prefix FindPrefix(std::string_view t) {
  Prefix p;
  size_t from = 0;
  while (true) {
    const size_t lb = t.find('[', from);
    if (lb == std::string_view::npos) return p;
    from = lb + 1;
    size_t b = lb;
    while (b > 0 && IsProgChar(t[b - 1])) --b;
    if (b == lb) continue;
    if (b > 0 && t[b - 1] != ' ' && t[b - 1] != '\t') continue;
    const size_t rb = t.find(']', lb);
    if (rb == std::string_view::npos || rb + 1 >= t.size() || t[rb + 1] != ':') continue;
    const std::string_view inside = t.substr(lb + 1, rb - lb - 1);
    const bool is_time = inside.find('.') != std::string_view::npos;
    if (!is_time && !AllDigits(inside)) continue;
    p.found = true;
    p.program = t.substr(b, lb - b);
    p.header = Trim(t.substr(0, b));
    p.rest = Trim(t.substr(rb + 2));
    if (is_time) {
      const auto m = ParseMonotonic(inside);
      if (m)
        p.monotonic_ns = *m;
      else
        p.bad_time = true;
    } else {
      const auto pid = ParseInt(inside);
      p.pid = pid && inside.size() <= 10 ? *pid : -1;
      if (p.pid < 0) p.bad_time = true;  // `prog[<12 digits>]:` is neither a pid nor a time
      // syslog: the monotonic time follows as `[1234.567] `.
      if (StartsWith(p.rest, "[")) {
        const size_t e = p.rest.find(']');
        if (e != std::string_view::npos) {
          const std::string_view in = p.rest.substr(1, e - 1);
          if (!in.empty() && IsDigit(in[0]) && in.find('.') != std::string_view::npos) {
            const auto m = ParseMonotonic(in);
            if (m)
              p.monotonic_ns = *m;
            else
              p.bad_time = true;
            p.rest = Trim(p.rest.substr(e + 1));
          }
        }
      }
    }
    return p;
  }
}

// Removes leading message tags (`[ptp4l.0.config] [ens7f0] `) from `msg`; returns them joined
// by spaces, without brackets. A bracket group that is empty or has a blank inside is not a tag
// (tags are single words; the text stays in the message).
std::string StripTags(std::string_view& msg) {
  std::string tags;
  while (StartsWith(msg, "[")) {
    const size_t e = msg.find(']');
    if (e == std::string_view::npos || e == 1) break;
    if (msg.substr(1, e - 1).find_first_of(" \t") != std::string_view::npos) break;
    if (!tags.empty()) tags += ' ';
    tags += std::string(msg.substr(1, e - 1));
    msg = Trim(msg.substr(e + 1));
  }
  return tags;
}

// Reads `sK` -> K.
std::optional<int> ParseServoState(std::string_view s) {
  if (s.size() < 2 || s[0] != 's' || !AllDigits(s.substr(1)) || s.size() > 3) return std::nullopt;
  return static_cast<int>(*ParseInt(s.substr(1)));
}

std::optional<double> ParseFreq(std::string_view s) {
  const auto v = ParseDouble(s);
  if (!v || std::fabs(*v) > kMaxFreqPpb) return std::nullopt;
  return v;
}

// The `N sK freq F` fields of a sample, the offset at tok[at]; the word before F may be `adj`
// too when `adj_ok`. Sets the offset, servo state and frequency of `r`; false with `reason` (and
// `r` untouched) on a bad field.
bool ParseOffsetStateFreq(const std::vector<std::string_view>& tok, size_t at, bool adj_ok, PtpRecord& r,
                          std::string& reason) {
  const auto off = ParseDecimal(tok[at]);
  const auto st = ParseServoState(tok[at + 1]);
  const auto fr = ParseFreq(tok[at + 3]);
  if (!off) {
    reason = "offset " + QuoteRaw(tok[at]) + " is not an integer (ns)";
    return false;
  }
  if (!st) {
    reason = "servo state " + QuoteRaw(tok[at + 1]) + " is not sN";
    return false;
  }
  if (tok[at + 2] != "freq" && !(adj_ok && tok[at + 2] == "adj")) {
    reason = "expected 'freq', got " + QuoteRaw(tok[at + 2]);
    return false;
  }
  if (!fr) {
    reason = "freq " + QuoteRaw(tok[at + 3]) + " is not a number (ppb)";
    return false;
  }
  r.offset_ns = *off;
  r.servo_state = *st;
  r.freq_ppb = *fr;
  return true;
}

// Whether a sample line has all 9 fields or the `short_count` of a line without its delay; else
// `reason` gives the count and the full `layout` of a `what` line.
bool HasSampleFields(const std::vector<std::string_view>& tok, size_t short_count, const char* what, const char* layout,
                     std::string& reason) {
  if (tok.size() == short_count || tok.size() == 9) return true;
  reason = StringPrintf("%s line has %zu fields, expected 9 ('%s')", what, tok.size(), layout);
  return false;
}

// The delay value (ns) that ends a full sample line.
bool ReadDelay(std::string_view value, const char* name, PtpRecord& r, std::string& reason) {
  const auto d = ParseDecimal(value);
  if (!d) {
    reason = std::string(name) + " " + QuoteRaw(value) + " is not an integer (ns)";
    return false;
  }
  r.delay_ns = *d;
  return true;
}

// ptp4l: `master offset N sK freq F path delay D` (the path delay may be missing).
bool ParseMasterOffset(const std::vector<std::string_view>& tok, PtpRecord& r, std::string& reason) {
  r.kind = PtpLineKind::kMasterOffset;
  if (!HasSampleFields(tok, 6, "master offset", "master offset N sK freq F path delay D", reason)) return false;
  if (!ParseOffsetStateFreq(tok, 2, true, r, reason)) return false;
  if (tok.size() == 9) {
    if (tok[6] != "path" || tok[7] != "delay") {
      reason = "expected 'path delay', got " + QuoteRaw(std::string(tok[6]) + " " + std::string(tok[7]));
      return false;
    }
    return ReadDelay(tok[8], "path delay", r, reason);
  }
  return true;
}

// phc2sys: `TARGET LABEL offset N sK freq F [delay D]`.
bool ParsePhc2sysOffset(const std::vector<std::string_view>& tok, PtpRecord& r, std::string& reason) {
  r.kind = PtpLineKind::kPhc2sysOffset;
  if (!HasSampleFields(tok, 7, "phc2sys offset", "CLOCK LABEL offset N sK freq F delay D", reason)) return false;
  if (!ParseOffsetStateFreq(tok, 3, false, r, reason)) return false;
  r.clock = std::string(tok[0]);
  r.source_label = std::string(tok[1]);
  if (tok.size() == 9) {
    if (tok[7] != "delay") {
      reason = "expected 'delay', got " + QuoteRaw(tok[7]);
      return false;
    }
    return ReadDelay(tok[8], "delay", r, reason);
  }
  return true;
}

// Summaries: `[CLOCK] rms R max M [freq F [+/- S]] [delay D [+/- S]]`.
bool ParseSummary(const std::vector<std::string_view>& tok, PtpRecord& r, std::string& reason) {
  r.kind = PtpLineKind::kSummary;
  size_t i = 0;
  if (tok[0] != "rms") r.clock = std::string(tok[i++]);
  auto num = [&](size_t k, const char* name, double& out) {
    if (k >= tok.size()) {
      reason = StringPrintf("summary ends before its %s value", name);
      return false;
    }
    const auto v = ParseDouble(tok[k]);
    if (!v || std::fabs(*v) > kMaxStat) {
      reason = StringPrintf("summary %s ", name) + QuoteRaw(tok[k]) + " is not a number";
      return false;
    }
    out = *v;
    return true;
  };
  // `word V [+/- S]` at i, when present: the value and its spread.
  auto mean_sd = [&](const char* word, const char* sd_name, double& mean, double& sd) {
    if (i >= tok.size() || tok[i] != word) return true;
    if (!num(i + 1, word, mean)) return false;
    i += 2;
    if (i < tok.size() && tok[i] == "+/-") {
      if (!num(i + 1, sd_name, sd)) return false;
      i += 2;
    }
    return true;
  };
  if (!num(i + 1, "rms", r.rms_ns)) return false;
  i += 2;
  if (i >= tok.size() || tok[i] != "max") {
    reason = "summary: expected 'max' after rms";
    return false;
  }
  if (!num(i + 1, "max", r.max_ns)) return false;
  i += 2;
  if (!mean_sd("freq", "freq +/-", r.freq_mean_ppb, r.freq_sd_ppb)) return false;
  if (!mean_sd("delay", "delay +/-", r.delay_mean_ns, r.delay_sd_ns)) return false;
  if (i != tok.size()) {
    reason = "summary has trailing text " + QuoteRaw(tok[i]);
    return false;
  }
  return true;
}

// Port state: `port N[ (ifname)]: FROM to TO on EVENT`; other port lines stay kOther.
bool ParsePortState(std::string_view msg, PtpRecord& r, std::string& reason) {
  const size_t colon = msg.find(':');
  if (colon == std::string_view::npos) return true;
  std::string_view head = Trim(msg.substr(4, colon - 4));
  const auto rest = SplitWhitespace(msg.substr(colon + 1));
  if (rest.size() != 5 || rest[1] != "to" || rest[3] != "on") return true;  // other port line
  std::string_view ifname;
  const size_t lp = head.find('(');
  if (lp != std::string_view::npos) {
    if (head.back() != ')') return true;
    ifname = head.substr(lp + 1, head.size() - lp - 2);
    head = Trim(head.substr(0, lp));
  }
  const auto port = ParseDecimal(head);
  r.kind = PtpLineKind::kPortState;
  if (!port || *port < 0 || *port > 65535) {
    reason = "port number " + QuoteRaw(head) + " is not 0..65535";
    return false;
  }
  r.port = static_cast<int>(*port);
  r.interface = std::string(ifname);
  r.from_state = std::string(rest[0]);
  r.to_state = std::string(rest[2]);
  r.event = std::string(rest[4]);
  return true;
}

// Parses the message of a sample/summary/port line into `r`. Returns false with `reason` when
// the message has a known shape but bad fields.
bool ParseMessage(std::string_view msg, PtpRecord& r, std::string& reason) {
  const auto tok = SplitWhitespace(msg);
  r.kind = PtpLineKind::kOther;
  if (tok.empty()) return true;
  if (tok.size() >= 2 && tok[0] == "master" && tok[1] == "offset") return ParseMasterOffset(tok, r, reason);
  if (tok.size() >= 3 && tok[2] == "offset" &&
      (tok[1] == "phc" || tok[1] == "sys" || tok[1] == "pps" || r.program == "phc2sys")) {
    return ParsePhc2sysOffset(tok, r, reason);
  }
  if (tok[0] == "rms" || (tok.size() >= 2 && tok[1] == "rms")) return ParseSummary(tok, r, reason);
  if (tok[0] == "port" && tok.size() >= 3) return ParsePortState(msg, r, reason);
  return true;
}

std::string FormatMonotonic(int64_t ns) {
  int64_t s = ns / kNsPerS;
  int64_t rem = ns % kNsPerS;
  if (rem < 0) {
    rem += kNsPerS;
    --s;
  }
  return StringPrintf("%lld.%03lld", static_cast<long long>(s), static_cast<long long>(rem / 1000000));
}

std::string FormatBody(const PtpRecord& r) {
  switch (r.kind) {
    case PtpLineKind::kMasterOffset: {
      std::string s = StringPrintf("master offset %10lld s%d freq %+7.0f", static_cast<long long>(r.offset_ns),
                             r.servo_state, r.freq_ppb);
      if (r.delay_ns) s += StringPrintf(" path delay %9lld", static_cast<long long>(*r.delay_ns));
      return s;
    }
    case PtpLineKind::kPhc2sysOffset: {
      std::string s = r.clock + " " + r.source_label +
                      StringPrintf(" offset %9lld s%d freq %+7.0f", static_cast<long long>(r.offset_ns),
                             r.servo_state, r.freq_ppb);
      if (r.delay_ns) s += StringPrintf(" delay %6lld", static_cast<long long>(*r.delay_ns));
      return s;
    }
    case PtpLineKind::kSummary: {
      std::string s = r.clock.empty() ? std::string() : r.clock + " ";
      s += StringPrintf("rms %4.0f max %4.0f", r.rms_ns, r.max_ns);
      if (!std::isnan(r.freq_mean_ppb)) {
        s += StringPrintf(" freq %+6.0f", r.freq_mean_ppb);
        if (!std::isnan(r.freq_sd_ppb)) s += StringPrintf(" +/- %3.0f", r.freq_sd_ppb);
      }
      if (!std::isnan(r.delay_mean_ns)) {
        s += StringPrintf(" delay %5.0f", r.delay_mean_ns);
        if (!std::isnan(r.delay_sd_ns)) s += StringPrintf(" +/- %3.0f", r.delay_sd_ns);
      }
      return s;
    }
    case PtpLineKind::kPortState: {
      std::string s = "port " + std::to_string(r.port);
      if (!r.interface.empty()) s += " (" + r.interface + ")";
      return s + ": " + r.from_state + " to " + r.to_state + " on " + r.event;
    }
    case PtpLineKind::kOther:
      break;
  }
  return r.message;
}

// The prefix a line is read with. A prefix-shaped text with a malformed time or process id counts
// as a prefix (`*bad_time`: its samples are rejected) only when its message is a linuxptp line;
// before any other text it is no prefix and the line is kept whole as text.
Prefix ReadPrefix(std::string_view t, bool* bad_time) {
  Prefix p = FindPrefix(t);
  *bad_time = false;
  if (p.found && p.bad_time) {
    PtpRecord probe;
    std::string ignored;
    probe.program = std::string(p.program);
    std::string_view probe_msg = p.rest;
    StripTags(probe_msg);
    ParseMessage(probe_msg, probe, ignored);
    if (probe.kind == PtpLineKind::kOther) {
      p = Prefix{};
    } else {
      *bad_time = true;
    }
  }
  return p;
}

}  // namespace

std::string_view PtpLineKindName(PtpLineKind kind) {
  static constexpr NamedValue<PtpLineKind> kNames[] = {
      {PtpLineKind::kMasterOffset, "master-offset"}, {PtpLineKind::kPhc2sysOffset, "phc2sys-offset"},
      {PtpLineKind::kSummary, "summary"}, {PtpLineKind::kPortState, "port-state"}};
  return NameIn(kNames, kind, "other");
}

std::string PtpRecord::StateText() const {
  return servo_state < 0 ? std::string() : "s" + std::to_string(servo_state);
}

namespace {

// The clock-quality sample of a summary line (see sync_point.h); nullopt without a monotonic time.
std::optional<SyncPoint> SummaryPoint(const PtpRecord& r, std::string_view host) {
  if (r.monotonic_ns == kNoTime) return std::nullopt;
  SyncPoint p;
  const bool phc2sys = r.program == "phc2sys" || (r.program.empty() && !r.clock.empty());
  p.host = r.host.empty() ? std::string(host) : r.host;
  p.local_ns = r.monotonic_ns;
  p.source = phc2sys ? "phc2sys-summary" : "ptp4l-summary";
  p.line = r.line;
  p.reference = phc2sys ? "" : "master";
  p.clock = phc2sys ? r.clock : r.tag;
  p.freq_ppb = r.freq_mean_ppb;
  p.freq_sd_ppb = r.freq_sd_ppb;
  p.offset_rms_ns = r.rms_ns;
  p.offset_max_ns = r.max_ns;
  return p;
}

}  // namespace

std::optional<SyncPoint> ToSyncPoint(const PtpRecord& r, std::string_view host) {
  if (r.kind == PtpLineKind::kSummary) return SummaryPoint(r, host);
  if (r.kind != PtpLineKind::kMasterOffset && r.kind != PtpLineKind::kPhc2sysOffset) {
    return std::nullopt;
  }
  if (r.monotonic_ns == kNoTime) return std::nullopt;
  // SyncPoint keeps the offset as a double: beyond 2^53 ns (104 days) it is neither exact nor a
  // clock offset.
  constexpr int64_t kMaxExactNs = int64_t{1} << 53;
  if (r.offset_ns > kMaxExactNs || r.offset_ns < -kMaxExactNs) return std::nullopt;
  SyncPoint p;
  int64_t ref = 0;
  if (__builtin_sub_overflow(r.monotonic_ns, r.offset_ns, &ref) || ref == kNoTime) {
    return std::nullopt;
  }
  p.host = r.host.empty() ? std::string(host) : r.host;
  p.local_ns = r.monotonic_ns;
  p.ref_ns = ref;
  p.offset_ns = static_cast<double>(r.offset_ns);
  if (r.delay_ns && *r.delay_ns >= 0) p.uncertainty_ns = static_cast<double>(*r.delay_ns) / 2;
  const bool ptp4l = r.kind == PtpLineKind::kMasterOffset;
  p.source = ptp4l ? "ptp4l" : "phc2sys";
  p.state = r.StateText();
  p.synced = r.Locked();
  p.line = r.line;
  p.reference = ptp4l ? "master" : r.source_label;
  p.clock = ptp4l ? r.tag : r.clock;
  p.freq_ppb = r.freq_ppb;
  return p;
}

Status ReadPtpLog(LineReader& lines, std::string_view source, std::string_view host, const PtpSinks& sinks,
                  Diagnostics& diag, ReadCounts& counts) {
  int64_t recognised = 0;                              // lines with a linuxptp prefix or a sample/summary/port shape
  std::unordered_map<std::string, int64_t> last_time;  // per program[pid]
  std::string key;
  LogLines log(lines);
  std::string_view raw, t;
  while (log.Next(&raw, &t)) {
    const int64_t ln = log.line_number();
    ++counts.read;
    auto reject = [&](const std::string& reason) {
      ++counts.rejected;
      diag.Reject(source, ln, raw, reason);
    };
    PtpRecord r;
    r.line = ln;
    // A malformed time or process id in a prefix: samples are rejected below; any other line is kept whole,
    // as text without a prefix.
    bool bad_time = false;
    Prefix p = ReadPrefix(t, &bad_time);
    std::string_view msg = t;
    if (p.found) {
      r.program = std::string(p.program);
      r.pid = p.pid;
      r.monotonic_ns = p.monotonic_ns;
      msg = p.rest;
      if (!p.header.empty()) {
        const auto h = SplitWhitespace(p.header);
        if (h.size() >= 2) {
          r.host = std::string(h.back());
          r.syslog_time =
              std::string(Trim(p.header.substr(0, static_cast<size_t>(h.back().data() - p.header.data()))));
        } else {
          r.syslog_time = std::string(p.header);
        }
      }
    }
    // Message tags: `[ptp4l.0.config] `, `[ens7f0] `.
    r.tag = StripTags(msg);
    r.message = std::string(msg);
    std::string reason;
    const bool ok = ParseMessage(msg, r, reason);
    if (p.found || r.kind != PtpLineKind::kOther) ++recognised;
    if (!ok) {
      reject(reason);
      continue;
    }
    if (bad_time) {
      reject("malformed monotonic time or process id in the prefix");
      continue;
    }
    const bool sample = r.kind == PtpLineKind::kMasterOffset || r.kind == PtpLineKind::kPhc2sysOffset;
    std::optional<SyncPoint> sp;
    if (sample) {
      if (r.monotonic_ns == kNoTime) {
        diag.Warn(source, ln, raw, "sample without a monotonic time: no sync point");
      } else {
        sp = ToSyncPoint(r, host);
        if (!sp) {
          reject("offset " + std::to_string(r.offset_ns) + " overflows the time axis or exceeds 2^53 ns");
          continue;
        }
      }
      if (r.kind == PtpLineKind::kMasterOffset && r.delay_ns && *r.delay_ns < 0) {
        diag.Warn(source, ln, raw, "negative path delay: no uncertainty");
      }
    }
    if (r.kind == PtpLineKind::kSummary) {
      if (r.monotonic_ns == kNoTime) {
        diag.Warn(source, ln, raw, "summary without a monotonic time: no clock-quality sample");
      } else {
        sp = ToSyncPoint(r, host);
      }
    }
    if (r.monotonic_ns != kNoTime) {
      key.assign(r.program);
      key += '[';
      key += std::to_string(r.pid);
      auto [it, fresh] = last_time.try_emplace(key, r.monotonic_ns);
      if (!fresh) {
        if (r.monotonic_ns < it->second) {
          diag.Warn(source, ln, raw,
                    "monotonic time goes backwards (by " +
                        FormatFixed(static_cast<double>(it->second - r.monotonic_ns) / 1e9, 3) + " s)");
        }
        it->second = r.monotonic_ns;
      }
    }
    log.CheckRepeat(source, diag);
    ++counts.accepted;
    if (sinks.record) sinks.record(r);
    if (sp && sinks.sync) sinks.sync(*sp);
  }
  if (const Error* e = lines.error()) return *e;
  if (log.nonblank() == 0) {
    return MakeError(std::string(source), 0, 0, "empty input", "expected ptp4l/phc2sys output");
  }
  if (recognised == 0) {
    return MakeError(std::string(source), 0, 0,
                     "not a linuxptp log: no 'ptp4l[..]:' prefix and no sample line",
                     "expected lines like 'ptp4l[48.343]: master offset 5 s2 freq +83715 path "
                     "delay 484'");
  }
  return {};
}

Status ReadPtpLogText(std::string_view text, std::string_view source, std::string_view host,
                      const PtpSinks& sinks, Diagnostics& diag, ReadCounts& counts) {
  LineReader lines = TextLineReader(text, std::string(source));
  return ReadPtpLog(lines, source, host, sinks, diag, counts);
}

Result<PtpLog> ParsePtpLog(std::string_view text, std::string_view source, std::string_view host,
                           Diagnostics& diag, ReadCounts& counts) {
  PtpLog log;
  PtpSinks sinks;
  sinks.record = [&](const PtpRecord& r) { log.records.push_back(r); };
  sinks.sync = [&](const SyncPoint& p) { log.sync_points.push_back(p); };
  const Status st = ReadPtpLogText(text, source, host, sinks, diag, counts);
  if (!st.ok()) return st.error();
  return log;
}

std::string FormatPtp4lSampleLine(int64_t monotonic_ns, int64_t offset_ns, int servo_state, double freq_ppb,
                                  int64_t path_delay_ns) {
  return "ptp4l[" + FormatMonotonic(monotonic_ns) + "]: " +
         StringPrintf("master offset %10lld s%d freq %+7.0f path delay %9lld", static_cast<long long>(offset_ns),
                servo_state, freq_ppb, static_cast<long long>(path_delay_ns));
}

std::string FormatPhc2sysSampleLine(int64_t monotonic_ns, std::string_view target,
                                    std::string_view source_label, int64_t offset_ns, int servo_state,
                                    double freq_ppb, std::optional<int64_t> delay_ns) {
  PtpRecord r;
  r.kind = PtpLineKind::kPhc2sysOffset;
  r.clock = std::string(target);
  r.source_label = std::string(source_label);
  r.offset_ns = offset_ns;
  r.servo_state = servo_state;
  r.freq_ppb = freq_ppb;
  r.delay_ns = delay_ns;
  return "phc2sys[" + FormatMonotonic(monotonic_ns) + "]: " + FormatBody(r);
}

std::string FormatPtpRecord(const PtpRecord& r) {
  std::string program = r.program;
  if (program.empty()) program = r.kind == PtpLineKind::kPhc2sysOffset ? "phc2sys" : "ptp4l";
  std::string out;
  if (!r.syslog_time.empty()) out += r.syslog_time + " ";
  if (!r.host.empty()) out += r.host + " ";
  if (r.pid >= 0) {
    // syslog / journal form.
    out += program + "[" + std::to_string(r.pid) + "]: ";
    if (r.monotonic_ns != kNoTime) out += "[" + FormatMonotonic(r.monotonic_ns) + "] ";
  } else if (r.monotonic_ns != kNoTime) {
    out += program + "[" + FormatMonotonic(r.monotonic_ns) + "]: ";
  }
  // Tags after a prefix are spaced as linuxptp prints them. Without a prefix they are run together
  // with the text (`[rank0]p4l[x]: ...` spaced would read as a `p4l[x]:` prefix), unless only the
  // spaced form reads without a prefix, as the record was read (a `[tag]  x[1.2q]: ...` line).
  const bool prefixed = r.pid >= 0 || r.monotonic_ns != kNoTime;
  std::string tags;
  for (const auto part : SplitWhitespace(r.tag)) tags += "[" + std::string(part) + (prefixed ? "] " : "]");
  const std::string body = FormatBody(r);
  if (!prefixed && !tags.empty() && out.empty()) {
    bool bad_time = false;
    if (ReadPrefix(tags + body, &bad_time).found && !ReadPrefix(tags + " " + body, &bad_time).found) {
      return tags + " " + body;
    }
  }
  return out + tags + body;
}

std::string WritePtpLog(const std::vector<PtpRecord>& records) { return JoinLines(records, FormatPtpRecord); }

}  // namespace toposcope::formats
