"""Runs every shell session shown in README.md and docs/ and compares what
the tool prints with what the page shows.

A session is a fenced code block (```) with lines that start with `$ `: each
such line is a command, and the lines after it, up to the next command or
the end of the block, are its shown output (standard output and standard
error together, in the order the command wrote them). The commands of one
block run in order in one shell, from the source tree, with the directory of
the CLI first on PATH, so `$ echo $?` tells the status of the command before
it and a file one command writes is there for the next. They run in a
scratch directory of the page's own that links every top-level entry of the
source tree (so `examples/cnn.json` resolves and `-o cnn.c` writes no file
into the tree); a code block preceded by `<!-- file: NAME -->` is written
there as NAME before the sessions after it run, so a page can show a C
driver and then the session that compiles it with `cc`.

A shown output line that is exactly `...` stands for any number of lines
(none included); every other line must match exactly. Trailing blanks are
ignored. The commands run are those that invoke the CLI (`symshape ...`) and
the `echo`/`printf`/`cat` lines that feed or inspect it; a block whose
commands are all something else (a C compiler, make) is the C-program test's
business and is not run here.

Usage: python3 doctest.py [CLI] [FILE...]   (CLI defaults to $SYMSHAPE_CLI,
then build/symshape; FILES default to README.md and every docs/ page).
Prints one line per failed command and "N passed, M failed" last.

With --python (run by the interpreter that has the symshape module, e.g.
PYTHONPATH=build/python /usr/bin/python3), it runs instead the `>>>`
examples of the given pages (default docs/python.md) with the doctest
module, every block of a page in one namespace, from the source tree, and
runs each `<!-- file: test_*.py -->` block of them with pytest.
"""

import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNABLE = re.compile(r"^(symshape\b|echo\b|printf\b|cat\b|cc\b)")
FILE_MARK = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->$")
MARK = "@@doctest-end-of-command@@"
TIMEOUT = 120


def sessions(path):
    """Yields ("file", name, lines) for a block marked as a file and
    ("session", line number, [(command, line number, [shown lines])]) for a
    fenced block that shows commands, in page order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        start = i
        k = start - 1
        while k >= 0 and lines[k].strip() == "":
            k -= 1
        mark = FILE_MARK.match(lines[k].strip()) if k >= 0 else None
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        if mark:
            yield "file", mark.group(1), body
            continue
        cmds = []
        for n, line in enumerate(body):
            if line.startswith("$ "):
                cmds.append((line[2:], start + 2 + n, []))
            elif cmds:
                cmds[-1][2].append(line)
        if cmds:
            yield "session", start + 1, cmds


def matches(shown, got):
    """True when the lines got match the shown lines, where a shown `...`
    matches any run of lines."""
    memo = {}

    def m(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(shown):
            r = j == len(got)
        elif shown[i] == "...":
            r = any(m(i + 1, k) for k in range(j, len(got) + 1))
        else:
            r = j < len(got) and shown[i] == got[j] and m(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return m(0, 0)


def strip(lines):
    out = [l.rstrip() for l in lines]
    while out and out[-1] == "":
        out.pop()
    return out


def scratch(tmp, name):
    """A directory that links every top-level entry of the source tree."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for e in os.listdir(ROOT):
        if not e.startswith("."):
            os.symlink(os.path.join(ROOT, e), os.path.join(d, e))
    return d


def run_block(cli_dir, cmds, tmp, cwd):
    """Runs the commands of one block in one shell; returns their outputs."""
    script = ["exec 2>&1"]
    for cmd, _, _ in cmds:
        script.append(cmd)
        script.append("__st=$?; printf '\\n%s\\n'; (exit $__st)" % MARK)
    env = dict(os.environ)
    env["PATH"] = cli_dir + os.pathsep + env.get("PATH", "")
    env["TMPDIR"] = tmp
    p = subprocess.run(["sh", "-c", "\n".join(script)], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                       timeout=TIMEOUT)
    text = p.stdout.decode("utf-8", "replace")
    parts = text.split("\n" + MARK + "\n")
    # the first command's output has no newline before it when it printed nothing
    if parts and parts[0].startswith(MARK + "\n"):
        parts = ["", parts[0][len(MARK) + 1:]] + parts[1:]
    return [p.split("\n") for p in parts]


