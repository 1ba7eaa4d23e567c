// base/time: time points as int64 nanoseconds. A node's own clock (LocalNs) and the global axis
// after alignment (GlobalNs) are different types, so they cannot be mixed by accident. Also the
// timestamp spellings the inputs use (ISO-8601, "YYYY-MM-DD HH:MM:SS", epoch seconds/ms/us/ns).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace toposcope {

inline constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

// A time on one host's clock (ns since the Unix epoch as that clock believes, or since boot for
// monotonic sources; the reader says which).
struct LocalNs {
  int64_t ns = kNoTime;
  friend auto operator<=>(const LocalNs&, const LocalNs&) = default;
};
// A time on the global (reference) axis, ns since the Unix epoch.
struct GlobalNs {
  int64_t ns = kNoTime;
  friend auto operator<=>(const GlobalNs&, const GlobalNs&) = default;
};

// a / b rounded toward minus infinity (b != 0): the day or window index of a time before or after
// the epoch.
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Days since 1970-01-01 of a proleptic Gregorian date (no range checks beyond the obvious).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);

// Parses ISO-8601 / RFC 3339 date-times: "2024-05-01T12:00:00Z", "...T12:00:00.123456+02:00",
// "2024-05-01 12:00:00" (space, no zone = UTC), fractional seconds up to ns. Returns ns since the
// epoch, or nullopt.
std::optional<int64_t> ParseIsoTimeNs(std::string_view s);

// Parses a number of seconds, milliseconds, microseconds or nanoseconds since the epoch, telling
// the unit by magnitude (s < 1e11 <= ms < 1e14 <= us < 1e17 <= ns). Fractions allowed.
std::optional<int64_t> ParseEpochAutoNs(std::string_view s);

// A timestamp cell (trimmed): with `integer_ns` a plain signed integer is taken as ns as it is;
// otherwise, and for anything else, epoch s/ms/us/ns by magnitude (ParseEpochAutoNs) or ISO 8601.
std::optional<int64_t> ParseTimestampNs(std::string_view s, bool integer_ns);

// Formats ns since the epoch as "2024-05-01T12:00:00.123456789Z".
std::string FormatIsoTimeNs(int64_t ns);

}  // namespace toposcope
