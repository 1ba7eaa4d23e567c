#include "toposcope/analysis/fabric/fabric.h"

#include <algorithm>
#include <map>
#include <set>

#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

constexpr NamedValue<SwitchLevel> kLevelNames[] = {
    {SwitchLevel::kLeaf, "leaf"}, {SwitchLevel::kSpine, "spine"}, {SwitchLevel::kIsolated, "isolated"}};

// Service adapters are not hosts' adapters: SHARP aggregation nodes ("Mellanox Technologies
// Aggregation Node").
bool IsServiceAdapter(const std::string& desc) { return Contains(ToLowerAscii(desc), "aggregation node"); }

// A word that names an adapter device rather than a host ("mlx5_0", "HCA-1", "ibp65s0").
bool IsDeviceWord(std::string_view w) {
  static constexpr std::string_view kPrefixes[] = {"mlx", "hfi", "qib", "HCA", "ibp", "bnxt", "irdma", "rxe"};
  for (const auto p : kPrefixes) {
    if (StartsWith(w, p)) return true;
  }
  return false;
}

// A description of one word that is neither a device nor a vendor part number ("MT4123") names a
// host ("cn042"); returns it, or empty.
std::string LoneHostWord(const std::string& desc) {
  const auto parts = SplitWhitespace(desc);
  if (parts.size() != 1 || IsDeviceWord(parts[0])) return {};
  const std::string_view w = parts[0];
  if (w.size() > 2 && w[0] == 'M' && w[1] == 'T' && w[2] >= '0' && w[2] <= '9') return {};
  return std::string(w);
}

// Names the host an adapter belongs to (see FabricCa::name).
void NameCaHost(FabricCa& c) {
  std::tie(c.host, c.device) = formats::HostOfCaDesc(c.desc);
  if (IsServiceAdapter(c.desc)) {
    c.named_by = "service";
    return;
  }
  if (!c.host.empty()) {
    c.name = c.host;
    c.named_by = "description";
    return;
  }
  const auto parts = SplitWhitespace(c.desc);
  if (parts.size() == 1 && IsDeviceWord(parts[0])) c.device = std::string(parts[0]);
  c.name = LoneHostWord(c.desc);
  c.named_by = c.name.empty() ? "guid" : "description";
  if (c.name.empty()) c.name = c.id;
}

using PortKey = std::pair<std::string, int>;

// Every printed end of every link, by (node, port): the first dump's line wins when several dumps
// print the same port.
std::map<PortKey, FabricLinkEnd> LinkEnds(const model::Dataset& ds) {
  std::map<PortKey, FabricLinkEnd> ends;
  for (size_t d = 0; d < ds.fabrics.size(); ++d) {
    for (const auto& n : ds.fabrics[d].nodes) {
      for (const auto& p : n.ports) {
        ends.try_emplace({n.id, p.port}, FabricLinkEnd{n.id, p.port, p.width, p.speed, static_cast<int>(d), p.line});
      }
    }
  }
  return ends;
}

// The links (each once) whose two printed ends differ in width or speed.
std::vector<FabricLinkMismatch> FindMismatches(const std::map<PortKey, FabricLinkEnd>& ends,
                                               const std::vector<FabricLink>& links) {
  std::vector<FabricLinkMismatch> out;
  for (const auto& l : links) {
    const auto a = ends.find({l.a, l.a_port});
    const auto b = ends.find({l.b, l.b_port});
    if (a == ends.end() || b == ends.end()) continue;  // printed on one end only
    FabricLinkMismatch m{a->second, b->second, a->second.width != b->second.width,
                         a->second.speed != b->second.speed};
    if (m.width_differs || m.speed_differs) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

std::string_view SwitchLevelName(SwitchLevel l) { return NameIn(kLevelNames, l, "isolated"); }

FabricReport AnalyzeFabric(const model::Dataset& ds) {
  FabricReport r;
  if (ds.fabrics.empty()) return r;
  r.present = true;
  std::map<std::string, FabricSwitch> switches;
  std::map<std::string, FabricCa> cas;
  std::set<std::tuple<std::string, int, std::string, int>> seen_links;
  for (const auto& fabric : ds.fabrics) {
    for (const auto& n : fabric.nodes) {
      std::vector<FabricPort> ports;
      for (const auto& p : n.ports) ports.push_back({p.port, p.peer_guid, p.peer_port, p.rate_gbps});
      if (n.kind == formats::IbNodeKind::kSwitch) {
        FabricSwitch& s = switches[n.id];
        s.id = n.id;
        s.desc = n.desc;
        s.port_guid = !n.port0_guid.empty() ? n.port0_guid : n.guid;
        for (auto& p : ports) s.ports.push_back(std::move(p));
      } else {
        FabricCa& c = cas[n.id];
        c.id = n.id;
        c.desc = n.desc;
        c.guid = n.guid;
        NameCaHost(c);
        for (auto& p : ports) c.ports.push_back(std::move(p));
      }
    }
    for (const auto& l : formats::IbLinks(fabric)) {
      auto key = std::make_tuple(l.a_id, l.a_port, l.b_id, l.b_port);
      auto rev = std::make_tuple(l.b_id, l.b_port, l.a_id, l.a_port);
      if (seen_links.count(key) > 0 || seen_links.count(rev) > 0) continue;
      seen_links.insert(key);
      r.links.push_back({l.a_id, l.a_port, l.b_id, l.b_port, l.rate_gbps});
    }
  }
  std::set<std::string> hosts;
  for (auto& [id, s] : switches) {
    std::set<std::string> attached;
    bool any_peer = false;
    for (const auto& p : s.ports) {
      any_peer = true;
      auto c = cas.find(p.peer);
      if (c != cas.end() && !c->second.name.empty()) attached.insert(c->second.name);
    }
    s.hosts = static_cast<int>(attached.size());
    s.level =
        !attached.empty() ? SwitchLevel::kLeaf : (any_peer ? SwitchLevel::kSpine : SwitchLevel::kIsolated);
    if (!attached.empty()) {
      r.leaves.push_back({id, s.desc, std::vector<std::string>(attached.begin(), attached.end())});
    } else if (any_peer) {
      r.spines.push_back(id);
    }
    r.switches.push_back(s);
  }
  for (auto& [id, c] : cas) {
    if (!c.name.empty() && hosts.insert(c.name).second && c.named_by == "guid") ++r.hosts_named_by_guid;
    r.cas.push_back(std::move(c));
  }
  r.hosts.assign(hosts.begin(), hosts.end());
  r.mismatches = FindMismatches(LinkEnds(ds), r.links);
  return r;
}

}  // namespace toposcope::analysis
