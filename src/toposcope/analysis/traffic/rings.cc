// analysis/traffic/rings: see rings.h.
#include "toposcope/analysis/traffic/rings.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

constexpr NamedValue<RingSource> kSourceNames[] = {
    {RingSource::kNcclLog, "nccl_log"}, {RingSource::kFlows, "flows"}};

}  // namespace

std::string_view RingSourceName(RingSource s) { return NameIn(kSourceNames, s, "nccl_log"); }

std::vector<std::string> CollapseHosts(const std::vector<std::string>& per_rank_hosts) {
  std::vector<std::string> out;
  for (const auto& h : per_rank_hosts) {
    if (out.empty() || out.back() != h) out.push_back(h);
  }
  while (out.size() > 1 && out.back() == out.front()) out.pop_back();
  return out;
}

std::vector<std::string> CanonicalCycle(const std::vector<std::string>& cycle) {
  if (cycle.empty()) return cycle;
  auto it = std::min_element(cycle.begin(), cycle.end());
  std::vector<std::string> out(it, cycle.end());
  out.insert(out.end(), cycle.begin(), it);
  return out;
}

namespace {

std::string JoinArrow(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += " -> ";
    s += v[i];
  }
  return s;
}

// Where a comm init was printed.
struct CommAt {
  size_t file = 0;
  std::string host;
  int64_t pid = -1, tid = -1;
  int64_t line = 0;
  std::string group;
  int rank = -1;
};

// The comm groups of all logs and the rule that maps a printed line to its group.
class CommIndex {
 public:
  explicit CommIndex(const std::vector<formats::NcclLog>& logs) {
    // (file, host, pid, comm pointer) -> commId when any of its lines prints one.
    std::map<std::tuple<size_t, std::string, int64_t, std::string>, std::string> ptr_id;
    std::map<int, std::set<std::string>> ids_by_size;
    for (size_t fi = 0; fi < logs.size(); ++fi) {
      for (const auto& c : logs[fi].comms) {
        if (!c.comm_id.empty()) {
          ptr_id[{fi, c.at.host, c.at.pid, c.comm}] = c.comm_id;
          ids_by_size[c.nranks].insert(c.comm_id);
        }
      }
    }
    for (size_t fi = 0; fi < logs.size(); ++fi) {
      for (const auto& c : logs[fi].comms) {
        std::string group;
        auto it = ptr_id.find({fi, c.at.host, c.at.pid, c.comm});
        if (it != ptr_id.end()) {
          group = it->second;
        } else {
          auto sit = ids_by_size.find(c.nranks);
          if (sit != ids_by_size.end() && sit->second.size() == 1) {
            group = *sit->second.begin();
          } else {
            group = "nranks=" + std::to_string(c.nranks);
          }
        }
        ptr_group_[{fi, c.at.host, c.at.pid, c.comm}] = group;
        CommAt a{fi, c.at.host, c.at.pid, c.at.tid, c.line, group, c.rank};
        all_.push_back(a);
        groups_.insert(group);
      }
    }
    std::sort(all_.begin(), all_.end(), [](const CommAt& a, const CommAt& b) {
      return std::tie(a.file, a.host, a.pid, a.tid, a.line) < std::tie(b.file, b.host, b.pid, b.tid, b.line);
    });
  }

  // The group of a line printed at (file, prefix, line); `comm_ptr` when the record names one.
  [[nodiscard]] std::string GroupOf(size_t file, const formats::NcclLogPrefix& at, int64_t line,
                                    const std::string& comm_ptr = {}) const {
    if (!comm_ptr.empty()) {
      auto it = ptr_group_.find({file, at.host, at.pid, comm_ptr});
      if (it != ptr_group_.end()) return it->second;
    }
    // Same thread: nearest comm line before, else nearest after.
    const CommAt* before = nullptr;
    const CommAt* after = nullptr;
    std::set<std::string> proc_groups;
    for (const auto& c : all_) {
      if (c.file != file || c.host != at.host || c.pid != at.pid) continue;
      proc_groups.insert(c.group);
      if (c.tid != at.tid) continue;
      if (c.line <= line) {
        before = &c;
      } else if (after == nullptr) {
        after = &c;
      }
    }
    if (before != nullptr) return before->group;
    if (after != nullptr) return after->group;
    if (proc_groups.size() == 1) return *proc_groups.begin();
    if (groups_.size() == 1) return *groups_.begin();
    return "?";  // no comm line tells: one shared unknown group
  }

