// sim/variation: what real clusters vary, drawn per seed so that no analysis can be tuned to one
// value (SimOptions::vary). Without `vary` the simulator keeps its fixed configuration (the demo's:
// RoCE cut-through switches of 0.30-0.50 µs, DAC PHYs of 0.05-0.12 µs, the mixed PTP/NTP clock
// rule, DCGM at 100 / 1000 ms, the NCCL version by seed parity, every default node type). With it,
// each of the following that the options leave unset is drawn from the seed's variation stream
// (ranges from DOMAIN.md):
//   switch class   every switch's port-to-port latency, one way (§2.2):
//                    "ib"                InfiniBand cut-through, U(0.10, 0.15) µs (Quantum-2 "under
//                                        150 ns", HDR ~130 ns)
//                    "roce-cut-through"  low-latency Ethernet ASIC, U(0.25, 0.50) µs (SX1016 250 ns,
//                                        7124SX 500 ns)
//                    "ethernet-merchant" merchant Ethernet silicon, U(0.50, 0.85) µs (Trident+ 850 ns)
//   link class     per-link transceiver / PHY + FEC (§2.2, unverified there):
//                    "dac"     U(0.05, 0.12) µs (passive copper, RS-FEC ~100 ns)
//                    "optics"  U(0.10, 0.30) µs (SFP+-class optics, 0.3 µs per link)
//                  (propagation stays 5 ns/m over the architecture's cable lengths)
//   clock profile  which daemon disciplines each host (§6; the per-host offset, skew, aging and
//                  noise ranges are sim/clocks.h's): "mixed" (PTP when (i + i/4) is even, else
//                  NTP), "ptp" (every host), "ntp" (every host)
//   DCGM periods   the fast period from {100, 200, 500, 1000} ms (DCP floor 100 ms, dmon default
//                  1000 ms) and the slow hosts' from {1000, 2000, 5000, 10000, 30000} ms (30 s: the
//                  dcgm-exporter default), a multiple of the fast one within the job's window (§7)
//   NCCL version   one the NCCL log writer supports: 2.26.2 or 2.16.5
//   node types     1 to 4 of the default mix (h100-nvswitch, a100-nvswitch, pcie-bridge, pcie-only),
//                  in a drawn order (host i gets types[i % n])
// Every resolved value goes into truth.json ("variation") and the simulate summary, never into the
// analyzer's inputs. Deterministic: the same options give the same draws.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/sim/cluster.h"

namespace toposcope::sim {

// A class of switch or link latency: its name and the uniform range (µs) drawn per switch / link.
struct LatencyClass {
  std::string_view name;
  double lo_us = 0;
  double hi_us = 0;
};

// The switch classes and link classes above, in that order. Never fail.
const std::vector<LatencyClass>& SwitchClasses();
const std::vector<LatencyClass>& LinkClasses();

// The switch-latency range of the options: the named class's, or the fixed 0.30-0.50 µs when
// switch_class is empty. Returns nullptr for an unknown name (ValidateVariation rejects it).
const LatencyClass* FindSwitchClass(std::string_view name);
// The link PHY range: the named class's, or the fixed 0.05-0.12 µs when link_class is empty;
// nullptr for an unknown name.
const LatencyClass* FindLinkClass(std::string_view name);

// Checks the variation options: switch_class, link_class and clock_profile empty or one of the
// names above. Returns ok, or fails (kUsage) naming the option and its values.
Status ValidateVariation(const SimOptions& options);

// Resolves the variation: with options.vary, fills every unset option above (switch_class,
// link_class, clock_profile, the DCGM periods unless dcgm_periods_fixed, nccl_version, node_types)
// from the seed and lists them in drawn_options; without it returns the options unchanged. Never
// fails; the options must be valid (ValidateVariation).
SimOptions ResolveVariation(SimOptions options);

// The resolved variation as (name, value) pairs, in the order of the file comment: switch_class,
// switch_latency_us, link_class, link_phy_us, clock_profile, dcgm_period_ms,
// slow_dcgm_period_ms, nccl_version, node_types. Empty without options.vary. Never fails.
std::vector<std::pair<std::string, std::string>> VariationSummary(const SimOptions& options);

// The RNG stream label of the variation draws (Rng::Mix(seed, label)).
inline constexpr uint64_t kVariationStreamLabel = 0x7A121A7E0ULL;

}  // namespace toposcope::sim
