// libFuzzer target for the `dcgmi discovery -c` / `-l` reader: counts must balance on any input and
// match the diagnostics; every instance kept has its EntityID, its GPU's and its NVML ids, and a
// compute instance its compute instance id; no (kind, EntityID) twice.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>
#include <utility>

#include "toposcope/formats/dcgm/dcgm_discovery.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diag;
  auto r = formats::ParseDcgmDiscovery(text, "fuzz", diag);
  if (!r.ok()) return 0;
  if (!r->counts.Balanced() || diag.rejected_total() != r->counts.rejected) __builtin_trap();
  std::set<std::pair<formats::DcgmMigKind, int>> seen;
  for (const auto& m : r->instances) {
    if (m.entity_id < 0 || m.gpu_entity_id < 0 || m.gpu_index < 0 || m.gpu_instance < 0 || m.line <= 0) __builtin_trap();
    if ((m.kind == formats::DcgmMigKind::kComputeInstance) != (m.compute_instance >= 0)) __builtin_trap();
    if (!seen.emplace(m.kind, m.entity_id).second) __builtin_trap();
    if (formats::FindMigInstance(r->instances, m.kind, m.entity_id) == nullptr) __builtin_trap();
  }
  for (const auto& g : r->gpus) {
    if (g.entity_id < 0 || g.line <= 0) __builtin_trap();
  }
  return 0;
}
