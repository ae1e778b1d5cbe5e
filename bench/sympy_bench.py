#!/usr/bin/python3
"""The workloads of BENCH.md in SymPy, printed in the format of bench_expr.

Each line is `WORKLOAD METRIC VALUE`, `check WORKLOAD NAME VALUE ok|FAIL`,
`note ...` or `skip ...`.  The random parameters come from MT19937 seeded
with init_genrand(0), exactly as in bench_expr.c, so both drivers build the
same expressions.  The exit status is 1 when a checksum fails, 2 when SymPy
cannot be imported.

Usage: sympy_bench.py [--quick]
  --quick  fewer iterations for W1, W4 and W5 (the checksums then cover only
           the iterations run and are not checked against BENCH.md).
"""

import random
import statistics
import sys
import time

try:
    import sympy
    from sympy.core.cache import clear_cache
except ImportError:  # compare.py reports this line
    print("skip sympy absent")
    sys.exit(2)


def mt19937(seed=0):
    """Returns a random.Random in the state init_genrand(seed) leaves."""
    mt = [0] * 624
    mt[0] = seed & 0xFFFFFFFF
    for i in range(1, 624):
        mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
    g = random.Random()
    g.setstate((3, tuple(mt) + (624,), None))
    return g


class Gen:
    """rand(lo, hi) = lo + g() % (hi - lo + 1) on raw 32-bit outputs."""

    def __init__(self):
        self.g = mt19937(0)

    def raw(self):
        return self.g.getrandbits(32)

    def rand(self, lo, hi):
        return lo + self.raw() % (hi - lo + 1)


failed = False


def out(*words):
    print(*words, flush=True)


def check(workload, name, got, want):
    global failed
    ok = got == want
    if not ok:
        failed = True
    out("check", workload, name, got, "ok" if ok else "FAIL(want %s)" % want)


def fmt(x):
    return "%.4g" % x


def nterms(e):
    if e == 0:
        return 0
    return len(e.args) if e.is_Add else 1


SYMS = sympy.symbols("s0:8", integer=True, positive=True)


def w1(iters):
    g = Gen()
    params = []
    for _ in range(iters):
        terms = [(g.rand(1, 5), g.rand(0, 7), g.rand(0, 7)) for _ in range(4)]
        params.append((terms, g.rand(0, 7)))
    s = SYMS
    clear_cache()
    res = []
    t0 = time.perf_counter()
    for terms, k in params:
        e = sympy.Integer(0)
        for c, i, j in terms:
            e = e + c * s[i] * s[j]
        res.append(sympy.expand(e * (s[k] + 1)))
    t = time.perf_counter() - t0
    out("W1 iters", iters)
    out("W1 per_iter_us", fmt(t / iters * 1e6))
    total = sum(nterms(r) for r in res)
    if iters == 2000:
        check("W1", "terms", total, 15372)
    else:
        out("note W1 terms", total, "over", iters, "iterations (checksum is for 2000)")


def w2_build(depth):
    clear_cache()
    t0 = time.perf_counter()
    e = SYMS[0]
    for _ in range(depth):
        e = sympy.floor((e + 2 - 3) / 2) + 1
    t = time.perf_counter() - t0
    return e, t


def w2():
    for depth in (64, 16):
        e, t = w2_build(depth)
        out("W2 build%d_us" % depth, fmt(t * 1e6))
        out("W2 floors%d" % depth, sum(1 for x in sympy.preorder_traversal(e)
                                        if isinstance(x, sympy.floor)))
    out("skip W2 simplify skipped (reference: 550 s without reduction)")


def w3():
    base = SYMS[0] + SYMS[1] + SYMS[2] + SYMS[3] + 1
    for n, want in ((8, 495), (16, 4845)):
        clear_cache()
        t0 = time.perf_counter()
        r = sympy.expand(base ** n)
        t = time.perf_counter() - t0
        out("W3 pow%d_ms" % n, fmt(t * 1e3))
        check("W3", "terms%d" % n, nterms(r), want)


def w4(nexpr):
    g = Gen()
    # Every expression's parameters first, then every expression's values:
    # the order that gives BENCH.md's checksum.
    shapes = []
    for _ in range(nexpr):
        a, b, c = g.rand(0, 7), g.rand(0, 7), g.rand(0, 7)
        c1, c2 = g.rand(1, 9), g.rand(1, 9)
        shapes.append((a, b, c, c1, c2))
    params = [sh + ([g.rand(1, 100) for _ in range(8)],) for sh in shapes]
    s = SYMS
    exprs = [(sympy.expand((s[a] + c1) * (s[b] * s[c] + c2)),
              dict(zip(s, vals))) for a, b, c, c1, c2, vals in params]
    clear_cache()
    total = 0
    t0 = time.perf_counter()
    for e, sub in exprs:
        total += int(e.subs(sub))
    t = time.perf_counter() - t0
    out("W4 n", nexpr)
    out("W4 subst_per_expr_us", fmt(t / nexpr * 1e6))
    # Closest thing SymPy has to a compiled runtime program.
    fns = [sympy.lambdify(s, e) for e, _ in exprs]
    args = [[sub[x] for x in s] for _, sub in exprs]
    ltotal = 0
    t0 = time.perf_counter()
    for f, a in zip(fns, args):
        ltotal += f(*a)
    t = time.perf_counter() - t0
    out("W4 lambdify_call_per_expr_us", fmt(t / nexpr * 1e6))
    if nexpr == 1000:
        check("W4", "value_sum", total, 159174571)
        check("W4", "lambdify_value_sum", int(ltotal), 159174571)
    else:
        out("note W4 value_sum", total, "over", nexpr, "expressions (checksum is for 1000)")


def w5(npairs):
    g = Gen()
    params = []
    for _ in range(npairs):
        terms = []
        for _ in range(g.rand(3, 6)):
            c = g.rand(1, 9)
            d = g.rand(1, 3)
            terms.append((c, [g.rand(0, 7) for _ in range(d)]))
        params.append(terms)
    s = SYMS
    clear_cache()
    pairs = []
    t0 = time.perf_counter()
    for terms in params:
        a = sympy.Integer(0)
        for c, fs in terms:
            t = sympy.Integer(c)
            for f in fs:
                t = t * s[f]
            a = a + t
        b = sympy.Integer(0)
        for c, fs in reversed(terms):
            t = s[fs[-1]]
            for f in reversed(fs[:-1]):
                t = t * s[f]
            t = t * c
            b = b + t
        pairs.append((a, b))
    t = time.perf_counter() - t0
    out("W5 n", npairs)
    out("W5 build_pair_us", fmt(t / npairs * 1e6))
    equal = 0
    t0 = time.perf_counter()
    for a, b in pairs:
        if a == b:
            equal += 1
    t = time.perf_counter() - t0
    out("W5 eq_ns", fmt(t / npairs * 1e9))
    check("W5", "equal_pairs", equal, npairs)


def main():
    quick = "--quick" in sys.argv[1:]
    g = Gen()
    first = [g.raw() for _ in range(3)]
    check("mt19937", "first3", ",".join(map(str, first)),
          "2357136044,2546248239,3071714933")
    out("note sympy", sympy.__version__, "one run per workload (no median)")
    w1(200 if quick else 2000)
    w2()
    w3()
    w4(100 if quick else 1000)
    w5(1000 if quick else 10000)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
