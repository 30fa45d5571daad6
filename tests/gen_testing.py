"""What the tests of the generators share (tests/isa/test_gen_isa.py, tests/regs/
test_gen_regs.py, tests/devices/test_gen_devices.py): a temporary folder with a copy of the
description to break, running the generator, the check that a broken description is rejected
before anything is written, and the tests every generator passes (outputs deterministic and
rewritten only when they change, --check-docs naming the refresh command).

A test module puts its folder's parent on sys.path, imports GeneratorTests, and mixes it into
its unittest.TestCase, setting the class attributes below from its command line.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

# Output option -> file name ending.
ENDINGS = {"sv": ".sv", "cmake": ".cmake", "cxx": ".h", "docs": ".md"}


def read(path):
    with open(path) as f:
        return f.read()


class GeneratorTests:
    gen = None           # path of the generator
    desc_path = None     # path of the committed description
    desc_option = None   # its option, e.g. "--regs"
    base_args = []       # arguments of every run, e.g. ["--isa", <isa.json>]
    outputs = ("sv", "cxx", "docs")
    refresh = None       # what --check-docs prints to refresh the docs
    copy_folder = False  # copy the description's whole folder (it includes other files)

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        if self.copy_folder:
            src = os.path.dirname(self.desc_path)
            shutil.copytree(src, os.path.join(self.tmp, os.path.basename(src)))
            self.json_path = os.path.join(self.tmp, os.path.basename(src),
                                          os.path.basename(self.desc_path))
        else:
            self.json_path = os.path.join(self.tmp, os.path.basename(self.desc_path))
        with open(self.desc_path) as f:
            self.desc = json.load(f)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_gen(self, args, desc=None):
        """Runs the generator on `desc` (a path; the committed description by default)."""
        return subprocess.run([sys.executable, self.gen] + self.base_args +
                              [self.desc_option, desc or self.desc_path] + args,
                              capture_output=True, text=True)

    def output_args(self, stem, outputs=None):
        """(arguments, paths) writing every output (or `outputs`) to <tmp>/<stem>.<ending>."""
        paths = [os.path.join(self.tmp, stem + ENDINGS[o]) for o in outputs or self.outputs]
        args = []
        for o, p in zip(outputs or self.outputs, paths):
            args += ["--" + o, p]
        return args, paths

    def expect_rejected(self, desc, fragment):
        """`desc` (a broken copy of self.desc) exits with status 2, names `fragment`, writes
        nothing."""
        with open(self.json_path, "w") as f:
            json.dump(desc, f)
        args, outs = self.output_args("x")
        r = self.run_gen(args, self.json_path)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(fragment, r.stderr)
        self.assertTrue(r.stderr.startswith(os.path.basename(self.gen) + ": "), r.stderr)
        for p in outs:
            self.assertFalse(os.path.exists(p), p)

    def test_outputs_are_deterministic_and_rewritten_only_on_change(self):
        args, out = self.output_args("a")
        r = self.run_gen(args)
        self.assertEqual(r.returncode, 0, r.stderr)
        first = [read(p) for p in out]
        for p in out:
            os.utime(p, (1000, 1000))
        r = self.run_gen(args)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([read(p) for p in out], first)
        self.assertEqual([os.stat(p).st_mtime for p in out], [1000] * len(out))

    def test_check_docs_names_the_refresh_command(self):
        committed = os.path.join(self.tmp, "committed.md")
        r = self.run_gen(["--docs", committed])
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.run_gen(["--check-docs", committed])
        self.assertEqual(r.returncode, 0, r.stdout)
        with open(committed, "a") as f:
            f.write("hand edit\n")
        r = self.run_gen(["--check-docs", committed])
        self.assertEqual(r.returncode, 1)
        self.assertIn("+++ generated", r.stdout)
        self.assertIn("is stale", r.stdout)
        self.assertIn(self.refresh, r.stdout)
