#!/usr/bin/env python3
"""Integration tests of storage shapes, byte sizes, shape ranges, unknown rank
and data-dependent dims in the model commands (SPEC §10) on the models of
tests/models/storage_ranges: infer (text and --json), run, emit-c (compiled and
compared with run) and cache.

The CLI is found in $SYMSHAPE_CLI (set by meson), else in the first argument,
else at build/symshape.  The last line is "N passed, M failed"; the exit
status is nonzero when any check failed.
"""

import os
import random
import shutil
import subprocess
import sys
import tempfile

from clitest import ROOT, Result, check, main, parses_back, run

MODELS = os.path.join(ROOT, "tests", "models", "storage_ranges")
SEED = os.path.join(MODELS, "seed.json")
STORAGE = os.path.join(MODELS, "storage.json")
GUARD = os.path.join(MODELS, "guard_range.json")
UNKNOWN = os.path.join(MODELS, "unknown_rank.json")
NONZERO = os.path.join(MODELS, "nonzero.json")


def value(expr, env):
    """An expression of the output syntax evaluated with Python's integer
    semantics (the same // and % as symshape)."""
    return eval(expr, {"__builtins__": {}, "min": min, "max": max}, dict(env))


# --- storage shapes and byte sizes ----------------------------------------------

def test_seed_example():
    r = run(["infer", SEED])
    check("infer_seed_shows_origin_and_storage_shapes", r, 0,
          out=["[8, 3, 224, 224]", "NCHW -> NC1HWC0 [8, 1, 224, 224, 16]", "bytes    12845056",
               "total bytes: 25690112"])
    r = run(["infer", SEED, "--json"])
    j = r.json()
    check("infer_seed_json_has_storage_fields", r, 0, pred=lambda _: (
        j["tensors"]["x"]["format"] == "NCHW" and j["tensors"]["x"]["storage_format"] == "NC1HWC0"
        and j["tensors"]["x"]["storage_shape"] == ["8", "1", "224", "224", "16"]
        and j["tensors"]["x"]["bytes"] == "12845056" and j["total_bytes"] == "25690112") or repr(j["tensors"]["x"]))
    r = run(["run", SEED, "--shape", "x=8,3,224,224", "--json"])
    j = r.json()
    check("run_seed_evaluates_storage_and_bytes", r, 0, pred=lambda _: (
        j["storage_shapes"]["x"] == [8, 1, 224, 224, 16] and j["bytes"]["y"] == 12845056
        and j["total_bytes"] == 25690112) or repr(j))
    check("run_seed_text_prints_storage_and_bytes",
          run(["run", SEED, "--shape", "x=8,3,224,224"]), 0,
          out=["storage shapes:", "NC1HWC0    [8, 1, 224, 224, 16]", "total bytes: 25690112"])


def test_storage_model():
    r = run(["infer", STORAGE, "--json"])
    j = r.json()
    want = {"x": ["N", "(C + 15)//16", "H", "W", "16"],
            "w": ["9*((C + 15)//16)", "(K + 15)//16", "16", "16"],
            "b": ["1", "(K + 15)//16", "1", "1", "16"],
            "m": ["B", "(L + 15)//16", "(M + 15)//16", "16", "16"],
            "q": ["N", "(C + 31)//32", "H", "W", "32"],
            "v": ["N", "D", "(C + 15)//16", "H", "W", "16"],
            "z": ["N", "(C + 15)//16", "H", "W", "16"],
            "r": ["N", "H - 2", "W - 2", "K"]}

    def storage_ok(_):
        t = j["tensors"]
        for k, v in want.items():
            if t[k]["storage_shape"] != v:
                return "%s: %r" % (k, t[k].get("storage_shape"))
        if "storage_shape" in t["m_t"] or "format" in t["m_t"]:
            return "m_t has a storage format: %r" % t["m_t"]
        exprs = [d for v in t.values() for d in v.get("storage_shape", [])]
        exprs += [v["bytes"] for v in t.values()] + [j["total_bytes"]]
        bad = [e for e in exprs if not parses_back(e)]
        return not bad or "do not parse back: %r" % bad[:3]
    check("infer_storage_every_format_symbolic", r, 0, pred=storage_ok)
    check("infer_storage_text", run(["infer", STORAGE]), 0,
          out=["NCHW -> FRACTAL_Z [9*((C + 15)//16), (K + 15)//16, 16, 16]",
               "ND -> FRACTAL_NZ [B, (L + 15)//16, (M + 15)//16, 16, 16]",
               "NCDHW -> NDC1HWC0 [N, D, (C + 15)//16, H, W, 16]",
               "NCHW -> NC1HWC0 [N, (C + 31)//32, H, W, 32]", "memory:", "total bytes:"])

    # run at random dims: the storage shapes and bytes equal infer's
    # expressions evaluated at those dims
    rng = random.Random(int(os.environ.get("SYM_TEST_SEED", "1")))
    for k in range(6):
        env = {s: rng.randint(1, 70) for s in "NCKBMLD"}
        env["H"], env["W"] = rng.randint(3, 70), rng.randint(3, 70)
        e = env
        shapes = ["x=%d,%d,%d,%d" % (e["N"], e["C"], e["H"], e["W"]), "w=%d,%d,3,3" % (e["K"], e["C"]),
                  "b=%d" % e["K"], "m=%d,%d,%d" % (e["B"], e["M"], e["L"]),
                  "q=%d,%d,%d,%d" % (e["N"], e["C"], e["H"], e["W"]),
                  "v=%d,%d,%d,%d,%d" % (e["N"], e["C"], e["D"], e["H"], e["W"]),
                  "z=%d,%d,%d,%d" % (e["N"], e["H"], e["W"], e["C"])]
        args = ["run", STORAGE, "--json"]
        for s in shapes:
            args += ["--shape", s]
        rr = run(args)
        jr = rr.json()

        def agrees(_):
            for name, t in j["tensors"].items():
                if "storage_shape" in t and [value(d, env) for d in t["storage_shape"]] != jr["storage_shapes"][name]:
                    return "%s: %r vs %r" % (name, t["storage_shape"], jr["storage_shapes"][name])
                if value(t["bytes"], env) != jr["bytes"][name]:
                    return "%s bytes: %s vs %r" % (name, t["bytes"], jr["bytes"][name])
            return value(j["total_bytes"], env) == jr["total_bytes"] or "total"
        check("run_storage_agrees_with_infer_%d" % k, rr, 0, pred=agrees)


