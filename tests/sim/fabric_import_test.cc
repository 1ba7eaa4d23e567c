// Tests of sim/fabric_import: the simulator's fabric taken from the real ibnetdiscover dumps (NDR
// DGX H100 SuperPOD, QDR cluster) and topograph models. Counts against the dumps, every link with
// its real ports and rate, endpoint naming, probes whose hop lists follow real links with RTTs of
// the idle model, the re-written fabric.ibnet, the truth's leaves = the real leaf switches,
// determinism, and Simulate wired through SimOptions. Leaf recovery on the imported fabric is in
// tests/experiments/real_fabric_leaves_test.cc.
#include "toposcope/sim/fabric_import.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/formats/rdma/qp_state_log.h"
#include "toposcope/formats/fabric/topograph_model.h"
#include "toposcope/sim/simulate.h"

namespace toposcope::sim {
namespace fabric_import_test {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kIbDir = std::string(TOPOSCOPE_FIXTURES) + "/ibnetdiscover/";
const std::string kTopoDir = std::string(TOPOSCOPE_FIXTURES) + "/topograph_models/";
const std::string kSuperPod = kIbDir + "topograph_ndr_dgx_h100_superpod_40switch_582ca.out";
const std::string kQdr = kIbDir + "psmn_x5_qdr_11switch_89ca.topofile";
const std::string kIsolated = kIbDir + "topograph_gb200_isolated_hca_no_links.out";

std::string Read(const std::string& path) {
  Result<std::string> t = ReadFileText(path);
  EXPECT_TRUE(t.ok()) << path;
  return t.ok() ? *t : std::string();
}

formats::IbFabric ParseIb(const std::string& path) {
  Diagnostics diag;
  Result<formats::IbFabric> f = formats::ParseIbnetdiscover(Read(path), path, diag);
  EXPECT_TRUE(f.ok()) << path;
  return f.ok() ? *f : formats::IbFabric{};
}

formats::TopographModel ParseTopo(const std::string& path) {
  Diagnostics diag;
  Result<formats::TopographModel> m = formats::ParseTopographModel(Read(path), path, diag);
  EXPECT_TRUE(m.ok()) << path;
  return m.ok() ? *m : formats::TopographModel{};
}

SimOptions Options(uint64_t seed, bool faults = true) {
  SimOptions o;
  o.seed = seed;
  o.with_fabric = true;
  o.fabric_faults = faults;
  return o;
}

bool ValidName(const std::string& s) {
  if (s.empty()) return false;
  for (char ch : s) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                    ch == '_' || ch == '-';
    if (!ok) return false;
  }
  return true;
}

std::map<std::string, std::string> Files(const ImportedFabric& im, FabricStats* stats = nullptr) {
  std::map<std::string, std::string> out;
  for (RenderedFile& f : RenderImportedFabric(im, stats)) {
    EXPECT_EQ(out.count(f.path), 0U) << f.path;
    out[f.path] = std::move(f.text);
  }
  return out;
}

std::vector<formats::PathProbe> Probes(const std::map<std::string, std::string>& files) {
  std::vector<formats::PathProbe> out;
  for (const auto& [path, text] : files) {
    if (path.size() < 11 || path.substr(path.size() - 11) != "/probes.csv") continue;
    Diagnostics diag;
    Result<formats::PathProbeSummary> s =
        formats::ParsePathProbes(text, path, diag, [&](const formats::PathProbe& p) { out.push_back(p); });
    EXPECT_TRUE(s.ok()) << path;
    if (s.ok()) {
      EXPECT_EQ(s->counts.rejected, 0) << path;
    }
  }
  return out;
}

// Node id of a plan switch name (ibnetdiscover imports).
std::map<std::string, std::string> SwitchIdByName(const ImportedFabric& im) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < im.plan.switches.size(); ++i) out[im.plan.switches[i].name] = im.switch_ids[i];
  return out;
}

// Every (id, port) -> (peer id, peer port, rate) of the dump.
std::map<std::pair<std::string, int>, std::tuple<std::string, int, double>> PortMap(const formats::IbFabric& f) {
  std::map<std::pair<std::string, int>, std::tuple<std::string, int, double>> out;
  for (const auto& n : f.nodes) {
    for (const auto& p : n.ports) out[{n.id, p.port}] = {p.peer_guid, p.peer_port, p.rate_gbps};
  }
  return out;
}

