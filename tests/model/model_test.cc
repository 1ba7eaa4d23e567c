// Tests of model/: loading real fixtures into a Dataset (format detection, host attribution,
// declared link classes), NCCL XML path classification, the topology JSON round trip.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/formats/sniff.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/topology.h"

namespace toposcope::model {
namespace model_test {

const std::string kFix = TOPOSCOPE_FIXTURES;

const InputFile* FindInput(const Dataset& ds, const std::string& suffix) {
  for (const auto& in : ds.inputs) {
    if (in.path.size() >= suffix.size() && in.path.compare(in.path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return &in;
    }
  }
  return nullptr;
}

TEST(Sniff, RecognisesEveryRealFixtureOfTheNodeFormats) {
  struct Case {
    const char* dir;
    formats::FileFormat format;
  };
  for (const Case& c : {Case{"nvidia_smi_topo", formats::FileFormat::kNvsmiTopo},
                        Case{"nccl_topo_xml", formats::FileFormat::kNcclTopoXml},
                        Case{"nccl_graph_xml", formats::FileFormat::kNcclGraphXml},
                        Case{"cuda_p2p", formats::FileFormat::kP2pBandwidthLatencyTest},
                        Case{"nvbandwidth", formats::FileFormat::kNvbandwidth}}) {
    for (const auto& e : std::filesystem::directory_iterator(kFix + "/" + c.dir)) {
      auto head = ReadHead(e.path().string());
      ASSERT_TRUE(head.ok());
      EXPECT_EQ(formats::SniffFormat(*head).format, c.format) << e.path();
    }
  }
  EXPECT_EQ(formats::SniffFormat("").format, formats::FileFormat::kUnknown);
  EXPECT_EQ(formats::SniffFormat(std::string("\x7f" "ELF\0\0", 6)).format, formats::FileFormat::kUnknown);
  EXPECT_EQ(formats::SniffFormat("{\"schema\": \"toposcope.truth/1\"}").format, formats::FileFormat::kTruthJson);
  EXPECT_EQ(formats::SniffFormat("src,dst,bandwidth_gbps\n0,1,2\n").format, formats::FileFormat::kP2pCsv);
}

TEST(LoadPaths, ReadsEveryNodeFixtureAndSaysWhatItSkipped) {
  auto ds = LoadPaths({kFix}, {});
  ASSERT_TRUE(ds.ok()) << ds.error().ToString();
  int used = 0;
  for (const auto& in : ds->inputs) {
    if (in.skipped) {
      EXPECT_FALSE(in.skip_reason.empty()) << in.path;
      continue;
    }
    ++used;
    EXPECT_FALSE(in.host.empty()) << in.path;
  }
  // 6 topo + 5 topology XML + 1 graph XML + 1 p2pBandwidthLatencyTest + 4 nvbandwidth at least.
  EXPECT_GE(used, 17);
  const InputFile* a800 = FindInput(*ds, "nvidia_smi_topo/a800_8gpu_nv8_4nic_driver525.txt");
  ASSERT_NE(a800, nullptr);
  EXPECT_FALSE(a800->skipped);
  EXPECT_EQ(a800->format, "nvidia-smi-topo");
  EXPECT_EQ(a800->host, "nvidia_smi_topo");  // first directory below the given root
  EXPECT_EQ(a800->rejected, 0);
}

TEST(LoadPaths, HostIsTheFileStemWhenFilesLieInTheRoot) {
  auto ds = LoadPaths({kFix + "/nvidia_smi_topo"}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_TRUE(ds->hosts.count("a800_8gpu_nv8_4nic_driver525"));
  const HostEvidence& h = ds->hosts.at("a800_8gpu_nv8_4nic_driver525");
  EXPECT_EQ(h.gpus.size(), 8U);
  EXPECT_EQ(h.nics.size(), 4U);
  EXPECT_EQ(h.nvsmi_links.size(), 28U);
  EXPECT_EQ(h.nvsmi_links.at({0, 1}).cls, (LinkClass{LinkType::kNvlink, 8}));
  EXPECT_EQ(h.gpus.at(4).numa_node, 1);
  EXPECT_EQ(h.gpus.at(4).cpu_affinity, "32-63,96-127");
  EXPECT_EQ(h.gpu_nic.at({1, "mlx5_0"}).type, LinkType::kPix);

  const HostEvidence& dgx1 = ds->hosts.at("dgx1_v100_topo_mp_pcie_only");
  EXPECT_EQ(dgx1.nvsmi_links.at({0, 1}).cls.type, LinkType::kPix);
  EXPECT_EQ(dgx1.nvsmi_links.at({0, 2}).cls.type, LinkType::kPhb);
  EXPECT_EQ(dgx1.nvsmi_links.at({0, 4}).cls.type, LinkType::kSys);
  // The p2p status matrix declares no link classes.
  EXPECT_TRUE(ds->hosts.at("rtx2080ti_x2_topo_p2p_p").nvsmi_links.empty());
}

TEST(LoadPaths, NvbandwidthHostnameLineNamesTheHost) {
  auto ds = LoadPaths({kFix + "/nvbandwidth"}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_TRUE(ds->hosts.count("sglang-host-cuda"));
  const HostEvidence& a6000 = ds->hosts.at("nvbandwidth_issue50_v0.8_6x_rtx_a6000_pcie_d2d_memcpy_read_ce");
  ASSERT_TRUE(a6000.measured.count({0, 1}));
  EXPECT_EQ(a6000.measured.at({0, 1}).samples_gbps.size(), 2U);  // both directions
  EXPECT_NEAR(a6000.measured.at({0, 1}).samples_gbps[0], 26.34, 1e-9);
}

// nvbandwidth outputs whose `Device N:` lines are missing (cut, or hidden by the poster) still give
// the GPUs their matrices name: host<->device and local tests name them on the GPU side only.
TEST(P2pReport, GpusComeFromTheMatricesWithoutDeviceLines) {
  std::string text;
  {
    auto whole = ReadFileText(kFix + "/nvbandwidth/nvbandwidth_issue15_v0.2_8x_rtx4090_h2d_d2h_ce_PARTIAL.txt");
    ASSERT_TRUE(whole.ok());
    for (std::string_view line : SplitLines(*whole)) {
      if (line.rfind("Device ", 0) != 0) text += std::string(line) + "\n";
    }
  }
  ASSERT_EQ(text.find("Device "), std::string::npos);
  Diagnostics diag;
  ReadCounts counts;
  auto r = formats::ParseNvbandwidth(text, "h2d.txt", diag, counts);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  Dataset ds;
  AddP2pReport(ds, "h", "h2d.txt", *r);
  ASSERT_EQ(ds.hosts.at("h").gpus.size(), 8U);
  EXPECT_EQ(ds.hosts.at("h").gpus.rbegin()->first, 7);
  // A device-to-device matrix whose diagonal is N/A and one GPU's row and column too: the GPU stays.
  const std::string d2d =
      "Running device_to_device_memcpy_read_ce.\n"
      "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)\n"
      "           0         1         2\n"
      " 0       N/A     20.00       N/A\n"
      " 1     20.00       N/A       N/A\n"
      " 2       N/A       N/A       N/A\n"
      "\n"
      "SUM device_to_device_memcpy_read_ce 40.00\n";
  auto r2 = formats::ParseNvbandwidth(d2d, "d2d.txt", diag, counts);
  ASSERT_TRUE(r2.ok()) << r2.error().ToString();
  AddP2pReport(ds, "g", "d2d.txt", *r2);
  EXPECT_EQ(ds.hosts.at("g").gpus.size(), 3U);
}

// nvidia-smi -q on a host whose GPUs another source named: a section whose bus id another source
// gave is that GPU (whatever its place); a place whose GPU has another bus id is no match; a model
// another source gave is kept.
TEST(P2pReport, OneMeasurementInTwoLayoutsCountsOnce) {
  formats::P2pReport r;
  formats::P2pMatrix m;
  m.row_ids = m.col_ids = {0, 1};
  m.values = {{900, 296.03}, {295.5, 900}};
  r.matrices.push_back(m);
  Dataset ds;
  AddP2pReport(ds, "h", "h/p2pBandwidthLatencyTest.txt", r);
  AddP2pReport(ds, "h", "h/p2p_matrix.csv", r);  // the same numbers, the probe's second layout
  const auto& ml = ds.hosts.at("h").measured.begin()->second;
  EXPECT_EQ(ml.samples_gbps.size(), 2u);  // both directions, once
  r.matrices[0].values[0][1] = 297.1;       // a second run differs: it counts
  AddP2pReport(ds, "h", "h/run2.csv", r);
  EXPECT_EQ(ds.hosts.at("h").measured.begin()->second.samples_gbps.size(), 4u);
}

TEST(NvsmiQuery, SectionsMatchGpusByBusIdBeforePlace) {
  auto text = ReadFileText(std::string(TOPOSCOPE_TESTDATA) +
                           "/real/nvidia_smi_q/h100_80gb_hbm3_x8_driver565_tlimit_nvidia_smi_q.txt");
  ASSERT_TRUE(text.ok());
  Diagnostics diag;
  auto q = formats::ParseNvsmiQuery(*text, "q.txt", diag);
  ASSERT_TRUE(q.ok());
  Dataset ds;
  HostEvidence& h = ds.Host("n1");
  h.gpus[5].index = 5;
  h.gpus[5].bus_id = "0000:2A:00.0";  // the file's second section
  h.gpus[5].model = "H100 from nvbandwidth";
  h.gpus[1].index = 1;
  h.gpus[1].bus_id = "0000:99:00.0";  // a bus id no section has
  AddNvsmiQuery(ds, "n1", "q.txt", *q);
  ASSERT_EQ(h.gpu_queries.size(), 8U);
  EXPECT_EQ(h.gpu_queries[1].index, 5);
  EXPECT_EQ(h.gpu_queries[1].matched_by, "bus_id");
  EXPECT_EQ(h.gpus.at(5).model, "H100 from nvbandwidth");
  EXPECT_EQ(h.gpu_queries[5].index, -1);  // its place, 5, is the GPU of bus 2a
  EXPECT_EQ(h.gpu_queries[5].matched_by, "");
  EXPECT_EQ(h.gpu_queries[0].index, 0);
  EXPECT_EQ(h.gpu_queries[0].matched_by, "position");
  EXPECT_EQ(h.gpus.at(0).model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h.gpus.at(0).bus_id, "0000:18:00.0");
}

TEST(NvsmiTopo, NicColumnsWithoutNicLegendStayVerticesOfTheirOwn) {
  // DGX A100 `nvidia-smi topo -m` cut before its NIC Legend (NVIDIA/nccl issue #1505).
  const std::string path = std::string(TOPOSCOPE_TESTDATA) +
                           "/real/nvidia_smi_topo/dgx_a100_nv12_nic0_nic11_no_nic_legend_nccl_issue1505_excerpt.txt";
  auto text = ReadFileText(path);
  ASSERT_TRUE(text.ok()) << path;
  Dataset ds;
  ReadCounts counts;
  auto topo = formats::ParseNvsmiTopo(*text, path, ds.diag, counts);
  ASSERT_TRUE(topo.ok());
  AddNvsmiTopo(ds, "dgx", path, *topo);
  const HostEvidence& h = ds.hosts.at("dgx");
  ASSERT_EQ(h.nics.size(), 12U);
  EXPECT_EQ(h.nics.count(""), 0U);
  EXPECT_EQ(h.nics.at("NIC11").device, "NIC11");
  EXPECT_EQ(h.gpu_nic.at({0, "NIC1"}).type, LinkType::kPxb);
  EXPECT_EQ(h.gpu_nic.at({0, "NIC2"}).type, LinkType::kSys);
}

TEST(NvsmiTopo, P2pMatrixGivesGpusAndTheirStatus) {
  formats::NvsmiTopo topo;
  topo.kind = formats::NvsmiMatrixKind::kP2p;
  for (int g = 0; g < 3; ++g) {
    formats::NvsmiDevice d;
    d.label = "GPU" + std::to_string(g);
    d.gpu_index = g;
    d.has_row = true;
    topo.devices.push_back(d);
  }
  topo.cells = {{"X", "OK", "CNS"}, {"OK", "X", "OK"}, {"OK", "OK", "X"}};
  Dataset ds;
  AddNvsmiTopo(ds, "p", "p2p.txt", topo);
  const HostEvidence& h = ds.hosts.at("p");
  EXPECT_EQ(h.gpus.size(), 3U);
  EXPECT_TRUE(h.nvsmi_links.empty());
  EXPECT_EQ(h.p2p_status.at(MakePair(0, 1)), "OK");
  EXPECT_EQ(h.p2p_status.at(MakePair(0, 2)), "CNS");  // one direction not supported: not OK
  EXPECT_EQ(h.p2p_status.at(MakePair(1, 2)), "OK");
}

TEST(NcclTopo, ClassifiesPairsOfTheRealH100DumpAsNvswitch) {
  auto ds = LoadPaths({kFix + "/nccl_topo_xml/ibm_vpc_gx3d_h100_8gpu_8nic_nccl2.22.3.xml"}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->hosts.size(), 1U);
  const HostEvidence& h = ds->hosts.begin()->second;
  EXPECT_EQ(h.gpus.size(), 8U);
  EXPECT_EQ(h.nics.size(), 8U);
  ASSERT_EQ(h.xml_links.size(), 28U);
  for (const auto& [p, l] : h.xml_links) {
    EXPECT_EQ(l.cls, (LinkClass{LinkType::kNvswitch, 18})) << p.first << "-" << p.second;
  }
  EXPECT_EQ(h.gpus.at(0).bus_id, "0000:a4:00.0");
  EXPECT_EQ(h.nics.at("mlx5_7").speed_gbps, 200.0);
}

TEST(NcclTopo, SkeletonPciTreesGivePixAndSys) {
  auto ds = LoadPaths({kFix + "/nccl_topo_xml/azure_azhpc_ndv4-topo.xml"}, {});
  ASSERT_TRUE(ds.ok());
  const HostEvidence& h = ds->hosts.begin()->second;
  ASSERT_EQ(h.gpus.size(), 8U);
  // GPUs 0 and 1 hang from the same bridge under NUMA 0; 0 and 2 sit on different CPUs.
  EXPECT_EQ(h.xml_links.at({0, 1}).cls.type, LinkType::kPix);
  EXPECT_EQ(h.xml_links.at({0, 2}).cls.type, LinkType::kSys);
}

TEST(NcclTopo, SelfTargetedNvlinksAreNotPeers) {
  auto ds = LoadPaths({kFix + "/nccl_topo_xml/azure_azhpc_ncv4-topo.xml"}, {});
  ASSERT_TRUE(ds.ok());
  const HostEvidence& h = ds->hosts.begin()->second;
  ASSERT_EQ(h.gpus.size(), 4U);
  for (const auto& [p, l] : h.xml_links) EXPECT_EQ(l.cls.type, LinkType::kSys);
}

TEST(Topology, JsonRoundTrip) {
  auto ds = LoadPaths({kFix + "/nvidia_smi_topo", kFix + "/nccl_topo_xml", kFix + "/nvbandwidth"}, {});
  ASSERT_TRUE(ds.ok());
  const Topology t = BuildTopology(*ds);
  EXPECT_GT(t.vertices.size(), 50U);
  EXPECT_GT(t.edges.size(), 100U);
  const auto j = TopologyToJson(t);
  auto back = TopologyFromJson(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_TRUE(*back == t);
  EXPECT_EQ(TopologyToJson(*back).dump(), j.dump());
  EXPECT_FALSE(TopologyFromJson(nlohmann::json::parse("{\"schema\":\"x\"}")).ok());
  auto bad = nlohmann::json::parse(j.dump());
  bad["edges"][0]["type"] = "WARP";
  EXPECT_FALSE(TopologyFromJson(bad).ok());
}

TEST(LoadPaths, MissingPathIsAnErrorAndGarbageIsSkipped) {
  EXPECT_FALSE(LoadPaths({"/nonexistent/dir"}, {}).ok());
  const auto dir = std::filesystem::temp_directory_path() / "toposcope_model_garbage";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteFileText((dir / "junk.bin").string(), std::string("\0\1\2\3garbage", 11)).ok());
  ASSERT_TRUE(WriteFileText((dir / "empty.txt").string(), "").ok());
  auto ds = LoadPaths({dir.string()}, {});
  ASSERT_TRUE(ds.ok());
  ASSERT_EQ(ds->inputs.size(), 2U);
  for (const auto& in : ds->inputs) {
    EXPECT_TRUE(in.skipped);
    EXPECT_FALSE(in.skip_reason.empty());
  }
}

}  // namespace model_test
}  // namespace toposcope::model
