// MakeBackend: the one place that knows which backends exist.
#include <stdexcept>

#include "golden_backend.h"
#include "layer_backend.h"

namespace tpu::cli {

std::unique_ptr<LayerBackend> MakeBackend(const std::string& name, const BackendOptions& options) {
  if (name == "golden") return std::make_unique<GoldenBackend>(options);
  if (name == "rtl") throw std::runtime_error(std::string("--backend rtl: ") + kRtlUnavailable);
  throw std::invalid_argument("--backend " + name + ": expected golden or rtl");
}

}  // namespace tpu::cli
