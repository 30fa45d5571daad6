// The modeled PCIe link under the whole system (sc_models/pcie_link.h): the payload bytes it
// counts in each direction for a known program equal what was moved (DMA reads as whole
// 16-byte beats, DMA writes as whole DWs with byte enables, the ring's instruction slots, the
// MSI, and the register traffic, counted by a CountingBus around the driver's bus), and a big
// READ_HOST streams near the bound of the device's receive path: 16 bytes per cycle at
// 700 MHz, of which one beat in 17 is a max-payload completion's header
// (sc_models/system/rtl_device.h), below the gen3x16 link's payload limit (LinkTiming).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "device/device.h"
#include "host_if/top_model.h"
#include "isa/isa.h"
#include "sc_models/pcie/pcie_link_config.h"
#include "sc_models/system/tpu_system.h"
#include "system_testing.h"

namespace tpu::sys {
namespace {

TpuSystem* g_system = nullptr;

constexpr uint64_t kSrc = 0x1'8000'0000ull;

struct Snapshot {
  sc::PcieLinkDirection::Stats down, up;
  sc::RootComplex::Stats rc;
  uint64_t msis;
};

Snapshot Take() {
  return {g_system->link().downstream.stats(), g_system->link().upstream.stats(),
          g_system->root_complex().stats(), g_system->root_complex().interrupts_received()};
}

// READ_HOST of `length` bytes at an odd host address into the UB, WRITE_HOST of another length
// to another odd address, HALT: the bytes each direction carried, exactly.
TEST(SystemLink, PayloadBytesMatchWhatWasMoved) {
  constexpr uint64_t kIn = kSrc + 0x1003, kOut = kSrc + 0x20001;
  constexpr uint32_t kInBytes = 5001, kOutBytes = 3003;
  std::mt19937_64 rng(5);
  g_system->Run([&](device::DeviceBus& raw) {
    testing::CountingBus bus(raw);
    device::Device dev(bus);
    dev.host_memory().Write(kIn, testing::RandomBytes(rng, kInBytes));
    dev.Run({isa::Nop{}, isa::Halt{}});  // first run: the driver's reset, out of the count
    bus.ReadRegister(regs::kId);          // its last posted writes have arrived

    const Snapshot before = Take();
    const uint64_t writes = bus.writes(), reads = bus.reads(), msis = bus.interrupts();
    isa::ReadHost r;
    r.target = isa::Target::kUb;
    r.host = kIn;
    r.dest = 10;
    r.length = kInBytes;
    isa::WriteHost w;
    w.ub = 10;
    w.host = kOut;
    w.length = kOutBytes;
    const std::vector<isa::Instr> program = {r, w, isa::Halt{}};
    dev.Run(program);
    bus.ReadRegister(regs::kId);  // a completion passes no posted write: all writes are in
    const Snapshot after = Take();

    const uint64_t reg_writes = bus.writes() - writes, reg_reads = bus.reads() - reads;
    const uint64_t msi = after.msis - before.msis;
    EXPECT_EQ(msi, 1u);
    EXPECT_EQ(bus.interrupts() - msis, 1u);
    const uint64_t ring = 16 * program.size();
    const uint64_t down = after.down.payload_bytes - before.down.payload_bytes;
    const uint64_t up = after.up.payload_bytes - before.up.payload_bytes;
    std::printf("register writes %llu, reads %llu; downstream %llu payload bytes in %llu TLPs, "
                "upstream %llu in %llu\n",
                (unsigned long long)reg_writes, (unsigned long long)reg_reads,
                (unsigned long long)down,
                (unsigned long long)(after.down.tlps - before.down.tlps), (unsigned long long)up,
                (unsigned long long)(after.up.tlps - before.up.tlps));
    // Host -> device: register writes (1 DW each), the ring's slots, the READ_HOST data. The
    // device reads host memory in whole beats of N = 16 bytes at multiples of 16
    // (docs/controller.md section 2, hm_req_addr_o), so it reads the beats that hold the bytes.
    const uint64_t beats = (kIn + kInBytes + 15) / 16 * 16 - kIn / 16 * 16;
    EXPECT_EQ(down, 4 * reg_writes + ring + beats);
    // Device -> host: register read completions (1 DW), the WRITE_HOST data, the MSI (1 DW).
    EXPECT_EQ(up, 4 * reg_reads + testing::DwBytes(kOut, kOutBytes) + 4 * msi);
    // The root complex served exactly those bytes and received exactly those.
    EXPECT_EQ(after.rc.bytes_read - before.rc.bytes_read, ring + beats);
    EXPECT_EQ(after.rc.bytes_written - before.rc.bytes_written, kOutBytes);
    EXPECT_EQ(after.rc.dropped_writes, before.rc.dropped_writes);
    EXPECT_EQ(after.rc.unsupported_requests, before.rc.unsupported_requests);
    EXPECT_EQ(after.rc.unexpected_completions, before.rc.unexpected_completions);
    // No TLP carries more than the max payload, so there are at least this many.
    const uint64_t mps = g_system->config().link.max_payload;
    EXPECT_GE(after.up.tlps - before.up.tlps,
              reg_reads + (kOutBytes + mps - 1) / mps + msi);
    EXPECT_EQ(after.down.rejected, before.down.rejected);
    EXPECT_EQ(after.up.rejected, before.up.rejected);
  });
}

// The achieved READ_HOST rate, from the difference of two transfer sizes (the fixed costs, ring
// fetch, first request's round trip, MSI, cancel out), is at least 90% of the bound
// min(link payload limit, 16 B x clock x 16/17) and does not exceed it.
TEST(SystemLink, ReadHostBandwidthNearTheDeviceBound) {
  constexpr uint32_t kSmall = 64 * 1024, kBig = 320 * 1024;
  const sc::LinkTiming timing(g_system->config().link);
  const double link_limit = timing.payload_limit_bytes_per_s(12);  // CplD: 3-DW header
  const double clock_hz = g_system->config().clock_mhz * 1e6;
  const double device_limit = 16.0 * clock_hz * 16.0 / 17.0;
  const double bound = std::min(link_limit, device_limit);
  double small_ns = 0, big_ns = 0;
  std::mt19937_64 rng(11);
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    dev.host_memory().Write(kSrc, testing::RandomBytes(rng, kBig));
    small_ns = testing::ReadHostNs(dev, kSrc, kSmall);
    big_ns = testing::ReadHostNs(dev, kSrc, kBig);
  });
  // The data arrived (the last one wrote the whole range).
  std::mt19937_64 again(11);
  EXPECT_EQ(g_system->dram().bytes().Read(0, kBig), testing::RandomBytes(again, kBig));

  const double rate = (kBig - kSmall) / ((big_ns - small_ns) * 1e-9);
  const double whole = kBig / (big_ns * 1e-9);
  std::printf("%s: link payload limit %.2f GB/s, device bound %.2f GB/s; READ_HOST %u B in "
              "%.2f us, %u B in %.2f us: %.2f GB/s streaming (%.1f%% of the bound), %.2f GB/s "
              "doorbell to MSI\n",
              g_system->config().link.Name().c_str(), link_limit / 1e9, device_limit / 1e9,
              kSmall, small_ns / 1e3, kBig, big_ns / 1e3, rate / 1e9, 100 * rate / bound,
              whole / 1e9);
  EXPECT_GE(rate, 0.90 * bound);
  EXPECT_LE(rate, 1.01 * bound);
  EXPECT_GE(whole, 0.85 * bound);  // fixed costs are a few percent of 320 KiB
}

}  // namespace
}  // namespace tpu::sys

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tpu::sys::TpuSystem system(tpu::sys::SystemConfig{}, tpu::tb::MakeTopModel<1>());
  tpu::sys::g_system = &system;
  return RUN_ALL_TESTS();
}
