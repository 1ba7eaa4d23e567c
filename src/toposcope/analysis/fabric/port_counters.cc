// analysis/fabric/port_counters: see port_counters.h.
#include "toposcope/analysis/fabric/port_counters.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

#include "toposcope/analysis/fabric/link_weights.h"
#include "toposcope/base/text.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

constexpr double kOutlierK = 10;          // robust sd above the median
constexpr double kMinErrorRise = 25;      // symbol + receive errors a port must add at least
constexpr double kMinLinkDowned = 5;      // one read: LinkDownedCounter at least
constexpr double kWaitOverMedian = 4;     // PortXmitWait rise at least this many medians

std::string GuidKey(std::string_view g) {
  if (StartsWith(g, "0x") || StartsWith(g, "0X")) g.remove_prefix(2);
  if (g.empty() || g.size() > 16) return {};
  for (const char c : g) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) return {};
  }
  return std::string(16 - g.size(), '0') + ToLowerAscii(g);
}

// LID -> node id, from every dump that prints LIDs.
std::map<int, std::string> LidMap(const model::Dataset& ds) {
  std::map<int, std::string> lids;
  for (const auto& f : ds.fabrics) {
    for (const auto& n : f.nodes) {
      if (n.IsSwitch() && n.lid > 0) lids.emplace(n.lid, n.id);
      for (const auto& p : n.ports) {
        if (!n.IsSwitch() && p.lid > 0) lids.emplace(p.lid, n.id);
      }
    }
  }
  for (const auto& info : ds.link_infos) {
    for (const auto& p : info.ports) {
      if (!p.switch_node || p.lid <= 0) continue;
      if (const std::string g = GuidKey(p.node_guid); !g.empty()) lids.emplace(p.lid, "S-" + g);
    }
  }
  return lids;
}

// Adapter port GUID -> node id (ibnetdiscover), for ibqueryerrors' adapter lines.
std::map<std::string, std::string> PortGuidMap(const model::Dataset& ds) {
  std::map<std::string, std::string> guids;
  for (const auto& f : ds.fabrics) {
    for (const auto& n : f.nodes) {
      if (n.IsSwitch()) continue;
      for (const auto& p : n.ports) {
        if (const std::string g = GuidKey(p.port_guid); !g.empty()) guids.emplace(g, n.id);
      }
    }
  }
  return guids;
}

struct Read {
  const formats::PortCounterBlock* block;
  const std::string* source;
  size_t order;
  bool zero_absent;  // ibqueryerrors: a counter not printed was at or below its threshold
};

int64_t Value(const formats::PortCounterBlock& b, const char* name, bool zero_absent) {
  auto it = b.counters.find(name);
  if (it == b.counters.end()) return zero_absent ? 0 : -1;
  return it->second > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                                                 : static_cast<int64_t>(it->second);
}

// The rise from the first read to the last: a fall means the counter was cleared in between.
int64_t Rise(int64_t first, int64_t last) {
  if (first < 0 || last < 0) return -1;
  return last >= first ? last - first : last;
}

void Summarise(const std::vector<Read>& reads, PortCounterPort& p) {
  const formats::PortCounterBlock& first = *reads.front().block;
  const formats::PortCounterBlock& last = *reads.back().block;
  p.reads = static_cast<int>(reads.size());
  p.source = *reads.back().source;
  p.line = last.line;
  if (reads.size() >= 2 && first.has_time && last.has_time) p.span_s = last.time_s - first.time_s;
  const auto fill = [&](const char* name, int64_t& value, int64_t& rise) {
    value = Value(last, name, reads.back().zero_absent);
    if (reads.size() >= 2) rise = Rise(Value(first, name, reads.front().zero_absent), value);
  };
  fill("LinkDownedCounter", p.link_downed, p.link_downed_rise);
  fill("LinkErrorRecoveryCounter", p.link_recovery, p.link_recovery_rise);
  fill("SymbolErrorCounter", p.symbol_errors, p.symbol_errors_rise);
  fill("PortRcvErrors", p.rcv_errors, p.rcv_errors_rise);
  fill("PortXmitDiscards", p.xmit_discards, p.xmit_discards_rise);
  fill("PortXmitWait", p.xmit_wait, p.xmit_wait_rise);
}

std::map<std::string, std::string> NodeNames(const FabricReport& fabric) {
  std::map<std::string, std::string> name;
  for (const auto& s : fabric.switches) name[s.id] = s.desc.empty() ? s.id : s.desc;
  for (const auto& c : fabric.cas) name[c.id] = c.name.empty() ? c.id : c.name;
  return name;
}

