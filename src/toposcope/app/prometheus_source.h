// app/prometheus_source: `analyze --prometheus URL --range START,END [--step S]`: reads DCGM series
// from a Prometheus server through its HTTP query API (`/api/v1/query_range`, cpp-httplib's
// client), turns each value into the DCGM point the DCGM file readers give (formats/dcgm/
// prometheus_query, model::DcgmPointOfPromSample) and folds them into a dataset with one input
// entry for the server (read / accepted / rejected values). Long ranges are fetched in pieces
// of at most kMaxPointsPerQuery steps (Prometheus refuses more than 11,000 per series).
#pragma once

#include <cstdint>
#include <string>

#include "toposcope/base/result.h"
#include "toposcope/model/dataset.h"

namespace toposcope::app {

// Steps per query_range request (Prometheus's limit is 11,000 points per series).
inline constexpr int64_t kMaxPointsPerQuery = 10000;

struct PrometheusRequest {
  std::string url;                // http[s]://HOST:PORT[/PREFIX]; empty: no Prometheus source
  std::string range;              // "START,END": RFC 3339 or Unix seconds each
  std::string step = "1";         // seconds between the values asked for (query_range's step)
  std::string query = "{__name__=~\"DCGM_FI_.+\"}";  // every DCGM field
  double timeout_s = 30;          // per request: connect, and each read
};

// A request checked: the server split into scheme://host:port and a path prefix, times in ns.
struct PrometheusQuery {
  std::string server;  // "http://127.0.0.1:9090"
  std::string prefix;  // "" or "/prometheus" (no trailing '/')
  std::string url;     // as given, for messages
  int64_t start_ns = 0, end_ns = 0, step_ns = 0;
  std::string query;
  double timeout_s = 30;
};

// Checks a request. Fails (kUsage) on a URL that is not http[s]://HOST[:PORT][/PREFIX], a range that is not two times START,END with START < END, or a step that is not a positive
// number of seconds.
Result<PrometheusQuery> CheckPrometheusRequest(const PrometheusRequest& req);

// The query_range requests' parameters, in order: [start, end] cut into pieces of at most
// kMaxPointsPerQuery steps, each starting one step after the last one's end. Never fails.
std::vector<std::pair<int64_t, int64_t>> QueryPieces(const PrometheusQuery& q);

// Fetches the series and folds them into `ds`: every value of a DCGM field becomes a DcgmPoint
// (host from the Hostname / hostname label, else from `instance` without its port), each GPU a
// value names is a GPU of its host (model from `modelName`, bus id from `pci_bus_id`, where no other
// input gave them), and ds.inputs
// gets one entry named "<url> query_range <query>" (format "prometheus-query") with the values
// read, accepted and rejected (a rejected value's reason is in ds.diag). Fails (kInput), with the
// URL and the reason, when the server cannot be reached, does not answer in time, answers an HTTP
// error or an error answer, or answers something that is not the query API's JSON; `ds` then
// holds the pieces read before.
Status AddPrometheusDcgm(const PrometheusQuery& q, model::Dataset* ds);

}  // namespace toposcope::app
