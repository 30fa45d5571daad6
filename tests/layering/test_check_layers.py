#!/usr/bin/env python3
"""The layering check on small trees: it passes a tree whose includes go down the layers and
fails, naming the file and the layers, each kind of include that goes up or names nothing."""
# check_references: made-up paths (the fixtures below are small trees of their own)
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tree_checker_testing import run_checker  # noqa: E402

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layers.py")


def run(files):
    return run_checker(CHECK, files)


CLEAN = {
    "host_driver/golden/tensor.h": "#include <vector>\n",
    "host_driver/compiler/lower.h": '#include "golden/tensor.h"\n#include "isa/isa_gen.h"\n',
    "host_driver/runtime/run.cpp": '#include "compiler/lower.h"\n#include "runtime/run.h"\n',
    "host_driver/runtime/run.h": "",
    "host_driver/cli/cmd.cpp": '#include "runtime/run.h"\n#include "local.h"\n',
    "host_driver/cli/local.h": "",
    "host_driver/cli/tpu_main.cpp": '#include "sc_models/sys.h"\n#include "tb/x.h"\n',
    "sc_models/sys.h": '#include "device/bus.h"\n',
    "host_driver/device/bus.h": "",
    "testbench/top/top_model.cpp.in": '#include "Vtpu_top_@K@.h"\n#include "sc_models/sys.h"\n',
}


class CheckLayers(unittest.TestCase):
    def test_clean_tree_passes(self):
        status, out = run(CLEAN)
        self.assertEqual(status, 0, out)
        self.assertIn("every include goes down the layers", out)

    def expect_failure(self, extra, *words):
        status, out = run({**CLEAN, **extra})
        self.assertEqual(status, 1, out)
        for w in words:
            self.assertIn(w, out)

    def test_network_including_cli_fails(self):
        self.expect_failure({"host_driver/network/net.cpp": '#include "cli/local.h"\n'},
                            "host_driver/network/net.cpp", "may not include host_driver/cli")

    def test_driver_including_sc_models_fails(self):
        self.expect_failure({"host_driver/runtime/bad.cpp": '#include "sc_models/sys.h"\n'},
                            "host_driver/runtime may not include sc_models")

    def test_sc_models_including_testbench_fails(self):
        self.expect_failure({"sc_models/bad.h": '#include "top/top_model.h"\n',
                             "testbench/top/top_model.h": ""},
                            "sc_models may not include testbench")

    def test_sc_models_including_runtime_fails(self):
        self.expect_failure({"sc_models/bad.h": '#include "runtime/run.h"\n'},
                            "sc_models may not include host_driver/runtime")

    def test_unresolved_include_fails(self):
        self.expect_failure({"host_driver/compiler/x.cpp": '#include "nowhere/x.h"\n'},
                            '"nowhere/x.h" names no file')

    def test_file_outside_layers_fails(self):
        self.expect_failure({"host_driver/newlib/x.cpp": ""}, "in no layer")


if __name__ == "__main__":
    unittest.main()
