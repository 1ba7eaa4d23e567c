// serve/exporter_server: the dcgm-exporter look-alike (see exporter_server.h).
#include "toposcope/serve/exporter_server.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "toposcope/base/time.h"
#include "toposcope/serve/http_listen.h"

namespace toposcope::serve {
namespace {

constexpr const char* kExpositionType = "text/plain; version=0.0.4; charset=utf-8";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The median of a series' first gaps (its sampling period), 0 with fewer than two samples.
int64_t MedianGapNs(const std::vector<std::pair<int64_t, double>>& pts) {
  std::vector<int64_t> gaps;
  for (size_t i = 1; i < pts.size() && gaps.size() < 64; ++i) {
    if (pts[i].first > pts[i - 1].first) gaps.push_back(pts[i].first - pts[i - 1].first);
  }
  if (gaps.empty()) return 0;
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
  return gaps[gaps.size() / 2];
}

}  // namespace

ExporterTimeline::ExporterTimeline(ExporterData data) : data_(std::move(data)) {
  int64_t lo = INT64_MAX, hi = INT64_MIN, period = INT64_MAX;
  std::set<std::string> hosts;
  for (ExporterSeries& s : data_.series) {
    std::stable_sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    if (s.points.empty()) continue;
    lo = std::min(lo, s.points.front().first);
    hi = std::max(hi, s.points.back().first);
    samples_ += static_cast<int64_t>(s.points.size());
    const int64_t gap = MedianGapNs(s.points);
    if (gap > 0) period = std::min(period, gap);
    for (const auto& [k, v] : s.labels) {
      if (k == "Hostname" || k == "hostname") hosts.insert(v);
    }
  }
  hosts_ = hosts.size();
  if (lo == INT64_MAX) return;
  t0_ns_ = lo;
  span_ns_ = hi - lo;
  if (period != INT64_MAX) period_ns_ = period;
}

std::string ExporterTimeline::Render(int64_t from_ns, int64_t to_ns, int64_t start_ms, int64_t* served) const {
  std::string out;
  int64_t n = 0;
  if (to_ns > from_ns && samples_ > 0) {
    const int64_t cycle = cycle_ns();
    const int64_t first_pass = std::max(FloorDiv(from_ns, cycle), FloorDiv(to_ns - 1, cycle) - 1);
    const int64_t last_pass = FloorDiv(to_ns - 1, cycle);
    formats::PromWriter writer;
    for (const formats::PromMetricInfo& m : data_.metadata) writer.SetMetadata(m);
    writer.BeginScrape();
    formats::PromSample sample;
    for (const ExporterSeries& s : data_.series) {
      sample.name = s.name;
      sample.labels = s.labels;
      for (int64_t pass = first_pass; pass <= last_pass; ++pass) {
        const int64_t base = pass * cycle;
        const int64_t lo = t0_ns_ + std::max<int64_t>(from_ns - base, 0);
        const int64_t hi = t0_ns_ + std::min<int64_t>(to_ns - base, cycle);
        auto it = std::lower_bound(s.points.begin(), s.points.end(), lo,
                                   [](const auto& p, int64_t t) { return p.first < t; });
        for (; it != s.points.end() && it->first < hi; ++it) {
          sample.value = it->second;
          sample.ts_ms = start_ms + FloorDiv(base + it->first - t0_ns_, 1'000'000);
          writer.Append(&out, sample);
          ++n;
        }
      }
    }
  }
  if (served != nullptr) *served = n;
  return out;
}

struct ExporterServer::Impl {
  ExporterOptions opt;
  ExporterTimeline timeline;
  httplib::Server http;

  mutable std::mutex mu;  // the cursor and the counters
  int64_t cursor_ns = 0;  // offsets below it were served
  int64_t scrapes = 0;
  int64_t served = 0;

  HttpListener listener;

