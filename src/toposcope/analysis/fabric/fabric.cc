#include "toposcope/analysis/fabric/fabric.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "toposcope/analysis/fabric/fabric_findings.h"
#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

constexpr NamedValue<SwitchLevel> kLevelNames[] = {
    {SwitchLevel::kLeaf, "leaf"}, {SwitchLevel::kSpine, "spine"}, {SwitchLevel::kIsolated, "isolated"}};

constexpr NamedValue<FabricFindingKind> kFindingNames[] = {
    {FabricFindingKind::kPortDownExpectedLink, "port_down_expected_link"},
    {FabricFindingKind::kLinkBelowUsual, "link_below_usual"},
    {FabricFindingKind::kSourcesDisagree, "sources_disagree"}};

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

// A GUID as 16 lowercase hex digits ("0x2c902004b2678" -> "0002c902004b2678"); empty when it is not
// 1..16 hex digits.
std::string Hex16(std::string_view g) {
  if (StartsWith(g, "0x") || StartsWith(g, "0X")) g.remove_prefix(2);
  if (g.empty() || g.size() > 16) return {};
  for (const char c : g) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) return {};
  }
  return std::string(16 - g.size(), '0') + ToLowerAscii(g);
}

// The files of the dataset's ibnetdiscover dumps, in the order of Dataset::fabrics (the inputs read
// as ibnetdiscover); empty strings when the inputs do not list them all (a dataset built in code).
std::vector<std::string> DumpPaths(const model::Dataset& ds) {
  std::vector<std::string> out;
  for (const auto& in : ds.inputs) {
    if (in.format == "ibnetdiscover" && !in.skipped) out.push_back(in.path);
  }
  if (out.size() != ds.fabrics.size()) out.assign(ds.fabrics.size(), "");
  return out;
}

// Builds the merged graph: ibnetdiscover's nodes and links first, then iblinkinfo's.
class FabricBuilder {
 public:
  explicit FabricBuilder(FabricReport& r) : r_(r) {}

  void AddDumps(const model::Dataset& ds) {
    const std::vector<std::string> paths = DumpPaths(ds);
    for (size_t d = 0; d < ds.fabrics.size(); ++d) {
      for (const auto& n : ds.fabrics[d].nodes) AddDumpNode(n, static_cast<int>(d), paths[d]);
      for (const auto& l : formats::IbLinks(ds.fabrics[d])) {
        AddLink({l.a_id, l.a_port, l.b_id, l.b_port, l.rate_gbps, ToLowerAscii(l.width), l.speed, "", ""});
      }
      if (!paths[d].empty()) r_.sources.push_back(paths[d]);
    }
  }

  void AddLinkInfos(const model::Dataset& ds) {
    for (const auto& info : ds.link_infos) NameLinkInfoNodes(info);
    for (size_t f = 0; f < ds.link_infos.size(); ++f) {
      for (const auto& p : ds.link_infos[f].ports) AddLinkInfoPort(p, static_cast<int>(f), ds.link_infos[f].source);
      if (!ds.link_infos[f].source.empty()) r_.sources.push_back(ds.link_infos[f].source);
    }
  }

  // Levels, hosts, leaves, spines, link states and tiers, mismatches.
  void Finish();

 private:
  void AddDumpNode(const formats::IbNode& n, int dump, const std::string& path) {
    std::vector<FabricPort> ports;
    for (const auto& p : n.ports) {
      ports.push_back({p.port, p.peer_guid, p.peer_port, p.rate_gbps});
      ends_.try_emplace({n.id, p.port}, FabricLinkEnd{n.id, p.port, ToLowerAscii(p.width), p.speed, dump, p.line,
                                                      "ibnetdiscover", path, ""});
      if (n.kind != formats::IbNodeKind::kSwitch && p.lid >= 0) lids_.emplace(p.lid, n.id);
      if (const std::string g = Hex16(p.port_guid); !g.empty()) port_guids_.emplace(g, n.id);
    }
    if (n.kind == formats::IbNodeKind::kSwitch) {
      if (n.lid >= 0) lids_.emplace(n.lid, n.id);
      ids_.emplace(ToLowerAscii(n.id), n.id);
      FabricSwitch& s = switches_[n.id];
      s.id = n.id;
      s.desc = n.desc;
      s.nports = std::max(s.nports, n.nports);
      s.port_guid = !n.port0_guid.empty() ? n.port0_guid : n.guid;
      for (auto& p : ports) s.ports.push_back(std::move(p));
    } else {
      FabricCa& c = cas_[n.id];
      c.id = n.id;
      c.desc = n.desc;
      c.guid = n.guid;
      NameCaHost(c);
      for (auto& p : ports) c.ports.push_back(std::move(p));
    }
  }

