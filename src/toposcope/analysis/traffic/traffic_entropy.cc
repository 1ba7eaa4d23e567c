#include "toposcope/analysis/traffic/traffic_entropy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "toposcope/base/last_lookup.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/stats/entropy.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

constexpr NamedValue<SpectrumSeries> kSeriesNames[] = {
    {SpectrumSeries::kBytes, "bytes"}, {SpectrumSeries::kSeedBits, "seed_header_bits"},
    {SpectrumSeries::kMessageSizeBits, "message_size_bits"}};

constexpr NamedValue<EntropyEstimator> kEstimatorNames[] = {
    {EntropyEstimator::kSeedHeader, "seed_header"},
    {EntropyEstimator::kMillerMadowHeader, "miller_madow_header"}, {EntropyEstimator::kFlowQp, "flow_qp"},
    {EntropyEstimator::kMessageSize, "message_size"}};

constexpr NamedValue<TrafficMode> kModeNames[] = {
    {TrafficMode::kInsufficientData, "insufficient_data"},
    {TrafficMode::kPeriodicCongestion, "periodic_congestion"},
    {TrafficMode::kMultiTenantContention, "multi_tenant_contention"}, {TrafficMode::kSteady, "steady"}};

}  // namespace

std::string_view SpectrumSeriesName(SpectrumSeries s) { return NameIn(kSeriesNames, s, "bytes"); }

std::string_view EntropyEstimatorName(EntropyEstimator e) { return NameIn(kEstimatorNames, e, "seed_header"); }

std::string_view TrafficModeName(TrafficMode m) { return NameIn(kModeNames, m, "insufficient_data"); }

std::string CaptureLinkId(std::string_view capture_point) {
  std::string id = "capture:";
  id.append(capture_point);
  return id;
}

std::string HostPairLinkId(std::string_view host_a, std::string_view host_b) {
  if (host_b < host_a) std::swap(host_a, host_b);
  std::string id(host_a);
  id.push_back('~');
  id.append(host_b);
  return id;
}

