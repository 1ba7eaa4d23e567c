// Tests of the simulator's third part (sim/rdma_traffic): every RDMA file reads back through the
// formats readers (captures, NCCL logs, rdma res, inventory), agrees with truth.json "rdma", and the
// same seed gives the same bytes.
#include "toposcope/sim/rdma_traffic.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/formats/rdma/inventory_csv.h"
#include "toposcope/formats/nccl/nccl_log.h"
#include "toposcope/formats/rdma/pcap_capture.h"
#include "toposcope/formats/rdma/rdma_tools.h"
#include "toposcope/formats/rdma/roce_packet.h"
#include "toposcope/sim/simulate.h"
#include "temp_dir.h"

namespace toposcope::sim {
namespace rdma_traffic_test {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ReadAll(const std::string& path) {
  Result<std::string> text = ReadFileText(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? *text : std::string();
}

SimOptions SmallOptions(uint64_t seed) {
  SimOptions o;
  o.seed = seed;
  o.hosts = 8;
  o.faults = 0;
  o.with_rdma = true;
  o.rdma_window_ms = 6;
  o.loss_rate = 0.002;  // enough losses to see NAKs in a short window
  return o;
}

// Simulates once per (options) and keeps the result for the tests of this file.
struct Simulated {
  std::string dir;
  SimSummary summary;
  json truth;
};

const Simulated& SmallRun() {
  static TempDir dir("small");
  static Simulated sim = [] {
    Simulated s;
    s.dir = dir.str();
    Result<SimSummary> r = Simulate(SmallOptions(11), s.dir);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
    if (r.ok()) s.summary = *r;
    s.truth = json::parse(ReadAll(s.dir + "/truth.json"));
    return s;
  }();
  return sim;
}

TEST(RdmaHelpers, FlowLabelAndSourcePortAreSymmetric) {
  for (uint32_t a : {1u, 0x11u, 0x1234u, 0xabcdefu}) {
    for (uint32_t b : {2u, 0x3039u, 0xfffffeu}) {
      EXPECT_EQ(RdmaCalcFlowLabel(a, b), RdmaCalcFlowLabel(b, a));
      EXPECT_EQ(RoceUdpSourcePort(a, b), RoceUdpSourcePort(b, a));
      EXPECT_GE(RoceUdpSourcePort(a, b), 0xC000);
      EXPECT_LE(RdmaCalcFlowLabel(a, b), 0xFFFFFu);
    }
  }
  // fl = 0x1234 * 0x5678 = 0x06260060; ^ >>20 = 0x62; -> 0x06260002 & 0xFFFFF = 0x60002.
  EXPECT_EQ(RdmaCalcFlowLabel(0x1234, 0x5678), 0x60002u);
  // sport = (0x0002 ^ (0x60000 >> 14 = 0x18)) | 0xC000 = 0xC01A.
  EXPECT_EQ(RdmaFlowLabelToUdpSport(0x60002), 0xC01A);
}

TEST(RdmaOptions, Validation) {
  SimOptions o;
  o.with_rdma = true;
  EXPECT_TRUE(ValidateRdmaOptions(o).ok());
  o.hosts = kMaxRdmaHosts + 1;
  EXPECT_FALSE(ValidateRdmaOptions(o).ok());
  o = SimOptions{};
  o.with_rdma = true;
  o.nccl_version = "2.99.0";
  EXPECT_FALSE(ValidateRdmaOptions(o).ok());
  o.nccl_version = "2.16.5";
  o.nccl_channels = 0;
  EXPECT_FALSE(ValidateRdmaOptions(o).ok());
  o.nccl_channels = 4;
  o.loss_rate = 0.5;
  EXPECT_FALSE(ValidateRdmaOptions(o).ok());
  o.loss_rate = 0;
  EXPECT_TRUE(ValidateRdmaOptions(o).ok());
  o.with_rdma = false;
  o.hosts = 100000;
  EXPECT_TRUE(ValidateRdmaOptions(o).ok());
  TempDir dir("invalid");
  SimOptions bad = SmallOptions(1);
  bad.rdma_window_ms = 0;
  EXPECT_FALSE(Simulate(bad, dir.str()).ok());
}

TEST(RdmaPlanTest, RingsTreesAndAddresses) {
  Result<Cluster> c = BuildCluster(SmallOptions(3));
  ASSERT_TRUE(c.ok());
  const RdmaPlan plan = PlanRdma(*c, nullptr);
  EXPECT_EQ(plan.world, 64);
  ASSERT_EQ(plan.rings.size(), 2u);
  for (const RdmaRing& ring : plan.rings) {
    EXPECT_EQ(ring.ranks.size(), 64u);
    EXPECT_EQ(ring.ranks.front(), 0);
    EXPECT_EQ(std::set<int>(ring.ranks.begin(), ring.ranks.end()).size(), 64u);
    // Inside a host the ranks are consecutive GPUs of that host.
    for (size_t i = 0; i + 1 < ring.ranks.size(); ++i) {
      const int a = ring.ranks[i], b = ring.ranks[i + 1];
      if (a / 8 == b / 8) {
        EXPECT_EQ(((a % 8) - (b % 8) + 8) % 8, 1) << a << "->" << b;
      }
    }
  }
  // The odd channel reverses the hosts under each leaf: a different inter-host order.
  EXPECT_EQ(plan.rings[0].hosts, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(plan.rings[1].hosts, (std::vector<int>{0, 7, 6, 5, 4, 3, 2, 1}));
  // Trees: exactly one root, every other rank has a parent, parents list it as a child.
  for (const RdmaTree& t : plan.trees) {
    int roots = 0;
    for (int r = 0; r < plan.world; ++r) {
      const int up = t.up[static_cast<size_t>(r)];
      if (up < 0) {
        ++roots;
        EXPECT_EQ(r, t.root);
        continue;
      }
      const auto& d = t.down[static_cast<size_t>(up)];
      EXPECT_TRUE(d[0] == r || d[1] == r || d[2] == r) << "rank " << r << " up " << up;
    }
    EXPECT_EQ(roots, 1);
  }
  // Btree over 8 nodes: node 0 is the root of tree 0; the mirrored tree has node 7 as its root.
  EXPECT_EQ(plan.rank_host[static_cast<size_t>(plan.trees[0].root)], 0);
  EXPECT_EQ(plan.rank_host[static_cast<size_t>(plan.trees[1].root)], 7);
  EXPECT_EQ(plan.nics[0][0].ip.ToString(), "10.0.0.1");
  EXPECT_EQ(plan.nics[2][1].ip.ToString(), "10.1.0.3");
  // Ring QP pairs: one per channel and cross-host hop.
  int ring_pairs = 0;
  for (const RdmaQpPair& p : plan.qp_pairs) {
    if (p.kind != RdmaPairKind::kRing) continue;
    ++ring_pairs;
    EXPECT_NE(p.a.host, p.b.host);
    // Each QP has its own UDP source port in RoCEv2's 0xC000..0xFFFF range.
    EXPECT_GE(p.udp_sport, 0xC000);
    EXPECT_GE(p.udp_sport_b, 0xC000);
  }
  EXPECT_EQ(ring_pairs, 16);
}

TEST(RdmaFiles, DeterministicBytes) {
  TempDir a("det_a"), b("det_b"), c("det_c");
  SimOptions o = SmallOptions(5);
  o.hosts = 6;
  o.rdma_window_ms = 3;
  ASSERT_TRUE(Simulate(o, a.str()).ok());
  ASSERT_TRUE(Simulate(o, b.str()).ok());
  o.seed = 6;
  ASSERT_TRUE(Simulate(o, c.str()).ok());
  int compared = 0, differ = 0;
  for (const auto& e : fs::recursive_directory_iterator(a.str())) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), a.str()).string();
    EXPECT_EQ(ReadAll(e.path().string()), ReadAll(b.str() + "/" + rel)) << rel;
    ++compared;
    if (fs::exists(c.str() + "/" + rel) && ReadAll(e.path().string()) != ReadAll(c.str() + "/" + rel)) ++differ;
  }
  EXPECT_GT(compared, 20);
  EXPECT_GT(differ, 10);
}

TEST(RdmaFiles, SummaryListsTheFiles) {
  const Simulated& s = SmallRun();
  ASSERT_EQ(s.summary.hosts.size(), 8u);
  int logs = 0, res = 0, caps = 0;
  for (const SimHostSummary& h : s.summary.hosts) {
    for (const std::string& f : h.files) {
      EXPECT_TRUE(fs::exists(s.dir + "/" + f)) << f;
      if (f.find("/nccl-rank") != std::string::npos || f.find(kNcclDebugLogFile) != std::string::npos) ++logs;
      if (f.find(kRdmaResQpFile) != std::string::npos) ++res;
      if (f.find(".pcap") != std::string::npos) ++caps;
    }
  }
  EXPECT_EQ(logs, 4 * 8 + 4);  // even hosts: a log per rank; odd hosts: one log
  EXPECT_GT(res, 0);
  EXPECT_LT(res, 8);
  EXPECT_EQ(caps, 16);  // 8 hosts x the 2 NICs of their channels
  EXPECT_TRUE(fs::exists(s.dir + "/" + kInventoryFile));
  const json& r = s.truth["rdma"];
  EXPECT_EQ(r["nccl"]["era"], "2.16");  // odd seed
  EXPECT_EQ(r["shared_files"].size(), 2u);  // inventory + leaf00's uplink
}

// Packets of one capture, with its summary.
struct CaptureRead {
  formats::CaptureSummary summary;
  std::vector<formats::RocePacket> packets;
  Diagnostics diag;
};

CaptureRead ReadCap(const std::string& path, bool icrc) {
  CaptureRead c;
  formats::CaptureOptions opts;
  opts.check_icrc = icrc;
  Result<formats::CaptureSummary> r =
      formats::ReadCapture(path, [&](const formats::RocePacket& p) { c.packets.push_back(p); }, c.diag, opts);
  EXPECT_TRUE(r.ok()) << path;
  if (r.ok()) c.summary = *r;
  return c;
}

TEST(RdmaFiles, CapturesReadBackClean) {
  const Simulated& s = SmallRun();
  const json& caps = s.truth["rdma"]["captures"];
  ASSERT_EQ(caps.size(), 17u);
  int full = 0;
  int64_t naks = 0, acks = 0, data = 0, fifo = 0, reads = 0, sends = 0, cnps = 0, ce = 0;
  for (const json& cap : caps) {
    const bool full_length = cap["snaplen"].get<int>() > 70000;
    CaptureRead c = ReadCap(s.dir + "/" + cap["file"].get<std::string>(), full_length);
    EXPECT_EQ(c.summary.malformed, 0) << cap["file"];
    EXPECT_EQ(c.summary.not_roce, 0);
    EXPECT_FALSE(c.summary.broke_off);
    EXPECT_EQ(c.summary.roce, cap["packets"].get<int64_t>()) << cap["file"];
    EXPECT_EQ(c.summary.counts.accepted + c.summary.counts.rejected, c.summary.counts.read);
    EXPECT_GT(c.summary.roce, 100) << cap["file"];
    EXPECT_LE(c.summary.roce, 20000);
    EXPECT_GE(c.summary.first_ts_ns, s.truth["rdma"]["window"]["start_ns"].get<int64_t>());
    EXPECT_LT(c.summary.last_ts_ns, s.truth["rdma"]["window"]["end_ns"].get<int64_t>());
    EXPECT_EQ(static_cast<int64_t>(fs::file_size(s.dir + "/" + cap["file"].get<std::string>())),
              cap["bytes"].get<int64_t>());
    if (full_length) {
      ++full;
      EXPECT_EQ(c.summary.truncated, 0);
      EXPECT_EQ(c.summary.icrc_bad, 0);
      for (const auto& p : c.packets) EXPECT_EQ(p.icrc, formats::RocePacket::Icrc::kOk);
    } else {
      EXPECT_GT(c.summary.truncated, 0);
    }
    int64_t prev_ts = 0;
    for (const auto& p : c.packets) {
      EXPECT_GE(p.ts_ns, prev_ts);
      prev_ts = p.ts_ns;
      EXPECT_EQ(p.udp_dst_port, formats::kRoceV2UdpPort);
      EXPECT_GE(p.udp_src_port, 0xC000);
      if (p.opcode == formats::roce_op::kAcknowledge) {
        (formats::IsNak(p) ? naks : acks) += 1;
        if (formats::IsNak(p)) {
          EXPECT_EQ(p.aeth_syndrome, 0x60);
        }
      }
      if (p.opcode == formats::roce_op::kWriteFirst || p.opcode == formats::roce_op::kWriteOnlyImm) ++data;
      if (p.opcode == formats::roce_op::kWriteOnly) {
        ++fifo;
        EXPECT_EQ(p.payload_bytes, 32u);
      }
      if (p.opcode == formats::roce_op::kReadRequest) ++reads;
      if (p.opcode == formats::roce_op::kSendOnly || p.opcode == formats::roce_op::kSendFirst) ++sends;
      if (p.opcode == formats::roce_op::kCnp) ++cnps;
      if (p.ip_ecn_ce) ++ce;
      if (p.opcode == formats::roce_op::kWriteMiddle) {
        EXPECT_EQ(p.payload_bytes, 4096u);
      }
    }
  }
  EXPECT_EQ(full, 1);
  EXPECT_GT(acks, 100);
  EXPECT_GT(naks, 0);
  EXPECT_GT(data, 500);
  EXPECT_GT(fifo, 500);
  EXPECT_GT(reads + sends, 0);
  EXPECT_GT(cnps, 0);
  EXPECT_GT(ce, 0);
}

TEST(RdmaFiles, PsnContinuityAndAckAddressing) {
  const Simulated& s = SmallRun();
  const json& r = s.truth["rdma"];
  // Flows by (src ip, dst ip, dest_qp) -> (udp sport, lost PSNs, kind); requesters by (ip, qpn).
  std::map<std::tuple<std::string, std::string, uint32_t>, const json*> flows;
  std::map<std::pair<std::string, uint32_t>, uint16_t> sport_of_qp;  // (ip, qpn) -> sport
  for (const json& f : r["flows"]) {
    flows[{f["src"], f["dst"], f["dest_qp"].get<uint32_t>()}] = &f;
    sport_of_qp[{f["src"], f["src_qp"].get<uint32_t>()}] = f["udp_sport"].get<uint16_t>();
  }
  int64_t checked = 0, gaps = 0, restarts = 0, acks = 0;
  for (const json& cap : r["captures"]) {
    CaptureRead c = ReadCap(s.dir + "/" + cap["file"].get<std::string>(), false);
    std::map<std::tuple<std::string, std::string, uint32_t>, uint32_t> last_psn;
    for (const auto& p : c.packets) {
      const auto key = std::make_tuple(p.src_ip.ToString(), p.dst_ip.ToString(), p.dest_qp);
      auto fit = flows.find(key);
      ASSERT_NE(fit, flows.end()) << p.src_ip.ToString() << " -> " << p.dst_ip.ToString() << " qp " << p.dest_qp;
      const json& flow = *fit->second;
      EXPECT_EQ(p.udp_src_port, flow["udp_sport"].get<uint16_t>());
      if (p.opcode == formats::roce_op::kAcknowledge || p.opcode == formats::roce_op::kCnp) {
        // An ACK/NAK/CNP goes to the QP that sent the requests: the flow's destination QP is a
        // requester with a flow of its own; the ACK leaves on the responder QP's own UDP source port.
        auto it = sport_of_qp.find({p.dst_ip.ToString(), p.dest_qp});
        ASSERT_NE(it, sport_of_qp.end());
        auto own = sport_of_qp.find({p.src_ip.ToString(), flow["src_qp"].get<uint32_t>()});
        ASSERT_NE(own, sport_of_qp.end());
        EXPECT_EQ(own->second, p.udp_src_port);
        ++acks;
        continue;
      }
      if (!formats::IsRequest(p.opcode) || p.opcode == formats::roce_op::kReadRequest) continue;
      if (flow["kind"] == "background") continue;  // SENDs interleave with reads elsewhere
      std::set<uint32_t> lost;
      for (const auto& v : flow["lost_psns"]) lost.insert(v.get<uint32_t>());
      auto lit = last_psn.find(key);
      if (lit != last_psn.end()) {
        const uint32_t prev = lit->second;
        const uint32_t next = (prev + 1) & 0xFFFFFF;
        if (p.psn == next) {
          ++checked;
        } else if (lost.count(p.psn) != 0) {
          ++restarts;  // go-back-N to a lost PSN
        } else if (lost.count(next) != 0 && p.psn == ((prev + 2) & 0xFFFFFF)) {
          ++gaps;  // the receiver's side never saw the lost packet
        } else {
          ADD_FAILURE() << cap["file"] << " qp " << p.dest_qp << ": psn " << p.psn << " after " << prev;
        }
      }
      last_psn[key] = p.psn;
    }
  }
  EXPECT_GT(checked, 5000);
  EXPECT_GT(gaps, 0);
  EXPECT_GT(restarts, 0);
  EXPECT_GT(acks, 100);
}

// Rebuilds the rings from every log's send connections (me -> next per channel).
TEST(RdmaFiles, SeveralQpsPerConnectionAsConnectXPutsThemOnTheWire) {
  TempDir dir("multi_qp");
  SimOptions o = SmallOptions(13);
  o.qps_per_connection = 4;
  o.rdma_window_ms = 3;
  o.congested_links = 0;  // a congested link's shaper may hold the send before the window into it
  ASSERT_TRUE(Simulate(o, dir.str()).ok());
  const json truth = json::parse(ReadAll(dir.str() + "/truth.json"));
  const json& r = truth["rdma"];
  // (src ip, dst ip, dest_qp) -> the flow's own port and its requester's initial PSN.
  std::map<std::tuple<std::string, std::string, uint32_t>, std::pair<uint16_t, uint32_t>> flows;
  int pairs = 0, ports_differ = 0;
  for (const json& p : r["qp_pairs"]) {
    const json& a = p["requester"];
    const json& b = p["responder"];
    flows[{a["ip"], b["ip"], b["qpn"].get<uint32_t>()}] = {p["udp_sport"].get<uint16_t>(), a["psn0"].get<uint32_t>()};
    flows[{b["ip"], a["ip"], a["qpn"].get<uint32_t>()}] = {p["udp_sport_b"].get<uint16_t>(), b["psn0"].get<uint32_t>()};
    ++pairs;
    ports_differ += p["udp_sport"] != p["udp_sport_b"] ? 1 : 0;
  }
  EXPECT_GT(pairs, 0);
  EXPECT_GE(ports_differ, pairs - 1);  // one port per QP: the two directions (almost) never share one
  int64_t requests = 0, acks = 0, with_ack_req = 0, starts_at_psn0 = 0, flows_seen = 0;
  for (const json& cap : r["captures"]) {
    CaptureRead c = ReadCap(dir.str() + "/" + cap["file"].get<std::string>(), false);
    std::set<std::tuple<std::string, std::string, uint32_t>> seen;
    for (const auto& p : c.packets) {
      const auto key = std::make_tuple(p.src_ip.ToString(), p.dst_ip.ToString(), p.dest_qp);
      auto it = flows.find(key);
      ASSERT_NE(it, flows.end());
      EXPECT_EQ(p.udp_src_port, it->second.first);  // every packet on its own QP's port
      if (formats::IsRequest(p.opcode)) {
        ++requests;
        with_ack_req += p.ack_req ? 1 : 0;
        if (seen.insert(key).second) {
          ++flows_seen;
          // The streams ran before the window: the capture does not begin at the initial PSN.
          starts_at_psn0 += p.psn == it->second.second ? 1 : 0;
        }
      }
      if (p.opcode == formats::roce_op::kAcknowledge) ++acks;
    }
  }
  EXPECT_GT(flows_seen, 0);
  EXPECT_EQ(starts_at_psn0, 0);
  // Coalesced ACKs: fewer ACKs than requests.
  EXPECT_GT(requests, 0);
  EXPECT_LT(acks, requests);
  EXPECT_GT(with_ack_req, 0);
}

TEST(RdmaFiles, NcclLogsReadBackWithTheTruthRings) {
  const Simulated& s = SmallRun();
  const json& r = s.truth["rdma"];
  const int world = r["nccl"]["world"];
  const int channels = r["nccl"]["channels"];
  std::map<int, std::map<int, int>> next;  // channel -> rank -> next
  std::map<int, std::vector<int>> order;   // rank 0's ring order lines
  std::map<int, std::map<int, int>> tree_up;
  std::set<uint32_t> qpns;
  std::map<std::string, std::string> oob;  // host -> OOB ip
  int comms = 0, logs = 0;
  std::set<std::string> versions;
  for (const json& h : s.truth["hosts"]) {
    for (const json& f : h["rdma_files"]) {
      const std::string file = f;
      if (file.find("nccl") == std::string::npos) continue;
      ++logs;
      Diagnostics diag;
      Result<formats::NcclLog> log = formats::ParseNcclLog(ReadAll(s.dir + "/" + file), file, diag);
      ASSERT_TRUE(log.ok()) << file;
      EXPECT_EQ(log->counts.rejected, 0) << file;
      EXPECT_EQ(log->counts.accepted, log->counts.read) << file;
      versions.insert(log->nccl_version);
      for (const auto& c : log->connections) {
        if (c.dir == formats::NcclConnection::Dir::kReceive) continue;
        next[c.channel][c.from_rank] = c.to_rank;
      }
      for (const auto& o : log->ring_orders) order[o.channel] = o.ranks;
      for (const auto& t : log->trees) tree_up[t.channel][t.me] = t.up;
      for (const auto& q : log->qpns) qpns.insert(q.qpn);
      for (const auto& u : log->net_using) {
        oob[u.at.host] = u.oob_ip;
        EXPECT_EQ(u.devices.size(), h["node_type"] == "h100-nvswitch" || h["node_type"] == "a100-nvswitch" ? 8u : 2u);
      }
      for (const auto& c : log->comms) {
        EXPECT_EQ(c.nranks, world);
        ++comms;
      }
    }
  }
  EXPECT_EQ(logs, 36);
  EXPECT_EQ(versions, (std::set<std::string>{"2.16.5+cuda11.8"}));
  EXPECT_EQ(comms, world);  // 2.16: one Init COMPLETE per rank
  ASSERT_EQ(static_cast<int>(r["rings"].size()), channels);
  for (const json& ring : r["rings"]) {
    const int c = ring["channel"];
    const std::vector<int> ranks = ring["ranks"];
    ASSERT_EQ(static_cast<int>(ranks.size()), world);
    std::vector<int> walked = {0};
    while (static_cast<int>(walked.size()) < world) walked.push_back(next[c][walked.back()]);
    EXPECT_EQ(walked, ranks) << "channel " << c;
    EXPECT_EQ(next[c][ranks.back()], 0);
    // Rank 0 prints the start of the ring (2.16: at most 20 ranks).
    ASSERT_FALSE(order[c].empty());
    EXPECT_EQ(order[c], std::vector<int>(ranks.begin(), ranks.begin() + static_cast<long>(order[c].size())));
  }
  for (const json& t : r["trees"]) {
    const int c = t["channel"];
    const std::vector<int> up = t["up"];
    for (int rank = 0; rank < world; ++rank) EXPECT_EQ(tree_up[c][rank], up[static_cast<size_t>(rank)]);
  }
  // 2.16 prints the sending side's QPs: every ring requester QP.
  for (const json& p : r["qp_pairs"]) {
    if (p["kind"] == "ring") {
      EXPECT_EQ(qpns.count(p["requester"]["qpn"].get<uint32_t>()), 1u);
    }
  }
  // The OOB address is the host's first NIC.
  for (const json& a : r["addresses"]) {
    if (a["nic"] == "mlx5_0") {
      EXPECT_EQ(oob[a["host"]], a["ip"]);
    }
  }
}

TEST(RdmaFiles, Era226Logs) {
  TempDir dir("era226");
  SimOptions o = SmallOptions(4);
  o.hosts = 4;
  o.rdma_window_ms = 2;
  o.nccl_channels = 4;
  o.qps_per_connection = 2;
  o.nccl_version = "2.26.2";
  ASSERT_TRUE(Simulate(o, dir.str()).ok());
  const json truth = json::parse(ReadAll(dir.str() + "/truth.json"));
  std::set<uint32_t> qpns;
  int rank_info = 0, complete = 0, logs = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir.str())) {
    const std::string name = e.path().filename().string();
    if (name.rfind("nccl-rank", 0) != 0 && name != kNcclDebugLogFile) continue;
    ++logs;
    Diagnostics diag;
    Result<formats::NcclLog> log = formats::ParseNcclLog(ReadAll(e.path().string()), name, diag);
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(log->counts.rejected, 0);
    EXPECT_EQ(log->nccl_version, "2.26.2+cuda12.8");
    EXPECT_TRUE(log->rings.empty());  // 2.26 prints no "Ring" lines
    for (const auto& q : log->qpns) {
      qpns.insert(q.qpn);
      EXPECT_EQ(q.mtu, 5);
      EXPECT_EQ(q.gid.substr(0, 4), "3 (0");
    }
    for (const auto& c : log->comms) {
      if (c.kind == formats::NcclCommInitKind::kRankInfo) ++rank_info;
      if (c.kind == formats::NcclCommInitKind::kInitComplete) ++complete;
    }
    for (const auto& c : log->connections) EXPECT_EQ(c.from_dev.size(), 1u);  // nvml index (2.18.3+)
  }
  EXPECT_EQ(logs, 2 * 8 + 2);
  EXPECT_EQ(rank_info, 32);
  EXPECT_EQ(complete, 32);
  // Both sides print their local QPs in 2.26.
  int ring_pairs = 0;
  for (const json& p : truth["rdma"]["qp_pairs"]) {
    if (p["kind"] != "ring") continue;
    ++ring_pairs;
    EXPECT_EQ(qpns.count(p["requester"]["qpn"].get<uint32_t>()), 1u);
    EXPECT_EQ(qpns.count(p["responder"]["qpn"].get<uint32_t>()), 1u);
  }
  EXPECT_EQ(ring_pairs, 4 * 4 * 2);  // channels x hops x QPs
  EXPECT_EQ(truth["rdma"]["nccl"]["era"], "2.26");
}

