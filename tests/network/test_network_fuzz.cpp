// Fuzz test of the network description parser (host_driver/network, docs/networks.md): seeded
// byte-level mutations of a valid network file, structural mutations of its JSON (every value
// replaced by one of another type or a boundary number, keys removed, repeated or added, deep
// nesting), every truncation. Each text is either accepted, and then the network is consistent
// (shapes and zero points flow from layer to layer, counts are non-negative), or rejected with a
// NetworkError naming the file; never a crash, another exception, or an unbounded allocation
// (allocation_cap.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "mutation_testing.h"
#include "network/network.h"
#include "network_testing.h"

namespace tpu::network {
namespace {

using nlohmann::json;
using tpu::testing::AcceptedOrRejected;
using tpu::testing::Mutator;
using tpu::testing::ScratchDir;

constexpr char kSource[] = "fuzz.json";

// What every accepted network must satisfy.
void CheckConsistent(const Network& net, const std::string& what) {
  ASSERT_FALSE(net.layers.empty()) << what;
  std::vector<int64_t> shape = net.input_shape;
  int32_t zp = net.input_zero_point;
  for (const Layer& layer : net.layers) {
    EXPECT_EQ(layer.input_shape, shape) << what << " " << layer.Where();
    EXPECT_EQ(layer.input_zero_point, zp) << what << " " << layer.Where();
    for (int64_t d : layer.output_shape) EXPECT_GE(d, 1) << what << " " << layer.Where();
    EXPECT_GE(layer.macs(), 0) << what;
    EXPECT_GE(layer.output_zero_point, -128) << what;
    EXPECT_LE(layer.output_zero_point, 127) << what;
    shape = layer.output_shape;
    zp = layer.output_zero_point;
  }
  EXPECT_GE(NetworkEssentialBytes(net).total(), 0) << what;
}

bool Parses(const std::string& text, const ScratchDir& dir, const std::string& what) {
  return AcceptedOrRejected<NetworkError>(
      what, [&] { CheckConsistent(ParseNetwork(text, dir.str(), kSource), what); }, kSource);
}

class NetworkFuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::WriteSmallNetwork(dir_);
    valid_ = testing::NetworkJson(testing::SmallLayers(), R"({"shape": [2, 6, 6, 3],
        "zero_point": 3, "scale": 0.02})");
    ASSERT_TRUE(Parses(valid_, dir_, "the valid network"));
  }
  ScratchDir dir_;
  std::string valid_;
};

TEST_F(NetworkFuzz, Truncations) {
  int accepted = 0;
  tpu::testing::ForEachTruncation(valid_, [&](const std::string& m, const std::string& what) {
    accepted += Parses(m, dir_, what);
  });
  EXPECT_EQ(accepted, 1);  // only the cut of the final newline
}

TEST_F(NetworkFuzz, RandomByteMutations) {
  Mutator mutator(1126);
  int accepted = 0;
  const int kCases = 3000;
  mutator.ForEachMutant({valid_}, kCases, [&](const std::string& m, const std::string& what) {
    accepted += Parses(m, dir_, what);
  });
  std::cout << kCases << " byte mutations, " << accepted << " accepted\n";
}

// Values of every JSON type, boundary numbers and deep nesting.
std::vector<json> HostileValues() {
  json deep = json::array();
  for (int i = 0; i < 64; ++i) deep = json::array({deep});
  return {nullptr,
          true,
          "",
          "x.npy",
          "../../../../etc/passwd",
          0,
          -1,
          1,
          255,
          -129,
          2147483647,
          2147483648LL,
          -2147483649LL,
          INT64_MAX,
          INT64_MIN,
          UINT64_MAX,
          0.5,
          -0.0,
          1e-300,
          1e-40,
          1e300,
          json::array(),
          json::array({1}),
          json::array({1, 2, 3, 4, 5}),
          json::array({1000000000, 1000000000}),
          json::array({4294967296LL, 4294967296LL, 4294967296LL, 1}),
          json::object(),
          json::object({{"scale", 1}}),
          deep};
}

