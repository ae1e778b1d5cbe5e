"""infer_shapes and SymbolicShapeInference.infer_shapes: the ONNX model
comes back with a value_info for every tensor inference reached, dims as
`infer` gives them (dim_value or dim_param in the expression syntax), and
onnx.checker accepts it wherever it accepted the input."""

import glob
import os

import pytest

import symshape
from conftest import ROOT

onnx = pytest.importorskip("onnx")

FIXTURES = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "onnx", "*.onnx")) +
                  glob.glob(os.path.join(ROOT, "tests", "fixtures", "real", "*.onnx")))


def load(path):
    return onnx.load(path, load_external_data=False)


def declared(vi):
    """The dims of a ValueInfoProto: ints and dim_param texts; None without a shape."""
    t = vi.type.tensor_type
    if not t.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in t.shape.dim]


def checker_accepts(m):
    try:
        onnx.checker.check_model(m)
        return True
    except Exception:
        return False


@pytest.mark.parametrize("path", FIXTURES, ids=[os.path.relpath(p, ROOT) for p in FIXTURES])
def test_infer_shapes_fills_every_value_info_with_the_inferred_dims(path):
    m = load(path)
    before = m.SerializeToString()
    out = symshape.SymbolicShapeInference.infer_shapes(m, int_max=2**31 - 1, auto_merge=True,
                                                       guess_output_rank=False, verbose=0)
    assert isinstance(out, type(m))
    assert m.SerializeToString() == before, "the input model was modified"
    # a context of its own, as infer_shapes uses: fresh symbols (u0, ...)
    # are named after those the context already has
    r = symshape.infer(path, ctx=symshape.Context())
    infos = {vi.name: vi for vi in list(out.graph.value_info) + list(out.graph.output) +
             list(out.graph.input)}
    produced = [o for node in out.graph.node for o in node.output if o]
    assert produced
    checked = 0
    for name in produced:
        shape = r.shapes.get(name)
        if shape is None:
            continue
        assert name in infos, "no value_info for %s" % name
        dims = declared(infos[name])
        want = [d.value if d.is_constant else str(d) for d in shape]
        assert dims == want, name
        for text in dims:
            if isinstance(text, str):
                assert symshape.parse(text, ctx=r.context) in shape
        checked += 1
    assert checked == sum(1 for n in produced if r.shapes.get(n) is not None)
    guards = [p for p in out.metadata_props if p.key.startswith("symshape.guard.")]
    assert len(guards) == len(r.guards)
    if checker_accepts(m):
        onnx.checker.check_model(out)


def test_infer_shapes_returns_what_it_was_given():
    path = os.path.join(ROOT, "tests", "fixtures", "onnx", "cnn.onnx")
    with open(path, "rb") as f:
        data = f.read()
    as_bytes = symshape.infer_shapes(data)
    assert isinstance(as_bytes, bytes)
    assert onnx.load_from_string(as_bytes) == symshape.infer_shapes(load(path))
    assert isinstance(symshape.infer_shapes(path), onnx.ModelProto)


def test_infer_shapes_names_unknown_input_dims_as_dim_params():
    path = os.path.join(ROOT, "tests", "fixtures", "onnx", "cnn.onnx")
    out = symshape.infer_shapes(load(path))
    for vi in out.graph.input:
        for d in vi.type.tensor_type.shape.dim:
            assert d.HasField("dim_value") or d.dim_param


def test_infer_shapes_takes_hints_and_reports_diagnostics_when_verbose(capsys):
    path = os.path.join(ROOT, "tests", "fixtures", "real", "swin_t.onnx")
    r = symshape.infer(path)
    symshape.infer_shapes(load(path), verbose=1)
    err = capsys.readouterr().err
    assert len(err.splitlines()) == len(r.diagnostics)
    symshape.infer_shapes(load(path))
    assert capsys.readouterr().err == ""


def test_infer_shapes_refuses_what_is_not_an_onnx_model():
    with pytest.raises(symshape.ModelError):
        symshape.infer_shapes(b"\x0f\x01garbage")
    with pytest.raises(symshape.ModelError):
        symshape.infer_shapes({"inputs": [], "nodes": [], "outputs": []})
    with pytest.raises(TypeError):
        symshape.infer_shapes(42)
