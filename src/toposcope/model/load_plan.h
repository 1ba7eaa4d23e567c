// model/load_plan: the loader in steps, so that reading can be split across threads and processes.
// PlanLoad lists every input and cuts the list into chunks: the runs of inputs that default to one
// host (a host's directory, or one file given on its own). LoadChunks reads a range of chunks, in
// parallel over chunks (TBB), each into a part of its own, and joins the parts in chunk order.
// MergeParts joins the parts of two adjacent ranges (either order: the lower range comes first), so
// any split of the chunks, over any number of threads or MPI ranks, folds into the same data set.
// FinishLoad then does what needs the whole data set (untimed DCGM samples placed, MIG instances
// linked). LoadPaths (model/dataset.h) is PlanLoad, LoadChunks over every chunk, FinishLoad.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/model/dataset.h"
#include "toposcope/model/dcgm_read.h"
#include "toposcope/model/load_progress.h"
#include "toposcope/model/readers.h"

namespace toposcope::model {

// One input to read: a file with the host it defaults to, or an entry not read (with why).
struct PlannedInput {
  std::filesystem::path path;
  std::string host;
  std::optional<std::string> skip;
  int64_t size_bytes = 0;  // on disk (0 for entries not read)
};

struct LoadPlan {
  std::vector<PlannedInput> inputs;  // in reading order (each given path walked in sorted order)
  std::vector<size_t> chunk_begin;   // chunk k holds inputs [chunk_begin[k], chunk_begin[k + 1])
  int64_t bytes_total = 0;
  [[nodiscard]] size_t chunks() const { return chunk_begin.size(); }
  [[nodiscard]] size_t ChunkEnd(size_t k) const { return k + 1 < chunk_begin.size() ? chunk_begin[k + 1] : inputs.size(); }
  [[nodiscard]] int64_t ChunkBytes(size_t k) const;
};

// What a range of chunks [first_chunk, end_chunk) read: a data set of its own, and what FinishLoad
// needs of it (DCGM inputs whose untimed samples wait for an origin, dmon files naming MIG instances).
struct LoadedPart {
  size_t first_chunk = 0, end_chunk = 0;
  Dataset ds;
  std::vector<UntimedDcgmInput> untimed;  // event_input: the index in this part's ds.event_inputs
  std::vector<DmonMigRows> dmon_mig;
};

// Lists every input under `paths` and cuts the chunks. Fails when a path does not exist.
Result<LoadPlan> PlanLoad(const std::vector<std::string>& paths);

// The bytes of each chunk that LoadChunks reads through: an input the loader skips for what its
// head holds (a simulator's truth.json, a file of no known format or of one `analyze` does not
// use) weighs nothing. Only inputs of at least `sniff_from_bytes` have their head read here (the
// others weigh their size): enough to keep a few large unread files from tipping a split of the
// chunks, without reading the head of every input twice.
std::vector<int64_t> ChunkReadBytes(const LoadPlan& plan, int64_t sniff_from_bytes);

// Reads chunks [first, end) of `plan`, `threads` at a time (0: as many as TBB's default), each into
// its own part, joined in chunk order: the result does not depend on `threads`. `progress` is
// called after each input, never by two threads at once, with the counts of this call's inputs.
LoadedPart LoadChunks(const LoadPlan& plan, size_t first, size_t end, const LoadOptions& opt,
                      const LoadProgressFn& progress, int threads = 0);

// Joins two parts of adjacent chunk ranges into `into` (the lower range first, whichever is `into`).
// Lists append, hosts and DCGM series join by key (a host or series in both, which only a file naming
// a host other than its directory's makes, is merged field by field: MergeHostEvidence,
// MergeSeriesSummary), diagnostics are absorbed, capture and event indices renumbered. Fails when
// the ranges are not adjacent.
Status MergeParts(LoadedPart& into, LoadedPart&& from);

// The whole data set from the part that holds every chunk: untimed DCGM samples placed, MIG
// instances linked.
Dataset FinishLoad(LoadedPart&& whole);

// `into` followed by `from` (read after it): lists appended, maps joined with `into`'s entries
// kept where both have one.
void MergeHostEvidence(HostEvidence& into, HostEvidence&& from);
// `into` followed by `from` (its samples later in reading order): counts added, gaps and points
// appended (decimated again past kMaxPoints), the order counted across the seam.
void MergeSeriesSummary(SeriesSummary& into, SeriesSummary&& from);
// `into` followed by `from`: Dataset fields as MergeParts joins them (capture indices renumbered).
void MergeDataset(Dataset& into, Dataset&& from);

}  // namespace toposcope::model
