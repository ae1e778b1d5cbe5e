#!/usr/bin/python3
"""Workload W6 (simplification throughput) in SymPy, printed in the format
of bench_simplify.

The expressions are generated as text from MT19937 (init_genrand(0)) exactly
as in bench_simplify.c (the FNV-1a hash of the texts and their total size
are printed by both drivers), built with SymPy's floor (`//`), Mod (`%`),
Min and Max over integer symbols, and given to sympy.simplify one by one,
each with a time cap: a call that takes longer is stopped and counted as a
timeout (its result is the unsimplified input, its time the cap).

SymPy cannot state the facts of classes 1 and 2: there s0 is only
nonnegative (not also at most 63) and s1 only positive (not also a multiple
of 8); every other symbol is integer and positive.

Lines are `W6 METRIC VALUE`, `check ...`, `note ...` or `skip ...`.  The exit
status is 1 when a check fails, 2 when SymPy cannot be imported.

Usage: sympy_simplify.py [--n N] [--cap SECONDS] [--symshape FILE]
  --n N           simplify the first N expressions (default all 1000, about
                  30 s; compare.py --quick passes 200); the texts of all
                  1,000 are still generated and hashed
  --cap SECONDS   time cap per expression (default 2)
  --symshape FILE the dump of `bench_simplify --dump FILE`: also count the
                  expressions where SymPy's result keeps a floor or Mod and
                  symshape's has none, and the other way round
"""

import ast
import signal
import sys
import time

try:
    import sympy
    from sympy.core.cache import clear_cache
except ImportError:  # compare.py reports this line
    print("skip sympy absent")
    sys.exit(2)

NEXPR = 1000
NPAT = 16
NRAW = 8

failed = False


def out(*words):
    print(*words, flush=True)


def check(name, got, want):
    global failed
    ok = got == want
    if not ok:
        failed = True
    out("check", "W6", name, got, "ok" if ok else "FAIL(want %s)" % want)


class MT19937:
    """init_genrand(seed) and genrand_int32 (bench_simplify.c's mt_next)."""

    def __init__(self, seed=0):
        mt = [0] * 624
        mt[0] = seed & 0xFFFFFFFF
        for i in range(1, 624):
            mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
        import random
        self.g = random.Random()
        self.g.setstate((3, tuple(mt) + (624,), None))

    def raw(self):
        return self.g.getrandbits(32)

    def rand(self, lo, hi):
        return lo + self.raw() % (hi - lo + 1)


def gen_expr(p, r):
    """The text of pattern p with raw draws r, and its fact class (the same
    formulas as gen_expr in bench_simplify.c)."""
    def R(k, lo, hi):
        return lo + r[k] % (hi - lo + 1)
    A = "s%d" % R(0, 0, 3)
    B = "s%d" % R(1, 1, 3)
    cls = 0
    if p == 0:
        c = R(2, 2, 16)
        t = "(%s*%d + %s)//%d" % (A, c, B, c)
    elif p == 1:
        k, m = R(2, 0, 9), R(3, 0, 5)
        t = "(%s*%s + %d*%s + %d) %% %s" % (A, B, k, B, m, B)
    elif p == 2:
        c1, d1, c2, d2 = R(2, 0, 8), R(3, 2, 8), R(4, 0, 8), R(5, 2, 8)
        t = "((%s + %d)//%d + %d)//%d" % (A, c1, d1, c2, d2)
    elif p == 3:
        c1, c2, d1, d2 = R(2, 1, 9), R(3, 0, 9), R(4, 2, 8), R(5, 2, 8)
        t = "((%s*%d + %s + %d)//%d)//%d" % (A, c1, B, c2, d1, d2)
    elif p == 4:
        c1, c2, n = R(2, 1, 12), R(3, 0, 20), R(4, 2, 16)
        X = "(%s*%d + %d)" % (A, c1, c2)
        t = "%s - (%s//%d)*%d" % (X, X, n, n)
    elif p == 5:
        c = R(2, -3, 3)
        t = "max(%s, %d) + max(%s*%s, %s)" % (A, c, A, B, B)
    elif p == 6:
        c, c2 = R(2, 1, 3), R(3, 0, 2)
        t = "min(%s*%s, %s*%d) + min(%s, %d)" % (A, B, A, c, B, c2)
    elif p == 7:
        c = R(2, 2, 8)
        t = "((%s - 1)//%d + 1)*%d - %s" % (A, c, c, A)
    elif p == 8:
        c, d = R(2, 2, 16), R(3, 0, 40)
        t = "(%d*%s + %d) %% %d" % (c, A, d, c)
    elif p == 9:
        k, m, n = R(2, 1, 9), R(3, 2, 6), R(4, 2, 6)
        X = "(%s + %d*%s)" % (A, k, B)
        t = "(%s//%d)*%d + ((%s//%d) %% %d)*%d + %s %% %d" % (
            X, m * n, m * n, X, n, m, n, X, n)
    elif p == 10:
        pd, d, k, s = R(2, 0, 3), R(3, 1, 3), R(4, 1, 7), R(5, 1, 4)
        s2, k2 = R(6, 1, 4), R(7, 1, 5)
        p2 = k2 // 2
        X = "((%s + 2*%d - %d*(%d - 1) - 1)//%d + 1)" % (A, pd, d, k, s)
        t = "(%s + 2*%d - 1*(%d - 1) - 1)//%d + 1" % (X, p2, k2, s2)
    elif p == 11:
        m, c, m2 = R(2, 64, 128), R(3, 0, 5), R(4, 1, 128)
        t = "s0 %% %d + (s0 + %d*64)//64 + s0//%d + %s" % (m, c, m2, B)
        cls = 1
    elif p == 12:
        q, c = 1 << R(2, 1, 4), R(3, 0, 20)
        t = "(s1 + %d) %% %d + (s1//%d)*%d + %s" % (c, q, q, q, A)
        cls = 2
    elif p == 13:
        c1, m, n = R(2, 1, 9), R(3, 2, 6), R(4, 2, 8)
        t = "((%s*%d + %s) %% %d) %% %d" % (A, c1, B, m * n, n)
    elif p == 14:
        g, c, d, e = R(2, 2, 6), R(3, 1, 9), R(4, 0, 9), R(5, 2, 9)
        t = "(%d*%s + %d)//%d" % (g * c, A, g * d, g * e)
    else:
        c, d, e = R(2, 0, 6), R(3, 2, 6), R(4, 2, 8)
        t = "max((%s + %d)//%d, 1) + min(%s//%d, %s)" % (A, c, d, A, e, A)
    return t, cls


