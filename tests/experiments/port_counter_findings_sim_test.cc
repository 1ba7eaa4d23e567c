// The port_counters pass on simulated fabrics (sim/port_counters_sim read back through the
// perfquery and ibnetdiscover readers, in memory): the flapping cable is the one whose two ends
// count LinkDowned over the window, the degraded cable the one with error bursts, the congested
// switch the one whose ports wait; a cluster without fabric faults has no finding.
#include "toposcope/analysis/fabric/port_counters.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "toposcope/analysis/fabric/fabric.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/perfquery.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/fabric_sim.h"
#include "toposcope/sim/port_counters_sim.h"

namespace toposcope::analysis {
namespace port_counter_findings_sim_test {

struct SimRun {
  PortCounterReport report;
  std::string flapping, degraded, congested;  // the plan's (truth) names; "" when not injected
};

SimRun Make(const std::string& arch, uint64_t seed, bool faults) {
  sim::SimOptions o;
  o.arch = sim::ParseArch(arch).value();
  o.seed = seed;
  o.hosts = 16;
  o.with_fabric = true;
  o.fabric_faults = faults;
  o.probes_per_pair = 2;
  SimRun run;
  Result<sim::Cluster> c = sim::BuildCluster(o);
  EXPECT_TRUE(c.ok());
  if (!c.ok()) return run;
  const sim::FabricPlan plan = sim::PlanFabric(*c);
  model::Dataset ds;
  Diagnostics& diag = ds.diag;
  auto ib = formats::ParseIbnetdiscover(formats::WriteIbnetdiscover(sim::BuildIbFabric(*c, plan)), "fabric.ibnet", diag);
  EXPECT_TRUE(ib.ok());
  if (ib.ok()) ds.fabrics.push_back(*ib);
  for (const sim::RenderedFile& f : sim::RenderPortCounters(*c, plan)) {
    auto pq = formats::ParsePerfquery(f.text, f.path, diag);
    EXPECT_TRUE(pq.ok());
    if (pq.ok()) ds.port_counters.push_back(*pq);
  }
  EXPECT_EQ(diag.rejected_total(), 0);
  run.report = AnalyzePortCounters(ds, AnalyzeFabric(ds));
  if (plan.flapping_link >= 0) run.flapping = sim::FabricLinkId(*c, plan, plan.flapping_link);
  if (plan.degraded_link >= 0) run.degraded = sim::FabricLinkId(*c, plan, plan.degraded_link);
  if (plan.congested_switch >= 0) run.congested = plan.switches[static_cast<size_t>(plan.congested_switch)].name;
  return run;
}

std::set<std::string> Cables(const PortCounterReport& r, PortCounterFindingKind k) {
  std::set<std::string> out;
  for (const auto& f : r.findings) {
    if (f.kind == k) out.insert(f.cable);
  }
  return out;
}

TEST(PortCountersSim, FatTreeFlappingCableFromLinkDowned) {
  for (uint64_t seed : {1, 2}) {
    const SimRun run = Make("fat-tree", seed, true);
    const PortCounterReport& r = run.report;
    ASSERT_TRUE(r.present);
    EXPECT_EQ(r.unmapped_lids, 0);
    ASSERT_FALSE(run.flapping.empty());
    EXPECT_EQ(Cables(r, PortCounterFindingKind::kLinkDowned), std::set<std::string>{run.flapping}) << seed;
    int ends = 0;
    for (const auto& f : r.findings) {
      if (f.kind != PortCounterFindingKind::kLinkDowned) continue;
      ++ends;
      EXPECT_TRUE(f.rise);
      EXPECT_GE(f.value, 1);
      EXPECT_NE(f.evidence.find("LinkDownedCounter rose by"), std::string::npos) << f.evidence;
    }
    EXPECT_EQ(ends, 2) << "both ends of the cable count the outages";
    EXPECT_EQ(Cables(r, PortCounterFindingKind::kLinkErrors), (std::set<std::string>{run.flapping, run.degraded}));
    std::set<std::string> waiting;
    for (const auto& f : r.findings) {
      if (f.kind == PortCounterFindingKind::kXmitWait) waiting.insert(f.node_name);
    }
    EXPECT_EQ(waiting, std::set<std::string>{run.congested});
    for (const auto& p : r.ports) {
      EXPECT_EQ(p.reads, 2);
      EXPECT_GT(p.span_s, 0);
      EXPECT_FALSE(p.cable.empty());
      if (p.cable != run.flapping) {
        EXPECT_EQ(p.link_downed_rise, 0) << p.cable;
      }
    }
  }
}

TEST(PortCountersSim, DragonflyAndHhreToo) {
  int flapping = 0;
  for (const char* arch : {"dragonfly", "hhre"}) {
    const SimRun run = Make(arch, 3, true);
    if (run.flapping.empty()) continue;  // no used inter-switch link away from the others
    ++flapping;
    EXPECT_EQ(Cables(run.report, PortCounterFindingKind::kLinkDowned), std::set<std::string>{run.flapping}) << arch;
  }
  EXPECT_GE(flapping, 1);
}

TEST(PortCountersSim, NoFabricFaultNoFinding) {
  for (const char* arch : {"fat-tree", "dragonfly", "hhre"}) {
    const SimRun run = Make(arch, 4, false);
    ASSERT_TRUE(run.report.present);
    EXPECT_FALSE(run.report.ports.empty());
    for (const auto& f : run.report.findings) ADD_FAILURE() << arch << ": " << f.evidence;
  }
}

}  // namespace port_counter_findings_sim_test
}  // namespace toposcope::analysis
