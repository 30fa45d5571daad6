#include "isa/codec.h"

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

#include "isa/instr.h"
#include "isa/static_fields.h"
#include "isa/validate.h"

namespace tpu::isa {
namespace {

using detail::Bits;
using detail::Join;
using detail::Split;

Bits Mask(int width) { return (Bits{1} << width) - 1; }

uint64_t Field(Bits bits, int lsb, int width) {
  return static_cast<uint64_t>((bits >> lsb) & Mask(width));
}

void Put(Bits* bits, int lsb, int width, uint64_t value) {
  const Bits mask = Mask(width) << lsb;
  *bits = (*bits & ~mask) | ((Bits{value} << lsb) & mask);
}

// One instruction type's encoding and decoding, its fields' bits constants (static_fields.h).
template <typename T>
[[gnu::flatten]] Words EncodeOf(const T& instr) {
  FieldValues values{};
  ToValues(instr, &values);
  // The message is built only for a value that does not fit.
  if (!detail::FieldsFit<T>(values, detail::FieldIndexes<T>{})) {
    CheckFieldsFit(detail::kInfo<T>, values);  // throws
  }
  const Bits opcode = Bits{static_cast<uint8_t>(T::kOpcode) & ((1u << kOpcodeWidth) - 1)}
                      << kOpcodeLsb;
  return Split(opcode | detail::PutFields<T>(values, detail::FieldIndexes<T>{}));
}

template <typename T>
[[gnu::flatten]] Decoded DecodeOf(Bits bits) {
  constexpr Bits kReserved = Join(detail::kInfo<T>.reserved_mask);
  Decoded out;
  out.opcode = T::kOpcode;
  if ((bits & kReserved) != 0) out.error = Error::kReservedNonzero;
  detail::GetFields<T>(bits, &out.values, detail::FieldIndexes<T>{});
  if (out.error == Error::kOk) {
    const int field = detail::FirstUnlisted<T>(out.values, detail::FieldIndexes<T>{});
    if (field >= 0) {
      out.error = detail::kInfo<T>.fields[field].error;
      out.field = field;
    }
  }
  out.instr.template emplace<T>(std::get<T>(FromValues(T::kOpcode, out.values)));
  return out;
}

using Decoder = Decoded (*)(Bits);

// The decoder of each opcode (nullptr: no instruction has it).
template <std::size_t... A>
constexpr std::array<Decoder, 256> Decoders(std::index_sequence<A...>) {
  std::array<Decoder, 256> table{};
  ((table[static_cast<uint8_t>(std::variant_alternative_t<A, Instr>::kOpcode)] =
        &DecodeOf<std::variant_alternative_t<A, Instr>>),
   ...);
  return table;
}

// The rules of the decoded instruction's type (Decode has checked the rest).
template <std::size_t... A>
Error CheckRules(const Decoded& d, const DeviceLimits& limits, std::index_sequence<A...>) {
  Error error = Error::kOk;
  (void)((d.opcode == std::variant_alternative_t<A, Instr>::kOpcode &&
          (error = detail::RulesError<std::variant_alternative_t<A, Instr>>(d.values, limits),
           true)) ||
         ...);
  return error;
}

using Alternatives = std::make_index_sequence<std::variant_size_v<Instr>>;

}  // namespace

uint64_t GetBits(const Words& words, int lsb, int width) {
  return Field(Join(words), lsb, width);
}

void SetBits(Words* words, int lsb, int width, uint64_t value) {
  Bits bits = Join(*words);
  Put(&bits, lsb, width, value);
  *words = Split(bits);
}

Words Encode(const Instr& instr) {
  return std::visit([](const auto& x) { return EncodeOf(x); }, instr);
}

Decoded Decode(const Words& words) {
  static constexpr std::array<Decoder, 256> kDecoders = Decoders(Alternatives{});
  const Bits bits = Join(words);
  const Decoder decode = kDecoders[static_cast<uint8_t>(Field(bits, kOpcodeLsb, kOpcodeWidth))];
  if (decode != nullptr) return decode(bits);
  Decoded out;
  out.error = Error::kIllegalOpcode;
  out.instr = Nop{};
  return out;
}

Error Check(const Decoded& decoded, const DeviceLimits& limits) {
  if (decoded.error != Error::kOk) return decoded.error;
  // Decode has checked the enum encodings (FirstIllegalEncoding): only the rules are left, in
  // ValidateValues' order.
  return CheckRules(decoded, limits, Alternatives{});
}

Error Check(const Words& words, const DeviceLimits& limits) {
  return Check(Decode(words), limits);
}

namespace {
constexpr bool kLittleEndianHost =
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    true;
#else
    false;
#endif
}  // namespace

const uint8_t* SlotBytes(const Words* words, size_t count, std::vector<uint8_t>* scratch) {
  if (kLittleEndianHost) return reinterpret_cast<const uint8_t*>(words);
  scratch->resize(kSlotBytes * count);
  uint8_t* bytes = scratch->data();
  for (size_t i = 0; i < count; ++i) {
    for (const uint32_t word : words[i]) {
      for (int b = 0; b < 4; ++b) *bytes++ = static_cast<uint8_t>(word >> (8 * b));
    }
  }
  return scratch->data();
}

void SlotBytesToWords(Words* words, size_t count) {
  if (kLittleEndianHost) return;
  for (size_t i = 0; i < count; ++i) {
    for (uint32_t& word : words[i]) {
      const auto* p = reinterpret_cast<const uint8_t*>(&word);
      word = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
    }
  }
}

}  // namespace tpu::isa