def generate():
    g = MT19937(0)
    exprs = []
    for _ in range(NEXPR):
        p = g.rand(0, NPAT - 1)
        r = [g.raw() for _ in range(NRAW)]
        exprs.append(gen_expr(p, r))
    return exprs


def texts_hash(texts):
    h = 1469598103934665603
    for t in texts:
        for b in (t + "\n").encode():
            h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def size(node):
    """Operands and operators of a Python syntax tree, counted as
    bench_simplify counts printed text; SymPy's floor(a/b), ceiling(a/b) and
    Mod(a, b) count as one operator each, like a//b and a % b."""
    if isinstance(node, ast.Expression):
        return size(node.body)
    if isinstance(node, ast.BinOp):
        return 1 + size(node.left) + size(node.right)
    if isinstance(node, ast.UnaryOp):
        return 1 + size(node.operand)
    if isinstance(node, ast.Call):
        name = getattr(node.func, "id", "")
        args = node.args
        if name in ("floor", "ceiling") and len(args) == 1 and \
                isinstance(args[0], ast.BinOp) and isinstance(args[0].op, ast.Div):
            return 1 + size(args[0].left) + size(args[0].right)
        return 1 + sum(size(a) for a in args)
    if isinstance(node, (ast.Name, ast.Constant)):
        return 1
    return 1 + sum(size(c) for c in ast.iter_child_nodes(node))


def text_size(text):
    return size(ast.parse(text, mode="eval"))


def has_floor_sympy(e):
    return e.has(sympy.floor, sympy.ceiling, sympy.Mod, sympy.frac)


def has_floor_text(t):
    return "//" in t or "%" in t or "floor(" in t or "ceil(" in t


class Timeout(BaseException):
    """Raised by the timer; a BaseException so that no `except Exception`
    inside SymPy swallows it."""


def on_alarm(signum, frame):
    raise Timeout()


