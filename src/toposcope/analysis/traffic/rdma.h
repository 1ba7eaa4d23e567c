// analysis/traffic/rdma: the RDMA traffic pass (issue 4): flows and their source QPs from the captures,
// per-link entropy (seed §1, §3.1) fed from the same packets on a second pass, and the rings NCCL
// built — from its logs and from the flows — compared.
#pragma once

#include "toposcope/analysis/traffic/flows.h"
#include "toposcope/analysis/traffic/rings.h"
#include "toposcope/analysis/traffic/traffic_entropy.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

struct RdmaOptions {
  EntropyOptions entropy;       // window_ns 0 = automatic (see below)
  FlowOptions flows;
};

struct RdmaReport {
  bool present = false;          // the dataset had captures or NCCL logs
  FlowReport flows;
  TrafficEntropyReport entropy;
  int64_t entropy_window_ns = 0; // the window used
  RingReport rings;              // from logs, then from flows (source "flows"), compared
};

// With window_ns == 0 the entropy window is chosen from the captures' span: span/64 rounded down
// to 1, 2 or 5 x 10^k ns, between 100 µs and 100 ms (the seed's windows are not given; a short
// capture still gets enough windows for a spectrum). Returns that window; never fails.
int64_t AutoEntropyWindowNs(int64_t span_ns);

// Runs the whole pass and returns its report (present = false without captures and NCCL logs).
// Never fails: read problems, and a flow pass that read no capture, are diagnostics in `diag`.
RdmaReport AnalyzeRdma(const model::Dataset& ds, const RdmaOptions& opt, Diagnostics& diag);

}  // namespace toposcope::analysis
