// Golden tests of the loader on real tool outputs collected from public issues, pull requests and
// documentation (testdata/real/<kind>/, each with a row in testdata/real/PROVENANCE.md): per file,
// the format the loader detects from the content, the record accounting (accepted + rejected =
// read, rejected = the diagnostics' count for the path) and the facts the file must give.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/link_type.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/events.h"

namespace toposcope::model {
namespace real_outputs_test {

constexpr int64_t kAt = int64_t{1700000000} * 1000000000;  // where untimed DCGM samples start

std::string Path(const std::string& rel) { return std::string(TOPOSCOPE_TESTDATA) + "/real/" + rel; }

// What loading one real file gave.
struct Loaded {
  Dataset ds;
  InputFile in;
  [[nodiscard]] const HostEvidence& Host() const {
    static const HostEvidence kNone;
    const auto it = ds.hosts.find(in.host);
    return it == ds.hosts.end() ? kNone : it->second;
  }
  [[nodiscard]] std::string Reasons() const {
    std::string out;
    for (const Diagnostic& d : ds.diag.items()) out += d.ToString() + "\n";
    return out;
  }
  [[nodiscard]] bool Has(const std::string& text) const { return Reasons().find(text) != std::string::npos; }
};

// Loads one file on its own and checks what every input must satisfy: one input, in the format
// `format`, whose counts balance and match the diagnostics.
Loaded Load(const std::string& rel, const std::string& format) {
  Loaded l;
  LoadOptions opt;
  opt.untimed_at_ns = kAt;
  auto ds = LoadPaths({Path(rel)}, opt);
  EXPECT_TRUE(ds.ok()) << rel;
  if (!ds.ok()) return l;
  l.ds = std::move(*ds);
  EXPECT_EQ(l.ds.inputs.size(), 1u) << rel;
  if (l.ds.inputs.empty()) return l;
  l.in = l.ds.inputs[0];
  EXPECT_EQ(l.in.format, format) << rel;
  EXPECT_EQ(l.in.accepted + l.in.rejected, l.in.records) << rel;
  EXPECT_EQ(l.ds.diag.RejectedFor(l.in.path), l.in.rejected) << rel;
  return l;
}

std::string Link(const HostEvidence& h, int a, int b) {
  const auto it = h.nvsmi_links.find(MakePair(a, b));
  return it == h.nvsmi_links.end() ? "" : NvsmiCell(it->second.cls);
}

std::string GpuNic(const HostEvidence& h, int gpu, const std::string& nic) {
  const auto it = h.gpu_nic.find({gpu, nic});
  return it == h.gpu_nic.end() ? "" : NvsmiCell(it->second);
}

// The DCGM series of `field` for GPU `gpu` (or, with `entity` and `instance`, for a MIG instance):
// its sample count (0 when absent) and first value.
std::pair<int64_t, double> Series(const Dataset& ds, int gpu, const std::string& field,
                                  model::DcgmEntity entity = model::DcgmEntity::kGpu, int instance = -1) {
  for (const auto& [k, s] : ds.dcgm.series) {
    if (k.entity == entity && k.gpu == gpu && k.instance == instance && k.link == -1 && k.field == field) {
      return {s.count, s.points.empty() ? NAN : s.points[0].second};
    }
  }
  return {0, NAN};
}

// --- nvidia-smi topo -m -------------------------------------------------------------------------

TEST(RealNvsmiTopo, FiveGpusAllPcieSysPhbNodeWithGpuNumaIdColumn) {
  const Loaded l = Load("nvidia_smi_topo/five_gpu_sys_phb_node_gpu_numa_id_club3090_issue46_excerpt.txt",
                        "nvidia-smi-topo");
  EXPECT_EQ(l.in.records, 5);
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.gpus.size(), 5u);
  EXPECT_TRUE(h.nics.empty());
  EXPECT_EQ(h.nvsmi_links.size(), 10u);  // every pair, none NVLink
  EXPECT_EQ(Link(h, 0, 1), "SYS");
  EXPECT_EQ(Link(h, 0, 4), "SYS");
  EXPECT_EQ(Link(h, 1, 2), "PHB");
  EXPECT_EQ(Link(h, 1, 3), "NODE");
  EXPECT_EQ(Link(h, 3, 4), "PHB");
  EXPECT_EQ(h.gpus.at(0).numa_node, 1);  // `GPU NUMA ID` is N/A: the NUMA Affinity column is read
  EXPECT_EQ(h.gpus.at(0).cpu_affinity, "8-15,24-31");
  EXPECT_EQ(h.gpus.at(4).numa_node, 0);
}

// One GPU: `topo -m` and `topo -p2p r` as the terminal got them, headers underlined with ANSI codes;
// `-p2p` prints no column but GPU0's own.
TEST(RealNvsmiTopo, H200OneGpuAnsiUnderlinedHeadersTopoAndP2p) {
  for (const char* rel : {"nvidia_smi_topo/h200_x1_vm_ansi_underline_topo_m.txt",
                          "nvidia_smi_topo/h200_x1_vm_ansi_underline_topo_p2p_r.txt"}) {
    SCOPED_TRACE(rel);
    const Loaded l = Load(rel, "nvidia-smi-topo");
    EXPECT_EQ(l.in.records, 1);
    EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
    ASSERT_EQ(l.Host().gpus.size(), 1u);
    EXPECT_TRUE(l.Host().nvsmi_links.empty());
  }
  EXPECT_EQ(Load("nvidia_smi_topo/h200_x1_vm_ansi_underline_topo_m.txt", "nvidia-smi-topo").Host().gpus.at(0).cpu_affinity,
            "0-15");
}

TEST(RealNvsmiTopo, Nv18EightGpusEighteenNicsAfterAPromptCutInARow) {
  const Loaded l = Load("nvidia_smi_topo/nv18_8gpu_18nic_gpu_numa_id_prompt_deepep_issue145_excerpt.txt",
                        "nvidia-smi-topo");
  EXPECT_EQ(l.in.records, 5);
  EXPECT_EQ(l.in.accepted, 4);
  EXPECT_EQ(l.in.rejected, 1);  // GPU4's row, cut after its first cell
  EXPECT_TRUE(l.Has(":7: rejected: row has 1 cells, the header has 26 devices")) << l.Reasons();
  EXPECT_TRUE(l.Has("18 NIC column(s) without a NIC Legend entry")) << l.Reasons();
  const HostEvidence& h = l.Host();
  EXPECT_EQ(h.gpus.size(), 8u);
  ASSERT_EQ(h.nics.size(), 18u);
  EXPECT_TRUE(h.nics.count("NIC17"));
  EXPECT_EQ(Link(h, 0, 1), "NV18");
  EXPECT_EQ(Link(h, 3, 7), "NV18");
  EXPECT_EQ(Link(h, 4, 5), "");  // no row of GPU4..7 survived
  EXPECT_EQ(GpuNic(h, 0, "NIC0"), "PXB");
  EXPECT_EQ(GpuNic(h, 0, "NIC4"), "NODE");
  EXPECT_EQ(GpuNic(h, 2, "NIC6"), "PXB");
  EXPECT_EQ(GpuNic(h, 0, "NIC10"), "SYS");
  EXPECT_EQ(h.gpu_nic.size(), 72u);  // 4 rows x 18 NICs
  EXPECT_EQ(h.gpus.at(3).cpu_affinity, "0-55,112-167");
  EXPECT_EQ(h.gpus.at(3).numa_node, 0);
}

TEST(RealNvsmiTopo, H100Nv18NineNicsOneRowThenALabelAlone) {
  const Loaded l = Load("nvidia_smi_topo/h100_nv18_9nic_gpu_numa_id_ucx_py_issue1088_excerpt.txt",
                        "nvidia-smi-topo");
  EXPECT_EQ(l.in.records, 2);
  EXPECT_EQ(l.in.accepted, 1);
  EXPECT_TRUE(l.Has(":3: rejected: row has 0 cells, the header has 17 devices")) << l.Reasons();
  const HostEvidence& h = l.Host();
  EXPECT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(h.nics.size(), 9u);
  for (int g = 1; g < 8; ++g) EXPECT_EQ(Link(h, 0, g), "NV18") << g;
  EXPECT_EQ(GpuNic(h, 0, "NIC0"), "PIX");
  EXPECT_EQ(GpuNic(h, 0, "NIC1"), "PIX");
  EXPECT_EQ(GpuNic(h, 0, "NIC8"), "SYS");
  EXPECT_EQ(h.gpus.at(0).cpu_affinity, "0-31,64-95");
}

TEST(RealNvsmiTopo, TopoThenP2pPastedTogetherIndentedWithWrappedLegend) {
  const Loaded l = Load(
      "nvidia_smi_topo/topo_m_and_p2p_indented_wrapped_legend_2gpu_node_club3090_issue1125_excerpt.txt",
      "nvidia-smi-topo");
  EXPECT_EQ(l.in.records, 4);
  EXPECT_EQ(l.in.accepted, 2);  // the topo -m rows
  EXPECT_EQ(l.in.rejected, 2);  // the -p2p rows: a second matrix in the file
  EXPECT_TRUE(l.Has("row of a second nvidia-smi topo matrix (header at line 19)")) << l.Reasons();
  const HostEvidence& h = l.Host();
  EXPECT_EQ(h.gpus.size(), 2u);
  EXPECT_EQ(Link(h, 0, 1), "NODE");
  EXPECT_TRUE(h.p2p_status.empty());
  EXPECT_EQ(h.gpus.at(1).cpu_affinity, "0-15");
}

// --- CUDA samples p2pBandwidthLatencyTest -------------------------------------------------------

TEST(RealP2p, H100EightGpusConnectivityFirstThenPcieStagedAndNvlinkWrites) {
  const Loaded l = Load("cuda_p2p/h100_sxm_8gpu_nvlink4_connectivity_first_nccl_issue1264_excerpt.txt",
                        "p2pBandwidthLatencyTest");
  EXPECT_EQ(l.in.records, 17);  // 8 connectivity rows, 8 P2P=Disabled rows, 1 P2P=Enabled row
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  EXPECT_TRUE(l.Has("warning: matrix has 1 rows for 8 columns")) << l.Reasons();
  const HostEvidence& h = l.Host();
  EXPECT_EQ(h.gpus.size(), 8u);
  ASSERT_EQ(h.measured.size(), 28u);
  const MeasuredLink& m01 = h.measured.at({0, 1});
  ASSERT_EQ(m01.samples_gbps.size(), 1u);  // GPU0 -> GPU1 writes only: the matrix is cut after row 0
  EXPECT_DOUBLE_EQ(m01.samples_gbps[0], 371.02);
  ASSERT_EQ(m01.staged_samples_gbps.size(), 2u);  // both directions of the P2P=Disabled matrix
  EXPECT_DOUBLE_EQ(m01.staged_samples_gbps[0], 37.19);
  EXPECT_DOUBLE_EQ(m01.staged_samples_gbps[1], 36.36);
  EXPECT_TRUE(h.measured.at({5, 6}).samples_gbps.empty());
  EXPECT_DOUBLE_EQ(h.measured.at({5, 6}).staged_samples_gbps[0], 38.05);
}

// `toposcope probe p2p` on one H200 (CUDA 13 runtime): the matrices are the copy inside the GPU.
TEST(RealP2p, H200OneGpuProbeLocalCopyOnly) {
  const Loaded l = Load("cuda_p2p/h200_x1_vm_toposcope_probe_p2p_256mib.txt", "p2pBandwidthLatencyTest");
  EXPECT_EQ(l.in.records, 7);  // one row per matrix: connectivity, 4 bandwidth, 2 latency
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.gpus.size(), 1u);
  EXPECT_EQ(h.gpus.at(0).model, "NVIDIA H200");
  EXPECT_TRUE(h.measured.empty());  // no pair of GPUs
}

