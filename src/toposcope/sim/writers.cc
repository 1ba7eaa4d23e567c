#include "toposcope/sim/writers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "toposcope/base/json_stream.h"
#include "toposcope/base/names.h"
#include "toposcope/base/rng.h"
#include "toposcope/sim/fabric_sim.h"
#include "toposcope/sim/port_counters_sim.h"
#include "toposcope/sim/rdma_traffic.h"
#include "toposcope/sim/telemetry.h"
#include "toposcope/sim/variation.h"

namespace toposcope::sim {
namespace {

using formats::XmlElement;

// Relative-error factors are floored here so that an untruncated noise model cannot print a
// negative or zero bandwidth.
constexpr double kMinNoiseFactor = 0.05;

// Local (diagonal) latencies of p2pBandwidthLatencyTest, and the CPU-side latency table.
constexpr double kGpuLocalLatencyUs = 1.4;
constexpr double kCpuLocalLatencyUs = 3.4;
constexpr double kCpuRemoteLatencyUs = 10.5;

std::string Hex(uint64_t v, int min_digits = 0) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%0*llx", min_digits, static_cast<unsigned long long>(v));
  return buf;
}

XmlElement Elem(std::string name, std::vector<std::pair<std::string, std::string>> attrs) {
  XmlElement e;
  e.name = std::move(name);
  e.attrs = std::move(attrs);
  return e;
}

double Round3(double v) {
  const double r = std::round(v * 1000.0) / 1000.0;
  return r == 0.0 ? 0.0 : r;  // no "-0.0"
}

// The nvidia-smi cell between two devices given by their PCIe switches, or an NVLink count.
std::string PcieCell(const NodeType& t, int switch_a, int switch_b) {
  return NvsmiCell(LinkClass{PcieRelation(t, switch_a, switch_b), 0});
}

struct NicIds {
  std::string pci_device;
  std::string subsystem_device;
};
NicIds NicPciIds(int speed_gbps) {
  if (speed_gbps >= 400) return {"0x1021", "0x0041"};  // ConnectX-7
  return {"0x101b", "0x0007"};                         // ConnectX-6
}

}  // namespace

formats::NvsmiTopo BuildNvsmiTopo(const HostModel& host) {
  const NodeType& t = *host.type;
  formats::NvsmiTopo topo;
  topo.kind = formats::NvsmiMatrixKind::kTopo;
  const int n_gpu = t.GpuCount();
  const int n_nic = static_cast<int>(t.nics.size());
  for (int g = 0; g < n_gpu; ++g) {
    formats::NvsmiDevice d;
    d.label = "GPU" + std::to_string(g);
    d.kind = formats::NvsmiDeviceKind::kGpu;
    d.gpu_index = g;
    d.has_row = true;
    d.cpu_affinity = CpuListOfSocket(t, t.GpuSocket(g));
    d.numa_affinity = t.GpuSocket(g);
    d.gpu_numa_id = -1;
    topo.devices.push_back(std::move(d));
  }
  for (int k = 0; k < n_nic; ++k) {
    formats::NvsmiDevice d;
    d.label = "NIC" + std::to_string(k);
    d.kind = formats::NvsmiDeviceKind::kNic;
    d.nic_device = t.nics[static_cast<size_t>(k)].device;
    d.has_row = true;
    topo.devices.push_back(std::move(d));
  }
  // PCIe switch of device i (GPUs first, then NICs).
  auto switch_of = [&](int i) {
    return i < n_gpu ? t.gpus[static_cast<size_t>(i)].pcie_switch
                     : t.nics[static_cast<size_t>(i - n_gpu)].pcie_switch;
  };
  const std::vector<LinkTruth> links = HostLinks(host);
  const int n = n_gpu + n_nic;
  topo.cells.assign(static_cast<size_t>(n), std::vector<std::string>(static_cast<size_t>(n)));
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      std::string& cell = topo.cells[static_cast<size_t>(r)][static_cast<size_t>(c)];
      if (r == c) {
        cell = "X";
        continue;
      }
      cell = PcieCell(t, switch_of(r), switch_of(c));
      if (r < n_gpu && c < n_gpu) {
        const int a = std::min(r, c);
        const int b = std::max(r, c);
        for (const auto& l : links) {
          if (l.a == a && l.b == b && IsNvlinkFamily(l.type) && l.lanes > 0) {
            cell = NvsmiCell(LinkClass{LinkType::kNvlink, l.lanes});
          }
        }
      }
    }
  }
  return topo;
}

