#!/usr/bin/env python3
"""Generates the TPU's BAR0 register map as a SystemVerilog package, a C++ header and
docs/registers.md from the one machine-readable description, regs/regs.json (python3 standard
library only).

  gen_regs.py [--regs regs/regs.json] [--isa isa/isa.json] [--sv OUT.sv] [--cxx OUT.h]
              [--docs OUT.md] [--check-docs COMMITTED.md]

Every output is written only when its content changes (so builds do not redo work). With
--check-docs the generated docs (--docs, or nothing written) are compared with the committed
file; a difference prints the first differing lines and the command that refreshes it, and
exits with status 1. A broken description exits with status 2 before anything is written.

The description is checked first: register and field names unique and well formed, offsets
DW aligned, inside BAR0 and not shared, fields inside the 32 bits and not overlapping, reset
values inside the fields and consistent with the access types, parameters known, error codes
unique, inside their bits and distinct from the instruction set's (isa/isa.json), and every
generated SystemVerilog / C++ name unique.
"""

import re
import sys

from gen_common import (bits_text, camel, cstr, cxx_header_close, cxx_header_open, fail,
                        generator_main, md_escape, md_header, md_table_head, number,
                        sv_package_close, sv_package_open, w_commented, wrap_comment)

ORIGIN = "regs/regs.json by scripts/gen_regs.py"
REFRESH_COMMAND = ("python3 scripts/gen_regs.py --docs docs/registers.md   "
                   "(or: make -C <build> regs_docs)")

REG_ACCESS = ("RO", "RW", "RW1C")
FIELD_ACCESS = ("RO", "RW", "RW1C", "W1P")
FORMATS = ("dec", "hex", "error")


# -------------------------------------------------------------------------------------------
# Names and numbers
# -------------------------------------------------------------------------------------------
def hex32(value):
    return "0x%08x" % value


UPPER_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
LOWER_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


# -------------------------------------------------------------------------------------------
# Model
# -------------------------------------------------------------------------------------------
class Field:
    def __init__(self, d, reg, regs):
        where = "%s.%s" % (reg.name, d.get("name", "?"))
        self.name = d["name"]
        if not LOWER_NAME.match(self.name):
            fail("%s: field names are lower_snake_case" % where)
        self.doc = d.get("doc", "")
        bits = str(d["bits"])
        m = re.match(r"^\s*(\d+)\s*(?::\s*(\d+)\s*)?$", bits)
        if not m:
            fail("%s: bits %r are not 'msb:lsb' or 'bit'" % (where, bits))
        self.msb = int(m.group(1))
        self.lsb = int(m.group(2)) if m.group(2) is not None else self.msb
        if self.msb < self.lsb:
            fail("%s: bits [%s] have msb below lsb" % (where, bits))
        if self.msb >= regs.reg_bits:
            fail("%s: bits [%s] outside the %d-bit register" % (where, bits, regs.reg_bits))
        self.width = self.msb - self.lsb + 1
        self.mask = ((1 << self.width) - 1) << self.lsb
        self.access = d.get("access", reg.access)
        if self.access not in FIELD_ACCESS:
            fail("%s: unknown access %r (one of %s)" % (where, self.access,
                                                          ", ".join(FIELD_ACCESS)))
        if reg.access == "RO" and self.access != "RO":
            fail("%s: %s field in an RO register" % (where, self.access))
        self.hex = bool(d.get("hex", False))
        self.in_place = bool(d.get("in_place", False))
        self.format = d.get("format", "hex" if self.hex else "dec")
        if self.format not in FORMATS:
            fail("%s: unknown format %r" % (where, self.format))
        if self.format == "error" and self.width > regs.error_bits:
            fail("%s: an error code field is at most %d bits" % (where, regs.error_bits))
        # "Name" (the field holds the parameter) or "Name[msb:lsb]" (those bits of it: a
        # parameter wider than a register is read in halves).
        self.param = d.get("param")
        if self.param is not None:
            m = re.match(r"^(\w+)(?:\[(\d+):(\d+)\])?$", self.param)
            if not m or m.group(1) not in regs.param_names:
                fail("%s: unknown parameter %r" % (where, self.param))
            if m.group(2) is not None and (int(m.group(2)) < int(m.group(3)) or
                                           int(m.group(2)) - int(m.group(3)) + 1 != self.width):
                fail("%s: parameter bits %s do not match the field's %d bits" %
                     (where, self.param, self.width))

        # Named values of the field (an enumeration): [{"name": "UR", "value": 1, "doc": ...}].
        self.values = d.get("values", [])
        seen_names, seen_values = set(), set()
        for v in self.values:
            vn = v.get("name", "?")
            if not UPPER_NAME.match(vn):
                fail("%s: value names are UPPER_SNAKE_CASE (%r)" % (where, vn))
            val = number(v.get("value"), "%s.%s" % (where, vn), "value")
            v["value"] = val
            if not 0 <= val < (1 << self.width):
                fail("%s: value %s = %d does not fit %d bits" % (where, vn, val, self.width))
            if vn in seen_names or val in seen_values:
                fail("%s: value %s = %d named twice" % (where, vn, val))
            seen_names.add(vn)
            seen_values.add(val)

    def bits_text(self):
        return bits_text(self.lsb, self.msb)

    def doc_with_values(self):
        if not self.values:
            return self.doc
        return "%s: %s" % (self.doc, "; ".join("%d %s (%s)" % (v["value"], v["name"], v["doc"])
                                               for v in self.values))


