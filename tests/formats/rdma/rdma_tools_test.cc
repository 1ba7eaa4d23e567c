// Golden tests of the RDMA host tool readers (rdma res show, ibstat, ibv_devinfo, show_gids) on every
// real fixture in rdma_tools/ and our synthetic testdata, writer round trips, and malformed inputs.
#include "toposcope/formats/rdma/rdma_tools.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/formats/clock/sync_point.h"

namespace toposcope::formats {
namespace rdma_tools_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES) + "/rdma_tools/";
const std::string kTd = std::string(TOPOSCOPE_TESTDATA) + "/rdma_tools/";

const std::string kQp2019 = kDir + "iproute2_commit_96f59e7f_rdma_res_show_qp_mlx5_0_ib_rc_pingpong.txt";
const std::string kQp2018 = kDir + "iproute2_commit_8ecac46a_rdma_res_show_qp_link_mlx5_4_ipoib.txt";
const std::string kQpCxgb4 = kDir + "iproute2_commit_33115275_rdma_res_show_qp_dd_p_cxgb4_iwarp_nvme_rdma_rc.txt";
const std::string kQp2024 = kDir + "iproute2_commit_57d7a8fd_rdma_res_show_qp_dd_mlx5_umr_2024.txt";
const std::string kCq = kDir + "iproute2_commit_96f59e7f_rdma_res_show_cq_mlx5_0.txt";
const std::string kPd = kDir + "iproute2_commit_96f59e7f_rdma_res_show_pd_mlx5_0.txt";
const std::string kIbstatH20 = kDir + "deepep_issue303_h20_ibstat_cx7_mt4129_400g_ib_PARTIAL.txt";
const std::string kIbstatCx3 = kDir + "heioy_books_ibstat_2x_connectx3_mt4099_fdr56_ib.txt";
const std::string kIbstatRoce = kDir + "mooncake_issue1999_ibstat_cx7_mt4129_200g_roce_PARTIAL.txt";
const std::string kDevinfo = kDir + "heioy_books_ibv_devinfo_2x_connectx3_mlx4_2port_ib.txt";
const std::string kDevinfoV = kDir + "heioy_books_ibv_devinfo_v_mlx4_1_port2_down.txt";
const std::string kShowGids = kDir + "husky_readme_show_gids_mlx5_0_rdma0_roce.txt";
const std::string kTdQpModern = kTd + "rdma_res_qp_modern_rc_SYNTHETIC.txt";
const std::string kTdQpJson = kTd + "rdma_res_qp_json_SYNTHETIC.json";
const std::string kTdDevinfoRoce = kTd + "ibv_devinfo_v_roce_cx6dx_SYNTHETIC.txt";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Reasons(const Diagnostics& diag, Severity sev = Severity::kRejected) {
  std::string out;
  for (const Diagnostic& d : diag.items()) {
    if (d.severity == sev) out += d.reason + "\n";
  }
  return out;
}

void ExpectCounts(const ReadCounts& c, int64_t read, int64_t accepted) {
  EXPECT_EQ(c.read, read);
  EXPECT_EQ(c.accepted, accepted);
  EXPECT_EQ(c.rejected, read - accepted);
  EXPECT_TRUE(c.Balanced());
}

std::vector<RdmaQp> NoLines(std::vector<RdmaQp> qps) {
  for (RdmaQp& q : qps) q.line = 0;
  return qps;
}
std::vector<IbDevice> NoLines(std::vector<IbDevice> ds) {
  for (IbDevice& d : ds) d.line = 0;
  return ds;
}
std::vector<GidEntry> NoLines(std::vector<GidEntry> gs) {
  for (GidEntry& g : gs) g.line = 0;
  return gs;
}

// ------------------------------------------------------------------------------------------
// rdma res show qp: real fixtures
// ------------------------------------------------------------------------------------------

TEST(RdmaResQp, Iproute2_2019_OldFieldOrderRcPingpong) {
  Diagnostics diag;
  auto t = ParseRdmaResQp(Slurp(kQp2019), kQp2019, diag);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  ExpectCounts(t->counts, 5, 5);
  ASSERT_EQ(t->qps.size(), 5u);
  const RdmaQp& smi = t->qps[0];
  EXPECT_EQ(smi.dev, "mlx5_0");
  EXPECT_EQ(smi.port, 1);
  EXPECT_EQ(smi.lqpn, 0u);
  EXPECT_EQ(smi.type, "SMI");
  EXPECT_EQ(smi.state, "RTS");
  EXPECT_EQ(smi.sq_psn, 0u);
  EXPECT_FALSE(smi.rqpn.has_value());
  EXPECT_FALSE(smi.rq_psn.has_value());
  EXPECT_EQ(smi.pid, 0);
  EXPECT_EQ(smi.comm, "ib_core");
  EXPECT_TRUE(smi.kernel_owner);
  EXPECT_EQ(smi.line, 1);
  EXPECT_EQ(t->qps[1].type, "GSI");
  EXPECT_EQ(t->qps[3].lqpn, 8u);
  EXPECT_EQ(t->qps[3].comm, "ib_ipoib");
  // `lqpn 9 pdn 4 rqpn 0 type RC state INIT rq-psn 0 sq-psn 0 path-mig-state MIGRATED pid 548 ...`
  const RdmaQp& rc = t->qps[4];
  EXPECT_EQ(rc.lqpn, 9u);
  EXPECT_EQ(rc.pdn, 4);
  EXPECT_EQ(rc.rqpn, 0u);
  EXPECT_EQ(rc.type, "RC");
  EXPECT_EQ(rc.state, "INIT");
  EXPECT_EQ(rc.rq_psn, 0u);
  EXPECT_EQ(rc.sq_psn, 0u);
  EXPECT_EQ(rc.path_mig_state, "MIGRATED");
  EXPECT_EQ(rc.pid, 548);
  EXPECT_EQ(rc.comm, "ibv_rc_pingpong");
  EXPECT_FALSE(rc.kernel_owner);
  EXPECT_EQ(rc.line, 5);
  EXPECT_EQ(diag.items().size(), 0u);
  EXPECT_EQ(SniffRdmaTool(Slurp(kQp2019)), RdmaToolKind::kRdmaResQp);
}

TEST(RdmaResQp, Iproute2_2018_UnboundPortDash) {
  Diagnostics diag;
  auto t = ParseRdmaResQp(Slurp(kQp2018), kQp2018, diag);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  ExpectCounts(t->counts, 4, 4);
  ASSERT_EQ(t->qps.size(), 4u);
  EXPECT_EQ(t->qps[0].dev, "mlx5_4");
  EXPECT_EQ(t->qps[0].port, -1);
  EXPECT_EQ(t->qps[0].lqpn, 8u);
  EXPECT_EQ(t->qps[0].type, "UD");
  EXPECT_EQ(t->qps[0].state, "RESET");
  EXPECT_EQ(t->qps[0].pid, 0);
  EXPECT_EQ(t->qps[0].comm, "ib_ipoib");
  EXPECT_TRUE(t->qps[0].kernel_owner);
  EXPECT_EQ(t->qps[1].port, 1);
  EXPECT_EQ(t->qps[1].lqpn, 7u);
  EXPECT_EQ(t->qps[3].type, "SMI");
  EXPECT_EQ(t->qps[3].lqpn, 0u);
}

