// sim/port_counters_sim: see port_counters_sim.h.
#include "toposcope/sim/port_counters_sim.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "toposcope/base/rng.h"
#include "toposcope/formats/fabric/perfquery.h"

namespace toposcope::sim {
namespace {

constexpr uint64_t kCounterStreamLabel = 0x9E7F0C7ULL;

// One port's counters at the start and what the window adds.
struct PortState {
  int lid = 0, port = 0;
  std::map<std::string, uint64_t> start, delta;
};

uint64_t Draw(Rng& rng, double lo, double hi) { return static_cast<uint64_t>(std::llround(rng.Uniform(lo, hi))); }

// A healthy port: traffic-driven data counters and small error counts.
void HealthyPort(Rng& rng, bool host_link, double window_s, PortState& s) {
  const double words = rng.Uniform(2e9, 4e11);  // since the counters were cleared
  s.start["PortSelect"] = static_cast<uint64_t>(s.port);
  s.start["CounterSelect"] = 0;
  s.start["PortXmitData"] = static_cast<uint64_t>(words);
  s.start["PortRcvData"] = static_cast<uint64_t>(words * rng.Uniform(0.8, 1.2));
  s.start["PortXmitPkts"] = static_cast<uint64_t>(words / rng.Uniform(200, 1000));
  s.start["PortRcvPkts"] = static_cast<uint64_t>(words / rng.Uniform(200, 1000));
  s.start["PortUnicastXmitPkts"] = s.start["PortXmitPkts"];
  s.start["PortUnicastRcvPkts"] = s.start["PortRcvPkts"];
  s.start["PortMulticastXmitPkts"] = Draw(rng, 0, 500);
  s.start["PortMulticastRcvPkts"] = Draw(rng, 0, 5000);
  s.start["CounterSelect2"] = 0;
  s.start["SymbolErrorCounter"] = rng.Uniform() < 0.3 ? Draw(rng, 1, 3) : 0;
  s.start["LinkErrorRecoveryCounter"] = rng.Uniform() < 0.15 ? 1 : 0;
  s.start["LinkDownedCounter"] = host_link ? Draw(rng, 0, 2) : (rng.Uniform() < 0.15 ? 1 : 0);
  s.start["PortRcvErrors"] = rng.Uniform() < 0.1 ? 1 : 0;
  s.start["PortRcvRemotePhysicalErrors"] = 0;
  s.start["PortRcvSwitchRelayErrors"] = rng.Uniform() < 0.2 ? Draw(rng, 1, 9) : 0;
  s.start["PortXmitDiscards"] = Draw(rng, 0, 2);
  s.start["PortXmitConstraintErrors"] = 0;
  s.start["PortRcvConstraintErrors"] = 0;
  s.start["LocalLinkIntegrityErrors"] = 0;
  s.start["ExcessiveBufferOverrunErrors"] = 0;
  s.start["VL15Dropped"] = 0;
  s.start["PortXmitWait"] = Draw(rng, 1000, 60000);
  s.start["QP1Dropped"] = 0;
  const double rate_words = rng.Uniform(1e7, 5e8);  // 4-octet words per second
  s.delta["PortXmitData"] = static_cast<uint64_t>(rate_words * window_s);
  s.delta["PortRcvData"] = static_cast<uint64_t>(rate_words * window_s * rng.Uniform(0.8, 1.2));
  s.delta["PortXmitPkts"] = s.delta["PortXmitData"] / 500;
  s.delta["PortRcvPkts"] = s.delta["PortRcvData"] / 500;
  s.delta["PortUnicastXmitPkts"] = s.delta["PortXmitPkts"];
  s.delta["PortUnicastRcvPkts"] = s.delta["PortRcvPkts"];
  s.delta["PortXmitWait"] = Draw(rng, 0, 2000);
  if (rng.Uniform() < 0.02) s.delta["SymbolErrorCounter"] = 1;
}

std::string Timestamp(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "timestamp %.6f\n", s);
  return buf;
}

}  // namespace

std::vector<RenderedFile> RenderPortCounters(const Cluster& c, const FabricPlan& p) {
  Rng rng(Rng::Mix(c.options.seed, kCounterStreamLabel));
  const int sw = static_cast<int>(p.switches.size());
  const double window_s = static_cast<double>(p.probe_end_ns - p.probe_start_ns) / 1e9;
  std::vector<PortState> ports;
  std::vector<std::vector<size_t>> by_link(p.links.size());
  for (int s = 0; s < sw; ++s) {
    for (size_t li = 0; li < p.links.size(); ++li) {
      const FabricLink& l = p.links[li];
      if (l.a != s && l.b != s) continue;
      PortState st;
      st.lid = p.switches[static_cast<size_t>(s)].lid;
      st.port = l.a == s ? l.a_port : l.b_port;
      HealthyPort(rng, l.kind == "host", window_s, st);
      if (s == p.congested_switch) {
        st.delta["PortXmitWait"] += Draw(rng, 2e6, 8e6);
        st.delta["PortXmitDiscards"] += Draw(rng, 0, 20);
      }
      by_link[li].push_back(ports.size());
      ports.push_back(std::move(st));
    }
  }
  int outages = 0;
  for (const FlapInterval& f : p.flaps) {
    if (f.start_ns >= p.probe_start_ns && f.start_ns < p.probe_end_ns) ++outages;
  }
  for (size_t li = 0; li < p.links.size(); ++li) {
    const bool flapping = static_cast<int>(li) == p.flapping_link;
    const bool degraded = static_cast<int>(li) == p.degraded_link;
    if (!flapping && !degraded) continue;
    for (size_t k : by_link[li]) {
      PortState& st = ports[k];
      if (flapping) {
        st.start["LinkDownedCounter"] += Draw(rng, 3, 12);
        st.start["LinkErrorRecoveryCounter"] += Draw(rng, 3, 20);
        st.delta["LinkDownedCounter"] += static_cast<uint64_t>(outages);
        for (int o = 0; o < outages; ++o) {
          st.delta["LinkErrorRecoveryCounter"] += Draw(rng, 1, 3);
          st.delta["SymbolErrorCounter"] += Draw(rng, 20, 200);
        }
        st.delta["PortRcvErrors"] += Draw(rng, 1, 10);
      } else {
        st.delta["SymbolErrorCounter"] += Draw(rng, 500, 5000);
        st.delta["PortRcvErrors"] += Draw(rng, 50, 500);
      }
    }
  }
  const double t0 = static_cast<double>(p.probe_start_ns) / 1e9 - 1.0;
  const double t1 = static_cast<double>(p.probe_end_ns) / 1e9 + 1.0;
  std::string start, end;
  for (const PortState& st : ports) {
    formats::PortCounterBlock b;
    b.lid = st.lid;
    b.port = st.port;
    b.extended = true;
    b.cap_mask = "0x5a00";
    b.counters = st.start;
    start += formats::WritePerfqueryBlock(b) + Timestamp(t0 + 0.001 * static_cast<double>(&st - ports.data()) / 64.0);
    for (const auto& [name, d] : st.delta) b.counters[name] += d;
    end += formats::WritePerfqueryBlock(b) + Timestamp(t1 + 0.001 * static_cast<double>(&st - ports.data()) / 64.0);
  }
  return {{kPerfqueryStartFile, std::move(start)}, {kPerfqueryEndFile, std::move(end)}};
}

}  // namespace toposcope::sim
