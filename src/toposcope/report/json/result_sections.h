// report/json/result_sections: the sections of result.json, one function per section (or group of
// sections that share a report), grouped by domain: node (node_json.cc), time (time_json.cc),
// traffic (traffic_json.cc), fabric (fabric_json.cc). report/result_json assembles them; numbers
// go through Num. None fails: each renders whatever its report holds.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "toposcope/analysis/result.h"
#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::report {

// node_json.cc
// Returns "inputs": per input file its path, format, records, rejections, host and skip reason.
nlohmann::json InputsJson(const std::vector<analysis::InputReport>& inputs);
// Returns "gpus": id, host, index and island of each GPU.
nlohmann::json GpusJson(const std::vector<analysis::GpuReport>& gpus);
// Returns "islands": members, kind, method and agreement with each declared topology.
nlohmann::json IslandsJson(const std::vector<analysis::IslandReport>& islands);
// Returns "links": the GPU-pair links with type, lanes, bandwidth class, bandwidths and evidence.
nlohmann::json LinksJson(const std::vector<analysis::LinkReport>& links);
// Returns "confidence": the noise model, the per-period sampling bound and the per-path deltas.
nlohmann::json ConfidenceJson(const analysis::ConfidenceReport& c);
// Returns "thresholds": the bandwidth preset and its limits.
nlohmann::json ThresholdsJson(const analysis::Thresholds& t);

// time_json.cc
// Returns "clocks": every fitted clock model of every host, its segments and residuals.
nlohmann::json ClocksJson(const std::vector<analysis::HostClockFit>& clocks);
// The `servo` section: ptp4l / phc2sys servo series and their diverging / saturated findings.
nlohmann::json ServoJson(const analysis::ServoReport& servo);
// Returns "clock_anchors": the implicit anchors found in collective completions, per host.
nlohmann::json ClockAnchorsJson(const analysis::AnchorReport& anchors);
// Sets "dcgm" (series, fields, sampling warnings) and "telemetry_findings" in `j`.
void AddTelemetryJson(const analysis::TelemetryReport& t, nlohmann::json& j);
// Returns "timeline": the merged trace, its event counts and sources.
nlohmann::json TimelineJson(const analysis::TimelineReport& t);

// traffic_json.cc
// Sets "flows", "rdma" (captures, pairing, IP hosts), "link_entropy", "link_entropy_summary",
// "entropy_modes", "rings", "trees" and "ring_notes" in `j`.
void AddRdmaJson(const analysis::RdmaReport& rd, nlohmann::json& j);
// Sets "patterns" and "pattern_features" (QP state-log communication patterns) in `j`.
void AddPatternsJson(const analysis::QpPatternResult& pr, nlohmann::json& j);
// Returns "traffic_matrix": per host the GPU-pair NVLink traffic and its error bars.
nlohmann::json TrafficMatrixJson(const analysis::TrafficMatrixReport& tm);
// Returns "collective_benchmarks": nccl-tests runs, bus bandwidth per host set, failed validations.
nlohmann::json CollectivesJson(const analysis::CollectiveBenchReport& c);

// fabric_json.cc
// Returns "fabric" from a discovered fabric (ibnetdiscover): switches, adapters, links, leaves.
nlohmann::json FabricJson(const analysis::FabricReport& fb);
// Sets "fabric"."inferred" (leaves and pods from probe RTTs) in `j`; when `j` has no "fabric" yet,
// first a "fabric" of the inferred leaves alone (source "probes").
void AddInferredLeavesJson(const analysis::LeafInference& inf, nlohmann::json& j);
// Returns "paths": bottlenecks, redundant hops and the overall path entropy.
nlohmann::json PathsJson(const analysis::PathReport& paths);
// Returns "architecture": the class, its confidence, metrics, evidence and the graph's structure.
nlohmann::json ArchitectureJson(const analysis::ArchitectureReport& a);
// Sets "link_weights" (per-cable tomography weights) and "tomography" (the solve) in `j`.
void AddLinkWeightsJson(const analysis::LinkWeightReport& lw, nlohmann::json& j);
// Returns "nic_ports": every RDMA NIC port the host tools printed, merged, with findings.
nlohmann::json NicsJson(const analysis::NicPortReport& n);
// "port_counters": perfquery reads per port (last values, rises) and the cable findings.
nlohmann::json PortCountersJson(const analysis::PortCounterReport& p);

// hypotheses_json.cc
// Returns "hypotheses": the fault hypothesis tree (act/hypotheses) of the result's findings, with
// the model's table; {"error": ...} when the model is invalid. `probes` (may be null): the dataset's
// path probes, for the flapping-cable evidence.
nlohmann::json HypothesesJson(const analysis::AnalysisResult& r,
                              const std::vector<formats::PathProbe>* probes = nullptr);

}  // namespace toposcope::report
