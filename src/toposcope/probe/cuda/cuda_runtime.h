// probe/cuda/cuda_runtime: the few entry points of CUDA's runtime (libcudart) the P2P probe uses,
// loaded at run time. No CUDA header is needed: the C signatures are declared here with opaque
// handles (cudaStream_t, cudaEvent_t are pointers; cudaError_t an int), as the runtime exports them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/probe/dynamic_library.h"

namespace toposcope::probe {

using CudaStream = void*;
using CudaEvent = void*;

// cudaError_t values the probe tells apart.
inline constexpr int kCudaSuccess = 0;
inline constexpr int kCudaErrorPeerAccessAlreadyEnabled = 704;
inline constexpr int kCudaErrorPeerAccessNotEnabled = 705;

struct CudaApi {
  int (*GetDeviceCount)(int*) = nullptr;
  int (*SetDevice)(int) = nullptr;
  int (*DeviceSynchronize)() = nullptr;
  int (*DeviceCanAccessPeer)(int*, int, int) = nullptr;
  int (*DeviceEnablePeerAccess)(int, unsigned) = nullptr;
  int (*DeviceDisablePeerAccess)(int) = nullptr;
  int (*DeviceGetPCIBusId)(char*, int, int) = nullptr;
  int (*Malloc)(void**, size_t) = nullptr;
  int (*Free)(void*) = nullptr;
  int (*Memset)(void*, int, size_t) = nullptr;
  int (*StreamCreateWithFlags)(CudaStream*, unsigned) = nullptr;
  int (*StreamDestroy)(CudaStream) = nullptr;
  int (*StreamWaitEvent)(CudaStream, CudaEvent, unsigned) = nullptr;
  int (*EventCreate)(CudaEvent*) = nullptr;
  int (*EventDestroy)(CudaEvent) = nullptr;
  int (*EventRecord)(CudaEvent, CudaStream) = nullptr;
  int (*EventSynchronize)(CudaEvent) = nullptr;
  int (*EventElapsedTime)(float*, CudaEvent, CudaEvent) = nullptr;
  int (*MemcpyPeerAsync)(void*, int, const void*, int, size_t, CudaStream) = nullptr;
  const char* (*GetErrorString)(int) = nullptr;
  // Optional: absent from some runtimes or fakes.
  int (*GetLastError)() = nullptr;
  int (*RuntimeGetVersion)(int*) = nullptr;
  int (*DriverGetVersion)(int*) = nullptr;
  int (*GetDeviceProperties)(void*, int) = nullptr;  // cudaGetDeviceProperties_v2 when exported
};

// The runtime, loaded. Move-only (owns the library).
class CudaRuntime {
 public:
  // Loads `path` when given, else the first of libcudart.so, libcudart.so.13/.12/.11 and the
  // toolkit's /usr/local/cuda/lib64 copies that loads. Fails naming what was tried, or the first
  // missing entry point.
  static Result<CudaRuntime> Load(const std::string& path = {});
  // The names tried when no path is given, in order.
  static std::vector<std::string> DefaultCandidates();

  [[nodiscard]] const CudaApi& api() const { return api_; }
  [[nodiscard]] const std::string& path() const { return lib_.path(); }

  // kCudaSuccess → ok; else an Error "<what>: <cudaGetErrorString> (cudaError <n>)".
  [[nodiscard]] Status Check(int err, const std::string& what) const;
  // The device's name (cudaGetDeviceProperties' first field), "" when the runtime cannot say.
  [[nodiscard]] std::string DeviceName(int device) const;
  // "0000:18:00.0" as the runtime prints it, "" when it cannot say.
  [[nodiscard]] std::string PciBusId(int device) const;
  // "13000" style versions, "" when absent.
  [[nodiscard]] std::string RuntimeVersion() const;
  [[nodiscard]] std::string DriverVersion() const;

 private:
  DynamicLibrary lib_;
  CudaApi api_;
};

}  // namespace toposcope::probe
