// Throughput of ParseNcclTopoXml on a synthetic 72-GPU topology (NVL72-like: 18 nodes' worth of
// GPUs, each with 18 NVLinks to NVSwitches, a NIC per GPU behind a PCIe switch).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "toposcope/formats/nccl/nccl_xml.h"

namespace {

using toposcope::formats::XmlElement;

std::string BusId(int domain, int bus) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04x:%02x:00.0", domain, bus & 0xff);
  return buf;
}

std::string BigTopology(int n_gpus) {
  XmlElement root{"system", {{"version", "1"}}, {}, 0};
  const int per_cpu = 8;
  for (int c = 0; c < (n_gpus + per_cpu - 1) / per_cpu; ++c) {
    XmlElement cpu{"cpu",
                   {{"host_hash", "0xa5f31daa95182da8"},
                    {"numaid", std::to_string(c)},
                    {"affinity", "00000000,00000000,0000ffff,ffffffff,ffffffff"},
                    {"arch", "x86_64"},
                    {"vendor", "GenuineIntel"},
                    {"familyid", "6"},
                    {"modelid", "143"}},
                   {},
                   0};
    for (int k = 0; k < per_cpu && c * per_cpu + k < n_gpus; ++k) {
      const int g = c * per_cpu + k;
      const std::vector<std::pair<std::string, std::string>> ids{{"vendor", "0x10de"},
                                                                 {"device", "0x2330"},
                                                                 {"subsystem_vendor", "0x10de"},
                                                                 {"subsystem_device", "0x16c1"},
                                                                 {"link_speed", "32.0 GT/s PCIe"},
                                                                 {"link_width", "16"}};
      XmlElement sw{"pci", {{"busid", BusId(c, 0x10 + 4 * k)}, {"class", "0x060400"}}, {}, 0};
      sw.attrs.insert(sw.attrs.end(), ids.begin(), ids.end());
      XmlElement nic_pci{"pci", {{"busid", BusId(c, 0x11 + 4 * k)}, {"class", "0x020700"}}, {}, 0};
      nic_pci.attrs.insert(nic_pci.attrs.end(), ids.begin(), ids.end());
      nic_pci.children.push_back(XmlElement{"nic",
                                            {},
                                            {XmlElement{"net",
                                                        {{"name", "mlx5_" + std::to_string(g)},
                                                         {"dev", std::to_string(g)},
                                                         {"speed", "400000"},
                                                         {"port", "1"},
                                                         {"latency", "0.000000"},
                                                         {"guid", "0x34f4e30003e1a258"},
                                                         {"maxconn", "131072"},
                                                         {"gdr", "1"}},
                                                        {},
                                                        0}},
                                            0});
      XmlElement gpu_pci{"pci", {{"busid", BusId(c, 0x12 + 4 * k)}, {"class", "0x030200"}}, {}, 0};
      gpu_pci.attrs.insert(gpu_pci.attrs.end(), ids.begin(), ids.end());
      XmlElement gpu{"gpu",
                     {{"dev", std::to_string(g)}, {"sm", "100"}, {"rank", std::to_string(g)}, {"gdr", "1"}},
                     {},
                     0};
      for (int s = 0; s < 18; ++s) {
        gpu.children.push_back(XmlElement{
            "nvlink", {{"target", BusId(0x100 + s, 0)}, {"count", "1"}, {"tclass", "0x068000"}}, {}, 0});
      }
      gpu_pci.children.push_back(std::move(gpu));
      sw.children.push_back(std::move(nic_pci));
      sw.children.push_back(std::move(gpu_pci));
      cpu.children.push_back(std::move(sw));
    }
    root.children.push_back(std::move(cpu));
  }
  return toposcope::formats::WriteXmlTree(root);
}

void BM_ParseNcclTopoXml72(benchmark::State& state) {
  const std::string text = BigTopology(72);
  for (auto _ : state) {
    toposcope::Diagnostics diag;
    toposcope::ReadCounts counts;
    auto topo = toposcope::formats::ParseNcclTopoXml(text, "bench.xml", diag, counts);
    if (!topo.ok() || topo->gpus.size() != 72) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(topo);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.counters["bytes"] = static_cast<double>(text.size());
}
BENCHMARK(BM_ParseNcclTopoXml72);

void BM_WriteXmlTree72(benchmark::State& state) {
  const std::string text = BigTopology(72);
  toposcope::Diagnostics diag;
  toposcope::ReadCounts counts;
  auto topo = toposcope::formats::ParseNcclTopoXml(text, "bench.xml", diag, counts);
  for (auto _ : state) {
    std::string out = toposcope::formats::WriteXmlTree(topo->root);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_WriteXmlTree72);

}  // namespace

BENCHMARK_MAIN();
