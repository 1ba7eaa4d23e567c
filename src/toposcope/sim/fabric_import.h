// sim/fabric_import: the simulator's fabric taken from a REAL fabric instead of a built-in
// architecture — an `ibnetdiscover` dump (formats/ibnetdiscover.h) or a topograph model
// (formats/topograph_model.h) — so that leaf membership inferred from probes alone can be checked
// against the real switch names (issue 5 §4).
//
// The import builds a simulator Cluster + FabricPlan (sim/fabric_sim.h) and then uses the same
// machinery as the built-in architectures: per-link latency model (DOMAIN.md §2), ECMP routing on
// the 5-tuple hash, fabric faults, probe noise, QP jobs, truth.
//
// Endpoints (the simulator's "hosts"): one per compute adapter (CA) on the fabric.
//  - ibnetdiscover: a CA whose description is "<host> <device>" (formats::HostOfCaDesc:
//    "a08-p1-dgx-04-c17 mlx5_5", "a05-p1-dgx-01-c18 HCA-6") belongs to <host>. When a host has
//    several such adapters (rail-optimised DGX: one per rail, on different leaves) each adapter is
//    its own endpoint named "<host>-<device>" ("a08-p1-dgx-04-c17-mlx5_5"); a host with one adapter
//    is the endpoint "<host>". A CA with a vendor default description (no host name set: "MT4129
//    ConnectX7   Mellanox Technologies", every CA of the QDR dump) is the endpoint "ca-<guid16>"
//    (ImportOptions::include_unnamed_cas; the GUID as in its id "H-<guid16>").
//    Skipped (listed in ImportedFabric::skipped with the reason): SHARP aggregation nodes
//    ("Mellanox Technologies Aggregation Node"), descriptions matching
//    ImportOptions::skip_desc_substrings, CAs with no link to a switch (isolated HCAs, CA-to-CA
//    links), unnamed CAs when include_unnamed_cas is false, routers, and a CA whose endpoint name
//    repeats an earlier one. Skipped CAs stay in the re-written fabric.ibnet (they are on the
//    fabric) but are not part of the simulated graph; their links are not simulated.
//    Endpoint names are made valid Slurm / probe-CSV node names: every character outside
//    [A-Za-z0-9._-] becomes '_' (no ',', ';', '"', spaces).
//  - topograph: every node of a block hanging under a switch is an endpoint (one adapter, device
//    "mlx5_0"); nodes of blocks under no switch are skipped.
// Endpoints are ordered by name; node index = switches + endpoint index as in FabricPlan.
//
// Switches keep their real names: FabricSwitch::desc is the node description as printed;
// FabricSwitch::name (used in probe hop lists, truth and Slurm output, so free of ',', ';', '"',
// spaces) is derived from it: Mellanox "MF0;<system name>:<model>/<unit>" -> <system name>
// ("MF0;A09-P1-IBLEAF-04-04:MQM9701/U1" -> "A09-P1-IBLEAF-04-04"); Voltaire "<model> # <name>"
// -> <name> ("Voltaire 4036 # 4036-8C5C" -> "4036-8C5C"); otherwise the sanitised description.
// Names that still repeat (four QDR switches are all "Voltaire 4036 - 36 QDR ports switch") get
// "-<last 6 hex digits of the GUID>" appended. Topograph switches keep their model names.
// Roles: "leaf" = a switch with an endpoint attached; ibnetdiscover: every other switch "spine";
// topograph: by height above the leaves, 1 = "spine", >= 2 = "core".
//
// Links: every switch-switch link of the dump (parallel links kept: ECMP spreads over them) with
// its real port numbers, width, speed and rate; every endpoint's link to its switch (the CA's
// first port that reaches a switch; further ports are not simulated). Kind "host" (switch end
// `a`, endpoint end `b`, as built-in) or "<role>-<role>" of the two switch ends, lower tier first
// ("leaf-spine", "spine-core", "leaf-leaf", "spine-spine"). Lengths (DOMAIN.md §2): host links
// DAC 1-3 m, links touching a leaf 10-50 m fibre, higher links 30-60 m fibre. A link of unknown
// rate (width "??" / speed "???") is simulated at 100 Gb/s (noted). Topograph links: one per
// parent-child pair, 4x NDR 400 Gb/s, ports numbered like the built-ins (endpoints first).
// Switch port-to-port latency: ibnetdiscover (InfiniBand cut-through, DOMAIN §2.2) 0.10-0.15 µs;
// topograph (fabric unknown) 0.30-0.50 µs like the built-ins; ImportOptions may override.
//
// Faults (options.fabric_faults): placed by the built-in machinery on the imported graph —
// congested switch (an ECMP member; none on a tree), degraded link (trained 1x of its real speed),
// flapping link, detour, slow host. Dropped when they do not apply (noted in `notes`): a flapping
// link whose loss disconnects switches (a bridge, e.g. every link of a topograph tree: the probe
// model has no loss), and a detour whose static route visits a switch twice (trees).
//
// Rendering (RenderImportedFabric):
//   <host>/probes.csv     the probes of every endpoint of that host (src = endpoint name), merged
//                         in time order; topograph/unnamed endpoints: <endpoint>/probes.csv
//   <host>/qp-states.csv  (ImportOptions::qp_states) the QP state logs of those endpoints (host
//                         column = endpoint name, dev = the adapter's real device)
//   fabric.ibnet          ibnetdiscover import: the input dump re-written (formats::
//                         WriteIbnetdiscover; byte-identical to a well-formed input) with the
//                         degraded link's two port lines at width 1x; topograph import: the
//                         simulated graph as sim::BuildIbFabric prints it
//   truth.json            schema toposcope.truth/1, "arch": "imported", "source" {kind, file},
//                         hosts[] one per endpoint {name, host, device, leaf, files: [],
//                         fabric_files}, "fabric" as the built-ins (docs/truth_schema.md) with
//                         leaves[] {switch: real switch name, desc, hosts: endpoints}, spines[],
//                         pods[], cas[] with the real descriptions, "skipped_cas" and "import".
// No GPU topology files, telemetry or RDMA files: the import knows the fabric, not the nodes.
// Deterministic: the same input and options give the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/fabric/topograph_model.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/fabric_sim.h"
#include "toposcope/sim/writers.h"

