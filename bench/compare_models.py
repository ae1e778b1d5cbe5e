#!/usr/bin/python3
"""The model workloads of BENCH.md side by side: inference of generated
transformer-like models (1k, 10k, 100k nodes) and the guard check and shape
evaluation per call of examples/transformer.json, in symshape (runtime
program and emitted C) and as Python expressions (guards_python.py), with
onnx.shape_inference.infer_shapes when python3-onnx is installed.

Usage: compare_models.py [BUILD] [--quick]
  BUILD    the build directory holding bench/bench_model and symshape
           (default build-bench, then build)
  --quick  1k and 10k nodes only, fewer calls

Exit status 0 when every driver ran (missed targets are reported, they do
not fail the run), 1 otherwise.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
TRANSFORMER = os.path.join(ROOT, "examples", "transformer.json")


def find_build(arg):
    for cand in ([arg] if arg else []) + ["build-bench", "build"]:
        for base in (cand, os.path.join(ROOT, cand)):
            if os.access(os.path.join(base, "bench", "bench_model"), os.X_OK):
                return base
    return None


def kv(line):
    """'infer PATH nodes 1000 load_ms 1.2 ...' -> {'nodes': '1000', ...}."""
    w = line.split()
    start = 2 if w[0] in ("infer", "program") else 1
    return dict(zip(w[start::2], w[start + 1::2]))


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.stderr.write("compare_models: %s failed (%d): %s\n" % (" ".join(cmd), p.returncode, p.stderr[-800:]))
        return None
    return p.stdout


def onnx_compare(models):
    """Rows (nodes, seconds, unknown dims) for onnx.shape_inference, or a
    reason it was skipped."""
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper  # noqa: F401
    except ImportError as e:
        return None, "python3-onnx is not installed (%s)" % e
    rows = []
    for path, nodes in models:
        with open(path) as f:
            m = json.load(f)
        dt = {"float32": TensorProto.FLOAT, "int64": TensorProto.INT64}

        def vi(t):
            return helper.make_tensor_value_info(t["name"], dt[t.get("dtype", "float32")],
                                                 [d if isinstance(d, int) else str(d) for d in t["shape"]])
        inits = []
        for t in m["initializers"]:
            if "data" in t:
                inits.append(helper.make_tensor(t["name"], TensorProto.INT64, t["shape"], t["data"]))
            else:
                n = 1
                for d in t["shape"]:
                    n *= d
                inits.append(helper.make_tensor(t["name"], TensorProto.FLOAT, t["shape"], [0.0] * n))
        nodes_pb = [helper.make_node(n["op"], n["inputs"], n["outputs"], name=n["name"],
                                     **{k: v for k, v in n.get("attrs", {}).items()}) for n in m["nodes"]]
        graph = helper.make_graph(nodes_pb, "g", [vi(t) for t in m["inputs"]],
                                  [helper.make_value_info(o, onnx.TypeProto()) for o in m["outputs"]],
                                  inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", m.get("opset", 18))])
        for prop in (False, True):
            t0 = time.perf_counter()
            try:
                inferred = onnx.shape_inference.infer_shapes(model, data_prop=prop)
            except Exception as e:  # report, do not fail the comparison
                rows.append((nodes, prop, None, "%s" % str(e)[:100]))
                continue
            t1 = time.perf_counter()
            unknown = 0
            vis = list(inferred.graph.value_info) + list(inferred.graph.output)
            for v in vis:
                tt = v.type.tensor_type
                if not tt.HasField("shape"):
                    unknown += 1  # unknown rank counts as one unknown dim
                    continue
                # a dim_param ONNX makes up ("unk__3") is an unknown dim too
                unknown += sum(1 for d in tt.shape.dim if not d.HasField("dim_value")
                               and (not d.HasField("dim_param") or d.dim_param.startswith("unk__")))
            rows.append((nodes, prop, t1 - t0, unknown))
    return rows, None


def main(argv):
    quick = "--quick" in argv
    args = [a for a in argv[1:] if not a.startswith("--")]
    build = find_build(args[0] if args else None)
    if not build:
        print("compare_models: no bench/bench_model in %s, build-bench or build (run `make bench`)"
              % (args[0] if args else "BUILD"))
        return 1
    bench = os.path.join(build, "bench", "bench_model")
    cli = os.path.join(build, "symshape")
    sizes = [(1000, 5), (10000, 3)] + ([] if quick else [(100000, 1)])
    ok = True
    with tempfile.TemporaryDirectory(prefix="symshape-models-") as tmp:
        out = run([PYTHON, os.path.join(HERE, "gen_model.py"), tmp] + [str(n) for n, _ in sizes])
        if out is None:
            return 1
        models = [(l.split()[0], int(l.split()[1])) for l in out.splitlines()]
        infer = []
        for (path, n), (_, reps) in zip(models, sizes):
            o = run([bench, "--reps", str(reps), path])
            if o is None:
                ok = False
                continue
            infer.append(kv(o.splitlines()[0]))
        calls = "200000" if quick else "2000000"
        o = run([bench, "--reps", "5", "--calls", calls, "--program", TRANSFORMER])
        prog = call = None
        if o:
            for l in o.splitlines():
                if l.startswith("program"):
                    prog = kv(l)
                elif l.startswith("call"):
                    call = kv(l)
        else:
            ok = False
        o = run([PYTHON, os.path.join(HERE, "guards_python.py"), cli, TRANSFORMER, "--calls",
                 "50000" if quick else "300000", "--reps", "5"])
        py = kv(o.splitlines()[0]) if o else None
        ok = ok and py is not None
        onnx_rows, onnx_reason = onnx_compare(models)

    print("== model inference (sym_model_load + sym_model_infer, median)")
    print("  %8s  %10s  %10s  %10s  %12s  %s" % ("nodes", "load ms", "infer ms", "total ms", "ns per node",
                                                 "guards"))
    for r in infer:
        print("  %8s  %10s  %10s  %10s  %12s  %s" % (r["nodes"], r["load_ms"], r["infer_ms"], r["total_ms"],
                                                     r["ns_per_node"], r["guards"]))
    if len(infer) >= 2:
        base = float(infer[0]["ns_per_node"])
        growth = ", ".join("%s: %.2fx" % (r["nodes"], float(r["ns_per_node"]) / base) for r in infer[1:])
        lin = all(float(r["ns_per_node"]) <= 2 * base for r in infer[1:])
        print("  per-node cost (load + infer) relative to %s nodes: %s  -> target linear growth (within 2x): %s"
              % (infer[0]["nodes"], growth, "met" if lin else "MISSED"))
        ib = float(infer[0]["infer_ms"]) / float(infer[0]["nodes"])
        print("  per-node cost of sym_model_infer alone relative to %s nodes: %s" % (
            infer[0]["nodes"], ", ".join("%s: %.2fx" % (r["nodes"], float(r["infer_ms"]) / float(r["nodes"]) / ib)
                                        for r in infer[1:])))
        for r in infer:
            if r["nodes"] == "10000":
                t, i = float(r["total_ms"]), float(r["infer_ms"])
                print("  10k nodes: load + infer %.1f ms, infer alone %.1f ms -> target < 100 ms: %s"
                      % (t, i, "met" if t < 100 else "MISSED" + (" (infer alone met)" if i < 100 else "")))
    print()
    print("== guard check and shape evaluation per call, %s" % os.path.relpath(TRANSFORMER, ROOT))
    if prog:
        print("  %s guards, %s input dims, %s output dims" % (prog["guards"], prog["dims"], prog["outs"]))
    rows = []
    if call and py:
        pc, ps = float(py["check_ns"]), float(py["shapes_ns"])
        ir, ec, es = float(call["interp_run_ns"]), float(call["emitted_check_ns"]), float(call["emitted_shapes_ns"])
        rows = [("runtime program: check + shapes", ir, pc + ps),
                ("emitted C, cc -O2: P_check", ec, pc),
                ("emitted C, cc -O2: P_shapes", es, ps)]
        print("  %-36s %10s %12s %8s" % ("", "symshape ns", "Python ns", "ratio"))
        for label, c, p in rows:
            print("  %-36s %10.1f %12.1f %7.0fx" % (label, c, p, p / c if c > 0 else float("inf")))
        best = min(ec, ir)
        print("  target >= 100x faster per check than Python: interpreter %.0fx, emitted C %.0fx -> %s"
              % ((pc + ps) / ir if ir else 0, pc / ec if ec > 0 else 0,
                 "met" if (ec > 0 and pc / ec >= 100) or (pc + ps) / ir >= 100 else "MISSED"))
        print("  target < 100 ns for the transformer's guard set: best %.1f ns -> %s"
              % (best, "met" if best < 100 else "MISSED"))
    else:
        print("  (a driver failed; see above)")
    print()
    print("== onnx.shape_inference.infer_shapes")
    if onnx_rows is None:
        print("  skipped: %s" % onnx_reason)
    else:
        print("  %8s  %10s  %10s  %12s" % ("nodes", "data_prop", "onnx ms", "unknown dims"))
        for n, prop, s, u in onnx_rows:
            if s is None:
                print("  %8d  %10s  failed: %s" % (n, prop, u))
            else:
                print("  %8d  %10s  %10.1f  %12d" % (n, prop, s * 1e3, u))
        for r in infer:
            print("  symshape %s nodes: %s ms (load + infer), unknown dims %s"
                  % (r["nodes"], r["total_ms"], r.get("unknown_dims", "?")))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
