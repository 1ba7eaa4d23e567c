// Tests of model/load on unusual inputs: what a directory walk lists (symlinks, FIFOs, sockets),
// FIFOs given as paths, lines past the line limit, whole-file bombs, compressed and unreadable
// captures.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "toposcope/base/file_io.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/dcgm_read.h"
#include "toposcope/model/sources.h"
#include "gzip_text.h"

namespace toposcope::model {
namespace load_test {
namespace fs = std::filesystem;

const std::string kFix = TOPOSCOPE_FIXTURES;
const std::string kTestdata = TOPOSCOPE_TESTDATA;
const std::string kTopo = kFix + "/nvidia_smi_topo/a800_8gpu_nv8_4nic_driver525.txt";

fs::path FreshDir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("toposcope_load_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

using testing_support::Gzip;

const InputFile* FindInput(const Dataset& ds, const std::string& name) {
  for (const auto& in : ds.inputs) {
    if (fs::path(in.path).filename() == name) return &in;
  }
  return nullptr;
}

// A console capture: a long preamble (shell banner, pip output, Python logging) before the data.
std::string Preamble(size_t min_bytes) {
  std::string out = "Welcome to Ubuntu 22.04.4 LTS (GNU/Linux 5.15.0-105-generic x86_64)\n\n"
                    "$ pip install -r requirements.txt\n";
  for (int i = 0; out.size() < min_bytes; ++i) {
    out += "Requirement already satisfied: package" + std::to_string(i) +
           ">=1.0 in /usr/local/lib/python3.10/dist-packages (from -r requirements.txt (line " + std::to_string(i) +
           "))\n";
    out += "2024-05-01 12:00:0" + std::to_string(i % 10) + ",123 - root - INFO - preparing step " + std::to_string(i) +
           "\n";
  }
  return out;
}

// What a loaded data set holds, in numbers: DCGM samples, NCCL trees and ring lines, GPUs and
// measured GPU pairs of every host.
std::vector<size_t> Payload(const Dataset& ds) {
  size_t nccl = 0;
  for (const auto& log : ds.nccl_logs) nccl += log.trees.size() + log.rings.size() + log.comms.size();
  size_t gpus = 0;
  size_t measured = 0;
  for (const auto& [name, h] : ds.hosts) {
    gpus += h.gpus.size();
    measured += h.measured.size();
  }
  return {static_cast<size_t>(ds.dcgm.points), nccl, gpus, measured};
}

// The file `fixture` with a preamble of more than 8 KiB before it, written plain, gzip'd and as zstd:
// each is detected as `format` (the same as the fixture alone) and gives the same accepted records.
void ExpectFoundAfterPreamble(const std::string& fixture, const std::string& format, const std::string& name) {
  const fs::path d = FreshDir("preamble_" + name);
  const std::string text = Preamble(20000) + Slurp(fixture);
  ASSERT_GT(Preamble(20000).size(), 8192U);
  WriteBytes(d / (name + ".txt"), text);
  WriteBytes(d / (name + ".txt.gz"), Gzip(text));
  const std::string zst = (d / (name + ".txt.zst")).string();
  const bool have_zstd = std::system(("zstd -q -f -o " + zst + " " + (d / (name + ".txt")).string()).c_str()) == 0;
  auto alone = LoadPaths({fixture}, {});
  ASSERT_TRUE(alone.ok());
  ASSERT_EQ(alone->inputs[0].format, format);
  std::vector<std::string> files = {name + ".txt", name + ".txt.gz"};
  if (have_zstd) files.push_back(name + ".txt.zst");
  for (const std::string& f : files) {
    auto ds = LoadPaths({(d / f).string()}, {});
    ASSERT_TRUE(ds.ok());
    ASSERT_EQ(ds->inputs.size(), 1U);
    const InputFile& in = ds->inputs[0];
    EXPECT_EQ(in.format, format) << f << ": " << in.skip_reason;
    EXPECT_FALSE(in.skipped) << f << ": " << in.skip_reason;
    EXPECT_EQ(in.rejected, alone->inputs[0].rejected) << f;  // the preamble is no rejected row
    EXPECT_GE(in.accepted, alone->inputs[0].accepted) << f;  // (an NCCL log counts every line it reads)
    EXPECT_EQ(Payload(*ds), Payload(*alone)) << f;
  }
  fs::remove_all(d);
}

// Detection looks past the first 8 KiB (up to 1 MiB): NCCL lines, a P2P matrix and a dmon header
// after a long preamble are found, in plain, .gz and .zst files.
TEST(LoadSniff, FindsTheFormatAfterALongPreamble) {
  ExpectFoundAfterPreamble(kFix + "/nccl_debug_log/nccl2.26.2_2node16gpu_h100_ib_rings_trees_excerpt.log", "nccl-log",
                           "nccl");
  ExpectFoundAfterPreamble(kFix + "/cuda_p2p/rtx2080ti_x2_nop2p_p2pBandwidthLatencyTest.txt",
                           "p2pBandwidthLatencyTest", "p2p");
  ExpectFoundAfterPreamble(kFix + "/dcgmi_dmon/dcgm318_4gpu_nvltx_nvlrx.txt", "dcgmi-dmon", "dmon");
}

// Past the 1 MiB bound the format is not looked for: the file is skipped and the reason says how far.
TEST(LoadSniff, StopsAtTheBound) {
  const fs::path d = FreshDir("preamble_bound");
  WriteBytes(d / "late.txt",
             Preamble(size_t{1} << 21) + Slurp(kFix + "/nccl_debug_log/nccl2.26.2_2node16gpu_h100_ib_rings_trees_excerpt.log"));
  auto ds = LoadPaths({(d / "late.txt").string()}, {});
  ASSERT_TRUE(ds.ok());
  EXPECT_TRUE(ds->inputs[0].skipped);
  EXPECT_NE(ds->inputs[0].skip_reason.find("1048576 bytes"), std::string::npos) << ds->inputs[0].skip_reason;
  fs::remove_all(d);
}

// The bytes this process has read so far (`rchar` of /proc/self/io); -1 when it cannot be read.
int64_t BytesReadSoFar() {
  std::ifstream io("/proc/self/io");
  std::string key;
  int64_t value = 0;
  while (io >> key >> value) {
    if (key == "rchar:") return value;
  }
  return -1;
}

// nccl-tests output run with NCCL_DEBUG=INFO gives its runs and its NCCL log records from one pass
// over the file (it was read twice before: once per reader).
TEST(LoadNcclTests, OutputWithNcclLinesIsReadOnce) {
  const fs::path d = FreshDir("nccl_tests_once");
  const std::string log = Slurp(kFix + "/nccl_debug_log/nccl2.26.2_2node16gpu_h100_ib_rings_trees_excerpt.log");
  std::string text = Slurp(kFix + "/nccl_tests/gcp_a3mega_h100_2node16gpu_all_reduce_perf.txt");
  while (text.size() < (size_t{4} << 20)) text += log;
  WriteBytes(d / "all_reduce.txt", text);
  const int64_t before = BytesReadSoFar();
  if (before < 0) GTEST_SKIP() << "no /proc/self/io";
  auto ds = LoadPaths({(d / "all_reduce.txt").string()}, {});
  const int64_t read = BytesReadSoFar() - before;
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->inputs.size(), 1U);
  EXPECT_EQ(ds->inputs[0].format, "nccl-tests");
  EXPECT_EQ(ds->nccl_tests.size(), 1U);
  ASSERT_EQ(ds->nccl_logs.size(), 1U);
  EXPECT_FALSE(ds->nccl_logs[0].trees.empty());
  EXPECT_LT(read, static_cast<int64_t>(text.size()) * 3 / 2) << "bytes read for a file of " << text.size();
  fs::remove_all(d);
}

TEST(LoadWalk, ListsSymlinksFifosAndSocketsWithAReason) {
  const fs::path d = FreshDir("walk");
  fs::copy_file(kTopo, d / "topo.txt");
  fs::create_symlink(d / "topo.txt", d / "link-to-topo.txt");
  fs::create_symlink(d / "nowhere.txt", d / "dangling.txt");
  fs::create_directories(d / "sub");
  fs::create_directory_symlink(d / "sub", d / "link-to-sub");
  ASSERT_EQ(::mkfifo((d / "a.fifo").c_str(), 0600), 0);
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock = (d / "a.sock").string();
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);

