// The model device (sc_models/model_device, docs/model.md) through the real driver
// (tpu::device::Device) and the runtime's device backend, as `tpu --backend model` runs it:
// registers and capabilities of every configuration of isa/devices.json, a layer of each type
// bit-exact with golden on n8, n16, n32, n64 and v1, a program streamed through a small ring,
// every error the status register reports (decode errors, NO_TILE, DMA_ERROR on a faulted host
// range, TOKEN_OVERFLOW, DEADLOCK, RING_FETCH_ERROR, a doorbell with the ring off) with the
// failing index and a good run after it, soft reset (also while a program runs), MSIs to a
// plain host address, and the figures the timing model gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/dense_lowering.h"
#include "compiler/layers.h"
#include "dense_case.h"
#include "device/device.h"
#include "devices/devices_gen.h"
#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/dense.h"
#include "golden/pool.h"
#include "isa/isa.h"
#include "model/matmul_kernel.h"
#include "regression/layer_cases.h"
#include "regs/regs.h"
#include "runtime/device_backend.h"
#include "runtime/executor.h"
#include "sc_models/model_device/model_platform.h"
#include "sc_models/model_device/timing_model.h"
#include "sc_models/pcie/config_space.h"

namespace tpu::sc {
namespace {

#define EXPECT_CONTAINS(text, part)                                                              \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "\"" << (part) << "\" not in:\n" \
                                                             << (text)

using golden::Tensor;
using testing::DenseCase;
using testing::RandomDense;

constexpr uint32_t kIrqBoth = regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask;

Tensor<int8_t> RandomInt8(std::vector<int64_t> shape, std::mt19937_64& rng) {
  Tensor<int8_t> t(std::move(shape));
  for (int8_t& v : t.data) v = static_cast<int8_t>(rng());
  return t;
}

// One ring slot: the instruction's four words, little-endian.
std::vector<uint8_t> SlotBytes(const isa::Instr& instr) {
  const isa::Words w = isa::Encode(instr);
  std::vector<uint8_t> bytes(16);
  for (int b = 0; b < 16; ++b) bytes[size_t(b)] = static_cast<uint8_t>(w[b / 4] >> (8 * (b % 4)));
  return bytes;
}

std::vector<isa::Instr> Nops(int count) { return std::vector<isa::Instr>(count, isa::Nop{}); }

std::vector<isa::Instr> WithHalt(std::vector<isa::Instr> program) {
  program.push_back(isa::Halt{});
  return program;
}

// Runs `program` on `dev` and expects the device error `code` at `index`.
void ExpectDeviceError(device::Device& dev, const std::vector<isa::Instr>& program,
                       isa::Error code, uint32_t index, const std::string& text = "") {
  try {
    dev.Run(program);
    ADD_FAILURE() << "no DeviceError, expected " << isa::ErrorName(code);
  } catch (const device::DeviceError& e) {
    EXPECT_FALSE(e.hung()) << e.what();
    EXPECT_EQ(e.code(), static_cast<uint32_t>(code)) << e.what();
    EXPECT_EQ(e.index(), index) << e.what();
    if (!text.empty()) {
      EXPECT_CONTAINS(e.what(), text);
    }
  }
}

// A dense layer through runtime::Execute, bit-exact; returns the run.
runtime::Execution RunDenseExact(device::Device& dev, const DenseCase& c,
                                 std::optional<device::DmaBuffer> in = std::nullopt) {
  const device::DmaBuffer region = in.value_or(dev.dma_region());
  const compiler::DenseProgram p =
      compiler::LowerDense(c.x, c.layer, dev.info().limits, {region.address, region.size});
  dev.host_memory().Write(p.output.address, std::vector<uint8_t>(p.output.bytes(), 0xa5));
  runtime::Execution e = runtime::Execute(dev, p, 0);
  const Tensor<int8_t> want =
      golden::Dense(c.x, c.layer.weights, c.layer.bias, c.layer.input_zero_point, c.layer.requant);
  EXPECT_EQ(e.output.data, want.data);
  EXPECT_EQ(e.result.perf[regs::kPerfRowsMatrix], runtime::MatmulRows(p.instrs));
  return e;
}

// ---- Registers ------------------------------------------------------------------------------

TEST(ModelDevice, CapabilitiesOfEveryConfiguration) {
  for (const devices::DeviceConfig& config : devices::kDevices) {
    SCOPED_TRACE(config.name);
    ModelDevice bus(config, {});
    bus.Enumerate();
    device::Device dev(bus);
    const device::DeviceInfo& info = dev.info();
    EXPECT_EQ(info.id, regs::kIdReset);
    EXPECT_EQ(info.isa_version, static_cast<uint32_t>(isa::kIsaVersion));
    EXPECT_EQ(info.hw_version, 1u);
    EXPECT_EQ(info.limits.n, config.limits.n);
    EXPECT_EQ(info.limits.ub_rows, config.limits.ub_rows);
    EXPECT_EQ(info.limits.acc_rows, config.limits.acc_rows);
    EXPECT_EQ(info.limits.dram_bytes, config.limits.dram_bytes);
    EXPECT_EQ(info.limits.param_sets, config.limits.param_sets);
    EXPECT_EQ(info.max_payload, static_cast<uint32_t>(config.max_payload));
    EXPECT_EQ(info.max_read_request, static_cast<uint32_t>(config.max_read_request));
    EXPECT_EQ(bus.ReadRegister(regs::kStatus), regs::kStatusRingEmptyMask);  // reset value
    EXPECT_EQ(bus.ReadRegister(0xffc), 0u);                                  // unmapped
  }
  EXPECT_EQ(devices::FindDevice("v1")->limits.dram_bytes >> 32, 2);  // CAP_DRAM_BYTES_HI used
}

TEST(ModelDevice, RegistersAfterResetAndWrites) {
  auto platform = MakeModelPlatform("n16");
  ModelDevice& bus = platform->device();
  device::Device dev(bus);
  dev.Reset();
  EXPECT_EQ(bus.ReadRegister(regs::kMsiAddrLo), static_cast<uint32_t>(ModelDevice::kMsiAddress));
  EXPECT_EQ(bus.ReadRegister(regs::kMsiAddrHi), 0u);
  EXPECT_EQ(bus.ReadRegister(regs::kMsiData), dev.options().msi_data);
  EXPECT_EQ(bus.ReadRegister(regs::kIrqMask), kIrqBoth);
  EXPECT_EQ(bus.ReadRegister(regs::kControl), regs::kControlIrqEnableMask);
  // Reserved bits read 0; read-only registers ignore writes.
  bus.WriteRegister(regs::kRingBaseLo, 0xffffffff);
  EXPECT_EQ(bus.ReadRegister(regs::kRingBaseLo), 0xfffffff0u);
  bus.WriteRegister(regs::kMsiData, 0x12345678);
  EXPECT_EQ(bus.ReadRegister(regs::kMsiData), 0x5678u);
  bus.WriteRegister(regs::kCapN, 3);
  EXPECT_EQ(bus.ReadRegister(regs::kCapN), 16u);
  // Time passes with each read (a link round trip).
  const double before = bus.now_ns();
  bus.ReadRegister(regs::kId);
  EXPECT_GT(bus.now_ns(), before);
}

TEST(ModelDevice, UnknownDeviceNamesTheKnownOnes) {
  try {
    MakeModelPlatform("n7");
    FAIL() << "no std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_CONTAINS(e.what(), "n7");
    EXPECT_CONTAINS(e.what(), "n16_small, n16, n8, n32, n64, v1");
  }
}

// ---- Layers, bit-exact ----------------------------------------------------------------------

class ModelLayers : public ::testing::TestWithParam<const char*> {};

// A small layer of each type through the device backend (`tpu --backend model`), against golden.
TEST_P(ModelLayers, EveryLayerTypeBitExact) {
  runtime::DeviceBackend backend("model", MakeModelPlatform(GetParam()), {});
  std::mt19937_64 rng(7);
  {
    const DenseCase c = RandomDense(rng, 37, 70, 45);
    const auto r = backend.RunDense(c.x, c.layer);
    EXPECT_EQ(r.output.data, golden::Dense(c.x, c.layer.weights, c.layer.bias,
                                           c.layer.input_zero_point, c.layer.requant)
                                 .data)
        << "dense";
    EXPECT_TRUE(r.stats.timing_estimated);
    EXPECT_GT(*r.stats.cycles, 0);
    EXPECT_GT(*r.stats.pcie_bytes_to_device, 37 * 70 + 70 * 45);
    EXPECT_GT(*r.stats.device_seconds, 0);
  }
  for (const compiler::ConvLowering lowering :
       {compiler::ConvLowering::kIm2col, compiler::ConvLowering::kWindow}) {
    runtime::BackendOptions options;
    options.conv = lowering;
    runtime::DeviceBackend conv_backend("model", MakeModelPlatform(GetParam()), options);
    compiler::Conv2dLayer layer;
    const Tensor<int8_t> x = RandomInt8({2, 7, 6, 5}, rng);
    layer.weights = RandomInt8({3, 3, 5, 19}, rng);
    layer.bias.assign(19, 300);
    layer.params = {2, 1, golden::Padding::kSame, -3};
    layer.requant.multipliers = {golden::QuantizeMultiplier(0.004)};
    layer.requant.out_zero_point = 5;
    const auto r = conv_backend.RunConv2d(x, layer);
    EXPECT_EQ(r.output.data,
              golden::Conv2d(x, layer.weights, layer.bias, layer.params, layer.requant).data)
        << "conv2d " << r.stats.lowering;
  }
  for (const compiler::PoolKind kind : {compiler::PoolKind::kMax, compiler::PoolKind::kAvg}) {
    compiler::PoolLayer layer;
    layer.kind = kind;
    layer.params.window_h = 3;
    layer.params.window_w = 2;
    layer.params.stride_h = 2;
    layer.params.stride_w = 2;
    layer.params.padding = golden::Padding::kSame;
    const Tensor<int8_t> x = RandomInt8({2, 9, 7, 21}, rng);
    const auto r = backend.RunPool(x, layer);
    const Tensor<int8_t> want = kind == compiler::PoolKind::kMax
                                    ? golden::MaxPool2d(x, layer.params)
                                    : golden::AvgPool2d(x, layer.params);
    EXPECT_EQ(r.output.data, want.data) << "pool";
  }
  {
    compiler::ActivationLayer layer;
    layer.act_min = -20;
    layer.act_max = 90;
    golden::Lut lut;
    for (int i = 0; i < 256; ++i) lut[size_t(i)] = static_cast<int8_t>(rng());
    layer.lut = lut;
    const Tensor<int8_t> x = RandomInt8({13, 35}, rng);
    const auto r = backend.RunActivation(x, layer);
    Tensor<int8_t> want = x;
    for (int8_t& v : want.data) v = static_cast<int8_t>(std::clamp<int>(v, -20, 90));
    EXPECT_EQ(r.output.data, golden::ApplyLut(want, lut).data) << "activation";
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, ModelLayers,
                         ::testing::Values("n8", "n16", "n32", "n64", "v1"),
                         [](const auto& info) { return std::string(info.param); });

TEST(ModelDevice, TwoRunsAndStreamingThroughASmallRing) {
  auto platform = MakeModelPlatform("n16");
  device::DeviceOptions options;
  options.max_ring_slots = 8;
  device::Device dev(platform->device(), options);
  std::mt19937_64 rng(11);
  const runtime::Execution first = RunDenseExact(dev, RandomDense(rng, 30, 40, 20));
  const runtime::Execution second = RunDenseExact(dev, RandomDense(rng, 150, 70, 70));
  EXPECT_GE(second.result.start_ns, first.result.end_ns);
  EXPECT_GT(second.result.instructions, 5u * options.max_ring_slots);  // streamed
  EXPECT_EQ(dev.ReadRegister(regs::kRingSize), options.max_ring_slots);
  EXPECT_EQ(dev.ReadRegister(regs::kRingHead),
            second.result.instructions % options.max_ring_slots);
  const device::BusCounters c = platform->device().counters();
  EXPECT_TRUE(c.timing_estimated);
  EXPECT_EQ(*c.device_cycles,
            first.result.perf[regs::kPerfCycles] + second.result.perf[regs::kPerfCycles]);
  EXPECT_EQ(*c.clock_mhz, 700.0);
}

// ---- Errors ---------------------------------------------------------------------------------

TEST(ModelDevice, DecodeErrorThenAGoodRun) {
  auto platform = MakeModelPlatform("n16");
  device::Device dev(platform->device());
  const uint32_t ub_rows = static_cast<uint32_t>(dev.info().limits.ub_rows);
  std::vector<isa::Instr> program = Nops(5);
  program.push_back(isa::ReadHost{isa::Target::kUb, dev.dma_region().address, ub_rows - 1,
                                  static_cast<uint32_t>(4 * dev.info().limits.n), 0, 0});
  ExpectDeviceError(dev, WithHalt(program), isa::Error::kUbRange, 5,
                    "UB_RANGE (0x04) at instruction 5 (READ_HOST");
  EXPECT_EQ(dev.ReadRegister(regs::kRingHead), 6u);  // the failing slot taken, nothing after
  EXPECT_EQ(dev.ReadRegister(regs::kStatus) & (regs::kStatusErrorMask | regs::kStatusRunningMask),
            regs::kStatusErrorMask);
  isa::Matmul no_rows;
  no_rows.rows = 0;
  ExpectDeviceError(dev, WithHalt({isa::Nop{}, no_rows}), isa::Error::kLengthZero, 1);
  std::mt19937_64 rng(13);
  RunDenseExact(dev, RandomDense(rng, 9, 20, 11));
  EXPECT_EQ(dev.ReadRegister(regs::kErrorCode), 0u);
}

TEST(ModelDevice, DmaErrorOnAFaultedHostRange) {
  auto platform = MakeModelPlatform("n32");
  ModelDevice& bus = platform->device();
  device::Device dev(bus);
  const device::DmaBuffer bad = dev.AllocateDma(0x1000);
  const device::DmaBuffer good = dev.AllocateDma(16 << 20);
  bus.host_memory().AddFault(bad.address + 0x40, 0x10);
  ExpectDeviceError(dev,
                    WithHalt({isa::Nop{}, isa::Nop{}, isa::Nop{},
                              isa::ReadHost{isa::Target::kUb, bad.address, 0, 0x100, 0, 0}}),
                    isa::Error::kDmaError, 3, "DMA_ERROR (0x13) at instruction 3 (READ_HOST");
  // A write to the faulted range fails the same way.
  ExpectDeviceError(dev, WithHalt({isa::WriteHost{0, bad.address + 0x20, 0x40, 0, 0}}),
                    isa::Error::kDmaError, 0, "WRITE_HOST");
  std::mt19937_64 rng(17);
  RunDenseExact(dev, RandomDense(rng, 20, 30, 20), good);
}

// DMA_ERROR_CAUSE names the fault range's kind and whose read it was, as the RTL's register
// does; a soft reset clears it. A read never answered stops the device with WATCHDOG when the
// watchdog is shorter than the completion timeout, else fails with cause TIMEOUT.
TEST(ModelDevice, DmaErrorCauseAndWatchdog) {
  auto platform = MakeModelPlatform("n16");
  ModelDevice& bus = platform->device();
  device::DeviceOptions options;
  options.watchdog_cycles = 0;  // off: a read never answered fails on the completion timeout
  device::Device dev(bus, options);
  EXPECT_EQ(bus.ReadRegister(regs::kWatchdog), 0u);
  const device::DmaBuffer bad = dev.AllocateDma(0x1000);
  using Kind = model::HostMemory::FaultKind;
  const std::vector<isa::Instr> read =
      WithHalt({isa::Nop{}, isa::ReadHost{isa::Target::kUb, bad.address, 0, 0x100, 0, 0}});
  for (const auto& [kind, cause, name] :
       {std::tuple{Kind::kUnsupported, regs::kDmaErrorCauseCauseUr, "UR on a READ_HOST read"},
        std::tuple{Kind::kAbort, regs::kDmaErrorCauseCauseCa, "CA on a READ_HOST read"},
        std::tuple{Kind::kPoisoned, regs::kDmaErrorCauseCausePoisoned, "POISONED"},
        std::tuple{Kind::kNoCompletion, regs::kDmaErrorCauseCauseTimeout, "TIMEOUT"}}) {
    SCOPED_TRACE(name);
    bus.host_memory().ClearFaults();
    bus.host_memory().AddFault(bad.address + 0x40, 0x10, kind);
    ExpectDeviceError(dev, read, isa::Error::kDmaError, 1, name);
    const uint32_t reg = bus.ReadRegister(regs::kDmaErrorCause);
    EXPECT_EQ((reg & regs::kDmaErrorCauseCauseMask) >> regs::kDmaErrorCauseCauseShift, cause);
    EXPECT_EQ((reg & regs::kDmaErrorCauseRequesterMask) >> regs::kDmaErrorCauseRequesterShift,
              regs::kDmaErrorCauseRequesterCore);
    bus.WriteRegister(regs::kControl, regs::kControlSoftResetMask);
    EXPECT_EQ(bus.ReadRegister(regs::kDmaErrorCause), 0u);
  }
  // The ring's fetch: RING_FETCH_ERROR with requester RING.
  bus.host_memory().ClearFaults();
  bus.host_memory().AddFault(dev.options().host_base + 16 * 2, 16, Kind::kAbort);
  try {
    dev.Run(WithHalt(Nops(4)));
    ADD_FAILURE() << "no DeviceError";
  } catch (const device::DeviceError& e) {
    EXPECT_EQ(e.code(), regs::kErrRingFetchError) << e.what();
    EXPECT_CONTAINS(e.what(), "CA on an instruction fetch");
    EXPECT_EQ((e.dma_cause() & regs::kDmaErrorCauseRequesterMask) >>
                  regs::kDmaErrorCauseRequesterShift,
              regs::kDmaErrorCauseRequesterRing);
    EXPECT_TRUE(device::Retryable(e));
  }
  // The watchdog, shorter than the completion timeout, stops a read never answered first.
  bus.host_memory().ClearFaults();
  bus.host_memory().AddFault(bad.address + 0x40, 0x10, Kind::kNoCompletion);
  bus.WriteRegister(regs::kWatchdog, 5000);
  try {
    dev.Run(read);
    ADD_FAILURE() << "no DeviceError";
  } catch (const device::DeviceError& e) {
    EXPECT_EQ(e.code(), regs::kErrWatchdog) << e.what();
    EXPECT_EQ(e.dma_cause(), 0u) << e.what();
    EXPECT_CONTAINS(e.what(), "WATCHDOG");
    EXPECT_TRUE(device::Retryable(e));
  }
  bus.WriteRegister(regs::kControl, regs::kControlSoftResetMask);
  EXPECT_EQ(bus.ReadRegister(regs::kWatchdog), 5000u);  // configuration: kept
  EXPECT_EQ(bus.ReadRegister(regs::kErrorCode), 0u);
  bus.host_memory().ClearFaults();
  std::mt19937_64 rng(29);
  RunDenseExact(dev, RandomDense(rng, 20, 30, 20));
}

// The runtime's retry policy on the model device: a transient fault (the first DMA read of the
// layer's data fails with CA, once) is recovered by a soft reset and a rerun, bit-exact, and the
// stats say what was recovered; a persistent one fails every allowed rerun and throws
// DeviceFailure naming the cause; a programming error is not retried.
TEST(ModelDevice, RetryPolicyRecoversATransientFault) {
  std::mt19937_64 rng(31);
  const DenseCase c = RandomDense(rng, 33, 40, 25);
  const Tensor<int8_t> want =
      golden::Dense(c.x, c.layer.weights, c.layer.bias, c.layer.input_zero_point, c.layer.requant);
  const device::DeviceOptions defaults;
  const uint64_t region = defaults.host_base + 16ull * defaults.max_ring_slots;
  using Kind = model::HostMemory::FaultKind;
  for (const uint64_t times : {1, 2, 3}) {
    SCOPED_TRACE("fails " + std::to_string(times) + " times");
    auto platform = MakeModelPlatform("n16");
    platform->device().host_memory().AddFault(region, uint64_t{1} << 30, Kind::kAbort, times);
    runtime::DeviceBackend backend("model", std::move(platform), {});  // 2 reruns
    if (times <= 2) {
      const auto r = backend.RunDense(c.x, c.layer);
      EXPECT_EQ(r.output.data, want.data);
      ASSERT_EQ(r.stats.recovered_errors.size(), times);
      EXPECT_CONTAINS(r.stats.recovered_errors[0], "DMA_ERROR at instruction ");
      EXPECT_CONTAINS(r.stats.recovered_errors[0], " [CA on a READ_HOST read (tag 0)]");
    } else {
      try {
        backend.RunDense(c.x, c.layer);
        ADD_FAILURE() << "no DeviceFailure";
      } catch (const runtime::DeviceFailure& e) {
        EXPECT_EQ(e.attempts(), 3);
        EXPECT_CONTAINS(e.what(), "CA on a READ_HOST read");
        EXPECT_CONTAINS(e.what(), "the retry policy allows 2 reruns");
      }
    }
  }
  // --retries 0: the first failure is final.
  {
    auto platform = MakeModelPlatform("n16");
    platform->device().host_memory().AddFault(region, uint64_t{1} << 30, Kind::kUnsupported, 1);
    runtime::BackendOptions options;
    options.retries = 0;
    runtime::DeviceBackend backend("model", std::move(platform), options);
    EXPECT_THROW(backend.RunDense(c.x, c.layer), runtime::DeviceFailure);
  }
  // Not retryable: an error the program causes, and a DMA_ERROR without a failed completion.
  EXPECT_FALSE(device::Retryable(device::DeviceError(
      "x", false, static_cast<uint32_t>(isa::Error::kLengthZero), 0)));
  EXPECT_FALSE(device::Retryable(
      device::DeviceError("x", false, static_cast<uint32_t>(isa::Error::kDmaError), 0, 0)));
  EXPECT_FALSE(device::Retryable(device::DeviceError("x", true, 0, 0)));
}

TEST(ModelDevice, RunTimeErrorsOfTheController) {
  auto platform = MakeModelPlatform("n8");
  device::Device dev(platform->device());
  // NO_TILE: new_tile=0 before any tile.
  isa::Matmul mm;
  mm.rows = 4;
  mm.new_tile = false;
  ExpectDeviceError(dev, WithHalt({isa::Nop{}, mm}), isa::Error::kNoTile, 1, "NO_TILE");
  // TOKEN_OVERFLOW: the 256th signal of t0 (TOKEN_MAX 255).
  std::vector<isa::Instr> signals;
  for (int i = 0; i < 256; ++i) {
    isa::Sync sync;
    sync.signal = 1;
    signals.push_back(sync);
  }
  ExpectDeviceError(dev, WithHalt(signals), isa::Error::kTokenOverflow, 255, "TOKEN_OVERFLOW");
  // DEADLOCK: a wait on a token nothing signals.
  isa::ReadHost waits{isa::Target::kUb, dev.dma_region().address, 0, 8, 0, 0};
  waits.wait = 1 << 3;
  ExpectDeviceError(dev, WithHalt({isa::Nop{}, waits, isa::Nop{}}), isa::Error::kDeadlock, 3,
                    "DEADLOCK");
  std::mt19937_64 rng(19);
  RunDenseExact(dev, RandomDense(rng, 12, 9, 30));
}

TEST(ModelDevice, RingFetchErrorThenSoftReset) {
  auto platform = MakeModelPlatform("n16");
  ModelDevice& bus = platform->device();
  device::Device dev(bus);
  bus.host_memory().AddFault(dev.options().host_base + 16 * 4, 16);
  try {
    dev.Run(WithHalt(Nops(8)));
    FAIL() << "no DeviceError";
  } catch (const device::DeviceError& e) {
    EXPECT_EQ(e.code(), regs::kErrRingFetchError) << e.what();
    EXPECT_CONTAINS(e.what(), "RING_FETCH_ERROR");
  }
  EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 4u);  // slots 0..3 ran
  // A doorbell does not restart it until a soft reset.
  bus.WriteRegister(regs::kIrqStatus, kIrqBoth);
  bus.WriteRegister(regs::kRingTail, 9);
  EXPECT_FALSE(bus.WaitForInterrupt(1e5));
  bus.host_memory().ClearFaults();
  std::mt19937_64 rng(23);
  RunDenseExact(dev, RandomDense(rng, 10, 10, 10));  // Run soft-resets first
}

TEST(ModelDevice, DoorbellWithTheRingOffStartsNothing) {
  auto platform = MakeModelPlatform("n16");
  ModelDevice& bus = platform->device();
  device::Device dev(bus);
  dev.Reset();
  bus.WriteRegister(regs::kRingBaseLo, static_cast<uint32_t>(dev.options().host_base));
  bus.WriteRegister(regs::kRingBaseHi, static_cast<uint32_t>(dev.options().host_base >> 32));
  bus.WriteRegister(regs::kRingSize, 12);  // not a power of two: the ring is off
  bus.WriteRegister(regs::kRingTail, 1);
  EXPECT_FALSE(bus.WaitForInterrupt(1e5));
  EXPECT_EQ(bus.ReadRegister(regs::kStatus) & regs::kStatusRunningMask, 0u);
  EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 0u);
  // With a legal size the same doorbell starts the slot.
  dev.host_memory().Write(dev.options().host_base, SlotBytes(isa::Halt{}));
  bus.WriteRegister(regs::kRingSize, 16);
  bus.WriteRegister(regs::kRingTail, 1);
  EXPECT_EQ(bus.WaitForInterrupt(1e5), std::optional<uint32_t>(dev.options().msi_data));
  EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 1u);
}

