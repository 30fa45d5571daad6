// The example programs of docs/isa.md (isa/examples/*.tasm): they assemble on the default
// device, are written in the disassembler's canonical form, and run to HALT under the
// dependency rules of docs/isa.md with every token counter back at 0. The rules are played by a
// small abstract machine: in-order unit queues, token counters, the weight FIFO.
#include <gtest/gtest.h>

#include <array>
#include <deque>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "isa/isa.h"

namespace tpu::isa {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kDenseExample = std::string(TPU_ISA_EXAMPLES_DIR) + "/dense_double_buffer.tasm";

// --------------------------------------------------------------------------------------------
// Abstract machine of the dependency rules: one legal schedule in which an instruction
// completes as soon as it can start. Queue depth 2 per unit, so that a full queue holds the
// dispatcher back as it would on the device.
// --------------------------------------------------------------------------------------------
struct RunResult {
  Error error = Error::kOk;
  bool halted = false;
  int failing_index = -1;
  std::array<int, kNumTokens> tokens{};
  int tiles_pushed = 0;
  int tiles_used = 0;
};

class TokenMachine {
 public:
  explicit TokenMachine(std::vector<Instr> program) : program_(std::move(program)) {}

  RunResult Run() {
    while (result_.error == Error::kOk && !result_.halted) {
      bool progress = Dispatch();
      for (auto& queue : queues_) progress = Execute(queue) || progress;
      if (!progress && result_.error == Error::kOk && !result_.halted) {
        if (pc_ >= static_cast<int>(program_.size())) break;  // waits for the host
        result_.error = Error::kDeadlock;
        result_.failing_index = pc_;
      }
    }
    return result_;
  }

 private:
  struct Entry {
    int index;
    bool started = false;
    int tiles_left = 0;  // READ_WEIGHTS
  };

  static uint8_t Mask(const Instr& instr, const char* name) {
    const InstrInfo& info = InfoOf(instr);
    const FieldValues values = ValuesOf(instr);
    for (int i = 0; i < info.num_fields; ++i) {
      if (std::string(info.fields[i].name) == name) return static_cast<uint8_t>(values[i]);
    }
    return 0;
  }

  bool TokensAvailable(uint8_t wait) const {
    for (int t = 0; t < kNumTokens; ++t) {
      if (((wait >> t) & 1) && result_.tokens[t] == 0) return false;
    }
    return true;
  }

  void Consume(uint8_t wait) {
    for (int t = 0; t < kNumTokens; ++t) result_.tokens[t] -= (wait >> t) & 1;
  }

  void Signal(uint8_t signal, int index) {
    for (int t = 0; t < kNumTokens; ++t) {
      if (((signal >> t) & 1) == 0) continue;
      if (result_.tokens[t] == kTokenMax) {
        result_.error = Error::kTokenOverflow;
        result_.failing_index = index;
        return;
      }
      ++result_.tokens[t];
    }
  }

  bool AllIdle(uint8_t units) const {
    for (int u = 0; u < 4; ++u) {
      if (((units >> u) & 1) && !queues_[u].empty()) return false;
    }
    return true;
  }

  bool Dispatch() {
    if (pc_ >= static_cast<int>(program_.size())) return false;
    const Instr& instr = program_[pc_];
    const Unit unit = InfoOf(instr).unit;
    if (unit == Unit::kControl) {
      if (std::holds_alternative<Halt>(instr)) {
        if (!AllIdle(kUnitsAll)) return false;
        result_.halted = true;
        return true;
      }
      if (const auto* sync = std::get_if<Sync>(&instr)) {
        if (!AllIdle(sync->units) || !TokensAvailable(sync->wait)) return false;
        Consume(sync->wait);
        Signal(sync->signal, pc_);
      }
      ++pc_;
      return true;
    }
    auto& queue = queues_[static_cast<int>(unit) - 1];
    if (queue.size() >= 2) return false;
    Entry entry{pc_};
    if (const auto* rw = std::get_if<ReadWeights>(&instr)) entry.tiles_left = rw->tiles;
    queue.push_back(entry);
    ++pc_;
    return true;
  }

