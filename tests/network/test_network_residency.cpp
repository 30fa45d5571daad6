// Intermediate tensors that stay in the UB between a network's layers (docs/networks.md
// "Residency"): the lowerings' resident input and output (LoweringOptions input_in_ub /
// output_ub) on the ISA reference machine, the runner's plan (which tensors stay, which fall
// back to the host and why), and whole networks on the machine, bit-exact with golden and with
// fewer PCIe bytes than with every tensor through the host.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compiler/dense_images.h"
#include "compiler/dense_lowering.h"
#include "compiler/layers.h"
#include "golden/dense.h"
#include "golden/pool.h"
#include "model_backend.h"
#include "network/network.h"
#include "network/network_run.h"
#include "network_testing.h"

namespace tpu::network {
namespace {

using golden::Tensor;
using testing::ModelBackend;
using testing::RandomInt32;
using testing::RandomInt8;
using tpu::testing::ScratchDir;

constexpr compiler::HostRegion kRegion{uint64_t{1} << 32, uint64_t{1} << 28};

// Puts x, viewed as (rows, C), into the machine's UB as a resident tensor from row `ub`.
void Preload(model::Machine& machine, const Tensor<int8_t>& x, int64_t ub) {
  const int64_t c = x.shape.back();
  const Tensor<int8_t> flat({x.NumElements() / c, c}, x.data);
  const std::vector<uint8_t> bytes = compiler::SliceImage(flat, machine.n());
  for (size_t i = 0; i < bytes.size(); ++i) {
    machine.ub_row(ub + int64_t(i) / machine.n())[i % size_t(machine.n())] = bytes[i];
  }
}

// Reads a resident (rows, C) tensor back from the UB.
Tensor<int8_t> ReadUb(const model::Machine& machine, const compiler::UbTensor& t,
                      const std::vector<int64_t>& shape) {
  const int64_t n = machine.n();
  Tensor<int8_t> y({t.m, t.channels});
  for (int64_t r = 0; r < t.m; ++r) {
    for (int64_t c = 0; c < t.channels; ++c) {
      y.data[size_t(r * t.channels + c)] = int8_t(machine.ub_row(t.ub + (c / n) * t.m + r)[c % n]);
    }
  }
  y.shape = shape;
  return y;
}

// Runs a lowered program on the machine (images placed first); returns the host result if any.
Tensor<int8_t> RunOn(model::Machine& machine, const compiler::DenseProgram& p) {
  for (const auto& image : p.images) machine.host().Write(image.address, image.bytes);
  const model::RunResult r = machine.Run(p.instrs);
  EXPECT_TRUE(r.halted()) << model::ToString(r);
  if (p.ub_output) return {};
  return compiler::ExtractLayerOutput(
      p, [&](uint64_t a, uint64_t length) { return machine.host().Read(a, length); });
}

int CountReadHostUb(const compiler::DenseProgram& p) {
  int count = 0;
  for (const auto& instr : p.instrs) {
    const auto* rh = std::get_if<isa::ReadHost>(&instr);
    if (rh && rh->target == isa::Target::kUb) ++count;
  }
  return count;
}

int CountWriteHost(const compiler::DenseProgram& p) {
  int count = 0;
  for (const auto& instr : p.instrs) count += std::holds_alternative<isa::WriteHost>(instr);
  return count;
}

// ---------------------------------------------------------------------------------------------
// Lowerings with a resident input and output.

TEST(ResidentLowering, ActivationReadsAndWritesTheUb) {
  std::mt19937 rng(3);
  const Tensor<int8_t> x = RandomInt8({2, 5, 7, 37}, rng);  // 70 rows, 3 channel tiles
  compiler::ActivationLayer relu6;
  relu6.act_min = 0;
  relu6.act_max = 6;
  model::Machine machine(isa::DeviceLimits{});
  Preload(machine, x, 4000 - 3 * 70);
  compiler::LoweringOptions options;
  options.ub_end = 3000;
  options.input_in_ub = compiler::UbTensor{4000 - 3 * 70, 70, 37};
  options.output_ub = 0;
  options.max_chunk_rows = 16;  // several groups
  options.ub_begin = 3 * 70;
  const compiler::DenseProgram p = compiler::LowerActivation(x, relu6, machine.limits(), kRegion,
                                                           options);
  EXPECT_EQ(CountReadHostUb(p), 0);
  EXPECT_EQ(CountWriteHost(p), 0);
  ASSERT_TRUE(p.ub_output.has_value());
  EXPECT_EQ(p.ub_output->ub, 0);
  RunOn(machine, p);
  Tensor<int8_t> want = x;
  for (int8_t& v : want.data) v = int8_t(std::clamp<int>(v, 0, 6));
  EXPECT_EQ(ReadUb(machine, *p.ub_output, x.shape).data, want.data);
}

TEST(ResidentLowering, MaxPoolFromTheUbToTheHostAndBack) {
  std::mt19937 rng(4);
  const Tensor<int8_t> x = RandomInt8({2, 6, 6, 20}, rng);  // 72 rows, 2 channel tiles
  compiler::PoolLayer pool;
  pool.params.window_h = pool.params.window_w = pool.params.stride_h = pool.params.stride_w = 2;
  model::Machine machine(isa::DeviceLimits{});
  Preload(machine, x, 100);
  compiler::LoweringOptions in_ub;
  in_ub.ub_begin = 300;
  in_ub.input_in_ub = compiler::UbTensor{100, 72, 20};
  const compiler::DenseProgram to_host =
      compiler::LowerPool(x, pool, machine.limits(), kRegion, in_ub);
  EXPECT_EQ(CountReadHostUb(to_host), 0);
  const Tensor<int8_t> want = golden::MaxPool2d(x, pool.params);
  EXPECT_EQ(RunOn(machine, to_host).data, want.data);

  // The same pool from the host into the UB.
  compiler::LoweringOptions out_ub;
  out_ub.ub_begin = 300;
  out_ub.ub_end = 4000;
  out_ub.output_ub = 4096 - 2 * 18;
  const compiler::DenseProgram to_ub =
      compiler::LowerPool(x, pool, machine.limits(), kRegion, out_ub);
  EXPECT_EQ(CountWriteHost(to_ub), 0);
  RunOn(machine, to_ub);
  EXPECT_EQ(ReadUb(machine, *to_ub.ub_output, want.shape).data, want.data);
}

// A dense layer of random weights and bias (K x 20) with these zero points and scale.
compiler::DenseLayer RandomFc(std::mt19937& rng, int64_t k, int32_t zx, double scale, int32_t zy) {
  compiler::DenseLayer fc;
  fc.weights = RandomInt8({k, 20}, rng);
  fc.bias = RandomInt32({20}, rng, -3000, 3000).data;
  fc.input_zero_point = zx;
  fc.requant.multipliers = {golden::QuantizeMultiplier(scale)};
  fc.requant.out_zero_point = zy;
  return fc;
}

TEST(ResidentLowering, DenseReadsAFlattenedImageAndLeavesItsOutput) {
  std::mt19937 rng(5);
  const Tensor<int8_t> image = RandomInt8({1, 3, 3, 32}, rng);  // 9 rows, 2 channel tiles
  const compiler::DenseLayer fc = RandomFc(rng, 288, -3, 0.003, 2);
  model::Machine machine(isa::DeviceLimits{});
  Preload(machine, image, 0);
  compiler::LoweringOptions options;
  options.ub_begin = 18;
  options.ub_end = 4000;
  options.input_in_ub = compiler::UbTensor{0, 9, 32};
  options.output_ub = 4000;
  const Tensor<int8_t> x({1, 288}, image.data);
  const compiler::DenseProgram p = compiler::LowerDense(x, fc, machine.limits(), kRegion, options);
  EXPECT_EQ(CountReadHostUb(p), 0);
  EXPECT_EQ(CountWriteHost(p), 0);
  RunOn(machine, p);
  const Tensor<int8_t> want = golden::Dense(x, fc.weights, fc.bias, -3, fc.requant);
  EXPECT_EQ(ReadUb(machine, *p.ub_output, {1, 20}).data, want.data);
}

// A flattened batch (B, H, W, C): each K tile's B rows lie H * W apart, read by windowed
// MATMULs. At the top of the UB, H * W - 1 rows below UB_ROWS (the window's range rule), and in
// chunks of 2 rows (y0 = 0, 2, 4), with its output through the host.
TEST(ResidentLowering, DenseReadsAFlattenedBatchAtTheTopOfTheUb) {
  std::mt19937 rng(6);
  const Tensor<int8_t> images = RandomInt8({5, 2, 3, 32}, rng);  // 30 rows, 2 channel tiles
  const compiler::DenseLayer fc = RandomFc(rng, 192, 4, 0.002, -1);
  model::Machine machine(isa::DeviceLimits{});
  const compiler::UbTensor in{0, 30, 32};
  EXPECT_EQ(compiler::ResidentInputSlack(in, 5), 5);  // H * W - 1
  EXPECT_EQ(compiler::ResidentInputSlack(in, 30), 0);  // (M, K) itself
  EXPECT_EQ(compiler::ResidentInputSlack(compiler::UbTensor{0, 6, 32}, 1), 0);
  const int64_t top = 4096 - in.Rows(16) - 5;
  Preload(machine, images, top);
  compiler::LoweringOptions options;
  options.ub_end = top;
  options.input_in_ub = compiler::UbTensor{top, 30, 32};
  options.max_chunk_rows = 2;
  const Tensor<int8_t> x({5, 192}, images.data);
  const compiler::DenseProgram p = compiler::LowerDense(x, fc, machine.limits(), kRegion, options);
  EXPECT_EQ(CountReadHostUb(p), 0);
  int windows = 0;
  for (const auto& instr : p.instrs) {
    const auto* mm = std::get_if<isa::Matmul>(&instr);
    if (!mm) continue;
    ASSERT_TRUE(mm->window);
    EXPECT_EQ(mm->image_w, 6u);
    EXPECT_EQ(mm->image_h, 5u);
    EXPECT_EQ(mm->out_w, 1u);
    EXPECT_TRUE(mm->y0 == 0 || mm->y0 == 2 || mm->y0 == 4) << mm->y0;
    ++windows;
  }
  EXPECT_EQ(windows, 3 * 12 * 2);  // 3 chunks x 12 K tiles x 2 output tiles
  const Tensor<int8_t> want = golden::Dense(x, fc.weights, fc.bias, 4, fc.requant);
  EXPECT_EQ(RunOn(machine, p).data, want.data);

  // One row higher, the last K tile's window would reach past UB_ROWS.
  options.ub_end = top + 1;
  options.input_in_ub->ub = top + 1;
  try {
    compiler::LowerDense(x, fc, machine.limits(), kRegion, options);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("place it at least that many rows lower"),
              std::string::npos)
        << e.what();
  }
}

TEST(ResidentLowering, RejectsWhatItCannotReadInPlace) {
  compiler::DenseLayer fc;
  fc.weights = Tensor<int8_t>({40, 3});
  fc.requant.multipliers = {golden::QuantizeMultiplier(0.01)};
  const isa::DeviceLimits limits;
  // A flattened batch of 2 images: 255 pixels fit a window's width, 256 do not.
  for (const int64_t pixels : {255, 256}) {
    compiler::DenseLayer wide;
    wide.weights = Tensor<int8_t>({pixels * 16, 3});
    wide.requant.multipliers = {golden::QuantizeMultiplier(0.01)};
    compiler::LoweringOptions batch2;
    batch2.ub_begin = 600;
    batch2.input_in_ub = compiler::UbTensor{0, 2 * pixels, 16};
    const Tensor<int8_t> x({2, pixels * 16});
    if (pixels == 255) {
      EXPECT_NO_THROW(compiler::LowerDense(x, wide, limits, kRegion, batch2));
    } else {
      EXPECT_THROW(compiler::LowerDense(x, wide, limits, kRegion, batch2), std::invalid_argument);
    }
  }
  compiler::LoweringOptions odd;  // C = 10 is not a multiple of N
  odd.ub_begin = 100;
  odd.input_in_ub = compiler::UbTensor{0, 4, 10};
  EXPECT_THROW(compiler::LowerDense(Tensor<int8_t>({1, 40}), fc, limits, kRegion, odd),
               std::invalid_argument);
  compiler::LoweringOptions overlap;  // the input inside the work rows
  overlap.input_in_ub = compiler::UbTensor{0, 2, 40};
  EXPECT_THROW(compiler::LowerDense(Tensor<int8_t>({2, 40}), fc, limits, kRegion, overlap),
               std::invalid_argument);
  compiler::LoweringOptions out;  // the output inside the work rows
  out.output_ub = 5;
  EXPECT_THROW(compiler::LowerActivation(Tensor<int8_t>({2, 40}), {}, limits, kRegion, out),
               std::invalid_argument);
  compiler::LoweringOptions chained;
  chained.ub_begin = 10;
  chained.output_ub = 0;
  EXPECT_THROW(compiler::LowerDenseChain(Tensor<int8_t>({2, 40}), fc, fc, limits, kRegion,
                                        chained),
               std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Networks.

TEST(ResidencyPlan, SingleImageNetworkKeepsEveryIntermediate) {
  ScratchDir dir;
  const Network net = LoadNetwork(testing::WriteImageNetwork(dir));
  const isa::DeviceLimits limits;
  const ResidencyPlan plan = PlanResidency(net, limits);
  ASSERT_EQ(plan.layers.size(), 5u);
  EXPECT_EQ(plan.ub_tensors, 3);
  const Residence ub = Residence::kUb, host = Residence::kHost;
  const std::vector<std::pair<Residence, Residence>> want = {
      {host, ub}, {ub, ub}, {ub, ub}, {ub, ub}, {ub, host}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(plan.layers[i].input, want[i].first) << i;
    EXPECT_EQ(plan.layers[i].output, want[i].second) << i;
  }
  // Ping-pong: conv's output at row 0, pool's at the top, relu's at row 0 again.
  EXPECT_EQ(plan.layers[0].output_ub->ub, 0);
  EXPECT_EQ(plan.layers[1].output_ub->ub + plan.layers[1].output_ub->Rows(16), 4096);
  EXPECT_EQ(plan.layers[2].output_ub->ub, 0);
  EXPECT_EQ(plan.layers[1].ub_begin, 36);  // above conv's 36 rows, below pool's 9
  EXPECT_EQ(plan.layers[1].ub_end, 4096 - 9);
  // --check-layers: everything through the host.
  const ResidencyPlan all_host = PlanResidency(net, limits, false);
  EXPECT_EQ(all_host.ub_tensors, 0);
  for (const auto& r : all_host.layers) EXPECT_EQ(r.output, host);
  EXPECT_EQ(all_host.layers[0].fallback, "--check-layers");
}

// A flattened batch of 3 stays for the dense layer: with the relu at row 0; without it, the
// pool's output (3 x 9 rows) at the top of the UB, 8 rows lower for the dense layer's windows
// (H * W - 1 rows past the tensor).
TEST(ResidencyPlan, FlattenedBatchStaysForTheDenseLayer) {
  for (const bool relu : {true, false}) {
    ScratchDir dir;
    const Network net = LoadNetwork(testing::WriteImageNetwork(dir, 3, 2, relu));
    const ResidencyPlan plan = PlanResidency(net, isa::DeviceLimits{});
    const size_t dense = relu ? 4 : 3;
    EXPECT_EQ(plan.ub_tensors, relu ? 3 : 2);
    for (size_t i = 0; i + 1 < dense; ++i) {
      EXPECT_EQ(plan.layers[i].output, Residence::kUb) << i << " " << plan.layers[i].fallback;
    }
    EXPECT_EQ(plan.layers[dense].input, Residence::kUb);
    EXPECT_EQ(plan.layers[dense].output, Residence::kHost);
    const compiler::UbTensor& in = *plan.layers[dense].input_ub;
    EXPECT_EQ(in.ub, relu ? 0 : 4096 - 27 - 8);
  }
}

TEST(ResidencyPlan, FallsBackWhereALayerCannotReadOrTheUbIsFull) {
  ScratchDir dir;
  const Network net = LoadNetwork(testing::WriteSmallNetwork(dir));
  // conv -> pool -> lut -> flatten -> dense (a flattened batch of C = 5 channels, not a
  // multiple of N: the dense layer cannot read it in place) -> relu.
  const ResidencyPlan plan = PlanResidency(net, isa::DeviceLimits{});
  EXPECT_EQ(plan.ub_tensors, 3);
  EXPECT_EQ(plan.layers[0].output, Residence::kUb);
  EXPECT_EQ(plan.layers[1].output, Residence::kUb);
  EXPECT_EQ(plan.layers[2].output, Residence::kHost);  // read by the dense layer after flatten
  EXPECT_NE(plan.layers[2].fallback.find("flattened"), std::string::npos)
      << plan.layers[2].fallback;
  EXPECT_EQ(plan.layers[3].input, Residence::kHost);
  EXPECT_EQ(plan.layers[4].output, Residence::kUb);  // dense -> relu
  EXPECT_EQ(plan.layers[5].output, Residence::kHost);  // the network's output
  EXPECT_TRUE(plan.layers[5].fallback.empty());

  // A small UB: conv's output (72 rows) does not fit; dense's (2 rows) does.
  isa::DeviceLimits small;
  small.ub_rows = 64;
  const ResidencyPlan tight = PlanResidency(net, small);
  EXPECT_EQ(tight.layers[0].output, Residence::kHost);
  EXPECT_NE(tight.layers[0].fallback.find("72 UB rows"), std::string::npos)
      << tight.layers[0].fallback;
  EXPECT_EQ(tight.layers[4].output, Residence::kUb);  // dense (2, 7) -> relu still fits
}

// Runs `net` on the machine with and without residency; both bit-exact, fewer PCIe bytes with.
void RunBothWays(const Network& net, const Tensor<int8_t>& x, int expect_ub_tensors) {
  int64_t bytes[2] = {0, 0};
  for (int keep = 0; keep < 2; ++keep) {
    ModelBackend backend;
    RunOptions options;
    options.check = true;
    options.keep_in_ub = keep == 1;
    const NetworkRun run = RunNetwork(net, x, backend, options);
    EXPECT_EQ(run.residency.ub_tensors, keep ? expect_ub_tensors : 0);
    ASSERT_TRUE(run.check.has_value());
    EXPECT_TRUE(run.check->ok()) << "keep_in_ub " << keep;
    EXPECT_EQ(run.output.data, ReferenceNetwork(net, x).data);
    for (size_t i = 0; i < run.layers.size(); ++i) {
      const LayerRun& lr = run.layers[i];
      EXPECT_EQ(lr.output_to, run.residency.layers[i].output);
      if (lr.output_to == Residence::kHost) {
        ASSERT_TRUE(lr.check.has_value()) << i;
        EXPECT_TRUE(lr.check->ok()) << i;
      } else {
        EXPECT_FALSE(lr.check.has_value()) << i;
        EXPECT_TRUE(lr.output.data.empty()) << i;
      }
      if (lr.on_host) continue;
      bytes[keep] += *lr.stats.pcie_bytes_to_device + *lr.stats.pcie_bytes_from_device;
    }
  }
  EXPECT_LT(bytes[1], bytes[0]);
}

TEST(ResidentNetwork, SingleImageNetworkOnTheModelBitExact) {
  ScratchDir dir;
  const Network net = LoadNetwork(testing::WriteImageNetwork(dir));
  RunBothWays(net, npy::Read<int8_t>(dir / "x.npy"), 3);
}

TEST(ResidentNetwork, FlattenedBatchNetworkOnTheModelBitExact) {
  ScratchDir dir;
  for (const bool relu : {true, false}) {
    const Network net = LoadNetwork(testing::WriteImageNetwork(dir, 4, 7, relu));
    RunBothWays(net, npy::Read<int8_t>(dir / "x.npy"), relu ? 3 : 2);
  }
}

TEST(ResidentNetwork, SmallNetworkOnTheModelBitExact) {
  ScratchDir dir;
  const Network net = LoadNetwork(testing::WriteSmallNetwork(dir, 9));
  RunBothWays(net, npy::Read<int8_t>(dir / "x.npy"), 3);
}

// A wrong resident layer is still caught: by the next layer whose output reaches the host.
TEST(ResidentNetwork, CorruptedResidentTensorFailsTheNextCheckedLayer) {
  ScratchDir dir;
  const Network net = LoadNetwork(testing::WriteImageNetwork(dir));
  const Tensor<int8_t> x = npy::Read<int8_t>(dir / "x.npy");

  class Corrupting : public ModelBackend {
   public:
    runtime::LayerResult<int8_t> RunProgram(const Lowering& lower, int64_t macs) override {
      runtime::LayerResult<int8_t> r = ModelBackend::RunProgram(lower, macs);
      if (programs() == 2) {  // pool's last output pixel, in the UB: 100 in every channel
        for (int c = 0; c < 16; ++c) machine().ub_row(4095)[c] = 100;
      }
      return r;
    }
  } backend;
  RunOptions options;
  options.check = true;
  const NetworkRun run = RunNetwork(net, x, backend, options);
  ASSERT_TRUE(run.layers.back().check.has_value());
  EXPECT_FALSE(run.layers.back().check->ok());
  EXPECT_FALSE(run.check->ok());
}

}  // namespace
}  // namespace tpu::network
