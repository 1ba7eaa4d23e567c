// Tests of the path-probe reader and writers: golden reads of testdata/path_probe (real ibtracert
// output from ibsim, traceroute text, our CSV and JSONL), round trips, and malformed inputs.
#include "toposcope/formats/fabric/path_probe.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "toposcope/base/file_io.h"
#include "toposcope/base/time.h"

namespace toposcope::formats {
namespace path_probe_test {

struct Parsed {
  Diagnostics diag;
  std::vector<PathProbe> probes;
  Result<PathProbeSummary> sum = MakeError("not parsed");
};

void Check(const Parsed& p, const std::string& source) {
  if (!p.sum.ok()) return;
  EXPECT_TRUE(p.sum->counts.Balanced());
  EXPECT_EQ(p.diag.RejectedFor(source), p.sum->counts.rejected);
  EXPECT_EQ(static_cast<int64_t>(p.probes.size()), p.sum->probes);
}

Parsed Parse(const std::string& text, const std::string& source = "test", std::string_view default_src = {}) {
  Parsed p;
  p.sum = ParsePathProbes(text, source, p.diag, [&](const PathProbe& x) { p.probes.push_back(x); }, default_src);
  Check(p, source);
  return p;
}

Parsed ParseFile(const std::string& name, std::string_view default_src = {}) {
  Parsed p;
  const std::string path = std::string(TOPOSCOPE_TESTDATA) + "/path_probe/" + name;
  auto in = OpenInput(path);
  EXPECT_TRUE(in.ok()) << path;
  if (!in.ok()) return p;
  LineReader reader(std::move(*in));
  p.sum = ReadPathProbes(reader, path, p.diag, [&](const PathProbe& x) { p.probes.push_back(x); }, default_src);
  Check(p, path);
  return p;
}

std::string Reasons(const Diagnostics& diag) {
  std::string out;
  for (const auto& d : diag.items()) out += d.ToString() + "\n";
  return out;
}

using Hops = std::vector<std::string>;

TEST(PathProbe, GoldenIbtracertFromIbsim) {
  Parsed p = ParseFile("ibtracert_ibsim_2sw2path4hca.txt");
  ASSERT_TRUE(p.sum.ok()) << p.sum.error().ToString();
  EXPECT_EQ(p.sum->layout, PathProbeLayout::kIbtracert);
  EXPECT_EQ(p.sum->counts.read, 21);
  EXPECT_EQ(p.sum->counts.accepted, 21) << Reasons(p.diag);
  ASSERT_EQ(p.probes.size(), 5u);
  EXPECT_EQ(p.probes[0].src, "Hca1");
  EXPECT_EQ(p.probes[0].dst, "Hca3");
  EXPECT_EQ(p.probes[0].hops, (Hops{"Switch1", "Hca3"}));
  EXPECT_EQ(p.probes[1].hops, (Hops{"Switch1", "Switch2", "Hca2"}));
  EXPECT_EQ(p.probes[2].src, "Hca2");
  EXPECT_EQ(p.probes[2].hops, (Hops{"Switch2", "Switch1", "Hca3"}));
  EXPECT_EQ(p.probes[3].src, "Switch1");
  EXPECT_EQ(p.probes[3].hops, (Hops{"Hca3"}));
  EXPECT_EQ(p.probes[4].dst, "Switch2");
  EXPECT_EQ(p.probes[4].hops, (Hops{"Switch1", "Switch2"}));
  EXPECT_EQ(p.probes[4].line, 18);
  for (const auto& x : p.probes) {
    EXPECT_EQ(x.ts_ns, kNoTime);
    EXPECT_TRUE(std::isnan(x.rtt_us));
  }
}

TEST(PathProbe, GoldenIbtracertNoInfo) {
  Parsed p = ParseFile("ibtracert_ibsim_no_info.txt");
  ASSERT_TRUE(p.sum.ok()) << p.sum.error().ToString();
  EXPECT_EQ(p.sum->counts.read, 5);
  ASSERT_EQ(p.probes.size(), 1u);
  EXPECT_EQ(p.probes[0].src, "0x0000000000100000");
  EXPECT_EQ(p.probes[0].dst, "0x0000000000100003");
  // The last hop is the destination's port GUID; it is named as the destination node.
  EXPECT_EQ(p.probes[0].hops, (Hops{"0x0000000000200000", "0x0000000000200001", "0x0000000000100003"}));
}

TEST(PathProbe, GoldenTraceroute) {
  Parsed p = ParseFile("traceroute_linux.txt", "login01");
  ASSERT_TRUE(p.sum.ok()) << p.sum.error().ToString();
  EXPECT_EQ(p.sum->layout, PathProbeLayout::kTraceroute);
  EXPECT_EQ(p.sum->counts.read, 16);
  EXPECT_EQ(p.sum->counts.accepted, 16) << Reasons(p.diag);
  EXPECT_EQ(p.sum->unknown_hops, 5);
  ASSERT_EQ(p.probes.size(), 3u);
  const PathProbe& a = p.probes[0];
  EXPECT_EQ(a.src, "login01");
  EXPECT_EQ(a.dst, "node07.cluster");
  EXPECT_EQ(a.hops, (Hops{"leaf01.cluster", "spine02.cluster", "leaf03.cluster", "node07.cluster"}));
  EXPECT_DOUBLE_EQ(a.rtt_us, 509.0);
  ASSERT_EQ(a.hop_rtt_us.size(), 4u);
  EXPECT_DOUBLE_EQ(a.hop_rtt_us[0], 127.0);
  EXPECT_DOUBLE_EQ(a.hop_rtt_us[1], 288.0);  // min over both responders
  const PathProbe& b = p.probes[1];
  EXPECT_EQ(b.dst, "10.1.4.9");
  EXPECT_EQ(b.hops, (Hops{"10.1.0.1", "*", "10.1.4.1", "10.1.4.9"}));
  EXPECT_TRUE(std::isnan(b.hop_rtt_us[1]));
  EXPECT_DOUBLE_EQ(b.hop_rtt_us[2], 428.0);
  EXPECT_DOUBLE_EQ(b.rtt_us, 549.0);
  const PathProbe& c = p.probes[2];
  EXPECT_EQ(c.hops, (Hops{"leaf01.cluster", "*", "*", "*", "*"}));
  EXPECT_TRUE(std::isnan(c.rtt_us));  // never reached
}

TEST(PathProbe, GoldenCsvAndJsonl) {
  Parsed p = ParseFile("probes.csv");
  ASSERT_TRUE(p.sum.ok()) << p.sum.error().ToString();
  EXPECT_EQ(p.sum->layout, PathProbeLayout::kCsv);
  EXPECT_EQ(p.sum->counts.read, 4);
  EXPECT_EQ(p.sum->counts.accepted, 4) << Reasons(p.diag);
  ASSERT_EQ(p.probes.size(), 4u);
  EXPECT_EQ(p.probes[0].ts_ns, 1700000000000000000);
  EXPECT_EQ(p.probes[0].hops, (Hops{"leaf01", "spine02", "leaf03"}));
  EXPECT_DOUBLE_EQ(p.probes[0].rtt_us, 4.25);
  EXPECT_EQ(p.probes[1].hops.size(), 5u);  // endpoints kept as given
  EXPECT_EQ(p.probes[2].ts_ns, 1700000000200000000);
  EXPECT_EQ(p.probes[3].ts_ns, kNoTime);
  EXPECT_EQ(p.probes[3].hops, (Hops{"leaf01", "*", "leaf02"}));
  EXPECT_TRUE(std::isnan(p.probes[3].rtt_us));
  EXPECT_EQ(p.sum->unknown_hops, 1);

  Parsed j = ParseFile("probes.jsonl");
  ASSERT_TRUE(j.sum.ok()) << j.sum.error().ToString();
  EXPECT_EQ(j.sum->layout, PathProbeLayout::kJsonl);
  ASSERT_EQ(j.probes.size(), 3u);
  EXPECT_EQ(j.probes[0], p.probes[0]);
  EXPECT_EQ(j.probes[1].ts_ns, 1700000000200000000);
  EXPECT_TRUE(j.probes[2].hops.empty());
  EXPECT_TRUE(std::isnan(j.probes[2].rtt_us));
  EXPECT_EQ(j.probes[2].ts_ns, kNoTime);
}

TEST(PathProbe, BadRowsRejectedWithLineAndReason) {
  Parsed p = ParseFile("bad.csv");
  ASSERT_TRUE(p.sum.ok()) << p.sum.error().ToString();
  EXPECT_EQ(p.sum->counts.read, 10);
  EXPECT_EQ(p.sum->counts.accepted, 2);
  EXPECT_EQ(p.sum->counts.rejected, 8) << Reasons(p.diag);
  const std::string r = Reasons(p.diag);
  for (const char* needle : {":3: rejected: empty dst", ":4: rejected: empty hop name", ":5: rejected: rtt_us '-1'",
                             ":6: rejected: rtt_us 'NaN'", ":7: rejected: rtt_us '1e400'", ":8: rejected: row has 4 cells",
                             ":9: rejected: ts 'soon'", ":10: rejected: broken quote"}) {
    EXPECT_NE(r.find(needle), std::string::npos) << needle << "\n" << r;
  }
}

TEST(PathProbe, RoundTrip) {
  std::vector<PathProbe> in;
  for (int i = 0; i < 12; ++i) {
    PathProbe p;
    p.ts_ns = i % 4 == 0 ? kNoTime : 1700000000000000000 + i * 1000;
    p.src = i % 3 == 0 ? "" : "h" + std::to_string(i);
    p.dst = "d" + std::to_string(i);
    for (int k = 0; k < i % 5; ++k) p.hops.push_back(k == 2 ? "*" : "sw" + std::to_string(k));
    p.rtt_us = i % 5 == 0 ? NAN : 1.25 * i;
    in.push_back(p);
  }
  std::string csv = PathProbeCsvHeader(), jsonl;
  for (const auto& p : in) {
    csv += FormatPathProbeCsvLine(p);
    jsonl += FormatPathProbeJsonLine(p);
  }
  for (const std::string* text : {&csv, &jsonl}) {
    Parsed p = Parse(*text);
    ASSERT_TRUE(p.sum.ok()) << p.sum.error().ToString();
    EXPECT_EQ(p.sum->counts.rejected, 0) << Reasons(p.diag);
    EXPECT_EQ(p.probes, in) << *text;
  }
}

TEST(PathProbe, MalformedTextOutputs) {
  // Hop numbers out of order, a hop before any header, garbage inside a traceroute.
  Parsed t = Parse(
      "traceroute to x (1.1.1.1), 30 hops max, 60 byte packets\n"
      " 1  a (10.0.0.1)  0.1 ms\n"
      " 3  b (10.0.0.2)  0.2 ms\n"
      " 2  c (10.0.0.3)  abc ms\n"
      " 2  c (10.0.0.3)  0.3 ms\n"
      "something else\n");
  ASSERT_TRUE(t.sum.ok());
  EXPECT_EQ(t.sum->counts.read, 6);
  EXPECT_EQ(t.sum->counts.rejected, 3) << Reasons(t.diag);
  ASSERT_EQ(t.probes.size(), 1u);
  EXPECT_EQ(t.probes[0].hops, (Hops{"a", "c"}));
  const std::string r = Reasons(t.diag);
  EXPECT_NE(r.find(":3: rejected: hop number 3 out of order (expected 2)"), std::string::npos) << r;
  EXPECT_NE(r.find(":4: rejected: time 'abc'"), std::string::npos) << r;
  // ibtracert: a truncated trace (no To) is dropped with a warning; stray lines rejected.
  Parsed ib = Parse(
      "From ca {0x1} portnum 1 lid 2-2 \"A\"\n"
      "[1] -> switch port {0x2}[1] lid 1-1 \"S\"\n"
      "[1] -> nothing\n"
      "To ca {0x3} portnum 1 lid 5-5 \"B\"\n"
      "To ca {0x3} portnum 1 lid 5-5 \"B\"\n"
      "From ca {0x1} portnum 1 lid 2-2 \"A\"\n"
      "[1] -> switch port {0x2}[1] lid 1-1 \"S\"\n");
  ASSERT_TRUE(ib.sum.ok());
  EXPECT_EQ(ib.sum->counts.read, 7);
  EXPECT_EQ(ib.sum->counts.rejected, 2) << Reasons(ib.diag);
  ASSERT_EQ(ib.probes.size(), 1u);
  EXPECT_EQ(ib.probes[0].hops, (Hops{"S"}));
  EXPECT_EQ(ib.probes[0].dst, "B");
  EXPECT_EQ(ib.diag.warnings_total(), 1);
}

TEST(PathProbe, MalformedUtf8NamesRejected) {
  Parsed p = Parse(std::string("src,dst,hops\na,b\xff,s1\na,b,s\xc0\xaf\na,b,s\xc3\xa9\n"));
  ASSERT_TRUE(p.sum.ok());
  EXPECT_EQ(p.sum->counts.accepted, 1) << Reasons(p.diag);
  EXPECT_EQ(p.sum->counts.rejected, 2);
}

TEST(PathProbe, WholeInputErrors) {
  EXPECT_FALSE(Parse(std::string("\x00\x01\x02\xff garbage", 13)).sum.ok());
  EXPECT_FALSE(Parse("ts,host,qp,from_state,to_state\n1,h,1,RESET,INIT\n").sum.ok());
  EXPECT_FALSE(Parse("{\"x\":1}\n").sum.ok());
  for (const char* t : {"", "# nothing\n", "src,dst,hops\n"}) {
    Parsed p = Parse(t);
    ASSERT_TRUE(p.sum.ok()) << t;
    EXPECT_EQ(p.sum->counts.read, 0);
  }
  // Huge hop numbers and numbers where names belong.
  Parsed h = Parse("traceroute to x (1.1.1.1), 30 hops max\n 99999  a (1.1.1.2)  1 ms\n 1  a 5\n 1 a 0.5 ms\n");
  ASSERT_TRUE(h.sum.ok());
  EXPECT_EQ(h.sum->counts.rejected, 2) << Reasons(h.diag);
}

}  // namespace path_probe_test
}  // namespace toposcope::formats
