// CoreHarness over one Verilated tpu_core configuration. Include only from the model's own
// library (testbench/core/core_harness_model.cpp.in): the VM_* defines are private to it.
#ifndef TPU_TESTBENCH_CORE_CORE_HARNESS_IMPL_H_
#define TPU_TESTBENCH_CORE_CORE_HARNESS_IMPL_H_

#include <random>
#include <vector>

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "core/core_harness.h"

namespace tpu::tb {

template <typename Vtop>
class CoreHarnessImpl final : public CoreHarness {
 public:
  CoreHarnessImpl(const CoreConfig& config, const HarnessOptions& opts)
      : config_(config),
        sim_(opts),
        host_port_(&host_, static_cast<int>(config.limits.n), 0x5eed01),
        dram_port_(static_cast<int>(config.limits.n), config.dram_width,
                   config.limits.dram_bytes, 0x5eed02),
        rng_(0x5eed03) {
    auto& d = sim_.dut();
    d.start_i = 0;
    d.instr_valid_i = 0;
    DriveIdle();
    Reset();
  }

  const CoreConfig& config() const override { return config_; }
  model::HostMemory& host() override { return host_; }
  model::SparseMemory& dram() override { return dram_port_.bytes(); }
  HostPortModel& host_port() override { return host_port_; }
  DramPortModel& dram_port() override { return dram_port_; }
  uint64_t cycle() const override { return sim_.cycle(); }
  bool running() override { return sim_.dut().running_o; }

  void SetTiming(const CoreTiming& timing) override {
    timing_ = timing;
    host_port_.set_timing(timing.host);
    dram_port_.set_timing(timing.dram);
  }

  void Reset() override {
    DriveIdle();
    sim_.Reset(3);
    host_port_.Clear();
    dram_port_.Clear();
  }

  void Idle(uint64_t cycles) override {
    for (uint64_t i = 0; i < cycles; ++i) Cycle(nullptr, nullptr);
  }

  CoreRunResult Run(const std::vector<isa::Words>& program, uint64_t max_cycles) override {
    auto& d = sim_.dut();
    CoreRunResult r;
    d.start_i = 1;
    Cycle(nullptr, &r);
    d.start_i = 0;
    const uint64_t start = sim_.cycle();
    size_t next = 0;
    uint64_t tail = 0;  // cycles run after the interrupt
    while (sim_.cycle() - start < max_cycles && tail < kTailCycles) {
      Cycle(&program, &r, &next);
      if (r.finished) ++tail;
      if (!r.finished && (d.done_o || d.error_o)) {
        r.finished = true;
        r.cycles = sim_.cycle() - start;
      }
    }
    if (!r.finished) r.cycles = sim_.cycle() - start;
    r.done = d.done_o;
    r.error = d.error_o;
    r.error_code = static_cast<uint8_t>(d.error_code_o);
    r.error_index = d.error_index_o;
    r.instructions = next;
    for (int i = 0; i < CorePerf::kCount; ++i) {
      r.perf.v[i] = static_cast<uint64_t>(GetBits(d.perf_o, 64 * i, 32)) |
                    static_cast<uint64_t>(GetBits(d.perf_o, 64 * i + 32, 32)) << 32;
    }
    return r;
  }

 private:
  static constexpr uint64_t kTailCycles = 16;

  int n() const { return static_cast<int>(config_.limits.n); }

  void DriveIdle() {
    auto& d = sim_.dut();
    d.hm_req_ready_i = 0;
    d.hm_rsp_valid_i = 0;
    d.hm_rsp_error_i = 0;
    d.wd_req_ready_i = 0;
    d.wd_rsp_valid_i = 0;
    d.wd_wr_ready_i = 0;
  }

  // One clock cycle with the memory models (and the instruction stream, if given).
  void Cycle(const std::vector<isa::Words>* program, CoreRunResult* r, size_t* next = nullptr) {
    auto& d = sim_.dut();
    const uint64_t c = sim_.cycle();
    host_port_.BeginCycle(c);
    dram_port_.BeginCycle(c);

    bool offer = program && next && *next < program->size() &&
                 (timing_.instr_prob >= 1.0 ||
                  std::uniform_real_distribution<double>(0, 1)(rng_) < timing_.instr_prob);
    d.instr_valid_i = offer;
    if (offer) {
      for (int w = 0; w < 4; ++w) SetBits(d.instr_i, 32 * w, 32, (*program)[*next][w]);
    }
    d.hm_req_ready_i = host_port_.req_ready();
    d.hm_rsp_valid_i = host_port_.rsp_valid();
    d.hm_rsp_error_i = host_port_.rsp_error();
    if (host_port_.rsp_valid()) {
      const auto& data = host_port_.rsp_data();
      for (int b = 0; b < n(); ++b) SetBits(d.hm_rsp_rdata_i, 8 * b, 8, data[b]);
    }
    d.wd_req_ready_i = dram_port_.req_ready();
    d.wd_rsp_valid_i = dram_port_.rsp_valid();
    if (dram_port_.rsp_valid()) {
      const auto& data = dram_port_.rsp_data();
      for (size_t b = 0; b < data.size(); ++b) {
        SetBits(d.wd_rsp_data_i, 8 * static_cast<int>(b), 8, data[b]);
      }
    }
    d.wd_wr_ready_i = dram_port_.wr_ready();
    sim_.Eval();

    if (offer && d.instr_ready_o) ++*next;
    if (d.hm_req_valid_o && d.hm_req_ready_i) {
      const bool write = d.hm_req_write_o;
      const uint64_t addr = d.hm_req_addr_o;
      std::vector<uint8_t> data(n());
      std::vector<bool> mask(n());
      for (int b = 0; b < n(); ++b) {
        data[b] = static_cast<uint8_t>(GetBits(d.hm_req_wdata_o, 8 * b, 8));
        mask[b] = GetBits(d.hm_req_wmask_o, b, 1) != 0;
      }
      host_port_.OnRequest(write, addr, data, mask);
    }
    if (d.hm_rsp_valid_i && d.hm_rsp_ready_o) host_port_.OnResponseTaken();
    if (d.wd_req_valid_o && d.wd_req_ready_i) dram_port_.OnTileRequest(d.wd_req_addr_o);
    if (d.wd_rsp_valid_i && d.wd_rsp_ready_o) dram_port_.OnBeatTaken();
    if (d.wd_wr_valid_o && d.wd_wr_ready_i) {
      std::vector<uint8_t> data(n());
      std::vector<bool> mask(n());
      for (int b = 0; b < n(); ++b) {
        data[b] = static_cast<uint8_t>(GetBits(d.wd_wr_data_o, 8 * b, 8));
        mask[b] = GetBits(d.wd_wr_mask_o, b, 1) != 0;
      }
      dram_port_.OnWrite(d.wd_wr_addr_o, data, mask);
    }
    if (r && d.irq_o) ++r->irq_pulses;
    sim_.Tick();
  }

  CoreConfig config_;
  VerilatedHarness<Vtop> sim_;
  model::HostMemory host_;
  HostPortModel host_port_;
  DramPortModel dram_port_;
  CoreTiming timing_;
  std::mt19937_64 rng_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CORE_CORE_HARNESS_IMPL_H_