namespace {

constexpr int kBins = stats::kSeedHeaderBins;
constexpr int kSizeClasses = 34;  // class 0 = 0 B, class c = [2^(c-1), 2^c), c <= 33 for 64-bit sizes

int SizeClass(uint64_t bytes) {
  if (bytes == 0) return 0;
  return 64 - __builtin_clzll(bytes);  // floor(log2) + 1
}

struct FlowKey {
  IpAddress dst_ip;
  uint32_t dest_qp = 0;
  friend bool operator==(const FlowKey&, const FlowKey&) = default;
};
struct FlowKeyHash {
  size_t operator()(const FlowKey& k) const noexcept {
    return static_cast<size_t>(k.dst_ip.Hash() ^ (static_cast<uint64_t>(k.dest_qp) * 0x9e3779b97f4a7c15ULL));
  }
};

struct FlowCount {
  uint64_t bytes = 0;
  uint64_t packets = 0;
};

// A flow's congestion-marked packets (IP ECN CE or BTH FECN) in one window of one link, and the
// first of them in feeding order (time order within a capture): its PSN and time, to find the same
// packet on other links.
struct MarkSighting {
  FlowKey flow;
  uint32_t first_psn = 0;
  int64_t first_ts_ns = 0;
  int64_t marked = 0;
};

struct Window {
  std::vector<uint32_t> header;                        // 1024 counts while dense (open)
  std::vector<std::pair<uint16_t, uint32_t>> sparse;   // non-zero (bin, count) once compacted
  std::array<uint32_t, kSizeClasses> size_classes{};
  std::vector<FlowCount> flows;                        // by link flow id
  int64_t packets = 0;
  uint64_t bytes = 0;
  int64_t messages = 0;
  int64_t marked = 0;                                  // ECN CE / FECN packets
  std::vector<MarkSighting> marks;                     // per marked flow
  [[nodiscard]] bool dense() const { return !header.empty(); }
};

enum class MsgKind : uint8_t { kNone, kSend, kWrite };
struct MsgState {
  MsgKind kind = MsgKind::kNone;
  uint64_t acc_bytes = 0;
};

struct Link {
  std::map<int64_t, Window> windows;  // by window index
  std::set<int64_t> dense_windows;
  int64_t max_ts_ns = std::numeric_limits<int64_t>::min();
  int64_t last_index = std::numeric_limits<int64_t>::min();
  Window* last_window = nullptr;
  std::unordered_map<FlowKey, uint32_t, FlowKeyHash> flow_ids;
  std::vector<bool> flow_is_request;
  std::unordered_map<uint64_t, MsgState> msg_state;  // (capture_index, flow id)
  LastLookup<FlowKey, uint32_t> last_flow;    // the flow id of the link's last packet
  LastLookup<uint64_t, MsgState*> last_msg;  // and its message state (msg_state's entries stay put)
  std::set<uint16_t> udp_ports;
  uint16_t last_udp_port = 0;  // the port of the link's last packet (already in udp_ports)
  int64_t packets = 0;
  uint64_t bytes = 0;
  int64_t messages = 0;
  int64_t congestion_marks = 0;  // IP ECN CE, BTH FECN/BECN, CNPs
};

void Compact(Window& w) {
  w.sparse.clear();
  for (int b = 0; b < kBins; ++b) {
    if (w.header[b] != 0) w.sparse.emplace_back(static_cast<uint16_t>(b), w.header[b]);
  }
  w.header.clear();
  w.header.shrink_to_fit();
  w.sparse.shrink_to_fit();
}

void Expand(Window& w) {
  w.header.assign(kBins, 0);
  for (const auto& [b, c] : w.sparse) w.header[b] = c;
  w.sparse.clear();
  w.sparse.shrink_to_fit();
}

// Ends the message open in `st` with its last packet of `payload_bytes`: the message's size when `st`
// holds one of `kind`, else nullopt. `st` is reset either way.
std::optional<uint64_t> CloseMessage(MsgState& st, MsgKind kind, uint64_t payload_bytes) {
  if (st.kind != kind) {
    st = {};
    return std::nullopt;
  }
  const uint64_t size = st.acc_bytes + payload_bytes;
  st = {};
  return size;
}

// The message size a packet completes (or opens with a known length), if any.
std::optional<uint64_t> MessageSize(const formats::RocePacket& p, MsgState& st) {
  namespace op = formats::roce_op;
  const formats::RoceTransport t = formats::TransportOf(p.opcode);
  if (t == formats::RoceTransport::kUd) {
    if ((p.opcode & 0x1f) == op::kSendOnly || (p.opcode & 0x1f) == op::kSendOnlyImm) return p.payload_bytes;
    return std::nullopt;
  }
  if (t != formats::RoceTransport::kRc && t != formats::RoceTransport::kUc) return std::nullopt;
  switch (p.opcode & 0x1f) {
    case op::kSendFirst:
      st = {MsgKind::kSend, p.payload_bytes};
      return std::nullopt;
    case op::kWriteFirst:
      if (p.has_reth) {
        st = {MsgKind::kNone, 0};
        return p.reth_dma_len;
      }
      st = {MsgKind::kWrite, p.payload_bytes};
      return std::nullopt;
    case op::kSendMiddle:
    case op::kWriteMiddle:
      if (st.kind != MsgKind::kNone) st.acc_bytes += p.payload_bytes;
      return std::nullopt;
    case op::kSendLast:
    case op::kSendLastImm:
    case op::kSendLastInv:
      return CloseMessage(st, MsgKind::kSend, p.payload_bytes);  // nullopt: its FIRST was not seen
    case op::kWriteLast:
    case op::kWriteLastImm:
      // nullopt: counted at a FIRST with RETH, or its FIRST was not seen
      return CloseMessage(st, MsgKind::kWrite, p.payload_bytes);
    case op::kSendOnly:
    case op::kSendOnlyImm:
    case op::kSendOnlyInv:
      return p.payload_bytes;
    case op::kWriteOnly:
    case op::kWriteOnlyImm:
      return p.has_reth ? uint64_t{p.reth_dma_len} : uint64_t{p.payload_bytes};
    case op::kReadRequest:
      if (p.has_reth) return p.reth_dma_len;
      return std::nullopt;
    case op::kCompareSwap:
    case op::kFetchAdd:
      return 8;
    default:
      return std::nullopt;  // READ responses, ACKs: not messages of their own
  }
}

double Median(std::vector<double> v) { return v.empty() ? 0.0 : stats::Median(std::move(v)); }

std::string Format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// Counts a marked packet of `flow` in `w`.
void AddMark(Window& w, const FlowKey& flow, const formats::RocePacket& p) {
  ++w.marked;
  for (MarkSighting& m : w.marks) {
    if (m.flow == flow) {
      ++m.marked;
      return;
    }
  }
  w.marks.push_back({flow, p.psn, p.ts_ns, 1});
}

}  // namespace

