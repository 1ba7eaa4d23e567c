// Golden tests of the streaming Chrome/Kineto trace reader on the real fixtures (2-rank A100 with
// baseTimeNanoseconds after traceEvents, 128-rank sampled traces, .gz), the truncated and the
// not-JSON NCCL example-profiler traces, NCCL kernel-name decoding, the writer (round trip,
// layout) and bad inputs.
#include "toposcope/formats/trace/chrome_trace.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace chrome_trace_test {

const std::string kDir = std::string(TOPOSCOPE_FIXTURES);
const std::string k2Rank = kDir + "/kineto_trace/hta_nccl_parser_config_a100_2rank_nccl2.17.1_rank0.json.gz";
const std::string k128R0 = kDir + "/kineto_trace/hta_trace_filter_sampled_128rank_sendrecv_rank0.json";
const std::string k128R1 = kDir + "/kineto_trace/hta_trace_filter_sampled_128rank_sendrecv_rank1.json.gz";
const std::string kProfiler =
    kDir + "/nccl_inspector/nccl_example_profiler_readme_allreduce_2gpu_net_chrome_trace_TRUNCATED_notjson.txt";

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
  std::vector<TraceEvent> events;
  Result<ChromeTraceInfo> info = MakeError("not read");
};

Read ReadFile(const std::string& path, ChromeTraceOptions opt = {}) {
  Read r;
  r.info = ReadChromeTraceFile(path, opt, [&](TraceEvent&& e) { r.events.push_back(std::move(e)); }, r.diag, r.counts);
  return r;
}

Read ReadText(std::string_view text, ChromeTraceOptions opt = {}) {
  Read r;
  r.info = ParseChromeTrace(text, "mem", opt, [&](TraceEvent&& e) { r.events.push_back(std::move(e)); }, r.diag,
                            r.counts);
  return r;
}

const TraceEvent* FindByName(const std::vector<TraceEvent>& ev, std::string_view prefix) {
  for (const auto& e : ev) {
    if (e.type.rfind(prefix, 0) == 0) return &e;
  }
  return nullptr;
}

// --- NCCL kernel names ---------------------------------------------------------------------

TEST(NcclKernelName, Era218) {
  auto c = ParseNcclKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)");
  EXPECT_TRUE(c.is_nccl);
  EXPECT_EQ(c.era, 218);
  EXPECT_EQ(c.collective, "AllReduce");
  EXPECT_EQ(c.algo, "RING");
  EXPECT_EQ(c.proto, "LL");
  EXPECT_EQ(c.redop, "Sum");
  EXPECT_EQ(c.dtype, "float");
  EXPECT_FALSE(c.generic);
  c = ParseNcclKernelName("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)");
  EXPECT_EQ(c.collective, "SendRecv");
  EXPECT_EQ(c.algo, "RING");
  EXPECT_EQ(c.proto, "SIMPLE");
  EXPECT_EQ(c.dtype, "int8_t");
  c = ParseNcclKernelName("ncclKernel_AllReduce_COLLNET_DIRECT_LL128_Sum___nv_bfloat16");
  EXPECT_EQ(c.algo, "COLLNET_DIRECT");
  EXPECT_EQ(c.proto, "LL128");
  EXPECT_EQ(c.dtype, "__nv_bfloat16");
  c = ParseNcclKernelName("ncclKernel_Broadcast_RING_LL_Sum_int8_t");
  EXPECT_EQ(c.collective, "Broadcast");
}

