// analysis/fabric/nic_ports: the RDMA NIC ports of every host as the host tools print them
// (ibstat, ibv_devinfo [-v], show_gids, rdma res show qp), merged per (host, device, port): state,
// physical state, rate, link layer, LID, MTU, GUIDs, firmware and GID table (RoCE v1/v2, IPv4,
// netdev), with the QPs each port holds. Without a capture these are the facts a fabric view
// starts from. Findings: a port that is not active, and a port whose rate is below its siblings'
// (the same device model on the same host: a cable or link trained to fewer lanes or a lower
// speed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

struct NicGid {
  int index = -1;
  std::string gid;
  std::string type;    // "RoCE v2", "RoCE v1", "v2"...; empty for IB ports
  std::string ipv4;    // show_gids; empty otherwise
  std::string netdev;  // show_gids; empty otherwise
};

struct NicPort {
  std::string host;
  std::string device;       // "mlx5_0"
  int port = -1;
  std::string model;        // ibstat CA type ("MT4129") or ibv_devinfo vendor_part_id; may be empty
  std::string firmware;
  std::string node_guid;
  std::string port_guid;
  std::string state;        // as printed ("Active", "PORT_ACTIVE")
  std::string physical_state;  // "LinkUp", "LINK_UP", "Polling"...
  bool active = false;      // state Active / PORT_ACTIVE
  double rate_gbps = 0;     // 0 when no tool printed one
  std::string link_layer;   // "InfiniBand" / "Ethernet"
  int lid = -1;
  int active_mtu = -1;      // bytes
  std::vector<NicGid> gids;
  int qps = 0;              // QPs of `rdma res show qp` on this port
  std::vector<std::string> sources;  // "ibstat", "ibv_devinfo", "show_gids", "rdma"
};

struct NicFinding {
  std::string kind;  // "port_down", "rate_below_siblings"
  std::string host, device;
  int port = -1;
  std::string evidence;
};

struct NicPortReport {
  bool present = false;  // some host tool output was read
  std::vector<NicPort> ports;  // sorted by host, device, port
  std::vector<NicFinding> findings;
};

// Merges the host tool records of `ds`; never fails.
NicPortReport CollectNicPorts(const model::Dataset& ds);

}  // namespace toposcope::analysis
