// Tests of formats/node/nvsmi_query: golden on real `nvidia-smi -q` output (testdata/real/nvidia_smi_q,
// with PROVENANCE.md) and bad inputs.
#include "toposcope/formats/node/nvsmi_query.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace toposcope::formats {
namespace nvsmi_query_test {

const std::string kReal = std::string(TOPOSCOPE_TESTDATA) + "/real/nvidia_smi_q/";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  Diagnostics diag;
  Result<NvsmiQuery> q = MakeError("not parsed");
  [[nodiscard]] std::string Reasons(Severity s = Severity::kRejected) const {
    std::string out;
    for (const Diagnostic& d : diag.items()) {
      if (d.severity == s) out += std::to_string(d.line) + ": " + d.reason + "\n";
    }
    return out;
  }
};

Parsed Parse(const std::string& text) {
  Parsed p;
  p.q = ParseNvsmiQuery(text, "t", p.diag);
  if (p.q.ok()) {
    EXPECT_TRUE(p.q->counts.Balanced());
    EXPECT_EQ(p.diag.RejectedFor("t"), p.q->counts.rejected);
  }
  return p;
}

TEST(NvsmiQueryReal, A100AbsoluteLimitsOnEveryGpu) {
  Parsed p = Parse(Slurp(kReal + "a100_sxm4_80gb_x4_driver555_nvidia_smi_q.txt"));
  ASSERT_TRUE(p.q.ok()) << p.q.error().ToString();
  EXPECT_EQ(p.q->counts.rejected, 0) << p.Reasons();
  EXPECT_EQ(p.q->driver_version, "555.42.02");
  EXPECT_EQ(p.q->attached_gpus, 4);
  ASSERT_EQ(p.q->gpus.size(), 4U);
  for (const NvsmiQueryGpu& g : p.q->gpus) {
    EXPECT_EQ(g.product_name, "NVIDIA A100-SXM4-80GB");
    EXPECT_DOUBLE_EQ(g.shutdown_c, 92);
    EXPECT_DOUBLE_EQ(g.slowdown_c, 89);
    EXPECT_DOUBLE_EQ(g.max_operating_c, 85);
    EXPECT_DOUBLE_EQ(g.memory_max_operating_c, 95);
    EXPECT_TRUE(std::isnan(g.tlimit_c));  // `N/A`
  }
  EXPECT_DOUBLE_EQ(p.q->gpus[0].current_c, 25);
  EXPECT_EQ(p.Reasons(Severity::kWarning), "");
}

// A newer driver prints T.Limit headroom only: current + T.Limit is the max operating temperature
// (87 C on 7 of the 8 GPUs), the slowdown and shutdown lines are relative to it.
TEST(NvsmiQueryReal, H100TLimitHeadroomOnly) {
  Parsed p = Parse(Slurp(kReal + "h100_80gb_hbm3_x8_driver565_tlimit_nvidia_smi_q.txt"));
  ASSERT_TRUE(p.q.ok()) << p.q.error().ToString();
  EXPECT_EQ(p.q->counts.rejected, 0) << p.Reasons();
  ASSERT_EQ(p.q->gpus.size(), 8U);
  EXPECT_EQ(p.q->gpus[0].bus_id, "00000000:18:00.0");
  EXPECT_EQ(p.q->gpus[1].bus_id, "00000000:2A:00.0");
  int at_87 = 0;
  for (const NvsmiQueryGpu& g : p.q->gpus) {
    EXPECT_TRUE(std::isnan(g.shutdown_c));
    EXPECT_DOUBLE_EQ(g.shutdown_tlimit_c, -8);
    EXPECT_DOUBLE_EQ(g.slowdown_tlimit_c, -2);
    EXPECT_DOUBLE_EQ(g.max_operating_tlimit_c, 0);
    at_87 += g.current_c + g.tlimit_c == 87 ? 1 : 0;
  }
  EXPECT_EQ(at_87, 7);
  // A single-node system: clique 0 in the zero cluster UUID (no multi-node NVLink domain).
  EXPECT_EQ(p.q->gpus[0].clique_id, "0");
  EXPECT_EQ(p.q->gpus[0].cluster_uuid, "00000000-0000-0000-0000-000000000000");
}

// The Fabric section of a VM's H200 prints N/A: no domain, kept as "".
TEST(NvsmiQueryReal, H200VmFabricNotApplicable) {
  Parsed p = Parse(Slurp(kReal + "h200_x1_driver580_vm_nvidia_smi_q.txt"));
  ASSERT_TRUE(p.q.ok()) << p.q.error().ToString();
  EXPECT_EQ(p.q->counts.rejected, 0) << p.Reasons();
  ASSERT_FALSE(p.q->gpus.empty());
  EXPECT_EQ(p.q->gpus[0].clique_id, "");
  EXPECT_EQ(p.q->gpus[0].cluster_uuid, "");
}