TEST(RdmaResQp, Iproute2_Cxgb4PrettyDriverLinesSkipped) {
  Diagnostics diag;
  auto t = ParseRdmaResQp(Slurp(kQpCxgb4), kQpCxgb4, diag);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  ExpectCounts(t->counts, 1, 1);  // the 3 indented -p lines belong to the QP
  ASSERT_EQ(t->qps.size(), 1u);
  const RdmaQp& q = t->qps[0];
  EXPECT_EQ(q.dev, "cxgb4_0");
  EXPECT_EQ(q.port, -1);
  EXPECT_EQ(q.lqpn, 1028u);
  EXPECT_EQ(q.rqpn, 0u);
  EXPECT_EQ(q.type, "RC");
  EXPECT_EQ(q.state, "RTS");
  EXPECT_EQ(q.rq_psn, 0u);
  EXPECT_EQ(q.sq_psn, 0u);
  EXPECT_EQ(q.path_mig_state, "MIGRATED");
  EXPECT_EQ(q.pid, 0);
  EXPECT_EQ(q.comm, "nvme_rdma");
  EXPECT_TRUE(q.kernel_owner);
  EXPECT_EQ(diag.items().size(), 0u);
}

TEST(RdmaResQp, Iproute2_2024_DriverSubtypeNoPid) {
  Diagnostics diag;
  auto t = ParseRdmaResQp(Slurp(kQp2024), kQp2024, diag);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  ExpectCounts(t->counts, 4, 4);
  ASSERT_EQ(t->qps.size(), 4u);
  EXPECT_EQ(t->qps[0].dev, "ibp8s0f1");
  EXPECT_EQ(t->qps[0].lqpn, 360u);
  EXPECT_EQ(t->qps[0].type, "UD");
  EXPECT_FALSE(t->qps[0].pid.has_value());
  EXPECT_EQ(t->qps[0].comm, "mlx5_ib");
  EXPECT_TRUE(t->qps[0].kernel_owner);
  EXPECT_EQ(t->qps[1].lqpn, 465u);
  EXPECT_EQ(t->qps[1].type, "DRIVER");
  EXPECT_EQ(t->qps[1].subtype, "REG_UMR");
  EXPECT_EQ(t->qps[1].state, "RTS");
  EXPECT_EQ(t->qps[2].type, "SMI");
  EXPECT_EQ(t->qps[3].type, "GSI");
  EXPECT_EQ(t->qps[3].comm, "ib_core");
  // The writer prints this era's format: the fixture's lines come back byte for byte.
  EXPECT_EQ(WriteRdmaResQp(t->qps), Slurp(kQp2024));
}

// A control character in a process name (a CR, found by rdma_tools_fuzz) would not write back: the
// line is rejected with its reason and the others are kept.
TEST(RdmaResQp, ControlCharacterInCommIsRejected) {
  Diagnostics diag;
  auto t = ParseRdmaResQp(
      "link mlx5_0/1 lqpn 8 type UD state RTS sq-psn 0 pid 0 comm [ib_ipoib]\n"
      "link mlx5_0/1 lqpn 9 type UD state RTS sq-psn 0 pid 0 comm [ib_ipo\x01\r mlx5_0/1 lqpn 10\n"
      "link mlx5_0/1 lqpn 11 type RC subtype x\x02y state INIT sq-psn 0 pid 548 comm ibv_rc_pingpong\n",
      "qp.txt", diag);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->counts.read, 3);
  EXPECT_EQ(t->counts.rejected, 2);
  ASSERT_EQ(t->qps.size(), 1u);
  EXPECT_EQ(t->qps[0].comm, "ib_ipoib");
  std::string reasons;
  for (const auto& d : diag.items()) reasons += d.ToString() + "\n";
  EXPECT_NE(reasons.find("control character in 'comm'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("unknown subtype"), std::string::npos) << reasons;
}

TEST(RdmaResQp, CqAndPdOutputsAreNotQps) {
  for (const std::string& path : {kCq, kPd}) {
    Diagnostics diag;
    auto t = ParseRdmaResQp(Slurp(path), path, diag);
    ASSERT_FALSE(t.ok()) << path;
    EXPECT_NE(t.error().message.find("not `rdma res show qp`"), std::string::npos);
    EXPECT_EQ(diag.rejected_total(), 0);
    EXPECT_EQ(SniffRdmaTool(Slurp(path)), RdmaToolKind::kRdmaResOther);
  }
}

TEST(RdmaRes, CqAndPdGeneric) {
  Diagnostics diag;
  auto cq = ParseRdmaRes(Slurp(kCq), kCq, diag);
  ASSERT_TRUE(cq.ok()) << cq.error().ToString();
  ExpectCounts(cq->counts, 6, 6);
  ASSERT_EQ(cq->entries.size(), 6u);
  EXPECT_EQ(cq->entries[0].dev, "mlx5_0");
  EXPECT_EQ(cq->entries[0].pid, 0);
  EXPECT_EQ(cq->entries[0].comm, "ib_core");
  EXPECT_TRUE(cq->entries[0].kernel_owner);
  const RdmaResEntry& user = cq->entries[5];
  EXPECT_EQ(user.pid, 548);
  EXPECT_EQ(user.comm, "ibv_rc_pingpong");
  EXPECT_FALSE(user.kernel_owner);
  ASSERT_EQ(user.fields.size(), 6u);  // cqe users pid comm cqn ctxn
  EXPECT_EQ(user.fields[0], (std::pair<std::string, std::string>("cqe", "511")));
  EXPECT_EQ(user.fields[4], (std::pair<std::string, std::string>("cqn", "7")));
  auto pd = ParseRdmaRes(Slurp(kPd), kPd, diag);
  ASSERT_TRUE(pd.ok());
  ExpectCounts(pd->counts, 4, 4);
  EXPECT_EQ(pd->entries[3].pid, 548);
  EXPECT_EQ(pd->entries[3].fields.back(), (std::pair<std::string, std::string>("pdn", "4")));
  // QP lines through the generic reader.
  auto qp = ParseRdmaRes(Slurp(kQp2019), kQp2019, diag);
  ASSERT_TRUE(qp.ok());
  ExpectCounts(qp->counts, 5, 5);
  EXPECT_EQ(qp->entries[4].port, 1);
  EXPECT_EQ(diag.rejected_total(), 0);
  Diagnostics d2;
  EXPECT_FALSE(ParseRdmaRes("hello\nworld\n", "x", d2).ok());
}

// ------------------------------------------------------------------------------------------
// rdma res show qp: synthetic, JSON, writer
// ------------------------------------------------------------------------------------------

TEST(RdmaResQp, ModernTextWithTrailingSpaces) {
  Diagnostics diag;
  auto t = ParseRdmaResQp(Slurp(kTdQpModern), kTdQpModern, diag);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  ExpectCounts(t->counts, 9, 9);
  const RdmaQp& q = t->qps[4];
  EXPECT_EQ(q.lqpn, 4660u);
  EXPECT_EQ(q.rqpn, 8721u);
  EXPECT_EQ(q.rq_psn, 12971313u);
  EXPECT_EQ(q.sq_psn, 9911u);
  EXPECT_EQ(q.path_mig_state, "ARMED");
  EXPECT_EQ(q.pdn, 3);
  EXPECT_EQ(q.pid, 40211);
  EXPECT_EQ(q.comm, "python3");
  EXPECT_EQ(t->qps[6].port, -1);
  EXPECT_EQ(t->qps[8].dev, "mlx5_1");
  EXPECT_EQ(t->qps[8].type, "UC");
  EXPECT_EQ(t->qps[8].state, "ERR");
  // Same lqpn 0 on another device is not a duplicate.
  EXPECT_EQ(t->qps[7].lqpn, 0u);
  EXPECT_EQ(diag.items().size(), 0u);
}

TEST(RdmaResQp, JsonArray) {
  Diagnostics diag;
  const std::string text = Slurp(kTdQpJson);
  EXPECT_EQ(SniffRdmaTool(text), RdmaToolKind::kRdmaResQp);
  auto t = ParseRdmaResQp(text, kTdQpJson, diag);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  ExpectCounts(t->counts, 5, 5);
  EXPECT_EQ(t->qps[0].dev, "mlx5_0");
  EXPECT_EQ(t->qps[0].port, 1);
  EXPECT_EQ(t->qps[0].comm, "ib_core");
  EXPECT_TRUE(t->qps[0].kernel_owner);  // no pid in JSON
  EXPECT_EQ(t->qps[2].subtype, "REG_UMR");
  EXPECT_EQ(t->qps[3].rqpn, 8721u);
  EXPECT_EQ(t->qps[3].pid, 40211);
  EXPECT_FALSE(t->qps[3].kernel_owner);
  EXPECT_EQ(t->qps[4].port, -1);
  EXPECT_EQ(t->qps[4].state, "RESET");
  // The JSON and the text of the same QPs agree.
  Diagnostics d2;
  auto text_form = ParseRdmaResQp(WriteRdmaResQp(t->qps), "w", d2);
  ASSERT_TRUE(text_form.ok());
  EXPECT_EQ(NoLines(text_form->qps), NoLines(t->qps));
  auto json_again = ParseRdmaResQp(WriteRdmaResQpJson(t->qps), "j", d2);
  ASSERT_TRUE(json_again.ok());
  EXPECT_EQ(json_again->qps, t->qps);
  EXPECT_EQ(d2.rejected_total(), 0);
}

TEST(RdmaResQp, JsonLinesAndTruncatedJson) {
  const std::string one = R"([{"ifname":"mlx5_0","port":1,"lqpn":5,"type":"RC","state":"RTS","sq-psn":1,"pid":7,"comm":"a"}])";
  const std::string two = R"([{"ifname":"mlx5_1","port":1,"lqpn":5,"type":"RC","state":"RTS","sq-psn":1,"pid":7,"comm":"a"}])";
  Diagnostics diag;
  auto t = ParseRdmaResQp(one + "\n" + two + "\n", "jl", diag);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  ExpectCounts(t->counts, 2, 2);
  EXPECT_EQ(t->qps[1].line, 2);
  // Cut in the second object: the first is kept, the rest is one rejected record.
  const std::string cut = R"([{"ifname":"mlx5_0","port":1,"lqpn":5,"type":"RC","state":"RTS","sq-psn":1},{"ifname":"mlx5_0","lq)";
  Diagnostics d2;
  auto c = ParseRdmaResQp(cut, "cut", d2);
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  ExpectCounts(c->counts, 2, 1);
  EXPECT_NE(Reasons(d2).find("JSON syntax error"), std::string::npos);
  // Empty array: a host without QPs.
  Diagnostics d3;
  auto e = ParseRdmaResQp("[]\n", "empty", d3);
  ASSERT_TRUE(e.ok());
  ExpectCounts(e->counts, 0, 0);
  // JSON of another resource.
  EXPECT_FALSE(ParseRdmaResQp(R"([{"ifname":"mlx5_0","cqe":5}])", "cq", d3).ok());
  // Bad values inside JSON objects.
  auto bad = ParseRdmaResQp(
      R"([{"ifname":"m","port":0,"lqpn":1,"type":"RC","state":"RTS"},{"ifname":"m","lqpn":-1,"type":"RC","state":"RTS"},)"
      R"({"ifname":"m","lqpn":4294967296,"type":"RC","state":"RTS"},{"lqpn":1,"type":"RC","state":"RTS"},{"ifname":"m","lqpn":2,"type":"XX","state":"RTS"}])",
      "bad", d3);
  ASSERT_TRUE(bad.ok());
  ExpectCounts(bad->counts, 5, 0);
}

