// Golden tests of the nccl-tests output reader: the two fixtures (2.15+ device lines, 16 ranks
// over two H100 hosts; `-g 2` on two RTX 2080 Ti), the real excerpts in testdata/real/nccl_tests
// (old device lines without Group, broadcast with root and N/A, repeated headers of a non-MPI
// build under mpirun, markdown that lost the '#', rank tags inside rows), OpenMPI --tag-output and
// srun --label prefixes, several runs in one file, the accounting identity and bad inputs.
#include "toposcope/formats/nccl/nccl_tests.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace toposcope::formats {
namespace nccl_tests_test {

const std::string kFixtures = std::string(TOPOSCOPE_FIXTURES) + "/nccl_tests/";
const std::string kReal = std::string(TOPOSCOPE_TESTDATA) + "/real/nccl_tests/";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

NcclTestsReport MustParse(const std::string& text, const std::string& source, Diagnostics& diag) {
  auto r = ParseNcclTests(text, source, diag);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
  if (!r.ok()) return {};
  EXPECT_EQ(r->counts.accepted + r->counts.rejected, r->counts.read) << source;
  EXPECT_EQ(diag.RejectedFor(source), r->counts.rejected) << source;
  return *r;
}

TEST(NcclTests, GcpH100TwoNodes) {
  const std::string path = kFixtures + "gcp_a3mega_h100_2node16gpu_all_reduce_perf.txt";
  Diagnostics diag;
  const NcclTestsReport r = MustParse(Slurp(path), path, diag);
  ASSERT_EQ(r.runs.size(), 1u);
  const NcclTestsRun& run = r.runs[0];
  EXPECT_EQ(run.nthread, 1);
  EXPECT_EQ(run.ngpus, 1);
  EXPECT_EQ(run.min_bytes, 8);
  EXPECT_EQ(run.max_bytes, 8589934592LL);
  EXPECT_EQ(run.warmup_iters, 5);
  EXPECT_EQ(run.iters, 20);
  ASSERT_EQ(run.devices.size(), 16u);
  EXPECT_EQ(run.devices[0].rank, 0);
  EXPECT_EQ(run.devices[0].group, 0);
  EXPECT_EQ(run.devices[0].pid, 6899);
  EXPECT_EQ(run.devices[0].host, "ztan-mig-235z");
  EXPECT_EQ(run.devices[0].bus_id, "0000:04:00");
  EXPECT_EQ(run.devices[0].gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run.devices[15].host, "ztan-mig-gq73");
  EXPECT_EQ(run.devices[15].device, 7);
  EXPECT_EQ(run.devices[15].bus_id, "0000:8c:00");
  ASSERT_EQ(run.rows.size(), 31u);  // 8 B .. 8 GiB by factor 2
  EXPECT_EQ(run.rows[0].size_bytes, 8);
  EXPECT_EQ(run.rows[0].count, 2);
  EXPECT_EQ(run.rows[0].type, "float");
  EXPECT_EQ(run.rows[0].redop, "sum");
  EXPECT_EQ(run.rows[0].root, -1);
  EXPECT_DOUBLE_EQ(run.rows[0].out_of_place.time_us, 135.8);
  const NcclTestsRow& last = run.rows.back();
  EXPECT_EQ(last.size_bytes, 8589934592LL);
  EXPECT_DOUBLE_EQ(last.out_of_place.time_us, 47535);
  EXPECT_DOUBLE_EQ(last.out_of_place.algbw_gbps, 180.71);
  EXPECT_DOUBLE_EQ(last.out_of_place.busbw_gbps, 338.82);
  EXPECT_EQ(last.out_of_place.wrong, 0);
  EXPECT_DOUBLE_EQ(last.in_place.busbw_gbps, 337.35);
  ASSERT_TRUE(run.avg_busbw_gbps.has_value());
  EXPECT_DOUBLE_EQ(*run.avg_busbw_gbps, 70.742);
  ASSERT_TRUE(run.out_of_bounds.has_value());
  EXPECT_EQ(*run.out_of_bounds, 0);
  EXPECT_EQ(r.counts.rejected, 0);
}

TEST(NcclTests, TwoGpusOneProcess) {
  const std::string path = kFixtures + "autodl_rtx2080ti_1node2gpu_all_reduce_perf_g2.txt";
  Diagnostics diag;
  const NcclTestsReport r = MustParse(Slurp(path), path, diag);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].ngpus, 2);
  ASSERT_EQ(r.runs[0].devices.size(), 2u);
  EXPECT_EQ(r.runs[0].devices[0].pid, r.runs[0].devices[1].pid);  // one process drives both
  EXPECT_EQ(r.runs[0].devices[1].gpu_name, "NVIDIA GeForce RTX 2080 Ti");
  EXPECT_FALSE(r.runs[0].rows.empty());
  EXPECT_TRUE(r.runs[0].avg_busbw_gbps.has_value());
  EXPECT_EQ(r.counts.rejected, 0);
}