// A multi-node NVLink system's Fabric section (the layout of the real files, with the identifiers
// an NVL72 rack reports); a malformed identifier is rejected with its line.
TEST(NvsmiQuery, FabricCliqueAndClusterUuid) {
  const std::string gpu = "GPU 00000008:01:00.0\n    Product Name : NVIDIA GB200\n    Fabric\n"
                          "        State : Completed\n        Status : Success\n";
  Parsed p = Parse("==============NVSMI LOG==============\nAttached GPUs : 1\n" + gpu +
                   "        CliqueId : 32766\n        ClusterUUID : 5C1A2B3D-0000-4000-8000-00000000000A\n");
  ASSERT_TRUE(p.q.ok());
  EXPECT_EQ(p.q->counts.rejected, 0) << p.Reasons();
  ASSERT_EQ(p.q->gpus.size(), 1U);
  EXPECT_EQ(p.q->gpus[0].clique_id, "32766");
  EXPECT_EQ(p.q->gpus[0].cluster_uuid, "5C1A2B3D-0000-4000-8000-00000000000A");
  Parsed bad = Parse("==============NVSMI LOG==============\n" + gpu +
                     "        CliqueId : many\n        ClusterUUID : not-a-uuid\n");
  ASSERT_TRUE(bad.q.ok());
  EXPECT_EQ(bad.q->counts.rejected, 2);
  EXPECT_EQ(bad.Reasons(), "7: CliqueId 'many' is not a number or N/A\n"
                           "8: ClusterUUID 'not-a-uuid' is not a UUID or N/A\n");
}

// `nvidia-smi -q -i 0` after the author's prompt: one GPU with both forms.
TEST(NvsmiQueryReal, H800OneGpuAfterAPrompt) {
  Parsed p = Parse(Slurp(kReal + "h800_driver525_nvidia_smi_q.txt"));
  ASSERT_TRUE(p.q.ok()) << p.q.error().ToString();
  EXPECT_EQ(p.q->counts.rejected, 0) << p.Reasons();
  ASSERT_EQ(p.q->gpus.size(), 1U);
  EXPECT_EQ(p.q->gpus[0].product_name, "NVIDIA H800");
  EXPECT_DOUBLE_EQ(p.q->gpus[0].tlimit_c, 51);
  EXPECT_DOUBLE_EQ(p.q->gpus[0].max_operating_c, 87);
  EXPECT_DOUBLE_EQ(p.q->gpus[0].shutdown_c, 92);
}

// The absolute limits of each real file, whichever form its driver printed: A100 absolute, H100
// derived from T.Limit (GPU 6's readings put its T.Limit at 83 C), H800 both (the absolute lines;
// its current + T.Limit headroom is 86 C against the printed 87 C max operating: the two readings
// are whole degrees taken a moment apart, the derived form is good to about 1 C); the `-i 0` prompt.
TEST(NvsmiQueryReal, AbsoluteLimitsFromEitherForm) {
  Parsed a100 = Parse(Slurp(kReal + "a100_sxm4_80gb_x4_driver555_nvidia_smi_q.txt"));
  ASSERT_TRUE(a100.q.ok());
  const NvsmiAbsoluteLimits la = AbsoluteLimitsOf(a100.q->gpus[0]);
  EXPECT_EQ(la.form, "absolute");
  EXPECT_DOUBLE_EQ(la.max_operating_c, 85);
  EXPECT_DOUBLE_EQ(la.slowdown_c, 89);
  EXPECT_DOUBLE_EQ(la.shutdown_c, 92);
  EXPECT_EQ(a100.q->selected_index, -1);
  Parsed h100 = Parse(Slurp(kReal + "h100_80gb_hbm3_x8_driver565_tlimit_nvidia_smi_q.txt"));
  ASSERT_TRUE(h100.q.ok());
  ASSERT_EQ(h100.q->gpus.size(), 8U);
  const NvsmiAbsoluteLimits lh = AbsoluteLimitsOf(h100.q->gpus[0]);
  EXPECT_EQ(lh.form, "tlimit");
  EXPECT_DOUBLE_EQ(lh.max_operating_c, 87);  // 30 C + 57 C headroom - 0
  EXPECT_DOUBLE_EQ(lh.slowdown_c, 89);       // 87 - (-2)
  EXPECT_DOUBLE_EQ(lh.shutdown_c, 95);       // 87 - (-8)
  EXPECT_DOUBLE_EQ(AbsoluteLimitsOf(h100.q->gpus[6]).slowdown_c, 85);
  Parsed h800 = Parse(Slurp(kReal + "h800_driver525_nvidia_smi_q.txt"));
  ASSERT_TRUE(h800.q.ok());
  const NvsmiAbsoluteLimits l8 = AbsoluteLimitsOf(h800.q->gpus[0]);
  EXPECT_EQ(l8.form, "absolute");
  EXPECT_DOUBLE_EQ(l8.max_operating_c, 87);
  EXPECT_NEAR(l8.max_operating_c, h800.q->gpus[0].current_c + h800.q->gpus[0].tlimit_c, 1.0);
  EXPECT_DOUBLE_EQ(l8.slowdown_c, 89);
  EXPECT_EQ(h800.q->selected_index, 0);
  for (const char* f : {"a100_sxm4_80gb_x4_driver555_nvidia_smi_q.txt", "h100_80gb_hbm3_x8_driver565_tlimit_nvidia_smi_q.txt",
                        "h800_driver525_nvidia_smi_q.txt"}) {
    EXPECT_TRUE(LooksLikeNvsmiQuery(Slurp(kReal + f))) << f;
  }
}