// The model device's configuration space is the RTL's (sc::ConfigSpace) and gates the same
// way: before enumeration BAR0 reads fail (UR) and writes are dropped; with Memory Space
// Enable alone the registers work but a doorbell starts nothing; setting Bus Master Enable
// starts the waiting program.
TEST(ModelDevice, ConfigurationSpaceGatesBarAndBusMastering) {
  ModelDevice bus(*devices::FindDevice("n16"), {});
  EXPECT_EQ(bus.ConfigRead(kCfgIds), 0x74701234u);
  EXPECT_EQ(bus.ConfigRead(kCfgDeviceControl), DeviceControl(0, 2));  // 128 / 512 at reset
  bus.ConfigWrite(kCfgBar0, 0xffffffff);
  EXPECT_EQ(bus.ConfigRead(kCfgBar0), 0xfffff000u);  // 4 KiB
  EXPECT_THROW(bus.ReadRegister(regs::kId), std::runtime_error);
  bus.ConfigWrite(kCfgCommand, kCommandMemorySpace);
  EXPECT_EQ(bus.ReadRegister(regs::kId), regs::kIdReset);
  device::Device dev(bus);
  dev.Reset();
  dev.host_memory().Write(dev.options().host_base, SlotBytes(isa::Halt{}));
  bus.WriteRegister(regs::kRingSize, 16);
  bus.WriteRegister(regs::kRingTail, 1);
  EXPECT_FALSE(bus.WaitForInterrupt(1e5));  // no fetch without bus mastering
  EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 0u);
  bus.ConfigWrite(kCfgCommand, kCommandMemorySpace | kCommandBusMaster);
  EXPECT_EQ(bus.WaitForInterrupt(1e5), std::optional<uint32_t>(dev.options().msi_data));
  EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 1u);
}

