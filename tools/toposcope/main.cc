// toposcope: the command-line driver. One table of subcommands, each with its flags and a run
// function that calls the library (app/ for what a command does, report/ for what it prints);
// errors come back with a kind, and ExitCodeOf maps kinds to exit codes in one place:
// 0 ok, 1 records rejected under --strict, 2 usage (an unknown subcommand or flag, a bad value),
// 3 unreadable input, 4 internal error, 5 an output that cannot be written.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/app/analyze_command.h"
#include "toposcope/app/anonymize_command.h"
#include "toposcope/app/collect_command.h"
#include "toposcope/app/demo_command.h"
#include "toposcope/app/find_slow_nodes_command.h"
#include "toposcope/app/plan_ring_command.h"
#include "toposcope/app/probe_p2p_command.h"
#include "toposcope/app/schedule_command.h"
#include "toposcope/app/schedule_sim_command.h"
#include "toposcope/app/train_barrier_command.h"
#include "toposcope/app/barrier_sim_command.h"
#include "toposcope/app/ps_sim_command.h"
#include "toposcope/app/serve_command.h"
#include "toposcope/app/exporter_command.h"
#include "toposcope/app/malloc_tunables.h"
#include "toposcope/app/simulate_command.h"
#ifdef TOPOSCOPE_HAVE_MPI
#include "toposcope/dist/mpi_load.h"
#endif
#include "toposcope/experiments/architecture_compare.h"
#include "toposcope/experiments/hypothesis_eval.h"
#include "toposcope/report/pipeline/pass_report.h"
#include "toposcope/report/html/html_report.h"
#include "toposcope/report/result_json.h"
#include "toposcope/report/json/result_sections.h"
#include "toposcope/report/result_sections.h"
#include "toposcope/report/score.h"
#include "toposcope/report/text/architecture_text.h"
#include "toposcope/report/text/summary.h"
#include "toposcope/report/text/hypotheses_text.h"
#include "toposcope/report/text/findings_csv.h"
#include "toposcope/report/text/topo_matrix.h"
#include "toposcope/report/export/dot_export.h"
#include "progress_line.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/sim/simulate.h"
#include "toposcope/sim/telemetry.h"

namespace {

using toposcope::Error;
using toposcope::ErrorKind;
namespace analysis = toposcope::analysis;
namespace app = toposcope::app;
namespace act = toposcope::act;
namespace report = toposcope::report;

enum ExitCode { kOk = 0, kRejected = 1, kUsage = 2, kUnreadable = 3, kInternal = 4, kUnwritable = 5 };

// The one place that maps an error's kind to the process's exit code.
int ExitCodeOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInput: return kUnreadable;
    case ErrorKind::kUsage: return kUsage;
    case ErrorKind::kOutput: return kUnwritable;
    case ErrorKind::kInternal: return kInternal;
  }
  return kInternal;
}

int Fail(const Error& e) {
  std::fprintf(stderr, "toposcope: %s\n", e.ToString().c_str());
  return ExitCodeOf(e.kind);
}


// The usage error of an option whose value names none of the library's values.
Error UnknownValue(const std::string& option, const std::string& value) {
  return toposcope::MakeKindError(ErrorKind::kUsage, option + ": unknown value '" + value + "'",
                                  "--help lists the values");
}

// ---------------------------------------------------------------------------------------------
// analyze, align, links, islands, identify: flags -> app::AnalyzeRequest
// ---------------------------------------------------------------------------------------------

struct AnalyzeFlags {
  std::vector<std::string> paths;
  std::string out, host, from_dump;
  std::string thresholds = "modern";
  double nvlink_min_gbps = -1, pcie_cpu_max_gbps = -1, degraded_ratio = -1;
  double sampling_period_ms = 100;
  double entropy_window_ms = 0;  // 0 = automatic from the captures' span
  std::string tomography_rtt = "min";
  std::vector<std::string> only;
  bool strict = false, quiet = false, verbose = false, check_icrc = false;
  bool anchors = true;  // use collective completions as implicit clock anchors
  bool dump_passes = false;
  bool timeline = false;  // analyze --timeline (align always writes it)
  std::string at;  // --at
  std::string otlp;  // analyze --otlp FILE
  std::string format = "text";  // analyze --format: text (the summary), json (result.json), csv (findings)
  std::string dot;              // analyze --dot DIR: fabric.dot and <host>.dot
  app::PrometheusRequest prometheus;  // --prometheus URL --range START,END --step S
  int threads = 0;                    // --threads: 0 = every core (under MPI: shared among a machine's ranks)
};

void AddAnalyzeFlags(CLI::App* cmd, AnalyzeFlags& f, bool with_out) {
  cmd->add_option("paths", f.paths, "files and directories to read (formats are detected by content)");
  if (with_out) {
    cmd->add_option("--out", f.out, "write DIR/result.json (and the other outputs)");
    cmd->add_flag("--dump-passes", f.dump_passes, "also write every pass's output to DIR/passes/<pass>.json");
    cmd->add_option("--only", f.only, "produce only these passes (and what they need); see `toposcope passes`")
        ->delimiter(',');
    cmd->add_flag("--verbose", f.verbose, "list every finding and host in the summary, and each pass's wall and CPU "
                  "time, peak memory and record counts");
    cmd->add_flag("--timeline", f.timeline, "also merge every event onto the global axis into DIR/timeline.json "
                  "(what `align` writes)");
    cmd->add_option("--otlp", f.otlp, "also write the metrics (what `serve` shows on /metrics) as OTLP/JSON to FILE");
    cmd->add_option("--threads", f.threads, "threads to read inputs and run passes with (default 0: every core; "
                    "under mpirun: the cores shared among the machine's ranks)")->check(CLI::Range(0, 4096));
  }
  cmd->add_flag("-q,--quiet", f.quiet, "print nothing but the answer and errors (no summary, no progress line)");
  cmd->add_option("--from-dump", f.from_dump, "load passes from DIR/passes/*.json of an earlier --dump-passes run");
  cmd->add_option("--host", f.host, "attribute every input to this host");
  cmd->add_option("--at", f.at, "when samples without a time (plain dcgmi dmon, a scrape) start, ISO 8601 UTC "
                                "(default: each file's modification time)");
  cmd->add_option("--thresholds", f.thresholds, "bandwidth thresholds preset: modern (default) or seed (12/2 GB/s)")
      ->check(CLI::IsMember({"modern", "seed"}));
  cmd->add_option("--nvlink-min-gbps", f.nvlink_min_gbps,
                  "bandwidth at or above which a pair is NVLink (when its GPUs' PCIe generations are unknown)");
  cmd->add_option("--pcie-cpu-max-gbps", f.pcie_cpu_max_gbps,
                  "bandwidth at or below which a pair is PCIe through the CPU (when the PCIe generations are unknown)");
  cmd->add_option("--degraded-ratio", f.degraded_ratio, "flag links measuring below this fraction of expected");
  cmd->add_option("--sampling-period-ms", f.sampling_period_ms, "sampling period for the per-path confidence bound");
  cmd->add_option("--entropy-window-ms", f.entropy_window_ms, "link entropy window (0: automatic from the captures' span)")
      ->check(CLI::Range(0.0, 3600000.0));
  cmd->add_option("--tomography-rtt", f.tomography_rtt, "RTT of a probed route for tomography: min, endpoint or median")
      ->check(CLI::IsMember({"min", "endpoint", "median"}));
  cmd->add_flag("--check-icrc", f.check_icrc, "recompute the ICRC of every RoCE packet (a bad one is a warning)");
  cmd->add_flag("!--no-anchors", f.anchors, "fit clocks on sync records only (no collective-completion anchors)");
  cmd->add_flag("--strict", f.strict, "fail (exit 1) when any record is rejected");
  cmd->add_option("--prometheus", f.prometheus.url, "also read DCGM series (DCGM_FI_*) from this Prometheus server's "
                  "query_range API, e.g. http://127.0.0.1:9090 (needs --range)");
  cmd->add_option("--range", f.prometheus.range, "with --prometheus: START,END, each RFC 3339 or Unix seconds");
  cmd->add_option("--step", f.prometheus.step, "with --prometheus: seconds between the values asked for (default 1; "
                  "the scrape interval or the DCGM period)");
}

