// analysis/traffic/traffic_matrix: the GPU-pair NVLink traffic matrix of NVSwitch nodes (issue 5 §6).
//
// DCGM counts NVLink bytes per GPU (DCGM_FI_PROF_NVLINK_TX_BYTES 1011 / RX_BYTES 1012, bytes/s),
// not per GPU pair: on an NVSwitch node every GPU reaches every other one, so the per-GPU counters
// are only the margins (row and column sums) of the host's G x G matrix. The ring order NCCL prints
// (RingsFromLogs: per channel the rank order, ranks mapped to host/GPU) supplies the support and
// the shape:
//   - a ring channel moves the same bytes over every one of its edges (ring AllReduce / AllGather
//     / ReduceScatter: every rank sends the same chunk sequence to its successor), so the
//     channel's intra-node successor edges form one pattern with ONE unknown volume;
//   - a pipeline pattern (comm rank r -> r + 1 on the same host: pipeline-parallel SendRecv, which
//     NCCL logs do not list per peer) is a candidate with one volume; the fit leaves it at 0 when
//     the counters do not call for it (option pipeline_successor_edges).
// Method, per host: the mean tx/rx rates over the common DCGM window of the host's GPUs; a
// non-negative least-squares fit of the pattern volumes to the 2G margins (at most 17 unknowns,
// active set); then iterative proportional fitting from that fitted matrix, on its support, to the
// measured margins (rescaled to a common total), so that each GPU's outgoing pairs sum to its tx
// and its incoming pairs to its rx while the cross-ratios the counters cannot see keep the
// pattern's shape (equal bytes on every edge of a channel).
// Error bar per pair (half-width, z x sigma, z = 1.96 by default) from three independent parts,
// added in quadrature:
//   - noise: a moving-block bootstrap over the DCGM sample instants (the host's GPUs resampled
//     together, fixed seed), the fit redone on each replicate; sigma = the replicates' std;
//   - margin mismatch: the pair's share of the residual the fitted pattern leaves on its sender's
//     tx and its receiver's rx (what the pattern cannot explain);
//   - channel-share ambiguity: when the support has more edges than the margins have independent
//     equations, the difference between the IPF solution and the pattern fit itself (the
//     equal-share assumption's leverage).
// The margins alone: the 2G x E incidence matrix of the support; its rank is reported; with
// E > rank the counters cannot separate the pairs and the pattern (equal shares per channel, one
// pipeline volume) decides; the feasible range of each pair under the margins alone (one step
// along each null-space direction until a pair hits 0) is reported as range_lo/range_hi.
// Pairs no pattern connects are reported as 0 with a bound: the largest margin residual of their
// sender's tx and receiver's rx (bytes/s nobody accounted for).
// How much data a host needs follows from its own problem, not from a fixed count: the noise part
// needs a spread between sample instants (two at least), and the pooled per-instant regression of
// the host's P pattern volumes on its 2G margins needs more equations than unknowns (n x 2G > P);
// samples_needed is the larger of the two. With few samples (slow DCGM periods: 30 s over a one-
// minute job is 2 instants) every sample is its own bootstrap block and the noise part is widened
// to the Student-t quantile of the blocks' degrees of freedom (the bootstrap's spread, corrected by
// sqrt(B / (B - 1)), underestimates the sample spread of B blocks); `confidence` says how far the
// bar's noise part can be trusted (1 - 1 / sqrt(2 dof), the relative spread of a standard
// deviation estimated from dof degrees of freedom).
// Not estimable (with the reason): hosts whose GPUs are not all NVLink-connected (bridges, PCIe
// only), hosts without the two counters, hosts no ring of the logs crosses with known GPUs, fewer
// common samples than samples_needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/analysis/traffic/rings.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

