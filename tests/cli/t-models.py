#!/usr/bin/env python3
"""Integration tests of the model commands of the symshape CLI (SPEC §5-§8):
infer (text and --json), run (text and --json), emit-c and cache on the
example models.

The CLI is found in $SYMSHAPE_CLI (set by meson), else in the first argument,
else at build/symshape.  Every check prints its name, the command and what it
got when it fails; the last line is "N passed, M failed" and the exit status
is nonzero when any check failed.
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

from clitest import ROOT, check, main, parses_back, report, run

TRANSFORMER = os.path.join(ROOT, "examples", "transformer.json")
CNN = os.path.join(ROOT, "examples", "cnn.json")
STORAGE = os.path.join(ROOT, "examples", "storage.json")
NONZERO_MODEL = os.path.join(ROOT, "tests", "models", "nonzero.json")
IF_MODEL = os.path.join(ROOT, "tests", "models", "if_branches.json")
LOOP_MODEL = os.path.join(ROOT, "tests", "models", "loop_scan.json")


# --- infer -------------------------------------------------------------------

def test_infer_text():
    r = run(["infer", TRANSFORMER])
    check("infer_transformer_text_lists_symbols_with_sources", r, 0,
          out=["symbols:", "batch", "x.shape[0]", "mseq", "mask.shape[3]"])
    check("infer_transformer_text_prints_symbolic_shapes", r, 0,
          out=["[batch, seq, 3, 12, 64]", "scores_masked    float32  [batch, 12, seq, seq]",
               "[batch, seq, 768]"])
    check("infer_transformer_text_prints_guards_with_kind_node_reason", r, 0,
          out=["guards:", "assert batch == 1 || batch == mbatch || mbatch == 1",
               "node add_mask", "node merge_heads", "mbatch <= batch"])
    check("infer_transformer_text_prints_merge_keys", r, 0,
          out=["merge keys:", "[batch, seq, 768]: ln1, merge_heads, out_proj, residual1, ln2, fc2, residual2",
               "[batch, 12, seq, seq]: scores, scale_scores"])
    r = run(["infer", CNN])
    check("infer_cnn_text_prints_conv_formulas", r, 0,
          out=["[N, 64, (H + 1)//2, (W + 1)//2]", "[N, 128, (H + 7)//16, (W + 7)//16]",
               "assert H >= 9", "node conv3", "[N, 10]"])


def infer_json(model, extra=()):
    r = run(["infer", model, "--json"] + list(extra))
    try:
        return r, json.loads(r.out)
    except ValueError:
        return r, None


def test_infer_json():
    r, j = infer_json(TRANSFORMER)
    check("infer_json_is_json", r, 0, pred=lambda _: j is not None or "not JSON")
    if j is None:
        return

    def symbols_ok(_):
        syms = {s["name"]: s for s in j["symbols"]}
        if set(syms) != {"batch", "seq", "mbatch", "mseq"}:
            return "symbols %s" % sorted(syms)
        s = syms["batch"]
        return (s["source"] == "x.shape[0]" and s["min"] == 1 and s["max"] is None
                and syms["mseq"]["source"] == "mask.shape[3]") or "batch: %r" % s
    check("infer_json_symbols_have_name_source_min_max", r, 0, pred=symbols_ok)

    def tensors_ok(_):
        t = j["tensors"]
        if {k: t["y"].get(k) for k in ("shape", "dtype")} != {"shape": ["batch", "seq", "768"], "dtype": "float32"}:
            return "y: %r" % t["y"]
        if t["qkv_5d"]["shape"] != ["batch", "seq", "3", "12", "64"]:
            return "qkv_5d: %r" % t["qkv_5d"]
        if t["idx0"]["dtype"] != "int64" or t["idx0"]["shape"] != []:
            return "idx0: %r" % t["idx0"]
        bad = [d for v in t.values() for d in (v["shape"] or []) if not parses_back(d)]
        return not bad or "dims that do not parse back: %r" % bad[:3]
    check("infer_json_tensors_have_shape_and_dtype", r, 0, pred=tensors_ok)

    def guards_ok(_):
        g = j["guards"]
        want = [("batch == 1 || batch == mbatch || mbatch == 1", "assert", "add_mask"),
                ("mseq == 1 || mseq == seq || seq == 1", "assert", "add_mask"),
                ("mseq <= seq", "assert", "context"),
                ("mbatch <= batch", "assert", "merge_heads")]
        got = [(x["expr"], x["kind"], x["node"]) for x in g]
        if got != want:
            return "guards %r" % got
        if not all(x["reason"] for x in g):
            return "a guard without a reason"
        return all(parses_back(x["expr"]) for x in g) or "a guard does not parse back"
    check("infer_json_guards_have_expr_kind_node_reason", r, 0, pred=guards_ok)

    def keys_ok(_):
        k = j["merge_keys"]
        return (k.get("[batch, seq, 768]") == ["ln1", "merge_heads", "out_proj", "residual1", "ln2", "fc2",
                                             "residual2"]
                # the mask's broadcast is simplified under the later guards
                and k.get("[batch, 12, seq, seq]") == ["scores", "scale_scores", "add_mask", "softmax"]) \
            or "merge_keys %r" % k
    check("infer_json_merge_keys_group_nodes", r, 0, pred=keys_ok)

    r, j = infer_json(TRANSFORMER, ["--hint", "batch=2,mbatch=2,seq=128,mseq=128"])

    # the expects state the hinted choices; the asserts the expects imply
    # stay, so a hinted program still tells invalid input from a recompile
    def hinted_ok(_):
        got = [(x["expr"], x["kind"], x["node"]) for x in j["guards"]]
        return got == [("batch == 1 || batch == mbatch || mbatch == 1", "assert", "add_mask"),
                       ("mseq == 1 || mseq == seq || seq == 1", "assert", "add_mask"),
                       ("mseq <= seq", "assert", "context"),
                       ("mbatch <= batch", "assert", "merge_heads"),
                       ("batch == mbatch", "expect", "add_mask"), ("mseq == seq", "expect", "add_mask")] \
            or "guards %r" % got
    check("infer_json_hints_give_expect_guards_and_keep_the_asserts", r, 0, pred=hinted_ok)

    r, j = infer_json(CNN)
    check("infer_json_cnn_symbol_ranges_follow_guards", r, 0,
          pred=lambda _: [(s["name"], s["min"]) for s in j["symbols"]] == [("N", 1), ("H", 9), ("W", 9)]
          or "symbols %r" % j["symbols"])


# --- run ---------------------------------------------------------------------

def run_json(model, shapes):
    args = ["run", model, "--json"]
    for s in shapes:
        args += ["--shape", s]
    r = run(args)
    try:
        return r, json.loads(r.out)
    except ValueError:
        return r, None


def test_run():
    r = run(["run", TRANSFORMER, "--shape", "x=2,128,768", "--shape", "mask=2,1,1,128"])
    check("run_text_prints_concrete_shapes", r, 0, out=["ok", "[2, 128, 3, 12, 64]", "[2, 12, 128, 128]"])
    r, j = run_json(TRANSFORMER, ["x=2,128,768", "mask=2,1,1,128"])
    check("run_json_ok_with_every_tensor", r, 0,
          pred=lambda _: (j["ok"] is True and j["failed_guard"] is None and j["tensors"]["y"] == [2, 128, 768]
                          and j["tensors"]["probs"] == [2, 12, 128, 128]
                          and j["tensors"]["qkv_t"] == [3, 2, 12, 128, 64]) or "got %r" % j)
    r, j = run_json(TRANSFORMER, ["x=2,128,768", "mask=1,1,1,1"])
    check("run_json_broadcasts_a_mask_of_ones", r, 0,
          pred=lambda _: j["tensors"]["scores_masked"] == [2, 12, 128, 128] or "got %r" % j)
    r, j = run_json(TRANSFORMER, ["x=2,128,768", "mask=3,1,1,128"])
    check("run_json_failed_guard_names_itself_and_its_node", r, 1,
          pred=lambda _: (j["ok"] is False and j["failed_guard"]["expr"] ==
                          "batch == 1 || batch == mbatch || mbatch == 1"
                          and j["failed_guard"]["node"] == "add_mask"
                          and j["failed_guard"]["kind"] == "assert") or "got %r" % j)
    r = run(["run", TRANSFORMER, "--shape", "x=2,128,768", "--shape", "mask=2,1,1,64"])
    check("run_text_failed_guard_on_stderr", r, 1, err=["guard 2 failed", "mseq == seq", "node add_mask"])
    r = run(["run", CNN, "--shape", "x=8,3,8,8"])
    check("run_cnn_too_small_fails_conv_guard", r, 1, err=["H >= 9", "conv3"])
    r, j = run_json(CNN, ["x=8,3,224,224"])
    check("run_cnn_224", r, 0, pred=lambda _: (j["tensors"]["c1"] == [8, 64, 112, 112]
                                                and j["tensors"]["p1"] == [8, 64, 56, 56]
                                                and j["tensors"]["c3"] == [8, 128, 27, 27]
                                                and j["tensors"]["p2"] == [8, 128, 14, 14]
                                                and j["tensors"]["logits"] == [8, 10]) or "got %r" % j)
    r, j = run_json(TRANSFORMER, ["x=2,128,512", "mask=2,1,1,128"])
    check("run_json_binding_failure_names_the_dim", r, 1,
          pred=lambda _: (j["ok"] is False and "'x' dim 2" in j["failed_guard"]["expr"]) or "got %r" % j)
    r = run(["run", CNN, "--shape", "x=0,3,32,32"])
    check("run_dim_outside_the_symbol_range_is_a_binding_failure", r, 1,
          err=["N must be in the range [1, inf)", "input 'x' dim 0"])
    r, j = run_json(CNN, ["x=0,3,32,32"])
    check("run_json_dim_outside_the_symbol_range_is_a_binding_failure", r, 1,
          pred=lambda _: (j["ok"] is False and j["failed_guard"]["kind"] == "binding"
                          and "N must be in the range" in j["failed_guard"]["expr"]) or "got %r" % j)
    r = run(["run", CNN, "--allow-empty", "--shape", "x=0,3,32,32"])
    check("run_allow_empty_takes_a_zero_dim", r, 0, out="[0, 10]")
    # concrete shapes at random sizes follow the symbolic formulas
    rnd = random.Random(int(os.environ.get("SYM_TEST_SEED") or 1))
    for i in range(6):
        n, h, w = rnd.randint(1, 9), rnd.randint(9, 400), rnd.randint(9, 400)
        r, j = run_json(CNN, ["x=%d,3,%d,%d" % (n, h, w)])
        want = [n, 128, (h + 7) // 16, (w + 7) // 16]
        check("run_cnn_random_%d" % i, r, 0,
              pred=lambda _: (j["tensors"]["p2"] == want
                              and j["tensors"]["c3"] == [n, 128, (h + 7) // 8 - 1, (w + 7) // 8 - 1])
              or "got %r, want p2 %r" % (j and j["tensors"].get("p2"), want))


# --- emit-c ------------------------------------------------------------------

def test_emit_c():
    cc = os.environ.get("CC") or "cc"
    d = tempfile.mkdtemp(prefix="symshape-t-models-")
    try:
        src = os.path.join(d, "g.c")
        r = run(["emit-c", TRANSFORMER, "-o", src, "--prefix", "tfm"])
        check("emit_c_writes_file", r, 0, pred=lambda _: os.path.getsize(src) > 0 or "empty file")
        r2 = run(["emit-c", TRANSFORMER, "--prefix", "tfm"])
        check("emit_c_stdout_equals_file", r2, 0, pred=lambda _: r2.out == open(src).read() or "differs")
        text = open(src).read()
        report("emit_c_abi_names", all(s in text for s in ["int tfm_check(const int64_t *dims)",
                                                            "int tfm_shapes(const int64_t *dims, int64_t *out)",
                                                            "tfm_num_guards", "tfm_guard_text"]),
               r, "ABI names missing")
        report("emit_c_needs_no_symshape_header", "symshape/" not in text and "#include \"" not in text, r)
        # a long prefix is written in full everywhere (no fixed-size buffer cuts a line)
        long_prefix = "p" * 300
        for model in (TRANSFORMER, STORAGE):
            lsrc = os.path.join(d, "long.c")
            r3 = run(["emit-c", model, "-o", lsrc, "--prefix", long_prefix])
            if not check("emit_c_long_prefix_%s" % os.path.basename(model), r3, 0):
                continue
            ltext = open(lsrc).read()
            want = ["int %s_shapes(const int64_t *dims, int64_t *out)\n{" % long_prefix,
                    "const int %s_num_guards = " % long_prefix]
            if model == STORAGE:
                want.append("int %s_bytes(const int64_t *dims, int64_t *out)\n{" % long_prefix)
            report("emit_c_long_prefix_in_full_%s" % os.path.basename(model), all(w in ltext for w in want), r3,
                   "a definition is cut short")
            p = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", lsrc],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            report("emit_c_long_prefix_compiles_%s" % os.path.basename(model), p.returncode == 0, r3,
                   p.stdout.decode()[:800])
        drv = os.path.join(d, "drv.c")
        with open(drv, "w") as f:
            f.write("""#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int tfm_check(const int64_t *dims);
