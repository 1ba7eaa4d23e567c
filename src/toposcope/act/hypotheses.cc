// act/hypotheses: the fault hypothesis tree: the model's table, the posterior of one symptom, and
// the symptoms an analysis result's findings raise (see hypotheses.h and docs/hypotheses.md).
#include "toposcope/act/hypotheses.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/act/ring_plan.h"
#include "toposcope/analysis/fabric/link_weights.h"
#include "toposcope/base/link_type.h"
#include "toposcope/base/names.h"

namespace toposcope::act {

namespace {

using H = HypothesisKind;
using S = SymptomKind;
using E = Evidence;

}  // namespace

std::string_view HypothesisKindName(HypothesisKind k) {
  switch (k) {
    case H::kNoise: return "noise";
    case H::kNvlinkLanesDown: return "nvlink_lanes_down";
    case H::kPcieDowntrain: return "pcie_downtrain";
    case H::kThermalLinkDownspeed: return "thermal_link_downspeed";
    case H::kStraggler: return "straggler";
    case H::kClockStep: return "clock_step";
    case H::kDcgmSamplingSlow: return "dcgm_sampling_slow";
    case H::kCongestedSwitch: return "congested_switch";
    case H::kDegradedLink: return "degraded_link";
    case H::kFlappingLink: return "flapping_link";
    case H::kDetour: return "detour";
    case H::kSlowHost: return "slow_host";
    case H::kPeriodicCongestion: return "periodic_congestion";
    case H::kMultiTenantContention: return "multi_tenant_contention";
    case H::kEcmpPolarisation: return "ecmp_polarisation";
  }
  return "noise";
}

std::string_view SymptomKindName(SymptomKind k) {
  switch (k) {
    case S::kSlowGpuLink: return "slow_gpu_link";
    case S::kLateRank: return "late_rank";
    case S::kClockJump: return "clock_jump";
    case S::kTelemetryGap: return "telemetry_gap";
    case S::kSlowPath: return "slow_path";
    case S::kSlowCable: return "slow_cable";
    case S::kSlowHostLink: return "slow_host_link";
    case S::kBurstyLink: return "bursty_link";
  }
  return "slow_gpu_link";
}

std::string_view EvidenceName(Evidence e) {
  switch (e) {
    case E::kNvlinkLanesBelowPeers: return "nvlink_lanes_below_peers";
    case E::kPcieLinkSlow: return "pcie_link_slow";
    case E::kThermalFinding: return "thermal_finding";
    case E::kStragglerFinding: return "straggler_finding";
    case E::kClockStepFinding: return "clock_step_finding";
    case E::kSamplingSlow: return "sampling_slow";
    case E::kBottleneckSwitch: return "bottleneck_switch";
    case E::kRedundantHop: return "redundant_hop";
    case E::kCableBelowUsual: return "cable_below_usual";
    case E::kCableSlowTomography: return "cable_slow_tomography";
    case E::kHostCableSlow: return "host_cable_slow";
    case E::kPeriodicMode: return "periodic_mode";
    case E::kContentionMode: return "contention_mode";
    case E::kForeignQps: return "foreign_qps";
    case E::kPolarisationRisk: return "polarisation_risk";
    case E::kRoutesSilent: return "routes_silent";
    case E::kLinkDownedRising: return "link_downed_rising";
    case E::kPortErrorsRising: return "port_errors_rising";
    case E::kXmitWaitHigh: return "xmit_wait_high";
  }
  return "straggler_finding";
}

// THE TABLE. docs/hypotheses.md gives the reason for every number; change both together.
const HypothesisModel& DefaultHypothesisModel() {
  static const HypothesisModel kModel{
      // Priors per symptom (normalised over the rows of the symptom).
      {
          {S::kSlowGpuLink, H::kNvlinkLanesDown, 0.30},
          {S::kSlowGpuLink, H::kPcieDowntrain, 0.30},
          {S::kSlowGpuLink, H::kThermalLinkDownspeed, 0.15},
          {S::kSlowGpuLink, H::kNoise, 0.25},
          {S::kLateRank, H::kStraggler, 0.40},
          {S::kLateRank, H::kThermalLinkDownspeed, 0.10},
          {S::kLateRank, H::kClockStep, 0.10},
          {S::kLateRank, H::kSlowHost, 0.10},
          {S::kLateRank, H::kNoise, 0.30},
          {S::kClockJump, H::kClockStep, 0.70},
          {S::kClockJump, H::kNoise, 0.30},
          {S::kTelemetryGap, H::kDcgmSamplingSlow, 0.75},
          {S::kTelemetryGap, H::kNoise, 0.25},
          {S::kSlowPath, H::kCongestedSwitch, 0.30},
          {S::kSlowPath, H::kDetour, 0.30},
          {S::kSlowPath, H::kDegradedLink, 0.10},
          {S::kSlowPath, H::kNoise, 0.30},
          {S::kSlowCable, H::kDegradedLink, 0.40},
          {S::kSlowCable, H::kCongestedSwitch, 0.15},
          {S::kSlowCable, H::kFlappingLink, 0.10},
          {S::kSlowCable, H::kNoise, 0.35},
          {S::kSlowHostLink, H::kSlowHost, 0.45},
          {S::kSlowHostLink, H::kDegradedLink, 0.15},
          {S::kSlowHostLink, H::kNoise, 0.40},
          {S::kBurstyLink, H::kPeriodicCongestion, 0.30},
          {S::kBurstyLink, H::kMultiTenantContention, 0.30},
          {S::kBurstyLink, H::kEcmpPolarisation, 0.10},
          {S::kBurstyLink, H::kNoise, 0.30},
      },
      // P(evidence observed | hypothesis), where it differs from the base rate.
      {
          {E::kNvlinkLanesBelowPeers, H::kNvlinkLanesDown, 0.95},
          {E::kPcieLinkSlow, H::kPcieDowntrain, 0.95},
          {E::kPcieLinkSlow, H::kNvlinkLanesDown, 0.01},
          {E::kNvlinkLanesBelowPeers, H::kPcieDowntrain, 0.01},
          {E::kThermalFinding, H::kThermalLinkDownspeed, 0.90},
          {E::kStragglerFinding, H::kStraggler, 0.95},
          {E::kStragglerFinding, H::kThermalLinkDownspeed, 0.30},
          {E::kStragglerFinding, H::kClockStep, 0.30},
          {E::kStragglerFinding, H::kSlowHost, 0.30},
          {E::kClockStepFinding, H::kClockStep, 0.95},
          {E::kSamplingSlow, H::kDcgmSamplingSlow, 0.99},
          {E::kBottleneckSwitch, H::kCongestedSwitch, 0.90},
          {E::kBottleneckSwitch, H::kDetour, 0.20},
          {E::kRedundantHop, H::kDetour, 0.90},
          {E::kRedundantHop, H::kCongestedSwitch, 0.02},
          {E::kCableBelowUsual, H::kDegradedLink, 0.85},
          {E::kCableSlowTomography, H::kDegradedLink, 0.80},
          {E::kCableSlowTomography, H::kCongestedSwitch, 0.30},
          {E::kCableSlowTomography, H::kFlappingLink, 0.20},
          {E::kRoutesSilent, H::kFlappingLink, 0.90},
          {E::kLinkDownedRising, H::kFlappingLink, 0.95},
          {E::kLinkDownedRising, H::kDegradedLink, 0.05},
          {E::kPortErrorsRising, H::kDegradedLink, 0.90},
          {E::kPortErrorsRising, H::kFlappingLink, 0.70},
          {E::kXmitWaitHigh, H::kCongestedSwitch, 0.85},
          {E::kXmitWaitHigh, H::kDetour, 0.20},
          {E::kHostCableSlow, H::kSlowHost, 0.90},
          {E::kHostCableSlow, H::kDegradedLink, 0.50},
          {E::kPeriodicMode, H::kPeriodicCongestion, 0.85},
          {E::kPeriodicMode, H::kEcmpPolarisation, 0.30},
          {E::kContentionMode, H::kMultiTenantContention, 0.85},
          {E::kContentionMode, H::kEcmpPolarisation, 0.20},
          {E::kForeignQps, H::kMultiTenantContention, 0.90},
          {E::kPolarisationRisk, H::kEcmpPolarisation, 0.95},
      },
      // Base rates: P(observed | no row), noise included.
      {
          {E::kNvlinkLanesBelowPeers, 0.02},
          {E::kPcieLinkSlow, 0.03},
          {E::kThermalFinding, 0.02},
          {E::kStragglerFinding, 0.05},
          {E::kClockStepFinding, 0.02},
          {E::kSamplingSlow, 0.01},
          {E::kBottleneckSwitch, 0.03},
          {E::kRedundantHop, 0.02},
          {E::kCableBelowUsual, 0.01},
          {E::kCableSlowTomography, 0.03},
          {E::kRoutesSilent, 0.02},
          {E::kLinkDownedRising, 0.01},
          {E::kPortErrorsRising, 0.03},
          {E::kXmitWaitHigh, 0.05},
          {E::kHostCableSlow, 0.03},
          {E::kPeriodicMode, 0.03},
          {E::kContentionMode, 0.05},
          {E::kForeignQps, 0.03},
          {E::kPolarisationRisk, 0.60},
      },
  };
  return kModel;
}

namespace {

Status ModelError(const std::string& where, const std::string& what) {
  return MakeKindError(ErrorKind::kUsage, "hypothesis model: " + where + ": " + what,
                       "every prior must be finite and > 0, every likelihood and base rate in (0, 1)");
}

bool InOpenUnit(double p) { return std::isfinite(p) && p > 0 && p < 1; }

}  // namespace

Status ValidateHypothesisModel(const HypothesisModel& model) {
  for (size_t i = 0; i < model.priors.size(); ++i) {
    const PriorRow& r = model.priors[i];
    if (!std::isfinite(r.prior) || r.prior <= 0) {
      return ModelError("priors row " + std::to_string(i) + " (" + std::string(SymptomKindName(r.symptom)) + ", " +
                            std::string(HypothesisKindName(r.hypothesis)) + ")",
                        "prior " + std::to_string(r.prior) + " is not a positive finite number");
    }
  }
  for (size_t i = 0; i < model.likelihoods.size(); ++i) {
    const LikelihoodRow& r = model.likelihoods[i];
    if (!InOpenUnit(r.p_present)) {
      return ModelError("likelihoods row " + std::to_string(i) + " (" + std::string(EvidenceName(r.evidence)) + ", " +
                            std::string(HypothesisKindName(r.hypothesis)) + ")",
                        "P(e|h) " + std::to_string(r.p_present) + " is not in (0, 1)");
    }
  }
  std::set<Evidence> based;
  for (size_t i = 0; i < model.base_rates.size(); ++i) {
    const BaseRateRow& r = model.base_rates[i];
    if (!InOpenUnit(r.p_present)) {
      return ModelError("base_rates row " + std::to_string(i) + " (" + std::string(EvidenceName(r.evidence)) + ")",
                        "base rate " + std::to_string(r.p_present) + " is not in (0, 1)");
    }
    based.insert(r.evidence);
  }
  for (const LikelihoodRow& r : model.likelihoods) {
    if (based.count(r.evidence) == 0U) {
      return ModelError("evidence " + std::string(EvidenceName(r.evidence)), "has no base rate");
    }
  }
  return {};
}

namespace {

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The host of a GPU name ("HOST/gpuN"), or the name itself.
std::string HostOf(const std::string& entity) {
  auto g = ParseGpuName(entity);
  return g ? g->host : entity;
}
int GpuIndexOf(const std::string& entity) {
  auto g = ParseGpuName(entity);
  return g ? g->index : -1;
}

// The two ends of "A--B" or "A~B" (a lone name: both the name).
std::pair<std::string, std::string> EndsOf(const std::string& id) {
  for (const char* sep : {"--", "~"}) {
    const size_t at = id.find(sep);
    if (at != std::string::npos) return {id.substr(0, at), id.substr(at + std::string(sep).size())};
  }
  return {id, id};
}

// The hypothesis' entity: what it blames, from the symptom's.
std::string EntityOf(HypothesisKind h, SymptomKind s, const std::string& symptom_entity) {
  if ((h == H::kClockStep || h == H::kSlowHost) && s == S::kLateRank) return HostOf(symptom_entity);
  return symptom_entity;
}

// A concrete command that would confirm or rule out `h` on `entity`.
std::string NextCheck(HypothesisKind h, const std::string& entity, SymptomKind symptom) {
  const std::string host = HostOf(entity);
  const int gpu = GpuIndexOf(entity);
  const std::string on_gpu = gpu >= 0 ? " -i " + std::to_string(gpu) : "";
  const auto [a, b] = EndsOf(entity);
  switch (h) {
    case H::kNoise:
      switch (symptom) {
        case S::kSlowPath:
          return "probe the paths through " + a + " again (ibtracert between hosts of two of its leaves) and compare";
        case S::kSlowCable:
          return "read iblinkinfo and perfquery on the ports of " + entity + " twice, minutes apart, and compare";
        case S::kBurstyLink:
          return "rerun all_reduce_perf -b 8M -e 1G -f 2 on hosts " + a + "," + b + " twice and compare busbw";
        case S::kClockJump:
          return "on " + host + ": chronyc sourcestats / pmc -u -b 0 'GET TIME_STATUS_NP' (offset noise)";
        case S::kTelemetryGap:
          return "on " + host + ": dcgmi dmon -l (the fields and their intervals)";
        default:
          return "repeat the measurement: all_reduce_perf -b 8M -e 1G on " + host + " and a healthy peer";
      }
    case H::kNvlinkLanesDown:
      return "on " + host + ": nvidia-smi nvlink --status" + on_gpu + " (lanes/links inactive or below peers' speed)";
    case H::kPcieDowntrain:
      return "on " + host +
             ": nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,"
             "pcie.link.width.max --format=csv" + on_gpu;
    case H::kThermalLinkDownspeed:
      return "on " + host + ": nvidia-smi -q -d TEMPERATURE,PERFORMANCE" + on_gpu +
             " (temperature against its limits, thermal slowdown active)";
    case H::kStraggler:
      return "on " + host + ": nvidia-smi -q -d PERFORMANCE,CLOCK" + on_gpu +
             "; run all_reduce_perf on " + host + " and a healthy peer";
    case H::kClockStep:
      return "on " + host + ": chronyc tracking / journalctl -u ptp4l (a step of the system clock)";
    case H::kDcgmSamplingSlow:
      return "on " + host + ": dcgmi dmon -l and the exporter's collect interval (needs <= 100 ms for NVLink fields)";
    case H::kCongestedSwitch:
      return "perfquery -x on every port of switch " + a + " (PortXmitWait rising) and ibroute " + a +
             " (ECMP weights)";
    case H::kDegradedLink:
      return "iblinkinfo (width/speed of " + entity + ") and perfquery -x <lid> <port> on both ends of " + entity +
             " (SymbolErrorCounter, PortRcvErrors, LinkErrorRecoveryCounter rising)";
    case H::kFlappingLink:
      return "perfquery -x <lid> <port> on both ends of " + entity +
             " twice, minutes apart (LinkDownedCounter and LinkErrorRecoveryCounter rising); ibportstate to reset "
             "the port, then reseat or replace the cable";
    case H::kDetour:
      return "ibroute on the leaves whose paths cross " + a + " and ibtracert between their hosts (off-shortest "
             "static routes)";
    case H::kSlowHost:
      return "ib_write_lat between " + host + " and a host on the same leaf; compare with a second pair";
    case H::kPeriodicCongestion:
      return "perfquery -x on the switch ports between " + a + " and " + b +
             " (PortXmitWait, congestion marks); all_reduce_perf on hosts " + a + "," + b;
    case H::kMultiTenantContention:
      return "rdma res show qp on " + a + " and " + b + " (QPs of other jobs); squeue -w " + a + "," + b;
    case H::kEcmpPolarisation:
      return "rerun all_reduce_perf on hosts " + a + "," + b + " with NCCL_IB_QPS_PER_CONNECTION=4";
  }
  return "";
}

// The likelihood ratio an evidence item must reach (or fall below the inverse of) to be listed.
constexpr double kTellingRatio = 1.5;

double LikelihoodOf(const HypothesisModel& m, Evidence e, HypothesisKind h, double base) {
  for (const LikelihoodRow& r : m.likelihoods) {
    if (r.evidence == e && r.hypothesis == h) return r.p_present;
  }
  return base;
}

double BaseRateOf(const HypothesisModel& m, Evidence e) {
  for (const BaseRateRow& r : m.base_rates) {
    if (r.evidence == e) return r.p_present;
  }
  return NAN;
}

}  // namespace

Result<std::vector<Hypothesis>> RankHypotheses(SymptomKind kind, const std::string& entity,
                                               const std::vector<EvidenceItem>& evidence,
                                               const HypothesisModel& model) {
  if (Status st = ValidateHypothesisModel(model); !st.ok()) return st.error();
  std::vector<Hypothesis> out;
  double prior_sum = 0;
  for (const PriorRow& r : model.priors) {
    if (r.symptom != kind) continue;
    Hypothesis h;
    h.kind = r.hypothesis;
    h.entity = EntityOf(r.hypothesis, kind, entity);
    h.prior = r.prior;
    prior_sum += r.prior;
    out.push_back(std::move(h));
  }
  if (out.empty()) {
    return MakeKindError(ErrorKind::kUsage,
                         "hypothesis model: no prior for symptom " + std::string(SymptomKindName(kind)));
  }
  double total = 0;
  for (Hypothesis& h : out) {
    h.prior /= prior_sum;
    double p = h.prior;
    std::vector<std::pair<double, std::string>> pro, con;  // |log LR|, line
    for (const EvidenceItem& e : evidence) {
      const double base = BaseRateOf(model, e.evidence);
      if (!std::isfinite(base)) {
        return MakeKindError(ErrorKind::kUsage,
                             "hypothesis model: evidence " + std::string(EvidenceName(e.evidence)) + " has no base rate");
      }
      const double l = LikelihoodOf(model, e.evidence, h.kind, base);
      const double lr = e.present ? l / base : (1 - l) / (1 - base);
      p *= e.present ? l : 1 - l;
      const std::string line = std::string(EvidenceName(e.evidence)) + (e.present ? "" : " absent") +
                               (e.detail.empty() ? "" : ": " + e.detail);
      // For: it raises h at least 1.5-fold. Against: it lowers h as much, or it was seen and h does
      // not explain it (no more likely under h than under noise).
      if (lr >= kTellingRatio) {
        pro.emplace_back(std::log(lr), line);
      } else if (lr <= 1 / kTellingRatio || (e.present && lr <= 1)) {
        con.emplace_back(-std::log(lr), e.present && lr > 1 / kTellingRatio ? line + " (not explained by it)" : line);
      }
    }
    for (auto* v : {&pro, &con}) {
      std::stable_sort(v->begin(), v->end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    }
    for (auto& [w, line] : pro) h.evidence_for.push_back(std::move(line));
    for (auto& [w, line] : con) h.evidence_against.push_back(std::move(line));
    h.probability = p;
    total += p;
  }
  for (Hypothesis& h : out) {
    h.probability = total > 0 ? h.probability / total : h.prior;
    h.next_check = NextCheck(h.kind, h.entity, kind);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Hypothesis& a, const Hypothesis& b) { return a.probability > b.probability; });
  return out;
}

namespace {

// Every finding the tree uses, keyed by the entity it names.
struct Facts {
  std::map<std::string, std::string> nvlink_low, pcie_slow, thermal, straggler;  // GPU -> detail
  std::map<std::string, std::string> clock_step, sampling;                        // host -> detail
  std::map<std::string, std::string> bottleneck, redundant;                       // switch -> detail
  std::map<std::string, std::string> below_usual, slow_cable;  // inter-switch cable -> detail
  std::map<std::string, std::string> silent;                   // inter-switch cable -> detail
  std::map<std::string, std::string> link_downed, port_errors;  // cable -> detail (port counters)
  std::map<std::string, std::string> xmit_wait;                 // switch -> detail (port counters)
  bool counters = false;                                        // perfquery reads in the data set
  std::map<std::string, std::vector<std::pair<int, int>>> cable_ports;  // cable -> (LID, port) read
  std::map<std::string, std::string> host_below_usual, host_cable_slow;  // host -> detail
  std::map<std::string, std::pair<analysis::TrafficMode, std::string>> modes;  // host pair -> mode
  std::map<std::string, std::string> polarisation;                           // host pair -> advice
  std::map<std::string, std::string> foreign;  // host pair -> flows no NCCL log names (SEND / READ)
  std::set<std::string> hosts;
  std::vector<std::string> skipped;
};

// "A~B" with the ends sorted.
std::string PairId(const std::string& link) {
  const auto [a, b] = EndsOf(link);
  return a < b ? a + "~" + b : b + "~" + a;
}

// Degraded GPU links: per host, the GPUs in the most degraded links (a PCIe or NVLink fault on one
// GPU degrades every link it is in); the kind of those links says NVLink or PCIe.
void CollectGpuLinks(const analysis::AnalysisResult& r, Facts& f) {
  std::map<std::string, std::map<std::string, std::vector<const analysis::LinkReport*>>> by_host;
  for (const auto& l : r.links) {
    if (!l.degraded) continue;
    for (const std::string& g : {l.a, l.b}) {
      auto ref = ParseGpuName(g);
      if (!ref) continue;
      by_host[ref->host][g].push_back(&l);
    }
  }
  for (const auto& [host, gpus] : by_host) {
    size_t most = 0;
    for (const auto& [g, links] : gpus) most = std::max(most, links.size());
    for (const auto& [g, links] : gpus) {
      if (links.size() != most) continue;
      const analysis::LinkReport& first = *links.front();
      const std::string detail = std::to_string(links.size()) + " degraded link(s), e.g. " + first.a + "-" + first.b +
                                 ": " + first.evidence;
      bool nvlink = false, pcie = false;
      for (const auto* l : links) {
        nvlink = nvlink || IsNvlinkFamily(l->type) || (l->expected_lanes > 0 && l->lanes < l->expected_lanes);
        pcie = pcie || IsPcie(l->type);
      }
      if (nvlink) f.nvlink_low[g] = detail;
      if (pcie) f.pcie_slow[g] = detail;
    }
  }
}

void CollectTelemetry(const analysis::AnalysisResult& r, Facts& f) {
  for (const auto& t : r.telemetry.findings) {
    if (t.host.empty()) {
      f.skipped.push_back(std::string(analysis::TelemetryFindingKindName(t.kind)) + " finding without a host");
      continue;
    }
    f.hosts.insert(t.host);
    const std::string gpu = t.gpu >= 0 ? GpuName(t.host, t.gpu) : t.host;
    switch (t.kind) {
      case analysis::TelemetryFindingKind::kThermalLinkDownspeed: f.thermal[gpu] = t.evidence; break;
      case analysis::TelemetryFindingKind::kStraggler: f.straggler[gpu] = t.evidence; break;
      case analysis::TelemetryFindingKind::kClockStep: f.clock_step[t.host] = t.evidence; break;
    }
  }
  for (const auto& w : r.telemetry.sampling_warnings) {
    if (w.host.empty()) continue;
    std::string& d = f.sampling[w.host];
    if (!d.empty()) continue;  // the first field names the period; the others share it
    d = w.field + " sampled every " + (std::isfinite(w.period_ms) ? Fmt("%.0f", w.period_ms) : "?") +
        " ms (needs <= " + std::to_string(w.needed_period_ms) + " ms)";
  }
}

// The names the fabric dump gives its nodes (switch descriptions, adapters' hosts).
std::map<std::string, std::string> FabricNames(const analysis::FabricReport& fabric) {
  std::map<std::string, std::string> name;
  for (const auto& s : fabric.switches) name[s.id] = s.desc.empty() ? s.id : s.desc;
  for (const auto& c : fabric.cas) name[c.id] = c.name.empty() ? c.id : c.name;
  return name;
}

void CollectFabric(const analysis::AnalysisResult& r, Facts& f) {
  if (!r.fabric.present) return;
  for (const auto& h : r.fabric.hosts) f.hosts.insert(h);
  const auto name = FabricNames(r.fabric);
  auto named = [&name](const std::string& id) {
    auto it = name.find(id);
    return it == name.end() ? id : it->second;
  };
  auto add = [&](const std::string& a, const std::string& b, const std::string& detail) {
    const std::string na = named(a), nb = named(b);
    if (f.hosts.count(na) != 0U) {
      f.host_below_usual.emplace(na, detail);
    } else if (f.hosts.count(nb) != 0U) {
      f.host_below_usual.emplace(nb, detail);
    } else {
      f.below_usual.emplace(analysis::CableId(na, nb), detail);
    }
  };
  for (const auto& x : r.fabric.findings) {
    if (x.kind == analysis::FabricFindingKind::kLinkBelowUsual && !x.peer.empty()) add(x.node, x.peer, x.evidence);
  }
  for (const auto& m : r.fabric.mismatches) {
    add(m.a.node, m.b.node, std::string("its two ends print different ") +
                                (m.width_differs ? (m.speed_differs ? "widths and speeds" : "widths") : "speeds"));
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Tomography outliers, host cables and inter-switch cables judged apart.
void CollectTomography(const analysis::AnalysisResult& r, const HypothesisOptions& opt, Facts& f) {
  if (!r.link_weights.present) return;
  struct Cable {
    std::string id, host;
    double us;
  };
  std::vector<Cable> host_cables, switch_cables;
  for (const auto& l : r.link_weights.tomography.links) {
    if (!l.identifiable) continue;
    if (!std::isfinite(l.latency_us)) {
      f.skipped.push_back("cable " + l.link + ": tomography latency is not a number");
      continue;
    }
    const auto [a, b] = EndsOf(l.link);
    const bool ha = f.hosts.count(a) != 0U, hb = f.hosts.count(b) != 0U;
    if (ha || hb) {
      host_cables.push_back({l.link, ha ? a : b, l.latency_us});
    } else {
      switch_cables.push_back({l.link, "", l.latency_us});
    }
  }
  for (auto* set : {&host_cables, &switch_cables}) {
    if (set->size() < 3) continue;
    std::vector<double> us, dev;
    for (const auto& c : *set) us.push_back(c.us);
    const double med = Median(us);
    for (double x : us) dev.push_back(std::abs(x - med));
    const double scale = 1.4826 * std::max(Median(dev), opt.outlier_floor_us);
    for (const auto& c : *set) {
      if (c.us <= med + opt.outlier_mad_k * scale) continue;
      const std::string detail = c.id + " " + Fmt("%.3f", c.us) + " us per crossing against a median " +
                                 Fmt("%.3f", med) + " us (" + Fmt("%.1f", (c.us - med) / scale) + " robust sd above)";
      if (c.host.empty()) {
        f.slow_cable[c.id] = detail;
      } else {
        f.host_cable_slow[c.host] = detail;
      }
    }
  }
}

// Other jobs' QPs: with NCCL logs naming the job's QPs (some flow paired by them), a flow between two
// hosts that no log names and that carries SEND or READ packets (NCCL's IB transport moves its data
// by RDMA WRITE) belongs to another tenant.
bool HasNcclCandidate(const analysis::Flow& fl) {
  return std::any_of(fl.candidates.begin(), fl.candidates.end(),
                     [](const auto& c) { return c.first == analysis::QpPairing::kNcclLog; });
}

void CollectForeignQps(const analysis::AnalysisResult& r, Facts& f) {
  const auto& flows = r.rdma.flows.flows;
  if (std::none_of(flows.begin(), flows.end(), HasNcclCandidate)) return;
  std::map<std::string, int> count;
  for (const auto& fl : flows) {
    if (fl.src_host.empty() || fl.dst_host.empty() || fl.src_host == fl.dst_host || HasNcclCandidate(fl)) continue;
    const auto& m = fl.opcode_mix;
    if (m[analysis::kOpSend] + m[analysis::kOpReadReq] + m[analysis::kOpReadResp] == 0) continue;
    ++count[PairId(fl.src_host + "~" + fl.dst_host)];
  }
  for (const auto& [pair, n] : count) {
    f.foreign[pair] = std::to_string(n) + " flow(s) of SEND / READ packets that no NCCL log names";
  }
}

// Flapping cables: act/ring_plan's test on the probes' timing (the avoided cables whose routes fell
// silent in more time windows than chance allows).
void CollectFlapping(const analysis::AnalysisResult& r, const HypothesisOptions& opt, Facts& f) {
  if (opt.probes == nullptr || opt.probes->empty()) return;
  auto plan = PlanRing(RingPlanInputsOf(r, opt.probes));
  if (!plan.ok()) {
    f.skipped.push_back("flapping test: " + plan.error().ToString());
    return;
  }
  for (const AvoidedCable& a : plan->avoided) {
    const size_t at = a.reason.find("routes fell silent");
    if (at == std::string::npos) continue;
    const size_t end = a.reason.find(';', at);
    f.silent[a.cable] = a.reason.substr(at, end == std::string::npos ? std::string::npos : end - at);
  }
}

// Port counter findings (the port_counters pass): per cable the first finding of each kind (both
// ends of a cable usually report it), per switch its first transmit-wait finding.
void CollectPortCounters(const analysis::AnalysisResult& r, Facts& f) {
  if (!r.port_counters.present) return;
  f.counters = true;
  for (const auto& p : r.port_counters.ports) {
    if (!p.cable.empty()) f.cable_ports[p.cable].emplace_back(p.lid, p.port);
  }
  for (const auto& x : r.port_counters.findings) {
    switch (x.kind) {
      case analysis::PortCounterFindingKind::kLinkDowned:
        if (!x.cable.empty()) f.link_downed.emplace(x.cable, x.evidence);
        break;
      case analysis::PortCounterFindingKind::kLinkErrors:
        if (!x.cable.empty()) f.port_errors.emplace(x.cable, x.evidence);
        break;
      case analysis::PortCounterFindingKind::kXmitWait: f.xmit_wait.emplace(x.node_name, x.evidence); break;
    }
  }
}

void CollectTraffic(const analysis::AnalysisResult& r, Facts& f) {
  for (const auto& p : r.paths.bottlenecks) f.bottleneck[p.node] = p.evidence;
  for (const auto& p : r.paths.redundant_hops) f.redundant[p.node] = p.evidence;
  for (const auto& m : r.rdma.entropy.modes) {
    if (m.link.find('~') == std::string::npos) continue;  // capture points name no host pair
    if (m.mode != analysis::TrafficMode::kPeriodicCongestion && m.mode != analysis::TrafficMode::kMultiTenantContention) {
      continue;
    }
    f.modes[PairId(m.link)] = {m.mode, m.evidence};
  }
  for (const auto& l : r.rdma.entropy.links) {
    if (l.link.find('~') != std::string::npos && l.polarisation_risk) f.polarisation[PairId(l.link)] = l.advice;
  }
  CollectForeignQps(r, f);
}

EvidenceItem Item(Evidence e, const std::map<std::string, std::string>& facts, const std::string& key) {
  auto it = facts.find(key);
  return {e, it != facts.end(), it != facts.end() ? it->second : ""};
}

// The first fact naming either end of a cable.
EvidenceItem EndItem(Evidence e, const std::map<std::string, std::string>& facts, const std::string& cable) {
  const auto [a, b] = EndsOf(cable);
  EvidenceItem item = Item(e, facts, a);
  if (!item.present) item = Item(e, facts, b);
  if (item.present) item.detail = (facts.count(a) != 0U ? a : b) + ": " + item.detail;
  return item;
}

struct SymptomSeed {
  SymptomKind kind;
  std::string entity, summary;
  std::vector<EvidenceItem> evidence;
};

std::string FirstOf(std::initializer_list<const std::map<std::string, std::string>*> maps, const std::string& key) {
  for (const auto* m : maps) {
    auto it = m->find(key);
    if (it != m->end()) return it->second;
  }
  return "";
}

void SeedGpuSymptoms(const Facts& f, std::vector<SymptomSeed>& out) {
  std::set<std::string> gpus;
  for (const auto* m : {&f.nvlink_low, &f.pcie_slow, &f.thermal}) {
    for (const auto& [g, d] : *m) gpus.insert(g);
  }
  for (const std::string& g : gpus) {
    out.push_back({S::kSlowGpuLink, g, FirstOf({&f.nvlink_low, &f.pcie_slow, &f.thermal}, g),
                   {Item(E::kNvlinkLanesBelowPeers, f.nvlink_low, g), Item(E::kPcieLinkSlow, f.pcie_slow, g),
                    Item(E::kThermalFinding, f.thermal, g)}});
  }
  for (const auto& [g, d] : f.straggler) {
    const std::string host = HostOf(g);
    out.push_back({S::kLateRank, g, d,
                   {Item(E::kStragglerFinding, f.straggler, g), Item(E::kThermalFinding, f.thermal, g),
                    Item(E::kClockStepFinding, f.clock_step, host), Item(E::kHostCableSlow, f.host_cable_slow, host)}});
  }
  for (const auto& [h, d] : f.clock_step) out.push_back({S::kClockJump, h, d, {Item(E::kClockStepFinding, f.clock_step, h)}});
  for (const auto& [h, d] : f.sampling) out.push_back({S::kTelemetryGap, h, d, {Item(E::kSamplingSlow, f.sampling, h)}});
}

void SeedFabricSymptoms(const Facts& f, bool opt_probes, std::vector<SymptomSeed>& out) {
  std::set<std::string> switches;
  for (const auto* m : {&f.bottleneck, &f.redundant}) {
    for (const auto& [s, d] : *m) switches.insert(s);
  }
  for (const std::string& s : switches) {
    EvidenceItem slow{E::kCableSlowTomography, false, ""};
    for (const auto& [cable, d] : f.slow_cable) {
      const auto [a, b] = EndsOf(cable);
      if (a == s || b == s) {
        slow = {E::kCableSlowTomography, true, d};
        break;
      }
    }
    std::vector<EvidenceItem> ev{Item(E::kBottleneckSwitch, f.bottleneck, s), Item(E::kRedundantHop, f.redundant, s), slow};
    if (f.counters) ev.push_back(Item(E::kXmitWaitHigh, f.xmit_wait, s));  // observed only with counters
    out.push_back({S::kSlowPath, s, FirstOf({&f.bottleneck, &f.redundant}, s), std::move(ev)});
  }
  std::set<std::string> cables;
  for (const auto* m : {&f.below_usual, &f.slow_cable, &f.silent, &f.link_downed, &f.port_errors}) {
    for (const auto& [c, d] : *m) cables.insert(c);
  }
  for (const std::string& c : cables) {
    std::vector<EvidenceItem> ev{Item(E::kCableBelowUsual, f.below_usual, c),
                                 Item(E::kCableSlowTomography, f.slow_cable, c),
                                 EndItem(E::kBottleneckSwitch, f.bottleneck, c)};
    if (opt_probes) ev.push_back(Item(E::kRoutesSilent, f.silent, c));  // observed only with probes
    if (f.counters) {  // observed only with port counters
      ev.push_back(Item(E::kLinkDownedRising, f.link_downed, c));
      ev.push_back(Item(E::kPortErrorsRising, f.port_errors, c));
      ev.push_back(EndItem(E::kXmitWaitHigh, f.xmit_wait, c));
    }
    out.push_back({S::kSlowCable, c,
                   FirstOf({&f.below_usual, &f.slow_cable, &f.silent, &f.link_downed, &f.port_errors}, c),
                   std::move(ev)});
  }
  std::set<std::string> hosts;
  for (const auto* m : {&f.host_below_usual, &f.host_cable_slow}) {
    for (const auto& [h, d] : *m) hosts.insert(h);
  }
  for (const std::string& h : hosts) {
    EvidenceItem late{E::kStragglerFinding, false, ""};
    for (const auto& [g, d] : f.straggler) {
      if (HostOf(g) == h) late = {E::kStragglerFinding, true, g + ": " + d};
    }
    out.push_back({S::kSlowHostLink, h, FirstOf({&f.host_cable_slow, &f.host_below_usual}, h),
                   {Item(E::kHostCableSlow, f.host_cable_slow, h), Item(E::kCableBelowUsual, f.host_below_usual, h),
                    late}});
  }
  std::set<std::string> pairs;
  for (const auto& [pair, mode] : f.modes) pairs.insert(pair);
  for (const auto& [pair, d] : f.foreign) pairs.insert(pair);
  for (const std::string& pair : pairs) {
    auto it = f.modes.find(pair);
    const bool has_mode = it != f.modes.end();
    const bool periodic = has_mode && it->second.first == analysis::TrafficMode::kPeriodicCongestion;
    const bool contention = has_mode && !periodic;
    const std::string mode_detail = has_mode ? it->second.second : "";
    out.push_back({S::kBurstyLink, pair, has_mode ? mode_detail : f.foreign.at(pair),
                   {{E::kPeriodicMode, periodic, periodic ? mode_detail : ""},
                    {E::kContentionMode, contention, contention ? mode_detail : ""},
                    Item(E::kForeignQps, f.foreign, pair), Item(E::kPolarisationRisk, f.polarisation, pair)}});
  }
}

// A congested switch blamed for a slow cable is the cable's end that paths crowd onto.
void BlameSwitchEnd(const Facts& f, Symptom& s) {
  if (s.kind != S::kSlowCable) return;
  const auto [a, b] = EndsOf(s.entity);
  for (Hypothesis& h : s.hypotheses) {
    if (h.kind != H::kCongestedSwitch) continue;
    h.entity = f.bottleneck.count(b) != 0U && f.bottleneck.count(a) == 0U ? b : a;
    h.next_check = NextCheck(h.kind, h.entity, s.kind);
  }
}

// The next checks of a cable's hypotheses with the LIDs and ports its counters were read from.
void NamePorts(const Facts& f, Symptom& s) {
  auto it = f.cable_ports.find(s.entity);
  if (s.kind != S::kSlowCable || it == f.cable_ports.end()) return;
  std::string cmds;
  for (const auto& [lid, port] : it->second) {
    cmds += (cmds.empty() ? "" : " and ") + std::string("perfquery -x ") + std::to_string(lid) + " " + std::to_string(port);
  }
  const std::string from = "perfquery -x <lid> <port> on both ends of " + s.entity;
  const std::string to = cmds + " (the ends of " + s.entity + ")";
  for (Hypothesis& h : s.hypotheses) {
    const size_t at = h.next_check.find(from);
    if (at != std::string::npos) h.next_check.replace(at, from.size(), to);
  }
}

// What a symptom costs the job: 0 it slows the job's data path (GPU links, ranks, switches,
// cables), 1 it shares a link with others (bursty pairs), 2 it clouds the measurement (clock jumps,
// telemetry gaps).
int Tier(SymptomKind k) {
  switch (k) {
    case S::kBurstyLink: return 1;
    case S::kClockJump:
    case S::kTelemetryGap: return 2;
    default: return 0;
  }
}

double TopFault(const Symptom& s) {
  for (const Hypothesis& h : s.hypotheses) {
    if (h.kind != H::kNoise) return h.probability;
  }
  return 0;
}

}  // namespace

Result<HypothesisTree> BuildHypotheses(const analysis::AnalysisResult& result, const HypothesisOptions& opt,
                                       const HypothesisModel& model) {
  if (Status st = ValidateHypothesisModel(model); !st.ok()) return st.error();
  Facts f;
  for (const auto& g : result.gpus) f.hosts.insert(g.host);
  for (const auto& c : result.clocks) f.hosts.insert(c.host);
  for (const auto& h : result.inferred_leaves.hosts) f.hosts.insert(h);
  CollectGpuLinks(result, f);
  CollectTelemetry(result, f);
  CollectFabric(result, f);
  CollectTomography(result, opt, f);
  CollectTraffic(result, f);
  CollectFlapping(result, opt, f);
  CollectPortCounters(result, f);
  std::vector<SymptomSeed> seeds;
  SeedGpuSymptoms(f, seeds);
  SeedFabricSymptoms(f, opt.probes != nullptr && !opt.probes->empty(), seeds);
  HypothesisTree tree;
  tree.skipped = std::move(f.skipped);
  for (SymptomSeed& seed : seeds) {
    Symptom s;
    s.kind = seed.kind;
    s.entity = seed.entity;
    s.summary = seed.summary;
    s.evidence = std::move(seed.evidence);
    auto ranked = RankHypotheses(s.kind, s.entity, s.evidence, model);
    if (!ranked.ok()) return ranked.error();
    s.hypotheses = std::move(*ranked);
    BlameSwitchEnd(f, s);
    NamePorts(f, s);
    for (size_t i = 0; i < s.hypotheses.size() && i < 2; ++i) {
      s.next_check += (i == 0 ? "" : " | ") + s.hypotheses[i].next_check;
    }
    tree.max_fault_probability = std::max(tree.max_fault_probability, TopFault(s));
    tree.symptoms.push_back(std::move(s));
  }
  std::stable_sort(tree.symptoms.begin(), tree.symptoms.end(), [](const Symptom& a, const Symptom& b) {
    if (Tier(a.kind) != Tier(b.kind)) return Tier(a.kind) < Tier(b.kind);
    const double pa = TopFault(a), pb = TopFault(b);
    if (pa != pb) return pa > pb;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.entity < b.entity;
  });
  return tree;
}

}  // namespace toposcope::act
