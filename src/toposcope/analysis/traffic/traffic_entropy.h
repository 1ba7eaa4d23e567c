// analysis/traffic/traffic_entropy: RDMA traffic entropy per link and per time window (seed §1 header
// entropy, §3.1 traffic entropy and its spectrum), computed from decoded RoCEv2 packets in one
// streaming pass.
//
// Per link and per window of `window_ns` the accumulator keeps (bounded, never per packet):
//   - a 1024-bin count histogram of SeedHeaderHash(src_qp, psn, dest_qp) % 1024 (stats/entropy.h);
//     from it the seed's estimator ("seed_header": numpy.histogram(bins=1024, density=True) over
//     [min, max] of the symbols, +1e-9, scipy.stats.entropy base 2, replicated exactly) and the
//     Miller-Madow corrected entropy of the same 1024 symbol frequencies ("miller_madow_header");
//   - payload bytes per flow (flow = destination IP + destination QP, so the two directions of an
//     RC connection are two flows); their Shannon entropy is "flow_qp" (packet counts are used when
//     the window carries no payload bytes at all);
//   - message-size classes: a flow's packets are grouped into messages (RDMA WRITE First/Only and
//     READ Request by their RETH DMA length, counted at the first packet; SEND First..Last summed
//     and counted at the Last; SEND Only / WRITE Only without RETH by their payload; atomics as
//     8 B; ACKs, READ responses and CNPs are not messages). Class 0 = 0 bytes, class c >= 1 =
//     [2^(c-1), 2^c) bytes. The plug-in entropy of the class frequencies is "message_size" (§3.1).
// Windows with fewer than `min_packets` packets are reported but flagged (not_enough_packets) and
// left out of the medians unless a link has no other window.
//
// Spectrum (§3.1): for every link, the per-window series chosen by `spectrum_series` over the
// contiguous windows from its first to its last (windows without packets count 0) is cut to the
// longest prefix whose length is 2^a 3^b 5^c (fast FFT), its mean removed, and its periodogram
// P_k (k = 1 .. n/2) taken. Then:
//   spectral_flatness   = geometric mean / arithmetic mean of P_k (1 = white, -> 0 = a line);
//   low_freq_peak_ratio = max P_k over the low band (k >= 2, i.e. at least two cycles seen, and
//                         f_k <= low_band_fraction * Nyquist) / mean P_k;
//   the peak is significant when Fisher's g = P_peak / sum P_k has p < fisher_alpha
//   (p ~= m (1 - g)^(m-1), m = number of bins).
// Modes: "insufficient_data" (fewer than min_spectrum_windows windows); "periodic_congestion" (a
// significant low-band peak: bursts at a fixed period under a bandwidth limit); else
// "multi_tenant_contention" (flatness >= white_flatness and coefficient of variation >= min_cv:
// a broadband white floor of large random fluctuations); else "steady".
//
// Congestion marks: per window, the packets marked by a congested queue (IP ECN CE, BTH FECN), and
// of those the marks first seen on this link: the same packet (flow = destination IP + QP, and the
// PSN of the flow's first marked packet in the window) seen marked on several links is credited to
// the link that saw it earliest, since a mark stays on a packet past the queue that set it. With
// captures that sample packets independently the same packet is rarely seen twice and every link that
// saw a mark is credited.
//
// Link ids are chosen by the caller; the helpers below build the documented forms. A packet seen
// by two captures and given the same link id twice counts twice.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/formats/rdma/roce_packet.h"

