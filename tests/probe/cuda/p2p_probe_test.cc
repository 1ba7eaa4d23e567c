// Tests of probe/cuda/p2p_probe against the fake libcudart: the matrices measure the fake's link
// model, the output reads back through formats/node, errors name the failing call and nothing is
// left allocated.
#include "toposcope/probe/cuda/p2p_probe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "toposcope/base/diagnostics.h"

namespace toposcope::probe {
namespace p2p_probe_test {

using formats::P2pQuantity;

class P2pProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("FAKE_CUDA_DEVICES", "4", 1);
    setenv("FAKE_CUDA_LINKS", "0-1:300,2-3:300", 1);
    setenv("FAKE_CUDA_NO_PEER", "0-3", 1);
    unsetenv("FAKE_CUDA_FAIL");
    auto rt = CudaRuntime::Load(TOPOSCOPE_FAKE_CUDART);
    ASSERT_TRUE(rt.ok()) << rt.error().ToString();
    rt_ = std::make_unique<CudaRuntime>(std::move(*rt));
    auto live = DynamicLibrary::Open({TOPOSCOPE_FAKE_CUDART}, "fake");
    ASSERT_TRUE(live.ok());
    live_lib_ = std::make_unique<DynamicLibrary>(std::move(*live));
    ASSERT_TRUE(live_lib_->Bind("fake_cuda_live_objects", &live_).ok());
  }
  void TearDown() override {
    unsetenv("FAKE_CUDA_FAIL");
    unsetenv("FAKE_CUDA_LINKS");
    unsetenv("FAKE_CUDA_NO_PEER");
    unsetenv("FAKE_CUDA_DEVICES");
  }
  static const formats::P2pMatrix* Find(const formats::P2pReport& r, P2pQuantity q, bool enabled) {
    for (const auto& m : r.matrices) {
      if (m.quantity == q && m.p2p_enabled == enabled) return &m;
    }
    return nullptr;
  }
  // GB/s the fake's model gives for one copy of 64 MiB: latency + bytes / bandwidth.
  static double Model(double gbps, double lat_us) {
    const double bytes = 64.0 * (1 << 20);
    return bytes / (lat_us * 1e-6 + bytes / (gbps * 1e9)) / 1e9;
  }
  P2pProbeOptions Small() {
    P2pProbeOptions o;
    o.bytes = size_t{64} << 20;
    return o;
  }
  std::unique_ptr<CudaRuntime> rt_;
  std::unique_ptr<DynamicLibrary> live_lib_;
  int (*live_)() = nullptr;
};

TEST_F(P2pProbeTest, MeasuresTheLinkModel) {
  int steps = 0, last_total = 0;
  auto r = RunP2pProbe(*rt_, Small(), [&](int done, int total, const std::string&) {
    EXPECT_LE(done, total);
    ++steps;
    last_total = total;
  });
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->devices.size(), 4u);
  EXPECT_EQ(r->devices[2].name, "Fake GPU 2");
  ASSERT_EQ(r->matrices.size(), 7u);  // connectivity + 3 quantities x 2 modes
  EXPECT_EQ(last_total, 6 * 16);
  EXPECT_EQ(steps, 6 * 16 + 1);

  const auto* conn = Find(*r, P2pQuantity::kConnectivity, true);
  ASSERT_NE(conn, nullptr);
  EXPECT_EQ(conn->values[0][3], 0);
  EXPECT_EQ(conn->values[0][1], 1);

  const auto* uni = Find(*r, P2pQuantity::kBandwidthUnidirGbps, true);
  const auto* staged = Find(*r, P2pQuantity::kBandwidthUnidirGbps, false);
  const auto* bidir = Find(*r, P2pQuantity::kBandwidthBidirGbps, true);
  const auto* lat = Find(*r, P2pQuantity::kLatencyUs, true);
  ASSERT_TRUE(uni && staged && bidir && lat);
  // 64 MiB at the model's rates, latency included: NVLink-like 300, PCIe 25, no peer 12, local 1000.
  EXPECT_NEAR(uni->values[0][1], Model(300, 3), 0.01);
  EXPECT_NEAR(uni->values[1][2], Model(25, 3), 0.01);
  EXPECT_NEAR(uni->values[0][3], Model(12, 10), 0.01);  // cannot be peers: staged even with P2P enabled
  EXPECT_NEAR(uni->values[2][2], Model(1000, 2), 0.05);
  EXPECT_NEAR(staged->values[0][1], Model(12, 10), 0.01);
  EXPECT_NEAR(bidir->values[0][1], 2 * Model(300, 3), 0.02);  // both directions at once, full duplex
  EXPECT_NEAR(lat->values[0][1], 3 + 4 / 300e3, 0.01);
  EXPECT_NEAR(Find(*r, P2pQuantity::kLatencyUs, false)->values[0][1], 10, 0.01);
  EXPECT_EQ(live_(), 0);
}

