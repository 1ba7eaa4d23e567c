// report/html/report_view: result.json → the compact object the HTML report draws (see
// report_view.h). One function per section of the report; every reader of result.json tolerates a
// missing or mistyped key (an older or hand-edited file gives an emptier view, never an error).
#include "toposcope/report/html/report_view.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "toposcope/act/eadps.h"
#include "toposcope/report/html/report_view_net.h"
#include "toposcope/report/html/json_access.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report::html {

using nlohmann::json;

namespace {

// Seconds from `origin_ns` to `t_ns`, to the microsecond.
json RelSeconds(int64_t t_ns, int64_t origin_ns) { return Num(static_cast<double>(t_ns - origin_ns) / 1e9, 6); }

// Host names: every host a section names, sorted; the view refers to hosts by their index here.
struct Hosts {
  std::vector<std::string> names;
  std::unordered_map<std::string, int> index;
  int Of(const std::string& h) const {
    auto it = index.find(h);
    return it == index.end() ? -1 : it->second;
  }
};

Hosts CollectHosts(const json& r) {
  std::set<std::string> s;
  for (const json& g : Arr(r, "gpus")) s.insert(Str(g, "host"));
  const json& fabric = At(r, "fabric");
  for (const json& h : Arr(fabric, "hosts")) if (h.is_string()) s.insert(h.get<std::string>());
  for (const json& l : Arr(At(fabric, "inferred"), "leaves")) {
    for (const json& h : Arr(l, "hosts")) if (h.is_string()) s.insert(h.get<std::string>());
  }
  for (const json& c : Arr(r, "clocks")) s.insert(Str(c, "host"));
  for (const json& ring : Arr(r, "rings")) {
    for (const json& h : Arr(ring, "hosts")) if (h.is_string()) s.insert(h.get<std::string>());
  }
  s.erase("");
  Hosts hosts;
  hosts.names.assign(s.begin(), s.end());
  for (size_t i = 0; i < hosts.names.size(); ++i) hosts.index[hosts.names[i]] = static_cast<int>(i);
  return hosts;
}

// Entity → the fault kinds the hypothesis tree ranks at probability >= 0.5 on it (noise never).
std::map<std::string, std::set<std::string>> FaultMarks(const json& r) {
  std::map<std::string, std::set<std::string>> marks;
  for (const json& s : Arr(At(r, "hypotheses"), "symptoms")) {
    for (const json& h : Arr(s, "hypotheses")) {
      const std::string kind = Str(h, "kind");
      if (kind.empty() || kind == "noise" || Dbl(h, "probability", 0) < 0.5) continue;
      marks[Str(h, "entity")].insert(kind);
    }
  }
  return marks;
}

std::string CableKey(std::string a, std::string b) {
  if (b < a) std::swap(a, b);
  return a + "--" + b;
}

// The mark drawn on a cable: flapping over degraded; "" when healthy.
std::string CableMark(const std::set<std::string>& kinds) {
  if (kinds.count("flapping_link")) return "flapping";
  if (kinds.count("degraded_link")) return "degraded";
  if (kinds.count("congested_link") || kinds.count("congested_switch")) return "congested";
  return "";
}

// The name of a host less its last number (dgx-a01-18 → dgx-a01, gpu-r10-n11 → gpu-r10-n): hosts of
// one rack or group usually share it.
std::string NamePrefix(const std::string& name) {
  size_t e = name.size();
  while (e > 0 && std::isdigit(static_cast<unsigned char>(name[e - 1]))) --e;
  while (e > 0 && (name[e - 1] == '-' || name[e - 1] == '_' || name[e - 1] == '.')) --e;
  return name.substr(0, e);
}

// Groups of hosts when no leaf is known: by name prefix, cut shorter (up to three numbers off) until
// the groups hold 8 hosts on average, when that leaves 2 groups or more; else runs of 32 hosts in
// name order. Each group has "guessed": true.
json GuessedGroups(const Hosts& hosts) {
  std::vector<std::string> prefix(hosts.names);
  json groups = json::array();
  for (int round = 0; round < 3; ++round) {
    std::map<std::string, std::vector<size_t>> by_prefix;
    for (size_t i = 0; i < prefix.size(); ++i) by_prefix[prefix[i] = NamePrefix(prefix[i])].push_back(i);
    if (by_prefix.size() < 2) break;
    if (by_prefix.size() * 8 > hosts.names.size()) continue;
    for (const auto& [p, members] : by_prefix) {
      groups.push_back({{"name", (p.empty() ? std::string("(no prefix)") : p) + "*"}, {"hosts", members}, {"guessed", true}});
    }
    return groups;
  }
  for (size_t i = 0; i < hosts.names.size(); i += 32) {
    json members = json::array();
    for (size_t k = i; k < std::min(hosts.names.size(), i + 32); ++k) members.push_back(k);
    groups.push_back({{"name", "hosts " + std::to_string(i + 1) + "-" + std::to_string(i + members.size())},
                      {"hosts", members}, {"guessed", true}});
  }
  return groups;
}

// The inferred pods over the drawn leaves: [{name, leaves: [leaf index]}], a leaf in the pod that
// holds most of its hosts (ties: the first pod); pods that hold no drawn leaf are left out.
json PodsView(const json& inferred, const json& leaves, const Hosts& hosts) {
  std::vector<int> pod_of(hosts.names.size(), -1);
  const json& inferred_pods = Arr(inferred, "pods");
  for (size_t p = 0; p < inferred_pods.size(); ++p) {
    for (const json& h : Arr(inferred_pods[p], "hosts")) {
      const int i = h.is_string() ? hosts.Of(h.get<std::string>()) : -1;
      if (i >= 0) pod_of[static_cast<size_t>(i)] = static_cast<int>(p);
    }
  }
  std::vector<json> members(inferred_pods.size(), json::array());
  for (size_t l = 0; l < leaves.size(); ++l) {
    std::map<int, int> votes;
    for (const json& h : leaves[l]["hosts"]) {
      const int p = pod_of[h.get<size_t>()];
      if (p >= 0) ++votes[p];
    }
    int best = -1;
    for (const auto& [p, n] : votes) if (best < 0 || n > votes[best]) best = p;
    if (best >= 0) members[static_cast<size_t>(best)].push_back(l);
  }
  json pods = json::array();
  for (size_t p = 0; p < inferred_pods.size(); ++p) {
    if (!members[p].empty()) pods.push_back({{"name", Str(inferred_pods[p], "name")}, {"leaves", members[p]}});
  }
  return pods;
}

json LeavesView(const json& fabric, const std::unordered_map<std::string, std::string>& node_names, const Hosts& hosts,
                json* pods) {
  json leaves = json::array();
  std::vector<bool> placed(hosts.names.size(), false);
  auto add = [&](const std::string& name, const json& members) {
    json idx = json::array();
    for (const json& h : members) {
      const int i = h.is_string() ? hosts.Of(h.get<std::string>()) : -1;
      if (i < 0 || placed[static_cast<size_t>(i)]) continue;
      placed[static_cast<size_t>(i)] = true;
      idx.push_back(i);
    }
    leaves.push_back({{"name", name}, {"hosts", idx}});
  };
  const json& inferred = At(fabric, "inferred");
  if (!Arr(fabric, "leaves").empty()) {
    for (const json& l : Arr(fabric, "leaves")) {
      auto it = node_names.find(Str(l, "switch"));
      add(it != node_names.end() ? it->second : Str(l, "switch"), Arr(l, "hosts"));
    }
  } else {
    for (const json& l : Arr(inferred, "leaves")) add(Str(l, "name"), Arr(l, "hosts"));
  }
  json rest = json::array();
  for (size_t i = 0; i < placed.size(); ++i) if (!placed[i]) rest.push_back(i);
  *pods = PodsView(inferred, leaves, hosts);
  if (rest.empty()) return leaves;
  if (!leaves.empty()) {
    leaves.push_back({{"name", "not placed"}, {"hosts", rest}, {"unplaced", true}});
    return leaves;
  }
  return GuessedGroups(hosts);
}

json FabricView(const json& r, const Hosts& hosts, const std::map<std::string, std::set<std::string>>& marks) {
  const json& fabric = At(r, "fabric");
  std::unordered_map<std::string, std::string> node_names;  // switch / adapter id → drawn name
  for (const json& s : Arr(fabric, "switches")) {
    const std::string desc = Str(s, "desc");
    node_names[Str(s, "id")] = desc.empty() ? Str(s, "id") : desc;
  }
  for (const json& c : Arr(fabric, "cas")) {
    const std::string name = Str(c, "name");
    node_names[Str(c, "id")] = name.empty() ? Str(c, "id") : name;
  }
  auto name_of = [&](const std::string& id) {
    auto it = node_names.find(id);
    return it == node_names.end() ? id : it->second;
  };
  json v;
  v["source"] = Str(fabric, "source");
  json pods = json::array();
  v["leaves"] = LeavesView(fabric, node_names, hosts, &pods);
  v["pods"] = pods;
  json spines = json::array();
  for (const json& s : Arr(fabric, "spines")) if (s.is_string()) spines.push_back(name_of(s.get<std::string>()));
  v["spines"] = spines;
  std::set<std::string> below_usual;
  for (const json& f : Arr(fabric, "findings")) {
    if (Str(f, "kind") == "link_below_usual") below_usual.insert(CableKey(name_of(Str(f, "node")), name_of(Str(f, "peer"))));
  }
  std::map<std::string, json> cables;  // key → cable
  for (const json& l : Arr(fabric, "links")) {
    const std::string a = name_of(Str(l, "a")), b = name_of(Str(l, "b"));
    const std::string key = CableKey(a, b);
    const std::string width = Str(l, "width"), speed = Str(l, "speed");
    cables[key] = {{"a", std::min(a, b)}, {"b", std::max(a, b)}, {"tier", Str(l, "tier")},
                   {"rate", width.empty() && speed.empty() ? "" : width + " " + speed}, {"state", Str(l, "state")}};
  }
  for (const json& w : Arr(r, "link_weights")) {
    const std::string key = Str(w, "link");
    const size_t sep = key.find("--");
    if (sep == std::string::npos) continue;
    json& c = cables[key];
    if (c.is_null()) c = {{"a", key.substr(0, sep)}, {"b", key.substr(sep + 2)}, {"tier", ""}, {"rate", ""}, {"state", ""}};
    c["latency_us"] = At(w, "latency_us");
    c["queue_us"] = At(w, "queue_spread_us");
  }
  json list = json::array();
  for (auto& [key, c] : cables) {
    auto m = marks.find(key);
    std::string mark = m == marks.end() ? "" : CableMark(m->second);
    if (mark.empty() && below_usual.count(key)) mark = "degraded";
    // [a, b, tier, rate, state, latency us, queueing us, mark]: rows, not objects (thousands of cables).
    list.push_back({c["a"], c["b"], c["tier"], c["rate"], c["state"], c.contains("latency_us") ? c["latency_us"] : json(),
                    c.contains("queue_us") ? c["queue_us"] : json(), mark});
  }
  v["cables"] = list;
  json switch_marks = json::object(), host_marks = json::object();
  for (const auto& [entity, kinds] : marks) {
    if (entity.find("--") != std::string::npos || entity.find('~') != std::string::npos) continue;
    const std::string host = entity.substr(0, entity.find('/'));
    json k(kinds);
    if (hosts.Of(host) >= 0) {
      // A host's faults; a DCGM sampling period too slow is the measurement's, not the host's.
      for (const std::string& x : kinds) if (x != "dcgm_sampling_slow") host_marks[host].push_back(x);
    } else {
      switch_marks[entity] = k;
    }
  }
  v["switch_marks"] = switch_marks;
  v["host_marks"] = host_marks;
  return v;
}

int GpuIndexOf(const std::string& id) {
  const size_t p = id.rfind("/gpu");
  if (p == std::string::npos) return -1;
  try {
    return std::stoi(id.substr(p + 4));
  } catch (...) {
    return -1;
  }
}

json NodesView(const json& r, const Hosts& hosts) {
  std::map<int, json> nodes;
  auto node = [&](const std::string& host) -> json* {
    const int h = hosts.Of(host);
    if (h < 0) return nullptr;
    json& n = nodes[h];
    if (n.is_null()) n = {{"host", h}, {"gpus", 0}, {"islands", json::array()}, {"links", json::array()}};
    return &n;
  };
  for (const json& g : Arr(r, "gpus")) {
    json* n = node(Str(g, "host"));
    if (n != nullptr) (*n)["gpus"] = std::max<int64_t>((*n)["gpus"].get<int64_t>(), Int(g, "index", -1) + 1);
  }
  for (const json& is : Arr(r, "islands")) {
    json* n = node(Str(is, "host"));
    if (n == nullptr) continue;
    json members = json::array();
    for (const json& m : Arr(is, "members")) if (m.is_string()) members.push_back(GpuIndexOf(m.get<std::string>()));
    (*n)["islands"].push_back({Str(is, "kind"), Str(is, "method"), members});
  }
  for (const json& l : Arr(r, "links")) {
    const std::string a = Str(l, "a"), b = Str(l, "b");
    const std::string host = a.substr(0, a.find('/'));
    json* n = node(host);
    if (n == nullptr || b.substr(0, b.find('/')) != host) continue;
    // [gpu a, gpu b, type, lanes, expected lanes, GB/s, expected GB/s, degraded 0/1, evidence]
    (*n)["links"].push_back({GpuIndexOf(a), GpuIndexOf(b), Str(l, "type"), At(l, "lanes"), At(l, "expected_lanes"),
                             At(l, "bandwidth_gbps"), At(l, "expected_gbps"), Bool(l, "degraded") ? 1 : 0,
                             Bool(l, "degraded") ? Cut(Str(l, "evidence"), 240) : std::string()});
  }
  json list = json::array();
  for (auto& [h, n] : nodes) list.push_back(std::move(n));
  return list;
}

json RingsView(const json& r, const Hosts& hosts, const ViewLimits& lim) {
  json list = json::array();
  for (const json& ring : Arr(r, "rings")) {
    if (static_cast<int>(list.size()) >= lim.rings) break;
    json idx = json::array();
    int last = -1;
    for (const json& h : Arr(ring, "hosts")) {
      const int i = h.is_string() ? hosts.Of(h.get<std::string>()) : -1;
      if (i >= 0 && i != last) idx.push_back(i);
      last = i;
    }
    list.push_back({{"channel", Int(ring, "channel", -1)}, {"comm", Str(ring, "comm")}, {"source", Str(ring, "source")},
                    {"complete", Bool(ring, "complete")}, {"hosts", idx}});
  }
  return {{"rings", list}, {"total", Arr(r, "rings").size()}};
}

json ClocksView(const json& r, const Hosts& hosts, const ViewLimits& lim) {
  std::vector<std::string> models;
  std::map<int, json> rows;  // host → [host, best model, [mean us per model], [p99 us per model], steps]
  for (const json& c : Arr(r, "clocks")) {
    const std::string model = Str(c, "model");
    auto it = std::find(models.begin(), models.end(), model);
    const size_t m = static_cast<size_t>(it - models.begin());
    if (it == models.end()) models.push_back(model);
    const int h = hosts.Of(Str(c, "host"));
    if (h < 0) continue;
    json& row = rows[h];
    if (row.is_null()) row = {h, -1, json::array(), json::array(), 0};
    while (row[2].size() <= m) row[2].push_back(nullptr), row[3].push_back(nullptr);
    row[2][m] = At(At(c, "residual_us"), "mean");
    row[3][m] = At(At(c, "residual_us"), "p99");
    if (Bool(c, "best")) row[1] = m;
    row[4] = std::max<int64_t>(row[4].get<int64_t>(), static_cast<int64_t>(Arr(c, "steps_local_ns").size()));
  }
  json list = json::array();
  std::vector<std::pair<double, int>> worst;  // (best model's mean residual, host)
  for (auto& [h, row] : rows) {
    while (row[2].size() < models.size()) row[2].push_back(nullptr), row[3].push_back(nullptr);
    const json& best_mean = row[1].get<int>() >= 0 ? row[2][row[1].get<size_t>()] : json();
    if (best_mean.is_number()) worst.emplace_back(best_mean.get<double>(), h);
    list.push_back(std::move(row));
  }
  // The held-out residual series of the hosts worst after alignment, every model of each.
  std::stable_sort(worst.begin(), worst.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (worst.size() > static_cast<size_t>(lim.clock_series_hosts)) worst.resize(static_cast<size_t>(lim.clock_series_hosts));
  json series = json::array();
  for (const auto& [mean, h] : worst) {
    json per_model = json::array();
    for (const std::string& model : models) {
      json pts = json::array();
      for (const json& c : Arr(r, "clocks")) {
        if (Str(c, "host") == hosts.names[static_cast<size_t>(h)] && Str(c, "model") == model) pts = Arr(c, "heldout_residuals_us");
      }
      per_model.push_back(pts);
    }
    series.push_back({{"host", h}, {"models", per_model}});
  }
  json servo = json::array();
  for (const json& s : Arr(At(r, "servo"), "series")) {
    servo.push_back({{"host", Str(s, "host")}, {"program", Str(s, "program")}, {"offset_rms_ns", At(s, "offset_rms_ns")},
                     {"offset_max_ns", At(s, "offset_max_ns")}, {"locked", At(s, "locked")}, {"points", At(s, "points")}});
  }
  return {{"models", models}, {"hosts", list}, {"servo", servo}, {"series", series}};
}

json FindingsView(const json& r, const ViewLimits& lim) {
  int64_t origin = INT64_MAX;
  for (const json& f : Arr(r, "telemetry_findings")) {
    const int64_t s = Int(f, "start_ns");
    if (s > 0) origin = std::min(origin, s);
  }
  if (origin == INT64_MAX) origin = 0;
  json list = json::array();
  size_t total = 0;
  auto push = [&](json f) {
    ++total;
    if (static_cast<int>(list.size()) < lim.findings) list.push_back(std::move(f));
  };
  for (const json& f : Arr(r, "telemetry_findings")) {
    const int64_t s = Int(f, "start_ns"), e = Int(f, "end_ns");
    push({{"kind", Str(f, "kind")}, {"host", Str(f, "host")}, {"gpu", Int(f, "gpu", -1)}, {"link", Int(f, "link", -1)},
          {"t0", s > 0 ? RelSeconds(s, origin) : json()}, {"t1", e > 0 ? RelSeconds(std::max(s, e), origin) : json()},
          {"confidence", At(f, "confidence")}, {"evidence", Cut(Str(f, "evidence"), lim.text_chars)}});
  }
  for (const json& f : Arr(At(r, "servo"), "findings")) {
    push({{"kind", "servo_" + Str(f, "kind")}, {"host", Str(f, "host")}, {"gpu", -1}, {"link", -1}, {"t0", nullptr},
          {"t1", nullptr}, {"confidence", nullptr}, {"evidence", Cut(Str(f, "evidence"), lim.text_chars)}});
  }
  json fields = json::array();
  for (const json& f : Arr(At(r, "dcgm"), "fields")) {
    fields.push_back({Str(f, "field"), Str(f, "class"), At(f, "series"), At(f, "worst_period_ms"), At(f, "needed_period_ms"),
                      Bool(f, "ok")});
  }
  return {{"origin_ns", std::to_string(origin)}, {"findings", list}, {"total", total}, {"dcgm_fields", fields},
          {"sampling_warnings", Arr(At(r, "dcgm"), "sampling_warnings").size()}};
}

// One link's series of one estimator: window start → bits (null: too few packets).
using Series = std::map<int64_t, json>;

// Averages `s` down to at most `points` windows: [[t s, watched bits, shown bits], ...].
json Downsample(const Series& watched, const Series& shown, int64_t origin, int points) {
  std::vector<int64_t> ts;
  for (const auto& [t, b] : watched) ts.push_back(t);
  const size_t n = ts.size(), step = (n + static_cast<size_t>(points) - 1) / static_cast<size_t>(std::max(points, 1));
  json out = json::array();
  for (size_t i = 0; i < n; i += std::max<size_t>(step, 1)) {
    double sw = 0, ss = 0;
    int nw = 0, ns = 0;
    for (size_t k = i; k < std::min(n, i + std::max<size_t>(step, 1)); ++k) {
      const json& w = watched.at(ts[k]);
      if (w.is_number()) sw += w.get<double>(), ++nw;
      auto it = shown.find(ts[k]);
      if (it != shown.end() && it->second.is_number()) ss += it->second.get<double>(), ++ns;
    }
    out.push_back({RelSeconds(ts[i], origin), nw ? Num(sw / nw, 3) : json(), ns ? Num(ss / ns, 3) : json()});
  }
  return out;
}

json EntropyView(const json& r, const ViewLimits& lim) {
  const json& sched = At(r, "schedule");
  const act::EadpsOptions defaults;
  const std::string est = sched.is_object() ? Str(sched, "estimator") : defaults.estimator;
  const std::string shown_est = sched.is_object() ? Str(sched, "shown_estimator") : defaults.shown_estimator;
  std::map<std::string, Series> watched, shown;
  int64_t origin = INT64_MAX;
  for (const json& e : Arr(r, "link_entropy")) {
    const std::string name = Str(e, "estimator");
    if (name != est && name != shown_est) continue;
    const int64_t t = Int(e, "window_start_ns");
    origin = std::min(origin, t);
    const json bits = Bool(e, "not_enough_packets") ? json() : At(e, "bits");
    (name == est ? watched : shown)[Str(e, "link")][t] = bits;
  }
  if (origin == INT64_MAX) origin = 0;
  std::vector<std::string> decided;
  json decisions = json::array();
  for (const json& d : Arr(sched, "decisions")) {
    const std::string link = Str(d, "link");
    if (std::find(decided.begin(), decided.end(), link) == decided.end()) decided.push_back(link);
    if (decisions.size() < 500) decisions.push_back({{"t", RelSeconds(Int(d, "t_ns"), origin)}, {"action", Str(d, "action")}, {"link", link}});
  }
  // Links shown: those with decisions, then by the spread of their watched entropy, widest first.
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [link, s] : watched) {
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& [t, b] : s) if (b.is_number()) lo = std::min(lo, b.get<double>()), hi = std::max(hi, b.get<double>());
    const bool has_decision = std::find(decided.begin(), decided.end(), link) != decided.end();
    order.emplace_back(has_decision ? 1e9 : (hi >= lo ? hi - lo : 0), link);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  json series = json::array();
  for (const auto& [spread, link] : order) {
    if (static_cast<int>(series.size()) >= lim.entropy_links) break;
    series.push_back({{"link", link}, {"points", Downsample(watched[link], shown[link], origin, lim.entropy_points)},
                      {"windows", watched[link].size()}});
  }
  const json& o = At(sched, "options");
  json thresholds = {{"hot_bits", Dbl(o, "hot_bits", defaults.hot_bits)}, {"cool_bits", Dbl(o, "cool_bits", defaults.cool_bits)},
                     {"hysteresis_bits", Dbl(o, "hysteresis_bits", defaults.hysteresis_bits)}, {"seed_deterministic_bits", 2.1}};
  return {{"estimator", est}, {"shown_estimator", shown_est}, {"window_ns", Int(At(r, "rdma"), "entropy_window_ns", Int(sched, "window_ns"))},
          {"links_total", watched.size()}, {"series", series}, {"thresholds", thresholds}, {"decisions", decisions},
          {"decisions_total", Arr(sched, "decisions").size()}, {"scheduled", sched.is_object()}};
}

json HypothesesView(const json& r, const ViewLimits& lim) {
  const json& hy = At(r, "hypotheses");
  json list = json::array();
  auto texts = [&](const json& a) {
    json out = json::array();
    for (const json& t : a) if (t.is_string() && out.size() < 6) out.push_back(Cut(t.get<std::string>(), lim.text_chars));
    return out;
  };
  for (const json& s : Arr(hy, "symptoms")) {
    if (static_cast<int>(list.size()) >= lim.symptoms) break;
    json hs = json::array();
    for (const json& h : Arr(s, "hypotheses")) {
      if (static_cast<int>(hs.size()) >= lim.hypotheses_per_symptom) break;
      hs.push_back({{"kind", Str(h, "kind")}, {"entity", Str(h, "entity")}, {"p", At(h, "probability")}, {"prior", At(h, "prior")},
                    {"for", texts(Arr(h, "evidence_for"))}, {"against", texts(Arr(h, "evidence_against"))},
                    {"next", Cut(Str(h, "next_check"), lim.text_chars)}});
    }
    list.push_back({{"kind", Str(s, "kind")}, {"entity", Str(s, "entity")}, {"summary", Cut(Str(s, "summary"), lim.text_chars)},
                    {"next", Cut(Str(s, "next_check"), lim.text_chars)}, {"hypotheses", hs}});
  }
  return {{"symptoms", list}, {"total", Arr(hy, "symptoms").size()}, {"max_fault_probability", At(hy, "max_fault_probability")},
          {"skipped", Arr(hy, "skipped").size()}};
}

// The kept diagnostics of each file: "PATH:LINE: ..." lines matched to the inputs' paths.
std::unordered_map<std::string, std::vector<std::string>> DiagnosticsByFile(const json& r, const ViewLimits& lim) {
  std::unordered_set<std::string> paths;
  for (const json& in : Arr(r, "inputs")) paths.insert(Str(in, "path"));
  std::unordered_map<std::string, std::vector<std::string>> by;
  for (const json& d : Arr(At(r, "diagnostics"), "kept")) {
    if (!d.is_string()) continue;
    const std::string line = d.get<std::string>();
    for (size_t p = line.find(':'); p != std::string::npos; p = line.find(':', p + 1)) {
      const std::string path = line.substr(0, p);
      if (!paths.count(path)) continue;
      auto& v = by[path];
      if (static_cast<int>(v.size()) < lim.diagnostics_per_file) v.push_back(Cut(line, lim.text_chars));
      break;
    }
  }
  return by;
}

json InputsView(const json& r, const ViewLimits& lim) {
  const auto diags = DiagnosticsByFile(r, lim);
  std::map<std::string, std::array<int64_t, 4>> formats;  // format → files, read, rejected, skipped
  std::vector<const json*> files;
  for (const json& in : Arr(r, "inputs")) {
    auto& f = formats[Str(in, "format")];
    f[0] += 1, f[1] += Int(in, "records"), f[2] += Int(in, "rejected"), f[3] += Bool(in, "skipped") ? 1 : 0;
    files.push_back(&in);
  }
  // Files with something to say first (skipped, then most rejections), then by path.
  std::stable_sort(files.begin(), files.end(), [](const json* a, const json* b) {
    const auto ka = std::make_tuple(!Bool(*a, "skipped"), -Int(*a, "rejected"), Str(*a, "path"));
    const auto kb = std::make_tuple(!Bool(*b, "skipped"), -Int(*b, "rejected"), Str(*b, "path"));
    return ka < kb;
  });
  json list = json::array();
  for (const json* in : files) {
    if (static_cast<int>(list.size()) >= lim.files) break;
    auto d = diags.find(Str(*in, "path"));
    list.push_back({{"path", Str(*in, "path")}, {"format", Str(*in, "format")}, {"host", Str(*in, "host")},
                    {"read", Int(*in, "records")}, {"rejected", Int(*in, "rejected")}, {"skipped", Bool(*in, "skipped")},
                    {"reason", Str(*in, "skip_reason")},
                    {"diagnostics", d == diags.end() ? json::array() : json(d->second)}});
  }
  json fmt = json::array();
  for (const auto& [name, f] : formats) {
    fmt.push_back({{"format", name}, {"files", f[0]}, {"read", f[1]}, {"rejected", f[2]}, {"skipped", f[3]}});
  }
  const json& d = At(r, "diagnostics");
  return {{"formats", fmt}, {"files", list}, {"files_total", files.size()}, {"rejected", Int(d, "rejected")},
          {"warnings", Int(d, "warnings")}};
}

json CountsView(const json& r, const json& view) {
  int64_t degraded = 0;
  for (const json& l : Arr(r, "links")) degraded += Bool(l, "degraded") ? 1 : 0;
  const json& arch = At(r, "architecture");
  return {{"hosts", view["hosts"].size()}, {"gpus", Arr(r, "gpus").size()}, {"gpu_links", Arr(r, "links").size()},
          {"degraded_links", degraded}, {"islands", Arr(r, "islands").size()}, {"findings", view["findings"]["total"]},
          {"symptoms", view["hypotheses"]["total"]}, {"files", Arr(r, "inputs").size()},
          {"rejected", Int(At(r, "diagnostics"), "rejected")}, {"architecture", Str(arch, "class")},
          {"architecture_confidence", At(arch, "confidence")}, {"schema", Str(r, "schema")}};
}

}  // namespace

json ReportViewJson(const json& result, const ViewLimits& limits) {
  const Hosts hosts = CollectHosts(result);
  const auto marks = FaultMarks(result);
  json v;
  v["hosts"] = hosts.names;
  v["fabric"] = FabricView(result, hosts, marks);
  v["nodes"] = NodesView(result, hosts);
  v["rings"] = RingsView(result, hosts, limits);
  v["traffic"] = TrafficView(result, hosts.names, v["fabric"]["leaves"], limits);
  v["nics"] = NicPortsView(result, limits);
  v["patterns"] = QpPatternsView(result, limits);
  v["clocks"] = ClocksView(result, hosts, limits);
  v["findings"] = FindingsView(result, limits);
  v["entropy"] = EntropyView(result, limits);
  v["hypotheses"] = HypothesesView(result, limits);
  v["inputs"] = InputsView(result, limits);
  v["counts"] = CountsView(result, v);
  return v;
}

}  // namespace toposcope::report::html