  auto ds = LoadPaths({d.string()}, {});
  ::close(s);
  ASSERT_TRUE(ds.ok()) << ds.error().ToString();
  ASSERT_EQ(ds->inputs.size(), 6U);
  const InputFile* topo = FindInput(*ds, "topo.txt");
  const InputFile* link = FindInput(*ds, "link-to-topo.txt");
  ASSERT_TRUE(topo && link);
  EXPECT_FALSE(topo->skipped);
  EXPECT_FALSE(link->skipped) << link->skip_reason;  // a symlink to a file is followed
  EXPECT_EQ(link->records, topo->records);
  const std::vector<std::pair<std::string, std::string>> skipped = {{"dangling.txt", "dangling symlink"},
                                                                     {"link-to-sub", "symlink to a directory"},
                                                                     {"a.fifo", "a FIFO"},
                                                                     {"a.sock", "a socket"}};
  for (const auto& [name, why] : skipped) {
    const InputFile* in = FindInput(*ds, name);
    ASSERT_NE(in, nullptr) << name;
    EXPECT_TRUE(in->skipped) << name;
    EXPECT_NE(in->skip_reason.find(why), std::string::npos) << name << ": " << in->skip_reason;
    EXPECT_EQ(in->records, 0);
  }
  fs::remove_all(d);
}

// A FIFO given as a path is read (once, through a copy) when it has a writer.
TEST(LoadPipes, FifoGivenAsAPathIsReadWhole) {
  const fs::path d = FreshDir("fifo");
  auto plain = LoadPaths({kTopo}, {});
  ASSERT_TRUE(plain.ok());
  const fs::path fifo = d / "topo.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string bytes = Slurp(kTopo);
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << bytes;
  });
  auto ds = LoadPaths({fifo.string()}, {});
  writer.join();
  ASSERT_TRUE(ds.ok()) << ds.error().ToString();
  ASSERT_EQ(ds->inputs.size(), 1U);
  EXPECT_FALSE(ds->inputs[0].skipped) << ds->inputs[0].skip_reason;
  EXPECT_EQ(ds->inputs[0].format, plain->inputs[0].format);
  EXPECT_EQ(ds->inputs[0].records, plain->inputs[0].records);
  fs::remove_all(d);
}

