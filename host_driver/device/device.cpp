#include "device/device.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <variant>

#include "regs/regs.h"

namespace tpu::device {
namespace {

constexpr uint32_t kMinRingSlots = 2;
constexpr uint32_t kMaxRingSlots = 65536;
constexpr uint32_t kIrqBoth = regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask;
constexpr uint32_t kResetAndIrqs = regs::kControlSoftResetMask | regs::kControlIrqEnableMask;

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::string Hex(uint64_t v, int digits = 0) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%0*" PRIx64, digits, v);
  return text;
}

// "1000 us" / "2.5 us": simulated time in the unit users set timeouts in.
std::string Micros(double ns) {
  char text[48];
  std::snprintf(text, sizeof(text), "%g us", ns / 1000.0);
  return text;
}

// One register as a dump line ("STATUS 0x044 = ... running=0 done=1 ...").
std::string Dump(uint32_t offset, uint32_t value) {
  const regs::RegisterInfo* reg = regs::FindRegister(offset);
  if (reg == nullptr) return "BAR0 " + Hex(offset, 3) + " = " + Hex(value, 8);
  return regs::FormatRegister(*reg, value);
}

// A register read of the bus failed: the device, or the link to it, does not answer.
[[noreturn]] void ThrowNoAnswer(const std::exception& e, const std::string& doing) {
  throw DeviceError("the device does not answer register reads (" + std::string(e.what()) +
                        ") while " + doing +
                        ": check that it is present, its link is up and BAR0 is mapped "
                        "(enumerated, with Memory Space Enable set)",
                    true, 0, 0);
}

// What an ERROR_CODE value means.
std::string ErrorDoc(uint32_t code) {
  for (const regs::ErrorInfo& e : regs::kErrors) {
    if (e.value == code) return e.doc;
  }
  return isa::ErrorDoc(static_cast<isa::Error>(code));
}

// What a user can do about an error the device reported.
std::string ErrorHint(uint32_t code) {
  if (code == regs::kErrWatchdog) {
    return "the device made no progress for DeviceOptions::watchdog_cycles cycles (WATCHDOG): "
           "a host-memory read or write that never completes, or a stalled link";
  }
  if (code == regs::kErrRingFetchError) {
    return "the host memory of the instruction ring (DeviceOptions::host_base) could not be "
           "read by the device: check that it is mapped for DMA";
  }
  switch (static_cast<isa::Error>(code)) {
    case isa::Error::kDmaError:
      return "check that the instruction's host address range is memory the device may DMA "
             "(Device::AllocateDma, dma_region())";
    case isa::Error::kIllegalOpcode:
    case isa::Error::kReservedNonzero:
      return "the instruction words do not decode: the ring slot holds no valid instruction";
    case isa::Error::kTokenOverflow:
    case isa::Error::kDeadlock:
    case isa::Error::kNoTile:
      return "the program's ordering (wait/signal tokens, SYNC, new_tile) is wrong for this "
             "instruction";
    default:
      return "the instruction's fields do not fit this device's limits (Device::info())";
  }
}

}  // namespace

