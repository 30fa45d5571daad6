// `mxu_demo`: the bare MXU at work. Streams a seeded random int8 GEMM (M x K times K x N) through
// the Verilated MXU (rtl/mxu, no controller) tile by tile, checks every result element against
// the golden GEMM and reports cycles, utilization, simulated time and simulation speed. A
// harness-level tool (build/bench/mxu_demo), beside the benchmarks; the `tpu` tool drives the
// whole device instead.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/gemm.h"
#include "mxu/mxu_gemm.h"
#include "mxu/mxu_harness.h"
#include "report.h"  // the tpu tool's report: aligned text or JSON

namespace tpu::bench {
namespace {

using cli::Report;

struct MxuOptions {
  int m = 64, k = 48, n = 40;
  int size = 16;
  uint64_t seed = 1;
  double clock_mhz = 700.0;  // TPU v1's clock
  double weight_gap = 0.0, act_gap = 0.0;
  std::string trace, trace_window, report = "text";
};

// "A:B" -> [A, B) in cycles; either side may be empty.
void ParseWindow(const std::string& text, tb::HarnessOptions& h) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    throw std::invalid_argument("--trace-window '" + text + "': expected FIRST:LAST cycles");
  }
  try {
    const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
    if (!a.empty()) h.trace_begin = std::stoull(a);
    if (!b.empty()) h.trace_end = std::stoull(b);
  } catch (const std::logic_error&) {
    throw std::invalid_argument("--trace-window '" + text + "': cycles must be whole numbers");
  }
  if (h.trace_end <= h.trace_begin) {
    throw std::invalid_argument("--trace-window '" + text + "': LAST must be after FIRST");
  }
}

std::vector<int8_t> RandomInt8(size_t count, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> v(count);
  for (auto& x : v) x = int8_t(dist(rng));
  return v;
}

std::unique_ptr<tb::MxuHarness> MakeHarness(int size, const tb::HarnessOptions& h) {
  switch (size) {
    case 8:
      return tb::MakeMxuHarness<8>(h);
    case 16:
      return tb::MakeMxuHarness<16>(h);
    default:
      throw std::invalid_argument("--size " + std::to_string(size) +
                                  ": this build has MXUs of size 8 and 16");
  }
}

