#include "toposcope/sim/nccl_tests_sim.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "toposcope/base/rng.h"

namespace toposcope::sim {

namespace {

// The bus ids of an 8-GPU HGX H100 board as the fixture prints them.
constexpr const char* kBusIds[] = {"0000:04:00", "0000:05:00", "0000:0b:00", "0000:0c:00",
                                   "0000:84:00", "0000:85:00", "0000:8b:00", "0000:8c:00"};

// nccl-tests prints the time with one decimal below 10 ms and none above.
std::string TimeText(double us) {
  char buf[32];
  if (us < 10000) {
    std::snprintf(buf, sizeof buf, "%7.1f", us);
  } else {
    std::snprintf(buf, sizeof buf, "%7.0f", us);
  }
  return buf;
}

double SlowestFactor(const std::vector<std::string>& run_hosts, const SlowNodeTruth& truth) {
  double f = 1;
  for (size_t i = 0; i < truth.slow.size(); ++i) {
    if (std::find(run_hosts.begin(), run_hosts.end(), truth.slow[i]) != run_hosts.end()) {
      f = std::min(f, truth.factor[i]);
    }
  }
  return f;
}

}  // namespace

std::vector<std::string> SimHostNames(int n) {
  std::vector<std::string> out;
  for (int i = 1; i <= n; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "node%04d", i);
    out.push_back(buf);
  }
  return out;
}

SlowNodeTruth DrawSlowNodes(const std::vector<std::string>& hosts, int k, uint64_t seed,
                            const NcclTestsSimOptions& opt) {
  Rng rng(Rng::Mix(seed, 0x51077));
  std::vector<size_t> idx(hosts.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  k = std::clamp(k, 0, static_cast<int>(hosts.size()));
  std::vector<std::pair<std::string, double>> picked;
  for (int i = 0; i < k; ++i) {
    const size_t j = i + rng.Below(idx.size() - i);
    std::swap(idx[i], idx[j]);
    picked.emplace_back(hosts[idx[i]], rng.Uniform(opt.slow_factor_min, opt.slow_factor_max));
  }
  std::sort(picked.begin(), picked.end());
  SlowNodeTruth t;
  for (const auto& [h, f] : picked) {
    t.slow.push_back(h);
    t.factor.push_back(f);
  }
  return t;
}

std::string AllReducePerfText(const std::vector<std::string>& run_hosts, const SlowNodeTruth& truth, uint64_t seed,
                              int run_id, const NcclTestsSimOptions& opt) {
  Rng rng(Rng::Mix(seed, 0xA11CE000ULL + static_cast<uint64_t>(run_id)));
  const int gpus = std::max(1, opt.gpus_per_host);
  const int ranks = static_cast<int>(run_hosts.size()) * gpus;
  double run_factor = 1 + opt.noise_rel * rng.Normal();
  if (rng.Uniform() < opt.dip_probability) run_factor *= 1 - rng.Uniform(opt.dip_min, opt.dip_max);
  const double busbw = opt.healthy_busbw_gbps * SlowestFactor(run_hosts, truth) * run_factor;
  const double latency_us = opt.latency_us + opt.latency_per_doubling_us * std::log2(std::max(2, ranks));
  const double factor = 2.0 * (ranks - 1) / ranks;  // AllReduce busbw / algbw

  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "# nThread 1 nGpus 1 minBytes 8 maxBytes %lld step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
                "validation: 1 graph: 0\n#\n# Using devices\n",
                static_cast<long long>(opt.max_bytes));
  out += buf;
  const int pid0 = 1000 + static_cast<int>(rng.Below(60000));
  for (int r = 0; r < ranks; ++r) {
    std::snprintf(buf, sizeof buf, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [%s] NVIDIA H100 80GB HBM3\n", r,
                  pid0 + r, run_hosts[r / gpus].c_str(), r % gpus, kBusIds[(r % gpus) % 8]);
    out += buf;
  }
  out += "#\n";
  out += "#                                                              out-of-place                       in-place  "
         "        \n";
  out += "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
         "#wrong\n";
  out += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s) "
         "      \n";
  double sum = 0;
  int count = 0;
  for (int64_t size = 8; size <= opt.max_bytes; size *= 2) {
    std::snprintf(buf, sizeof buf, "%12lld  %12lld  %8s  %6s  %6d", static_cast<long long>(size),
                  static_cast<long long>(size / 4), "float", "sum", -1);
    out += buf;
    for (int half = 0; half < 2; ++half) {
      const double bw = busbw * (1 + opt.row_noise_rel * rng.Normal());
      const double time_us = latency_us * (1 + 0.01 * rng.Uniform()) + static_cast<double>(size) * factor / (bw * 1e3);
      const double algbw = static_cast<double>(size) / (time_us * 1e3);
      const double bus = algbw * factor;
      sum += bus;
      ++count;
      std::snprintf(buf, sizeof buf, "  %s  %6.2f  %6.2f  %5d", TimeText(time_us).c_str(), algbw, bus, 0);
      out += buf;
    }
    out += "\n";
  }
  std::snprintf(buf, sizeof buf, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %.3f \n#\n\n",
                count > 0 ? sum / count : 0.0);
  out += buf;
  return out;
}

}  // namespace toposcope::sim
