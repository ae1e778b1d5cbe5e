#!/usr/bin/env python3
"""Real exported models (tests/fixtures/real/) against ONNX Runtime's shapes.

Each NAME.onnx there (weights stripped to an uncommitted NAME.data) has a
NAME.truth.json: the shape ONNX Runtime gave every node output at three or
more input bindings (see tests/fixtures/real/README.md).  For each model:

- `infer MODEL --json` once: every tensor's symbolic shape.  At each binding
  its dims are evaluated in Python (exact rationals; `//` and `%` floor) with
  the input symbols taken from the bound input dims; every dim that
  evaluates must equal the truth (a dim over a symbol that is not an input
  dim is not evaluated, unless it is a data-dependent symbol bound below);
- `run MODEL --shape ... --json` at each binding: every tensor run gives a
  concrete shape for must equal the truth.  Data-dependent symbols (the
  `u0` of a NonZero or NonMaxSuppression) are bound with `--bind` to the
  value the truth of that binding shows at a dim that infer gives as exactly
  that symbol, so data-dependent tensors are checked where symshape's value
  is consistent with that run;
- a tensor that is not exact this way is checked again with each binding's
  input dims passed to `infer` and `run` as `--hint`, as a JIT compiles for
  the shapes it sees (an `If` whose condition the hints decide takes that
  branch under an expect guard): counted as "hinted";
- a wrong shape or a wrong rank is a failure, and so is a status other than
  0 or 1 (a crash, a sanitizer's abort, a timeout); a tensor symshape cannot
  infer is counted, not failed.  A mismatch in a tensor listed as data-dependent, at a dim
  that is not a constant in infer, is counted as unknown too.

The table at the end shows, per model, its nodes, its tensors (node outputs),
how many `run` gave exactly at every binding, how many `infer` gave as
expressions that evaluate to the truth at every binding, how many more were
exact only with the hints, how many are unknown (not exact at some binding)
and wrong, the bindings that a guard of
symshape rejected though ONNX Runtime ran them (counted, shown as NOTE lines,
left out of the exact counts, not failed: infer's shapes hold only under its
guards), and the first blocking reason (symshape's first error, or why `run`
refused).

The CLI is found in $SYMSHAPE_CLI (set by meson), else in the first argument,
else at build/symshape.  The last line is "N passed, M failed".
"""

import json
import os
import re
import subprocess
import sys
from fractions import Fraction

CLI = os.environ.get("SYMSHAPE_CLI") or (sys.argv[1] if len(sys.argv) > 1 else "build/symshape")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures", "real")
TIMEOUT = 120
VERBOSE = os.environ.get("REAL_VERBOSE")
MAX_FAIL_LINES = 20

passed = failed = 0
fail_lines = {}


def run(args):
    try:
        p = subprocess.run([CLI] + args, capture_output=True, timeout=TIMEOUT)
        rc, out, err = p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        rc, out, err = "timeout", "", "timeout after %ds" % TIMEOUT
    if rc not in (0, 1):  # SPEC §5: never a crash, never a status above 2
        report(os.path.basename(args[1]), False, "status %s (a crash or a timeout): %s\n  stderr: %s" % (
            rc, " ".join(args), err[-600:]))
    return rc, out, err