TEST(NcclKernelName, Era219) {
  auto c = ParseNcclKernelName("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  EXPECT_TRUE(c.is_nccl);
  EXPECT_EQ(c.era, 219);
  EXPECT_EQ(c.collective, "AllReduce");
  EXPECT_EQ(c.redop, "Sum");
  EXPECT_EQ(c.dtype, "f32");
  EXPECT_EQ(c.algo, "RING");
  EXPECT_EQ(c.proto, "LL");
  c = ParseNcclKernelName("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)");
  EXPECT_EQ(c.collective, "SendRecv");
  EXPECT_TRUE(c.generic);
  EXPECT_EQ(c.algo, "");
  c = ParseNcclKernelName("ncclDevKernel_AllGather_RING_LL");
  EXPECT_EQ(c.collective, "AllGather");
  EXPECT_EQ(c.algo, "RING");
  EXPECT_EQ(c.proto, "LL");
  EXPECT_EQ(c.redop, "");
  c = ParseNcclKernelName("ncclDevKernel_ReduceScatter_Sum_bf16_NVLS_TREE_SIMPLE");
  EXPECT_EQ(c.algo, "NVLS_TREE");
  EXPECT_EQ(c.proto, "SIMPLE");
  EXPECT_EQ(c.dtype, "bf16");
  c = ParseNcclKernelName("ncclDevKernel_AllReduce_Sum_f16");  // generic with types
  EXPECT_TRUE(c.generic);
  EXPECT_EQ(c.redop, "Sum");
  EXPECT_EQ(c.dtype, "f16");
}

TEST(NcclKernelName, NotNccl) {
  EXPECT_FALSE(ParseNcclKernelName("void cudnn::bn_bw_1C11_kernel_new<float>(float)").is_nccl);
  EXPECT_FALSE(ParseNcclKernelName("").is_nccl);
  EXPECT_FALSE(ParseNcclKernelName("nccl:all_reduce").is_nccl);
  EXPECT_FALSE(ParseNcclKernelName("ncclKernel_").is_nccl);
}

TEST(ContextValue, Lookup) {
  EXPECT_EQ(ContextValue("corr=1;coll=allreduce;pg=0", "coll"), "allreduce");
  EXPECT_EQ(ContextValue("corr=1;coll=allreduce", "seq"), "");
  EXPECT_EQ(ContextValue("", "corr"), "");
}

// --- Real fixtures ---------------------------------------------------------------------------

// The 2-rank trace is ~10 MB decompressed: read it once (metadata events included) for all its tests.
const Read& TwoRank() {
  static const Read r = [] {
    ChromeTraceOptions opt;
    opt.include_metadata_events = true;
    Read x = ReadFile(k2Rank, opt);
    std::vector<TraceEvent> no_meta;
    for (auto& e : x.events) {
      if (e.phase != 'M') no_meta.push_back(e);
    }
    x.events.swap(no_meta);
    x.diag = Diagnostics();
    return x;
  }();
  return r;
}

TEST(ChromeTraceGolden, TwoRankA100BaseTimeAfterEvents) {
  const Read& r = TwoRank();
  ASSERT_TRUE(r.info.ok()) << r.info.error().ToString();
  const auto& info = *r.info;
  EXPECT_EQ(r.counts.read, 40573);
  EXPECT_EQ(r.counts.accepted, 40573);
  EXPECT_EQ(r.counts.rejected, 0);
  EXPECT_TRUE(r.counts.Balanced());
  EXPECT_EQ(info.events_emitted, 40573);     // M events included on request
  EXPECT_EQ(r.events.size(), 40573u - 38u);  // without them
  EXPECT_TRUE(info.has_base_time);
  EXPECT_EQ(info.base_time_ns, 1711964646000000000);
  EXPECT_FALSE(info.relative_axis);
  EXPECT_FALSE(info.truncated);
  EXPECT_EQ(info.schema_version, 1);
  EXPECT_EQ(info.display_time_unit, "ms");
  EXPECT_EQ(info.trace_name, "/tmp/tmpu3g3sevh.json");
  EXPECT_TRUE(info.distributed.present);
  EXPECT_EQ(info.distributed.rank, 0);
  EXPECT_EQ(info.distributed.world_size, 2);
  EXPECT_EQ(info.distributed.backend, "nccl");
  EXPECT_EQ(info.distributed.nccl_version, "2.17.1");
  EXPECT_EQ(info.distributed.pg_count, 1);
  ASSERT_EQ(info.distributed.pg_config.size(), 1u);
  EXPECT_EQ(info.distributed.pg_config[0].pg_desc, "default_pg");
  EXPECT_EQ(info.distributed.pg_config[0].ranks.ToVector(), (std::vector<int>{0, 1}));
  ASSERT_GE(info.devices.size(), 1u);
  EXPECT_EQ(info.devices[0].name, "NVIDIA A100-PG509-200");
  EXPECT_EQ(info.devices[0].num_sms, 108);
  EXPECT_EQ(info.devices[0].total_global_mem_bytes, 42297524224);
  EXPECT_EQ(info.process_labels.at(0), "GPU 0");
  EXPECT_EQ(info.process_labels.at(2910249), "CPU");
  EXPECT_EQ(info.thread_names.at({0, 7}), "stream 7 ");

  std::map<std::string, int> nccl;
  std::map<char, int> phases;
  for (const auto& e : r.events) {
    ++phases[e.phase];
    if (e.category == "kernel" && e.type.rfind("nccl", 0) == 0) ++nccl[e.type.substr(0, e.type.find('('))];
  }
  EXPECT_EQ(phases['X'], 26933);
  EXPECT_EQ(phases['f'], 9195);
  EXPECT_EQ(phases['s'], 4405);
  EXPECT_EQ(phases['i'], 2);
  EXPECT_EQ(nccl["ncclKernel_AllReduce_RING_LL_Sum_float"], 15);
  EXPECT_EQ(nccl["ncclKernel_Broadcast_RING_LL_Sum_int8_t"], 6);
  EXPECT_EQ(nccl.size(), 2u);

  const TraceEvent* k = FindByName(r.events, "ncclKernel_AllReduce");
  ASSERT_NE(k, nullptr);
  // ts 4458677009853.422 us, dur 2636.669 us, base 1711964646000000000 ns.
  EXPECT_EQ(k->local_ts_ns, 1711964646000000000 + 4458677009853422);
  EXPECT_EQ(k->dur_ns, 2636669);
  EXPECT_EQ(k->device, "gpu0");
  EXPECT_EQ(k->rank, 0);
  EXPECT_EQ(k->pid, 0);
  EXPECT_EQ(k->tid, 40);
  EXPECT_EQ(k->category, "kernel");
  EXPECT_EQ(k->context, "corr=60047;coll=allreduce;pg=0");
  EXPECT_EQ(k->source_file, k2Rank);
  EXPECT_GT(k->byte_offset, 0);
  const auto ci = ParseNcclKernelName(k->type);
  EXPECT_EQ(ci.algo, "RING");
  EXPECT_EQ(ci.proto, "LL");
  EXPECT_EQ(ci.dtype, "float");
  const auto bc = ParseNcclKernelName(FindByName(r.events, "ncclKernel_Broadcast")->type);
  EXPECT_EQ(bc.collective, "Broadcast");
  EXPECT_EQ(bc.proto, "LL");

  // Flow ends carry their id as context; string pids read as -1 on the CPU.
  const TraceEvent* f = nullptr;
  for (const auto& e : r.events) {
    if (e.phase == 'f') {
      f = &e;
      break;
    }
  }
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->context.rfind("id=", 0), 0u);
  int string_pid = 0;
  for (const auto& e : r.events) string_pid += e.pid == -1 ? 1 : 0;
  EXPECT_EQ(string_pid, 3);  // 2 'i' + 1 'X' Trace span (the 4th is an M event)
}

TEST(ChromeTraceGolden, MetadataEventsAndHostRankOverride) {
  ChromeTraceOptions opt;
  opt.include_metadata_events = true;
  opt.host = "node-a";
  opt.rank_override = 5;
  Read r = ReadFile(k128R1, opt);
  ASSERT_TRUE(r.info.ok());
  EXPECT_EQ(r.events.size(), 4720u);
  int m = 0;
  for (const auto& e : r.events) {
    EXPECT_EQ(e.host, "node-a");
    EXPECT_EQ(e.rank, 5);
    if (e.phase == 'M') ++m;
  }
  EXPECT_EQ(m, 44);
  const auto first_m = std::find_if(r.events.begin(), r.events.end(), [](const TraceEvent& e) { return e.phase == 'M'; });
  ASSERT_NE(first_m, r.events.end());
  EXPECT_EQ(first_m->type, "process_name");
  EXPECT_EQ(first_m->context, "pyper:trainer:0:1");
  EXPECT_EQ(first_m->pid, 4045);
}

