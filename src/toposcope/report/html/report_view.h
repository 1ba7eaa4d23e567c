// report/html/report_view: the data the HTML report draws, taken from a result.json object and
// kept small: hosts by index, per-leaf groups, the GPU links of every host as rows, the entropy
// series of the most telling links downsampled, the traffic matrices, NIC ports and QP patterns
// (report_view_net.h), long lists capped with a count of what was left out.
// The report's script (report_script.cc) reads exactly this object (docs/report_html.md).
#pragma once

#include <nlohmann/json.hpp>

namespace toposcope::report::html {

// Caps that keep a large cluster's report small enough to open quickly.
struct ViewLimits {
  int entropy_links = 24;          // entropy series kept (links with decisions first)
  int entropy_points = 240;        // windows per series (averaged down to this)
  int findings = 2000;             // DCGM / clock / servo findings on the time axis
  int symptoms = 300;              // hypothesis-tree symptoms
  int hypotheses_per_symptom = 4;  // hypotheses shown under each symptom
  int files = 400;                 // input files listed one by one (files with rejections first)
  int diagnostics_per_file = 3;    // first diagnostics shown per file
  int rings = 8;                   // NCCL rings drawn
  int clock_series_hosts = 6;      // hosts whose held-out residuals are drawn over time
  int traffic_hosts = 64;          // RDMA flow matrix host by host up to this many hosts, per leaf above
  int nvlink_hosts = 32;           // NVSwitch hosts whose NVLink GPU-pair matrix is kept
  int nic_ports = 2000;            // NIC ports listed (ports with findings, then ports not active, first)
  int qp_patterns = 400;           // QP pattern rows (the whole capture, jobs, then hosts)
  size_t text_chars = 400;         // evidence strings cut to this length
};

// Returns the view object of `result` (a result.json object, schema toposcope.result/1). Never
// fails: missing sections give empty parts of the view. Keys sorted (nlohmann::json), so the same
// result gives the same bytes.
nlohmann::json ReportViewJson(const nlohmann::json& result, const ViewLimits& limits = {});

}  // namespace toposcope::report::html
