#!/usr/bin/env python3
"""The ONNX front end through the CLI, on the fixtures of tests/fixtures/onnx/
(written by gen.py and, for torch_*, gen_torch.py there, with their truth
shapes):

- `infer --json` on every fixture: every tensor has a known rank and every
  dim is an expression over the input symbols (no unknown dims: no symbol
  that is not an input dim, no unreached tensor);
- `run --json` for every recorded case gives every recorded shape;
- `infer MODEL -o OUT.onnx` writes a model that symshape loads again with the
  same shapes, and that python3-onnx loads and onnx.checker accepts (skipped
  with the reason printed only when no Python with python3-onnx exists);
- the bad files of bad/ give the recorded status and message.

The CLI is found in $SYMSHAPE_CLI (set by meson), else in the first argument,
else at build/symshape.  The last line is "N passed, M failed".
"""

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

CLI = os.environ.get("SYMSHAPE_CLI") or (sys.argv[1] if len(sys.argv) > 1 else "build/symshape")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures", "onnx")
TIMEOUT = 60

passed = failed = 0


def run(args):
    try:
        p = subprocess.run([CLI] + args, capture_output=True, timeout=TIMEOUT)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def report(name, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (name, ": " + why if why else ""))


def fixtures():
    return sorted(f[:-5] for f in os.listdir(FIX) if f.endswith(".json"))


SYMBOL = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
FUNCS = {"min", "max", "abs", "floor", "ceil"}


def symbols_of(text):
    return {s for s in SYMBOL.findall(text) if s not in FUNCS}


def check_infer(name, path, truth):
    rc, out, err = run(["infer", path, "--json"])
    if rc != 0:
        report(name + " infer", False, "status %s: %s" % (rc, err.strip()[:400]))
        return None
    res = json.loads(out)
    inputs = set(truth["cases"][0]["inputs"])
    syms = {s["name"] for s in res["symbols"]}
    bad = [s for s in res["symbols"] if not re.fullmatch(r"(%s)\.shape\[\d+\]" % "|".join(map(re.escape, inputs)),
                                                        s["source"])]
    report(name + " symbols are input dims", not bad, "symbols %s" % bad)
    unknown = []
    for t in truth["cases"][0]["tensors"]:
        info = res["tensors"].get(t)
        if info is None or info["shape"] is None:
            unknown.append(t)
            continue
        for d in info["shape"]:
            if not symbols_of(d) <= syms:
                unknown.append("%s %s" % (t, info["shape"]))
    report(name + " infer leaves no unknown dims", not unknown, "unknown: %s" % unknown[:5])
    return res


def check_run(name, path, truth):
    for k, case in enumerate(truth["cases"]):
        args = ["run", path, "--json"]
        for inp, dims in case["inputs"].items():
            args += ["--shape", "%s=%s" % (inp, ",".join(map(str, dims)))]
        rc, out, err = run(args)
        if rc != 0:
            report("%s run case %d" % (name, k), False, "status %s: %s %s" % (rc, out[:300], err[:300]))
            continue
        got = json.loads(out)["tensors"]
        wrong = ["%s: got %s, truth %s" % (t, got.get(t), dims) for t, dims in case["tensors"].items()
                 if got.get(t) != dims]
        report("%s run case %d %s" % (name, k, case["inputs"]), not wrong, "; ".join(wrong[:4]))


def onnx_python():
    """A Python that imports onnx: this one, or the system one."""
    for py in (sys.executable, "/usr/bin/python3"):
        if py and os.path.exists(py):
            p = subprocess.run([py, "-c", "import onnx, onnx.checker"], capture_output=True)
            if p.returncode == 0:
                return py
    return None


CHECKER = r"""
import json, sys
import onnx
out = {}
for path, checkable in json.loads(sys.argv[1]):
    m = onnx.load(path)
    if checkable:
        onnx.checker.check_model(m)
    shapes = {}
    for vi in list(m.graph.value_info) + list(m.graph.output):
        t = vi.type.tensor_type
        shapes[vi.name] = [d.dim_param if d.HasField("dim_param") else d.dim_value for d in t.shape.dim] \
            if t.HasField("shape") else None
    meta = {p.key: p.value for p in m.metadata_props}
    out[path] = {"shapes": shapes, "meta": meta, "nodes": len(m.graph.node)}
print(json.dumps(out))
"""


