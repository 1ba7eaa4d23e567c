// analysis/fabric/nic_ports: see nic_ports.h.
#include "toposcope/analysis/fabric/nic_ports.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

using Key = std::tuple<std::string, std::string, int>;

void AddSource(NicPort& p, const char* source) {
  if (std::find(p.sources.begin(), p.sources.end(), source) == p.sources.end()) p.sources.push_back(source);
}

// Fills what is still empty in `p` from one ibstat / ibv_devinfo port.
void MergeDevicePort(NicPort& p, const formats::IbDevice& d, const formats::IbPort& ip) {
  auto fill = [](std::string& to, const std::string& from) {
    if (to.empty()) to = from;
  };
  fill(p.model, d.ca_type.empty() ? d.vendor_part_id : d.ca_type);
  fill(p.firmware, d.firmware);
  fill(p.node_guid, d.node_guid);
  fill(p.port_guid, ip.port_guid);
  fill(p.state, ip.state);
  fill(p.physical_state, ip.physical_state);
  fill(p.link_layer, ip.link_layer);
  if (p.rate_gbps == 0) p.rate_gbps = ip.rate_gbps;
  if (p.lid < 0) p.lid = ip.lid;
  if (p.active_mtu < 0) p.active_mtu = ip.active_mtu;
  if (p.gids.empty()) {
    for (size_t i = 0; i < ip.gids.size(); ++i) {
      p.gids.push_back({ip.gids[i].first, ip.gids[i].second, i < ip.gid_types.size() ? ip.gid_types[i] : ""});
    }
  }
}

bool IsActive(const std::string& state) { return state == "Active" || state == "PORT_ACTIVE"; }

// Ports of one device model on one host that train below the others: the rate is below the
// siblings' most common rate.
void RateFindings(const std::vector<NicPort>& ports, std::vector<NicFinding>& out) {
  std::map<std::pair<std::string, std::string>, std::map<double, int>> rates;  // (host, model) -> rate -> ports
  for (const NicPort& p : ports) {
    if (p.active && p.rate_gbps > 0 && !p.model.empty()) ++rates[{p.host, p.model + "/" + p.link_layer}][p.rate_gbps];
  }
  for (const NicPort& p : ports) {
    if (!p.active || p.rate_gbps <= 0 || p.model.empty()) continue;
    const auto& r = rates[{p.host, p.model + "/" + p.link_layer}];
    double mode = 0;
    int most = 0, total = 0;
    for (const auto& [rate, n] : r) {
      total += n;
      if (n > most || (n == most && rate > mode)) {
        most = n;
        mode = rate;
      }
    }
    if (total >= 2 && p.rate_gbps < mode && most >= 2) {
      out.push_back({"rate_below_siblings", p.host, p.device, p.port,
                     StringPrintf("%s port %d runs at %g Gb/s while %d of the %d active %s ports on %s run at %g Gb/s",
                                  p.device.c_str(), p.port, p.rate_gbps, most, total, p.model.c_str(),
                                  p.host.c_str(), mode)});
    }
  }
}

}  // namespace

NicPortReport CollectNicPorts(const model::Dataset& ds) {
  NicPortReport out;
  std::map<Key, NicPort> ports;
  auto port_of = [&](const std::string& host, const std::string& dev, int port) -> NicPort& {
    NicPort& p = ports[Key{host, dev, port}];
    p.host = host;
    p.device = dev;
    p.port = port;
    return p;
  };
  for (const auto& [host, ev] : ds.hosts) {
    for (const formats::IbDevice& d : ev.ib_devices) {
      const char* source = d.ca_type.empty() && !d.transport.empty() ? "ibv_devinfo" : "ibstat";
      for (const formats::IbPort& ip : d.ports) {
        NicPort& p = port_of(host, d.name, ip.port);
        MergeDevicePort(p, d, ip);
        AddSource(p, source);
      }
    }
    for (const formats::GidEntry& g : ev.gids) {
      NicPort& p = port_of(host, g.dev, g.port);
      auto it = std::find_if(p.gids.begin(), p.gids.end(), [&](const NicGid& x) { return x.index == g.index; });
      if (it == p.gids.end()) {
        p.gids.push_back({g.index, g.gid, g.version, g.ipv4, g.netdev});
      } else {
        if (it->ipv4.empty()) it->ipv4 = g.ipv4;
        if (it->netdev.empty()) it->netdev = g.netdev;
        if (it->type.empty()) it->type = g.version;
      }
      AddSource(p, "show_gids");
    }
    for (const formats::RdmaQp& q : ev.rdma_qps) {
      if (q.port < 0) continue;  // a QP not bound to a port yet
      NicPort& p = port_of(host, q.dev, q.port);
      ++p.qps;
      AddSource(p, "rdma");
    }
  }
  for (auto& [key, p] : ports) {
    std::sort(p.gids.begin(), p.gids.end(), [](const NicGid& a, const NicGid& b) { return a.index < b.index; });
    p.active = IsActive(p.state);
    if (!p.state.empty() && !p.active) {
      out.findings.push_back({"port_down", p.host, p.device, p.port,
                              Cat({p.device, " port ", std::to_string(p.port), " on ", p.host, " is ", p.state,
                                   p.physical_state.empty() ? "" : " (" + p.physical_state + ")"})});
    }
    out.ports.push_back(std::move(p));
  }
  RateFindings(out.ports, out.findings);
  out.present = !out.ports.empty();
  return out;
}

}  // namespace toposcope::analysis
