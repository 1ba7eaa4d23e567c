#include "toposcope/analysis/node/islands.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <iterator>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "toposcope/analysis/node/gpu_design.h"
#include "toposcope/base/names.h"
#include "toposcope/base/text.h"
#include "toposcope/stats/spectral.h"

namespace toposcope::analysis {
namespace {

constexpr double kSigmoidWidth = 0.15;  // in ln units: x1.16 around T moves the affinity 0.27 -> 0.73
// The affinity of a pair the physics settles (above the PCIe ceiling, or inside an NVLink island).
constexpr double kSureAffinity = 0.95;

// 1 / (1 + exp(-ln(b / T) / width)); 0 for a bandwidth that is not > 0 (NaN included).
double SoftStep(double bandwidth_gbps, double threshold_gbps) {
  if (!(bandwidth_gbps > 0)) return 0.0;
  return 1.0 / (1.0 + std::exp(-std::log(bandwidth_gbps / threshold_gbps) / kSigmoidWidth));
}

// Union-find components over the NVLink-family pairs of one declared source.
std::vector<int> DeclaredComponents(const std::vector<int>& gpus,
                                    const std::map<model::GpuPair, model::DeclaredLink>& links) {
  std::map<int, int> pos;
  for (size_t i = 0; i < gpus.size(); ++i) pos[gpus[i]] = static_cast<int>(i);
  std::vector<int> parent(gpus.size());
  std::iota(parent.begin(), parent.end(), 0);
  std::function<int(int)> find = [&](int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); };
  for (const auto& [p, l] : links) {
    if (!IsNvlinkFamily(l.cls.type)) continue;
    auto a = pos.find(p.first);
    auto b = pos.find(p.second);
    if (a == pos.end() || b == pos.end()) continue;
    parent[find(a->second)] = find(b->second);
  }
  std::vector<int> label(gpus.size());
  std::map<int, int> renum;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const int r = find(static_cast<int>(i));
    auto it = renum.emplace(r, static_cast<int>(renum.size())).first;
    label[i] = it->second;
  }
  return label;
}

// Same partition up to renaming.
bool SamePartition(const std::vector<int>& a, const std::vector<int>& b) {
  if (a.size() != b.size()) return false;
  std::map<int, int> ab, ba;
  for (size_t i = 0; i < a.size(); ++i) {
    auto [x, nx] = ab.emplace(a[i], b[i]);
    auto [y, ny] = ba.emplace(b[i], a[i]);
    if (x->second != b[i] || y->second != a[i]) return false;
  }
  return true;
}

constexpr NamedValue<IslandKind> kKindNames[] = {
    {IslandKind::kUnknown, "unknown"}, {IslandKind::kNvswitch, "nvswitch"}, {IslandKind::kNvlink, "nvlink"},
    {IslandKind::kPcie, "pcie"}};

constexpr NamedValue<IslandMethod> kMethodNames[] = {
    {IslandMethod::kNone, "none"}, {IslandMethod::kSpectral, "spectral"},
    {IslandMethod::kSpectralPartial, "spectral (partial matrix)"}, {IslandMethod::kDeclared, "declared"}};

}  // namespace

std::string_view IslandKindName(IslandKind k) { return NameIn(kKindNames, k, "unknown"); }

std::string_view IslandMethodName(IslandMethod m) { return NameIn(kMethodNames, m, "none"); }

double IslandAffinity(double bandwidth_gbps, const Thresholds& t) {
  return SoftStep(bandwidth_gbps, t.nvlink_min_gbps);
}

double PairAffinity(double bandwidth_gbps, double pcie_ceiling_gbps, const LinkReport* link, const Thresholds& t) {
  double a = SoftStep(bandwidth_gbps, std::isnan(pcie_ceiling_gbps) ? t.nvlink_min_gbps : pcie_ceiling_gbps);
  if (link == nullptr || !(bandwidth_gbps > 0)) return a;
  // What the links pass made of the measurement: its physics verdict for a bandwidth-only link
  // (an in-island degraded NVLink included), else the bandwidth class alone (never the declared type,
  // which the islands are checked against).
  const bool nv = link->type_source == LinkTypeSource::kBandwidth ? IsNvlinkFamily(link->type)
                                                                   : link->bandwidth_class == BandwidthClass::kNvlink;
  const bool pcie = link->type_source == LinkTypeSource::kBandwidth ? !IsNvlinkFamily(link->type)
                                                                     : link->bandwidth_class == BandwidthClass::kPcie;
  if (nv) a = std::max(a, kSureAffinity);
  if (pcie && !std::isnan(pcie_ceiling_gbps)) a = std::min(a, 1.0 - kSureAffinity);
  return a;
}

