// sim/node_types: the built-in 8-GPU node types the simulator can place in a cluster (a registry
// by name), with their PCIe trees, NVLink wiring, NICs and CPUs, and the physics that turns a
// node's state into the true GPU-pair path type and copy bandwidth.
//
// Model parameters (documented here, used everywhere in sim/):
//  - PCIe link bandwidth, one direction: GT/s x width x encoding / 8 x 0.85 protocol efficiency
//    (Gen1 2.5 and Gen2 5 GT/s with 8b/10b, Gen3 8, Gen4 16, Gen5 32 GT/s with 128b/130b).
//  - A PCIe GPU pair copies at min(link_a, link_b) x a path factor: PIX 0.92, PXB 0.88, PHB 0.82,
//    NODE 0.78, SYS 0.55. With Gen4 x16 this gives ~24.6 GB/s under one switch, ~20.9 through the
//    CPU and ~14.7 across sockets, loosely matching DOMAIN.md §1.3 (24-26 / 20-22 / 14-15 GB/s).
//  - NVLink: a direct link (or bridge) copies at active lanes x the node type's effective per-lane
//    bandwidth; through NVSwitch a pair copies at sum over switches of min(lanes of a to that switch,
//    lanes of b to that switch) x per-lane (with one healthy GPU this is the other's active lanes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/link_type.h"

namespace toposcope::sim {

// A PCIe switch (or a sub-switch of a multi-level switch) below one CPU socket's root complex.
struct PcieSwitchSpec {
  int socket = 0;
  int parent = -1;  // index of the upstream switch; -1 when attached to the root complex
  int pcie_gen = 4;
};

struct GpuSpec {
  int pcie_switch = 0;  // the switch the GPU hangs from
};

struct NicSpec {
  std::string device;  // "mlx5_0"
  int speed_gbps = 400;
  int pcie_switch = 0;
  int pcie_gen = 5;
  int pcie_width = 16;
};

// A direct NVLink connection (NVLink bridge) between two GPUs.
struct NvlinkBridgeSpec {
  int gpu_a = 0;
  int gpu_b = 0;
  int lanes = 0;
};

struct NodeType {
  std::string name;             // registry key, e.g. "h100-nvswitch"
  std::string gpu_model;        // as nvidia-smi / nvbandwidth print it
  int sm = 0;                   // compute capability x 10 (NCCL's `sm`)
  uint32_t gpu_pci_device = 0;  // PCI device id of the GPU (vendor 0x10de)
  uint32_t gpu_pci_subsystem = 0;
  int gpu_pcie_gen = 4;
  int gpu_pcie_width = 16;

  // CPUs: `sockets` NUMA nodes, `cores_per_socket` cores with 2 hardware threads each.
  int sockets = 2;
  int cores_per_socket = 32;
  std::string cpu_vendor;  // "GenuineIntel" / "AuthenticAMD"
  int cpu_family = 0;
  int cpu_model = 0;

  std::vector<PcieSwitchSpec> pcie_switches;
  std::vector<GpuSpec> gpus;  // index = CUDA device index
  std::vector<NicSpec> nics;  // index = K of mlx5_K

  // NVSwitch wiring: design lanes from every GPU to each NVSwitch (empty: no NVSwitch).
  std::vector<int> nvswitch_lanes;
  std::vector<NvlinkBridgeSpec> bridges;
  double nvlink_lane_gbps = 0;  // effective unidirectional copy bandwidth per active lane

  double local_copy_gbps = 0;  // device-local copy bandwidth (p2pBandwidthLatencyTest diagonal)

  // What its hosts write: false, nvidia-smi topo, NCCL's topology XML and the P2P report; true, the
  // P2P report alone (a P2P-only dataset, whose links the analysis must find from the bandwidths).
  bool p2p_only = false;
  // Placed in clusters whose options name no node types (the P2P-only variants are not).
  bool in_default_mix = true;