TEST(ChromeTraceGolden, Sampled128RankRank0PlainJson) {
  Read r = ReadFile(k128R0);
  ASSERT_TRUE(r.info.ok()) << r.info.error().ToString();
  EXPECT_EQ(r.counts.read, 4855);
  EXPECT_EQ(r.counts.accepted, 4855);
  EXPECT_EQ(r.events.size(), 4811u);
  EXPECT_FALSE(r.info->has_base_time);
  EXPECT_FALSE(r.info->relative_axis);  // ts are already Unix-epoch microseconds
  EXPECT_EQ(r.info->distributed.rank, 0);
  EXPECT_EQ(r.info->distributed.world_size, 128);
  EXPECT_EQ(r.info->distributed.backend, "nccl");
  EXPECT_EQ(r.info->distributed.nccl_version, "");
  int sendrecv = 0;
  int kernels = 0;
  const TraceEvent* first = nullptr;
  for (const auto& e : r.events) {
    if (e.category == "kernel") ++kernels;
    if (e.type.rfind("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", 0) == 0) {
      ++sendrecv;
      if (first == nullptr) first = &e;
      const auto c = ParseNcclKernelName(e.type);
      EXPECT_EQ(c.collective, "SendRecv");
      EXPECT_EQ(c.algo, "RING");
      EXPECT_EQ(c.proto, "SIMPLE");
      EXPECT_EQ(c.redop, "Sum");
      EXPECT_EQ(c.dtype, "int8_t");
    }
  }
  EXPECT_EQ(sendrecv, 10);
  EXPECT_EQ(kernels, 1154);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->local_ts_ns, 1682725898094377000);
  EXPECT_EQ(first->dur_ns, 30669000);
  EXPECT_EQ(first->device, "gpu0");
  EXPECT_EQ(first->tid, 84);
  EXPECT_EQ(first->context, "corr=6937369");
  EXPECT_EQ(first->rank, 0);
}

TEST(ChromeTraceGolden, Sampled128RankRank1Gzip) {
  Read r = ReadFile(k128R1);
  ASSERT_TRUE(r.info.ok()) << r.info.error().ToString();
  EXPECT_EQ(r.counts.read, 4720);
  EXPECT_EQ(r.counts.accepted, 4720);
  EXPECT_EQ(r.events.size(), 4676u);
  EXPECT_EQ(r.info->distributed.rank, 1);
  EXPECT_EQ(r.info->distributed.world_size, 128);
  int sendrecv = 0;
  for (const auto& e : r.events) {
    if (e.type.rfind("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", 0) == 0) {
      ++sendrecv;
      EXPECT_EQ(e.device, "gpu1");
      EXPECT_EQ(e.rank, 1);
    }
  }
  EXPECT_EQ(sendrecv, 10);
  const TraceEvent* k = FindByName(r.events, "ncclKernel_SendRecv");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->local_ts_ns, 1682725898129911000);
  EXPECT_EQ(k->context, "corr=6907311");
}

TEST(ChromeTraceGolden, OnePassOverStreamWarnsAboutLateBaseTime) {
  // Kineto writes baseTimeNanoseconds after traceEvents (as in the 2-rank fixture).
  const std::string text =
      R"({"traceEvents":[{"ph":"X","name":"k","ts":1.5,"dur":1}],"baseTimeNanoseconds":1711964646000000000})";
  auto in = MakeStringInputStream(text, "mem");
  Diagnostics diag;
  ReadCounts counts;
  std::vector<TraceEvent> ev;
  auto info = ReadChromeTraceOnePass(*in, "mem", {}, [&](TraceEvent&& e) { ev.push_back(std::move(e)); }, diag,
                                     counts);
  ASSERT_TRUE(info.ok());
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(info->has_base_time);    // learnt at the end
  EXPECT_EQ(ev[0].local_ts_ns, 1500);  // but not applied to the event already read
  EXPECT_EQ(diag.warnings_total(), 1);
  EXPECT_TRUE(counts.Balanced());
  // The two-pass reader applies it.
  Read r = ReadText(text);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].local_ts_ns, 1711964646000001500);
  EXPECT_EQ(r.diag.warnings_total(), 0);
}

TEST(ChromeTraceGolden, TruncatedFixtureKeepsEventsBeforeTheCut) {
  const std::string full = Slurp(k128R0);
  const size_t cut = full.size() / 2;
  Read whole = ReadText(full);
  ASSERT_TRUE(whole.info.ok());
  Read r = ReadText(std::string_view(full).substr(0, cut));
  ASSERT_TRUE(r.info.ok()) << r.info.error().ToString();
  EXPECT_TRUE(r.info->truncated);
  EXPECT_EQ(r.info->error_byte_offset, static_cast<int64_t>(cut));  // where the input ends
  EXPECT_EQ(r.diag.rejected_total(), 1);
  ASSERT_EQ(r.diag.items().size(), 1u);
  EXPECT_EQ(r.diag.items()[0].byte_offset, static_cast<int64_t>(cut));
  EXPECT_NE(r.diag.items()[0].reason.find("breaks off"), std::string::npos);
  EXPECT_TRUE(r.counts.Balanced());
  EXPECT_EQ(r.counts.rejected, 1);
  // Every complete event before the cut came out, identical to the full read's.
  ASSERT_GT(r.events.size(), 1000u);
  ASSERT_LT(r.events.size(), whole.events.size());
  for (size_t i = 0; i < r.events.size(); ++i) ASSERT_EQ(r.events[i], whole.events[i]) << i;
  EXPECT_LT(r.events.back().byte_offset, static_cast<int64_t>(cut));
  // distributedInfo precedes the events in this file, so the rank is known.
  EXPECT_EQ(r.events[0].rank, 0);
}

