// The timing model's replay of a program on a thread of its own, beside the functional
// execution (the model device runs the reference machine on a program's instructions while
// the replay of the ones it has executed goes on): one TimingRun at a time, fed in pieces.
// The estimate is the TimingRun's, so TimingModel::Estimate's of the whole program. (Header
// only: the model device is its one user.)
#ifndef TPU_SC_MODELS_MODEL_DEVICE_TIMING_WORKER_H_
#define TPU_SC_MODELS_MODEL_DEVICE_TIMING_WORKER_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "isa/isa_gen.h"
#include "sc_models/model_device/timing_model.h"

namespace tpu::sc {

class TimingWorker {
 public:
  // `model` must outlive the worker.
  explicit TimingWorker(const TimingModel& model);
  ~TimingWorker();
  TimingWorker(const TimingWorker&) = delete;
  TimingWorker& operator=(const TimingWorker&) = delete;

  // A new program: what was added before is dropped.
  void Start();
  // The program's next instructions, replayed on the worker's thread (as far as they decide:
  // TimingRun::Add) as soon as it is free.
  void Add(std::vector<isa::Instr> instrs);
  // An empty vector for the next piece: one the replay is done with when there is one, so that
  // a long program's pieces reuse the same memory (still in cache, no page to map again)
  // instead of allocating and releasing ~0.6 MB a piece.
  std::vector<isa::Instr> Spare();
  // The program is complete: its estimate. The pieces the thread has not begun are replayed by
  // the caller, who waits for the estimate anyway (so a thread that a loaded machine does not
  // run soon delays the estimate by at most the piece it is replaying).
  TimingEstimate Finish();

 private:
  void Loop();
  // Keeps a replayed piece's storage for Spare (called with mutex_ held).
  void Recycle(std::vector<isa::Instr> piece);

  std::mutex mutex_;
  std::condition_variable wake_;  // the thread: a piece, or stop
  std::condition_variable idle_;  // the caller: the thread has finished its piece
  std::deque<std::vector<isa::Instr>> pieces_;  // for the thread
  std::vector<std::vector<isa::Instr>> spare_;   // replayed pieces' storage, emptied
  // Every program's run, restarted for the next one on the same storage: a long program's run
  // holds megabytes, which a fresh run would map again (a 1024^3 layer's ~6,600 page faults,
  // ~10 ms, when the worker alternated between two runs).
  TimingRun run_;
  bool busy_ = false;  // the thread is replaying a piece into run_ (outside the lock)
  bool stop_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

inline TimingWorker::TimingWorker(const TimingModel& model)
    : run_(model), thread_([this] { Loop(); }) {}

inline TimingWorker::~TimingWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

inline void TimingWorker::Start() {
  std::unique_lock<std::mutex> lock(mutex_);
  pieces_.clear();
  idle_.wait(lock, [this] { return !busy_; });  // the old run is no longer in use
  run_.Restart();
}

inline void TimingWorker::Add(std::vector<isa::Instr> instrs) {
  if (instrs.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pieces_.push_back(std::move(instrs));
  }
  wake_.notify_one();
}

inline std::vector<isa::Instr> TimingWorker::Spare() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (spare_.empty()) return {};
  std::vector<isa::Instr> piece = std::move(spare_.back());
  spare_.pop_back();
  return piece;
}

inline void TimingWorker::Recycle(std::vector<isa::Instr> piece) {
  // A few suffice: the caller fills one while the thread replays another.
  constexpr std::size_t kMaxSpare = 4;
  if (spare_.size() >= kMaxSpare) return;
  piece.clear();
  spare_.push_back(std::move(piece));
}

inline TimingEstimate TimingWorker::Finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !busy_; });
  std::deque<std::vector<isa::Instr>> rest = std::move(pieces_);
  pieces_.clear();
  // The thread is idle and has no piece: until the next Add, the run is the caller's alone.
  lock.unlock();
  for (const std::vector<isa::Instr>& piece : rest) run_.Add(piece.data(), piece.size());
  TimingEstimate estimate = run_.Finish();
  run_.Restart();
  lock.lock();
  for (std::vector<isa::Instr>& piece : rest) Recycle(std::move(piece));
  return estimate;
}

inline void TimingWorker::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !pieces_.empty(); });
    if (stop_) return;
    std::vector<isa::Instr> piece = std::move(pieces_.front());
    pieces_.pop_front();
    busy_ = true;
    lock.unlock();
    run_.Add(piece.data(), piece.size());
    lock.lock();
    Recycle(std::move(piece));
    busy_ = false;
    idle_.notify_all();
  }
}

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_MODEL_DEVICE_TIMING_WORKER_H_