toposcope::Result<app::AnalyzeRequest> RequestOf(const AnalyzeFlags& f) {
  app::AnalyzeRequest req;
  req.paths = f.paths;
  req.host_override = f.host;
  if (!f.at.empty()) {
    const auto at = toposcope::ParseIsoTimeNs(f.at);
    if (!at) return UnknownValue("--at", f.at);
    req.untimed_at_ns = *at;
  }
  req.out = f.out;
  req.threads = f.threads;
  req.from_dump = f.from_dump;
  req.dump_passes = f.dump_passes;
  req.prometheus = f.prometheus;
  if (req.prometheus.url.empty() && !req.prometheus.range.empty()) {
    return toposcope::MakeKindError(ErrorKind::kUsage, "--range needs --prometheus URL", "");
  }
  if (!req.prometheus.url.empty() && req.prometheus.range.empty()) {
    return toposcope::MakeKindError(ErrorKind::kUsage, "--prometheus needs --range START,END",
                                    "e.g. --range 2026-12-05T11:00:00Z,2026-12-05T12:00:00Z");
  }
  analysis::AnalyzeOptions& opt = req.options;
  const std::optional<analysis::ThresholdPreset> preset = analysis::ParseThresholdPreset(f.thresholds);
  if (!preset) return UnknownValue("--thresholds", f.thresholds);
  opt.thresholds = analysis::PresetThresholds(*preset);
  if (f.nvlink_min_gbps > 0) opt.thresholds.nvlink_min_gbps = f.nvlink_min_gbps;
  if (f.pcie_cpu_max_gbps > 0) opt.thresholds.pcie_cpu_max_gbps = f.pcie_cpu_max_gbps;
  if (f.degraded_ratio > 0) opt.thresholds.degraded_ratio = f.degraded_ratio;
  opt.confidence.path_period_ms = f.sampling_period_ms;
  opt.anchors.enabled = f.anchors;
  opt.rdma.entropy.window_ns = static_cast<int64_t>(f.entropy_window_ms * 1e6);
  opt.rdma.flows.check_icrc = f.check_icrc;
  const std::optional<analysis::RttStatistic> rtt = analysis::ParseRttStatistic(f.tomography_rtt);
  if (!rtt) return UnknownValue("--tomography-rtt", f.tomography_rtt);
  opt.link_weights.rtt_statistic = *rtt;
  for (const std::string& name : f.only) {
    const auto id = analysis::PassFromName(name);
    if (!id) {
      return toposcope::MakeKindError(ErrorKind::kUsage, "--only: no pass named '" + name + "'",
                                      "`toposcope passes` lists them");
    }
    req.only.insert(*id);
  }
  return req;
}

// Under an MPI launcher (`mpirun -np N toposcope analyze ...`): every rank reads a shard of the
// inputs (dist/mpi_load); rank 0 gets them merged and goes on as a one-process run, the other
// ranks stop once their shard is sent. Returns the exit code of a rank other than 0, nullopt on
// rank 0 (its request now reads through the ranks) and without MPI.
std::optional<int> ShareAnalyzeAmongRanks(const AnalyzeFlags& f, app::AnalyzeRequest* req) {
#ifdef TOPOSCOPE_HAVE_MPI
  if (!toposcope::dist::LaunchedByMpi()) return std::nullopt;
  if (!f.from_dump.empty() || !f.prometheus.url.empty() || f.paths.empty()) {
    return Fail(toposcope::MakeKindError(ErrorKind::kUsage, "under mpirun, analyze reads files and directories",
                                         "give paths (no --from-dump, no --prometheus)"));
  }
  const int threads = f.threads;
  if (toposcope::dist::LaunchedRank() != 0) {
    toposcope::model::LoadOptions lo;
    lo.host_override = req->host_override;
    lo.untimed_at_ns = req->untimed_at_ns;
    auto shard = toposcope::dist::LoadSharded(req->paths, lo, nullptr, threads);
    return shard.ok() ? kOk : Fail(shard.error());
  }
  // Rank 0 reads its shard with its share of this machine's cores; once every rank has sent its
  // part, the other ranks here only wait for the end, and rank 0 runs the passes and renders the
  // outputs on the cores they held.
  req->threads = toposcope::dist::RankZeroThreads(threads);
  req->load_paths = [threads](const std::vector<std::string>& paths, const toposcope::model::LoadOptions& lo,
                              const toposcope::model::LoadProgressFn& progress) {
    return toposcope::dist::LoadSharded(paths, lo, progress, threads);
  };
#else
  (void)f;
  (void)req;
#endif
  return std::nullopt;
}

// Runs the request of `f`; `timeline` merges the events into DIR/timeline.json, `merge_events`
// merges them in memory (explain); with `rank_exit` (analyze), under mpirun a rank other than 0
// reads its shard, sets *rank_exit and returns an error that is not reported. On a terminal (stderr) and without --quiet, a progress line
// shows the files read and the pass running; it is wiped before anything else is printed.
toposcope::Result<app::AnalyzeOutcome> Analyze(const AnalyzeFlags& f, bool timeline, bool merge_events = false,
                                               std::optional<int>* rank_exit = nullptr) {
  toposcope::Result<app::AnalyzeRequest> req = RequestOf(f);
  if (!req.ok()) return req.error();
  if (rank_exit != nullptr) {
    *rank_exit = ShareAnalyzeAmongRanks(f, &*req);
    if (*rank_exit) return toposcope::MakeError("this rank only reads its shard");
  }
  req->timeline = timeline && !f.out.empty();
  req->merge_events = merge_events;
  std::optional<toposcope::cli::ProgressLine> line;
  if (isatty(STDERR_FILENO) && !f.quiet) {
    line.emplace(stderr);
    req->progress = [&line](const analysis::PassInfo& p, const analysis::PassStats* done) { line->OnPass(p, done); };
    req->load_progress = [&line](const toposcope::model::LoadProgress& p) { line->OnLoad(p); };
    req->output_progress = [&line](const std::string& file, int64_t bytes) { line->OnOutput(file, bytes); };
  }
  return app::RunAnalyze(*req);
}

// analyze --dot DIR: the fabric and host graphs.
toposcope::Status WriteDotFiles(const std::string& dir, const analysis::AnalysisResult& r, bool quiet) {
  if (toposcope::Status st = toposcope::PrepareOutputDir(dir); !st.ok()) return st;
  const auto files = report::DotFiles(r);
  for (const auto& [name, text] : files) {
    if (toposcope::Status st = toposcope::WriteFileText(dir + "/" + name, text); !st.ok()) return st;
  }
  if (!quiet) std::fprintf(stderr, "wrote %s/fabric.dot and %zu host graphs\n", dir.c_str(), files.size() - 1);
  return {};
}

// The exit code after a run whose outputs were written: 3 when nothing could be read, 1 when
// records were rejected under --strict.
int Verdict(const AnalyzeFlags& f, const app::AnalyzeOutcome& a) {
  if (!a.any_input_read && f.from_dump.empty()) {
    std::fprintf(stderr, "toposcope: no input could be read\n");
    return kUnreadable;
  }
  if (f.strict && a.result.rejected_total > 0) {
    std::fprintf(stderr, "toposcope: %lld records rejected (--strict)\n",
                 static_cast<long long>(a.result.rejected_total));
    return kRejected;
  }
  return kOk;
}

int RunAnalyzeCommand(const AnalyzeFlags& f, bool timeline) {
  std::optional<int> rank_exit;
  auto a = Analyze(f, timeline, false, &rank_exit);
  if (rank_exit) return *rank_exit;  // a rank other than 0: its shard is read and sent
  if (!a.ok()) return Fail(a.error());
  if (f.only.empty() && f.format == "json") {
    std::fputs(report::ResultJsonText(a->result, &a->probes).c_str(), stdout);
  } else if (f.only.empty() && f.format == "csv") {
    std::fputs(report::FindingsCsv(a->result).c_str(), stdout);
  } else if (f.only.empty()) {
    if (!f.quiet) {
      report::SummaryOptions so;
      so.verbose = f.verbose;
      std::fputs(report::ResultSummaryText(a->result, so).c_str(), stdout);
      for (const auto& d : a->result.diagnostics) std::fprintf(stderr, "%s\n", d.c_str());
      if (!f.out.empty()) std::printf("wrote %s/result.json\n", f.out.c_str());
    }
  } else {
    for (const auto& path : a->written) std::printf("wrote %s\n", path.c_str());
  }
  if (f.verbose) std::fputs(report::PassStatsText(a->run).c_str(), stderr);
  if (!f.otlp.empty()) {
    if (toposcope::Status st = app::WriteOtlpMetricsFile(*a, f.otlp); !st.ok()) return Fail(st.error());
    if (!f.quiet) std::printf("wrote %s\n", f.otlp.c_str());
  }
  if (!f.dot.empty()) {
    if (toposcope::Status st = WriteDotFiles(f.dot, a->result, f.quiet); !st.ok()) return Fail(st.error());
  }
  return Verdict(f, *a);
}

