// Fuzz test of the .npy reader (host_driver/npy): every truncation and bit flip of valid files,
// thousands of seeded random mutations, and headers built from random (often hostile) field
// values: huge and overflowing shapes, wrong types, repeated and unknown keys, deep nesting.
// Each input is either accepted, and then the tensor is consistent and re-encodes to a file that
// decodes to the same tensor, or rejected with an npy::Error naming the file; never a crash,
// another exception or an allocation beyond what the file holds (allocation_cap.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "mutation_testing.h"
#include "npy/npy.h"
#include "npy_fixtures.h"
#include "scratch_dir.h"

namespace tpu::npy {
namespace {

using testing::AcceptedOrRejected;
using testing::Mutator;

constexpr char kName[] = "fuzz.npy";

// Valid files of every format version and dtype the readers take: the seeds of the mutations.
std::vector<std::string> Seeds() {
  return {fixtures::Int8Matrix(),
          fixtures::Int32Vector(),
          fixtures::Npy(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n",
                        std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8)),
          fixtures::Npy(3, "{'shape': (1, 1, 2), 'descr': '<f8', 'fortran_order': False}",
                        std::string(16, '\x01')),
          fixtures::Npy("|u1", "()", "\x07"),
          fixtures::Npy("<i8", "(0, 5)", ""),
          Encode(golden::Tensor<int8_t>({2, 2, 2}, {1, 2, 3, 4, -5, -6, -7, -8}))};
}

// Decodes `bytes` as T: true if accepted (and then checked), false if rejected well.
template <typename T>
bool DecodesAs(const std::string& bytes, const std::string& what) {
  return AcceptedOrRejected<Error>(
      what,
      [&] {
        const golden::Tensor<T> t = Decode<T>(bytes, kName);
        t.CheckConsistent(what);
        const std::string again = Encode(t);
        const golden::Tensor<T> u = Decode<T>(again, kName);
        EXPECT_EQ(u.shape, t.shape) << what;
        // Compared bytewise: a NaN read back is the same NaN.
        EXPECT_EQ(Encode(u), again) << what;
      },
      kName);
}

// Every reader the tool uses on one input; the number that accepted it.
int DecodeEveryWay(const std::string& bytes, const std::string& what) {
  return DecodesAs<int8_t>(bytes, what + " as int8") + DecodesAs<uint8_t>(bytes, what + " as uint8") +
         DecodesAs<int32_t>(bytes, what + " as int32") +
         DecodesAs<int64_t>(bytes, what + " as int64") + DecodesAs<float>(bytes, what + " as float32") +
         DecodesAs<double>(bytes, what + " as float64") +
         AcceptedOrRejected<Error>(what + " header", [&] { ParseHeader(bytes, kName); }, kName);
}

TEST(NpyFuzz, TruncationsAndBitFlipsOfValidFiles) {
  int cases = 0, accepted = 0;
  for (const std::string& seed : Seeds()) {
    ASSERT_GT(DecodeEveryWay(seed, "seed"), 0);
    testing::ForEachTruncation(seed, [&](const std::string& m, const std::string& what) {
      // A header alone may parse, but no reader takes a file cut short of its data.
      EXPECT_LE(DecodeEveryWay(m, what), 1) << what;
      ++cases;
    });
    testing::ForEachBitFlip(seed, [&](const std::string& m, const std::string& what) {
      accepted += DecodeEveryWay(m, what) > 0;
      ++cases;
    });
  }
  // Flips in the data and the padding are harmless; most others are caught.
  EXPECT_LT(accepted, cases / 2);
  std::cout << cases << " truncations and bit flips, " << accepted << " accepted\n";
}

TEST(NpyFuzz, RandomMutations) {
  const std::vector<std::string> seeds = Seeds();
  Mutator mutator(20261126);
  int accepted = 0;
  const int kCases = 6000;
  mutator.ForEachMutant(seeds, kCases, [&](const std::string& m, const std::string& what) {
    accepted += DecodeEveryWay(m, what) > 0;
  });
  std::cout << kCases << " random mutations, " << accepted << " accepted\n";
}

// A header dict with fields drawn from valid, boundary and hostile values, and data of a length
// near what the shape needs.
std::string RandomHeaderFile(std::mt19937_64& rng, std::string* header_text) {
  const auto pick = [&](const std::vector<std::string>& v) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  };
  const std::vector<std::string> descrs = {"'|i1'", "'<i4'", "'<f4'", "'<f8'", "'|u1'",
                                           "'<i8'", "'>i4'", "'<i2'", "'|b1'", "'<U3'",
                                           "[('a', '<i4')]", "3", "None", "''", "'<i4' 'x'"};
  const std::vector<std::string> dims = {"0", "1", "2", "3", "7", "-1", "2147483647",
                                         "2147483648", "4294967296", "1152921504606846976",
                                         "9223372036854775807", "9223372036854775808", "True",
                                         "'3'", "(2,)", "1L"};
  const std::vector<std::string> small = {"0", "1", "2", "3"};
  std::string shape = "(";
  const int rank = std::uniform_int_distribution<int>(0, 5)(rng);
  int64_t count = 1;  // elements, while every dimension is small
  for (int i = 0; i < rank; ++i) {
    const std::string dim = std::bernoulli_distribution(0.7)(rng) ? pick(small) : pick(dims);
    count = count >= 0 && dim.size() == 1 && dim != "7" ? count * std::stoi(dim) : -1;
    shape += dim + (rank == 1 || i + 1 < rank ? ", " : "");
  }
  shape += ")";
  if (rank == 0 && std::bernoulli_distribution(0.1)(rng)) shape = "[2, 3]";
  if (std::bernoulli_distribution(0.05)(rng)) shape = std::string(40, '(') + std::string(40, ')');
  const std::string descr = std::bernoulli_distribution(0.6)(rng)
                                ? descrs[std::uniform_int_distribution<size_t>(0, 5)(rng)]
                                : pick(descrs);
  std::vector<std::string> fields = {"'descr': " + descr,
                                     "'fortran_order': " + (std::bernoulli_distribution(0.8)(rng)
                                                            ? std::string("False")
                                                            : pick({"True", "0", "None"})),
                                     "'shape': " + shape};
  if (std::bernoulli_distribution(0.05)(rng)) fields.push_back("'shape': (1,)");
  if (std::bernoulli_distribution(0.05)(rng)) fields.push_back("'extra': 1");
  if (std::bernoulli_distribution(0.05)(rng)) fields.erase(fields.begin());
  std::shuffle(fields.begin(), fields.end(), rng);
  std::string dict = "{";
  for (const std::string& f : fields) dict += f + ", ";
  dict += "}";
  *header_text = dict;
  // The size the shape needs half of the time (when the dtype has one), else any.
  const size_t item = descr.size() == 5 && std::isdigit(static_cast<unsigned char>(descr[3]))
                          ? size_t(descr[3] - '0')
                          : 1;
  const size_t data = count >= 0 && std::bernoulli_distribution(0.5)(rng)
                          ? size_t(count) * item
                          : std::uniform_int_distribution<size_t>(0, 72)(rng);
  std::string bytes(data, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  return fixtures::Npy(std::bernoulli_distribution(0.5)(rng) ? 1 : 2, dict + "\n", bytes);
}

TEST(NpyFuzz, HeaderFieldMutations) {
  std::mt19937_64 rng(7);
  int accepted = 0;
  const int kCases = 4000;
  for (int n = 0; n < kCases; ++n) {
    std::string header;
    const std::string file = RandomHeaderFile(rng, &header);
    accepted += DecodeEveryWay(file, "header " + header) > 1;
  }
  EXPECT_GT(accepted, 0);
  std::cout << kCases << " random headers, " << accepted << " decoded\n";
}

// Read() from a file checks the header against the file's size before reading the data; the
// same mutants through the file path.
TEST(NpyFuzz, MutatedFilesOnDisk) {
  testing::ScratchDir dir;
  const std::vector<std::string> seeds = Seeds();
  Mutator mutator(99);
  mutator.ForEachMutant(seeds, 1000, [&](const std::string& m, const std::string& what) {
    const std::string path = dir.WriteFile("m.npy", m);
    AcceptedOrRejected<Error>(what, [&] { Read<int8_t>(path); }, path);
    AcceptedOrRejected<Error>(what, [&] { Read<int32_t>(path); }, path);
    AcceptedOrRejected<Error>(what, [&] { ReadReal(path); }, path);
    AcceptedOrRejected<Error>(what, [&] { ReadIntegers(path); }, path);
  });
}

// Regression: shapes whose element count overflows int64 once a zero dimension is ignored, and
// huge shapes with little data, are refused or loaded without overflow or allocation.
TEST(NpyFuzz, HugeShapesAreRefusedBeforeAllocating) {
  EXPECT_THROW(Decode<int8_t>(fixtures::Npy("|i1", "(1152921504606846976,)", "x"), kName), Error);
  EXPECT_THROW(Decode<int32_t>(fixtures::Npy("<i4", "(4294967296, 4294967296)", ""), kName),
               Error);
  // Zero elements, although the other dimensions multiply beyond int64: a valid empty array.
  const golden::Tensor<int8_t> empty =
      Decode<int8_t>(fixtures::Npy("|i1", "(4294967296, 4294967296, 0)", ""), kName);
  EXPECT_EQ(empty.data.size(), 0u);
  EXPECT_EQ(empty.NumElements(), 0);
}

// Regression (a non-.npy file was read whole before its magic was checked: a 2 GB file took
// ~4 GB): large files that are not what they claim are refused from their header, within the
// allocation cap of this test (256 MiB). The files are sparse: no disk space is used.
TEST(NpyFuzz, LargeFilesAreRefusedFromTheirHeader) {
  testing::ScratchDir dir;
  const uint64_t kSize = uint64_t{1} << 30;
  const std::string zeros = dir / "zeros.bin";
  std::ofstream(zeros).close();
  std::filesystem::resize_file(zeros, kSize);
  try {
    Read<int8_t>(zeros);
    ADD_FAILURE() << "a file of zeros was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a .npy file"), std::string::npos) << e.what();
  }
  // A valid header over 1 GiB of data that does not match its shape.
  const std::string lying = dir.WriteFile("lying.npy", fixtures::Npy("|i1", "(1152921504606846976,)", ""));
  std::filesystem::resize_file(lying, kSize);
  EXPECT_THROW(Read<int8_t>(lying), Error);
  EXPECT_THROW(ReadIntegers(lying), Error);
  // A format 2.0 header length of almost 4 GiB over 1 GiB: it was read into memory whole.
  const std::string long_header = dir.WriteFile(
      "long_header.npy", std::string("\x93NUMPY\x02\x00\x00\xff\xff\xff", 12) + "{");
  std::filesystem::resize_file(long_header, kSize);
  try {
    ReadHeader(long_header);
    ADD_FAILURE() << "a 4 GiB header was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the header length says 4294967040 bytes, above the "
                                         "1048576"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Read<int8_t>(long_header), Error);
}

}  // namespace
}  // namespace tpu::npy
