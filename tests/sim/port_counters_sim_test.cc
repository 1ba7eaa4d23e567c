// Tests of sim/port_counters_sim: both reads parse with the perfquery reader without a rejection,
// every switch port in use is read twice with the later read after the first, only the flapping
// cable's two ends count LinkDowned over the window, no fault is named, same seed same bytes.
#include "toposcope/sim/port_counters_sim.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "toposcope/formats/fabric/perfquery.h"
#include "toposcope/formats/sniff.h"

namespace toposcope::sim {
namespace port_counters_sim_test {

TEST(PortCountersSim, ReadsBackAndOnlyTheFlappingCableGoesDown) {
  SimOptions o;
  o.arch = Arch::kFatTree;
  o.seed = 7;
  o.hosts = 16;
  o.with_fabric = true;
  Result<Cluster> c = BuildCluster(o);
  ASSERT_TRUE(c.ok());
  const FabricPlan plan = PlanFabric(*c);
  ASSERT_GE(plan.flapping_link, 0);
  const std::vector<RenderedFile> files = RenderPortCounters(*c, plan);
  ASSERT_EQ(files.size(), 2U);
  EXPECT_EQ(files[0].path, kPerfqueryStartFile);
  EXPECT_EQ(files[1].path, kPerfqueryEndFile);
  size_t switch_ports = 0;
  for (const FabricLink& l : plan.links) switch_ports += (l.a < static_cast<int>(plan.switches.size())) + (l.b < static_cast<int>(plan.switches.size()));
  std::map<std::pair<int, int>, std::vector<formats::PortCounterBlock>> reads;
  for (const RenderedFile& f : files) {
    EXPECT_EQ(formats::SniffFormat(f.text).format, formats::FileFormat::kPerfquery);
    EXPECT_EQ(f.text.find("flap"), std::string::npos);
    EXPECT_EQ(f.text.find("degrad"), std::string::npos);
    Diagnostics diag;
    auto r = formats::ParsePerfquery(f.text, f.path, diag);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->counts.rejected, 0);
    EXPECT_EQ(r->blocks.size(), switch_ports);
    for (const auto& b : r->blocks) {
      EXPECT_TRUE(b.extended);
      EXPECT_TRUE(b.has_time);
      reads[{b.lid, b.port}].push_back(b);
    }
  }
  const FabricLink& flap = plan.links[static_cast<size_t>(plan.flapping_link)];
  const std::map<std::pair<int, int>, bool> flap_ends = {
      {{plan.switches[static_cast<size_t>(flap.a)].lid, flap.a_port}, true},
      {{plan.switches[static_cast<size_t>(flap.b)].lid, flap.b_port}, true}};
  int rising = 0;
  for (const auto& [key, r] : reads) {
    ASSERT_EQ(r.size(), 2U);
    EXPECT_LT(r[0].time_s, r[1].time_s);
    const uint64_t rise = r[1].counters.at("LinkDownedCounter") - r[0].counters.at("LinkDownedCounter");
    EXPECT_EQ(rise > 0, flap_ends.count(key) == 1) << key.first << " " << key.second;
    rising += rise > 0;
    EXPECT_GE(r[1].counters.at("PortXmitData"), r[0].counters.at("PortXmitData"));
  }
  EXPECT_EQ(rising, 2);
  EXPECT_EQ(RenderPortCounters(*c, plan)[1].text, files[1].text);
}

}  // namespace port_counters_sim_test
}  // namespace toposcope::sim
