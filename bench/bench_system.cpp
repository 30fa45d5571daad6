// The system model end to end (sc_models/system: the Verilated tpu_top of a built device
// configuration, `--device NAME`, default the list's default, on the modeled PCIe link with the
// device's MPS / MRRS, driven by tpu::device::Device), against the goals of issue 5:
//
// - dma: host -> device DMA (one READ_HOST of `--bytes` from host memory into the weight DRAM)
//   reaches >= 0.95 of the link's payload limit; device -> host (WRITE_HOSTs of the whole UB,
//   filled first) is measured alike. The rate is taken from the first to the last data TLP
//   (>= 64 payload bytes: completions or memory writes of the DMA, not register, ring or MSI
//   traffic) the direction delivered, as (payload after the first) / (time between them);
//   doorbell -> interrupt is printed too. The RTL's TLP streams carry B = tlp_width_bits / 8
//   bytes per cycle (the device's, isa/devices.json) with one header beat per TLP, so the device
//   itself cannot take or send payload faster than clock x B x MPS / (MPS + B) (10.54 GB/s at
//   700 MHz, MPS 256, 128 bits; 19.91 GB/s at 256 bits): the output says whether the link or the
//   device stream bounds the case.
// - dense: an M x K x N dense layer (compiler::LowerDense, per-tensor requantization, bias)
//   end to end, checked bit for bit against golden::Dense, runs in simulated time (doorbell to
//   interrupt) within 1.10 of max(compute time, transfer time), where compute time = the MXU
//   rows M x ceil(K/16) x ceil(N/16) at one row per cycle, and transfer time = the larger of
//   (host -> device payload / payload limit) and (device -> host payload / payload limit).
// - conv: a conv2d layer (compiler::LowerConv2d by the chosen lowering: `window`, the MATMUL
//   sliding window over the input in the UB, or `im2col` on the host onto the dense lowering;
//   per-channel requantization, bias, input zero point) end to end, checked bit for bit against
//   golden::Conv2d, with the dense case's figures (compute time = the program's MATMUL rows at
//   one row per cycle; MXU utilization = OH*OW*KH*KW*Cin*Cout*B / (N*N*cycles)) and the PCIe
//   payload measured on the link against input + weights + output. No goal: it compares the
//   lowerings (docs/performance.md "Networks").
//
// SystemC elaborates once per process, so each process runs one case with one link and clock:
//   bench_system --case dma --pcie gen3x16 --clock-mhz 700 [--bytes 4194304]
//   bench_system --case dense [--m 1024 --k 1024 --n 1024] [--pcie ...] [--clock-mhz ...]
//   bench_system --case conv [--h 14 --w 14 --cin 64 --cout 128 --kernel 5 --stride 1
//                --padding same|valid --lowering window|im2col] [--pcie ...] [--clock-mhz ...]
// (the conv defaults are the deep example's conv2, by the window lowering).
// --link-latency-ns and --host-latency-ns override the link's and the host memory's latency
// (diagnosis: how much of a run is round trips). The `bench` target runs it once per case
// (bench/CMakeLists.txt).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <systemc>
#include <variant>
#include <utility>
#include <vector>

#include "compiler/conv_window_lowering.h"
#include "compiler/dense_lowering.h"
#include "compiler/layers.h"
#include "device/device.h"
#include "golden/conv.h"
#include "golden/dense.h"
#include "devices/devices_gen.h"
#include "host_if/built_devices.h"
#include "regs/regs.h"
#include "runtime/executor.h"
#include "sc_models/pcie/pcie_link_config.h"
#include "sc_models/pcie_link.h"
#include "sc_models/system/tpu_system.h"

