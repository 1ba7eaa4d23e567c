// app/probe_p2p_command: `toposcope probe p2p [--out DIR]` as one library call. Loads CUDA's
// runtime (probe/cuda), measures every GPU pair (probe/cuda/p2p_probe) and writes what the readers
// take, under the host's name so `toposcope analyze DIR` files it to this host:
//   DIR/<host>/p2pBandwidthLatencyTest.txt   CUDA sample layout (formats/node)
//   DIR/<host>/p2p_matrix.csv                our P2P CSV (src,dst,bandwidth_gbps,kind,matrix)
// Without --out the p2pBandwidthLatencyTest text goes to stdout.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/formats/node/p2p_matrix.h"
#include "toposcope/probe/cuda/p2p_probe.h"

namespace toposcope::app {

struct ProbeP2pRequest {
  std::string out;     // output directory; empty: the text to stdout
  std::string host;    // the host's name in DIR; empty: this machine's hostname
  std::string cudart;  // libcudart path; empty: the loader's search
  probe::P2pProbeOptions options;
};

struct ProbeP2pOutcome {
  formats::P2pReport report;
  std::string host;
  std::string runtime_path;          // the libcudart that was loaded
  std::vector<std::string> written;  // files written
  double seconds = 0;                // wall time of the measurement
};

// Runs the request; progress lines go to `progress` when it is a terminal (may be null). Fails
// with the probe's error (kInput: no runtime, no GPU, a CUDA call that failed; kUsage: a bad
// option), or kOutput when a file cannot be written.
Result<ProbeP2pOutcome> RunProbeP2p(const ProbeP2pRequest& req, std::FILE* progress);

// The terminal summary: the runtime, the devices, per matrix the ranges, the files.
std::string ProbeP2pText(const ProbeP2pOutcome& o);

}  // namespace toposcope::app
