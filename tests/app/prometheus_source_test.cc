// Tests of `analyze --prometheus`'s source: the request checks (URL, range, step), the pieces a
// long range is fetched in, and the fetch against local HTTP servers: a real captured answer
// becomes DCGM series, GPUs and one input entry; a server that is not there, an HTTP error, a
// body that is not the API's JSON, Prometheus's error answer and a server too slow to answer all
// fail with the URL and the reason, never a crash.
#include "toposcope/app/prometheus_source.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>

#include "toposcope/base/file_io.h"

namespace toposcope::app {
namespace prometheus_source_test {

const std::string kDir = std::string(TOPOSCOPE_TESTDATA) + "/prom/query_range";

PrometheusRequest Req(const std::string& url, const std::string& range = "1796469756,1796469760") {
  PrometheusRequest r;
  r.url = url;
  r.range = range;
  return r;
}

TEST(PrometheusRequestCheck, UrlRangeStep) {
  auto q = CheckPrometheusRequest(Req("http://127.0.0.1:9090/prom/", "2026-12-05T11:22:36Z,1796469760.5"));
  ASSERT_TRUE(q.ok()) << q.error().ToString();
  EXPECT_EQ(q->server, "http://127.0.0.1:9090");
  EXPECT_EQ(q->prefix, "/prom");
  EXPECT_EQ(q->start_ns, int64_t{1796469756} * 1000000000);
  EXPECT_EQ(q->end_ns, int64_t{17964697605} * 100000000);
  EXPECT_EQ(q->step_ns, 1000000000);
  for (const auto& [url, range] : std::vector<std::pair<std::string, std::string>>{
           {"ftp://x", "1,2"}, {"http://", "1,2"}, {"127.0.0.1:9090", "1,2"}, {"http://a?b", "1,2"},
           {"http://a", "1"}, {"http://a", "2,1"}, {"http://a", "x,2"}, {"http://a", "1,2,3"}}) {
    auto bad = CheckPrometheusRequest(Req(url, range));
    ASSERT_FALSE(bad.ok()) << url << " " << range;
    EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
  }
  PrometheusRequest r = Req("http://a");
  for (const char* step : {"0", "-1", "x", "0.0001"}) {
    r.step = step;
    EXPECT_FALSE(CheckPrometheusRequest(r).ok()) << step;
  }
}

TEST(PrometheusRequestCheck, LongRangesInPieces) {
  PrometheusRequest r = Req("http://a", "0,25000");
  auto q = CheckPrometheusRequest(r);
  ASSERT_TRUE(q.ok());
  const auto pieces = QueryPieces(*q);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0], std::make_pair(int64_t{0}, int64_t{9999} * 1000000000));
  EXPECT_EQ(pieces[1].first, int64_t{10000} * 1000000000);
  EXPECT_EQ(pieces[2].second, int64_t{25000} * 1000000000);
  for (const auto& [a, b] : pieces) EXPECT_LE((b - a) / q->step_ns + 1, kMaxPointsPerQuery);
}

// A local HTTP server answering /api/v1/query_range with `handler`.
class FakePrometheus {
 public:
  explicit FakePrometheus(std::function<void(const httplib::Request&, httplib::Response&)> handler) {
    http_.Get("/api/v1/query_range", std::move(handler));
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.listen_after_bind(); });
  }
  ~FakePrometheus() {
    http_.stop();
    thread_.join();
  }
  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server http_;
  int port_ = 0;
  std::thread thread_;
};

Status Fetch(const std::string& url, model::Dataset* ds, double timeout_s = 5) {
  PrometheusRequest r = Req(url);
  r.timeout_s = timeout_s;
  auto q = CheckPrometheusRequest(r);
  EXPECT_TRUE(q.ok());
  return AddPrometheusDcgm(*q, ds);
}

TEST(PrometheusFetch, RealAnswerBecomesDcgmSeriesAndGpus) {
  auto body = ReadFileText(kDir + "/dcgm_all_step1s.json");
  ASSERT_TRUE(body.ok());
  std::string query;
  FakePrometheus fake([&](const httplib::Request& req, httplib::Response& res) {
    query = req.get_param_value("query") + " " + req.get_param_value("start") + " " + req.get_param_value("step");
    res.set_content(*body, "application/json");
  });
  model::Dataset ds;
  const Status st = Fetch(fake.url(), &ds);
  ASSERT_TRUE(st.ok()) << st.error().ToString();
  EXPECT_EQ(query, "{__name__=~\"DCGM_FI_.+\"} 1796469756 1");
  ASSERT_EQ(ds.inputs.size(), 1u);
  EXPECT_EQ(ds.inputs[0].format, "prometheus-query");
  EXPECT_EQ(ds.inputs[0].records, 150);
  EXPECT_EQ(ds.inputs[0].accepted, 150);
  EXPECT_FALSE(ds.inputs[0].skipped);
  EXPECT_EQ(ds.dcgm.series.size(), 30u);
  EXPECT_EQ(ds.dcgm.points, 150);
  ASSERT_EQ(ds.hosts.count("gpu-node-1"), 1u);
  const auto& gpus = ds.hosts.at("gpu-node-1").gpus;
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus.at(0).model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpus.at(0).bus_id, "0000:53:00.0");
}

TEST(PrometheusFetch, FailuresNameTheUrlAndTheReason) {
  struct Case {
    std::function<void(const httplib::Request&, httplib::Response&)> handler;
    std::string words;
  };
  const std::vector<Case> cases = {
      {[](const httplib::Request&, httplib::Response& res) { res.status = 502; res.set_content("bad gateway", "text/plain"); },
       "HTTP 502"},
      {[](const httplib::Request&, httplib::Response& res) { res.set_content("<html>login</html>", "text/html"); },
       "not JSON"},
      {[](const httplib::Request&, httplib::Response& res) {
         res.status = 400;
         res.set_content(R"({"status":"error","errorType":"bad_data","error":"exceeded maximum resolution"})", "application/json");
       },
       "Prometheus answered error (bad_data): exceeded maximum resolution"},
      {[](const httplib::Request&, httplib::Response& res) {
         std::this_thread::sleep_for(std::chrono::milliseconds(1500));
         res.set_content("{}", "application/json");
       },
       "no answer in time"},
  };
  for (const Case& c : cases) {
    FakePrometheus fake(c.handler);
    model::Dataset ds;
    const Status st = Fetch(fake.url(), &ds, 0.5);
    ASSERT_FALSE(st.ok()) << c.words;
    EXPECT_EQ(st.error().kind, ErrorKind::kInput);
    const std::string msg = st.error().ToString();
    EXPECT_NE(msg.find(fake.url()), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.words), std::string::npos) << msg;
    ASSERT_EQ(ds.inputs.size(), 1u);
    EXPECT_TRUE(ds.inputs[0].skipped);
  }
}

TEST(PrometheusFetch, NoServerThere) {
  // A port that was free a moment ago, closed again: connecting is refused.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  close(fd);
  model::Dataset ds;
  const Status st = Fetch("http://127.0.0.1:" + std::to_string(port), &ds, 1);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().ToString().find("cannot connect"), std::string::npos) << st.error().ToString();
}

}  // namespace prometheus_source_test
}  // namespace toposcope::app