TEST(ChromeTraceGolden, NcclExampleProfilerNotJson) {
  // Bare 0x... and ncclFloat32 values, a curly quote, then a README ellipsis that breaks the JSON.
  Read r = ReadFile(kProfiler);
  ASSERT_TRUE(r.info.ok()) << r.info.error().ToString();
  EXPECT_TRUE(r.info->array_form);
  EXPECT_TRUE(r.info->truncated);
  EXPECT_EQ(r.diag.rejected_total(), 1);
  EXPECT_TRUE(r.counts.Balanced());
  // The 41 events before the README's "... [ trace truncated for brevity ]" line (the lenient
  // pass rescues the unquoted values and the curly quote).
  ASSERT_EQ(r.events.size(), 41u);
  EXPECT_EQ(r.events[0].type, "Group API");
  EXPECT_EQ(r.events[0].phase, 'b');
  EXPECT_EQ(r.events[0].category, "GROUP_API");
  EXPECT_EQ(r.events[0].local_ts_ns, 3433595);  // 3433.595001 us
  EXPECT_TRUE(r.info->relative_axis);
  EXPECT_EQ(r.events[1].type, "KernelLaunch");  // had "Stream": 0x5020000567d0
  EXPECT_EQ(r.events[3].category, "COLL_API");  // had "datatype": ncclFloat32
  EXPECT_EQ(r.events[4].context, "id=0;seq=0;comm=1493613951195738943");
  EXPECT_EQ(r.events[9].type, "RecvWait");      // had a curly opening quote
  const std::string text = Slurp(kProfiler);
  EXPECT_EQ(r.diag.items()[0].byte_offset, static_cast<int64_t>(text.find("... [ trace truncated")));
  EXPECT_EQ(r.events.back().type, "SendPeerWait");

  // Strict mode: stops at the first bare value, still no crash.
  ChromeTraceOptions strict;
  strict.lenient_hex = false;
  Read s = ReadFile(kProfiler, strict);
  ASSERT_TRUE(s.info.ok());
  EXPECT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.diag.rejected_total(), 1);
  EXPECT_EQ(s.diag.items()[0].byte_offset, static_cast<int64_t>(text.find("0x5020000567d0")) + 1);  // the 'x'
}

// --- Synthetic inputs ------------------------------------------------------------------------

TEST(ChromeTraceParse, ExactTimestampsAndPhases) {
  const std::string t = R"({"traceEvents":[
    {"ph":"X","name":"a","pid":1,"tid":2,"ts":1.0005,"dur":0.0004},
    {"ph":"X","name":"b","pid":1,"tid":2,"ts":-0.0015,"dur":1e-3},
    {"ph":"i","name":"c","pid":1,"tid":2,"ts":1682725898236567.123,"s":"g"},
    {"ph":"B","name":"d","pid":1,"tid":2,"ts":10},
    {"ph":"E","name":"d","pid":1,"tid":2,"ts":12.5},
    {"ph":"C","name":"mem","pid":1,"tid":0,"ts":3,"args":{"used":10,"free":2.5,"label":"x"}},
    {"ph":"b","name":"e","cat":"COLL","id":"0x1f","pid":1,"tid":2,"ts":4,"args":{"SeqNum":3,"CommHash":18446744073709551615}},
    {"ph":"s","id":7,"pid":1,"tid":2,"ts":5,"cat":"ac2g","name":"ac2g"}
  ]})";
  Read r = ReadText(t);
  ASSERT_TRUE(r.info.ok());
  EXPECT_EQ(r.counts.read, 8);
  EXPECT_EQ(r.counts.accepted, 8);
  ASSERT_EQ(r.events.size(), 9u);  // the counter has two numeric series
  EXPECT_EQ(r.events[0].local_ts_ns, 1001);  // 1000.5 ns rounds half away from zero
  EXPECT_EQ(r.events[0].dur_ns, 0);          // 0.4 ns
  EXPECT_EQ(r.events[1].local_ts_ns, -2);
  EXPECT_EQ(r.events[1].dur_ns, 1);
  EXPECT_EQ(r.events[2].local_ts_ns, 1682725898236567123);
  EXPECT_EQ(r.events[2].phase, 'i');
  EXPECT_EQ(r.events[3].phase, 'B');
  EXPECT_EQ(r.events[4].local_ts_ns, 12500);
  EXPECT_EQ(r.events[5].phase, 'C');
  EXPECT_EQ(r.events[5].context, "used");
  EXPECT_EQ(r.events[5].value, 10.0);
  EXPECT_EQ(r.events[6].context, "free");
  EXPECT_EQ(r.events[6].value, 2.5);
  EXPECT_EQ(r.events[7].context, "id=0x1f;seq=3;comm=18446744073709551615");
  EXPECT_EQ(r.events[8].context, "id=7");
  EXPECT_TRUE(r.info->relative_axis);
  for (const auto& e : r.events) EXPECT_EQ(e.device, "cpu");
}

