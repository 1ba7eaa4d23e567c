#include "toposcope/analysis/time/anchors.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "toposcope/base/time.h"
#include "toposcope/model/events.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

using stats::Median;

constexpr double kNsPerUs = 1000.0;

bool IsDcgmEventInput(formats::FileFormat f) {
  using formats::FileFormat;
  return f == FileFormat::kDcgmDmon || f == FileFormat::kPrometheusText || f == FileFormat::kDcgmCsv;
}

int64_t MedianNs(std::vector<int64_t> v) {
  const size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m), v.end());
  return v[m];
}

// Weighted median of (value, weight) pairs.
double WeightedMedian(std::vector<std::pair<double, double>> vw) {
  std::sort(vw.begin(), vw.end());
  double total = 0;
  for (const auto& p : vw) total += p.second;
  double acc = 0;
  for (const auto& p : vw) {
    acc += p.second;
    if (acc >= 0.5 * total) return p.first;
  }
  return vw.empty() ? NAN : vw.back().first;
}

// Error (one sigma, µs) of a sync-only robust model from its held-out residuals: the sync noise
// averaged over the points one local fit sees.
double SyncModelSigmaUs(const ClockModel& m, const TimesyncOptions& topt) {
  if (m.fit_points < 2 || !std::isfinite(m.mean_abs_residual_us)) return INFINITY;
  const double noise_us = 1.2533 * m.mean_abs_residual_us;  // mean |x| -> sigma for a normal
  double span_s = 0;
  if (!m.segments.empty()) {
    span_s = static_cast<double>(m.segments.back().start_local_ns - m.segments.front().start_local_ns) / 1e9;
  }
  const double window_s = 2.0 * topt.knot_spacing_s;
  const double n_eff = span_s > window_s ? m.fit_points * window_s / span_s : m.fit_points;
  return std::max(noise_us / std::sqrt(std::max(1.0, n_eff)), 0.01);
}

using model::AnchorCandidate;

struct InputCandidates {
  int64_t scanned = 0;
  std::vector<AnchorCandidate> list;
};

// The anchor candidates of one event input: those the loader kept, or read again on their own
// (inputs are read in parallel) when it kept none.
InputCandidates ScanInput(const model::EventInput& input, Diagnostics* diag) {
  InputCandidates out;
  if (input.events_streamed >= 0) {
    out.scanned = input.events_streamed;
    out.list = input.anchor_candidates;
    return out;
  }
  model::EventInputCounts counts;
  auto source = model::MakeEventSource(input, diag, &counts);
  auto sink = [&](formats::TraceEvent&& e) {
    ++out.scanned;
    if (auto c = model::AnchorCandidateOf(std::move(e))) out.list.push_back(std::move(*c));
  };
  (void)source(sink);  // read failures are already in `diag`; what was read still counts
  return out;
}

}  // namespace

