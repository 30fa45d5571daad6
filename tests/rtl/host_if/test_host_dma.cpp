// The host interface's TLP receive/transmit and DMA engines (rtl/host_if: tpu_host_rx,
// tpu_host_dma_rd, tpu_host_dma_wr, tpu_host_tx) in the test top tpu_host_dma_tb, against a
// root-complex model that checks every TLP the device sends (testbench/host_if). Four
// configurations: 0 = MPS 256, MRRS 512, 16 tags; 1 = MPS 128, MRRS 256, 4 tags, both on the
// 128-bit stream (16-byte beats); 2 = configuration 0 on a 256-bit stream (32-byte beats), 3 =
// configuration 1 on a 512-bit stream (64-byte beats, two to a 128-byte TLP).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "host_if/dma_bench.h"
#include "host_if/dma_tb_model.h"
#include "sc_models/pcie/config_space.h"
#include "sc_models/pcie/tlp.h"

namespace tpu::tb {
namespace {

constexpr uint64_t kLow = 0x00100000;         // host regions below 4 GiB (3-DW headers)
constexpr uint64_t kHigh = 0x2'4567'0000ull;  // ... and above (4-DW headers)
constexpr uint64_t kMsiAddr = 0xfee00000;

// The test's seed, or TPU_SEED from the environment (added to it) to try others.
uint64_t Seed(uint64_t base) {
  const char* env = std::getenv("TPU_SEED");
  const uint64_t seed = base + (env != nullptr ? std::strtoull(env, nullptr, 0) : 0);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

std::unique_ptr<DmaTbModel> MakeModel(int k, const std::string& name) {
  const HarnessOptions opts = TestHarnessOptions(name);
  switch (k) {
    case 0:
      return MakeDmaTbModel<0>(opts);
    case 1:
      return MakeDmaTbModel<1>(opts);
    case 2:
      return MakeDmaTbModel<2>(opts);
    default:
      return MakeDmaTbModel<3>(opts);
  }
}

DmaTbConfig ConfigOf(int k) { return MakeModel(k, "")->config(); }

RcConfig BaseRc(const DmaTbConfig& c, uint64_t seed) {
  RcConfig rc;
  rc.max_payload = c.max_payload;
  rc.max_read_req = c.max_read_req;
  rc.num_tags = c.num_tags;
  rc.tlp_width_bits = c.tlp_width_bits;
  rc.seed = seed;
  return rc;
}

// The beats of `bytes` from `addr` on, beats of `beat` bytes.
uint64_t BeatsOf(uint64_t addr, uint64_t bytes, uint64_t beat) {
  return (addr + bytes + beat - 1) / beat - addr / beat;
}

// Latency, split completions merged at random, reordering across tags, gaps, stalls.
RcConfig StressedRc(const DmaTbConfig& c, uint64_t seed) {
  RcConfig rc = BaseRc(c, seed);
  rc.min_latency = 2;
  rc.max_latency = 120;
  rc.merge_completions = true;
  rc.reorder = true;
  rc.rx_gap = 0.25;
  rc.tx_ready = 0.7;
  return rc;
}

struct Profile {
  const char* name;
  bool stressed;
};

std::unique_ptr<DmaBench> MakeBench(int k, bool stressed, uint64_t seed, const std::string& name) {
  auto model = MakeModel(k, name);
  const DmaTbConfig c = model->config();
  auto bench = std::make_unique<DmaBench>(std::move(model),
                                          stressed ? StressedRc(c, seed) : BaseRc(c, seed), seed);
  if (stressed) {
    for (int r = 0; r < 2; ++r) bench->reader(r).set_rates(0.7, 0.6);
    bench->writer().set_rate(0.7);
    bench->set_reg_ready(0.5);
  }
  bench->rc().set_msi_address(kMsiAddr);
  return bench;
}

void FillRandom(DmaBench& b, uint64_t addr, uint64_t length, std::mt19937_64& rng) {
  std::vector<uint8_t> bytes(length);
  for (auto& v : bytes) v = static_cast<uint8_t>(rng());
  b.memory().Write(addr, bytes);
  b.expected().Write(addr, bytes);
}

std::vector<uint8_t> RandomBytes(uint64_t length, std::mt19937_64& rng) {
  std::vector<uint8_t> bytes(length);
  for (auto& v : bytes) v = static_cast<uint8_t>(rng());
  return bytes;
}

void ExpectNoViolations(DmaBench& b) {
  for (const auto& v : b.rc().violations()) ADD_FAILURE() << v;
  for (int r = 0; r < 2; ++r) {
    for (const auto& m : b.reader(r).mismatches()) ADD_FAILURE() << "client " << r << ": " << m;
  }
}

// Host memory equals what the writes should have left in [addr, addr + length).
void ExpectMemory(DmaBench& b, uint64_t addr, uint64_t length) {
  const std::vector<uint8_t> got = b.memory().Read(addr, length);
  const std::vector<uint8_t> want = b.expected().Read(addr, length);
  for (uint64_t i = 0; i < length; ++i) {
    if (got[i] != want[i]) {
      ADD_FAILURE() << std::hex << "host byte 0x" << addr + i << " is 0x" << int{got[i]}
                    << ", expected 0x" << int{want[i]};
      return;
    }
  }
}

const std::vector<uint64_t> kLengths = {
    1,   2,   3,   4,   5,   15,  16,  17,   31,   32,   33,   63,   64,   65,   127,  128,
    129, 255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 4095, 4096, 4097, 5000};
const std::vector<uint64_t> kOffsets = {0, 1, 2, 3, 7, 8, 13, 15};

class HostDma : public ::testing::TestWithParam<std::tuple<int, Profile>> {
 protected:
  int k() const { return std::get<0>(GetParam()); }
  bool stressed() const { return std::get<1>(GetParam()).stressed; }
  std::unique_ptr<DmaBench> Bench(uint64_t seed, const std::string& name = "") {
    return MakeBench(k(), stressed(), Seed(seed), name);
  }
  // The DMA beat (TLP stream width / 8) of configuration k().
  static uint64_t BeatBytes(const DmaBench& b) {
    return static_cast<uint64_t>(b.config().beat_bytes());
  }
};

// Reads of every length at odd host offsets through client 0 (the core's beats) while client
// 1 fetches bursts of ring slots; every beat compared with host memory, every TLP checked.
TEST_P(HostDma, ReadsOfEveryLengthAndOffset) {
  auto b = Bench(11 + k(), "host_dma_reads");
  std::mt19937_64 rng(Seed(5 + k()));
  for (size_t i = 0; i < kLengths.size(); ++i) {
    for (int j = 0; j < 2; ++j) {
      const uint64_t base = ((i + j) % 2 ? kHigh : kLow) + (2 * i + j) * 8192;
      const uint64_t off = kOffsets[(2 * i + j) % kOffsets.size()];
      FillRandom(*b, base, 8192 + 64, rng);
      b->reader(0).Read(base + off, kLengths[i]);
    }
  }
  const uint64_t ring = kLow + 0x200000;
  FillRandom(*b, ring, 4096, rng);
  for (int burst = 0; burst < 40; ++burst) {
    const uint64_t slot = rng() % 256;
    const uint64_t n = 1 + rng() % 8;
    b->reader(1).Read(ring + 16 * slot, 16 * std::min<uint64_t>(n, 256 - slot), true);
  }
  ASSERT_TRUE(b->Run(400000)) << "did not finish";
  ExpectNoViolations(*b);
  EXPECT_EQ(b->reader(0).beats_error() + b->reader(1).beats_error(), 0u);
  EXPECT_GT(b->reader(0).beats_ok() * BeatBytes(*b), 16000u);
  EXPECT_EQ(b->cpl_unexpected(), 0u);
  EXPECT_EQ(b->rc().stats().mwr, 0u);
}

// Writes of every length at odd host offsets: the bytes around each range (guard bytes, and
// the bytes of partial beats outside the mask) stay intact.
TEST_P(HostDma, WritesOfEveryLengthAndOffset) {
  auto b = Bench(21 + k(), "host_dma_writes");
  std::mt19937_64 rng(Seed(7 + k()));
  std::vector<std::pair<uint64_t, uint64_t>> regions;
  for (size_t i = 0; i < kLengths.size(); ++i) {
    for (int j = 0; j < 2; ++j) {
      const uint64_t base = ((i + j) % 2 ? kHigh : kLow) + (2 * i + j) * 8192;
      const uint64_t off = 64 + kOffsets[(2 * i + j) % kOffsets.size()];
      FillRandom(*b, base, 8192, rng);  // guard pattern
      b->writer().Write(base + off, RandomBytes(kLengths[i], rng));
      regions.push_back({base, 8192});
    }
  }
  ASSERT_TRUE(b->Run(400000)) << "did not finish";
  ExpectNoViolations(*b);
  for (const auto& [addr, length] : regions) ExpectMemory(*b, addr, length);
  EXPECT_EQ(b->rc().stats().mrd, 0u);
  EXPECT_TRUE(b->out().wr_empty);
}

// Beats with any byte mask (contiguous or not, empty, full), at random and at consecutive
// addresses: non-contiguous beats go out as 1-DW writes with their byte enables.
TEST_P(HostDma, WritesWithAnyByteMask) {
  auto b = Bench(31 + k(), "host_dma_masks");
  std::mt19937_64 rng(Seed(9 + k()));
  const uint64_t base = kLow + 0x400000;
  FillRandom(*b, base, 0x4000, rng);
  const uint64_t bb = BeatBytes(*b);
  const uint64_t full = bb == 64 ? ~uint64_t{0} : (uint64_t{1} << bb) - 1;
  uint64_t beat = base + bb * (rng() % 64);
  for (int i = 0; i < 600; ++i) {
    DmaBeat data(bb);
    for (auto& v : data) v = static_cast<uint8_t>(rng());
    uint64_t mask;
    switch (rng() % 5) {
      case 0:
        mask = full;
        break;
      case 1:
        mask = 0;
        break;
      case 2: {  // contiguous: bytes lo..hi
        const uint64_t lo = rng() % bb, hi = lo + rng() % (bb - lo);
        mask = (full >> (bb - 1 - hi)) & ~((uint64_t{1} << lo) - 1);
        break;
      }
      default:
        mask = rng() & full;
        break;
    }
    b->writer().WriteBeat(beat, data, mask);
    beat = (rng() % 4) ? beat + bb : base + bb * (rng() % (16000 / bb));
  }
  ASSERT_TRUE(b->Run(200000)) << "did not finish";
  ExpectNoViolations(*b);
  ExpectMemory(*b, base, 0x4000);
}

// A read of bytes just written (the next transfer of the core's DMA unit, started when the
// last write beat was taken) sees the new bytes: client 0's MRd waits until every MWr left.
TEST_P(HostDma, ReadAfterWriteSeesTheWrite) {
  auto b = Bench(41 + k(), "host_dma_raw");
  std::mt19937_64 rng(Seed(13 + k()));
  const uint64_t base = kLow + 0x600000;
  FillRandom(*b, base, 0x10000, rng);
  for (int i = 0; i < 30; ++i) {
    const uint64_t addr = base + rng() % 0xf000;
    const uint64_t length = 1 + rng() % 1024;
    b->writer().Write(addr, RandomBytes(length, rng));
    for (int guard = 0; !b->writer().done(); ++guard) {
      ASSERT_LT(guard, 100000);
      b->Step();
    }
    b->reader(0).Read(addr, length);
  }
  ASSERT_TRUE(b->Run(400000)) << "did not finish";
  ExpectNoViolations(*b);
  ExpectMemory(*b, base, 0x10000);
  EXPECT_EQ(b->reader(0).beats_error(), 0u);
}

// An MSI requested once the last write beat was taken leaves after every write TLP.
TEST_P(HostDma, MsiFollowsTheWrites) {
  auto b = Bench(51 + k(), "host_dma_msi");
  std::mt19937_64 rng(Seed(17 + k()));
  const uint64_t base = kHigh + 0x100000;
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 8; ++i) {
      b->writer().Write(base + rng() % 0x8000, RandomBytes(1 + rng() % 700, rng));
    }
    for (int guard = 0; !b->writer().done(); ++guard) {
      ASSERT_LT(guard, 100000);
      b->Step();
    }
    b->RequestMsi(kMsiAddr, static_cast<uint16_t>(0x4100 + round));
    ASSERT_TRUE(b->Run(100000));
    b->Idle(20);
    ASSERT_EQ(b->rc().msis().size(), static_cast<size_t>(round + 1));
    const auto& msi = b->rc().msis().back();
    EXPECT_EQ(msi.data, 0x4100u + round);
    EXPECT_EQ(msi.writes_before, b->rc().stats().mwr) << "a write TLP left after the MSI";
  }
  EXPECT_EQ(b->msi_sent(), 5u);
  ExpectNoViolations(*b);
  ExpectMemory(*b, base, 0x8000 + 700);
}

// Completions with status CA or UR, or poisoned: the beats of the failing requests return
// with the error flag, the others with their data; afterwards the same addresses read fine.
TEST_P(HostDma, CompletionErrors) {
  for (int kind = 0; kind < 3; ++kind) {
    SCOPED_TRACE(kind == 0 ? "CA" : kind == 1 ? "UR" : "poisoned");
    auto b = Bench(61 + k() + 5 * kind, "host_dma_cpl_errors");
    RcConfig rc = b->rc().config();
    rc.fault_status = kind == 0 ? sc::CompletionStatus::kCompleterAbort
                                : sc::CompletionStatus::kUnsupportedRequest;
    rc.fault_poisoned = kind == 2;
    b->rc().set_config(rc);
    std::mt19937_64 rng(Seed(19 + k()));
    const uint64_t base = kLow + 0x800000;
    FillRandom(*b, base, 0x8000, rng);
    b->memory().AddFault(base + 0x1230, 5);
    b->memory().AddFault(base + 0x5000, 0x300);
    for (int i = 0; i < 16; ++i) b->reader(0).Read(base + i * 0x800 + 3, 0x7f0);
    b->reader(1).Read(base + 0x1200, 0x80, true);
    ASSERT_TRUE(b->Run(400000)) << "did not finish";
    ExpectNoViolations(*b);
    EXPECT_GE(b->reader(0).beats_error(), 1u + 0x300 / BeatBytes(*b));
    EXPECT_GE(b->reader(1).beats_error(), 1u);
    EXPECT_EQ(b->cpl_unexpected(), 0u);  // poisoned: the request's later completions are taken
    b->memory().ClearFaults();
    for (int i = 0; i < 16; ++i) b->reader(0).Read(base + i * 0x800, 0x800);
    const uint64_t errors = b->reader(0).beats_error();
    ASSERT_TRUE(b->Run(400000)) << "did not finish after the errors";
    ExpectNoViolations(*b);
    EXPECT_EQ(b->reader(0).beats_error(), errors);
  }
}

// Requests the root complex never answers time out: their beats return with the error flag,
// their tags are reused, and later reads are answered normally.
TEST_P(HostDma, Timeouts) {
  auto b = Bench(71 + k(), "host_dma_timeouts");
  std::mt19937_64 rng(Seed(23 + k()));
  const uint64_t base = kLow + 0xa00000;
  FillRandom(*b, base, 0x8000, rng);
  b->rc().AddSilentRange(base + 0x2000, 0x100);
  b->reader(0).Read(base, 0x4000);
  b->reader(1).Read(base + 0x2040, 0x20, true);
  ASSERT_TRUE(b->Run(400000)) << "did not finish";
  ExpectNoViolations(*b);
  EXPECT_GE(b->timeouts(), 2u);
  EXPECT_GE(b->reader(0).beats_error(), 0x100u / BeatBytes(*b));
  EXPECT_EQ(b->reader(1).beats_error(), BeatsOf(base + 0x2040, 0x20, BeatBytes(*b)));
  b->rc().ClearSilentRanges();
  const uint64_t errors = b->reader(0).beats_error();
  for (int i = 0; i < 3; ++i) b->reader(0).Read(base + i * 0x1000 + 5, 0x1000);
  ASSERT_TRUE(b->Run(400000)) << "did not finish after the timeouts";
  ExpectNoViolations(*b);
  EXPECT_EQ(b->reader(0).beats_error(), errors);
}

// Tag quarantine: a completion that arrives after its request timed out, while new reads of
// the same size and lower address are waiting for theirs, is dropped (the timed-out tag is
// not reused for Quarantine = Timeout cycles), so the new reads get their own data.
TEST_P(HostDma, LateCompletionAfterATimeoutIsDropped) {
  auto b = Bench(75 + k(), "host_dma_late_completion");
  std::mt19937_64 rng(Seed(27 + k()));
  const uint64_t base = kLow + 0x600000;
  FillRandom(*b, base, 0x4000, rng);
  b->rc().AddSilentRange(base, 0x40);
  b->reader(0).Read(base, 0x40);
  ASSERT_TRUE(b->Run(20000)) << "the read did not time out";
  ASSERT_EQ(b->timeouts(), 1u);
  ASSERT_EQ(b->rc().unanswered().size(), 1u);
  const uint64_t beats = 0x40 / BeatBytes(*b);
  EXPECT_EQ(b->reader(0).beats_error(), beats);
  const sc::Tlp late = b->rc().unanswered()[0];
  b->rc().ClearSilentRanges();
  // New reads answered 200 cycles later; the late completion (other bytes) comes first.
  RcConfig rc = b->rc().config();
  rc.min_latency = rc.max_latency = 200;
  b->rc().set_config(rc);
  for (uint64_t i = 0; i < 8; ++i) b->reader(0).Read(base + 0x1000 + 0x80 * i, 0x40);
  b->Idle(60);
  ASSERT_GE(b->rc().reads_outstanding(), 2u) << "the new reads were not sent yet";
  const sc::CompletionSplit split{64, static_cast<uint32_t>(b->config().max_payload), false};
  for (const sc::Tlp& c : sc::SplitReadCompletions(late, RandomBytes(0x40, rng),
                                                   sc::kRootComplexId, split)) {
    b->rc().Inject(c);
  }
  ASSERT_TRUE(b->Run(20000)) << "did not finish after the late completion";
  ExpectNoViolations(*b);
  EXPECT_EQ(b->cpl_unexpected(), 1u);
  EXPECT_EQ(b->reader(0).beats_error(), beats);
  EXPECT_EQ(b->timeouts(), 1u);
}

// A flush (soft reset, ring restart) in the middle of reads: the completions still owed are
// thrown away (not reported as unexpected) and the next reads get their own data.
TEST_P(HostDma, FlushDropsOutstandingReads) {
  auto b = Bench(81 + k(), "host_dma_flush");
  RcConfig rc = b->rc().config();
  rc.min_latency = 150;
  rc.max_latency = 300;
  b->rc().set_config(rc);
  std::mt19937_64 rng(Seed(29 + k()));
  const uint64_t base = kLow + 0xc00000;
  FillRandom(*b, base, 0x10000, rng);
  for (int round = 0; round < 4; ++round) {
    for (int c = 0; c < 2; ++c) b->reader(c).Read(base + 0x4000 * c + round * 64, 0x3000, c);
    b->writer().Write(base + 0xc000 + round * 0x400, RandomBytes(0x300, rng));
    b->Idle(60 + 40 * round);
    b->FlushReader(round % 2);
    if (round == 3) b->FlushReader(0);
    b->Idle(1);
    b->reader(round % 2).Read(base + 0x8000 + round * 0x100, 0x800, round % 2);
    ASSERT_TRUE(b->Run(400000)) << "did not finish, round " << round;
  }
  ExpectNoViolations(*b);
  EXPECT_EQ(b->cpl_unexpected(), 0u);
  EXPECT_EQ(b->reader(0).beats_error() + b->reader(1).beats_error(), 0u);
  ExpectMemory(*b, base + 0xc000, 0x1000);
}

// A write-engine flush while TLPs are being sent: the TLP on the wire is finished (every TLP
// stays legal), nothing else of the dropped beats is sent, and later writes land.
TEST_P(HostDma, FlushOfTheWriteEngine) {
  auto b = Bench(91 + k(), "host_dma_wr_flush");
  std::mt19937_64 rng(Seed(31 + k()));
  const uint64_t base = kLow + 0xe00000;
  for (int round = 0; round < 6; ++round) {
    b->writer().Write(base + round * 0x1000, RandomBytes(0x800, rng));
    b->Idle(20 + 13 * round);
    b->FlushWriter();
    ASSERT_TRUE(b->Run(100000));
  }
  const uint64_t written = b->rc().stats().bytes_written;
  EXPECT_LT(written, 6u * 0x800);
  b->memory().Write(base + 0x8000, std::vector<uint8_t>(0x200, 0));
  b->expected().Write(base + 0x8000, std::vector<uint8_t>(0x200, 0));
  b->writer().Write(base + 0x8003, RandomBytes(0x1f0, rng));
  ASSERT_TRUE(b->Run(100000));
  ExpectNoViolations(*b);
  ExpectMemory(*b, base + 0x8000, 0x200);
}

// BAR0 accesses through the receive and transmit sides: single-DW reads and writes with any
// byte enables, completions echoing requester, tag, byte count and lower address.
TEST_P(HostDma, RegisterAccesses) {
  auto b = Bench(101 + k(), "host_dma_regs");
  std::mt19937_64 rng(Seed(37 + k()));
  std::vector<std::pair<int, uint32_t>> reads;  // handle, expected
  std::map<uint16_t, uint32_t> model;
  int pending = 0;
  for (int i = 0; i < 300; ++i) {
    const uint16_t off = static_cast<uint16_t>(4 * (rng() % 64));
    const uint8_t be = static_cast<uint8_t>(rng() % 16);
    if (rng() % 2) {
      const uint32_t v = static_cast<uint32_t>(rng());
      b->rc().WriteReg(off, v, be);
      uint32_t& w = model[off];
      for (int k2 = 0; k2 < 4; ++k2) {
        if (be >> k2 & 1) w = (w & ~(0xffu << (8 * k2))) | (v & (0xffu << (8 * k2)));
      }
    } else {
      reads.push_back({b->rc().ReadReg(off, be), model[off]});
    }
    if (++pending == 24) {  // the host has 32 tags for register reads
      ASSERT_TRUE(b->Run(100000));
      pending = 0;
    }
  }
  ASSERT_TRUE(b->Run(100000));
  ExpectNoViolations(*b);
  for (const auto& [handle, want] : reads) {
    ASSERT_TRUE(b->rc().ReadResult(handle).has_value());
    EXPECT_EQ(*b->rc().ReadResult(handle), want);
  }
  EXPECT_EQ(b->out().rx_drop_count, 0u);
}

// Posted TLPs the device does not support are dropped whole and counted, non-posted ones
// answered UR; a completion for no request is dropped and reported; register accesses keep
// working.
TEST_P(HostDma, DropsWhatItDoesNotSupport) {
  auto b = Bench(111 + k(), "host_dma_drops");
  const uint64_t bar = b->rc().config().bar0;
  // A message (fmt 001, type 10000: routed to the root complex ... here to us), as raw beats:
  // sc::Tlp holds only the TLPs the models exchange.
  const int dws = b->rc().beat_dws();
  sc::TlpBeat msg;
  msg.dws = dws;
  msg.dw[0] = 1u << 29 | 0x10u << 24;
  msg.sop = msg.eop = true;
  b->rc().InjectBeats({msg});
  const uint8_t two_dws[8] = {1, 0, 0, 0, 2, 0, 0, 0};
  const int two_dw_read = b->rc().Request(sc::MakeMemRead(0, 0, bar + 0x40, 8));
  b->rc().Inject(sc::MakeMemWrite(0, bar + 0x40, two_dws, 8));  // BAR0 write of 2 DW
  const uint8_t five[4] = {5, 0, 0, 0}, six[4] = {6, 0, 0, 0};
  sc::Tlp poisoned = sc::MakeMemWrite(0, bar + 0x44, five, 4);
  poisoned.poisoned = true;
  b->rc().Inject(poisoned);
  // An I/O write (non-posted): an MWr's beats with type 00010.
  std::vector<sc::TlpBeat> io =
      sc::EncodeTlpBeats(sc::MakeMemWrite(0, bar + 0x48, six, 4), dws);
  io[0].dw[0] = (io[0].dw[0] & ~(0x1Fu << 24)) | 0x02u << 24;
  const int io_write = b->rc().RequestBeats(io);
  sc::TlpBeat stray;  // a beat without sop
  stray.dws = dws;
  stray.eop = true;
  b->rc().InjectBeats({stray});
  // A CplD of 4 DWs (1, 2, 3, 4) for the device's tag `tag`, byte count 16, lower address 0.
  auto cpld = [](uint8_t tag) {
    sc::Tlp c;
    c.kind = sc::TlpKind::kCompletionData;
    c.completer_id = sc::kRootComplexId;
    c.requester_id = sc::kDeviceId;
    c.tag = tag;
    c.byte_count = 16;
    c.length_dw = 4;
    c.data = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0};
    return c;
  };
  b->rc().Inject(cpld(200));  // no such tag
  b->rc().Inject(cpld(3));    // tag not used
  b->rc().WriteReg(0x50, 0x12345678);
  const int h = b->rc().ReadReg(0x50);
  ASSERT_TRUE(b->Run(10000));
  ExpectNoViolations(*b);
  EXPECT_EQ(b->out().rx_drop_count, 4u);  // message, 2-DW write, poisoned write, stray beat
  EXPECT_EQ(b->rc().RequestStatus(two_dw_read), sc::CompletionStatus::kUnsupportedRequest);
  EXPECT_EQ(b->rc().RequestStatus(io_write), sc::CompletionStatus::kUnsupportedRequest);
  EXPECT_EQ(b->cpl_unexpected(), 2u);
  EXPECT_EQ(b->reg_writes(), 1u);
  EXPECT_EQ(b->reg_reads(), 1u);
  ASSERT_TRUE(b->rc().ReadResult(h).has_value());
  EXPECT_EQ(*b->rc().ReadResult(h), 0x12345678u);
}

