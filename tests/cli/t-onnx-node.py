#!/usr/bin/env python3
"""ONNX's own node tests (Debian's libonnx-testdata, data/node/test_*) through
the CLI, in two variants per case:

- concrete: the model as it is, with the shapes of the input .pb files bound
  by `run --json --shape`; every graph output must get the shape of its
  expected output .pb;
- symbolic: every dim of every graph input becomes a symbol of its own
  (dim_param; a dim 0 stays 0, since shape symbols are >= 1), `infer --json`
  runs, and every output dim expression, evaluated exactly at the .pb
  shapes, must be the expected dim, with every guard true there.

In both variants the declared shapes of the graph outputs are removed (the
shapes come from the rules, never from the file), and the inputs whose
values the output shape depends on (VALUE_INPUTS: Reshape's shape, Slice's
starts, ...) become initializers holding their .pb data, as in a real model.

Cases: every node test whose graph has only default-domain operators with
an output shape defined by the input shapes, values and attributes; the
excluded ones are counted per reason (EXCLUDED).  A wrong shape always
fails.  A case that is not inferred (a runtime-bound output dim counts as
not inferred; guards over runtime-bound dims are checked at run time, not
here) fails unless KNOWN lists it with its reason, and a listed case that
passes fails too (the list stays true).

Usage: t-onnx-node.py [CLI] [--list] [--data DIR] [-k SUBSTRING]; the CLI
is found in $SYMSHAPE_CLI (set by meson), else the first argument, else
build/symshape.  Exits 77 (skipped) when the test data is not installed
(sh tools/install-deps.sh libonnx-testdata).  The last line is
"N passed, M failed".
"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile
from fractions import Fraction

args = [a for a in sys.argv[1:]]
LIST = "--list" in args
DATA = "/usr/share/libonnx-testdata/data/node"
ONLY = None
if "--data" in args:
    DATA = args[args.index("--data") + 1]
    del args[args.index("--data"):args.index("--data") + 2]
if "-k" in args:
    ONLY = args[args.index("-k") + 1]
    del args[args.index("-k"):args.index("-k") + 2]
args = [a for a in args if a != "--list"]
CLI = os.environ.get("SYMSHAPE_CLI") or (args[0] if args else "build/symshape")
TIMEOUT = 60

# Inputs (by position) whose values an operator's output shape depends on.
VALUE_INPUTS = {
    "Loop": [0, 1],
    "Reshape": [1], "Expand": [1], "Tile": [1], "Slice": [1, 2, 3, 4], "Pad": [1, 2, 3],
    "Resize": [1, 2, 3], "Upsample": [1], "TopK": [1], "Range": [0, 1, 2],
    "ConstantOfShape": [0], "OneHot": [1], "Split": [1], "Squeeze": [1], "Unsqueeze": [1],
    "ReduceSum": [1], "ReduceMean": [1], "ReduceMax": [1], "ReduceMin": [1],
    "ReduceProd": [1], "ReduceL1": [1], "ReduceL2": [1], "ReduceLogSum": [1],
    "ReduceLogSumExp": [1], "ReduceSumSquare": [1], "CenterCropPad": [1, 2],
    "Col2Im": [1, 2], "MaxUnpool": [2], "STFT": [1, 3], "DFT": [1, 2],
    "Dropout": [1, 2], "Trilu": [1], "CumSum": [1], "Clip": [1, 2],
    "BlackmanWindow": [0], "HannWindow": [0], "HammingWindow": [0], "MelWeightMatrix": [0, 1],
}

# Input dims (input position, dim) that the output rank depends on: they
# stay constants in the symbolic variant.
RANK_DIMS = {"GatherND": [(1, -1)], "ScatterND": [(1, -1)]}

# Operators whose output shape is not defined by the input shapes, values
# and attributes alone, by reason.
EXCLUDED = {
    "data-dependent output (the data, not its shape, gives the dims)":
        ["NonZero", "Unique", "Compress", "NonMaxSuppression", "StringNormalizer",
         "TfIdfVectorizer"],
    "sequences and optionals":
        ["SequenceConstruct", "SequenceAt", "SequenceInsert", "SequenceLength",
         "SequenceErase", "SequenceEmpty", "SplitToSequence", "ConcatFromSequence",
         "Optional", "OptionalHasElement", "OptionalGetElement", "SequenceMap"],
}

# Cases that are not inferred today, with the reason: "case" for both
# variants, "case variant" for one.  Only "not inferred" may be listed: a
# wrong shape always fails.
KNOWN = {
    "test_range_float_type_positive_delta_expanded":
        "the trip count is computed from graph inputs (start, limit, delta): "
        "the output dim is runtime-bound",
    "test_range_int32_type_negative_delta_expanded":
        "the trip count is computed from graph inputs (start, limit, delta): "
        "the output dim is runtime-bound",
    "test_scan_sum symbolic":
        "the state and the scan element get dims of their own, so the body's Add "
        "broadcasts them and the carried dim is not proven invariant (runtime-bound)",
    "test_scan9_sum symbolic":
        "the state and the scan element get dims of their own, so the body's Add "
        "broadcasts them and the carried dim is not proven invariant (runtime-bound)",
}


# ---- the protobuf wire format (the ModelProto and TensorProto subset) -----

def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """[(number, wiretype, value)] of a message: ints for varint/fixed, bytes
    for length-delimited."""
    out, i = [], 0
    while i < len(b):
        k, i = varint(b, i)
        n, wt = k >> 3, k & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wt == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        elif wt == 2:
            ln, i = varint(b, i)
            v, i = b[i:i + ln], i + ln
        else:
            raise ValueError("wire type %d" % wt)
        out.append((n, wt, v))
    return out


def enc_varint(v):
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        out.append(c | (0x80 if v else 0))
        if not v:
            return bytes(out)


def encode(fs):
    out = bytearray()
    for n, wt, v in fs:
        out += enc_varint(n << 3 | wt)
        if wt == 0:
            out += enc_varint(v)
        elif wt == 1:
            out += v.to_bytes(8, "little")
        elif wt == 5:
            out += v.to_bytes(4, "little")
        else:
            out += enc_varint(len(v)) + v
    return bytes(out)


def get(fs, n):
    return [v for k, _, v in fs if k == n]


def text(b):
    return b.decode("utf-8", "replace")


def tensor_dims(b):
    """The dims of a TensorProto (field 1, packed or not)."""
    dims = []
    for n, wt, v in fields(b):
        if n != 1:
            continue
        if wt == 0:
            dims.append(v - (1 << 64) if v >= 1 << 63 else v)
        else:
            i = 0
            while i < len(v):
                x, i = varint(v, i)
                dims.append(x - (1 << 64) if x >= 1 << 63 else x)
    return dims


def value_info(b):
    """(name, kind, fields) of a ValueInfoProto: kind "tensor", "sequence",
    "optional", ... from its TypeProto."""
    fs = fields(b)
    name = text(get(fs, 1)[0]) if get(fs, 1) else ""
    t = get(fs, 2)
    kind = "none"
    if t:
        tf = {n for n, _, _ in fields(t[0])}
        kind = ("tensor" if 1 in tf else "sequence" if 4 in tf else "map" if 5 in tf
                else "optional" if 9 in tf else "sparse" if 8 in tf else "none")
    return name, kind, fs


def strip_shape(vi):
    """A ValueInfoProto without its declared shape (elem type kept)."""
    out = []
    for n, wt, v in fields(vi):
        if n == 2:
            tp = []
            for n2, wt2, v2 in fields(v):
                if n2 == 1:
                    v2 = encode([f for f in fields(v2) if f[0] != 2])
                tp.append((n2, wt2, v2))
            v = encode(tp)
        out.append((n, wt, v))
    return encode(out)


def with_dims(vi, k, dims, symbolic, fixed):
    """A ValueInfoProto of the dims of the test data (a few tests declare
    other shapes than their data has); symbolic: the dims are symbols
    i<k>_<j>, except a dim 0 and the dims in fixed."""
    name, _, fs = value_info(vi)
    shape = []
    for j, d in enumerate(dims):
        sym = symbolic and d != 0 and (k, j) not in fixed and (k, j - len(dims)) not in fixed
        shape.append((1, 2, encode([(2, 2, ("i%d_%d" % (k, j)).encode())] if sym else [(1, 0, d)])))
    out = []
    for n, wt, v in fs:
        if n == 2:
            tp = []
            for n2, wt2, v2 in fields(v):
                if n2 == 1:
                    v2 = encode([f for f in fields(v2) if f[0] != 2] + [(2, 2, encode(shape))])
                tp.append((n2, wt2, v2))
            v = encode(tp)
        out.append((n, wt, v))
    return encode(out)


def with_name(tensor, name):
    return encode([f for f in fields(tensor) if f[0] != 8] + [(8, 2, name.encode())])


# ---- one case ----------------------------------------------------------------

def load_case(d):
    with open(os.path.join(d, "model.onnx"), "rb") as f:
        model = fields(f.read())
    graph = fields(get(model, 7)[0])
    nodes = [fields(n) for n in get(graph, 1)]
    ops = [(text(get(n, 7)[0]) if get(n, 7) else "", text(get(n, 4)[0])) for n in nodes]
    inits = {text(get(fields(t), 8)[0]) for t in get(graph, 5)}
    inputs = [value_info(v) + (v,) for v in get(graph, 11)]
    inputs = [i for i in inputs if i[0] not in inits]
    outputs = [value_info(v) + (v,) for v in get(graph, 12)]
    ds = os.path.join(d, "test_data_set_0")
    ins, outs = [], []
    for i in range(len(inputs)):
        p = os.path.join(ds, "input_%d.pb" % i)
        ins.append(open(p, "rb").read() if os.path.exists(p) else None)
    for i in range(len(outputs)):
        p = os.path.join(ds, "output_%d.pb" % i)
        outs.append(open(p, "rb").read() if os.path.exists(p) else None)
    return model, graph, nodes, ops, inputs, outputs, ins, outs


def exclusion(ops, inputs, outputs, ins, outs):
    for dom, op in ops:
        if dom not in ("", "ai.onnx"):
            return "operators of other domains (%s)" % dom
        for why, names in EXCLUDED.items():
            if op in names:
                return why
    if any(k != "tensor" for _, k, _, _ in inputs + outputs):
        return "sequences and optionals"
    if any(b is None for b in ins + outs):
        return "no test data for an input or output"
    return None


def value_input_names(nodes, ops):
    """The tensors whose values an output shape depends on: those at a
    VALUE_INPUTS position, and the inputs of a node computing one (Shape and
    Size read only the shape), so an expanded function's Range reaches the
    graph input it is computed from."""
    names, grew = set(), True
    while grew:
        grew = False
        for n, (_, op) in zip(nodes, ops):
            ins = [text(x) for x in get(n, 1)]
            outs = {text(x) for x in get(n, 2)}
            pos = VALUE_INPUTS.get(op, [])
            if op not in ("Shape", "Size") and outs & names:
                pos = range(len(ins))
            for k in pos:
                if k < len(ins) and ins[k] and ins[k] not in names:
                    names.add(ins[k])
                    grew = True
    return names


def rank_dims(nodes, ops, inputs):
    """(input position, dim) pairs that stay constants in the symbolic
    variant: the output rank depends on them."""
    pos = {name: k for k, (name, _, _, _) in enumerate(inputs)}
    out = set()
    for n, (_, op) in zip(nodes, ops):
        ins = [text(x) for x in get(n, 1)]
        for k, d in RANK_DIMS.get(op, []):
            if k < len(ins) and ins[k] in pos:
                out.add((pos[ins[k]], d))
    return out


def build(model, graph, inputs, outputs, ins, consts, fixed, symbolic):
    g = []
    kept = [(k, i) for k, i in enumerate(inputs) if i[0] not in consts]
    for n, wt, v in graph:
        if n in (11, 12):
            continue
        g.append((n, wt, v))
    for k, (name, _, _, raw) in enumerate(inputs):
        if name in consts:
            g.append((5, 2, with_name(ins[k], name)))
    for k, (name, _, _, raw) in kept:
        g.append((11, 2, with_dims(raw, k, tensor_dims(ins[k]), symbolic, fixed)))
    for name, _, _, raw in outputs:
        g.append((12, 2, strip_shape(raw)))
    return encode([(n, wt, encode(g) if n == 7 else v) for n, wt, v in model]), kept


def cli(argv):
    try:
        p = subprocess.run([CLI] + argv, capture_output=True, timeout=TIMEOUT)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", "timeout"


SYM = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
FUNCS = {"min": min, "max": max, "abs": abs, "floor": math.floor, "ceil": math.ceil}


def evaluate(expr, env):
    """The exact value of a printed expression (SPEC §2: rationals, floor
    // and %) at env, through Python's Fraction arithmetic."""
    py = expr.replace("&&", " and ").replace("||", " or ")
    py = re.sub(r"!(?!=)", " not ", py)
    py = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", py))
    py = re.sub(r"(?<![A-Za-z_0-9])(\d+)", r"Fraction(\1)", py)
    scope = dict(FUNCS, Fraction=Fraction)
    for s in set(SYM.findall(expr)) - set(FUNCS) - {"true", "false"}:
        if s not in env:
            raise KeyError("symbol %s is not an input dim" % s)
        scope[s] = Fraction(env[s])
    return eval(py, {"__builtins__": {}}, scope)


def first_error(res_json, err):
    if res_json and res_json.get("errors"):
        return res_json["errors"][0]["message"]
    return err.strip().splitlines()[0] if err.strip() else "no shape"


def concrete(path, kept, ins, outputs, want):
    argv = ["run", "--json", path]
    for k, (name, _, _, _) in kept:
        argv += ["--shape", "%s=%s" % (name, ",".join(str(d) for d in tensor_dims(ins[k])))]
    rc, out, err = cli(argv)
    try:
        j = json.loads(out)
    except ValueError:
        return "not inferred", "status %s: %s" % (rc, err.strip()[:300])
    if not j.get("ok"):
        return "wrong", "run failed: %s" % (err.strip()[:300] or j.get("failed_guard"))
    for (name, _, _, _), w in zip(outputs, want):
        got = j.get("tensors", {}).get(name)
        if got is None:
            return "not inferred", err.strip().splitlines()[0] if err.strip() else "no shape for " + name
        if list(got) != w:
            return "wrong", "%s: %s, expected %s" % (name, got, w)
    return "pass", ""


def symbolic(path, kept, ins, outputs, want):
    rc, out, err = cli(["infer", "--json", path])
    try:
        j = json.loads(out)
    except ValueError:
        return "not inferred", "status %s: %s" % (rc, err.strip()[:300])
    env = {}
    for k, (name, _, _, _) in kept:
        for jd, d in enumerate(tensor_dims(ins[k])):
            env["i%d_%d" % (k, jd)] = d
    # runtime-bound dims (SPEC §10): known only when the model runs
    bound = set(x["name"] for x in j.get("symbols", []) if x["name"] not in env)
    try:
        for g in j.get("guards", []):
            if set(SYM.findall(g["expr"])) & bound:
                continue  # checked at run time
            if evaluate(g["expr"], env) is not True:
                return "wrong", "guard %s (%s) fails at the test's shapes" % (g["expr"], g["node"])
        for (name, _, _, _), w in zip(outputs, want):
            t = j["tensors"].get(name)
            if not t or t.get("shape") is None:
                return "not inferred", first_error(j, err)
            late = sorted(set(SYM.findall(" ".join(t["shape"]))) & bound)
            if late:
                return "not inferred", "%s is runtime-bound: %s" % (name, ", ".join(late))
            got = [evaluate(e, env) for e in t["shape"]]
            if got != w:
                return "wrong", "%s: %s = %s, expected %s" % (name, t["shape"], got, w)
    except (KeyError, SyntaxError, TypeError, ZeroDivisionError, NameError) as e:
        return "wrong", "cannot evaluate: %s: %s" % (type(e).__name__, e)
    return "pass", ""


def main():
    if not os.path.isdir(DATA):
        print("SKIP: %s is not installed (sh tools/install-deps.sh libonnx-testdata)" % DATA)
        return 77
    if not os.access(CLI, os.X_OK):
        print("cannot run %s\n0 passed, 1 failed" % CLI)
        return 1
    excluded, results = {}, {}
    tmp = tempfile.mkdtemp(prefix="t-onnx-node-")
    for case in sorted(os.listdir(DATA)):
        if ONLY and ONLY not in case:
            continue
        d = os.path.join(DATA, case)
        model, graph, nodes, ops, inputs, outputs, ins, outs = load_case(d)
        why = exclusion(ops, inputs, outputs, ins, outs)
        if why:
            excluded.setdefault(why, []).append(case)
            continue
        consts = value_input_names(nodes, ops)
        fixed = rank_dims(nodes, ops, inputs)
        want = [tensor_dims(b) for b in outs]
        for variant, fn in (("concrete", concrete), ("symbolic", symbolic)):
            data, kept = build(model, graph, inputs, outputs, ins, consts, fixed, variant == "symbolic")
            path = os.path.join(tmp, "%s-%s.onnx" % (case, variant))
            with open(path, "wb") as f:
                f.write(data)
            results[(case, variant)] = fn(path, kept, ins, outputs, want)
            os.unlink(path)
    os.rmdir(tmp)

    cases = sorted({c for c, _ in results})
    failed = 0
    print("node tests in %s: %d cases, %d excluded:" % (DATA, len(cases) + sum(map(len, excluded.values())),
                                                      sum(map(len, excluded.values()))))
    for why, cs in sorted(excluded.items()):
        print("  %3d %s" % (len(cs), why))
        if LIST:
            print("      " + " ".join(cs))
    for variant in ("concrete", "symbolic"):
        n = sum(1 for c in cases if results[(c, variant)][0] == "pass")
        print("%s: %d of %d pass (%.1f%%)" % (variant, n, len(cases), 100.0 * n / max(1, len(cases))))
    for c in cases:
        for variant in ("concrete", "symbolic"):
            st, why = results[(c, variant)]
            known = KNOWN.get("%s %s" % (c, variant)) or KNOWN.get(c)
            if st == "pass" and known:
                failed += 1
                print("FAIL %s %s: passes, but KNOWN lists it (%s)" % (c, variant, known))
            elif st == "wrong" or (st != "pass" and not known):
                failed += 1
                print("FAIL %s %s (%s): %s" % (c, variant, st, why))
            elif st != "pass" and LIST:
                print("known %s %s: %s (%s)" % (c, variant, known, why))
    print("%d passed, %d failed" % (2 * len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
