// Golden tests of the `nvidia-smi topo` matrix reader and writer on the six real fixtures, the
// round trip through the writer, and malformed inputs.
#include "toposcope/formats/node/nvsmi_topo.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace nvsmi_topo_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES) + "/nvidia_smi_topo/";
const std::string kA800 = kDir + "a800_8gpu_nv8_4nic_driver525.txt";
const std::string kDgx1 = kDir + "dgx1_v100_topo_mp_pcie_only.txt";
const std::string kDgxA100 = kDir + "dgx_a100_8gpu_nv12_12nic_mlx5_rows.txt";
const std::string kH100 = kDir + "h100_8gpu_nv18_9nic_tabs_PARTIAL_nccl_issue1453.txt";
const std::string kRtx550 = kDir + "rtx2080ti_x2_pix_driver550.txt";
const std::string kRtxP2p = kDir + "rtx2080ti_x2_topo_p2p_p.txt";

// `prefix` followed by the number `n` (appending: avoids GCC 12's -Wrestrict false positive).
std::string Cat(std::string prefix, int n) {
  prefix.append(std::to_string(n));
  return prefix;
}

const std::vector<std::string> kTopoLegendKeys = {"X", "SYS", "NODE", "PHB", "PXB", "PIX", "NV#"};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One parse with its diagnostics and counts.
struct Parsed {
  Diagnostics diag;
  ReadCounts counts;
  Result<NvsmiTopo> topo = MakeError("not parsed");
};

Parsed ParseText(const std::string& text, const std::string& source = "test") {
  Parsed p;
  p.topo = ParseNvsmiTopo(text, source, p.diag, p.counts);
  EXPECT_TRUE(p.counts.Balanced());
  return p;
}

Parsed ParseFile(const std::string& path) { return ParseText(Slurp(path), path); }

// All rejection reasons joined, for substring checks.
std::string Reasons(const Diagnostics& diag) {
  std::string out;
  for (const Diagnostic& d : diag.items()) {
    if (d.severity == Severity::kRejected) out += d.reason + "\n";
  }
  return out;
}

// All warnings joined, for substring checks.
std::string Warnings(const Diagnostics& diag) {
  std::string out;
  for (const Diagnostic& d : diag.items()) {
    if (d.severity == Severity::kWarning) out += d.reason + "\n";
  }
  return out;
}

std::vector<std::string> Labels(const NvsmiTopo& t) {
  std::vector<std::string> out;
  for (const NvsmiDevice& d : t.devices) out.push_back(d.label);
  return out;
}

// The cell of the devices labelled `row` and `col`.
std::string Cell(const NvsmiTopo& t, const std::string& row, const std::string& col) {
  size_t r = t.devices.size();
  size_t c = t.devices.size();
  for (size_t i = 0; i < t.devices.size(); ++i) {
    if (t.devices[i].label == row) r = i;
    if (t.devices[i].label == col) c = i;
  }
  if (r == t.devices.size() || c == t.devices.size()) return "<no such device>";
  return t.cells[r][c];
}

const NvsmiDevice& Dev(const NvsmiTopo& t, const std::string& label) {
  for (const NvsmiDevice& d : t.devices) {
    if (d.label == label) return d;
  }
  ADD_FAILURE() << "no device " << label;
  static const NvsmiDevice kNone;
  return kNone;
}

// Field-by-field equality. With `ignore_nic_labels` the NIC labels may differ (the writer prints
// NICn labels where an old driver printed mlx5_N).
void ExpectSameTopo(const NvsmiTopo& a, const NvsmiTopo& b, bool ignore_nic_labels = false) {
  EXPECT_EQ(a.kind, b.kind);
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (size_t i = 0; i < a.devices.size(); ++i) {
    const NvsmiDevice& x = a.devices[i];
    const NvsmiDevice& y = b.devices[i];
    SCOPED_TRACE("device " + x.label);
    if (!(ignore_nic_labels && x.kind == NvsmiDeviceKind::kNic)) {
      EXPECT_EQ(x.label, y.label);
    }
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.gpu_index, y.gpu_index);
    EXPECT_EQ(x.nic_device, y.nic_device);
    EXPECT_EQ(x.has_row, y.has_row);
    EXPECT_EQ(x.cpu_affinity, y.cpu_affinity);
    EXPECT_EQ(x.numa_affinity, y.numa_affinity);
    EXPECT_EQ(x.gpu_numa_id, y.gpu_numa_id);
  }
  EXPECT_EQ(a.cells, b.cells);
  EXPECT_EQ(a.legend_keys, b.legend_keys);
}

// Parses, writes, parses again: the second parse must equal the first and accept every row.
void ExpectRoundTrip(const NvsmiTopo& topo, bool ignore_nic_labels = false) {
  const std::string text = WriteNvsmiTopo(topo);
  Parsed again = ParseText(text, "roundtrip");
  ASSERT_TRUE(again.topo.ok()) << again.topo.error().ToString() << "\n" << text;
  EXPECT_EQ(again.counts.rejected, 0) << Reasons(again.diag) << text;
  ExpectSameTopo(topo, *again.topo, ignore_nic_labels);
  EXPECT_EQ(WriteNvsmiTopo(*again.topo), text);  // the written form is a fixpoint
}

// --- The six real fixtures ---------------------------------------------------------------------

