#!/usr/bin/env python3
"""Generates the TPU's device configurations as CMake variables, a C++ header and
docs/devices.md from the one machine-readable list, isa/devices.json (python3 standard library
only).

  gen_devices.py [--devices isa/devices.json] [--isa isa/isa.json] [--cmake OUT.cmake]
                 [--cxx OUT.h] [--docs OUT.md] [--check-docs COMMITTED.md]

Every output is written only when its content changes (so builds do not redo work). With
--check-docs the generated docs (--docs, or nothing written) are compared with the committed
file; a difference prints the first differing lines and the command that refreshes it, and
exits with status 1. A broken list exits with status 2 before anything is written, with a
message naming the device and the field.

The list is checked first: every device has exactly the documented fields, names are
lower_snake_case and unique, indices unique, the limits are the members of isa/isa.json's
DeviceLimits inside their min..max and meeting their checks, and the host-interface figures
meet tpu_top's parameter assertions (PCIe sizes and tags powers of two in range, the timeout at
least twice the tags, the DRAM beat a whole number of bytes dividing a tile), and the weight DRAM
holds whole tiles. Limits may exceed 32 bits (DRAM_BYTES up to 8 GiB): the CMake values are plain
decimals, which tpu_add_top_model() passes to Verilator as 64-bit constants.
"""

import ast
import re
import sys

from gen_common import (cstr, cxx_header_close, cxx_header_open, fail, generator_main,
                        md_escape, md_header, md_table_head, w_commented)

ORIGIN = "isa/devices.json by scripts/gen_devices.py"
REFRESH_COMMAND = ("python3 scripts/gen_devices.py --docs docs/devices.md   "
                   "(or: make -C <build> devices_docs)")

NAME = re.compile(r"^[a-z][a-z0-9_]*$")


# -------------------------------------------------------------------------------------------
# Fields
# -------------------------------------------------------------------------------------------
# Checks of the host-interface fields (tpu_top's parameter assertions): each returns an error
# text or None; `d` holds the device's fields checked so far.
def _pow2(lo, hi):
    def check(v, d):
        if not (lo <= v <= hi and v & (v - 1) == 0):
            return "must be a power of two in %d..%d" % (lo, hi)
        return None
    return check


def _dram_width(v, d):
    n = d["limits"]["n"]
    if v < 8 or v % 8:
        return "must be a positive multiple of 8"
    if (n * n * 8) % v or (v % (8 * n) and (8 * n) % v):
        return "must divide a tile (N * N * 8 = %d bits) and divide or be a multiple of a row " \
               "(8 * N = %d bits)" % (n * n * 8, 8 * n)
    return None


def _timeout(v, d):
    if v < 2 * d["dma_tags"]:
        return "must be at least 2 * dma_tags (%d)" % (2 * d["dma_tags"])
    return None


def _tlp_width(v, d):
    if v not in (128, 256, 512):
        return "must be 128, 256 or 512"
    beat = v // 8
    if d["max_payload"] < beat or d["max_read_request"] < beat:
        return "must be at most 8 * max_payload and 8 * max_read_request (a TLP's payload is " \
               "whole %d-byte beats)" % beat
    return None


# The fields of a device besides name, index, doc and limits: (field, C++ type, check).
# Appended in order, so the generated DeviceConfig initializers keep their order.
HW_FIELDS = [
    ("dram_width_bits", "int64_t", _dram_width),
    ("max_payload", "int64_t", _pow2(16, 4096)),
    ("max_read_request", "int64_t", _pow2(64, 4096)),
    ("dma_tags", "int64_t", _pow2(2, 256)),
    ("timeout", "int64_t", _timeout),
    ("ring_slots", "int64_t", _pow2(2, 1 << 16)),
    ("tlp_width_bits", "int64_t", _tlp_width),
]
FIELDS = ["name", "index", "doc", "limits"] + [f for f, _, _ in HW_FIELDS] + ["clock_mhz"]


# -------------------------------------------------------------------------------------------
# Model
# -------------------------------------------------------------------------------------------
def integer(value, where):
    if isinstance(value, bool) or not isinstance(value, int):
        fail("%s %r is not an integer" % (where, value))
    return value


def limit_check_holds(expr, values, where):
    """Evaluates a limit's check of isa/isa.json (names of limits, + - * // % << and
    comparisons) over `values`."""
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in values:
            return values[node.id]
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b,
                   ast.LShift: lambda: a << b}
            if type(node.op) in ops:
                return ops[type(node.op)]()
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            a, b = ev(node.left), ev(node.comparators[0])
            ops = {ast.Eq: a == b, ast.NotEq: a != b, ast.Lt: a < b, ast.LtE: a <= b,
                   ast.Gt: a > b, ast.GtE: a >= b}
            if type(node.ops[0]) in ops:
                return ops[type(node.ops[0])]
        if isinstance(node, ast.BoolOp):
            vals = [ev(v) for v in node.values]
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        fail("%s: isa/isa.json check %r: unsupported expression" % (where, expr))
    return bool(ev(ast.parse(expr, mode="eval")))