TEST(RealP2p, V100FourGpusDeviceListAndTabbedConnectivityCutBeforeBandwidth) {
  const Loaded l = Load("cuda_p2p/v100_sxm2_4gpu_connectivity_tabs_ginkgo_issue164_excerpt.txt",
                        "p2pBandwidthLatencyTest");
  EXPECT_EQ(l.in.records, 4);  // the connectivity rows
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.gpus.size(), 4u);
  EXPECT_EQ(h.gpus.at(0).model, "Tesla V100-SXM2-16GB");
  EXPECT_EQ(h.gpus.at(3).model, "Tesla V100-SXM2-16GB");
  EXPECT_TRUE(h.measured.empty());
}

// Outputs cut before any matrix: the GPUs of their Device lines are kept (the host's GPU inventory),
// each line an accepted record, and a warning says there was no matrix. (Skipped whole before.)
TEST(RealP2p, DeviceListsWithoutAMatrixKeepTheGpus) {
  struct Case {
    const char* rel;
    size_t gpus;
    const char* last_model;
  };
  for (const Case& c : {Case{"cuda_p2p/a100_sxm_80gb_8gpu_prompt_devices_only_nccl_tests_issue100_excerpt.txt", 8,
                             "NVIDIA A100-SXM-80GB"},
                        Case{"cuda_p2p/mixed_4090_5090_a6000_3090_cannot_access_open_gpu_kernel_modules_pr5_excerpt.txt",
                             7, "NVIDIA GeForce RTX 3090"}}) {
    const Loaded l = Load(c.rel, "p2pBandwidthLatencyTest");
    EXPECT_FALSE(l.in.skipped) << c.rel << ": " << l.in.skip_reason;
    EXPECT_EQ(l.in.records, static_cast<int64_t>(c.gpus)) << c.rel;
    EXPECT_EQ(l.in.accepted, static_cast<int64_t>(c.gpus)) << c.rel;
    const HostEvidence& h = l.Host();
    ASSERT_EQ(h.gpus.size(), c.gpus) << c.rel;
    EXPECT_EQ(h.gpus.rbegin()->second.model, c.last_model) << c.rel;
    EXPECT_TRUE(h.measured.empty()) << c.rel;
    EXPECT_TRUE(l.Has("GPU(s) of the Device lines are kept")) << l.Reasons();
  }
}

