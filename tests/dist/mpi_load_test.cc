// dist/mpi_load: what a launcher's environment says before MPI is initialised.
#include "toposcope/dist/mpi_load.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>
#include <string>

namespace toposcope::dist {
namespace {

Launch LaunchWith(const std::map<std::string, std::string>& vars) {
  return LaunchOf([&vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(Launch, OpenMpiHydraAndSlurmEachGiveRankSizeAndRanksPerMachine) {
  const Launch ompi = LaunchWith({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"},
                                  {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}});
  EXPECT_TRUE(ompi.known);
  EXPECT_EQ(ompi.rank, 3);
  EXPECT_EQ(ompi.size, 8);
  EXPECT_EQ(ompi.local_size, 4);
  const Launch hydra = LaunchWith({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}, {"MPI_LOCALNRANKS", "2"}});
  EXPECT_TRUE(hydra.known);
  EXPECT_EQ(hydra.rank, 0);
  EXPECT_EQ(hydra.size, 2);
  EXPECT_EQ(hydra.local_size, 2);
  // Slurm writes the tasks per node as "2(x3)": the count of the first nodes.
  const Launch slurm = LaunchWith({{"SLURM_PROCID", "5"}, {"SLURM_STEP_NUM_TASKS", "6"},
                                   {"SLURM_STEP_TASKS_PER_NODE", "2(x3)"}});
  EXPECT_TRUE(slurm.known);
  EXPECT_EQ(slurm.rank, 5);
  EXPECT_EQ(slurm.size, 6);
  EXPECT_EQ(slurm.local_size, 2);
}

TEST(Launch, NothingUsableLeavesItUnknown) {
  EXPECT_FALSE(LaunchWith({}).known);
  EXPECT_EQ(LaunchWith({}).local_size, 1);
  // A rank not below the size, a size without a rank, and numbers that are not numbers.
  EXPECT_FALSE(LaunchWith({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "2"}}).known);
  EXPECT_FALSE(LaunchWith({{"OMPI_COMM_WORLD_SIZE", "2"}}).known);
  EXPECT_FALSE(LaunchWith({{"PMI_RANK", "1x"}, {"PMI_SIZE", "2"}}).known);
  EXPECT_FALSE(LaunchWith({{"PMI_RANK", "-1"}, {"PMI_SIZE", "2"}}).known);
  EXPECT_FALSE(LaunchWith({{"PMI_RANK", ""}, {"PMI_SIZE", "2"}}).known);
  // The first launcher whose pair is usable wins.
  const Launch l = LaunchWith({{"OMPI_COMM_WORLD_RANK", "9"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"PMI_RANK", "1"},
                               {"PMI_SIZE", "4"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "zero"}});
  EXPECT_TRUE(l.known);
  EXPECT_EQ(l.rank, 1);
  EXPECT_EQ(l.local_size, 1);
}

TEST(ShardChunks, EachRankGetsItsShareOfTheBytesRankZeroALittleMore) {
  // 100 chunks of 1000 bytes: rank 0 reads kPackShareOfRead more than each other rank.
  const std::vector<int64_t> even(100, 1000);
  const auto two = ShardChunks(even, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].first, 0u);
  EXPECT_EQ(two[0].second, two[1].first);
  EXPECT_EQ(two[1].second, 100u);
  const double share0 = static_cast<double>(two[0].second) / 100.0;
  EXPECT_NEAR(share0, (1 + kPackShareOfRead) / (2 + kPackShareOfRead), 0.01);
  const auto four = ShardChunks(even, 4);
  ASSERT_EQ(four.size(), 4u);
  for (size_t r = 1; r < 4; ++r) {
    EXPECT_EQ(four[r].first, four[r - 1].second);
    EXPECT_NEAR(static_cast<double>(four[r].second - four[r].first), 100 / (4 + kPackShareOfRead), 1.0);
  }
  EXPECT_EQ(four[3].second, 100u);
  // A chunk that weighs nothing still counts one byte; one heavy chunk goes whole to one rank.
  const auto heavy = ShardChunks(std::vector<int64_t>{0, 0, 1'000'000, 0, 0}, 2);
  EXPECT_EQ(heavy[0], (std::pair<size_t, size_t>{0, 3}));
  EXPECT_EQ(heavy[1], (std::pair<size_t, size_t>{3, 5}));
  // Fewer chunks than ranks: the later ranks get none; no chunks: every rank gets none.
  const auto few = ShardChunks(std::vector<int64_t>{5, 5}, 4);
  EXPECT_EQ(few.back().second, 2u);
  for (const auto& [first, end] : ShardChunks(std::vector<int64_t>{}, 3)) EXPECT_EQ(first, end);
}

}  // namespace
}  // namespace toposcope::dist
