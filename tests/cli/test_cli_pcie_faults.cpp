// `--pcie-faults` on the built `tpu` binary (docs/cli.md, docs/pcie_link.md section 8): a small
// dense layer on the rtl backend under faults in both directions is bit-exact against golden and
// reports each direction's data link layer counters with 0 lost, the same in JSON; the same seed
// gives the same counters; malformed specs and the golden/model backends are refused with exit
// status 2, a message naming what was wrong and the accepted form, and nothing written.
// Completion faults (cpl_*) are recovered by the driver's retries and reported; a persistent
// one exits 1 naming the layer.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cli/tpu_binary.h"
#include "golden/tensor.h"
#include "npy/npy.h"
#include "npy/scratch_dir.h"

namespace tpu::cli {
namespace {

using golden::Tensor;
using tpu::testing::ReadFile;
using tpu::testing::RunTpu;
using tpu::testing::ScratchDir;
using tpu::testing::TpuRun;

// Faults often enough that a small layer (a few hundred TLPs each way) sees several.
constexpr const char* kFaults = "tlp_corrupt=0.03,tlp_drop=0.01,dllp_corrupt=0.03,dllp_drop=0.01";
// A seed whose cpl_ca=0.02 draws fail at least one run of the dense layer below.
constexpr const char* kCplSeed = "1";

class PcieFaultsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(5);
    Tensor<int8_t> x({64, 128}), w({128, 64});
    for (auto& v : x.data) v = static_cast<int8_t>(rng());
    for (auto& v : w.data) v = static_cast<int8_t>(rng());
    npy::Write(x_, x);
    npy::Write(w_, w);
  }
  std::string Dense(const std::string& output) const {
    return "dense --input " + x_ + " --weights " + w_ + " --scale 0.002 --output " + output;
  }
  void ExpectRefused(const std::string& args, const std::vector<std::string>& parts) {
    const TpuRun run = RunTpu(args, dir_);
    EXPECT_EQ(run.status, 2) << "tpu " << args << "\nstdout: " << run.out << "\nstderr: " << run.err;
    for (const auto& part : parts) {
      EXPECT_NE(run.err.find(part), std::string::npos)
          << "tpu " << args << "\nstderr: " << run.err << "\nexpected to contain: " << part;
    }
    EXPECT_TRUE(ReadFile(y_).empty()) << "an output was written for: tpu " << args;
  }

  ScratchDir dir_;
  std::string x_ = dir_ / "x.npy", w_ = dir_ / "w.npy", y_ = dir_ / "y.npy";
};

// The counters of one direction in a JSON report.
uint64_t Counter(const nlohmann::json& r, const std::string& direction, const std::string& name) {
  return r.at("pcie_" + direction + "_" + name).get<uint64_t>();
}

TEST_F(PcieFaultsCli, DenseOnRtlUnderFaultsIsBitExactWithCountersAndNothingLost) {
  const std::string golden_y = dir_ / "g.npy";
  ASSERT_EQ(RunTpu(Dense(golden_y), dir_).status, 0);
  const TpuRun text = RunTpu(Dense(y_) + " --backend rtl --check --pcie-faults " +
                                 std::string(kFaults) + ",seed=7",
                             dir_);
  ASSERT_EQ(text.status, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("PASS ("), std::string::npos) << text.out;
  EXPECT_EQ(ReadFile(y_), ReadFile(golden_y));
  for (const char* line :
       {"PCIe faults injected", "tlp_corrupt=0.03,tlp_drop=0.01,dllp_corrupt=0.03,dllp_drop=0.01,"
                                "seed=7",
        "PCIe host -> device: TLPs sent", "PCIe host -> device: TLPs replayed",
        "PCIe device -> host: NAKs", "PCIe device -> host: replay timeouts",
        "PCIe device -> host: link retrainings", "PCIe host -> device: ACK/NAK DLLPs dropped",
        "PCIe device -> host: TLPs lost (must be 0)"}) {
    EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
  }

  const TpuRun json = RunTpu(Dense(dir_ / "y2.npy") + " --backend rtl --report json "
                                                      "--pcie-faults " +
                                 std::string(kFaults) + ",seed=7",
                             dir_);
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json r = nlohmann::json::parse(json.out);
  EXPECT_EQ(ReadFile(dir_ / "y2.npy"), ReadFile(golden_y));
  for (const std::string d : {"host_to_device", "device_to_host"}) {
    EXPECT_GT(Counter(r, d, "tlps_sent"), 50u) << d;
    EXPECT_GT(Counter(r, d, "tlps_corrupted") + Counter(r, d, "tlps_dropped"), 0u) << d;
    EXPECT_GT(Counter(r, d, "tlps_replayed"), 0u) << d;
    EXPECT_EQ(Counter(r, d, "lost"), 0u) << d;
  }
  // The same seed, the same faults: the text run's figures again.
  for (const std::string d : {"host_to_device", "device_to_host"}) {
    const std::string label = d == "host_to_device" ? "PCIe host -> device: TLPs replayed"
                                                    : "PCIe device -> host: TLPs replayed";
    const size_t at = text.out.find(label);
    ASSERT_NE(at, std::string::npos);
    const std::string rest = text.out.substr(at + label.size());
    EXPECT_EQ(std::stoull(rest), Counter(r, d, "tlps_replayed")) << d;
  }
}

