"""Helpers shared by the generators that turn one machine-readable description into
SystemVerilog, C++, CMake and Markdown (scripts/gen_isa.py, gen_regs.py, gen_devices.py;
python3 standard library only).

  - errors: DescriptionError, fail() (a broken description; the generator exits with status 2);
  - names and numbers: camel(), kname(), number(), cstr(), bits_text();
  - Markdown: md_escape(), md_table_head();
  - comments: wrap_comment(), w_commented() (100 columns);
  - file banners: sv_package_open() / sv_package_close(), cxx_header_open() /
    cxx_header_close(), md_header() ("Generated from ... Do not edit.");
  - command line and outputs: argument_parser(), add_output_args(), read_json(), generator_main(),
    generate(), write_outputs(), write_if_changed(), check_docs()
    (the --check-docs staleness check of a committed Markdown file).

A generator imports it from its own folder (`from gen_common import ...`); CMake lists this file
in the DEPENDS of every custom command that runs a generator, so editing it regenerates.
"""

import argparse
import difflib
import json
import os
import sys

GEN_COMMON = os.path.abspath(__file__)


# -------------------------------------------------------------------------------------------
# Errors
# -------------------------------------------------------------------------------------------
class DescriptionError(Exception):
    pass


def fail(msg):
    raise DescriptionError(msg)


# -------------------------------------------------------------------------------------------
# Names and numbers
# -------------------------------------------------------------------------------------------
def camel(name):
    """READ_HOST -> ReadHost, acc_mode -> AccMode, t0 -> T0."""
    return "".join(p[:1].upper() + p[1:].lower() for p in name.split("_") if p)


def kname(name):
    """READ_HOST -> kReadHost (a C++ constant or enumerator)."""
    return "k" + camel(name)


def number(value, where, what):
    """An int, or a string in C syntax ("0x40", "64")."""
    if isinstance(value, bool):
        fail("%s: %s %r is not a number" % (where, what, value))
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value, 0)
        except ValueError:
            pass
    fail("%s: %s %r is not a number" % (where, what, value))


def cstr(s):
    """A C/C++ string literal."""
    return json.dumps(s)


def md_escape(s):
    """Text for a Markdown table cell."""
    return s.replace("|", "\\|")


def md_table_head(w, *columns):
    """The head of a Markdown table: the column names and the separator row."""
    w("| %s |" % " | ".join(columns))
    w("|" + " --- |" * len(columns))


def bits_text(lo, hi):
    """[3] or [7:4]."""
    return "[%d]" % lo if lo == hi else "[%d:%d]" % (hi, lo)


# -------------------------------------------------------------------------------------------
# Comments
# -------------------------------------------------------------------------------------------
def wrap_comment(text, prefix, width=100):
    """`text` as comment lines starting with `prefix`, none longer than `width`."""
    lines, line = [], prefix
    for word in text.split():
        if len(line) + len(word) + 1 > width and line != prefix:
            lines.append(line.rstrip())
            line = prefix
        line += word + " "
    lines.append(line.rstrip())
    return lines


def w_commented(w, code, doc):
    """`code  // doc` if it fits in 100 columns, else the comment on the lines above."""
    if not doc:
        w(code)
        return
    if len(code) + 4 + len(doc) <= 100:
        w("%s  // %s" % (code, doc))
        return
    indent = code[:len(code) - len(code.lstrip())]
    for line in wrap_comment(doc, indent + "// "):
        w(line)
    w(code)


# -------------------------------------------------------------------------------------------
# File banners. `origin` is what the file is generated from and by, e.g.
# "isa/isa.json by scripts/gen_isa.py"; `doc` the comment lines (with their "// ") below it.
# -------------------------------------------------------------------------------------------
def sv_package_open(w, origin, doc, package):
    """The head of a SystemVerilog package of constants, Verilator's UNUSEDPARAM waived."""
    w("// Generated from %s. Do not edit." % origin)
    w("//")
    for line in doc:
        w(line)
    w("//")
    w("// Waiver: every user takes a few of these constants, and Verilator -Wall reports each unused")
    w("// package parameter as soon as a module body names the package; lint_on restores it below.")
    w("/* verilator lint_off UNUSEDPARAM */")
    w("package %s;" % package)
    w("")


def sv_package_close(w):
    w("endpackage")
    w("/* verilator lint_on UNUSEDPARAM */")


def cxx_header_open(w, origin, doc, guard, includes, namespace):
    """The head of a generated C++ header: banner, include guard, <includes>, namespace."""
    w("// Generated from %s. Do not edit." % origin)
    w("//")
    for line in doc:
        w(line)
    w("#ifndef %s" % guard)
    w("#define %s" % guard)
    w("")
    for inc in includes:
        w("#include <%s>" % inc)
    w("")
    w("namespace %s {" % namespace)
    w("")


def cxx_header_close(w, namespace, guard):
    w("}  // namespace %s" % namespace)
    w("")
    w("#endif  // %s" % guard)