TEST(NvsmiTopoGolden, A800Driver525WithNicLegend) {
  Parsed p = ParseFile(kA800);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NvsmiTopo& t = *p.topo;
  EXPECT_EQ(t.kind, NvsmiMatrixKind::kTopo);
  EXPECT_EQ(Labels(t), (std::vector<std::string>{"GPU0", "GPU1", "GPU2", "GPU3", "GPU4", "GPU5", "GPU6",
                                                 "GPU7", "NIC0", "NIC1", "NIC2", "NIC3"}));
  EXPECT_EQ(Cell(t, "GPU0", "GPU1"), "NV8");
  EXPECT_EQ(Cell(t, "GPU1", "NIC0"), "PIX");
  EXPECT_EQ(Cell(t, "NIC0", "GPU1"), "PIX");
  EXPECT_EQ(Cell(t, "GPU0", "NIC2"), "SYS");
  EXPECT_EQ(Cell(t, "NIC2", "NIC3"), "PIX");
  EXPECT_EQ(Cell(t, "GPU3", "GPU3"), "X");
  for (int i = 0; i < 4; ++i) {
    const NvsmiDevice& nic = Dev(t, Cat("NIC", i));
    EXPECT_EQ(nic.kind, NvsmiDeviceKind::kNic);
    EXPECT_EQ(nic.nic_device, Cat("mlx5_", i));
    EXPECT_TRUE(nic.has_row);
    EXPECT_EQ(nic.cpu_affinity, "");
    EXPECT_EQ(nic.numa_affinity, -1);
  }
  EXPECT_EQ(Dev(t, "GPU0").cpu_affinity, "0-31,64-95");
  EXPECT_EQ(Dev(t, "GPU0").numa_affinity, 0);
  EXPECT_EQ(Dev(t, "GPU4").cpu_affinity, "32-63,96-127");
  EXPECT_EQ(Dev(t, "GPU4").numa_affinity, 1);
  EXPECT_EQ(Dev(t, "GPU4").gpu_numa_id, -1);  // no GPU NUMA ID column on driver 525
  EXPECT_EQ(Dev(t, "GPU7").gpu_index, 7);
  EXPECT_EQ(Dev(t, "GPU7").kind, NvsmiDeviceKind::kGpu);
  EXPECT_EQ(t.legend_keys, kTopoLegendKeys);
  EXPECT_EQ(p.counts.read, 12);
  EXPECT_EQ(p.counts.accepted, 12);
  EXPECT_EQ(p.counts.rejected, 0);
  EXPECT_TRUE(p.diag.items().empty()) << p.diag.items()[0].ToString();
}

TEST(NvsmiTopoGolden, Dgx1PcieOnly) {
  Parsed p = ParseFile(kDgx1);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NvsmiTopo& t = *p.topo;
  EXPECT_EQ(t.kind, NvsmiMatrixKind::kPcieOnly);
  ASSERT_EQ(t.devices.size(), 12u);
  EXPECT_EQ(t.devices[8].label, "mlx5_0");
  EXPECT_EQ(t.devices[8].kind, NvsmiDeviceKind::kNic);
  EXPECT_EQ(t.devices[8].nic_device, "mlx5_0");
  EXPECT_EQ(t.devices[11].nic_device, "mlx5_3");
  EXPECT_EQ(Cell(t, "GPU0", "GPU1"), "PIX");
  EXPECT_EQ(Cell(t, "GPU0", "GPU2"), "PHB");
  EXPECT_EQ(Cell(t, "GPU0", "mlx5_0"), "PIX");
  EXPECT_EQ(Cell(t, "mlx5_3", "mlx5_2"), "PHB");
  EXPECT_EQ(Dev(t, "GPU5").cpu_affinity, "20-39,60-79");
  EXPECT_EQ(Dev(t, "GPU5").numa_affinity, 1);
  EXPECT_EQ(t.legend_keys, (std::vector<std::string>{"X", "SYS", "NODE", "PHB", "PXB", "PIX"}));
  EXPECT_EQ(p.counts.read, 12);
  EXPECT_EQ(p.counts.accepted, 12);
  EXPECT_EQ(p.counts.rejected, 0);
}

TEST(NvsmiTopoGolden, DgxA100Mlx5Rows) {
  Parsed p = ParseFile(kDgxA100);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NvsmiTopo& t = *p.topo;
  EXPECT_EQ(t.kind, NvsmiMatrixKind::kTopo);
  ASSERT_EQ(t.devices.size(), 20u);
  EXPECT_EQ(t.devices[0].label, "GPU0");
  EXPECT_EQ(t.devices[19].label, "mlx5_11");
  EXPECT_EQ(t.devices[19].nic_device, "mlx5_11");
  EXPECT_EQ(Cell(t, "GPU0", "GPU7"), "NV12");
  EXPECT_EQ(Cell(t, "GPU0", "mlx5_0"), "PXB");
  EXPECT_EQ(Cell(t, "mlx5_4", "mlx5_5"), "PIX");
  EXPECT_EQ(Cell(t, "mlx5_10", "mlx5_11"), "PIX");
  EXPECT_EQ(Dev(t, "GPU0").cpu_affinity, "48-63,176-191");
  EXPECT_EQ(Dev(t, "GPU0").numa_affinity, 3);
  EXPECT_EQ(Dev(t, "GPU7").numa_affinity, 5);
  EXPECT_EQ(t.legend_keys, kTopoLegendKeys);
  EXPECT_EQ(p.counts.read, 20);
  EXPECT_EQ(p.counts.accepted, 20);
  EXPECT_EQ(p.counts.rejected, 0);
}

