#include "npy/literal.h"

#include <cctype>
#include <limits>
#include <stdexcept>

namespace tpu::npy {
namespace {

constexpr int kMaxDepth = 32;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Literal ParseAll() {
    Literal value = ParseValue(0);
    SkipSpace();
    if (pos_ != text_.size()) Fail("the end of the literal");
    return value;
  }

 private:
  [[noreturn]] void Fail(const std::string& expected) const {
    std::string found = pos_ < text_.size() ? "'" + std::string(1, text_[pos_]) + "'" : "the end";
    throw std::invalid_argument("at character " + std::to_string(pos_) + ": expected " + expected +
                                ", found " + found);
  }

  // Whitespace and Python comments ("# ..." to the end of the line).
  void SkipSpace() {
    while (pos_ < text_.size()) {
      if (text_[pos_] == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
        ++pos_;
      } else {
        break;
      }
    }
  }

  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  void Expect(char c, const char* what) {
    if (!Peek(c)) Fail(what);
    ++pos_;
  }

  Literal ParseValue(int depth) {
    if (depth > kMaxDepth) Fail("at most " + std::to_string(kMaxDepth) + " levels of nesting");
    SkipSpace();
    if (pos_ >= text_.size()) Fail("a value");
    const char c = text_[pos_];
    if (c == '\'' || c == '"') return ParseString();
    if (c == '{') return ParseDict(depth);
    if (c == '(') return ParseSequence(depth, ')', Literal::Kind::kTuple);
    if (c == '[') return ParseSequence(depth, ']', Literal::Kind::kList);
    if (c == '-' || c == '+' || std::isdigit(static_cast<unsigned char>(c))) return ParseInt();
    if (std::isalpha(static_cast<unsigned char>(c))) return ParseName();
    Fail("a value (string, integer, True, False, None, tuple, list or dict)");
  }

  Literal ParseString() {
    const char quote = text_[pos_++];
    Literal value;
    value.kind = Literal::Kind::kString;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;  // \' \" \\ taken literally
      value.text += text_[pos_++];
    }
    if (pos_ >= text_.size()) Fail(std::string("the closing ") + quote);
    ++pos_;
    return value;
  }

  Literal ParseInt() {
    const size_t start = pos_;
    bool negative = false;
    if (text_[pos_] == '-' || text_[pos_] == '+') negative = text_[pos_++] == '-';
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      Fail("a digit");
    }
    // Accumulate as a negative number so that INT64_MIN fits.
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      const int digit = text_[pos_] - '0';
      if (value < (std::numeric_limits<int64_t>::min() + digit) / 10) {
        pos_ = start;
        Fail("an integer that fits in 64 bits");
      }
      value = value * 10 - digit;
      ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;  // Python 2
    if (!negative) {
      if (value == std::numeric_limits<int64_t>::min()) {
        pos_ = start;
        Fail("an integer that fits in 64 bits");
      }
      value = -value;
    }
    Literal literal;
    literal.kind = Literal::Kind::kInt;
    literal.integer = value;
    return literal;
  }

  Literal ParseName() {
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    const std::string_view name = text_.substr(start, pos_ - start);
    Literal value;
    if (name == "True" || name == "False") {
      value.kind = Literal::Kind::kBool;
      value.boolean = name == "True";
    } else if (name == "None") {
      value.kind = Literal::Kind::kNone;
    } else {
      pos_ = start;
      Fail("True, False or None");
    }
    return value;
  }

  // Elements separated by commas, an optional trailing comma. "(x)" is x itself, as in Python;
  // "(x,)" is a one-element tuple.
  Literal ParseSequence(int depth, char close, Literal::Kind kind) {
    ++pos_;
    Literal value;
    value.kind = kind;
    bool saw_comma = false;
    while (!Peek(close)) {
      value.items.push_back(ParseValue(depth + 1));
      if (Peek(close)) break;
      Expect(',', close == ')' ? "',' or ')'" : "',' or ']'");
      saw_comma = true;
    }
    ++pos_;
    if (kind == Literal::Kind::kTuple && value.items.size() == 1 && !saw_comma) {
      return value.items.front();
    }
    return value;
  }

  Literal ParseDict(int depth) {
    ++pos_;
    Literal value;
    value.kind = Literal::Kind::kDict;
    while (!Peek('}')) {
      if (!Peek('\'') && !Peek('"')) Fail("a quoted key or '}'");
      std::string key = ParseString().text;
      Expect(':', "':'");
      value.dict.emplace_back(std::move(key), ParseValue(depth + 1));
      if (Peek('}')) break;
      Expect(',', "',' or '}'");
    }
    ++pos_;
    return value;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::string Repr(const Literal& value) {
  switch (value.kind) {
    case Literal::Kind::kString: {
      std::string out = "'";
      for (char c : value.text) {
        if (c == '\'' || c == '\\') out += '\\';
        out += c;
      }
      return out + "'";
    }
    case Literal::Kind::kInt:
      return std::to_string(value.integer);
    case Literal::Kind::kBool:
      return value.boolean ? "True" : "False";
    case Literal::Kind::kNone:
      return "None";
    case Literal::Kind::kTuple:
    case Literal::Kind::kList: {
      const bool tuple = value.kind == Literal::Kind::kTuple;
      std::string out = tuple ? "(" : "[";
      for (size_t i = 0; i < value.items.size(); ++i) {
        out += (i == 0 ? "" : ", ") + Repr(value.items[i]);
      }
      if (tuple && value.items.size() == 1) out += ",";
      return out + (tuple ? ")" : "]");
    }
    case Literal::Kind::kDict: {
      std::string out = "{";
      for (size_t i = 0; i < value.dict.size(); ++i) {
        Literal key;
        key.kind = Literal::Kind::kString;
        key.text = value.dict[i].first;
        out += (i == 0 ? "" : ", ") + Repr(key) + ": " + Repr(value.dict[i].second);
      }
      return out + "}";
    }
  }
  return "?";
}

Literal ParseLiteral(std::string_view text) { return Parser(text).ParseAll(); }

}  // namespace tpu::npy