// --- dcgmi dmon ---------------------------------------------------------------------------------

TEST(RealDcgmDmon, DocumentationMigExampleHashSpaceEntityGpuAndGpuIRows) {
  const Loaded l = Load("dcgmi_dmon/mig_a100_gpu_and_gpu_i_rows_gract_tenso_dcgm_docs_feature_overview_excerpt.txt",
                        "dcgmi-dmon");
  EXPECT_EQ(l.in.records, 30);
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  EXPECT_EQ(l.ds.dcgm.points, 60);  // 30 rows x GRACT, TENSO
  // GPU 0 and the MIG instances GPU-I 0 and GPU-I 1 are three series of 10 samples each: an
  // instance is not the GPU of the same number (dmon does not say which GPU holds an instance).
  using model::DcgmEntity;
  EXPECT_EQ(Series(l.ds, 0, "GRACT").first, 10);
  EXPECT_EQ(Series(l.ds, 1, "GRACT").first, 0);
  EXPECT_EQ(Series(l.ds, -1, "GRACT", DcgmEntity::kGpuInstance, 0).first, 10);
  EXPECT_EQ(Series(l.ds, -1, "GRACT", DcgmEntity::kGpuInstance, 1).first, 10);
  EXPECT_DOUBLE_EQ(Series(l.ds, 0, "TENSO").second, 0.0);
  EXPECT_EQ(l.ds.dcgm.series.size(), 6u);
  // ... and the file says so once, naming the instances and the line of the first.
  EXPECT_TRUE(l.Has("2 MIG instance(s) (GPU-I 0, GPU-I 1): dmon does not say which GPU holds them")) << l.Reasons();
}

TEST(RealDcgmDmon, IndentedCopyWithFiveProfilingFields) {
  const Loaded l = Load("dcgmi_dmon/mig_gpu_i_rows_five_prof_fields_space_after_hash_zhihu_558046644_excerpt.txt",
                        "dcgmi-dmon");
  EXPECT_EQ(l.in.records, 3);
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  EXPECT_EQ(l.ds.dcgm.points, 15);
  using model::DcgmEntity;
  EXPECT_EQ(Series(l.ds, -1, "SMACT", DcgmEntity::kGpuInstance, 1).first, 1);
  EXPECT_DOUBLE_EQ(Series(l.ds, -1, "SMACT", DcgmEntity::kGpuInstance, 1).second, 0.75);  // GPU-I 1
  EXPECT_DOUBLE_EQ(Series(l.ds, -1, "DRAMA", DcgmEntity::kGpuInstance, 1).second, 0.8);
  EXPECT_EQ(Series(l.ds, 1, "SMACT").first, 0);  // not GPU 1's
}

