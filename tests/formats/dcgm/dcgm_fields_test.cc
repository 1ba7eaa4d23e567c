// Tests of the built-in DCGM field catalog (ids, names, aliases, classes) and the `dcgmi dmon -l`
// reader, golden on the real DCGM 3.1.8 field list: every fixture row is in the catalog.
#include "toposcope/formats/dcgm/dcgm_fields.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace toposcope::formats {
namespace dcgm_fields_test {

const std::string kList =
    std::string(TOPOSCOPE_FIXTURES) + "/dcgmi_dmon/dcgm318_dmon_list_fields.txt";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DcgmFields, GoldenDmonListFixture) {
  Diagnostics diag;
  ReadCounts counts;
  auto list = ParseDmonFieldList(Slurp(kList), kList, diag, counts);
  ASSERT_TRUE(list.ok()) << list.error().ToString();
  EXPECT_EQ(list->size(), 385u);
  EXPECT_EQ(counts.read, 385);
  EXPECT_EQ(counts.accepted, 385);
  EXPECT_EQ(counts.rejected, 0);
  EXPECT_TRUE(counts.Balanced());
  const auto& first = list->front();
  EXPECT_EQ(first.long_name, "driver_version");
  EXPECT_EQ(first.short_name, "DRVER");
  EXPECT_EQ(first.field_id, 1);
  EXPECT_EQ(first.line, 4);
  const auto& last = list->back();
  EXPECT_EQ(last.long_name, "nvlink_l17_rx_bytes");
  EXPECT_EQ(last.short_name, "NVL17R");
  EXPECT_EQ(last.field_id, 1075);
  EXPECT_EQ(last.line, 388);
  // Every fixture row is in the built-in table with the same id, long and short name.
  for (const auto& e : *list) {
    const DcgmField* f = FindFieldById(e.field_id);
    ASSERT_NE(f, nullptr) << e.field_id;
    EXPECT_EQ(f->short_name, e.short_name) << e.field_id;
    EXPECT_EQ(f->long_name, e.long_name) << e.field_id;
    EXPECT_TRUE(f->in_dmon_list) << e.field_id;
    const DcgmField* by_short = FindFieldByName(e.short_name);
    ASSERT_NE(by_short, nullptr) << e.short_name;
    EXPECT_EQ(by_short->id, e.field_id);
    const DcgmField* by_long = FindFieldByName(e.long_name);
    ASSERT_NE(by_long, nullptr) << e.long_name;
    EXPECT_EQ(by_long->id, e.field_id);
  }
  // And the table has nothing else marked as listed.
  int listed = 0;
  for (const DcgmField& f : AllFields()) listed += f.in_dmon_list ? 1 : 0;
  EXPECT_EQ(listed, 385);
}

TEST(DcgmFields, TableIsSortedUniqueAndComplete) {
  const auto& all = AllFields();
  EXPECT_EQ(all.size(), 385u + 38u);  // + DCGM 4.x NVLink TX/RX bandwidth L0..17 and totals
  std::set<int> ids;
  std::set<std::string_view> constants;
  for (size_t i = 0; i < all.size(); ++i) {
    const DcgmField& f = all[i];
    if (i > 0) {
      EXPECT_LT(all[i - 1].id, f.id);
    }
    EXPECT_TRUE(ids.insert(f.id).second);
    EXPECT_FALSE(f.constant.empty()) << f.id;
    EXPECT_TRUE(constants.insert(f.constant).second) << f.constant;
    EXPECT_EQ(f.constant.substr(0, 8), "DCGM_FI_");
    EXPECT_EQ(FindFieldByName(f.constant), &f) << f.constant;
    EXPECT_EQ(f.max_period_ms, FieldClassMaxPeriodMs(f.field_class));
  }
}

