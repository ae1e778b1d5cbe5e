"""infer on the example and real models against `symshape infer --json`,
compiled programs against `symshape run --json`, emitted C, the guard
cache's three answers, and the errors of the model API."""

import glob
import os

import pytest

import symshape
from conftest import ROOT, cli_json, run_cli

MODELS = sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")) +
                glob.glob(os.path.join(ROOT, "tests", "models", "*.json")) +
                glob.glob(os.path.join(ROOT, "tests", "fixtures", "real", "*.onnx")) +
                glob.glob(os.path.join(ROOT, "tests", "fixtures", "onnx", "*.onnx")))


def ids(paths):
    return [os.path.relpath(p, ROOT) for p in paths]


def normal(d):
    """JSON numbers beyond 2**53 are decimal strings in the CLI's output."""
    if isinstance(d, dict):
        return {k: normal(v) for k, v in d.items()}
    if isinstance(d, list):
        return [normal(v) for v in d]
    if isinstance(d, int) and not isinstance(d, bool) and abs(d) > 2**53:
        return str(d)
    return d


@pytest.mark.parametrize("path", MODELS, ids=ids(MODELS))
def test_infer_gives_what_the_cli_prints(path):
    st, want = cli_json("infer", "--json", path)
    # a context of its own, as the CLI's: fresh symbols (u0, ...) are named
    # after those the context already has
    r = symshape.infer(path, ctx=symshape.Context())
    assert normal(r.as_json()) == want
    assert (st == 0) == (not r.diagnostics)
    for name, t in r.tensors.items():
        assert r.shapes[name] == t.shape and r.dtypes[name] == t.dtype
        if t.shape is not None:
            assert all(isinstance(d, symshape.Expr) for d in t.shape)


def test_infer_takes_a_path_bytes_a_dict_or_a_model_proto():
    path = os.path.join(ROOT, "examples", "cnn.json")
    with open(path, "rb") as f:
        data = f.read()
    import json
    a = symshape.infer(path).as_json()
    assert symshape.infer(data).as_json() == a
    assert symshape.infer(json.loads(data)).as_json() == a
    onnx = pytest.importorskip("onnx")
    opath = os.path.join(ROOT, "tests", "fixtures", "onnx", "cnn.onnx")
    m = onnx.load(opath)
    assert symshape.infer(m).as_json() == symshape.infer(opath).as_json()


def test_result_exposes_symbols_guards_merge_keys_storage_and_bytes():
    r = symshape.infer(os.path.join(ROOT, "examples", "storage.json"))
    syms = {s.name: s for s in r.symbols}
    assert syms["N"].source == "x.shape[0]" and syms["N"].min == 1 and syms["N"].max is None
    assert syms["H"].min == 3
    assert [str(g.expr) for g in r.guards] == ["H >= 3", "W >= 3"]
    assert r.guards[0].kind == "assert" and r.guards[0].node == "conv"
    assert r.merge_keys["[N, K, H - 2, W - 2]"] == ["conv", "act"]
    N, C = r.symbol("N"), r.symbol("C")
    assert r.storage_shapes["x"][1] == (C + 15) // 16
    assert r.tensors["x"].storage_format == "NC1HWC0" and r.tensors["x"].format == "NCHW"
    assert r.byte_sizes["x"].eval(N=1, C=16, H=3, W=3) == 32 * 9
    assert r.ranges["y"][2] == (1, None)
    assert r.total_bytes is not None


def test_total_past_a_limit_is_none_with_its_reason():
    # 9 byte sizes of just under the number limit's bits: their sum is past
    # it, so only the total is left out
    model = {"inputs": [{"name": "x%d" % i, "dtype": "float32", "shape": ["2**1048571 + %d" % i]}
                        for i in range(9)],
             "nodes": [], "outputs": ["x0"]}
    r = symshape.infer(model)
    assert r.total_bytes is None
    assert r.total_bytes_error == "number too large (more than 1048576 bits)"
    assert all(b is not None and b.is_constant for b in r.byte_sizes.values())
    assert r.as_json()["total_bytes_error"] == r.total_bytes_error
    small = symshape.infer(os.path.join(ROOT, "examples", "cnn.json"))
    assert small.total_bytes is not None and small.total_bytes_error is None
    assert "total_bytes_error" not in small.as_json()