// `toposcope collect` at 10 Hz on one H200 through a `probe p2p` and a PyTorch copy: epoch prefixes,
// the header repeated every 14 iterations, GPM columns N/A on the first iteration, dmon's stop line.
TEST(RealDcgmDmon, H200CollectorTenHertzGpmEpochPrefixes) {
  const Loaded l = Load("dcgmi_dmon/h200_x1_vm_toposcope_collect_10hz_gpm_epoch_prefix.txt", "dcgmi-dmon");
  EXPECT_EQ(l.in.records, 119);
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  EXPECT_EQ(Series(l.ds, 0, "SMCLK").first, 119);
  EXPECT_EQ(Series(l.ds, 0, "SMACT").first, 118);  // N/A on the first iteration
  EXPECT_EQ(Series(l.ds, 0, "TMPTR").first, 119);
}

// --- dcgmi discovery -c / -l: MIG instances linked to their GPUs --------------------------------

TEST(RealDcgmDiscovery, EveryFileReadWithItsInstancesOrGpus) {
  struct Case {
    const char* rel;
    int64_t records;
    size_t instances, gpus;
  };
  for (const Case& c : {
           Case{"dcgmi_discovery/dcgmi_discovery_c_4x_a100_80gb_16_instances_unordered_entity_ids_dcgm_issue93.txt", 37, 32, 0},
           Case{"dcgmi_discovery/dcgmi_discovery_c_a100_two_3g20gb_dcgm_docs_feature_overview_excerpt.txt", 6, 4, 0},
           Case{"dcgmi_discovery/dcgmi_discovery_c_a100_4g40gb_3g40gb_redacted_uuid_root_prompt_zhihu_558046644_excerpt.txt",
                6, 4, 0},
           Case{"dcgmi_discovery/dcgmi_discovery_c_2gpu_gi_entity_ids_0_1_7_8_cut_border_dcgm_exporter_issue507_excerpt.txt",
                11, 8, 0},
           Case{"dcgmi_discovery/dcgmi_discovery_l_8x_a100_sxm4_80gb_dcgmi_3.2.6_dcgm_issue83.txt", 28, 0, 8},
           Case{"dcgmi_discovery/dcgmi_discovery_l_4x_h100_null_names_padded_lines_host_flag_dcgm_issue229_excerpt.txt", 9,
                0, 3}}) {
    const Loaded l = Load(c.rel, "dcgmi-discovery");
    EXPECT_FALSE(l.in.skipped) << c.rel << ": " << l.in.skip_reason;
    EXPECT_EQ(l.in.records, c.records) << c.rel;
    EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
    EXPECT_EQ(l.Host().mig_instances.size(), c.instances) << c.rel;
    EXPECT_EQ(l.Host().dcgm_gpus.size(), c.gpus) << c.rel;
  }
}

// A host directory holding both `dcgmi dmon` and `dcgmi discovery -c` of one machine.
struct HostPair {
  std::filesystem::path root;
  explicit HostPair(const std::string& tag, const std::vector<std::string>& rels) {
    root = std::filesystem::temp_directory_path() / ("toposcope_mig_" + tag + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "a100");
    for (const std::string& rel : rels) {
      std::filesystem::copy_file(Path(rel), root / "a100" / std::filesystem::path(rel).filename());
    }
  }
  ~HostPair() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
  [[nodiscard]] Dataset Load() const {
    LoadOptions opt;
    opt.untimed_at_ns = kAt;
    auto ds = LoadPaths({root.string()}, opt);
    EXPECT_TRUE(ds.ok());
    Dataset out;
    if (ds.ok()) out = std::move(*ds);
    return out;
  }
};

std::string AllReasons(const Dataset& ds) {
  std::string out;
  for (const Diagnostic& d : ds.diag.items()) out += d.ToString() + "\n";
  return out;
}

constexpr const char* kDocsDmon = "dcgmi_dmon/mig_a100_gpu_and_gpu_i_rows_gract_tenso_dcgm_docs_feature_overview_excerpt.txt";
constexpr const char* kDocsDiscovery =
    "dcgmi_discovery/dcgmi_discovery_c_a100_two_3g20gb_dcgm_docs_feature_overview_excerpt.txt";

// The documentation's dmon run and its `dcgmi discovery -c`: GPU-I 0 is GPU instance 1 of GPU 0 and
// GPU-I 1 is GPU instance 2, so their series land under GPU 0 with NVML's instance ids, and the
// warning that dmon does not say which GPU holds them is gone.
TEST(RealDcgmDiscovery, DocsDmonInstancesLinkedToGpu0) {
  const HostPair dir("docs", {kDocsDmon, kDocsDiscovery});
  const Dataset ds = dir.Load();
  using model::DcgmEntity;
  EXPECT_EQ(Series(ds, 0, "GRACT").first, 10);  // the GPU's own series
  EXPECT_EQ(Series(ds, 0, "GRACT", DcgmEntity::kGpuInstance, 1).first, 10);  // GPU-I 0
  EXPECT_EQ(Series(ds, 0, "GRACT", DcgmEntity::kGpuInstance, 2).first, 10);  // GPU-I 1
  EXPECT_EQ(Series(ds, -1, "GRACT", DcgmEntity::kGpuInstance, 0).first, 0);  // nothing left unlinked
  EXPECT_EQ(Series(ds, -1, "GRACT", DcgmEntity::kGpuInstance, 1).first, 0);
  EXPECT_EQ(ds.dcgm.series.size(), 6u);
  EXPECT_EQ(AllReasons(ds).find("MIG instance(s)"), std::string::npos) << AllReasons(ds);
  // On the timeline, each instance's counters are on a track of its GPU.
  std::map<std::string, int> tracks;
  for (const EventInput& in : ds.event_inputs) {
    if (in.format != formats::FileFormat::kDcgmDmon) continue;
    EXPECT_EQ(in.mig_instances.size(), 4u);
    Diagnostics diag;
    EventInputCounts counts;
    ASSERT_TRUE(StreamEvents(in, [&](formats::TraceEvent&& e) { ++tracks[e.device]; }, diag, &counts).ok());
  }
  EXPECT_EQ(tracks, (std::map<std::string, int>{{"gpu0", 20}, {"gpu0-mig1", 20}, {"gpu0-mig2", 20}}));
}

