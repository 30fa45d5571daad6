#include "rtl_backend.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <variant>

#include "device/device.h"
#include "host_if/top_model.h"
#include "regs/regs.h"
#include "rtl_device_config.h"
#include "runtime/dense_lowering.h"
#include "runtime/layers.h"
#include "sc_models/pcie/pcie_link_config.h"
#include "sc_models/system/tpu_system.h"

namespace tpu::cli {
namespace {

// The Verilated configuration the backend runs (testbench/host_if/CMakeLists.txt, K = 1).
constexpr int kDeviceConfig = 1;
// Cycles between looks at the wall clock for the progress line.
constexpr uint64_t kProgressEvery = 1 << 15;
bool g_system_made = false;

// MXU rows a program multiplies: its MATMULs' rows, the progress line's yardstick.
uint64_t MatmulRows(const std::vector<isa::Instr>& program) {
  uint64_t rows = 0;
  for (const auto& instr : program) {
    if (const auto* m = std::get_if<isa::Matmul>(&instr)) rows += m->rows;
  }
  return rows;
}

// Prints "tpu: simulating ..." to stderr every few seconds once a run has taken more than a
// few: rewritten in place on a terminal, one line each time otherwise (logs).
class ProgressLine {
 public:
  ProgressLine(uint64_t expected_rows, uint64_t start_cycle)
      : expected_(expected_rows), start_cycle_(start_cycle), tty_(isatty(STDERR_FILENO) != 0) {}
  ~ProgressLine() {
    if (printed_ && tty_) std::fputc('\n', stderr);
  }

  void Update(uint64_t cycle) {
    const double elapsed = Seconds(start_);
    if (elapsed < kFirstAfter || Seconds(last_) < (tty_ ? 1.0 : 10.0)) return;
    last_ = Clock::now();
    const uint64_t cycles = cycle - start_cycle_;
    const double pct = expected_ ? 100.0 * double(cycles) / double(expected_) : 0.0;
    std::fprintf(stderr,
                 "%stpu: simulating: %llu device cycles, ~%.0f%% of an estimated %llu (one per "
                 "MXU row), %.0f kcycles/s%s",
                 tty_ ? "\r" : "", static_cast<unsigned long long>(cycles),
                 pct > 100 ? 100.0 : pct, static_cast<unsigned long long>(expected_),
                 double(cycles) / elapsed / 1e3, tty_ ? "" : "\n");
    std::fflush(stderr);
    printed_ = true;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr double kFirstAfter = 3.0;  // seconds
  static double Seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  }
  uint64_t expected_, start_cycle_;
  bool tty_;
  bool printed_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = Clock::time_point{};
};

sys::SystemConfig SystemConfigFor(const BackendOptions& options) {
  sys::SystemConfig c;
  c.link = sc::PcieLinkConfig::FromName(options.link.ToString());
  c.clock_mhz = RtlDevice().clock_mhz;
  return c;
}

// The Verilated model must be the device rtl_device_config.h describes (`tpu info` and the
// network checks rely on it).
void CheckAgainstConfig(const tb::TopConfig& built) {
  const RtlDeviceConfig want = RtlDevice();
  const isa::DeviceLimits& l = built.limits;
  if (l.n != want.limits.n || l.ub_rows != want.limits.ub_rows ||
      l.acc_rows != want.limits.acc_rows || l.dram_bytes != want.limits.dram_bytes ||
      l.param_sets != want.limits.param_sets || built.dram_width != want.dram_width_bits ||
      built.max_payload != want.max_payload || built.max_read_req != want.max_read_request ||
      built.num_tags != want.dma_tags) {
    throw std::logic_error(
        "the Verilated device (configuration " + std::to_string(kDeviceConfig) +
        ") differs from host_driver/cli/rtl_device_config.h: keep the two in step");
  }
}

class RtlBackend final : public LayerBackend {
 public:
  explicit RtlBackend(const BackendOptions& options) : options_(options) {
    if (g_system_made) {
      throw std::logic_error("the rtl backend's SystemC model is elaborated once per process");
    }
    g_system_made = true;
    tb::HarnessOptions trace;
    trace.trace_path = options.trace_path;
    trace.trace_begin = options.trace_begin;
    trace.trace_end = options.trace_end;
    std::unique_ptr<tb::TopModel> model = tb::MakeTopModel<kDeviceConfig>(trace);
    CheckAgainstConfig(model->config());
    system_ = std::make_unique<sys::TpuSystem>(SystemConfigFor(options), std::move(model));
  }