struct TrafficEntropyAccumulator::State {
  EntropyOptions opt;
  std::unordered_map<std::string, Link> links;
  int64_t packets = 0;
  // The links recent packets went to, by their id's text (a flow hands the same ids for each of
  // its packets): a compare instead of a hash and a bucket walk per packet and link. Emptied
  // whenever `links` loses an entry.
  struct Recent {
    std::string id;
    Link* link = nullptr;
  };
  std::array<Recent, 64> recent;

  Link& LinkOf(const std::string& id) {
    Recent& r = recent[(reinterpret_cast<uintptr_t>(&id) >> 4) % recent.size()];
    if (r.link == nullptr || r.id != id) {
      r.id = id;
      r.link = &links[id];
    }
    return *r.link;
  }
  void Forget() { recent.fill(Recent{}); }
};

TrafficEntropyAccumulator::TrafficEntropyAccumulator(EntropyOptions opt) : state_(std::make_unique<State>()) {
  if (opt.window_ns <= 0) opt.window_ns = 100'000'000;
  if (opt.close_after_ns < 0) opt.close_after_ns = 0;
  if (opt.max_spectrum_windows < 1) opt.max_spectrum_windows = 1;
  state_->opt = opt;
}
TrafficEntropyAccumulator::~TrafficEntropyAccumulator() = default;
TrafficEntropyAccumulator::TrafficEntropyAccumulator(TrafficEntropyAccumulator&&) noexcept = default;
TrafficEntropyAccumulator& TrafficEntropyAccumulator::operator=(TrafficEntropyAccumulator&&) noexcept = default;

int64_t TrafficEntropyAccumulator::packets() const { return state_ ? state_->packets : 0; }

void TrafficEntropyAccumulator::Add(const formats::RocePacket& p, uint32_t src_qp,
                                    std::span<const std::string> links) {
  if (!state_ || links.empty()) return;
  const EntropyOptions& opt = state_->opt;
  ++state_->packets;
  if (src_qp == 0 && p.has_deth) src_qp = p.deth_src_qp;  // UD names its source QP
  const uint32_t symbol = stats::SeedHeaderSymbol(src_qp, p.psn, p.dest_qp);
  const int64_t index = FloorDiv(p.ts_ns, opt.window_ns);
  const bool is_request = formats::IsRequest(p.opcode);
  for (const std::string& id : links) {
    Link& link = state_->LinkOf(id);
    // Window.
    Window* w = nullptr;
    if (link.last_window != nullptr && link.last_index == index) {
      w = link.last_window;
    } else {
      w = &link.windows[index];
      link.last_index = index;
      link.last_window = w;
    }
    if (!w->dense()) {
      if (w->sparse.empty() && w->packets == 0) {
        w->header.assign(kBins, 0);
      } else {
        Expand(*w);  // a late packet re-opens a compacted window
      }
      link.dense_windows.insert(index);
    }
    ++w->header[symbol];
    ++w->packets;
    w->bytes += p.payload_bytes;
    // Flow.
    const FlowKey key{p.dst_ip, p.dest_qp};
    const uint32_t flow = *link.last_flow.Find(key, [&link](const FlowKey& k) -> std::optional<uint32_t> {
      auto [it, inserted] = link.flow_ids.try_emplace(k, static_cast<uint32_t>(link.flow_ids.size()));
      if (inserted) link.flow_is_request.push_back(false);
      return it->second;
    });
    if (is_request) link.flow_is_request[flow] = true;
    if (w->flows.size() <= flow) w->flows.resize(flow + 1);
    w->flows[flow].bytes += p.payload_bytes;
    ++w->flows[flow].packets;
    // Message.
    const uint64_t msg_key = (static_cast<uint64_t>(static_cast<uint32_t>(p.capture_index)) << 32) | flow;
    MsgState* msg = *link.last_msg.Find(
        msg_key, [&link](uint64_t k) -> std::optional<MsgState*> { return &link.msg_state[k]; });
    if (auto size = MessageSize(p, *msg)) {
      ++w->size_classes[SizeClass(*size)];
      ++w->messages;
      ++link.messages;
    }
    if (link.udp_ports.empty() || p.udp_src_port != link.last_udp_port) link.udp_ports.insert(p.udp_src_port);
    link.last_udp_port = p.udp_src_port;
    if (p.ip_ecn_ce || p.fecn || p.becn || p.opcode == 0x81) ++link.congestion_marks;
    if (p.ip_ecn_ce || p.fecn) AddMark(*w, key, p);
    ++link.packets;
    link.bytes += p.payload_bytes;
    // Compact windows the link has moved past.
    if (p.ts_ns > link.max_ts_ns) {
      link.max_ts_ns = p.ts_ns;
      while (!link.dense_windows.empty()) {
        const int64_t first = *link.dense_windows.begin();
        // end of window `first` + close_after <= max_ts (compared without overflow)
        const int64_t end_index = FloorDiv(link.max_ts_ns - opt.close_after_ns, opt.window_ns);
        if (first >= end_index) break;
        Compact(link.windows[first]);
        link.dense_windows.erase(link.dense_windows.begin());
      }
    }
  }
}

