// formats/clock/chrony: readers of chronyd's tracking/statistics/measurements logs and of chronyc's
// tracking/sources/sourcestats output; tracking.log writer.
//
// Log lines are split on whitespace (chrony pads the IP column to 15 but longer names push the
// rest right). The kind of a log is told by its banner title, else by the shape of the first data
// line:
//   tracking      14 fields (13 before the `Max. error` column): date time ip St Freq Skew Offset
//                 L Co sd rem rootdelay rootdisp [maxerr]; field 8 is the leap character.
//   statistics    13 fields (12 before `Asym`): date time ip and 10 numbers.
//   measurements  20 fields (17 before `Refid`/`MTxRx`): date time ip L St 123 567 ABCD LP RP
//                 Score Offset Peerdel Peerdisp Rootdel Rootdisp [Refid M+B/I TX RX].
#include "toposcope/formats/clock/chrony.h"

#include <cstdarg>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <utility>

#include "toposcope/base/ip_address.h"
#include "toposcope/base/text.h"
#include "toposcope/formats/clock/log_lines.h"

namespace toposcope::formats {
namespace {

constexpr double kMaxOffsetS = 3.2e9;  // ~100 years: keeps local_ns within int64
constexpr double kMaxSeconds = 1e9;    // delays, dispersions, deviations
constexpr double kMaxPpm = 1e6;        // frequencies and skews
constexpr int kMaxStratum = 16;



bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A decimal integer with an optional sign, within [lo, hi].
std::optional<int64_t> ParseDecimal(std::string_view s, int64_t lo, int64_t hi) {
  std::string_view d = s;
  if (!d.empty() && (d[0] == '-' || d[0] == '+')) d.remove_prefix(1);
  if (!AllDigits(d) || d.size() > 18) return std::nullopt;
  const auto v = ParseInt(s);
  if (!v || *v < lo || *v > hi) return std::nullopt;
  return v;
}

bool IsLeapChar(std::string_view s) {
  return s.size() == 1 && (s[0] == 'N' || s[0] == '+' || s[0] == '-' || s[0] == '?');
}

bool LooksLikeDate(std::string_view s) { return s.size() == 10 && s[4] == '-' && s[7] == '-'; }

// `YYYY-MM-DD` `HH:MM:SS` (UTC) -> ns since the epoch.
std::optional<int64_t> ParseLogTime(std::string_view date, std::string_view time) {
  if (!LooksLikeDate(date) || time.size() != 8 || time[2] != ':' || time[5] != ':') {
    return std::nullopt;
  }
  const auto y = ParseDecimal(date.substr(0, 4), 1900, 2261);  // int64 ns end in 2262
  const auto mo = ParseDecimal(date.substr(5, 2), 1, 12);
  const auto d = ParseDecimal(date.substr(8, 2), 1, 31);
  const auto h = ParseDecimal(time.substr(0, 2), 0, 23);
  const auto mi = ParseDecimal(time.substr(3, 2), 0, 59);
  const auto s = ParseDecimal(time.substr(6, 2), 0, 59);  // gmtime() never gives :60
  if (!y || !mo || !d || !h || !mi || !s) return std::nullopt;
  for (const std::string_view part : {date.substr(0, 4), date.substr(5, 2), date.substr(8, 2),
                                      time.substr(0, 2), time.substr(3, 2), time.substr(6, 2)}) {
    if (!AllDigits(part)) return std::nullopt;
  }
  static constexpr int kDaysIn[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap_year = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
  if (*d > kDaysIn[*mo - 1] || (*mo == 2 && *d == 29 && !leap_year)) return std::nullopt;
  const int64_t days = DaysFromCivil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d));
  return ((days * 24 + *h) * 60 + *mi) * 60 * int64_t{1000000000} + *s * int64_t{1000000000};
}

// Civil date of a day number (inverse of DaysFromCivil, H. Hinnant's algorithm).
void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
}

// `YYYY-MM-DD HH:MM:SS` of ns since the epoch (sub-seconds dropped, rounding down).
std::string FormatLogTime(int64_t ns) {
  int64_t secs = ns / 1000000000;
  if (ns % 1000000000 < 0) --secs;
  int64_t days = secs / 86400;
  int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  int64_t y = 0;
  unsigned m = 0;
  unsigned d = 0;
  CivilFromDays(days, y, m, d);
  return StringPrintf("%04lld-%02u-%02u %02lld:%02lld:%02lld", static_cast<long long>(y), m, d,
                static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60),
                static_cast<long long>(rem % 60));
}

// Field parsing that records the first failure as a reason.
struct Fields {
  const std::vector<std::string_view>& tok;
  std::string reason;

  bool Fail(std::string r) {
    if (reason.empty()) reason = std::move(r);
    return false;
  }
  bool Num(size_t i, const char* name, double lo, double hi, double& out) {
    const auto v = ParseDouble(tok[i]);
    if (!v) return Fail(StringPrintf("%s %s is not a number", name, QuoteRaw(tok[i]).c_str()));
    if (*v < lo || *v > hi) {
      return Fail(StringPrintf("%s %s is out of range [%g, %g]", name, QuoteRaw(tok[i]).c_str(), lo, hi));
    }
    out = *v;
    return true;
  }
  bool Int(size_t i, const char* name, int64_t lo, int64_t hi, int& out) {
    const auto v = ParseDecimal(tok[i], lo, hi);
    if (!v) {
      return Fail(StringPrintf("%s %s is not an integer in [%lld, %lld]", name, QuoteRaw(tok[i]).c_str(),
                         static_cast<long long>(lo), static_cast<long long>(hi)));
    }
    out = static_cast<int>(*v);
    return true;
  }
  bool Time(int64_t& out) {
    const auto t = ParseLogTime(tok[0], tok[1]);
    if (!t) {
      return Fail("bad date/time " + QuoteRaw(std::string(tok[0]) + " " + std::string(tok[1])) +
                  " (want YYYY-MM-DD HH:MM:SS)");
    }
    out = *t;
    return true;
  }
  bool Ip(std::string& out) {
    if (HasControlChars(tok[2]) || tok[2].size() > 255) return Fail("bad address " + QuoteRaw(tok[2]));
    out = std::string(tok[2]);
    return true;
  }
  bool Leap(size_t i, char& out) {
    if (!IsLeapChar(tok[i])) return Fail("leap " + QuoteRaw(tok[i]) + " is not one of N + - ?");
    out = tok[i][0];
    return true;
  }
};

