// experiments/barrier_des: see the header.
#include "toposcope/experiments/barrier_des.h"

#include <fmt/format.h>

#include <algorithm>
#include <queue>

namespace toposcope::experiments {
namespace {

enum class EventKind : uint8_t { kComputeEnd, kArrive, kUpdateEnd };

struct Event {
  double t_us = 0;
  uint64_t seq = 0;  // ties go in the order the events were made: deterministic
  EventKind kind = EventKind::kComputeEnd;
  int32_t worker = 0, src = 0, step = 0;
  int32_t stream = -1;  // kArrive: the send stream it belongs to
};

// The envelopes one worker sent at the end of one step over one class of link, in queue order:
// their arrival times rise, so the queue holds only each stream's next arrival.
struct SendStream {
  std::vector<int32_t> to;
  std::vector<double> at_us;
  size_t next = 0;
};
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.t_us != b.t_us ? a.t_us > b.t_us : a.seq > b.seq;
  }
};

class Simulation {
 public:
  explicit Simulation(const BarrierDesOptions& o) : o_(o), n_(o.workers) {
    region_ = o.region_of.empty() ? BlockRegions(o.workers, o.regions) : o.region_of;
    arrived_.assign(static_cast<size_t>(n_) * static_cast<size_t>(n_), -1);
    waiting_.assign(static_cast<size_t>(n_), -1);
    missing_.assign(static_cast<size_t>(n_), 0);
    egress_.resize(static_cast<size_t>(n_));
    starts_.assign(static_cast<size_t>(n_), std::vector<double>(static_cast<size_t>(o.steps) + 1, 0.0));
  }

  BarrierDesResult Run() {
    for (int w = 0; w < n_; ++w) StartStep(w, 0, 0.0);
    while (!q_.empty()) {
      const Event e = q_.top();
      q_.pop();
      ++r_.events;
      switch (e.kind) {
        case EventKind::kComputeEnd:
          ComputeEnd(e.worker, e.step, e.t_us);
          break;
        case EventKind::kArrive:
          Arrive(e.worker, e.src, e.step, e.t_us);
          NextOf(e.stream, e.src, e.step);
          break;
        case EventKind::kUpdateEnd:
          StartStep(e.worker, e.step + 1, e.t_us);
          break;
      }
    }
    r_.workers = n_;
    r_.steps = o_.steps;
    double sum = 0;
    int64_t count = 0;
    for (const auto& s : starts_) {
      for (size_t t = 2; t + 1 < s.size(); ++t, ++count) sum += s[t + 1] - s[t];
      r_.makespan_ms = std::max(r_.makespan_ms, s.back() / 1e3);
    }
    r_.mean_iteration_ms = count ? sum / static_cast<double>(count) / 1e3 : 0;
    return r_;
  }

 private:
  int Lag(int self, int w) const {
    if (!o_.asynchronous) return 0;
    return region_[static_cast<size_t>(self)] == region_[static_cast<size_t>(w)] ? 0 : o_.staleness_steps;
  }
  int32_t& Arrived(int at, int from) {
    return arrived_[static_cast<size_t>(at) * static_cast<size_t>(n_) + static_cast<size_t>(from)];
  }
  static double Trace(const std::vector<std::vector<double>>& tr, double fallback, int w, int t) {
    return tr.empty() ? fallback : tr[static_cast<size_t>(w)][static_cast<size_t>(t)];
  }
  void Push(double t, EventKind k, int w, int src, int step, int32_t stream = -1) {
    q_.push(Event{t, seq_++, k, w, src, step, stream});
  }
  // Queues the stream's next arrival, or frees the stream.
  void NextOf(int32_t id, int src, int step) {
    SendStream& s = streams_[static_cast<size_t>(id)];
    if (s.next < s.to.size()) {
      const size_t k = s.next++;
      Push(s.at_us[k], EventKind::kArrive, s.to[k], src, step, id);
      return;
    }
    s = SendStream{};
    free_streams_.push_back(id);
  }
  int32_t NewStream() {
    if (!free_streams_.empty()) {
      const int32_t id = free_streams_.back();
      free_streams_.pop_back();
      return id;
    }
    streams_.emplace_back();
    return static_cast<int32_t>(streams_.size() - 1);
  }

  void StartStep(int w, int t, double now) {
    starts_[static_cast<size_t>(w)][static_cast<size_t>(t)] = now;
    if (t >= o_.steps) return;
    Push(now + Trace(o_.compute_trace_us, o_.compute_us, w, t), EventKind::kComputeEnd, w, w, t);
  }

