"""What the tests of the tree checkers share (tests/layering/test_check_layers.py,
tests/references/test_check_references.py): a checker run on a small made-up tree.

A test module puts its folder's parent on sys.path and imports run_checker.
"""

import os
import subprocess
import sys
import tempfile


def run_checker(checker, files):
    """Writes `files` (path -> text) into a temporary repository, runs `checker --root` on it
    and returns its exit status and its stdout + stderr."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        p = subprocess.run([sys.executable, checker, "--root", root], capture_output=True,
                           text=True, check=False)
        return p.returncode, p.stdout + p.stderr
