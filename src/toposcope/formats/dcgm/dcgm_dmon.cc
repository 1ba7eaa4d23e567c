// formats/dcgm/dcgm_dmon: the `dcgmi dmon` stream reader and the writer the simulator uses.
//
// Reader, line by line:
//   1. An optional time prefix (moreutils `ts` styles) is recognised and cut off. Lines whose
//      first word is a dmon word (`#Entity`, `ID`, an entity kind, `dmon`) have no prefix.
//   2. `#Entity ...` is the header. The first one fixes the field list; later ones must repeat it
//      (a differing one is rejected, and so are the rows under it until a matching header).
//   3. `ID ...` carries the units (usually none).
//   4. `dmon was stopped due to receiving a signal` ends the stream: later non-blank lines are
//      rejected.
//   5. Anything else is a data row: an entity label (by its grammar), then one value per field.
//      When whitespace splitting gives the wrong number of values (a text value with spaces), the
//      columns of the header are used instead.
// Records (ReadCounts) are data rows, plus rejected non-row lines (garbage, a differing header,
// lines after the stop message), so accepted + rejected == read. Lines before the first header that
// are no dmon line and hold no header (a console capture's preamble) are no records once a header
// follows (one warning names their lines); without a header they are rejected at the end.
#include "toposcope/formats/dcgm/dcgm_dmon.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_set>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/dcgm/dcgm_fields.h"

namespace toposcope::formats {
namespace {

constexpr std::string_view kStopMessage = "dmon was stopped due to receiving a signal";
constexpr int64_t kNsPerSec = 1000000000;
constexpr int64_t kNsPerDay = 86400 * kNsPerSec;
constexpr int kMaxEntityId = (1 << 24) - 1;
constexpr int kMaxLinkId = 65534;
constexpr size_t kMaxFields = 4096;
constexpr int64_t kMinYear = 1700;  // `%b %d` prefixes: years that fit int64 ns
constexpr int64_t kMaxYear = 2200;
constexpr int64_t kMaxDayOffsetNs = int64_t{1} << 60;
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

bool IsSpace(char c) { return c == ' ' || c == '\t'; }


// Bit j set when p[j] is a space or a tab, for the 64 bytes at p.
uint64_t SpaceMask64(const char* p) {
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(' ');
  const __m128i tab = _mm_set1_epi8('\t');
  uint64_t mask = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab));
    mask |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(hit))) << (16 * k);
  }
  return mask;
#else
  uint64_t mask = 0;
  for (int j = 0; j < 64; ++j) mask |= static_cast<uint64_t>(IsSpace(p[j])) << j;
  return mask;
#endif
}

// Splits on spaces/tabs into `out` (reused), keeping views into `s`. dmon rows are mostly column
// padding: the line is classified 64 bytes at a time and only the word edges are visited.
void Tokenize(std::string_view s, std::vector<std::string_view>& out) {
  out.clear();
  const char* p = s.data();
  const size_t n = s.size();
  bool in_word = false;  // the byte before the current block is part of a word
  size_t start = 0;
  for (size_t base = 0; base < n; base += 64) {
    uint64_t space = 0;
    if (n - base >= 64) {
      space = SpaceMask64(p + base);
    } else {
      char tail[64];
      std::memset(tail, ' ', sizeof(tail));
      std::memcpy(tail, p + base, n - base);
      space = SpaceMask64(tail);
    }
    const uint64_t word = ~space;
    uint64_t edges = word ^ ((word << 1) | static_cast<uint64_t>(in_word));
    while (edges != 0) {
      const size_t pos = base + static_cast<size_t>(std::countr_zero(edges));
      if (in_word) {
        out.emplace_back(p + start, pos - start);
      } else {
        start = pos;
      }
      in_word = !in_word;
      edges &= edges - 1;
    }
  }
  if (in_word) out.emplace_back(p + start, n - start);
}

// Powers of ten that doubles hold exactly.
constexpr std::array<double, 16> kExactPow10 = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

// The common value shapes, `-?D{1,18}` and `-?D+.D+` with at most 15 digits, converted exactly as
// the general path (int64 then double; from_chars) would: the mantissa and the power of ten are
// exact doubles, so one IEEE division rounds correctly. False for anything else (the general path
// then decides).
bool ParseSimpleNumber(std::string_view c, double* out) {
  const bool neg = c.size() > 1 && c[0] == '-';
  size_t i = neg ? 1 : 0;
  if (c.size() - i > 19) return false;  // more than 18 digits (19 fit a uint64)
  uint64_t m = 0;
  size_t dot = std::string_view::npos;
  for (; i < c.size(); ++i) {
    const auto d = static_cast<unsigned>(static_cast<unsigned char>(c[i])) - '0';
    if (d <= 9) {
      m = m * 10 + d;
    } else if (c[i] == '.' && dot == std::string_view::npos) {
      dot = i;
    } else {
      return false;
    }
  }
  const size_t digits = c.size() - (neg ? 1 : 0) - (dot == std::string_view::npos ? 0 : 1);
  if (dot == std::string_view::npos) {
    if (digits == 0 || digits > 18) return false;
    const auto iv = static_cast<int64_t>(m);
    *out = static_cast<double>(neg ? -iv : iv);
    return true;
  }
  const size_t frac = c.size() - dot - 1;
  if (frac == 0 || frac == digits || digits > 15) return false;  // `1.`, `.5`, or inexact
  const double v = static_cast<double>(m) / kExactPow10[frac];
  *out = neg ? -v : v;
  return true;
}