Device::Device(DeviceBus& bus, const DeviceOptions& options) : bus_(bus), options_(options) {
  const uint32_t slots = options_.max_ring_slots;
  if (!IsPowerOfTwo(slots) || slots < kMinRingSlots || slots > kMaxRingSlots) {
    throw std::invalid_argument("DeviceOptions::max_ring_slots = " + std::to_string(slots) +
                                ": must be a power of two from 2 to 65536 (RING_SIZE)");
  }
  const uint64_t ring_bytes = isa::kSlotBytes * slots;
  if (options_.host_base % isa::kSlotBytes != 0) {
    throw std::invalid_argument("DeviceOptions::host_base = " + Hex(options_.host_base) +
                                ": the instruction ring must start at a multiple of 16 bytes "
                                "(RING_BASE_LO bits 3:0 are 0)");
  }
  if (options_.host_size <= ring_bytes) {
    throw std::invalid_argument(
        "DeviceOptions::host_size = " + std::to_string(options_.host_size) +
        " bytes cannot hold the instruction ring (16 bytes x max_ring_slots " +
        std::to_string(slots) + " = " + std::to_string(ring_bytes) +
        " bytes) and DMA buffers after it: raise host_size or lower max_ring_slots");
  }
  const uint64_t space = uint64_t{1} << isa::kHostAddrBits;
  if (options_.host_base >= space || options_.host_size > space - options_.host_base) {
    throw std::invalid_argument("DeviceOptions host region [" + Hex(options_.host_base) + ", " +
                                Hex(options_.host_base + options_.host_size) +
                                ") is not inside the device's 48-bit host address space");
  }
  if (!(options_.run_timeout_ns > 0) || !(options_.poll_interval_ns > 0)) {
    throw std::invalid_argument(
        "DeviceOptions::run_timeout_ns and poll_interval_ns must be positive");
  }
  dma_next_ = options_.host_base + ring_bytes;

  uint32_t id = 0;
  try {
    id = bus_.ReadRegister(regs::kId);
  } catch (const std::runtime_error& e) {
    ThrowNoAnswer(e, "reading its ID register (BAR0 0x000)");
  }
  if (id != regs::kIdReset) {
    throw DeviceError("not a TPU: the ID register (BAR0 0x000) reads " + Hex(id, 8) +
                          ", expected " + Hex(regs::kIdReset, 8) +
                          " (\"TPU1\"): check that the bus reaches this device's BAR0",
                      false, 0, 0);
  }
  try {
    info_.id = id;
    const uint32_t version = bus_.ReadRegister(regs::kVersion);
    info_.isa_version = (version & regs::kVersionIsaVersionMask) >> regs::kVersionIsaVersionShift;
    info_.hw_version = (version & regs::kVersionHwVersionMask) >> regs::kVersionHwVersionShift;
    info_.limits.n = bus_.ReadRegister(regs::kCapN);
    info_.limits.ub_rows = bus_.ReadRegister(regs::kCapUbRows);
    info_.limits.acc_rows = bus_.ReadRegister(regs::kCapAccRows);
    // 64 bits in two registers: TPU v1's 8 GiB do not fit one.
    info_.limits.dram_bytes = static_cast<int64_t>(
        uint64_t{bus_.ReadRegister(regs::kCapDramBytesLo)} |
        uint64_t{bus_.ReadRegister(regs::kCapDramBytesHi)} << 32);
    info_.limits.param_sets = bus_.ReadRegister(regs::kCapParamSets);
    const uint32_t dma = bus_.ReadRegister(regs::kCapDma);
    info_.max_payload = (dma & regs::kCapDmaMaxPayloadMask) >> regs::kCapDmaMaxPayloadShift;
    info_.max_read_request = (dma & regs::kCapDmaMaxReadReqMask) >> regs::kCapDmaMaxReadReqShift;
  } catch (const std::runtime_error& e) {
    ThrowNoAnswer(e, "reading its VERSION and CAP_* registers");
  }
  // Each ISA version encodes fields differently (docs/isa.md, "Versions"): a program built for
  // one is garbage to another, so a mismatch stops here instead of at the first instruction.
  if (info_.isa_version != static_cast<uint32_t>(isa::kIsaVersion)) {
    throw DeviceError("the device implements instruction-set version " +
                          std::to_string(info_.isa_version) + " (VERSION.isa_version) but this " +
                          "driver emits version " + std::to_string(isa::kIsaVersion) +
                          ": use a driver and a device (RTL) built from the same isa/isa.json",
                      false, 0, 0);
  }
  // Configuration a soft reset keeps: written once per handle, before any run is measured.
  bus_.WriteRegister(regs::kWatchdog, options_.watchdog_cycles);
}

