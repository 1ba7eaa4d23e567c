// formats/fabric/slurm_topology: Slurm's network topology descriptions, read and written —
// `topology.conf` (topology/tree `SwitchName=… Switches=… Nodes=… LinkSpeed=…`, topology/block
// `BlockName=… Nodes=…` + `BlockSizes=…`) and `topology.yaml` (Slurm 24.11+: a list of named
// topologies, each tree, block, flat, ring or torus3d) — plus Slurm hostlist expressions
// (`node[01-16,20]`, `rack[1-2]-n[1-4]`, comma lists) expanded and compressed like Slurm does.
// Leaf/spine inference exports its result here; the real files are read as ground truth.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

// Slurm's own limit on one bracket range (hostlist.c MAX_RANGE, 64K hosts: "anything larger will be
// assumed to be an error"): a longer range is rejected.
inline constexpr size_t kSlurmMaxRangeHosts = 64 * 1024;
// The most names one hostlist, and all the hostlists of one file together, may expand to (memory
// stays bounded whatever the input); a file over it has the hostlist that crosses it rejected.
inline constexpr size_t kMaxHostlistNames = 1000000;

struct SlurmSwitch {
  std::string name;
  std::vector<std::string> switches;   // child switches, expanded, in expression order
  std::vector<std::string> nodes;      // nodes, expanded, in expression order
  std::string nodes_expr, switches_expr;  // as written ("" when absent)
  int link_speed = -1;                 // LinkSpeed=N (conf only); -1 when absent
  std::string comment;                 // the comment line(s) right before it, without "# "
                                       // (topograph writes "switch.1.1=leaf-1-1"); conf only
  int64_t line = 0;
  friend bool operator==(const SlurmSwitch&, const SlurmSwitch&) = default;
};

struct SlurmBlock {
  std::string name;
  std::vector<std::string> nodes;      // expanded
  std::string nodes_expr;
  std::string comment;                 // as SlurmSwitch::comment ("rack11=nvl-1-1")
  int64_t line = 0;
  friend bool operator==(const SlurmBlock&, const SlurmBlock&) = default;
};

// topology/ring (yaml only): `rings: [{ring: name, nodes: <hostlist>}]`.
struct SlurmRing {
  std::string name;
  std::vector<std::string> nodes;
  std::string nodes_expr;
  int64_t line = 0;
  friend bool operator==(const SlurmRing&, const SlurmRing&) = default;
};

// topology/torus3d (yaml only): `toruses: [{name, dims: {x,y,z}, nodes, placements: [{dims}]}]`.
struct SlurmTorus {
  std::string name;
  std::array<int, 3> dims{0, 0, 0};
  std::vector<std::string> nodes;
  std::string nodes_expr;
  std::vector<std::array<int, 3>> placements;
  int64_t line = 0;
  friend bool operator==(const SlurmTorus&, const SlurmTorus&) = default;
};

// The names of the switches that no switch in `switches` lists as a child, in order (several when
// the tree is disconnected); for any switch record with `name` and child `switches`. Never fails.
template <typename Switch>
std::vector<std::string> RootSwitchNames(const std::vector<Switch>& switches) {
  std::unordered_set<std::string> children;
  for (const Switch& s : switches) children.insert(s.switches.begin(), s.switches.end());
  std::vector<std::string> roots;
  for (const Switch& s : switches) {
    if (children.count(s.name) == 0) roots.push_back(s.name);
  }
  return roots;
}

struct SlurmTopology {
  std::string plugin;                  // "tree" | "block" | "flat" | "ring" | "torus3d" | ""
  std::string name;                    // yaml `topology:`; "" for topology.conf
  bool cluster_default = false;        // yaml `cluster_default:`
  std::vector<SlurmSwitch> switches;   // tree
  std::vector<SlurmBlock> blocks;      // block
  std::vector<int> block_sizes;        // block (BlockSizes= / block_sizes:)
  std::vector<SlurmRing> rings;        // ring
  std::vector<SlurmTorus> toruses;     // torus3d
  std::vector<std::pair<std::string, std::string>> flat_options;  // `flat: {k: v}`; empty for
                                                                  // `flat: true`
  ReadCounts counts;                   // conf: one record per non-comment line; yaml: one per
                                       // switch/block/ring/torus entry and per topology
  int64_t line = 0;                    // yaml: line of the `- topology:` item; conf: 0

