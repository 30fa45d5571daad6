#include "isa/assembler.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <utility>

#include "isa/codec.h"
#include "isa/instr.h"
#include "isa/validate.h"

namespace tpu::isa {
namespace {

// A problem with one line; the message names the instruction and field where it can.
struct LineError {
  std::string message;
};

std::string JoinMessages(const std::vector<AsmDiagnostic>& diagnostics) {
  std::string text;
  for (const AsmDiagnostic& d : diagnostics) {
    if (!text.empty()) text += '\n';
    text += d.message;
  }
  return text;
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::vector<std::string_view> SplitBlanks(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsBlank(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !IsBlank(text[i])) ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  return tokens;
}

// Decimal (optionally negative) or 0x-prefixed hexadecimal; false on bad syntax or overflow.
bool ParseInteger(std::string_view text, int64_t* value) {
  bool negative = false;
  if (!text.empty() && text[0] == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return false;
  uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (magnitude > limit + (negative ? 1 : 0)) return false;
  *value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string NamesText(const FieldInfo& field) {
  std::string text;
  for (int i = 0; i < field.num_names; ++i) {
    if (i > 0) text += ", ";
    text += field.names[i].name;
  }
  return text;
}

// What a field accepts, for messages.
std::string LegalText(const FieldInfo& field) {
  switch (field.kind) {
    case FieldKind::kEnum:
      return "one of " + NamesText(field);
    case FieldKind::kFlag:
      return "0 or 1";
    case FieldKind::kMask:
      return "a list of " + NamesText(field) + ", none, all, or a number " + FieldRangeText(field);
    default:
      return FieldRangeText(field);
  }
}

int64_t CheckFits(const FieldInfo& field, int64_t value) {
  if (!FieldFits(field, value)) {
    throw LineError{"field '" + std::string(field.name) + "' = " + std::to_string(value) +
                    " does not fit in " + std::to_string(field.width) + " bits (legal " +
                    FieldRangeText(field) + ")"};
  }
  return value;
}

int64_t ParseMask(const FieldInfo& field, std::string_view text) {
  int64_t value = 0;
  if (text == "none") return 0;
  if (text == "all") return FieldMax(field);
  if (ParseInteger(text, &value)) return CheckFits(field, value);
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view name = text.substr(start, comma - start);
    bool found = false;
    for (int i = 0; i < field.num_names; ++i) {
      if (name == field.names[i].name) {
        value |= int64_t{1} << field.names[i].value;
        found = true;
      }
    }
    if (!found) {
      throw LineError{"field '" + std::string(field.name) + "': " + Quoted(name) +
                      " is not one of " + NamesText(field) + " (or none, all, a number)"};
    }
    start = comma + 1;
  }
  return value;
}

int64_t ParseFieldValue(const FieldInfo& field, std::string_view text) {
  int64_t value = 0;
  switch (field.kind) {
    case FieldKind::kEnum:
      for (int i = 0; i < field.num_names; ++i) {
        if (text == field.names[i].name) return field.names[i].value;
      }
      if (ParseInteger(text, &value)) return CheckFits(field, value);
      throw LineError{"field '" + std::string(field.name) + "' = " + Quoted(text) +
                      " is not one of " + NamesText(field)};
    case FieldKind::kFlag:
      if (text == "0" || text == "1") return text == "1" ? 1 : 0;
      throw LineError{"field '" + std::string(field.name) + "' = " + Quoted(text) +
                      " must be 0 or 1"};
    case FieldKind::kMask:
      return ParseMask(field, text);
    default:
      if (!ParseInteger(text, &value)) {
        throw LineError{"field '" + std::string(field.name) + "': " + Quoted(text) +
                        " is not a number (legal " + FieldRangeText(field) + ")"};
      }
      return CheckFits(field, value);
  }
}

Words RawWords(const std::vector<std::string_view>& tokens) {
  if (tokens.size() != 1 + kInstrWords) {
    throw LineError{".words takes " + std::to_string(kInstrWords) + " words, got " +
                    std::to_string(tokens.size() - 1)};
  }
  Words words{};
  for (int w = 0; w < kInstrWords; ++w) {
    int64_t value = 0;
    if (!ParseInteger(tokens[1 + w], &value) || value < 0 || value > 0xFFFFFFFFll) {
      throw LineError{".words: " + Quoted(tokens[1 + w]) + " is not a 32-bit number"};
    }
    words[w] = static_cast<uint32_t>(value);
  }
  return words;
}

Words AssembleLine(const std::vector<std::string_view>& tokens, const AssembleOptions& options) {
  if (tokens[0] == ".words") return RawWords(tokens);
  std::string mnemonic(tokens[0]);
  for (char& c : mnemonic) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const InstrInfo* info = FindInstr(mnemonic);
  if (info == nullptr) {
    std::string known;
    for (const InstrInfo& i : kInstrs) known += (known.empty() ? "" : ", ") + std::string(i.name);
    throw LineError{"unknown instruction " + Quoted(tokens[0]) + " (instructions: " + known +
                    ", .words)"};
  }
  const std::string prefix = std::string(info->name) + ": ";
  FieldValues values{};
  std::array<bool, kMaxFields> given{};
  try {
    for (size_t t = 1; t < tokens.size(); ++t) {
      const size_t eq = tokens[t].find('=');
      if (eq == std::string_view::npos || eq == 0) {
        throw LineError{"expected field=value, got " + Quoted(tokens[t])};
      }
      const std::string_view name = tokens[t].substr(0, eq);
      int index = -1;
      for (int i = 0; i < info->num_fields; ++i) {
        if (name == info->fields[i].name) index = i;
      }
      if (index < 0) {
        std::string fields;
        for (int i = 0; i < info->num_fields; ++i) {
          fields += (i > 0 ? ", " : "") + std::string(info->fields[i].name);
        }
        throw LineError{"no field " + Quoted(name) +
                        " (fields: " + (fields.empty() ? std::string("none") : fields) + ")"};
      }
      if (given[index]) throw LineError{"field " + Quoted(name) + " given twice"};
      given[index] = true;
      values[index] = ParseFieldValue(info->fields[index], tokens[t].substr(eq + 1));
    }
    for (int i = 0; i < info->num_fields; ++i) {
      const FieldInfo& field = info->fields[i];
      if (given[i]) continue;
      if (!field.has_default) {
        throw LineError{"missing field '" + std::string(field.name) + "' (required, " +
                        LegalText(field) + ")"};
      }
      values[i] = field.default_value;
    }
    const Instr instr = FromValues(info->opcode, values);
    if (options.validate) {
      const Violation v = Explain(instr, options.limits);
      if (v.error != Error::kOk) throw LineError{v.message};
    }
    return Encode(instr);
  } catch (const LineError& e) {
    throw LineError{prefix + e.message};
  }
}

}  // namespace

AsmError::AsmError(std::vector<AsmDiagnostic> diagnostics)
    : std::invalid_argument(JoinMessages(diagnostics)), diagnostics_(std::move(diagnostics)) {}

std::vector<Words> Assemble(std::string_view text, const AssembleOptions& options) {
  if (options.validate) CheckLimits(options.limits);
  std::vector<Words> program;
  std::vector<AsmDiagnostic> diagnostics;
  int line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    ++line_number;
    start = end + 1;
    const size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    const std::vector<std::string_view> tokens = SplitBlanks(line);
    if (tokens.empty()) continue;
    try {
      program.push_back(AssembleLine(tokens, options));
    } catch (const LineError& e) {
      const std::string where = options.source.empty()
                                    ? "line " + std::to_string(line_number)
                                    : options.source + ":" + std::to_string(line_number);
      diagnostics.push_back({line_number, where + ": " + e.message});
    }
  }
  if (!diagnostics.empty()) throw AsmError(std::move(diagnostics));
  return program;
}

}  // namespace tpu::isa
