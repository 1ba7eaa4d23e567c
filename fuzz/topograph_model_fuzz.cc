// libFuzzer target for the topograph model reader (and the mini YAML reader under it): counts
// must balance, helper walks must terminate, and nothing may crash on any input. Node ranges are
// capped at 4,096 names per input (the default is 1,000,000; the limit path is the same code, and
// a million names an execution kept this target at a few thousand executions per second).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "toposcope/formats/fabric/mini_yaml.h"
#include "toposcope/formats/fabric/topograph_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toposcope;
  using namespace toposcope::formats;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)LooksLikeTopographModel(text);
  (void)ParseYaml(text, "fuzz-yaml");
  Diagnostics diag;
  auto m = ParseTopographModel(text, "fuzz", diag, 4096);
  if (!m.ok()) return 0;
  if (!m->counts.Balanced()) __builtin_trap();
  if (m->counts.accepted < static_cast<int64_t>(m->capacity_blocks.size())) __builtin_trap();
  (void)m->RootSwitches();
  const auto nodes = m->AllNodes();
  for (size_t i = 0; i < nodes.size() && i < 16; ++i) {
    const auto layers = m->NetLayers(nodes[i]);
    if (layers.size() > m->switches.size() + 1) __builtin_trap();
  }
  return 0;
}
