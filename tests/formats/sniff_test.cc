// Tests of format detection by content (formats/sniff) on console captures of NCCL logs: a preamble
// before the first NCCL line, and lines that open with a launcher's or logger's bracketed prefix;
// real `nvidia-smi -q` and iblinkinfo outputs, as they are and behind a preamble; real `dcgmi
// discovery` outputs, told from `dcgmi dmon` of the same machines.
#include "toposcope/formats/sniff.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace toposcope::formats {
namespace sniff_test {

TEST(SniffNcclLog, BracketedPrefixesAtTheStartOfTheFile) {
  for (const char* first : {"[rank0]:node-a:1234:1300 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n",
                            "[default0]:node-a:1234:1300 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n",
                            "[2024-05-01 12:00:00] node-a:1234:1300 [0] NCCL INFO Channel 00/02 :    0   1\n",
                            "[1,0]<stdout>:node-a:1234:1300 [0] NCCL INFO Channel 00/02 :    0   1\n",
                            "[155] node-a:1234:1300 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n",
                            // srun --label; kubectl logs --timestamps; kubectl logs --prefix
                            "0: node-a:1234:1300 [0] NCCL INFO Channel 00/02 :    0   1\n",
                            "2024-05-01T12:00:00.123456789Z node-a:1234:1300 [0] NCCL INFO Channel 00/02 :    0   1\n",
                            "[pod/job-worker-0/pytorch] node-a:1234:1300 [0] NCCL INFO Channel 00/02 :    0   1\n"}) {
    const SniffResult r = SniffFormat(std::string(first) + "node-a:1234:1300 [0] NCCL INFO Connected all rings\n");
    EXPECT_EQ(r.format, FileFormat::kNcclLog) << first << " -> " << r.reason;
  }
}

TEST(SniffP2pCsv, LabelsThatAreP2pBandwidthLatencyTestHeadings) {
  const std::string csv =
      "# toposcope p2p matrix, long form\n"
      "src,dst,bandwidth_gbps,kind,matrix\n"
      "0,1,1.00,connectivity,P2P Connectivity Matrix\n"
      "0,1,24.97,unidir,Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n";
  EXPECT_EQ(SniffFormat(csv).format, FileFormat::kP2pCsv) << SniffFormat(csv).reason;
}

TEST(SniffNcclLog, PreambleBeforeTheFirstNcclLine) {
  std::string text = "$ torchrun --nproc-per-node 8 train.py\n"
                     "W0501 12:00:00.000000 1234 torch/distributed/run.py:779] Setting OMP_NUM_THREADS\n";
  for (int i = 0; i < 40; ++i) text += "Epoch 0: loading shard " + std::to_string(i) + " of the dataset\n";
  text += "(RayTrainWorker pid=1234, ip=10.0.0.1) node-a:1234:1300 [0] NCCL INFO comm 0x1 rank 0 nranks 2\n";
  EXPECT_EQ(SniffFormat(text).format, FileFormat::kNcclLog);
}

TEST(SniffNcclLog, JsonArraysAreNotLogs) {
  // A Chrome trace event array whose arguments quote an NCCL line stays a trace.
  const std::string trace = "[{\"ph\": \"X\", \"name\": \"h:1:2 [0] NCCL INFO Channel 00/02 :    0   1\"}]\n";
  EXPECT_EQ(SniffFormat(trace).format, FileFormat::kChromeTrace);
  EXPECT_NE(SniffFormat("[ \"h:1:2 [0] NCCL INFO x\" ]").format, FileFormat::kNcclLog);
}

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SniffRealNodeAndFabric, NvidiaSmiQAndIblinkinfoAsTheyAreAndBehindAPreamble) {
  const std::string preamble = "[root@gpu-node-07 ~]# date\nFri Dec  4 12:00:00 UTC 2026\n$ ssh gpu-node-07\n";
  const std::pair<const char*, FileFormat> cases[] = {
      {"nvidia_smi_q/a100_sxm4_80gb_x4_driver555_nvidia_smi_q.txt", FileFormat::kNvsmiQuery},
      {"nvidia_smi_q/h100_80gb_hbm3_x8_driver565_tlimit_nvidia_smi_q.txt", FileFormat::kNvsmiQuery},
      {"nvidia_smi_q/h800_driver525_nvidia_smi_q.txt", FileFormat::kNvsmiQuery},
      {"iblinkinfo/qdr_connectx3_infiniscale4_18port_down_polling_tsinghua_dbx1000_readme_excerpt.txt",
       FileFormat::kIbLinkInfo}};
  for (const auto& [rel, format] : cases) {
    const std::string text = Slurp(std::string(TOPOSCOPE_TESTDATA) + "/real/" + rel);
    ASSERT_FALSE(text.empty()) << rel;
    EXPECT_EQ(SniffFormat(text).format, format) << rel << ": " << SniffFormat(text).reason;
    EXPECT_EQ(SniffFormat(preamble + text).format, format) << rel;
  }
  EXPECT_EQ(FormatName(FileFormat::kNvsmiQuery), "nvidia-smi-q");
  EXPECT_EQ(FormatName(FileFormat::kIbLinkInfo), "iblinkinfo");
}

// perfquery: the real outputs (a header, a wrapped header, no header at all) and no other real file.
TEST(SniffPerfquery, RealOutputsAndNothingElse) {
  int perfquery = 0, others = 0;
  for (const std::string& root : {std::string(TOPOSCOPE_TESTDATA) + "/real", std::string(TOPOSCOPE_FIXTURES)}) {
    if (!std::filesystem::is_directory(root)) continue;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      if (!e.is_regular_file()) continue;
      const bool mine = e.path().parent_path().filename() == "perfquery";
      const bool iqe = e.path().parent_path().filename() == "ibqueryerrors";
      const SniffResult r = SniffFormat(Slurp(e.path()).substr(0, 65536));
      EXPECT_EQ(r.format == FileFormat::kPerfquery, mine) << e.path() << " -> " << r.reason;
      EXPECT_EQ(r.format == FileFormat::kIbQueryErrors, iqe) << e.path() << " -> " << r.reason;
      ++(mine ? perfquery : others);
    }
  }
  EXPECT_EQ(perfquery, 3);
  EXPECT_GT(others, 50);
  EXPECT_EQ(FormatName(FileFormat::kPerfquery), "perfquery");
  EXPECT_EQ(FormatName(FileFormat::kIbQueryErrors), "ibqueryerrors");
}

TEST(SniffDcgmDiscovery, RealOutputsAndNotDmon) {
  const std::string real = std::string(TOPOSCOPE_TESTDATA) + "/real/";
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(real + "dcgmi_discovery")) {
    const SniffResult r = SniffFormat(Slurp(e.path()));
    EXPECT_EQ(r.format, FileFormat::kDcgmDiscovery) << e.path() << " -> " << r.reason;
    ++files;
  }
  EXPECT_EQ(files, 6);
  for (const auto& e : std::filesystem::directory_iterator(real + "dcgmi_dmon")) {
    EXPECT_EQ(SniffFormat(Slurp(e.path())).format, FileFormat::kDcgmDmon) << e.path();
  }
  EXPECT_EQ(FormatName(FileFormat::kDcgmDiscovery), "dcgmi-discovery");
}

}  // namespace sniff_test
}  // namespace toposcope::formats
