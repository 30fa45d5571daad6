#include "npy/header.h"

#include <cctype>
#include <stdexcept>

#include "npy/literal.h"
#include "npy/npy.h"

namespace tpu::npy {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kAlign = 64;            // numpy's ARRAY_ALIGN
constexpr size_t kGrowthDigits = 21;     // numpy's GROWTH_AXIS_MAX_DIGITS
constexpr size_t kMaxShownHeader = 200;  // header text quoted in errors is cut here

[[noreturn]] void Fail(const std::string& name, const std::string& what) {
  throw Error(name + ": " + what);
}

// A byte string for error messages: printable ASCII as is, anything else as \xNN.
std::string Printable(std::string_view bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string Quoted(std::string_view header) {
  std::string text = Printable(header.substr(0, kMaxShownHeader));
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return "\"" + text + (header.size() > kMaxShownHeader ? "...\"" : "\"");
}

uint64_t LittleEndian(std::string_view bytes) {
  uint64_t value = 0;
  for (size_t i = bytes.size(); i-- > 0;) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return value;
}

const Literal& Field(const Literal& dict, const char* key, const std::string& name,
                     std::string_view header) {
  for (const auto& [k, v] : dict.dict) {
    if (k == key) return v;
  }
  Fail(name, std::string("header has no '") + key +
                 "' key: expected 'descr', 'fortran_order' and 'shape', found " + Quoted(header));
}

}  // namespace

Header ParseHeader(std::string_view bytes, const std::string& name) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic) {
    if (bytes.substr(0, 2) == "PK") {
      Fail(name, "is a zip archive (an .npz?): expected a single .npy array");
    }
    Fail(name, "not a .npy file: expected the magic \"\\x93NUMPY\" at the start, found \"" +
                   Printable(bytes.substr(0, kMagic.size())) + "\"" +
                   (bytes.empty() ? " (the file is empty)" : ""));
  }
  if (bytes.size() < kMagic.size() + 2) {
    Fail(name, "truncated: the file ends inside the version bytes after the magic");
  }
  Header header;
  header.major = static_cast<unsigned char>(bytes[6]);
  header.minor = static_cast<unsigned char>(bytes[7]);
  if (header.major < 1 || header.major > 3 || header.minor != 0) {
    Fail(name, "unsupported .npy format version " + std::to_string(header.major) + "." +
                   std::to_string(header.minor) + ": expected 1.0, 2.0 or 3.0");
  }
  const size_t length_bytes = header.major == 1 ? 2 : 4;
  const size_t prefix = kMagic.size() + 2 + length_bytes;
  if (bytes.size() < prefix) {
    Fail(name, "truncated: the file ends inside the header length (" +
                   std::to_string(bytes.size()) + " bytes, expected at least " +
                   std::to_string(prefix) + ")");
  }
  const uint64_t header_length = LittleEndian(bytes.substr(8, length_bytes));
  if (header_length > kMaxHeaderLength) {
    Fail(name, "the header length says " + std::to_string(header_length) +
                   " bytes, above the " + std::to_string(kMaxHeaderLength) +
                   " a .npy header may have (numpy writes a few hundred): not a valid .npy file");
  }
  if (header_length > bytes.size() - prefix) {
    Fail(name, "truncated: the header length says " + std::to_string(header_length) +
                   " bytes, the file has " + std::to_string(bytes.size() - prefix) + " after the " +
                   std::to_string(prefix) + "-byte prefix");
  }
  header.data_offset = prefix + header_length;
  const std::string_view text = bytes.substr(prefix, header_length);

  Literal dict;
  try {
    dict = ParseLiteral(text);
  } catch (const std::invalid_argument& e) {
    Fail(name, std::string("malformed header ") + Quoted(text) + ": " + e.what());
  }
  if (dict.kind != Literal::Kind::kDict) {
    Fail(name,
         "header is not a dict: expected {'descr': ..., 'fortran_order': ..., "
         "'shape': ...}, found " +
             Quoted(text));
  }
  for (size_t i = 0; i < dict.dict.size(); ++i) {
    const std::string& key = dict.dict[i].first;
    if (key != "descr" && key != "fortran_order" && key != "shape") {
      Fail(name, "header has an unknown key '" + key +
                     "': expected only 'descr', 'fortran_order' and 'shape'");
    }
    for (size_t j = 0; j < i; ++j) {
      if (dict.dict[j].first == key) Fail(name, "header has the key '" + key + "' twice");
    }
  }

  const Literal& descr = Field(dict, "descr", name, text);
  if (descr.kind == Literal::Kind::kList) {
    Fail(name, "dtype " + Repr(descr) +
                   " is a structured dtype: expected a plain int8 ('|i1') or int32 ('<i4') "
                   "array");
  }
  if (descr.kind != Literal::Kind::kString) {
    Fail(name, "header 'descr' is " + Repr(descr) + ": expected a dtype string such as '<i4'");
  }
  header.descr = descr.text;

  const Literal& fortran = Field(dict, "fortran_order", name, text);
  if (fortran.kind != Literal::Kind::kBool) {
    Fail(name, "header 'fortran_order' is " + Repr(fortran) + ": expected True or False");
  }
  header.fortran_order = fortran.boolean;

  const Literal& shape = Field(dict, "shape", name, text);
  if (shape.kind != Literal::Kind::kTuple) {
    Fail(name, "header 'shape' is " + Repr(shape) +
                   ": expected a tuple of integers such as (3,) or (2, 3)");
  }
  for (const Literal& dim : shape.items) {
    if (dim.kind != Literal::Kind::kInt || dim.integer < 0) {
      Fail(name,
           "header 'shape' is " + Repr(shape) + ": expected a tuple of non-negative integers");
    }
    header.shape.push_back(dim.integer);
  }
  return header;
}