TEST_F(P2pProbeTest, WritesTextAndCsvThatReadBack) {
  auto r = RunP2pProbe(*rt_, Small());
  ASSERT_TRUE(r.ok());
  for (int layout = 0; layout < 2; ++layout) {
    const std::string text =
        layout == 0 ? formats::WriteP2pBandwidthLatencyTest(*r) : formats::WriteP2pCsv(*r);
    Diagnostics diag;
    ReadCounts counts;
    auto back = layout == 0 ? formats::ParseP2pBandwidthLatencyTest(text, "probe.txt", diag, counts)
                            : formats::ParseP2pCsv(text, "probe.csv", diag, counts);
    ASSERT_TRUE(back.ok()) << back.error().ToString();
    EXPECT_EQ(counts.rejected, 0);
    SCOPED_TRACE(layout == 0 ? "p2pBandwidthLatencyTest text" : "CSV");
    for (const auto& m : back->matrices) SCOPED_TRACE(m.title + (m.p2p_enabled ? " enabled" : " disabled"));
    const auto* uni = Find(*back, P2pQuantity::kBandwidthUnidirGbps, true);
    ASSERT_NE(uni, nullptr);
    EXPECT_NEAR(uni->values[2][3], Model(300, 3), 0.01);  // two decimals
    EXPECT_NEAR(uni->values[3][0], Model(12, 10), 0.01);
  }
}

TEST_F(P2pProbeTest, OptionsChooseDevicesAndMatrices) {
  P2pProbeOptions o = Small();
  o.devices = {3, 1, 3};
  o.bidirectional = false;
  o.latency = false;
  o.p2p_disabled = false;
  auto r = RunP2pProbe(*rt_, o);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->matrices.size(), 2u);  // connectivity + unidirectional enabled
  EXPECT_EQ(r->matrices[1].row_ids, (std::vector<int>{1, 3}));
  o.devices = {9};
  auto bad = RunP2pProbe(*rt_, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
  EXPECT_NE(bad.error().message.find("device 9 does not exist"), std::string::npos);
  o.devices.clear();
  o.repetitions = 0;
  EXPECT_EQ(RunP2pProbe(*rt_, o).error().kind, ErrorKind::kUsage);
}

TEST_F(P2pProbeTest, FailuresNameTheCallAndReleaseEverything) {
  for (const char* fn : {"cudaMalloc", "cudaMemcpyPeerAsync", "cudaEventCreate", "cudaDeviceEnablePeerAccess"}) {
    setenv("FAKE_CUDA_FAIL", fn, 1);
    auto r = RunP2pProbe(*rt_, Small());
    ASSERT_FALSE(r.ok()) << fn;
    EXPECT_NE(r.error().message.find(fn), std::string::npos) << r.error().message;
    EXPECT_EQ(live_(), 0) << fn;
  }
  setenv("FAKE_CUDA_FAIL", "cudaMalloc", 1);
  EXPECT_NE(RunP2pProbe(*rt_, Small()).error().message.find("out of memory"), std::string::npos);
  unsetenv("FAKE_CUDA_FAIL");
  setenv("FAKE_CUDA_DEVICES", "0", 1);
  auto none = RunP2pProbe(*rt_, Small());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no CUDA-capable device"), std::string::npos);
}

TEST_F(P2pProbeTest, OneGpuGivesItsLocalCopyAndASummary) {
  setenv("FAKE_CUDA_DEVICES", "1", 1);
  auto r = RunP2pProbe(*rt_, Small());
  ASSERT_TRUE(r.ok());
  const auto* uni = Find(*r, P2pQuantity::kBandwidthUnidirGbps, true);
  ASSERT_NE(uni, nullptr);
  EXPECT_NEAR(uni->values[0][0], Model(1000, 2), 0.05);
  const std::string text = P2pProbeSummaryText(*r);
  EXPECT_NE(text.find("GPU 0  Fake GPU 0"), std::string::npos);
  EXPECT_NE(text.find("between GPUs: - (one GPU)"), std::string::npos);
}

}  // namespace p2p_probe_test
}  // namespace toposcope::probe
