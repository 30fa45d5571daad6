// The random program generator of the core tests (testbench/core/program_gen.h): for hundreds
// of seeds at the core's configurations, every program validates, orders every cross-unit
// hazard with tokens, finishes with every counter at 0 in several schedules of the in-order
// dispatcher (no deadlock), and runs error-free to HALT on the reference machine; together the
// programs use every instruction kind and the interesting variants of each.
#include <gtest/gtest.h>

#include <set>
#include <variant>

#include "core/program_gen.h"
#include "tests/model/model_testing.h"

namespace tpu::model {
namespace {

// The configurations of testbench/core/CMakeLists.txt, plus a tiny device.
const isa::DeviceLimits kConfigs[] = {
    {8, 512, 128, 1048576, 8}, {16, 4096, 1024, 4194304, 64}, {8, 64, 16, 4096, 4}};

// Which variants the programs exercised, over all seeds.
struct Coverage {
  std::set<std::string> seen;
  void Add(const std::string& what) { seen.insert(what); }
};

void Record(const isa::Instr& instr, int64_t n, Coverage& coverage) {
  coverage.Add(isa::InfoOf(instr).name);
  if (const auto* rh = std::get_if<isa::ReadHost>(&instr)) {
    coverage.Add("READ_HOST " + std::to_string(static_cast<int>(rh->target)));
    if (rh->host % 16 != 0) coverage.Add("READ_HOST unaligned");
    if (rh->target == isa::Target::kUb && rh->length % n != 0) coverage.Add("READ_HOST partial");
  } else if (const auto* wh = std::get_if<isa::WriteHost>(&instr)) {
    if (wh->host % 16 != 0) coverage.Add("WRITE_HOST unaligned");
    if (wh->length % n != 0) coverage.Add("WRITE_HOST partial");
  } else if (const auto* mm = std::get_if<isa::Matmul>(&instr)) {
    coverage.Add(mm->acc_mode == isa::AccMode::kAccumulate ? "MATMUL accumulate"
                                                           : "MATMUL overwrite");
    coverage.Add(mm->new_tile ? "MATMUL new_tile" : "MATMUL same tile");
  } else if (const auto* act = std::get_if<isa::Activate>(&instr)) {
    coverage.Add("ACTIVATE pool " + std::to_string(static_cast<int>(act->pool)));
    if (act->pool != isa::Pool::kNone) {
      coverage.Add(act->padding == isa::Padding::kSame ? "ACTIVATE same" : "ACTIVATE valid");
      if (act->win_h > act->image_h) coverage.Add("ACTIVATE window > image");
      if (act->stride_w > act->win_w) coverage.Add("ACTIVATE stride > window");
    }
    if (act->lut) coverage.Add("ACTIVATE lut");
  } else if (const auto* sync = std::get_if<isa::Sync>(&instr)) {
    if (sync->units != 0) coverage.Add("SYNC units");
    if (sync->wait != 0) coverage.Add("SYNC wait");
    if (sync->signal != 0) coverage.Add("SYNC signal");
  }
}

// Random contents in every device memory (the first 64 KiB of the weight DRAM).
void FillWithGarbage(Machine& machine, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  const isa::DeviceLimits& l = machine.limits();
  const std::vector<uint8_t> ub = RandomBytes(rng, static_cast<std::size_t>(l.ub_rows * l.n));
  std::copy(ub.begin(), ub.end(), machine.ub_row(0));
  for (int64_t i = 0; i < l.acc_rows * l.n; ++i) {
    machine.acc_row(0)[i] = static_cast<int32_t>(rng());
  }
  machine.dram().Write(
      0, RandomBytes(rng, static_cast<std::size_t>(std::min<int64_t>(l.dram_bytes, 65536))));
  machine.param_memory() = RandomBytes(rng, machine.param_memory().size());
  for (int8_t& entry : machine.lut()) entry = static_cast<int8_t>(rng());
}

void CheckProgram(const tb::GeneratedProgram& g, Coverage& coverage) {
  SCOPED_TRACE(tb::Describe(g));
  ASSERT_FALSE(g.program.empty());
  ASSERT_TRUE(std::holds_alternative<isa::Halt>(g.program.back()));
  for (std::size_t i = 0; i < g.program.size(); ++i) {
    ASSERT_EQ(isa::Validate(g.program[i], g.limits), isa::Error::kOk)
        << i << ": " << isa::Disassemble(g.program[i]);
    Record(g.program[i], g.limits.n, coverage);
  }
  // Segments: disjoint, inside the host space; compared entirely.
  for (std::size_t i = 0; i + 1 < g.memory.size(); ++i) {
    ASSERT_LE(g.memory[i].address + g.memory[i].bytes.size(), g.memory[i + 1].address);
  }
  ASSERT_LE(g.memory.back().address + g.memory.back().bytes.size(), uint64_t{1} << 48);
  ASSERT_EQ(g.compare.size(), g.memory.size());

  const auto hazard = FindUnorderedAccess(g.program, g.limits);
  ASSERT_FALSE(hazard) << hazard->message;
  for (uint64_t seed : {uint64_t{0}, g.seed * 31 + 1}) {
    ScheduleOptions options;
    options.seed = seed;
    const ScheduleResult s = SimulateSchedule(g.program, g.limits, options);
    ASSERT_TRUE(s.halted) << "schedule " << seed << ": " << isa::ErrorName(s.error) << " at "
                          << s.index << ": " << s.message;
    ASSERT_EQ(s.tokens, (std::array<int, 8>{}));
    if (s.max_fifo_tiles == isa::kWeightFifoTiles) coverage.Add("FIFO full");
  }
  // On a device whose memories start as zeros, and on one whose memories hold garbage: the
  // program reads only what it wrote, so both give the same host memory.
  Machine machine(g.limits);
  Machine garbage(g.limits);
  FillWithGarbage(garbage, g.seed);
  for (const tb::HostSegment& segment : g.memory) {
    machine.host().Write(segment.address, segment.bytes);
    garbage.host().Write(segment.address, segment.bytes);
  }
  const RunResult r = machine.Run(g.program);
  ASSERT_TRUE(r.halted()) << ToString(r);
  EXPECT_EQ(r.tokens, (std::array<int, 8>{}));
  const RunResult rg = garbage.Run(g.program);
  ASSERT_TRUE(rg.halted()) << "device memories not zero: " << ToString(rg);
  bool changed = false;
  for (const tb::HostRange& range : g.compare) {
    const std::vector<uint8_t> bytes = machine.host().Read(range.address, range.length);
    ASSERT_EQ(bytes, garbage.host().Read(range.address, range.length))
        << "the result depends on device memory the program never wrote";
  }
  for (const tb::HostSegment& segment : g.memory) {
    changed =
        changed || machine.host().Read(segment.address, segment.bytes.size()) != segment.bytes;
  }
  if (changed) coverage.Add("host memory written");
}

TEST(ProgramGen, EveryProgramIsValidOrderedAndRunsToHalt) {
  const uint64_t base = TestSeed();
  Coverage coverage;
  int programs = 0;
  for (const isa::DeviceLimits& limits : kConfigs) {
    for (uint64_t i = 0; i < 200; ++i) {
      const tb::GeneratedProgram g = tb::GenerateProgram(base + i, limits);
      CheckProgram(g, coverage);
      if (::testing::Test::HasFatalFailure()) return;
      ++programs;
    }
  }
  EXPECT_EQ(programs, 600);
  const char* expected[] = {"NOP",
                            "HALT",
                            "SYNC",
                            "READ_HOST",
                            "WRITE_HOST",
                            "READ_WEIGHTS",
                            "MATMUL",
                            "ACTIVATE",
                            "READ_HOST 0",
                            "READ_HOST 1",
                            "READ_HOST 2",
                            "READ_HOST 3",
                            "READ_HOST unaligned",
                            "READ_HOST partial",
                            "WRITE_HOST unaligned",
                            "WRITE_HOST partial",
                            "MATMUL accumulate",
                            "MATMUL overwrite",
                            "MATMUL new_tile",
                            "MATMUL same tile",
                            "ACTIVATE pool 0",
                            "ACTIVATE pool 1",
                            "ACTIVATE pool 2",
                            "ACTIVATE same",
                            "ACTIVATE valid",
                            "ACTIVATE window > image",
                            "ACTIVATE stride > window",
                            "ACTIVATE lut",
                            "SYNC units",
                            "SYNC wait",
                            "SYNC signal",
                            "FIFO full",
                            "host memory written"};
  for (const char* what : expected) EXPECT_EQ(coverage.seen.count(what), 1u) << what;
}

TEST(ProgramGen, BigProgramsWithLongTransfers) {
  const uint64_t base = TestSeed();
  Coverage coverage;
  tb::ProgramGenOptions options;
  options.min_ops = 150;
  options.max_ops = 250;
  options.max_rows = 100;
  options.acc_rows = 512;
  options.ub_rows = 1024;
  for (uint64_t i = 0; i < 6; ++i) {
    CheckProgram(tb::GenerateProgram(base + i, kConfigs[1], options), coverage);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ProgramGen, DeterministicInItsSeed) {
  const tb::GeneratedProgram a = tb::GenerateProgram(42, kConfigs[0]);
  const tb::GeneratedProgram b = tb::GenerateProgram(42, kConfigs[0]);
  const tb::GeneratedProgram c = tb::GenerateProgram(43, kConfigs[0]);
  ASSERT_EQ(a.program.size(), b.program.size());
  for (std::size_t i = 0; i < a.program.size(); ++i) {
    EXPECT_EQ(isa::Encode(a.program[i]), isa::Encode(b.program[i]));
  }
  ASSERT_EQ(a.memory.size(), b.memory.size());
  for (std::size_t i = 0; i < a.memory.size(); ++i) {
    EXPECT_EQ(a.memory[i].address, b.memory[i].address);
    EXPECT_EQ(a.memory[i].bytes, b.memory[i].bytes);
  }
  EXPECT_NE(a.memory[0].address, c.memory[0].address);
  EXPECT_THROW(tb::GenerateProgram(1, {8, 4, 16, 4096, 4}), std::invalid_argument);
}

}  // namespace
}  // namespace tpu::model