  // The id of every node header of an iblinkinfo output, and the LIDs of its ports.
  void NameLinkInfoNodes(const formats::IbLinkInfo& info) {
    for (const auto& p : info.ports) {
      const NodeKey key{info.source, p.node_line};
      auto it = node_ids_.find(key);
      if (it == node_ids_.end()) it = node_ids_.emplace(key, NodeIdOf(info, p)).first;
      if (p.lid > 0) lids_.emplace(p.lid, it->second);  // LID 0: not assigned (port down, no SM)
    }
  }

  // The id of the node whose header is `p`'s (see the header comment of fabric.h).
  std::string NodeIdOf(const formats::IbLinkInfo& info, const formats::IbLinkInfoPort& p) {
    if (p.switch_node) {
      const std::string guid = Hex16(p.node_guid);
      const std::string id = guid.empty() ? "S-lid-" + std::to_string(p.lid) : "S-" + guid;
      const auto known = ids_.find(id);
      return known != ids_.end() ? known->second : id;
    }
    std::string first_guid;
    int first_lid = -1;
    for (const auto& q : info.ports) {
      if (q.node_line != p.node_line) continue;
      const std::string g = Hex16(q.port_guid);
      if (auto it = port_guids_.find(g); !g.empty() && it != port_guids_.end()) return it->second;
      if (auto it = lids_.find(q.lid); q.lid > 0 && it != lids_.end() && it->second[0] == 'H') return it->second;
      if (first_guid.empty()) first_guid = g;
      if (first_lid < 0) first_lid = q.lid;
    }
    return first_guid.empty() ? "H-lid-" + std::to_string(first_lid) : "H-" + first_guid;
  }

  void AddLinkInfoPort(const formats::IbLinkInfoPort& p, int file, const std::string& source);
  // The id of the node with LID `lid`; for an unknown LID, a new adapter when `desc` names a host
  // (its port `port` linked back to `from`), else "".
  std::string PeerOf(int lid, const std::string& desc, int port, const FabricPort& back);

  void AddLink(FabricLink l) {
    const auto key = std::make_tuple(l.a, l.a_port, l.b, l.b_port);
    const auto rev = std::make_tuple(l.b, l.b_port, l.a, l.a_port);
    if (seen_links_.count(key) > 0 || seen_links_.count(rev) > 0) return;
    seen_links_.insert(key);
    r_.links.push_back(std::move(l));
  }

  // The port list of node `id` (a switch or an adapter); nullptr when there is no such node.
  std::vector<FabricPort>* PortsOf(const std::string& id) {
    if (auto s = switches_.find(id); s != switches_.end()) return &s->second.ports;
    if (auto c = cas_.find(id); c != cas_.end()) return &c->second.ports;
    return nullptr;
  }

  using NodeKey = std::pair<std::string, int64_t>;  // (iblinkinfo file, header line)
  FabricReport& r_;
  std::map<std::string, FabricSwitch> switches_;
  std::map<std::string, FabricCa> cas_;
  std::map<PortKey, FabricLinkEnd> ends_;  // every printed end of a link; the first source wins
  std::set<std::tuple<std::string, int, std::string, int>> seen_links_;
  std::map<int, std::string> lids_;         // LID -> node id (the first source wins)
  std::map<std::string, std::string> port_guids_;  // adapter port GUID (16 hex) -> node id
  std::map<std::string, std::string> ids_;  // lowercase switch id -> the id as a dump prints it
  std::map<NodeKey, std::string> node_ids_;
};

std::string FabricBuilder::PeerOf(int lid, const std::string& desc, int port, const FabricPort& back) {
  if (auto it = lids_.find(lid); it != lids_.end()) return it->second;
  if (formats::HostOfCaDesc(desc).first.empty()) return {};
  const std::string id = "H-lid-" + std::to_string(lid);
  lids_.emplace(lid, id);
  FabricCa& c = cas_[id];
  c.id = id;
  c.desc = desc;
  NameCaHost(c);
  c.ports.push_back({port, back.peer, back.peer_port, back.rate_gbps});
  return id;
}

