// probe/cuda/p2p_probe: buffers, streams and events per GPU; one timed loop per pair and mode.
#include "toposcope/probe/cuda/p2p_probe.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/text.h"

namespace toposcope::probe {
namespace {

using formats::P2pMatrix;
using formats::P2pQuantity;

// Everything allocated on the GPUs, released on every path (the destructor).
class ProbeSession {
 public:
  ProbeSession(const CudaRuntime& rt, std::vector<int> devices) : rt_(rt), a_(rt.api()), dev_(std::move(devices)) {}
  ~ProbeSession() { Release(); }
  ProbeSession(const ProbeSession&) = delete;
  ProbeSession& operator=(const ProbeSession&) = delete;

  Status Allocate(size_t bytes) {
    const size_t n = dev_.size();
    src_.assign(n, nullptr);
    dst_.assign(n, nullptr);
    s0_.assign(n, nullptr);
    s1_.assign(n, nullptr);
    start_.assign(n, nullptr);
    stop_.assign(n, nullptr);
    for (size_t k = 0; k < n; ++k) {
      const std::string on = " on device " + std::to_string(dev_[k]);
      if (auto s = rt_.Check(a_.SetDevice(dev_[k]), "cudaSetDevice(" + std::to_string(dev_[k]) + ")"); !s.ok()) return s;
      if (auto s = rt_.Check(a_.Malloc(&src_[k], bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes" + on); !s.ok()) {
        return s;
      }
      if (auto s = rt_.Check(a_.Malloc(&dst_[k], bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes" + on); !s.ok()) {
        return s;
      }
      if (auto s = rt_.Check(a_.Memset(src_[k], 1, bytes), "cudaMemset" + on); !s.ok()) return s;
      if (auto s = rt_.Check(a_.Memset(dst_[k], 0, bytes), "cudaMemset" + on); !s.ok()) return s;
      // cudaStreamNonBlocking (1): no implicit ordering with the legacy default stream.
      if (auto s = rt_.Check(a_.StreamCreateWithFlags(&s0_[k], 1), "cudaStreamCreateWithFlags" + on); !s.ok()) return s;
      if (auto s = rt_.Check(a_.StreamCreateWithFlags(&s1_[k], 1), "cudaStreamCreateWithFlags" + on); !s.ok()) return s;
      if (auto s = rt_.Check(a_.EventCreate(&start_[k]), "cudaEventCreate" + on); !s.ok()) return s;
      if (auto s = rt_.Check(a_.EventCreate(&stop_[k]), "cudaEventCreate" + on); !s.ok()) return s;
    }
    return {};
  }

  // Peer access for every pair that supports it (both directions), or off for all.
  Status SetPeerAccess(const std::vector<std::vector<bool>>& can, bool on) {
    for (size_t i = 0; i < dev_.size(); ++i) {
      if (auto s = rt_.Check(a_.SetDevice(dev_[i]), "cudaSetDevice"); !s.ok()) return s;
      for (size_t j = 0; j < dev_.size(); ++j) {
        if (i == j || !can[i][j]) continue;
        const int err = on ? a_.DeviceEnablePeerAccess(dev_[j], 0) : a_.DeviceDisablePeerAccess(dev_[j]);
        if (err == kCudaErrorPeerAccessAlreadyEnabled || err == kCudaErrorPeerAccessNotEnabled) {
          if (a_.GetLastError != nullptr) a_.GetLastError();  // clear the non-sticky error
          continue;
        }
        const std::string what = std::string(on ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess") + "(" +
                                  std::to_string(dev_[j]) + ") on device " + std::to_string(dev_[i]);
        if (auto s = rt_.Check(err, what); !s.ok()) return s;
        peer_on_ = on;
      }
    }
    return {};
  }

  // Seconds for `reps` copies of `bytes` from device i to j (both ways when bidir), after one
  // untimed warm-up round.
  Result<double> TimeCopies(size_t i, size_t j, size_t bytes, int reps, bool bidir) {
    if (auto s = rt_.Check(a_.SetDevice(dev_[i]), "cudaSetDevice"); !s.ok()) return s.error();
    if (auto s = rt_.Check(a_.DeviceSynchronize(), "cudaDeviceSynchronize"); !s.ok()) return s.error();
    if (auto s = Round(i, j, bytes, 1, bidir, false); !s.ok()) return s.error();
    if (auto s = Round(i, j, bytes, reps, bidir, true); !s.ok()) return s.error();
    float ms = 0;
    if (auto s = rt_.Check(a_.EventSynchronize(stop_[i]), "cudaEventSynchronize"); !s.ok()) return s.error();
    if (auto s = rt_.Check(a_.EventElapsedTime(&ms, start_[i], stop_[i]), "cudaEventElapsedTime"); !s.ok()) {
      return s.error();
    }
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  // One round: start event on i's stream, copies i->j there (and j->i on j's second stream, made
  // to wait for the start), j's stream joined back, stop event on i's stream.
  Status Round(size_t i, size_t j, size_t bytes, int reps, bool bidir, bool timed) {
    const std::string pair = " " + std::to_string(dev_[i]) + "->" + std::to_string(dev_[j]);
    if (auto s = rt_.Check(a_.EventRecord(start_[i], s0_[i]), "cudaEventRecord" + pair); !s.ok()) return s;
    if (bidir) {
      if (auto s = rt_.Check(a_.StreamWaitEvent(s1_[j], start_[i], 0), "cudaStreamWaitEvent" + pair); !s.ok()) return s;
    }
    for (int r = 0; r < reps; ++r) {
      if (auto s = rt_.Check(a_.MemcpyPeerAsync(dst_[j], dev_[j], src_[i], dev_[i], bytes, s0_[i]),
                             "cudaMemcpyPeerAsync" + pair);
          !s.ok()) {
        return s;
      }
      if (bidir) {
        // The reverse copy; inside one GPU it reads the other buffer so the two do not share one.
        void* to = i == j ? src_[i] : dst_[i];
        const void* from = i == j ? dst_[j] : src_[j];
        if (auto s = rt_.Check(a_.MemcpyPeerAsync(to, dev_[i], from, dev_[j], bytes, s1_[j]),
                               "cudaMemcpyPeerAsync (reverse)" + pair);
            !s.ok()) {
          return s;
        }
      }
    }
    if (bidir) {
      if (auto s = rt_.Check(a_.EventRecord(stop_[j], s1_[j]), "cudaEventRecord" + pair); !s.ok()) return s;
      if (auto s = rt_.Check(a_.StreamWaitEvent(s0_[i], stop_[j], 0), "cudaStreamWaitEvent" + pair); !s.ok()) return s;
    }
    if (auto s = rt_.Check(a_.EventRecord(stop_[i], s0_[i]), "cudaEventRecord" + pair); !s.ok()) return s;
    if (!timed) return rt_.Check(a_.EventSynchronize(stop_[i]), "cudaEventSynchronize" + pair);
    return {};
  }

  void Release() {
    for (size_t k = 0; k < dev_.size() && k < src_.size(); ++k) {
      if (a_.SetDevice(dev_[k]) != kCudaSuccess) continue;
      a_.DeviceSynchronize();
      if (peer_on_) {
        for (size_t j = 0; j < dev_.size(); ++j) {
          if (j != k) a_.DeviceDisablePeerAccess(dev_[j]);
        }
      }
      for (CudaEvent e : {start_[k], stop_[k]}) {
        if (e != nullptr) a_.EventDestroy(e);
      }
      for (CudaStream st : {s0_[k], s1_[k]}) {
        if (st != nullptr) a_.StreamDestroy(st);
      }
      for (void* p : {src_[k], dst_[k]}) {
        if (p != nullptr) a_.Free(p);
      }
    }
    if (a_.GetLastError != nullptr) a_.GetLastError();
    src_.clear();
  }

  const CudaRuntime& rt_;
  const CudaApi& a_;
  std::vector<int> dev_;
  std::vector<void*> src_, dst_;
  std::vector<CudaStream> s0_, s1_;
  std::vector<CudaEvent> start_, stop_;
  bool peer_on_ = false;
};

// The heading p2pBandwidthLatencyTest prints over each matrix (also the CSV's `matrix` label,
// which keeps P2P=Enabled and P2P=Disabled apart there).
std::string TitleOf(P2pQuantity q, bool enabled) {
  switch (q) {
    case P2pQuantity::kConnectivity: return "P2P Connectivity Matrix";
    case P2pQuantity::kBandwidthBidirGbps:
      return enabled ? "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)" : "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)";
    case P2pQuantity::kLatencyUs:
      return enabled ? "P2P=Enabled Latency (P2P Writes) Matrix (us)" : "P2P=Disabled Latency Matrix (us)";
    default:
      return enabled ? "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)"
                     : "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)";
  }
}

P2pMatrix EmptyMatrix(P2pQuantity q, bool p2p_enabled, const std::vector<int>& dev) {
  P2pMatrix m;
  m.title = TitleOf(q, p2p_enabled);
  m.quantity = q;
  m.p2p_enabled = p2p_enabled;
  m.row_ids = dev;
  m.col_ids = dev;
  m.values.assign(dev.size(), std::vector<double>(dev.size(), NAN));
  return m;
}

std::string ModeName(P2pQuantity q, bool enabled) {
  const char* kind = q == P2pQuantity::kLatencyUs ? "latency" : q == P2pQuantity::kBandwidthBidirGbps ? "bidir" : "unidir";
  return std::string(kind) + (enabled ? " P2P=Enabled" : " P2P=Disabled");
}

Result<std::vector<int>> ChooseDevices(const CudaRuntime& rt, const std::vector<int>& asked) {
  int count = 0;
  if (auto s = rt.Check(rt.api().GetDeviceCount(&count), "cudaGetDeviceCount"); !s.ok()) return s.error();
  if (count <= 0) return MakeError("the CUDA runtime sees no GPU");
  if (asked.empty()) {
    std::vector<int> all(static_cast<size_t>(count));
    for (int d = 0; d < count; ++d) all[static_cast<size_t>(d)] = d;
    return all;
  }
  std::vector<int> dev = asked;
  std::sort(dev.begin(), dev.end());
  dev.erase(std::unique(dev.begin(), dev.end()), dev.end());
  for (int d : dev) {
    if (d < 0 || d >= count) {
      return MakeKindError(ErrorKind::kUsage, "device " + std::to_string(d) + " does not exist: the CUDA runtime sees " +
                                                  std::to_string(count) + " GPU(s), 0.." + std::to_string(count - 1));
    }
  }
  return dev;
}

Status ValidateOptions(const P2pProbeOptions& o) {
  if (o.bytes == 0 || o.repetitions < 1 || o.latency_bytes == 0 || o.latency_repetitions < 1) {
    return MakeKindError(ErrorKind::kUsage, "the copy size and repetition counts must be positive");
  }
  if (!o.p2p_disabled && !o.p2p_enabled) {
    return MakeKindError(ErrorKind::kUsage, "nothing to measure: both P2P=Disabled and P2P=Enabled are off");
  }
  return {};
}

}  // namespace

Result<formats::P2pReport> RunP2pProbe(const CudaRuntime& rt, const P2pProbeOptions& o, const ProbeProgress& progress) {
  if (auto s = ValidateOptions(o); !s.ok()) return s.error();
  auto chosen = ChooseDevices(rt, o.devices);
  if (!chosen.ok()) return chosen.error();
  const std::vector<int>& dev = *chosen;
  const size_t n = dev.size();
  const CudaApi& a = rt.api();

  formats::P2pReport report;
  report.tool = formats::P2pTool::kP2pBandwidthLatencyTest;
  report.cuda_runtime_version = rt.RuntimeVersion();
  report.cuda_driver_version = rt.DriverVersion();
  for (int d : dev) report.devices.push_back({d, rt.DeviceName(d), rt.PciBusId(d)});

  std::vector<std::vector<bool>> can(n, std::vector<bool>(n, false));
  P2pMatrix conn = EmptyMatrix(P2pQuantity::kConnectivity, true, dev);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      int ok = i == j ? 1 : 0;
      if (i != j) {
        if (auto s = rt.Check(a.DeviceCanAccessPeer(&ok, dev[i], dev[j]), "cudaDeviceCanAccessPeer"); !s.ok()) {
          return s.error();
        }
      }
      can[i][j] = ok != 0;
      conn.values[i][j] = ok != 0 ? 1 : 0;
    }
  }
  report.matrices.push_back(std::move(conn));

  ProbeSession session(rt, dev);
  if (auto s = session.Allocate(std::max(o.bytes, o.latency_bytes)); !s.ok()) return s.error();

  struct Mode {
    P2pQuantity q;
    bool enabled;
  };
  std::vector<Mode> modes;
  for (P2pQuantity q : {P2pQuantity::kBandwidthUnidirGbps, P2pQuantity::kBandwidthBidirGbps, P2pQuantity::kLatencyUs}) {
    if (q == P2pQuantity::kBandwidthBidirGbps && !o.bidirectional) continue;
    if (q == P2pQuantity::kLatencyUs && !o.latency) continue;
    if (o.p2p_disabled) modes.push_back({q, false});
    if (o.p2p_enabled) modes.push_back({q, true});
  }
  const int total = static_cast<int>(modes.size() * n * n);
  int done = 0;
  for (const Mode& m : modes) {
    if (auto s = session.SetPeerAccess(can, m.enabled); !s.ok()) return s.error();
    P2pMatrix mat = EmptyMatrix(m.q, m.enabled, dev);
    const bool lat = m.q == P2pQuantity::kLatencyUs;
    const bool bidir = m.q == P2pQuantity::kBandwidthBidirGbps;
    const size_t bytes = lat ? o.latency_bytes : o.bytes;
    const int reps = lat ? o.latency_repetitions : o.repetitions;
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        if (progress) {
          progress(done, total, ModeName(m.q, m.enabled) + " " + std::to_string(dev[i]) + "->" + std::to_string(dev[j]));
        }
        auto secs = session.TimeCopies(i, j, bytes, reps, bidir);
        if (!secs.ok()) return secs.error();
        if (*secs > 0) {
          mat.values[i][j] = lat ? *secs / reps * 1e6
                                 : static_cast<double>(bytes) * reps * (bidir ? 2 : 1) / *secs / 1e9;
        }
        ++done;
      }
    }
    report.matrices.push_back(std::move(mat));
  }
  if (auto s = session.SetPeerAccess(can, false); !s.ok()) return s.error();
  if (progress) progress(done, total, "done");
  return report;
}

std::string P2pProbeSummaryText(const formats::P2pReport& report) {
  std::string out;
  for (const auto& d : report.devices) {
    out += StringPrintf("GPU %d  %s  %s\n", d.index, d.name.empty() ? "(name unknown)" : d.name.c_str(),
                        d.pci_bus_id.c_str());
  }
  for (const auto& m : report.matrices) {
    if (m.quantity == P2pQuantity::kConnectivity) continue;
    double dmin = INFINITY, dmax = -INFINITY, omin = INFINITY, omax = -INFINITY;
    for (size_t r = 0; r < m.values.size(); ++r) {
      for (size_t c = 0; c < m.values[r].size(); ++c) {
        const double v = m.values[r][c];
        if (std::isnan(v)) continue;
        double& lo = r == c ? dmin : omin;
        double& hi = r == c ? dmax : omax;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    const char* unit = m.quantity == P2pQuantity::kLatencyUs ? "us" : "GB/s";
    out += StringPrintf("%-28s", ModeName(m.quantity, m.p2p_enabled).c_str());
    out += std::isinf(dmin) ? "  within a GPU: -" : StringPrintf("  within a GPU: %.2f-%.2f %s", dmin, dmax, unit);
    out += std::isinf(omin) ? "   between GPUs: - (one GPU)\n" : StringPrintf("   between GPUs: %.2f-%.2f %s\n", omin, omax, unit);
  }
  return out;
}

}  // namespace toposcope::probe
