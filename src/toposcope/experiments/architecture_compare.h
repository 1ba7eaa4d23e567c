// experiments/architecture_compare: MISSION §1's comparison table, measured. Simulates fat-tree, dragonfly
// and HHRE clusters of the same size and seed (fabric part only, in memory: the probes.csv and
// fabric.ibnet texts are rendered and parsed back through the real readers, no files), identifies
// each one's architecture from its fabric dump and, separately, from its probes alone
// (analysis/architecture.h), and measures average AllReduce hops, worst-case jitter and entropy
// stability on each. The table prints our measured values with the seed's claimed values beside
// them, labelled as claims.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/analysis/fabric/architecture.h"
#include "toposcope/base/result.h"
#include "toposcope/model/dataset.h"
#include "toposcope/sim/cluster.h"  // sim::SimOptions

namespace toposcope::experiments {

struct ArchitectureCompareOptions {
  bool fabric_faults = true;       // SimOptions::fabric_faults
  int probes_per_pair = 8;         // SimOptions::probes_per_pair
  double probe_window_s = 10;      // SimOptions::probe_window_s
  double probe_extra_rtt_us = 0;   // SimOptions::probe_extra_rtt_us (0: idle RDMA regime)
  analysis::ArchitectureOptions analysis;
};

// Simulates the fabric part of a cluster in memory (options.with_fabric is forced on) and reads
// the rendered probes.csv texts and fabric.ibnet back through the real readers into a Dataset
// (path_probes, fabrics). Fails on invalid options or a text the readers refuse.
Result<model::Dataset> SimulateFabricDataset(const sim::SimOptions& options);

// The class IdentifyArchitecture names when it recognises a simulated architecture (kUnknown for
// an imported fabric, which has none of its own). Never fails.
analysis::ArchClass ExpectedArchClass(sim::Arch arch);

// The seed's claimed figures (MISSION §1), for one architecture.
struct SeedArchitectureClaim {
  sim::Arch arch = sim::Arch::kFatTree;
  double avg_allreduce_hops = 0;
  double jitter_us = 0;            // "±x µs"
  double entropy_stability = 0;
};

// The seed's table: fat-tree 5.8 / ±18.3 / 0.42, dragonfly 3.2 / ±9.7 / 0.29, HHRE 2.1 / ±3.1 /
// 0.08.
std::vector<SeedArchitectureClaim> SeedArchitectureClaims();

struct ArchitectureCompareRow {
  sim::Arch arch = sim::Arch::kFatTree;                            // simulated: kFatTree, kDragonfly or kHhre
  analysis::ArchClass identified = analysis::ArchClass::kUnknown;  // class named from the fabric dump
  double confidence = 0;
  analysis::ArchClass identified_from_probes = analysis::ArchClass::kUnknown;  // ... from the probes alone
  double confidence_from_probes = 0;
  int switches = 0;
  double avg_allreduce_hops = NAN;
  double mean_pair_hops = NAN;
  double jitter_us = NAN;
  int jitter_links = 0;
  double entropy_stability = NAN;
  int entropy_windows = 0;
  int64_t probes = 0;
  std::vector<std::string> evidence;  // the fabric identification's evidence
  analysis::ArchitectureReport report;  // the full report (fabric graph + probes)
};

struct ArchitectureComparison {
  int hosts = 0;
  uint64_t seed = 0;
  std::vector<ArchitectureCompareRow> rows;  // fat-tree, dragonfly, hhre
  std::string table;                         // FormatArchitectureComparison(*this)
};

// Simulates and analyses the three architectures with `hosts` hosts (2..kMaxFabricHosts) and
// `seed`. Fails on invalid options (the simulator's error). Deterministic.
Result<ArchitectureComparison> CompareArchitectures(int hosts, uint64_t seed,
                                                    const ArchitectureCompareOptions& opt = {});

// The side-by-side text table: one row per metric, per architecture "measured" and "seed claim"
// columns, then the identification lines.
std::string FormatArchitectureComparison(const ArchitectureComparison& cmp);

}  // namespace toposcope::experiments
