#include "toposcope/sim/fabric_import.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <utility>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"

namespace toposcope::sim {
namespace {

constexpr uint64_t kImportStreamLabel = 0x1A9027FAB1ULL;
constexpr double kIbSwitchLoUs = 0.10, kIbSwitchHiUs = 0.15;  // DOMAIN §2.2, IB cut-through
constexpr double kEthSwitchLoUs = 0.30, kEthSwitchHiUs = 0.50;  // as the built-in architectures
constexpr double kUnknownRateGbps = 100;

constexpr NamedValue<ImportSource> kImportSourceNames[] = {
    {ImportSource::kIbnetdiscover, "ibnetdiscover"}, {ImportSource::kTopograph, "topograph"}};
constexpr const char* kDefaultDevice = "mlx5_0";

bool NameChar(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
         ch == '-';
}

std::string Sanitize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) out.push_back(NameChar(ch) ? ch : '_');
  if (out.empty()) out = "_";
  return out;
}

double Round3(double v) { return std::round(v * 1000.0) / 1000.0; }

// "S-0002c90200417670" -> 0x0002c90200417670; a bare hex GUID too.
uint64_t GuidOf(std::string_view text) {
  if (text.size() > 2 && text[1] == '-') text.remove_prefix(2);
  if (StartsWith(text, "0x")) text.remove_prefix(2);
  uint64_t v = 0;
  for (char ch : text) {
    const int d = HexDigitValue(ch);
    if (d < 0) break;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

std::string Guid16(uint64_t guid) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(guid));
  return buf;
}

int Tier(const std::string& role) { return role == "leaf" ? 0 : role == "spine" ? 1 : 2; }

std::string SwitchLinkKind(const std::string& role_a, const std::string& role_b) {
  return Tier(role_a) <= Tier(role_b) ? role_a + "-" + role_b : role_b + "-" + role_a;
}

// Cable length range by link kind (DOMAIN §2): host DAC, leaf uplinks, higher tiers.
std::pair<double, double> LengthRange(const std::string& kind) {
  if (kind == "host") return {1.0, 3.0};
  if (StartsWith(kind, "leaf-")) return {10.0, 50.0};
  return {30.0, 60.0};
}

// The fabric options except the built-in host limit, plus the import's endpoint limit.
Status ValidateImport(const SimOptions& options, int endpoints) {
  SimOptions o = options;
  o.hosts = 1;
  o.with_fabric = true;
  if (Status st = ValidateFabricOptions(o); !st) return st;
  if (endpoints < 1) return MakeError("the imported fabric has no endpoint (no compute adapter on a switch)");
  if (endpoints > kMaxImportedEndpoints) {
    return MakeError("the imported fabric has " + std::to_string(endpoints) + " endpoints, more than " +
                         std::to_string(kMaxImportedEndpoints),
                     "import a smaller fabric or skip adapters (ImportOptions)");
  }
  return {};
}

// The cluster of an import: hosts = endpoints (in order), leaves per switch, non-leaves as spines.
Cluster MakeCluster(const SimOptions& options, const std::vector<ImportedEndpoint>& endpoints,
                    const std::vector<int>& endpoint_switch, const std::vector<FabricSwitch>& switches) {
  Cluster c;
  c.options = options;
  c.options.arch = Arch::kImported;
  c.options.hosts = static_cast<int>(endpoints.size());
  c.options.with_fabric = true;
  c.options.with_telemetry = false;
  c.options.with_rdma = false;
  c.options.faults = 0;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    HostModel h;
    h.index = static_cast<int>(i);
    h.name = endpoints[i].name;
    h.leaf = switches[static_cast<size_t>(endpoint_switch[i])].name;
    c.hosts.push_back(std::move(h));
  }
  for (size_t s = 0; s < switches.size(); ++s) {
    if (switches[s].role == "leaf") {
      FabricGroup g{switches[s].name, {}};
      for (size_t i = 0; i < endpoints.size(); ++i) {
        if (endpoint_switch[i] == static_cast<int>(s)) g.members.push_back(endpoints[i].name);
      }
      c.fabric.leaves.push_back(std::move(g));
    } else {
      c.fabric.spines.push_back(switches[s].name);
    }
  }
  return c;
}

// Unique switch names: repeats get "-<last 6 hex digits of the GUID>", then "-<k>".
void Deduplicate(std::vector<FabricSwitch>& switches) {
  std::map<std::string, int> count;
  for (const auto& s : switches) ++count[s.name];
  for (auto& s : switches) {
    if (count[s.name] > 1) s.name += "-" + Guid16(s.guid).substr(10);
  }
  std::set<std::string> seen;
  for (auto& s : switches) {
    std::string name = s.name;
    for (int k = 2; !seen.insert(name).second; ++k) name = s.name + "-" + std::to_string(k);
    s.name = name;
  }
}

