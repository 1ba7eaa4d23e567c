#include "toposcope/sim/node_types.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>

#include "toposcope/base/text.h"

namespace toposcope::sim {
namespace {

// A node type with its name and GPU identity: model, SM version (compute capability x 10), PCI
// device and subsystem ids, and the GPUs' PCIe generation (x16 links).
NodeType NamedType(std::string name, std::string gpu_model, int sm, uint32_t pci_device, uint32_t pci_subsystem,
                   int pcie_gen) {
  return {.name = std::move(name),
          .gpu_model = std::move(gpu_model),
          .sm = sm,
          .gpu_pci_device = pci_device,
          .gpu_pci_subsystem = pci_subsystem,
          .gpu_pcie_gen = pcie_gen,
          .gpu_pcie_width = 16};
}

// The node type's CPUs: two sockets of `cores_per_socket` cores of this vendor, family and model.
void SetCpus(NodeType& t, int cores_per_socket, std::string vendor, int family, int model) {
  t.sockets = 2;
  t.cores_per_socket = cores_per_socket;
  t.cpu_vendor = std::move(vendor);
  t.cpu_family = family;
  t.cpu_model = model;
}

// h100-nvswitch: HGX H100 8-GPU. Every GPU and its 400G NIC share one PCIe Gen5 switch (GPU-own NIC
// PIX, same socket NODE, other socket SYS, as in the real H100 topo); GPUs 0-3 on socket 0, 4-7 on
// socket 1; 4 NVSwitches (gen 3) with 5/5/4/4 NVLink4 lanes per GPU (NV18). Effective per-lane copy
// bandwidth 20.8 GB/s (~0.83 x 25 GB/s line rate, nccl#1264) -> ~374 GB/s per pair.
NodeType MakeH100() {
  NodeType t = NamedType("h100-nvswitch", "NVIDIA H100 80GB HBM3", 90, 0x2330, 0x16c1, 5);
  SetCpus(t, 48, "GenuineIntel", 6, 143);
  for (int i = 0; i < 8; ++i) {
    t.pcie_switches.push_back({.socket = i < 4 ? 0 : 1, .parent = -1, .pcie_gen = 5});
    t.gpus.push_back({.pcie_switch = i});
    t.nics.push_back({.device = "mlx5_" + std::to_string(i),
                      .speed_gbps = 400,
                      .pcie_switch = i,
                      .pcie_gen = 5,
                      .pcie_width = 16});
  }
  t.nvswitch_lanes = {5, 5, 4, 4};
  t.nvlink_lane_gbps = 20.8;
  t.local_copy_gbps = 1650.0;
  return t;
}

// a100-nvswitch: DGX A100. 4 two-level PCIe Gen4 switches, each with 2 GPUs and 2 200G NICs on
// their own downstream sub-switches (GPU-NIC and GPU-GPU are PXB, as in the real DGX A100 topo);
// 2 switches per socket; 6 NVSwitches (gen 2) with 2 NVLink3 lanes per GPU each (NV12). Effective
// per-lane 23 GB/s -> ~276 GB/s per pair (the nvbandwidth README's 8-GPU write-CE example).
NodeType MakeA100() {
  NodeType t = NamedType("a100-nvswitch", "NVIDIA A100-SXM4-80GB", 80, 0x20b2, 0x1463, 4);
  SetCpus(t, 64, "AuthenticAMD", 23, 49);
  for (int top = 0; top < 4; ++top) {
    t.pcie_switches.push_back({.socket = top < 2 ? 0 : 1, .parent = -1, .pcie_gen = 4});
  }
  for (int top = 0; top < 4; ++top) {
    for (int j = 0; j < 4; ++j) {
      t.pcie_switches.push_back({.socket = top < 2 ? 0 : 1, .parent = top, .pcie_gen = 4});
    }
  }
  for (int top = 0; top < 4; ++top) {
    const int sub = 4 + 4 * top;
    t.gpus.push_back({.pcie_switch = sub + 0});
    t.gpus.push_back({.pcie_switch = sub + 1});
  }
  for (int top = 0; top < 4; ++top) {
    const int sub = 4 + 4 * top;
    for (int j = 0; j < 2; ++j) {
      t.nics.push_back({.device = "mlx5_" + std::to_string(2 * top + j),
                        .speed_gbps = 200,
                        .pcie_switch = sub + 2 + j,
                        .pcie_gen = 4,
                        .pcie_width = 16});
    }
  }
  t.nvswitch_lanes = {2, 2, 2, 2, 2, 2};
  t.nvlink_lane_gbps = 23.0;
  t.local_copy_gbps = 1350.0;
  return t;
}

// The PCIe tree shared by the two PCIe-card node types: 4 Gen4 switches with 2 GPUs each (GPU 2k
// and 2k+1 on switch k), switches 0-1 on socket 0 and 2-3 on socket 1, one 200G NIC on switch 0 and
// one on switch 2; two 32-core AMD family-25 sockets (EPYC, `cpu_model` tells which).
void AddPcieCardTree(NodeType& t, int cpu_model) {
  SetCpus(t, 32, "AuthenticAMD", 25, cpu_model);
  for (int k = 0; k < 4; ++k) {
    t.pcie_switches.push_back({.socket = k < 2 ? 0 : 1, .parent = -1, .pcie_gen = 4});
  }
  for (int g = 0; g < 8; ++g) t.gpus.push_back({.pcie_switch = g / 2});
  t.nics.push_back(
      {.device = "mlx5_0", .speed_gbps = 200, .pcie_switch = 0, .pcie_gen = 4, .pcie_width = 16});
  t.nics.push_back(
      {.device = "mlx5_1", .speed_gbps = 200, .pcie_switch = 2, .pcie_gen = 4, .pcie_width = 16});
}

// pcie-bridge: A100 PCIe cards joined in pairs (0,1) (2,3) (4,5) (6,7) by NVLink bridges (3 bridges,
// 12 NVLink3 lanes per pair, NV12); bridge partners share a PCIe switch. Effective per-lane 20 GB/s
// -> ~240 GB/s per bridged pair; every other pair crosses PCIe.
NodeType MakePcieBridge() {
  NodeType t = NamedType("pcie-bridge", "NVIDIA A100 80GB PCIe", 80, 0x20b5, 0x1533, 4);
  AddPcieCardTree(t, 1);  // EPYC Milan
  for (int k = 0; k < 4; ++k) t.bridges.push_back({.gpu_a = 2 * k, .gpu_b = 2 * k + 1, .lanes = 12});
  t.nvlink_lane_gbps = 20.0;
  t.local_copy_gbps = 1300.0;
  return t;
}

// pcie-only: L40S cards, no NVLink; every pair crosses PCIe Gen4 x16.
NodeType MakePcieOnly() {
  NodeType t = NamedType("pcie-only", "NVIDIA L40S", 89, 0x26b9, 0x1851, 4);
  AddPcieCardTree(t, 17);  // EPYC Genoa
  t.local_copy_gbps = 380.0;
  return t;
}

// The P2P-only variant of `t`, named `name`: its hosts write their P2P report alone; it is placed
// only where the options name it.
NodeType P2pOnly(NodeType t, std::string name) {
  t.name = std::move(name);
  t.p2p_only = true;
  t.in_default_mix = false;
  return t;
}

// Chain of switches from `sw` up to the root complex, `sw` first.
std::vector<int> SwitchChain(const NodeType& type, int sw) {
  std::vector<int> chain;
  while (sw >= 0 && sw < static_cast<int>(type.pcie_switches.size()) &&
         chain.size() <= type.pcie_switches.size()) {
    chain.push_back(sw);
    sw = type.pcie_switches[static_cast<size_t>(sw)].parent;
  }
  return chain;
}

// The transfer rate of a PCIe generation (1..6) per lane, GT/s; 0 for any other.
double PcieGtPerS(int pcie_gen) {
  constexpr double kGtPerS[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  if (pcie_gen < 1 || pcie_gen > 6) return 0.0;
  return kGtPerS[pcie_gen - 1];
}

std::string Hex2(int bus) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%02x", bus & 0xff);
  return buf;
}

}  // namespace

int NodeType::DesignNvswitchLanes() const {
  return std::accumulate(nvswitch_lanes.begin(), nvswitch_lanes.end(), 0);
}

int NodeType::SocketOfSwitch(int pcie_switch) const {
  if (pcie_switch < 0 || pcie_switch >= static_cast<int>(pcie_switches.size())) return 0;
  return pcie_switches[static_cast<size_t>(pcie_switch)].socket;
}

int NodeType::BridgeIndex(int a, int b) const {
  for (size_t i = 0; i < bridges.size(); ++i) {
    if ((bridges[i].gpu_a == a && bridges[i].gpu_b == b) ||
        (bridges[i].gpu_a == b && bridges[i].gpu_b == a)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

bool NodeType::HasPcieGpuPairs() const {
  if (!nvswitch_lanes.empty()) return false;
  const int n = GpuCount();
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (BridgeIndex(a, b) < 0) return true;
    }
  }
  return false;
}

const std::vector<NodeType>& NodeTypes() {
  static const std::vector<NodeType> types = {MakeH100(),
                                              MakeA100(),
                                              MakePcieBridge(),
                                              MakePcieOnly(),
                                              P2pOnly(MakeA100(), "a100-nvswitch-p2p"),
                                              P2pOnly(MakePcieBridge(), "pcie-bridge-p2p")};
  return types;
}

const NodeType* FindNodeType(std::string_view name) {
  for (const auto& t : NodeTypes()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

LinkType PcieRelation(const NodeType& type, int switch_a, int switch_b) {
  if (switch_a == switch_b) return LinkType::kPix;
  const std::vector<int> chain_a = SwitchChain(type, switch_a);
  const std::vector<int> chain_b = SwitchChain(type, switch_b);
  for (int s : chain_a) {
    if (std::find(chain_b.begin(), chain_b.end(), s) != chain_b.end()) return LinkType::kPxb;
  }
  return type.SocketOfSwitch(switch_a) == type.SocketOfSwitch(switch_b) ? LinkType::kNode : LinkType::kSys;
}

int GpuClosestToNic(const NodeType& type, int nic) {
  int best = 0;
  int best_rank = 1 << 20;
  for (int g = 0; g < type.GpuCount(); ++g) {
    const int r = static_cast<int>(PcieRelation(type, type.gpus[static_cast<size_t>(g)].pcie_switch,
                                                type.nics[static_cast<size_t>(nic)].pcie_switch));
    if (r < best_rank) {
      best_rank = r;
      best = g;
    }
  }
  return best;
}

int ChannelNic(int c, int channels, int nics) {
  if (nics <= 0) return 0;
  if (channels <= nics) return c * nics / channels;
  return c % nics;
}

double PcieLinkGbps(int pcie_gen, int width) {
  const double gt_per_s = PcieGtPerS(pcie_gen);
  if (gt_per_s == 0) return 0.0;
  const double encoding = pcie_gen <= 2 ? 0.8 : 128.0 / 130.0;  // 8b/10b, then 128b/130b
  return gt_per_s * width * encoding / 8.0 * 0.85;
}

double PciePathFactor(LinkType type) {
  constexpr std::pair<LinkType, double> kFactors[] = {{LinkType::kPix, 0.92},
                                                      {LinkType::kPxb, 0.88},
                                                      {LinkType::kPhb, 0.82},
                                                      {LinkType::kNode, 0.78},
                                                      {LinkType::kSys, 0.55}};
  for (const auto& [t, factor] : kFactors) {
    if (t == type) return factor;
  }
  return 0.0;  // not a PCIe path
}

std::string PcieSpeedText(int pcie_gen) {
  const double gt_per_s = PcieGtPerS(pcie_gen);
  if (gt_per_s == 0) return "";
  return StringPrintf("%.1f GT/s PCIe", gt_per_s);
}

BusLayout AssignBusNumbers(const NodeType& type) {
  // Per socket a region of bus numbers (socket s starts at 0x0c + 0x80 s); each top-level switch
  // takes a block of 0x14 buses: its own upstream port, then per downstream sub-switch its port and
  // devices (NICs before GPUs, as NCCL dumps list them), then the devices directly below it.
  // NVSwitches sit above all sockets at 0xe4 + k.
  BusLayout out;
  out.pcie_switches.assign(type.pcie_switches.size(), 0);
  out.gpus.assign(type.gpus.size(), 0);
  out.nics.assign(type.nics.size(), 0);
  auto place_devices = [&](int sw, int& cursor) {
    for (size_t k = 0; k < type.nics.size(); ++k) {
      if (type.nics[k].pcie_switch == sw) out.nics[k] = cursor++;
    }
    for (size_t g = 0; g < type.gpus.size(); ++g) {
      if (type.gpus[g].pcie_switch == sw) out.gpus[g] = cursor++;
    }
  };
  for (int socket = 0; socket < type.sockets; ++socket) {
    int block_start = 0x0c + 0x80 * socket;
    for (size_t top = 0; top < type.pcie_switches.size(); ++top) {
      const auto& spec = type.pcie_switches[top];
      if (spec.parent != -1 || spec.socket != socket) continue;
      int cursor = block_start;
      out.pcie_switches[top] = cursor++;
      for (size_t sub = 0; sub < type.pcie_switches.size(); ++sub) {
        if (type.pcie_switches[sub].parent != static_cast<int>(top)) continue;
        out.pcie_switches[sub] = cursor++;
        place_devices(static_cast<int>(sub), cursor);
      }
      place_devices(static_cast<int>(top), cursor);
      block_start += 0x14;
    }
  }
  for (size_t s = 0; s < type.nvswitch_lanes.size(); ++s)
    out.nvswitches.push_back(0xe4 + static_cast<int>(s));
  return out;
}

std::string BusIdNccl(int bus) { return "0000:" + Hex2(bus) + ":00.0"; }
std::string BusIdNvbandwidth(int bus) { return "00000000:" + Hex2(bus) + ":00"; }
std::string BusIdShort(int bus) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%x", bus & 0xff);
  return buf;
}

std::string CpuListOfSocket(const NodeType& type, int socket) {
  const int c = type.cores_per_socket;
  const int first = socket * c;
  const int sibling = (type.sockets + socket) * c;  // second hardware thread of the same cores
  return std::to_string(first) + "-" + std::to_string(first + c - 1) + "," + std::to_string(sibling) + "-" +
         std::to_string(sibling + c - 1);
}

std::string CpuMaskOfSocket(const NodeType& type, int socket) {
  const int c = type.cores_per_socket;
  const int total = 2 * type.sockets * c;
  const int groups = (total + 31) / 32;
  std::vector<uint32_t> words(static_cast<size_t>(groups), 0);
  auto set = [&](int cpu) { words[static_cast<size_t>(cpu / 32)] |= uint32_t{1} << (cpu % 32); };
  for (int i = 0; i < c; ++i) {
    set(socket * c + i);
    set((type.sockets + socket) * c + i);
  }
  std::string out;
  for (int g = groups - 1; g >= 0; --g) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%08x", words[static_cast<size_t>(g)]);
    if (!out.empty()) out += ',';
    out += buf;
  }
  return out;
}

}  // namespace toposcope::sim