// The kind a data line looks like, from its field count and shape.
ChronyLogKind ShapeOf(const std::vector<std::string_view>& tok) {
  if (tok.size() < 12 || !LooksLikeDate(tok[0])) return ChronyLogKind::kUnknown;
  const size_t n = tok.size();
  if ((n == 14 || n == 13) && IsLeapChar(tok[7])) return ChronyLogKind::kTracking;
  if ((n == 13 || n == 12) && !IsLeapChar(tok[3]) && !IsLeapChar(tok[7])) {
    return ChronyLogKind::kStatistics;
  }
  if ((n == 20 || n == 17) && IsLeapChar(tok[3]) && tok[5].size() == 3) {
    return ChronyLogKind::kMeasurements;
  }
  return ChronyLogKind::kUnknown;
}

// A data line of `n_full` fields (`n_short` in the older layout) read by `fill(f, r)` into a
// `Record`; nullopt with `reason` when the count is off (`count_reason` says what it should be, after
// "<N> fields, expected ") or a field is bad.
template <class Record, class FillFn>
std::optional<Record> ReadLogFields(const std::vector<std::string_view>& tok, size_t n_full, size_t n_short,
                                    const char* log_name, const char* count_reason, std::string& reason,
                                    FillFn&& fill) {
  if (tok.size() != n_full && tok.size() != n_short) {
    reason = StringPrintf("%s line has %zu fields, expected %s", log_name, tok.size(), count_reason);
    return std::nullopt;
  }
  Record r;
  Fields f{tok, {}};
  fill(f, r);
  if (!f.reason.empty()) {
    reason = std::move(f.reason);
    return std::nullopt;
  }
  return r;
}

std::optional<ChronyTrackingRecord> ParseTrackingLine(const std::vector<std::string_view>& tok, std::string& reason) {
  return ReadLogFields<ChronyTrackingRecord>(
      tok, 14, 13, "tracking.log", "14 (13 without Max. error)", reason, [&](Fields& f, ChronyTrackingRecord& r) {
        (void)(f.Time(r.time_ns) && f.Ip(r.ip) && f.Int(3, "St", 0, kMaxStratum, r.stratum) &&
               f.Num(4, "Freq ppm", -kMaxPpm, kMaxPpm, r.freq_ppm) && f.Num(5, "Skew ppm", 0, kMaxPpm, r.skew_ppm) &&
               f.Num(6, "Offset", -kMaxOffsetS, kMaxOffsetS, r.offset_s) && f.Leap(7, r.leap) &&
               f.Int(8, "Co", 0, 1000000, r.combined) && f.Num(9, "Offset sd", 0, kMaxSeconds, r.offset_sd_s) &&
               f.Num(10, "Rem. corr.", -kMaxOffsetS, kMaxOffsetS, r.remaining_correction_s) &&
               f.Num(11, "Root delay", -kMaxSeconds, kMaxSeconds, r.root_delay_s) &&
               f.Num(12, "Root disp.", 0, kMaxSeconds, r.root_dispersion_s) &&
               (tok.size() == 13 || f.Num(13, "Max. error", 0, kMaxSeconds, r.max_error_s)));
      });
}

std::optional<ChronyStatisticsRecord> ParseStatisticsLine(const std::vector<std::string_view>& tok,
                                                          std::string& reason) {
  return ReadLogFields<ChronyStatisticsRecord>(
      tok, 13, 12, "statistics.log", "13 (12 without Asym)", reason, [&](Fields& f, ChronyStatisticsRecord& r) {
        (void)(f.Time(r.time_ns) && f.Ip(r.ip) && f.Num(3, "Std dev'n", 0, kMaxSeconds, r.std_dev_s) &&
               f.Num(4, "Est offset", -kMaxOffsetS, kMaxOffsetS, r.est_offset_s) &&
               f.Num(5, "Offset sd", 0, kMaxSeconds, r.offset_sd_s) && f.Num(6, "Diff freq", -1, 1, r.diff_freq) &&
               f.Num(7, "Est skew", 0, 1, r.est_skew) && f.Num(8, "Stress", 0, 1e300, r.stress) &&
               f.Int(9, "Ns", 0, 1000000, r.ns) && f.Int(10, "Bs", 0, 1000000, r.bs) &&
               f.Int(11, "Nr", 0, 1000000, r.nr) && (tok.size() == 12 || f.Num(12, "Asym", -1, 1, r.asym)));
      });
}

bool IsTestDigits(std::string_view s, size_t n) {
  if (s.size() != n) return false;
  for (const char c : s) {
    if (c != '0' && c != '1') return false;
  }
  return true;
}

bool IsTsSource(std::string_view s) { return s == "D" || s == "K" || s == "H" || s == "-"; }

// The test flags of a measurements line (fields 5-7).
void ReadTestFlags(Fields& f, ChronyMeasurementsRecord& r) {
  const auto& tok = f.tok;
  if (!IsTestDigits(tok[5], 3) || !IsTestDigits(tok[6], 3) || !IsTestDigits(tok[7], 4)) {
    f.Fail("test flags " + QuoteRaw(std::string(tok[5]) + " " + std::string(tok[6]) + " " + std::string(tok[7])) +
           " are not 3+3+4 digits 0/1");
  } else {
    r.tests_123 = std::string(tok[5]);
    r.tests_567 = std::string(tok[6]);
    r.tests_abcd = std::string(tok[7]);
  }
}

