// experiments/barrier_emulation: the barrier stepped in one process gives the very losses, bytes and
// fallbacks of the worker processes on loopback (the lags are fixed, so timing changes nothing),
// fallbacks included (bytes: see below); its iteration time comes from the event simulation.
#include "toposcope/experiments/barrier_emulation.h"

#include <gtest/gtest.h>

namespace toposcope::experiments {
namespace barrier_emulation_test {

BarrierTrainingOptions Small(bool async_4bit, int corrupt_every) {
  BarrierTrainingOptions o;
  o.workers = 4;
  o.steps = 20;
  o.problem.features = 2048;
  o.problem.samples_per_worker = 512;
  o.asynchronous = async_4bit;
  o.compress = async_4bit;
  o.codec.kind = act::training::CodecKind::kQuant4;
  o.corrupt_every = corrupt_every;
  return o;
}

TEST(BarrierEmulationTest, SameNumbersAsTheWorkerProcesses) {
  for (const auto& [async, corrupt] : {std::pair{false, 0}, std::pair{true, 0}, std::pair{true, 3}}) {
    const BarrierTrainingOptions o = Small(async, corrupt);
    auto emu = EmulateBarrierTraining(o);
    ASSERT_TRUE(emu.ok()) << emu.error().ToString();
    auto real = RunBarrierTraining(o);
    ASSERT_TRUE(real.ok()) << real.error().ToString();
    EXPECT_EQ(emu->run.loss, real->loss);
    EXPECT_EQ(emu->run.final_loss, real->final_loss);
    EXPECT_EQ(emu->run.stats.full_fallbacks, real->stats.full_fallbacks);
    EXPECT_EQ(emu->run.corrupted, real->corrupted);
    EXPECT_GT(emu->run.mean_iteration_ms, 0);
    EXPECT_EQ(emu->simulated.steps, 20);
    if (corrupt == 0) {
      EXPECT_EQ(emu->run.bytes_total, real->bytes_total);
      EXPECT_EQ(emu->run.bytes_cross, real->bytes_cross);
      EXPECT_EQ(emu->run.messages, real->messages);
    } else {
      // A corrupted envelope of the last step is one no later step uses: whether the real sender
      // still answers its request for the full tensor races with the end of the run. The emulation
      // always answers: at most one full tensor per worker and cross-region peer more.
      EXPECT_GT(emu->run.stats.full_fallbacks, 0);
      const int64_t full_frame = 21 + 33 + 2048 * 4;
      EXPECT_GE(emu->run.bytes_total, real->bytes_total);
      EXPECT_LE(emu->run.bytes_total, real->bytes_total + 4 * 2 * full_frame);
    }
  }
  BarrierTrainingOptions bad = Small(false, 0);
  bad.workers = 1;
  EXPECT_EQ(EmulateBarrierTraining(bad).error().kind, ErrorKind::kUsage);
}

}  // namespace barrier_emulation_test
}  // namespace toposcope::experiments
