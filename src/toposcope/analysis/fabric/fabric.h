// analysis/fabric/fabric: the switched fabric as discovered (ibnetdiscover dumps): switches, channel
// adapters and the hosts behind them, links with their rates, and the leaf / spine levels
// (issue 5 §3-§4). A leaf is a switch with a host's adapter on one of its ports; a spine is a switch
// whose ports reach only switches (or service adapters such as SHARP aggregation nodes). An adapter
// whose description names no host (the firmware default "MT4123 ConnectX6   Mellanox Technologies",
// a bare device "mlx5_0") is still a host's adapter: its host is named by the adapter's id (GUID).
// A link whose two ends print different widths or speeds is a finding (FabricLinkMismatch).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

struct FabricPort {
  int port = -1;
  std::string peer;       // the peer node's id ("S-..." / "H-...")
  int peer_port = -1;
  double rate_gbps = 0;
};

// Where a switch sits in the fabric.
enum class SwitchLevel {
  kLeaf,      // "leaf": host adapters attached
  kSpine,     // "spine": none attached, linked to other switches
  kIsolated,  // "isolated": neither
};
// The names above.
std::string_view SwitchLevelName(SwitchLevel l);

struct FabricSwitch {
  std::string id, desc;
  std::string port_guid;  // the switch's port GUID (port 0; hex without 0x), for OpenSM files
  SwitchLevel level = SwitchLevel::kIsolated;
  int hosts = 0;          // host adapters attached
  std::vector<FabricPort> ports;
};

struct FabricCa {
  std::string id, desc;
  std::string guid;       // node GUID (hex without 0x, as ibnetdiscover prints it)
  std::string host;       // from the description "<host> <device>", empty when it names none
  std::string device;     // "mlx5_5"
  std::string name;       // the host it is counted under: `host`, else a lone host word of the description,
                          // else the adapter id ("H-<guid>"); empty for service adapters (SHARP)
  std::string named_by;   // "description", "guid" or "service" (not a host's adapter)
  std::vector<FabricPort> ports;
};

struct FabricLink {
  std::string a;
  int a_port = -1;
  std::string b;
  int b_port = -1;
  double rate_gbps = 0;
};

// One end of a link as a dump printed it (the `[port]` line of that node).
struct FabricLinkEnd {
  std::string node;      // node id ("S-..." / "H-...")
  int port = -1;
  std::string width;     // "4x" as printed ("??" unknown)
  std::string speed;     // "HDR" as printed ("???" unknown)
  int dump = 0;          // which dump printed it: its index in the dataset's fabrics (input order)
  int64_t line = 0;      // 1-based line of its `[port]` line in that dump
};

// A link whose two ends print different widths or speeds (ends sorted by (node, port)).
struct FabricLinkMismatch {
  FabricLinkEnd a, b;
  bool width_differs = false;
  bool speed_differs = false;
};

struct FabricLeaf {
  std::string switch_id, desc;
  std::vector<std::string> hosts;  // sorted, distinct
};

struct FabricReport {
  bool present = false;
  std::vector<std::string> sources;
  std::vector<FabricSwitch> switches;  // sorted by id
  std::vector<FabricCa> cas;           // sorted by id
  std::vector<std::string> hosts;      // sorted, distinct (the CAs' `name`s)
  int hosts_named_by_guid = 0;         // hosts named by an adapter id: its description named none
  std::vector<FabricLink> links;       // each physical link once
  std::vector<FabricLinkMismatch> mismatches;  // links whose ends print different width or speed
  std::vector<FabricLeaf> leaves;      // sorted by switch id
  std::vector<std::string> spines;     // switch ids
};

// The fabric of the dataset's ibnetdiscover dumps (several dumps merged, each link once), with its
// leaves, spines, hosts (every non-service adapter counts, named by GUID when its description names
// no host) and the links whose two ends disagree on width or speed. Never fails: a dataset without a
// dump gives present = false.
FabricReport AnalyzeFabric(const model::Dataset& ds);

}  // namespace toposcope::analysis