// links / islands / identify: one answer on stdout.
int RunAnswerCommand(AnalyzeFlags f, const std::function<std::string(const analysis::AnalysisResult&)>& render,
                     bool needs_architecture = false) {
  auto a = Analyze(f, false);
  if (!a.ok()) return Fail(a.error());
  if (!a->any_input_read) return Verdict(f, *a);
  std::fputs(render(a->result).c_str(), stdout);
  if (needs_architecture && !a->result.architecture_present) return kUnreadable;
  return Verdict(f, *a);
}

// explain: the hypothesis tree of the inputs' findings on stdout (the events merged in memory, for
// the stragglers, whether or not --out is given).
int RunExplainCommand(const AnalyzeFlags& f, bool json, const report::ExplainTextOptions& opt) {
  auto a = Analyze(f, false, true);
  if (!a.ok()) return Fail(a.error());
  if (!a->any_input_read) return Verdict(f, *a);
  const std::string text = json ? report::DumpSchemaFirst({{"hypotheses", report::HypothesesJson(a->result, &a->probes)}})
                                : report::ExplainText(a->result, opt, &a->probes);
  std::fputs(text.c_str(), stdout);
  return Verdict(f, *a);
}

// ---------------------------------------------------------------------------------------------
// The table of subcommands
// ---------------------------------------------------------------------------------------------

struct Command {
  const char* name;
  const char* help;
  std::function<void(CLI::App*)> setup;  // adds the flags
  std::function<int()> run;              // the exit code
};

struct Flags {
  AnalyzeFlags analyze, align, answer, serve, topo;
  app::ServeRequest serve_request;
  std::string topo_host;
  std::string explain_format = "text";
  bool identify_json = false;
  bool explain_json = false;
  int eval_seeds = 5;
  int eval_hosts = 16;
  std::vector<std::string> eval_archs;
  std::vector<int> eval_faults;
  std::string eval_keep;
  report::ExplainTextOptions explain;
  int compare_hosts = 64;
  uint64_t compare_seed = 1;
  bool compare_faults = true;
  toposcope::sim::SimOptions sim = app::SimulateDefaults();
  std::string sim_arch{toposcope::sim::ArchName(sim.arch)};  // --arch, parsed into sim.arch
  std::string sim_out;
  std::string sim_naming = "seed";  // --naming, resolved against the seed into sim.naming
  bool sim_serve_exporter = false;  // simulate --serve-exporter
  std::string sim_compress = "none";  // simulate --compress
  int sim_zstd_level = 3;             // simulate --zstd-level
  std::string sim_volume = "auto";    // simulate --telemetry-volume
  bool sim_quiet = false;             // simulate --quiet
  app::ExporterRequest exporter;
  std::string truth, result;
  std::string report_result, report_out = "report.html";
  app::DemoRequest demo;
  app::AnonymizeRequest anonymize;
  app::FindSlowNodesRequest find_slow;
  bool find_slow_json = false;
  app::PlanRingRequest plan_ring;
  double plan_ring_mib = 1024;
  app::ProbeP2pRequest probe_p2p;
  double probe_size_mib = 256;
  bool probe_no_bidir = false, probe_no_latency = false, probe_enabled_only = false;
  app::CollectRequest collect;
  std::string collect_timestamps = "epoch";
  app::ScheduleRequest schedule;
  bool schedule_follow = false;
  double schedule_window_ms = 0;
  bool schedule_simulate = false, schedule_json = false;
  app::ScheduleSimRequest schedule_sim;
  app::TrainBarrierRequest train_barrier;
  bool train_barrier_json = false;
  app::BarrierSimRequest barrier_sim;
  bool barrier_sim_json = false;
  app::PsSimRequest ps_sim;
  bool ps_sim_json = false;
};

void AddProbeFlags(CLI::App* probe, Flags& f) {
  probe->require_subcommand(1);
  CLI::App* c = probe->add_subcommand("p2p", "for every GPU pair: cudaMemcpyPeer bandwidth (uni/bidirectional, "
                                      "P2P enabled/disabled) and latency, timed with CUDA events");
  app::ProbeP2pRequest& r = f.probe_p2p;
  c->add_option("--out", r.out, "write DIR/<host>/p2pBandwidthLatencyTest.txt and p2p_matrix.csv (else the text to stdout)");
  c->add_option("--host", r.host, "the host's name in DIR (default: this machine's short hostname)");
  c->add_option("--cudart", r.cudart, "path of libcudart.so (default: the loader's search, then /usr/local/cuda)");
  c->add_option("--size-mib", f.probe_size_mib, "bytes per copy, in MiB (default 256)")->check(CLI::Range(0.000001, 65536.0));
  c->add_option("--repetitions", r.options.repetitions, "timed copies per pair (default 5)")->check(CLI::Range(1, 100000));
  c->add_option("--latency-repetitions", r.options.latency_repetitions, "small copies per latency figure (default 100)")
      ->check(CLI::Range(1, 1000000));
  c->add_option("--devices", r.options.devices, "CUDA device indices (default: all)")->delimiter(',');
  c->add_flag("--no-bidirectional", f.probe_no_bidir, "skip the bidirectional matrices");
  c->add_flag("--no-latency", f.probe_no_latency, "skip the latency matrices");
  c->add_flag("--p2p-enabled-only", f.probe_enabled_only, "skip the P2P=Disabled (staged copy) matrices");
}

void AddCollectFlags(CLI::App* c, Flags& f) {
  app::CollectRequest& r = f.collect;
  c->add_option("--out", r.out, "dmon text file (default: stdout)");
  c->add_option("--nvml", r.nvml, "path of libnvidia-ml.so.1 (default: the loader's search)");
  c->add_option("--hz", r.options.hz, "samples per second (default 10)")->check(CLI::Range(0.01, 1000.0));
  c->add_option("--duration", r.options.duration_s, "stop after S seconds (default: at SIGINT)")->check(CLI::Range(0.0, 1e9));
  c->add_option("--iterations", r.options.max_iterations, "stop after N samples of every GPU")->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  c->add_option("--devices", r.options.devices, "NVML device indices (default: all)")->delimiter(',');
  c->add_option("--timestamps", f.collect_timestamps, "line prefix: epoch (ts %.s, default), iso, or none")
      ->check(CLI::IsMember({"epoch", "iso", "none"}));
}

void AddScheduleFlags(CLI::App* c, app::ScheduleRequest& r, bool& follow, double& window_ms) {
  act::EadpsOptions& o = r.options;
  c->add_option("paths", r.paths, "files and directories to read (RoCEv2 captures, NCCL logs, fabric)");
  c->add_option("--out", r.out, "write DIR/schedule.json, result.json and decision-<k>/ (hostfiles, nccl_graph.xml, nccl.env)");
  c->add_flag("--follow", follow, "read entropy windows as JSON lines on stdin, print decisions as JSON lines as they fire");
  c->add_option("--hosts", r.hosts_file, "the job's hostfile as written (the ring order); else the NCCL logs' ring or names");
  c->add_option("--estimator", o.estimator, "entropy watched: message_size (default), flow_qp, seed_header, miller_madow_header");
  c->add_option("--show-estimator", o.shown_estimator, "entropy shown beside it in the evidence (default seed_header)");
  c->add_option("--jump-bits", o.jump_bits, "a change between windows above this wakes the engine (default 0.15)");
  c->add_option("--hot-bits", o.hot_bits, "move off above this (default 2.5 bit/symbol)");
  c->add_option("--hot-hold-s", o.hot_hold_s, "held this long (default 3 s)");
  c->add_option("--cool-bits", o.cool_bits, "merge back below this (default 1.8 bit/symbol)");
  c->add_option("--cool-hold-s", o.cool_hold_s, "held this long (default 5 s)");
  c->add_option("--hysteresis-bits", o.hysteresis_bits, "a run continues within this margin of its threshold (default 0.1)");
  c->add_option("--cooldown-s", o.cooldown_s, "no second decision on a link within this time (default 10 s)");
  c->add_option("--awake-s", o.awake_s, "a woken link sleeps again this long after its last jump (default 10 s)");
  c->add_option("--mark-fraction", o.mark_fraction, "congestion marks first seen on a link, share of its packets, that mark a window (default 0.01; 0: off)");
  c->add_option("--mark-quiet-s", o.mark_quiet_s, "unmarked this long before marks begin: an onset (default 2 s)");
  c->add_option("--mark-hold-s", o.mark_hold_s, "a marking episode lasting this long moves traffic off (default 3 s)");
  c->add_option("--dip-fraction", o.dip_fraction, "a window below this share of the link's median packets is a dip (default 0.5)");
  c->add_option("--flap-cycles", o.flap_cycles, "dip-and-return cycles that move traffic off (default 3; 0: off)");
  c->add_option("--flap-span-s", o.flap_span_s, "... within this span (default 10 s)");
  c->add_option("--window-ms", window_ms, "entropy window of the replay (default: from the captures' span)")->check(CLI::Range(0.001, 1e6));
  c->add_option("--qps-per-connection", r.qps_per_connection, "the job's current NCCL_IB_QPS_PER_CONNECTION (default 1)")
      ->check(CLI::Range(1, 128));
  c->add_option("--channels", r.nchannels, "rings in the NCCL graph files (default 2)")->check(CLI::Range(1, 64));
}

