// Shared by the fuzz and mutation tests of the host's readers (tests/npy, tests/network,
// tests/isa, tests/onnx): seeded mutations of valid inputs (truncations, bit flips, byte
// insertions and deletions, interesting bytes and numbers spliced in) and the check every
// mutated input must pass: it is either accepted, or rejected with one of the reader's own
// exceptions whose message says what was wrong; any other exception fails the test. Crashes and
// undefined behaviour are what `make sanitize` runs these tests for; hangs hit the ctest TIMEOUT.
// Everything is deterministic from the seed a test passes, so a failure replays as it is.
#ifndef TPU_TESTS_MUTATION_TESTING_H_
#define TPU_TESTS_MUTATION_TESTING_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace tpu::testing {

// Runs `run` on one input named `what`: true if it returned (accepted), false if it threw one of
// `Rejections` with a message of at least `min_message` characters containing `must_name` (when
// not empty; e.g. the file name, so that a user knows which input was wrong). Another exception,
// or a rejection with an empty or anonymous message, adds a test failure naming `what`.
template <typename... Rejections, typename Run>
bool AcceptedOrRejected(const std::string& what, const Run& run, const std::string& must_name = "",
                        size_t min_message = 10) {
  try {
    run();
    return true;
  } catch (const std::exception& e) {
    if (!(... || (dynamic_cast<const Rejections*>(&e) != nullptr))) {
      ADD_FAILURE() << what << ": unexpected exception " << typeid(e).name() << ": " << e.what();
      return false;
    }
    const std::string message = e.what();
    EXPECT_GE(message.size(), min_message) << what << ": rejected with a bare message";
    if (!must_name.empty()) {
      EXPECT_NE(message.find(must_name), std::string::npos)
          << what << ": the message does not name " << must_name << ": " << message;
    }
  }
  return false;
}

// `bytes` cut to its first `n` bytes, with bit `bit` of byte `i` flipped.
inline std::string Truncated(const std::string& bytes, size_t n) { return bytes.substr(0, n); }
inline std::string BitFlipped(std::string bytes, size_t i, int bit) {
  bytes[i] = static_cast<char>(bytes[i] ^ (1 << bit));
  return bytes;
}

// Calls `f(mutant, what)` for every truncation of `bytes` (0 .. size-1 bytes kept).
template <typename F>
void ForEachTruncation(const std::string& bytes, const F& f) {
  for (size_t n = 0; n < bytes.size(); ++n) f(Truncated(bytes, n), "cut at " + std::to_string(n));
}

// Calls `f(mutant, what)` for every single-bit flip of `bytes`.
template <typename F>
void ForEachBitFlip(const std::string& bytes, const F& f) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      f(BitFlipped(bytes, i, bit), "byte " + std::to_string(i) + " bit " + std::to_string(bit));
    }
  }
}

// Random mutations of a byte string, seeded. Mutate() applies one to four edits, each drawn
// from: flip a bit, set a byte to a boundary value (0, 0x7f, 0x80, 0xff) or a random one, insert
// or delete a byte, duplicate or delete a span, cut the tail, splice in text a parser must
// bound (huge and negative numbers, deep nesting, quotes, separators).
class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  // A mutant of `bytes` and (in `what`, if given) the edits that made it.
  std::string Mutate(std::string bytes, std::string* what = nullptr) {
    const int edits = Uniform(1, 4);
    std::string log;
    for (int e = 0; e < edits; ++e) log += (e ? ", " : "") + Edit(bytes);
    if (what != nullptr) *what = log;
    return bytes;
  }

  // Text a parser must bound: numbers beyond int64 and double, signs, nesting, separators.
  static const std::vector<std::string>& Splices() {
    static const std::vector<std::string> kSplices = {
        "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "18446744073709551616", "99999999999999999999999999", "1e308", "1e-320", "-1", "-0",
        "0x7fffffff", "4294967296", "1152921504606846976", "NaN", "Infinity", "true", "null",
        "\"\"", "''", "(", ")", "[", "]", "{", "}", ",", ":", "=", "#", "\\", "\n", "\t",
        std::string(200, '['), std::string(200, '('), std::string(4096, '9'), std::string(1, '\0'),
        "\xff\xfe", "\xc3\x28"};
    return kSplices;
  }

  // Calls `f(mutant, what)` `count` times, mutating the seeds in turn; `what` names the case and
  // its edits, e.g. "mutant 12 (flip byte 40 bit 3, cut at 97)".
  template <typename F>
  void ForEachMutant(const std::vector<std::string>& seeds, int count, const F& f) {
    for (int n = 0; n < count; ++n) {
      std::string edits;
      const std::string mutant = Mutate(seeds[static_cast<size_t>(n) % seeds.size()], &edits);
      f(mutant, "mutant " + std::to_string(n) + " (" + edits + ")");
    }
  }

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::mt19937_64& rng() { return rng_; }

 private:
  std::string Edit(std::string& bytes) {
    const size_t size = bytes.size();
    const auto at = [&](size_t extra) {
      return static_cast<size_t>(Uniform(0, static_cast<int>(size + extra) - 1));
    };
    switch (size == 0 ? Uniform(3, 3) : Uniform(0, 8)) {
      case 0: {
        const size_t i = at(0);
        const int bit = Uniform(0, 7);
        bytes[i] = static_cast<char>(bytes[i] ^ (1 << bit));
        return "flip byte " + std::to_string(i) + " bit " + std::to_string(bit);
      }
      case 1: {
        static const int kBoundary[] = {0x00, 0x7f, 0x80, 0xff};
        const size_t i = at(0);
        const int v = Uniform(0, 1) ? kBoundary[Uniform(0, 3)] : Uniform(0, 255);
        bytes[i] = static_cast<char>(v);
        return "byte " + std::to_string(i) + " = " + std::to_string(v);
      }
      case 2: {
        const size_t i = at(0);
        bytes.erase(i, 1);
        return "delete byte " + std::to_string(i);
      }
      case 3: {
        const size_t i = at(1);
        bytes.insert(i, 1, static_cast<char>(Uniform(0, 255)));
        return "insert a byte at " + std::to_string(i);
      }
      case 4: {
        const size_t i = at(0);
        const size_t n = std::min<size_t>(size - i, static_cast<size_t>(Uniform(1, 64)));
        bytes.insert(i, bytes.substr(i, n));
        return "duplicate " + std::to_string(n) + " bytes at " + std::to_string(i);
      }
      case 5: {
        const size_t i = at(0);
        const size_t n = std::min<size_t>(size - i, static_cast<size_t>(Uniform(1, 64)));
        bytes.erase(i, n);
        return "delete " + std::to_string(n) + " bytes at " + std::to_string(i);
      }
      case 6: {
        const size_t n = at(0);
        bytes.resize(n);
        return "cut at " + std::to_string(n);
      }
      default: {
        const std::vector<std::string>& splices = Splices();
        const std::string& s = splices[static_cast<size_t>(Uniform(0, int(splices.size()) - 1))];
        const size_t i = at(1);
        // Replace the token there (a run of letters, digits, signs and dots) or insert.
        size_t end = i;
        while (end < size && (std::isalnum(static_cast<unsigned char>(bytes[end])) ||
                              bytes[end] == '-' || bytes[end] == '.')) {
          ++end;
        }
        bytes.replace(i, end - i, s);
        return "splice " + std::to_string(s.size()) + " bytes at " + std::to_string(i);
      }
    }
  }

  std::mt19937_64 rng_;
};

}  // namespace tpu::testing

#endif  // TPU_TESTS_MUTATION_TESTING_H_
