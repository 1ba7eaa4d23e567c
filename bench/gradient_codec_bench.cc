// bench/gradient_codec_bench: the gradient codec (act/training/gradient_codec) in GB/s of float32
// input per core: 4-bit encode, decode and both, top-k (1 %) and top-k + 4-bit, beside a plain
// memcpy of the same bytes (encoding into a buffer reused across runs, as a training loop does).
//   build/gradient_codec_bench                      Google Benchmark, 1 MB .. 64 MB
//   build/gradient_codec_bench --compare[=MAX_MB]   one run side by side, 1 MB .. MAX_MB (default
//                                                   1024), best of 3, with the ratio to memcpy
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "toposcope/act/training/gradient_codec.h"
#include "toposcope/base/rng.h"

namespace {

using toposcope::act::training::CodecKind;
using toposcope::act::training::CodecOptions;
using toposcope::act::training::DecodeGradient;
using toposcope::act::training::EncodeGradient;
using toposcope::act::training::EncodeGradientInto;

std::vector<float> Tensor(size_t n) {
  toposcope::Rng rng(1);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.Normal());
  return v;
}

CodecOptions Kind(CodecKind k) {
  CodecOptions o;
  o.kind = k;
  return o;
}

void BM_Memcpy(benchmark::State& st) {
  const auto n = static_cast<size_t>(st.range(0)) / 4;
  const std::vector<float> x = Tensor(n);
  std::vector<float> y(n);
  for (auto _ : st) {
    std::memcpy(y.data(), x.data(), n * 4);
    benchmark::DoNotOptimize(y.data());
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * st.range(0));
}

void Encode(benchmark::State& st, CodecKind k) {
  const auto n = static_cast<size_t>(st.range(0)) / 4;
  const std::vector<float> x = Tensor(n);
  uint64_t step = 0;
  std::vector<uint8_t> enc;
  for (auto _ : st) {
    (void)EncodeGradientInto(x, Kind(k), step++, enc);
    benchmark::DoNotOptimize(enc.data());
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * st.range(0));
}

void Decode(benchmark::State& st, CodecKind k) {
  const auto n = static_cast<size_t>(st.range(0)) / 4;
  const std::vector<float> x = Tensor(n);
  const std::vector<uint8_t> enc = *EncodeGradient(x, Kind(k));
  std::vector<float> y(n);
  for (auto _ : st) {
    (void)DecodeGradient(enc, y);
    benchmark::DoNotOptimize(y.data());
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * st.range(0));
}

void BM_Quant4Encode(benchmark::State& st) { Encode(st, CodecKind::kQuant4); }
void BM_Quant4Decode(benchmark::State& st) { Decode(st, CodecKind::kQuant4); }
void BM_TopKEncode(benchmark::State& st) { Encode(st, CodecKind::kTopK); }
void BM_TopKQuant4Encode(benchmark::State& st) { Encode(st, CodecKind::kTopKQuant4); }
void BM_TopKQuant4Decode(benchmark::State& st) { Decode(st, CodecKind::kTopKQuant4); }

BENCHMARK(BM_Memcpy)->RangeMultiplier(8)->Range(1 << 20, 64 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Quant4Encode)->RangeMultiplier(8)->Range(1 << 20, 64 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Quant4Decode)->RangeMultiplier(8)->Range(1 << 20, 64 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TopKEncode)->RangeMultiplier(8)->Range(1 << 20, 64 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TopKQuant4Encode)->RangeMultiplier(8)->Range(1 << 20, 64 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TopKQuant4Decode)->RangeMultiplier(8)->Range(1 << 20, 64 << 20)->Unit(benchmark::kMillisecond);

// Best of `reps` wall seconds of f().
template <typename F>
double Best(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

int Compare(size_t max_mb) {
  std::printf("%8s %10s %12s %12s %12s %9s %12s %14s\n", "MB", "memcpy", "q4 encode", "q4 decode", "q4 enc+dec",
              "ratio", "topk encode", "topk+q4 enc+dec");
  for (size_t mb = 1; mb <= max_mb; mb *= 4) {
    const size_t n = mb * (1 << 20) / 4;
    const std::vector<float> x = Tensor(n);
    std::vector<float> y(n);
    std::vector<uint8_t> enc;
    const double bytes = static_cast<double>(n) * 4;
    const int reps = mb >= 256 ? 2 : 3;
    const double t_copy = Best(reps, [&] {
      std::memcpy(y.data(), x.data(), n * 4);
      benchmark::DoNotOptimize(y.data());
    });
    const double t_enc = Best(reps, [&] { (void)EncodeGradientInto(x, Kind(CodecKind::kQuant4), 0, enc); });
    const double t_dec = Best(reps, [&] { (void)DecodeGradient(enc, y); });
    const double t_topk = Best(reps, [&] { benchmark::DoNotOptimize(EncodeGradient(x, Kind(CodecKind::kTopK))->data()); });
    std::vector<uint8_t> enc2;
    const double t_tq_enc = Best(reps, [&] { (void)EncodeGradientInto(x, Kind(CodecKind::kTopKQuant4), 0, enc2); });
    const double t_tq_dec = Best(reps, [&] { (void)DecodeGradient(enc2, y); });
    auto gbs = [bytes](double t) { return bytes / t / 1e9; };
    std::printf("%8zu %8.2f GB/s %7.2f GB/s %7.2f GB/s %7.2f GB/s %8.1f%% %7.2f GB/s %9.2f GB/s\n", mb, gbs(t_copy),
                gbs(t_enc), gbs(t_dec), gbs(t_enc + t_dec), 100 * t_copy / (t_enc + t_dec), gbs(t_topk),
                gbs(t_tq_enc + t_tq_dec));
  }
  std::printf("ratio = 4-bit encode+decode speed / memcpy speed of the same float32 bytes (goal >= 25%%)\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--compare") return Compare(1024);
    if (a.rfind("--compare=", 0) == 0) return Compare(std::max<size_t>(1, std::stoul(a.substr(10))));
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
