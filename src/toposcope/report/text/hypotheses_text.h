// report/text/hypotheses_text: the fault hypothesis tree (act/hypotheses) as `toposcope explain`
// prints it: one screen, the top symptoms, their top three hypotheses with probability, one line
// of evidence and the next check; and the one-line pointer the analyze summary ends with.
#pragma once

#include <string>
#include <vector>

#include "toposcope/act/hypotheses.h"
#include "toposcope/analysis/result.h"

namespace toposcope::report {

struct ExplainTextOptions {
  int max_symptoms = 5;     // symptoms shown in full (about a screen; the rest are counted)
  int max_per_kind = 2;     // symptoms of one kind shown in full; the others of that kind on one line
  int max_hypotheses = 3;   // hypotheses per symptom
  size_t max_line = 120;    // a longer line is cut with "..."
};

// The readable tree. Never fails (a tree without symptoms says so).
std::string HypothesesText(const act::HypothesisTree& tree, const ExplainTextOptions& opt = {});
// The tree of `r`'s findings as text (`probes`, may be null: the dataset's path probes, for the
// flapping-cable evidence); the model's error as text when it is invalid. Never fails.
std::string ExplainText(const analysis::AnalysisResult& r, const ExplainTextOptions& opt = {},
                        const std::vector<formats::PathProbe>* probes = nullptr);
// One line for the analyze summary: symptoms, the most probable fault, and where to see the tree.
std::string HypothesesPointerText(const analysis::AnalysisResult& r);

}  // namespace toposcope::report