  std::string name() const override { return "rtl"; }

  LayerResult<int8_t> RunDense(const golden::Tensor<int8_t>& x,
                               const runtime::DenseLayer& layer) override {
    LayerResult<int8_t> result;
    system_->Run([&](device::DeviceBus& bus) {
      device::Device dev(bus);
      const device::DmaBuffer region = dev.dma_region();
      const runtime::DenseProgram p =
          runtime::LowerDense(x, layer, dev.info().limits, {region.address, region.size});
      for (const auto& image : p.images) dev.host_memory().Write(image.address, image.bytes);
      const int64_t macs = x.shape[0] * layer.k() * layer.nout();
      result.stats = Measure(dev, p.instrs, macs);
      result.output = runtime::ExtractDenseOutput(p.output, [&](uint64_t a, uint64_t length) {
        return dev.host_memory().Read(a, length);
      });
    });
    result.stats.trace_path = options_.trace_path;
    return result;
  }

  LayerResult<int8_t> RunConv2d(const golden::Tensor<int8_t>& x,
                                const runtime::Conv2dLayer& layer) override {
    const auto& w = layer.weights.shape;  // (KH, KW, Cin, Cout)
    return RunLowered(
        [&](const isa::DeviceLimits& limits, const runtime::HostRegion& region) {
          runtime::LoweringOptions options;
          options.conv = options_.conv;
          return runtime::LowerConv2d(x, layer, limits, region, options);
        },
        [&](const runtime::DenseProgram& p) {
          // B * OH * OW * KH * KW * Cin * Cout: the output pixels times one window's products.
          const auto& y = p.output_shape;
          return y.size() == 4 ? y[0] * y[1] * y[2] * w[0] * w[1] * w[2] * w[3] : 0;
        });
  }

  // Pooling and activation layers do no multiply-accumulates of their own (the MXU passes the
  // input through identity tiles): 0 MACs, so the report gives no MXU utilization.
  LayerResult<int8_t> RunPool(const golden::Tensor<int8_t>& x,
                              const runtime::PoolLayer& layer) override {
    return RunLowered(
        [&](const isa::DeviceLimits& limits, const runtime::HostRegion& region) {
          return runtime::LowerPool(x, layer, limits, region);
        },
        [](const runtime::DenseProgram&) { return int64_t{0}; });
  }

  LayerResult<int8_t> RunActivation(const golden::Tensor<int8_t>& x,
                                    const runtime::ActivationLayer& layer) override {
    return RunLowered(
        [&](const isa::DeviceLimits& limits, const runtime::HostRegion& region) {
          return runtime::LowerActivation(x, layer, limits, region);
        },
        [](const runtime::DenseProgram&) { return int64_t{0}; });
  }

  // The Verilated device's memories keep their contents across programs (the UB SRAM has no
  // reset; Device::Run's soft reset only restarts the queue), so tensors stay in the UB.
  std::optional<isa::DeviceLimits> device_limits() const override { return RtlDevice().limits; }

  LayerResult<int8_t> RunProgram(const Lowering& lower, int64_t macs) override {
    return RunLowered(lower, [macs](const runtime::DenseProgram&) { return macs; });
  }

