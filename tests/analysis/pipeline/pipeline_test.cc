// Tests of analysis/pipeline: the pass table's order and dependencies, the closure of a request,
// and the dumps: every pass's output survives a dump and load unchanged, and every pass run alone
// on the dumps of what it needs gives the same output as in the full run (so any pass can be run
// and tested without the raw inputs of the passes before it).
#include "toposcope/analysis/pipeline/pipeline.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "toposcope/analysis/analyze.h"

namespace toposcope::analysis {
namespace pipeline_test {

// Counts the merged events instead of writing them.
class CountingSink final : public TimelineSink {
 public:
  Status Open() override {
    ++opened;
    return {};
  }
  void Write(const MergedEvent&) override { ++events; }
  Status Close() override { return {}; }
  [[nodiscard]] std::string path() const override { return "<memory>"; }
  int opened = 0;
  int64_t events = 0;
};

// Inputs that reach every pass: our testdata (QP state logs, probes, captures, NCCL logs, DCGM,
// sync records, fabric dumps, inventory) and real node files, traces and chrony logs.
std::vector<std::string> Inputs() {
  const std::string f = TOPOSCOPE_FIXTURES;
  return {TOPOSCOPE_TESTDATA, f + "/nvidia_smi_topo", f + "/cuda_p2p", f + "/kineto_trace", f + "/chrony"};
}

struct FullRun {
  std::map<std::string, std::string> dumps;  // pass name -> dump text
  PipelineRun run;
};

const FullRun& Full() {
  static const FullRun full = [] {
    FullRun out;
    PipelineOptions po;
    po.paths = Inputs();
    CountingSink sink;
    po.timeline = &sink;
    po.write_dump = [&out](std::string_view pass, const std::string& text) {
      out.dumps[std::string(pass)] = text;
      return Status();
    };
    PipelineState state;
    auto run = RunPipeline(po, &state);
    EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.error().ToString());
    if (run.ok()) out.run = *run;
    return out;
  }();
  return full;
}

TEST(Pipeline, PassesRunInDependencyOrder) {
  ASSERT_EQ(Passes().size(), static_cast<size_t>(kPassCount));
  std::set<std::string> names;
  for (size_t i = 0; i < Passes().size(); ++i) {
    const PassInfo& p = Passes()[i];
    EXPECT_EQ(static_cast<size_t>(p.id), i);
    EXPECT_TRUE(names.insert(std::string(p.name)).second) << p.name;
    EXPECT_EQ(PassFromName(p.name), p.id);
    for (PassId n : p.needs) EXPECT_LT(static_cast<int>(n), static_cast<int>(p.id)) << p.name;
  }
  EXPECT_FALSE(PassFromName("no-such-pass").has_value());
}

TEST(Pipeline, ClosureHoldsWhatAPassNeeds) {
  const std::vector<PassId> c = PassClosure({PassId::kArchitecture});
  const std::vector<PassId> want = {PassId::kLoad, PassId::kFabric, PassId::kRdma, PassId::kArchitecture};
  EXPECT_EQ(c, want);
  const std::vector<PassId> t = PassClosure({PassId::kTelemetry});
  const std::vector<PassId> want_t = {PassId::kLoad, PassId::kClocks, PassId::kAnchors, PassId::kTelemetry};
  EXPECT_EQ(t, want_t);
}

TEST(Pipeline, FullRunProducesAndMeasuresEveryPass) {
  const FullRun& full = Full();
  ASSERT_EQ(full.run.passes.size(), static_cast<size_t>(kPassCount));
  for (const PassStats& st : full.run.passes) {
    EXPECT_EQ(PassSourceName(st.source), "run") << PassName(st.id);
    EXPECT_GE(st.wall_s, 0) << PassName(st.id);
    EXPECT_GT(st.peak_rss_bytes, 0) << PassName(st.id);
    EXPECT_TRUE(full.dumps.count(std::string(PassName(st.id)))) << PassName(st.id);
  }
  // The inputs reach the streaming passes.
  EXPECT_GT(full.run.passes[static_cast<size_t>(PassId::kLoad)].records_in, 0);
  EXPECT_GT(full.run.passes[static_cast<size_t>(PassId::kPatterns)].records_in, 0);
  EXPECT_GT(full.run.passes[static_cast<size_t>(PassId::kRdma)].records_in, 0);
  EXPECT_GT(full.run.passes[static_cast<size_t>(PassId::kTimeline)].records_in, 0);
}

TEST(Pipeline, EveryDumpLoadsBackUnchanged) {
  for (const auto& [name, text] : Full().dumps) {
    const PassId id = *PassFromName(name);
    PipelineState state;
    ASSERT_TRUE(LoadPass(text, name, id, &state).ok()) << name;
    auto again = DumpPass(state, id);
    ASSERT_TRUE(again.ok()) << name;
    EXPECT_EQ(*again, text) << name;
  }
}

TEST(Pipeline, EachPassAloneFromTheDumpsOfWhatItNeeds) {
  const FullRun& full = Full();
  for (const PassInfo& p : Passes()) {
    PipelineOptions po;
    CountingSink sink;
    po.timeline = &sink;
    po.only = {p.id};
    po.paths = p.id == PassId::kLoad ? Inputs() : std::vector<std::string>{};  // no raw inputs but for load
    std::set<std::string> loaded;
    po.read_dump = [&](std::string_view pass) -> Result<std::optional<std::string>> {
      loaded.insert(std::string(pass));
      auto it = full.dumps.find(std::string(pass));
      if (it == full.dumps.end()) return std::optional<std::string>();
      return std::optional<std::string>(it->second);
    };
    PipelineState state;
    auto run = RunPipeline(po, &state);
    ASSERT_TRUE(run.ok()) << p.name << ": " << run.error().ToString();
    // Exactly the passes it needs came from the dumps; the pass itself ran.
    std::set<std::string> needs;
    for (PassId id : PassClosure({p.id})) {
      if (id != p.id) needs.insert(std::string(PassName(id)));
    }
    EXPECT_EQ(loaded, needs) << p.name;
    ASSERT_EQ(run->passes.back().id, p.id);
    EXPECT_EQ(PassSourceName(run->passes.back().source), "run");
    auto text = DumpPass(state, p.id);
    ASSERT_TRUE(text.ok()) << p.name;
    EXPECT_EQ(*text, full.dumps.at(std::string(p.name))) << p.name << " differs when run from the dumps";
  }
}

TEST(Pipeline, ResultFromDumpsEqualsTheDirectResult) {
  const FullRun& full = Full();
  PipelineState direct;
  PipelineOptions po;
  po.paths = Inputs();
  ASSERT_TRUE(RunPipeline(po, &direct).ok());
  PipelineState loaded;
  for (const auto& [name, text] : full.dumps) {
    if (name == "timeline") continue;
    ASSERT_TRUE(LoadPass(text, name, *PassFromName(name), &loaded).ok()) << name;
  }
  const AnalysisResult a = AssembleResult(direct, {});
  const AnalysisResult b = AssembleResult(loaded, {});
  EXPECT_EQ(a.diagnostics, b.diagnostics);
  EXPECT_EQ(a.rejected_total, b.rejected_total);
  EXPECT_EQ(a.inputs.size(), b.inputs.size());
  for (PassId id : PassClosure({PassId::kArchitecture, PassId::kTrafficMatrix, PassId::kTelemetry,
                                PassId::kConfidence, PassId::kIslands, PassId::kLinkWeights, PassId::kPatterns,
                                PassId::kPaths})) {
    EXPECT_EQ(*DumpPass(direct, id), *DumpPass(loaded, id)) << PassName(id);
  }
}

TEST(Pipeline, BadDumpsAreErrorsNotCrashes) {
  PipelineState state;
  EXPECT_FALSE(LoadPass("{not json", "x", PassId::kLinks, &state).ok());
  EXPECT_FALSE(LoadPass("{\"a\": 1}", "x", PassId::kLinks, &state).ok());  // an object, not a list
  EXPECT_FALSE(LoadPass("[{\"lanes\": \"many\"}]", "x", PassId::kLinks, &state).ok());
  const Status st = LoadPass("[{\"lanes\": \"many\"}]", "links dump", PassId::kLinks, &state);
  EXPECT_NE(st.error().ToString().find("links dump"), std::string::npos) << st.error().ToString();
  EXPECT_NE(st.error().ToString().find("lanes"), std::string::npos) << st.error().ToString();
  EXPECT_FALSE(DumpPass(state, PassId::kFabric).ok());  // nothing to dump
  PipelineOptions po;  // no paths, no dataset, no dumps
  po.only = {PassId::kLinks};
  PipelineState empty;
  EXPECT_FALSE(RunPipeline(po, &empty).ok());
}

}  // namespace pipeline_test
}  // namespace toposcope::analysis
