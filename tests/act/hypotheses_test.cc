// The fault hypothesis model: one finding gives the expected top hypothesis, conflicting evidence
// splits the probability, a clean result raises nothing, a model with a NaN or a finding with a NaN
// value gets a clear message, and the tree is deterministic with concrete next checks.
#include "toposcope/act/hypotheses.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace toposcope::act {
namespace hypotheses_test {

double Sum(const std::vector<Hypothesis>& hs) {
  return std::accumulate(hs.begin(), hs.end(), 0.0, [](double s, const Hypothesis& h) { return s + h.probability; });
}

TEST(Hypotheses, DefaultModelIsValid) { EXPECT_TRUE(ValidateHypothesisModel(DefaultHypothesisModel()).ok()); }

TEST(Hypotheses, OneFindingGivesItsCause) {
  auto r = RankHypotheses(SymptomKind::kSlowGpuLink, "h1/gpu4",
                          {{Evidence::kNvlinkLanesBelowPeers, false, ""},
                           {Evidence::kPcieLinkSlow, true, "7 degraded PCIe links"},
                           {Evidence::kThermalFinding, false, ""}});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_FALSE(r->empty());
  EXPECT_EQ(r->front().kind, HypothesisKind::kPcieDowntrain);
  EXPECT_EQ(r->front().entity, "h1/gpu4");
  EXPECT_GT(r->front().probability, 0.9);
  EXPECT_NEAR(Sum(*r), 1.0, 1e-9);
  EXPECT_NE(r->front().next_check.find("pcie.link.width.current"), std::string::npos);
  EXPECT_NE(r->front().next_check.find("on h1"), std::string::npos);
  EXPECT_NE(r->front().next_check.find("-i 4"), std::string::npos);
  ASSERT_FALSE(r->front().evidence_for.empty());
  EXPECT_NE(r->front().evidence_for.front().find("pcie_link_slow"), std::string::npos);
}

TEST(Hypotheses, LateRankBlamesTheHostForHostCauses) {
  auto r = RankHypotheses(SymptomKind::kLateRank, "h2/gpu1",
                          {{Evidence::kStragglerFinding, true, "late"},
                           {Evidence::kThermalFinding, false, ""},
                           {Evidence::kClockStepFinding, true, "step"},
                           {Evidence::kHostCableSlow, false, ""}});
  ASSERT_TRUE(r.ok());
  for (const auto& h : *r) {
    if (h.kind == HypothesisKind::kClockStep || h.kind == HypothesisKind::kSlowHost) {
      EXPECT_EQ(h.entity, "h2");
    }
  }
  // A clock step on the same host explains the lateness as well as a slow GPU does.
  EXPECT_EQ(r->front().kind, HypothesisKind::kClockStep);
  EXPECT_GT((*r)[1].probability, 0.1);
}

TEST(Hypotheses, ConflictingEvidenceSplitsTheProbability) {
  auto r = RankHypotheses(SymptomKind::kSlowGpuLink, "h1/gpu0",
                          {{Evidence::kNvlinkLanesBelowPeers, false, ""},
                           {Evidence::kPcieLinkSlow, true, "slow"},
                           {Evidence::kThermalFinding, true, "hot"}});
  ASSERT_TRUE(r.ok());
  ASSERT_GE(r->size(), 2U);
  const HypothesisKind a = (*r)[0].kind, b = (*r)[1].kind;
  EXPECT_TRUE((a == HypothesisKind::kPcieDowntrain && b == HypothesisKind::kThermalLinkDownspeed) ||
              (b == HypothesisKind::kPcieDowntrain && a == HypothesisKind::kThermalLinkDownspeed));
  EXPECT_LT((*r)[0].probability, 0.8);
  EXPECT_GT((*r)[1].probability, 0.2);
  // Each is against the other's evidence.
  EXPECT_FALSE((*r)[0].evidence_against.empty() && (*r)[1].evidence_against.empty());
}

TEST(Hypotheses, NoEvidenceLeavesThePrior) {
  auto r = RankHypotheses(SymptomKind::kClockJump, "h3", {});
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->front().probability, 0.7, 1e-9);
}

TEST(Hypotheses, CleanResultRaisesNothing) {
  analysis::AnalysisResult clean;
  analysis::LinkReport l;
  l.a = "h1/gpu0";
  l.b = "h1/gpu1";
  l.type = LinkType::kNvswitch;
  l.degraded = false;
  clean.links.push_back(l);
  auto t = BuildHypotheses(clean);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->symptoms.empty());
  EXPECT_LE(t->max_fault_probability, 0.5);
}