// ---- Soft reset, MSI ------------------------------------------------------------------------

TEST(ModelDevice, SoftResetWhileAProgramRuns) {
  auto platform = MakeModelPlatform("n16");
  ModelDevice& bus = platform->device();
  device::Device dev(bus);
  dev.Reset();
  std::mt19937_64 rng(29);
  const DenseCase c = RandomDense(rng, 200, 64, 64);
  const device::DmaBuffer region = dev.dma_region();
  const compiler::DenseProgram p =
      compiler::LowerDense(c.x, c.layer, dev.info().limits, {region.address, region.size});
  for (const auto& image : p.images) dev.host_memory().Write(image.address, image.bytes);
  uint32_t slots = 2;
  while (slots <= p.instrs.size()) slots *= 2;
  const uint64_t base = dev.options().host_base;
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    dev.host_memory().Write(base + 16 * i, SlotBytes(p.instrs[i]));
  }
  bus.WriteRegister(regs::kRingBaseLo, static_cast<uint32_t>(base));
  bus.WriteRegister(regs::kRingBaseHi, static_cast<uint32_t>(base >> 32));
  bus.WriteRegister(regs::kRingSize, slots);
  bus.WriteRegister(regs::kRingTail, static_cast<uint32_t>(p.instrs.size()));
  EXPECT_EQ(bus.ReadRegister(regs::kStatus) & regs::kStatusRunningMask,
            regs::kStatusRunningMask);
  bus.WriteRegister(regs::kControl, regs::kControlSoftResetMask | regs::kControlIrqEnableMask);
  EXPECT_FALSE(bus.WaitForInterrupt(1e7));  // the stopped program sends no MSI
  EXPECT_EQ(bus.ReadRegister(regs::kStatus), regs::kStatusRingEmptyMask);
  EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 0u);
  EXPECT_EQ(bus.ReadRegister(regs::kRingTail), 0u);
  EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), 0u);
  EXPECT_EQ(bus.ReadRegister(regs::PerfLo(regs::kPerfCycles)), 0u);
  EXPECT_EQ(bus.ReadRegister(regs::kControl), regs::kControlIrqEnableMask);
  EXPECT_EQ(bus.ReadRegister(regs::kRingSize), slots);  // configuration stays
  RunDenseExact(dev, c);
}