TEST(FabricImport, SwitchAndEndpointNames) {
  EXPECT_EQ(ImportedSwitchName("MF0;A09-P1-IBLEAF-04-04:MQM9701/U1"), "A09-P1-IBLEAF-04-04");
  EXPECT_EQ(ImportedSwitchName("Voltaire 4036 # 4036-8C5C"), "4036-8C5C");
  EXPECT_EQ(ImportedSwitchName("Infiniscale-IV Mellanox Technologies"), "Infiniscale-IV_Mellanox_Technologies");
  EXPECT_EQ(ImportedEndpointName("a08-p1-dgx-04-c01", "mlx5_5", 4), "a08-p1-dgx-04-c01-mlx5_5");
  EXPECT_EQ(ImportedEndpointName("a08-p1-dgx-04-c01", "mlx5_5", 1), "a08-p1-dgx-04-c01");
  EXPECT_EQ(ImportedEndpointName("odd,host;x", "dev 1", 2), "odd_host_x-dev_1");
}

TEST(FabricImport, SuperPodCountsLinksAndNames) {
  const formats::IbFabric f = ParseIb(kSuperPod);
  ASSERT_EQ(f.SwitchCount(), 40);
  ASSERT_EQ(f.CaCount(), 582);
  Result<ImportedFabric> im = ImportIbFabric(f, Options(1), {}, kSuperPod);
  ASSERT_TRUE(im.ok()) << im.error().message;
  const FabricPlan& p = im->plan;
  const int sw = static_cast<int>(p.switches.size());
  EXPECT_EQ(sw, 40);

  // Leaves and spines: the real IBLEAF / IBSPINE switches.
  int leaves = 0, spines = 0;
  std::set<std::string> names;
  for (const FabricSwitch& s : p.switches) {
    EXPECT_TRUE(ValidName(s.name)) << s.name;
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_NE(s.desc.find(s.name), std::string::npos) << s.desc;
    if (s.role == "leaf") {
      ++leaves;
      EXPECT_NE(s.name.find("IBLEAF"), std::string::npos) << s.name;
    } else {
      ++spines;
      EXPECT_EQ(s.role, "spine");
      EXPECT_NE(s.name.find("IBSPINE"), std::string::npos) << s.name;
    }
  }
  EXPECT_EQ(leaves, 31);
  EXPECT_EQ(spines, 9);

  // Endpoints: every CA but the 40 SHARP aggregation nodes.
  EXPECT_EQ(im->skipped.size(), 40U);
  for (const SkippedCa& s : im->skipped) EXPECT_EQ(s.reason, "SHARP aggregation node") << s.desc;
  ASSERT_EQ(im->endpoints.size(), 542U);
  ASSERT_EQ(im->cluster.hosts.size(), 542U);
  std::set<std::string> endpoint_names;
  std::map<std::string, int> per_host;
  int unnamed = 0;
  for (const ImportedEndpoint& e : im->endpoints) {
    EXPECT_TRUE(ValidName(e.name)) << e.name;
    EXPECT_TRUE(endpoint_names.insert(e.name).second) << e.name;
    ++per_host[e.host];
    if (e.name.rfind("ca-", 0) == 0) ++unnamed;
  }
  EXPECT_EQ(unnamed, 69);  // "MT4129 ConnectX7   Mellanox Technologies"
  EXPECT_TRUE(std::is_sorted(im->endpoints.begin(), im->endpoints.end(),
                             [](const auto& a, const auto& b) { return a.name < b.name; }));
  // Rail-optimised: a DGX with four adapters on four different leaves.
  int multi = 0;
  for (const auto& [host, n] : per_host) multi += n > 1 ? 1 : 0;
  EXPECT_GE(multi, 100);
  std::map<std::string, int> index;
  for (size_t i = 0; i < im->endpoints.size(); ++i) index[im->endpoints[i].name] = static_cast<int>(i);
  ASSERT_EQ(index.count("a08-p1-dgx-04-c01-mlx5_5"), 1U);
  EXPECT_EQ(im->cluster.hosts[static_cast<size_t>(index["a08-p1-dgx-04-c01-mlx5_5"])].leaf, "A09-P1-IBLEAF-04-04");
  std::set<std::string> leaves_of_c01;
  for (size_t i = 0; i < im->endpoints.size(); ++i) {
    if (im->endpoints[i].host == "a08-p1-dgx-04-c01") leaves_of_c01.insert(im->cluster.hosts[i].leaf);
  }
  EXPECT_EQ(leaves_of_c01.size(), static_cast<size_t>(per_host["a08-p1-dgx-04-c01"]));
  EXPECT_GE(leaves_of_c01.size(), 2U);

  // Links: every switch-switch link of the dump once, plus one host link per endpoint, with the
  // real ports and rates.
  int64_t dump_switch_links = 0;
  for (const formats::IbLink& l : formats::IbLinks(f)) dump_switch_links += (l.a_id[0] == 'S' && l.b_id[0] == 'S') ? 1 : 0;
  int64_t host_links = 0, switch_links = 0;
  const auto ports = PortMap(f);
  auto id_of = [&](int node) {
    return node < sw ? im->switch_ids[static_cast<size_t>(node)] : im->endpoints[static_cast<size_t>(node - sw)].ca_id;
  };
  for (const FabricLink& l : p.links) {
    (l.kind == "host" ? host_links : switch_links) += 1;
    const auto it = ports.find({id_of(l.a), l.a_port});
    ASSERT_NE(it, ports.end());
    EXPECT_EQ(std::get<0>(it->second), id_of(l.b));
    EXPECT_EQ(std::get<1>(it->second), l.b_port);
    if (static_cast<int>(&l - p.links.data()) != p.degraded_link) {
      EXPECT_DOUBLE_EQ(std::get<2>(it->second), l.rate_gbps);
    }
    EXPECT_GT(l.latency_us, 0.0);
    if (l.kind == "host") {
      EXPECT_GE(l.length_m, 1.0);
      EXPECT_LE(l.length_m, 3.0);
    } else {
      EXPECT_EQ(l.kind, "leaf-spine");
      EXPECT_GE(l.length_m, 10.0);
      EXPECT_LE(l.length_m, 50.0);
    }
  }
  EXPECT_EQ(host_links, 542);
  EXPECT_EQ(switch_links, dump_switch_links);
  std::printf("SuperPOD: %d switches (%d leaves, %d spines), %zu endpoints (%d unnamed), %zu skipped, "
              "%lld switch links, %lld host links\n",
              sw, leaves, spines, im->endpoints.size(), unnamed, im->skipped.size(),
              static_cast<long long>(switch_links), static_cast<long long>(host_links));
  for (const FabricFault& ft : p.faults) std::printf("  fault %s %s: %s\n", FabricFaultKindName(ft.kind).data(), ft.element.c_str(), ft.detail.c_str());
  for (const std::string& n : im->notes) std::printf("  note: %s\n", n.c_str());
}