TEST(NvsmiTopoGolden, H100PartialWithEmptyCellAndGpuNumaId) {
  Parsed p = ParseFile(kH100);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NvsmiTopo& t = *p.topo;
  EXPECT_EQ(t.kind, NvsmiMatrixKind::kTopo);
  ASSERT_EQ(t.devices.size(), 17u);
  EXPECT_EQ(t.devices[16].label, "NIC8");
  EXPECT_EQ(Cell(t, "GPU0", "GPU1"), "NV18");
  EXPECT_EQ(Cell(t, "GPU0", "NIC8"), "PIX");
  EXPECT_EQ(Cell(t, "NIC5", "GPU3"), "PIX");
  EXPECT_EQ(Cell(t, "NIC5", "NIC8"), "NODE");
  for (const std::string nic : {"NIC6", "NIC7", "NIC8"}) {
    EXPECT_FALSE(Dev(t, nic).has_row) << nic;
    EXPECT_EQ(Cell(t, nic, "GPU0"), "") << nic;
    EXPECT_EQ(Dev(t, nic).nic_device, "") << nic;  // no NIC Legend in the partial output
  }
  EXPECT_TRUE(Dev(t, "NIC5").has_row);
  EXPECT_EQ(Dev(t, "GPU0").cpu_affinity, "0-79");
  EXPECT_EQ(Dev(t, "GPU0").numa_affinity, 0);
  EXPECT_EQ(Dev(t, "GPU0").gpu_numa_id, -1);
  EXPECT_EQ(Dev(t, "GPU7").cpu_affinity, "80-159");
  EXPECT_EQ(Dev(t, "GPU7").numa_affinity, 1);
  EXPECT_TRUE(t.legend_keys.empty());
  EXPECT_EQ(p.counts.read, 14);
  EXPECT_EQ(p.counts.accepted, 14);
  EXPECT_EQ(p.counts.rejected, 0);
}

TEST(NvsmiTopoGolden, Rtx2080TiDriver550Spaces) {
  Parsed p = ParseFile(kRtx550);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NvsmiTopo& t = *p.topo;
  // PIX only, but the legend has NV#: a -m matrix, not -mp.
  EXPECT_EQ(t.kind, NvsmiMatrixKind::kTopo);
  EXPECT_EQ(Labels(t), (std::vector<std::string>{"GPU0", "GPU1"}));
  EXPECT_EQ(Cell(t, "GPU0", "GPU1"), "PIX");
  EXPECT_EQ(Dev(t, "GPU1").cpu_affinity, "24-47,72-95");
  EXPECT_EQ(Dev(t, "GPU1").numa_affinity, 1);
  EXPECT_EQ(Dev(t, "GPU1").gpu_numa_id, -1);
  EXPECT_EQ(p.counts.read, 2);
  EXPECT_EQ(p.counts.accepted, 2);
  EXPECT_EQ(p.counts.rejected, 0);
}

TEST(NvsmiTopoGolden, Rtx2080TiP2pP) {
  Parsed p = ParseFile(kRtxP2p);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NvsmiTopo& t = *p.topo;
  EXPECT_EQ(t.kind, NvsmiMatrixKind::kP2p);
  EXPECT_EQ(Labels(t), (std::vector<std::string>{"GPU0", "GPU1"}));
  EXPECT_EQ(Cell(t, "GPU0", "GPU1"), "NS");
  EXPECT_EQ(Cell(t, "GPU1", "GPU0"), "NS");
  EXPECT_EQ(Cell(t, "GPU1", "GPU1"), "X");
  EXPECT_EQ(Dev(t, "GPU0").cpu_affinity, "");
  EXPECT_EQ(Dev(t, "GPU0").numa_affinity, -1);
  EXPECT_EQ(t.legend_keys, (std::vector<std::string>{"X", "OK", "CNS", "GNS", "TNS", "NS", "U"}));
  EXPECT_EQ(p.counts.read, 2);
  EXPECT_EQ(p.counts.accepted, 2);
  EXPECT_EQ(p.counts.rejected, 0);
}

// --- Real outputs collected from public posts (testdata/real/nvidia_smi_topo, PROVENANCE.md) ------

const std::string kRealDir = std::string(TOPOSCOPE_TESTDATA) + "/real/nvidia_smi_topo/";
const std::string kP2pDr = kRealDir + "nvsmi_topo_p2p_rw_2x_rtx5090_gns_dr_legend_club3090_issue1229.txt";
const std::string kP2pSpaces = kRealDir + "nvsmi_topo_p2p_rw_2x_rtx5090_spaces_club3090_issue1130.txt";
const std::string kA100NoNicLegend = kRealDir + "dgx_a100_nv12_nic0_nic11_no_nic_legend_nccl_issue1505_excerpt.txt";
const std::string kDgx2 = kRealDir + "dgx2_v100_16gpu_nv6_mlx5_cols_nccl_tests_issue78_excerpt.txt";

