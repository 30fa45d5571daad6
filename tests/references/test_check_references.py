#!/usr/bin/env python3
"""The reference check on small trees: a tree whose citations all exist passes; a cited file,
folder or document that is not there fails, naming the citing file and the citation."""
# check_references: made-up paths (the fixtures below are small trees of their own)
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tree_checker_testing import run_checker  # noqa: E402

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_references.py")

CLEAN = {
    "docs/driver.md": "The bus (`host_driver/device/device_bus.h`), see cli.md and rtl/prim/.\n",
    "docs/cli.md": "Built as build/host_driver/cli/tpu; header isa/isa_gen.h.\n",
    "host_driver/device/device_bus.h": '#include "isa/isa.h"  // docs/driver.md\n',
    "host_driver/isa/isa.h": "",
    "rtl/prim/tpu_fifo.sv": "// generic FIFO\n",
    "isa/doc/deps.md": "@@include examples/a.tasm\n",
    "isa/examples/a.tasm": "HALT\n",
    "scripts/gen.py": "# writes OUT.md\n",
}


def run(files):
    return run_checker(CHECK, files)


class CheckReferences(unittest.TestCase):
    def test_clean_tree_passes(self):
        status, out = run(CLEAN)
        self.assertEqual(status, 0, out)

    def expect_failure(self, extra, *words):
        status, out = run({**CLEAN, **extra})
        self.assertEqual(status, 1, out)
        for w in words:
            self.assertIn(w, out)

    def test_moved_file_fails(self):
        self.expect_failure({"docs/system.md": "See testbench/system/tpu_system.h.\n"},
                            "docs/system.md: cites testbench/system/tpu_system.h")

    def test_missing_folder_fails(self):
        self.expect_failure({"sc_models/x.h": "// plain C++ in sc_models/base/\n"},
                            "cites sc_models/base/")

    def test_document_outside_the_repository_fails(self):
        self.expect_failure({"sc_models/y.h": "// The system model (NOTES.md section 4)\n"},
                            "sc_models/y.h: cites NOTES.md")


if __name__ == "__main__":
    unittest.main()