TEST(ModelDevice, MsiToAPlainAddressIsAMemoryWrite) {
  auto platform = MakeModelPlatform("n16");
  ModelDevice& bus = platform->device();
  device::Device dev(bus);
  dev.Run(WithHalt(Nops(2)));
  const uint64_t mailbox = dev.AllocateDma(64).address;
  bus.WriteRegister(regs::kMsiAddrLo, static_cast<uint32_t>(mailbox));
  bus.WriteRegister(regs::kMsiAddrHi, static_cast<uint32_t>(mailbox >> 32));
  bus.WriteRegister(regs::kMsiData, 0xbeef);
  bus.WriteRegister(regs::kControl, regs::kControlSoftResetMask | regs::kControlIrqEnableMask);
  dev.host_memory().Write(dev.options().host_base, SlotBytes(isa::Halt{}));
  bus.WriteRegister(regs::kRingTail, 1);
  EXPECT_FALSE(bus.WaitForInterrupt(1e5));  // not an interrupt ...
  EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), regs::kIrqStatusDoneMask);
  EXPECT_EQ(dev.host_memory().Read(mailbox, 4), (std::vector<uint8_t>{0xef, 0xbe, 0, 0}));
}

TEST(ModelDevice, PerfCountersOfARun) {
  auto platform = MakeModelPlatform("n16");
  device::Device dev(platform->device());
  std::mt19937_64 rng(31);
  const DenseCase c = RandomDense(rng, 64, 48, 40);
  const runtime::Execution e = RunDenseExact(dev, c);
  const device::PerfCounters& perf = e.result.perf;
  EXPECT_GT(perf[regs::kPerfCycles], 0u);
  EXPECT_GT(perf[regs::kPerfMxuBusy], 0u);
  EXPECT_LE(perf[regs::kPerfMxuBusy], perf[regs::kPerfCycles]);
  EXPECT_EQ(perf[regs::kPerfRowsWeights], 3u * 3u * 16u);  // K 48 and N 40: 3 x 3 tiles
  EXPECT_EQ(perf[regs::kPerfRowsAct], 64u * 3u);
  EXPECT_GT(perf[regs::kPerfRowsDma], 0u);
  EXPECT_EQ(perf, dev.ReadPerf());  // they hold after the run
  // Doorbell to interrupt: the estimated cycles at the clock.
  EXPECT_GE(e.result.end_ns - e.result.start_ns,
            double(perf[regs::kPerfCycles]) * 1e3 / 700.0);
  EXPECT_TRUE(e.stats.timing_estimated);
}

