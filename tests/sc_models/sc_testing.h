// GoogleTest inside one SystemC elaboration. SystemC 2.3.4 cannot elaborate twice in a process
// (no new modules once sc_start has run, no restart after sc_stop), so each SystemC test binary
// builds ONE testbench in its sc_main, holding every topology its tests need, and then runs the
// tests; each test simulates further with sc_start (never sc_stop) and measures times relative
// to its own start. The tests therefore pass both when the whole binary runs in one process
// and when ctest runs each test in a process of its own (gtest_discover_tests).
//
// Test bodies run outside the simulation, so they cannot wait(): JobRunner::Run starts jobs as
// SystemC processes (sc_spawn: build with SC_INCLUDE_DYNAMIC_PROCESSES defined) and simulates
// until every process is idle.
#ifndef TPU_TESTS_SC_MODELS_SC_TESTING_H_
#define TPU_TESTS_SC_MODELS_SC_TESTING_H_

#include <gtest/gtest.h>

#include <functional>
#include <systemc>
#include <vector>

namespace tpu::sc::testing {

class JobRunner : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(JobRunner);
  explicit JobRunner(sc_core::sc_module_name name) : sc_core::sc_module(name) { SC_THREAD(Thread); }

  // Runs the jobs as concurrent SystemC threads (they may wait and call blocking TLM APIs)
  // and simulates until nothing is left to do. Returns false if a job did not finish (it is
  // stuck waiting for an event that never comes).
  bool Run(std::vector<std::function<void()>> jobs) {
    if (sc_core::sc_get_status() == sc_core::SC_ELABORATION)
      sc_core::sc_start(sc_core::SC_ZERO_TIME);
    jobs_ = std::move(jobs);
    finished_ = false;
    start_.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    return finished_;
  }
  bool Run(std::function<void()> job) { return Run(std::vector<std::function<void()>>{job}); }

 private:
  void Thread() {
    for (;;) {
      sc_core::wait(start_);
      std::vector<sc_core::sc_process_handle> running;
      for (auto& job : jobs_) running.push_back(sc_core::sc_spawn(job));
      for (auto& p : running) {
        if (!p.terminated()) sc_core::wait(p.terminated_event());
      }
      finished_ = true;
    }
  }

  std::vector<std::function<void()>> jobs_;
  bool finished_ = false;
  sc_core::sc_event start_;
};

inline double NowNs() { return sc_core::sc_time_stamp().to_seconds() * 1e9; }

}  // namespace tpu::sc::testing

#endif  // TPU_TESTS_SC_MODELS_SC_TESTING_H_
