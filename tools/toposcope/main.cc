// toposcope: the command-line driver. Parses flags, calls the library, maps errors to exit codes
// (0 ok, 1 input rejected under --strict, 2 usage, 3 unreadable input, 4 internal).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "toposcope/analysis/time/align.h"
#include "toposcope/analysis/analyze.h"
#include "toposcope/analysis/node/links.h"
#include "toposcope/analysis/time/timeline.h"
#include "toposcope/base/file_io.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/events.h"
#include "toposcope/model/topology.h"
#include "toposcope/report/export/opensm_export.h"
#include "toposcope/report/export/slurm_export.h"
#include "toposcope/report/perfetto.h"
#include "toposcope/report/result_json.h"
#include "toposcope/report/score.h"
#include "toposcope/experiments/architecture_compare.h"
#include "toposcope/sim/simulate.h"

namespace {

using toposcope::Error;

enum ExitCode { kOk = 0, kRejected = 1, kUsage = 2, kUnreadable = 3, kInternal = 4 };

struct AnalyzeFlags {
  std::vector<std::string> paths;
  std::string out;
  std::string host;
  std::string thresholds = "modern";
  double nvlink_min_gbps = -1;
  double pcie_cpu_max_gbps = -1;
  double degraded_ratio = -1;
  double sampling_period_ms = 100;
  bool strict = false;
  bool quiet = false;
  bool align = true;  // merge event inputs into DIR/timeline.json
  bool anchors = true;  // use collective completions as implicit clock anchors
  double entropy_window_ms = 0;  // 0 = automatic from the captures' span
  bool check_icrc = false;
  std::string tomography_rtt = "min";
};

struct SimFlags {
  std::string arch = "fat-tree";
  uint64_t seed = 1;
  int hosts = 16;
  int faults = 4;
  std::vector<std::string> node_types;
  std::string out;
  bool telemetry = true;
  bool rdma = true;            // RoCE captures, NCCL logs, rdma tools output (<= 1024 hosts)
  bool fabric = true;          // switch fabric: path probes, QP state logs, ibnetdiscover dump (<= 512 hosts)
  int nccl_channels = 2;
  int qps_per_connection = 1;
  double rdma_window_ms = 20;
  std::string nccl_version;
  int probes_per_pair = 32;  // more than the library default (8): tomography needs the floor of each route
  int probe_peers = 64;
  double probe_extra_rtt_us = 0;
  bool fabric_faults = true;
  std::string fabric_ibnet, fabric_topograph;  // take the fabric from a real dump / topograph model
};

void PrintError(const Error& e) { std::fprintf(stderr, "toposcope: %s\n", e.ToString().c_str()); }

toposcope::analysis::AnalyzeOptions MakeAnalyzeOptions(const AnalyzeFlags& f) {
  toposcope::analysis::AnalyzeOptions opt;
  opt.thresholds = f.thresholds == "seed" ? toposcope::analysis::SeedThresholds()
                                          : toposcope::analysis::ModernThresholds();
  if (f.nvlink_min_gbps > 0) opt.thresholds.nvlink_min_gbps = f.nvlink_min_gbps;
  if (f.pcie_cpu_max_gbps > 0) opt.thresholds.pcie_cpu_max_gbps = f.pcie_cpu_max_gbps;
  if (f.degraded_ratio > 0) opt.thresholds.degraded_ratio = f.degraded_ratio;
  opt.confidence.path_period_ms = f.sampling_period_ms;
  opt.anchors.enabled = f.anchors;
  opt.rdma.entropy.window_ns = static_cast<int64_t>(f.entropy_window_ms * 1e6);
  opt.rdma.flows.check_icrc = f.check_icrc;
  opt.link_weights.rtt_statistic = f.tomography_rtt;
  return opt;
}

// Merges every event input onto the global axis and writes DIR/timeline.json (Perfetto).
int RunAlign(const toposcope::model::Dataset& ds, const std::string& out_dir, toposcope::analysis::AnalysisResult& r) {
  const std::string path = (std::filesystem::path(out_dir) / "timeline.json").string();
  std::filesystem::create_directories(out_dir);
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    PrintError(toposcope::MakeError(path, 0, 0, "cannot write"));
    return kUnreadable;
  }
  toposcope::report::PerfettoTimelineWriter writer(out);
  auto a = toposcope::analysis::AlignDataset(ds, r.clocks,
                                             [&](const toposcope::analysis::MergedEvent& m) { writer.Write(m); });
  if (!writer.Finish() || !a.ok()) {
    PrintError(a.ok() ? toposcope::MakeError(path, 0, 0, "write failed") : a.error());
    return kUnreadable;
  }
  r.timeline = std::move(a->timeline);
  r.timeline.trace_path = path;
  for (auto& f : a->stragglers) r.telemetry.findings.push_back(std::move(f));
  r.rejected_total += a->rejected;
  r.warnings_total += a->warnings;
  for (auto& d : a->diagnostics) r.diagnostics.push_back(std::move(d));
  return kOk;
}

