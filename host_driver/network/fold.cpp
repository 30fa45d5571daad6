#include "network/fold.h"

#include <algorithm>

namespace tpu::network {
namespace {

struct Range {
  int32_t min, max;
};

// The two clamps' intersection, if they meet.
bool Meet(const Range& a, const Range& b, Range& out) {
  out = {std::max(a.min, b.min), std::min(a.max, b.max)};
  return out.min <= out.max;
}

bool IsClampActivation(const Layer& layer) {
  return layer.type == LayerType::kActivation && !layer.activation.lut;
}

// The requantization clamp of a conv2d or dense layer.
golden::RequantParams& RequantOf(Layer& layer) {
  return layer.type == LayerType::kDense ? layer.dense.requant : layer.conv.requant;
}

}  // namespace

FoldedNetwork FoldActivations(const Network& network) {
  FoldedNetwork result;
  result.network = network;
  std::vector<Layer>& layers = result.network.layers;
  for (size_t i = 1; i < layers.size();) {
    if (!IsClampActivation(layers[i])) {
      ++i;
      continue;
    }
    const Range act{layers[i].activation.act_min, layers[i].activation.act_max};
    // Back over max pools (whose own clamp must meet this one to commute with it) and flattens.
    size_t j = i - 1;
    bool through = true;
    while (j > 0 && through) {
      const Layer& l = layers[j];
      Range unused;
      if (l.type == LayerType::kFlatten) {
        --j;
      } else if (l.type == LayerType::kPool && l.pool.kind == compiler::PoolKind::kMax &&
                 Meet(act, {l.pool.params.act_min, l.pool.params.act_max}, unused)) {
        --j;
      } else {
        through = false;
      }
    }
    Layer& producer = layers[j];
    Range folded;
    if ((producer.type != LayerType::kConv2d && producer.type != LayerType::kDense) ||
        !Meet(act, {RequantOf(producer).act_min, RequantOf(producer).act_max}, folded)) {
      ++i;
      continue;
    }
    RequantOf(producer).act_min = folded.min;
    RequantOf(producer).act_max = folded.max;
    producer.summary += ", + " + layers[i].name + " [" + std::to_string(folded.min) + ", " +
                        std::to_string(folded.max) + "]";
    result.folded.push_back({layers[i].name, layers[i].index, producer.name});
    layers.erase(layers.begin() + std::ptrdiff_t(i));
  }
  return result;
}

}  // namespace tpu::network