class Device:
    def __init__(self, d, desc):
        if not isinstance(d, dict):
            fail("devices: %r is not an object" % (d,))
        name = d.get("name")
        where = name if isinstance(name, str) else "device %r" % (name,)
        for f in FIELDS:
            if f not in d:
                fail("%s: missing field '%s'" % (where, f))
        for f in d:
            if f not in FIELDS:
                fail("%s: unknown field '%s' (the fields are %s)" % (where, f, ", ".join(FIELDS)))
        if not isinstance(name, str) or not NAME.match(name):
            fail("%s: field 'name' must be lower_snake_case" % where)
        self.name = name
        self.index = integer(d["index"], "%s: field 'index'" % where)
        if self.index < 0:
            fail("%s: field 'index' %d is negative" % (where, self.index))
        self.doc = d["doc"]
        if not isinstance(self.doc, str):
            fail("%s: field 'doc' is not a string" % where)
        # Limits: exactly the members of isa::DeviceLimits, in their ranges and checks.
        lim = d["limits"]
        if not isinstance(lim, dict):
            fail("%s: field 'limits' is not an object" % where)
        self.limits = {}
        by_name = {}
        for l in desc.isa_limits:
            m = l["member"]
            lw = "%s: field 'limits.%s'" % (where, m)
            if m not in lim:
                fail("%s: missing field 'limits.%s'" % (where, m))
            v = integer(lim[m], lw)
            if not l["min"] <= v <= l["max"]:
                fail("%s %d outside %d..%d (isa/isa.json %s)" % (lw, v, l["min"], l["max"],
                                                               l["name"]))
            self.limits[m] = v
            by_name[l["name"]] = v
        for m in lim:
            if m not in self.limits:
                fail("%s: unknown field 'limits.%s' (isa::DeviceLimits has %s)" %
                     (where, m, ", ".join(l["member"] for l in desc.isa_limits)))
        for l in desc.isa_limits:
            if "check" in l and not limit_check_holds(l["check"], by_name, where):
                fail("%s: field 'limits.%s' fails isa/isa.json's check %s" %
                     (where, l["member"], l["check"]))
        # Whole weight tiles: READ_WEIGHTS addresses tiles of N * N bytes, and the weight-DRAM
        # model holds a whole number of them (sc_models/weight_dram.cpp).
        tile = self.limits["n"] * self.limits["n"]
        if self.limits["dram_bytes"] % tile:
            fail("%s: field 'limits.dram_bytes' %d is not a whole number of %d-byte tiles "
                 "(N * N)" % (where, self.limits["dram_bytes"], tile))
        # Host interface.
        self.hw = {"limits": self.limits}
        for f, _, check in HW_FIELDS:
            fw = "%s: field '%s'" % (where, f)
            v = integer(d[f], fw)
            err = check(v, self.hw)
            if err:
                fail("%s %d %s" % (fw, v, err))
            self.hw[f] = v
        c = d["clock_mhz"]
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not c > 0:
            fail("%s: field 'clock_mhz' %r is not a positive number" % (where, c))
        self.clock_mhz = float(c)


class Devices:
    def __init__(self, d, isa):
        if not isinstance(d, dict):
            fail("the list is not a JSON object")
        for key in ("description", "default", "fields", "devices"):
            if key not in d:
                fail("missing field '%s'" % key)
        self.description = d["description"]
        if isinstance(self.description, str):
            self.description = [self.description]
        self.isa_limits = isa["limits"]
        self.fields = d["fields"]
        if not isinstance(self.fields, dict):
            fail("field 'fields' is not an object")
        for f in FIELDS:
            if f not in self.fields:
                fail("fields: field '%s' is not documented" % f)
        for f in self.fields:
            if f not in FIELDS:
                fail("fields: unknown field '%s' (the fields are %s)" % (f, ", ".join(FIELDS)))
        if not isinstance(d["devices"], list) or not d["devices"]:
            fail("field 'devices' must be a non-empty list")
        self.devices = [Device(x, self) for x in d["devices"]]
        names, indices = {}, {}
        for dev in self.devices:
            if dev.name in names:
                fail("%s: field 'name' is used twice" % dev.name)
            names[dev.name] = dev
            if dev.index in indices:
                fail("%s: field 'index' %d is already %s's" % (dev.name, dev.index,
                                                               indices[dev.index].name))
            indices[dev.index] = dev
        self.devices.sort(key=lambda dev: dev.index)
        self.default = d["default"]
        if self.default not in names:
            fail("field 'default': %r is not a device (the devices are %s)" %
                 (self.default, ", ".join(dev.name for dev in self.devices)))