TEST(ChromeTraceParse, RejectsMalformedEventsWithByteOffsets) {
  const std::string t = R"({"traceEvents":[
{"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":1},
{"ph":"X","name":"no ts","pid":1,"tid":1,"dur":1},
{"ph":"X","name":"str ts","pid":1,"tid":1,"ts":"12"},
{"ph":"Q","name":"bad ph","ts":1},
{"name":"no ph","ts":1},
{"ph":"X","name":"neg dur","ts":1,"dur":-5},
{"ph":"X","name":"huge","ts":1e300},
{"ph":"X","name":"huge2","ts":99999999999999999999},
{"ph":"C","name":"nothing","ts":1,"args":{"a":"b"}},
42,
[1,2],
{"ph":"X","name":"ok2","ts":2}
]})";
  Read r = ReadText(t);
  ASSERT_TRUE(r.info.ok());
  EXPECT_EQ(r.counts.read, 12);
  EXPECT_EQ(r.counts.accepted, 2);
  EXPECT_EQ(r.counts.rejected, 10);
  EXPECT_TRUE(r.counts.Balanced());
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[1].type, "ok2");
  std::vector<std::string> reasons;
  for (const auto& d : r.diag.items()) {
    reasons.push_back(d.reason);
    EXPECT_GE(d.byte_offset, 0);
    EXPECT_EQ(d.line, 0);
  }
  ASSERT_EQ(reasons.size(), 10u);
  EXPECT_EQ(reasons[0], "missing ts");
  EXPECT_EQ(reasons[1], "ts is not a number");
  EXPECT_EQ(reasons[2], "unknown ph 'Q'");
  EXPECT_EQ(reasons[3], "missing ph");
  EXPECT_EQ(reasons[4], "dur is negative");
  EXPECT_EQ(reasons[5], "ts out of range");
  EXPECT_EQ(reasons[6], "ts out of range");
  EXPECT_EQ(reasons[8], "trace event is not an object");
  // The offset points at the event's '{'.
  EXPECT_EQ(t[static_cast<size_t>(r.diag.items()[0].byte_offset)], '{');
  EXPECT_EQ(t.substr(static_cast<size_t>(r.diag.items()[0].byte_offset), 25), R"({"ph":"X","name":"no ts",)");
}

TEST(ChromeTraceParse, BadInputs) {
  for (std::string_view bad : {std::string_view(""), std::string_view("   \n"), std::string_view("42"),
                               std::string_view("\"x\""), std::string_view("\x01\x02\xff\xfe garbage"),
                               std::string_view("{\"a\":1}"), std::string_view("header,value\n1,2\n")}) {
    Read r = ReadText(bad);
    EXPECT_FALSE(r.info.ok()) << bad;
    EXPECT_TRUE(r.counts.Balanced());
    EXPECT_TRUE(r.events.empty());
  }
  // Empty trace: fine, nothing read.
  Read e = ReadText(R"({"traceEvents":[]})");
  ASSERT_TRUE(e.info.ok());
  EXPECT_EQ(e.counts.read, 0);
  Read a = ReadText("[]");
  ASSERT_TRUE(a.info.ok());
  EXPECT_TRUE(a.info->array_form);
  // Truncated before the events: usable (empty) with one diagnostic.
  Read t = ReadText(R"({"schemaVersion":1,"traceEv)");
  ASSERT_TRUE(t.info.ok());
  EXPECT_TRUE(t.info->truncated);
  EXPECT_EQ(t.diag.rejected_total(), 1);
  EXPECT_TRUE(t.counts.Balanced());
  // Deep nesting inside args does not recurse or crash.
  std::string deep = R"({"traceEvents":[{"ph":"X","name":"n","ts":1,"args":{"x":)";
  for (int i = 0; i < 100000; ++i) deep += '[';
  for (int i = 0; i < 100000; ++i) deep += ']';
  deep += "}}]}";
  Read d = ReadText(deep);
  ASSERT_TRUE(d.info.ok());
  EXPECT_EQ(d.events.size(), 1u);
  // Trailing junk after the document: events kept, one diagnostic.
  Read j = ReadText(R"({"traceEvents":[{"ph":"i","name":"n","ts":1}]} junk)");
  ASSERT_TRUE(j.info.ok());
  EXPECT_EQ(j.events.size(), 1u);
  EXPECT_EQ(j.diag.rejected_total(), 1);
  EXPECT_TRUE(j.counts.Balanced());
}

TEST(ChromeTraceParse, DuplicatesAndOutOfOrderAreKept) {
  const std::string t = R"({"traceEvents":[
    {"ph":"X","name":"a","ts":5,"dur":1},{"ph":"X","name":"a","ts":5,"dur":1},{"ph":"X","name":"b","ts":1,"ts":2}
  ],"baseTimeNanoseconds":1000})";
  Read r = ReadText(t);
  ASSERT_TRUE(r.info.ok());
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.events[0], r.events[0]);
  EXPECT_EQ(r.events[0].local_ts_ns, 6000);
  EXPECT_EQ(r.events[2].local_ts_ns, 3000);  // last duplicate key wins; base applied (2 passes)
}

// --- Writer ----------------------------------------------------------------------------------

std::vector<TraceEvent> SampleEvents() {
  std::vector<TraceEvent> v;
  TraceEvent k;
  k.local_ts_ns = 1711964646000000000 + 4458677009853422;
  k.dur_ns = 2636669;
  k.host = "node-1";
  k.rank = 3;
  k.device = "gpu3";
  k.type = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
  k.category = "kernel";
  k.context = "corr=60047;coll=allreduce;pg=0";
  k.pid = 3;
  k.tid = 7;
  v.push_back(k);
  TraceEvent c = k;  // odd context, odd device, unicode, no rank
  c.context = "my context; with = signs";
  c.device = "nic0 \"mlx5\"";
  c.type = "caf\xC3\xA9 \\ \t";
  c.rank = -1;
  c.host = "";
  c.local_ts_ns = -1;
  c.dur_ns = 0;
  c.phase = 'i';
  c.category = "";
  v.push_back(c);
  TraceEvent b = k;
  b.phase = 'b';
  b.context = "id=17;seq=4;comm=12715772615376301750";
  b.device = "cpu";
  b.dur_ns = 0;
  v.push_back(b);
  TraceEvent e = b;
  e.phase = 'e';
  e.local_ts_ns += 999;
  v.push_back(e);
  TraceEvent x = k;
  x.context = "seq=1;corr=2";  // not canonical order: travels verbatim
  x.device = "gpu03";
  v.push_back(x);
  TraceEvent y = k;
  y.context = "corr=007";  // not a canonical integer
  v.push_back(y);
  return v;
}

