#include "toposcope/analysis/node/links.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <iterator>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "toposcope/analysis/node/gpu_design.h"
#include "toposcope/base/hash.h"
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

// True when some GPU's NVLink lanes (over all its peers) exceed what its model is built with (the
// most any GPU has when the model is not known): the GPUs then meet through NVSwitches. A DGX-2's
// GPU shows NV6 to 15 peers (90 lanes of 6); a DGX-1's NV1/NV2 links add up to its 6.
bool LanesNeedNvswitch(const model::HostEvidence& h, const std::map<model::GpuPair, model::DeclaredLink>& links) {
  std::map<int, int> lanes;
  for (const auto& [p, l] : links) {
    if (!IsNvlinkFamily(l.cls.type)) continue;
    lanes[p.first] += l.cls.lanes;
    lanes[p.second] += l.cls.lanes;
  }
  for (const auto& [gpu, total] : lanes) {
    auto it = h.gpus.find(gpu);
    const int design = it != h.gpus.end() ? DesignNvlinkLinks(it->second) : 0;
    if (total > (design > 0 ? design : kMaxNvlinkLinksPerGpu)) return true;
  }
  return false;
}

struct Draft {
  std::string host;
  model::GpuPair pair;
  LinkClass cls;
  LinkTypeSource type_source = LinkTypeSource::kBandwidth;
  double bw = NAN;
  double staged_bw = NAN;         // P2P=Disabled copies, when measured beside P2P=Enabled ones
  double ceiling = NAN;           // the pair's PCIe ceiling (NaN: generations unknown)
  BandwidthClass bw_class = BandwidthClass::kNone;
  std::string island_note;        // why a pair slower than NVLink is NVLink all the same (PromoteInIsland,
                                  // InferBandwidthNvswitch); empty for the others
};

constexpr NamedValue<ThresholdPreset> kPresetNames[] = {
    {ThresholdPreset::kModern, "modern"}, {ThresholdPreset::kSeed, "seed"}};

constexpr NamedValue<LinkTypeSource> kTypeSourceNames[] = {
    {LinkTypeSource::kNvidiaSmiTopo, "nvidia-smi-topo"},
    {LinkTypeSource::kNvidiaSmiTopoNcclXml, "nvidia-smi-topo+nccl-topo-xml"},
    {LinkTypeSource::kNcclTopoXml, "nccl-topo-xml"}, {LinkTypeSource::kBandwidth, "bandwidth"}};

constexpr NamedValue<BandwidthClass> kBandwidthClassNames[] = {
    {BandwidthClass::kNone, ""}, {BandwidthClass::kNvlink, "nvlink"},
    {BandwidthClass::kPcieSwitch, "pcie_switch"}, {BandwidthClass::kPcieCpu, "pcie_cpu"},
    {BandwidthClass::kPcie, "pcie"}};

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

BandwidthClass ClassifyPairBandwidth(double bandwidth_gbps, double pcie_ceiling_gbps, const Thresholds& t) {
  if (std::isnan(bandwidth_gbps)) return BandwidthClass::kNone;
  if (std::isnan(pcie_ceiling_gbps)) return ClassifyBandwidth(bandwidth_gbps, t);
  return bandwidth_gbps > pcie_ceiling_gbps ? BandwidthClass::kNvlink : BandwidthClass::kPcie;
}

