// report/text/findings_csv: every finding of a result as one CSV row (`analyze --format csv`):
// kind, severity, host, where (GPU pair, GPU/link, switch port, NIC port...), detail. The same
// result gives the same bytes: rows in section order, each section in the result's order.
#pragma once

#include <string>

#include "toposcope/analysis/result.h"

namespace toposcope::report {

inline constexpr const char* kFindingsCsvHeader = "kind,severity,host,where,detail";

// The CSV text: the header line, then one row per finding. Severity is "error" for what breaks a
// data path (a degraded GPU link, a port down, a failed nccl-tests validation), "warning" for what
// slows or threatens it, "info" for what only shapes routing (a redundant hop). Never fails.
std::string FindingsCsv(const analysis::AnalysisResult& r);

}  // namespace toposcope::report
