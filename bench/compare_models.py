#!/usr/bin/python3
"""The model workloads of BENCH.md side by side: inference of generated
transformer-like models (1k, 10k, 100k nodes) and the guard check and shape
evaluation per call of examples/transformer.json, in symshape (runtime
program and emitted C) and as Python expressions (guards_python.py), with
onnx.shape_inference.infer_shapes when python3-onnx is installed.

Usage: compare_models.py [BUILD] [--quick]
  BUILD    the build directory holding bench/bench_model and symshape
           (default build-bench, then build)
  --quick  1k and 10k nodes only, fewer calls, no 1M-node run

Without --quick it also runs the whole `symshape infer --json` of a
1,000,000-node model to a file, for its wall time and peak memory (about
15 s and 1 GB with the model's generation).

Exit status 0 when every driver ran (missed targets are reported, they do
not fail the run), 1 otherwise.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import bench_util
from bench_util import loadavg

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
TRANSFORMER = os.path.join(ROOT, "examples", "transformer.json")


def reexec_with_onnx():
    """Runs this script again with /usr/bin/python3 when the running
    Python has no onnx and that one has (python3-onnx is a Debian package)."""
    bench_util.reexec_with(["onnx"])


def find_build(arg):
    return bench_util.find_build(arg, os.path.join("bench", "bench_model"))



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
            best = None
            try:
                # the first call pays onnx's one-time setup: a warm-up, untimed
                inferred = onnx.shape_inference.infer_shapes(model, data_prop=prop)
                for _ in range(3 if nodes <= 10000 else 2):
                    t0 = time.perf_counter()
                    inferred = onnx.shape_inference.infer_shapes(model, data_prop=prop)
                    dt = time.perf_counter() - t0
                    best = dt if best is None else min(best, dt)
            except Exception as e:  # report, do not fail the comparison
                rows.append((nodes, prop, None, "%s" % str(e)[:100]))
                continue
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
            rows.append((nodes, prop, best, unknown))
    return rows, None


def cli_json_time(cli, path, reps):
    """Best wall time of the whole `symshape infer --json MODEL > file`."""
    best = None
    with tempfile.TemporaryFile() as out:
        for _ in range(reps):
            out.seek(0)
            t0 = time.perf_counter()
            p = subprocess.run([cli, "infer", path, "--json"], stdout=out, stderr=subprocess.DEVNULL)
            dt = time.perf_counter() - t0
            if p.returncode not in (0, 1):
                return None
            best = dt if best is None else min(best, dt)
    return best


# The child's peak resident memory, read by a Python of its own (so no
# other child's peak counts) from getrusage: no /usr/bin/time needed.
PEAK = """import resource, subprocess, sys, time
with open(sys.argv[1], "wb") as out:
    t0 = time.perf_counter()
    rc = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL).returncode
    dt = time.perf_counter() - t0
