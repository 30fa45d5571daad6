// `--device NAME` on the built `tpu` binary: the same layer on every built device configuration
// (bit-exact against golden, the report naming the device), a device the list does not have, a
// device of the list this build did not verilate (TPU_BUILD_DEVICES), the golden backend (runs
// no device, accepts and reports the option), `tpu info --device` and `tpu info --devices`.
// Every error exits with status 2 and writes nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cli/tpu_binary.h"
#include "devices/device_lookup.h"
#include "devices/devices_gen.h"
#include "host_if/built_devices.h"
#include "npy/npy.h"
#include "npy/scratch_dir.h"

namespace tpu::cli {
namespace {

using golden::Tensor;
using tpu::testing::Python;
using tpu::testing::ReadFile;
using tpu::testing::RunTpu;
using tpu::testing::ScratchDir;
using tpu::testing::TpuRun;

// A dense layer of 19 x 37 x 21 (no dimension a multiple of 8 or 16: partial tiles at every N).
class DeviceOption : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937 rng(11);
    Tensor<int8_t> x({19, 37}), w({37, 21});
    for (auto& v : x.data) v = static_cast<int8_t>(rng());
    for (auto& v : w.data) v = static_cast<int8_t>(rng());
    npy::Write(x_, x);
    npy::Write(w_, w);
  }

  std::string Dense(const std::string& out) const {
    return "dense --input " + x_ + " --weights " + w_ + " --scale 0.002 --output " + out;
  }

  // A configuration of the list this build did not verilate, or nullptr if it built them all.
  static const devices::DeviceConfig* NotBuilt() {
    for (const devices::DeviceConfig& d : devices::kDevices) {
      if (!tb::IsBuilt(d)) return &d;
    }
    return nullptr;
  }

  // `args` must exit 2 with every part in stderr and write nothing to y_.
  void ExpectRefused(const std::string& args, const std::vector<std::string>& parts) {
    const TpuRun run = RunTpu(args, dir_);
    EXPECT_EQ(run.status, 2) << "tpu " << args << "\nstdout: " << run.out;
    for (const std::string& part : parts) {
      EXPECT_NE(run.err.find(part), std::string::npos)
          << "tpu " << args << "\nstderr: " << run.err << "\nexpected to contain: " << part;
    }
    EXPECT_TRUE(ReadFile(y_).empty()) << "tpu " << args << " wrote an output";
  }

  ScratchDir dir_;
  const std::string x_ = dir_ / "x.npy", w_ = dir_ / "w.npy", y_ = dir_ / "y.npy";
};

// Every built device runs the layer bit-exact and says which device it was; the device's N
// shows in the utilization (MACs / (cycles x N x N)).
TEST_F(DeviceOption, EveryBuiltDeviceRunsTheLayer) {
  ASSERT_GE(tb::BuiltDevices().size(), 2u) << "the default build has at least two devices";
  const std::string golden_y = dir_ / "g.npy";
  ASSERT_EQ(RunTpu(Dense(golden_y), dir_).status, 0);
  for (const devices::DeviceConfig* d : tb::BuiltDevices()) {
    SCOPED_TRACE(d->name);
    const std::string out = dir_ / (std::string(d->name) + ".npy");
    const TpuRun run = RunTpu(
        Dense(out) + " --backend rtl --check --report json --device " + d->name, dir_);
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_TRUE(ReadFile(out) == ReadFile(golden_y));
    const std::string n = std::to_string(d->limits.n);
    EXPECT_TRUE(Python(
        "import json, sys; d = json.load(open(sys.argv[1])); "
        "assert d['device'].startswith('" + std::string(d->name) + " (N = " + n + ", '), d; "
        "assert d['check'].startswith('PASS'), d; "
        "assert abs(d['mxu_utilization'] - d['macs'] / (d['cycles'] * " + n + " * " + n +
            ")) < 1e-6, d",
        dir_.WriteFile(std::string(d->name) + ".json", run.out)))
        << run.out;
  }
}

TEST_F(DeviceOption, DefaultIsTheListsDefault) {
  const TpuRun run = RunTpu(Dense(y_) + " --backend rtl", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find(std::string(" ") + devices::kDefaultDevice + " (N = "),
            std::string::npos)
      << run.out;
}

