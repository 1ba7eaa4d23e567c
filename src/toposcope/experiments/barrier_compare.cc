// experiments/barrier_compare: see the header.
#include "toposcope/experiments/barrier_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace toposcope::experiments {
namespace {

using json = nlohmann::json;

constexpr const char* kClaim = kBarrierClaim;

double Round(double v, int digits) {
  const double s = std::pow(10.0, digits);
  return std::round(v * s) / s;
}

BarrierDesOptions DesOf(const BarrierTrainingOptions& o, const BarrierTrainingRun& r) {
  BarrierDesOptions d;
  d.workers = o.workers;
  d.region_of = o.region_of;
  d.steps = o.steps;
  d.asynchronous = o.asynchronous;
  d.staleness_steps = o.staleness_steps;
  d.transport = o.transport;
  d.compute_trace_us = r.busy_us;
  d.update_trace_us = r.update_us;
  d.message_bytes = r.mean_message_bytes;
  return d;
}

double Mean(const std::vector<std::vector<double>>& m, size_t from) {
  double s = 0;
  size_t n = 0;
  for (const auto& row : m) {
    for (size_t i = from; i < row.size(); ++i, ++n) s += row[i];
  }
  return n ? s / static_cast<double>(n) : 0;
}

Status RunRow(const BarrierCompareOptions& o, BarrierTrainingOptions t, BarrierCompareRow& row) {
  auto run = RunBarrierTraining(t);
  if (!run.ok()) return run.error();
  row.run = std::move(*run);
  BarrierDesOptions d = DesOf(t, row.run);
  auto raw = SimulateBarrier(d);
  if (!raw.ok()) return raw.error();
  row.replay_model_only = *raw;
  d.transport.intra.latency_us += row.run.mean_late_us;
  d.transport.cross.latency_us += row.run.mean_late_us;
  auto rep = SimulateBarrier(d);
  if (!rep.ok()) return rep.error();
  row.replay = *rep;
  row.replay_error =
      row.run.mean_iteration_ms > 0 ? row.replay.mean_iteration_ms / row.run.mean_iteration_ms - 1 : 0;
  if (o.scaled_workers > 0) {
    BarrierDesOptions s;
    s.workers = o.scaled_workers;
    s.regions = 2;
    s.steps = o.scaled_steps;
    s.asynchronous = t.asynchronous;
    s.staleness_steps = t.staleness_steps;
    s.transport = t.transport;
    s.compute_us = Mean(row.run.busy_us, 2);
    s.update_us = Mean(row.run.update_us, 2);
    s.message_bytes = row.run.mean_message_bytes;
    auto sc = SimulateBarrier(s);
    if (!sc.ok()) return sc.error();
    row.scaled = *sc;
  }
  return {};
}

json RowJson(const BarrierCompareRow& r) {
  const auto& run = r.run;
  std::vector<double> loss, step_ms;
  for (double v : run.loss) loss.push_back(Round(v, 6));
  for (size_t t = 0; !run.step_us.empty() && t < run.step_us[0].size(); ++t) {
    double s = 0;
    for (const auto& w : run.step_us) s += w[t];
    step_ms.push_back(Round(s / static_cast<double>(run.step_us.size()) / 1e3, 4));
  }
  auto des = [](const BarrierDesResult& d) {
    return json{{"workers", d.workers},
                {"steps", d.steps},
                {"mean_iteration_ms", Round(d.mean_iteration_ms, 4)},
                {"bytes_total", d.bytes_total},
                {"bytes_cross", d.bytes_cross},
                {"messages", d.messages},
                {"events", d.events}};
  };
  return {{"name", run.name},
          {"asynchronous", run.asynchronous},
          {"codec", run.codec},
          {"compression_ratio", Round(r.compression_ratio, 4)},
          {"trigger", {{"asynchronous", r.trigger.asynchronous}, {"reason", r.trigger.reason}}},
          {"measured",
           {{"workers", run.workers},
            {"steps", run.steps},
            {"mean_iteration_ms", Round(run.mean_iteration_ms, 4)},
            {"mean_compute_ms", Round(run.mean_busy_ms, 4)},
            {"host_overhead_us", Round(run.mean_late_us, 1)},
            {"bytes_total", run.bytes_total},
            {"bytes_cross", run.bytes_cross},
            {"messages", run.messages},
            {"mean_message_bytes", Round(run.mean_message_bytes, 1)},
            {"final_loss", Round(run.final_loss, 6)},
            {"generating_weights_data_loss", Round(run.generating_loss, 6)},
            {"loss_gap", Round(r.loss_gap, 5)},
            {"bytes_saved", Round(r.bytes_saved, 4)},
            {"digest_mismatches", run.stats.digest_mismatches},
            {"full_fallbacks", run.stats.full_fallbacks},
            {"max_staleness_steps", run.stats.max_staleness_used},
            {"wall_s", Round(run.wall_s, 3)},
            {"loss", loss},
            {"iteration_ms", step_ms}}},
          {"simulated_replay", des(r.replay)},
          {"simulated_replay_imposed_delays_only", des(r.replay_model_only)},
          {"replay_error", Round(r.replay_error, 4)},
          {"simulated_at_scale", des(r.scaled)}};
}

}  // namespace

