#!/usr/bin/env python3
"""Checks that the project's layers depend one way, by reading the #include lines.

Every C++ file under host_driver/, sc_models/ and testbench/ belongs to a layer (its folder);
each layer may include only the layers listed for it in LAYERS below. An include is resolved
as the build resolves it: next to the including file, then from the repository root, then
from host_driver/ and testbench/ (the libraries' include directories); generated headers
(isa/isa_gen.h, regs/regs_gen.h, devices/devices_gen.h) belong to their library, Verilator's
headers and the system's to nobody. An include that resolves nowhere is an error too, so that
the check cannot be dodged by a path it does not know.

Usage: check_layers.py [--root DIR]     exit 0 if every include is allowed, 1 with a list else.
"""
import argparse
import os
import re
import sys

# Layer -> the layers it may include (itself always). Bottom first.
LAYERS = {
    # host_driver: the oracle, tensor files, generated encodings and the device list.
    "host_driver/golden": [],
    "host_driver/npy": ["host_driver/golden"],
    "host_driver/isa": [],
    "host_driver/regs": ["host_driver/isa"],
    "host_driver/devices": ["host_driver/isa"],
    # The driver and its seam (DeviceBus, HostMemory, Platform, PcieLink).
    "host_driver/device": ["host_driver/isa", "host_driver/regs"],
    # The ISA reference machine: a simulated device's core, behind the seam's HostMemory.
    "host_driver/model": ["host_driver/isa", "host_driver/golden", "host_driver/device"],
    "host_driver/compiler": ["host_driver/isa", "host_driver/golden"],
    "host_driver/runtime": ["host_driver/compiler", "host_driver/device", "host_driver/isa",
                            "host_driver/regs", "host_driver/golden"],
    "host_driver/network": ["host_driver/runtime", "host_driver/compiler", "host_driver/isa",
                            "host_driver/golden", "host_driver/npy"],
    # ONNX models read and mapped to the network format (its structures are JSON and .npy).
    "host_driver/onnx": ["host_driver/golden", "host_driver/npy"],
    "host_driver/cli": ["host_driver/onnx", "host_driver/network", "host_driver/runtime", "host_driver/compiler",
                        "host_driver/device", "host_driver/devices", "host_driver/isa",
                        "host_driver/regs", "host_driver/golden", "host_driver/npy"],
    # The simulation tree: below the driver's seam, never the driver's upper layers or the
    # Verilated harnesses.
    "sc_models": ["host_driver/isa", "host_driver/regs", "host_driver/golden",
                  "host_driver/model", "host_driver/device", "host_driver/devices"],
    # Verilated harnesses and their stimulus, on top of the simulation tree's plain C++.
    "testbench": ["sc_models", "host_driver/isa", "host_driver/regs", "host_driver/golden",
                  "host_driver/model", "host_driver/device", "host_driver/devices",
                  "host_driver/compiler"],
}

# Files that may include anything: where a program is composed from its layers.
COMPOSITION_ROOTS = {"host_driver/cli/tpu_main.cpp"}

GENERATED = {
    "isa/isa_gen.h": "host_driver/isa",
    "regs/regs_gen.h": "host_driver/regs",
    "devices/devices_gen.h": "host_driver/devices",
}
# Headers of Verilator's models (named per model, "@K@" in the configure_file templates) and of
# its runtime: no layer of ours.
EXTERNAL = re.compile(r"^(V[\w@]+\.h|@\w+@\.h|verilated\w*\.h|svdpi\.h)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCES = (".h", ".hpp", ".cpp", ".cc", ".h.in", ".cpp.in")


def layer_of(path):
    """The layer a repository-relative path belongs to, or None."""
    for layer in sorted(LAYERS, key=len, reverse=True):
        if path == layer or path.startswith(layer + "/"):
            return layer
    return None


def resolve(root, including, name):
    """The repository-relative path `name` names from `including`, or a GENERATED layer."""
    if name in GENERATED:
        return GENERATED[name]
    for base in (os.path.dirname(including), "", "host_driver", "testbench"):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def check(root):
    problems = []
    files = 0
    for top in ("host_driver", "sc_models", "testbench"):
        for folder, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if not n.endswith(SOURCES):
                    continue
                path = os.path.relpath(os.path.join(folder, n), root)
                files += 1
                layer = layer_of(path)
                if layer is None:
                    problems.append(f"{path}: in no layer (add its folder to LAYERS)")
                    continue
                if path in COMPOSITION_ROOTS:
                    continue
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    text = f.read()
                for name in INCLUDE.findall(text):
                    if EXTERNAL.match(os.path.basename(name)):
                        continue
                    target = resolve(root, path, name)
                    if target is None:
                        problems.append(f'{path}: #include "{name}" names no file of the '
                                        "repository (nor a generated header)")
                        continue
                    target_layer = layer_of(target)
                    if target_layer is None or target_layer == layer:
                        continue
                    if target_layer not in LAYERS[layer]:
                        problems.append(f'{path}: #include "{name}": {layer} may not include '
                                        f"{target_layer} (allowed: "
                                        f"{', '.join(LAYERS[layer]) or 'nothing else'})")
    return files, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."),
                        help="the repository (default: this checkout)")
    args = parser.parse_args()
    files, problems = check(os.path.abspath(args.root))
    if files == 0:
        print(f"check_layers: no C++ files under {args.root}", file=sys.stderr)
        return 1
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) against the layering "
              "(tests/layering/check_layers.py lists what each layer may use)", file=sys.stderr)
        return 1
    print(f"check_layers: {files} files, every include goes down the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
