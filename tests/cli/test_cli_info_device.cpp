// `tpu info` describes the device the rtl backend simulates without building it; this test
// builds that device (the system model with the default device, as testbench/simulator does),
// reads what the driver sees in its capability registers and what the model was built with,
// and checks that the built `tpu info --report json` says the same. One SystemC elaboration.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "device/device.h"
#include "devices/devices_gen.h"
#include "host_if/built_devices.h"
#include "npy/scratch_dir.h"
#include "sc_models/system/tpu_system.h"

namespace tpu::sys {
namespace {

TpuSystem* g_system = nullptr;

// The number after "key": in a one-line JSON report; NaN if absent or not a number.
double JsonNumber(const std::string& json, const std::string& key) {
  const std::string tag = "\"" + key + "\": ";
  const auto at = json.find(tag);
  if (at == std::string::npos) return std::nan("");
  const char* begin = json.c_str() + at + tag.size();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  return end == begin ? std::nan("") : value;
}

TEST(InfoDevice, InfoDescribesTheSimulatedDevice) {
  tpu::testing::ScratchDir dir;
  const std::string out = dir / "info.json";
  const std::string command = std::string("'") + TPU_BINARY + "' info --report json >'" + out + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string json = tpu::testing::ReadFile(out);

  device::DeviceInfo info;
  g_system->Run([&](device::DeviceBus& bus) { info = device::Device(bus).info(); });
  const TopConfig& top = g_system->device().top_config();
  EXPECT_EQ(JsonNumber(json, "n"), info.limits.n) << json;
  EXPECT_EQ(JsonNumber(json, "ub_rows"), info.limits.ub_rows) << json;
  EXPECT_EQ(JsonNumber(json, "acc_rows"), info.limits.acc_rows) << json;
  EXPECT_EQ(JsonNumber(json, "dram_bytes"), info.limits.dram_bytes) << json;
  EXPECT_EQ(JsonNumber(json, "param_sets"), info.limits.param_sets) << json;
  EXPECT_EQ(JsonNumber(json, "isa_version"), info.isa_version) << json;
  EXPECT_EQ(JsonNumber(json, "max_payload_bytes"), info.max_payload) << json;
  EXPECT_EQ(JsonNumber(json, "max_read_request_bytes"), info.max_read_request) << json;
  EXPECT_EQ(JsonNumber(json, "dram_width_bits"), top.dram_width) << json;
  EXPECT_EQ(JsonNumber(json, "dma_tags"), top.num_tags) << json;
  EXPECT_EQ(JsonNumber(json, "tlp_width_bits"), top.tlp_width_bits) << json;
  EXPECT_EQ(JsonNumber(json, "clock_mhz"), g_system->config().clock_mhz) << json;
  EXPECT_NE(json.find("\"pcie_default\": \"" + SystemConfig{}.link.Name() + " "),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace tpu::sys

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // The default device, as the simulator builds it for `tpu` without --device.
  const tpu::devices::DeviceConfig& device = tpu::devices::DefaultDevice();
  tpu::sys::SystemConfig config;
  config.clock_mhz = device.clock_mhz;
  config.link.max_payload = static_cast<uint32_t>(device.max_payload);
  config.link.max_read_request = static_cast<uint32_t>(device.max_read_request);
  tpu::sys::TpuSystem system(config, tpu::tb::MakeBuiltTopModel(device));
  tpu::sys::g_system = &system;
  return RUN_ALL_TESTS();
}
