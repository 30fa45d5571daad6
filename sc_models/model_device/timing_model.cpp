#include "sc_models/model_device/timing_model.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <type_traits>
#include <variant>
#include <vector>

#include "isa/instr.h"
#include "sc_models/model_device/timing_link.h"

namespace tpu::sc {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max() / 4;

// The controller (docs/controller.md): per-unit queues of 4 instructions, the weight FIFO's
// tiles, the MATMULs in flight between their last request and their last result.
constexpr size_t kQueueDepth = 4;
constexpr int64_t kFifoTiles = isa::kWeightFifoTiles;
// Cycles of fixed latency, read off the RTL and checked against it (docs/model_calibration.md).
constexpr int64_t kDecodeCycles = 2;      // ring beat -> decode register -> dispatcher
constexpr int64_t kPoolDecodeCycles = 3;  // a pooled ACTIVATE's further checks in the decode
constexpr int64_t kUbReadCycles = 2;      // UB read request -> row offered to the MXU
constexpr int64_t kMxuExtraCycles = 3;    // MXU 2N + 1 latency + accumulator write -> tokens
constexpr int64_t kWfifoCycles = 2;       // DRAM beat -> row at the FIFO's head
constexpr int64_t kDramLatency = 20;      // sys::SystemConfig::dram_latency_cycles
constexpr int64_t kActCycles = 20;        // ACTIVATE: parameter rows, pipeline fill and drain
constexpr int64_t kPoolCycles = 4;        // pooling's extra pipeline stages
constexpr int64_t kDmaCycles = 4;         // a DMA instruction's own start and finish
constexpr int64_t kWriteIdleGap = 4;      // write engine: a run is sent after 4 idle cycles
constexpr int64_t kWriteFifoBytes = 512;  // write engine data FIFO (32 beats of 16 bytes)
constexpr int64_t kHaltCycles = 2;        // all idle -> done
// Instruction fetch (tpu_host_ring, client 1 of tpu_host_dma_rd): two MRds outstanding, a tag
// held until the MRd's last slot moves into the three-slot output FIFO, free again two cycles
// after the decoder took the slot that made room for it.
constexpr int64_t kRingTags = 2;
constexpr int64_t kRingOutputSlots = 3;
constexpr int64_t kRingTagCycles = 2;

enum UnitIndex { kDma = 0, kWeights = 1, kMatrix = 2, kAct = 3, kUnits = 4 };

// What the replay reads of an instruction, in one small record (the replay visits each
// instruction several times, so it reads them from a compact array rather than the variant).
enum class Kind : uint8_t { kNone, kHalt, kSync, kReadHost, kWriteHost, kReadWeights, kMatmul,
                            kActivate };
struct Op {
  uint64_t host = 0;    // READ_HOST, WRITE_HOST
  uint32_t length = 0;  // READ_HOST, WRITE_HOST
  uint32_t count = 0;   // READ_WEIGHTS tiles, MATMUL and ACTIVATE rows
  int8_t unit = -1;     // UnitIndex, -1: the dispatcher's own (NOP, HALT, SYNC)
  Kind kind = Kind::kNone;
  uint8_t wait = 0, signal = 0;
  uint8_t units = 0;  // SYNC
  bool flag = false;  // READ_HOST into the LUT, MATMUL new_tile, ACTIVATE pooling
};

Op OpOf(const isa::Instr& in) {
  Op op;
  const isa::TokenMasks tokens = isa::TokensOf(in);
  op.wait = tokens.wait;
  op.signal = tokens.signal;
  if (std::holds_alternative<isa::Halt>(in)) {
    op.kind = Kind::kHalt;
  } else if (const auto* s = std::get_if<isa::Sync>(&in)) {
    op.kind = Kind::kSync;
    op.units = s->units;
  } else if (const auto* rh = std::get_if<isa::ReadHost>(&in)) {
    op.kind = Kind::kReadHost;
    op.unit = kDma;
    op.host = rh->host;
    op.length = rh->length;
    op.flag = rh->target == isa::Target::kLut;
  } else if (const auto* wh = std::get_if<isa::WriteHost>(&in)) {
    op.kind = Kind::kWriteHost;
    op.unit = kDma;
    op.host = wh->host;
    op.length = wh->length;
  } else if (const auto* rw = std::get_if<isa::ReadWeights>(&in)) {
    op.kind = Kind::kReadWeights;
    op.unit = kWeights;
    op.count = rw->tiles;
  } else if (const auto* mm = std::get_if<isa::Matmul>(&in)) {
    op.kind = Kind::kMatmul;
    op.unit = kMatrix;
    op.count = mm->rows;
    op.flag = mm->new_tile;
  } else if (const auto* a = std::get_if<isa::Activate>(&in)) {
    op.kind = Kind::kActivate;
    op.unit = kAct;
    op.count = a->rows;
    op.flag = a->pool != isa::Pool::kNone;
  }
  return op;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A vector of records indexed from the program's start (per instruction, per MATMUL, per weight
// tile), of which only the last ones are kept: the replay reads a few hundred instructions
// behind the newest (the ring's slots, the units' queues), a few MATMULs and tiles, so a long
// program's records need not all stay in memory. A 1024^3 layer's ~146,000 instructions and
// ~140,000 tile switches would otherwise take ~9 MB, mapped page by page (~2,500 page faults,
// ~4 ms) on every program that is longer than the ones before.
template <typename T>
class Window {
 public:
  // One past the last index (the number of records ever added).
  size_t size() const { return base_ + kept_.size(); }
  bool empty() const { return size() == 0; }
  T& operator[](size_t i) { return kept_[i - base_]; }
  const T& operator[](size_t i) const { return kept_[i - base_]; }
  const T& back() const { return kept_.back(); }
  void push_back(const T& v) { kept_.push_back(v); }
  // Adds records up to index n - 1, each `v`.
  void resize(size_t n, const T& v) { kept_.resize(n - base_, v); }
  // Forgets the records before index `first` (none may be read again) once they are at least
  // as many as the ones kept, so that dropping costs O(1) a record.
  void DropBefore(size_t first) {
    if (first <= base_ || first > size()) return;
    const size_t dead = first - base_;
    if (dead < kept_.size() - dead) return;
    kept_.erase(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(dead));
    base_ = first;
  }
  // Takes `old`'s storage, emptied (its capacity kept).
  void Adopt(Window& old) {
    kept_.swap(old.kept_);
    kept_.clear();
    base_ = 0;
  }

 private:
  std::vector<T> kept_;  // the records from index base_ on
  size_t base_ = 0;
};

// The program replayed on the controller's units in time: a discrete-event simulation that
// advances from one time at which something can change to the next.
class Replay {
 public:
  Replay(const devices::DeviceConfig& device, const HostTiming& host)
      : n_(device.limits.n),
        host_(host),
        ring_slots_(std::max<int64_t>(2, device.ring_slots)),
        comp_depth_(std::max<int64_t>(4, device.limits.n / 4)),
        rows_per_beat_(static_cast<double>(device.dram_width_bits) / (8.0 * device.limits.n)),
        beats_per_tile_(std::max<int64_t>(
            1, device.limits.n * device.limits.n * 8 / device.dram_width_bits)),
        slots_per_mrd_(std::max<int64_t>(1, host.max_read_request / 16)),
        dma_read_window_(static_cast<double>(std::max<int64_t>(1, device.dma_tags - kRingTags) *
                                             host.max_read_request)) {}

  // The program's next instructions, in program order.
  void Add(const isa::Instr* instrs, size_t count) {
    const size_t live = LiveFrom();
    program_.DropBefore(live);
    arrival_.DropBefore(live);
    taken_at_.DropBefore(live);
    DropOldTiles();
    for (size_t i = 0; i < count; ++i) program_.push_back(OpOf(instrs[i]));
    arrival_.resize(program_.size(), kNever);
    taken_at_.resize(program_.size(), kNever);
  }
  // Runs the replay's turns: with `complete`, to the program's end; otherwise as far as the
  // instructions added decide, whatever comes after them (see Advance in the .cpp).
  void Advance(bool complete);
  // After Advance(true).
  TimingEstimate Result();
  // Takes `old`'s vectors (emptied, their capacity kept) as this replay's storage; this one
  // must not have begun.
  void AdoptStorage(Replay& old) {
    program_.Adopt(old.program_);
    arrival_.Adopt(old.arrival_);
    taken_at_.Adopt(old.taken_at_);
    Adopt(gives_, old.gives_);
    first_beat_.Adopt(old.first_beat_);
    last_beat_.Adopt(old.last_beat_);
    flip_.Adopt(old.flip_);
    matmul_done_.Adopt(old.matmul_done_);
    Adopt(dep_waits_, old.dep_waits_);
  }

 private:
  template <typename T>
  static void Adopt(std::vector<T>& mine, std::vector<T>& old) {
    mine.swap(old);
    mine.clear();
  }

  struct RingRun {  // slots [first, last] coalesced into one MRd
    int64_t first = -1;
    int64_t last = -1;
  };
  // A unit's queue of kQueueDepth instructions: (instruction, time it entered), oldest first.
  struct Queue {
    std::array<std::pair<size_t, int64_t>, kQueueDepth> slots;
    size_t head = 0, count = 0;
    bool empty() const { return count == 0; }
    size_t size() const { return count; }
    const std::pair<size_t, int64_t>& front() const { return slots[head]; }
    void pop_front() {
      head = (head + 1) % kQueueDepth;
      --count;
    }
    void emplace_back(size_t instr, int64_t at) {
      slots[(head + count) % kQueueDepth] = {instr, at};
      ++count;
    }
  };
  struct Unit {
    Queue queue;
    int64_t held = -1;                              // instruction in the register
    int64_t held_since = 0;
    bool granted = false;
    int64_t free_at = 0;   // the register may take the next instruction from then
    int64_t busy_until = 0;  // last completion of what it started
    // Weight unit: the next tile of the held READ_WEIGHTS.
    int64_t tile = 0;
  };

  // Instruction fetch: the ring's bursts of slot reads (docs/host_if.md section 5), one slot
  // request a cycle, caught up to t.
  void RingStep(int64_t t);
  int64_t RingTagFreeAt() const;
  void RingIssue(const RingRun& run, int64_t sent);
  int64_t RingTaken(int64_t c);
  bool Dispatch(int64_t t);
  bool StepUnit(int u, int64_t t);
  // Starts the held, granted instruction of unit u at t; false if it must wait (a weight tile
  // not yet known).
  bool Start(int u, int64_t t);
  bool StartWeights(Unit& unit, const Op& rw, int64_t t);
  bool StartMatmul(Unit& unit, const Op& mm, int64_t t);
  void StartReadHost(Unit& unit, const Op& rh, int64_t t);
  void StartWriteHost(Unit& unit, const Op& wh, int64_t t);
  void StartActivate(Unit& unit, const Op& a, int64_t t);
  void MxuLoad();
  void Give(uint8_t mask, int64_t t);
  bool TakeTokens(uint8_t mask);
  bool Idle(int u, int64_t t) const;
  void Wake(int64_t at, int64_t t) {
    if (at > t) wake_ = std::min(wake_, at);
  }
  // What a unit started ends at `end`: its tokens are given then (the loop wakes for them), and
  // the unit is idle after it (the loop wakes for that only while HALT or SYNC waits: Advance).
  void Complete(Unit& unit, int64_t end, uint8_t signal) {
    unit.busy_until = std::max(unit.busy_until, end);
    Give(signal, end);
  }
  // The instruction the dispatcher offers next is HALT or SYNC, which wait for units to be idle.
  bool WaitsForIdle() const {
    if (next_ >= program_.size()) return false;
    const Kind kind = program_[next_].kind;
    return kind == Kind::kHalt || kind == Kind::kSync;
  }

  const int64_t n_;
  const HostTiming host_;
  // The first instruction a later turn may read: the ring's (slots taken, a tag's slots, runs
  // being formed), the dispatcher's and the units' (held and queued).
  size_t LiveFrom() const;
  // Forgets the weight tiles no later turn reads (the FIFO's, the MXU's last and next).
  void DropOldTiles();

  Window<Op> program_;
  const int64_t ring_slots_;
  const int64_t comp_depth_;
  const double rows_per_beat_;
  const int64_t beats_per_tile_;
  const int64_t slots_per_mrd_;
  const double dma_read_window_;  // bytes client 0 may have requested and not received

  // Ring (tpu_host_ring and client 1 of tpu_host_dma_rd).
  Window<int64_t> arrival_;   // instruction i usable by the decoder from then
  Window<int64_t> taken_at_;  // cycle the decoder took slot i
  size_t taken_ptr_ = 0;           // slots before it taken by the last RingTaken's cycle
  size_t requested_ = 0;           // slots requested so far
  bool burst_ = false;             // a burst of slot requests is running
  int64_t last_request_ = -1;      // cycle of the last slot request
  RingRun open_;                   // the run being coalesced
  bool open_full_ = false;         // ... ended (MRRS boundary or last of a burst)
  int64_t open_closed_at_ = 0;     // ... in this cycle
  RingRun pend_;                   // the closed run waiting for a tag
  int64_t pend_since_ = 0;         // ... offered from then
  std::deque<int64_t> ring_tags_;  // last slot of each ring MRd holding a tag

  // Dispatcher.
  size_t next_ = 0;
  int64_t last_dispatch_ = -1;
  int64_t sync_wait_since_ = -1;
  bool halted_ = false;
  int64_t done_ = 0;

  std::array<Unit, kUnits> units_;
  std::array<int, isa::kNumTokens> tokens_{};
  std::vector<std::pair<int64_t, uint8_t>> gives_;  // (usable from, mask)

  // Weight path: per tile (in FIFO order) its first DRAM beat, the MXU's last beat of it (the
  // FIFO frees it then; the tile is loaded the cycle after) and the row that switched to it.
  // (Every MATMUL of a long layer may switch tiles: kept as windows too.)
  Window<int64_t> first_beat_, last_beat_, flip_;
  int64_t dram_free_ = 0;
  int64_t tiles_used_ = 0;

  // Matrix unit: next row slot, completions of the MATMULs (in order).
  int64_t next_row_ = 0;
  Window<int64_t> matmul_done_;
  // DMA: the write engine is empty from then (reads wait for it).
  int64_t write_empty_ = 0;
  // The last READ_HOST's stream of completions (ring MRds queue behind what it requested).
  struct DmaRead {
    int64_t first_mrd = 0;
    double first_data = 0, last_data = -1, bytes = 0;
    double request_rate = 0;  // bytes the core requests a cycle
  } dma_read_;

  int64_t t_ = 1;        // the turn to run next (1: the doorbell, a slot request a cycle later)
  bool stuck_ = false;   // no turn can change anything: the program cannot finish
  int64_t wake_ = kNever;
  std::vector<std::pair<int64_t, int64_t>> dep_waits_;  // [begin, end) waiting for tokens
  TimingEstimate e_;
  uint64_t stall_weights_ = 0, stall_act_in_ = 0, stall_dma_ = 0;
};

size_t Replay::LiveFrom() const {
  size_t first = std::min(taken_ptr_, next_);
  for (const int64_t last : ring_tags_) {
    first = std::min(first, static_cast<size_t>(std::max<int64_t>(0, last - kRingOutputSlots)));
  }
  for (const RingRun& run : {open_, pend_}) {
    if (run.first >= 0) first = std::min(first, static_cast<size_t>(run.first));
  }
  for (const Unit& unit : units_) {
    if (unit.held >= 0) first = std::min(first, static_cast<size_t>(unit.held));
    if (!unit.queue.empty()) first = std::min(first, unit.queue.front().first);
  }
  return first;
}

void Replay::DropOldTiles() {
  // Reads: first_beat_[loaded], last_beat_[loaded - 1], flip_[loaded - 1], last_beat_ of the
  // tile kFifoTiles before the next one requested, and of the next one to switch to.
  const int64_t loaded = static_cast<int64_t>(last_beat_.size());
  const int64_t requested = static_cast<int64_t>(first_beat_.size());
  const auto from = [](int64_t i) { return static_cast<size_t>(std::max<int64_t>(0, i)); };
  first_beat_.DropBefore(from(loaded));
  last_beat_.DropBefore(from(std::min({loaded - 1, requested - kFifoTiles, tiles_used_})));
  flip_.DropBefore(from(loaded - 1));
}

// Slots the decoder has taken by cycle c (c never decreases from one call to the next): the
// dispatched instructions it took by then, and the next one once it sits in its register.
int64_t Replay::RingTaken(int64_t c) {
  while (taken_ptr_ < next_ && taken_at_[taken_ptr_] <= c) ++taken_ptr_;
  int64_t taken = static_cast<int64_t>(taken_ptr_);
  if (taken_ptr_ == next_ && next_ < program_.size() && arrival_[next_] < c &&
      last_dispatch_ <= c) {
    ++taken;
  }
  return taken;
}

// A ring MRd keeps its tag until its last slot has been read out of the completion buffer into
// the ring's three-entry output FIFO: the decoder has taken the slot three before it. The cycle
// from which a tag is free, kNever while the slot that frees it is not yet dispatched.
int64_t Replay::RingTagFreeAt() const {
  if (ring_tags_.size() < static_cast<size_t>(kRingTags)) return 0;
  const int64_t last = ring_tags_.front();
  int64_t at = arrival_[static_cast<size_t>(last)] + 1;
  const int64_t freeing = last - kRingOutputSlots;
  if (freeing >= 0) {
    const int64_t taken = taken_at_[static_cast<size_t>(freeing)];
    if (taken >= kNever) return kNever;
    at = std::max(at, taken + kRingTagCycles);
  }
  return at;
}

void Replay::RingIssue(const RingRun& run, int64_t sent) {
  if (ring_tags_.size() >= static_cast<size_t>(kRingTags)) ring_tags_.pop_front();
  const double slot_cycles = 16.0 / host_.read_bytes_per_cycle;
  double first = static_cast<double>(sent) + host_.read_latency;
  // The host answers reads in order over one link: a ring MRd sent while a READ_HOST streams
  // gets its completions after those of every MRd the DMA sent before it. Client 0 keeps at
  // most its tags' worth of bytes requested and not received.
  const DmaRead& d = dma_read_;
  if (static_cast<double>(sent) >= static_cast<double>(d.first_mrd) &&
      static_cast<double>(sent) < d.last_data) {
    const double rate = host_.read_bytes_per_cycle;
    const double since = static_cast<double>(sent - d.first_mrd);
    const double received = std::max(0.0, static_cast<double>(sent) - d.first_data) * rate;
    const double requested =
        std::min({d.bytes, since * d.request_rate + 16.0, received + dma_read_window_});
    first = std::max(first, d.first_data + requested / rate + slot_cycles);
  }
  for (int64_t k = run.first; k <= run.last; ++k) {
    arrival_[static_cast<size_t>(k)] =
        static_cast<int64_t>(first + slot_cycles * static_cast<double>(k - run.first));
  }
  ring_tags_.push_back(run.last);
  wake_ = std::min(wake_, arrival_[static_cast<size_t>(run.first)] + kDecodeCycles);
  e_.pcie_bytes_to_device += static_cast<uint64_t>(run.last - run.first + 1) * 16;
}

// Catches the ring up to cycle t: the slot requests of every cycle since the last call (one a
// cycle; nothing but a take, which happens only at the loop's times, changes how many are
// free), the runs they close and the MRds that leave. Wakes the loop when the next run closes.
void Replay::RingStep(int64_t t) {
  const size_t size = program_.size();
  for (;;) {
    // The waiting run's MRd leaves the cycle after it closed, once a ring tag is free.
    if (pend_.first >= 0) {
      const int64_t free_at = RingTagFreeAt();
      const int64_t sent = std::max(pend_since_, free_at);
      if (sent > t) {
        if (free_at < kNever) Wake(sent, t);
      } else {
        RingIssue(pend_, sent);
        pend_ = RingRun{};
      }
    }
    // A closed run moves into the waiting register once that is empty.
    if (open_full_ && pend_.first < 0) {
      pend_ = open_;
      pend_since_ = open_closed_at_ + 1;
      open_ = RingRun{};
      open_full_ = false;
      continue;
    }
    if (requested_ >= size || open_full_) break;
    // The next request: in a running burst the cycle after the last one; otherwise a burst
    // starts when half the slots are free or the rest of the program fits, checked now.
    const int64_t c = burst_ ? last_request_ + 1 : t;
    if (c > t) break;
    const int64_t free = ring_slots_ - (static_cast<int64_t>(requested_) - RingTaken(c));
    const int64_t avail = static_cast<int64_t>(size - requested_);
    if (free <= 0 || (!burst_ && free < ring_slots_ / 2 && free < avail)) {
      if (burst_) last_request_ = c;  // the burst goes on once a slot is free
      break;
    }
    const int64_t slot = static_cast<int64_t>(requested_++);
    last_request_ = c;
    if (open_.first < 0) open_.first = slot;
    open_.last = slot;
    const bool last = avail == 1 || free == 1;
    burst_ = !last;
    if (last || (slot + 1) % slots_per_mrd_ == 0) {
      open_full_ = true;
      open_closed_at_ = c;
    }
  }
  // With no take in between, the burst closes its run at the MRRS boundary, at its last free
  // slot or at the program's end: the loop comes back then (or earlier, at any take).
  if (burst_ && !open_full_ && requested_ < size) {
    const int64_t c = last_request_ + 1;
    const int64_t free = ring_slots_ - (static_cast<int64_t>(requested_) - RingTaken(t));
    const int64_t slot = static_cast<int64_t>(requested_);
    const int64_t ahead = std::min({std::max<int64_t>(free - 1, 0),
                                    slots_per_mrd_ - 1 - slot % slots_per_mrd_,
                                    static_cast<int64_t>(size - requested_) - 1});
    if (free > 0) Wake(c + ahead, t);
  }
}

void Replay::Give(uint8_t mask, int64_t t) {
  if (mask != 0) gives_.emplace_back(t + 1, mask);  // takeable the cycle after
}

bool Replay::TakeTokens(uint8_t mask) {
  for (int k = 0; k < isa::kNumTokens; ++k) {
    if ((mask >> k) & 1 && tokens_[k] <= 0) return false;
  }
  for (int k = 0; k < isa::kNumTokens; ++k) {
    if ((mask >> k) & 1) --tokens_[k];
  }
  return true;
}

bool Replay::Idle(int u, int64_t t) const {
  const Unit& unit = units_[u];
  return unit.queue.empty() && unit.held < 0 && unit.busy_until < t;
}

bool Replay::Dispatch(int64_t t) {
  if (halted_ || next_ >= program_.size()) return false;
  // The decoder takes an instruction when the previous one leaves its register; a pooled
  // ACTIVATE then stays kPoolDecodeCycles longer (tpu_ctrl_decode's ragged-rows and pooled UB
  // range checks), taking nothing else meanwhile.
  const Op& in = program_[next_];
  const int64_t extra = in.kind == Kind::kActivate && in.flag ? kPoolDecodeCycles : 0;
  const int64_t ready =
      std::max(arrival_[next_] + kDecodeCycles, last_dispatch_ + 1) + extra;
  if (arrival_[next_] >= kNever) return false;
  if (t < ready) {
    Wake(ready, t);
    return false;
  }
  const int u = in.unit;
  if (in.kind == Kind::kHalt) {
    for (int k = 0; k < kUnits; ++k) {
      if (!Idle(k, t)) return false;
    }
    halted_ = true;
    done_ = t + kHaltCycles;
  } else if (in.kind == Kind::kSync) {
    for (int k = 0; k < kUnits; ++k) {
      if ((in.units >> k) & 1 && !Idle(k, t)) return false;
    }
    if (!TakeTokens(in.wait)) {
      if (sync_wait_since_ < 0) sync_wait_since_ = t;
      return false;
    }
    if (sync_wait_since_ >= 0) dep_waits_.emplace_back(sync_wait_since_, t);
    sync_wait_since_ = -1;
    Give(in.signal, t);
  } else if (u >= 0) {
    Unit& unit = units_[u];
    if (unit.queue.size() >= kQueueDepth) return false;
    unit.queue.emplace_back(next_, t);
  }
  // The decoder took this slot when the previous instruction left its register.
  taken_at_[next_] = std::max(arrival_[next_], last_dispatch_);
  ++next_;
  last_dispatch_ = t;
  return true;
}

bool Replay::StepUnit(int u, int64_t t) {
  Unit& unit = units_[u];
  bool changed = false;
  if (unit.held < 0 && !unit.queue.empty()) {
    const int64_t ready = std::max(unit.queue.front().second + 1, unit.free_at);
    if (t >= ready) {
      unit.held = static_cast<int64_t>(unit.queue.front().first);
      unit.held_since = t;
      unit.granted = false;
      unit.tile = 0;
      unit.queue.pop_front();
      changed = true;
    } else {
      Wake(ready, t);
    }
  }
  if (unit.held < 0) return changed;
  const Op& in = program_[static_cast<size_t>(unit.held)];
  if (!unit.granted) {
    if (!TakeTokens(in.wait)) return changed;
    unit.granted = true;
    if (t > unit.held_since) dep_waits_.emplace_back(unit.held_since, t);
    unit.held_since = t;
    changed = true;
  }
  if (Start(u, t)) {
    unit.held = -1;
    changed = true;
  }
  return changed;
}

bool Replay::Start(int u, int64_t t) {
  Unit& unit = units_[u];
  const Op& in = program_[static_cast<size_t>(unit.held)];
  switch (u) {
    case kDma:
      if (in.kind == Kind::kReadHost) {
        StartReadHost(unit, in, t);
      } else {
        StartWriteHost(unit, in, t);
      }
      return true;
    case kWeights:
      return StartWeights(unit, in, t);
    case kMatrix:
      return StartMatmul(unit, in, t);
    case kAct:
      StartActivate(unit, in, t);
      return true;
  }
  return true;
}

void Replay::StartReadHost(Unit& unit, const Op& rh, int64_t t) {
  const int64_t first_byte = static_cast<int64_t>(rh.host);
  const int64_t end_byte = first_byte + rh.length;
  // The core reads beats of N bytes; the engine moves the beats (beat_bytes) that cover them.
  const int64_t beats = CeilDiv(end_byte, n_) - first_byte / n_;
  const int64_t b = host_.beat_bytes;
  const int64_t covered_bytes = (CeilDiv(end_byte, b) - first_byte / b) * b;
  const double rate = std::min(static_cast<double>(n_), host_.read_bytes_per_cycle);
  // The first MRd leaves once its run closed and the write engine is empty.
  const int64_t mrd = std::max(t + 1 + std::min<int64_t>(beats, host_.max_read_request / n_ + 1),
                               write_empty_);
  const double first_data = static_cast<double>(mrd) + host_.read_latency;
  double last_data = std::max(first_data + static_cast<double>(covered_bytes) / rate,
                              static_cast<double>(t + 1 + beats));
  // The LUT takes one byte a cycle.
  if (rh.flag) last_data = std::max(last_data, first_data + rh.length);
  dma_read_ = DmaRead{mrd, first_data, last_data, static_cast<double>(covered_bytes),
                      static_cast<double>(n_)};
  const int64_t end = static_cast<int64_t>(last_data) + kDmaCycles;
  stall_dma_ += static_cast<uint64_t>(std::max<int64_t>(0, end - t - beats - kDmaCycles));
  e_.pcie_bytes_to_device += static_cast<uint64_t>(covered_bytes);
  unit.free_at = end + 1;
  Complete(unit, end, rh.signal);
}

void Replay::StartWriteHost(Unit& unit, const Op& wh, int64_t t) {
  const int64_t first_byte = static_cast<int64_t>(wh.host);
  const int64_t end_byte = first_byte + wh.length;
  const int64_t beats = CeilDiv(end_byte, n_) - first_byte / n_;
  const double rate = std::min(static_cast<double>(n_), host_.write_bytes_per_cycle);
  const int64_t begin = t + kUbReadCycles;
  // The core's write beats enter the engine's FIFO as fast as the engine drains it.
  const double drained = static_cast<double>(begin) + static_cast<double>(wh.length) / rate;
  const int64_t end = std::max<int64_t>(
      begin + beats, static_cast<int64_t>(drained - kWriteFifoBytes / rate)) + kDmaCycles;
  write_empty_ = std::max(write_empty_, static_cast<int64_t>(drained) + kWriteIdleGap);
  e_.pcie_bytes_from_device += wh.length;
  unit.free_at = end + 1;
  Complete(unit, end, wh.signal);
}

bool Replay::StartWeights(Unit& unit, const Op& rw, int64_t t) {
  while (unit.tile < static_cast<int64_t>(rw.count)) {
    const size_t k = first_beat_.size();
    int64_t at = t;
    // Room in the FIFO for what is in flight: tile k - 4 has left it.
    if (k >= static_cast<size_t>(kFifoTiles)) {
      const size_t old = k - kFifoTiles;
      if (old >= last_beat_.size()) return false;  // not yet loaded into the MXU
      at = std::max(at, last_beat_[old] + 1);
    }
    if (at > t) {
      Wake(at, t);
      return false;
    }
    const int64_t first = std::max(t + kDramLatency, dram_free_);
    dram_free_ = first + beats_per_tile_;
    first_beat_.push_back(first);
    ++unit.tile;
  }
  const int64_t end = dram_free_ - 1 + kWfifoCycles;
  unit.free_at = t + 1;
  Complete(unit, end, rw.signal);
  return true;
}

// The MXU's weight side (tpu_mxu_weight_ctrl): tile k's rows shift in one per cycle as the
// FIFO has them, after tile k - 1's; its last beat waits until the row that switched to tile
// k - 1 has drained from the other bank (N - 1 cycles).
void Replay::MxuLoad() {
  while (last_beat_.size() < first_beat_.size()) {
    const size_t k = last_beat_.size();
    if (k > 0 && flip_.size() < k) return;  // tile k - 1 not switched to yet
    const double first_row = static_cast<double>(first_beat_[k] + kWfifoCycles);
    const double last_row = first_row + static_cast<double>(n_ - 1) / rows_per_beat_;
    int64_t start = static_cast<int64_t>(first_row);
    if (k > 0) start = std::max(start, last_beat_[k - 1] + 1);
    int64_t last = std::max(start + n_ - 1, static_cast<int64_t>(last_row));
    if (k > 0) last = std::max(last, flip_[k - 1] + n_ - 1);
    last_beat_.push_back(last);
  }
}

bool Replay::StartMatmul(Unit& unit, const Op& mm, int64_t t) {
  // Rows are offered from the grant on (a wait for a tile not yet requested is a weight stall
  // too); taking wait tokens costs the unit one cycle between instructions.
  int64_t first = std::max(unit.held_since + kUbReadCycles, next_row_ + (mm.wait != 0 ? 1 : 0));
  const size_t j = matmul_done_.size();
  if (j >= static_cast<size_t>(comp_depth_)) {
    first = std::max(first, matmul_done_[j - static_cast<size_t>(comp_depth_)] + 1);
  }
  if (mm.flag) {
    const size_t k = static_cast<size_t>(tiles_used_);
    MxuLoad();
    if (k >= last_beat_.size()) return false;  // the tile is not requested yet
    const int64_t loaded = last_beat_[k] + 1;
    if (loaded > first) {
      stall_weights_ += static_cast<uint64_t>(loaded - first);
      first = loaded;
    }
    flip_.push_back(first);
    ++tiles_used_;
    MxuLoad();
  }
  const int64_t rows = std::max<int64_t>(1, mm.count);
  const int64_t last = first + rows - 1;
  next_row_ = last + 1;
  int64_t done = last + 2 * n_ + kMxuExtraCycles;
  if (!matmul_done_.empty()) done = std::max(done, matmul_done_.back());
  matmul_done_.push_back(done);
  // Only the last comp_depth_ completions are read again.
  const auto depth = static_cast<size_t>(comp_depth_);
  if (j >= depth) matmul_done_.DropBefore(j + 1 - depth);
  e_.mxu_active_cycles += static_cast<uint64_t>(rows);
  // The next MATMUL pops early enough for its rows to follow without a gap.
  unit.free_at = std::max(t + 1, last + 1 - kUbReadCycles);
  Complete(unit, done, mm.signal);
  return true;
}

void Replay::StartActivate(Unit& unit, const Op& a, int64_t t) {
  const bool pool = a.flag;
  const int64_t end = t + kActCycles + a.count + (pool ? kPoolCycles : 0);
  unit.free_at = end + 1;
  Complete(unit, end, a.signal);
}

// A turn reads the program's size only through the ring (how many slots are left to request,
// within ring_slots_ of the end) and the dispatcher (instructions up to the last requested),
// and the ring requests at most ring_slots_ + 1 slots in one turn. So while the slots
// requested are more than 2 * ring_slots_ + 2 before the last instruction added, a turn does
// what it does in the whole program, and the replay can pause before it and go on when more
// instructions have arrived: the estimate is the same, however the program was added.
void Replay::Advance(bool complete) {
  if (program_.empty()) return;
  while (!halted_ && !stuck_) {
    if (!complete && static_cast<int64_t>(requested_) + 2 * ring_slots_ + 2 >=
                         static_cast<int64_t>(program_.size())) {
      return;
    }
    const int64_t t = t_;
    // Gives become takeable.
    for (auto it = gives_.begin(); it != gives_.end();) {
      if (it->first <= t) {
        for (int k = 0; k < isa::kNumTokens; ++k) tokens_[k] += (it->second >> k) & 1;
        it = gives_.erase(it);
      } else {
        wake_ = std::min(wake_, it->first);
        ++it;
      }
    }
    bool changed = true;
    while (changed && !halted_) {
      changed = Dispatch(t);
      for (int u = 0; u < kUnits; ++u) changed |= StepUnit(u, t);
      MxuLoad();
    }
    if (halted_) break;
    // After every take at t: what the ring fetches arrives later, nothing else moves at t.
    RingStep(t);
    // Tokens still to be given wake the loop when they are. A unit's end changes nothing else
    // but Idle, which only HALT and SYNC read: it wakes the loop while one of them is next
    // (the turn that dispatches the instruction before it sees it). Registering every unit's
    // end at every turn cost a 1024^3 layer's replay about 2 ms (of ~19) for nothing.
    if (WaitsForIdle()) {
      for (const Unit& unit : units_) Wake(unit.busy_until + 1, t);
    }
    for (const auto& g : gives_) Wake(g.first, t);
    if (wake_ >= kNever) {  // nothing can change: the program cannot finish
      stuck_ = true;
      break;
    }
    t_ = std::max(t + 1, wake_);
    wake_ = kNever;
  }
}

TimingEstimate Replay::Result() {
  if (program_.empty()) return e_;
  const int64_t t = t_;
  e_.cycles = static_cast<uint64_t>(halted_ ? done_ : t);
  // Dependency stalls: cycles in which some unit or SYNC waits for a token.
  std::sort(dep_waits_.begin(), dep_waits_.end());
  uint64_t dep = 0;
  int64_t covered = 0;
  for (const auto& [b, en] : dep_waits_) {
    const int64_t from = std::max(b, covered);
    if (en > from) dep += static_cast<uint64_t>(en - from);
    covered = std::max(covered, en);
  }
  e_.stalls = {{"weights", stall_weights_},
               {"act_in", stall_act_in_},
               {"dma", stall_dma_},
               {"dep", dep}};
  e_.pcie_bytes_from_device += 4;  // the completion MSI
  return e_;
}

}  // namespace

class TimingRun::Impl : public Replay {
 public:
  using Replay::Replay;
};

TimingModel::TimingModel(const devices::DeviceConfig& device, const device::PcieLink& link)
    : device_(device), link_(link) {}

TimingEstimate TimingModel::Estimate(const std::vector<isa::Instr>& program) const {
  TimingRun run(*this);
  run.Add(program.data(), program.size());
  return run.Finish();
}

TimingRun::TimingRun(const TimingModel& model)
    : model_(model),
      impl_(std::make_unique<Impl>(model.device_, HostTimingFor(model.device_, model.link_))) {}
TimingRun::~TimingRun() = default;

void TimingRun::Restart() {
  auto fresh = std::make_unique<Impl>(model_.device_, HostTimingFor(model_.device_, model_.link_));
  fresh->AdoptStorage(*impl_);
  impl_ = std::move(fresh);
}

void TimingRun::Add(const isa::Instr* instrs, size_t count) {
  impl_->Add(instrs, count);
  impl_->Advance(false);
}

TimingEstimate TimingRun::Finish() {
  impl_->Advance(true);
  return impl_->Result();
}

}  // namespace tpu::sc
