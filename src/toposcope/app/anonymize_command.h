// app/anonymize_command: `toposcope anonymize DATASET --out DIR --seed N [--blank-jobs]`: a renamed
// copy of a dataset (experiments/anonymize.h) and the text printed after it.
#pragma once

#include <string>

#include "toposcope/base/result.h"
#include "toposcope/experiments/anonymize.h"

namespace toposcope::app {

struct AnonymizeRequest {
  std::string dataset;  // the dataset's directory
  std::string out;      // where the renamed copy goes
  experiments::AnonymizeOptions options;
};

// Writes the renamed copy; returns what was done. Fails as experiments::AnonymizeDataset does
// (kUsage for an output inside the dataset, kInput for an unreadable dataset, kOutput for a file
// that cannot be written).
Result<experiments::AnonymizeSummary> RunAnonymize(const AnonymizeRequest& req);

// The text printed after anonymizing: names renamed per kind, the style, files rewritten and
// copied, job cells blanked, where the mapping is; every line ends in '\n'. Never fails.
std::string AnonymizeSummaryText(const experiments::AnonymizeSummary& s, const AnonymizeRequest& req);

}  // namespace toposcope::app
