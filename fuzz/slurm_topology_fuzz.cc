// libFuzzer target for the Slurm topology.conf / topology.yaml readers and the hostlist helpers:
// counts must balance on any input; parsed topologies must write and re-parse to the same
// switches/blocks; hostlists must round-trip through compression. Hostlists are capped at
// kFuzzMaxNames names per input (the limit path is the same code as the default 1,000,000; a
// million names per execution made this target run at hundreds of executions per second).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/formats/fabric/mini_yaml.h"
#include "toposcope/formats/fabric/slurm_topology.h"

namespace {

using namespace toposcope;
using namespace toposcope::formats;

constexpr size_t kFuzzMaxNames = 4096;

bool PlainNames(const std::vector<std::string>& v) {
  for (const std::string& s : v) {
    for (char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (u <= 0x20 || u >= 0x7f || c == '#' || c == '=' || c == '[' || c == ']' || c == ',' || c == '\\') return false;
    }
    if (s.empty()) return false;
  }
  return true;
}

bool Writable(const SlurmTopology& t) {
  for (const auto& s : t.switches) {
    if (!PlainNames({s.name}) || !PlainNames(s.switches) || !PlainNames(s.nodes)) return false;
  }
  for (const auto& b : t.blocks) {
    if (!PlainNames({b.name}) || !PlainNames(b.nodes)) return false;
  }
  return true;
}

std::vector<std::string> Names(const SlurmTopology& t) {
  std::vector<std::string> v;
  for (const auto& s : t.switches) {
    v.push_back(s.name);
    v.insert(v.end(), s.switches.begin(), s.switches.end());
    v.insert(v.end(), s.nodes.begin(), s.nodes.end());
  }
  for (const auto& b : t.blocks) {
    v.push_back(b.name);
    v.insert(v.end(), b.nodes.begin(), b.nodes.end());
  }
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)LooksLikeSlurmTopology(text);
  {
    Diagnostics diag;
    auto r = ParseSlurmTopologyConf(text, "fuzz", diag, kFuzzMaxNames);
    if (r.ok()) {
      for (const SlurmTopology& t : *r) {
        if (!t.counts.Balanced()) __builtin_trap();
        if (!Writable(t) || (t.switches.empty() && t.blocks.empty())) continue;
        Diagnostics d2;
        auto again = ParseSlurmTopologyConf(WriteSlurmTopologyConf(t), "fuzz-rewritten", d2, kFuzzMaxNames);
        if (!again.ok() || (*again)[0].counts.rejected != 0) __builtin_trap();
        if (Names((*again)[0]) != Names(t)) __builtin_trap();
      }
    }
  }
  {
    Diagnostics diag;
    auto r = ParseSlurmTopologyYaml(text, "fuzz", diag, nullptr, kFuzzMaxNames);
    if (r.ok()) {
      bool writable = true;
      for (const SlurmTopology& t : *r) {
        if (!t.counts.Balanced()) __builtin_trap();
        writable = writable && Writable(t);
      }
      if (writable && !r->empty()) {
        Diagnostics d2;
        auto again = ParseSlurmTopologyYaml(WriteSlurmTopologyYaml(*r), "fuzz-rewritten", d2, nullptr, kFuzzMaxNames);
        if (!again.ok() || again->size() != r->size()) __builtin_trap();
        for (size_t i = 0; i < r->size(); ++i) {
          if (Names((*again)[i]) != Names((*r)[i])) __builtin_trap();
        }
      }
    }
  }
  if (size < 256) {
    std::string err;
    const auto hosts = ExpandHostlist(text, &err, kFuzzMaxNames);
    if (!hosts.empty() && PlainNames(hosts)) {
      std::string err2;
      if (ExpandHostlist(CompressHostlist(hosts), &err2, kFuzzMaxNames) != hosts) __builtin_trap();
    }
  }
  return 0;
}
