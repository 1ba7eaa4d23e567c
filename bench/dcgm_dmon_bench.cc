// Reader throughput of `dcgmi dmon` text (MB/s, one core) on a large synthetic output written once
// in memory with DmonWriter: 8 GPUs x 20 fields x 100k iterations (DCGM 3.x layout, header every 14
// iterations), plain and with ISO-8601 `ts` prefixes; plus the writer and the real H800 fixture.
// Rates are per CPU second of the reading thread (the machine is shared; wall time is noisier).
//
// Extra modes, handled before Google Benchmark sees the arguments:
//   --dump-dmon=PATH:ITERATIONS  writes ITERATIONS iterations (8 GPU rows each, the text above
//                                without prefixes) to PATH in chunks and exits
//   --time-dmon=PATH             streams PATH once through ReadDmon (every value parsed) and prints
//                                {"seconds":..,"cpu_seconds":..,"bytes":..,"rows":..,...}
// (bench/pandas_compare.py --format dmon uses them.)
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench_file_timing.h"
#include "toposcope/base/file_io.h"
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

// Appends iterations of 8 GPU rows with pseudo-random values (the same sequence however the
// iterations are split between calls).
class TextGenerator {
 public:
  explicit TextGenerator(DmonTimestampStyle style) : writer_(BenchFields(), Options(style)), values_(20) {}

  void Append(int64_t iterations, std::string* out) {
    const std::vector<std::string> no_text;
    const int64_t start = 1700000000LL * 1000000000LL;
    for (int64_t n = 0; n < iterations; ++n, ++it_) {
      writer_.BeginIteration(start + it_ * 100000000, out);
      for (int g = 0; g < kGpus; ++g) {
        for (int k = 0; k < 12; ++k) values_[k] = static_cast<double>(Next() % 40000000000ULL);
        values_[12] = static_cast<double>(Next() % 101);
        values_[13] = static_cast<double>(30 + Next() % 60);
        values_[14] = static_cast<double>(Next() % 700000) / 1000.0;
        for (int k = 15; k < 19; ++k) values_[k] = static_cast<double>(Next() % 1001) / 1000.0;
        values_[19] = static_cast<double>(Next() % 81559);
        if (it_ < 2) values_[0] = NAN;
        writer_.WriteRow({DmonEntityKind::kGpu, kGpus - 1 - g, -1}, values_, no_text, out);
      }
    }
  }

 private:
  static DmonWriterOptions Options(DmonTimestampStyle style) {
    DmonWriterOptions wo;
    wo.timestamp_style = style;
    return wo;
  }
  uint64_t Next() {
    x_ ^= x_ << 13;
    x_ ^= x_ >> 7;
    x_ ^= x_ << 17;
    return x_;
  }
  DmonWriter writer_;
  std::vector<double> values_;
  uint64_t x_ = 88172645463325252ULL;
  int64_t it_ = 0;
};

std::string MakeText(DmonTimestampStyle style) {
  std::string out;
  out.reserve(size_t{kGpus} * kIterations * 620);
  TextGenerator(style).Append(kIterations, &out);
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

// Writes `spec` = "PATH:ITERATIONS" of plain dmon text, in chunks (large dumps stay small in memory).
int DumpDmon(std::string_view spec) {
  std::string path;
  int64_t iterations = 0;
  if (!bench::SplitPathCount(spec, &path, &iterations)) {
    std::fprintf(stderr, "bad PATH:ITERATIONS in '%.*s'\n", static_cast<int>(spec.size()), spec.data());
    return 2;
  }
  TextGenerator gen(DmonTimestampStyle::kNone);
  return bench::WriteInChunks(path, "", iterations, 1024,
                              [&gen](std::string* buf, int64_t, int64_t m) { gen.Append(m, buf); });
}

// Streams one dmon file through ReadDmon once (open + read + parse) and prints the time.
int TimeDmon(const std::string& path) {
  ReadCounts counts;
  double sum = 0;
  int64_t values = 0;
  int64_t iterations = 0;
  bench::FileTiming t;
  const bool ok = bench::TimeFileRead(
      path,
      [&](LineReader& lines) {
        Diagnostics diag;
        DmonOptions opts;
        opts.start_ts_ns = 0;
        auto r = ReadDmon(lines, path, opts, diag, counts, [&](const DmonRow& row) {
          for (const double v : row.values) sum += std::isnan(v) ? 0.0 : v;
          values += static_cast<int64_t>(row.values.size());
        });
        if (!r.ok()) return r.error().ToString();
        iterations = r->iterations;
        return std::string();
      },
      &t);
  if (!ok) return 2;
  std::printf(
      "{\"seconds\": %.6f, \"cpu_seconds\": %.6f, \"bytes\": %lld, \"rows\": %lld, \"values\": %lld, "
      "\"iterations\": %lld, \"rejected\": %lld, \"sum\": %.17g}\n",
      t.seconds, t.cpu_seconds, t.bytes, static_cast<long long>(counts.accepted),
      static_cast<long long>(values), static_cast<long long>(iterations),
      static_cast<long long>(counts.rejected), sum);
  return 0;
}

}  // namespace
}  // namespace toposcope::formats

int main(int argc, char** argv) {
  using namespace toposcope::formats;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    const std::string_view dump_prefix = "--dump-dmon=";
    const std::string_view time_prefix = "--time-dmon=";
    if (arg.substr(0, dump_prefix.size()) == dump_prefix) return DumpDmon(arg.substr(dump_prefix.size()));
    if (arg.substr(0, time_prefix.size()) == time_prefix) {
      return TimeDmon(std::string(arg.substr(time_prefix.size())));
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