TEST(NcclTests, OldBroadcastWithRootAndNa) {
  const std::string path = kReal + "nccl_tests_issue82_v100_broadcast_root_na_excerpt.txt";
  Diagnostics diag;
  const NcclTestsReport r = MustParse(Slurp(path), path, diag);
  ASSERT_EQ(r.runs.size(), 1u);
  const NcclTestsRun& run = r.runs[0];
  ASSERT_EQ(run.devices.size(), 2u);
  EXPECT_EQ(run.devices[1].group, -1);  // no Group column before 2.12
  EXPECT_EQ(run.devices[1].host, "v100-gpu-5");
  EXPECT_EQ(run.devices[1].bus_id, "0x00");
  EXPECT_EQ(run.devices[1].gpu_name, "Tesla V100-PCIE-16GB");
  EXPECT_EQ(run.warmup_iters, 10);
  EXPECT_EQ(run.iters, 100);
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].redop, "");
  EXPECT_EQ(run.rows[0].root, 0);
  EXPECT_DOUBLE_EQ(run.rows[0].out_of_place.time_us, 45.82);
  EXPECT_EQ(run.rows[0].out_of_place.wrong, -1);  // N/A: validation off
  EXPECT_DOUBLE_EQ(run.rows[0].in_place.time_us, 38.17);
  EXPECT_FALSE(run.avg_busbw_gbps.has_value());
  EXPECT_EQ(r.counts.rejected, 0);
}

TEST(NcclTests, RepeatedHeadersOfOneRunMerge) {
  const std::string path = kReal + "nccl_tests_issue107_v100_two_ranks_repeated_header_excerpt.txt";
  Diagnostics diag;
  const NcclTestsReport r = MustParse(Slurp(path), path, diag);
  ASSERT_EQ(r.runs.size(), 1u);
  ASSERT_EQ(r.runs[0].devices.size(), 2u);
  EXPECT_EQ(r.runs[0].devices[0].host, "ip-172-31-20-228");
  EXPECT_EQ(r.runs[0].devices[1].host, "ip-172-31-22-230");
  EXPECT_EQ(r.runs[0].min_bytes, 1310720000);
  EXPECT_TRUE(r.runs[0].rows.empty());
}

TEST(NcclTests, MarkdownThatLostTheHash) {
  const std::string path = kReal + "nccl_tests_issue583_a100_no_hash_prefix_excerpt.txt";
  const std::string text = Slurp(path);
  EXPECT_TRUE(LooksLikeNcclTests(text));
  Diagnostics diag;
  const NcclTestsReport r = MustParse(text, path, diag);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].iters, 20);
  ASSERT_EQ(r.runs[0].devices.size(), 8u);
  EXPECT_EQ(r.runs[0].devices[7].pid, 1821223);
  EXPECT_EQ(r.runs[0].devices[7].gpu_name, "NVIDIA A100-SXM4-40GB");
}

TEST(NcclTests, RankTagsInsideRows) {
  const std::string path = kReal + "nccl_tests_issue1453_tagged_rows_excerpt.txt";
  Diagnostics diag;
  const NcclTestsReport r = MustParse(Slurp(path), path, diag);
  ASSERT_EQ(r.runs.size(), 1u);
  ASSERT_EQ(r.runs[0].rows.size(), 10u);
  EXPECT_EQ(r.runs[0].rows[0].size_bytes, 1048576);
  EXPECT_EQ(r.runs[0].rows[0].root, -1);
  EXPECT_DOUBLE_EQ(r.runs[0].rows[0].out_of_place.time_us, 1626.5);
  EXPECT_DOUBLE_EQ(r.runs[0].rows[0].in_place.busbw_gbps, 0.87);
  EXPECT_DOUBLE_EQ(r.runs[0].rows[6].out_of_place.time_us, 24410);
}

constexpr const char* kTagged =
    "[1,0]<stderr>:Authorization required, but no authorization protocol specified\n"
    "[1,0]<stdout>:# nccl-tests version 2.18.0 nccl-headers=22907 nccl-library=22907\n"
    "[1,0]<stdout>:# Collective test starting: all_reduce_perf_mpi\n"
    "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 10 iters: 50 "
    "agg iters: 1 validation: 1 graph: 0\n"
    "[1,0]<stdout>:#\n"
    "[1,0]<stdout>:# Using devices\n"
    "[1,0]<stdout>:#  Rank  0 Group  0 Pid 2994447 on        lab device  0 [0000:02:00] NVIDIA GeForce RTX 5090\n"
    "[1,0]<stdout>:#  Rank  1 Group  0 Pid 2994448 on        lab device  0 [0000:02:00] NVIDIA GeForce RTX 5090\n"
    "[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   "
    "algbw   busbw  #wrong \n"
    "[1,0]<stdout>:     1048576        262144     float     sum      -1  4366.46    0.24    0.24       0  4365.21    "
    "0.24    0.24       0\n"
    "[1,0]<stdout>:     2097152        524288     float     sum      -1  4370.57    0.48    0.48       0  4368.39    "
    "0.48    0.48       0\n"
    "[1,0]<stdout>:# Out of bounds values : 0 OK\n"
    "[1,0]<stdout>:# Avg bus bandwidth    : 1.57614 \n"
    "[1,0]<stdout>:# Collective test concluded: all_reduce_perf_mpi\n";