void AddScheduleSimFlags(CLI::App* c, app::ScheduleSimRequest& r, bool& simulate, bool& json) {
  c->add_flag("--simulate", simulate, "measure EADPS in the simulator: architectures x seeds x events, scored against the injected events");
  c->add_option("--archs", r.archs, "with --simulate: fat-tree, dragonfly, hhre (default all)")->delimiter(',');
  c->add_option("--seeds", r.seeds, "with --simulate: seeds (default 1,2,3,4,5)")->delimiter(',');
  c->add_option("--events", r.events, "with --simulate: none, congestion, flapping, degraded (default all)")->delimiter(',');
  c->add_option("--sim-hosts", r.hosts, "with --simulate: hosts per cluster (default 16)")->check(CLI::Range(4, 256));
  c->add_flag("--json", json, "with --simulate: print the scores and runs as JSON");
}

int RunScheduleSimCommand(app::ScheduleSimRequest& sim, const app::ScheduleRequest& r, bool json) {
  sim.out = r.out;
  sim.options = r.options;
  sim.qps_per_connection = r.qps_per_connection;
  auto o = app::RunScheduleSim(sim);
  if (!o.ok()) return Fail(o.error());
  std::fputs(json ? (app::ScheduleSimJson(*o).dump(2) + "\n").c_str() : app::ScheduleSimText(*o).c_str(), stdout);
  return int{kOk};
}

int RunScheduleCommand(app::ScheduleRequest& r, bool follow, double window_ms) {
  r.entropy_window_ns = static_cast<int64_t>(window_ms * 1e6);
  if (follow) {
    auto n = app::FollowSchedule(r, std::cin, "<stdin>", std::cout);
    if (!n.ok()) return Fail(n.error());
    return int{kOk};
  }
  auto o = app::RunSchedule(r);
  if (!o.ok()) return Fail(o.error());
  std::fputs(app::ScheduleText(*o).c_str(), stdout);
  return int{kOk};
}

void AddScheduleCommandFlags(CLI::App* c, Flags& f) {
  AddScheduleFlags(c, f.schedule, f.schedule_follow, f.schedule_window_ms);
  AddScheduleSimFlags(c, f.schedule_sim, f.schedule_simulate, f.schedule_json);
}

int RunScheduleCommandOf(Flags& f) {
  if (f.schedule_simulate) return RunScheduleSimCommand(f.schedule_sim, f.schedule, f.schedule_json);
  return RunScheduleCommand(f.schedule, f.schedule_follow, f.schedule_window_ms);
}

void AddSimulateFlags(CLI::App* c, toposcope::sim::SimOptions& o, std::string& arch, std::string& out,
                      std::string& naming) {
  c->add_option("--arch", arch, "fat-tree, dragonfly or hhre")->check(CLI::IsMember({"fat-tree", "dragonfly", "hhre"}));
  c->add_option("--naming", naming, "host and switch names: seed (a real style chosen by the seed), dgx, rack-node, "
                "cloud-ip, or plain (node001, leaf00 in placement order)")
      ->check(CLI::IsMember({"seed", "dgx", "rack-node", "cloud-ip", "plain"}));
  c->add_option("--seed", o.seed, "random seed (same seed, same bytes)");
  c->add_option("--hosts", o.hosts, "number of hosts")->check(CLI::Range(1, 100000));
  c->add_option("--faults", o.faults, "number of injected faults")->check(CLI::Range(0, 100000));
  c->add_option("--node-types", o.node_types,
                "node types to cycle through (h100-nvswitch, a100-nvswitch, pcie-bridge, pcie-only; P2P-only datasets: "
                "a100-nvswitch-p2p, pcie-bridge-p2p)")
      ->delimiter(',');
  c->add_option("--out", out, "output directory")->required();
  c->add_flag("!--no-telemetry", o.with_telemetry, "only the node topology files (no clocks, DCGM, traces)");
  c->add_flag("!--no-fabric", o.with_fabric, "no path probes / QP state logs / ibnetdiscover dump (always off above 512 hosts)");
  c->add_flag("!--no-rdma", o.with_rdma, "no RoCE captures / NCCL logs / rdma tool output (always off above 1024 hosts)");
  c->add_option("--nccl-channels", o.nccl_channels, "NCCL channels (rings) of the simulated job")->check(CLI::Range(1, 16));
  c->add_option("--qps-per-connection", o.qps_per_connection, "NCCL_IB_QPS_PER_CONNECTION")->check(CLI::Range(1, 8));
  c->add_option("--rdma-window-ms", o.rdma_window_ms, "span of the packet captures")->check(CLI::Range(1.0, 1000.0));
  c->add_option("--probes-per-pair", o.probes_per_pair, "path probes per ordered host pair")->check(CLI::Range(1, 1000));
  c->add_option("--probe-peers", o.max_probe_peers, "peers each host probes (all when fewer hosts)")
      ->check(CLI::Range(1, 100000));
  c->add_option("--probe-extra-rtt-us", o.probe_extra_rtt_us, "added to every probe RTT (e.g. 250 for a kernel-TCP regime)")
      ->check(CLI::Range(0.0, 1e6));
  c->add_option("--fabric-ibnet", o.fabric_ibnet_path,
                "take the fabric from an ibnetdiscover dump (probes over its real switches; --arch/--hosts ignored)")
      ->check(CLI::ExistingFile);
  c->add_option("--fabric-topograph", o.fabric_topograph_path,
                "take the fabric from a topograph model YAML (--arch/--hosts ignored)")
      ->check(CLI::ExistingFile);
  c->add_flag("!--no-fabric-faults", o.fabric_faults, "no congested switch, degraded/flapping link, detour or slow host");
  c->add_option("--switch-latency-shift-us", o.switch_latency_shift_us,
                "added to every simulated switch's port-to-port latency")->check(CLI::Range(-0.25, 5.0));
  c->add_option("--nccl-version", o.nccl_version, "NCCL log format: 2.26.2 or 2.16.5 (default: by seed)")
      ->check(CLI::IsMember({"2.26.2", "2.16.5"}));
  c->add_flag("--vary,!--no-vary", o.vary, "draw from the seed what real clusters vary (switch and link class, clocks, "
              "DCGM periods, NCCL version, node types) unless given (the default; --no-vary: the fixed configuration); "
              "the draws go to truth.json and the summary");
  c->add_option("--switch-class", o.switch_class, "switch latency class (default: by seed; fixed 0.30-0.50 us with "
                "--no-vary)")->check(CLI::IsMember({"ib", "roce-cut-through", "ethernet-merchant"}));
  c->add_option("--link-class", o.link_class, "link PHY + FEC class (default: by seed; fixed 0.05-0.12 us with --no-vary)")
      ->check(CLI::IsMember({"dac", "optics"}));
  c->add_option("--clock-profile", o.clock_profile, "hosts' clock discipline: mixed, ptp or ntp (default: by seed; mixed with --no-vary)")
      ->check(CLI::IsMember({"mixed", "ptp", "ntp"}));
  auto fix_periods = [&o](const std::string&) { o.dcgm_periods_fixed = true; };
  c->add_option("--dcgm-period-ms", o.dcgm_period_ms, "DCGM sampling period of most hosts (default: by seed; 100 with --no-vary)")
      ->check(CLI::Range(10, 10000))->each(fix_periods);
  c->add_option("--slow-dcgm-period-ms", o.slow_dcgm_period_ms, "DCGM period of the slow hosts (default: by seed; 1000 with --no-vary)")
      ->check(CLI::Range(10, 60000))->each(fix_periods);
}