// Every non-posted request gets a completion, in order with the register reads around it:
// BAR0 reads longer than one DW (a 64-bit read of a register pair, up to 1024 DWs, 4-DW
// header, partial byte enables) and the other non-posted requests (locked read, I/O,
// configuration type 1, to another function or of two DWs, atomics) complete UR without
// touching a register; 1-DW reads their data.
TEST_P(HostDma, EveryReadCompletes) {
  auto b = Bench(121 + k(), "host_dma_every_read");
  const uint64_t bar = b->rc().config().bar0;
  b->rc().WriteReg(0x40, 0x11111111);
  b->rc().WriteReg(0x44, 0x22222222);
  std::vector<int> ur;
  std::vector<std::pair<int, uint32_t>> good;  // handle, value
  // MRd of `dws` DWs at BAR0 + offset with the given byte enables.
  auto mrd = [&](uint32_t offset, uint32_t dws, uint8_t first_be, uint8_t last_be) {
    sc::Tlp t = sc::MakeMemRead(0, 0, bar + offset, 4 * dws);
    t.first_be = first_be;
    t.last_be = last_be;
    return t;
  };
  // Raw beats of a request of type `type` (fmt from with_data), one DW, full byte enables.
  auto raw = [&](uint32_t type, bool with_data) {
    const uint8_t dw[4] = {1, 2, 3, 4};
    std::vector<sc::TlpBeat> beats = sc::EncodeTlpBeats(
        with_data ? sc::MakeMemWrite(0, bar, dw, 4) : sc::MakeMemRead(0, 0, bar, 4),
        b->rc().beat_dws());
    beats[0].dw[0] = (beats[0].dw[0] & ~(0x1Fu << 24)) | type << 24;
    return beats;
  };
  for (int round = 0; round < 2; ++round) {
    good.push_back({b->rc().ReadReg(0x40), 0x11111111});
    ur.push_back(b->rc().Request(mrd(0x40, 2, 0xf, 0xf)));  // a 64-bit read of 0x40 / 0x44
    good.push_back({b->rc().ReadReg(0x44), 0x22222222});
    ur.push_back(b->rc().Request(mrd(0x41, 3, 0xe, 0x3)));
    ur.push_back(b->rc().Request(mrd(0x100, 16, 0xf, 0xf)));
    ur.push_back(b->rc().Request(mrd(0, 1024, 0xc, 0x1)));
    ur.push_back(b->rc().Request(sc::MakeMemRead(0, 0, 0x1'0000'0000ull + 0x40, 8)));  // 4 DW
    ur.push_back(b->rc().RequestBeats(raw(0x01, false)));  // MRdLk
    ur.push_back(b->rc().RequestBeats(raw(0x02, false)));  // I/O read
    // Configuration requests the function does not take: type 0 to function 1, type 0 of
    // two DWs, type 1.
    ur.push_back(b->rc().RequestBeats(sc::EncodeTlpBeats(
        sc::MakeConfigRead(0, 0, sc::kDeviceId | 1, sc::kCfgIds), b->rc().beat_dws())));
    std::vector<sc::TlpBeat> cfg_two_dws = raw(0x04, false);
    cfg_two_dws[0].dw[0] = (cfg_two_dws[0].dw[0] & ~0x3ffu) | 2;
    ur.push_back(b->rc().RequestBeats(cfg_two_dws));
    ur.push_back(b->rc().RequestBeats(raw(0x05, true)));  // configuration write, type 1
    ur.push_back(b->rc().RequestBeats(raw(0x0c, true)));   // FetchAdd
    good.push_back({b->rc().ReadReg(0x40, 0x6), 0x11111111});
    ASSERT_TRUE(b->Run(20000)) << "round " << round;
  }
  ExpectNoViolations(*b);
  for (int h : ur) {
    ASSERT_TRUE(b->rc().RequestStatus(h).has_value()) << "request " << h << " not completed";
    EXPECT_EQ(*b->rc().RequestStatus(h), sc::CompletionStatus::kUnsupportedRequest);
  }
  for (const auto& [h, want] : good) {
    ASSERT_TRUE(b->rc().ReadResult(h).has_value()) << "register read " << h;
    EXPECT_EQ(*b->rc().ReadResult(h), want);
  }
  EXPECT_EQ(b->out().rx_drop_count, 0u);
  EXPECT_EQ(b->reg_reads(), 6u);  // only the 1-DW reads reached the registers
  EXPECT_EQ(b->reg_writes(), 2u);
}