// A line past the line limit in a streamed input is one rejected record naming its line; the
// lines after it are read.
TEST(LoadLimits, LineOverTheLimitIsRejectedAndReadingGoesOn) {
  const fs::path d = FreshDir("longline");
  const std::string sync = "host,local_ns,ref_ns\nh1,1000,1000\n" + std::string(kMaxLineBytes + 10, '9') +
                           "\nh1,2000,2000\n";
  WriteBytes(d / "sync.csv", sync);
  WriteBytes(d / "short.csv", "host,local_ns,ref_ns\nh1,1000,1000\nh1,2000,2000\n");
  auto ds = LoadPaths({(d / "sync.csv").string(), (d / "short.csv").string()}, {});
  ASSERT_TRUE(ds.ok());
  const InputFile* in = FindInput(*ds, "sync.csv");
  const InputFile* without = FindInput(*ds, "short.csv");
  ASSERT_TRUE(in && without);
  EXPECT_FALSE(in->skipped) << in->skip_reason;
  EXPECT_EQ(in->rejected, 1);
  EXPECT_EQ(in->records, without->records + 1);
  EXPECT_EQ(without->rejected, 0);
  bool named = false;
  for (const auto& item : ds->diag.items()) {
    named = named || (item.line == 3 && item.reason.find("line limit") != std::string::npos);
  }
  EXPECT_TRUE(named);
  fs::remove_all(d);
}

