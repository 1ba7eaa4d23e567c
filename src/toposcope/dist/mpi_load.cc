#include "toposcope/dist/mpi_load.h"

#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "toposcope/model/dataset_wire.h"

namespace toposcope::dist {
namespace {

constexpr int kTagSize = 1;
constexpr int kTagBytes = 2;
constexpr int kTagDone = 3;  // rank 0 is done: the other ranks may finalise

// A rank's part once sent (see LoadSharded): never freed.
model::LoadedPart* sent_part = nullptr;
// Messages are cut to this many bytes (MPI counts are ints).
constexpr size_t kPieceBytes = size_t{1} << 30;

// With TOPOSCOPE_MPI_TIMES=1 each rank prints where its load went, one line on stderr: what
// bench/mpi_speedup.sh shows beside its wall times.
class PhaseTimes {
 public:
  explicit PhaseTimes(int rank) : rank_(rank), on_(std::getenv("TOPOSCOPE_MPI_TIMES") != nullptr &&
                                                  std::string(std::getenv("TOPOSCOPE_MPI_TIMES")) == "1") {}
  // Ends the phase under way as `name` (its seconds since the previous mark).
  void Mark(const std::string& name) {
    const auto now = std::chrono::steady_clock::now();
    if (on_) line_ += " " + name + " " + Seconds(now - last_);
    last_ = now;
  }
  void Note(const std::string& text) {
    if (on_) line_ += " " + text;
  }
  static std::string Seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f s", s);
    return buf;
  }
  ~PhaseTimes() {
    if (on_) std::fprintf(stderr, "mpi rank %d:%s\n", rank_, line_.c_str());
  }

 private:
  static std::string Seconds(std::chrono::steady_clock::duration d) {
    return Seconds(std::chrono::duration<double>(d).count());
  }
  int rank_;
  bool on_;
  std::string line_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The union of the affinity masks of the ranks on this machine (set once by World()).
cpu_set_t& MachineCpus() {
  static cpu_set_t cpus;
  return cpus;
}

// Every rank of `machine` hands in its affinity mask; each gets their union.
cpu_set_t GatherCpus(MPI_Comm machine) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_ZERO(&mine);
  int ranks = 1;
  MPI_Comm_size(machine, &ranks);
  std::vector<cpu_set_t> all(static_cast<size_t>(ranks));
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, machine);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (cpu_set_t& one : all) CPU_OR(&cpus, &cpus, &one);
  return cpus;
}

// Lets every thread of this process run on the machine's CPUs (World()'s union), when that is more
// than it may use now. A thread that cannot be moved (a cgroup narrower than the masks) is left.
void TakeMachineCpus() {
  cpu_set_t now;
  CPU_ZERO(&now);
  if (sched_getaffinity(0, sizeof now, &now) != 0) return;
  cpu_set_t& cpus = MachineCpus();
  if (CPU_COUNT(&cpus) <= CPU_COUNT(&now)) return;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const pid_t tid = static_cast<pid_t>(std::strtol(task.path().filename().c_str(), nullptr, 10));
    if (tid > 0) (void)sched_setaffinity(tid, sizeof cpus, &cpus);
  }
}

// Waits asleep for `request` (a blocking MPI call polls, and would take the CPU from this
// process's other threads while it waits).
void WaitAsleep(MPI_Request* request) {
  int done = 0;
  while (MPI_Test(request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// At exit: rank 0 tells every other rank it is done, and they wait for that asleep, then all
// finalise. A rank left in MPI_Finalize (or any blocking call) until rank 0 ends polls, and takes
// a share of the CPU that rank 0's passes and outputs run on.
void FinalizeAtExit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int r = 1; r < size; ++r) MPI_Send(nullptr, 0, MPI_BYTE, r, kTagDone, MPI_COMM_WORLD);
  } else {
    MPI_Request done_request = MPI_REQUEST_NULL;
    MPI_Irecv(nullptr, 0, MPI_BYTE, 0, kTagDone, MPI_COMM_WORLD, &done_request);
    WaitAsleep(&done_request);
  }
  MPI_Finalize();
}

void SendBytes(const std::string& bytes) {
  const uint64_t n = bytes.size();
  MPI_Send(&n, 1, MPI_UINT64_T, 0, kTagSize, MPI_COMM_WORLD);
  for (size_t at = 0; at < bytes.size(); at += kPieceBytes) {
    const int len = static_cast<int>(std::min(kPieceBytes, bytes.size() - at));
    MPI_Send(bytes.data() + at, len, MPI_BYTE, 0, kTagBytes, MPI_COMM_WORLD);
  }
}