class Register:
    """One register; array members carry the array and their element index."""

    def __init__(self, d, regs, name=None, offset=None, array=None, index=None):
        self.name = name or d["name"]
        where = self.name
        if name is None and not UPPER_NAME.match(self.name):
            fail("%s: register names are UPPER_SNAKE_CASE" % where)
        self.offset = offset if offset is not None else number(d["offset"], where, "offset")
        self.array = array
        self.index = index
        self.template = d
        self.doc = d.get("doc", "")
        self.access = d["access"]
        if self.access not in REG_ACCESS:
            fail("%s: unknown access %r (one of %s)" % (where, self.access,
                                                          ", ".join(REG_ACCESS)))
        self.volatile = bool(d.get("volatile", False))
        self.fields = [Field(f, self, regs) for f in d.get("fields", [])]
        if not self.fields:
            fail("%s: no fields (describe the bits it holds)" % where)
        names = set()
        for f in self.fields:
            if f.name in names:
                fail("%s: duplicate field name %s" % (where, f.name))
            names.add(f.name)
        used = [None] * regs.reg_bits
        for f in sorted(self.fields, key=lambda f: f.lsb):
            for b in range(f.lsb, f.msb + 1):
                if used[b] is not None:
                    fail("%s: field %s overlaps field %s at bit %d" % (where, f.name, used[b], b))
                used[b] = f.name
        self.fields.sort(key=lambda f: f.lsb)
        self.defined = 0
        self.writable = 0
        for f in self.fields:
            self.defined |= f.mask
            if f.access != "RO":
                self.writable |= f.mask
        reset = d.get("reset")
        if reset is None:
            fail("%s: no reset (a value, or \"parameter\")" % where)
        if reset == "parameter":
            self.reset = None
            for f in self.fields:
                if f.param is None:
                    fail("%s: reset is \"parameter\" but field %s names no param" % (where, f.name))
        else:
            self.reset = number(reset, where, "reset")
            if not 0 <= self.reset < (1 << regs.reg_bits):
                fail("%s: reset %s does not fit %d bits" % (where, reset, regs.reg_bits))
            if self.reset & ~self.defined:
                fail("%s: reset %s sets reserved bits 0x%x" % (where, hex32(self.reset),
                                                               self.reset & ~self.defined))
            for f in self.fields:
                if f.param is not None:
                    fail("%s: field %s names param %s but the reset is a value" %
                         (where, f.name, f.param))
                if f.access == "W1P" and self.reset & f.mask:
                    fail("%s: W1P field %s reads 0, its reset must be 0" % (where, f.name))

    def reset_text(self):
        if self.reset is None:
            return "parameter"
        return hex32(self.reset)

    def field_reset_text(self, f):
        if self.reset is None:
            return f.param
        v = (self.reset & f.mask) >> f.lsb
        return ("0x%x" % v) if f.hex and v else str(v)


