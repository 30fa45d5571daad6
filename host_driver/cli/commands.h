// Subcommands of the `tpu` tool. Each registers its options on the app and returns the
// function that runs it (exit status: 0 ok, 1 result mismatch, 2 bad input or unavailable
// backend; runners may also throw std::exception, which main reports with exit status 2).
#ifndef TPU_HOST_DRIVER_CLI_COMMANDS_H_
#define TPU_HOST_DRIVER_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

#include <functional>

#include "devices/devices_gen.h"
#include "runtime_names.h"

namespace tpu::cli {

using CommandRunner = std::function<int()>;

// The exit status of a command whose runner returned `status`, once the report it printed on
// std::cout is flushed: 2, with a message on stderr, if stdout could not be written (a full disk,
// /dev/full), so that a lost report is never a success; `status` otherwise.
int FinishStdout(int status);

// `tpu dense`: a quantized dense layer from .npy files on --backend golden|rtl (docs/cli.md).
// Layer commands take their backend from `make_backend` (tests substitute their own).
CommandRunner AddDenseCommand(CLI::App& app, BackendFactory make_backend = MakeBackend);

// `tpu conv2d`, `tpu pool`, `tpu activation`: the other layers (compiler/layers.h), as dense.
CommandRunner AddConv2dCommand(CLI::App& app, BackendFactory make_backend = MakeBackend);
CommandRunner AddPoolCommand(CLI::App& app, BackendFactory make_backend = MakeBackend);
CommandRunner AddActivationCommand(CLI::App& app, BackendFactory make_backend = MakeBackend);

// `tpu gemm`: a seeded random int8 GEMM on --backend golden|rtl; prints a checksum.
CommandRunner AddGemmCommand(CLI::App& app, BackendFactory make_backend = MakeBackend);

// Whether this program has a Verilated model of a device configuration (the `tpu` tool asks the
// simulator's registry, testbench/host_if/built_devices.h); null: no rtl backend at all.
using DeviceBuiltQuery = std::function<bool(const devices::DeviceConfig&)>;

// `tpu info [--device NAME] [--devices]`: a device configuration and which backends are
// available for it (the rtl backend if the program composes it with the simulator, as the
// `tpu` tool does in tpu_main.cpp, and the device is built; the model backend, for every
// configuration, if the program composes the model device: has_model), or every configuration.
CommandRunner AddInfoCommand(CLI::App& app, DeviceBuiltQuery built = nullptr,
                             bool has_model = false);

// `tpu run NET.json`: a network layer by layer (host_driver/network, docs/networks.md).
CommandRunner AddRunCommand(CLI::App& app, BackendFactory make_backend = MakeBackend);

// `tpu import MODEL.onnx --output NET.json [--force]`: an int8 ONNX model converted to a
// network (host_driver/onnx, docs/onnx_import.md).
CommandRunner AddImportCommand(CLI::App& app);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_COMMANDS_H_