AnchorGroups CollectAnchors(const model::Dataset& ds, const AnchorOptions& opt, Diagnostics* diag) {
  AnchorGroups out;
  if (!opt.enabled) return out;
  // DCGM samples become counter events ('C', no context): never an anchor, so their inputs (most
  // of the events of a cluster) are not read again here.
  std::vector<const model::EventInput*> inputs;
  for (const auto& input : ds.event_inputs) {
    if (!IsDcgmEventInput(input.format)) inputs.push_back(&input);
  }
  // Read in parallel, folded in input order below: the groups do not depend on the thread count.
  std::vector<InputCandidates> scanned(inputs.size());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, inputs.size(), 1), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i != r.end(); ++i) scanned[i] = ScanInput(*inputs[i], diag);
  });
  std::map<std::string, int> host_index;
  auto index_of = [&](const std::string& h) {
    auto [it, fresh] = host_index.emplace(h, static_cast<int>(out.hosts.size()));
    if (fresh) out.hosts.push_back(h);
    return it->second;
  };
  std::unordered_map<std::string, std::vector<std::pair<int, int64_t>>> raw;
  // Ordinal keys: per family, per rank identity, how many were seen.
  std::map<std::string, std::map<std::string, int64_t>> ordinals;
  for (InputCandidates& in : scanned) {
    out.events_scanned += in.scanned;
    for (AnchorCandidate& c : in.list) {
      std::string key = std::move(c.key);
      if (!c.family.empty()) key += "|" + std::to_string(ordinals[c.family][c.who]++);
      ++out.candidate_events;
      auto it = raw.find(key);
      if (it == raw.end()) {
        if (static_cast<int64_t>(raw.size()) >= opt.max_groups) {
          ++out.groups_dropped;
          continue;
        }
        it = raw.emplace(std::move(key), std::vector<std::pair<int, int64_t>>{}).first;
      }
      it->second.emplace_back(index_of(c.host), c.end_ns);
    }
    in = InputCandidates{};
  }
  // Ordinal families whose ranks disagree on the count cannot be matched by position.
  std::vector<std::string> bad_families;
  for (const auto& [fam, per_rank] : ordinals) {
    int64_t lo = INT64_MAX, hi = 0;
    for (const auto& [who, n] : per_rank) {
      lo = std::min(lo, n);
      hi = std::max(hi, n);
    }
    if (lo != hi) bad_families.push_back("o|" + fam + "|");
  }
  // Deterministic order: by key.
  std::vector<std::pair<std::string, std::vector<std::pair<int, int64_t>>>> sorted(raw.begin(), raw.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [key, obs] : sorted) {
    bool bad = false;
    for (const auto& pre : bad_families) bad = bad || key.rfind(pre, 0) == 0;
    std::sort(obs.begin(), obs.end());
    std::vector<std::pair<int, int64_t>> per_host;
    for (size_t i = 0; i < obs.size();) {
      size_t j = i;
      std::vector<int64_t> ends;
      while (j < obs.size() && obs[j].first == obs[i].first) ends.push_back(obs[j++].second);
      per_host.emplace_back(obs[i].first, MedianNs(std::move(ends)));
      i = j;
    }
    if (bad || per_host.size() < 2) {
      ++out.groups_dropped;
      continue;
    }
    out.groups.push_back(std::move(per_host));
  }
  return out;
}