def md_header(w, title, origin, refresh_command):
    """The head of a generated Markdown file: title and the do-not-edit note."""
    w("# %s" % title)
    w("")
    w("<!-- Generated from %s. Do not edit: -->" % origin)
    w("<!-- change the description and run: %s -->" % refresh_command)
    w("")


# -------------------------------------------------------------------------------------------
# Outputs
# -------------------------------------------------------------------------------------------
def argument_parser(doc, inputs, sv=True, cmake=False):
    """The command line of a generator: its description (the first paragraph of `doc`), one
    option per input description, `inputs` [(option, path from the repository root, help)],
    defaulting to the file in this checkout, and the output options (add_output_args)."""
    root = os.path.join(os.path.dirname(GEN_COMMON), "..")
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    for opt, rel, help_text in inputs:
        p.add_argument("--" + opt, default=os.path.join(root, *rel.split("/")), help=help_text)
    add_output_args(p, sv, cmake)
    return p


def add_output_args(p, sv=True, cmake=False):
    """The output options every generator takes: [--sv] [--cmake] --cxx --docs --check-docs."""
    if sv:
        p.add_argument("--sv", help="write the SystemVerilog package here")
    if cmake:
        p.add_argument("--cmake", help="write the CMake variables here")
    p.add_argument("--cxx", help="write the C++ header here")
    p.add_argument("--docs", help="write the Markdown documentation here")
    p.add_argument("--check-docs", metavar="COMMITTED",
                   help="fail unless the generated docs equal this file")


def read_json(prog, path):
    """The JSON document at `path`; None, after printing why, if it cannot be read."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("%s: %s: %s" % (prog, path, e), file=sys.stderr)
        return None


def generator_main(argv, doc, prog, inputs, model, outputs, source, refresh_command, sv=True,
                   cmake=False):
    """The main() of a generator. `inputs` [(option, path from the repository root, help)] are
    JSON files, the description first (see argument_parser()); `model(path, description,
    *other inputs)` checks the description and builds its model (raising DescriptionError);
    `outputs` {option: function(model) returning text} (options among sv, cmake, cxx, docs, see
    generate()). Returns the exit status: 2, after a message naming the file and the problem,
    when an input cannot be read or the description is broken (nothing is written then); else
    that of write_outputs(): 1 for stale --check-docs, 0."""
    args = argument_parser(doc, inputs, sv, cmake).parse_args(argv)
    paths = [getattr(args, opt) for opt, _, _ in inputs]
    texts = [read_json(prog, path) for path in paths]
    if any(t is None for t in texts):
        return 2
    try:
        m = model(paths[0], *texts)
        files, docs = generate(args, {opt: (lambda f=f: f(m)) for opt, f in outputs.items()})
    except (DescriptionError, KeyError, ValueError, TypeError, OSError) as e:
        msg = ("missing key %s" % e) if isinstance(e, KeyError) else str(e)
        print("%s: %s: %s" % (prog, paths[0], msg), file=sys.stderr)
        return 2
    return write_outputs(args, files, docs, source, refresh_command)


def generate(args, gens):
    """Runs the generators `gens` ({option: function returning text}, options among sv, cmake,
    cxx, docs) that the parsed `args` ask for, before anything is written. Returns
    ({path: text}, docs text or None); docs are generated for --docs or --check-docs."""
    texts = {}
    for opt, gen in gens.items():
        if opt != "docs" and getattr(args, opt, None):
            texts[getattr(args, opt)] = gen()
    docs = gens["docs"]() if (args.docs or args.check_docs) else None
    return texts, docs


def write_outputs(args, texts, docs, source, refresh_command):
    """Writes what generate() returned and runs --check-docs: the exit status (0, or 1 when the
    committed docs are stale)."""
    for path, text in texts.items():
        write_if_changed(path, text)
    if args.docs:
        write_if_changed(args.docs, docs)
    if args.check_docs:
        return check_docs(args.check_docs, docs, source, refresh_command)
    return 0


def write_if_changed(path, text):
    """Writes `text` to `path` (creating its folder) unless the file holds it already."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def check_docs(committed_path, docs, source, refresh_command):
    """0 if the committed file equals the generated `docs`; else prints the first differing
    lines and the command that refreshes it and returns 1. `source` names the description."""
    try:
        with open(committed_path) as f:
            committed = f.read()
    except FileNotFoundError:
        committed = ""
    if committed == docs:
        return 0
    diff = list(difflib.unified_diff(committed.splitlines(), docs.splitlines(),
                                     committed_path, "generated", lineterm="", n=1))
    print("\n".join(diff[:40]))
    if len(diff) > 40:
        print("... (%d more diff lines)" % (len(diff) - 40))
    print("%s is stale: it differs from what %s generates.\n"
          "Refresh it from the source tree with:\n  %s" % (committed_path, source,
                                                          refresh_command))
    return 1