formats::XmlElement BuildNcclTopoXml(const HostModel& host) {
  const NodeType& t = *host.type;
  const BusLayout bus = AssignBusNumbers(t);
  const std::string host_hash = Hex(host.host_hash);

  auto nic_element = [&](size_t k) {
    const NicSpec& nic = t.nics[k];
    const NicIds ids = NicPciIds(nic.speed_gbps);
    XmlElement pci = Elem("pci", {{"busid", BusIdNccl(bus.nics[k])},
                                  {"class", "0x020000"},
                                  {"vendor", "0x15b3"},
                                  {"device", ids.pci_device},
                                  {"subsystem_vendor", "0x15b3"},
                                  {"subsystem_device", ids.subsystem_device},
                                  {"link_speed", PcieSpeedText(nic.pcie_gen)},
                                  {"link_width", std::to_string(nic.pcie_width)}});
    XmlElement nic_el = Elem("nic", {});
    const uint64_t guid = Rng::Mix(host.host_hash, 0x6e1c0000ULL + k);
    nic_el.children.push_back(Elem("net", {{"name", nic.device},
                                           {"dev", std::to_string(k)},
                                           {"speed", std::to_string(nic.speed_gbps * 1000)},
                                           {"port", "1"},
                                           {"latency", "0.000000"},
                                           {"guid", Hex(guid)},
                                           {"maxconn", "131072"},
                                           {"gdr", "1"}}));
    pci.children.push_back(std::move(nic_el));
    return pci;
  };
  auto gpu_element = [&](size_t g) {
    const GpuState& st = host.gpus[g];
    XmlElement pci = Elem("pci", {{"busid", BusIdNccl(bus.gpus[g])},
                                  {"class", "0x030200"},
                                  {"vendor", "0x10de"},
                                  {"device", Hex(t.gpu_pci_device, 4)},
                                  {"subsystem_vendor", "0x10de"},
                                  {"subsystem_device", Hex(t.gpu_pci_subsystem, 4)},
                                  {"link_speed", PcieSpeedText(st.pcie_gen)},
                                  {"link_width", std::to_string(st.pcie_width)}});
    XmlElement gpu = Elem("gpu", {{"dev", std::to_string(g)},
                                  {"sm", std::to_string(t.sm)},
                                  {"rank", std::to_string(g)},
                                  {"gdr", "1"}});
    for (size_t s = 0; s < st.nvswitch_lanes.size(); ++s) {
      if (st.nvswitch_lanes[s] <= 0) continue;
      gpu.children.push_back(Elem("nvlink", {{"target", BusIdNccl(bus.nvswitches[s])},
                                             {"count", std::to_string(st.nvswitch_lanes[s])},
                                             {"tclass", "0x068000"}}));
    }
    for (size_t b = 0; b < t.bridges.size(); ++b) {
      const auto& br = t.bridges[b];
      const int gi = static_cast<int>(g);
      if (br.gpu_a != gi && br.gpu_b != gi) continue;
      if (host.bridge_lanes[b] <= 0) continue;
      const int peer = br.gpu_a == gi ? br.gpu_b : br.gpu_a;
      gpu.children.push_back(Elem("nvlink", {{"target", BusIdNccl(bus.gpus[static_cast<size_t>(peer)])},
                                             {"count", std::to_string(host.bridge_lanes[b])},
                                             {"tclass", "0x030200"}}));
    }
    pci.children.push_back(std::move(gpu));
    return pci;
  };
  auto add_devices = [&](XmlElement& parent, int sw) {
    for (size_t k = 0; k < t.nics.size(); ++k) {
      if (t.nics[k].pcie_switch == sw) parent.children.push_back(nic_element(k));
    }
    for (size_t g = 0; g < t.gpus.size(); ++g) {
      if (t.gpus[g].pcie_switch == sw) parent.children.push_back(gpu_element(g));
    }
  };
  auto bridge_element = [&](size_t sw) {
    const PcieSwitchSpec& spec = t.pcie_switches[sw];
    return Elem("pci", {{"busid", BusIdNccl(bus.pcie_switches[sw])},
                        {"class", "0x060400"},
                        {"vendor", "0x1000"},
                        {"device", spec.pcie_gen >= 5 ? "0xc030" : "0xc010"},
                        {"subsystem_vendor", "0x1000"},
                        {"subsystem_device", "0x100b"},
                        {"link_speed", PcieSpeedText(spec.pcie_gen)},
                        {"link_width", "16"}});
  };

  XmlElement root = Elem("system", {{"version", "1"}});
  for (int socket = 0; socket < t.sockets; ++socket) {
    XmlElement cpu = Elem("cpu", {{"host_hash", host_hash},
                                  {"numaid", std::to_string(socket)},
                                  {"affinity", CpuMaskOfSocket(t, socket)},
                                  {"arch", "x86_64"},
                                  {"vendor", t.cpu_vendor},
                                  {"familyid", std::to_string(t.cpu_family)},
                                  {"modelid", std::to_string(t.cpu_model)}});
    for (size_t top = 0; top < t.pcie_switches.size(); ++top) {
      if (t.pcie_switches[top].parent != -1 || t.pcie_switches[top].socket != socket) continue;
      XmlElement top_el = bridge_element(top);
      for (size_t sub = 0; sub < t.pcie_switches.size(); ++sub) {
        if (t.pcie_switches[sub].parent != static_cast<int>(top)) continue;
        XmlElement sub_el = bridge_element(sub);
        add_devices(sub_el, static_cast<int>(sub));
        top_el.children.push_back(std::move(sub_el));
      }
      add_devices(top_el, static_cast<int>(top));
      cpu.children.push_back(std::move(top_el));
    }
    root.children.push_back(std::move(cpu));
  }
  return root;
}

