// The system model's bring-up through configuration space (docs/host_if.md section 8) on a
// link whose max payload and max read request (128 bytes each) are below the ones the device
// was built for (256 / 512): the root complex's enumeration sets them in Device Control, and a
// dense layer then runs bit-exact with every DMA TLP within them (the root complex drops any
// larger write and answers any larger read UR, and both are counted).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "compiler/dense_lowering.h"
#include "dense_case.h"
#include "device/device.h"
#include "golden/dense.h"
#include "host_if/top_model.h"
#include "runtime/executor.h"
#include "sc_models/pcie/config_space.h"
#include "sc_models/system/tpu_system.h"

namespace tpu::sys {
namespace {

TpuSystem* g_system = nullptr;

// The first Run enumerated the device: the registers read back what the host wrote.
TEST(SystemConfig, EnumerationSetTheLinksSizes) {
  uint32_t ids = 0, command = 0, bar0 = 0, dev_ctl = 0, dev_caps = 0;
  g_system->Run([&](device::DeviceBus&) {
    sc::RootComplex& rc = g_system->root_complex();
    ids = rc.ConfigRead(sc::kCfgIds);
    command = rc.ConfigRead(sc::kCfgCommand);
    bar0 = rc.ConfigRead(sc::kCfgBar0);
    dev_ctl = rc.ConfigRead(sc::kCfgDeviceControl);
    dev_caps = rc.ConfigRead(sc::kCfgDeviceCaps);
  });
  EXPECT_EQ(ids, uint32_t{sc::kTpuDeviceId} << 16 | sc::kVendorId);
  EXPECT_EQ(command & 0xffff, sc::kCommandMemorySpace | sc::kCommandBusMaster);
  EXPECT_EQ(bar0, static_cast<uint32_t>(g_system->root_complex().config().bar0_address));
  EXPECT_EQ(dev_ctl & 0xffff, sc::DeviceControl(0, 0));  // 128 / 128
  EXPECT_EQ(dev_caps & 7, 1u);                           // the device supports 256
}

TEST(SystemConfig, DenseLayerWith128ByteTlps) {
  std::mt19937_64 rng(11);
  const int64_t m = 64, k = 96, n = 48;
  const tpu::testing::DenseCase c = tpu::testing::RandomDense(rng, m, k, n);
  golden::Tensor<int8_t> y;
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    const device::DmaBuffer region = dev.dma_region();
    const compiler::DenseProgram p =
        compiler::LowerDense(c.x, c.layer, dev.info().limits, {region.address, region.size});
    y = runtime::Execute(dev, p, m * k * n).output;
  });
  const golden::Tensor<int8_t> want = golden::Dense(c.x, c.layer.weights, c.layer.bias,
                                                    c.layer.input_zero_point, c.layer.requant);
  EXPECT_EQ(y.data, want.data);
  const sc::RootComplex::Stats& s = g_system->root_complex().stats();
  EXPECT_EQ(s.dropped_writes, 0u);        // no MWr above 128 bytes
  EXPECT_EQ(s.unsupported_requests, 0u);  // no MRd above 128 bytes
  EXPECT_GT(s.reads_served, 0u);
  EXPECT_GT(s.writes, 0u);
  std::printf("%llu reads, %llu bytes; %llu writes, %llu bytes\n",
              static_cast<unsigned long long>(s.reads_served),
              static_cast<unsigned long long>(s.bytes_read),
              static_cast<unsigned long long>(s.writes),
              static_cast<unsigned long long>(s.bytes_written));
  EXPECT_GE(s.reads_served * 128, s.bytes_read);
}

}  // namespace
}  // namespace tpu::sys

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tpu::sys::SystemConfig config;
  config.link.max_payload = 128;
  config.link.max_read_request = 128;
  tpu::sys::TpuSystem system(config, tpu::tb::MakeTopModel<1>());
  tpu::sys::g_system = &system;
  return RUN_ALL_TESTS();
}
