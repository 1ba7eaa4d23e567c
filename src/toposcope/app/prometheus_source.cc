// app/prometheus_source: DCGM series from a Prometheus server (see prometheus_source.h).
#include "toposcope/app/prometheus_source.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>
#include <vector>

#include "toposcope/base/text.h"
#include "toposcope/formats/dcgm/prometheus_query.h"
#include "toposcope/model/dcgm_read.h"

namespace toposcope::app {
namespace {

// Answers larger than this are refused (a query over too many series or steps).
constexpr size_t kMaxAnswerBytes = size_t{1} << 30;

Error UsageError(const std::string& what, const std::string& hint) {
  return MakeKindError(ErrorKind::kUsage, what, hint);
}

// "1796469756.125" from ns (the API takes fractions of a second).
std::string UnixSecondsText(int64_t ns) {
  const int64_t s = FloorDiv(ns, 1'000'000'000);
  const int64_t frac = ns - s * 1'000'000'000;
  std::string out = std::to_string(s);
  if (frac != 0) {
    std::string digits = std::to_string(frac);
    digits = std::string(9 - digits.size(), '0') + digits;
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

// The host of a value without a Hostname label: its scrape target (`instance`) without the port.
std::string InstanceHost(const formats::PromSample& s) {
  const std::string* instance = s.Label("instance");
  if (instance == nullptr) return "";
  std::string host = *instance;
  const size_t colon = host.rfind(':');
  if (colon != std::string::npos && host.find(']') == std::string::npos && host.find(':') == colon) {
    host = host.substr(0, colon);  // "node7:9400" (an IPv6 "[::1]:9400" keeps its brackets)
  } else if (!host.empty() && host.front() == '[' && colon != std::string::npos && host[colon - 1] == ']') {
    host = host.substr(1, colon - 2);
  }
  return host;
}

// One query_range request; its body, or why there is none (kInput, naming the URL).
Result<std::string> FetchPiece(httplib::Client& client, const PrometheusQuery& q, int64_t start_ns, int64_t end_ns) {
  const httplib::Params params = {{"query", q.query},
                                  {"start", UnixSecondsText(start_ns)},
                                  {"end", UnixSecondsText(end_ns)},
                                  {"step", UnixSecondsText(q.step_ns)}};
  const std::string path = q.prefix + "/api/v1/query_range";
  auto res = client.Get(path, params, httplib::Headers{{"Accept", "application/json"}});
  if (!res) {
    const httplib::Error e = res.error();
    const std::string why = e == httplib::Error::Connection ? "cannot connect (is Prometheus running there?)"
                            : e == httplib::Error::Read     ? "no answer in time, or the connection broke"
                                                            : httplib::to_string(e);
    return MakeError(q.url, 0, 0, "Prometheus query failed: " + why,
                     "check --prometheus (http://HOST:9090) and that the server is reachable");
  }
  if (res->body.size() > kMaxAnswerBytes) {
    return MakeError(q.url, 0, 0, "the answer is larger than 1 GiB", "narrow --range or raise --step");
  }
  // Prometheus's error answers come with 400 / 422 / 503 and say why in their JSON body: the
  // reader reports them; any other failing status (a proxy's 404 or 502) is named as it is.
  const bool json_error = (res->status == 400 || res->status == 422 || res->status == 503) &&
                          res->body.find("\"status\"") != std::string::npos;
  if (res->status != 200 && !json_error) {
    return MakeError(q.url, 0, 0,
                     "Prometheus query failed: HTTP " + std::to_string(res->status) + " from " + path +
                         (res->body.empty() ? "" : " (" + std::string(Trim(res->body.substr(0, 100))) + ")"),
                     "check the URL: http://HOST:9090, with the path prefix if Prometheus sits behind one");
  }
  return std::move(res->body);
}

// "00000000:0E:00.0" (dcgm-exporter's pci_bus_id) as the dataset writes bus ids: "0000:0e:00.0".
std::string DatasetBusId(std::string_view label) {
  std::string out(label);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t colon = out.find(':');
  if (colon == 8 && out.compare(0, 4, "0000") == 0) out = out.substr(4);
  return out;
}

// What a value's labels say of its GPU (modelName, pci_bus_id), where no other input said it.
void NoteGpu(const formats::PromSample& s, const model::DcgmPoint& p, model::Dataset* ds) {
  if (p.entity != model::DcgmEntity::kGpu || p.gpu < 0 || p.host.empty()) return;
  model::GpuInfo& g = ds->Host(p.host).gpus[p.gpu];
  g.index = p.gpu;
  if (const std::string* m = s.Label("modelName"); m != nullptr && g.model.empty()) g.model = *m;
  if (const std::string* b = s.Label("pci_bus_id"); b != nullptr && g.bus_id.empty()) g.bus_id = DatasetBusId(*b);
}

}  // namespace

Result<PrometheusQuery> CheckPrometheusRequest(const PrometheusRequest& req) {
  PrometheusQuery q;
  q.url = req.url;
  q.query = req.query;
  q.timeout_s = req.timeout_s;
  const std::string_view url = req.url;
  const size_t scheme = url.rfind("http://", 0) == 0 ? 7 : url.rfind("https://", 0) == 0 ? 8 : 0;
  if (scheme == 0 || url.size() <= scheme) {
    return UsageError("--prometheus: '" + req.url + "' is not an http:// or https:// URL", "e.g. http://127.0.0.1:9090");
  }
  const size_t slash = url.find('/', scheme);
  q.server = std::string(url.substr(0, slash));
  q.prefix = slash == std::string_view::npos ? std::string() : std::string(url.substr(slash));
  while (!q.prefix.empty() && q.prefix.back() == '/') q.prefix.pop_back();
  if (q.server.size() <= scheme || q.server.find_first_of("?#@ ") != std::string::npos ||
      q.prefix.find_first_of("?# ") != std::string::npos) {
    return UsageError("--prometheus: '" + req.url + "' is not http://HOST[:PORT][/PREFIX]", "e.g. http://127.0.0.1:9090");
  }
  const size_t comma = req.range.find(',');
  const std::optional<int64_t> start =
      comma == std::string::npos ? std::nullopt : formats::ParsePromApiTimeNs(req.range.substr(0, comma));
  const std::optional<int64_t> end =
      comma == std::string::npos ? std::nullopt : formats::ParsePromApiTimeNs(req.range.substr(comma + 1));
  if (!start || !end) {
    return UsageError("--range: '" + req.range + "' is not START,END",
                      "each an RFC 3339 time (2026-12-05T11:00:00Z) or Unix seconds (1796468400)");
  }
  if (*start >= *end) return UsageError("--range: START must be before END", "");
  q.start_ns = *start;
  q.end_ns = *end;
  const std::optional<double> step = ParseDouble(req.step);
  if (!step || *step < 0.001 || *step > 86400 * 365) {
    return UsageError("--step: '" + req.step + "' is not a number of seconds from 0.001 on", "e.g. --step 1 or --step 0.1");
  }
  q.step_ns = std::llround(*step * 1e9);
  if (!(q.timeout_s > 0)) return UsageError("the Prometheus timeout must be positive", "");
  return q;
}

std::vector<std::pair<int64_t, int64_t>> QueryPieces(const PrometheusQuery& q) {
  std::vector<std::pair<int64_t, int64_t>> out;
  const int64_t span = (kMaxPointsPerQuery - 1) * q.step_ns;
  for (int64_t t = q.start_ns; t <= q.end_ns;) {
    const int64_t end = std::min(q.end_ns, t + span);
    out.emplace_back(t, end);
    if (end >= q.end_ns || end > INT64_MAX - q.step_ns) break;
    t = end + q.step_ns;
  }
  return out;
}

Status AddPrometheusDcgm(const PrometheusQuery& q, model::Dataset* ds) {
  httplib::Client client(q.server);
  const auto whole = static_cast<time_t>(q.timeout_s);
  const auto usec = static_cast<time_t>((q.timeout_s - static_cast<double>(whole)) * 1e6);
  client.set_connection_timeout(whole, usec);
  client.set_read_timeout(whole, usec);
  client.set_write_timeout(whole, usec);
  client.set_keep_alive(true);

  model::InputFile in;
  in.path = q.url + " query_range " + q.query;
  in.format = "prometheus-query";
  ReadCounts counts;
  Status failed;
  for (const auto& [start_ns, end_ns] : QueryPieces(q)) {
    Result<std::string> body = FetchPiece(client, q, start_ns, end_ns);
    if (!body.ok()) {
      failed = body.error();
      break;
    }
    auto info = formats::ReadPromQueryResponse(
        *body, in.path,
        [&](const formats::PromSample& s) {
          std::optional<model::DcgmPoint> p = model::DcgmPointOfPromSample(s, InstanceHost(s));
          if (!p) return;
          ds->dcgm.Add(*p);
          NoteGpu(s, *p, ds);
        },
        ds->diag, counts);
    if (!info.ok()) {
      Error e = info.error();
      e.path = q.url;
      failed = e;
      break;
    }
    for (const std::string& w : info->warnings) ds->diag.Warn(in.path, 0, "", "Prometheus warns: " + w);
  }
  in.records = counts.read;
  in.accepted = counts.accepted;
  in.rejected = counts.rejected;
  if (!failed.ok()) {
    in.skipped = true;
    in.skip_reason = failed.error().ToString();
    ds->inputs.push_back(std::move(in));
    return failed;
  }
  if (counts.read == 0) {
    ds->diag.Warn(in.path, 0, "", "no DCGM series in " + FormatIsoTimeNs(q.start_ns) + " .. " + FormatIsoTimeNs(q.end_ns));
  }
  ds->inputs.push_back(std::move(in));
  return {};
}

}  // namespace toposcope::app
