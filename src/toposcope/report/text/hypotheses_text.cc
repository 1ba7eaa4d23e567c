// report/text/hypotheses_text: the fault hypothesis tree as text (see hypotheses_text.h).
#include "toposcope/report/text/hypotheses_text.h"

#include <cstdio>
#include <map>
#include <vector>
#include <sstream>
#include <string>

namespace toposcope::report {

namespace {

std::string Cut(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

std::string Pct(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%5.1f%%", 100 * p);
  return buf;
}

// The most telling evidence line of a hypothesis: the first for it, else the first against it.
std::string EvidenceLine(const act::Hypothesis& h) {
  if (!h.evidence_for.empty()) return "+ " + h.evidence_for.front();
  if (!h.evidence_against.empty()) return "- " + h.evidence_against.front();
  return "  (no evidence either way: the prior)";
}

}  // namespace

std::string HypothesesText(const act::HypothesisTree& tree, const ExplainTextOptions& opt) {
  std::ostringstream os;
  if (tree.symptoms.empty()) {
    os << "no symptom: no finding points at a fault (highest fault probability 0)\n";
    return os.str();
  }
  char head[128];
  std::snprintf(head, sizeof head, "%zu symptom(s); highest fault probability %.2f\n", tree.symptoms.size(),
                tree.max_fault_probability);
  os << head;
  int shown = 0;
  std::map<act::SymptomKind, int> per_kind;
  std::map<act::SymptomKind, std::vector<std::string>> folded;  // kind -> "entity (top hypothesis p)"
  int hidden = 0;
  for (const auto& s : tree.symptoms) {
    if (per_kind[s.kind]++ >= opt.max_per_kind) {
      const auto& h = s.hypotheses.front();
      char p[32];
      std::snprintf(p, sizeof p, " %.2f", h.probability);
      folded[s.kind].push_back(s.entity + " (" + std::string(act::HypothesisKindName(h.kind)) + p + ")");
      continue;
    }
    if (shown >= opt.max_symptoms) {
      ++hidden;
      continue;
    }
    ++shown;
    os << "\n" << shown << ". " << act::SymptomKindName(s.kind) << " " << s.entity << "\n";
    os << "   seen: " << Cut(s.summary, opt.max_line) << "\n";
    int k = 0;
    for (const auto& h : s.hypotheses) {
      if (k++ >= opt.max_hypotheses) break;
      os << "   " << Pct(h.probability) << "  " << act::HypothesisKindName(h.kind);
      if (h.entity != s.entity) os << " (" << h.entity << ")";
      os << "\n            " << Cut(EvidenceLine(h), opt.max_line) << "\n";
    }
    os << "   next: " << Cut(s.next_check, 2 * opt.max_line) << "\n";
  }
  for (const auto& [kind, list] : folded) {
    std::string line = "also " + std::to_string(list.size()) + " more " + std::string(act::SymptomKindName(kind)) + ":";
    for (const auto& e : list) line += " " + e;
    os << "\n" << Cut(line, 2 * opt.max_line) << "\n";
  }
  if (hidden > 0) os << "\n... " << hidden << " more symptom(s) in result.json \"hypotheses\"\n";
  for (const auto& s : tree.skipped) os << "skipped: " << s << "\n";
  return os.str();
}

std::string ExplainText(const analysis::AnalysisResult& r, const ExplainTextOptions& opt,
                        const std::vector<formats::PathProbe>* probes) {
  act::HypothesisOptions hopt;
  hopt.probes = probes;
  auto tree = act::BuildHypotheses(r, hopt);
  if (!tree.ok()) return "hypotheses: " + tree.error().ToString() + "\n";
  return HypothesesText(*tree, opt);
}

std::string HypothesesPointerText(const analysis::AnalysisResult& r) {
  auto tree = act::BuildHypotheses(r);
  if (!tree.ok()) return "hypotheses: " + tree.error().ToString() + "\n";
  if (tree->symptoms.empty()) return "hypotheses: no symptom (`toposcope explain` prints the tree)\n";
  const act::Symptom& s = tree->symptoms.front();
  const act::Hypothesis& h = s.hypotheses.front();
  char p[32];
  std::snprintf(p, sizeof p, "%.2f", h.probability);
  return "hypotheses: " + std::to_string(tree->symptoms.size()) + " symptom(s); most probable: " +
         std::string(act::HypothesisKindName(h.kind)) + " on " + h.entity + " (" + p +
         "); `toposcope explain PATH...` prints the tree\n";
}

}  // namespace toposcope::report