// The peer of a node's port in the fabric report: (peer id, peer port), or ("", -1).
std::pair<std::string, int> PeerOf(const FabricReport& fabric, const std::string& node, int port) {
  const auto find = [&](const auto& nodes) -> std::pair<std::string, int> {
    for (const auto& n : nodes) {
      if (n.id != node) continue;
      for (const FabricPort& fp : n.ports) {
        if (fp.port == port) return {fp.peer, fp.peer_port};
      }
    }
    return {"", -1};
  };
  auto r = find(fabric.switches);
  return r.first.empty() ? find(fabric.cas) : r;
}

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// median + k x 1.4826 x max(MAD, 1) of the values (>= 0 only); NaN when there are none.
struct Cut {
  double median = NAN, cut = NAN;
};
Cut RobustCut(const std::vector<double>& v) {
  std::vector<double> x;
  for (double d : v) {
    if (d >= 0) x.push_back(d);
  }
  if (x.empty()) return {};
  const double med = stats::Median(x);
  std::vector<double> dev;
  for (double d : x) dev.push_back(std::abs(d - med));
  return {med, med + kOutlierK * stats::kMadToSigma * std::max(stats::Median(dev), 1.0)};
}

std::string Where(const PortCounterPort& p) {
  return p.node_name + " port " + std::to_string(p.port) + (p.cable.empty() ? "" : " (" + p.cable + ")");
}

// The findings among ports read the same number of ways (`rise`: ports read twice or more).
void Judge(const std::vector<PortCounterPort>& ports, bool rise, std::vector<PortCounterFinding>& out) {
  std::vector<const PortCounterPort*> set;
  for (const auto& p : ports) {
    if ((p.reads >= 2) == rise && p.port != 255) set.push_back(&p);
  }
  if (set.empty()) return;
  const auto pick = [rise](int64_t value, int64_t r) { return static_cast<double>(rise ? r : value); };
  std::vector<double> downed, errors, wait;
  for (const auto* p : set) {
    downed.push_back(pick(p->link_downed, p->link_downed_rise));
    const double s = pick(p->symbol_errors, p->symbol_errors_rise), e = pick(p->rcv_errors, p->rcv_errors_rise);
    errors.push_back(s < 0 && e < 0 ? -1 : std::max(s, 0.0) + std::max(e, 0.0));
    wait.push_back(pick(p->xmit_wait, p->xmit_wait_rise));
  }
  const Cut dc = RobustCut(downed), ec = RobustCut(errors), wc = RobustCut(wait);
  const std::string what = rise ? " rose by " : " is ";
  for (size_t i = 0; i < set.size(); ++i) {
    const PortCounterPort& p = *set[i];
    const auto add = [&](PortCounterFindingKind k, double value, double threshold, const std::string& ev) {
      out.push_back({k, p.node_name, p.port, p.cable, rise, static_cast<int64_t>(value), threshold, p.source, p.line, ev});
    };
    const std::string span = rise && p.span_s > 0 ? " in " + Fmt("%.1f", p.span_s) + " s" : rise ? " between reads" : "";
    const double dcut = rise ? 0.5 : std::max(kMinLinkDowned, dc.cut);
    if (downed[i] >= 0 && downed[i] >= dcut) {
      add(PortCounterFindingKind::kLinkDowned, downed[i], rise ? 0 : dcut,
          Where(p) + ": LinkDownedCounter" + what + Fmt("%.0f", downed[i]) + span +
              (rise ? " (the link went down and retrained)" : " (fabric median " + Fmt("%.0f", dc.median) + ")") +
              (p.link_recovery_rise > 0 ? ", LinkErrorRecoveryCounter rose by " + std::to_string(p.link_recovery_rise) : ""));
    }
    const double ecut = std::max(kMinErrorRise, ec.cut);
    if (errors[i] >= 0 && errors[i] > ecut) {
      add(PortCounterFindingKind::kLinkErrors, errors[i], ecut,
          Where(p) + ": SymbolErrorCounter + PortRcvErrors" + what + Fmt("%.0f", errors[i]) + span + " (fabric median " +
              Fmt("%.0f", ec.median) + ", cut " + Fmt("%.0f", ecut) + ")");
    }
    if (wait[i] >= 0 && wait[i] > wc.cut && wait[i] > kWaitOverMedian * wc.median) {
      add(PortCounterFindingKind::kXmitWait, wait[i], wc.cut,
          Where(p) + ": PortXmitWait" + what + Fmt("%.0f", wait[i]) + span + " (fabric median " + Fmt("%.0f", wc.median) +
              ", cut " + Fmt("%.0f", wc.cut) + ")");
    }
  }
}

}  // namespace

