#include "toposcope/analysis/fabric/fabric.h"

#include <algorithm>
#include <map>
#include <set>

#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

constexpr NamedValue<SwitchLevel> kLevelNames[] = {
    {SwitchLevel::kLeaf, "leaf"}, {SwitchLevel::kSpine, "spine"}, {SwitchLevel::kIsolated, "isolated"}};

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
        std::tie(c.host, c.device) = formats::HostOfCaDesc(n.desc);
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
      if (c != cas.end() && !c->second.host.empty()) attached.insert(c->second.host);
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
    if (!c.host.empty()) hosts.insert(c.host);
    r.cas.push_back(std::move(c));
  }
  r.hosts.assign(hosts.begin(), hosts.end());
  return r;
}

}  // namespace toposcope::analysis
