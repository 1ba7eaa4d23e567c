// experiments/barrier_training: see the header.
#include "toposcope/experiments/barrier_training.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "toposcope/base/rng.h"
#include "toposcope/experiments/loopback_transport.h"

namespace toposcope::experiments {
namespace {

using act::training::BarrierSender;
using act::training::BarrierState;
using act::training::Delivery;
using act::training::GradientEnvelope;
using json = nlohmann::json;

enum MsgType : uint8_t { kGrad = 1, kNack = 2, kFull = 3, kHello = 4, kDone = 5 };

// One worker's link to its peers: the shared loopback transport, with the simulated cluster's
// links imposed per class (intra- or cross-region egress queue, then the latency) and the gradient
// bytes counted.
class BarrierLink {
 public:
  BarrierLink(int self, const std::vector<int>& region_of, const act::training::TransportModel& m)
      : self_(self), region_of_(region_of), model_(m), tr_(self) {}
  int Port() { return tr_.Port(); }
  void Connect(const std::vector<int>& ports) { tr_.Connect(ports); }
  bool Cross(int peer) const {
    return region_of_[static_cast<size_t>(peer)] != region_of_[static_cast<size_t>(self_)];
  }
  // Sends; counted: gradient bytes (kGrad, kFull, kNack). Returns the frame's size.
  size_t Send(int peer, MsgType type, uint64_t step, const std::vector<uint8_t>& body, int flip_at = -1) {
    const bool cross = Cross(peer);
    const size_t size = kFrameHeader + body.size();
    const double arrival_us = egress_.Send(static_cast<double>(NowNs()) / 1e3, size, cross, model_);
    tr_.SendAt(peer, type, step, body, static_cast<int64_t>(arrival_us * 1e3), flip_at);
    if (type == kGrad || type == kFull || type == kNack) {
      bytes_total += static_cast<int64_t>(size);
      if (cross) bytes_cross += static_cast<int64_t>(size);
      ++messages;
    }
    return size;
  }
  template <class Done, class Handle>
  Status Pump(Done done, Handle handle, double timeout_s) {
    Status s = tr_.Pump(done, handle, timeout_s);
    last_arrival_ns = tr_.last_arrival_ns;
    return s;
  }
  int64_t bytes_total = 0, bytes_cross = 0, messages = 0;
  int64_t last_arrival_ns = 0;  // of the last frame handed over