// ---- The layer regression's cases on the model ---------------------------------------------

// The short seeds of every layer type of the layer regression suite (tests/regression, run there
// on the RTL), here on the model device of each array size through the driver: bit-exact with
// golden.
using RegressionParam = std::tuple<const char*, regression::LayerType, int64_t>;

class ModelRegression : public ::testing::TestWithParam<RegressionParam> {};

TEST_P(ModelRegression, MatchesGolden) {
  const auto [device, type, seed] = GetParam();
  auto platform = MakeModelPlatform(device);
  const regression::Case c =
      regression::MakeCase(type, seed, platform->device().config().limits.n);
  SCOPED_TRACE(std::string(device) + " " + regression::TypeName(type) + " seed " +
               std::to_string(seed) + ": " + c.description);
  const Tensor<int8_t> want = regression::Golden(c);
  device::Device dev(platform->device());
  const device::DmaBuffer region = dev.dma_region();
  const compiler::DenseProgram p =
      regression::Lower(c, dev.info().limits, {region.address, region.size});
  dev.host_memory().Write(p.output.address, std::vector<uint8_t>(p.output.bytes(), 0x5A));
  const runtime::Execution e = runtime::Execute(dev, p, 0);
  ASSERT_EQ(golden::ShapeToString(e.output.shape), golden::ShapeToString(want.shape));
  EXPECT_EQ(e.output.data, want.data);
}

