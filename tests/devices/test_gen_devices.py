#!/usr/bin/env python3
"""Tests of scripts/gen_devices.py (ctest devices.gen_devices_checks): broken lists are rejected
with a message naming the device and the field, outputs are deterministic and rewritten only
when they change, the CMake file holds every field, and --check-docs fails on stale docs naming
the refresh command.

  test_gen_devices.py <path to gen_devices.py> <path to devices.json> <path to isa.json>
"""

import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gen_testing import GeneratorTests, read  # noqa: E402


class GenDevicesTest(GeneratorTests, unittest.TestCase):
    desc_option = "--devices"
    outputs = ("cmake", "cxx", "docs")
    refresh = "python3 scripts/gen_devices.py --docs docs/devices.md"

    def dev(self, desc, name):
        return [d for d in desc["devices"] if d["name"] == name][0]

    # ---- broken lists ----
    def test_missing_field(self):
        d = copy.deepcopy(self.desc)
        del self.dev(d, "n16")["dma_tags"]
        self.expect_rejected(d, "n16: missing field 'dma_tags'")

    def test_unknown_field(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["dma_tag"] = 32
        self.expect_rejected(d, "n16: unknown field 'dma_tag'")

    def test_missing_limit(self):
        d = copy.deepcopy(self.desc)
        del self.dev(d, "n16_small")["limits"]["ub_rows"]
        self.expect_rejected(d, "n16_small: missing field 'limits.ub_rows'")

    def test_unknown_limit(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16_small")["limits"]["ub_bytes"] = 1
        self.expect_rejected(d, "n16_small: unknown field 'limits.ub_bytes'")

    def test_limit_outside_the_isa_range(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["limits"]["param_sets"] = 65
        self.expect_rejected(d, "n16: field 'limits.param_sets' 65 outside 1..64")

    def test_limit_failing_the_isa_check(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["limits"]["acc_rows"] = 1023
        self.expect_rejected(d, "n16: field 'limits.acc_rows' fails isa/isa.json's check")

    def test_not_an_integer(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["timeout"] = "65536"
        self.expect_rejected(d, "n16: field 'timeout' '65536' is not an integer")

    def test_payload_not_a_power_of_two(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["max_payload"] = 384
        self.expect_rejected(d, "n16: field 'max_payload' 384 must be a power of two")

    def test_timeout_below_twice_the_tags(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["timeout"] = 63
        self.expect_rejected(d, "n16: field 'timeout' 63 must be at least 2 * dma_tags (64)")

    def test_dram_width_not_dividing_a_tile(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["dram_width_bits"] = 96
        self.expect_rejected(d, "n16: field 'dram_width_bits' 96 must divide a tile")

    def test_tlp_width_not_a_stream_width(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["tlp_width_bits"] = 192
        self.expect_rejected(d, "n16: field 'tlp_width_bits' 192 must be 128, 256 or 512")

    def test_tlp_width_beat_above_the_payload(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["max_payload"] = 32
        self.dev(d, "n16")["tlp_width_bits"] = 512
        self.expect_rejected(d, "n16: field 'tlp_width_bits' 512 must be at most 8 * "
                                "max_payload and 8 * max_read_request")

    def test_bad_clock(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["clock_mhz"] = 0
        self.expect_rejected(d, "n16: field 'clock_mhz' 0 is not a positive number")

    def test_bad_name(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["name"] = "N16"
        self.expect_rejected(d, "N16: field 'name' must be lower_snake_case")

    def test_duplicate_name(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16_small")["name"] = "n16"
        self.expect_rejected(d, "n16: field 'name' is used twice")

    def test_duplicate_index(self):
        d = copy.deepcopy(self.desc)
        self.dev(d, "n16")["index"] = 0
        self.expect_rejected(d, "n16: field 'index' 0 is already n16_small's")

    def test_unknown_default(self):
        d = copy.deepcopy(self.desc)
        d["default"] = "n7"
        self.expect_rejected(d, "field 'default': 'n7' is not a device")

    def test_undocumented_field(self):
        d = copy.deepcopy(self.desc)
        del d["fields"]["ring_slots"]
        self.expect_rejected(d, "fields: field 'ring_slots' is not documented")

    def test_not_json(self):
        with open(self.json_path, "w") as f:
            f.write("{")
        r = self.run_gen(["--cmake", os.path.join(self.tmp, "x.cmake")], self.json_path)
        self.assertEqual(r.returncode, 2)
        self.assertIn("devices.json", r.stderr)

    # ---- outputs ----
    def test_cmake_holds_every_device_and_field(self):
        out = os.path.join(self.tmp, "d.cmake")
        r = self.run_gen(["--cmake", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        text = read(out)
        names = [d["name"] for d in sorted(self.desc["devices"], key=lambda d: d["index"])]
        self.assertIn("set(TPU_DEVICES %s)\n" % " ".join(names), text)
        self.assertIn("set(TPU_DEFAULT_DEVICE %s)\n" % self.desc["default"], text)
        for dev in self.desc["devices"]:
            self.assertIn("set(TPU_DEVICE_%s_INDEX %d)\n" % (dev["name"], dev["index"]), text)
            for k, v in dev["limits"].items():
                self.assertIn("set(TPU_DEVICE_%s_%s %d)\n" % (dev["name"], k.upper(), v), text)
            for k in ("dram_width_bits", "max_payload", "max_read_request", "dma_tags",
                      "timeout", "ring_slots", "tlp_width_bits"):
                self.assertIn("set(TPU_DEVICE_%s_%s %d)\n" % (dev["name"], k.upper(), dev[k]),
                              text)

    def test_header_lines_fit_100_columns(self):
        out = os.path.join(self.tmp, "a.h")
        r = self.run_gen(["--cxx", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        for n, line in enumerate(read(out).splitlines(), 1):
            self.assertLessEqual(len(line), 100, "line %d: %s" % (n, line))


if __name__ == "__main__":
    GenDevicesTest.gen, GenDevicesTest.desc_path = sys.argv[1], sys.argv[2]
    GenDevicesTest.base_args = ["--isa", sys.argv[3]]
    unittest.main(argv=sys.argv[:1], verbosity=2)
