// The device configurations the size-dependent suites run on (tests/CMakeLists.txt computes
// them from the built configurations, TPU_BUILD_DEVICES: one per array size N), for GoogleTest
// value parameters: SuiteDevices(kShort) for the short suites (label unit: N up to the default
// device's), SuiteDevices(kLong) for the long ones (every size built). Test names carry the
// device's name (DeviceParamName).
#ifndef TPU_TESTS_SUITE_DEVICES_H_
#define TPU_TESTS_SUITE_DEVICES_H_

#include <gtest/gtest.h>

#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/devices_gen.h"

namespace tpu::devices {

// GoogleTest prints a device parameter by name (test listings, ctest names), not its address.
inline void PrintTo(const DeviceConfig* device, std::ostream* os) { *os << device->name; }

}  // namespace tpu::devices

namespace tpu::testing {

enum class SuiteLength { kShort, kLong };

// The configurations named in TPU_SUITE_DEVICES_SHORT / _LONG ("n8,n16"), in that order (the
// default device first). Throws std::logic_error for a name the list does not have (a stale
// build: reconfigure).
inline std::vector<const devices::DeviceConfig*> SuiteDevices(SuiteLength length) {
  const std::string names =
      length == SuiteLength::kShort ? TPU_SUITE_DEVICES_SHORT : TPU_SUITE_DEVICES_LONG;
  std::vector<const devices::DeviceConfig*> out;
  size_t begin = 0;
  while (begin < names.size()) {
    size_t end = names.find(',', begin);
    if (end == std::string::npos) end = names.size();
    const std::string name = names.substr(begin, end - begin);
    const devices::DeviceConfig* d = devices::FindDevice(name);
    if (d == nullptr) {
      throw std::logic_error("suite device '" + name + "' is not in isa/devices.json: reconfigure");
    }
    out.push_back(d);
    begin = end + 1;
  }
  return out;
}

// A device-parameterized test's name suffix: the device's name (INSTANTIATE_TEST_SUITE_P's
// name generator).
inline std::string DeviceParamName(
    const ::testing::TestParamInfo<const devices::DeviceConfig*>& info) {
  return info.param->name;
}

// Whether the running test was instantiated under the prefix Long/ (the long suites' devices)
// rather than Short/.
inline bool InLongSuite() {
  const std::string suite =
      ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name();
  return suite.rfind("Long/", 0) == 0;
}

}  // namespace tpu::testing

#endif  // TPU_TESTS_SUITE_DEVICES_H_