formats::P2pReport BuildP2pReport(const HostModel& host, const stats::NoiseModel& noise, uint64_t seed) {
  const NodeType& t = *host.type;
  const BusLayout bus = AssignBusNumbers(t);
  const int n = t.GpuCount();
  Rng rng(Rng::Mix(seed, static_cast<uint64_t>(host.index)));
  auto measure = [&](double true_value) {
    return true_value * std::max(kMinNoiseFactor, 1.0 + noise.Sample(rng));
  };
  // True values: bandwidth and latency per ordered pair (symmetric in this model).
  std::vector<std::vector<double>> bw(static_cast<size_t>(n),
                                      std::vector<double>(static_cast<size_t>(n), 0.0));
  std::vector<std::vector<double>> lat = bw;
  for (const LinkTruth& l : HostLinks(host)) {
    const auto a = static_cast<size_t>(l.a);
    const auto b = static_cast<size_t>(l.b);
    bw[a][b] = bw[b][a] = l.bandwidth_gbps;
    lat[a][b] = lat[b][a] = l.latency_us;
  }
  std::vector<int> ids(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ids[static_cast<size_t>(i)] = i;
  auto matrix = [&](std::string title, formats::P2pQuantity q) {
    formats::P2pMatrix m;
    m.title = std::move(title);
    m.quantity = q;
    m.row_ids = ids;
    m.col_ids = ids;
    m.values.assign(static_cast<size_t>(n), std::vector<double>(static_cast<size_t>(n), 0.0));
    return m;
  };

  formats::P2pReport report;
  for (int g = 0; g < n; ++g) {
    formats::P2pDevice d;
    d.index = g;
    d.name = t.gpu_model;
    const int b = bus.gpus[static_cast<size_t>(g)];
    d.pci_bus_id = host.p2p_tool == P2pToolKind::kNvbandwidth ? BusIdNvbandwidth(b) : BusIdShort(b);
    report.devices.push_back(std::move(d));
  }

  if (host.p2p_tool == P2pToolKind::kNvbandwidth) {
    report.tool = formats::P2pTool::kNvbandwidth;
    report.version = "v0.8";
    report.git_version = "v0.8";
    report.cuda_runtime_version = "12040";
    report.cuda_driver_version = "12040";
    report.driver_version = "550.127.08";
    report.hostname = host.name;
    formats::P2pMatrix m =
        matrix("device_to_device_memcpy_write_ce", formats::P2pQuantity::kBandwidthUnidirGbps);
    m.testcase = "device_to_device_memcpy_write_ce";
    m.description = "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)";
    double sum = 0;
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) {
        double& v = m.values[static_cast<size_t>(r)][static_cast<size_t>(c)];
        if (r == c) {
          v = std::numeric_limits<double>::quiet_NaN();
          continue;
        }
        v = measure(bw[static_cast<size_t>(c)][static_cast<size_t>(r)]);  // copy column -> row
        sum += v;
      }
    }
    m.sum = sum;
    report.matrices.push_back(std::move(m));
    return report;
  }

  report.tool = formats::P2pTool::kP2pBandwidthLatencyTest;
  formats::P2pMatrix conn = matrix("P2P Connectivity Matrix", formats::P2pQuantity::kConnectivity);
  for (auto& row : conn.values) std::fill(row.begin(), row.end(), 1.0);
  report.matrices.push_back(std::move(conn));

  formats::P2pMatrix uni = matrix("Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)",
                                  formats::P2pQuantity::kBandwidthUnidirGbps);
  formats::P2pMatrix bi =
      matrix("Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)", formats::P2pQuantity::kBandwidthBidirGbps);
  formats::P2pMatrix gpu_lat =
      matrix("P2P=Enabled Latency (P2P Writes) Matrix (us)", formats::P2pQuantity::kLatencyUs);
  formats::P2pMatrix cpu_lat =
      matrix("P2P=Enabled Latency (P2P Writes) Matrix (us)", formats::P2pQuantity::kLatencyUs);
  cpu_lat.gpu_to_gpu = false;
  for (int r = 0; r < n; ++r) {  // row r writes to column c
    for (int c = 0; c < n; ++c) {
      const auto rr = static_cast<size_t>(r);
      const auto cc = static_cast<size_t>(c);
      uni.values[rr][cc] = measure(r == c ? t.local_copy_gbps : bw[rr][cc]);
    }
  }
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      const auto rr = static_cast<size_t>(r);
      const auto cc = static_cast<size_t>(c);
      // Both directions at once: ~2x one direction (the diagonal is a local copy either way).
      bi.values[rr][cc] = measure(r == c ? t.local_copy_gbps : 2.0 * bw[rr][cc]);
    }
  }
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      const auto rr = static_cast<size_t>(r);
      const auto cc = static_cast<size_t>(c);
      gpu_lat.values[rr][cc] = measure(r == c ? kGpuLocalLatencyUs : lat[rr][cc]);
    }
  }
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      cpu_lat.values[static_cast<size_t>(r)][static_cast<size_t>(c)] =
          measure(r == c ? kCpuLocalLatencyUs : kCpuRemoteLatencyUs);
    }
  }
  report.matrices.push_back(std::move(uni));
  report.matrices.push_back(std::move(bi));
  report.matrices.push_back(std::move(gpu_lat));
  report.matrices.push_back(std::move(cpu_lat));
  return report;
}

