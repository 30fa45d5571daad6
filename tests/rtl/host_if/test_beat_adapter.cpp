// The beat-width adapter (rtl/host_if/tpu_host_beat_adapter.sv, docs/host_if.md section 4)
// between a core model (random reads and writes of N-byte beats, holding each request until it
// is taken) and models of the DMA engines' ports (engine beats of EB = TlpWidth / 8 bytes: 16,
// 32 or 64; "line" below is one engine beat of host memory): the read engine answers in order
// after a random latency with the bytes its memory held when it took the read, the write
// engine writes its memory when it takes a beat. The reference applies the core's requests to
// its own memory in the order the adapter takes them; every read must return the reference's
// bytes (with the error flag exactly when a line under it is a fault line), and the engines'
// memory must equal the reference whenever no write beat is held or being split. Also: runs of
// consecutive beats reach the engines as consecutive lines with no line read or written twice,
// at one line per cycle; N = EB is wires; flushes drop everything held. TPU_SEED=<n> shifts
// the seeds.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "host_if/beat_adapter_harness.h"

namespace tpu::tb {
namespace {

uint64_t Seed(uint64_t base) {
  const char* env = std::getenv("TPU_SEED");
  return base + (env ? std::strtoull(env, nullptr, 0) : 0);
}

// Configurations built by testbench/host_if/CMakeLists.txt (tpu_add_beat_adapter_model).
using Factory = std::function<std::unique_ptr<BeatAdapterHarness>()>;
struct Config {
  const char* name;
  Factory make;
};
void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

const Config kConfigs[] = {
    {"N8", [] { return MakeBeatAdapterHarness<0>(); }},
    {"N32", [] { return MakeBeatAdapterHarness<1>(); }},
    {"N4_ShortQueue", [] { return MakeBeatAdapterHarness<2>(); }},
    {"N64", [] { return MakeBeatAdapterHarness<3>(); }},
    {"N16", [] { return MakeBeatAdapterHarness<4>(); }},
    {"W256_N32", [] { return MakeBeatAdapterHarness<5>(); }},
    {"W256_N64", [] { return MakeBeatAdapterHarness<6>(); }},
    {"W256_N256", [] { return MakeBeatAdapterHarness<7>(); }},
    {"W256_N8", [] { return MakeBeatAdapterHarness<8>(); }},
    {"W256_N16", [] { return MakeBeatAdapterHarness<9>(); }},
    {"W512_N16", [] { return MakeBeatAdapterHarness<10>(); }},
    {"W512_N64", [] { return MakeBeatAdapterHarness<11>(); }},
};

// Host memory window the tests use, from kBase.
constexpr uint64_t kBase = 0x1'2345'6000ull;
constexpr uint64_t kWindow = 4096;

struct Profile {
  double core_gap = 0;   // probability the core offers nothing in a cycle
  double rsp_stall = 0;  // ... that it does not take a response
  double rd_stall = 0;   // ... that the read engine does not take a read
  double wr_stall = 0;   // ... that the write engine does not take a beat
  int latency_min = 1;   // read engine: cycles from taking a read to its data
  int latency_max = 1;
  double rsp_gap = 0;      // ... probability a ready response is not offered
  double flush = 0;        // probability of a flush pulse in a cycle
  double fault_lines = 0;  // share of lines that fail
};

// One transfer of the core: `beats` consecutive beats from `addr`, all reads or all writes.
struct Transfer {
  bool write = false;
  uint64_t addr = 0;
  int beats = 0;
  bool full = false;  // writes: every byte (else each beat full, random, empty or full)
};

class Bench {
 public:
  Bench(BeatAdapterHarness* dut, const Profile& p, uint64_t seed)
      : dut_(dut),
        n_(dut->config().n),
        eb_(dut->config().engine_bytes()),
        p_(p),
        rng_(seed),
        ref_(kWindow),
        eng_(kWindow) {
    for (uint64_t i = 0; i < kWindow; ++i) ref_[i] = eng_[i] = static_cast<uint8_t>(rng_());
    for (uint64_t l = 0; l < kWindow / eb_; ++l) {
      if (Chance(p_.fault_lines)) fault_.insert(kBase + eb_ * l);
    }
  }