// A node-level file read whole that inflates past the cap is a skipped input with a clear reason.
TEST(LoadLimits, WholeFileBombIsSkippedWithTheReason) {
  const fs::path d = FreshDir("bomb");
  std::string member = Gzip(std::string(size_t{64} << 20, ' '));
  std::string bytes = Gzip(Slurp(kTopo));
  for (int i = 0; i < 5; ++i) bytes += member;
  WriteBytes(d / "topo.txt.gz", bytes);
  auto ds = LoadPaths({d.string()}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->inputs.size(), 1U);
  EXPECT_TRUE(ds->inputs[0].skipped);
  EXPECT_NE(ds->inputs[0].skip_reason.find("input too large"), std::string::npos) << ds->inputs[0].skip_reason;
  fs::remove_all(d);
}

// A gzip-compressed capture is listed and streamed like the plain one, with the same offsets.
TEST(LoadCaptures, GzipCaptureIsReadLikeThePlainOne) {
  const fs::path d = FreshDir("pcapgz");
  const std::string plain = kTestdata + "/pcap/mixed_v4_vlan.pcap";
  WriteBytes(d / "mixed.pcap.gz", Gzip(Slurp(plain)));
  auto ds = LoadPaths({d.string()}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->captures.size(), 1U);
  EXPECT_FALSE(ds->inputs[0].skipped) << ds->inputs[0].skip_reason;
  Diagnostics diag_gz, diag_plain;
  int64_t n_gz = 0, n_plain = 0;
  auto gz = StreamCapture(ds->captures[0], false, [&](const formats::RocePacket&) { ++n_gz; }, diag_gz);
  CaptureInput c;
  c.path = plain;
  auto pl = StreamCapture(c, false, [&](const formats::RocePacket&) { ++n_plain; }, diag_plain);
  ASSERT_TRUE(gz.ok()) << gz.error().ToString();
  ASSERT_TRUE(pl.ok());
  EXPECT_EQ(gz->records, pl->records);
  EXPECT_EQ(gz->counts.rejected, pl->counts.rejected);
  EXPECT_EQ(n_gz, n_plain);
  EXPECT_GT(n_gz, 0);
  ASSERT_FALSE(diag_gz.items().empty());
  EXPECT_EQ(diag_gz.items()[0].byte_offset, diag_plain.items()[0].byte_offset);
  fs::remove_all(d);
}

// A capture whose file header libpcap refuses is a skipped input: no records, none rejected.
TEST(LoadCaptures, CaptureThatCannotBeOpenedIsSkippedNotRejected) {
  const fs::path d = FreshDir("shortpcap");
  WriteBytes(d / "short.pcap", std::string("\xd4\xc3\xb2\xa1\x02\x00", 6));
  auto ds = LoadPaths({d.string()}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->inputs.size(), 1U);
  EXPECT_TRUE(ds->inputs[0].skipped);
  EXPECT_NE(ds->inputs[0].skip_reason.find("not a pcap or pcapng capture"), std::string::npos)
      << ds->inputs[0].skip_reason;
  EXPECT_EQ(ds->inputs[0].records, 0);
  EXPECT_EQ(ds->inputs[0].rejected, 0);
  EXPECT_TRUE(ds->captures.empty());
  fs::remove_all(d);
}