namespace {

using tpu::device::Device;
using tpu::device::RunResult;
using tpu::sc::PcieLinkDirection;

// TLP headers: completions have 3 DWs; the device's memory writes and reads of host memory above
// 4 GiB (where the driver keeps its buffers) have 4.
constexpr uint32_t kCplHeaderBytes = 12;
constexpr uint32_t kMwr64HeaderBytes = 16;
// A delivery of at least this much payload is DMA data (registers and MSIs carry 4 bytes, the
// ring fetch of a short program a few 16-byte slots).
constexpr uint64_t kDataTlpBytes = 64;
// Sampling period of the link monitor (a 256-byte TLP takes 17.6 ns at gen3x16).
const sc_core::sc_time kSamplePeriod(1, sc_core::SC_NS);

constexpr double kDmaGoal = 0.95;    // of the payload limit
constexpr double kDenseGoal = 1.10;  // end to end / max(compute, transfer)

struct Options {
  std::string bench_case;
  std::string device;  // a built configuration of isa/devices.json; "": the default device
  std::string pcie = "gen3x16";
  double clock_mhz = 0;  // 0: the device's clock
  uint64_t bytes = 4ull << 20;
  int64_t m = 1024, k = 1024, n = 1024;
  // conv: the deep example's conv2 by default.
  int64_t h = 14, w = 14, cin = 64, cout = 128, kernel = 5, stride = 1;
  std::string padding = "same";
  std::string lowering = "window";
  double link_latency_ns = -1;  // < 0: the link's default
  double host_latency_ns = -1;  // < 0: the system's default
};

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "bench_system: %s\n"
               "usage: bench_system --case dma|dense|conv [--device NAME] [--pcie genGxL]\n"
               "                    [--clock-mhz F] (default: the device's clock)\n"
               "                    [--bytes B] (dma)  [--m M --k K --n N] (dense)\n"
               "                    [--h H --w W --cin C --cout C --kernel K --stride S]\n"
               "                    [--padding same|valid] [--lowering window|im2col] (conv;\n"
               "                    default 14x14x64 -> 128, 5x5 same, stride 1, window)\n"
               "                    [--link-latency-ns T] [--host-latency-ns T] (diagnosis)\n",
               why.c_str());
  std::exit(2);
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") Usage("the system model benchmarks (issues 5 and 6)");
    if (i + 1 >= argc) Usage(arg + " needs a value");
    const std::string value = argv[++i];
    try {
      if (arg == "--case") {
        o.bench_case = value;
      } else if (arg == "--device") {
        o.device = value;
      } else if (arg == "--pcie") {
        o.pcie = value;
      } else if (arg == "--clock-mhz") {
        o.clock_mhz = std::stod(value);
            } else if (arg == "--bytes") {
        o.bytes = std::stoull(value);
      } else if (arg == "--m") {
        o.m = std::stoll(value);
      } else if (arg == "--k") {
        o.k = std::stoll(value);
      } else if (arg == "--n") {
        o.n = std::stoll(value);
      } else if (arg == "--h") {
        o.h = std::stoll(value);
      } else if (arg == "--w") {
        o.w = std::stoll(value);
      } else if (arg == "--cin") {
        o.cin = std::stoll(value);
      } else if (arg == "--cout") {
        o.cout = std::stoll(value);
      } else if (arg == "--kernel") {
        o.kernel = std::stoll(value);
      } else if (arg == "--stride") {
        o.stride = std::stoll(value);
      } else if (arg == "--padding") {
        o.padding = value;
      } else if (arg == "--lowering") {
        o.lowering = value;
      } else if (arg == "--link-latency-ns") {
        o.link_latency_ns = std::stod(value);
      } else if (arg == "--host-latency-ns") {
        o.host_latency_ns = std::stod(value);
      } else {
        Usage("unknown option " + arg);
      }
    } catch (const std::logic_error&) {
      Usage("bad value '" + value + "' for " + arg);
    }
  }
  if (o.bench_case != "dma" && o.bench_case != "dense" && o.bench_case != "conv") {
    Usage("--case must be dma, dense or conv");
  }
  if (o.bytes == 0 || o.m < 1 || o.k < 1 || o.n < 1) Usage("sizes must be >= 1");
  if (o.h < 1 || o.w < 1 || o.cin < 1 || o.cout < 1 || o.kernel < 1 || o.stride < 1) {
    Usage("conv sizes must be >= 1");
  }
  if (o.padding != "same" && o.padding != "valid") Usage("--padding must be same or valid");
  if (o.lowering != "window" && o.lowering != "im2col") {
    Usage("--lowering must be window or im2col");
  }
  return o;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// One link direction's payload over a run: everything it delivered, and the window from the
// first to the last data TLP (kDataTlpBytes or more), sampled every kSamplePeriod.
struct DirectionWindow {
  uint64_t payload = 0;      // all payload delivered during the run
  uint64_t tlps = 0;         // all TLPs delivered during the run
  bool seen = false;         // a data TLP was delivered
  double first_ns = 0, last_ns = 0;
  uint64_t at_first = 0, at_last = 0;  // payload counter just after the first / last data TLP

  // Payload per second between the first and the last data TLP (the first one's payload is
  // delivered at the window's start, so it does not count).
  double rate() const {
    return last_ns > first_ns ? double(at_last - at_first) / ((last_ns - first_ns) * 1e-9) : 0.0;
  }
  double window_ns() const { return last_ns - first_ns; }
};

// Samples both directions of the link from a SystemC thread of its own while a run is going on.
class LinkMonitor {
 public:
  explicit LinkMonitor(tpu::sc::PcieLink& link) : link_(link) {}

  // From the job's thread, before the doorbell.
  void Start() {
    down_ = up_ = DirectionWindow{};
    down_prev_ = down_base_ = link_.downstream.stats().payload_bytes;
    up_prev_ = up_base_ = link_.upstream.stats().payload_bytes;
    down_tlps_ = link_.downstream.stats().tlps;
    up_tlps_ = link_.upstream.stats().tlps;
    stop_ = std::make_shared<bool>(false);
    auto stop = stop_;
    sc_core::sc_spawn([this, stop] {
      while (!*stop) {
        Sample();
        sc_core::wait(kSamplePeriod);
      }
    });
  }