def report(model, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
        return
    failed += 1
    n = fail_lines.get(model, 0)
    fail_lines[model] = n + 1
    if n < MAX_FAIL_LINES or VERBOSE:
        print("FAIL %s: %s" % (model, why))
    elif n == MAX_FAIL_LINES:
        print("FAIL %s: ... (more failures not shown; REAL_VERBOSE=1 shows all)" % model)


# ---- the expression syntax of docs/syntax.md, evaluated exactly -------------

TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(\*\*|//|[-+*/%(),]))")
FUNCS = {"min", "max", "abs", "floor", "ceil"}


class Unbound(Exception):
    pass


def fdiv(a, b):
    if b == 0:
        raise ZeroDivisionError("floor division by zero")
    return Fraction((a.numerator * b.denominator) // (a.denominator * b.numerator))


def floor(a):
    return Fraction(a.numerator // a.denominator)


def evaluate(text, env):
    """The value of a dim expression at env (a dict name -> int); raises
    Unbound for a symbol env lacks."""
    toks, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError("cannot parse %r at %d" % (text, pos))
        toks.append(m.group(1) and ("num", int(m.group(1))) or m.group(2) and ("name", m.group(2))
                    or ("op", m.group(3)))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    i = [0]

    def peek():
        return toks[i[0]] if i[0] < len(toks) else (None, None)

    def take(v=None):
        t = peek()
        if v is not None and t != ("op", v):
            raise ValueError("expected %r in %r" % (v, text))
        i[0] += 1
        return t

    def add():
        v = mul()
        while peek() in (("op", "+"), ("op", "-")):
            op = take()[1]
            r = mul()
            v = v + r if op == "+" else v - r
        return v

    def mul():
        v = unary()
        while peek() in (("op", "*"), ("op", "/"), ("op", "//"), ("op", "%")):
            op = take()[1]
            r = unary()
            if op == "*":
                v = v * r
            elif op == "/":
                if r == 0:
                    raise ZeroDivisionError("division by zero")
                v = v / r
            elif op == "//":
                v = fdiv(v, r)
            else:
                v = v - r * fdiv(v, r)
        return v

    def unary():
        if peek() in (("op", "-"), ("op", "+")):
            op = take()[1]
            v = unary()
            return -v if op == "-" else v
        return power()

    def power():
        v = atom()
        if peek() == ("op", "**"):
            take()
            e = unary()
            if e.denominator != 1:
                raise ValueError("non-integer exponent in %r" % text)
            v = v ** int(e)
        return v

    def atom():
        kind, val = take()
        if kind == "num":
            return Fraction(val)
        if kind == "name":
            if val in FUNCS:
                take("(")
                args = [add()]
                while peek() == ("op", ","):
                    take()
                    args.append(add())
                take(")")
                if val == "min":
                    return min(args)
                if val == "max":
                    return max(args)
                if val == "abs":
                    return abs(args[0])
                if val == "floor":
                    return floor(args[0])
                return -floor(-args[0])
            if val not in env:
                raise Unbound(val)
            return Fraction(env[val])
        if (kind, val) == ("op", "("):
            v = add()
            take(")")
            return v
        raise ValueError("unexpected %r in %r" % (val, text))

    v = add()
    if i[0] != len(toks):
        raise ValueError("trailing text in %r" % text)
    return v


# ---- one model ---------------------------------------------------------------

SOURCE = re.compile(r"^(.*)\.shape\[(\d+)\]$")


def first_line(s):
    for line in s.splitlines():
        line = line.strip()
        if line:
            return line[:160]
    return ""


def parse_infer(name, rc, out, err, row):
    """infer's JSON output (reported, with the first blocking reason in row)."""
    try:
        inf = json.loads(out)
    except ValueError:
        inf = None
    if inf is None:
        report(name, False, "infer printed no JSON (status %s): %s" % (rc, first_line(err)))
        if not row["reason"]:
            row["reason"] = "infer: " + first_line(err)
        return {"symbols": [], "tensors": {}}
    report(name, True)
    errs = inf.get("errors") or []
    if row["reason"]:
        pass
    elif errs:
        row["reason"] = "infer: node %s: %s" % (errs[0].get("node"), errs[0].get("message"))
    elif rc != 0:
        row["reason"] = "infer: " + first_line(err)
    return inf


def input_symbols(inf):
    """infer's symbols: {symbol: (input, dim)} and the data-dependent ones."""
    sym_input, sym_dd = {}, []
    for s in inf.get("symbols", []):
        m = SOURCE.match(s.get("source") or "")
        if m:
            sym_input[s["name"]] = (m.group(1), int(m.group(2)))
        else:
            sym_dd.append(s["name"])
    return sym_input, sym_dd


class Check:
    """What one pass over a model's bindings found: per tensor, exact by
    run / by infer at every binding, and the wrong ones."""

    def __init__(self, names):
        self.exact_run = {k: True for k in names}
        self.exact_inf = {k: True for k in names}
        self.wrong = set()
        self.rejected = []
        self.run_reason = ""


def check_binding(model, name, truth, bi, inf, c, hints):
    """Checks run and infer's expressions at binding bi against the truth;
    with hints, run and infer got the binding's input dims as --hint."""
    names = list(truth["bindings"][0]["tensors"])
    dd = set(truth.get("data_dependent", []))
    b = truth["bindings"][bi]
    tt = b["tensors"]
    sym_input, sym_dd = input_symbols(inf)
    itensors = inf.get("tensors", {})
    env = {}
    for s, (inp, d) in sym_input.items():
        if inp in b["inputs"] and d < len(b["inputs"][inp]):
            env[s] = b["inputs"][inp][d]
    # data-dependent symbols: the truth at a dim that is exactly the symbol
    binds = {}
    for s in sym_dd:
        for t, info in itensors.items():
            shp = info.get("shape")
            if t in tt and isinstance(shp, list) and s in shp and len(shp) == len(tt[t]):
                binds[s] = tt[t][shp.index(s)]
                break
    env.update(binds)
    label = "binding %d %s%s" % (bi, json.dumps(b["inputs"], separators=(",", ":")),
                                 " with the binding as hints" if hints else "")

    # run at the binding
    args = ["run", model, "--json"]
    for inp, dims in b["inputs"].items():
        args += ["--shape", "%s=%s" % (inp, ",".join(str(x) for x in dims))]
    if hints:
        args += ["--hint", hints]
    if binds:
        args += ["--bind", ",".join("%s=%d" % kv for kv in binds.items())]
    rc, out, err = run(args)
    try:
        res = json.loads(out)
    except ValueError:
        res = None
    if not res or not res.get("ok"):
        fg = (res or {}).get("failed_guard") or {}
        why = first_line(err) or "status %s" % rc
        if not c.run_reason:
            c.run_reason = "run: " + why
        if fg.get("kind") in ("assert", "expect"):
            # symshape calls an input invalid that ONNX Runtime ran: counted
            # and shown, not failed, and the binding is left out of the exact
            # counts (infer's shapes hold only under the guards)
            c.rejected.append(label)
            print("NOTE %s: %s: rejected by a guard, ONNX Runtime ran it: %s" % (name, label, why))
            return
        for t in names:
            c.exact_run[t] = False
    else:
        got = res.get("tensors", {})
        bad = 0
        for t in names:
            g = got.get(t)
            if not isinstance(g, list) or not all(isinstance(x, int) for x in g):
                c.exact_run[t] = False
                continue
            if g != tt[t]:
                c.exact_run[t] = False
                if t in dd:
                    continue
                c.wrong.add(t)
                bad += 1
                report(name, False, "%s: run gives %s %s, ONNX Runtime %s" % (label, t, g, tt[t]))
        if not bad:
            report(name, True)

    # infer's expressions, evaluated at the binding
    bad = 0
    for t in names:
        info = itensors.get(t)
        shp = info.get("shape") if info else None
        if not isinstance(shp, list) or info.get("inferred") is False:
            c.exact_inf[t] = False
            continue
        if len(shp) != len(tt[t]):
            c.wrong.add(t)
            bad += 1
            report(name, False, "%s: infer gives %s rank %d, ONNX Runtime rank %d %s" % (
                label, t, len(shp), len(tt[t]), tt[t]))
            continue
        for d, (e, want) in enumerate(zip(shp, tt[t])):
            try:
                v = evaluate(str(e), env)
            except Unbound:
                c.exact_inf[t] = False
                continue
            except (ValueError, ZeroDivisionError) as ex:
                c.exact_inf[t] = False
                bad += 1
                report(name, False, "%s: infer dim %d of %s is %r: %s" % (label, d, t, e, ex))
                continue
            if v != want:
                consts = not any(s in str(e) for s in sym_dd)
                if t in dd and not consts:
                    c.exact_inf[t] = False
                    continue
                c.wrong.add(t)
                bad += 1
                report(name, False, "%s: infer dim %d of %s is %s = %s, ONNX Runtime %d (shape %s)" % (
                    label, d, t, e, v, want, tt[t]))
                c.exact_inf[t] = False
    if not bad:
        report(name, True)


def check_model(truth_file):
    truth = json.load(open(truth_file))
    model = os.path.join(FIX, truth["model"])
    name = truth["model"][:-5]
    row = {"model": name, "nodes": truth.get("nodes", "?"), "reason": ""}
    inf = parse_infer(name, *run(["infer", model, "--json"]), row=row)
    names = list(truth["bindings"][0]["tensors"])
    c = Check(names)
    for bi in range(len(truth["bindings"])):
        check_binding(model, name, truth, bi, inf, c, None)
    exact = {t for t in names if c.exact_run[t] or c.exact_inf[t]}

    # what is unknown without hints, again with each binding's input dims as
    # hints, as a JIT compiles for the shapes it sees: the hinted program
    # holds under its expect guards (an If takes the branch they select)
    hinted = set()
    if len(exact) + len(c.wrong) < len(names):
        sym_input, _ = input_symbols(inf)
        h = Check(names)
        for bi, b in enumerate(truth["bindings"]):
            hints = ",".join("%s=%d" % (s, b["inputs"][inp][d]) for s, (inp, d) in sorted(sym_input.items())
                             if inp in b["inputs"] and d < len(b["inputs"][inp]))
            if not hints:
                break
            hrow = {"reason": "x"}
            hinf = parse_infer(name, *run(["infer", model, "--json", "--hint", hints]), row=hrow)
            check_binding(model, name, truth, bi, hinf, h, hints)
        else:
            c.wrong |= h.wrong
            hinted = {t for t in names if t not in exact and (h.exact_run[t] or h.exact_inf[t])}

    row["tensors"] = len(names)
    row["run_exact"] = sum(c.exact_run.values())
    row["infer_exact"] = sum(c.exact_inf.values())
    row["hinted"] = len(hinted - c.wrong)
    row["unknown"] = sum(1 for t in names if t not in exact and t not in hinted and t not in c.wrong)
    row["wrong"] = len(c.wrong)
    row["rejected"] = len(c.rejected)
    if not row["reason"] and c.run_reason:
        row["reason"] = c.run_reason
    if not row["reason"] and row["unknown"]:
        t = next(t for t in names if t not in exact and t not in hinted)
        info = inf.get("tensors", {}).get(t) or {}
        row["reason"] = "first unknown: %s %s" % (t, info.get("shape"))
    if hinted and row["reason"]:
        row["reason"] = "without hints: " + row["reason"]
    return row


def main():
    if not os.access(CLI, os.X_OK):
        print("cannot run %s" % CLI)
        print("0 passed, 1 failed")
        return 1
    files = sorted(f for f in os.listdir(FIX) if f.endswith(".truth.json"))
    only = os.environ.get("REAL_ONLY")
    if only:
        files = [f for f in files if f[:-11] in only.split(",")]
    rows = []
    for f in files:
        try:
            rows.append(check_model(os.path.join(FIX, f)))
        except Exception as e:  # a malformed output fails the model, the run goes on
            report(f, False, "%s: %s" % (type(e).__name__, e))
    head = ("model", "nodes", "tensors", "run exact", "infer exact", "hinted", "unknown", "wrong", "rejected",
            "first blocking reason")
    fmt = "%-38s %6s %7s %9s %11s %6s %7s %5s %8s  %s"
    keys = ("nodes", "tensors", "run_exact", "infer_exact", "hinted", "unknown", "wrong", "rejected")
    print(fmt % head)
    tot = [0] * len(keys)
    for r in rows:
        print(fmt % tuple([r["model"]] + [r[k] for k in keys] + [r["reason"] or "-"]))
        for i, k in enumerate(keys):
            tot[i] += r[k] if isinstance(r[k], int) else 0
    print(fmt % tuple(["total (%d models)" % len(rows)] + tot + [""]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