// The Zhihu article's pair: the busy `GPU-I 1` (SMACT 0.75) is GPU instance 1, the 4g.40gb one.
TEST(RealDcgmDiscovery, ZhihuBusyInstanceIsThe4g40gb) {
  const HostPair dir("zhihu", {"dcgmi_dmon/mig_gpu_i_rows_five_prof_fields_space_after_hash_zhihu_558046644_excerpt.txt",
                               "dcgmi_discovery/"
                               "dcgmi_discovery_c_a100_4g40gb_3g40gb_redacted_uuid_root_prompt_zhihu_558046644_excerpt.txt"});
  const Dataset ds = dir.Load();
  using model::DcgmEntity;
  EXPECT_DOUBLE_EQ(Series(ds, 0, "SMACT", DcgmEntity::kGpuInstance, 1).second, 0.75);  // GPU-I 1
  EXPECT_DOUBLE_EQ(Series(ds, 0, "SMACT", DcgmEntity::kGpuInstance, 2).second, 0.0);   // GPU-I 0
  EXPECT_DOUBLE_EQ(Series(ds, 0, "SMACT").second, 0.429);
  EXPECT_EQ(AllReasons(ds).find("MIG instance(s)"), std::string::npos) << AllReasons(ds);
}

// Without the hierarchy the warning stays; with another machine's hierarchy lacking an instance,
// the warning names it and says why, and the instances it has are linked.
TEST(RealDcgmDiscovery, UnlinkedInstancesStillWarned) {
  const HostPair alone("alone", {kDocsDmon});
  const Dataset a = alone.Load();
  EXPECT_NE(AllReasons(a).find("2 MIG instance(s) (GPU-I 0, GPU-I 1): dmon does not say which GPU holds them"),
            std::string::npos)
      << AllReasons(a);
  EXPECT_EQ(Series(a, -1, "GRACT", model::DcgmEntity::kGpuInstance, 0).first, 10);

  const HostPair other("other", {kDocsDmon});
  {
    std::ofstream f(other.root / "a100" / "discovery.txt");
    f << "+---+\n| Instance Hierarchy |\n+===+\n| GPU 0 | GPU GPU-x (EntityID: 0) |\n"
         "| -> I 0/7 | GPU Instance (EntityID: 1) |\n+---+\n";
  }
  const Dataset o = other.Load();
  EXPECT_NE(AllReasons(o).find("1 MIG instance(s) (GPU-I 0): not in the `dcgmi discovery -c` of host a100"),
            std::string::npos)
      << AllReasons(o);
  EXPECT_EQ(Series(o, 0, "GRACT", model::DcgmEntity::kGpuInstance, 7).first, 10);   // GPU-I 1, linked
  EXPECT_EQ(Series(o, -1, "GRACT", model::DcgmEntity::kGpuInstance, 0).first, 10);  // GPU-I 0, not
}

// --- dcgm-exporter /metrics ---------------------------------------------------------------------

TEST(RealDcgmExporter, V100ScrapeWithHostnameLabelCutMidLine) {
  const Loaded l = Load("dcgm_exporter/v100_sxm2_hostname_label_mid_scrape_dcgm_exporter_issue250_excerpt.prom",
                        "prometheus-text");
  EXPECT_EQ(l.in.records, 12);
  EXPECT_EQ(l.in.rejected, 1);  // the last line, cut inside a label value
  EXPECT_TRUE(l.Has(":12: rejected: bad label syntax: unterminated label value")) << l.Reasons();
  EXPECT_EQ(l.ds.dcgm.points, 7);
  for (const auto& [k, s] : l.ds.dcgm.series) EXPECT_EQ(k.host, "r6i3n0") << k.field;  // the Hostname label
  EXPECT_EQ(Series(l.ds, 3, "DCGM_FI_DEV_POWER_MGMT_LIMIT").second, 300.0);
  EXPECT_EQ(Series(l.ds, 0, "DCGM_FI_DEV_GPU_UTIL").first, 1);
}

TEST(RealDcgmExporter, MixedModelsMigLabelsLowercaseHostnameAfterACurlPrompt) {
  const Loaded l = Load(
      "dcgm_exporter/rtx2000ada_a30_mig_gpu_i_labels_lowercase_hostname_dcgm_exporter_pr736_excerpt.prom",
      "prometheus-text");
  EXPECT_EQ(l.in.records, 12);
  EXPECT_EQ(l.in.rejected, 2);  // the `$ curl` line and the cut last line
  EXPECT_TRUE(l.Has(":1: rejected: metric name expected")) << l.Reasons();
  EXPECT_TRUE(l.Has(":12: rejected: bad label syntax")) << l.Reasons();
  EXPECT_EQ(l.ds.dcgm.points, 4);
  for (const auto& [k, s] : l.ds.dcgm.series) EXPECT_EQ(k.host, "dcgm-exporter-wwwjh") << k.field;
  EXPECT_DOUBLE_EQ(Series(l.ds, 1, "DCGM_FI_DEV_DEC_UTIL").second, 46);
  // The A30's MIG instance (GPU_I_ID 3) is its own series, under its GPU's index.
  EXPECT_DOUBLE_EQ(Series(l.ds, 2, "DCGM_FI_DEV_FB_FREE", model::DcgmEntity::kGpuInstance, 3).second, 2207);
  EXPECT_EQ(Series(l.ds, 2, "DCGM_FI_DEV_FB_FREE").first, 0);
}

