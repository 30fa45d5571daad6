#include "sc_models/pcie/config_space.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace tpu::sc {
namespace {

constexpr uint32_t kDevCtlWritable = kDevCtlRelaxedOrdering | kDevCtlNoSnoop |
                                     7u << kDevCtlMpsLsb | 7u << kDevCtlMrrsLsb;

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

uint32_t ByteMask(uint8_t be) {
  uint32_t m = 0;
  for (int b = 0; b < 4; ++b) {
    if (be >> b & 1) m |= 0xffu << (8 * b);
  }
  return m;
}

}  // namespace

uint32_t SizeCode(uint32_t bytes) {
  uint32_t e = 0;
  while (e < 5 && (128u << (e + 1)) <= bytes) ++e;
  return e;
}

uint32_t SizeOfCode(uint32_t code) { return code > 5 ? 4096 : 128u << code; }

uint32_t DeviceControl(uint32_t mps_code, uint32_t mrrs_code) {
  return kDevCtlRelaxedOrdering | kDevCtlNoSnoop | (mps_code & 7) << kDevCtlMpsLsb |
         (mrrs_code & 7) << kDevCtlMrrsLsb;
}

std::vector<ConfigStep> EnumerationSteps(uint32_t bar0, uint32_t max_payload,
                                         uint32_t max_read_request) {
  const uint32_t dev_ctl = DeviceControl(SizeCode(max_payload), SizeCode(max_read_request));
  const uint32_t command = kCommandMemorySpace | kCommandBusMaster;
  return {
      {false, kCfgIds, 0, uint32_t{kTpuDeviceId} << 16 | kVendorId, 0xffffffff,
       "Vendor / Device ID"},
      {true, kCfgBar0, 0xffffffff, 0, 0, "BAR0 sizing"},
      {false, kCfgBar0, 0, ~(kBar0Bytes - 1), 0xffffffff, "BAR0 size mask"},
      {true, kCfgBar0, bar0, 0, 0, "BAR0 address"},
      {true, kCfgDeviceControl, dev_ctl, 0, 0, "Device Control"},
      {false, kCfgDeviceControl, 0, dev_ctl, 0xffff, "Device Control"},
      {true, kCfgCommand, command, 0, 0, "Command"},
      {false, kCfgCommand, 0, command, 0xffff, "Command"},
  };
}

std::string CheckConfigStep(const ConfigStep& step, uint32_t value) {
  if (step.write || (value & step.expect_mask) == (step.expect & step.expect_mask)) return "";
  return "enumeration: configuration register " + Hex(step.offset).substr(6) + " (" + step.what +
         ") reads " + Hex(value) + ", expected " + Hex(step.expect & step.expect_mask) +
         " under mask " + Hex(step.expect_mask) + ": is this the TPU device?";
}

void RunEnumeration(const std::vector<ConfigStep>& steps,
                    const std::function<uint32_t(uint16_t offset)>& read,
                    const std::function<void(uint16_t offset, uint32_t value)>& write) {
  for (const ConfigStep& step : steps) {
    if (step.write) {
      write(step.offset, step.value);
      continue;
    }
    const std::string why = CheckConfigStep(step, read(step.offset));
    if (!why.empty()) throw std::runtime_error(why);
  }
}

uint32_t ConfigSpace::Read(uint16_t offset) const {
  switch (offset & 0xffc) {
    case kCfgIds:
    case kCfgSubsystem:
      return uint32_t{kTpuDeviceId} << 16 | kVendorId;
    case kCfgCommand:
      return kStatusCapList | command_;
    case kCfgClass:
      return kClassCode << 8 | kRevisionId;
    case kCfgBar0:
      return bar0_;
    case kCfgCapPtr:
      return kCfgPcieCap;
    case kCfgPcieCap:
      return 0x00020010;  // version 2, endpoint, capability ID 10h, last in the list
    case kCfgDeviceCaps:
      return 1u << 15 | std::min<uint32_t>(SizeCode(max_payload_), 5);
    case kCfgDeviceControl:
      return dev_ctl_;
    default:
      return 0;
  }
}

void ConfigSpace::Write(uint16_t offset, uint32_t value, uint8_t first_be, uint16_t target_id) {
  id_ = target_id & 0xfff8;
  const uint32_t m = ByteMask(first_be);
  auto merge = [&](uint32_t old, uint32_t writable) {
    return (old & ~(m & writable)) | (value & m & writable);
  };
  switch (offset & 0xffc) {
    case kCfgCommand:
      command_ = merge(command_, kCommandMemorySpace | kCommandBusMaster);
      break;
    case kCfgBar0:
      bar0_ = merge(bar0_, ~(kBar0Bytes - 1));
      break;
    case kCfgDeviceControl:
      dev_ctl_ = merge(dev_ctl_, kDevCtlWritable);
      break;
    default:
      break;
  }
}

uint32_t ConfigSpace::max_payload() const {
  return std::min(SizeOfCode(dev_ctl_ >> kDevCtlMpsLsb & 7), max_payload_);
}

uint32_t ConfigSpace::max_read_request() const {
  return std::min(SizeOfCode(dev_ctl_ >> kDevCtlMrrsLsb & 7), max_read_request_);
}

}  // namespace tpu::sc
