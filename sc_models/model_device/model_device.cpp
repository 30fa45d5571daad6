#include "sc_models/model_device/model_device.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <variant>

#include "isa/isa.h"
#include "model/activate.h"
#include "model/schedule.h"
#include "regs/regs.h"
#include "sc_models/pcie/pcie_link_config.h"
#include "sc_models/pcie/tlp.h"

namespace tpu::sc {
namespace {

constexpr uint32_t kHwVersion = 1;  // tpu_top's HwVersion: the device the model stands for
constexpr uint32_t kIrqDone = regs::kIrqStatusDoneMask;
constexpr uint32_t kIrqError = regs::kIrqStatusErrorMask;

PcieLinkConfig LinkConfig(const devices::DeviceConfig& device, const device::PcieLink& link) {
  PcieLinkConfig config = PcieLinkConfig::For(link);
  config.max_payload = static_cast<uint32_t>(device.max_payload);
  config.max_read_request = static_cast<uint32_t>(device.max_read_request);
  return config;
}

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The row counters (PERF rows_*) of the instructions that took effect: the DMA unit's
// destination rows and UB rows read, weight rows pushed, rows multiplied, UB rows activated.
void CountRows(const std::vector<isa::Instr>& program, uint64_t n, ModelDevice::Perf& perf) {
  for (const isa::Instr& instr : program) {
    if (const auto* r = std::get_if<isa::ReadHost>(&instr)) {
      const uint64_t offset = r->target == isa::Target::kUb ? 0 : r->dest % n;
      perf[regs::kPerfRowsDma] += CeilDiv(offset + r->length, n);
    } else if (const auto* w = std::get_if<isa::WriteHost>(&instr)) {
      perf[regs::kPerfRowsDma] += CeilDiv(w->length, n);
    } else if (const auto* rw = std::get_if<isa::ReadWeights>(&instr)) {
      perf[regs::kPerfRowsWeights] += uint64_t{rw->tiles} * n;
    } else if (const auto* m = std::get_if<isa::Matmul>(&instr)) {
      perf[regs::kPerfRowsMatrix] += m->rows;
    } else if (const auto* a = std::get_if<isa::Activate>(&instr)) {
      perf[regs::kPerfRowsAct] += static_cast<uint64_t>(model::ActivateOutRows(*a));
    }
  }
}

int StallCounter(const std::string& cause) {
  if (cause == "weights") return regs::kPerfStallWeights;
  if (cause == "act_in") return regs::kPerfStallActIn;
  if (cause == "dma") return regs::kPerfStallDma;
  if (cause == "dep") return regs::kPerfStallDep;
  return -1;
}

}  // namespace

ModelDevice::ModelDevice(const devices::DeviceConfig& device, const device::PcieLink& link)
    : device_(device),
      link_(link),
      timing_(device, link),
      machine_(device.limits),
      config_space_(static_cast<uint32_t>(device.max_payload),
                    static_cast<uint32_t>(device.max_read_request)) {
  const LinkTiming timing(LinkConfig(device, link));
  link_latency_ns_ = timing.config().latency_ns;
  payload_limit_bytes_per_s_ = timing.payload_limit_bytes_per_s();
}

device::BusCounters ModelDevice::counters() const {
  device::BusCounters c;
  c.payload_bytes_to_device = bytes_to_device_;
  c.payload_bytes_from_device = bytes_from_device_;
  c.payload_limit_bytes_per_s = payload_limit_bytes_per_s_;
  c.device_cycles = device_cycles_;
  c.clock_mhz = device_.clock_mhz;
  c.timing_estimated = true;
  return c;
}

// ---- Configuration space -------------------------------------------------------------------

uint32_t ModelDevice::ConfigRead(uint16_t offset) {
  now_ns_ += 2 * link_latency_ns_;  // a non-posted request and its completion
  Advance(now_ns_);
  bytes_from_device_ += 4;
  return config_space_.Read(offset);
}

void ModelDevice::ConfigWrite(uint16_t offset, uint32_t value, uint8_t first_be) {
  now_ns_ += 2 * link_latency_ns_;
  Advance(now_ns_);
  bytes_to_device_ += 4;
  config_space_.Write(offset, value, first_be, kDeviceId);
  if (doorbell_waiting_ && config_space_.bus_master()) {
    doorbell_waiting_ = false;
    Doorbell();
  }
}

void ModelDevice::Enumerate() {
  RunEnumeration(EnumerationSteps(kBar0Address, static_cast<uint32_t>(device_.max_payload),
                                  static_cast<uint32_t>(device_.max_read_request)),
                 [this](uint16_t offset) { return ConfigRead(offset); },
                 [this](uint16_t offset, uint32_t value) { ConfigWrite(offset, value); });
}

// ---- Registers -----------------------------------------------------------------------------

void ModelDevice::WriteRegister(uint32_t offset, uint32_t value) {
  Advance(now_ns_);
  bytes_to_device_ += 4;  // a posted 1-DW write
  if (!config_space_.memory_enable()) return;  // not a BAR0 hit: dropped
  switch (offset) {
    case regs::kControl:
      irq_enable_ = (value & regs::kControlIrqEnableMask) != 0;
      if (value & regs::kControlSoftResetMask) SoftReset();
      break;
    case regs::kIrqStatus:
      irq_status_ &= ~(value & (kIrqDone | kIrqError));
      break;
    case regs::kIrqMask:
      irq_mask_ = value & regs::kIrqMaskWritable;
      break;
    case regs::kMsiAddrLo:
      msi_addr_lo_ = value & regs::kMsiAddrLoWritable;
      break;
    case regs::kMsiAddrHi:
      msi_addr_hi_ = value & regs::kMsiAddrHiWritable;
      break;
    case regs::kMsiData:
      msi_data_ = value & regs::kMsiDataWritable;
      break;
    case regs::kRingBaseLo:
      ring_base_lo_ = value & regs::kRingBaseLoWritable;
      break;
    case regs::kRingBaseHi:
      ring_base_hi_ = value & regs::kRingBaseHiWritable;
      break;
    case regs::kRingSize:
      ring_size_ = value & regs::kRingSizeWritable;
      break;
    case regs::kRingTail:
      ring_tail_ = value & regs::kRingTailWritable;
      Doorbell();
      break;
    case regs::kWatchdog:
      watchdog_ = value & regs::kWatchdogWritable;
      break;
    default:
      break;  // read-only or unmapped: ignored
  }
}

uint32_t ModelDevice::ReadRegister(uint32_t offset) {
  // The read reaches the device one link latency from now and its completion returns after
  // another: every MSI sent before the read arrived is at the host when it returns.
  const double arrive = now_ns_ + link_latency_ns_;
  Advance(arrive);
  now_ns_ = arrive + link_latency_ns_;
  if (!config_space_.memory_enable()) {
    throw std::runtime_error("BAR0 register " + std::to_string(offset) +
                             ": completed with status 1 (UR): Memory Space Enable is clear, "
                             "the device was not enumerated");
  }
  bytes_from_device_ += 4;  // the completion's DW
  const isa::DeviceLimits& l = device_.limits;
  switch (offset) {
    case regs::kId:
      return regs::kIdReset;
    case regs::kVersion:
      return static_cast<uint32_t>(isa::kIsaVersion) << regs::kVersionIsaVersionShift |
             kHwVersion << regs::kVersionHwVersionShift;
    case regs::kCapN:
      return static_cast<uint32_t>(l.n);
    case regs::kCapUbRows:
      return static_cast<uint32_t>(l.ub_rows);
    case regs::kCapAccRows:
      return static_cast<uint32_t>(l.acc_rows);
    case regs::kCapDramBytesLo:
      return static_cast<uint32_t>(static_cast<uint64_t>(l.dram_bytes));
    case regs::kCapDramBytesHi:
      return static_cast<uint32_t>(static_cast<uint64_t>(l.dram_bytes) >> 32);
    case regs::kCapParamSets:
      return static_cast<uint32_t>(l.param_sets);
    case regs::kCapDma:
      return static_cast<uint32_t>(device_.max_payload) << regs::kCapDmaMaxPayloadShift |
             static_cast<uint32_t>(device_.max_read_request) << regs::kCapDmaMaxReadReqShift;
    case regs::kControl:
      return irq_enable_ ? regs::kControlIrqEnableMask : 0;
    case regs::kStatus: {
      uint32_t status = 0;
      if (running_ && !fetch_error_) status |= regs::kStatusRunningMask;
      if (done_) status |= regs::kStatusDoneMask;
      if (error_ || fetch_error_) status |= regs::kStatusErrorMask;
      if (ring_head_ == (ring_tail_ & regs::kRingTailTailMask)) {
        status |= regs::kStatusRingEmptyMask;
      }
      return status;  // dma_busy 0: the model's transfers complete at once
    }
    case regs::kErrorCode:
      if (fetch_error_) return host_error_code_;
      return error_ ? error_code_ : 0;
    case regs::kErrorIndex:
      return !fetch_error_ && error_ ? error_index_ : 0;
    case regs::kIrqStatus:
      return irq_status_;
    case regs::kIrqMask:
      return irq_mask_;
    case regs::kMsiAddrLo:
      return msi_addr_lo_;
    case regs::kMsiAddrHi:
      return msi_addr_hi_;
    case regs::kMsiData:
      return msi_data_;
    case regs::kRingBaseLo:
      return ring_base_lo_;
    case regs::kRingBaseHi:
      return ring_base_hi_;
    case regs::kRingSize:
      return ring_size_;
    case regs::kRingHead:
      return ring_head_;
    case regs::kRingTail:
      return ring_tail_;
    case regs::kDmaErrorCause:
      return dma_cause_;
    case regs::kWatchdog:
      return watchdog_;
    default:
      break;
  }
  for (int i = 0; i < regs::kPerfCount; ++i) {
    const auto counter = static_cast<size_t>(i);
    if (offset == regs::PerfLo(i)) {
      perf_hi_[counter] = static_cast<uint32_t>(perf_[counter] >> 32);  // latched for _HI
      return static_cast<uint32_t>(perf_[counter]);
    }
    if (offset == regs::PerfHi(i)) return perf_hi_[counter];
  }
  return 0;  // unmapped
}

// ---- Interrupts and time -------------------------------------------------------------------

std::optional<uint32_t> ModelDevice::WaitForInterrupt(double timeout_ns) {
  const double end = now_ns_ + std::max(0.0, timeout_ns);
  Advance(end);
  if (!msis_.empty() && msis_.front().first <= end) {
    now_ns_ = std::max(now_ns_, msis_.front().first);
    const uint32_t data = msis_.front().second;
    msis_.pop_front();
    return data;
  }
  now_ns_ = end;
  return std::nullopt;
}

void ModelDevice::Advance(double to_ns) {
  if (!pending_ || pending_->at_ns > to_ns) return;
  const Completion c = *pending_;
  pending_.reset();
  running_ = false;
  perf_ = c.perf;
  if (c.fetch_error) {
    fetch_error_ = true;
    host_error_code_ = c.code;
  } else if (c.error) {
    error_ = true;
    error_code_ = c.code;
    error_index_ = c.index;
  } else {
    done_ = true;
  }
  RaiseEvent(c.error || c.fetch_error ? kIrqError : kIrqDone, c.at_ns);
}

void ModelDevice::RaiseEvent(uint32_t irq_bits, double at_ns) {
  const uint32_t newly = irq_bits & ~irq_status_;
  irq_status_ |= irq_bits;
  if (irq_enable_ && (newly & irq_mask_) != 0) SendMsi(at_ns);
}

void ModelDevice::SendMsi(double at_ns) {
  const uint64_t address = uint64_t{msi_addr_hi_} << 32 | msi_addr_lo_;
  const uint32_t data = msi_data_ & regs::kMsiDataDataMask;  // upper half 0
  if (address == kMsiAddress) {
    msis_.emplace_back(at_ns + link_latency_ns_, data);
    return;
  }
  // Not the interrupt controller's address: a plain memory write, as the RTL's MWr would be.
  model::HostMemory& host = machine_.host();
  if (host.Faults(address, 4) || address > host.size() - 4) return;  // dropped by the host
  const uint8_t bytes[4] = {static_cast<uint8_t>(data), static_cast<uint8_t>(data >> 8), 0, 0};
  host.Write(address, bytes, 4);
}

// ---- The ring and the core -----------------------------------------------------------------

bool ModelDevice::RingSizeLegal() const {
  return ring_size_ >= 2 && ring_size_ <= 65536 && (ring_size_ & (ring_size_ - 1)) == 0;
}

uint32_t ModelDevice::RingMask() const { return ring_size_ - 1; }

void ModelDevice::SoftReset() {
  ring_tail_ = 0;
  ring_head_ = 0;
  fetch_ = 0;
  irq_status_ = 0;
  fetch_error_ = false;
  host_error_code_ = 0;
  dma_cause_ = 0;
  machine_.host().ClearTakenFault();
  running_ = done_ = error_ = false;
  error_code_ = 0;
  error_index_ = 0;
  perf_ = {};
  pending_.reset();  // a program still running is stopped: no completion, no MSI
  fetched_ = executed_ = 0;
  rows_ = {};
}

void ModelDevice::Doorbell() {
  if (!RingSizeLegal() || fetch_error_) return;  // the ring is off, or stopped until a reset
  if (!config_space_.bus_master()) {  // no fetch may leave: the program waits
    doorbell_waiting_ = true;
    return;
  }
  if (running_) {
    if (!pending_) FetchAndExecute();  // more slots for a program waiting for them
    return;
  }
  // A start: the core restarts from RING_HEAD with its counters, tokens and FIFO cleared.
  running_ = true;
  done_ = error_ = false;
  error_code_ = 0;
  error_index_ = 0;
  perf_ = {};
  fetched_ = executed_ = 0;
  rows_ = {};
  start_head_ = ring_head_;
  fetch_ = ring_head_;
  start_ns_ = now_ns_;
  machine_.Start();
  timing_worker_.Start();
  FetchAndExecute();
}

void ModelDevice::FetchAndExecute() {
  const uint32_t mask = RingMask();
  const uint32_t tail = ring_tail_ & mask;
  const uint64_t base = uint64_t{ring_base_hi_} << 32 | ring_base_lo_;
  model::HostMemory& host = machine_.host();
  bool fetch_failed = false;
  while (fetch_ != tail) {
    // The slots up to the tail, the ring's end or the chunk's end in one read when none of
    // them fails (a large program streams through here); slot by slot otherwise, to stop at
    // the first that fails.
    const uint32_t end = fetch_ < tail ? tail : mask + 1;
    if (fetched_ / kChunkSlots == chunks_.size()) chunks_.emplace_back(kChunkSlots);
    const uint64_t slots =
        std::min<uint64_t>(end - fetch_, kChunkSlots - fetched_ % kChunkSlots);  // >= 1
    const uint64_t address = base + isa::kSlotBytes * fetch_;
    uint64_t count = slots;
    if (host.Faults(address, isa::kSlotBytes * slots) || isa::kSlotBytes * slots > host.size() ||
        address > host.size() - isa::kSlotBytes * slots) {
      count = 1;
      if (address > host.size() - isa::kSlotBytes || host.TakeFault(address, isa::kSlotBytes)) {
        fetch_failed = true;
        break;
      }
    }
    // A slot's bytes are its words' bytes in memory on a little-endian host: read in place.
    isa::Words* words = &Slot(fetched_);
    host.Read(address, reinterpret_cast<uint8_t*>(words), isa::kSlotBytes * count);
    isa::SlotBytesToWords(words, count);
    fetched_ += count;
    fetch_ = static_cast<uint32_t>((fetch_ + count) & mask);
  }
  // The machine executes the slots in slices, each handed to the timing model's thread as it
  // is done, so that the replay runs beside the execution of the next. A program's first
  // slices are short, so that the thread starts early on a short program too (a whole program
  // of a few thousand instructions in one or two slices would be replayed only after its
  // execution); later ones longer, as a slice ends a MATMUL block early and costs a hand-over
  // (a 1024^3 layer's 146,000 instructions in slices of 256: 25% more CPU time, measured). A
  // slice ends at a chunk's end too. The calling thread replays at the end what the thread has
  // not begun.
  constexpr size_t kFirstSlice = 512, kSlice = 2048, kFirstSlicesUpTo = 8192;
  model::RunResult r;
  while (executed_ < fetched_) {
    const size_t slice = std::min({executed_ < kFirstSlicesUpTo ? kFirstSlice : kSlice,
                                   kChunkSlots - executed_ % kChunkSlots, fetched_ - executed_});
    std::vector<isa::Instr> executed = timing_worker_.Spare();
    executed.reserve(slice);
    r = machine_.Resume(&Slot(executed_), slice, executed_, &executed);
    CountRows(executed, static_cast<uint64_t>(device_.limits.n), rows_);
    timing_worker_.Add(std::move(executed));
    executed_ += slice;
    if (r.status != model::RunStatus::kEndOfProgram) break;
  }
  switch (r.status) {
    case model::RunStatus::kHalted:
      Finish(false, 0, static_cast<uint32_t>(r.index));
      return;
    case model::RunStatus::kDeviceError:
      if (r.error == isa::Error::kDmaError && RecordDmaCause(regs::kDmaErrorCauseRequesterCore)) {
        Finish(true, regs::kErrWatchdog, 0, /*fetch_error=*/true);
        return;
      }
      Finish(true, static_cast<uint8_t>(r.error), static_cast<uint32_t>(r.index));
      return;
    case model::RunStatus::kModelError:
      FinishModelError(r);
      return;
    case model::RunStatus::kEndOfProgram:
      break;
  }
  ring_head_ = fetch_;  // every slot taken ran
  if (fetch_failed) {
    const bool watchdog = RecordDmaCause(regs::kDmaErrorCauseRequesterRing);
    Finish(true, watchdog ? regs::kErrWatchdog : regs::kErrRingFetchError, 0,
           /*fetch_error=*/true);
  }
  // Otherwise the core waits for the host to move RING_TAIL.
}

bool ModelDevice::RecordDmaCause(uint32_t requester) {
  const std::optional<model::HostMemory::FaultKind> kind = machine_.host().taken_fault();
  if (!kind) return false;  // beyond host memory: the RTL's root complex answers UR
  using Kind = model::HostMemory::FaultKind;
  // A read never answered stalls the device: the watchdog fires first when it is shorter
  // than the completion timeout (the DMA error is then never reported).
  if (*kind == Kind::kNoCompletion && watchdog_ != 0 &&
      int64_t{watchdog_} < device_.timeout) {
    return true;
  }
  if (dma_cause_ != 0) return false;
  const uint32_t cause = *kind == Kind::kUnsupported ? regs::kDmaErrorCauseCauseUr
                         : *kind == Kind::kAbort     ? regs::kDmaErrorCauseCauseCa
                         : *kind == Kind::kPoisoned  ? regs::kDmaErrorCauseCausePoisoned
                                                     : regs::kDmaErrorCauseCauseTimeout;
  dma_cause_ = cause << regs::kDmaErrorCauseCauseShift |
               requester << regs::kDmaErrorCauseRequesterShift;
  return false;
}

void ModelDevice::FinishModelError(const model::RunResult& r) {
  // The program relies on a later instruction (a token or tile produced after its consumer in
  // program order): legal on the device if its queues let the producer through, else a
  // deadlock. The schedule simulation tells which.
  std::vector<isa::Instr> program;
  for (size_t i = 0; i < fetched_; ++i) {
    const isa::Decoded decoded = isa::Decode(Slot(i));
    if (decoded.error != isa::Error::kOk) break;
    program.push_back(decoded.instr);
  }
  const model::ScheduleResult s = model::SimulateSchedule(program, device_.limits);
  if (s.error != isa::Error::kOk) {
    Finish(true, static_cast<uint8_t>(s.error), static_cast<uint32_t>(s.index));
    return;
  }
  throw std::logic_error(
      "model device: the program runs on the device only with its units overlapped, which the "
      "reference machine (program order) does not execute: " + model::ToString(r) +
      "; reorder it so that every token and weight tile is produced before it is used in "
      "program order, or run it with --backend rtl");
}

void ModelDevice::Finish(bool error, uint8_t code, uint32_t index, bool fetch_error) {
  // The program the timing model estimates: up to HALT, or the instructions before the
  // failing one (then a HALT: the queue drains).
  // The program estimated is what the machine executed (the timing worker has it).
  if (error) timing_worker_.Add({isa::Instr{isa::Halt{}}});
  if (!fetch_error) ring_head_ = (start_head_ + index + 1) & RingMask();

  const TimingEstimate estimate = timing_worker_.Finish();
  Completion c;
  c.error = error && !fetch_error;
  c.fetch_error = fetch_error;
  c.code = code;
  c.index = index;
  c.perf[regs::kPerfCycles] = estimate.cycles;
  c.perf[regs::kPerfMxuBusy] = estimate.mxu_active_cycles;
  for (const auto& [cause, cycles] : estimate.stalls) {
    const int counter = StallCounter(cause);
    if (counter >= 0) c.perf[static_cast<size_t>(counter)] = cycles;
  }
  for (const int counter : {regs::kPerfRowsDma, regs::kPerfRowsWeights, regs::kPerfRowsMatrix,
                            regs::kPerfRowsAct}) {
    c.perf[static_cast<size_t>(counter)] = rows_[static_cast<size_t>(counter)];
  }
  c.at_ns = std::max(now_ns_, start_ns_ + double(estimate.cycles) * 1e3 / device_.clock_mhz);
  bytes_to_device_ += estimate.pcie_bytes_to_device;
  bytes_from_device_ += estimate.pcie_bytes_from_device;
  device_cycles_ += estimate.cycles;
  fetched_ = executed_ = 0;
  pending_ = c;
}

}  // namespace tpu::sc
