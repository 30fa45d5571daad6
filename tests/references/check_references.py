#!/usr/bin/env python3
"""Checks that every repository path the code and the docs cite names a file or folder of the
repository, so that the docs stand alone and a move cannot leave a stale reference behind.

A reference is a word that starts with one of the repository's top-level folders (rtl/,
sc_models/, testbench/, host_driver/, tests/, ...) and either has a file extension
(`sc_models/pcie/tlp.h`) or ends in a slash (`rtl/prim/`). It is resolved from the repository
root, then from host_driver/ and testbench/ (the include directories: "isa/isa.h"), then from
the citing file's own top-level folder (isa/doc/ cites isa/examples/ as examples/). A
document cited by its name alone (`driver.md`) must be the name of one of the repository's
Markdown files (outside Python scripts, which name files they write). Headers
generated into the build tree (*_gen.h) and paths under build/ are not checked, nor files that
carry the marker line SKIP_MARKER below (tests whose fixtures are made-up trees).

Usage: check_references.py [--root DIR] [FILE...]   exit 1 listing each reference that
resolves nowhere.
"""
import argparse
import os
import re
import subprocess
import sys

TOPS = ("rtl", "sc_models", "testbench", "host_driver", "tests", "waveforms", "bench", "docs",
        "examples", "scripts", "isa", "regs", "cmake", "fpga")
CHECKED = (".md", ".h", ".cpp", ".sv", ".svh", ".py", ".txt", ".cmake", ".sh", ".in", ".gtkw",
           "Makefile")
SKIP_MARKER = "check_references: made-up paths"
# A document cited by its name alone ("see NOTES.md", "driver.md"): some file of the
# repository must have that name.
DOC_NAME = re.compile(r"(?<![\w./-])([A-Za-z][\w-]*\.md)\b")
REFERENCE = re.compile(r"(?<![\w./@$-])((?:%s)/[\w./-]*)" % "|".join(TOPS))


def repository_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                          "--exclude-standard"], capture_output=True, text=True, check=False)
    if out.returncode != 0:  # not a git checkout: every file
        return [os.path.relpath(os.path.join(d, n), root)
                for d, _, names in os.walk(root) for n in names]
    return out.stdout.split()


def references(text):
    for m in REFERENCE.finditer(text):
        ref = m.group(1).rstrip(".")
        name = os.path.basename(ref.rstrip("/"))
        if ref.endswith("/") or re.search(r"\.\w+$", name):
            yield ref


def resolves(root, citing, ref):
    if ref.endswith("_gen.h"):
        return True
    own_top = citing.split("/", 1)[0]  # isa/doc/x.md may cite examples/ of isa/
    return any(os.path.exists(os.path.join(root, base, ref))
               for base in ("", "host_driver", "testbench", own_top))


def check(root, files):
    problems = []
    doc_names = {os.path.basename(f) for f in files if f.endswith(".md")}
    for f in files:
        if not f.endswith(CHECKED) or not os.path.isfile(os.path.join(root, f)):
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        if SKIP_MARKER in text:
            continue
        for ref in sorted(set(references(text))):
            if not resolves(root, f, ref):
                problems.append(f"{f}: cites {ref}, which is not in the repository")
        # Scripts name the documents they write (OUT.md): only prose and code comments count.
        for name in sorted(set(DOC_NAME.findall(text)) if not f.endswith(".py") else ()):
            if name not in doc_names:
                problems.append(f"{f}: cites {name}, which is not a document of the repository")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("files", nargs="*", help="files to read (default: the repository's)")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    files = args.files or repository_files(root)
    problems = check(root, files)
    for p in problems:
        print(p)
    if problems:
        print(f"check_references: {len(problems)} stale reference(s): cite the file where it "
              "is now", file=sys.stderr)
        return 1
    print(f"check_references: every repository path cited in {len(files)} files exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
