// The reference machine: an ISA-level functional model of the device (docs/isa.md). It holds
// every memory the instructions name and executes a program in program order, one instruction
// completely before the next, bit-exact with tpu::golden for the arithmetic.
//
// Program order is the device's result for every program whose tokens order all conflicting
// accesses (docs/isa.md, rule 2), provided the program also works when run one instruction at a
// time: each `wait` finds its counters > 0 from signals earlier in program order, and each
// MATMUL new_tile=1 finds a tile pushed by a READ_WEIGHTS earlier in program order. A program
// that relies on a later producer (legal on the device while the queues let it through) stops
// with a model error instead (RunStatus::kModelError). The weight FIFO's capacity is not
// enforced: a READ_WEIGHTS pushes all its tiles at once; on the device it waits while the FIFO
// is full, which only matters for deadlocks (see model/schedule.h).
//
// Errors are reported as the device's status register would hold them: the first one, with the
// index of the failing instruction. Decode errors (isa::Check) leave no effect; NO_TILE and
// DMA_ERROR leave none either (the device may have written part of a failing transfer);
// TOKEN_OVERFLOW is raised after the instruction's effects. Token overflow is detected on the
// program-order counts; a device whose producers run ahead of their consumers can overflow
// earlier.
#ifndef TPU_MODEL_MACHINE_H_
#define TPU_MODEL_MACHINE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "golden/activation.h"
#include "isa/isa_gen.h"
#include "isa/program.h"
#include "model/host_memory.h"
#include "model/matmul_kernel.h"
#include "model/run_result.h"
#include "model/sparse_memory.h"
#include "model/zeroed_array.h"

namespace tpu::model {

class Machine {
 public:
  // Throws std::invalid_argument for limits the ISA does not support (isa::CheckLimits).
  explicit Machine(const isa::DeviceLimits& limits);

  const isa::DeviceLimits& limits() const { return limits_; }
  int64_t n() const { return limits_.n; }

  // Host memory, the DMA's side of PCIe.
  HostMemory& host() { return host_; }
  const HostMemory& host() const { return host_; }

  // Device memories; they keep their contents across runs (like the hardware's memories on a
  // queue start) and start as zeros.
  uint8_t* ub_row(int64_t row) { return &ub_[Index(row, limits_.ub_rows, "UB")]; }
  const uint8_t* ub_row(int64_t row) const { return &ub_[Index(row, limits_.ub_rows, "UB")]; }
  int32_t* acc_row(int64_t row) { return &acc_[Index(row, limits_.acc_rows, "accumulator")]; }
  const int32_t* acc_row(int64_t row) const {
    return &acc_[Index(row, limits_.acc_rows, "accumulator")];
  }
  SparseMemory& dram() { return dram_; }
  const SparseMemory& dram() const { return dram_; }
  std::vector<uint8_t>& param_memory() { return param_; }
  const std::vector<uint8_t>& param_memory() const { return param_; }
  golden::Lut& lut() { return lut_; }
  const golden::Lut& lut() const { return lut_; }

  // State of the last run: the weight FIFO and the tile the MXU holds.
  const std::deque<const PackedTile*>& weight_fifo() const { return fifo_; }
  const PackedTile* current_tile() const { return tile_; }  // null: none
  const std::array<int, isa::kNumTokens>& tokens() const { return tokens_; }

  // Starts the queue (tokens cleared, weight FIFO emptied, no current tile, like the device's
  // start) and executes `program` from instruction 0 until HALT, an error or its end.
  RunResult Run(const std::vector<isa::Words>& program);
  // The two halves of Run, for a device that receives its program piece by piece (the model
  // device's instruction ring): Start() starts the queue; Resume(words, count, first)
  // executes words[0..count), instructions first..first + count - 1 of the program, in
  // program order without starting it again (tokens, FIFO and tile as the earlier
  // instructions left them), until HALT, an error or the end (kEndOfProgram, to go on with
  // the next Resume), with indexes counted from the program's instruction 0. Executing a
  // prefix gives the same state as executing it within the whole program: program order never
  // looks ahead.
  // `decoded`, if not null, receives each instruction executed (decoded; HALT included, the
  // failing one not), for a caller that needs them too (the model device's timing).
  void Start();
  RunResult Resume(const isa::Words* words, std::size_t count, std::size_t first,
                   std::vector<isa::Instr>* decoded = nullptr);
  // The same for instructions; throws std::invalid_argument for one that cannot be encoded.
  RunResult Run(const std::vector<isa::Instr>& program);
  RunResult Run(const isa::Program& program) { return Run(program.words()); }

 private:
  // Outcome of executing one decoded instruction.
  struct Step {
    RunStatus status = RunStatus::kEndOfProgram;  // kEndOfProgram: continue
    isa::Error error = isa::Error::kOk;
    ModelError model_error = ModelError::kNone;
    std::string message;
  };

  std::size_t Index(int64_t row, int64_t rows, const char* what) const;