int RunMxu(const MxuOptions& o) {
  tb::HarnessOptions h;
  h.trace_path = o.trace;
  if (!o.trace_window.empty()) ParseWindow(o.trace_window, h);
  auto mxu = MakeHarness(o.size, h);
  mxu->Reset();

  std::mt19937_64 rng(o.seed);
  const auto a = RandomInt8(size_t(o.m) * o.k, rng), w = RandomInt8(size_t(o.k) * o.n, rng);

  tb::MxuStreamOptions stream;
  stream.seed = o.seed;
  stream.weight_gap = o.weight_gap;
  stream.act_gap = o.act_gap;
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  bool progress_shown = false;
  stream.progress = [&](uint64_t done, uint64_t total) {
    if (seconds() < 2.0) return;  // short runs stay quiet
    std::fprintf(stderr, "\r[mxu_demo] %llu/%llu result rows (%.0f%%)", (unsigned long long)done,
                 (unsigned long long)total, 100.0 * double(done) / double(total));
    progress_shown = true;
  };
  tb::MxuStreamStats stats;
  const auto got = tb::RunMxuGemm(*mxu, a, w, o.m, o.k, o.n, stream, &stats);
  const double wall = seconds();
  if (progress_shown) std::fprintf(stderr, "\n");

  const auto want =
      golden::Gemm(golden::Tensor<int8_t>({o.m, o.k}, a), golden::Tensor<int8_t>({o.k, o.n}, w));
  size_t bad = 0, first_bad = want.data.size();
  for (size_t i = 0; i < want.data.size(); ++i) {
    if (got[i] != want.data[i] && bad++ == 0) first_bad = i;
  }

  const double sim_seconds = double(stats.cycles) / (o.clock_mhz * 1e6);
  Report r("mxu_demo: int8 GEMM on the Verilated MXU");
  r.Add("check", "check vs golden",
        bad == 0
            ? std::string("PASS (") + std::to_string(want.data.size()) + " int32 results bit-exact)"
            : "FAIL (" + std::to_string(bad) + " of " + std::to_string(want.data.size()) +
                  " results differ)");
  r.Add("shape", "shape (M x K x N)",
        std::to_string(o.m) + " x " + std::to_string(o.k) + " x " + std::to_string(o.n));
  r.Add("array", "MXU", std::to_string(o.size) + " x " + std::to_string(o.size));
  r.Add("seed", "seed", int64_t(o.seed));
  r.Add("tiles", "weight tiles", int64_t(stats.tiles));
  r.Add("rows", "activation rows streamed", int64_t(stats.rows));
  r.Add("cycles", "cycles", int64_t(stats.cycles));
  r.Add("mxu_utilization", "MXU utilization (useful MACs)", stats.Utilization(o.size));
  r.Add("mxu_busy", "MXU busy (rows issued / cycles)", double(stats.rows) / double(stats.cycles));
  r.Add("row_waits", "stall: rows waiting for weights", int64_t(stats.act_wait), "cycles");
  r.Add("weight_waits", "weight beats held (both banks full)", int64_t(stats.weight_wait),
        "cycles");
  r.Add("clock_mhz", "clock", o.clock_mhz, "MHz", 1);
  r.Add("simulated_us", "simulated time", sim_seconds * 1e6, "us", 3);
  r.Add("tops", "throughput at that clock", 2.0 * double(stats.useful_macs) / sim_seconds / 1e12,
        "TOPS", 4);
  r.Add("peak_tops", "peak at that clock", 2.0 * o.size * o.size * o.clock_mhz * 1e6 / 1e12, "TOPS",
        4);
  r.Add("wall_s", "wall-clock time", wall, "s", 3);
  r.Add("sim_cycles_per_s", "simulation speed", double(stats.cycles) / wall, "cycles/s", 0);
  if (!o.trace.empty()) r.Add("trace", "waveform", o.trace);

  if (o.report == "json") {
    r.PrintJson(std::cout);
  } else {
    r.PrintText(std::cout);
  }
  if (bad != 0) {
    const size_t row = first_bad / o.n, col = first_bad % o.n;
    std::cerr << "mxu_demo: mismatch at C[" << row << "][" << col << "]: RTL " << got[first_bad]
              << ", golden " << want.data[first_bad] << " (rerun with --trace FILE.fst and "
              << "open it with waveforms/mxu.gtkw)\n";
    return 1;
  }
  return 0;
}

void AddOptions(CLI::App& app, MxuOptions* opts) {
  CLI::App* cmd = &app;
  cmd->add_option("--m", opts->m, "rows of A (activation rows)")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--k", opts->k, "columns of A = rows of W")->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--n", opts->n, "columns of W (outputs)")->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--size", opts->size, "MXU array size N")->check(CLI::IsMember({8, 16}));
  cmd->add_option("--seed", opts->seed, "seed of the random A and W");
  cmd->add_option("--clock-mhz", opts->clock_mhz, "clock for simulated time and TOPS")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--weight-gap", opts->weight_gap,
                  "probability of holding back a weight beat for a cycle")
      ->check(CLI::Range(0.0, 0.99));
  cmd->add_option("--act-gap", opts->act_gap,
                  "probability of holding back an activation row for a cycle")
      ->check(CLI::Range(0.0, 0.99));
  cmd->add_option("--trace", opts->trace, "write an FST waveform to this file");
  cmd->add_option("--trace-window", opts->trace_window, "dump only cycles FIRST:LAST");
  cmd->add_option("--report", opts->report, "report format")
      ->check(CLI::IsMember({"text", "json"}));
}

}  // namespace
}  // namespace tpu::bench

int main(int argc, char** argv) {
  CLI::App app{
      "mxu_demo: stream a random int8 GEMM through the Verilated MXU and check it "
      "against golden"};
  tpu::bench::MxuOptions options;
  tpu::bench::AddOptions(app, &options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return tpu::bench::RunMxu(options);
  } catch (const std::exception& e) {
    std::cerr << "mxu_demo: error: " << e.what() << "\n";
    return 2;
  }
}
