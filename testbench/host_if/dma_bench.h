// The DMA test top (tpu_host_dma_tb) in a bench, free of Verilator: a root-complex model on the
// TLP streams, two read clients, a write client, a register-port stub (a word per offset;
// reads return it, writes merge their byte enables into it) and MSI requests. Step() runs one
// cycle; Run() until everything is quiet.
#ifndef TPU_TESTBENCH_HOST_IF_DMA_BENCH_H_
#define TPU_TESTBENCH_HOST_IF_DMA_BENCH_H_

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>

#include "host_if/dma_clients.h"
#include "host_if/dma_tb_model.h"
#include "host_if/root_complex.h"
#include "model/host_memory.h"

namespace tpu::tb {

class DmaBench {
 public:
  DmaBench(std::unique_ptr<DmaTbModel> model, const RcConfig& rc_config, uint64_t seed);

  const DmaTbConfig& config() const { return model_->config(); }
  model::HostMemory& memory() { return memory_; }      // the root complex's host memory
  model::HostMemory& expected() { return expected_; }  // what the writes should leave
  RootComplex& rc() { return rc_; }
  ReadClient& reader(int c) { return *readers_[c]; }
  WriteClient& writer() { return writer_; }
  std::map<uint16_t, uint32_t>& regs() { return regs_; }  // the register stub's words
  void set_reg_ready(double p) { reg_ready_prob_ = p; }

  void RequestMsi(uint64_t addr, uint16_t data);  // one msi_request pulse in the next cycle
  void FlushReader(int c);  // rd_flush_i[c] pulse in the next cycle; the client forgets all
  void FlushWriter();       // wr_flush_i pulse in the next cycle
  void Close();             // wr_close_i pulse in the next cycle

  void Step();
  // Steps until the clients are done, the root complex is idle, the write engine is empty
  // and the read engine has nothing in flight; false if max_cycles pass first.
  bool Run(uint64_t max_cycles);
  void Idle(uint64_t cycles);

  uint64_t cycle() const { return model_->cycle(); }
  const DmaTbOutputs& out() const { return out_; }
  uint64_t msi_sent() const { return msi_sent_; }
  uint64_t cpl_unexpected() const { return cpl_unexpected_; }
  uint64_t timeouts() const { return timeouts_; }
  uint64_t reg_writes() const { return reg_writes_; }
  uint64_t reg_reads() const { return reg_reads_; }

 private:
  std::unique_ptr<DmaTbModel> model_;
  model::HostMemory memory_, expected_;
  RootComplex rc_;
  std::array<std::unique_ptr<ReadClient>, 2> readers_;
  WriteClient writer_;
  std::mt19937_64 rng_;
  std::map<uint16_t, uint32_t> regs_;
  std::deque<uint32_t> reg_rsp_;
  double reg_ready_prob_ = 1.0;
  DmaTbOutputs out_;
  bool msi_pulse_ = false, wr_flush_ = false, wr_close_ = false;
  std::array<bool, 2> rd_flush_{};
  uint64_t msi_addr_ = 0;
  uint16_t msi_data_ = 0;
  uint64_t msi_sent_ = 0, cpl_unexpected_ = 0, timeouts_ = 0, reg_writes_ = 0, reg_reads_ = 0;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_DMA_BENCH_H_
