// Reader throughput (MB/s, one core) of dcgm-exporter Prometheus text (8 GPUs x 40 DCGM fields x
// many scrapes, with HELP/TYPE per scrape, written once with PromWriter) and of DCGM CSV (long form
// with ISO or epoch-ns ts, wide form with 40 field columns).
//
// Extra modes, handled before Google Benchmark sees the arguments:
//   --dump-csv=PATH:ROWS        writes ROWS long-form rows (ISO ts) to PATH and exits
//   --dump-csv-wide=PATH:ROWS   writes ROWS wide-form rows (ISO ts) to PATH and exits
//   --dump-prom=PATH:SCRAPES    writes SCRAPES exporter scrapes to PATH and exits
//   --time-file=PATH            streams PATH once through the reader (.prom: Prometheus text, else
//                               DCGM CSV) and prints {"seconds":..,"cpu_seconds":..,"bytes":..,...}
// (bench/pandas_compare.py uses them.)
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench_file_timing.h"
#include "toposcope/base/file_io.h"
#include "toposcope/formats/dcgm/dcgm_csv.h"
#include "toposcope/formats/dcgm/prometheus_text.h"

namespace toposcope::formats {
namespace {

constexpr int kGpus = 8;
constexpr int kFields = 40;
constexpr int64_t kT0Ns = int64_t{1714564800} * 1000000000;
constexpr int64_t kPeriodNs = 1000000000;  // one scrape / row group per second

// 40 DCGM field names: the NVLink per-link byte counters plus common device fields.
const std::vector<std::string>& FieldNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = {"DCGM_FI_DEV_GPU_TEMP",          "DCGM_FI_DEV_POWER_USAGE",
                                  "DCGM_FI_DEV_GPU_UTIL",          "DCGM_FI_DEV_MEM_COPY_UTIL",
                                  "DCGM_FI_DEV_SM_CLOCK",          "DCGM_FI_DEV_MEM_CLOCK",
                                  "DCGM_FI_DEV_FB_USED",           "DCGM_FI_DEV_FB_FREE",
                                  "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE",
                                  "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE",
                                  "DCGM_FI_PROF_PCIE_TX_BYTES",    "DCGM_FI_PROF_PCIE_RX_BYTES",
                                  "DCGM_FI_PROF_NVLINK_TX_BYTES",  "DCGM_FI_PROF_NVLINK_RX_BYTES"};
    for (int l = 0; static_cast<int>(v.size()) < kFields; ++l) {
      v.push_back(std::string("DCGM_FI_PROF_NVLINK_L")
                      .append(std::to_string(l / 2))
                      .append(l % 2 == 0 ? "_TX_BYTES" : "_RX_BYTES"));
    }
    return v;
  }();
  return names;
}

// A value for (step, gpu, field): integers for most fields, doubles for a few (as the exporter).
double Value(int64_t step, int gpu, int field) {
  const int64_t x = (step * 7919 + gpu * 104729 + field * 1299709) % 1000003;
  if (field == 1 || field % 7 == 3) return static_cast<double>(x) / 1000.0 + 0.5;
  return static_cast<double>(x * (field >= 12 ? 4096 : 1));
}

std::string Uuid(int gpu) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "GPU-%08x-1a2b-3c4d-5e6f-%012x", 0xc4529c8du + static_cast<unsigned>(gpu),
                0x190158bd5360u + static_cast<unsigned>(gpu));
  return buf;
}

std::string PciBusId(int gpu) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "00000000:%02X:00.0", 0x53 + 0x11 * gpu);
  return buf;
}

