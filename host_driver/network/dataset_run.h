// Data-set runs: any number of images through a network, in device batches run one after the
// other on the same backend (one device, its state kept between programs), the outputs
// concatenated and each layer's figures summed over the batches (docs/networks.md "Data sets").
#ifndef TPU_NETWORK_DATASET_RUN_H_
#define TPU_NETWORK_DATASET_RUN_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "golden/tensor.h"
#include "network/network.h"
#include "network/network_run.h"

namespace tpu::network {

// `network` with its first dimension, the batch (B of NHWC, M of a dense input), set to
// `batch` in the input and in every layer's input and output shape. Nothing else depends on it.
Network WithBatch(const Network& network, int64_t batch);

// The number of images in `images` after checking that its dimensions after the first equal
// the network input's (the first is the image count, >= 1). Throws NetworkError naming `what`.
int64_t CountImages(const Network& network, const std::vector<int64_t>& images_shape,
                    const std::string& what);

// The batch sizes a data set of `images` runs in with device batch `batch`: full batches, then
// the rest (e.g. 5 images, batch 2: 2, 2, 1).
std::vector<int64_t> BatchSizes(int64_t images, int64_t batch);

struct DatasetOptions {
  int64_t batch = 0;  // the device batch; 0 = the network's ("input" "shape"[0])
  RunOptions run;     // for every batch (check, keep_in_ub, before_layer)
  // Called before each batch runs: its index from 0, the batch count, the images before it and
  // in all. May be empty.
  std::function<void(int64_t batch, int64_t batches, int64_t done, int64_t images)> before_batch;
};

struct DatasetRun {
  int64_t images = 0, batch = 0, batches = 0;
  // The whole data set as one run of WithBatch(network, images): each layer's figures summed over
  // the batches (cycles, PCIe bytes, simulated and wall time; MXU utilization weighted by cycles),
  // its check merged (mismatches counted over every batch, the first one's index in the
  // concatenated output), the residency plan of the first batch, the outputs concatenated.
  NetworkRun run;
};

// Runs `images` (n, ...) through `network` on `backend` in batches of options.batch (the last
// one partial), each with RunNetwork. Throws NetworkError for images of the wrong shape or a
// batch < 0, and, naming the layer, when the backend fails.
DatasetRun RunDataset(const Network& network, const golden::Tensor<int8_t>& images,
                      runtime::LayerBackend& backend, const DatasetOptions& options = {});

}  // namespace tpu::network

#endif  // TPU_NETWORK_DATASET_RUN_H_
