#!/usr/bin/env python3
"""Integration tests of symshape diff (SPEC §5, "Equivalence of models") on
the pairs of tests/models/diff: a model against itself, a Reshape replaced by
a Flatten, a pad changed, a guard only one side has, outputs equal only under
the inputs' ranges, renamed inputs with --map, ONNX pairs, data-dependent
dims, incomplete inference, seeded pairs of poolings (SYM_TEST_SEED) whose
`same` answers are checked against runs.  Every witness is checked on its own with symshape run on both models:
one accepts and the other rejects, or an output dim differs.

The CLI is found in $SYMSHAPE_CLI (set by meson), else in the first argument,
else at build/symshape.  The last line is "N passed, M failed"; the exit
status is nonzero when any check failed.
"""

import json
import os
import random
import sys
import tempfile

from clitest import ROOT, check, main, report, run

D = os.path.join(ROOT, "tests", "models", "diff")


def m(name):
    return os.path.join(D, name)


def parse_answer(out):
    """The answer, the witness as {input: dims text} and the reason of the
    text output."""
    lines = out.splitlines()
    witness, reason = None, None
    for line in lines[1:]:
        if line.startswith("witness:"):
            witness = dict(item.split("=", 1) for item in line[len("witness:"):].split())
        elif line.startswith("reason: "):
            reason = line[len("reason: "):]
    return (lines[0] if lines else None), witness, reason


def run_at(model, witness, names, extra):
    """symshape run of model at the witness (input names renamed by names):
    (accepted, {output: dims}) from run --json."""
    args = ["run", model, "--json"] + extra
    for name, dims in witness.items():
        args += ["--shape", "%s=%s" % (names.get(name, name), dims)]
    r = run(args)
    j = r.json()
    if j is None:
        raise ValueError("run printed no JSON: %r %r" % (r.out, r.err))
    return j["ok"], j.get("tensors", {})


def witness_separates(a, b, outputs, names=None, extra=()):
    """A predicate for check(): the printed witness, run on both models,
    separates them (outputs: pairs of output names of A and B)."""
    names = names or {}

    def pred(res):
        answer, witness, _ = parse_answer(res.out)
        if answer != "different" or not witness:
            return "no witness"
        ok_a, ta = run_at(a, witness, {}, list(extra))
        ok_b, tb = run_at(b, witness, names, list(extra))
        if ok_a != ok_b:
            return True
        if not ok_a:
            return "both models reject the witness"
        for oa, ob in outputs:
            if ta.get(oa) != tb.get(ob):
                return True
        return "both models give the same outputs at the witness: %r" % (ta,)
    return pred


def test_model_against_itself():
    for model in [m("conv_reshape.json"), os.path.join(ROOT, "examples", "transformer.json"),
                  os.path.join(ROOT, "examples", "cnn.json"),
                  os.path.join(ROOT, "tests", "fixtures", "onnx", "torch_transformer.onnx")]:
        check("diff_of_a_model_with_itself_is_same " + os.path.basename(model),
              run(["diff", model, model]), 0, out="same\n")


def test_reshape_replaced_by_flatten():
    check("reshape_to_0_minus1_and_flatten_are_same",
          run(["diff", m("conv_reshape.json"), m("conv_flatten.json")]), 0, out="same\n")
    check("exporter_reshape_and_flatten_are_same_in_onnx",
          run(["diff", m("export_flatten.onnx"), m("flatten.onnx")]), 0, out="same\n")


def test_pad_changed():
    a, b = m("conv_flatten.json"), m("conv_pad0.json")
    r = run(["diff", a, b])
    check("conv_pad_change_is_different_with_a_checked_witness", r, 0, out="different\n",
          pred=witness_separates(a, b, [("y", "y")]))
    a, b = m("pool_pad0.onnx"), m("pool_pad1.onnx")
    check("pool_pad_change_is_different_in_onnx", run(["diff", a, b]), 0, out="different\n",
          pred=witness_separates(a, b, [("y", "y")]))
    check("pool_pad_change_is_different_either_way", run(["diff", b, a]), 0, out="different\n",
          pred=witness_separates(b, a, [("y", "y")]))


def test_guard_on_one_side():
    a, b = m("identity.json"), m("reshape_pairs.json")
    for x, y in ((a, b), (b, a)):
        r = run(["diff", x, y])
        check("a_guard_only_one_side_has_is_a_difference " + os.path.basename(x), r, 0,
              out=["different\n", "n % 2 == 0"], pred=witness_separates(x, y, [("y", "y")]))


