// act/eadps_stream: one line of the EADPS entropy stream (`toposcope schedule --follow`, JSON lines on
// stdin; docs/schedule.md). A line is a JSON object:
//   "link"             string, non-empty: the link's id (a host pair "hostA~hostB", a capture point
//                      "capture:<point>", or any name)
//   "window_start_ns"  integer, 0 .. 4e18   or  "t_s": number, 0 .. 4e9 (seconds)
//   "window_ns"        integer, 1 .. 1e15   or  "window_s": number, > 0 and <= 1e6
//   "bits"             number: the watched estimator's entropy of that window
//   "shown_bits"       number, optional: the shown estimator's
//   "estimator"        string, optional: a line naming another estimator than the watched one is
//                      skipped (so one stream may carry several estimators)
// JSON has no NaN: a NaN or infinite "bits" (NaN, nan, Infinity, null, "nan") is named as such.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "toposcope/act/eadps.h"
#include "toposcope/base/result.h"

namespace toposcope::act {

// Parses one line. Returns nullopt for a blank line or a line of another estimator; the point
// otherwise. Fails (kInput) with the reason, without a location (the caller adds "<source>:LINE: ").
Result<std::optional<EntropyPoint>> ParseEntropySampleLine(std::string_view line, const std::string& watched_estimator);

}  // namespace toposcope::act