// A non-negative decimal id of at most `max`.
bool ParseSmallId(std::string_view s, int max, int* out) {
  if (!AllDigits(s) || s.size() > 9) return false;
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  if (v > max) return false;
  *out = v;
  return true;
}

// Parses an entity label from the start of `tok`. Returns the number of words used, 0 if none.
size_t ParseEntityTokens(const std::vector<std::string_view>& tok, DmonEntity* e) {
  if (tok.size() < 2) return 0;
  const std::string_view k = tok[0];
  int id = 0;
  int link = 0;
  if (k == "GPU") {
    if (!ParseSmallId(tok[1], kMaxEntityId, &id)) return 0;
    if (tok.size() >= 4 && tok[2] == "LINK") {
      if (!ParseSmallId(tok[3], kMaxLinkId, &link)) return 0;
      *e = {DmonEntityKind::kGpuLink, id, link};
      return 4;
    }
    *e = {DmonEntityKind::kGpu, id, -1};
    return 2;
  }
  if (k == "SW") {
    if (tok.size() < 4 || !ParseSmallId(tok[1], kMaxEntityId, &id) || tok[2] != "LINK" ||
        !ParseSmallId(tok[3], kMaxLinkId, &link)) {
      return 0;
    }
    *e = {DmonEntityKind::kSwitchLink, id, link};
    return 4;
  }
  if (k == "CPU") {
    if (tok[1] == "Core") {
      if (tok.size() < 3 || !ParseSmallId(tok[2], kMaxEntityId, &id)) return 0;
      *e = {DmonEntityKind::kCpuCore, id, -1};
      return 3;
    }
    if (!ParseSmallId(tok[1], kMaxEntityId, &id)) return 0;
    *e = {DmonEntityKind::kCpu, id, -1};
    return 2;
  }
  DmonEntityKind kind;
  if (k == "GPU-I") {
    kind = DmonEntityKind::kGpuI;
  } else if (k == "GPU-CI") {
    kind = DmonEntityKind::kGpuCi;
  } else if (k == "Switch") {
    kind = DmonEntityKind::kSwitch;
  } else if (k == "CX") {
    kind = DmonEntityKind::kCx;
  } else {
    return 0;
  }
  if (!ParseSmallId(tok[1], kMaxEntityId, &id)) return 0;
  *e = {kind, id, -1};
  return 2;
}

uint64_t EntityKey(const DmonEntity& e) {
  return (static_cast<uint64_t>(e.kind) << 48) | (static_cast<uint64_t>(e.id) << 16) |
         static_cast<uint64_t>(e.link + 1);
}

bool IsDmonWord(std::string_view w) {
  return w == "#Entity" || w == "ID" || w == "GPU" || w == "GPU-I" || w == "GPU-CI" ||
         w == "Switch" || w == "CPU" || w == "CX" || w == "SW" || w == "dmon";
}

// DCGM's documentation and the copies made from it print the header as `# Entity` and the units
// line as `Id`: the same lines as `#Entity` and `ID`, made so here.
void NormalizeDmonWords(std::vector<std::string_view>& tok) {
  if (tok.size() >= 2 && tok[0] == "#" && tok[1] == "Entity") {
    tok.erase(tok.begin());
    tok[0] = "#Entity";
  } else if (!tok.empty() && tok[0] == "Id") {
    tok[0] = "ID";
  }
}

// `HH:MM:SS[.frac]` (hours may have more digits) → ns; false when not that.
bool ParseClock(std::string_view s, int64_t max_hours, int64_t* ns) {
  const size_t c1 = s.find(':');
  if (c1 == std::string_view::npos || c1 < 1 || c1 > 6) return false;
  if (s.size() < c1 + 6 || s[c1 + 3] != ':') return false;
  const std::string_view hh = s.substr(0, c1);
  const std::string_view mm = s.substr(c1 + 1, 2);
  const std::string_view ss = s.substr(c1 + 4, 2);
  if (!AllDigits(hh) || !AllDigits(mm) || !AllDigits(ss)) return false;
  int64_t h = 0;
  int m = 0;
  int sec = 0;
  std::from_chars(hh.data(), hh.data() + hh.size(), h);
  std::from_chars(mm.data(), mm.data() + 2, m);
  std::from_chars(ss.data(), ss.data() + 2, sec);
  if (h > max_hours || m > 59 || sec > 60) return false;
  int64_t frac = 0;
  size_t p = c1 + 6;
  if (p < s.size()) {
    if (s[p] != '.' && s[p] != ',') return false;
    ++p;
    if (p >= s.size()) return false;
    int64_t scale = kNsPerSec / 10;
    for (; p < s.size(); ++p) {
      if (s[p] < '0' || s[p] > '9') return false;
      frac += (s[p] - '0') * scale;
      scale /= 10;
    }
  }
  *ns = ((h * 60 + m) * 60 + sec) * kNsPerSec + frac;
  return true;
}

int MonthIndex(std::string_view s) {
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (s == kMonths[i]) return static_cast<int>(i) + 1;
  }
  return 0;
}

// Civil date from days since 1970-01-01 (proleptic Gregorian).
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t yy = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yy + (*m <= 2 ? 1 : 0);
}


// Control bytes other than tab (NUL, form feed, DEL, ...): never in dcgmi's own output.
bool HasControl(std::string_view s) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return true;
  }
  return false;
}

}  // namespace