  // From the job's thread, once the run has returned.
  void Stop() {
    Sample();
    *stop_ = true;
    down_.payload = link_.downstream.stats().payload_bytes - down_base_;
    up_.payload = link_.upstream.stats().payload_bytes - up_base_;
    down_.tlps = link_.downstream.stats().tlps - down_tlps_;
    up_.tlps = link_.upstream.stats().tlps - up_tlps_;
  }

  const DirectionWindow& down() const { return down_; }
  const DirectionWindow& up() const { return up_; }

 private:
  void Sample() {
    const double now = sc_core::sc_time_stamp().to_seconds() * 1e9;
    Track(link_.downstream, now, &down_prev_, &down_);
    Track(link_.upstream, now, &up_prev_, &up_);
  }

  static void Track(const PcieLinkDirection& d, double now, uint64_t* prev, DirectionWindow* w) {
    const uint64_t payload = d.stats().payload_bytes;
    if (payload - *prev >= kDataTlpBytes) {
      if (!w->seen) {
        w->seen = true;
        w->first_ns = now;
        w->at_first = payload;
      }
      w->last_ns = now;
      w->at_last = payload;
    }
    *prev = payload;
  }

  tpu::sc::PcieLink& link_;
  DirectionWindow down_, up_;
  uint64_t down_prev_ = 0, up_prev_ = 0, down_base_ = 0, up_base_ = 0;
  uint64_t down_tlps_ = 0, up_tlps_ = 0;
  std::shared_ptr<bool> stop_;
};

// What the system's RTL device counted over a run.
struct DeviceDelta {
  uint64_t cycles = 0, rx_stall_cycles = 0, tx_wait_cycles = 0, tlps_in = 0, tlps_out = 0;
};

DeviceDelta Since(const tpu::sys::RtlDevice::Stats& before, const tpu::sys::RtlDevice::Stats& now) {
  return {now.cycles - before.cycles, now.rx_stall_cycles - before.rx_stall_cycles,
          now.tx_wait_cycles - before.tx_wait_cycles, now.tlps_in - before.tlps_in,
          now.tlps_out - before.tlps_out};
}

unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }

// The RTL's TLP stream: one beat of the device's tlp_width_bits a cycle (docs/host_if.md
// section 1).
double StreamBytesPerCycle(tpu::sys::TpuSystem& system) {
  return system.device().top_config().tlp_width_bits / 8.0;
}

// Payload per second the RTL's stream of `beat_bytes` a cycle can carry in max-payload TLPs (one
// beat of header, MPS / beat_bytes beats of payload).
double DeviceStreamLimit(double clock_mhz, uint32_t mps, double beat_bytes) {
  const double beats = 1.0 + std::ceil(mps / beat_bytes);
  return clock_mhz * 1e6 * mps / beats;
}

void PrintLinkAndDevice(tpu::sys::TpuSystem& system) {
  const auto& c = system.config();
  const tpu::sc::LinkTiming& t = system.link().timing();
  std::printf("  link %s, MPS %u, MRRS %u, latency %.0f ns (host memory %.0f ns): raw %.3f GB/s, "
              "payload limit %.3f GB/s (3-DW header) / %.3f GB/s (4-DW header)\n",
              c.link.Name().c_str(), c.link.max_payload, c.link.max_read_request,
              c.link.latency_ns, c.host_memory_latency_ns, t.raw_rate_bytes_per_s() / 1e9,
              t.payload_limit_bytes_per_s(kCplHeaderBytes) / 1e9,
              t.payload_limit_bytes_per_s(kMwr64HeaderBytes) / 1e9);
  const double beat = StreamBytesPerCycle(system);
  std::printf("  device at %.0f MHz: TLP stream %.0f bits/cycle = %.3f GB/s raw, %.3f GB/s of "
              "payload in %u-byte TLPs\n",
              c.clock_mhz, 8 * beat, c.clock_mhz * 1e6 * beat / 1e9,
              DeviceStreamLimit(c.clock_mhz, c.link.max_payload, beat) / 1e9, c.link.max_payload);
}

// ---- dma -------------------------------------------------------------------------------------

struct DmaFigures {
  bool ok = false;
  bool goal_met = false;
};

