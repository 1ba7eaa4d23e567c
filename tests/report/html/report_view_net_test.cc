// Tests of report/html/report_view_net: the RDMA flow matrix host by host and, above the host
// limit, leaf by leaf (hosts outside every leaf in "other hosts"); the NVLink GPU-pair matrices
// (estimable hosts only, capped, reasons shared); NIC ports (findings first, unknown rates null,
// the summary over every port); QP patterns (whole capture, jobs, hosts; capped; classes counted).
#include "toposcope/report/html/report_view_net.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "toposcope/report/html/report_view.h"

namespace toposcope::report::html {
namespace report_view_net_test {

using nlohmann::json;

json Flow(const std::string& src, const std::string& dst, double bytes, int64_t first_ns, int64_t last_ns) {
  return {{"src_host", src}, {"dst_host", dst}, {"bytes", bytes}, {"first_ns", first_ns}, {"last_ns", last_ns}};
}

TEST(ReportViewNet, FlowMatrixByHostThenByLeaf) {
  json r = {{"flows", {Flow("h1", "h2", 1000, 1'000'000'000, 1'000'001'000), Flow("h1", "h2", 500, 1'000'000'500, 1'000'002'000),
                       Flow("h2", "h3", 10, 5, 5), Flow("", "h3", 99, 0, 0)}}};
  const std::vector<std::string> names = {"h1", "h2", "h3"};
  const json leaves = {{{"name", "leafA"}, {"hosts", {0, 1}}}};
  ViewLimits lim;
  json f = TrafficView(r, names, leaves, lim)["flows"];
  EXPECT_EQ(f["by"], "host");
  EXPECT_EQ(f["names"], json({"h1", "h2", "h3"}));
  ASSERT_EQ(f["cells"].size(), 2U);
  // h1 -> h2: 1500 bytes in 2 flows over 2 us = 6 Gbit/s; h2 -> h3: no span, no rate.
  EXPECT_EQ(f["cells"][0], json({0, 1, 1500.0, 2, 6.0}));
  EXPECT_EQ(f["cells"][1], json({1, 2, 10.0, 1, nullptr}));
  EXPECT_EQ(f["flows_unattributed"], 1);
  EXPECT_EQ(f["bytes_total"], 1510.0);

  lim.traffic_hosts = 2;
  f = TrafficView(r, names, leaves, lim)["flows"];
  EXPECT_EQ(f["by"], "leaf");
  EXPECT_EQ(f["names"], json({"leafA", "other hosts"}));
  ASSERT_EQ(f["cells"].size(), 2U);
  EXPECT_EQ(f["cells"][0][0], 0);  // h1 -> h2 inside leafA
  EXPECT_EQ(f["cells"][0][1], 0);
  EXPECT_EQ(f["cells"][1][1], 1);  // h2 -> h3: h3 is in no leaf
  EXPECT_EQ(f["hosts"], 3);
}

TEST(ReportViewNet, NvlinkMatricesOfEstimableHosts) {
  json pairs = json::array();
  for (int s = 0; s < 2; ++s) pairs.push_back({{"src", s}, {"dst", 1 - s}, {"bytes_per_s", 1e9 * (s + 1)}, {"err_bytes_per_s", 1e7}, {"supported", s == 0}});
  json r = {{"traffic_matrix",
             {{"hosts_estimable", 2},
              {"hosts", {{{"host", "b"}, {"estimable", true}, {"gpus", 2}, {"tx_bytes_per_s", {1e9, 2e9}}, {"pairs", pairs}},
                         {{"host", "a"}, {"estimable", true}, {"gpus", 2}, {"tx_bytes_per_s", {1e9, 2e9}}, {"pairs", pairs}},
                         {{"host", "c"}, {"estimable", false}, {"reason", "not an NVSwitch node"}},
                         {{"host", "d"}, {"estimable", false}, {"reason", "not an NVSwitch node"}}}}}}};
  ViewLimits lim;
  lim.nvlink_hosts = 1;
  const json n = TrafficView(r, {}, json::array(), lim)["nvlink"];
  ASSERT_EQ(n["hosts"].size(), 4U);
  EXPECT_EQ(n["hosts"][0][0], "a");  // by name
  EXPECT_EQ(n["hosts"][0][3], 3e9);  // tx summed over the GPUs
  EXPECT_EQ(n["hosts"][2][7], 0);
  EXPECT_EQ(n["hosts"][3][7], 0);  // one reason, shared
  EXPECT_EQ(n["reasons"], json({"not an NVSwitch node"}));
  ASSERT_EQ(n["matrices"].size(), 1U);  // capped at one host
  EXPECT_EQ(n["matrices"]["a"]["pairs"][1], json({1, 0, 2e9, 1e7, 0}));
}

TEST(ReportViewNet, NicPortsFindingsFirst) {
  json r = {{"nic_ports",
             {{"ports", {{{"host", "h1"}, {"device", "mlx5_0"}, {"port", 1}, {"state", "Active"}, {"active", true}, {"rate_gbps", 400.0},
                          {"gids", {{{"index", 3}, {"gid", "::ffff:10.0.0.1"}, {"type", "RoCE v2"}, {"netdev", "eth0"}}}}},
                         {{"host", "h1"}, {"device", "mlx5_1"}, {"port", 1}, {"state", "Active"}, {"active", true}, {"rate_gbps", 200.0}},
                         {{"host", "h0"}, {"device", "mlx5_0"}, {"port", 1}, {"rate_gbps", 0.0}, {"sources", {"rdma"}}}}},
              {"findings", {{{"kind", "rate_below_siblings"}, {"host", "h1"}, {"device", "mlx5_1"}, {"port", 1}, {"evidence", "200 < 400"}}}}}}};
  const json v = NicPortsView(r, {});
  EXPECT_EQ(v["total"], 3);
  EXPECT_EQ(v["hosts"], 2);
  ASSERT_EQ(v["ports"].size(), 3U);
  EXPECT_EQ(v["ports"][0][1], "mlx5_1");  // the port with a finding
  EXPECT_EQ(v["ports"][0][12], "rate_below_siblings");
  EXPECT_EQ(v["ports"][1][0], "h0");  // then the port not active
  EXPECT_TRUE(v["ports"][1][5].is_null());  // no rate printed
  EXPECT_EQ(v["ports"][2][9], "3 ::ffff:10.0.0.1 (RoCE v2, eth0)");
  EXPECT_EQ(v["findings"].size(), 1U);
  EXPECT_EQ(v["summary"].size(), 3U);
}

TEST(ReportViewNet, QpPatternsWholeCaptureThenJobsThenHosts) {
  json r = {{"patterns", {{{"scope", "host:h1"}, {"class", "pipeline"}}, {{"scope", "job:j0"}, {"class", "allreduce"}, {"qps", 40}},
                          {{"scope", "all"}, {"class", "mixed"}, {"reset_density", nullptr}}}},
            {"pattern_features", {{"note", "few RTS->SQD"}, {"records", 12}}}};
  ViewLimits lim;
  lim.qp_patterns = 2;
  const json v = QpPatternsView(r, lim);
  EXPECT_EQ(v["total"], 3);
  ASSERT_EQ(v["rows"].size(), 2U);
  EXPECT_EQ(v["rows"][0][0], "all");
  EXPECT_EQ(v["rows"][1][0], "job:j0");
  EXPECT_EQ(v["rows"][1][2], 40);
  EXPECT_TRUE(v["rows"][0][8].is_null());
  EXPECT_EQ(v["classes"], json({{"allreduce", 1}, {"mixed", 1}, {"pipeline", 1}}));
  EXPECT_EQ(v["note"], "few RTS->SQD");
}

TEST(ReportViewNet, EmptyResultGivesEmptyParts) {
  const json v = ReportViewJson(json::object());
  EXPECT_TRUE(v["traffic"]["flows"]["cells"].empty());
  EXPECT_TRUE(v["traffic"]["nvlink"]["hosts"].empty());
  EXPECT_EQ(v["nics"]["total"], 0);
  EXPECT_EQ(v["patterns"]["total"], 0);
}

}  // namespace report_view_net_test
}  // namespace toposcope::report::html
