"""symshape.diff: the model equivalence of `symshape diff` from Python, on
the pairs of tests/models/diff; witnesses are checked by running both
models' programs from Python."""

import os

import pytest

import symshape

from conftest import ROOT, run_cli

D = os.path.join(ROOT, "tests", "models", "diff")


def m(name):
    return os.path.join(D, name)


def test_flatten_rewrite_is_same():
    d = symshape.diff(m("conv_reshape.json"), m("conv_flatten.json"))
    assert d.answer is True and d.witness == {} and d.reason == ""


def test_pad_change_witness_separates_the_programs():
    a, b = symshape.infer(m("conv_flatten.json")), symshape.infer(m("conv_pad0.json"))
    d = symshape.diff(a, b)
    assert d.answer is False
    pa, pb = a.compile(all_tensors=False), b.compile(all_tensors=False)
    ca, cb = pa.check(d.witness), pb.check(d.witness)
    if bool(ca) == bool(cb):
        assert bool(ca), "both reject the witness"
        assert pa.shapes(d.witness)["y"] != pb.shapes(d.witness)["y"]


def test_text_and_cli_agree():
    d = symshape.diff(m("identity.json"), m("reshape_pairs.json"))
    st, out, _ = run_cli("diff", m("identity.json"), m("reshape_pairs.json"))
    assert st == 0 and d.answer is False
    assert out.splitlines()[1] == "witness: " + " ".join(
        "%s=%s" % (k, ",".join(map(str, v))) for k, v in d.witness.items())
    assert out.splitlines()[2] == "reason: " + d.reason


def test_map_and_ranges():
    assert symshape.diff(m("identity.json"), m("renamed.json"),
                         map={"x": "input", "y": "output"}).answer is True
    assert symshape.diff(m("slice64.json"), m("vector.json"), ranges={"n": (1, 64)}).answer is True
    d = symshape.diff(m("slice64.json"), m("vector.json"))
    assert d.answer is False and d.witness["x"][0] > 64


def test_ranges_of_a_carry_over_to_the_paired_dims_of_b():
    renamed = {"inputs": [{"name": "v", "dtype": "float32", "shape": ["len"]}],
               "nodes": [{"name": "id", "op": "Identity", "inputs": ["v"], "outputs": ["w"]}],
               "outputs": ["w"]}
    pairs = {"x": "v", "y": "w"}
    assert symshape.diff(m("slice64.json"), renamed, map=pairs, ranges={"n": (1, 64)}).answer is True
    d = symshape.diff(m("slice64.json"), renamed, map=pairs, ranges={"n": (1, 65)})
    assert d.answer is False and d.witness == {"x": (65,)}
    with pytest.raises(ValueError, match="no symbol of b"):
        even = dict(renamed, inputs=[{"name": "v", "dtype": "float32", "shape": ["2*k"]}])
        symshape.diff(m("slice64.json"), even, map=pairs, ranges={"n": (1, 4)})


def test_unpaired_inputs_raise_model_error():
    with pytest.raises(symshape.ModelError, match="no partner"):
        symshape.diff(m("identity.json"), m("renamed.json"))


def test_results_of_two_contexts_do_not_mix():
    a = symshape.infer(m("identity.json"), ctx=symshape.Context())
    b = symshape.infer(m("identity.json"), ctx=symshape.Context())
    with pytest.raises(ValueError, match="one Context"):
        symshape.diff(a, b)
