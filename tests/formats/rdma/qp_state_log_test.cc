// Tests of the QP state-transition log reader and writers: golden reads of testdata/qp_state
// (CSV and JSONL, every timestamp/qp/state spelling), the legal-transition table, round trips,
// and malformed inputs (each rejected with its line and reason, counts balanced).
#include "toposcope/formats/rdma/qp_state_log.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "toposcope/base/file_io.h"

namespace toposcope::formats {
namespace qp_state_log_test {

struct Parsed {
  Diagnostics diag;
  std::vector<QpStateRecord> records;
  Result<QpStateLogSummary> sum = MakeError("not parsed");
};

Parsed Parse(const std::string& text, const std::string& source = "test") {
  Parsed p;
  p.sum = ParseQpStateLog(text, source, p.diag, [&](const QpStateRecord& r) { p.records.push_back(r); });
  if (p.sum.ok()) {
    EXPECT_TRUE(p.sum->counts.Balanced());
    EXPECT_EQ(p.diag.RejectedFor(source), p.sum->counts.rejected);
    EXPECT_EQ(static_cast<int64_t>(p.records.size()), p.sum->counts.accepted);
  }
  return p;
}

Parsed ParseFile(const std::string& name) {
  Parsed p;
  const std::string path = std::string(TOPOSCOPE_TESTDATA) + "/qp_state/" + name;
  auto in = OpenInput(path);
  EXPECT_TRUE(in.ok()) << path;
  if (!in.ok()) return p;
  LineReader reader(std::move(*in));
  p.sum = ReadQpStateLog(reader, path, p.diag, [&](const QpStateRecord& r) { p.records.push_back(r); });
  if (p.sum.ok()) {
    EXPECT_TRUE(p.sum->counts.Balanced());
    EXPECT_EQ(p.diag.RejectedFor(path), p.sum->counts.rejected);
  }
  return p;
}

std::string Reasons(const Diagnostics& diag) {
  std::string out;
  for (const auto& d : diag.items()) out += d.ToString() + "\n";
  return out;
}

TEST(QpState, NamesNumbersAndPrefixes) {
  EXPECT_EQ(ParseQpState("RTS"), QpState::kRts);
  EXPECT_EQ(ParseQpState("rts"), QpState::kRts);
  EXPECT_EQ(ParseQpState("IBV_QPS_SQE"), QpState::kSqe);
  EXPECT_EQ(ParseQpState("ibv_qps_err"), QpState::kErr);
  EXPECT_EQ(ParseQpState("0"), QpState::kReset);
  EXPECT_EQ(ParseQpState("7"), QpState::kUnknown);
  EXPECT_EQ(ParseQpState(" UNKNOWN "), QpState::kUnknown);
  EXPECT_FALSE(ParseQpState("8"));
  EXPECT_FALSE(ParseQpState("-1"));
  EXPECT_FALSE(ParseQpState(""));
  EXPECT_FALSE(ParseQpState("IBV_QPS_"));
  EXPECT_FALSE(ParseQpState("READY"));
  for (int i = 0; i < kNumQpStates; ++i) {
    const auto s = static_cast<QpState>(i);
    EXPECT_EQ(ParseQpState(QpStateName(s)), s);
  }
}

TEST(QpState, LegalTransitionsFollowTheKernelTable) {
  using S = QpState;
  // The table of DOMAIN §5.5, row by row.
  const std::vector<std::pair<S, std::vector<S>>> legal = {
      {S::kReset, {S::kReset, S::kInit, S::kErr}},
      {S::kInit, {S::kReset, S::kInit, S::kRtr, S::kErr}},
      {S::kRtr, {S::kReset, S::kRts, S::kErr}},
      {S::kRts, {S::kReset, S::kRts, S::kSqd, S::kSqe, S::kErr}},  // RTS->SQE: async UD/UC error
      {S::kSqd, {S::kReset, S::kRts, S::kSqd, S::kErr}},
      {S::kSqe, {S::kReset, S::kRts, S::kErr}},
      {S::kErr, {S::kReset, S::kErr}},
  };
  int n_legal = 0;
  for (int f = 0; f < kNumQpStates; ++f) {
    for (int t = 0; t < kNumQpStates; ++t) {
      const auto from = static_cast<S>(f), to = static_cast<S>(t);
      bool expected = false;
      for (const auto& [row, tos] : legal) {
        if (row != from) continue;
        for (const S x : tos) expected = expected || x == to;
      }
      EXPECT_EQ(IsLegalQpTransition(from, to), expected) << QpStateName(from) << "->" << QpStateName(to);
      n_legal += expected ? 1 : 0;
    }
  }
  EXPECT_EQ(n_legal, 24);  // 23 table entries + RTS->SQE
}

TEST(QpStateLog, GoldenAllreduceCsv) {
  Parsed p = ParseFile("allreduce_small.csv");
  ASSERT_TRUE(p.sum.ok()) << p.sum.error().ToString();
  EXPECT_EQ(p.sum->layout, QpLogLayout::kCsv);
  EXPECT_EQ(p.sum->counts.read, 50);
  EXPECT_EQ(p.sum->counts.accepted, 50);
  EXPECT_EQ(p.sum->counts.rejected, 0) << Reasons(p.diag);
  EXPECT_EQ(p.sum->illegal_transitions, 1);
  EXPECT_EQ(p.sum->illegal[static_cast<size_t>(QpState::kRts)][static_cast<size_t>(QpState::kInit)], 1);
  EXPECT_EQ(p.sum->out_of_order, 0);
  EXPECT_EQ(p.sum->discontinuities, 0);
  ASSERT_EQ(p.records.size(), 50u);
  // First record: hex qp, epoch ns.
  EXPECT_EQ(p.records[0].ts_ns, 1700000001000000000);
  EXPECT_EQ(p.records[0].host, "node01");
  EXPECT_EQ(p.records[0].qp, 0x1a2u);
  EXPECT_EQ(p.records[0].dev, "mlx5_0");
  EXPECT_EQ(p.records[0].job, "17");
  EXPECT_EQ(p.records[0].from, QpState::kReset);
  EXPECT_EQ(p.records[0].to, QpState::kInit);
  EXPECT_TRUE(p.records[0].legal);
  EXPECT_EQ(p.records[0].line, 4);
  // ISO time, IBV_QPS_ names and numeric states.
  EXPECT_EQ(p.records[6].ts_ns, 1700000001000070000);
  EXPECT_EQ(p.records[6].qp, 0x2b0u);
  EXPECT_EQ(p.records[6].from, QpState::kReset);
  EXPECT_EQ(p.records[7].from, QpState::kInit);
  EXPECT_EQ(p.records[7].to, QpState::kRtr);
  // Epoch seconds with a fraction, lower-case states.
  EXPECT_EQ(p.records[9].ts_ns, 1700000001000080000);
  EXPECT_EQ(p.records[9].qp, 689u);
  EXPECT_EQ(p.records[9].to, QpState::kInit);
  // The illegal shortcut is kept and flagged.
  const QpStateRecord& bad = p.records[47];
  EXPECT_EQ(bad.qp, 689u);
  EXPECT_EQ(bad.from, QpState::kRts);
  EXPECT_EQ(bad.to, QpState::kInit);
  EXPECT_FALSE(bad.legal);
  EXPECT_EQ(p.diag.warnings_total(), 1);
  EXPECT_NE(Reasons(p.diag).find("illegal transition RTS->INIT"), std::string::npos);
  int err_reset = 0;
  for (const auto& r : p.records) err_reset += r.from == QpState::kErr && r.to == QpState::kReset;
  EXPECT_EQ(err_reset, 7);
}

TEST(QpStateLog, GoldenPipelineJsonl) {
  Parsed p = ParseFile("pipeline_small.jsonl");
  ASSERT_TRUE(p.sum.ok()) << p.sum.error().ToString();
  EXPECT_EQ(p.sum->layout, QpLogLayout::kJsonl);
  EXPECT_EQ(p.sum->counts.read, 12);
  EXPECT_EQ(p.sum->counts.accepted, 12) << Reasons(p.diag);
  EXPECT_EQ(p.sum->illegal_transitions, 0);
  ASSERT_EQ(p.records.size(), 12u);
  EXPECT_EQ(p.records[3].ts_ns, 1700000002030000000);
  EXPECT_EQ(p.records[3].host, "gpu-b");
  EXPECT_EQ(p.records[3].qp, 200u);
  EXPECT_EQ(p.records[3].dev, "mlx5_2");
  EXPECT_EQ(p.records[3].job, "pp");
  EXPECT_EQ(p.records[4].from, QpState::kInit);
  EXPECT_EQ(p.records[6].to, QpState::kSqd);
  EXPECT_EQ(p.records[8].to, QpState::kSqe);
  EXPECT_EQ(p.records[11].from, QpState::kErr);
  EXPECT_EQ(p.records[11].to, QpState::kReset);
  EXPECT_EQ(p.records[11].line, 15);
}

TEST(QpStateLog, BadLinesRejectedWithLineAndReason) {
  Parsed p = ParseFile("bad.csv");
  ASSERT_TRUE(p.sum.ok()) << p.sum.error().ToString();
  EXPECT_EQ(p.sum->counts.read, 18);
  EXPECT_EQ(p.sum->counts.accepted, 5);
  EXPECT_EQ(p.sum->counts.rejected, 13) << Reasons(p.diag);
  EXPECT_EQ(p.sum->out_of_order, 1);
  EXPECT_EQ(p.sum->illegal_transitions, 1);  // RTS->UNKNOWN
  EXPECT_EQ(p.sum->discontinuities, 1);
  const std::string r = Reasons(p.diag);
  for (const char* needle :
       {":3: rejected: duplicate of line 2", ":4: rejected: ts 'nonsense'", ":5: rejected: empty host",
        ":6: rejected: qp '-5'", ":7: rejected: qp '16777216'", ":8: rejected: qp '0xZZ'",
        ":9: rejected: to_state 'FLYING'", ":10: rejected: to_state '8'", ":11: rejected: row has 4 cells",
        ":12: rejected: row has 6 cells", ":13: rejected: ts '99999999999999999999999'", ":14: rejected: ts 'NaN'",
        ":15: rejected: broken quote", "out of order", "illegal transition RTS->UNKNOWN"}) {
    EXPECT_NE(r.find(needle), std::string::npos) << needle << "\n" << r;
  }
}

TEST(QpStateLog, RoundTripCsvAndJsonl) {
  std::vector<QpStateRecord> in;
  for (int i = 0; i < 20; ++i) {
    QpStateRecord r;
    r.ts_ns = 1700000000000000000 + i * 1234567;
    r.host = i % 2 ? "node,with comma" : "n\"q";
    r.qp = static_cast<uint32_t>(i * 977 % (1 << 24));
    r.dev = i % 3 ? "mlx5_0" : "";
    r.job = i % 4 ? "job-7" : "";
    r.from = static_cast<QpState>(i % 8);
    r.to = static_cast<QpState>((i * 3) % 8);
    r.legal = IsLegalQpTransition(r.from, r.to);
    in.push_back(r);
  }
  std::string csv = QpStateCsvHeader(), jsonl;
  for (const auto& r : in) {
    csv += FormatQpStateCsvLine(r);
    jsonl += FormatQpStateJsonLine(r);
  }
  for (const std::string* text : {&csv, &jsonl}) {
    Parsed p = Parse(*text);
    ASSERT_TRUE(p.sum.ok()) << p.sum.error().ToString();
    EXPECT_EQ(p.sum->counts.rejected, 0) << Reasons(p.diag);
    EXPECT_EQ(p.records, in);
  }
}

TEST(QpStateLog, WholeInputErrors) {
  EXPECT_FALSE(Parse(std::string("\x00\x01\x02\xff garbage", 13)).sum.ok());
  EXPECT_FALSE(Parse("time,src,dst\n1,2,3\n").sum.ok());                         // wrong header
  EXPECT_FALSE(Parse("traceroute to x (1.2.3.4), 30 hops max\n").sum.ok());     // wrong format
  EXPECT_FALSE(Parse("{\"a\":1}\n{\"b\":2}\n").sum.ok());                        // all rejected
  // Empty input and header-only input are fine, with nothing read.
  for (const char* t : {"", "\n\n# only comments\n", "ts,host,qp,from_state,to_state\n"}) {
    Parsed p = Parse(t);
    ASSERT_TRUE(p.sum.ok()) << t;
    EXPECT_EQ(p.sum->counts.read, 0);
  }
}

TEST(QpStateLog, JsonlBadValues) {
  Parsed p = Parse(
      "{\"ts_ns\":1,\"host\":\"h\",\"qp\":1,\"from\":\"RESET\",\"to\":\"INIT\"}\n"
      "{\"ts_ns\":1e400,\"host\":\"h\",\"qp\":1,\"from\":\"RESET\",\"to\":\"INIT\"}\n"
      "{\"ts_ns\":18446744073709551615,\"host\":\"h\",\"qp\":1,\"from\":\"RESET\",\"to\":\"INIT\"}\n"
      "{\"ts_ns\":2,\"host\":\"\",\"qp\":1,\"from\":\"RESET\",\"to\":\"INIT\"}\n"
      "{\"ts_ns\":2,\"host\":\"h\",\"qp\":-1,\"from\":\"RESET\",\"to\":\"INIT\"}\n"
      "{\"ts_ns\":2,\"host\":\"h\",\"qp\":1.5,\"from\":\"RESET\",\"to\":\"INIT\"}\n"
      "{\"ts_ns\":2,\"host\":\"h\",\"qp\":1,\"from\":9,\"to\":\"INIT\"}\n"
      "{\"ts_ns\":2,\"host\":\"h\",\"qp\":1,\"from\":\"RESET\"}\n"
      "{\"ts_ns\":2,\"host\":\"h\",\"qp\":1,\"from\":\"INIT\",\"to\":\"RTR\"\n"
      "[1,2,3]\n"
      "{\"ts_ns\":2,\"ts\":3,\"host\":\"h\",\"qp\":1,\"from\":\"INIT\",\"to\":\"RTR\"}\n"
      "{\"ts_ns\":3,\"host\":\"h\",\"qp\":1,\"from\":\"INIT\",\"to\":\"RTR\",\"dev\":null}\n");
  ASSERT_TRUE(p.sum.ok());
  EXPECT_EQ(p.sum->counts.read, 12);
  EXPECT_EQ(p.sum->counts.accepted, 2) << Reasons(p.diag);
  const std::string r = Reasons(p.diag);
  for (const char* needle : {":2: rejected: not valid JSON", ":3: rejected: 'ts_ns' out of range", ":4: rejected: empty",
                             ":5: rejected: qp '-1'", ":6: rejected: qp '1.5'", ":7: rejected: 'from' '9'",
                             ":8: rejected: no to_state", ":9: rejected: not valid JSON", ":10: rejected: not a JSON object",
                             ":11: rejected: two timestamp keys"}) {
    EXPECT_NE(r.find(needle), std::string::npos) << needle << "\n" << r;
  }
}

TEST(QpStateLog, MalformedUtf8NamesRejected) {
  Parsed p = Parse(std::string("ts_ns,host,qp,dev,from_state,to_state\n"
                               "1,\xe9h1,1,mlx5_0,RESET,INIT\n"
                               "2,h1,1,mlx5_\xff,RESET,INIT\n"
                               "3,h\xc3\xa9,1,mlx5_0,RESET,INIT\n"));
  ASSERT_TRUE(p.sum.ok());
  EXPECT_EQ(p.sum->counts.accepted, 1);  // "hé" is fine
  EXPECT_EQ(p.sum->counts.rejected, 2) << Reasons(p.diag);
  EXPECT_EQ(p.records[0].host, "h\xc3\xa9");
}

TEST(QpStateLog, StreamsLargeInputWithoutKeepingIt) {
  std::string text = QpStateCsvHeader();
  const QpState cycle[5] = {QpState::kReset, QpState::kInit, QpState::kRtr, QpState::kRts, QpState::kErr};
  int64_t n = 0;
  for (int q = 0; q < 50; ++q) {
    for (int i = 0; i < 400; ++i) {
      QpStateRecord r;
      r.ts_ns = 1700000000000000000 + i * 1000;
      r.host = "h" + std::to_string(q % 5);
      r.qp = static_cast<uint32_t>(q);
      r.from = cycle[i % 5];
      r.to = i % 5 == 4 ? QpState::kReset : cycle[i % 5 + 1];
      text += FormatQpStateCsvLine(r);
      ++n;
    }
  }
  int64_t seen = 0;
  Diagnostics diag;
  auto sum = ParseQpStateLog(text, "big", diag, [&](const QpStateRecord&) { ++seen; });
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(seen, n);
  EXPECT_EQ(sum->counts.accepted, n);
  EXPECT_EQ(sum->illegal_transitions, 0);
  EXPECT_EQ(sum->discontinuities, 0);
}

}  // namespace qp_state_log_test
}  // namespace toposcope::formats
