// Transaction layer packets of docs/host_if.md section 1, the one TLP type of the simulation
// models and benches, in plain C++ (no SystemC): the Tlp struct, its two encodings, the
// flow-control class of each TLP, the request rules, and the completion rules: splitting a
// memory read into completions at the read completion boundary, and reassembling them at the
// requester.
//
// Byte image (what a PcieLink's generic payloads carry): the header's 3 or 4 DWs, then the
// payload's DWs. A header DW is stored as a little-endian 32-bit word holding PCIe's bit
// numbering (DW0 bits [31:29] fmt, [28:24] type, [9:0] length), i.e. exactly the DW the RTL sees
// at bits [32d +: 32] of its first beat; payload bytes are in memory order. (On a real wire
// header bytes go most significant first; the model never needs the wire's byte order, only its
// byte count.)
//
// Beats (the RTL's TLP streams of 128, 256 or 512 bits, docs/host_if.md section 1): D = 4, 8
// or 16 DWs per beat, the header DWs in beat 0 (its DWs past the header zero), payload DW d in
// DW d % D of beat 1 + d / D (byte b of a payload DW at bits [8b +: 8]), sop on the first beat,
// eop on the last.
#ifndef TPU_SC_MODELS_PCIE_TLP_H_
#define TPU_SC_MODELS_PCIE_TLP_H_

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpu::sc {

inline constexpr uint16_t kRootComplexId = 0x0000;  // requester/completer ID of the root port
// The ID the root complex gives the device at enumeration (bus 1, device 0, function 0): its
// configuration requests target it and the device takes it as its requester ID.
inline constexpr uint16_t kDeviceId = 0x0100;

enum class TlpKind : uint8_t {
  kMemRead,         // MRd: fmt 000 (3 DW) / 001 (4 DW), type 00000
  kMemWrite,        // MWr: fmt 010 / 011, type 00000
  kCompletion,      // Cpl: fmt 000, type 01010 (no data: errors, or a zero-length read)
  kCompletionData,  // CplD: fmt 010, type 01010
  kConfigRead0,     // CfgRd0: fmt 000, type 00100 (one DW)
  kConfigWrite0,    // CfgWr0: fmt 010, type 00100 (one DW of data)
};

enum class CompletionStatus : uint8_t {
  kSuccess = 0,             // SC
  kUnsupportedRequest = 1,  // UR
  kConfigRetry = 2,         // CRS
  kCompleterAbort = 4,      // CA
};

// Flow-control class: MWr posted, MRd and configuration requests non-posted, Cpl/CplD
// completion.
enum class CreditClass : uint8_t { kPosted = 0, kNonPosted = 1, kCompletion = 2 };

// DW0 bits [23:10] except EP (bit 14): Tlp::dw0_reserved.
inline constexpr uint32_t kDw0ReservedMask = 0x00FFBC00;

// A malformed TLP image or a completion that does not fit its request.
class TlpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Tlp {
  TlpKind kind = TlpKind::kMemWrite;
  uint16_t requester_id = 0;
  uint8_t tag = 0;
  // MRd / MWr
  uint64_t address = 0;  // DW-aligned; 4 GiB and above takes the 4-DW header
  uint8_t first_be = 0xF;
  uint8_t last_be = 0;     // 0 when the length is one DW
  uint32_t length_dw = 1;  // MRd: DWs requested; MWr / CplD: payload DWs; 1..1024
  // CfgRd0 / CfgWr0 (length_dw 1, first_be, no last_be)
  uint16_t target_id = 0;      // bus [15:8], device [7:3], function [2:0]
  uint16_t config_offset = 0;  // byte offset of the register, DW aligned, 0..4092
  // Cpl / CplD
  uint16_t completer_id = 0;
  CompletionStatus status = CompletionStatus::kSuccess;
  uint16_t byte_count = 0;    // bytes left to complete, this completion's included (1..4096)
  uint8_t lower_address = 0;  // address bits [6:0] of this completion's first byte
  // MWr / CplD payload: length_dw * 4 bytes in memory order (disabled bytes included).
  std::vector<uint8_t> data;
  // DW0 besides fmt, type and length: EP (bit 14), and the other bits of [23:10] (TC,
  // attributes, TH, TD, AT; kDw0ReservedMask). Every model here sends them 0 except where a
  // test poisons a TLP; decoders keep them so that a receiver can check them.
  bool poisoned = false;
  uint32_t dw0_reserved = 0;

  bool has_data() const {
    return kind == TlpKind::kMemWrite || kind == TlpKind::kCompletionData ||
           kind == TlpKind::kConfigWrite0;
  }
  // A memory request (configuration requests are is_config()).
  bool is_request() const { return kind == TlpKind::kMemRead || kind == TlpKind::kMemWrite; }
  bool is_config() const {
    return kind == TlpKind::kConfigRead0 || kind == TlpKind::kConfigWrite0;
  }
  bool four_dw_header() const { return is_request() && address >= (uint64_t{1} << 32); }
  uint32_t header_bytes() const { return four_dw_header() ? 16 : 12; }
  uint32_t payload_bytes() const { return has_data() ? length_dw * 4 : 0; }
  CreditClass credit_class() const;
  // "MWr 0x100000000 64 DW tag 3" and the like, for error messages.
  std::string Describe() const;
};

// A read of `bytes` (1..4096) host bytes at any byte address, its byte enables marking the
// bytes wanted. The DW span must not cross a 4 KiB boundary (CheckRequest).
Tlp MakeMemRead(uint16_t requester_id, uint8_t tag, uint64_t address, uint32_t bytes);
// A write of `bytes` bytes (1..4096) at any byte address; disabled bytes of the first and last
// DW are sent as 0.
Tlp MakeMemWrite(uint16_t requester_id, uint64_t address, const uint8_t* bytes, uint32_t length);

// Type 0 configuration requests of one DW: a read of the register at byte offset `offset` of
// function `target_id`, and a write of `value` to it under `first_be`.
Tlp MakeConfigRead(uint16_t requester_id, uint8_t tag, uint16_t target_id, uint16_t offset);
Tlp MakeConfigWrite(uint16_t requester_id, uint8_t tag, uint16_t target_id, uint16_t offset,
                    uint32_t value, uint8_t first_be = 0xF);

// Requests: the address of the first enabled byte and the number of bytes from it to the last
// enabled byte (a zero-length read, one DW with no byte enabled, counts 1 byte, as its
// completion's byte count does).
uint64_t RequestFirstByte(const Tlp& request);
uint32_t RequestByteCount(const Tlp& request);

// Why a request breaks PCIe's rules for the given sizes ("" if it does not): payload above the
// max payload size, a read above the max read request size, a 4 KiB crossing, byte enables.
std::string CheckRequest(const Tlp& request, uint32_t max_payload, uint32_t max_read_request);

std::vector<uint8_t> EncodeTlp(const Tlp& tlp);
// Throws TlpError naming what is malformed.
Tlp DecodeTlp(const uint8_t* image, size_t size);

// One beat of the RTL's TLP streams: `dws` DWs (4, 8 or 16: 128, 256 or 512 bits), DW i at
// bits [32i +: 32]; dw[i] for i >= dws is unused (0).
inline constexpr int kMaxBeatDws = 16;
struct TlpBeat {
  std::array<uint32_t, kMaxBeatDws> dw{};
  int dws = 4;
  bool sop = false, eop = false;
};

// Throws TlpError unless `beat_dws` is a stream width the RTL has (4, 8 or 16 DWs).
void CheckBeatDws(int beat_dws);

// The beats of a byte image, `beat_dws` DWs each: header beat, then ceil(payload DWs /
// beat_dws) payload beats (the unused DWs 0). Throws TlpError if the image is not one TLP
// (PeekTlp) or the width is not 4, 8 or 16 DWs.
std::vector<TlpBeat> TlpImageToBeats(const uint8_t* image, size_t size, int beat_dws = 4);
// The byte image of the TLP in `beats` (their width from beat 0's `dws`): the header DWs of
// beat 0 (by DW0's fmt), then the payload DWs DW0's length announces. Throws TlpError naming
// what is wrong: sop or eop misplaced, beats of different or unknown widths, a DW of beat 0
// past the header not zero, payload beats not matching the length, and whatever PeekTlp
// rejects (unsupported fmt/type).
std::vector<uint8_t> TlpBeatsToImage(const std::vector<TlpBeat>& beats);

// The beat codec for Tlp: EncodeTlp / DecodeTlp through the image, with the checks of
// TlpBeatsToImage; DecodeTlpBeats also rejects a request whose address bits 1:0 (PH) are set.
std::vector<TlpBeat> EncodeTlpBeats(const Tlp& tlp, int beat_dws = 4);
Tlp DecodeTlpBeats(const std::vector<TlpBeat>& beats);

// What a PcieLink needs of an image without decoding it all (throws TlpError like DecodeTlp).
struct TlpShape {
  TlpKind kind;
  uint32_t header_bytes;
  uint32_t payload_bytes;
  CreditClass credit_class;
};
TlpShape PeekTlp(const uint8_t* image, size_t size);

// How a completer splits a read's data: each completion carries at most max_payload bytes and,
// unless it is the last, ends on a multiple of rcb (the read completion boundary, 64 or 128);
// with one_rcb_per_completion every completion stays within one RCB-aligned block (as some
// root complexes do), otherwise completions are as large as the rules allow.
struct CompletionSplit {
  uint32_t rcb = 64;
  uint32_t max_payload = 256;
  bool one_rcb_per_completion = false;
};

// The CplDs that answer `request` (an MRd) with its data. span holds the request's whole DW
// span: request.length_dw * 4 bytes from request.address. Throws TlpError on a bad split
// configuration or a request that is not a read.
std::vector<Tlp> SplitReadCompletions(const Tlp& request, const std::vector<uint8_t>& span,
                                      uint16_t completer_id, const CompletionSplit& split);

// A Cpl without data that ends `request` with an error status.
Tlp MakeErrorCompletion(const Tlp& request, uint16_t completer_id, CompletionStatus status);

// Collects the completions of one read in order and checks each against what is still
// expected (tag, requester, byte count, lower address, length), as a requester must.
class ReadReassembler {
 public:
  explicit ReadReassembler(const Tlp& request);

  // Takes the next completion; throws TlpError if it does not fit. A completion with an error
  // status ends the read (failed() then true).
  void Accept(const Tlp& completion);

  bool done() const { return remaining_ == 0 || failed_; }
  bool failed() const { return failed_; }
  CompletionStatus status() const { return status_; }
  uint32_t completions() const { return completions_; }
  // The enabled bytes, from the first one (RequestByteCount(request) of them).
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  Tlp request_;
  uint64_t next_ = 0;       // address of the next byte expected
  uint32_t remaining_ = 0;  // bytes still expected
  bool failed_ = false;
  CompletionStatus status_ = CompletionStatus::kSuccess;
  uint32_t completions_ = 0;
  std::vector<uint8_t> bytes_;
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_PCIE_TLP_H_