TEST_F(PcieFaultsCli, NoFaultsKeepTheCycles) {
  // Probabilities of 0: the data link layer runs, nothing fails, the figures are a clean run's.
  const TpuRun clean = RunTpu(Dense(y_) + " --backend rtl --report json", dir_);
  const TpuRun zero = RunTpu(Dense(dir_ / "y2.npy") +
                                 " --backend rtl --report json --pcie-faults tlp_corrupt=0,seed=3",
                             dir_);
  ASSERT_EQ(clean.status, 0) << clean.err;
  ASSERT_EQ(zero.status, 0) << zero.err;
  const nlohmann::json a = nlohmann::json::parse(clean.out), b = nlohmann::json::parse(zero.out);
  EXPECT_EQ(a.at("cycles"), b.at("cycles"));
  EXPECT_EQ(a.at("simulated_us"), b.at("simulated_us"));
  EXPECT_FALSE(a.contains("pcie_faults"));  // no counters without --pcie-faults
  EXPECT_EQ(Counter(b, "host_to_device", "tlps_replayed"), 0u);
  EXPECT_EQ(Counter(b, "device_to_host", "naks"), 0u);
}

// Completion faults (cpl_*): the root complex answers some device reads with CA; each failed
// run is soft-reset and rerun (--retries), the result is bit-exact and the report lists the
// errors recovered, in text and in JSON.
TEST_F(PcieFaultsCli, CompletionFaultsAreRecoveredByRetriesAndReported) {
  const std::string golden_y = dir_ / "g.npy";
  ASSERT_EQ(RunTpu(Dense(golden_y), dir_).status, 0);
  const std::string faults = " --backend rtl --check --retries 6 --pcie-faults cpl_ca=0.02,seed=";
  const TpuRun text = RunTpu(Dense(y_) + faults + kCplSeed, dir_);
  ASSERT_EQ(text.status, 0) << text.out << text.err;
  EXPECT_EQ(ReadFile(y_), ReadFile(golden_y));
  for (const char* line : {"device errors recovered (soft reset, rerun)",
                           "what the failed runs reported", "CA on ", "cpl_ca=0.02"}) {
    EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
  }
  const TpuRun json = RunTpu(Dense(dir_ / "y2.npy") + faults + kCplSeed + " --report json", dir_);
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json r = nlohmann::json::parse(json.out);
  EXPECT_GE(r.at("retries").get<int>(), 1);
  EXPECT_NE(r.at("recovered_errors").get<std::string>().find("CA on "), std::string::npos);
  EXPECT_EQ(ReadFile(dir_ / "y2.npy"), ReadFile(golden_y));
  // Without faults nothing is retried and the report has no such lines.
  const TpuRun clean = RunTpu(Dense(dir_ / "y3.npy") + " --backend rtl", dir_);
  ASSERT_EQ(clean.status, 0) << clean.err;
  EXPECT_EQ(clean.out.find("device errors recovered"), std::string::npos) << clean.out;
}

