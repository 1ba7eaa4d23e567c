// formats/dcgm/prometheus_query: the JSON answer of Prometheus's HTTP query API
// (`/api/v1/query_range`, and `/api/v1/query` with an instant vector):
//
//   {"status": "success", "data": {"resultType": "matrix",
//     "result": [{"metric": {"__name__": "DCGM_FI_DEV_GPU_TEMP", "gpu": "0", ...},
//                 "values": [[1796469756.125, "26"], ...]}, ...]}, "warnings": [...]}
//
// Each [unix seconds, "value"] pair is one record, handed on as a PromSample (the same record the
// exposition reader gives), so that the DCGM view of prometheus_text.h and the DCGM loading of
// model/ serve both. An error answer ({"status": "error", "errorType": ..., "error": ...}) fails
// with Prometheus's own words. Fetching is not done here (app/prometheus_source does it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/dcgm/prometheus_text.h"

namespace toposcope::formats {

// What one answer held, besides its samples.
struct PromQueryInfo {
  std::string result_type;            // "matrix" (query_range) or "vector" (an instant query)
  int64_t series = 0;                 // entries of data.result
  int64_t samples = 0;                // samples handed to the sink
  int64_t non_finite = 0;             // of those, "NaN", "+Inf" or "-Inf" values (value NaN)
  std::vector<std::string> warnings;  // the answer's "warnings" and "infos", as given
};

// Reads one answer. Every value pair is a record: a pair that is not [number, "number"], a time
// out of range, a value of a series whose `metric` is not an object of strings, and each native
// histogram point (not a DCGM value) is rejected into `diag` (source `source`, line 0, the series
// and pair named in the reason). Each accepted pair goes to `sink` as a PromSample: `name` from
// `__name__` (empty when the query dropped it), the other labels in key order, `ts_ms` the time
// rounded to the millisecond, `scrape_index` the pair's position in its series.
// Fails (kInput) when the text is not JSON or not such an answer, when Prometheus answered an error
// (the message carries errorType and error), when the result is a scalar or a string (not series),
// and when it held records but not one was accepted.
Result<PromQueryInfo> ReadPromQueryResponse(std::string_view json_text, std::string_view source,
                                            const PromSampleSink& sink, Diagnostics& diag, ReadCounts& counts);

// A whole answer kept in memory (tests, small answers).
struct PromQueryAnswer {
  PromQueryInfo info;
  std::vector<PromSample> samples;
};
// Reads a whole answer into a PromQueryAnswer; fails as ReadPromQueryResponse.
Result<PromQueryAnswer> ParsePromQueryResponse(std::string_view json_text, std::string_view source,
                                               Diagnostics& diag, ReadCounts& counts);

// Parses a time of the query API as Prometheus accepts it: RFC 3339 ("2026-12-05T11:22:30Z",
// "...+01:00", fractions allowed) or Unix seconds ("1796469756", "1796469756.125"). Returns ns
// since the epoch, or nullopt.
std::optional<int64_t> ParsePromApiTimeNs(std::string_view text);

}  // namespace toposcope::formats