int RunProbeCommand(Flags& f) {
  app::ProbeP2pRequest& r = f.probe_p2p;
  r.options.bytes = static_cast<size_t>(f.probe_size_mib * (1 << 20));
  r.options.bidirectional = !f.probe_no_bidir;
  r.options.latency = !f.probe_no_latency;
  r.options.p2p_disabled = !f.probe_enabled_only;
  auto o = app::RunProbeP2p(r, stderr);
  if (!o.ok()) return Fail(o.error());
  if (r.out.empty()) {
    std::fputs(toposcope::formats::WriteP2pBandwidthLatencyTest(o->report).c_str(), stdout);
    std::fputs(app::ProbeP2pText(*o).c_str(), stderr);
  } else {
    std::fputs(app::ProbeP2pText(*o).c_str(), stdout);
  }
  return kOk;
}

int RunCollectCommand(Flags& f) {
  using toposcope::formats::DmonTimestampStyle;
  f.collect.options.timestamp_style = f.collect_timestamps == "iso"    ? DmonTimestampStyle::kIso
                                      : f.collect_timestamps == "none" ? DmonTimestampStyle::kNone
                                                                        : DmonTimestampStyle::kEpoch;
  static std::atomic<bool> stop{false};
  app::StopOnSignals(&stop);
  auto s = app::RunCollect(f.collect, stop);
  if (!s.ok()) return Fail(s.error());
  std::fputs(toposcope::probe::CollectSummaryText(*s).c_str(), stderr);
  return kOk;
}

// explain: the hypothesis tree of the inputs' findings.
Command ExplainCommand(Flags& f) {
  return {"explain", "rank fault hypotheses for each symptom the findings show: evidence, probability, next check",
          [&f](CLI::App* c) {
            AddAnalyzeFlags(c, f.answer, false);
            c->add_flag("--json", f.explain_json, "print result.json's hypotheses object (as --format json)");
            c->add_option("--format", f.explain_format, "text (the ranked hypotheses) or json (result.json's "
                          "hypotheses object)")->check(CLI::IsMember({"text", "json"}));
            c->add_option("--symptoms", f.explain.max_symptoms, "symptoms shown in full (default 5)")->check(CLI::Range(1, 100000));
          },
          [&f] { return RunExplainCommand(f.answer, f.explain_json || f.explain_format == "json", f.explain); }};
}

// evaluate-hypotheses: the hypothesis tree measured on simulated clusters (experiments/hypothesis_eval).
Command EvaluateHypothesesCommand(Flags& f) {
  return {"evaluate-hypotheses", "measure the hypothesis tree: simulate clean and faulty clusters, score top-1 / top-3",
          [&f](CLI::App* c) {
            c->add_option("--seeds", f.eval_seeds, "seeds 1..N of each architecture (default 5)")->check(CLI::Range(1, 1000));
            c->add_option("--hosts", f.eval_hosts, "hosts of each cluster (default 16)")->check(CLI::Range(8, 512));
            c->add_option("--arch", f.eval_archs, "only these architectures: fat-tree, dragonfly, hhre (default all)")
                ->delimiter(',');
            c->add_option("--faults", f.eval_faults, "only these fault counts, 0 = clean (default 0,1,2,3)")
                ->delimiter(',')
                ->check(CLI::Range(0, 16));
            c->add_option("--keep", f.eval_keep, "write each cluster and its result.json under DIR and keep them");
          },
          [&f] {
            toposcope::experiments::HypothesisEvalOptions o;
            o.hosts = f.eval_hosts;
            if (!f.eval_archs.empty()) o.archs.clear();
            for (const auto& name : f.eval_archs) {
              const auto arch = toposcope::sim::ParseArch(name);
              if (!arch) return Fail(UnknownValue("--arch", name));
              o.archs.push_back(*arch);
            }
            if (!f.eval_faults.empty()) o.fault_counts = f.eval_faults;
            o.work_dir = f.eval_keep;
            o.keep = !f.eval_keep.empty();
            o.seeds.clear();
            for (int s = 1; s <= f.eval_seeds; ++s) o.seeds.push_back(static_cast<uint64_t>(s));
            auto e = toposcope::experiments::EvaluateHypotheses(o);
            if (!e.ok()) return Fail(e.error());
            std::fputs(e->table.c_str(), stdout);
            return int{kOk};
          }};
}

// train-barrier: the cross-region asynchronous barrier measured (experiments/barrier_compare).
Command TrainBarrierCommand(Flags& f) {
  return {"train-barrier", "train on worker processes over simulated cross-region links: synchronous vs asynchronous + compressed",
          [&f](CLI::App* c) {
            app::TrainBarrierRequest& r = f.train_barrier;
            auto& b = r.options.base;
            c->add_option("--out", r.out, "write DIR/barrier.json and DIR/barrier.txt");
            c->add_flag("--json", f.train_barrier_json, "print barrier.json instead of the table");
            c->add_option("--workers", b.workers, "worker processes, half in each region (default 4)")->check(CLI::Range(2, 64));
            c->add_option("--steps", b.steps, "training steps of each run (default 200)")->check(CLI::Range(3, 100000));
            c->add_option("--latency-us", b.transport.cross.latency_us, "cross-region one-way latency (default 500)")
                ->check(CLI::Range(0.0, 1e6));
            c->add_option("--latency-from", r.latency_from, "measure it from path probes in these files / directories "
                          "(median RTT / 2 between inferred pods)");
            c->add_option("--bandwidth-gbps", b.transport.cross.bandwidth_gbps,
                          "cross-region bandwidth per worker (default 3.125)")->check(CLI::Range(1e-3, 1e4));
            c->add_option("--staleness", b.staleness_steps, "steps a remote region's gradient may lag (default 1)")
                ->check(CLI::Range(0, 16));
            c->add_option("--features", b.problem.features, "model size: float32 values per gradient (default 65536)")
                ->check(CLI::Range(16, 1 << 22));
            c->add_option("--topk", r.options.topk_fraction, "share of values top-k keeps (default 0.1)")
                ->check(CLI::Range(1e-6, 1.0));
            c->add_option("--corrupt-every", b.corrupt_every, "flip a byte of every Nth compressed cross-region "
                          "gradient on the wire, to exercise the digest fallback (default 0: none)")->check(CLI::Range(0, 1000000));
            c->add_option("--scale-workers", r.options.scaled_workers, "workers of the simulation at scale (default 1024, 0: none)")
                ->check(CLI::Range(0, 8192));
            c->add_option("--seed", b.problem.seed, "the data set's generator (default 1)");
          },
          [&f] {
            auto o = app::RunTrainBarrier(f.train_barrier);
            if (!o.ok()) return Fail(o.error());
            std::fputs((f.train_barrier_json ? o->json : o->table).c_str(), stdout);
            return int{kOk};
          }};
}

// barrier-sim: the barrier's synchronous vs asynchronous 4-bit runs in one short table (simulated, or --real N).
Command BarrierSimCommand(Flags& f) {
  return {"barrier-sim", "the cross-region barrier, synchronous + full vs asynchronous + 4-bit: simulated, or --real N worker processes",
          [&f](CLI::App* c) {
            app::BarrierSimRequest& r = f.barrier_sim;
            auto& b = r.base;
            c->add_flag("--json", f.barrier_sim_json, "print one JSON object instead of the table");
            c->add_option("--real", r.real, "run N worker processes on loopback instead of the simulation")->check(CLI::Range(2, 64));
            c->add_option("--workers", b.workers, "workers of the simulation, half in each region (default 4)")->check(CLI::Range(2, 64));
            c->add_option("--steps", b.steps, "training steps (default 200)")->check(CLI::Range(3, 100000));
            c->add_option("--latency-us", b.transport.cross.latency_us, "cross-region one-way latency (default 500)")
                ->check(CLI::Range(0.0, 1e6));
            c->add_option("--latency-from", r.latency_from, "measure it from path probes in these files / directories");
            c->add_option("--bandwidth-gbps", b.transport.cross.bandwidth_gbps, "cross-region bandwidth per worker (default 3.125)")
                ->check(CLI::Range(1e-3, 1e4));
            c->add_option("--staleness", b.staleness_steps, "steps a remote region's gradient may lag (default 1)")->check(CLI::Range(0, 16));
            c->add_option("--features", b.problem.features, "float32 values per gradient (default 65536)")->check(CLI::Range(16, 1 << 22));
            c->add_option("--corrupt-every", b.corrupt_every, "flip a byte of every Nth compressed cross-region gradient (default 0)")
                ->check(CLI::Range(0, 1000000));
            c->add_option("--seed", b.problem.seed, "the data set's generator (default 1)");
          },
          [&f] {
            auto o = app::RunBarrierSim(f.barrier_sim);
            if (!o.ok()) return Fail(o.error());
            std::fputs((f.barrier_sim_json ? o->json : o->table).c_str(), stdout);
            return int{kOk};
          }};
}

