#!/usr/bin/env python3
"""Generates the TPU instruction set's SystemVerilog package, C++ header and docs/isa.md from
the one machine-readable description, isa/isa.json (python3 standard library only).

  gen_isa.py [--isa isa/isa.json] [--sv OUT.sv] [--cxx OUT.h] [--docs OUT.md]
             [--check-docs COMMITTED.md]

Every output is written only when its content changes (so builds do not redo work). With
--check-docs the generated docs (--docs, or a temporary file) are compared with the committed
file; a difference prints the first differing lines and the command that refreshes it, and
exits with status 1.

The description is checked before anything is written: opcodes and names unique, fields inside
the 128 bits and not overlapping, defaults and enum values inside their fields, every rule and
derived expression made of known names and the supported operators.
"""

import ast
import os
import sys

from gen_common import (bits_text, camel, cstr, cxx_header_close, cxx_header_open, fail,
                        generator_main, kname, md_escape, md_header, md_table_head,
                        sv_package_close, sv_package_open, w_commented, wrap_comment)

ORIGIN = "isa/isa.json by scripts/gen_isa.py"
REFRESH_COMMAND = "python3 scripts/gen_isa.py --docs docs/isa.md   (or: make -C <build> isa_docs)"


# -------------------------------------------------------------------------------------------
# Model
# -------------------------------------------------------------------------------------------
class Field:
    def __init__(self, d, instr, isa):
        self.name = d["name"]
        self.lsb = int(d["lsb"])
        self.width = int(d["width"])
        self.kind = d["kind"]
        self.doc = d.get("doc", "")
        self.hex = bool(d.get("hex", False))
        self.enum = d.get("enum")
        self.mask = d.get("mask")
        self.error = d.get("error")
        self.has_default = "default" in d
        self.default = d.get("default", 0)
        where = "%s.%s" % (instr, self.name)
        if self.kind not in ("uint", "sint", "enum", "flag", "mask", "reserved"):
            fail("%s: unknown kind %r" % (where, self.kind))
        if self.width < 1 or self.lsb < 0 or self.lsb + self.width > isa.instr_bits:
            fail("%s: bits [%d +: %d] outside the instruction" % (where, self.lsb, self.width))
        if self.kind == "enum":
            if self.enum not in isa.enums:
                fail("%s: unknown enum %r" % (where, self.enum))
            if isa.enums[self.enum]["width"] != self.width:
                fail("%s: width differs from enum %s" % (where, self.enum))
            if self.error is not None and self.error not in isa.error_values:
                fail("%s: unknown error %r" % (where, self.error))
            if len(isa.enums[self.enum]["values"]) < (1 << self.width) and self.error is None:
                fail("%s: enum %s leaves encodings unused; name the error they raise"
                     % (where, self.enum))
        elif self.error is not None:
            fail("%s: only enum fields carry an error of their own (rules carry the rest)" % where)
        if self.kind == "flag" and self.width != 1:
            fail("%s: a flag is 1 bit" % where)
        if self.kind == "mask":
            if self.mask not in isa.masks or isa.masks[self.mask]["width"] != self.width:
                fail("%s: unknown mask %r or width mismatch" % (where, self.mask))
        if self.has_default and not (self.min_value() <= self.default <= self.max_value()):
            fail("%s: default %d does not fit" % (where, self.default))

    def min_value(self):
        return -(1 << (self.width - 1)) if self.kind == "sint" else 0

    def max_value(self):
        return (1 << (self.width - 1)) - 1 if self.kind == "sint" else (1 << self.width) - 1

    def msb(self):
        return self.lsb + self.width - 1

    def cxx_type(self, isa):
        if self.kind == "enum":
            return camel(self.enum)
        if self.kind == "flag":
            return "bool"
        if self.kind == "sint":
            return "int32_t"
        if self.kind == "mask":
            return "uint8_t" if self.width <= 8 else "uint32_t"
        return "uint64_t" if self.width > 32 else "uint32_t"

    def type_text(self, isa):
        if self.kind == "enum":
            return "enum `%s`" % self.enum
        if self.kind == "mask":
            return "mask of %s" % self.mask
        return {"uint": "unsigned", "sint": "signed", "flag": "flag", "reserved": "reserved"}[
            self.kind]


class Instruction:
    def __init__(self, d, isa):
        self.name = d["name"]
        self.opcode = int(d["opcode"])
        self.unit = d["unit"]
        self.doc = d.get("doc", "")
        self.details = d.get("details", [])
        if self.unit not in isa.unit_names:
            fail("%s: unknown unit %r" % (self.name, self.unit))
        if not 0 < self.opcode < (1 << isa.opcode_width):
            fail("%s: opcode %d outside 1..%d" % (self.name, self.opcode,
                                                  (1 << isa.opcode_width) - 1))
        self.all_fields = []
        for fd in d.get("fields", []):
            if isinstance(fd, str):
                if fd not in isa.common_fields:
                    fail("%s: unknown common field %r" % (self.name, fd))
                fd = dict(isa.common_fields[fd], name=fd)
            self.all_fields.append(Field(fd, self.name, isa))
        names = [f.name for f in self.all_fields]
        if len(set(names)) != len(names):
            fail("%s: duplicate field names" % self.name)
        # Overlaps, including the opcode.
        used = [0] * isa.instr_bits
        for b in range(isa.opcode_lsb, isa.opcode_lsb + isa.opcode_width):
            used[b] = "opcode"
        for f in self.all_fields:
            for b in range(f.lsb, f.lsb + f.width):
                if used[b]:
                    fail("%s: field %s overlaps %s at bit %d" % (self.name, f.name, used[b], b))
                used[b] = f.name
        self.used = used
        # Fields the structs and the assembler carry (named reserved fields are reserved bits).
        self.fields = [f for f in self.all_fields if f.kind != "reserved"]
        self.field_index = {f.name: i for i, f in enumerate(self.fields)}
        self.lets = d.get("let", [])
        self.let_index = {l["name"]: i for i, l in enumerate(self.lets)}
        self.rules = d.get("rules", [])

    def reserved_mask(self, isa):
        value = 0
        for b in range(isa.instr_bits):
            if not self.used[b] or self.used[b] in [f.name for f in self.all_fields
                                                    if f.kind == "reserved"]:
                value |= 1 << b
        return value