// Prints one direction's figures; `limit` is the link's payload limit for its TLPs.
DmaFigures ReportDma(const char* title, uint64_t bytes, const DirectionWindow& w,
                     const RunResult& r, const DeviceDelta& dev, double link_limit,
                     double stream_limit, const char* tlp_kind, bool data_ok) {
  DmaFigures f;
  f.ok = data_ok;
  const double rate = w.rate();
  const double e2e_ns = r.end_ns - r.start_ns;
  const double bound = std::min(link_limit, stream_limit);
  const bool link_bound = link_limit <= stream_limit;
  std::printf("  %s: %llu bytes, data %s\n", title, U(bytes), data_ok ? "checked" : "MISMATCH");
  std::printf("    payload the direction carried during the run: %llu bytes in %llu TLPs "
              "(DMA data + ring/register/MSI traffic)\n",
              U(w.payload), U(w.tlps));
  std::printf("    first -> last %s: %.3f us, %llu payload bytes after the first -> %.3f GB/s\n",
              tlp_kind, w.window_ns() / 1e3, U(w.at_last - w.at_first), rate / 1e9);
  std::printf("    doorbell -> interrupt: %.3f us -> %.3f GB/s for the %llu DMA bytes\n",
              e2e_ns / 1e3, bytes / (e2e_ns * 1e-9) / 1e9, U(bytes));
  std::printf("    = %.4f of the link's payload limit %.3f GB/s  [issue 5 goal >= %.2f: %s]\n",
              rate / link_limit, link_limit / 1e9, kDmaGoal,
              rate / link_limit >= kDmaGoal ? "MET" : "NOT MET");
  std::printf("    = %.4f of min(link limit, device stream limit %.3f GB/s) = %.3f GB/s "
              "[%s-bound; >= %.2f: %s]\n",
              rate / bound, stream_limit / 1e9, bound / 1e9,
              link_bound ? "link" : "device-stream", kDmaGoal,
              rate / bound >= kDmaGoal ? "met" : "NOT met");
  std::printf("    device: %llu cycles clocked, %llu TLPs in, %llu out, %llu cycles a received "
              "beat waited (RTL not ready), %llu cycles a sent beat waited (TLP queue full)\n",
              U(dev.cycles), U(dev.tlps_in), U(dev.tlps_out), U(dev.rx_stall_cycles),
              U(dev.tx_wait_cycles));
  std::printf("    perf: cycles %llu, DMA stalls %llu\n", U(r.perf[tpu::regs::kPerfCycles]),
              U(r.perf[tpu::regs::kPerfStallDma]));
  f.goal_met = rate / link_limit >= kDmaGoal;
  return f;
}

// One DMA instruction's bytes: a power of two that the READ_HOST / WRITE_HOST length field
// holds (21 bits in ISA version 2) and that is a whole number of UB rows at every N.
constexpr uint64_t kChunk = 1ull << 20;