def main():
    args = sys.argv[1:]
    n, cap, dump = NEXPR, 2.0, None
    i = 0
    while i < len(args):
        if args[i] == "--n" and i + 1 < len(args):
            n = int(args[i + 1])
        elif args[i] == "--cap" and i + 1 < len(args):
            cap = float(args[i + 1])
        elif args[i] == "--symshape" and i + 1 < len(args):
            dump = args[i + 1]
        else:
            print(__doc__, file=sys.stderr)
            return 2
        i += 2
    n = max(1, min(n, NEXPR))

    g = MT19937(0)
    first = [g.raw() for _ in range(3)]
    check("mt19937_first3", ",".join(map(str, first)),
          "2357136044,2546248239,3071714933")
    exprs = generate()
    texts = [t for t, _ in exprs]
    out("note sympy", sympy.__version__, "one run; sympy.simplify on the first",
        n, "of the 1000 expressions, each capped at %g s" % cap)
    out("W6 n", NEXPR)
    out("W6 texts_fnv %016x" % texts_hash(texts))
    out("W6 input_size", sum(text_size(t) for t in texts))
    out("W6 first", texts[0])

    pos = dict(integer=True, positive=True)
    syms = {c: [sympy.Symbol("s%d" % k, **pos) for k in range(4)]
            for c in (0, 2)}
    syms[1] = [sympy.Symbol("s0", integer=True, nonnegative=True)] + syms[0][1:]
    namespace = {c: dict({"s%d" % k: s for k, s in enumerate(v)},
                         min=sympy.Min, max=sympy.Max)
                 for c, v in syms.items()}

    # Warm-up outside the timing: SymPy loads parts of itself on first use.
    w = syms[0][0]
    sympy.simplify(sympy.floor(w / 2) + sympy.Mod(w + 1, 3) + sympy.Min(w, 1))
    clear_cache()
    built = []
    t0 = time.perf_counter()
    for t, c in exprs[:n]:
        built.append(eval(t, {"__builtins__": {}}, namespace[c]))
    out("W6 parse_us", "%.4g" % ((time.perf_counter() - t0) / n * 1e6))
    out("note W6 parse_us: SymPy's construction (sympify and evaluation of "
        "floor/Mod/Min/Max), outside the simplify timing")

    old = signal.signal(signal.SIGALRM, on_alarm)
    results, times, timeouts = [], [], 0
    for k, e in enumerate(built):
        t0 = time.perf_counter()
        try:
            signal.setitimer(signal.ITIMER_REAL, cap)
            r = sympy.simplify(e)
            signal.setitimer(signal.ITIMER_REAL, 0)
            dt = time.perf_counter() - t0
        except Timeout:
            r, dt = e, cap
            timeouts += 1
            out("note W6 timeout", texts[k])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        results.append(r)
        times.append(dt)
    signal.signal(signal.SIGALRM, old)

    rtext = [str(r) for r in results]
    insize_sub = sum(text_size(t) for t in texts[:n])
    outsizes = [text_size(t) for t in rtext]
    smaller = sum(1 for k in range(n) if outsizes[k] < text_size(texts[k]))
    nofloor = sum(1 for r in results if not has_floor_sympy(r))
    slow = max(range(n), key=lambda k: times[k])
    # Metric names follow bench_simplify: no suffix for all 1,000, `_sub`
    # for its first-200 subset.
    sfx = "" if n == NEXPR else "_sub" if n == 200 else "_first%d" % n
    out("W6 subset", n)
    out("W6 timeouts", timeouts)
    out("W6 simplify%s_us" % sfx, "%.4g" % (sum(times) / n * 1e6))
    out("W6 simplify_max_us", "%.4g" % (times[slow] * 1e6))
    out("W6 slowest", texts[slow], "->", rtext[slow])
    if sfx:
        out("W6 input_size%s" % sfx, insize_sub)
    out("W6 result_size%s" % sfx, sum(outsizes))
    out("W6 smaller%s" % sfx, smaller)
    out("W6 no_floor%s" % sfx, nofloor)
    out("W6 example", texts[0], "->", rtext[0])
    if n < NEXPR:
        out("note W6 SymPy simplified the first", n, "expressions only; "
            "compare with symshape's %s metrics" % sfx)

    if dump:
        theirs = {}
        with open(dump) as f:
            for line in f:
                w = line.rstrip("\n").split("\t")
                if len(w) == 4:
                    theirs[int(w[0])] = w
        if any(k not in theirs or theirs[k][2] != texts[k] for k in range(n)):
            check("symshape_dump_matches", "no", "yes")
        else:
            # SymPy keeps a floor/Mod where symshape's result has none; split
            # by whether SymPy could be told all the facts (class 0).
            left = [k for k in range(n) if not has_floor_text(theirs[k][3])
                    and has_floor_sympy(results[k])]
            left0 = [k for k in left if exprs[k][1] == 0]
            rev = [k for k in range(n) if has_floor_text(theirs[k][3])
                   and not has_floor_sympy(results[k])]
            out("W6 sympy_left_floor", len(left))
            out("W6 sympy_left_floor_class0", len(left0))
            out("W6 symshape_left_floor", len(rev))
            if left:
                k = left[0]
                out("note W6 e.g.", texts[k], "SymPy:", rtext[k],
                    "symshape:", theirs[k][3])
            for k in rev[:3]:
                out("note W6 SymPy removed a floor symshape kept:", texts[k],
                    "SymPy:", rtext[k], "symshape:", theirs[k][3])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