std::string DmonEntityLabel(const DmonEntity& e) {
  std::string id = std::to_string(e.id);
  switch (e.kind) {
    case DmonEntityKind::kGpu: return "GPU " + id;
    case DmonEntityKind::kGpuI: return "GPU-I " + id;
    case DmonEntityKind::kGpuCi: return "GPU-CI " + id;
    case DmonEntityKind::kSwitch: return "Switch " + id;
    case DmonEntityKind::kCpu: return "CPU " + id;
    case DmonEntityKind::kCpuCore: return "CPU Core " + id;
    case DmonEntityKind::kCx: return "CX " + id;
    case DmonEntityKind::kGpuLink: return "GPU " + id + " LINK " + std::to_string(e.link);
    case DmonEntityKind::kSwitchLink: return "SW " + id + " LINK " + std::to_string(e.link);
  }
  return id;
}

bool ParseDmonEntityLabel(std::string_view label, DmonEntity* out) {
  std::vector<std::string_view> tok;
  Tokenize(label, tok);
  DmonEntity e;
  const size_t n = ParseEntityTokens(tok, &e);
  if (n == 0 || n != tok.size()) return false;
  *out = e;
  return true;
}

std::string_view DmonTimestampStyleName(DmonTimestampStyle s) {
  switch (s) {
    case DmonTimestampStyle::kNone: return "none";
    case DmonTimestampStyle::kTs: return "ts";
    case DmonTimestampStyle::kTsRelative: return "ts_relative";
    case DmonTimestampStyle::kEpoch: return "epoch";
    case DmonTimestampStyle::kIso: return "iso";
  }
  return "none";
}

// ---------------------------------------------------------------------------------------------
// Reader.

struct DmonParser::Impl {
  Impl(std::string_view src, DmonOptions opts, Diagnostics& d, ReadCounts& c, DmonRowSink s,
       DmonHeaderSink h)
      : source(src), options(std::move(opts)), diag(d), counts(c), sink(std::move(s)),
        on_header(std::move(h)) {
    row.host = options.host;
    if (options.year != 0) {
      year = options.year;
    } else if (options.start_ts_ns != kNoTime) {
      int64_t y = 1970;
      unsigned m = 1, dd = 1;
      CivilFromDays(FloorDiv(options.start_ts_ns, kNsPerDay), &y, &m, &dd);
      year = y;
    }
    rel_prev_ns = options.start_ts_ns == kNoTime ? 0 : options.start_ts_ns;
  }

  std::string source;
  DmonOptions options;
  Diagnostics& diag;
  ReadCounts& counts;
  DmonRowSink sink;
  DmonHeaderSink on_header;

  // Header state.
  bool have_header = false;
  bool header_announced = false;
  bool units_seen = false;
  bool bad_header_active = false;  // under a repeated header that differs from the first
  DmonHeader header;
  std::vector<size_t> field_pos;   // column start of each field in the header (content-relative)
  std::vector<int> field_type;     // FieldValueType as int, -1 unknown

  // Stream state.
  bool stopped = false;
  DmonSummary summary;
  bool style_known = false;
  bool any_prefix = false;
  int64_t iteration = -1;
  std::vector<uint64_t> iter_keys;
  std::unordered_set<uint64_t> iter_set;  // used when an iteration has many entities
  int64_t last_ts = kNoTime;
  int64_t dup_ts = kNoTime;
  std::vector<uint64_t> dup_keys;
  std::unordered_set<uint64_t> dup_set;

  // Prefix state.
  int64_t year = 1970;
  int64_t month_last_ns = kNoTime;
  int64_t rel_prev_ns = 0;
  int64_t rel_last_raw = -1;
  int64_t rel_day_offset = 0;

  // Lines held before the first header (HoldPreamble).
  static constexpr size_t kHeldPreambleText = 256;
  std::vector<int64_t> preamble_lines;
  std::vector<std::string> preamble_raw;

  // Scratch.
  std::vector<std::string_view> tok;
  std::vector<std::string_view> cells;
  std::string scratch;
  DmonRow row;

  void Reject(int64_t line_no, std::string_view raw, std::string_view reason) {
    ++counts.read;
    ++counts.rejected;
    diag.Reject(source, line_no, raw, reason);
  }

  void Announce() {
    if (have_header && !header_announced) {
      header_announced = true;
      if (on_header) on_header(header);
    }
  }

