// The pieces of the ONNX mapping that do not depend on the walk through the graph: attributes,
// quantization parameters, weights (uint8/int8 with zero points -> symmetric int8), padding
// (ONNX pads / auto_pad -> VALID or SAME) and layouts (OIHW -> HWIO, (N, K) -> (K, N), C,H,W
// rows -> H,W,C rows). Every refusal is an ImportError naming the node.
#ifndef TPU_ONNX_ONNX_IMPORT_OPS_H_
#define TPU_ONNX_ONNX_IMPORT_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "golden/tensor.h"
#include "onnx/onnx_import.h"
#include "onnx/onnx_model.h"

namespace tpu::onnx {

// "node 'conv1' (QLinearConv)", or "unnamed node (MaxPool, output 'y')".
std::string NodeWhere(const Node& node);
// Throws ImportError "<source>: node '...' (op): <problem>".
[[noreturn]] void Refuse(const Node& node, const std::string& problem);

int64_t IntAttribute(const Node& node, const std::string& name, int64_t fallback);
float FloatAttribute(const Node& node, const std::string& name, float fallback);
std::string StringAttribute(const Node& node, const std::string& name,
                            const std::string& fallback);
std::vector<int64_t> IntsAttribute(const Node& node, const std::string& name,
                                   const std::vector<int64_t>& fallback);
// Refuses every attribute of `node` not in `known` (an attribute the mapping would ignore).
void CheckAttributes(const Node& node, const std::vector<std::string>& known);

// An int8 tensor's quantization: real = scale * (q - zero_point). scale 0: not known (a raw
// uint8/int8 graph input that no node has given a scale).
struct Quant {
  double scale = 0;
  int32_t zero_point = 0;  // int8 (a uint8 zero point minus 128)
  bool known = false;
};
// True if two quantizations are the same (scales equal to 1e-6 relative, zero points equal).
bool SameQuant(const Quant& a, const Quant& b);

// The per-tensor quantization given by a scale and an optional zero point constant (`input`
// names them in messages, e.g. "x_scale"). Refuses a scale of more than one element (a
// per-channel activation scale), a scale <= 0, a zero point that is not uint8 or int8.
Quant TensorQuant(const Node& node, const TensorData& scale, const TensorData* zero_point,
                  const std::string& input);

// Weights with zero points made symmetric int8, in their ONNX layout.
struct SymmetricWeights {
  std::vector<int64_t> dims;
  // `pieces` blocks of the dims' element count: block j holds part j of each centred weight
  // (the parts sum to it). One block unless the centred weights leave int8.
  std::vector<int8_t> values;
  int pieces = 1;
  // Per output channel: the real value of one step (weight scale x the common factor the
  // channel was divided by, see ConvertWeights).
  std::vector<double> scales;
  std::vector<int64_t> factors;  // that common factor per channel (1 almost always)
};

// Converts weights `w` (uint8 or int8) with `scale` and `zero_point` (one element, or one per
// output channel along `axis`) to w - zero_point in int8. A channel whose centred values leave
// int8 but share a common factor g (with its bias, `bias` in accumulator steps, may be null) is
// stored divided by g, g moving into its scale (exact). Otherwise the weights are split into
// P = 2 or 3 int8 parts that sum to the centred values (exact: the layer reads its input P
// times, see Importer::EmitCopies).
SymmetricWeights ConvertWeights(const Node& node, const TensorData& w, const TensorData& scale,
                                const TensorData* zero_point, int axis,
                                std::vector<double>* bias);

// "valid" or "same" for a 2-D window (conv or pool) on an H x W input, from the node's
// auto_pad, pads and (pools) ceil_mode and count_include_pad; refuses padding the device does
// not have. The node's strides and kernel are given.
std::string Padding2d(const Node& node, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh,
                      int64_t sw, bool pool);

// The output size of a window of k with stride s on n inputs, VALID or SAME.
int64_t WindowOutput(int64_t n, int64_t k, int64_t s, const std::string& padding);

// A 4-D row-major tensor transposed: output dimension i is input dimension perm[i] (NCHW ->
// NHWC is {0, 2, 3, 1}).
golden::Tensor<int8_t> Transpose4d(const std::vector<int64_t>& dims,
                                   const std::vector<int8_t>& values, const int (&perm)[4]);
// Part j of split weights (one block).
SymmetricWeights Piece(const SymmetricWeights& w, int j);
// OIHW (Cout, Cin, KH, KW) -> HWIO (KH, KW, Cin, Cout).
golden::Tensor<int8_t> OihwToHwio(const SymmetricWeights& w);
// Dense weights (K, N) from ONNX's B: (K, N) as is, or (N, K) when trans_b, transposed; with
// chw = {C, H, W} (a Flatten of a 4-D tensor came before), row c*H*W + h*W + w moves to row
// (h*W + w)*C + c.
golden::Tensor<int8_t> DenseWeights(const SymmetricWeights& w, bool trans_b,
                                    const std::vector<int64_t>& chw);

}  // namespace tpu::onnx

#endif  // TPU_ONNX_ONNX_IMPORT_OPS_H_
