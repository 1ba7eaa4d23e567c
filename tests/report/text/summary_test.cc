// Tests of report/text/summary: the terminal summary of an empty result and of one with inputs,
// a degraded link and inferred leaves.
#include "toposcope/report/text/summary.h"

#include <gtest/gtest.h>

#include <string>

namespace toposcope::report {
namespace {

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

}  // namespace
}  // namespace toposcope::report