TEST(NcclTests, OpenMpiTagOutputAndSeveralRuns) {
  const std::string text = std::string(kTagged) + kTagged;
  EXPECT_TRUE(LooksLikeNcclTests(text));
  Diagnostics diag;
  const NcclTestsReport r = MustParse(text, "tagged.log", diag);
  ASSERT_EQ(r.runs.size(), 2u);
  for (const NcclTestsRun& run : r.runs) {
    EXPECT_EQ(run.version, "2.18.0");
    EXPECT_EQ(run.test, "all_reduce_perf_mpi");
    EXPECT_EQ(run.devices.size(), 2u);
    EXPECT_EQ(run.devices[0].host, "lab");
    ASSERT_EQ(run.rows.size(), 2u);
    EXPECT_DOUBLE_EQ(run.rows[1].out_of_place.busbw_gbps, 0.48);
    EXPECT_DOUBLE_EQ(*run.avg_busbw_gbps, 1.57614);
  }
  EXPECT_EQ(r.counts.read, 28);
  EXPECT_EQ(r.counts.rejected, 0);
}

TEST(NcclTests, SrunLabelPrefix) {
  const std::string text =
      "0: # nThread 1 nGpus 8 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n"
      "0: #  Rank  0 Group  0 Pid  11 on node-a device  0 [0000:18:00] NVIDIA A100-SXM4-80GB\n"
      "0:            8             2     float     sum      -1    30.10    0.00    0.00      0    29.90    0.00    0.00      0\n"
      "0:           16             4     float     sum      -1    30.20    0.00    0.00      0    30.00    0.00    0.00      0\n"
      "0: # Avg bus bandwidth    : 0.001 \n";
  Diagnostics diag;
  const NcclTestsReport r = MustParse(text, "srun.log", diag);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].ngpus, 8);
  EXPECT_EQ(r.runs[0].devices[0].host, "node-a");
  EXPECT_EQ(r.runs[0].rows.size(), 2u);
}

TEST(NcclTests, BadRowsAreRejectedAndCounted) {
  const std::string text =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      "           8             2     float     sum      -1    12.25    0.00    0.00      0    12.00    0.00    0.00      0\n"
      "          16             4     float     sum      -1    nan      0.00    0.00      0    11.69    0.00    0.00      0\n"
      "          32             8     float     sum      -1    12.86    0.00\n"
      "          64            16     float     sum      -1    -1.0     0.01    0.01      0    12.21    0.01    0.01      0\n"
      "# Avg bus bandwidth    : junk\n";
  Diagnostics diag;
  const NcclTestsReport r = MustParse(text, "bad.log", diag);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].rows.size(), 1u);
  EXPECT_EQ(r.counts.rejected, 4);
  EXPECT_EQ(r.counts.read, 7);
  ASSERT_EQ(diag.items().size(), 4u);
  EXPECT_EQ(diag.items()[0].line, 4);
}

TEST(NcclTests, NotNcclTestsFails) {
  Diagnostics diag;
  EXPECT_FALSE(ParseNcclTests("", "empty", diag).ok());
  EXPECT_FALSE(ParseNcclTests("hello\nworld\n", "text", diag).ok());
  EXPECT_FALSE(ParseNcclTests(std::string("\x00\x01\x02 binary", 10), "bin", diag).ok());
  EXPECT_FALSE(LooksLikeNcclTests("NCCL INFO Bootstrap : Using eth0\n"));
}

TEST(NcclTests, LauncherPrefixes) {
  EXPECT_EQ(StripLauncherPrefix("[1,12]<stdout>:# x"), "# x");
  EXPECT_EQ(StripLauncherPrefix("[0,3]<stderr>:warn"), "warn");
  EXPECT_EQ(StripLauncherPrefix("12: # nThread"), "# nThread");
  EXPECT_EQ(StripLauncherPrefix("     8     2 float"), "     8     2 float");
  EXPECT_EQ(StripLauncherPrefix("[host:1] text"), "[host:1] text");
}

}  // namespace nccl_tests_test
}  // namespace toposcope::formats
