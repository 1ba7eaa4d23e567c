// Tests of the host inventory CSV reader and writer: the synthetic testdata, IPv4/IPv6
// normalisation, IP conflicts, the round trip, streaming, and malformed inputs.
#include "toposcope/formats/rdma/inventory_csv.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "toposcope/formats/clock/sync_point.h"

namespace toposcope::formats {
namespace inventory_csv_test {

const std::string kTd = std::string(TOPOSCOPE_TESTDATA) + "/inventory/";
const std::string kHosts = kTd + "hosts_SYNTHETIC.csv";
const std::string kConflicts = kTd + "conflicts_SYNTHETIC.csv";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Reasons(const Diagnostics& diag, Severity sev = Severity::kRejected) {
  std::string out;
  for (const Diagnostic& d : diag.items()) {
    if (d.severity == sev) out += d.reason + "\n";
  }
  return out;
}

void ExpectCounts(const ReadCounts& c, int64_t read, int64_t accepted) {
  EXPECT_EQ(c.read, read);
  EXPECT_EQ(c.accepted, accepted);
  EXPECT_EQ(c.rejected, read - accepted);
  EXPECT_TRUE(c.Balanced());
}

std::vector<InventoryRow> NoLines(std::vector<InventoryRow> rows) {
  for (InventoryRow& r : rows) r.line = 0;
  return rows;
}

TEST(InventoryCsv, HostsAllColumns) {
  Diagnostics diag;
  const std::string text = Slurp(kHosts);
  EXPECT_TRUE(LooksLikeInventoryCsv(text));
  auto inv = ParseInventoryCsv(text, kHosts, diag);
  ASSERT_TRUE(inv.ok()) << inv.error().ToString();
  ExpectCounts(inv->counts, 5, 5);
  ASSERT_EQ(inv->rows.size(), 5u);
  const InventoryRow& a = inv->rows[0];
  EXPECT_EQ(a.host, "node-a01");
  EXPECT_EQ(a.ip, "10.0.1.2");
  EXPECT_TRUE(a.addr.is_v4());
  EXPECT_EQ(a.nic, "mlx5_2");
  EXPECT_EQ(a.port, 1);
  EXPECT_EQ(a.gid, "0000:0000:0000:0000:0000:ffff:0a00:0102");
  EXPECT_EQ(a.rack, "rack1");
  EXPECT_EQ(a.leaf, "leaf-1");
  EXPECT_EQ(a.line, 3);
  EXPECT_EQ(inv->rows[1].host, "node-a01");  // a host with two IPs
  EXPECT_EQ(inv->rows[1].ip, "10.0.1.3");
  EXPECT_EQ(inv->rows[2].gid, "");
  EXPECT_EQ(inv->rows[3].line, 7);  // after a blank line
  const InventoryRow& v6 = inv->rows[4];
  EXPECT_EQ(v6.host, "node b02, spare");
  EXPECT_EQ(v6.ip, "fd02:0:0:58::1");
  EXPECT_TRUE(v6.addr.is_v6());
  EXPECT_EQ(v6.port, -1);
  EXPECT_EQ(v6.leaf, "");
  EXPECT_EQ(diag.items().size(), 0u);
}

TEST(InventoryCsv, ConflictsAndNormalisation) {
  Diagnostics diag;
  auto inv = ParseInventoryCsv(Slurp(kConflicts), kConflicts, diag);
  ASSERT_TRUE(inv.ok()) << inv.error().ToString();
  ExpectCounts(inv->counts, 10, 3);
  ASSERT_EQ(inv->rows.size(), 3u);
  EXPECT_EQ(inv->rows[0].line, 2);
  EXPECT_EQ(inv->rows[1].host, "node-a04");
  EXPECT_EQ(inv->rows[1].ip, "fd02:0:0:58::1");
  EXPECT_EQ(inv->rows[2].host, "node-a06");
  EXPECT_EQ(inv->rows[2].ip, "10.0.1.7");  // ::ffff:10.0.1.7 is IPv4 10.0.1.7
  const std::string r = Reasons(diag);
  EXPECT_NE(r.find("IP 10.0.1.2 already belongs to host 'node-a01' (line 2)"), std::string::npos) << r;
  EXPECT_NE(r.find("duplicate row for host 'node-a01' ip 10.0.1.2 (first at line 2)"), std::string::npos);
  EXPECT_NE(r.find("ip '10.0.1.300' is not an IPv4 or IPv6 address"), std::string::npos);
  EXPECT_NE(r.find("expected 3 cells, got 2"), std::string::npos);
  EXPECT_NE(r.find("empty host"), std::string::npos);
  EXPECT_NE(r.find("IP fd02:0:0:58::1 already belongs to host 'node-a04'"), std::string::npos);
  EXPECT_NE(r.find("IP 10.0.1.7 already belongs to host 'node-a06'"), std::string::npos);
  // Each reject names its line.
  std::vector<int64_t> lines;
  for (const Diagnostic& d : diag.items()) lines.push_back(d.line);
  EXPECT_EQ(lines, (std::vector<int64_t>{3, 4, 5, 6, 7, 9, 11}));
}

TEST(InventoryCsv, RoundTrip) {
  Diagnostics diag;
  auto inv = ParseInventoryCsv(Slurp(kHosts), kHosts, diag);
  ASSERT_TRUE(inv.ok());
  InventoryRow odd;
  odd.host = "#hash \"quoted\" ";
  odd.ip = "::1";
  odd.addr = *IpAddress::Parse("::1");
  odd.nic = " lead";
  odd.port = 0;
  odd.rack = "r,1";
  inv->rows.push_back(odd);
  const std::string w = WriteInventoryCsv(*inv);
  EXPECT_EQ(w.substr(0, w.find('\n')), "host,ip,nic,port,gid,rack,leaf");
  Diagnostics d2;
  auto back = ParseInventoryCsv(w, "w", d2);
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  ExpectCounts(back->counts, 6, 6);
  EXPECT_EQ(NoLines(back->rows), NoLines(inv->rows));
  EXPECT_EQ(WriteInventoryCsv(*back), w);
}

// Without any rack or leaf, the writer leaves those columns out (placement is for the analyzer to
// find); the text still reads back.
TEST(InventoryCsv, NoPlacementColumnsWhenNoRowHasThem) {
  Inventory inv;
  InventoryRow r;
  r.host = "dgx-a01-01";
  r.ip = "10.0.0.1";
  r.nic = "mlx5_0";
  r.port = 1;
  inv.rows.push_back(r);
  const std::string w = WriteInventoryCsv(inv);
  EXPECT_EQ(w, "host,ip,nic,port,gid\ndgx-a01-01,10.0.0.1,mlx5_0,1,\n");
  Diagnostics diag;
  auto back = ParseInventoryCsv(w, "w", diag);
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  ASSERT_EQ(back->rows.size(), 1u);
  EXPECT_EQ(back->rows[0].host, "dgx-a01-01");
  EXPECT_TRUE(back->rows[0].leaf.empty());
}

TEST(InventoryCsv, StreamingAndHeaderVariants) {
  const std::string text = "\xEF\xBB\xBF# c\nIP , HOST,extra\n10.0.0.1,a,x\n\"10.0.0.2\",\"b\",\n";
  LineReader lines = TextLineReader(text, "s");
  Diagnostics diag;
  ReadCounts counts;
  std::vector<std::string> hosts;
  Status st = ReadInventoryCsv(lines, "s", [&](InventoryRow&& r) { hosts.push_back(r.host); }, diag, counts);
  ASSERT_TRUE(st.ok()) << st.error().ToString();
  ExpectCounts(counts, 2, 2);
  EXPECT_EQ(hosts, (std::vector<std::string>{"a", "b"}));
  EXPECT_NE(Reasons(diag, Severity::kWarning).find("unknown columns ignored: 'extra'"), std::string::npos);
  // Header only: an empty inventory.
  Diagnostics d2;
  auto empty = ParseInventoryCsv("host,ip\n", "h", d2);
  ASSERT_TRUE(empty.ok());
  ExpectCounts(empty->counts, 0, 0);
}

TEST(InventoryCsv, BadInputs) {
  Diagnostics diag;
  EXPECT_FALSE(ParseInventoryCsv("", "empty", diag).ok());
  EXPECT_FALSE(ParseInventoryCsv("\n# only a comment\n", "comment", diag).ok());
  EXPECT_FALSE(ParseInventoryCsv(std::string("\x00\x01\x02\x03\x04\x05host,ip\n", 14), "bin", diag).ok());
  EXPECT_FALSE(ParseInventoryCsv("host,addr\nx,10.0.0.1\n", "noip", diag).ok());
  EXPECT_FALSE(ParseInventoryCsv("host,ip,ip\n", "twice", diag).ok());
  EXPECT_FALSE(ParseInventoryCsv("\"host,ip\n", "badquote", diag).ok());
  EXPECT_FALSE(ParseInventoryCsv("CA 'mlx5_0'\n\tCA type: MT4129\n", "ibstat", diag).ok());
  EXPECT_FALSE(LooksLikeInventoryCsv("CA 'mlx5_0'\n"));
  EXPECT_FALSE(LooksLikeInventoryCsv(""));
  EXPECT_FALSE(LooksLikeInventoryCsv("host,local_ns,ref_ns\n"));
  EXPECT_TRUE(LooksLikeInventoryCsv("# x\nrack,HOST,ip\n"));
  EXPECT_EQ(diag.rejected_total(), 0);

  const std::string text =
      "host,ip,port,gid\n"
      "a,10.0.0.1,70000,\n"                  // 2 port too large
      "a,10.0.0.2,-1,\n"                     // 3 negative port
      "a,10.0.0.3,99999999999999999999,\n"   // 4 huge
      "a,10.0.0.4,1.5,\n"                    // 5 not an integer
      "a,10.0.0.5,,nan\n"                    // 6 bad GID
      "a,10.0.0.6,,10.0.0.6\n"               // 7 IPv4 is not a GID
      "a,10.0.0.7%eth0,,\n"                  // 8 zone
      "a,\"10.0.0.8,,\n"                     // 9 unterminated quote
      "a,\"10.0.0.9\"x,,\n"                  // 10 text after a quote
      "a,10.0.0.10,1,fe80::1\n"              // 11 ok
      "b,10.0.0.10,1,\n"                     // 12 conflict
      "a,10.0.0.10,2,\n"                     // 13 duplicate (host, ip)
      "a,10.0.0.11,2\n";                     // 14 truncated row
  Diagnostics d;
  auto inv = ParseInventoryCsv(text, "bad", d);
  ASSERT_TRUE(inv.ok());
  ExpectCounts(inv->counts, 13, 1);
  EXPECT_EQ(inv->rows[0].ip, "10.0.0.10");
  const std::string r = Reasons(d);
  EXPECT_NE(r.find("port '70000' is not 0..65535"), std::string::npos);
  EXPECT_NE(r.find("port '-1'"), std::string::npos);
  EXPECT_NE(r.find("port '1.5'"), std::string::npos);
  EXPECT_NE(r.find("gid 'nan' is not a GID"), std::string::npos);
  EXPECT_NE(r.find("gid '10.0.0.6' is not a GID"), std::string::npos);
  EXPECT_NE(r.find("unterminated quote"), std::string::npos);
  EXPECT_NE(r.find("already belongs to host 'a' (line 11)"), std::string::npos);
  EXPECT_NE(r.find("duplicate row"), std::string::npos);
  EXPECT_NE(r.find("expected 4 cells, got 3"), std::string::npos);
}

}  // namespace inventory_csv_test
}  // namespace toposcope::formats