  void ComputeEnd(int w, int t, double now) {
    const auto bytes = static_cast<size_t>(o_.message_bytes);
    const int32_t ids[2] = {NewStream(), NewStream()};  // intra, cross
    for (int p = 0; p < n_; ++p) {
      if (p == w) continue;
      const bool cross = region_[static_cast<size_t>(p)] != region_[static_cast<size_t>(w)];
      SendStream& s = streams_[static_cast<size_t>(ids[cross ? 1 : 0])];
      s.to.push_back(p);
      s.at_us.push_back(egress_[static_cast<size_t>(w)].Send(now, bytes, cross, o_.transport));
      r_.bytes_total += static_cast<int64_t>(bytes);
      if (cross) r_.bytes_cross += static_cast<int64_t>(bytes);
      ++r_.messages;
    }
    for (int32_t id : ids) NextOf(id, w, t);
    Arrived(w, w) = t;
    int missing = 0;
    for (int src = 0; src < n_; ++src) {
      const int need = t - Lag(w, src);
      if (need >= 0 && Arrived(w, src) < need) ++missing;
    }
    waiting_[static_cast<size_t>(w)] = t;
    missing_[static_cast<size_t>(w)] = missing;
    if (missing == 0) Ready(w, t, now);
  }

  void Arrive(int w, int src, int s, double now) {
    Arrived(w, src) = s;  // one sender's envelopes arrive in step order (one FIFO queue, one latency)
    const int t = waiting_[static_cast<size_t>(w)];
    if (t < 0 || s != t - Lag(w, src)) return;
    if (--missing_[static_cast<size_t>(w)] == 0) Ready(w, t, now);
  }

  void Ready(int w, int t, double now) {
    waiting_[static_cast<size_t>(w)] = -1;
    Push(now + Trace(o_.update_trace_us, o_.update_us, w, t), EventKind::kUpdateEnd, w, w, t);
  }

  const BarrierDesOptions& o_;
  int n_;
  std::vector<int> region_;
  std::vector<int32_t> arrived_;  // [at * n + from]: the latest step of `from` arrived at `at`
  std::vector<int> waiting_;      // the step a worker waits to update, -1 when computing
  std::vector<int> missing_;      // gradients that step still needs
  std::vector<act::training::EgressQueues> egress_;
  std::vector<std::vector<double>> starts_;  // [worker][step]: start time (µs); [steps]: the end
  std::priority_queue<Event, std::vector<Event>, Later> q_;
  std::vector<SendStream> streams_;
  std::vector<int32_t> free_streams_;
  uint64_t seq_ = 0;
  BarrierDesResult r_;
};

}  // namespace

std::vector<int> BlockRegions(int workers, int regions) {
  std::vector<int> r(static_cast<size_t>(std::max(0, workers)));
  for (int w = 0; w < workers; ++w) {
    r[static_cast<size_t>(w)] = static_cast<int>(static_cast<int64_t>(w) * regions / workers);
  }
  return r;
}

Result<BarrierDesResult> SimulateBarrier(const BarrierDesOptions& o) {
  auto bad = [](const std::string& m) { return MakeKindError(ErrorKind::kUsage, m); };
  if (o.workers < 1 || o.workers > 8192) return bad(fmt::format("workers {} outside 1..8192", o.workers));
  if (o.steps < 1 || o.steps > 100000) return bad(fmt::format("steps {} outside 1..100000", o.steps));
  if (o.regions < 1) return bad("regions must be at least 1");
  if (!o.region_of.empty() && o.region_of.size() != static_cast<size_t>(o.workers))
    return bad("one region per worker");
  if (o.staleness_steps < 0 || o.staleness_steps > 16) return bad("staleness outside 0..16");
  if (!(o.transport.cross.bandwidth_gbps > 0) || !(o.transport.intra.bandwidth_gbps > 0)) {
    return bad("bandwidth must be > 0");
  }
  for (const auto* tr : {&o.compute_trace_us, &o.update_trace_us}) {
    if (tr->empty()) continue;
    if (tr->size() != static_cast<size_t>(o.workers)) return bad("a trace needs one row per worker");
    for (const auto& row : *tr) {
      if (row.size() < static_cast<size_t>(o.steps)) return bad("a trace row is shorter than the steps");
    }
  }
  Simulation sim(o);
  return sim.Run();
}

}  // namespace toposcope::experiments
