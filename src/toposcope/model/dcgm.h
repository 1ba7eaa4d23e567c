// model/dcgm: DCGM samples from every source (dmon text, exporter scrapes, TSDB CSV) folded into
// per-series summaries whose size is bounded by the number of series, not by the samples read:
// counts, first/last time, the sampling period (median of the first gaps), and a decimated
// (time, value) trace of at most `kMaxPoints` points for the analyses that look at shapes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "toposcope/formats/dcgm/dcgm_discovery.h"

namespace toposcope::model {

// What a DCGM sample is about. DCGM reports GPUs, MIG GPU and compute instances, NVSwitches, CPUs,
// CPU cores and ConnectX NICs, each numbered on its own: "GPU-I 1" and "Switch 1" are not GPU 1.
enum class DcgmEntity : uint8_t { kGpu, kGpuInstance, kComputeInstance, kSwitch, kCpu, kCpuCore, kNic };

// The entity's name in result.json and messages ("gpu", "gpu_instance", ...).
std::string_view DcgmEntityName(DcgmEntity e);

struct DcgmPoint {
  std::string host;
  int gpu = -1;        // GPU index (for a MIG instance its GPU's, -1 when the source does not say);
                       // for the other entities their own id; -1 when the source has none
  int link = -1;       // NVLink index for per-link samples
  int field_id = -1;   // DCGM field id, -1 when the name is not in the catalog
  std::string field;   // as the source names it (short name, DCGM_FI_ name)
  int64_t ts_ns = 0;   // on the host's clock
  double value = 0;
  DcgmEntity entity = DcgmEntity::kGpu;
  int instance = -1;   // MIG GPU instance (kGpuInstance, kComputeInstance), else -1: NVML's GPU
                       // instance id when `gpu` is set (exporter's GPU_I_ID, or a dmon row linked
                       // through `dcgmi discovery -c`); DCGM's entity id (dmon's `GPU-I n`) when not
  int compute_instance = -1;  // kComputeInstance linked to its GPU: NVML's compute instance id, else -1
};

struct SeriesKey {
  std::string host;
  int gpu = -1;
  int link = -1;
  int field_id = -1;
  std::string field;
  DcgmEntity entity = DcgmEntity::kGpu;
  int instance = -1;
  int compute_instance = -1;
  friend bool operator<(const SeriesKey& a, const SeriesKey& b) {
    return std::tie(a.host, a.entity, a.gpu, a.instance, a.compute_instance, a.link, a.field_id, a.field) <
           std::tie(b.host, b.entity, b.gpu, b.instance, b.compute_instance, b.link, b.field_id, b.field);
  }
  // True for a whole GPU's series (not a MIG instance's, a switch's, a CPU's or a NIC's).
  [[nodiscard]] bool IsGpu() const { return entity == DcgmEntity::kGpu; }
};

struct SeriesSummary {
  static constexpr size_t kMaxPoints = 8192;
  int64_t count = 0;
  int64_t first_ns = 0, last_ns = 0;
  int64_t out_of_order = 0;             // samples older than the previous one
  std::vector<int64_t> first_gaps_ns;   // up to 256 gaps between consecutive samples
  std::vector<std::pair<int64_t, double>> points;  // decimated: every `stride`-th sample
  int64_t stride = 1;

  void Add(int64_t ts_ns, double value);
  // Median gap between consecutive samples, ms; NaN with fewer than 2 samples.
  [[nodiscard]] double PeriodMs() const;
};

struct DcgmStore {
  std::map<SeriesKey, SeriesSummary> series;
  int64_t points = 0;
  void Add(const DcgmPoint& p);
};

// Adds the points of one read to a store, as DcgmStore::Add does, without building a key and
// searching the map for each point: it remembers, in a small table indexed by a hash of the
// point's key, the series recent points went to (a read's points cycle through few series). Valid
// while nothing but this adder changes the store's series: make one per read.
class DcgmAdder {
 public:
  explicit DcgmAdder(DcgmStore& store) : store_(store) {}
  void Add(const DcgmPoint& p);

 private:
  struct Slot {
    const SeriesKey* key = nullptr;
    SeriesSummary* summary = nullptr;
  };
  static constexpr size_t kSlots = 256;
  DcgmStore& store_;
  Slot slots_[kSlots];
};

// The `dcgmi discovery -c` row of a MIG instance sample or series that names no GPU (entity
// kGpuInstance / kComputeInstance, `gpu` < 0, `instance` = DCGM entity id); nullptr for any other,
// and when `mig` has no such row.
const formats::DcgmMigInstance* MigParent(const std::vector<formats::DcgmMigInstance>& mig, DcgmEntity entity,
                                          int gpu, int instance);

// Puts a dmon sample of a MIG instance on its GPU (as LinkMigSeries does its series); false, and `p`
// unchanged, when MigParent finds no row for it.
bool LinkMigPoint(const std::vector<formats::DcgmMigInstance>& mig, DcgmPoint* p);

// Attributes the series of `host`'s MIG instances that name no GPU (dmon's `GPU-I n` / `GPU-CI n`,
// keyed by DCGM entity id) to their GPU, through that host's `dcgmi discovery -c` rows `mig`: the
// key takes the GPU's DCGM entity id (the number of dmon's `GPU n` rows), NVML's GPU instance id
// and, for a compute instance, NVML's compute instance id. A series whose instance is not in `mig`,
// or whose new key is taken already, stays as it is. Returns the number of series moved.
int64_t LinkMigSeries(DcgmStore& store, const std::string& host, const std::vector<formats::DcgmMigInstance>& mig);

}  // namespace toposcope::model