// Every value in `root` (depth first), with a way to replace or erase it.
void ForEachNode(json& node, const std::function<void(json&)>& f) {
  f(node);
  if (node.is_object() || node.is_array()) {
    for (auto& child : node) ForEachNode(child, f);
  }
}

TEST_F(NetworkFuzz, StructuralMutations) {
  const json original = json::parse(valid_);
  std::vector<json*> nodes;
  json probe = original;
  ForEachNode(probe, [&](json& n) { nodes.push_back(&n); });
  const std::vector<json> values = HostileValues();
  std::mt19937_64 rng(14);
  int accepted = 0, cases = 0;
  // Every node replaced by every hostile value: the type confusions and boundary numbers.
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (size_t v = 0; v < values.size(); ++v) {
      json m = original;
      size_t k = 0;
      ForEachNode(m, [&](json& n) {
        if (k++ == i) n = values[v];
      });
      accepted += Parses(m.dump(), dir_, "node " + std::to_string(i) + " = " +
                                             values[v].dump().substr(0, 80));
      ++cases;
    }
  }
  // Keys erased, added (unknown) and several edits at once.
  for (int n = 0; n < 1500; ++n) {
    json m = original;
    const int edits = std::uniform_int_distribution<int>(1, 3)(rng);
    std::string what = "random structural edit " + std::to_string(n);
    for (int e = 0; e < edits; ++e) {
      std::vector<json*> objects;
      ForEachNode(m, [&](json& x) {
        if (x.is_object() && !x.empty()) objects.push_back(&x);
      });
      json& object = *objects[std::uniform_int_distribution<size_t>(0, objects.size() - 1)(rng)];
      auto it = object.begin();
      std::advance(it, std::uniform_int_distribution<size_t>(0, object.size() - 1)(rng));
      const std::string key = it.key();
      switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
        case 0:
          object.erase(key);
          what += ", erase " + key;
          break;
        case 1:
          object[key + "_"] = 1;
          what += ", add " + key + "_";
          break;
        default:
          object[key] = values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
          what += ", replace " + key;
          break;
      }
    }
    accepted += Parses(m.dump(), dir_, what);
    ++cases;
  }
  std::cout << cases << " structural mutations, " << accepted << " accepted\n";
}

// Regressions for what the fuzzing found.
TEST_F(NetworkFuzz, DeepNestingIsRejectedWithoutRecursion) {
  // 100,000 levels: printing the value back (nlohmann's dump recurses) overflowed the stack.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const std::string& text :
       {R"({"input": {"shape": [)" + deep + R"(, 1]}, "layers": [{"type": "flatten"}]})",
        R"({"input": {"shape": [2, 6, 6, 3]}, "layers": [)" + deep + "]}", deep}) {
    EXPECT_FALSE(Parses(text, dir_, "deep nesting"));
  }
}

TEST_F(NetworkFuzz, HugeInputShapesAreRefused) {
  for (const char* shape : {"[4294967296, 4294967296, 4294967296, 1]", "[3037000500, 3037000500]",
                            "[9223372036854775807, 2]"}) {
    try {
      ParseNetwork(R"({"input": {"shape": )" + std::string(shape) +
                       R"(}, "layers": [{"type": "flatten"}]})",
                   dir_.str(), kSource);
      ADD_FAILURE() << shape << " accepted";
    } catch (const NetworkError& e) {
      EXPECT_NE(std::string(e.what()).find("elements"), std::string::npos) << e.what();
    }
  }
}

TEST_F(NetworkFuzz, ScalesOutsideFloatAreRefused) {
  // A relu6's output_scale is used as a float: 1e-300 became 0 and threw an anonymous
  // std::invalid_argument from the activation range instead of a NetworkError.
  for (const char* scale : {"1e-300", "1e300"}) {
    std::vector<std::string> layers = testing::SmallLayers();
    layers[5] = R"({"type": "activation", "function": "relu6", "output_scale": )" +
                std::string(scale) + "}";
    EXPECT_FALSE(Parses(testing::NetworkJson(layers), dir_, scale));
  }
}

}  // namespace
}  // namespace tpu::network