// nccl-tests output is read as such; when it ran with NCCL_DEBUG=INFO its NCCL lines give the
// rings as a log would, and a bad row and a bad NCCL line are each rejected once.
TEST(LoadNcclTests, RunsAndTheNcclLinesAmongThem) {
  const fs::path d = FreshDir("nccltests");
  WriteBytes(d / "allreduce.out",
             "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
             "validation: 1 graph: 0\n"
             "#  Rank  0 Group  0 Pid   6899 on node-a device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
             "#  Rank  1 Group  0 Pid   6733 on node-b device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
             "node-a:6899:6899 [0] NCCL INFO Ring 00 : 1 -> 0 -> 1\n"
             "node-a:6899:6899 [0] NCCL INFO Ring 00 : 1 -> x -> 1\n"
             "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
             "busbw #wrong\n"
             "         512           128     float     sum      -1    126.6    0.00    0.01      0    123.4    0.00    "
             "0.01      0\n"
             "        1024           256     float     sum      -1    147.1    0.01   zero      0    123.1    0.01    "
             "0.02      0\n"
             "# Avg bus bandwidth    : 0.01\n");
  auto ds = LoadPaths({d.string()}, {});
  ASSERT_TRUE(ds.ok()) << ds.error().ToString();
  ASSERT_EQ(ds->inputs.size(), 1U);
  const InputFile& in = ds->inputs[0];
  EXPECT_EQ(in.format, "nccl-tests");
  EXPECT_EQ(in.records, 9);
  EXPECT_EQ(in.rejected, 2);
  EXPECT_EQ(in.accepted + in.rejected, in.records);
  EXPECT_EQ(ds->diag.RejectedFor(in.path), 2);
  ASSERT_EQ(ds->nccl_tests.size(), 1U);
  ASSERT_EQ(ds->nccl_tests[0].runs.size(), 1U);
  EXPECT_EQ(ds->nccl_tests[0].runs[0].devices.size(), 2U);
  EXPECT_EQ(ds->nccl_tests[0].runs[0].rows.size(), 1U);
  ASSERT_EQ(ds->nccl_logs.size(), 1U);
  EXPECT_EQ(ds->nccl_logs[0].rings.size(), 1U);
  fs::remove_all(d);
}

// A table row with an NCCL log line run into it (a fuzzer find) belongs to the NCCL log reader
// alone: it is rejected once, never once as a row and again as a log line.
TEST(LoadNcclTests, ARowHoldingAnNcclLineIsRejectedOnce) {
  const fs::path d = FreshDir("nccltests_mixed");
  WriteBytes(d / "allreduce.out",
             "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20\n"
             "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
             "busbw #wrong\n"
             "      131072         32768     float     sum  ]   -1    159.3    0.82    1.5txt    0[6] NCCL INFO Ring "
             "00-1    123.6\n"
             "         512           128     float     sum      -1    126.6    0.00    0.01      0    123.4    0.00    "
             "0.01      0\n");
  auto ds = LoadPaths({d.string()}, {});
  ASSERT_TRUE(ds.ok()) << ds.error().ToString();
  ASSERT_EQ(ds->inputs.size(), 1U);
  const InputFile& in = ds->inputs[0];
  EXPECT_EQ(in.records, 4);
  EXPECT_EQ(in.rejected, 1);
  EXPECT_EQ(in.accepted + in.rejected, in.records);
  EXPECT_EQ(ds->diag.RejectedFor(in.path), 1);
  ASSERT_EQ(ds->nccl_tests.size(), 1U);
  EXPECT_EQ(ds->nccl_tests[0].runs[0].rows.size(), 1U);
  fs::remove_all(d);
}

// A paste of table rows alone (no header, rank tags in the rows) is still nccl-tests output.
TEST(LoadNcclTests, RowsAloneAreRecognised) {
  auto ds = LoadPaths({kTestdata + "/real/nccl_tests/nccl_tests_issue1453_tagged_rows_excerpt.txt"}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->inputs.size(), 1U);
  EXPECT_EQ(ds->inputs[0].format, "nccl-tests");
  EXPECT_FALSE(ds->inputs[0].skipped);
  ASSERT_EQ(ds->nccl_tests.size(), 1U);
  ASSERT_FALSE(ds->nccl_tests[0].runs.empty());
  EXPECT_EQ(ds->nccl_tests[0].runs[0].rows.size(), 10U);
}

// `chronyc tracking` output is read: its report is the host's clock sample.
TEST(LoadChronyc, TrackingReportIsASyncPoint) {
  const std::string path = kFix + "/chrony/powersj_ubuntu1804_chrony32_chronyc_tracking.txt";
  auto ds = LoadPaths({path}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->inputs.size(), 1U);
  EXPECT_EQ(ds->inputs[0].format, "chronyc-tracking");
  EXPECT_FALSE(ds->inputs[0].skipped) << ds->inputs[0].skip_reason;
  EXPECT_EQ(ds->inputs[0].records, 13);
  ASSERT_EQ(ds->hosts.size(), 1U);
  const auto& points = ds->hosts.begin()->second.sync_points;
  ASSERT_EQ(points.size(), 1U);
  EXPECT_EQ(points[0].source, "chronyc-tracking");
  EXPECT_NEAR(points[0].offset_ns, -506939, 1e-6);
}