std::string DmaCauseName(uint32_t dma_cause) {
  const uint32_t cause =
      (dma_cause & regs::kDmaErrorCauseCauseMask) >> regs::kDmaErrorCauseCauseShift;
  switch (cause) {
    case regs::kDmaErrorCauseCauseNone: return "NONE";
    case regs::kDmaErrorCauseCauseUr: return "UR";
    case regs::kDmaErrorCauseCauseCa: return "CA";
    case regs::kDmaErrorCauseCauseStatus: return "STATUS";
    case regs::kDmaErrorCauseCausePoisoned: return "POISONED";
    case regs::kDmaErrorCauseCauseTimeout: return "TIMEOUT";
    case regs::kDmaErrorCauseCauseMalformed: return "MALFORMED";
    default: return "cause " + std::to_string(cause);
  }
}

std::string DmaCauseText(uint32_t dma_cause) {
  if (dma_cause == 0) return "";
  const uint32_t requester =
      (dma_cause & regs::kDmaErrorCauseRequesterMask) >> regs::kDmaErrorCauseRequesterShift;
  const uint32_t tag = (dma_cause & regs::kDmaErrorCauseTagMask) >> regs::kDmaErrorCauseTagShift;
  const char* whose = requester == regs::kDmaErrorCauseRequesterCore   ? "a READ_HOST read"
                      : requester == regs::kDmaErrorCauseRequesterRing ? "an instruction fetch"
                                                                       : "a read";
  return DmaCauseName(dma_cause) + " on " + whose + " (tag " + std::to_string(tag) + ")";
}

std::string ErrorSummary(const DeviceError& e) {
  if (e.hung()) return "no answer (hung)";
  std::string s = regs::ErrorCodeName(e.code());
  if (e.code() != regs::kErrRingFetchError && e.code() != regs::kErrWatchdog) {
    s += " at instruction " + std::to_string(e.index());
  }
  if (e.dma_cause() != 0) s += " [" + DmaCauseText(e.dma_cause()) + "]";
  return s;
}

bool Retryable(const DeviceError& e) {
  if (e.hung()) return false;
  if (e.code() == regs::kErrWatchdog) return true;
  const bool dma = e.code() == static_cast<uint32_t>(isa::Error::kDmaError) ||
                   e.code() == regs::kErrRingFetchError;
  return dma && (e.dma_cause() & regs::kDmaErrorCauseCauseMask) != 0;
}

void Device::Reset() {
  ready_ = false;
  const uint64_t msi = bus_.msi_address();
  if (msi % 4 != 0) {
    throw std::invalid_argument("the bus's MSI address " + Hex(msi) +
                                " is not a multiple of 4 (MSI_ADDR_LO bits 1:0 are 0)");
  }
  // The soft reset keeps irq_enable only if the same write sets it (tpu_host_regs.sv); it
  // clears RING_TAIL, IRQ_STATUS and a ring fetch error and keeps the MSI and ring setup,
  // which is written anyway in case the device was reset some other way.
  bus_.WriteRegister(regs::kControl, kResetAndIrqs);
  bus_.WriteRegister(regs::kMsiAddrLo, static_cast<uint32_t>(msi));
  bus_.WriteRegister(regs::kMsiAddrHi, static_cast<uint32_t>(msi >> 32));
  bus_.WriteRegister(regs::kMsiData, options_.msi_data);
  bus_.WriteRegister(regs::kIrqMask, regs::kIrqMaskDoneMask | regs::kIrqMaskErrorMask);
  bus_.WriteRegister(regs::kIrqStatus, kIrqBoth);
  // A read completion does not pass the device's posted writes: once it is back, every MSI
  // the device sent before the reset has arrived, and the writes above have taken effect.
  try {
    bus_.ReadRegister(regs::kStatus);
  } catch (const std::runtime_error& e) {
    ThrowNoAnswer(e, "resetting it (STATUS read after CONTROL.soft_reset)");
  }
  while (bus_.WaitForInterrupt(0)) {
  }
  ready_ = true;
}

