// Checks that the files a command will write can be written, before anything runs: docs/cli.md
// promises that a mistake costs no simulation time, and an output that fails only after a long
// run loses the run. Also refuses to write over a file the command reads.
#ifndef TPU_HOST_DRIVER_CLI_OUTPUT_PATHS_H_
#define TPU_HOST_DRIVER_CLI_OUTPUT_PATHS_H_

#include <string>
#include <vector>

namespace tpu::cli {

// A file a command may write or reads, with the option that names it ("--output", "--trace").
struct NamedPath {
  std::string option;
  std::string path;  // "" = not given (skipped)
};

// Throws std::invalid_argument naming the option and the path if an output's folder does not
// exist or is not a folder, the output is a folder, it cannot be written (permissions), two
// outputs are the same file, or an output is the same file as one of `inputs` (which would be
// overwritten). Creates and removes nothing.
void CheckOutputPaths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_OUTPUT_PATHS_H_
