// Tests of toposcope's JSONL event format: reading (required keys, types, ranges, comments,
// blank lines), the writer's layout and round trip, and bad inputs.
#include "toposcope/formats/trace/event_jsonl.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace event_jsonl_test {

TEST(EventJsonl, ReadsTheDocumentedExample) {
  const std::string t =
      "# toposcope events\n"
      "{\"ts_ns\": 1717000000123456789, \"host\": \"node-07\", \"device\": \"gpu3\", \"type\": \"ncclAllReduce\", "
      "\"context\": \"comm=0x7f8c;seq=1407\", \"dur_ns\": 61974000, \"rank\": 59}\n"
      "\n"
      "{\"ts_ns\":1717000000200000000,\"host\":\"node-07\",\"type\":\"ecc_error\"}\n";
  Diagnostics diag;
  ReadCounts counts;
  auto ev = ParseEventJsonl(t, "ev.jsonl", diag, counts);
  EXPECT_EQ(counts.read, 2);
  EXPECT_EQ(counts.accepted, 2);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].local_ts_ns, 1717000000123456789);
  EXPECT_EQ(ev[0].host, "node-07");
  EXPECT_EQ(ev[0].device, "gpu3");
  EXPECT_EQ(ev[0].type, "ncclAllReduce");
  EXPECT_EQ(ev[0].context, "comm=0x7f8c;seq=1407");
  EXPECT_EQ(ev[0].dur_ns, 61974000);
  EXPECT_EQ(ev[0].rank, 59);
  EXPECT_EQ(ev[0].phase, 'X');
  EXPECT_EQ(ev[0].line, 2);
  EXPECT_EQ(ev[0].source_file, "ev.jsonl");
  EXPECT_EQ(ev[1].device, "");
  EXPECT_EQ(ev[1].rank, -1);
  EXPECT_EQ(ev[1].dur_ns, 0);
  EXPECT_EQ(ev[1].phase, 'i');
  EXPECT_EQ(ev[1].line, 4);
}

TEST(EventJsonl, RejectsBadLines) {
  const std::string t =
      "[1,2]\n"
      "\"just a string\"\n"
      "not json\n"
      "{\"host\":\"h\",\"type\":\"t\"}\n"
      "{\"ts_ns\":1,\"type\":\"t\"}\n"
      "{\"ts_ns\":1,\"host\":\"h\"}\n"
      "{\"ts_ns\":1.5,\"host\":\"h\",\"type\":\"t\"}\n"
      "{\"ts_ns\":\"1\",\"host\":\"h\",\"type\":\"t\"}\n"
      "{\"ts_ns\":99999999999999999999,\"host\":\"h\",\"type\":\"t\"}\n"
      "{\"ts_ns\":18446744073709551615,\"host\":\"h\",\"type\":\"t\"}\n"
      "{\"ts_ns\":1,\"host\":\"h\",\"type\":\"t\",\"dur_ns\":-1}\n"
      "{\"ts_ns\":1,\"host\":\"h\",\"type\":\"t\",\"rank\":-2}\n"
      "{\"ts_ns\":1,\"host\":7,\"type\":\"t\"}\n"
      "{\"ts_ns\":1,\"host\":\"h\",\"type\":\"t\",\"device\":null}\n"
      "{\"ts_ns\":1,\"host\":\"h\",\"type\":\"\"}\n"
      "{\"ts_ns\":NaN,\"host\":\"h\",\"type\":\"t\"}\n"
      "{\"ts_ns\":1,\"host\":\"h\",\"type\":\"t\"\n"
      "{\"ts_ns\":1,\"host\":\"h\",\"type\":\"t\",\"extra\":{\"x\":1}}\n"
      "{\"ts_ns\":1,\"host\":\"h\",\"type\":\"t\"}\n";
  Diagnostics diag;
  ReadCounts counts;
  auto ev = ParseEventJsonl(t, "bad", diag, counts);
  EXPECT_EQ(counts.read, 19);
  EXPECT_EQ(counts.accepted, 2);
  EXPECT_EQ(counts.rejected, 17);
  EXPECT_TRUE(counts.Balanced());
  ASSERT_EQ(ev.size(), 2u);  // unknown keys ignored; duplicates kept
  EXPECT_EQ(ev[0].line, 18);
  EXPECT_EQ(ev[1].line, 19);
  EXPECT_EQ(ev[0].type, ev[1].type);
  std::vector<std::string> reasons;
  for (const auto& d : diag.items()) reasons.push_back(d.reason);
  ASSERT_EQ(reasons.size(), 17u);
  EXPECT_EQ(reasons[0], "line is not a JSON object");
  EXPECT_EQ(reasons[2], "not valid JSON");
  EXPECT_EQ(reasons[3], "missing ts_ns");
  EXPECT_EQ(reasons[4], "missing host");
  EXPECT_EQ(reasons[5], "missing type");
  EXPECT_EQ(reasons[6], "ts_ns is not an integer");
  EXPECT_EQ(reasons[7], "ts_ns is not an integer");
  EXPECT_EQ(reasons[9], "ts_ns out of range");
  EXPECT_EQ(reasons[10], "dur_ns is negative");
  EXPECT_EQ(reasons[11], "rank out of range");
  EXPECT_EQ(reasons[12], "host is not a string");
  EXPECT_EQ(reasons[13], "device is not a string");
  EXPECT_EQ(diag.items()[0].line, 1);
  EXPECT_EQ(diag.items()[16].line, 17);
}

