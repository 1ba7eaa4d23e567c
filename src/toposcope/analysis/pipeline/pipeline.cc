#include "toposcope/analysis/pipeline/pipeline.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>

#include "toposcope/analysis/pipeline/passes.h"
#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

using P = PassId;

// Process-wide CPU seconds (all threads) and peak resident bytes.
struct Usage {
  double cpu_s = 0;
  int64_t peak_rss_bytes = 0;
};

Usage ReadUsage() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  Usage u;
  u.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  u.peak_rss_bytes = static_cast<int64_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
  return u;
}

// Runs one pass and measures it.
Result<PassStats> MeasuredRun(const PassInfo& info, const PipelineOptions& opt, PipelineState* state) {
  PassStats st;
  st.id = info.id;
  st.source = PassSource::kRun;
  const Usage before = ReadUsage();
  const auto t0 = std::chrono::steady_clock::now();
  Result<PassCounts> counts = RunPass(info.id, opt, state);
  if (!counts.ok()) return counts.error();
  const Usage after = ReadUsage();
  st.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  st.cpu_s = after.cpu_s - before.cpu_s;
  st.peak_rss_bytes = after.peak_rss_bytes;
  st.rss_growth_bytes = after.peak_rss_bytes - before.peak_rss_bytes;
  st.records_in = counts->records_in;
  st.records_out = counts->records_out;
  return st;
}

// Fills the pass's slot from a dump when the caller has one. Returns whether it did.
Result<bool> LoadFromDump(const PassInfo& info, const PipelineOptions& opt, PipelineState* state) {
  if (!opt.read_dump) return false;
  Result<std::optional<std::string>> text = opt.read_dump(info.name);
  if (!text.ok()) return text.error();
  if (!text->has_value()) return false;
  const std::string source = std::string(info.name) + " dump";
  if (Status st = LoadPass(**text, source, info.id, state); !st.ok()) return st.error();
  return true;
}

}  // namespace

const std::vector<PassInfo>& Passes() {
  static const std::vector<PassInfo> kPasses = {
      {P::kLoad, "load", "read every input (formats detected by content) into the dataset", {}},
      {P::kLinks, "links", "GPU-pair link types, NVLink lanes, degraded links", {P::kLoad}},
      {P::kIslands, "islands", "NVLink / NVSwitch islands by spectral clustering", {P::kLoad, P::kLinks}},
      {P::kConfidence, "confidence", "confidence bounds of edges and paths (seed 2.5)", {P::kLoad, P::kLinks}},
      {P::kClocks, "clocks", "per-host clock models fitted from sync records", {P::kLoad}},
      {P::kAnchors, "anchors", "clock models refined by collective-completion anchors", {P::kLoad, P::kClocks}},
      {P::kTelemetry, "telemetry", "DCGM fields, sampling warnings, thermal and clock-step findings",
       {P::kLoad, P::kAnchors}},
      {P::kFabric, "fabric", "switches, adapters, leaves, spines from ibnetdiscover / iblinkinfo", {P::kLoad}},
      {P::kPatterns, "patterns", "AllReduce / pipeline patterns from QP state logs", {P::kLoad}},
      {P::kPaths, "paths", "path entropy, bottlenecks and redundant hops from path probes", {P::kLoad}},
      {P::kLeaves, "leaves", "leaf and pod membership from probe RTTs alone", {P::kLoad}},
      {P::kLinkWeights, "link_weights", "per-cable latencies by tomography, OpenSM hop weights",
       {P::kLoad, P::kFabric, P::kLeaves}},
      {P::kRdma, "rdma", "RoCE flows, QP pairing, link entropy and rings from captures and NCCL logs", {P::kLoad}},
      {P::kTrafficMatrix, "traffic_matrix", "GPU-pair NVLink traffic from DCGM counters and NCCL rings",
       {P::kLoad, P::kRdma}},
      {P::kArchitecture, "architecture", "fat-tree / dragonfly / HHRE with evidence, hops, jitter, entropy",
       {P::kLoad, P::kFabric, P::kRdma}},
      {P::kCollectives, "collectives", "nccl-tests bus bandwidth per run and host set, failed validations",
       {P::kLoad}},
      {P::kNics, "nics", "RDMA NIC ports: state, rate, GIDs, QPs from ibstat / ibv_devinfo / show_gids / rdma",
       {P::kLoad}},
      {P::kServo, "servo", "ptp4l / phc2sys servo series: offset scale, frequency, diverging / saturated servos",
       {P::kLoad}},
      {P::kPortCounters, "port_counters",
       "cable findings from perfquery port counters: links that went down, error bursts, transmit waits",
       {P::kLoad, P::kFabric}},
      {P::kTimeline, "timeline", "every event on the global time axis, merged (align, with --out)",
       {P::kLoad, P::kAnchors}},
  };
  return kPasses;
}

