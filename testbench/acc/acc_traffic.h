// Drives a stream of MXU writes and a stream of reads through an accumulator harness at once,
// with optional random gaps in the write stream, the read requests and the response ready, and
// checks every response against a reference model under the accumulators' ordering rule: a
// read accepted in cycle t sees every write accepted in cycles < t and none later.
#ifndef TPU_TESTBENCH_ACC_ACC_TRAFFIC_H_
#define TPU_TESTBENCH_ACC_ACC_TRAFFIC_H_

#include <cstdint>
#include <vector>

#include "acc/acc_harness.h"
#include "acc/acc_model.h"

namespace tpu::tb {

struct AccWriteOp {
  uint32_t addr = 0;
  bool accumulate = false;   // 1: row += data; 0: row = data
  std::vector<int32_t> row;  // n() values
};

struct AccTraffic {
  std::vector<AccWriteOp> writes;  // in order, one per cycle at most (the MXU's stream)
  std::vector<uint32_t> reads;     // row addresses, in order
};

struct AccTrafficOptions {
  double write_valid = 1.0;  // probability that the next write is sent in a cycle
  // Probability that a pending read starts being requested in a cycle; once requested, it stays
  // valid until accepted (valid/ready rule).
  double read_valid = 1.0;
  double rsp_ready = 1.0;   // probability that the reader takes a response in a cycle
  uint64_t read_delay = 0;  // cycles before the first read is requested
  uint64_t seed = 1;
  uint64_t stall_limit = 10000;  // cycles without progress before the run counts as hung
};

struct AccTrafficStats {
  uint64_t cycles = 0;           // from the start until every write landed and response was taken
  uint64_t writes = 0;           // rows written
  uint64_t write_first = 0;      // cycle of the first write (relative to the start)
  uint64_t write_last = 0;       // ... of the last
  uint64_t reads = 0;            // reads accepted
  uint64_t read_first = 0;       // cycle of the first accepted read
  uint64_t read_last = 0;        // ... of the last
  uint64_t rsp_first = 0;        // cycle of the first response taken
  uint64_t rsp_last = 0;         // ... of the last
  uint64_t read_wait = 0;        // cycles a read was requested and not accepted
  uint64_t read_stall = 0;       // ... of which because of the write stream (rd_stall)
  uint64_t min_latency = ~0ull;  // read accepted -> response taken
  double WriteRowsPerCycle() const {
    return writes ? double(writes) / double(write_last - write_first + 1) : 0.0;
  }
  double ReadRowsPerCycle() const {
    return reads ? double(reads) / double(read_last - read_first + 1) : 0.0;
  }
  double ResponseRowsPerCycle() const {
    return reads ? double(reads) / double(rsp_last - rsp_first + 1) : 0.0;
  }
};

// Runs `traffic` on `acc` and applies it to `model`. Throws std::runtime_error (naming the
// address, cycle and seed) on a wrong response, a response nobody asked for, or no progress
// for opts.stall_limit cycles.
AccTrafficStats RunAccTraffic(AccHarness& acc, AccModel& model, const AccTraffic& traffic,
                              const AccTrafficOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACC_ACC_TRAFFIC_H_
