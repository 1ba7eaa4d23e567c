// Reader throughput of the p2p matrix formats on synthetic 256-GPU reports written by the writers
// (nvbandwidth with four testcases, the CSV long form), and on the real p2pBandwidthLatencyTest
// fixture.
#include <benchmark/benchmark.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "toposcope/formats/node/p2p_matrix.h"

namespace toposcope::formats {
namespace {

// A report of `gpus` GPUs: NVLink-like pairs inside groups of 8, PCIe-like across, N/A diagonal.
P2pReport SyntheticReport(int gpus) {
  P2pReport r;
  r.version = "v0.8";
  r.hostname = "bench-host";
  for (int i = 0; i < gpus; ++i) {
    char pci[32];
    std::snprintf(pci, sizeof(pci), "00000000:%02x:00", (i * 7) % 256);
    r.devices.push_back({i, "NVIDIA H100 80GB HBM3", pci});
  }
  const char* tests[] = {"device_to_device_memcpy_read_ce", "device_to_device_memcpy_write_ce",
                         "device_to_device_bidirectional_memcpy_read_ce", "device_to_device_memcpy_read_sm"};
  for (int t = 0; t < 4; ++t) {
    P2pMatrix m;
    m.testcase = tests[t];
    m.title = m.testcase;
    m.quantity = t == 2 ? P2pQuantity::kBandwidthBidirGbps : P2pQuantity::kBandwidthUnidirGbps;
    double sum = 0;
    for (int i = 0; i < gpus; ++i) {
      m.row_ids.push_back(i);
      m.col_ids.push_back(i);
      std::vector<double> row;
      for (int j = 0; j < gpus; ++j) {
        double v = NAN;
        if (i != j) v = (i / 8 == j / 8 ? 370.0 : 24.0) + 0.01 * ((i * 31 + j * 17 + t) % 97);
        if (!std::isnan(v)) sum += v;
        row.push_back(v);
      }
      m.values.push_back(std::move(row));
    }
    m.sum = sum;
    r.matrices.push_back(std::move(m));
  }
  return r;
}

void BM_ParseNvbandwidth256(benchmark::State& state) {
  const std::string text = WriteNvbandwidth(SyntheticReport(256));
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    auto r = ParseNvbandwidth(text, "bench", diag, counts);
    if (!r.ok() || counts.rejected != 0) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseNvbandwidth256)->Unit(benchmark::kMillisecond);

void BM_ParseP2pCsv256(benchmark::State& state) {
  const std::string text = WriteP2pCsv(SyntheticReport(256));
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    auto r = ParseP2pCsv(text, "bench", diag, counts);
    if (!r.ok() || counts.rejected != 0) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseP2pCsv256)->Unit(benchmark::kMillisecond);

void BM_ParseP2pBandwidthLatencyTest256(benchmark::State& state) {
  const std::string text = WriteP2pBandwidthLatencyTest(SyntheticReport(256));
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    auto r = ParseP2pBandwidthLatencyTest(text, "bench", diag, counts);
    if (!r.ok() || counts.rejected != 0) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseP2pBandwidthLatencyTest256)->Unit(benchmark::kMillisecond);

void BM_WriteNvbandwidth256(benchmark::State& state) {
  const P2pReport r = SyntheticReport(256);
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = WriteNvbandwidth(r);
    bytes += text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_WriteNvbandwidth256)->Unit(benchmark::kMillisecond);

void BM_ParseRealP2pFixture(benchmark::State& state) {
  std::ifstream in(std::string(TOPOSCOPE_FIXTURES) +
                   "/cuda_p2p/rtx2080ti_x2_nop2p_p2pBandwidthLatencyTest.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    auto r = ParseP2pBandwidthLatencyTest(text, "bench", diag, counts);
    if (!r.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseRealP2pFixture);

}  // namespace
}  // namespace toposcope::formats

BENCHMARK_MAIN();
