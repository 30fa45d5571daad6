// The timing model against the RTL (issue 13, docs/model_calibration.md): every calibration case
// (calibration_cases.h) lowered by the compiler and run on the RTL (the Verilated device in the
// SystemC system model, through the runtime's device backend), its device cycles read from the
// performance counters, and the same program estimated by the timing model
// (sc_models/model_device/timing_model.h). Prints one row per program (case, device,
// instructions, RTL cycles, model cycles, error) and the median and worst error; with --check
// exits 1 when the median or any case leaves the bound (kMedianBound, worst_bound).
//
//   bench_calibration --device n16 [--cases short|full] [--check] [--pcie gen3x16]
//                     [--networks DIR] [--save FILE] [--from FILE]
//
// SystemC elaborates once per process: one device per run. --save writes the programs and the
// RTL's figures; --from estimates such a file again without the RTL (to work on the model).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "calibration_cases.h"
#include "device/pcie_link.h"
#include "devices/devices_gen.h"
#include "isa/codec.h"
#include "isa/disassembler.h"
#include "recording_backend.h"
#include "runtime/device_backend.h"
#include "sc_models/model_device/timing_model.h"
#include "simulator/simulator.h"

// SystemC's library has its own main() calling sc_main(); this program keeps its own main()
// (the executable's wins) and defines sc_main only because the library refers to it.
extern "C" int sc_main(int, char**) { return 2; }