TEST(EventJsonl, EmptyAndBinary) {
  Diagnostics diag;
  ReadCounts counts;
  EXPECT_TRUE(ParseEventJsonl("", "e", diag, counts).empty());
  EXPECT_EQ(counts.read, 0);
  auto ev = ParseEventJsonl(std::string_view("\x00\x01\xff\xfe\n\x80", 6), "b", diag, counts);
  EXPECT_TRUE(ev.empty());
  EXPECT_EQ(counts.read, 2);
  EXPECT_EQ(counts.rejected, 2);
}

TEST(EventJsonl, WriterLayoutAndRoundTrip) {
  std::vector<TraceEvent> v(3);
  v[0].local_ts_ns = 1717000000123456789;
  v[0].host = "node-07";
  v[0].device = "gpu3";
  v[0].type = "ncclAllReduce";
  v[0].context = "comm=0x7f8c;seq=1407";
  v[0].dur_ns = 61974000;
  v[0].rank = 59;
  v[0].phase = 'X';
  v[1].local_ts_ns = std::numeric_limits<int64_t>::min() + 1;
  v[1].host = "h \"quoted\" \\ caf\xC3\xA9";
  v[1].type = "t\n";
  v[1].category = "cat";
  v[1].pid = 4;
  v[1].tid = -5;
  v[1].value = 0.1;
  v[1].phase = 'i';
  v[2].local_ts_ns = std::numeric_limits<int64_t>::max();
  v[2].host = "x";
  v[2].type = "y";
  v[2].phase = 'i';
  const std::string text = WriteEventJsonl(v);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            R"({"ts_ns":1717000000123456789,"host":"node-07","device":"gpu3","type":"ncclAllReduce","context":"comm=0x7f8c;seq=1407","dur_ns":61974000,"rank":59})");
  Diagnostics diag;
  ReadCounts counts;
  auto back = ParseEventJsonl(text, "rt", diag, counts);
  ASSERT_EQ(back.size(), v.size());
  EXPECT_EQ(counts.rejected, 0);
  for (size_t i = 0; i < v.size(); ++i) {
    TraceEvent got = back[i];
    got.source_file.clear();
    got.line = 0;
    got.byte_offset = -1;
    EXPECT_EQ(got, v[i]) << i;
  }
}

}  // namespace event_jsonl_test
}  // namespace toposcope::formats
