// report/score/schedule_score: the "schedule" section of a score, from result.json's "schedule"
// (written by `toposcope schedule`) and truth.json's "ring_event" (written by the simulator's ring
// scene, sim/ring_events): each link's first move_off is correct when the link is one whose traffic
// the injected event changed (ring_event.affected_links) and it fired between the event's start and
// its end + the hot hold + two windows. With an event: precision (correct / move_offs), recall (1
// when a move_off was correct, else 0), time_to_decision_s (first correct - start); without one
// (kind "none"): clean_decisions (every decision counts; it must be 0). The AllReduce speed-up
// needs the simulator to apply the decisions: `toposcope schedule --simulate` reports it.
#pragma once

#include <nlohmann/json.hpp>

namespace toposcope::report::score_internal {

// Adds out["schedule"] when the truth has a ring_event and the result a schedule; otherwise leaves
// `out` as it is. Never fails; values of other types are skipped.
void ScoreSchedule(const nlohmann::json& truth, const nlohmann::json& result, nlohmann::json& out);

}  // namespace toposcope::report::score_internal