TEST(RdmaFiles, InventoryAndRdmaResParse) {
  const Simulated& s = SmallRun();
  const json& r = s.truth["rdma"];
  Diagnostics diag;
  Result<formats::Inventory> inv = formats::ParseInventoryCsv(ReadAll(s.dir + "/" + kInventoryFile), "inv", diag);
  ASSERT_TRUE(inv.ok());
  EXPECT_EQ(inv->counts.rejected, 0);
  std::set<std::string> inv_hosts;
  for (const auto& row : inv->rows) inv_hosts.insert(row.host);
  std::set<std::string> truth_inv;
  for (const auto& h : r["inventory_hosts"]) truth_inv.insert(h.get<std::string>());
  EXPECT_EQ(inv_hosts, truth_inv);
  EXPECT_LT(inv_hosts.size(), 8u);
  // Every RC QP of an rdma-res file is a truth QP pair end with the right peer.
  std::map<std::pair<std::string, uint32_t>, uint32_t> peer;  // (host/nic, lqpn) -> rqpn
  for (const json& p : r["qp_pairs"]) {
    const json& a = p["requester"];
    const json& b = p["responder"];
    peer[{a["host"].get<std::string>() + "/" + a["nic"].get<std::string>(), a["qpn"].get<uint32_t>()}] = b["qpn"];
    peer[{b["host"].get<std::string>() + "/" + b["nic"].get<std::string>(), b["qpn"].get<uint32_t>()}] = a["qpn"];
  }
  int files = 0, rc = 0;
  for (const json& host : r["rdma_res_hosts"]) {
    const std::string name = host;
    ++files;
    Result<formats::RdmaQpTable> t =
        formats::ParseRdmaResQp(ReadAll(s.dir + "/" + name + "/" + kRdmaResQpFile), name, diag);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->counts.rejected, 0);
    for (const auto& q : t->qps) {
      if (q.type != "RC") continue;
      ++rc;
      auto it = peer.find({name + "/" + q.dev, q.lqpn});
      ASSERT_NE(it, peer.end()) << name << " " << q.dev << " " << q.lqpn;
      ASSERT_TRUE(q.rqpn.has_value());
      EXPECT_EQ(*q.rqpn, it->second);
    }
  }
  EXPECT_GT(files, 0);
  EXPECT_GT(rc, 0);
}

