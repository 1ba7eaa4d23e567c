// probe/cuda/p2p_probe: `toposcope probe p2p`'s measurement, the seed's made real. For every
// ordered pair of GPUs (the diagonal is a copy inside one GPU), cudaMemcpyPeerAsync of a large
// buffer (256 MiB by default) timed with CUDA events: unidirectional and bidirectional, with peer
// access disabled and enabled, plus latency (small copies, the mean of many). The result is a
// P2pReport, written as p2pBandwidthLatencyTest text and our P2P CSV, which formats/node reads.
//
// Method, as CUDA's p2pBandwidthLatencyTest does it: one warm-up copy, then `repetitions` copies
// between two events on the source GPU's stream; bandwidth = bytes × repetitions / elapsed (GB/s,
// 10^9 bytes). Bidirectional: the reverse copies run on the destination's stream at the same
// time, joined by events; the figure counts both directions' bytes. Latency: `latency_repetitions`
// copies of `latency_bytes`, elapsed / repetitions in µs (p2pBandwidthLatencyTest also blocks the
// stream with a spin kernel while it queues them; without a kernel, queueing time is included).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/formats/node/p2p_matrix.h"
#include "toposcope/probe/cuda/cuda_runtime.h"

namespace toposcope::probe {

struct P2pProbeOptions {
  size_t bytes = size_t{256} << 20;  // per copy
  int repetitions = 5;               // timed copies per pair and mode
  size_t latency_bytes = 4;
  int latency_repetitions = 100;
  std::vector<int> devices;          // CUDA indices; empty = every device
  bool bidirectional = true;
  bool latency = true;
  bool p2p_disabled = true;          // measure with peer access off (copies staged by the driver)
  bool p2p_enabled = true;           // measure with peer access on where the pair supports it
};

// Called before each measurement: done so far, total, and what comes next ("unidir P2P=Enabled 0->1").
using ProbeProgress = std::function<void(int done, int total, const std::string& what)>;

// Runs the probe. Matrices, in p2pBandwidthLatencyTest's order: connectivity (peer access 1/0),
// unidirectional disabled / enabled, bidirectional disabled / enabled, latency disabled / enabled
// (those asked for). Fails with the CUDA error and the call that failed (no device, an index out
// of range, allocation); buffers, streams and events are freed and peer access disabled on every
// path.
Result<formats::P2pReport> RunP2pProbe(const CudaRuntime& rt, const P2pProbeOptions& options,
                                       const ProbeProgress& progress = {});

// The probe's terminal summary: devices, and per matrix the diagonal and off-diagonal range.
std::string P2pProbeSummaryText(const formats::P2pReport& report);

}  // namespace toposcope::probe