TEST(RdmaResQp, WriterRoundTrip) {
  std::vector<RdmaQp> qps;
  RdmaQp a;
  a.dev = "mlx5_3";
  a.port = 1;
  a.lqpn = 0xffffff;
  a.rqpn = 77;
  a.type = "RC";
  a.state = "RTR";
  a.rq_psn = 123;
  a.sq_psn = 456;
  a.path_mig_state = "REARM";
  a.pdn = 9;
  a.pid = 1234567;
  a.comm = "torchrun";
  qps.push_back(a);
  RdmaQp k;
  k.dev = "mlx5_3";
  k.port = -1;
  k.lqpn = 8;
  k.type = "UD";
  k.state = "RESET";
  k.sq_psn = 0;
  k.comm = "ib_ipoib";
  k.kernel_owner = true;
  qps.push_back(k);
  RdmaQp d = k;
  d.lqpn = 465;
  d.port = 2;
  d.type = "DRIVER";
  d.subtype = "REG_UMR";
  d.comm = "";
  qps.push_back(d);  // a kernel QP with an empty name: written as `comm []`
  const std::string text = WriteRdmaResQp(qps);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "link mlx5_3/1 lqpn 16777215 rqpn 77 type RC state RTR rq-psn 123 sq-psn 456 path-mig-state REARM "
            "pdn 9 pid 1234567 comm torchrun");
  Diagnostics diag;
  auto back = ParseRdmaResQp(text, "rt", diag);
  ASSERT_TRUE(back.ok());
  ExpectCounts(back->counts, 3, 3);
  EXPECT_EQ(NoLines(back->qps), qps);
  EXPECT_EQ(WriteRdmaResQp(back->qps), text);
  // Every real QP fixture round-trips (fields; the text is the writer's era).
  for (const std::string& path : {kQp2019, kQp2018, kQpCxgb4, kQp2024, kTdQpModern}) {
    Diagnostics d1, d2;
    auto first = ParseRdmaResQp(Slurp(path), path, d1);
    ASSERT_TRUE(first.ok()) << path;
    auto again = ParseRdmaResQp(WriteRdmaResQp(first->qps), "rewritten", d2);
    ASSERT_TRUE(again.ok()) << path;
    EXPECT_EQ(NoLines(again->qps), NoLines(first->qps)) << path;
    EXPECT_EQ(again->counts.rejected, 0) << path;
  }
}

TEST(RdmaResQp, StreamingReader) {
  const std::string text = Slurp(kTdQpModern);
  LineReader lines = TextLineReader(text, "stream");
  Diagnostics diag;
  ReadCounts counts;
  int n = 0;
  uint32_t last = 0;
  Status st = ReadRdmaResQp(lines, "stream", [&](RdmaQp&& q) { ++n; last = q.lqpn; }, diag, counts);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(n, 9);
  EXPECT_EQ(last, 296u);
  ExpectCounts(counts, 9, 9);
}

