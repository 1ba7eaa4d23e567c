// serve/server: the HTTP server (see server.h).
#include "toposcope/serve/server.h"

#include <httplib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "toposcope/report/export/metrics.h"
#include "toposcope/report/export/prometheus_export.h"
#include "toposcope/report/html/html_report.h"
#include "toposcope/serve/http_listen.h"
#include "toposcope/serve/input_watch.h"

namespace toposcope::serve {
namespace {

enum Endpoint { kIndex, kMetrics, kResult, kHostList, kHost, kReport, kRejected, kEndpoints };
constexpr std::array<const char*, kEndpoints> kEndpointNames = {"index", "metrics", "result", "hosts", "host", "report", "rejected"};

constexpr const char* kJson = "application/json";
constexpr const char* kHtml = "text/html; charset=utf-8";
constexpr const char* kText = "text/plain; charset=utf-8";
constexpr size_t kMaxHostsListed = 200;  // on the index page

// Percent-encodes everything but RFC 3986's unreserved characters.
std::string UrlEncode(const std::string& s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string IndexPage(const Snapshot* s) {
  std::string page =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>toposcope</title></head><body>\n"
      "<h1>toposcope</h1>\n<ul>\n"
      "<li><a href=\"/metrics\">/metrics</a>: Prometheus metrics</li>\n"
      "<li><a href=\"/api/result\">/api/result</a>: result.json</li>\n"
      "<li><a href=\"/api/hosts\">/api/hosts</a>: the hosts</li>\n";
  if (s && !s->report_html.empty()) page += "<li><a href=\"/report.html\">/report.html</a>: the report</li>\n";
  page += "</ul>\n";
  if (s) {
    page += "<p>Analysis " + std::to_string(s->generation) + ", " + std::to_string(s->host_json.size()) + " hosts:</p>\n<ul>\n";
    size_t n = 0;
    for (const auto& [host, part] : s->host_json) {
      if (++n > kMaxHostsListed) break;
      page += "<li><a href=\"/api/hosts/" + report::html::EscapeHtml(UrlEncode(host)) + "\">" + report::html::EscapeHtml(host) + "</a></li>\n";
    }
    if (s->host_json.size() > kMaxHostsListed) {
      page += "<li>and " + std::to_string(s->host_json.size() - kMaxHostsListed) + " more (/api/hosts)</li>\n";
    }
    page += "</ul>\n";
  }
  return page + "</body></html>\n";
}

double NowUnixS() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

struct Server::Impl {
  ServeOptions opt;
  AnalyzeFunction analyze;
  httplib::Server http;

  mutable std::mutex snapshot_mu;
  std::shared_ptr<const Snapshot> snapshot;
  std::mutex analyze_mu;  // one analysis at a time
  InputFingerprint analysed_fp;

  // The server's own metrics.
  std::atomic<int64_t> analyses{0}, failures{0};
  std::atomic<double> last_duration_s{0}, last_success_unix_s{0};
  std::atomic<bool> last_ok{false};
  std::array<std::atomic<int64_t>, kEndpoints> requests{};

  HttpListener listener;

  void Count(Endpoint e) { requests[e].fetch_add(1, std::memory_order_relaxed); }
  std::shared_ptr<const Snapshot> Current() const {
    std::lock_guard<std::mutex> lock(snapshot_mu);
    return snapshot;
  }
  void Routes();
  void Watch();
  Status AnalyzeNow();
  std::string MetricsText() const;
};

void Server::Impl::Routes() {
  http.Get("/", [this](const httplib::Request&, httplib::Response& res) {
    Count(kIndex);
    res.set_content(IndexPage(Current().get()), kHtml);
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    Count(kMetrics);
    res.set_content(MetricsText(), report::kPrometheusContentType);
  });
  http.Get("/api/result", [this](const httplib::Request&, httplib::Response& res) {
    Count(kResult);
    const auto s = Current();
    res.set_content(s ? s->result_json : "{}\n", kJson);
  });
  http.Get("/api/hosts", [this](const httplib::Request&, httplib::Response& res) {
    Count(kHostList);
    const auto s = Current();
    res.set_content(s ? s->hosts_json : "{\"hosts\": []}\n", kJson);
  });
  http.Get(R"(/api/hosts/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
    Count(kHost);
    const auto s = Current();
    const auto it = s ? s->host_json.find(req.matches[1].str()) : std::map<std::string, std::string>::const_iterator();
    if (s && it != s->host_json.end()) {
      res.set_content(it->second, kJson);
      return;
    }
    res.status = 404;
    res.set_content("no such host (/api/hosts lists them)\n", kText);
  });
  http.Get("/report.html", [this](const httplib::Request&, httplib::Response& res) {
    Count(kReport);
    const auto s = Current();
    if (!s || s->report_html.empty()) {
      res.status = 404;
      res.set_content("no report: the run wrote none\n", kText);
      return;
    }
    res.set_content(s->report_html, kHtml);
  });
  const auto not_allowed = [this](const httplib::Request&, httplib::Response& res) {
    Count(kRejected);
    res.status = 405;
    res.set_header("Allow", "GET, HEAD");
    res.set_content("method not allowed: GET or HEAD\n", kText);
  };
  // Before any body is read: every method but GET and HEAD.
  http.set_pre_routing_handler([not_allowed](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "GET" || req.method == "HEAD") return httplib::Server::HandlerResponse::Unhandled;
    not_allowed(req, res);
    return httplib::Server::HandlerResponse::Handled;
  });
  http.set_error_handler([this](const httplib::Request&, httplib::Response& res) {
    if (res.status >= 400 && res.status != 405) Count(kRejected);
    if (res.body.empty()) res.set_content(std::to_string(res.status) + "\n", kText);
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content("internal error\n", kText);
  });
}

// Polls the inputs every poll_s, re-analyses when they changed and held still; stops the HTTP
// server once Stop() was asked for (httplib's stop is called from here alone, once, while it runs).
void Server::Impl::Watch() {
  ChangeDetector detector(analysed_fp);
  auto next_poll = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.poll_s);
  while (true) {
    const HttpListener::Turn turn = listener.AwaitStop(http);
    if (turn == HttpListener::Turn::kEnd) return;
    if (turn == HttpListener::Turn::kWait) continue;
    if (opt.poll_s <= 0 || std::chrono::steady_clock::now() < next_poll) continue;
    next_poll = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.poll_s);
    if (!detector.Poll(FingerprintInputs(opt.watch, opt.exclude_dir))) continue;
    const Status st = AnalyzeNow();
    detector.Analysed(analysed_fp);
    if (!st.ok()) {
      std::fprintf(stderr, "toposcope serve: re-analysis failed, still serving the last result: %s\n",
                   st.error().ToString().c_str());
    }
  }
}

