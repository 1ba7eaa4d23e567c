// A fake of CUDA's runtime (libcudart.so) for tests on machines without a GPU: the entry points
// the P2P probe loads, over a model of N devices whose copies advance a per-stream clock by
// latency + bytes / bandwidth. Configured by environment variables, read at each call:
//   FAKE_CUDA_DEVICES   device count (default 4; 0 = none)
//   FAKE_CUDA_LINKS     "0-1:300,2-3:300": GB/s of peer copies on those pairs (others: 25 GB/s
//                       with peer access, 12 GB/s staged; 1000 GB/s inside one device)
//   FAKE_CUDA_NO_PEER   "0-3,1-2": pairs that cannot access each other as peers
//   FAKE_CUDA_FAIL      the name of one entry point that fails (cudaMalloc: out of memory)
// fake_cuda_live_objects() counts allocations, streams and events not yet released.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace {

struct Stream {
  int dev = 0;
  double t_s = 0;
};
struct Event {
  int dev = 0;
  double t_s = 0;
  bool recorded = false;
};

int g_current = 0;
std::map<void*, int> g_alloc;  // pointer -> device
std::set<Stream*> g_streams;
std::set<Event*> g_events;
std::set<std::pair<int, int>> g_peer;  // (device, peer) with access enabled
int g_last_error = 0;

int EnvInt(const char* name, int dflt) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : dflt;
}
int Devices() { return EnvInt("FAKE_CUDA_DEVICES", 4); }
bool Fails(const char* fn) {
  const char* v = std::getenv("FAKE_CUDA_FAIL");
  return v != nullptr && std::strcmp(v, fn) == 0;
}
// Looks up "a-b[:x]" items of a comma list; returns x (or 1 without ':'), or -1 when absent.
double PairValue(const char* env, int a, int b) {
  const char* v = std::getenv(env);
  if (v == nullptr) return -1;
  std::string s(v);
  size_t pos = 0;
  while (pos < s.size()) {
    size_t end = s.find(',', pos);
    if (end == std::string::npos) end = s.size();
    const std::string item = s.substr(pos, end - pos);
    int x = -1, y = -1;
    double val = 1;
    if (std::sscanf(item.c_str(), "%d-%d:%lf", &x, &y, &val) >= 2 && ((x == a && y == b) || (x == b && y == a))) return val;
    pos = end + 1;
  }
  return -1;
}
bool ValidDevice(int d) { return d >= 0 && d < Devices(); }
int Err(int e) {
  g_last_error = e;
  return e;
}

}  // namespace