INSTANTIATE_TEST_SUITE_P(
    Short, ModelRegression,
    ::testing::Combine(::testing::Values("n8", "n16", "n32", "n64", "v1"),
                       ::testing::ValuesIn(regression::kAllTypes),
                       ::testing::ValuesIn(regression::kShortSeeds)),
    [](const ::testing::TestParamInfo<RegressionParam>& info) {
      return std::string(std::get<0>(info.param)) + "_" +
             regression::TypeName(std::get<1>(info.param)) + "_seed" +
             std::to_string(std::get<2>(info.param));
    });

// ---- The MATMUL block kernel ----------------------------------------------------------------

// The model device's arithmetic (model::MultiplyRows for one MATMUL and model::MultiplyBlocks
// for a run of them onto the same rows, vectorized where the CPU allows) against the
// definition, a plain wrapping dot product summed over the tiles, at every array size the ISA
// allows, with the extreme values (-128 x -128 sums, wrapping accumulators) and random ones,
// for 1 to 5 tiles and row counts that are and are not multiples of the kernels' 4 and 16 rows,
// with each MATMUL's rows given as a list of row pointers (a window's taps), as a range (UB
// rows), and the two mixed in one block; with every kernel this CPU runs, not only the fastest.
TEST(MatmulKernel, BitExactWithTheDefinition) {
  std::mt19937_64 rng(37);
  enum class Form { kPointers, kRanges, kMixed };
  for (int64_t n = 2; n <= 256; n *= 2) {
    for (int extreme = 0; extreme < 2; ++extreme) {
      // (tiles, rows): fewer than 16 rows (VNNI under AMX), one group of 16 rows, groups of 16
      // with an overlapping last one (31: a 1024^3 layer's blocks, 35), whole groups (48).
      for (const auto& [tiles, count] : {std::pair<int64_t, int64_t>{1, 5}, {2, 35}, {3, 31},
                                         {4, 48}, {5, 16}}) {
        SCOPED_TRACE("n " + std::to_string(n) + (extreme ? " extreme" : " random") + ", " +
                     std::to_string(tiles) + " tiles, " + std::to_string(count) + " rows");
        auto value = [&] { return extreme ? int8_t(-128) : static_cast<int8_t>(rng()); };
        std::vector<std::vector<int8_t>> weights(size_t(tiles), std::vector<int8_t>(size_t(n * n)));
        for (auto& tile : weights) {
          for (int8_t& v : tile) v = value();
        }
        // Row r of tile t at rows[(t * count + r) * n], one after the other.
        std::vector<int8_t> rows(size_t(tiles * count * n));
        for (int8_t& v : rows) v = value();
        std::vector<const int8_t*> pointers;
        for (int64_t i = 0; i < tiles * count; ++i) pointers.push_back(&rows[size_t(i * n)]);
        for (bool accumulate : {false, true}) {
          std::vector<int32_t> out(size_t(count * n));
          for (int32_t& v : out) v = extreme ? 2147483000 : static_cast<int32_t>(rng());
          std::vector<int32_t> want = out;
          for (int64_t r = 0; r < count; ++r) {
            for (int64_t c = 0; c < n; ++c) {
              uint32_t sum = accumulate ? static_cast<uint32_t>(want[size_t(r * n + c)]) : 0u;
              for (int64_t t = 0; t < tiles; ++t) {
                for (int64_t k = 0; k < n; ++k) {
                  sum += static_cast<uint32_t>(int32_t{rows[size_t((t * count + r) * n + k)]} *
                                               weights[size_t(t)][size_t(k * n + c)]);
                }
              }
              want[size_t(r * n + c)] = static_cast<int32_t>(sum);
            }
          }
          for (model::MatmulKernel kernel : model::UsableKernels(n)) {
            SCOPED_TRACE(std::string("kernel ") + model::KernelName(kernel));
            std::vector<model::PackedTile> packed;
            for (const auto& tile : weights) packed.emplace_back(tile, n, kernel);
            std::vector<const model::PackedTile*> tile_pointers;
            for (const auto& p : packed) tile_pointers.push_back(&p);
            for (Form form : {Form::kPointers, Form::kRanges, Form::kMixed}) {
              const char* form_name =
                  form == Form::kPointers ? "pointers" : form == Form::kRanges ? "ranges" : "mixed";
              std::vector<model::RowSet> sets(static_cast<size_t>(tiles));
              for (int64_t t = 0; t < tiles; ++t) {
                const bool range = form == Form::kRanges || (form == Form::kMixed && t % 2 == 1);
                if (range) {
                  sets[size_t(t)].base = &rows[size_t(t * count * n)];
                } else {
                  sets[size_t(t)].rows = &pointers[size_t(t * count)];
                }
              }
              std::vector<int32_t> got = out;
              model::MultiplyBlocks(sets.data(), tile_pointers.data(), tiles, count, accumulate,
                                    got.data());
              EXPECT_EQ(got, want) << form_name << ", "
                                   << (accumulate ? "accumulate" : "overwrite");
            }
            if (tiles == 1) {
              std::vector<int32_t> got = out;
              model::MultiplyRows(pointers.data(), count, packed[0], accumulate, got.data());
              EXPECT_EQ(got, want) << "MultiplyRows, " << (accumulate ? "accumulate" : "overwrite");
            }
          }
        }
      }
    }
  }
}