int64_t LeadingInt(const std::string& line) {
  int64_t v = 0;
  for (char ch : line) {
    if (ch < '0' || ch > '9') break;
    v = v * 10 + (ch - '0');
  }
  return v;
}

// Merges several CSV texts of the same header into one, data lines stably sorted by their leading
// integer (ts_ns).
std::string MergeCsv(const std::vector<const std::string*>& texts) {
  std::string header;
  std::vector<std::pair<int64_t, std::string_view>> lines;
  for (const std::string* t : texts) {
    const std::string_view text(*t);
    size_t pos = 0;
    bool first = true;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      const std::string_view line = text.substr(pos, end - pos + (end < text.size() ? 1 : 0));
      if (first) {
        if (header.empty()) header = std::string(line);
        first = false;
      } else if (!line.empty()) {
        lines.push_back({LeadingInt(std::string(line.substr(0, std::min<size_t>(line.size(), 24)))), line});
      }
      pos = end + 1;
    }
  }
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = header;
  for (const auto& l : lines) out.append(l.second);
  return out;
}

Result<ImportedFabric> Finish(ImportedFabric im, const SimOptions& options, std::vector<FabricSwitch> switches,
                              std::vector<FabricLink> links, const std::vector<int>& endpoint_switch,
                              const std::vector<int>& endpoint_link, const std::vector<uint64_t>& endpoint_guid) {
  im.cluster = MakeCluster(options, im.endpoints, endpoint_switch, switches);
  FabricPlan graph;
  graph.switches = std::move(switches);
  graph.links = std::move(links);
  graph.host_switch = endpoint_switch;
  graph.host_link = endpoint_link;
  graph.host_guid = endpoint_guid;
  for (const ImportedEndpoint& e : im.endpoints) graph.host_dev.push_back(e.device);
  graph.imported = true;
  im.plan = PlanFabricOnGraph(im.cluster, std::move(graph));
  for (const std::string& n : im.plan.notes) im.notes.push_back(n);
  return im;
}

// The connected component (over switch-switch links) of every switch.
std::vector<int> SwitchComponents(int sw, const std::vector<FabricLink>& links) {
  std::vector<std::vector<int>> adj(static_cast<size_t>(sw));
  for (const FabricLink& l : links) {
    if (l.a < sw && l.b < sw) {
      adj[static_cast<size_t>(l.a)].push_back(l.b);
      adj[static_cast<size_t>(l.b)].push_back(l.a);
    }
  }
  std::vector<int> comp(static_cast<size_t>(sw), -1);
  int next = 0;
  for (int s = 0; s < sw; ++s) {
    if (comp[static_cast<size_t>(s)] >= 0) continue;
    std::deque<int> q{s};
    comp[static_cast<size_t>(s)] = next;
    while (!q.empty()) {
      const int u = q.front();
      q.pop_front();
      for (int v : adj[static_cast<size_t>(u)]) {
        if (comp[static_cast<size_t>(v)] < 0) {
          comp[static_cast<size_t>(v)] = next;
          q.push_back(v);
        }
      }
    }
    ++next;
  }
  return comp;
}

// A new import of `kind` from `source`.
ImportedFabric NewImport(ImportSource kind, std::string_view source, const ImportOptions& import) {
  ImportedFabric im;
  im.source_kind = kind;
  im.source = std::string(source);
  im.import_options = import;
  return im;
}

// The switches' port-to-port latency range: the import options' when valid, else the defaults;
// noted in `im`'s notes (with `note_tail` appended).
std::pair<double, double> SwitchLatencyRange(const ImportOptions& import, double lo_default, double hi_default,
                                             const std::string& note_tail, ImportedFabric& im) {
  double lo = import.switch_latency_lo_us, hi = import.switch_latency_hi_us;
  if (!(lo > 0 && hi >= lo)) {
    lo = lo_default;
    hi = hi_default;
  }
  im.notes.push_back("switch port-to-port latency " + FormatFixed(lo, 3) + "-" + FormatFixed(hi, 3) + " us" +
                     note_tail);
  return {lo, hi};
}

// Draws each switch's latency in [lo, hi] and its ECMP seed, switch by switch.
void DrawSwitchLatencies(std::vector<FabricSwitch>& switches, double lo, double hi, Rng& rng) {
  for (FabricSwitch& s : switches) {
    s.latency_us = rng.Uniform(lo, hi);
    s.ecmp_seed = static_cast<uint32_t>(rng.NextU64());
  }
}