class Array:
    def __init__(self, d, regs):
        self.name = d["name"]
        where = self.name
        if not UPPER_NAME.match(self.name):
            fail("%s: array names are UPPER_SNAKE_CASE" % where)
        self.doc = d.get("doc", "")
        self.base = number(d["offset"], where, "offset")
        self.stride = number(d["stride"], where, "stride")
        self.elements = d["elements"]
        if not self.elements:
            fail("%s: no elements" % where)
        enames = [e["name"] for e in self.elements]
        for e in enames:
            if not LOWER_NAME.match(e):
                fail("%s: element names are lower_snake_case (%r)" % (where, e))
        if len(set(enames)) != len(enames):
            fail("%s: duplicate element names" % where)
        self.count = len(self.elements)
        if self.stride <= 0 or self.stride % 4:
            fail("%s: stride %d is not a positive multiple of 4 bytes" % (where, self.stride))
        # The registers of one element, as templates (offsets relative to the element).
        self.templates = []
        for t in d["registers"]:
            tname = "%s_%s" % (self.name, t["name"])
            off = number(t["offset"], tname, "offset")
            if off < 0 or off >= self.stride:
                fail("%s: offset 0x%x inside an element must be below the stride %d" %
                     (tname, off, self.stride))
            if not UPPER_NAME.match(t["name"]):
                fail("%s: register names are UPPER_SNAKE_CASE" % tname)
            self.templates.append((t, Register(t, regs, name="%s_i_%s" % (self.name, t["name"]),
                                               offset=off)))
        self.members = []
        for i in range(self.count):
            for t, tr in self.templates:
                self.members.append(Register(
                    t, regs, name="%s_%d_%s" % (self.name, i, t["name"]),
                    offset=self.base + i * self.stride + tr.offset, array=self, index=i))


class Regs:
    def __init__(self, d, isa=None):
        self.raw = d
        self.name = d["name"]
        self.title = d["title"]
        self.bar = int(d.get("bar", 0))
        self.bytes = number(d["bytes"], "description", "bytes")
        self.reg_bits = number(d["reg_bits"], "description", "reg_bits")
        self.error_bits = number(d["error_bits"], "description", "error_bits")
        if self.reg_bits != 32:
            fail("only 32-bit registers are supported (reg_bits %d)" % self.reg_bits)
        if self.bytes < 4 or self.bytes & (self.bytes - 1):
            fail("bytes %d is not a power of two" % self.bytes)
        self.addr_bits = self.bytes.bit_length() - 1
        self.doc = d.get("doc", [])
        self.rules = d.get("rules", [])
        self.params = d.get("parameters", [])
        self.param_names = [p["name"] for p in self.params]
        if len(set(self.param_names)) != len(self.param_names):
            fail("duplicate parameter names")
        self.errors = d.get("errors", [])
        self.check_errors(isa)
        self.registers = [Register(r, self) for r in d.get("registers", [])]
        self.arrays = [Array(a, self) for a in d.get("arrays", [])]
        # Every register the map holds, array members expanded, by offset.
        self.all = list(self.registers)
        for a in self.arrays:
            self.all.extend(a.members)
        self.check_map()
        self.all.sort(key=lambda r: r.offset)

    def check_errors(self, isa):
        names, values = {}, {}
        for e in self.errors:
            n, v = e["name"], number(e["value"], "error %s" % e.get("name"), "value")
            e["value"] = v
            if not UPPER_NAME.match(n):
                fail("error %s: names are UPPER_SNAKE_CASE" % n)
            if n in names:
                fail("error %s: duplicate name" % n)
            if v in values:
                fail("error %s: value 0x%02x is already %s" % (n, v, values[v]))
            if not 0 < v < (1 << self.error_bits):
                fail("error %s: value %d outside 1..%d" % (n, v, (1 << self.error_bits) - 1))
            names[n] = v
            values[v] = n
        if isa is None:
            return
        if isa.get("error_bits") != self.error_bits:
            fail("error_bits %d differs from the instruction set's %s" %
                 (self.error_bits, isa.get("error_bits")))
        for ie in isa["errors"]:
            if ie["name"] in names:
                fail("error %s: the instruction set already names an error so" % ie["name"])
            if ie["value"] in values:
                fail("error %s: value 0x%02x is already the instruction set's %s" %
                     (values[ie["value"]], ie["value"], ie["name"]))

    def check_map(self):
        seen_names = {}
        for r in self.all:
            if r.name in seen_names:
                fail("duplicate register name %s" % r.name)
            seen_names[r.name] = r
        for a in self.arrays:
            if a.name in seen_names:
                fail("duplicate register name %s (an array has it)" % a.name)
        at = {}
        for r in self.all:
            if r.offset % 4:
                fail("%s: offset 0x%03x is not DW aligned (a multiple of 4)" % (r.name, r.offset))
            if not 0 <= r.offset < self.bytes:
                fail("%s: offset 0x%x outside the %d-byte BAR" % (r.name, r.offset, self.bytes))
            if r.offset in at:
                fail("%s and %s: both at offset 0x%03x" % (at[r.offset].name, r.name, r.offset))
            at[r.offset] = r


