// The subset of Python literal syntax that .npy headers are written in: a dict of strings,
// integers, booleans, None, tuples and lists. Parsed without evaluating anything, with the
// leniency numpy's own reader has (any whitespace, trailing commas, either quote character,
// Python 2's `3L` integers, comments).
#ifndef TPU_NPY_LITERAL_H_
#define TPU_NPY_LITERAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpu::npy {

struct Literal {
  enum class Kind { kString, kInt, kBool, kNone, kTuple, kList, kDict };

  Kind kind = Kind::kNone;
  std::string text;                                   // kString
  int64_t integer = 0;                                // kInt
  bool boolean = false;                               // kBool
  std::vector<Literal> items;                         // kTuple, kList
  std::vector<std::pair<std::string, Literal>> dict;  // kDict (string keys only, in order)
};

// How a literal reads in Python ("(2, 3)", "'<i4'", "True"), for error messages.
std::string Repr(const Literal& value);

// Parses `text`, which must hold exactly one literal surrounded by optional whitespace.
// Throws std::invalid_argument naming the offset and what was expected there. Nesting is limited
// to 32 levels and integers to int64.
Literal ParseLiteral(std::string_view text);

}  // namespace tpu::npy

#endif  // TPU_NPY_LITERAL_H_
