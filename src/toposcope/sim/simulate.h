// sim/simulate: the simulator's entry point. Builds a cluster of known topology from the options
// (sim/cluster.h), renders every host's telemetry in the real tools' formats plus truth.json
// (sim/writers.h) and writes them under an output directory:
//   OUT/<host>/nvidia-smi-topo.txt, OUT/<host>/nccl-topo.xml,
//   OUT/<host>/nvbandwidth.txt or OUT/<host>/p2pBandwidthLatencyTest.txt (alternating hosts),
//   OUT/truth.json (read only by the scorer);
// with SimOptions::with_telemetry also every host's clock-sync logs, DCGM samples, per-rank traces
// and NCCL Inspector records (sim/telemetry.h lists them).
// With SimOptions::fabric_ibnet_path or fabric_topograph_path set, the cluster is a real fabric
// instead (sim/fabric_import.h): only the fabric files (per host directory probes.csv and
// qp-states.csv, fabric.ibnet) and truth.json are written; arch "imported".
// The same options (seed included) give byte-identical output.
// The dataset is streamed: each host's files are rendered, written and freed before the next host's
// (sim/writers.h RenderClusterTo), truth.json is written section by section, and with
// SimWriteOptions::compression every file is written zstd-compressed under its name + ".zst" (a
// file the simulator gzips itself, *.gz, stays as it is).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/output_file.h"
#include "toposcope/base/result.h"
#include "toposcope/sim/cluster.h"

namespace toposcope::sim {

struct SimHostSummary {
  std::string name;                // "node001"
  std::string node_type;           // "h100-nvswitch"
  std::string leaf;                // fabric switch the host attaches to (imported fabrics: the
                                   // switches of the host's adapters, comma-joined)
  std::vector<std::string> files;  // relative to the output directory
};

struct SimFaultSummary {
  NodeFaultKind kind = NodeFaultKind::kNvlinkLanesDown;
  std::string host;
  std::vector<std::string> gpus;  // "node003/gpu5"
  std::string detail;             // "9 of 18 lanes down"
};

struct SimSummary {
  std::string out_dir;
  Arch arch = Arch::kFatTree;
  uint64_t seed = 0;
  std::vector<SimHostSummary> hosts;
  std::vector<SimFaultSummary> faults;  // as injected (may be fewer than requested)
  int faults_requested = 0;
  std::string truth_path;  // OUT/truth.json (OUT/truth.json.zst compressed)
  int files_written = 0;   // truth.json included
  int64_t bytes_written = 0;  // on disk (compressed when compressed)
  int64_t bytes_rendered = 0; // before compression
  // With SimOptions::vary: the resolved variation (sim/variation.h VariationSummary) and the names
  // of the options drawn from the seed (the others were given).
  std::vector<std::pair<std::string, std::string>> variation;
  std::vector<std::string> drawn_options;
};

// How far a simulation has got: hosts whose own files are written, of all hosts; files and bytes
// (on disk) written so far.
struct SimProgress {
  int hosts_done = 0;
  int hosts_total = 0;
  int64_t files_written = 0;
  int64_t bytes_written = 0;
};

// How the dataset is written: plain or zstd (level 1..19), and who hears of the progress (after each
// host; may be empty).
struct SimWriteOptions {
  OutputCompression compression = OutputCompression::kNone;
  int zstd_level = 3;
  std::function<void(const SimProgress&)> progress;
};

// The name a file of the dataset is stored under: `path`, + ".zst" when compressed (except a file
// the simulator gzipped itself, "*.gz"). Never fails.
std::string StoredFileName(const std::string& path, OutputCompression compression);

// Simulates and writes the dataset into `out_dir` (created if missing; existing files of the same
// names are overwritten, others left alone); with options.vary, resolves the variation first
// (sim/variation.h ResolveVariation). Returns what was written. Fails with
// ErrorKind::kUsage on an empty `out_dir` or invalid options (see ValidateVariation, BuildCluster,
// ValidateTelemetryOptions, ValidateRdmaOptions and ValidateFabricOptions: RDMA on more than
// kMaxRdmaHosts hosts or the fabric on more than kMaxFabricHosts is an error, see
// WithScaleLimits), on an import that fails (sim/fabric_import.h; an unreadable or unusable fabric
// file is kInput), and with kOutput when a file cannot be written (the Error names it). Each host's `files`
// lists its topology files first, then its telemetry, RDMA and fabric files.
Result<SimSummary> Simulate(const SimOptions& options, const std::string& out_dir);
// The same, written as `write` says (compressed, with progress).
Result<SimSummary> Simulate(const SimOptions& options, const std::string& out_dir, const SimWriteOptions& write);

// The simulator's scale limits, applied in one place: returns `options` with with_rdma cleared
// when there are more than kMaxRdmaHosts hosts (sim/rdma_traffic.h) and with_fabric cleared when
// there are more than kMaxFabricHosts (sim/fabric_sim.h); everything else as given. Never fails.
// Simulate does not apply it (it rejects such options); a caller that wants those parts dropped
// for large clusters instead (the CLI) passes its options through this first.
SimOptions WithScaleLimits(SimOptions options);

// The text printed after simulating: host count, arch, seed, files written and where, the hosts
// per node type, the injected faults (with their GPUs and detail), the variation (with vary: each
// value, "(drawn)" when the seed chose it) and where the ground truth is;
// every line ends in '\n'. Never fails.
std::string SimSummaryText(const SimSummary& s);

}  // namespace toposcope::sim