int RunDma(tpu::sys::TpuSystem& system, const Options& o) {
  const auto& c = system.config();
  std::printf("system DMA: %llu bytes each way at %s, device at %.0f MHz\n", U(o.bytes),
              c.link.Name().c_str(), c.clock_mhz);
  PrintLinkAndDevice(system);
  const tpu::sc::LinkTiming& timing = system.link().timing();
  const double stream =
      DeviceStreamLimit(c.clock_mhz, c.link.max_payload, StreamBytesPerCycle(system));
  LinkMonitor monitor(system.link());
  bool ok = true;
  const auto wall0 = std::chrono::steady_clock::now();

  system.Run([&](tpu::device::DeviceBus& bus) {
    Device dev(bus);
    const tpu::isa::DeviceLimits& limits = dev.info().limits;
    if (o.bytes > static_cast<uint64_t>(limits.dram_bytes)) {
      throw std::invalid_argument("--bytes " + std::to_string(o.bytes) + " exceeds the " +
                                  std::to_string(limits.dram_bytes) + " bytes of weight DRAM");
    }
    const uint64_t ub_bytes = static_cast<uint64_t>(limits.ub_rows) * limits.n;
    const tpu::device::DmaBuffer source = dev.AllocateDma(o.bytes, 4096);
    const tpu::device::DmaBuffer sink = dev.AllocateDma(o.bytes, 4096);
    std::vector<uint8_t> data(o.bytes);
    std::mt19937_64 rng(5);
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    dev.host_memory().Write(source.address, data);

    // Host -> device: READ_HOSTs of kChunk bytes into consecutive weight-DRAM addresses.
    std::vector<tpu::isa::Instr> reads;
    for (uint64_t done = 0; done < o.bytes; done += kChunk) {
      reads.push_back(tpu::isa::ReadHost{tpu::isa::Target::kDram, source.address + done, done,
                                         static_cast<uint32_t>(std::min(kChunk, o.bytes - done))});
    }
    reads.push_back(tpu::isa::Halt{});
    const auto dev0 = system.device().stats();
    monitor.Start();
    const RunResult h2d = dev.Run(reads);
    monitor.Stop();
    const bool h2d_ok = system.dram().bytes().Read(0, data.size()) == data;
    ok = ReportDma("host -> device (READ_HOST into the weight DRAM; CplDs of 3-DW header)",
                   o.bytes, monitor.down(), h2d, Since(dev0, system.device().stats()),
                   timing.payload_limit_bytes_per_s(kCplHeaderBytes), stream,
                   "completion TLP", h2d_ok).ok && ok;

    // Device -> host: the UB filled from the source (one run), then WRITE_HOSTs of the whole UB
    // to consecutive host addresses until `bytes` are written.
    // (UB rows and host addresses in chunks of at most kChunk bytes, a whole number of rows.)
    const uint64_t fill = std::min(ub_bytes, o.bytes);
    std::vector<tpu::isa::Instr> fills;
    for (uint64_t done = 0; done < fill; done += kChunk) {
      fills.push_back(tpu::isa::ReadHost{tpu::isa::Target::kUb, source.address + done,
                                         done / static_cast<uint64_t>(limits.n),
                                         static_cast<uint32_t>(std::min(kChunk, fill - done))});
    }
    fills.push_back(tpu::isa::Halt{});
    dev.Run(fills);
    std::vector<tpu::isa::Instr> program;
    for (uint64_t done = 0; done < o.bytes;) {
      const uint64_t in_ub = done % fill;
      const uint64_t len = std::min({kChunk, fill - in_ub, o.bytes - done});
      program.push_back(tpu::isa::WriteHost{static_cast<uint32_t>(in_ub / static_cast<uint64_t>(limits.n)),
                                            sink.address + done, static_cast<uint32_t>(len)});
      done += len;
    }
    program.push_back(tpu::isa::Halt{});
    const auto dev1 = system.device().stats();
    monitor.Start();
    const RunResult d2h = dev.Run(program);
    monitor.Stop();
    const std::vector<uint8_t> written = dev.host_memory().Read(sink.address, o.bytes);
    bool d2h_ok = true;
    for (uint64_t i = 0; i < o.bytes && d2h_ok; ++i) d2h_ok = written[i] == data[i % fill];
    ok = ReportDma("device -> host (WRITE_HOSTs of the UB; MWr of 4-DW header, 64-bit address)",
                   o.bytes, monitor.up(), d2h, Since(dev1, system.device().stats()),
                   timing.payload_limit_bytes_per_s(kMwr64HeaderBytes), stream,
                   "memory-write TLP", d2h_ok).ok && ok;
    const auto& down = system.link().downstream.stats();
    const auto& up = system.link().upstream.stats();
    std::printf("  link: credit waits down %llu / up %llu, most TLPs holding credits "
                "(posted, non-posted, completion) down %llu/%llu/%llu, up %llu/%llu/%llu\n",
                U(down.credit_waits), U(up.credit_waits), U(down.max_outstanding[0]),
                U(down.max_outstanding[1]), U(down.max_outstanding[2]), U(up.max_outstanding[0]),
                U(up.max_outstanding[1]), U(up.max_outstanding[2]));
  });
  std::printf("  simulation: %.2f s wall, %llu device cycles\n", Seconds(wall0),
              U(system.device().stats().cycles));
  return ok ? 0 : 1;
}

// ---- dense -----------------------------------------------------------------------------------

// The program's instructions by kind, and the MXU rows per MATMUL: the device fetches the ring
// a few slots at a time over the link, so short instructions can outrun the fetch.
void PrintInstructionMix(const std::vector<tpu::isa::Instr>& program, double cycles) {
  uint64_t read_host = 0, write_host = 0, read_weights = 0, matmul = 0, activate = 0, other = 0;
  uint64_t rows = 0;
  for (const auto& instr : program) {
    if (std::holds_alternative<tpu::isa::ReadHost>(instr)) {
      ++read_host;
    } else if (std::holds_alternative<tpu::isa::WriteHost>(instr)) {
      ++write_host;
    } else if (std::holds_alternative<tpu::isa::ReadWeights>(instr)) {
      ++read_weights;
    } else if (const auto* mm = std::get_if<tpu::isa::Matmul>(&instr)) {
      ++matmul;
      rows += mm->rows;
    } else if (std::holds_alternative<tpu::isa::Activate>(instr)) {
      ++activate;
    } else {
      ++other;
    }
  }
  std::printf("  instructions: %zu (READ_HOST %llu, WRITE_HOST %llu, READ_WEIGHTS %llu, MATMUL "
              "%llu of %.1f rows on average, ACTIVATE %llu, other %llu): %.1f cycles per "
              "instruction\n",
              program.size(), U(read_host), U(write_host), U(read_weights), U(matmul),
              matmul ? double(rows) / matmul : 0.0, U(activate), U(other),
              cycles / program.size());
}