  Impl(ExporterOptions o, ExporterData d) : opt(std::move(o)), timeline(std::move(d)) {}
  void Routes(ExporterServer* self);
};

void ExporterServer::Impl::Routes(ExporterServer* self) {
  http.Get("/metrics", [self](const httplib::Request& req, httplib::Response& res) {
    // HEAD only asks whether it is there: the cursor stays.
    res.set_content(req.method == "HEAD" ? std::string() : self->Scrape(NowMs()), kExpositionType);
  });
  http.Get("/status", [self](const httplib::Request&, httplib::Response& res) {
    res.set_content(self->StatusJson(), "application/json");
  });
  http.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>toposcope exporter</title></head><body>\n"
        "<h1>simulated dcgm-exporter</h1>\n<ul>\n<li><a href=\"/metrics\">/metrics</a>: DCGM series (each GET "
        "moves on)</li>\n<li><a href=\"/status\">/status</a>: how far</li>\n</ul>\n</body></html>\n",
        "text/html; charset=utf-8");
  });
  http.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "GET" || req.method == "HEAD") return httplib::Server::HandlerResponse::Unhandled;
    res.status = 405;
    res.set_header("Allow", "GET, HEAD");
    res.set_content("method not allowed: GET or HEAD\n", "text/plain; charset=utf-8");
    return httplib::Server::HandlerResponse::Handled;
  });
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) res.set_content(std::to_string(res.status) + "\n", "text/plain; charset=utf-8");
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content("internal error\n", "text/plain; charset=utf-8");
  });
}

ExporterServer::ExporterServer(ExporterOptions opt, ExporterData data)
    : impl_(std::make_unique<Impl>(std::move(opt), std::move(data))) {
  if (impl_->opt.start_ms == 0) impl_->opt.start_ms = NowMs();
  const auto threads = static_cast<size_t>(std::max(1, impl_->opt.threads));
  impl_->http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  impl_->http.set_payload_max_length(64 * 1024);
  impl_->http.set_read_timeout(5, 0);
  impl_->http.set_write_timeout(5, 0);
  impl_->http.set_keep_alive_timeout(2);
  impl_->Routes(this);
}

ExporterServer::~ExporterServer() {
  Stop();
}

std::string ExporterServer::Scrape(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const ExporterTimeline& t = impl_->timeline;
  const int64_t to = impl_->opt.samples_per_scrape > 0
                         ? impl_->cursor_ns + impl_->opt.samples_per_scrape * t.period_ns()
                         : std::max(impl_->cursor_ns, (now_ms - impl_->opt.start_ms) * 1'000'000);
  int64_t n = 0;
  std::string text = t.Render(impl_->cursor_ns, to, impl_->opt.start_ms, &n);
  impl_->cursor_ns = to;
  ++impl_->scrapes;
  impl_->served += n;
  return text;
}

std::string ExporterServer::StatusJson() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const ExporterTimeline& t = impl_->timeline;
  nlohmann::ordered_json j;
  j["scrapes"] = impl_->scrapes;
  j["samples_served"] = impl_->served;
  j["served_until_unix_ms"] = impl_->opt.start_ms + impl_->cursor_ns / 1'000'000;
  j["passes_completed"] = impl_->cursor_ns > t.span_ns() ? 1 + (impl_->cursor_ns - t.span_ns() - 1) / t.cycle_ns() : 0;
  j["run_start_unix_ms"] = impl_->opt.start_ms;
  j["run_end_unix_ms"] = impl_->opt.start_ms + t.span_ns() / 1'000'000;
  j["cycle_ms"] = t.cycle_ns() / 1'000'000;
  j["period_ms"] = t.period_ns() / 1'000'000;
  j["series"] = t.series_count();
  j["hosts"] = t.host_count();
  j["samples"] = t.sample_count();
  j["samples_per_scrape"] = impl_->opt.samples_per_scrape;
  return j.dump(2) + "\n";
}

const ExporterTimeline& ExporterServer::timeline() const {
  return impl_->timeline;
}

int64_t ExporterServer::start_ms() const {
  return impl_->opt.start_ms;
}

Result<int> ExporterServer::Bind() {
  return impl_->listener.Bind(impl_->http, impl_->opt.host, impl_->opt.port);
}

Status ExporterServer::Run() {
  // Beside the server: nothing but handing it a stop once one is asked for.
  return impl_->listener.Run(impl_->http, "exporter", [this] {
    while (impl_->listener.AwaitStop(impl_->http) != HttpListener::Turn::kEnd) {
    }
  });
}

void ExporterServer::Stop() {
  impl_->listener.Stop();
}

}  // namespace toposcope::serve
