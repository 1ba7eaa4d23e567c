#include "toposcope/analysis/analyze.h"

#include <type_traits>
#include <utility>

namespace toposcope::analysis {
namespace {

void AddDiagnostics(const PassDiagnostics& d, AnalysisResult* r) {
  r->rejected_total += d.rejected;
  r->warnings_total += d.warnings;
  for (const auto& line : d.lines) r->diagnostics.push_back(line);
}

// Record counts of inputs that a pass streamed (the loader only listed them).
void ApplyInputUpdates(const std::vector<InputUpdate>& updates, AnalysisResult* r) {
  for (const InputUpdate& u : updates) {
    for (auto& in : r->inputs) {
      if (in.path != u.path) continue;
      in.records = u.records;
      in.rejected = u.rejected;
      if (!u.skip_reason.empty()) {
        in.skipped = true;
        in.skip_reason = u.skip_reason;
      }
    }
  }
}

// AssembleResult from a state it copies from (const) or moves out of.
template <typename State>
AnalysisResult Assemble(State& s, const AnalyzeOptions& opt) {
  constexpr bool kMove = !std::is_const_v<State>;
  // A slot as an rvalue (moved from) or as the const lvalue it is (copied from).
  const auto take = [](auto& slot) -> decltype(auto) {
    if constexpr (kMove) {
      return std::move(slot);
    } else {
      return (slot);
    }
  };
  AnalysisResult r;
  r.thresholds = opt.thresholds;
  if (s.dataset != nullptr) {
    for (const auto& in : s.dataset->inputs) {
      r.inputs.push_back({in.path, in.format, in.host, in.records, in.rejected, in.skipped, in.skip_reason});
    }
  }
  if (s.links) r.links = take(*s.links);
  if (s.islands) {
    r.gpus = take(s.islands->gpus);
    r.islands = take(s.islands->islands);
  }
  if (s.confidence) r.confidence = take(*s.confidence);
  if (s.anchors) {
    r.clocks = take(s.anchors->clocks);
    r.anchors = take(s.anchors->report);
  } else if (s.clocks) {
    r.clocks = take(*s.clocks);
  }
  if (s.telemetry) r.telemetry = take(*s.telemetry);
  if (s.fabric) r.fabric = *s.fabric;
  if (s.patterns && s.patterns->present) {
    ApplyInputUpdates(s.patterns->inputs, &r);
    r.patterns_present = true;
    r.patterns = s.patterns->result;
    AddDiagnostics(s.patterns->diag, &r);
  }
  if (s.paths && s.paths->present) {
    r.paths_present = true;
    r.paths = s.paths->report;
  }
  if (s.leaves && s.leaves->present) {
    r.leaves_inferred = true;
    r.inferred_leaves = s.leaves->leaves;
  }
  if (s.link_weights) r.link_weights = *s.link_weights;
  if (s.rdma) {
    r.rdma = s.rdma->report;
    ApplyInputUpdates(s.rdma->inputs, &r);
  }
  if (s.traffic_matrix) r.traffic_matrix = take(*s.traffic_matrix);
  if (s.architecture && s.architecture->present) {
    r.architecture_present = true;
    r.architecture = s.architecture->report;
  }
  if (s.collectives && s.collectives->present) {
    r.collectives_present = true;
    r.collectives = s.collectives->report;
  }
  if (s.nics) r.nics = *s.nics;
  if (s.servo) r.servo = *s.servo;
  if (s.port_counters) r.port_counters = *s.port_counters;
  if (s.rdma) AddDiagnostics(s.rdma->diag, &r);
  if (s.dataset != nullptr) {
    const Diagnostics& diag = s.dataset->diag;
    r.rejected_total += diag.rejected_total();
    r.warnings_total += diag.warnings_total();
    for (const auto& d : diag.items()) r.diagnostics.push_back(d.ToString());
  }
  if (s.timeline && s.timeline->timeline.present) {
    r.timeline = s.timeline->timeline;
    for (const auto& f : s.timeline->stragglers) r.telemetry.findings.push_back(f);
    AddDiagnostics(s.timeline->diag, &r);
  }
  return r;
}

}  // namespace

AnalysisResult AssembleResult(const PipelineState& state, const AnalyzeOptions& opt) { return Assemble(state, opt); }

AnalysisResult TakeResult(PipelineState* state, const AnalyzeOptions& opt) { return Assemble(*state, opt); }

AnalysisResult Analyze(const model::Dataset& ds, const AnalyzeOptions& opt) {
  PipelineState state;
  state.dataset = &ds;
  PipelineOptions po;
  po.analyze = opt;
  (void)RunPipeline(po, &state);  // without the load and timeline passes nothing can fail
  return TakeResult(&state, opt);
}

}  // namespace toposcope::analysis
