// The weight DRAM (docs/pcie_link.md section 6): a loosely-timed TLM-2.0 target for the
// transaction-level models, wrapped around the cycle-level port model the core harness already
// drives (sc_models/ports/memory_ports.h, DramPortModel): one byte store, two views with the
// same timing. The RTL-in-SystemC wrapper drives cycle_port() every clock; a TLM initiator
// reads whole tiles and writes rows through `socket`.
//
// Timing (both views): a tile read returns its n*n bytes as beats of beat_bits, one beat per
// cycle, the first latency_cycles after the request, queued behind the beats of earlier reads;
// row writes take one row (n bytes) per cycle on the separate write port. So k tiles read back
// to back take latency + k * n*n*8 / beat_bits cycles: the read bandwidth is beat_bits / 8
// bytes per cycle (22.4 GB/s at 256 bits and 700 MHz).
//
// TLM rules: READ of a whole number of tiles at a tile-aligned address, no byte enables; WRITE
// of a whole number of rows at a row-aligned address, byte enables allowed (the core's row
// mask; the pattern repeats per byte_enable_length). b_transport adds the time until the last
// byte is read or written to the delay; transport_dbg reads and writes without timing.
// Errors: ADDRESS_ERROR (out of range or misaligned), BURST_ERROR (length not whole tiles or
// rows, or a streaming width other than the length), BYTE_ENABLE_ERROR (byte enables on a
// read), COMMAND_ERROR (IGNORE).
#ifndef TPU_SC_MODELS_WEIGHT_DRAM_H_
#define TPU_SC_MODELS_WEIGHT_DRAM_H_

#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/sparse_memory.h"
#include "sc_models/ports/memory_ports.h"

namespace tpu::sc {

struct WeightDramConfig {
  int n = 16;                        // MXU size: a tile is n*n bytes, a row n bytes
  uint64_t size_bytes = 1ull << 22;  // DramBytes
  int beat_bits = 256;               // read port width (DramWidth), divides 8*n*n
  double clock_mhz = 700.0;
  int latency_cycles = 20;  // tile request -> its first beat

  double bytes_per_cycle() const { return beat_bits / 8.0; }
  double bandwidth_bytes_per_s() const { return bytes_per_cycle() * clock_mhz * 1e6; }
  // The narrowest beat (a power of two bytes, dividing a tile) that gives at least
  // `bytes_per_s` at clock_mhz; throws std::invalid_argument if even a whole tile per cycle
  // does not.
  static int BeatBitsFor(double bytes_per_s, double clock_mhz, int n);
  // Throws std::invalid_argument naming the field.
  void Validate() const;
};

class WeightDram : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<WeightDram> socket;

  struct Stats {
    uint64_t tiles_read = 0;
    uint64_t rows_written = 0;
    uint64_t errors = 0;  // payloads answered with an error status
  };

  WeightDram(sc_core::sc_module_name name, const WeightDramConfig& config);

  const WeightDramConfig& config() const { return config_; }
  sc_core::sc_time cycle() const { return cycle_; }
  // The cycle-level port (deterministic timing: always ready, latency_cycles, a beat per
  // cycle) over the same bytes.
  DramPortModel& cycle_port() { return port_; }
  model::SparseMemory& bytes() { return port_.bytes(); }  // stored sparsely: 8 GiB is fine
  const Stats& stats() const { return stats_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  // Checks trans; sets its error status and returns false if it breaks the rules.
  bool Check(tlm::tlm_generic_payload& trans);

  WeightDramConfig config_;
  sc_core::sc_time cycle_;
  DramPortModel port_;
  sc_core::sc_time read_free_ = sc_core::SC_ZERO_TIME;   // last beat of the reads so far
  sc_core::sc_time write_free_ = sc_core::SC_ZERO_TIME;  // last row of the writes so far
  Stats stats_;
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_WEIGHT_DRAM_H_