std::string ShapeRepr(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    out += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

std::string FormatHeader(const std::string& descr, const std::vector<int64_t>& shape, int major) {
  if (major != 1 && major != 2) {
    throw Error("npy: cannot write format version " + std::to_string(major) + ": expected 1 or 2");
  }
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + ShapeRepr(shape) + ", }";
  if (!shape.empty()) {
    const size_t digits = std::to_string(shape[0]).size();
    dict.append(digits < kGrowthDigits ? kGrowthDigits - digits : 0, ' ');
  }
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t used = kMagic.size() + 2 + length_bytes + dict.size() + 1;  // + "\n"
  const size_t pad = kAlign - used % kAlign;
  const uint64_t header_length = dict.size() + pad + 1;
  if (major == 1 && header_length > 0xffff) {
    throw Error("npy: header of " + std::to_string(header_length) +
                " bytes does not fit format version 1.0 (at most 65535)");
  }
  std::string out(kMagic);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < length_bytes; ++i) {
    out += static_cast<char>((header_length >> (8 * i)) & 0xff);
  }
  out += dict;
  out.append(pad, ' ');
  out += '\n';
  return out;
}

std::string DescribeDescr(const std::string& descr) {
  if (descr.empty()) return descr;
  size_t pos = 0;
  std::string order;
  if (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=') {
    order = descr.substr(0, 1);
    pos = 1;
  }
  if (pos >= descr.size()) return descr;
  const char kind = descr[pos++];
  const std::string rest = descr.substr(pos);
  int bytes = 0;
  if (!rest.empty() && rest.size() <= 3 &&
      rest.find_first_not_of("0123456789") == std::string::npos) {
    bytes = std::stoi(rest);
  }
  std::string type;
  switch (kind) {
    case 'i':
      type = bytes > 0 ? "int" + std::to_string(8 * bytes) : "";
      break;
    case 'u':
      type = bytes > 0 ? "uint" + std::to_string(8 * bytes) : "";
      break;
    case 'f':
      type = bytes > 0 ? "float" + std::to_string(8 * bytes) : "";
      break;
    case 'c':
      type = bytes > 0 ? "complex" + std::to_string(8 * bytes) : "";
      break;
    case 'b':
      type = bytes == 1 ? "bool" : "";
      break;
    case 'U':
      type = "unicode string";
      break;
    case 'S':
      type = "byte string";
      break;
    case 'O':
      type = "Python object";
      break;
    case 'V':
      type = "void";
      break;
    case 'M':
      type = "datetime64";
      break;
    case 'm':
      type = "timedelta64";
      break;
    default:
      break;
  }
  if (type.empty()) return descr;
  if (order == ">" && bytes > 1) type = "big-endian " + type;
  return type;
}

}  // namespace tpu::npy