// The configuration space against its C++ model (sc::ConfigSpace): after the bench's
// enumeration (whose reads of the IDs, BAR0's size mask, Device Control and Command it checks),
// every register of the header and the PCI Express capability, then random writes with random
// byte enables to every offset, each followed by reads of all of them.
TEST_P(HostDma, ConfigSpaceMatchesItsModel) {
  auto b = Bench(131 + k(), "host_dma_config_space");
  const DmaTbConfig c = b->config();
  sc::ConfigSpace model(static_cast<uint32_t>(c.max_payload),
                        static_cast<uint32_t>(c.max_read_req));
  for (const sc::ConfigStep& step : sc::EnumerationSteps(
           static_cast<uint32_t>(b->rc().config().bar0), static_cast<uint32_t>(c.max_payload),
           static_cast<uint32_t>(c.max_read_req))) {
    if (step.write) model.Write(step.offset, step.value, 0xf, sc::kDeviceId);
  }
  ASSERT_TRUE(b->Run(5000));
  ExpectNoViolations(*b);
  // By hand, the fields a host reads first.
  const int ids = b->rc().ConfigRead(sc::kCfgIds);
  const int header = b->rc().ConfigRead(sc::kCfgHeader);
  const int cls = b->rc().ConfigRead(sc::kCfgClass);
  const int cap = b->rc().ConfigRead(sc::kCfgPcieCap);
  const int devcap = b->rc().ConfigRead(sc::kCfgDeviceCaps);
  ASSERT_TRUE(b->Run(5000));
  EXPECT_EQ(*b->rc().ReadResult(ids), 0x74701234u);
  EXPECT_EQ(*b->rc().ReadResult(header) >> 16 & 0x7f, 0u);  // header type 0
  EXPECT_EQ(*b->rc().ReadResult(cls) >> 8, 0x120000u);
  EXPECT_EQ(*b->rc().ReadResult(cap) & 0xff, 0x10u);  // PCI Express capability
  EXPECT_EQ(*b->rc().ReadResult(devcap) & 7, c.max_payload >= 256 ? 1u : 0u);

  std::mt19937_64 rng(Seed(17 + k()));
  std::vector<uint16_t> offsets;
  for (uint16_t o = 0; o <= 0x5c; o += 4) offsets.push_back(o);
  offsets.push_back(0xffc);
  for (int round = 0; round < 40; ++round) {
    const uint16_t off = offsets[rng() % offsets.size()];
    const uint32_t value = static_cast<uint32_t>(rng());
    const uint8_t be = static_cast<uint8_t>(rng() % 16);
    b->rc().ConfigWrite(off, value, be);
    model.Write(off, value, be, sc::kDeviceId);
    std::vector<std::pair<uint16_t, int>> reads;
    for (uint16_t o : offsets) reads.push_back({o, b->rc().ConfigRead(o)});
    ASSERT_TRUE(b->Run(20000)) << "round " << round;
    for (const auto& [o, h] : reads) {
      ASSERT_TRUE(b->rc().ReadResult(h).has_value()) << "offset " << o;
      EXPECT_EQ(*b->rc().ReadResult(h), model.Read(o))
          << std::hex << "offset 0x" << o << " after writing 0x" << value << " BE " << int{be}
          << " to 0x" << off;
    }
  }
  ExpectNoViolations(*b);
  EXPECT_EQ(b->reg_reads() + b->reg_writes(), 0u);  // nothing reached the BAR0 registers
}

