// Tests of app/serve_command: RunServe's usage and input errors, a served dataset of one host
// (a P2P matrix) answering /api/result, stopped by SIGTERM with ok; WriteOtlpMetricsFile's
// OTLP/JSON with the SOURCE_DATE_EPOCH time.
#include "toposcope/app/serve_command.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

namespace toposcope::app {
namespace serve_command_test {

namespace fs = std::filesystem;

class ServeCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("toposcope_serve_cmd_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "data" / "node1");
    std::ofstream(dir_ / "data" / "node1" / "p2p_matrix.csv")
        << "src,dst,bandwidth_gbps\n0,1,350\n1,0,350\n0,2,20\n2,0,20\n1,2,20\n2,1,20\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ServeCommandTest, UsageAndInputErrors) {
  ServeRequest req;
  req.analyze.paths = {(dir_ / "data").string()};
  req.listen = "127.0.0.1";
  Status st = RunServe(req, stdout);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::kUsage);
  req.listen = "127.0.0.1:0";
  req.analyze.paths = {(dir_ / "missing").string()};
  st = RunServe(req, stdout);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::kInput);
}

TEST_F(ServeCommandTest, ServesUntilSigterm) {
  ServeRequest req;
  req.analyze.paths = {(dir_ / "data").string()};
  req.listen = "127.0.0.1:0";
  req.poll_s = 0;
  const fs::path log_path = dir_ / "serve.log";
  std::FILE* log = std::fopen(log_path.c_str(), "w+");
  ASSERT_NE(log, nullptr);
  // SIGTERM blocked here too, so the process-directed signal waits for RunServe's sigtimedwait.
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  Status st = MakeError("not run");
  std::thread t([&] { st = RunServe(req, log); });
  int port = 0;
  for (int i = 0; i < 300 && port == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(log_path);
    std::stringstream text;
    text << in.rdbuf();
    std::smatch m;
    const std::string s = text.str();
    if (std::regex_search(s, m, std::regex("serving http://127.0.0.1:([0-9]+)/"))) port = std::stoi(m[1]);
  }
  ASSERT_GT(port, 0);
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get("/api/result");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("node1/gpu0"), std::string::npos);
  r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("toposcope_host_gpus{host=\"node1\"} 3\n"), std::string::npos) << r->body;
  ::kill(::getpid(), SIGTERM);
  t.join();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  std::fclose(log);
  EXPECT_TRUE(st.ok()) << st.error().ToString();
}

TEST_F(ServeCommandTest, OtlpFile) {
  AnalyzeRequest req;
  req.paths = {(dir_ / "data").string()};
  auto a = RunAnalyze(req);
  ASSERT_TRUE(a.ok());
  ::setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  const std::string path = (dir_ / "metrics.json").string();
  ASSERT_TRUE(WriteOtlpMetricsFile(*a, path).ok());
  ::unsetenv("SOURCE_DATE_EPOCH");
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  bool gpus = false;
  for (const auto& m : j["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]) {
    for (const auto& p : m["gauge"]["dataPoints"]) EXPECT_EQ(p["timeUnixNano"], "1700000000000000000");
    if (m["name"] == "toposcope_host_gpus") gpus = m["gauge"]["dataPoints"][0]["asDouble"] == 3.0;
  }
  EXPECT_TRUE(gpus);
  const Status bad = WriteOtlpMetricsFile(*a, (dir_ / "data").string());  // a directory
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kOutput);
}

}  // namespace serve_command_test
}  // namespace toposcope::app
