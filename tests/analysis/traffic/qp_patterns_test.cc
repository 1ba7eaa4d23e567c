// Tests of the QP state-flow pattern analysis: window features (entropy, the seed's ratio with a
// zero denominator), and the classifier on synthetic AllReduce, pipeline and mixed jobs from a
// small generator (AllReduce: job-wide periodic re-creation batches; pipeline: re-creations
// staggered by stage), with accuracy >= 0.99 and deterministic k-means.
#include "toposcope/analysis/traffic/qp_patterns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace toposcope::analysis {
namespace qp_patterns_test {

using formats::QpState;
using formats::QpStateRecord;

constexpr int64_t kMs = 1'000'000;

struct Gen {
  std::mt19937_64 rng;
  std::vector<QpStateRecord> out;
  std::map<std::pair<std::string, uint32_t>, std::string> truth;  // (host, qp) -> class
  uint32_t next_qp = 100;

  explicit Gen(uint64_t seed) : rng(seed) {}
  double U(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }

  void Rec(int64_t ts, const std::string& host, uint32_t qp, const std::string& job, QpState f, QpState t) {
    QpStateRecord r;
    r.ts_ns = ts;
    r.host = host;
    r.qp = qp;
    r.job = job;
    r.from = f;
    r.to = t;
    r.legal = formats::IsLegalQpTransition(f, t);
    out.push_back(r);
  }
  // RESET->INIT->RTR->RTS, 50 µs apart, optionally preceded by RTS->ERR->RESET.
  void Cycle(int64_t t, const std::string& host, uint32_t qp, const std::string& job, bool from_rts) {
    if (from_rts) {
      Rec(t, host, qp, job, QpState::kRts, QpState::kErr);
      t += 30'000;
      Rec(t, host, qp, job, QpState::kErr, QpState::kReset);
      t += 30'000;
    }
    Rec(t, host, qp, job, QpState::kReset, QpState::kInit);
    Rec(t + 50'000, host, qp, job, QpState::kInit, QpState::kRtr);
    Rec(t + 100'000, host, qp, job, QpState::kRtr, QpState::kRts);
  }
  // An AllReduce job: every QP is re-created in job-wide batches each period (batch jitter 2 ms).
  void AllReduce(const std::string& job, const std::vector<std::string>& hosts, int qps_per_host, int64_t t0,
                 int64_t period, int batches) {
    std::vector<std::pair<std::string, uint32_t>> qps;
    for (const auto& h : hosts) {
      for (int i = 0; i < qps_per_host; ++i) qps.emplace_back(h, next_qp++);
    }
    for (const auto& [h, q] : qps) {
      truth[{h, q}] = "allreduce";
      Cycle(t0 + static_cast<int64_t>(U(0, 2) * kMs), h, q, job, false);
    }
    for (int b = 1; b <= batches; ++b) {
      const int64_t tb = t0 + b * period + static_cast<int64_t>(U(-3, 3) * kMs);
      for (const auto& [h, q] : qps) Cycle(tb + static_cast<int64_t>(U(0, 2) * kMs), h, q, job, true);
    }
  }
  // A pipeline job: stage s re-creates its QPs at phase s * period / stages (jitter 1 ms), with
  // occasional drains (RTS->SQD->RTS) in between.
  void Pipeline(const std::string& job, const std::vector<std::string>& hosts, int qps_per_stage, int64_t t0,
                int64_t period, int rounds) {
    const int stages = static_cast<int>(hosts.size());
    for (int s = 0; s < stages; ++s) {
      for (int i = 0; i < qps_per_stage; ++i) {
        const uint32_t q = next_qp++;
        const std::string& h = hosts[static_cast<size_t>(s)];
        truth[{h, q}] = "pipeline";
        Cycle(t0 + static_cast<int64_t>(U(0, 2) * kMs), h, q, job, false);
        const int64_t phase = period * s / stages;
        for (int r = 1; r <= rounds; ++r) {
          const int64_t t = t0 + r * period + phase + static_cast<int64_t>(U(0, 1) * kMs);
          Cycle(t, h, q, job, true);
          if (U(0, 1) < 0.3) {
            Rec(t + period / 3, h, q, job, QpState::kRts, QpState::kSqd);
            Rec(t + period / 3 + 200'000, h, q, job, QpState::kSqd, QpState::kRts);
          }
        }
      }
    }
  }
};

std::vector<std::string> Hosts(const std::string& prefix, int n) {
  std::vector<std::string> h;
  for (int i = 0; i < n; ++i) h.push_back(prefix + std::to_string(i));
  return h;
}

QpPatternResult Classify(const std::vector<QpStateRecord>& recs, QpPatternOptions o = {}) {
  QpPatternAccumulator acc(o);
  for (const auto& r : recs) acc.Add(r);
  return acc.Finish();
}

const PatternReport* Find(const QpPatternResult& r, const std::string& scope) {
  for (const auto& p : r.patterns) {
    if (p.scope == scope) return &p;
  }
  return nullptr;
}

TEST(QpPatterns, WindowFeatures) {
  QpTransitionMatrix m{};
  EXPECT_EQ(QpStateEntropyBits(m), 0.0);
  m[6][0] = 2;  // ERR->RESET
  EXPECT_EQ(QpStateEntropyBits(m), 0.0);
  bool defined = true;
  EXPECT_EQ(QpResetDensity(m, -1.0, &defined), -1.0);  // x/0: documented value, no division
  EXPECT_FALSE(defined);
  m[3][4] = 4;  // RTS->SQD
  EXPECT_DOUBLE_EQ(QpResetDensity(m, -1.0, &defined), 0.5);
  EXPECT_TRUE(defined);
  EXPECT_NEAR(QpStateEntropyBits(m), 0.918296, 1e-6);  // p = 1/3, 2/3
  // Four equal transitions: 2 bits.
  QpTransitionMatrix c{};
  c[0][1] = c[1][2] = c[2][3] = c[3][6] = 1;
  EXPECT_DOUBLE_EQ(QpStateEntropyBits(c), 2.0);
}

TEST(QpPatterns, WindowsFromAccumulator) {
  Gen g(1);
  g.Cycle(5 * kMs, "h", 7, "", false);        // window 0
  g.Cycle(25 * kMs, "h", 7, "", true);        // window 2
  QpPatternAccumulator acc;
  for (const auto& r : g.out) acc.Add(r);
  const auto w = acc.Windows();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].window_start_ns, 0);
  EXPECT_EQ(w[1].window_start_ns, 20 * kMs);
  EXPECT_EQ(w[1].transitions[6][0], 1u);
  EXPECT_FALSE(w[1].ratio_defined);
  EXPECT_EQ(w[1].reset_density, -1.0);
  EXPECT_NEAR(w[0].state_entropy, std::log2(3.0), 1e-12);
  EXPECT_NEAR(w[1].state_entropy, std::log2(5.0), 1e-12);
}

TEST(QpPatterns, PureJobsAndTheSeedsFeatureSaysNothing) {
  Gen g(7);
  g.AllReduce("ar", Hosts("a", 8), 4, 1'000 * kMs, 200 * kMs, 10);
  g.Pipeline("pp", Hosts("p", 16), 2, 1'000 * kMs, 200 * kMs, 10);
  const QpPatternResult r = Classify(g.out);
  ASSERT_NE(Find(r, "job:ar"), nullptr);
  EXPECT_EQ(PatternClassName(Find(r, "job:ar")->cls), "allreduce") << Find(r, "job:ar")->evidence;
  EXPECT_EQ(PatternClassName(Find(r, "job:pp")->cls), "pipeline") << Find(r, "job:pp")->evidence;
  EXPECT_EQ(PatternClassName(Find(r, "host:a0")->cls), "allreduce");
  EXPECT_EQ(PatternClassName(Find(r, "host:p3")->cls), "pipeline");
  EXPECT_EQ(PatternClassName(Find(r, "all")->cls), "mixed");
  EXPECT_EQ(Find(r, "job:ar")->qps, 32);
  // AllReduce: no RTS->SQD at all -> undefined ratio, reported as the documented -1.
  const PatternReport& ar = *Find(r, "job:ar");
  EXPECT_FALSE(ar.reset_density_defined);
  EXPECT_EQ(ar.reset_density, -1.0);
  EXPECT_FALSE(ar.seed_feature_informative);
  EXPECT_EQ(SeedPatternClassName(ar.seed_cls), "unclassified");
  EXPECT_NE(ar.evidence.find("carries no information"), std::string::npos);
  std::printf("note: %s\n%s: %s\n%s: %s\n", r.note.c_str(), ar.scope.c_str(), ar.evidence.c_str(),
              Find(r, "job:pp")->scope.c_str(), Find(r, "job:pp")->evidence.c_str());
  EXPECT_EQ(r.feature_quantiles.size(), 5u);
  EXPECT_EQ(r.feature_quantiles[0].first, "window_state_entropy_bits");
  EXPECT_NE(r.note.find("RTS->SQD seen in only"), std::string::npos) << r.note;
  // The measured distributions, printed beside the seed's thresholds (for the record).
  for (const auto& [name, q] : r.feature_quantiles) {
    std::printf("%-30s min %.3f q25 %.3f median %.3f q75 %.3f max %.3f\n", name.c_str(), q[0], q[1], q[2], q[3], q[4]);
  }

  // Per-QP accuracy.
  int64_t right = 0, total = 0;
  for (const auto& q : r.qps) {
    ++total;
    right += QpClassName(q.cls) == g.truth.at({q.host, q.qp});
  }
  EXPECT_EQ(right, total);
  EXPECT_EQ(total, 64);
  int64_t clustered = 0;
  for (const int s : r.cluster_sizes) clustered += s;
  EXPECT_EQ(clustered, 64);

  // Without any drain in the log, the note says the seed's ratio is never defined.
  Gen only_ar(3);
  only_ar.AllReduce("ar", Hosts("a", 4), 2, 0, 100 * kMs, 5);
  const QpPatternResult r2 = Classify(only_ar.out);
  EXPECT_NE(r2.note.find("RTS->SQD never seen"), std::string::npos) << r2.note;
  EXPECT_NE(r2.note.find("carries no information"), std::string::npos);
  EXPECT_EQ(r2.windows_ratio_defined, 0);
  EXPECT_EQ(PatternClassName(Find(r2, "all")->cls), "allreduce");
}

TEST(QpPatterns, MixedHostsAndUnlabelledJobs) {
  Gen g(11);
  // Hosts m0..m3 carry both an AllReduce job and a pipeline stage.
  std::vector<std::string> shared = Hosts("m", 4);
  g.AllReduce("", shared, 4, 0, 250 * kMs, 8);
  std::vector<std::string> pp_hosts = shared;
  for (const auto& h : Hosts("q", 8)) pp_hosts.push_back(h);
  g.Pipeline("", pp_hosts, 2, 0, 330 * kMs, 8);  // another period: it meets the batches rarely
  const QpPatternResult r = Classify(g.out);
  EXPECT_EQ(PatternClassName(Find(r, "host:m1")->cls), "mixed") << Find(r, "host:m1")->evidence;
  EXPECT_EQ(PatternClassName(Find(r, "host:q5")->cls), "pipeline");
  EXPECT_EQ(Find(r, "job:"), nullptr);  // no job names: scopes are hosts and "all"
  for (const auto& q : r.qps) EXPECT_EQ(QpClassName(q.cls), g.truth.at({q.host, q.qp})) << q.host << " " << q.qp;
}

TEST(QpPatterns, AccuracyOnRandomScenarios) {
  int64_t right = 0, total = 0, scopes_right = 0, scopes = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Gen g(seed);
    std::mt19937_64 rng(seed * 977);
    auto pick = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
    const int64_t period_ar = pick(120, 400) * kMs, period_pp = pick(200, 400) * kMs;
    const std::string tag = std::to_string(seed);
    std::map<std::string, std::string> job_truth;
    const int kind = static_cast<int>(seed % 3);  // 0 allreduce, 1 pipeline, 2 both jobs
    if (kind != 1) {
      g.AllReduce("ar" + tag, Hosts("a" + tag + "-", pick(4, 12)), pick(2, 8), pick(0, 50) * kMs, period_ar, pick(4, 12));
      job_truth["job:ar" + tag] = "allreduce";
    }
    if (kind != 0) {
      g.Pipeline("pp" + tag, Hosts("p" + tag + "-", pick(8, 16)), pick(1, 4), pick(0, 50) * kMs, period_pp, pick(4, 12));
      job_truth["job:pp" + tag] = "pipeline";
    }
    const QpPatternResult r = Classify(g.out);
    for (const auto& q : r.qps) {
      ++total;
      right += QpClassName(q.cls) == g.truth.at({q.host, q.qp});
    }
    for (const auto& [scope, cls] : job_truth) {
      ++scopes;
      const PatternReport* p = Find(r, scope);
      ASSERT_NE(p, nullptr);
      scopes_right += PatternClassName(p->cls) == cls;
    }
    int64_t n_ar = 0;
    for (const auto& [k, v] : g.truth) n_ar += v == "allreduce";
    const double share = static_cast<double>(n_ar) / static_cast<double>(g.truth.size());
    const std::string all = share >= 0.8 ? "allreduce" : share <= 0.2 ? "pipeline" : "mixed";
    ++scopes;
    scopes_right += PatternClassName(Find(r, "all")->cls) == all;
  }
  const double acc = static_cast<double>(right) / static_cast<double>(total);
  EXPECT_GE(acc, 0.99) << right << "/" << total;
  EXPECT_EQ(scopes_right, scopes);
  std::printf("QP accuracy %.4f (%lld QPs), scope accuracy %lld/%lld\n", acc, static_cast<long long>(total),
              static_cast<long long>(scopes_right), static_cast<long long>(scopes));
}

// The same scenarios with the job column blank (as real QP state logs are): the peer groups come
// from the data (hosts whose re-creations meet) and the QP labels hold.
TEST(QpPatterns, AccuracyWithoutJobNames) {
  int64_t right = 0, total = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Gen g(seed);
    std::mt19937_64 rng(seed * 977);
    auto pick = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
    const int64_t period_ar = pick(120, 400) * kMs, period_pp = pick(200, 400) * kMs;
    const std::string tag = std::to_string(seed);
    const int kind = static_cast<int>(seed % 3);  // 0 allreduce, 1 pipeline, 2 both jobs
    if (kind != 1) g.AllReduce("", Hosts("a" + tag + "-", pick(4, 12)), pick(2, 8), pick(0, 50) * kMs, period_ar, pick(4, 12));
    if (kind != 0) g.Pipeline("", Hosts("p" + tag + "-", pick(8, 16)), pick(1, 4), pick(0, 50) * kMs, period_pp, pick(4, 12));
    const QpPatternResult r = Classify(g.out);
    EXPECT_EQ(Find(r, "job:"), nullptr);
    for (const auto& q : r.qps) {
      ++total;
      right += QpClassName(q.cls) == g.truth.at({q.host, q.qp});
      EXPECT_EQ(q.peer_group.rfind("hosts:", 0), 0u) << q.peer_group;
    }
    if (kind != 1) {
      EXPECT_NE(r.note.find("found from co-timed re-creations"), std::string::npos) << r.note;
    }
  }
  const double acc = static_cast<double>(right) / static_cast<double>(total);
  EXPECT_GE(acc, 0.99) << right << "/" << total;
  std::printf("QP accuracy without job names %.4f (%lld QPs)\n", acc, static_cast<long long>(total));
}

TEST(QpPatterns, KMeansDeterministicForASeedAndRecordOrderFree) {
  Gen g(5);
  g.AllReduce("ar", Hosts("a", 6), 3, 0, 200 * kMs, 6);
  g.Pipeline("pp", Hosts("p", 10), 2, 0, 200 * kMs, 6);
  const QpPatternResult a = Classify(g.out);
  std::vector<QpStateRecord> shuffled = g.out;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(99));
  const QpPatternResult b = Classify(shuffled);
  EXPECT_EQ(a.cluster_sizes, b.cluster_sizes);
  ASSERT_EQ(a.qps.size(), b.qps.size());
  for (size_t i = 0; i < a.qps.size(); ++i) {
    EXPECT_EQ(a.qps[i].cluster, b.qps[i].cluster);
    EXPECT_EQ(a.qps[i].cls, b.qps[i].cls);
  }
  EXPECT_EQ(a.cluster_names, b.cluster_names);
  // The clusters separate the two kinds: every cluster is pure.
  std::map<int, std::set<QpClass>> kinds;
  for (const auto& q : a.qps) kinds[q.cluster].insert(q.cls);
  for (const auto& [c, k] : kinds) EXPECT_EQ(k.size(), 1u) << "cluster " << c;
}

TEST(QpPatterns, EmptyAndDegenerate) {
  QpPatternAccumulator acc;
  const QpPatternResult r = acc.Finish();
  EXPECT_TRUE(r.patterns.empty());
  EXPECT_EQ(r.note, "no QP transitions");
  // One QP created once: steady, scope unknown.
  Gen g(2);
  g.Cycle(0, "h", 1, "", false);
  const QpPatternResult r1 = Classify(g.out);
  ASSERT_EQ(r1.qps.size(), 1u);
  EXPECT_EQ(QpClassName(r1.qps[0].cls), "steady");
  EXPECT_EQ(PatternClassName(Find(r1, "all")->cls), "unknown");
  // Negative timestamps land in the right windows.
  Gen n(3);
  n.Cycle(-5 * kMs, "h", 1, "", false);
  QpPatternAccumulator an;
  for (const auto& rec : n.out) an.Add(rec);
  EXPECT_EQ(an.Windows()[0].window_start_ns, -10 * kMs);
}

}  // namespace qp_patterns_test
}  // namespace toposcope::analysis