// The bus and device numbers of a configuration write become the device's requester ID (DMA
// reads and writes, MSIs) and completer ID (register reads): the root complex checks every
// TLP against the ID of the last configuration write.
TEST_P(HostDma, RequesterIdFromConfigWrite) {
  auto b = Bench(141 + k(), "host_dma_requester_id");
  std::mt19937_64 rng(Seed(19 + k()));
  const uint16_t id = 0x2318;  // bus 23h, device 3, function 0
  b->rc().Request(sc::MakeConfigWrite(sc::kRootComplexId, 0, id, sc::kCfgCommand,
                                      sc::kCommandMemorySpace | sc::kCommandBusMaster));
  ASSERT_TRUE(b->Run(5000));
  ASSERT_EQ(b->rc().device_id(), id);
  FillRandom(*b, kLow, 4096, rng);
  b->reader(0).Read(kLow + 3, 3000);
  b->writer().Write(kHigh + 5, RandomBytes(2000, rng));
  b->RequestMsi(kMsiAddr, 0x55);
  const int h = b->rc().ReadReg(0x40);
  ASSERT_TRUE(b->Run(20000));
  ExpectNoViolations(*b);
  ExpectMemory(*b, kHigh, 2048);
  EXPECT_GT(b->rc().stats().mrd, 0u);
  EXPECT_GT(b->rc().stats().mwr, 0u);
  EXPECT_EQ(b->rc().msis().size(), 1u);
  EXPECT_TRUE(b->rc().ReadResult(h).has_value());
}