const PassInfo& PassInfoOf(PassId id) { return Passes()[static_cast<size_t>(id)]; }

std::string_view PassName(PassId id) { return PassInfoOf(id).name; }

std::string_view PassSourceName(PassSource s) {
  static constexpr NamedValue<PassSource> kNames[] = {
      {PassSource::kRun, "run"}, {PassSource::kDump, "dump"}, {PassSource::kGiven, "given"}};
  return NameIn(kNames, s, "run");
}

std::optional<PassId> PassFromName(std::string_view name) {
  for (const PassInfo& p : Passes()) {
    if (p.name == name) return p.id;
  }
  return std::nullopt;
}

std::vector<PassId> PassClosure(const std::set<PassId>& wanted) {
  std::vector<bool> in(kPassCount, false);
  for (PassId id : wanted) in[static_cast<size_t>(id)] = true;
  // Needs always point to earlier passes, so one sweep from the last pass down closes the set.
  for (int i = kPassCount - 1; i >= 0; --i) {
    if (!in[static_cast<size_t>(i)]) continue;
    for (PassId n : Passes()[static_cast<size_t>(i)].needs) in[static_cast<size_t>(n)] = true;
  }
  std::vector<PassId> out;
  for (int i = 0; i < kPassCount; ++i) {
    if (in[static_cast<size_t>(i)]) out.push_back(static_cast<PassId>(i));
  }
  return out;
}

Result<PipelineRun> RunPipeline(const PipelineOptions& opt, PipelineState* state) {
  std::set<PassId> wanted = opt.only;
  if (wanted.empty()) {
    for (const PassInfo& p : Passes()) {
      if (p.id != P::kTimeline || opt.timeline != nullptr) wanted.insert(p.id);
    }
  }
  PipelineRun run;
  for (PassId id : PassClosure(wanted)) {
    const PassInfo& info = PassInfoOf(id);
    if (id == P::kLoad && state->dataset != nullptr) {
      run.passes.push_back({id, PassSource::kGiven});
      continue;
    }
    if (HasOutput(*state, id)) continue;
    if (opt.progress) opt.progress(info, nullptr);
    const bool must_run = opt.only.count(id) > 0;
    if (!must_run) {
      Result<bool> loaded = LoadFromDump(info, opt, state);
      if (!loaded.ok()) return loaded.error();
      if (*loaded) {
        PassStats st;
        st.id = id;
        st.source = PassSource::kDump;
        if (opt.progress) opt.progress(info, &st);
        run.passes.push_back(std::move(st));
        continue;
      }
    }
    if (id == P::kLoad && opt.paths.empty()) {
      return MakeError("no inputs", "give files or directories to read, or a dump directory that holds passes/load.json");
    }
    Result<PassStats> st = MeasuredRun(info, opt, state);
    if (!st.ok()) return st.error();
    if (opt.write_dump) {
      Result<std::string> text = DumpPass(*state, id);
      if (!text.ok()) return text.error();
      if (Status w = opt.write_dump(info.name, *text); !w.ok()) return w.error();
    }
    if (opt.progress) opt.progress(info, &*st);
    run.passes.push_back(std::move(*st));
  }
  return run;
}

}  // namespace toposcope::analysis
