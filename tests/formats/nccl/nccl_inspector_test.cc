// Golden tests of the NCCL Inspector reader on the three README records (pretty-printed v4.0,
// one verbose with event_trace_sn/ts), compact JSON lines, the v4.1+ dump_stats layout, p2p
// records, "nan" doubles, the writer's round trip and bad inputs.
#include "toposcope/formats/nccl/nccl_inspector.h"

#include "toposcope/formats/trace/chrome_trace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace nccl_inspector_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES) + "/nccl_inspector/";
const std::string kAllReduce = kDir + "nccl_inspector_readme_v4.0_allreduce_8rank_record_pretty.json";
const std::string kReduceScatter = kDir + "nccl_inspector_exporter_readme_v4.0_reducescatter_32rank_4node_record_pretty.json";
const std::string kVerbose = kDir + "nccl_inspector_readme_v4.0_verbose_reducescatter_8rank_kernel_gpu_record_pretty.json";
const std::string kProm = kDir + "nccl_inspector_readme_prometheus_v5.1_nvl72004_4rank.prom";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Read {
  Diagnostics diag;
  ReadCounts counts;
  std::vector<InspectorRecord> records;
  std::vector<TraceEvent> events;
  Status status;
};

Read ReadFile(const std::string& path) {
  Read r;
  r.status = ReadNcclInspectorFile(
      path, [&](InspectorRecord&& x) { r.records.push_back(std::move(x)); },
      [&](TraceEvent&& e) { r.events.push_back(std::move(e)); }, r.diag, r.counts);
  return r;
}

Read ReadText(std::string_view text) {
  Read r;
  auto in = MakeStringInputStream(text, "mem");
  LineReader reader(std::move(in));
  r.status = ReadNcclInspector(
      reader, "mem", [&](InspectorRecord&& x) { r.records.push_back(std::move(x)); },
      [&](TraceEvent&& e) { r.events.push_back(std::move(e)); }, r.diag, r.counts);
  return r;
}

// Doubles compared with NaN == NaN.
bool SameD(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }
bool SameRecord(InspectorRecord a, InspectorRecord b) {
  if (!SameD(a.perf.exec_time_us, b.perf.exec_time_us) || !SameD(a.perf.algobw_gbs, b.perf.algobw_gbs) ||
      !SameD(a.perf.busbw_gbs, b.perf.busbw_gbs)) {
    return false;
  }
  a.perf.exec_time_us = b.perf.exec_time_us = 0;
  a.perf.algobw_gbs = b.perf.algobw_gbs = 0;
  a.perf.busbw_gbs = b.perf.busbw_gbs = 0;
  a.line = b.line = 0;
  return a == b;
}