TEST(FabricImport, QdrCounts) {
  const formats::IbFabric f = ParseIb(kQdr);
  Result<ImportedFabric> im = ImportIbFabric(f, Options(3), {}, kQdr);
  ASSERT_TRUE(im.ok()) << im.error().message;
  EXPECT_EQ(im->plan.switches.size(), 11U);
  EXPECT_EQ(im->endpoints.size(), 89U);  // every CA is unnamed ("MT25408 ConnectX Mellanox Technologies")
  EXPECT_TRUE(im->skipped.empty());
  std::set<std::string> names;
  int leaves = 0;
  for (const FabricSwitch& s : im->plan.switches) {
    EXPECT_TRUE(ValidName(s.name)) << s.name;
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    leaves += s.role == "leaf" ? 1 : 0;
  }
  EXPECT_EQ(leaves, 6);
  EXPECT_EQ(names.count("4036-8C5C"), 1U);
  EXPECT_EQ(names.count("hoibp0013"), 1U);
  for (const ImportedEndpoint& e : im->endpoints) EXPECT_EQ(e.name.rfind("ca-", 0), 0U) << e.name;
  // Rates as printed: switch links 4x QDR (40 Gb/s), CA links 4x DDR (20) or 4x QDR (40).
  const auto ports = PortMap(f);
  const int sw = static_cast<int>(im->plan.switches.size());
  for (const FabricLink& l : im->plan.links) {
    const std::string a = im->switch_ids[static_cast<size_t>(l.a)];
    const std::string b = l.b < sw ? im->switch_ids[static_cast<size_t>(l.b)] : im->endpoints[static_cast<size_t>(l.b - sw)].ca_id;
    const auto it = ports.find({a, l.a_port});
    ASSERT_NE(it, ports.end());
    EXPECT_EQ(std::get<0>(it->second), b);
    EXPECT_EQ(std::get<1>(it->second), l.b_port);
    if (static_cast<int>(&l - im->plan.links.data()) == im->plan.degraded_link) continue;
    EXPECT_DOUBLE_EQ(l.rate_gbps, std::get<2>(it->second));
    if (l.kind != "host") {
      EXPECT_DOUBLE_EQ(l.rate_gbps, 40.0);
    }
  }
  int64_t switch_links = 0;
  for (const formats::IbLink& l : formats::IbLinks(f)) switch_links += (l.a_id[0] == 'S' && l.b_id[0] == 'S') ? 1 : 0;
  EXPECT_EQ(static_cast<int64_t>(im->plan.links.size()), 89 + switch_links);
  std::printf("QDR: 11 switches (%d leaves), 89 endpoints, %lld switch links\n", leaves,
              static_cast<long long>(switch_links));
}

