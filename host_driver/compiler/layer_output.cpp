// ExtractLayerOutput of compiler/layers.h.
#include <stdexcept>

#include "compiler/layers.h"
#include "golden/format.h"

namespace tpu::compiler {

golden::Tensor<int8_t> ExtractLayerOutput(const DenseProgram& program, const HostReader& read) {
  if (program.ub_output) {
    throw std::invalid_argument(
        "ExtractLayerOutput: the program left its output in the UB (rows from " +
        std::to_string(program.ub_output->ub) + "), not in host memory");
  }
  golden::Tensor<int8_t> y = ExtractDenseOutput(program.output, read);
  if (program.output_shape.empty()) return y;  // a program made before output_shape existed
  if (golden::ElementCount(program.output_shape) != y.NumElements()) {
    throw std::invalid_argument("ExtractLayerOutput: output shape " +
                                golden::ShapeToString(program.output_shape) + " does not hold the " +
                                std::to_string(y.NumElements()) + " values of the (" +
                                std::to_string(program.output.m) + ", " +
                                std::to_string(program.output.channels) + ") result");
  }
  y.shape = program.output_shape;
  return y;
}

}  // namespace tpu::compiler
