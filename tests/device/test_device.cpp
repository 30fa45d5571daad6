// tpu::device::Device over the cycle-level device bench (rtl/tpu_top.sv with the root-complex
// model, tests/device/top_bench_bus.h): what the device reports about itself, dense layers
// lowered by tpu::compiler::LowerDense against tpu::golden::Dense, runs one after the other,
// programs streamed through a small ring, errors the device reports (DMA_ERROR, a decode
// error) followed by good runs, a hang (interrupts dropped by the bus) and a device that does
// not answer register reads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "compiler/dense_lowering.h"
#include "dense_case.h"
#include "device/device.h"
#include "golden/dense.h"
#include "golden/requant.h"
#include "isa/isa.h"
#include "regs/regs.h"
#include "runtime/executor.h"
#include "top_bench_bus.h"

namespace tpu::device {
namespace {

// `text` contains `part` (the whole text in the failure message).
#define EXPECT_CONTAINS(text, part)                                                              \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "\"" << (part) << "\" not in:\n" \
                                                             << (text)

// The test's seed, or TPU_SEED from the environment (added to it) to try others.
uint64_t Seed(uint64_t base) {
  const char* env = std::getenv("TPU_SEED");
  const uint64_t seed = base + (env != nullptr ? std::strtoull(env, nullptr, 0) : 0);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

using testing::DenseCase;
using testing::RandomDense;

// Lowers the layer into `region`, its output pre-filled with 0xa5 (stale bytes must not pass
// for results).
compiler::DenseProgram Lower(Device& dev, const DenseCase& c, const DmaBuffer& region) {
  compiler::DenseProgram p =
      compiler::LowerDense(c.x, c.layer, dev.info().limits, {region.address, region.size});
  dev.host_memory().Write(p.output.address, std::vector<uint8_t>(p.output.bytes(), 0xa5));
  return p;
}

// Runs the program (runtime::Execute: images placed, run, output read back), expects golden's
// result bit for bit and returns the device's counters.
RunResult RunExact(Device& dev, const DenseCase& c, const compiler::DenseProgram& p) {
  const runtime::Execution e = runtime::Execute(dev, p, 0);
  const golden::Tensor<int8_t> want =
      golden::Dense(c.x, c.layer.weights, c.layer.bias, c.layer.input_zero_point, c.layer.requant);
  EXPECT_EQ(e.output.data.size(), want.data.size());
  for (size_t i = 0; i < want.data.size() && i < e.output.data.size(); ++i) {
    EXPECT_EQ(e.output.data[i], want.data[i]) << "element " << i;
    if (e.output.data[i] != want.data[i]) break;
  }
  return e.result;
}

using runtime::MatmulRows;

// Options for the bench: a lost interrupt fails the test in 3 ms of simulated time (3M cycles,
// far beyond any program here) rather than the default second.
DeviceOptions BenchOptions() {
  DeviceOptions o;
  o.run_timeout_ns = 3e6;
  return o;
}

std::vector<isa::Instr> Nops(int count) { return std::vector<isa::Instr>(count, isa::Nop{}); }

void ExpectNoViolations(tb::TopBench& b) {
  for (const auto& v : b.rc().violations()) ADD_FAILURE() << v;
}

// A bus around the bench's that can drop every interrupt (the MSI never reaches the driver)
// and fail register reads, now or from the first doorbell on.
class FaultyBus : public DeviceBus {
 public:
  explicit FaultyBus(DeviceBus& inner) : inner_(inner) {}

  bool drop_interrupts = false;
  bool fail_reads = false;
  bool fail_reads_after_doorbell = false;

  void WriteRegister(uint32_t offset, uint32_t value) override {
    if (offset == regs::kRingTail && fail_reads_after_doorbell) fail_reads = true;
    inner_.WriteRegister(offset, value);
  }
  uint32_t ReadRegister(uint32_t offset) override {
    if (fail_reads) {
      throw std::runtime_error("no completion for the read of BAR0 offset " +
                               std::to_string(offset));
    }
    return inner_.ReadRegister(offset);
  }
  HostMemory& host_memory() override { return inner_.host_memory(); }
  uint64_t msi_address() const override { return inner_.msi_address(); }
  std::optional<uint32_t> WaitForInterrupt(double timeout_ns) override {
    if (!drop_interrupts) return inner_.WaitForInterrupt(timeout_ns);
    const double end = inner_.now_ns() + timeout_ns;
    for (;;) {  // the device's MSIs are taken and thrown away
      inner_.WaitForInterrupt(end - inner_.now_ns());
      if (inner_.now_ns() >= end) return std::nullopt;
    }
  }
  double now_ns() const override { return inner_.now_ns(); }

 private:
  DeviceBus& inner_;
};

TEST(Device, InfoMatchesTheBuiltDevice) {
  auto bench = tb::MakeDeviceBench(Seed(1), "device_info");
  tb::TopBenchBus bus(*bench);
  Device dev(bus, BenchOptions());
  const tb::TopConfig& c = bench->config();
  const DeviceInfo& info = dev.info();
  EXPECT_EQ(info.id, regs::kIdReset);
  EXPECT_EQ(info.isa_version, static_cast<uint32_t>(isa::kIsaVersion));
  EXPECT_EQ(info.hw_version, 1u);  // tpu_top's HwVersion default
  EXPECT_EQ(info.limits.n, c.limits.n);
  EXPECT_EQ(info.limits.ub_rows, c.limits.ub_rows);
  EXPECT_EQ(info.limits.acc_rows, c.limits.acc_rows);
  EXPECT_EQ(info.limits.dram_bytes, c.limits.dram_bytes);
  EXPECT_EQ(info.limits.param_sets, c.limits.param_sets);
  EXPECT_EQ(info.max_payload, static_cast<uint32_t>(c.max_payload));
  EXPECT_EQ(info.max_read_request, static_cast<uint32_t>(c.max_read_req));

  dev.Reset();  // MSI set up as the bus wants it, interrupts on
  EXPECT_EQ(dev.ReadRegister(regs::kMsiAddrLo),
            static_cast<uint32_t>(tb::TopBenchBus::kDefaultMsiAddress));
  EXPECT_EQ(dev.ReadRegister(regs::kMsiAddrHi), 0u);
  EXPECT_EQ(dev.ReadRegister(regs::kMsiData), dev.options().msi_data);
  EXPECT_EQ(dev.ReadRegister(regs::kIrqMask), regs::kIrqMaskDoneMask | regs::kIrqMaskErrorMask);
  EXPECT_EQ(dev.ReadRegister(regs::kControl), regs::kControlIrqEnableMask);
  EXPECT_EQ(dev.ReadRegister(regs::kIrqStatus), 0u);
  ExpectNoViolations(*bench);
}

TEST(Device, DenseLayerIsBitExact) {
  auto bench = tb::MakeDeviceBench(Seed(3), "device_dense");
  tb::TopBenchBus bus(*bench);
  Device dev(bus, BenchOptions());
  std::mt19937_64 rng(Seed(5));
  const DenseCase c = RandomDense(rng, 37, 40, 35);
  const compiler::DenseProgram p = Lower(dev, c, dev.dma_region());
  const RunResult r = RunExact(dev, c, p);

  EXPECT_EQ(r.instructions, p.instrs.size());
  EXPECT_GT(r.end_ns, r.start_ns);
  const uint64_t cycles = r.perf[regs::kPerfCycles];
  EXPECT_GT(cycles, 0u);
  EXPECT_LE(cycles, static_cast<uint64_t>(r.end_ns - r.start_ns));
  ASSERT_EQ(p.plans.size(), 1u);
  const compiler::LayerPlan& plan = p.plans[0];
  EXPECT_EQ(r.perf[regs::kPerfRowsMatrix],
            static_cast<uint64_t>(plan.m * plan.k_tiles * plan.n_tiles));
  EXPECT_EQ(r.perf[regs::kPerfRowsMatrix], MatmulRows(p.instrs));
  EXPECT_GT(r.perf[regs::kPerfMxuBusy], 0u);
  EXPECT_LE(r.perf[regs::kPerfMxuBusy], cycles);
  EXPECT_GT(r.perf[regs::kPerfRowsDma], 0u);
  EXPECT_EQ(r.perf, dev.ReadPerf());  // the counters hold after the run

  // The ring was sized to the program: the smallest power of two above its length.
  uint32_t slots = 2;
  while (slots <= p.instrs.size()) slots *= 2;
  EXPECT_EQ(dev.ReadRegister(regs::kRingSize), slots);
  EXPECT_EQ(dev.ReadRegister(regs::kRingHead), p.instrs.size() % slots);
  EXPECT_EQ(dev.ReadRegister(regs::kIrqStatus), 0u);  // cleared by Run
  EXPECT_EQ(bus.interrupts_taken(), 1u);
  ExpectNoViolations(*bench);
}

TEST(Device, TwoRunsInARow) {
  auto bench = tb::MakeDeviceBench(Seed(7), "device_two_runs");
  tb::TopBenchBus bus(*bench);
  Device dev(bus, BenchOptions());
  std::mt19937_64 rng(Seed(9));
  const DenseCase first = RandomDense(rng, 20, 30, 20);
  const compiler::DenseProgram p1 = Lower(dev, first, dev.dma_region());
  const RunResult r1 = RunExact(dev, first, p1);

  // A different shape, lowered over the first one's memory.
  const DenseCase second = RandomDense(rng, 50, 17, 33);
  const compiler::DenseProgram p2 = Lower(dev, second, dev.dma_region());
  ASSERT_NE(p1.instrs.size(), p2.instrs.size());
  const RunResult r2 = RunExact(dev, second, p2);
  EXPECT_EQ(r2.perf[regs::kPerfRowsMatrix], MatmulRows(p2.instrs));
  EXPECT_NE(r1.perf[regs::kPerfRowsMatrix], r2.perf[regs::kPerfRowsMatrix]);
  EXPECT_GE(r2.start_ns, r1.end_ns);
  EXPECT_EQ(bus.interrupts_taken(), 2u);
  ExpectNoViolations(*bench);
}

TEST(Device, LongProgramStreamsThroughASmallRing) {
  auto bench = tb::MakeDeviceBench(Seed(11), "device_stream");
  tb::TopBenchBus bus(*bench);
  DeviceOptions options = BenchOptions();
  options.max_ring_slots = 8;
  Device dev(bus, options);
  std::mt19937_64 rng(Seed(13));
  const DenseCase c = RandomDense(rng, 12, 20, 18);
  const compiler::DenseProgram p = Lower(dev, c, dev.dma_region());
  std::vector<isa::Instr> program;
  for (int i = 0; i < 40; ++i) {
    if (i % 4 == 3) {
      isa::Sync sync;
      sync.units = 0xf;  // every unit idle
      program.push_back(sync);
    } else {
      program.push_back(isa::Nop{});
    }
  }
  const std::vector<isa::Instr> layer = p.instrs.Instrs();
  program.insert(program.end(), layer.begin(), layer.end());
  ASSERT_GT(program.size(), 5u * options.max_ring_slots);
  compiler::DenseProgram streamed = p;
  streamed.instrs = isa::Program(program);
  const RunResult r = RunExact(dev, c, streamed);
  EXPECT_EQ(r.instructions, program.size());
  EXPECT_EQ(dev.ReadRegister(regs::kRingSize), options.max_ring_slots);
  EXPECT_EQ(dev.ReadRegister(regs::kRingHead), program.size() % options.max_ring_slots);
  EXPECT_EQ(r.perf[regs::kPerfRowsMatrix], MatmulRows(p.instrs));
  // The ring's slots 0..7 were rewritten as the device took them: slot 0 holds the first
  // instruction of the last lap.
  const size_t lap = (program.size() - 1) / options.max_ring_slots * options.max_ring_slots;
  const std::vector<uint8_t> slot0 = dev.host_memory().Read(options.host_base, 16);
  const isa::Words words = isa::Encode(program[lap]);
  for (int b = 0; b < 16; ++b) {
    EXPECT_EQ(slot0[b], static_cast<uint8_t>(words[b / 4] >> (8 * (b % 4)))) << "byte " << b;
  }
  ExpectNoViolations(*bench);
}

TEST(Device, DmaErrorThenAGoodRun) {
  auto bench = tb::MakeDeviceBench(Seed(17), "device_dma_error");
  tb::TopBenchBus bus(*bench);
  Device dev(bus, BenchOptions());
  const DmaBuffer bad = dev.AllocateDma(0x1000);
  const DmaBuffer good = dev.AllocateDma(16 << 20);
  bus.host_memory().AddFault(bad.address + 0x40, 0x10);
  std::vector<isa::Instr> program = Nops(3);
  program.push_back(isa::ReadHost{isa::Target::kUb, bad.address, 0, 0x100, 0, 0});
  program.push_back(isa::Halt{});
  try {
    dev.Run(program);
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_FALSE(e.hung());
    EXPECT_EQ(e.code(), static_cast<uint32_t>(isa::Error::kDmaError));
    EXPECT_EQ(e.code(), 0x13u);
    EXPECT_EQ(e.index(), 3u);
    EXPECT_CONTAINS(std::string(e.what()),
                    "device reported DMA_ERROR (0x13) at instruction 3 (READ_HOST");
    std::printf("DeviceError: %s\n", e.what());
  }

  // The next run resets the device first and succeeds (the fault stays where it is).
  std::mt19937_64 rng(Seed(19));
  const DenseCase c = RandomDense(rng, 20, 30, 20);
  const compiler::DenseProgram p = Lower(dev, c, good);
  RunExact(dev, c, p);
  EXPECT_EQ(dev.ReadRegister(regs::kErrorCode), 0u);
  ExpectNoViolations(*bench);
}

TEST(Device, DecodeErrorNamesTheInstruction) {
  auto bench = tb::MakeDeviceBench(Seed(23), "device_decode_error");
  tb::TopBenchBus bus(*bench);
  Device dev(bus, BenchOptions());
  const uint32_t ub_rows = static_cast<uint32_t>(dev.info().limits.ub_rows);
  std::vector<isa::Instr> program = Nops(5);
  // Four UB rows from the last one: UB_RANGE, found when the instruction is decoded.
  program.push_back(isa::ReadHost{isa::Target::kUb, dev.dma_region().address, ub_rows - 1,
                                  static_cast<uint32_t>(4 * dev.info().limits.n), 0, 0});
  program.push_back(isa::Halt{});
  try {
    dev.Run(program);
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_FALSE(e.hung());
    EXPECT_EQ(e.code(), static_cast<uint32_t>(isa::Error::kUbRange));
    EXPECT_EQ(e.index(), 5u);
    const std::string what = e.what();
    EXPECT_CONTAINS(what, "UB_RANGE (0x04) at instruction 5 (READ_HOST");
    EXPECT_CONTAINS(what, "UB_ROWS");
    std::printf("DeviceError: %s\n", e.what());
  }
  // A program that is fine now runs.
  std::vector<isa::Instr> nops = Nops(3);
  nops.push_back(isa::Halt{});
  const RunResult r = dev.Run(nops);
  EXPECT_GT(r.perf[regs::kPerfCycles], 0u);
  ExpectNoViolations(*bench);
}

TEST(Device, RejectsProgramsItCannotRun) {
  auto bench = tb::MakeDeviceBench(Seed(29), "device_reject");
  tb::TopBenchBus bus(*bench);
  Device dev(bus, BenchOptions());
  EXPECT_THROW(dev.Run(std::vector<isa::Instr>{}), std::invalid_argument);
  EXPECT_THROW(dev.Run(isa::Program()), std::invalid_argument);
  try {
    dev.Run(Nops(4));
    FAIL() << "no std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_CONTAINS(std::string(e.what()), "must end in HALT");
    EXPECT_CONTAINS(std::string(e.what()), "NOP");
  }
  EXPECT_EQ(bench->rc().stats().mwr, 0u);  // nothing reached the device
}

TEST(Device, HangWhenTheInterruptNeverArrives) {
  auto bench = tb::MakeDeviceBench(Seed(31), "device_hang");
  tb::TopBenchBus inner(*bench);
  FaultyBus bus(inner);
  DeviceOptions options;
  options.run_timeout_ns = 20000;
  Device dev(bus, options);
  std::vector<isa::Instr> program = Nops(6);
  program.push_back(isa::Halt{});
  bus.drop_interrupts = true;
  const double before = bus.now_ns();
  try {
    dev.Run(program);
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_TRUE(e.hung());
    EXPECT_EQ(e.code(), 0u);
    const std::string what = e.what();
    EXPECT_CONTAINS(what, "did not raise its completion interrupt within 20 us");
    EXPECT_CONTAINS(what, "it may be hung");
    for (const char* reg : {"STATUS", "ERROR_CODE", "RING_HEAD", "RING_TAIL", "PERF_0_LO"}) {
      EXPECT_CONTAINS(what, reg);
    }
    EXPECT_CONTAINS(what, "done=1");  // it finished: the interrupt got lost
    EXPECT_CONTAINS(what, "MSI");
    std::printf("DeviceError: %s\n", e.what());
  }
  EXPECT_GE(bus.now_ns() - before, options.run_timeout_ns);
  EXPECT_LT(bus.now_ns() - before, options.run_timeout_ns + 10000);

  // With the interrupt back, the next Run resets the device and completes.
  bus.drop_interrupts = false;
  const RunResult r = dev.Run(program);
  EXPECT_GT(r.perf[regs::kPerfCycles], 0u);
  ExpectNoViolations(*bench);
}

TEST(Device, DeadRegisterReadsSayTheDeviceDoesNotAnswer) {
  auto bench = tb::MakeDeviceBench(Seed(37), "device_dead");
  tb::TopBenchBus inner(*bench);
  FaultyBus bus(inner);
  bus.fail_reads = true;
  try {
    Device dead(bus);
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "does not answer register reads");
    EXPECT_CONTAINS(std::string(e.what()), "ID");
  }

  bus.fail_reads = false;
  DeviceOptions options;
  options.run_timeout_ns = 20000;
  Device dev(bus, options);
  std::vector<isa::Instr> program = Nops(2);
  program.push_back(isa::Halt{});
  bus.fail_reads = true;  // from the start of the run
  try {
    dev.Run(program);
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_TRUE(e.hung());
    EXPECT_CONTAINS(std::string(e.what()), "does not answer register reads");
    std::printf("DeviceError: %s\n", e.what());
  }

  // The interrupt is lost and then the registers cannot be read for the dump either.
  bus.fail_reads = false;
  bus.drop_interrupts = true;
  bus.fail_reads_after_doorbell = true;
  try {
    dev.Run(program);
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_TRUE(e.hung());
    const std::string what = e.what();
    EXPECT_CONTAINS(what, "did not raise its completion interrupt within 20 us");
    EXPECT_CONTAINS(what, "does not answer register reads");
    std::printf("DeviceError: %s\n", e.what());
  }

  bus.fail_reads = bus.fail_reads_after_doorbell = bus.drop_interrupts = false;
  const RunResult r = dev.Run(program);
  EXPECT_GT(r.perf[regs::kPerfCycles], 0u);
}

}  // namespace
}  // namespace tpu::device