TEST(NvsmiTopoRealGolden, P2pRwWithDisabledByRegkeyLegendAndLeadingSpaces) {
  for (const std::string& path : {kP2pDr, kP2pSpaces}) {
    Parsed p = ParseFile(path);
    ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
    const NvsmiTopo& t = *p.topo;
    EXPECT_EQ(t.kind, NvsmiMatrixKind::kP2p) << path;
    EXPECT_EQ(Labels(t), (std::vector<std::string>{"GPU0", "GPU1"})) << path;
    EXPECT_EQ(Cell(t, "GPU0", "GPU1"), "GNS") << path;
    EXPECT_EQ(Cell(t, "GPU1", "GPU0"), "GNS") << path;
    EXPECT_EQ(t.legend_keys, (std::vector<std::string>{"X", "OK", "CNS", "GNS", "TNS", "NS", "DR", "U"})) << path;
    EXPECT_EQ(p.counts.read, 2) << path;
    EXPECT_EQ(p.counts.accepted, 2) << path;
    EXPECT_EQ(p.counts.rejected, 0) << Reasons(p.diag);
  }
}

TEST(NvsmiTopoRealGolden, DisabledByRegkeyCellIsAP2pStatus) {
  std::string text = Slurp(kP2pDr);
  text.replace(text.find("GNS"), 3, "DR");  // GPU0 -> GPU1 disabled by regkey
  Parsed p = ParseText(text);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.counts.rejected, 0) << Reasons(p.diag);
  EXPECT_EQ(Cell(*p.topo, "GPU0", "GPU1"), "DR");
  // The writer keeps it, and its standard -p2p legend names DR.
  Parsed again = ParseText(WriteNvsmiTopo(*p.topo));
  ASSERT_TRUE(again.topo.ok());
  EXPECT_EQ(Cell(*again.topo, "GPU0", "GPU1"), "DR");
  NvsmiTopo bare = *p.topo;
  bare.legend_keys.clear();
  EXPECT_NE(WriteNvsmiTopo(bare).find("  DR   = Disabled by regkey"), std::string::npos) << WriteNvsmiTopo(bare);
}

TEST(NvsmiTopoRealGolden, NicColumnsWithoutNicLegendKeepTheirOwnNames) {
  Parsed p = ParseFile(kA100NoNicLegend);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NvsmiTopo& t = *p.topo;
  ASSERT_EQ(t.devices.size(), 20u);
  std::vector<std::string> names;
  for (const NvsmiDevice& d : t.devices) {
    if (d.kind != NvsmiDeviceKind::kNic) continue;
    EXPECT_EQ(d.nic_device, "") << d.label;  // the excerpt stops before any NIC Legend
    names.push_back(NvsmiNicName(d));
  }
  ASSERT_EQ(names.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(names[static_cast<size_t>(i)], Cat("NIC", i));
  EXPECT_NE(Warnings(p.diag).find("12 NIC column(s) without a NIC Legend entry (NIC0, NIC1, NIC2, NIC3, ...)"),
            std::string::npos)
      << Warnings(p.diag);
  EXPECT_EQ(Cell(t, "GPU0", "NIC1"), "PXB");
  EXPECT_EQ(Cell(t, "GPU4", "NIC6"), "PXB");
  EXPECT_EQ(Dev(t, "GPU0").numa_affinity, 3);
  EXPECT_EQ(Dev(t, "GPU4").cpu_affinity, "112-127,240-25");  // cut off by the search excerpt
  EXPECT_FALSE(Dev(t, "GPU5").has_row);
  EXPECT_EQ(p.counts.read, 5);
  EXPECT_EQ(p.counts.accepted, 5);
  // A NIC with a device name keeps it.
  NvsmiDevice named = Dev(t, "NIC3");
  named.nic_device = "mlx5_3";
  EXPECT_EQ(NvsmiNicName(named), "mlx5_3");
}

TEST(NvsmiTopoRealGolden, Dgx2SixteenGpusNv6WithMlx5Columns) {
  Parsed p = ParseFile(kDgx2);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NvsmiTopo& t = *p.topo;
  EXPECT_EQ(t.kind, NvsmiMatrixKind::kTopo);
  ASSERT_EQ(t.devices.size(), 26u);
  EXPECT_EQ(t.devices[15].label, "GPU15");
  EXPECT_EQ(t.devices[16].nic_device, "mlx5_0");
  EXPECT_EQ(NvsmiNicName(t.devices[25]), "mlx5_9");
  for (int g = 1; g < 16; ++g) EXPECT_EQ(Cell(t, "GPU0", Cat("GPU", g)), "NV6") << g;
  EXPECT_EQ(Cell(t, "GPU2", "mlx5_1"), "PIX");
  EXPECT_EQ(Dev(t, "GPU0").cpu_affinity, "0-23,48-71");
  EXPECT_EQ(Warnings(p.diag).find("NIC Legend"), std::string::npos);  // mlx5 names need no legend
  EXPECT_EQ(p.counts.read, 5);
  EXPECT_EQ(p.counts.accepted, 5);
  EXPECT_EQ(p.counts.rejected, 0);
}

TEST(NvsmiTopoRealGolden, V100CubeMeshMixesNv1AndNv2) {
  Parsed p = ParseFile(kRealDir + "dgx1_class_8x_v100_sxm2_nv1_nv2_cube_mesh_mlx5_oneflow_dlperf_report.txt");
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NvsmiTopo& t = *p.topo;
  EXPECT_EQ(t.kind, NvsmiMatrixKind::kTopo);
  ASSERT_EQ(t.devices.size(), 9u);
  EXPECT_EQ(NvsmiNicName(t.devices[8]), "mlx5_0");
  EXPECT_EQ(Cell(t, "GPU0", "GPU1"), "NV1");
  EXPECT_EQ(Cell(t, "GPU0", "GPU3"), "NV2");
  EXPECT_EQ(Cell(t, "GPU0", "GPU5"), "SYS");
  EXPECT_EQ(Cell(t, "GPU7", "GPU4"), "NV2");
  EXPECT_EQ(Cell(t, "GPU2", "mlx5_0"), "PIX");
  EXPECT_EQ(Dev(t, "GPU4").cpu_affinity, "12-23,36-47");
  EXPECT_EQ(p.counts.read, p.counts.accepted);
  EXPECT_EQ(p.counts.rejected, 0) << Reasons(p.diag);
}

// `topo -m` then `topo -p2p` pasted into one file, indented, with the legend lines wrapped
// (testdata/real, PROVENANCE.md): the first matrix is read as a topo matrix (its cells decide,
// not the -p2p legend that follows), and the second matrix's rows are rejected, not dropped.
TEST(NvsmiTopoRealGolden, TopoThenP2pInOneFileReadsTheFirstAndRejectsTheSecond) {
  Parsed p = ParseFile(kRealDir + "topo_m_and_p2p_indented_wrapped_legend_2gpu_node_club3090_issue1125_excerpt.txt");
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  const NvsmiTopo& t = *p.topo;
  EXPECT_EQ(t.kind, NvsmiMatrixKind::kTopo);
  EXPECT_EQ(Labels(t), (std::vector<std::string>{"GPU0", "GPU1"}));
  EXPECT_EQ(Cell(t, "GPU0", "GPU1"), "NODE");
  EXPECT_EQ(Dev(t, "GPU1").cpu_affinity, "0-15");
  EXPECT_EQ(Dev(t, "GPU1").numa_affinity, 0);
  EXPECT_EQ(p.counts.read, 4);
  EXPECT_EQ(p.counts.accepted, 2);
  EXPECT_EQ(p.counts.rejected, 2);
  EXPECT_NE(Reasons(p.diag).find("row of a second nvidia-smi topo matrix (header at line 19)"), std::string::npos)
      << Reasons(p.diag);
  // A -p2p matrix alone (no topo cells) is still told by its legend and cells.
  Parsed q = ParseFile(kP2pDr);
  ASSERT_TRUE(q.topo.ok());
  EXPECT_EQ(q.topo->kind, NvsmiMatrixKind::kP2p);
}

// --- Variants of the layout ---------------------------------------------------------------------

TEST(NvsmiTopoVariants, TabsTurnedIntoSpacesGiveTheSameMatrix) {
  std::string tabs = Slurp(kDgxA100);
  std::string spaces;
  for (char c : tabs) spaces += c == '\t' ? std::string("    ") : std::string(1, c);
  Parsed a = ParseText(tabs);
  Parsed b = ParseText(spaces);
  ASSERT_TRUE(a.topo.ok());
  ASSERT_TRUE(b.topo.ok());
  ExpectSameTopo(*a.topo, *b.topo);
}

TEST(NvsmiTopoVariants, AnsiUnderlinedHeaderAndCrlf) {
  std::string text = Slurp(kA800);
  const size_t nl = text.find('\n');
  text = "\x1b[4m" + text.substr(0, nl) + "\x1b[0m" + text.substr(nl);
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  Parsed plain = ParseFile(kA800);
  Parsed p = ParseText(crlf);
  ASSERT_TRUE(p.topo.ok()) << p.topo.error().ToString();
  ExpectSameTopo(*plain.topo, *p.topo);
  EXPECT_EQ(p.counts.accepted, 12);
}

TEST(NvsmiTopoVariants, TextAroundTheOutputIsIgnored) {
  const std::string text = "$ nvidia-smi topo -m\n" + Slurp(kRtx550) + "\n$ exit\n";
  Parsed p = ParseText(text);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.counts.read, 2);
  EXPECT_EQ(p.counts.rejected, 0);
}

