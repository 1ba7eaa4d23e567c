// formats/fabric/perfquery: InfiniBand port counters as infiniband-diags `perfquery` prints them,
// plain or extended (`-x`): a `# Port counters: Lid <lid> port <port>` (or `# Port extended
// counters: ...`, `... Lid <lid> all ports`) header with an optional `(CapMask: 0x.. CapMask2: 0x..)`,
// then one `<Name>:....<value>` line per counter (decimal, or 0x hex for the select masks). Older
// perfquery builds print short names (`SymbolErrors`, `LinkRecovers`, `LinkDowned`, `XmtData`, ...):
// they are read under the current names. Several blocks may follow one another (a collection
// script running perfquery per port into one file).
//
// What names the port: the header's LID and port; without a header (some builds and wrappers
// print none), the `perfquery [-x] <lid> <port>` command line before the counters (a shell prompt
// line, or `# perfquery ...` as a root prompt), else `PortSelect` for the port. perfquery names no
// node: the LID is mapped to a switch or adapter by the fabric dump of the same data set
// (analysis/fabric/port_counters). Snapshot time: a `timestamp <epoch seconds>` line (also
// `# timestamp ...`), as collection scripts append after each block; it dates the block it follows
// when that block has none, and the blocks after it otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

// One block of counters (one port, one read).
struct PortCounterBlock {
  int lid = -1;               // -1 when nothing named it
  int port = -1;              // -1 when nothing named it; 255 for `all ports` (perfquery's sum)
  bool extended = false;      // `# Port extended counters` (64-bit data counters)
  std::string named_by;       // "header", "command line", "port select" or "" (nothing)
  std::string cap_mask;       // as printed after `CapMask:` ("0x5300"); "" when absent
  bool has_time = false;
  double time_s = 0;          // the block's `timestamp` (epoch seconds) when has_time
  std::map<std::string, uint64_t> counters;  // by the current perfquery name ("LinkDownedCounter")
  int64_t line = 0;           // its header line, else its first counter line
  // ibqueryerrors (formats/fabric/ibqueryerrors.h) names the node instead of the LID: the GUID and
  // description of its `Errors for` header (the GUID only for a switch) and the port's GUID.
  std::string node_guid, node_desc, port_guid;
};

struct PortCounters {
  std::string tool = "perfquery";        // "perfquery", or "ibqueryerrors" (it prints only the
                                         // counters above its thresholds: one absent is 0)
  std::string source;                    // the file (ParsePerfquery's `source`)
  std::vector<PortCounterBlock> blocks;  // in file order
  ReadCounts counts;                     // one record per header and per counter line
};

// Parses perfquery output. Rejected, with line and reason: a counter whose value is no number, a
// header without `Lid <n> port <n>` / `all ports`, a counter named twice in one block, and any other
// non-blank line; skipped with a warning: the command line, `ibwarn:` / `iberror:` lines, other `#`
// comments and a header's CapMask wrapped onto the next line. Fails when the input is binary or
// holds no header and no counter line.
Result<PortCounters> ParsePerfquery(std::string_view text, std::string_view source, Diagnostics& diag);

// True when the first bytes look like perfquery output: a `# Port counters:` / `# Port extended
// counters:` header, or two dotted counter lines of perfquery's names.
bool LooksLikePerfquery(std::string_view head);

// The current perfquery name of a counter printed under an older short name ("LinkDowned" ->
// "LinkDownedCounter"); other names unchanged.
std::string PerfqueryCounterName(std::string_view printed);

// The text perfquery prints for one block (the simulator's writer): the header (extended or not,
// with the CapMask when set), then the counters in perfquery -x order (names it does not know
// after, by name), each value from column 33; no timestamp. Never fails.
std::string WritePerfqueryBlock(const PortCounterBlock& block);

}  // namespace toposcope::formats
