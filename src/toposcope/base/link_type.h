// base/link_type: the kinds of path between two devices, ordered best to worst as NCCL orders its
// path types, plus the NVLink lane count, with the names nvidia-smi and NCCL print.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace toposcope {

enum class LinkType : int {
  kNvlink = 0,   // direct NVLink (GPU to GPU, or NVLink bridge)
  kNvswitch,     // NVLink through NVSwitch chips
  kC2c,          // NVLink-C2C (Grace)
  kPix,          // at most one PCIe bridge
  kPxb,          // several PCIe bridges, no host bridge
  kPhb,          // through a PCIe host bridge (the CPU)
  kNode,         // between host bridges inside one NUMA node
  kSys,          // across the SMP interconnect between NUMA nodes
  kNet,          // through the network
  kUnknown,
};

// "NVLINK", "NVSWITCH", "C2C", "PIX", "PXB", "PHB", "NODE", "SYS", "NET", "UNKNOWN".
std::string_view LinkTypeName(LinkType t);
// Parses the names above (case-insensitive); nullopt for anything else.
std::optional<LinkType> ParseLinkTypeName(std::string_view s);
// True for the NVLink family (NVLINK, NVSWITCH, C2C).
bool IsNvlinkFamily(LinkType t);
// True for the PCIe types (PIX .. SYS).
bool IsPcie(LinkType t);

// A link type with its NVLink lane count (0 when not NVLink or unknown).
struct LinkClass {
  LinkType type = LinkType::kUnknown;
  int lanes = 0;
  friend bool operator==(const LinkClass&, const LinkClass&) = default;
};

// Parses an nvidia-smi topo cell: "NV12" -> {kNvlink, 12}, "PIX", "PXB", "PHB", "NODE", "SYS".
// "X" and anything else -> nullopt.
std::optional<LinkClass> ParseNvsmiCell(std::string_view cell);
// The nvidia-smi spelling: {kNvlink,12} and {kNvswitch,12} -> "NV12"; PCIe types by name.
std::string NvsmiCell(const LinkClass& c);

}  // namespace toposcope
