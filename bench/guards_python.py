#!/usr/bin/python3
"""The guards and output shapes of a model evaluated as Python expressions,
the way PyTorch evaluates its guards: exact Python ints, // and % (floor
semantics), min/max, compiled once into a function of the input dims.

Usage: guards_python.py SYMSHAPE MODEL [--calls N] [--reps N]

Reads the guards, the symbols and the shapes from `SYMSHAPE infer MODEL
--json`, generates
    check(d)  -> 0, k+1 for the first failing guard k, -2 when the dims
                 contradict the declared shapes (the ABI of SPEC §8)
    shapes(d) -> the dims of every model output, concatenated
over the concrete dims d of every input, checks them against `SYMSHAPE run`
at a few points, then times them over the same valid points bench_model
uses.  Prints
    python guards G dims D outs O check_ns X shapes_ns Y
"""

import json
import math
import re
import subprocess
import sys
import time
from fractions import Fraction

TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(\*\*|//|&&|\|\||==|!=|<=|>=|[-+*/%<>!(),]))")


def to_python(expr, exact_div):
    """Translates the expression syntax of SPEC §5 into Python source."""
    out, pos = [], 0
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m:
            if expr[pos:].strip() == "":
                break
            raise ValueError("cannot translate %r at %d" % (expr, pos))
        num, name, op = m.groups()
        pos = m.end()
        if num is not None:
            out.append(num)
        elif name is not None:
            out.append({"true": "True", "false": "False", "floor": "_floor", "ceil": "_ceil"}.get(name, name))
        elif op == "&&":
            out.append(" and ")
        elif op == "||":
            out.append(" or ")
        elif op == "!":
            out.append(" not ")
        elif op == "/":
            out.append(" / " if exact_div else " / ")
        else:
            out.append(" %s " % op if op not in "()," else op)
    return "".join(out)


def _floor(x):
    return math.floor(x)


def _ceil(x):
    return math.ceil(x)


def build(info, model):
    """Python source of check(d) and shapes(d)."""
    exact = any("/" in re.sub("//", "", g["expr"]) for g in info["guards"])
    inputs = model["inputs"]
    lines = ["def check(d):"]
    binds, conds, pos = {}, [], 0
    for inp in inputs:
        for k, _ in enumerate(inp["shape"]):
            dim = info["tensors"][inp["name"]]["shape"][k]
            if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", dim) and dim not in binds:
                binds[dim] = pos
            else:
                conds.append("d[%d] != %s" % (pos, to_python(dim, exact)))
            pos += 1
    ndims = pos
    assign = ["    %s = %sd[%d]%s" % (s, "Fraction(" if exact else "", p, ")" if exact else "")
              for s, p in binds.items()]
    lines += assign
    if conds:
        # dims given by other dims are compared after every binding
        lines.append("    if %s:" % " or ".join(conds))
        lines.append("        return -2")
    for k, g in enumerate(info["guards"]):
        lines.append("    if not (%s):" % to_python(g["expr"], exact))
        lines.append("        return %d" % (k + 1))
    lines.append("    return 0")
    lines.append("def shapes(d):")
    lines += assign
    outs = []
    for name in model["outputs"]:
        outs += [to_python(x, exact) for x in info["tensors"][name]["shape"]]
    lines.append("    return [%s]" % ", ".join(outs))
    return "\n".join(lines) + "\n", ndims, len(outs)


def points(info, model, n=64):
    """The valid points of bench_model: batch-like symbols 1 + p % 16, the
    others 1 + (p*37) % 512, constants as declared."""
    pts = []
    for p in range(n):
        v, b = 1 + (p * 37) % 512, 1 + p % 16
        vals = {}
        for s in info["symbols"]:
            vals[s["name"]] = b if ("batch" in s["name"] or s["name"][0] == "N") else v
        d = []
        for inp in model["inputs"]:
            for dim in info["tensors"][inp["name"]]["shape"]:
                d.append(int(eval(to_python(dim, False), {"min": min, "max": max}, dict(vals))))
        pts.append(d)
    return pts


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    cli, path = argv[1], argv[2]
    calls = int(argv[argv.index("--calls") + 1]) if "--calls" in argv else 200000
    reps = int(argv[argv.index("--reps") + 1]) if "--reps" in argv else 5
    info = json.loads(subprocess.run([cli, "infer", path, "--json"], capture_output=True, check=True).stdout)
    with open(path) as f:
        model = json.load(f)
    src, ndims, nouts = build(info, model)
    env = {"Fraction": Fraction, "_floor": _floor, "_ceil": _ceil, "min": min, "max": max}
    exec(compile(src, "<guards>", "exec"), env)
    check, shapes = env["check"], env["shapes"]
    pts = points(info, model)
    # the Python functions agree with `symshape run` at a few points
    for d in pts[:3] + [[2, 128, 768, 3, 1, 1, 128]] if ndims == 7 else pts[:3]:
        args, p = [cli, "run", path, "--json"], 0
        for inp in model["inputs"]:
            r = len(inp["shape"])
            args += ["--shape", "%s=%s" % (inp["name"], ",".join(str(x) for x in d[p:p + r]))]
            p += r
        j = json.loads(subprocess.run(args, capture_output=True).stdout)
        c = check(d)
        if j["ok"] != (c == 0) or (j["ok"] and [x for n in model["outputs"] for x in j["tensors"][n]]
                                   != [int(x) for x in shapes(d)]):
            sys.stderr.write("guards_python: disagrees with symshape run at %r\n" % d)
            return 1
        if not j["ok"] and j["failed_guard"].get("index", -1) + 1 != c:
            sys.stderr.write("guards_python: failing guard differs at %r\n" % d)
            return 1
    if any(check(d) != 0 for d in pts):
        sys.stderr.write("guards_python: a benchmark point fails a guard\n")
        return 1
    tc, ts = [], []
    npts = len(pts)
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        for i in range(calls):
            check(pts[i % npts])
        t1 = time.perf_counter_ns()
        for i in range(calls):
            shapes(pts[i % npts])
        t2 = time.perf_counter_ns()
        # the loop itself, timed alone, is not the guards' cost
        for i in range(calls):
            pts[i % npts]
        t3 = time.perf_counter_ns()
        loop = t3 - t2
        tc.append(max(t1 - t0 - loop, 0) / calls)
        ts.append(max(t2 - t1 - loop, 0) / calls)
    tc.sort()
    ts.sort()
    print("python guards %d dims %d outs %d check_ns %.1f shapes_ns %.1f"
          % (len(info["guards"]), ndims, nouts, tc[len(tc) // 2], ts[len(ts) // 2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
