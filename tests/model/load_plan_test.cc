// The loader in steps (model/load_plan) and the part bytes (model/dataset_wire): a load split into
// chunk ranges, read with any number of threads and merged in any grouping or order, gives the
// data set one sequential read gives, byte for byte in its dump.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "toposcope/model/dataset_json.h"
#include "toposcope/model/dataset_wire.h"
#include "toposcope/model/load_plan.h"

namespace load_plan_test {

using namespace toposcope;
using namespace toposcope::model;

// Every real fixture and every test file: many hosts and formats, DCGM, MIG rows, rejected lines.
std::vector<std::string> Roots() { return {TOPOSCOPE_FIXTURES, TOPOSCOPE_TESTDATA}; }

std::string Dump(const Dataset& ds) { return DatasetToJsonText(ds); }

LoadPlan Plan() {
  Result<LoadPlan> plan = PlanLoad(Roots());
  EXPECT_TRUE(plan.ok());
  return plan.ok() ? *plan : LoadPlan{};
}

TEST(LoadPlan, ChunksFollowTheDefaultHost) {
  const LoadPlan plan = Plan();
  ASSERT_GT(plan.chunks(), 10u);
  for (size_t k = 0; k < plan.chunks(); ++k) {
    const std::string& host = plan.inputs[plan.chunk_begin[k]].host;
    for (size_t i = plan.chunk_begin[k]; i < plan.ChunkEnd(k); ++i) EXPECT_EQ(plan.inputs[i].host, host);
    if (k > 0 && !host.empty()) {
      EXPECT_NE(plan.inputs[plan.chunk_begin[k] - 1].host, host);
    }
  }
}

TEST(LoadPlan, ThreadsDoNotChangeTheDataSet) {
  const LoadPlan plan = Plan();
  const std::string one = Dump(FinishLoad(LoadChunks(plan, 0, plan.chunks(), {}, nullptr, 1)));
  const std::string four = Dump(FinishLoad(LoadChunks(plan, 0, plan.chunks(), {}, nullptr, 4)));
  EXPECT_EQ(one, four);
  Result<Dataset> whole = LoadPaths(Roots(), {});
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(one, Dump(*whole));
}

TEST(LoadPlan, MergeIsAssociativeAndCommutative) {
  const LoadPlan plan = Plan();
  const size_t n = plan.chunks();
  const size_t a = n / 3, b = 2 * n / 3;
  const auto part = [&](size_t lo, size_t hi) { return LoadChunks(plan, lo, hi, {}, nullptr, 1); };
  const std::string whole = Dump(FinishLoad(part(0, n)));
  // (p1 + p2) + p3
  LoadedPart left = part(0, a);
  ASSERT_TRUE(MergeParts(left, part(a, b)).ok());
  ASSERT_TRUE(MergeParts(left, part(b, n)).ok());
  EXPECT_EQ(left.first_chunk, 0u);
  EXPECT_EQ(left.end_chunk, n);
  EXPECT_EQ(Dump(FinishLoad(std::move(left))), whole);
  // p1 + (p2 + p3), each merge handed the higher range first
  LoadedPart right = part(b, n);
  ASSERT_TRUE(MergeParts(right, part(a, b)).ok());
  LoadedPart all = part(0, a);
  ASSERT_TRUE(MergeParts(right, std::move(all)).ok());
  EXPECT_EQ(Dump(FinishLoad(std::move(right))), whole);
  // One chunk at a time, from the last to the first.
  LoadedPart backwards = part(n - 1, n);
  for (size_t k = n - 1; k-- > 0;) ASSERT_TRUE(MergeParts(backwards, part(k, k + 1)).ok());
  EXPECT_EQ(Dump(FinishLoad(std::move(backwards))), whole);
}

TEST(LoadPlan, PartsThatAreNotAdjacentDoNotMerge) {
  const LoadPlan plan = Plan();
  LoadedPart first = LoadChunks(plan, 0, 1, {}, nullptr, 1);
  const Status st = MergeParts(first, LoadChunks(plan, 2, 3, {}, nullptr, 1));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("not adjacent"), std::string::npos);
}