struct TrafficMatrixOptions {
  // Add the pipeline candidate pattern (comm rank r -> r + 1 inside a host).
  bool pipeline_successor_edges = true;
  double z = 1.96;              // error bar half-width = z x sigma
  int bootstrap_replicates = 200;
  int block_samples = 0;        // bootstrap block length in samples; 0 = automatic (n^(1/3), >= 2)
  uint64_t seed = 1;            // bootstrap RNG (fixed: output is deterministic)
  int min_samples = 0;          // common sample instants a host needs; 0: derived per host (samples_needed)
  int ipf_iterations = 200;
  double ipf_tolerance = 1e-9;  // relative margin error at which IPF stops
};

// One directed GPU pair of a host.
struct PairTraffic {
  int src_gpu = -1, dst_gpu = -1;
  double bytes_per_s = 0;      // mean over the host's common DCGM window
  double bytes = 0;            // bytes_per_s x window_s
  double err_bytes_per_s = 0;  // half-width: sqrt((noise_z sigma_noise)^2 + (z sigma_margin)^2 + (z sigma_ambiguity)^2)
  double sigma_noise = 0, sigma_margin = 0, sigma_ambiguity = 0;  // its parts (1 sigma)
  double range_lo = 0, range_hi = 0;  // feasible range under the margins alone (bytes/s)
  bool supported = true;       // on a ring / pipeline edge; false: reported as 0 with its bound
  std::vector<int> channels;   // ring channels whose intra-node order has this edge
  bool pipeline = false;       // a pipeline successor edge
};

struct HostTrafficMatrix {
  std::string host;
  bool estimable = false;
  std::string reason;          // why not, when not estimable
  int gpus = 0;
  int64_t window_start_ns = 0, window_end_ns = 0;  // common DCGM window, host clock
  double window_s = 0;
  int samples = 0;             // common sample instants used
  int samples_needed = 0;      // what this host's fit needs (see the file comment), or min_samples when set
  int noise_blocks = 0;        // bootstrap blocks the samples were cut into
  int noise_dof = 0;           // degrees of freedom of the noise part (noise_blocks - 1)
  double noise_z = 0;          // the noise part's quantile: Student-t at z's two-sided level, noise_dof
  double confidence = 0;       // 1 - 1/sqrt(2 noise_dof): trust in the error bars' noise part (0..1)
  std::vector<double> tx_bytes_per_s, rx_bytes_per_s;  // measured margins per GPU index
  // Shape of the problem.
  int unknowns = 0;            // supported directed pairs
  int margins = 0;             // 2 x GPUs
  int margin_rank = 0;         // rank of the support's incidence matrix
  bool separable = true;       // unknowns <= margin_rank: the counters alone fix every pair
  std::string assumption;      // what decides when not separable
  // The pattern fit.
  std::vector<int> channel_ids;               // ring channels crossing this host
  std::vector<double> channel_bytes_per_s;    // fitted volume per channel edge
  double pipeline_bytes_per_s = 0;            // fitted volume per pipeline edge
  double margin_residual_rel = 0;             // |pattern margins - measured| / |measured|
  double margin_mismatch_rel = 0;             // |sum tx - sum rx| / mean of the two
  std::vector<PairTraffic> pairs;             // every ordered pair src != dst, sorted
};

struct TrafficMatrixReport {
  bool present = false;        // DCGM NVLink counters or ring orders were seen
  std::string comm;            // the communicator whose rings were used
  int channels = 0;
  std::string method;          // one line
  std::vector<HostTrafficMatrix> hosts;  // sorted by name
  std::vector<std::string> notes;
  int hosts_estimable = 0;
};

// Estimates every host's directed GPU-pair NVLink traffic from the DCGM per-GPU counters of `ds`
// and the ring orders of `rings` (RingsFromLogs; rings without per-rank GPUs, e.g. from flows,
// are ignored). The communicator used is the one whose rings cover the most (host, GPU) ranks.
// Returns one matrix per host (by name); never fails: hosts that cannot be estimated say why.
TrafficMatrixReport EstimateTrafficMatrix(const model::Dataset& ds, const RingReport& rings,
                                          const TrafficMatrixOptions& opt = {});

}  // namespace toposcope::analysis