// The refid and mode/timestamp sources of a chrony >= 3.0 measurements line (fields 16-19).
void ReadRefidAndTxRx(Fields& f, ChronyMeasurementsRecord& r) {
  const auto& tok = f.tok;
  const std::string_view refid = tok[16];
  bool hex = refid.size() == 8;
  for (const char c : refid) {
    hex = hex && (IsDigit(c) || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f'));
  }
  const std::string_view m = tok[17];
  if (!hex) {
    f.Fail("Refid " + QuoteRaw(refid) + " is not 8 hex digits");
  } else if (m.size() != 2 || !IsDigit(m[0]) || (m[1] != 'B' && m[1] != 'I') || !IsTsSource(tok[18]) ||
             !IsTsSource(tok[19])) {
    f.Fail("MTxRx " + QuoteRaw(std::string(m) + " " + std::string(tok[18]) + " " + std::string(tok[19])) +
           " is not <mode><B|I> <D|K|H> <D|K|H>");
  } else {
    r.refid = static_cast<uint32_t>(*ParseInt("0x" + std::string(refid)));
    r.has_refid = true;
    r.mode_txrx = std::string(m) + " " + std::string(tok[18]) + " " + std::string(tok[19]);
  }
}

std::optional<ChronyMeasurementsRecord> ParseMeasurementsLine(const std::vector<std::string_view>& tok,
                                                              std::string& reason) {
  return ReadLogFields<ChronyMeasurementsRecord>(
      tok, 20, 17, "measurements.log", "20 (17 before chrony 3.0)", reason,
      [&](Fields& f, ChronyMeasurementsRecord& r) {
        (void)(f.Time(r.time_ns) && f.Ip(r.ip) && f.Leap(3, r.leap) && f.Int(4, "St", 0, kMaxStratum, r.stratum));
        if (f.reason.empty()) ReadTestFlags(f, r);
        (void)(f.reason.empty() && f.Int(8, "LP", -32, 32, r.local_poll) && f.Int(9, "RP", -32, 32, r.remote_poll) &&
               f.Num(10, "Score", 0, 1e6, r.score) && f.Num(11, "Offset", -kMaxOffsetS, kMaxOffsetS, r.offset_s) &&
               f.Num(12, "Peer del.", -kMaxSeconds, kMaxSeconds, r.peer_delay_s) &&
               f.Num(13, "Peer disp.", 0, kMaxSeconds, r.peer_dispersion_s) &&
               f.Num(14, "Root del.", -kMaxSeconds, kMaxSeconds, r.root_delay_s) &&
               f.Num(15, "Root disp.", 0, kMaxSeconds, r.root_dispersion_s));
        if (f.reason.empty() && tok.size() == 20) ReadRefidAndTxRx(f, r);
      });
}

// Title line of a banner -> the log kind (kUnknown for other chrony logs: refclocks, rtc, ...).
bool IsTitleLine(std::string_view line, ChronyLogKind& kind) {
  const std::string_view t = Trim(line);
  if (!StartsWith(t, "Date (UTC) Time")) return false;
  if (Contains(t, "Freq ppm") && Contains(t, "Offset sd")) {
    kind = ChronyLogKind::kTracking;
  } else if (Contains(t, "Std dev'n") && Contains(t, "Est offset")) {
    kind = ChronyLogKind::kStatistics;
  } else if (Contains(t, "Peer del.") && Contains(t, "Score")) {
    kind = ChronyLogKind::kMeasurements;
  } else {
    kind = ChronyLogKind::kUnknown;
  }
  return true;
}

bool IsRuleLine(std::string_view line) {
  const std::string_view t = Trim(line);
  if (t.size() < 10) return false;
  for (const char c : t) {
    if (c != '=') return false;
  }
  return true;
}

int64_t Ns(double s) { return static_cast<int64_t>(std::llround(s * 1e9)); }

}  // namespace

std::string_view ChronyLogKindName(ChronyLogKind kind) {
  static constexpr NamedValue<ChronyLogKind> kNames[] = {
      {ChronyLogKind::kTracking, "tracking"}, {ChronyLogKind::kStatistics, "statistics"},
      {ChronyLogKind::kMeasurements, "measurements"}};
  return NameIn(kNames, kind, "unknown");
}

bool ChronyMeasurementsRecord::AllTestsPassed() const {
  return tests_123 == "111" && tests_567 == "111" && tests_abcd == "1111";
}

namespace {

// What the sync point of any chrony record holds: the host, the record's time as the reference
// time, its line and source IP; `log` names the log ("chrony-tracking").
template <class Record>
SyncPoint ChronySyncPoint(const Record& r, std::string_view host, const char* log) {
  SyncPoint p;
  p.host = std::string(host);
  p.ref_ns = r.time_ns;
  p.source = log;
  p.line = r.line;
  p.reference = r.ip;
  return p;
}

}  // namespace

SyncPoint ToSyncPoint(const ChronyTrackingRecord& r, std::string_view host) {
  SyncPoint p = ChronySyncPoint(r, host, "chrony-tracking");
  p.offset_ns = r.offset_s * 1e9;  // + = local fast of UTC
  p.local_ns = r.time_ns + Ns(r.offset_s);
  p.uncertainty_ns = r.Synced() ? r.offset_sd_s * 1e9 : NAN;
  p.state = std::string(1, r.leap);
  p.synced = r.Synced();
  return p;
}

SyncPoint ToSyncPoint(const ChronyStatisticsRecord& r, std::string_view host) {
  SyncPoint p = ChronySyncPoint(r, host, "chrony-statistics");
  p.offset_ns = r.est_offset_s * 1e9;  // + = local fast of the source
  p.local_ns = r.time_ns + Ns(r.est_offset_s);
  p.uncertainty_ns = r.offset_sd_s * 1e9;
  p.synced = true;
  return p;
}