TEST(RdmaResQp, BadInputs) {
  Diagnostics diag;
  EXPECT_FALSE(ParseRdmaResQp("", "empty", diag).ok());
  EXPECT_FALSE(ParseRdmaResQp("\n\n  \n", "blank", diag).ok());
  EXPECT_FALSE(ParseRdmaResQp(std::string("\x00\x01\x02\xff\xfe garbage", 15), "bin", diag).ok());
  EXPECT_FALSE(ParseRdmaResQp(Slurp(kIbstatH20), "ibstat", diag).ok());
  EXPECT_FALSE(ParseRdmaResQp("{\"a\":1}", "json", diag).ok());
  EXPECT_FALSE(ParseRdmaResQp("[{\"lqpn\":", "cutjson", diag).ok());
  EXPECT_EQ(diag.rejected_total(), 0);  // wrong formats leave no rejects behind

  const std::string text =
      "$ rdma res show qp\n"                                                            // 1 junk before
      "link mlx5_0/1 lqpn 1 type GSI state RTS sq-psn 0 comm [ib_core]\n"              // 2 ok
      "link mlx5_0/1 lqpn 1 type GSI state RTS sq-psn 0 comm [ib_core]\n"              // 3 duplicate
      "link mlx5_0/1 lqpn 4294967296 type RC state RTS sq-psn 0 pid 1 comm a\n"        // 4 huge lqpn
      "link mlx5_0/1 lqpn 99999999999999999999999 type RC state RTS sq-psn 0\n"        // 5 huge
      "link mlx5_0/1 lqpn 5 type RC state RTS sq-psn -1 pid 1 comm a\n"                // 6 negative
      "link mlx5_0/1 lqpn 6 type RC state BOGUS sq-psn 0 pid 1 comm a\n"               // 7 state
      "link mlx5_0/1 lqpn 7 type WEIRD state RTS sq-psn 0\n"                           // 8 type
      "link mlx5_0/1 lqpn 8 type RC state\n"                                           // 9 truncated
      "link mlx5_0/1 type RC state RTS sq-psn 0\n"                                     // 10 no lqpn
      "link mlx5_0 lqpn 9 type RC state RTS sq-psn 0\n"                                // 11 no port
      "link mlx5_0/0 lqpn 9 type RC state RTS sq-psn 0\n"                              // 12 port 0
      "link mlx5_0/256 lqpn 9 type RC state RTS sq-psn 0\n"                            // 13 port 256
      "link mlx5_0/1 lqpn 10 lqpn 11 type RC state RTS sq-psn 0\n"                     // 14 repeated key
      "link mlx5_0/1 lqpn 12 type RC state RTS sq-psn nan pid 1 comm a\n"              // 15 NaN
      "dev mlx5_0 cqe 5 users 1 pid 0 comm [ib_core] cqn 3\n"                          // 16 cq line
      "link mlx5_0/1 lqpn 13 type RC state RTS sq-psn 0 pid 18446744073709551615 comm a\n"  // 17 pid > int64
      "link mlx5_0/2 lqpn 1 type GSI state RTS sq-psn 0 comm [ib_core] sqid 3 flushed 0\n"  // 18 ok (other port, -dd)
      "link mlx5_0/1 lqpn 14 rqpn 15 type RC state RTS sq-psn 0 pid 1 comm a\n";        // 19 ok
  Diagnostics d;
  auto t = ParseRdmaResQp(text, "bad", d);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  ExpectCounts(t->counts, 19, 3);
  const std::string r = Reasons(d);
  EXPECT_NE(r.find("not a QP line"), std::string::npos);
  EXPECT_NE(r.find("duplicate QP: mlx5_0/1 lqpn 1"), std::string::npos);
  EXPECT_NE(r.find("lqpn '4294967296' is not an unsigned 32-bit number"), std::string::npos);
  EXPECT_NE(r.find("unknown state 'BOGUS'"), std::string::npos);
  EXPECT_NE(r.find("unknown type 'WEIRD'"), std::string::npos);
  EXPECT_NE(r.find("has no value"), std::string::npos);
  EXPECT_NE(r.find("no lqpn"), std::string::npos);
  EXPECT_NE(r.find("is not DEV/PORT"), std::string::npos);
  EXPECT_NE(r.find("is not 1..255"), std::string::npos);
  EXPECT_NE(r.find("repeated"), std::string::npos);
  EXPECT_NE(r.find("rdma res show cq/pd/mr"), std::string::npos);
  EXPECT_NE(r.find("pid '18446744073709551615'"), std::string::npos);
  // Each rejection keeps its line.
  ASSERT_FALSE(d.items().empty());
  EXPECT_EQ(d.items()[0].line, 1);
  EXPECT_EQ(d.items()[1].line, 3);
  EXPECT_EQ(t->qps[1].port, 2);
  EXPECT_EQ(t->qps[2].rqpn, 15u);
}

// ------------------------------------------------------------------------------------------
// ibstat
// ------------------------------------------------------------------------------------------

TEST(Ibstat, DeepEpH20Cx7_400G_IB_SpacesPartial) {
  Diagnostics diag;
  const std::string text = Slurp(kIbstatH20);
  EXPECT_EQ(SniffRdmaTool(text), RdmaToolKind::kIbstat);
  auto l = ParseIbstat(text, kIbstatH20, diag);
  ASSERT_TRUE(l.ok()) << l.error().ToString();
  ExpectCounts(l->counts, 34, 34);
  ASSERT_EQ(l->devices.size(), 2u);
  const IbDevice& d = l->devices[0];
  EXPECT_EQ(d.name, "mlx5_0");
  EXPECT_EQ(d.ca_type, "MT4129");
  EXPECT_EQ(d.num_ports, 1);
  EXPECT_EQ(d.firmware, "28.43.2026");
  EXPECT_EQ(d.hardware_version, "0");
  EXPECT_EQ(d.node_guid, "0xa088c2030074cfda");
  EXPECT_EQ(d.sys_image_guid, "0xa088c2030074cfda");
  EXPECT_EQ(d.line, 1);
  ASSERT_EQ(d.ports.size(), 1u);
  const IbPort& p = d.ports[0];
  EXPECT_EQ(p.port, 1);
  EXPECT_EQ(p.state, "Active");
  EXPECT_EQ(p.physical_state, "LinkUp");
  EXPECT_EQ(p.rate_gbps, 400);
  EXPECT_EQ(p.rate_suffix, "");
  EXPECT_EQ(p.lid, 50);
  EXPECT_EQ(p.lmc, 0);
  EXPECT_EQ(p.sm_lid, 1);
  EXPECT_EQ(p.capability_mask, "0xa751e848");
  EXPECT_EQ(p.port_guid, "0xa088c2030074cfda");
  EXPECT_EQ(p.link_layer, "InfiniBand");
  EXPECT_EQ(l->devices[1].name, "mlx5_1");
  EXPECT_EQ(l->devices[1].ports[0].lid, 49);
  EXPECT_EQ(l->devices[1].line, 18);
  EXPECT_EQ(ParseGuid(d.node_guid), 0xa088c2030074cfdaULL);
  EXPECT_EQ(diag.items().size(), 0u);
}

TEST(Ibstat, HeioyConnectX3TwoPortsFdrTabs) {
  Diagnostics diag;
  auto l = ParseIbstat(Slurp(kIbstatCx3), kIbstatCx3, diag);
  ASSERT_TRUE(l.ok()) << l.error().ToString();
  ExpectCounts(l->counts, 54, 54);
  ASSERT_EQ(l->devices.size(), 2u);
  EXPECT_EQ(l->devices[0].name, "mlx4_0");
  EXPECT_EQ(l->devices[0].ca_type, "MT4099");
  EXPECT_EQ(l->devices[0].num_ports, 2);
  EXPECT_EQ(l->devices[0].hardware_version, "1");
  EXPECT_EQ(l->devices[0].node_guid, "0xec0d9a03000c8980");
  EXPECT_EQ(l->devices[0].sys_image_guid, "0xec0d9a03000c8983");
  ASSERT_EQ(l->devices[0].ports.size(), 2u);
  EXPECT_EQ(l->devices[0].ports[0].rate_gbps, 56);
  EXPECT_EQ(l->devices[0].ports[0].lid, 10);
  EXPECT_EQ(l->devices[0].ports[0].sm_lid, 9);
  EXPECT_EQ(l->devices[0].ports[0].capability_mask, "0x02514868");
  EXPECT_EQ(l->devices[0].ports[1].port, 2);
  EXPECT_EQ(l->devices[0].ports[1].lid, 12);
  EXPECT_EQ(l->devices[0].ports[1].port_guid, "0xec0d9a03000c8982");
  EXPECT_EQ(l->devices[1].name, "mlx4_1");
  EXPECT_EQ(l->devices[1].ports[0].sm_lid, 7);
  EXPECT_EQ(l->devices[1].ports[1].lid, 4);
  EXPECT_EQ(l->devices[1].ports[1].link_layer, "InfiniBand");
}