def check_write_back(items):
    """items: (name, written path, infer result, truth)."""
    py = onnx_python()
    for name, path, res, truth in items:
        # symshape reads its own output with the same shapes, and the
        # declared shapes now in value_info agree with inference
        rc, out, err = run(["infer", path, "--json"])
        ok = rc == 0
        if ok:
            back = json.loads(out)["tensors"]
            diff = [t for t in res["tensors"] if back.get(t, {}).get("shape") != res["tensors"][t]["shape"]]
            ok = not diff
            err = "shapes differ: %s" % diff[:5]
        report(name + " write-back reloads", ok, err.strip()[:400])
    if py is None:
        print("SKIP write-back checker: no Python with python3-onnx (sh tools/install-deps.sh python3-onnx)")
        return
    arg = json.dumps([(p, t.get("checkable", True)) for _, p, _, t in items])
    p = subprocess.run([py, "-c", CHECKER, arg], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        report("write-back passes onnx.checker", False, p.stderr.strip()[-800:])
        return
    seen = json.loads(p.stdout)
    for name, path, res, truth in items:
        got = seen[path]
        missing = []
        for t in truth["cases"][0]["tensors"]:
            shape = res["tensors"][t]["shape"]
            want = [int(d) if re.fullmatch(r"\d+", d) else d for d in shape]
            if got["shapes"].get(t) != want:
                missing.append("%s: %s, inferred %s" % (t, got["shapes"].get(t), want))
        report(name + " write-back has every shape in value_info", not missing, "; ".join(missing[:4]))
        guards = [k for k in got["meta"] if k.startswith("symshape.guard.")]
        report(name + " write-back has the guards", len(guards) == len(res["guards"]),
               "%d guard entries for %d guards" % (len(guards), len(res["guards"])))
        for k, g in enumerate(res["guards"]):
            want = "%s %s: %s (%s)" % (g["kind"], g["node"], g["expr"], g["reason"])
            report("%s guard %d in metadata" % (name, k), got["meta"].get("symshape.guard.%d" % k) == want,
                   "%r" % got["meta"].get("symshape.guard.%d" % k))
    report("write-back passes onnx.checker", True)


def check_bad():
    bad = os.path.join(FIX, "bad")
    with open(os.path.join(bad, "expected.json")) as f:
        expected = json.load(f)
    for name, want in sorted(expected.items()):
        rc, out, err = run(["infer", os.path.join(bad, name)])
        ok = rc == want["status"] and want["message"] in err
        report("bad file %s" % name, ok, "status %s, stderr %r (want %r)" % (rc, err, want["message"]))


# A minimal protobuf writer for the hand-made files of the checks below.
def pb_varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def pb_len(num, payload):
    payload = payload.encode() if isinstance(payload, str) else payload
    return pb_varint(num << 3 | 2) + pb_varint(len(payload)) + payload


def pb_int(num, v):
    return pb_varint(num << 3) + pb_varint(v & (2**64 - 1))


def pb_model(nodes, inputs, outputs, graph_extra=b"", model_extra=b""):
    """A ModelProto of opset 18: nodes (op, inputs, outputs, name), inputs
    (name, dims) of float32, output names; the extra bytes end the graph
    and the model."""

    def value_info(name, dims):
        shape = b"".join(pb_len(1, pb_int(1, d) if isinstance(d, int) else pb_len(2, d)) for d in dims)
        return pb_len(1, name) + pb_len(2, pb_len(1, pb_int(1, 1) + pb_len(2, shape)))

    g = b"".join(pb_len(1, b"".join(pb_len(1, i) for i in ins) + b"".join(pb_len(2, o) for o in outs)
                        + pb_len(3, name) + pb_len(4, op)) for op, ins, outs, name in nodes)
    g += pb_len(2, "g") + b"".join(pb_len(11, value_info(*i)) for i in inputs)
    g += b"".join(pb_len(12, pb_len(1, o)) for o in outputs) + graph_extra
    return pb_int(1, 8) + pb_len(7, g) + pb_len(8, pb_int(2, 18)) + model_extra


def check_invalid_keys():
    """A key protobuf-c keeps as an unknown field but that is invalid
    protobuf (field number 0 in a two-byte key, a number beyond 2**29 - 1)
    is a corrupt file naming the message and the byte, so that nothing read
    is written back into a file that is rejected."""
    relu = [("Relu", ["x"], ["y"], "r")]
    cases = [
        ("a two-byte key of field 0 in ModelProto", pb_model(relu, [("x", ["N", 3])], ["y"], model_extra=b"\x80\x00\x00"),
         "ModelProto: field number 0 at byte"),
        ("a two-byte key of field 0 in GraphProto", pb_model(relu, [("x", ["N", 3])], ["y"], graph_extra=b"\x82\x00\x01A"),
         "GraphProto: field number 0 at byte"),
        ("a field number beyond 2**29 - 1", pb_model(relu, [("x", ["N", 3])], ["y"], model_extra=pb_int(2**29, 5)),
         "field number 536870912 at byte"),
    ]
    with tempfile.TemporaryDirectory() as d:
        good = os.path.join(d, "good.onnx")
        with open(good, "wb") as f:
            f.write(pb_model(relu, [("x", ["N", 3])], ["y"]))
        rc, out, err = run(["infer", good])
        report("the hand-made model loads", rc == 0 and "[N, 3]" in out, "%s %r" % (rc, err))
        for name, data, want in cases:
            path = os.path.join(d, "bad.onnx")
            with open(path, "wb") as f:
                f.write(data)
            rc, out, err = run(["infer", path, "-o", os.path.join(d, "w.onnx")])
            report(name + " is a corrupt file", rc == 1 and "truncated or corrupt" in err and want in err
                   and not os.path.exists(os.path.join(d, "w.onnx")), "%s %r" % (rc, err))


def check_variadic_without_inputs():
    """Max, Min, Sum and Mean with no inputs are an error of the node."""
    with tempfile.TemporaryDirectory() as d:
        for op in ("Max", "Min", "Sum", "Mean"):
            path = os.path.join(d, op + ".onnx")
            with open(path, "wb") as f:
                f.write(pb_model([(op, [], ["y"], "v")], [("x", ["N", 3])], ["y"]))
            rc, out, err = run(["infer", path])
            report("%s without inputs is an error of the node" % op,
                   rc == 1 and "node 'v' (%s): input 0 is required" % op in err, "%s %r" % (rc, err))


def pb_tensor(name, dtype, dims, raw, dims_last=False):
    """A TensorProto with raw_data; dims_last writes the dims after the
    data (the wire format allows any field order)."""
    d = b"".join(pb_int(1, x) for x in dims)
    body = pb_len(8, name) + pb_int(2, dtype)
    return pb_len(5, body + pb_len(9, raw) + d if dims_last else body + d + pb_len(9, raw))


def peak_rss_mb(args):
    """Status, stdout, stderr and the peak memory of this one command.  A
    small Python process starts it: a forked child's peak counts the pages
    of its parent from before exec, and this one holds a large model."""
    measure = ("import os, subprocess, sys\n"
               "p = subprocess.Popen(sys.argv[1:])\n"
               "_, st, u = os.wait4(p.pid, 0)\n"
               "sys.stderr.write('\\npeak-kb %d %d\\n' % (os.waitstatus_to_exitcode(st), u.ru_maxrss))\n")
    p = subprocess.run([sys.executable, "-c", measure, CLI] + args, capture_output=True, timeout=TIMEOUT)
    err = p.stderr.decode()
    head, _, tail = err.rpartition("\npeak-kb ")
    rc, kb = tail.split()
    return int(rc), p.stdout.decode(), head, int(kb) / 1024.0


def check_inline_weights():
    """Weights are not loaded: a model with 96 MB of inline float weights
    infers in memory proportional to its graph (the whole file read and
    unpacked needs over twice its size), and a small int64 tensor whose
    data comes before its dims keeps its value."""
    import struct
    nw, rows = 6, 4096
    w = b"\0" * (rows * 1024 * 4)
    nodes = [("MatMul", ["x" if i == 0 else "h%d" % (i - 1), "w%d" % i], ["h%d" % i], "mm%d" % i) for i in range(nw)]
    # a rank-40 shape value of 320 bytes: its data is deferred, then kept
    ones = [1] * 39 + [5]
    nodes.append(("ConstantOfShape", ["s40"], ["z"], "cos"))
    inits = b"".join(pb_tensor("w%d" % i, 1, [1024 if i % 2 == 0 else rows, rows if i % 2 == 0 else 1024], w)
                     for i in range(nw))
    inits += pb_tensor("s40", 7, [40], struct.pack("<40q", *ones), dims_last=True)
    data = pb_model(nodes, [("x", ["N", 1024])], ["h%d" % (nw - 1), "z"], graph_extra=inits)
    # a small tensor with the wrong data size is still an error naming it
    bad = pb_model([("Relu", ["x"], ["y"], "r")], [("x", ["N", 3])], ["y"],
                   graph_extra=pb_tensor("t", 1, [4], b"\0" * 1000))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "weights.onnx")
        with open(path, "wb") as f:
            f.write(data)
        rc, out, err, mb = peak_rss_mb(["infer", path])
        limit = 64 if os.environ.get("ASAN_OPTIONS") is not None else 32
        report("96 MB of inline weights infer in under %d MB" % limit,
               rc == 0 and mb < limit and "[N, 1024]" in out, "%s %.0f MB %r" % (rc, mb, err))
        report("a deferred small tensor keeps its value",
               rc == 0 and "[%s]" % ", ".join(str(v) for v in ones) in out, "%s %r" % (rc, out[-500:]))
        rc, out, err = run(["run", path, "--shape", "x=3,1024"])
        report("run on inline weights", rc == 0 and "[3, 1024]" in out, "%s %r" % (rc, err))
        bpath = os.path.join(d, "bad.onnx")
        with open(bpath, "wb") as f:
            f.write(bad)
        rc, out, err = run(["infer", bpath])
        report("a small tensor with the wrong data size is an error",
               rc == 1 and "initializer 't': raw_data has 1000 bytes, 4 elements of float32 need 16" in err,
               "%s %r" % (rc, err))