  // Random transfers: runs of 1..3 * EB / N + 2 beats (so runs share and cross lines)
  // anywhere in the window.
  void AddRandomTransfers(int count, double write_share) {
    const int max_beats = 3 * std::max(1, eb_ / n_) + 2;
    for (int t = 0; t < count; ++t) {
      Transfer x;
      x.write = Chance(write_share);
      x.beats = 1 + static_cast<int>(rng_() % max_beats);
      const uint64_t slots = kWindow / n_ - x.beats;
      x.addr = kBase + n_ * (rng_() % (slots + 1));
      Add(x);
    }
  }
  void Add(const Transfer& x) {
    for (int b = 0; b < x.beats; ++b) {
      Req r;
      r.write = x.write;
      r.addr = x.addr + static_cast<uint64_t>(b) * n_;
      if (r.write) {
        r.data.resize(n_);
        r.mask.resize(n_);
        const int kind = x.full ? 0 : static_cast<int>(rng_() % 4);  // full, random, empty
        for (int i = 0; i < n_; ++i) {
          r.data[i] = static_cast<uint8_t>(rng_());
          r.mask[i] = kind == 1 ? (rng_() % 2 == 0) : kind != 2;
        }
      }
      todo_.push_back(r);
    }
  }

  // Runs until every request was taken and answered and nothing is held; returns the cycles.
  uint64_t Run(uint64_t max_cycles = 200000) {
    const uint64_t start = dut_->cycle();
    while (!todo_.empty() || !expect_.empty() || !pending_.empty() || held_) {
      if (dut_->cycle() - start > max_cycles) {
        ADD_FAILURE() << "no progress: " << todo_.size() << " requests, " << expect_.size()
                      << " responses, " << pending_.size() << " engine reads left";
        break;
      }
      Step();
      if (::testing::Test::HasFatalFailure() || errors_ > 20) break;
    }
    // Idle cycles: nothing more may come out.
    for (int i = 0; i < 8; ++i) Step();
    EXPECT_EQ(eng_, ref_) << "the engines' memory differs from the reference at the end";
    EXPECT_EQ(dut_->assertion_failures(), 0u);
    return dut_->cycle() - start;
  }

  int rd_beats() const { return rd_beats_; }
  int wr_beats() const { return wr_beats_; }
  int core_reads() const { return core_reads_; }
  int flushes() const { return flushes_; }
  int repeated_reads() const { return repeated_reads_; }

 private:
  struct Req {
    bool write = false;
    uint64_t addr = 0;
    std::vector<uint8_t> data;
    std::vector<bool> mask;
  };
  struct Expect {
    std::vector<uint8_t> data;
    bool error = false;
  };
  struct EngineRead {
    uint64_t ready_at = 0;
    std::vector<uint8_t> data;
    bool error = false;
  };

  bool Chance(double p) { return p > 0 && std::uniform_real_distribution<>(0, 1)(rng_) < p; }