// Draws each link's cable length (by its kind) and PHY latency, link by link.
void DrawCables(std::vector<FabricLink>& links, Rng& rng) {
  for (FabricLink& l : links) {
    const auto [lo_m, hi_m] = LengthRange(l.kind);
    l.length_m = Round3(rng.Uniform(lo_m, hi_m));
    l.phy_us = rng.Uniform(0.05, 0.12);
  }
}

// Sets links' rates from their width and speed; counts those it cannot rate (simulated at
// kUnknownRateGbps).
struct LinkRates {
  int unknown = 0;
  void Set(FabricLink& l, const std::string& width, const std::string& speed) {
    l.width = width;
    l.speed = speed;
    l.rate_gbps = formats::IbRateGbps(width, speed);
    if (l.rate_gbps <= 0) {
      l.rate_gbps = kUnknownRateGbps;
      ++unknown;
    }
  }
};

// ---- ibnetdiscover ----

using SwitchIndex = std::unordered_map<std::string, int>;  // node id -> plan switch

// The dump's switches in file order, with unique names; fills `switch_index` and im.switch_ids.
std::vector<FabricSwitch> IbSwitches(const formats::IbFabric& fabric, SwitchIndex& switch_index, ImportedFabric& im) {
  std::vector<FabricSwitch> switches;
  for (const formats::IbNode& n : fabric.nodes) {
    if (!n.IsSwitch()) continue;
    FabricSwitch s;
    s.desc = n.desc;
    s.name = ImportedSwitchName(n.desc);
    s.guid = GuidOf(n.guid.empty() ? n.id : n.guid);
    s.lid = n.lid;
    std::set<int> ports;
    for (const auto& p : n.ports) ports.insert(p.port);
    s.ports = static_cast<int>(ports.size());
    switch_index[n.id] = static_cast<int>(switches.size());
    im.switch_ids.push_back(n.id);
    switches.push_back(std::move(s));
  }
  Deduplicate(switches);
  return switches;
}

// A compute adapter that can be an endpoint: its node, its first port to a switch, and the host
// and device its description names (unnamed: "ca-<GUID>").
struct IbAdapter {
  const formats::IbNode* node;
  const formats::IbPortLink* port;
  std::string host, device;
  bool unnamed;
};

// The dump's adapters that can be endpoints; the others (routers, skipped descriptions, no link to
// a switch, unnamed unless included) are listed in im.skipped with the reason.
std::vector<IbAdapter> IbAdapters(const formats::IbFabric& fabric, const ImportOptions& import,
                                  const SwitchIndex& switch_index, ImportedFabric& im) {
  std::vector<IbAdapter> cands;
  for (const formats::IbNode& n : fabric.nodes) {
    if (n.IsSwitch()) continue;
    auto skip = [&](const std::string& reason) { im.skipped.push_back({n.id, n.desc, reason}); };
    if (n.kind == formats::IbNodeKind::kRouter) {
      skip("router");
      continue;
    }
    std::string matched;
    for (const std::string& sub : import.skip_desc_substrings) {
      if (!sub.empty() && Contains(n.desc, sub)) matched = sub;
    }
    if (!matched.empty()) {
      skip(matched == "Aggregation Node" ? "SHARP aggregation node" : "description matches '" + matched + "'");
      continue;
    }
    const formats::IbPortLink* port = nullptr;
    for (const auto& p : n.ports) {
      if (p.PeerIsSwitch() && switch_index.count(p.peer_guid) > 0) {
        port = &p;
        break;
      }
    }
    if (port == nullptr) {
      skip(n.ports.empty() ? "no link (isolated adapter)" : "no link to a switch");
      continue;
    }
    auto [host, device] = formats::HostOfCaDesc(n.desc);
    if (host.empty()) {
      if (!import.include_unnamed_cas) {
        skip("no host name in the description (unnamed adapter)");
        continue;
      }
      cands.push_back({&n, port, "ca-" + Guid16(GuidOf(n.id)), kDefaultDevice, true});
    } else {
      cands.push_back({&n, port, host, device, false});
    }
  }
  return cands;
}

// The adapters' endpoint names (ImportedEndpointName; an adapter whose name is taken is skipped),
// sorted: (name, adapter index).
std::vector<std::pair<std::string, size_t>> NameIbEndpoints(const std::vector<IbAdapter>& cands, ImportedFabric& im) {
  std::map<std::string, int> adapters;
  for (const IbAdapter& c : cands) {
    if (!c.unnamed) ++adapters[c.host];
  }
  std::vector<std::pair<std::string, size_t>> named;
  std::set<std::string> used;
  for (size_t i = 0; i < cands.size(); ++i) {
    const IbAdapter& c = cands[i];
    const std::string name = c.unnamed ? Sanitize(c.host) : ImportedEndpointName(c.host, c.device, adapters[c.host]);
    if (!used.insert(name).second) {
      im.skipped.push_back({c.node->id, c.node->desc, "duplicate endpoint name '" + name + "'"});
      continue;
    }
    named.push_back({name, i});
  }
  std::sort(named.begin(), named.end());
  return named;
}