SyncPoint ToSyncPoint(const ChronyMeasurementsRecord& r, std::string_view host) {
  SyncPoint p = ChronySyncPoint(r, host, "chrony-measurements");
  p.offset_ns = -r.offset_s * 1e9;  // theta + = local SLOW: opposite sign
  p.local_ns = r.time_ns - Ns(r.offset_s);
  p.uncertainty_ns = r.peer_delay_s >= 0 ? r.peer_delay_s * 1e9 / 2 : NAN;
  p.state = std::string(1, r.leap);
  p.synced = r.leap != '?' && r.stratum != 0;
  return p;
}

namespace {

// The banner (title line) of a chrony log: switches the kind of the lines that follow. Returns the
// new kind; `title_unknown` tells whether it is the banner of a log this reader does not read.
ChronyLogKind ReadBanner(ChronyLogKind title_kind, ChronyLogKind kind, bool& title_unknown, std::string_view source,
                         int64_t ln, std::string_view raw, Diagnostics& diag) {
  if (title_kind == ChronyLogKind::kUnknown) {
    title_unknown = true;
    diag.Warn(source, ln, raw, "banner of a chrony log this reader does not read");
    return kind;
  }
  title_unknown = false;
  if (kind != ChronyLogKind::kUnknown && kind != title_kind) {
    diag.Warn(source, ln, raw,
              StringPrintf("banner switches the log from %s to %s", std::string(ChronyLogKindName(kind)).c_str(),
                           std::string(ChronyLogKindName(title_kind)).c_str()));
  }
  return title_kind;
}

// A data line of a chrony log as a record of its kind.
struct ChronyLine {
  int64_t ln;
  std::string_view raw;
  const std::vector<std::string_view>& tok;
};

// Stamps a parsed record with its line, notes its time and sends it to `sink` and its sync point to
// sinks.sync.
template <class Record, class Sink>
void SendChronyRecord(Record& r, int64_t ln, const Sink& sink, const ChronyLogSinks& sinks, std::string_view host,
                      int64_t& time_ns) {
  r.line = ln;
  time_ns = r.time_ns;
  if (sink) sink(r);
  if (sinks.sync) sinks.sync(ToSyncPoint(r, host));
}

// Parses a data line of a `kind` log, sends the record and its sync point to the sinks, and sets
// its time and (statistics, measurements) its source IP; "" when accepted, else why not.
// `last_tracking_ns`, the time of the previous tracking record, warns when time goes backwards.
std::string ReadChronyRecord(ChronyLogKind kind, const ChronyLine& l, std::string_view source, std::string_view host,
                             const ChronyLogSinks& sinks, Diagnostics& diag, int64_t& last_tracking_ns,
                             int64_t& time_ns, std::string& ip) {
  std::string reason;
  if (kind == ChronyLogKind::kTracking) {
    if (auto r = ParseTrackingLine(l.tok, reason)) {
      if (last_tracking_ns != kNoTime && r->time_ns < last_tracking_ns) {
        diag.Warn(source, l.ln, l.raw,
                  "time goes backwards (by " +
                      FormatFixed(static_cast<double>(last_tracking_ns - r->time_ns) / 1e9, 0) + " s)");
      }
      last_tracking_ns = r->time_ns;
      SendChronyRecord(*r, l.ln, sinks.tracking, sinks, host, time_ns);
    }
  } else if (kind == ChronyLogKind::kStatistics) {
    if (auto r = ParseStatisticsLine(l.tok, reason)) {
      ip = r->ip;
      SendChronyRecord(*r, l.ln, sinks.statistics, sinks, host, time_ns);
    }
  } else if (auto r = ParseMeasurementsLine(l.tok, reason)) {
    ip = r->ip;
    SendChronyRecord(*r, l.ln, sinks.measurements, sinks, host, time_ns);
  }
  return reason;
}

}  // namespace

Result<ChronyLogKind> ReadChronyLog(LineReader& lines, std::string_view source, std::string_view host,
                                    ChronyLogKind kind, const ChronyLogSinks& sinks, Diagnostics& diag,
                                    ReadCounts& counts) {
  const ChronyLogKind first_kind = kind;
  bool title_unknown = false;  // the last title was of a log we do not read
  int64_t banners = 0;
  int64_t accepted_here = 0;
  int64_t last_tracking_ns = kNoTime;
  std::unordered_map<std::string, int64_t> last_by_source;
  LogLines log(lines);
  std::string_view raw, t;
  while (log.Next(&raw, &t)) {
    const int64_t ln = log.line_number();
    if (IsRuleLine(t)) continue;
    ChronyLogKind title_kind = ChronyLogKind::kUnknown;
    if (IsTitleLine(t, title_kind)) {
      ++banners;
      kind = ReadBanner(title_kind, kind, title_unknown, source, ln, raw, diag);
      continue;
    }
    ++counts.read;
    const auto tok = SplitWhitespace(t);
    const ChronyLogKind shape = ShapeOf(tok);
    if (kind == ChronyLogKind::kUnknown && !title_unknown) kind = shape;
    std::string reason;
    if (title_unknown) {
      reason = "line of a chrony log this reader does not read (see the banner)";
    } else if (kind == ChronyLogKind::kUnknown) {
      reason = "not a chrony tracking/statistics/measurements log line";
    } else if (shape != ChronyLogKind::kUnknown && shape != kind) {
      reason = StringPrintf("a %s.log line in a %s.log", std::string(ChronyLogKindName(shape)).c_str(),
                            std::string(ChronyLogKindName(kind)).c_str());
    }
    int64_t time_ns = kNoTime;
    std::string ip;
    if (reason.empty()) {
      reason = ReadChronyRecord(kind, {ln, raw, tok}, source, host, sinks, diag, last_tracking_ns, time_ns, ip);
    }
    if (!reason.empty()) {
      ++counts.rejected;
      diag.Reject(source, ln, raw, reason);
      continue;
    }
    ++counts.accepted;
    ++accepted_here;
    if (!ip.empty()) {
      auto [it, fresh] = last_by_source.try_emplace(ip, time_ns);
      if (!fresh) {
        if (time_ns < it->second) {
          diag.Warn(source, ln, raw,
                    "time of source " + ClipRaw(ip, 60) + " goes backwards (by " +
                        FormatFixed(static_cast<double>(it->second - time_ns) / 1e9, 0) + " s)");
        }
        it->second = time_ns;
      }
    }
    log.CheckRepeat(source, diag);
  }
  if (const Error* e = lines.error()) return *e;
  if (log.nonblank() == 0) {
    return MakeError(std::string(source), 0, 0, "empty input", "expected a chrony log file");
  }
  if (accepted_here == 0 && banners == 0) {
    return MakeError(std::string(source), 0, 0, "not a chrony log: no banner and no data line",
                     "expected tracking.log, statistics.log or measurements.log");
  }
  if (kind == ChronyLogKind::kUnknown) kind = first_kind;
  return kind;
}