def test_align():
    r = run(["infer", SEED, "--json", "--align", "1"])
    j = r.json()
    check("infer_align_1", r, 0, pred=lambda _: j["tensors"]["x"]["bytes"] == "12845056" or repr(j))
    r = run(["infer", STORAGE, "--json", "--align", "512"])
    j = r.json()
    check("infer_align_512", r, 0, pred=lambda _: j["tensors"]["b"]["bytes"] == "512*((K + 255)//256)"
          or repr(j["tensors"]["b"]))
    r = run(["run", STORAGE, "--align=1", "--json"] + sum(
        (["--shape", s] for s in ["x=1,3,5,5", "w=4,3,3,3", "b=4", "m=1,2,3", "q=1,3,5,5", "v=1,3,2,5,5",
                                   "z=1,5,5,3"]), []))
    j = r.json()
    check("run_align_1_gives_exact_bytes", r, 0, pred=lambda _: j["bytes"]["z2"] == 300 or repr(j["bytes"]))
    check("align_zero_is_an_error", run(["infer", SEED, "--align", "0"]), 1, err="--align")
    check("align_without_value_is_misuse", run(["infer", SEED, "--align"]), 2)
    check("emit_c_takes_align", run(["emit-c", SEED, "--align", "64"]), 0, out="_bytes(")


# --- ranges ---------------------------------------------------------------------

def test_ranges():
    r = run(["infer", GUARD, "--range", "batch=1:64", "--json"])
    j = r.json()

    def all_ranges(_):
        for name, t in j["tensors"].items():
            if len(t["range"]) != len(t["shape"]):
                return "%s: %r" % (name, t)
        sy = {s["name"]: s for s in j["symbols"]}
        return (j["tensors"]["x"]["range"][0] == [1, 64] and j["tensors"]["y"]["range"][0] == [1, 64]
                and j["tensors"]["y"]["range"][1] == [16, 16] and sy["batch"]["max"] == 64) or repr(j["tensors"])
    check("infer_range_gives_every_dim_a_range", r, 0, pred=all_ranges)
    check("infer_range_text_prints_ranges", run(["infer", GUARD, "--range", "batch=1:64"]), 0,
          out=["ranges   [1, 64], 3, [7, inf), [7, inf)", "ranges   [1, 64], 16, [1, inf), [1, inf)",
               "batch        x.shape[0]               [1, 64]"])
    r = run(["infer", GUARD, "--json"])
    j = r.json()
    check("guards_without_ranges", r, 0, pred=lambda _: len(j["guards"]) == 2 or repr(j["guards"]))
    r = run(["infer", GUARD, "--json", "--range", "H=8:", "--range", "W=8:64", "--range", "batch=1:64"])
    j = r.json()
    check("guards_implied_by_ranges_are_gone", r, 0, pred=lambda _: (
        j["guards"] == [] and j["tensors"]["y"]["range"][2] == [1, None]
        and j["tensors"]["y"]["range"][3] == [1, 29]) or repr((j["guards"], j["tensors"]["y"])))
    r = run(["infer", GUARD, "--json", "--range", "H=8:"])
    j = r.json()
    check("a_range_drops_only_the_guard_it_implies", r, 0,
          pred=lambda _: [g["expr"] for g in j["guards"]] == ["W >= 7"] or repr(j["guards"]))
    check("run_checks_the_range", run(["run", GUARD, "--range", "H=8:", "--shape", "x=1,3,7,9"]), 1,
          err="H must be in the range [8, inf)")
    check("run_inside_the_range", run(["run", GUARD, "--range", "H=8:", "--shape", "x=1,3,8,9"]), 0,
          out="[1, 16, 1, 2]")
    check("range_of_unknown_symbol", run(["infer", GUARD, "--range", "zz=1:2"]), 1, err="'zz'")
    check("range_empty_is_an_error", run(["infer", GUARD, "--range", "H=9:8"]), 1, err="'H'")
    check("range_bad_syntax_is_misuse", run(["infer", GUARD, "--range", "H"]), 2)
    check("range_bad_end", run(["infer", GUARD, "--range", "H=a b:"]), 1, err="--range H")
    r = run(["cache", GUARD, "--range", "H=8:64", "--range", "W=8:64", "--variant", "", "--query", "x=1,3,9,9",
             "--query", "x=1,3,100,9"])
    check("cache_takes_ranges", r, 0, out=["reuse variant 0", "invalid input: H must be in the range [8, 64]"])
    r = run(["emit-c", GUARD, "--range", "H=8:"])
    check("emit_c_with_range_has_fewer_guards", r, 0, out="symshape_num_guards = 1;")


