#include "toposcope/base/time.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "toposcope/base/text.h"

namespace toposcope {

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

namespace {

bool Digits(std::string_view s, size_t pos, size_t n, int64_t* out) {
  if (pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

std::optional<int64_t> ParseIsoTimeNs(std::string_view s) {
  s = Trim(s);
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!Digits(s, 0, 4, &y) || s.size() < 19 || s[4] != '-' || !Digits(s, 5, 2, &mo) || s[7] != '-' ||
      !Digits(s, 8, 2, &d) || (s[10] != 'T' && s[10] != ' ' && s[10] != 't') || !Digits(s, 11, 2, &h) ||
      s[13] != ':' || !Digits(s, 14, 2, &mi) || s[16] != ':' || !Digits(s, 17, 2, &sec)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  size_t pos = 19;
  int64_t frac_ns = 0;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    ++pos;
    int64_t scale = 100000000;
    size_t digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 9) frac_ns += (s[pos] - '0') * scale;
      scale /= 10;
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
  }
  int64_t offset_s = 0;
  if (pos < s.size()) {
    if (s[pos] == 'Z' || s[pos] == 'z') {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      const int sign = s[pos] == '-' ? -1 : 1;
      int64_t oh = 0, om = 0;
      if (!Digits(s, pos + 1, 2, &oh)) return std::nullopt;
      size_t p = pos + 3;
      if (p < s.size() && s[p] == ':') ++p;
      if (!Digits(s, p, 2, &om)) return std::nullopt;
      offset_s = sign * (oh * 3600 + om * 60);
      pos = p + 2;
    }
  }
  if (pos != s.size()) return std::nullopt;
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - offset_s;
  // int64 ns covers 1677-09-21 .. 2262-04-11; outside, the stamp is no time we can hold.
  constexpr int64_t kMaxSecs = INT64_MAX / 1000000000 - 1;
  if (secs > kMaxSecs || secs < -kMaxSecs) return std::nullopt;
  return secs * 1000000000 + frac_ns;
}

std::optional<int64_t> ParseEpochAutoNs(std::string_view s) {
  s = Trim(s);
  if (s.empty() || s.size() > 40) return std::nullopt;
  const size_t dot = s.find('.');
  const std::string_view int_part = s.substr(0, dot);
  const std::string_view frac_part = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (int_part.empty() || int_part[0] == '-' || int_part[0] == '+') return std::nullopt;
  auto ip = ParseInt(int_part);
  if (!ip) return std::nullopt;
  for (char c : frac_part) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  // Unit by magnitude: s < 1e11 <= ms < 1e14 <= us < 1e17 <= ns.
  int64_t mult = 1;
  if (*ip < 100000000000LL) {
    mult = 1000000000;
  } else if (*ip < 100000000000000LL) {
    mult = 1000000;
  } else if (*ip < 100000000000000000LL) {
    mult = 1000;
  }
  if (*ip > INT64_MAX / mult) return std::nullopt;
  int64_t frac = 0;
  int64_t scale = mult / 10;
  for (char c : frac_part) {
    if (scale == 0) break;
    frac += (c - '0') * scale;
    scale /= 10;
  }
  return *ip * mult + frac;
}

std::string FormatIsoTimeNs(int64_t ns) {
  int64_t secs = ns >= 0 ? ns / 1000000000 : -((-ns + 999999999) / 1000000000);
  const int64_t frac = ns - secs * 1000000000;
  int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
  int64_t rem = secs - days * 86400;
  // civil_from_days
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2 ? 1 : 0;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%09lldZ", static_cast<long long>(y), m, d,
                static_cast<long long>(rem / 3600), static_cast<long long>((rem / 60) % 60),
                static_cast<long long>(rem % 60), static_cast<long long>(frac));
  return buf;
}

std::optional<int64_t> ParseTimestampNs(std::string_view s, bool integer_ns) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  std::string_view digits = s;
  if (digits.front() == '-' || digits.front() == '+') digits.remove_prefix(1);
  if (integer_ns && AllDigits(digits)) {
    if (digits.size() > 19) return std::nullopt;
    return ParseInt(s);
  }
  if (const auto v = ParseEpochAutoNs(s)) return v;
  return ParseIsoTimeNs(s);
}

}  // namespace toposcope