  // None of these fails (a GPU index must be one of the type's; an unknown switch is on socket 0).
  [[nodiscard]] int GpuCount() const { return static_cast<int>(gpus.size()); }
  [[nodiscard]] int DesignNvswitchLanes() const;  // sum of nvswitch_lanes
  [[nodiscard]] int SocketOfSwitch(int pcie_switch) const;
  [[nodiscard]] int GpuSocket(int gpu) const { return SocketOfSwitch(gpus[gpu].pcie_switch); }
  // Index of the bridge joining GPUs a and b, or -1.
  [[nodiscard]] int BridgeIndex(int a, int b) const;
  // True when some GPU pair crosses PCIe (no NVLink between them).
  [[nodiscard]] bool HasPcieGpuPairs() const;
  [[nodiscard]] bool HasNvlink() const { return !nvswitch_lanes.empty() || !bridges.empty(); }
};

// The registered node types, in a fixed order: h100-nvswitch, a100-nvswitch, pcie-bridge,
// pcie-only, then the P2P-only variants (not in the default mix) a100-nvswitch-p2p and
// pcie-bridge-p2p; built once, never fails.
const std::vector<NodeType>& NodeTypes();
// The registered node type with this name, or nullptr when there is none.
const NodeType* FindNodeType(std::string_view name);

// PCIe relation of two devices hanging from switches `switch_a` and `switch_b`, as nvidia-smi
// names it: returns PIX for the same switch, PXB for a common upstream switch, NODE for the same
// socket, else SYS. Never fails.
LinkType PcieRelation(const NodeType& type, int switch_a, int switch_b);

// Returns the GPU whose PCIe path to NIC `nic` is best (PIX < PXB < PHB < NODE < SYS), lowest
// index on ties. Never fails (`nic` must be one of the type's NICs).
int GpuClosestToNic(const NodeType& type, int nic);

// Returns the NIC an NCCL channel c of `channels` uses on a host with `nics` NICs (0 when it has
// none). Never fails.
int ChannelNic(int c, int channels, int nics);

// One-direction usable bandwidth of a PCIe link (see the model parameters above); 0 for an unknown
// generation (1..6 are known). Never fails.
double PcieLinkGbps(int pcie_gen, int width);
// The copy efficiency of a PCIe path type between two GPUs (PIX 0.92 ... SYS 0.55); 0 for a type
// that is not a PCIe path. Never fails.
double PciePathFactor(LinkType type);
// NCCL's link_speed spelling: "16.0 GT/s PCIe"; "" for an unknown generation. Never fails.
std::string PcieSpeedText(int pcie_gen);

// Bus numbers (the BB of 0000:BB:00.0) of a node type's PCIe devices and NVSwitches. The same for
// every host of the type, as for identical servers; unique within a host.
struct BusLayout {
  std::vector<int> pcie_switches;
  std::vector<int> gpus;
  std::vector<int> nics;
  std::vector<int> nvswitches;
};
// Returns every device's bus: per socket s a region from 0x0c + 0x80 s, each top-level switch a
// block of 0x14 buses (its port, then each sub-switch's port and devices, NICs before GPUs, then
// its own devices); NVSwitch k at 0xe4 + k. Never fails.
BusLayout AssignBusNumbers(const NodeType& type);
// "0000:bb:00.0" (NCCL, nvidia-smi), "00000000:bb:00" (nvbandwidth), "bb" (p2pBandwidthLatencyTest),
// lower-case hex of the bus's low byte. Never fail.
std::string BusIdNccl(int bus);
std::string BusIdNvbandwidth(int bus);
std::string BusIdShort(int bus);

// The CPUs of one socket as nvidia-smi prints them ("0-47,96-143"), and as NCCL's hex affinity
// mask ("ffffffff,0000ffff,...", 32-bit groups, most significant first). Never fail.
std::string CpuListOfSocket(const NodeType& type, int socket);
std::string CpuMaskOfSocket(const NodeType& type, int socket);

}  // namespace toposcope::sim