# --- unknown rank ---------------------------------------------------------------

def test_unknown_rank():
    r = run(["infer", UNKNOWN])
    check("unknown_rank_reports_the_node_that_needs_it", r, 1,
          out=["a                float32  (unknown rank)", "b                float32  (unknown rank)",
               "f                float32  [3, n]"],
          err=["node 'flat' (Flatten)", "unknown rank", "'after_flat'"])
    r = run(["infer", UNKNOWN, "--json"])
    j = r.json()
    check("unknown_rank_json", r, 1, pred=lambda _: (
        j["tensors"]["a"]["shape"] is None and j["tensors"]["b"]["shape"] is None
        and j["tensors"]["f"]["shape"] == ["3", "n"] and j["tensors"]["a"]["bytes"] is None
        and j["total_bytes"] is None and [e["node"] for e in j["errors"]] == ["flat", "after_flat"]) or repr(j))


# --- data-dependent dims --------------------------------------------------------

def test_nonzero():
    r = run(["infer", NONZERO])
    check("nonzero_infers_with_a_fresh_symbol", r, 0,
          out=["u0           the data-dependent size of node 'nz' (NonZero) [0, 4*n]", "[2, u0]",
               "pairs            int64    [u0, 2]"])
    r = run(["infer", NONZERO, "--json", "--range", "n=1:10"])
    j = r.json()
    check("nonzero_symbol_json", r, 0, pred=lambda _: [
        (s["min"], s["max"], s.get("max_expr")) for s in j["symbols"] if s["name"] == "u0"] == [(0, 40, "4*n")]
        or repr(j["symbols"]))
    check("run_needs_bind", run(["run", NONZERO, "--shape", "x=3,4"]), 1, err=["missing --bind u0=INT", "'nz'"])
    r = run(["run", NONZERO, "--shape", "x=3,4", "--bind", "u0=5", "--json"])
    j = r.json()
    check("run_with_bind", r, 0, pred=lambda _: (
        j["tensors"]["pairs"] == [5, 2] and j["tensors"]["idx"] == [2, 5] and j["bytes"]["idx"] == 96)
        or repr(j))
    check("run_bind_out_of_range", run(["run", NONZERO, "--shape", "x=3,4", "--bind", "u0=13"]), 1,
          err="data-dependent u0 must be in the range [0, 4*n]")
    check("run_bind_unknown_symbol", run(["run", NONZERO, "--shape", "x=3,4", "--bind", "u0=1,zz=2"]), 1,
          err="no data-dependent symbol 'zz'")
    check("run_bind_bad_value", run(["run", NONZERO, "--shape", "x=3,4", "--bind", "u0=x"]), 1, err="--bind u0")
    check("cache_refuses_data_dependent_dims", run(["cache", NONZERO, "--query", "x=3,4"]), 1,
          err="data-dependent")
    check("emit_c_documents_bound_symbols", run(["emit-c", NONZERO]), 0,
          out=["Data-dependent dims", "u0: the data-dependent size of node 'nz' (NonZero)"])


# --- emitted C ------------------------------------------------------------------

