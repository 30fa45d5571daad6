// `--backend model` on the built `tpu` binary, run as users run it: a dense layer checked
// against golden (its output file byte for byte golden's) with the report saying the timing is
// estimated, in text and JSON; the Fashion-MNIST example network (generated as
// examples/run.sh does) with --check and its intermediates in the UB; the model on a device
// with no Verilated build (v1); `tpu info`; and what the model refuses: --trace (no
// waveform) and gemm (int8 results only), exit status 2 with nothing written.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cli/tpu_binary.h"
#include "npy/npy.h"
#include "npy/scratch_dir.h"

namespace tpu::cli {
namespace {

using golden::Tensor;
using tpu::testing::Python;
using tpu::testing::ReadFile;
using tpu::testing::RunTpu;
using tpu::testing::ScratchDir;
using tpu::testing::TpuRun;

#define EXPECT_CONTAINS(text, part)                                                              \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "\"" << (part) << "\" not in:\n" \
                                                             << (text)

Tensor<int8_t> RandomInt8(std::vector<int64_t> shape, std::mt19937_64& rng) {
  Tensor<int8_t> t(std::move(shape));
  for (auto& v : t.data) v = static_cast<int8_t>(rng());
  return t;
}

class ModelCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(5);
    npy::Write(x_, RandomInt8({45, 70}, rng));
    npy::Write(w_, RandomInt8({70, 33}, rng));
  }
  std::string Dense(const std::string& backend, const std::string& out) const {
    return "dense --input " + x_ + " --weights " + w_ + " --scale 0.0004 --output " + out +
           " --backend " + backend;
  }

  ScratchDir dir_;
  const std::string x_ = dir_ / "x.npy", w_ = dir_ / "w.npy", y_ = dir_ / "y.npy";
};

TEST_F(ModelCli, DenseMatchesGoldenAndSaysTheTimingIsEstimated) {
  const std::string golden_y = dir_ / "g.npy";
  ASSERT_EQ(RunTpu(Dense("golden", golden_y), dir_).status, 0);
  const TpuRun run = RunTpu(Dense("model", y_) + " --check", dir_);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_CONTAINS(run.out, "on the model backend");
  EXPECT_CONTAINS(run.out, "PASS (");
  EXPECT_CONTAINS(run.out, "estimated by the model device's timing model (docs/model.md)");
  EXPECT_CONTAINS(run.out, "device cycles (queue running)");
  EXPECT_TRUE(ReadFile(y_) == ReadFile(golden_y));

  const TpuRun json = RunTpu(Dense("model", y_) + " --device v1 --report json", dir_);
  ASSERT_EQ(json.status, 0) << json.err;
  const std::string report = dir_.WriteFile("r.json", json.out);
  EXPECT_TRUE(Python(
      "import json,sys; r=json.load(open(sys.argv[1])); "
      "assert r['backend']=='model', r; assert 'estimated' in r['timing'], r; "
      "assert r['cycles']>0 and r['simulated_us']>0, r; assert r['device'].startswith('v1'), r",
      report));
}

TEST_F(ModelCli, TraceIsRefused) {
  const TpuRun run = RunTpu(Dense("model", y_) + " --trace " + (dir_ / "x.fst"), dir_);
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_CONTAINS(run.err, "--trace");
  EXPECT_CONTAINS(run.err, "the model backend writes no waveform");
  EXPECT_TRUE(ReadFile(y_).empty());
  EXPECT_TRUE(ReadFile(dir_ / "x.fst").empty());
}

TEST(ModelCliOther, GemmIsRefusedLikeRtl) {
  ScratchDir dir;
  const TpuRun run = RunTpu("gemm --m 8 --k 8 --n 8 --backend model", dir);
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_CONTAINS(run.err, "--backend model: the device returns int8 results only");
}

TEST(ModelCliOther, InfoListsTheModelForEveryDevice) {
  ScratchDir dir;
  for (const char* device : {"n16", "v1"}) {
    const TpuRun run = RunTpu(std::string("info --device ") + device, dir);
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_CONTAINS(run.out, "backend model");
    EXPECT_CONTAINS(run.out, "available (the model device");
  }
  const TpuRun list = RunTpu("info --devices", dir);
  EXPECT_CONTAINS(list.out, "model: yes");
}

// The example network as examples/run.sh makes it, on the model: bit-exact with golden
// (--check) with its intermediates in the UB.
TEST(ModelCliOther, FashionMnistExampleChecks) {
  ScratchDir dir;
  const std::string net = dir / "net";
  const std::string make = std::string("'") + TPU_PYTHON + "' '" + TPU_SOURCE_DIR +
                           "/examples/fashion_mnist_cnn/make_network.py' '" + net + "' >/dev/null";
  ASSERT_EQ(std::system(make.c_str()), 0) << make;
  const TpuRun run = RunTpu("run " + net + "/net.json --input " + net + "/x.npy --output " +
                                (dir / "y.npy") + " --backend model --check",
                            dir);
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_CONTAINS(run.out, "on the model backend");
  EXPECT_CONTAINS(run.out, "intermediate tensors stay in the UB");
  EXPECT_CONTAINS(run.out, "PASS");
  EXPECT_CONTAINS(run.out, "estimated by the model device's timing model");
}

}  // namespace
}  // namespace tpu::cli
