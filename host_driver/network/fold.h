// ReLU folding: a standalone relu, relu6 or clamp activation whose input a conv2d or dense layer
// produced becomes part of that layer's clamp, so that the device runs one program less and
// the result is the same int8 tensor, bit for bit (docs/networks.md "ReLU folding").
#ifndef TPU_NETWORK_FOLD_H_
#define TPU_NETWORK_FOLD_H_

#include <string>
#include <vector>

#include "network/network.h"

namespace tpu::network {

struct FoldedActivation {
  std::string name;  // the activation layer that no longer runs
  int index = 0;     // its position in the file's "layers"
  std::string into;  // the conv2d or dense layer whose clamp took it
};

struct FoldedNetwork {
  Network network;  // without the folded layers (the others keep their names and indices)
  std::vector<FoldedActivation> folded;
};

// Folds every standalone clamp activation (relu, relu6, clamp; not a lut) into the conv2d or
// dense layer that produced its input, directly or through max pools and flattens: the clamp is
// the same zero point's (activations keep it), so clamping twice is clamping once to the
// intersection of the two ranges; max pooling commutes with a monotone clamp, and a pool's own
// clamp commutes with it when the two ranges meet. Not through an average pool (the mean of
// clamped values is not the clamped mean) or any other layer. A fold that would leave an empty
// range is not made. ReferenceNetwork of the result equals that of `network` on every input.
FoldedNetwork FoldActivations(const Network& network);

}  // namespace tpu::network

#endif  // TPU_NETWORK_FOLD_H_