namespace {

struct WindowFigures {
  int64_t index = 0;
  int64_t packets = 0;
  uint64_t bytes = 0;
  double seed = 0, mm = 0, flow = 0, msg = 0;
};

LinkEntropyMode ClassifySpectrum(const std::string& id, const std::vector<WindowFigures>& figs,
                                 int64_t congestion_marks, const EntropyOptions& opt) {
  LinkEntropyMode mode;
  mode.link = id;
  mode.series = opt.spectrum_series;
  const std::string series_name(SpectrumSeriesName(mode.series));
  if (figs.empty()) {
    mode.mode = TrafficMode::kInsufficientData;
    mode.evidence = "no packets";
    return mode;
  }
  const int64_t first = figs.front().index;
  const int64_t span = figs.back().index - first + 1;
  const int64_t total = std::min<int64_t>(span, opt.max_spectrum_windows);
  const int64_t n = stats::LargestSmoothLength(total);
  mode.spectrum_windows = static_cast<int>(n);
  const double window_s = static_cast<double>(opt.window_ns) * 1e-9;
  if (n < opt.min_spectrum_windows) {
    mode.mode = TrafficMode::kInsufficientData;
    mode.evidence = Format("%lld windows of %.3g s; at least %d needed for a spectrum", static_cast<long long>(span),
                           window_s, opt.min_spectrum_windows);
    return mode;
  }
  std::vector<double> series(static_cast<size_t>(n), 0.0);
  for (const WindowFigures& f : figs) {
    const int64_t i = f.index - first;
    if (i >= n) break;
    switch (opt.spectrum_series) {
      case SpectrumSeries::kBytes:
        series[i] = static_cast<double>(f.bytes);
        break;
      case SpectrumSeries::kSeedBits:
        series[i] = f.seed;
        break;
      case SpectrumSeries::kMessageSizeBits:
        series[i] = f.msg;
        break;
    }
  }
  const double rate_hz = 1.0 / window_s;
  const stats::PowerSpectrum s = stats::ComputePowerSpectrum(series, rate_hz);
  mode.cv = s.mean > 0 ? s.stddev / s.mean : 0;
  std::string cut;
  if (n < span) cut = Format(" (first %lld of %lld)", static_cast<long long>(n), static_cast<long long>(span));
  if (!(s.stddev > 0)) {
    mode.mode = TrafficMode::kSteady;
    mode.spectral_flatness = 0;
    mode.evidence = Format("%s series over %lld windows of %.3g s%s is constant", series_name.c_str(),
                           static_cast<long long>(n), window_s, cut.c_str());
    return mode;
  }
  mode.spectral_flatness = stats::SpectralFlatness(s.power);
  const double max_freq = opt.low_band_fraction * rate_hz / 2.0;
  const stats::SpectralPeak peak = stats::FindLowFrequencyPeak(s, max_freq, 2);
  std::string peak_text = "no low-band bin";
  if (peak.found) {
    mode.low_freq_peak_ratio = peak.ratio_to_mean;
    mode.dominant_period_s = peak.period_s;
    mode.fisher_p = peak.fisher_p;
    peak_text = Format("low-band peak at %.4g Hz (period %.4g s) = %.3g x mean power, Fisher p = %.3g %s %.3g",
                       peak.freq_hz, peak.period_s, peak.ratio_to_mean, peak.fisher_p,
                       peak.fisher_p < opt.fisher_alpha ? "<" : ">=", opt.fisher_alpha);
  }
  const std::string head = Format("%s series over %lld windows of %.3g s%s: ", series_name.c_str(),
                                  static_cast<long long>(n), window_s, cut.c_str());
  const std::string tail = Format("; flatness %.3f (white >= %.2f); cv %.3f (contention >= %.2f)",
                                  mode.spectral_flatness, opt.white_flatness, mode.cv, opt.min_cv);
  const std::string marks = Format("; %lld congestion marks (ECN CE, FECN/BECN, CNP)",
                                   static_cast<long long>(congestion_marks));
  if (peak.found && peak.fisher_p < opt.fisher_alpha && congestion_marks >= opt.min_congestion_marks) {
    mode.mode = TrafficMode::kPeriodicCongestion;
  } else if (peak.found && peak.fisher_p < opt.fisher_alpha) {
    // A periodic load with no sign of a queue building: the job's own cadence, not congestion.
    mode.mode = TrafficMode::kSteady;
  } else if (mode.spectral_flatness >= opt.white_flatness && mode.cv >= opt.min_cv) {
    mode.mode = TrafficMode::kMultiTenantContention;
  } else {
    mode.mode = TrafficMode::kSteady;
  }
  mode.evidence = head + peak_text + tail + marks;
  return mode;
}

}  // namespace

