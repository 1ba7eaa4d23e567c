// report/json/hypotheses_json: result.json's "hypotheses": the fault hypothesis tree of act/hypotheses
// (symptoms, their ranked hypotheses with evidence and next check, and the model's table).
#include <string>

#include "toposcope/act/hypotheses.h"
#include "toposcope/report/json/result_sections.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report {

using nlohmann::json;

namespace {

json ModelJson(const act::HypothesisModel& m) {
  json priors = json::array(), likelihoods = json::array(), base = json::array();
  for (const auto& r : m.priors) {
    priors.push_back({{"symptom", act::SymptomKindName(r.symptom)},
                      {"hypothesis", act::HypothesisKindName(r.hypothesis)},
                      {"prior", Num(r.prior, 4)}});
  }
  for (const auto& r : m.likelihoods) {
    likelihoods.push_back({{"evidence", act::EvidenceName(r.evidence)},
                           {"hypothesis", act::HypothesisKindName(r.hypothesis)},
                           {"p_present", Num(r.p_present, 4)}});
  }
  for (const auto& r : m.base_rates) {
    base.push_back({{"evidence", act::EvidenceName(r.evidence)}, {"p_present", Num(r.p_present, 4)}});
  }
  return {{"priors", priors}, {"likelihoods", likelihoods}, {"base_rates", base},
          {"rule", "P(h|E) = prior(h) x prod_e [present ? P(e|h) : 1 - P(e|h)], normalised per symptom"}};
}

json SymptomJson(const act::Symptom& s) {
  json evidence = json::array(), hyps = json::array();
  for (const auto& e : s.evidence) {
    evidence.push_back({{"evidence", act::EvidenceName(e.evidence)}, {"present", e.present}, {"detail", e.detail}});
  }
  int rank = 0;
  for (const auto& h : s.hypotheses) {
    hyps.push_back({{"rank", ++rank},
                    {"kind", act::HypothesisKindName(h.kind)},
                    {"entity", h.entity},
                    {"prior", Num(h.prior, 4)},
                    {"probability", Num(h.probability, 4)},
                    {"evidence_for", h.evidence_for},
                    {"evidence_against", h.evidence_against},
                    {"next_check", h.next_check}});
  }
  return {{"kind", act::SymptomKindName(s.kind)}, {"entity", s.entity},   {"summary", s.summary},
          {"evidence", evidence},                 {"hypotheses", hyps},  {"next_check", s.next_check}};
}

}  // namespace

json HypothesesJson(const analysis::AnalysisResult& r, const std::vector<formats::PathProbe>* probes) {
  act::HypothesisOptions opt;
  opt.probes = probes;
  auto tree = act::BuildHypotheses(r, opt);
  if (!tree.ok()) return {{"error", tree.error().ToString()}, {"symptoms", json::array()}};
  json symptoms = json::array();
  for (const auto& s : tree->symptoms) symptoms.push_back(SymptomJson(s));
  return {{"symptoms", symptoms},
          {"max_fault_probability", Num(tree->max_fault_probability, 4)},
          {"skipped", tree->skipped},
          {"model", ModelJson(act::DefaultHypothesisModel())}};
}

}  // namespace toposcope::report
