#!/usr/bin/python3
"""Runs bench_expr (and bench_program and bench_simplify when they are built
beside it), sympy_bench.py and sympy_simplify.py, and prints them side by
side.

Usage: compare.py [BENCH_EXPR] [--reps N] [--quick]
  BENCH_EXPR  the C driver (default build/bench/bench_expr, then
              build-bench/bench/bench_expr; looked up in the current directory
              and then in the source tree's root)
  --reps N    repetitions of each symshape workload (median reported)
  --quick     fewer SymPy iterations (its checksums are then not checked;
              W6 simplifies the first 200 expressions instead of 1,000)

The exit status is 0 when every checksum of both drivers holds, 1 otherwise
(targets that are missed are reported but do not fail the run).
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3"


def parse(text):
    """Returns ({(workload, metric): value}, [check lines], [other lines])."""
    vals, checks, other = {}, [], []
    for line in text.splitlines():
        w = line.split(None, 2)
        if len(w) == 3 and w[0][:1] == "W" and w[0][1:].isdigit():
            vals[(w[0], w[1])] = w[2]
        elif w and w[0] == "mem" and len(line.split()) == 4:
            m = line.split()
            vals[("mem " + m[1], m[2])] = m[3]
        elif w and w[0] == "check":
            checks.append(line)
        elif w:
            other.append(line)
    return vals, checks, other


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        return None, str(e)
    return p, None


def find_binary(arg, default):
    cands = [arg, os.path.join(ROOT, arg)]
    if arg == default:  # `make bench` builds in build-bench
        alt = os.path.join("build-bench", "bench", "bench_expr")
        cands += [alt, os.path.join(ROOT, alt)]
    for cand in cands:
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


# (label, key, unit, target description, target test on (symshape, sympy));
# a key is (workload, metric), or a pair of them (symshape's, SymPy's) when
# the two drivers measure the row differently.
ROWS = [
    ("W1 per iteration", ("W1", "per_iter_us"), "us",
     "< 2.4 us and >= 1000x SymPy",
     lambda c, s: c < 2.4 and (s is None or s / c >= 1000)),
    ("W2 build, 64-deep", ("W2", "build64_us"), "us", "", None),
    ("W2 build, 16-deep", ("W2", "build16_us"), "us", "", None),
    ("W2 simplify, 64-deep", ("W2", "simplify64_us"), "us",
     "one floor division, << 1 ms", None),
    ("W2 simplify, 16-deep", ("W2", "simplify16_us"), "us", "", None),
    ("W3 **8 (495 terms)", ("W3", "pow8_ms"), "ms", "< 0.25 ms",
     lambda c, s: c < 0.25),
    ("W3 **16 (4,845 terms)", ("W3", "pow16_ms"), "ms", "", None),
    ("W4 exact substitution", ("W4", "subst_per_expr_us"), "us",
     ">= 100x SymPy", lambda c, s: s is None or s / c >= 100),
    ("W4 compiled call", (("W4", "program_us"),
                          ("W4", "lambdify_call_per_expr_us")), "us",
     "< 0.05 us", lambda c, s: c < 0.05),
    ("W4 emitted C call", (("W4", "emitted_c_us"), None), "us", "", None),
    ("W4 compile program", (("W4", "compile_us"), None), "us", "", None),
    ("W5 build pair", ("W5", "build_pair_us"), "us", "", None),
    ("W5 equality test", ("W5", "eq_ns"), "ns", "one pointer comparison",
     None),
    ("W6 simplify, all 1,000", ("W6", "simplify_us"), "us", "", None),
    ("W6 simplify, first 200", ("W6", "simplify_sub_us"), "us", "", None),
    ("W6 construction (parse)", ("W6", "parse_us"), "us", "", None),
    ("W6 smaller than input, of 1,000", ("W6", "smaller"), "n", "", None),
    ("W6 smaller than input, of 200", ("W6", "smaller_sub"), "n", "", None),
    ("W6 no floor/mod left, of 1,000", ("W6", "no_floor"), "n", "", None),
    ("W6 no floor/mod left, of 200", ("W6", "no_floor_sub"), "n", "", None),
    ("W6 kept a floor/mod the other removed",
     (("W6", "symshape_left_floor"), ("W6", "sympy_left_floor")), "n", "",
     None),
    ("W6 timeouts (2 s cap)", (None, ("W6", "timeouts")), "n", "", None),
    ("W1 instructions per iteration (callgrind)", (("W1", "instructions"), None), "n",
     "<= 10000", lambda c, s: c <= 10000),
    ("bytes per node after W1", ("mem W1", "bytes_per_node"), "B", "< 64",
     lambda c, s: c < 64),
    ("bytes per node after W3", ("mem W3", "bytes_per_node"), "B", "< 100",
     lambda c, s: c < 100),
]


def table(cv, sv, have_sympy):
    head = ("workload", "unit", "symshape", "SymPy", "SymPy/symshape",
            "target", "met")
    rows = [head]
    for label, key, unit, tdesc, test in ROWS:
        pair = isinstance(key[0], tuple) or key[0] is None
        ckey, skey = key if pair else (key, key)
        c = num(cv.get(ckey)) if ckey else None
        s = num(sv.get(skey)) if have_sympy and skey else None
        if key == ("W2", "simplify64_us") or key == ("W2", "simplify16_us"):
            s_text = "skipped" if have_sympy else "-"
        else:
            s_text = "%.4g" % s if s is not None else "-"
        c_text = "%.4g" % c if c is not None else "-"
        ratio = "%.0fx" % (s / c) if c and s is not None else "-"
        if unit == "n":  # counts, not times
            ratio = "-"
        if key == ("W2", "simplify64_us"):
            floors = cv.get(("W2", "floors64"))
            met = "-" if floors is None or c is None else (
                "ok" if floors == "1" and c < 1000 else "miss")
        elif key == ("W5", "eq_ns"):
            met = "ok" if c is not None else "-"
        elif test and c is not None:
            met = "ok" if test(c, s) else "miss"
        else:
            met = ""
        rows.append((label, unit, c_text, s_text, ratio, tdesc, met))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for n, r in enumerate(rows):
        print("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def run_symshape(binary, reps, extra=()):
    """Runs one symshape driver, prints its checks and notes, and returns
    (values, whether it succeeded)."""
    cmd = [binary] + (["--reps", reps] if reps else []) + list(extra)
    p, err = run(cmd)
    if p is None:
        print("symshape: cannot run %s: %s" % (binary, err))
        return {}, False
    vals, checks, other = parse(p.stdout)
    print("== symshape (%s)" % " ".join(cmd))
    for line in checks + other:
        print("  " + line)
    if p.returncode != 0:
        print("  %s exited with status %d"
              % (os.path.basename(binary), p.returncode))
        if p.stderr.strip():
            print("  stderr: " + p.stderr.strip().splitlines()[-1])
        return vals, False
    return vals, True


# SymEngine's W1 on this kind of machine (shared/BENCH.md; not packaged
# here), and the instruction budget that stands for 3x it.
SYMENGINE_W1_US = "4.84-5.9"
W1_INSN_TARGET = 10000


def w1_instructions(binary):
    """W1's instructions per iteration under callgrind: the count of
    `bench_expr --w1-build 3000` minus that of 1000, over 2000 iterations
    (fixed costs cancel; instruction counts do not suffer from a loaded
    machine).  None, with the reason, when valgrind is missing."""
    counts = []
    for n in (1000, 3000):
        p, err = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                      binary, "--w1-build", str(n)])
        if p is None:
            return None, "valgrind not found"
        if p.returncode != 0:
            return None, "bench_expr --w1-build exited with status %d" % p.returncode
        refs = [l for l in p.stderr.splitlines() if "refs:" in l]
        if not refs:
            return None, "no instruction count in valgrind's output"
        counts.append(int(refs[-1].split("refs:")[1].replace(",", "").strip()))
    return (counts[1] - counts[0]) / 2000.0, None


def main():
    args = sys.argv[1:]
    default = os.path.join("build", "bench", "bench_expr")
    binary_arg = default
    reps, quick = None, False
    i = 0
    while i < len(args):
        if args[i] == "--reps" and i + 1 < len(args):
            reps = args[i + 1]
            i += 2
            continue
        if args[i] == "--quick":
            quick = True
        elif args[i].startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            binary_arg = args[i]
        i += 1

    status = 0
    fd, w6_dump = tempfile.mkstemp(prefix="w6-", suffix=".tsv")
    os.close(fd)
    binary = find_binary(binary_arg, default)
    cv = {}
    if binary is None:
        print("symshape: bench_expr not found at %s (build it first: make bench)"
              % binary_arg)
        status = 1
    else:
        # bench_program (W4 through the runtime program and emitted C) and
        # bench_simplify (W6) sit beside bench_expr when they are built.
        drivers = [binary]
        for name in ("bench_program", "bench_simplify"):
            drv = os.path.join(os.path.dirname(binary), name)
            if os.path.isfile(drv) and os.access(drv, os.X_OK):
                drivers.append(drv)
        for drv in drivers:
            # bench_simplify's results go to sympy_simplify.py (W6).
            extra = (["--dump", w6_dump] if drv.endswith("bench_simplify")
                     else [])
            vals, ok = run_symshape(drv, reps, extra)
            if not ok:
                status = 1
            for k, v in vals.items():
                cv.setdefault(k, v)
        # bench_program reports nanoseconds; the table row is in microseconds.
        for metric in ("program", "emitted_c"):
            ns = num(cv.get(("W4", metric + "_ns")))
            if ns is not None:
                cv[("W4", metric + "_us")] = "%.4g" % (ns / 1000)

    have_sympy = False
    sv = {}
    probe, err = run([PYTHON, "-c", "import sympy"])
    if probe is None or probe.returncode != 0:
        print("== SymPy absent: %s cannot import sympy; showing symshape "
              "numbers alone" % PYTHON)
    else:
        have_sympy = True
        cmd = [PYTHON, os.path.join(HERE, "sympy_bench.py")] + (
            ["--quick"] if quick else [])
        p, err = run(cmd)
        sv, schecks, sother = parse(p.stdout)
        print("== SymPy (%s)" % " ".join(cmd))
        for line in schecks + sother:
            print("  " + line)
        if p.returncode != 0:
            print("  sympy_bench.py exited with status %d" % p.returncode)
            status = 1
        cmd = [PYTHON, os.path.join(HERE, "sympy_simplify.py")] + (
            ["--n", "200"] if quick else [])
        if os.path.getsize(w6_dump):
            cmd += ["--symshape", w6_dump]
        p, err = run(cmd)
        w6, schecks, sother = parse(p.stdout)
        print("== SymPy W6 (%s)" % " ".join(cmd))
        for line in schecks + sother:
            print("  " + line)
        if p.returncode != 0:
            print("  sympy_simplify.py exited with status %d" % p.returncode)
            status = 1
        # Counted by sympy_simplify.py from both results; symshape's column.
        if ("W6", "symshape_left_floor") in w6:
            cv[("W6", "symshape_left_floor")] = w6.pop(
                ("W6", "symshape_left_floor"))
        sv.update(w6)
        a, b = cv.get(("W6", "texts_fnv")), w6.get(("W6", "texts_fnv"))
        if a and b:
            print("  check W6 same_expressions %s %s"
                  % (b, "ok" if a == b else "FAIL(symshape %s)" % a))
            if a != b:
                status = 1
    os.unlink(w6_dump)

    if binary is not None:
        insns, why = w1_instructions(binary)
        if insns is None:
            print("== W1 instructions: not counted (%s)" % why)
        else:
            cv[("W1", "instructions")] = "%.0f" % insns
            print("== W1 instructions per iteration under callgrind "
                  "(bench_expr --w1-build 3000 minus 1000, over 2000): %.0f" % insns)
            print("  target <= %d (3x SymEngine's %s us W1 on this kind of machine, "
                  "BENCH.md): %s" % (W1_INSN_TARGET, SYMENGINE_W1_US,
                                     "met" if insns <= W1_INSN_TARGET else "MISSED"))

    print()
    table(cv, sv, have_sympy)
    if ("W2", "result64") in cv:
        print()
        print("W2 64-deep simplified: " + cv[("W2", "result64")])
        print("W2 16-deep simplified: " + cv.get(("W2", "result16"), "-"))
    if ("W6", "slowest") in cv:
        print("W6 slowest for symshape: " + cv[("W6", "slowest")])
    if have_sympy and ("W6", "slowest") in sv:
        print("W6 slowest for SymPy: " + sv[("W6", "slowest")])
    return status


if __name__ == "__main__":
    sys.exit(main())