TEST(DcgmFields, FormatNotesTable) {
  struct Want {
    int id;
    std::string_view constant;
    std::string_view short_name;
    std::string_view unit;
    FieldClass cls;
    FieldValueType type;
  };
  const Want wants[] = {
      {150, "DCGM_FI_DEV_GPU_TEMP", "TMPTR", "C", FieldClass::kThermalPower, FieldValueType::kInt64},
      {155, "DCGM_FI_DEV_POWER_USAGE", "POWER", "W", FieldClass::kThermalPower,
       FieldValueType::kDouble},
      {200, "DCGM_FI_DEV_PCIE_TX_THROUGHPUT", "TXTPT", "KB/s", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {201, "DCGM_FI_DEV_PCIE_RX_THROUGHPUT", "RXTPT", "KB/s", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {203, "DCGM_FI_DEV_GPU_UTIL", "GPUTL", "%", FieldClass::kCompute, FieldValueType::kInt64},
      {204, "DCGM_FI_DEV_MEM_COPY_UTIL", "MCUTL", "%", FieldClass::kMemory, FieldValueType::kInt64},
      {252, "DCGM_FI_DEV_FB_USED", "FBUSD", "MiB", FieldClass::kMemory, FieldValueType::kInt64},
      {440, "DCGM_FI_DEV_NVLINK_BANDWIDTH_L0", "NBWL0", "MB/s", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {480, "DCGM_FI_DEV_NVLINK_BANDWIDTH_L11", "NBWL11", "MB/s", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {496, "DCGM_FI_DEV_NVLINK_BANDWIDTH_L17", "NBWL17", "MB/s", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {449, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "NBWLT", "MB/s", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {825, "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L0", "NTXBWL0", "", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {843, "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_TOTAL", "NTXBWLT", "", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {897, "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_TOTAL", "NRXBWLT", "", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {1001, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "GRACT", "ratio", FieldClass::kCompute,
       FieldValueType::kDouble},
      {1002, "DCGM_FI_PROF_SM_ACTIVE", "SMACT", "ratio", FieldClass::kCompute,
       FieldValueType::kDouble},
      {1004, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "TENSO", "ratio", FieldClass::kCompute,
       FieldValueType::kDouble},
      {1005, "DCGM_FI_PROF_DRAM_ACTIVE", "DRAMA", "ratio", FieldClass::kMemory,
       FieldValueType::kDouble},
      {1009, "DCGM_FI_PROF_PCIE_TX_BYTES", "PCITX", "B/s", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {1012, "DCGM_FI_PROF_NVLINK_RX_BYTES", "NVLRX", "B/s", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {1040, "DCGM_FI_PROF_NVLINK_L0_TX_BYTES", "NVL0T", "B/s", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {1075, "DCGM_FI_PROF_NVLINK_L17_RX_BYTES", "NVL17R", "B/s", FieldClass::kCommunication,
       FieldValueType::kInt64},
      {409, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "NFELT", "count", FieldClass::kHealth,
       FieldValueType::kInt64},
      {241, "DCGM_FI_DEV_THERMAL_VIOLATION", "TVIOL", "ns", FieldClass::kThermalPower,
       FieldValueType::kInt64},
      {100, "DCGM_FI_DEV_SM_CLOCK", "SMCLK", "MHz", FieldClass::kClock, FieldValueType::kInt64},
      {54, "DCGM_FI_DEV_UUID", "UUID#", "", FieldClass::kIdentity, FieldValueType::kString},
  };
  for (const Want& w : wants) {
    const DcgmField* f = FindFieldById(w.id);
    ASSERT_NE(f, nullptr) << w.id;
    EXPECT_EQ(f->constant, w.constant) << w.id;
    EXPECT_EQ(f->short_name, w.short_name) << w.id;
    EXPECT_EQ(f->unit, w.unit) << w.id;
    EXPECT_EQ(f->field_class, w.cls) << w.id;
    EXPECT_EQ(f->type, w.type) << w.id;
  }
  EXPECT_EQ(FindFieldById(1011)->max_period_ms, 100);
  EXPECT_EQ(FindFieldById(203)->max_period_ms, 1000);
  EXPECT_EQ(FindFieldById(150)->max_period_ms, 1000);
  EXPECT_EQ(FindFieldById(310)->max_period_ms, 0);
  EXPECT_EQ(FindFieldById(54)->max_period_ms, 0);
  EXPECT_EQ(FindFieldById(1011)->dmon_width, 28);
  EXPECT_EQ(FindFieldById(1010)->dmon_width, 13);
  EXPECT_FALSE(FindFieldById(825)->in_dmon_list);
}

TEST(DcgmFields, LookupByAnyName) {
  // DCGM 4.6 renames and their kept aliases.
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_GPU_TEMP")->id, 150);
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_GPU_TEMP_CELSIUS")->id, 150);
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_GPU_UTIL")->id, 203);
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_GPU_UTIL_RATIO")->id, 203);
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL")->id, 449);
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL")->id, 449);
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_CLOCKS_EVENT_REASONS")->id, 112);
  // Long names, short names, case of constants, spaces.
  EXPECT_EQ(FindFieldByName("nvlink_bandwidth_total")->id, 449);
  EXPECT_EQ(FindFieldByName("NVLTX")->id, 1011);
  EXPECT_EQ(FindFieldByName("dcgm_fi_prof_nvlink_tx_bytes")->id, 1011);
  EXPECT_EQ(FindFieldByName("  DCGM_FI_DEV_DEC_UTIL ")->id, 207);
  EXPECT_EQ(FindFieldByName("NVL3T")->id, 1046);
  EXPECT_EQ(FindFieldByName("NFEL12")->id, 406);
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_ECC_DBE_AGG_TEX")->id, 333);
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_COUNT_VC3")->id, 808);
  EXPECT_EQ(FindFieldByName("nvltx"), nullptr);  // short names are exact
  EXPECT_EQ(FindFieldByName(""), nullptr);
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_NO_SUCH_FIELD"), nullptr);
  EXPECT_EQ(FindFieldById(64), nullptr);
  EXPECT_EQ(FindFieldById(-1), nullptr);
  EXPECT_EQ(FieldClassName(FieldClass::kThermalPower), "thermal_power");
  EXPECT_EQ(FieldClassName(FieldClass::kCommunication), "communication");
  EXPECT_EQ(FieldValueTypeName(FieldValueType::kDouble), "double");
}

TEST(DcgmFields, ExporterCsvFieldsAllResolve) {
  // Every field the two shipped counters CSVs name, commented out or not.
  const char* names[] = {
      "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_MEMORY_TEMP",
      "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
      "DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PCIE_RX_BYTES", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
      "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_ENC_UTIL",
      "DCGM_FI_DEV_DEC_UTIL", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_POWER_VIOLATION",
      "DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_SYNC_BOOST_VIOLATION",
      "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", "DCGM_FI_DEV_LOW_UTIL_VIOLATION",
      "DCGM_FI_DEV_RELIABILITY_VIOLATION", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED",
      "DCGM_FI_DEV_FB_RESERVED", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
      "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "DCGM_FI_DEV_RETIRED_SBE",
      "DCGM_FI_DEV_RETIRED_DBE", "DCGM_FI_DEV_RETIRED_PENDING",
      "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
      "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
      "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L0",
      "DCGM_FI_DEV_VGPU_LICENSE_STATUS", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
      "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_ROW_REMAP_FAILURE",
      "DCGM_FI_DRIVER_VERSION", "DCGM_FI_NVML_VERSION", "DCGM_FI_DEV_BRAND", "DCGM_FI_DEV_SERIAL",
      "DCGM_FI_DEV_OEM_INFOROM_VER", "DCGM_FI_DEV_ECC_INFOROM_VER", "DCGM_FI_DEV_POWER_INFOROM_VER",
      "DCGM_FI_DEV_INFOROM_IMAGE_VER", "DCGM_FI_DEV_VBIOS_VERSION", "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
      "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
      "DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_PIPE_FP64_ACTIVE", "DCGM_FI_PROF_PIPE_FP32_ACTIVE",
      "DCGM_FI_PROF_PIPE_FP16_ACTIVE"};
  for (const char* n : names) EXPECT_NE(FindFieldByName(n), nullptr) << n;
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")->unit, "mJ");
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_VGPU_LICENSE_STATUS")->id, 526);
  EXPECT_EQ(FindFieldByName("DCGM_FI_DEV_ROW_REMAP_FAILURE")->id, 395);
}

TEST(DcgmFields, FieldListBadInput) {
  {
    Diagnostics diag;
    ReadCounts counts;
    EXPECT_FALSE(ParseDmonFieldList("", "empty", diag, counts).ok());
    EXPECT_TRUE(counts.Balanced());
  }
  {
    Diagnostics diag;
    ReadCounts counts;
    const std::string bin("\x00\x01\x02garbage", 10);
    EXPECT_FALSE(ParseDmonFieldList(bin, "bin", diag, counts).ok());
  }
  {
    Diagnostics diag;
    ReadCounts counts;
    const std::string text =
        "Long Name        Short Name   Field ID\n"
        "gpu_temp         TMPTR        150\n"
        "too many words here 1\n"
        "bad_id           BADID        12x\n"
        "huge_id          HUGE         99999999999999999999\n"
        "dup              TMPTR        150\n"
        "power_usage      POWER        155\r\n";
    auto r = ParseDmonFieldList(text, "t", diag, counts);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->size(), 2u);
    EXPECT_EQ(counts.read, 6);
    EXPECT_EQ(counts.rejected, 4);
    EXPECT_TRUE(counts.Balanced());
    EXPECT_EQ(diag.RejectedFor("t"), 4);
  }
  {
    // Wrong format entirely: every line rejected, no heading → Error.
    Diagnostics diag;
    ReadCounts counts;
    auto r = ParseDmonFieldList("#Entity NVLTX\nGPU 0 1 2 3\n", "w", diag, counts);
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(counts.Balanced());
  }
}

}  // namespace dcgm_fields_test
}  // namespace toposcope::formats
