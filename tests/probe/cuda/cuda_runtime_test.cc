// Tests of probe/cuda/cuda_runtime against the fake libcudart built with the tests.
#include "toposcope/probe/cuda/cuda_runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace toposcope::probe {
namespace cuda_runtime_test {

TEST(CudaRuntime, LoadsTheFakeAndAnswers) {
  auto rt = CudaRuntime::Load(TOPOSCOPE_FAKE_CUDART);
  ASSERT_TRUE(rt.ok()) << rt.error().ToString();
  setenv("FAKE_CUDA_DEVICES", "2", 1);
  int n = 0;
  EXPECT_TRUE(rt->Check(rt->api().GetDeviceCount(&n), "count").ok());
  EXPECT_EQ(n, 2);
  EXPECT_EQ(rt->DeviceName(1), "Fake GPU 1");
  EXPECT_EQ(rt->PciBusId(1), "0000:28:00.0");
  EXPECT_EQ(rt->RuntimeVersion(), "12040");
  EXPECT_EQ(rt->DeviceName(7), "");  // no such device: empty, not a failure
  unsetenv("FAKE_CUDA_DEVICES");
}

TEST(CudaRuntime, CheckNamesTheCallAndTheError) {
  auto rt = CudaRuntime::Load(TOPOSCOPE_FAKE_CUDART);
  ASSERT_TRUE(rt.ok());
  const Status s = rt->Check(2, "cudaMalloc of 8 bytes");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "cudaMalloc of 8 bytes: out of memory (cudaError 2)");
}

TEST(CudaRuntime, MissingLibraryOrEntryPointIsAClearError) {
  auto none = CudaRuntime::Load("/nonexistent/libcudart.so");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("the CUDA runtime"), std::string::npos);
  // NVML's fake is a real shared library without CUDA's entry points.
  auto wrong = CudaRuntime::Load(TOPOSCOPE_FAKE_NVML);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("does not export cudaGetDeviceCount"), std::string::npos);
  EXPECT_FALSE(CudaRuntime::DefaultCandidates().empty());
}

}  // namespace cuda_runtime_test
}  // namespace toposcope::probe