namespace {

// Bandwidth-only drafts of one host: a pair slower than NVLink whose two GPUs are NVLink-fast to
// every other GPU of their NVLink component (3 GPUs or more) is a degraded NVLink inside that
// island, not a PCIe path: a GPU pair of an NVSwitch island or a full direct mesh always shares
// NVLink. (A DGX-1's GPU 0 and 5 are not NVLink peers: GPU 0 lacks NVLink to 6 and 7.)
void PromoteInIsland(std::vector<Draft*>& host_drafts) {
  std::map<int, std::set<int>> peers;
  for (const Draft* d : host_drafts) {
    if (d->cls.type != LinkType::kNvlink) continue;
    peers[d->pair.first].insert(d->pair.second);
    peers[d->pair.second].insert(d->pair.first);
  }
  // Components over the NVLink pairs.
  std::map<int, int> comp;
  for (const auto& [g, _] : peers) {
    if (comp.count(g) != 0U) continue;
    std::vector<int> stack = {g};
    comp[g] = g;
    while (!stack.empty()) {
      const int x = stack.back();
      stack.pop_back();
      for (int y : peers[x]) {
        if (comp.emplace(y, g).second) stack.push_back(y);
      }
    }
  }
  for (Draft* d : host_drafts) {
    const auto [a, b] = d->pair;
    if (d->cls.type == LinkType::kNvlink || std::isnan(d->bw) || comp.count(a) == 0U || comp.count(b) == 0U ||
        comp[a] != comp[b]) {
      continue;
    }
    size_t members = 0;
    bool all = true;
    for (const auto& [g, c] : comp) {
      if (c != comp[a]) continue;
      ++members;
      if (g == a || g == b) continue;
      all = all && peers[a].count(g) != 0U && peers[b].count(g) != 0U;
    }
    if (!all || members < 3) continue;
    d->cls.type = LinkType::kNvlink;
    d->island_note = "both GPUs are NVLink to every other GPU of their island";
  }
}

// Bandwidth-only NVLink drafts of one host go through NVSwitches when some GPU needs more links
// than it has: each pair needs at least bandwidth / per-link line rate links (the model's rate, or
// the fastest NVLink's), and a GPU has its design's links (or the most any GPU has).
void InferBandwidthNvswitch(const model::HostEvidence& h, std::vector<Draft*>& host_drafts) {
  auto gpu_info = [&](int g) {
    auto it = h.gpus.find(g);
    return it != h.gpus.end() ? it->second : model::GpuInfo{};
  };
  std::map<int, int> needed;
  for (const Draft* d : host_drafts) {
    if (d->cls.type != LinkType::kNvlink || std::isnan(d->bw)) continue;
    for (int g : {d->pair.first, d->pair.second}) {
      const auto design = FindGpuDesign(gpu_info(g).model);
      const double rate = design && design->nvlink_link_gbps > 0 ? design->nvlink_link_gbps : kMaxNvlinkLinkGbps;
      needed[g] += std::max(1, static_cast<int>(std::ceil(d->bw / rate - 1e-9)));
    }
  }
  bool nvswitch = false;
  for (const auto& [g, links] : needed) {
    const int design = DesignNvlinkLinks(gpu_info(g));
    nvswitch = nvswitch || links > (design > 0 ? design : kMaxNvlinkLinksPerGpu);
  }
  if (!nvswitch) return;
  for (Draft* d : host_drafts) {
    if (d->cls.type == LinkType::kNvlink) {
      d->cls.type = LinkType::kNvswitch;
    } else if (!std::isnan(d->bw) && DesignNvlinkLinks(gpu_info(d->pair.first)) > 0 &&
               DesignNvlinkLinks(gpu_info(d->pair.second)) > 0) {
      // Two NVLink-built GPUs (SXM parts sit on the switched baseboard) of a switched host meet
      // through the NVSwitches even when one has lost most of its lanes.
      d->cls.type = LinkType::kNvswitch;
      d->island_note = "both GPUs are NVLink-built parts of a host whose GPUs meet through NVSwitches";
    }
  }
}

// The type of a bandwidth-only draft from its bandwidth class; kUnknown for a PCIe pair whose path
// bandwidth cannot tell.
LinkType TypeOfClass(BandwidthClass c) {
  switch (c) {
    case BandwidthClass::kNvlink:
      return LinkType::kNvlink;
    case BandwidthClass::kPcieSwitch:
      return LinkType::kPix;
    case BandwidthClass::kPcieCpu:
      return LinkType::kSys;
    case BandwidthClass::kPcie:
    case BandwidthClass::kNone:
      break;
  }
  return LinkType::kUnknown;
}

// The draft of pair `p` on host `h`: the type from what the node declares (nvidia-smi topo refined
// by NCCL's XML, else the XML), else from the measured bandwidth; the measured bandwidths' means.
Draft DraftOf(const std::string& host, const model::HostEvidence& h, const model::GpuPair& p, bool nvsmi_nvswitch,
              const Thresholds& t) {
  Draft d;
  d.host = host;
  d.pair = p;
  if (auto it = h.measured.find(p); it != h.measured.end()) {
    d.bw = Mean(it->second.samples_gbps);
    d.staged_bw = Mean(it->second.staged_samples_gbps);
  }
  d.ceiling = PairPcieCeilingGbps(h, p.first, p.second);
  d.bw_class = ClassifyPairBandwidth(d.bw, d.ceiling, t);
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
    d.cls.type = TypeOfClass(d.bw_class);
    d.type_source = LinkTypeSource::kBandwidth;
  }
  return d;
}