  void Step() {
    BeatAdapterInputs in;
    const bool flush = Chance(p_.flush);
    in.flush = flush;
    // The core holds a request until it is taken; a gap only before a new one.
    if (!offering_ && !todo_.empty() && !Chance(p_.core_gap)) offering_ = true;
    if (offering_ && !flush) {
      const Req& r = todo_.front();
      in.hm_req_valid = true;
      in.hm_req_write = r.write;
      in.hm_req_addr = r.addr;
      in.hm_req_wdata = r.data;
      in.hm_req_wmask = r.mask;
    }
    // During a flush the core is in reset and the read engine takes nothing.
    in.hm_rsp_ready = !flush && !Chance(p_.rsp_stall);
    in.rd_req_ready = !flush && !Chance(p_.rd_stall);
    const bool rsp_ready_now = !pending_.empty() && pending_.front().ready_at <= dut_->cycle();
    if (rsp_ready_now && !Chance(p_.rsp_gap)) {
      in.rd_rsp_valid = true;
      in.rd_rsp_data = pending_.front().data;
      in.rd_rsp_error = pending_.front().error;
    }
    in.wr_req_ready = !Chance(p_.wr_stall);

    BeatAdapterOutputs out;
    dut_->Eval(in, &out);
    if (n_ == eb_) CheckWires(in, out);
    if (flush) {
      Check(!out.rd_req_valid && !out.wr_req_valid, "a request to an engine in a flush cycle");
      Check(n_ == eb_ || !out.hm_rsp_valid, "a response in a flush cycle");
    }
    // Whatever the adapter took for writing is with the write engine unless it says it holds
    // a beat (or a core beat is being split: the core still offers it).
    if (!flush && !out.wr_held && !(in.hm_req_valid && in.hm_req_write)) {
      Check(eng_ == ref_, "a write the adapter took is neither written nor held");
    }

    // Read engine: takes a read, answers later with the bytes it holds now.
    if (out.rd_req_valid && in.rd_req_ready) {
      Check(out.rd_req_addr % eb_ == 0, "read address not a multiple of the engine beat");
      Check(out.rd_req_addr >= kBase && out.rd_req_addr + eb_ <= kBase + kWindow,
            "read outside the window");
      EngineRead e;
      e.ready_at = dut_->cycle() + p_.latency_min + rng_() % (p_.latency_max - p_.latency_min + 1);
      if (out.rd_req_addr >= kBase && out.rd_req_addr + eb_ <= kBase + kWindow) {
        const auto line = eng_.begin() + static_cast<std::ptrdiff_t>(out.rd_req_addr - kBase);
        e.data.assign(line, line + eb_);
      }
      e.error = fault_.count(out.rd_req_addr) != 0;
      // The same line read twice in a row while the first read's data is still wanted.
      if (last_rd_ != ~0ull && out.rd_req_addr == last_rd_ && !pending_.empty()) {
        ++repeated_reads_;
      }
      last_rd_ = out.rd_req_addr;
      pending_.push_back(e);
      ++rd_beats_;
    }
    if (in.rd_rsp_valid && out.rd_rsp_ready) pending_.pop_front();

    // Write engine: writes its memory when it takes a beat.
    if (out.wr_req_valid && in.wr_req_ready) {
      Check(out.wr_req_addr % eb_ == 0, "write address not a multiple of the engine beat");
      Check(out.wr_req_addr >= kBase && out.wr_req_addr + eb_ <= kBase + kWindow,
            "write outside the window");
      for (int i = 0; i < eb_ && out.wr_req_addr + eb_ <= kBase + kWindow; ++i) {
        if (out.wr_req_mask >> i & 1) eng_[out.wr_req_addr - kBase + i] = out.wr_req_data[i];
      }
      ++wr_beats_;
    }

    // Core: a response, then a request taken.
    if (out.hm_rsp_valid && in.hm_rsp_ready) {
      if (expect_.empty()) {
        Check(false, "a response without a read");
      } else {
        const Expect& e = expect_.front();
        Check(out.hm_rsp_error == e.error, "error flag " + std::to_string(out.hm_rsp_error) +
                                               ", want " + std::to_string(e.error));
        if (!e.error) Check(out.hm_rsp_rdata == e.data, "read data differs from the reference");
        expect_.pop_front();
      }
    }
    if (in.hm_req_valid && out.hm_req_ready) {
      const Req& r = todo_.front();
      Check(r.addr % n_ == 0, "test bug: unaligned request");
      const uint64_t off = r.addr - kBase;
      if (r.write) {
        for (int i = 0; i < n_; ++i) {
          if (r.mask[i]) ref_[off + i] = r.data[i];
        }
      } else {
        Expect e;
        e.data.assign(ref_.begin() + off, ref_.begin() + off + n_);
        for (uint64_t a = r.addr & ~(eb_ - 1ull); a < r.addr + n_; a += eb_) {
          e.error = e.error || fault_.count(a) != 0;
        }
        expect_.push_back(e);
        ++core_reads_;
      }
      todo_.pop_front();
      offering_ = false;
    }
    held_ = out.wr_held;

    if (flush) {
      // A soft reset: the core is reset (its request and expected data go), the read engine
      // drops what it owes client 0, and writes held anywhere may be lost: the reference
      // takes the engines' memory.
      ++flushes_;
      if (offering_) {
        todo_.pop_front();
        offering_ = false;
      }
      expect_.clear();
      pending_.clear();
      last_rd_ = ~0ull;
    }
    dut_->Tick();
    if (flush) {
      ref_ = eng_;
      held_ = false;
    }
  }