namespace {

// Marks first seen on each link, by (link, window index): a flow's marked packet seen on several
// links in one window is credited to the link that saw it first (the queue that marked it feeds that
// link; every link after it carries the mark on). A flow whose first marked packet no other link saw
// is credited where it was seen.
std::map<std::pair<std::string, int64_t>, int64_t> NewMarks(const std::unordered_map<std::string, Link>& links) {
  struct Seen {
    const std::string* link;
    const MarkSighting* mark;
  };
  struct Key {
    int64_t index;
    FlowKey flow;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept {
      return FlowKeyHash{}(k.flow) ^ (static_cast<size_t>(k.index) * 0x9e3779b97f4a7c15ULL);
    }
  };
  std::unordered_map<Key, std::vector<Seen>, KeyHash> by_flow;
  for (const auto& [id, link] : links) {
    for (const auto& [index, w] : link.windows) {
      for (const MarkSighting& m : w.marks) by_flow[{index, m.flow}].push_back({&id, &m});
    }
  }
  std::map<std::pair<std::string, int64_t>, int64_t> out;
  for (const auto& [key, seen] : by_flow) {
    for (const Seen& a : seen) {
      // Seen earlier elsewhere, or at the same time by a capture point when this link is a host pair
      // (a pair's packets come from the captures: the capture point is where the queue is).
      const bool a_point = a.link->starts_with("capture:");
      bool downstream = false;
      for (const Seen& b : seen) {
        if (b.mark->first_psn != a.mark->first_psn) continue;
        downstream = downstream || b.mark->first_ts_ns < a.mark->first_ts_ns ||
                     (b.mark->first_ts_ns == a.mark->first_ts_ns && !a_point && b.link->starts_with("capture:"));
      }
      if (!downstream) out[{*a.link, key.index}] += a.mark->marked;
    }
  }
  return out;
}

}  // namespace

