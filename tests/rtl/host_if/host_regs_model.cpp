#include "host_regs_model.h"

#include "isa/isa.h"
#include "regs/regs.h"

namespace tpu::tb {
namespace {

namespace r = tpu::regs;

uint32_t ByteMask(uint8_t be) {
  uint32_t m = 0;
  for (int b = 0; b < 4; ++b) {
    if ((be >> b) & 1) m |= 0xffu << (8 * b);
  }
  return m;
}

// The RW merge: written bits of `writable` replaced by the write data.
uint32_t Merge(uint32_t q, uint32_t wdata, uint32_t bytes, uint32_t writable) {
  const uint32_t w = bytes & writable;
  return (q & ~w) | (wdata & w);
}

}  // namespace

void HostRegsModel::Reset() {
  control_ = r::kControlReset & r::kControlIrqEnableMask;
  irq_status_ = r::kIrqStatusReset;
  irq_mask_ = r::kIrqMaskReset;
  msi_addr_lo_ = r::kMsiAddrLoReset;
  msi_addr_hi_ = r::kMsiAddrHiReset;
  msi_data_ = r::kMsiDataReset;
  ring_base_lo_ = r::kRingBaseLoReset;
  ring_base_hi_ = r::kRingBaseHiReset;
  ring_size_ = r::kRingSizeReset;
  ring_tail_ = r::kRingTailReset;
  perf_hi_.fill(r::kPerfHiReset);
  fetch_err_ = false;
  watchdog_ = r::kWatchdogReset;
  wdog_count_ = 0;
  wdog_err_ = false;
  soft_reset_pulse_ = doorbell_pulse_ = msi_pulse_ = false;
  UpdateOutputs();
}

uint32_t HostRegsModel::ParameterValue(uint32_t offset) const {
  switch (offset) {
    case r::kVersion:
      return (uint32_t(isa::kIsaVersion) << r::kVersionIsaVersionShift) |
             (config_.hw_version << r::kVersionHwVersionShift);
    case r::kCapN:
      return config_.n;
    case r::kCapUbRows:
      return config_.ub_rows;
    case r::kCapAccRows:
      return config_.acc_rows;
    case r::kCapDramBytesLo:
      return static_cast<uint32_t>(config_.dram_bytes);
    case r::kCapDramBytesHi:
      return static_cast<uint32_t>(config_.dram_bytes >> 32);
    case r::kCapParamSets:
      return config_.param_sets;
    case r::kCapDma:
      return (config_.max_payload << r::kCapDmaMaxPayloadShift) |
             (config_.max_read_req << r::kCapDmaMaxReadReqShift);
    default:
      return 0;
  }
}

uint32_t HostRegsModel::Read(uint32_t addr, const HostRegsStatus& s) const {
  addr &= ~3u;
  for (int i = 0; i < r::kPerfCount; ++i) {
    if (addr == r::PerfLo(i)) return uint32_t(s.perf[i]);
    if (addr == r::PerfHi(i)) return perf_hi_[i];
  }
  switch (addr) {
    case r::kId:
      return r::kIdReset;
    case r::kVersion:
    case r::kCapN:
    case r::kCapUbRows:
    case r::kCapAccRows:
    case r::kCapDramBytesLo:
    case r::kCapDramBytesHi:
    case r::kCapParamSets:
    case r::kCapDma:
      return ParameterValue(addr);
    case r::kControl:
      return control_;
    case r::kStatus: {
      uint32_t v = 0;
      if (s.running && !fetch_err_ && !wdog_err_) v |= r::kStatusRunningMask;
      if (s.done) v |= r::kStatusDoneMask;
      if (s.error || fetch_err_ || wdog_err_) v |= r::kStatusErrorMask;
      if (s.ring_head == (ring_tail_ & r::kRingTailTailMask)) v |= r::kStatusRingEmptyMask;
      if (s.dma_busy) v |= r::kStatusDmaBusyMask;
      return v;
    }
    case r::kErrorCode:
      if (fetch_err_) return r::kErrRingFetchError;
      if (wdog_err_) return r::kErrWatchdog;
      return s.error ? s.error_code : 0;
    case r::kErrorIndex:
      return (s.error && !fetch_err_ && !wdog_err_) ? s.error_index : 0;
    case r::kIrqStatus:
      return irq_status_;
    case r::kIrqMask:
      return irq_mask_;
    case r::kMsiAddrLo:
      return msi_addr_lo_;
    case r::kMsiAddrHi:
      return msi_addr_hi_;
    case r::kMsiData:
      return msi_data_;
    case r::kRingBaseLo:
      return ring_base_lo_;
    case r::kRingBaseHi:
      return ring_base_hi_;
    case r::kRingSize:
      return ring_size_;
    case r::kRingHead:
      return s.ring_head;
    case r::kRingTail:
      return ring_tail_;
    case r::kWatchdog:
      return watchdog_;
    default:
      return 0;  // DMA_ERROR_CAUSE too: the harness reports no DMA failure
  }
}

uint32_t HostRegsModel::Clock(const RegAccess& a, const HostRegsStatus& s) {
  const uint32_t addr = a.addr & ~3u;
  const uint32_t bytes = ByteMask(a.be);
  const bool sr_pulse = soft_reset_pulse_;  // the core is being reset: its events are dropped
  uint32_t rdata = 0;
  uint32_t clears = 0;
  bool soft_reset = false, doorbell = false;

  if (a.take && !a.write) {
    rdata = Read(addr, s);
    for (int i = 0; i < r::kPerfCount; ++i) {
      if (a.be != 0 && addr == r::PerfLo(i)) perf_hi_[i] = uint32_t(s.perf[i] >> 32);
    }
  }

  // Interrupt events and the MSI decision use the state before this edge's write.
  // A latched ring fetch error stopped the device: the core's events set nothing.
  // So does the watchdog's error.
  const bool host_err = fetch_err_ || wdog_err_;
  const bool core_events = !sr_pulse && !host_err;
  const bool fetch_new = s.ring_fetch_error && !host_err && !s.error && !sr_pulse;
  const bool wdog_on = watchdog_ != 0 && s.running && !s.error && !host_err && !sr_pulse;
  const bool wdog_new = wdog_on && uint32_t(wdog_count_ + 1) >= watchdog_ && !fetch_new;
  uint32_t events = 0;
  if (s.irq && s.done && core_events) events |= r::kIrqStatusDoneMask;
  if ((s.irq && s.error && core_events) || fetch_new || wdog_new) {
    events |= r::kIrqStatusErrorMask;
  }
  if (a.take && a.write && addr == r::kIrqStatus) clears = a.wdata & bytes & r::kIrqStatusWritable;
  if (a.take && a.write && addr == r::kControl) {
    soft_reset = (a.wdata & bytes & r::kControlSoftResetMask) != 0;
  }
  const uint32_t newly = events & (~irq_status_ | clears);
  const bool irq_enable = (control_ & r::kControlIrqEnableMask) != 0;
  // IRQ_STATUS and IRQ_MASK share bit positions (checked by the test's contract test).
  const bool msi = !soft_reset && irq_enable && (newly & irq_mask_) != 0;

  if (a.take && a.write) {
    const uint32_t d = a.wdata;
    switch (addr) {
      case r::kControl:
        control_ = Merge(control_, d, bytes, r::kControlIrqEnableMask);
        break;
      case r::kIrqMask:
        irq_mask_ = Merge(irq_mask_, d, bytes, r::kIrqMaskWritable);
        break;
      case r::kMsiAddrLo:
        msi_addr_lo_ = Merge(msi_addr_lo_, d, bytes, r::kMsiAddrLoWritable);
        break;
      case r::kMsiAddrHi:
        msi_addr_hi_ = Merge(msi_addr_hi_, d, bytes, r::kMsiAddrHiWritable);
        break;
      case r::kMsiData:
        msi_data_ = Merge(msi_data_, d, bytes, r::kMsiDataWritable);
        break;
      case r::kRingBaseLo:
        ring_base_lo_ = Merge(ring_base_lo_, d, bytes, r::kRingBaseLoWritable);
        break;
      case r::kRingBaseHi:
        ring_base_hi_ = Merge(ring_base_hi_, d, bytes, r::kRingBaseHiWritable);
        break;
      case r::kRingSize:
        ring_size_ = Merge(ring_size_, d, bytes, r::kRingSizeWritable);
        break;
      case r::kRingTail:
        ring_tail_ = Merge(ring_tail_, d, bytes, r::kRingTailWritable);
        doorbell = (bytes & r::kRingTailWritable) != 0;
        break;
      case r::kWatchdog:
        watchdog_ = Merge(watchdog_, d, bytes, r::kWatchdogWritable);
        break;
      default:
        break;
    }
  }

  irq_status_ = soft_reset ? 0 : ((irq_status_ & ~clears) | events);
  fetch_err_ = !soft_reset && (fetch_err_ || fetch_new);
  wdog_err_ = !soft_reset && (wdog_err_ || wdog_new);
  wdog_count_ = (wdog_on && !soft_reset) ? wdog_count_ + 1 : 0;
  if (soft_reset) ring_tail_ = r::kRingTailReset;
  soft_reset_pulse_ = soft_reset;
  doorbell_pulse_ = doorbell;
  msi_pulse_ = msi;
  UpdateOutputs();
  return rdata;
}

void HostRegsModel::UpdateOutputs() {
  out_.soft_reset = soft_reset_pulse_;
  out_.irq_enable = (control_ & r::kControlIrqEnableMask) != 0;
  out_.irq_mask = uint8_t(((irq_mask_ & r::kIrqMaskDoneMask) ? 1 : 0) |
                          ((irq_mask_ & r::kIrqMaskErrorMask) ? 2 : 0));
  out_.msi_addr = (uint64_t(msi_addr_hi_) << 32) | msi_addr_lo_;
  out_.msi_data = uint16_t(msi_data_ & r::kMsiDataDataMask);
  out_.ring_base = (uint64_t(ring_base_hi_) << 32) | ring_base_lo_;
  const uint32_t size = ring_size_ & r::kRingSizeSlotsMask;
  const bool legal = size >= 2 && size <= 65536 && (size & (size - 1)) == 0;
  out_.ring_size = legal ? size : 0;
  out_.ring_tail = uint16_t(ring_tail_ & r::kRingTailTailMask);
  out_.doorbell = doorbell_pulse_;
  out_.msi_request = msi_pulse_;
}

}  // namespace tpu::tb
