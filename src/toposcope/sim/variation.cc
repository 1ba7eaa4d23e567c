#include "toposcope/sim/variation.h"

#include <algorithm>

#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"

namespace toposcope::sim {
namespace {

// The fixed configuration's ranges (no class named).
constexpr LatencyClass kFixedSwitch{"", 0.30, 0.50};
constexpr LatencyClass kFixedLink{"", 0.05, 0.12};

constexpr const char* kClockProfiles[] = {"mixed", "ptp", "ntp"};
constexpr int kFastPeriodsMs[] = {100, 200, 500, 1000};
constexpr int kSlowPeriodsMs[] = {1000, 2000, 5000, 10000, 30000};
constexpr const char* kNcclVersions[] = {"2.26.2", "2.16.5"};

const LatencyClass* FindIn(const std::vector<LatencyClass>& classes, std::string_view name) {
  for (const LatencyClass& c : classes) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string Names(const std::vector<LatencyClass>& classes) {
  std::string out;
  for (const LatencyClass& c : classes) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

std::string Range(const LatencyClass& c) { return FormatFixed(c.lo_us, 2) + "-" + FormatFixed(c.hi_us, 2); }

// The DCGM periods: a fast one, then a slow one that is a multiple of it within the job's window
// (the fast one itself when none is).
void DrawDcgmPeriods(Rng& rng, SimOptions& o) {
  o.dcgm_period_ms = kFastPeriodsMs[rng.Below(std::size(kFastPeriodsMs))];
  std::vector<int> slow;
  for (int p : kSlowPeriodsMs) {
    if (p >= o.dcgm_period_ms && p % o.dcgm_period_ms == 0 && p <= o.telemetry_s * 1000.0) slow.push_back(p);
  }
  o.slow_dcgm_period_ms = slow.empty() ? o.dcgm_period_ms : slow[rng.Below(slow.size())];
}

// 1 to 4 of the default mix, in a drawn order.
std::vector<std::string> DrawNodeTypes(Rng& rng) {
  std::vector<std::string> mix;
  for (const NodeType& t : NodeTypes()) {
    if (t.in_default_mix) mix.push_back(t.name);
  }
  for (size_t i = mix.size(); i > 1; --i) std::swap(mix[i - 1], mix[rng.Below(i)]);
  mix.resize(1 + rng.Below(mix.size()));
  return mix;
}

}  // namespace

const std::vector<LatencyClass>& SwitchClasses() {
  static const std::vector<LatencyClass> k = {
      {"ib", 0.10, 0.15}, {"roce-cut-through", 0.25, 0.50}, {"ethernet-merchant", 0.50, 0.85}};
  return k;
}

const std::vector<LatencyClass>& LinkClasses() {
  static const std::vector<LatencyClass> k = {{"dac", 0.05, 0.12}, {"optics", 0.10, 0.30}};
  return k;
}

const LatencyClass* FindSwitchClass(std::string_view name) {
  return name.empty() ? &kFixedSwitch : FindIn(SwitchClasses(), name);
}

const LatencyClass* FindLinkClass(std::string_view name) {
  return name.empty() ? &kFixedLink : FindIn(LinkClasses(), name);
}

Status ValidateVariation(const SimOptions& o) {
  if (FindSwitchClass(o.switch_class) == nullptr) {
    return MakeKindError(ErrorKind::kUsage, "unknown switch class '" + o.switch_class + "'",
                         "use one of " + Names(SwitchClasses()));
  }
  if (FindLinkClass(o.link_class) == nullptr) {
    return MakeKindError(ErrorKind::kUsage, "unknown link class '" + o.link_class + "'",
                         "use one of " + Names(LinkClasses()));
  }
  if (!o.clock_profile.empty() &&
      std::find(std::begin(kClockProfiles), std::end(kClockProfiles), o.clock_profile) == std::end(kClockProfiles)) {
    return MakeKindError(ErrorKind::kUsage, "unknown clock profile '" + o.clock_profile + "'",
                         "use mixed, ptp or ntp");
  }
  return {};
}

SimOptions ResolveVariation(SimOptions o) {
  o.drawn_options.clear();
  if (!o.vary) return o;
  // One stream, every draw made whether or not it is used, so that fixing one option leaves the
  // others' draws as they were.
  Rng rng(Rng::Mix(o.seed, kVariationStreamLabel));
  const std::string switch_class(SwitchClasses()[rng.Below(SwitchClasses().size())].name);
  const std::string link_class(LinkClasses()[rng.Below(LinkClasses().size())].name);
  const std::string clock_profile = kClockProfiles[rng.Below(std::size(kClockProfiles))];
  SimOptions periods = o;
  DrawDcgmPeriods(rng, periods);
  const std::string nccl_version = kNcclVersions[rng.Below(std::size(kNcclVersions))];
  const std::vector<std::string> node_types = DrawNodeTypes(rng);
  auto take = [&o](const char* name, auto& field, const auto& value, bool unset) {
    if (!unset) return;
    field = value;
    o.drawn_options.emplace_back(name);
  };
  take("switch_class", o.switch_class, switch_class, o.switch_class.empty());
  take("link_class", o.link_class, link_class, o.link_class.empty());
  take("clock_profile", o.clock_profile, clock_profile, o.clock_profile.empty());
  take("dcgm_period_ms", o.dcgm_period_ms, periods.dcgm_period_ms, !o.dcgm_periods_fixed);
  take("slow_dcgm_period_ms", o.slow_dcgm_period_ms, periods.slow_dcgm_period_ms, !o.dcgm_periods_fixed);
  take("nccl_version", o.nccl_version, nccl_version, o.nccl_version.empty());
  take("node_types", o.node_types, node_types, o.node_types.empty());
  return o;
}

std::vector<std::pair<std::string, std::string>> VariationSummary(const SimOptions& o) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!o.vary) return out;
  const LatencyClass* sw = FindSwitchClass(o.switch_class);
  const LatencyClass* link = FindLinkClass(o.link_class);
  std::string types;
  for (const std::string& t : o.node_types) types += (types.empty() ? "" : ",") + t;
  out.emplace_back("switch_class", o.switch_class);
  out.emplace_back("switch_latency_us", sw != nullptr ? Range(*sw) : "");
  out.emplace_back("link_class", o.link_class);
  out.emplace_back("link_phy_us", link != nullptr ? Range(*link) : "");
  out.emplace_back("clock_profile", o.clock_profile.empty() ? "mixed" : o.clock_profile);
  out.emplace_back("dcgm_period_ms", std::to_string(o.dcgm_period_ms));
  out.emplace_back("slow_dcgm_period_ms", std::to_string(o.slow_dcgm_period_ms));
  out.emplace_back("nccl_version", o.nccl_version);
  out.emplace_back("node_types", types);
  return out;
}

}  // namespace toposcope::sim
