#include "toposcope/analysis/node/links.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "toposcope/base/names.h"
#include "toposcope/base/text.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

using stats::Median;

double Mean(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// True when the NVLink pairs of a host form a full mesh of n >= 3 GPUs whose lane counts could not
// all be direct links (a GPU has at most 18): the GPUs then meet through NVSwitches.
bool LooksLikeNvswitchMesh(const std::map<model::GpuPair, model::DeclaredLink>& links) {
  std::set<int> gpus;
  int max_lanes = 0;
  size_t nv_pairs = 0;
  for (const auto& [p, l] : links) {
    if (!IsNvlinkFamily(l.cls.type)) continue;
    ++nv_pairs;
    gpus.insert(p.first);
    gpus.insert(p.second);
    max_lanes = std::max(max_lanes, l.cls.lanes);
  }
  const size_t n = gpus.size();
  if (n < 3 || nv_pairs != n * (n - 1) / 2) return false;
  return static_cast<size_t>(max_lanes) * (n - 1) > 18;
}

struct Draft {
  std::string host;
  model::GpuPair pair;
  LinkClass cls;
  LinkTypeSource type_source = LinkTypeSource::kBandwidth;
  double bw = NAN;
};

constexpr NamedValue<ThresholdPreset> kPresetNames[] = {
    {ThresholdPreset::kModern, "modern"}, {ThresholdPreset::kSeed, "seed"}};

constexpr NamedValue<LinkTypeSource> kTypeSourceNames[] = {
    {LinkTypeSource::kNvidiaSmiTopo, "nvidia-smi-topo"},
    {LinkTypeSource::kNvidiaSmiTopoNcclXml, "nvidia-smi-topo+nccl-topo-xml"},
    {LinkTypeSource::kNcclTopoXml, "nccl-topo-xml"}, {LinkTypeSource::kBandwidth, "bandwidth"}};

constexpr NamedValue<BandwidthClass> kBandwidthClassNames[] = {
    {BandwidthClass::kNone, ""}, {BandwidthClass::kNvlink, "nvlink"},
    {BandwidthClass::kPcieSwitch, "pcie_switch"}, {BandwidthClass::kPcieCpu, "pcie_cpu"}};

}  // namespace

std::string_view ThresholdPresetName(ThresholdPreset p) { return NameIn(kPresetNames, p, "modern"); }

std::optional<ThresholdPreset> ParseThresholdPreset(std::string_view name) {
  return ValueIn(kPresetNames, name);
}

std::string_view LinkTypeSourceName(LinkTypeSource s) { return NameIn(kTypeSourceNames, s, "bandwidth"); }

std::string_view BandwidthClassName(BandwidthClass c) { return NameIn(kBandwidthClassNames, c, ""); }

Thresholds SeedThresholds() {
  Thresholds t;
  t.nvlink_min_gbps = 12.0;
  t.pcie_cpu_max_gbps = 2.0;
  t.preset = ThresholdPreset::kSeed;
  return t;
}

Thresholds ModernThresholds() { return Thresholds{}; }

Thresholds PresetThresholds(ThresholdPreset preset) {
  return preset == ThresholdPreset::kSeed ? SeedThresholds() : ModernThresholds();
}

BandwidthClass ClassifyBandwidth(double bandwidth_gbps, const Thresholds& t) {
  if (std::isnan(bandwidth_gbps)) return BandwidthClass::kNone;
  if (bandwidth_gbps >= t.nvlink_min_gbps) return BandwidthClass::kNvlink;
  if (bandwidth_gbps <= t.pcie_cpu_max_gbps) return BandwidthClass::kPcieCpu;
  return BandwidthClass::kPcieSwitch;
}