print(rc, dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def cli_json_peak(cli, path, out):
    """(seconds, peak KB) of the whole `symshape infer MODEL --json > out`,
    or None when it fails."""
    o = run([sys.executable, "-c", PEAK, out, cli, "infer", path, "--json"])
    if o is None:
        return None
    rc, dt, kb = o.split()
    return (float(dt), int(kb)) if rc in ("0", "1") else None


def million(cli, tmp):
    """The 1,000,000-node target, the whole CLI in under 15 s and 2 GB:
    (report lines, whether it ran)."""
    head = ("== 1,000,000-node generated model: whole `symshape infer --json` to a file (load average %s)"
            % loadavg())
    out = run([PYTHON, os.path.join(HERE, "gen_model.py"), tmp, "1000000"])
    if out is None:
        return [head, "  the model's generation failed"], False
    path, res = out.split()[0], os.path.join(tmp, "million.out.json")
    mb = os.path.getsize(path) / 1e6
    r = cli_json_peak(cli, path, res)
    os.unlink(path)
    if r is None:
        return [head, "  symshape infer failed"], False
    s, kb = r
    return [head, "  %.0f MB of JSON in, %.0f MB out: %.2f s, peak %.0f MB -> target < 15 s and < 2 GB: %s"
            % (mb, os.path.getsize(res) / 1e6, s, kb / 1024,
               "met" if s < 15 and kb < 2 * 1024 * 1024 else "MISSED")], True


def main(argv):
    reexec_with_onnx()
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
            r = kv(o.splitlines()[0])
            r["cli_s"] = cli_json_time(cli, path, 3 if n <= 10000 else 2)
            infer.append(r)
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
        if onnx_rows is not None:
            # symshape again, after onnx: the ratio of two tools timed close together
            for r, (path, n) in zip(infer, models):
                o = run([bench, "--reps", "3" if n <= 10000 else "2", path])
                if o:
                    again = kv(o.splitlines()[0])
                    r["infer_ms_again"] = again["infer_ms"]
                    r["total_ms_again"] = again["total_ms"]
        # last: its gigabyte leaves the machine's memory cold for the rest
        big_lines, ran = million(cli, tmp) if not quick else ([], True)
        ok = ok and ran

    print("== model inference (sym_model_load + sym_model_infer, median; load average %s)" % loadavg())
    print("  %8s  %10s  %10s  %10s  %12s  %6s  %s" % ("nodes", "load ms", "infer ms", "total ms", "ns per node",
                                                      "guards", "expressions (bytes each)"))
    for r in infer:
        print("  %8s  %10s  %10s  %10s  %12s  %6s  %s (%s)" % (
            r["nodes"], r["load_ms"], r["infer_ms"], r["total_ms"], r["ns_per_node"], r["guards"],
            r.get("expr_nodes", "?"), r.get("expr_bytes_per_node", "?")))
        if r["nodes"] == "100000" and "expr_bytes_per_node" in r:
            print("  target at 100k nodes: < 64 bytes per expression node: %s B %s"
                  % (r["expr_bytes_per_node"], "met" if float(r["expr_bytes_per_node"]) < 64 else "MISSED"))
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
    print("== onnx.shape_inference.infer_shapes (in process, warm-up call first, best of 2-3; load average %s)"
          % loadavg())
    if onnx_rows is None:
        print("  skipped: %s" % onnx_reason)
    else:
        print("  %8s  %10s  %10s  %12s" % ("nodes", "data_prop", "onnx ms", "unknown dims"))
        for n, prop, s, u in onnx_rows:
            if s is None:
                print("  %8d  %10s  failed: %s" % (n, prop, u))
            else:
                print("  %8d  %10s  %10.1f  %12d" % (n, prop, s * 1e3, u))
        print()
        print("== symshape against onnx, same run (onnx: infer_shapes, data_prop=False; symshape: the lower of"
              " its two timings)")
        print("  %8s  %10s  %10s  %12s  %10s  %11s  %11s  %s" % (
            "nodes", "onnx ms", "sym infer", "sym load+inf", "sym CLI ms", "onnx/infer", "onnx/CLI", "unknown dims"))
        by_n = {n: s for n, prop, s, u in onnx_rows if not prop and s is not None}
        for r in infer:
            n = int(r["nodes"])
            o = by_n.get(n)
            inf = min(float(r["infer_ms"]), float(r.get("infer_ms_again", r["infer_ms"])))
            tot = min(float(r["total_ms"]), float(r.get("total_ms_again", r["total_ms"])))
            cli_ms = r["cli_s"] * 1e3 if r.get("cli_s") else None
            print("  %8d  %10s  %10.1f  %12.1f  %10s  %11s  %11s  %s" % (
                n, "%.1f" % (o * 1e3) if o else "-", inf, tot, "%.1f" % cli_ms if cli_ms else "-",
                "%.2fx" % (o * 1e3 / inf) if o and inf else "-",
                "%.2fx" % (o * 1e3 / cli_ms) if o and cli_ms else "-", r.get("unknown_dims", "?")))
        big = [r for r in infer if r["nodes"] == "100000"]
        if big and by_n.get(100000):
            r, o = big[0], by_n[100000] * 1e3
            inf = min(float(r["infer_ms"]), float(r.get("infer_ms_again", r["infer_ms"])))
            print("  targets at 100k nodes: infer alone >= 2x onnx: %.2fx %s; whole CLI infer --json >= 1.5x: %s"
                  % (o / inf, "met" if o / inf >= 2 else "MISSED",
                     ("%.2fx %s" % (o / (r["cli_s"] * 1e3), "met" if o / (r["cli_s"] * 1e3) >= 1.5 else "MISSED"))
                     if r.get("cli_s") else "-"))
    if big_lines:
        print()
        print("\n".join(big_lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
