#!/usr/bin/python3
"""`symshape infer` against onnx.shape_inference.infer_shapes on ONNX models:
the fixtures of tests/fixtures/onnx/ and a generated exporter-like model of
about 10k nodes (attention blocks whose head split and merge reshape through
Shape -> Gather -> Unsqueeze -> Concat, with dynamic batch and seq).

For each model: the wall time of each (symshape: the whole `symshape infer
--json` process; onnx: onnx.load plus infer_shapes with data propagation, in
process, best of 3 after a warm-up call), their ratio (measured in the same
run, with the load average), and the dims of node outputs each leaves unknown: a
tensor without a shape counts as one, a dim that is neither a constant nor an
expression over the input dims counts as one (onnx names such dims "unk__N"
or leaves them empty).

Usage: bench_onnx.py [BUILD] [--nodes N]   (BUILD: build-bench, then build)
Needs python3-onnx; run under a Python without it, it runs itself again
with /usr/bin/python3.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

from bench_util import find_cli

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIX = os.path.join(ROOT, "tests", "fixtures", "onnx")

try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    import numpy as np
except ImportError as e:
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("bench_onnx: python3-onnx is needed (%s): sh tools/install-deps.sh python3-onnx" % e)



def generated(nodes):
    """Attention blocks of 27 nodes on x: (batch, seq, 16) until nodes:
    the head split and merge, and positions from Range expanded to
    (batch, seq) and added."""
    g_nodes, inits = [], []

    def c(name, vals):
        inits.append(numpy_helper.from_array(np.array(vals, np.int64), name))
        return name

    c("i0", 0), c("i1", 1), c("ax0", [0]), c("axl", [-1]), c("heads", [2]), c("dh", [8]), c("d", [16])
    x = "x"
    k = 0
    while len(g_nodes) + 27 <= nodes:
        p = "/layer.%d/" % k

        def n(op, ins, **attrs):
            out = "%s%s_%d_output_0" % (p, op, len(g_nodes))
            g_nodes.append(helper.make_node(op, ins, [out], name=out[:-9], **attrs))
            return out

        sh = n("Shape", [x])
        ub = n("Unsqueeze", [n("Gather", [sh, "i0"], axis=0), "ax0"])
        us = n("Unsqueeze", [n("Gather", [sh, "i1"], axis=0), "ax0"])
        t = n("Transpose", [n("Reshape", [x, n("Concat", [ub, us, "heads", "dh"], axis=0)])], perm=[0, 2, 1, 3])
        sc = n("Softmax", [n("MatMul", [t, n("Transpose", [t], perm=[0, 1, 3, 2])])], axis=-1)
        o = n("Transpose", [n("MatMul", [sc, t])], perm=[0, 2, 1, 3])
        r = n("Reshape", [o, n("Concat", [ub, us, "d"], axis=0)])
        # positions as torch exports arange(seq).expand(batch, seq)
        pos = n("Unsqueeze", [n("Range", ["i0", n("Gather", [sh, "i1"], axis=0), "i1"]), "ax0"])
        pos = n("Unsqueeze", [n("Cast", [n("Expand", [pos, n("Concat", [ub, us], axis=0)])], to=1), "axl"])
        x = n("Relu", [n("Add", [n("Add", [r, pos]), x])])
        k += 1
    g = helper.make_graph(g_nodes, "generated", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                               ["batch", "seq", 16])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", "seq", 16])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])


def input_params(m):
    inits = {t.name for t in m.graph.initializer}
    names = set()
    for vi in m.graph.input:
        if vi.name not in inits:
            names |= {d.dim_param for d in vi.type.tensor_type.shape.dim if d.dim_param}
    return names


def node_outputs(m):
    return [o for n in m.graph.node for o in n.output if o]


def onnx_run(path):
    """Best of 3 of onnx.load + infer_shapes, after an untimed warm-up call
    (the first call pays onnx's one-time setup)."""
    best = None
    try:
        onnx.shape_inference.infer_shapes(onnx.load(path), data_prop=True)
        for _ in range(3):
            t0 = time.perf_counter()
            m = onnx.load(path)
            inf = onnx.shape_inference.infer_shapes(m, data_prop=True)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
    except Exception as e:  # an opset this onnx does not know
        return None, None, str(e).splitlines()[0][:80]
    dt = best
    params = input_params(m)
    known = {vi.name: vi for vi in list(inf.graph.value_info) + list(inf.graph.output)}
    unknown = 0
    for o in node_outputs(m):
        vi = known.get(o)
        if vi is None or not vi.type.tensor_type.HasField("shape"):
            unknown += 1
            continue
        for d in vi.type.tensor_type.shape.dim:
            if not d.HasField("dim_value") and d.dim_param not in params:
                unknown += 1
    return dt, unknown, None


SYMBOL = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def symshape_run(cli, path, m):
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        p = subprocess.run([cli, "infer", path, "--json"], capture_output=True, text=True)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    if p.returncode not in (0, 1) or not p.stdout:
        return None, None, p.stderr.strip()[:80]
    res = json.loads(p.stdout)
    syms = {s["name"] for s in res["symbols"] if ".shape[" in s["source"]}
    unknown = 0
    for o in node_outputs(m):
        info = res["tensors"].get(o)
        if info is None or info["shape"] is None:
            unknown += 1
            continue
        for d in info["shape"]:
            if not {s for s in SYMBOL.findall(d) if s not in ("min", "max", "abs", "floor", "ceil")} <= syms:
                unknown += 1
    return best, unknown, None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    nodes = 10000
    if "--nodes" in sys.argv:
        nodes = int(sys.argv[sys.argv.index("--nodes") + 1])
        args = [a for a in args if a != str(nodes)]
    cli = find_cli(args[0] if args else None)
    if not cli:
        sys.exit("bench_onnx: no symshape binary (build first: make bench)")
    rows = []
    with tempfile.TemporaryDirectory() as d:
        paths = [os.path.join(FIX, f) for f in sorted(os.listdir(FIX)) if f.endswith(".onnx")]
        gen = os.path.join(d, "generated_%dk.onnx" % (nodes // 1000))
        onnx.save(generated(nodes), gen)
        paths.append(gen)
        for path in paths:
            m = onnx.load(path)
            st, su, serr = symshape_run(cli, path, m)
            ot, ou, oerr = onnx_run(path)
            rows.append((os.path.basename(path), len(m.graph.node), st, su, ot, ou, serr or oerr))
    try:
        load = " ".join("%.2f" % x for x in os.getloadavg())
    except OSError:
        load = "?"
    print("== symshape infer vs onnx.shape_inference.infer_shapes (data_prop=True), onnx %s, load average %s"
          % (onnx.__version__, load))
    print("%-24s %6s %12s %10s %10s %9s %9s" % ("model", "nodes", "symshape ms", "onnx ms", "onnx/sym",
                                                "unk(sym)", "unk(onnx)"))
    for name, n, st, su, ot, ou, err in rows:
        ratio = "%.2f" % (ot / st) if st and ot else "-"
        print("%-24s %6d %12s %10s %10s %9s %9s%s" % (
            name, n, "%.1f" % (st * 1e3) if st else "-", "%.1f" % (ot * 1e3) if ot else "-", ratio,
            su if su is not None else "-", ou if ou is not None else "-", "  (%s)" % err if err else ""))
    print("symshape ms: the whole CLI process, best of 3; onnx ms: load + infer_shapes in process, best of 3"
          " after a warm-up call; both measured in this run, model by model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