TEST(NcclInspectorGolden, AllReduce8Rank) {
  Read r = ReadFile(kAllReduce);
  ASSERT_TRUE(r.status.ok()) << r.status.error().ToString();
  EXPECT_EQ(r.counts.read, 1);
  EXPECT_EQ(r.counts.accepted, 1);
  ASSERT_EQ(r.records.size(), 1u);
  const auto& x = r.records[0];
  EXPECT_EQ(x.kind, InspectorKind::kCollPerf);
  EXPECT_EQ(x.line, 1);
  EXPECT_EQ(x.header.id, "0x7f8c496ae9f661");
  EXPECT_EQ(x.header.rank, 2);
  EXPECT_EQ(x.header.n_ranks, 8);
  EXPECT_EQ(x.header.nnodes, 1);
  EXPECT_EQ(x.metadata.version, "v4.0");
  EXPECT_EQ(x.metadata.git_rev, "");
  EXPECT_EQ(x.metadata.rec_mechanism, "profiler_plugin");
  EXPECT_EQ(x.metadata.dump_timestamp_us, 1748030377748202);
  EXPECT_EQ(x.metadata.hostname, "example-hostname");
  EXPECT_EQ(x.metadata.pid, 1639453);
  EXPECT_EQ(x.perf.op, "AllReduce");
  EXPECT_EQ(x.perf.sn, 1407);
  EXPECT_EQ(x.perf.msg_size_bytes, 17179869184);
  EXPECT_EQ(x.perf.exec_time_us, 61974);
  EXPECT_EQ(x.perf.timing_source, "");  // absent in this README record
  EXPECT_DOUBLE_EQ(x.perf.algobw_gbs, 277.210914);
  EXPECT_DOUBLE_EQ(x.perf.busbw_gbs, 485.119099);
  EXPECT_FALSE(x.perf.has_event_trace);
  EXPECT_FALSE(x.inherited);
  // The bandwidth identity from inspectorComputeOpBw: algbw = bytes/1e9/s; busbw = 2(n-1)/n algbw.
  EXPECT_NEAR(17179869184 / 1e9 / (61974 * 1e-6), x.perf.algobw_gbs, 1e-3);
  EXPECT_NEAR(x.perf.algobw_gbs * 2 * 7 / 8, x.perf.busbw_gbs, 1e-5);

  ASSERT_EQ(r.events.size(), 1u);
  const auto& e = r.events[0];
  EXPECT_EQ(e.local_ts_ns, (1748030377748202 - 61974) * 1000);
  EXPECT_EQ(e.dur_ns, 61974000);
  EXPECT_EQ(e.host, "example-hostname");
  EXPECT_EQ(e.rank, 2);
  EXPECT_EQ(e.device, "rank2");
  EXPECT_EQ(e.type, "AllReduce");
  EXPECT_EQ(e.category, "coll_perf");
  EXPECT_EQ(e.context, "comm=0x7f8c496ae9f661;seq=1407;timing=dump");
  EXPECT_EQ(e.pid, 1639453);
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.phase, 'X');
  EXPECT_DOUBLE_EQ(e.value, 485.119099);
}

TEST(NcclInspectorGolden, ReduceScatter32Rank4Node) {
  Read r = ReadFile(kReduceScatter);
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.records.size(), 1u);
  const auto& x = r.records[0];
  EXPECT_EQ(x.header.id, "0x9e7a479f95a66c");
  EXPECT_EQ(x.header.rank, 31);
  EXPECT_EQ(x.header.n_ranks, 32);
  EXPECT_EQ(x.header.nnodes, 4);
  EXPECT_EQ(x.metadata.git_rev, "75e61acda-dirty");
  EXPECT_EQ(x.metadata.rec_mechanism, "nccl_profiler_interface");
  EXPECT_EQ(x.metadata.dump_timestamp_us, 1749490229087081);
  EXPECT_EQ(x.metadata.pid, 468528);
  EXPECT_EQ(x.perf.op, "ReduceScatter");
  EXPECT_EQ(x.perf.sn, 129);
  EXPECT_EQ(x.perf.msg_size_bytes, 65536);
  EXPECT_EQ(x.perf.exec_time_us, 110);
  EXPECT_EQ(x.perf.timing_source, "kernel_gpu");
  EXPECT_DOUBLE_EQ(x.perf.algobw_gbs, 19.065018);
  EXPECT_DOUBLE_EQ(x.perf.busbw_gbs, 18.469236);
  // ReduceScatter: traffic = msg_size * nranks; busbw = (n-1)/n algbw.
  EXPECT_NEAR(65536.0 * 32 / 1e9 / 110e-6, x.perf.algobw_gbs, 1e-4);
  EXPECT_NEAR(x.perf.algobw_gbs * 31 / 32, x.perf.busbw_gbs, 1e-5);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].context, "comm=0x9e7a479f95a66c;seq=129;timing=dump");
  EXPECT_EQ(r.events[0].rank, 31);
}