TEST(LoadPlan, InputsSkippedForTheirContentWeighNothingWhenSniffed) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("load_plan_weights_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "node-a");
  fs::create_directories(dir / "node-b");
  const auto write = [](const fs::path& p, const std::string& text) { std::ofstream(p) << text; };
  // A simulator's ground truth and a file of no known format, each larger than the host's data.
  write(dir / "node-a" / "truth.json", "{\"schema\": \"toposcope.truth/1\", \"pad\": \"" + std::string(20000, 'x') + "\"}\n");
  write(dir / "node-a" / "notes.txt", std::string(30000, 'z') + "\n");
  const std::string fixture = std::string(TOPOSCOPE_FIXTURES) + "/nvidia_smi_topo/dgx_a100_8gpu_nv12_12nic_mlx5_rows.txt";
  ASSERT_TRUE(fs::exists(fixture)) << fixture;
  fs::copy_file(fixture, dir / "node-b" / "topo.txt");
  Result<LoadPlan> plan = PlanLoad({dir.string()});
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->chunks(), 2u);
  const int64_t topo_bytes = static_cast<int64_t>(fs::file_size(dir / "node-b" / "topo.txt"));
  // Sniffed (every input of at least 1 byte): node-a's unread files weigh nothing.
  EXPECT_EQ(ChunkReadBytes(*plan, 1), (std::vector<int64_t>{0, topo_bytes}));
  // Not sniffed (none that large): every input weighs its size.
  EXPECT_EQ(ChunkReadBytes(*plan, int64_t{1} << 40), (std::vector<int64_t>{plan->ChunkBytes(0), topo_bytes}));
  EXPECT_GT(plan->ChunkBytes(0), 50000);
  fs::remove_all(dir);
}

TEST(LoadPlan, AMissingPathFailsThePlan) {
  Result<LoadPlan> plan = PlanLoad({"/nonexistent/toposcope"});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().ToString().find("no such file"), std::string::npos);
}

TEST(MergeSeriesSummary, CountsAndTheSeamAsOneSeries) {
  SeriesSummary a, b, whole;
  for (int i = 0; i < 10; ++i) {
    a.Add(i * 100, i);
    whole.Add(i * 100, i);
  }
  for (int i = 10; i < 20; ++i) {
    b.Add(i * 100, i);
    whole.Add(i * 100, i);
  }
  MergeSeriesSummary(a, std::move(b));
  EXPECT_EQ(a.count, whole.count);
  EXPECT_EQ(a.first_ns, whole.first_ns);
  EXPECT_EQ(a.last_ns, whole.last_ns);
  EXPECT_EQ(a.out_of_order, 0);
  EXPECT_EQ(a.first_gaps_ns, whole.first_gaps_ns);
  EXPECT_EQ(a.points, whole.points);
  // A later part that starts before the earlier one ended counts one sample out of order.
  SeriesSummary c, d;
  c.Add(1000, 1);
  d.Add(500, 2);
  MergeSeriesSummary(c, std::move(d));
  EXPECT_EQ(c.out_of_order, 1);
  EXPECT_EQ(c.count, 2);
}

TEST(MergeSeriesSummary, LongSeriesStayBounded) {
  SeriesSummary a, b;
  for (int64_t i = 0; i < 3 * static_cast<int64_t>(SeriesSummary::kMaxPoints); ++i) a.Add(i, 1.0);
  for (int64_t i = 0; i < 1000; ++i) b.Add(1'000'000 + i, 2.0);
  MergeSeriesSummary(a, std::move(b));
  EXPECT_LT(a.points.size(), SeriesSummary::kMaxPoints);
  EXPECT_EQ(a.count, 3 * static_cast<int64_t>(SeriesSummary::kMaxPoints) + 1000);
  EXPECT_EQ(a.points.back().second, 2.0);
}

TEST(DcgmAdder, FillsTheStoreAsAddDoes) {
  // More series than the adder's table has slots, points interleaved across them, samples that are
  // not numbers (skipped), keys that differ only in the host, the field name, the link or the MIG
  // instance: the same store, point for point, as DcgmStore::Add builds.
  std::vector<DcgmPoint> points;
  for (int t = 0; t < 6; ++t) {
    for (const char* host : {"a", "b", "node-0001.cluster.example"}) {
      for (int gpu = 0; gpu < 8; ++gpu) {
        for (int f = 0; f < 14; ++f) {
          DcgmPoint p;
          p.host = host;
          p.gpu = gpu;
          p.field_id = f < 12 ? 1000 + f : -1;
          p.field = f < 12 ? "DCGM_FI_FIELD_" + std::to_string(f) : (f == 12 ? "NVLTX" : "nvltx");
          p.link = f % 3 == 0 ? t % 2 : -1;
          p.instance = f == 5 ? t % 3 : -1;
          p.ts_ns = int64_t{t} * 100'000'000 + gpu;
          p.value = (f == 7 && t == 2) ? NAN : t * 10.0 + f;
          points.push_back(p);
        }
      }
    }
  }
  DcgmStore by_add, by_adder;
  for (const DcgmPoint& p : points) by_add.Add(p);
  DcgmAdder adder(by_adder);
  for (const DcgmPoint& p : points) adder.Add(p);
  ASSERT_GT(by_add.series.size(), 256u);
  EXPECT_EQ(by_adder.points, by_add.points);
  ASSERT_EQ(by_adder.series.size(), by_add.series.size());
  for (auto a = by_add.series.begin(), b = by_adder.series.begin(); a != by_add.series.end(); ++a, ++b) {
    EXPECT_FALSE(a->first < b->first || b->first < a->first);
    EXPECT_EQ(b->second.count, a->second.count);
    EXPECT_EQ(b->second.points, a->second.points);
    EXPECT_EQ(b->second.first_gaps_ns, a->second.first_gaps_ns);
    EXPECT_EQ(b->second.out_of_order, a->second.out_of_order);
  }
}