TEST(ChromeTraceWriter, RoundTripWithBaseTime) {
  ChromeTraceInfo meta;
  meta.has_base_time = true;
  meta.base_time_ns = 1711964646000000000;
  meta.schema_version = 1;
  meta.trace_name = "sim";
  meta.distributed.present = true;
  meta.distributed.backend = "nccl";
  meta.distributed.rank = 3;
  meta.distributed.world_size = 8;
  meta.distributed.nccl_version = "2.21.5";
  meta.distributed.pg_count = 1;
  meta.distributed.pg_config.push_back({"0", "default_pg", "cuda:nccl", 8, {0, 1, 2, 3, 4, 5, 6, 7}});
  meta.devices.push_back({3, "NVIDIA H100 80GB HBM3", 85000000000, 9, 0, 132});
  auto events = SampleEvents();
  const std::string text = WriteChromeTrace(events, &meta);
  Diagnostics diag;
  ReadCounts counts;
  ChromeTraceInfo info;
  auto back = ParseChromeTraceEvents(text, "rt", {}, diag, counts, &info);
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(counts.rejected, 0) << (diag.items().empty() ? "" : diag.items()[0].ToString());
  ASSERT_EQ(back->size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    TraceEvent got = (*back)[i];
    got.source_file.clear();
    got.byte_offset = -1;
    EXPECT_EQ(got, events[i]) << i << "\n" << text;
  }
  EXPECT_EQ(info.base_time_ns, meta.base_time_ns);
  EXPECT_EQ(info.distributed, meta.distributed);
  EXPECT_EQ(info.devices, meta.devices);
  EXPECT_EQ(info.trace_name, "sim");
  EXPECT_EQ(info.display_time_unit, "ns");
  // ts in microseconds with exactly 3 decimals, relative to the base.
  EXPECT_NE(text.find("\"ts\":4458677009853.422,\"dur\":2636.669"), std::string::npos) << text;
  EXPECT_EQ(text.rfind("{\"displayTimeUnit\":\"ns\",", 0), 0u);
  EXPECT_NE(text.find("\"correlation\":60047"), std::string::npos);
  EXPECT_NE(text.find("\"Collective name\":\"allreduce\""), std::string::npos);
  EXPECT_NE(text.find("\"CommHash\":12715772615376301750"), std::string::npos);
  EXPECT_NE(text.find("\"id\":17"), std::string::npos);
}

TEST(ChromeTraceWriter, RoundTripWithoutBaseAndMergedTimelineLayout) {
  std::ostringstream os;
  auto events = SampleEvents();
  {
    ChromeTraceWriter w(os);
    w.WriteProcessName(1, "node-1");
    w.WriteProcessSortIndex(1, 1);
    w.WriteThreadName(1, 3, "gpu3");
    w.WriteThreadSortIndex(1, 3, 3);
    w.WriteProcessLabels(2, "GPU 5");
    for (const auto& e : events) w.Write(e);
    TraceEvent c;
    c.phase = 'C';
    c.type = "nvlink_tx";
    c.context = "bytes";
    c.value = 1.25e9;
    c.local_ts_ns = 1000;
    c.device = "cpu";
    c.pid = 1;
    w.Write(c);
    EXPECT_TRUE(w.Finish());
    EXPECT_EQ(w.events_written(), static_cast<int64_t>(events.size()) + 1);
  }
  const std::string text = os.str();
  // Valid JSON as a whole (Perfetto's legacy importer needs that).
  auto j = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["traceEvents"].size(), events.size() + 6);
  EXPECT_EQ(j["traceEvents"][0]["args"]["name"], "node-1");
  Diagnostics diag;
  ReadCounts counts;
  ChromeTraceOptions opt;
  opt.include_metadata_events = true;
  ChromeTraceInfo info;
  auto back = ParseChromeTraceEvents(text, "rt", opt, diag, counts, &info);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(counts.rejected, 0);
  ASSERT_EQ(back->size(), events.size() + 6);
  EXPECT_EQ(info.process_names.at(1), "node-1");
  EXPECT_EQ(info.thread_names.at({1, 3}), "gpu3");
  EXPECT_EQ((*back)[0].phase, 'M');
  EXPECT_EQ((*back)[0].context, "node-1");
  EXPECT_EQ((*back)[1].context, "1");
  for (size_t i = 0; i < events.size(); ++i) {
    TraceEvent got = (*back)[i + 5];
    got.source_file.clear();
    got.byte_offset = -1;
    EXPECT_EQ(got, events[i]) << i;
  }
  const TraceEvent& c = back->back();
  EXPECT_EQ(c.phase, 'C');
  EXPECT_EQ(c.value, 1.25e9);
  EXPECT_EQ(c.context, "bytes");
  EXPECT_EQ(c.local_ts_ns, 1000);
  EXPECT_FALSE(info.has_base_time);
}

TEST(ChromeTraceWriter, FormatUs) {
  EXPECT_EQ(FormatUsFromNs(0), "0.000");
  EXPECT_EQ(FormatUsFromNs(1), "0.001");
  EXPECT_EQ(FormatUsFromNs(-1), "-0.001");
  EXPECT_EQ(FormatUsFromNs(123456789), "123456.789");
  EXPECT_EQ(FormatUsFromNs(INT64_MIN), "-9223372036854775.808");
  EXPECT_EQ(FormatUsFromNs(INT64_MAX), "9223372036854775.807");
}

TEST(ChromeTraceWriter, ExtremeTimestampsRoundTrip) {
  std::vector<TraceEvent> v(2);
  v[0].local_ts_ns = INT64_MAX;
  v[0].device = "cpu";
  v[0].type = "max";
  v[1].local_ts_ns = INT64_MIN + 1;
  v[1].device = "cpu";
  v[1].type = "min";
  const std::string text = WriteChromeTrace(v);
  Diagnostics diag;
  ReadCounts counts;
  auto back = ParseChromeTraceEvents(text, "rt", {}, diag, counts);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].local_ts_ns, INT64_MAX);
  EXPECT_EQ((*back)[1].local_ts_ns, INT64_MIN + 1);
}