DRIVER = r"""
#include <stdint.h>
#include <stdio.h>
int P_check(const int64_t *dims);
int P_shapes(const int64_t *dims, int64_t *out);
int P_storage_shapes(const int64_t *dims, int64_t *out);
int P_bytes(const int64_t *dims, int64_t *out);
int main(int argc, char **argv)
{
	int64_t dims[64], out[256];
	int n = argc - 1, i, r;
	for (i = 0; i < n; i++)
		sscanf(argv[i + 1], "%lld", (long long *)&dims[i]);
	r = P_shapes(dims, out);
	printf("shapes %d", r);
	for (i = 0; r == 0 && i < NSHAPES; i++)
		printf(" %lld", (long long)out[i]);
	r = P_storage_shapes(dims, out);
	printf("\nstorage %d", r);
	for (i = 0; r == 0 && i < NSTORAGE; i++)
		printf(" %lld", (long long)out[i]);
	r = P_bytes(dims, out);
	printf("\nbytes %d", r);
	for (i = 0; r == 0 && i < NBYTES; i++)
		printf(" %lld", (long long)out[i]);
	printf("\n");
	return 0;
}
"""


def test_emit_c():
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        check("emit_c_needs_a_compiler", Result([], 1, "", "no C compiler"), 0)
        return
    cases = [
        (SEED, [], [["x=8,3,224,224"]], ["8", "3", "224", "224"], ["y"]),
        (NONZERO, [], [["x=3,4"], ["--bind", "u0=5"]], ["3", "4", "5"], ["pf"]),
        (STORAGE, ["--align", "64"],
         [["x=2,20,6,7"], ["w=5,20,3,3"], ["b=5"], ["m=2,3,40"], ["q=2,20,6,7"], ["v=2,20,3,6,7"], ["z=2,6,7,20"]],
         "2 20 6 7 5 20 3 3 5 2 3 40 2 20 6 7 2 20 3 6 7 2 6 7 20".split(), ["r", "p", "q", "v2", "z2"]),
    ]
    with tempfile.TemporaryDirectory() as d:
        for k, (model, extra, shapes, dims, outs) in enumerate(cases):
            name = os.path.basename(model)
            args = ["run", model, "--json"] + extra
            for s in shapes:
                args += s if s[0].startswith("--") else ["--shape", s[0]]
            jr = run(args).json()
            if jr is None:
                check("emit_c_reference_%s" % name, run(args), 0)
                continue
            r = run(["emit-c", model, "-o", os.path.join(d, "m%d.c" % k), "--prefix", "P"] + extra)
            check("emit_c_%s" % name, r, 0)
            shapes_want = [v for o in outs for v in jr["tensors"][o]]
            storage_want = [v for o in outs for v in jr["storage_shapes"].get(o, jr["tensors"][o])]
            bytes_want = [jr["bytes"][o] for o in outs] + [jr["total_bytes"]]
            drv = os.path.join(d, "drv%d.c" % k)
            with open(drv, "w") as f:
                f.write(DRIVER.replace("NSHAPES", str(len(shapes_want)))
                        .replace("NSTORAGE", str(len(storage_want))).replace("NBYTES", str(len(bytes_want))))
            exe = os.path.join(d, "m%d" % k)
            p = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe,
                                os.path.join(d, "m%d.c" % k), drv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if p.returncode:
                check("emit_c_compiles_%s" % name, Result([], 1, "", p.stderr.decode()[:600]), 0)
                continue
            out = subprocess.run([exe] + dims, stdout=subprocess.PIPE).stdout.decode()
            want = "shapes 0 %s\nstorage 0 %s\nbytes 0 %s\n" % (
                " ".join(map(str, shapes_want)), " ".join(map(str, storage_want)), " ".join(map(str, bytes_want)))
            check("emit_c_agrees_with_run_%s" % name, Result([exe] + dims, 0, out, ""), 0,
                  pred=lambda res, w=want: res.out == w or "want %r" % w)
        # a contradicting dim makes every entry point return -2
        out = subprocess.run([os.path.join(d, "m0"), "8", "4", "224", "224"], stdout=subprocess.PIPE).stdout.decode()
        check("emit_c_entry_points_check_the_guards", Result([], 0, out, ""), 0,
              pred=lambda res: res.out == "shapes -2\nstorage -2\nbytes -2\n" or res.out)
        out = subprocess.run([os.path.join(d, "m1"), "3", "4", "13"], stdout=subprocess.PIPE).stdout.decode()
        check("emit_c_checks_the_bound_symbol_range", Result([], 0, out, ""), 0,
              pred=lambda res: res.out.startswith("shapes -2") or res.out)


if __name__ == "__main__":
    sys.exit(main([test_seed_example, test_storage_model, test_align, test_ranges, test_unknown_rank,
                   test_nonzero, test_emit_c]))