TEST(FabricImport, IsolatedAdapterFailsClearly) {
  Result<ImportedFabric> im = ImportIbFabric(ParseIb(kIsolated), Options(1), {}, kIsolated);
  ASSERT_FALSE(im.ok());
  EXPECT_NE(im.error().message.find("no switch"), std::string::npos) << im.error().message;
}

// Probe hop lists follow real links; RTTs are at least the idle RTT of the links crossed and the
// fastest probe of a pair is close to it.
void CheckProbes(const ImportedFabric& im, const std::vector<formats::PathProbe>& probes) {
  const FabricPlan& p = im.plan;
  const int sw = static_cast<int>(p.switches.size());
  std::map<std::string, int> node;
  for (int s = 0; s < sw; ++s) node[p.switches[static_cast<size_t>(s)].name] = s;
  for (size_t e = 0; e < im.endpoints.size(); ++e) node[im.endpoints[e].name] = sw + static_cast<int>(e);
  // Per node pair the latencies of the links between them (parallel links).
  std::map<std::pair<int, int>, std::vector<double>> lat;
  for (const FabricLink& l : p.links) {
    lat[{std::min(l.a, l.b), std::max(l.a, l.b)}].push_back(l.latency_us);
  }
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> pair_min;  // min rtt, idle hi
  ASSERT_FALSE(probes.empty());
  for (const formats::PathProbe& pr : probes) {
    std::vector<int> path;
    ASSERT_EQ(node.count(pr.src), 1U) << pr.src;
    ASSERT_EQ(node.count(pr.dst), 1U) << pr.dst;
    path.push_back(node[pr.src]);
    for (const std::string& h : pr.hops) {
      ASSERT_EQ(node.count(h), 1U) << h;
      path.push_back(node[h]);
    }
    path.push_back(node[pr.dst]);
    ASSERT_GE(path.size(), 3U);
    EXPECT_EQ(path[1], p.host_switch[static_cast<size_t>(path.front() - sw)]);
    EXPECT_EQ(path[path.size() - 2], p.host_switch[static_cast<size_t>(path.back() - sw)]);
    double lo = 0, hi = 0;
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      const auto it = lat.find({std::min(path[i], path[i + 1]), std::max(path[i], path[i + 1])});
      ASSERT_NE(it, lat.end()) << pr.src << " -> " << pr.dst << ": no link at hop " << i;
      lo += *std::min_element(it->second.begin(), it->second.end());
      hi += *std::max_element(it->second.begin(), it->second.end());
    }
    EXPECT_GE(pr.rtt_us, 2.0 * lo - 0.002);
    auto& m = pair_min[{pr.src, pr.dst}];
    if (m.first == 0 || pr.rtt_us < m.first) m = {pr.rtt_us, 2.0 * hi};
  }
  // Without faults, the fastest of a pair's probes is within queueing noise of the idle RTT.
  if (p.faults.empty()) {
    int close = 0;
    for (const auto& [pair, m] : pair_min) close += m.first <= m.second + 0.3 ? 1 : 0;
    EXPECT_GE(close, static_cast<int>(0.99 * static_cast<double>(pair_min.size())));
  }
}

