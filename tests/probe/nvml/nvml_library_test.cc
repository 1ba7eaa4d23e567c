// Tests of probe/nvml/nvml_library against the fake libnvidia-ml built with the tests.
#include "toposcope/probe/nvml/nvml_library.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

namespace toposcope::probe {
namespace nvml_library_test {

int LiveInits() {
  auto lib = DynamicLibrary::Open({TOPOSCOPE_FAKE_NVML}, "fake");
  int (*fn)() = nullptr;
  if (!lib.ok() || !lib->Bind("fake_nvml_live_inits", &fn).ok()) return -1;
  return fn();
}

TEST(NvmlLibrary, LoadsInitialisesAndShutsDown) {
  unsetenv("FAKE_NVML_FAIL");
  {
    auto n = NvmlLibrary::Load(TOPOSCOPE_FAKE_NVML);
    ASSERT_TRUE(n.ok()) << n.error().ToString();
    EXPECT_EQ(LiveInits(), 1);
    NvmlLibrary moved = std::move(*n);
    EXPECT_EQ(LiveInits(), 1);
    unsigned count = 0;
    EXPECT_TRUE(moved.Check(moved.api().DeviceGetCount(&count), "count").ok());
    EXPECT_EQ(count, 2u);
    EXPECT_NE(moved.api().GpmMetricsGet, nullptr);
  }
  EXPECT_EQ(LiveInits(), 0);
}

TEST(NvmlLibrary, InitFailureIsReportedWithNvmlsWords) {
  setenv("FAKE_NVML_FAIL", "nvmlInit_v2", 1);
  auto n = NvmlLibrary::Load(TOPOSCOPE_FAKE_NVML);
  unsetenv("FAKE_NVML_FAIL");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().message, "nvmlInit_v2: Driver Not Loaded (nvmlReturn 9)");
  EXPECT_EQ(LiveInits(), 0);
}

TEST(NvmlLibrary, MissingLibraryOrEntryPoint) {
  EXPECT_FALSE(NvmlLibrary::Load("/nonexistent/libnvidia-ml.so.1").ok());
  auto wrong = NvmlLibrary::Load(TOPOSCOPE_FAKE_CUDART);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("does not export nvmlInit_v2"), std::string::npos);
}

TEST(NvmlLibrary, FieldValuesOfEveryType) {
  NvmlFieldValue v;
  v.value_type = 3;
  v.value.ull = 1ULL << 40;
  EXPECT_EQ(NvmlFieldAsDouble(v), 1099511627776.0);
  v.value_type = 0;
  v.value.d = 2.5;
  EXPECT_EQ(NvmlFieldAsDouble(v), 2.5);
  v.value_type = 5;
  v.value.si = -3;
  EXPECT_EQ(NvmlFieldAsDouble(v), -3);
  v.value_type = 42;
  EXPECT_TRUE(std::isnan(NvmlFieldAsDouble(v)));
}

}  // namespace nvml_library_test
}  // namespace toposcope::probe