  // Recognises a time prefix at the start of `line` (whose words are in `tok`). On success sets
  // the style, the ts and the number of words the prefix used.
  bool ParsePrefix(DmonTimestampStyle* style, int64_t* ts_ns,
                   size_t* words) {
    if (tok.empty()) return false;
    const std::string_view t0 = tok[0];
    // `%b %d %H:%M:%S[.frac]`
    if (const int mon = MonthIndex(t0); mon != 0) {
      if (tok.size() < 3 || tok[1].size() > 2 || !AllDigits(tok[1])) return false;
      int day = 0;
      std::from_chars(tok[1].data(), tok[1].data() + tok[1].size(), day);
      int64_t tod = 0;
      if (day < 1 || day > 31 || !ParseClock(tok[2], 23, &tod)) return false;
      if (year < kMinYear || year > kMaxYear) return false;  // keeps ns in int64
      int64_t ns = DaysFromCivil(year, static_cast<unsigned>(mon), static_cast<unsigned>(day)) *
                       kNsPerDay + tod;
      // New Year while logging: a jump back of more than half a year means the next year.
      if (month_last_ns != kNoTime && ns < month_last_ns - 180 * kNsPerDay && year < kMaxYear) {
        ++year;
        ns = DaysFromCivil(year, static_cast<unsigned>(mon), static_cast<unsigned>(day)) *
                 kNsPerDay + tod;
      }
      month_last_ns = ns;
      *style = DmonTimestampStyle::kTs;
      *ts_ns = ns;
      *words = 3;
      return true;
    }
    if (t0.empty() || t0[0] < '0' || t0[0] > '9') return false;
    // ISO-8601: one word, or date and time as two words.
    if (t0.size() >= 10 && t0[4] == '-' && t0[7] == '-') {
      int iso_year = 0;
      if (!ParseSmallId(t0.substr(0, 4), 9999, &iso_year) || iso_year < kMinYear ||
          iso_year > kMaxYear) {
        return false;  // out of the int64 ns range (the base parser does not check)
      }
      if (auto v = ParseIsoTimeNs(t0)) {
        *style = DmonTimestampStyle::kIso;
        *ts_ns = *v;
        *words = 1;
        return true;
      }
      if (t0.size() == 10 && tok.size() >= 2) {
        scratch.assign(t0);
        scratch.push_back(' ');
        scratch.append(tok[1]);
        if (auto v = ParseIsoTimeNs(scratch)) {
          *style = DmonTimestampStyle::kIso;
          *ts_ns = *v;
          *words = 2;
          return true;
        }
      }
      return false;
    }
    // `ts -s` / `ts -i`: HH:MM:SS[.frac] relative to the start / the previous line.
    if (t0.find(':') != std::string_view::npos) {
      int64_t rel = 0;
      if (!ParseClock(t0, 999999, &rel)) return false;
      int64_t ns = 0;
      if (options.relative_incremental) {
        if (rel_prev_ns > INT64_MAX - rel) return false;
        ns = rel_prev_ns + rel;
        rel_prev_ns = ns;
      } else {
        // strftime %H wraps at 24 h: a jump back of more than 12 h is the next day.
        if (rel_last_raw >= 0 && rel < rel_last_raw - 12 * 3600 * kNsPerSec && rel < kNsPerDay &&
            rel_day_offset < kMaxDayOffsetNs) {
          rel_day_offset += kNsPerDay;
        }
        rel_last_raw = rel;
        const int64_t base = options.start_ts_ns == kNoTime ? 0 : options.start_ts_ns;
        if (base > INT64_MAX - rel - rel_day_offset) return false;
        ns = base + rel_day_offset + rel;
      }
      *style = DmonTimestampStyle::kTsRelative;
      *ts_ns = ns;
      *words = 1;
      return true;
    }
    // `%.s`: epoch seconds (or ms/us/ns by magnitude).
    const size_t dot = t0.find('.');
    const bool epoch_shape =
        AllDigits(t0.substr(0, dot)) &&
        (dot == std::string_view::npos || AllDigits(t0.substr(dot + 1)));
    if (epoch_shape && t0.size() >= 9) {
      if (auto v = ParseEpochAutoNs(t0)) {
        *style = DmonTimestampStyle::kEpoch;
        *ts_ns = *v;
        *words = 1;
        return true;
      }
    }
    return false;
  }

  void Feed(std::string_view raw, int64_t line_no) {
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    size_t a = 0;
    while (a < raw.size() && IsSpace(raw[a])) ++a;
    if (a == raw.size()) return;  // blank
    std::string_view content = raw.substr(a);
    Tokenize(content, tok);
    NormalizeDmonWords(tok);

    // 0. Before the first header, a line that is no dmon line and holds no header (a console
    // capture's shell banner, pip output, logging) is held: preamble once a header comes.
    if (!have_header && !IsDmonWord(tok[0]) && content.find("Entity") == std::string_view::npos) {
      HoldPreamble(line_no, raw);
      return;
    }

    // 1. Time prefix.
    bool has_prefix = false;
    int64_t prefix_ts = kNoTime;
    if (!IsDmonWord(tok[0])) {
      DmonTimestampStyle style = DmonTimestampStyle::kNone;
      size_t words = 0;
      if (!ParsePrefix(&style, &prefix_ts, &words)) {
        if (stopped) {
          Reject(line_no, raw, "text after 'dmon was stopped' (the stream has ended)");
        } else {
          Reject(line_no, raw, "not a dmon line (no entity label, header or time prefix)");
        }
        return;
      }
      has_prefix = true;
      if (!style_known) {
        style_known = true;
        summary.timestamp_style = style;
      }
      any_prefix = true;
      if (words == tok.size()) return;  // `ts` on a blank line
      // Cut the prefix off: content starts at the next word.
      const std::string_view next = tok[words];
      content = content.substr(static_cast<size_t>(next.data() - content.data()));
      tok.erase(tok.begin(), tok.begin() + static_cast<std::ptrdiff_t>(words));
    }

    const std::string_view t0 = tok[0];
    // 2. Stop message.
    if (t0 == "dmon" && StartsWith(content, kStopMessage)) {
      stopped = true;
      summary.stopped_by_signal = true;
      return;
    }
    if (stopped) {
      Reject(line_no, raw, "text after 'dmon was stopped' (the stream has ended)");
      return;
    }
    // 3. Header.
    if (t0 == "#Entity") {
      HandleHeader(content, raw, line_no);
      return;
    }
    // 4. Units.
    if (t0 == "ID") {
      HandleUnits(content, raw, line_no);
      return;
    }
    if (!style_known) {
      style_known = true;
      summary.timestamp_style = DmonTimestampStyle::kNone;
    }
    // 5. Data row.
    HandleRow(content, raw, line_no, has_prefix, prefix_ts);
  }

  // A line before the first header that is no dmon line: kept (its number, and its text for the
  // first kHeldPreambleText) until the header tells whether it was preamble.
  void HoldPreamble(int64_t line_no, std::string_view raw) {
    if (preamble_raw.size() < kHeldPreambleText) preamble_raw.emplace_back(raw.substr(0, 512));
    preamble_lines.push_back(line_no);
  }

