// Tests of experiments/anonymize on a small hand-made dataset: whole-token replacement, new names
// in the seed's style, every text file (plain, .gz, .zst) and every file and directory name
// renamed, captures copied byte for byte under their new names, job columns blanked, truth.json
// renamed, the mapping written, and clear errors for a bad dataset or output.
#include "toposcope/experiments/anonymize.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "gzip_text.h"
#include "temp_dir.h"
#include "toposcope/base/file_io.h"

namespace toposcope::experiments {
namespace anonymize_test {

namespace fs = std::filesystem;
using nlohmann::json;

std::string Raw(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteRawFile(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

std::string Zstd(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3));
  return out;
}

// A pcap header (little-endian magic) followed by bytes that spell a host name: payloads are
// never rewritten.
std::string PcapBytes() {
  std::string b("\xd4\xc3\xb2\xa1\x02\x00\x04\x00", 8);
  b += std::string(16, '\0') + "host1 in a payload";
  return b;
}

// Hosts host1 and host12 (one a prefix of the other), switch leaf0, capture leaf0-p1.pcap.
void WriteDataset(const fs::path& d) {
  WriteRawFile(d / "truth.json", R"({
  "schema": "toposcope.truth/1",
  "hosts": [{"name": "host1", "leaf": "leaf0"}, {"name": "host12", "leaf": "leaf0"}],
  "fabric": {"switches": [{"name": "leaf0"}], "links": [{"id": "leaf0--host1"}]},
  "rdma": {"captures": [{"file": "captures/leaf0-p1.pcap", "host": "host1"}]}
}
)");
  WriteRawFile(d / "host1" / "qp-states.csv",
               "ts_ns,host,qp,dev,job,from_state,to_state\n1,host1,7,mlx5_0,job0,RESET,INIT\n"
               "2,host1,7,mlx5_0,\"job,1\",INIT,RTR\n");
  WriteRawFile(d / "host12" / "qp-states.jsonl", R"({"ts_ns":1,"host":"host12","qp":9,"job":"job3"})" "\n");
  WriteRawFile(d / "host12" / "nccl-inspector" / "host12-pid5.log", R"({"hostname":"host12"})" "\n");
  WriteRawFile(d / "host1" / "nccl.log.gz", testing_support::Gzip("host1:11:11 [0] NCCL INFO via host12\n"));
  WriteRawFile(d / "host12" / "probes.csv.zst", Zstd("ts_ns,src,dst,hops,rtt_us\n1,host12,host1,leaf0,2.5\n"));
  WriteRawFile(d / "captures" / "leaf0-p1.pcap", PcapBytes());
  WriteRawFile(d / "inventory.csv", "host,ip\nhost1,10.0.0.1\nhost12,10.0.0.2\nhost1x,10.0.0.3\n");
}

TEST(ReplaceNameTokens, ReplacesWholeTokensOnlyAndPrefersTheLongerName) {
  const NameMap m = {{"host1", "A"}, {"host12", "B"}, {"leaf0-p1.pcap", "C.pcap"}, {"leaf0", "L"}};
  EXPECT_EQ(ReplaceNameTokens("host1 host12 host123 xhost1 host1_a host1x", m), "A B host123 xhost1 host1_a host1x");
  EXPECT_EQ(ReplaceNameTokens("host1/gpu3,host12:5:5 host1-pid7.log", m), "A/gpu3,B:5:5 A-pid7.log");
  EXPECT_EQ(ReplaceNameTokens("captures/leaf0-p1.pcap leaf0->leaf0 leaf0--host12", m), "captures/C.pcap L->L L--B");
  EXPECT_EQ(ReplaceNameTokens("", m), "");
}

TEST(MakeRenameMap, DrawsUniqueNamesInTheStyleOfTheSeed) {
  std::vector<std::string> hosts;
  for (int i = 1; i <= 200; ++i) hosts.push_back("node" + std::to_string(i));
  const std::vector<std::regex> host_styles = {std::regex("dgx-[a-h][0-9]{2}-[0-9]{2}"),
                                               std::regex("gpu-r[0-9]+-n[0-9]+"),
                                               std::regex("ip-10-[0-9]+-[0-9]+-[0-9]+")};
  std::set<NameStyle> seen;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    const NameStyle style = NameStyleOfSeed(seed);
    seen.insert(style);
    const RenameMap m = MakeRenameMap(hosts, {"leaf00", "spine00"}, {"leaf00-p1.pcap"}, style, seed);
    std::set<std::string> fresh;
    for (const auto& [old, n] : m.hosts) {
      EXPECT_TRUE(std::regex_match(n, host_styles[static_cast<size_t>(style) - 1])) << n;
      fresh.insert(n);
    }
    EXPECT_EQ(fresh.size(), hosts.size());
    EXPECT_EQ(m.switches.size(), 2u);
    ASSERT_EQ(m.captures.size(), 1u);
    EXPECT_EQ(fs::path(m.captures.begin()->second).extension(), ".pcap");
    EXPECT_EQ(m.captures.begin()->second.find("leaf"), std::string::npos);
    // The same seed gives the same map.
    EXPECT_EQ(MakeRenameMap(hosts, {"leaf00", "spine00"}, {"leaf00-p1.pcap"}, style, seed).hosts, m.hosts);
  }
  EXPECT_EQ(seen.size(), 3u);
  // Random order: the new names sorted are not in the old names' order.
  const RenameMap m = MakeRenameMap(hosts, {}, {}, NameStyle::kRackNode, 5);
  int in_order = 0;
  for (int i = 1; i < 200; ++i) {
    in_order += m.hosts.at("node" + std::to_string(i)) < m.hosts.at("node" + std::to_string(i + 1)) ? 1 : 0;
  }
  EXPECT_GT(in_order, 60);
  EXPECT_LT(in_order, 140);
}

