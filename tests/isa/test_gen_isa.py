#!/usr/bin/env python3
"""Tests of scripts/gen_isa.py (ctest isa.gen_isa_checks): broken descriptions are rejected with
a message naming the problem, outputs are deterministic and rewritten only when they change,
and --check-docs fails on stale docs naming the refresh command.

  test_gen_isa.py <path to gen_isa.py> <path to isa.json>
"""

import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

GEN = None
ISA = None


def read(path):
    with open(path) as f:
        return f.read()


def run(args):
    return subprocess.run([sys.executable, GEN] + args, capture_output=True, text=True)


class GenIsaTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        # The description and the prose it includes, copied so they can be broken.
        src = os.path.dirname(ISA)
        shutil.copytree(src, os.path.join(self.tmp, "isa"))
        self.json_path = os.path.join(self.tmp, "isa", os.path.basename(ISA))
        with open(self.json_path) as f:
            self.desc = json.load(f)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def instr(self, desc, name):
        return [i for i in desc["instructions"] if i["name"] == name][0]

    def field(self, instr, name):
        return [f for f in instr["fields"] if isinstance(f, dict) and f["name"] == name][0]

    def expect_rejected(self, desc, fragment):
        with open(self.json_path, "w") as f:
            json.dump(desc, f)
        r = run(["--isa", self.json_path, "--sv", os.path.join(self.tmp, "x.sv")])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(fragment, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "x.sv")))

    def test_overlapping_fields(self):
        d = copy.deepcopy(self.desc)
        self.field(self.instr(d, "MATMUL"), "acc")["lsb"] = 40
        self.expect_rejected(d, "MATMUL: field acc overlaps ub at bit 40")

    def test_field_outside_the_instruction(self):
        d = copy.deepcopy(self.desc)
        self.field(self.instr(d, "ACTIVATE"), "image_h")["width"] = 9
        self.expect_rejected(d, "ACTIVATE.image_h: bits [120 +: 9] outside the instruction")

    def test_unknown_name_in_a_rule(self):
        d = copy.deepcopy(self.desc)
        self.instr(d, "MATMUL")["rules"][1]["check"] = "ub + rows <= UB_ROW"
        self.expect_rejected(d, "unknown name 'UB_ROW'")

    def test_unsupported_syntax_in_a_rule(self):
        d = copy.deepcopy(self.desc)
        self.instr(d, "MATMUL")["rules"][1]["check"] = "ub / rows <= UB_ROWS"
        self.expect_rejected(d, "operator Div not supported")

    def test_unknown_enum_value_in_a_rule(self):
        d = copy.deepcopy(self.desc)
        self.instr(d, "READ_HOST")["rules"][2]["when"] = "target == 'sram'"
        self.expect_rejected(d, "'sram' is not a value of enum target")

    def test_default_that_does_not_fit(self):
        d = copy.deepcopy(self.desc)
        self.field(self.instr(d, "ACTIVATE"), "clamp_min")["default"] = -129
        self.expect_rejected(d, "ACTIVATE.clamp_min: default -129 does not fit")

    def test_duplicate_opcode(self):
        d = copy.deepcopy(self.desc)
        self.instr(d, "HALT")["opcode"] = 1
        self.expect_rejected(d, "opcodes not unique")

    def test_opcode_zero_is_reserved(self):
        d = copy.deepcopy(self.desc)
        self.instr(d, "NOP")["opcode"] = 0
        self.expect_rejected(d, "NOP: opcode 0 outside 1..255")

    def test_unused_enum_encodings_need_an_error(self):
        d = copy.deepcopy(self.desc)
        del self.field(self.instr(d, "ACTIVATE"), "pool")["error"]
        self.expect_rejected(d, "enum pool leaves encodings unused")

    def test_rule_with_unknown_error(self):
        d = copy.deepcopy(self.desc)
        self.instr(d, "MATMUL")["rules"][0]["error"] = "ROWS_ZERO"
        self.expect_rejected(d, "unknown error 'ROWS_ZERO'")

    def test_outputs_are_deterministic_and_rewritten_only_on_change(self):
        out = [os.path.join(self.tmp, n) for n in ("a.sv", "a.h", "a.md")]
        r = run(["--isa", ISA, "--sv", out[0], "--cxx", out[1], "--docs", out[2]])
        self.assertEqual(r.returncode, 0, r.stderr)
        first = [read(p) for p in out]
        for p in out:
            os.utime(p, (1000, 1000))
        r = run(["--isa", ISA, "--sv", out[0], "--cxx", out[1], "--docs", out[2]])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([read(p) for p in out], first)
        self.assertEqual([os.stat(p).st_mtime for p in out], [1000, 1000, 1000])

    def test_check_docs_names_the_refresh_command(self):
        committed = os.path.join(self.tmp, "isa.md")
        r = run(["--isa", ISA, "--docs", committed])
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run(["--isa", ISA, "--check-docs", committed])
        self.assertEqual(r.returncode, 0, r.stdout)
        with open(committed, "a") as f:
            f.write("hand edit\n")
        r = run(["--isa", ISA, "--check-docs", committed])
        self.assertEqual(r.returncode, 1)
        self.assertIn("+++ generated", r.stdout)
        self.assertIn("is stale", r.stdout)
        self.assertIn("python3 scripts/gen_isa.py --docs docs/isa.md", r.stdout)


if __name__ == "__main__":
    GEN, ISA = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
