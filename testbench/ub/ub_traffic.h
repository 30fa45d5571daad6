// Drives lists of operations through all four ports of a unified-buffer harness at once, with
// optional random gaps on every valid and every response ready, and checks every response
// against a reference model, under the buffer's ordering rule: a read accepted in cycle t sees
// every write accepted in cycles <= t.
#ifndef TPU_TESTBENCH_UB_UB_TRAFFIC_H_
#define TPU_TESTBENCH_UB_UB_TRAFFIC_H_

#include <array>
#include <cstdint>
#include <vector>

#include "ub/ub_harness.h"
#include "ub/ub_model.h"

namespace tpu::tb {

struct UbWriteOp {
  uint32_t addr = 0;
  std::vector<int8_t> row;    // n() bytes
  std::vector<uint8_t> mask;  // n() flags; empty = whole row (always whole on the activation port)
};

// Operations per port, each port's in order; index with int(UbWriter) / int(UbReader).
struct UbTraffic {
  std::array<std::vector<UbWriteOp>, 2> writes;
  std::array<std::vector<uint32_t>, 2> reads;  // row addresses
};

struct UbTrafficOptions {
  // Probability that a port with an operation pending starts offering it in a cycle; once
  // offered, it stays valid until accepted (valid/ready rule).
  std::array<double, 2> write_valid = {1.0, 1.0};
  std::array<double, 2> read_valid = {1.0, 1.0};
  std::array<double, 2> rsp_ready = {1.0, 1.0};  // probability a reader takes a response
  uint64_t seed = 1;
  uint64_t stall_limit = 10000;  // cycles without progress before the run counts as hung
};

struct UbPortStats {
  uint64_t accepted = 0;
  uint64_t wait_cycles = 0;   // cycles valid and not ready
  uint64_t max_wait = 0;      // longest run of such cycles
  uint64_t first_accept = 0;  // cycle of the first accepted operation (relative to the start)
  uint64_t last_accept = 0;   // ... of the last
};

struct UbTrafficStats {
  uint64_t cycles = 0;  // from the first offered operation until every response was taken
  std::array<UbPortStats, 2> write, read;
  std::array<uint64_t, 2> min_latency = {~0ull, ~0ull};  // request accepted -> response taken
};

// Runs `traffic` on `ub` and applies it to `model`. Throws std::runtime_error (naming the port,
// address, cycle and seed) on a wrong response, a response nobody asked for, two writes or two
// reads accepted in one cycle, or no progress for opts.stall_limit cycles.
UbTrafficStats RunUbTraffic(UbHarness& ub, UbModel& model, const UbTraffic& traffic,
                            const UbTrafficOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_UB_UB_TRAFFIC_H_