// The drafts of every host's links (DraftOf), bandwidth-only ones resolved by the island and
// NVSwitch rules above.
// The drafts of one host's GPU pairs.
std::vector<Draft> HostDrafts(const std::string& host, const model::HostEvidence& h, const Thresholds& t) {
  std::set<model::GpuPair> pairs;
  for (const auto& [p, _] : h.nvsmi_links) pairs.insert(p);
  for (const auto& [p, _] : h.xml_links) pairs.insert(p);
  for (const auto& [p, _] : h.measured) pairs.insert(p);
  for (const auto& [p, _] : h.p2p_status) pairs.insert(p);
  const bool nvsmi_nvswitch = LanesNeedNvswitch(h, h.nvsmi_links);
  std::vector<Draft> drafts;
  for (const auto& p : pairs) drafts.push_back(DraftOf(host, h, p, nvsmi_nvswitch, t));
  std::vector<Draft*> bandwidth_only;
  for (Draft& d : drafts) {
    if (d.type_source == LinkTypeSource::kBandwidth) bandwidth_only.push_back(&d);
  }
  PromoteInIsland(bandwidth_only);
  InferBandwidthNvswitch(h, bandwidth_only);
  return drafts;
}

// Every host's drafts, hosts in parallel (TBB), joined in host order: the same whatever the threads.
std::vector<Draft> DraftLinks(const model::Dataset& ds, const Thresholds& t) {
  std::vector<const std::pair<const std::string, model::HostEvidence>*> hosts;
  hosts.reserve(ds.hosts.size());
  for (const auto& kv : ds.hosts) hosts.push_back(&kv);
  std::vector<std::vector<Draft>> per_host(hosts.size());
  tbb::parallel_for(size_t{0}, hosts.size(),
                    [&](size_t i) { per_host[i] = HostDrafts(hosts[i]->first, hosts[i]->second, t); });
  std::vector<Draft> drafts;
  for (auto& v : per_host) std::move(v.begin(), v.end(), std::back_inserter(drafts));
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
// median bandwidth; per type across the fleet as a fallback; per GPU of a direct NVLink mesh, its
// lanes (declared) or NVLink bandwidth (measured) summed over its peers.
struct LinkRefs {
  std::map<std::pair<std::string, LinkType>, Ref> host;
  std::map<LinkType, Ref> fleet;
  std::map<LinkType, double> fleet_median;
  std::map<std::pair<std::string, int>, int> gpu_lanes;        // direct NVLink lanes per GPU
  std::map<std::string, int> host_max_lanes;                   // the most any GPU of the host has
  std::map<std::pair<std::string, int>, double> gpu_nvlink_bw;  // bandwidth-only direct NVLink, per GPU
  std::map<std::string, double> host_median_nvlink_bw;         // median of those per host
};

// The per-GPU sums of a direct NVLink mesh (LinkRefs).
void AddGpuTotals(const std::vector<Draft>& drafts, LinkRefs& refs) {
  for (const auto& d : drafts) {
    if (d.cls.type != LinkType::kNvlink) continue;
    for (int g : {d.pair.first, d.pair.second}) {
      if (d.cls.lanes > 0) refs.gpu_lanes[{d.host, g}] += d.cls.lanes;
      if (d.type_source == LinkTypeSource::kBandwidth && !std::isnan(d.bw)) refs.gpu_nvlink_bw[{d.host, g}] += d.bw;
    }
  }
  for (const auto& [key, lanes] : refs.gpu_lanes) {
    int& m = refs.host_max_lanes[key.first];
    m = std::max(m, lanes);
  }
  std::map<std::string, std::vector<double>> totals;
  for (const auto& [key, bw] : refs.gpu_nvlink_bw) totals[key.first].push_back(bw);
  for (const auto& [host, v] : totals) refs.host_median_nvlink_bw[host] = Median(v);
}

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
  AddGpuTotals(drafts, refs);
  return refs;
}

