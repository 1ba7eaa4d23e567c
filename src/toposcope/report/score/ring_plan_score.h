// report/score/ring_plan_score: the "ring_plan" section of a score, from a ring plan
// (toposcope.ring_plan/1, written by `toposcope plan-ring`) found beside result.json: hops per
// AllReduce, inter-leaf crossings and simulated time before / after as the plan measured them, and,
// from the truth, how many ring edges of each order have a probed route over a cable the simulator
// degraded or made flap (truth.json fabric.faults) - the check the planner cannot make itself.
#pragma once

#include <nlohmann/json.hpp>

namespace toposcope::report::score_internal {

// Returns the section: hops_before, hops_after, inter_leaf_before/after, allreduce_us_before/after,
// and degraded_edges_before/after, flapping_edges_before/after (edges whose listed cables include
// the truth's degraded / flapping link; 0 without such a fault). {} when `plan` is not a ring
// plan. Never fails; values of other types than the schema's are skipped.
nlohmann::json ScoreRingPlan(const nlohmann::json& truth, const nlohmann::json& plan);

}  // namespace toposcope::report::score_internal