 private:
  int self_;
  std::vector<int> region_of_;
  act::training::TransportModel model_;
  act::training::EgressQueues egress_;
  LoopbackTransport tr_;
};

// The training steps of one worker (after the sockets are connected); fills `out`.
Status TrainSteps(const BarrierTrainingOptions& o, int self, BarrierLink& tr,
                  const std::vector<Frame>& early, json& out) {
  const auto d = static_cast<size_t>(o.problem.features);
  const LogisticShard shard = MakeShard(o.problem, self);
  act::training::BarrierConfig bc;
  bc.workers = o.workers;
  bc.region_of = o.region_of;
  bc.asynchronous = o.asynchronous;
  bc.staleness_steps = o.staleness_steps;
  auto state = BarrierState::Make(bc, d);
  if (!state.ok()) return state.error();
  BarrierSender sender(static_cast<uint32_t>(self), d, o.compress, o.codec, o.staleness_steps + 4);
  std::vector<float> w(d, 0.0f), g;
  std::vector<double> loss, busy, post, step_us;
  int64_t cross_grads = 0, corrupted = 0, grad_frames = 0, grad_frame_bytes = 0, late_ns = 0, waits = 0;
  int done = 1;  // workers done (this one included once it is)
  auto handle = [&](const Frame& f) {
    if (f.type == kDone) {
      ++done;
      return;
    }
    if (f.type == kNack) {
      auto full = sender.Fallback(f.step);
      if (full.ok()) tr.Send(f.from, kFull, f.step, act::training::SerializeEnvelope(*full));
      return;
    }
    if (f.type != kGrad && f.type != kFull) return;
    auto env = act::training::ParseEnvelope(f.body);
    if (!env.ok() || state->Deliver(*env) == Delivery::kNeedFull) {
      if (!env.ok()) state->CountUnreadable();
      tr.Send(f.from, kNack, f.step, {});
    }
  };
  for (const Frame& f : early) handle(f);
  int64_t start = NowNs();
  for (int t = 0; t < o.steps; ++t) {
    const auto step = static_cast<uint64_t>(t);
    loss.push_back(ShardLoss(o.problem, shard, w, &g));
    auto env = sender.Send(step, g);
    if (!env.ok()) return env.error();
    const std::vector<uint8_t> bytes = act::training::SerializeEnvelope(*env);
    state->Deliver(*env);
    for (int p = 0; p < o.workers; ++p) {
      if (p == self) continue;
      int flip = -1;
      if (o.compress && tr.Cross(p) && o.corrupt_every > 0 && ++cross_grads % o.corrupt_every == 0) {
        flip = static_cast<int>(act::training::kEnvelopeHeaderBytes + env->payload.size() / 2);
        ++corrupted;
      }
      grad_frame_bytes += static_cast<int64_t>(tr.Send(p, kGrad, step, bytes, flip));
      ++grad_frames;
    }
    const int64_t wait_from = NowNs();
    Status s = tr.Pump([&] { return state->Ready(self, step); }, handle, o.timeout_s);
    if (!s.ok()) return s;
    const int64_t wait_to = NowNs();
    if (tr.last_arrival_ns > wait_from) {  // the step waited for that frame: how late was it handed over
      late_ns += wait_to - tr.last_arrival_ns;
      ++waits;
    }
    auto upd = state->Take(self, step);
    if (!upd.ok()) return upd.error();
    const auto lr = static_cast<float>(o.problem.learning_rate);
    for (size_t i = 0; i < d; ++i) w[i] -= lr * (*upd)[i];
    const int64_t end = NowNs();
    busy.push_back(static_cast<double>(wait_from - start) / 1e3);
    post.push_back(static_cast<double>(end - wait_to) / 1e3);
    step_us.push_back(static_cast<double>(end - start) / 1e3);
    start = end;
  }
  // Done: keep answering fallbacks until every peer is done too.
  for (int p = 0; p < o.workers; ++p) {
    if (p != self) tr.Send(p, kDone, 0, {});
  }
  Status s = tr.Pump([&] { return done == o.workers; }, handle, o.timeout_s);
  if (!s.ok()) return s;
  const auto& st = state->stats();
  out = {{"loss", loss},
         {"busy_us", busy},
         {"update_us", post},
         {"step_us", step_us},
         {"bytes_total", tr.bytes_total},
         {"bytes_cross", tr.bytes_cross},
         {"messages", tr.messages},
         {"corrupted", corrupted},
         {"late_us", waits ? static_cast<double>(late_ns) / 1e3 / static_cast<double>(waits) : 0.0},
         {"grad_frames", grad_frames},
         {"grad_frame_bytes", grad_frame_bytes},
         {"stats",
          {st.envelopes, st.verified, st.digest_mismatches, st.full_fallbacks, st.duplicates,
           st.max_staleness_used}}};
  if (self == 0) out["weights"] = w;
  return {};
}

// A worker process: binds, reports its port, reads every port, trains, writes its JSON. Never returns.
[[noreturn]] void WorkerMain(const BarrierTrainingOptions& o, int self, int up_fd, int down_fd) {
  json out;
  {
    BarrierLink tr(self, o.region_of, o.transport);
    std::vector<int> ports;
    if (!ReportPort(up_fd, down_fd, tr.Port(), o.workers, ports)) _exit(3);
    tr.Connect(ports);
    // Hello to every peer, then wait for theirs: every connection is up before step 0.
    std::vector<Frame> early;  // a fast peer's first frames, kept for the steps
    Status s = ExchangeHellos(
        tr, [&](int p) { tr.Send(p, kHello, 0, {}); }, kHello, self, o.workers, o.timeout_s, early);
    if (s.ok()) s = TrainSteps(o, self, tr, early, out);
    if (!s.ok()) out = {{"error", s.error().ToString()}};
  }
  _exit(WriteText(up_fd, out.dump()) ? 0 : 3);
}

}  // namespace

Status CheckBarrierTrainingOptions(const BarrierTrainingOptions& o) {
  auto bad = [](const std::string& m) { return MakeKindError(ErrorKind::kUsage, m); };
  if (o.workers < 2 || o.workers > 64) return bad(fmt::format("workers {} outside 2..64", o.workers));
  if (o.steps < 1 || o.steps > 100000) return bad(fmt::format("steps {} outside 1..100000", o.steps));
  if (o.problem.features < 2 || o.problem.features > (1 << 24)) return bad("features outside 2..16777216");
  if (o.problem.active < 1 || o.problem.active > o.problem.features)
    return bad("active features outside 1..features");
  if (o.problem.samples_per_worker < 1) return bad("samples per worker must be at least 1");
  if (!(o.transport.cross.bandwidth_gbps > 0) || !(o.transport.intra.bandwidth_gbps > 0))
    return bad("bandwidth must be > 0");
  if (!(o.transport.cross.latency_us >= 0) || !(o.transport.intra.latency_us >= 0))
    return bad("latency must be >= 0");
  if (o.compress) {
    Status s = act::training::ValidateCodecOptions(o.codec);
    if (!s.ok()) return s;
  }
  return {};
}

namespace {

// Folds one worker's JSON into the run.
void Gather(const json& j, int w, BarrierTrainingRun& run, int64_t& frames, int64_t& frame_bytes) {
  const auto loss = j["loss"].get<std::vector<double>>();
  if (run.loss.empty()) run.loss.assign(loss.size(), 0.0);
  for (size_t t = 0; t < loss.size() && t < run.loss.size(); ++t) run.loss[t] += loss[t] / run.workers;
  run.busy_us[static_cast<size_t>(w)] = j["busy_us"].get<std::vector<double>>();
  run.update_us[static_cast<size_t>(w)] = j["update_us"].get<std::vector<double>>();
  run.step_us[static_cast<size_t>(w)] = j["step_us"].get<std::vector<double>>();
  run.bytes_total += j["bytes_total"].get<int64_t>();
  run.bytes_cross += j["bytes_cross"].get<int64_t>();
  run.messages += j["messages"].get<int64_t>();
  run.corrupted += j["corrupted"].get<int64_t>();
  run.mean_late_us += j["late_us"].get<double>() / run.workers;
  frames += j["grad_frames"].get<int64_t>();
  frame_bytes += j["grad_frame_bytes"].get<int64_t>();
  const auto st = j["stats"].get<std::vector<int64_t>>();
  run.stats.envelopes += st[0];
  run.stats.verified += st[1];
  run.stats.digest_mismatches += st[2];
  run.stats.full_fallbacks += st[3];
  run.stats.duplicates += st[4];
  run.stats.max_staleness_used = std::max(run.stats.max_staleness_used, static_cast<int>(st[5]));
}

}  // namespace

double GlobalLoss(const LogisticProblem& p, int workers, const std::vector<float>& w) {
  double sum = 0;
  for (int k = 0; k < workers; ++k) sum += ShardLoss(p, MakeShard(p, k), w);
  return sum / workers;
}

LogisticShard MakeShard(const LogisticProblem& p, int worker) {
  const std::vector<float> wt = GeneratingWeights(p);
  Rng rng(Rng::Mix(p.seed, 0x5A4D0000ULL + static_cast<uint64_t>(worker)));
  LogisticShard s;
  const auto n = static_cast<size_t>(p.samples_per_worker), a = static_cast<size_t>(p.active);
  s.idx.resize(n * a);
  s.y.resize(n);
  for (size_t i = 0; i < n; ++i) {
    double margin = 0;
    for (size_t k = 0; k < a; ++k) {
      const auto j = static_cast<int32_t>(rng.Below(static_cast<uint64_t>(p.features)));
      s.idx[i * a + k] = j;
      margin += wt[static_cast<size_t>(j)];
    }
    s.y[i] = rng.Uniform() < 1.0 / (1.0 + std::exp(-margin)) ? 1 : -1;
  }
  return s;
}

std::vector<float> GeneratingWeights(const LogisticProblem& p) {
  Rng rng(Rng::Mix(p.seed, 0x5A4DFFFFULL));
  std::vector<float> w(static_cast<size_t>(p.features));
  const double sd = p.weight_scale / std::sqrt(static_cast<double>(p.active));
  for (float& x : w) x = static_cast<float>(sd * rng.Normal());
  return w;
}

double ShardLoss(const LogisticProblem& p, const LogisticShard& s, const std::vector<float>& w,
                 std::vector<float>* grad) {
  const auto a = static_cast<size_t>(p.active);
  const size_t n = s.y.size();
  if (grad) grad->assign(w.size(), 0.0f);
  double loss = 0;
  const double inv_n = 1.0 / static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    double m = 0;
    for (size_t k = 0; k < a; ++k) m += w[static_cast<size_t>(s.idx[i * a + k])];
    const double ym = s.y[i] * m;
    loss += ym > 0 ? std::log1p(std::exp(-ym)) : -ym + std::log1p(std::exp(ym));
    if (grad) {
      const auto c = static_cast<float>(-s.y[i] / (1.0 + std::exp(ym)) * inv_n);
      for (size_t k = 0; k < a; ++k) (*grad)[static_cast<size_t>(s.idx[i * a + k])] += c;
    }
  }
  double sq = 0;
  for (size_t j = 0; j < w.size(); ++j) {
    sq += static_cast<double>(w[j]) * w[j];
    if (grad) (*grad)[j] += static_cast<float>(p.l2) * w[j];
  }
  return loss * inv_n + 0.5 * p.l2 * sq;
}