def python_blocks(path):
    """Yields (line number, text) of each fenced block with `>>>` lines."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        start = i
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        if any(l.startswith(">>> ") for l in body):
            yield start + 1, "\n".join(body) + "\n"


def python_main(files):
    """Runs the `>>>` examples and the pytest files of the pages."""
    # the standard library's doctest, not this file of the same name
    here = os.path.dirname(os.path.abspath(__file__))
    saved = sys.path[:]
    sys.path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        import doctest
    finally:
        sys.path = saved
    if not files:
        files = [os.path.join(ROOT, "docs", "python.md")]
    os.chdir(ROOT)
    parser = doctest.DocTestParser()
    import symshape  # the module under test: the pytest runs import the same one
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(symshape.__file__)))] +
        [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            rel = os.path.relpath(path, ROOT)
            globs = {"__name__": "__doc__"}
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            for lineno, text in python_blocks(path):
                test = parser.get_doctest(text, globs, rel, rel, lineno)
                r = runner.run(test, clear_globs=False)
                globs = test.globs  # a DocTest runs on a copy: the next block goes on from it
                passed += r.attempted - r.failed
                failed += r.failed
            for what, name, body in sessions(path):
                if what != "file" or not re.match(r"test_\w+\.py$", name):
                    continue
                f = os.path.join(tmp, name)
                with open(f, "w") as out:
                    out.write("\n".join(body[:]) + "\n")
                p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp,
                                   env=env, timeout=TIMEOUT)
                if p.returncode == 0:
                    passed += 1
                else:
                    failed += 1
                    print("FAIL %s: %s under pytest:\n%s" % (rel, name,
                                                            p.stdout.decode("utf-8", "replace")))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main(argv):
    if "--python" in argv[1:]:
        return python_main([a for a in argv[1:] if a.endswith(".md")])
    cli = os.environ.get("SYMSHAPE_CLI") or "build/symshape"
    files = []
    for a in argv[1:]:
        if a.endswith(".md"):
            files.append(a)
        else:
            cli = a
    if not files:
        files = [os.path.join(ROOT, "README.md")] + sorted(
            glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    cli_dir = os.path.dirname(os.path.abspath(cli))
    if not os.access(os.path.join(cli_dir, "symshape"), os.X_OK):
        print("doctest: no symshape binary in %s" % cli_dir)
        return 2
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for npage, path in enumerate(files):
            rel = os.path.relpath(path, ROOT)
            cwd = None
            for what, where, body in sessions(path):
                if cwd is None:
                    cwd = scratch(tmp, "page%d" % npage)
                if what == "file":
                    with open(os.path.join(cwd, where), "w") as f:
                        f.write("\n".join(body) + "\n")
                    continue
                cmds = body
                if not any(RUNNABLE.match(c) for c, _, _ in cmds):
                    continue
                bad = [c for c, _, _ in cmds if not RUNNABLE.match(c)]
                if bad:
                    print("FAIL %s: a shown session mixes CLI commands with '%s'" % (rel, bad[0]))
                    failed += 1
                    continue
                outs = run_block(cli_dir, cmds, tmp, cwd)
                for k, (cmd, lineno, shown) in enumerate(cmds):
                    got = strip(outs[k]) if k < len(outs) else ["<no output: the shell stopped>"]
                    if matches(strip(shown), got):
                        passed += 1
                    else:
                        failed += 1
                        print("FAIL %s:%d: $ %s" % (rel, lineno, cmd))
                        print("  shown:\n    " + "\n    ".join(strip(shown)))
                        print("  got:\n    " + "\n    ".join(got))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