// Plain `dcgmi dmon` output carries no time: its rows become series at dcgmi's default delay from
// --at (LoadOptions::untimed_at_ns), with one warning; a scrape without timestamps is one sample
// per series at that time.
TEST(LoadDcgm, UntimedDmonAndScrapeBecomeSeries) {
  LoadOptions opt;
  opt.untimed_at_ns = int64_t{1714521600} * 1000000000;  // 2024-05-01T00:00:00Z
  auto ds = LoadPaths({kFix + "/dcgmi_dmon/dcgm318_4gpu_nvltx_nvlrx.txt",
                       kFix + "/dcgm_exporter/gpu_operator_p5_h100_8gpu_sampled_metrics.prom"},
                      opt);
  ASSERT_TRUE(ds.ok());
  int64_t dmon_points = 0, prom_points = 0;
  int64_t first_ns = INT64_MAX, last_ns = 0;
  for (const auto& [key, series] : ds->dcgm.series) {
    if (key.field == "NVLTX" || key.field == "NVLRX") {
      dmon_points += series.count;
      first_ns = std::min(first_ns, series.first_ns);
      last_ns = std::max(last_ns, series.last_ns);
      EXPECT_DOUBLE_EQ(series.PeriodMs(), static_cast<double>(kDmonDefaultDelayMs));
    } else {
      prom_points += series.count;
      EXPECT_EQ(series.first_ns, opt.untimed_at_ns);
    }
  }
  EXPECT_EQ(dmon_points, 48);  // 24 rows of two fields
  EXPECT_EQ(first_ns, opt.untimed_at_ns);
  EXPECT_EQ(last_ns - first_ns, 5 * kDmonDefaultDelayMs * 1000000);  // 6 iterations of 4 GPUs
  EXPECT_EQ(prom_points, 30);
  int warnings = 0;
  for (const auto& d : ds->diag.items()) {
    if (d.reason.find("samples carry no time") != std::string::npos) ++warnings;
  }
  EXPECT_EQ(warnings, 2);
}

// Without --at, samples that carry no time start at the earliest time of their host in the data set
// (here its sync points), else of the whole data set: the same files give the same times whatever
// their modification times (which they started at before), and each file's warning says which.
TEST(LoadPaths, ALinkedFileBelongsToTheDirectoryItIsListedIn) {
  // h1/topo.txt links to a file outside the root (and ../ spelled into the root): the file is
  // h1's, as the directory names say, wherever the link points.
  const fs::path d = FreshDir("linked");
  const fs::path outside = FreshDir("linked_target");
  fs::copy_file(kTopo, outside / "elsewhere.txt");
  fs::create_directories(d / "h1");
  fs::create_symlink(outside / "elsewhere.txt", d / "h1" / "topo.txt");
  auto ds = LoadPaths({(d / "h1" / ".." / "").string()}, {});
  ASSERT_TRUE(ds.ok()) << ds.error().ToString();
  const InputFile* in = FindInput(*ds, "topo.txt");
  ASSERT_NE(in, nullptr);
  EXPECT_FALSE(in->skipped) << in->skip_reason;
  EXPECT_EQ(in->host, "h1");
  EXPECT_EQ(ds->hosts.count("h1"), 1u);
  fs::remove_all(d);
  fs::remove_all(outside);
}