Result<BarrierTrainingRun> RunBarrierTraining(const BarrierTrainingOptions& opt) {
  BarrierTrainingOptions o = opt;
  Status ok = CheckBarrierTrainingOptions(o);
  if (!ok.ok()) return ok.error();
  if (o.region_of.empty()) o.region_of = BarrierState::HalvesRegions(o.workers);
  if (o.region_of.size() != static_cast<size_t>(o.workers))
    return MakeKindError(ErrorKind::kUsage, "one region per worker");
  const int64_t t0 = NowNs();
  auto procs = ForkProcesses(o.workers, [&o](int self, int up, int down) { WorkerMain(o, self, up, down); });
  if (!procs.ok()) return procs.error();
  const bool io_ok = ExchangePorts(*procs);
  BarrierTrainingRun run;
  run.name = o.name;
  run.workers = o.workers;
  run.steps = o.steps;
  run.asynchronous = o.asynchronous;
  run.compress = o.compress;
  run.codec = o.compress ? std::string(act::training::CodecKindName(o.codec.kind)) : "full";
  run.busy_us.resize(static_cast<size_t>(o.workers));
  run.step_us.resize(static_cast<size_t>(o.workers));
  run.update_us.resize(static_cast<size_t>(o.workers));
  std::string error;
  std::vector<float> w0;
  int64_t frames = 0, frame_bytes = 0;
  for (int w = 0; w < o.workers; ++w) {
    const std::string text = io_ok ? ReadText(procs->up[static_cast<size_t>(w)]) : std::string();
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      if (error.empty()) error = fmt::format("worker {} ended without its result", w);
    } else if (j.contains("error")) {
      if (error.empty()) error = j["error"].get<std::string>();
    } else {
      Gather(j, w, run, frames, frame_bytes);
      if (w == 0) w0 = j["weights"].get<std::vector<float>>();
    }
  }
  ReapProcesses(*procs);
  if (!error.empty()) return MakeKindError(ErrorKind::kInternal, "training run " + o.name + ": " + error);
  run.wall_s = static_cast<double>(NowNs() - t0) / 1e9;
  run.final_loss = GlobalLoss(o.problem, o.workers, w0);
  LogisticProblem data_only = o.problem;
  data_only.l2 = 0;
  run.generating_loss = GlobalLoss(data_only, o.workers, GeneratingWeights(o.problem));
  double sum = 0, busy = 0;
  int64_t count = 0;
  for (int w = 0; w < o.workers; ++w) {
    for (size_t t = 2; t < run.step_us[static_cast<size_t>(w)].size(); ++t) {
      sum += run.step_us[static_cast<size_t>(w)][t];
      busy += run.busy_us[static_cast<size_t>(w)][t] + run.update_us[static_cast<size_t>(w)][t];
      ++count;
    }
  }
  run.mean_iteration_ms = count ? sum / static_cast<double>(count) / 1e3 : 0;
  run.mean_busy_ms = count ? busy / static_cast<double>(count) / 1e3 : 0;
  run.mean_message_bytes = frames ? static_cast<double>(frame_bytes) / static_cast<double>(frames) : 0;
  return run;
}

}  // namespace toposcope::experiments
