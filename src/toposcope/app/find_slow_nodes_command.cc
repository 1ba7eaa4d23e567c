#include "toposcope/app/find_slow_nodes_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "toposcope/act/slow_node_evidence.h"
#include "toposcope/app/analyze_command.h"
#include "toposcope/base/file_io.h"
#include "toposcope/sim/nccl_tests_sim.h"

namespace toposcope::app {

namespace {

namespace fs = std::filesystem;

std::string Numbered(const char* stem, int id, const char* ext) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s-%03d%s", stem, id, ext);
  return buf;
}

bool HostNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

std::string PlanScript(const act::PlannedRun& run, const FindSlowNodesRequest& req) {
  const std::string result = Numbered("result", run.id, ".txt");
  std::string s = "#!/bin/sh\n";
  s += "# toposcope find-slow-nodes: run " + std::to_string(run.id) + " (round " + std::to_string(run.round) +
       ") over " + std::to_string(run.hosts.size()) + " hosts: " + run.reason + "\n";
  s += "# writes " + result + " when the run ends (a failed or cut run leaves only " + result + ".tmp)\n";
  s += "cd \"$(dirname \"$0\")\" || exit 1\n";
  s += RunCommandLine(run, req, result + ".tmp") + " && mv " + result + ".tmp " + result + "\n";
  return s;
}

// Priors: the analysis of --from, or in a simulation the hinted truth.
Result<std::vector<act::SlowNodePrior>> PriorsOf(const FindSlowNodesRequest& req, const std::vector<std::string>& hosts,
                                                 const sim::SlowNodeTruth& truth) {
  std::vector<act::SlowNodePrior> priors;
  if (!req.from.empty()) {
    AnalyzeRequest ar;
    ar.paths = req.from;
    Result<AnalyzeOutcome> a = RunAnalyze(ar);
    if (!a.ok()) return a.error();
    if (!a->any_input_read) return MakeError("--from: no input could be read", "name the dataset's files or directory");
    priors = act::PriorsFromAnalysis(a->result, hosts);
  }
  for (int i = 0; i < req.hinted && i < static_cast<int>(truth.slow.size()); ++i) {
    priors.push_back({truth.slow[i], 0.5, "simulated passive evidence"});
  }
  return priors;
}

// Writes plan-NNN.sh, or checks the one there is the same.
Status WritePlan(const act::PlannedRun& run, const FindSlowNodesRequest& req, FindSlowNodesOutcome& out) {
  const std::string path = (fs::path(req.results_dir) / Numbered("plan", run.id, ".sh")).string();
  const std::string text = PlanScript(run, req);
  std::error_code ec;
  if (fs::exists(path, ec)) {
    Result<std::string> old = ReadFileText(path);
    if (!old.ok()) return old.error();
    if (*old == text) return {};
    return MakeKindError(ErrorKind::kUsage,
                         path + ": differs from the plan this search makes for run " + std::to_string(run.id),
                         "the directory was used with another hosts list, evidence or options; use a fresh one");
  }
  Status st = WriteFileText(path, text);
  if (!st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
  fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add,
                  ec);
  out.written.push_back(path);
  return {};
}

// Feeds the search every result there is, round by round; stops at the first round with a result
// missing (those runs are pending).
Status Replay(act::SlowNodeSearch& search, const FindSlowNodesRequest& req, const sim::SlowNodeTruth& truth,
              FindSlowNodesOutcome& out) {
  const bool dir = !req.results_dir.empty();
  while (!search.Done()) {
    const std::vector<act::PlannedRun> pending = search.Pending();
    std::vector<act::PlannedRun> missing;
    for (const act::PlannedRun& run : pending) {
      if (dir) {
        Status st = WritePlan(run, req, out);
        if (!st.ok()) return st;
      }
      const std::string name = Numbered("result", run.id, ".txt");
      const std::string path = dir ? (fs::path(req.results_dir) / name).string() : name;
      std::string text;
      std::error_code ec;
      if (dir && fs::exists(path, ec)) {
        Result<std::string> t = ReadFileText(path);
        if (!t.ok()) return t.error();
        text = std::move(*t);
      } else if (req.simulate) {
        text = sim::AllReducePerfText(run.hosts, truth, req.seed, run.id);
        if (dir) {
          Status st = WriteFileText(path, text);
          if (!st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
          out.written.push_back(path);
        }
      } else {
        missing.push_back(run);
        continue;
      }
      Result<act::RunObservation> obs = act::ReadRunObservation(text, path, run);
      if (!obs.ok()) return obs.error();
      Status st = search.Observe(*obs);
      if (!st.ok()) return st;
    }
    if (!missing.empty()) {
      out.pending = missing;
      return {};
    }
  }
  return {};
}

// What a sweep of disjoint pairs takes: ceil(N/2) runs, then one more per slow host of a slow
// pair (run with a host its pair run cleared).
int PairwiseRuns(const std::vector<std::string>& hosts, const sim::SlowNodeTruth& truth) {
  const std::set<std::string> slow(truth.slow.begin(), truth.slow.end());
  int runs = static_cast<int>((hosts.size() + 1) / 2);
  for (size_t i = 0; i < hosts.size(); i += 2) {
    const int s = static_cast<int>(slow.count(hosts[i]) + (i + 1 < hosts.size() ? slow.count(hosts[i + 1]) : 0));
    runs += s;
  }
  return runs;
}

}  // namespace

Result<std::vector<std::string>> ReadHostsFile(const std::string& path) {
  Result<std::string> text = ReadFileText(path);
  if (!text.ok()) return text.error();
  std::vector<std::string> hosts;
  std::map<std::string, int64_t> first;
  int64_t line_no = 0;
  size_t pos = 0;
  while (pos <= text->size()) {
    size_t end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    std::string line = text->substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    const size_t e = line.find_first_of(" \t\r", b);
    std::string name = line.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (const size_t colon = name.find(':'); colon != std::string::npos) name.resize(colon);  // host:8
    const auto bad = std::find_if_not(name.begin(), name.end(), HostNameChar);
    if (name.empty() || bad != name.end()) {
      return MakeError(path, line_no, static_cast<int64_t>(b + (bad - name.begin()) + 1),
                       "not a host name: " + QuoteRaw(ClipRaw(line.substr(b))),
                       "one host a line: NAME, NAME slots=N or NAME:N");
    }
    if (auto [it, fresh] = first.emplace(name, line_no); !fresh) {
      return MakeError(path, line_no, 0, "host " + name + " is listed twice (first at line " +
                                             std::to_string(it->second) + ")");
    }
    hosts.push_back(name);
  }
  if (hosts.size() < 2) {
    return MakeError(path, 0, 0, "lists " + std::to_string(hosts.size()) + " hosts; the search needs at least 2");
  }
  return hosts;
}

std::string RunCommandLine(const act::PlannedRun& run, const FindSlowNodesRequest& req, const std::string& out_file) {
  const int g = req.gpus_per_host;
  const std::string test = req.binary + " -b 8 -e 8G -f 2 -g 1";
  std::string s;
  if (req.launcher == "srun") {
    std::string list;
    for (const std::string& h : run.hosts) list += (list.empty() ? "" : ",") + h;
    s = "srun -N " + std::to_string(run.hosts.size()) + " -w " + list + " --ntasks-per-node=" + std::to_string(g) +
        " --gpus-per-node=" + std::to_string(g) + " " + test;
  } else {
    std::string list;
    for (const std::string& h : run.hosts) list += (list.empty() ? "" : ",") + h + ":" + std::to_string(g);
    s = "mpirun -np " + std::to_string(run.hosts.size() * g) + " -H " + list + " --bind-to none " + test;
  }
  return s + " > " + out_file + " 2>&1";
}

Result<FindSlowNodesOutcome> RunFindSlowNodes(const FindSlowNodesRequest& req) {
  auto usage = [](std::string m, std::string hint = {}) { return MakeKindError(ErrorKind::kUsage, std::move(m), hint); };
  if (!req.simulate && req.results_dir.empty()) {
    return usage("find-slow-nodes: --results DIR is needed (or --simulate)", "the runs' outputs go to DIR");
  }
  if (!req.simulate && req.hosts_file.empty()) return usage("find-slow-nodes: --hosts FILE is needed");
  if (req.launcher != "mpirun" && req.launcher != "srun") return usage("--launcher: mpirun or srun");
  if (req.gpus_per_host < 1) return usage("--gpus-per-host: at least 1");
  FindSlowNodesOutcome out;
  if (!req.hosts_file.empty()) {
    Result<std::vector<std::string>> h = ReadHostsFile(req.hosts_file);
    if (!h.ok()) return h.error();
    out.hosts = std::move(*h);
  } else {
    if (req.hosts_count < 2) return usage("--hosts-count: at least 2 (or --hosts FILE)");
    out.hosts = sim::SimHostNames(req.hosts_count);
  }
  sim::SlowNodeTruth truth;
  if (req.simulate) {
    if (req.slow < 0 || req.slow > static_cast<int>(out.hosts.size())) return usage("--slow: 0 to the number of hosts");
    truth = sim::DrawSlowNodes(out.hosts, req.slow, req.seed);
    out.truth = truth.slow;
    out.pairwise_runs = PairwiseRuns(out.hosts, truth);
    const double k = static_cast<double>(truth.slow.size());
    out.bound_runs = 2 * k * std::log2(static_cast<double>(out.hosts.size())) + 4;
  }
  Result<std::vector<act::SlowNodePrior>> priors = PriorsOf(req, out.hosts, truth);
  if (!priors.ok()) return priors.error();
  out.priors = *priors;
  if (!req.results_dir.empty()) {
    std::error_code ec;
    fs::create_directories(req.results_dir, ec);
    if (ec) return MakeKindError(ErrorKind::kOutput, req.results_dir + ": cannot create: " + ec.message());
  }
  Result<act::SlowNodeSearch> search = act::SlowNodeSearch::Create(out.hosts, out.priors, req.options);
  if (!search.ok()) return search.error();
  Status st = Replay(*search, req, truth, out);
  if (!st.ok()) return st.error();
  out.runs = search->runs();
  out.answer = search->Answer();
  if (!req.results_dir.empty() && out.pending.empty()) {
    const std::string path = (fs::path(req.results_dir) / "answer.json").string();
    Status w = WriteFileText(path, FindSlowNodesJson(out, req));
    if (!w.ok()) return WithKind(w.error(), ErrorKind::kOutput);
    out.written.push_back(path);
  }
  return out;
}

std::string FindSlowNodesJson(const FindSlowNodesOutcome& o, const FindSlowNodesRequest& req) {
  using nlohmann::ordered_json;
  const act::SlowNodeAnswer& a = o.answer;
  ordered_json j;
  j["state"] = o.pending.empty() ? "done" : "waiting";
  j["runs"] = a.runs;
  j["found"] = a.slow;
  if (req.simulate) j["truth"] = o.truth;
  j["hosts"] = o.hosts.size();
  j["rounds"] = a.rounds;
  j["confidence"] = a.confidence;
  j["unresolved"] = a.unresolved;
  if (req.simulate) {
    j["bound_runs"] = o.bound_runs;
    j["pairwise_runs"] = o.pairwise_runs;
  }
  j["healthy_busbw_gbps"] = a.healthy_busbw_gbps;
  j["noise_rel"] = a.noise_rel;
  j["healthy_above_gbps"] = a.healthy_above_gbps;
  j["slow_below_gbps"] = a.slow_below_gbps;
  j["priors"] = ordered_json::array();
  for (const act::SlowNodePrior& p : o.priors) j["priors"].push_back({{"host", p.host}, {"prior", p.prior}, {"evidence", p.evidence}});
  j["notes"] = a.notes;
  j["pending"] = ordered_json::array();
  for (const act::PlannedRun& r : o.pending) {
    j["pending"].push_back({{"id", r.id}, {"plan", Numbered("plan", r.id, ".sh")},
                            {"result", Numbered("result", r.id, ".txt")}, {"hosts", r.hosts.size()},
                            {"command", RunCommandLine(r, req, Numbered("result", r.id, ".txt"))}});
  }
  j["run_log"] = ordered_json::array();
  for (const act::RunRecord& r : o.runs) {
    ordered_json e = {{"id", r.plan.id}, {"round", r.plan.round}, {"hosts", r.plan.hosts.size()}, {"reason", r.plan.reason}};
    if (r.plan.tested.size() <= 8) e["tested"] = r.plan.tested;
    if (r.observed) {
      e["busbw_gbps"] = r.observation.busbw_gbps;
      e["failed_validation"] = r.observation.failed;
      e["sigmas_below"] = std::isfinite(r.sigmas_below) ? ordered_json(r.sigmas_below) : ordered_json(nullptr);
    }
    e["verdict"] = act::RunVerdictName(r.verdict);
    j["run_log"].push_back(std::move(e));
  }
  return j.dump(2) + "\n";
}

std::string FindSlowNodesText(const FindSlowNodesOutcome& o, const FindSlowNodesRequest& req) {
  const act::SlowNodeAnswer& a = o.answer;
  char buf[256];
  std::string s;
  if (!o.pending.empty()) {
    s += std::to_string(a.runs) + " runs read; next: " + std::to_string(o.pending.size()) + " runs\n";
    for (const act::PlannedRun& r : o.pending) {
      s += "  " + req.results_dir + "/" + Numbered("plan", r.id, ".sh") + "   (" + std::to_string(r.hosts.size()) +
           " hosts: " + r.reason + ")\n";
    }
    s += "run them (they may run at once), then run this command again\n";
    return s;
  }
  std::string names;
  for (const std::string& h : a.slow) names += (names.empty() ? "" : ", ") + h;
  s += "slow nodes: " + (names.empty() ? std::string("none") : names) + "\n";
  std::snprintf(buf, sizeof buf, "confidence %.4f after %d runs in %d rounds; healthy busbw %.2f GB/s, noise %.2f %%\n",
                a.confidence, a.runs, a.rounds, a.healthy_busbw_gbps, 100 * a.noise_rel);
  s += buf;
  if (!a.unresolved.empty()) s += "unresolved: " + std::to_string(a.unresolved.size()) + " hosts (run budget spent)\n";
  if (req.simulate) {
    std::string t;
    for (const std::string& h : o.truth) t += (t.empty() ? "" : ", ") + h;
    s += "truth: " + (t.empty() ? std::string("none") : t) + "; pairwise sweep: " + std::to_string(o.pairwise_runs) +
         " runs\n";
  }
  for (const std::string& n : a.notes) s += "note: " + n + "\n";
  return s;
}

}  // namespace toposcope::app