// Every CPU runs the plain loop; a tile cannot be packed for a kernel that cannot run it (here
// N = 24, no multiple of 16, for the 16-column kernels), and the error names the kernel and N.
TEST(MatmulKernel, OnlyUsableKernelsPack) {
  for (int64_t n : {2, 8, 16, 24, 256}) {
    const std::vector<model::MatmulKernel> kernels = model::UsableKernels(n);
    ASSERT_FALSE(kernels.empty());
    EXPECT_EQ(kernels.front(), model::MatmulKernel::kPlain);
  }
  const std::vector<int8_t> tile(24 * 24, 1);
  try {
    model::PackedTile packed(tile, 24, model::MatmulKernel::kVnni);
    FAIL() << "packed N = 24 for the VNNI kernel";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("avx512-vnni kernel cannot run tiles of N = 24"),
              std::string::npos)
        << e.what();
  }
}

// ---- The timing model fed in pieces ---------------------------------------------------------

void ExpectSameEstimate(const TimingEstimate& e, const TimingEstimate& want) {
  EXPECT_EQ(e.cycles, want.cycles);
  EXPECT_EQ(e.mxu_active_cycles, want.mxu_active_cycles);
  EXPECT_EQ(e.stalls, want.stalls);
  EXPECT_EQ(e.pcie_bytes_to_device, want.pcie_bytes_to_device);
  EXPECT_EQ(e.pcie_bytes_from_device, want.pcie_bytes_from_device);
}