// The lanes a declared NVLink pair should have. Direct links: its lanes plus the lanes both its GPUs
// miss (a GPU has its model's design links, or, model unknown, as many as the host's best GPU): a
// DGX-1's NV1 links are whole by design, as its GPUs' 6 lanes are all used. Through NVSwitch: the
// smaller of the two GPUs' design links, or, models unknown, the host's modal lanes. Returns the
// lanes and sets `basis` to where they come from.
int ExpectedLanes(const model::HostEvidence& h, const Draft& d, const Ref& r, const LinkRefs& refs,
                  std::string* basis) {
  auto design = [&](int g) {
    auto it = h.gpus.find(g);
    return it != h.gpus.end() ? DesignNvlinkLinks(it->second) : 0;
  };
  const int da = design(d.pair.first);
  const int db = design(d.pair.second);
  if (d.cls.type == LinkType::kNvlink) {
    auto missing = [&](int g, int des) {
      auto it = refs.gpu_lanes.find({d.host, g});
      const int have = it != refs.gpu_lanes.end() ? it->second : 0;
      auto mx = refs.host_max_lanes.find(d.host);
      const int full = des > 0 ? des : (mx != refs.host_max_lanes.end() ? mx->second : have);
      return std::max(0, full - have);
    };
    *basis = da > 0 && db > 0 ? "its GPUs' design links" : "the lanes of the host's best-connected GPU";
    return d.cls.lanes + std::min(missing(d.pair.first, da), missing(d.pair.second, db));
  }
  if (da > 0 && db > 0) {
    *basis = "its GPUs' design links";
    return std::min(da, db);
  }
  *basis = "its peers";
  return ModalLanes(r);
}

// Sets l->expected_lanes / expected_gbps of draft `d` from its host reference `r` (else the
// fleet's); returns the basis of the expectation ("" when there is none); `lanes_basis` says where
// the expected lanes come from.
std::string SetExpectation(const model::HostEvidence& h, const Draft& d, const Ref& r, const LinkRefs& refs,
                           LinkReport* l, std::string* lanes_basis) {
  std::string basis;
  auto median_total = refs.host_median_nvlink_bw.find(d.host);
  if (IsNvlinkFamily(d.cls.type) && d.cls.lanes > 0) {
    l->expected_lanes = ExpectedLanes(h, d, r, refs, lanes_basis);
    if (!r.per_lane.empty()) {
      l->expected_gbps = Median(r.per_lane) * l->expected_lanes;
      basis = "per-lane median of " + std::to_string(r.per_lane.size()) + " " +
              std::string(LinkTypeName(d.cls.type)) + " links on the host x " +
              std::to_string(l->expected_lanes) + " lanes";
    }
  } else if (d.cls.type == LinkType::kNvlink && d.type_source == LinkTypeSource::kBandwidth &&
             median_total != refs.host_median_nvlink_bw.end() && !std::isnan(d.bw)) {
    // A direct mesh measured only: the pair plus the NVLink bandwidth both its GPUs miss against
    // the host's median GPU (links differ in width by design, GPUs do not).
    auto missing = [&](int g) {
      auto it = refs.gpu_nvlink_bw.find({d.host, g});
      return std::max(0.0, median_total->second - (it != refs.gpu_nvlink_bw.end() ? it->second : 0.0));
    };
    l->expected_gbps = d.bw + std::min(missing(d.pair.first), missing(d.pair.second));
    basis = "the pair plus the NVLink bandwidth both GPUs miss against the host's median GPU total of " +
            FormatFixed(median_total->second, 1) + " GB/s";
  } else if (r.bw.size() >= 3) {
    l->expected_gbps = Median(r.bw);
    basis = "median of " + std::to_string(r.bw.size()) + " " + std::string(LinkTypeName(d.cls.type)) +
            " links on the host";
  } else if (auto fleet = refs.fleet.find(d.cls.type); fleet != refs.fleet.end() && fleet->second.bw.size() >= 3) {
    l->expected_gbps = refs.fleet_median.at(d.cls.type);
    basis = "median of " + std::to_string(fleet->second.bw.size()) + " " + std::string(LinkTypeName(d.cls.type)) +
            " links in the fleet";
  }
  return basis;
}