  // The first header came: the lines held before it were preamble, no records; one warning says so.
  void EndPreamble() {
    if (preamble_lines.empty()) return;
    diag.Warn(source, preamble_lines.front(), "",
              std::to_string(static_cast<int64_t>(preamble_lines.size())) + " line(s) before the #Entity header (lines " +
                  std::to_string(preamble_lines.front()) + "-" + std::to_string(preamble_lines.back()) +
                  ") are no dmon output: skipped as preamble");
    preamble_lines.clear();
    preamble_raw.clear();
  }

  // No header came: every held line is a rejected record, as any line that is no dmon line.
  void RejectHeldLines() {
    for (size_t i = 0; i < preamble_lines.size(); ++i) {
      Reject(preamble_lines[i], i < preamble_raw.size() ? std::string_view(preamble_raw[i]) : std::string_view(),
             "not a dmon line (no entity label, header or time prefix)");
    }
    preamble_lines.clear();
    preamble_raw.clear();
  }

  void HandleHeader(std::string_view content, std::string_view raw, int64_t line_no) {
    ++summary.headers_seen;
    if (HasControl(content)) {
      Reject(line_no, raw, "control characters in the #Entity header");
      if (have_header) bad_header_active = true;
      return;
    }
    if (tok.size() - 1 > kMaxFields) {
      Reject(line_no, raw, "header with more than 4096 fields");
      if (have_header) bad_header_active = true;
      return;
    }
    if (!have_header) {
      have_header = true;
      EndPreamble();
      header.line = line_no;
      header.fields.clear();
      field_pos.clear();
      field_type.clear();
      const size_t end = content.size();
      for (size_t i = 1; i < tok.size(); ++i) {
        DmonField f;
        f.short_name = std::string(tok[i]);
        if (const DcgmField* cf = FindFieldByName(tok[i])) {
          f.field_id = cf->id;
          field_type.push_back(static_cast<int>(cf->type));
        } else {
          field_type.push_back(-1);
        }
        const size_t pos = static_cast<size_t>(tok[i].data() - content.data());
        field_pos.push_back(pos);
        header.fields.push_back(std::move(f));
      }
      header.entity_width = tok.size() > 1 ? static_cast<int>(field_pos[0])
                                           : static_cast<int>(tok[0].size());
      for (size_t i = 0; i < header.fields.size(); ++i) {
        if (i + 1 < header.fields.size()) {
          header.fields[i].width = static_cast<int>(field_pos[i + 1] - field_pos[i]);
        } else {
          const size_t w = end - field_pos[i];
          // Only trailing padding tells the last column's width.
          header.fields[i].width = w > tok[i + 1].size() ? static_cast<int>(w) : 0;
        }
      }
      return;
    }
    // A repeat: the short names must match the first header.
    bool same = tok.size() - 1 == header.fields.size();
    for (size_t i = 1; same && i < tok.size(); ++i) same = tok[i] == header.fields[i - 1].short_name;
    if (same) {
      bad_header_active = false;
      return;
    }
    bad_header_active = true;
    Reject(line_no, raw,
           "repeated #Entity header differs from the first (line " + std::to_string(header.line) +
               "); its rows are rejected");
  }

  void HandleUnits(std::string_view content, std::string_view raw, int64_t line_no) {
    if (!have_header) {
      Reject(line_no, raw, "units line (ID) before the #Entity header");
      return;
    }
    if (units_seen || bad_header_active) return;
    units_seen = true;
    if (HasControl(content)) {
      diag.Warn(source, line_no, raw, "control characters in the units line; units ignored");
      return;
    }
    const size_t n = tok.size() - 1;
    if (n == 0) return;
    if (n == header.fields.size()) {
      for (size_t i = 0; i < n; ++i) header.fields[i].unit = std::string(tok[i + 1]);
      return;
    }
    if (SplitColumns(content, 2)) {
      for (size_t i = 0; i < header.fields.size(); ++i) header.fields[i].unit = std::string(cells[i]);
      return;
    }
    diag.Warn(source, line_no, raw,
              "units line has " + std::to_string(n) + " units for " +
                  std::to_string(header.fields.size()) + " fields; units ignored");
  }

  // Cuts `content` by the header's column starts into `cells` (trimmed). `label_end` is where the
  // label ends; a label longer than the entity column pushes the whole row right (as setw does),
  // so the columns are shifted by that much. No cut may split a word, and a numeric field's cell
  // must be one word. Empty cells are allowed here (units); rows check for them.
  bool SplitColumns(std::string_view content, size_t label_end) {
    cells.clear();
    if (field_pos.empty()) return false;
    size_t shift = 0;
    if (label_end > 2 && label_end >= field_pos[0]) shift = label_end + 1 - field_pos[0];
    for (size_t i = 0; i < field_pos.size(); ++i) {
      const size_t b = field_pos[i] + shift;
      if (b > content.size()) return false;
      if (b > 0 && b < content.size() && !IsSpace(content[b - 1])) return false;
      const size_t e = i + 1 < field_pos.size() ? std::min(field_pos[i + 1] + shift, content.size())
                                                : content.size();
      if (e < content.size() && e > b && !IsSpace(content[e - 1]) && !IsSpace(content[e])) {
        return false;
      }
      const std::string_view cell = Trim(content.substr(b, e - b));
      const int type = i < field_type.size() ? field_type[i] : -1;
      if ((type == static_cast<int>(FieldValueType::kInt64) ||
           type == static_cast<int>(FieldValueType::kDouble)) &&
          cell.find_first_of(" \t") != std::string_view::npos) {
        return false;
      }
      cells.push_back(cell);
    }
    // Nothing between the label and the first column.
    const size_t first = field_pos[0] + shift;
    return label_end <= first && Trim(content.substr(label_end, first - label_end)).empty();
  }