TEST(AnonymizeDataset, RenamesEveryFileAndNameConsistently) {
  sim::TempDir tmp("anonymize");
  const fs::path in = tmp.path() / "in";
  const fs::path out = tmp.path() / "out";
  WriteDataset(in);
  Result<AnonymizeSummary> s = AnonymizeDataset(in.string(), out.string(), {.seed = 4, .blank_jobs = true});
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  ASSERT_EQ(s->map.hosts.size(), 2u);
  const std::string h1 = s->map.hosts.at("host1");
  const std::string h12 = s->map.hosts.at("host12");
  const std::string leaf = s->map.switches.at("leaf0");
  const std::string cap = s->map.captures.at("leaf0-p1.pcap");
  EXPECT_EQ(s->files, 8);
  EXPECT_EQ(s->files_copied, 1);
  EXPECT_EQ(s->jobs_blanked, 3);

  // Directories and file names.
  EXPECT_TRUE(fs::exists(out / h1 / "qp-states.csv"));
  EXPECT_TRUE(fs::exists(out / h12 / "nccl-inspector" / (h12 + "-pid5.log")));
  EXPECT_EQ(Raw(out / "captures" / cap), PcapBytes());
  EXPECT_FALSE(fs::exists(out / "host1"));

  // Contents, compressed ones included, with job cells blanked (quoted ones too).
  EXPECT_EQ(*ReadFileText((out / h1 / "qp-states.csv").string()),
            "ts_ns,host,qp,dev,job,from_state,to_state\n1," + h1 + ",7,mlx5_0,,RESET,INIT\n2," + h1 +
                ",7,mlx5_0,,INIT,RTR\n");
  const json jl = json::parse(*ReadFileText((out / h12 / "qp-states.jsonl").string()));
  EXPECT_EQ(jl["job"], "");
  EXPECT_EQ(jl["host"], h12);
  EXPECT_EQ(DetectCompression(Raw(out / h1 / "nccl.log.gz")), Compression::kGzip);
  EXPECT_EQ(*ReadFileText((out / h1 / "nccl.log.gz").string()), h1 + ":11:11 [0] NCCL INFO via " + h12 + "\n");
  EXPECT_EQ(DetectCompression(Raw(out / h12 / "probes.csv.zst")), Compression::kZstd);
  EXPECT_EQ(*ReadFileText((out / h12 / "probes.csv.zst").string()),
            "ts_ns,src,dst,hops,rtt_us\n1," + h12 + "," + h1 + "," + leaf + ",2.5\n");
  // Whole tokens only: host1x is not a name of the dataset.
  EXPECT_EQ(*ReadFileText((out / "inventory.csv").string()),
            "host,ip\n" + h1 + ",10.0.0.1\n" + h12 + ",10.0.0.2\nhost1x,10.0.0.3\n");

  // truth.json renamed (captures by file), so that the scorer still matches.
  const json truth = json::parse(*ReadFileText((out / "truth.json").string()));
  EXPECT_EQ(truth["hosts"][0]["name"], h1);
  EXPECT_EQ(truth["hosts"][1]["leaf"], leaf);
  EXPECT_EQ(truth["fabric"]["links"][0]["id"], leaf + "--" + h1);
  EXPECT_EQ(truth["rdma"]["captures"][0]["file"], "captures/" + cap);

  // The mapping.
  const json map = json::parse(*ReadFileText((out / "rename_map.json").string()));
  EXPECT_EQ(map["schema"], "toposcope.rename_map/1");
  EXPECT_EQ(map["hosts"]["host12"], h12);
  EXPECT_EQ(map["switches"]["leaf0"], leaf);
  EXPECT_EQ(map["captures"]["leaf0-p1.pcap"], cap);
  EXPECT_EQ(map["style"], std::string(NameStyleName(NameStyleOfSeed(4))));
}