// ps-sim: the parameter-server graph with failover, full vs sparse (simulated, or --real N processes).
Command PsSimCommand(Flags& f) {
  return {"ps-sim", "the parameter-server graph with failover, full vs sparse: simulated at scale, or --real N processes with one killed",
          [&f](CLI::App* c) {
            app::PsSimRequest& r = f.ps_sim;
            auto& d = r.des;
            auto& p = r.real;
            p.steps = 40;
            p.problem.features = 4096;
            p.problem.samples_per_worker = 256;
            c->add_flag("--json", f.ps_sim_json, "print one JSON object instead of the table");
            c->add_option("--real", r.real_nodes, "run N node processes on loopback instead of the simulation")->check(CLI::Range(3, 32));
            c->add_option("--nodes", d.nodes, "nodes of the simulation (default 2048)")->check(CLI::Range(8, 8192));
            c->add_option("--steps", d.steps, "steps of each simulated worker (default 10)")->check(CLI::Range(1, 10000));
            c->add_option("--crashes", d.crashes, "nodes the simulation kills mid-run (default 4)")->check(CLI::Range(0, 1024));
            c->add_option("--real-steps", p.steps, "steps of each real worker (default 40)")->check(CLI::Range(4, 100000));
            c->add_option("--kill", p.kill_node, "the real node killed mid-run (default 0; -1: none)")->check(CLI::Range(-1, 31));
            c->add_option("--neighbours", d.neighbours, "k of the sparse graph (default 4)")->check(CLI::Range(1, 64));
            c->add_option("--heartbeat-ms", d.heartbeat_ms, "heartbeat interval (default 10)")->check(CLI::Range(0.1, 10000.0));
            c->add_option("--rack-size", d.layout.rack_size, "nodes per rack of the RTT layout (default 4)")->check(CLI::Range(1, 1024));
            c->add_option("--near-us", d.layout.near_us, "RTT inside a rack (default 5000)")->check(CLI::Range(1.0, 1e7));
            c->add_option("--mid-us", d.layout.mid_us, "RTT inside a pod (default 10000)")->check(CLI::Range(1.0, 1e7));
            c->add_option("--far-us", d.layout.far_us, "RTT between pods (default 25000)")->check(CLI::Range(1.0, 1e7));
            c->add_option("--latency-from", r.latency_from, "RTTs from path probes: each pair's median, first N hosts by name");
            c->add_option("--seed", d.seed, "crashes and jitter (default 1)");
          },
          [&f] {
            app::PsSimRequest& r = f.ps_sim;
            r.real.neighbours = r.des.neighbours;
            r.real.heartbeat_ms = r.des.heartbeat_ms;
            r.des.layout.seed = r.des.seed;
            auto o = app::RunPsSim(r);
            if (!o.ok()) return Fail(o.error());
            std::fputs((f.ps_sim_json ? o->json : o->table).c_str(), stdout);
            return int{kOk};
          }};
}

// serve: the analysis over HTTP (/metrics, /api/result, /api/hosts/<host>), re-analysed on change.
Command ServeCommand(Flags& f) {
  return {"serve", "serve the analysis over HTTP: Prometheus /metrics, /api/result, /api/hosts/<host>; re-analyse on change",
          [&f](CLI::App* c) {
            AddAnalyzeFlags(c, f.serve, false);
            c->add_option("--out", f.serve.out, "write DIR/result.json (and the other outputs) at every analysis");
            c->add_option("--listen", f.serve_request.listen, "HOST:PORT to listen on (default 127.0.0.1:9400; port 0: any free one)");
            c->add_option("--poll-s", f.serve_request.poll_s, "check the inputs for changes every N seconds (default 5; 0: never)")
                ->check(CLI::Range(0.0, 86400.0));
            c->add_option("--threads", f.serve_request.threads, "request worker threads, one per open connection (default 16)")->check(CLI::Range(1, 256));
          },
          [&f] {
            f.serve.quiet = true;  // no progress lines
            auto req = RequestOf(f.serve);
            if (!req.ok()) return Fail(req.error());
            f.serve_request.analyze = std::move(*req);
            const toposcope::Status st = app::RunServe(f.serve_request, stdout);
            return st.ok() ? int{kOk} : Fail(st.error());
          }};
}

// analyze: the whole analysis; the summary, result.json or the findings as CSV on stdout.
Command AnalyzeCommand(Flags& f) {
  return {"analyze", "read inputs, reconstruct the topology, write result.json",
          [&f](CLI::App* c) {
            AddAnalyzeFlags(c, f.analyze, true);
            c->add_option("--format", f.analyze.format, "what stdout gets: text (the summary), json (result.json), "
                          "csv (one row per finding: kind,severity,host,where,detail)")
                ->check(CLI::IsMember({"text", "json", "csv"}));
            c->add_option("--dot", f.analyze.dot, "write Graphviz graphs: DIR/fabric.dot (switches, hosts, cables) "
                          "and DIR/<host>.dot (its GPU links)");
          },
          [&f] { return RunAnalyzeCommand(f.analyze, f.analyze.timeline); }};
}

int RunTopoCommand(const AnalyzeFlags& f, const std::string& host) {
  auto a = Analyze(f, false);
  if (!a.ok()) return Fail(a.error());
  if (!a->any_input_read) return Verdict(f, *a);
  toposcope::Result<std::string> text = report::TopoMatrixText(a->result, host);
  if (!text.ok()) return Fail(text.error());
  std::fputs(text->c_str(), stdout);
  return Verdict(f, *a);
}

// topo: one host's reconstructed GPU links as an nvidia-smi topo -m style matrix.
Command TopoCommand(Flags& f) {
  return {"topo", "one host's GPU links as reconstructed, as an nvidia-smi topo -m matrix (degraded marked *)",
          [&f](CLI::App* c) {
            c->add_option("host", f.topo_host, "the host whose GPUs to draw")->required();
            AddAnalyzeFlags(c, f.topo, false);
            f.topo.only = {"links", "islands"};
          },
          [&f] { return RunTopoCommand(f.topo, f.topo_host); }};
}

// report: the self-contained HTML report of a result.json (report/html).
Command ReportCommand(Flags& f) {
  return {"report", "write the self-contained HTML report of a result.json (fabric, GPUs, rings, clocks, findings, ...)",
          [&f](CLI::App* c) {
            c->add_option("result", f.report_result, "result.json written by analyze")->required();
            c->add_option("-o,--out", f.report_out, "the HTML file to write (default report.html)");
          },
          [&f] {
            const toposcope::Status st = report::html::WriteHtmlReportFile(f.report_result, f.report_out);
            if (!st.ok()) return Fail(st.error());
            std::printf("wrote %s\n", f.report_out.c_str());
            return int{kOk};
          }};
}

// simulate: a cluster in real formats; with --serve-exporter its DCGM samples served over HTTP.
Command SimulateCommand(Flags& f) {
  return {"simulate", "generate a cluster with known topology in real formats (--serve-exporter: serve its DCGM "
          "samples as dcgm-exporter would)",
          [&f](CLI::App* c) {
            AddSimulateFlags(c, f.sim, f.sim_arch, f.sim_out, f.sim_naming);
            CLI::Option* serve = c->add_flag("--serve-exporter", f.sim_serve_exporter, "then serve the hosts' DCGM "
                                             "samples on /metrics as dcgm-exporter would, stepping through the run, "
                                             "until Ctrl-C (docs/serve.md)");
            c->add_option("--listen", f.exporter.listen, "with --serve-exporter: HOST:PORT (default 127.0.0.1:9401; "
                          "port 0: any free one)")->needs(serve);
            c->add_option("--samples-per-scrape", f.exporter.samples_per_scrape, "with --serve-exporter: move N "
                          "sampling periods per scrape (default 0: in step with the wall clock)")
                ->check(CLI::Range(0, 1000000))->needs(serve);
            c->add_option("--compress", f.sim_compress, "none, or zst: write every file zstd-compressed as NAME.zst "
                          "(the readers decompress it; traces already .gz stay as they are)")
                ->check(CLI::IsMember({"none", "zst"}));
            c->add_option("--zstd-level", f.sim_zstd_level, "with --compress zst: the zstd level (default 3)")
                ->check(CLI::Range(1, 19));
            c->add_option("--telemetry-volume", f.sim_volume, "telemetry per host: full (a 60 s DCGM/job window, 30 "
                          "traced iterations, 240 s of clock logs), compact (12 s, 6 on every 32nd host, 60 s: about 1 MB per host), or auto "
                          "(full up to 512 hosts, compact above; the default). docs/scale.md")
                ->check(CLI::IsMember({"auto", "full", "compact"}));
            c->add_flag("--quiet", f.sim_quiet, "no progress line on a terminal");
          },
          [&f] {
            const std::optional<toposcope::sim::Arch> arch = toposcope::sim::ParseArch(f.sim_arch);
            if (!arch) return Fail(UnknownValue("--arch", f.sim_arch));
            f.sim.arch = *arch;
            const auto naming = f.sim_naming == "seed" ? toposcope::sim::NameStyleOfSeed(f.sim.seed)
                                                       : toposcope::sim::ParseNameStyle(f.sim_naming);
            if (!naming) return Fail(UnknownValue("--naming", f.sim_naming));
            f.sim.naming = *naming;
            f.sim = toposcope::sim::WithTelemetryVolume(
                f.sim, toposcope::sim::ParseTelemetryVolume(f.sim_volume).value_or(toposcope::sim::TelemetryVolume::kAuto));
            if (f.sim_serve_exporter) {
              const toposcope::Status st = app::RunSimulateExporter(f.sim, f.sim_out, f.exporter, stdout);
              return st.ok() ? int{kOk} : Fail(st.error());
            }
            toposcope::sim::SimWriteOptions write;
            write.compression = f.sim_compress == "zst" ? toposcope::OutputCompression::kZstd : toposcope::OutputCompression::kNone;
            write.zstd_level = f.sim_zstd_level;
            std::optional<toposcope::cli::ProgressLine> line;
            if (isatty(STDERR_FILENO) && !f.sim_quiet) {
              line.emplace(stderr);
              write.progress = [&line](const toposcope::sim::SimProgress& p) { line->OnSimulate(p); };
            }
            auto s = app::RunSimulate(f.sim, f.sim_out, write);
            line.reset();
            if (!s.ok()) return Fail(s.error());
            std::fputs(toposcope::sim::SimSummaryText(*s).c_str(), stdout);
            return int{kOk};
          }};
}

