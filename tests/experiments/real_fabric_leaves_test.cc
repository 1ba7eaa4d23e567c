// Leaf membership inferred from probes alone (analysis::InferLeaves: src, dst and RTT, no hop
// lists) on the simulator's fabric imported from the real NDR DGX H100 SuperPOD ibnetdiscover dump,
// scored against its real leaf switches.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/report/score/grouping.h"
#include "toposcope/sim/fabric_import.h"

namespace toposcope::sim {
namespace real_fabric_leaves_test {

const std::string kSuperPod =
    std::string(TOPOSCOPE_FIXTURES) + "/ibnetdiscover/topograph_ndr_dgx_h100_superpod_40switch_582ca.out";

formats::IbFabric ParseIb(const std::string& path) {
  Result<std::string> text = ReadFileText(path);
  EXPECT_TRUE(text.ok()) << path;
  Diagnostics diag;
  Result<formats::IbFabric> f = formats::ParseIbnetdiscover(text.ok() ? *text : std::string(), path, diag);
  EXPECT_TRUE(f.ok()) << path;
  return f.ok() ? *f : formats::IbFabric{};
}

SimOptions Options(uint64_t seed, bool faults) {
  SimOptions o;
  o.seed = seed;
  o.with_fabric = true;
  o.fabric_faults = faults;
  return o;
}

std::map<std::string, std::string> Files(const ImportedFabric& im) {
  std::map<std::string, std::string> out;
  for (RenderedFile& f : RenderImportedFabric(im, nullptr)) out[f.path] = std::move(f.text);
  return out;
}

std::vector<formats::PathProbe> Probes(const std::map<std::string, std::string>& files) {
  std::vector<formats::PathProbe> out;
  for (const auto& [path, text] : files) {
    if (path.size() < 11 || path.substr(path.size() - 11) != "/probes.csv") continue;
    Diagnostics diag;
    Result<formats::PathProbeSummary> s =
        formats::ParsePathProbes(text, path, diag, [&](const formats::PathProbe& p) { out.push_back(p); });
    EXPECT_TRUE(s.ok()) << path;
    if (s.ok()) {
      EXPECT_EQ(s->counts.rejected, 0) << path;
    }
  }
  return out;
}

// Leaf membership recovered from the SuperPOD probes alone (src, dst, rtt only), against the real
// leaf switches: the fraction of endpoints whose inferred leaf-mate set equals the true one.
TEST(FabricImport, LeafRecoveryOnTheSuperPod) {
  const formats::IbFabric f = ParseIb(kSuperPod);
  for (bool faults : {false, true}) {
    for (uint64_t seed : {1, 2, 3}) {
      Result<ImportedFabric> im = ImportIbFabric(f, Options(seed, faults), {}, kSuperPod);
      ASSERT_TRUE(im.ok());
      const std::vector<formats::PathProbe> probes = Probes(Files(*im));
      std::vector<formats::PathProbe> blind = probes;
      for (formats::PathProbe& p : blind) p.hops.clear();  // no switch names
      const auto t0 = std::chrono::steady_clock::now();
      const analysis::LeafInference inf = analysis::InferLeaves(blind, {});
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::vector<std::vector<std::string>> inferred, truth;
      for (const auto& l : inf.leaves) inferred.push_back(l.hosts);
      for (const FabricGroup& g : ImportedLeaves(*im)) truth.push_back(g.members);
      std::vector<std::string> hosts;
      for (const ImportedEndpoint& e : im->endpoints) hosts.push_back(e.name);
      const double acc = report::GroupingAccuracy(inferred, truth, hosts);
      std::printf("SuperPOD leaf accuracy (faults %s, seed %llu): %.4f over %zu endpoints; %zu inferred leaves "
                  "(31 true), %zu unplaced, %.2f s\n",
                  faults ? "on" : "off", static_cast<unsigned long long>(seed), acc, hosts.size(),
                  inf.leaves.size(), inf.unplaced.size(), secs);
      for (const FabricFault& ft : im->plan.faults) std::printf("    fault %s %s\n", FabricFaultKindName(ft.kind).data(), ft.element.c_str());
      RecordProperty("leaf_accuracy_" + std::string(faults ? "faults_" : "idle_") + std::to_string(seed),
                     std::to_string(acc));
      // Issue 5 "done" asks >= 0.99; the fault-free fabric reaches it. With faults (congested spine,
      // slow host, degraded/flapping uplinks, detour) the measured figure is reported, with a floor.
      EXPECT_GE(acc, faults ? 0.9 : 0.99);
    }
  }
}

}  // namespace real_fabric_leaves_test
}  // namespace toposcope::sim
