// Client models of the host interface's DMA engines, free of Verilator: a read client (the
// core's host-memory reads or the ring's slot fetches: beat requests, responses checked in
// order against host memory) and a write client (beats with byte masks, applied to an
// expected copy of host memory as they are queued).
#ifndef TPU_TESTBENCH_HOST_IF_DMA_CLIENTS_H_
#define TPU_TESTBENCH_HOST_IF_DMA_CLIENTS_H_

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "host_if/root_complex.h"
#include "model/host_memory.h"

namespace tpu::tb {

// One DMA beat of the clients' ports: beat_bytes bytes (the TLP stream's width / 8), byte b
// at [8b +: 8].
using DmaBeat = std::vector<uint8_t>;

class ReadClient {
 public:
  // Responses (beats of `beat_bytes`) are checked against `rc`'s host memory when they
  // arrive. A beat may return with an error only if the MaxReadReq block holding it touches a
  // fault or silent range, and must if the beat itself touches one.
  ReadClient(RootComplex* rc, int max_read_req, int beat_bytes, uint64_t seed);
  void set_rates(double req_prob, double rsp_prob) {
    req_prob_ = req_prob;
    rsp_prob_ = rsp_prob;
  }
  // Requests the beats covering [addr, addr + length); mark_last: the last one has req_last.
  void Read(uint64_t addr, uint64_t length, bool mark_last = false);
  void Flush();  // forget what is queued and expected (the engine was flushed)

  void BeginCycle();
  bool req_valid() const { return offering_; }
  uint64_t req_addr() const { return queue_.front().addr; }
  bool req_last() const { return queue_.front().last; }
  void OnReqTaken();
  bool rsp_ready() const { return rsp_ready_; }
  void OnResponse(const DmaBeat& data, bool error);

  bool done() const { return queue_.empty() && expected_.empty(); }
  uint64_t beats_ok() const { return beats_ok_; }
  uint64_t beats_error() const { return beats_error_; }
  const std::vector<std::string>& mismatches() const { return mismatches_; }

 private:
  struct Req {
    uint64_t addr;
    bool last;
  };
  bool ErrorAllowed(uint64_t beat) const;
  bool ErrorRequired(uint64_t beat) const;

  RootComplex* rc_;
  int max_read_req_;
  uint64_t beat_bytes_;
  std::mt19937_64 rng_;
  double req_prob_ = 1.0, rsp_prob_ = 1.0;
  std::deque<Req> queue_;
  std::deque<uint64_t> expected_;
  bool offering_ = false, rsp_ready_ = true;
  uint64_t beats_ok_ = 0, beats_error_ = 0;
  std::vector<std::string> mismatches_;
};

class WriteClient {
 public:
  // Every queued byte is also written into `expected`. Beats of `beat_bytes` (<= 64).
  WriteClient(model::HostMemory* expected, int beat_bytes, uint64_t seed);
  void set_rate(double req_prob) { req_prob_ = req_prob; }
  // Writes [addr, addr + bytes.size()) as beats with byte masks.
  void Write(uint64_t addr, const std::vector<uint8_t>& bytes);
  // One beat with any mask (bit b: byte b).
  void WriteBeat(uint64_t beat_addr, const DmaBeat& data, uint64_t mask);
  void Flush();  // forget what is queued

  void BeginCycle();
  bool req_valid() const { return offering_; }
  uint64_t req_addr() const { return queue_.front().addr; }
  const DmaBeat& req_data() const { return queue_.front().data; }
  uint64_t req_mask() const { return queue_.front().mask; }
  void OnTaken();
  bool done() const { return queue_.empty(); }
  uint64_t beats() const { return beats_; }

 private:
  struct Beat {
    uint64_t addr;
    DmaBeat data;
    uint64_t mask;
  };
  model::HostMemory* expected_;
  uint64_t beat_bytes_;
  std::mt19937_64 rng_;
  double req_prob_ = 1.0;
  std::deque<Beat> queue_;
  bool offering_ = false;
  uint64_t beats_ = 0;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_DMA_CLIENTS_H_