class Isa:
    def __init__(self, d, base_dir):
        self.base_dir = base_dir
        self.raw = d
        self.name = d["name"]
        self.title = d["title"]
        self.version = int(d["version"])
        self.instr_bits = int(d["instr_bits"])
        self.word_bits = int(d["word_bits"])
        self.words = self.instr_bits // self.word_bits
        self.opcode_lsb = int(d["opcode"]["lsb"])
        self.opcode_width = int(d["opcode"]["width"])
        self.error_bits = int(d["error_bits"])
        self.constants = d["constants"]
        self.limits = d["limits"]
        self.derived = d["derived"]
        self.units = d["units"]
        self.unit_names = [u["name"] for u in self.units]
        self.masks = d["masks"]
        self.enums = d["enums"]
        self.errors = d["errors"]
        self.error_values = {e["name"]: e["value"] for e in self.errors}
        self.common_fields = d["common_fields"]
        for name, e in self.enums.items():
            vals = [v["value"] for v in e["values"]]
            if len(set(vals)) != len(vals) or any(not 0 <= v < (1 << e["width"]) for v in vals):
                fail("enum %s: values not unique or do not fit %d bits" % (name, e["width"]))
        for name, m in self.masks.items():
            if len(m["bits"]) != m["width"]:
                fail("mask %s: %d names for %d bits" % (name, len(m["bits"]), m["width"]))
        if len(set(self.error_values.values())) != len(self.errors):
            fail("error values not unique")
        if any(not 0 <= v < (1 << self.error_bits) for v in self.error_values.values()):
            fail("an error value does not fit %d bits" % self.error_bits)
        self.instructions = [Instruction(i, self) for i in d["instructions"]]
        ops = [i.opcode for i in self.instructions]
        if len(set(ops)) != len(ops):
            fail("opcodes not unique")
        if len(set(i.name for i in self.instructions)) != len(ops):
            fail("instruction names not unique")
        # Global names used in expressions.
        self.global_names = {}
        for i, c in enumerate(self.constants):
            self.global_names[c["name"]] = ("constant", i)
        for i, l in enumerate(self.limits):
            self.global_names[l["name"]] = ("limit", i)
        for i, x in enumerate(self.derived):
            self.global_names[x["name"]] = ("derived", i)
        self.max_fields = max(len(i.fields) for i in self.instructions)
        # Parse every expression now, so that a bad description fails before anything is written.
        for i, x in enumerate(self.derived):
            Expr(x["expr"], self, None, "derived %s" % x["name"])
        for l in self.limits:
            if "check" in l:
                Expr(l["check"], self, None, "limit %s" % l["name"])
        for ins in self.instructions:
            for l in ins.lets:
                Expr(l["expr"], self, ins, "%s let %s" % (ins.name, l["name"]))
            for r in ins.rules:
                where = "%s rule %r" % (ins.name, r["check"])
                if r["field"] not in ins.field_index:
                    fail("%s: unknown field %r" % (where, r["field"]))
                if r["error"] not in self.error_values:
                    fail("%s: unknown error %r" % (where, r["error"]))
                Expr(r["check"], self, ins, where)
                if "when" in r:
                    Expr(r["when"], self, ins, where)

    def instr_by_name(self, name):
        for i in self.instructions:
            if i.name == name:
                return i
        return None


# -------------------------------------------------------------------------------------------
# Expressions: a small, safe subset of Python syntax, translated to C++
# -------------------------------------------------------------------------------------------
FUNCTIONS = {
    "ceil_div": (2, "detail::CeilDiv"),
    "pool_out": (4, "detail::PoolOut"),
    "min": (2, "detail::Min"),
    "max": (2, "detail::Max"),
}
BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.LShift: "<<"}
CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