Result<ChronyLogKind> ReadChronyLogText(std::string_view text, std::string_view source, std::string_view host,
                                        ChronyLogKind kind, const ChronyLogSinks& sinks, Diagnostics& diag,
                                        ReadCounts& counts) {
  LineReader lines = TextLineReader(text, std::string(source));
  return ReadChronyLog(lines, source, host, kind, sinks, diag, counts);
}

Result<ChronyLog> ParseChronyLog(std::string_view text, std::string_view source, std::string_view host,
                                 Diagnostics& diag, ReadCounts& counts, ChronyLogKind kind) {
  ChronyLog log;
  ChronyLogSinks sinks;
  sinks.tracking = [&](const ChronyTrackingRecord& r) { log.tracking.push_back(r); };
  sinks.statistics = [&](const ChronyStatisticsRecord& r) { log.statistics.push_back(r); };
  sinks.measurements = [&](const ChronyMeasurementsRecord& r) { log.measurements.push_back(r); };
  sinks.sync = [&](const SyncPoint& p) { log.sync_points.push_back(p); };
  // Count banners with a second light pass over the rule/title lines.
  auto k = ReadChronyLogText(text, source, host, kind, sinks, diag, counts);
  if (!k.ok()) return k.error();
  log.kind = *k;
  TextLines lines(text);
  std::string_view line;
  while (lines.Next(&line)) {
    ChronyLogKind ignored = ChronyLogKind::kUnknown;
    if (IsTitleLine(line, ignored)) ++log.banners;
  }
  return log;
}

// ---------------------------------------------------------------------------------------------
// tracking.log writer.

std::string ChronyTrackingBanner() {
  const std::string title =
      "   Date (UTC) Time     IP Address   St   Freq ppm   Skew ppm     Offset L Co  Offset sd "
      "Rem. corr. Root delay Root disp. Max. error";
  const std::string rule(title.size(), '=');
  return rule + "\n" + title + "\n" + rule + "\n";
}

std::string FormatChronyTrackingLine(const ChronyTrackingRecord& r) {
  std::string line = FormatLogTime(r.time_ns) +
                     StringPrintf(" %-15s %2d %10.3f %10.3f %10.3e %1c %2d %10.3e %10.3e %10.3e %10.3e",
                            r.ip.c_str(), r.stratum, r.freq_ppm, r.skew_ppm, r.offset_s, r.leap, r.combined,
                            r.offset_sd_s, r.remaining_correction_s, r.root_delay_s, r.root_dispersion_s);
  if (!std::isnan(r.max_error_s)) line += StringPrintf(" %10.3e", r.max_error_s);
  return line;
}