std::vector<std::string> HostFiles(const HostModel& host) {
  const std::string dir = host.name + "/";
  const std::string p2p = dir + (host.p2p_tool == P2pToolKind::kNvbandwidth ? kNvbandwidthFile : kP2pTestFile);
  if (host.type != nullptr && host.type->p2p_only) return {p2p};  // a P2P-only dataset
  return {dir + kNvsmiTopoFile, dir + kNcclTopoFile, p2p};
}

std::string TruthJson(const Cluster& cluster) { return TruthJson(cluster, nullptr); }

std::string TruthJson(const Cluster& cluster, const Telemetry* telemetry) {
  return TruthJson(cluster, telemetry, nullptr);
}

std::string TruthJson(const Cluster& cluster, const Telemetry* telemetry, const RdmaPlan* rdma) {
  return TruthJson(cluster, telemetry, rdma, nullptr, nullptr);
}

namespace {

using nlohmann::json;

// A host's NVLink / PCIe islands: one NVSwitch domain, one per bridged pair, else one per GPU
// (kind, member GPUs).
std::vector<std::pair<std::string, std::vector<int>>> HostIslands(const NodeType& t) {
  std::vector<std::pair<std::string, std::vector<int>>> host_islands;
  if (!t.nvswitch_lanes.empty()) {
    host_islands.push_back({"nvswitch", {}});
    for (int g = 0; g < t.GpuCount(); ++g) host_islands[0].second.push_back(g);
    return host_islands;
  }
  for (int g = 0; g < t.GpuCount(); ++g) {
    bool placed = false;
    for (auto& [kind, members] : host_islands) {
      if (kind == "nvlink" && t.BridgeIndex(members.front(), g) >= 0) {
        members.push_back(g);
        placed = true;
      }
    }
    if (placed) continue;
    bool bridged = false;
    for (int p = 0; p < t.GpuCount(); ++p) bridged = bridged || (p != g && t.BridgeIndex(g, p) >= 0);
    host_islands.push_back({bridged ? "nvlink" : "pcie", {g}});
  }
  return host_islands;
}

void WriteIslands(const Cluster& cluster, JsonStreamWriter& w, const std::string& key) {
  w.BeginArray(key);
  for (const HostModel& h : cluster.hosts) {
    const auto islands = HostIslands(*h.type);
    for (size_t i = 0; i < islands.size(); ++i) {
      json members = json::array();
      for (int g : islands[i].second) members.push_back(GpuName(h.name, g));
      w.Element({{"id", h.name + "/island" + std::to_string(i)}, {"members", members}, {"kind", islands[i].first}});
    }
  }
  w.End();
}

void WriteGpus(const Cluster& cluster, JsonStreamWriter& w, const std::string& key) {
  w.BeginArray(key);
  for (const HostModel& h : cluster.hosts) {
    const NodeType& t = *h.type;
    const BusLayout bus = AssignBusNumbers(t);
    const auto islands = HostIslands(t);
    std::vector<int> island_of(static_cast<size_t>(t.GpuCount()), -1);
    for (size_t i = 0; i < islands.size(); ++i) {
      for (int g : islands[i].second) island_of[static_cast<size_t>(g)] = static_cast<int>(i);
    }
    for (int g = 0; g < t.GpuCount(); ++g) {
      w.Element({{"id", GpuName(h.name, g)},
                 {"host", h.name},
                 {"index", g},
                 {"island", h.name + "/island" + std::to_string(island_of[static_cast<size_t>(g)])},
                 {"bus_id", BusIdNccl(bus.gpus[static_cast<size_t>(g)])},
                 {"numa", t.GpuSocket(g)}});
    }
  }
  w.End();
}

void WriteLinks(const Cluster& cluster, JsonStreamWriter& w, const std::string& key) {
  w.BeginArray(key);
  for (const HostModel& h : cluster.hosts) {
    for (const LinkTruth& l : HostLinks(h)) {
      w.Element({{"a", GpuName(h.name, l.a)},
                 {"b", GpuName(h.name, l.b)},
                 {"type", std::string(LinkTypeName(l.type))},
                 {"lanes", l.lanes},
                 {"design_lanes", l.design_lanes},
                 {"bandwidth_gbps", Round3(l.bandwidth_gbps)},
                 {"healthy_gbps", Round3(l.healthy_gbps)},
                 {"latency_us", Round3(l.latency_us)},
                 {"degraded", l.degraded},
                 {"fault", std::string(NodeFaultKindName(l.fault))}});
    }
  }
  w.End();
}

json FaultsTruth(const Cluster& cluster) {
  json faults = json::array();
  for (const FaultTruth& f : cluster.faults) {
    const HostModel& h = cluster.hosts[static_cast<size_t>(f.host)];
    json fg = json::array();
    for (int g : f.gpus) fg.push_back(GpuName(h.name, g));
    faults.push_back({{"kind", std::string(NodeFaultKindName(f.kind))}, {"host", h.name}, {"gpus", fg},
                      {"detail", f.detail}});
  }
  return faults;
}

json BaseFabricTruth(const Cluster& cluster) {
  auto groups = [](const std::vector<FabricGroup>& in, const char* key, const char* members_key) {
    json arr = json::array();
    for (const auto& g : in) arr.push_back({{key, g.name}, {members_key, g.members}});
    return arr;
  };
  json fabric;
  fabric["leaves"] = groups(cluster.fabric.leaves, "switch", "hosts");
  fabric["spines"] = cluster.fabric.spines;
  fabric["groups"] = groups(cluster.fabric.groups, "group", "routers");
  fabric["rings"] = groups(cluster.fabric.rings, "ring", "racks");
  return fabric;
}

// The truth of the parts limited to small clusters (RDMA, fabric), as their Add*Truth build it on a
// root holding "hosts" (one empty object per host, to take hosts[].rdma_files / fabric_files) and
// the cluster's "fabric"; null when neither is given.
json SmallPartsTruth(const Cluster& cluster, const RdmaPlan* rdma, const FabricPlan* fabric_plan,
                     const FabricStats* fabric_stats) {
  if (rdma == nullptr && fabric_plan == nullptr) return nullptr;
  json extra;
  extra["hosts"] = json::array();
  for (size_t i = 0; i < cluster.hosts.size(); ++i) extra["hosts"].push_back(json::object());
  extra["fabric"] = BaseFabricTruth(cluster);
  if (rdma != nullptr) AddRdmaTruth(cluster, *rdma, &extra);
  if (fabric_plan != nullptr) {
    AddFabricTruth(cluster, *fabric_plan, fabric_stats != nullptr ? *fabric_stats : FabricStats{}, &extra);
  }
  return extra;
}

void WriteHosts(const Cluster& cluster, const Telemetry* telemetry, const json& extra, JsonStreamWriter& w,
                const std::string& key) {
  w.BeginArray(key);
  for (const HostModel& h : cluster.hosts) {
    json hj = {{"name", h.name},
               {"node_type", h.type->name},
               {"gpu_model", h.type->gpu_model},
               {"leaf", h.leaf},
               {"files", HostFiles(h)}};
    if (telemetry != nullptr) hj["telemetry_files"] = TelemetryFiles(cluster, *telemetry, h);
    if (!extra.is_null()) {
      for (const auto& [k, v] : extra["hosts"][static_cast<size_t>(h.index)].items()) hj[k] = v;
    }
    w.Element(hj);
  }
  w.End();
}

}  // namespace