TEST(RealDcgmExporter, QueryResultWithoutAValueIsRejectedAndTheFileSkipped) {
  const Loaded l = Load(
      "dcgm_exporter/h100_series_without_value_driver_version_label_dcgm_exporter_issue418_excerpt.prom",
      "prometheus-text");
  EXPECT_TRUE(l.in.skipped);
  EXPECT_EQ(l.in.records, 1);
  EXPECT_EQ(l.in.rejected, 1);
  EXPECT_TRUE(l.Has(":1: rejected: missing value")) << l.Reasons();
  EXPECT_EQ(l.ds.dcgm.points, 0);
}

// --- ibstat / ibv_devinfo / show_gids -----------------------------------------------------------

TEST(RealIbstat, ConnectX6DxRoceAfterALogBanner) {
  const Loaded l = Load("rdma_tools/ibstat_cx6dx_mt4125_100g_roce_log_banner_l2fwd_nv_issue6_excerpt.txt", "ibstat");
  EXPECT_EQ(l.in.records, 36);
  EXPECT_EQ(l.in.rejected, 2);  // `Log ibstat:` and `=======`
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.ib_devices.size(), 2u);
  EXPECT_EQ(h.ib_devices[0].name, "mlx5_0");
  EXPECT_EQ(h.ib_devices[1].ca_type, "MT4125");
  ASSERT_EQ(h.ib_devices[1].ports.size(), 1u);
  EXPECT_EQ(h.ib_devices[1].ports[0].state, "Active");
  EXPECT_DOUBLE_EQ(h.ib_devices[1].ports[0].rate_gbps, 100);
  EXPECT_EQ(h.ib_devices[1].ports[0].link_layer, "Ethernet");
}

TEST(RealIbstat, Mlx4TwoPortsTabsAfterIbwarnAndShellTraceLines) {
  const Loaded l = Load("rdma_tools/ibstat_mlx4_2port_tabs_ibwarn_set_x_trace_rdma_core_pr847_excerpt.txt", "ibstat");
  EXPECT_EQ(l.in.records, 29);
  EXPECT_EQ(l.in.rejected, 8);  // 5 ibwarn lines, 2 `+` trace lines, the cut `Base lid:`
  EXPECT_TRUE(l.Has(":29: rejected: Base lid '' is not 0..65535")) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.ib_devices.size(), 1u);
  const formats::IbDevice& d = h.ib_devices[0];
  EXPECT_EQ(d.name, "mlx4_0");
  EXPECT_EQ(d.ca_type, "MT4099");
  EXPECT_EQ(d.num_ports, 2);
  ASSERT_EQ(d.ports.size(), 2u);
  EXPECT_EQ(d.ports[0].state, "Down");
  EXPECT_EQ(d.ports[0].lid, 38);
  EXPECT_DOUBLE_EQ(d.ports[0].rate_gbps, 10);
  EXPECT_EQ(d.ports[1].state, "Active");
  EXPECT_DOUBLE_EQ(d.ports[1].rate_gbps, 56);
}

TEST(RealIbstat, ConnectX6Dx40gDownAndAConnectX7CutInItsState) {
  const Loaded l = Load("rdma_tools/ibstat_cx6dx_40g_down_and_cx7_mt4129_sglang_issue6823_excerpt.txt", "ibstat");
  EXPECT_EQ(l.in.records, 43);
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.ib_devices.size(), 3u);
  EXPECT_EQ(h.ib_devices[0].ports[0].state, "Down");
  EXPECT_EQ(h.ib_devices[0].ports[0].physical_state, "Disabled");
  EXPECT_DOUBLE_EQ(h.ib_devices[0].ports[0].rate_gbps, 40);
  EXPECT_EQ(h.ib_devices[2].name, "mlx5_10");
  EXPECT_EQ(h.ib_devices[2].ca_type, "MT4129");
  // Today a state cut by the excerpt (`State: Acti`) is kept as printed.
  EXPECT_EQ(h.ib_devices[2].ports[0].state, "Acti");
}

TEST(RealIbstat, RedactedValuesAreRejectedAndTheKnownOnesKept) {
  const Loaded l = Load("rdma_tools/ibstat_redacted_ellipsis_ibpanic_tail_gpud_pr752_excerpt.txt", "ibstat");
  EXPECT_EQ(l.in.records, 19);
  EXPECT_EQ(l.in.rejected, 5);  // the leading `...` and four GUID/mask fields written as `...`
  EXPECT_TRUE(l.Has("Node GUID '...' is not a 64-bit GUID")) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.ib_devices.size(), 1u);
  EXPECT_EQ(h.ib_devices[0].name, "mlx5_7");
  ASSERT_EQ(h.ib_devices[0].ports.size(), 1u);
  EXPECT_EQ(h.ib_devices[0].ports[0].lid, 13305);
  EXPECT_DOUBLE_EQ(h.ib_devices[0].ports[0].rate_gbps, 200);
  EXPECT_EQ(h.ib_devices[0].ports[0].link_layer, "InfiniBand");
}

TEST(RealIbvDevinfo, VerboseConnectX5WithExperimentalFlagsCutBeforeItsPort) {
  const Loaded l = Load("rdma_tools/ibv_devinfo_v_cx5_4119_tabs_exp_flags_ompi_pr6184_excerpt.txt", "ibv-devinfo");
  EXPECT_EQ(l.in.records, 54);
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  EXPECT_TRUE(l.Has("device mlx5_1 announces 1 ports but 0 are printed")) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.ib_devices.size(), 1u);
  EXPECT_EQ(h.ib_devices[0].firmware, "16.23.1020");
  EXPECT_EQ(h.ib_devices[0].vendor_part_id, "4119");
  EXPECT_EQ(h.ib_devices[0].node_guid, "ec0d:9a03:007d:7d1b");
}