namespace tpu::bench {
namespace {

// The documented bound (docs/model_calibration.md): |model - RTL| / RTL in percent. The worst
// case's bound is the goal (10%) unless --worst-bound names the looser one a device is held to.
constexpr double kMedianBound = 5.0;
double worst_bound = 10.0;

const char* const kStallNames[] = {"weights", "act_in", "dma", "dep"};

struct Row {
  std::string label;
  std::vector<isa::Instr> program;
  int64_t rtl_cycles = 0;
  std::vector<int64_t> rtl_stalls;  // kStallNames order
};

int64_t StallOf(const std::vector<std::pair<std::string, int64_t>>& stalls,
                const std::string& name) {
  for (const auto& [n, v] : stalls) {
    if (n == name) return v;
  }
  return 0;
}

std::vector<Row> RunOnRtl(const devices::DeviceConfig& device, const device::PcieLink& link,
                          CaseSet set, const std::string& networks_dir) {
  tb::SimulatorOptions simulator;
  simulator.device = device.name;
  simulator.link = link;
  runtime::BackendOptions options;
  options.device = device.name;
  options.link = link;
  runtime::DeviceBackend rtl("rtl", tb::MakeSimulator(simulator), options);
  RecordingBackend recording(rtl, options);
  RunCalibrationCases(set, device.limits.n, networks_dir, recording);
  std::vector<Row> rows;
  for (const RecordedRun& run : recording.runs()) {
    Row row;
    row.label = run.label;
    row.program = run.program;
    row.rtl_cycles = run.stats.cycles.value_or(0);
    for (const char* s : kStallNames) row.rtl_stalls.push_back(StallOf(run.stats.stalls, s));
    rows.push_back(std::move(row));
  }
  return rows;
}

// One case per block: "case LABEL CYCLES STALLS..." then one line of 4 hex words per
// instruction, then "end".
void Save(const std::string& path, const std::vector<Row>& rows) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("--save: cannot write " + path);
  for (const Row& r : rows) {
    out << "case " << r.label << " " << r.rtl_cycles;
    for (int64_t s : r.rtl_stalls) out << " " << s;
    out << "\n";
    for (const isa::Instr& in : r.program) {
      const isa::Words w = isa::Encode(in);
      out << std::hex << w[0] << " " << w[1] << " " << w[2] << " " << w[3] << std::dec << "\n";
    }
    out << "end\n";
  }
}

std::vector<Row> Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("--from: cannot read " + path);
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream head(line);
    std::string word;
    head >> word;
    if (word != "case") throw std::runtime_error("--from " + path + ": expected 'case': " + line);
    Row r;
    head >> r.label >> r.rtl_cycles;
    for (int64_t s; head >> s;) r.rtl_stalls.push_back(s);
    while (std::getline(in, line) && line != "end") {
      std::istringstream words(line);
      isa::Words w{};
      for (uint32_t& x : w) words >> std::hex >> x;
      r.program.push_back(isa::Decode(w).instr);
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

// The program of the case named `label`, one instruction a line with its index.
int PrintProgram(const std::vector<Row>& rows, const std::string& label) {
  for (const Row& r : rows) {
    if (r.label != label) continue;
    for (size_t i = 0; i < r.program.size(); ++i) {
      std::printf("%5zu  %s\n", i, isa::Disassemble(r.program[i]).c_str());
    }
    return 0;
  }
  std::fprintf(stderr, "bench_calibration: --disassemble %s: no such case\n", label.c_str());
  return 2;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

int Report(const devices::DeviceConfig& device, const device::PcieLink& link,
           const std::vector<Row>& rows, bool check) {
  const sc::TimingModel model(device, link);
  std::printf("Timing model against the RTL: device %s (N = %lld), %s, %zu programs\n\n",
              device.name, static_cast<long long>(device.limits.n), link.ToString().c_str(),
              rows.size());
  std::printf("| case | device | instructions | RTL cycles | model cycles | error %% | RTL stalls "
              "w/a/d/dep | model stalls w/a/d/dep |\n|---|---|---|---|---|---|---|---|\n");
  std::vector<double> errors;
  std::string worst;
  double worst_error = 0;
  for (const Row& r : rows) {
    const sc::TimingEstimate e = model.Estimate(r.program);
    const double error =
        r.rtl_cycles > 0 ? 100.0 * (static_cast<double>(e.cycles) - r.rtl_cycles) / r.rtl_cycles
                         : 0.0;
    errors.push_back(std::fabs(error));
    if (std::fabs(error) > std::fabs(worst_error)) {
      worst_error = error;
      worst = r.label;
    }
    std::string rtl_stalls, model_stalls;
    for (size_t i = 0; i < std::size(kStallNames); ++i) {
      rtl_stalls += (i ? "/" : "") + std::to_string(i < r.rtl_stalls.size() ? r.rtl_stalls[i] : 0);
      int64_t m = 0;
      for (const auto& [name, v] : e.stalls) {
        if (name == kStallNames[i]) m = static_cast<int64_t>(v);
      }
      model_stalls += (i ? "/" : "") + std::to_string(m);
    }
    std::printf("| %s | %s | %zu | %lld | %llu | %+.2f | %s | %s |\n", r.label.c_str(),
                device.name, r.program.size(), static_cast<long long>(r.rtl_cycles),
                static_cast<unsigned long long>(e.cycles), error, rtl_stalls.c_str(),
                model_stalls.c_str());
  }
  const double median = Median(errors);
  std::printf("\n%s: median |error| %.2f%% (bound %.0f%%), worst %+.2f%% (%s; bound %.0f%%)\n",
              device.name, median, kMedianBound, worst_error, worst.c_str(), worst_bound);
  if (!check) return 0;
  bool ok = median <= kMedianBound;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (errors[i] > worst_bound) {
      std::printf("FAIL: %s: error %.2f%% beyond the %.0f%% bound\n", rows[i].label.c_str(),
                  errors[i], worst_bound);
      ok = false;
    }
  }
  if (median > kMedianBound) {
    std::printf("FAIL: median error %.2f%% beyond the %.0f%% bound\n", median, kMedianBound);
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace tpu::bench

int main(int argc, char** argv) {
  using namespace tpu;
  CLI::App app{"The timing model against the RTL: cycles per program, and the error"};
  std::string device_name = devices::kDefaultDevice, cases = "full", pcie = "gen3x16";
  std::string networks = TPU_CALIBRATION_NETWORKS, save, from, disassemble;
  bool check = false;
  app.add_option("--device", device_name, "device configuration (isa/devices.json)");
  app.add_option("--cases", cases, "short or full")->check(CLI::IsMember({"short", "full"}));
  app.add_option("--pcie", pcie, "link generation and width, genGxL");
  app.add_option("--networks", networks, "directory of the generated example networks");
  app.add_option("--save", save, "write the programs and the RTL's figures to this file");
  app.add_option("--from", from, "estimate the programs of a --save file (no RTL run)");
  app.add_option("--disassemble", disassemble,
                 "print this case's program (with --from) instead of the table");
  app.add_flag("--check", check, "exit 1 when an error leaves the documented bound");
  app.add_option("--worst-bound", bench::worst_bound, "bound of every case's |error|, percent")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    const devices::DeviceConfig* device = devices::FindDevice(device_name);
    if (device == nullptr) {
      std::cerr << "bench_calibration: --device " << device_name
                << ": not a configuration of isa/devices.json; use one of:";
      for (const devices::DeviceConfig& d : devices::kDevices) std::cerr << " " << d.name;
      std::cerr << "\n";
      return 2;
    }
    const device::PcieLink link = device::ParsePcieLink(pcie);
    const std::vector<bench::Row> rows =
        from.empty() ? bench::RunOnRtl(*device, link,
                                       cases == "short" ? bench::CaseSet::kShort
                                                        : bench::CaseSet::kFull,
                                       networks)
                     : bench::Load(from);
    if (!save.empty()) bench::Save(save, rows);
    if (!disassemble.empty()) return bench::PrintProgram(rows, disassemble);
    return bench::Report(*device, link, rows, check);
  } catch (const std::invalid_argument& e) {
    std::cerr << "bench_calibration: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "bench_calibration: " << e.what() << "\n";
    return 1;
  }
}