TEST(Ibstat, MooncakeCx7_200G_RoCE) {
  Diagnostics diag;
  auto l = ParseIbstat(Slurp(kIbstatRoce), kIbstatRoce, diag);
  ASSERT_TRUE(l.ok()) << l.error().ToString();
  ExpectCounts(l->counts, 34, 34);
  ASSERT_EQ(l->devices.size(), 2u);
  const IbPort& p = l->devices[0].ports[0];
  EXPECT_EQ(l->devices[0].firmware, "28.39.1002");
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.rate_gbps, 200);
  EXPECT_EQ(p.lid, 0);
  EXPECT_EQ(p.sm_lid, 0);
  EXPECT_EQ(p.capability_mask, "0x00010000");
  EXPECT_EQ(p.port_guid, "0x5aa2e1fffedae626");  // built from the MAC (..fffe..)
  EXPECT_EQ(l->devices[1].node_guid, "0x58a2e10300dae627");
  EXPECT_EQ(l->devices[1].sys_image_guid, "0x58a2e10300dae626");
  EXPECT_EQ(l->devices[1].ports[0].port_guid, "0x5aa2e1fffedae627");
}

TEST(Ibstat, WriterRoundTripOnFixtures) {
  for (const std::string& path : {kIbstatH20, kIbstatCx3, kIbstatRoce}) {
    Diagnostics d1, d2;
    auto first = ParseIbstat(Slurp(path), path, d1);
    ASSERT_TRUE(first.ok());
    const std::string written = WriteIbstat(first->devices);
    auto again = ParseIbstat(written, "rewritten", d2);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(NoLines(again->devices), NoLines(first->devices)) << path;
    EXPECT_EQ(again->counts.rejected, 0);
  }
  // TAB-indented fixture: the writer reproduces it byte for byte.
  Diagnostics d;
  EXPECT_EQ(WriteIbstat(ParseIbstat(Slurp(kIbstatCx3), "x", d)->devices), Slurp(kIbstatCx3));
  // FDR10 suffix and a fractional rate.
  IbDevice dev;
  dev.name = "mlx4_0";
  dev.num_ports = 2;
  IbPort p;
  p.port = 1;
  p.state = "Active";
  p.rate_gbps = 40;
  p.rate_suffix = "FDR10";
  dev.ports.push_back(p);
  p.port = 2;
  p.state = "Down";
  p.rate_gbps = 2.5;
  p.rate_suffix.clear();
  dev.ports.push_back(p);
  const std::string w = WriteIbstat({dev});
  EXPECT_NE(w.find("\t\tRate: 40 (FDR10)\n"), std::string::npos);
  EXPECT_NE(w.find("\t\tRate: 2.5\n"), std::string::npos);
  auto back = ParseIbstat(w, "w", d);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(NoLines(back->devices), std::vector<IbDevice>{dev});
}

TEST(Ibstat, BadInputs) {
  Diagnostics diag;
  EXPECT_FALSE(ParseIbstat("", "empty", diag).ok());
  EXPECT_FALSE(ParseIbstat(std::string("\x00\x01\x02", 3), "bin", diag).ok());
  EXPECT_FALSE(ParseIbstat(Slurp(kDevinfo), "devinfo", diag).ok());
  EXPECT_EQ(diag.rejected_total(), 0);
  const std::string text =
      "State: Active\n"                     // 1 before any CA
      "CA 'mlx5_0'\n"                       // 2 ok
      "\tCA type: MT4129\n"                 // 3 ok
      "\tNumber of ports: 3\n"              // 4 ok (only 1 printed: warning)
      "\tNode GUID: 0xzz\n"                 // 5 bad GUID
      "\tRate: 100\n"                       // 6 port key before Port
      "\tPort 1:\n"                         // 7 ok
      "\t\tRate: 1e400\n"                   // 8 huge
      "\t\tRate: nan\n"                     // 9 NaN
      "\t\tBase lid: 70000\n"               // 10 > 16 bit
      "\t\tLMC: 9\n"                        // 11 > 7
      "\t\tCapability mask: 0x1ffffffff\n"  // 12 > 32 bit
      "\t\tPort GUID: 0x0123456789abcdef0\n"  // 13 > 64 bit
      "\t\tSome future key: 5\n"            // 14 ok (unknown key)
      "\tPort 1:\n"                         // 15 repeated port
      "\tPort x:\n"                         // 16 bad port
      "CA 'mlx5_0'\n"                       // 17 repeated device
      "\tCA type: MT4129\n"                 // 18 outside a device
      "CA 'mlx5_1\n"                        // 19 truncated name
      "garbage line\n";                     // 20 before any (valid) CA
  Diagnostics d;
  auto l = ParseIbstat(text, "bad", d);
  ASSERT_TRUE(l.ok());
  ExpectCounts(l->counts, 20, 5);
  ASSERT_EQ(l->devices.size(), 1u);
  EXPECT_EQ(l->devices[0].ports.size(), 1u);
  EXPECT_EQ(l->devices[0].ports[0].rate_gbps, 0);
  const std::string r = Reasons(d);
  EXPECT_NE(r.find("before any CA"), std::string::npos);
  EXPECT_NE(r.find("is not a 64-bit GUID"), std::string::npos);
  EXPECT_NE(r.find("before any 'Port N:'"), std::string::npos);
  EXPECT_NE(r.find("is not a rate in Gb/s"), std::string::npos);
  EXPECT_NE(r.find("is not 0..65535"), std::string::npos);
  EXPECT_NE(r.find("LMC '9'"), std::string::npos);
  EXPECT_NE(r.find("is not a 32-bit number"), std::string::npos);
  EXPECT_NE(r.find("port 1 of mlx5_0 repeated"), std::string::npos);
  EXPECT_NE(r.find("device 'mlx5_0' repeated"), std::string::npos);
  EXPECT_NE(r.find("truncated or empty CA name"), std::string::npos);
  EXPECT_NE(Reasons(d, Severity::kWarning).find("announces 3 ports but 1"), std::string::npos);
}

// ------------------------------------------------------------------------------------------
// ibv_devinfo
// ------------------------------------------------------------------------------------------

// A value that still ends in ')' once its code is cut ("InfiniBand)(0)", an rdma_tools_fuzz find)
// would read as another code when written back: the line is rejected, the device kept.
TEST(IbvDevinfo, TextEndingInAParenthesisIsRejected) {
  Diagnostics diag;
  auto l = ParseIbvDevinfo("hca_id:\tmlx4_1\n\ttransport:\t\t\tInfiniBand)(0)\n\t\tport:\t1\n"
                           "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n",
                           "devinfo.txt", diag);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->counts.rejected, 1);
  ASSERT_EQ(l->devices.size(), 1u);
  EXPECT_EQ(l->devices[0].transport, "");
  const std::string written = WriteIbvDevinfo(l->devices);
  Diagnostics d2;
  auto again = ParseIbvDevinfo(written, "rw", d2);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->counts.rejected, 0);
  EXPECT_EQ(WriteIbvDevinfo(again->devices), written);
}

