// report/html/report_view_net: result.json's traffic matrices, NIC ports and QP patterns → the
// compact parts of the HTML report's view that draw them (see report_view_net.h). Like the rest of
// the view, every reader tolerates a missing or mistyped key, and long lists are capped with their
// total kept beside them.
#include "toposcope/report/html/report_view_net.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "toposcope/report/html/json_access.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report::html {

using nlohmann::json;

namespace {

// One cell of the flow matrix: bytes, flows, and the span of their packets.
struct FlowCell {
  double bytes = 0;
  int64_t flows = 0;
  int64_t first_ns = INT64_MAX;
  int64_t last_ns = INT64_MIN;
};

// RDMA bytes from host to host (flows[] src_host / dst_host), or from leaf to leaf when more than
// `limits.traffic_hosts` hosts send or receive: the fabric view's leaves (or name groups), hosts
// outside them in "other hosts".
json FlowMatrixView(const json& r, const std::vector<std::string>& host_names, const json& leaves, const ViewLimits& lim) {
  std::set<std::string> seen;
  int64_t unattributed = 0;
  double bytes_total = 0;
  for (const json& f : Arr(r, "flows")) {
    const std::string s = Str(f, "src_host"), d = Str(f, "dst_host");
    if (s.empty() || d.empty()) {
      ++unattributed;
      continue;
    }
    seen.insert(s), seen.insert(d);
  }
  const bool by_leaf = static_cast<int>(seen.size()) > lim.traffic_hosts;
  std::vector<std::string> names;
  std::unordered_map<std::string, int> group;  // host → row / column
  if (!by_leaf) {
    names.assign(seen.begin(), seen.end());
    for (size_t i = 0; i < names.size(); ++i) group[names[i]] = static_cast<int>(i);
  } else {
    for (const json& l : leaves) {
      names.push_back(Str(l, "name"));
      for (const json& h : Arr(l, "hosts")) {
        if (h.is_number_integer() && h.get<size_t>() < host_names.size()) group[host_names[h.get<size_t>()]] = static_cast<int>(names.size() - 1);
      }
    }
    const bool any_other = std::any_of(seen.begin(), seen.end(), [&](const std::string& h) { return !group.count(h); });
    if (any_other) {
      names.push_back("other hosts");
      for (const std::string& h : seen) group.emplace(h, static_cast<int>(names.size() - 1));
    }
  }
  std::map<std::pair<int, int>, FlowCell> cells;
  for (const json& f : Arr(r, "flows")) {
    auto s = group.find(Str(f, "src_host")), d = group.find(Str(f, "dst_host"));
    if (s == group.end() || d == group.end()) continue;
    FlowCell& c = cells[{s->second, d->second}];
    const double b = Dbl(f, "bytes", 0);
    c.bytes += b, bytes_total += b, ++c.flows;
    const int64_t first = Int(f, "first_ns"), last = Int(f, "last_ns");
    if (first > 0) c.first_ns = std::min(c.first_ns, first);
    if (last > 0) c.last_ns = std::max(c.last_ns, last);
  }
  json list = json::array();
  for (const auto& [key, c] : cells) {
    // Gbit/s over the span of the cell's packets (null for a span under a microsecond).
    const double span_ns = c.last_ns > c.first_ns ? static_cast<double>(c.last_ns - c.first_ns) : 0;
    list.push_back({key.first, key.second, c.bytes, c.flows, span_ns >= 1e3 ? Num(c.bytes * 8 / span_ns, 4) : json()});
  }
  return {{"by", by_leaf ? "leaf" : "host"}, {"names", names}, {"cells", list}, {"hosts", seen.size()},
          {"flows_total", Arr(r, "flows").size()}, {"flows_unattributed", unattributed}, {"bytes_total", bytes_total}};
}

// The NVLink GPU-pair matrix of NVSwitch hosts: a row per host (all of them), the pairs of the first
// `limits.nvlink_hosts` estimable hosts in name order.
json NvlinkMatrixView(const json& r, const ViewLimits& lim) {
  const json& tm = At(r, "traffic_matrix");
  std::vector<const json*> hosts;
  for (const json& h : Arr(tm, "hosts")) hosts.push_back(&h);
  std::stable_sort(hosts.begin(), hosts.end(), [](const json* a, const json* b) { return Str(*a, "host") < Str(*b, "host"); });
  json rows = json::array(), matrices = json::object();
  std::vector<std::string> reasons;
  int kept = 0;
  for (const json* hp : hosts) {
    const json& h = *hp;
    const bool estimable = Bool(h, "estimable");
    double tx = 0;
    for (const json& x : Arr(h, "tx_bytes_per_s")) tx += x.is_number() ? x.get<double>() : 0;
    int reason = -1;
    if (!estimable) {
      const std::string why = Cut(Str(h, "reason"), lim.text_chars);
      auto it = std::find(reasons.begin(), reasons.end(), why);
      reason = static_cast<int>(it - reasons.begin());
      if (it == reasons.end()) reasons.push_back(why);
    }
    // [host, estimable 0/1, GPUs, tx bytes/s summed over the GPUs, confidence, samples, window s, reason index]
    rows.push_back({Str(h, "host"), estimable ? 1 : 0, Int(h, "gpus"), Num(tx, 0), At(h, "confidence"), Int(h, "samples"),
                    At(h, "window_s"), reason});
    if (!estimable || kept >= lim.nvlink_hosts || Arr(h, "pairs").empty()) continue;
    ++kept;
    json pairs = json::array();
    for (const json& p : Arr(h, "pairs")) {
      pairs.push_back({Int(p, "src", -1), Int(p, "dst", -1), Num(Dbl(p, "bytes_per_s"), 0), Num(Dbl(p, "err_bytes_per_s"), 0),
                       Bool(p, "supported") ? 1 : 0});
    }
    matrices[Str(h, "host")] = {{"gpus", Int(h, "gpus")}, {"pairs", pairs}};
  }
  json notes = json::array();
  for (const json& n : Arr(tm, "notes")) if (n.is_string()) notes.push_back(Cut(n.get<std::string>(), lim.text_chars));
  return {{"hosts", rows}, {"reasons", reasons}, {"matrices", matrices}, {"method", Cut(Str(tm, "method"), lim.text_chars)},
          {"comm", Str(tm, "comm")}, {"channels", At(tm, "channels")}, {"estimable", Int(tm, "hosts_estimable")}, {"notes", notes}};
}

// A port's GIDs in a line: the first four as "index gid (type, netdev, ipv4)", then how many more.
std::string GidsText(const json& gids) {
  std::string out;
  int n = 0;
  for (const json& g : gids) {
    if (n++ == 4) break;
    std::string extra;
    for (const char* k : {"type", "netdev", "ipv4"}) {
      const std::string v = Str(g, k);
      if (!v.empty()) extra += (extra.empty() ? "" : ", ") + v;
    }
    out += (out.empty() ? "" : "; ") + std::to_string(Int(g, "index", -1)) + " " + Str(g, "gid") + (extra.empty() ? "" : " (" + extra + ")");
  }
  if (gids.size() > 4) out += "; +" + std::to_string(gids.size() - 4) + " more";
  return out;
}

// A port's rate, null when no tool printed one (rdma res show qp gives none: 0).
json RateOrNull(double gbps) { return gbps > 0 ? Num(gbps, 1) : json(); }

std::string PortKey(const std::string& host, const std::string& device, int64_t port) {
  return host + "\n" + device + "\n" + std::to_string(port);
}

}  // namespace