TEST(AnonymizeDataset, WithoutTruthTakesTheNamesFromTheInputs) {
  sim::TempDir tmp("anonymize_notruth");
  const fs::path in = tmp.path() / "in";
  WriteDataset(in);
  fs::remove(in / "truth.json");
  std::vector<std::string> hosts, switches, captures;
  ASSERT_TRUE(DatasetNames(in.string(), &hosts, &switches, &captures).ok());
  EXPECT_EQ(captures, std::vector<std::string>{"leaf0-p1.pcap"});
  EXPECT_NE(std::find(hosts.begin(), hosts.end(), "host1"), hosts.end());
  EXPECT_NE(std::find(hosts.begin(), hosts.end(), "host12"), hosts.end());
  EXPECT_EQ(switches, std::vector<std::string>{"leaf0"});
}

TEST(AnonymizeDataset, BadDatasetOrOutputIsAClearError) {
  sim::TempDir tmp("anonymize_bad");
  const fs::path in = tmp.path() / "in";
  WriteDataset(in);
  Result<AnonymizeSummary> inside = AnonymizeDataset(in.string(), (in / "anon").string(), {});
  ASSERT_FALSE(inside.ok());
  EXPECT_EQ(inside.error().kind, ErrorKind::kUsage);
  Result<AnonymizeSummary> same = AnonymizeDataset(in.string(), in.string(), {});
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.error().kind, ErrorKind::kUsage);
  Result<AnonymizeSummary> missing = AnonymizeDataset((tmp.path() / "nope").string(), (tmp.path() / "o").string(), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kInput);
  EXPECT_NE(missing.error().ToString().find("nope"), std::string::npos);
  WriteRawFile(in / "truth.json", "{\"hosts\": [");
  Result<AnonymizeSummary> bad = AnonymizeDataset(in.string(), (tmp.path() / "o2").string(), {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kInput);
  EXPECT_NE(bad.error().ToString().find("truth.json"), std::string::npos);
}

}  // namespace anonymize_test
}  // namespace toposcope::experiments
