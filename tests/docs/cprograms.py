"""Compiles every C code block of README.md and docs/ and runs the complete
programs, comparing what they print with what the page says they print.

- A block with a `main` function is a complete program. It is compiled with
  `-std=c11 -Wall -Wextra -Werror` against the build tree (the public headers
  under include/ and the library in the build directory) and, when a prefix
  is given, against that installed prefix through pkg-config, then run from
  the source tree. Its shown output is the text after the block: the inline
  code spans of the next paragraph when it says the program "prints" them
  (`It prints \\`a\\`, \\`b\\``: one line each), or else the next fenced block
  when the paragraph before it says "prints" or "Output".
- A block of declarations (typedefs, structs, enums, prototypes) shows part
  of a header: it must appear, token for token, in the public headers, or in
  the internal header it names, one declaration at a time.
- A block that includes an internal header ("rules_private.h") is compiled
  as a translation unit against the internal include directories.
- Any other block is a fragment: it is compiled inside a function that has
  the names the pages use for a context and expressions (`ctx`, `e`, `x`, ...),
  so that it at least type-checks.
- A block preceded by `<!-- file: NAME -->` is written to a file for the
  shell session that follows it (see doctest.py) and is not compiled here.

With --install the build is installed into a scratch DESTDIR first
(`meson install --destdir`) and every program is also built against that
prefix through pkg-config, and against its static library alone
(libsymshape.a; GMP, cJSON and protobuf-c stay shared).

--cflags FLAGS adds compiler and linker flags to every build of a program
(the sanitizers of a sanitized library, say).

Usage: python3 cprograms.py BUILD_DIR [--install | --prefix DESTDIR] [--cflags FLAGS] [FILE...]
Prints one line per failure and "N passed, M failed" last.
"""

import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CC = os.environ.get("CC") or "cc"
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror"]
FENCE = re.compile(r"^\s*```")
FILE_MARK = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->$")

# What a fragment may assume is in scope, named as the pages name them.
FRAGMENT_PRELUDE = """#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <symshape/symshape.h>
%s
void doc_fragment(sym_ctx *ctx, sym_facts *facts, const sym_expr *e, const sym_expr *a,
                  const sym_expr *b, const sym_expr *x, sym_model *m, sym_graph_result *r,
                  sym_model_program *mp, sym_program *p, sym_guard_cache *cache);
void doc_fragment(sym_ctx *ctx, sym_facts *facts, const sym_expr *e, const sym_expr *a,
                  const sym_expr *b, const sym_expr *x, sym_model *m, sym_graph_result *r,
                  sym_model_program *mp, sym_program *p, sym_guard_cache *cache)
{
	(void)ctx; (void)facts; (void)e; (void)a; (void)b; (void)x; (void)m; (void)r; (void)mp;
	(void)p; (void)cache;
	{
#line 1 "%s"
%s
	}
}
"""


