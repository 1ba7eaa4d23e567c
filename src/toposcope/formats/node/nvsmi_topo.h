// formats/node/nvsmi_topo: `nvidia-smi topo -m` / `-mp` / `-p2p <r|w|n|a|p>` matrices, read and written.
// Accepts TABs or spaces, `mlx5_N` rows or `NICn` rows with a `NIC Legend`, the `CPU Affinity`,
// `NUMA Affinity` and `GPU NUMA ID` columns, ANSI underlines, partial outputs (rows missing).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

enum class NvsmiMatrixKind {
  kTopo,      // -m: NV#, PIX, PXB, PHB, NODE, SYS
  kPcieOnly,  // -mp: as -m, without NV# (recognised when no NV# cell and no NV# legend entry)
  kP2p,       // -p2p: OK, CNS, GNS, TNS, NS, U
};

enum class NvsmiDeviceKind { kGpu, kNic };

struct NvsmiDevice {
  std::string label;            // as written in the header: "GPU0", "NIC3", "mlx5_0"
  NvsmiDeviceKind kind = NvsmiDeviceKind::kGpu;
  int gpu_index = -1;           // N of GPUN, for GPUs
  std::string nic_device;       // the NIC's device name ("mlx5_0"), through the NIC Legend if needed
  bool has_row = false;         // false when a partial output lacks this device's row
  std::string cpu_affinity;     // "0-31,64-95"; empty if absent
  int numa_affinity = -1;       // -1 when absent or N/A
  int gpu_numa_id = -1;         // -1 when absent or N/A
};

struct NvsmiTopo {
  NvsmiMatrixKind kind = NvsmiMatrixKind::kTopo;
  std::vector<NvsmiDevice> devices;            // in column order
  // cells[r][c]: the raw cell text of row device r and column device c ("X", "NV18", "PIX",
  // "OK", ...). Empty strings for rows a partial output lacks.
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> legend_keys;        // legend entries seen ("X", "SYS", "NV#", "OK", ...)
};

// Parses the text of one `nvidia-smi topo` output. Each matrix row is one record: rows that cannot
// be used (unknown label, wrong cell count, bad cell values) are rejected into `diag` and counted.
// Fails (Error) only when no matrix header can be found at all.
Result<NvsmiTopo> ParseNvsmiTopo(std::string_view text, std::string_view source, Diagnostics& diag,
                                 ReadCounts& counts);

// The name a NIC column goes by: its device name (a `mlx5_N` header or its NIC Legend entry), else
// its header label ("NIC3") when the output has no NIC Legend entry for it (a cut-off output), so
// that every NIC stays a vertex of its own. Never fails.
std::string NvsmiNicName(const NvsmiDevice& device);

// Writes the matrix as nvidia-smi 550+ prints it: TAB-separated, NICn rows plus a `NIC Legend`
// (when there are NICs), CPU/NUMA affinity columns, the legend. Round-trips through ParseNvsmiTopo.
std::string WriteNvsmiTopo(const NvsmiTopo& topo);

}  // namespace toposcope::formats