def test_hints_ranges_and_allow_empty_reach_inference():
    path = os.path.join(ROOT, "examples", "transformer.json")
    _, want = cli_json("infer", "--json", path, "--hint", "batch=2,mbatch=2", "--range", "seq=1:64")
    r = symshape.infer(path, hints={"batch": 2, "mbatch": 2}, ranges={"seq": (1, 64)})
    assert normal(r.as_json()) == want
    assert any(g.kind == "expect" for g in r.guards)
    assert r.as_json() == symshape.infer(path, hints={"batch": 2, "mbatch": 2},
                                         ranges={"seq": range(1, 65)}).as_json()
    _, want = cli_json("infer", "--json", path, "--allow-empty")
    assert normal(symshape.infer(path, allow_empty=True).as_json()) == want
    with pytest.raises(symshape.ModelError, match="nosuch"):
        symshape.infer(path, hints={"nosuch": 3})


RUNS = [("examples/cnn.json", {"x": (8, 3, 224, 224)}),
        ("examples/cnn.json", {"x": (8, 3, 8, 224)}),
        ("examples/cnn.json", {"x": (8, 4, 224, 224)}),
        ("examples/transformer.json", {"x": (4, 128, 768), "mask": (4, 1, 1, 128)}),
        ("examples/transformer.json", {"x": (2, 128, 768), "mask": (3, 1, 1, 128)}),
        ("examples/storage.json", None)]


def shape_args(dims):
    return ["--shape=%s=%s" % (k, ",".join(map(str, v))) for k, v in dims.items()]


@pytest.mark.parametrize("model,dims", RUNS)
def test_program_check_and_shapes_agree_with_run(model, dims):
    path = os.path.join(ROOT, model)
    r = symshape.infer(path)
    if dims is None:
        dims = {}
        for name in r.inputs:
            dims[name] = tuple(7 for _ in r.shapes[name])
    p = r.compile()
    st, want = cli_json("run", path, "--json", *shape_args(dims))
    res = p.check(dims)
    assert bool(res) == want["ok"] == (st == 0)
    if want["ok"]:
        assert res.status is symshape.Status.OK
        shapes = p.shapes(dims)
        assert {k: list(v) for k, v in shapes.items()} == want["tensors"]
        full = p.run(dims)
        assert full.shapes == shapes
        if "bytes" in want:
            assert {k: v for k, v in full.byte_sizes.items()} == want["bytes"]
        return
    with pytest.raises(symshape.GuardError) as err:
        p.shapes(dims)
    assert err.value.result.status is res.status
    if res.status is symshape.Status.GUARD:
        fg = want["failed_guard"]
        assert res.guard == r.guards[res.index] and str(res.guard.expr) == fg["expr"]
        assert res.kind == fg["kind"] and res.node == fg["node"]
    else:
        assert res.status is symshape.Status.INPUT and res.guard is None


def test_program_shapes_are_the_inferred_formulas_at_the_point(rng):
    r = symshape.infer(os.path.join(ROOT, "examples", "cnn.json"))
    p = r.compile()
    N, H, W = r.symbol("N"), r.symbol("H"), r.symbol("W")
    for _ in range(30):
        env = {"N": rng.randint(1, 9), "H": rng.randint(9, 300), "W": rng.randint(9, 300)}
        got = p.shapes({"x": (env["N"], 3, env["H"], env["W"])})
        for name, dims in got.items():
            assert dims == tuple(d.eval(env) for d in r.shapes[name]), name
    assert [str(g.expr) for g in p.guards] == ["H >= 9", "W >= 9"]


def test_program_refuses_malformed_dims():
    p = symshape.infer(os.path.join(ROOT, "examples", "cnn.json")).compile()
    with pytest.raises(ValueError, match="missing"):
        p.check({})
    with pytest.raises(ValueError, match="rank"):
        p.check({"x": (1, 3, 9)})
    with pytest.raises(ValueError, match="no input"):
        p.check({"x": (1, 3, 9, 9), "y": (1,)})
    with pytest.raises(TypeError):
        p.check({"x": (1, 3, "9", 9)})
    with pytest.raises(OverflowError):
        p.check({"x": (2**64, 3, 9, 9)})
    with pytest.raises(TypeError):
        p.check([1, 3, 9, 9])
    assert p.check({"x": (0, 3, 9, 9)}).status is symshape.Status.INPUT


def test_program_rejects_dims_above_the_largest_dim():
    p = symshape.infer(os.path.join(ROOT, "examples", "cnn.json")).compile()
    assert symshape.DIM_MAX == 2**62
    for n in (2**63 - 1, symshape.DIM_MAX + 1):
        res = p.check({"x": (n, 3, 9, 9)})
        assert not res and res.status is symshape.Status.INPUT
        assert res.message == "N must be at most 4611686018427387904, the largest dim (input 'x' dim 0)"
        with pytest.raises(symshape.GuardError):
            p.shapes({"x": (n, 3, 9, 9)})
    assert p.check({"x": (symshape.DIM_MAX, 3, 9, 9)})
    c = symshape.GuardCache(os.path.join(ROOT, "examples", "cnn.json"), capacity=2)
    c.add({})
    bad = c.lookup({"x": (2**63 - 1, 3, 9, 9)})
    assert bad.answer is symshape.CacheAnswer.INVALID and "the largest dim" in bad.reason
    assert c.lookup({"x": (symshape.DIM_MAX, 3, 9, 9)}).answer is symshape.CacheAnswer.HIT


