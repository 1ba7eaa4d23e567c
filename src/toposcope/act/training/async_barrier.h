// act/training/async_barrier: the protocol of the seed's cross-region asynchronous barrier (§4.3),
// built on the gradient codec (gradient_codec.h); no I/O, no clock: the transports (the real run on
// loopback, experiments/barrier_training; the discrete-event simulation, experiments/barrier_des)
// drive it.
//
// - Trigger: the barrier turns asynchronous + compressed when the cross-region link's one-way latency
//   exceeds 120 µs AND the codec's compression ratio (encoded bytes / float32 bytes) is below 0.85
//   (both thresholds are options); otherwise it stays synchronous with full gradients.
// - Latency from data: the median RTT / 2 of the path probes whose ends the leaf inference
//   (analysis/fabric/leaf_inference) puts in different pods; pods stand for regions.
// - Exchange: each worker sends every peer one envelope per step: its xxh3 digest of the tensor the
//   receiver must reconstruct, and the encoded gradient (error feedback at the sender). The receiver
//   decodes, digests what it decoded and compares: a mismatch (or an undecodable payload) is
//   counted, and the receiver asks the sender for the full float32 tensor of that step (the sender's
//   own reconstruction, so the error feedback's books stay right), which it verifies the same way.
// - Bounded staleness: the update of step t uses worker w's gradient of step t - lag(w), lag 0 for
//   the workers of one's own region and s (default 1) for the other regions' workers; synchronous:
//   lag 0 for all. A worker starts step t + 1 only when those gradients are here, so no worker gets
//   more than s steps ahead of another region, and a slow region delays the others by its lateness
//   minus s steps, not by all of it. Because the lags are fixed (not "whatever arrived"), the
//   weights and losses do not depend on timing: the same run gives the same numbers.
// - The transport model: a message of B bytes leaves when its sender's egress to that class of link
//   (intra- or cross-region) is free, takes B x 8 / Gbps on it, and arrives latency later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "toposcope/act/training/gradient_codec.h"
#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::act::training {

struct BarrierTriggerOptions {
  double latency_threshold_us = 120;  // asynchronous when the cross-region latency is above this
  double ratio_threshold = 0.85;      // ... and the compression ratio below this
};

struct BarrierTrigger {
  bool asynchronous = false;     // asynchronous + compressed; false: synchronous + full gradients
  double latency_us = 0;         // as given
  double compression_ratio = 1;  // as given
  std::string reason;            // one line: which condition held or failed
};

// The decision for a cross-region one-way latency (µs) and a compression ratio (encoded / full).
BarrierTrigger DecideBarrier(double cross_latency_us, double compression_ratio,
                             const BarrierTriggerOptions& o = {});

// The compression ratio of a codec on a tensor of `elements` values: encoded bytes / (4 x elements).
double CompressionRatio(const CodecOptions& o, size_t elements);

struct CrossRegionLatency {
  double one_way_us = 0;     // median_rtt_us / 2
  double median_rtt_us = 0;  // over the probes between hosts of different pods
  int64_t probes = 0;        // those probes
  int regions = 0;           // pods of the inference
};

// The cross-region latency the probes show. Fails (kInput) when the inference has fewer than two
// pods or no probe with a finite RTT joins two of them.
Result<CrossRegionLatency> CrossRegionLatencyFromProbes(const std::vector<formats::PathProbe>& probes,
                                                        const analysis::LeafInference& inferred);

enum class PayloadKind : uint8_t { kFull = 0, kEncoded = 1 };

// One worker's gradient of one step on the wire: "TSBE" | worker u32 | step u64 | digest u64 |
// kind u8 | payload size u64 | payload (kFull: float32 little-endian; kEncoded: a codec buffer).
struct GradientEnvelope {
  uint32_t worker = 0;
  uint64_t step = 0;
  uint64_t digest = 0;  // TensorDigest of the tensor the receiver must reconstruct
  PayloadKind kind = PayloadKind::kFull;
  std::vector<uint8_t> payload;
};
inline constexpr size_t kEnvelopeHeaderBytes = 33;

std::vector<uint8_t> SerializeEnvelope(const GradientEnvelope& e);
// Fails (kInput), naming the byte offset, on a buffer that is not an envelope or is cut short.
Result<GradientEnvelope> ParseEnvelope(std::span<const uint8_t> bytes);
// The envelope of a full float32 tensor.
GradientEnvelope FullEnvelope(uint32_t worker, uint64_t step, std::span<const float> tensor);
// Decodes the payload into `elements` values and checks its digest. Fails (kInput) on an
// undecodable payload, another element count, or a digest that differs (the message says which).
Result<std::vector<float>> Reconstruct(const GradientEnvelope& e, size_t elements);