namespace {

// The sync-only robust model of every anchor host and its error.
struct SyncModels {
  std::map<std::string, size_t> fit_of;  // host -> index into the fits
  std::vector<ClockModel> model;         // per anchor host index
  std::vector<bool> has_sync;            // the host has a clock fit
  std::vector<double> sigma_us;          // INFINITY without one
};

// The sync-only models of the anchor hosts from `fits` (a bare robust model for hosts without a fit).
SyncModels CollectSyncModels(const std::vector<HostClockFit>& fits, const AnchorGroups& groups,
                             const TimesyncOptions& topt) {
  const size_t n_hosts = groups.hosts.size();
  SyncModels s;
  for (size_t i = 0; i < fits.size(); ++i) s.fit_of[fits[i].host] = i;
  s.model.resize(n_hosts);
  s.has_sync.assign(n_hosts, false);
  s.sigma_us.assign(n_hosts, INFINITY);
  for (size_t h = 0; h < n_hosts; ++h) {
    auto it = s.fit_of.find(groups.hosts[h]);
    if (it == s.fit_of.end()) {
      s.model[h].host = groups.hosts[h];
      s.model[h].kind = ClockModelKind::kRobust;
      continue;
    }
    s.model[h] = fits[it->second].Best();
    s.has_sync[h] = true;
    s.sigma_us[h] = SyncModelSigmaUs(s.model[h], topt);
  }
  return s;
}

// One consensus round's anchor samples per host: for every group, each host's local end against the
// inverse-variance consensus of the other hosts' global estimates (current models and errors), over
// the inliers around the weighted median.
std::vector<std::vector<SyncSample>> ConsensusSamples(const AnchorGroups& groups,
                                                      const std::vector<ClockModel>& current,
                                                      const std::vector<double>& sigma_us, double simult2) {
  std::vector<std::vector<SyncSample>> samples(groups.hosts.size());
  std::vector<std::pair<double, double>> vw;
  std::vector<double> g;
  for (const auto& grp : groups.groups) {
    // Global-time estimates of the common instant from every host's current model.
    g.assign(grp.size(), 0.0);
    vw.clear();
    for (size_t k = 0; k < grp.size(); ++k) {
      const int h = grp[k].first;
      g[k] = static_cast<double>(current[static_cast<size_t>(h)].ToGlobalNs(grp[k].second));
      const double s = sigma_us[static_cast<size_t>(h)];
      if (std::isfinite(s)) vw.emplace_back(g[k], 1.0 / (s * s + simult2));
    }
    if (vw.empty()) continue;
    const double med = WeightedMedian(vw);
    // Consensus over inliers, leaving each host out of its own reference.
    double w_sum = 0, wg_sum = 0;
    std::vector<double> w(grp.size(), 0.0);
    for (size_t k = 0; k < grp.size(); ++k) {
      const double s = sigma_us[static_cast<size_t>(grp[k].first)];
      if (!std::isfinite(s)) continue;
      const double tol_ns = (5.0 * std::sqrt(s * s + simult2) + 2.0) * kNsPerUs;
      if (std::abs(g[k] - med) > tol_ns) continue;  // a host off by a step or a bad model
      w[k] = 1.0 / (s * s + simult2);
      w_sum += w[k];
      wg_sum += w[k] * (g[k] - med);
    }
    for (size_t k = 0; k < grp.size(); ++k) {
      const double W = w_sum - w[k];
      if (!(W > 0)) continue;
      const double ref = med + (wg_sum - w[k] * (g[k] - med)) / W;
      SyncSample s;
      s.local_ns = grp[k].second;
      s.ref_ns = static_cast<int64_t>(std::llround(ref));
      s.uncertainty_ns = std::sqrt(simult2 + 1.0 / W) * kNsPerUs;
      samples[static_cast<size_t>(grp[k].first)].push_back(s);
    }
  }
  return samples;
}

// Host h's model after one round: the anchor model from its samples `sm` (sorted here) blended with
// its sync-only model by inverse variance, into *next and *next_sigma; *rep says what the anchors did.
// Leaves *next and *next_sigma as they are when the host has too few anchors.
void RefineHost(size_t h, std::vector<SyncSample>& sm, const AnchorGroups& groups, const SyncModels& sync,
                const AnchorOptions& opt, const TimesyncOptions& topt, HostAnchorReport* rep, ClockModel* next,
                double* next_sigma) {
  *rep = HostAnchorReport{};
  rep->host = groups.hosts[h];
  rep->anchors = static_cast<int>(sm.size());
  rep->sync_sigma_us = sync.sigma_us[h];
  if (static_cast<int>(sm.size()) < opt.min_anchors_per_host) return;
  std::sort(sm.begin(), sm.end(), [](const SyncSample& a, const SyncSample& b) { return a.local_ns < b.local_ns; });
  ClockModel am = FitRobustModel(sm, topt);
  std::vector<double> res;
  res.reserve(sm.size());
  for (const auto& s : sm) res.push_back(std::abs(s.offset_ns() - am.OffsetNs(s.local_ns)) / kNsPerUs);
  rep->scatter_us = stats::kMadToSigma * Median(res);
  const double span_s = static_cast<double>(sm.back().local_ns - sm.front().local_ns) / 1e9;
  const double window_s = 2.0 * topt.knot_spacing_s;
  const double n_eff = span_s > window_s ? static_cast<double>(sm.size()) * window_s / span_s
                                         : static_cast<double>(sm.size());
  const double noise = rep->scatter_us / std::sqrt(std::max(1.0, n_eff));
  const double anchor_sigma = std::sqrt(noise * noise + opt.bias_floor_us * opt.bias_floor_us);
  const double ws = std::isfinite(sync.sigma_us[h]) ? 1.0 / (sync.sigma_us[h] * sync.sigma_us[h]) : 0.0;
  const double wa = 1.0 / (anchor_sigma * anchor_sigma);
  rep->weight = wa / (wa + ws);
  if (sync.has_sync[h]) {
    *next = BlendModels(sync.model[h], am, rep->weight, sm.front().local_ns, sm.back().local_ns + 1);
  } else {
    *next = am;
    next->host = groups.hosts[h];
  }
  *next_sigma = 1.0 / std::sqrt(wa + ws);
  // Steps the anchors see and the sync records did not (only when the anchors dominate).
  if (rep->weight >= 0.5) {
    const auto tol = static_cast<int64_t>(topt.knot_spacing_s * 1e9);
    for (int64_t st : am.steps_local_ns) {
      bool known = false;
      for (int64_t s0 : sync.model[h].steps_local_ns) known = known || std::llabs(st - s0) <= tol;
      if (!known) rep->new_steps_local_ns.push_back(st);
    }
  }
  next->anchor_points = rep->anchors;
  next->anchor_weight = rep->weight;
}

// Writes the refined robust model of every host the anchors touched back into *fits (a new fit for
// hosts without one), then sorts the fits by host.
void WriteBackModels(std::vector<HostClockFit>* fits, const AnchorGroups& groups, const SyncModels& sync,
                     const std::vector<ClockModel>& current, const std::vector<HostAnchorReport>& reports,
                     const TimesyncOptions& topt) {
  for (size_t h = 0; h < groups.hosts.size(); ++h) {
    if (current[h].anchor_points == 0) continue;
    ClockModel m = current[h];
    for (int64_t st : reports[h].new_steps_local_ns) m.steps_local_ns.push_back(st);
    std::sort(m.steps_local_ns.begin(), m.steps_local_ns.end());
    auto it = sync.fit_of.find(groups.hosts[h]);
    if (it == sync.fit_of.end()) {
      HostClockFit fit = FitHostClock(groups.hosts[h], {}, topt);
      for (auto& mm : fit.models) {
        if (mm.kind == ClockModelKind::kRobust) mm = m;
      }
      fits->push_back(std::move(fit));
      continue;
    }
    HostClockFit& fit = (*fits)[it->second];
    for (auto& mm : fit.models) {
      if (mm.kind != ClockModelKind::kRobust) continue;
      m.fit_points = mm.fit_points;
      m.heldout_points = mm.heldout_points;
      mm = m;
      ScoreHeldOut(mm, fit.heldout);
    }
  }
  std::sort(fits->begin(), fits->end(), [](const HostClockFit& a, const HostClockFit& b) { return a.host < b.host; });
}

}  // namespace