# -------------------------------------------------------------------------------------------
# Generated names, checked unique per output
# -------------------------------------------------------------------------------------------
class Names:
    def __init__(self, what):
        self.what = what
        self.seen = {}

    def __call__(self, name, owner):
        if name in self.seen:
            fail("generated %s name %s is used by both %s and %s" %
                 (self.what, name, self.seen[name], owner))
        self.seen[name] = owner
        return name


# -------------------------------------------------------------------------------------------
# SystemVerilog package
# -------------------------------------------------------------------------------------------
def sv_reg(w, regs, n, r, prefix, offset, offset_doc):
    a = regs.addr_bits
    owner = r.name
    w_commented(w, "  localparam logic [%d:0] %s = %d'h%03x;" %
                (a - 1, n(prefix + "Offset", owner), a, offset), offset_doc)
    if r.reset is not None:
        w("  localparam logic [31:0] %s = 32'h%08x;" % (n(prefix + "Reset", owner), r.reset))
    w("  localparam logic [31:0] %s = 32'h%08x;  // defined bits" %
      (n(prefix + "Mask", owner), r.defined))
    w("  localparam logic [31:0] %s = 32'h%08x;  // bits a write changes" %
      (n(prefix + "WriteMask", owner), r.writable))
    for f in r.fields:
        fp = prefix + camel(f.name)
        w_commented(w, "  localparam int unsigned %s = %d;" % (n(fp + "Lsb", owner), f.lsb),
                    "%s %s%s" % (f.bits_text(), f.access,
                                 (", reset " + f.param) if f.param else ""))
        w("  localparam int unsigned %s = %d;" % (n(fp + "Width", owner), f.width))
        for v in f.values:
            w_commented(w, "  localparam logic [%d:0] %s = %d'd%d;" %
                        (f.width - 1, n(fp + camel(v["name"]), owner), f.width, v["value"]),
                        v["doc"])