TEST(NvsmiTopoVariants, TrailingAffinityColumnsMayBeAbsent) {
  const std::string text =
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tNV4\t0-7\n"
      "GPU1\tNV4\t X \t8-15\t1\n";
  Parsed p = ParseText(text);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.counts.accepted, 2);
  EXPECT_EQ(Dev(*p.topo, "GPU0").cpu_affinity, "0-7");
  EXPECT_EQ(Dev(*p.topo, "GPU0").numa_affinity, -1);
  EXPECT_EQ(Dev(*p.topo, "GPU1").numa_affinity, 1);
  EXPECT_EQ(Dev(*p.topo, "GPU1").gpu_numa_id, -1);
}

TEST(NvsmiTopoVariants, GpuNumaIdNumber) {
  const std::string text =
      "\tGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \t0-71\t0\t\t4\n";
  Parsed p = ParseText(text);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.topo->kind, NvsmiMatrixKind::kPcieOnly);
  EXPECT_EQ(Dev(*p.topo, "GPU0").gpu_numa_id, 4);
  NvsmiTopo with_legend = *p.topo;  // the writer would add the standard legend otherwise
  with_legend.legend_keys = {"X", "PIX"};
  ExpectRoundTrip(with_legend);
}

TEST(NvsmiTopoVariants, BadAffinityValueIsWarnedAboutNotRejected) {
  const std::string text =
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tNV4\tlots\tNaN\n"
      "GPU1\tNV4\t X \t8-15\t1\n";
  Parsed p = ParseText(text);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.counts.accepted, 2);
  EXPECT_EQ(Dev(*p.topo, "GPU0").cpu_affinity, "");
  EXPECT_EQ(Dev(*p.topo, "GPU0").numa_affinity, -1);
  EXPECT_NE(Warnings(p.diag).find("bad CPU Affinity 'lots'"), std::string::npos) << Warnings(p.diag);
  EXPECT_NE(Warnings(p.diag).find("bad NUMA Affinity 'NaN'"), std::string::npos) << Warnings(p.diag);
}

