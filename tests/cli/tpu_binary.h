// Running the built `tpu` binary as users run it, for the tests that do (tests/cli,
// tests/network). The including target defines TPU_BINARY (the binary's path) and, for
// Python(), TPU_PYTHON (CMake's Python3_EXECUTABLE).
#ifndef TPU_TESTS_CLI_TPU_BINARY_H_
#define TPU_TESTS_CLI_TPU_BINARY_H_

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "npy/scratch_dir.h"

namespace tpu::testing {

struct TpuRun {
  int status = -1;  // exit status, -1 if it did not exit normally
  std::string out, err;
};

// `tpu ARGS` with stdout and stderr captured in files of `dir`.
inline TpuRun RunTpu(const std::string& args, const ScratchDir& dir) {
  const std::string out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string command =
      std::string("'") + TPU_BINARY + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(out), ReadFile(err)};
}

#ifdef TPU_PYTHON
// Runs `python3 -c SCRIPT FILE`; true if it exits 0 (it prints the failed assertion otherwise).
inline bool Python(const std::string& script, const std::string& file) {
  const std::string command =
      std::string("'") + TPU_PYTHON + "' -c \"" + script + "\" '" + file + "'";
  return std::system(command.c_str()) == 0;
}
#endif

}  // namespace tpu::testing

#endif  // TPU_TESTS_CLI_TPU_BINARY_H_
