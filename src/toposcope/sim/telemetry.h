// sim/telemetry: the simulator's second part. On top of a cluster (sim/cluster.h) it simulates
// every host's clock (sim/clocks.h) and a training job with its DCGM physics (sim/traffic.h),
// injects the telemetry faults, and renders what the hosts would have logged, each in its real
// format through the formats/ writers, every timestamp on the host's OWN clock:
//
//   <host>/chrony-tracking.log       NTP-grade hosts: chronyd tracking.log
//   <host>/ptp4l.log                 PTP-grade hosts: ptp4l servo samples as `journalctl -o
//                                    short-iso-precise` prints them (realtime + monotonic prefix)
//   <host>/sync-pairs.csv            hosts i % 4 == 1: our sync CSV (docs/sync_csv.md)
//   <host>/dcgm-dmon.txt             `dcgmi dmon -d <period> -e <fields>` piped through moreutils
//                                    `ts "%Y-%m-%dT%H:%M:%.SZ"`-style ISO prefixes (most hosts)
//   <host>/dcgm-exporter.prom        dcgm-exporter scrapes with timestamps (hosts i % 8 == 3 with a
//                                    `Hostname` label, i % 8 == 6 with `hostname`)
//   <host>/dcgm-samples.csv          long-form CSV `ts,host,gpu,field,value` (hosts i % 8 == 5)
//   <host>/train-events.jsonl       hosts i % 4 == 3: the training loop's step-end events in our
//                                    JSONL event format (docs/event_jsonl.md), one per rank and step
//   <host>/trace/rank<R>.pt.trace.json[.gz]   Kineto-like trace per rank (gzip for GPUs 1 and 5)
//   <host>/nccl-inspector/<host>-pid<P>.log   NCCL Inspector JSON lines per rank (verbose
//                                    event_trace records on odd hosts)
//
// Per host (index i): PTP-grade clock when (i + i/4) is even, else NTP-grade; DCGM period
// `slow_dcgm_period_ms` on hosts i % 8 == 2 and 6, else `dcgm_period_ms`. dmon fields: 1011 1012
// 1009 1010 150 155 203 1002 409 429 and, on NVLink hosts, the per-link RX fields 1041, 1043, ...
// (one per NVLink link); exporter and CSV carry the ten per-GPU fields. Throughput and activity
// values carry the options' alpha-stable relative noise (factor floored at 0.05, activity clamped
// to its range); temperature is the model + N(0, 0.3 C), rounded; power the model x (1 + N(0,1 %)).
// Sample k of a host is the average over the period ending at true time t_k (temperature: the
// value at t_k), stamped with the host's clock at t_k + U(0, 1) ms (print latency).
//
// Faults (with SimOptions::telemetry_faults): thermal_link_downspeed on one NVLink GPU of a dmon
// host sampled at the fast period, straggler on one GPU of another host (compute x U(1.25, 1.4)
// from 40 % of the job window on), clock_step on a third host (see sim/clocks.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/sim/clocks.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/traffic.h"
#include "toposcope/sim/writers.h"