Result<BarrierComparison> CompareBarriers(const BarrierCompareOptions& o) {
  BarrierComparison c;
  c.options = o;
  struct Variant {
    const char* name;
    bool async;
    act::training::CodecKind kind;
    bool compress;
  };
  const Variant variants[] = {
      {"synchronous, full gradients", false, act::training::CodecKind::kQuant4, false},
      {"asynchronous, 4-bit", true, act::training::CodecKind::kQuant4, true},
      {"asynchronous, top-k", true, act::training::CodecKind::kTopK, true}};
  for (const Variant& v : variants) {
    BarrierTrainingOptions t = o.base;
    t.name = v.name;
    t.asynchronous = v.async;
    t.compress = v.compress;
    t.codec.kind = v.kind;
    t.codec.topk_fraction = o.topk_fraction;
    t.codec.bucket = o.bucket;
    BarrierCompareRow row;
    row.compression_ratio =
        v.compress ? act::training::CompressionRatio(t.codec, static_cast<size_t>(t.problem.features)) : 1.0;
    row.trigger =
        act::training::DecideBarrier(t.transport.cross.latency_us, row.compression_ratio, o.trigger);
    Status s = RunRow(o, t, row);
    if (!s.ok()) return s.error();
    c.rows.push_back(std::move(row));
  }
  const BarrierTrainingRun& base = c.rows[0].run;
  for (auto& r : c.rows) {
    r.loss_gap = base.final_loss > 0 ? r.run.final_loss / base.final_loss - 1 : 0;
    r.bytes_saved = base.bytes_total > 0
                        ? 1 - static_cast<double>(r.run.bytes_total) / static_cast<double>(base.bytes_total)
                        : 0;
  }
  return c;
}

std::string BarrierComparisonJson(const BarrierComparison& c) {
  const auto& b = c.options.base;
  json rows = json::array();
  for (const auto& r : c.rows) rows.push_back(RowJson(r));
  const json j = {{"setup",
                   {{"workers", b.workers},
                    {"regions", 2},
                    {"steps", b.steps},
                    {"staleness_steps", b.staleness_steps},
                    {"cross_region",
                     {{"latency_us", b.transport.cross.latency_us},
                      {"bandwidth_gbps", b.transport.cross.bandwidth_gbps}}},
                    {"intra_region",
                     {{"latency_us", b.transport.intra.latency_us},
                      {"bandwidth_gbps", b.transport.intra.bandwidth_gbps}}},
                    {"latency_source", c.options.latency_source},
                    {"problem",
                     {{"kind", "logistic regression, sparse binary features, L2"},
                      {"features", b.problem.features},
                      {"active_per_sample", b.problem.active},
                      {"samples_per_worker", b.problem.samples_per_worker},
                      {"l2", b.problem.l2},
                      {"learning_rate", b.problem.learning_rate},
                      {"seed", b.problem.seed}}},
                    {"topk_fraction", c.options.topk_fraction},
                    {"bucket", c.options.bucket},
                    {"trigger",
                     {{"latency_above_us", c.options.trigger.latency_threshold_us},
                      {"compression_ratio_below", c.options.trigger.ratio_threshold}}},
                    {"transport", "ZeroMQ PUSH/PULL over TCP loopback, one process per worker"}}},
                  {"runs", rows},
                  {"claim", kClaim}};
  return j.dump(2) + "\n";
}

