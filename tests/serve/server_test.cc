// Tests of serve/server: a server on an ephemeral loopback port in this process, over a fake
// analysis, checked with httplib::Client: every endpoint, 404 / 405 / 414 / 413 / 400 for bad and
// hostile requests, the snapshot swapped when the inputs change, and Stop() ending Run().
#include "toposcope/serve/server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace toposcope::serve {
namespace server_test {

namespace fs = std::filesystem;

// An analysis that reports one GPU per line of the watched file, on host "h<line>".
AnalysisOutput FakeAnalysis(const fs::path& input, std::atomic<int>& calls) {
  ++calls;
  AnalysisOutput out;
  std::ifstream in(input);
  std::string line;
  while (std::getline(in, line)) {
    out.result.gpus.push_back({line + "/gpu0", line, 0, line + "/island0"});
    analysis::InputReport r;
    r.path = input.string();
    r.format = "fake";
    r.host = line;
    r.records = 3;
    out.result.inputs.push_back(r);
  }
  return out;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("toposcope_serve_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    input_ = dir_ / "hosts.txt";
    std::ofstream(input_) << "alpha\nbe\"ta\n";
  }
  void TearDown() override {
    if (server_) server_->Stop();
    if (runner_.joinable()) runner_.join();
    fs::remove_all(dir_);
  }
  // Starts a server on a free port; returns a client for it.
  httplib::Client Start(double poll_s = 0) {
    ServeOptions opt;
    opt.host = "127.0.0.1";
    opt.port = 0;
    opt.poll_s = poll_s;
    opt.watch = {dir_.string()};
    server_ = std::make_unique<Server>(opt, [this]() -> Result<AnalysisOutput> {
      if (fail_) return MakeError("broken input");
      return FakeAnalysis(input_, calls_);
    });
    EXPECT_TRUE(server_->Analyze().ok());
    auto port = server_->Bind();
    EXPECT_TRUE(port.ok());
    port_ = port.ok() ? *port : 0;
    runner_ = std::thread([this] { run_status_ok_ = server_->Run().ok(); });
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(5);
    c.set_read_timeout(10);
    return c;
  }

  fs::path dir_, input_;
  std::unique_ptr<Server> server_;
  std::thread runner_;
  int port_ = 0;
  std::atomic<int> calls_{0};
  std::atomic<bool> fail_{false};
  std::atomic<bool> run_status_ok_{false};
};

TEST_F(ServerTest, Endpoints) {
  httplib::Client c = Start();
  auto r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r->body.find("toposcope_host_gpus{host=\"alpha\"} 1\n"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("toposcope_host_gpus{host=\"be\\\"ta\"} 1\n"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("toposcope_serve_analyses_total 1\n"), std::string::npos) << r->body;
  r = c.Get("/api/result");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.rfind("{\n  \"schema\": \"toposcope.result/1\"", 0), 0u);
  r = c.Get("/api/hosts/alpha");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("\"host\": \"alpha\""), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("alpha/gpu0"), std::string::npos) << r->body;
  EXPECT_EQ(r->body.find("be\\\"ta/gpu0"), std::string::npos) << r->body;  // only alpha's part
  r = c.Get("/api/hosts/be%22ta");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/api/hosts");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("\"alpha\""), std::string::npos);
  r = c.Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("href=\"/api/hosts/be%22ta\""), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("be&quot;ta"), std::string::npos) << r->body;
  r = c.Head("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  r = c.Get("/report.html");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);  // the fake run wrote no report
}

TEST_F(ServerTest, BadAndHostileRequests) {
  httplib::Client c = Start();
  for (const char* path : {"/api/hosts/nope", "/api/hosts/..", "/api/hosts/../..", "/api/hosts/%2e%2e%2f%2e%2e",
                           "/nothing", "/api/hosts/alpha/../../etc/passwd", "/api/hosts/a%00b", "/metrics/x"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
  }
  auto r = c.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "GET, HEAD");
  r = c.Put("/api/result", "x", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  r = c.Delete("/api/hosts/alpha");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  r = c.Get("/api/hosts/" + std::string(20000, 'a'));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 414);
  r = c.Get("/metrics", {{"X-Big", std::string(20000, 'b')}});
  ASSERT_TRUE(r);
  EXPECT_GE(r->status, 400);
  EXPECT_LT(r->status, 500);
  // Still answering after all that.
  r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("toposcope_serve_requests_total{endpoint=\"rejected\"}"), std::string::npos);
}

TEST_F(ServerTest, ReanalysesWhenTheInputsChange) {
  httplib::Client c = Start(0.05);
  EXPECT_EQ(calls_, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(calls_, 1);  // nothing changed: no new analysis
  std::ofstream(input_, std::ios::app) << "gamma\n";
  bool seen = false;
  for (int i = 0; i < 100 && !seen; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto r = c.Get("/api/hosts/gamma");
    seen = r && r->status == 200;
  }
  EXPECT_TRUE(seen);
  auto s = server_->Current();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->generation, 2);
  // A failing analysis keeps the last result and counts the failure.
  fail_ = true;
  std::ofstream(input_, std::ios::app) << "delta\n";
  bool failed = false;
  for (int i = 0; i < 100 && !failed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto r = c.Get("/metrics");
    failed = r && r->body.find("toposcope_serve_analysis_failures_total 1\n") != std::string::npos;
  }
  EXPECT_TRUE(failed);
  auto r = c.Get("/api/hosts/gamma");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(ServerTest, StopEndsRun) {
  httplib::Client c = Start();
  ASSERT_TRUE(c.Get("/metrics"));
  server_->Stop();
  runner_.join();
  EXPECT_TRUE(run_status_ok_);
  EXPECT_FALSE(c.Get("/metrics"));
}

TEST(ParseListen, Forms) {
  auto l = ParseListen("127.0.0.1:9400");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->first, "127.0.0.1");
  EXPECT_EQ(l->second, 9400);
  l = ParseListen("[::1]:0");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->first, "::1");
  EXPECT_EQ(l->second, 0);
  l = ParseListen(":9400");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->first, "0.0.0.0");
  for (const char* bad : {"9400", "host:", "host:99999", "host:12a", "host:1234567"}) {
    EXPECT_FALSE(ParseListen(bad).ok()) << bad;
  }
}

}  // namespace server_test
}  // namespace toposcope::serve
