// formats/dcgm/dcgm_discovery: `dcgmi discovery -c` (the MIG hierarchy) and `dcgmi discovery -l`
// (the GPUs DCGM sees), as dcgmi prints them (DCGM dcgmi/Query.cpp, FormatMigHierarchy and
// DisplayDiscoveredDevices):
//
//   +-------------------+--------------------------------------------------------------------+
//   | Instance Hierarchy                                                                     |
//   +===================+====================================================================+
//   | GPU 0             | GPU GPU-73fa6136-5962-8760-3543-871462d498eb (EntityID: 0)         |
//   | -> I 0/1          | GPU Instance (EntityID: 3)                                         |
//   |    -> CI 0/1/0    | Compute Instance (EntityID: 3)                                     |
//
// `GPU n` / `I g/i` / `CI g/i/c` are NVML indices (GPU index, GPU instance id, compute instance
// id); the EntityIDs are DCGM's: the numbers `dcgmi dmon` prints after `GPU`, `GPU-I` and
// `GPU-CI`. That is what links a dmon row of a MIG instance to its GPU: dmon's `GPU-I 3` is the
// GPU instance whose EntityID is 3, under the GPU row above it.
//
//   8 GPUs found.                                   (4.x: `1 GPU found (Active).`)
//   +--------+----------------------------------------------------------------------+
//   | GPU ID | Device Information                                                   |
//   +--------+----------------------------------------------------------------------+
//   | 0      | Name: NVIDIA A100-SXM4-80GB                                          |
//   |        | PCI Bus ID: 00000000:10:1C.0                                         |
//   |        | Device UUID: GPU-ac4c2353-f2d7-cd06-3688-ed038e2677e9                |
//   then `N NvSwitches found.`, `N ConnectX found.`, `N CPUs found.` and their tables.
//
// Copies of the output may be indented (documentation, Markdown) and may follow a shell prompt;
// a row may be wider than its column (a long or redacted UUID): cells are read between the `|`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

enum class DcgmMigKind { kGpuInstance, kComputeInstance };

// One `-> I g/i` or `-> CI g/i/c` row, with the GPU row it is under.
struct DcgmMigInstance {
  DcgmMigKind kind = DcgmMigKind::kGpuInstance;
  int entity_id = -1;      // DCGM entity id (dmon's `GPU-I n` / `GPU-CI n`)
  int gpu_entity_id = -1;  // the parent GPU's DCGM entity id (dmon's `GPU n`)
  int gpu_index = -1;      // NVML GPU index (the `g` of `I g/i`)
  int gpu_instance = -1;   // NVML GPU instance id (the `i`)
  int compute_instance = -1;  // NVML compute instance id (the `c` of `CI g/i/c`); -1 for a GPU instance
  std::string gpu_uuid;       // the parent GPU's UUID as printed (may be redacted)
  int64_t line = 0;
  friend bool operator==(const DcgmMigInstance&, const DcgmMigInstance&) = default;
};

// One GPU of `dcgmi discovery -l`.
struct DcgmDiscoveredGpu {
  int entity_id = -1;     // `GPU ID`: DCGM's GPU entity id
  std::string name;       // `Name:` as printed (`<<<NULL>>>` when DCGM had none); empty when absent
  std::string bus_id;     // `PCI Bus ID:` ("00000000:10:1C.0"); a ` (last known)` suffix is dropped
  std::string uuid;       // `Device UUID:`
  std::string status;     // `Status:` (with --all, for a GPU that is not OK); empty otherwise
  int64_t line = 0;
  friend bool operator==(const DcgmDiscoveredGpu&, const DcgmDiscoveredGpu&) = default;
};

struct DcgmDiscovery {
  std::vector<DcgmMigInstance> instances;  // hierarchy rows, in file order
  std::vector<DcgmDiscoveredGpu> gpus;     // `-l` GPUs, in file order
  bool has_hierarchy = false;  // an `Instance Hierarchy` table was seen (it may be empty: no MIG)
  bool has_gpu_list = false;   // a `GPU ID | Device Information` table was seen
  std::string dcgmi_version;   // from a `dcgmi  version: 3.1.8` line pasted with it; empty if none
  // Records: every table row and every `N ... found.` line; accepted + rejected = read. Borders,
  // blank lines, shell prompts and the version line are not records.
  ReadCounts counts;
};

// Parses the output of `dcgmi discovery -c` and/or `-l` (both may be in one file). Rejected, with
// line and reason: a row cut short (no closing `|`), a hierarchy row whose left cell is none of
// `GPU n`, `-> I g/i`, `-> CI g/i/c` or whose right cell is not the matching `... (EntityID: n)`,
// an instance row before any GPU row or naming another GPU or instance than the rows above it, a
// duplicate EntityID, a GPU list row whose GPU ID is not a number, a continuation row before any
// GPU, and other text. Warns when an `N GPUs found.` line announces more GPUs than the table holds
// (a cut copy). Fails when the input is binary or holds neither table.
Result<DcgmDiscovery> ParseDcgmDiscovery(std::string_view text, std::string_view source, Diagnostics& diag);

// True when the head of a file looks like `dcgmi discovery -c` or `-l` output (for sniffing).
bool LooksLikeDcgmDiscovery(std::string_view head);

// The instance a dmon entity names: `GPU-I n` (kGpuInstance) or `GPU-CI n` (kComputeInstance) with
// entity id `n`; nullptr when the hierarchy has no such row.
const DcgmMigInstance* FindMigInstance(const std::vector<DcgmMigInstance>& instances, DcgmMigKind kind,
                                       int entity_id);

}  // namespace toposcope::formats