// Loads and analyses; writes DIR/result.json when `out` is set. Returns an exit code.
int RunAnalyze(const AnalyzeFlags& f, toposcope::analysis::AnalysisResult* result_out = nullptr) {
  toposcope::model::LoadOptions lo;
  lo.host_override = f.host;
  auto ds = toposcope::model::LoadPaths(f.paths, lo);
  if (!ds.ok()) {
    PrintError(ds.error());
    return kUnreadable;
  }
  toposcope::analysis::AnalysisResult r = toposcope::analysis::Analyze(*ds, MakeAnalyzeOptions(f));
  if (f.align && !f.out.empty() && !ds->event_inputs.empty()) {
    if (const int code = RunAlign(*ds, f.out, r); code != kOk) return code;
  }
  if (!f.out.empty()) {
    const std::filesystem::path dir(f.out);
    const std::string topology =
        toposcope::report::DumpSchemaFirst(toposcope::model::TopologyToJson(toposcope::model::BuildTopology(*ds)));
    std::vector<std::pair<std::string, std::string>> files = {
        {"result.json", toposcope::report::ResultJsonText(r)}, {"topology.json", topology}};
    if (r.leaves_inferred && !r.inferred_leaves.leaves.empty()) {
      // Slurm topology from the inferred leaves: topology.conf (tree), topology.yaml (tree + block).
      toposcope::formats::SlurmTopology tree = toposcope::report::ToSlurmTopology(r.inferred_leaves);
      files.emplace_back("topology.conf", toposcope::formats::WriteSlurmTopologyConf(tree));
      tree.name = "inferred-tree";
      tree.cluster_default = true;
      toposcope::formats::SlurmTopology block = toposcope::report::ToSlurmBlockTopology(r.inferred_leaves);
      block.name = "inferred-block";
      files.emplace_back("topology.yaml", toposcope::formats::WriteSlurmTopologyYaml({tree, block}));
    }
    if (!r.link_weights.hop_weights.empty()) {
      files.emplace_back("opensm-hop-weights.txt",
                         toposcope::report::WriteOpenSmHopWeights(r.link_weights.hop_weights));
    }
    for (const auto& [name, text] : files) {
      if (auto st = toposcope::WriteFileText((dir / name).string(), text); !st.ok()) {
        PrintError(st.error());
        return kUnreadable;
      }
    }
  }
  if (!f.quiet) {
    std::fputs(toposcope::report::ResultSummaryText(r).c_str(), stdout);
    for (const auto& d : r.diagnostics) std::fprintf(stderr, "%s\n", d.c_str());
    if (!f.out.empty()) std::printf("wrote %s/result.json\n", f.out.c_str());
  }
  const bool any_read = std::any_of(r.inputs.begin(), r.inputs.end(), [](const auto& in) { return !in.skipped; });
  if (result_out != nullptr) *result_out = std::move(r);
  if (!any_read) {
    std::fprintf(stderr, "toposcope: no input could be read\n");
    return kUnreadable;
  }
  return kOk;
}

