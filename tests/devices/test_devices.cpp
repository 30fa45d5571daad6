// The device configurations library (host_driver/devices): the generated table of
// isa/devices.json is consistent, FindDevice() / DeviceByIndex() find what it lists and nothing
// else, and the figures of the two configurations the tests and the tool rely on are written
// out here by hand, so that a change to isa/devices.json that alters them fails.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "devices/devices_gen.h"

namespace tpu::devices {
namespace {

// The lookups are constexpr.
static_assert(FindDevice("n16") != nullptr);
static_assert(FindDevice("n16")->limits.n == 16);
static_assert(FindDevice("no such device") == nullptr);
static_assert(DeviceByIndex(1) == FindDevice("n16"));

TEST(Devices, NamesAndIndicesAreUniqueAndSorted) {
  std::set<std::string> names;
  for (int i = 0; i < kNumDevices; ++i) {
    const DeviceConfig& d = kDevices[i];
    SCOPED_TRACE(d.name);
    EXPECT_TRUE(names.insert(d.name).second);
    if (i > 0) {
      EXPECT_GT(d.index, kDevices[i - 1].index);
    }
    EXPECT_EQ(FindDevice(d.name), &d);
    EXPECT_EQ(DeviceByIndex(d.index), &d);
  }
}

TEST(Devices, DefaultIsN16) {
  EXPECT_STREQ(kDefaultDevice, "n16");
  EXPECT_EQ(&DefaultDevice(), FindDevice("n16"));
}

TEST(Devices, N16) {
  const DeviceConfig* d = FindDevice("n16");
  ASSERT_NE(d, nullptr);
  EXPECT_STREQ(d->name, "n16");
  EXPECT_EQ(d->index, 1);
  EXPECT_EQ(d->limits.n, 16);
  EXPECT_EQ(d->limits.ub_rows, 262144);  // 4 MiB
  EXPECT_EQ(d->limits.acc_rows, 1024);
  EXPECT_EQ(d->limits.dram_bytes, int64_t{4} << 20);
  EXPECT_EQ(d->limits.param_sets, 64);
  EXPECT_EQ(d->dram_width_bits, 256);
  EXPECT_EQ(d->max_payload, 256);
  EXPECT_EQ(d->max_read_request, 512);
  EXPECT_EQ(d->dma_tags, 32);
  EXPECT_EQ(d->timeout, 65536);
  EXPECT_EQ(d->ring_slots, 64);
  EXPECT_EQ(d->tlp_width_bits, 128);
  EXPECT_DOUBLE_EQ(d->clock_mhz, 700.0);
}

TEST(Devices, N16Small) {
  const DeviceConfig* d = FindDevice("n16_small");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->index, 0);
  EXPECT_EQ(d->limits.n, 16);
  EXPECT_EQ(d->limits.ub_rows, 1024);
  EXPECT_EQ(d->limits.acc_rows, 256);
  EXPECT_EQ(d->limits.dram_bytes, int64_t{1} << 20);
  EXPECT_EQ(d->limits.param_sets, 16);
  EXPECT_EQ(d->dram_width_bits, 128);
  EXPECT_EQ(d->max_payload, 256);
  EXPECT_EQ(d->max_read_request, 512);
  EXPECT_EQ(d->dma_tags, 16);
  EXPECT_EQ(d->timeout, 3000);
  EXPECT_EQ(d->ring_slots, 8);
  EXPECT_EQ(d->tlp_width_bits, 128);
}

// Issue 12: host -> device DMA fills Gen3 x16 (payload limit 14.507 GB/s with 256-byte
// completions) for every N >= 32: the TLP stream's payload rate, B bytes a cycle less one
// header beat per MPS-byte completion, must clear the link's limit at the device's clock
// (128 bits: 10.54 GB/s at 700 MHz, too slow; 256 bits: 19.91 GB/s).
TEST(Devices, StreamsFromN32UpOutrunGen3x16) {
  constexpr double kGen3x16PayloadLimit = 14.507e9;
  for (const DeviceConfig& d : kDevices) {
    SCOPED_TRACE(d.name);
    const double beat = static_cast<double>(d.tlp_width_bits) / 8;
    const double mps = static_cast<double>(d.max_payload);
    const double stream = beat * d.clock_mhz * 1e6 * mps / (mps + beat);
    if (d.limits.n >= 32) {
      EXPECT_GE(stream, kGen3x16PayloadLimit);
    }
  }
  EXPECT_EQ(FindDevice("n32")->tlp_width_bits, 256);
}

TEST(Devices, UnknownNamesAndIndicesGiveNullptr) {
  EXPECT_EQ(FindDevice(""), nullptr);
  EXPECT_EQ(FindDevice("N16"), nullptr);
  EXPECT_EQ(FindDevice("n16_"), nullptr);
  EXPECT_EQ(FindDevice("n1"), nullptr);
  EXPECT_EQ(DeviceByIndex(-1), nullptr);
  EXPECT_EQ(DeviceByIndex(kNumDevices + 100), nullptr);
}

}  // namespace
}  // namespace tpu::devices