def check_float_weights_at_the_integer_limit():
    """Floating-point data is kept only for tensors of at most 64 elements,
    so float weights of 65,536 elements each (256x256 projections, within
    the integer limit) are not copied either: 40 MB of them infer in memory
    proportional to the graph.  A small float tensor whose data_type comes
    after its data is still read, and its wrong data size is an error."""
    n = 160
    w = b"\0" * (256 * 256 * 4)
    nodes = [("MatMul", ["x" if i == 0 else "h%d" % (i - 1), "w%d" % i], ["h%d" % i], "mm%d" % i) for i in range(n)]
    inits = b"".join(pb_tensor("w%d" % i, 1, [256, 256], w) for i in range(n))
    data = pb_model(nodes, [("x", ["N", 256])], ["h%d" % (n - 1)], graph_extra=inits)
    # data_type last: the data is deferred until the whole tensor is read
    late = pb_len(5, pb_len(8, "t") + pb_int(1, 4) + pb_len(9, b"\0" * 1000) + pb_int(2, 1))
    bad = pb_model([("Relu", ["x"], ["y"], "r")], [("x", ["N", 3])], ["y"], graph_extra=late)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "proj.onnx")
        with open(path, "wb") as f:
            f.write(data)
        rc, out, err, mb = peak_rss_mb(["infer", path])
        limit = 64 if os.environ.get("ASAN_OPTIONS") is not None else 32
        report("40 MB of 256x256 float weights infer in under %d MB" % limit,
               rc == 0 and mb < limit and "[N, 256]" in out, "%s %.0f MB %r" % (rc, mb, err))
        bpath = os.path.join(d, "late.onnx")
        with open(bpath, "wb") as f:
            f.write(bad)
        rc, out, err = run(["infer", bpath])
        report("a small float tensor typed after its data is read (wrong data size)",
               rc == 1 and "initializer 't': raw_data has 1000 bytes, 4 elements of float32 need 16" in err,
               "%s %r" % (rc, err))


