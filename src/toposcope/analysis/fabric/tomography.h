// analysis/fabric/tomography: network tomography (seed §4.2) — per-link latencies from end-to-end path
// RTTs. Each path i crosses a list of links; its RTT r_i ≈ Σ_j A_ij x_j where A_ij counts how
// many times path i crosses link j. We solve the seed's weighted least squares
//     x = argmin ‖W^½ (A x − r)‖²,  W = diag(1/(r + 1e-6))   (seed_weighting; else W = I)
// sparse (LSQR on W^½A, see stats/sparse_lsq.h — the seed's dense `np.linalg.solve(AᵀWA, AᵀWr)`
// is the same estimator when AᵀWA is invertible), then normalise the identifiable latencies to
// [min_weight, max_weight] linearly (min latency → min_weight, max → max_weight) as the seed does.
//
// Physical model (DOMAIN.md §2): an RTT is the sum of the one-way latencies of every hop out and
// back plus endpoint constants (HCA/driver/PCIe processing, ~1–2 µs per side). So:
//  - a path should list the links of BOTH directions it crosses (e.g. "leaf00:p3->spine01:p1" out
//    and "spine01:p1->leaf00:p3" back); then the result is one-way latencies. When routes are
//    symmetric, the two directions of a cable always appear together and are reported as
//    not identifiable ("always together with"); use ONE id per cable (listed twice, once per
//    crossing — the count becomes 2) to get the per-crossing latency of the cable instead.
//  - endpoint constants: pass `host_terms = true` to add pseudo-links "host:<src>" and
//    "host:<dst>" to every path (each host's fixed cost), or list such ids yourself. A host's
//    constant and its only uplink are always crossed together, so they come out as one
//    non-identifiable group unless hosts are multi-homed — that is the truth of the data, not a bug.
// Identifiability: a link's latency is identifiable iff its column of A is not in the span of the
// other columns over the observed rows (e_j ∈ row space of A). We detect exactly: uncovered links
// (no path crosses them — possible only for ids listed in `extra_links`) and links whose columns
// are identical (always crossed together, the same number of times); every other numerical
// dependency is found by a null-space probe (dense column-pivoted QR when the reduced problem is
// small, otherwise LSQR on a random right side: a link is not identifiable when the min-norm
// solution of A x = A z does not reproduce z_j). Non-identifiable links get latency/weight NaN.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace toposcope::analysis {

struct TomographyPath {
  std::string src, dst;              // endpoints (host names); used by host_terms
  std::vector<std::string> links;    // link ids the path crosses, in order (repeats count twice)
  double rtt_us = 0;                 // observed round-trip time, µs (non-finite or < 0: path dropped)
};

struct TomographyOptions {
  double min_weight = 0.1, max_weight = 5.0;  // normalisation range (seed: [0.1, 5.0])
  int max_iterations = 10000;                 // solver iteration cap
  double tolerance = 1e-10;                   // solver stopping tolerance (stats::SparseLsqOptions)
  bool seed_weighting = true;                 // W = diag(1/(r+1e-6)) as the seed; false: W = I
  bool host_terms = false;                    // add pseudo-links "host:<src>", "host:<dst>" per path
  bool use_cg = false;                        // CG on the normal equations instead of LSQR
  // Null-space probe: dense QR is used when the reduced column count is ≤ this; above it the
  // randomised LSQR probe (one extra solve). 0 disables the probe (only exact structural checks).
  int dense_identifiability_limit = 2000;
  uint64_t probe_seed = 0x70F0;               // the probe's fixed seed (deterministic)
  std::vector<std::string> extra_links;       // links known to exist (e.g. from a fabric) — reported
                                              // "uncovered" when no path crosses them
};

struct LinkWeight {
  std::string link;
  double latency_us = 0;   // solved (un-normalised) latency per crossing; NaN when not identifiable
  double weight = 0;       // normalised to [min_weight, max_weight]; NaN when not identifiable
  bool identifiable = false;
  std::string reason;      // "" when identifiable; "uncovered", "rank-deficient: always together
                           // with X[, Y...]", "rank-deficient: in the span of other links"
  int paths = 0;           // number of (kept) paths that cross this link
};

struct TomographyResult {
  std::vector<LinkWeight> links;  // sorted by link id
  int iterations = 0;             // solver iterations
  double relative_residual = 0;   // ‖W^½(Ax − r)‖ / ‖W^½ r‖ of the solution
  int64_t paths = 0;              // paths used (after dropping bad ones)
  int64_t dropped_paths = 0;      // paths dropped: non-finite/negative RTT or no links
  int64_t link_count = 0;         // distinct links (incl. uncovered extra_links, host pseudo-links)
  int rank_deficiency = 0;        // n − rank(A): uncovered + (group size − 1) per always-together
                                  // group + numerical dependencies found by the probe
  std::string method;             // e.g. "lsqr+colscale, identifiability: dense-qr"
};

// Solves the tomography problem; returns every link's latency and weight (NaN with the reason
// when not identifiable), sorted by link id. Never throws: paths with a bad RTT or no link are
// dropped (counted), and an input without any link gives an empty result with method "empty".
TomographyResult SolveTomography(const std::vector<TomographyPath>& paths,
                                 const TomographyOptions& opt = {});

// OpenSM `--hop_weights_file` (opensm(8); read by osm_subnet's hop-weights parser): one line per
// switch port, "<port_guid> <port_num> <weight>", port GUID as 0x%016x hex. Weights are the
// integer hop costs OpenSM's min-hop/updn routing adds per hop (≥ 1; the default is 1).
struct HopWeight {
  std::string port_guid;  // "0x..." (any hex form; written normalised as 0x + 16 hex digits)
  int port = 0;           // port number on that switch (1..254)
  int weight = 1;         // ≥ 1
};

// Converts normalised tomography weights to OpenSM hop weights: round(weight / min_weight) so the
// cheapest link gets 1; NaN weights (non-identifiable links) get `unidentified_weight`.
int HopWeightFromTomography(double weight, double min_weight = 0.1, int unidentified_weight = 1);

}  // namespace toposcope::analysis
