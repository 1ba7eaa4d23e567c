// app/schedule_sim_command: `toposcope schedule --simulate`, the EADPS measured in the simulator
// (issue 12 §1). For every architecture x seed x event (none, congestion, flapping, degraded) it
// simulates a job's ring AllReduce with the event injected mid-run (sim/ring_events: sampled
// mirrors of every inter-switch cable as pcap, inventory, ibnetdiscover dump, the job's hostfile),
// runs `schedule` on those files exactly as a user would (app/schedule_command: the analyzer never
// sees truth.json), and scores the decisions against the injected event:
//   - a move_off is correct when its link is one of the captures whose traffic the event changed
//     and it fired between the event's start and its end + the hot hold + two windows;
//   - precision = correct move_offs / move_offs over the event runs; recall = event runs with a
//     correct move_off / event runs; clean_decisions = decisions of any kind on the runs without an
//     event (must be 0); time to decision = first correct move_off - event start;
//   - speed-up: the simulator applies the decisions (the new rank order re-places the ring's hops,
//     the raised NCCL_IB_QPS_PER_CONNECTION re-hashes their QPs) and measures the AllReduce
//     (sim::MeasureRingAllReduce) at every window from the first correct decision to the event's
//     end: sum of the static order's times / sum of the scheduled order's times; 1 when nothing was
//     decided. Bus bandwidth before / after likewise (means over those windows).
// Open loop: the captures follow the static order for the whole run (what a decision changes on the
// wire is not fed back), so only each link's first move_off is scored.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "toposcope/act/eadps.h"
#include "toposcope/base/result.h"

namespace toposcope::app {

struct ScheduleSimRequest {
  std::vector<std::string> archs = {"fat-tree", "dragonfly", "hhre"};
  std::vector<uint64_t> seeds = {1, 2, 3, 4, 5};
  std::vector<std::string> events = {"none", "congestion", "flapping", "degraded"};
  int hosts = 16;
  std::string out;                 // working directory (datasets and schedule outputs)
  act::EadpsOptions options;
  int qps_per_connection = 1;
};

struct ScheduleSimRun {
  std::string arch, event, cable;
  uint64_t seed = 0;
  int64_t decisions = 0, move_offs = 0, correct = 0;
  bool detected = false;
  double time_to_decision_s = NAN;
  double allreduce_static_us = NAN, allreduce_scheduled_us = NAN;  // means over the scored windows
  double busbw_static_gbps = NAN, busbw_scheduled_gbps = NAN;
  double speedup = 1;
  std::string bottleneck_static, bottleneck_scheduled;  // at the first scored window ("" = the NICs)
  int qps_scheduled = 0;                                 // at the first scored window
  std::vector<std::string> decision_links;
  std::string decisions_text;  // the decisions as `schedule` prints them (without the files written)
};

struct ScheduleSimOutcome {
  std::vector<ScheduleSimRun> runs;
  double precision = NAN, recall = NAN;
  int64_t clean_decisions = 0;
  double speedup_detected = NAN;     // mean over detected event runs
  double speedup_all = NAN;          // mean over every event run (1 where nothing was decided)
  double time_to_decision_s = NAN;   // mean over detected runs
};

// Runs every combination. Fails (kUsage) on an unknown arch or event, or bad options; (kInput /
// kOutput) when a dataset cannot be written or read back.
Result<ScheduleSimOutcome> RunScheduleSim(const ScheduleSimRequest& req);

// The scores as JSON (schedule.precision, recall, allreduce_speedup, clean_decisions,
// time_to_decision_s, and every run). Never fails.
nlohmann::json ScheduleSimJson(const ScheduleSimOutcome& o);
// A markdown table per architecture and event, then the totals. Never fails.
std::string ScheduleSimText(const ScheduleSimOutcome& o);

}  // namespace toposcope::app
