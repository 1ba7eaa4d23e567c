// report/outputs: the files `toposcope analyze --out DIR` writes beside the timeline: result.json,
// topology.json, report.html (the self-contained HTML report, report/html), topology.conf and
// topology.yaml (Slurm, when leaves were inferred from probe RTTs) and opensm-hop-weights.txt (when
// tomography gave hop weights).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/analysis/result.h"
#include "toposcope/base/output_file.h"
#include "toposcope/base/result.h"
#include "toposcope/model/dataset.h"

namespace toposcope::report {

// Returns (file name, text) of every output of `r` (analysed from `ds`), in the order they are
// written: result.json, topology.json, report.html, then topology.conf and topology.yaml when leaves were
// inferred, then opensm-hop-weights.txt when there are hop weights. Never fails.
std::vector<std::pair<std::string, std::string>> AnalysisOutputFiles(const analysis::AnalysisResult& r,
                                                                     const model::Dataset& ds);

// Writes each file ForEachAnalysisOutput hands it into a file of that name in `dir` (created when
// missing) as it is rendered; `progress` (may be empty) is told the file's name and the bytes
// written to it so far after each piece.
class FileOutputSink final : public FileSink {
 public:
  using ProgressFn = std::function<void(const std::string& name, int64_t bytes)>;
  explicit FileOutputSink(std::string dir, ProgressFn progress = {})
      : dir_(std::move(dir)), progress_(std::move(progress)) {}
  Status Begin(const std::string& name) override;
  Status Append(std::string_view text) override;
  Status End() override;
  // The files ended so far, in order (paths in `dir`).
  [[nodiscard]] const std::vector<std::string>& written() const { return written_; }

 private:
  std::string dir_;
  ProgressFn progress_;
  std::string name_;
  std::unique_ptr<OutputFile> file_;
  std::vector<std::string> written_;
};

// Hands each output of AnalysisOutputFiles to `sink`, in that order, rendered piece by piece: a
// large cluster's result.json or topology.json is never whole in memory as text. With one thread
// the outputs are never in memory together; with more (TBB's arena) the result's and the
// topology's trees are built and freed beside each other, for the same bytes in the same order.
// Stops at, and returns, the first error of the sink.
Status ForEachAnalysisOutput(const analysis::AnalysisResult& r, const model::Dataset& ds, FileSink& sink);
// The same with each file's whole text handed to `take` (name, text).
Status ForEachAnalysisOutput(const analysis::AnalysisResult& r, const model::Dataset& ds,
                             const std::function<Status(const std::string& name, std::string&& text)>& take);

// Writes AnalysisOutputFiles(r, ds) into `dir` (created when missing), in order. Returns the first
// write error (the Error names the file); the files before it are written, those after it are not.
Status WriteAnalysisOutputs(const analysis::AnalysisResult& r, const model::Dataset& ds, const std::string& dir);

}  // namespace toposcope::report