TEST(LoadDcgm, UntimedSamplesStartAtTheEarliestTimeInTheDataSet) {
  const int64_t t0 = int64_t{1714521600} * 1000000000;  // 2024-05-01T00:00:00Z
  const std::string dmon = kFix + "/dcgmi_dmon/dcgm318_4gpu_nvltx_nvlrx.txt";
  struct Got {
    int64_t h1_first = 0, h2_first = 0, h1_event_at = 0;
    std::string reasons;
  };
  const auto load = [&](const std::string& name, int64_t mtime_shift_s) {
    const fs::path d = FreshDir(name);
    fs::create_directories(d / "h1");
    fs::create_directories(d / "h2");
    WriteBytes(d / "h1" / "sync.csv", "host,local_ns,ref_ns\nh1," + std::to_string(t0 + 5000000000) + "," +
                                          std::to_string(t0 + 5000000000) + "\nh1," + std::to_string(t0) + "," +
                                          std::to_string(t0) + "\n");
    fs::copy_file(dmon, d / "h1" / "dmon.txt");
    fs::copy_file(dmon, d / "h2" / "dmon.txt");
    for (const char* h : {"h1", "h2"}) {
      const fs::path f = d / h / "dmon.txt";
      fs::last_write_time(f, fs::last_write_time(f) + std::chrono::seconds(mtime_shift_s));
    }
    auto ds = LoadPaths({d.string()}, {});
    EXPECT_TRUE(ds.ok());
    Got g;
    g.h1_first = g.h2_first = INT64_MAX;
    for (const auto& [key, series] : ds->dcgm.series) {
      int64_t& first = key.host == "h1" ? g.h1_first : g.h2_first;
      first = std::min(first, series.first_ns);
    }
    for (const auto& e : ds->event_inputs) {
      if (e.host == "h1") g.h1_event_at = e.untimed_at_ns;
    }
    for (const auto& diag : ds->diag.items()) g.reasons += diag.ToString() + "\n";
    fs::remove_all(d);
    return g;
  };
  const Got a = load("untimed_a", 0);
  const Got b = load("untimed_b", -86400 * 30);  // the same files, copied a month earlier
  EXPECT_EQ(a.h1_first, t0);
  EXPECT_EQ(a.h2_first, t0);  // h2 has no time of its own: the data set's earliest
  EXPECT_EQ(a.h1_event_at, t0);  // the timeline places them the same
  EXPECT_EQ(b.h1_first, a.h1_first);
  EXPECT_EQ(b.h2_first, a.h2_first);
  EXPECT_NE(a.reasons.find("(no --at: the earliest time of host h1 in the data set)"), std::string::npos) << a.reasons;
  EXPECT_NE(a.reasons.find("(no --at: the earliest time in the data set (none for host h2))"), std::string::npos)
      << a.reasons;
}

// With --at the samples start there; with no time anywhere, at the file's modification time, and
// the warning says so.
TEST(LoadDcgm, UntimedSamplesFollowAtElseTheModificationTime) {
  const std::string dmon = kFix + "/dcgmi_dmon/dcgm318_4gpu_nvltx_nvlrx.txt";
  LoadOptions at;
  at.untimed_at_ns = int64_t{1700000000} * 1000000000;
  auto with_at = LoadPaths({dmon}, at);
  ASSERT_TRUE(with_at.ok());
  for (const auto& [key, series] : with_at->dcgm.series) EXPECT_GE(series.first_ns, at.untimed_at_ns);
  auto alone = LoadPaths({dmon}, {});
  ASSERT_TRUE(alone.ok());
  std::string reasons;
  for (const auto& d : alone->diag.items()) reasons += d.ToString() + "\n";
  EXPECT_NE(reasons.find("no --at and no time in the data set: the file's modification time"), std::string::npos)
      << reasons;
  EXPECT_EQ(alone->dcgm.points, with_at->dcgm.points);
}

