// report/html/report_view_net: the network parts of the HTML report's view (see report_view.h):
// the traffic matrices (RDMA bytes host to host, per leaf on large clusters; the NVLink GPU-pair
// matrix of NVSwitch hosts), the NIC ports and the QP pattern classes. ReportViewJson calls these.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "toposcope/report/html/report_view.h"

namespace toposcope::report::html {

// `traffic`: {flows {by (host / leaf), names[], cells[[src, dst, bytes, flows, gbps]], ...},
// nvlink {hosts[[...]], reasons[], matrices{host: {gpus, pairs[[src, dst, bytes/s, err, supported]]}}, ...}}.
// `host_names` are the view's hosts (report_view's index), `leaves` the fabric view's leaves (hosts by
// that index): the groups of the flow matrix when it has more than `limits.traffic_hosts` hosts.
nlohmann::json TrafficView(const nlohmann::json& result, const std::vector<std::string>& host_names,
                           const nlohmann::json& leaves, const ViewLimits& limits);

// `nics`: {ports[[host, device, port, state, physical state, rate Gb/s, link layer, model, firmware,
// GIDs, QPs, sources, finding]], total, findings[], summary[[model, link layer, rate, state, ports]]}.
nlohmann::json NicPortsView(const nlohmann::json& result, const ViewLimits& limits);

// `patterns`: {rows[[scope, class, QPs, windows, allreduce share, pipeline share, median sync,
// state entropy, reset density, seed class, evidence]], total, classes{class: scopes}, note, ...}.
nlohmann::json QpPatternsView(const nlohmann::json& result, const ViewLimits& limits);

}  // namespace toposcope::report::html
