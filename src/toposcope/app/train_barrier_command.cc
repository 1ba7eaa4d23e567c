// app/train_barrier_command: see the header.
#include "toposcope/app/train_barrier_command.h"

#include <fmt/format.h>

#include <filesystem>

#include "toposcope/act/training/async_barrier.h"
#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/base/file_io.h"
#include "toposcope/model/dataset.h"

namespace toposcope::app {

Status CrossLatencyFrom(const std::vector<std::string>& paths, act::training::TransportModel& transport,
                        std::string& source) {
  auto ds = model::LoadPaths(paths, {});
  if (!ds.ok()) return ds.error();
  const analysis::LeafInference inf = analysis::InferLeaves(ds->path_probes);
  auto lat = act::training::CrossRegionLatencyFromProbes(ds->path_probes, inf);
  if (!lat.ok()) return lat.error();
  transport.cross.latency_us = lat->one_way_us;
  source = fmt::format("measured: median RTT {:.1f} us / 2 over {} probes between {} pods", lat->median_rtt_us,
                       lat->probes, lat->regions);
  return {};
}

Result<TrainBarrierOutcome> RunTrainBarrier(TrainBarrierRequest r) {
  if (!r.latency_from.empty()) {
    Status s = CrossLatencyFrom(r.latency_from, r.options.base.transport, r.options.latency_source);
    if (!s.ok()) return s.error();
  }
  auto c = experiments::CompareBarriers(r.options);
  if (!c.ok()) return c.error();
  TrainBarrierOutcome o;
  o.table = experiments::BarrierComparisonTable(*c);
  o.json = experiments::BarrierComparisonJson(*c);
  o.comparison = std::move(*c);
  if (!r.out.empty()) {
    Status dir = PrepareOutputDir(r.out);
    if (!dir.ok()) return dir.error();
    for (const auto& [name, text] :
         {std::pair{"barrier.json", &o.json}, std::pair{"barrier.txt", &o.table}}) {
      Status s = WriteFileText((std::filesystem::path(r.out) / name).string(), *text);
      if (!s.ok()) return WithKind(s.error(), ErrorKind::kOutput);
    }
  }
  return o;
}

}  // namespace toposcope::app
