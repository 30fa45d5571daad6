#include "wfifo/wfifo_harness.h"

namespace tpu::tb {

std::string WfifoConfig::Name() const {
  return "N" + std::to_string(n) + "_DW" + std::to_string(dram_width) + "_D" +
         std::to_string(depth_tiles);
}

}  // namespace tpu::tb
