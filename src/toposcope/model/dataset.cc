#include "toposcope/model/dataset.h"

#include <algorithm>
#include <set>

#include "toposcope/base/text.h"

namespace toposcope::model {

HostEvidence& Dataset::Host(const std::string& name) {
  auto it = hosts.find(name);
  if (it == hosts.end()) {
    it = hosts.emplace(name, HostEvidence{}).first;
    it->second.host = name;
  }
  return it->second;
}

namespace {

// The status of every GPU pair of an `nvidia-smi topo -p2p` matrix; a non-OK status (either
// direction, any file) wins over OK.
void AddNvsmiP2pStatus(HostEvidence& h, const formats::NvsmiTopo& topo) {
  const auto& dev = topo.devices;
  for (size_t r = 0; r < dev.size() && r < topo.cells.size(); ++r) {
    if (!dev[r].has_row || dev[r].kind != formats::NvsmiDeviceKind::kGpu) continue;
    for (size_t c = 0; c < dev.size() && c < topo.cells[r].size(); ++c) {
      if (r == c || dev[c].kind != formats::NvsmiDeviceKind::kGpu || topo.cells[r][c].empty()) continue;
      std::string& status = h.p2p_status[MakePair(dev[r].gpu_index, dev[c].gpu_index)];
      if (status.empty() || status == "OK") status = topo.cells[r][c];
    }
  }
}

}  // namespace

void AddNvsmiTopo(Dataset& ds, const std::string& host, const std::string& source,
                  const formats::NvsmiTopo& topo) {
  HostEvidence& h = ds.Host(host);
  const auto& dev = topo.devices;
  for (const auto& d : dev) {
    if (d.kind == formats::NvsmiDeviceKind::kGpu) {
      GpuInfo& g = h.gpus[d.gpu_index];
      g.index = d.gpu_index;
      if (!d.cpu_affinity.empty()) g.cpu_affinity = d.cpu_affinity;
      if (d.numa_affinity >= 0) g.numa_node = d.numa_affinity;
    } else {
      NicInfo& n = h.nics[formats::NvsmiNicName(d)];
      n.device = formats::NvsmiNicName(d);
    }
  }
  if (topo.kind == formats::NvsmiMatrixKind::kP2p) {  // peer-access status, not link classes
    AddNvsmiP2pStatus(h, topo);
    return;
  }
  for (size_t r = 0; r < dev.size() && r < topo.cells.size(); ++r) {
    if (!dev[r].has_row) continue;
    for (size_t c = 0; c < dev.size() && c < topo.cells[r].size(); ++c) {
      if (r == c) continue;
      auto cls = ParseNvsmiCell(topo.cells[r][c]);
      if (!cls) continue;
      const auto& a = dev[r];
      const auto& b = dev[c];
      if (a.kind == formats::NvsmiDeviceKind::kGpu && b.kind == formats::NvsmiDeviceKind::kGpu) {
        const GpuPair p = MakePair(a.gpu_index, b.gpu_index);
        auto [it, inserted] = h.nvsmi_links.emplace(p, DeclaredLink{*cls, source});
        if (!inserted && !(it->second.cls == *cls)) {
          // Asymmetric matrix: keep the worse class, and say so.
          ds.diag.Warn(source, 0, topo.cells[r][c],
                       "asymmetric cell for " + a.label + "/" + b.label + ": keeping the worse class");
          if (cls->type > it->second.cls.type ||
              (cls->type == it->second.cls.type && cls->lanes < it->second.cls.lanes)) {
            it->second.cls = *cls;
          }
        }
      } else if (a.kind == formats::NvsmiDeviceKind::kGpu && b.kind == formats::NvsmiDeviceKind::kNic) {
        h.gpu_nic[{a.gpu_index, formats::NvsmiNicName(b)}] = *cls;
      }
    }
  }
}

std::map<GpuPair, LinkClass> ClassifyNcclTopoPairs(const formats::NcclTopo& topo) {
  std::map<GpuPair, LinkClass> out;
  const auto& gpus = topo.gpus;
  std::map<std::string, int> dev_by_bus;
  for (const auto& g : gpus) dev_by_bus[g.bus_id] = g.dev;
  // NVLink lanes to switches and to peers.
  std::map<int, int> switch_lanes;
  std::map<GpuPair, int> direct_lanes;
  for (const auto& g : gpus) {
    for (const auto& l : g.nvlinks) {
      if (l.target == g.bus_id) continue;  // self-target (seen in some cloud dumps): no peer
      if (l.tclass == "0x068000") {
        switch_lanes[g.dev] += l.count;
      } else if (auto it = dev_by_bus.find(l.target); it != dev_by_bus.end() && it->second != g.dev) {
        int& lanes = direct_lanes[MakePair(g.dev, it->second)];
        lanes = std::max(lanes, l.count);
      }
    }
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (size_t j = i + 1; j < gpus.size(); ++j) {
      const auto& a = gpus[i];
      const auto& b = gpus[j];
      if (a.dev < 0 || b.dev < 0 || a.dev == b.dev) continue;
      const GpuPair p = MakePair(a.dev, b.dev);
      LinkClass cls;
      if (auto it = direct_lanes.find(p); it != direct_lanes.end()) {
        cls = {LinkType::kNvlink, it->second};
      } else if (switch_lanes.count(a.dev) != 0U && switch_lanes.count(b.dev) != 0U) {
        cls = {LinkType::kNvswitch, std::min(switch_lanes[a.dev], switch_lanes[b.dev])};
      } else if (a.numa_id != b.numa_id) {
        cls = {LinkType::kSys, 0};
      } else {
        // Deepest common PCIe ancestor (pci_path ends with the device's own pci element).
        const auto& pa = a.pci_path;
        const auto& pb = b.pci_path;
        size_t common = 0;
        while (common + 1 < pa.size() && common + 1 < pb.size() && pa[common] == pb[common]) ++common;
        const bool share_bridge = common > 0 || (pa.size() > 1 && pb.size() > 1 && pa[0] == pb[0]);
        if (!share_bridge) {
          cls = {LinkType::kPhb, 0};
        } else if (pa.size() >= 2 && pb.size() >= 2 && pa.size() == pb.size() &&
                   std::equal(pa.begin(), pa.end() - 1, pb.begin())) {
          cls = {LinkType::kPix, 0};
        } else {
          cls = {LinkType::kPxb, 0};
        }
      }
      out[p] = cls;
    }
  }
  return out;
}

void AddNcclTopo(Dataset& ds, const std::string& host, const std::string& source,
                 const formats::NcclTopo& topo) {
  HostEvidence& h = ds.Host(host);
  for (const auto& g : topo.gpus) {
    if (g.dev < 0) continue;
    GpuInfo& info = h.gpus[g.dev];
    info.index = g.dev;
    info.bus_id = g.bus_id;
    if (g.numa_id >= 0) info.numa_node = g.numa_id;
    info.pcie_link_speed = g.link_speed;
    info.pcie_link_width = g.link_width;
  }
  for (const auto& n : topo.nics) {
    if (n.name.empty()) continue;
    NicInfo& info = h.nics[n.name];
    info.device = n.name;
    info.bus_id = n.bus_id;
    info.numa_node = n.numa_id;
    info.speed_gbps = n.speed_mbps / 1000.0;
  }
  for (const auto& [pair, cls] : ClassifyNcclTopoPairs(topo)) {
    h.xml_links[pair] = DeclaredLink{cls, source};
  }
}

namespace {

// The GPU indices a matrix's header and rows name: both sides of a GPU<->GPU matrix, of a
// p2pBandwidthLatencyTest CPU latency table and of a CSV matrix; the side an nvbandwidth description
// calls `GPU(row)` / `GPU(column)` of a host<->device or local test (its other side is the CPU;
// without a description, the columns, as nvbandwidth prints the CPU as the row).
std::set<int> MatrixGpuIds(const formats::P2pMatrix& m, formats::P2pTool tool) {
  bool rows = true;
  bool cols = true;
  if (tool == formats::P2pTool::kNvbandwidth && !m.gpu_to_gpu) {
    rows = Contains(m.description, "GPU(row)");
    cols = m.description.empty() || Contains(m.description, "GPU(column)");
  }
  std::set<int> ids;
  if (rows) ids.insert(m.row_ids.begin(), m.row_ids.end());
  if (cols) ids.insert(m.col_ids.begin(), m.col_ids.end());
  ids.erase(-1);
  return ids;
}

}  // namespace

namespace {

// True when every measured cell of `m` is already on record for this host, with exactly this value,
// from another file: one measurement written twice (two decimals both ways), not a second run.
bool RepeatsAnotherFile(const HostEvidence& h, const formats::P2pMatrix& m, bool staged, const std::string& source) {
  bool any = false;
  for (size_t r = 0; r < m.values.size() && r < m.row_ids.size(); ++r) {
    for (size_t c = 0; c < m.values[r].size() && c < m.col_ids.size(); ++c) {
      const int a = m.row_ids[r];
      const int b = m.col_ids[c];
      const double v = m.values[r][c];
      if (a == b || std::isnan(v)) continue;
      const auto it = h.measured.find(MakePair(a, b));
      if (it == h.measured.end() || it->second.source == source) return false;
      const std::vector<double>& seen = staged ? it->second.staged_samples_gbps : it->second.samples_gbps;
      if (std::find(seen.begin(), seen.end(), v) == seen.end()) return false;
      any = true;
    }
  }
  return any;
}

}  // namespace

void AddP2pReport(Dataset& ds, const std::string& host, const std::string& source,
                  const formats::P2pReport& report) {
  HostEvidence& h = ds.Host(host);
  for (const auto& d : report.devices) {
    if (d.index < 0) continue;
    GpuInfo& g = h.gpus[d.index];
    g.index = d.index;
    if (!d.name.empty()) g.model = d.name;
  }
  // An output without `Device N:` lines (cut, or hidden by the poster) still names its GPUs in every
  // matrix, whichever quantity it measures.
  for (const auto& m : report.matrices) {
    for (int x : MatrixGpuIds(m, report.tool)) h.gpus[x].index = x;
  }
  // Prefer unidirectional P2P-enabled GPU<->GPU matrices; fall back to P2P-disabled ones.
  auto usable = [](const formats::P2pMatrix& m, bool p2p) {
    return m.gpu_to_gpu && m.quantity == formats::P2pQuantity::kBandwidthUnidirGbps && m.p2p_enabled == p2p;
  };
  bool any_enabled = false;
  for (const auto& m : report.matrices) any_enabled = any_enabled || usable(m, true);
  for (const auto& m : report.matrices) {
    // With P2P=Enabled matrices present, the P2P=Disabled ones are kept aside (staged copies).
    const bool staged = any_enabled && usable(m, false);
    if (!usable(m, any_enabled) && !staged) continue;
    // The same measurement written in two layouts (a probe's text and CSV side by side) counts once.
    if (RepeatsAnotherFile(h, m, staged, source)) continue;
    for (size_t r = 0; r < m.values.size() && r < m.row_ids.size(); ++r) {
      for (size_t c = 0; c < m.values[r].size() && c < m.col_ids.size(); ++c) {
        const int a = m.row_ids[r];
        const int b = m.col_ids[c];
        const double v = m.values[r][c];
        if (a == b || std::isnan(v)) continue;
        for (int x : {a, b}) {
          GpuInfo& g = h.gpus[x];
          g.index = x;
        }
        MeasuredLink& ml = h.measured[MakePair(a, b)];
        (staged ? ml.staged_samples_gbps : ml.samples_gbps).push_back(v);
        ml.source = source;
      }
    }
  }
}

namespace {

// A PCI bus id as NCCL's XML writes it: lowercase with a 4-digit domain ("00000000:18:00.0" ->
// "0000:18:00.0"); returned as it is when it has no domain.
std::string NormalBusId(std::string_view id) {
  std::string s = ToLowerAscii(Trim(id));
  const size_t colon = s.find(':');
  if (colon != std::string::npos && colon > 4 && s.find(':', colon + 1) != std::string::npos) {
    s.erase(0, colon - 4);
  }
  return s;
}

}  // namespace

void AddNvsmiQuery(Dataset& ds, const std::string& host, const std::string& source,
                   const formats::NvsmiQuery& query) {
  HostEvidence& h = ds.Host(host);
  const bool complete = query.attached_gpus < 0 || static_cast<size_t>(query.attached_gpus) == query.gpus.size();
  for (size_t i = 0; i < query.gpus.size(); ++i) {
    const formats::NvsmiQueryGpu& g = query.gpus[i];
    GpuQueryInfo q;
    q.bus_id = NormalBusId(g.bus_id);
    q.product_name = g.product_name;
    q.driver_version = query.driver_version;
    const formats::NvsmiAbsoluteLimits l = formats::AbsoluteLimitsOf(g);
    q.max_operating_c = l.max_operating_c;
    q.slowdown_c = l.slowdown_c;
    q.shutdown_c = l.shutdown_c;
    q.limits_form = l.form;
    q.clique_id = g.clique_id;
    q.cluster_uuid = g.cluster_uuid;
    q.source = source;
    q.line = g.line;
    for (const auto& [index, info] : h.gpus) {
      if (!info.bus_id.empty() && NormalBusId(info.bus_id) == q.bus_id) {
        q.index = index;
        q.matched_by = "bus_id";
      }
    }
    // By place, unless another source gave that index a different bus id.
    const int by_place = q.index >= 0 ? -1
                         : complete   ? static_cast<int>(i)
                         : query.gpus.size() == 1 ? query.selected_index
                                                  : -1;
    const auto known = h.gpus.find(by_place);
    if (by_place >= 0 && (known == h.gpus.end() || known->second.bus_id.empty())) {
      q.index = by_place;
      q.matched_by = complete ? "position" : "selected_index";
    }
    if (q.index >= 0) {
      GpuInfo& info = h.gpus[q.index];
      info.index = q.index;
      if (info.bus_id.empty()) info.bus_id = q.bus_id;
      if (info.model.empty()) info.model = q.product_name;
    }
    h.gpu_queries.push_back(std::move(q));
  }
}

}  // namespace toposcope::model