def check_fault_after_dropped_weights():
    """A fault inside a message the weightless copy passes over as it is (a
    TypeProto) is reported at its byte in the file, also when weights
    before it were dropped from the copy (a 100-element float tensor)."""
    bad_type = pb_len(2, pb_len(1, pb_int(1, 1) + b"\x00\x00"))  # field number 0
    extra = pb_tensor("w", 1, [100], b"\0" * 400) + pb_len(13, pb_len(1, "v") + bad_type)
    data = pb_model([("Relu", ["x"], ["y"], "r")], [("x", ["N", 3])], ["y"], graph_extra=extra)
    at = data.index(b"\x08\x01\x00\x00") + 2
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "fault.onnx")
        with open(path, "wb") as f:
            f.write(data)
        rc, out, err = run(["infer", path])
        report("a fault after dropped weights is placed in the file",
               rc == 1 and "TypeProto.Tensor: field number 0 at byte %d" % at in err, "%s %r (byte %d)" % (rc, err, at))


def check_unnamed_nodes_are_named_after_the_whole_operator():
    """An unnamed node is named after its whole operator and its index (the
    name once kept 60 bytes of the operator): two long operators that share
    their first 60 bytes keep the part that tells them apart, each message
    one line."""
    ops = ["Op" + "x" * 70 + "A", "Op" + "x" * 70 + "B"]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "unnamed.onnx")
        with open(path, "wb") as f:
            f.write(pb_model([(ops[0], ["x"], ["y"], ""), (ops[1], ["x"], ["z"], "")],
                             [("x", ["N", 3])], ["y", "z"]))
        rc, out, err = run(["infer", path])
        lines = err.splitlines()
        for k, op in enumerate(ops):
            want = "node '%s_%d': unsupported operator '%s'" % (op, k, op)
            report("unnamed node %d is named after its whole operator" % k,
                   any(want in line for line in lines), "%s %r" % (rc, err))


