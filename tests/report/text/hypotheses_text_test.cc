// The hypothesis tree as text: a screen's worth (symptoms and hypotheses capped, long lines cut),
// each hypothesis with its probability and one evidence line, each symptom with its next check; an
// empty tree says so; the analyze summary's pointer names the most probable fault.
#include "toposcope/report/text/hypotheses_text.h"

#include <gtest/gtest.h>

#include <string>

namespace toposcope::report {
namespace hypotheses_text_test {

analysis::AnalysisResult WithStraggler() {
  analysis::AnalysisResult r;
  analysis::TelemetryFinding s;
  s.kind = analysis::TelemetryFindingKind::kStraggler;
  s.host = "dgx-a07";
  s.gpu = 2;
  s.evidence = std::string("late by a median 61 ms ") + std::string(300, 'x');
  r.telemetry.findings.push_back(s);
  return r;
}

TEST(HypothesesText, EmptyTreeSaysSo) {
  EXPECT_EQ(ExplainText(analysis::AnalysisResult{}),
            "no symptom: no finding points at a fault (highest fault probability 0)\n");
  EXPECT_EQ(HypothesesPointerText(analysis::AnalysisResult{}),
            "hypotheses: no symptom (`toposcope explain` prints the tree)\n");
}

TEST(HypothesesText, ShowsTopHypothesesEvidenceAndNextCheck) {
  const std::string t = ExplainText(WithStraggler());
  EXPECT_NE(t.find("1 symptom(s); highest fault probability 0.94"), std::string::npos) << t;
  EXPECT_NE(t.find("1. late_rank dgx-a07/gpu2"), std::string::npos) << t;
  EXPECT_NE(t.find(" 94.4%  straggler\n"), std::string::npos) << t;
  EXPECT_NE(t.find("+ straggler_finding: late by a median 61 ms"), std::string::npos) << t;
  EXPECT_NE(t.find("...\n"), std::string::npos) << t;  // the long evidence line is cut
  EXPECT_NE(t.find("next: on dgx-a07: nvidia-smi -q -d PERFORMANCE,CLOCK -i 2"), std::string::npos) << t;
  // Three hypotheses of five, the host-level ones naming the host.
  size_t shown = 0;
  for (size_t at = t.find('%'); at != std::string::npos; at = t.find('%', at + 1)) ++shown;
  EXPECT_EQ(shown, 3U) << t;
  EXPECT_EQ(HypothesesPointerText(WithStraggler()),
            "hypotheses: 1 symptom(s); most probable: straggler on dgx-a07/gpu2 (0.94); `toposcope explain PATH...` "
            "prints the tree\n");
}

TEST(HypothesesText, CapsTheSymptoms) {
  analysis::AnalysisResult r;
  for (int i = 0; i < 12; ++i) {
    analysis::TelemetryFinding c;
    c.kind = analysis::TelemetryFindingKind::kClockStep;
    c.host = "h" + std::to_string(10 + i);
    c.evidence = "jump";
    r.telemetry.findings.push_back(c);
  }
  ExplainTextOptions opt;
  opt.max_symptoms = 5;
  opt.max_per_kind = 100;
  std::string t = ExplainText(r, opt);
  EXPECT_NE(t.find("5. clock_jump h14"), std::string::npos) << t;
  EXPECT_EQ(t.find("6. clock_jump"), std::string::npos) << t;
  EXPECT_NE(t.find("... 7 more symptom(s)"), std::string::npos) << t;
  // Two of a kind in full, the others of that kind on one line.
  t = ExplainText(r);
  EXPECT_NE(t.find("2. clock_jump h11"), std::string::npos) << t;
  EXPECT_EQ(t.find("3. clock_jump"), std::string::npos) << t;
  EXPECT_NE(t.find("also 10 more clock_jump: h12 (clock_step 0.99) h13 (clock_step 0.99)"), std::string::npos) << t;
}

}  // namespace hypotheses_text_test
}  // namespace toposcope::report