TrafficEntropyReport TrafficEntropyAccumulator::Finish() {
  TrafficEntropyReport report;
  if (!state_) return report;
  const EntropyOptions opt = state_->opt;
  std::vector<std::string> ids;
  ids.reserve(state_->links.size());
  for (const auto& [id, link] : state_->links) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  std::vector<uint32_t> counts(kBins);
  std::vector<double> flow_weights;
  const std::map<std::pair<std::string, int64_t>, int64_t> new_marks = NewMarks(state_->links);
  for (const std::string& id : ids) {
    Link& link = state_->links[id];
    std::vector<WindowFigures> figs;
    std::array<uint64_t, kSizeClasses> pooled_sizes{};
    int64_t message_windows = 0;
    figs.reserve(link.windows.size());
    for (auto& [index, w] : link.windows) {
      if (w.packets == 0) continue;
      if (w.dense()) {
        std::copy(w.header.begin(), w.header.end(), counts.begin());
      } else {
        std::fill(counts.begin(), counts.end(), 0);
        for (const auto& [b, c] : w.sparse) counts[b] = c;
      }
      WindowFigures f;
      f.index = index;
      f.packets = w.packets;
      f.bytes = w.bytes;
      f.seed = stats::SeedHeaderEntropyBitsFromCounts(counts);
      f.mm = stats::MillerMadowBits(counts);
      flow_weights.clear();
      for (const FlowCount& fc : w.flows) {
        flow_weights.push_back(static_cast<double>(w.bytes > 0 ? fc.bytes : fc.packets));
      }
      std::sort(flow_weights.begin(), flow_weights.end());  // independent of flow-id (feeding) order
      f.flow = stats::FlowEntropyBits(flow_weights);
      f.msg = stats::ShannonBits(w.size_classes);
      for (size_t k = 0; k < pooled_sizes.size(); ++k) pooled_sizes[k] += w.size_classes[k];
      if (w.messages > 0) ++message_windows;
      figs.push_back(f);
      const int64_t start_ns = index * opt.window_ns;
      const bool few = w.packets < opt.min_packets;
      const std::pair<EntropyEstimator, double> est[] = {{EntropyEstimator::kSeedHeader, f.seed},
                                                         {EntropyEstimator::kMillerMadowHeader, f.mm},
                                                         {EntropyEstimator::kFlowQp, f.flow},
                                                         {EntropyEstimator::kMessageSize, f.msg}};
      for (const auto& [estimator, bits] : est) {
        LinkEntropySample s;
        s.link = id;
        s.window_start_ns = start_ns;
        s.packets = w.packets;
        s.bits = bits;
        s.estimator = estimator;
        s.deterministic = (s.estimator == EntropyEstimator::kSeedHeader) && bits < opt.deterministic_below_bits;
        s.not_enough_packets = few;
        s.marked_packets = w.marked;
        auto nm = new_marks.find({id, index});
        s.new_marks = nm == new_marks.end() ? 0 : nm->second;
        report.samples.push_back(std::move(s));
      }
    }
    // Summary.
    LinkEntropySummary sum;
    sum.link = id;
    sum.packets = link.packets;
    sum.windows = static_cast<int64_t>(figs.size());
    sum.payload_bytes = static_cast<int64_t>(link.bytes);
    sum.messages = link.messages;
    std::vector<double> seed, mm, flow, msg;
    bool any_full = false;
    for (const WindowFigures& f : figs) any_full = any_full || f.packets >= opt.min_packets;
    for (const WindowFigures& f : figs) {
      if (any_full && f.packets < opt.min_packets) continue;
      seed.push_back(f.seed);
      mm.push_back(f.mm);
      flow.push_back(f.flow);
      msg.push_back(f.msg);
    }
    sum.seed_bits_median = Median(seed);
    sum.miller_madow_bits_median = Median(mm);
    sum.flow_bits_median = Median(flow);
    sum.message_size_bits_median = Median(msg);
    // Ours: a backbone (ring) link carries the same few message sizes all the time.
    std::vector<double> pooled_weights(pooled_sizes.begin(), pooled_sizes.end());
    sum.message_size_bits_pooled = stats::ShannonBitsWeights(pooled_weights);
    const int64_t span_windows = figs.empty() ? 0 : figs.back().index - figs.front().index + 1;
    sum.message_windows_fraction =
        span_windows > 0 ? static_cast<double>(message_windows) / static_cast<double>(span_windows) : 0.0;
    sum.regular = link.messages >= opt.regular_min_messages &&
                  sum.message_size_bits_pooled < opt.deterministic_below_bits &&
                  sum.message_windows_fraction >= opt.regular_min_window_fraction;
    int request_flows = 0;
    for (bool r : link.flow_is_request) request_flows += r ? 1 : 0;
    sum.qps = request_flows > 0 ? request_flows : static_cast<int>(link.flow_ids.size());
    sum.udp_src_ports = static_cast<int>(link.udp_ports.size());
    sum.deterministic = !figs.empty() && sum.seed_bits_median < opt.deterministic_below_bits;
    sum.polarisation_risk = link.bytes > 0 && (sum.qps <= opt.polarisation_max_qps ||
                                               sum.flow_bits_median < opt.polarisation_flow_bits);
    if (sum.polarisation_risk) {
      sum.advice = Format(
          "raise NCCL_IB_QPS_PER_CONNECTION (default 1): %d QP(s) and %d UDP source port(s) carry this link, "
          "median flow entropy %.2f bit; ECMP hashes only the UDP source port, so at most %d path(s) are used",
          sum.qps, sum.udp_src_ports, sum.flow_bits_median, sum.udp_src_ports);
    } else if (sum.deterministic) {
      sum.advice = Format("high-determinism flow: median header entropy %.2f < %.2f bit (the low-order-ring criterion)",
                          sum.seed_bits_median, opt.deterministic_below_bits);
    }
    report.links.push_back(std::move(sum));
    report.modes.push_back(ClassifySpectrum(id, figs, link.congestion_marks, opt));
  }
  state_->links.clear();
  state_->Forget();
  state_->packets = 0;
  return report;
}

}  // namespace toposcope::analysis