TEST(IbvDevinfo, HeioyTwoConnectX3MlnxOfed) {
  Diagnostics diag;
  const std::string text = Slurp(kDevinfo);
  EXPECT_EQ(SniffRdmaTool(text), RdmaToolKind::kIbvDevinfo);
  auto l = ParseIbvDevinfo(text, kDevinfo, diag);
  ASSERT_TRUE(l.ok()) << l.error().ToString();
  ExpectCounts(l->counts, 54, 54);
  ASSERT_EQ(l->devices.size(), 2u);
  const IbDevice& d = l->devices[0];
  EXPECT_EQ(d.name, "mlx4_1");
  EXPECT_EQ(d.transport, "InfiniBand");
  EXPECT_EQ(d.firmware, "2.42.5000");
  EXPECT_EQ(d.node_guid, "7cfe:9003:00a5:95c0");
  EXPECT_EQ(ParseGuid(d.node_guid), 0x7cfe900300a595c0ULL);
  EXPECT_EQ(d.sys_image_guid, "7cfe:9003:00a5:95c3");
  EXPECT_EQ(d.vendor_id, "0x02c9");
  EXPECT_EQ(d.vendor_part_id, "4099");
  EXPECT_EQ(d.hardware_version, "0x1");
  EXPECT_EQ(d.board_id, "MT_1090120019");
  EXPECT_EQ(d.num_ports, 2);
  ASSERT_EQ(d.ports.size(), 2u);
  EXPECT_EQ(d.ports[0].port, 1);
  EXPECT_EQ(d.ports[0].state, "PORT_ACTIVE");
  EXPECT_EQ(d.ports[0].state_code, 4);
  EXPECT_EQ(d.ports[0].max_mtu, 4096);
  EXPECT_EQ(d.ports[0].active_mtu, 4096);
  EXPECT_EQ(d.ports[0].sm_lid, 1);
  EXPECT_EQ(d.ports[0].lid, 22);
  EXPECT_EQ(d.ports[0].lmc, 0);
  EXPECT_EQ(d.ports[0].link_layer, "InfiniBand");
  EXPECT_TRUE(d.ports[0].gids.empty());
  EXPECT_EQ(d.ports[1].state, "PORT_DOWN");
  EXPECT_EQ(d.ports[1].state_code, 1);
  EXPECT_EQ(d.ports[1].lid, 0);
  EXPECT_EQ(l->devices[1].name, "mlx4_0");
  EXPECT_EQ(l->devices[1].node_guid, "e41d:2d03:00e0:c740");
  EXPECT_EQ(l->devices[1].ports[0].sm_lid, 18);
  EXPECT_EQ(l->devices[1].ports[0].lid, 32);
  EXPECT_EQ(l->devices[1].line, 30);
  EXPECT_EQ(diag.items().size(), 0u);
}

TEST(IbvDevinfo, HeioyVerboseOnePortDownWithGid) {
  Diagnostics diag;
  auto l = ParseIbvDevinfo(Slurp(kDevinfoV), kDevinfoV, diag);
  ASSERT_TRUE(l.ok()) << l.error().ToString();
  ExpectCounts(l->counts, 124, 124);  // -v capability and flag lines are accepted
  ASSERT_EQ(l->devices.size(), 1u);
  const IbDevice& d = l->devices[0];
  EXPECT_EQ(d.name, "mlx4_1");
  EXPECT_EQ(d.num_ports, 2);
  ASSERT_EQ(d.ports.size(), 1u);  // `-i 2`: only port 2 printed
  const IbPort& p = d.ports[0];
  EXPECT_EQ(p.port, 2);
  EXPECT_EQ(p.state, "PORT_DOWN");
  EXPECT_EQ(p.physical_state, "POLLING");
  EXPECT_EQ(p.physical_state_code, 2);
  EXPECT_EQ(p.active_width, "4X");
  EXPECT_EQ(p.active_speed, "2.5 Gbps");
  EXPECT_DOUBLE_EQ(p.rate_gbps, 10.0);
  EXPECT_EQ(p.capability_mask, "0x0251486a");
  EXPECT_EQ(p.gid_tbl_len, 128);
  EXPECT_EQ(p.link_layer, "InfiniBand");
  ASSERT_EQ(p.gids.size(), 1u);
  EXPECT_EQ(p.gids[0].first, 0);
  EXPECT_EQ(p.gids[0].second, "fe80:0000:0000:0000:7cfe:9003:00a5:95c2");
  ASSERT_EQ(p.gid_types.size(), 1u);
  EXPECT_EQ(p.gid_types[0], "");  // IB ports print no GID type
  // Port 1 not printed: a warning, not a reject.
  EXPECT_EQ(diag.rejected_total(), 0);
  EXPECT_NE(Reasons(diag, Severity::kWarning).find("announces 2 ports but 1"), std::string::npos);
}

TEST(IbvDevinfo, SyntheticRoceGidsV1V2) {
  Diagnostics diag;
  auto l = ParseIbvDevinfo(Slurp(kTdDevinfoRoce), kTdDevinfoRoce, diag);
  ASSERT_TRUE(l.ok()) << l.error().ToString();
  ExpectCounts(l->counts, 34, 34);
  const IbPort& p = l->devices[0].ports[0];
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.active_mtu, 1024);
  EXPECT_EQ(p.max_mtu, 4096);
  EXPECT_EQ(p.physical_state, "LINK_UP");
  EXPECT_DOUBLE_EQ(p.rate_gbps, 200.0);
  ASSERT_EQ(p.gids.size(), 4u);
  EXPECT_EQ(p.gids[1], (std::pair<int, std::string>(1, "fe80::e42:a1ff:fe65:4b2e")));
  EXPECT_EQ(p.gids[3], (std::pair<int, std::string>(3, "::ffff:10.0.1.2")));
  EXPECT_EQ(p.gid_types, (std::vector<std::string>{"RoCE v1", "RoCE v2", "RoCE v1", "RoCE v2"}));
  EXPECT_EQ(diag.items().size(), 0u);
}

TEST(IbvDevinfo, WriterRoundTrip) {
  for (const std::string& path : {kDevinfo, kDevinfoV, kTdDevinfoRoce}) {
    Diagnostics d1, d2;
    auto first = ParseIbvDevinfo(Slurp(path), path, d1);
    ASSERT_TRUE(first.ok());
    auto again = ParseIbvDevinfo(WriteIbvDevinfo(first->devices), "rewritten", d2);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(NoLines(again->devices), NoLines(first->devices)) << path;
    EXPECT_EQ(again->counts.rejected, 0);
  }
  // A rate that is not width x speed survives as effective_speed; GID lines keep %3d.
  IbDevice dev;
  dev.name = "mlx5_9";
  IbPort p;
  p.port = 1;
  p.rate_gbps = 0;
  p.active_width = "4X";
  p.active_speed = "25.0 Gbps";
  p.gids = {{0, "fe80:0000:0000:0000:0000:0000:0000:0001"}, {125, "fd02::1"}};
  p.gid_types = {"RoCE v1", "RoCE v2"};
  dev.ports.push_back(p);
  const std::string w = WriteIbvDevinfo({dev});
  EXPECT_NE(w.find("\t\t\tGID[125]:\t\tfd02::1, RoCE v2\n"), std::string::npos);
  Diagnostics d;
  auto back = ParseIbvDevinfo(w, "w", d);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(NoLines(back->devices), std::vector<IbDevice>{dev});
}

// Found by the fuzzer: two values run together ("InfiniBand (" cut, then the next line's
// "PORT_ACTIVE (4)") were accepted as the transport "InfiniBand (PORT_ACTIVE", which the writer
// then wrote as a cut value that the reader rejects. Such a value is malformed, as a cut one is.
TEST(IbvDevinfo, ValuesRunTogetherAreMalformed) {
  const std::string text =
      "hca_id:\tmlx4_0\n"
      "\ttransport:\t\t\tInfiniBand (PORT_ACTIVE (4)\n"
      "\t\tport:\t1\n"
      "\t\t\tstate:\t\t\tPORT_DOWN (DOWN (1)\n"
      "\t\t\tactive_mtu:\t\t4096 (5)\n";
  Diagnostics d;
  auto l = ParseIbvDevinfo(text, "run-together", d);
  ASSERT_TRUE(l.ok());
  ExpectCounts(l->counts, 5, 3);
  const std::string r = Reasons(d);
  EXPECT_NE(r.find("transport 'InfiniBand (PORT_ACTIVE (4)' is malformed"), std::string::npos) << r;
  EXPECT_NE(r.find("is malformed"), std::string::npos);
  ASSERT_EQ(l->devices.size(), 1u);
  const std::string written = WriteIbvDevinfo(l->devices);
  Diagnostics d2;
  auto again = ParseIbvDevinfo(written, "rewritten", d2);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->counts.rejected, 0);
}