Status WriteTruthJson(const Cluster& cluster, const Telemetry* telemetry, const RdmaPlan* rdma,
                      const FabricPlan* fabric_plan, const FabricStats* fabric_stats,
                      const std::function<Status(std::string_view)>& sink) {
  const Cluster* c = &cluster;
  const json extra = SmallPartsTruth(cluster, rdma, fabric_plan, fabric_stats);
  const json* x = &extra;
  TruthSections sections;
  sections["seed"] = [c](JsonStreamWriter& w, const std::string& key) { w.Value(key, c->options.seed); };
  sections["arch"] = [c](JsonStreamWriter& w, const std::string& key) {
    w.Value(key, std::string(ArchName(c->options.arch)));
  };
  sections["hosts"] = [c, telemetry, x](JsonStreamWriter& w, const std::string& key) {
    WriteHosts(*c, telemetry, *x, w, key);
  };
  sections["gpus"] = [c](JsonStreamWriter& w, const std::string& key) { WriteGpus(*c, w, key); };
  sections["islands"] = [c](JsonStreamWriter& w, const std::string& key) { WriteIslands(*c, w, key); };
  sections["links"] = [c](JsonStreamWriter& w, const std::string& key) { WriteLinks(*c, w, key); };
  sections["faults"] = [c](JsonStreamWriter& w, const std::string& key) { w.Value(key, FaultsTruth(*c)); };
  sections["fabric"] = [c, x](JsonStreamWriter& w, const std::string& key) {
    w.Value(key, x->is_null() ? BaseFabricTruth(*c) : (*x)["fabric"]);
  };
  if (cluster.options.vary) {
    sections["variation"] = [c](JsonStreamWriter& w, const std::string& key) {
      json variation = json::object();
      for (const auto& [name, value] : VariationSummary(c->options)) variation[name] = value;
      variation["drawn"] = c->options.drawn_options;
      w.Value(key, variation);
    };
  }
  if (telemetry != nullptr) AddTelemetryTruth(cluster, *telemetry, &sections);
  if (!extra.is_null()) {
    for (const auto& [k, v] : extra.items()) {
      if (k == "hosts" || k == "fabric") continue;
      const json* value = &v;
      sections[k] = [value](JsonStreamWriter& w, const std::string& key) { w.Value(key, *value); };
    }
  }
  // "schema" goes first, so that format detection finds it in the file's head; the other keys
  // follow sorted (as nlohmann::json sorts an object's keys).
  JsonStreamWriter w(sink);
  w.BeginObject();
  w.Value("schema", "toposcope.truth/1");
  for (const auto& [key, write] : sections) write(w, key);
  w.End();
  w.Raw("\n");
  return w.Finish();
}

