// Tests of analysis/fabric/nic_ports: the host tools' NIC facts merged per port, ports down, and a
// port trained below its siblings; and the real fixtures read through the loader.
#include "toposcope/analysis/fabric/nic_ports.h"

#include <gtest/gtest.h>

#include <string>

namespace toposcope::analysis {
namespace nic_ports_test {

formats::IbDevice Device(const std::string& name, double rate_gbps, const std::string& state = "Active") {
  formats::IbDevice d;
  d.name = name;
  d.ca_type = "MT4129";
  d.firmware = "28.39.1002";
  formats::IbPort p;
  p.port = 1;
  p.state = state;
  p.physical_state = state == "Active" ? "LinkUp" : "Polling";
  p.rate_gbps = rate_gbps;
  p.link_layer = "InfiniBand";
  d.ports.push_back(p);
  return d;
}

TEST(NicPorts, MergesToolsAndFlagsDownAndSlowPorts) {
  model::Dataset ds;
  auto& ev = ds.Host("node-a");
  for (int i = 0; i < 4; ++i) ev.ib_devices.push_back(Device("mlx5_" + std::to_string(i), i == 2 ? 200 : 400));
  ev.ib_devices.push_back(Device("mlx5_4", 0, "Down"));
  formats::GidEntry g;
  g.dev = "mlx5_0";
  g.port = 1;
  g.index = 3;
  g.gid = "0000:0000:0000:0000:0000:ffff:0a00:0001";
  g.ipv4 = "10.0.0.1";
  g.version = "v2";
  g.netdev = "ib0";
  ev.gids.push_back(g);
  formats::RdmaQp q;
  q.dev = "mlx5_0";
  q.port = 1;
  ev.rdma_qps.push_back(q);
  ev.rdma_qps.push_back(q);
  const NicPortReport r = CollectNicPorts(ds);
  ASSERT_TRUE(r.present);
  ASSERT_EQ(r.ports.size(), 5u);
  const NicPort& p0 = r.ports[0];
  EXPECT_EQ(p0.device, "mlx5_0");
  EXPECT_TRUE(p0.active);
  EXPECT_EQ(p0.rate_gbps, 400);
  EXPECT_EQ(p0.qps, 2);
  ASSERT_EQ(p0.gids.size(), 1u);
  EXPECT_EQ(p0.gids[0].ipv4, "10.0.0.1");
  EXPECT_EQ(p0.sources, (std::vector<std::string>{"ibstat", "show_gids", "rdma"}));
  int down = 0, slow = 0;
  for (const auto& f : r.findings) {
    if (f.kind == "port_down") {
      ++down;
      EXPECT_EQ(f.device, "mlx5_4");
    }
    if (f.kind == "rate_below_siblings") {
      ++slow;
      EXPECT_EQ(f.device, "mlx5_2");
    }
  }
  EXPECT_EQ(down, 1);
  EXPECT_EQ(slow, 1);
}

// Different device models (a front-end Ethernet NIC beside back-end IB) are not siblings.
TEST(NicPorts, DifferentModelsAreNotCompared) {
  model::Dataset ds;
  auto& ev = ds.Host("node-a");
  ev.ib_devices.push_back(Device("mlx5_0", 400));
  ev.ib_devices.push_back(Device("mlx5_1", 400));
  formats::IbDevice eth = Device("mlx5_2", 100);
  eth.ca_type = "MT4125";
  eth.ports[0].link_layer = "Ethernet";
  ev.ib_devices.push_back(eth);
  const NicPortReport r = CollectNicPorts(ds);
  EXPECT_TRUE(r.findings.empty());
}

TEST(NicPorts, RealHostToolOutputs) {
  auto ds = model::LoadPaths({std::string(TOPOSCOPE_FIXTURES) + "/rdma_tools"}, {});
  ASSERT_TRUE(ds.ok());
  const NicPortReport r = CollectNicPorts(*ds);
  ASSERT_TRUE(r.present);
  int active = 0;
  for (const auto& p : r.ports) {
    EXPECT_FALSE(p.device.empty());
    EXPECT_GE(p.port, 0);
    EXPECT_FALSE(p.sources.empty());
    active += p.active ? 1 : 0;
  }
  EXPECT_GT(active, 0);
  for (const auto& f : r.findings) EXPECT_FALSE(f.evidence.empty());
}

}  // namespace nic_ports_test
}  // namespace toposcope::analysis