def blocks(path):
    """Yields (line number, body lines, file name or None, lines after)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```c":
            start = i
            j = i + 1
            while j < len(lines) and not FENCE.match(lines[j]):
                j += 1
            mark = None
            k = start - 1
            while k >= 0 and lines[k].strip() == "":
                k -= 1
            if k >= 0 and FILE_MARK.match(lines[k].strip()):
                mark = FILE_MARK.match(lines[k].strip()).group(1)
            indent = len(lines[start]) - len(lines[start].lstrip())
            body = [l[indent:] if l[:indent].strip() == "" else l for l in lines[start + 1:j]]
            yield start + 1, body, mark, lines[j + 1:]
            i = j
        i += 1


def shown_output(after):
    """The output a page shows for the program whose block ends before the
    lines after, or None when it shows none: the first paragraph before the
    next C block or heading that says "prints" or "Output" tells where."""
    i = 0
    while i < len(after):
        while i < len(after) and after[i].strip() == "":
            i += 1
        if i >= len(after) or after[i].startswith("#") or after[i].strip() == "```c":
            return None
        if after[i].startswith("    "):
            while i < len(after) and (after[i].startswith("    ") or after[i].strip() == ""):
                i += 1  # an indented block (a command line, say)
            continue
        if FENCE.match(after[i]):
            i += 1  # another fenced block: skip it
            while i < len(after) and not FENCE.match(after[i]):
                i += 1
            i += 1
            continue
        para = []
        while i < len(after) and after[i].strip() != "" and not FENCE.match(after[i]):
            para.append(after[i])
            i += 1
        text = " ".join(para)
        m = re.search(r"\bprints\b(.*)", text)
        sentence = re.split(r"\.(\s|$)", m.group(1))[0] if m else ""
        if "`" in sentence:
            return re.findall(r"`([^`]*)`", sentence)
        if m or re.search(r"\bOutput\b", text):
            while i < len(after) and after[i].strip() == "":
                i += 1
            if i < len(after) and after[i].strip() == "```":
                out = []
                i += 1
                while i < len(after) and not FENCE.match(after[i]):
                    out.append(after[i])
                    i += 1
                return out
            return None
    return None


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


# Annotations a header carries that a page may leave out.
ANNOTATIONS = {"SYM_API", "SYM_GIVE", "SYM_TAKE", "SYM_KEEP"}


def tokens(text):
    return [t for t in re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\d+|\S", strip_comments(text))
            if t not in ANNOTATIONS]


def is_declarations(body):
    code = strip_comments("\n".join(body)).strip()
    if not code or code.startswith("#"):
        return False
    return bool(re.match(r"(typedef|struct|enum|extern|const\s+sym_rule_entry)\b", code)) or (
        "{" not in code and re.search(r"\)\s*;", code) is not None
        and "=" not in code)


def contains(hay, needle):
    n = len(needle)
    return any(hay[i:i + n] == needle for i in range(len(hay) - n + 1))


def declarations(toks):
    """Splits tokens into top-level declarations (each ends with a `;` at
    brace depth 0)."""
    out, cur, depth = [], [], 0
    for t in toks:
        cur.append(t)
        depth += (t == "{") - (t == "}")
        if t == ";" and depth == 0:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def all_declared(pool, toks):
    return all(contains(pool, d) for d in declarations(toks))


def compile_and_run(src, args, cwd, tmp, name):
    exe = os.path.join(tmp, name)
    c = os.path.join(tmp, name + ".c")
    with open(c, "w") as f:
        f.write(src)
    p = subprocess.run([CC] + CFLAGS + [c, "-o", exe] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if p.returncode:
        return None, p.stdout.decode("utf-8", "replace")
    p = subprocess.run([exe], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def pkg_config_flags(prefix_root):
    pcs = glob.glob(os.path.join(prefix_root, "**", "pkgconfig", "symshape.pc"), recursive=True)
    if not pcs:
        return None
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = os.path.dirname(pcs[0])
    env["PKG_CONFIG_SYSROOT_DIR"] = prefix_root
    p = subprocess.run(["pkg-config", "--cflags", "--libs", "symshape"], env=env,
                       stdout=subprocess.PIPE, check=True)
    flags = p.stdout.decode().split()
    libdirs = [f[2:] for f in flags if f.startswith("-L")]
    return flags + ["-Wl,-rpath," + d for d in libdirs]


def main(argv):
    build = None
    prefix = None
    files = []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "--prefix":
            prefix = args.pop(0)
        elif a == "--install":
            prefix = ""
        elif a == "--cflags":
            CFLAGS.extend(args.pop(0).split())
        elif a.endswith(".md"):
            files.append(a)
        else:
            build = os.path.abspath(a)
    if not build:
        print("usage: cprograms.py BUILD_DIR [--prefix DIR] [FILE...]")
        return 2
    if not files:
        files = [os.path.join(ROOT, "README.md")] + sorted(
            glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    tree = ["-I" + os.path.join(ROOT, "include"), "-L" + build, "-lsymshape",
            "-Wl,-rpath," + build, "-lgmp", "-lcjson"]
    internal = ["-I" + os.path.join(ROOT, d) for d in ("include", "symbolic", "rules", "src",
                                                          os.path.join("tests", "rules"))]
    headers = []
    for h in sorted(glob.glob(os.path.join(ROOT, "include", "symshape", "*.h"))):
        headers += tokens(open(h).read())
    variants = [("build tree", tree)]
    installed = None
    if prefix == "":
        installed = tempfile.TemporaryDirectory()
        prefix = installed.name
        p = subprocess.run(["meson", "install", "-C", build, "--destdir", prefix, "--no-rebuild",
                            "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            print("FAIL: meson install --destdir failed")
            print("    " + p.stdout.decode("utf-8", "replace"))
            return 1
    if prefix:
        flags = pkg_config_flags(os.path.abspath(prefix))
        if flags is None:
            print("FAIL: no symshape.pc under %s" % prefix)
            return 1
        variants.append(("installed prefix", flags + ["-lgmp", "-lcjson"]))
        static = glob.glob(os.path.join(os.path.abspath(prefix), "**", "libsymshape.a"), recursive=True)
        if not static:
            print("FAIL: meson install installed no libsymshape.a")
            return 1
        incs = [f for f in flags if f.startswith("-I")]
        variants.append(("installed static library", incs + [static[0], "-lgmp", "-lcjson",
                                                              "-lprotobuf-c", "-lm"]))
    passed = failed = 0

    def fail(where, why, detail=""):
        nonlocal failed
        failed += 1
        print("FAIL %s: %s" % (where, why))
        if detail:
            print("    " + detail.rstrip().replace("\n", "\n    "))

    with tempfile.TemporaryDirectory() as tmp:
        n = 0
        for path in files:
            rel = os.path.relpath(path, ROOT)
            for lineno, body, mark, after in blocks(path):
                where = "%s:%d" % (rel, lineno)
                text = "\n".join(body) + "\n"
                n += 1
                if mark:
                    continue
                if re.search(r"\bmain\s*\(", text):
                    shown = shown_output(after)
                    if shown is None:
                        fail(where, "a complete program without a shown output")
                        continue
                    for label, flags in variants:
                        rc, out = compile_and_run(text, flags, ROOT, tmp, "prog%d" % n)
                        got = [l.rstrip() for l in out.rstrip("\n").split("\n")] if out else []
                        want = [l.rstrip() for l in shown]
                        while want and want[-1] == "":
                            want.pop()
                        if rc is None:
                            fail(where, "does not compile against the %s" % label, out)
                        elif rc != 0:
                            fail(where, "exits with %d against the %s" % (rc, label), out)
                        elif got != want:
                            fail(where, "prints something else against the %s" % label,
                                 "shown:\n  " + "\n  ".join(want) + "\ngot:\n  " + "\n  ".join(got))
                        else:
                            passed += 1
                elif '#include "' in text or "void **state" in text:
                    pre = '#include "harness.h"\n' if "void **state" in text else ""
                    if pre:
                        pre = "#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\n" + pre
                    src = "%s#line 1 \"%s\"\n%s" % (pre, where, text)
                    c = os.path.join(tmp, "tu%d.c" % n)
                    with open(c, "w") as f:
                        f.write(src)
                    p = subprocess.run([CC, "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-fsyntax-only"]
                                       + internal + [c], stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT)
                    if p.returncode:
                        fail(where, "does not compile against the internal headers",
                             p.stdout.decode("utf-8", "replace"))
                    else:
                        passed += 1
                elif is_declarations(body):
                    toks = tokens(text)
                    pool = headers
                    if not all_declared(pool, toks):
                        more = []
                        for h in glob.glob(os.path.join(ROOT, "*", "*.h")):
                            more += tokens(open(h).read())
                        pool = more
                    if all_declared(pool, toks):
                        passed += 1
                    elif "P_" in text and parses_as_c(text):
                        passed += 1
                    else:
                        fail(where, "these declarations are not in any header")
                else:
                    extra = ""
                    if "<gmp.h>" in text or "mpz_" in text or "mpq_" in text:
                        extra = "#include <gmp.h>\n#include <symshape/gmp.h>"
                    if "cJSON" in text:
                        extra += "\n#include <cjson/cJSON.h>\n#include <symshape/json.h>"
                    body_text = "" if text.lstrip().startswith("#include") else text
                    if text.lstrip().startswith("#include"):
                        extra += "\n" + text
                    src = FRAGMENT_PRELUDE % (extra, where, body_text)
                    c = os.path.join(tmp, "frag%d.c" % n)
                    with open(c, "w") as f:
                        f.write(src)
                    p = subprocess.run([CC, "-std=c11", "-fsyntax-only", "-Wno-unused"]
                                       + ["-I" + os.path.join(ROOT, "include"), c],
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                    if p.returncode:
                        fail(where, "does not type-check", p.stdout.decode("utf-8", "replace"))
                    else:
                        passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def parses_as_c(text):
    """The emitted C's ABI as a page shows it (for a prefix P): the emitter's
    own text is compared by the doc test; here it must parse as C."""
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write("#include <stdint.h>\n" + text)
    p = subprocess.run([CC, "-std=c11", "-fsyntax-only", f.name], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    os.unlink(f.name)
    return p.returncode == 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
