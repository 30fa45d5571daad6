#include "sc_models/system/tpu_system.h"

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace tpu::sys {
namespace {

sc::RootComplexConfig RootComplexFor(const SystemConfig& c) {
  sc::RootComplexConfig rc;
  rc.max_payload = c.link.max_payload;
  rc.max_read_request = c.link.max_read_request;
  rc.memory_latency_ns = c.host_memory_latency_ns;
  rc.faults = c.link.faults;  // the completion faults (the link takes the others)
  return rc;
}

sc::WeightDramConfig DramFor(const SystemConfig& c, const TopConfig& top) {
  sc::WeightDramConfig d;
  d.n = static_cast<int>(top.limits.n);
  d.size_bytes = static_cast<uint64_t>(top.limits.dram_bytes);
  d.beat_bits = top.dram_width;
  d.clock_mhz = c.clock_mhz;
  d.latency_cycles = c.dram_latency_cycles;
  return d;
}

RtlDeviceConfig DeviceFor(const SystemConfig& c) {
  RtlDeviceConfig d = c.device;
  d.clock_mhz = c.clock_mhz;
  return d;
}

// Checks the link against the device before anything is elaborated.
const SystemConfig& Checked(const SystemConfig& c, const TopModel* model) {
  if (model == nullptr) throw std::invalid_argument("TpuSystem: no device model");
  c.link.Validate();
  const TopConfig& top = model->config();
  // Enumeration sets the device's Device Control to the link's sizes: its DMA engines take
  // any up to the sizes they were built for.
  if (static_cast<int>(c.link.max_payload) > top.max_payload ||
      static_cast<int>(c.link.max_read_request) > top.max_read_req) {
    throw std::invalid_argument(
        "TpuSystem: the link's max payload / max read request (" +
        std::to_string(c.link.max_payload) + " / " + std::to_string(c.link.max_read_request) +
        ") exceed the device's (" + std::to_string(top.max_payload) + " / " +
        std::to_string(top.max_read_req) + "): choose a link with sizes up to the device's");
  }
  return c;
}

}  // namespace

void SystemBus::WriteRegister(uint32_t offset, uint32_t value) {
  rc_->WriteRegister(offset, value);
}

uint32_t SystemBus::ReadRegister(uint32_t offset) { return rc_->ReadRegister(offset); }

std::optional<uint32_t> SystemBus::WaitForInterrupt(double timeout_ns) {
  const auto irq = rc_->WaitForInterrupt(sc_core::sc_time(timeout_ns, sc_core::SC_NS));
  if (!irq) return std::nullopt;
  return irq->data;
}

double SystemBus::now_ns() const { return sc_core::sc_time_stamp().to_seconds() * 1e9; }

device::BusCounters SystemBus::counters() const {
  device::BusCounters c;
  c.payload_bytes_to_device = link_->downstream.stats().payload_bytes;
  c.payload_bytes_from_device = link_->upstream.stats().payload_bytes;
  c.payload_limit_bytes_per_s = link_->timing().payload_limit_bytes_per_s();
  c.device_cycles = device_->stats().cycles;
  c.link_to_device = link_->downstream.errors();
  c.link_from_device = link_->upstream.errors();
  c.clock_mhz = clock_mhz_;
  return c;
}

void SystemBus::SetCycleHook(uint64_t every, std::function<void(uint64_t cycle)> hook) {
  device_->SetCycleHook(every, std::move(hook));
}

TpuSystem::TpuSystem(const SystemConfig& config, std::unique_ptr<TopModel> model)
    : config_(Checked(config, model.get())),
      link_("link", config.link),
      rc_("root_complex", RootComplexFor(config)),
      dram_("weight_dram", DramFor(config, model->config())),
      device_("device", std::move(model), &dram_.cycle_port(), DeviceFor(config)),
      dram_access_("dram_access"),
      bus_(&rc_, &link_, &device_, config.clock_mhz) {
  dram_access_.socket.bind(dram_.socket);
  rc_.tx.bind(link_.downstream.in);
  link_.downstream.out.bind(device_.rx);
  device_.SetInputLink(&link_.downstream);
  device_.tx.bind(link_.upstream.in);
  link_.upstream.out.bind(rc_.rx);
}

double TpuSystem::now_ns() const { return sc_core::sc_time_stamp().to_seconds() * 1e9; }

void TpuSystem::Run(const std::function<void(device::DeviceBus&)>& job) {
  bool done = false;
  std::exception_ptr error;
  sc_core::sc_spawn([&] {
    try {
      if (!enumerated_) {
        rc_.Enumerate();
        enumerated_ = true;
      }
      job(bus_);
    } catch (...) {
      error = std::current_exception();
    }
    done = true;
  });
  // Simulate in slices until the job returns: a device that keeps running after it (a hung
  // queue) must not keep this call from returning.
  const sc_core::sc_time slice(10, sc_core::SC_US);
  while (!done) {
    if (sc_core::sc_get_status() != sc_core::SC_ELABORATION && !sc_core::sc_pending_activity()) {
      throw std::runtime_error(
          "system model: nothing left to simulate while the driver still waits (a process "
          "waits for an event that never comes)");
    }
    sc_core::sc_start(slice);
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tpu::sys
