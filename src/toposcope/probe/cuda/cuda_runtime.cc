// probe/cuda/cuda_runtime: binds the runtime's C entry points by name.
#include "toposcope/probe/cuda/cuda_runtime.h"

#include <cstring>
#include <vector>

namespace toposcope::probe {

std::vector<std::string> CudaRuntime::DefaultCandidates() {
  return {"libcudart.so",
          "libcudart.so.13",
          "libcudart.so.12",
          "libcudart.so.11.0",
          "/usr/local/cuda/lib64/libcudart.so",
          "/usr/local/cuda/targets/x86_64-linux/lib/libcudart.so"};
}

Result<CudaRuntime> CudaRuntime::Load(const std::string& path) {
  auto lib = DynamicLibrary::Open(path.empty() ? DefaultCandidates() : std::vector<std::string>{path},
                                  "the CUDA runtime (libcudart)");
  if (!lib.ok()) return lib.error();
  CudaRuntime rt;
  rt.lib_ = std::move(*lib);
  const DynamicLibrary& l = rt.lib_;
  CudaApi& a = rt.api_;
  for (const Status& s : {
           l.Bind("cudaGetDeviceCount", &a.GetDeviceCount),
           l.Bind("cudaSetDevice", &a.SetDevice),
           l.Bind("cudaDeviceSynchronize", &a.DeviceSynchronize),
           l.Bind("cudaDeviceCanAccessPeer", &a.DeviceCanAccessPeer),
           l.Bind("cudaDeviceEnablePeerAccess", &a.DeviceEnablePeerAccess),
           l.Bind("cudaDeviceDisablePeerAccess", &a.DeviceDisablePeerAccess),
           l.Bind("cudaDeviceGetPCIBusId", &a.DeviceGetPCIBusId),
           l.Bind("cudaMalloc", &a.Malloc),
           l.Bind("cudaFree", &a.Free),
           l.Bind("cudaMemset", &a.Memset),
           l.Bind("cudaStreamCreateWithFlags", &a.StreamCreateWithFlags),
           l.Bind("cudaStreamDestroy", &a.StreamDestroy),
           l.Bind("cudaStreamWaitEvent", &a.StreamWaitEvent),
           l.Bind("cudaEventCreate", &a.EventCreate),
           l.Bind("cudaEventDestroy", &a.EventDestroy),
           l.Bind("cudaEventRecord", &a.EventRecord),
           l.Bind("cudaEventSynchronize", &a.EventSynchronize),
           l.Bind("cudaEventElapsedTime", &a.EventElapsedTime),
           l.Bind("cudaMemcpyPeerAsync", &a.MemcpyPeerAsync),
           l.Bind("cudaGetErrorString", &a.GetErrorString),
       }) {
    if (!s.ok()) return s.error();
  }
  l.BindOptional("cudaGetLastError", &a.GetLastError);
  l.BindOptional("cudaRuntimeGetVersion", &a.RuntimeGetVersion);
  l.BindOptional("cudaDriverGetVersion", &a.DriverGetVersion);
  // CUDA 12 renamed the entry point (the header maps the old name onto it); older runtimes have
  // only the old one. Its struct's first field is the name in every version.
  l.BindOptional("cudaGetDeviceProperties_v2", &a.GetDeviceProperties);
  if (a.GetDeviceProperties == nullptr) l.BindOptional("cudaGetDeviceProperties", &a.GetDeviceProperties);
  return rt;
}

Status CudaRuntime::Check(int err, const std::string& what) const {
  if (err == kCudaSuccess) return {};
  const char* s = api_.GetErrorString != nullptr ? api_.GetErrorString(err) : nullptr;
  return MakeError(what + ": " + (s != nullptr ? std::string(s) : std::string("unknown error")) + " (cudaError " +
                   std::to_string(err) + ")");
}

std::string CudaRuntime::DeviceName(int device) const {
  if (api_.GetDeviceProperties == nullptr) return {};
  // cudaDeviceProp is about 1 KiB in CUDA 11-13; a larger buffer leaves room for later growth.
  std::vector<char> prop(64 * 1024, 0);
  if (api_.GetDeviceProperties(prop.data(), device) != kCudaSuccess) {
    if (api_.GetLastError != nullptr) api_.GetLastError();
    return {};
  }
  return std::string(prop.data(), strnlen(prop.data(), 256));
}

std::string CudaRuntime::PciBusId(int device) const {
  char buf[64] = {};
  if (api_.DeviceGetPCIBusId(buf, sizeof buf, device) != kCudaSuccess) {
    if (api_.GetLastError != nullptr) api_.GetLastError();
    return {};
  }
  return std::string(buf, strnlen(buf, sizeof buf));
}

std::string CudaRuntime::RuntimeVersion() const {
  int v = 0;
  if (api_.RuntimeGetVersion == nullptr || api_.RuntimeGetVersion(&v) != kCudaSuccess) return {};
  return std::to_string(v);
}

std::string CudaRuntime::DriverVersion() const {
  int v = 0;
  if (api_.DriverGetVersion == nullptr || api_.DriverGetVersion(&v) != kCudaSuccess) return {};
  return std::to_string(v);
}

}  // namespace toposcope::probe