// The bytes rank `from` sends with SendBytes: their size is waited for asleep, the bytes that
// follow at once are received as they come.
std::string ReceiveBytes(int from) {
  uint64_t n = 0;
  MPI_Request size_request = MPI_REQUEST_NULL;
  MPI_Irecv(&n, 1, MPI_UINT64_T, from, kTagSize, MPI_COMM_WORLD, &size_request);
  WaitAsleep(&size_request);
  std::string bytes(n, '\0');
  for (size_t at = 0; at < bytes.size(); at += kPieceBytes) {
    const int len = static_cast<int>(std::min<size_t>(kPieceBytes, bytes.size() - at));
    MPI_Recv(bytes.data() + at, len, MPI_BYTE, from, kTagBytes, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return bytes;
}

}  // namespace

bool LaunchedByMpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

const MpiWorld& World() {
  static const MpiWorld world = [] {
    MpiWorld w;
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      MPI_Init(nullptr, nullptr);
      std::atexit(FinalizeAtExit);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.size);
    MPI_Comm machine = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine);
    MPI_Comm_size(machine, &w.local_size);
    MachineCpus() = GatherCpus(machine);
    MPI_Comm_free(&machine);
    const Launch& launch = ThisLaunch();
    int agrees = !launch.known || (launch.rank == w.rank && launch.size == w.size) ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &agrees, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    w.launches_agree = agrees == 1;
    return w;
  }();
  return world;
}

