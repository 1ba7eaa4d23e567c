// Record accounting over every real fixture and every file of testdata/: each file, loaded on its
// own, is one input whose counts balance (accepted + rejected = read) and whose rejected count is
// the diagnostics' count for that path; the streamed inputs (event inputs re-read by the passes,
// captures, QP state logs) balance too, and a re-read of an event input reports nothing twice.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "toposcope/base/file_io.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/events.h"
#include "toposcope/model/sources.h"
#include "temp_dir.h"

namespace toposcope::model {
namespace accounting_test {
namespace fs = std::filesystem;

std::vector<std::string> AllFiles() {
  std::vector<std::string> out;
  for (const char* root : {TOPOSCOPE_FIXTURES, TOPOSCOPE_TESTDATA}) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_regular_file(ec)) out.push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The identity for every input of a dataset; returns how many inputs were checked.
void CheckInputs(const Dataset& ds, const std::string& what) {
  int64_t rejected = 0;
  for (const InputFile& in : ds.inputs) {
    EXPECT_EQ(in.accepted + in.rejected, in.records) << what << ": " << in.path;
    EXPECT_EQ(ds.diag.RejectedFor(in.path), in.rejected) << what << ": " << in.path;
    rejected += in.rejected;
  }
  EXPECT_EQ(ds.diag.rejected_total(), rejected) << what;
}

TEST(Accounting, EveryFixtureBalancesAndMatchesItsDiagnostics) {
  const std::vector<std::string> files = AllFiles();
  ASSERT_GT(files.size(), 100u);
  int64_t streamed = 0;
  std::map<std::string, int> read_by_format;  // inputs read (not skipped) with records, per format
  for (const std::string& file : files) {
    auto ds = LoadPaths({file}, {});
    ASSERT_TRUE(ds.ok()) << file;
    ASSERT_EQ(ds->inputs.size(), 1u) << file;
    CheckInputs(*ds, file);
    const InputFile& in = ds->inputs[0];
    if (!in.skipped && in.records > 0) ++read_by_format[in.format];
    for (const EventInput& e : ds->event_inputs) {  // re-read by the anchors and the timeline
      Diagnostics diag;
      EventInputCounts counts;
      ASSERT_TRUE(MakeEventSource(e, &diag, &counts)([](formats::TraceEvent&&) {}).ok()) << file;
      EXPECT_TRUE(counts.counts.Balanced()) << file;
      EXPECT_EQ(diag.rejected_total() + diag.warnings_total(), 0) << file << ": reported twice";
      EXPECT_LE(counts.counts.read, in.records) << file;
      ++streamed;
    }
    for (const CaptureInput& c : ds->captures) {
      Diagnostics diag;
      auto r = StreamCapture(c, false, [](const formats::RocePacket&) {}, diag);
      if (!r.ok()) continue;  // a capture libpcap refuses is one rejection of the traffic pass
      EXPECT_TRUE(r->counts.Balanced()) << file;
      EXPECT_EQ(diag.RejectedFor(c.path), r->counts.rejected) << file;
      ++streamed;
    }
    for (const EventInput& q : ds->qp_state_inputs) {
      Diagnostics diag;
      const StreamedInput s = StreamQpStateLog(q, [](const formats::QpStateRecord&) {}, diag);
      EXPECT_TRUE(s.counts.Balanced()) << file;
      EXPECT_EQ(diag.RejectedFor(q.path), s.counts.rejected) << file;
      ++streamed;
    }
  }
  EXPECT_GT(streamed, 10);
  // The node and fabric formats read since issue 11 are among them (every real file of each).
  EXPECT_EQ(read_by_format["nvidia-smi-q"], 4);
  EXPECT_GE(read_by_format["iblinkinfo"], 1);
  EXPECT_GT(read_by_format["ibnetdiscover"], 0);
}

TEST(Accounting, ATraceCountsItsEventsWhenLoaded) {
  auto ds = LoadPaths({std::string(TOPOSCOPE_FIXTURES) + "/kineto_trace"}, {});
  ASSERT_TRUE(ds.ok());
  int64_t traces = 0;
  for (const InputFile& in : ds->inputs) {
    if (in.format != "chrome-trace") continue;
    ++traces;
    EXPECT_GT(in.records, 0) << in.path;
  }
  EXPECT_GT(traces, 0);
  CheckInputs(*ds, "kineto_trace");
}

TEST(Accounting, AStreamedFileThatFailsLateIsReadWithItsError) {
  sim::TempDir dir("accounting_late");
  // A gzip stream cut short: the lines before the cut are records, then the read fails.
  const std::string plain = (dir.path() / "dmon.txt").string();
  {
    std::ofstream out(plain);
    out << "#Entity   SMACT   DRAMA\nID\n";
    uint32_t x = 12345;
    for (int i = 0; i < 4000; ++i) {
      x = x * 1103515245u + 12345u;
      out << "GPU " << i % 4 << "     0." << (x >> 8) % 10000 << "     0." << (x >> 3) % 997 << "\n";
    }
  }
  ASSERT_EQ(std::system(("gzip -f " + plain).c_str()), 0);
  const std::string cut = (dir.path() / "cut.txt.gz").string();
  {
    std::ifstream in(plain + ".gz", std::ios::binary);
    const std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(gz.size(), 1000u);
    std::ofstream(cut, std::ios::binary) << gz.substr(0, gz.size() * 2 / 3);
  }
  auto ds = LoadPaths({cut}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->inputs.size(), 1u);
  const InputFile& in = ds->inputs[0];
  EXPECT_FALSE(in.skipped) << in.skip_reason;
  EXPECT_GT(in.records, 1);
  EXPECT_GE(in.rejected, 1);
  ASSERT_EQ(ds->event_inputs.size(), 1u);
  CheckInputs(*ds, "truncated dmon");
  ASSERT_FALSE(ds->diag.items().empty());
  // The last rejection is the read error (the placement warning of its untimed samples comes after
  // it: they are placed once every input is read).
  const Diagnostic* last_rejected = nullptr;
  for (const Diagnostic& d : ds->diag.items()) {
    if (d.severity == Severity::kRejected) last_rejected = &d;
  }
  ASSERT_NE(last_rejected, nullptr);
  EXPECT_NE(last_rejected->reason.find("read error"), std::string::npos);
  EXPECT_NE(ds->diag.items().back().reason.find("samples carry no time"), std::string::npos);
  // The timeline's re-read streams what was counted and fails nothing.
  Diagnostics diag;
  EventInputCounts counts;
  EXPECT_TRUE(MakeEventSource(ds->event_inputs[0], &diag, &counts)([](formats::TraceEvent&&) {}).ok());
  EXPECT_EQ(counts.counts.read + 1, in.records);
}

}  // namespace accounting_test
}  // namespace toposcope::model