// A lowered layer's run on the system model: the program, the driver's perf counters, what the
// RTL device and each link direction counted during the run, and the output read back.
struct ProgramRun {
  tpu::compiler::DenseProgram program;
  RunResult result;
  DeviceDelta device;
  DirectionWindow down, up;
  tpu::golden::Tensor<int8_t> output;  // in the layer's output shape (program.output_shape)
  double wall = 0;                     // seconds of wall time the run took to simulate
};

// Lowers a layer for the device's limits into its DMA region.
using Lowerer = std::function<tpu::compiler::DenseProgram(const tpu::isa::DeviceLimits&,
                                                         const tpu::compiler::HostRegion&)>;

// Lowers, then runs the program with the link monitored (runtime::Execute: the host images
// placed, doorbell to interrupt, the output read back).
ProgramRun RunProgram(tpu::sys::TpuSystem& system, const Lowerer& lower) {
  LinkMonitor monitor(system.link());
  ProgramRun run;
  system.Run([&](tpu::device::DeviceBus& bus) {
    Device dev(bus);
    const tpu::device::DmaBuffer region = dev.dma_region();
    run.program = lower(dev.info().limits, {region.address, region.size});
    const auto dev0 = system.device().stats();
    monitor.Start();
    const auto wall0 = std::chrono::steady_clock::now();
    tpu::runtime::Execution e = tpu::runtime::Execute(dev, run.program, 0);
    run.wall = Seconds(wall0);
    monitor.Stop();
    run.device = Since(dev0, system.device().stats());
    run.result = e.result;
    run.output = std::move(e.output);
  });
  run.down = monitor.down();
  run.up = monitor.up();
  return run;
}

// What a run is measured against: its useful MACs and its compute time in MXU rows (one row per
// cycle), each with the formula printed next to it, and the goal on end to end / max(compute,
// transfer), if the case has one.
struct RunBounds {
  double macs = 0;
  const char* macs_formula = "";
  double rows = 0;
  const char* rows_formula = "";
  double goal = 0;  // 0: none
};

// Prints a run's figures (checked against `golden_name`: `ok`): cycles, utilization, the
// instruction mix, stalls, end to end against max(compute, transfer), the device's counts and
// the simulation speed.
void ReportRun(tpu::sys::TpuSystem& system, const ProgramRun& run, bool ok,
               const char* golden_name, const RunBounds& b) {
  const auto& c = system.config();
  const tpu::sc::LinkTiming& timing = system.link().timing();
  const RunResult& r = run.result;
  const double n = double(run.program.limits.n);
  const uint64_t cycles = r.perf[tpu::regs::kPerfCycles];
  const double clock = c.clock_mhz * 1e6;
  const double e2e = (r.end_ns - r.start_ns) * 1e-9;
  const double compute = b.rows / clock;
  const double down_limit = timing.payload_limit_bytes_per_s(kCplHeaderBytes);
  const double up_limit = timing.payload_limit_bytes_per_s(kMwr64HeaderBytes);
  const double to_device = double(run.down.payload) / down_limit;
  const double from_device = double(run.up.payload) / up_limit;
  const double transfer = std::max(to_device, from_device);
  const double ratio = e2e / std::max(compute, transfer);

  std::printf("  result vs %s: %s\n", golden_name, ok ? "PASS (bit-exact)" : "FAIL (mismatch)");
  std::printf("  device cycles (queue running) %llu, MXU rows %llu, MXU utilization "
              "%s / (%.0f*%.0f*cycles) = %.4f\n",
              U(cycles), U(r.perf[tpu::regs::kPerfMxuBusy]), b.macs_formula, n, n,
              b.macs / (n * n * cycles));
  PrintInstructionMix(run.program.instrs.Instrs(), double(cycles));
  std::printf("  stalls (cycles): weights %llu, activation input %llu, DMA %llu, dependency %llu\n",
              U(r.perf[tpu::regs::kPerfStallWeights]), U(r.perf[tpu::regs::kPerfStallActIn]),
              U(r.perf[tpu::regs::kPerfStallDma]), U(r.perf[tpu::regs::kPerfStallDep]));
  std::printf("  simulated end to end (doorbell -> interrupt) %.3f us\n", e2e * 1e6);
  std::printf("  compute time: %.0f MXU rows (%s) at %.0f MHz = %.3f us\n", b.rows,
              b.rows_formula, c.clock_mhz, compute * 1e6);
  std::printf("  transfer time: host -> device %llu payload bytes / %.3f GB/s = %.3f us; "
              "device -> host %llu / %.3f GB/s = %.3f us; max %.3f us\n",
              U(run.down.payload), down_limit / 1e9, to_device * 1e6, U(run.up.payload),
              up_limit / 1e9, from_device * 1e6, transfer * 1e6);
  std::printf("  TLPs delivered: host -> device %llu, device -> host %llu\n", U(run.down.tlps),
              U(run.up.tlps));
  if (b.goal > 0) {
    std::printf("  end to end / max(compute, transfer) = %.4f (%s-bound)  [issue 5 goal <= "
                "%.2f: %s]\n",
                ratio, compute >= transfer ? "compute" : "transfer", b.goal,
                ratio <= b.goal ? "MET" : "NOT MET");
  } else {
    std::printf("  end to end / max(compute, transfer) = %.4f (%s-bound)\n", ratio,
                compute >= transfer ? "compute" : "transfer");
  }
  std::printf("  device: %llu cycles clocked, %llu cycles a received beat waited, %llu cycles a "
              "sent beat waited\n",
              U(run.device.cycles), U(run.device.rx_stall_cycles),
              U(run.device.tx_wait_cycles));
  std::printf("  simulation: %.2f s wall, %.1f kcycles/s\n", run.wall,
              double(run.device.cycles) / run.wall / 1e3);
}