  Step Execute(const isa::Instr& instr);
  Step Take(uint8_t wait);
  Step Give(uint8_t signal);
  Step Exec(const isa::ReadHost& instr);
  Step Exec(const isa::WriteHost& instr);
  Step Exec(const isa::ReadWeights& instr);
  Step Exec(const isa::Matmul& instr);
  Step Exec(const isa::Activate& instr);
  // MATMULs are executed in blocks: a MATMUL that accumulates onto the rows of the one before
  // joins its block. Blocks stay pending until an instruction uses what they change or
  // changes what they read: an ACTIVATE reading their accumulator rows or writing UB rows they
  // read, a READ_HOST writing such UB rows, and the end of Resume run them first (so every
  // other instruction, and every caller, sees program order's memories). Then they run back
  // to back, in program order: AMX takes about a microsecond to start again after the other
  // work of a few instructions (measured), so two blocks at once cost less than one at a time.
  void Flush();
  // Flush() if a pending block writes accumulator rows [row, row + rows).
  void FlushIfWritesAcc(int64_t row, int64_t rows);
  // Flush() if a pending block reads UB rows [row, row + rows).
  void FlushIfReadsUb(int64_t row, int64_t rows);

  isa::DeviceLimits limits_;
  HostMemory host_;
  ZeroedArray<uint8_t> ub_;
  ZeroedArray<int32_t> acc_;
  SparseMemory dram_;
  std::vector<uint8_t> param_;
  golden::Lut lut_{};
  // The weight FIFO and the MXU's tile (null: none): tiles owned by packed_ or retired_.
  std::deque<const PackedTile*> fifo_;
  const PackedTile* tile_ = nullptr;
  // The weight DRAM's tiles as READ_WEIGHTS packed them, by tile index (a slot per tile of the
  // DRAM, null until packed): a layer's tiles are pushed once per M chunk, packed once. A
  // READ_HOST to the DRAM empties the slots it overlaps; any other change of dram_ (seen in
  // its write count, packed_writes_) empties them all. packed_used_ lists the slots filled
  // (some perhaps emptied since), packed_live_ counts them. Tiles leave the cache for
  // retired_, which keeps those the FIFO, the MXU or the pending block still use (they keep
  // the bytes they were read with) and frees the others. Plain pointers everywhere else: a
  // 1024^3 layer at N = 16 pushes 139,264 tiles, and a count per push would touch a cold line
  // each.
  const PackedTile* PackedTileAt(uint64_t tile);
  // Empties the slots of tiles first..last.
  void ForgetPackedTiles(uint64_t first, uint64_t last);
  // Frees the retired tiles that nothing uses any more.
  void PruneRetired();
  std::vector<std::unique_ptr<PackedTile>> packed_;
  std::vector<uint64_t> packed_used_;
  uint64_t packed_live_ = 0;
  std::vector<std::unique_ptr<PackedTile>> retired_;
  std::size_t retired_limit_ = 1024;  // PruneRetired when retired_ grows past this
  std::vector<int8_t> tile_bytes_;  // a tile read from the DRAM, to pack
  uint64_t packed_writes_ = 0;  // dram_.writes() when packed_ was last valid
  // The pending blocks of MATMULs, in program order: `tiles` MATMULs onto `rows` accumulator
  // rows from `acc`, the first overwriting them unless `accumulate`; the block's MATMUL t is
  // entry first + t of the arrays below. MATMUL i's activation rows are block_sets_[i]: a
  // range of UB rows, or a window's taps, kept in block_taps_ from block_tap_first_[i]
  // (resolved to pointers when the blocks run: block_taps_ may grow meanwhile; -1 for a
  // range); its tile block_tile_ptrs_[i]: tile_, or a tile switched from since. The blocks
  // read UB rows [pending_ub_first_, pending_ub_end_) at most.
  struct Block {
    int64_t acc = 0;
    int64_t rows = 0;
    bool accumulate = false;
    std::size_t first = 0;
    int64_t tiles = 0;
  };
  // More run first: a program of independent blocks (no ACTIVATE between them) would
  // otherwise hold every block's sets and taps until its end.
  static constexpr std::size_t kMaxPendingBlocks = 16;
  std::vector<Block> blocks_;
  int64_t pending_ub_first_ = 0;
  int64_t pending_ub_end_ = 0;
  std::vector<RowSet> block_sets_;
  std::vector<int64_t> block_tap_first_;
  std::vector<const int8_t*> block_taps_;  // the first block_taps_size_ are the blocks'
  std::size_t block_taps_size_ = 0;
  std::vector<const PackedTile*> block_tile_ptrs_;
  // Room for `rows` more taps of the block: the index of the first.
  std::size_t BlockTaps(int64_t rows);
  std::vector<int8_t> pad_rows_;  // window MATMULs' taps outside the image: value v at (v + 128) N
  std::vector<int8_t> activated_;  // an ACTIVATE's output
  std::array<int, isa::kNumTokens> tokens_{};
};

}  // namespace tpu::model

#endif  // TPU_MODEL_MACHINE_H_