// A fault that does not go away: every allowed run fails, `tpu run` exits 1 naming the layer,
// the cause and the retry policy, and writes no output.
TEST_F(PcieFaultsCli, PersistentCompletionFaultsExitOneNamingTheLayer) {
  {
    std::ofstream net(dir_ / "net.json");
    net << R"({"input": {"shape": [64, 128]}, "layers": [{"type": "dense", "name": "fc1",)"
        << R"( "weights": ")" << w_
        << R"(", "requant": {"multiplier": 1073741824, "shift": -8}}]})";
  }
  const TpuRun run =
      RunTpu("run " + (dir_ / "net.json") + " --input " + x_ + " --output " + y_ +
                 " --backend rtl --retries 1 --pcie-faults cpl_ur=0.5,seed=3",
             dir_);
  EXPECT_EQ(run.status, 1) << run.out << run.err;
  for (const char* part : {"layers[0] (dense \"fc1\")", "UR on ", "the program failed 2 times",
                           "the retry policy allows 1 rerun"}) {
    EXPECT_NE(run.err.find(part), std::string::npos) << part << "\n" << run.err;
  }
  EXPECT_TRUE(ReadFile(y_).empty());
  ExpectRefused(Dense(y_) + " --backend rtl --retries -1", {"--retries"});
}

TEST_F(PcieFaultsCli, MalformedSpecsAreRefusedNamingTheKeyOrValue) {
  const std::string form = "KEY=VALUE[,KEY=VALUE...] with KEY in tlp_corrupt, tlp_drop";
  const std::string layer = Dense(y_) + " --backend rtl --pcie-faults ";
  ExpectRefused(layer + "tlp_corupt=1e-3", {"--pcie-faults", "unknown key 'tlp_corupt'", form});
  ExpectRefused(layer + "tlp_drop=2", {"tlp_drop=2", "a probability is a number from 0 to 0.5"});
  ExpectRefused(layer + "tlp_drop=-1e-3", {"tlp_drop=-1e-3", "0 to 0.5"});
  ExpectRefused(layer + "tlp_drop=abc", {"tlp_drop=abc", form});
  ExpectRefused(layer + "tlp_drop=", {"tlp_drop=", form});
  ExpectRefused(layer + "seed=1.5", {"seed=1.5", "whole number"});
  ExpectRefused(layer + "tlp_drop", {"'tlp_drop' is not KEY=VALUE", form});
  ExpectRefused(layer + "tlp_drop=0.1,tlp_drop=0.2", {"'tlp_drop' is given twice"});
  ExpectRefused(layer + "tlp_drop=0.1,", {"ends with a comma"});
  ExpectRefused(layer + "''", {"is empty", form});
  ExpectRefused(layer + "cpl_ur=0.3,cpl_ca=0.3",
                {"cpl_ur + cpl_ca + cpl_poison + cpl_drop is above 0.5"});
  ExpectRefused(layer + "cpl_drop=0.6", {"cpl_drop=0.6", "0 to 0.5"});
}

TEST_F(PcieFaultsCli, GoldenAndModelBackendsRefuseFaults) {
  for (const std::string backend : {"golden", "model"}) {
    ExpectRefused(Dense(y_) + " --backend " + backend + " --pcie-faults tlp_drop=1e-3",
                  {"--pcie-faults needs --backend rtl"});
  }
  // Every command that takes a backend takes the option.
  for (const std::string command : {"conv2d", "pool", "activation", "gemm", "run"}) {
    const TpuRun help = RunTpu(command + " --help", dir_);
    EXPECT_NE(help.out.find("--pcie-faults"), std::string::npos) << command;
  }
  ExpectRefused("gemm --m 4 --k 4 --n 4 --backend golden --pcie-faults seed=1",
                {"--pcie-faults needs --backend rtl"});
}

}  // namespace
}  // namespace tpu::cli
