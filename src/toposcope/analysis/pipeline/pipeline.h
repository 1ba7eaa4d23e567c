// analysis/pipeline/pipeline: runs the named passes in dependency order, measures each one, and
// dumps or loads any pass's output. A run can be cut to some passes (`only`): the passes they need
// are then loaded from dumps where they are given, else run too, so `analyze --from-dump DIR
// --only architecture` answers from DIR/passes/*.json alone, the way NCCL reloads a dumped
// topology. Passes that stream inputs the loader only lists (captures, QP state logs, events) need
// those files still to be where the dumped dataset says.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/analysis/pipeline/options.h"
#include "toposcope/analysis/pipeline/state.h"
#include "toposcope/analysis/time/timeline.h"
#include "toposcope/base/result.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/load_progress.h"

namespace toposcope::analysis {

// What one pass needs and says about itself.
struct PassInfo {
  PassId id;
  std::string_view name;
  std::string_view summary;       // one line, for `--list-passes` and the docs
  std::vector<PassId> needs;      // passes whose outputs it reads (kLoad: the loaded inputs)
};

// Every pass, in run order.
const std::vector<PassInfo>& Passes();
// The description of one pass.
const PassInfo& PassInfoOf(PassId id);

// Where a run took a pass's output from.
enum class PassSource {
  kRun,    // "run": the pass ran
  kDump,   // "dump": loaded from a pass dump
  kGiven,  // "given": the dataset the caller loaded
};
// The names above.
std::string_view PassSourceName(PassSource s);

// What a run measured of one pass (written to DIR/passes.json, never into result.json).
struct PassStats {
  PassId id = PassId::kLoad;
  PassSource source = PassSource::kRun;
  double wall_s = 0;
  double cpu_s = 0;           // user + system time of the whole process (all threads) over the pass
  int64_t peak_rss_bytes = 0; // the process's peak resident memory at the end of the pass
  int64_t rss_growth_bytes = 0;  // how much that peak rose during the pass
  int64_t records_in = 0;     // records the pass read (inputs, packets, events, probes, ...)
  int64_t records_out = 0;    // entities it produced (links, flows, leaves, ...)
};

// Where the timeline pass writes the merged events (report::TimelineFile writes a Perfetto trace).
class TimelineSink {
 public:
  virtual ~TimelineSink() = default;
  // Called once before the first event, only when the dataset has event inputs. Fails when the
  // output cannot be created.
  virtual Status Open() = 0;
  virtual void Write(const MergedEvent& m) = 0;
  // Called after the last event. Fails when the output could not be written completely.
  virtual Status Close() = 0;
  // Where the events go (recorded in the timeline report).
  [[nodiscard]] virtual std::string path() const = 0;
};

struct PipelineOptions {
  AnalyzeOptions analyze;
  // The load pass: files and directories to read, and the loader's options.
  std::vector<std::string> paths;
  model::LoadOptions load;
  model::LoadProgressFn load_progress;  // told after each input is read (files, bytes); may be empty
  // What the load pass reads the paths with: model::LoadPaths when empty. The MPI driver (dist/)
  // hands its sharded load here (ranks read shards, rank 0 gets them merged).
  model::LoadPathsFn load_paths;
  // The timeline pass runs only with a sink (it hands every merged event to it) and produces
  // nothing unless the dataset has event inputs. Not owned.
  TimelineSink* timeline = nullptr;
  // Passes to produce; empty = all. The passes they need are produced too (loaded from the dump
  // when it has them).
  std::set<PassId> only;
  // Dumps of an earlier run (model::PassDumpDir reads them from DIR/passes/<name>.json): a pass
  // whose dump this returns is loaded instead of run, except the passes in `only`, which always
  // run. nullopt: no dump of that pass. An Error: the dump exists but cannot be read.
  std::function<Result<std::optional<std::string>>(std::string_view pass)> read_dump;
  // When set, every pass produced hands its output here as dump text.
  std::function<Status(std::string_view pass, const std::string& text)> write_dump;
  // Called when a pass starts and when it ends (stats filled), for progress on a terminal.
  std::function<void(const PassInfo&, const PassStats* done)> progress;
};

struct PipelineRun {
  std::vector<PassStats> passes;  // in run order, the passes produced
};

// Runs the passes `opt` asks for into `state`. A caller that has loaded the dataset itself sets
// state->dataset first and the load pass is skipped. Fails when a pass needs the inputs and there
// are none (no paths, no dataset, no dump of them), when a dump cannot be read or written, when
// the load pass's paths do not exist, or when the timeline cannot be merged. Opens no file itself:
// the load pass reads through model::LoadPaths, dumps through the two callbacks.
Result<PipelineRun> RunPipeline(const PipelineOptions& opt, PipelineState* state);

// The passes that producing `wanted` takes, with everything they need, in run order.
std::vector<PassId> PassClosure(const std::set<PassId>& wanted);

// One pass's output as lossless JSON text (base/json_io); fails when the pass has not run.
Result<std::string> DumpPass(const PipelineState& state, PassId id);
// Fills one pass's slot from DumpPass text (`source` names it in errors). Fails on malformed or
// mismatched JSON, never throws.
Status LoadPass(std::string_view text, const std::string& source, PassId id, PipelineState* state);

}  // namespace toposcope::analysis
