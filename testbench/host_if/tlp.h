// Transaction-layer packets as the device's TLP streams carry them (docs/host_if.md section 1):
// 128-bit beats of four DWs, the header in the first beat with PCIe's bit numbering in each DW,
// payload DW d in DW d % 4 of beat 1 + d / 4. Free of Verilator, for the root-complex model
// and the tests.
#ifndef TPU_TESTBENCH_HOST_IF_TLP_H_
#define TPU_TESTBENCH_HOST_IF_TLP_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tpu::tb::tlp {

inline constexpr uint16_t kDeviceId = 0x0100;  // bus 1, device 0, function 0
inline constexpr uint16_t kRootId = 0x0000;    // the root complex
inline constexpr uint8_t kStatusSc = 0;        // successful completion
inline constexpr uint8_t kStatusUr = 1;        // unsupported request
inline constexpr uint8_t kStatusCa = 4;        // completer abort

enum class Kind { kMRd, kMWr, kCpl, kCplD, kOther };

struct Tlp {
  Kind kind = Kind::kOther;
  uint8_t fmt = 0, type = 0;  // as sent (set by Make*; kOther: anything)
  uint32_t length = 1;        // DWs, 1..1024 (1024 encodes as 0)
  bool poisoned = false;      // EP
  uint32_t dw0_other = 0;     // DW0 bits 23:10 except EP (TC, attributes, TD, AT): 0 normally
  // Requests.
  uint16_t requester = 0;
  uint8_t tag = 0;
  uint8_t first_be = 0, last_be = 0;
  uint64_t addr = 0;     // byte address, bits 1:0 zero
  bool four_dw = false;  // 4-DW header (64-bit address)
  // Completions.
  uint16_t completer = 0;
  uint8_t status = 0;
  uint16_t byte_count = 0;        // 1..4096 (4096 encodes as 0)
  uint8_t lower_addr = 0;         // 7 bits
  std::vector<uint32_t> payload;  // DWs, byte b of a DW at bits [8b +: 8]

  bool has_data() const { return fmt & 2; }
  std::string Describe() const;
};

struct Beat {
  std::array<uint32_t, 4> dw{};
  bool sop = false, eop = false;
};

// Requests and completions with the header fields set consistently (fmt/type, 3 or 4 DWs by
// address, length from the payload).
Tlp MakeMRd(uint16_t requester, uint8_t tag, uint64_t addr, uint32_t length_dw, uint8_t first_be,
            uint8_t last_be);
Tlp MakeMWr(uint16_t requester, uint64_t addr, const std::vector<uint32_t>& payload,
            uint8_t first_be, uint8_t last_be);
Tlp MakeCplD(uint16_t completer, uint16_t requester, uint8_t tag, uint16_t byte_count,
             uint8_t lower_addr, const std::vector<uint32_t>& payload);
Tlp MakeCpl(uint16_t completer, uint16_t requester, uint8_t tag, uint8_t status,
            uint16_t byte_count, uint8_t lower_addr);

// The beats of a TLP: header beat, then ceil(payload / 4) payload beats.
std::vector<Beat> Encode(const Tlp& t);

// The TLP in `beats` (the first has sop, the last eop). False with a reason when the beats do
// not form one TLP of a kind the device or the root complex sends (unknown fmt/type, sop or eop
// misplaced, payload beats not matching the length).
bool Decode(const std::vector<Beat>& beats, Tlp* out, std::string* error);

}  // namespace tpu::tb::tlp

#endif  // TPU_TESTBENCH_HOST_IF_TLP_H_