def gen_sv(regs):
    n = Names("SystemVerilog")
    out = []
    w = out.append
    sv_package_open(w, ORIGIN, [
        "// The BAR0 register map (docs/registers.md): the byte offset of every register, the LSB",
        "// and width of every field, reset values, and the masks of defined and writable bits.",
        "// Register R is at byte offset ROffset; field F of R is bits [RFLsb +: RFWidth]. Element i",
        "// of array A holds its register R at AOffset + i * AStride + AROffset (AROffset is the",
        "// offset inside the element). Use as tpu_regs_pkg::Name (Yosys 0.23 cannot read `import`)."],
        "tpu_regs_pkg")
    w("  localparam int unsigned %s = %d;  // bytes of BAR%d" % (n("RegBytes", "top"), regs.bytes,
                                                                 regs.bar))
    w("  localparam int unsigned %s = %d;  // byte-address bits" % (n("AddrWidth", "top"),
                                                                    regs.addr_bits))
    w("  localparam int unsigned %s = %d;  // bits per register" % (n("RegWidth", "top"),
                                                                    regs.reg_bits))
    w("")
    w("  // ---- Error codes beyond tpu_isa_pkg::error_e (ERROR_CODE) ----")
    for e in regs.errors:
        w_commented(w, "  localparam logic [%d:0] %s = %d'h%02x;" %
                    (regs.error_bits - 1, n("Err" + camel(e["name"]), e["name"]),
                     regs.error_bits, e["value"]), e.get("doc", ""))
    w("")
    for r in regs.registers:
        line = "  // ---- %s (0x%03x, %s): %s ----" % (r.name, r.offset, r.access, r.doc)
        w(line if len(line) <= 100 else "  // ---- %s (0x%03x, %s) ----" %
          (r.name, r.offset, r.access))
        sv_reg(w, regs, n, r, camel(r.name), r.offset, "")
        w("")
    for a in regs.arrays:
        c = camel(a.name)
        w("  // ---- %s: %d elements of %d bytes from 0x%03x ----" %
          (a.name, a.count, a.stride, a.base))
        w("  localparam logic [%d:0] %s = %d'h%03x;  // element 0" %
          (regs.addr_bits - 1, n(c + "Offset", a.name), regs.addr_bits, a.base))
        w("  localparam int unsigned %s = %d;  // bytes per element" %
          (n(c + "Stride", a.name), a.stride))
        w("  localparam int unsigned %s = %d;  // elements" % (n(c + "Count", a.name), a.count))
        for i, e in enumerate(a.elements):
            w_commented(w, "  localparam int unsigned %s = %d;" %
                        (n(c + camel(e["name"]) + "Index", a.name), i), e.get("doc", ""))
        for t, tr in a.templates:
            line = "  // %s_i_%s: %s" % (a.name, t["name"], tr.doc)
            w(line if len(line) <= 100 else "  // %s_i_%s" % (a.name, t["name"]))
            sv_reg(w, regs, n, tr, c + camel(t["name"]), tr.offset, "inside an element")
        w("")
    sv_package_close(w)
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------------
# C++ header
# -------------------------------------------------------------------------------------------
ACCESS_CXX = {"RO": "kRO", "RW": "kRW", "RW1C": "kRW1C", "W1P": "kW1P"}
FORMAT_CXX = {"dec": "kDec", "hex": "kHex", "error": "kError"}


def cxx_reg(w, n, r, prefix, offset_name, offset, offset_doc):
    owner = r.name
    w_commented(w, "inline constexpr uint32_t %s = 0x%03x;" % (n(offset_name, owner), offset),
                offset_doc)
    if r.reset is not None:
        w("inline constexpr uint32_t %s = 0x%08x;" % (n(prefix + "Reset", owner), r.reset))
    w("inline constexpr uint32_t %s = 0x%08x;  // defined bits" %
      (n(prefix + "Defined", owner), r.defined))
    w("inline constexpr uint32_t %s = 0x%08x;  // bits a write changes" %
      (n(prefix + "Writable", owner), r.writable))
    for f in r.fields:
        fp = prefix + camel(f.name)
        w("inline constexpr int %s = %d;" % (n(fp + "Shift", owner), f.lsb))
        w("inline constexpr int %s = %d;" % (n(fp + "Width", owner), f.width))
        w("inline constexpr uint32_t %s = 0x%08x;  // in place" % (n(fp + "Mask", owner), f.mask))
        for v in f.values:
            w_commented(w, "inline constexpr uint32_t %s = %d;" %
                        (n(fp + camel(v["name"]), owner), v["value"]), v["doc"])


