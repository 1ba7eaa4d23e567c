// Tests of formats/dcgm/dcgm_discovery: golden on real `dcgmi discovery -c` / `-l` output
// (testdata/real/dcgmi_discovery, with testdata/real/PROVENANCE.md) and bad inputs.
#include "toposcope/formats/dcgm/dcgm_discovery.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace toposcope::formats {
namespace dcgm_discovery_test {

const std::string kDir = std::string(TOPOSCOPE_TESTDATA) + "/real/dcgmi_discovery/";
const std::string kIssue93 = kDir + "dcgmi_discovery_c_4x_a100_80gb_16_instances_unordered_entity_ids_dcgm_issue93.txt";
const std::string kDocs = kDir + "dcgmi_discovery_c_a100_two_3g20gb_dcgm_docs_feature_overview_excerpt.txt";
const std::string kZhihu =
    kDir + "dcgmi_discovery_c_a100_4g40gb_3g40gb_redacted_uuid_root_prompt_zhihu_558046644_excerpt.txt";
const std::string kIssue507 =
    kDir + "dcgmi_discovery_c_2gpu_gi_entity_ids_0_1_7_8_cut_border_dcgm_exporter_issue507_excerpt.txt";
const std::string kIssue83 = kDir + "dcgmi_discovery_l_8x_a100_sxm4_80gb_dcgmi_3.2.6_dcgm_issue83.txt";
const std::string kIssue229 = kDir + "dcgmi_discovery_l_4x_h100_null_names_padded_lines_host_flag_dcgm_issue229_excerpt.txt";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Reasons(const Diagnostics& diag, Severity s = Severity::kRejected) {
  std::string out;
  for (const Diagnostic& d : diag.items()) {
    if (d.severity == s) out += std::to_string(d.line) + ": " + d.reason + "\n";
  }
  return out;
}

// Four A100s with four MIG instances each; DCGM's EntityIDs follow creation, not the NVML ids, so
// `GPU-I 0` is `I 0/13` and `GPU-I 17` is `I 2/2`.
TEST(DcgmDiscoveryReal, Issue93FourGpusSixteenInstances) {
  Diagnostics diag;
  auto r = ParseDcgmDiscovery(Slurp(kIssue93), "i93", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 37);  // the header row and 36 hierarchy rows
  EXPECT_EQ(r->counts.rejected, 0) << Reasons(diag);
  EXPECT_TRUE(r->counts.Balanced());
  EXPECT_TRUE(r->has_hierarchy);
  EXPECT_FALSE(r->has_gpu_list);
  EXPECT_EQ(r->dcgmi_version, "3.1.8");
  ASSERT_EQ(r->instances.size(), 32u);
  int gis = 0;
  for (const DcgmMigInstance& m : r->instances) {
    gis += m.kind == DcgmMigKind::kGpuInstance;
    EXPECT_EQ(m.gpu_entity_id, m.gpu_index);  // here the GPUs' EntityIDs are their NVML indices
  }
  EXPECT_EQ(gis, 16);
  const DcgmMigInstance* i0 = FindMigInstance(r->instances, DcgmMigKind::kGpuInstance, 0);
  ASSERT_NE(i0, nullptr);
  EXPECT_EQ(i0->gpu_entity_id, 0);
  EXPECT_EQ(i0->gpu_instance, 13);
  EXPECT_EQ(i0->gpu_uuid, "GPU-73fa6136-5962-8760-3543-871462d498eb");
  EXPECT_EQ(i0->line, 14);
  const DcgmMigInstance* i17 = FindMigInstance(r->instances, DcgmMigKind::kGpuInstance, 17);
  ASSERT_NE(i17, nullptr);
  EXPECT_EQ(i17->gpu_entity_id, 2);
  EXPECT_EQ(i17->gpu_instance, 2);
  const DcgmMigInstance* ci22 = FindMigInstance(r->instances, DcgmMigKind::kComputeInstance, 22);
  ASSERT_NE(ci22, nullptr);
  EXPECT_EQ(ci22->gpu_entity_id, 3);
  EXPECT_EQ(ci22->gpu_instance, 10);
  EXPECT_EQ(ci22->compute_instance, 0);
  EXPECT_EQ(FindMigInstance(r->instances, DcgmMigKind::kGpuInstance, 4), nullptr);  // ids 4-6 unused
}

// The documentation's A100 with two 3g.20gb instances, indented by four spaces: `GPU-I 0` and
// `GPU-I 1` of the documented dmon run are `I 0/1` and `I 0/2` of GPU 0.
TEST(DcgmDiscoveryReal, DocsIndentedTwoInstances) {
  Diagnostics diag;
  auto r = ParseDcgmDiscovery(Slurp(kDocs), "docs", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 6);
  EXPECT_EQ(r->counts.rejected, 0) << Reasons(diag);
  ASSERT_EQ(r->instances.size(), 4u);
  EXPECT_EQ(r->instances[0].kind, DcgmMigKind::kGpuInstance);
  EXPECT_EQ(r->instances[0].entity_id, 0);
  EXPECT_EQ(r->instances[0].gpu_instance, 1);
  EXPECT_EQ(r->instances[1].kind, DcgmMigKind::kComputeInstance);
  EXPECT_EQ(r->instances[1].compute_instance, 0);
  EXPECT_EQ(r->instances[2].entity_id, 1);
  EXPECT_EQ(r->instances[2].gpu_instance, 2);
  EXPECT_EQ(r->instances[2].gpu_uuid, "GPU-5fd15f35-e148-2992-4ecb-9825e534f253");
}

// A redacted UUID makes the GPU row narrower than its column; the `# dcgmi discovery -c` prompt is
// no record. GPU instance 1 (4g.40gb) has EntityID 1, GPU instance 2 EntityID 0.
TEST(DcgmDiscoveryReal, ZhihuRedactedUuidAndPrompt) {
  Diagnostics diag;
  auto r = ParseDcgmDiscovery(Slurp(kZhihu), "zh", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 6);
  EXPECT_EQ(r->counts.rejected, 0) << Reasons(diag);
  ASSERT_EQ(r->instances.size(), 4u);
  EXPECT_EQ(r->instances[0].gpu_uuid, "GPU-******-******-*****-53df7b497d19");
  const DcgmMigInstance* gi1 = FindMigInstance(r->instances, DcgmMigKind::kGpuInstance, 1);
  ASSERT_NE(gi1, nullptr);
  EXPECT_EQ(gi1->gpu_instance, 1);
  const DcgmMigInstance* gi0 = FindMigInstance(r->instances, DcgmMigKind::kGpuInstance, 0);
  ASSERT_NE(gi0, nullptr);
  EXPECT_EQ(gi0->gpu_instance, 2);
}

// A search excerpt cut inside the closing border: every row read, the cut border is no record.
TEST(DcgmDiscoveryReal, Issue507TwoGpusCutBorder) {
  Diagnostics diag;
  auto r = ParseDcgmDiscovery(Slurp(kIssue507), "i507", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 11);
  EXPECT_EQ(r->counts.rejected, 0) << Reasons(diag);
  ASSERT_EQ(r->instances.size(), 8u);
  const DcgmMigInstance* gi7 = FindMigInstance(r->instances, DcgmMigKind::kGpuInstance, 7);
  ASSERT_NE(gi7, nullptr);
  EXPECT_EQ(gi7->gpu_entity_id, 1);
  EXPECT_EQ(gi7->gpu_instance, 1);
  EXPECT_EQ(gi7->gpu_uuid, "GPU-d5f98c67-e581-45b1-9c08-025b7a08a9c1");
}

// `dcgmi discovery -l` of 8 A100s and the empty NvSwitch table.
TEST(DcgmDiscoveryReal, Issue83EightGpuList) {
  Diagnostics diag;
  auto r = ParseDcgmDiscovery(Slurp(kIssue83), "i83", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 28);  // 2 found lines, 2 table headers, 8 x 3 GPU rows
  EXPECT_EQ(r->counts.rejected, 0) << Reasons(diag);
  EXPECT_TRUE(r->has_gpu_list);
  EXPECT_FALSE(r->has_hierarchy);
  EXPECT_TRUE(r->instances.empty());
  ASSERT_EQ(r->gpus.size(), 8u);
  EXPECT_EQ(r->gpus[0].entity_id, 0);
  EXPECT_EQ(r->gpus[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(r->gpus[0].bus_id, "00000000:10:1C.0");
  EXPECT_EQ(r->gpus[7].entity_id, 7);
  EXPECT_EQ(r->gpus[7].uuid, "GPU-59e925d1-5f83-fc83-c0e5-a80a31d2ddf3");
  EXPECT_TRUE(Reasons(diag, Severity::kWarning).empty()) << Reasons(diag, Severity::kWarning);
}

// Lines padded with spaces by the terminal, `<<<NULL>>>` names, the command line with `--host`; the
// excerpt stops at GPU 2's first row, so 4 GPUs are announced and 3 listed (a warning).
TEST(DcgmDiscoveryReal, Issue229NullNamesCutCopy) {
  Diagnostics diag;
  auto r = ParseDcgmDiscovery(Slurp(kIssue229), "i229", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 9);
  EXPECT_EQ(r->counts.rejected, 0) << Reasons(diag);
  ASSERT_EQ(r->gpus.size(), 3u);
  EXPECT_EQ(r->gpus[0].name, "<<<NULL>>>");
  EXPECT_EQ(r->gpus[1].bus_id, "00000000:5D:00.0");
  EXPECT_EQ(r->gpus[2].uuid, "");
  const std::string warnings = Reasons(diag, Severity::kWarning);
  EXPECT_NE(warnings.find("2: 4 GPUs announced but 3 listed"), std::string::npos) << warnings;
}

TEST(DcgmDiscoveryBad, NotDiscoveryOutputFails) {
  Diagnostics diag;
  EXPECT_FALSE(ParseDcgmDiscovery("", "empty", diag).ok());
  EXPECT_FALSE(ParseDcgmDiscovery("hello\nworld\n", "text", diag).ok());
  EXPECT_FALSE(ParseDcgmDiscovery(std::string("\0\1\2\3| Instance Hierarchy |", 26), "bin", diag).ok());
}

// Each malformed row is rejected with its line and reason; the good rows around it are kept.
TEST(DcgmDiscoveryBad, MalformedRowsRejectedWithReasons) {
  const std::string text =
      "| Instance Hierarchy |\n"                               // 1
      "| -> I 0/1 | GPU Instance (EntityID: 9) |\n"            // 2: before any GPU
      "| GPU 0 | GPU GPU-x (EntityID: 0) |\n"                  // 3
      "| -> I 0/1 | GPU Instance (EntityID: 5) |\n"            // 4
      "|    -> CI 0/2/0 | Compute Instance (EntityID: 5) |\n"  // 5: GI 2 is not the one above
      "| -> I 1/3 | GPU Instance (EntityID: 6) |\n"            // 6: GPU 1 under GPU 0
      "| -> I 0/4 | GPU Instance (EntityID: 5) |\n"            // 7: duplicate EntityID
      "| -> I 0/x | GPU Instance (EntityID: 7) |\n"            // 8: not numbers
      "| -> I 0/6 | Compute Instance (EntityID: 8) |\n"        // 9: wrong right cell
      "| -> I 0/7 | GPU Instance (EntityID: -1) |\n"           // 10: negative id
      "| GPU zero | GPU GPU-y (EntityID: 1) |\n"               // 11: bad index
      "| -> I 0/1 | GPU Instance (Entity\n"                    // 12: cut short
      "some commentary\n"                                      // 13
      "|    -> CI 0/1/0    | Compute Instance (EntityID: 5) |\n";  // 14: ok
  Diagnostics diag;
  auto r = ParseDcgmDiscovery(text, "bad", diag);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->counts.read, 14);
  EXPECT_EQ(r->counts.rejected, 10) << Reasons(diag);
  EXPECT_TRUE(r->counts.Balanced());
  ASSERT_EQ(r->instances.size(), 2u);
  EXPECT_EQ(r->instances[1].kind, DcgmMigKind::kComputeInstance);
  EXPECT_EQ(r->instances[1].line, 14);
  const std::string why = Reasons(diag);
  for (const char* want : {"2: instance row before any GPU row", "5: compute instance of GPU instance 2 under GPU instance 1",
                           "6: instance of GPU 1 under GPU 0", "7: duplicate GPU Instance EntityID 5 (first at line 4)",
                           "8: instance reference is not", "9: expected `GPU Instance (EntityID: n)`",
                           "10: expected `GPU Instance (EntityID: n)`", "11: GPU index is not a number",
                           "12: row cut short", "13: not a dcgmi discovery line"}) {
    EXPECT_NE(why.find(want), std::string::npos) << want << "\n" << why;
  }
}

TEST(DcgmDiscoveryBad, GpuListRowsWithoutGpu) {
  const std::string text =
      "1 GPU found.\n"
      "| GPU ID | Device Information |\n"
      "|        | Name: before any id |\n"
      "| x      | Name: bad id |\n"
      "| 3 | A | B |\n"
      "| 0      | Name: NVIDIA H200 |\n"
      "|        | Error: Cannot get device attributes for GPU. |\n";
  Diagnostics diag;
  auto r = ParseDcgmDiscovery(text, "l", diag);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->counts.read, 7);
  EXPECT_EQ(r->counts.rejected, 3) << Reasons(diag);
  ASSERT_EQ(r->gpus.size(), 1u);
  EXPECT_EQ(r->gpus[0].name, "NVIDIA H200");
  const std::string why = Reasons(diag);
  EXPECT_NE(why.find("3: device information before any GPU ID"), std::string::npos) << why;
  EXPECT_NE(why.find("4: GPU ID is not a number"), std::string::npos) << why;
  EXPECT_NE(why.find("5: expected two cells"), std::string::npos) << why;
}

TEST(DcgmDiscoverySniff, LooksLike) {
  EXPECT_TRUE(LooksLikeDcgmDiscovery(Slurp(kIssue93)));
  EXPECT_TRUE(LooksLikeDcgmDiscovery(Slurp(kDocs)));
  EXPECT_TRUE(LooksLikeDcgmDiscovery(Slurp(kIssue83)));
  EXPECT_TRUE(LooksLikeDcgmDiscovery(Slurp(kIssue229)));
  EXPECT_FALSE(LooksLikeDcgmDiscovery("#Entity   POWER\nID\nGPU 1     300.5\n"));
}

}  // namespace dcgm_discovery_test
}  // namespace toposcope::formats
