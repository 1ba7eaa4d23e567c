// A fake of NVML (libnvidia-ml.so.1) for tests on machines without a GPU: the entry points the
// collector loads, with fixed readings per device. Configured by environment variables:
//   FAKE_NVML_DEVICES   GPU count (default 2)
//   FAKE_NVML_GPM       1: the devices support GPM (SM activity, PCIe/NVLink rates)
//   FAKE_NVML_NO_FIELDS 1: NVLink counters (field values) are not supported
//   FAKE_NVML_FAIL      the name of one entry point that fails (NVML_ERROR_UNKNOWN, 999)
// Readings: SM clock 1980 MHz, memory clock 2619 MHz, temperature 40 + i C, power 100 + i W,
// utilization 50 % / 20 %, PCIe 1000 / 2000 KB/s; NVLink data counters grow by 100 MiB (TX) and
// 200 MiB (RX) per call; GPM: SM util 75 %, occupancy 30 %, DRAM 40 %, PCIe 10 / 20 MiB/s, NVLink
// 100 / 200 MiB/s. fake_nvml_live_inits() is inits minus shutdowns.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct Device {
  int index = 0;
  unsigned long long tx_kib = 0, rx_kib = 0;
};
Device g_dev[64];
int g_inits = 0;

int EnvInt(const char* name, int dflt) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : dflt;
}
bool Fails(const char* fn) {
  const char* v = std::getenv("FAKE_NVML_FAIL");
  return v != nullptr && std::strcmp(v, fn) == 0;
}
Device* Dev(void* d) { return static_cast<Device*>(d); }

struct FieldValue {
  unsigned field_id, scope_id;
  long long timestamp, latency;
  int value_type, nvml_return;
  unsigned long long value;
};
struct GpmMetric {
  unsigned id;
  int ret;
  double value;
  const char *s, *l, *u;
};
struct GpmGet {
  unsigned version, num;
  void *s1, *s2;
  GpmMetric m[98];
};

}  // namespace

extern "C" {

int fake_nvml_live_inits() { return g_inits; }

const char* nvmlErrorString(int r) {
  switch (r) {
    case 0: return "Success";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}
int nvmlInit_v2() {
  if (Fails("nvmlInit_v2")) return 9;
  ++g_inits;
  return 0;
}
int nvmlShutdown() {
  --g_inits;
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned* n) {
  if (Fails("nvmlDeviceGetCount_v2")) return 999;
  *n = static_cast<unsigned>(EnvInt("FAKE_NVML_DEVICES", 2));
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** d) {
  if (Fails("nvmlDeviceGetHandleByIndex_v2")) return 999;
  if (i >= static_cast<unsigned>(EnvInt("FAKE_NVML_DEVICES", 2)) || i >= 64) return 2;
  g_dev[i].index = static_cast<int>(i);
  *d = &g_dev[i];
  return 0;
}
int nvmlDeviceGetName(void* d, char* buf, unsigned len) {
  std::snprintf(buf, len, "Fake GPU %d", Dev(d)->index);
  return 0;
}
int nvmlDeviceGetTemperature(void* d, unsigned /*sensor*/, unsigned* t) {
  if (Fails("nvmlDeviceGetTemperature")) return 999;
  *t = 40 + static_cast<unsigned>(Dev(d)->index);
  return 0;
}
int nvmlDeviceGetClockInfo(void* /*d*/, unsigned type, unsigned* mhz) {
  *mhz = type == 1 ? 1980 : type == 2 ? 2619 : 1500;
  return 0;
}
int nvmlDeviceGetPowerUsage(void* d, unsigned* mw) {
  *mw = 100000 + 1000 * static_cast<unsigned>(Dev(d)->index);
  return 0;
}
int nvmlDeviceGetUtilizationRates(void* /*d*/, unsigned* u) {
  u[0] = 50;
  u[1] = 20;
  return 0;
}
int nvmlDeviceGetPcieThroughput(void* /*d*/, unsigned counter, unsigned* kbs) {
  *kbs = counter == 0 ? 1000 : 2000;
  return 0;
}
int nvmlDeviceGetFieldValues(void* d, int n, FieldValue* v) {
  Device* dev = Dev(d);
  dev->tx_kib += 100 * 1024;
  dev->rx_kib += 200 * 1024;
  for (int k = 0; k < n; ++k) {
    v[k].value_type = 3;
    if (EnvInt("FAKE_NVML_NO_FIELDS", 0) != 0) {
      v[k].nvml_return = 3;
    } else if (v[k].field_id == 138 || v[k].field_id == 139) {
      v[k].nvml_return = 0;
      v[k].value = v[k].field_id == 138 ? dev->tx_kib : dev->rx_kib;
    } else {
      v[k].nvml_return = 2;
    }
  }
  return 0;
}
int nvmlGpmQueryDeviceSupport(void* /*d*/, unsigned* support) {
  support[1] = EnvInt("FAKE_NVML_GPM", 0) != 0 ? 1 : 0;
  return 0;
}
int nvmlGpmSampleAlloc(void** s) {
  *s = std::malloc(8);
  return 0;
}
int nvmlGpmSampleFree(void* s) {
  std::free(s);
  return 0;
}
int nvmlGpmSampleGet(void* /*d*/, void* /*s*/) { return 0; }
int nvmlGpmMetricsGet(GpmGet* g) {
  if (g->version != 1 || g->num > 98) return 2;
  for (unsigned k = 0; k < g->num; ++k) {
    GpmMetric& m = g->m[k];
    m.ret = 0;
    switch (m.id) {
      case 2: m.value = 75; break;
      case 3: m.value = 30; break;
      case 10: m.value = 40; break;
      case 20: m.value = 10; break;
      case 21: m.value = 20; break;
      case 61: m.value = 100; break;
      case 60: m.value = 200; break;
      default: m.ret = 3;
    }
  }
  return 0;
}

}  // extern "C"