def test_emit_c_matches_the_cli():
    path = os.path.join(ROOT, "examples", "cnn.json")
    p = symshape.infer(path).compile(all_tensors=False)
    st, out, _ = run_cli("emit-c", path, "--prefix", "cnn")
    assert st == 0 and p.emit_c(prefix="cnn") == out.rstrip("\n") + "\n" or p.emit_c("cnn") == out
    assert "int cnn_check(const int64_t *dims)" in p.emit_c(prefix="cnn")
    with pytest.raises(ValueError, match="C identifier"):
        p.emit_c(prefix="1x")


def test_guard_cache_answers_hit_recompile_invalid():
    c = symshape.GuardCache(os.path.join(ROOT, "examples", "transformer.json"), capacity=4)
    vid = c.add({"batch": 2, "mbatch": 2, "seq": 128, "mseq": 128}, label="batch=mbatch, seq=mseq")
    assert vid == 0 and len(c) == 1 and c.label(vid) == "batch=mbatch, seq=mseq"
    hit = c.lookup({"x": (4, 128, 768), "mask": (4, 1, 1, 128)})
    assert hit.answer is symshape.CacheAnswer.HIT and hit.variant == 0
    assert hit.label == "batch=mbatch, seq=mseq"
    miss = c.lookup({"x": (2, 128, 768), "mask": (2, 1, 1, 1)})
    assert miss.answer is symshape.CacheAnswer.RECOMPILE and miss.variant is None
    bad = c.lookup({"x": (2, 128, 768), "mask": (3, 1, 1, 128)})
    assert bad.answer is symshape.CacheAnswer.INVALID
    assert bad.reason == "guard batch == 1 || batch == mbatch || mbatch == 1 failed (node add_mask)"
    v2 = c.add({"batch": 2, "mbatch": 2, "seq": 128, "mseq": 1})
    assert c.lookup({"x": (2, 128, 768), "mask": (2, 1, 1, 1)}).variant == v2
    with pytest.raises(ValueError):
        c.lookup({"x": (2, 128)})


def test_model_errors_carry_the_library_message():
    with pytest.raises(symshape.ModelError, match="not an ONNX model"):
        symshape.infer(b"\x0fgarbage")
    with pytest.raises(symshape.ModelError, match="model"):
        symshape.infer(b'{"inputs": 3}')
    with pytest.raises(TypeError):
        symshape.infer(None)
    with pytest.raises(FileNotFoundError):
        symshape.infer(os.path.join(ROOT, "no-such-model.onnx"))
    with pytest.raises(TypeError):
        symshape.infer(os.path.join(ROOT, "examples", "cnn.json"), hints={"N": "8"})
    with pytest.raises(TypeError):
        symshape.infer(os.path.join(ROOT, "examples", "cnn.json"), ranges={"N": 8})
    with pytest.raises(symshape.ModelError, match="not loaded from ONNX"):
        symshape.infer(os.path.join(ROOT, "examples", "cnn.json")).to_onnx()


def test_results_keep_their_context_and_free_it_with_them():
    c = symshape.Context()
    r = symshape.infer(os.path.join(ROOT, "examples", "cnn.json"), ctx=c)
    assert r.context is c and r.symbol("N").context is c
    del c
    shape = r.shapes["logits"]
    del r
    assert str(shape[0]) == "N"


def test_dims_and_hints_take_numpy_integers():
    np = pytest.importorskip("numpy")
    path = os.path.join(ROOT, "examples", "transformer.json")
    r = symshape.infer(path, hints={"batch": np.int64(2), "mbatch": np.int32(2)})
    assert r.as_json() == symshape.infer(path, hints={"batch": 2, "mbatch": 2}).as_json()
    p = r.compile()
    dims = {"x": np.array([2, 128, 768]), "mask": (np.int64(2), 1, 1, 128)}
    assert p.shapes(dims) == p.shapes({"x": (2, 128, 768), "mask": (2, 1, 1, 128)})
    with pytest.raises(TypeError):
        p.check({"x": (2.0, 128, 768), "mask": (2, 1, 1, 128)})
