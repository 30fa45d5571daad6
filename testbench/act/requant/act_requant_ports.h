// Drives the requantization ports that tpu_act_requant and tpu_act share (configuration, LUT
// load, accumulator rows in, int8 rows out), for any Verilated model that has them. Compiled
// only inside a model's library, like the harnesses that use it.
#ifndef TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_PORTS_H_
#define TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_PORTS_H_

#include <stdexcept>
#include <string>

#include "act/requant/act_requant_harness.h"
#include "common/port_bits.h"

namespace tpu::tb {

inline constexpr int kActShiftBits = 6;  // tpu_pkg::ActShiftWidth

template <int N, typename Dut>
void DriveRequantConfig(Dut& d, const ActRequantConfig& cfg, const char* who) {
  const size_t n = N;
  if (cfg.bias.size() != n || cfg.multiplier.size() != n || cfg.shift.size() != n) {
    throw std::invalid_argument(std::string(who) +
                                ": bias, multiplier and shift need n() values");
  }
  for (int c = 0; c < N; ++c) {
    SetBits(d.bias_i, 32 * c, 32, uint32_t(cfg.bias[c]));
    SetBits(d.multiplier_i, 32 * c, 32, uint32_t(cfg.multiplier[c]));
    SetBits(d.shift_i, kActShiftBits * c, kActShiftBits, uint32_t(cfg.shift[c]));
  }
  d.out_zero_point_i = uint8_t(cfg.out_zero_point);
  d.act_min_i = uint8_t(cfg.act_min);
  d.act_max_i = uint8_t(cfg.act_max);
  d.lut_enable_i = cfg.lut_enable;
}

template <typename Dut>
void DriveLutWrite(Dut& d, bool we, uint8_t addr, int8_t data) {
  d.lut_we_i = we;
  d.lut_addr_i = we ? addr : 0;
  d.lut_data_i = we ? uint8_t(data) : 0;
}

// Accumulator row in: int32 per channel; ignored when !valid.
template <int N, typename Dut>
void DriveRowIn(Dut& d, bool valid, const int32_t* row, uint32_t tag) {
  d.in_valid_i = valid;
  d.in_tag_i = valid ? tag : 0;
  for (int c = 0; c < N; ++c) SetBits(d.in_row_i, 32 * c, 32, valid ? uint32_t(row[c]) : 0);
}

template <int N, typename Dut>
void ReadRowOut(Dut& d, int8_t* row) {
  for (int c = 0; c < N; ++c) row[c] = int8_t(GetBits(d.out_row_o, 8 * c, 8));
}

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_PORTS_H_
