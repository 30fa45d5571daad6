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

// Each element type's descr (as np.save writes it) and name (for messages).
template <typename T>
struct Traits;
#define TPU_NPY_TRAITS(T, descr, name)           \
  template <>                                    \
  struct Traits<T> {                             \
    static constexpr const char* kDescr = descr; \
    static constexpr const char* kName = name;   \
  };
TPU_NPY_TRAITS(int8_t, "|i1", "int8")
TPU_NPY_TRAITS(uint8_t, "|u1", "uint8")
TPU_NPY_TRAITS(int32_t, "<i4", "int32")
TPU_NPY_TRAITS(int64_t, "<i8", "int64")
TPU_NPY_TRAITS(float, "<f4", "float32")
TPU_NPY_TRAITS(double, "<f8", "float64")
#undef TPU_NPY_TRAITS

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

// Throws npy::Error unless `path` is a regular file (a directory, a device such as /dev/zero or
// a FIFO would be read without end or without meaning); returns its size in bytes.
uint64_t RegularFileSize(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw Error(path + ": cannot open for reading (" +
                (ec ? ec.message() : std::string("No such file or directory")) + ")");
  }
  if (std::filesystem::is_directory(status)) {
    throw Error(path + ": is a directory, expected a .npy file");
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw Error(path + ": is not a regular file (a device, FIFO or socket), expected a .npy file");
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(path + ": cannot read its size (" + ec.message() + ")");
  return size;
}

std::string ReadAll(const std::string& path) {
  const uint64_t size = RegularFileSize(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading (" + SystemError() + ")");
  // The size stat gave in one read (a byte at a time through a stream iterator took about 1 ms
  // a MB and copied the string as it grew), then whatever the file gained since.
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  bytes.resize(static_cast<size_t>(in.gcount()));
  if (!in.bad() && !in.eof()) {
    bytes.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (in.bad()) throw Error(path + ": read failed (" + SystemError() + ")");
  return bytes;
}

// Checks what `header` says against T and the `available` data bytes after it: the dtype, C
// order, and exactly as many bytes as the shape needs. Returns the element count.
template <typename T>
int64_t CheckLayout(const Header& header, const std::string& name, uint64_t available) {
  if (!Matches<T>(header.descr)) WrongDtype<T>(name, header.descr);
  if (header.fortran_order) {
    throw Error(name +
                ": fortran_order is True (column-major data): expected C order; save "
                "np.ascontiguousarray(a) instead");
  }
  const int64_t item = sizeof(T);
  const int64_t count = CountElements(header.shape, item);
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
  return count;
}

}  // namespace

template <typename T>
golden::Tensor<T> Decode(std::string_view bytes, const std::string& name) {
  const Header header = ParseHeader(bytes, name);
  const int64_t count = CheckLayout<T>(header, name, bytes.size() - header.data_offset);
  const int64_t item = sizeof(T);
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
  // The header first, and its promises checked against the file's size, so that a file that is
  // not a .npy of T is refused before its data is read (a 2 GB file of something else would
  // otherwise take twice its size in memory first).
  const Header header = ReadHeader(path);
  CheckLayout<T>(header, path, RegularFileSize(path) - header.data_offset);
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
  const uint64_t file_size = RegularFileSize(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading (" + SystemError() + ")");
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
      // Never more than kMaxHeaderLength (ParseHeader refuses a longer one from the prefix).
      total = std::min<uint64_t>(prefix + std::min(length, kMaxHeaderLength), file_size);
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
