// analysis/fabric/path_entropy: path entropy, bottleneck nodes and redundant hops from path probes
// (MISSION §3.3), each finding with its evidence.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::analysis {

// Hops: a probe's intermediate hops are its hop list without a leading src and a trailing dst
// (endpoints excluded); kUnknownHop ("*") hops count for lengths but are never findings.
//
// Path entropy (the seed's): Shannon entropy (bits) of the visit counts of intermediate hops.
//
// Bottlenecks: ECMP hashes each flow onto one path, so one (src, dst) pair shows no diversity;
// diversity shows across pairs at a *choice point*. For every intermediate hop x with its
// neighbours on the path (prev, next) (prev may be src, next may be dst), the segment group
// (prev, next) collects the nodes seen between them, over the probes that are not detours (see
// below: detours are redundant-hop evidence). Its candidates are the nodes seen after prev
// (anywhere) that are also seen before next (anywhere); a group with >= 2 candidates and
// >= min_group_paths paths is a choice point. Its entropy is the Shannon entropy (bits) of the
// visit distribution of its middle nodes. A node is a bottleneck when it carries the largest
// share of a choice point's paths, that choice point's entropy is < bottleneck_entropy, and the
// concentration is not chance: the binomial tail P(X >= its count | n, 1/candidates) times the
// number of choice points tested is < significance. Its finding reports the path-weighted
// entropy of those choice points, its share of their paths (reuse_rate) and their paths.
//
// Redundant hops: the shortest known path between two endpoints is the BFS distance in the graph
// of every observed adjacency (plus PathOptions::known_links). A probe detours when its length in
// links exceeds that by >= redundant_extra_hops. A node x is off the shortest paths of a pair
// (src, dst) when dist(src,x) + dist(x,dst) > dist(src,dst). Its reuse rate is the share of the
// probes of the pairs whose detours pass it (off their shortest paths) that do so; it is a
// redundant hop when that share is > redundant_reuse (pooled over the pairs, so that pairs with
// few probes do not decide alone). One finding per node; the pair with the most probes is cited.
// What a path finding says of its node.
enum class PathFindingKind { kBottleneck, kRedundantHop };
// "bottleneck" or "redundant_hop".
std::string_view PathFindingKindName(PathFindingKind k);

struct PathFinding {
  std::string node;
  PathFindingKind kind = PathFindingKind::kBottleneck;
  double entropy = 0;     // bottleneck: weighted entropy of its choice points; redundant: the
                          // cited pair's intermediate-hop entropy
  double reuse_rate = 0;  // bottleneck: share of its choice points' paths it carries;
                          // redundant: share of its pairs' probes that detour through it
  int extra_hops = 0;     // redundant: median extra links of its detours; bottleneck: 0
  int64_t paths = 0;      // probes behind the finding
  std::string evidence;
};

struct PathReport {
  std::vector<PathFinding> bottlenecks, redundant_hops;  // sorted by node
  double overall_entropy = 0;  // the seed's entropy over every intermediate hop of every probe
  int64_t paths = 0;           // probes analysed
  // Added.
  int64_t choice_points = 0;    // segment groups tested
  int64_t detour_probes = 0;    // probes >= redundant_extra_hops longer than the shortest
};

struct PathOptions {
  double bottleneck_entropy = 0.8;  // bits
  double redundant_reuse = 0.75;
  int redundant_extra_hops = 2;
  // Added.
  int64_t min_group_paths = 8;   // paths a choice point needs
  double significance = 0.01;    // family-wise chance level of a bottleneck
  std::vector<std::pair<std::string, std::string>> known_links;  // extra adjacencies (undirected)
};

// Finds the bottlenecks and redundant hops of the probes' paths (see above) and measures the
// seed's entropy over them; returns the report, findings sorted by node. Probes without a
// destination are skipped. Never fails: no usable probe gives an empty report.
PathReport AnalyzePaths(const std::vector<formats::PathProbe>& probes, const PathOptions& opt = {});

// The seed's calc_node_entropy: Shannon entropy (bits) of the visit counts of the intermediate
// hops of `paths` (each a full node list src, ..., dst; the first and last entries are dropped).
// 0 when there are no intermediate hops. kUnknownHop entries are skipped. Never fails.
double SeedNodeEntropyBits(const std::vector<std::vector<std::string>>& paths);

}  // namespace toposcope::analysis