// The lenient filter is linear in its input: a string of escapes (each backslash once made it
// search the rest of its 64 KiB chunk for the closing quote) reads in a moment, its event kept.
TEST(ChromeTrace, LongEscapedStringIsLinear) {
  std::string escapes;
  for (int i = 0; i < (1 << 21); ++i) escapes += "\\\\";  // 4 MiB of escaped backslashes
  const std::string text = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"" + escapes +
                           "\",\"ts\":1,\"dur\":2,\"pid\":0,\"tid\":0}]}";
  Diagnostics diag;
  ReadCounts counts;
  const auto t0 = std::chrono::steady_clock::now();
  auto events = ParseChromeTraceEvents(text, "escapes", {}, diag, counts);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(events.ok()) << events.error().ToString();
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].type.size(), size_t{1} << 21);
  EXPECT_LT(s, 2.0) << "4 MiB of escapes took " << s << " s";
}

// --- distributedInfo rank lists ---------------------------------------------------------------

DistributedInfo WideDistributedInfo(int world) {
  DistributedInfo d;
  d.present = true;
  d.backend = "nccl";
  d.rank = 7;
  d.world_size = world;
  d.pg_count = 2;
  ProcessGroupConfig all{"0", "default_pg", "cuda:nccl", world, {}};
  all.ranks.AppendRun(0, world - 1);
  d.pg_config.push_back(std::move(all));
  // Out of order, repeated, descending, the int extremes.
  d.pg_config.push_back({"1", "odd", "cuda:nccl", 9, {5, 3, 3, 4, 5, 6, 0, 0, 2147483647, -2147483648, -1, 9, 8}});
  return d;
}

// Every rank of a 100,000-rank job listed in pg_config reads back whole (no cut, no warning), as
// one run, equal to what was written; so does a list out of order with repeats.
TEST(ChromeTraceRanks, HundredThousandRanksRoundTripWhole) {
  ChromeTraceInfo meta;
  meta.distributed = WideDistributedInfo(100000);
  const std::string text = WriteChromeTrace(SampleEvents(), &meta);
  EXPECT_NE(text.find(",99998,99999]}"), std::string::npos);
  Read r = ReadText(text);
  ASSERT_TRUE(r.info.ok()) << r.info.error().ToString();
  EXPECT_TRUE(r.diag.items().empty()) << r.diag.items()[0].ToString();
  EXPECT_EQ(r.counts.rejected, 0);
  const DistributedInfo& got = r.info->distributed;
  EXPECT_EQ(got, meta.distributed);
  ASSERT_EQ(got.pg_config.size(), 2u);
  EXPECT_EQ(got.pg_config[0].ranks.size(), 100000u);
  ASSERT_EQ(got.pg_config[0].ranks.runs().size(), 1u);
  EXPECT_EQ(got.pg_config[0].ranks.runs()[0], (RankRun{0, 99999}));
  EXPECT_EQ(got.pg_config[1].ranks.ToVector(),
            (std::vector<int>{5, 3, 3, 4, 5, 6, 0, 0, 2147483647, -2147483648, -1, 9, 8}));
  // Written again, the same bytes.
  ChromeTraceInfo again = *r.info;
  EXPECT_EQ(WriteChromeTrace(SampleEvents(), &again), text);
}

TEST(ChromeTraceRanks, RunsAreCanonical) {
  RankList a{0, 1, 2, 5, 6, 2, 3};
  EXPECT_EQ(a.size(), 7u);
  EXPECT_EQ(a.runs(), (std::vector<RankRun>{{0, 2}, {5, 6}, {2, 3}}));
  RankList b;
  b.AppendRun(0, 1);
  b.Append(2);
  b.AppendRun(5, 6);
  b.AppendRun(2, 3);
  b.AppendRun(9, 8);  // empty
  EXPECT_EQ(a, b);
  EXPECT_NE(a, (RankList{0, 1, 2, 5, 6, 2}));
  RankList top{2147483646, 2147483647, -2147483648};
  EXPECT_EQ(top.runs().size(), 2u);
  EXPECT_EQ(top.ToVector(), (std::vector<int>{2147483646, 2147483647, -2147483648}));
}

// Members that are not integers (and anything nested) are not ranks; a later "ranks" member wins,
// as a later value of any member does; the same in a string-valued distributedInfo.
TEST(ChromeTraceRanks, OddRankMembers) {
  const std::string di = R"({"rank":1,"pg_config":[{"pg_name":"a","ranks":[0,1.5,"2",[3,4],{"r":5},true,null,6,7]},)"
                         R"({"pg_name":"b","ranks":[1,2],"ranks":[9],"pg_size":1},)"
                         R"({"pg_name":"c","ranks":7},"junk",{"pg_name":"d","ranks":[4294967297,-1]}]})";
  for (const bool as_string : {false, true}) {
    std::string quoted;
    if (as_string) {
      quoted = nlohmann::json(di).dump();
    }
    const std::string text = R"({"distributedInfo":)" + (as_string ? quoted : di) +
                             R"(,"traceEvents":[{"ph":"X","name":"k","ts":1,"dur":1,"pid":0,"tid":0}]})";
    Read r = ReadText(text);
    ASSERT_TRUE(r.info.ok()) << r.info.error().ToString();
    const DistributedInfo& d = r.info->distributed;
    ASSERT_EQ(d.pg_config.size(), 4u) << as_string;
    EXPECT_EQ(d.rank, 1);
    EXPECT_EQ(d.pg_config[0].ranks.ToVector(), (std::vector<int>{0, 6, 7}));
    EXPECT_EQ(d.pg_config[1].ranks.ToVector(), (std::vector<int>{9}));
    EXPECT_EQ(d.pg_config[1].pg_size, 1);
    EXPECT_TRUE(d.pg_config[2].ranks.empty());
    EXPECT_EQ(d.pg_config[3].pg_name, "d");
    EXPECT_EQ(d.pg_config[3].ranks.ToVector(), (std::vector<int>{1, -1}));  // low 32 bits
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].rank, 1);
  }
}

