// Tests of model/dcgm_read's DcgmPointOfPromSample: a Prometheus sample (a scrape line or a query
// API value) becomes the DCGM point the file readers give: field id from the catalog, host from the
// Hostname label or the fallback, GPU, link, MIG instance; non-DCGM metrics and untimed samples none.
#include "toposcope/model/dcgm_read.h"

#include <gtest/gtest.h>

#include "toposcope/formats/dcgm/dcgm_fields.h"

namespace toposcope::model {
namespace dcgm_read_test {

formats::PromSample Sample(std::string name, formats::PromLabels labels, double value, int64_t ts_ms) {
  formats::PromSample s;
  s.name = std::move(name);
  s.labels = std::move(labels);
  s.value = value;
  s.ts_ms = ts_ms;
  return s;
}

TEST(DcgmPointOfPromSample, FieldHostGpuAndTime) {
  auto p = DcgmPointOfPromSample(
      Sample("DCGM_FI_DEV_GPU_TEMP", {{"gpu", "3"}, {"Hostname", "node7"}, {"instance", "10.0.0.7:9400"}}, 61, 1000), "fallback");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->host, "node7");
  EXPECT_EQ(p->gpu, 3);
  EXPECT_EQ(p->field_id, formats::field_id::kGpuTemp);
  EXPECT_EQ(p->field, "DCGM_FI_DEV_GPU_TEMP");
  EXPECT_EQ(p->ts_ns, int64_t{1000} * 1000000);
  EXPECT_EQ(p->value, 61);
  EXPECT_EQ(p->entity, DcgmEntity::kGpu);
}

TEST(DcgmPointOfPromSample, FallbackHostLinkAndMig) {
  auto p = DcgmPointOfPromSample(Sample("DCGM_FI_PROF_NVLINK_L0_RX_BYTES", {{"gpu", "0"}, {"link", "2"}}, 5, 1), "node1");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->host, "node1");
  EXPECT_EQ(p->link, 2);
  EXPECT_EQ(p->field_id, formats::field_id::kProfNvlinkL0RxBytes);
  auto mig = DcgmPointOfPromSample(Sample("DCGM_FI_PROF_SM_ACTIVE", {{"gpu", "1"}, {"GPU_I_ID", "4"}}, 0.5, 1), "n");
  ASSERT_TRUE(mig.has_value());
  EXPECT_EQ(mig->entity, DcgmEntity::kGpuInstance);
  EXPECT_EQ(mig->instance, 4);
  EXPECT_EQ(mig->gpu, 1);
}

TEST(DcgmPointOfPromSample, NotDcgmOrUntimed) {
  EXPECT_FALSE(DcgmPointOfPromSample(Sample("up", {}, 1, 1), "n").has_value());
  EXPECT_FALSE(DcgmPointOfPromSample(Sample("DCGM_FI_DEV_GPU_TEMP", {{"gpu", "0"}}, 1, kNoTime), "n").has_value());
  auto unknown = DcgmPointOfPromSample(Sample("DCGM_FI_NOT_A_FIELD", {{"gpu", "0"}}, 1, 1), "n");
  ASSERT_TRUE(unknown.has_value());  // kept under its name, without a field id
  EXPECT_EQ(unknown->field_id, -1);
}

}  // namespace dcgm_read_test
}  // namespace toposcope::model