// MPS and MRRS come from Device Control at run time, clamped to the build's: with both at
// 128 bytes every write carries at most 128 bytes and every read asks for at most 128 (the
// root complex, set to 128, checks each TLP), data intact; writing the largest encodings
// (4096) gives the build's sizes back.
TEST_P(HostDma, DeviceControlSetsPayloadAndReadSizes) {
  auto b = Bench(151 + k(), "host_dma_device_control");
  std::mt19937_64 rng(Seed(23 + k()));
  const DmaTbConfig c = b->config();
  const uint64_t bytes = 8192;
  // Sends one aligned read and one aligned write of `bytes` and returns the TLP counts.
  auto transfer = [&](uint64_t offset) {
    const RootComplex::Stats before = b->rc().stats();
    FillRandom(*b, kLow + offset, bytes, rng);
    b->reader(0).Read(kLow + offset, bytes);
    EXPECT_TRUE(b->Run(50000));
    b->writer().Write(kHigh + offset, RandomBytes(bytes, rng));
    EXPECT_TRUE(b->Run(50000));
    ExpectNoViolations(*b);
    ExpectMemory(*b, kHigh + offset, bytes);
    return std::pair<uint64_t, uint64_t>(b->rc().stats().mrd - before.mrd,
                                         b->rc().stats().mwr - before.mwr);
  };
  b->rc().ConfigWrite(sc::kCfgDeviceControl, sc::DeviceControl(0, 0));  // 128 / 128
  ASSERT_TRUE(b->Run(5000));
  RcConfig rc = b->rc().config();
  rc.max_payload = rc.max_read_req = 128;
  b->rc().set_config(rc);
  const auto [mrd_small, mwr_small] = transfer(0);
  EXPECT_GE(mrd_small, bytes / 128);
  EXPECT_GE(mwr_small, bytes / 128);
  // The largest encodings: clamped to the build's MPS / MRRS.
  b->rc().ConfigWrite(sc::kCfgDeviceControl, sc::DeviceControl(5, 5));
  ASSERT_TRUE(b->Run(5000));
  rc.max_payload = c.max_payload;
  rc.max_read_req = c.max_read_req;
  b->rc().set_config(rc);
  const auto [mrd_big, mwr_big] = transfer(0x10000);
  if (!stressed()) {  // without client gaps every TLP is as large as allowed
    EXPECT_EQ(mrd_small, bytes / 128);
    EXPECT_EQ(mwr_small, bytes / 128);
    EXPECT_EQ(mrd_big, bytes / static_cast<uint64_t>(c.max_read_req));
    EXPECT_EQ(mwr_big, bytes / static_cast<uint64_t>(c.max_payload));
  }
}

