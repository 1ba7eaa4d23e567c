// analysis/fabric/fabric_findings: see fabric_findings.h.
#include "toposcope/analysis/fabric/fabric_findings.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

using PortKey = std::pair<std::string, int>;

// "4x" -> 4; 0 when unknown.
int Lanes(const std::string& width) {
  if (width.size() < 2 || width.back() != 'x') return 0;
  return static_cast<int>(ParseInt(width.substr(0, width.size() - 1)).value_or(0));
}

// The per-lane rate of a speed name (formats::IbRateGbps of one lane); 0 when unknown.
double LaneGbps(const std::string& speed) { return formats::IbRateGbps("1x", speed); }

std::string Port(const std::string& node, int port) { return node + "[" + std::to_string(port) + "]"; }

// Down ports where a link is expected.
void DownPortFindings(FabricReport& r) {
  std::map<PortKey, const FabricLink*> linked;
  for (const FabricLink& l : r.links) {
    linked.emplace(PortKey{l.a, l.a_port}, &l);
    linked.emplace(PortKey{l.b, l.b_port}, &l);
  }
  std::map<std::string, const FabricSwitch*> switches;
  for (const FabricSwitch& s : r.switches) switches[s.id] = &s;
  for (const FabricDownPort& d : r.down_ports) {
    FabricFinding f;
    f.kind = FabricFindingKind::kPortDownExpectedLink;
    f.node = d.node;
    f.port = d.port;
    f.source = d.source;
    f.line = d.line;
    const std::string what = Port(d.node, d.port) + " is " + d.state + "/" + d.phys_state;
    if (auto it = linked.find({d.node, d.port}); it != linked.end()) {
      const FabricLink& l = *it->second;
      const bool a = l.a == d.node && l.a_port == d.port;
      f.peer = a ? l.b : l.a;
      f.peer_port = a ? l.b_port : l.a_port;
      f.tier = l.tier;
      f.evidence = what + " but the peer side links it to " + Port(f.peer, f.peer_port) +
                   " (another source or the other end's line)";
      r.findings.push_back(std::move(f));
      continue;
    }
    const auto sw = switches.find(d.node);
    if (sw == switches.end()) continue;
    const FabricSwitch& s = *sw->second;
    int others = 0, with_link = 0;
    for (const FabricSwitch& o : r.switches) {
      if (o.id == s.id || o.level != s.level || o.nports != s.nports) continue;
      ++others;
      with_link += std::any_of(o.ports.begin(), o.ports.end(), [&](const FabricPort& p) { return p.port == d.port; });
    }
    if (with_link < 2 || 2 * with_link <= others) continue;
    f.tier = std::string(SwitchLevelName(s.level));
    f.evidence = what + " but port " + std::to_string(d.port) + " is linked on " + std::to_string(with_link) +
                 " of the " + std::to_string(others) + " other " + f.tier + " switches with " +
                 std::to_string(s.nports) + " ports (switch pattern)";
    r.findings.push_back(std::move(f));
  }
}

// Active links slower than their tier's usual width x speed.
void BelowUsualFindings(FabricReport& r) {
  using Pair = std::pair<std::string, std::string>;  // (width, speed)
  std::map<std::string, std::map<Pair, int>> counts;  // tier -> pair -> active links
  const auto usable = [](const FabricLink& l) {
    return (l.state.empty() || l.state == "Active") && Lanes(l.width) > 0 && LaneGbps(l.speed) > 0;
  };
  for (const FabricLink& l : r.links) {
    if (usable(l)) ++counts[l.tier][{l.width, l.speed}];
  }
  std::map<std::string, std::pair<Pair, int>> usual;  // tier -> (pair, count, links)
  std::map<std::string, int> tier_links;
  for (const auto& [tier, by_pair] : counts) {
    int best = 0, second = 0, total = 0;
    Pair mode;
    for (const auto& [pair, n] : by_pair) {
      total += n;
      if (n > best) {
        second = best;
        best = n;
        mode = pair;
      } else if (n > second) {
        second = n;
      }
    }
    tier_links[tier] = total;
    if (best >= 2 && best > second) usual[tier] = {mode, best};
  }
  for (const FabricLink& l : r.links) {
    const auto u = usual.find(l.tier);
    if (!usable(l) || u == usual.end()) continue;
    const auto& [mode, n] = u->second;
    const bool narrow = Lanes(l.width) < Lanes(mode.first);
    const bool slow = LaneGbps(l.speed) < LaneGbps(mode.second);
    if (!narrow && !slow) continue;
    FabricFinding f;
    f.kind = FabricFindingKind::kLinkBelowUsual;
    f.node = l.a;
    f.port = l.a_port;
    f.peer = l.b;
    f.peer_port = l.b_port;
    f.width = l.width;
    f.speed = l.speed;
    f.usual_width = mode.first;
    f.usual_speed = mode.second;
    f.tier = l.tier;
    f.evidence = Port(l.a, l.a_port) + " -- " + Port(l.b, l.b_port) + " runs " + l.width + " " + l.speed + " (" +
                 FormatFixed(l.rate_gbps, 1) + " Gb/s) where " + std::to_string(n) + " of the " +
                 std::to_string(tier_links[l.tier]) + " active " + l.tier + " links run " + mode.first + " " +
                 mode.second + " (" + FormatFixed(formats::IbRateGbps(mode.first, mode.second), 1) + " Gb/s): " +
                 (narrow && slow ? "narrower and slower" : narrow ? "narrower" : "slower");
    r.findings.push_back(std::move(f));
  }
}

}  // namespace

void AddFabricFindings(FabricReport& r) {
  DownPortFindings(r);
  BelowUsualFindings(r);
  std::stable_sort(r.findings.begin(), r.findings.end(), [](const FabricFinding& a, const FabricFinding& b) {
    return std::tie(a.kind, a.node, a.port) < std::tie(b.kind, b.node, b.port);
  });
}

}  // namespace toposcope::analysis
