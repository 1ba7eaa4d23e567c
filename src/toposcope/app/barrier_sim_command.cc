// app/barrier_sim_command: see the header.
#include "toposcope/app/barrier_sim_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "toposcope/app/train_barrier_command.h"
#include "toposcope/experiments/barrier_compare.h"
#include "toposcope/experiments/barrier_emulation.h"

namespace toposcope::app {
namespace {

Result<BarrierSimRow> RunOne(const BarrierSimRequest& r, bool async_4bit) {
  experiments::BarrierTrainingOptions o = r.base;
  o.name = async_4bit ? "asynchronous, 4-bit" : "synchronous, full gradients";
  o.asynchronous = async_4bit;
  o.compress = async_4bit;
  o.codec.kind = act::training::CodecKind::kQuant4;
  if (r.real > 0) o.workers = r.real;
  experiments::BarrierTrainingRun run;
  if (r.real > 0) {
    auto real = experiments::RunBarrierTraining(o);
    if (!real.ok()) return real.error();
    run = std::move(*real);
  } else {
    auto emu = experiments::EmulateBarrierTraining(o);
    if (!emu.ok()) return emu.error();
    run = std::move(emu->run);
  }
  BarrierSimRow row;
  row.iteration_ms = run.mean_iteration_ms;
  row.bytes_total = run.bytes_total;
  row.bytes_per_iteration = static_cast<double>(run.bytes_total) / run.steps;
  row.final_loss = run.final_loss;
  row.digest_fallbacks = run.stats.full_fallbacks;
  return row;
}

std::string Table(const BarrierSimRequest& r, const BarrierSimOutcome& o) {
  const auto& b = r.base;
  const int workers = r.real > 0 ? r.real : b.workers;
  std::string out = fmt::format(
      "Cross-region barrier, {}: {} workers in 2 regions, {} steps, {} float32 values; cross-region link "
      "{:.0f} us one way ({}), {:g} Gb/s\n",
      r.real > 0 ? "real (worker processes on loopback)"
                 : "simulated (stepped in one process; iteration time by the event simulation)",
      workers, b.steps, b.problem.features, b.transport.cross.latency_us, o.latency_source,
      b.transport.cross.bandwidth_gbps);
  out += fmt::format("  {:<30} {:>10} {:>14} {:>11}\n", "run", "iter ms", "bytes/iter", "final loss");
  for (const auto& [name, row] : {std::pair{"synchronous, full gradients", &o.sync},
                                  std::pair{"asynchronous, 4-bit", &o.async_4bit}}) {
    out += fmt::format("  {:<30} {:>10.3f} {:>14.0f} {:>11.5f}\n", name, row->iteration_ms, row->bytes_per_iteration,
                       row->final_loss);
  }
  out += fmt::format("  bytes saved {:.1f} %, digest fallbacks {}\n", 100 * o.bytes_saved_fraction, o.digest_fallbacks);
  out += std::string("  Claim (the seed's table, not measured here): ") + experiments::kBarrierClaim + "\n";
  return out;
}

}  // namespace

Result<BarrierSimOutcome> RunBarrierSim(BarrierSimRequest r) {
  BarrierSimOutcome o;
  if (r.real == 1 || r.real < 0) return MakeKindError(ErrorKind::kUsage, "--real needs at least 2 workers");
  if (!r.latency_from.empty()) {
    Status s = CrossLatencyFrom(r.latency_from, r.base.transport, o.latency_source);
    if (!s.ok()) return s.error();
  }
  auto sync = RunOne(r, false);
  if (!sync.ok()) return sync.error();
  auto async = RunOne(r, true);
  if (!async.ok()) return async.error();
  o.sync = *sync;
  o.async_4bit = *async;
  o.bytes_saved_fraction =
      o.sync.bytes_total > 0 ? 1 - static_cast<double>(o.async_4bit.bytes_total) / static_cast<double>(o.sync.bytes_total)
                             : 0;
  o.digest_fallbacks = o.sync.digest_fallbacks + o.async_4bit.digest_fallbacks;
  auto row = [](const BarrierSimRow& x) {
    return nlohmann::json{{"iteration_ms", x.iteration_ms},
                          {"bytes_per_iteration", x.bytes_per_iteration},
                          {"final_loss", x.final_loss}};
  };
  o.json = nlohmann::json{{"sync", row(o.sync)},
                          {"async_4bit", row(o.async_4bit)},
                          {"bytes_saved_fraction", o.bytes_saved_fraction},
                          {"digest_fallbacks", o.digest_fallbacks}}
               .dump(2) +
           "\n";
  o.table = Table(r, o);
  return o;
}

}  // namespace toposcope::app