def test_equal_only_under_ranges():
    a, b = m("slice64.json"), m("vector.json")
    r = run(["diff", a, b])
    check("slice_to_64_differs_beyond_64", r, 0, out="different\n",
          pred=witness_separates(a, b, [("y", "y")]))
    _, witness, _ = parse_answer(r.out)
    check("its_witness_is_beyond_the_slice_end", r, 0,
          pred=lambda res: witness is not None and int(witness["x"]) > 64 or "witness %r" % witness)
    check("slice_to_64_is_the_identity_for_n_up_to_64",
          run(["diff", a, b, "--range", "n=1:64"]), 0, out="same\n")
    r = run(["diff", a, b, "--range", "n=1:65"])
    check("one_more_admits_the_witness_65", r, 0, out=["different\n", "witness: x=65\n"],
          pred=witness_separates(a, b, [("y", "y")], extra=["--range", "n=1:65"]))


def test_ranges_name_symbols_of_a_and_carry_over_to_b():
    a, b = m("identity.json"), m("renamed.json")
    pairs = ["--map", "x=input", "--map", "y=output"]
    check("a_range_of_n_reaches_rows_of_the_renamed_model",
          run(["diff", a, b, "--range", "n=1:8"] + pairs), 0, out="same\n")
    check("a_range_of_a_symbol_a_lacks_is_an_error",
          run(["diff", a, b, "--range", "rows=1:8"] + pairs), 1, err="range of 'rows'")
    r = run(["diff", m("slice64.json"), m("vector.json"), "--range", "n=:64"])
    check("an_open_lower_end_keeps_the_default_minimum", r, 0, out="same\n")


def test_map_pairs_renamed_inputs_and_outputs():
    a, b = m("identity.json"), m("renamed.json")
    check("renamed_inputs_without_map_is_an_error", run(["diff", a, b]), 1,
          err="input 'x' of A has no partner in B")
    check("map_pairs_inputs_and_outputs",
          run(["diff", a, b, "--map", "x=input", "--map", "y=output"]), 0, out="same\n")
    r = run(["diff", a, m("reshape_pairs.json"), "--map=x=x"])
    check("map_of_a_name_to_itself_changes_nothing", r, 0, out="different\n")


def test_json_output():
    r = run(["diff", m("conv_reshape.json"), m("conv_flatten.json"), "--json"])
    check("json_same", r, 0, pred=lambda res: res.json() == {"answer": "same", "witness": None,
                                                             "reason": None} or res.out)
    a, b = m("pool_pad0.onnx"), m("pool_pad1.onnx")
    r = run(["diff", a, b, "--json"])

    def pred(res):
        j = res.json()
        if not j or j["answer"] != "different" or not isinstance(j["reason"], str):
            return "bad JSON"
        w = {k: ",".join(str(d) for d in v) for k, v in j["witness"].items()}
        text = run(["diff", a, b])
        return ("witness: x=%s\n" % w["x"]) in text.out or "text and JSON witnesses differ"
    check("json_different_has_the_witness_as_lists", r, 0, pred=pred)


def test_data_dependent_is_unknown():
    nz = os.path.join(ROOT, "tests", "models", "storage_ranges", "nonzero.json")
    r = run(["diff", nz, nz])
    check("a_data_dependent_output_dim_is_unknown", r, 0,
          out=["unknown\n", "reason: output 'pf' dim 0 depends on the data-dependent"])
    # a data-dependent count is a program input: no run is a witness, so a
    # model with one is never "different" from itself
    side = m("nonzero_side.json")
    check("a_model_with_a_data_dependent_output_is_not_different_from_itself",
          run(["diff", side, side]), 0, out=["unknown\n", "data-dependent values"])


def test_a_model_not_inferred_completely_is_unknown():
    # the output is inferred, but a node's guards are missing: neither a
    # proof nor a run is about the model
    r = run(["diff", m("unsupported.json"), m("vector.json")])
    check("a_node_inference_went_around_makes_the_answer_unknown", r, 0,
          out=["unknown\n", "reason: A is not inferred completely: node 'mystery'"],
          err="unsupported operator 'Frobnicate'")


def pool_model(k, st, pad_lo, pad_hi, ceil):
    return {"inputs": [{"name": "x", "dtype": "float32", "shape": ["N", 2, "H", "W"]}],
            "nodes": [{"name": "pool", "op": "MaxPool", "inputs": ["x"], "outputs": ["y"],
                       "attrs": {"kernel_shape": [k, 1], "strides": [st, 1],
                                 "pads": [pad_lo, 0, pad_hi, 0], "ceil_mode": ceil}}],
            "outputs": ["y"]}