TEST(DatasetWire, RoundTripsAPart) {
  const LoadPlan plan = Plan();
  const LoadedPart part = LoadChunks(plan, 0, plan.chunks(), {}, nullptr, 1);
  const std::string bytes = PartToWire(part);
  Result<LoadedPart> back = PartFromWire(bytes, "test");
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_EQ(back->first_chunk, part.first_chunk);
  EXPECT_EQ(back->end_chunk, part.end_chunk);
  EXPECT_EQ(back->untimed.size(), part.untimed.size());
  EXPECT_EQ(back->dmon_mig.size(), part.dmon_mig.size());
  EXPECT_EQ(Dump(back->ds), Dump(part.ds));
  EXPECT_EQ(PartToWire(*back), bytes);
}

TEST(DatasetWire, PackedTracesKeepEveryBit) {
  // Times that step back, jump by most of the int64 range and repeat; values that repeat, change
  // sign, are not numbers, infinite or subnormal: each comes back with the same bits.
  LoadedPart part;
  part.end_chunk = 1;
  SeriesKey key;
  key.host = "h";
  key.gpu = 0;
  key.field = "DCGM_FI_DEV_POWER_USAGE";
  SeriesSummary& s = part.ds.dcgm.series[key];
  const int64_t big = std::numeric_limits<int64_t>::max();
  const std::vector<int64_t> times = {0, 1'000'000'000, 2'000'000'000, 3'000'000'000, 2'500'000'000, -big,
                                      big, big, std::numeric_limits<int64_t>::min(), 42};
  const std::vector<double> values = {297.564, 297.564, -0.0, 0.0, std::nan("0x123"), INFINITY,
                                      -INFINITY, 5e-324, 68.0, 69.0};
  for (size_t k = 0; k < times.size(); ++k) s.points.emplace_back(times[k], values[k]);
  s.count = static_cast<int64_t>(times.size());
  const std::string bytes = PartToWire(part);
  Result<LoadedPart> back = PartFromWire(bytes, "test");
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  ASSERT_EQ(back->ds.dcgm.series.size(), 1u);
  const auto& pts = back->ds.dcgm.series.begin()->second.points;
  ASSERT_EQ(pts.size(), times.size());
  for (size_t k = 0; k < times.size(); ++k) {
    EXPECT_EQ(pts[k].first, times[k]) << k;
    uint64_t want = 0, got = 0;
    std::memcpy(&want, &values[k], 8);
    std::memcpy(&got, &pts[k].second, 8);
    EXPECT_EQ(got, want) << k;
  }
  EXPECT_EQ(PartToWire(*back), bytes);
  // A regular trace of integer readings packs to a few bytes a point.
  LoadedPart regular;
  regular.end_chunk = 1;
  SeriesSummary& r = regular.ds.dcgm.series[key];
  for (int k = 0; k < 1000; ++k) r.points.emplace_back(int64_t{k} * 100'000'000, 60.0 + k % 5);
  r.count = 1000;
  LoadedPart empty;
  empty.end_chunk = 1;
  empty.ds.dcgm.series[key];
  EXPECT_LT(PartToWire(regular).size(), PartToWire(empty).size() + 4000);
}

TEST(DatasetWire, CutOrForeignBytesFailWithTheirSource) {
  const LoadPlan plan = Plan();
  const std::string bytes = PartToWire(LoadChunks(plan, 0, plan.chunks(), {}, nullptr, 1));
  for (const size_t cut : {size_t{4}, size_t{20}, bytes.size() / 2, bytes.size() - 1}) {
    Result<LoadedPart> back = PartFromWire(std::string_view(bytes).substr(0, cut), "rank 7");
    ASSERT_FALSE(back.ok()) << cut;
    EXPECT_NE(back.error().ToString().find("rank 7"), std::string::npos);
  }
  EXPECT_FALSE(PartFromWire("not a part at all", "x").ok());
}

}  // namespace load_plan_test
