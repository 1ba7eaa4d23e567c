// analysis/traffic/collective_bench: what nccl-tests runs measured. Per run: the host set (from
// its `Rank N ... on HOST device D` lines), the GPUs, the bus bandwidth at the largest size and at
// its peak, and the validation outcome (#wrong, out-of-bounds). Per host set and test: the best
// bus bandwidth of its runs, compared with the other host sets that ran the same test on as many
// ranks and hosts up to the same size (a robust z-score over them), which is what a search for
// slow nodes starts from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "toposcope/formats/nccl/nccl_tests.h"

namespace toposcope::analysis {

struct CollectiveRun {
  std::string source;                   // the file
  int64_t first_line = 0;               // where the run starts in it
  std::string test;                     // "all_reduce_perf"; empty when the output does not say
  std::string version;                  // nccl-tests version; empty when not printed
  std::vector<std::string> hosts;       // sorted, distinct; empty without device lines
  int ranks = 0;                        // device lines (0 when none were printed)
  std::vector<std::string> gpu_models;  // distinct, sorted
  int64_t sizes = 0;                    // rows of the table
  int64_t largest_bytes = 0;            // the largest size measured
  double busbw_at_largest_gbps = 0;     // out-of-place bus bandwidth there (in-place when N/A)
  double peak_busbw_gbps = 0;           // the best bus bandwidth of any size
  int64_t peak_at_bytes = 0;
  std::optional<double> avg_busbw_gbps;  // `# Avg bus bandwidth` as printed
  int64_t wrong = 0;                     // #wrong summed over rows (validation errors)
  std::optional<int64_t> out_of_bounds;  // `# Out of bounds values : N`
  std::string validation;                // "passed", "failed" (wrong or out of bounds > 0), "off" (N/A)
};

// The runs of one test on one host set at one rank count.
struct HostSetBandwidth {
  std::vector<std::string> hosts;  // empty: the runs named no hosts
  std::string test;
  int ranks = 0;
  int runs = 0;
  double best_busbw_gbps = 0;      // best busbw_at_largest_gbps of the runs
  int64_t largest_bytes = 0;       // the size of that best
  // Against the other host sets of the same test, ranks, hosts and size (>= 3 sets in all): the median
  // of their best bandwidths and this set's robust z-score ((x - median) / (1.4826 MAD), the MAD
  // floored at 1 % of the median, the precision nccl-tests prints to at these sizes). 0 / NaN
  // when there are fewer than 3 sets to compare.
  int peers = 0;
  double peer_median_gbps = 0;
  double z = 0;
  bool slow = false;               // z < -slow_z
};

struct CollectiveFinding {
  std::string kind;                // "validation_failed", "slow_host_set"
  std::string source;              // the file of the run (validation) or empty (a host set)
  std::vector<std::string> hosts;
  std::string test;
  std::string evidence;            // one sentence with the figures
};

struct CollectiveBenchReport {
  std::vector<CollectiveRun> runs;       // in input order
  std::vector<HostSetBandwidth> host_sets;  // sorted by test, ranks, hosts
  std::vector<CollectiveFinding> findings;
};

struct CollectiveBenchOptions {
  double slow_z = 3.0;  // a host set this many robust sigmas below its peers' median is slow
};

// Summarises every run of every report; never fails (a run without rows gives zeros).
CollectiveBenchReport SummarizeNcclTests(const std::vector<formats::NcclTestsReport>& reports,
                                         const CollectiveBenchOptions& opt = {});

}  // namespace toposcope::analysis