// The architecture, its confidence, metrics and evidence, as text.
std::string ArchitectureText(const toposcope::analysis::AnalysisResult& r) {
  if (!r.architecture_present) return "architecture: no fabric dump or path probes in the inputs\n";
  const auto& a = r.architecture;
  auto num = [](double v, int d) { return std::isfinite(v) ? fmt::format("{:.{}f}", v, d) : std::string("n/a"); };
  std::string out = fmt::format("architecture: {} (confidence {:.2f}, from the {})\n", a.arch_class, a.confidence,
                                a.graph_source);
  out += fmt::format("  avg AllReduce hops {} (ring order: {}), worst-case jitter +/-{} us, entropy stability {} "
                     "({} windows)\n",
                     num(a.avg_allreduce_hops, 2), a.ring_order, num(a.jitter_us, 2), num(a.entropy_stability, 4),
                     a.entropy_windows);
  out += "evidence:\n";
  for (const auto& e : a.evidence) out += "  - " + e + "\n";
  return out;
}

void AddAnalyzeFlags(CLI::App* cmd, AnalyzeFlags& f, bool with_out) {
  cmd->add_option("paths", f.paths, "files and directories to read (formats are detected by content)")
      ->required();
  if (with_out) cmd->add_option("--out", f.out, "write DIR/result.json");
  cmd->add_option("--host", f.host, "attribute every input to this host");
  cmd->add_option("--thresholds", f.thresholds, "bandwidth thresholds preset: modern (default) or seed (12/2 GB/s)")
      ->check(CLI::IsMember({"modern", "seed"}));
  cmd->add_option("--nvlink-min-gbps", f.nvlink_min_gbps, "bandwidth at or above which a pair is NVLink");
  cmd->add_option("--pcie-cpu-max-gbps", f.pcie_cpu_max_gbps, "bandwidth at or below which a pair is PCIe through the CPU");
  cmd->add_option("--degraded-ratio", f.degraded_ratio, "flag links measuring below this fraction of expected");
  cmd->add_option("--sampling-period-ms", f.sampling_period_ms, "sampling period for the per-path confidence bound");
  cmd->add_option("--entropy-window-ms", f.entropy_window_ms, "link entropy window (0: automatic from the captures' span)")
      ->check(CLI::Range(0.0, 3600000.0));
  cmd->add_option("--tomography-rtt", f.tomography_rtt, "RTT of a probed route for tomography: min, endpoint or median")
      ->check(CLI::IsMember({"min", "endpoint", "median"}));
  cmd->add_flag("--check-icrc", f.check_icrc, "recompute the ICRC of every RoCE packet (a bad one is a warning)");
  cmd->add_flag("!--no-anchors", f.anchors, "fit clocks on sync records only (no collective-completion anchors)");
  cmd->add_flag("--strict", f.strict, "fail (exit 1) when any record is rejected");
}

int Strictness(const AnalyzeFlags& f, const toposcope::analysis::AnalysisResult& r, int code) {
  if (code != kOk) return code;
  if (f.strict && r.rejected_total > 0) {
    std::fprintf(stderr, "toposcope: %lld records rejected (--strict)\n", static_cast<long long>(r.rejected_total));
    return kRejected;
  }
  return kOk;
}

toposcope::sim::SimOptions MakeSimOptions(const SimFlags& f) {
  toposcope::sim::SimOptions o;
  o.arch = f.arch;
  o.seed = f.seed;
  o.hosts = f.hosts;
  o.faults = f.faults;
  if (!f.node_types.empty()) o.node_types = f.node_types;
  o.with_telemetry = f.telemetry;
  o.with_rdma = f.rdma && f.hosts <= 1024;
  o.with_fabric = f.fabric && f.hosts <= 512;
  o.nccl_channels = f.nccl_channels;
  o.qps_per_connection = f.qps_per_connection;
  o.rdma_window_ms = f.rdma_window_ms;
  o.nccl_version = f.nccl_version;
  o.probes_per_pair = f.probes_per_pair;
  o.max_probe_peers = f.probe_peers;
  o.probe_extra_rtt_us = f.probe_extra_rtt_us;
  o.fabric_faults = f.fabric_faults;
  o.fabric_ibnet_path = f.fabric_ibnet;
  o.fabric_topograph_path = f.fabric_topograph;
  return o;
}