std::string WriteChronyTrackingLog(const std::vector<ChronyTrackingRecord>& records, int banner_every) {
  std::string out;
  const std::string banner = ChronyTrackingBanner();
  for (size_t i = 0; i < records.size(); ++i) {
    if (banner_every > 0 && i % static_cast<size_t>(banner_every) == 0) out += banner;
    out += FormatChronyTrackingLine(records[i]);
    out += '\n';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// chronyc.

std::optional<double> ParseChronycSeconds(std::string_view s) {
  s = Trim(s);
  double scale = 1;
  if (EndsWith(s, "ns")) {
    scale = 1e-9;
    s.remove_suffix(2);
  } else if (EndsWith(s, "us")) {
    scale = 1e-6;
    s.remove_suffix(2);
  } else if (EndsWith(s, "ms")) {
    scale = 1e-3;
    s.remove_suffix(2);
  } else if (EndsWith(s, "s")) {
    s.remove_suffix(1);
  } else {
    return std::nullopt;
  }
  if (s.empty() || !(IsDigit(s.back()))) return std::nullopt;
  const auto v = ParseDouble(s);
  if (!v || std::fabs(*v) > 1e12) return std::nullopt;
  return *v * scale;
}

std::optional<int64_t> ParseChronycInterval(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  int64_t scale = 1;
  switch (s.back()) {
    case 'm':
      scale = 60;
      break;
    case 'h':
      scale = 3600;
      break;
    case 'd':
      scale = 86400;
      break;
    case 'y':
      scale = 365 * int64_t{86400};
      break;
    default:
      break;
  }
  if (scale != 1) s.remove_suffix(1);
  const auto v = ParseDecimal(s, 0, int64_t{1} << 40);
  if (!v) return std::nullopt;
  return *v * scale;
}

namespace {

// `Thu Apr 05 18:27:33 2018` -> ns since the epoch (UTC).
std::optional<int64_t> ParseCtime(std::string_view s) {
  const auto tok = SplitWhitespace(s);
  if (tok.size() != 5) return std::nullopt;
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int month = 0;
  for (int i = 0; i < 12; ++i) {
    if (tok[1] == kMonths[i]) month = i + 1;
  }
  if (month == 0) return std::nullopt;
  const auto day = ParseDecimal(tok[2], 1, 31);
  if (!day || !AllDigits(tok[4]) || tok[4].size() != 4) return std::nullopt;
  const std::string date = std::string(tok[4]) + StringPrintf("-%02d-%02d", month, static_cast<int>(*day));
  return ParseLogTime(date, tok[3]);
}

// "0.031207338 seconds" -> value; `unit` is the word expected after the number.
std::optional<double> ValueWithUnit(std::string_view v, std::string_view unit) {
  const auto tok = SplitWhitespace(v);
  if (tok.size() != 2 || tok[1] != unit) return std::nullopt;
  return ParseDouble(tok[0]);
}

bool IsLegendLine(std::string_view t) {
  return !t.empty() && (t[0] == '.' || t[0] == '/' || t[0] == '|' || t[0] == '\\');
}

// `210 Number of sources = N` -> N.
std::optional<int64_t> NumberOfSources(std::string_view t) {
  if (!StartsWith(t, "210 Number of sources")) return std::nullopt;
  const size_t eq = t.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  return ParseDecimal(Trim(t.substr(eq + 1)), 0, 1000000);
}

// One `Key : value` field of `chronyc tracking` into `tr`; "" when it is accepted, else why not.
// `known` is set false for a field this reader does not know (kept in tr.other).
std::string ReadTrackingField(const std::string& key, std::string_view v, ChronycTracking& tr, bool& known) {
  std::string reason;
  if (key == "Reference ID") {
    const auto tok = SplitWhitespace(v);
    std::optional<int64_t> id;
    if (!tok.empty() && tok[0].size() == 8) id = ParseInt("0x" + std::string(tok[0]));
    // Older chrony releases printed an IPv4 source's reference ID as its dotted address (the same
    // 32 bits): `Reference ID    : 10.0.99.22 (ntp2.example)`.
    if (!id && !tok.empty()) {
      if (const auto ip = IpAddress::Parse(tok[0]); ip && ip->is_v4()) id = ip->v4_host_order();
    }
    if (!id || *id < 0) {
      reason = "Reference ID " + QuoteRaw(v) + " is not 8 hex digits or an IPv4 address";
    } else {
      tr.reference_id = static_cast<uint32_t>(*id);
      const size_t lp = v.find('(');
      const size_t rp = v.rfind(')');
      if (lp != std::string_view::npos && rp != std::string_view::npos && rp > lp) {
        tr.reference_name = std::string(v.substr(lp + 1, rp - lp - 1));
      }
    }
  } else if (key == "Stratum") {
    const auto s = ParseDecimal(v, 0, kMaxStratum);
    if (!s)
      reason = "Stratum " + QuoteRaw(v) + " is not 0..16";
    else
      tr.stratum = static_cast<int>(*s);
  } else if (key == "Ref time (UTC)") {
    const auto tm = ParseCtime(v);
    if (!tm)
      reason = "Ref time " + QuoteRaw(v) + " is not like 'Thu Apr 05 18:27:33 2018'";
    else
      tr.ref_time_ns = *tm;
  } else if (key == "System time") {
    // "0.000669840 seconds slow of NTP time"
    const auto tok = SplitWhitespace(v);
    std::optional<double> x;
    if (tok.size() == 6 && tok[1] == "seconds" && (tok[2] == "fast" || tok[2] == "slow") && tok[3] == "of" &&
        tok[4] == "NTP" && tok[5] == "time") {
      x = ParseDouble(tok[0]);
    }
    if (!x || std::fabs(*x) > kMaxOffsetS) {
      reason = "System time " + QuoteRaw(v) + " is not 'N seconds fast|slow of NTP time'";
    } else {
      tr.system_time_offset_s = tok[2] == "fast" ? *x : -*x;
    }
  } else if (key == "Last offset" || key == "RMS offset" || key == "Root delay" || key == "Root dispersion" ||
             key == "Update interval") {
    const auto x = ValueWithUnit(v, "seconds");
    if (!x || std::fabs(*x) > kMaxOffsetS) {
      reason = key + " " + QuoteRaw(v) + " is not 'N seconds'";
    } else if (key == "Last offset") {
      tr.last_offset_s = *x;
    } else if (key == "RMS offset") {
      tr.rms_offset_s = *x;
    } else if (key == "Root delay") {
      tr.root_delay_s = *x;
    } else if (key == "Root dispersion") {
      tr.root_dispersion_s = *x;
    } else {
      tr.update_interval_s = *x;
    }
  } else if (key == "Frequency") {
    const auto tok = SplitWhitespace(v);
    std::optional<double> x;
    if (tok.size() == 3 && tok[1] == "ppm" && (tok[2] == "fast" || tok[2] == "slow")) {
      x = ParseDouble(tok[0]);
    }
    if (!x || std::fabs(*x) > kMaxPpm)
      reason = "Frequency " + QuoteRaw(v) + " is not 'N ppm fast|slow'";
    else
      tr.frequency_ppm = tok[2] == "fast" ? *x : -*x;
  } else if (key == "Residual freq" || key == "Skew") {
    const auto x = ValueWithUnit(v, "ppm");
    if (!x || std::fabs(*x) > kMaxPpm)
      reason = key + " " + QuoteRaw(v) + " is not 'N ppm'";
    else if (key == "Skew")
      tr.skew_ppm = *x;
    else
      tr.residual_freq_ppm = *x;
  } else if (key == "Leap status") {
    if (v != "Normal" && v != "Insert second" && v != "Delete second" && v != "Not synchronised") {
      reason = "Leap status " + QuoteRaw(v) + " is unknown";
    } else {
      tr.leap_status = std::string(v);
    }
  } else {
    known = false;
    tr.other.emplace_back(key, std::string(v));
  }
  return reason;
}

// Reads the lines of a `chronyc sources` / `sourcestats` table: skips blank and rule lines, takes
// the `210 Number of sources = N` line, the header (starting with `header_start`) and the -v
// legend; every other line is a record, read by `row(raw, t, ln, r)` into a row of `out.sources`
// (kept when it returns "", else rejected with the reason it returns). Returns whether a header
// was seen.
template <class Table, class RowFn>
bool ReadSourceRows(std::string_view text, std::string_view header_start, Table& out, std::string_view source,
                    Diagnostics& diag, ReadCounts& counts, RowFn&& row) {
  bool header = false;
  TextLines lines(text);
  std::string_view raw, t;
  while (lines.NextNonBlank(&raw, &t)) {
    const int64_t ln = lines.line_number();
    if (IsRuleLine(t)) continue;
    if (const auto n = NumberOfSources(t)) {
      out.number_of_sources = *n;
      continue;
    }
    if (StartsWith(t, header_start)) {
      header = true;
      continue;
    }
    if (IsLegendLine(t)) {
      out.verbose = true;
      continue;
    }
    ++counts.read;
    typename decltype(out.sources)::value_type r;
    const std::string reason = row(raw, t, ln, r);
    if (reason.empty()) {
      out.sources.push_back(std::move(r));
      ++counts.accepted;
    } else {
      ++counts.rejected;
      diag.Reject(source, ln, raw, reason);
    }
  }
  return header;
}

// The table read, or the "not `chronyc <command>` output" error when it had no header and no row.
template <class Table>
Result<Table> TableOrError(Table out, bool header, std::string_view source, const char* command, const char* hint) {
  if (!header && out.sources.empty()) {
    return MakeError(std::string(source), 0, 0, StringPrintf("not `chronyc %s` output: no header, no row", command),
                     hint);
  }
  return out;
}

// The sample of a sources row, `X[Y] +/- Z` (spaces inside the brackets), into `s`; "" when it is one.
std::string ReadSourceSample(std::string_view sample, ChronycSource& s) {
  const size_t lb = sample.find('[');
  const size_t rb = sample.find(']');
  const size_t pm = sample.find("+/-");
  if (lb == std::string_view::npos || rb == std::string_view::npos || pm == std::string_view::npos ||
      !(lb < rb && rb < pm)) {
    return "sample " + QuoteRaw(sample) + " is not 'X[Y] +/- Z'";
  }
  const auto adj = ParseChronycSeconds(sample.substr(0, lb));
  const auto meas = ParseChronycSeconds(sample.substr(lb + 1, rb - lb - 1));
  const auto err = ParseChronycSeconds(sample.substr(pm + 3));
  if (!adj || !meas || !err || !Trim(sample.substr(rb + 1, pm - rb - 1)).empty()) {
    return "sample " + QuoteRaw(sample) + " has a value without a unit ns/us/ms/s or junk";
  }
  s.adjusted_offset_s = *adj;
  s.measured_offset_s = *meas;
  s.error_s = *err;
  return {};
}

// One row of `chronyc sources` (`raw`: as read) into `s`; "" when it is one.
std::string ReadSourceRow(std::string_view raw, std::string_view, int64_t ln, ChronycSource& s) {
  if (raw.size() < 3 || std::string_view("^=#").find(raw[0]) == std::string_view::npos ||
      std::string_view("*+-x~?").find(raw[1]) == std::string_view::npos || raw[2] != ' ') {
    return "not a sources row (want mode ^ = # and state * + - x ~ ? first)";
  }
  s.mode = raw[0];
  s.state = raw[1];
  s.line = ln;
  const std::string_view rest = raw.substr(3);
  const auto tok = SplitWhitespace(rest);
  if (tok.size() < 6) {
    return StringPrintf("sources row has %zu fields after the mode, expected at least 6", tok.size());
  }
  s.name = std::string(tok[0]);
  s.name_truncated = EndsWith(tok[0], ">");
  const auto st = ParseDecimal(tok[1], 0, kMaxStratum);
  const auto poll = ParseDecimal(tok[2], -32, 32);
  std::optional<int64_t> reach;
  if (!tok[3].empty() && tok[3].size() <= 3 && tok[3].find_first_not_of("01234567") == std::string_view::npos) {
    int64_t v = 0;
    for (const char c : tok[3]) v = v * 8 + (c - '0');
    reach = v;
  }
  std::optional<int64_t> last_rx;
  if (tok[4] == "-")
    last_rx = -1;
  else
    last_rx = ParseChronycInterval(tok[4]);
  if (!st) return "Stratum " + QuoteRaw(tok[1]) + " is not 0..16";
  if (!poll) return "Poll " + QuoteRaw(tok[2]) + " is not an integer in [-32, 32]";
  if (!reach || *reach > 0377) return "Reach " + QuoteRaw(tok[3]) + " is not octal 0..377";
  if (!last_rx) return "LastRx " + QuoteRaw(tok[4]) + " is not an interval";
  s.stratum = static_cast<int>(*st);
  s.poll_log2 = static_cast<int>(*poll);
  s.reach = static_cast<int>(*reach);
  s.last_rx_s = *last_rx;
  // The sample: everything after the LastRx field.
  const size_t at = static_cast<size_t>(tok[5].data() - rest.data());
  return ReadSourceSample(rest.substr(at), s);
}

// One row of `chronyc sourcestats` (`t`: trimmed) into `s`; "" when it is one.
std::string ReadSourceStatsRow(std::string_view, std::string_view t, int64_t ln, ChronycSourceStats& s) {
  const auto tok = SplitWhitespace(t);
  if (tok.size() != 8) return StringPrintf("sourcestats row has %zu fields, expected 8", tok.size());
  s.line = ln;
  s.name = std::string(tok[0]);
  s.name_truncated = EndsWith(tok[0], ">");
  const auto np = ParseDecimal(tok[1], 0, 1000000);
  const auto nr = ParseDecimal(tok[2], 0, 1000000);
  const auto span = ParseChronycInterval(tok[3]);
  const auto freq = ParseDouble(tok[4]);
  const auto skew = ParseDouble(tok[5]);
  const auto off = ParseChronycSeconds(tok[6]);
  const auto sd = ParseChronycSeconds(tok[7]);
  if (HasControlChars(t)) return "control characters in the line";
  if (!np) return "NP " + QuoteRaw(tok[1]) + " is not a count";
  if (!nr) return "NR " + QuoteRaw(tok[2]) + " is not a count";
  if (!span) return "Span " + QuoteRaw(tok[3]) + " is not an interval";
  if (!freq || std::fabs(*freq) > kMaxPpm) return "Frequency " + QuoteRaw(tok[4]) + " is not ppm";
  if (!skew || *skew < 0 || *skew > kMaxPpm) return "Freq Skew " + QuoteRaw(tok[5]) + " is not ppm";
  if (!off) return "Offset " + QuoteRaw(tok[6]) + " is not a time with unit ns/us/ms/s";
  if (!sd || *sd < 0) return "Std Dev " + QuoteRaw(tok[7]) + " is not a time with unit ns/us/ms/s";
  s.np = static_cast<int>(*np);
  s.nr = static_cast<int>(*nr);
  s.span_s = *span;
  s.frequency_ppm = *freq;
  s.freq_skew_ppm = *skew;
  s.offset_s = *off;
  s.std_dev_s = *sd;
  return {};
}

}  // namespace

namespace {

// Text around `chronyc tracking` reports that is not a field: a shell prompt or the command
// echoed (the line names chronyc), a `watch` header (`Every 2.0s: ...`), a `date` line
// (`Thu Apr  5 18:28:00 UTC 2018`).
bool IsTextAroundReports(std::string_view t) {
  if (t.find("chronyc") != std::string_view::npos || StartsWith(t, "Every ")) return true;
  static constexpr std::string_view kDays[] = {"Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun "};
  for (std::string_view d : kDays) {
    if (StartsWith(t, d)) return true;
  }
  return false;
}

}  // namespace

Result<std::vector<ChronycTracking>> ParseChronycTrackingReports(std::string_view text, std::string_view source,
                                                                 Diagnostics& diag, ReadCounts& counts) {
  std::vector<ChronycTracking> out;
  int known = 0;
  std::unordered_map<std::string, int64_t> seen;
  TextLines lines(text);
  std::string_view raw, t;
  while (lines.NextNonBlank(&raw, &t)) {
    const int64_t ln = lines.line_number();
    ++counts.read;
    const size_t colon = t.find(':');
    auto reject = [&](const std::string& reason) {
      ++counts.rejected;
      diag.Reject(source, ln, raw, reason);
    };
    if (HasControlChars(t)) {
      reject("control characters in the line");
      continue;
    }
    if (IsTextAroundReports(t)) {
      ++counts.accepted;
      continue;
    }
    if (colon == std::string_view::npos || colon == 0) {
      reject("not a `Name : value` line");
      continue;
    }
    const std::string key(Trim(t.substr(0, colon)));
    const std::string_view v = Trim(t.substr(colon + 1));
    if (out.empty() || key == "Reference ID") {
      // A report starts at its first line or at each `Reference ID` (the first field printed).
      if (out.empty() || seen.count(key) > 0) {
        out.emplace_back();
        out.back().line = ln;
        seen.clear();
      }
    }
    auto [it, fresh] = seen.try_emplace(key, ln);
    if (!fresh) {
      reject("field '" + ClipRaw(key, 40) + "' repeats line " + std::to_string(it->second));
      continue;
    }
    bool is_known = true;
    const std::string reason = ReadTrackingField(key, v, out.back(), is_known);
    if (!reason.empty()) {
      reject(reason);
      continue;
    }
    if (is_known) ++known;
    ++counts.accepted;
  }
  if (known == 0) {
    return MakeError(std::string(source), 0, 0, "not `chronyc tracking` output: no known field",
                     "expected lines like 'Reference ID    : AB42617E (name)'");
  }
  return out;
}

Result<ChronycTracking> ParseChronycTracking(std::string_view text, std::string_view source,
                                             Diagnostics& diag, ReadCounts& counts) {
  auto reports = ParseChronycTrackingReports(text, source, diag, counts);
  if (!reports.ok()) return reports.error();
  return std::move(reports->front());
}

std::optional<SyncPoint> ToSyncPoint(const ChronycTracking& t, std::string_view host) {
  if (!t.Synced() || t.ref_time_ns == kNoTime || !std::isfinite(t.last_offset_s)) return std::nullopt;
  SyncPoint p;
  p.host = std::string(host);
  p.ref_ns = t.ref_time_ns;
  p.offset_ns = t.last_offset_s * 1e9;  // + = the local clock was ahead
  // A reference time near the end of int64 ns with an offset of years does not fit: no sample.
  if (__builtin_add_overflow(t.ref_time_ns, static_cast<int64_t>(std::llround(p.offset_ns)), &p.local_ns)) {
    return std::nullopt;
  }
  // RFC 5905's root distance: the bound on the offset to the primary reference.
  if (std::isfinite(t.root_dispersion_s) && std::isfinite(t.root_delay_s)) {
    p.uncertainty_ns = (t.root_dispersion_s + t.root_delay_s / 2) * 1e9;
  }
  p.source = "chronyc-tracking";
  p.state = t.leap_status;
  p.synced = t.Synced();
  p.line = t.line;
  p.reference = t.reference_name;
  return p;
}

Result<ChronycSources> ParseChronycSources(std::string_view text, std::string_view source, Diagnostics& diag,
                                           ReadCounts& counts) {
  ChronycSources out;
  const bool header = ReadSourceRows(text, "MS Name/IP address", out, source, diag, counts, ReadSourceRow);
  return TableOrError(std::move(out), header, source, "sources",
                      "expected 'MS Name/IP address  Stratum Poll Reach LastRx Last sample'");
}

Result<ChronycSourceStatsTable> ParseChronycSourceStats(std::string_view text, std::string_view source,
                                                        Diagnostics& diag, ReadCounts& counts) {
  ChronycSourceStatsTable out;
  const bool header = ReadSourceRows(text, "Name/IP Address", out, source, diag, counts, ReadSourceStatsRow);
  return TableOrError(std::move(out), header, source, "sourcestats",
                      "expected 'Name/IP Address  NP  NR  Span  Frequency  Freq Skew  Offset  Std Dev'");
}

}  // namespace toposcope::formats