namespace {

using LinkByPair = std::map<std::pair<std::string, std::string>, const LinkReport*>;

// One host's islands and GPUs (nothing when it has no GPUs).
IslandOutput HostIslands(const std::string& host, const model::HostEvidence& h, const LinkByPair& link_by_pair,
                         const Thresholds& t) {
  IslandOutput out;
  std::vector<int> gpus;
  for (const auto& [idx, _] : h.gpus) gpus.push_back(idx);
  if (gpus.empty()) return out;
  const size_t n = gpus.size();
  std::vector<int> labels(n, 0);
  IslandMethod method = IslandMethod::kNone;
  bool measured_all = true;
  if (!h.measured.empty()) {
    Eigen::MatrixXd w = Eigen::MatrixXd::Zero(static_cast<int>(n), static_cast<int>(n));
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = i + 1; j < n; ++j) {
        auto it = h.measured.find(model::MakePair(gpus[i], gpus[j]));
        if (it == h.measured.end()) {
          measured_all = false;
          continue;
        }
        double s = 0;
        for (double v : it->second.samples_gbps) s += v;
        auto lk = link_by_pair.find({GpuName(host, gpus[i]), GpuName(host, gpus[j])});
        const double a = PairAffinity(s / static_cast<double>(it->second.samples_gbps.size()),
                                      PairPcieCeilingGbps(h, gpus[i], gpus[j]),
                                      lk != link_by_pair.end() ? lk->second : nullptr, t);
        w(static_cast<int>(i), static_cast<int>(j)) = a;
        w(static_cast<int>(j), static_cast<int>(i)) = a;
      }
    }
    stats::SpectralOptions opt;
    opt.isolated_degree = 0.3;
    opt.max_clusters = static_cast<int>(n);
    const stats::SpectralResult sr = stats::SpectralClusterDense(w, opt);
    labels = sr.labels;
    method = measured_all ? IslandMethod::kSpectral : IslandMethod::kSpectralPartial;
  } else {
    const auto& declared = !h.nvsmi_links.empty() ? h.nvsmi_links : h.xml_links;
    labels = DeclaredComponents(gpus, declared);
    method = declared.empty() ? IslandMethod::kNone : IslandMethod::kDeclared;
  }
  std::vector<std::pair<std::string, bool>> agree;
  if (!h.nvsmi_links.empty()) agree.emplace_back("nvidia-smi-topo", SamePartition(labels, DeclaredComponents(gpus, h.nvsmi_links)));
  if (!h.xml_links.empty()) agree.emplace_back("nccl-topo-xml", SamePartition(labels, DeclaredComponents(gpus, h.xml_links)));

  // Number islands by their smallest member.
  std::map<int, int> renum;
  for (size_t i = 0; i < n; ++i) renum.emplace(labels[i], static_cast<int>(renum.size()));
  std::vector<IslandReport> islands(renum.size());
  for (size_t i = 0; i < n; ++i) {
    const int k = renum[labels[i]];
    islands[k].members.push_back(GpuName(host, gpus[i]));
    GpuReport g;
    g.id = GpuName(host, gpus[i]);
    g.host = host;
    g.index = gpus[i];
    g.island = host + "/island" + std::to_string(k);
    out.gpus.push_back(g);
  }
  for (size_t k = 0; k < islands.size(); ++k) {
    IslandReport& isl = islands[k];
    isl.id = host + "/island" + std::to_string(k);
    isl.host = host;
    isl.method = method;
    isl.agrees_with = agree;
    if (method == IslandMethod::kNone) {
      isl.kind = IslandKind::kUnknown;  // nothing measured or declared about this host's GPU pairs
      continue;
    }
    if (isl.members.size() == 1) {
      isl.kind = IslandKind::kPcie;
      continue;
    }
    bool any_switch = false;
    for (size_t i = 0; i < isl.members.size(); ++i) {
      for (size_t j = i + 1; j < isl.members.size(); ++j) {
        auto it = link_by_pair.find({isl.members[i], isl.members[j]});
        if (it != link_by_pair.end() && it->second->type == LinkType::kNvswitch) any_switch = true;
      }
    }
    isl.kind = any_switch ? IslandKind::kNvswitch : IslandKind::kNvlink;
  }
  for (auto& isl : islands) out.islands.push_back(std::move(isl));
  return out;
}

}  // namespace

IslandOutput AnalyzeIslands(const model::Dataset& ds, const std::vector<LinkReport>& links,
                            const Thresholds& t) {
  LinkByPair link_by_pair;
  for (const auto& l : links) link_by_pair[{l.a, l.b}] = &l;
  // Hosts in parallel (TBB), joined in host order: the same whatever the threads.
  std::vector<const std::pair<const std::string, model::HostEvidence>*> hosts;
  hosts.reserve(ds.hosts.size());
  for (const auto& kv : ds.hosts) hosts.push_back(&kv);
  std::vector<IslandOutput> per_host(hosts.size());
  tbb::parallel_for(size_t{0}, hosts.size(), [&](size_t i) {
    per_host[i] = HostIslands(hosts[i]->first, hosts[i]->second, link_by_pair, t);
  });
  IslandOutput out;
  for (IslandOutput& o : per_host) {
    std::move(o.gpus.begin(), o.gpus.end(), std::back_inserter(out.gpus));
    std::move(o.islands.begin(), o.islands.end(), std::back_inserter(out.islands));
  }
  return out;
}

}  // namespace toposcope::analysis
