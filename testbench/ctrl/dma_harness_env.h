// C++ models around the DMA unit sequencer harness (DmaHarness): the queue head, a token stub,
// a host memory with random request readiness, random response latency and injectable errors,
// destination memories that record every row written (random dst_ready), and the UB read port
// (in-order responses with random latency, at most 2 owed, random readiness). Also the
// byte-copy reference of READ_HOST / WRITE_HOST (docs/isa.md).
#ifndef TPU_TESTBENCH_CTRL_DMA_HARNESS_ENV_H_
#define TPU_TESTBENCH_CTRL_DMA_HARNESS_ENV_H_

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "ctrl/dma_harness.h"

namespace tpu::tb {

// tpu_isa_pkg::target_e.
enum DmaTarget : int { kDmaUb = 0, kDmaDram = 1, kDmaParam = 2, kDmaLut = 3 };
inline constexpr int kDmaTargets = 4;

// One DMA instruction, as fields (encoded with tpu::isa::Encode).
struct DmaInstr {
  bool write = false;   // WRITE_HOST (else READ_HOST)
  int target = kDmaUb;  // READ_HOST only
  uint32_t dest = 0;    // READ_HOST: UB row (ub) or byte address (dram, param, lut)
  uint32_t ub = 0;      // WRITE_HOST: first UB row read
  uint32_t length = 0;  // bytes
  uint64_t host = 0;    // host byte address
  uint8_t wait = 0, signal = 0;
};
DmaWords EncodeDma(const DmaInstr& in);

// Every memory the unit touches. Destination byte a of target t is dst[t][a]; for the UB, row r
// byte b is dst[kDmaUb][r * n + b] (so a destination row write at row r, byte b always lands at
// r * n + b). WRITE_HOST reads dst[kDmaUb].
struct DmaMemories {
  uint64_t host_base = 0;     // host address of host[0]
  std::vector<uint8_t> host;  // host bytes [host_base, host_base + host.size())
  std::array<std::vector<uint8_t>, kDmaTargets> dst;
};

// What the instruction does to the memories (the reference), at row size n.
void ApplyDma(const DmaInstr& in, int n, DmaMemories* mem);

// Output rows (destination rows or host beats) and input beats (host beats or UB rows) of an
// instruction at row size n.
int64_t DmaRowsOut(const DmaInstr& in, int n);
int64_t DmaBeatsIn(const DmaInstr& in, int n);

struct DmaEnvConfig {
  double instr_valid = 1.0;   // chance the queue head is offered in a cycle
  double hm_req_ready = 1.0;  // chance hm_req_ready_i is high
  int hm_lat_min = 1;         // host read latency in cycles (request to response), >= 1
  int hm_lat_max = 1;
  double hm_rsp_valid = 1.0;  // chance a due host response is offered
  double dst_ready = 1.0;     // chance dst_ready_i is high
  double ub_req_ready = 1.0;  // chance the UB accepts a read (when fewer than 2 are owed)
  int ub_lat_max = 1;         // UB read latency 1 .. ub_lat_max cycles
  double ub_rsp_valid = 1.0;  // chance a due UB response is offered
};

// Every handshake seen, with its cycle.
struct DmaLog {
  struct Pop {
    uint64_t cycle;
    uint32_t index;
  };
  struct Take {
    uint64_t cycle;
    uint8_t mask;
  };
  struct Give {
    uint64_t cycle;
    uint8_t mask;
  };
  struct Error {
    uint64_t cycle;
    int code;
    uint32_t index;
  };
  struct HostReq {
    uint64_t cycle;
    bool write;
    uint64_t addr;
    uint64_t mask;
  };
  struct HostRsp {
    uint64_t cycle;
    bool error;
  };
  struct Row {
    uint64_t cycle;
    int target;
    uint32_t row;
    uint64_t mask;
    std::vector<uint8_t> data;
  };
  struct UbReq {
    uint64_t cycle;
    uint32_t row;
  };

  std::vector<Pop> pops;
  std::vector<Take> takes;
  std::vector<Give> gives;
  std::vector<Error> errors;
  std::vector<HostReq> host_reqs;
  std::vector<HostRsp> host_rsps;
  std::vector<Row> rows;
  std::vector<UbReq> ub_reqs;
  uint64_t ub_rsps = 0;
  // Cycles with the output high.
  uint64_t row_pulses = 0, stall = 0, stall_dep = 0, blocked = 0, idle = 0;
  // Protocol violations the models saw (unaligned or out-of-model addresses, a valid withdrawn
  // or changed before its handshake, an empty mask, wrong error code).
  std::vector<std::string> violations;
};

class DmaEnv {
 public:
  DmaEnv(DmaHarness* dut, DmaMemories mem, uint64_t seed);

  DmaEnvConfig& config() { return cfg_; }
  DmaMemories& mem() { return mem_; }
  std::array<int, 8>& tokens() { return tokens_; }  // the stub's counters
  const DmaLog& log() const { return log_; }
  uint64_t cycle() const { return dut_->cycle(); }

  // Queues an instruction behind the others; returns its index (0, 1, ... since construction).
  uint32_t Push(const DmaInstr& in);
  size_t queued() const { return queue_.size(); }
  void SetAbort(bool abort) { abort_ = abort; }
  void SetHoldGrants(bool hold) { hold_grants_ = hold; }  // refuse every take
  // Fails the read beat with this number (0 = first read request accepted since construction).
  void InjectReadError(int64_t beat) { error_beat_ = beat; }
  int64_t reads_accepted() const { return reads_; }

  void Step();  // one cycle: drive inputs, let the token stub answer, record handshakes, tick
  // Steps until the queue is empty, the unit is idle and no response is owed; false on timeout.
  bool RunUntilIdle(int max_cycles);
  bool Quiet() const { return hm_rsp_.empty() && ub_rsp_.empty(); }

 private:
  struct Rsp {
    uint64_t due;
    std::vector<uint8_t> data;
    bool error;
  };
  struct Offer {  // an offer not taken in the previous cycle: it must stay unchanged
    bool valid = false;
    uint64_t addr = 0, mask = 0;
    std::vector<uint8_t> data;
  };

  bool Chance(double p) { return p >= 1.0 || std::bernoulli_distribution(p)(rng_); }
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  void Violation(const std::string& what);
  void CheckStable(Offer* prev, bool valid, bool taken, uint64_t addr, uint64_t mask,
                   const std::vector<uint8_t>& data, const char* port);

  DmaHarness* dut_;
  DmaMemories mem_;
  std::mt19937_64 rng_;
  DmaEnvConfig cfg_;
  std::array<int, 8> tokens_{};
  struct Queued {
    DmaWords words;
    uint32_t index;
  };
  std::deque<Queued> queue_;
  uint32_t next_index_ = 0;
  bool abort_ = false, hold_grants_ = false;
  int64_t error_beat_ = -1, reads_ = 0;
  std::deque<Rsp> hm_rsp_, ub_rsp_;
  int ub_owed_ = 0;
  Offer hm_prev_, dst_prev_, ub_prev_;
  DmaLog log_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_DMA_HARNESS_ENV_H_