// One analysis: on success its snapshot replaces the served one. The fingerprint is taken before
// the analysis reads anything, so a change during it is seen by the next poll. A failed analysis
// keeps the last snapshot and is not retried until the inputs change again.
Status Server::Impl::AnalyzeNow() {
  std::lock_guard<std::mutex> lock(analyze_mu);
  const InputFingerprint before = FingerprintInputs(opt.watch, opt.exclude_dir);
  const auto t0 = std::chrono::steady_clock::now();
  auto out = analyze();
  last_duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  analysed_fp = before;
  if (!out.ok()) {
    ++failures;
    last_ok = false;
    return out.error();
  }
  auto snap = std::make_shared<const Snapshot>(BuildSnapshot(*out, analyses + 1));
  {
    std::lock_guard<std::mutex> slock(snapshot_mu);
    snapshot = std::move(snap);
  }
  ++analyses;
  last_ok = true;
  last_success_unix_s = NowUnixS();
  return {};
}

Result<std::pair<std::string, int>> ParseListen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  const auto bad = [&] {
    return MakeKindError(ErrorKind::kUsage, "--listen: '" + listen + "' is not HOST:PORT", "e.g. 127.0.0.1:9400");
  };
  if (colon == std::string::npos || colon + 1 == listen.size() || listen.size() - colon > 6) return bad();
  int port = 0;
  for (size_t i = colon + 1; i < listen.size(); ++i) {
    if (listen[i] < '0' || listen[i] > '9') return bad();
    port = port * 10 + (listen[i] - '0');
  }
  if (port > 65535) return bad();
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  return std::make_pair(host, port);
}

Server::Server(ServeOptions opt, AnalyzeFunction analyze) : impl_(std::make_unique<Impl>()) {
  impl_->opt = std::move(opt);
  impl_->analyze = std::move(analyze);
  const int threads = std::max(1, impl_->opt.threads);
  impl_->http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  impl_->http.set_payload_max_length(64 * 1024);
  impl_->http.set_read_timeout(5, 0);
  impl_->http.set_write_timeout(5, 0);
  // A worker serves one connection at a time: keep-alive connections are bounded in requests and
  // idle time so that clients beyond the worker count wait briefly, not for a whole session.
  impl_->http.set_keep_alive_timeout(2);
  impl_->http.set_keep_alive_max_count(100);
  impl_->Routes();
}

Server::~Server() {
  Stop();
}

Status Server::Analyze() {
  return impl_->AnalyzeNow();
}

Result<int> Server::Bind() {
  return impl_->listener.Bind(impl_->http, impl_->opt.host, impl_->opt.port);
}

Status Server::Run() {
  return impl_->listener.Run(impl_->http, "serve", [this] { impl_->Watch(); });
}

void Server::Stop() {
  impl_->listener.Stop();
}

std::shared_ptr<const Snapshot> Server::Current() const {
  return impl_->Current();
}

std::string Server::MetricsText() const {
  return impl_->MetricsText();
}

std::string Server::Impl::MetricsText() const {
  const auto s = Current();
  std::vector<report::MetricFamily> own;
  const auto add = [&own](const char* name, const char* help, const char* unit, report::MetricType type, double v) {
    report::MetricFamily f;
    f.name = name;
    f.help = help;
    f.unit = unit;
    f.type = type;
    f.Add({}, v);
    own.push_back(std::move(f));
  };
  using report::MetricType;
  add("toposcope_serve_analyses_total", "Analyses the server completed", "1", MetricType::kCounter, static_cast<double>(analyses.load()));
  add("toposcope_serve_analysis_failures_total", "Analyses that failed (the last result stays served)", "1", MetricType::kCounter,
      static_cast<double>(failures.load()));
  add("toposcope_serve_last_analysis_success", "1 when the last analysis succeeded", "1", MetricType::kGauge, last_ok ? 1 : 0);
  add("toposcope_serve_last_analysis_duration_seconds", "Wall time of the last analysis", "s", MetricType::kGauge,
      last_duration_s.load());
  add("toposcope_serve_last_success_timestamp_seconds", "When the served analysis finished (Unix time)", "s", MetricType::kGauge,
      last_success_unix_s.load());
  report::MetricFamily req;
  req.name = "toposcope_serve_requests_total";
  req.help = "HTTP requests answered, by endpoint (rejected: 4xx)";
  req.unit = "1";
  req.type = MetricType::kCounter;
  for (size_t e = 0; e < kEndpoints; ++e) req.Add({{"endpoint", kEndpointNames[e]}}, static_cast<double>(requests[e].load()));
  own.push_back(std::move(req));
  report::NormaliseFamilies(own);
  return (s ? s->metrics_text : std::string()) + report::PrometheusText(own);
}

}  // namespace toposcope::serve