// Appends `scrapes` dcgm-exporter scrapes of one host (HELP/TYPE per metric per scrape).
void AppendPromScrapes(std::string* out, int64_t first, int64_t scrapes) {
  PromWriter writer;
  for (const auto& f : FieldNames()) {
    writer.SetMetadata({f, std::string("Synthetic help text for ").append(f).append("."),
                        f.find("BYTES") != std::string::npos ? PromMetricType::kCounter : PromMetricType::kGauge,
                        true, true});
  }
  std::vector<PromSample> per_gpu(kGpus);
  for (int g = 0; g < kGpus; ++g) {
    per_gpu[static_cast<size_t>(g)].labels = {{"gpu", std::to_string(g)},
                                              {"UUID", Uuid(g)},
                                              {"pci_bus_id", PciBusId(g)},
                                              {"device", std::string("nvidia").append(std::to_string(g))},
                                              {"modelName", "NVIDIA H100 80GB HBM3"},
                                              {"Hostname", "gpu-node-1"},
                                              {"DCGM_FI_DRIVER_VERSION", "580.105.08"}};
  }
  for (int64_t s = first; s < first + scrapes; ++s) {
    writer.BeginScrape();
    for (int f = 0; f < kFields; ++f) {
      for (int g = 0; g < kGpus; ++g) {
        PromSample& p = per_gpu[static_cast<size_t>(g)];
        p.name = FieldNames()[static_cast<size_t>(f)];
        p.value = Value(s, g, f);
        writer.Append(out, p);
      }
    }
  }
}

// Long-form rows: for each step, 8 GPUs x 40 fields; `rows` rows in all.
void AppendCsvLong(std::string* out, int64_t first_row, int64_t rows, CsvTimeStyle style) {
  CsvSample s;
  s.host = "gpu-node-1";
  for (int64_t r = first_row; r < first_row + rows; ++r) {
    const int64_t step = r / (kGpus * kFields);
    const int g = static_cast<int>((r / kFields) % kGpus);
    const int f = static_cast<int>(r % kFields);
    s.ts_ns = kT0Ns + step * kPeriodNs + 123456789;
    s.gpu = g;
    s.field = FieldNames()[static_cast<size_t>(f)];
    s.value = Value(step, g, f);
    AppendDcgmCsvLongRow(out, s, style);
  }
}

// Wide-form rows: one per (step, gpu) with 40 field columns.
void AppendCsvWide(std::string* out, int64_t first_row, int64_t rows, CsvTimeStyle style) {
  std::vector<double> values(kFields);
  for (int64_t r = first_row; r < first_row + rows; ++r) {
    const int64_t step = r / kGpus;
    const int g = static_cast<int>(r % kGpus);
    for (int f = 0; f < kFields; ++f) values[static_cast<size_t>(f)] = Value(step, g, f);
    AppendDcgmCsvWideRow(out, kT0Ns + step * kPeriodNs + 123456789, "gpu-node-1", g, values, style);
  }
}

std::string PromText(int64_t scrapes) {
  std::string out;
  AppendPromScrapes(&out, 0, scrapes);
  return out;
}

std::string CsvLong(int64_t rows, CsvTimeStyle style) {
  std::string out;
  AppendDcgmCsvHeader(&out, DcgmCsvLayout::kLong);
  AppendCsvLong(&out, 0, rows, style);
  return out;
}

std::string CsvWide(int64_t rows, CsvTimeStyle style) {
  std::string out;
  AppendDcgmCsvHeader(&out, DcgmCsvLayout::kWide, FieldNames());
  AppendCsvWide(&out, 0, rows, style);
  return out;
}

void BM_ReadPromText(benchmark::State& state) {
  const std::string text = PromText(state.range(0));
  int64_t samples = 0;
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    samples = 0;
    auto r = ReadPromText(text, "bench", [&](const PromSample& s) { samples += s.value >= 0; }, diag, counts);
    if (!r.ok() || counts.rejected != 0) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(samples);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.counters["samples"] = static_cast<double>(samples);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_ReadPromText)->Arg(100)->Unit(benchmark::kMillisecond);

void BM_WritePromText(benchmark::State& state) {
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = PromText(state.range(0));
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_WritePromText)->Arg(100)->Unit(benchmark::kMillisecond);