TEST_F(DeviceOption, UnknownDeviceNamesTheDevices) {
  const std::string expected = "no device 'n7'; devices: " + devices::DeviceNames();
  ExpectRefused(Dense(y_) + " --backend rtl --device n7", {"--device n7", expected});
  ExpectRefused(Dense(y_) + " --device n7", {expected});  // golden too
  ExpectRefused("run net.json --input " + x_ + " --output " + y_ + " --device n7", {expected});
  const TpuRun info = RunTpu("info --device n7", dir_);
  EXPECT_EQ(info.status, 2);
  EXPECT_NE(info.err.find(expected), std::string::npos) << info.err;
}

TEST_F(DeviceOption, NotBuiltDeviceGivesTheReconfigureCommand) {
  const devices::DeviceConfig* d = NotBuilt();
  if (d == nullptr) GTEST_SKIP() << "this build verilated every configuration of the list";
  const std::string name = d->name;
  ExpectRefused(Dense(y_) + " --backend rtl --device " + name,
                {"device '" + name + "' is in isa/devices.json but this build has no Verilated "
                 "model of it", "cmake -B ", "-DTPU_BUILD_DEVICES='", ";" + name + "'"});
  // The golden backend runs no device: any configuration of the list is accepted.
  const TpuRun golden = RunTpu(Dense(y_) + " --device " + name, dir_);
  EXPECT_EQ(golden.status, 0) << golden.err;
  const TpuRun info = RunTpu("info --device " + name, dir_);
  EXPECT_EQ(info.status, 0) << info.err;
  EXPECT_NE(info.out.find("not in TPU_BUILD_DEVICES"), std::string::npos) << info.out;
}

TEST_F(DeviceOption, GoldenAcceptsAndReportsTheDevice) {
  for (const devices::DeviceConfig& d : devices::kDevices) {
    const TpuRun run = RunTpu(Dense(y_) + " --device " + d.name, dir_);
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find(std::string(d.name) + " (N = " + std::to_string(d.limits.n)),
              std::string::npos)
        << run.out;
  }
}

TEST(InfoDeviceOption, DescribesTheNamedDevice) {
  ScratchDir dir;
  for (const devices::DeviceConfig& d : devices::kDevices) {
    SCOPED_TRACE(d.name);
    const TpuRun run = RunTpu(std::string("info --report json --device ") + d.name, dir);
    ASSERT_EQ(run.status, 0) << run.err;
    const std::string rtl = tb::IsBuilt(d) ? "available" : "not built";
    EXPECT_TRUE(Python(
        "import json, sys; d = json.load(open(sys.argv[1])); "
        "assert d['device'] == '" + std::string(d.name) + "', d; "
        "assert d['n'] == " + std::to_string(d.limits.n) + ", d; "
        "assert d['ub_rows'] == " + std::to_string(d.limits.ub_rows) + ", d; "
        "assert d['acc_rows'] == " + std::to_string(d.limits.acc_rows) + ", d; "
        "assert d['dram_bytes'] == " + std::to_string(d.limits.dram_bytes) + ", d; "
        "assert d['dma_tags'] == " + std::to_string(d.dma_tags) + ", d; "
        "assert d['tlp_width_bits'] == " + std::to_string(d.tlp_width_bits) + ", d; "
        "assert d['backend_rtl'].startswith('" + rtl + "'), d",
        dir.WriteFile("info.json", run.out)))
        << run.out;
  }
}

TEST(InfoDeviceOption, ListsEveryDevice) {
  ScratchDir dir;
  TpuRun run = RunTpu("info --devices", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  for (const devices::DeviceConfig& d : devices::kDevices) {
    const std::string built = tb::IsBuilt(d) ? "built: yes" : "built: no";
    const std::string line = std::string(d.name) + " (N = " + std::to_string(d.limits.n);
    const auto at = run.out.find(line);
    ASSERT_NE(at, std::string::npos) << run.out;
    const std::string rest = run.out.substr(at, run.out.find('\n', at) - at);
    EXPECT_NE(rest.find(built), std::string::npos) << rest;
  }
  run = RunTpu("info --devices --report json", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(Python(std::string("import json, sys; d = json.load(open(sys.argv[1])); "
                                 "assert d['default'] == '") +
                         devices::kDefaultDevice + "', d; "
                         "assert len(d) == " + std::to_string(devices::kNumDevices + 2) + ", d",
                     dir.WriteFile("devices.json", run.out)))
      << run.out;
}

}  // namespace
}  // namespace tpu::cli