// Without Bus Master Enable no request leaves the device: DMA reads and writes and an MSI wait
// (their engines hold them) while register reads still complete; setting it sends them all.
TEST_P(HostDma, NoRequestWithoutBusMaster) {
  auto model = MakeModel(k(), "host_dma_bus_master");
  const DmaTbConfig c = model->config();
  RcConfig rc = stressed() ? StressedRc(c, Seed(161 + k())) : BaseRc(c, Seed(161 + k()));
  rc.enumerate = false;
  DmaBench b(std::move(model), rc, 161);
  b.rc().set_msi_address(kMsiAddr);
  std::mt19937_64 rng(Seed(29 + k()));
  b.rc().ConfigWrite(sc::kCfgCommand, sc::kCommandMemorySpace);
  FillRandom(b, kLow, 4096, rng);
  b.reader(0).Read(kLow, 4096);
  b.reader(1).Read(kLow + 0x800, 64, true);
  b.writer().Write(kHigh, RandomBytes(4096, rng));
  b.RequestMsi(kMsiAddr, 7);
  const int h = b.rc().ReadReg(0x40);
  EXPECT_FALSE(b.Run(5000));
  EXPECT_EQ(b.rc().stats().mrd, 0u);
  EXPECT_EQ(b.rc().stats().mwr, 0u);
  EXPECT_TRUE(b.rc().msis().empty());
  EXPECT_TRUE(b.rc().ReadResult(h).has_value());
  b.rc().ConfigWrite(sc::kCfgCommand, sc::kCommandMemorySpace | sc::kCommandBusMaster);
  ASSERT_TRUE(b.Run(50000));
  ExpectNoViolations(b);
  ExpectMemory(b, kHigh, 4096);
  EXPECT_GT(b.rc().stats().mrd, 0u);
  EXPECT_EQ(b.rc().msis().size(), 1u);
}