void ReadCsv(benchmark::State& state, const std::string& text) {
  int64_t samples = 0;
  for (auto _ : state) {
    Diagnostics diag;
    ReadCounts counts;
    samples = 0;
    auto r = ReadDcgmCsv(text, "bench", [&](const CsvSample& s) { samples += s.gpu >= 0; }, diag, counts);
    if (!r.ok() || counts.rejected != 0) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(samples);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.counters["samples"] = static_cast<double>(samples);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}

void BM_ReadCsvLongIso(benchmark::State& state) { ReadCsv(state, CsvLong(state.range(0), CsvTimeStyle::kIso)); }
BENCHMARK(BM_ReadCsvLongIso)->Arg(128000)->Unit(benchmark::kMillisecond);

void BM_ReadCsvLongEpochNs(benchmark::State& state) {
  ReadCsv(state, CsvLong(state.range(0), CsvTimeStyle::kEpochNs));
}
BENCHMARK(BM_ReadCsvLongEpochNs)->Arg(128000)->Unit(benchmark::kMillisecond);

void BM_ReadCsvWideIso(benchmark::State& state) { ReadCsv(state, CsvWide(state.range(0), CsvTimeStyle::kIso)); }
BENCHMARK(BM_ReadCsvWideIso)->Arg(16000)->Unit(benchmark::kMillisecond);

// Writes synthetic data in chunks so that large dumps stay small in memory.
int Dump(std::string_view kind, std::string_view spec) {
  std::string path;
  int64_t n = 0;
  if (!bench::SplitPathCount(spec, &path, &n)) {
    std::fprintf(stderr, "bad PATH:N in '%.*s'\n", static_cast<int>(spec.size()), spec.data());
    return 2;
  }
  std::string header;
  if (kind == "csv") AppendDcgmCsvHeader(&header, DcgmCsvLayout::kLong);
  if (kind == "csv-wide") AppendDcgmCsvHeader(&header, DcgmCsvLayout::kWide, FieldNames());
  const int64_t chunk = kind == "prom" ? 16 : 65536;
  return bench::WriteInChunks(path, std::move(header), n, chunk, [kind](std::string* buf, int64_t i, int64_t m) {
    if (kind == "csv") AppendCsvLong(buf, i, m, CsvTimeStyle::kIso);
    if (kind == "csv-wide") AppendCsvWide(buf, i, m, CsvTimeStyle::kIso);
    if (kind == "prom") AppendPromScrapes(buf, i, m);
  });
}

// Streams one file through its reader once and prints the time.
int TimeFile(const std::string& path) {
  ReadCounts counts;
  int64_t samples = 0;
  bench::FileTiming t;
  const bool ok = bench::TimeFileRead(
      path,
      [&](LineReader& lines) {
        Diagnostics diag;
        if (path.size() > 5 && path.substr(path.size() - 5) == ".prom") {
          auto r = ReadPromText(lines, path, [&](const PromSample&) { ++samples; }, diag, counts);
          return r.ok() ? std::string() : r.error().ToString();
        }
        auto r = ReadDcgmCsv(lines, path, [&](const CsvSample&) { ++samples; }, diag, counts);
        return r.ok() ? std::string() : r.error().ToString();
      },
      &t);
  if (!ok) return 2;
  std::printf(
      "{\"seconds\": %.6f, \"cpu_seconds\": %.6f, \"bytes\": %lld, \"samples\": %lld, \"records\": %lld, "
      "\"rejected\": %lld}\n",
      t.seconds, t.cpu_seconds, t.bytes, static_cast<long long>(samples),
      static_cast<long long>(counts.read), static_cast<long long>(counts.rejected));
  return 0;
}

}  // namespace
}  // namespace toposcope::formats

int main(int argc, char** argv) {
  using namespace toposcope::formats;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    for (const std::string_view kind : {"csv-wide", "csv", "prom"}) {
      const std::string prefix = std::string("--dump-").append(kind).append("=");
      if (arg.substr(0, prefix.size()) == prefix) return Dump(kind, arg.substr(prefix.size()));
    }
    const std::string_view time_prefix = "--time-file=";
    if (arg.substr(0, time_prefix.size()) == time_prefix) return TimeFile(std::string(arg.substr(time_prefix.size())));
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
