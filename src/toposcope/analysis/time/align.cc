#include "toposcope/analysis/time/align.h"

#include <map>

#include "toposcope/model/events.h"

namespace toposcope::analysis {

Result<AlignOutput> AlignDataset(const model::Dataset& ds, const std::vector<HostClockFit>& clocks,
                                 const std::function<void(const MergedEvent&)>& sink) {
  std::map<std::string, const ClockModel*> best;
  for (const auto& fit : clocks) best[fit.host] = &fit.Best();
  Diagnostics diag;
  std::vector<model::EventInputCounts> counts(ds.event_inputs.size());
  std::vector<EventSource> sources;
  for (size_t i = 0; i < ds.event_inputs.size(); ++i) {
    sources.push_back(model::MakeEventSource(ds.event_inputs[i], &diag, &counts[i]));
  }
  StragglerDetector stragglers;
  MergeStats st;
  const Status s = MergeTimeline(
      sources, best,
      [&](const MergedEvent& m) {
        stragglers.Add(m);
        if (sink) sink(m);
      },
      &st);
  if (!s.ok()) return s.error();
  AlignOutput out;
  out.timeline.present = true;
  out.timeline.events_in = st.events_in;
  out.timeline.events_out = st.events_out;
  out.timeline.without_clock = st.without_clock;
  for (size_t i = 0; i < ds.event_inputs.size(); ++i) {
    const auto& in = ds.event_inputs[i];
    out.timeline.sources.push_back({in.path, in.host, std::string(formats::FormatName(in.format)), counts[i].events,
                                    counts[i].counts.read, counts[i].counts.rejected});
  }
  out.stragglers = stragglers.Finish();
  out.rejected = diag.rejected_total();
  out.warnings = diag.warnings_total();
  for (const auto& d : diag.items()) out.diagnostics.push_back(d.ToString());
  return out;
}

}  // namespace toposcope::analysis