std::vector<HostAnchorReport> RefineClocksWithAnchors(std::vector<HostClockFit>* fits, const AnchorGroups& groups,
                                                      const AnchorOptions& opt, const TimesyncOptions& topt) {
  std::vector<HostAnchorReport> reports;
  if (!opt.enabled || groups.groups.empty()) return reports;
  const size_t n_hosts = groups.hosts.size();
  // The sync-only robust model and its error, per anchor host index.
  const SyncModels sync = CollectSyncModels(*fits, groups, topt);
  std::vector<ClockModel> current = sync.model;
  std::vector<double> sigma_us = sync.sigma_us;
  reports.resize(n_hosts);
  const double simult2 = opt.simultaneity_us * opt.simultaneity_us;

  for (int round = 0; round < std::max(1, opt.rounds); ++round) {
    std::vector<std::vector<SyncSample>> samples = ConsensusSamples(groups, current, sigma_us, simult2);
    std::vector<ClockModel> next = current;
    std::vector<double> next_sigma = sigma_us;
    for (size_t h = 0; h < n_hosts; ++h) {
      RefineHost(h, samples[h], groups, sync, opt, topt, &reports[h], &next[h], &next_sigma[h]);
    }
    current = std::move(next);
    sigma_us = std::move(next_sigma);
  }
  WriteBackModels(fits, groups, sync, current, reports, topt);
  return reports;
}

}  // namespace toposcope::analysis
