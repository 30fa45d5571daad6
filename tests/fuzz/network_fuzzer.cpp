// libFuzzer entry point for the network description parser (`make fuzz`): any text is either a
// network whose shapes and zero points flow from layer to layer, or rejected with a
// NetworkError naming the file. .npy names resolve against the seed corpus folder
// (tests/fuzz/corpus/network), which holds the small network's files.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "network/network.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const tpu::network::Network net =
        tpu::network::ParseNetwork(text, TPU_FUZZ_NETWORK_DIR, "fuzz.json");
    std::vector<int64_t> shape = net.input_shape;
    for (const tpu::network::Layer& layer : net.layers) {
      if (layer.input_shape != shape || layer.macs() < 0) std::abort();
      shape = layer.output_shape;
    }
  } catch (const tpu::network::NetworkError& e) {
    if (std::string(e.what()).rfind("fuzz.json", 0) != 0) std::abort();
  }
  return 0;
}