// The dump's switch-switch links, ports as printed.
std::vector<FabricLink> IbSwitchLinks(const std::vector<formats::IbLink>& ib_links, const SwitchIndex& switch_index,
                                      LinkRates& rates) {
  std::vector<FabricLink> sw_links;
  for (const formats::IbLink& l : ib_links) {
    auto a = switch_index.find(l.a_id), b = switch_index.find(l.b_id);
    if (a == switch_index.end() || b == switch_index.end()) continue;
    FabricLink fl;
    fl.a = a->second;
    fl.b = b->second;
    fl.a_port = l.a_port;
    fl.b_port = l.b_port;
    rates.Set(fl, l.width, l.speed);
    sw_links.push_back(std::move(fl));
  }
  return sw_links;
}

// The switch component with the most endpoints (the lowest on a tie).
int MainComponent(const std::vector<int>& comp, const std::vector<int>& endpoint_switch) {
  std::map<int, int> comp_endpoints;
  for (int s : endpoint_switch) ++comp_endpoints[comp[static_cast<size_t>(s)]];
  int main_comp = -1, best = -1;
  for (const auto& [cid, n] : comp_endpoints) {
    if (n > best) {
      best = n;
      main_comp = cid;
    }
  }
  return main_comp;
}

// The endpoints of an import and their attachment: per endpoint its switch, host link and
// adapter GUID, and the links so far (the host links first).
struct Attachment {
  std::vector<int> endpoint_switch, endpoint_link;
  std::vector<uint64_t> endpoint_guid;
  std::vector<FabricLink> links;
};

// The kept adapters as endpoints (their switches become leaves), each with its host link.
Attachment AttachIbEndpoints(const std::vector<std::pair<const IbAdapter*, std::string>>& kept,
                             const SwitchIndex& switch_index, std::vector<FabricSwitch>& switches, LinkRates& rates,
                             ImportedFabric& im) {
  Attachment at;
  const int sw = static_cast<int>(switches.size());
  for (size_t e = 0; e < kept.size(); ++e) {
    const IbAdapter& c = *kept[e].first;
    const int s = switch_index.at(c.port->peer_guid);
    switches[static_cast<size_t>(s)].role = "leaf";
    ImportedEndpoint ep;
    ep.name = kept[e].second;
    ep.host = c.unnamed ? ep.name : c.host;
    ep.device = c.device;
    ep.ca_id = c.node->id;
    ep.desc = c.node->desc;
    ep.dir = Sanitize(ep.host);
    im.endpoints.push_back(std::move(ep));
    FabricLink l;
    l.a = s;
    l.b = sw + static_cast<int>(e);
    l.a_port = c.port->peer_port;
    l.b_port = c.port->port;
    l.kind = "host";
    rates.Set(l, c.port->width, c.port->speed);
    at.endpoint_switch.push_back(s);
    at.endpoint_link.push_back(static_cast<int>(at.links.size()));
    at.endpoint_guid.push_back(GuidOf(c.node->guid.empty() ? c.node->id : c.node->guid));
    at.links.push_back(std::move(l));
  }
  return at;
}

}  // namespace

std::string_view ImportSourceName(ImportSource s) { return NameIn(kImportSourceNames, s, "ibnetdiscover"); }

std::string ImportedEndpointName(std::string_view host, std::string_view device, int adapters_of_host) {
  if (adapters_of_host <= 1) return Sanitize(host);
  return Sanitize(std::string(host) + "-" + std::string(device));
}

std::string ImportedSwitchName(std::string_view desc) {
  std::string_view d = Trim(desc);
  const size_t semi = d.find(';');
  if (semi != std::string_view::npos) {
    const size_t colon = d.find(':', semi + 1);
    if (colon != std::string_view::npos && colon > semi + 1) return Sanitize(Trim(d.substr(semi + 1, colon - semi - 1)));
  }
  const size_t hash = d.find(" # ");
  if (hash != std::string_view::npos && !Trim(d.substr(hash + 3)).empty()) return Sanitize(Trim(d.substr(hash + 3)));
  if (d.empty()) return "switch";
  return Sanitize(d);
}

