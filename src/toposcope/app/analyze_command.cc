#include "toposcope/app/analyze_command.h"

#include <malloc.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include "toposcope/base/file_io.h"
#include "toposcope/model/pass_dumps.h"
#include "toposcope/report/outputs.h"
#include "toposcope/report/pipeline/pass_report.h"
#include "toposcope/report/pipeline/timeline_file.h"

namespace toposcope::app {
namespace {

Status CheckRequest(const AnalyzeRequest& req) {
  const bool prometheus = !req.prometheus.url.empty();
  if (req.paths.empty() && req.from_dump.empty() && !prometheus) {
    return MakeKindError(ErrorKind::kUsage, "nothing to analyse",
                         "give files or directories, --prometheus URL, or --from-dump DIR");
  }
  if (prometheus && !req.from_dump.empty()) {
    return MakeKindError(ErrorKind::kUsage, "--prometheus reads inputs, --from-dump reads none", "give one of them");
  }
  if (req.timeline && req.out.empty()) {
    return MakeKindError(ErrorKind::kUsage, "the timeline needs an output directory", "add --out DIR");
  }
  if (req.dump_passes && req.out.empty()) {
    return MakeKindError(ErrorKind::kUsage, "pass dumps need an output directory", "add --out DIR");
  }
  if (!req.from_dump.empty()) return model::CheckPassDumpDir(req.from_dump);
  return {};
}

// The pipeline's options for the request; `timeline` (may be null) receives the merged events.
analysis::PipelineOptions PipelineOptionsOf(const AnalyzeRequest& req, analysis::TimelineSink* timeline) {
  analysis::PipelineOptions po;
  po.analyze = req.options;
  po.paths = req.paths;
  po.load.host_override = req.host_override;
  po.load.untimed_at_ns = req.untimed_at_ns;
  po.timeline = timeline;
  po.only = req.only;
  po.progress = req.progress;
  po.load_progress = req.load_progress;
  po.load_paths = req.load_paths;
  if (!req.from_dump.empty()) {
    po.read_dump = [dir = req.from_dump](std::string_view pass) { return model::ReadPassDump(dir, pass); };
  }
  if (req.dump_passes) {
    po.write_dump = [dir = req.out](std::string_view pass, const std::string& text) {
      return report::WritePassDump(dir, pass, text);
    };
  }
  return po;
}

// A partial run (`only`): the dumps of the passes asked for, in pass order.
Status WriteOnlyDumps(const AnalyzeRequest& req, const analysis::PipelineState& state, AnalyzeOutcome* out) {
  for (analysis::PassId id : req.only) {
    Result<std::string> text = analysis::DumpPass(state, id);
    if (!text.ok()) return WithKind(text.error(), ErrorKind::kInternal);
    const std::string name(analysis::PassName(id));
    if (!req.dump_passes) {  // with dump_passes the pipeline wrote it already
      if (Status st = report::WritePassDump(req.out, name, *text); !st.ok()) return st;
    }
    out->written.push_back((std::filesystem::path(req.out) / "passes" / (name + ".json")).string());
  }
  return {};
}

// With a Prometheus source: the paths' dataset (empty without paths) and the server's DCGM series,
// handed to the pipeline in place of its load pass.
Status LoadWithPrometheus(const AnalyzeRequest& req, const analysis::PipelineOptions& po, analysis::PipelineState* state) {
  Result<PrometheusQuery> q = CheckPrometheusRequest(req.prometheus);
  if (!q.ok()) return q.error();
  model::Dataset ds;
  if (!req.paths.empty()) {
    Result<model::Dataset> loaded = model::LoadPaths(req.paths, po.load, po.load_progress);
    if (!loaded.ok()) return loaded.error();
    ds = std::move(*loaded);
  }
  if (Status st = AddPrometheusDcgm(*q, &ds); !st.ok()) return st;
  state->SetDataset(std::move(ds));
  return {};
}

}  // namespace

// The timeline sink of merge_events: the pass runs, its events are dropped.
class DiscardTimeline : public analysis::TimelineSink {
 public:
  Status Open() override { return {}; }
  void Write(const analysis::MergedEvent&) override {}
  Status Close() override { return {}; }
  [[nodiscard]] std::string path() const override { return "(not written)"; }
};

analysis::AnalyzeOptions AnalyzeDefaults() {
  analysis::AnalyzeOptions opt;
  opt.rdma.entropy.window_ns = 0;  // automatic: span / 64, rounded to 1-2-5 steps
  return opt;
}

namespace {

Result<AnalyzeOutcome> RunAnalyzeHere(const AnalyzeRequest& req) {
  std::unique_ptr<report::TimelineFile> timeline;
  if (req.timeline) timeline = std::make_unique<report::TimelineFile>(req.out);
  DiscardTimeline discard;
  analysis::TimelineSink* sink = timeline ? static_cast<analysis::TimelineSink*>(timeline.get())
                                           : (req.merge_events ? &discard : nullptr);
  const analysis::PipelineOptions po = PipelineOptionsOf(req, sink);
  analysis::PipelineState state;
  if (!req.prometheus.url.empty()) {
    if (Status st = LoadWithPrometheus(req, po, &state); !st.ok()) return st.error();
  }
  Result<analysis::PipelineRun> run = analysis::RunPipeline(po, &state);
  if (!run.ok()) return run.error();
  AnalyzeOutcome out;
  out.run = std::move(*run);
  // The passes' outputs are moved into the result when no dump of them is to be written.
  out.result = req.only.empty() ? analysis::TakeResult(&state, req.options) : analysis::AssembleResult(state, req.options);
  out.any_input_read = std::any_of(out.result.inputs.begin(), out.result.inputs.end(),
                                   [](const analysis::InputReport& in) { return !in.skipped; });
  if (req.out.empty()) {
    if (state.dataset_storage) out.probes = std::move(state.dataset_storage->path_probes);
    return out;
  }
  if (timeline && out.result.timeline.present) out.written.push_back(timeline->path());
  if (!req.only.empty()) {
    if (Status st = WriteOnlyDumps(req, state, &out); !st.ok()) return st.error();
  } else {
    if (state.dataset == nullptr) return MakeKindError(ErrorKind::kInternal, "no dataset after a full run");
    // The DCGM series are summarised in the result now and no output reads them: dropped before
    // the outputs are rendered (at 12,500 hosts they are most of the data set), with the anchor
    // candidates the anchors pass has folded.
    if (state.dataset_storage) {
      state.dataset_storage->dcgm = model::DcgmStore{};
      for (model::EventInput& in : state.dataset_storage->event_inputs) in.anchor_candidates = {};
      // Their memory goes back to the system: it was taken by the threads that read the inputs,
      // and malloc keeps what a thread frees for that thread's own arena, where the threads that
      // render the outputs would not reuse it (under MPI, 2,048 hosts: a 590 MB peak became 865).
      malloc_trim(0);
    }
    // Each file rendered piece by piece into its file (a large cluster's result.json alone is
    // hundreds of MB, never whole in memory as text).
    report::FileOutputSink files(req.out, req.output_progress);
    const Status st = report::ForEachAnalysisOutput(out.result, *state.dataset, files);
    out.written.insert(out.written.end(), files.written().begin(), files.written().end());
    if (!st.ok()) return st.error();
  }
  if (Status st = report::WritePassStats(req.out, out.run); !st.ok()) return st.error();
  if (state.dataset_storage) out.probes = std::move(state.dataset_storage->path_probes);
  out.written.push_back((std::filesystem::path(req.out) / "passes.json").string());
  return out;
}

}  // namespace

Result<AnalyzeOutcome> RunAnalyze(const AnalyzeRequest& req) {
  if (Status st = CheckRequest(req); !st.ok()) return st.error();
  if (req.threads <= 0) return RunAnalyzeHere(req);
  // `threads` threads in an arena of that many: TBB's own arena holds as many as the CPUs this
  // process could run on when TBB started, and under mpirun rank 0 may get more later
  // (dist/mpi_load).
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(req.threads));
  tbb::task_arena arena(req.threads);
  std::optional<Result<AnalyzeOutcome>> out;
  arena.execute([&] { out.emplace(RunAnalyzeHere(req)); });
  return std::move(*out);
}

}  // namespace toposcope::app