def cxx_fields(w, n, owner, name, r):
    w("inline constexpr FieldInfo %s[] = {" % n(name, owner))
    for f in r.fields:
        w("    {%s, %d, %d, Access::%s, Format::%s, %s," %
          (cstr(f.name), f.lsb, f.width, ACCESS_CXX[f.access], FORMAT_CXX[f.format],
           "true" if f.in_place else "false"))
        w("     %s}," % cstr(f.doc))
    w("};")


def gen_cxx(regs):
    n = Names("C++")
    out = []
    w = out.append
    cxx_header_open(w, ORIGIN, [
        "// The BAR0 register map (docs/registers.md) as C++ data: the byte offset of every",
        "// register (kRingTail), its reset value, defined and writable bits, every field's shift,",
        "// width and mask in place (kControlIrqEnableMask), the arrays (PerfLo(i)), the error codes",
        "// beyond tpu::isa::Error, and kRegisters, a table of every register by offset for dumps.",
        "// Lookups and formatting are in regs/regs.h."],
        "TPU_REGS_REGS_GEN_H_", ["array", "cstdint"], "tpu::regs")
    w("inline constexpr uint32_t %s = %d;  // bytes of BAR%d" % (n("kBarBytes", "top"),
                                                                  regs.bytes, regs.bar))
    w("inline constexpr int %s = %d;  // bits per register" % (n("kRegBits", "top"),
                                                               regs.reg_bits))
    w("")
    w("// How software may access a register or field: RO read only; RW read and write; RW1C")
    w("// writing 1 clears; W1P writing 1 pulses, reads 0.")
    w("enum class Access : uint8_t { kRO, kRW, kRW1C, kW1P };")
    w("// How a field's value is best shown: decimal, hex, or an error code name.")
    w("enum class Format : uint8_t { kDec, kHex, kError };")
    w("")
    w("struct FieldInfo {")
    w("  const char* name;")
    w("  int lsb;")
    w("  int width;")
    w("  Access access;")
    w("  Format format;")
    w("  bool in_place;  // an address field: its value is the register's bits, not shifted")
    w("  const char* doc;")
    w("};")
    w("")
    w("struct RegisterInfo {")
    w("  const char* name;      // PERF_3_LO for array members")
    w("  uint32_t offset;       // byte offset in BAR0")
    w("  Access access;")
    w("  bool parameter_reset;  // reset value set by the hardware's parameters (then reset is 0)")
    w("  uint32_t reset;")
    w("  bool is_volatile;      // the device changes the value")
    w("  uint32_t defined;      // bits that belong to a field (others are reserved, read 0)")
    w("  uint32_t writable;     // bits a write changes (RW, RW1C, W1P fields)")
    w("  const FieldInfo* fields;")
    w("  int num_fields;")
    w("  const char* doc;")
    w("};")
    w("")
    w("struct ErrorInfo {")
    w("  const char* name;")
    w("  uint8_t value;")
    w("  const char* doc;")
    w("};")
    w("")
    w("// ---- Error codes beyond tpu::isa::Error (ERROR_CODE) ----")
    for e in regs.errors:
        w_commented(w, "inline constexpr uint8_t %s = 0x%02x;" %
                    (n("kErr" + camel(e["name"]), e["name"]), e["value"]), e.get("doc", ""))
    w("inline constexpr std::array<ErrorInfo, %d> %s = {{" % (len(regs.errors),
                                                             n("kErrors", "top")))
    for e in regs.errors:
        w("    {%s, 0x%02x," % (cstr(e["name"]), e["value"]))
        w("     %s}," % cstr(e.get("doc", "")))
    w("}};")
    w("")
    for r in regs.registers:
        w("// ---- %s (0x%03x, %s) ----" % (r.name, r.offset, r.access))
        for line in wrap_comment(r.doc, "// "):
            w(line)
        cxx_reg(w, n, r, "k" + camel(r.name), "k" + camel(r.name), r.offset, "")
        cxx_fields(w, n, r.name, "k%sFields" % camel(r.name), r)
        w("")
    for a in regs.arrays:
        c = camel(a.name)
        w("// ---- %s: %d elements of %d bytes from 0x%03x ----" %
          (a.name, a.count, a.stride, a.base))
        for line in wrap_comment(a.doc, "// "):
            w(line)
        w("inline constexpr uint32_t %s = 0x%03x;  // element 0" % (n("k%sBase" % c, a.name),
                                                                    a.base))
        w("inline constexpr uint32_t %s = %d;  // bytes per element" %
          (n("k%sStride" % c, a.name), a.stride))
        w("inline constexpr int %s = %d;  // elements" % (n("k%sCount" % c, a.name), a.count))
        for i, e in enumerate(a.elements):
            w_commented(w, "inline constexpr int %s = %d;" %
                        (n("k%s%s" % (c, camel(e["name"])), a.name), i), e.get("doc", ""))
        w("inline constexpr std::array<const char*, %d> %s = {" %
          (a.count, n("k%sNames" % c, a.name)))
        for e in a.elements:
            w("    %s," % cstr(e["name"]))
        w("};")
        for t, tr in a.templates:
            tc = camel(t["name"])
            w("// %s_i_%s" % (a.name, t["name"]))
            for line in wrap_comment(tr.doc, "// "):
                w(line)
            cxx_reg(w, n, tr, "k%s%s" % (c, tc), "k%s%sOffset" % (c, tc), tr.offset,
                    "inside an element")
            w("constexpr uint32_t %s(int i) { return k%sBase + k%sStride * uint32_t(i) + k%s%sOffset; }"
              % (n("%s%s" % (c, tc), a.name), c, c, c, tc))
            cxx_fields(w, n, a.name, "k%s%sFields" % (c, tc), tr)
        w("")
    w("// Every register, array members expanded (PERF_0_LO, PERF_0_HI, ...), by offset.")
    w("inline constexpr std::array<RegisterInfo, %d> %s = {{" % (len(regs.all),
                                                                n("kRegisters", "top")))
    for r in regs.all:
        if r.array is None:
            fields = "k%sFields" % camel(r.name)
            doc = r.doc
        else:
            t = r.template
            fields = "k%s%sFields" % (camel(r.array.name), camel(t["name"]))
            e = r.array.elements[r.index]
            doc = "%s: %s" % (e["name"], e.get("doc", ""))
        w("    {%s, 0x%03x, Access::%s, %s, 0x%08x, %s," %
          (cstr(r.name), r.offset, ACCESS_CXX[r.access],
           "true" if r.reset is None else "false", r.reset or 0,
           "true" if r.volatile else "false"))
        w("     0x%08x, 0x%08x, %s, %d," % (r.defined, r.writable, fields, len(r.fields)))
        w("     %s}," % cstr(doc))
    w("}};")
    w("")
    cxx_header_close(w, "tpu::regs", "TPU_REGS_REGS_GEN_H_")
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------------
# docs/registers.md
# -------------------------------------------------------------------------------------------
def field_rows(regs, r, w):
    md_table_head(w, "bits", "field", "access", "reset", "description")
    rows = []
    b = 0
    for f in r.fields:
        if f.lsb > b:
            rows.append((b, f.lsb - 1, None))
        rows.append((f.lsb, f.msb, f))
        b = f.msb + 1
    if b < regs.reg_bits:
        rows.append((b, regs.reg_bits - 1, None))
    for lo, hi, f in reversed(rows):
        bits = bits_text(lo, hi)
        if f is None:
            w("| `%s` | | reserved | 0 | reads 0, writes ignored |" % bits)
        else:
            w("| `%s` | `%s` | %s | %s | %s |" % (bits, f.name, f.access, r.field_reset_text(f),
                                                md_escape(f.doc_with_values())))


