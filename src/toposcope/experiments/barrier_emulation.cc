// experiments/barrier_emulation: see the header.
#include "toposcope/experiments/barrier_emulation.h"

#include <chrono>

#include "toposcope/experiments/loopback_transport.h"

namespace toposcope::experiments {
namespace {

using act::training::BarrierSender;
using act::training::BarrierState;
using act::training::Delivery;
using act::training::GradientEnvelope;

struct Worker {
  LogisticShard shard;
  std::vector<float> w;
  BarrierSender sender;
  BarrierState state;
};

// Delivers worker `from`'s envelope of this step to every peer as the loopback run does (a frame
// per peer, the k-th compressed cross-region one corrupted, a full tensor after a refusal).
void Exchange(const BarrierTrainingOptions& o, std::vector<Worker>& ws, int from, const GradientEnvelope& env,
              int64_t& cross_grads, BarrierTrainingRun& run, int64_t& frame_bytes) {
  const std::vector<uint8_t> bytes = act::training::SerializeEnvelope(env);
  auto count = [&](size_t size, bool cross) {
    run.bytes_total += static_cast<int64_t>(size);
    if (cross) run.bytes_cross += static_cast<int64_t>(size);
    ++run.messages;
  };
  for (int p = 0; p < o.workers; ++p) {
    if (p == from) continue;
    const bool cross = o.region_of[static_cast<size_t>(p)] != o.region_of[static_cast<size_t>(from)];
    std::vector<uint8_t> wire = bytes;
    if (o.compress && cross && o.corrupt_every > 0 && ++cross_grads % o.corrupt_every == 0) {
      wire[act::training::kEnvelopeHeaderBytes + env.payload.size() / 2] ^= 0x11;
      ++run.corrupted;
    }
    count(kFrameHeader + wire.size(), cross);
    frame_bytes += static_cast<int64_t>(kFrameHeader + wire.size());
    BarrierState& st = ws[static_cast<size_t>(p)].state;
    auto parsed = act::training::ParseEnvelope(wire);
    if (parsed.ok() && st.Deliver(*parsed) != Delivery::kNeedFull) continue;
    if (!parsed.ok()) st.CountUnreadable();
    count(kFrameHeader, cross);  // the request for the full tensor
    auto full = ws[static_cast<size_t>(from)].sender.Fallback(env.step);
    if (!full.ok()) continue;
    const auto fb = act::training::SerializeEnvelope(*full);
    count(kFrameHeader + fb.size(), cross);
    st.Deliver(*full);
  }
}

double Us(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

}  // namespace

Result<BarrierEmulation> EmulateBarrierTraining(const BarrierTrainingOptions& opt) {
  BarrierTrainingOptions o = opt;
  if (Status s = CheckBarrierTrainingOptions(o); !s.ok()) return s.error();
  if (o.region_of.empty()) o.region_of = BarrierState::HalvesRegions(o.workers);
  if (o.region_of.size() != static_cast<size_t>(o.workers)) return MakeKindError(ErrorKind::kUsage, "one region per worker");
  const auto d = static_cast<size_t>(o.problem.features);
  act::training::BarrierConfig bc{o.workers, o.region_of, o.asynchronous, o.staleness_steps};
  std::vector<Worker> ws;
  for (int w = 0; w < o.workers; ++w) {
    auto st = BarrierState::Make(bc, d);
    if (!st.ok()) return st.error();
    ws.push_back(Worker{MakeShard(o.problem, w), std::vector<float>(d, 0.0f),
                        BarrierSender(static_cast<uint32_t>(w), d, o.compress, o.codec, o.staleness_steps + 4),
                        std::move(*st)});
  }
  BarrierEmulation e;
  BarrierTrainingRun& run = e.run;
  run.name = o.name;
  run.workers = o.workers;
  run.steps = o.steps;
  run.asynchronous = o.asynchronous;
  run.compress = o.compress;
  run.codec = o.compress ? std::string(act::training::CodecKindName(o.codec.kind)) : "full";
  run.busy_us.assign(static_cast<size_t>(o.workers), {});
  run.update_us.assign(static_cast<size_t>(o.workers), {});
  std::vector<int64_t> cross_grads(static_cast<size_t>(o.workers), 0);  // per sender, as each process counts
  int64_t frame_bytes = 0;
  std::vector<float> g;
  for (int t = 0; t < o.steps; ++t) {
    double loss = 0;
    std::vector<GradientEnvelope> envs;
    for (int w = 0; w < o.workers; ++w) {
      Worker& k = ws[static_cast<size_t>(w)];
      const auto t0 = std::chrono::steady_clock::now();
      loss += ShardLoss(o.problem, k.shard, k.w, &g) / o.workers;
      auto env = k.sender.Send(static_cast<uint64_t>(t), g);
      if (!env.ok()) return env.error();
      k.state.Deliver(*env);
      run.busy_us[static_cast<size_t>(w)].push_back(Us(t0, std::chrono::steady_clock::now()));
      envs.push_back(std::move(*env));
    }
    run.loss.push_back(loss);
    for (int w = 0; w < o.workers; ++w) Exchange(o, ws, w, envs[static_cast<size_t>(w)], cross_grads[static_cast<size_t>(w)], run, frame_bytes);
    for (int w = 0; w < o.workers; ++w) {
      Worker& k = ws[static_cast<size_t>(w)];
      const auto t0 = std::chrono::steady_clock::now();
      auto upd = k.state.Take(w, static_cast<uint64_t>(t));
      if (!upd.ok()) return upd.error();
      const auto lr = static_cast<float>(o.problem.learning_rate);
      for (size_t i = 0; i < d; ++i) k.w[i] -= lr * (*upd)[i];
      run.update_us[static_cast<size_t>(w)].push_back(Us(t0, std::chrono::steady_clock::now()));
    }
  }
  for (const Worker& k : ws) {
    const auto& st = k.state.stats();
    run.stats.envelopes += st.envelopes;
    run.stats.verified += st.verified;
    run.stats.digest_mismatches += st.digest_mismatches;
    run.stats.full_fallbacks += st.full_fallbacks;
    run.stats.duplicates += st.duplicates;
    run.stats.max_staleness_used = std::max(run.stats.max_staleness_used, st.max_staleness_used);
  }
  run.final_loss = GlobalLoss(o.problem, o.workers, ws[0].w);
  LogisticProblem data_only = o.problem;
  data_only.l2 = 0;
  run.generating_loss = GlobalLoss(data_only, o.workers, GeneratingWeights(o.problem));
  const int64_t frames = static_cast<int64_t>(o.workers) * (o.workers - 1) * o.steps;
  run.mean_message_bytes = frames ? static_cast<double>(frame_bytes) / static_cast<double>(frames) : 0;
  BarrierDesOptions des;
  des.workers = o.workers;
  des.region_of = o.region_of;
  des.steps = o.steps;
  des.asynchronous = o.asynchronous;
  des.staleness_steps = o.staleness_steps;
  des.transport = o.transport;
  des.compute_trace_us = run.busy_us;
  des.update_trace_us = run.update_us;
  des.message_bytes = run.mean_message_bytes;
  auto sim = SimulateBarrier(des);
  if (!sim.ok()) return sim.error();
  e.simulated = *sim;
  run.mean_iteration_ms = sim->mean_iteration_ms;
  return e;
}

}  // namespace toposcope::experiments
