// report/text/summary: the terminal summary of an analysis. By default it fits a screen: long lists
// show their first few items and a count, repeated findings are grouped; --verbose prints them all.
#include "toposcope/report/text/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "toposcope/base/text.h"
#include "toposcope/report/text/hypotheses_text.h"

namespace toposcope::report {

namespace {

// Writes the lines `line(i)` for the first items of a list of `n` (all with verbose), then how
// many more there are.
template <class LineFn>
void Capped(std::ostringstream& os, size_t n, const SummaryOptions& o, LineFn&& line) {
  const size_t shown = o.verbose ? n : std::min(n, o.max_items);
  for (size_t i = 0; i < shown; ++i) line(i);
  if (shown < n) os << "  ... and " << (n - shown) << " more (in result.json; --verbose lists them)\n";
}

// The input files read and skipped, their records and rejections.
void InputsSummary(const analysis::AnalysisResult& r, const SummaryOptions& o, std::ostringstream& os) {
  int64_t read = 0, rejected = 0, used = 0, skipped = 0;
  for (const auto& in : r.inputs) {
    if (in.skipped) {
      ++skipped;
    } else {
      ++used;
    }
    read += in.records;
    rejected += in.rejected;
  }
  os << "inputs: " << used << " files read, " << skipped << " skipped; " << read << " records, " << rejected
     << " rejected\n";
  std::vector<const analysis::InputReport*> skipped_inputs;
  for (const auto& in : r.inputs) {
    if (in.skipped) skipped_inputs.push_back(&in);
  }
  Capped(os, skipped_inputs.size(), o, [&](size_t i) {
    os << "  skipped " << skipped_inputs[i]->path << ": " << skipped_inputs[i]->skip_reason << "\n";
  });
}

// Hosts, GPUs and islands by kind; links and every degraded one.
void NodesSummary(const analysis::AnalysisResult& r, const SummaryOptions& o, std::ostringstream& os) {
  std::map<std::string, int> hosts;
  for (const auto& g : r.gpus) ++hosts[g.host];
  std::map<std::string, int> kinds;
  for (const auto& i : r.islands) ++kinds[std::string(analysis::IslandKindName(i.kind))];
  int degraded = 0;
  for (const auto& l : r.links) degraded += l.degraded ? 1 : 0;
  os << "hosts: " << hosts.size() << ", GPUs: " << r.gpus.size() << ", islands: " << r.islands.size();
  if (!kinds.empty()) {
    os << " (";
    bool first = true;
    for (const auto& [k, n] : kinds) {
      os << (first ? "" : ", ") << n << " " << k;
      first = false;
    }
    os << ")";
  }
  os << "\n";
  os << "links: " << r.links.size() << ", degraded: " << degraded << "\n";
  std::vector<const analysis::LinkReport*> bad;
  for (const auto& l : r.links) {
    if (l.degraded) bad.push_back(&l);
  }
  Capped(os, bad.size(), o, [&](size_t i) {
    const auto& l = *bad[i];
    os << "  DEGRADED " << l.a << " <-> " << l.b << " " << LinkTypeName(l.type);
    if (l.lanes > 0) os << " NV" << l.lanes;
    os << " (confidence " << (std::isnan(l.confidence) ? std::string("not measured") : FormatFixed(l.confidence, 3))
       << "): " << l.evidence << "\n";
  });
}

// The clock models' held-out residuals: per host with verbose, else their medians over the hosts and
// the worst host. Hosts without held-out sync points are counted, not printed as rows of NaN.
void ClocksSummary(const analysis::AnalysisResult& r, const SummaryOptions& o, std::ostringstream& os) {
  if (r.clocks.empty()) return;
  std::vector<const analysis::HostClockFit*> fitted;
  std::vector<std::string> unfitted;
  for (const auto& fit : r.clocks) {
    const bool any = std::any_of(fit.models.begin(), fit.models.end(),
                                 [](const analysis::ClockModel& m) { return !std::isnan(m.p99_abs_residual_us); });
    if (any) {
      fitted.push_back(&fit);
    } else {
      unfitted.push_back(fit.host);
    }
  }
  os << "clocks: " << r.clocks.size() << " hosts, " << fitted.size() << " with held-out sync points";
  if (!unfitted.empty()) os << " (" << unfitted.size() << " without: no sync records to fit)";
  os << "\n";
  if (fitted.empty()) return;
  if (o.verbose) {
    os << "  mean / p99 |residual| on held-out sync points, us:\n";
    os << "  host              none                linear              quadratic           robust\n";
    for (const auto* fit : fitted) {
      char line[256];
      int n = std::snprintf(line, sizeof(line), "  %-16s", fit->host.c_str());
      for (const auto& m : fit->models) {
        n += std::snprintf(line + n, sizeof(line) - static_cast<size_t>(n), "  %8.2f / %8.2f", m.mean_abs_residual_us,
                           m.p99_abs_residual_us);
        if (n >= static_cast<int>(sizeof(line))) break;
      }
      os << line << "\n";
    }
    if (!unfitted.empty()) {
      os << "  without sync records:";
      for (const auto& h : unfitted) os << " " << h;
      os << "\n";
    }
    return;
  }
  // Per model: the median over hosts of its p99; the worst host by the last (most robust) model.
  const size_t models = fitted.front()->models.size();
  os << "  median p99 |residual| over hosts (held-out, us):";
  for (size_t k = 0; k < models; ++k) {
    std::vector<double> p99;
    for (const auto* fit : fitted) {
      if (k < fit->models.size() && !std::isnan(fit->models[k].p99_abs_residual_us)) {
        p99.push_back(fit->models[k].p99_abs_residual_us);
      }
    }
    if (p99.empty()) continue;
    std::nth_element(p99.begin(), p99.begin() + static_cast<std::ptrdiff_t>(p99.size() / 2), p99.end());
    os << " " << analysis::ClockModelName(fitted.front()->models[k].kind) << " "
       << FormatFixed(p99[p99.size() / 2], 2);
  }
  os << "\n";
  const analysis::HostClockFit* worst = nullptr;
  double worst_p99 = -1;
  for (const auto* fit : fitted) {
    const double v = fit->models.back().p99_abs_residual_us;
    if (!std::isnan(v) && v > worst_p99) {
      worst_p99 = v;
      worst = fit;
    }
  }
  if (worst != nullptr) {
    os << "  worst host: " << worst->host << " (" << analysis::ClockModelName(worst->models.back().kind) << " p99 "
       << FormatFixed(worst_p99, 2) << " us)\n";
  }
}

// The linuxptp servos read: one line per series (offset scale, frequency range), then every finding.
void ServoSummary(const analysis::AnalysisResult& r, const SummaryOptions& o, std::ostringstream& os) {
  if (r.servo.series.empty()) return;
  os << "servo (" << r.servo.series.size() << " ptp4l/phc2sys series, " << r.servo.findings.size() << " findings):\n";
  Capped(os, r.servo.series.size(), o, [&](size_t i) {
    const auto& s = r.servo.series[i];
    char line[512];
    std::snprintf(line, sizeof(line), "  %s %s %s%s%s: %lld %s (%lld locked), offset rms %.0f max %.0f ns, freq %.0f..%.0f ppb",
                  s.host.c_str(), s.program.c_str(), s.clock.c_str(), s.reference.empty() ? "" : " ",
                  s.reference.c_str(), static_cast<long long>(s.points), s.summaries ? "summaries" : "samples",
                  static_cast<long long>(s.locked), s.offset_rms_ns, s.offset_max_ns, s.freq_min_ppb, s.freq_max_ppb);
    os << line << "\n";
  });
  Capped(os, r.servo.findings.size(), o, [&](size_t i) {
    const auto& f = r.servo.findings[i];
    os << "  " << analysis::ServoFindingKindName(f.kind) << ": " << f.evidence << "\n";
  });
}

// The port counters read (perfquery / ibqueryerrors): one line, then every finding.
void PortCounterSummary(const analysis::AnalysisResult& r, const SummaryOptions& o, std::ostringstream& os) {
  const analysis::PortCounterReport& p = r.port_counters;
  if (!p.present) return;
  os << "port counters (" << p.blocks << " reads of " << p.ports.size() << " ports, " << p.findings.size()
     << " findings" << (p.unmapped_lids > 0 ? ", " + std::to_string(p.unmapped_lids) + " ports no fabric dump names" : "")
     << "):\n";
  Capped(os, p.findings.size(), o, [&](size_t i) {
    os << "  " << analysis::PortCounterFindingKindName(p.findings[i].kind) << ": " << p.findings[i].evidence << "\n";
  });
}

// DCGM series, the hosts sampling communication fields too slowly (grouped), the telemetry findings.
void TelemetrySummary(const analysis::AnalysisResult& r, const SummaryOptions& o, std::ostringstream& os) {
  if (r.telemetry.series > 0) {
    os << "dcgm: " << r.telemetry.series << " series, " << r.telemetry.points << " samples, " << r.telemetry.fields.size()
       << " fields\n";
    std::map<std::string, std::vector<const analysis::SamplingWarning*>> by_host;
    for (const auto& w : r.telemetry.sampling_warnings) by_host[w.host].push_back(&w);
    if (!by_host.empty()) {
      double worst = 0, needed = 0;
      std::string example;
      for (const auto& [host, ws] : by_host) {
        for (const auto* w : ws) {
          if (w->period_ms > worst) {
            worst = w->period_ms;
            needed = w->needed_period_ms;
            example = w->field;
          }
        }
      }
      os << "  WARNING " << by_host.size() << " host(s) sample communication fields every up to " << FormatFixed(worst, 0)
         << " ms (needs <= " << needed << " ms, e.g. " << example << "):";
      size_t k = 0;
      for (const auto& [host, ws] : by_host) {
        if (!o.verbose && k == o.max_items) {
          os << " ... (" << (by_host.size() - k) << " more)";
          break;
        }
        os << " " << host;
        ++k;
      }
      os << "\n";
    }
  }
  Capped(os, r.telemetry.findings.size(), o, [&](size_t i) {
    const auto& f = r.telemetry.findings[i];
    os << "  FINDING " << analysis::TelemetryFindingKindName(f.kind) << " " << f.host;
    if (f.gpu >= 0) os << "/gpu" << f.gpu;
    if (f.link >= 0) os << " link " << f.link;
    os << ": " << f.evidence << "\n";
  });
}

// The merged timeline's event counts and trace path.
void TimelineSummary(const analysis::AnalysisResult& r, std::ostringstream& os) {
  if (!r.timeline.present) return;
  os << "timeline: " << r.timeline.events_in << " events in, " << r.timeline.events_out << " out";
  if (r.timeline.without_clock > 0) os << " (" << r.timeline.without_clock << " on hosts without a clock model)";
  os << " -> " << r.timeline.trace_path << "\n";
}

// Captures, flows and their QP pairing; link entropy and its modes; rings from logs and flows.
void RdmaSummary(const analysis::AnalysisResult& r, const SummaryOptions& o, std::ostringstream& os) {
  if (!r.rdma.present) return;
  const auto& rd = r.rdma;
  int64_t paired = 0;
  for (const auto& f : rd.flows.flows) paired += f.pairing != analysis::QpPairing::kNone ? 1 : 0;
  os << "rdma: " << rd.flows.captures.size() << " captures, " << rd.flows.packets << " RoCE packets, "
     << rd.flows.flows.size() << " flows, " << paired << " with a source QP (";
  bool first = true;
  for (const auto& [method, n] : rd.flows.pairing_counts) {
    os << (first ? "" : ", ") << method << " " << n;
    first = false;
  }
  os << ")\n";
  int det = 0;
  std::map<std::string, int> modes;
  int regular = 0;
  for (const auto& l : rd.entropy.links) {
    det += l.deterministic ? 1 : 0;
    regular += l.regular ? 1 : 0;
  }
  for (const auto& m : rd.entropy.modes) ++modes[std::string(analysis::TrafficModeName(m.mode))];
  if (!rd.entropy.links.empty()) {
    os << "  entropy (window " << FormatFixed(static_cast<double>(rd.entropy_window_ns) / 1e6, 3) << " ms): "
       << rd.entropy.links.size() << " links; header entropy < 2.1 bit: " << det
       << "; regular ring traffic (message-size entropy < 2.1 bit, sustained): " << regular << ";";
    for (const auto& [m, n] : modes) os << " " << m << " " << n;
    os << "\n";
  }
  std::vector<const analysis::LinkEntropySummary*> risk;
  for (const auto& l : rd.entropy.links) {
    if (l.polarisation_risk) risk.push_back(&l);
  }
  if (!risk.empty()) {
    os << "  " << risk.size() << " link(s) at ECMP polarisation risk: " << risk.front()->advice << "\n";
    Capped(os, risk.size(), o, [&](size_t i) { os << "    " << risk[i]->link << "\n"; });
  }
  int log_rings = 0, flow_rings = 0;
  for (const auto& g : rd.rings.rings) (g.source == analysis::RingSource::kFlows ? flow_rings : log_rings)++;
  os << "  rings: " << log_rings << " from NCCL logs, " << flow_rings << " from flows; " << rd.rings.log_flow_agree
     << " agree, " << rd.rings.log_flow_disagree << " disagree\n";
}

// QP state-log patterns, path findings and tomography link weights.
void PatternsAndPathsSummary(const analysis::AnalysisResult& r, const SummaryOptions& o, std::ostringstream& os) {
  if (r.patterns_present) {
    os << "qp patterns: " << r.patterns.records << " transitions, " << r.patterns.windows << " QP-windows";
    for (const auto& p : r.patterns.patterns) {
      if (p.scope == "all") os << "; overall " << analysis::PatternClassName(p.cls);
    }
    os << "\n";
    if (!r.patterns.note.empty()) os << "  " << r.patterns.note << "\n";
  }
  if (r.nics.present) {
    int active = 0;
    for (const auto& p : r.nics.ports) active += p.active ? 1 : 0;
    os << "nic ports: " << r.nics.ports.size() << " (" << active << " active), " << r.nics.findings.size()
       << " finding(s)\n";
    Capped(os, r.nics.findings.size(), o, [&](size_t i) {
      const auto& f = r.nics.findings[i];
      os << "  " << (f.kind == "port_down" ? "PORT DOWN" : "RATE BELOW SIBLINGS") << ": " << f.evidence << "\n";
    });
  }
  if (r.collectives_present) {
    const auto& c = r.collectives;
    os << "nccl-tests: " << c.runs.size() << " run(s), " << c.host_sets.size() << " host set(s)\n";
    Capped(os, c.host_sets.size(), o, [&](size_t i) {
      const auto& h = c.host_sets[i];
      os << "  " << (h.test.empty() ? std::string("nccl-tests") : h.test) << ", " << h.ranks << " ranks on "
         << h.hosts.size() << " host(s): bus bandwidth " << FormatFixed(h.best_busbw_gbps, 2) << " GB/s at "
         << h.largest_bytes << " B" << (h.slow ? "  SLOW" : "") << "\n";
    });
    Capped(os, c.findings.size(), o, [&](size_t i) {
      const auto& f = c.findings[i];
      os << "  " << (f.kind == "slow_host_set" ? "SLOW HOSTS" : "VALIDATION FAILED") << ": " << f.evidence << "\n";
    });
  }
  if (r.paths_present) {
    os << "paths: " << r.paths.paths << " probes, " << r.paths.bottlenecks.size() << " bottleneck(s), "
       << r.paths.redundant_hops.size() << " redundant hop(s)\n";
    Capped(os, r.paths.bottlenecks.size(), o, [&](size_t i) {
      os << "  BOTTLENECK " << r.paths.bottlenecks[i].node << ": " << r.paths.bottlenecks[i].evidence << "\n";
    });
    Capped(os, r.paths.redundant_hops.size(), o, [&](size_t i) {
      os << "  REDUNDANT HOP " << r.paths.redundant_hops[i].node << ": " << r.paths.redundant_hops[i].evidence << "\n";
    });
    if (r.link_weights.present) {
      const auto& t = r.link_weights.tomography;
      int64_t ident = 0;
      for (const auto& l : t.links) ident += l.identifiable ? 1 : 0;
      os << "link weights: " << t.links.size() << " cables from " << r.link_weights.routes << " routes ("
         << r.link_weights.probes_used << " probes), " << ident << " identifiable, rank deficiency "
         << t.rank_deficiency << "\n";
    }
  }
}

// Inferred leaves, the architecture, the discovered fabric and islands disagreeing with a declared
// topology.
void FabricSummary(const analysis::AnalysisResult& r, const SummaryOptions& o, std::ostringstream& os) {
  if (r.leaves_inferred) {
    os << "leaves from probe RTTs: " << r.inferred_leaves.leaves.size() << " leaves, " << r.inferred_leaves.pods.size()
       << " pods, " << r.inferred_leaves.unplaced.size() << " unplaced hosts (confidence "
       << r.inferred_leaves.confidence << ")\n";
  }
  if (r.architecture_present) {
    os << "architecture: " << analysis::ArchClassName(r.architecture.arch_class) << " (confidence "
       << r.architecture.confidence << ", from the " << analysis::GraphSourceName(r.architecture.graph_source)
       << ")\n";
  }
  if (r.fabric.present) {
    os << "fabric: " << r.fabric.switches.size() << " switches (" << r.fabric.leaves.size() << " leaves, "
       << r.fabric.spines.size() << " spines), " << r.fabric.cas.size() << " adapters, " << r.fabric.hosts.size()
       << " hosts, " << r.fabric.links.size() << " links (" << r.fabric.source_tools << ")";
    if (!r.fabric.down_ports.empty()) os << ", " << r.fabric.down_ports.size() << " ports down";
    os << "\n";
    Capped(os, r.fabric.findings.size(), o, [&](size_t i) {
      const auto& f = r.fabric.findings[i];
      os << "  " << analysis::FabricFindingKindName(f.kind) << ": " << f.evidence << "\n";
    });
    if (r.fabric.hosts_named_by_guid > 0) {
      os << "  " << r.fabric.hosts_named_by_guid << " hosts named by adapter GUID (no host name in the description)\n";
    }
    Capped(os, r.fabric.mismatches.size(), o, [&](size_t i) {
      const auto& m = r.fabric.mismatches[i];
      os << "  link ends disagree: " << m.a.node << "[" << m.a.port << "] " << m.a.width << m.a.speed << " (line "
         << m.a.line << ") vs " << m.b.node << "[" << m.b.port << "] " << m.b.width << m.b.speed << " (line "
         << m.b.line << ")\n";
    });
  }
  int disagree = 0;
  for (const auto& i : r.islands) {
    for (const auto& [src, ok] : i.agrees_with) disagree += ok ? 0 : 1;
  }
  if (disagree > 0) os << "islands disagreeing with a declared topology: " << disagree << "\n";
}

// The per-hop error bound and the longest trustworthy path: the whole table with verbose, else the
// rows at 10, 100 and 1000 ms on one line.
void ConfidenceSummary(const analysis::AnalysisResult& r, const SummaryOptions& o, std::ostringstream& os) {
  const auto& c = r.confidence;
  if (c.sampling.empty()) return;
  const std::string noise =
      c.noise_fitted ? "noise fitted to the data: alpha-stable a=" + FormatFixed(c.alpha, 2) + " b=" + FormatFixed(c.beta, 2) +
                           " scale=" + FormatFixed(c.scale, 2) + " from " + std::to_string(c.noise_samples) + " residuals (" +
                           c.noise_source + ")"
                     : "noise: the default prior, alpha-stable a=" + FormatFixed(c.alpha, 2) + " b=" + FormatFixed(c.beta, 2) +
                           " scale=" + FormatFixed(c.scale, 2) + " (" + (c.noise_note.empty() ? c.noise_source : c.noise_note) + ")";
  if (!o.verbose) {
    os << "path confidence (per-hop bandwidth error at q" << FormatFixed(100 * c.quantile, 0) << ", hops kept at delta >= "
       << FormatFixed(c.delta_min, 2) << "):";
    for (const auto& s : c.sampling) {
      if (s.period_ms != 10 && s.period_ms != 100 && s.period_ms != 1000) continue;
      os << " " << FormatFixed(s.period_ms, 0) << " ms " << FormatFixed(100 * s.per_hop_error, 1) << "% (" << s.max_hops
         << " hops);";
    }
    os << "\n  " << noise << "\n";
    return;
  }
  os << "path confidence (eps = q" << FormatFixed(100 * c.quantile, 0) << " |error| per hop, delta >= "
     << FormatFixed(c.delta_min, 2) << "):\n";
  os << "  " << noise << "\n";
  os << "  period_ms  per_hop_error  max_hops\n";
  for (const auto& s : c.sampling) {
    char line[96];
    std::snprintf(line, sizeof(line), "  %9.0f  %12.1f%%  %8d\n", s.period_ms, 100 * s.per_hop_error, s.max_hops);
    os << line;
  }
}

}  // namespace

std::string ResultSummaryText(const analysis::AnalysisResult& r, const SummaryOptions& o) {
  std::ostringstream os;
  InputsSummary(r, o, os);
  NodesSummary(r, o, os);
  ClocksSummary(r, o, os);
  ServoSummary(r, o, os);
  PortCounterSummary(r, o, os);
  TelemetrySummary(r, o, os);
  TimelineSummary(r, os);
  RdmaSummary(r, o, os);
  PatternsAndPathsSummary(r, o, os);
  FabricSummary(r, o, os);
  ConfidenceSummary(r, o, os);
  os << HypothesesPointerText(r);
  return os.str();
}

}  // namespace toposcope::report