TEST(NvsmiTopoVariants, NicLegendForUnknownNicIsWarned) {
  const std::string text =
      "\tGPU0\tNIC0\n"
      "GPU0\t X \tPIX\n"
      "NIC0\tPIX\t X \n"
      "\nNIC Legend:\n\n  NIC0: mlx5_4\n  NIC7: mlx5_9\n";
  Parsed p = ParseText(text);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(Dev(*p.topo, "NIC0").nic_device, "mlx5_4");
  EXPECT_NE(Warnings(p.diag).find("not a header column"), std::string::npos);
}

// --- Round trips --------------------------------------------------------------------------------

TEST(NvsmiTopoRoundTrip, NicLegendFixturesRoundTripExactly) {
  for (const std::string& path : {kA800, kRtx550, kRtxP2p}) {
    SCOPED_TRACE(path);
    Parsed p = ParseFile(path);
    ASSERT_TRUE(p.topo.ok());
    ExpectRoundTrip(*p.topo);
  }
}

TEST(NvsmiTopoRoundTrip, Mlx5LabelledFixturesRoundTripWithNicnLabels) {
  for (const std::string& path : {kDgx1, kDgxA100}) {
    SCOPED_TRACE(path);
    Parsed p = ParseFile(path);
    ASSERT_TRUE(p.topo.ok());
    ExpectRoundTrip(*p.topo, /*ignore_nic_labels=*/true);
    Parsed again = ParseText(WriteNvsmiTopo(*p.topo));
    EXPECT_EQ(again.topo->devices[8].label, "NIC0");
    EXPECT_EQ(again.topo->devices[8].nic_device, "mlx5_0");
  }
}

TEST(NvsmiTopoRoundTrip, PartialH100KeepsMissingRows) {
  Parsed p = ParseFile(kH100);
  ASSERT_TRUE(p.topo.ok());
  const std::string text = WriteNvsmiTopo(*p.topo);
  Parsed again = ParseText(text);
  ASSERT_TRUE(again.topo.ok());
  EXPECT_EQ(again.counts.read, 14);
  // The partial output has no legend; the writer prints the standard one.
  NvsmiTopo expected = *p.topo;
  expected.legend_keys = kTopoLegendKeys;
  ExpectSameTopo(expected, *again.topo);
  EXPECT_EQ(WriteNvsmiTopo(*again.topo), text);
}

TEST(NvsmiTopoRoundTrip, WriterPrintsDriver550Layout) {
  Parsed p = ParseFile(kA800);
  const std::string text = WriteNvsmiTopo(*p.topo);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1\tNIC2\tNIC3\tCPU Affinity\t"
            "NUMA Affinity\tGPU NUMA ID");
  EXPECT_NE(
      text.find(
          "GPU4\tNV8\tNV8\tNV8\tNV8\t X \tNV8\tNV8\tNV8\tSYS\tSYS\tNODE\tNODE\t32-63,96-127\t1\t\tN/A\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("NIC3\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\tNODE\tPIX\tSYS\tSYS\tPIX\t X \n"),
            std::string::npos);
  EXPECT_NE(text.find("\nLegend:\n\n  X    = Self\n"), std::string::npos);
  EXPECT_NE(text.find("  NV#  = Connection traversing a bonded set of # NVLinks\n"), std::string::npos);
  EXPECT_NE(text.find("\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n"), std::string::npos);
}

TEST(NvsmiTopoRoundTrip, BuiltInMemory) {
  NvsmiTopo t;
  t.kind = NvsmiMatrixKind::kTopo;
  for (int i = 0; i < 3; ++i) {
    NvsmiDevice d;
    d.label = Cat("GPU", i);
    d.gpu_index = i;
    d.has_row = true;
    d.cpu_affinity = "0-15";
    d.numa_affinity = 0;
    d.gpu_numa_id = i == 2 ? 9 : -1;
    t.devices.push_back(d);
  }
  NvsmiDevice nic;
  nic.label = "NIC0";
  nic.kind = NvsmiDeviceKind::kNic;
  nic.nic_device = "mlx5_7";
  nic.has_row = true;
  t.devices.push_back(nic);
  t.cells = {{"X", "NV2", "SYS", "PIX"},
             {"NV2", "X", "NODE", "PXB"},
             {"SYS", "NODE", "X", "PHB"},
             {"PIX", "PXB", "PHB", "X"}};
  t.legend_keys = kTopoLegendKeys;
  ExpectRoundTrip(t);
}

TEST(NvsmiTopoRoundTrip, EmptyLegendGetsTheStandardOneForTheKind) {
  Parsed p = ParseFile(kDgx1);
  NvsmiTopo t = *p.topo;
  t.legend_keys.clear();
  const std::string text = WriteNvsmiTopo(t);
  EXPECT_EQ(text.find("NV#"), std::string::npos);  // -mp: no NV# legend entry
  Parsed again = ParseText(text);
  EXPECT_EQ(again.topo->kind, NvsmiMatrixKind::kPcieOnly);
}

// --- Bad inputs ---------------------------------------------------------------------------------