TEST(FabricImport, SuperPodProbesFollowRealLinksAndIdleRtt) {
  const formats::IbFabric f = ParseIb(kSuperPod);
  Result<ImportedFabric> im = ImportIbFabric(f, Options(7, false), {}, kSuperPod);
  ASSERT_TRUE(im.ok());
  EXPECT_TRUE(im->plan.faults.empty());
  // Routes: consecutive nodes are joined by the route's links; idle RTT = 2 x sum latency_us.
  const FabricPlan& p = im->plan;
  const int n = static_cast<int>(im->endpoints.size());
  for (int a = 0; a < n; a += 37) {
    for (int b = 1; b < n; b += 29) {
      if (a == b) continue;
      const FabricRoute r = RouteFlow(p, a, b, static_cast<uint16_t>(0xC000 + a * 7 + b), p.probe_start_ns);
      ASSERT_EQ(r.nodes.size(), r.links.size() + 1);
      double sum = 0;
      for (size_t i = 0; i < r.links.size(); ++i) {
        const FabricLink& l = p.links[static_cast<size_t>(r.links[i])];
        EXPECT_TRUE((l.a == r.nodes[i] && l.b == r.nodes[i + 1]) || (l.b == r.nodes[i] && l.a == r.nodes[i + 1]));
        sum += l.latency_us;
      }
      EXPECT_NEAR(IdleRttUs(p, r), 2.0 * sum, 1e-9);
      // Same leaf: 1 switch; else leaf-spine-leaf: 3 switches.
      const bool same = p.host_switch[static_cast<size_t>(a)] == p.host_switch[static_cast<size_t>(b)];
      EXPECT_EQ(r.nodes.size(), same ? 3U : 5U);
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  FabricStats stats;
  const auto files = Files(*im, &stats);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<formats::PathProbe> probes = Probes(files);
  EXPECT_EQ(static_cast<int64_t>(probes.size()), stats.probes);
  CheckProbes(*im, probes);
  std::printf("SuperPOD render: %lld probes in %.2f s, RTT min %.3f median %.3f max %.3f us\n",
              static_cast<long long>(stats.probes), secs, stats.min_rtt_us, stats.median_rtt_us, stats.max_rtt_us);
  // Idle RDMA regime (DOMAIN §2.3): a few microseconds.
  EXPECT_GT(stats.min_rtt_us, 1.0);
  EXPECT_LT(stats.median_rtt_us, 8.0);

  // Without faults the re-written dump is the input: the same fabric, the same text up to the
  // final blank line the writer adds.
  {
    Diagnostics diag;
    Result<formats::IbFabric> back = formats::ParseIbnetdiscover(files.at(kFabricIbnetFile), "re", diag);
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(*back == f);
    std::string a = files.at(kFabricIbnetFile), b = Read(kSuperPod);
    while (!a.empty() && a.back() == '\n') a.pop_back();
    while (!b.empty() && b.back() == '\n') b.pop_back();
    EXPECT_TRUE(a == b);
  }

  // Probes grouped per host directory: a DGX's directory holds the probes of all its adapters.
  const std::string& text = files.at("a08-p1-dgx-04-c01/probes.csv");
  std::set<std::string> srcs;
  Diagnostics diag;
  ASSERT_TRUE(formats::ParsePathProbes(text, "x", diag, [&](const formats::PathProbe& pr) { srcs.insert(pr.src); }).ok());
  EXPECT_GE(srcs.size(), 2U);
  for (const std::string& s : srcs) EXPECT_EQ(s.rfind("a08-p1-dgx-04-c01-", 0), 0U) << s;
  // QP logs read back with real devices and legal transitions only.
  const std::string& qtext = files.at("a08-p1-dgx-04-c01/qp-states.csv");
  std::set<std::string> devs;
  int64_t illegal = 0;
  Diagnostics qdiag;
  auto q = formats::ParseQpStateLog(qtext, "q", qdiag, [&](const formats::QpStateRecord& r) {
    devs.insert(r.dev);
    illegal += formats::IsLegalQpTransition(r.from, r.to) ? 0 : 1;
  });
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(illegal, 0);
  EXPECT_GE(devs.size(), 2U);
  EXPECT_EQ(devs.count("mlx5_0") + devs.count("mlx5_5") + devs.count("mlx5_4") + devs.count("mlx5_1"), devs.size());

  // Truth: leaves = the real leaf switches with the endpoints attached to them.
  const json truth = json::parse(files.at(kTruthFile));
  EXPECT_EQ(truth["arch"], "imported");
  EXPECT_EQ(truth["fabric"]["leaves"].size(), 31U);
  std::map<std::string, std::string> leaf_of;
  for (const auto& l : truth["fabric"]["leaves"]) {
    EXPECT_NE(l["desc"].get<std::string>().find(l["switch"].get<std::string>()), std::string::npos);
    for (const auto& h : l["hosts"]) {
      EXPECT_EQ(leaf_of.count(h.get<std::string>()), 0U);
      leaf_of[h.get<std::string>()] = l["switch"].get<std::string>();
    }
  }
  EXPECT_EQ(leaf_of.size(), 542U);
  const auto ids = SwitchIdByName(*im);
  const auto ports = PortMap(f);
  for (size_t e = 0; e < im->endpoints.size(); ++e) {
    // The endpoint's CA in the dump links to its truth leaf.
    const ImportedEndpoint& ep = im->endpoints[e];
    const formats::IbNode* ca = f.FindNode(ep.ca_id);
    ASSERT_NE(ca, nullptr);
    ASSERT_FALSE(ca->ports.empty());
    EXPECT_EQ(ca->ports.front().peer_guid, ids.at(leaf_of[ep.name])) << ep.name;
  }
  EXPECT_EQ(truth["fabric"]["spines"].size(), 9U);
  EXPECT_EQ(truth["fabric"]["skipped_cas"].size(), 40U);
  EXPECT_EQ(truth["hosts"].size(), 542U);
}

TEST(FabricImport, FaultsOnTheRealFabricAndRewrittenDump) {
  const formats::IbFabric f = ParseIb(kSuperPod);
  Result<ImportedFabric> im = ImportIbFabric(f, Options(11), {}, kSuperPod);
  ASSERT_TRUE(im.ok());
  const FabricPlan& p = im->plan;
  std::set<std::string> kinds;
  for (const FabricFault& ft : p.faults) kinds.insert(std::string(FabricFaultKindName(ft.kind)));
  EXPECT_EQ(kinds.count("congested_switch"), 1U);
  EXPECT_EQ(kinds.count("degraded_link"), 1U);
  EXPECT_EQ(kinds.count("flapping_link"), 1U);
  EXPECT_EQ(kinds.count("slow_host"), 1U);
  ASSERT_GE(p.degraded_link, 0);
  const auto files = Files(*im);
  CheckProbes(*im, Probes(files));
  // The re-written dump differs from the input only in the degraded link's two port lines (1x).
  Diagnostics diag;
  Result<formats::IbFabric> back = formats::ParseIbnetdiscover(files.at(kFabricIbnetFile), "re", diag);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->nodes.size(), f.nodes.size());
  int changed = 0;
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    ASSERT_EQ(back->nodes[i].ports.size(), f.nodes[i].ports.size());
    for (size_t k = 0; k < f.nodes[i].ports.size(); ++k) {
      if (back->nodes[i].ports[k].width != f.nodes[i].ports[k].width) {
        ++changed;
        EXPECT_EQ(back->nodes[i].ports[k].width, "1x");
        EXPECT_DOUBLE_EQ(back->nodes[i].ports[k].rate_gbps, 100.0);
      }
    }
  }
  EXPECT_EQ(changed, 2);
  const json truth = json::parse(files.at(kTruthFile));
  EXPECT_EQ(truth["fabric"]["bottlenecks"].size(), 1U);
}