namespace toposcope::analysis {

enum class SpectrumSeries { kBytes, kSeedBits, kMessageSizeBits };
// The series' name: "bytes", "seed_header_bits", "message_size_bits" ("bytes" for a value outside the
// enum). Never fails.
std::string_view SpectrumSeriesName(SpectrumSeries s);

struct EntropyOptions {
  int64_t window_ns = 100'000'000;  // 100 ms
  double deterministic_below_bits = 2.1;  // seed §1: links below are "high-determinism control flows"
  int min_packets = 8;  // windows with fewer packets are reported but flagged
  // Memory: a window is compacted (exact sparse counts) once the link has seen a packet this far
  // past its end; a late packet re-opens it, so results do not depend on feeding order.
  int64_t close_after_ns = 200'000'000;
  // Polarisation risk (DOMAIN §3.4: ECMP hashes only the UDP source port, one per QP): a link whose
  // data is carried by at most this many QPs (requester flows), or whose median flow entropy is
  // below polarisation_flow_bits, is at risk.
  int polarisation_max_qps = 4;
  double polarisation_flow_bits = 1.0;
  // Spectrum / modes.
  SpectrumSeries spectrum_series = SpectrumSeries::kBytes;
  int min_spectrum_windows = 16;
  double low_band_fraction = 0.5;  // low band: f <= this fraction of the Nyquist frequency
  double fisher_alpha = 0.01;
  double white_flatness = 0.35;  // exp(-gamma) = 0.56 is the expected flatness of white noise
  int64_t min_congestion_marks = 1;
  // Our backbone test (beside the seed's): at least this many messages, pooled message-size
  // entropy below deterministic_below_bits, and messages in at least this fraction of the windows.
  int64_t regular_min_messages = 32;
  double regular_min_window_fraction = 0.5;  // periodic_congestion also needs ECN CE / FECN / BECN / CNP marks
  double min_cv = 0.2;           // std/mean of the series for "contention"
  int64_t max_spectrum_windows = 1 << 20;  // longer series: the first this many windows are used
};

// One link = a capture point ("capture:<point>") or an unordered host pair ("hostA~hostB", names
// sorted; IPs when no host is known). Both return the id and never fail.
std::string CaptureLinkId(std::string_view capture_point);
std::string HostPairLinkId(std::string_view host_a, std::string_view host_b);

// Which entropy of a window a sample is (see the file comment).
// Named "seed_header", "miller_madow_header", "flow_qp", "message_size".
enum class EntropyEstimator { kSeedHeader, kMillerMadowHeader, kFlowQp, kMessageSize };
// Its name (one of those above).
std::string_view EntropyEstimatorName(EntropyEstimator e);

// What a link's spectrum says of its traffic (see the file comment).
// Named "insufficient_data", "periodic_congestion", "multi_tenant_contention", "steady".
enum class TrafficMode { kInsufficientData, kPeriodicCongestion, kMultiTenantContention, kSteady };
// Its name (one of those above).
std::string_view TrafficModeName(TrafficMode m);

struct LinkEntropySample {
  std::string link;
  int64_t window_start_ns = 0;
  int64_t packets = 0;
  double bits = 0;
  EntropyEstimator estimator = EntropyEstimator::kSeedHeader;
  bool deterministic = false;  // seed_header only: bits < deterministic_below_bits
  bool not_enough_packets = false;  // packets < min_packets
  int64_t marked_packets = 0;  // congestion-marked packets (IP ECN CE or BTH FECN) in the window
  int64_t new_marks = 0;       // of those, marks first seen on this link (see the file comment)
};

struct LinkEntropyMode {
  std::string link;
  TrafficMode mode = TrafficMode::kInsufficientData;
  double low_freq_peak_ratio = 0;
  double spectral_flatness = 0;
  double dominant_period_s = 0;  // of the low-band peak; 0 when there is none
  std::string evidence;
  SpectrumSeries series = SpectrumSeries::kBytes;  // the series analysed
  int spectrum_windows = 0;    // series length used (after the 2^a 3^b 5^c cut)
  double fisher_p = 1;         // of the low-band peak
  double cv = 0;               // coefficient of variation of the series
};

struct LinkEntropySummary {
  std::string link;
  int64_t packets = 0, windows = 0;  // windows with at least one packet
  double seed_bits_median = 0, miller_madow_bits_median = 0, flow_bits_median = 0,
         message_size_bits_median = 0;
  int qps = 0;  // distinct requester flows (destination IP + QP of request packets); all flows if none
  bool deterministic = false;  // by the seed estimator: median over windows < threshold
  bool polarisation_risk = false;
  std::string advice;  // e.g. "raise NCCL_IB_QPS_PER_CONNECTION" when few QPs carry the link
  int udp_src_ports = 0;  // distinct UDP source ports (the only ECMP entropy of RoCEv2)
  int64_t payload_bytes = 0;
  int64_t messages = 0;
  double message_size_bits_pooled = 0;  // message-size-class entropy over the whole capture
  double message_windows_fraction = 0;  // windows with a message / windows the link spans
  bool regular = false;  // ours: sustained traffic of a few fixed message sizes (ring backbone)
};

struct TrafficEntropyReport {
  std::vector<LinkEntropySample> samples;   // by link, then window, then estimator (fixed order)
  std::vector<LinkEntropySummary> links;    // by link
  std::vector<LinkEntropyMode> modes;       // by link
};

// Streaming accumulator: feed every packet once (any order across captures, time order within a
// capture); memory grows with links x windows, never with packets.
class TrafficEntropyAccumulator {
 public:
  explicit TrafficEntropyAccumulator(EntropyOptions opt = {});
  ~TrafficEntropyAccumulator();
  TrafficEntropyAccumulator(TrafficEntropyAccumulator&&) noexcept;
  TrafficEntropyAccumulator& operator=(TrafficEntropyAccumulator&&) noexcept;

  // Link ids for this packet are given by the caller (capture point and/or host pair); src_qp = 0
  // when unknown (a UD packet's DETH source QP is used then). Packets with an empty link list are
  // ignored. Never fails.
  void Add(const formats::RocePacket& p, uint32_t src_qp, std::span<const std::string> links);
  // Computes every window's estimators, the link summaries and the spectral modes. Deterministic
  // output order (by link, then window). Returns the report (empty when nothing was added or the
  // accumulator was moved from); never fails. The accumulator is left empty.
  TrafficEntropyReport Finish();

  // The packets added since construction or the last Finish (0 once moved from).
  [[nodiscard]] int64_t packets() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace toposcope::analysis
