// The model backend against the rtl backend on the same layer (issue 13's speed goal: >= 1000x
// at N = 16, docs/model.md "Speed"): a dense layer run on both, in turn, several rounds in one
// process on the same machine, each run's wall-clock time measured around the backend call (the
// `wall_s` of `tpu dense`'s report: lowering, driver and device); prints per round the rtl wall,
// the model wall and their ratio, and the process's CPU time over the model's call (the model
// device replays the timing on a second thread), then the minimum, median and maximum of each.
// Every output is checked against golden (bit-exact, exit 1 otherwise); golden is computed
// before the rounds, outside the timed calls. --model-only runs the model alone (to profile it).
//
// Each round also runs the model a second time at once ("again": its memory and caches warm)
// and then times one write to each 4 KiB page of a 16 MiB buffer of its own that lay untouched
// since the round before ("cold page"). On some virtual machines memory left idle for seconds
// costs microseconds per page on its next touch, without a page fault the guest sees
// (docs/model.md, "Speed"); a model call after 20 s of rtl pays that for its whole working set.
// The column shows what the machine charged in that run (0.08 - 0.14 us with --model-only's
// rounds back to back, 0.4 - 3 us after 23 s of rtl on the machine of docs/model.md).
//
//   bench_speed [--m 256 --k 512 --n 256] [--rounds 3] [--inputs DIR] [--scale 0.0005]
//               [--relu] [--device n16] [--pcie gen3x16] [--model-only]
//
// The program first starts itself again with its heap on transparent huge pages
// (host_driver/cli/huge_page_heap.h: why; TPU_HUGE_PAGES=0 keeps 4 KiB pages, to compare), and
// prints which. `tpu` runs one backend a process and does not (bench_speed_tpu times it).
//
// --inputs DIR reads DIR/x.npy, w.npy and b.npy (scripts/make_dense_inputs.py) instead of
// seeded random ones: `make run`'s layer is scripts/make_dense_inputs.py --m 256 --k 512 --n 256
// --seed 1 with --scale 0.0005 --relu. SystemC elaborates once per process: one rtl device.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <sys/resource.h>

#include <CLI/CLI.hpp>

#include "compiler/dense_layer.h"
#include "device/pcie_link.h"
#include "devices/devices_gen.h"
#include "golden/activation.h"
#include "golden/dense.h"
#include "golden/requant.h"
#include "huge_page_heap.h"
#include "npy/npy.h"
#include "runtime/device_backend.h"
#include "sc_models/model_device/model_platform.h"
#include "simulator/simulator.h"

// SystemC's library has its own main() calling sc_main(); this program keeps its own main()
// (the executable's wins) and defines sc_main only because the library refers to it.
extern "C" int sc_main(int, char**) { return 2; }

namespace tpu::bench {
namespace {

template <typename T>
golden::Tensor<T> Random(std::vector<int64_t> shape, std::mt19937_64& rng, int64_t lo, int64_t hi) {
  golden::Tensor<T> t(std::move(shape));
  std::uniform_int_distribution<int64_t> value(lo, hi);
  for (T& v : t.data) v = static_cast<T>(value(rng));
  return t;
}

struct Seconds {
  double wall = 0;
  double cpu = 0;  // the process's CPU time (every thread's) over the call
  long page_faults = 0;  // the process's minor page faults over the call
};

long MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// One backend call; the output must equal `want`.
Seconds Timed(runtime::LayerBackend& backend, const golden::Tensor<int8_t>& x,
              const compiler::DenseLayer& layer, const golden::Tensor<int8_t>& want) {
  const long faults_start = MinorFaults();
  const std::clock_t cpu_start = std::clock();
  const auto start = std::chrono::steady_clock::now();
  const runtime::LayerResult<int8_t> result = backend.RunDense(x, layer);
  Seconds s;
  s.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  s.cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  s.page_faults = MinorFaults() - faults_start;
  if (result.output.data != want.data) {
    throw std::runtime_error(backend.name() + ": output differs from golden");
  }
  return s;
}

std::string Format(const char* format, double value) {
  char cell[32];
  std::snprintf(cell, sizeof(cell), format, value);
  return cell;
}

// One write to each 4 KiB page of `pages`, timed: microseconds per page.
double TouchPages(std::vector<uint8_t>& pages) {
  constexpr size_t kPage = 4096;
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < pages.size(); i += kPage) pages[i] = static_cast<uint8_t>(pages[i] + 1);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 1e6 * s / static_cast<double>(pages.size() / kPage);
}

struct Spread {
  double min, median, max;
};

Spread SpreadOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return {v.front(), v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2, v.back()};
}