  // Switches with no parent (several when the tree is disconnected, like Slurm testcase6).
  [[nodiscard]] std::vector<std::string> RootSwitches() const;
  // Switches that list nodes (leaves).
  [[nodiscard]] std::vector<std::string> LeafSwitches() const;
  // Every node listed anywhere, expanded, in first-seen order, without duplicates.
  [[nodiscard]] std::vector<std::string> AllNodes() const;
  // Equal in every field but the counts.
  friend bool operator==(const SlurmTopology& a, const SlurmTopology& b);
};

// Parses topology.conf (one topology; plugin "tree" when it has SwitchName lines, "block" when it
// has BlockName lines). Keys are case-insensitive; `#` starts a comment; `\` continuations are
// joined. Rejected, with line and reason: lines without `SwitchName=`/`BlockName=`/`BlockSizes=`
// first, unknown or repeated keys, empty values, bad hostlists, a bad LinkSpeed, a switch or block
// named twice (the second is rejected), BlockSizes that are not positive increasing integers,
// a BlockSizes line seen twice, tree lines mixed into a block file (and vice versa; the minority is
// rejected). Warned (kept, as Slurm only warns): a node under two switches/blocks, a switch that
// lists both Switches= and Nodes=, a child switch that is never defined, several root switches.
// Fails when the input is binary or no line looks like a topology.conf record. `max_names` caps the
// names all hostlists of the file expand to.
Result<std::vector<SlurmTopology>> ParseSlurmTopologyConf(std::string_view text, std::string_view source,
                                                          Diagnostics& diag, size_t max_names = kMaxHostlistNames);

// Parses topology.yaml (a list of `{topology, cluster_default, tree|block|flat|ring|torus3d}`).
// Rejected entries (counted): switches/blocks/rings/toruses items without their name key, with
// bad hostlists, duplicate names, unknown keys; a topology item with no known plugin key or two of
// them. Fails when the YAML is outside the subset mini_yaml reads, or the root is not a list of
// mappings with `topology:` keys. `file_counts` (may be null) receives the counts of the whole file:
// the kept topologies' counts plus each rejected topology item (which has no topology to carry it).
Result<std::vector<SlurmTopology>> ParseSlurmTopologyYaml(std::string_view text, std::string_view source,
                                                          Diagnostics& diag, ReadCounts* file_counts = nullptr,
                                                          size_t max_names = kMaxHostlistNames);

// Writes topology.conf for a tree or block topology: comments (`# <comment>`) then
// `SwitchName=x [Switches=<hostlist>] [Nodes=<hostlist>] [LinkSpeed=N]` / `BlockName=x
// Nodes=<hostlist>` and `BlockSizes=a,b`. Hostlists are compressed from the expanded vectors (the
// *_expr fields are not used). Parse(Write(x)) == x for names without blanks, '=', '#', '[' or ','
// (all but line, counts and the *_expr fields; a control byte in a comment is written as '?').
std::string WriteSlurmTopologyConf(const SlurmTopology& topo);

// Writes topology.yaml (Slurm's layout, as in the topology.yaml(5) example) for every topology.
// Parse(Write(x)) == x under the same conditions.
std::string WriteSlurmTopologyYaml(const std::vector<SlurmTopology>& topos);

// Expands a Slurm hostlist: comma-separated items, each a name with any number of bracket groups
// `[a-b,c,...]` (ranges keep the zero-padding of their lower bound: `[08-10]` -> 08 09 10);
// several groups multiply (`r[1-2]n[1-2]` -> r1n1 r1n2 r2n1 r2n2). Returns {} and sets *error
// (when non-null) on unbalanced brackets, empty items, bad or reversed ranges, a range of more than
// kSlurmMaxRangeHosts names, or more than `max_names` names in all.
std::vector<std::string> ExpandHostlist(std::string_view expr, std::string* error,
                                        size_t max_names = kMaxHostlistNames);

// Compresses names to a hostlist, keeping their order: consecutive names that share a prefix and
// suffix around their last run of digits are merged into one bracket group with ranges
// (`n1,n2,n3,n5` -> `n[1-3,5]`, `switch.2.1..6` -> `switch.2.[1-6]`, padding kept). A name
// without digits is written as is. ExpandHostlist(CompressHostlist(v)) == v for names without
// '[', ']' or ','.
std::string CompressHostlist(std::vector<std::string> hosts);

// True when the first bytes look like topology.conf (`SwitchName=`/`BlockName=` lines) or
// topology.yaml (`- topology:`).
bool LooksLikeSlurmTopology(std::string_view head);
bool LooksLikeSlurmTopologyYaml(std::string_view head);

}  // namespace toposcope::formats
