// analysis/rings: see rings.h.
#include "toposcope/analysis/rings.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "toposcope/base/text.h"

namespace toposcope::analysis {

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
  std::map<int, const formats::NcclRingOrder*> orders;                // channel -> order
  std::map<int, std::map<int, int>> ring_next;                        // channel -> me -> next
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

}  // namespace

RingReport RingsFromLogs(const model::Dataset& ds) {
  RingReport report;
  const auto& logs = ds.nccl_logs;
  if (logs.empty()) return report;
  CommIndex index(logs);
  std::map<std::string, GroupData> groups;

  // NIC names per host: "NET/IB : Using [i]name:port" lists.
  std::map<std::string, std::map<int, std::string>> nic_names;
  for (const auto& log : logs) {
    for (const auto& u : log.net_using) {
      for (const auto& d : u.devices) nic_names[u.at.host].emplace(d.index, d.name);
    }
  }

  for (size_t fi = 0; fi < logs.size(); ++fi) {
    const auto& log = logs[fi];
    for (const auto& c : log.comms) {
      const std::string gname = index.GroupOf(fi, c.at, c.line, c.comm);
      PutRank(groups[gname], c.rank, c.at.host, c.cuda_dev >= 0 ? c.cuda_dev : c.at.cuda_dev);
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
    for (const auto& t : log.trees) {
      GroupData& g = groups[index.GroupOf(fi, t.at, t.line)];
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
    for (const auto& c : log.connections) {
      GroupData& g = groups[index.GroupOf(fi, c.at, c.line)];
      const bool send = c.dir == formats::NcclConnection::Dir::kSend;
      const bool recv = c.dir == formats::NcclConnection::Dir::kReceive;
      if (send || c.dir == formats::NcclConnection::Dir::kNone) PutRank(g, c.from_rank, c.at.host, c.at.cuda_dev);
      if (recv) PutRank(g, c.to_rank, c.at.host, c.at.cuda_dev);
      if (c.transport == formats::NcclTransport::kNet && (send || recv)) {
        g.net_conns[{c.channel, c.from_rank, c.to_rank, send}] = {c.at.host, c.net_dev};
      }
    }
  }

  for (auto& [gname, g] : groups) {
    auto host_of = [&g](int r) -> std::string {
      auto it = g.ranks.find(r);
      if (it == g.ranks.end() || it->second.ambiguous) return "?";
      return it->second.host;
    };
    auto nic_of = [&nic_names](const std::string& host, int dev) -> std::string {
      auto h = nic_names.find(host);
      if (h == nic_names.end()) return "?";
      auto d = h->second.find(dev);
      return d == h->second.end() ? std::string("?") : d->second;
    };
    std::set<int> channels;
    for (const auto& [ch, o] : g.orders) channels.insert(ch);
    for (const auto& [ch, m] : g.ring_next) channels.insert(ch);
    for (int ch : channels) {
      RingView v;
      v.source = "nccl_log";
      v.channel = ch;
      v.comm = gname;
      auto oit = g.orders.find(ch);
      auto nit = g.ring_next.find(ch);
      if (oit != g.orders.end()) {
        v.ranks = oit->second->ranks;
        if (oit->second->truncated) {
          report.notes.push_back(StringPrintf("comm %s channel %d: the ring order is cut short ('...')",
                                              gname.c_str(), ch));
        }
        if (nit != g.ring_next.end() && !v.ranks.empty() && !oit->second->truncated) {
          int mismatches = 0;
          for (size_t i = 0; i < v.ranks.size(); ++i) {
            auto e = nit->second.find(v.ranks[i]);
            if (e != nit->second.end() && e->second != v.ranks[(i + 1) % v.ranks.size()]) ++mismatches;
          }
          if (mismatches > 0) {
            report.notes.push_back(StringPrintf(
                "comm %s channel %d: %d Ring line(s) disagree with rank 0's ring order", gname.c_str(), ch,
                mismatches));
          }
        }
      } else if (nit != g.ring_next.end() && !nit->second.empty()) {
        // Rebuild from the Ring lines when they close one cycle.
        const auto& next = nit->second;
        int start = next.begin()->first;
        std::vector<int> seq{start};
        std::set<int> seen{start};
        int cur = start;
        bool closed = false;
        for (size_t k = 0; k <= next.size(); ++k) {
          auto e = next.find(cur);
          if (e == next.end()) break;
          if (e->second == start) {
            closed = true;
            break;
          }
          if (!seen.insert(e->second).second) break;
          seq.push_back(e->second);
          cur = e->second;
        }
        if (!closed) {
          report.notes.push_back(StringPrintf(
              "comm %s channel %d: no ring order and the Ring lines do not close a cycle", gname.c_str(), ch));
          continue;
        }
        v.ranks = std::move(seq);
        report.notes.push_back(StringPrintf("comm %s channel %d: ring rebuilt from %zu Ring lines",
                                            gname.c_str(), ch, next.size()));
      }
      if (v.ranks.empty()) continue;
      std::vector<std::string> per_rank;
      for (int r : v.ranks) {
        const std::string h = host_of(r);
        per_rank.push_back(h);
        auto it = g.ranks.find(r);
        const int gpu = it == g.ranks.end() ? -1 : it->second.gpu;
        v.gpus.push_back(gpu >= 0 ? h + "/gpu" + std::to_string(gpu) : h + "/?");
      }
      v.hosts = CollapseHosts(per_rank);
      const size_t nr = v.ranks.size();
      if (nr > 1) {
        for (size_t i = 0; i < nr; ++i) {
          const int a = v.ranks[i], b = v.ranks[(i + 1) % nr];
          const std::string ha = per_rank[i], hb = per_rank[(i + 1) % nr];
          if (ha == hb) continue;
          std::string na = "?", nb = "?";
          auto s = g.net_conns.find({ch, a, b, true});
          if (s != g.net_conns.end()) na = nic_of(s->second.first, s->second.second);
          auto r = g.net_conns.find({ch, a, b, false});
          if (r != g.net_conns.end()) nb = nic_of(r->second.first, r->second.second);
          v.cross_node_nics.push_back(ha + ":" + na + "->" + hb + ":" + nb);
        }
      }
      report.rings.push_back(std::move(v));
    }
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
      report.trees.push_back(std::move(t));
    }
  }
  // Channels sharing one host cycle.
  std::map<std::pair<std::string, std::vector<std::string>>, int> per_cycle;
  for (const auto& v : report.rings) ++per_cycle[{v.comm, CanonicalCycle(v.hosts)}];
  for (auto& v : report.rings) v.channels = per_cycle[{v.comm, CanonicalCycle(v.hosts)}];
  std::sort(report.rings.begin(), report.rings.end(),
            [](const RingView& a, const RingView& b) { return std::tie(a.comm, a.channel) < std::tie(b.comm, b.channel); });
  std::sort(report.trees.begin(), report.trees.end(),
            [](const TreeView& a, const TreeView& b) { return std::tie(a.comm, a.channel) < std::tie(b.comm, b.channel); });
  return report;
}

std::vector<RingView> RingsFromFlows(const FlowReport& flows, double min_share) {
  // Host graph of data bytes, and the IP pairs behind every edge.
  std::map<std::pair<std::string, std::string>, double> w;
  std::map<std::pair<std::string, std::string>, std::map<std::pair<IpAddress, IpAddress>, double>> ip_pairs;
  for (const auto& f : flows.flows) {
    if (f.data_bytes <= 0) continue;
    const std::string a = f.src_host.empty() ? f.key.src.ToString() : f.src_host;
    const std::string b = f.dst_host.empty() ? f.key.dst.ToString() : f.dst_host;
    if (a == b) continue;
    w[{a, b}] += static_cast<double>(f.data_bytes);
    ip_pairs[{a, b}][{f.key.src, f.key.dst}] += static_cast<double>(f.data_bytes);
  }
  std::vector<RingView> out;
  std::map<std::vector<std::string>, size_t> seen;
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
    // Cycles of the successor graph.
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
      for (size_t i = 0; i < cyc.size(); ++i) {
        bottleneck = std::min(bottleneck, w[{cyc[i], cyc[(i + 1) % cyc.size()]}]);
      }
      if (first == 0) first = bottleneck;
      if (bottleneck >= min_share * first) {
        auto canon = CanonicalCycle(cyc);
        auto it = seen.find(canon);
        if (it != seen.end()) {
          out[it->second].bytes += bottleneck;
        } else {
          RingView v;
          v.source = "flows";
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
      }
      for (size_t i = 0; i < cyc.size(); ++i) {
        auto it = w.find({cyc[i], cyc[(i + 1) % cyc.size()]});
        it->second -= bottleneck;
        if (it->second <= first * 1e-12) w.erase(it);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const RingView& a, const RingView& b) { return a.bytes > b.bytes; });
  return out;
}

void CompareRings(RingReport* report, const std::vector<RingView>& from_flows) {
  if (report == nullptr) return;
  // Distinct cross-node host cycles of the logs, with the channels that use them.
  std::map<std::vector<std::string>, std::vector<std::string>> log_cycles;
  for (const auto& v : report->rings) {
    if (v.source != "nccl_log" || v.hosts.size() < 2) continue;
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
