// Tests of report/text/architecture_text: the text with and without an architecture, "n/a" for
// metrics that are not finite.
#include "toposcope/report/text/architecture_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace toposcope::report {
namespace architecture_text_test {

TEST(ArchitectureText, NoArchitecture) {
  EXPECT_EQ(ArchitectureText(analysis::AnalysisResult{}), "architecture: no fabric dump or path probes in the inputs\n");
}

TEST(ArchitectureText, ClassMetricsAndEvidence) {
  analysis::AnalysisResult r;
  r.architecture_present = true;
  auto& a = r.architecture;
  a.arch_class = analysis::ArchClass::kDragonfly;
  a.confidence = 0.875;
  a.graph_source = analysis::GraphSource::kFabric;
  a.avg_allreduce_hops = 3.14159;
  a.ring_order = analysis::RingOrder::kNcclLog;
  a.jitter_us = NAN;
  a.entropy_stability = 0.5;
  a.entropy_windows = 12;
  a.evidence = {"groups of 4 switches", "global links between every group pair"};
  EXPECT_EQ(ArchitectureText(r),
            "architecture: dragonfly (confidence 0.88, from the fabric)\n"
            "  avg AllReduce hops 3.14 (ring order: nccl_log), worst-case jitter +/-n/a us, entropy "
            "stability 0.5000 "
            "(12 windows)\n"
            "evidence:\n"
            "  - groups of 4 switches\n"
            "  - global links between every group pair\n");
}

}  // namespace architecture_text_test
}  // namespace toposcope::report
