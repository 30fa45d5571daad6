#include "network/network_run.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/dense_lowering.h"
#include "compiler/layers.h"
#include "isa/codec.h"
#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/dense.h"
#include "golden/pool.h"

namespace tpu::network {

golden::Tensor<int8_t> ReferenceLayer(const Layer& layer, const golden::Tensor<int8_t>& input) {
  switch (layer.type) {
    case LayerType::kDense: {
      const compiler::DenseLayer& d = layer.dense;
      return golden::Dense(input, d.weights, d.bias, d.input_zero_point, d.requant);
    }
    case LayerType::kConv2d: {
      const compiler::Conv2dLayer& c = layer.conv;
      return golden::Conv2d(input, c.weights, c.bias, c.params, c.requant);
    }
    case LayerType::kPool:
      return layer.pool.kind == compiler::PoolKind::kMax
                 ? golden::MaxPool2d(input, layer.pool.params)
                 : golden::AvgPool2d(input, layer.pool.params);
    case LayerType::kActivation: {
      const compiler::ActivationLayer& a = layer.activation;
      golden::Tensor<int8_t> y = input;
      for (int8_t& v : y.data) v = int8_t(std::clamp<int32_t>(v, a.act_min, a.act_max));
      if (a.lut) y = golden::ApplyLut(y, *a.lut);
      return y;
    }
    case LayerType::kFlatten:
      return golden::Tensor<int8_t>(layer.output_shape, input.data);
  }
  throw std::logic_error("ReferenceLayer: unknown layer type");
}

golden::Tensor<int8_t> ReferenceNetwork(const Network& network,
                                        const golden::Tensor<int8_t>& input) {
  golden::Tensor<int8_t> x = input;
  for (const Layer& layer : network.layers) x = ReferenceLayer(layer, x);
  return x;
}

const char* ResidenceName(Residence residence) {
  return residence == Residence::kUb ? "ub" : "host";
}

compiler::DenseProgram LowerLayer(const Layer& layer, const golden::Tensor<int8_t>& input,
                                 const isa::DeviceLimits& limits,
                                 const compiler::HostRegion& region,
                                 const compiler::LoweringOptions& options) {
  switch (layer.type) {
    case LayerType::kDense:
      return compiler::LowerDense(input, layer.dense, limits, region, options);
    case LayerType::kConv2d:
      return compiler::LowerConv2d(input, layer.conv, limits, region, options);
    case LayerType::kPool:
      return compiler::LowerPool(input, layer.pool, limits, region, options);
    case LayerType::kActivation:
      return compiler::LowerActivation(input, layer.activation, limits, region, options);
    case LayerType::kFlatten:
      break;
  }
  throw std::logic_error("LowerLayer: " + layer.Where() + " runs no device program");
}

namespace {

// Host memory is not what limits a layer when planning: a region far larger than any image.
const compiler::HostRegion kPlanningRegion{uint64_t{1} << 32, uint64_t{1} << 40};

// A layer's output as a resident tensor from UB row `ub`: (B * H * W, C) for NHWC, (M, N) for
// dense (the UbTensor view of every Lower*'s output).
compiler::UbTensor OutputTensor(const Layer& layer, int64_t ub) {
  const std::vector<int64_t>& shape = layer.output_shape;
  const int64_t channels = shape.back();
  return {ub, golden::ElementCount(shape) / channels, channels};
}

// The work rows a layer may use next to its resident input and output: the rows between the
// tensor at the low end of the UB (from row 0) and the one at the high end (up to UB_ROWS).
void SetWorkRows(LayerResidency& r, const isa::DeviceLimits& limits) {
  int64_t begin = 0, end = limits.ub_rows;
  for (const auto& t : {r.input_ub, r.output_ub}) {
    if (!t) continue;
    if (t->ub == 0) {
      begin = std::max(begin, t->Rows(limits.n));
    } else {
      end = std::min(end, t->ub);
    }
  }
  r.ub_begin = begin;
  r.ub_end = end;
}

compiler::LoweringOptions OptionsFor(const LayerResidency& r) {
  compiler::LoweringOptions options;
  options.ub_begin = r.ub_begin;
  options.ub_end = r.ub_end;
  options.input_in_ub = r.input_ub;
  if (r.output_ub) options.output_ub = r.output_ub->ub;
  return options;
}

// The layer lowered with these placements: its PCIe payload bytes (READ_HOST and WRITE_HOST
// lengths, and the ring's 16 bytes an instruction), or the lowering's message when it does not
// lower.
struct Trial {
  std::string error;
  uint64_t bytes = 0;
};

Trial TryLowering(const Layer& layer, const LayerResidency& r, const isa::DeviceLimits& limits) {
  Trial trial;
  try {
    const compiler::DenseProgram p = LowerLayer(layer, golden::Tensor<int8_t>(layer.input_shape),
                                                limits, kPlanningRegion, OptionsFor(r));
    trial.bytes = compiler::ProgramPcieBytes(p).total() + isa::kSlotBytes * p.instrs.size();
  } catch (const std::invalid_argument& e) {
    trial.error = e.what();
  }
  return trial;
}

// A layer's placement with its output through the host and its input as `input_ub` says.
LayerResidency ThroughHost(std::optional<compiler::UbTensor> input_ub,
                           const isa::DeviceLimits& limits) {
  LayerResidency r;
  r.input_ub = input_ub;
  r.input = input_ub ? Residence::kUb : Residence::kHost;
  SetWorkRows(r, limits);
  return r;
}

}  // namespace

ResidencyPlan PlanResidency(const Network& network, const isa::DeviceLimits& limits,
                            bool keep_in_ub) {
  const std::vector<Layer>& layers = network.layers;
  ResidencyPlan plan;
  plan.layers.resize(layers.size());
  std::optional<compiler::UbTensor> current;  // the tensor flowing into the next layer, if in UB
  for (size_t i = 0; i < layers.size(); ++i) {
    LayerResidency& r = plan.layers[i];
    r.input_ub = current;
    r.input = current ? Residence::kUb : Residence::kHost;
    if (layers[i].type == LayerType::kFlatten) {  // a reshape: the same rows, the same place
      r.output_ub = current;
      r.output = r.input;
      continue;
    }
    size_t consumer = i + 1;
    while (consumer < layers.size() && layers[consumer].type == LayerType::kFlatten) ++consumer;
    if (consumer < layers.size()) {
      // The other end of the UB from the input.
      const compiler::UbTensor at_low = OutputTensor(layers[i], 0);
      const int64_t rows = at_low.Rows(limits.n);
      const bool low = !current || current->ub != 0;
      // A dense layer reading a flattened batch counts rows past the tensor's end.
      const int64_t slack =
          layers[consumer].type == LayerType::kDense
              ? compiler::ResidentInputSlack(at_low, layers[consumer].input_shape.front())
              : 0;
      LayerResidency producer = r;
      producer.output = Residence::kUb;
      producer.output_ub =
          low ? at_low : OutputTensor(layers[i], limits.ub_rows - rows - slack);
      SetWorkRows(producer, limits);
      LayerResidency reader;
      reader.input = Residence::kUb;
      reader.input_ub = producer.output_ub;  // flatten keeps the rows: the consumer sees them
      SetWorkRows(reader, limits);
      if (!keep_in_ub) {
        r.fallback = "--check-layers";
      } else if (rows > limits.ub_rows) {
        r.fallback = "the output needs " + std::to_string(rows) + " UB rows";
      } else if (const Trial made = TryLowering(layers[i], producer, limits);
                 !made.error.empty()) {
        r.fallback = made.error;
      } else if (const Trial read = TryLowering(layers[consumer], reader, limits);
                 !read.error.empty()) {
        r.fallback = read.error;
      } else {
        // Residency changes how both layers lower (a resident input takes conv2d's window
        // route, a resident output leaves the producer fewer work rows): keep the tensor in the
        // UB only if the two programs then move no more PCIe bytes than through the host.
        const Trial made_host = TryLowering(layers[i], ThroughHost(current, limits), limits);
        const Trial read_host =
            TryLowering(layers[consumer], ThroughHost(std::nullopt, limits), limits);
        const uint64_t in_ub = made.bytes + read.bytes;
        const uint64_t via_host = made_host.bytes + read_host.bytes;
        if (made_host.error.empty() && read_host.error.empty() && via_host < in_ub) {
          r.fallback = "through the host, " + layers[i].Where() + " and " +
                       layers[consumer].Where() + " move " + std::to_string(via_host) +
                       " PCIe bytes, " + std::to_string(in_ub) + " with the tensor in the UB";
        } else {
          r = producer;
          ++plan.ub_tensors;
        }
      }
    }
    SetWorkRows(r, limits);
    current = r.output == Residence::kUb ? r.output_ub : std::nullopt;
  }
  return plan;
}

void CheckLowering(const Network& network, const isa::DeviceLimits& limits) {
  // Host memory is not what limits a layer here: a region far larger than any image.
  const compiler::HostRegion region{uint64_t{1} << 32, uint64_t{1} << 40};
  for (const Layer& layer : network.layers) {
    const golden::Tensor<int8_t> zeros(layer.input_shape);
    try {
      switch (layer.type) {
        case LayerType::kDense:
          compiler::LowerDense(zeros, layer.dense, limits, region);
          break;
        case LayerType::kConv2d:
          compiler::LowerConv2d(zeros, layer.conv, limits, region);
          break;
        case LayerType::kPool:
          compiler::LowerPool(zeros, layer.pool, limits, region);
          break;
        case LayerType::kActivation:
          compiler::LowerActivation(zeros, layer.activation, limits, region);
          break;
        case LayerType::kFlatten:
          break;
      }
    } catch (const std::invalid_argument& e) {
      throw NetworkError(layer.Where() + ": cannot be lowered to the device (input " +
                         golden::ShapeToString(layer.input_shape) + "): " + e.what());
    }
  }
}

NetworkRun RunNetwork(const Network& network, const golden::Tensor<int8_t>& input,
                      runtime::LayerBackend& backend, const RunOptions& options) {
  CheckNetworkInput(network, input, "input");
  NetworkRun run;
  const std::optional<isa::DeviceLimits> limits = backend.device_limits();
  if (limits && options.plan) {
    run.residency = *options.plan;
  } else if (limits) {
    run.residency = PlanResidency(network, *limits, options.keep_in_ub);
  } else {
    run.residency.layers.resize(network.layers.size());  // all through the host
  }
  run.layers.reserve(network.layers.size());  // `x` points into it
  const golden::Tensor<int8_t>* x = &input;
  // With check: the reference of the tensor flowing into the next layer while it is in the UB.
  golden::Tensor<int8_t> reference;
  for (size_t i = 0; i < network.layers.size(); ++i) {
    const Layer& layer = network.layers[i];
    const LayerResidency& where = run.residency.layers[i];
    if (options.before_layer) options.before_layer(layer);
    LayerRun lr;
    lr.input_from = where.input;
    lr.output_to = where.output;
    const bool resident_in = where.input == Residence::kUb;
    const auto start = std::chrono::steady_clock::now();
    try {
      runtime::LayerResult<int8_t> r;
      if (layer.type == LayerType::kFlatten) {
        if (!resident_in) r.output = golden::Tensor<int8_t>(layer.output_shape, x->data);
        lr.on_host = true;
      } else if (limits) {
        const golden::Tensor<int8_t> shape_only(resident_in ? layer.input_shape
                                                            : std::vector<int64_t>{0});
        const golden::Tensor<int8_t>& in = resident_in ? shape_only : *x;
        const compiler::LoweringOptions lowering = OptionsFor(where);
        r = backend.RunProgram(
            [&](const isa::DeviceLimits& l, const compiler::HostRegion& region) {
              return LowerLayer(layer, in, l, region, lowering);
            },
            layer.macs());
      } else {
        switch (layer.type) {
          case LayerType::kDense:
            r = backend.RunDense(*x, layer.dense);
            break;
          case LayerType::kConv2d:
            r = backend.RunConv2d(*x, layer.conv);
            break;
          case LayerType::kPool:
            r = backend.RunPool(*x, layer.pool);
            break;
          case LayerType::kActivation:
            r = backend.RunActivation(*x, layer.activation);
            break;
          case LayerType::kFlatten:
            break;
        }
      }
      lr.output = std::move(r.output);
      lr.stats = std::move(r.stats);
      for (std::string& error : lr.stats.recovered_errors) error = layer.Where() + ": " + error;
    } catch (const runtime::DeviceFailure& e) {  // a runtime failure, not bad input
      throw runtime::DeviceFailure(layer.Where() + ": " + e.what(), e.attempts());
    } catch (const std::exception& e) {
      throw NetworkError(layer.Where() + ": " + e.what());
    }
    lr.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool resident_out = where.output == Residence::kUb;
    if (!resident_out && lr.output.shape != layer.output_shape) {
      throw NetworkError(layer.Where() + ": the " + backend.name() + " backend returned shape " +
                         golden::ShapeToString(lr.output.shape) + ", expected " +
                         golden::ShapeToString(layer.output_shape));
    }
    if (options.check) {
      golden::Tensor<int8_t> want = ReferenceLayer(layer, resident_in ? reference : *x);
      if (resident_out) {
        reference = std::move(want);
      } else {
        lr.check = runtime::Compare(lr.output, want);
      }
    }
    run.layers.push_back(std::move(lr));
    if (!resident_out) x = &run.layers.back().output;
  }
  if (run.residency.layers.back().output == Residence::kUb) {
    throw std::logic_error("RunNetwork: the plan left the final output in the UB");
  }
  run.output = *x;
  if (options.check) run.check = runtime::Compare(run.output, ReferenceNetwork(network, input));
  return run;
}

}  // namespace tpu::network