Result<ImportedFabric> ImportIbFabric(const formats::IbFabric& fabric, const SimOptions& options,
                                      const ImportOptions& import, std::string_view source) {
  ImportedFabric im = NewImport(ImportSource::kIbnetdiscover, source, import);
  im.source_switches = fabric.SwitchCount();
  im.source_cas = fabric.CaCount();
  const std::vector<formats::IbLink> ib_links = formats::IbLinks(fabric);
  im.source_links = static_cast<int64_t>(ib_links.size());
  if (im.source_switches == 0) return MakeError("the fabric has no switch: nothing to simulate", "import a dump of a switched fabric");

  SwitchIndex switch_index;
  std::vector<FabricSwitch> switches = IbSwitches(fabric, switch_index, im);
  const int sw = static_cast<int>(switches.size());
  const std::vector<IbAdapter> cands = IbAdapters(fabric, import, switch_index, im);
  const std::vector<std::pair<std::string, size_t>> named = NameIbEndpoints(cands, im);

  // RNG draws: switches, then host links, then switch links, in order.
  Rng rng(Rng::Mix(options.seed, kImportStreamLabel));
  const auto [lo, hi] = SwitchLatencyRange(import, kIbSwitchLoUs, kIbSwitchHiUs, "", im);
  DrawSwitchLatencies(switches, lo, hi, rng);
  LinkRates rates;
  // Endpoints: leaf switches are those with an endpoint; drop endpoints outside the main fabric
  // (components over the switch-switch links, ports as printed).
  std::vector<int> endpoint_switch_all;
  for (const auto& [name, i] : named) endpoint_switch_all.push_back(switch_index.at(cands[i].port->peer_guid));
  std::vector<FabricLink> sw_links = IbSwitchLinks(ib_links, switch_index, rates);
  const std::vector<int> comp = SwitchComponents(sw, sw_links);
  const int main_comp = MainComponent(comp, endpoint_switch_all);
  std::vector<std::pair<const IbAdapter*, std::string>> kept;
  for (size_t k = 0; k < named.size(); ++k) {
    const IbAdapter& c = cands[named[k].second];
    if (comp[static_cast<size_t>(endpoint_switch_all[k])] != main_comp) {
      im.skipped.push_back({c.node->id, c.node->desc, "its switch is not connected to the main fabric"});
      continue;
    }
    kept.push_back({&c, named[k].first});
  }
  if (Status st = ValidateImport(options, static_cast<int>(kept.size())); !st) return st.error();
  Attachment at = AttachIbEndpoints(kept, switch_index, switches, rates, im);
  for (FabricSwitch& s : switches) {
    if (s.role.empty()) s.role = "spine";
  }
  for (FabricLink& l : sw_links) {
    l.kind = SwitchLinkKind(switches[static_cast<size_t>(l.a)].role, switches[static_cast<size_t>(l.b)].role);
    at.links.push_back(std::move(l));
  }
  DrawCables(at.links, rng);
  if (rates.unknown > 0) {
    im.notes.push_back(std::to_string(rates.unknown) + " links of unknown width/speed simulated at 100 Gb/s");
  }
  im.ibnet = fabric;
  return Finish(std::move(im), options, std::move(switches), std::move(at.links), at.endpoint_switch,
                at.endpoint_link, at.endpoint_guid);
}

