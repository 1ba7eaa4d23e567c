// act/training/async_barrier: see the header.
#include "toposcope/act/training/async_barrier.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace toposcope::act::training {
namespace {

constexpr char kMagic[4] = {'T', 'S', 'B', 'E'};

void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

std::vector<uint8_t> FloatBytes(std::span<const float> x) {
  std::vector<uint8_t> out(x.size() * sizeof(float));
  if (!x.empty()) std::memcpy(out.data(), x.data(), out.size());
  return out;
}

}  // namespace

BarrierTrigger DecideBarrier(double cross_latency_us, double compression_ratio,
                             const BarrierTriggerOptions& o) {
  BarrierTrigger t;
  t.latency_us = cross_latency_us;
  t.compression_ratio = compression_ratio;
  const bool slow = cross_latency_us > o.latency_threshold_us;
  const bool small = compression_ratio < o.ratio_threshold;
  t.asynchronous = slow && small;
  t.reason = fmt::format(
      "cross-region latency {:.1f} us {} {:.0f} us, compression ratio {:.3f} {} {:.2f}: {}", cross_latency_us,
      slow ? ">" : "<=", o.latency_threshold_us, compression_ratio, small ? "<" : ">=", o.ratio_threshold,
      t.asynchronous ? "asynchronous, compressed" : "synchronous, full gradients");
  return t;
}

double CompressionRatio(const CodecOptions& o, size_t elements) {
  if (elements == 0) return 1;
  std::vector<float> probe(elements);
  for (size_t i = 0; i < elements; ++i)
    probe[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i) + 1));
  auto enc = EncodeGradient(probe, o, 0);
  if (!enc.ok()) return 1;
  return static_cast<double>(enc->size()) / (4.0 * static_cast<double>(elements));
}