// Without Memory Space Enable a BAR0 read completes UR and a BAR0 write is dropped (counted);
// neither reaches the registers. Configuration requests still work, and once it is set BAR0
// accesses do.
TEST_P(HostDma, NoBarAccessWithoutMemorySpace) {
  auto model = MakeModel(k(), "host_dma_memory_space");
  const DmaTbConfig c = model->config();
  RcConfig rc = stressed() ? StressedRc(c, Seed(171 + k())) : BaseRc(c, Seed(171 + k()));
  rc.enumerate = false;
  DmaBench b(std::move(model), rc, 171);
  const int ur = b.rc().ReadReg(0x40);
  b.rc().WriteReg(0x44, 0x1234);
  const int ids = b.rc().ConfigRead(sc::kCfgIds);
  ASSERT_TRUE(b.Run(5000));
  ExpectNoViolations(b);
  EXPECT_EQ(b.rc().RequestStatus(ur), sc::CompletionStatus::kUnsupportedRequest);
  EXPECT_EQ(b.rc().ReadResult(ids), 0x74701234u);
  EXPECT_EQ(b.reg_reads() + b.reg_writes(), 0u);
  EXPECT_EQ(b.out().rx_drop_count, 1u);
  b.rc().ConfigWrite(sc::kCfgCommand, sc::kCommandMemorySpace);
  b.rc().WriteReg(0x44, 0x1234);
  const int ok = b.rc().ReadReg(0x44);
  ASSERT_TRUE(b.Run(5000));
  ExpectNoViolations(b);
  EXPECT_EQ(b.rc().ReadResult(ok), 0x1234u);
  EXPECT_EQ(b.reg_reads(), 1u);
  EXPECT_EQ(b.reg_writes(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Configs, HostDma,
                         ::testing::Combine(::testing::Values(0, 1, 2, 3),
                                            ::testing::Values(Profile{"ideal", false},
                                                              Profile{"stressed", true})),
                         [](const auto& info) {
                           return "config" + std::to_string(std::get<0>(info.param)) + "_" +
                                  std::get<1>(info.param).name;
                         });

// Throughput with an ideal link (no gaps, always ready) and a fixed round-trip latency:
// 64 KiB read through client 0, then 64 KiB written. Printed for docs/host_if.md.
class HostDmaThroughput : public ::testing::TestWithParam<int> {};

TEST_P(HostDmaThroughput, ReadAndWriteBandwidth) {
  const int k = GetParam();
  const DmaTbConfig c = ConfigOf(k);
  RcConfig rc = BaseRc(c, 1);
  rc.min_latency = rc.max_latency = 64;
  DmaBench b(MakeModel(k, "host_dma_throughput"), rc, 1);
  std::mt19937_64 rng(Seed(3));
  const uint64_t bytes = 64 * 1024;
  FillRandom(b, kLow, bytes, rng);
  uint64_t start = b.cycle();
  b.reader(0).Read(kLow, bytes);
  ASSERT_TRUE(b.Run(100000));
  const uint64_t read_cycles = b.cycle() - start;
  start = b.cycle();
  b.writer().Write(kHigh, RandomBytes(bytes, rng));
  ASSERT_TRUE(b.Run(100000));
  const uint64_t write_cycles = b.cycle() - start;
  ExpectNoViolations(b);
  ExpectMemory(b, kHigh, bytes);
  const double beat = c.beat_bytes();
  const double rd = static_cast<double>(bytes) / beat / read_cycles;
  const double wr = static_cast<double>(bytes) / beat / write_cycles;
  std::printf(
      "config %d (MPS %d, MRRS %d, %d tags, %d-bit stream, latency 64): read %.3f beats/cycle "
      "(%llu cycles), write %.3f beats/cycle (%llu cycles)\n",
      k, c.max_payload, c.max_read_req, c.num_tags, c.tlp_width_bits, rd,
      static_cast<unsigned long long>(read_cycles), wr,
      static_cast<unsigned long long>(write_cycles));
  // Reads: 64-byte completions carry 64 / B data beats per 64 / B + 1 link beats (0.8 at 16
  // bytes, 0.667 at 32, 0.5 at 64); with 4 tags (configurations 1, 3) the round trip bounds:
  // 2 core tags x 256 bytes per ~75 cycles (0.37 beats of 16 bytes, 0.107 of 64).
  const double read_bound[] = {0.7, 0.25, 0.6, 0.09};
  EXPECT_GT(rd, read_bound[k]);
  // Writes: MPS-byte TLPs carry MPS / B data beats per MPS / B + 1 link beats (0.941, 0.889,
  // 0.889, 0.667).
  const double write_bound[] = {0.85, 0.8, 0.8, 0.6};
  EXPECT_GT(wr, write_bound[k]);
}

INSTANTIATE_TEST_SUITE_P(Configs, HostDmaThroughput, ::testing::Values(0, 1, 2, 3),
                         [](const auto& info) { return "config" + std::to_string(info.param); });

}  // namespace
}  // namespace tpu::tb
