// tools/toposcope/progress_line: the one-line progress display of a long run on a terminal: files
// read of the total, bytes, an estimate of the time left while reading, then the pass running,
// redrawn in place on stderr with a carriage return and wiped when the run ends. The CLI makes one
// only when stderr is a terminal and --quiet is not given, so piped output never carries it.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/model/load_progress.h"
#include "toposcope/sim/simulate.h"

namespace toposcope::cli {

class ProgressLine {
 public:
  explicit ProgressLine(FILE* out) : out_(out), start_(Clock::now()) {}
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // A pass starts (done == nullptr) or ends.
  void OnPass(const analysis::PassInfo& pass, const analysis::PassStats* done);
  // An input was read.
  void OnLoad(const model::LoadProgress& p);
  // An output file has `bytes` written so far (analyze --out).
  void OnOutput(const std::string& file, int64_t bytes);
  // A simulation wrote another host's files (simulate).
  void OnSimulate(const sim::SimProgress& p);
  // Wipes the line (the run's own output follows on a clean line).
  void Clear();

  // The text of the line (no carriage return), for the tests: the pass, the files and bytes read
  // and the time left. `elapsed_s` is the time since reading started.
  static std::string Text(const std::string& pass, int pass_index, const model::LoadProgress& load,
                          double elapsed_s);
  // The text of the line while the outputs are written: the file and its bytes so far.
  static std::string OutputText(const std::string& file, int64_t bytes);
  // The text of simulate's line: hosts written of the total, files and bytes written, time left.
  static std::string SimulateText(const sim::SimProgress& p, double elapsed_s);

 private:
  using Clock = std::chrono::steady_clock;
  void Draw(bool force);

  FILE* out_;
  Clock::time_point start_;
  Clock::time_point last_draw_{};
  std::string pass_;
  int pass_index_ = 0;
  model::LoadProgress load_;
  bool simulating_ = false;
  bool writing_ = false;
  std::string output_file_;
  int64_t output_bytes_ = 0;
  sim::SimProgress sim_;
  std::string path_;  // load_.path points here
  size_t drawn_width_ = 0;
};

}  // namespace toposcope::cli