  [[nodiscard]] const std::vector<CommAt>& all() const { return all_; }

 private:
  std::map<std::tuple<size_t, std::string, int64_t, std::string>, std::string> ptr_group_;
  std::vector<CommAt> all_;
  std::set<std::string> groups_;
};

struct RankInfo {
  std::string host;
  int gpu = -1;
  bool ambiguous = false;
};

struct GroupData {
  std::map<int, RankInfo> ranks;
  int nranks = -1;  // the largest nranks its comm lines print; -1 when none does
  std::map<int, const formats::NcclRingOrder*> orders;                // channel -> order
  std::map<int, std::map<int, int>> ring_next;                        // channel -> me -> next
  std::map<int, std::map<int, std::set<int>>> conn_next;              // channel -> from -> to (connection lines)
  std::map<int, std::map<int, int>> conn_first;                       // channel -> from -> first `to` printed
  std::map<int, std::set<std::pair<int, int>>> tree_edges;            // channel -> child->parent
  std::map<int, std::set<int>> tree_nodes;                            // channel -> ranks
  // (channel, from, to, is_send) -> (host that printed, net dev)
  std::map<std::tuple<int, int, int, bool>, std::pair<std::string, int>> net_conns;
};

void PutRank(GroupData& g, int rank, const std::string& host, int gpu) {
  if (rank < 0 || host.empty()) return;
  auto [it, inserted] = g.ranks.emplace(rank, RankInfo{host, gpu, false});
  if (inserted) return;
  if (it->second.host != host) it->second.ambiguous = true;
  if (it->second.gpu < 0) it->second.gpu = gpu;
}

// The cycle through `next` starting at `start` (or at the smallest rank when start < 0); empty
// unless following `next` returns to the start after visiting every rank of the map exactly once.
std::vector<int> CycleFrom(const std::map<int, int>& next, int start) {
  if (next.empty()) return {};
  if (start < 0 || next.count(start) == 0) start = next.begin()->first;
  std::vector<int> seq{start};
  std::set<int> seen{start};
  int cur = start;
  for (size_t k = 0; k <= next.size(); ++k) {
    auto e = next.find(cur);
    if (e == next.end()) return {};
    if (e->second == start) return seq.size() == next.size() ? seq : std::vector<int>{};
    if (!seen.insert(e->second).second) return {};
    seq.push_back(e->second);
    cur = e->second;
  }
  return {};
}

using NicNames = std::map<std::string, std::map<int, std::string>>;  // host -> NIC index -> name

// NIC names per host: "NET/IB : Using [i]name:port" lists.
NicNames CollectNicNames(const std::vector<formats::NcclLog>& logs) {
  NicNames nic_names;
  for (const auto& log : logs) {
    for (const auto& u : log.net_using) {
      for (const auto& d : u.devices) nic_names[u.at.host].emplace(d.index, d.name);
    }
  }
  return nic_names;
}

// Adds one Trees line to its group: the rank, its tree edges (child -> parent) and nodes.
void AddTreeLine(const formats::NcclTreeLine& t, GroupData& g) {
  PutRank(g, t.me, t.at.host, t.at.cuda_dev);
  auto& nodes = g.tree_nodes[t.channel];
  nodes.insert(t.me);
  if (t.up >= 0) {
    g.tree_edges[t.channel].insert({t.me, t.up});
    nodes.insert(t.up);
  }
  for (int d : t.down) {
    if (d >= 0) {
      g.tree_edges[t.channel].insert({d, t.me});
      nodes.insert(d);
    }
  }
}