  bool Execute(std::deque<Entry>& queue) {
    if (queue.empty()) return false;
    Entry& head = queue.front();
    const Instr& instr = program_[head.index];
    bool progress = false;
    if (!head.started) {
      if (!TokensAvailable(Mask(instr, "wait"))) return false;
      Consume(Mask(instr, "wait"));
      head.started = true;
      progress = true;
    }
    if (std::holds_alternative<ReadWeights>(instr)) {
      while (head.tiles_left > 0 && fifo_ < kWeightFifoTiles) {
        --head.tiles_left;
        ++fifo_;
        ++result_.tiles_pushed;
        progress = true;
      }
      if (head.tiles_left > 0) return progress;
    }
    if (const auto* m = std::get_if<Matmul>(&instr)) {
      if (m->new_tile) {
        if (fifo_ == 0) return progress;
        --fifo_;
        ++result_.tiles_used;
        has_tile_ = true;
      } else if (!has_tile_) {
        result_.error = Error::kNoTile;
        result_.failing_index = head.index;
        return true;
      }
    }
    Signal(Mask(instr, "signal"), head.index);
    queue.pop_front();
    return true;
  }

  std::vector<Instr> program_;
  std::array<std::deque<Entry>, 4> queues_;  // dma, weights, matrix, activation
  int pc_ = 0;
  int fifo_ = 0;
  bool has_tile_ = false;
  RunResult result_;
};

RunResult RunText(const std::string& text) {
  std::vector<Instr> program;
  for (const Words& words : Assemble(text)) program.push_back(Decode(words).instr);
  return TokenMachine(program).Run();
}

// --------------------------------------------------------------------------------------------

TEST(Programs, DenseExampleAssemblesOnTheDefaultDevice) {
  const std::vector<Words> program = Assemble(ReadFile(kDenseExample));
  EXPECT_EQ(program.size(), 19u);
  for (const Words& words : program) EXPECT_EQ(Check(words, DeviceLimits{}), Error::kOk);
}

TEST(Programs, DenseExampleIsInCanonicalForm) {
  std::istringstream lines(ReadFile(kDenseExample));
  std::string line;
  while (std::getline(lines, line)) {
    const size_t hash = line.find('#');
    std::string code = line.substr(0, hash);
    while (!code.empty() && code.back() == ' ') code.pop_back();
    if (code.empty()) continue;
    EXPECT_EQ(Disassemble(Assemble(code).at(0)), code);
  }
}

TEST(Programs, DenseExampleRunsToHaltWithBalancedTokens) {
  const RunResult r = RunText(ReadFile(kDenseExample));
  EXPECT_EQ(ErrorName(r.error), "OK");
  EXPECT_TRUE(r.halted);
  EXPECT_EQ(r.tokens, (std::array<int, kNumTokens>{}));
  EXPECT_EQ(r.tiles_pushed, 6);
  EXPECT_EQ(r.tiles_used, 6);
}

TEST(Programs, MachineDetectsTheDocumentedRunTimeErrors) {
  // A wait nobody signals.
  RunResult r = RunText("MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=0 wait=t0\nHALT\n");
  EXPECT_EQ(r.error, Error::kDeadlock);
  EXPECT_EQ(r.failing_index, 1);
  r = RunText("SYNC wait=t2\nNOP\n");
  EXPECT_EQ(r.error, Error::kDeadlock);
  EXPECT_EQ(r.failing_index, 0);
  // A new tile nobody fetches.
  r = RunText("MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=1\nHALT\n");
  EXPECT_EQ(r.error, Error::kDeadlock);
  // A tile used before any was switched in.
  r = RunText("MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=0\nHALT\n");
  EXPECT_EQ(r.error, Error::kNoTile);
  // A counter signalled past TOKEN_MAX.
  std::string many;
  for (int i = 0; i <= kTokenMax; ++i) many += "SYNC signal=t5\n";
  r = RunText(many);
  EXPECT_EQ(r.error, Error::kTokenOverflow);
  EXPECT_EQ(r.failing_index, kTokenMax);
  // SYNC credits: a pre-loaded token lets the first consumer run.
  r = RunText(
      "SYNC signal=t4\n"
      "READ_WEIGHTS dram_tile=0 tiles=1\n"
      "MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=1 wait=t4 signal=t3\n"
      "ACTIVATE acc=0 ub=0 rows=1 param_set=0 wait=t3\n"
      "HALT\n");
  EXPECT_EQ(r.error, Error::kOk);
  EXPECT_TRUE(r.halted);
}

}  // namespace
}  // namespace tpu::isa