// Notes on what the physics and the other inputs say of the pair: the PCIe ceiling it exceeds or the
// island it sits in, P2P-enabled copies slower than staged ones (a finding: degraded), the
// nvidia-smi -p2p status, and a declared type the bandwidth contradicts.
void AddPhysicsNotes(const model::HostEvidence& h, const Draft& d, const Thresholds& t,
                     const stats::NoiseQuantiles& nq, LinkReport* l, std::string* ev) {
  auto note = [&](const std::string& s) {
    if (!ev->empty()) *ev += "; ";
    *ev += s;
  };
  if (!d.island_note.empty()) {
    note((std::isnan(d.ceiling) ? std::string("slower than NVLink")
                                : "below the " + FormatFixed(d.ceiling, 1) + " GB/s its PCIe links carry") +
         ", but " + d.island_note + ": a degraded or narrower NVLink");
  } else if (d.type_source == LinkTypeSource::kBandwidth && d.bw_class == BandwidthClass::kNvlink &&
             !std::isnan(d.ceiling)) {
    note("above the " + FormatFixed(d.ceiling, 1) + " GB/s its PCIe links can carry: NVLink");
  }
  const double staged_ratio = d.bw / d.staged_bw;
  if (!std::isnan(staged_ratio) && staged_ratio < t.degraded_ratio) {
    l->degraded = true;
    // How unlikely a path whose P2P copies are as fast as its staged ones measures this much slower.
    const double c = 1.0 - nq.Cdf(staged_ratio - 1.0);
    if (std::isnan(l->confidence) || l->confidence < c) l->confidence = c;
    note("P2P-enabled copies at " + FormatFixed(d.bw, 1) + " GB/s are slower than staged (P2P=Disabled) ones at " +
         FormatFixed(d.staged_bw, 1) + " GB/s: peer-to-peer is broken on this path (ACS or the IOMMU redirecting it)");
  }
  if (auto it = h.p2p_status.find(d.pair); it != h.p2p_status.end() && it->second != "OK") {
    note("nvidia-smi topo -p2p: " + it->second);
  }
  if (l->bandwidth_class != BandwidthClass::kNone && d.type_source != LinkTypeSource::kBandwidth) {
    const bool declared_nv = IsNvlinkFamily(l->type);
    const bool measured_nv = l->bandwidth_class == BandwidthClass::kNvlink;
    if (declared_nv != measured_nv) {
      note("declared " + std::string(LinkTypeName(l->type)) + " but the bandwidth looks like " +
           std::string(BandwidthClassName(l->bandwidth_class)));
    }
  }
}

// The verdict on a link with its expectation set: degraded or not, the confidence in that under the
// noise quantiles `nq`, and the evidence (`basis`: where the expectation comes from; `lanes_basis`:
// where the expected lanes come from).
void JudgeLink(const model::HostEvidence& h, const Draft& d, const std::string& basis,
               const std::string& lanes_basis, const Thresholds& t, const stats::NoiseQuantiles& nq,
               LinkReport* l) {
  const bool lanes_low = l->expected_lanes > 0 && l->lanes > 0 && l->lanes < l->expected_lanes;
  const double ratio = l->bandwidth_gbps / l->expected_gbps;  // NaN when either is unknown
  const bool bw_low = !std::isnan(ratio) && ratio < t.degraded_ratio;
  l->degraded = lanes_low || bw_low;
  std::string ev;
  if (lanes_low) {
    ev += std::to_string(l->lanes) + " NVLink lanes where " + lanes_basis + " give it " +
          std::to_string(l->expected_lanes);
  }
  if (!std::isnan(ratio)) {
    if (!ev.empty()) ev += "; ";
    ev += "measured " + FormatFixed(l->bandwidth_gbps, 1) + " GB/s = " + FormatFixed(100 * ratio, 1) +
          "% of expected " + FormatFixed(l->expected_gbps, 1) + " GB/s (" + basis + ")";
    // Confidence in the verdict under the noise model: for a degraded verdict, how unlikely a
    // healthy link measures this low; for a healthy one, how unlikely a link degraded to the
    // threshold measures this high.
    // A lane deficit is judged the same way: how unlikely a link with the lanes it should have
    // measures this low.
    const double p_healthy_this_low = nq.Cdf(ratio - 1.0);
    const double p_degraded_this_high = 1.0 - nq.Cdf(ratio / t.degraded_ratio - 1.0);
    l->confidence = l->degraded ? 1.0 - p_healthy_this_low : 1.0 - p_degraded_this_high;
  } else if (lanes_low) {
    l->confidence = NAN;  // a declaration alone: no sample to measure it by
    ev += " (declared; bandwidth not measured, so the confidence is not measured)";
  } else if (std::isnan(l->bandwidth_gbps)) {
    ev += "not measured";
  } else {
    ev += "measured " + FormatFixed(l->bandwidth_gbps, 1) + " GB/s; no reference for its type";
  }
  AddPhysicsNotes(h, d, t, nq, l, &ev);
  l->evidence = ev;
}

}  // namespace

