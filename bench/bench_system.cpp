// The system model end to end (testbench/system: the Verilated tpu_top, configuration 1, on the
// modeled PCIe link, driven by tpu::device::Device), against the goals of issue 5:
//
// - dma: host -> device DMA (one READ_HOST of `--bytes` from host memory into the weight DRAM)
//   reaches >= 0.95 of the link's payload limit; device -> host (WRITE_HOSTs of the whole UB,
//   filled first) is measured alike. The rate is taken from the first to the last data TLP
//   (>= 64 payload bytes: completions or memory writes of the DMA, not register, ring or MSI
//   traffic) the direction delivered, as (payload after the first) / (time between them);
//   doorbell -> interrupt is printed too. The RTL's TLP streams carry 128 bits per cycle with
//   one header beat per TLP, so the device itself cannot take or send payload faster than
//   clock x 16 x MPS / (MPS + 16) (10.54 GB/s at 700 MHz, MPS 256): the output says whether
//   the link or the device stream bounds the case.
// - dense: an M x K x N dense layer (runtime::LowerDense, per-tensor requantization, bias)
//   end to end, checked bit for bit against golden::Dense, runs in simulated time (doorbell to
//   interrupt) within 1.10 of max(compute time, transfer time), where compute time = the MXU
//   rows M x ceil(K/16) x ceil(N/16) at one row per cycle, and transfer time = the larger of
//   (host -> device payload / payload limit) and (device -> host payload / payload limit).
//
// SystemC elaborates once per process, so each process runs one case with one link and clock:
//   bench_system --case dma --pcie gen3x16 --clock-mhz 700 [--bytes 4194304]
//   bench_system --case dense [--m 1024 --k 1024 --n 1024] [--pcie ...] [--clock-mhz ...]
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
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <systemc>
#include <variant>
#include <vector>

#include "device/device.h"
#include "golden/dense.h"
#include "host_if/top_model.h"
#include "regs/regs.h"
#include "runtime/dense_lowering.h"
#include "sc_models/pcie_link.h"
#include "sc_models/pcie_link_config.h"
#include "system/tpu_system.h"