namespace {

// ---- topograph ----

// The model's switches (the first of each name).
std::vector<FabricSwitch> TopographSwitches(const formats::TopographModel& model, std::map<std::string, int>& index) {
  std::vector<FabricSwitch> switches;
  for (const formats::TopographSwitch& t : model.switches) {
    if (index.count(t.name) > 0) continue;
    FabricSwitch s;
    s.name = Sanitize(t.name);
    s.desc = t.name;
    index[t.name] = static_cast<int>(switches.size());
    switches.push_back(std::move(s));
  }
  return switches;
}

// Endpoints: the nodes of blocks under a known switch, sorted: (name, switch). The others, and
// repeated names, are listed in im.skipped.
std::vector<std::pair<std::string, int>> TopographEndpoints(const formats::TopographModel& model,
                                                            const std::map<std::string, int>& index,
                                                            ImportedFabric& im) {
  std::vector<std::pair<std::string, int>> nodes;
  std::set<std::string> used;
  for (const formats::TopographCapacityBlock& b : model.capacity_blocks) {
    const auto it = index.find(b.switch_name);
    for (const std::string& n : b.nodes) {
      if (b.switch_name.empty() || it == index.end()) {
        im.skipped.push_back({n, b.name, b.switch_name.empty() ? "block under no switch" : "block under unknown switch '" + b.switch_name + "'"});
        continue;
      }
      const std::string name = Sanitize(n);
      if (!used.insert(name).second) {
        im.skipped.push_back({n, b.name, "duplicate endpoint name '" + name + "'"});
        continue;
      }
      nodes.push_back({name, it->second});
    }
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

// Roles by height above the leaves (switches with endpoints): 0 leaf, 1 spine, >= 2 core.
void AssignTopographRoles(const formats::TopographModel& model, const std::map<std::string, int>& index,
                          const std::vector<std::pair<std::string, int>>& nodes, std::vector<FabricSwitch>& switches) {
  for (const auto& [name, s] : nodes) switches[static_cast<size_t>(s)].role = "leaf";
  std::vector<int> height(switches.size(), -1);
  for (size_t s = 0; s < switches.size(); ++s) {
    if (switches[s].role == "leaf") height[s] = 0;
  }
  for (size_t round = 0; round < switches.size(); ++round) {
    bool changed = false;
    for (const formats::TopographSwitch& t : model.switches) {
      const size_t p = static_cast<size_t>(index.at(t.name));
      for (const std::string& child : t.switches) {
        const auto c = index.find(child);
        if (c == index.end() || height[static_cast<size_t>(c->second)] < 0) continue;
        const int h = height[static_cast<size_t>(c->second)] + 1;
        if (height[p] != 0 && (height[p] < 0 || h < height[p])) {
          height[p] = h;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  for (size_t s = 0; s < switches.size(); ++s) {
    if (switches[s].role.empty()) switches[s].role = height[s] >= 2 ? "core" : "spine";
  }
}

// The endpoints with their host links, then the model's switch links (lower tier first), all 4x
// NDR with ports numbered in order of creation; cables are drawn later.
Attachment TopographLinks(const formats::TopographModel& model, const std::map<std::string, int>& index,
                          const std::vector<std::pair<std::string, int>>& nodes, std::vector<FabricSwitch>& switches,
                          ImportedFabric& im) {
  Attachment at;
  const int sw = static_cast<int>(switches.size());
  auto add_link = [&](int a, int b, const std::string& kind) {
    FabricLink l;
    l.a = a;
    l.b = b;
    l.kind = kind;
    l.a_port = ++switches[static_cast<size_t>(a)].ports;
    l.b_port = b < sw ? ++switches[static_cast<size_t>(b)].ports : 1;
    l.width = "4x";
    l.speed = "NDR";
    l.rate_gbps = formats::IbRateGbps("4x", "NDR");
    at.links.push_back(std::move(l));
    return static_cast<int>(at.links.size()) - 1;
  };
  for (size_t e = 0; e < nodes.size(); ++e) {
    ImportedEndpoint ep;
    ep.name = nodes[e].first;
    ep.host = ep.name;
    ep.device = kDefaultDevice;
    ep.desc = ep.name + " " + kDefaultDevice;
    ep.dir = ep.name;
    im.endpoints.push_back(std::move(ep));
    at.endpoint_switch.push_back(nodes[e].second);
    at.endpoint_link.push_back(add_link(nodes[e].second, sw + static_cast<int>(e), "host"));
  }
  for (const formats::TopographSwitch& t : model.switches) {
    const int p = index.at(t.name);
    for (const std::string& child : t.switches) {
      const auto c = index.find(child);
      if (c == index.end()) continue;
      const FabricSwitch& cs = switches[static_cast<size_t>(c->second)];
      const FabricSwitch& ps = switches[static_cast<size_t>(p)];
      // Lower tier first (as SwitchLinkKind names it).
      if (Tier(cs.role) <= Tier(ps.role)) {
        add_link(c->second, p, SwitchLinkKind(cs.role, ps.role));
      } else {
        add_link(p, c->second, SwitchLinkKind(cs.role, ps.role));
      }
    }
  }
  return at;
}

}  // namespace

Result<ImportedFabric> ImportTopographModel(const formats::TopographModel& model, const SimOptions& options,
                                            const ImportOptions& import, std::string_view source) {
  ImportedFabric im = NewImport(ImportSource::kTopograph, source, import);
  if (model.switches.empty()) return MakeError("the topograph model has no switch: nothing to simulate");
  std::map<std::string, int> index;
  std::vector<FabricSwitch> switches = TopographSwitches(model, index);
  const std::vector<std::pair<std::string, int>> nodes = TopographEndpoints(model, index, im);
  if (Status st = ValidateImport(options, static_cast<int>(nodes.size())); !st) return st.error();
  im.source_switches = static_cast<int64_t>(switches.size());
  im.source_cas = static_cast<int64_t>(nodes.size() + im.skipped.size());
  AssignTopographRoles(model, index, nodes, switches);

  Rng rng(Rng::Mix(options.seed, kImportStreamLabel));
  const auto [lo, hi] =
      SwitchLatencyRange(import, kEthSwitchLoUs, kEthSwitchHiUs, "; links 4x NDR (the model gives no rates)", im);
  DrawSwitchLatencies(switches, lo, hi, rng);
  for (size_t i = 0; i < switches.size(); ++i) {
    switches[i].guid = 0xfc6a1c0300a00000ULL + (static_cast<uint64_t>(i) << 4);
    switches[i].lid = static_cast<int>(i) + 1;
  }
  Attachment at = TopographLinks(model, index, nodes, switches, im);
  DrawCables(at.links, rng);
  im.source_links = static_cast<int64_t>(at.links.size());
  const int sw = static_cast<int>(switches.size());
  const std::vector<int> comp = SwitchComponents(sw, at.links);
  for (size_t e = 1; e < at.endpoint_switch.size(); ++e) {
    if (comp[static_cast<size_t>(at.endpoint_switch[e])] != comp[static_cast<size_t>(at.endpoint_switch[0])]) {
      return MakeError("the topograph model's switches form more than one tree (" + im.endpoints[e].name +
                           " is not connected to " + im.endpoints[0].name + ")",
                       "import a model with a single root");
    }
  }
  return Finish(std::move(im), options, std::move(switches), std::move(at.links), at.endpoint_switch,
                at.endpoint_link, {});
}

Result<ImportedFabric> ImportFabricFromOptions(const SimOptions& options, const ImportOptions& import) {
  const bool ibnet = !options.fabric_ibnet_path.empty();
  const std::string& path = ibnet ? options.fabric_ibnet_path : options.fabric_topograph_path;
  if (path.empty()) {
    return MakeKindError(ErrorKind::kUsage, "no fabric to import",
                         "set fabric_ibnet_path or fabric_topograph_path");
  }
  Result<std::string> text = ReadFileText(path);
  if (!text.ok()) return text.error();
  Diagnostics diag;
  if (ibnet) {
    Result<formats::IbFabric> f = formats::ParseIbnetdiscover(*text, path, diag);
    if (!f.ok()) return f.error();
    return ImportIbFabric(*f, options, import, path);
  }
  Result<formats::TopographModel> m = formats::ParseTopographModel(*text, path, diag);
  if (!m.ok()) return m.error();
  return ImportTopographModel(*m, options, import, path);
}

std::vector<std::string> ImportedEndpointFiles(const ImportedFabric& im, int endpoint) {
  const std::string& dir = im.endpoints[static_cast<size_t>(endpoint)].dir;
  std::vector<std::string> out{dir + "/" + kProbesFile};
  if (im.import_options.qp_states) out.push_back(dir + "/" + kQpStatesFile);
  return out;
}

std::vector<FabricGroup> ImportedLeaves(const ImportedFabric& im) { return im.cluster.fabric.leaves; }

std::vector<RenderedFile> RenderImportedFabric(const ImportedFabric& im, FabricStats* stats) {
  FabricStats st;
  std::vector<RenderedFile> files = RenderFabric(im.cluster, im.plan, &st);
  std::unordered_map<std::string, const std::string*> text_of;
  for (const RenderedFile& f : files) text_of[f.path] = &f.text;
  // Per host directory, its endpoints' files.
  std::map<std::string, std::vector<int>> dirs;
  for (size_t e = 0; e < im.endpoints.size(); ++e) dirs[im.endpoints[e].dir].push_back(static_cast<int>(e));
  std::vector<RenderedFile> out;
  for (const auto& [dir, eps] : dirs) {
    const size_t kinds = im.import_options.qp_states ? 2 : 1;
    for (size_t k = 0; k < kinds; ++k) {
      std::vector<const std::string*> texts;
      for (int e : eps) {
        const std::string path = FabricHostFiles(im.cluster.hosts[static_cast<size_t>(e)])[k];
        const auto it = text_of.find(path);
        if (it != text_of.end()) texts.push_back(it->second);
      }
      out.push_back({ImportedEndpointFiles(im, eps.front())[k], MergeCsv(texts)});
    }
  }
  if (im.ibnet.has_value()) {
    formats::IbFabric f = *im.ibnet;
    if (im.plan.degraded_link >= 0) {
      // The degraded link as a fresh ibnetdiscover would print it: width 1x at both ends.
      const FabricLink& l = im.plan.links[static_cast<size_t>(im.plan.degraded_link)];
      const int sw = static_cast<int>(im.plan.switches.size());
      auto id_of = [&](int node) {
        return node < sw ? im.switch_ids[static_cast<size_t>(node)] : im.endpoints[static_cast<size_t>(node - sw)].ca_id;
      };
      const std::string a = id_of(l.a), b = id_of(l.b);
      for (formats::IbNode& n : f.nodes) {
        for (formats::IbPortLink& p : n.ports) {
          if ((n.id == a && p.port == l.a_port && p.peer_guid == b) || (n.id == b && p.port == l.b_port && p.peer_guid == a)) {
            p.width = l.width;
            p.rate_gbps = formats::IbRateGbps(p.width, p.speed);
          }
        }
      }
    }
    out.push_back({kFabricIbnetFile, formats::WriteIbnetdiscover(f)});
  } else {
    out.push_back({kFabricIbnetFile, *text_of[kFabricIbnetFile]});
  }
  out.push_back({kTruthFile, ImportedTruthJson(im, st)});
  if (stats != nullptr) *stats = std::move(st);
  return out;
}

std::string ImportedTruthJson(const ImportedFabric& im, const FabricStats& stats) {
  using nlohmann::json;
  const Cluster& c = im.cluster;
  const FabricPlan& p = im.plan;
  json root;
  root["seed"] = c.options.seed;
  root["arch"] = "imported";
  root["source"] = {{"kind", std::string(ImportSourceName(im.source_kind))},
                    {"file", im.source},
                    {"switches", im.source_switches},
                    {"cas", im.source_cas},
                    {"links", im.source_links}};
  json hosts = json::array();
  for (size_t e = 0; e < im.endpoints.size(); ++e) {
    const ImportedEndpoint& ep = im.endpoints[e];
    hosts.push_back({{"name", ep.name},
                     {"host", ep.host},
                     {"device", ep.device},
                     {"leaf", c.hosts[e].leaf},
                     {"files", json::array()}});
  }
  root["hosts"] = std::move(hosts);
  root["gpus"] = json::array();
  root["islands"] = json::array();
  root["links"] = json::array();
  root["faults"] = json::array();
  json fabric;
  json leaves = json::array();
  for (const FabricGroup& g : c.fabric.leaves) {
    std::string desc;
    for (const FabricSwitch& s : p.switches) {
      if (s.name == g.name) desc = s.desc;
    }
    leaves.push_back({{"switch", g.name}, {"desc", desc}, {"hosts", g.members}});
  }
  fabric["leaves"] = std::move(leaves);
  fabric["spines"] = c.fabric.spines;
  fabric["groups"] = json::array();
  fabric["rings"] = json::array();
  root["fabric"] = std::move(fabric);
  AddFabricTruth(c, p, stats, &root);

  json& f = root["fabric"];
  f["arch"] = "imported";
  auto& cas = f["cas"];
  for (size_t e = 0; e < im.endpoints.size() && e < cas.size(); ++e) {
    cas[e]["desc"] = im.endpoints[e].desc;
    cas[e]["device"] = im.endpoints[e].device;
    cas[e]["node"] = im.endpoints[e].host;
    if (!im.endpoints[e].ca_id.empty()) cas[e]["id"] = im.endpoints[e].ca_id;
  }
  // Pods: ibnetdiscover one pod of every leaf and non-leaf switch; topograph one pod per parent of
  // leaves (its leaves and itself).
  json pods = json::array();
  if (im.source_kind == ImportSource::kIbnetdiscover) {
    json lv = json::array();
    for (const FabricGroup& g : c.fabric.leaves) lv.push_back(g.name);
    pods.push_back({{"pod", "pod0"}, {"leaves", lv}, {"spines", c.fabric.spines}});
  } else {
    const int sw = static_cast<int>(p.switches.size());
    std::map<int, std::set<int>> parent_leaves;
    for (const FabricLink& l : p.links) {
      if (l.a >= sw || l.b >= sw || l.kind != "leaf-spine") continue;
      parent_leaves[l.b].insert(l.a);
    }
    for (const auto& [parent, lvs] : parent_leaves) {
      json lv = json::array();
      for (int s : lvs) lv.push_back(p.switches[static_cast<size_t>(s)].name);
      pods.push_back({{"pod", p.switches[static_cast<size_t>(parent)].name},
                      {"leaves", lv},
                      {"spines", json::array({p.switches[static_cast<size_t>(parent)].name})}});
    }
  }
  f["pods"] = std::move(pods);
  json skipped = json::array();
  for (const SkippedCa& s : im.skipped) skipped.push_back({{"id", s.id}, {"desc", s.desc}, {"reason", s.reason}});
  f["skipped_cas"] = std::move(skipped);
  f["import"] = {{"kind", std::string(ImportSourceName(im.source_kind))},
                 {"file", im.source},
                 {"endpoints", im.endpoints.size()},
                 {"skipped", im.skipped.size()},
                 {"endpoint_naming", "<host> when it has one compute adapter, else <host>-<device>; unnamed "
                                     "adapters ca-<guid16>; characters outside [A-Za-z0-9._-] -> _"},
                 {"notes", im.notes}};
  auto& th = root["hosts"];
  for (size_t e = 0; e < im.endpoints.size() && e < th.size(); ++e) {
    th[e]["fabric_files"] = ImportedEndpointFiles(im, static_cast<int>(e));
  }
  std::string text = root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  text.insert(2, "  \"schema\": \"toposcope.truth/1\",\n");
  return text + "\n";
}

}  // namespace toposcope::sim