Result<CrossRegionLatency> CrossRegionLatencyFromProbes(const std::vector<formats::PathProbe>& probes,
                                                        const analysis::LeafInference& inferred) {
  CrossRegionLatency out;
  out.regions = static_cast<int>(inferred.pods.size());
  if (inferred.pods.size() < 2) {
    return MakeError(
        fmt::format("the probes show {} pod(s): no cross-region link to measure", inferred.pods.size()),
        "give --latency-us, or probes between hosts of different pods (regions)");
  }
  std::unordered_map<std::string, int> pod_of;
  for (size_t p = 0; p < inferred.pods.size(); ++p) {
    for (const auto& h : inferred.pods[p].hosts) pod_of[h] = static_cast<int>(p);
  }
  std::vector<double> rtts;
  for (const auto& pr : probes) {
    if (!std::isfinite(pr.rtt_us) || pr.rtt_us < 0) continue;
    const auto a = pod_of.find(pr.src), b = pod_of.find(pr.dst);
    if (a == pod_of.end() || b == pod_of.end() || a->second == b->second) continue;
    rtts.push_back(pr.rtt_us);
  }
  if (rtts.empty()) return MakeError("no probe joins hosts of two different pods", "give --latency-us");
  const size_t mid = rtts.size() / 2;
  std::nth_element(rtts.begin(), rtts.begin() + static_cast<std::ptrdiff_t>(mid), rtts.end());
  double med = rtts[mid];
  if (rtts.size() % 2 == 0) {
    med = (med + *std::max_element(rtts.begin(), rtts.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
  }
  out.median_rtt_us = med;
  out.one_way_us = med / 2;
  out.probes = static_cast<int64_t>(rtts.size());
  return out;
}

std::vector<uint8_t> SerializeEnvelope(const GradientEnvelope& e) {
  std::vector<uint8_t> out(kEnvelopeHeaderBytes + e.payload.size());
  uint8_t* p = out.data();
  std::memcpy(p, kMagic, 4);
  for (int i = 0; i < 4; ++i) p[4 + i] = static_cast<uint8_t>(e.worker >> (8 * i));
  PutU64(p + 8, e.step);
  PutU64(p + 16, e.digest);
  p[24] = static_cast<uint8_t>(e.kind);
  PutU64(p + 25, e.payload.size());
  if (!e.payload.empty()) std::memcpy(p + kEnvelopeHeaderBytes, e.payload.data(), e.payload.size());
  return out;
}

Result<GradientEnvelope> ParseEnvelope(std::span<const uint8_t> b) {
  if (b.size() < kEnvelopeHeaderBytes) {
    return MakeError(fmt::format("gradient envelope cut short at byte {} (header is {} bytes)", b.size(),
                                 kEnvelopeHeaderBytes));
  }
  if (std::memcmp(b.data(), kMagic, 4) != 0) return MakeError("not a gradient envelope at byte 0 (no TSBE)");
  GradientEnvelope e;
  e.worker = static_cast<uint32_t>(b[4]) | static_cast<uint32_t>(b[5]) << 8 |
             static_cast<uint32_t>(b[6]) << 16 | static_cast<uint32_t>(b[7]) << 24;
  e.step = GetU64(b.data() + 8);
  e.digest = GetU64(b.data() + 16);
  if (b[24] > 1)
    return MakeError(fmt::format("gradient envelope: unknown payload kind {} at byte 24", b[24]));
  e.kind = static_cast<PayloadKind>(b[24]);
  const uint64_t n = GetU64(b.data() + 25);
  if (n != b.size() - kEnvelopeHeaderBytes) {
    return MakeError(fmt::format("gradient envelope: payload of {} bytes named at byte 25, {} present", n,
                                 b.size() - kEnvelopeHeaderBytes));
  }
  e.payload.assign(b.begin() + kEnvelopeHeaderBytes, b.end());
  return e;
}

GradientEnvelope FullEnvelope(uint32_t worker, uint64_t step, std::span<const float> tensor) {
  GradientEnvelope e;
  e.worker = worker;
  e.step = step;
  e.kind = PayloadKind::kFull;
  e.digest = TensorDigest(tensor);
  e.payload = FloatBytes(tensor);
  return e;
}

Result<std::vector<float>> Reconstruct(const GradientEnvelope& e, size_t elements) {
  std::vector<float> out(elements);
  if (e.kind == PayloadKind::kFull) {
    if (e.payload.size() != elements * sizeof(float)) {
      return MakeError(fmt::format("full gradient of worker {} step {}: {} bytes, {} expected", e.worker,
                                   e.step, e.payload.size(), elements * sizeof(float)));
    }
    if (elements > 0) std::memcpy(out.data(), e.payload.data(), e.payload.size());
  } else {
    Status s = DecodeGradient(e.payload, out);
    if (!s.ok()) return s.error();
  }
  const uint64_t d = TensorDigest(out);
  if (d != e.digest) {
    return MakeError(
        fmt::format("gradient of worker {} step {}: digest {:016x} of the reconstruction, {:016x} sent",
                    e.worker, e.step, d, e.digest));
  }
  return out;
}

BarrierSender::BarrierSender(uint32_t worker, size_t elements, bool compress, CodecOptions codec,
                             int keep_steps)
    : worker_(worker),
      elements_(elements),
      compress_(compress),
      encoder_(elements, codec),
      keep_steps_(std::max(1, keep_steps)) {}

Result<GradientEnvelope> BarrierSender::Send(uint64_t step, std::span<const float> grad) {
  if (grad.size() != elements_) {
    return MakeError(fmt::format("gradient of {} elements, the barrier holds {}", grad.size(), elements_));
  }
  GradientEnvelope e;
  std::vector<float> rec;
  if (!compress_) {
    for (size_t i = 0; i < grad.size(); ++i) {
      if (!std::isfinite(grad[i])) return MakeError(fmt::format("gradient element {} is not finite", i));
    }
    e = FullEnvelope(worker_, step, grad);
    rec.assign(grad.begin(), grad.end());
  } else {
    auto bytes = encoder_.Encode(grad);
    if (!bytes.ok()) return bytes.error();
    rec.resize(elements_);
    Status s = DecodeGradient(*bytes, rec);
    if (!s.ok()) return WithKind(s.error(), ErrorKind::kInternal);
    e.worker = worker_;
    e.step = step;
    e.kind = PayloadKind::kEncoded;
    e.digest = TensorDigest(rec);
    e.payload = std::move(*bytes);
  }
  kept_[step] = std::move(rec);
  while (kept_.size() > static_cast<size_t>(keep_steps_)) kept_.erase(kept_.begin());
  return e;
}

Result<GradientEnvelope> BarrierSender::Fallback(uint64_t step) const {
  const auto it = kept_.find(step);
  if (it == kept_.end()) return MakeError(fmt::format("worker {} no longer keeps step {}", worker_, step));
  return FullEnvelope(worker_, step, it->second);
}

std::vector<int> BarrierState::HalvesRegions(int workers) {
  std::vector<int> r(static_cast<size_t>(std::max(0, workers)));
  for (int w = 0; w < workers; ++w) r[static_cast<size_t>(w)] = w < (workers + 1) / 2 ? 0 : 1;
  return r;
}

Result<BarrierState> BarrierState::Make(const BarrierConfig& c, size_t elements) {
  if (c.workers < 1) return MakeKindError(ErrorKind::kUsage, "the barrier needs at least one worker");
  if (c.staleness_steps < 0 || c.staleness_steps > 16) {
    return MakeKindError(ErrorKind::kUsage, fmt::format("staleness {} outside 0..16", c.staleness_steps));
  }
  BarrierState s;
  s.cfg_ = c;
  if (s.cfg_.region_of.empty()) s.cfg_.region_of = HalvesRegions(c.workers);
  if (s.cfg_.region_of.size() != static_cast<size_t>(c.workers)) {
    return MakeKindError(ErrorKind::kUsage,
                         fmt::format("{} regions given for {} workers", s.cfg_.region_of.size(), c.workers));
  }
  for (int r : s.cfg_.region_of) {
    if (r < 0) return MakeKindError(ErrorKind::kUsage, "a worker's region is negative");
  }
  s.elements_ = elements;
  s.used_upto_.assign(static_cast<size_t>(c.workers), 0);
  return s;
}

int BarrierState::Lag(int self, int worker) const {
  if (!cfg_.asynchronous) return 0;
  return cfg_.region_of[static_cast<size_t>(self)] == cfg_.region_of[static_cast<size_t>(worker)]
             ? 0
             : cfg_.staleness_steps;
}

Delivery BarrierState::Deliver(const GradientEnvelope& e) {
  ++stats_.envelopes;
  const int w = static_cast<int>(e.worker);
  if (w < 0 || w >= cfg_.workers) {
    ++stats_.digest_mismatches;
    return Delivery::kDuplicate;  // a worker the barrier does not know: nothing to ask for
  }
  const auto key = std::make_pair(w, e.step);
  if (held_.count(key) || static_cast<int64_t>(e.step) < used_upto_[static_cast<size_t>(w)]) {
    ++stats_.duplicates;
    return Delivery::kDuplicate;
  }
  auto rec = Reconstruct(e, elements_);
  if (!rec.ok()) {
    ++stats_.digest_mismatches;
    ++stats_.full_fallbacks;
    return Delivery::kNeedFull;
  }
  ++stats_.verified;
  held_.emplace(key, std::move(*rec));
  return Delivery::kAccepted;
}

std::vector<int> BarrierState::Missing(int self, uint64_t step) const {
  std::vector<int> out;
  for (int w = 0; w < cfg_.workers; ++w) {
    const int64_t s = static_cast<int64_t>(step) - Lag(self, w);
    if (s < 0) continue;
    if (!held_.count({w, static_cast<uint64_t>(s)})) out.push_back(w);
  }
  return out;
}

bool BarrierState::Ready(int self, uint64_t step) const { return Missing(self, step).empty(); }

Result<std::vector<float>> BarrierState::Take(int self, uint64_t step) {
  if (!Ready(self, step)) {
    return MakeKindError(ErrorKind::kInternal, fmt::format("step {} of worker {} is not ready", step, self));
  }
  std::vector<double> sum(elements_, 0.0);
  for (int w = 0; w < cfg_.workers; ++w) {
    const int lag = Lag(self, w);
    const int64_t s = static_cast<int64_t>(step) - lag;
    if (s < 0) continue;
    const auto it = held_.find({w, static_cast<uint64_t>(s)});
    for (size_t i = 0; i < elements_; ++i) sum[i] += it->second[i];
    stats_.max_staleness_used = std::max(stats_.max_staleness_used, lag);
    held_.erase(it);
    used_upto_[static_cast<size_t>(w)] = s + 1;
  }
  std::vector<float> out(elements_);
  const double inv = 1.0 / cfg_.workers;
  for (size_t i = 0; i < elements_; ++i) out[i] = static_cast<float>(sum[i] * inv);
  return out;
}

double EgressQueues::Send(double now_us, size_t bytes, bool cross, const TransportModel& m) {
  const LinkParams& l = cross ? m.cross : m.intra;
  double& free_at = free_at_us_[cross ? 1 : 0];
  const double start = std::max(now_us, free_at);
  const double done = start + static_cast<double>(bytes) * 8.0 / (l.bandwidth_gbps * 1e3);
  free_at = done;
  return done + l.latency_us;
}

}  // namespace toposcope::act::training