// Adds one connection line to its group: the ranks it names, the successor it gives and its NET device.
void AddConnectionLine(const formats::NcclConnection& c, GroupData& g) {
  const bool send = c.dir == formats::NcclConnection::Dir::kSend;
  const bool recv = c.dir == formats::NcclConnection::Dir::kReceive;
  if (send || c.dir == formats::NcclConnection::Dir::kNone) PutRank(g, c.from_rank, c.at.host, c.at.cuda_dev);
  if (recv) PutRank(g, c.to_rank, c.at.host, c.at.cuda_dev);
  // Rings connect on connection index 0 ("Channel 05/0"); "/1" lines are point-to-point connections.
  if (c.from_rank >= 0 && c.to_rank >= 0 && c.from_rank != c.to_rank && c.conn_index == 0) {
    g.conn_next[c.channel][c.from_rank].insert(c.to_rank);
    g.conn_first[c.channel].emplace(c.from_rank, c.to_rank);
  }
  if (c.transport == formats::NcclTransport::kNet && (send || recv)) {
    g.net_conns[{c.channel, c.from_rank, c.to_rank, send}] = {c.at.host, c.net_dev};
  }
}

// Every comm group of the logs with what its comm, ring order, Ring, Trees and connection lines say.
std::map<std::string, GroupData> CollectGroups(const std::vector<formats::NcclLog>& logs, const CommIndex& index) {
  std::map<std::string, GroupData> groups;
  for (size_t fi = 0; fi < logs.size(); ++fi) {
    const auto& log = logs[fi];
    for (const auto& c : log.comms) {
      const std::string gname = index.GroupOf(fi, c.at, c.line, c.comm);
      GroupData& g = groups[gname];
      PutRank(g, c.rank, c.at.host, c.cuda_dev >= 0 ? c.cuda_dev : c.at.cuda_dev);
      g.nranks = std::max(g.nranks, c.nranks);
    }
    for (const auto& o : log.ring_orders) {
      GroupData& g = groups[index.GroupOf(fi, o.at, o.line, o.comm)];
      auto& slot = g.orders[o.channel];
      if (slot == nullptr || (slot->truncated && !o.truncated)) slot = &o;
    }
    for (const auto& r : log.rings) {
      GroupData& g = groups[index.GroupOf(fi, r.at, r.line)];
      PutRank(g, r.me, r.at.host, r.at.cuda_dev);
      g.ring_next[r.channel][r.me] = r.next;
    }
    for (const auto& t : log.trees) AddTreeLine(t, groups[index.GroupOf(fi, t.at, t.line)]);
    for (const auto& c : log.connections) AddConnectionLine(c, groups[index.GroupOf(fi, c.at, c.line)]);
  }
  return groups;
}

// The host of a rank in a group; "?" when unknown or ambiguous.
std::string HostOfRank(const GroupData& g, int r) {
  auto it = g.ranks.find(r);
  if (it == g.ranks.end() || it->second.ambiguous) return "?";
  return it->second.host;
}

// The name of NIC `dev` of `host`; "?" when the logs do not list it.
std::string NicName(const NicNames& nic_names, const std::string& host, int dev) {
  auto h = nic_names.find(host);
  if (h == nic_names.end()) return "?";
  auto d = h->second.find(dev);
  return d == h->second.end() ? std::string("?") : d->second;
}

// Notes the Ring lines (me -> next) of a channel that disagree with rank 0's ring order `ranks`.
void CheckRingLines(const std::string& gname, int ch, const std::vector<int>& ranks, const std::map<int, int>& next,
                    RingReport* report) {
  int mismatches = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    auto e = next.find(ranks[i]);
    if (e != next.end() && e->second != ranks[(i + 1) % ranks.size()]) ++mismatches;
  }
  if (mismatches > 0) {
    report->notes.push_back(StringPrintf("comm %s channel %d: %d Ring line(s) disagree with rank 0's ring order",
                                         gname.c_str(), ch, mismatches));
  }
}