json TrafficView(const json& result, const std::vector<std::string>& host_names, const json& leaves, const ViewLimits& limits) {
  return {{"flows", FlowMatrixView(result, host_names, leaves, limits)}, {"nvlink", NvlinkMatrixView(result, limits)}};
}

json NicPortsView(const json& result, const ViewLimits& limits) {
  const json& np = At(result, "nic_ports");
  std::map<std::string, std::string> finding_of;  // port → its findings' kinds
  json findings = json::array();
  for (const json& f : Arr(np, "findings")) {
    std::string& k = finding_of[PortKey(Str(f, "host"), Str(f, "device"), Int(f, "port"))];
    k += (k.empty() ? "" : ", ") + Str(f, "kind");
    if (static_cast<int>(findings.size()) < limits.nic_ports) {
      findings.push_back({Str(f, "kind"), Str(f, "host"), Str(f, "device"), Int(f, "port"), Cut(Str(f, "evidence"), limits.text_chars)});
    }
  }
  std::vector<const json*> ports;
  std::map<std::tuple<std::string, std::string, double, std::string>, int64_t> summary;
  for (const json& p : Arr(np, "ports")) {
    ports.push_back(&p);
    ++summary[{Str(p, "model"), Str(p, "link_layer"), Dbl(p, "rate_gbps", 0), Str(p, "state")}];
  }
  // Ports with a finding first, then ports not active, then by host, device and port.
  auto key = [&](const json* p) {
    const bool found = finding_of.count(PortKey(Str(*p, "host"), Str(*p, "device"), Int(*p, "port"))) > 0;
    return std::make_tuple(!found, Bool(*p, "active"), Str(*p, "host"), Str(*p, "device"), Int(*p, "port"));
  };
  std::stable_sort(ports.begin(), ports.end(), [&](const json* a, const json* b) { return key(a) < key(b); });
  json rows = json::array();
  for (const json* pp : ports) {
    if (static_cast<int>(rows.size()) >= limits.nic_ports) break;
    const json& p = *pp;
    std::string sources;
    for (const json& s : Arr(p, "sources")) if (s.is_string()) sources += (sources.empty() ? "" : ", ") + s.get<std::string>();
    auto f = finding_of.find(PortKey(Str(p, "host"), Str(p, "device"), Int(p, "port")));
    rows.push_back({Str(p, "host"), Str(p, "device"), Int(p, "port"), Str(p, "state"), Str(p, "physical_state"),
                    RateOrNull(Dbl(p, "rate_gbps", 0)), Str(p, "link_layer"), Str(p, "model"), Str(p, "firmware"), GidsText(Arr(p, "gids")),
                    At(p, "qps"), sources, f == finding_of.end() ? std::string() : f->second});
  }
  json sum = json::array();
  for (const auto& [k, n] : summary) sum.push_back({std::get<0>(k), std::get<1>(k), RateOrNull(std::get<2>(k)), std::get<3>(k), n});
  std::set<std::string> hosts;
  for (const json* p : ports) hosts.insert(Str(*p, "host"));
  return {{"ports", rows}, {"total", ports.size()}, {"hosts", hosts.size()}, {"findings", findings},
          {"findings_total", Arr(np, "findings").size()}, {"summary", sum}};
}