def gen_docs(regs):
    out = []
    w = out.append
    md_header(w, regs.title, ORIGIN, REFRESH_COMMAND)
    w("Generated from the one machine-readable description `regs/regs.json` by "
      "`scripts/gen_regs.py`, which also generates the SystemVerilog package `tpu_regs_pkg` "
      "(`rtl/pkg/tpu_regs_pkg.sv`, used by the register file `rtl/host_if/tpu_host_regs.sv`) and "
      "the C++ header `regs/regs_gen.h` (library `tpu_regs`: offsets, field masks, a table of "
      "every register and a formatter). The host interface around it is described in "
      "`docs/host_if.md`.")
    w("")
    for p in regs.doc:
        w(p)
        w("")
    w("## Access rules")
    w("")
    for p in regs.rules:
        w("- %s" % p)
    w("")
    w("## Map")
    w("")
    md_table_head(w, "offset", "name", "access", "reset", "description")
    for r in regs.registers:
        w("| 0x%03x | [%s](#%s) | %s | %s | %s |" % (r.offset, r.name, r.name.lower(), r.access,
                                                   r.reset_text(), md_escape(r.doc)))
    for a in regs.arrays:
        for t, tr in a.templates:
            w("| 0x%03x + %di | [%s_i_%s](#%s) | %s | %s | %s |" % (
                a.base + tr.offset, a.stride, a.name, t["name"], a.name.lower(), tr.access,
                tr.reset_text(), md_escape(tr.doc)))
    w("")
    w("Offsets are byte offsets in BAR0 (%d bytes); every other offset is unmapped." % regs.bytes)
    w("")
    w("## Registers")
    w("")
    for r in regs.registers:
        w("### %s" % r.name)
        w("")
        extra = ", changed by the device" if r.volatile else ""
        w("Offset 0x%03x, %s, reset %s%s: %s." % (r.offset, r.access, r.reset_text(), extra,
                                                 r.doc))
        w("")
        field_rows(regs, r, w)
        w("")
    for a in regs.arrays:
        w("### %s" % a.name)
        w("")
        w("%d elements of %d bytes from offset 0x%03x: %s." % (a.count, a.stride, a.base, a.doc))
        w("")
        w("| i | %s | name | counts |" % " | ".join("%s_i_%s" % (a.name, t["name"])
                                                  for t, _ in a.templates))
        w("| --- | %s | --- | --- |" % " | ".join("---" for _ in a.templates))
        for i, e in enumerate(a.elements):
            w("| %d | %s | `%s` | %s |" % (
                i, " | ".join("0x%03x" % (a.base + i * a.stride + tr.offset)
                              for _, tr in a.templates), e["name"], md_escape(e.get("doc", ""))))
        w("")
        for t, tr in a.templates:
            w("**%s_i_%s** (element offset 0x%x, %s, reset %s%s): %s." % (
                a.name, t["name"], tr.offset, tr.access, tr.reset_text(),
                ", changed by the device" if tr.volatile else "", tr.doc))
            w("")
            field_rows(regs, tr, w)
            w("")
    w("## Error codes")
    w("")
    w("ERROR_CODE holds the instruction set's error codes (`tpu_isa_pkg::error_e`, "
      "[docs/isa.md](isa.md#error-codes)) and these, raised by the host interface:")
    w("")
    md_table_head(w, "code", "name", "meaning")
    for e in regs.errors:
        w("| 0x%02x | `%s` | %s |" % (e["value"], e["name"], md_escape(e.get("doc", ""))))
    w("")
    w("## Parameters")
    w("")
    w("Reset values marked \"parameter\" come from the hardware's configuration:")
    w("")
    md_table_head(w, "parameter", "meaning")
    for p in regs.params:
        w("| `%s` | %s |" % (p["name"], md_escape(p.get("doc", ""))))
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------------
# Main
# -------------------------------------------------------------------------------------------
def main(argv):
    return generator_main(
        argv, __doc__, "gen_regs.py",
        [("regs", "regs/regs.json", None),
         ("isa", "isa/isa.json", "instruction set whose error codes the register map extends")],
        lambda path, desc, isa: Regs(desc, isa),
        {"sv": gen_sv, "cxx": gen_cxx, "docs": gen_docs}, "regs/regs.json", REFRESH_COMMAND)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
