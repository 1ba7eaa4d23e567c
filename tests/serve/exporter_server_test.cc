// Tests of the dcgm-exporter look-alike: what a scrape window holds (stamps = start + offset, the
// exposition format read back), scrape-driven and wall-clock cursors, the run looping with
// increasing stamps, /status, and the HTTP side (GET /metrics on a free port, 405 for POST).
#include "toposcope/serve/exporter_server.h"

#include <httplib.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

namespace toposcope::serve {
namespace exporter_server_test {

constexpr int64_t kMs = 1'000'000;

// Two GPUs' temperature: GPU 0 every 100 ms from t = 1000 s (10 samples), GPU 1 every 200 ms from
// 50 ms later (5 samples).
ExporterData TwoSeries() {
  ExporterData d;
  formats::PromMetricInfo m{"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", formats::PromMetricType::kGauge, true, true};
  d.metadata.push_back(m);
  for (int gpu = 0; gpu < 2; ++gpu) {
    ExporterSeries s;
    s.name = m.name;
    s.labels = {{"gpu", std::to_string(gpu)}, {"Hostname", "node1"}};
    const int n = gpu == 0 ? 10 : 5;
    for (int i = 0; i < n; ++i) {
      s.points.emplace_back(int64_t{1000'000} * kMs + gpu * 50 * kMs + i * (gpu == 0 ? 100 : 200) * kMs, 40 + i);
    }
    d.series.push_back(std::move(s));
  }
  return d;
}

std::vector<formats::PromSample> ReadBack(const std::string& text) {
  Diagnostics diag;
  ReadCounts counts;
  auto p = formats::ParsePromText(text, "scrape", diag, counts);
  EXPECT_EQ(counts.rejected, 0);
  return p.ok() ? p->samples : std::vector<formats::PromSample>{};
}

TEST(ExporterTimeline, SpanPeriodAndWindows) {
  ExporterTimeline t(TwoSeries());
  EXPECT_EQ(t.span_ns(), 900 * kMs);
  EXPECT_EQ(t.period_ns(), 100 * kMs);
  EXPECT_EQ(t.cycle_ns(), 1000 * kMs);
  EXPECT_EQ(t.sample_count(), 15);
  EXPECT_EQ(t.host_count(), 1u);
  int64_t served = 0;
  // [0, 200 ms): GPU 0 at 0 and 100 ms, GPU 1 at 50 ms; stamped from 5000 ms.
  const std::string text = t.Render(0, 200 * kMs, 5000, &served);
  EXPECT_EQ(served, 3);
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_GPU_TEMP gauge"), std::string::npos);
  const auto samples = ReadBack(text);
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[0].ts_ms, 5000);
  EXPECT_EQ(samples[1].ts_ms, 5100);
  EXPECT_EQ(samples[2].ts_ms, 5050);
  EXPECT_EQ(*samples[2].Label("gpu"), "1");
  EXPECT_EQ(samples[1].value, 41);
  // Nothing twice, nothing lost: consecutive windows cover the run once.
  int64_t total = 0;
  for (int64_t from = 0; from < 1000 * kMs; from += 250 * kMs) {  // one cycle: [0, 1000 ms)
    t.Render(from, from + 250 * kMs, 0, &served);
    total += served;
  }
  EXPECT_EQ(total, 15);
  EXPECT_TRUE(t.Render(500 * kMs, 500 * kMs, 0, &served).empty());
}

TEST(ExporterTimeline, LoopsWithIncreasingStamps) {
  ExporterTimeline t(TwoSeries());
  int64_t served = 0;
  // The second pass starts one cycle (1000 ms) after the first.
  const auto samples = ReadBack(t.Render(900 * kMs, 1100 * kMs, 0, &served));
  ASSERT_EQ(served, 3);  // GPU 0 at 900 and (second pass) 1000 ms; GPU 1 at 1050 ms
  EXPECT_EQ(samples[0].ts_ms, 900);
  EXPECT_EQ(samples[1].ts_ms, 1000);
  EXPECT_EQ(samples[1].value, 40);
  EXPECT_EQ(samples[2].ts_ms, 1050);
  // A window over many passes writes the last two only.
  t.Render(0, 10'000 * kMs, 0, &served);
  EXPECT_EQ(served, 30);
}

TEST(ExporterServer, ScrapeDrivenCursorAndStatus) {
  ExporterOptions opt;
  opt.samples_per_scrape = 3;  // 300 ms a scrape
  opt.start_ms = 7000;
  ExporterServer s(opt, TwoSeries());
  EXPECT_EQ(ReadBack(s.Scrape(0)).size(), 5u);  // [0, 300): GPU 0 x3, GPU 1 x2
  EXPECT_EQ(ReadBack(s.Scrape(0)).size(), 4u);  // [300, 600)
  const auto j = nlohmann::json::parse(s.StatusJson());
  EXPECT_EQ(j["scrapes"], 2);
  EXPECT_EQ(j["samples_served"], 9);
  EXPECT_EQ(j["served_until_unix_ms"], 7600);
  EXPECT_EQ(j["passes_completed"], 0);
  EXPECT_EQ(j["run_start_unix_ms"], 7000);
  EXPECT_EQ(j["run_end_unix_ms"], 7900);
  s.Scrape(0);
  s.Scrape(0);  // up to 1200 ms: past the end of the run
  EXPECT_EQ(nlohmann::json::parse(s.StatusJson())["passes_completed"], 1);
}

TEST(ExporterServer, WallClockCursor) {
  ExporterOptions opt;
  opt.start_ms = 7000;
  ExporterServer s(opt, TwoSeries());
  EXPECT_EQ(ReadBack(s.Scrape(7150)).size(), 3u);  // [0, 150 ms)
  EXPECT_TRUE(s.Scrape(7100).empty());             // the clock went back: nothing again
  EXPECT_EQ(ReadBack(s.Scrape(7250)).size(), 1u);  // [150, 250): GPU 0 at 200
}

TEST(ExporterServer, ServesOverHttp) {
  ExporterOptions opt;
  opt.port = 0;
  opt.samples_per_scrape = 10;
  ExporterServer s(opt, TwoSeries());
  auto port = s.Bind();
  ASSERT_TRUE(port.ok()) << port.error().ToString();
  std::thread runner([&] { EXPECT_TRUE(s.Run().ok()); });
  httplib::Client c("127.0.0.1", *port);
  auto head = c.Head("/metrics");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  auto res = c.Get("/metrics");  // HEAD did not move the cursor: the whole run still comes
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->get_header_value("Content-Type").find("version=0.0.4"), std::string::npos);
  EXPECT_EQ(ReadBack(res->body).size(), 15u);
  auto post = c.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  auto st = c.Get("/status");
  ASSERT_TRUE(st);
  EXPECT_EQ(nlohmann::json::parse(st->body)["scrapes"], 1);
  s.Stop();
  runner.join();
}

TEST(ExporterServer, StopBeforeRunReturns) {
  ExporterOptions opt;
  opt.port = 0;
  ExporterServer s(opt, TwoSeries());
  ASSERT_TRUE(s.Bind().ok());
  s.Stop();
  EXPECT_TRUE(s.Run().ok());
}

}  // namespace exporter_server_test
}  // namespace toposcope::serve