TEST(RealIbvDevinfo, ConnectX7InfinibandPortDownWithLid65535AfterAPrompt) {
  const Loaded l = Load("rdma_tools/ibv_devinfo_cx7_ib_port_down_lid_65535_prompt_deepep_issue60_excerpt.txt",
                        "ibv-devinfo");
  // The prompt `root@f51fec68bf55:~# ibv_devinfo` is preamble, no record (a rejected row before), and
  // names the host.
  EXPECT_EQ(l.in.records, 27);
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  EXPECT_EQ(l.in.host, "f51fec68bf55");
  EXPECT_TRUE(l.Has("shell prompt running ibv_devinfo: skipped as preamble")) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.ib_devices.size(), 2u);
  ASSERT_EQ(h.ib_devices[0].ports.size(), 1u);
  EXPECT_EQ(h.ib_devices[0].ports[0].state, "PORT_DOWN");
  EXPECT_EQ(h.ib_devices[0].ports[0].state_code, 1);
  EXPECT_EQ(h.ib_devices[0].ports[0].lid, 65535);
  EXPECT_EQ(h.ib_devices[0].ports[0].link_layer, "InfiniBand");
  EXPECT_EQ(h.ib_devices[1].board_id, "MT_0000000838");
  EXPECT_TRUE(h.ib_devices[1].ports.empty());  // cut before its ports
}

TEST(RealShowGids, ConnectX6WithIpv4AfterABracketedPrompt) {
  const Loaded l = Load("rdma_tools/show_gids_cx6_ipv4_n_gids_found_prompt_spectrumscale_pr4_excerpt.txt", "show-gids");
  // The prompt `[root@localhost ~]# show_gids mlx5_0` is preamble, no record (a rejected row before);
  // `localhost` names no host.
  EXPECT_EQ(l.in.records, 6);
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  EXPECT_EQ(l.in.host, "show_gids_cx6_ipv4_n_gids_found_prompt_spectrumscale_pr4_excerpt");
  EXPECT_TRUE(l.Has("shell prompt running show_gids: skipped as preamble")) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.gids.size(), 6u);
  EXPECT_EQ(h.gids[4].index, 4);
  EXPECT_EQ(h.gids[4].ipv4, "172.19.0.60");
  EXPECT_EQ(h.gids[4].version, "v1");
  EXPECT_EQ(h.gids[5].version, "v2");
  EXPECT_EQ(h.gids[5].netdev, "ens1f0");
  EXPECT_EQ(h.gids[0].ipv4, "");
}

TEST(RealShowGids, EmptyTableAfterABracketedPrompt) {
  const Loaded l = Load("rdma_tools/show_gids_empty_n_gids_found_0_k8s_rdma_sriov_issue30_excerpt.txt", "show-gids");
  EXPECT_EQ(l.in.records, 0);  // the prompt is preamble (a rejected row before); the table has no row
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  EXPECT_FALSE(l.in.skipped) << l.in.skip_reason;
  EXPECT_EQ(l.in.host, "rdma-test-wv8kj");
  EXPECT_TRUE(l.Host().gids.empty());
}

TEST(RealShowGids, TabsMacvlanIndexesFourToSevenCutInARow) {
  const Loaded l = Load("rdma_tools/show_gids_tabs_macvlan_index4_7_nccl_issue1573_excerpt.txt", "show-gids");
  EXPECT_EQ(l.in.records, 10);
  EXPECT_EQ(l.in.rejected, 1);  // the cut last row (the prompt is preamble: a rejected row before)
  EXPECT_EQ(l.in.host, "test-macvlan-pod-2");
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.gids.size(), 9u);
  EXPECT_EQ(h.gids[0].index, 4);
  EXPECT_EQ(h.gids[3].ipv4, "10.152.0.12");
  EXPECT_EQ(h.gids[3].version, "v2");
  EXPECT_EQ(h.gids[7].dev, "mlx5_1");
  EXPECT_EQ(h.gids[7].netdev, "net2");
}

TEST(RealShowGids, BondDeviceWithVxlanNetdevs) {
  const Loaded l = Load("rdma_tools/show_gids_bond_vxlan_netdev_ucx_pr9484_excerpt.txt", "show-gids");
  EXPECT_EQ(l.in.records, 6);
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.gids.size(), 6u);
  EXPECT_EQ(h.gids[2].dev, "mlx5_bond_0");
  EXPECT_EQ(h.gids[2].netdev, "b3.vxlan.30100");
  EXPECT_EQ(h.gids[2].ipv4, "30.153.10.175");
  EXPECT_EQ(h.gids[5].netdev, "bond1");
}

// --- chronyc tracking ---------------------------------------------------------------------------

TEST(RealChronyc, TrackingReportsGiveOneSyncPointEach) {
  struct Case {
    const char* rel;
    int64_t offset_ns;      // Last offset
    const char* reference;  // the name in parentheses
  };
  const Case cases[] = {
      {"chrony/chronyc_tracking_opensuse_leap15_command_line_rockstor_issue2098_excerpt.txt", -193872,
       "85.199.214.100"},
      {"chrony/chronyc_tracking_rpi_prompt_infix_issue1458_excerpt.txt", 96487, "sto1.se.ntp.li"},
      {"chrony/chronyc_tracking_old_dotted_refid_7495s_slow_6digit_root_telegraf_issue2988_excerpt.txt", 8273,
       "ntp2.chewy.local"},
  };
  for (const Case& c : cases) {
    const Loaded l = Load(c.rel, "chronyc-tracking");
    EXPECT_EQ(l.in.records, 14) << c.rel;
    EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
    const HostEvidence& h = l.Host();
    ASSERT_EQ(h.sync_points.size(), 1u) << c.rel;
    EXPECT_NEAR(h.sync_points[0].offset_ns, static_cast<double>(c.offset_ns), 1e-3) << c.rel;
    EXPECT_EQ(h.sync_points[0].reference, c.reference) << c.rel;
    EXPECT_EQ(h.sync_points[0].source, "chronyc-tracking") << c.rel;
    EXPECT_TRUE(h.sync_points[0].synced) << c.rel;
  }
}

