// Seeded random networks for the network tests (docs/networks.md "Residency"): each seed draws
// a network of 2..7 layers (conv2d 1x1/3x3/5x5, stride 1/2, SAME/VALID, fused relu/relu6;
// max/avg pool 2x2/3x3, stride 1/2, SAME/VALID; relu/relu6/LUT activations; flatten; dense
// after flatten or at rank 2), channel counts on and off multiples of N, images of 3..20 pixels
// a side (some above 32x32, so that pools band and tensors overflow the UB), a batch of 1 or 2,
// zero points that change along the way, written as JSON + .npy files and parsed. The same seed
// draws the same network on every backend: test_network_random runs them on the ISA reference
// machine, test_network_random_rtl on the RTL system model.
#ifndef TPU_TESTS_NETWORK_RANDOM_NETWORK_H_
#define TPU_TESTS_NETWORK_RANDOM_NETWORK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "golden/tensor.h"
#include "network/network.h"
#include "network/network_run.h"
#include "npy/scratch_dir.h"

namespace tpu::network::testing {

struct RandomNetwork {
  std::string json;
  std::string description;  // one line per layer, for failures
  std::vector<int64_t> input_shape;
};

struct DrawnNetwork {
  Network network;     // parsed, and known to lower on the device
  RandomNetwork drawn;  // its JSON and description
  int rejected = 0;    // draws before it that did not lower (each printed)
};

// Seed's network for a device with these limits, its files in `dir`. A draw that does not
// lower is printed and drawn again; after 5 such draws throws std::runtime_error naming the
// seed (the generator is meant to keep to what the device holds).
DrawnNetwork DrawNetwork(int64_t seed, const tpu::testing::ScratchDir& dir,
                         const isa::DeviceLimits& limits);

// Seed's input tensor for `shape`.
golden::Tensor<int8_t> RandomNetworkInput(int64_t seed, const std::vector<int64_t>& shape);

// A run with options.check: its output equals `want` (ReferenceNetwork), the run's own check
// passed, every layer went where its plan said and every layer output that came back to the
// host matched its reference (GoogleTest failures, not fatal).
void ExpectRunMatches(const NetworkRun& run, const golden::Tensor<int8_t>& want);

// The payload bytes the run's device layers moved over PCIe, both directions.
int64_t PcieBytes(const NetworkRun& run);

// The decimal value of environment variable `name` (seed counts and bases), or `fallback` when
// it is unset or empty.
int64_t EnvInt(const char* name, int64_t fallback);

}  // namespace tpu::network::testing

#endif  // TPU_TESTS_NETWORK_RANDOM_NETWORK_H_
