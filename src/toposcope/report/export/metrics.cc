// report/export/metrics: the metric families of an AnalysisResult (see metrics.h).
#include "toposcope/report/export/metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "toposcope/act/hypotheses.h"
#include "toposcope/base/text.h"

namespace toposcope::report {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

MetricFamily Family(std::string name, std::string help, std::string unit) {
  MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.unit = std::move(unit);
  return f;
}

// "HOST/gpu3" -> ("HOST", "gpu3"); an id without '/' is all GPU.
std::pair<std::string, std::string> SplitGpuId(const std::string& id) {
  const size_t cut = id.rfind('/');
  if (cut == std::string::npos) return {"", id};
  return {id.substr(0, cut), id.substr(cut + 1)};
}

void AddInputs(const analysis::AnalysisResult& r, std::vector<MetricFamily>& out) {
  MetricFamily files = Family("toposcope_input_files", "Input files seen, by detected format and whether they were read or skipped", "1");
  MetricFamily read = Family("toposcope_input_read_records", "Records read from one input file", "1");
  MetricFamily acc = Family("toposcope_input_accepted_records", "Records accepted from one input file (read - rejected)", "1");
  MetricFamily rej = Family("toposcope_input_rejected_records", "Records rejected in one input file", "1");
  MetricFamily fread = Family("toposcope_format_read_records", "Records read from the input files of one format", "1");
  MetricFamily facc = Family("toposcope_format_accepted_records", "Records accepted from the input files of one format", "1");
  MetricFamily frej = Family("toposcope_format_rejected_records", "Records rejected in the input files of one format", "1");
  std::map<std::pair<std::string, std::string>, int64_t> file_count;
  std::map<std::string, std::pair<int64_t, int64_t>> per_format;  // read, rejected
  for (const auto& in : r.inputs) {
    const std::string format = in.format.empty() ? "unknown" : in.format;
    ++file_count[{format, in.skipped ? "skipped" : "read"}];
    if (in.skipped) continue;
    const Labels l = {{"path", in.path}, {"format", format}, {"host", in.host}};
    read.Add(l, static_cast<double>(in.records));
    acc.Add(l, static_cast<double>(in.records - in.rejected));
    rej.Add(l, static_cast<double>(in.rejected));
    per_format[format].first += in.records;
    per_format[format].second += in.rejected;
  }
  for (const auto& [key, n] : file_count) files.Add({{"format", key.first}, {"status", key.second}}, static_cast<double>(n));
  for (const auto& [format, n] : per_format) {
    fread.Add({{"format", format}}, static_cast<double>(n.first));
    facc.Add({{"format", format}}, static_cast<double>(n.first - n.second));
    frej.Add({{"format", format}}, static_cast<double>(n.second));
  }
  MetricFamily drej = Family("toposcope_rejected_records", "Records rejected over every input", "1");
  drej.Add({}, static_cast<double>(r.rejected_total));
  MetricFamily dwarn = Family("toposcope_warnings", "Warnings raised while reading and analysing", "1");
  dwarn.Add({}, static_cast<double>(r.warnings_total));
  for (MetricFamily* f : {&files, &read, &acc, &rej, &fread, &facc, &frej, &drej, &dwarn}) out.push_back(std::move(*f));
}

void AddNode(const analysis::AnalysisResult& r, std::vector<MetricFamily>& out) {
  MetricFamily gpus = Family("toposcope_host_gpus", "GPUs found on a host", "1");
  MetricFamily islands = Family("toposcope_host_islands", "NVLink / PCIe islands of a host's GPUs", "1");
  MetricFamily members = Family("toposcope_island_gpus", "GPUs in one island", "1");
  MetricFamily degraded_host = Family("toposcope_host_degraded_gpu_links", "GPU pairs of a host measuring below the degraded fraction of expected", "1");
  MetricFamily degraded = Family("toposcope_gpu_link_degraded", "1 when the GPU pair measures below the degraded fraction of its expected bandwidth", "1");
  MetricFamily bw = Family("toposcope_gpu_link_bandwidth_bytes_per_second", "Measured unidirectional bandwidth of a GPU pair", "By/s");
  MetricFamily expected = Family("toposcope_gpu_link_expected_bandwidth_bytes_per_second", "Bandwidth the GPU pair's link type should give", "By/s");
  std::map<std::string, int> gpu_count, island_count, degraded_count;
  for (const auto& g : r.gpus) ++gpu_count[g.host];
  for (const auto& i : r.islands) {
    ++island_count[i.host];
    members.Add({{"host", i.host}, {"island", SplitGpuId(i.id).second}}, static_cast<double>(i.members.size()));
  }
  for (const auto& l : r.links) {
    const auto [host, gpu] = SplitGpuId(l.a);
    const auto [peer_host, peer] = SplitGpuId(l.b);
    const Labels labels = {{"host", host},
                           {"gpu", gpu},
                           {"peer_gpu", peer_host == host ? peer : l.b},
                           {"type", std::string(LinkTypeName(l.type))}};
    degraded.Add(labels, l.degraded ? 1 : 0);
    bw.Add(labels, l.bandwidth_gbps * 1e9);
    expected.Add(labels, l.expected_gbps * 1e9);
    degraded_count[host] += l.degraded ? 1 : 0;
  }
  for (const auto& [h, n] : gpu_count) gpus.Add({{"host", h}}, n);
  for (const auto& [h, n] : island_count) islands.Add({{"host", h}}, n);
  for (const auto& [h, n] : degraded_count) degraded_host.Add({{"host", h}}, n);
  for (MetricFamily* f : {&gpus, &islands, &members, &degraded_host, &degraded, &bw, &expected}) out.push_back(std::move(*f));
}

void AddEntropy(const analysis::AnalysisResult& r, std::vector<MetricFamily>& out) {
  MetricFamily bits = Family("toposcope_link_entropy_bit", "Median per-window entropy of a network link's traffic, by estimator", "bit");
  MetricFamily qps = Family("toposcope_link_queue_pairs", "Distinct requester queue pairs carrying a network link", "1");
  MetricFamily ports = Family("toposcope_link_udp_source_ports", "Distinct UDP source ports on a network link (its ECMP entropy)", "1");
  MetricFamily risk = Family("toposcope_link_polarisation_risk", "1 when too few flows carry the link for ECMP to spread them", "1");
  MetricFamily bytes = Family("toposcope_link_payload_bytes", "Payload bytes captured on a network link", "By");
  for (const auto& s : r.rdma.entropy.links) {
    bits.Add({{"link", s.link}, {"estimator", "seed_header"}}, s.seed_bits_median);
    bits.Add({{"link", s.link}, {"estimator", "miller_madow"}}, s.miller_madow_bits_median);
    bits.Add({{"link", s.link}, {"estimator", "flow"}}, s.flow_bits_median);
    bits.Add({{"link", s.link}, {"estimator", "message_size"}}, s.message_size_bits_median);
    qps.Add({{"link", s.link}}, s.qps);
    ports.Add({{"link", s.link}}, s.udp_src_ports);
    risk.Add({{"link", s.link}}, s.polarisation_risk ? 1 : 0);
    bytes.Add({{"link", s.link}}, static_cast<double>(s.payload_bytes));
  }
  for (MetricFamily* f : {&bits, &qps, &ports, &risk, &bytes}) out.push_back(std::move(*f));
}

void AddClocks(const analysis::AnalysisResult& r, std::vector<MetricFamily>& out) {
  MetricFamily offset = Family("toposcope_clock_offset_seconds",
                               "Host clock minus the reference, by the best model at the origin of its last segment", "s");
  MetricFamily err = Family("toposcope_clock_fit_error_seconds", "Absolute error of the best clock model on held-out sync points (mean, p99)", "s");
  MetricFamily steps = Family("toposcope_clock_steps", "Clock steps the best model found on a host", "1");
  MetricFamily points = Family("toposcope_clock_fit_points", "Sync points the best clock model was fitted on", "1");
  for (const auto& fit : r.clocks) {
    if (fit.models.empty()) continue;
    const analysis::ClockModel& m = fit.Best();
    const Labels l = {{"host", fit.host}, {"model", std::string(analysis::ClockModelName(m.kind))}};
    if (!m.segments.empty()) offset.Add(l, m.segments.back().c0 * 1e-9);
    Labels mean = l, p99 = l;
    mean.emplace_back("statistic", "mean");
    p99.emplace_back("statistic", "p99");
    err.Add(mean, m.mean_abs_residual_us * 1e-6);
    err.Add(p99, m.p99_abs_residual_us * 1e-6);
    steps.Add({{"host", fit.host}}, static_cast<double>(m.steps_local_ns.size()));
    points.Add({{"host", fit.host}}, m.fit_points);
  }
  for (MetricFamily* f : {&offset, &err, &steps, &points}) out.push_back(std::move(*f));
}

// The labels of a tomography cable "A--B": a host end is `host`, a switch end `switch`
// (`peer_switch` when both ends are switches).
Labels CableLabels(const std::string& link, const std::set<std::string>& hosts) {
  const size_t cut = link.find("--");
  if (cut == std::string::npos) return {{"link", link}};
  std::string a = link.substr(0, cut), b = link.substr(cut + 2);
  if (hosts.count(a) && !hosts.count(b)) std::swap(a, b);
  if (hosts.count(b) && !hosts.count(a)) return {{"link", link}, {"host", b}, {"switch", a}};
  return {{"link", link}, {"switch", a}, {"peer_switch", b}};
}

void AddTomography(const analysis::AnalysisResult& r, std::vector<MetricFamily>& out) {
  MetricFamily lat = Family("toposcope_cable_latency_seconds", "One-way latency of a cable by path tomography", "s");
  MetricFamily weight = Family("toposcope_cable_weight", "Cable weight normalised from its tomography latency", "1");
  MetricFamily ident = Family("toposcope_cable_identifiable", "1 when the probes pin the cable's latency down", "1");
  MetricFamily resid = Family("toposcope_tomography_relative_residual", "Relative residual of the tomography solution", "1");
  MetricFamily rank = Family("toposcope_tomography_rank_deficiency", "Cable latencies the probes cannot tell apart", "1");
  if (r.link_weights.present) {
    std::set<std::string> hosts(r.fabric.hosts.begin(), r.fabric.hosts.end());
    for (const auto& g : r.gpus) hosts.insert(g.host);
    for (const auto& l : r.link_weights.tomography.links) {
      const Labels labels = CableLabels(l.link, hosts);
      lat.Add(labels, l.latency_us * 1e-6);
      weight.Add(labels, l.weight);
      ident.Add(labels, l.identifiable ? 1 : 0);
    }
    resid.Add({}, r.link_weights.tomography.relative_residual);
    rank.Add({}, r.link_weights.tomography.rank_deficiency);
  }
  for (MetricFamily* f : {&lat, &weight, &ident, &resid, &rank}) out.push_back(std::move(*f));
}

void AddFabric(const analysis::AnalysisResult& r, std::vector<MetricFamily>& out) {
  MetricFamily switches = Family("toposcope_fabric_switches", "Switches in the InfiniBand fabric", "1");
  MetricFamily hosts = Family("toposcope_fabric_hosts", "Hosts with an adapter in the fabric", "1");
  MetricFamily links = Family("toposcope_fabric_links", "Physical links in the fabric", "1");
  MetricFamily down = Family("toposcope_fabric_down_ports", "Ports of a switch without a link", "1");
  MetricFamily findings = Family("toposcope_fabric_findings", "Fabric findings (down ports, slow links, conflicts), by kind", "1");
  MetricFamily arch = Family("toposcope_architecture_confidence", "Confidence in the network architecture found (fat-tree, dragonfly, HHRE)", "1");
  if (r.fabric.present) {
    switches.Add({}, static_cast<double>(r.fabric.switches.size()));
    hosts.Add({}, static_cast<double>(r.fabric.hosts.size()));
    links.Add({}, static_cast<double>(r.fabric.links.size()));
    std::map<std::string, int> per_switch, per_kind;
    for (const auto& d : r.fabric.down_ports) ++per_switch[d.node];
    for (const auto& f : r.fabric.findings) ++per_kind[std::string(analysis::FabricFindingKindName(f.kind))];
    for (const auto& [s, n] : per_switch) down.Add({{"switch", s}}, n);
    for (const auto& [k, n] : per_kind) findings.Add({{"kind", k}}, n);
  }
  if (r.architecture_present) {
    arch.Add({{"architecture", std::string(analysis::ArchClassName(r.architecture.arch_class))}}, r.architecture.confidence);
  }
  for (MetricFamily* f : {&switches, &hosts, &links, &down, &findings, &arch}) out.push_back(std::move(*f));
}

void AddHypotheses(const analysis::AnalysisResult& r, const std::vector<formats::PathProbe>* probes,
                   std::vector<MetricFamily>& out) {
  MetricFamily prob = Family("toposcope_hypothesis_probability", "Posterior probability of a fault hypothesis for one symptom", "1");
  MetricFamily symptoms = Family("toposcope_symptoms", "Symptoms the findings show, by kind", "1");
  MetricFamily max_fault = Family("toposcope_fault_probability_max", "Highest probability of any hypothesis other than noise", "1");
  act::HypothesisOptions opt;
  opt.probes = probes;
  auto tree = act::BuildHypotheses(r, opt);
  if (tree.ok()) {
    std::map<std::string, int> per_kind;
    for (const auto& s : tree->symptoms) {
      const std::string kind(act::SymptomKindName(s.kind));
      ++per_kind[kind];
      for (const auto& h : s.hypotheses) {
        prob.Add({{"symptom", kind}, {"symptom_entity", s.entity}, {"hypothesis", std::string(act::HypothesisKindName(h.kind))},
                  {"entity", h.entity}},
                 h.probability);
      }
    }
    for (const auto& [k, n] : per_kind) symptoms.Add({{"kind", k}}, n);
    max_fault.Add({}, tree->max_fault_probability);
  }
  for (MetricFamily* f : {&prob, &symptoms, &max_fault}) out.push_back(std::move(*f));
}

// The text as valid UTF-8: when it is not, every byte past ASCII becomes U+FFFD (exposition
// formats require UTF-8 label values; a file name need not be).
std::string Utf8Label(std::string s) {
  if (ValidUtf8(s)) return s;
  std::string out;
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x80) out += c;
    else out += "\xEF\xBF\xBD";
  }
  return out;
}

}  // namespace

