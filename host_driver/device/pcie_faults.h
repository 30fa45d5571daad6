// Faults injected on a simulated PCIe link (`tpu --pcie-faults`, docs/pcie_link.md section 8):
// the probability that a TLP or a DLLP is corrupted (one bit flipped on the wire, found by the
// receiver's CRC check) or dropped (never reaches the receiver), in both directions, drawn from
// a generator seeded with `seed` so that a run repeats exactly. And the data link layer's
// counters of one link direction, which a simulated machine reports through its bus
// (device_bus.h, BusCounters).
#ifndef TPU_DEVICE_PCIE_FAULTS_H_
#define TPU_DEVICE_PCIE_FAULTS_H_

#include <cstdint>
#include <string>

namespace tpu::device {

struct PcieFaults {
  double tlp_corrupt = 0.0;   // per TLP transmission (a replay is a transmission too)
  double tlp_drop = 0.0;
  double dllp_corrupt = 0.0;  // per ACK/NAK DLLP
  double dllp_drop = 0.0;
  // Completion faults (docs/pcie_link.md section 8): the probability that the root complex
  // answers a device's memory read with a completion of status UR, of status CA, with poisoned
  // CplDs (EP), or not at all; the sum is at most 0.5.
  double cpl_ur = 0.0;
  double cpl_ca = 0.0;
  double cpl_poison = 0.0;
  double cpl_drop = 0.0;
  uint64_t seed = 1;

  // True if any probability is above 0.
  bool any() const;
  // True if a completion fault probability is above 0.
  bool completion_any() const;
  // "tlp_corrupt=0.01,tlp_drop=0.001,dllp_corrupt=0,dllp_drop=0,seed=7" (with the cpl_* keys
  // after dllp_drop when completion_any()): the form ParsePcieFaults reads.
  std::string ToString() const;
};

// The accepted form, for messages: "KEY=VALUE[,KEY=VALUE...] with KEY in ...".
extern const char* const kPcieFaultsForm;

// Parses "tlp_corrupt=1e-3,tlp_drop=1e-3,dllp_corrupt=1e-3,dllp_drop=1e-3,seed=7": any subset of
// the keys, each at most once, probabilities in [0, 0.5] (above that no link trains), seed a
// whole number; cpl_ur, cpl_ca, cpl_poison and cpl_drop likewise (their sum at most 0.5).
// Throws std::invalid_argument naming the bad key or value and the accepted form.
PcieFaults ParsePcieFaults(const std::string& text);

// What the data link layer of one link direction counted (docs/pcie_link.md section 8). TLPs
// travel in the direction; the ACK/NAK DLLPs that acknowledge them travel the other way.
struct LinkErrorCounters {
  uint64_t tlps_sent = 0;        // TLPs the transmitter accepted (each counted once)
  uint64_t tlps_corrupted = 0;   // transmissions with a bit flipped (LCRC failed)
  uint64_t tlps_dropped = 0;     // transmissions that never arrived
  uint64_t naks = 0;             // NAK DLLPs the receiver sent
  uint64_t tlps_replayed = 0;    // retransmissions
  uint64_t replay_timeouts = 0;  // REPLAY_TIMER expiries
  uint64_t retrains = 0;         // REPLAY_NUM rollovers, each a link retraining
  uint64_t dllps_corrupted = 0;  // ACK/NAK DLLPs with a bit flipped (their CRC failed)
  uint64_t dllps_dropped = 0;    // ACK/NAK DLLPs that never arrived
  // TLPs accepted and not delivered exactly once (acknowledged but never delivered, delivered
  // twice or out of order): 0 unless the data link layer is wrong.
  uint64_t lost = 0;

  // this - earlier, counter by counter (a run's figures from two readings).
  LinkErrorCounters Since(const LinkErrorCounters& earlier) const;
  LinkErrorCounters& operator+=(const LinkErrorCounters& other);
};

}  // namespace tpu::device

#endif  // TPU_DEVICE_PCIE_FAULTS_H_
