// Tests of toposcope's sync-pairs CSV: reading (header forms, quotes, comments, optional
// columns), the writer's round trip, and malformed inputs.
#include "toposcope/formats/clock/sync_csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace sync_csv_test {

struct Parsed {
  Diagnostics diag;
  ReadCounts counts;
  Result<std::vector<SyncPoint>> points = MakeError("not parsed");
};

Parsed Parse(const std::string& text, const std::string& source = "test") {
  Parsed p;
  p.points = ParseSyncCsv(text, source, p.diag, p.counts);
  EXPECT_TRUE(p.counts.Balanced());
  EXPECT_EQ(p.diag.RejectedFor(source), p.counts.rejected);
  return p;
}

std::string Reasons(const Diagnostics& diag) {
  std::string out;
  for (const auto& d : diag.items()) out += d.ToString() + "\n";
  return out;
}

TEST(SyncCsv, MinimalAndFullForms) {
  auto p = Parse(
      "# exported from our NTP monitor\n"
      "host,local_ns,ref_ns\n"
      "node-1,1700000000000001000,1700000000000000000\n"
      "\n"
      "node-2,1700000000000000000,1700000000000000250\n");
  ASSERT_TRUE(p.points.ok()) << p.points.error().ToString();
  EXPECT_EQ(p.counts.read, 2);
  EXPECT_EQ(p.counts.accepted, 2);
  ASSERT_EQ(p.points->size(), 2u);
  const auto& a = (*p.points)[0];
  EXPECT_EQ(a.host, "node-1");
  EXPECT_EQ(a.local_ns, 1700000000000001000LL);
  EXPECT_EQ(a.ref_ns, 1700000000000000000LL);
  EXPECT_DOUBLE_EQ(a.offset_ns, 1000);  // local - ref: node-1 is 1 us ahead
  EXPECT_TRUE(std::isnan(a.uncertainty_ns));
  EXPECT_EQ(a.source, "csv");
  EXPECT_TRUE(a.synced);
  EXPECT_EQ(a.line, 3);
  EXPECT_DOUBLE_EQ((*p.points)[1].offset_ns, -250);

  // Optional columns, any order, any case; unknown columns ignored with one warning.
  auto q = Parse(
      "Source,HOST,ref_ns,uncertainty_ns,local_ns,comment\n"
      "ptp-gm,\"gpu,node\",100,12.5,90,\"said \"\"hi\"\"\"\n"
      ",n2,100,,105,\n");
  ASSERT_TRUE(q.points.ok()) << q.points.error().ToString();
  EXPECT_EQ(q.counts.accepted, 2) << Reasons(q.diag);
  EXPECT_EQ(q.diag.warnings_total(), 1);
  EXPECT_EQ((*q.points)[0].host, "gpu,node");
  EXPECT_EQ((*q.points)[0].source, "ptp-gm");
  EXPECT_DOUBLE_EQ((*q.points)[0].uncertainty_ns, 12.5);
  EXPECT_DOUBLE_EQ((*q.points)[0].offset_ns, -10);
  EXPECT_EQ((*q.points)[1].source, "csv");
  EXPECT_TRUE(std::isnan((*q.points)[1].uncertainty_ns));
}

TEST(SyncCsv, RowsNeedNotBeSorted) {
  auto p = Parse("host,local_ns,ref_ns\nb,30,29\na,10,9\nb,20,19\n");
  ASSERT_TRUE(p.points.ok());
  EXPECT_EQ(p.counts.accepted, 3);
  EXPECT_EQ(p.diag.warnings_total(), 0);
}