def check_cli_misc():
    # sym_model_load dispatches on content: an ONNX file under another name
    with tempfile.TemporaryDirectory() as d:
        other = os.path.join(d, "model.bin")
        with open(os.path.join(FIX, "mlp.onnx"), "rb") as f, open(other, "wb") as g:
            g.write(f.read())
        rc, out, err = run(["infer", other])
        report("an ONNX file named .bin loads", rc == 0, err)
        rc, out, err = run(["infer", os.path.join(ROOT, "examples", "cnn.json"), "-o", os.path.join(d, "x.onnx")])
        report("-o on a JSON model is an error", rc == 1 and "not an ONNX model" in err, "%s %r" % (rc, err))
        rc, out, err = run(["emit-c", os.path.join(FIX, "transformer.onnx"), "-o", os.path.join(d, "g.c")])
        report("emit-c on an ONNX model", rc == 0 and os.path.getsize(os.path.join(d, "g.c")) > 0, err)


def main():
    written = []
    with tempfile.TemporaryDirectory() as d:
        for name in fixtures():
            with open(os.path.join(FIX, name + ".json")) as f:
                truth = json.load(f)
            path = os.path.join(FIX, truth["model"])
            res = check_infer(name, path, truth)
            check_run(name, path, truth)
            out = os.path.join(d, name + ".out.onnx")
            rc, _, err = run(["infer", path, "-o", out])
            report(name + " infer -o", rc == 0 and os.path.exists(out), "%s %s" % (rc, err.strip()[:300]))
            if res is not None and rc == 0:
                written.append((name, out, res, truth))
        check_write_back(written)
    check_bad()
    check_invalid_keys()
    check_variadic_without_inputs()
    check_inline_weights()
    check_float_weights_at_the_integer_limit()
    check_fault_after_dropped_weights()
    check_cli_misc()
    check_unnamed_nodes_are_named_after_the_whole_operator()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