TEST(NcclInspectorGolden, VerboseKernelGpuRecord) {
  Read r = ReadFile(kVerbose);
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.records.size(), 1u);
  const auto& x = r.records[0];
  EXPECT_EQ(x.header.id, "0xe62dedaa97644a");
  EXPECT_EQ(x.header.rank, 4);
  EXPECT_EQ(x.perf.sn, 1231);
  EXPECT_EQ(x.perf.msg_size_bytes, 2147483648);
  EXPECT_EQ(x.perf.exec_time_us, 41057);
  EXPECT_TRUE(x.perf.has_event_trace);
  EXPECT_EQ(x.perf.start_sn, 1);
  EXPECT_EQ(x.perf.stop_sn, 2);
  EXPECT_EQ(x.perf.start_ts_us, 1752867229235059);
  EXPECT_EQ(x.perf.stop_ts_us, 1752867229235064);
  ASSERT_EQ(x.perf.kernels.size(), 1u);
  const auto& k = x.perf.kernels[0];
  EXPECT_EQ(k.channel_id, 0);
  EXPECT_EQ(k.start_sn, 3);
  EXPECT_EQ(k.stop_sn, 48);
  EXPECT_EQ(k.record_sn, 47);
  EXPECT_EQ(k.start_ts_us, 1752867229235181);
  EXPECT_EQ(k.stop_ts_us, 1752867229275811);
  EXPECT_EQ(k.record_ts_us, 1752867229275811);
  // The event is the kernel's GPU span.
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].local_ts_ns, 1752867229235181000);
  EXPECT_EQ(r.events[0].dur_ns, (1752867229275811 - 1752867229235181) * 1000);
}

TEST(NcclInspectorGolden, ConcatenatedPrettyRecordsTrackLines) {
  const std::string all = Slurp(kAllReduce) + Slurp(kReduceScatter) + "\n" + Slurp(kVerbose);
  Read r = ReadText(all);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.counts.read, 3);
  EXPECT_EQ(r.counts.accepted, 3);
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_EQ(r.records[0].line, 1);
  EXPECT_EQ(r.records[1].line, 25);
  EXPECT_EQ(r.records[2].line, 51);  // after the blank line 50
  EXPECT_EQ(r.records[2].perf.sn, 1231);
  EXPECT_EQ(r.events.size(), 3u);
}

TEST(NcclInspectorGolden, PrometheusFileIsNotThisFormat) {
  Read r = ReadFile(kProm);
  EXPECT_FALSE(r.status.ok());
  EXPECT_TRUE(r.records.empty());
  EXPECT_TRUE(r.counts.Balanced());
}

TEST(NcclInspectorParse, CompactLinesDumpStatsCarryForwardP2pAndNan) {
  const std::string t =
      R"({"header":{"id":"0xabc","comm_name":"DP Group 0","rank":0,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.3","git_rev":"g","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":2000000,"hostname":"node0","pid":100},"dump_stats":{"coll_records":1,"p2p_records":1,"proxy_records":1}}
{"coll_perf":{"coll":"AllReduce","coll_sn":7,"coll_msg_size_bytes":1048576,"coll_exec_time_us":250,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":"nan","coll_busbw_gbs":20.000000}}
{"p2p_perf":{"p2p":"Send","p2p_sn":8,"p2p_peer":1,"p2p_msg_size_bytes":524288,"p2p_exec_time_us":50,"p2p_timing_source":"kernel_gpu","p2p_algobw_gbs":30.000000,"p2p_busbw_gbs":30.000000}}
{"proxy_trace":{"channel":0,"steps":[1,2]}}
)";
  Read r = ReadText(t);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.counts.read, 4);
  EXPECT_EQ(r.counts.accepted, 4);
  ASSERT_EQ(r.records.size(), 4u);
  EXPECT_EQ(r.records[0].kind, InspectorKind::kDumpStats);
  EXPECT_EQ(r.records[0].stats.coll_records, 1);
  EXPECT_EQ(r.records[0].header.comm_name, "DP Group 0");
  EXPECT_EQ(r.records[1].kind, InspectorKind::kCollPerf);
  EXPECT_TRUE(r.records[1].inherited);
  EXPECT_EQ(r.records[1].header.id, "0xabc");
  EXPECT_EQ(r.records[1].metadata.hostname, "node0");
  EXPECT_TRUE(std::isnan(r.records[1].perf.algobw_gbs));
  EXPECT_EQ(r.records[1].line, 2);
  EXPECT_EQ(r.records[2].kind, InspectorKind::kP2pPerf);
  EXPECT_EQ(r.records[2].perf.peer, 1);
  EXPECT_EQ(r.records[2].perf.op, "Send");
  EXPECT_EQ(r.records[3].kind, InspectorKind::kProxyTrace);
  EXPECT_EQ(r.records[3].proxy_json, R"({"channel":0,"steps":[1,2]})");
  ASSERT_EQ(r.events.size(), 2u);  // coll + p2p
  EXPECT_EQ(r.events[0].host, "node0");
  EXPECT_EQ(r.events[0].local_ts_ns, (2000000 - 250) * 1000);
  EXPECT_EQ(r.events[1].context, "comm=0xabc;seq=8;peer=1;timing=dump");
  EXPECT_EQ(r.events[1].category, "p2p_perf");
}