# -------------------------------------------------------------------------------------------
# CMake variables
# -------------------------------------------------------------------------------------------
def cmake_values(desc, dev):
    """(VARIABLE suffix, value) of one device, in the order tpu_add_top_model() takes them."""
    vals = [("INDEX", dev.index)]
    vals += [(l["member"].upper(), dev.limits[l["member"]]) for l in desc.isa_limits]
    vals += [(f.upper(), dev.hw[f]) for f, _, _ in HW_FIELDS]
    vals.append(("CLOCK_MHZ", "%g" % dev.clock_mhz))
    return vals


def gen_cmake(desc):
    out = []
    w = out.append
    w("# Generated from %s. Do not edit." % ORIGIN)
    w("#")
    w("# The device configurations (docs/devices.md): TPU_DEVICES lists their names by index,")
    w("# TPU_DEFAULT_DEVICE names the default one, and TPU_DEVICE_<name>_<FIELD> holds each field")
    w("# (limits by their isa::DeviceLimits member, upper case).")
    w("set(TPU_DEVICES %s)" % " ".join(dev.name for dev in desc.devices))
    w("set(TPU_DEFAULT_DEVICE %s)" % desc.default)
    w("set(TPU_DEVICE_FIELDS %s)" % " ".join(k for k, _ in cmake_values(desc, desc.devices[0])))
    for dev in desc.devices:
        w("")
        w("# %s" % dev.name)
        for k, v in cmake_values(desc, dev):
            w("set(TPU_DEVICE_%s_%s %s)" % (dev.name, k, v))
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------------
# C++ header
# -------------------------------------------------------------------------------------------
CXX_GUARD = "TPU_DEVICES_DEVICES_GEN_H_"
CXX_DOC = ["// The device configurations (docs/devices.md): kDevices, every one with its",
           "// isa::DeviceLimits and host-interface figures, kDefaultDevice, and FindDevice() /",
           "// DeviceByIndex() to look one up. Configuration `index` K is the Verilated model",
           "// vtpu_top_<K> (tb::MakeTopModel<K>)."]


