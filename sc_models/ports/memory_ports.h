// Cycle models of tpu_core's memory-side ports (docs/controller.md sections 2 and 5), plain C++
// (no Verilator, no SystemC) so that they can serve any harness and the system model: the host-memory DMA port (one beat of N bytes
// per request, reads answered in order after a latency) and the weight-DRAM ports (one request
// per N x N tile answered by its beats in order at a configurable rate; row writes). Each
// cycle: BeginCycle() draws this cycle's readiness, the harness drives the outputs below into
// the DUT, evaluates it, reports the handshakes that fired (On*), then clocks it.
#ifndef TPU_SC_MODELS_PORTS_MEMORY_PORTS_H_
#define TPU_SC_MODELS_PORTS_MEMORY_PORTS_H_

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "model/host_memory.h"
#include "model/sparse_memory.h"

namespace tpu::sc {

// Timing of one port: a request is taken in a cycle with probability ready_prob; a read's data
// is there latency cycles later (drawn in [min_latency, max_latency]); the response side is
// offered in a cycle with probability rsp_prob once due (back-to-back otherwise).
struct PortTiming {
  double ready_prob = 1.0;
  int min_latency = 1;
  int max_latency = 1;
  double rsp_prob = 1.0;
};

class HostPortModel {
 public:
  // Reads of beats that touch a fault range of `memory` (model::HostMemory::AddFault) answer
  // with the error flag and zero data.
  HostPortModel(model::HostMemory* memory, int beat_bytes, uint64_t seed);
  void set_timing(const PortTiming& timing) { timing_ = timing; }
  void Clear();  // drop outstanding reads (after a reset)

  void BeginCycle(uint64_t cycle);
  bool req_ready() const { return req_ready_; }
  bool rsp_valid() const { return rsp_valid_; }
  const std::vector<uint8_t>& rsp_data() const { return pending_.front().data; }
  bool rsp_error() const { return rsp_valid_ && pending_.front().error; }

  // A request fired this cycle. `mask` bit b writes byte b.
  void OnRequest(bool write, uint64_t addr, const std::vector<uint8_t>& wdata,
                 const std::vector<bool>& mask);
  void OnResponseTaken();

  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t bytes_written() const { return bytes_written_; }
  size_t outstanding() const { return pending_.size(); }

 private:
  struct Pending {
    uint64_t due;
    bool error;
    std::vector<uint8_t> data;
  };
  model::HostMemory* memory_;
  int beat_bytes_;
  std::mt19937_64 rng_;
  PortTiming timing_;
  std::deque<Pending> pending_;
  uint64_t cycle_ = 0;
  bool req_ready_ = true, rsp_valid_ = false;
  uint64_t bytes_read_ = 0, bytes_written_ = 0;
};

class DramPortModel {
 public:
  // beat_bits: the read port's width; rows of n bytes on the write port; size in bytes. The
  // bytes are stored sparsely (only pages written), so an 8 GiB DRAM costs what it holds.
  DramPortModel(int n, int beat_bits, uint64_t size, uint64_t seed);
  void set_timing(const PortTiming& timing) { timing_ = timing; }
  model::SparseMemory& bytes() { return bytes_; }
  const model::SparseMemory& bytes() const { return bytes_; }
  void Clear();  // drop outstanding reads (after a reset)

  void BeginCycle(uint64_t cycle);
  bool req_ready() const { return req_ready_; }
  bool rsp_valid() const { return rsp_valid_; }
  const std::vector<uint8_t>& rsp_data() const { return beats_.front().data; }
  bool wr_ready() const { return wr_ready_; }

  void OnTileRequest(uint64_t addr);  // a tile of n * n bytes at this byte address
  void OnBeatTaken();
  void OnWrite(uint64_t addr, const std::vector<uint8_t>& data, const std::vector<bool>& mask);

  uint64_t tiles_requested() const { return tiles_; }
  size_t outstanding_beats() const { return beats_.size(); }

 private:
  struct Beat {
    uint64_t due;
    std::vector<uint8_t> data;
  };
  int n_, beat_bytes_;
  model::SparseMemory bytes_;
  std::mt19937_64 rng_;
  PortTiming timing_;
  std::deque<Beat> beats_;
  uint64_t cycle_ = 0, tiles_ = 0;
  bool req_ready_ = true, rsp_valid_ = false, wr_ready_ = true;
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_PORTS_MEMORY_PORTS_H_
