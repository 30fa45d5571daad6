#include "sc_models/weight_dram.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tpu::sc {
namespace {

DramPortModel MakePort(const WeightDramConfig& c) {
  c.Validate();
  DramPortModel port(c.n, c.beat_bits, c.size_bytes, /*seed=*/0);
  PortTiming t;  // deterministic: always ready, fixed latency, a beat per cycle
  t.ready_prob = 1.0;
  t.min_latency = t.max_latency = c.latency_cycles;
  t.rsp_prob = 1.0;
  port.set_timing(t);
  return port;
}

}  // namespace

int WeightDramConfig::BeatBitsFor(double bytes_per_s, double clock_mhz, int n) {
  if (!(clock_mhz > 0) || !(bytes_per_s > 0) || n < 1) {
    throw std::invalid_argument("BeatBitsFor needs a positive bandwidth, clock and n");
  }
  const double need = bytes_per_s / (clock_mhz * 1e6);  // bytes per cycle
  for (int bytes = 1; bytes <= n * n; bytes *= 2) {
    if ((n * n) % bytes == 0 && bytes >= need) return bytes * 8;
  }
  throw std::invalid_argument("a weight-DRAM bandwidth of " + std::to_string(bytes_per_s / 1e9) +
                              " GB/s needs more than a tile per cycle at " +
                              std::to_string(clock_mhz) + " MHz");
}

void WeightDramConfig::Validate() const {
  if (n < 1) throw std::invalid_argument("weight DRAM: n must be >= 1");
  if (beat_bits < 8 || beat_bits % 8 != 0 || (n * n) % (beat_bits / 8) != 0) {
    throw std::invalid_argument("weight DRAM: beat of " + std::to_string(beat_bits) +
                                " bits must be whole bytes dividing a tile of " +
                                std::to_string(n * n) + " bytes");
  }
  if (size_bytes == 0 || size_bytes % (uint64_t(n) * n) != 0) {
    throw std::invalid_argument("weight DRAM: size of " + std::to_string(size_bytes) +
                                " bytes is not a whole number of tiles");
  }
  if (!(clock_mhz > 0) || !std::isfinite(clock_mhz)) {
    throw std::invalid_argument("weight DRAM: clock must be > 0 MHz");
  }
  if (latency_cycles < 0) throw std::invalid_argument("weight DRAM: latency must be >= 0");
}

WeightDram::WeightDram(sc_core::sc_module_name name, const WeightDramConfig& config)
    : sc_core::sc_module(name),
      socket("socket"),
      config_(config),
      cycle_(1e3 / config.clock_mhz, sc_core::SC_NS),
      port_(MakePort(config)) {
  socket.register_b_transport(this, &WeightDram::b_transport);
  socket.register_transport_dbg(this, &WeightDram::transport_dbg);
}

bool WeightDram::Check(tlm::tlm_generic_payload& trans) {
  const uint64_t address = trans.get_address();
  const uint64_t length = trans.get_data_length();
  const uint64_t unit = trans.is_read() ? uint64_t(config_.n) * config_.n : config_.n;
  tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
  if (!trans.is_read() && !trans.is_write()) {
    status = tlm::TLM_COMMAND_ERROR_RESPONSE;
  } else if (address >= config_.size_bytes || length > config_.size_bytes - address ||
             address % unit != 0) {
    status = tlm::TLM_ADDRESS_ERROR_RESPONSE;
  } else if (length == 0 || length % unit != 0 || trans.get_streaming_width() != length) {
    status = tlm::TLM_BURST_ERROR_RESPONSE;
  } else if (trans.is_read() && trans.get_byte_enable_ptr() != nullptr) {
    status = tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  } else if (trans.get_byte_enable_ptr() != nullptr && trans.get_byte_enable_length() == 0) {
    status = tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  }
  trans.set_response_status(status);
  if (status != tlm::TLM_OK_RESPONSE) ++stats_.errors;
  return status == tlm::TLM_OK_RESPONSE;
}

void WeightDram::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (!Check(trans)) return;
  const uint64_t address = trans.get_address();
  const uint64_t length = trans.get_data_length();
  uint8_t* data = trans.get_data_ptr();
  model::SparseMemory& bytes = port_.bytes();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time ready = now + delay;
  if (trans.is_read()) {
    bytes.Read(address, data, length);
    const uint64_t beats = length * 8 / config_.beat_bits;
    const sc_core::sc_time first = std::max(ready + cycle_ * config_.latency_cycles, read_free_);
    read_free_ = first + cycle_ * static_cast<double>(beats);
    delay = read_free_ - now;
    stats_.tiles_read += length / (uint64_t(config_.n) * config_.n);
  } else {
    const uint8_t* be = trans.get_byte_enable_ptr();
    const unsigned int be_length = trans.get_byte_enable_length();
    if (be == nullptr) {
      bytes.Write(address, data, length);
    } else {
      std::vector<uint8_t> merged = bytes.Read(address, length);  // disabled bytes keep theirs
      for (uint64_t i = 0; i < length; ++i) {
        if (be[i % be_length] == TLM_BYTE_ENABLED) merged[i] = data[i];
      }
      bytes.Write(address, merged);
    }
    const uint64_t rows = length / config_.n;
    write_free_ = std::max(ready, write_free_) + cycle_ * static_cast<double>(rows);
    delay = write_free_ - now;
    stats_.rows_written += rows;
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int WeightDram::transport_dbg(tlm::tlm_generic_payload& trans) {
  const uint64_t address = trans.get_address();
  const uint64_t length = trans.get_data_length();
  if (address >= config_.size_bytes) return 0;
  const uint64_t n = std::min<uint64_t>(length, config_.size_bytes - address);
  model::SparseMemory& bytes = port_.bytes();
  if (trans.is_read()) {
    bytes.Read(address, trans.get_data_ptr(), n);
  } else if (trans.is_write()) {
    bytes.Write(address, trans.get_data_ptr(), n);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return static_cast<unsigned int>(n);
}

}  // namespace tpu::sc