json QpPatternsView(const json& result, const ViewLimits& limits) {
  std::vector<const json*> pats;
  for (const json& p : Arr(result, "patterns")) pats.push_back(&p);
  // The whole capture first, then jobs, then hosts (each in result order).
  auto rank = [](const json* p) {
    const std::string s = Str(*p, "scope");
    return s == "all" ? 0 : (s.rfind("job:", 0) == 0 ? 1 : 2);
  };
  std::stable_sort(pats.begin(), pats.end(), [&](const json* a, const json* b) { return rank(a) < rank(b); });
  // Evidence cut at 240 characters: a row per host adds up on a large cluster.
  json rows = json::array();
  std::map<std::string, int64_t> classes;
  for (const json* pp : pats) {
    const json& p = *pp;
    ++classes[Str(p, "class")];
    if (static_cast<int>(rows.size()) >= limits.qp_patterns) continue;
    rows.push_back({Str(p, "scope"), Str(p, "class"), Int(p, "qps"), Int(p, "windows"), Num(Dbl(p, "allreduce_share"), 3),
                    Num(Dbl(p, "pipeline_share"), 3), Num(Dbl(p, "median_sync"), 3), Num(Dbl(p, "state_entropy"), 3),
                    Num(Dbl(p, "reset_density"), 3), Str(p, "seed_class"), Cut(Str(p, "evidence"), std::min<size_t>(limits.text_chars, 240))});
  }
  const json& pf = At(result, "pattern_features");
  return {{"rows", rows}, {"total", pats.size()}, {"classes", classes}, {"note", Cut(Str(pf, "note"), limits.text_chars)},
          {"records", Int(pf, "records")}, {"windows", Int(pf, "windows")}, {"illegal_transitions", Int(pf, "illegal_transitions")}};
}

}  // namespace toposcope::report::html