TEST(Hypotheses, NanInTheModelIsNamed) {
  HypothesisModel m = DefaultHypothesisModel();
  m.priors[2].prior = NAN;
  auto r = RankHypotheses(SymptomKind::kSlowGpuLink, "h/gpu0", {}, m);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().ToString().find("priors row 2"), std::string::npos) << r.error().ToString();
  EXPECT_NE(r.error().ToString().find("thermal_link_downspeed"), std::string::npos) << r.error().ToString();
  m = DefaultHypothesisModel();
  m.likelihoods[0].p_present = 1.5;
  auto t = BuildHypotheses(analysis::AnalysisResult{}, {}, m);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().ToString().find("likelihoods row 0"), std::string::npos) << t.error().ToString();
}

analysis::AnalysisResult WithCables(const std::vector<std::pair<std::string, double>>& cables) {
  analysis::AnalysisResult r;
  r.link_weights.present = true;
  for (const auto& [id, us] : cables) {
    analysis::LinkWeight w;
    w.link = id;
    w.latency_us = us;
    w.identifiable = true;
    r.link_weights.tomography.links.push_back(w);
  }
  return r;
}

TEST(Hypotheses, NanLatencyIsSkippedWithAReason) {
  auto r = WithCables({{"s1--s2", 0.9}, {"s1--s3", 0.95}, {"s2--s4", NAN}, {"s3--s4", 0.92}});
  auto t = BuildHypotheses(r);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->skipped.size(), 1U);
  EXPECT_NE(t->skipped[0].find("s2--s4"), std::string::npos);
  EXPECT_NE(t->skipped[0].find("not a number"), std::string::npos);
  EXPECT_TRUE(t->symptoms.empty());
}

TEST(Hypotheses, SlowCableNextToABottleneckBlamesTheSwitch) {
  auto r = WithCables({{"s1--s2", 0.90}, {"s1--s3", 0.95}, {"s2--s4", 0.93}, {"s3--s4", 0.92}, {"s4--s5", 3.0}});
  analysis::PathFinding b;
  b.node = "s5";
  b.kind = analysis::PathFindingKind::kBottleneck;
  b.evidence = "carries 96% of paths";
  r.paths.bottlenecks.push_back(b);
  r.paths_present = true;
  auto t = BuildHypotheses(r);
  ASSERT_TRUE(t.ok());
  bool cable = false, path = false;
  for (const auto& s : t->symptoms) {
    if (s.kind == SymptomKind::kSlowCable) {
      cable = true;
      EXPECT_EQ(s.entity, "s4--s5");
      EXPECT_EQ(s.hypotheses.front().kind, HypothesisKind::kCongestedSwitch);
      EXPECT_EQ(s.hypotheses.front().entity, "s5");
      EXPECT_NE(s.next_check.find("perfquery"), std::string::npos);
    }
    if (s.kind == SymptomKind::kSlowPath) {
      path = true;
      EXPECT_EQ(s.hypotheses.front().kind, HypothesisKind::kCongestedSwitch);
    }
  }
  EXPECT_TRUE(cable && path);
}

TEST(Hypotheses, TreeFromFindingsIsOrderedAndDeterministic) {
  analysis::AnalysisResult r;
  analysis::TelemetryFinding s;
  s.kind = analysis::TelemetryFindingKind::kStraggler;
  s.host = "h9";
  s.gpu = 3;
  s.evidence = "late by 70 ms";
  r.telemetry.findings.push_back(s);
  analysis::TelemetryFinding c;
  c.kind = analysis::TelemetryFindingKind::kClockStep;
  c.host = "h2";
  c.evidence = "jump of 1.4 ms";
  r.telemetry.findings.push_back(c);
  analysis::TelemetryFinding bad;
  bad.kind = analysis::TelemetryFindingKind::kClockStep;
  r.telemetry.findings.push_back(bad);
  auto a = BuildHypotheses(r);
  auto b = BuildHypotheses(r);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->symptoms.size(), 2U);
  ASSERT_EQ(a->skipped.size(), 1U);
  EXPECT_NE(a->skipped[0].find("without a host"), std::string::npos);
  for (size_t i = 0; i < a->symptoms.size(); ++i) {
    EXPECT_EQ(a->symptoms[i].entity, b->symptoms[i].entity);
    EXPECT_EQ(a->symptoms[i].hypotheses.front().probability, b->symptoms[i].hypotheses.front().probability);
  }
  // The late rank (on the job's data path) before the clock jump (the measurement), though the
  // jump's clock step is more probable (0.99 against 0.94).
  EXPECT_EQ(a->symptoms[0].entity, "h9/gpu3");
  EXPECT_EQ(a->symptoms[0].hypotheses.front().kind, HypothesisKind::kStraggler);
  EXPECT_NE(a->symptoms[0].next_check.find("on h9"), std::string::npos);
  EXPECT_EQ(a->symptoms[1].kind, SymptomKind::kClockJump);
  EXPECT_GT(a->symptoms[1].hypotheses.front().probability, a->symptoms[0].hypotheses.front().probability);
  EXPECT_GT(a->max_fault_probability, 0.9);
}

