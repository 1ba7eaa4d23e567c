// experiments/barrier_emulation: the barrier stepped in one process gives the very losses, bytes and
// fallbacks of the worker processes on loopback (the lags are fixed, so timing changes nothing),
// corrupted envelopes included; its iteration time comes from the event simulation.
#include "toposcope/experiments/barrier_emulation.h"

#include <gtest/gtest.h>

namespace toposcope::experiments {
namespace {

BarrierTrainingOptions Small(bool async_4bit) {
  BarrierTrainingOptions o;
  o.workers = 4;
  o.steps = 20;
  o.problem.features = 2048;
  o.problem.samples_per_worker = 512;
  o.asynchronous = async_4bit;
  o.compress = async_4bit;
  o.codec.kind = act::training::CodecKind::kQuant4;
  o.corrupt_every = async_4bit ? 3 : 0;
  return o;
}

TEST(BarrierEmulationTest, SameNumbersAsTheWorkerProcesses) {
  for (bool async : {false, true}) {
    const BarrierTrainingOptions o = Small(async);
    auto emu = EmulateBarrierTraining(o);
    ASSERT_TRUE(emu.ok()) << emu.error().ToString();
    auto real = RunBarrierTraining(o);
    ASSERT_TRUE(real.ok()) << real.error().ToString();
    EXPECT_EQ(emu->run.loss, real->loss);
    EXPECT_EQ(emu->run.final_loss, real->final_loss);
    EXPECT_EQ(emu->run.bytes_total, real->bytes_total);
    EXPECT_EQ(emu->run.bytes_cross, real->bytes_cross);
    EXPECT_EQ(emu->run.messages, real->messages);
    EXPECT_EQ(emu->run.stats.full_fallbacks, real->stats.full_fallbacks);
    EXPECT_EQ(emu->run.corrupted, real->corrupted);
    EXPECT_GT(emu->run.mean_iteration_ms, 0);
    EXPECT_EQ(emu->simulated.steps, 20);
    if (async) EXPECT_GT(emu->run.stats.full_fallbacks, 0);
  }
  BarrierTrainingOptions bad = Small(false);
  bad.workers = 1;
  EXPECT_EQ(EmulateBarrierTraining(bad).error().kind, ErrorKind::kUsage);
}

}  // namespace
}  // namespace toposcope::experiments