void MetricFamily::Add(std::vector<std::pair<std::string, std::string>> labels, double value) {
  if (!std::isfinite(value)) return;
  std::erase_if(labels, [](const auto& l) { return l.second.empty(); });
  for (auto& l : labels) l.second = Utf8Label(std::move(l.second));
  samples.push_back({std::move(labels), value == 0 ? 0 : value});  // no "-0"
}

void NormaliseFamilies(std::vector<MetricFamily>& families) {
  for (MetricFamily& f : families) {
    std::stable_sort(f.samples.begin(), f.samples.end(),
                     [](const MetricSample& a, const MetricSample& b) { return a.labels < b.labels; });
    auto last = std::unique(f.samples.begin(), f.samples.end(),
                            [](const MetricSample& a, const MetricSample& b) { return a.labels == b.labels; });
    f.samples.erase(last, f.samples.end());
  }
}

std::vector<MetricFamily> ResultMetrics(const analysis::AnalysisResult& r, const std::vector<formats::PathProbe>* probes) {
  std::vector<MetricFamily> out;
  AddInputs(r, out);
  AddNode(r, out);
  AddEntropy(r, out);
  AddClocks(r, out);
  AddTomography(r, out);
  AddFabric(r, out);
  AddHypotheses(r, probes, out);
  NormaliseFamilies(out);
  return out;
}

}  // namespace toposcope::report