std::string TruthJson(const Cluster& cluster, const Telemetry* telemetry, const RdmaPlan* rdma,
                      const FabricPlan* fabric_plan, const FabricStats* fabric_stats) {
  std::string text;
  (void)WriteTruthJson(cluster, telemetry, rdma, fabric_plan, fabric_stats, [&text](std::string_view piece) {
    text += piece;
    return Status{};
  });
  return text;
}

std::vector<RenderedFile> RenderCluster(const Cluster& cluster) {
  if (!cluster.options.with_telemetry || !ValidateTelemetryOptions(cluster.options).ok()) {
    return RenderCluster(cluster, nullptr);
  }
  const Telemetry telemetry = SimulateTelemetry(cluster);
  return RenderCluster(cluster, &telemetry);
}

namespace {

// The host's topology files (HostFiles order).
Status RenderHostTopology(const Cluster& cluster, const HostModel& h, RenderSink& sink) {
  const std::vector<std::string> files = HostFiles(h);
  if (files.size() == 3) {
    if (Status st = sink.File(files[0], formats::WriteNvsmiTopo(BuildNvsmiTopo(h))); !st) return st;
    if (Status st = sink.File(files[1], formats::WriteXmlTree(BuildNcclTopoXml(h))); !st) return st;
  }
  const formats::P2pReport report = BuildP2pReport(h, cluster.options.noise, cluster.options.seed);
  return sink.File(files.back(), h.p2p_tool == P2pToolKind::kNvbandwidth ? formats::WriteNvbandwidth(report)
                                                                          : formats::WriteP2pBandwidthLatencyTest(report));
}

// Collects the files in memory (RenderCluster).
class MemorySink : public RenderSink {
 public:
  explicit MemorySink(std::vector<RenderedFile>* out) : out_(out) {}
  Status Begin(const std::string& path) override {
    out_->push_back({path, {}});
    return {};
  }
  Status Append(std::string_view text) override {
    out_->back().text += text;
    return {};
  }
  Status End() override { return {}; }