void FabricBuilder::AddLinkInfoPort(const formats::IbLinkInfoPort& p, int file, const std::string& source) {
  const std::string& id = node_ids_.at({source, p.node_line});
  if (p.switch_node) {
    FabricSwitch& s = switches_[id];
    s.id = id;
    if (s.desc.empty()) s.desc = p.node_desc;
    if (s.port_guid.empty()) s.port_guid = Hex16(p.node_guid);
    s.nports = std::max(s.nports, p.port);
  } else if (cas_.count(id) == 0) {
    FabricCa& c = cas_[id];
    c.id = id;
    c.desc = p.node_desc;
    NameCaHost(c);
  }
  const bool down = !p.Linked() || p.state == "Down";
  if (down) r_.down_ports.push_back({id, p.port, p.state, p.phys_state, source, p.line});
  if (!p.Linked()) return;
  const std::string width = ToLowerAscii(p.width);
  const std::string peer = PeerOf(p.peer_lid, p.peer_desc, p.peer_port, {p.peer_port, id, p.port, p.rate_gbps});
  if (peer.empty()) {
    ++r_.unresolved_peers;
    return;
  }
  std::vector<FabricPort>& ports = *PortsOf(id);
  const auto known = std::find_if(ports.begin(), ports.end(), [&](const FabricPort& q) { return q.port == p.port; });
  if (known == ports.end()) {
    ports.push_back({p.port, peer, p.peer_port, p.rate_gbps});
  } else if (known->peer != peer || known->peer_port != p.peer_port) {
    FabricFinding f;
    f.kind = FabricFindingKind::kSourcesDisagree;
    f.node = id;
    f.port = p.port;
    f.peer = peer;
    f.peer_port = p.peer_port;
    f.source = source;
    f.line = p.line;
    f.evidence = "iblinkinfo links port " + std::to_string(p.port) + " to " + peer + "[" +
                 std::to_string(p.peer_port) + "], an earlier source to " + known->peer + "[" +
                 std::to_string(known->peer_port) + "]; the earlier is kept";
    r_.findings.push_back(std::move(f));
    return;
  }
  ends_.try_emplace({id, p.port},
                    FabricLinkEnd{id, p.port, width, p.speed, file, p.line, "iblinkinfo", source, p.state});
  AddLink({id, p.port, peer, p.peer_port, p.rate_gbps, width, p.speed, "", ""});
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

void FabricBuilder::Finish() {
  std::set<std::string> hosts;
  for (auto& [id, s] : switches_) {
    std::set<std::string> attached;
    bool any_peer = false;
    for (const auto& p : s.ports) {
      any_peer = true;
      auto c = cas_.find(p.peer);
      if (c != cas_.end() && !c->second.name.empty()) attached.insert(c->second.name);
    }
    s.hosts = static_cast<int>(attached.size());
    s.level = !attached.empty() ? SwitchLevel::kLeaf : (any_peer ? SwitchLevel::kSpine : SwitchLevel::kIsolated);
    if (!attached.empty()) {
      r_.leaves.push_back({id, s.desc, std::vector<std::string>(attached.begin(), attached.end())});
    } else if (any_peer) {
      r_.spines.push_back(id);
    }
    r_.switches.push_back(s);
  }
  for (auto& [id, c] : cas_) {
    if (!c.name.empty() && hosts.insert(c.name).second && c.named_by == "guid") ++r_.hosts_named_by_guid;
    r_.cas.push_back(c);
  }
  r_.hosts.assign(hosts.begin(), hosts.end());
  const auto kind = [&](const std::string& id) -> std::string {
    if (auto s = switches_.find(id); s != switches_.end()) return std::string(SwitchLevelName(s->second.level));
    if (auto c = cas_.find(id); c != cas_.end()) return c->second.name.empty() ? "service" : "host";
    return "unknown";
  };
  for (FabricLink& l : r_.links) {
    const std::string ka = kind(l.a), kb = kind(l.b);
    l.tier = std::min(ka, kb) + "-" + std::max(ka, kb);
    for (const PortKey& k : {PortKey{l.a, l.a_port}, PortKey{l.b, l.b_port}}) {
      const auto e = ends_.find(k);
      if (e == ends_.end() || e->second.state.empty()) continue;
      if (l.state.empty() || l.state == "Active") l.state = e->second.state;
    }
  }
  r_.mismatches = FindMismatches(ends_, r_.links);
}

}  // namespace

std::string_view SwitchLevelName(SwitchLevel l) { return NameIn(kLevelNames, l, "isolated"); }

std::string_view FabricFindingKindName(FabricFindingKind k) {
  return NameIn(kFindingNames, k, "port_down_expected_link");
}

FabricReport AnalyzeFabric(const model::Dataset& ds) {
  FabricReport r;
  if (ds.fabrics.empty() && ds.link_infos.empty()) return r;
  r.present = true;
  r.source_tools = !ds.fabrics.empty() && !ds.link_infos.empty() ? "ibnetdiscover+iblinkinfo"
                   : ds.fabrics.empty()                           ? "iblinkinfo"
                                                                  : "ibnetdiscover";
  FabricBuilder b(r);
  b.AddDumps(ds);
  b.AddLinkInfos(ds);
  b.Finish();
  AddFabricFindings(r);
  return r;
}

}  // namespace toposcope::analysis