namespace {

using tpu::device::Device;
using tpu::device::RunResult;
using tpu::sc::PcieLinkDirection;

// The RTL's TLP stream: 128 bits a cycle (docs/host_if.md section 1).
constexpr double kStreamBytesPerCycle = 16.0;
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
  std::string pcie = "gen3x16";
  double clock_mhz = 700.0;
  uint64_t bytes = 4ull << 20;
  int64_t m = 1024, k = 1024, n = 1024;
  double link_latency_ns = -1;  // < 0: the link's default
  double host_latency_ns = -1;  // < 0: the system's default
};

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "bench_system: %s\n"
               "usage: bench_system --case dma|dense [--pcie genGxL] [--clock-mhz F]\n"
               "                    [--bytes B] (dma)  [--m M --k K --n N] (dense)\n"
               "                    [--link-latency-ns T] [--host-latency-ns T] (diagnosis)\n",
               why.c_str());
  std::exit(2);
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") Usage("the system benchmarks of issue 5");
    if (i + 1 >= argc) Usage(arg + " needs a value");
    const std::string value = argv[++i];
    try {
      if (arg == "--case") {
        o.bench_case = value;
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
  if (o.bench_case != "dma" && o.bench_case != "dense") Usage("--case must be dma or dense");
  if (o.clock_mhz <= 0) Usage("--clock-mhz must be > 0");
  if (o.bytes == 0 || o.m < 1 || o.k < 1 || o.n < 1) Usage("sizes must be >= 1");
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

// Payload per second the RTL's 128-bit stream can carry in max-payload TLPs (one beat of header,
// MPS / 16 beats of payload).
double DeviceStreamLimit(double clock_mhz, uint32_t mps) {
  const double beats = 1.0 + std::ceil(mps / kStreamBytesPerCycle);
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
  std::printf("  device at %.0f MHz: TLP stream 128 bits/cycle = %.3f GB/s raw, %.3f GB/s of "
              "payload in %u-byte TLPs\n",
              c.clock_mhz, c.clock_mhz * 1e6 * kStreamBytesPerCycle / 1e9,
              DeviceStreamLimit(c.clock_mhz, c.link.max_payload) / 1e9, c.link.max_payload);
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

int RunDma(tpu::sys::TpuSystem& system, const Options& o) {
  const auto& c = system.config();
  std::printf("system DMA: %llu bytes each way at %s, device at %.0f MHz\n", U(o.bytes),
              c.link.Name().c_str(), c.clock_mhz);
  PrintLinkAndDevice(system);
  const tpu::sc::LinkTiming& timing = system.link().timing();
  const double stream = DeviceStreamLimit(c.clock_mhz, c.link.max_payload);
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

    // Host -> device: one READ_HOST into the weight DRAM.
    const auto dev0 = system.device().stats();
    monitor.Start();
    const RunResult h2d = dev.Run({tpu::isa::ReadHost{tpu::isa::Target::kDram, source.address, 0,
                                                      static_cast<uint32_t>(o.bytes)},
                                   tpu::isa::Halt{}});
    monitor.Stop();
    const std::vector<uint8_t>& dram = system.dram().bytes();
    const bool h2d_ok = std::equal(data.begin(), data.end(), dram.begin());
    ok = ReportDma("host -> device (READ_HOST into the weight DRAM; CplDs of 3-DW header)",
                   o.bytes, monitor.down(), h2d, Since(dev0, system.device().stats()),
                   timing.payload_limit_bytes_per_s(kCplHeaderBytes), stream,
                   "completion TLP", h2d_ok).ok && ok;

    // Device -> host: the UB filled from the source (one run), then WRITE_HOSTs of the whole UB
    // to consecutive host addresses until `bytes` are written.
    dev.Run({tpu::isa::ReadHost{tpu::isa::Target::kUb, source.address, 0,
                                static_cast<uint32_t>(ub_bytes)},
             tpu::isa::Halt{}});
    std::vector<tpu::isa::Instr> program;
    for (uint64_t done = 0; done < o.bytes; done += ub_bytes) {
      program.push_back(tpu::isa::WriteHost{
          0, sink.address + done, static_cast<uint32_t>(std::min(ub_bytes, o.bytes - done))});
    }
    program.push_back(tpu::isa::Halt{});
    const auto dev1 = system.device().stats();
    monitor.Start();
    const RunResult d2h = dev.Run(program);
    monitor.Stop();
    const std::vector<uint8_t> written = dev.host_memory().Read(sink.address, o.bytes);
    bool d2h_ok = true;
    for (uint64_t i = 0; i < o.bytes && d2h_ok; ++i) d2h_ok = written[i] == data[i % ub_bytes];
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
  tpu::runtime::DenseLayer layer;
  layer.weights = tpu::golden::Tensor<int8_t>({k, n_out});
  for (auto& v : layer.weights.data) v = static_cast<int8_t>(byte(rng));
  layer.bias.resize(n_out);
  for (auto& v : layer.bias) v = static_cast<int32_t>(rng() % 200001) - 100000;
  layer.input_zero_point = -7;
  // Per tensor: the int32 sums (about sqrt(K) x 128 x 128 in size) land across the int8 range.
  layer.requant.multipliers = {tpu::golden::QuantizeMultiplier(1.0 / (64.0 * std::sqrt(k) * 2))};
  layer.requant.out_zero_point = 3;

  const tpu::sc::LinkTiming& timing = system.link().timing();
  LinkMonitor monitor(system.link());
  tpu::golden::Tensor<int8_t> y;
  RunResult r;
  DeviceDelta dev_delta;
  std::vector<tpu::isa::Instr> program;
  double wall = 0;
  system.Run([&](tpu::device::DeviceBus& bus) {
    Device dev(bus);
    const tpu::device::DmaBuffer region = dev.dma_region();
    const tpu::runtime::DenseProgram p =
        tpu::runtime::LowerDense(x, layer, dev.info().limits, {region.address, region.size});
    program = p.instrs;
    for (const auto& image : p.images) dev.host_memory().Write(image.address, image.bytes);
    const auto dev0 = system.device().stats();
    monitor.Start();
    const auto wall0 = std::chrono::steady_clock::now();
    r = dev.Run(p.instrs);
    wall = Seconds(wall0);
    monitor.Stop();
    dev_delta = Since(dev0, system.device().stats());
    y = tpu::runtime::ExtractDenseOutput(p.output, [&](uint64_t a, uint64_t length) {
      return dev.host_memory().Read(a, length);
    });
  });
  const tpu::golden::Tensor<int8_t> want = tpu::golden::Dense(
      x, layer.weights, layer.bias, layer.input_zero_point, layer.requant);
  const bool ok = y.data == want.data;

  const int64_t tile = 16;
  const uint64_t cycles = r.perf[tpu::regs::kPerfCycles];
  const double macs = double(m) * double(k) * double(n_out);
  const double clock = c.clock_mhz * 1e6;
  const double rows = double(m) * double((k + tile - 1) / tile) * double((n_out + tile - 1) / tile);
  const double e2e = (r.end_ns - r.start_ns) * 1e-9;
  const double compute = rows / clock;
  const double down_limit = timing.payload_limit_bytes_per_s(kCplHeaderBytes);
  const double up_limit = timing.payload_limit_bytes_per_s(kMwr64HeaderBytes);
  const double to_device = double(monitor.down().payload) / down_limit;
  const double from_device = double(monitor.up().payload) / up_limit;
  const double transfer = std::max(to_device, from_device);
  const double bound = std::max(compute, transfer);
  const double ratio = e2e / bound;

  std::printf("  result vs golden::Dense: %s\n", ok ? "PASS (bit-exact)" : "FAIL (mismatch)");
  std::printf("  device cycles (queue running) %llu, MXU rows %llu, MXU utilization "
              "M*K*N / (16*16*cycles) = %.4f\n",
              U(cycles), U(r.perf[tpu::regs::kPerfMxuBusy]), macs / (256.0 * cycles));
  PrintInstructionMix(program, double(cycles));
  std::printf("  stalls (cycles): weights %llu, activation input %llu, DMA %llu, dependency %llu\n",
              U(r.perf[tpu::regs::kPerfStallWeights]), U(r.perf[tpu::regs::kPerfStallActIn]),
              U(r.perf[tpu::regs::kPerfStallDma]), U(r.perf[tpu::regs::kPerfStallDep]));
  std::printf("  simulated end to end (doorbell -> interrupt) %.3f us\n", e2e * 1e6);
  std::printf("  compute time: %.0f MXU rows at %.0f MHz = %.3f us\n", rows, c.clock_mhz,
              compute * 1e6);
  std::printf("  transfer time: host -> device %llu payload bytes / %.3f GB/s = %.3f us; "
              "device -> host %llu / %.3f GB/s = %.3f us; max %.3f us\n",
              U(monitor.down().payload), down_limit / 1e9, to_device * 1e6,
              U(monitor.up().payload), up_limit / 1e9, from_device * 1e6, transfer * 1e6);
  std::printf("  TLPs delivered: host -> device %llu, device -> host %llu\n",
              U(monitor.down().tlps), U(monitor.up().tlps));
  std::printf("  end to end / max(compute, transfer) = %.4f (%s-bound)  [issue 5 goal <= %.2f: "
              "%s]\n",
              ratio, compute >= transfer ? "compute" : "transfer", kDenseGoal,
              ratio <= kDenseGoal ? "MET" : "NOT MET");
  std::printf("  device: %llu cycles clocked, %llu cycles a received beat waited, %llu cycles a "
              "sent beat waited\n",
              U(dev_delta.cycles), U(dev_delta.rx_stall_cycles), U(dev_delta.tx_wait_cycles));
  std::printf("  simulation: %.2f s wall, %.1f kcycles/s\n", wall,
              double(dev_delta.cycles) / wall / 1e3);
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
  config.clock_mhz = o.clock_mhz;
  if (o.link_latency_ns >= 0) config.link.latency_ns = o.link_latency_ns;
  if (o.host_latency_ns >= 0) config.host_memory_latency_ns = o.host_latency_ns;
  try {
    tpu::sys::TpuSystem system(config, tpu::tb::MakeTopModel<1>());
    return o.bench_case == "dma" ? RunDma(system, o) : RunDense(system, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_system: %s\n", e.what());
    return 1;
  }
}
