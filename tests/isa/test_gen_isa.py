#!/usr/bin/env python3
"""Tests of scripts/gen_isa.py (ctest isa.gen_isa_checks): broken descriptions are rejected with
a message naming the problem, outputs are deterministic and rewritten only when they change,
and --check-docs fails on stale docs naming the refresh command.

  test_gen_isa.py <path to gen_isa.py> <path to isa.json>
"""

import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gen_testing import GeneratorTests  # noqa: E402


class GenIsaTest(GeneratorTests, unittest.TestCase):
    desc_option = "--isa"
    refresh = "python3 scripts/gen_isa.py --docs docs/isa.md"
    copy_folder = True  # the description and the prose it includes

    def instr(self, desc, name):
        return [i for i in desc["instructions"] if i["name"] == name][0]

    def field(self, instr, name):
        return [f for f in instr["fields"] if isinstance(f, dict) and f["name"] == name][0]

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


if __name__ == "__main__":
    GenIsaTest.gen, GenIsaTest.desc_path = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