// The sending side of one worker: encodes with error feedback (or sends full tensors) and keeps the
// reconstructions of the last `keep_steps` steps for the fallback.
class BarrierSender {
 public:
  // compress = false: every envelope is kFull (the synchronous, uncompressed baseline).
  BarrierSender(uint32_t worker, size_t elements, bool compress, CodecOptions codec, int keep_steps = 4);
  // Fails on a tensor of another size or a non-finite element.
  Result<GradientEnvelope> Send(uint64_t step, std::span<const float> grad);
  // The full envelope of a step still kept; fails (kInput) for a step not kept.
  Result<GradientEnvelope> Fallback(uint64_t step) const;

 private:
  uint32_t worker_;
  size_t elements_;
  bool compress_;
  ErrorFeedbackEncoder encoder_;
  int keep_steps_;
  std::map<uint64_t, std::vector<float>> kept_;  // step -> reconstruction
};

struct BarrierConfig {
  int workers = 4;
  std::vector<int> region_of;  // per worker; empty: two regions, workers split in halves
  bool asynchronous = true;    // false: lag 0 for every worker
  int staleness_steps = 1;     // s: the lag of the other regions' workers (0 .. 16)
};

struct BarrierStats {
  int64_t envelopes = 0;          // delivered to Deliver (fallbacks included)
  int64_t verified = 0;           // reconstructed with a matching digest
  int64_t digest_mismatches = 0;  // digest differed or payload undecodable
  int64_t full_fallbacks = 0;     // full tensors asked for (one per mismatch of an encoded envelope)
  int64_t duplicates = 0;         // a (worker, step) already held or already used
  int max_staleness_used = 0;     // the largest step - (step of a gradient used) over Take calls
};

// What Deliver did with an envelope.
enum class Delivery { kAccepted, kNeedFull, kDuplicate };

// The receiving side of one worker: holds verified gradients until the step that uses them.
class BarrierState {
 public:
  // Fails (kUsage) on workers < 1, a region_of of another size or with negative regions, or a
  // staleness outside 0..16.
  static Result<BarrierState> Make(const BarrierConfig& c, size_t elements);
  // Two regions, workers split in halves (the first half region 0).
  static std::vector<int> HalvesRegions(int workers);

  [[nodiscard]] int Lag(int self, int worker) const;
  // Verifies and stores. kNeedFull: the digest failed (counted); ask the sender for Fallback(step).
  // A full envelope that fails is counted too and also answers kNeedFull.
  Delivery Deliver(const GradientEnvelope& e);
  // Counts a frame that did not even parse as an envelope as a mismatch answered by a full tensor.
  void CountUnreadable() {
    ++stats_.digest_mismatches;
    ++stats_.full_fallbacks;
  }
  // Whether the update of step `step` of worker `self` has every gradient it uses.
  [[nodiscard]] bool Ready(int self, uint64_t step) const;
  // The workers whose gradient the update of `step` still waits for.
  [[nodiscard]] std::vector<int> Missing(int self, uint64_t step) const;
  // The update of step `step` of `self`: the mean over all workers of worker w's gradient of step
  // step - lag(w) (a term whose step would be negative is left out, still divided by all workers).
  // Drops the gradients no later step uses. Fails (kInternal) when not Ready.
  Result<std::vector<float>> Take(int self, uint64_t step);
  [[nodiscard]] const BarrierStats& stats() const { return stats_; }
  [[nodiscard]] const BarrierConfig& config() const { return cfg_; }

 private:
  BarrierConfig cfg_;
  size_t elements_ = 0;
  std::map<std::pair<int, uint64_t>, std::vector<float>> held_;
  std::vector<int64_t> used_upto_;  // per worker: steps below this were used and dropped
  BarrierStats stats_;
};

struct LinkParams {
  double latency_us = 0;      // one way
  double bandwidth_gbps = 0;  // > 0
};
struct TransportModel {
  LinkParams intra{5, 400};  // a region's fabric (DOMAIN.md §2.3: RoCE RTT ~5-9 µs; 400G links)
  LinkParams cross{500, 3.125};
};

// A worker's two egress queues (intra-region and cross-region): Send returns the arrival time (µs,
// on the caller's clock) of `bytes` sent at `now_us`, after the queue's earlier messages.
class EgressQueues {
 public:
  double Send(double now_us, size_t bytes, bool cross, const TransportModel& m);

 private:
  double free_at_us_[2] = {0, 0};
};

}  // namespace toposcope::act::training
