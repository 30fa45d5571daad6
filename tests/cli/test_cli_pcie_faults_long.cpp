// The goals of docs/pcie_link.md section 8 on the built `tpu` binary (label long): a 1024^3
// dense layer and the deep CNN example on the rtl backend are bit-exact against golden under 1%
// TLP corruption and 0.1% TLP drops (and as many DLLP faults) in both directions, with faults,
// NAKs and replays counted in each direction and nothing lost. Each also runs without faults;
// the figures (cycles and simulated time with and without faults, replay share of the link) are
// printed for the docs.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

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

constexpr const char* kGoalFaults =
    "tlp_corrupt=1e-2,tlp_drop=1e-3,dllp_corrupt=1e-2,dllp_drop=1e-3,seed=7";

// Every direction saw faults and recovered from them; nothing was lost.
void ExpectRecovered(const nlohmann::json& link) {
  for (const std::string d : {"host_to_device", "device_to_host"}) {
    const nlohmann::json& c = link.at(d);
    EXPECT_GT(c.at("tlps_corrupted").get<uint64_t>(), 0u) << d << ": " << c;
    EXPECT_GT(c.at("naks").get<uint64_t>(), 0u) << d << ": " << c;
    EXPECT_GT(c.at("tlps_replayed").get<uint64_t>(), 0u) << d << ": " << c;
    EXPECT_EQ(c.at("lost").get<uint64_t>(), 0u) << d << ": " << c;
  }
}

nlohmann::json LinkOfLayer(const nlohmann::json& r) {
  nlohmann::json link;
  for (const std::string d : {"host_to_device", "device_to_host"}) {
    for (const std::string c : {"tlps_sent", "tlps_corrupted", "tlps_dropped", "naks",
                                "tlps_replayed", "replay_timeouts", "retrains", "dllps_corrupted",
                                "dllps_dropped", "lost"}) {
      link[d][c] = r.at("pcie_" + d + "_" + c);
    }
  }
  return link;
}

void Print(const std::string& what, const nlohmann::json& clean, const nlohmann::json& faulty,
           const nlohmann::json& link, const char* cycles_key, const char* us_key) {
  const double c0 = clean.at(cycles_key).get<double>(), c1 = faulty.at(cycles_key).get<double>();
  const double t0 = clean.at(us_key).get<double>(), t1 = faulty.at(us_key).get<double>();
  std::printf("%s: cycles %.0f clean, %.0f with faults (%+.2f%%); simulated %.3f us clean, %.3f "
              "us with faults (%+.2f%%)\n  link: %s\n",
              what.c_str(), c0, c1, 100 * (c1 / c0 - 1), t0, t1, 100 * (t1 / t0 - 1),
              link.dump().c_str());
}

TEST(PcieFaultsLong, Dense1024CubedIsBitExactUnderGoalFaults) {
  ScratchDir dir;
  const std::string x = dir / "x.npy", w = dir / "w.npy";
  std::mt19937_64 rng(11);
  Tensor<int8_t> xt({1024, 1024}), wt({1024, 1024});
  for (auto& v : xt.data) v = static_cast<int8_t>(rng());
  for (auto& v : wt.data) v = static_cast<int8_t>(rng());
  npy::Write(x, xt);
  npy::Write(w, wt);
  const std::string layer = "dense --input " + x + " --weights " + w +
                            " --scale 0.0005 --activation relu --backend rtl --check --report "
                            "json --output ";
  const TpuRun clean = RunTpu(layer + (dir / "clean.npy"), dir);
  ASSERT_EQ(clean.status, 0) << clean.err;
  const TpuRun faulty = RunTpu(layer + (dir / "y.npy") + " --pcie-faults " + kGoalFaults, dir);
  ASSERT_EQ(faulty.status, 0) << faulty.err;
  EXPECT_EQ(ReadFile(dir / "y.npy"), ReadFile(dir / "clean.npy"));
  const nlohmann::json c = nlohmann::json::parse(clean.out), f = nlohmann::json::parse(faulty.out);
  EXPECT_EQ(f.at("check").get<std::string>().rfind("PASS", 0), 0u) << f.at("check");
  EXPECT_EQ(f.at("output_checksum"), c.at("output_checksum"));
  const nlohmann::json link = LinkOfLayer(f);
  ExpectRecovered(link);
  Print("dense 1024^3", c, f, link, "cycles", "simulated_us");
}

TEST(PcieFaultsLong, DeepCnnIsBitExactUnderGoalFaults) {
  ScratchDir dir;
  const std::string gen = std::string("'") + TPU_PYTHON + "' '" + TPU_SOURCE_DIR +
                          "/examples/deep_cnn/make_network.py' '" + std::string(dir / "net") +
                          "' >/dev/null";
  ASSERT_EQ(std::system(gen.c_str()), 0) << gen;
  const std::string net = dir / "net";
  const std::string run = "run " + net + "/net.json --input " + net +
                          "/x.npy --backend rtl --check --report json --output ";
  const TpuRun clean = RunTpu(run + (dir / "clean.npy"), dir);
  ASSERT_EQ(clean.status, 0) << clean.err;
  const TpuRun faulty = RunTpu(run + (dir / "y.npy") + " --pcie-faults " + kGoalFaults, dir);
  ASSERT_EQ(faulty.status, 0) << faulty.err;
  EXPECT_EQ(ReadFile(dir / "y.npy"), ReadFile(dir / "clean.npy"));
  const nlohmann::json c = nlohmann::json::parse(clean.out), f = nlohmann::json::parse(faulty.out);
  EXPECT_EQ(f.at("check").get<std::string>().rfind("PASS", 0), 0u) << f.at("check");
  ExpectRecovered(f.at("pcie_link"));
  Print("deep CNN", c.at("totals"), f.at("totals"), f.at("pcie_link"), "cycles", "simulated_us");
}

}  // namespace
}  // namespace tpu::cli