TEST(IbvDevinfo, BadInputs) {
  Diagnostics diag;
  EXPECT_FALSE(ParseIbvDevinfo("", "empty", diag).ok());
  EXPECT_FALSE(ParseIbvDevinfo(Slurp(kIbstatCx3), "ibstat", diag).ok());
  EXPECT_FALSE(ParseIbvDevinfo("\xff\xfe\x00\x01", "bin", diag).ok());
  EXPECT_EQ(diag.rejected_total(), 0);
  const std::string text =
      "phys_port_cnt: 2\n"                           // 1 before hca_id
      "hca_id:\tmlx5_0\n"                            // 2 ok
      "\tnode_guid:\t\t\t7cfe:9003:00a5\n"           // 3 bad GUID (3 groups)
      "\tphys_port_cnt:\t\t\t99999999999999999999\n"  // 4 huge
      "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"          // 5 port key before port
      "\t\tport:\t1\n"                               // 6 ok
      "\t\t\tstate:\t\t\tPORT_ACTIVE (4\n"           // 7 cut
      "\t\t\tactive_mtu:\t\tabc (5)\n"               // 8 bad MTU
      "\t\t\tport_lid:\t\t-3\n"                      // 9 negative
      "\t\t\tGID[  0]:\t\tnot-a-gid, RoCE v2\n"      // 10 bad GID
      "\t\t\tGID[x]:\t\tfe80::1\n"                   // 11 bad index
      "\t\t\tGID[  1]:\t\tfe80::1, RoCE v2\n"        // 12 ok
      "\t\t\tGID[  1]:\t\tfe80::2, RoCE v2\n"        // 13 repeated index
      "\t\tport:\t1\n"                               // 14 repeated port
      "\t\t\teffective_speed:\tinf Gbps\n"           // 15 port key without a port (after a rejected port):
                                                     //    an unknown device key, accepted
      "hca_id:\n";                                   // 16 no name
  Diagnostics d;
  auto l = ParseIbvDevinfo(text, "bad", d);
  ASSERT_TRUE(l.ok());
  ExpectCounts(l->counts, 16, 4);
  ASSERT_EQ(l->devices.size(), 1u);
  ASSERT_EQ(l->devices[0].ports.size(), 1u);
  EXPECT_EQ(l->devices[0].ports[0].gids.size(), 1u);
  const std::string r = Reasons(d);
  EXPECT_NE(r.find("before any 'hca_id:'"), std::string::npos);
  EXPECT_NE(r.find("is not a 64-bit GUID"), std::string::npos);
  EXPECT_NE(r.find("phys_port_cnt"), std::string::npos);
  EXPECT_NE(r.find("before any 'port:' line"), std::string::npos);
  EXPECT_NE(r.find("state 'PORT_ACTIVE (4' is malformed"), std::string::npos);
  EXPECT_NE(r.find("is not an MTU in bytes"), std::string::npos);
  EXPECT_NE(r.find("is not an IPv6-form GID"), std::string::npos);
  EXPECT_NE(r.find("GID line is not"), std::string::npos);
  EXPECT_NE(r.find("GID index 1 repeated"), std::string::npos);
  EXPECT_NE(r.find("port 1 of mlx5_0 repeated"), std::string::npos);
  EXPECT_NE(r.find("hca_id without a device name"), std::string::npos);
}

// ------------------------------------------------------------------------------------------
// show_gids
// ------------------------------------------------------------------------------------------

TEST(ShowGids, HuskyRoceRdma0) {
  Diagnostics diag;
  const std::string text = Slurp(kShowGids);
  EXPECT_EQ(SniffRdmaTool(text), RdmaToolKind::kShowGids);
  auto g = ParseShowGids(text, kShowGids, diag);
  ASSERT_TRUE(g.ok()) << g.error().ToString();
  ExpectCounts(g->counts, 4, 4);
  EXPECT_EQ(g->n_gids_found, 4);
  ASSERT_EQ(g->gids.size(), 4u);
  const GidEntry& a = g->gids[0];
  EXPECT_EQ(a.dev, "mlx5_0");
  EXPECT_EQ(a.port, 1);
  EXPECT_EQ(a.index, 0);
  EXPECT_EQ(a.gid, "fe80:0000:0000:0000:0ac0:ebff:fe21:03da");
  EXPECT_EQ(a.ipv4, "");
  EXPECT_EQ(a.version, "v1");
  EXPECT_EQ(a.netdev, "rdma0");
  EXPECT_EQ(a.line, 3);
  EXPECT_EQ(g->gids[1].version, "v2");
  const GidEntry& c = g->gids[3];
  EXPECT_EQ(c.index, 3);
  EXPECT_EQ(c.gid, "0000:0000:0000:0000:0000:ffff:c0a8:d3f2");
  EXPECT_EQ(c.ipv4, "192.168.211.242");
  EXPECT_EQ(c.version, "v2");
  EXPECT_EQ(c.netdev, "rdma0");
  EXPECT_EQ(diag.items().size(), 0u);
  // The writer reproduces the fixture byte for byte.
  EXPECT_EQ(WriteShowGids(g->gids), text);
}

TEST(ShowGids, RoundTripAndSpaceCopies) {
  std::vector<GidEntry> gids;
  GidEntry e;
  e.dev = "mlx5_1";
  e.port = 1;
  e.index = 7;
  e.gid = "0000:0000:0000:0000:0000:ffff:0a00:0001";
  e.ipv4 = "10.0.0.1";
  e.version = "v2";
  e.netdev = "";  // IB / no netdev
  gids.push_back(e);
  e.index = 8;
  e.ipv4.clear();
  e.gid = "fe80:0000:0000:0000:0000:0000:0000:0001";
  e.version = "v1";
  e.netdev = "ens1f0";
  gids.push_back(e);
  Diagnostics d;
  auto g = ParseShowGids(WriteShowGids(gids), "w", d);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(NoLines(g->gids), gids);
  EXPECT_EQ(g->n_gids_found, 2);
  // A copy with spaces instead of TABs, no header, and no n_gids_found.
  auto s = ParseShowGids("mlx5_0  1  3  0000:0000:0000:0000:0000:ffff:c0a8:d3f2  192.168.211.242  v2  rdma0\n", "s", d);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->gids.size(), 1u);
  EXPECT_EQ(s->gids[0].ipv4, "192.168.211.242");
  EXPECT_EQ(s->n_gids_found, -1);
}