// A router CLI's own `show ntp tracking` (not chronyc: wider key column) is not taken for chronyc.
TEST(RealChronyc, RouterCliTrackingViewIsNotChronyc) {
  const Loaded l = Load("chrony/yang_show_ntp_tracking_not_chronyc_infix_issue1458_excerpt.txt", "unknown");
  EXPECT_TRUE(l.in.skipped);
  EXPECT_EQ(l.in.records, 0);
}

// --- nvidia-smi -q ------------------------------------------------------------------------------

// Every GPU of the file, in index order: bus id, product name (the GPU's model, no other source
// gives one), and its limits in absolute degrees.
TEST(RealNvsmiQuery, A100FourGpusAbsoluteLimitsByPosition) {
  const Loaded l = Load("nvidia_smi_q/a100_sxm4_80gb_x4_driver555_nvidia_smi_q.txt", "nvidia-smi-q");
  EXPECT_EQ(l.in.records, 47);  // 39 + each GPU's Fabric CliqueId and ClusterUUID
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.gpu_queries.size(), 4u);
  ASSERT_EQ(h.gpus.size(), 4u);
  EXPECT_EQ(h.gpus.at(1).bus_id, "0000:9e:00.0");
  EXPECT_EQ(h.gpus.at(3).model, "NVIDIA A100-SXM4-80GB");
  for (const GpuQueryInfo& q : h.gpu_queries) {
    EXPECT_EQ(q.matched_by, "position");
    EXPECT_EQ(q.limits_form, "absolute");
    EXPECT_DOUBLE_EQ(q.max_operating_c, 85);
    EXPECT_DOUBLE_EQ(q.slowdown_c, 89);
    EXPECT_DOUBLE_EQ(q.shutdown_c, 92);
    EXPECT_EQ(q.driver_version, "555.42.02");
  }
}

TEST(RealNvsmiQuery, H100EightGpusLimitsFromTLimitHeadroom) {
  const Loaded l = Load("nvidia_smi_q/h100_80gb_hbm3_x8_driver565_tlimit_nvidia_smi_q.txt", "nvidia-smi-q");
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.gpu_queries.size(), 8u);
  EXPECT_EQ(h.gpu_queries[0].limits_form, "tlimit");
  EXPECT_DOUBLE_EQ(h.gpu_queries[0].slowdown_c, 89);
  EXPECT_DOUBLE_EQ(h.gpu_queries[6].slowdown_c, 85);  // GPU 6's own readings
  EXPECT_EQ(h.gpu_queries[7].index, 7);
  EXPECT_EQ(h.gpus.at(7).bus_id, "0000:db:00.0");
}

// `nvidia-smi -q -i 0` on an 8-GPU server: one section, given index 0 by the prompt.
TEST(RealNvsmiQuery, H800OneGpuOfEightIndexedByItsPrompt) {
  const Loaded l = Load("nvidia_smi_q/h800_driver525_nvidia_smi_q.txt", "nvidia-smi-q");
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.gpu_queries.size(), 1u);
  EXPECT_EQ(h.gpu_queries[0].index, 0);
  EXPECT_EQ(h.gpu_queries[0].matched_by, "selected_index");
  EXPECT_EQ(h.gpus.at(0).model, "NVIDIA H800");
  EXPECT_TRUE(l.Has("Attached GPUs says 8 but 1 GPU section(s)"));
}

// `nvidia-smi -q` of a single H200 in a VM, driver 580 (captured with `toposcope probe p2p`'s run).
TEST(RealNvsmiQuery, H200OneGpuDriver580InAVm) {
  const Loaded l = Load("nvidia_smi_q/h200_x1_driver580_vm_nvidia_smi_q.txt", "nvidia-smi-q");
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  const HostEvidence& h = l.Host();
  ASSERT_EQ(h.gpu_queries.size(), 1u);
  EXPECT_EQ(h.gpu_queries[0].limits_form, "tlimit");
  EXPECT_DOUBLE_EQ(h.gpu_queries[0].max_operating_c, 87);
  EXPECT_DOUBLE_EQ(h.gpu_queries[0].slowdown_c, 89);
  EXPECT_DOUBLE_EQ(h.gpu_queries[0].shutdown_c, 95);
  EXPECT_EQ(h.gpu_queries[0].driver_version, "580.159.04");
  EXPECT_EQ(h.gpus.at(0).model, "NVIDIA H200");
  EXPECT_EQ(h.gpus.at(0).bus_id, "0000:00:06.0");
}

// --- iblinkinfo ----------------------------------------------------------------------------------

TEST(RealIbLinkInfo, QdrSwitchAndNineAdapterPortsIntoTheDataset) {
  const Loaded l =
      Load("iblinkinfo/qdr_connectx3_infiniscale4_18port_down_polling_tsinghua_dbx1000_readme_excerpt.txt", "iblinkinfo");
  EXPECT_EQ(l.in.records, 36);
  EXPECT_EQ(l.in.rejected, 0) << l.Reasons();
  ASSERT_EQ(l.ds.link_infos.size(), 1u);
  EXPECT_EQ(l.ds.link_infos[0].ports.size(), 27u);
  EXPECT_EQ(l.ds.link_infos[0].source, l.in.path);
  EXPECT_TRUE(l.ds.fabrics.empty());
}

}  // namespace real_outputs_test
}  // namespace toposcope::model