  LayerResult<int32_t> RunGemm(const golden::Tensor<int8_t>&,
                               const golden::Tensor<int8_t>&) override {
    throw std::runtime_error(
        "--backend rtl: the device returns int8 results only (every result leaves through the "
        "activation pipeline's requantization), so an int32 GEMM cannot come back from it; run "
        "the product as a layer with `tpu dense --backend rtl`, or use --backend golden");
  }

 private:
  // Lowers a layer with `lower(limits, region)` in the device's DMA region, places its images,
  // runs it and reads its result back in the layer's output shape (runtime::ExtractLayerOutput);
  // `macs(program)` is the layer's useful multiply-accumulates.
  template <typename Lower, typename Macs>
  LayerResult<int8_t> RunLowered(const Lower& lower, const Macs& macs) {
    LayerResult<int8_t> result;
    system_->Run([&](device::DeviceBus& bus) {
      device::Device dev(bus);
      const device::DmaBuffer region = dev.dma_region();
      const runtime::DenseProgram p = lower(dev.info().limits, {region.address, region.size});
      for (const auto& image : p.images) dev.host_memory().Write(image.address, image.bytes);
      result.stats = Measure(dev, p.instrs, macs(p));
      result.stats.lowering = p.lowering;
      if (p.ub_output) return;  // left in the UB for the next program
      result.output = runtime::ExtractLayerOutput(p, [&](uint64_t a, uint64_t length) {
        return dev.host_memory().Read(a, length);
      });
    });
    result.stats.trace_path = options_.trace_path;
    return result;
  }

  // Runs the program and gathers the figures of the run.
  RunStats Measure(device::Device& dev, const std::vector<isa::Instr>& program, int64_t macs) {
    const sc::PcieLink& link = system_->link();
    const uint64_t down0 = link.downstream.stats().payload_bytes;
    const uint64_t up0 = link.upstream.stats().payload_bytes;
    const uint64_t cycle0 = system_->device().stats().cycles;
    ProgressLine progress(MatmulRows(program), cycle0);
    system_->device().SetCycleHook(kProgressEvery, [&](uint64_t c) { progress.Update(c); });
    device::RunResult r;
    try {
      r = dev.Run(program);
    } catch (...) {
      system_->device().SetCycleHook(0, nullptr);
      throw;
    }
    system_->device().SetCycleHook(0, nullptr);

    RunStats s;
    const int64_t n = dev.info().limits.n;
    s.cycles = static_cast<int64_t>(r.perf[regs::kPerfCycles]);
    s.clock_mhz = system_->config().clock_mhz;
    if (*s.cycles > 0) s.mxu_utilization = double(macs) / (double(n * n) * double(*s.cycles));
    s.device_seconds = (r.end_ns - r.start_ns) * 1e-9;
    s.stalls = {{"weights", int64_t(r.perf[regs::kPerfStallWeights])},
                {"act_in", int64_t(r.perf[regs::kPerfStallActIn])},
                {"dma", int64_t(r.perf[regs::kPerfStallDma])},
                {"dep", int64_t(r.perf[regs::kPerfStallDep])}};
    s.pcie_bytes_to_device = int64_t(link.downstream.stats().payload_bytes - down0);
    s.pcie_bytes_from_device = int64_t(link.upstream.stats().payload_bytes - up0);
    s.pcie_payload_limit_bytes_per_s = link.timing().payload_limit_bytes_per_s();
    s.simulated_cycles = int64_t(system_->device().stats().cycles - cycle0);
    return s;
  }

  BackendOptions options_;
  std::unique_ptr<sys::TpuSystem> system_;
};

}  // namespace

std::unique_ptr<LayerBackend> MakeRtlBackend(const BackendOptions& options) {
  return std::make_unique<RtlBackend>(options);
}

std::unique_ptr<LayerBackend> MakeBackendWithRtl(const std::string& name,
                                                 const BackendOptions& options) {
  if (name == "rtl") return MakeRtlBackend(options);
  return MakeBackend(name, options);
}

}  // namespace tpu::cli