TEST(ShowGids, BadInputs) {
  Diagnostics diag;
  EXPECT_FALSE(ParseShowGids("", "empty", diag).ok());
  EXPECT_FALSE(ParseShowGids("hello world\n", "junk", diag).ok());
  EXPECT_FALSE(ParseShowGids(Slurp(kIbstatCx3), "ibstat", diag).ok());
  EXPECT_EQ(diag.rejected_total(), 0);
  const std::string text =
      "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n"
      "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n"
      "mlx5_0\t1\t0\tfe80:0000:0000:0000:0ac0:ebff:fe21:03da\t\t\tv1\trdma0\n"        // ok
      "mlx5_0\t1\t0\tfe80:0000:0000:0000:0ac0:ebff:fe21:03da\t\t\tv2\trdma0\n"        // repeated index
      "mlx5_0\t1\t2\t0000:0000:0000:0000:0000:ffff:c0a8:d3f2\t192.168.211.999  \tv1\trdma0\n"  // bad IPv4
      "mlx5_0\t1\t3\tzzzz:0000:0000:0000:0000:ffff:c0a8:d3f2\t\t\tv2\trdma0\n"        // bad GID
      "mlx5_0\tx\t4\tfe80:0000:0000:0000:0ac0:ebff:fe21:03da\t\t\tv2\trdma0\n"        // bad port
      "mlx5_0\t1\t99999999\tfe80:0000:0000:0000:0ac0:ebff:fe21:03da\t\t\tv2\trdma0\n" // huge index
      "mlx5_0\t1\t5\tfe80:0000:0000:0000:0ac0:ebff:fe21:03da\t\t\tv3\trdma0\n"        // bad VER
      "mlx5_0\t1\t6\n"                                                                // truncated
      "mlx5_0\t1\t7\t0000:0000:0000:0000:0000:ffff:c0a8:d3f3\t192.168.211.242  \tv2\trdma0\n"  // ok, IPv4 mismatch warned
      "n_gids_found=5\n";
  Diagnostics d;
  auto g = ParseShowGids(text, "bad", d);
  ASSERT_TRUE(g.ok());
  ExpectCounts(g->counts, 9, 2);
  EXPECT_EQ(g->n_gids_found, 5);
  const std::string r = Reasons(d);
  EXPECT_NE(r.find("index 0 repeated"), std::string::npos);
  EXPECT_NE(r.find("is not an IPv4 address"), std::string::npos);
  EXPECT_NE(r.find("is not a GID"), std::string::npos);
  EXPECT_NE(r.find("PORT 'x'"), std::string::npos);
  EXPECT_NE(r.find("INDEX '99999999'"), std::string::npos);
  EXPECT_NE(r.find("is not v1 or v2"), std::string::npos);
  EXPECT_NE(r.find("expected 5 to 7 cells"), std::string::npos);
  const std::string w = Reasons(d, Severity::kWarning);
  EXPECT_NE(w.find("does not match the GID"), std::string::npos);
  EXPECT_NE(w.find("n_gids_found says 5 but 2"), std::string::npos);
}

// ------------------------------------------------------------------------------------------
// Detection and GUIDs
// ------------------------------------------------------------------------------------------

TEST(SniffRdmaTool, Kinds) {
  EXPECT_EQ(SniffRdmaTool(""), RdmaToolKind::kUnknown);
  EXPECT_EQ(SniffRdmaTool("hello\n"), RdmaToolKind::kUnknown);
  EXPECT_EQ(SniffRdmaTool(std::string("\x00\x00\x00\x00", 4)), RdmaToolKind::kUnknown);
  EXPECT_EQ(SniffRdmaTool("[{\"ifname\":\"x\"}]"), RdmaToolKind::kUnknown);
  EXPECT_EQ(SniffRdmaTool(Slurp(kQp2024)), RdmaToolKind::kRdmaResQp);
  EXPECT_EQ(SniffRdmaTool(Slurp(kQpCxgb4)), RdmaToolKind::kRdmaResQp);
  EXPECT_EQ(SniffRdmaTool(Slurp(kIbstatCx3)), RdmaToolKind::kIbstat);
  EXPECT_EQ(SniffRdmaTool(Slurp(kIbstatRoce)), RdmaToolKind::kIbstat);
  EXPECT_EQ(SniffRdmaTool(Slurp(kDevinfoV)), RdmaToolKind::kIbvDevinfo);
  EXPECT_EQ(SniffRdmaTool(Slurp(kTdDevinfoRoce)), RdmaToolKind::kIbvDevinfo);
  EXPECT_EQ(SniffRdmaTool("$ show_gids\n" + Slurp(kShowGids)), RdmaToolKind::kShowGids);
}

// Shell prompt lines running the tool are preamble: no record, a warning with the line, and the host
// of a `user@host` prompt; a prompt running another command is still a bad row.
TEST(RdmaToolPrompts, PromptLinesAreSkippedAsPreambleWithTheirHost) {
  {
    Diagnostics diag;
    auto t = ParseShowGids("$ show_gids\nroot@gpu-node-7:~# sudo /usr/sbin/show_gids mlx5_0\n" + Slurp(kShowGids),
                           "g.txt", diag);
    ASSERT_TRUE(t.ok());
    Diagnostics plain_diag;
    auto plain = ParseShowGids(Slurp(kShowGids), "p.txt", plain_diag);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(t->counts.read, plain->counts.read);
    EXPECT_EQ(t->counts.rejected, plain->counts.rejected);
    EXPECT_EQ(t->prompt_lines, 2);
    EXPECT_EQ(t->prompt_host, "gpu-node-7");
    int prompt_warnings = 0;
    for (const Diagnostic& d : diag.items()) {
      if (d.reason.find("shell prompt running show_gids") != std::string::npos) {
        ++prompt_warnings;
        EXPECT_TRUE(d.line == 1 || d.line == 2) << d.ToString();
      }
    }
    EXPECT_EQ(prompt_warnings, 2);
  }
  {
    Diagnostics diag;
    auto d = ParseIbvDevinfo("[root@node3 ~]# ibv_devinfo -v\n" + Slurp(kDevinfoV), "d.txt", diag);
    ASSERT_TRUE(d.ok());
    Diagnostics plain_diag;
    auto plain = ParseIbvDevinfo(Slurp(kDevinfoV), "p.txt", plain_diag);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(d->counts.read, plain->counts.read);
    EXPECT_EQ(d->counts.rejected, plain->counts.rejected);
    EXPECT_EQ(d->prompt_lines, 1);
    EXPECT_EQ(d->prompt_host, "node3");
  }
  {
    Diagnostics diag;
    auto d = ParseIbvDevinfo("$ ls /sys/class/infiniband\n" + Slurp(kDevinfoV), "d.txt", diag);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->prompt_lines, 0);
    Diagnostics plain_diag;
    auto plain = ParseIbvDevinfo(Slurp(kDevinfoV), "p.txt", plain_diag);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(d->counts.rejected, plain->counts.rejected + 1);  // another command: text before any hca_id
  }
}

// A shell prompt that starts with '[' (`[root@host ~]# show_gids`, a real paste in
// testdata/real/rdma_tools) is no JSON: the table under it is still found. JSON arrays still are.
TEST(SniffRdmaTool, BracketedShellPromptIsNotJson) {
  const std::string real = std::string(TOPOSCOPE_TESTDATA) +
                           "/real/rdma_tools/show_gids_cx6_ipv4_n_gids_found_prompt_spectrumscale_pr4_excerpt.txt";
  EXPECT_EQ(SniffRdmaTool(Slurp(real)), RdmaToolKind::kShowGids);
  EXPECT_EQ(SniffRdmaTool("[root@node ~]# ibstat\n" + Slurp(kIbstatCx3)), RdmaToolKind::kIbstat);
  EXPECT_EQ(SniffRdmaTool("[root@node ~]# ibv_devinfo -v\n" + Slurp(kDevinfoV)), RdmaToolKind::kIbvDevinfo);
  EXPECT_EQ(SniffRdmaTool("[\n  {\"ifname\":\"mlx5_0\",\"lqpn\":5}\n]\n"), RdmaToolKind::kRdmaResQp);
  EXPECT_EQ(SniffRdmaTool("[ ]\n"), RdmaToolKind::kUnknown);
  EXPECT_EQ(SniffRdmaTool("[{\"ifname\":\"x\"}]"), RdmaToolKind::kUnknown);
}

TEST(ParseGuid, Forms) {
  EXPECT_EQ(ParseGuid("0x5aa2e1fffedae626"), 0x5aa2e1fffedae626ULL);
  EXPECT_EQ(ParseGuid("e41d:2d03:00e0:c740"), 0xe41d2d0300e0c740ULL);
  EXPECT_FALSE(ParseGuid("0x"));
  EXPECT_FALSE(ParseGuid("0x1ffffffffffffffff"));
  EXPECT_FALSE(ParseGuid("e41d:2d03:00e0"));
  EXPECT_FALSE(ParseGuid("e41d:2d03:00e0:c74"));
  EXPECT_FALSE(ParseGuid("e41d:2d03:00e0:c74g"));
  EXPECT_FALSE(ParseGuid(""));
}

}  // namespace rdma_tools_test
}  // namespace toposcope::formats