int RunPassesCommand() {
  std::fputs(report::PassListText().c_str(), stdout);
  return kOk;
}

std::vector<Command> Commands(Flags& f) {
  return {
      AnalyzeCommand(f),
      {"align", "fit clock models, merge every event onto the global axis, write timeline.json",
       [&f](CLI::App* c) {
         AddAnalyzeFlags(c, f.align, true);
         c->get_option("--out")->required();
       },
       [&f] { return RunAnalyzeCommand(f.align, true); }},
      {"links", "only the link types and degraded links, as JSON",
       [&f](CLI::App* c) { AddAnalyzeFlags(c, f.answer, false); },
       [&f] { return RunAnswerCommand(f.answer, [](const auto& r) { return report::ResultSectionsText(r, {"links"}); }); }},
      {"islands", "only the GPU islands, as JSON", [&f](CLI::App* c) { AddAnalyzeFlags(c, f.answer, false); },
       [&f] {
         return RunAnswerCommand(f.answer, [](const auto& r) { return report::ResultSectionsText(r, {"gpus", "islands"}); });
       }},
      {"identify", "name the cluster's architecture (fat-tree, dragonfly, HHRE) with its evidence",
       [&f](CLI::App* c) {
         AddAnalyzeFlags(c, f.answer, false);
         c->add_flag("--json", f.identify_json, "print result.json's architecture object");
       },
       [&f] {
         const bool json = f.identify_json;
         return RunAnswerCommand(
             f.answer,
             [json](const auto& r) { return json ? report::ArchitectureJsonText(r) : report::ArchitectureText(r); }, true);
       }},
      TopoCommand(f),
      ExplainCommand(f),
      EvaluateHypothesesCommand(f),
      TrainBarrierCommand(f),
      BarrierSimCommand(f),
      PsSimCommand(f),
      ServeCommand(f),
      {"compare-architectures", "simulate fat-tree, dragonfly and HHRE of equal size; measure them side by side",
       [&f](CLI::App* c) {
         c->add_option("--hosts", f.compare_hosts, "hosts of each cluster")->check(CLI::Range(2, 512));
         c->add_option("--seed", f.compare_seed, "random seed");
         c->add_flag("!--no-fabric-faults", f.compare_faults, "no congested switch, degraded/flapping link, detour or slow host");
       },
       [&f] {
         toposcope::experiments::ArchitectureCompareOptions co;
         co.fabric_faults = f.compare_faults;
         auto c = toposcope::experiments::CompareArchitectures(f.compare_hosts, f.compare_seed, co);
         if (!c.ok()) return Fail(c.error());
         std::fputs(c->table.c_str(), stdout);
         return int{kOk};
       }},
      SimulateCommand(f),
      ReportCommand(f),
      {"score", "score a result against the simulator's truth",
       [&f](CLI::App* c) {
         c->add_option("--truth", f.truth, "truth.json written by simulate")->required();
         c->add_option("--result", f.result, "result.json written by analyze")->required();
       },
       [&f] {
         auto s = report::ScoreFiles(f.truth, f.result);
         if (!s.ok()) return Fail(s.error());
         std::fputs(report::DumpSchemaFirst(*s).c_str(), stdout);
         return int{kOk};
       }},
      {"demo", "simulate the default cluster, analyse it, score it",
       [&f](CLI::App* c) {
         c->add_option("--out", f.demo.out, "output directory");
         c->add_option("--seed", f.demo.seed, "random seed");
         c->add_option("--hosts", f.demo.hosts, "number of hosts")->check(CLI::Range(1, 100000));
         c->add_flag("--vary,!--no-vary", f.demo.vary, "draw the cluster from the seed as simulate does (default: the fixed cluster that shows every analysis)");
       },
       [&f] {
         const toposcope::Status st = app::RunDemo(f.demo, stdout);
         return st.ok() ? int{kOk} : Fail(st.error());
       }},
      {"anonymize", "copy a dataset with every host, switch and capture renamed (DIR/rename_map.json)",
       [&f](CLI::App* c) {
         c->add_option("dataset", f.anonymize.dataset, "the dataset's directory")->required();
         c->add_option("--out", f.anonymize.out, "output directory")->required();
         c->add_option("--seed", f.anonymize.options.seed, "random seed (chooses the naming style too)");
         c->add_flag("--blank-jobs", f.anonymize.options.blank_jobs, "blank every job column");
       },
       [&f] {
         auto s = app::RunAnonymize(f.anonymize);
         if (!s.ok()) return Fail(s.error());
         std::fputs(app::AnonymizeSummaryText(*s, f.anonymize).c_str(), stdout);
         return int{kOk};
       }},
      {"find-slow-nodes", "plan nccl-tests runs over host subsets that find the slow nodes; read their results",
       [&f](CLI::App* c) {
         app::FindSlowNodesRequest& r = f.find_slow;
         c->add_option("--hosts", r.hosts_file, "the hosts to search, one a line");
         c->add_option("--from", r.from, "datasets whose analysis sets the priors (stragglers, degraded links, ...)");
         c->add_option("--results", r.results_dir, "DIR: writes plan-NNN.sh, reads result-NNN.txt (run again after)");
         c->add_flag("--simulate", r.simulate, "answer the runs from the simulator (real nccl-tests output)");
         c->add_option("--hosts-count", r.hosts_count, "--simulate without --hosts: node0001..")->check(CLI::Range(2, 100000));
         c->add_option("--slow", r.slow, "--simulate: slow nodes to hide")->check(CLI::Range(0, 100000));
         c->add_option("--seed", r.seed, "--simulate: random seed");
         c->add_option("--hinted", r.hinted, "--simulate: slow nodes passive evidence names")->check(CLI::Range(0, 100000));
         c->add_option("--launcher", r.launcher, "mpirun (default) or srun")->check(CLI::IsMember({"mpirun", "srun"}));
         c->add_option("--nccl-tests", r.binary, "the all_reduce_perf binary (default: on PATH)");
         c->add_option("--gpus-per-host", r.gpus_per_host, "ranks per host (default 8)")->check(CLI::Range(1, 64));
         c->add_flag("--json", f.find_slow_json, "print the answer, pending runs and run log as JSON");
       },
       [&f] {
         auto o = app::RunFindSlowNodes(f.find_slow);
         if (!o.ok()) return Fail(o.error());
         std::fputs((f.find_slow_json ? app::FindSlowNodesJson(*o, f.find_slow)
                                      : app::FindSlowNodesText(*o, f.find_slow)).c_str(), stdout);
         return int{kOk};
       }},
      {"plan-ring", "plan the ring rank order from the topology: hostfiles, NCCL graph file, before/after",
       [&f](CLI::App* c) {
         app::PlanRingRequest& r = f.plan_ring;
         c->add_option("paths", r.paths, "files and directories to read (ibnetdiscover, probes, node topology)");
         c->add_option("--out", r.out, "write DIR/hostfile, slurm_hostfile, torchrun_hosts, nccl_graph.xml, ring_plan.json")
             ->required();
         c->add_option("--hosts", r.hosts_file, "the job's hostfile as written (the default order); else host names sorted");
         c->add_option("--channels", r.nchannels, "rings in the NCCL graph file (default 2)")->check(CLI::Range(1, 64));
         c->add_option("--slots", r.options.default_slots, "ranks of a host whose GPUs the inputs do not list (default 8)")
             ->check(CLI::Range(1, 1024));
         c->add_option("--message-mib", f.plan_ring_mib, "AllReduce size of the simulated time (default 1024 MiB)")
             ->check(CLI::Range(0.001, 1e9));
       },
       [&f] {
         f.plan_ring.options.message_bytes = f.plan_ring_mib * (1 << 20);
         auto o = app::RunPlanRing(f.plan_ring);
         if (!o.ok()) return Fail(o.error());
         std::fputs(app::RingPlanText(*o).c_str(), stdout);
         return int{kOk};
       }},
      {"probe", "measure on this machine's GPUs (probe p2p: the P2P bandwidth and latency matrices)",
       [&f](CLI::App* c) { AddProbeFlags(c, f); }, [&f] { return RunProbeCommand(f); }},
      {"collect", "sample every GPU through NVML at 10 Hz into dcgmi dmon text, until Ctrl-C",
       [&f](CLI::App* c) { AddCollectFlags(c, f); }, [&f] { return RunCollectCommand(f); }},
      {"schedule", "EADPS: replay per-link entropy and decide when to move the ring off a segment (or --follow stdin)",
       [&f](CLI::App* c) { AddScheduleCommandFlags(c, f); }, [&f] { return RunScheduleCommandOf(f); }},
      {"passes", "list the analysis passes, what each needs and produces", [](CLI::App*) {}, RunPassesCommand},
  };
}

