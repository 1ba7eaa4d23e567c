// Reader throughput of `dcgmi dmon` text (MB/s, one core) on a large synthetic output written once
// in memory with DmonWriter: 8 GPUs x 20 fields x 100k iterations (DCGM 3.x layout, header every 14
// iterations), plain and with ISO-8601 `ts` prefixes; plus the writer and the real H800 fixture.
// Rates are per CPU second of the reading thread (the machine is shared; wall time is noisier).
#include <benchmark/benchmark.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/formats/dcgm/dcgm_dmon.h"

namespace toposcope::formats {
namespace {

constexpr int kGpus = 8;
constexpr int kIterations = 100000;

// 20 fields: NVLink/PCIe byte rates (int64), per-link NVLink bytes, utilisation, temperature, power
// (double), DCP ratios (double).
std::vector<DmonField> BenchFields() {
  const char* names[] = {"NVLTX", "NVLRX", "PCITX", "PCIRX", "NVL0T", "NVL0R", "NVL1T",
                         "NVL1R", "NVL2T", "NVL2R", "NVL3T", "NVL3R", "GPUTL", "TMPTR",
                         "POWER", "SMACT", "SMOCC", "TENSO", "DRAMA", "FBUSD"};
  std::vector<DmonField> f;
  for (const char* n : names) f.push_back({n, "", -1, 0});
  return f;
}

std::string MakeText(DmonTimestampStyle style) {
  DmonWriterOptions wo;
  wo.timestamp_style = style;
  DmonWriter w(BenchFields(), wo);
  std::string out;
  out.reserve(size_t{kGpus} * kIterations * 620);
  std::vector<double> values(20);
  const std::vector<std::string> no_text;
  uint64_t x = 88172645463325252ULL;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  const int64_t start = 1700000000LL * 1000000000LL;
  for (int it = 0; it < kIterations; ++it) {
    w.BeginIteration(start + static_cast<int64_t>(it) * 100000000, &out);
    for (int g = 0; g < kGpus; ++g) {
      for (int k = 0; k < 12; ++k) values[k] = static_cast<double>(next() % 40000000000ULL);
      values[12] = static_cast<double>(next() % 101);
      values[13] = static_cast<double>(30 + next() % 60);
      values[14] = static_cast<double>(next() % 700000) / 1000.0;
      for (int k = 15; k < 19; ++k) values[k] = static_cast<double>(next() % 1001) / 1000.0;
      values[19] = static_cast<double>(next() % 81559);
      if (it < 2) values[0] = NAN;
      w.WriteRow({DmonEntityKind::kGpu, kGpus - 1 - g, -1}, values, no_text, &out);
    }
  }
  return out;
}

const std::string& PlainText() {
  static const std::string text = MakeText(DmonTimestampStyle::kNone);
  return text;
}

const std::string& IsoText() {
  static const std::string text = MakeText(DmonTimestampStyle::kIso);
  return text;
}

void RunReader(benchmark::State& state, const std::string& text) {
  int64_t rows = 0;
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    double sum = 0;
    DmonOptions opts;
    opts.start_ts_ns = 0;
    auto r = ReadDmonText(text, "bench", opts, diag, counts,
                          [&sum](const DmonRow& row) { sum += row.values[1]; });
    if (!r.ok() || counts.rejected != 0 || counts.accepted != int64_t{kGpus} * kIterations) {
      state.SkipWithError("parse failed");
    }
    rows += counts.accepted;
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}

void BM_ReadDmon8Gpu20Fields100k(benchmark::State& state) { RunReader(state, PlainText()); }
BENCHMARK(BM_ReadDmon8Gpu20Fields100k)->Unit(benchmark::kMillisecond);

void BM_ReadDmonIsoPrefixed8Gpu20Fields100k(benchmark::State& state) {
  RunReader(state, IsoText());
}
BENCHMARK(BM_ReadDmonIsoPrefixed8Gpu20Fields100k)->Unit(benchmark::kMillisecond);

void BM_WriteDmon8Gpu20Fields100k(benchmark::State& state) {
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = MakeText(DmonTimestampStyle::kNone);
    bytes += text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_WriteDmon8Gpu20Fields100k)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ReadRealH800Fixture(benchmark::State& state) {
  std::ifstream in(std::string(TOPOSCOPE_FIXTURES) + "/dcgmi_dmon/dcgm318_h800_8gpu_nvltx_nvlrx.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    auto r = ReadDmonText(text, "bench", {}, diag, counts, [](const DmonRow&) {});
    if (!r.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ReadRealH800Fixture);

}  // namespace
}  // namespace toposcope::formats

BENCHMARK_MAIN();