def test_random_pool_pairs_same_holds_at_runs():
    """Seeded pairs of 1-d poolings (kernel, stride, pads, ceil_mode from
    small sets, so that some pairs are the same: kernel 3 with pads 1 and
    kernel 1 both keep H): a `same` must agree with the runs of both models
    at every point tried, a `different` must come with a separating
    witness, and an `unknown` is counted."""
    rng = random.Random(int(os.environ.get("SYM_TEST_SEED", "1")))
    counts = {"same": 0, "different": 0, "unknown": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(24):
            cfg = [(rng.choice([1, 2, 3]), rng.choice([1, 2]), rng.choice([0, 1]), rng.choice([0, 1]),
                    rng.choice([0, 1])) for _ in range(2)]
            if i % 3 == 0:  # a pair the same up to ceil_mode, or the same pool
                cfg[1] = cfg[0][:4] + (1 - cfg[0][4] if cfg[0][1] == 1 else cfg[0][4],)
            paths = []
            for side, c in zip("ab", cfg):
                path = os.path.join(tmp, "%s%d.json" % (side, i))
                with open(path, "w") as f:
                    json.dump(pool_model(*c), f)
                paths.append(path)
            r = run(["diff"] + paths)
            answer, witness, _ = parse_answer(r.out)
            counts[answer] = counts.get(answer, 0) + 1
            name = "random_pool_pair_%d_%s" % (i, cfg)
            if answer == "different":
                check(name, r, 0, pred=witness_separates(paths[0], paths[1], [("y", "y")]))
            elif answer == "same":
                def agree(res, paths=paths):
                    for h in (1, 2, 3, 4, 5, 7, 8, 16, 33):
                        w = {"x": "1,2,%d,3" % h}
                        if run_at(paths[0], w, {}, []) != run_at(paths[1], w, {}, []):
                            return "the runs differ at H=%d" % h
                    return True
                check(name, r, 0, pred=agree)
            else:
                check(name, r, 0, out="unknown\n")
    report("random_pool_pairs_give_both_answers", counts["same"] > 0 and counts["different"] > 0,
           None, "answers %s" % counts)


def rank_witness(a, b):
    """A predicate: the witness has the rank of exactly one model's input
    x, and that model's run accepts it (the other takes no shape of that
    rank)."""
    def pred(res):
        answer, witness, _ = parse_answer(res.out)
        if answer != "different" or not witness:
            return "no witness"
        n = len(witness["x"].split(","))
        ranks = [len(run(["infer", x, "--json"]).json()["tensors"]["x"]["shape"]) for x in (a, b)]
        if ranks.count(n) != 1:
            return "the witness has rank %d, the models %s" % (n, ranks)
        ok, _ = run_at((a, b)[ranks.index(n)], witness, {}, [])
        return ok or "the model of that rank rejects the witness"
    return pred


def test_input_ranks_that_differ_are_a_difference():
    for a, b in ((m("identity.json"), m("vector.json")), (m("vector.json"), m("conv_pad0.json")),
                 (m("conv_pad0.json"), m("vector.json"))):
        r = run(["diff", a, b])
        check("an_input_rank_that_differs_is_a_difference %s %s" % (os.path.basename(a),
                                                                    os.path.basename(b)),
              r, 0, out=["different\n", "reason: A accepts it, B rejects it: input 'x' has rank"],
              pred=rank_witness(a, b))
    # A's program takes a data-dependent count: the witness comes from B alone
    a, b = m("nonzero_rows.json"), m("vector.json")
    check("a_rank_witness_from_b_when_a_cannot_be_run", run(["diff", a, b]), 0,
          out=["different\n", "witness: x=1\n", "B accepts it, A rejects it"], pred=rank_witness(a, b))


def test_errors_and_misuse():
    check("diff_needs_two_models", run(["diff", m("identity.json")]), 2, err="usage")
    check("diff_takes_two_models_only",
          run(["diff", m("identity.json"), m("identity.json"), m("identity.json")]), 2)
    check("diff_unknown_option", run(["diff", "--frobnicate", m("identity.json"), m("identity.json")]), 2)
    check("diff_map_needs_a_pair", run(["diff", m("identity.json"), m("identity.json"), "--map", "x"]), 2)
    check("diff_bad_model_is_status_1",
          run(["diff", m("identity.json"), os.path.join(ROOT, "tests", "models", "diff", "gen.py")]), 1,
          err="gen.py")
    check("diff_missing_model_is_status_1", run(["diff", m("identity.json"), m("missing.json")]), 1)



if __name__ == "__main__":
    sys.exit(main([test_model_against_itself, test_reshape_replaced_by_flatten, test_pad_changed,
                   test_guard_on_one_side, test_equal_only_under_ranges,
                   test_ranges_name_symbols_of_a_and_carry_over_to_b,
                   test_map_pairs_renamed_inputs_and_outputs, test_json_output,
                   test_data_dependent_is_unknown, test_a_model_not_inferred_completely_is_unknown,
                   test_random_pool_pairs_same_holds_at_runs,
                   test_input_ranks_that_differ_are_a_difference,
                   test_errors_and_misuse]))