DmaBuffer Device::AllocateDma(uint64_t bytes, uint64_t align) {
  if (!IsPowerOfTwo(align)) {
    throw std::invalid_argument("AllocateDma: align = " + std::to_string(align) +
                                " is not a power of two");
  }
  const uint64_t end = options_.host_base + options_.host_size;
  const uint64_t address = (dma_next_ + align - 1) & ~(align - 1);
  if (address > end || bytes > end - address) {
    const uint64_t left = address < end ? end - address : 0;
    throw std::length_error("AllocateDma: " + std::to_string(bytes) + " bytes (aligned to " +
                            std::to_string(align) + ") do not fit: " + std::to_string(left) +
                            " bytes of the host region [" + Hex(options_.host_base) + ", " +
                            Hex(end) +
                            ") are left; raise DeviceOptions::host_size or ReleaseDma()");
  }
  dma_next_ = address + bytes;
  return {address, bytes};
}

void Device::ReleaseDma() { dma_next_ = dma_region().address; }

DmaBuffer Device::dma_region() const {
  const uint64_t ring_bytes = isa::kSlotBytes * options_.max_ring_slots;
  return {options_.host_base + ring_bytes, options_.host_size - ring_bytes};
}

void Device::WriteSlots(uint64_t ring_base, uint32_t slot, const isa::Words* words,
                        uint32_t count) {
  bus_.host_memory().Write(ring_base + isa::kSlotBytes * slot,
                           isa::SlotBytes(words, count, &slot_bytes_), isa::kSlotBytes * count);
}

PerfCounters Device::ReadPerf() {
  PerfCounters perf{};
  for (int i = 0; i < regs::kPerfCount; ++i) {
    // Reading LO latches HI of the same value: LO first, always.
    const uint64_t lo = bus_.ReadRegister(regs::PerfLo(i));
    const uint64_t hi = bus_.ReadRegister(regs::PerfHi(i));
    perf[static_cast<size_t>(i)] = hi << 32 | lo;
  }
  return perf;
}

RunResult Device::Run(const std::vector<isa::Instr>& program) {
  isa::Program encoded;
  try {
    encoded = isa::Program(program);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("Run: ") + e.what());
  }
  return Run(encoded);
}