std::string_view PortCounterFindingKindName(PortCounterFindingKind k) {
  switch (k) {
    case PortCounterFindingKind::kLinkDowned: return "link_downed";
    case PortCounterFindingKind::kLinkErrors: return "link_errors";
    case PortCounterFindingKind::kXmitWait: return "xmit_wait";
  }
  return "link_downed";
}

namespace {

// Where a read is: the node id ("" when no dump has it), a fallback name, and the LID (-1 when the
// tool names the node by GUID).
struct Place {
  std::string node, fallback;
  int lid = -1;
};
Place PlaceOf(const formats::PortCounterBlock& b, const std::map<int, std::string>& lids,
              const std::map<std::string, std::string>& port_guids, const FabricReport& fabric) {
  Place p;
  if (b.lid >= 0) {
    p.lid = b.lid;
    auto it = lids.find(b.lid);
    if (it != lids.end()) p.node = it->second;
    p.fallback = "lid " + std::to_string(b.lid);
    return p;
  }
  // ibqueryerrors: a switch by its node GUID, an adapter by its port GUID; else its description
  // (an adapter's "<host> <device>": the host).
  if (!b.node_guid.empty()) {
    const std::string id = "S-" + GuidKey(b.node_guid);
    for (const auto& s : fabric.switches) {
      if (s.id == id) p.node = id;
    }
    p.fallback = b.node_desc.empty() ? id : b.node_desc;
  } else {
    auto it = port_guids.find(GuidKey(b.port_guid));
    if (it != port_guids.end()) p.node = it->second;
    const std::vector<std::string_view> w = SplitWhitespace(b.node_desc);
    p.fallback = w.empty() ? b.port_guid : std::string(w[0]);
  }
  return p;
}

}  // namespace

PortCounterReport AnalyzePortCounters(const model::Dataset& ds, const FabricReport& fabric) {
  PortCounterReport r;
  if (ds.port_counters.empty()) return r;
  r.present = true;
  const std::map<int, std::string> lids = LidMap(ds);
  const std::map<std::string, std::string> port_guids = PortGuidMap(ds);
  const std::map<std::string, std::string> names = NodeNames(fabric);
  const auto name_of = [&names](const std::string& id) {
    auto it = names.find(id);
    return it == names.end() ? id : it->second;
  };
  // Reads per (node, port), in time order (file order among untimed reads and ties).
  std::map<std::pair<std::string, int>, std::vector<Read>> by_port;
  std::map<std::pair<std::string, int>, Place> places;
  size_t order = 0;
  for (const auto& f : ds.port_counters) {
    for (const auto& b : f.blocks) {
      ++r.blocks;
      if (b.port < 0 || (b.lid < 0 && b.port_guid.empty())) continue;  // nothing named the port
      const Place place = PlaceOf(b, lids, port_guids, fabric);
      const std::pair<std::string, int> key{place.node.empty() ? place.fallback : place.node, b.port};
      by_port[key].push_back({&b, &f.source, order++, f.tool == "ibqueryerrors"});
      places.emplace(key, place);
    }
  }
  for (auto& [key, reads] : by_port) {
    std::stable_sort(reads.begin(), reads.end(), [](const Read& a, const Read& b) {
      const bool ta = a.block->has_time, tb = b.block->has_time;
      if (ta && tb && a.block->time_s != b.block->time_s) return a.block->time_s < b.block->time_s;
      return a.order < b.order;
    });
    const Place& place = places.at(key);
    PortCounterPort p;
    p.lid = place.lid;
    p.port = key.second;
    if (!place.node.empty()) {
      p.node = place.node;
      p.node_name = name_of(p.node);
      const auto [peer, peer_port] = PeerOf(fabric, p.node, p.port);
      if (!peer.empty()) {
        p.peer_name = name_of(peer);
        p.peer_port = peer_port;
        p.cable = CableId(p.node_name, p.peer_name);
      }
    } else {
      p.node_name = place.fallback;
      ++r.unmapped_lids;
    }
    Summarise(reads, p);
    r.ports.push_back(std::move(p));
  }
  std::sort(r.ports.begin(), r.ports.end(), [](const PortCounterPort& a, const PortCounterPort& b) {
    return std::tie(a.node_name, a.port, a.lid) < std::tie(b.node_name, b.port, b.lid);
  });
  Judge(r.ports, true, r.findings);
  Judge(r.ports, false, r.findings);
  std::stable_sort(r.findings.begin(), r.findings.end(), [](const PortCounterFinding& a, const PortCounterFinding& b) {
    return std::tie(a.kind, a.cable, a.node_name, a.port) < std::tie(b.kind, b.cable, b.node_name, b.port);
  });
  return r;
}

}  // namespace toposcope::analysis
