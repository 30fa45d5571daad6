// The PCIe link between host and device: generation and width (what a driver reads from the
// link status register, and what `--pcie gen3x16` asks a simulated machine to model), with the
// raw bandwidth they give. The one parser of link names: the system model's link timing
// (sc_models) and the `tpu` tool both take it from here.
#ifndef TPU_DEVICE_PCIE_LINK_H_
#define TPU_DEVICE_PCIE_LINK_H_

#include <string>

namespace tpu::device {

struct PcieLink {
  int generation = 3;  // 1 .. 5
  int lanes = 16;      // 1, 2, 4, 8 or 16

  // Transfer rate of one lane: 2.5, 5, 8, 16 or 32 GT/s.
  double GigaTransfersPerLane() const;
  // Line coding: "8b/10b" (gen1, gen2) or "128b/130b" (gen3 and later), and the share of
  // the line rate it leaves: 8/10 or 128/130.
  const char* Encoding() const;
  double EncodingEfficiency() const;
  // Bytes per second in each direction after line coding, before TLP and DLLP overhead:
  // 15.75e9 for gen3 x16.
  double BytesPerSecond() const;
  // "gen3x16", the form --pcie takes.
  std::string ToString() const;
};

// Parses "genGxL" (case-insensitive, e.g. "gen3x16", "Gen4x8"). Throws std::invalid_argument
// saying what is accepted: G in 1..5 and L in 1, 2, 4, 8, 16.
PcieLink ParsePcieLink(const std::string& text);

}  // namespace tpu::device

#endif  // TPU_DEVICE_PCIE_LINK_H_
