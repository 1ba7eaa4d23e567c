// experiments/architecture_compare: the §1 comparison table measured on three simulated clusters of equal
// size (see the header).
#include "toposcope/experiments/architecture_compare.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/analysis/fabric/fabric.h"
#include "toposcope/base/diagnostics.h"
#include "toposcope/base/text.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/model/dataset.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/fabric_sim.h"

namespace toposcope::experiments {

using namespace toposcope::sim;  // NOLINT(google-build-using-namespace): the harness drives the simulator

namespace {

std::string Cell(double v, int decimals, const char* prefix = "") {
  if (!std::isfinite(v)) return "n/a";
  return std::string(prefix) + FormatFixed(v, decimals);
}

// Pads to `w` columns (UTF-8 aware: "±" is one column).
std::string Pad(std::string s, size_t w) {
  size_t cols = 0;
  for (const char ch : s) cols += (static_cast<unsigned char>(ch) & 0xC0) == 0x80 ? 0 : 1;
  if (cols < w) s.append(w - cols, ' ');
  return s;
}

}  // namespace

Result<model::Dataset> SimulateFabricDataset(const SimOptions& options) {
  SimOptions o = options;
  o.with_fabric = true;
  if (Status st = ValidateFabricOptions(o); !st.ok()) return st.error();
  Result<Cluster> cluster = BuildCluster(o);
  if (!cluster.ok()) return cluster.error();
  const FabricPlan plan = PlanFabric(*cluster);
  FabricStats stats;
  const std::vector<RenderedFile> files = RenderFabric(*cluster, plan, &stats);
  model::Dataset ds;
  for (const RenderedFile& f : files) {
    if (EndsWith(f.path, kProbesFile)) {
      Diagnostics diag;
      auto sum = formats::ParsePathProbes(f.text, f.path, diag,
                                          [&](const formats::PathProbe& p) { ds.path_probes.push_back(p); });
      if (!sum.ok()) return sum.error();
    } else if (f.path == kFabricIbnetFile) {
      Diagnostics diag;
      Result<formats::IbFabric> fab = formats::ParseIbnetdiscover(f.text, f.path, diag);
      if (!fab.ok()) return fab.error();
      ds.fabrics.push_back(std::move(*fab));
    }
  }
  return ds;
}

analysis::ArchClass ExpectedArchClass(Arch arch) {
  switch (arch) {
    case Arch::kFatTree:
      return analysis::ArchClass::kFatTree;
    case Arch::kDragonfly:
      return analysis::ArchClass::kDragonfly;
    case Arch::kHhre:
      return analysis::ArchClass::kHhre;
    case Arch::kImported:
      break;
  }
  return analysis::ArchClass::kUnknown;
}

std::vector<SeedArchitectureClaim> SeedArchitectureClaims() {
  return {
      {Arch::kFatTree, 5.8, 18.3, 0.42}, {Arch::kDragonfly, 3.2, 9.7, 0.29}, {Arch::kHhre, 2.1, 3.1, 0.08}};
}

Result<ArchitectureComparison> CompareArchitectures(int hosts, uint64_t seed, const ArchitectureCompareOptions& opt) {
  ArchitectureComparison cmp;
  cmp.hosts = hosts;
  cmp.seed = seed;
  if (hosts < 2) return MakeError("architecture comparison needs at least 2 hosts", "use --hosts 16 or more");
  for (const Arch arch : {Arch::kFatTree, Arch::kDragonfly, Arch::kHhre}) {
    SimOptions o;
    o.arch = arch;
    o.seed = seed;
    o.hosts = hosts;
    o.with_fabric = true;
    o.fabric_faults = opt.fabric_faults;
    o.probes_per_pair = opt.probes_per_pair;
    o.probe_window_s = opt.probe_window_s;
    o.probe_extra_rtt_us = opt.probe_extra_rtt_us;
    Result<model::Dataset> sim = SimulateFabricDataset(o);
    if (!sim.ok()) return sim.error();
    const model::Dataset& ds = *sim;
    const analysis::FabricReport fabric = analysis::AnalyzeFabric(ds);

    analysis::ArchitectureInputs in;
    in.fabric = &fabric;
    in.probes = &ds.path_probes;
    analysis::ArchitectureOptions ao = opt.analysis;
    ao.graph_source = analysis::GraphSource::kFabric;
    analysis::ArchitectureReport rep = analysis::IdentifyArchitecture(in, ao);
    ao.graph_source = analysis::GraphSource::kProbes;
    const analysis::ArchitectureReport from_probes = analysis::IdentifyArchitecture(in, ao);

    ArchitectureCompareRow row;
    row.arch = arch;
    row.identified = rep.arch_class;
    row.confidence = rep.confidence;
    row.identified_from_probes = from_probes.arch_class;
    row.confidence_from_probes = from_probes.confidence;
    row.switches = rep.switches;
    row.avg_allreduce_hops = rep.avg_allreduce_hops;
    row.mean_pair_hops = rep.mean_pair_hops;
    row.jitter_us = rep.jitter_us;
    row.jitter_links = rep.jitter_links;
    row.entropy_stability = rep.entropy_stability;
    row.entropy_windows = rep.entropy_windows;
    row.probes = static_cast<int64_t>(ds.path_probes.size());
    row.evidence = rep.evidence;
    row.report = std::move(rep);
    cmp.rows.push_back(std::move(row));
  }
  cmp.table = FormatArchitectureComparison(cmp);
  return cmp;
}

std::string FormatArchitectureComparison(const ArchitectureComparison& cmp) {
  const std::vector<SeedArchitectureClaim> claims = SeedArchitectureClaims();
  auto claim_of = [&](Arch arch) {
    for (const auto& c : claims) {
      if (c.arch == arch) return c;
    }
    return SeedArchitectureClaim{arch, NAN, NAN, NAN};
  };
  std::string out = "Architecture comparison: " + std::to_string(cmp.hosts) + " hosts each, seed " +
                    std::to_string(cmp.seed) +
                    " (simulated; 'measured' = computed by toposcope from the simulated probes and fabric dump,\n"
                    "'claimed' = the figure the source article asserts, not measured)\n\n";
  const size_t w0 = 26, w = 12;
  std::string head = Pad("metric", w0);
  std::string sub = Pad("", w0);
  for (const auto& r : cmp.rows) {
    head += Pad(std::string(ArchName(r.arch)), 2 * w);
    sub += Pad("measured", w) + Pad("claimed", w);
  }
  out += head + "\n" + sub + "\n";
  auto line = [&](const std::string& name, auto measured, auto claimed) {
    std::string s = Pad(name, w0);
    for (const auto& r : cmp.rows) s += Pad(measured(r), w) + Pad(claimed(claim_of(r.arch)), w);
    out += s + "\n";
  };
  line("avg AllReduce hops", [](const ArchitectureCompareRow& r) { return Cell(r.avg_allreduce_hops, 2); },
       [](const SeedArchitectureClaim& c) { return Cell(c.avg_allreduce_hops, 1); });
  line("worst-case jitter (us)", [](const ArchitectureCompareRow& r) { return Cell(r.jitter_us, 2, "±"); },
       [](const SeedArchitectureClaim& c) { return Cell(c.jitter_us, 1, "±"); });
  line("entropy stability (CV)", [](const ArchitectureCompareRow& r) { return Cell(r.entropy_stability, 3); },
       [](const SeedArchitectureClaim& c) { return Cell(c.entropy_stability, 2); });
  line("mean hops, all pairs", [](const ArchitectureCompareRow& r) { return Cell(r.mean_pair_hops, 2); },
       [](const SeedArchitectureClaim&) { return std::string("-"); });
  out += "\n";
  for (const auto& r : cmp.rows) {
    out += Pad(std::string(ArchName(r.arch)), 10) +
           " identified from fabric dump: " + std::string(analysis::ArchClassName(r.identified)) +
           " (confidence " + FormatFixed(r.confidence, 2) +
           "), from probes alone: " + std::string(analysis::ArchClassName(r.identified_from_probes)) +
           " (confidence " + FormatFixed(r.confidence_from_probes, 2) + "); " + std::to_string(r.switches) +
           " switches, " + std::to_string(r.probes) + " probes, jitter class " +
           std::to_string(r.jitter_links) + " links, " + std::to_string(r.entropy_windows) +
           " entropy windows\n";
  }
  out +=
      "\nHops = links crossed between ring-consecutive hosts (host links included), ring = hosts in name order; "
      "jitter = worst path class's robust half-spread of RTT about each pair's median (outliers dropped); "
      "entropy stability = std/mean of the path entropy over time windows.\n";
  return out;
}

}  // namespace toposcope::experiments