std::string BarrierComparisonTable(const BarrierComparison& c) {
  const auto& b = c.options.base;
  std::string out = fmt::format(
      "Cross-region barrier: {} worker processes in 2 regions, {} steps; cross-region link {:.0f} us one way "
      "({}), "
      "{:g} Gb/s per worker\n\n",
      b.workers, b.steps, b.transport.cross.latency_us, c.options.latency_source,
      b.transport.cross.bandwidth_gbps);
  out += fmt::format("{:<30} {:>10} {:>12} {:>7} {:>11} {:>8} {:>11} {:>11}\n", "run", "iter ms", "bytes",
                     "saved", "final loss", "vs sync", "simulated",
                     c.options.scaled_workers > 0 ? "at " + std::to_string(c.options.scaled_workers) : "");
  for (const auto& r : c.rows) {
    const std::string scaled =
        c.options.scaled_workers > 0 ? fmt::format("{:8.1f} ms", r.scaled.mean_iteration_ms) : "";
    out += fmt::format("{:<30} {:>10.3f} {:>12} {:>6.1f}% {:>11.5f} {:>+7.2f}% {:>8.3f} ms {:>11}\n",
                       r.run.name, r.run.mean_iteration_ms, r.run.bytes_total, 100 * r.bytes_saved,
                       r.run.final_loss, 100 * r.loss_gap, r.replay.mean_iteration_ms, scaled);
  }
  out += "\nTrigger (latency above " + fmt::format("{:g}", c.options.trigger.latency_threshold_us) +
         " us and compression ratio below " + fmt::format("{:g}", c.options.trigger.ratio_threshold) + "):\n";
  for (const auto& r : c.rows) out += "  " + r.run.name + ": " + r.trigger.reason + "\n";
  out += "\nLoss (mean over workers) at step:";
  const size_t n = c.rows.empty() ? 0 : c.rows[0].run.loss.size();
  std::vector<size_t> marks;
  for (size_t k = 0; k < 5 && n > 0; ++k) marks.push_back(k * (n - 1) / 4);
  for (size_t m : marks) out += fmt::format(" {:>9}", m);
  out += "\n";
  for (const auto& r : c.rows) {
    out += fmt::format("  {:<30}", r.run.name);
    for (size_t m : marks) out += fmt::format(" {:>9.5f}", m < r.run.loss.size() ? r.run.loss[m] : NAN);
    out += "\n";
  }
  int64_t fallbacks = 0;
  for (const auto& r : c.rows) fallbacks += r.run.stats.full_fallbacks;
  out +=
      "\nSimulated: the event simulation replaying each run's compute times, with the host's measured "
      "delivery "
      "overhead.\n";
  if (c.options.scaled_workers > 0) {
    out += fmt::format("At {}: the same protocol and links simulated with {} workers.\n",
                       c.options.scaled_workers, c.options.scaled_workers);
  }
  out += fmt::format("Digest mismatches, each answered by a full tensor: {}.\n", fallbacks);
  out += std::string("Claim (the seed's table, not measured here): ") + kClaim + "\n";
  return out;
}

}  // namespace toposcope::experiments