  // The value cells of a row (in `cells`) into row.values / row.text; "" when they fit the field
  // types, else why not.
  std::string ReadValues(size_t nf) {
    row.values.resize(nf);
    bool any_text = false;
    for (size_t i = 0; i < nf; ++i) {
      const std::string_view c = cells[i];
      double v = NAN;
      if (c == "N/A") {
        row.values[i] = v;
        continue;
      }
      if (ParseSimpleNumber(c, &row.values[i])) continue;
      const int type = field_type[i];
      const char* b = c.data();
      const char* e = c.data() + c.size();
      const bool int_shape = AllDigits(c[0] == '-' ? c.substr(1) : c);
      if (int_shape) {
        int64_t iv = 0;
        const auto r = std::from_chars(b, e, iv);
        if (r.ec == std::errc() && r.ptr == e) {
          row.values[i] = static_cast<double>(iv);
          continue;
        }
        if (type == static_cast<int>(FieldValueType::kInt64)) {
          return QuoteRaw(c) + " is out of int64 range for " + header.fields[i].short_name;
        }
      }
      if (auto d = ParseDouble(c)) {
        row.values[i] = *d;
        continue;
      }
      if (type == static_cast<int>(FieldValueType::kInt64) || type == static_cast<int>(FieldValueType::kDouble)) {
        return QuoteRaw(c) + " is not a number (field " + header.fields[i].short_name + " is " +
               std::string(FieldValueTypeName(static_cast<FieldValueType>(type))) + ")";
      }
      if (HasControl(c)) return "control characters in a text value";
      if (!any_text) {
        any_text = true;
        row.text.assign(nf, std::string());
      }
      row.text[i] = std::string(c);
      row.values[i] = v;
    }
    if (!any_text) row.text.clear();
    return {};
  }

  // A new iteration starts at the first row and at the first entity seen again since it began.
  void NoteIteration(uint64_t key) {
    const bool seen = iter_keys.size() < 64 ? std::find(iter_keys.begin(), iter_keys.end(), key) != iter_keys.end()
                                            : iter_set.count(key) != 0;
    if (iteration < 0 || seen) {
      ++iteration;
      iter_keys.clear();
      iter_set.clear();
    }
    iter_keys.push_back(key);
    if (iter_keys.size() == 64) iter_set.insert(iter_keys.begin(), iter_keys.end());
    if (iter_keys.size() > 64) iter_set.insert(key);
  }

  void HandleRow(std::string_view content, std::string_view raw, int64_t line_no, bool has_prefix, int64_t prefix_ts) {
    DmonEntity entity;
    const size_t used = ParseEntityTokens(tok, &entity);
    if (used == 0) {
      Reject(line_no, raw, "unknown entity label " + QuoteRaw(content.substr(0, 24)));
      return;
    }
    if (!have_header) {
      Reject(line_no, raw, "data row before the #Entity header");
      return;
    }
    if (bad_header_active) {
      Reject(line_no, raw, "row under a repeated #Entity header that differs from the first");
      return;
    }
    if (any_prefix && !has_prefix) {
      Reject(line_no, raw, "row without a time prefix while other lines have one");
      return;
    }
    const size_t nf = header.fields.size();
    const size_t nv = tok.size() - used;
    if (nv == nf) {
      cells.assign(tok.begin() + static_cast<std::ptrdiff_t>(used), tok.end());
    } else {
      const std::string_view last = tok[used - 1];
      const size_t label_end = static_cast<size_t>(last.data() - content.data()) + last.size();
      bool ok = SplitColumns(content, label_end);
      for (size_t i = 0; ok && i < cells.size(); ++i) ok = !cells[i].empty();
      if (!ok) {
        Reject(line_no, raw, std::to_string(nv) + " values for " + std::to_string(nf) + " fields");
        return;
      }
    }
    if (const std::string why = ReadValues(nf); !why.empty()) {
      Reject(line_no, raw, why);
      return;
    }

    // Time, duplicates and the iteration.
    const uint64_t key = EntityKey(entity);
    if (has_prefix) {
      if (prefix_ts == dup_ts) {
        const bool dup = dup_keys.size() < 64
                             ? std::find(dup_keys.begin(), dup_keys.end(), key) != dup_keys.end()
                             : dup_set.count(key) != 0;
        if (dup) {
          Reject(line_no, raw,
                 "duplicate row: " + DmonEntityLabel(entity) + " already has a value at this time");
          return;
        }
      } else {
        dup_ts = prefix_ts;
        dup_keys.clear();
        dup_set.clear();
      }
      dup_keys.push_back(key);
      if (dup_keys.size() >= 64) dup_set.insert(key);
      if (dup_keys.size() == 64) dup_set.insert(dup_keys.begin(), dup_keys.end());
    }
    NoteIteration(key);

    int64_t ts = kNoTime;
    if (has_prefix) {
      ts = prefix_ts;
      if (last_ts != kNoTime && ts < last_ts) {
        diag.Warn(source, line_no, raw, "time goes backwards (kept)");
      }
      last_ts = ts;
    } else if (options.start_ts_ns != kNoTime) {
      ts = options.start_ts_ns + iteration * options.delay_ms * 1000000;
    }

    Announce();
    row.ts_ns = ts;
    row.entity = entity;
    row.iteration = iteration;
    row.line = line_no;
    ++counts.read;
    ++counts.accepted;
    ++summary.rows;
    if (sink) sink(row);
  }

