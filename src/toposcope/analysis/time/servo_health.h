// analysis/time/servo_health: the health of the ptp4l / phc2sys servos whose output was read (their
// per-sample `offset ... freq` lines and their `rms ... max ... freq` summaries).
//
// Per servo (host, program, disciplined clock, reference) a series of clock-quality samples: the
// offset scale (rms and max |offset| of the locked samples, else of the summaries) and the range of
// the frequency adjustment. Two findings:
//   diverging  |offset| (a summary's max) grows strictly over k consecutive locked samples. Under a
//              stable servo the offsets are noise about zero, every order of k of them equally likely,
//              so a given window of k is increasing with chance 1/k!; over n samples the expected count
//              of such windows is below n/k!. A run is reported when n/k! < max_chance (1e-3).
//   saturated  the frequency sits at its extreme — the same value, the largest |freq| of the series —
//              for at least `min_pinned` consecutive samples while |offset| grows strictly across
//              them: a working servo moves its frequency while the offset grows (linuxptp clamps it at
//              max_frequency, 900000000 ppb by default for ptp4l's servo, or the PHC's max_adj).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/formats/clock/sync_point.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

struct ServoOptions {
  double max_chance = 1e-3;  // report a monotone run when n/k! is below this
  int min_pinned = 3;        // consecutive samples at the extreme frequency for "saturated"
};

// One servo's samples (per-sample lines) or summaries; summaries form series of their own.
struct ServoSeries {
  std::string host;
  std::string program;    // "ptp4l" / "phc2sys"
  std::string clock;      // the disciplined clock (phc2sys target, ptp4l tag); may be empty
  std::string reference;  // "master", phc2sys's "sys" / "phc" / "pps"; empty for phc2sys summaries
  bool summaries = false; // a series of summary lines
  int64_t points = 0;     // samples (or summaries) read
  int64_t locked = 0;     // samples in s2/s3 (summaries: all)
  int64_t first_line = 0, last_line = 0;
  double offset_rms_ns = NAN;  // samples: rms of the locked offsets; summaries: median of their rms
  double offset_max_ns = NAN;  // samples: largest locked |offset|; summaries: largest max
  double freq_min_ppb = NAN, freq_max_ppb = NAN;  // the frequency adjustment's range
};

enum class ServoFindingKind { kDiverging, kSaturated };
// "diverging", "saturated". Never fails.
std::string_view ServoFindingKindName(ServoFindingKind k);

struct ServoFinding {
  ServoFindingKind kind = ServoFindingKind::kDiverging;
  std::string host, program, clock, reference;
  bool summaries = false;          // found in summary lines (offsets are their max)
  int64_t first_line = 0;          // the run's first and last sample lines
  int64_t last_line = 0;
  int k = 0;                       // consecutive samples in the run
  int k_needed = 0;                // diverging: the smallest k with n/k! < max_chance
  int64_t n = 0;                   // samples tested
  double chance = NAN;             // diverging: n/k!
  std::vector<double> offsets_ns;  // the run's offsets (summaries: max) in order, at most 64 (the first)
  double freq_first_ppb = NAN, freq_last_ppb = NAN;
  std::string evidence;
};

struct ServoReport {
  std::vector<ServoSeries> series;     // sorted by (host, program, clock, reference, summaries)
  std::vector<ServoFinding> findings;  // in series order, then by first line
};

// The servo series and findings of linuxptp sync points (sources "ptp4l", "phc2sys" and their
// "-summary" forms; other points are ignored), in any order. Returns them; never fails.
ServoReport AnalyzeServos(const std::vector<formats::SyncPoint>& points, const ServoOptions& opt = {});

// The same over every host's sync points in the dataset. Never fails.
ServoReport AnalyzeServoHealth(const model::Dataset& ds, const ServoOptions& opt = {});

}  // namespace toposcope::analysis