RunResult Device::Run(const isa::Program& program) {
  if (program.empty()) throw std::invalid_argument("Run: the program is empty");
  if (program.OpcodeAt(program.size() - 1) != isa::Opcode::kHalt) {
    throw std::invalid_argument(
        "Run: the program must end in HALT (the device interrupts on "
        "it), but its last instruction (" +
        std::to_string(program.size() - 1) + ") is " + isa::Disassemble(program.back()));
  }
  const std::vector<isa::Words>& encoded = program.words();

  const size_t count = program.size();
  const uint32_t max_slots = options_.max_ring_slots;
  // A ring of `slots` holds slots - 1 instructions (head == tail is empty).
  uint32_t slots = kMinRingSlots;
  while (slots <= count && slots < max_slots) slots *= 2;
  const uint64_t base = options_.host_base;

  try {
    if (!ready_) {
      Reset();
    } else {
      bus_.WriteRegister(regs::kControl, kResetAndIrqs);  // RING_HEAD, RING_TAIL back to 0
    }
    ready_ = false;  // until this run completes
    bus_.WriteRegister(regs::kRingBaseLo, static_cast<uint32_t>(base));
    bus_.WriteRegister(regs::kRingBaseHi, static_cast<uint32_t>(base >> 32));
    bus_.WriteRegister(regs::kRingSize, slots);

    size_t next = 0;
    uint32_t tail = 0;
    auto fill = [&](uint32_t room) {
      while (room > 0 && next < count) {
        const auto run = static_cast<uint32_t>(
            std::min<uint64_t>({room, slots - tail, static_cast<uint64_t>(count - next)}));
        WriteSlots(base, tail, &encoded[next], run);
        next += run;
        tail = (tail + run) % slots;
        room -= run;
      }
    };
    fill(slots - 1);
    bus_.WriteRegister(regs::kIrqStatus, kIrqBoth);

    RunResult result;
    result.instructions = count;
    result.start_ns = bus_.now_ns();
    const double deadline = result.start_ns + options_.run_timeout_ns;
    bus_.WriteRegister(regs::kRingTail, tail);  // the doorbell

    // Streaming: the rest goes in as RING_HEAD moves; an interrupt meanwhile ends it early.
    std::optional<uint32_t> irq;
    while (next < count) {
      const double left = deadline - bus_.now_ns();
      if (left <= 0) break;
      irq = bus_.WaitForInterrupt(std::min(options_.poll_interval_ns, left));
      if (irq) break;
      const uint32_t head = bus_.ReadRegister(regs::kRingHead) % slots;
      const uint32_t used = (tail + slots - head) % slots;
      const uint32_t room = slots - 1 - used;
      if (room > 0) {
        fill(room);
        bus_.WriteRegister(regs::kRingTail, tail);
      }
    }
    if (!irq) {
      const double left = deadline - bus_.now_ns();
      if (left > 0) irq = bus_.WaitForInterrupt(left);
    }
    if (!irq) {
      ThrowHung("the device did not raise its completion interrupt within " +
                    Micros(options_.run_timeout_ns) + " (DeviceOptions::run_timeout_ns" +
                    (next < count ? ", with " + std::to_string(count - next) + " of " +
                                        std::to_string(count) + " instructions not yet in the ring"
                                  : std::string()) +
                    ")",
                bus_.now_ns() - result.start_ns);
    }
    result.end_ns = bus_.now_ns();

    const uint32_t irq_status = bus_.ReadRegister(regs::kIrqStatus);
    if (irq_status & regs::kIrqStatusErrorMask) ThrowError(program);
    if (!(irq_status & regs::kIrqStatusDoneMask)) {
      ThrowHung("an interrupt (MSI data " + Hex(*irq) + ") arrived but IRQ_STATUS = " +
                    Hex(irq_status) + " shows neither done nor error",
                result.end_ns - result.start_ns);
    }
    result.perf = ReadPerf();
    bus_.WriteRegister(regs::kIrqStatus, kIrqBoth);
    ready_ = true;
    return result;
  } catch (const DeviceError&) {
    ready_ = false;
    throw;
  } catch (const std::runtime_error& e) {  // the bus: a register read got no completion
    ready_ = false;
    ThrowNoAnswer(e, "running a program of " + std::to_string(count) + " instructions");
  }
}

void Device::ThrowError(const isa::Program& program) {
  ready_ = false;
  const uint32_t code = bus_.ReadRegister(regs::kErrorCode) & regs::kErrorCodeCodeMask;
  const uint32_t index = bus_.ReadRegister(regs::kErrorIndex);
  const bool dma_code = code == static_cast<uint32_t>(isa::Error::kDmaError) ||
                        code == regs::kErrRingFetchError;
  const uint32_t dma_cause = dma_code ? bus_.ReadRegister(regs::kDmaErrorCause) : 0;
  std::string what = "device reported " + regs::ErrorCodeName(code) + " (" + Hex(code, 2) + ")";
  // The instruction ERROR_INDEX names, decoded once (the program is held encoded).
  std::optional<isa::Instr> failing;
  if (index < program.size()) failing = program[index];
  if (code == regs::kErrWatchdog) {
    const uint32_t head = bus_.ReadRegister(regs::kRingHead);
    what += " after the core took " + std::to_string(head) +
            " instructions (RING_HEAD; the last ones taken were running)";
  } else if (code == regs::kErrRingFetchError) {
    const uint32_t head = bus_.ReadRegister(regs::kRingHead);
    what += " while fetching instructions from the ring at host " + Hex(options_.host_base) +
            " (RING_HEAD " + std::to_string(head) + ")";
  } else {
    what += " at instruction " + std::to_string(index);
    if (failing) {
      what += " (" + isa::Disassemble(*failing) + ")";
    } else {
      what += " (beyond the program's " + std::to_string(program.size()) + " instructions)";
    }
  }
  if (dma_cause != 0) what += " [" + DmaCauseText(dma_cause) + "]";
  what += ": " + ErrorDoc(code);
  std::string detail;
  if (failing && code != regs::kErrRingFetchError && code != regs::kErrWatchdog) {
    try {
      detail = isa::Explain(*failing, info_.limits).message;
    } catch (const std::exception&) {
      detail.clear();
    }
  }
  const bool host_stop = code == regs::kErrRingFetchError || code == regs::kErrWatchdog;
  if (detail.empty() && failing && !host_stop) {
    // The host bytes a DMA instruction touches.
    uint64_t host = 0, length = 0;
    if (const auto* r = std::get_if<isa::ReadHost>(&*failing)) {
      host = r->host;
      length = r->length;
    } else if (const auto* w = std::get_if<isa::WriteHost>(&*failing)) {
      host = w->host;
      length = w->length;
    }
    if (length > 0) detail = "host bytes [" + Hex(host) + ", " + Hex(host + length) + ")";
  }
  if (detail.empty()) {
    what += "; " + ErrorHint(code);
  } else if (code == static_cast<uint32_t>(isa::Error::kDmaError)) {
    what += "; " + detail + ": " + ErrorHint(code);
  } else {
    what += "; " + detail;
  }
  throw DeviceError(what, false, code, index, dma_cause);
}

