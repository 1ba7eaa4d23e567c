#include "toposcope/model/dcgm.h"

#include <algorithm>
#include <cmath>

#include "toposcope/base/text.h"

namespace toposcope::model {

namespace {
constexpr NamedValue<DcgmEntity> kEntityNames[] = {
    {DcgmEntity::kGpu, "gpu"},       {DcgmEntity::kGpuInstance, "gpu_instance"},
    {DcgmEntity::kComputeInstance, "compute_instance"}, {DcgmEntity::kSwitch, "switch"},
    {DcgmEntity::kCpu, "cpu"},       {DcgmEntity::kCpuCore, "cpu_core"},
    {DcgmEntity::kNic, "nic"},
};
}  // namespace

std::string_view DcgmEntityName(DcgmEntity e) { return NameIn(kEntityNames, e, "gpu"); }

void SeriesSummary::Add(int64_t ts_ns, double value) {
  if (count == 0) {
    first_ns = ts_ns;
  } else {
    if (ts_ns < last_ns) ++out_of_order;
    if (first_gaps_ns.size() < 256 && ts_ns > last_ns) first_gaps_ns.push_back(ts_ns - last_ns);
  }
  if (count % stride == 0) {
    points.emplace_back(ts_ns, value);
    if (points.size() >= kMaxPoints) {
      // Keep every other point and sample half as often from now on.
      size_t w = 0;
      for (size_t r = 0; r < points.size(); r += 2) points[w++] = points[r];
      points.resize(w);
      stride *= 2;
    }
  }
  last_ns = std::max(last_ns, ts_ns);
  ++count;
}

double SeriesSummary::PeriodMs() const {
  if (first_gaps_ns.empty()) return NAN;
  std::vector<int64_t> g = first_gaps_ns;
  std::nth_element(g.begin(), g.begin() + static_cast<std::ptrdiff_t>(g.size() / 2), g.end());
  return static_cast<double>(g[g.size() / 2]) / 1e6;
}

namespace {

SeriesKey SeriesKeyOf(const DcgmPoint& p) {
  return {p.host, p.gpu, p.link, p.field_id, p.field, p.entity, p.instance, p.compute_instance};
}

// True when `p` belongs to the series of `k` (the cheap fields first).
bool InSeries(const SeriesKey& k, const DcgmPoint& p) {
  return k.field_id == p.field_id && k.gpu == p.gpu && k.link == p.link && k.entity == p.entity &&
         k.instance == p.instance && k.compute_instance == p.compute_instance && k.host == p.host && k.field == p.field;
}

}  // namespace

void DcgmStore::Add(const DcgmPoint& p) {
  if (!std::isfinite(p.value)) return;
  series[SeriesKeyOf(p)].Add(p.ts_ns, p.value);
  ++points;
}

void DcgmAdder::Add(const DcgmPoint& p) {
  if (!std::isfinite(p.value)) return;
  uint64_t h = static_cast<uint64_t>(p.field_id) * 0x9E3779B97F4A7C15ull;
  for (const int v : {p.gpu, p.link, static_cast<int>(p.entity), p.instance, p.compute_instance}) {
    h = (h ^ static_cast<uint64_t>(static_cast<uint32_t>(v))) * 0x100000001B3ull;
  }
  h ^= p.host.size() * 31 + p.field.size();
  if (!p.field.empty()) h ^= static_cast<uint64_t>(static_cast<unsigned char>(p.field.back())) << 8;
  Slot& slot = slots_[(h ^ (h >> 29)) % kSlots];
  if (slot.key == nullptr || !InSeries(*slot.key, p)) {
    auto it = store_.series.try_emplace(SeriesKeyOf(p)).first;
    slot.key = &it->first;
    slot.summary = &it->second;
  }
  slot.summary->Add(p.ts_ns, p.value);
  ++store_.points;
}

const formats::DcgmMigInstance* MigParent(const std::vector<formats::DcgmMigInstance>& mig, DcgmEntity entity,
                                          int gpu, int instance) {
  const bool ci = entity == DcgmEntity::kComputeInstance;
  if ((!ci && entity != DcgmEntity::kGpuInstance) || gpu >= 0 || instance < 0) return nullptr;
  return formats::FindMigInstance(mig, ci ? formats::DcgmMigKind::kComputeInstance : formats::DcgmMigKind::kGpuInstance,
                                  instance);
}

bool LinkMigPoint(const std::vector<formats::DcgmMigInstance>& mig, DcgmPoint* p) {
  const formats::DcgmMigInstance* m = MigParent(mig, p->entity, p->gpu, p->instance);
  if (m == nullptr) return false;
  p->gpu = m->gpu_entity_id;
  p->instance = m->gpu_instance;
  p->compute_instance = m->compute_instance;
  return true;
}

int64_t LinkMigSeries(DcgmStore& store, const std::string& host, const std::vector<formats::DcgmMigInstance>& mig) {
  std::vector<std::pair<std::map<SeriesKey, SeriesSummary>::iterator, const formats::DcgmMigInstance*>> found;
  for (auto it = store.series.begin(); it != store.series.end(); ++it) {
    const SeriesKey& k = it->first;
    if (k.host != host) continue;
    if (const formats::DcgmMigInstance* m = MigParent(mig, k.entity, k.gpu, k.instance)) found.emplace_back(it, m);
  }
  int64_t moved = 0;
  for (const auto& [it, m] : found) {
    SeriesKey to = it->first;
    to.gpu = m->gpu_entity_id;
    to.instance = m->gpu_instance;
    to.compute_instance = m->compute_instance;
    if (store.series.count(to) != 0) continue;
    store.series.emplace(std::move(to), std::move(it->second));
    store.series.erase(it);
    ++moved;
  }
  return moved;
}

}  // namespace toposcope::model
