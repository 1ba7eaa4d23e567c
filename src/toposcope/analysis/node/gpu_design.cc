#include "toposcope/analysis/node/gpu_design.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>

#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

// The models the analysis knows, most specific names first (the first match wins). Sources:
//  - V100-SXM2/SXM3: 6 NVLink 2 links of 25 GB/s per direction, 16 lanes of PCIe 3.0 (NVIDIA DGX-1
//    page mirrored at iitr.ac.in/dgx; DOMAIN.md §1.1); DGX-2's V100-SXM3 has the same 6 links.
//  - P100-SXM2: 4 NVLink 1 links of 20 GB/s, PCIe x16 Gen3 (Dell "Ready Solutions for AI" manual;
//    Microway "Tesla P100 NVLink").
//  - V100 PCIe: PCIe Gen3 (DOMAIN.md §1.3, bam issue #54).
//  - A100 SXM: 12 NVLink 3 links of 25 GB/s (nccl-tests #149, #228); PCIe Gen4 (DOMAIN.md §1.3).
//  - A800: 8 NVLink 3 links (DOMAIN.md §1.2, astra-sim CalBusbw.h); H800: 8 NVLink 4 links (same).
//  - A100 PCIe: the same GA100 with 12 NVLink 3 links, used through NVLink bridges; PCIe Gen4.
//  - H100 SXM ("H100 80GB HBM3"), H200: 18 NVLink 4 links of 25 GB/s (DOMAIN.md §1.1); PCIe Gen5
//    (nvbandwidth #24). Other H100 forms (PCIe, NVL) use bridges: their links are left unknown.
//  - B200/GB200: 18 NVLink 5 links of 50 GB/s (DOMAIN.md §1.1); PCIe generation left unknown.
//  - RTX A6000: PCIe Gen4 (nvbandwidth #50); RTX PRO 6000: Gen5 (rtx6kpro pcie-bandwidth.md);
//    RTX 5090: Gen5 (club-3090 issue #1130, "2x5090 PCIe 5").
//  - GH200: an H100-class GPU with 18 NVLink 4 links, joined to its CPU by NVLink-C2C, not PCIe
//    (DOMAIN.md §1.4): no PCIe ceiling.
constexpr std::array<GpuDesign, 20> kDesigns = {{
    {"V100-SXM", 3, 16, 6, 25.0},
    {"P100-SXM", 3, 16, 4, 20.0},
    {"V100-PCIE", 3, 16, 0, 0.0},
    {"V100S-PCIE", 3, 16, 0, 0.0},
    {"A800", 4, 16, 8, 25.0},
    {"A100-SXM", 4, 16, 12, 25.0},
    {"A100 SXM", 4, 16, 12, 25.0},
    {"A100-PCIE", 4, 16, 12, 25.0},
    {"A100 80GB PCIe", 4, 16, 12, 25.0},
    {"H800", 5, 16, 8, 25.0},
    {"H100 80GB HBM3", 5, 16, 18, 25.0},
    {"H100-SXM", 5, 16, 18, 25.0},
    {"H100 SXM", 5, 16, 18, 25.0},
    {"GH200", 0, 16, 18, 25.0},
    {"H200", 5, 16, 18, 25.0},
    {"H100", 5, 16, 0, 0.0},
    {"B200", 0, 16, 18, 50.0},
    {"RTX A6000", 4, 16, 0, 0.0},
    {"RTX PRO 6000", 5, 16, 0, 0.0},
    {"RTX 5090", 5, 16, 0, 0.0},
}};

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

std::optional<GpuDesign> FindGpuDesign(std::string_view model) {
  if (model.empty()) return std::nullopt;
  const std::string m = Lower(model);
  for (const GpuDesign& d : kDesigns) {
    if (m.find(Lower(d.match)) != std::string::npos) return d;
  }
  return std::nullopt;
}

double PcieTheoreticalGbps(int pcie_gen, int width) {
  constexpr double kGtPerS[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  if (pcie_gen < 1 || pcie_gen > 6 || width <= 0 || width > 32) return 0.0;
  const double encoding = pcie_gen <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
  return kGtPerS[pcie_gen - 1] * width * encoding / 8.0;
}

int PcieGenOfSpeed(std::string_view link_speed) {
  const std::string_view t = Trim(link_speed);
  size_t end = 0;
  while (end < t.size() && ((t[end] >= '0' && t[end] <= '9') || t[end] == '.')) ++end;
  const auto v = ParseDouble(t.substr(0, end));
  if (!v) return 0;
  constexpr double kGtPerS[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int g = 0; g < 6; ++g) {
    if (std::fabs(*v - kGtPerS[g]) < 0.05) return g + 1;
  }
  return 0;
}

double GpuPcieCeilingGbps(const model::GpuInfo& g) {
  const int xml_gen = PcieGenOfSpeed(g.pcie_link_speed);
  if (xml_gen > 0) {
    const double gbps = PcieTheoreticalGbps(xml_gen, g.pcie_link_width > 0 ? g.pcie_link_width : 16);
    if (gbps > 0) return gbps;
  }
  const auto d = FindGpuDesign(g.model);
  if (d && d->pcie_gen > 0) return PcieTheoreticalGbps(d->pcie_gen, d->pcie_width);
  return NAN;
}

double PairPcieCeilingGbps(const model::HostEvidence& h, int a, int b) {
  auto ia = h.gpus.find(a);
  auto ib = h.gpus.find(b);
  if (ia == h.gpus.end() || ib == h.gpus.end()) return NAN;
  const double ca = GpuPcieCeilingGbps(ia->second);
  const double cb = GpuPcieCeilingGbps(ib->second);
  if (std::isnan(ca) || std::isnan(cb)) return NAN;
  return std::min(ca, cb);
}

int DesignNvlinkLinks(const model::GpuInfo& g) {
  const auto d = FindGpuDesign(g.model);
  return d ? d->nvlink_links : 0;
}

}  // namespace toposcope::analysis
