// Golden tests of the p2pBandwidthLatencyTest, nvbandwidth and CSV matrix readers on the real
// fixtures, the writers (layout and round trips) and malformed inputs.
#include "toposcope/formats/node/p2p_matrix.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace p2p_matrix_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES);
const std::string kP2p = kDir + "/cuda_p2p/rtx2080ti_x2_nop2p_p2pBandwidthLatencyTest.txt";
const std::string kNvRtx4090 =
    kDir + "/nvbandwidth/nvbandwidth_issue15_v0.2_8x_rtx4090_h2d_d2h_ce_PARTIAL.txt";
const std::string kNvH20 =
    kDir + "/nvbandwidth/nvbandwidth_issue48_v0.8_8x_h20_3e_device_local_copy_busids_PARTIAL.txt";
const std::string kNvA6000 =
    kDir + "/nvbandwidth/nvbandwidth_issue50_v0.8_6x_rtx_a6000_pcie_d2d_memcpy_read_ce.txt";
const std::string kNvReadme = kDir + "/nvbandwidth/nvbandwidth_readme_8gpu_d2d_memcpy_write_ce_example.txt";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

enum class Fmt { kP2p, kNv, kCsv };

// One parse with its diagnostics and counts.
struct Parsed {
  Diagnostics diag;
  ReadCounts counts;
  Result<P2pReport> report = MakeError("not parsed");
};

Parsed ParseText(Fmt fmt, const std::string& text, const std::string& source = "test") {
  Parsed p;
  switch (fmt) {
    case Fmt::kP2p:
      p.report = ParseP2pBandwidthLatencyTest(text, source, p.diag, p.counts);
      break;
    case Fmt::kNv:
      p.report = ParseNvbandwidth(text, source, p.diag, p.counts);
      break;
    case Fmt::kCsv:
      p.report = ParseP2pCsv(text, source, p.diag, p.counts);
      break;
  }
  EXPECT_TRUE(p.counts.Balanced()) << p.counts.read << " " << p.counts.accepted << " " << p.counts.rejected;
  EXPECT_EQ(p.diag.RejectedFor(source), p.counts.rejected);
  return p;
}

Parsed ParseFile(Fmt fmt, const std::string& path) { return ParseText(fmt, Slurp(path), path); }

std::string Reasons(const Diagnostics& diag) {
  std::string out;
  for (const Diagnostic& d : diag.items()) {
    if (d.severity == Severity::kRejected) out += d.reason + "\n";
  }
  return out;
}

std::string Warnings(const Diagnostics& diag) {
  std::string out;
  for (const Diagnostic& d : diag.items()) {
    if (d.severity == Severity::kWarning) out += d.reason + "\n";
  }
  return out;
}

std::string Write(Fmt fmt, const P2pReport& r) {
  switch (fmt) {
    case Fmt::kP2p:
      return WriteP2pBandwidthLatencyTest(r);
    case Fmt::kNv:
      return WriteNvbandwidth(r);
    case Fmt::kCsv:
      return WriteP2pCsv(r);
  }
  return {};
}

// Same shapes, ids and values (to 2 decimals, NaN where NaN); flags when `flags`.
void ExpectSameMatrices(const P2pReport& a, const P2pReport& b, bool flags) {
  ASSERT_EQ(a.matrices.size(), b.matrices.size());
  for (size_t k = 0; k < a.matrices.size(); ++k) {
    SCOPED_TRACE("matrix " + std::to_string(k));
    const P2pMatrix& x = a.matrices[k];
    const P2pMatrix& y = b.matrices[k];
    EXPECT_EQ(x.row_ids, y.row_ids);
    EXPECT_EQ(x.col_ids, y.col_ids);
    EXPECT_EQ(x.quantity, y.quantity);
    if (flags) {
      EXPECT_EQ(x.gpu_to_gpu, y.gpu_to_gpu);
      EXPECT_EQ(x.p2p_enabled, y.p2p_enabled);
    }
    ASSERT_EQ(x.values.size(), y.values.size());
    for (size_t r = 0; r < x.values.size(); ++r) {
      ASSERT_EQ(x.values[r].size(), y.values[r].size());
      for (size_t c = 0; c < x.values[r].size(); ++c) {
        if (std::isnan(x.values[r][c])) {
          EXPECT_TRUE(std::isnan(y.values[r][c])) << r << "," << c;
        } else {
          EXPECT_NEAR(x.values[r][c], y.values[r][c], 0.0051) << r << "," << c;
        }
      }
    }
  }
}

// Tabs expanded to 8 columns and trailing blanks cut: the blog the fixture comes from did both.
std::string Normalize(const std::string& text) {
  std::string out;
  std::string line;
  const auto flush = [&] {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    line.clear();
  };
  for (const char c : text) {
    if (c == '\n') {
      flush();
    } else if (c == '\t') {
      do {
        line += ' ';
      } while (line.size() % 8 != 0);
    } else {
      line += c;
    }
  }
  if (!line.empty()) flush();
  return out;
}