int RunDense(tpu::sys::TpuSystem& system, const Options& o) {
  const auto& c = system.config();
  const int64_t m = o.m, k = o.k, n_out = o.n;
  std::printf("system dense %lld x %lld x %lld end to end at %s, device at %.0f MHz\n",
              static_cast<long long>(m), static_cast<long long>(k),
              static_cast<long long>(n_out), c.link.Name().c_str(), c.clock_mhz);
  PrintLinkAndDevice(system);

  std::mt19937_64 rng(1024);
  std::uniform_int_distribution<int> byte(-128, 127);
  tpu::golden::Tensor<int8_t> x({m, k});
  for (auto& v : x.data) v = static_cast<int8_t>(byte(rng));
  tpu::compiler::DenseLayer layer;
  layer.weights = tpu::golden::Tensor<int8_t>({k, n_out});
  for (auto& v : layer.weights.data) v = static_cast<int8_t>(byte(rng));
  layer.bias.resize(n_out);
  for (auto& v : layer.bias) v = static_cast<int32_t>(rng() % 200001) - 100000;
  layer.input_zero_point = -7;
  // Per tensor: the int32 sums (about sqrt(K) x 128 x 128 in size) land across the int8 range.
  layer.requant.multipliers = {tpu::golden::QuantizeMultiplier(1.0 / (64.0 * std::sqrt(k) * 2))};
  layer.requant.out_zero_point = 3;

  const ProgramRun run = RunProgram(
      system, [&](const tpu::isa::DeviceLimits& limits, const tpu::compiler::HostRegion& region) {
        return tpu::compiler::LowerDense(x, layer, limits, region);
      });
  const tpu::golden::Tensor<int8_t> want = tpu::golden::Dense(
      x, layer.weights, layer.bias, layer.input_zero_point, layer.requant);
  const bool ok = run.output.data == want.data;

  const int64_t tile = run.program.limits.n;
  RunBounds bounds;
  bounds.macs = double(m) * double(k) * double(n_out);
  bounds.macs_formula = "M*K*N";
  bounds.rows = double(m) * double((k + tile - 1) / tile) * double((n_out + tile - 1) / tile);
  bounds.rows_formula = "M x ceil(K/N) x ceil(N_out/N)";
  bounds.goal = kDenseGoal;
  ReportRun(system, run, ok, "golden::Dense", bounds);
  return ok ? 0 : 1;
}

// ---- conv ------------------------------------------------------------------------------------