int tfm_shapes(const int64_t *dims, int64_t *out);
extern const int tfm_num_guards;
extern const char *const tfm_guard_text[];
extern const char *const tfm_guard_kind[];
int main(int argc, char **argv)
{
	int64_t d[7], out[16];
	int i, s;
	for (i = 0; i < 7 && i + 1 < argc; i++)
		d[i] = strtoll(argv[i + 1], NULL, 10);
	s = tfm_shapes(d, out);
	printf("%d %d", tfm_check(d), s);
	for (i = 0; s == 0 && i < 7; i++)
		printf(" %lld", (long long)out[i]);
	printf("\\n");
	for (i = 0; i < tfm_num_guards; i++)
		printf("%s\\n", tfm_guard_text[i]);
	for (i = 0; i < tfm_num_guards; i++)
		printf("%s\\n", tfm_guard_kind[i]);
	return 0;
}
""")
        exe = os.path.join(d, "drv")
        p = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-o", exe, src, drv],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        report("emit_c_compiles_with_c11_wall_wextra_werror", p.returncode == 0, None,
               p.stdout.decode()[:800])
        if p.returncode:
            return
        _, j = infer_json(TRANSFORMER)
        texts = [g["expr"] for g in j["guards"]]
        cases = [("2 128 768 2 1 1 128", "0 0 2 128 768 2 12 128 128"),
                 ("2 128 768 3 1 1 128", "1 1"),      # guard 1 (add_mask)
                 ("2 128 768 2 1 1 64", "2 2"),        # guard 2
                 ("2 128 768 1 1 1 129", "2 2"),
                 ("2 128 512 2 1 1 128", "-2 -2"),    # contradicts x's 768
                 ("2 128 768 2 2 1 128", "-2 -2"),    # mask dim 1 must be 1
                 ("0 128 768 1 1 1 128", "-2 -2"),    # batch >= 1
                 ("4611686018427387904 4 768 1 1 1 4", "0 0 4611686018427387904 4 768 4611686018427387904 12 4 4")]
        for i, (dims, want) in enumerate(cases):
            q = subprocess.run([exe] + dims.split(), stdout=subprocess.PIPE)
            lines = q.stdout.decode().splitlines()
            report("emit_c_return_codes_%d" % i, lines and lines[0] == want, None,
                   "dims %s: got %r, want %r" % (dims, lines[:1], want))
            if i == 0:
                n = len(texts)
                report("emit_c_guard_texts_in_infer_order", lines[1:1 + n] == texts, None,
                       "got %r, infer says %r" % (lines[1:1 + n], texts))
                kinds = [g["kind"] for g in j["guards"]]
                report("emit_c_guard_kinds_in_infer_order", lines[1 + n:] == kinds, None,
                       "got %r, infer says %r" % (lines[1 + n:], kinds))
            if want.split()[1] == "0":
                shapes = ["x=" + ",".join(dims.split()[:3]), "mask=" + ",".join(dims.split()[3:])]
                rr, jj = run_json(TRANSFORMER, shapes)
                if dims.startswith("4611686018427387904"):
                    # the shapes hold but the byte sizes overflow int64: run fails as a whole
                    report("emit_c_agrees_with_run_%d" % i,
                           rr.rc == 1 and jj and jj["ok"] is False and jj["tensors"] == {}
                           and "byte sizes" in jj["failed_guard"]["expr"], rr)
                    continue
                report("emit_c_agrees_with_run_%d" % i,
                       jj and jj["tensors"]["y"] + jj["tensors"]["probs"] == [int(v) for v in want.split()[2:]],
                       rr)
    finally:
        shutil.rmtree(d, ignore_errors=True)


# --- the command line's dims, hints and integers -----------------------------

def write_model(d, name, model):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump(model, f)
    return path


def relu_model(shape, dtype="float32", extra_inputs=()):
    inputs = [{"name": "x", "dtype": dtype, "shape": shape}] + list(extra_inputs)
    return {"inputs": inputs, "outputs": ["y"],
            "nodes": [{"name": "relu", "op": "Relu", "inputs": ["x"], "outputs": ["y"]}]}


def test_strict_args():
    d = tempfile.mkdtemp(prefix="symshape-t-models-")
    try:
        scalar = write_model(d, "scalar.json", {
            "inputs": [{"name": "s", "shape": []}, {"name": "x", "shape": ["n"]}], "outputs": ["y"],
            "nodes": [{"name": "add", "op": "Add", "inputs": ["s", "x"], "outputs": ["y"]}]})
        for name, text in [("empty_items", "x=8,,3,,224,,224"), ("trailing_comma", "x=8,3,224,224,"),
                           ("leading_comma", "x=,8,3,224,224"), ("plus_sign", "x=+8,3,224,224"),
                           ("minus_sign", "x=-8,3,224,224"), ("leading_space", "x= 8,3,224,224"),
                           ("inner_space", "x=8, 3,224,224"), ("trailing_space", "x=8,3,224,224 "),
                           ("hex", "x=0x8,3,224,224"), ("beyond_int64", "x=9223372036854775808,3,224,224")]:
            check("run_shape_rejects_%s" % name, run(["run", CNN, "--shape", text]), 1,
                  err="--shape", pred=lambda r: r.out == "" or "stdout %r" % r.out)
        check("run_shape_accepts_strict_dims", run(["run", CNN, "--shape", "x=8,3,224,224"]), 0, out="ok")
        for name, text in [("newline", "x=3,\n,4"), ("control_character", "x=3,\x01,224,224"),
                           ("tab_in_the_name", "x\t=8,3,224,224")]:
            check("run_shape_error_with_a_%s_is_one_line" % name, run(["run", CNN, "--shape", text]), 1,
                  err="--shape", pred=lambda r: (r.err.count("\n") == 1 and "\t" not in r.err
                                                 and "\x01" not in r.err) or "stderr %r" % r.err)
        vector = write_model(d, "vector.json", relu_model(["n"], "int8"))
        # every int64 parses; a dim above 2**62 (the largest dim) is invalid input, one at
        # 2**62 is a dim (its byte sizes overflow int64)
        for name, dim in [("int64_max", "9223372036854775807"), ("largest_dim_plus_1", "4611686018427387905")]:
            check("run_shape_parses_%s_and_rejects_it_as_invalid_input" % name,
                  run(["run", vector, "--shape", "x=" + dim]), 1,
                  err="n must be at most 4611686018427387904, the largest dim (input 'x' dim 0)",
                  pred=lambda r: "--shape" not in r.err or r.err)
        check("run_shape_accepts_the_largest_dim", run(["run", vector, "--shape", "x=4611686018427387904"]), 1,
              err="byte sizes", pred=lambda r: "--shape" not in r.err or r.err)
        check("run_shape_empty_is_rank_0", run(["run", scalar, "--shape", "s=", "--shape", "x=5"]), 0,
              out=["ok", "[5]"])
        check("run_binds_a_constant_input_to_its_declared_shape", run(["run", scalar, "--shape", "x=5"]), 0,
              out=["ok", "[5]"])
        check("run_shape_given_twice_is_an_error",
              run(["run", scalar, "--shape", "x=5", "--shape", "x=6"]), 1, err="given twice")
        check("run_shape_empty_for_rank_1_is_an_error", run(["run", scalar, "--shape", "s=", "--shape", "x="]), 1,
              err="rank 1")
        for name, q in [("empty_item", "x=1,,3,8,8"), ("plus_sign", "x=1,3,+8,8"), ("space", "x=1,3,8, 8"),
                        ("trailing_comma", "x=1,3,8,8,"), ("empty_part", "x=1,3,8,8;"),
                        ("twice", "x=1,3,8,8;x=1,3,8,8")]:
            check("cache_query_rejects_%s" % name,
                  run(["cache", CNN, "--variant", "", "--query", q]), 1, err="--query")
        check("cache_query_accepts_strict_dims", run(["cache", CNN, "--variant", "", "--query", "x=1,3,9,9"]), 0,
              out="reuse variant 0")
        for name, h in [("plus_sign", "H=+9"), ("minus_sign", "H=-9"), ("space", "H= 9"), ("empty_value", "H="),
                        ("empty_item", "H=9,,W=9"), ("trailing_comma", "H=9,"), ("no_value", "H"),
                        ("no_name", "=9"), ("twice", "H=9,H=10")]:
            check("infer_hint_rejects_%s" % name, run(["infer", CNN, "--hint", h]), 1, err="--hint")
            check("cache_variant_rejects_%s" % name,
                  run(["cache", CNN, "--variant", h, "--query", "x=1,3,9,9"]), 1, err="--variant")
        check("infer_hint_accepts_strict_values", run(["infer", CNN, "--hint", "H=224,W=224"]), 0)
        for name, b in [("plus_sign", "u0=+5"), ("space", "u0=5 "), ("empty_item", "u0=5,")]:
            check("run_bind_rejects_%s" % name, run(["run", NONZERO_MODEL, "--shape", "x=3,4", "--bind", b]), 1,
                  err="--bind")
        for name, r in [("plus_sign", "H=+8:"), ("minus_sign", "H=-8:"), ("space", "H=8: 64"),
                        ("expression", "H=2*4:"), ("two_colons", "H=8:9:10")]:
            check("range_rejects_%s" % name, run(["infer", CNN, "--range", r]), 1, err="--range H")
        check("range_accepts_open_ends", run(["infer", CNN, "--range", "H=9:", "--range", "W=:64"]), 0)
        for name, v in [("plus_sign", "+4"), ("space", " 4"), ("trailing_junk", "4x"), ("empty", "")]:
            check("cache_capacity_rejects_%s" % name,
                  run(["cache", CNN, "--capacity", v, "--query", "x=1,3,9,9"]), 1, err="--capacity")
            check("align_rejects_%s" % name, run(["infer", CNN, "--align", v]), 1, err="--align")
        check("cache_capacity_accepts_strict_value", run(["cache", CNN, "--capacity", "2", "--query", "x=1,3,9,9"]),
              0)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def one_line_err(res):
    return res.err.count("\n") == 1 or "stderr is not one line: %r" % res.err[:200]


def test_long_values_are_quoted_whole():
    """Values and names the user gives are quoted whole in one-line messages
    (they were cut at 200 or 256 bytes), and a failed run's message is whole
    (it was cut at 512 bytes)."""
    name, junk = "h" * 300, "x" + "9" * 300
    check("hint_value_names_the_hint_whole", run(["infer", CNN, "--hint", name + "=x"]), 1,
          err="--hint %s=x: the value of '%s' is 'x', not a decimal integer (digits only)" % (name, name),
          pred=one_line_err)
    check("hint_value_with_a_newline_stays_one_line", run(["infer", CNN, "--hint", "a\nb" + name + "=x"]), 1,
          err="the value of 'a\\x0ab%s' is 'x'" % name, pred=one_line_err)
    check("bind_value_names_the_symbol_whole",
          run(["run", NONZERO_MODEL, "--shape", "x=3,4", "--bind", name + "=" + junk]), 1,
          err="the value of '%s' is '%s', not a decimal integer" % (name, junk), pred=one_line_err)
    check("shape_dim_is_quoted_whole", run(["run", CNN, "--shape", "x=1," + junk]), 1,
          err="dim 1 is '%s', not a decimal integer" % junk, pred=one_line_err)
    check("align_value_is_quoted_whole", run(["infer", CNN, "--align", junk]), 1,
          err="--align %s: the value is '%s', not a decimal integer" % (junk, junk), pred=one_line_err)
    check("range_end_is_quoted_whole", run(["infer", CNN, "--range", "H=" + junk + ":"]), 1,
          err="the low end: the value is '%s'" % junk, pred=one_line_err)
    check("cache_query_dim_is_quoted_whole",
          run(["cache", CNN, "--variant", "", "--query", "x=1,3,9," + junk]), 1,
          err="dim 3 is '%s', not a decimal integer" % junk, pred=one_line_err)
    d = tempfile.mkdtemp(prefix="symshape-t-models-")
    try:
        a, b = "a" * 250, "b" * 250
        nz = write_model(d, "nz.json", {
            "inputs": [{"name": "x", "dtype": "float32", "shape": [a, b]}], "outputs": ["idx"],
            "nodes": [{"name": "nz", "op": "NonZero", "inputs": ["x"], "outputs": ["idx"]}]})
        want = "data-dependent u0 must be in the range [0, %s*%s]" % (a, b)
        check("failed_run_message_is_whole", run(["run", nz, "--shape", "x=2,3", "--bind", "u0=7"]), 1,
              err="symshape: " + want + "\n", pred=one_line_err)
        check("failed_run_json_message_is_whole",
              run(["run", nz, "--shape", "x=2,3", "--bind", "u0=7", "--json"]), 1,
              pred=lambda r: r.json()["failed_guard"]["expr"] == want or "expr %r" % r.json()["failed_guard"])
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_jit_hints_keep_every_symbol():
    d = tempfile.mkdtemp(prefix="symshape-t-models-")
    try:
        m = write_model(d, "as_s.json", relu_model(["as", "s"]))
        check("cache_jit_hints_every_symbol_whatever_its_name",
              run(["cache", m, "--jit", "--query", "x=1,1"]), 0, out="compiled variant 0 (as=1,s=1)")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_hinted_run_and_emit_c():
    """run and emit-c take --hint like infer: the program of the variant
    specialised to the hints, whose failed expects mean recompile and
    whose failed asserts mean invalid input."""
    hints = ["--hint", "batch=2,mbatch=2,seq=128,mseq=128"]
    ok = ["--shape", "x=2,128,768", "--shape", "mask=2,1,1,128"]
    check("run_hint_accepts_the_hinted_dims", run(["run", TRANSFORMER] + hints + ok), 0, out="ok")
    check("run_hint_failed_choice_is_an_expect",
          run(["run", TRANSFORMER] + hints + ["--shape", "x=2,128,768", "--shape", "mask=2,1,1,1"]), 1,
          err=["mseq == seq", "(expect"])
    check("run_hint_invalid_input_is_an_assert",
          run(["run", TRANSFORMER] + hints + ["--shape", "x=2,128,768", "--shape", "mask=3,1,1,128"]), 1,
          err="(assert")
    # hints no input can satisfy: the broadcast is a diagnostic, and the
    # unhinted model's asserts are all kept (this read past the guard list)
    check("infer_hints_that_contradict_a_broadcast_keep_the_unhinted_asserts",
          run(["infer", TRANSFORMER, "--hint", "batch=2,mbatch=3"]), 1,
          out=["assert mbatch <= batch", "assert mseq <= seq"], err="dims 2 and 3 (hinted) cannot be broadcast")
    check("run_without_hint_takes_a_broadcast_mask",
          run(["run", TRANSFORMER, "--shape", "x=2,128,768", "--shape", "mask=2,1,1,1"]), 0, out="ok")
    check("run_hint_of_no_symbol_is_an_error", run(["run", TRANSFORMER, "--hint", "nosuch=2"] + ok), 1,
          err="nosuch")
    check("run_hint_is_strict", run(["run", TRANSFORMER, "--hint", "batch=+2"] + ok), 1, err="--hint")

    def kinds(res):
        line = [l for l in res.out.split("\n") if "tf_guard_kind[]" in l]
        if not line:
            return "no tf_guard_kind"
        got = [k for k in ("assert", "expect") if '"%s"' % k in line[0]]
        return got == ["assert", "expect"] or "kinds %r" % line[0]
    check("emit_c_hint_emits_expect_guards",
          run(["emit-c", TRANSFORMER, "--prefix", "tf"] + hints), 0, pred=kinds)
    check("emit_c_without_hint_emits_asserts_only",
          run(["emit-c", TRANSFORMER, "--prefix", "tf"]), 0,
          pred=lambda r: '"expect"' not in r.out or "an expect without hints")


def test_run_fails_as_a_whole():
    d = tempfile.mkdtemp(prefix="symshape-t-models-")
    try:
        m = write_model(d, "big.json", relu_model(["n"], "int64"))
        big = "x=%d" % (1 << 61)  # fits int64; its byte size, 8 * 2**61, does not
        check("run_byte_size_overflow_prints_nothing", run(["run", m, "--shape", big]), 1, err="byte sizes",
              pred=lambda r: r.out == "" or "stdout %r" % r.out)

        def failed_json(r):
            j = r.json()
            return (j == {"ok": False, "failed_guard": j["failed_guard"], "tensors": {}}
                    and j["failed_guard"]["kind"] == "error" and "byte sizes" in j["failed_guard"]["expr"]) \
                or repr(j)
        check("run_json_byte_size_overflow_is_a_failed_run", run(["run", m, "--shape", big, "--json"]), 1,
              err="byte sizes", pred=failed_json)
        check("run_fitting_byte_size_prints_shapes", run(["run", m, "--shape", "x=%d" % (1 << 58)]), 0,
              out=["ok", "[%d]" % (1 << 58), "total bytes: %d" % (1 << 62)])
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_json_integers_are_exact():
    d = tempfile.mkdtemp(prefix="symshape-t-models-")
    try:
        m = write_model(d, "wide.json", relu_model(["n"], "int8"))
        n = (1 << 53) + 1

        def exact(r):
            j = r.json()
            if "e+" in r.out or "E+" in r.out:
                return "a rounded number in %r" % r.out
            return (j["tensors"]["x"] == [str(n)] and j["tensors"]["y"] == [str(n)]
                    and isinstance(j["bytes"]["x"], str) and int(j["bytes"]["x"]) >= n
                    and isinstance(j["total_bytes"], str)) or repr(j)
        check("run_json_dims_beyond_2_53_are_strings", run(["run", m, "--shape", "x=%d" % n, "--json"]), 0,
              pred=exact)
        check("run_json_dim_2_53_is_a_number",
              run(["run", m, "--shape", "x=%d" % (1 << 53), "--json"]), 0,
              pred=lambda r: r.json()["tensors"]["x"] == [1 << 53] or r.out)

        def range_exact(r):
            j = r.json()
            sym = j["symbols"][0]
            return (sym["max"] == str(n) and j["tensors"]["x"]["range"] == [[1, str(n)]]) or repr(j)
        check("infer_json_range_beyond_2_53_is_a_string",
              run(["infer", m, "--json", "--range", "n=1:%d" % n]), 0, pred=range_exact)
    finally:
        shutil.rmtree(d, ignore_errors=True)


# --- cache -------------------------------------------------------------------

def test_cache():
    r = run(["cache", TRANSFORMER, "--jit", "--variant", "batch=2,mbatch=2,seq=128,mseq=128",
             "--query", "x=2,128,768;mask=2,1,1,128",
             "--query", "x=4,64,768;mask=4,1,1,64",
             "--query", "x=2,128,768;mask=2,1,1,1",
             "--query", "x=3,16,768;mask=3,1,1,1",
             "--query", "x=2,128,512;mask=2,1,1,128",
             "--query", "x=2,128,768;mask=3,1,1,128"])
    lines = r.out.splitlines()

    def session_ok(_):
        if len(lines) != 7:
            return "%d lines" % len(lines)
        if not lines[0].startswith("variant 0 compiled"):
            return "line 1: %r" % lines[0]
        if "reuse variant 0" not in lines[1] or "reuse variant 0" not in lines[2]:
            return "reuse: %r" % lines[1:3]
        if not re.search(r"recompile.*variant 1", lines[3]):
            return "recompile: %r" % lines[3]
        if "reuse variant 1" not in lines[4]:
            return "reuse of the new variant: %r" % lines[4]
        if "invalid input" not in lines[5] or "dim 2" not in lines[5]:
            return "invalid binding: %r" % lines[5]
        if "invalid input" not in lines[6] or "add_mask" not in lines[6]:
            return "invalid guard: %r" % lines[6]
        return True
    check("cache_session_reuses_recompiles_and_rejects", r, 0, pred=session_ok)
    r = run(["cache", TRANSFORMER, "--variant", "batch=2,mbatch=2,seq=128,mseq=128",
             "--query", "x=2,128,768;mask=2,1,1,1"])
    check("cache_without_jit_says_recompile", r, 0, out="recompile")
    r = run(["cache", CNN, "--variant", "", "--query", "x=1,3,8,8", "--query", "x=1,3,32,32"])
    r = run(["cache", CNN, "--variant", "", "--query", "x=0,3,32,32", "--query", "x=1,3,32,32"])
    check("cache_dim_outside_the_symbol_range_is_invalid_input", r, 0,
          out=["query x=0,3,32,32: invalid input: N must be in the range [1, inf)", "reuse variant 0"])
    r = run(["cache", CNN, "--capacity", "9223372036854775807", "--variant", "", "--variant", "N=2",
             "--query", "x=2,3,32,32"])
    check("cache_capacity_beyond_memory_grows_as_variants_come", r, 0, out="reuse variant 1")
    r = run(["cache", CNN, "--variant", "", "--query", "x=1,3,8,8", "--query", "x=1,3,32,32"])
    check("cache_cnn_generic_variant", r, 0,
          pred=lambda _: ("invalid input" in r.out.splitlines()[1] and "conv3" in r.out.splitlines()[1]
                          and "reuse variant 0" in r.out.splitlines()[2]) or "got %r" % r.out)


# --- exit statuses -----------------------------------------------------------

def test_statuses():
    d = tempfile.mkdtemp(prefix="symshape-t-models-")
    try:
        def model(name, text):
            p = os.path.join(d, name)
            with open(p, "w") as f:
                f.write(text)
            return p
        bad = model("bad.json", '{"inputs": [ {"name": "x", "shape": [1,2]} ], "nodes": [}')
        check("infer_invalid_json_gives_position", run(["infer", bad]), 1, err=["invalid JSON", "byte 56"])
        unk = model("unknown.json", '{"inputs":[{"name":"x","shape":["n",4]}],"nodes":['
                    '{"name":"mystery","op":"FooBar","inputs":["x"],"outputs":["y"]},'
                    '{"name":"other","op":"Relu","inputs":["x"],"outputs":["w"]}],"outputs":["w"]}')
        r = run(["infer", unk])
        check("infer_unknown_operator_names_node_and_goes_on", r, 1, out="[n, 4]", err=["mystery", "FooBar"])
        r = run(["infer", unk, "--json"])
        check("infer_json_lists_errors", r, 1,
              pred=lambda _: json.loads(r.out)["errors"][0]["node"] == "mystery" or r.out)
        fg = model("false.json", '{"inputs":[{"name":"a","shape":[3]},{"name":"b","shape":[4]}],"nodes":'
                   '[{"name":"bad_add","op":"Add","inputs":["a","b"],"outputs":["c"]}],"outputs":["c"]}')
        check("infer_guard_proven_false_names_node", run(["infer", fg]), 1, err="bad_add")
        check("run_guard_proven_false_names_node",
              run(["run", fg, "--shape", "a=3", "--shape", "b=4"]), 1, err="bad_add")
        check("emit_c_guard_proven_false_names_node", run(["emit-c", fg]), 1, err="bad_add")
        dang = model("dangling.json", '{"inputs":[{"name":"x","shape":["n"]}],"nodes":[{"name":"r","op":'
                     '"Relu","inputs":["nope"],"outputs":["y"]}],"outputs":["y"]}')
        check("infer_dangling_tensor_names_node", run(["infer", dang]), 1, err=["'r'", "'nope'"])
        check("infer_missing_file", run(["infer", os.path.join(d, "none.json")]), 1, err="none.json")
        check("run_wrong_rank", run(["run", CNN, "--shape", "x=1,2"]), 1, err="rank")
        check("run_unknown_input", run(["run", CNN, "--shape", "x=1,3,32,32", "--shape", "z=1"]), 1, err="'z'")
        check("run_bad_dim", run(["run", CNN, "--shape", "x=1,3,a,32"]), 1, err="'a'")
        check("infer_without_model_is_misuse", run(["infer"]), 2)
        check("infer_unknown_option_is_misuse", run(["infer", CNN, "--frobnicate"]), 2)
        check("emit_c_bad_prefix_is_misuse", run(["emit-c", CNN, "--prefix", "1x"]), 2)
        check("cache_without_query_is_misuse", run(["cache", CNN]), 2)
        check("cache_query_unknown_input", run(["cache", CNN, "--variant", "", "--query", "x=1,3,8,8;bogus=5"]), 1,
              err=["no input 'bogus'"])
        check("cache_query_dim_out_of_range", run(["cache", CNN, "--variant", "", "--query",
                                                   "x=1,3,99999999999999999999999,8"]), 1, err=["beyond int64"])
        check("run_without_model_is_misuse", run(["run"]), 2)
        for name, text in [("empty", ""), ("null", "null"), ("nodes_null", '{"inputs": [], "nodes": null}'),
                           ("deep", "[" * 5000 + "]" * 5000), ("bad_utf8", '{"inputs": "\xff"}')]:
            p = model(name + ".json", text)
            for cmd in (["infer", p], ["emit-c", p], ["run", p]):
                r = run(cmd)
                report("no_crash_%s_%s" % (cmd[0], name), r.rc in (1, 2) and r.err.strip(), r)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_slice_sentinel_ends():
    """A reversed Slice to the start with the end -9223372036854775807 folds to
    the dims a person writes, because no dim exceeds 2**62 (the largest dim),
    and the program rejects a larger one as invalid input."""
    model = os.path.join(ROOT, "tests", "models", "slice_reversed.json")
    r, j = infer_json(model)
    check("slice_sentinel_ends_fold", r, 0,
          pred=lambda _: ([j["tensors"][k]["shape"] for k in ("y", "y1", "y2")]
                          == [["(t + 1)//2"], ["t"], ["(t + 1)//2"]]) or "got %r" % j["tensors"])
    check("slice_sentinel_ranges_stay_open", run(["infer", model]), 0,
          pred=lambda res: (res.out.count("[1, inf)") == 5 and "4611686018427387904" not in res.out
                            and "9223372036854775806" not in res.out) or res.out)
    check("slice_sentinel_symbol_max_is_null", r, 0,
          pred=lambda _: j["symbols"][0]["max"] is None or "got %r" % j["symbols"])
    for t in (1, 2, 7, 8, 2**40 + 1):
        rr, jj = run_json(model, ["x=%d" % t])
        want = [[(t + 1) // 2], [t], [(t + 1) // 2]]
        check("slice_sentinel_run_at_%d" % t, rr, 0,
              pred=lambda _: (jj is not None and jj["ok"] and [jj["tensors"][k] for k in ("y", "y1", "y2")] == want)
              or "got %r" % jj)
    for t in ("4611686018427387905", "9223372036854775807"):
        rr, jj = run_json(model, ["x=" + t])
        check("slice_sentinel_run_rejects_%s" % t, rr, 1,
              pred=lambda _: (jj is not None and jj["ok"] is False and jj["failed_guard"]["kind"] == "binding"
                              and "t must be at most 4611686018427387904" in jj["failed_guard"]["expr"])
              or "got %r" % jj)


def test_control_flow_run():
    """If and Loop dims bound at run time: run takes them with --bind,
    within the range inference gave them (u0 of 'differ' is at most 4*n)."""
    base = ["run", IF_MODEL, "--shape", "x=3,8", "--shape", "c="]
    check("run_if_needs_the_runtime_bound_dims", run(base), 1, err="missing --bind u0=INT")
    check("run_if_gives_the_bound_dims", run(base + ["--bind", "u0=12", "--bind", "u1=2"]), 0,
          out=["k                [3, 8]", "a                [3, 8]", "d                [12, 2]"])
    check("run_if_rejects_a_bound_dim_beyond_the_union_range", run(base + ["--bind", "u0=13", "--bind", "u1=2"]),
          1, err="u0 must be in the range [1, 4*n]")
    check("run_if_rejects_a_bound_dim_between_the_branches_range",
          run(base + ["--bind", "u0=12", "--bind", "u1=9"]), 1, err="u1 must be in the range [2, 8]")
    loop = ["run", LOOP_MODEL, "--shape", "x=3,8", "--shape", "seq=4,3,8", "--shape", "go="]
    for u0 in ("4611686018427387905", "9223372036854775807"):
        check("run_loop_rejects_a_bound_dim_of_%s_beyond_the_largest_dim" % u0,
              run(loop + ["--bind", "u0=" + u0, "--bind", "u1=2"]), 1,
              err="data-dependent u0 must be at most 4611686018427387904, the largest dim")
    r = run(["run", LOOP_MODEL, "--shape", "x=3,8", "--shape", "seq=4,3,8", "--shape", "go=",
             "--bind", "u0=6", "--bind", "u1=2"])
    check("run_loop_and_scan_give_trip_counts_and_carried_dims", r, 0,
          out=["h_all            [5, 3, 8]", "g_final          [6, 8]", "w_all            [2, 8]",
               "s_all            [4, 3, 8]", "s_all_t          [8, 4]"])


if __name__ == "__main__":
    sys.exit(main([test_slice_sentinel_ends, test_control_flow_run, test_infer_text, test_infer_json, test_run, test_emit_c, test_cache, test_statuses, test_strict_args, test_long_values_are_quoted_whole,
                   test_jit_hints_keep_every_symbol, test_run_fails_as_a_whole, test_json_integers_are_exact,
                   test_hinted_run_and_emit_c]))
