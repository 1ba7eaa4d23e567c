// libFuzzer target for the NCCL_DEBUG=INFO log reader: counts must balance on any input, the
// diagnostics must match the rejected count, and every record must write back (NcclLogWriter, all
// eras) into a line that re-parses without rejects into one record (one per channel for Trees)
// with the same topology values.
#include <algorithm>
#include <climits>
#include <span>
#include <vector>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "toposcope/formats/nccl/nccl_log.h"

namespace {

using namespace toposcope;
using namespace toposcope::formats;

NcclLog Reparse(const std::string& line) {
  Diagnostics diag;
  auto log = ParseNcclLog(line, "fuzz-rewritten", diag);
  if (!log.ok() || !log->counts.Balanced() || log->counts.rejected != 0) __builtin_trap();
  return std::move(*log);
}

// The first few records of a kind (the round trips are the slow part; this keeps exec/s up).
template <class T>
std::span<const T> First(const std::vector<T>& v) {
  return std::span<const T>(v.data(), std::min<size_t>(v.size(), 12));
}

bool SamePrefix(const NcclLogPrefix& a, const NcclLogPrefix& b) {
  return a.host == b.host && a.pid == b.pid && a.tid == b.tid && a.cuda_dev == b.cuda_dev;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  auto log = ParseNcclLog(text, "fuzz", diag);
  if (!log.ok()) return 0;
  const ReadCounts& c = log->counts;
  if (!c.Balanced()) __builtin_trap();
  if (diag.rejected_total() != c.rejected) __builtin_trap();
  if (log->ignored_lines > c.accepted) __builtin_trap();
  (void)LooksLikeNcclLog(text);

  NcclLogPrefix fallback;
  fallback.host = "w";
  for (const NcclLogEra era : {NcclLogEra::kV2_12, NcclLogEra::kV2_16, NcclLogEra::kV2_26}) {
    NcclLogWriter w(era, fallback);
    for (const auto& r : First(log->rings)) {
      const NcclLog g = Reparse(w.Ring(r));
      if (g.rings.size() != 1) __builtin_trap();
      const NcclRingLine& x = g.rings[0];
      if (x.channel != r.channel || x.prev != r.prev || x.me != r.me || x.next != r.next) __builtin_trap();
      if (!r.at.host.empty() && !SamePrefix(x.at, r.at)) __builtin_trap();
    }
    for (const auto& t : First(log->trees)) {
      const NcclLog g = Reparse(w.Tree(t));
      if (g.trees.size() != 1) __builtin_trap();
      const NcclTreeLine& x = g.trees[0];
      if (x.channel != t.channel || x.down != t.down || x.me != t.me || x.up != t.up ||
          x.old_format != t.old_format) {
        __builtin_trap();
      }
    }
    for (const auto& o : First(log->ring_orders)) {
      if (o.ranks.empty()) continue;
      const NcclLog g = Reparse(w.RingOrder(o, static_cast<int>(o.ranks.size())));
      if (g.ring_orders.size() != 1) __builtin_trap();
      const auto& got = g.ring_orders[0].ranks;
      if (got.size() > o.ranks.size()) __builtin_trap();
      for (size_t i = 0; i < got.size(); ++i) {
        if (got[i] != o.ranks[i]) __builtin_trap();
      }
    }
    for (const auto& k : First(log->connections)) {
      // 2.4's NET lines name no devices (`30 -> 28 [send] via NET/Socket/0`): a form the reader
      // takes but the writer, which writes `rank[dev]`, does not.
      if (k.from_dev.empty() || k.to_dev.empty()) continue;
      const NcclLog g = Reparse(w.Connection(k));
      if (g.connections.size() != 1) __builtin_trap();
      const NcclConnection& x = g.connections[0];
      if (x.channel != k.channel || x.from_rank != k.from_rank || x.to_rank != k.to_rank ||
          x.transport != k.transport || x.dir != k.dir || x.via != k.via || x.net_dev != k.net_dev ||
          x.from_dev != k.from_dev || x.gdrdma != k.gdrdma) {
        __builtin_trap();
      }
    }
    for (const auto& u : First(log->net_using)) {
      const NcclLog g = Reparse(w.NetUsing(u));
      if (g.net_using.size() != 1 || g.net_using[0].devices.size() != u.devices.size()) __builtin_trap();
    }
    for (const auto& q : First(log->qpns)) {
      const NcclLog g = Reparse(w.Qpn(q));
      if (g.qpns.size() != 1 || g.qpns[0].qpn != q.qpn) __builtin_trap();
    }
    for (const auto& m : First(log->comms)) {
      if (m.nranks < 1) continue;  // the writer needs a rank count to print
      if (era == NcclLogEra::kV2_26 && m.kind == NcclCommInitKind::kRankInfo &&
          (m.nnodes < 1 || m.local_ranks < 1 || m.local_rank < 0)) {
        continue;  // a rank-info line missing some of its counts
      }
      const NcclLog g = Reparse(w.CommInit(m));
      if (g.comms.size() != 1 || g.comms[0].rank != m.rank || g.comms[0].comm != m.comm) __builtin_trap();
    }
  }
  return 0;
}