  Result<DmonSummary> Finish() {
    Announce();
    if (!have_header) {
      RejectHeldLines();
      return MakeError(source, 0, 0, "no `#Entity` header: not `dcgmi dmon` output",
                       "dmon output starts with `#Entity <short names>`");
    }
    summary.header = header;
    summary.iterations = iteration + 1;
    return summary;
  }
};

DmonParser::DmonParser(std::string_view source, DmonOptions options, Diagnostics& diag,
                       ReadCounts& counts, DmonRowSink sink, DmonHeaderSink on_header)
    : impl_(std::make_unique<Impl>(source, std::move(options), diag, counts, std::move(sink),
                                   std::move(on_header))) {}

DmonParser::~DmonParser() = default;

void DmonParser::Feed(std::string_view line, int64_t line_no) { impl_->Feed(line, line_no); }

Result<DmonSummary> DmonParser::Finish() { return impl_->Finish(); }

const DmonHeader* DmonParser::header() const {
  return impl_->have_header ? &impl_->header : nullptr;
}

Result<DmonSummary> ReadDmon(LineReader& lines, std::string_view source, const DmonOptions& options,
                             Diagnostics& diag, ReadCounts& counts, const DmonRowSink& sink,
                             const DmonHeaderSink& on_header) {
  DmonParser parser(source, options, diag, counts, sink, on_header);
  std::string_view line;
  bool first = true;
  while (lines.Next(&line)) {
    if (first) {
      first = false;
      if (LooksBinary(line.substr(0, 4096))) {
        return MakeError(std::string(source), 1, 0, "binary data, not `dcgmi dmon` output");
      }
    }
    parser.Feed(line, lines.line_number());
  }
  if (const Error* e = lines.error()) return *e;
  return parser.Finish();
}

Result<DmonSummary> ReadDmonText(std::string_view text, std::string_view source,
                                 const DmonOptions& options, Diagnostics& diag, ReadCounts& counts,
                                 const DmonRowSink& sink, const DmonHeaderSink& on_header) {
  if (LooksBinary(text.substr(0, 4096))) {
    return MakeError(std::string(source), 0, 0, "binary data, not `dcgmi dmon` output");
  }
  DmonParser parser(source, options, diag, counts, sink, on_header);
  int64_t line_no = 0;
  size_t b = 0;
  while (b < text.size()) {
    const void* nl = std::memchr(text.data() + b, '\n', text.size() - b);
    const size_t e = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data())
                        : text.size();
    parser.Feed(text.substr(b, e - b), ++line_no);
    b = e + 1;
  }
  return parser.Finish();
}

Result<DmonLog> ParseDmonText(std::string_view text, std::string_view source,
                              const DmonOptions& options, Diagnostics& diag, ReadCounts& counts) {
  DmonLog log;
  auto summary = ReadDmonText(text, source, options, diag, counts,
                              [&log](const DmonRow& r) { log.rows.push_back(r); });
  if (!summary.ok()) return summary.error();
  log.summary = std::move(*summary);
  return log;
}

// ---------------------------------------------------------------------------------------------
// Writer.

