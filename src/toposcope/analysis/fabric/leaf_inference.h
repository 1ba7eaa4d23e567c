// analysis/fabric/leaf_inference: leaf / pod membership of hosts WITHOUT switch access (issue 5 §4), from
// host-to-host RTT probes alone (report/export/slurm_export writes it as a Slurm topology).
//
// Only src, dst, rtt_us and ts_ns of each probe are used — never its hop list (hop lists name
// switches, which is what a host-only view cannot see).
//
// Method:
//  1. Per unordered host pair, the minimum RTT over its probes in both directions (queueing, the
//     rare +15..250 µs outliers and congestion only ever add latency). Hosts with fewer than
//     `min_peers` measured peers are unplaced (listed with the reason, never dropped).
//  2. Residual RTT r(a, b) = rtt_min(a, b) - o_a - o_b, with per-host offsets o (NIC/PCIe side, a
//     slow host's extra). Iterate until the partition is stable (at most `max_iterations`):
//       a. Rows: every host's peers sorted by residual. Within a row the host's own side and its
//          leaf switch are common, so its leaf mates sit below the row's first wide gap
//          (>= min_level_gap_us) that straddles the row's tier midpoint: the global midpoint
//          (between the median nearest-peer residual and the median upper side of the rows' first
//          gaps), or, when higher, half a tier above the lower of the row's nearest residual and
//          its nearest peer's (a leaf switch that delays every pair of its hosts, such as a
//          congested one, lifts all their rows alike; a host alone on its leaf is not lifted, as
//          its nearest peer's row starts at that peer's own leaf mates).
//       b. Leaves: mutual row mates, merged in ascending residual while at least half of the
//          measured pairs between two clusters are mutual mates (one stray pair cannot chain two
//          leaves); then two leaves rejoin when D(A,B) - (D(A,A) + D(B,B)) / 2 is under half a tier
//          (D = median residual; offset-free), and a host left alone joins the leaf it is closer to
//          than that leaf is to any other (pairs queueing behind a congested switch blur single
//          rows, not these medians).
//       c. Pods: median-linkage agglomeration of leaves on a low quantile of their leaf-to-leaf
//          residuals less the two leaves' own levels (median same-leaf residual: host side and leaf
//          switch), cut at the dendrogram's largest jump between consecutive merges when at least
//          half the leaves merge below it and the jump is at least `pod_jump_ratio` of the median
//          merge below it (a relative jump: no absolute latency); else one pod (a two-tier
//          fat-tree, whose leaf-to-leaf spread rises smoothly).
//       d. Offsets by profile contrasts, jointly with the grouping: for leaf mates x, y,
//          o_x - o_y = median over third hosts a of rtt(a, x) - rtt(a, y) (leaf mates reach every
//          third host over the same switches, so this is exact whatever the fabric), solved by
//          least squares per leaf and anchored at the leaf's fastest host (host sides have a
//          physical floor; slow hosts are the exception); a host alone is measured against the
//          leaf of its nearest peer.
// Separation: the median, over hosts with mates, of the row margin (nearest non-mate minus
// farthest mate), and that over the within-leaf spread (MAD); confidence maps both to [0, 1].
// Deterministic: every order is by host name or index; no threads; same input -> same output.
#pragma once

#include <string>
#include <vector>

#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::analysis {

struct LeafInferenceOptions {
  int min_probes_per_pair = 1;     // probes (both directions together) for a pair to count
  int min_peers = 2;               // measured peers for a host to be placed
  int max_iterations = 12;         // cluster <-> offset-fit rounds
  // Smallest gap (µs, after offset removal) that separates tiers. One tier up crosses at least one
  // more switch and one more cable each way: InfiniBand cut-through switches take 0.10-0.15 µs port
  // to port (DOMAIN.md §2), so the fastest real step, with short DAC cables, is about 0.3 µs. At
  // 0.35 such dragonflies lost their leaves; below 0.25 the spread of same-tier minima (queueing,
  // a congested leaf) starts to split leaves.
  double min_level_gap_us = 0.25;
  double pod_jump_ratio = 0.3;     // pods split where the leaves' dendrogram jumps by at least this
                                   // fraction of the median merge below the jump (its largest jump)
  double min_pod_level_us = 0.05;  // floor of that median (µs)
  bool fit_offsets = true;         // false: plain minimum RTTs (for comparison)
  bool infer_pods = true;          // false: leaves only
};

struct InferredLeaf {
  std::string name;                // "leaf-00", ... in order of their first host name
  std::vector<std::string> hosts;  // sorted
};

struct InferredPod {
  std::string name;                 // "pod-00", ...
  std::vector<std::string> leaves;  // InferredLeaf names, sorted
  std::vector<std::string> hosts;   // all hosts of its leaves, sorted
};

struct LeafInference {
  std::vector<InferredLeaf> leaves;     // every placed host in exactly one leaf
  std::vector<InferredPod> pods;        // every leaf in exactly one pod (one pod when the fabric
                                        // shows no pod tier, or infer_pods is false)
  std::vector<double> levels_us;        // median residual RTT (after offset removal) of each tier
                                        // present: same leaf, same pod, across pods; ascending
  std::vector<std::string> hosts;       // every host seen in the probes, sorted
  std::vector<double> offset_us;        // per hosts[i]: its fitted additive RTT offset (µs) above
                                        // the fastest host of its leaf (a slow host: ~its extra);
                                        // 0 for unplaced hosts
  std::vector<std::string> unplaced;    // hosts with too little evidence (sorted), with reasons in
                                        // evidence
  std::vector<std::string> evidence;    // human-readable lines: pairs used, tiers, margins,
                                        // iterations, unplaced reasons
  int64_t probes_used = 0;              // probes with a finite RTT and both ends named
  int64_t probes_ignored = 0;           // no src, src == dst, NaN / negative RTT
  int64_t pairs = 0;                    // unordered host pairs measured
  int iterations = 0;                   // rounds until the partition was stable
  bool converged = false;
  double separation = 0;                // margin_us / MAD of the within-leaf residuals
  double margin_us = 0;                 // median row margin (µs, residual RTT): per host with mates,
                                        // its nearest non-mate minus its farthest mate
  double pod_margin_us = 0;             // the dendrogram's jump at the pod cut: the first merge of
                                        // two pods minus the last merge inside one (0 when no pod
                                        // tier)
  double confidence = 0;                // [0, 1]: margin against min_level_gap_us, times the share
                                        // of hosts whose own row gap separates their mates
};

// Infers leaves and pods from RTT probes (only src, dst, rtt_us, ts_ns are read). Never fails:
// too little input gives empty leaves with everything unplaced and the reason in evidence.
LeafInference InferLeaves(const std::vector<formats::PathProbe>& probes,
                          const LeafInferenceOptions& opt = {});

}  // namespace toposcope::analysis
