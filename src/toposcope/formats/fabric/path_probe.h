// formats/fabric/path_probe: path probes, the hop lists traffic between two endpoints took, with an RTT.
// Three inputs: our CSV and JSONL layouts (documented in docs/path_probe.md: ts, src, dst, hops,
// rtt_us), Linux `traceroute` text output (`traceroute to X (ip), 30 hops max, ...` followed by
// ` 1  name (ip)  0.123 ms ...` hop lines, `*` for silent probes) and infiniband-diags
// `ibtracert` text output (`From ca {guid} portnum 1 lid 2-2 "name"`, `[1] -> switch port
// {guid}[17] lid 3-3 "name"`, ..., `To ca ...`). Read streaming (LineReader + sink) and our
// layouts written (for the simulator and round trips).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

// The name used for a hop that did not answer (`*` in traceroute).
inline constexpr std::string_view kUnknownHop = "*";

struct PathProbe {
  int64_t ts_ns = 0;               // Unix-epoch ns; kNoTime (base/time.h) when the input has none
                                   // (traceroute/ibtracert text)
  std::string src;                 // source endpoint; may be empty (traceroute does not print it)
  std::string dst;                 // destination endpoint; non-empty
  // The nodes between src and dst in order. Our layouts: as given (a leading src or trailing dst
  // is kept as given; analysis drops them). traceroute: each hop's first responder, named by its
  // DNS name when printed else its address, kUnknownHop for `* * *`; the final hop is the
  // destination when it answered. ibtracert: the switches' names (quoted description, else
  // the GUID), then the destination CA's name.
  std::vector<std::string> hops;
  double rtt_us = NAN;             // end-to-end RTT in µs; NaN when absent (traceroute: the
                                   // minimum of the destination hop's times, NaN if it never
                                   // answered; ibtracert: NaN)
  std::vector<double> hop_rtt_us;  // traceroute only: per hop, the minimum of its answered times,
                                   // NaN for silent hops; empty otherwise
  int64_t line = 0;                // 1-based line where the probe starts; 0 when built in memory

  // Equality ignores `line`; NaNs compare equal.
  friend bool operator==(const PathProbe& a, const PathProbe& b);
};

enum class PathProbeLayout { kCsv, kJsonl, kTraceroute, kIbtracert };

struct PathProbeSummary {
  PathProbeLayout layout = PathProbeLayout::kCsv;
  ReadCounts counts;          // CSV/JSONL: one record per data line; traceroute/ibtracert: one
                              // record per hop line or header line (a probe is emitted when its
                              // block ends); rejected lines keep their line and reason
  int64_t probes = 0;         // probes emitted to the sink
  int64_t unknown_hops = 0;   // hops recorded as kUnknownHop
};

using PathProbeSink = std::function<void(const PathProbe&)>;

// Streams path probes. The layout is chosen from the first non-blank, non-comment line:
// `{` -> JSONL, `traceroute to ` -> traceroute, `From ` (ibtracert) -> ibtracert, else CSV with a
// header naming at least `src`, `dst`, `hops` (ts and rtt_us optional). CSV hops are
// `;`-separated (empty = no intermediate hop); JSONL hops a JSON array of strings. Rejected with
// line and reason (counted): bad/negative/NaN rtt, bad ts, empty dst, empty hop name, wrong column
// count, traceroute hop numbers out of order, hop lines outside a block, lines that fit no
// layout. Fails only when the input is not this format (binary, no recognisable header) or on an
// I/O error.
// For traceroute/ibtracert text, `default_src` names the source (they do not print it).
Result<PathProbeSummary> ReadPathProbes(LineReader& reader, std::string_view source,
                                        Diagnostics& diag, const PathProbeSink& sink,
                                        std::string_view default_src = {});
// Same over an in-memory text: returns the summary; fails as ReadPathProbes.
Result<PathProbeSummary> ParsePathProbes(std::string_view text, std::string_view source,
                                         Diagnostics& diag, const PathProbeSink& sink,
                                         std::string_view default_src = {});

// A probe's node list: src, its hops (a leading src / trailing dst hop dropped), dst.
std::vector<std::string> ProbeNodes(const PathProbe& p);

// Writers of our layouts. CSV header `ts_ns,src,dst,hops,rtt_us` (rtt_us with 3 decimals, empty
// when NaN; hops `;`-joined); JSONL {"ts_ns":..,"src":..,"dst":..,"hops":[..],"rtt_us":..}
// (rtt_us null when NaN). Round-trip through ReadPathProbes (rtt to 3 decimals; hop_rtt_us is
// not written). Names must not contain ',', ';', '"' or newlines for CSV (JSONL takes anything).
std::string PathProbeCsvHeader();                       // with trailing '\n'
std::string FormatPathProbeCsvLine(const PathProbe& p);   // with trailing '\n'
std::string FormatPathProbeJsonLine(const PathProbe& p);  // with trailing '\n'

}  // namespace toposcope::formats