std::string SimSummaryText(const toposcope::sim::SimSummary& s) {
  std::string out = "simulated " + std::to_string(s.hosts.size()) + " hosts (" + s.arch + ", seed " +
                    std::to_string(s.seed) + "), " + std::to_string(s.files_written) + " files in " + s.out_dir + "\n";
  std::map<std::string, int> types;
  for (const auto& h : s.hosts) ++types[h.node_type];
  for (const auto& [t, n] : types) out += "  " + std::to_string(n) + " x " + t + "\n";
  out += "injected faults: " + std::to_string(s.faults.size()) + " of " + std::to_string(s.faults_requested) +
         " requested\n";
  for (const auto& f : s.faults) {
    out += "  " + f.kind + " on " + f.host + ":";
    for (const auto& g : f.gpus) out += " " + g;
    out += " (" + f.detail + ")\n";
  }
  out += "ground truth: " + s.truth_path + " (read only by `toposcope score`)\n";
  return out;
}

int RunScore(const std::string& truth, const std::string& result, nlohmann::json* out) {
  auto s = toposcope::report::ScoreFiles(truth, result);
  if (!s.ok()) {
    PrintError(s.error());
    return kUnreadable;
  }
  *out = *s;
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"toposcope: reconstructs a GPU cluster's communication topology from its telemetry"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "toposcope 0.1.0");

  AnalyzeFlags af;
  auto* analyze = app.add_subcommand("analyze", "read inputs, reconstruct the topology, write result.json");
  AddAnalyzeFlags(analyze, af, true);
  AnalyzeFlags alf;
  auto* align = app.add_subcommand("align", "fit clock models, merge every event onto the global axis, write timeline.json");
  AddAnalyzeFlags(align, alf, true);
  align->get_option("--out")->required();

  AnalyzeFlags lf;
  std::string part;
  auto* links = app.add_subcommand("links", "only the link types and degraded links, as JSON");
  AddAnalyzeFlags(links, lf, false);
  auto* islands = app.add_subcommand("islands", "only the GPU islands, as JSON");
  AddAnalyzeFlags(islands, lf, false);

  AnalyzeFlags idf;
  bool identify_json = false;
  auto* identify = app.add_subcommand("identify", "name the cluster's architecture (fat-tree, dragonfly, HHRE) with its evidence");
  AddAnalyzeFlags(identify, idf, false);
  identify->add_flag("--json", identify_json, "print result.json's architecture object");

  int cmp_hosts = 64;
  uint64_t cmp_seed = 1;
  bool cmp_faults = true;
  auto* compare = app.add_subcommand("compare-architectures",
                                     "simulate fat-tree, dragonfly and HHRE of equal size; measure them side by side");
  compare->add_option("--hosts", cmp_hosts, "hosts of each cluster")->check(CLI::Range(2, 512));
  compare->add_option("--seed", cmp_seed, "random seed");
  compare->add_flag("!--no-fabric-faults", cmp_faults, "no congested switch, degraded/flapping link, detour or slow host");

  SimFlags sf;
  auto* simulate = app.add_subcommand("simulate", "generate a cluster with known topology in real formats");
  simulate->add_option("--arch", sf.arch, "fat-tree, dragonfly or hhre")->check(CLI::IsMember({"fat-tree", "dragonfly", "hhre"}));
  simulate->add_option("--seed", sf.seed, "random seed (same seed, same bytes)");
  simulate->add_option("--hosts", sf.hosts, "number of hosts")->check(CLI::Range(1, 100000));
  simulate->add_option("--faults", sf.faults, "number of injected faults")->check(CLI::Range(0, 100000));
  simulate->add_option("--node-types", sf.node_types, "node types to cycle through (h100-nvswitch, a100-nvswitch, pcie-bridge, pcie-only)")->delimiter(',');
  simulate->add_option("--out", sf.out, "output directory")->required();
  simulate->add_flag("!--no-telemetry", sf.telemetry, "only the node topology files (no clocks, DCGM, traces)");
  simulate->add_flag("!--no-fabric", sf.fabric, "no path probes / QP state logs / ibnetdiscover dump (always off above 512 hosts)");
  simulate->add_flag("!--no-rdma", sf.rdma, "no RoCE captures / NCCL logs / rdma tool output (always off above 1024 hosts)");
  simulate->add_option("--nccl-channels", sf.nccl_channels, "NCCL channels (rings) of the simulated job")->check(CLI::Range(1, 16));
  simulate->add_option("--qps-per-connection", sf.qps_per_connection, "NCCL_IB_QPS_PER_CONNECTION")->check(CLI::Range(1, 8));
  simulate->add_option("--rdma-window-ms", sf.rdma_window_ms, "span of the packet captures")->check(CLI::Range(1.0, 1000.0));
  simulate->add_option("--probes-per-pair", sf.probes_per_pair, "path probes per ordered host pair")->check(CLI::Range(1, 1000));
  simulate->add_option("--probe-peers", sf.probe_peers, "peers each host probes (all when fewer hosts)")->check(CLI::Range(1, 100000));
  simulate->add_option("--probe-extra-rtt-us", sf.probe_extra_rtt_us, "added to every probe RTT (e.g. 250 for a kernel-TCP regime)")->check(CLI::Range(0.0, 1e6));
  simulate->add_option("--fabric-ibnet", sf.fabric_ibnet,
                       "take the fabric from an ibnetdiscover dump (probes over its real switches; --arch/--hosts ignored)")
      ->check(CLI::ExistingFile);
  simulate->add_option("--fabric-topograph", sf.fabric_topograph,
                       "take the fabric from a topograph model YAML (--arch/--hosts ignored)")
      ->check(CLI::ExistingFile);
  simulate->add_flag("!--no-fabric-faults", sf.fabric_faults, "no congested switch, degraded/flapping link, detour or slow host");
  simulate->add_option("--nccl-version", sf.nccl_version, "NCCL log format: 2.26.2 or 2.16.5 (default: by seed)")
      ->check(CLI::IsMember({"2.26.2", "2.16.5"}));

  std::string truth_path, result_path;
  auto* score = app.add_subcommand("score", "score a result against the simulator's truth");
  score->add_option("--truth", truth_path, "truth.json written by simulate")->required();
  score->add_option("--result", result_path, "result.json written by analyze")->required();

  std::string demo_out = "toposcope-demo";
  SimFlags demo_sim;
  auto* demo = app.add_subcommand("demo", "simulate the default cluster, analyse it, score it");
  demo->add_option("--out", demo_out, "output directory");
  demo->add_option("--seed", demo_sim.seed, "random seed");
  demo->add_option("--hosts", demo_sim.hosts, "number of hosts")->check(CLI::Range(1, 100000));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  }

  try {
    if (*analyze) {
      toposcope::analysis::AnalysisResult r;
      const int code = RunAnalyze(af, &r);
      return Strictness(af, r, code);
    }
    if (*align) {
      toposcope::analysis::AnalysisResult r;
      const int code = RunAnalyze(alf, &r);
      return Strictness(alf, r, code);
    }
    if (*links || *islands) {
      lf.quiet = true;
      toposcope::analysis::AnalysisResult r;
      const int code = RunAnalyze(lf, &r);
      if (code != kOk) return code;
      nlohmann::json j = toposcope::report::ResultToJson(r);
      nlohmann::json out;
      out["schema"] = toposcope::report::kResultSchema;
      out["inputs"] = j["inputs"];
      if (*links) {
        out["links"] = j["links"];
      } else {
        out["gpus"] = j["gpus"];
        out["islands"] = j["islands"];
      }
      std::cout << toposcope::report::DumpSchemaFirst(out);
      return Strictness(lf, r, code);
    }
    if (*identify) {
      idf.quiet = true;
      toposcope::analysis::AnalysisResult r;
      const int code = RunAnalyze(idf, &r);
      if (code != kOk) return code;
      if (identify_json) {
        nlohmann::json j = toposcope::report::ResultToJson(r);
        std::cout << (j.contains("architecture") ? j["architecture"].dump(2) : std::string("null")) << "\n";
      } else {
        std::fputs(ArchitectureText(r).c_str(), stdout);
      }
      return r.architecture_present ? Strictness(idf, r, code) : kUnreadable;
    }
    if (*compare) {
      toposcope::experiments::ArchitectureCompareOptions co;
      co.fabric_faults = cmp_faults;
      auto c = toposcope::experiments::CompareArchitectures(cmp_hosts, cmp_seed, co);
      if (!c.ok()) {
        PrintError(c.error());
        return kUsage;
      }
      std::fputs(c->table.c_str(), stdout);
      return kOk;
    }
    if (*simulate) {
      auto s = toposcope::sim::Simulate(MakeSimOptions(sf), sf.out);
      if (!s.ok()) {
        PrintError(s.error());
        return kUnreadable;
      }
      std::fputs(SimSummaryText(*s).c_str(), stdout);
      return kOk;
    }
    if (*score) {
      nlohmann::json j;
      const int code = RunScore(truth_path, result_path, &j);
      if (code == kOk) std::cout << toposcope::report::DumpSchemaFirst(j);
      return code;
    }
    if (*demo) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::string data_dir = (std::filesystem::path(demo_out) / "data").string();
      const std::string res_dir = (std::filesystem::path(demo_out) / "analysis").string();
      std::error_code ec;
      std::filesystem::remove_all(data_dir, ec);
      std::printf("== simulate: %d hosts, seed %llu -> %s\n", demo_sim.hosts,
                  static_cast<unsigned long long>(demo_sim.seed), data_dir.c_str());
      auto s = toposcope::sim::Simulate(MakeSimOptions(demo_sim), data_dir);
      if (!s.ok()) {
        PrintError(s.error());
        return kInternal;
      }
      std::fputs(SimSummaryText(*s).c_str(), stdout);
      std::printf("\n== analyze %s\n", data_dir.c_str());
      AnalyzeFlags f;
      f.paths = {data_dir};
      f.out = res_dir;
      toposcope::analysis::AnalysisResult r;
      if (const int code = RunAnalyze(f, &r); code != kOk) return code;
      std::printf("\n== score against %s/truth.json\n", data_dir.c_str());
      nlohmann::json j;
      const std::string truth = (std::filesystem::path(data_dir) / "truth.json").string();
      const std::string result = (std::filesystem::path(res_dir) / "result.json").string();
      if (const int code = RunScore(truth, result, &j); code != kOk) return code;
      std::cout << toposcope::report::DumpSchemaFirst(j);
      // The three architectures side by side, each identified from its own simulated fabric.
      std::printf("\n== compare architectures (%d hosts each, seed %llu)\n", demo_sim.hosts,
                  static_cast<unsigned long long>(demo_sim.seed));
      if (auto c = toposcope::experiments::CompareArchitectures(std::clamp(demo_sim.hosts, 2, 512), demo_sim.seed); c.ok()) {
        std::fputs(c->table.c_str(), stdout);
        nlohmann::json rows = nlohmann::json::object();
        int correct = 0;
        for (const auto& row : c->rows) {
          const bool ok = row.identified == row.arch && row.identified_from_probes == row.arch;
          correct += ok ? 1 : 0;
          rows[row.arch] = {{"identified_from_fabric", row.identified}, {"identified_from_probes", row.identified_from_probes},
                            {"correct", ok}};
        }
        j["architecture_comparison"] = {{"hosts", c->hosts}, {"architectures", rows}, {"correct", correct},
                                        {"total", c->rows.size()}};
        (void)toposcope::WriteFileText((std::filesystem::path(demo_out) / "architectures.txt").string(), c->table);
      } else {
        PrintError(c.error());
      }
      if (auto st = toposcope::WriteFileText((std::filesystem::path(demo_out) / "score.json").string(), toposcope::report::DumpSchemaFirst(j)); !st.ok()) {
        PrintError(st.error());
        return kUnreadable;
      }
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("demo finished in %.2f s; outputs in %s\n", secs, demo_out.c_str());
      return kOk;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toposcope: internal error: %s\n", e.what());
    return kInternal;
  }
  return kUsage;
}
