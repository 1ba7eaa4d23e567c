// formats/node/nvsmi_query: `nvidia-smi -q` text, the parts the analyses use: the driver and CUDA
// versions, `Attached GPUs`, and per GPU (a `GPU 00000000:18:00.0` section) its Product Name and the
// Temperature section: current GPU and memory temperatures and the limits, absolute (`GPU Shutdown
// Temp : 92 C`, older drivers) or as T.Limit headroom (`GPU Shutdown T.Limit Temp : -8 C`, newer ones).
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

// One GPU section. Temperatures in degrees C; NaN where the line is absent or `N/A`.
struct NvsmiQueryGpu {
  std::string bus_id;        // "00000000:18:00.0", from the section header
  std::string product_name;  // "NVIDIA H100 80GB HBM3"
  double current_c = NAN;                   // GPU Current Temp
  double tlimit_c = NAN;                    // GPU T.Limit Temp: headroom to the max operating limit
  double shutdown_c = NAN;                  // GPU Shutdown Temp
  double slowdown_c = NAN;                  // GPU Slowdown Temp
  double max_operating_c = NAN;             // GPU Max Operating Temp
  double shutdown_tlimit_c = NAN;           // GPU Shutdown T.Limit Temp (relative to T.Limit)
  double slowdown_tlimit_c = NAN;           // GPU Slowdown T.Limit Temp
  double max_operating_tlimit_c = NAN;      // GPU Max Operating T.Limit Temp
  double memory_current_c = NAN;            // Memory Current Temp
  double memory_max_operating_c = NAN;      // Memory Max Operating Temp
  // The multi-node NVLink domain (Fabric section, GB200/GB300 NVL-class systems): `CliqueId` and
  // `ClusterUUID` as printed; "" when absent or `N/A`. Single-node systems print 0 and the zero UUID.
  std::string clique_id;
  std::string cluster_uuid;
  int64_t line = 0;                         // line of the section header
};

struct NvsmiQuery {
  std::string driver_version;  // "565.57.01"; empty when absent
  std::string cuda_version;    // "12.7"; empty when absent
  int attached_gpus = -1;      // `Attached GPUs`; -1 when absent
  int selected_index = -1;     // N of a `nvidia-smi -q -i N` (or `--id=N`) prompt line before the
                               // output; -1 when there is none (or it names a bus id or UUID)
  std::vector<NvsmiQueryGpu> gpus;
  ReadCounts counts;
};

// Parses `nvidia-smi -q` (all GPUs or `-i N`; a shell prompt or other text around it is ignored).
// Records are the lines it uses: the version and Attached GPUs lines, GPU section headers, Product
// Name, the temperature lines above and the Fabric section's CliqueId and ClusterUUID. Rejected (with line and reason): a temperature that is not
// `<number> C` or `N/A`, a GPU line before any GPU section, a section repeated, a line repeated in
// one section. A GPU count that differs from `Attached GPUs` is a warning (`-i` prints one GPU).
// Fails on binary input (one rejection at byte 0 in `diag`) and when there is no GPU section and no
// `NVSMI LOG` banner at all.
Result<NvsmiQuery> ParseNvsmiQuery(std::string_view text, std::string_view source, Diagnostics& diag);

// A GPU's temperature limits in absolute degrees C, whichever form its driver printed them in.
struct NvsmiAbsoluteLimits {
  double max_operating_c = NAN;  // SW thermal slowdown keeps the GPU below this
  double slowdown_c = NAN;       // HW thermal slowdown at or above this
  double shutdown_c = NAN;
  std::string form;              // "absolute" (`GPU Slowdown Temp : 89 C`), "tlimit" (derived), "" none
};

// The limits of `g`: the absolute lines when printed (older drivers; a driver printing both forms
// gives them as they are), else derived from the T.Limit form. `GPU T.Limit Temp` is the headroom
// from the current temperature to the max operating limit (T.Limit), and each `... T.Limit Temp`
// limit is where that headroom would stand at the limit, so limit = current + T.Limit headroom -
// the limit's T.Limit value: H100 GPU 0 (current 30, T.Limit 57; max operating / slowdown /
// shutdown at 0 / -2 / -8) gives 87 / 89 / 95 C. Both readings are whole degrees taken a moment
// apart, so a derived limit is good to about 1 C. NaN for a limit neither form gives. Never fails.
NvsmiAbsoluteLimits AbsoluteLimitsOf(const NvsmiQueryGpu& g);

// True when the first bytes look like `nvidia-smi -q` output: the `==NVSMI LOG==` banner, or an
// `Attached GPUs : N` line with a `GPU <bus id>` section header (a preamble before them is fine).
bool LooksLikeNvsmiQuery(std::string_view head);

}  // namespace toposcope::formats