std::vector<std::pair<size_t, size_t>> ShardChunks(const std::vector<int64_t>& chunk_bytes, int ranks) {
  ranks = std::max(ranks, 1);
  std::vector<std::pair<size_t, size_t>> out;
  const size_t chunks = chunk_bytes.size();
  double total = 0;
  for (int64_t b : chunk_bytes) total += static_cast<double>(b + 1);
  // Rank 0's share and each other rank's, of the weight.
  const double unit = total / (ranks + kPackShareOfRead);
  size_t k = 0;
  double done = 0;
  for (int r = 0; r < ranks; ++r) {
    const size_t first = k;
    const double goal = unit * (r + 1 + kPackShareOfRead);
    // A chunk goes to this rank while at least half of it falls before the rank's goal.
    while (k < chunks && (r == ranks - 1 || done + static_cast<double>(chunk_bytes[k] + 1) / 2 <= goal)) {
      done += static_cast<double>(chunk_bytes[k] + 1);
      ++k;
    }
    out.emplace_back(first, k);
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> ShardChunks(const model::LoadPlan& plan, int ranks) {
  const int64_t sniff_from = std::max<int64_t>(int64_t{1} << 20, plan.bytes_total / (64 * std::max(ranks, 1)));
  return ShardChunks(model::ChunkReadBytes(plan, sniff_from), ranks);
}

Launch LaunchOf(const std::function<const char*(const char*)>& env) {
  const auto number = [&env](const char* name) -> std::optional<int> {
    const char* v = env(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 0 || n >= 1'000'000'000) return std::nullopt;
    return static_cast<int>(n);
  };
  Launch l;
  // Open MPI's mpirun, then Hydra (MPICH) and Slurm's srun.
  for (const auto& [rank, size] : {std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, std::pair{"PMI_RANK", "PMI_SIZE"},
                                   std::pair{"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"}}) {
    const std::optional<int> r = number(rank), n = number(size);
    if (r && n && *r < *n) {
      l.known = true;
      l.rank = *r;
      l.size = *n;
      break;
    }
  }
  for (const char* local : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_STEP_TASKS_PER_NODE"}) {
    // Slurm writes "2" or "2(x3)" (the count of the first nodes): the number it starts with.
    const char* v = env(local);
    const long n = v == nullptr ? 0 : std::strtol(v, nullptr, 10);
    if (n > 0 && n < 1'000'000) {
      l.local_size = static_cast<int>(n);
      break;
    }
  }
  return l;
}

const Launch& ThisLaunch() {
  static const Launch launch = LaunchOf([](const char* name) { return std::getenv(name); });
  return launch;
}

int RankZeroThreads(int threads) {
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int local = ThisLaunch().known ? ThisLaunch().local_size : World().local_size;
  return threads > 0 ? std::max(threads, std::min(threads * std::max(1, local), cpus)) : cpus;
}

int LaunchedRank() { return ThisLaunch().known ? ThisLaunch().rank : World().rank; }

Result<model::Dataset> LoadSharded(const std::vector<std::string>& paths, const model::LoadOptions& opt,
                                   const model::LoadProgressFn& progress, int threads) {
  Result<model::LoadPlan> plan = model::PlanLoad(paths);
  if (!plan.ok()) {
    (void)World();  // every rank takes part in MPI, the failing ones too
    return plan.error();
  }
  // The shard this rank reads, chosen from what the launcher says: the reading starts at once and
  // MPI is initialised meanwhile (a wait of about 0.2 s, nearly no CPU). A launcher that says
  // nothing (or something MPI then contradicts) has MPI initialised first.
  Launch launch = ThisLaunch();
  if (!launch.known) {
    launch.rank = World().rank;
    launch.size = World().size;
    launch.local_size = World().local_size;
  }
  if (threads <= 0) {
    // Each rank's share of the CPUs it may run on: all of them when a launcher bound it to some.
    cpu_set_t mine;
    CPU_ZERO(&mine);
    const int own = sched_getaffinity(0, sizeof mine, &mine) == 0 ? CPU_COUNT(&mine) : 1;
    const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::max(1, own < cpus ? own : cpus / std::max(1, launch.local_size));
  }
  PhaseTimes times(launch.rank);
  const auto read_shard = [&](int rank, int ranks) {
    const auto [first, end] = ShardChunks(*plan, ranks)[static_cast<size_t>(rank)];
    return model::LoadChunks(*plan, first, end, opt, rank == 0 ? progress : nullptr, threads);
  };
  model::LoadedPart mine;
  double read_s = 0;  // how long the reader took
  std::thread reader([&] {
    const auto t0 = std::chrono::steady_clock::now();
    mine = read_shard(launch.rank, launch.size);
    read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  const MpiWorld& world = World();
  if (!world.launches_agree) {
    reader.join();
    return MakeKindError(ErrorKind::kUsage,
                         "the launcher's environment and MPI disagree on the ranks (this process: rank " +
                             std::to_string(launch.rank) + " of " + std::to_string(launch.size) +
                             " by OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID, rank " + std::to_string(world.rank) +
                             " of " + std::to_string(world.size) + " by MPI)",
                         "start it with mpirun, mpiexec or srun, which set them; do not change them by hand");
  }
  if (world.rank != 0) {
    reader.join();
    times.Mark("read its shard");
    const std::string wire = model::PartToWire(mine);
    times.Mark("packed");
    times.Note("(" + std::to_string(wire.size() >> 20) + " MiB)");
    SendBytes(wire);
    times.Mark("sent");
    // The part is left for the process's end to take back: freeing its many small allocations
    // one by one would take a tenth of a second of the CPU rank 0 now runs its passes on.
    sent_part = new model::LoadedPart(std::move(mine));
    return model::Dataset();
  }
  // Rank 0 receives and unpacks the other parts, in rank order, as they come, while its own shard
  // is read; once the last has come, every rank has sent its part and rank 0 runs on the CPUs of
  // its machine's ranks. Every part is received even after one fails (no rank is left waiting).
  std::vector<model::LoadedPart> parts;
  std::optional<Error> failed;
  for (int r = 1; r < world.size; ++r) {
    const std::string bytes = ReceiveBytes(r);
    times.Mark("waited for and received rank " + std::to_string(r));
    if (r == world.size - 1) TakeMachineCpus();
    if (failed) continue;
    Result<model::LoadedPart> part = model::PartFromWire(bytes, "the shard of rank " + std::to_string(r));
    times.Mark("unpacked");
    if (part.ok()) {
      parts.push_back(std::move(*part));
    } else {
      failed = part.error();
    }
  }
  reader.join();
  times.Mark("then waited for its own shard");
  times.Note("(read in " + PhaseTimes::Seconds(read_s) + ")");
  if (failed) return *failed;
  for (model::LoadedPart& part : parts) {
    if (Status st = model::MergeParts(mine, std::move(part)); !st.ok()) return st.error();
  }
  times.Mark("merged");
  return model::FinishLoad(std::move(mine));
}

}  // namespace toposcope::dist
