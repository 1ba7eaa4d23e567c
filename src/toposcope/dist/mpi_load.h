// dist/mpi_load: `mpirun -np N toposcope analyze PATH... --out DIR` (or `srun` under Slurm). Every
// rank plans the same load (model/load_plan) and reads a contiguous shard of its chunks, cut so
// the ranks read about the same number of bytes; ranks 1..N-1 send their part (model/dataset_wire)
// to rank 0, which merges the parts in rank order, finishes the load and runs every pass and every
// output as a one-process run would. The parts merge by chunk order, so result.json is the same
// bytes whatever the number of ranks (or threads).
#pragma once

#include <cstddef>
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
  int local_size = 1;    // ranks on this machine (MPI_COMM_TYPE_SHARED)
  int machine_cpus = 1;  // the CPUs the ranks on this machine may run on, together (their affinity masks' union)
};
const MpiWorld& World();

// The shards of `plan`'s chunks for `ranks` ranks: [first, end) per rank, contiguous, in rank
// order, cut where the bytes of the chunks before pass rank/ranks of the total (a rank may get
// none when there are fewer chunks than ranks).
std::vector<std::pair<size_t, size_t>> ShardChunks(const model::LoadPlan& plan, int ranks);

// Rank 0: reads its shard, receives every other rank's part in rank order, merges them and returns
// the finished data set, and from then on may run on every CPU of its machine's ranks (the other
// ranks there only wait for the end; a launcher that bound each rank to a core left rank 0 one). Any other rank: reads its shard, sends it to rank 0 and returns an empty
// data set. `threads` per rank (0: this machine's cores shared among its ranks). Fails on every
// rank alike when a path does not exist; on rank 0 when a part cannot be decoded. With
// TOPOSCOPE_MPI_TIMES=1 each rank prints one line on stderr: the seconds it spent reading its
// shard and packing and sending it, or (rank 0) waiting for, unpacking and merging each part.
Result<model::Dataset> LoadSharded(const std::vector<std::string>& paths, const model::LoadOptions& opt,
                                   const model::LoadProgressFn& progress, int threads);

}  // namespace toposcope::dist