TEST(NvsmiQuery, NoLimitsAndPromptForms) {
  NvsmiQueryGpu g;
  EXPECT_EQ(AbsoluteLimitsOf(g).form, "");
  g.current_c = 40;  // T.Limit N/A: nothing to derive from
  g.slowdown_tlimit_c = -2;
  EXPECT_TRUE(std::isnan(AbsoluteLimitsOf(g).slowdown_c));
  const std::string section = "GPU 00000000:18:00.0\n    Product Name : X\n";
  EXPECT_EQ(Parse("$ nvidia-smi -q --id=3\n" + section).q->selected_index, 3);
  EXPECT_EQ(Parse("$ nvidia-smi -q -i 00000000:18:00.0\n" + section).q->selected_index, -1);
  EXPECT_FALSE(LooksLikeNvsmiQuery("Attached GPUs : 2\nno sections\n"));
  EXPECT_TRUE(LooksLikeNvsmiQuery("boot log\nAttached GPUs : 1\n" + section));
}

TEST(NvsmiQuery, BadInputsAreRefusedWithTheReason) {
  EXPECT_FALSE(Parse("").q.ok());
  EXPECT_FALSE(Parse("GPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV18\t0-47\n").q.ok());  // nvidia-smi topo
  Parsed bin = Parse(std::string("\x00\x01\x02\x03 not text", 13));
  EXPECT_FALSE(bin.q.ok());
  EXPECT_EQ(bin.diag.rejected_total(), 1);
}

TEST(NvsmiQuery, BadLinesAreRejectedWithTheirLine) {
  Parsed p = Parse(
      "==============NVSMI LOG==============\n"
      "Attached GPUs                             : 3\n"
      "    GPU Current Temp                  : 30 C\n"  // 3: before any section
      "GPU 00000000:18:00.0\n"
      "    Product Name                          : NVIDIA H100 80GB HBM3\n"
      "    Temperature\n"
      "        GPU Current Temp                  : hot C\n"  // 7: not a number
      "        GPU Shutdown Temp                 : 92 C\n"
      "        GPU Shutdown Temp                 : 93 C\n"  // 9: repeated
      "        GPU Slowdown Temp                 : 1e9 C\n"  // 10: out of range
      "GPU 00000000:18:00.0\n"                               // 11: section repeated
      "        GPU Slowdown Temp                 : 89 C\n"  // 12: no section (the repeat was refused)
      "GPU 00000000:2A:00.0\n"
      "        GPU Current Temp                  : N/A\n");
  ASSERT_TRUE(p.q.ok());
  EXPECT_EQ(p.q->counts.rejected, 6) << p.Reasons();
  EXPECT_EQ(p.q->counts.accepted, 6);  // Attached, 2 sections, Product Name, Shutdown 92, Current N/A
  ASSERT_EQ(p.q->gpus.size(), 2U);
  EXPECT_DOUBLE_EQ(p.q->gpus[0].shutdown_c, 92);
  EXPECT_TRUE(std::isnan(p.q->gpus[1].current_c));
  const std::string r = p.Reasons();
  for (const char* want : {"3: GPU line before any", "7: GPU Current Temp 'hot C' is not", "9: GPU Shutdown Temp repeated",
                           "10: GPU Slowdown Temp '1e9 C' is not", "11: GPU section 00000000:18:00.0 repeated",
                           "12: GPU line before any"}) {
    EXPECT_NE(r.find(want), std::string::npos) << want << "\n" << r;
  }
  EXPECT_NE(p.Reasons(Severity::kWarning).find("Attached GPUs says 3 but 2 GPU section(s)"), std::string::npos);
}

}  // namespace nvsmi_query_test
}  // namespace toposcope::formats
