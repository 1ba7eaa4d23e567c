// Tests of probe/dynamic_library: opening, candidates in order, symbols, errors.
#include "toposcope/probe/dynamic_library.h"

#include <gtest/gtest.h>

namespace toposcope::probe {
namespace dynamic_library_test {

TEST(DynamicLibrary, OpensTheFirstCandidateThatLoads) {
  auto lib = DynamicLibrary::Open({"/nonexistent/libnothing.so", TOPOSCOPE_FAKE_NVML}, "NVML");
  ASSERT_TRUE(lib.ok()) << lib.error().ToString();
  EXPECT_EQ(lib->path(), TOPOSCOPE_FAKE_NVML);
  EXPECT_NE(lib->Find("nvmlInit_v2"), nullptr);
  EXPECT_EQ(lib->Find("no_such_symbol"), nullptr);
  int (*fn)() = nullptr;
  EXPECT_TRUE(lib->Bind("nvmlInit_v2", &fn).ok());
  EXPECT_NE(fn, nullptr);
  const Status missing = lib->Bind("no_such_symbol", &fn);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("does not export no_such_symbol"), std::string::npos);
}

TEST(DynamicLibrary, FailureNamesEveryCandidate) {
  auto lib = DynamicLibrary::Open({"/nonexistent/a.so", "/nonexistent/b.so"}, "the thing");
  ASSERT_FALSE(lib.ok());
  const std::string m = lib.error().message;
  EXPECT_NE(m.find("cannot load the thing"), std::string::npos);
  EXPECT_NE(m.find("/nonexistent/a.so"), std::string::npos);
  EXPECT_NE(m.find("/nonexistent/b.so"), std::string::npos);
  EXPECT_FALSE(DynamicLibrary::Open({}, "x").ok());
}

TEST(DynamicLibrary, MovesOwnership) {
  auto lib = DynamicLibrary::Open({TOPOSCOPE_FAKE_CUDART}, "cudart");
  ASSERT_TRUE(lib.ok());
  DynamicLibrary moved = std::move(*lib);
  EXPECT_TRUE(moved.loaded());
  EXPECT_FALSE(lib->loaded());  // NOLINT(bugprone-use-after-move): the moved-from state is defined
  EXPECT_NE(moved.Find("cudaMalloc"), nullptr);
}

}  // namespace dynamic_library_test
}  // namespace toposcope::probe
