// sim/nccl_tests_sim: answers planned nccl-tests runs. For a host subset it writes the output of
// `all_reduce_perf -b 8 -e 8G -f 2 -g 1` with 8 ranks per host, byte for byte in the format of
// the real runs (fixtures/real/nccl_tests: header, `Rank N Group 0 Pid P on HOST device D [bus]
// NVIDIA H100 80GB HBM3` lines, the size table, the footer), so formats/nccl/nccl_tests reads it as
// it reads the field's. The bus bandwidth is the healthy level times the slowest member's factor
// (a ring runs at its slowest link), times run-to-run noise. Which hosts are slow stays here: the
// search sees only the text.
//
// Numbers: healthy busbw 340 GB/s at 8 GiB and ~120 us small-size latency on 16 ranks
// (fixtures/real/nccl_tests/gcp_a3mega_h100_2node16gpu_all_reduce_perf.txt: 338.82 GB/s, 123 us);
// run-to-run noise 0.5 % (the same file's out-of-place / in-place pair at 8 GiB differ by 0.43 %);
// slow factors from 0.5 (a NIC or PCIe link trained at half rate) to 0.85; 3 % of runs dip by
// 2-6 % (another job's traffic: a modelling choice, not a sourced figure).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace toposcope::sim {

struct NcclTestsSimOptions {
  double healthy_busbw_gbps = 340;  // asymptotic bus bandwidth of a healthy ring
  double latency_us = 40;           // small-size time: latency_us + latency_per_doubling_us x log2(ranks)
  double latency_per_doubling_us = 20;
  double noise_rel = 0.005;         // run-to-run sigma
  double row_noise_rel = 0.002;     // size-to-size and out-of-place / in-place sigma within a run
  double dip_probability = 0.03;
  double dip_min = 0.02, dip_max = 0.06;
  double slow_factor_min = 0.5, slow_factor_max = 0.85;
  int gpus_per_host = 8;
  int64_t max_bytes = int64_t{8} << 30;
};

// The hidden truth: which hosts are slow and how much.
struct SlowNodeTruth {
  std::vector<std::string> slow;  // sorted
  std::vector<double> factor;     // per slow[i]: busbw multiplier in [slow_factor_min, slow_factor_max]
};

// "node0001" ... "nodeNNNN" (at least 4 digits).
std::vector<std::string> SimHostNames(int n);

// Draws `k` distinct slow hosts of `hosts` and their factors from `seed`. k is clamped to [0, hosts].
SlowNodeTruth DrawSlowNodes(const std::vector<std::string>& hosts, int k, uint64_t seed,
                            const NcclTestsSimOptions& opt = {});

// The all_reduce_perf output of run `run_id` over `run_hosts` (in rank order), noise drawn from
// (seed, run_id). Same inputs, same bytes.
std::string AllReducePerfText(const std::vector<std::string>& run_hosts, const SlowNodeTruth& truth, uint64_t seed,
                              int run_id, const NcclTestsSimOptions& opt = {});

}  // namespace toposcope::sim