TEST(FabricImport, Deterministic) {
  const formats::IbFabric f = ParseIb(kQdr);
  Result<ImportedFabric> a = ImportIbFabric(f, Options(5), {}, kQdr);
  Result<ImportedFabric> b = ImportIbFabric(f, Options(5), {}, kQdr);
  Result<ImportedFabric> c = ImportIbFabric(f, Options(6), {}, kQdr);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  const auto fa = Files(*a), fb = Files(*b), fc = Files(*c);
  EXPECT_EQ(fa, fb);
  EXPECT_NE(fa, fc);
  CheckProbes(*a, Probes(fa));
}

TEST(FabricImport, TopographModels) {
  struct Case {
    const char* file;
    size_t switches, endpoints, leaves;
  };
  for (const Case& k : {Case{"topograph_tests_models_large.yaml", 19, 96, 12},
                        Case{"topograph_tests_models_medium.yaml", 7, 8, 4},
                        Case{"topograph_tests_models_small-tree.yaml", 3, 6, 2},
                        Case{"topograph_tests_models_nvl72.yaml", 7, 72, 4}}) {
    SCOPED_TRACE(k.file);
    const std::string path = kTopoDir + k.file;
    const formats::TopographModel m = ParseTopo(path);
    for (bool faults : {false, true}) {
      Result<ImportedFabric> im = ImportTopographModel(m, Options(2, faults), {}, path);
      ASSERT_TRUE(im.ok()) << im.error().message;
      const FabricPlan& p = im->plan;
      EXPECT_EQ(p.switches.size(), k.switches);
      EXPECT_EQ(im->endpoints.size(), k.endpoints);
      EXPECT_EQ(p.links.size(), k.endpoints + k.switches - 1);  // a tree
      size_t leaves = 0;
      for (const FabricSwitch& s : p.switches) leaves += s.role == "leaf" ? 1 : 0;
      EXPECT_EQ(leaves, k.leaves);
      // A tree has no ECMP choice and no redundant path: no congested switch, no flapping link.
      EXPECT_EQ(p.congested_switch, -1);
      EXPECT_EQ(p.flapping_link, -1);
      // Every endpoint sits on the leaf its block names.
      for (size_t e = 0; e < im->endpoints.size(); ++e) {
        const std::vector<std::string> layers = m.NetLayers(im->endpoints[e].name);
        ASSERT_FALSE(layers.empty());
        EXPECT_EQ(im->cluster.hosts[e].leaf, layers.front());
      }
      const auto files = Files(*im);
      CheckProbes(*im, Probes(files));
      Diagnostics diag;
      Result<formats::IbFabric> ib = formats::ParseIbnetdiscover(files.at(kFabricIbnetFile), "t", diag);
      ASSERT_TRUE(ib.ok());
      EXPECT_EQ(static_cast<size_t>(ib->SwitchCount()), k.switches);
      EXPECT_EQ(static_cast<size_t>(ib->CaCount()), k.endpoints);
      const json truth = json::parse(files.at(kTruthFile));
      EXPECT_EQ(truth["fabric"]["leaves"].size(), k.leaves);
      EXPECT_FALSE(truth["fabric"]["pods"].empty());
    }
  }
}

