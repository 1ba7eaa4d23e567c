// model/load_progress: LoadPaths with a progress callback: what it reports while it reads (files
// and bytes read of the total), for a caller that shows progress; the loader never prints.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/model/dataset.h"

namespace toposcope::model {

struct LoadProgress {
  int64_t files_done = 0, files_total = 0;  // inputs read (or skipped) so far, of all found
  int64_t bytes_done = 0, bytes_total = 0;  // their sizes on disk (compressed files: as stored)
  std::string_view path;                    // the input just read
};

// Called after each input is read; inputs are read in parallel (model/load_plan), so the calls come
// in the order reads finish, from the reading threads, never two at once. May be empty.
using LoadProgressFn = std::function<void(const LoadProgress&)>;

// LoadPaths (model/dataset.h), telling `progress` after each input. Every path is walked first
// (a missing one fails before any file is read), so the total is known from the first call.
Result<Dataset> LoadPaths(const std::vector<std::string>& paths, const LoadOptions& opt, const LoadProgressFn& progress);

// A loader with LoadPaths' signature (LoadPaths itself, or a sharded load across processes).
using LoadPathsFn =
    std::function<Result<Dataset>(const std::vector<std::string>&, const LoadOptions&, const LoadProgressFn&)>;

}  // namespace toposcope::model
