#include "toposcope/analysis/traffic/rdma.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace toposcope::analysis {

int64_t AutoEntropyWindowNs(int64_t span_ns) {
  constexpr int64_t kMin = 100'000, kMax = 100'000'000;
  const int64_t target = std::clamp<int64_t>(span_ns / 64, kMin, kMax);
  int64_t best = kMin;
  for (int64_t decade = 100'000; decade <= kMax; decade *= 10) {
    for (int64_t m : {1, 2, 5}) {
      const int64_t w = decade * m;
      if (w <= target && w <= kMax) best = std::max(best, w);
    }
  }
  return best;
}

RdmaReport AnalyzeRdma(const model::Dataset& ds, const RdmaOptions& opt, Diagnostics& diag) {
  RdmaReport out;
  out.present = !ds.captures.empty() || !ds.nccl_logs.empty();
  if (!out.present) return out;
  if (!ds.captures.empty()) {
    // The first pass keeps the packets for the second (the entropy below), which then reads no
    // capture again.
    PacketLog log;
    auto flows = AnalyzeFlows(ds, diag, opt.flows, &log);
    if (flows.ok()) {
      out.flows = std::move(*flows);
      int64_t first = 0, last = 0;
      for (const auto& c : out.flows.captures) {
        if (c.records == 0) continue;
        first = first == 0 ? c.first_ts_ns : std::min(first, c.first_ts_ns);
        last = std::max(last, c.last_ts_ns);
      }
      EntropyOptions eo = opt.entropy;
      if (eo.window_ns <= 0) eo.window_ns = AutoEntropyWindowNs(last - first);
      out.entropy_window_ns = eo.window_ns;
      TrafficEntropyAccumulator acc(eo);
      // Link ids are made once per capture and per flow, not per packet.
      std::vector<std::string> capture_ids;
      for (size_t i = 0; i < ds.captures.size(); ++i) capture_ids.push_back(CaptureLinkId(ds.captures[i].point));
      std::unordered_map<const Flow*, std::string> pair_ids;
      std::array<std::string, 2> links;
      const Status st = ReplayPackets(ds, out.flows, [&](const formats::RocePacket& p, uint32_t src_qp, const Flow& f) {
        const auto idx = static_cast<size_t>(p.capture_index);
        if (idx < capture_ids.size()) {
          if (links[0] != capture_ids[idx]) links[0] = capture_ids[idx];
        } else {
          links[0] = CaptureLinkId(std::to_string(p.capture_index));
        }
        auto [it, fresh] = pair_ids.try_emplace(&f);
        if (fresh) {
          it->second = HostPairLinkId(f.src_host.empty() ? f.key.src.ToString() : f.src_host,
                                      f.dst_host.empty() ? f.key.dst.ToString() : f.dst_host);
        }
        if (links[1] != it->second) links[1] = it->second;
        acc.Add(p, src_qp, links);
      }, opt.flows.check_icrc, &log);
      if (!st.ok()) diag.Warn("captures", 0, "", st.error().ToString());
      out.entropy = acc.Finish();
    } else {
      diag.Warn("captures", 0, "", flows.error().ToString());
    }
  }
  out.rings = RingsFromLogs(ds);
  if (!out.flows.flows.empty()) {
    std::vector<RingView> from_flows = RingsFromFlows(out.flows);
    CompareRings(&out.rings, from_flows);
    for (auto& r : from_flows) out.rings.rings.push_back(std::move(r));
  }
  return out;
}

}  // namespace toposcope::analysis