const P2pMatrix* FindTitle(const P2pReport& r, const std::string& title, bool gpu = true) {
  for (const auto& m : r.matrices) {
    if (m.title == title && m.gpu_to_gpu == gpu) return &m;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// p2pBandwidthLatencyTest fixture.

TEST(P2pBandwidthLatencyTest, RealRtx2080TiGolden) {
  Parsed p = ParseFile(Fmt::kP2p, kP2p);
  ASSERT_TRUE(p.report.ok()) << p.report.error().ToString();
  const P2pReport& r = *p.report;
  EXPECT_EQ(r.tool, P2pTool::kP2pBandwidthLatencyTest);
  EXPECT_EQ(p.diag.items().size(), 0u) << Warnings(p.diag);
  // 9 tables of 2 rows: connectivity, 4 bandwidth, 2 x (GPU + CPU) latency.
  EXPECT_EQ(p.counts.read, 18);
  EXPECT_EQ(p.counts.accepted, 18);
  ASSERT_EQ(r.matrices.size(), 9u);

  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[0].index, 0);
  EXPECT_EQ(r.devices[0].name, "NVIDIA GeForce RTX 2080 Ti");
  EXPECT_EQ(r.devices[0].pci_bus_id, "b4");
  EXPECT_EQ(r.devices[1].pci_bus_id, "b5");

  const P2pMatrix& conn = r.matrices[0];
  EXPECT_EQ(conn.title, "P2P Connectivity Matrix");
  EXPECT_EQ(conn.quantity, P2pQuantity::kConnectivity);
  EXPECT_EQ(conn.values, (std::vector<std::vector<double>>{{1, 0}, {0, 1}}));

  const P2pMatrix* uni_off = FindTitle(r, "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)");
  ASSERT_NE(uni_off, nullptr);
  EXPECT_EQ(uni_off->quantity, P2pQuantity::kBandwidthUnidirGbps);
  EXPECT_FALSE(uni_off->p2p_enabled);
  EXPECT_TRUE(uni_off->gpu_to_gpu);
  EXPECT_EQ(uni_off->row_ids, (std::vector<int>{0, 1}));
  EXPECT_EQ(uni_off->col_ids, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(uni_off->values[0][1], 5.71);
  EXPECT_DOUBLE_EQ(uni_off->values[1][0], 5.70);
  EXPECT_DOUBLE_EQ(uni_off->values[0][0], 541.84);  // local copies are real numbers here
  EXPECT_TRUE(std::isnan(uni_off->sum));

  const P2pMatrix* uni_on = FindTitle(r, "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)");
  ASSERT_NE(uni_on, nullptr);
  EXPECT_TRUE(uni_on->p2p_enabled);
  EXPECT_DOUBLE_EQ(uni_on->values[1][1], 532.54);

  const P2pMatrix* bi_off = FindTitle(r, "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)");
  ASSERT_NE(bi_off, nullptr);
  EXPECT_EQ(bi_off->quantity, P2pQuantity::kBandwidthBidirGbps);
  EXPECT_FALSE(bi_off->p2p_enabled);
  EXPECT_DOUBLE_EQ(bi_off->values[0][1], 6.12);
  const P2pMatrix* bi_on = FindTitle(r, "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)");
  ASSERT_NE(bi_on, nullptr);
  EXPECT_TRUE(bi_on->p2p_enabled);

  const P2pMatrix* lat_gpu = FindTitle(r, "P2P=Disabled Latency Matrix (us)", true);
  const P2pMatrix* lat_cpu = FindTitle(r, "P2P=Disabled Latency Matrix (us)", false);
  ASSERT_NE(lat_gpu, nullptr);
  ASSERT_NE(lat_cpu, nullptr);
  EXPECT_EQ(lat_gpu->quantity, P2pQuantity::kLatencyUs);
  EXPECT_FALSE(lat_gpu->p2p_enabled);
  EXPECT_DOUBLE_EQ(lat_gpu->values[0][1], 14.76);
  EXPECT_DOUBLE_EQ(lat_gpu->values[1][0], 13.95);
  EXPECT_EQ(lat_cpu->quantity, P2pQuantity::kLatencyUs);
  EXPECT_DOUBLE_EQ(lat_cpu->values[0][0], 3.55);
  EXPECT_DOUBLE_EQ(lat_cpu->values[1][0], 10.48);

  const P2pMatrix* lat_on_gpu = FindTitle(r, "P2P=Enabled Latency (P2P Writes) Matrix (us)", true);
  const P2pMatrix* lat_on_cpu = FindTitle(r, "P2P=Enabled Latency (P2P Writes) Matrix (us)", false);
  ASSERT_NE(lat_on_gpu, nullptr);
  ASSERT_NE(lat_on_cpu, nullptr);
  EXPECT_TRUE(lat_on_gpu->p2p_enabled);
  EXPECT_DOUBLE_EQ(lat_on_gpu->values[0][1], 14.99);
  EXPECT_DOUBLE_EQ(lat_on_cpu->values[1][1], 3.27);
}

TEST(P2pBandwidthLatencyTest, WriterReproducesTheFixture) {
  const std::string text = Slurp(kP2p);
  Parsed p = ParseText(Fmt::kP2p, text);
  ASSERT_TRUE(p.report.ok());
  const std::string written = WriteP2pBandwidthLatencyTest(*p.report);
  // The tool prints a TAB after connectivity row labels and blanks after each cell.
  EXPECT_NE(written.find("     0\t     1     0\n"), std::string::npos);
  EXPECT_NE(written.find("     0 541.84   5.71 \n"), std::string::npos);
  EXPECT_EQ(Normalize(written), Normalize(text));
}

TEST(P2pBandwidthLatencyTest, RoundTrip) {
  Parsed a = ParseFile(Fmt::kP2p, kP2p);
  ASSERT_TRUE(a.report.ok());
  Parsed b = ParseText(Fmt::kP2p, WriteP2pBandwidthLatencyTest(*a.report));
  ASSERT_TRUE(b.report.ok());
  EXPECT_EQ(b.counts.rejected, 0);
  ExpectSameMatrices(*a.report, *b.report, true);
  for (size_t i = 0; i < a.report->matrices.size(); ++i) {
    EXPECT_EQ(a.report->matrices[i].title, b.report->matrices[i].title);
  }
  ASSERT_EQ(b.report->devices.size(), 2u);
  EXPECT_EQ(b.report->devices[1].pci_bus_id, "b5");
  EXPECT_EQ(b.report->devices[1].name, "NVIDIA GeForce RTX 2080 Ti");
}

TEST(P2pBandwidthLatencyTest, ThroughNvbandwidthAndCsv) {
  Parsed a = ParseFile(Fmt::kP2p, kP2p);
  ASSERT_TRUE(a.report.ok());
  Parsed nv = ParseText(Fmt::kNv, WriteNvbandwidth(*a.report));
  ASSERT_TRUE(nv.report.ok());
  EXPECT_EQ(nv.counts.rejected, 0) << Reasons(nv.diag);
  ExpectSameMatrices(*a.report, *nv.report, false);
  for (size_t i = 0; i < a.report->matrices.size(); ++i) {
    EXPECT_EQ(a.report->matrices[i].gpu_to_gpu, nv.report->matrices[i].gpu_to_gpu);
  }
  EXPECT_EQ(nv.report->devices.size(), 2u);

  Parsed csv = ParseText(Fmt::kCsv, WriteP2pCsv(*a.report));
  ASSERT_TRUE(csv.report.ok());
  EXPECT_EQ(csv.counts.rejected, 0) << Reasons(csv.diag);
  ExpectSameMatrices(*a.report, *csv.report, false);
}

TEST(P2pCsv, LabelsKeepP2pDisabledApart) {
  P2pReport r;
  r.tool = P2pTool::kP2pBandwidthLatencyTest;
  for (const bool enabled : {false, true}) {
    P2pMatrix m;
    m.title = enabled ? "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)"
                      : "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)";
    m.p2p_enabled = enabled;
    m.row_ids = m.col_ids = {0, 1};
    m.values = {{900, enabled ? 300.0 : 12.0}, {enabled ? 300.0 : 12.0, 900}};
    r.matrices.push_back(m);
  }
  Parsed csv = ParseText(Fmt::kCsv, WriteP2pCsv(r));
  ASSERT_TRUE(csv.report.ok());
  ExpectSameMatrices(r, *csv.report, true);
  EXPECT_FALSE(csv.report->matrices[0].p2p_enabled);
  EXPECT_TRUE(csv.report->matrices[1].p2p_enabled);
}

TEST(P2pBandwidthLatencyTest, BadRows) {
  const std::string text =
      "P2P Connectivity Matrix\n"
      "     D\\D     0     1\n"
      "     0       1     2\n"
      "     1       0     1\n"
      "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n"
      "   D\\D     0      1      2\n"
      "     0 541.84   5.71   5.00\n"
      "     1   5.70 543.05\n"
      "     2   nan   1.0   1.0\n"
      "     2   1e308   1.0   1.0\n"
      "     2   -5.0   1.0   1.0\n"
      "     0   1.0   1.0   1.0\n"
      "     x   1.0   1.0   1.0\n"
      "     2   1.0   N/A   1.0\n";
  Parsed p = ParseText(Fmt::kP2p, text);
  ASSERT_TRUE(p.report.ok());
  EXPECT_EQ(p.counts.read, 10);
  EXPECT_EQ(p.counts.accepted, 3);
  EXPECT_EQ(p.counts.rejected, 7);
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("row 0, column 1: connectivity must be 0 or 1, got '2'"), std::string::npos)
      << reasons;
  EXPECT_NE(reasons.find("row 1 has 2 values, expected 3"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("row 2, column 0: 'nan' is not a number"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("row 2, column 0: implausible value '1e308'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("row 2, column 0: negative value '-5.0'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("duplicate row 0"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("row label 'x' is not a device index"), std::string::npos) << reasons;
  ASSERT_EQ(p.report->matrices.size(), 2u);
  EXPECT_EQ(p.report->matrices[0].row_ids, (std::vector<int>{1}));
  const P2pMatrix& bw = p.report->matrices[1];
  EXPECT_EQ(bw.row_ids, (std::vector<int>{0, 2}));
  EXPECT_TRUE(std::isnan(bw.values[1][1]));
  EXPECT_NE(Warnings(p.diag).find("matrix has 2 rows for 3 columns"), std::string::npos);
}

TEST(P2pBandwidthLatencyTest, HeaderWithoutRowsOrTitle) {
  Parsed p = ParseText(Fmt::kP2p, "P2P=Disabled Latency Matrix (us)\n   GPU     0      1\n\n");
  EXPECT_FALSE(p.report.ok());
  EXPECT_EQ(p.report.error().message, "no bandwidth matrix found");
  EXPECT_EQ(p.counts.read, 1);
  EXPECT_EQ(p.counts.rejected, 1);
  EXPECT_NE(Reasons(p.diag).find("column header with no rows"), std::string::npos);

  Parsed q = ParseText(Fmt::kP2p, "   D\\D     0\n     0   1.00\n");
  ASSERT_TRUE(q.report.ok());
  EXPECT_NE(Warnings(q.diag).find("matrix header with no title"), std::string::npos);

  Parsed d = ParseText(Fmt::kP2p, "P2P Connectivity Matrix\n     D\\D     0     0\n     0  1 1\n");
  EXPECT_FALSE(d.report.ok());
  EXPECT_EQ(d.counts.read, 2);
  EXPECT_EQ(d.counts.rejected, 2);
  EXPECT_NE(Reasons(d.diag).find("column header: duplicate device id 0"), std::string::npos);
  EXPECT_NE(Reasons(d.diag).find("row under an unreadable column header"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// nvbandwidth fixtures.

TEST(Nvbandwidth, RealA6000V08Golden) {
  Parsed p = ParseFile(Fmt::kNv, kNvA6000);
  ASSERT_TRUE(p.report.ok()) << p.report.error().ToString();
  const P2pReport& r = *p.report;
  EXPECT_EQ(r.tool, P2pTool::kNvbandwidth);
  EXPECT_EQ(p.diag.items().size(), 0u) << Warnings(p.diag);
  EXPECT_EQ(r.version, "v0.8");
  EXPECT_EQ(r.git_version, "v0.8");
  EXPECT_EQ(r.cuda_runtime_version, "13000");
  EXPECT_EQ(r.driver_version, "580.95.05");
  EXPECT_TRUE(r.devices.empty());  // hidden behind the author's `...`
  EXPECT_EQ(p.counts.read, 6);
  EXPECT_EQ(p.counts.accepted, 6);
  ASSERT_EQ(r.matrices.size(), 1u);
  const P2pMatrix& m = r.matrices[0];
  // No `Running` line: the testcase comes from the SUM line.
  EXPECT_EQ(m.testcase, "device_to_device_memcpy_read_ce");
  EXPECT_EQ(m.title, "device_to_device_memcpy_read_ce");
  EXPECT_EQ(m.description, "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)");
  EXPECT_EQ(m.quantity, P2pQuantity::kBandwidthUnidirGbps);
  EXPECT_TRUE(m.gpu_to_gpu);
  EXPECT_DOUBLE_EQ(m.sum, 715.53);
  EXPECT_EQ(m.row_ids, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(m.col_ids, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_DOUBLE_EQ(m.values[0][1], 26.34);
  EXPECT_DOUBLE_EQ(m.values[3][0], 21.82);
  EXPECT_DOUBLE_EQ(m.values[5][4], 26.35);
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(std::isnan(m.values[i][i])) << i;
}

TEST(Nvbandwidth, RealH20V08HostnameAndBusIds) {
  Parsed p = ParseFile(Fmt::kNv, kNvH20);
  ASSERT_TRUE(p.report.ok()) << p.report.error().ToString();
  const P2pReport& r = *p.report;
  EXPECT_EQ(p.diag.items().size(), 0u) << Warnings(p.diag);
  EXPECT_EQ(r.version, "v0.8");
  EXPECT_EQ(r.hostname, "sglang-host-cuda");
  EXPECT_EQ(r.driver_version, "550.127.08");
  EXPECT_EQ(r.cuda_driver_version, "12060");
  ASSERT_EQ(r.devices.size(), 8u);
  EXPECT_EQ(r.devices[4].index, 4);
  EXPECT_EQ(r.devices[4].name, "NVIDIA H20-3e");
  EXPECT_EQ(r.devices[4].pci_bus_id, "00000000:9b:00");
  EXPECT_EQ(r.devices[0].pci_bus_id, "00000000:18:00");
  ASSERT_EQ(r.matrices.size(), 1u);
  const P2pMatrix& m = r.matrices[0];
  EXPECT_EQ(m.testcase, "device_local_copy");
  EXPECT_FALSE(m.gpu_to_gpu);  // `memcpy local GPU(column)`
  EXPECT_EQ(m.quantity, P2pQuantity::kBandwidthUnidirGbps);
  EXPECT_EQ(m.row_ids, (std::vector<int>{0}));
  ASSERT_EQ(m.col_ids.size(), 8u);
  EXPECT_DOUBLE_EQ(m.values[0][0], 1116.30);
  EXPECT_DOUBLE_EQ(m.values[0][6], 1117.17);
  EXPECT_DOUBLE_EQ(m.sum, 8930.99);
  EXPECT_EQ(p.counts.read, 1);
}

TEST(Nvbandwidth, RealRtx4090V02HostDeviceMatrices) {
  Parsed p = ParseFile(Fmt::kNv, kNvRtx4090);
  ASSERT_TRUE(p.report.ok()) << p.report.error().ToString();
  const P2pReport& r = *p.report;
  EXPECT_EQ(p.diag.items().size(), 0u) << Warnings(p.diag);
  EXPECT_EQ(r.version, "v0.2");
  EXPECT_EQ(r.git_version, "6cefdda");
  EXPECT_TRUE(r.hostname.empty());
  ASSERT_EQ(r.devices.size(), 8u);
  EXPECT_EQ(r.devices[7].name, "NVIDIA GeForce RTX 4090");
  EXPECT_TRUE(r.devices[7].pci_bus_id.empty());
  ASSERT_EQ(r.matrices.size(), 2u);
  const P2pMatrix& h2d = r.matrices[0];
  EXPECT_EQ(h2d.testcase, "host_to_device_memcpy_ce");
  EXPECT_FALSE(h2d.gpu_to_gpu);
  EXPECT_EQ(h2d.row_ids, (std::vector<int>{0}));
  EXPECT_EQ(h2d.col_ids.size(), 8u);
  EXPECT_DOUBLE_EQ(h2d.values[0][0], 25.50);
  EXPECT_DOUBLE_EQ(h2d.values[0][7], 26.31);
  EXPECT_DOUBLE_EQ(h2d.sum, 205.04);
  const P2pMatrix& d2h = r.matrices[1];
  EXPECT_EQ(d2h.testcase, "device_to_host_memcpy_ce");
  EXPECT_EQ(d2h.description, "memcpy CE CPU(row) <- GPU(column) bandwidth (GB/s)");
  EXPECT_FALSE(d2h.gpu_to_gpu);
  EXPECT_DOUBLE_EQ(d2h.values[0][4], 27.10);
  EXPECT_DOUBLE_EQ(d2h.sum, 214.28);
  EXPECT_EQ(p.counts.read, 2);
  EXPECT_EQ(p.counts.accepted, 2);
}

TEST(Nvbandwidth, RealReadmePreV02ZeroDiagonalIsNaN) {
  Parsed p = ParseFile(Fmt::kNv, kNvReadme);
  ASSERT_TRUE(p.report.ok()) << p.report.error().ToString();
  const P2pReport& r = *p.report;
  EXPECT_EQ(p.diag.items().size(), 0u) << Warnings(p.diag);
  EXPECT_TRUE(r.version.empty());
  ASSERT_EQ(r.matrices.size(), 1u);
  const P2pMatrix& m = r.matrices[0];
  EXPECT_EQ(m.testcase, "device_to_device_memcpy_write_ce");
  EXPECT_EQ(m.description, "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)");
  EXPECT_TRUE(m.gpu_to_gpu);
  EXPECT_TRUE(std::isnan(m.sum));
  ASSERT_EQ(m.row_ids.size(), 8u);
  ASSERT_EQ(m.col_ids.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(std::isnan(m.values[i][i])) << i;
  EXPECT_DOUBLE_EQ(m.values[6][0], 274.89);
  EXPECT_DOUBLE_EQ(m.values[0][1], 276.07);
  EXPECT_DOUBLE_EQ(m.values[7][6], 276.45);
  EXPECT_EQ(p.counts.read, 8);
}

TEST(Nvbandwidth, ZeroDiagonalKeptWhenSumOrVersionSaysModern) {
  const std::string body =
      "Running device_to_device_memcpy_read_ce.\n"
      "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n"
      "           0         1\n"
      " 0      0.00     10.00\n"
      " 1     10.00      0.00\n";
  Parsed with_sum = ParseText(Fmt::kNv, body + "\nSUM device_to_device_memcpy_read_ce 20.00\n");
  ASSERT_TRUE(with_sum.report.ok());
  EXPECT_EQ(with_sum.report->matrices[0].values[0][0], 0.0);
  Parsed modern = ParseText(Fmt::kNv, "nvbandwidth Version: v0.8\n" + body);
  ASSERT_TRUE(modern.report.ok());
  EXPECT_EQ(modern.report->matrices[0].values[1][1], 0.0);
  Parsed old = ParseText(Fmt::kNv, body);
  ASSERT_TRUE(old.report.ok());
  EXPECT_TRUE(std::isnan(old.report->matrices[0].values[1][1]));
  EXPECT_EQ(old.report->matrices[0].values[0][1], 10.0);
}

TEST(Nvbandwidth, WriterV08LayoutMatchesH20Fixture) {
  const std::string text = Slurp(kNvH20);
  Parsed p = ParseText(Fmt::kNv, text);
  ASSERT_TRUE(p.report.ok());
  const std::string written = WriteNvbandwidth(*p.report);
  // The fixture is cut before the closing NOTE; everything before it is reproduced byte for byte.
  ASSERT_GE(written.size(), text.size());
  EXPECT_EQ(written.substr(0, text.size()), text);
  EXPECT_NE(written.find("\nNOTE: The reported results may not reflect"), std::string::npos);
}

TEST(Nvbandwidth, WriterA6000Layout) {
  Parsed p = ParseFile(Fmt::kNv, kNvA6000);
  ASSERT_TRUE(p.report.ok());
  const std::string written = WriteNvbandwidth(*p.report);
  EXPECT_NE(written.find("Running device_to_device_memcpy_read_ce.\n"
                         "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n"
                         "           0         1         2         3         4         5\n"
                         " 0       N/A     26.34     26.35     21.95     22.64     21.80\n"),
            std::string::npos)
      << written;
  EXPECT_NE(written.find("\n\nSUM device_to_device_memcpy_read_ce 715.53\n"), std::string::npos);
}

TEST(Nvbandwidth, RoundTripsEveryFixture) {
  for (const std::string& path : {kNvA6000, kNvH20, kNvRtx4090, kNvReadme}) {
    SCOPED_TRACE(path);
    Parsed a = ParseFile(Fmt::kNv, path);
    ASSERT_TRUE(a.report.ok());
    for (const Fmt fmt : {Fmt::kNv, Fmt::kCsv, Fmt::kP2p}) {
      SCOPED_TRACE(static_cast<int>(fmt));
      const std::string written = Write(fmt, *a.report);
      Parsed b = ParseText(fmt, written);
      ASSERT_TRUE(b.report.ok()) << written;
      EXPECT_EQ(b.counts.rejected, 0) << Reasons(b.diag);
      ExpectSameMatrices(*a.report, *b.report, fmt == Fmt::kNv);
      if (fmt != Fmt::kNv) continue;
      EXPECT_EQ(b.report->devices.size(), a.report->devices.size());
      EXPECT_EQ(b.report->hostname, a.report->hostname);
      for (size_t i = 0; i < a.report->matrices.size(); ++i) {
        const P2pMatrix& x = a.report->matrices[i];
        const P2pMatrix& y = b.report->matrices[i];
        EXPECT_EQ(x.testcase, y.testcase);
        EXPECT_EQ(x.description, y.description);
        EXPECT_EQ(std::isnan(x.sum), std::isnan(y.sum));
        if (!std::isnan(x.sum)) {
          EXPECT_NEAR(x.sum, y.sum, 0.0051);
        }
      }
      // Writing what was read back gives the same text.
      EXPECT_EQ(WriteNvbandwidth(*b.report), written);
    }
  }
}

TEST(Nvbandwidth, LatencyInNanosecondsBecomesMicroseconds) {
  Parsed p = ParseText(Fmt::kNv,
                       "Running host_device_latency_sm.\n"
                       "memory latency SM CPU(row) <-> GPU(column) (ns)\n"
                       "           0         1\n"
                       " 0    613.22    700.00\n"
                       "\n"
                       "SUM host_device_latency_sm 1313.22\n");
  ASSERT_TRUE(p.report.ok());
  const P2pMatrix& m = p.report->matrices[0];
  EXPECT_EQ(m.quantity, P2pQuantity::kLatencyUs);
  EXPECT_FALSE(m.gpu_to_gpu);
  EXPECT_NEAR(m.values[0][0], 0.61322, 1e-12);
  EXPECT_NEAR(m.sum, 1.31322, 1e-12);
  EXPECT_EQ(p.diag.items().size(), 0u) << Warnings(p.diag);
}

TEST(Nvbandwidth, BidirectionalWaivedAndSumMismatch) {
  Parsed p = ParseText(Fmt::kNv,
                       "nvbandwidth Version: v0.8\n"
                       "Running device_to_device_bidirectional_memcpy_read_ce.\n"
                       "memcpy CE GPU(row) <-> GPU(column) bandwidth (GB/s)\n"
                       "           0         1\n"
                       " 0       N/A     10.00\n"
                       " 1     10.00       N/A\n"
                       "\n"
                       "SUM device_to_device_bidirectional_memcpy_read_ce 25.00\n"
                       "\n"
                       "Waiving device_to_device_memcpy_read_sm.\n"
                       "Waived: \n"
                       "Running host_to_device_memcpy_ce.\n"
                       "\n");
  ASSERT_TRUE(p.report.ok());
  ASSERT_EQ(p.report->matrices.size(), 1u);
  EXPECT_EQ(p.report->matrices[0].quantity, P2pQuantity::kBandwidthBidirGbps);
  EXPECT_DOUBLE_EQ(p.report->matrices[0].sum, 25.0);
  const std::string warnings = Warnings(p.diag);
  EXPECT_NE(warnings.find("SUM 25.00 differs from the sum of the cells 20.00"), std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("testcase `host_to_device_memcpy_ce` printed no matrix"), std::string::npos)
      << warnings;
  EXPECT_EQ(p.counts.rejected, 0);
}

// --- Real outputs whose testcase was waived or stopped before its matrix (testdata/real/nvbandwidth) ---

const std::string kRealNv = std::string(TOPOSCOPE_TESTDATA) + "/real/nvbandwidth/";

// NVIDIA/nvbandwidth issue #13: the only testcase asked for is waived (no peer access over PCIe).
// The two GPUs of the Device lines are kept; the waived testcase is named with its line. (Refused
// whole before: no matrix.)
TEST(NvbandwidthReal, Issue13WaivedTestKeepsTheGpus) {
  Parsed p = ParseFile(Fmt::kNv, kRealNv + "nvbandwidth_issue13_v0.2_2x_rtx2080ti_waived_d2d_write_ce.txt");
  ASSERT_TRUE(p.report.ok()) << p.report.error().ToString();
  EXPECT_EQ(p.report->version, "v0.2");
  ASSERT_EQ(p.report->devices.size(), 2u);
  EXPECT_EQ(p.report->devices[1].name, "NVIDIA GeForce RTX 2080 Ti");
  EXPECT_TRUE(p.report->matrices.empty());
  EXPECT_EQ(p.counts.read, 2);  // the two Device lines, accepted records
  EXPECT_EQ(p.counts.accepted, 2);
  bool named = false;
  for (const Diagnostic& d : p.diag.items()) {
    named = named || (d.line == 15 && d.reason.find("testcase `device_to_device_memcpy_write_ce` was waived") !=
                                          std::string::npos);
  }
  EXPECT_TRUE(named) << Warnings(p.diag);
  EXPECT_NE(Warnings(p.diag).find("the 2 GPU(s) of the Device lines are kept"), std::string::npos);
}

// NVIDIA/nvbandwidth issue #34: the testcase ASSERTs before its matrix; the 8 A100s with their bus ids stay.
TEST(NvbandwidthReal, Issue34AssertBeforeTheMatrixKeepsTheGpus) {
  Parsed p = ParseFile(Fmt::kNv, kRealNv + "nvbandwidth_issue34_v0.7_8x_a100_d2d_read_assert_no_matrix.txt");
  ASSERT_TRUE(p.report.ok()) << p.report.error().ToString();
  ASSERT_EQ(p.report->devices.size(), 8u);
  EXPECT_EQ(p.report->devices[7].pci_bus_id, "00000000:9e:00");
  EXPECT_TRUE(p.report->matrices.empty());
  bool named = false;
  for (const Diagnostic& d : p.diag.items()) {
    named = named || (d.line == 17 && d.reason.find("`device_to_device_memcpy_read_ce` printed no matrix") !=
                                          std::string::npos);
  }
  EXPECT_TRUE(named) << Warnings(p.diag);
}

// A waived D2D testcase next to a host<->device one: the matrix that ran is kept and the waived one
// is named with its line.
TEST(Nvbandwidth, WaivedTestcaseNextToOneThatRan) {
  Parsed p = ParseText(Fmt::kNv,
                       "Running host_to_device_memcpy_ce.\n"
                       "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
                       "           0         1         2\n"
                       " 0     25.50     24.26     23.90\n"
                       "\n"
                       "SUM host_to_device_memcpy_ce 73.66\n"
                       "\n"
                       "Waiving device_to_device_memcpy_write_ce.\n"
                       "\n");
  ASSERT_TRUE(p.report.ok());
  ASSERT_EQ(p.report->matrices.size(), 1u);
  EXPECT_EQ(p.report->matrices[0].col_ids, (std::vector<int>{0, 1, 2}));
  bool named = false;
  for (const Diagnostic& d : p.diag.items()) {
    named = named || (d.line == 8 && d.reason.find("testcase `device_to_device_memcpy_write_ce` was waived") !=
                                         std::string::npos);
  }
  EXPECT_TRUE(named) << Warnings(p.diag);
  // Nothing at all (no device, no matrix) still fails.
  Parsed none = ParseText(Fmt::kNv, "nvbandwidth Version: v0.8\nWaiving device_to_device_memcpy_write_ce.\n");
  EXPECT_FALSE(none.report.ok());
}

TEST(Nvbandwidth, BadRowsGetSpecificReasons) {
  const std::string text =
      "nvbandwidth Version: v0.8\n"
      "Running device_to_device_memcpy_read_ce.\n"
      "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n"
      "           0         1         2         3         4         5         6         7\n"
      " 0       N/A      1.00      1.00      1.00      1.00      1.00      1.00      1.00\n"
      " 1      1.00       N/A      1.00      1.00      1.00\n"
      " 2      1.00      1.00       N/A      1.00      1.00      1.00      nan      1.00\n"
      " 3      1.00      1.00      1.00       N/A      1.00      1.00      1.00     1e308\n"
      " 4      1.00      1.00      1.00      1.00       N/A      -5.0      1.00      1.00\n"
      " 0      1.00      1.00      1.00      1.00      1.00       N/A      1.00      1.00\n"
      " 5      1.00      1.00      1.00      1.00      1.00       N/A      1.00      1.00\n"
      "\n"
      "SUM device_to_device_memcpy_read_ce 14.00\n";
  Parsed p = ParseText(Fmt::kNv, text);
  ASSERT_TRUE(p.report.ok());
  EXPECT_EQ(p.counts.read, 7);
  EXPECT_EQ(p.counts.accepted, 2);
  EXPECT_EQ(p.counts.rejected, 5);
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("row 1 has 5 values, expected 8"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("row 2, column 6: 'nan' is not a number"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("row 3, column 7: implausible value '1e308' (over 100000 GB/s)"), std::string::npos)
      << reasons;
  EXPECT_NE(reasons.find("row 4, column 5: negative value '-5.0'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("duplicate row 0"), std::string::npos) << reasons;
  for (const Diagnostic& d : p.diag.items()) {
    if (d.severity == Severity::kRejected) {
      EXPECT_GT(d.line, 0);
    }
  }
  const P2pMatrix& m = p.report->matrices[0];
  EXPECT_EQ(m.row_ids, (std::vector<int>{0, 5}));
  EXPECT_DOUBLE_EQ(m.sum, 14.0);
  EXPECT_NE(Warnings(p.diag).find("matrix has 2 rows for 8 columns"), std::string::npos);
}

TEST(Nvbandwidth, TruncatedMidRow) {
  const std::string text = Slurp(kNvA6000);
  const size_t cut = text.find(" 3     21.82") + 20;  // inside row 3
  Parsed p = ParseText(Fmt::kNv, text.substr(0, cut));
  ASSERT_TRUE(p.report.ok());
  EXPECT_EQ(p.counts.read, 4);
  EXPECT_EQ(p.counts.accepted, 3);
  EXPECT_NE(Reasons(p.diag).find("row 3 has 2 values, expected 6"), std::string::npos) << Reasons(p.diag);
  const P2pMatrix& m = p.report->matrices[0];
  EXPECT_EQ(m.row_ids, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(m.testcase.empty());  // the SUM line was cut off
  EXPECT_EQ(m.title, "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)");
  EXPECT_TRUE(std::isnan(m.sum));
  EXPECT_TRUE(std::isnan(m.values[0][0]));  // N/A, not the pre-v0.2 rule (version v0.8)
}

TEST(Nvbandwidth, HeaderWithNoRowsAndOrphanRows) {
  Parsed p = ParseText(Fmt::kNv,
                       "Running device_to_device_memcpy_read_ce.\n"
                       "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n"
                       "           0         1\n"
                       "\n"
                       "SUM device_to_device_memcpy_read_ce 0.00\n"
                       " 0      1.00      2.00\n");
  EXPECT_FALSE(p.report.ok());
  EXPECT_EQ(p.report.error().message, "no bandwidth matrix found");
  EXPECT_EQ(p.counts.read, 2);
  EXPECT_EQ(p.counts.rejected, 2);
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("column header with no rows"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("matrix row without a column header"), std::string::npos) << reasons;
  EXPECT_NE(Warnings(p.diag).find("SUM line with no matrix before it"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Inputs every reader must refuse cleanly.

TEST(P2pMatrixReaders, EmptyAndBinary) {
  std::string garbage;
  for (int i = 0; i < 512; ++i) garbage += static_cast<char>((i * 37 + 11) % 256);
  for (const Fmt fmt : {Fmt::kP2p, Fmt::kNv, Fmt::kCsv}) {
    SCOPED_TRACE(static_cast<int>(fmt));
    Parsed e = ParseText(fmt, "");
    ASSERT_FALSE(e.report.ok());
    EXPECT_EQ(e.report.error().message, "no bandwidth matrix found");
    EXPECT_EQ(e.report.error().path, "test");
    EXPECT_EQ(e.counts.read, 0);

    Parsed b = ParseText(fmt, garbage);
    ASSERT_FALSE(b.report.ok());
    EXPECT_EQ(b.counts.read, 1);
    EXPECT_EQ(b.counts.rejected, 1);
    EXPECT_NE(Reasons(b.diag).find("input looks binary"), std::string::npos);

    Parsed w = ParseText(fmt, "hello\nworld\n\n# nothing here\n");
    EXPECT_FALSE(w.report.ok());
  }
}

TEST(P2pMatrixReaders, WrongReaderFindsNothing) {
  Parsed a = ParseFile(Fmt::kCsv, kNvA6000);
  EXPECT_FALSE(a.report.ok());
  Parsed b = ParseFile(Fmt::kP2p, kNvA6000);
  EXPECT_FALSE(b.report.ok());
}

// ---------------------------------------------------------------------------------------------
// CSV.

TEST(P2pCsv, LongFormThreeColumns) {
  Parsed p = ParseText(Fmt::kCsv,
                       "# measured by hand\n"
                       "src,dst,bandwidth_gbps\n"
                       "\n"
                       "0,1,26.34\n"
                       "1,0,26.30\n"
                       "0,0,N/A\n"
                       "2,0,21.8\n");
  ASSERT_TRUE(p.report.ok());
  EXPECT_EQ(p.report->tool, P2pTool::kCsv);
  EXPECT_EQ(p.counts.read, 4);
  EXPECT_EQ(p.counts.accepted, 4);
  ASSERT_EQ(p.report->matrices.size(), 1u);
  const P2pMatrix& m = p.report->matrices[0];
  EXPECT_EQ(m.quantity, P2pQuantity::kBandwidthUnidirGbps);
  EXPECT_EQ(m.row_ids, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(m.col_ids, (std::vector<int>{1, 0}));
  EXPECT_DOUBLE_EQ(m.values[0][0], 26.34);
  EXPECT_TRUE(std::isnan(m.values[0][1]));  // 0->0 N/A
  EXPECT_DOUBLE_EQ(m.values[1][1], 26.30);
  EXPECT_TRUE(std::isnan(m.values[2][0]));  // 2->1 missing
  EXPECT_DOUBLE_EQ(m.values[2][1], 21.8);
}

TEST(P2pCsv, LongFormKinds) {
  Parsed p = ParseText(Fmt::kCsv,
                       "src,dst,bandwidth_gbps,kind\r\n"
                       "0,1,26.34,unidir\r\n"
                       "0,1,50.10,bidir\r\n"
                       "1,0,26.30,unidir\r\n"
                       "0,1,14.76,latency_us\r\n"
                       "0,1,1.0,sideways\r\n"
                       "0,1,27,unidir\r\n"
                       "0,1\r\n"
                       "0,1,3e7,latency_us\r\n");
  ASSERT_TRUE(p.report.ok());
  EXPECT_EQ(p.counts.read, 8);
  EXPECT_EQ(p.counts.accepted, 4);
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("unknown kind 'sideways'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("duplicate entry 0->1"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("line has 2 fields, expected 4"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("0->1: implausible value '3e7' (over 10000000 us)"), std::string::npos) << reasons;
  ASSERT_EQ(p.report->matrices.size(), 3u);
  EXPECT_EQ(p.report->matrices[0].quantity, P2pQuantity::kBandwidthUnidirGbps);
  EXPECT_EQ(p.report->matrices[0].row_ids, (std::vector<int>{0, 1}));
  EXPECT_EQ(p.report->matrices[1].quantity, P2pQuantity::kBandwidthBidirGbps);
  EXPECT_EQ(p.report->matrices[2].quantity, P2pQuantity::kLatencyUs);
  EXPECT_DOUBLE_EQ(p.report->matrices[2].values[0][0], 14.76);
}

TEST(P2pCsv, WideForm) {
  for (const std::string corner : {"", "src\\dst"}) {
    Parsed p = ParseText(Fmt::kCsv, corner +
                                        ",0,1,2\n"
                                        "0,N/A,26.34,21.95\n"
                                        "1,26.34,,21.86\n"
                                        "2,26.34,26.35,N/A\n"
                                        "3,1,2\n"
                                        "1,1,1,1\n"
                                        "4,1,-5.0,1\n");
    ASSERT_TRUE(p.report.ok());
    EXPECT_EQ(p.counts.read, 6);
    EXPECT_EQ(p.counts.accepted, 3);
    const std::string reasons = Reasons(p.diag);
    EXPECT_NE(reasons.find("row 3 has 2 values, expected 3"), std::string::npos) << reasons;
    EXPECT_NE(reasons.find("duplicate row 1"), std::string::npos) << reasons;
    EXPECT_NE(reasons.find("row 4, column 1: negative value '-5.0'"), std::string::npos) << reasons;
    const P2pMatrix& m = p.report->matrices[0];
    EXPECT_EQ(m.col_ids, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(m.row_ids, (std::vector<int>{0, 1, 2}));
    EXPECT_TRUE(std::isnan(m.values[0][0]));
    EXPECT_TRUE(std::isnan(m.values[1][1]));
    EXPECT_DOUBLE_EQ(m.values[1][2], 21.86);
  }
}

TEST(P2pCsv, BadHeaders) {
  for (const std::string text :
       {"a,b,c\n0,1,2\n", ",0,0\n0,1,1\n", ",x\n0,1\n", "src,dst,bandwidth_gbps,flavour\n0,1,2,unidir\n"}) {
    SCOPED_TRACE(text);
    Parsed p = ParseText(Fmt::kCsv, text);
    ASSERT_FALSE(p.report.ok());
    EXPECT_EQ(p.report.error().message, "no bandwidth matrix found");
    EXPECT_EQ(p.counts.read, 1);
    EXPECT_EQ(p.counts.rejected, 1);
  }
  Parsed all_bad = ParseText(Fmt::kCsv, "src,dst,bandwidth_gbps\n0,1,nan\n");
  EXPECT_FALSE(all_bad.report.ok());
  EXPECT_EQ(all_bad.counts.rejected, 1);
  EXPECT_NE(Reasons(all_bad.diag).find("'nan' is not a number"), std::string::npos);
}

TEST(P2pCsv, WriterLongFormAndRoundTrip) {
  Parsed a = ParseFile(Fmt::kNv, kNvA6000);
  ASSERT_TRUE(a.report.ok());
  const std::string csv = WriteP2pCsv(*a.report);
  EXPECT_NE(csv.find("\nsrc,dst,bandwidth_gbps,kind,matrix\n"
                     "0,0,N/A,unidir,device_to_device_memcpy_read_ce\n"
                     "0,1,26.34,unidir,device_to_device_memcpy_read_ce\n"),
            std::string::npos)
      << csv;
  Parsed b = ParseText(Fmt::kCsv, csv);
  ASSERT_TRUE(b.report.ok());
  EXPECT_EQ(b.counts.read, 36);
  EXPECT_EQ(b.counts.rejected, 0);
  ExpectSameMatrices(*a.report, *b.report, true);
  EXPECT_EQ(b.report->matrices[0].title, "device_to_device_memcpy_read_ce");
  EXPECT_EQ(WriteP2pCsv(*b.report), csv);

  // The p2p test has two latency tables per title (GPU and CPU): labels keep them apart.
  Parsed p = ParseFile(Fmt::kP2p, kP2p);
  ASSERT_TRUE(p.report.ok());
  const std::string p_csv = WriteP2pCsv(*p.report);
  EXPECT_NE(p_csv.find(",latency_us,P2P=Disabled Latency Matrix (us) (CPU)\n"), std::string::npos);
  Parsed q = ParseText(Fmt::kCsv, p_csv);
  ASSERT_TRUE(q.report.ok());
  EXPECT_EQ(q.report->matrices.size(), 9u);
}

// ---------------------------------------------------------------------------------------------
// Writers on reports that did not come from a file.

P2pMatrix Square(int n, double base, P2pQuantity q) {
  P2pMatrix m;
  m.quantity = q;
  for (int i = 0; i < n; ++i) {
    m.row_ids.push_back(i);
    m.col_ids.push_back(i);
    std::vector<double> row;
    for (int j = 0; j < n; ++j) row.push_back(i == j ? NAN : base + i * 0.25 + j * 0.01);
    m.values.push_back(row);
  }
  return m;
}

TEST(P2pMatrixWriters, ManyDevicesHugeValuesAndOddText) {
  P2pReport r;
  r.version = "v0.1";  // the v0.8 layout is written whatever the report says
  r.hostname = "not a hostname";
  r.devices.push_back({0, std::string("GPU\x17\x17\x17\x17\x17\x17\x17\x17\x17"), "00000000:18:00"});
  r.devices.push_back({1, "", "b5"});
  P2pMatrix big = Square(120, 100.0, P2pQuantity::kBandwidthUnidirGbps);  // 3-digit row labels
  big.values[5][7] = 0.0;
  big.sum = 12345.678;
  r.matrices.push_back(big);
  P2pMatrix lat = Square(3, 9.5e6, P2pQuantity::kLatencyUs);  // wider than the 10-char column
  lat.title = "Matrix 5.0 1.0";                               // would read as a row right after another table
  lat.testcase = "bad\ttestcase";
  r.matrices.push_back(lat);
  P2pMatrix conn = Square(2, 1.0, P2pQuantity::kConnectivity);
  conn.values = {{1, 0}, {NAN, 1}};
  conn.p2p_enabled = false;
  conn.gpu_to_gpu = false;
  r.matrices.push_back(conn);

  for (const Fmt fmt : {Fmt::kNv, Fmt::kP2p, Fmt::kCsv}) {
    SCOPED_TRACE(static_cast<int>(fmt));
    const std::string written = Write(fmt, r);
    for (const char c : written) {
      EXPECT_TRUE(c == '\n' || c == '\t' || static_cast<unsigned char>(c) >= 0x20);
    }
    Parsed b = ParseText(fmt, written);
    ASSERT_TRUE(b.report.ok());
    EXPECT_EQ(b.counts.rejected, 0) << Reasons(b.diag);
    ExpectSameMatrices(r, *b.report, fmt == Fmt::kP2p);
    EXPECT_EQ(Write(fmt, *b.report), written);
    if (fmt == Fmt::kNv) {
      EXPECT_EQ(b.report->version, "v0.8");
      EXPECT_TRUE(b.report->hostname.empty());
      ASSERT_EQ(b.report->devices.size(), 2u);
      EXPECT_EQ(b.report->devices[0].name, "GPU?????????");
      EXPECT_EQ(b.report->devices[0].pci_bus_id, "00000000:18:00");
      EXPECT_EQ(b.report->devices[1].pci_bus_id, "b5");
      EXPECT_NEAR(b.report->matrices[0].sum, 12345.68, 1e-9);
      EXPECT_EQ(b.report->matrices[1].testcase, "device_to_device_latency");
      EXPECT_NE(written.find("\n119    129.75    129.76"), std::string::npos);
      EXPECT_NE(written.find("       N/A 9500000.01 9500000.02\n"), std::string::npos) << written;
    }
    if (fmt == Fmt::kP2p) {
      ASSERT_EQ(b.report->devices.size(), 2u);
      EXPECT_EQ(b.report->devices[0].pci_bus_id, "00000000:18:00");  // kept whole
      EXPECT_EQ(b.report->matrices[1].title, "P2P=Enabled Latency (P2P Writes) Matrix (us)");
      EXPECT_EQ(b.report->matrices[2].title, "P2P=Disabled Connectivity Matrix");
    }
  }
}

}  // namespace p2p_matrix_test
}  // namespace toposcope::formats