// Rebuilds the whole cycle of channel `ch` into v->ranks from the Ring lines (prev -> me -> next,
// `ring_next`, nullptr when none), else from the connection lines when every rank has exactly one
// successor on the channel; a cut order in v->ranks must be the start of the rebuilt cycle. Returns
// false when the channel has no ring at all (no order and no closed cycle).
bool RebuildRing(const std::string& gname, int ch, const GroupData& g, const std::map<int, int>* ring_next,
                 bool has_order, RingView* v, RingReport* report) {
  std::map<int, int> next;
  std::string from;
  if (ring_next != nullptr) {
    next = *ring_next;
    from = "Ring lines";
  }
  const int start = v->ranks.empty() ? -1 : v->ranks.front();
  std::vector<int> seq = CycleFrom(next, start);
  if (seq.empty()) {
    next.clear();
    bool unique = true;
    if (auto cit = g.conn_next.find(ch); cit != g.conn_next.end()) {
      for (const auto& [a, bs] : cit->second) {
        if (bs.size() != 1) unique = false;
        next[a] = *bs.begin();
      }
    }
    if (unique) seq = CycleFrom(next, start);
    from = "connection lines";
    if (!unique) {
      // Tree connections on the same channel: each rank's first connection is its ring successor.
      if (auto fit = g.conn_first.find(ch); fit != g.conn_first.end()) next = fit->second;
      seq = CycleFrom(next, start);
      from = "first connection lines";
    }
  }
  if (!seq.empty()) {
    // A cut order must be the start of the rebuilt cycle.
    bool consistent = v->ranks.size() <= seq.size();
    for (size_t i = 0; consistent && i < v->ranks.size(); ++i) consistent = v->ranks[i] == seq[i];
    if (!consistent) {
      report->notes.push_back(StringPrintf("comm %s channel %d: the %s disagree with rank 0's ring order",
                                           gname.c_str(), ch, from.c_str()));
    }
    v->ranks = std::move(seq);
    report->notes.push_back(StringPrintf("comm %s channel %d: ring rebuilt from %zu %s", gname.c_str(), ch,
                                         next.size(), from.c_str()));
  } else if (!has_order) {
    report->notes.push_back(StringPrintf(
        "comm %s channel %d: no ring order and neither Ring lines nor connections close a cycle", gname.c_str(), ch));
    return false;
  }
  return true;
}

// Fills a ring's hosts and GPUs per rank and, per cross-node hop, the NICs of its NET connections.
void MapRingRanks(const GroupData& g, const NicNames& nic_names, RingView* v) {
  std::vector<std::string> per_rank;
  for (int r : v->ranks) {
    const std::string h = HostOfRank(g, r);
    per_rank.push_back(h);
    auto it = g.ranks.find(r);
    const int gpu = it == g.ranks.end() ? -1 : it->second.gpu;
    v->gpus.push_back(gpu >= 0 ? h + "/gpu" + std::to_string(gpu) : h + "/?");
  }
  v->hosts = CollapseHosts(per_rank);
  if (!v->complete) {  // the start of a ring: no hop back from the last rank to the first
    v->hosts.clear();
    for (const auto& h : per_rank) {
      if (v->hosts.empty() || v->hosts.back() != h) v->hosts.push_back(h);
    }
  }
  const size_t nr = v->ranks.size();
  if (nr <= 1) return;
  for (size_t i = 0; i + (v->complete ? 0 : 1) < nr; ++i) {
    const int a = v->ranks[i], b = v->ranks[(i + 1) % nr];
    const std::string ha = per_rank[i], hb = per_rank[(i + 1) % nr];
    if (ha == hb) continue;
    std::string na = "?", nb = "?";
    auto s = g.net_conns.find({v->channel, a, b, true});
    if (s != g.net_conns.end()) na = NicName(nic_names, s->second.first, s->second.second);
    auto r = g.net_conns.find({v->channel, a, b, false});
    if (r != g.net_conns.end()) nb = NicName(nic_names, r->second.first, r->second.second);
    v->cross_node_nics.push_back(ha + ":" + na + "->" + hb + ":" + nb);
  }
}

