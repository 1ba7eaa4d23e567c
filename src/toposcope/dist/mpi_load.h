// dist/mpi_load: `mpirun -np N toposcope analyze PATH... --out DIR` (or `srun` under Slurm). Every
// rank plans the same load (model/load_plan) and reads a contiguous shard of its chunks, cut so
// the ranks read about the same number of bytes; ranks 1..N-1 send their part (model/dataset_wire)
// to rank 0, which merges the parts in rank order, finishes the load and runs every pass and every
// output as a one-process run would. The parts merge by chunk order, so result.json is the same
// bytes whatever the number of ranks (or threads).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/model/load_plan.h"
#include "toposcope/model/load_progress.h"

namespace toposcope::dist {

// True when an MPI launcher started this process (Open MPI's mpirun / mpiexec, or a PMIx / PMI2
// launch such as `srun --mpi=pmix`). Without one, `analyze` never initialises MPI.
bool LaunchedByMpi();

// MPI for the rest of the process: MPI_Init on the first call (MPI_Finalize at exit), then the
// rank and the number of ranks of MPI_COMM_WORLD.
struct MpiWorld {
  int rank = 0;
  int size = 1;
  int local_size = 1;  // ranks on this machine (MPI_COMM_TYPE_SHARED)
  // Every rank's launch (ThisLaunch), where known, names its MPI rank and size: the shards the
  // ranks started reading before MPI was initialised are the ones MPI assigns.
  bool launches_agree = true;
};
const MpiWorld& World();

// What the launcher tells a process in its environment before MPI is initialised: its rank, the
// number of ranks (Open MPI's OMPI_COMM_WORLD_RANK / _SIZE, Hydra's PMI_RANK / PMI_SIZE, or Slurm's
// SLURM_PROCID / SLURM_STEP_NUM_TASKS) and the ranks on its machine (OMPI_COMM_WORLD_LOCAL_SIZE,
// MPI_LOCALNRANKS or SLURM_STEP_TASKS_PER_NODE; 1 when none is given). `known` is false when no
// rank and size are given (or the rank is not below the size).
struct Launch {
  bool known = false;
  int rank = 0;
  int size = 1;
  int local_size = 1;
};
Launch LaunchOf(const std::function<const char*(const char*)>& env);
// This process's launch (LaunchOf its environment).
const Launch& ThisLaunch();
// This process's rank: from its launch when known, else from MPI (initialising it).
int LaunchedRank();
// The threads rank 0 runs the passes and outputs with: `threads` per rank on this machine (at
// least `threads`, at most the machine's cores); 0 (every core): the machine's cores.
int RankZeroThreads(int threads);

// Packing a part, handing it to MPI and unpacking it on rank 0 take about this share of the time
// reading the part took (bench/mpi_speedup.sh prints each: 0.17, 0.07-0.12 and 0.15 s after
// 2.0 s at 2,048 simulated hosts; rank 0 unpacks while it reads its own shard, and reads about
// 7 % slower per byte than the others): rank 0, which packs nothing, reads that much more, so
// that the last part is unpacked as it finishes its own.
inline constexpr double kPackShareOfRead = 0.15;
// The shards of chunks weighing `chunk_bytes` for `ranks` ranks: [first, end) per rank, contiguous,
// in rank order, cut where the weight of the chunks before passes each rank's share of the total
// (rank 0's share 1 + kPackShareOfRead times the others'; a rank may get none when there are fewer
// chunks than ranks). Every chunk weighs one byte more than its bytes (an empty file still takes a
// read).
std::vector<std::pair<size_t, size_t>> ShardChunks(const std::vector<int64_t>& chunk_bytes, int ranks);
// ShardChunks of the bytes `plan`'s chunks are read through (model::ChunkReadBytes, sniffing the
// inputs that could tip the split: each of at least 1/64 of a rank's share of the bytes, or 1 MiB).
std::vector<std::pair<size_t, size_t>> ShardChunks(const model::LoadPlan& plan, int ranks);

// Reads this rank's shard (the launch's rank; MPI is initialised meanwhile; fails on every rank
// when some rank's launch does not name its MPI rank, as only a launcher's environment changed by
// hand would do). Rank 0: receives
// every other rank's part in rank order and unpacks it while its own shard is read, merges them
// and returns the finished data set; once the last part has come it may run on every CPU of its
// machine's ranks (the other ranks there only wait for the end, asleep; a launcher that bound
// each rank to a core had left rank 0 one). Any other rank: sends its part to rank 0 (and leaves
// it to the process's end to free) and returns an empty data set. `threads` per rank (0: the CPUs the rank may run
// on, or when it is not bound, this machine's cores shared among its ranks). Fails on every rank
// alike when a path does not exist; on rank 0 when a part cannot be decoded. With
// TOPOSCOPE_MPI_TIMES=1 each rank prints one line on stderr: the seconds it spent reading its
// shard and packing and sending it, or (rank 0) waiting for and unpacking each part while its own
// shard was read, then waiting for that read, how long it took, and merging.
Result<model::Dataset> LoadSharded(const std::vector<std::string>& paths, const model::LoadOptions& opt,
                                   const model::LoadProgressFn& progress, int threads);

}  // namespace toposcope::dist