namespace toposcope::sim {

// Most endpoints an import simulates (IPv4 10.0.x.y numbering allows 65535; runtime grows with
// endpoints x max_probe_peers x probes_per_pair).
inline constexpr int kMaxImportedEndpoints = 16384;

struct ImportOptions {
  bool include_unnamed_cas = true;  // CAs with a vendor default description -> "ca-<guid16>"
  std::vector<std::string> skip_desc_substrings = {"Aggregation Node"};  // SHARP ANs
  bool qp_states = true;             // render <host>/qp-states.csv
  // Switch port-to-port latency range (µs, one way); <= 0: by source (see the file comment).
  double switch_latency_lo_us = 0, switch_latency_hi_us = 0;
};

// One simulated endpoint (cluster host i).
struct ImportedEndpoint {
  std::string name;    // endpoint name ("a08-p1-dgx-04-c17-mlx5_5", "ca-003048c749cd0000", "srv1101")
  std::string host;    // the host it belongs to ("a08-p1-dgx-04-c17"; = name when it has one
                       // adapter; unnamed CAs: = name)
  std::string device;  // "mlx5_5", "HCA-6"; unnamed CAs / topograph: "mlx5_0"
  std::string ca_id;   // ibnetdiscover: "H-<guid16>"; topograph: ""
  std::string desc;    // ibnetdiscover: the CA description; topograph: "<node> mlx5_0"
  std::string dir;     // directory of its fabric files (the host's name, sanitised)
};

struct SkippedCa {
  std::string id;      // "H-..." (topograph: the node name)
  std::string desc;
  std::string reason;  // "SHARP aggregation node", "no link to a switch", ...
};

// Which kind of file an import read.
enum class ImportSource {
  kIbnetdiscover,  // "ibnetdiscover"
  kTopograph,      // "topograph": a topograph model
};
// The names above.
std::string_view ImportSourceName(ImportSource s);

struct ImportedFabric {
  ImportSource source_kind = ImportSource::kIbnetdiscover;
  std::string source;       // file path or label as given
  Cluster cluster;          // hosts = endpoints (HostModel::type is null: no GPU model), leaf set;
                            // options = the SimOptions given (arch "imported", hosts = endpoints)
  FabricPlan plan;          // graph, routing, faults, QP jobs
  std::vector<ImportedEndpoint> endpoints;  // per cluster host
  std::vector<SkippedCa> skipped;
  std::vector<std::string> notes;           // dropped faults, substituted rates, ...
  std::optional<formats::IbFabric> ibnet;   // ibnetdiscover import: the input (re-written)
  std::vector<std::string> switch_ids;      // ibnetdiscover: per plan switch its node id "S-..."
  ImportOptions import_options;
  // Counts of the source.
  int64_t source_switches = 0, source_cas = 0, source_links = 0;  // links: formats::IbLinks
};

// Imports an ibnetdiscover fabric. `options` supplies seed, probe/QP settings, fabric_faults,
// start_unix_s, duration_s (arch, hosts, node types, with_telemetry/with_rdma are ignored).
// Returns the cluster, planned fabric, endpoints, skipped CAs and notes of the import. Fails (clear message) when the fabric has no switch, no endpoint, more than
// kMaxImportedEndpoints endpoints, or the fabric options are invalid (ValidateFabricOptions
// except its host limit).
Result<ImportedFabric> ImportIbFabric(const formats::IbFabric& fabric, const SimOptions& options,
                                      const ImportOptions& import = {}, std::string_view source = {});

// Imports a topograph model: switches from its tree, endpoints = the nodes of blocks under a
// leaf. Same options, result and failures as ImportIbFabric; it also fails when the model's
// switches form more than one tree.
Result<ImportedFabric> ImportTopographModel(const formats::TopographModel& model, const SimOptions& options,
                                            const ImportOptions& import = {}, std::string_view source = {});

// Reads options.fabric_ibnet_path (else options.fabric_topograph_path), parses it and imports it;
// returns the import (see ImportIbFabric). Fails when neither is set, the file cannot be read or parsed, or the import fails.
Result<ImportedFabric> ImportFabricFromOptions(const SimOptions& options, const ImportOptions& import = {});

// Every file of the imported dataset (probes and QP logs per host directory, fabric.ibnet,
// truth.json last), in a fixed order; fills `stats` (may be null). Never fails (`imported` must
// come from a successful import).
std::vector<RenderedFile> RenderImportedFabric(const ImportedFabric& imported, FabricStats* stats = nullptr);

// truth.json of an import (see the file comment), from RenderFabric's stats: the JSON text with
// "schema" first and a trailing newline. Never fails.
std::string ImportedTruthJson(const ImportedFabric& imported, const FabricStats& stats);

// The files of one endpoint's host directory ("<dir>/probes.csv" [, "<dir>/qp-states.csv"]).
// Never fails (`endpoint` must be an index into imported.endpoints).
std::vector<std::string> ImportedEndpointFiles(const ImportedFabric& imported, int endpoint);

// True leaf grouping: per leaf switch (plan order) the endpoint names attached to it. Never fails.
std::vector<FabricGroup> ImportedLeaves(const ImportedFabric& imported);

// Endpoint name rule: `host` alone when `adapters_of_host` is 1, else "<host>-<device>", then
// sanitised (characters outside [A-Za-z0-9._-] -> '_'); never empty ("_" for an empty name).
// Never fails.
std::string ImportedEndpointName(std::string_view host, std::string_view device, int adapters_of_host);

// Switch name from a node description (see the file comment; before de-duplication); "switch" for
// an empty description. Never fails.
std::string ImportedSwitchName(std::string_view desc);

}  // namespace toposcope::sim
