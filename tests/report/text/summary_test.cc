// Tests of report/text/summary: the terminal summary of an empty result and of one with inputs,
// a degraded link and inferred leaves; long lists capped with a count (all with verbose), repeated
// polarisation findings grouped, hosts without sync records counted instead of printed as NaN rows,
// the confidence table on one line, and no article jargon.
#include "toposcope/report/text/summary.h"

#include <gtest/gtest.h>

#include <string>

namespace toposcope::report {
namespace summary_test {

TEST(ResultSummaryText, EmptyResult) {
  EXPECT_EQ(ResultSummaryText(analysis::AnalysisResult{}),
            "inputs: 0 files read, 0 skipped; 0 records, 0 rejected\n"
            "hosts: 0, GPUs: 0, islands: 0\n"
            "links: 0, degraded: 0\n"
            "hypotheses: no symptom (`toposcope explain` prints the tree)\n");
}

TEST(ResultSummaryText, InputsDegradedLinksAndLeaves) {
  analysis::AnalysisResult r;
  r.inputs = {{"a.txt", "nvsmi_topo", "h0", 10, 1, false, ""}, {"b.bin", "", "", 0, 0, true, "unknown format"}};
  analysis::LinkReport l;
  l.a = "h0/gpu0";
  l.b = "h0/gpu1";
  l.type = LinkType::kNvlink;
  l.lanes = 12;
  l.degraded = true;
  l.confidence = 0.9;
  l.evidence = "measured 150 of 450 GB/s";
  r.links.push_back(l);
  r.leaves_inferred = true;
  r.inferred_leaves.leaves = {{"leaf-00", {"h0"}}};
  r.inferred_leaves.confidence = 0.5;
  const std::string s = ResultSummaryText(r);
  EXPECT_EQ(s.rfind("inputs: 1 files read, 1 skipped; 10 records, 1 rejected\n  skipped b.bin: unknown format\n", 0),
            0U)
      << s;
  EXPECT_NE(s.find("links: 1, degraded: 1\n  DEGRADED h0/gpu0 <-> h0/gpu1 NVLINK NV12 (confidence 0.900): measured "
                   "150 of 450 GB/s\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("leaves from probe RTTs: 1 leaves, 0 pods, 0 unplaced hosts (confidence 0.5)\n"), std::string::npos)
      << s;
}

analysis::AnalysisResult ManyFindings() {
  analysis::AnalysisResult r;
  for (int i = 0; i < 10; ++i) {
    analysis::LinkReport l;
    l.a = "h" + std::to_string(i) + "/gpu0";
    l.b = "h" + std::to_string(i) + "/gpu1";
    l.type = LinkType::kNvlink;
    l.degraded = true;
    l.confidence = 0.9;
    l.evidence = "slow";
    r.links.push_back(l);
  }
  r.rdma.present = true;
  for (int i = 0; i < 6; ++i) {
    analysis::LinkEntropySummary e;
    e.link = "leaf" + std::to_string(i) + "->spine0";
    e.polarisation_risk = true;
    e.advice = "spread the QPs (NCCL_IB_QPS_PER_CONNECTION)";
    r.rdma.entropy.links.push_back(e);
  }
  for (int h = 0; h < 3; ++h) {
    analysis::HostClockFit fit;
    fit.host = "h" + std::to_string(h);
    for (int k = 0; k < 4; ++k) {
      analysis::ClockModel m;
      m.kind = static_cast<analysis::ClockModelKind>(k);
      if (h < 2) {
        m.mean_abs_residual_us = 1.0 + h;
        m.p99_abs_residual_us = 2.0 + h + k;
      }
      fit.models.push_back(m);
    }
    r.clocks.push_back(fit);
  }
  r.confidence.quantile = 0.95;
  r.confidence.delta_min = 0.75;
  r.confidence.sampling = {{10, 0.199, 1}, {100, 0.073, 3}, {1000, 0.038, 6}};
  return r;
}

TEST(ResultSummaryText, LongListsAreCappedAndGrouped) {
  const analysis::AnalysisResult r = ManyFindings();
  const std::string s = ResultSummaryText(r);
  EXPECT_NE(s.find("links: 10, degraded: 10\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  DEGRADED h2/gpu0"), std::string::npos) << s;
  EXPECT_EQ(s.find("  DEGRADED h3/gpu0"), std::string::npos) << s;
  EXPECT_NE(s.find("  ... and 7 more (in result.json; --verbose lists them)\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  6 link(s) at ECMP polarisation risk: spread the QPs"), std::string::npos) << s;
  EXPECT_EQ(s.find("POLARISATION RISK"), std::string::npos) << s;
  EXPECT_NE(s.find("clocks: 3 hosts, 2 with held-out sync points (1 without: no sync records to fit)\n"),
            std::string::npos) << s;
  EXPECT_EQ(s.find("nan"), std::string::npos) << s;
  EXPECT_NE(s.find("worst host: h1"), std::string::npos) << s;
  EXPECT_NE(s.find("10 ms 19.9% (1 hops); 100 ms 7.3% (3 hops); 1000 ms 3.8% (6 hops);"), std::string::npos) << s;
  for (const char* jargon : {"seed", "LORR"}) EXPECT_EQ(s.find(jargon), std::string::npos) << jargon << "\n" << s;
  int lines = 0;
  for (char c : s) lines += c == '\n' ? 1 : 0;
  EXPECT_LE(lines, 25) << s;
}

TEST(ResultSummaryText, VerboseListsEverything) {
  SummaryOptions o;
  o.verbose = true;
  const std::string s = ResultSummaryText(ManyFindings(), o);
  EXPECT_NE(s.find("  DEGRADED h9/gpu0"), std::string::npos) << s;
  EXPECT_EQ(s.find("more (in result.json"), std::string::npos) << s;
  EXPECT_NE(s.find("    leaf5->spine0\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  without sync records: h2\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  period_ms  per_hop_error  max_hops\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("nan"), std::string::npos) << s;
}

}  // namespace summary_test
}  // namespace toposcope::report