def gen_cxx(desc):
    out = []
    w = out.append
    cxx_header_open(w, ORIGIN, CXX_DOC, CXX_GUARD, ["cstdint", "string_view"], "tpu::devices")
    # The include of the ISA header goes inside the guard, before the namespace: rewrite.
    ns = out.index("namespace tpu::devices {")
    out[ns:ns] = ['#include "isa/isa_gen.h"', ""]
    w("struct DeviceConfig {")
    w_commented(w, "  const char* name;", desc.fields["name"])
    w_commented(w, "  int index;", desc.fields["index"])
    w_commented(w, "  isa::DeviceLimits limits;", "the sizes the instruction set's checks "
                "depend on")
    for f, t, _ in HW_FIELDS:
        w_commented(w, "  %s %s;" % (t, f), desc.fields[f])
    w_commented(w, "  double clock_mhz;", desc.fields["clock_mhz"])
    w("};")
    w("")
    w("inline constexpr int kNumDevices = %d;" % len(desc.devices))
    w("// By index.")
    w("inline constexpr DeviceConfig kDevices[kNumDevices] = {")
    for dev in desc.devices:
        lim = ", ".join("%d" % dev.limits[l["member"]] for l in desc.isa_limits)
        hw = ", ".join("%d" % dev.hw[f] for f, _, _ in HW_FIELDS)
        w("    // %s" % dev.name)
        w("    {%s, %d, isa::DeviceLimits{%s}," % (cstr(dev.name), dev.index, lim))
        w("     %s, %r}," % (hw, dev.clock_mhz))
    w("};")
    w("")
    w("// The default device of the system model and of the tpu tool.")
    w("inline constexpr const char* kDefaultDevice = %s;" % cstr(desc.default))
    w("")
    w("// The configuration named `name`, or nullptr.")
    w("constexpr const DeviceConfig* FindDevice(std::string_view name) {")
    w("  for (const DeviceConfig& d : kDevices) {")
    w("    if (name == d.name) return &d;")
    w("  }")
    w("  return nullptr;")
    w("}")
    w("")
    w("// The configuration of index `index` (vtpu_top_<index>), or nullptr.")
    w("constexpr const DeviceConfig* DeviceByIndex(int index) {")
    w("  for (const DeviceConfig& d : kDevices) {")
    w("    if (d.index == index) return &d;")
    w("  }")
    w("  return nullptr;")
    w("}")
    w("")
    w("// The default device's configuration.")
    w("constexpr const DeviceConfig& DefaultDevice() { return *FindDevice(kDefaultDevice); }")
    w("")
    cxx_header_close(w, "tpu::devices", CXX_GUARD)
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------------
# docs/devices.md
# -------------------------------------------------------------------------------------------
def gen_docs(desc):
    out = []
    w = out.append
    md_header(w, "TPU device configurations", ORIGIN, REFRESH_COMMAND)
    for p in desc.description:
        w(p)
        w("")
    w("The default device is `%s`." % desc.default)
    w("")
    w("## Configurations")
    w("")
    rows = ([("index", lambda dev: dev.index)] +
            [("limits." + m, lambda dev, m=m: dev.limits[m])
             for m in (l["member"] for l in desc.isa_limits)] +
            [(f, lambda dev, f=f: dev.hw[f]) for f, _, _ in HW_FIELDS] +
            [("clock_mhz", lambda dev: "%g" % dev.clock_mhz)])
    md_table_head(w, "field", *["`%s`" % dev.name for dev in desc.devices])
    for label, value in rows:
        w("| `%s` | %s |" % (label, " | ".join(str(value(dev)) for dev in desc.devices)))
    w("")
    for dev in desc.devices:
        w("- `%s` (index %d): %s" % (dev.name, dev.index, dev.doc))
    w("")
    w("## Fields")
    w("")
    md_table_head(w, "field", "meaning")
    for f in FIELDS:
        w("| `%s` | %s |" % (f, md_escape(desc.fields[f])))
        if f != "limits":
            continue
        for l in desc.isa_limits:
            w("| `limits.%s` | `%s`: %s; %d .. %d%s |" % (
                l["member"], l["name"], md_escape(l["doc"]), l["min"], l["max"],
                ", `%s`" % l["check"] if "check" in l else ""))
    w("")
    w("## Generated from it")
    w("")
    w("- CMake (configure time, `cmake/TpuDevices.cmake`): `<build>/generated/tpu_devices.cmake` "
      "sets `TPU_DEVICES` (the names by index), `TPU_DEFAULT_DEVICE` and "
      "`TPU_DEVICE_<name>_<FIELD>` (`INDEX`, the limits by member in upper case, "
      "`DRAM_WIDTH_BITS`, `MAX_PAYLOAD`, `MAX_READ_REQUEST`, `DMA_TAGS`, `TIMEOUT`, "
      "`RING_SLOTS`, `TLP_WIDTH_BITS`, `CLOCK_MHZ`). `testbench/host_if/CMakeLists.txt` verilates one `tpu_top` "
      "per built device: library `vtpu_top_<index>` providing `tb::MakeTopModel<index>`.")
    w("- Which devices are built: the CMake cache option `TPU_BUILD_DEVICES` (README.md), a "
      "`;`-list of names and the words `ci` (the default: `n8`, `n16_small`, `n16`, `n32`, those "
      "the list has) and `all`; the default device and the device of index 0 are always built. "
      "CMake generates the registry of the built devices from it "
      "(`testbench/host_if/built_devices.h`: `tb::BuiltDevices()`, `tb::MakeBuiltTopModel()`), "
      "which the simulator (`tpu --device NAME`) and the per-device tests use; `tpu info "
      "--devices` lists every configuration and whether it is built.")
    w("- C++: the header `devices/devices_gen.h` of library `tpu_devices` "
      "(`host_driver/devices`): `tpu::devices::DeviceConfig`, `kDevices`, `kDefaultDevice`, "
      "`FindDevice(name)`, `DeviceByIndex(index)`, `DefaultDevice()`.")
    w("- This page (test `devices.docs_fresh` fails when it is stale).")
    w("")
    w("## Adding a configuration")
    w("")
    w("1. Add an object to `devices` in `isa/devices.json` with every field above, a new "
      "`name` and the next free `index`.")
    w("2. Refresh this page: `%s`." % REFRESH_COMMAND)
    w("3. Reconfigure and build (with the device in `TPU_BUILD_DEVICES`, e.g. "
      "`cmake -B build -DTPU_BUILD_DEVICES='ci;<name>'`): the new `vtpu_top_<index>` library "
      "appears by itself (`tb::MakeTopModel<index>`), `tpu::devices::FindDevice(\"<name>\")` "
      "finds it and `tpu --device <name>` runs it.")
    w("")
    w("A new field needs `scripts/gen_devices.py` (its check, the header's struct, "
      "`tpu_add_top_model()` in `testbench/host_if/CMakeLists.txt` if the RTL takes it) and its "
      "meaning under `fields`.")
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------------
# Main
# -------------------------------------------------------------------------------------------
def main(argv):
    return generator_main(
        argv, __doc__, "gen_devices.py",
        [("devices", "isa/devices.json", None),
         ("isa", "isa/isa.json", "instruction set whose DeviceLimits the devices fill in")],
        lambda path, desc, isa: Devices(desc, isa),
        {"cmake": gen_cmake, "cxx": gen_cxx, "docs": gen_docs}, "isa/devices.json",
        REFRESH_COMMAND, sv=False, cmake=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