// The ring of one channel of group `gname`: rank 0's order when whole, else rebuilt; nullopt when
// the channel has no ring. Disagreements between the sources become notes.
std::optional<RingView> ChannelRing(const std::string& gname, int ch, const GroupData& g, const NicNames& nic_names,
                                    RingReport* report) {
  RingView v;
  v.source = RingSource::kNcclLog;
  v.channel = ch;
  v.comm = gname;
  auto oit = g.orders.find(ch);
  auto nit = g.ring_next.find(ch);
  // Cut short: marked '...', or fewer ranks than the logs name (NCCL <= 2.22 prints rank 0's
  // order into a fixed-size line). A comm's ranks are 0..n-1, so a rank r anywhere means n > r.
  size_t expected = std::max(g.ranks.size(), g.nranks > 0 ? static_cast<size_t>(g.nranks) : size_t{0});
  if (!g.ranks.empty()) expected = std::max(expected, static_cast<size_t>(g.ranks.rbegin()->first) + 1);
  for (const auto& [unused, order] : g.orders) {
    (void)unused;
    for (int r : order->ranks) expected = std::max(expected, static_cast<size_t>(r) + 1);
  }
  const bool truncated = oit != g.orders.end() && (oit->second->truncated || oit->second->ranks.size() < expected);
  if (oit != g.orders.end()) {
    v.ranks = oit->second->ranks;
    if (truncated) {
      report->notes.push_back(StringPrintf("comm %s channel %d: rank 0's ring order is cut short (%zu of %zu ranks)",
                                           gname.c_str(), ch, oit->second->ranks.size(), expected));
    }
    if (nit != g.ring_next.end() && !v.ranks.empty() && !truncated) {
      CheckRingLines(gname, ch, v.ranks, nit->second, report);
    }
  }
  if (oit == g.orders.end() || truncated) {
    const std::map<int, int>* ring_next = nit != g.ring_next.end() ? &nit->second : nullptr;
    if (!RebuildRing(gname, ch, g, ring_next, oit != g.orders.end(), &v, report)) return std::nullopt;
  }
  if (v.ranks.empty()) return std::nullopt;
  v.complete = v.ranks.size() >= expected;
  if (!v.complete) {
    report->notes.push_back(StringPrintf("comm %s channel %d: partial ring of %zu of %zu ranks (complete: false)",
                                         gname.c_str(), ch, v.ranks.size(), expected));
  }
  MapRingRanks(g, nic_names, &v);
  return v;
}

// The trees of group `gname`, one per channel, with their root when there is exactly one.
void GroupTrees(const std::string& gname, GroupData& g, RingReport* report) {
  for (const auto& [ch, edges] : g.tree_edges) {
    TreeView t;
    t.channel = ch;
    t.comm = gname;
    t.edges.assign(edges.begin(), edges.end());
    std::set<int> children;
    for (const auto& e : edges) children.insert(e.first);
    std::vector<int> roots;
    for (int node : g.tree_nodes[ch]) {
      if (!children.count(node)) roots.push_back(node);
    }
    t.root = roots.size() == 1 ? roots.front() : -1;
    report->trees.push_back(std::move(t));
  }
}

}  // namespace

RingReport RingsFromLogs(const model::Dataset& ds) {
  RingReport report;
  const auto& logs = ds.nccl_logs;
  if (logs.empty()) return report;
  const CommIndex index(logs);
  const NicNames nic_names = CollectNicNames(logs);
  std::map<std::string, GroupData> groups = CollectGroups(logs, index);
  for (auto& [gname, g] : groups) {
    std::set<int> channels;
    for (const auto& [ch, o] : g.orders) channels.insert(ch);
    for (const auto& [ch, m] : g.ring_next) channels.insert(ch);
    for (const auto& [ch, m] : g.conn_next) channels.insert(ch);
    for (int ch : channels) {
      std::optional<RingView> v = ChannelRing(gname, ch, g, nic_names, &report);
      if (v) report.rings.push_back(std::move(*v));
    }
    GroupTrees(gname, g, &report);
  }
  // Channels sharing one host cycle.
  std::map<std::pair<std::string, std::vector<std::string>>, int> per_cycle;
  for (const auto& v : report.rings) ++per_cycle[{v.comm, CanonicalCycle(v.hosts)}];
  for (auto& v : report.rings) v.channels = per_cycle[{v.comm, CanonicalCycle(v.hosts)}];
  std::sort(report.rings.begin(), report.rings.end(), [](const RingView& a, const RingView& b) {
    return std::tie(a.comm, a.channel) < std::tie(b.comm, b.channel);
  });
  std::sort(report.trees.begin(), report.trees.end(), [](const TreeView& a, const TreeView& b) {
    return std::tie(a.comm, a.channel) < std::tie(b.comm, b.channel);
  });
  return report;
}