constexpr const char* kExitCodesHelp =
    "Exit codes: 0 ok, 1 records rejected (--strict), 2 usage (unknown subcommand or flag, bad value),\n"
    "  3 unreadable input, 4 internal error, 5 an output cannot be written (docs/cli.md).\n";

// The footer of a subcommand's --help: a few examples, then the exit codes.
std::string HelpFooter(std::string_view name) {
  static const std::vector<std::pair<std::string_view, std::string_view>> kExamples = {
      {"analyze", "toposcope analyze data/ --out out/\n  toposcope analyze data/ --format json > result.json\n"
                  "  toposcope analyze data/ --format csv --quiet > findings.csv\n  toposcope analyze data/ --dot graphs/\n"
                  "  toposcope analyze --prometheus http://127.0.0.1:9090 --range 2026-12-05T11:00:00Z,2026-12-05T11:10:00Z "
                  "--step 1 --out out/"},
      {"align", "toposcope align data/ --out out/        # out/timeline.json: open in ui.perfetto.dev"},
      {"links", "toposcope links data/\n  toposcope links node07/ --host node07 --thresholds seed"},
      {"islands", "toposcope islands data/"},
      {"identify", "toposcope identify data/\n  toposcope identify data/ --json"},
      {"topo", "toposcope topo node07 data/\n  toposcope topo dgx-a100 nvidia-smi-topo.txt p2p.txt --host dgx-a100"},
      {"explain", "toposcope explain data/\n  toposcope explain data/ --symptoms 2 --format json"},
      {"evaluate-hypotheses", "toposcope evaluate-hypotheses --seeds 2 --hosts 16"},
      {"compare-architectures", "toposcope compare-architectures --hosts 32 --seed 3"},
      {"simulate", "toposcope simulate --hosts 16 --seed 7 --out sim/\n  toposcope simulate --arch dragonfly --out sim/\n"
                   "  toposcope simulate --hosts 4 --out sim/ --serve-exporter --listen 127.0.0.1:9401   # scraped by Prometheus"},
      {"score", "toposcope score --truth sim/truth.json --result out/result.json"},
      {"demo", "toposcope demo --out demo/        # then open demo/report.html"},
      {"serve", "toposcope serve data/ --out out/\n  toposcope serve data/ --listen 0.0.0.0:9400 --poll-s 30   # scraped by Prometheus"},
      {"report", "toposcope report out/result.json -o report.html"},
      {"anonymize", "toposcope anonymize data/ --out shared/ --blank-jobs"},
      {"find-slow-nodes", "toposcope find-slow-nodes --hosts hosts.txt --from data/ --results runs/\n"
                          "  toposcope find-slow-nodes --simulate --hosts-count 64 --slow 2"},
      {"plan-ring", "toposcope plan-ring data/ --out ring/ --hosts hostfile"},
      {"probe", "toposcope probe p2p --out data/\n  toposcope probe p2p --size-mib 64 --devices 0,1"},
      {"collect", "toposcope collect --duration 60 --out node07/dmon.txt"},
      {"schedule", "toposcope schedule data/ --out sched/\n  toposcope schedule --simulate --seeds 1,2 --events congestion"},
      {"train-barrier", "toposcope train-barrier --out barrier/\n  toposcope train-barrier --latency-from sim/ --workers 6"},
      {"barrier-sim", "toposcope barrier-sim --steps 50\n  toposcope barrier-sim --real 4 --json"},
      {"ps-sim", "toposcope ps-sim --nodes 4096\n  toposcope ps-sim --real 6 --json"},
      {"passes", "toposcope passes"},
  };
  std::string out;
  for (const auto& [n, text] : kExamples) {
    if (n == name) out = "Examples:\n  " + std::string(text) + "\n\n";
  }
  return out + kExitCodesHelp;
}

// Leaves out of --help the captured defaults that say nothing: an empty list, and -1 (unset: the
// option's text says what is used instead); in `app` and its subcommands.
void TidyDefaults(CLI::App* app) {
  for (CLI::Option* o : app->get_options()) {
    const std::string d = o->get_default_str();
    if (d == "[]" || d == "-1") o->default_str("");
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) TidyDefaults(sub);
}

// The usage error of a first word that names no subcommand (a typo gets the nearest name); nullopt
// when argv names a subcommand or starts with a flag (CLI11 judges those).
std::optional<int> UnknownSubcommand(int argc, char** argv, const std::vector<Command>& commands) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string typed = argv[1];
  std::vector<std::string> names;
  for (const Command& c : commands) {
    if (typed == c.name) return std::nullopt;
    names.emplace_back(c.name);
  }
  const std::string near = toposcope::ClosestName(typed, names);
  std::fprintf(stderr, "toposcope: unknown subcommand '%s'%s\n", typed.c_str(),
               near.empty() ? "" : (" (did you mean '" + near + "'?)").c_str());
  std::fprintf(stderr, "Run with --help for the list of subcommands.\n");
  return kUsage;
}

// The output directory of the chosen subcommand made ready before it runs (every `--out` but
// collect's and report's, which name a file): a path that cannot take outputs fails at once, with the path and
// the reason, rather than after the analysis.
std::optional<int> CheckOutDir(const CLI::App* sub) {
  if (sub->get_name() == "collect" || sub->get_name() == "report") return std::nullopt;
  const CLI::Option* out = nullptr;
  try {
    out = sub->get_option_no_throw("--out");
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (out == nullptr || out->count() == 0) return std::nullopt;
  const toposcope::Status st = toposcope::PrepareOutputDir(out->as<std::string>());
  if (!st.ok()) return Fail(st.error());
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  toposcope::app::TuneMalloc(argv);
  CLI::App cli{"toposcope: reconstructs a GPU cluster's communication topology from its telemetry"};
  cli.require_subcommand(1);
  cli.set_version_flag("--version", "toposcope 0.1.0");
  cli.option_defaults()->always_capture_default();  // --help shows each option's default
  cli.footer(kExitCodesHelp);
  Flags flags;
  const std::vector<Command> commands = Commands(flags);
  std::vector<CLI::App*> subs;
  for (const Command& c : commands) {
    subs.push_back(cli.add_subcommand(c.name, c.help));
    c.setup(subs.back());
    subs.back()->footer(HelpFooter(c.name));
    TidyDefaults(subs.back());
  }
  if (const std::optional<int> rc = UnknownSubcommand(argc, argv, commands)) return *rc;
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? kOk : kUsage;
  }
  try {
    for (size_t i = 0; i < commands.size(); ++i) {
      if (!*subs[i]) continue;
      if (const std::optional<int> rc = CheckOutDir(subs[i])) return *rc;
      return commands[i].run();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toposcope: internal error: %s\n", e.what());
    return kInternal;
  }
  return kUsage;
}
