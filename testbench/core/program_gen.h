// Random valid programs for the core tests: a host-memory image and a program mixing every
// instruction kind (READ_HOST to every target, WRITE_HOST, READ_WEIGHTS, MATMUL, ACTIVATE with
// and without LUT and pooling, SYNC, NOP) at random shapes, unaligned host addresses and random
// pooling configurations, ending in WRITE_HOSTs of the results and HALT.
//
// Every program is meant to give the same host memory on the device as on the reference machine
// (host_driver/model): it reads only device memory it wrote before (UB rows, accumulator rows,
// DRAM tiles, parameter sets, LUT entries), and every cross-unit hazard is ordered:
// - one token per producer -> consumer unit pair (t0 dma->matrix, t1 dma->weights,
//   t2 dma->activation, t3 matrix->activation, t4 activation->matrix, t5 activation->dma,
//   t6 matrix->dma). To order instruction Y after the latest conflicting instruction X of
//   another unit, X signals the pair's token and Y waits on it, unless an earlier wait of Y's
//   unit already paired with a signal at or after X, or a SYNC covered X; signals and waits
//   of each token pair up one to one, in order, so every counter is 0 at HALT;
// - weights -> dma (READ_HOST into DRAM bytes an earlier READ_WEIGHTS reads) uses
//   `SYNC units=weights`;
// - t7 carries no ordering: random instructions signal it and `SYNC wait=t7` consumes it.
// It never deadlocks on the device: every wait is satisfied by signals earlier in program order;
// MATMUL new_tile=1 always finds a tile pushed earlier in program order; READ_WEIGHTS pushes at
// most 4 tiles beyond what earlier MATMULs consumed, except that one READ_WEIGHTS may overfill the
// FIFO (up to 8 tiles). Until later MATMULs have drained it (in program order) no SYNC, no other
// READ_WEIGHTS and no READ_HOST into the DRAM follows, so nothing issued meanwhile depends on the
// blocked READ_WEIGHTS and the dispatcher always reaches the MATMULs that make room.
#ifndef TPU_TESTBENCH_CORE_PROGRAM_GEN_H_
#define TPU_TESTBENCH_CORE_PROGRAM_GEN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "isa/isa.h"

namespace tpu::tb {

struct HostSegment {
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};

struct HostRange {
  uint64_t address = 0;
  uint64_t length = 0;
};

struct GeneratedProgram {
  uint64_t seed = 0;
  isa::DeviceLimits limits;
  std::vector<isa::Instr> program;  // valid for `limits`, ends in HALT
  std::vector<HostSegment> memory;  // host memory before the run (disjoint segments)
  std::vector<HostRange> compare;   // host ranges to compare after the run (every segment)
};

struct ProgramGenOptions {
  int min_ops = 20;  // random operations before the final write-back
  int max_ops = 80;
  int64_t max_rows = 24;      // largest row count of one transfer, MATMUL or ACTIVATE
  int64_t ub_rows = 256;      // UB rows used (at most the device's)
  int64_t acc_rows = 128;     // accumulator rows used
  int64_t dram_tiles = 16;    // weight-DRAM tiles used
  int64_t param_sets = 8;     // parameter sets used
  bool fifo_overfill = true;  // allow a READ_WEIGHTS that overfills the FIFO (then drained)
};

// Deterministic in (seed, limits, options). Throws std::invalid_argument for limits the ISA does
// not support or too small to generate anything (UB or accumulator rows below 8).
GeneratedProgram GenerateProgram(uint64_t seed, const isa::DeviceLimits& limits,
                                 const ProgramGenOptions& options = {});

// "seed 12: 83 instructions (READ_HOST 20, WRITE_HOST 14, ...)".
std::string Describe(const GeneratedProgram& generated);

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CORE_PROGRAM_GEN_H_