int RunConv(tpu::sys::TpuSystem& system, const Options& o) {
  const auto& c = system.config();
  const bool window = o.lowering == "window";
  std::printf("system conv2d %lldx%lldx%lld -> %lld, %lldx%lld %s stride %lld, lowering %s "
              "(%s), end to end at %s, device at %.0f MHz\n",
              static_cast<long long>(o.h), static_cast<long long>(o.w),
              static_cast<long long>(o.cin), static_cast<long long>(o.cout),
              static_cast<long long>(o.kernel), static_cast<long long>(o.kernel),
              o.padding.c_str(), static_cast<long long>(o.stride), o.lowering.c_str(),
              window ? "MATMUL window over the input in the UB" : "host im2col onto LowerDense",
              c.link.Name().c_str(), c.clock_mhz);
  PrintLinkAndDevice(system);

  const int64_t batch = 1;
  std::mt19937_64 rng(2024);
  std::uniform_int_distribution<int> byte(-128, 127);
  tpu::golden::Tensor<int8_t> x({batch, o.h, o.w, o.cin});
  for (auto& v : x.data) v = static_cast<int8_t>(byte(rng));
  tpu::compiler::Conv2dLayer layer;
  layer.weights = tpu::golden::Tensor<int8_t>({o.kernel, o.kernel, o.cin, o.cout});
  for (auto& v : layer.weights.data) v = static_cast<int8_t>(byte(rng));
  layer.bias.resize(o.cout);
  for (auto& v : layer.bias) v = static_cast<int32_t>(rng() % 200001) - 100000;
  layer.params.stride_h = layer.params.stride_w = o.stride;
  layer.params.padding =
      o.padding == "same" ? tpu::golden::Padding::kSame : tpu::golden::Padding::kValid;
  layer.params.input_zero_point = -7;  // also the padding value
  // Per channel: around the dense case's scale for K = KH * KW * Cin, each channel's within
  // [0.75, 1.25) of it.
  const double k = double(o.kernel * o.kernel * o.cin);
  std::uniform_real_distribution<double> spread(0.75, 1.25);
  for (int64_t ch = 0; ch < o.cout; ++ch) {
    layer.requant.multipliers.push_back(
        tpu::golden::QuantizeMultiplier(spread(rng) / (64.0 * std::sqrt(k) * 2)));
  }
  layer.requant.out_zero_point = 3;

  tpu::compiler::LoweringOptions options;
  options.conv = window ? tpu::compiler::ConvLowering::kWindow : tpu::compiler::ConvLowering::kIm2col;
  const ProgramRun run = RunProgram(
      system, [&](const tpu::isa::DeviceLimits& limits, const tpu::compiler::HostRegion& region) {
        return tpu::compiler::LowerConv2d(x, layer, limits, region, options);
      });
  const tpu::golden::Tensor<int8_t> want =
      tpu::golden::Conv2d(x, layer.weights, layer.bias, layer.params, layer.requant);
  const bool ok = run.output.shape == want.shape && run.output.data == want.data;

  const std::vector<int64_t>& y = want.shape;  // (B, OH, OW, Cout)
  const uint64_t matmul_rows = tpu::runtime::MatmulRows(run.program.instrs);
  std::printf("  lowering: %s, output %lldx%lldx%lld\n", run.program.lowering.c_str(),
              static_cast<long long>(y[1]), static_cast<long long>(y[2]),
              static_cast<long long>(y[3]));
  RunBounds bounds;
  bounds.macs = double(y[1]) * double(y[2]) * double(o.kernel * o.kernel) * double(o.cin) *
                double(o.cout) * double(batch);
  bounds.macs_formula = "OH*OW*KH*KW*Cin*Cout*B";
  bounds.rows = double(matmul_rows);
  bounds.rows_formula = "the program's MATMUL rows";
  ReportRun(system, run, ok, "golden::Conv2d", bounds);

  // PCIe bytes against what the layer must move at least: its input, weights and output once.
  const uint64_t essential =
      static_cast<uint64_t>(x.NumElements() + layer.weights.NumElements() + want.NumElements());
  const uint64_t measured = run.down.payload + run.up.payload;
  const tpu::compiler::PcieBytes program_bytes = tpu::compiler::ProgramPcieBytes(run.program);
  std::printf("  PCIe payload on the link: host -> device %llu, device -> host %llu, total %llu "
              "(the program's READ_HOST / WRITE_HOST lengths: %llu / %llu; the rest is ring, "
              "register and MSI traffic)\n",
              U(run.down.payload), U(run.up.payload), U(measured), U(program_bytes.to_device),
              U(program_bytes.from_device));
  std::printf("  input + weights + output: %lld + %lld + %lld = %llu bytes; measured / that = "
              "%.3f\n",
              static_cast<long long>(x.NumElements()),
              static_cast<long long>(layer.weights.NumElements()),
              static_cast<long long>(want.NumElements()), U(essential),
              double(measured) / double(essential));
  return ok ? 0 : 1;
}

}  // namespace

int sc_main(int argc, char** argv) {
  const Options o = ParseOptions(argc, argv);
  tpu::sys::SystemConfig config;
  try {
    config.link = tpu::sc::PcieLinkConfig::FromName(o.pcie);
  } catch (const std::invalid_argument& e) {
    Usage(e.what());
  }
  if (o.link_latency_ns >= 0) config.link.latency_ns = o.link_latency_ns;
  if (o.host_latency_ns >= 0) config.host_memory_latency_ns = o.host_latency_ns;
  try {
    const tpu::devices::DeviceConfig& device =
        tpu::tb::BuiltDevice(o.device.empty() ? tpu::devices::kDefaultDevice : o.device);
    config.link.max_payload = static_cast<uint32_t>(device.max_payload);
    config.link.max_read_request = static_cast<uint32_t>(device.max_read_request);
    config.clock_mhz = o.clock_mhz > 0 ? o.clock_mhz : device.clock_mhz;
    std::printf("device %s: N = %lld\n", device.name, static_cast<long long>(device.limits.n));
    tpu::sys::TpuSystem system(config, tpu::tb::MakeBuiltTopModel(device));
    if (o.bench_case == "dma") return RunDma(system, o);
    return o.bench_case == "dense" ? RunDense(system, o) : RunConv(system, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_system: %s\n", e.what());
    return 1;
  }
}