TEST(NvsmiTopoBad, EmptyInputIsAnError) {
  Parsed p = ParseText("", "empty.txt");
  ASSERT_FALSE(p.topo.ok());
  EXPECT_NE(p.topo.error().message.find("no nvidia-smi topo header"), std::string::npos);
  EXPECT_EQ(p.topo.error().path, "empty.txt");
  EXPECT_EQ(p.counts.read, 0);
}

TEST(NvsmiTopoBad, BinaryGarbageIsAnError) {
  std::string junk;
  uint32_t x = 12345;
  for (int i = 0; i < 100000; ++i) {
    x = x * 1664525u + 1013904223u;
    junk += static_cast<char>(x >> 24);
  }
  junk[10] = '\0';
  Parsed p = ParseText(junk);
  ASSERT_FALSE(p.topo.ok());
  EXPECT_NE(p.topo.error().message.find("no nvidia-smi topo header"), std::string::npos);
  EXPECT_NE(p.topo.error().hint.find("binary"), std::string::npos) << p.topo.error().ToString();
  EXPECT_TRUE(p.counts.Balanced());
}

TEST(NvsmiTopoBad, OnlyAHeader) {
  Parsed p = ParseText("\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n");
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.topo->devices.size(), 3u);
  for (const NvsmiDevice& d : p.topo->devices) EXPECT_FALSE(d.has_row);
  EXPECT_EQ(p.topo->cells.size(), 3u);
  EXPECT_EQ(p.topo->cells[2][0], "");
  EXPECT_EQ(p.counts.read, 0);
  EXPECT_NE(Warnings(p.diag).find("without any matrix row"), std::string::npos);
}

TEST(NvsmiTopoBad, RowsWithoutHeaderAreAnError) {
  Parsed p = ParseText("GPU0\t X \tNV4\nGPU1\tNV4\t X \n");
  ASSERT_FALSE(p.topo.ok());
  EXPECT_NE(p.topo.error().message.find("no nvidia-smi topo header"), std::string::npos);
}

TEST(NvsmiTopoBad, RowWithAMissingCell) {
  std::string text = Slurp(kA800);
  // GPU2 loses its NIC3 cell; NIC1 loses its last cell.
  const std::string gpu2 =
      "GPU2    NV8     NV8      X      NV8     NV8     NV8     NV8     NV8     NODE    NODE    SYS     SYS   "
      "  ";
  const size_t at = text.find(gpu2);
  ASSERT_NE(at, std::string::npos);
  text.replace(
      at, gpu2.size(),
      "GPU2    NV8     NV8      X      NV8     NV8     NV8     NV8     NV8     NODE    NODE    SYS     ");
  const std::string nic1 = "SYS     SYS     NODE     X      SYS     SYS\n";
  const size_t at2 = text.find(nic1);
  ASSERT_NE(at2, std::string::npos);
  text.replace(at2, nic1.size(), "SYS     SYS     NODE     X      SYS\n");
  Parsed p = ParseText(text, "a800.txt");
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.counts.read, 12);
  EXPECT_EQ(p.counts.accepted, 10);
  EXPECT_EQ(p.counts.rejected, 2);
  EXPECT_FALSE(Dev(*p.topo, "GPU2").has_row);
  EXPECT_FALSE(Dev(*p.topo, "NIC1").has_row);
  EXPECT_EQ(Cell(*p.topo, "GPU2", "GPU0"), "");
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("fewer cells than the header's 12 devices (the cell for NIC3 is the affinity value "
                         "'0-31,64-95')"),
            std::string::npos)
      << reasons;
  EXPECT_NE(reasons.find("row has 11 cells, the header has 12 devices"), std::string::npos) << reasons;
  ASSERT_EQ(p.diag.items().size(), 2u);
  EXPECT_EQ(p.diag.items()[0].line, 4);
  EXPECT_EQ(p.diag.items()[0].source, "a800.txt");
  EXPECT_EQ(p.diag.items()[1].line, 11);
}

TEST(NvsmiTopoBad, BadNvCell) {
  const std::string text =
      "\tGPU0\tGPU1\tGPU2\n"
      "GPU0\t X \tNVx\tNV2\n"
      "GPU1\tNV2\t X \tNV2\n"
      "GPU2\tNV2\tNV2\t X \n";
  Parsed p = ParseText(text);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.counts.read, 3);
  EXPECT_EQ(p.counts.rejected, 1);
  EXPECT_NE(Reasons(p.diag).find("bad cell value 'NVx' in column GPU1 (expected NV#, PIX"), std::string::npos)
      << Reasons(p.diag);
  EXPECT_FALSE(p.topo->devices[0].has_row);
}

TEST(NvsmiTopoBad, TopoCellInP2pMatrix) {
  const std::string text = Slurp(kRtxP2p);
  std::string bad = text;
  bad.replace(bad.find(" GPU1   NS"), 10, " GPU1   PIX");
  Parsed p = ParseText(bad);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.topo->kind, NvsmiMatrixKind::kP2p);
  EXPECT_EQ(p.counts.rejected, 1);
  EXPECT_NE(Reasons(p.diag).find("bad cell value 'PIX' in column GPU0 (expected OK, NS"), std::string::npos)
      << Reasons(p.diag);
}

TEST(NvsmiTopoBad, DuplicateRowKeepsTheFirst) {
  const std::string text =
      "\tGPU0\tGPU1\n"
      "GPU0\t X \tNV4\n"
      "GPU1\tNV4\t X \n"
      "GPU0\t X \tNV8\n";
  Parsed p = ParseText(text);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.counts.read, 3);
  EXPECT_EQ(p.counts.accepted, 2);
  EXPECT_EQ(p.counts.rejected, 1);
  EXPECT_EQ(Cell(*p.topo, "GPU0", "GPU1"), "NV4");
  EXPECT_NE(Reasons(p.diag).find("duplicate row for GPU0 (first at line 2)"), std::string::npos)
      << Reasons(p.diag);
  EXPECT_EQ(p.diag.items()[0].line, 4);
}

