// tpu::npy against numpy itself (numpy_interop.py): files numpy writes, including versions 2.0
// and 3.0, read back with the right shape and content, and every kind of file numpy can write
// that tpu does not take is rejected with its dtype or layout named; files tpu::npy writes load
// in numpy and are byte for byte what np.save writes.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "npy/npy.h"
#include "scratch_dir.h"

namespace tpu::npy {
namespace {

// Runs numpy_interop.py; returns its exit status and appends its output to `output`.
int RunNumpy(const std::string& mode, const std::string& dir, std::string& output) {
  const std::string command = std::string("'") + TPU_NUMPY_PYTHON + "' '" + TPU_NUMPY_SCRIPT +
                              "' " + mode + " '" + dir + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void RequireNumpy() {
  if (std::string(TPU_NUMPY_PYTHON).empty()) {
    // A missing check is a failure, not a skip: the build's dependencies include numpy.
    FAIL() << "no python3 with numpy found at configure time: run scripts/install-deps.sh "
              "(it installs python3-numpy), then reconfigure";
  }
}

// The pattern numpy_interop.py fills good files with.
template <typename T>
std::vector<T> Pattern(int64_t count) {
  std::vector<T> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    values[static_cast<size_t>(i)] =
        static_cast<T>(static_cast<uint32_t>(uint64_t(i) * 2654435761u + 12345u));
  }
  return values;
}

std::string NameOf(const std::string& dtype, const std::vector<int64_t>& shape, int major) {
  std::string dims;
  for (int64_t d : shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
  return dtype + "_" + (shape.empty() ? "scalar" : dims) + "_v" + std::to_string(major) + ".npy";
}

// "int32_3x4_v2.npy" -> ("int32", {3, 4}); `ok` false for other names.
bool ParseName(const std::string& name, std::string& dtype, std::vector<int64_t>& shape) {
  const size_t a = name.find('_'), b = name.rfind("_v");
  if (a == std::string::npos || b == std::string::npos || b <= a) return false;
  dtype = name.substr(0, a);
  const std::string dims = name.substr(a + 1, b - a - 1);
  shape.clear();
  if (dims != "scalar") {
    size_t start = 0;
    while (start <= dims.size()) {
      const size_t x = dims.find('x', start);
      shape.push_back(std::stoll(dims.substr(start, x - start)));
      if (x == std::string::npos) break;
      start = x + 1;
    }
  }
  return dtype == "int8" || dtype == "int32";
}

TEST(NpyNumpy, ReadsWhatNumpyWrites) {
  ASSERT_NO_FATAL_FAILURE(RequireNumpy());
  testing::ScratchDir dir;
  std::string output;
  ASSERT_EQ(RunNumpy("write", dir.str(), output), 0) << output;
  int good = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.str())) {
    const std::string name = entry.path().filename().string();
    std::string dtype;
    std::vector<int64_t> shape;
    if (name.rfind("bad_", 0) == 0 || !ParseName(name, dtype, shape)) continue;
    SCOPED_TRACE(name);
    ++good;
    const int64_t count = golden::ElementCount(shape);
    if (dtype == "int8") {
      const auto t = Read<int8_t>(entry.path().string());
      EXPECT_EQ(t.shape, shape);
      EXPECT_EQ(t.data, Pattern<int8_t>(count));
    } else {
      const auto t = Read<int32_t>(entry.path().string());
      EXPECT_EQ(t.shape, shape);
      EXPECT_EQ(t.data, Pattern<int32_t>(count));
    }
    EXPECT_EQ(ReadHeader(entry.path().string()).major, name[name.size() - 5] - '0');
  }
  EXPECT_EQ(good, 8);

  auto expect_error = [&](const std::string& file, const std::string& part) {
    const std::string path = dir / file;
    try {
      Read<int8_t>(path);
      ADD_FAILURE() << file << ": read without an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": " + part), std::string::npos)
          << "message: " << e.what() << "\nexpected: " << part;
    }
  };
  expect_error("bad_fortran.npy", "fortran_order is True");
  expect_error("bad_int16.npy", "dtype '<i2' (int16): expected int8 ('|i1')");
  expect_error("bad_float32.npy", "dtype '<f4' (float32): expected int8");
  expect_error("bad_uint8.npy", "dtype '|u1' (uint8): expected int8");
  expect_error("bad_bool.npy", "dtype '|b1' (bool): expected int8");
  expect_error("bad_bigendian.npy", "dtype '>i4' (big-endian int32)");
  expect_error("bad_structured.npy", "dtype [('a', '<i4'), ('b', '|i1')] is a structured dtype");
  expect_error("x.npz", "is a zip archive");
}

TEST(NpyNumpy, NumpyReadsWhatWeWrite) {
  ASSERT_NO_FATAL_FAILURE(RequireNumpy());
  testing::ScratchDir dir;
  const std::vector<std::vector<int64_t>> shapes = {
      {},     {1},       {5},          {0},    {2, 3},
      {0, 4}, {3, 1, 2}, {2, 2, 2, 3}, {1000}, std::vector<int64_t>(15, 1)};
  for (int major : {1, 2}) {
    for (const auto& shape : shapes) {
      const int64_t count = golden::ElementCount(shape);
      Write(dir / NameOf("int8", shape, major),
            golden::Tensor<int8_t>(shape, Pattern<int8_t>(count)), {major});
      Write(dir / NameOf("int32", shape, major),
            golden::Tensor<int32_t>(shape, Pattern<int32_t>(count)), {major});
    }
  }
  std::string output;
  EXPECT_EQ(RunNumpy("check", dir.str(), output), 0) << output;
  EXPECT_NE(output.find("checked 40 files, 0 problems"), std::string::npos) << output;
}

}  // namespace
}  // namespace tpu::npy
