// analysis/fabric/fabric: the switched fabric as discovered (ibnetdiscover dumps): switches, channel
// adapters and the hosts behind them, links with their rates, and the leaf / spine levels
// (issue 5 §3-§4). A leaf is a switch with a host's adapter on one of its ports; a spine is a switch
// whose ports reach only switches (or service adapters such as SHARP aggregation nodes).
#pragma once

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
  std::vector<FabricPort> ports;
};

struct FabricLink {
  std::string a;
  int a_port = -1;
  std::string b;
  int b_port = -1;
  double rate_gbps = 0;
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
  std::vector<std::string> hosts;      // sorted, distinct
  std::vector<FabricLink> links;       // each physical link once
  std::vector<FabricLeaf> leaves;      // sorted by switch id
  std::vector<std::string> spines;     // switch ids
};

// The fabric of the dataset's ibnetdiscover dumps (several dumps merged, each link once), with its
// leaves, spines and hosts. Never fails: a dataset without a dump gives present = false.
FabricReport AnalyzeFabric(const model::Dataset& ds);

}  // namespace toposcope::analysis
