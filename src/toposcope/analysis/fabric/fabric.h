// analysis/fabric/fabric: the switched fabric as discovered (ibnetdiscover dumps and iblinkinfo
// outputs, merged into one graph): switches, channel adapters and the hosts behind them, links with
// their width, speed, rate and state, and the leaf / spine levels (issue 5 §3-§4). A leaf is a
// switch with a host's adapter on one of its ports; a spine is a switch whose ports reach only
// switches (or service adapters such as SHARP aggregation nodes). An adapter whose description
// names no host (the firmware default "MT4123 ConnectX6   Mellanox Technologies", a bare device
// "mlx5_0") is still a host's adapter: its host is named by the adapter's id (GUID).
// A link whose two ends print different widths or speeds is a finding (FabricLinkMismatch); so are
// down ports where a link is expected and links slower than their tier's usual (fabric_findings).
// iblinkinfo names switches by GUID (`S-<guid>`, as ibnetdiscover) and every port by LID: an
// adapter is the ibnetdiscover adapter with the same port GUID or LID, else `H-<its first port's
// GUID>` (iblinkinfo prints no adapter node GUID); a peer is found by its LID, and a peer LID no
// printed node has is an adapter `H-lid-<LID>` when its description names a host (`<host>
// <device>`, as `iblinkinfo --switches-only` leaves them), else counted in `unresolved_peers`.
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
  int nports = 0;         // its port count (ibnetdiscover's header; iblinkinfo: the highest port printed)
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
  std::string width;  // "4x" (lowercase); "" or "??" when unknown
  std::string speed;  // "QDR" ... "XDR"; "" or "???" when unknown
  std::string state;  // iblinkinfo's port state ("Active", "Init", "Armed"; a non-Active end wins);
                      // "" when only ibnetdiscover printed it (it prints no state)
  std::string tier;   // the kinds of its two ends, sorted and joined: "host-leaf", "leaf-spine", ...
                      // (host, service, leaf, spine, isolated)
};

// A port iblinkinfo prints with no link (`Down/ Polling`, `Down/ Disabled`, ...).
struct FabricDownPort {
  std::string node;    // node id
  int port = -1;
  std::string state, phys_state;
  std::string source;  // the iblinkinfo file
  int64_t line = 0;
};

// One end of a link as a dump printed it (the `[port]` line of that node).
struct FabricLinkEnd {
  std::string node;      // node id ("S-..." / "H-...")
  int port = -1;
  std::string width;     // "4x" as printed, lowercase ("??" unknown)
  std::string speed;     // "HDR" as printed ("???" unknown)
  int dump = 0;          // which dump printed it: its index among the dataset's inputs of its tool
  int64_t line = 0;      // 1-based line of its `[port]` line in that dump
  std::string tool;      // "ibnetdiscover" or "iblinkinfo"
  std::string source;    // the file; empty when the dataset does not name it
  std::string state;     // iblinkinfo: the port state ("Active", ...); "" for ibnetdiscover
};

// A link whose two ends print different widths or speeds (ends sorted by (node, port)).
struct FabricLinkMismatch {
  FabricLinkEnd a, b;
  bool width_differs = false;
  bool speed_differs = false;
};

// What a fabric finding is. Named "port_down_expected_link", "link_below_usual",
// "sources_disagree".
enum class FabricFindingKind {
  kPortDownExpectedLink,  // a down port where the peer side or the switch's tier shows a link
  kLinkBelowUsual,        // an active link slower (width or speed) than its tier's usual
  kSourcesDisagree,       // ibnetdiscover and iblinkinfo (or two files) name different peers for a port
};
// Its name (one of those above).
std::string_view FabricFindingKindName(FabricFindingKind k);

struct FabricFinding {
  FabricFindingKind kind = FabricFindingKind::kPortDownExpectedLink;
  std::string node;             // node id
  int port = -1;
  std::string peer;             // the peer the link goes (or went) to; "" when unknown
  int peer_port = -1;
  std::string width, speed;     // link_below_usual: the link's; port_down: ""
  std::string usual_width, usual_speed;  // link_below_usual: the tier's most common
  std::string tier;
  std::string source;           // the file of the port's line
  int64_t line = 0;
  std::string evidence;
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
  std::vector<FabricDownPort> down_ports;      // ports iblinkinfo prints without a link
  std::vector<FabricFinding> findings;         // fabric_findings: down ports, slow links, conflicts
  int unresolved_peers = 0;                    // iblinkinfo peers whose LID no node has (not linked)
  std::string source_tools;                    // "ibnetdiscover", "iblinkinfo" or both joined by "+"
  std::vector<FabricLeaf> leaves;      // sorted by switch id
  std::vector<std::string> spines;     // switch ids
};

// The fabric of the dataset's ibnetdiscover dumps and iblinkinfo outputs (all merged, each node and
// link once), with its leaves, spines, hosts (every non-service adapter counts, named by GUID when
// its description names no host), the links whose two ends disagree on width or speed, the down
// ports and the findings of fabric_findings. Never fails: a dataset with neither gives present =
// false.
FabricReport AnalyzeFabric(const model::Dataset& ds);

}  // namespace toposcope::analysis