namespace toposcope::sim {

inline constexpr const char* kChronyFile = "chrony-tracking.log";
inline constexpr const char* kPtpFile = "ptp4l.log";
inline constexpr const char* kSyncCsvFile = "sync-pairs.csv";
inline constexpr const char* kDmonFile = "dcgm-dmon.txt";
inline constexpr const char* kExporterFile = "dcgm-exporter.prom";
inline constexpr const char* kDcgmCsvFile = "dcgm-samples.csv";
inline constexpr const char* kEventsFile = "train-events.jsonl";

enum class DcgmOutput { kDmon, kExporter, kCsv };

// How one host's telemetry is produced and written (a pure function of the host index).
struct HostTelemetryPlan {
  ClockDiscipline discipline = ClockDiscipline::kNtp;
  DcgmOutput dcgm = DcgmOutput::kDmon;
  std::string host_label;  // exporter hosts: "Hostname" or "hostname"
  int period_ms = 100;
  bool sync_csv = false;
  bool inspector_verbose = false;
  bool events_jsonl = false;
};
// Returns host `host_index`'s plan (the file comment's per-host rules; the periods from `options`).
// Never fails.
HostTelemetryPlan PlanHostTelemetry(const SimOptions& options, int host_index);

// An injected telemetry fault (in the order of the names, as faults sort by host, then kind).
// Named "clock_step", "straggler", "thermal_link_downspeed".
enum class TelemetryFaultKind { kClockStep, kStraggler, kThermalLinkDownspeed };
// Its name (one of those above).
std::string_view TelemetryFaultKindName(TelemetryFaultKind k);

struct TelemetryFault {
  TelemetryFaultKind kind = TelemetryFaultKind::kClockStep;
  int host = -1;
  int gpu = -1;          // -1 for clock_step
  int link = -1;         // thermal_link_downspeed only
  int64_t start_ns = 0;  // true time
  int64_t end_ns = 0;
  std::string detail;
};

struct ClockCheck {
  int host = 0;
  int64_t local_ns = 0;
  int64_t global_ns = 0;
};

// Everything simulated, before rendering.
struct Telemetry {
  int64_t epoch_ns = 0;  // run start (true time)
  int64_t end_ns = 0;    // run end
  int64_t job_start_ns = 0;
  int64_t job_end_ns = 0;
  std::vector<HostTelemetryPlan> plans;  // per host
  std::vector<HostClock> clocks;         // per host
  JobPlan job;
  DcgmGrid grid;                           // base grid (the fast period)
  std::vector<DcgmCounterStart> dcgm_start;  // per rank: its NVLink counters before the window
  std::vector<DcgmBin> thermal_bins;         // the thermal fault GPU's bins (empty without it)
  ThermalFault thermal;
  int straggler_rank = -1;
  std::vector<TelemetryFault> faults;
  int trace_first_iteration = 0;  // traced iterations [first, last)
  int trace_last_iteration = 0;
  std::vector<int64_t> rank_pid;  // training process id per rank
};

// Checks the telemetry options (ranges, slow period a multiple of the fast one, a job plan of at
// most kMaxJobPlanBytes: hosts x 8 GPUs x 5 ops per iteration of the telemetry window). Returns ok, or fails (kUsage) with the first option out of its range (the
// Error says which and the range). Always ok when with_telemetry is false.
Status ValidateTelemetryOptions(const SimOptions& options);

// How much telemetry each host writes (SimOptions::telemetry_s, trace_iterations, duration_s; the
// per-host volumes are measured in docs/scale.md):
//   full     the options as given (defaults: a 60 s job / DCGM window, 30 traced iterations, a
//            240 s run of clock logs);
//   compact  a 12 s window, 6 traced iterations on every 32nd host (and the telemetry faults'
//            hosts), a 60 s run. (A trace's distributedInfo lists every rank of the job, as
//            PyTorch writes it: at 100,000 ranks each trace file is ~0.7 MB whatever its length,
//            so traces on every host would be O(hosts^2) bytes.)
//   auto     full up to kFullTelemetryMaxHosts hosts, compact above (the default of `simulate`).
enum class TelemetryVolume { kAuto, kFull, kCompact };
inline constexpr int kFullTelemetryMaxHosts = 512;
// "auto", "full", "compact"; nullopt for anything else.
std::optional<TelemetryVolume> ParseTelemetryVolume(std::string_view name);
// Returns `options` with `volume` applied (see TelemetryVolume). Never fails.
SimOptions WithTelemetryVolume(SimOptions options, TelemetryVolume volume);

// Simulates clocks, the job and its faults and returns them: what is cluster-wide (per-host plans
// and clocks, the job plan, the faults, each rank's DCGM counter start and the thermal fault GPU's
// bins); each host's DCGM bins are computed when the host is rendered (RankDcgmBins). Never fails;
// the options must be valid (ValidateTelemetryOptions).
Telemetry SimulateTelemetry(const Cluster& cluster);

// The DCGM bins of one rank over t.grid, as ComputeDcgmBins gives them for the whole job. Never
// fails (`rank` must be one of the job's).
std::vector<DcgmBin> RankDcgmBins(const Cluster& cluster, const Telemetry& t, int rank);

// The truth-only clock check instants of one host: clock_checks_per_host random true times
// (the host's own stream), sorted, with the host clock's reading. Never fails.
std::vector<ClockCheck> HostClockChecks(const Cluster& cluster, const Telemetry& t, const HostModel& host);

// Whether host `host` writes traces and NCCL Inspector logs: a non-empty trace window, and
// SimOptions::trace_host_every dividing its index or a telemetry fault on it. Never fails.
bool HostTraced(const SimOptions& options, const Telemetry& telemetry, int host);

// The telemetry files of one host, relative to the output directory, in rendering order. Never
// fails.
std::vector<std::string> TelemetryFiles(const Cluster& cluster, const Telemetry& telemetry,
                                        const HostModel& host);

// Renders one host's telemetry files and returns them (in TelemetryFiles order); its DCGM bins are
// computed here and freed on return. Never fails.
std::vector<RenderedFile> RenderHostTelemetry(const Cluster& cluster, const Telemetry& telemetry,
                                              const HostModel& host);
// Renders every telemetry file and returns them (hosts in order, each in TelemetryFiles order).
// Never fails.
std::vector<RenderedFile> RenderTelemetry(const Cluster& cluster, const Telemetry& telemetry);

// Adds the telemetry truth's top-level members to `sections`: clocks, clock_checks,
// telemetry_faults, sampling, telemetry (run and job windows) and traffic_matrix, each written
// host by host (docs/truth_schema.md); hosts[].telemetry_files is TruthJson's. The functions
// refer to `cluster` and `telemetry`, which must outlive them. Never fails.
void AddTelemetryTruth(const Cluster& cluster, const Telemetry& telemetry, TruthSections* sections);

// Returns the gzip (RFC 1952) of `data`, deterministic (no name, mtime 0); empty if zlib fails.
std::string Gzip(std::string_view data);

}  // namespace toposcope::sim