// DCGM numbers each entity kind on its own: "Switch 1", "CPU 1", "CX 1" and "GPU-I 1" rows of one
// dmon are not GPU 1, and only GPU 1's row lands in GPU 1's series.
TEST(LoadDcgm, DmonEntitiesOtherThanGpusKeepTheirKind) {
  const std::string path = testing::TempDir() + "/dmon_entities.txt";
  {
    std::ofstream f(path);
    f << "#Entity   POWER\nID\nGPU 1     300.5\nSwitch 1  20.0\nCPU 1     150.0\nCX 1      12.0\nGPU-I 1   0.0\n";
  }
  std::vector<DcgmPoint> points;
  Diagnostics diag;
  ReadCounts counts;
  auto st = ReadDcgmFile(path, "h1", formats::FileFormat::kDcgmDmon, [&](const DcgmPoint& p) { points.push_back(p); },
                         diag, counts, int64_t{1714521600} * 1000000000);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(counts.accepted, 5);
  ASSERT_EQ(points.size(), 5u);
  DcgmStore store;
  for (const DcgmPoint& p : points) store.Add(p);
  ASSERT_EQ(store.series.size(), 5u);
  int gpu_series = 0;
  for (const auto& [k, s] : store.series) {
    if (!k.IsGpu()) continue;
    ++gpu_series;
    EXPECT_EQ(k.gpu, 1);
    EXPECT_DOUBLE_EQ(s.points[0].second, 300.5);
  }
  EXPECT_EQ(gpu_series, 1);
  EXPECT_EQ(points[1].entity, DcgmEntity::kSwitch);
  EXPECT_EQ(points[2].entity, DcgmEntity::kCpu);
  EXPECT_EQ(points[3].entity, DcgmEntity::kNic);
  EXPECT_EQ(points[4].entity, DcgmEntity::kGpuInstance);
  EXPECT_EQ(points[4].instance, 1);
  EXPECT_EQ(points[4].gpu, -1);
  EXPECT_EQ(DcgmEntityName(DcgmEntity::kGpuInstance), "gpu_instance");
}

// Compute instances too: a dmon `GPU-CI 3` row whose hierarchy row is `-> CI 1/2/0` (EntityID 3,
// under GPU 1's GPU instance 2) counts under GPU 1, instance 2, compute instance 0, whatever order
// the two files are read in (the hierarchy's file name sorts after the dmon's here, before it in the
// second directory).
TEST(LoadDcgm, DmonComputeInstanceRowsLinkedThroughDiscovery) {
  for (const char* discovery_name : {"z_discovery.txt", "a_discovery.txt"}) {
    const std::filesystem::path root = testing::TempDir() + "/mig_ci_" + std::string(discovery_name, 1);
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "h1");
    {
      std::ofstream f(root / "h1" / "m_dmon.txt");
      f << "#Entity   SMACT\nID\nGPU 1     0.500\nGPU-CI 3  0.250\nGPU-I 4   0.125\n";
    }
    {
      std::ofstream f(root / "h1" / discovery_name);
      f << "| Instance Hierarchy |\n"
           "| GPU 1 | GPU GPU-abc (EntityID: 1) |\n"
           "| -> I 1/2 | GPU Instance (EntityID: 4) |\n"
           "|    -> CI 1/2/0 | Compute Instance (EntityID: 3) |\n";
    }
    LoadOptions opt;
    opt.untimed_at_ns = int64_t{1714521600} * 1000000000;
    auto ds = LoadPaths({root.string()}, opt);
    ASSERT_TRUE(ds.ok());
    std::map<std::tuple<int, int, int, int>, double> got;  // (entity, gpu, instance, compute instance)
    for (const auto& [k, s] : ds->dcgm.series) {
      got[{static_cast<int>(k.entity), k.gpu, k.instance, k.compute_instance}] = s.points.at(0).second;
    }
    EXPECT_EQ(got, (std::map<std::tuple<int, int, int, int>, double>{
                       {{static_cast<int>(DcgmEntity::kGpu), 1, -1, -1}, 0.5},
                       {{static_cast<int>(DcgmEntity::kGpuInstance), 1, 2, -1}, 0.125},
                       {{static_cast<int>(DcgmEntity::kComputeInstance), 1, 2, 0}, 0.25}}))
        << discovery_name;
    for (const Diagnostic& d : ds->diag.items()) EXPECT_EQ(d.reason.find("MIG instance"), std::string::npos) << d.ToString();
    std::filesystem::remove_all(root);
  }
}

}  // namespace load_test
}  // namespace toposcope::model
