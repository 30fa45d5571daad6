// Subcommands of the `tpu` tool. Each registers its options on the app and returns the
// function that runs it (exit status: 0 ok, 1 result mismatch, 2 bad input).
#ifndef TPU_HOST_DRIVER_CLI_COMMANDS_H_
#define TPU_HOST_DRIVER_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

#include <functional>

namespace tpu::cli {

using CommandRunner = std::function<int()>;

// `tpu mxu`: a random int8 GEMM streamed through the Verilated MXU, checked bit for bit.
CommandRunner AddMxuCommand(CLI::App& app);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_COMMANDS_H_