namespace {

// MeasuredNoise of the drafts of `ds` (the links pass drafts once for both).
NoiseFit NoiseOfDrafts(const model::Dataset& ds, const std::vector<Draft>& drafts, const stats::NoiseModel& prior) {
  std::map<std::tuple<std::string, LinkType, int>, std::vector<double>> groups;
  for (const Draft& d : drafts) {
    auto it = ds.hosts.at(d.host).measured.find(d.pair);
    if (it == ds.hosts.at(d.host).measured.end()) continue;
    auto& g = groups[{d.host, d.cls.type, d.cls.lanes}];
    for (double v : it->second.samples_gbps) {
      if (std::isfinite(v) && v > 0) g.push_back(v);
    }
  }
  std::vector<double> residuals;
  for (const auto& [key, v] : groups) {
    if (v.size() < 4) continue;
    const double m = Median(v);
    for (double x : v) residuals.push_back(x / m - 1.0);
  }
  NoiseFit nf;
  nf.model = prior;
  nf.samples = static_cast<int>(residuals.size());
  const stats::StableFit fit = stats::FitStableQuantiles(residuals, 50);
  if (!fit.ok) {
    nf.source = "prior";
    nf.note = "repeated P2P bandwidth measurements: " + fit.note;
    return nf;
  }
  nf.fitted = true;
  nf.source = "p2p_bandwidth_repeats";
  nf.model.alpha = fit.alpha;
  nf.model.beta = fit.beta;
  nf.model.scale = fit.scale;
  std::sort(residuals.begin(), residuals.end());
  uint64_t h = kFnv1aOffsetBasis;
  for (double r : residuals) {
    const auto q = static_cast<int64_t>(std::llround(r * 1e9));
    for (int b = 0; b < 8; ++b) h = Fnv1aByte(h, static_cast<uint8_t>(static_cast<uint64_t>(q) >> (8 * b)));
  }
  nf.seed = h;
  // The residuals are relative to each group's median: the model's draws are centred the same way
  // (without this, a fit near alpha = 1 puts most S1 draws outside the truncation bound).
  nf.model.location = stats::LocationForMedian(nf.model, fit.location, h);
  if (!std::isfinite(nf.model.location)) nf.model.location = 0;
  return nf;
}

}  // namespace

NoiseFit MeasuredNoise(const model::Dataset& ds, const Thresholds& t, const stats::NoiseModel& prior) {
  return NoiseOfDrafts(ds, DraftLinks(ds, t), prior);
}

std::vector<LinkReport> AnalyzeLinks(const model::Dataset& ds, const Thresholds& t, const stats::NoiseModel& noise,
                                     NoiseFit* fit) {
  const std::vector<Draft> drafts = DraftLinks(ds, t);
  const NoiseFit nf = NoiseOfDrafts(ds, drafts, noise);
  const stats::NoiseQuantiles nq = stats::EstimateNoise(nf.model, 50000, nf.seed);
  const LinkRefs refs = BuildRefs(drafts);  // holds a reference for every draft's host and type
  std::vector<LinkReport> out(drafts.size());
  // Each link is judged on its own: in parallel (TBB), each into its own slot.
  tbb::parallel_for(size_t{0}, drafts.size(), [&](size_t i) {
    const Draft& d = drafts[i];
    const Ref& r = refs.host.at({d.host, d.cls.type});
    LinkReport& l = out[i];
    l.a = GpuName(d.host, d.pair.first);
    l.b = GpuName(d.host, d.pair.second);
    l.type = d.cls.type;
    l.lanes = IsNvlinkFamily(d.cls.type) ? d.cls.lanes : 0;
    l.type_source = d.type_source;
    l.bandwidth_gbps = d.bw;
    l.bandwidth_class = d.bw_class;
    const model::HostEvidence& h = ds.hosts.at(d.host);
    std::string lanes_basis;
    const std::string basis = SetExpectation(h, d, r, refs, &l, &lanes_basis);
    JudgeLink(h, d, basis, lanes_basis, t, nq, &l);
  });
  if (fit != nullptr) *fit = nf;
  return out;
}

}  // namespace toposcope::analysis
