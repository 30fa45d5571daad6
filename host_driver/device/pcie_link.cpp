#include "device/pcie_link.h"

#include <cctype>
#include <stdexcept>

namespace tpu::device {

double PcieLink::GigaTransfersPerLane() const {
  static const double kRates[] = {2.5, 5.0, 8.0, 16.0, 32.0};
  return kRates[generation - 1];
}

const char* PcieLink::Encoding() const { return generation <= 2 ? "8b/10b" : "128b/130b"; }

double PcieLink::EncodingEfficiency() const {
  return generation <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
}

double PcieLink::BytesPerSecond() const {
  return GigaTransfersPerLane() * 1e9 * EncodingEfficiency() / 8.0 * lanes;
}

std::string PcieLink::ToString() const {
  return "gen" + std::to_string(generation) + "x" + std::to_string(lanes);
}

PcieLink ParsePcieLink(const std::string& text) {
  const auto fail = [&]() -> PcieLink {
    throw std::invalid_argument("'" + text +
                                "' is not a PCIe link: expected genGxL with generation G in "
                                "1..5 and L in 1, 2, 4, 8, 16 lanes, e.g. gen3x16");
  };
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // "gen" digit "x" digits
  if (t.size() < 6 || t.compare(0, 3, "gen") != 0 ||
      !std::isdigit(static_cast<unsigned char>(t[3])) || t[4] != 'x') {
    return fail();
  }
  const std::string lanes = t.substr(5);
  if (lanes.empty() || lanes.size() > 2 || lanes[0] == '0' ||
      lanes.find_first_not_of("0123456789") != std::string::npos) {
    return fail();
  }
  PcieLink link;
  link.generation = t[3] - '0';
  link.lanes = std::stoi(lanes);
  if (link.generation < 1 || link.generation > 5) return fail();
  if (link.lanes != 1 && link.lanes != 2 && link.lanes != 4 && link.lanes != 8 &&
      link.lanes != 16) {
    return fail();
  }
  return link;
}

}  // namespace tpu::device