namespace {

// The drafts of every host's links: the type from what the node declares (nvidia-smi topo refined
// by NCCL's XML, else the XML), else from the measured bandwidth; the measured bandwidth's mean.
std::vector<Draft> DraftLinks(const model::Dataset& ds, const Thresholds& t) {
  std::vector<Draft> drafts;
  for (const auto& [host, h] : ds.hosts) {
    std::set<model::GpuPair> pairs;
    for (const auto& [p, _] : h.nvsmi_links) pairs.insert(p);
    for (const auto& [p, _] : h.xml_links) pairs.insert(p);
    for (const auto& [p, _] : h.measured) pairs.insert(p);
    const bool nvsmi_nvswitch = LooksLikeNvswitchMesh(h.nvsmi_links);
    for (const auto& p : pairs) {
      Draft d;
      d.host = host;
      d.pair = p;
      if (auto it = h.measured.find(p); it != h.measured.end()) d.bw = Mean(it->second.samples_gbps);
      auto nv = h.nvsmi_links.find(p);
      auto xml = h.xml_links.find(p);
      if (nv != h.nvsmi_links.end()) {
        d.cls = nv->second.cls;
        d.type_source = LinkTypeSource::kNvidiaSmiTopo;
        if (IsNvlinkFamily(d.cls.type)) {
          if (xml != h.xml_links.end() && IsNvlinkFamily(xml->second.cls.type)) {
            d.cls.type = xml->second.cls.type;  // the XML names NVSwitch vs direct links
            d.type_source = LinkTypeSource::kNvidiaSmiTopoNcclXml;
          } else if (nvsmi_nvswitch) {
            d.cls.type = LinkType::kNvswitch;
          }
        }
      } else if (xml != h.xml_links.end()) {
        d.cls = xml->second.cls;
        d.type_source = LinkTypeSource::kNcclTopoXml;
      } else {
        const BandwidthClass c = ClassifyBandwidth(d.bw, t);
        d.cls.type = c == BandwidthClass::kNvlink       ? LinkType::kNvlink
                     : c == BandwidthClass::kPcieSwitch ? LinkType::kPix
                                                        : LinkType::kSys;
        d.type_source = LinkTypeSource::kBandwidth;
      }
      drafts.push_back(d);
    }
  }
  return drafts;
}

// What links of one type show (on one host, or across the fleet).
struct Ref {
  std::map<int, int> lane_votes;
  std::vector<double> per_lane;  // NVLink: bw / lanes of links at the modal lanes
  std::vector<double> bw;        // all measured bandwidths
};

// The modal lane count of a reference (the larger count on ties; 0 with no votes).
int ModalLanes(const Ref& r) {
  int best = 0, votes = -1;
  for (const auto& [lanes, n] : r.lane_votes) {
    if (n > votes || (n == votes && lanes > best)) {
      best = lanes;
      votes = n;
    }
  }
  return best;
}

// References: per host and type, the modal lane count and the per-lane (NVLink) or per-link (PCIe)
// median bandwidth; per type across the fleet as a fallback.
struct LinkRefs {
  std::map<std::pair<std::string, LinkType>, Ref> host;
  std::map<LinkType, Ref> fleet;
  std::map<LinkType, double> fleet_median;
};

// The references of the drafts.
LinkRefs BuildRefs(const std::vector<Draft>& drafts) {
  LinkRefs refs;
  for (const auto& d : drafts) {
    Ref& r = refs.host[{d.host, d.cls.type}];
    if (d.cls.lanes > 0) ++r.lane_votes[d.cls.lanes];
    if (!std::isnan(d.bw)) {
      r.bw.push_back(d.bw);
      refs.fleet[d.cls.type].bw.push_back(d.bw);
    }
  }
  for (const auto& d : drafts) {
    Ref& r = refs.host[{d.host, d.cls.type}];
    const int m = ModalLanes(r);
    if (m > 0 && d.cls.lanes == m && !std::isnan(d.bw)) r.per_lane.push_back(d.bw / m);
  }
  for (auto& [type, r] : refs.fleet) refs.fleet_median[type] = Median(r.bw);
  return refs;
}

// Sets l->expected_lanes / expected_gbps of draft `d` from its host reference `r` (else the
// fleet's); returns the basis of the expectation ("" when there is none).
std::string SetExpectation(const Draft& d, const Ref& r, LinkRefs& refs, LinkReport* l) {
  std::string basis;
  if (IsNvlinkFamily(d.cls.type) && d.cls.lanes > 0) {
    l->expected_lanes = ModalLanes(r);
    if (!r.per_lane.empty()) {
      l->expected_gbps = Median(r.per_lane) * l->expected_lanes;
      basis = "per-lane median of " + std::to_string(r.per_lane.size()) + " " +
              std::string(LinkTypeName(d.cls.type)) + " links on the host x " +
              std::to_string(l->expected_lanes) + " lanes";
    }
  } else if (r.bw.size() >= 3) {
    l->expected_gbps = Median(r.bw);
    basis = "median of " + std::to_string(r.bw.size()) + " " + std::string(LinkTypeName(d.cls.type)) +
            " links on the host";
  } else if (refs.fleet[d.cls.type].bw.size() >= 3) {
    l->expected_gbps = refs.fleet_median[d.cls.type];
    basis = "median of " + std::to_string(refs.fleet[d.cls.type].bw.size()) + " " +
            std::string(LinkTypeName(d.cls.type)) + " links in the fleet";
  }
  return basis;
}

// The verdict on a link with its expectation set: degraded or not, the confidence in that under the
// noise quantiles `nq`, and the evidence (`basis`: where the expectation comes from).
void JudgeLink(const Draft& d, const std::string& basis, const Thresholds& t, const stats::NoiseQuantiles& nq,
               LinkReport* l) {
  const bool lanes_low = l->expected_lanes > 0 && l->lanes > 0 && l->lanes < l->expected_lanes;
  const double ratio = l->bandwidth_gbps / l->expected_gbps;  // NaN when either is unknown
  const bool bw_low = !std::isnan(ratio) && ratio < t.degraded_ratio;
  l->degraded = lanes_low || bw_low;
  std::string ev;
  if (lanes_low) {
    ev += std::to_string(l->lanes) + " NVLink lanes where its peers have " + std::to_string(l->expected_lanes);
  }
  if (!std::isnan(ratio)) {
    if (!ev.empty()) ev += "; ";
    ev += "measured " + FormatFixed(l->bandwidth_gbps, 1) + " GB/s = " + FormatFixed(100 * ratio, 1) +
          "% of expected " + FormatFixed(l->expected_gbps, 1) + " GB/s (" + basis + ")";
    // Confidence in the verdict under the noise model: for a degraded verdict, how unlikely a
    // healthy link measures this low; for a healthy one, how unlikely a link degraded to the
    // threshold measures this high.
    const double p_healthy_this_low = nq.Cdf(ratio - 1.0);
    const double p_degraded_this_high = 1.0 - nq.Cdf(ratio / t.degraded_ratio - 1.0);
    l->confidence = l->degraded ? (bw_low ? 1.0 - p_healthy_this_low : 0.99) : 1.0 - p_degraded_this_high;
    if (lanes_low) l->confidence = std::max(l->confidence, 0.99);
  } else if (lanes_low) {
    l->confidence = 0.99;
    ev += " (declared; bandwidth not measured)";
  } else if (std::isnan(l->bandwidth_gbps)) {
    ev += "not measured";
  } else {
    ev += "measured " + FormatFixed(l->bandwidth_gbps, 1) + " GB/s; no reference for its type";
  }
  if (l->bandwidth_class != BandwidthClass::kNone && d.type_source != LinkTypeSource::kBandwidth) {
    const bool declared_nv = IsNvlinkFamily(l->type);
    const bool measured_nv = l->bandwidth_class == BandwidthClass::kNvlink;
    if (declared_nv != measured_nv) {
      ev += "; declared " + std::string(LinkTypeName(l->type)) + " but the bandwidth looks like " +
            std::string(BandwidthClassName(l->bandwidth_class));
    }
  }
  l->evidence = ev;
}

}  // namespace

std::vector<LinkReport> AnalyzeLinks(const model::Dataset& ds, const Thresholds& t,
                                     const stats::NoiseModel& noise) {
  const stats::NoiseQuantiles nq = stats::EstimateNoise(noise, 50000, 12345);
  const std::vector<Draft> drafts = DraftLinks(ds, t);
  LinkRefs refs = BuildRefs(drafts);
  std::vector<LinkReport> out;
  out.reserve(drafts.size());
  for (const auto& d : drafts) {
    const Ref& r = refs.host[{d.host, d.cls.type}];
    LinkReport l;
    l.a = GpuName(d.host, d.pair.first);
    l.b = GpuName(d.host, d.pair.second);
    l.type = d.cls.type;
    l.lanes = IsNvlinkFamily(d.cls.type) ? d.cls.lanes : 0;
    l.type_source = d.type_source;
    l.bandwidth_gbps = d.bw;
    l.bandwidth_class = ClassifyBandwidth(d.bw, t);
    const std::string basis = SetExpectation(d, r, refs, &l);
    JudgeLink(d, basis, t, nq, &l);
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace toposcope::analysis