TEST(NvsmiTopoBad, UnknownRowLabelDiagonalAndExtraValues) {
  const std::string text =
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
      "GPU9\t X \tNV4\t0-7\t0\n"
      "GPU0\tNV4\tNV4\t0-7\t0\n"
      "GPU1\tX\t X \t0-7\t0\n"
      "GPU1\tNV4\t X \t0-7\t0\t7\t8\n";
  Parsed p = ParseText(text);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.counts.read, 4);
  EXPECT_EQ(p.counts.rejected, 4);
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("unknown row label 'GPU9'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("diagonal cell for GPU0 is 'NV4', expected X"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("'X' (self) off the diagonal, in column GPU0"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("row has 4 values after its 2 cells, the header has 2 affinity columns"),
            std::string::npos)
      << reasons;
}

TEST(NvsmiTopoBad, MegabyteSingleLine) {
  const std::string huge(1 << 20, 'A');
  {
    Parsed p = ParseText(huge);
    EXPECT_FALSE(p.topo.ok());
  }
  {
    // A megabyte-long row after a good header: one rejected record, clipped in the diagnostic.
    std::string row = "GPU0\t X ";
    while (row.size() < (1u << 20)) row += "\tNV4";
    Parsed p = ParseText("\tGPU0\tGPU1\n" + row + "\nGPU1\tNV4\t X \n");
    ASSERT_TRUE(p.topo.ok());
    EXPECT_EQ(p.counts.read, 2);
    EXPECT_EQ(p.counts.rejected, 1);
    EXPECT_NE(Reasons(p.diag).find("values after its 2 cells"), std::string::npos) << Reasons(p.diag);
    EXPECT_LT(p.diag.items()[0].raw.size(), 200u);
  }
  {
    // A megabyte-long header line: too many devices to be a header.
    std::string header;
    for (int i = 0; header.size() < (1u << 20); ++i) header += Cat("\tGPU", i);
    Parsed p = ParseText(header + "\n");
    ASSERT_FALSE(p.topo.ok());
    EXPECT_NE(p.topo.error().hint.find("more than 256"), std::string::npos) << p.topo.error().ToString();
  }
}

TEST(NvsmiTopoBad, NanTextAndControlBytes) {
  const std::string text =
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tnan\t0-7\t0\n"
      "GPU1\tinf\x01\t X \t0-7\t0\n";
  Parsed p = ParseText(text);
  ASSERT_TRUE(p.topo.ok());
  EXPECT_EQ(p.counts.read, 2);
  EXPECT_EQ(p.counts.rejected, 2);
  EXPECT_NE(Reasons(p.diag).find("bad cell value 'nan'"), std::string::npos) << Reasons(p.diag);
  EXPECT_NE(Reasons(p.diag).find("bad cell value 'inf?'"), std::string::npos) << Reasons(p.diag);
}

TEST(NvsmiTopoBad, DuplicateHeaderLabelsAreNotAHeader) {
  Parsed p = ParseText("\tGPU0\tGPU0\nGPU0\t X \tNV1\n");
  ASSERT_FALSE(p.topo.ok());
  EXPECT_NE(p.topo.error().hint.find("repeats a device label"), std::string::npos);
}

TEST(NvsmiTopoBad, CountsAccumulateAcrossInputs) {
  Diagnostics diag;
  ReadCounts counts;
  ASSERT_TRUE(ParseNvsmiTopo(Slurp(kRtx550), "a", diag, counts).ok());
  ASSERT_TRUE(ParseNvsmiTopo(Slurp(kA800), "b", diag, counts).ok());
  EXPECT_EQ(counts.read, 14);
  EXPECT_EQ(counts.accepted, 14);
  EXPECT_TRUE(counts.Balanced());
}

// Found by a long nvsmi_topo_fuzz run: a topology matrix whose legend holds only P2P keys (`U`) was
// written with an empty legend, which a re-parse fills with the standard one, so the second write
// differed from the first. The writer now writes the standard legend itself.
TEST(NvsmiTopoWriter, LegendOfP2pKeysOnlyInATopologyMatrix) {
  const std::string text =
      "\tGPU0\tGPU1\tCPU Affinity\n"
      "GPU0\t X \tPHB\t0-15\n"
      "GPU1\tPHB\t X \t0-15\n"
      "\nLegend:\n\n  U    = Unknown\n";
  Diagnostics diag;
  ReadCounts counts;
  auto topo = ParseNvsmiTopo(text, "p2p-legend", diag, counts);
  ASSERT_TRUE(topo.ok());
  EXPECT_NE(topo->kind, NvsmiMatrixKind::kP2p);
  const std::string written = WriteNvsmiTopo(*topo);
  EXPECT_NE(written.find("PHB  ="), std::string::npos) << written;
  Diagnostics diag2;
  ReadCounts counts2;
  auto again = ParseNvsmiTopo(written, "rewritten", diag2, counts2);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(counts2.rejected, 0);
  EXPECT_EQ(WriteNvsmiTopo(*again), written);
}

}  // namespace nvsmi_topo_test
}  // namespace toposcope::formats