 private:
  std::vector<RenderedFile>* out_;
};

}  // namespace

Status RenderClusterTo(const Cluster& cluster, const Telemetry* telemetry, RenderSink& sink) {
  const int n = static_cast<int>(cluster.hosts.size());
  for (const HostModel& h : cluster.hosts) {
    if (Status st = RenderHostTopology(cluster, h, sink); !st) return st;
    if (telemetry != nullptr) {
      for (const RenderedFile& f : RenderHostTelemetry(cluster, *telemetry, h)) {
        if (Status st = sink.File(f.path, f.text); !st) return st;
      }
    }
    sink.HostDone(h.index + 1, n);
  }
  std::unique_ptr<RdmaPlan> rdma;
  if (cluster.options.with_rdma && ValidateRdmaOptions(cluster.options).ok()) {
    rdma = std::make_unique<RdmaPlan>(PlanRdma(cluster, telemetry));
    for (const RenderedFile& f : RenderRdma(cluster, *rdma)) {
      if (Status st = sink.File(f.path, f.text); !st) return st;
    }
  }
  std::unique_ptr<FabricPlan> fabric;
  FabricStats fabric_stats;
  if (cluster.options.with_fabric && ValidateFabricOptions(cluster.options).ok()) {
    fabric = std::make_unique<FabricPlan>(PlanFabric(cluster));
    for (const RenderedFile& f : RenderFabric(cluster, *fabric, &fabric_stats)) {
      if (Status st = sink.File(f.path, f.text); !st) return st;
    }
    for (const RenderedFile& f : RenderPortCounters(cluster, *fabric)) {
      if (Status st = sink.File(f.path, f.text); !st) return st;
    }
  }
  if (Status st = sink.Begin(kTruthFile); !st) return st;
  if (Status st = WriteTruthJson(cluster, telemetry, rdma.get(), fabric.get(), &fabric_stats,
                                 [&sink](std::string_view piece) { return sink.Append(piece); });
      !st) {
    return st;
  }
  return sink.End();
}

std::vector<RenderedFile> RenderCluster(const Cluster& cluster, const Telemetry* telemetry) {
  std::vector<RenderedFile> out;
  MemorySink sink(&out);
  (void)RenderClusterTo(cluster, telemetry, sink);
  return out;
}

}  // namespace toposcope::sim