// The model device replays a program's timing as its instructions are executed (TimingRun, on
// the TimingWorker's thread): every figure equals TimingModel::Estimate's of the whole program,
// whatever the pieces (one instruction at a time, small and large random pieces), on programs
// whose ring streams (more instructions than the ring's slots) and short ones, on three devices.
// The worker restarts a finished run for the next program (its storage kept): one run per
// device takes every program in turn, the largest first, each after a restart that abandons
// half of the same program, and gives the same figures.
TEST(TimingRun, PiecesGiveTheWholeProgramsEstimate) {
  std::mt19937_64 rng(53);
  for (const char* name : {"n8", "n16", "v1"}) {
    const devices::DeviceConfig& device = *devices::FindDevice(name);
    const TimingModel model(device, device::ParsePcieLink("gen3x16"));
    TimingRun restarted(model);
    for (const auto& [m, k, nout] : {std::tuple<int64_t, int64_t, int64_t>{200, 256, 256},
                                     {64, 96, 48},
                                     {3, 20, 9}}) {
      const DenseCase c = RandomDense(rng, m, k, nout);
      const std::vector<isa::Instr> program =
          compiler::LowerDense(c.x, c.layer, device.limits, {0x1'0000'0000, 1 << 26})
              .instrs.Instrs();
      const TimingEstimate whole = model.Estimate(program);
      for (size_t most : {size_t{1}, size_t{7}, size_t{300}}) {
        SCOPED_TRACE(std::string(name) + " " + std::to_string(program.size()) +
                     " instructions, pieces of up to " + std::to_string(most));
        TimingRun run(model);
        for (size_t i = 0; i < program.size();) {
          const size_t piece = std::min(program.size() - i, 1 + rng() % most);
          run.Add(program.data() + i, piece);
          i += piece;
        }
        ExpectSameEstimate(run.Finish(), whole);
      }
      SCOPED_TRACE(std::string(name) + " " + std::to_string(program.size()) +
                   " instructions, a restarted run");
      restarted.Add(program.data(), program.size() / 2);
      restarted.Restart();
      restarted.Add(program.data(), program.size());
      ExpectSameEstimate(restarted.Finish(), whole);
      restarted.Restart();
    }
  }
}

}  // namespace
}  // namespace tpu::sc
