// formats/nccl/nccl_tests: the reader of nccl-tests output (all_reduce_perf, all_gather_perf,
// broadcast_perf, ... from NVIDIA/nccl-tests src/common.cu): the run header (`# nThread 1 nGpus 1
// minBytes ...`), the device lines of every version (`#  Rank  0 Group  0 Pid 6899 on host device  0
// [0000:04:00] NVIDIA H100 80GB HBM3`, before 2.15 `#   Rank  0 Pid 1320 on host device  0 [0x00]
// Tesla V100-SXM2-16GB`), the table of sizes with time, algbw and busbw out-of-place and in-place,
// and the footer (`# Out of bounds values : 0 OK`, `# Avg bus bandwidth    : 70.742`).
//
// What users paste is accepted as it comes: lines with OpenMPI's `--tag-output` prefix
// (`[1,0]<stdout>:`) or Slurm's `srun --label` prefix (`0: `), with the leading `#` lost, indented,
// with NCCL INFO/WARN lines and shell text between them, and several runs in one file. The
// table's columns come from its header line (`size count type redop root time algbw busbw #wrong
// ...`; broadcast has no redop, versions before 2.12 no root), or from the row itself when the
// header is missing.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

// One `Rank N ... device D [bus] name` line.
struct NcclTestsDevice {
  int rank = -1;
  int group = -1;  // -1 before the Group column existed
  int64_t pid = -1;
  std::string host;
  int device = -1;      // CUDA device index on that host
  std::string bus_id;   // as printed: "0000:04:00" (2.15+) or "0x00"
  std::string gpu_name; // "NVIDIA H100 80GB HBM3"
  int64_t line = 0;
};

// One half of a row: out-of-place or in-place.
struct NcclTestsTiming {
  double time_us = 0;
  double algbw_gbps = 0;  // GB/s as nccl-tests prints it (1e9 bytes per second)
  double busbw_gbps = 0;
  int64_t wrong = -1;     // #wrong / error column; -1 when printed as N/A (validation off)
  bool present = false;   // false when printed as N/A (for example alltoall in-place)
};

// One size of the table.
struct NcclTestsRow {
  int64_t size_bytes = 0;
  int64_t count = 0;      // elements
  std::string type;       // "float", "half", ...
  std::string redop;      // "sum", ...; empty for tests without one (broadcast)
  int root = -1;          // -1 when the test has no root or the column is absent
  NcclTestsTiming out_of_place;
  NcclTestsTiming in_place;
  int64_t line = 0;
};

// One run: a header, its devices, its rows and its footer.
struct NcclTestsRun {
  std::string test;             // "all_reduce_perf" from `# Collective test starting:`; empty if not printed
  std::string version;          // "2.18.0" from `# nccl-tests version 2.18.0 ...`; empty if not printed
  int nthread = 0, ngpus = 0;   // from the header; 0 when absent
  int64_t min_bytes = 0, max_bytes = 0;
  int warmup_iters = 0, iters = 0;
  std::vector<NcclTestsDevice> devices;
  std::vector<NcclTestsRow> rows;
  std::optional<double> avg_busbw_gbps;    // `# Avg bus bandwidth : X`
  std::optional<int64_t> out_of_bounds;    // `# Out of bounds values : N OK|FAILED`
  int64_t first_line = 0;
};

struct NcclTestsReport {
  std::string source;
  std::vector<NcclTestsRun> runs;
  // read = lines; accepted = lines understood or ignored as other text (NCCL INFO, shell);
  // rejected = table rows, device lines and footers that could not be read.
  ReadCounts counts;
};

// Reads nccl-tests output. Bad rows (a wrong number of columns, non-numbers, negative sizes,
// NaN) are rejected with their line and reason, and reading goes on. Fails when the input is
// empty or binary, or when it holds no nccl-tests header, device line or table row at all.
Result<NcclTestsReport> ParseNcclTests(std::string_view text, std::string_view source, Diagnostics& diag);
// Streaming form of ParseNcclTests (memory: the runs read). Fails as ParseNcclTests. `each_line`, when
// set, is handed every line read with its number first (so that a second reader, such as the NCCL
// log lines' NcclLogLineParser, reads the same pass); a line for which it returns true is that
// reader's (an NCCL log line) and is counted here as accepted, never read as a table row, so no
// line is rejected by both.
Result<NcclTestsReport> ReadNcclTests(LineReader& lines, std::string_view source, Diagnostics& diag,
                                      const std::function<bool(std::string_view, int64_t)>& each_line = {});

// True when the first part of a file looks like nccl-tests output: a `nThread N nGpus N minBytes`
// header or an `Avg bus bandwidth` footer, with or without `#` and line prefixes.
bool LooksLikeNcclTests(std::string_view head);

// The line without the prefixes launchers add: OpenMPI `[1,0]<stdout>:` / `<stderr>:` and Slurm
// `srun --label` `12: `. Other text is returned unchanged.
std::string_view StripLauncherPrefix(std::string_view line);

}  // namespace toposcope::formats