// Port counters: a cable whose ends counted LinkDowned raises a slow_cable symptom on their own
// (no other finding names it) and its top hypothesis is a flapping cable, with the perfquery reads
// of its two ends as the next check; error bursts alone point at a degraded cable; a switch whose
// ports wait is evidence for its congestion; counters that saw nothing are evidence against.
analysis::PortCounterFinding CounterFinding(analysis::PortCounterFindingKind k, const std::string& node, int port,
                                            const std::string& cable) {
  analysis::PortCounterFinding f;
  f.kind = k;
  f.node_name = node;
  f.port = port;
  f.cable = cable;
  f.rise = true;
  f.evidence = node + " port " + std::to_string(port) + ": counter rose";
  return f;
}

analysis::PortCounterPort CounterPort(const std::string& node, int lid, int port, const std::string& cable) {
  analysis::PortCounterPort p;
  p.node_name = node;
  p.lid = lid;
  p.port = port;
  p.cable = cable;
  p.reads = 2;
  return p;
}

TEST(Hypotheses, PortCountersFindTheFlappingAndTheDegradedCable) {
  analysis::AnalysisResult r;
  r.port_counters.present = true;
  using K = analysis::PortCounterFindingKind;
  r.port_counters.ports = {CounterPort("leaf1", 3, 17, "leaf1--spine0"), CounterPort("spine0", 5, 2, "leaf1--spine0"),
                           CounterPort("leaf2", 4, 18, "leaf2--spine1"), CounterPort("spine1", 6, 3, "leaf2--spine1")};
  r.port_counters.findings = {CounterFinding(K::kLinkDowned, "leaf1", 17, "leaf1--spine0"),
                              CounterFinding(K::kLinkDowned, "spine0", 2, "leaf1--spine0"),
                              CounterFinding(K::kLinkErrors, "leaf2", 18, "leaf2--spine1"),
                              CounterFinding(K::kXmitWait, "spine9", 1, "leaf3--spine9")};
  auto t = BuildHypotheses(r);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->symptoms.size(), 2U);
  const Symptom* flap = nullptr;
  const Symptom* degraded = nullptr;
  for (const auto& s : t->symptoms) {
    EXPECT_EQ(s.kind, SymptomKind::kSlowCable);
    if (s.entity == "leaf1--spine0") flap = &s;
    if (s.entity == "leaf2--spine1") degraded = &s;
  }
  ASSERT_TRUE(flap != nullptr && degraded != nullptr);
  EXPECT_EQ(flap->hypotheses.front().kind, HypothesisKind::kFlappingLink);
  EXPECT_GT(flap->hypotheses.front().probability, 0.5);
  EXPECT_NE(flap->hypotheses.front().next_check.find("perfquery -x 3 17 and perfquery -x 5 2 (the ends of leaf1--spine0)"),
            std::string::npos)
      << flap->hypotheses.front().next_check;
  EXPECT_NE(flap->hypotheses.front().next_check.find("LinkDownedCounter"), std::string::npos);
  EXPECT_EQ(degraded->hypotheses.front().kind, HypothesisKind::kDegradedLink);
  bool against = false;
  for (const auto& h : degraded->hypotheses) {
    if (h.kind != HypothesisKind::kFlappingLink) continue;
    for (const auto& e : h.evidence_against) against = against || e.rfind("link_downed_rising absent", 0) == 0;
  }
  EXPECT_TRUE(against);
}

TEST(Hypotheses, XmitWaitSupportsTheCongestedSwitch) {
  analysis::AnalysisResult r;
  analysis::PathFinding b;
  b.node = "spine0";
  b.kind = analysis::PathFindingKind::kBottleneck;
  b.evidence = "carries 96% of paths";
  r.paths.bottlenecks.push_back(b);
  r.paths_present = true;
  auto without = BuildHypotheses(r);
  r.port_counters.present = true;
  r.port_counters.findings = {CounterFinding(analysis::PortCounterFindingKind::kXmitWait, "spine0", 4, "leaf0--spine0")};
  auto with = BuildHypotheses(r);
  ASSERT_TRUE(without.ok() && with.ok());
  ASSERT_EQ(with->symptoms.size(), 1U);
  EXPECT_EQ(with->symptoms[0].hypotheses.front().kind, HypothesisKind::kCongestedSwitch);
  EXPECT_GT(with->symptoms[0].hypotheses.front().probability, without->symptoms[0].hypotheses.front().probability);
}

}  // namespace hypotheses_test
}  // namespace toposcope::act