namespace {

void Pad(std::string* out, size_t from, size_t width, bool force_space) {
  const size_t used = out->size() - from;
  if (used < width) {
    out->append(width - used, ' ');
  } else if (force_space) {
    out->push_back(' ');
  }
}

void AppendFraction(std::string* out, int64_t frac_ns, int digits) {
  if (digits <= 0) return;
  if (digits > 9) digits = 9;
  char buf[10];
  int64_t v = frac_ns;
  for (int i = 8; i >= 0; --i) {  // all nine digits, then keep the first `digits`
    buf[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  out->push_back('.');
  out->append(buf, static_cast<size_t>(digits));
}

int AutoDigits(int64_t frac_ns, int dflt_whole) {
  if (frac_ns == 0) return dflt_whole;
  return frac_ns % 1000 == 0 ? 6 : 9;
}

}  // namespace

DmonWriter::DmonWriter(std::vector<DmonField> fields, DmonWriterOptions options)
    : fields_(std::move(fields)), options_(options) {
  if (options_.entity_width < 1) options_.entity_width = 10;
  if (options_.field_width < 1) options_.field_width = 28;
  for (const DmonField& f : fields_) {
    const DcgmField* cf =
        f.field_id >= 0 ? FindFieldById(f.field_id) : FindFieldByName(f.short_name);
    int w = f.width;
    if (w <= 0 && cf != nullptr && cf->dmon_width > 0) w = cf->dmon_width;
    if (w <= 0) w = options_.field_width;
    widths_.push_back(w);
    types_.push_back(cf != nullptr ? static_cast<int>(cf->type) : -1);
  }
}

void DmonWriter::WritePrefix(std::string* out) {
  const int64_t ts = ts_ns_;
  if (options_.timestamp_style == DmonTimestampStyle::kNone || ts == kNoTime) return;
  char buf[64];
  switch (options_.timestamp_style) {
    case DmonTimestampStyle::kNone: return;
    case DmonTimestampStyle::kTs: {
      const int64_t days = FloorDiv(ts, kNsPerDay);
      const int64_t tod = ts - days * kNsPerDay;
      int64_t y = 0;
      unsigned m = 1, d = 1;
      CivilFromDays(days, &y, &m, &d);
      const int64_t secs = tod / kNsPerSec;
      std::snprintf(buf, sizeof(buf), "%s %02u %02d:%02d:%02d", kMonths[m - 1].data(), d,
                    static_cast<int>(secs / 3600), static_cast<int>(secs / 60 % 60),
                    static_cast<int>(secs % 60));
      out->append(buf);
      const int64_t frac = tod % kNsPerSec;
      AppendFraction(out, frac,
                     options_.fraction_digits >= 0 ? options_.fraction_digits : AutoDigits(frac, 0));
      break;
    }
    case DmonTimestampStyle::kTsRelative: {
      if (options_.relative_base_ns == kNoTime) options_.relative_base_ns = ts;
      int64_t rel = 0;
      if (__builtin_sub_overflow(ts, options_.relative_base_ns, &rel) || rel < 0) rel = 0;
      const int64_t secs = rel / kNsPerSec;
      std::snprintf(buf, sizeof(buf), "%02" PRId64 ":%02d:%02d", secs / 3600,
                    static_cast<int>(secs / 60 % 60), static_cast<int>(secs % 60));
      out->append(buf);
      const int64_t frac = rel % kNsPerSec;
      AppendFraction(out, frac,
                     options_.fraction_digits >= 0 ? options_.fraction_digits : AutoDigits(frac, 0));
      break;
    }
    case DmonTimestampStyle::kEpoch: {
      const int64_t secs = FloorDiv(ts, kNsPerSec);
      const int64_t frac = ts - secs * kNsPerSec;
      std::snprintf(buf, sizeof(buf), "%" PRId64, secs);
      out->append(buf);
      AppendFraction(out, frac,
                     options_.fraction_digits >= 0 ? options_.fraction_digits : AutoDigits(frac, 6));
      break;
    }
    case DmonTimestampStyle::kIso: out->append(FormatIsoTimeNs(ts)); break;
  }
  out->push_back(' ');
}

void DmonWriter::WriteHeader(std::string* out) {
  WritePrefix(out);
  size_t from = out->size();
  out->append("#Entity");
  Pad(out, from, static_cast<size_t>(options_.entity_width), true);
  for (size_t i = 0; i < fields_.size(); ++i) {
    from = out->size();
    out->append(fields_[i].short_name);
    Pad(out, from, static_cast<size_t>(widths_[i]), i + 1 < fields_.size());
  }
  out->push_back('\n');
  WritePrefix(out);
  from = out->size();
  out->append("ID");
  Pad(out, from, static_cast<size_t>(options_.entity_width), true);
  for (size_t i = 0; i < fields_.size(); ++i) {
    from = out->size();
    out->append(fields_[i].unit);
    Pad(out, from, static_cast<size_t>(widths_[i]), i + 1 < fields_.size());
  }
  out->push_back('\n');
}

void DmonWriter::BeginIteration(int64_t ts_ns, std::string* out) {
  ts_ns_ = ts_ns;
  if (iterations_ == 0 || (options_.header_every > 0 && iterations_ % options_.header_every == 0)) {
    WriteHeader(out);
  }
  ++iterations_;
}

void DmonWriter::WriteRow(const DmonEntity& entity, const std::vector<double>& values,
                          const std::vector<std::string>& text, std::string* out) {
  WritePrefix(out);
  size_t from = out->size();
  out->append(DmonEntityLabel(entity));
  Pad(out, from, static_cast<size_t>(options_.entity_width), true);
  char buf[64];
  for (size_t i = 0; i < fields_.size(); ++i) {
    from = out->size();
    const size_t width = static_cast<size_t>(widths_[i]);
    const bool has_text = i < text.size() && !text[i].empty();
    const double v = i < values.size() ? values[i] : NAN;
    if (has_text) {
      const std::string& t = text[i];
      if (width > 5 && t.size() > width - 2) {
        out->append(t, 0, width - 5);
        out->append("...");
      } else {
        out->append(t);
      }
    } else if (std::isnan(v)) {
      out->append("N/A");
    } else {
      const int type = types_[i];
      const bool integral = std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9.2e18;
      if (integral && type != static_cast<int>(FieldValueType::kDouble)) {
        std::snprintf(buf, sizeof(buf), "%" PRId64, static_cast<int64_t>(v));
      } else {
        std::snprintf(buf, sizeof(buf), "%.3f", v);
      }
      out->append(buf);
    }
    Pad(out, from, width, i + 1 < fields_.size());
  }
  out->push_back('\n');
}

void DmonWriter::WriteStop(std::string* out) {
  WritePrefix(out);
  out->append(kStopMessage);
  out->push_back('\n');
}

std::string WriteDmon(const std::vector<DmonField>& fields, const std::vector<DmonRow>& rows,
                      const DmonWriterOptions& options) {
  DmonWriter w(fields, options);
  std::string out;
  std::vector<uint64_t> keys;
  std::unordered_set<uint64_t> key_set;
  for (const DmonRow& r : rows) {
    const uint64_t key = EntityKey(r.entity);
    const bool seen = keys.size() < 64 ? std::find(keys.begin(), keys.end(), key) != keys.end()
                                       : key_set.count(key) != 0;
    if (w.iterations() == 0 || seen) {
      w.BeginIteration(r.ts_ns, &out);
      keys.clear();
      key_set.clear();
    }
    keys.push_back(key);
    if (keys.size() == 64) key_set.insert(keys.begin(), keys.end());
    if (keys.size() > 64) key_set.insert(key);
    w.SetTime(r.ts_ns);
    w.WriteRow(r.entity, r.values, r.text, &out);
  }
  if (rows.empty()) w.BeginIteration(kNoTime, &out);
  if (options.write_stop_message) w.WriteStop(&out);
  return out;
}

}  // namespace toposcope::formats
