// analysis/fabric/link_weights: per-link latency weights of the fabric (seed §4.2) from the data at hand —
// path probes give the paths and their RTTs, tomography (analysis/tomography.h) solves for each
// cable's latency, and an ibnetdiscover fabric, when loaded, names the switch ports so that the
// weights can be handed to OpenSM (`--hop_weights_file`).
//
// Paths. A probe's node list is src, its hops, dst (a leading src / trailing dst in the hop list
// is not repeated). Each consecutive pair of nodes is one cable, named by its two end names sorted
// and joined by "--" ("leaf00--spine01", "leaf00--node001"): the same ids the simulator's truth
// uses. Routes are symmetric, so a probe crosses each cable twice (out and back): the cable is
// listed twice and its solved latency is the per-crossing (one-way) cost. Probes with a silent hop
// ("*"), no RTT, or a repeated node are not used (counted).
//
// Probes without a hop list (an all-pairs latency matrix: ib_write_lat, nccl-tests) are routed
// by the fabric's levels instead, assuming a 2-tier leaf/spine fabric: each endpoint's leaf comes
// from the ibnetdiscover fabric (a host's adapter on that switch) or, lacking one, from the leaves
// inferred from probe RTTs (analysis/leaf_inference.h); same leaf: src, leaf, dst; else src,
// leaf A, kSpineLevel, leaf B, dst. The cable "(spines)--<leaf>" is then the leaf's uplink level
// (whichever spine the hash chose; the route's minimum picks the fastest). Probes whose
// endpoints have no known leaf stay unusable.
//
// Robust RTT. Queueing only ever adds delay and a few probes are outliers (the responder was
// descheduled), so the probes that followed the same route between the same endpoints (either
// direction) are grouped and the group's RTT is a low order statistic: its minimum by default
// (`rtt_statistic` kMin), its median (kMedian), or the Robson-Whitlock floor below its minimum
// (kEndpoint). Each group is one tomography path.
//
// Switch paths pooled (kMin). A route's minimum over its own probes stays above the idle RTT by
// the least queueing those probes met: more switches crossed, or fewer probes (ECMP spreads a
// pair's probes over the spines, a few each), leave more. Routes between different endpoints over
// the same switches share that part of the RTT, so after a first solve each probe, less its
// route's two endpoint cables, joins the probes of every route on its switch path; a route's RTT
// becomes that pool's minimum plus its endpoint cables (never above its own minimum), and the
// problem is solved again. `routes_pooled` counts the routes it lowered.
//
// Queueing evidence. The minimum removes queueing only where some probe of the route met an idle
// queue; behind a congested switch it stays high. Per cable, `queue_spread_us` is the median over
// the routes crossing it (with >= 2 probes) of their median RTT minus their minimum: a spread
// comparable to the cable's latency says its estimate is an upper bound (the idle latency plus
// what even the fastest probe queued), not the idle latency.
//
// Hop weights. With a fabric, a cable between two switch ports named in the probes becomes two
// OpenSM entries (each switch end's port GUID and port; OpenSM weights the output port), with
// HopWeightFromTomography of the cable's normalised weight; a host cable becomes one entry for
// its switch port. Cables whose ends the fabric does not name are counted, not guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/analysis/fabric/fabric.h"
#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/analysis/fabric/tomography.h"
#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::analysis {

// The pseudo-node of a level route: any spine above the leaves.
inline constexpr const char* kSpineLevel = "(spines)";

// Which order statistic of a route's probe RTTs is the route's RTT.
enum class RttStatistic {
  kMin,       // "min": the fastest probe
  kEndpoint,  // "endpoint": 2 x min - second smallest (the min itself with one probe), floored at 0
  kMedian,    // "median"
};
// The names above.
std::string_view RttStatisticName(RttStatistic s);
// The statistic named `name`; nullopt for any other name.
std::optional<RttStatistic> ParseRttStatistic(std::string_view name);

// Where the leaves of probes without hop lists come from.
enum class LevelSource {
  kNone,           // "": none needed, or none known
  kIbnetdiscover,  // "ibnetdiscover": the leaf switches of the fabric read from ibnetdiscover dumps
  kIblinkinfo,     // "iblinkinfo": ... from iblinkinfo output alone
  kIbnetdiscoverIblinkinfo,  // "ibnetdiscover+iblinkinfo": ... from both, merged
  kInferred,       // "inferred": the leaves inferred from probe RTTs
};
// The names above ("" for kNone).
std::string_view LevelSourceName(LevelSource s);

struct LinkWeightOptions {
  TomographyOptions tomography;
  RttStatistic rtt_statistic = RttStatistic::kMin;  // over a route's probes
  int min_probes_per_route = 1;       // routes with fewer probes are not used
  bool pool_switch_paths = true;      // kMin: pool the probes of routes on one switch path (below)
  int unidentified_hop_weight = 1;    // OpenSM weight of a cable whose latency is not identifiable
};

struct LinkWeightReport {
  bool present = false;
  TomographyResult tomography;        // links sorted by id; latency_us per crossing
  std::vector<double> queue_spread_us;  // per tomography.links[i]; NaN without a multi-probe route
  int64_t links_queueing = 0;           // identifiable links whose queue_spread_us > latency_us
  int64_t routes_pooled = 0;            // routes whose RTT came from their switch path's pooled probes
  int64_t routes_queueing = 0;          // routes whose spread is in the upper of two classes (Otsu on
                                        // log spreads, medians >= 10x apart), solved after the others
                                        // for the cables only they cross (their minimum is an upper
                                        // bound)
  int64_t probes = 0;                 // probes seen
  int64_t probes_used = 0;            // in a route that became a path
  int64_t probes_unusable = 0;        // silent hop, no RTT, repeated node or no endpoint
  int64_t probes_by_level = 0;        // routed by the leaf levels (no hop list)
  LevelSource level_source = LevelSource::kNone;
  int64_t routes = 0;                 // distinct (endpoints, route) groups used as paths
  RttStatistic rtt_statistic = RttStatistic::kMin;  // LinkWeightOptions::rtt_statistic
  // OpenSM export (with a fabric).
  std::vector<HopWeight> hop_weights;  // sorted by (port GUID, port)
  int64_t cables_mapped = 0;           // solved cables whose switch ports the fabric names
  int64_t cables_unmapped = 0;         // solved cables the fabric does not name (or no fabric)
};

// Solves the cable latencies of the probes' routes; maps them to OpenSM hop weights when `fabric`
// is present. Returns the report (probes that cannot be routed are counted, not used). Never
// fails: an empty probe list gives a report with present = false.
// `inferred` (may be null) places endpoints on leaves for probes without hop lists when the
// fabric does not.
LinkWeightReport AnalyzeLinkWeights(const std::vector<formats::PathProbe>& probes,
                                    const FabricReport& fabric, const LinkWeightOptions& opt = {},
                                    const LeafInference* inferred = nullptr);

// The cable id of two node names: sorted, joined by "--" (the same for either order). Never fails.
std::string CableId(const std::string& a, const std::string& b);

}  // namespace toposcope::analysis