class Expr:
    """An expression of a rule, let, derived constant or limit check.

    Names: the instruction's fields and lets, device limits, derived constants and constants.
    A string is an enum value name and may only be compared with an enum field. Operators:
    + - * // % <<, comparisons (chains allowed), and/or/not, `a if c else b`, and the functions
    of FUNCTIONS. Arithmetic is on 64-bit signed integers.
    """

    def __init__(self, text, isa, instr, where):
        self.text = text
        self.isa = isa
        self.instr = instr
        self.where = where
        self.refs = []  # (name, kind, index) in order of first use
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as e:
            fail("%s: cannot parse %r: %s" % (where, text, e))
        self.cxx = self._tr(tree.body)

    def _ref(self, name, kind, index):
        if (name, kind, index) not in self.refs:
            self.refs.append((name, kind, index))

    def _enum_field(self, node):
        if isinstance(node, ast.Name) and self.instr is not None:
            idx = self.instr.field_index.get(node.id)
            if idx is not None and self.instr.fields[idx].kind == "enum":
                return self.instr.fields[idx]
        return None

    def _tr(self, n):
        if isinstance(n, ast.Constant) and isinstance(n.value, bool):
            return "true" if n.value else "false"
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return "int64_t{%d}" % n.value
        if isinstance(n, ast.Name):
            return self._name(n.id)
        if isinstance(n, ast.BinOp):
            a, b = self._tr(n.left), self._tr(n.right)
            if isinstance(n.op, ast.FloorDiv):
                return "detail::FloorDiv(%s, %s)" % (a, b)
            if isinstance(n.op, ast.Mod):
                return "detail::Mod(%s, %s)" % (a, b)
            if type(n.op) not in BINOPS:
                fail("%s: operator %s not supported" % (self.where, type(n.op).__name__))
            return "(%s %s %s)" % (a, BINOPS[type(n.op)], b)
        if isinstance(n, ast.UnaryOp):
            if isinstance(n.op, ast.Not):
                return "(!%s)" % self._tr(n.operand)
            if isinstance(n.op, ast.USub):
                return "(-%s)" % self._tr(n.operand)
            fail("%s: unary operator not supported" % self.where)
        if isinstance(n, ast.BoolOp):
            op = " && " if isinstance(n.op, ast.And) else " || "
            return "(" + op.join(self._tr(v) for v in n.values) + ")"
        if isinstance(n, ast.Compare):
            parts = []
            left = n.left
            for op, right in zip(n.ops, n.comparators):
                if type(op) not in CMPOPS:
                    fail("%s: comparison %s not supported" % (self.where, type(op).__name__))
                parts.append("(%s %s %s)" % (self._operand(left, right), CMPOPS[type(op)],
                                             self._operand(right, left)))
                left = right
            return parts[0] if len(parts) == 1 else "(" + " && ".join(parts) + ")"
        if isinstance(n, ast.IfExp):
            return "(%s ? %s : %s)" % (self._tr(n.test), self._tr(n.body), self._tr(n.orelse))
        if isinstance(n, ast.Call):
            if not isinstance(n.func, ast.Name) or n.func.id not in FUNCTIONS or n.keywords:
                fail("%s: unknown function in %r" % (self.where, self.text))
            nargs, cxx = FUNCTIONS[n.func.id]
            if len(n.args) != nargs:
                fail("%s: %s takes %d arguments" % (self.where, n.func.id, nargs))
            return "%s(%s)" % (cxx, ", ".join(self._tr(a) for a in n.args))
        fail("%s: unsupported syntax in %r" % (self.where, self.text))

    def _operand(self, node, other):
        """An operand of a comparison: a string names a value of the enum field compared."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            f = self._enum_field(other)
            if f is None:
                fail("%s: %r compared with something that is not an enum field"
                     % (self.where, node.value))
            for v in self.isa.enums[f.enum]["values"]:
                if v["name"] == node.value:
                    return "int64_t{%d}" % v["value"]
            fail("%s: %r is not a value of enum %s" % (self.where, node.value, f.enum))
        return self._tr(node)

    def _name(self, name):
        ins = self.instr
        if ins is not None and name in ins.field_index:
            self._ref(name, "field", ins.field_index[name])
            return "v[%d]" % ins.field_index[name]
        if ins is not None and name in ins.let_index:
            self._ref(name, "let", ins.let_index[name])
            return "Let%s%s(v, lim)" % (camel(ins.name), camel(name))
        if name in self.isa.global_names:
            kind, index = self.isa.global_names[name]
            self._ref(name, kind, index)
            if kind == "constant":
                return "int64_t{%d}" % self.isa.constants[index]["value"]
            if kind == "limit":
                return "lim.%s" % self.isa.limits[index]["member"]
            return "Derived%s(lim)" % camel(name)
        fail("%s: unknown name %r in %r" % (self.where, name, self.text))


# -------------------------------------------------------------------------------------------
# SystemVerilog package
# -------------------------------------------------------------------------------------------
def sv_hex(value, bits):
    """128'h0000ffff_..., digits grouped by 32-bit word (most significant first)."""
    s = "%0*x" % ((bits + 3) // 4, value)
    return "%d'h%s" % (bits, "_".join(s[i:i + 8] for i in range(0, len(s), 8)))


def gen_sv(isa):
    out = []
    w = out.append
    sv_package_open(w, ORIGIN, [
        "// Constants of the TPU instruction set (docs/isa.md): opcodes, error codes, enum",
        "// encodings and the LSB / width of every field of every instruction. An instruction is a",
        "// logic [%d:0] (word w at bits [32w +: 32]); field F of instruction I is" %
        (isa.instr_bits - 1),
        "// instr[tpu_isa_pkg::IFLsb +: tpu_isa_pkg::IFWidth]. Bits set in IReservedMask must be 0.",
        "// Use as tpu_isa_pkg::Name (Yosys 0.23 cannot read `import`)."], "tpu_isa_pkg")
    w("  localparam int unsigned IsaVersion  = %d;" % isa.version)
    w("  localparam int unsigned InstrBits   = %d;" % isa.instr_bits)
    w("  localparam int unsigned InstrWords  = %d;" % isa.words)
    w("  localparam int unsigned OpcodeLsb   = %d;" % isa.opcode_lsb)
    w("  localparam int unsigned OpcodeWidth = %d;" % isa.opcode_width)
    w("  localparam int unsigned ErrorWidth  = %d;" % isa.error_bits)
    w("")
    w("  // ---- Constants ----")
    for c in isa.constants:
        for line in wrap_comment(c["doc"], "  // "):
            w(line)
        w("  localparam int unsigned %s = %d;" % (camel(c["name"]), c["value"]))
    w("")
    w("  // ---- Device limits (the range a device parameter may take; 64 bits: DRAM_BYTES) ----")
    for l in isa.limits:
        for k in ("min", "max"):
            w("  localparam logic [63:0] Limit%s%s = 64'd%d;" % (camel(l["name"]), camel(k), l[k]))
    w("")
    w("  // ---- Opcodes ----")
    w("  typedef enum logic [%d:0] {" % (isa.opcode_width - 1))
    items = ["    Op%s = %d'h%02x" % (camel(i.name), isa.opcode_width, i.opcode)
             for i in isa.instructions]
    w(",\n".join(items))
    w("  } opcode_e;")
    w("")
    w("  // ---- Error codes (status register) ----")
    w("  typedef enum logic [%d:0] {" % (isa.error_bits - 1))
    w(",\n".join("    Err%s = %d'd%d" % (camel(e["name"]), isa.error_bits, e["value"])
                 for e in isa.errors))
    w("  } error_e;")
    w("")
    w("  // ---- Enumerated fields ----")
    for name, e in isa.enums.items():
        w("  typedef enum logic [%d:0] {" % (e["width"] - 1))
        w(",\n".join("    %s%s = %d'd%d" % (camel(name), camel(v["name"]), e["width"], v["value"])
                     for v in e["values"]))
        w("  } %s_e;" % name)
    w("")
    w("  // ---- Mask bits ----")
    for name, m in isa.masks.items():
        for i, b in enumerate(m["bits"]):
            w("  localparam int unsigned %s%sBit = %d;" % (camel(name), camel(b), i))
    w("")
    for ins in isa.instructions:
        c = camel(ins.name)
        w("  // ---- %s (opcode 0x%02x, unit %s) ----" % (ins.name, ins.opcode, ins.unit))
        for f in sorted(ins.all_fields, key=lambda f: f.lsb):
            note = "  // reserved, must be 0" if f.kind == "reserved" else ""
            w("  localparam int unsigned %s%sLsb = %d;%s" % (c, camel(f.name), f.lsb, note))
            w("  localparam int unsigned %s%sWidth = %d;" % (c, camel(f.name), f.width))
        w("  localparam logic [%d:0] %sReservedMask =\n      %s;" %
          (isa.instr_bits - 1, c, sv_hex(ins.reserved_mask(isa), isa.instr_bits)))
        w("")
    sv_package_close(w)
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------------
# C++ header
# -------------------------------------------------------------------------------------------
def rule_refs(isa, ins, rule):
    """Names a rule uses (check first, then when), each once."""
    refs = list(Expr(rule["check"], isa, ins, "").refs)
    if "when" in rule:
        refs += [x for x in Expr(rule["when"], isa, ins, "").refs if x not in refs]
    return refs


def gen_cxx(isa):
    out = []
    w = out.append
    cxx_header_open(w, ORIGIN, [
        "// The TPU instruction set as C++ data: opcodes, error codes, enums, device limits, one",
        "// struct per instruction, and tables of every field and check (docs/isa.md). The API on top",
        "// (encode, decode, validate, assemble, disassemble) is in isa/isa.h."],
        "TPU_ISA_ISA_GEN_H_", ["array", "cstdint", "variant"], "tpu::isa")
    w("inline constexpr int kIsaVersion = %d;" % isa.version)
    w("inline constexpr int kInstrBits = %d;" % isa.instr_bits)
    w("inline constexpr int kInstrWords = %d;" % isa.words)
    w("inline constexpr int kOpcodeLsb = %d;" % isa.opcode_lsb)
    w("inline constexpr int kOpcodeWidth = %d;" % isa.opcode_width)
    w("inline constexpr int kErrorWidth = %d;" % isa.error_bits)
    w("inline constexpr int kMaxFields = %d;  // fields of the largest instruction" %
      isa.max_fields)
    w("")
    for c in isa.constants:
        for line in wrap_comment(c["doc"], "// "):
            w(line)
        w("inline constexpr int64_t %s = %d;" % (kname(c["name"]), c["value"]))
    w("")
    w("using Words = std::array<uint32_t, kInstrWords>;  // word w = instruction bits [32w +: 32]")
    w("using FieldValues = std::array<int64_t, kMaxFields>;  // an instruction's fields, in order")
    w("")
    # Opcodes and errors.
    w("enum class Opcode : uint8_t {")
    for i in isa.instructions:
        w_commented(w, "  %s = 0x%02x," % (kname(i.name), i.opcode), i.doc)
    w("};")
    w("")
    w("enum class Error : uint8_t {")
    for e in isa.errors:
        w("  %s = %d," % (kname(e["name"]), e["value"]))
    w("};")
    w("")
    w("enum class Unit : uint8_t {")
    for i, u in enumerate(isa.units):
        w_commented(w, "  %s = %d," % (kname(u["name"]), i), u["doc"])
    w("};")
    w("")
    for name, e in isa.enums.items():
        w("// %s" % e["doc"])
        w("enum class %s : uint8_t {" % camel(name))
        for v in e["values"]:
            w_commented(w, "  %s = %d," % (kname(v["name"]), v["value"]), v["doc"])
        w("};")
        w("")
    for name, m in isa.masks.items():
        w("// Bits of a %s mask: %s." % (name, m["doc"]))
        for i, b in enumerate(m["bits"]):
            w("inline constexpr uint8_t k%s%s = 1u << %d;" % (camel(name), camel(b), i))
        w("inline constexpr uint8_t k%sAll = 0x%x;" % (camel(name), (1 << m["width"]) - 1))
        w("")
    # Limits.
    w("// Sizes of one device; the rules of docs/isa.md depend on them.")
    w("struct DeviceLimits {")
    for l in isa.limits:
        w_commented(w, "  int64_t %s = %d;" % (l["member"], l["default"]),
                    "%s: %s" % (l["name"], l["doc"]))
    w("};")
    w("")
    # Instruction structs.
    w("// One struct per instruction. Field values are not checked here: Encode() throws for a")
    w("// value that does not fit its bits, Validate() returns the error the hardware raises.")
    for ins in isa.instructions:
        w("struct %s {" % camel(ins.name))
        w("  static constexpr Opcode kOpcode = Opcode::%s;" % kname(ins.name))
        for f in ins.fields:
            t = f.cxx_type(isa)
            if f.kind == "enum":
                ev = [v for v in isa.enums[f.enum]["values"] if v["value"] == f.default]
                init = "%s::%s" % (t, kname(ev[0]["name"])) if ev else "%s{}" % t
            elif f.kind == "flag":
                init = "true" if f.default else "false"
            else:
                init = str(f.default)
            w_commented(w, "  %s %s = %s;" % (t, f.name, init), f.doc)
        w("};")
    w("")
    w("using Instr = std::variant<%s>;" % ", ".join(camel(i.name) for i in isa.instructions))
    w("")
    # Metadata types.
    w("enum class FieldKind : uint8_t { kUint, kSint, kEnum, kFlag, kMask };")
    w("enum class RefKind : uint8_t { kField, kLet, kLimit, kDerived, kConstant };")
    w("enum class ErrorKind : uint8_t { kNone, kDecode, kField, kRuntime };")
    w("")
    w("struct NamedValue {  // an enum value or a mask bit")
    w("  const char* name;")
    w("  int64_t value;")
    w("};")
    w("")
    w("struct FieldInfo {")
    w("  const char* name;")
    w("  int lsb;                  // bit position in the 128-bit instruction")
    w("  int width;")
    w("  FieldKind kind;")
    w("  const NamedValue* names;  // enum values, or mask bits (value = bit index)")
    w("  int num_names;")
    w("  bool has_default;         // optional in assembly")
    w("  int64_t default_value;")
    w("  bool hex;                 // shown in hexadecimal")
    w("  Error error;              // raised by an unused enum encoding (kOk: none)")
    w("  const char* doc;")
    w("};")
    w("")
    w("struct RuleRef {  // a name a rule uses, for error messages")
    w("  const char* name;")
    w("  RefKind kind;")
    w("  int index;")
    w("};")
    w("")
    w("struct RuleInfo {")
    w("  int field;          // the field the rule constrains (index into fields)")
    w("  Error error;")
    w("  const char* when;   // condition under which the rule applies (\"\" = always)")
    w("  const char* check;  // what must hold")
    w("  const RuleRef* refs;")
    w("  int num_refs;")
    w("};")
    w("")
    w("struct LetInfo {")
    w("  const char* name;")
    w("  const char* expr;")
    w("};")
    w("")
    w("struct InstrInfo {")
    w("  Opcode opcode;")
    w("  const char* name;")
    w("  Unit unit;")
    w("  const FieldInfo* fields;")
    w("  int num_fields;")
    w("  const RuleInfo* rules;  // checked in this order, after the enum encodings")
    w("  int num_rules;")
    w("  const LetInfo* lets;")
    w("  int num_lets;")
    w("  Words reserved_mask;    // bits that must be 0")
    w("};")
    w("")
    w("struct ErrorInfo {")
    w("  Error error;")
    w("  const char* name;")
    w("  ErrorKind kind;")
    w("  const char* doc;")
    w("};")
    w("")
    w("struct LimitInfo {")
    w("  const char* name;")
    w("  const char* member;")
    w("  int64_t default_value;")
    w("  int64_t min;")
    w("  int64_t max;")
    w("  const char* check;  // extra condition (\"\" = none)")
    w("};")
    w("")
    # Tables.
    w("inline constexpr ErrorInfo kErrors[] = {")
    for e in isa.errors:
        w("    {Error::%s, %s, ErrorKind::%s, %s}," % (kname(e["name"]), cstr(e["name"]),
                                                     kname(e["kind"]), cstr(e["doc"])))
    w("};")
    w("")
    w("inline constexpr const char* kUnitNames[] = {%s};" %
      ", ".join(cstr(u["name"]) for u in isa.units))
    w("")
    w("inline constexpr LimitInfo kLimits[] = {")
    for l in isa.limits:
        w("    {%s, %s, %d, %d, %d, %s}," % (cstr(l["name"]), cstr(l["member"]), l["default"],
                                            l["min"], l["max"], cstr(l.get("check", ""))))
    w("};")
    w("")
    w("inline constexpr const char* kDerivedNames[] = {%s};" %
      ", ".join(cstr(x["name"]) for x in isa.derived))
    w("inline constexpr const char* kConstantNames[] = {%s};" %
      ", ".join(cstr(c["name"]) for c in isa.constants))
    w("inline constexpr int64_t kConstantValues[] = {%s};" %
      ", ".join(str(c["value"]) for c in isa.constants))
    w("")
    for name, e in isa.enums.items():
        w("inline constexpr NamedValue k%sNames[] = {%s};" % (camel(name), ", ".join(
            "{%s, %d}" % (cstr(v["name"]), v["value"]) for v in e["values"])))
    for name, m in isa.masks.items():
        w("inline constexpr NamedValue k%sMaskNames[] = {%s};" % (camel(name), ", ".join(
            "{%s, %d}" % (cstr(b), i) for i, b in enumerate(m["bits"]))))
    w("")
    for ins in isa.instructions:
        c = camel(ins.name)
        if ins.fields:
            w("inline constexpr FieldInfo k%sFields[] = {" % c)
            for f in ins.fields:
                if f.kind == "enum":
                    names, num = "k%sNames" % camel(f.enum), len(isa.enums[f.enum]["values"])
                elif f.kind == "mask":
                    names, num = "k%sMaskNames" % camel(f.mask), len(isa.masks[f.mask]["bits"])
                else:
                    names, num = "nullptr", 0
                w("    {%s, %d, %d, FieldKind::%s, %s, %d, %s, %d, %s, Error::%s, %s}," % (
                    cstr(f.name), f.lsb, f.width, kname(f.kind), names, num,
                    "true" if f.has_default else "false", f.default,
                    "true" if f.hex else "false", kname(f.error or "OK"), cstr(f.doc)))
            w("};")
        for ri, r in enumerate(ins.rules):
            refs = rule_refs(isa, ins, r)
            w("inline constexpr RuleRef k%sRule%dRefs[] = {%s};" % (c, ri, ", ".join(
                "{%s, RefKind::%s, %d}" % (cstr(n), kname(k), i) for n, k, i in refs)))
        if ins.rules:
            w("inline constexpr RuleInfo k%sRules[] = {" % c)
            for ri, r in enumerate(ins.rules):
                w("    {%d, Error::%s, %s, %s, k%sRule%dRefs, %d}," % (
                    ins.field_index[r["field"]], kname(r["error"]), cstr(r.get("when", "")),
                    cstr(r["check"]), c, ri, len(rule_refs(isa, ins, r))))
            w("};")
        if ins.lets:
            w("inline constexpr LetInfo k%sLets[] = {%s};" % (c, ", ".join(
                "{%s, %s}" % (cstr(l["name"]), cstr(l["expr"])) for l in ins.lets)))
        w("")
    w("inline constexpr InstrInfo kInstrs[] = {")
    for ins in isa.instructions:
        c = camel(ins.name)
        mask = ins.reserved_mask(isa)
        words = ", ".join("0x%08xu" % ((mask >> (32 * k)) & 0xFFFFFFFF) for k in range(isa.words))
        w("    {Opcode::%s, %s, Unit::%s, %s, %d, %s, %d, %s, %d, {{%s}}}," % (
            kname(ins.name), cstr(ins.name), kname(ins.unit),
            "k%sFields" % c if ins.fields else "nullptr", len(ins.fields),
            "k%sRules" % c if ins.rules else "nullptr", len(ins.rules),
            "k%sLets" % c if ins.lets else "nullptr", len(ins.lets), words))
    w("};")
    w("")
    # Helpers and evaluation.
    w("namespace detail {")
    w("// Integer helpers of the rule expressions; a zero divisor yields 0 (rules guard against")
    w("// it by checking the divisor first, in order).")
    w("inline constexpr int64_t FloorDiv(int64_t a, int64_t b) {")
    w("  if (b == 0) return 0;")
    w("  const int64_t q = a / b;")
    w("  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;")
    w("}")
    w("inline constexpr int64_t Mod(int64_t a, int64_t b) { return b == 0 ? a : a - FloorDiv(a, b) * b; }")
    w("inline constexpr int64_t CeilDiv(int64_t a, int64_t b) { return b == 0 ? 0 : -FloorDiv(-a, b); }")
    w("inline constexpr int64_t Min(int64_t a, int64_t b) { return a < b ? a : b; }")
    w("inline constexpr int64_t Max(int64_t a, int64_t b) { return a < b ? b : a; }")
    w("// Output positions of a pooling axis (TensorFlow): SAME ceil(size / stride), VALID")
    w("// (size - window) // stride + 1 (0 if the window does not fit).")
    w("inline constexpr int64_t PoolOut(int64_t size, int64_t window, int64_t stride,")
    w("                                 int64_t padding) {")
    w("  if (stride <= 0) return 0;")
    w("  if (padding == static_cast<int64_t>(Padding::kSame)) return CeilDiv(size, stride);")
    w("  return size < window ? 0 : FloorDiv(size - window, stride) + 1;")
    w("}")
    w("}  // namespace detail")
    w("")
    for x in isa.derived:
        e = Expr(x["expr"], isa, None, x["name"])
        w("// %s = %s: %s" % (x["name"], x["expr"], x["doc"]))
        w("inline constexpr int64_t Derived%s([[maybe_unused]] const DeviceLimits& lim) {"
          % camel(x["name"]))
        w("  return %s;" % e.cxx)
        w("}")
    w("")
    w("// Value of derived constant `index` (kDerivedNames order).")
    w("inline int64_t DerivedValue(int index, const DeviceLimits& lim) {")
    w("  switch (index) {")
    for i, x in enumerate(isa.derived):
        w("    case %d: return Derived%s(lim);" % (i, camel(x["name"])))
    w("  }")
    w("  return 0;")
    w("}")
    w("")
    w("// Value of limit `index` (kLimits order).")
    w("inline int64_t LimitValue(int index, const DeviceLimits& lim) {")
    w("  switch (index) {")
    for i, l in enumerate(isa.limits):
        w("    case %d: return lim.%s;" % (i, l["member"]))
    w("  }")
    w("  return 0;")
    w("}")
    w("")
    w("// The extra check of limit `index` (kLimits[index].check) holds.")
    w("inline bool LimitCheckPasses(int index, [[maybe_unused]] const DeviceLimits& lim) {")
    w("  switch (index) {")
    for i, l in enumerate(isa.limits):
        if "check" in l:
            w("    case %d: return %s;" % (i, Expr(l["check"], isa, None, l["name"]).cxx))
    w("  }")
    w("  return true;")
    w("}")
    w("")
    for ins in isa.instructions:
        for l in ins.lets:
            e = Expr(l["expr"], isa, ins, l["name"])
            w("// %s: %s = %s" % (ins.name, l["name"], l["expr"]))
            w("inline int64_t Let%s%s(const FieldValues& v, [[maybe_unused]] const DeviceLimits& lim) {"
              % (camel(ins.name), camel(l["name"])))
            w("  return %s;" % e.cxx)
            w("}")
    w("")
    w("// Value of let `index` of an instruction (InstrInfo::lets order).")
    w("inline int64_t LetValue(Opcode op, int index, [[maybe_unused]] const FieldValues& v,")
    w("                        [[maybe_unused]] const DeviceLimits& lim) {")
    w("  switch (op) {")
    for ins in isa.instructions:
        if ins.lets:
            w("    case Opcode::%s:" % kname(ins.name))
            w("      switch (index) {")
            for i, l in enumerate(ins.lets):
                w("        case %d: return Let%s%s(v, lim);" % (i, camel(ins.name), camel(l["name"])))
            w("      }")
            w("      break;")
    w("    default:")
    w("      break;")
    w("  }")
    w("  return 0;")
    w("}")
    w("")
    w("// Rule `index` of an instruction (InstrInfo::rules order) holds for these field values:")
    w("// its `when` is false or its `check` is true.")
    w("inline bool RulePasses(Opcode op, int index, [[maybe_unused]] const FieldValues& v,")
    w("                       [[maybe_unused]] const DeviceLimits& lim) {")
    w("  switch (op) {")
    for ins in isa.instructions:
        if not ins.rules:
            continue
        w("    case Opcode::%s:" % kname(ins.name))
        w("      switch (index) {")
        for i, r in enumerate(ins.rules):
            chk = Expr(r["check"], isa, ins, "").cxx
            if "when" in r:
                wh = Expr(r["when"], isa, ins, "").cxx
                w("        case %d: return !%s || %s;" % (i, wh, chk))
            else:
                w("        case %d: return %s;" % (i, chk))
        w("      }")
        w("      break;")
    w("    default:")
    w("      break;")
    w("  }")
    w("  return true;")
    w("}")
    w("")
    # Struct <-> values.
    w("// Struct <-> field values (FieldInfo order).")
    for ins in isa.instructions:
        c = camel(ins.name)
        w("inline void ToValues([[maybe_unused]] const %s& x, [[maybe_unused]] FieldValues* v) {"
          % c)
        for i, f in enumerate(ins.fields):
            if f.kind == "flag":
                w("  (*v)[%d] = x.%s ? 1 : 0;" % (i, f.name))
            else:
                w("  (*v)[%d] = static_cast<int64_t>(x.%s);" % (i, f.name))
        w("}")
    w("")
    w("inline Instr FromValues(Opcode op, [[maybe_unused]] const FieldValues& v) {")
    w("  switch (op) {")
    for ins in isa.instructions:
        c = camel(ins.name)
        w("    case Opcode::%s: {" % kname(ins.name))
        w("      %s x;" % c)
        for i, f in enumerate(ins.fields):
            if f.kind == "flag":
                w("      x.%s = v[%d] != 0;" % (f.name, i))
            else:
                w("      x.%s = static_cast<%s>(v[%d]);" % (f.name, f.cxx_type(isa), i))
        w("      return x;")
        w("    }")
    w("  }")
    w("  return Nop{};" if isa.instr_by_name("NOP") else "  return Instr{};")
    w("}")
    w("")
    cxx_header_close(w, "tpu::isa", "TPU_ISA_ISA_GEN_H_")
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------------
# docs/isa.md
# -------------------------------------------------------------------------------------------
def read_doc(isa, rel):
    path = os.path.join(isa.base_dir, rel)
    with open(path) as f:
        text = f.read()
    lines = []
    for line in text.splitlines():
        if line.startswith("@@include "):
            inc = line[len("@@include "):].strip()
            with open(os.path.join(isa.base_dir, inc)) as g:
                body = g.read().rstrip("\n")
            lines.append("```")
            lines.extend(body.splitlines())
            lines.append("```")
        else:
            lines.append(line)
    return "\n".join(lines).rstrip("\n")


def word_bits_text(isa, lo, hi):
    parts = []
    b = lo
    while b <= hi:
        word = b // isa.word_bits
        end = min(hi, (word + 1) * isa.word_bits - 1)
        parts.append("w%d%s" % (word, bits_text(b % isa.word_bits, end % isa.word_bits)))
        b = end + 1
    return " ".join(parts)


def asm_value_text(isa, f):
    if f.kind == "enum":
        return "|".join(v["name"] for v in isa.enums[f.enum]["values"])
    if f.kind == "flag":
        return "0|1"
    if f.kind == "mask":
        return "<%s>" % f.mask
    if f.hex:
        return "<0x0..0x%x>" % f.max_value()
    return "<%d..%d>" % (f.min_value(), f.max_value())


def asm_syntax(isa, ins):
    parts = [ins.name]
    for f in ins.fields:
        p = "%s=%s" % (f.name, asm_value_text(isa, f))
        parts.append("[%s]" % p if f.has_default else p)
    return " ".join(parts)


def default_text(isa, f):
    if not f.has_default:
        return "required"
    if f.kind == "enum":
        return [v["name"] for v in isa.enums[f.enum]["values"] if v["value"] == f.default][0]
    if f.kind == "mask":
        return "none" if f.default == 0 else str(f.default)
    return str(f.default)


def legal_text(isa, ins, f):
    if f.kind == "reserved":
        return "0"
    parts = []
    if f.kind == "enum":
        vals = isa.enums[f.enum]["values"]
        parts.append(", ".join("%s (%d)" % (v["name"], v["value"]) for v in vals))
        if len(vals) < (1 << f.width):
            parts.append("other encodings raise %s" % f.error)
    elif f.kind == "mask":
        parts.append("any subset of %s" % ", ".join(isa.masks[f.mask]["bits"]))
    elif f.kind == "flag":
        parts.append("0, 1")
    elif f.hex:
        parts.append("0x0 .. 0x%x (bits)" % f.max_value())
    else:
        parts.append("%d .. %d (bits)" % (f.min_value(), f.max_value()))
    for r in ins.rules:
        if r["field"] == f.name:
            cond = "if `%s`: " % r["when"] if "when" in r else ""
            parts.append("%s`%s`" % (cond, r["check"]))
    return "; ".join(parts)


def errors_text(isa, ins, f):
    if f.kind == "reserved":
        return "RESERVED_NONZERO"
    errs = []
    if f.kind == "enum" and f.error:
        errs.append(f.error)
    for r in ins.rules:
        if r["field"] == f.name and r["error"] not in errs:
            errs.append(r["error"])
    return ", ".join(errs) if errs else "-"


def gen_docs(isa):
    out = []
    w = out.append
    md_header(w, isa.title, "isa/isa.json and isa/doc/*.md by scripts/gen_isa.py",
              REFRESH_COMMAND)
    w("Version %d. Generated from the one machine-readable description `isa/isa.json` (with the "
      "prose in `isa/doc/`) by `scripts/gen_isa.py`, which also generates the SystemVerilog "
      "package `tpu_isa_pkg` and the C++ header `isa/isa_gen.h` (library `tpu_isa`: encoder, "
      "decoder, validator, assembler, disassembler)." % isa.version)
    w("")
    w(read_doc(isa, "doc/overview.md"))
    w("")
    w("## Instructions")
    w("")
    md_table_head(w, "opcode", "instruction", "unit", "what it does")
    for ins in isa.instructions:
        w("| 0x%02x | [%s](#%s) | %s | %s |" % (ins.opcode, ins.name, ins.name.lower(), ins.unit,
                                              md_escape(ins.doc)))
    w("")
    w("Every other opcode, 0x00 included, raises ILLEGAL_OPCODE.")
    w("")
    w("## Units")
    w("")
    md_table_head(w, "unit", "mask bit (SYNC `units`)", "executes")
    for u in isa.units:
        w("| %s | %s | %s |" % (u["name"], "-" if u["mask_bit"] is None else u["mask_bit"],
                                md_escape(u["doc"])))
    w("")
    w("## Device limits and constants")
    w("")
    w("The legal range of many fields depends on the device; the rules below name these limits. "
      "C++: `tpu::isa::DeviceLimits`.")
    w("")
    md_table_head(w, "limit", "`DeviceLimits` member", "default", "allowed", "meaning")
    for l in isa.limits:
        allowed = "%d .. %d" % (l["min"], l["max"])
        if "check" in l:
            allowed += ", `%s`" % l["check"]
        w("| %s | `%s` | %d | %s | %s |" % (l["name"], l["member"], l["default"], allowed,
                                            md_escape(l["doc"])))
    w("")
    md_table_head(w, "derived", "value", "meaning")
    for x in isa.derived:
        w("| %s | `%s` | %s |" % (x["name"], x["expr"], md_escape(x["doc"])))
    w("")
    md_table_head(w, "constant", "value", "meaning")
    for c in isa.constants:
        w("| %s | %d | %s |" % (c["name"], c["value"], md_escape(c["doc"])))
    w("")
    w(read_doc(isa, "doc/dependencies.md"))
    w("")
    w(read_doc(isa, "doc/assembly.md"))
    w("")
    w("## Rule expressions")
    w("")
    w("Rules and `let` definitions are written in a small expression language on 64-bit signed "
      "integers: field names (their decoded values; signed fields sign-extended), the limits, "
      "derived values and constants above, `+ - * << //` (`//` divides rounding down) and `%` "
      "(remainder), comparisons, `and`, `or`, `not`, `a if c else b`, an enum value as a quoted "
      "name compared with its field (`pool == 'none'`), and these functions:")
    w("")
    md_table_head(w, "function", "value")
    w("| `ceil_div(a, b)` | a / b rounded up |")
    w("| `min(a, b)`, `max(a, b)` | the smaller, the larger |")
    w("| `pool_out(size, window, stride, padding)` | output positions of a pooling axis: `same` "
      "ceil_div(size, stride); `valid` (size - window) // stride + 1 |")
    w("")
    w("An instruction's checks run in the order listed; a rule with `when` applies only when its "
      "condition holds.")
    w("")
    w("## Instruction reference")
    for ins in isa.instructions:
        w("")
        w("### %s" % ins.name)
        w("")
        w("Opcode 0x%02x, unit %s. %s" % (ins.opcode, ins.unit, ins.doc))
        if ins.details:
            w("")
            w("\n".join(ins.details))
        w("")
        w("Assembly: `%s`" % asm_syntax(isa, ins))
        w("")
        md_table_head(w, "bits", "words", "field", "width")
        # Layout in bit order with reserved gaps.
        segs = []
        b = 0
        while b < isa.instr_bits:
            owner = ins.used[b]
            e = b
            while e + 1 < isa.instr_bits and ins.used[e + 1] == owner and owner != 0:
                e += 1
            if not owner:
                while e + 1 < isa.instr_bits and not ins.used[e + 1]:
                    e += 1
            segs.append((b, e, owner))
            b = e + 1
        for lo, hi, owner in segs:
            if not owner:
                name = "reserved, 0"
            elif owner == "opcode":
                name = "opcode = 0x%02x" % ins.opcode
            else:
                f = [x for x in ins.all_fields if x.name == owner][0]
                name = "%s (reserved, 0)" % owner if f.kind == "reserved" else owner
            w("| %s | %s | %s | %d |" % (bits_text(lo, hi), word_bits_text(isa, lo, hi), name,
                                         hi - lo + 1))
        w("")
        if ins.all_fields:
            md_table_head(w, "field", "bits", "type", "default", "legal values", "error",
                          "meaning")
            for f in ins.all_fields:
                w("| `%s` | %s | %s, %d bit%s | %s | %s | %s | %s |" % (
                    f.name, bits_text(f.lsb, f.msb()), f.type_text(isa), f.width,
                    "" if f.width == 1 else "s",
                    "-" if f.kind == "reserved" else default_text(isa, f),
                    md_escape(legal_text(isa, ins, f)), errors_text(isa, ins, f),
                    md_escape(f.doc)))
            w("")
        for l in ins.lets:
            w("where `%s = %s` (%s)." % (l["name"], l["expr"], l["doc"]))
            w("")
        mask = ins.reserved_mask(isa)
        steps = ["opcode (ILLEGAL_OPCODE)"]
        if mask:
            steps.append("reserved bits, mask w0..w3 = %s (RESERVED_NONZERO)" % " ".join(
                "`0x%08x`" % ((mask >> (32 * k)) & 0xFFFFFFFF) for k in range(isa.words)))
        for f in ins.fields:
            if f.kind == "enum" and f.error:
                steps.append("`%s` is a listed encoding (%s)" % (f.name, f.error))
        for r in ins.rules:
            cond = "if `%s`: " % r["when"] if "when" in r else ""
            steps.append("%s`%s` (%s)" % (cond, r["check"], r["error"]))
        w("Checks, in order (the first failure is raised):")
        w("")
        for i, s in enumerate(steps):
            w("%d. %s" % (i + 1, s))
    w("")
    w("## Error codes")
    w("")
    w("The dispatcher checks each instruction before it issues it, in the order listed in its "
      "section (opcode, reserved bits, enum encodings, then its rules), and reports the first "
      "failure; run-time errors are raised while instructions execute. On any error the queue "
      "stops: nothing after the failing instruction is issued (instructions already issued "
      "finish, they were checked), the status register holds the code and the failing "
      "instruction's index, and the interrupt is raised. An instruction that fails a check "
      "never touches memory, so the device never writes out of range. Codes are %d bits." %
      isa.error_bits)
    w("")
    md_table_head(w, "code", "name", "kind", "meaning", "raised by")
    for e in isa.errors:
        by = []
        for ins in isa.instructions:
            fields = []
            for f in ins.all_fields:
                if e["name"] in errors_text(isa, ins, f).split(", "):
                    fields.append(f.name)
            if fields:
                by.append("%s (%s)" % (ins.name, ", ".join(fields)))
        if e["name"] == "ILLEGAL_OPCODE":
            by = ["any word 0"]
        elif e["name"] == "RESERVED_NONZERO":
            by = ["any instruction"]
        elif e["kind"] == "runtime":
            by = ["execution"]
        w("| %d | %s | %s | %s | %s |" % (e["value"], e["name"], e["kind"], md_escape(e["doc"]),
                                          "; ".join(by) if by else "-"))
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------------
# Main
# -------------------------------------------------------------------------------------------
def main(argv):
    return generator_main(
        argv, __doc__, "gen_isa.py", [("isa", "isa/isa.json", None)],
        lambda path, desc: Isa(desc, os.path.dirname(os.path.abspath(path))),
        {"sv": gen_sv, "cxx": gen_cxx, "docs": gen_docs}, "isa/isa.json", REFRESH_COMMAND)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
