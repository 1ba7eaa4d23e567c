// tools/toposcope/progress_line: the one-line progress display (see the header).
#include "progress_line.h"

#include <algorithm>

#include "toposcope/base/text.h"

namespace toposcope::cli {
namespace {

std::string Bytes(int64_t b) {
  const double v = static_cast<double>(b);
  if (v >= 1e9) return StringPrintf("%.1f GB", v / 1e9);
  if (v >= 1e6) return StringPrintf("%.1f MB", v / 1e6);
  if (v >= 1e3) return StringPrintf("%.0f kB", v / 1e3);
  return StringPrintf("%lld B", static_cast<long long>(b));
}

std::string Duration(double s) {
  const long long t = static_cast<long long>(s + 0.5);
  if (t < 60) return StringPrintf("%lld s", t);
  if (t < 3600) return StringPrintf("%lld min %02lld s", t / 60, t % 60);
  return StringPrintf("%lld h %02lld min", t / 3600, (t % 3600) / 60);
}

}  // namespace

std::string ProgressLine::Text(const std::string& pass, int pass_index, const model::LoadProgress& load,
                               double elapsed_s) {
  std::string out = StringPrintf("[%2d/%d] %-14s", pass_index, analysis::kPassCount, pass.c_str());
  if (load.files_total <= 0) return out;
  const bool reading = load.files_done < load.files_total;
  out += StringPrintf(" %lld/%lld files, %s of %s", static_cast<long long>(load.files_done),
                      static_cast<long long>(load.files_total), Bytes(load.bytes_done).c_str(),
                      Bytes(load.bytes_total).c_str());
  if (!reading) return out;
  // The share read so far: by bytes, or by files when the sizes are unknown.
  const double share = load.bytes_total > 0 ? static_cast<double>(load.bytes_done) / static_cast<double>(load.bytes_total)
                                            : static_cast<double>(load.files_done) / static_cast<double>(load.files_total);
  if (share > 0 && elapsed_s >= 1.0) out += ", about " + Duration(elapsed_s * (1 - share) / share) + " left";
  return out;
}

std::string ProgressLine::SimulateText(const sim::SimProgress& p, double elapsed_s) {
  std::string out = StringPrintf("simulate %d/%d hosts, %lld files, %s written", p.hosts_done, p.hosts_total,
                                 static_cast<long long>(p.files_written), Bytes(p.bytes_written).c_str());
  if (p.hosts_done > 0 && p.hosts_done < p.hosts_total && elapsed_s >= 1.0) {
    const double share = static_cast<double>(p.hosts_done) / static_cast<double>(p.hosts_total);
    out += ", about " + Duration(elapsed_s * (1 - share) / share) + " left";
  }
  return out;
}

std::string ProgressLine::OutputText(const std::string& file, int64_t bytes) {
  return "writing " + file + ", " + Bytes(bytes);
}

void ProgressLine::OnOutput(const std::string& file, int64_t bytes) {
  const bool new_file = !writing_ || file != output_file_;
  writing_ = true;
  output_file_ = file;
  output_bytes_ = bytes;
  Draw(new_file);
}

void ProgressLine::OnSimulate(const sim::SimProgress& p) {
  simulating_ = true;
  sim_ = p;
  Draw(p.hosts_done == p.hosts_total);
}

void ProgressLine::OnPass(const analysis::PassInfo& pass, const analysis::PassStats* done) {
  if (done != nullptr) return;  // the next pass's start redraws
  pass_ = std::string(pass.name);
  pass_index_ = static_cast<int>(pass.id) + 1;
  if (pass.id == analysis::PassId::kLoad) start_ = Clock::now();  // the time left is of the reading
  Draw(true);
}

void ProgressLine::OnLoad(const model::LoadProgress& p) {
  path_ = std::string(p.path);
  load_ = p;
  load_.path = path_;
  Draw(p.files_done == p.files_total);
}

void ProgressLine::Draw(bool force) {
  const Clock::time_point now = Clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  const std::string text = simulating_ ? SimulateText(sim_, elapsed_s)
                           : writing_  ? OutputText(output_file_, output_bytes_)
                                       : Text(pass_, pass_index_, load_, elapsed_s);
  const size_t pad = drawn_width_ > text.size() ? drawn_width_ - text.size() : 0;
  std::fprintf(out_, "\r%s%s", text.c_str(), std::string(pad, ' ').c_str());
  std::fflush(out_);
  drawn_width_ = std::max(drawn_width_, text.size());
}

void ProgressLine::Clear() {
  if (drawn_width_ == 0) return;
  std::fprintf(out_, "\r%s\r", std::string(drawn_width_, ' ').c_str());
  std::fflush(out_);
  drawn_width_ = 0;
}

}  // namespace toposcope::cli
