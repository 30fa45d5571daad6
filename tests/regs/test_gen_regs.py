#!/usr/bin/env python3
"""Tests of scripts/gen_regs.py (ctest regs.gen_regs_checks): broken register descriptions are
rejected with a message naming the register, field and problem, before any output is written;
outputs are deterministic and rewritten only when they change; --check-docs fails on stale
docs naming the refresh command.

  test_gen_regs.py <path to gen_regs.py> <path to regs.json> <path to isa.json>
"""

import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gen_testing import GeneratorTests, read  # noqa: E402


class GenRegsTest(GeneratorTests, unittest.TestCase):
    desc_option = "--regs"
    refresh = "python3 scripts/gen_regs.py --docs docs/registers.md"

    def reg(self, desc, name):
        return [r for r in desc["registers"] if r["name"] == name][0]

    def field(self, reg, name):
        return [f for f in reg["fields"] if f["name"] == name][0]

    def test_overlapping_fields(self):
        d = copy.deepcopy(self.desc)
        self.field(self.reg(d, "CONTROL"), "irq_enable")["bits"] = "1:0"
        self.expect_rejected(d, "CONTROL: field irq_enable overlaps field soft_reset at bit 0")

    def test_overlapping_fields_in_an_array_register(self):
        d = copy.deepcopy(self.desc)
        d["arrays"][0]["registers"][0]["fields"].append(
            {"name": "low", "bits": "3:0", "doc": ""})
        self.expect_rejected(d, "PERF_i_LO: field low overlaps field value at bit 0")

    def test_offset_not_dw_aligned(self):
        d = copy.deepcopy(self.desc)
        self.reg(d, "RING_TAIL")["offset"] = "0x092"
        self.expect_rejected(d, "RING_TAIL: offset 0x092 is not DW aligned (a multiple of 4)")

    def test_array_stride_not_dw_aligned(self):
        d = copy.deepcopy(self.desc)
        d["arrays"][0]["stride"] = 6
        self.expect_rejected(d, "PERF: stride 6 is not a positive multiple of 4 bytes")

    def test_duplicate_register_names(self):
        d = copy.deepcopy(self.desc)
        self.reg(d, "RING_TAIL")["name"] = "RING_HEAD"
        self.expect_rejected(d, "duplicate register name RING_HEAD")

    def test_duplicate_field_names(self):
        d = copy.deepcopy(self.desc)
        self.field(self.reg(d, "STATUS"), "dma_busy")["name"] = "done"
        self.expect_rejected(d, "STATUS: duplicate field name done")

    def test_duplicate_array_element_names(self):
        d = copy.deepcopy(self.desc)
        d["arrays"][0]["elements"][3]["name"] = "cycles"
        self.expect_rejected(d, "PERF: duplicate element names")

    # ---- further checks ----
    def test_two_registers_at_one_offset(self):
        d = copy.deepcopy(self.desc)
        self.reg(d, "RING_TAIL")["offset"] = "0x08C"
        self.expect_rejected(d, "RING_HEAD and RING_TAIL: both at offset 0x08c")

    def test_register_on_an_array_element(self):
        d = copy.deepcopy(self.desc)
        self.reg(d, "RING_TAIL")["offset"] = "0x10C"
        self.expect_rejected(d, "both at offset 0x10c")

    def test_offset_outside_the_bar(self):
        d = copy.deepcopy(self.desc)
        self.reg(d, "RING_TAIL")["offset"] = "0x1000"
        self.expect_rejected(d, "RING_TAIL: offset 0x1000 outside the 4096-byte BAR")

    def test_field_outside_the_register(self):
        d = copy.deepcopy(self.desc)
        self.field(self.reg(d, "RING_SIZE"), "slots")["bits"] = "32:0"
        self.expect_rejected(d, "RING_SIZE.slots: bits [32:0] outside the 32-bit register")

    def test_malformed_bits(self):
        d = copy.deepcopy(self.desc)
        self.field(self.reg(d, "RING_SIZE"), "slots")["bits"] = "0:16"
        self.expect_rejected(d, "RING_SIZE.slots: bits [0:16] have msb below lsb")

    def test_reset_in_reserved_bits(self):
        d = copy.deepcopy(self.desc)
        self.reg(d, "MSI_ADDR_LO")["reset"] = "0x00000001"
        self.expect_rejected(d, "MSI_ADDR_LO: reset 0x00000001 sets reserved bits 0x1")

    def test_pulse_field_reads_zero(self):
        d = copy.deepcopy(self.desc)
        self.reg(d, "CONTROL")["reset"] = "0x00000001"
        self.expect_rejected(d, "CONTROL: W1P field soft_reset reads 0, its reset must be 0")

    def test_parameter_reset_needs_a_param_per_field(self):
        d = copy.deepcopy(self.desc)
        del self.field(self.reg(d, "VERSION"), "hw_version")["param"]
        self.expect_rejected(d, "VERSION: reset is \"parameter\" but field hw_version names no param")

    def test_unknown_parameter(self):
        d = copy.deepcopy(self.desc)
        self.field(self.reg(d, "CAP_N"), "n")["param"] = "M"
        self.expect_rejected(d, "CAP_N.n: unknown parameter 'M'")

    def test_parameter_bits_match_the_field(self):
        # A 64-bit parameter is read in 32-bit halves: Name[msb:lsb] must be the field's width.
        d = copy.deepcopy(self.desc)
        self.field(self.reg(d, "CAP_DRAM_BYTES_HI"), "bytes")["param"] = "DramBytes[63:33]"
        self.expect_rejected(d, "CAP_DRAM_BYTES_HI.bytes: parameter bits DramBytes[63:33] do not "
                                "match the field's 32 bits")
        self.field(self.reg(d, "CAP_DRAM_BYTES_HI"), "bytes")["param"] = "Dram[63:32]"
        self.expect_rejected(d, "CAP_DRAM_BYTES_HI.bytes: unknown parameter 'Dram[63:32]'")

    def test_writable_field_in_a_read_only_register(self):
        d = copy.deepcopy(self.desc)
        self.field(self.reg(d, "STATUS"), "done")["access"] = "RW"
        self.expect_rejected(d, "STATUS.done: RW field in an RO register")

    def test_unknown_access(self):
        d = copy.deepcopy(self.desc)
        self.reg(d, "IRQ_MASK")["access"] = "WO"
        self.expect_rejected(d, "IRQ_MASK: unknown access 'WO'")

    def test_error_code_clashing_with_the_isa(self):
        d = copy.deepcopy(self.desc)
        d["errors"][0]["value"] = 19
        self.expect_rejected(
            d, "error RING_FETCH_ERROR: value 0x13 is already the instruction set's DMA_ERROR")

    def test_error_code_that_does_not_fit(self):
        d = copy.deepcopy(self.desc)
        d["errors"][0]["value"] = 256
        self.expect_rejected(d, "error RING_FETCH_ERROR: value 256 outside 1..255")

    def test_generated_names_that_collide(self):
        d = copy.deepcopy(self.desc)
        # RING.size_slots and RING_SIZE.slots both give RingSizeSlotsLsb.
        d["registers"].append({"name": "RING", "offset": "0x094", "access": "RW",
                               "reset": 0, "fields": [{"name": "size_slots", "bits": "0"}]})
        self.expect_rejected(
            d, "generated SystemVerilog name RingSizeSlotsLsb is used by both RING_SIZE and RING")

    def test_missing_key(self):
        d = copy.deepcopy(self.desc)
        del self.reg(d, "RING_TAIL")["access"]
        self.expect_rejected(d, "missing key 'access'")

    # ---- outputs ----
    def test_sv_lines_fit_100_columns(self):
        out = os.path.join(self.tmp, "a.sv")
        r = self.run_gen(["--sv", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        for n, line in enumerate(read(out).splitlines(), 1):
            self.assertLessEqual(len(line), 100, "line %d: %s" % (n, line))


if __name__ == "__main__":
    GenRegsTest.gen, GenRegsTest.desc_path = sys.argv[1], sys.argv[2]
    GenRegsTest.base_args = ["--isa", sys.argv[3]]
    unittest.main(argv=sys.argv[:1], verbosity=2)
