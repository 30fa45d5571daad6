#include "npy/npy.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <type_traits>

namespace tpu::npy {
namespace {

template <typename T>
struct Traits;
template <>
struct Traits<int8_t> {
  static constexpr const char* kDescr = "|i1";
  static constexpr const char* kName = "int8";
};
template <>
struct Traits<uint8_t> {
  static constexpr const char* kDescr = "|u1";
  static constexpr const char* kName = "uint8";
};
template <>
struct Traits<int32_t> {
  static constexpr const char* kDescr = "<i4";
  static constexpr const char* kName = "int32";
};
template <>
struct Traits<int64_t> {
  static constexpr const char* kDescr = "<i8";
  static constexpr const char* kName = "int64";
};
template <>
struct Traits<float> {
  static constexpr const char* kDescr = "<f4";
  static constexpr const char* kName = "float32";
};
template <>
struct Traits<double> {
  static constexpr const char* kDescr = "<f8";
  static constexpr const char* kName = "float64";
};

// Byte order does not matter for one-byte integers, so numpy accepts any marker there.
bool IsInt8(const std::string& d) {
  return d == "|i1" || d == "<i1" || d == ">i1" || d == "=i1" || d == "i1";
}
bool IsUint8(const std::string& d) {
  return d == "|u1" || d == "<u1" || d == ">u1" || d == "=u1" || d == "u1";
}

template <typename T>
bool Matches(const std::string& descr) {
  if constexpr (std::is_same_v<T, int8_t>) {
    return IsInt8(descr);
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return IsUint8(descr);
  } else {
    return descr == Traits<T>::kDescr;
  }
}

// The value of T whose little-endian bytes start at p.
template <typename T>
T LoadLittleEndian(const char* p) {
  uint64_t bits = 0;
  for (size_t b = sizeof(T); b-- > 0;) bits = (bits << 8) | static_cast<unsigned char>(p[b]);
  if constexpr (std::is_floating_point_v<T>) {
    std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t> raw =
        static_cast<decltype(raw)>(bits);
    T value;
    std::memcpy(&value, &raw, sizeof(T));
    return value;
  } else {
    return static_cast<T>(bits);
  }
}

template <typename T>
void StoreLittleEndian(T value, std::string& out) {
  uint64_t bits = 0;
  if constexpr (std::is_floating_point_v<T>) {
    std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t> raw;
    std::memcpy(&raw, &value, sizeof(T));
    bits = raw;
  } else {
    bits = static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(value));
  }
  for (size_t b = 0; b < sizeof(T); ++b) out += static_cast<char>((bits >> (8 * b)) & 0xff);
}

std::string Expected(const char* name, const char* descr) {
  return std::string(name) + " ('" + descr + "')";
}

template <typename T>
[[noreturn]] void WrongDtype(const std::string& name, const std::string& descr) {
  std::string msg = name + ": dtype '" + descr + "' (" + DescribeDescr(descr) + "): expected " +
                    Expected(Traits<T>::kName, Traits<T>::kDescr);
  if (IsInt8(descr) || descr == "<i4") throw Error(msg);
  // The right type in the wrong byte order.
  if (sizeof(T) > 1 && descr.size() == 3 &&
      descr.substr(1) == std::string(Traits<T>::kDescr).substr(1)) {
    throw Error(msg + ", little-endian; convert with a.astype('" + Traits<T>::kDescr + "')");
  }
  if (std::is_same_v<T, int8_t> || std::is_same_v<T, int32_t>) {
    throw Error(msg + "; tpu reads int8 and int32 arrays only");
  }
  throw Error(msg);
}

std::string SystemError() { return std::strerror(errno); }

// Elements of `shape`, or -1 if the count does not fit in int64 once multiplied by `item`.
int64_t CountElements(const std::vector<int64_t>& shape, int64_t item) {
  for (int64_t dim : shape) {
    if (dim == 0) return 0;
  }
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (count > std::numeric_limits<int64_t>::max() / item / dim) return -1;
    count *= dim;
  }
  return count;
}

std::string ReadAll(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(path + ": is a directory, expected a .npy file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading (" + SystemError() + ")");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(path + ": read failed (" + SystemError() + ")");
  return bytes;
}

}  // namespace

template <typename T>
golden::Tensor<T> Decode(std::string_view bytes, const std::string& name) {
  const Header header = ParseHeader(bytes, name);
  if (!Matches<T>(header.descr)) WrongDtype<T>(name, header.descr);
  if (header.fortran_order) {
    throw Error(name +
                ": fortran_order is True (column-major data): expected C order; save "
                "np.ascontiguousarray(a) instead");
  }
  const int64_t item = sizeof(T);
  const int64_t count = CountElements(header.shape, item);
  const uint64_t available = bytes.size() - header.data_offset;
  const std::string what = "shape " + ShapeRepr(header.shape) + " " + Traits<T>::kName;
  if (count < 0) throw Error(name + ": " + what + " has too many elements to load");
  const auto needed = static_cast<uint64_t>(count * item);
  if (available < needed) {
    throw Error(name + ": truncated: " + what + " needs " + std::to_string(needed) +
                " data bytes, the file has " + std::to_string(available) + " after its " +
                std::to_string(header.data_offset) + "-byte header");
  }
  if (available > needed) {
    throw Error(name + ": " + std::to_string(available - needed) +
                " bytes after the array data: " + what + " needs " + std::to_string(needed) +
                " data bytes, the file has " + std::to_string(available));
  }
  std::vector<T> data(static_cast<size_t>(count));
  const char* p = bytes.data() + header.data_offset;
  for (size_t i = 0; i < data.size(); ++i, p += item) data[i] = LoadLittleEndian<T>(p);
  return golden::Tensor<T>(header.shape, std::move(data));
}