TEST(SyncCsv, WriterRoundTrip) {
  std::vector<SyncPoint> pts;
  for (int i = 0; i < 50; ++i) {
    SyncPoint p;
    p.host = i % 3 == 0 ? "node \"x\", rack 1" : "node-" + std::to_string(i);
    p.local_ns = 1700000000000000000LL + int64_t{i} * 1000003 - (i % 2) * 5000;
    p.ref_ns = 1700000000000000000LL + int64_t{i} * 1000000;
    p.uncertainty_ns = i % 4 == 0 ? NAN : 0.1 * i + 1.0 / 3.0;
    p.source = i % 5 == 0 ? "chrony-tracking" : "sim";
    pts.push_back(p);
  }
  pts[7].local_ns = -5;  // negative times survive
  const std::string text = WriteSyncCsv(pts);
  EXPECT_EQ(text.substr(0, text.find('\n')), "host,local_ns,ref_ns,uncertainty_ns,source");
  auto p = Parse(text);
  ASSERT_TRUE(p.points.ok());
  EXPECT_EQ(p.counts.rejected, 0) << Reasons(p.diag);
  ASSERT_EQ(p.points->size(), pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto& a = pts[i];
    const auto& b = (*p.points)[i];
    EXPECT_EQ(a.host, b.host);
    EXPECT_EQ(a.local_ns, b.local_ns);
    EXPECT_EQ(a.ref_ns, b.ref_ns);
    EXPECT_EQ(std::isnan(a.uncertainty_ns), std::isnan(b.uncertainty_ns));
    if (!std::isnan(a.uncertainty_ns)) {
      EXPECT_EQ(a.uncertainty_ns, b.uncertainty_ns);  // exact
    }
    EXPECT_EQ(a.source, b.source);
    EXPECT_DOUBLE_EQ(b.offset_ns, static_cast<double>(a.local_ns - a.ref_ns));
  }
  EXPECT_EQ(WriteSyncCsv(*p.points), text);
}

TEST(SyncCsvBad, EmptyOrWrongHeaderIsAnError) {
  EXPECT_FALSE(Parse("").points.ok());
  EXPECT_FALSE(Parse("# only a comment\n\n").points.ok());
  EXPECT_FALSE(Parse("src,dst,bandwidth_gbps\n0,1,24.8\n").points.ok());
  EXPECT_FALSE(Parse("host,local_ns,local_ns,ref_ns\n").points.ok());
  static const char kBinary[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\n\x00\xff";
  EXPECT_FALSE(Parse(std::string(kBinary, sizeof(kBinary) - 1)).points.ok());
  // A header alone is a valid, empty file.
  auto p = Parse("host,local_ns,ref_ns\n");
  ASSERT_TRUE(p.points.ok());
  EXPECT_EQ(p.counts.read, 0);
}

TEST(SyncCsvBad, MalformedRowsRejected) {
  auto p = Parse(
      "host,local_ns,ref_ns,uncertainty_ns\n"
      "a,1,2\n"                                         // too few cells
      "a,1,2,3,4\n"                                     // too many
      ",1,2,3\n"                                        // empty host
      "a,1.5,2,3\n"                                     // not an integer
      "a,1,0x10,3\n"                                    // hex is not accepted
      "a,99999999999999999999,2,3\n"                    // > int64
      "a,9223372036854775807,-9223372036854775807,3\n"  // difference overflows
      "a,1,2,nan\n"                                     // NaN spelled as text: treated as missing
      "a,1,2,-1\n"                                      // negative uncertainty
      "a,1,2,inf\n"                                     // infinity
      "\"a,1,2,3\n"                                     // broken quote
      "a,1,2,3\n"
      "a,1,2,3\n");  // duplicate: accepted, warned
  ASSERT_TRUE(p.points.ok());
  EXPECT_EQ(p.counts.read, 13);
  EXPECT_EQ(p.counts.accepted, 3) << Reasons(p.diag);
  EXPECT_EQ(p.counts.rejected, 10);
  EXPECT_EQ(p.diag.warnings_total(), 1);
  const std::string reasons = Reasons(p.diag);
  EXPECT_NE(reasons.find("row has 3 cells, the header 4"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("local_ns '1.5' is not an integer"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("overflows"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("uncertainty_ns '-1'"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("broken quote"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("repeats line 13"), std::string::npos) << reasons;
}

}  // namespace sync_csv_test
}  // namespace toposcope::formats
