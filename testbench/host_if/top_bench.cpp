#include "host_if/top_bench.h"

#include <stdexcept>
#include <string>

#include "regs/regs.h"

namespace tpu::tb {

RcConfig DeviceRc(const TopConfig& device, uint64_t seed) {
  RcConfig rc;
  rc.max_payload = device.max_payload;
  rc.max_read_req = device.max_read_req;
  rc.num_tags = device.num_tags;
  rc.tlp_width_bits = device.tlp_width_bits;
  rc.seed = seed;
  rc.min_latency = rc.max_latency = 40;
  return rc;
}

TopBench::TopBench(std::unique_ptr<TopModel> model, const RcConfig& rc_config, uint64_t seed)
    : model_(std::move(model)),
      rc_(&host_, rc_config),
      dram_(static_cast<int>(model_->config().limits.n), model_->config().dram_width,
            static_cast<size_t>(model_->config().limits.dram_bytes), seed * 5 + 1) {}

void TopBench::Step() {
  const uint64_t c = model_->cycle();
  rc_.BeginCycle(c);
  dram_.BeginCycle(c);
  TopInputs in;
  in.rx_valid = rc_.rx_valid();
  if (in.rx_valid) in.rx_beat = rc_.rx_beat();
  in.tx_ready = rc_.tx_ready();
  in.wd_req_ready = dram_.req_ready();
  in.wd_rsp_valid = dram_.rsp_valid();
  if (in.wd_rsp_valid) in.wd_rsp_data = &dram_.rsp_data();
  in.wd_wr_ready = dram_.wr_ready();
  model_->Eval(in, &out_);

  if (in.rx_valid && out_.rx_ready) rc_.OnRxTaken();
  if (out_.tx_valid && in.tx_ready) rc_.OnTxBeat(out_.tx_beat);
  if (out_.wd_req_valid && in.wd_req_ready) dram_.OnTileRequest(out_.wd_req_addr);
  if (in.wd_rsp_valid && out_.wd_rsp_ready) dram_.OnBeatTaken();
  if (out_.wd_wr_valid && in.wd_wr_ready) {
    dram_.OnWrite(out_.wd_wr_addr, out_.wd_wr_data, out_.wd_wr_mask);
  }
  model_->Tick();
}

void TopBench::Idle(uint64_t cycles) {
  for (uint64_t i = 0; i < cycles; ++i) Step();
}

void TopBench::WriteReg(uint32_t offset, uint32_t value) { rc_.WriteReg(offset, value); }

uint32_t TopBench::ReadReg(uint32_t offset) {
  const int h = rc_.ReadReg(offset);
  for (int i = 0; i < 100000; ++i) {
    Step();
    if (auto v = rc_.ReadResult(h)) return *v;
  }
  throw std::runtime_error("no completion for the read of BAR0 offset " + std::to_string(offset));
}

bool TopBench::WaitMsi(size_t count, uint64_t max_cycles) {
  for (uint64_t i = 0; i < max_cycles; ++i) {
    if (rc_.msis().size() >= count) return true;
    Step();
  }
  return rc_.msis().size() >= count;
}

void TopBench::EnableMsi(uint64_t addr, uint16_t data) {
  rc_.set_msi_address(addr);
  WriteReg(regs::kMsiAddrLo, static_cast<uint32_t>(addr));
  WriteReg(regs::kMsiAddrHi, static_cast<uint32_t>(addr >> 32));
  WriteReg(regs::kMsiData, data);
  WriteReg(regs::kIrqMask, regs::kIrqMaskDoneMask | regs::kIrqMaskErrorMask);
  WriteReg(regs::kControl, regs::kControlIrqEnableMask);
}

void TopBench::SetupRing(uint64_t base, uint32_t slots) {
  ring_base_ = base;
  ring_slots_ = slots;
  WriteReg(regs::kRingBaseLo, static_cast<uint32_t>(base));
  WriteReg(regs::kRingBaseHi, static_cast<uint32_t>(base >> 32));
  WriteReg(regs::kRingSize, slots);
}

void TopBench::WriteSlot(uint32_t slot, const isa::Words& words) {
  std::vector<uint8_t> bytes(16);
  for (int w = 0; w < 4; ++w) {
    for (int b = 0; b < 4; ++b) bytes[4 * w + b] = static_cast<uint8_t>(words[w] >> (8 * b));
  }
  host_.Write(ring_base_ + 16ull * slot, bytes);
}

void TopBench::Submit(const std::vector<isa::Words>& program) {
  if (program.size() >= ring_slots_) throw std::invalid_argument("program does not fit the ring");
  for (const auto& words : program) {
    WriteSlot(tail_, words);
    tail_ = (tail_ + 1) % ring_slots_;
  }
  WriteReg(regs::kRingTail, tail_);
}

bool TopBench::Stream(const std::vector<isa::Words>& program, uint64_t max_cycles) {
  const uint64_t start = cycle();
  size_t next = 0;
  while (next < program.size()) {
    if (cycle() - start > max_cycles) return false;
    const uint32_t head = ReadReg(regs::kRingHead);
    const uint32_t used = (tail_ + ring_slots_ - head) % ring_slots_;
    uint32_t room = ring_slots_ - 1 - used;
    if (room == 0) {
      Idle(20);
      continue;
    }
    for (; room > 0 && next < program.size(); --room) {
      WriteSlot(tail_, program[next++]);
      tail_ = (tail_ + 1) % ring_slots_;
    }
    WriteReg(regs::kRingTail, tail_);
  }
  return true;
}

void TopBench::SoftReset() {
  WriteReg(regs::kControl, regs::kControlSoftResetMask | regs::kControlIrqEnableMask);
  tail_ = 0;
}

}  // namespace tpu::tb