template <typename T>
std::string Encode(const golden::Tensor<T>& tensor, const WriteOptions& options) {
  try {
    tensor.CheckConsistent("npy");
  } catch (const std::invalid_argument& e) {
    throw Error(e.what());
  }
  int major = options.version;
  if (major == 0) {
    try {
      major = 1;
      FormatHeader(Traits<T>::kDescr, tensor.shape, 1);
    } catch (const Error&) {
      major = 2;
    }
  }
  std::string out = FormatHeader(Traits<T>::kDescr, tensor.shape, major);
  out.reserve(out.size() + tensor.data.size() * sizeof(T));
  for (T v : tensor.data) StoreLittleEndian(v, out);
  return out;
}

template <typename T>
golden::Tensor<T> Read(const std::string& path) {
  return Decode<T>(ReadAll(path), path);
}

template <typename T>
void Write(const std::string& path, const golden::Tensor<T>& tensor, const WriteOptions& options) {
  const std::string bytes = Encode(tensor, options);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(path + ": cannot open for writing (" + SystemError() + ")");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error(path + ": write failed (" + SystemError() + ")");
}

Header ReadHeader(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(path + ": is a directory, expected a .npy file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading (" + SystemError() + ")");
  const uintmax_t file_size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(path + ": cannot read its size (" + ec.message() + ")");
  // Magic, version and length field first; then as much of the header as the length says and
  // the file holds (ParseHeader reports anything short as truncated).
  std::string bytes(12, '\0');
  in.read(bytes.data(), 12);
  bytes.resize(static_cast<size_t>(in.gcount()));
  uint64_t total = bytes.size();
  if (bytes.size() >= 8) {
    const size_t prefix = bytes[6] == 1 ? 10 : 12;
    if (bytes.size() >= prefix) {
      uint64_t length = 0;
      for (size_t i = prefix; i-- > 8;)
        length = (length << 8) | static_cast<unsigned char>(bytes[i]);
      total = std::min<uint64_t>(prefix + length, file_size);
    }
  }
  if (total > bytes.size()) {
    const size_t have = bytes.size();
    bytes.resize(static_cast<size_t>(total));
    in.read(bytes.data() + have, static_cast<std::streamsize>(total - have));
    bytes.resize(have + static_cast<size_t>(in.gcount()));
  }
  return ParseHeader(bytes, path);
}

golden::Tensor<double> ReadReal(const std::string& path) {
  const std::string descr = ReadHeader(path).descr;
  if (descr == "<f4") {
    const golden::Tensor<float> t = Read<float>(path);
    return golden::Tensor<double>(t.shape, std::vector<double>(t.data.begin(), t.data.end()));
  }
  if (descr == "<f8") return Read<double>(path);
  throw Error(path + ": dtype '" + descr + "' (" + DescribeDescr(descr) +
              "): expected float32 ('<f4') or float64 ('<f8')");
}

golden::Tensor<int64_t> ReadIntegers(const std::string& path) {
  const std::string descr = ReadHeader(path).descr;
  const auto widen = [](const auto& t) {
    return golden::Tensor<int64_t>(t.shape, std::vector<int64_t>(t.data.begin(), t.data.end()));
  };
  if (IsInt8(descr)) return widen(Read<int8_t>(path));
  if (IsUint8(descr)) return widen(Read<uint8_t>(path));
  if (descr == "<i4") return widen(Read<int32_t>(path));
  if (descr == "<i8") return Read<int64_t>(path);
  throw Error(path + ": dtype '" + descr + "' (" + DescribeDescr(descr) +
              "): expected integers: int8, uint8, int32 or int64");
}


#define TPU_NPY_INSTANTIATE(T)                                                              \
  template golden::Tensor<T> Decode<T>(std::string_view, const std::string&);              \
  template std::string Encode<T>(const golden::Tensor<T>&, const WriteOptions&);            \
  template golden::Tensor<T> Read<T>(const std::string&);                                    \
  template void Write<T>(const std::string&, const golden::Tensor<T>&, const WriteOptions&);
TPU_NPY_INSTANTIATE(int8_t)
TPU_NPY_INSTANTIATE(uint8_t)
TPU_NPY_INSTANTIATE(int32_t)
TPU_NPY_INSTANTIATE(int64_t)
TPU_NPY_INSTANTIATE(float)
TPU_NPY_INSTANTIATE(double)
#undef TPU_NPY_INSTANTIATE

}  // namespace tpu::npy
