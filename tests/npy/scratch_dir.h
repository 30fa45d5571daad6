// A fresh directory per test for files the test writes, removed when the test ends. Shared by the
// .npy and `tpu` command tests.
#ifndef TPU_TESTS_NPY_SCRATCH_DIR_H_
#define TPU_TESTS_NPY_SCRATCH_DIR_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace tpu::testing {

class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = "tpu_test_" + std::to_string(::getpid()) + "_";
    if (info != nullptr) name += std::string(info->test_suite_name()) + "_" + info->name();
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // Path of `file` inside the directory.
  std::string operator/(const std::string& file) const { return (path_ / file).string(); }
  std::string str() const { return path_.string(); }

  // Writes `bytes` to `file` in the directory and returns its path.
  std::string WriteFile(const std::string& file, std::string_view bytes) const {
    const std::string path = *this / file;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }

 private:
  std::filesystem::path path_;
};

// The whole content of a file ("" if it cannot be read).
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace tpu::testing

#endif  // TPU_TESTS_NPY_SCRATCH_DIR_H_
