// formats/fabric/ibqueryerrors: the error counters infiniband-diags `ibqueryerrors` prints for a
// whole fabric: per node with a counter above its threshold an `Errors for 0x<node guid> "<desc>"`
// (a switch) or `Errors for "<desc>"` (an adapter) header, then one line per port,
// `GUID 0x<port guid> port <n|ALL>: [<Counter> == <value>] ...` (ALL: the switch's sum), then a
// `## Summary: ...` block. Only counters above their thresholds are printed: a port or counter
// not printed had none. Read into the perfquery reader's records (formats/fabric/perfquery.h): one
// block per port line, named by the node's GUID and description instead of a LID (port ALL as
// 255); `Link info:` detail lines are skipped with a warning.
#pragma once

#include <string_view>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/fabric/perfquery.h"

namespace toposcope::formats {

// Parses ibqueryerrors output (tool "ibqueryerrors"). Records: each header and port line.
// Rejected, with line and reason: a port line before any header, a port line without `GUID 0x..
// port <n|ALL>:` or with a bracket that is not `[<Name> == <number>]`, a header without a quoted
// description, any other non-blank line; skipped: `##` summary lines, with a warning the command
// line, `Link info:` and `ibwarn:` lines. Fails when the input is binary or holds no header, port
// line or summary (a healthy fabric prints the summary alone: no blocks).
Result<PortCounters> ParseIbQueryErrors(std::string_view text, std::string_view source, Diagnostics& diag);

// True when the first bytes look like ibqueryerrors output: an `Errors for ` header followed by a
// `GUID 0x... port ...: [` line, or its `## Summary: N nodes checked` line.
bool LooksLikeIbQueryErrors(std::string_view head);

}  // namespace toposcope::formats