// Past 100,000 values the rest of a metadata value is dropped, with a warning; rank lists do not
// count against that cap and are kept whole.
TEST(ChromeTraceRanks, CapWarnsAndSparesRankLists) {
  std::string di = R"({"rank":2,"pg_config":[{"pg_name":"0","ranks":[)";
  for (int i = 0; i < 150000; ++i) di += (i > 0 ? "," : "") + std::to_string(i * 2);
  di += R"(]}],"extra":[)";
  for (int i = 0; i < 100010; ++i) di += (i > 0 ? ",1" : "1");
  di += R"(],"nccl_version":"late"})";
  const std::string text = R"({"distributedInfo":)" + di + R"(,"traceEvents":[]})";
  Read r = ReadText(text);
  ASSERT_TRUE(r.info.ok()) << r.info.error().ToString();
  const DistributedInfo& d = r.info->distributed;
  ASSERT_EQ(d.pg_config.size(), 1u);
  EXPECT_EQ(d.pg_config[0].ranks.size(), 150000u);
  EXPECT_EQ(d.pg_config[0].ranks.runs().size(), 150000u);
  EXPECT_EQ(d.pg_config[0].ranks.ToVector().back(), 299998);
  EXPECT_EQ(d.rank, 2);
  EXPECT_EQ(d.nccl_version, "");  // past the cap
  ASSERT_EQ(r.diag.items().size(), 1u);
  EXPECT_EQ(r.diag.warnings_total(), 1);
  EXPECT_EQ(r.diag.rejected_total(), 0);
  EXPECT_NE(r.diag.items()[0].reason.find("only the first 100000 values of distributedInfo were read"),
            std::string::npos)
      << r.diag.items()[0].reason;
}

// The emit pass skips the bytes of the metadata the scan pass read: event offsets and the place
// and message of a break after it stay those of a read that lexes every byte (the one-pass read).
TEST(ChromeTraceRanks, SkippedMetadataKeepsOffsetsAndBreaks) {
  ChromeTraceInfo meta;
  meta.distributed = WideDistributedInfo(5000);
  meta.devices.push_back({0, "NVIDIA H100", 85000000000, 9, 0, 132});
  std::string text = WriteChromeTrace(SampleEvents(), &meta);
  text.insert(text.find("\"distributedInfo\":{") + 19, "\n  ");  // a newline inside the skipped value
  text.resize(text.size() - 4);
  text += ",{\"ph\":\"X\",\"name\":\"cut\",\"ts\":1,\"dur\":1,\"pid\":0,\"tid\":0} x]}";
  Read two = ReadText(text);
  Read one;
  auto in = MakeStringInputStream(text, "mem");
  one.info = ReadChromeTraceOnePass(*in, "mem", {}, [&](TraceEvent&& e) { one.events.push_back(std::move(e)); },
                                    one.diag, one.counts);
  ASSERT_TRUE(two.info.ok() && one.info.ok());
  EXPECT_TRUE(two.info->truncated);
  EXPECT_EQ(two.info->error_byte_offset, one.info->error_byte_offset);
  EXPECT_EQ(two.info->distributed, meta.distributed);
  ASSERT_EQ(two.events.size(), one.events.size());
  for (size_t i = 0; i < one.events.size(); ++i) EXPECT_EQ(two.events[i], one.events[i]) << i;
  ASSERT_EQ(two.diag.items().size(), one.diag.items().size());
  for (size_t i = 0; i < one.diag.items().size(); ++i) {
    EXPECT_EQ(two.diag.items()[i].ToString(), one.diag.items()[i].ToString());
  }
  const auto off = static_cast<std::ptrdiff_t>(two.info->error_byte_offset);
  const std::string line = "at line " + std::to_string(1 + std::count(text.begin(), text.begin() + off, '\n')) + ",";
  EXPECT_NE(two.diag.items().back().reason.find(line), std::string::npos) << two.diag.items().back().reason;
}

// Rank lists the reader lexes beside the parser: a list that breaks off (or holds what is not a
// plain integer) reads as the one-pass reader, which leaves every byte to the parser, reads it.
TEST(ChromeTraceRanks, BrokenRankListsReadAsOnePass) {
  std::string ranks;
  for (int i = 0; i < 20000; ++i) ranks += std::to_string(i) + ",";
  const std::vector<std::string> lists = {ranks + "x]",  ranks + "01,5]", ranks + "-,5]", ranks + "]",
                                          ranks + "12345678901234567890,-0,-7]", ranks + "7]"};
  for (const std::string& list : lists) {
    const std::string text = R"({"distributedInfo":{"rank":3,"pg_config":[{"pg_name":"0","ranks":[)" + list +
                             R"(}]},"traceEvents":[{"ph":"X","name":"k","ts":1,"dur":1,"pid":0,"tid":0}]})";
    Read two = ReadText(text);
    Read one;
    auto in = MakeStringInputStream(text, "mem");
    one.info = ReadChromeTraceOnePass(*in, "mem", {}, [&](TraceEvent&& e) { one.events.push_back(std::move(e)); },
                                      one.diag, one.counts);
    ASSERT_EQ(two.info.ok(), one.info.ok()) << list.substr(list.size() - 20);
    ASSERT_EQ(two.diag.items().size(), one.diag.items().size());
    for (size_t i = 0; i < one.diag.items().size(); ++i) {
      EXPECT_EQ(two.diag.items()[i].ToString(), one.diag.items()[i].ToString());
    }
    EXPECT_EQ(two.events, one.events);
    if (!one.info.ok()) continue;
    EXPECT_EQ(two.info->distributed, one.info->distributed);
    EXPECT_EQ(two.info->truncated, one.info->truncated);
    EXPECT_EQ(two.info->error_byte_offset, one.info->error_byte_offset);
  }
}

}  // namespace chrome_trace_test
}  // namespace toposcope::formats