extern "C" {

int fake_cuda_live_objects() { return static_cast<int>(g_alloc.size() + g_streams.size() + g_events.size()); }

const char* cudaGetErrorString(int e) {
  switch (e) {
    case 0: return "no error";
    case 2: return "out of memory";
    case 100: return "no CUDA-capable device is detected";
    case 101: return "invalid device ordinal";
    case 400: return "invalid resource handle";
    case 704: return "peer access is already enabled";
    case 705: return "peer access has not been enabled";
    default: return "unknown error";
  }
}
int cudaGetLastError() { return std::exchange(g_last_error, 0); }
int cudaRuntimeGetVersion(int* v) { *v = 12040; return 0; }
int cudaDriverGetVersion(int* v) { *v = 12040; return 0; }

int cudaGetDeviceCount(int* n) {
  if (Fails("cudaGetDeviceCount")) return Err(999);
  *n = Devices();
  return *n == 0 ? Err(100) : 0;
}
int cudaSetDevice(int d) {
  if (Fails("cudaSetDevice") || !ValidDevice(d)) return Err(101);
  g_current = d;
  return 0;
}
int cudaDeviceSynchronize() { return Fails("cudaDeviceSynchronize") ? Err(999) : 0; }
int cudaDeviceCanAccessPeer(int* ok, int d, int p) {
  if (!ValidDevice(d) || !ValidDevice(p)) return Err(101);
  *ok = d != p && PairValue("FAKE_CUDA_NO_PEER", d, p) < 0 ? 1 : 0;
  return 0;
}
int cudaDeviceEnablePeerAccess(int p, unsigned /*flags*/) {
  if (Fails("cudaDeviceEnablePeerAccess")) return Err(999);
  if (!ValidDevice(p) || PairValue("FAKE_CUDA_NO_PEER", g_current, p) >= 0) return Err(217);
  return g_peer.insert({g_current, p}).second ? 0 : Err(704);
}
int cudaDeviceDisablePeerAccess(int p) { return g_peer.erase({g_current, p}) > 0 ? 0 : Err(705); }
int cudaDeviceGetPCIBusId(char* buf, int len, int d) {
  if (!ValidDevice(d)) return Err(101);
  std::snprintf(buf, static_cast<size_t>(len), "0000:%02X:00.0", 0x18 + 0x10 * d);
  return 0;
}
int cudaGetDeviceProperties_v2(void* prop, int d) {
  if (!ValidDevice(d)) return Err(101);
  std::snprintf(static_cast<char*>(prop), 256, "Fake GPU %d", d);
  return 0;
}

int cudaMalloc(void** p, size_t bytes) {
  if (Fails("cudaMalloc") || bytes == 0) return Err(2);
  *p = std::malloc(1);  // the model needs the pointer only
  g_alloc[*p] = g_current;
  return 0;
}
int cudaFree(void* p) {
  if (g_alloc.erase(p) == 0) return Err(400);
  std::free(p);
  return 0;
}
int cudaMemset(void* p, int /*v*/, size_t /*n*/) { return g_alloc.count(p) != 0 ? 0 : Err(400); }

int cudaStreamCreateWithFlags(void** s, unsigned /*flags*/) {
  if (Fails("cudaStreamCreateWithFlags")) return Err(999);
  auto* st = new Stream{g_current, 0};
  g_streams.insert(st);
  *s = st;
  return 0;
}
int cudaStreamDestroy(void* s) {
  auto* st = static_cast<Stream*>(s);
  if (g_streams.erase(st) == 0) return Err(400);
  delete st;
  return 0;
}
int cudaEventCreate(void** e) {
  if (Fails("cudaEventCreate")) return Err(999);
  auto* ev = new Event{g_current, 0, false};
  g_events.insert(ev);
  *e = ev;
  return 0;
}
int cudaEventDestroy(void* e) {
  auto* ev = static_cast<Event*>(e);
  if (g_events.erase(ev) == 0) return Err(400);
  delete ev;
  return 0;
}
int cudaEventRecord(void* e, void* s) {
  auto* ev = static_cast<Event*>(e);
  auto* st = static_cast<Stream*>(s);
  if (g_events.count(ev) == 0 || g_streams.count(st) == 0 || ev->dev != st->dev) return Err(400);
  ev->t_s = st->t_s;
  ev->recorded = true;
  return 0;
}
int cudaStreamWaitEvent(void* s, void* e, unsigned /*flags*/) {
  auto* ev = static_cast<Event*>(e);
  auto* st = static_cast<Stream*>(s);
  if (g_events.count(ev) == 0 || g_streams.count(st) == 0) return Err(400);
  st->t_s = std::max(st->t_s, ev->t_s);
  return 0;
}
int cudaEventSynchronize(void* e) { return g_events.count(static_cast<Event*>(e)) != 0 ? 0 : Err(400); }
int cudaEventElapsedTime(float* ms, void* a, void* b) {
  auto* ea = static_cast<Event*>(a);
  auto* eb = static_cast<Event*>(b);
  if (g_events.count(ea) == 0 || g_events.count(eb) == 0 || !ea->recorded || !eb->recorded) return Err(600);
  *ms = static_cast<float>((eb->t_s - ea->t_s) * 1e3);
  return 0;
}
int cudaMemcpyPeerAsync(void* dst, int dd, const void* src, int sd, size_t bytes, void* s) {
  auto* st = static_cast<Stream*>(s);
  if (Fails("cudaMemcpyPeerAsync")) return Err(999);
  auto di = g_alloc.find(dst);
  auto si = g_alloc.find(const_cast<void*>(src));
  if (g_streams.count(st) == 0 || di == g_alloc.end() || si == g_alloc.end() || di->second != dd || si->second != sd) {
    return Err(400);
  }
  const bool peer = g_peer.count({sd, dd}) != 0 || g_peer.count({dd, sd}) != 0;
  const double link = PairValue("FAKE_CUDA_LINKS", sd, dd);
  const double gbps = sd == dd ? 1000 : !peer ? 12 : link > 0 ? link : 25;
  const double lat_us = sd == dd ? 2 : peer ? 3 : 10;
  st->t_s += lat_us * 1e-6 + static_cast<double>(bytes) / (gbps * 1e9);
  return 0;
}

}  // extern "C"
