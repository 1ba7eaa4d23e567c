// formats/fabric/topograph_model: NVIDIA topograph's simulation models (`tests/models/*.yaml`,
// `pkg/models/model.go`), read: a switch tree with compute nodes in blocks under leaf switches,
// NVLink/accelerator domains as block annotations. Both schema eras are read:
//  - current (2025+): `switches: {<name>: {switches: [...], labels: {...}, annotations: {...}}}`
//    and `blocks: [{switch: <leaf>, nodes: [<cluset ranges>], labels, annotations}]`, the NVLink
//    domain in `accelerator.topology.test/domain` and the rack in `.../sub-domain`;
//  - original (2024): `switches: [{name, metadata, switches, capacity_blocks}]` and
//    `capacity_blocks: [{name, type, nvlink, nodes}]`.
// The simulator builds real-fabric clusters from these; analysis checks leaves against them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/fabric/slurm_topology.h"

namespace toposcope::formats {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

struct TopographSwitch {
  std::string name;
  std::vector<std::string> switches;         // child switches
  std::vector<std::string> capacity_blocks;  // names of the blocks directly under it (original
                                             // schema: as listed; current schema: filled from
                                             // the blocks whose `switch:` is this one)
  KeyValues labels;                          // `labels:` (original schema: `metadata:`)
  KeyValues annotations;
  int64_t line = 0;
  friend bool operator==(const TopographSwitch&, const TopographSwitch&) = default;
};

struct TopographCapacityBlock {
  std::string name;                  // original schema: `name:`; current schema (blocks have no
                                     // name): the leaf switch's name for its first block,
                                     // "<switch>/<k>" for its k-th, "block[/<k>]" without switch
  std::string type;                  // original schema: `type:` (instance type); else ""
  std::vector<std::string> nodes;    // expanded (cluset ranges: "srv11[01-08]", "[1101-1102]")
  std::vector<std::string> node_exprs;  // as written
  std::string nvlink;                // NVLink/accelerator domain (`nvlink:` or the
                                     // `accelerator.topology.test/domain` annotation); "" if none
  std::string sub_domain;            // `accelerator.topology.test/sub-domain`; "" if none
  std::string switch_name;           // the leaf switch it hangs under ("" when none does)
  KeyValues labels;
  KeyValues annotations;
  int64_t line = 0;
  friend bool operator==(const TopographCapacityBlock&, const TopographCapacityBlock&) = default;
};

struct TopographModel {
  std::vector<TopographSwitch> switches;               // in file order; current schema: then
                                                       // the leaf switches named only by
                                                       // blocks (not counted as records)
  std::vector<TopographCapacityBlock> capacity_blocks; // in file order
  ReadCounts counts;                                   // one record per switch and per block

  // Parent of each child switch; "" for roots.
  [[nodiscard]] std::string ParentOf(std::string_view switch_name) const;
  // Switches no other switch lists as a child.
  [[nodiscard]] std::vector<std::string> RootSwitches() const;
  // Every node, in block order.
  [[nodiscard]] std::vector<std::string> AllNodes() const;
  // The switch path of a node from its leaf up to the root (topograph's NetLayers); {} if the
  // node is unknown or its block hangs under no switch.
  [[nodiscard]] std::vector<std::string> NetLayers(std::string_view node) const;
  // Equal switches and blocks; the counts are not compared.
  friend bool operator==(const TopographModel& a, const TopographModel& b) {
    return a.switches == b.switches && a.capacity_blocks == b.capacity_blocks;
  }
};

// Parses a model. Rejected (counted, with line and reason), like topograph's own checks: a switch
// listed as the child of two parents, a block/capacity block claimed by two switches, a node in
// two blocks (the later block is rejected), a switch cycle, items missing their name/switch,
// bad node ranges, unknown keys, values of the wrong YAML kind. Fails when the YAML is outside
// the mini_yaml subset or the root has neither `switches:` nor `blocks:`/`capacity_blocks:`.
// `max_names` caps the names all node ranges of the file expand to (the block that crosses it is
// rejected).
Result<TopographModel> ParseTopographModel(std::string_view text, std::string_view source, Diagnostics& diag,
                                           size_t max_names = kMaxHostlistNames);

// True when the first bytes look like a topograph model (`switches:` at column 0 and
// `blocks:`/`capacity_blocks:` or child `switches:` lists).
bool LooksLikeTopographModel(std::string_view head);

}  // namespace toposcope::formats