TEST(NcclInspectorParse, BadRecordsAreRejectedWithLines) {
  const std::string t = R"({"header":{"id":"0x1","rank":0,"n_ranks":2,"nnodes":1},"metadata":{"dump_timestamp_us":10,"hostname":"h","pid":1},"coll_perf":{"coll":"AllReduce","coll_sn":1,"coll_exec_time_us":5,"coll_algobw_gbs":1.0,"coll_busbw_gbs":1.0}}
{"header":{"id":"0x1","rank":0},"coll_perf":{"coll":"AllReduce","coll_sn":-1}}
{"coll_perf":{"coll":"AllReduce","coll_sn":99999999999999999999}}
{"coll_perf":{"coll":"AllReduce","coll_sn":2,"coll_exec_time_us":"fast"}}
{"coll_perf":{"coll":"AllReduce","coll_sn":2,"coll_exec_time_us":-3}}
{"coll_perf":{"coll_sn":2}}
{"something":"else"}
[1,2,3]
not json at all
{"coll_perf":{"coll":"AllReduce","coll_sn":3,
{"coll_perf":{"coll":"AllReduce","coll_sn":4,"coll_exec_time_us":1e400}}
{"coll_perf":{"coll":"AllReduce","coll_sn":5}}{"coll_perf":{"coll":"AllReduce","coll_sn":6}}
{"coll_perf":{"coll":"AllReduce","coll_sn":7},"p2p_perf":{"p2p":"Send","p2p_sn":1}}
{"coll_perf":{"coll":"AllReduce","coll_sn":8
)";
  Read r = ReadText(t);
  ASSERT_TRUE(r.status.ok());
  EXPECT_TRUE(r.counts.Balanced());
  EXPECT_EQ(r.counts.read, 15);
  EXPECT_EQ(r.counts.accepted, 3);  // line 1, and sn 5 and 6 on line 12
  EXPECT_EQ(r.counts.rejected, 12);
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_EQ(r.records[1].perf.sn, 5);
  EXPECT_EQ(r.records[2].perf.sn, 6);
  EXPECT_EQ(r.records[2].line, 12);
  EXPECT_TRUE(r.records[2].inherited);
  std::vector<int64_t> lines;
  for (const auto& d : r.diag.items()) {
    if (d.severity == Severity::kRejected) lines.push_back(d.line);
  }
  EXPECT_EQ(lines, (std::vector<int64_t>{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14}));
  EXPECT_NE(r.diag.items()[0].reason.find("coll_sn is negative"), std::string::npos);
  EXPECT_EQ(r.diag.items()[1].reason, "coll_sn is not an integer");  // > 2^64: a float to JSON
}

TEST(NcclInspectorParse, EmptyAndGarbage) {
  Read e = ReadText("");
  EXPECT_TRUE(e.status.ok());
  EXPECT_EQ(e.counts.read, 0);
  Read g = ReadText(std::string_view("\x01\x02\xff garbage\n\x7f\x80", 14));
  EXPECT_FALSE(g.status.ok());
  EXPECT_TRUE(g.counts.Balanced());
  Read c = ReadText("# comment\nnode,value\n");
  EXPECT_FALSE(c.status.ok());
}

TEST(NcclInspectorWriter, RoundTrip) {
  std::string all = Slurp(kAllReduce) + Slurp(kReduceScatter) + Slurp(kVerbose);
  all += R"({"header":{"id":"0xabc","rank":0,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.3","git_rev":"g","rec_mechanism":"x","dump_timestamp_us":2000000,"hostname":"node0","pid":100},"dump_stats":{"coll_records":1,"p2p_records":1,"proxy_records":0}}
{"coll_perf":{"coll":"AllGather","coll_sn":7,"coll_msg_size_bytes":1048576,"coll_exec_time_us":"nan","coll_algobw_gbs":"nan","coll_busbw_gbs":20.5}}
{"p2p_perf":{"p2p":"Recv","p2p_sn":8,"p2p_peer":1,"p2p_msg_size_bytes":524288,"p2p_exec_time_us":50.25,"p2p_timing_source":"kernel_gpu","p2p_algobw_gbs":30.000001,"p2p_busbw_gbs":30.000001}}
{"header":{"id":"0xdef","rank":1,"n_ranks":2,"nnodes":1},"coll_perf":{"coll":"Broadcast","coll_sn":9,"coll_exec_time_us":3}}
)";
  Diagnostics diag;
  ReadCounts counts;
  auto recs = ParseNcclInspector(all, "in", diag, counts);
  ASSERT_TRUE(recs.ok());
  ASSERT_EQ(recs->size(), 7u);
  EXPECT_EQ(counts.rejected, 0);
  EXPECT_FALSE((*recs)[6].header_inherited);  // its own header, the dump's metadata
  EXPECT_TRUE((*recs)[6].metadata_inherited);
  EXPECT_EQ((*recs)[6].metadata.hostname, "node0");
  const std::string written = WriteNcclInspector(*recs);
  // Compact, one record per line, keys in the plugin's order.
  EXPECT_EQ(written.substr(0, written.find('\n')),
            R"({"header":{"id":"0x7f8c496ae9f661","rank":2,"n_ranks":8,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"profiler_plugin","dump_timestamp_us":1748030377748202,"hostname":"example-hostname","pid":1639453},"coll_perf":{"coll":"AllReduce","coll_sn":1407,"coll_msg_size_bytes":17179869184,"coll_exec_time_us":61974,"coll_algobw_gbs":277.210914,"coll_busbw_gbs":485.119099}})");
  EXPECT_NE(written.find(R"("coll_exec_time_us":"nan")"), std::string::npos);
  Diagnostics diag2;
  ReadCounts counts2;
  auto back = ParseNcclInspector(written, "rt", diag2, counts2);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(counts2.rejected, 0);
  ASSERT_EQ(back->size(), recs->size());
  for (size_t i = 0; i < recs->size(); ++i) EXPECT_TRUE(SameRecord((*back)[i], (*recs)[i])) << i;
  EXPECT_EQ(WriteNcclInspector(*back), written);
  // The inherited records are written without header/metadata, as v4.1+ does.
  EXPECT_EQ(written.find(R"({"coll_perf":{"coll":"AllGather")") != std::string::npos, true);
}