TEST(FabricImport, SimulateWritesTheImportedDataset) {
  const fs::path dir = fs::temp_directory_path() / ("toposcope_fabric_import_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  SimOptions o = Options(4);
  o.fabric_ibnet_path = kQdr;
  o.with_telemetry = true;  // ignored for imports
  Result<SimSummary> s = Simulate(o, dir.string());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(ArchName(s->arch), "imported");
  EXPECT_EQ(s->hosts.size(), 89U);
  EXPECT_EQ(s->files_written, 89 * 2 + 2);
  EXPECT_TRUE(fs::exists(dir / "fabric.ibnet"));
  const json truth = json::parse(Read((dir / "truth.json").string()));
  EXPECT_EQ(truth["arch"], "imported");
  EXPECT_EQ(truth["source"]["kind"], "ibnetdiscover");
  for (const auto& h : s->hosts) EXPECT_TRUE(fs::exists(dir / h.files.front())) << h.files.front();

  SimOptions t = Options(4);
  t.fabric_topograph_path = kTopoDir + "topograph_tests_models_large.yaml";
  Result<SimSummary> s2 = Simulate(t, (dir / "topo").string());
  ASSERT_TRUE(s2.ok()) << s2.error().message;
  EXPECT_EQ(s2->hosts.size(), 96U);

  SimOptions bad = Options(4);
  bad.fabric_ibnet_path = (dir / "missing.ibnet").string();
  EXPECT_FALSE(Simulate(bad, (dir / "bad").string()).ok());
  fs::remove_all(dir);
}

}  // namespace fabric_import_test
}  // namespace toposcope::sim
