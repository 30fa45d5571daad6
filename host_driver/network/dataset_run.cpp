#include "network/dataset_run.h"

#include <algorithm>
#include <map>

#include "npy/header.h"

namespace tpu::network {
namespace {

std::vector<int64_t> Rebatched(std::vector<int64_t> shape, int64_t batch) {
  shape[0] = batch;
  return shape;
}

// `total` (the batches so far, `offset` output elements) with batch `c` added.
void AddComparison(runtime::Comparison& total, const runtime::Comparison& c, size_t offset) {
  total.same_shape = total.same_shape && c.same_shape;
  if (total.mismatches == 0 && c.mismatches > 0) {
    total.first = offset + c.first;
    total.got = c.got;
    total.want = c.want;
  }
  total.mismatches += c.mismatches;
  total.total += c.total;
}

// Appends `part` (m, ...) to `all` (n, ...).
void Append(golden::Tensor<int8_t>& all, const golden::Tensor<int8_t>& part) {
  if (all.shape.empty()) {
    all = part;
    return;
  }
  all.shape[0] += part.shape[0];
  all.data.insert(all.data.end(), part.data.begin(), part.data.end());
}

// `all` (the batches so far, `done` images) with batch `r` of network `net` added.
void AddBatch(NetworkRun& all, NetworkRun r, const Network& net, int64_t done, bool first) {
  const int64_t size = net.input_shape[0];
  if (first) {
    all.residency = r.residency;
    all.layers.resize(r.layers.size());
    if (r.check) all.check = runtime::Comparison{};
  }
  for (size_t i = 0; i < r.layers.size(); ++i) {
    LayerRun& total = all.layers[i];
    const LayerRun& one = r.layers[i];
    if (first) {
      total.stats = one.stats;
      total.on_host = one.on_host;
      total.input_from = one.input_from;
      total.output_to = one.output_to;
      if (one.check) total.check = runtime::Comparison{};
    } else {
      runtime::AddRunStats(total.stats, one.stats);
    }
    total.wall_seconds += one.wall_seconds;
    const int64_t per_image = golden::ElementCount(net.layers[i].output_shape) / size;
    if (one.check && total.check) AddComparison(*total.check, *one.check, size_t(done * per_image));
  }
  if (r.check && all.check) {
    const int64_t per_image = golden::ElementCount(net.output_shape()) / size;
    AddComparison(*all.check, *r.check, size_t(done * per_image));
  }
  Append(all.output, r.output);
}

}  // namespace

Network WithBatch(const Network& network, int64_t batch) {
  Network n = network;
  n.input_shape = Rebatched(n.input_shape, batch);
  for (Layer& layer : n.layers) {
    layer.input_shape = Rebatched(layer.input_shape, batch);
    layer.output_shape = Rebatched(layer.output_shape, batch);
  }
  return n;
}

int64_t CountImages(const Network& network, const std::vector<int64_t>& shape,
                    const std::string& what) {
  const std::vector<int64_t>& want = network.input_shape;
  std::string dims = "n";
  for (size_t i = 1; i < want.size(); ++i) dims += ", " + std::to_string(want[i]);
  const std::string expected = "expected (" + dims + "): n images of the network input's shape " +
                               "after its batch dimension (\"input\" \"shape\" " +
                               npy::ShapeRepr(want) + ")";
  if (shape.size() != want.size() ||
      !std::equal(shape.begin() + 1, shape.end(), want.begin() + 1)) {
    throw NetworkError(what + ": shape " + npy::ShapeRepr(shape) + ": " + expected);
  }
  if (shape[0] < 1) {
    throw NetworkError(what + ": no images (shape " + npy::ShapeRepr(shape) + "): " + expected);
  }
  return shape[0];
}

std::vector<int64_t> BatchSizes(int64_t images, int64_t batch) {
  std::vector<int64_t> sizes(size_t(images / batch), batch);
  if (images % batch) sizes.push_back(images % batch);
  return sizes;
}

DatasetRun RunDataset(const Network& network, const golden::Tensor<int8_t>& images,
                      runtime::LayerBackend& backend, const DatasetOptions& options) {
  DatasetRun d;
  d.images = CountImages(network, images.shape, "input");
  if (options.batch < 0) {
    throw NetworkError("batch " + std::to_string(options.batch) + ": expected >= 1");
  }
  d.batch = options.batch > 0 ? options.batch : network.input_shape[0];
  const std::vector<int64_t> sizes = BatchSizes(d.images, d.batch);
  d.batches = int64_t(sizes.size());
  const int64_t image_elements = int64_t(images.data.size()) / d.images;
  NetworkRun& all = d.run;
  std::map<int64_t, Network> networks;
  std::map<int64_t, ResidencyPlan> plans;
  int64_t done = 0;
  for (size_t b = 0; b < sizes.size(); ++b) {
    if (options.before_batch) options.before_batch(int64_t(b), d.batches, done, d.images);
    // At most two networks (full and last batch), made once: each copy holds the weights.
    auto batched = networks.find(sizes[b]);
    if (batched == networks.end()) {
      batched = networks.emplace(sizes[b], WithBatch(network, sizes[b])).first;
    }
    const Network& net = batched->second;
    const auto first = images.data.begin() + std::ptrdiff_t(done * image_elements);
    const golden::Tensor<int8_t> x(net.input_shape,
                                   std::vector<int8_t>(first, first + std::ptrdiff_t(sizes[b] *
                                                                                    image_elements)));
    // One residency plan per batch size: planning lowers every layer several times.
    RunOptions run_options = options.run;
    if (const auto limits = backend.device_limits(); limits && !run_options.plan) {
      auto plan = plans.find(sizes[b]);
      if (plan == plans.end()) {
        plan = plans.emplace(sizes[b], PlanResidency(net, *limits, run_options.keep_in_ub)).first;
      }
      run_options.plan = &plan->second;
    }
    AddBatch(all, RunNetwork(net, x, backend, run_options), net, done, b == 0);
    done += sizes[b];
  }
  return d;
}

}  // namespace tpu::network