// Found by a long nccl_inspector_fuzz run: a bandwidth of 6.7e81 was written as its 82-digit
// integer ("%.6f"), which the JSON reader rounds to a neighbouring double, so the second write
// differed from the first. Such magnitudes are written in their shortest round-trip form.
TEST(NcclInspectorWriter, HugeValuesWriteBackTheSame) {
  const std::string rec =
      R"({"header":{"id":"0x1","rank":0,"n_ranks":2},"coll_perf":{"coll":"AllReduce","coll_sn":1,)"
      R"("coll_exec_time_us":12.5,"coll_algobw_gbs":)" +
      std::string(82, '6') + R"(,"coll_busbw_gbs":1e300}})" + "\n";
  Diagnostics diag;
  ReadCounts counts;
  auto recs = ParseNcclInspector(rec, "in", diag, counts);
  ASSERT_TRUE(recs.ok());
  ASSERT_EQ(recs->size(), 1u);
  const std::string written = WriteNcclInspector(*recs);
  EXPECT_NE(written.find(R"("coll_algobw_gbs":6.666666666666667e+81)"), std::string::npos) << written;
  EXPECT_NE(written.find(R"("coll_busbw_gbs":1e+300)"), std::string::npos) << written;
  EXPECT_NE(written.find(R"("coll_exec_time_us":12.500000)"), std::string::npos) << written;
  Diagnostics diag2;
  ReadCounts counts2;
  auto back = ParseNcclInspector(written, "rt", diag2, counts2);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].perf.algobw_gbs, (*recs)[0].perf.algobw_gbs);
  EXPECT_EQ(WriteNcclInspector(*back), written);
}

}  // namespace nccl_inspector_test
}  // namespace toposcope::formats
