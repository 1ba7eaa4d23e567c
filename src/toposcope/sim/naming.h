// sim/naming: names of hosts, switches and capture files in the styles real clusters use
// (`dgx-a12-07`, `gpu-r3-n14`, `ip-10-1-2-3`), drawn from a seed in random order so that a name
// says nothing about where its device sits. The simulator names its cluster with them (SimOptions::
// naming), and experiments/anonymize renames a dataset with them.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace toposcope::sim {

enum class NameStyle {
  kPlain,     // "plain": node001, leaf00, spine00 (the simulator's numbered names, in placement order)
  kDgx,       // "dgx": hosts dgx-a12-07, switches ib-a04-sw2, captures mirror-0413
  kRackNode,  // "rack-node": hosts gpu-r3-n14, switches qm9700-r7-2, captures span17
  kCloudIp,   // "cloud-ip": hosts ip-10-1-2-3, switches sw-10-250-3-9, captures cap-1f3a01
};
// The style's name (above).
std::string_view NameStyleName(NameStyle style);
// The style named `name`; nullopt for any other name.
std::optional<NameStyle> ParseNameStyle(std::string_view name);
// The real style (never kPlain) the seed chooses: seeds 0, 1, 2 give dgx, rack-node, cloud-ip,
// and so on round. Never fails.
NameStyle NameStyleOfSeed(uint64_t seed);

enum class NameKind { kHost, kSwitch, kCapture };

// `n` new names of `kind` in `style` (kPlain draws as kDgx), from Rng(Rng::Mix(seed, label)):
// unique, none in `taken` (each one drawn is added to it), in random order. Never fails.
std::vector<std::string> DrawNames(int n, NameStyle style, NameKind kind, uint64_t seed, uint64_t label,
                                   std::set<std::string>& taken);

}  // namespace toposcope::sim