int Run(int argc, char** argv) {
  CLI::App app{"The model backend against the rtl backend on one dense layer: wall clock, ratio"};
  int64_t m = 256, k = 512, n = 256;
  int rounds = 3;
  uint64_t seed = 1;
  double scale = 0.0005;
  bool relu = false;
  std::string inputs, device_name = devices::kDefaultDevice, pcie = "gen3x16";
  app.add_option("--m", m, "rows of x")->check(CLI::PositiveNumber);
  app.add_option("--k", k, "input channels")->check(CLI::PositiveNumber);
  app.add_option("--n", n, "output channels")->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "rtl then model, this many times")->check(CLI::Range(1, 100));
  app.add_option("--seed", seed, "seed of the random inputs");
  app.add_option("--inputs", inputs, "read x.npy, w.npy, b.npy from this folder instead");
  app.add_option("--scale", scale, "requantization scale")->check(CLI::PositiveNumber);
  app.add_flag("--relu", relu, "ReLU (clamp at the zero point)");
  app.add_option("--device", device_name, "device configuration (isa/devices.json)");
  app.add_option("--pcie", pcie, "PCIe link, genGxL");
  bool model_only = false;
  app.add_flag("--model-only", model_only, "run the model backend only (to profile it)");
  CLI11_PARSE(app, argc, argv);

  golden::Tensor<int8_t> x;
  compiler::DenseLayer layer;
  if (!inputs.empty()) {
    x = npy::Read<int8_t>(inputs + "/x.npy");
    layer.weights = npy::Read<int8_t>(inputs + "/w.npy");
    layer.bias = npy::Read<int32_t>(inputs + "/b.npy").data;
  } else {
    std::mt19937_64 rng(seed);
    x = Random<int8_t>({m, k}, rng, -128, 127);
    layer.weights = Random<int8_t>({k, n}, rng, -128, 127);
    layer.bias = Random<int32_t>({n}, rng, -1000, 1000).data;
  }
  layer.requant.multipliers = {golden::QuantizeMultiplier(scale)};
  if (relu) layer.requant.act_min = 0;
  compiler::CheckDenseLayer(layer, "bench_speed");
  const golden::Tensor<int8_t> want =
      golden::Dense(x, layer.weights, layer.bias, layer.input_zero_point, layer.requant);

  runtime::BackendOptions options;
  options.device = device_name;
  options.link = device::ParsePcieLink(pcie);
  tb::SimulatorOptions simulator;
  simulator.device = device_name;
  simulator.link = options.link;
  runtime::DeviceBackend rtl("rtl", tb::MakeSimulator(simulator), options);
  runtime::DeviceBackend model("model", sc::MakeModelPlatform(device_name, options.link),
                               options);

  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const bool huge_heap = tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb=1");
  std::printf("Model against rtl: dense %lld x %lld x %lld, device %s, %s, %d rounds, "
              "heap on %s\n\n",
              static_cast<long long>(x.shape[0]), static_cast<long long>(layer.k()),
              static_cast<long long>(layer.nout()), device_name.c_str(), pcie.c_str(), rounds,
              huge_heap ? "transparent huge pages (glibc.malloc.hugetlb=1)" : "4 KiB pages");
  std::printf("| round | rtl wall s | model wall ms | ratio | model again ms | ratio again | "
              "model CPU ms | model page faults | cold page us |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  std::vector<double> rtl_s, model_s, ratios, again_s, again_ratios, model_cpu, cold_us;
  std::vector<uint8_t> probe(16u << 20, 0);
  TouchPages(probe);  // mapped now; each round then reads what idle time cost its pages
  for (int r = 0; r < rounds; ++r) {
    if (!model_only) rtl_s.push_back(Timed(rtl, x, layer, want).wall);
    const Seconds m = Timed(model, x, layer, want);
    const Seconds again = Timed(model, x, layer, want);
    cold_us.push_back(TouchPages(probe));
    model_s.push_back(m.wall);
    again_s.push_back(again.wall);
    model_cpu.push_back(m.cpu);
    std::string rtl_cell = "-", ratio = "-", ratio_again = "-";
    if (!model_only) {
      ratios.push_back(rtl_s.back() / m.wall);
      again_ratios.push_back(rtl_s.back() / again.wall);
      rtl_cell = Format("%.3f", rtl_s.back());
      ratio = Format("%.0f", ratios.back());
      ratio_again = Format("%.0f", again_ratios.back());
    }
    std::printf("| %d | %s | %.3f | %s | %.3f | %s | %.3f | %ld | %.2f |\n", r + 1,
                rtl_cell.c_str(), 1e3 * m.wall, ratio.c_str(), 1e3 * again.wall,
                ratio_again.c_str(), 1e3 * m.cpu, m.page_faults, cold_us.back());
    std::fflush(stdout);
  }
  const Spread b = SpreadOf(model_s), e = SpreadOf(again_s), d = SpreadOf(model_cpu);
  const Spread f = SpreadOf(cold_us);
  std::printf("\nmodel wall min %.3f median %.3f max %.3f ms\n", 1e3 * b.min, 1e3 * b.median,
              1e3 * b.max);
  std::printf("again      min %.3f median %.3f max %.3f ms (the same call at once, warm)\n",
              1e3 * e.min, 1e3 * e.median, 1e3 * e.max);
  std::printf("model CPU  min %.3f median %.3f max %.3f ms (its threads: the machine, the timing "
              "model's replay)\n", 1e3 * d.min, 1e3 * d.median, 1e3 * d.max);
  std::printf("cold page  min %.2f median %.2f max %.2f us (a write to a page idle since the "
              "round before)\n", f.min, f.median, f.max);
  if (!model_only) {
    const Spread a = SpreadOf(rtl_s), c = SpreadOf(ratios), g = SpreadOf(again_ratios);
    std::printf("rtl wall   min %.3f  median %.3f  max %.3f s\n", a.min, a.median, a.max);
    std::printf("ratio      min %.0f  median %.0f  max %.0f (goal >= 1000 at N = 16)\n", c.min,
                c.median, c.max);
    std::printf("again      min %.0f  median %.0f  max %.0f (the model warm)\n", g.min,
                g.median, g.max);
  }
  std::printf("outputs bit-exact with golden on %s\n",
              model_only ? "the model backend" : "both backends");
  return 0;
}

}  // namespace
}  // namespace tpu::bench

int main(int argc, char** argv) {
  tpu::cli::RestartWithHugePageHeap(argv);  // both backends in one process: the header
  try {
    return tpu::bench::Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_speed: %s\n", e.what());
    return 1;
  }
}
