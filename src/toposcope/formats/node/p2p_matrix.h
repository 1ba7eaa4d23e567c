// formats/node/p2p_matrix: GPU x GPU bandwidth/latency matrices as CUDA's p2pBandwidthLatencyTest,
// NVIDIA nvbandwidth (every version: old `0.00` diagonals, `N/A`, `SUM` lines, PCI ids) and a
// plain CSV print them. Read and written.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

enum class P2pTool { kP2pBandwidthLatencyTest, kNvbandwidth, kCsv };

enum class P2pQuantity {
  kBandwidthUnidirGbps,  // unidirectional GB/s
  kBandwidthBidirGbps,   // bidirectional GB/s
  kLatencyUs,            // microseconds
  kConnectivity,         // 1/0 peer access
};

struct P2pDevice {
  int index = -1;
  std::string name;        // "NVIDIA H20-3e"; may be empty
  std::string pci_bus_id;  // as printed ("00000000:18:00", "b4"); may be empty
};

struct P2pMatrix {
  std::string title;        // the heading as printed, e.g. "Unidirectional P2P=Enabled Bandwidth
                            // (P2P Writes) Matrix (GB/s)" or the nvbandwidth testcase name
                            // (its description line when the testcase is unknown); CSV: the
                            // `matrix` label
  std::string testcase;     // nvbandwidth testcase ("device_to_device_memcpy_write_ce"), else empty
  std::string description;  // nvbandwidth description line ("memcpy CE GPU(row) <- GPU(column)
                            // bandwidth (GB/s)"), else empty
  P2pQuantity quantity = P2pQuantity::kBandwidthUnidirGbps;
  bool gpu_to_gpu = true;    // false for host<->device tests (one row, the CPU) and CPU latency tables
  bool p2p_enabled = true;   // p2pBandwidthLatencyTest: P2P=Enabled vs Disabled
  std::vector<int> row_ids;  // device index per row
  std::vector<int> col_ids;  // device index per column
  // values[r][c]; NaN where the tool printed N/A, and on a pre-v0.2 nvbandwidth `0.00` diagonal.
  std::vector<std::vector<double>> values;
  double sum = NAN;  // nvbandwidth SUM line, NaN when absent
};

struct P2pReport {
  P2pTool tool = P2pTool::kNvbandwidth;
  std::string version;               // nvbandwidth "v0.8"; empty if absent
  std::string hostname;              // nvbandwidth v0.8 hostname line; empty if absent
  std::string git_version;           // nvbandwidth "Built from Git version: ..."; may be empty
  std::string cuda_runtime_version;  // nvbandwidth "CUDA Runtime Version: 12060"; may be empty
  std::string cuda_driver_version;   // nvbandwidth "CUDA Driver Version: 12060"; may be empty
  std::string driver_version;        // nvbandwidth "Driver Version: 550.127.08"; may be empty
  std::vector<P2pDevice> devices;
  std::vector<P2pMatrix> matrices;
};

// The readers of the P2P tools (p2pBandwidthLatencyTest, nvbandwidth) and of our CSV: each returns
// the report. Each matrix row is a record (plus the CSV's data lines). Bad rows (wrong cell count,
// non-numbers, negative or absurd values) are rejected and counted. A tool output with `Device`
// lines but no matrix gives those devices (each line an accepted record, and a warning). Fail only
// when neither a matrix nor a device line is found (or the input is binary, or, for the CSV, its
// header is not one of the forms below).
Result<P2pReport> ParseP2pBandwidthLatencyTest(std::string_view text, std::string_view source,
                                               Diagnostics& diag, ReadCounts& counts);
Result<P2pReport> ParseNvbandwidth(std::string_view text, std::string_view source, Diagnostics& diag,
                                   ReadCounts& counts);
// CSV, long form `src,dst,bandwidth_gbps` (header required; optional 4th column `kind` =
// unidir|bidir|latency_us|connectivity, rows of one kind form one matrix; optional 5th column
// `matrix` = a label that splits one kind into several matrices and becomes the title; a label
// that contains `P2P=Disabled` marks a matrix measured without peer access) or wide
// form: header `,0,1,...` (first cell empty or "src\\dst") and one row per source device. Cells
// `N/A` or empty are NaN; long-form rows and columns keep their order of first appearance, and
// cells never given are NaN. `#` comment lines and blank lines are skipped. Fails as above.
Result<P2pReport> ParseP2pCsv(std::string_view text, std::string_view source, Diagnostics& diag,
                              ReadCounts& counts);

// Writers, in the tools' exact layouts (nvbandwidth v0.8 style; p2pBandwidthLatencyTest as CUDA
// 12 samples print it; CSV long form with all five columns, values with 2 decimals, NaN as N/A).
// Each round-trips through its reader (values to 2 decimals, NaNs kept).
std::string WriteNvbandwidth(const P2pReport& report);
std::string WriteP2pBandwidthLatencyTest(const P2pReport& report);
std::string WriteP2pCsv(const P2pReport& report);

}  // namespace toposcope::formats
