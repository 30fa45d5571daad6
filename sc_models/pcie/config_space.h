// The device's PCI configuration space (docs/host_if.md section 8), in plain C++: the register
// offsets and fields a host uses, the enumeration sequence every root complex of the models
// runs (EnumerationSteps), and ConfigSpace, the function's registers as the RTL's
// tpu_host_cfg implements them (the model device answers with it; tests compare against it).
#ifndef TPU_SC_MODELS_PCIE_CONFIG_SPACE_H_
#define TPU_SC_MODELS_PCIE_CONFIG_SPACE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tpu::sc {

// Byte offsets of the registers.
inline constexpr uint16_t kCfgIds = 0x00;            // Device ID [31:16], Vendor ID [15:0]
inline constexpr uint16_t kCfgCommand = 0x04;        // Status [31:16], Command [15:0]
inline constexpr uint16_t kCfgClass = 0x08;          // Class code [31:8], Revision ID [7:0]
inline constexpr uint16_t kCfgHeader = 0x0C;         // Header Type [23:16]
inline constexpr uint16_t kCfgBar0 = 0x10;           // BAR0
inline constexpr uint16_t kCfgSubsystem = 0x2C;      // Subsystem ID, Subsystem Vendor ID
inline constexpr uint16_t kCfgCapPtr = 0x34;         // Capabilities Pointer [7:0]
inline constexpr uint16_t kCfgPcieCap = 0x40;        // PCI Express capability: header
inline constexpr uint16_t kCfgDeviceCaps = 0x44;     // Device Capabilities
inline constexpr uint16_t kCfgDeviceControl = 0x48;  // Device Status [31:16], Control [15:0]

inline constexpr uint16_t kVendorId = 0x1234;  // not an assigned vendor ID (a placeholder)
inline constexpr uint16_t kTpuDeviceId = 0x7470;
inline constexpr uint32_t kClassCode = 0x120000;  // processing accelerator
inline constexpr uint8_t kRevisionId = 0x01;
inline constexpr uint32_t kBar0Bytes = 4096;

inline constexpr uint32_t kCommandMemorySpace = 1u << 1;
inline constexpr uint32_t kCommandBusMaster = 1u << 2;
inline constexpr uint32_t kStatusCapList = 1u << 20;  // in the Command/Status DW
// Device Control: Relaxed Ordering and No Snoop enables (reset 1), MPS [7:5], MRRS [14:12].
inline constexpr uint32_t kDevCtlRelaxedOrdering = 1u << 4;
inline constexpr uint32_t kDevCtlNoSnoop = 1u << 11;
inline constexpr int kDevCtlMpsLsb = 5;
inline constexpr int kDevCtlMrrsLsb = 12;

// Device Control's encoding of a size: the largest e with 128 << e <= bytes (0 below 128, at
// most 5 = 4096 bytes), and the bytes of an encoding (reserved 6 and 7: 4096).
uint32_t SizeCode(uint32_t bytes);
uint32_t SizeOfCode(uint32_t code);
// Device Control with the given MPS and MRRS encodings and the other enables at reset.
uint32_t DeviceControl(uint32_t mps_code, uint32_t mrrs_code);

// One step of the enumeration: a configuration read (checked against `expect` under
// `expect_mask`) or write.
struct ConfigStep {
  bool write = false;
  uint16_t offset = 0;
  uint32_t value = 0;        // written
  uint32_t expect = 0;       // a read's value under expect_mask
  uint32_t expect_mask = 0;  // 0: not checked
  std::string what;          // for an error message
};
// What a host does before it uses the device: read the IDs (expect the TPU's), size BAR0
// (write all ones, read 4 KiB's mask back), assign it `bar0`, set MPS and MRRS from the link's
// sizes, set Memory Space and Bus Master Enable, read Command back.
std::vector<ConfigStep> EnumerationSteps(uint32_t bar0, uint32_t max_payload,
                                         uint32_t max_read_request);
// "" if `value` is what `step` expects, else a message naming the register and both values.
std::string CheckConfigStep(const ConfigStep& step, uint32_t value);
// Runs `steps` through blocking configuration accessors (a platform's bring-up); throws
// std::runtime_error with CheckConfigStep's message at the first unexpected value.
void RunEnumeration(const std::vector<ConfigStep>& steps,
                    const std::function<uint32_t(uint16_t offset)>& read,
                    const std::function<void(uint16_t offset, uint32_t value)>& write);

// The function's registers (tpu_host_cfg): reads of unimplemented offsets give 0, writes
// change only the read/write fields (Command's MSE and BME, BAR0 bits 31:12, Device Control's
// RO / NS enables, MPS and MRRS) and capture the bus and device numbers of their target ID.
class ConfigSpace {
 public:
  ConfigSpace(uint32_t max_payload, uint32_t max_read_request)
      : max_payload_(max_payload), max_read_request_(max_read_request) {}

  uint32_t Read(uint16_t offset) const;
  void Write(uint16_t offset, uint32_t value, uint8_t first_be, uint16_t target_id);

  uint16_t id() const { return id_; }  // requester / completer ID (0 before any write)
  bool memory_enable() const { return command_ & kCommandMemorySpace; }
  bool bus_master() const { return command_ & kCommandBusMaster; }
  // The sizes the DMA uses: Device Control's, clamped to the build's.
  uint32_t max_payload() const;
  uint32_t max_read_request() const;

 private:
  uint32_t max_payload_, max_read_request_;
  uint16_t id_ = 0;
  uint32_t command_ = 0;
  uint32_t bar0_ = 0;
  uint32_t dev_ctl_ = DeviceControl(0, 2);  // 128 / 512 bytes
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_PCIE_CONFIG_SPACE_H_