  void CheckWires(const BeatAdapterInputs& in, const BeatAdapterOutputs& out) {
    const bool rd = in.hm_req_valid && !in.hm_req_write;
    const bool wr = in.hm_req_valid && in.hm_req_write;
    Check(out.rd_req_valid == rd && out.wr_req_valid == wr, "N = EB: request valid not wired");
    Check(out.hm_req_ready == (in.hm_req_write ? in.wr_req_ready : in.rd_req_ready),
          "N = EB: ready not wired");
    Check(out.hm_rsp_valid == in.rd_rsp_valid && out.rd_rsp_ready == in.hm_rsp_ready,
          "N = EB: response handshake not wired");
    if (in.hm_req_valid) {
      Check(out.rd_req_addr == in.hm_req_addr && out.wr_req_addr == in.hm_req_addr,
            "N = EB: address not wired");
    }
    Check(!out.wr_held, "N = EB: a write held");
  }

  void Check(bool ok, const std::string& what) {
    if (ok) return;
    ++errors_;
    ADD_FAILURE() << what << " (cycle " << dut_->cycle() << ")";
  }

  BeatAdapterHarness* dut_;
  int n_;
  int eb_;  // engine beat bytes
  Profile p_;
  std::mt19937_64 rng_;
  std::vector<uint8_t> ref_, eng_;
  std::set<uint64_t> fault_;
  std::deque<Req> todo_;
  std::deque<Expect> expect_;
  std::deque<EngineRead> pending_;
  bool offering_ = false;
  bool held_ = false;
  uint64_t last_rd_ = ~0ull;
  int rd_beats_ = 0, wr_beats_ = 0, core_reads_ = 0, flushes_ = 0, repeated_reads_ = 0;
  int errors_ = 0;
};

class BeatAdapter : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override { dut_ = GetParam().make(); }
  int n() const { return dut_->config().n; }
  int eb() const { return dut_->config().engine_bytes(); }
  std::unique_ptr<BeatAdapterHarness> dut_;
};

// Random reads and writes with every handshake stalling, long and varied latencies and fault
// lines: data, error flags and the engines' memory match the reference.
TEST_P(BeatAdapter, RandomTrafficMatchesReference) {
  Profile p;
  p.core_gap = 0.2;
  p.rsp_stall = 0.3;
  p.rd_stall = 0.3;
  p.wr_stall = 0.3;
  p.latency_min = 1;
  p.latency_max = 40;
  p.rsp_gap = 0.2;
  p.fault_lines = 0.05;
  for (int round = 0; round < 4; ++round) {
    Bench b(dut_.get(), p, Seed(100 + round));
    b.AddRandomTransfers(150, round == 0 ? 0.0 : round == 1 ? 1.0 : 0.5);
    b.Run();
    std::printf("round %d: %d core reads, %d %d-byte reads, %d writes\n", round,
                b.core_reads(), b.rd_beats(), eb(), b.wr_beats());
    if (HasFailure()) return;
  }
}

// The same without stalls: the adapter's own timing (joins, merges, the write held while the
// next beat is offered) with everything ready at once.
TEST_P(BeatAdapter, RandomTrafficNoStalls) {
  Profile p;
  p.latency_min = 1;
  p.latency_max = 3;
  Bench b(dut_.get(), p, Seed(200));
  b.AddRandomTransfers(300, 0.5);
  b.Run();
}

// Flush pulses at random moments (with stalls): nothing held before one comes out after it,
// and traffic after it is correct.
TEST_P(BeatAdapter, FlushDropsEverythingHeld) {
  Profile p;
  p.core_gap = 0.1;
  p.rsp_stall = 0.2;
  p.rd_stall = 0.2;
  p.wr_stall = 0.4;
  p.latency_min = 2;
  p.latency_max = 30;
  p.flush = 0.01;
  Bench b(dut_.get(), p, Seed(300));
  b.AddRandomTransfers(300, 0.5);
  b.Run();
  std::printf("%d flushes\n", b.flushes());
  EXPECT_GT(b.flushes(), 0);
}

// A run of consecutive beats: each line read or written once, at one line per cycle (for
// N < EB the core's one beat per cycle is the limit: EB / N cycles per line), responses with
// the latency and no more.
TEST_P(BeatAdapter, RunsStayCoalescedAtFullRate) {
  constexpr int kBytes = 2048;
  constexpr int kLatency = 20;
  const int beats = kBytes / n();
  const int lines = kBytes / eb();
  const int cycles_min = std::max(beats, lines);
  Profile p;
  p.latency_min = p.latency_max = kLatency;
  {
    Bench b(dut_.get(), p, Seed(400));
    b.Add({false, kBase + 512, beats});
    const uint64_t cycles = b.Run();
    std::printf("read %d bytes: %llu cycles, %d %d-byte reads\n", kBytes,
                static_cast<unsigned long long>(cycles), b.rd_beats(), eb());
    EXPECT_EQ(b.rd_beats(), lines) << "a line read more than once";
    EXPECT_EQ(b.repeated_reads(), 0);
    // The run, the latency, the bench's idle tail (8) and a few cycles of pipeline (unless
    // the queue of core reads is too short to cover the latency).
    if (n() >= eb() || dut_->config().use_depth > kLatency + 4) {
      EXPECT_LE(cycles, static_cast<uint64_t>(cycles_min + kLatency + 8 + 4));
    }
  }
  {
    Bench b(dut_.get(), p, Seed(401));
    b.Add({true, kBase + 1024, beats});
    const uint64_t cycles = b.Run();
    std::printf("write %d bytes: %llu cycles, %d %d-byte writes\n", kBytes,
                static_cast<unsigned long long>(cycles), b.wr_beats(), eb());
    // Beats of the same line merge whatever their masks.
    EXPECT_EQ(b.wr_beats(), lines);
    EXPECT_LE(cycles, static_cast<uint64_t>(cycles_min + 8 + 4));
  }
}

// Full writes with the write engine stalling: a held beat waits, the next core beat waits
// for it, and still every line is written once, whole.
TEST_P(BeatAdapter, FullWritesMergeIntoWholeBeats) {
  Profile p;
  p.wr_stall = 0.5;
  Bench b(dut_.get(), p, Seed(500));
  const uint64_t offset = 3 * n(), bytes = 1024;  // mid-line for N < EB
  b.Add({true, kBase + offset, static_cast<int>(bytes / n()), true});
  b.Run();
  const uint64_t line = static_cast<uint64_t>(eb());
  EXPECT_EQ(b.wr_beats(), static_cast<int>((offset + bytes + line - 1) / line - offset / line));
}

// Read, write, read of the same bytes back to back while the first read's data is still on
// its way: the second read must not join the first (it would return the bytes from before the
// write), and must not pass the write.
TEST_P(BeatAdapter, ReadAfterWriteOfTheSameBytesSeesTheWrite) {
  Profile p;
  p.latency_min = p.latency_max = 30;
  Bench b(dut_.get(), p, Seed(600));
  for (int i = 0; i < 8; ++i) {
    const uint64_t a = kBase + 256 * i + (n() < eb() ? n() * (i % (eb() / n())) : 0);
    b.Add({false, a, 1});
    b.Add({true, a, 1, true});
    b.Add({false, a, 1});
  }
  b.Run();
}

INSTANTIATE_TEST_SUITE_P(Configs, BeatAdapter, ::testing::ValuesIn(kConfigs),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tpu::tb
