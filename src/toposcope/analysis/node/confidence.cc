#include "toposcope/analysis/node/confidence.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace toposcope::analysis {

int PathEdges(LinkType t) {
  switch (t) {
    case LinkType::kNvlink:
    case LinkType::kC2c: return 1;   // GPU - GPU
    case LinkType::kNvswitch:        // GPU - NVSwitch - GPU
    case LinkType::kPix:             // GPU - PCIe switch - GPU
    case LinkType::kPhb: return 2;   // GPU - host bridge - GPU
    case LinkType::kPxb:             // GPU - switch - switch - GPU
    case LinkType::kNode: return 3;  // GPU - host bridge - host bridge - GPU
    case LinkType::kSys: return 4;   // GPU - host bridge - CPU - CPU - GPU (bridges folded)
    case LinkType::kNet: return 4;   // GPU - NIC - switch - NIC - GPU
    case LinkType::kUnknown: break;
  }
  return 1;
}

namespace {

std::vector<std::string> PathHops(const LinkReport& l) {
  const std::string host = l.a.substr(0, l.a.rfind('/'));
  switch (l.type) {
    case LinkType::kNvlink:
    case LinkType::kC2c: return {l.a, l.b};
    case LinkType::kNvswitch: return {l.a, host + "/nvswitch", l.b};
    case LinkType::kPix: return {l.a, host + "/pcie-switch", l.b};
    case LinkType::kPhb: return {l.a, host + "/host-bridge", l.b};
    case LinkType::kPxb: return {l.a, host + "/pcie-switch(a)", host + "/pcie-switch(b)", l.b};
    case LinkType::kNode: return {l.a, host + "/host-bridge(a)", host + "/host-bridge(b)", l.b};
    case LinkType::kSys: return {l.a, host + "/cpu(a)", host + "/cpu(b)", host + "/host-bridge(b)", l.b};
    default: break;
  }
  return {l.a, l.b};
}

}  // namespace

ConfidenceReport AnalyzeConfidence(const std::vector<LinkReport>& links, const stats::NoiseModel& noise,
                                   const ConfidenceOptions& opt) {
  NoiseFit nf;
  nf.model = noise;
  nf.source = "prior";
  nf.note = "given by the caller";
  return AnalyzeConfidence(links, nf, opt);
}

ConfidenceReport AnalyzeConfidence(const std::vector<LinkReport>& links, const NoiseFit& fit,
                                   const ConfidenceOptions& opt) {
  const stats::NoiseModel& noise = fit.model;
  const uint64_t seed = fit.fitted ? fit.seed : 777;
  ConfidenceReport r;
  r.noise_fitted = fit.fitted;
  r.noise_samples = fit.samples;
  r.noise_source = fit.source;
  r.noise_note = fit.note;
  r.alpha = noise.alpha;
  r.beta = noise.beta;
  r.scale = noise.scale;
  r.truncation = noise.truncation;
  r.location = noise.location;
  r.quantile = opt.quantile;
  r.delta_min = opt.delta_min;
  r.base_period_ms = opt.base_period_ms;
  // One Monte Carlo per sampling period (and the path period when it is not among them), all from
  // one stream of draws (stats::MeanAbsErrorQuantiles): the same numbers on any thread count.
  std::vector<double> periods = opt.periods_ms;
  const bool path_listed =
      std::find(opt.periods_ms.begin(), opt.periods_ms.end(), opt.path_period_ms) != opt.periods_ms.end();
  if (!path_listed) periods.push_back(opt.path_period_ms);
  std::vector<int> n_avgs;
  for (double p : periods) n_avgs.push_back(std::max(1, static_cast<int>(std::lround(p / opt.base_period_ms))));
  const std::vector<double> eps = stats::MeanAbsErrorQuantiles(noise, n_avgs, opt.quantile, 20000, seed);
  for (size_t i = 0; i < opt.periods_ms.size(); ++i) {
    SamplingRow row;
    row.period_ms = opt.periods_ms[i];
    row.per_hop_error = eps[i];
    row.max_hops = eps[i] > 0 ? static_cast<int>(std::floor((1.0 - opt.delta_min) / eps[i] + 1e-12)) : 0;
    r.sampling.push_back(row);
  }
  double eps_path = 0;
  for (size_t i = 0; i < periods.size(); ++i) {
    if (periods[i] == opt.path_period_ms) {
      eps_path = eps[i];
      break;
    }
  }
  for (const auto& l : links) {
    PathConfidence p;
    p.a = l.a;
    p.b = l.b;
    p.hops = PathHops(l);
    const double edges = static_cast<double>(p.hops.size() - 1);
    p.delta = 1.0 - edges * eps_path;
    r.paths.push_back(std::move(p));
  }
  return r;
}

}  // namespace toposcope::analysis