namespace toposcope::model {
namespace accounting_test {

TEST(Accounting, ARejectedTopologyItemOfASlurmYamlIsCounted) {
  sim::TempDir dir("accounting_slurm");
  const std::string path = (dir.path() / "topology.yaml").string();
  std::ofstream(path) << "- topology: good\n  flat: true\n"
                         "- topology: bad\n  flat: true\n  block:\n    blocks:\n      - block: b1\n"
                         "        nodes: n[1-2]\n";
  auto ds = LoadPaths({path}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->inputs.size(), 1u);
  EXPECT_EQ(ds->inputs[0].format, "slurm-topology-yaml");
  EXPECT_EQ(ds->inputs[0].rejected, 1);
  EXPECT_EQ(ds->diag.rejected_total(), 1);
  CheckInputs(*ds, "slurm yaml");
}

}  // namespace accounting_test
}  // namespace toposcope::model

namespace toposcope::model {
namespace accounting_test {

TEST(Accounting, AFileItsReaderRefusesKeepsTheRejectionsItReported) {
  sim::TempDir dir("accounting_refused");
  const std::string plain = (dir.path() / "nccl.log").string();
  {
    std::ofstream out(plain);
    out << "node1:1:2 [0] NCCL INFO Channel 00/02 :    0   x   1\n";
    uint32_t x = 7;
    for (int i = 0; i < 4000; ++i) {
      x = x * 1103515245u + 12345u;
      out << "node1:1:2 [0] NCCL INFO Ring 00 : " << (x >> 8) % 8 << " -> " << (x >> 4) % 8 << "\n";
    }
  }
  ASSERT_EQ(std::system(("gzip -f " + plain).c_str()), 0);
  const std::string cut = (dir.path() / "cut.log.gz").string();
  {
    std::ifstream in(plain + ".gz", std::ios::binary);
    const std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary) << gz.substr(0, gz.size() * 2 / 3);
  }
  auto ds = LoadPaths({cut}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->inputs.size(), 1u);
  EXPECT_EQ(ds->inputs[0].format, "nccl-log");
  EXPECT_TRUE(ds->inputs[0].skipped);  // the NCCL log reader keeps nothing of a file that fails
  EXPECT_GE(ds->diag.rejected_total(), 1);
  CheckInputs(*ds, "refused nccl log");
}

}  // namespace accounting_test
}  // namespace toposcope::model