TEST(RdmaFiles, TruthLinksAndFlows) {
  const Simulated& s = SmallRun();
  const json& r = s.truth["rdma"];
  std::map<std::string, int> modes;
  int backbone = 0;
  for (const json& l : r["links"]) {
    modes[l["mode"]]++;
    if (l["backbone"].get<bool>()) ++backbone;
    const std::string link = l["link"];
    const auto tilde = link.find('~');
    ASSERT_NE(tilde, std::string::npos);
    EXPECT_LT(link.substr(0, tilde), link.substr(tilde + 1));
  }
  EXPECT_EQ(modes["periodic_congestion"], 1);
  EXPECT_GT(modes["multi_tenant_contention"], 0);
  EXPECT_GT(modes["steady"], 0);
  EXPECT_GE(backbone, 8);
  std::map<std::string, int> kinds;
  for (const json& f : r["flows"]) kinds[f["kind"]]++;
  EXPECT_EQ(kinds["ring"], kinds["ack"]);
  EXPECT_GT(kinds["background"], 0);
}

// The default 16-host demo stays small and quick (CI runs it).
TEST(RdmaFiles, DefaultDemoBudget) {
  TempDir dir("demo");
  SimOptions o;
  o.with_rdma = true;
  const auto t0 = std::chrono::steady_clock::now();
  Result<SimSummary> r = Simulate(o, dir.str());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok());
  const json truth = json::parse(ReadAll(dir.str() + "/truth.json"));
  int64_t bytes = 0, packets = 0, max_packets = 0;
  for (const json& c : truth["rdma"]["captures"]) {
    bytes += c["bytes"].get<int64_t>();
    packets += c["packets"].get<int64_t>();
    max_packets = std::max(max_packets, c["packets"].get<int64_t>());
    EXPECT_FALSE(c["cut"].get<bool>());
  }
  std::printf("default demo: %zu captures, %lld packets, %lld bytes, %.2f s (whole simulation)\n",
              truth["rdma"]["captures"].size(), static_cast<long long>(packets), static_cast<long long>(bytes), secs);
  EXPECT_LE(max_packets, 20000);
  EXPECT_LE(bytes, 60ll << 20);
}

}  // namespace rdma_traffic_test
}  // namespace toposcope::sim