void Device::ThrowHung(const std::string& why, double waited_ns) {
  ready_ = false;
  std::string what = why + ": it may be hung";
  uint32_t code = 0, index = 0;
  try {
    const uint32_t status = bus_.ReadRegister(regs::kStatus);
    code = bus_.ReadRegister(regs::kErrorCode);
    index = bus_.ReadRegister(regs::kErrorIndex);
    const uint32_t irq_status = bus_.ReadRegister(regs::kIrqStatus);
    const uint32_t head = bus_.ReadRegister(regs::kRingHead);
    const uint32_t tail = bus_.ReadRegister(regs::kRingTail);
    const uint32_t cycles_lo = bus_.ReadRegister(regs::PerfLo(regs::kPerfCycles));
    const uint32_t cycles_hi = bus_.ReadRegister(regs::PerfHi(regs::kPerfCycles));
    what += " (waited " + Micros(waited_ns) + "). Registers:";
    for (const auto& [offset, value] :
         {std::pair{regs::kStatus, status}, std::pair{regs::kErrorCode, code},
          std::pair{regs::kErrorIndex, index}, std::pair{regs::kIrqStatus, irq_status},
          std::pair{regs::kRingHead, head}, std::pair{regs::kRingTail, tail},
          std::pair{regs::PerfLo(regs::kPerfCycles), cycles_lo},
          std::pair{regs::PerfHi(regs::kPerfCycles), cycles_hi}}) {
      what += "\n  " + Dump(offset, value);
    }
    what += "\n";
    if ((status & regs::kStatusDoneMask) || (status & regs::kStatusErrorMask)) {
      what += "The device has stopped (STATUS." +
              std::string(status & regs::kStatusErrorMask ? "error" : "done") +
              ") but no interrupt arrived: check the MSI address and data the bus expects "
              "and that nothing else takes the interrupt.";
    } else if (status & regs::kStatusRunningMask) {
      what +=
          "The device is still running: if the program is long, raise "
          "DeviceOptions::run_timeout_ns; if RING_HEAD does not move, the program may wait "
          "on a token nothing signals, or the device may not be a bus master (it sends no "
          "request until the host sets Bus Master Enable in its configuration space).";
    } else {
      what +=
          "The device is not running: check that the ring (RING_BASE, RING_SIZE, "
          "RING_TAIL) reached it.";
    }
    what += " The next Run() resets the device.";
  } catch (const std::runtime_error& e) {
    what += ", and the device does not answer register reads either (" + std::string(e.what()) +
            "): check that it is present and its link is up; the next Run() resets it";
  }
  throw DeviceError(what, true, code, index);
}

}  // namespace tpu::device