namespace {

// Cycles of a weighted directed graph, heaviest first: every node follows its heaviest outgoing
// edge, the cycles of that successor graph are taken and their bottleneck subtracted, until what is
// left is below `min_share` of the first cycle. Returns (cycle, bottleneck weight).
std::vector<std::pair<std::vector<std::string>, double>> PeelCycles(
    std::map<std::pair<std::string, std::string>, double> w, double min_share) {
  std::vector<std::pair<std::vector<std::string>, double>> out;
  double first = 0;
  const size_t max_rounds = w.size() + 1;
  for (size_t round = 0; round < max_rounds && !w.empty(); ++round) {
    std::map<std::string, std::string> succ;
    std::map<std::string, double> best;
    for (const auto& [e, x] : w) {
      auto it = best.find(e.first);
      if (it == best.end() || x > it->second) {  // ties: the smaller name (map order)
        best[e.first] = x;
        succ[e.first] = e.second;
      }
    }
    std::vector<std::vector<std::string>> cycles;
    std::map<std::string, int> state;  // 0 new, 1 on the current walk, 2 done
    for (const auto& [start, unused] : succ) {
      (void)unused;
      if (state[start] != 0) continue;
      std::vector<std::string> walk;
      std::string cur = start;
      while (true) {
        auto st = state.find(cur);
        if (st != state.end() && st->second != 0) {
          if (st->second == 1) {
            auto pos = std::find(walk.begin(), walk.end(), cur);
            cycles.emplace_back(pos, walk.end());
          }
          break;
        }
        state[cur] = 1;
        walk.push_back(cur);
        auto s = succ.find(cur);
        if (s == succ.end()) break;
        cur = s->second;
      }
      for (const auto& x : walk) state[x] = 2;
    }
    if (cycles.empty()) break;
    for (const auto& cyc : cycles) {
      double bottleneck = std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < cyc.size(); ++i) bottleneck = std::min(bottleneck, w[{cyc[i], cyc[(i + 1) % cyc.size()]}]);
      if (first == 0) first = bottleneck;
      if (bottleneck >= min_share * first) out.emplace_back(cyc, bottleneck);
      for (size_t i = 0; i < cyc.size(); ++i) {
        auto it = w.find({cyc[i], cyc[(i + 1) % cyc.size()]});
        it->second -= bottleneck;
        if (it->second <= first * 1e-12) w.erase(it);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<RingView> RingsFromFlows(const FlowReport& flows, double min_share) {
  // Two graphs of data bytes: address level (NCCL gives each channel its own NIC, i.e. rail, so a
  // channel's ring is a cycle of addresses even when several channels share the hosts) and host
  // level (when a channel enters and leaves a host on different NICs the address cycles break).
  std::map<std::pair<std::string, std::string>, double> w_host, w_ip;
  std::map<std::pair<std::string, std::string>, std::map<std::pair<IpAddress, IpAddress>, double>> ip_pairs;
  std::map<std::string, IpAddress> ip_of;
  std::map<IpAddress, std::string> host_by_ip;  // what the flows themselves say
  for (const auto& f : flows.flows) {
    if (!f.src_host.empty()) host_by_ip.emplace(f.key.src, f.src_host);
    if (!f.dst_host.empty()) host_by_ip.emplace(f.key.dst, f.dst_host);
  }
  auto host_of = [&flows, &host_by_ip](const IpAddress& ip, const std::string& known) {
    if (!known.empty()) return known;
    if (auto it = host_by_ip.find(ip); it != host_by_ip.end()) return it->second;
    const std::string h = flows.hosts.HostOf(ip);
    return h.empty() ? ip.ToString() : h;
  };
  for (const auto& f : flows.flows) {
    if (f.data_bytes <= 0) continue;
    const std::string a = host_of(f.key.src, f.src_host);
    const std::string b = host_of(f.key.dst, f.dst_host);
    if (a == b) continue;
    w_host[{a, b}] += static_cast<double>(f.data_bytes);
    ip_pairs[{a, b}][{f.key.src, f.key.dst}] += static_cast<double>(f.data_bytes);
    const std::string ia = f.key.src.ToString(), ib = f.key.dst.ToString();
    ip_of.emplace(ia, f.key.src);
    ip_of.emplace(ib, f.key.dst);
    w_ip[{ia, ib}] += static_cast<double>(f.data_bytes);
  }
  // Address cycles that span at least two hosts.
  std::vector<std::pair<std::vector<std::string>, double>> cycles;
  for (auto& [ips, bytes] : PeelCycles(w_ip, min_share)) {
    std::vector<std::string> hosts;
    for (const auto& ip : ips) hosts.push_back(host_of(ip_of.at(ip), ""));
    std::vector<std::string> collapsed = CollapseHosts(hosts);
    if (collapsed.size() < 2) continue;
    cycles.emplace_back(std::move(collapsed), bytes);
  }
  const bool by_address = !cycles.empty();
  if (!by_address) cycles = PeelCycles(w_host, min_share);

  std::vector<RingView> out;
  std::map<std::vector<std::string>, size_t> seen;
  for (const auto& [cyc, bottleneck] : cycles) {
    auto canon = CanonicalCycle(cyc);
    auto it = seen.find(canon);
    if (it != seen.end()) {
      out[it->second].bytes += bottleneck;
      continue;
    }
    RingView v;
    v.source = RingSource::kFlows;
    v.channel = -1;
    v.hosts = canon;
    v.bytes = bottleneck;
    for (size_t i = 0; i < canon.size(); ++i) {
      const auto key = std::make_pair(canon[i], canon[(i + 1) % canon.size()]);
      std::vector<std::pair<double, std::string>> hops;
      for (const auto& [ips, bytes] : ip_pairs[key]) {
        std::string na = flows.hosts.NicOf(ips.first), nb = flows.hosts.NicOf(ips.second);
        if (na.empty()) na = ips.first.ToString();
        if (nb.empty()) nb = ips.second.ToString();
        hops.emplace_back(-bytes, key.first + ":" + na + "->" + key.second + ":" + nb);
      }
      std::sort(hops.begin(), hops.end());
      std::string s;
      for (const auto& h : hops) {
        if (!s.empty()) s += ",";
        s += h.second;
      }
      v.cross_node_nics.push_back(std::move(s));
    }
    seen.emplace(canon, out.size());
    out.push_back(std::move(v));
  }
  std::stable_sort(out.begin(), out.end(), [](const RingView& a, const RingView& b) { return a.bytes > b.bytes; });
  return out;
}

void CompareRings(RingReport* report, const std::vector<RingView>& from_flows) {
  if (report == nullptr) return;
  // Distinct cross-node host cycles of the logs, with the channels that use them.
  std::map<std::vector<std::string>, std::vector<std::string>> log_cycles;
  for (const auto& v : report->rings) {
    if (v.source != RingSource::kNcclLog || v.hosts.size() < 2 || !v.complete) continue;
    log_cycles[CanonicalCycle(v.hosts)].push_back(v.comm + "/" + std::to_string(v.channel));
  }
  std::set<std::vector<std::string>> flow_cycles;
  for (const auto& v : from_flows) {
    if (v.hosts.size() >= 2) flow_cycles.insert(CanonicalCycle(v.hosts));
  }
  if (log_cycles.empty() || flow_cycles.empty()) {
    report->notes.push_back(StringPrintf("rings: %zu cross-node host cycle(s) in the NCCL logs, %zu from flows: "
                                         "nothing to compare",
                                         log_cycles.size(), flow_cycles.size()));
    return;
  }
  auto reversed = [](std::vector<std::string> c) {
    std::reverse(c.begin(), c.end());
    return CanonicalCycle(c);
  };
  for (const auto& [cyc, chans] : log_cycles) {
    std::string where = chans.size() == 1 ? chans.front() : StringPrintf("%zu channels", chans.size());
    if (flow_cycles.count(cyc)) {
      ++report->log_flow_agree;
      report->notes.push_back("agree: log ring " + JoinArrow(cyc) + " (" + where + ") is a flow ring");
    } else if (flow_cycles.count(reversed(cyc))) {
      ++report->log_flow_disagree;
      report->notes.push_back("disagree: log ring " + JoinArrow(cyc) + " (" + where +
                              ") appears in flows only in the reverse direction");
    } else {
      ++report->log_flow_disagree;
      report->notes.push_back("disagree: log ring " + JoinArrow(cyc) + " (" + where + ") is not seen in flows");
    }
  }
  for (const auto& cyc : flow_cycles) {
    if (log_cycles.count(cyc) || log_cycles.count(reversed(cyc))) continue;
    ++report->log_flow_disagree;
    report->notes.push_back("disagree: flow ring " + JoinArrow(cyc) + " is in no NCCL log ring");
  }
}

}  // namespace toposcope::analysis
