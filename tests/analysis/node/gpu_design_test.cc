// Tests of analysis/node/gpu_design: the GPU model table, PCIe link ceilings from the generations'
// per-lane rates and encodings, NCCL link-speed text.
#include "toposcope/analysis/node/gpu_design.h"

#include <gtest/gtest.h>

#include <cmath>

namespace toposcope::analysis {
namespace gpu_design_test {

TEST(GpuDesign, ModelsAsTheToolsPrintThem) {
  // p2pBandwidthLatencyTest (Dell manual, juwels), nvidia-smi, nvbandwidth spellings.
  auto v100 = FindGpuDesign("Tesla V100-SXM2-16GB");
  ASSERT_TRUE(v100.has_value());
  EXPECT_EQ(v100->pcie_gen, 3);
  EXPECT_EQ(v100->nvlink_links, 6);
  EXPECT_DOUBLE_EQ(v100->nvlink_link_gbps, 25.0);
  EXPECT_EQ(FindGpuDesign("Tesla V100-SXM3-32GB")->nvlink_links, 6);  // DGX-2
  EXPECT_EQ(FindGpuDesign("NVIDIA A100-SXM4-80GB")->nvlink_links, 12);
  EXPECT_EQ(FindGpuDesign("NVIDIA A100-SXM-80GB")->pcie_gen, 4);  // nccl-tests #100
  EXPECT_EQ(FindGpuDesign("NVIDIA A800-SXM4-80GB")->nvlink_links, 8);
  EXPECT_EQ(FindGpuDesign("NVIDIA H100 80GB HBM3")->nvlink_links, 18);
  EXPECT_EQ(FindGpuDesign("NVIDIA H100 80GB HBM3")->pcie_gen, 5);
  EXPECT_EQ(FindGpuDesign("NVIDIA H100 PCIe")->nvlink_links, 0);  // bridges: links not known
  EXPECT_EQ(FindGpuDesign("NVIDIA GH200 480GB")->pcie_gen, 0);    // C2C, not PCIe
  EXPECT_EQ(FindGpuDesign("NVIDIA RTX A6000")->pcie_gen, 4);
  EXPECT_EQ(FindGpuDesign("nvidia geforce rtx 5090")->pcie_gen, 5);
  EXPECT_FALSE(FindGpuDesign("NVIDIA GeForce GTX 1080").has_value());
  EXPECT_FALSE(FindGpuDesign("").has_value());
}

TEST(GpuDesign, PcieCeilingsFollowRateWidthAndEncoding) {
  EXPECT_NEAR(PcieTheoreticalGbps(3, 16), 15.75, 0.01);  // DOMAIN.md §1.3
  EXPECT_NEAR(PcieTheoreticalGbps(4, 16), 31.5, 0.03);
  EXPECT_NEAR(PcieTheoreticalGbps(5, 16), 63.0, 0.05);
  EXPECT_NEAR(PcieTheoreticalGbps(1, 16), 4.0, 1e-9);  // 2.5 GT/s, 8b/10b
  EXPECT_NEAR(PcieTheoreticalGbps(4, 8), 15.75, 0.01);
  EXPECT_EQ(PcieTheoreticalGbps(7, 16), 0.0);
  EXPECT_EQ(PcieTheoreticalGbps(4, 0), 0.0);
  EXPECT_EQ(PcieGenOfSpeed("16 GT/s"), 4);
  EXPECT_EQ(PcieGenOfSpeed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(PcieGenOfSpeed("2.5 GT/s"), 1);
  EXPECT_EQ(PcieGenOfSpeed("fast"), 0);
  EXPECT_EQ(PcieGenOfSpeed(""), 0);
}

TEST(GpuDesign, PairCeilingIsTheSlowerGpusLinkAndNeedsBoth) {
  model::HostEvidence h;
  h.gpus[0].model = "NVIDIA A100-SXM4-80GB";
  h.gpus[1].model = "Tesla V100-SXM2-32GB";
  h.gpus[2].model = "unknown card";
  h.gpus[3].pcie_link_speed = "8 GT/s";  // NCCL's XML wins over the model
  h.gpus[3].pcie_link_width = 16;
  h.gpus[3].model = "NVIDIA A100-SXM4-80GB";
  EXPECT_NEAR(PairPcieCeilingGbps(h, 0, 1), 15.75, 0.01);
  EXPECT_NEAR(PairPcieCeilingGbps(h, 0, 3), 15.75, 0.01);
  EXPECT_TRUE(std::isnan(PairPcieCeilingGbps(h, 0, 2)));
  EXPECT_TRUE(std::isnan(PairPcieCeilingGbps(h, 0, 9)));
  EXPECT_EQ(DesignNvlinkLinks(h.gpus[1]), 6);
  EXPECT_EQ(DesignNvlinkLinks(h.gpus[2]), 0);
}

}  // namespace gpu_design_test
}  // namespace toposcope::analysis
