#!/usr/bin/python3
"""A real transformer export with inline weights against onnx's shape
inference (BENCH.md, "Model workloads"; issue target: the whole
`symshape infer --json` process >= 10x faster than onnx's in-process
infer_shapes).

The model: a 24-layer torch.nn.TransformerEncoder (d_model 256, 8 heads,
feed-forward 2048, batch_first), every parameter drawn at random so that
no two weights are equal (the exporter would share equal ones), exported
with torch.onnx.export into a temporary directory with dynamic batch and
sequence axes and its weights inline (about 127 MB).

Timed, in interleaved rounds (3 by default) after one untimed warm-up of each:
  symshape  the whole process `symshape infer MODEL --json > file`
  onnx      onnx.shape_inference.infer_shapes(model) in process, on the
            ModelProto loaded once (the load is not timed)
The medians of the rounds and their ratio are printed with the load
average; both tools run on the same file in the same run.

Usage: compare_torch.py [BUILD] [--layers N] [--rounds N]
  BUILD     the build directory holding symshape (default build-bench,
            then build)
  --layers  encoder layers (default 24)
  --rounds  interleaved rounds (default 3)
Needs python3-torch and python3-onnx (Debian packages, /usr/bin/python3);
without them it prints one line saying what is missing and exits 0.
Exit status 1 when a tool fails on the model.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

import bench_util
from bench_util import find_cli, has_modules, loadavg

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def reexec_with_torch():
    """Runs this script again with /usr/bin/python3 when the running
    Python lacks torch or onnx and that one has both."""
    bench_util.reexec_with(["torch", "onnx"])


# Run in a child process: torch's threads and memory stay out of the
# process that times onnx.
EXPORT = """
import sys, torch
path, layers = sys.argv[1], int(sys.argv[2])
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=2048, batch_first=True)
model = torch.nn.TransformerEncoder(layer, num_layers=layers).eval()
with torch.no_grad():
    for p in model.parameters():
        p.normal_(0, 0.02)
x = torch.randn(2, 16, 256)
torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}},
                  opset_version=14)
"""


def export(path, layers):
    p = subprocess.run([sys.executable, "-c", EXPORT, path, str(layers)], capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError("torch.onnx.export failed (%d): %s" % (p.returncode, p.stderr[-500:]))


def time_cli(cli, path, out):
    out.seek(0)
    out.truncate()
    t0 = time.perf_counter()
    p = subprocess.run([cli, "infer", path, "--json"], stdout=out, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError("symshape infer failed (%d): %s" % (p.returncode, p.stderr.decode()[-300:]))
    return dt


def time_onnx(model):
    import onnx
    t0 = time.perf_counter()
    onnx.shape_inference.infer_shapes(model)
    return time.perf_counter() - t0


def main(argv):
    reexec_with_torch()
    layers, rounds = 24, 3
    args = []
    i = 1
    while i < len(argv):
        if argv[i] in ("--layers", "--rounds") and i + 1 < len(argv):
            if argv[i] == "--layers":
                layers = int(argv[i + 1])
            else:
                rounds = int(argv[i + 1])
            i += 2
            continue
        args.append(argv[i])
        i += 1
    print("== transformer export with inline weights: whole `symshape infer --json` against onnx"
          " infer_shapes (load average %s)" % loadavg())
    missing = [m for m in ("torch", "onnx") if not has_modules(sys.executable, [m])]
    if missing:
        print("  skipped: python3-%s not installed (for %s)" % (" and python3-".join(missing), sys.executable))
        return 0
    import onnx
    cli = find_cli(args[0] if args else None)
    if not cli:
        print("  compare_torch: no symshape in %s, build-bench or build" % (args[0] if args else "BUILD"))
        return 1
    with tempfile.TemporaryDirectory(prefix="symshape-torch-") as tmp:
        path = os.path.join(tmp, "encoder%d.onnx" % layers)
        t0 = time.perf_counter()
        try:
            export(path, layers)
        except RuntimeError as e:
            print("  failed: %s" % e)
            return 1
        exp_s = time.perf_counter() - t0
        model = onnx.load(path)
        print("  %d-layer nn.TransformerEncoder (d_model 256): %d nodes, %.0f MB, exported in %.1f s"
              % (layers, len(model.graph.node), os.path.getsize(path) / 1e6, exp_s))
        sym_t, onnx_t = [], []
        with tempfile.TemporaryFile() as out:
            try:
                time_cli(cli, path, out)  # warm-up: the file in the page cache
                time_onnx(model)  # warm-up: onnx's first-call setup
                for _ in range(rounds):
                    sym_t.append(time_cli(cli, path, out))
                    onnx_t.append(time_onnx(model))
            except Exception as e:  # report, then fail the run
                print("  failed: %s" % e)
                return 1
    s, o = statistics.median(sym_t), statistics.median(onnx_t)
    print("  symshape infer --json (whole process): %8.1f ms  (rounds: %s)"
          % (s * 1e3, ", ".join("%.1f" % (t * 1e3) for t in sym_t)))
    print("  onnx infer_shapes (in process):        %8.1f ms  (rounds: %s)"
          % (o * 1e3, ", ".join("%.1f" % (t * 1e3) for t in onnx_t)))
    print("  ratio onnx / symshape: %.1fx -> target >= 10x: %s (load average %s)"
          % (o / s, "met" if o / s >= 10 else "MISSED", loadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
