"""symshape: exact symbolic tensor shapes, from Python.

Expressions (`Expr`) are exact and canonical: integer symbols, integer and
`fractions.Fraction` constants, ``+ - * / // % **``, `min`, `max`, `abs`,
`floor`, `ceil`; ``< <= > >=`` build predicates and ``& | ~`` combine them.
``==`` and ``!=`` compare canonical identity (so Exprs are dict keys); the
relations are `eq` and `ne`.  `simplify`, `prove` and `equal` decide with
assumptions; `infer` runs shape inference over a model, `InferResult.compile`
gives a runtime program, `GuardCache` picks compiled variants, and
`infer_shapes` / `SymbolicShapeInference.infer_shapes` write shapes back into
an ONNX model.

Contexts: every Expr lives in a `Context`.  The module's functions use one
default context (for the life of the interpreter) unless given ``ctx=``; a
`Context()` is a separate store, freed with the last Expr or result made in
it.  Exprs of different contexts never combine (symshape.Error);
`Context.convert` rebuilds one in another context.  Calls hold the GIL, so a
context is never used by two threads at once.  Compiled programs and guard
caches hold no context.
"""

import collections
import enum
import fractions
import json as _json
import os
import re
import sys

from ._symshape import (DIM_MAX, Context, Error, Expr, GuardError, ModelError, ParseError, abs,
                        ceil, default_context, eq, equal, floor, max, min, ne, prove, simplify)
from . import _symshape

__all__ = [
    "Context", "Expr", "Error", "ParseError", "ModelError", "GuardError", "Status",
    "CacheAnswer", "symbols", "parse", "min", "max", "abs", "floor", "ceil", "eq", "ne",
    "simplify", "prove", "equal", "infer", "InferResult", "Program", "CheckResult",
    "GuardCache", "Lookup", "infer_shapes", "SymbolicShapeInference", "default_context",
    "Symbol", "Tensor", "Guard", "Diagnostic", "diff", "Diff", "DIM_MAX",
]

Status = enum.Enum("Status", [(name, value) for name, value, _ in _symshape._statuses],
                   module=__name__)
Status.__doc__ = """The library's status codes (sym_status): the outcome of a program run
and the .status of every symshape.Error.  .message is the library's text."""
_MESSAGES = {value: msg for _, value, msg in _symshape._statuses}
Status.message = property(lambda self: _MESSAGES[self.value])
_symshape._set_status_enum(Status)


class CacheAnswer(enum.Enum):
    """The answers of the guard cache (sym_cache_answer)."""
    HIT = 0        # a variant's guards all hold
    RECOMPILE = 1  # valid input, no variant fits
    INVALID = 2    # the input violates an assert guard or the declared shapes


# ---- expressions -------------------------------------------------------------

def parse(text, ctx=None):
    """Returns the canonical Expr of the text (SPEC syntax); ParseError on bad text."""
    return (ctx or default_context()).parse(text)


def symbols(names, ctx=None):
    """Returns the integer symbols named in names ("x y", "x, y" or a list of
    names): one Expr for one name, else a tuple."""
    if isinstance(names, str):
        names = [n for n in re.split(r"[\s,]+", names) if n]
    else:
        names = list(names)
    c = ctx or default_context()
    syms = tuple(c.symbol(n) for n in names)
    if not syms:
        raise ValueError("symbols() needs at least one name")
    return syms[0] if len(syms) == 1 else syms


# ---- inference ---------------------------------------------------------------

Symbol = collections.namedtuple("Symbol", "expr name source min max max_expr")
Symbol.__doc__ = """A symbol of an inference result: its Expr and name, where it comes from
("x.shape[0]"), its range (ints, None for an open end) and, for a
data-dependent symbol, the expression that bounds it (max_expr)."""
Tensor = collections.namedtuple(
    "Tensor", "name shape dtype inferred range format storage_format storage_shape bytes")
Tensor.__doc__ = """A tensor of an inference result: shape (a tuple of Exprs, None for an
unknown rank or a tensor inference did not reach: see .inferred), dtype, the
range (lo, hi) of each dim (ints, None for an open end), its formats and storage shape (None when the
model names no format), its byte size (an Expr, None when unknown)."""
Guard = collections.namedtuple("Guard", "expr kind node reason")
Guard.__doc__ = """A guard: the predicate, "assert" or "expect", the node, the reason."""
Diagnostic = collections.namedtuple("Diagnostic", "message node op tensor")
Diagnostic.__doc__ = """A problem of one node or tensor that inference went on around."""


def _model_source(model):
    """(bytes, kind) of a model given as an onnx.ModelProto, bytes, a dict
    (a JSON model) or a path."""
    if hasattr(model, "SerializeToString") and callable(model.SerializeToString):
        return model.SerializeToString(), "onnx"
    if isinstance(model, dict):
        return _json.dumps(model).encode(), "json"
    if isinstance(model, (bytes, bytearray, memoryview)):
        data = bytes(model)
        return data, "json" if data.lstrip()[:1] == b"{" else "onnx"
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        with open(path, "rb") as f:
            data = f.read()
        if path.endswith(".onnx") or data.lstrip()[:1] != b"{":
            return data, "onnx"
        return data, "json"
    raise TypeError("a model is a path, bytes, a dict (JSON model) or an onnx.ModelProto, not %s"
                    % type(model).__name__)


def _ranges_arg(ranges):
    if ranges is None:
        return None
    if not isinstance(ranges, dict):
        raise TypeError("ranges must be a dict {symbol name: (lo, hi)}")
    out = {}
    for k, v in ranges.items():
        if isinstance(v, range):
            if v.step != 1 or len(v) == 0:
                raise ValueError("ranges: %s: a range needs step 1 and at least one value" % k)
            v = (v.start, v.stop - 1)
        out[k] = tuple(v)
    return out


def infer(model, hints=None, ranges=None, allow_empty=False, align=None, ctx=None):
    """Infers every tensor's symbolic shape of a model (a path, bytes, a JSON
    model as a dict, or an onnx.ModelProto).

    hints: {symbol: int} for specialisation (expect guards); ranges:
    {symbol: (lo, hi)} with None for an open end; allow_empty: dims may be 0;
    align: byte sizes align up to this (default 32).  Returns an InferResult;
    ModelError when the model cannot be loaded or inferred.
    """
    data, kind = _model_source(model)
    g = _symshape._infer(data, kind, hints, _ranges_arg(ranges), bool(allow_empty),
                         0 if align is None else align, ctx)
    return InferResult(g)


def _end(e):
    """A range end: None (open), the constant's value, or the Expr."""
    if e is None:
        return None
    return e.value if e.is_constant else e


class InferResult:
    """The result of infer(): symbols, tensors (shapes, dtypes, ranges,
    storage shapes, byte sizes), guards, merge keys and diagnostics."""

    def __init__(self, graph):
        self._g = graph
        self.context = graph.context
        self.symbols = [Symbol(e, e.name, src, _end(lo), _end(hi), b)
                        for e, src, lo, hi, b in graph.symbols()]
        self.tensors = {}
        for name, rank, dims, dtype, rng, fmt, sfmt, sdims, nbytes in graph.tensors():
            if rng is not None:
                rng = tuple((_end(lo), _end(hi)) for lo, hi in rng)
            self.tensors[name] = Tensor(name, dims, dtype, rank != -2, rng, fmt, sfmt, sdims, nbytes)
        self.guards = [Guard(*g) for g in graph.guards()]
        self.merge_keys = {key: list(nodes) for key, nodes in graph.merge_keys()}
        self.diagnostics = [Diagnostic(*d) for d in graph.diagnostics()]
        self.total_bytes = graph.total_bytes()
        #: why total_bytes is None though every tensor has a size: the
        #: library limit the sum went past; None otherwise
        self.total_bytes_error = graph.total_bytes_error()
        self.inputs = [name for name, _ in graph.inputs()]
        self.outputs = graph.outputs()
        t = self.tensors.values()
        #: {tensor: tuple of Exprs} (None for an unknown rank)
        self.shapes = {x.name: x.shape for x in t}
        #: {tensor: element type name}
        self.dtypes = {x.name: x.dtype for x in t}
        #: {tensor: ((lo, hi), ...)}: the exact range of every dim
        self.ranges = {x.name: x.range for x in t if x.range is not None}
        #: {tensor: tuple of Exprs} for the tensors the model names a storage format for
        self.storage_shapes = {x.name: x.storage_shape for x in t if x.format is not None}
        #: {tensor: Expr} (None where the size is unknown)
        self.byte_sizes = {x.name: x.bytes for x in t}

    def symbol(self, name):
        """Returns the Expr of the result's symbol name (KeyError when there is none)."""
        for s in self.symbols:
            if s.name == name:
                return s.expr
        raise KeyError(name)

    def compile(self, all_tensors=True):
        """Compiles the guards and shapes into a Program (every tensor of
        known rank, or the model outputs only)."""
        return Program(self._g.compile(bool(all_tensors)), self)

    def to_onnx(self):
        """Returns the bytes of the ONNX model with the result written in
        (value_info, input and output shapes, guards as metadata_props)."""
        return self._g.to_onnx()

    def as_json(self):
        """The result as `symshape infer --json` prints it (a dict)."""
        def num(v):
            return v if v is None or isinstance(v, int) else str(v)

        syms = []
        for s in self.symbols:
            d = {"name": s.name, "source": s.source, "min": num(s.min), "max": num(s.max)}
            if s.max_expr is not None:
                d["max_expr"] = str(s.max_expr)
            syms.append(d)
        tensors = {}
        for n, t in self.tensors.items():
            d = {"shape": None if t.shape is None else [str(x) for x in t.shape]}
            if not t.inferred:
                d["inferred"] = False
            d["dtype"] = t.dtype
            if t.range is not None:
                d["range"] = [[num(lo), num(hi)] for lo, hi in t.range]
            if t.format is not None:
                d["format"] = t.format
                d["storage_format"] = t.storage_format
                d["storage_shape"] = (None if t.storage_shape is None
                                      else [str(x) for x in t.storage_shape])
            d["bytes"] = None if t.bytes is None else str(t.bytes)
            tensors[n] = d
        out = {"symbols": syms, "tensors": tensors,
               "guards": [{"expr": str(g.expr), "kind": g.kind, "node": g.node,
                           "reason": g.reason} for g in self.guards],
               "merge_keys": dict(self.merge_keys),
               "total_bytes": None if self.total_bytes is None else str(self.total_bytes)}
        if self.total_bytes_error is not None:
            out["total_bytes_error"] = self.total_bytes_error
        if self.diagnostics:
            out["errors"] = [{"node": d.node, "message": d.message} for d in self.diagnostics]
        return out

    def _input_layout(self):
        """[(name, rank, constant dims or None)] of the model inputs, in order."""
        out = []
        for name in self.inputs:
            t = self.tensors.get(name)
            const = None
            if t is not None and t.shape is not None:
                own = any(s.source and s.source.startswith(name + ".shape[") for s in self.symbols)
                vals = [d.value for d in t.shape]
                if not own and all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
                    const = tuple(vals)
            rank = -1 if t is None or t.shape is None else len(t.shape)
            out.append((name, rank, const))
        return out

    def __repr__(self):
        return "<InferResult: %d symbols, %d tensors, %d guards>" % (
            len(self.symbols), len(self.tensors), len(self.guards))


def _flatten_dims(layout, dims, what):
    """The concatenated dims of every input, from {input: dims}; an input of
    constant shape may be left out."""
    if not isinstance(dims, dict):
        raise TypeError("%s takes a dict {input name: dims}" % what)
    names = [n for n, _, _ in layout]
    for k in dims:
        if k not in names:
            raise ValueError("%s: the model has no input %r" % (what, k))
    flat = []
    for name, rank, const in layout:
        if name not in dims:
            if const is None:
                raise ValueError("%s: missing the dims of input %r" % (what, name))
            flat.extend(const)
            continue
        d = dims[name]
        if isinstance(d, int) and not isinstance(d, bool):
            d = (d,)
        d = tuple(d)
        if rank < 0 or len(d) != rank:
            raise ValueError("%s: input %r has rank %d, got %d dims" % (what, name, rank, len(d)))
        flat.extend(d)
    return flat


# ---- programs ----------------------------------------------------------------

class CheckResult:
    """The outcome of a program run: truthy exactly when every check and
    guard held (and the requested outputs were computed).

    status: a Status (OK, GUARD a guard failed, INPUT the dims contradict the
    declared shapes or the symbols' ranges, OVERFLOW, DIVZERO, INEXACT);
    guard: the failing Guard (None unless status is GUARD), index its
    position, kind "assert" (invalid input) or "expect" (recompile), node,
    message; shapes, storage_shapes, byte_sizes, total_bytes once computed.
    """

    def __init__(self, status, guard, index, kind, node, message):
        self.status = status
        self.guard = guard
        self.index = index
        self.kind = kind
        self.node = node
        self.message = message
        self.shapes = self.storage_shapes = self.byte_sizes = self.total_bytes = None

    def __bool__(self):
        return self.status is Status.OK

    def __repr__(self):
        if self:
            return "<CheckResult ok>"
        return "<CheckResult %s: %s>" % (self.status.name, self.message)


class Program:
    """A compiled model program (standalone: it holds no context): check()
    and shapes() on concrete input dims; emit_c() writes the same program
    as C."""

    def __init__(self, prog, result):
        self._p = prog
        self._layout = result._input_layout()
        self.guards = list(result.guards)
        self.inputs = [n for n, _, _ in self._layout]
        self.tensors = [(n, r) for n, r, _, _ in prog.tensors()]
        self._storage = [(n, f, sr) for n, _, f, sr in prog.tensors()]
        self.bound = [n for n, _ in prog.bound()]

    def _flat(self, dims, bind, what):
        flat = _flatten_dims(self._layout, dims, what)
        bind = dict(bind or {})
        for k in bind:
            if k not in self.bound:
                raise ValueError("%s: the model has no data-dependent symbol %r" % (what, k))
        for name in self.bound:
            if name not in bind:
                raise ValueError("%s: missing bind=%s (a data-dependent dim, known once its kernel "
                                 "has run)" % (what, name))
            flat.append(bind[name])
        return flat

    def _run(self, dims, bind, what, shapes=True, storage=False, nbytes=False):
        st, idx, msg, node, kind, seg, out, sto, bts = self._p.run(
            self._flat(dims, bind, what), shapes, storage, nbytes)
        status = Status(st)
        guard = self.guards[idx] if status is Status.GUARD and idx < len(self.guards) else None
        res = CheckResult(status, guard, idx if status is Status.GUARD else None,
                          kind if status is Status.GUARD else None,
                          node if status is Status.GUARD else None, msg)
        if status is not Status.OK:
            return res
        if out is not None:
            res.shapes, q = {}, 0
            for name, rank in self.tensors:
                res.shapes[name] = tuple(out[q:q + rank])
                q += rank
        if sto is not None:
            res.storage_shapes, q = {}, 0
            for name, fmt, srank in self._storage:
                res.storage_shapes[name] = tuple(sto[q:q + srank])
                q += srank
        if bts is not None:
            res.byte_sizes = {name: (None if b < 0 else b)
                              for (name, _), b in zip(self.tensors, bts)}
            res.total_bytes = None if bts[-1] < 0 else bts[-1]
        return res

    def check(self, dims, bind=None):
        """Checks the dims ({input: dims}; inputs of constant shape may be
        left out; bind= gives data-dependent symbols) against the declared
        shapes and every guard.  Returns a CheckResult."""
        return self._run(dims, bind, "check", shapes=False)

    def run(self, dims, bind=None):
        """check() that also computes shapes, storage shapes and byte sizes."""
        return self._run(dims, bind, "run", True, True, True)

    def shapes(self, dims, bind=None):
        """Returns {tensor: tuple of ints} for the dims; GuardError (with
        .result) when a guard or an input check fails, Error on overflow."""
        res = self._run(dims, bind, "shapes")
        if not res:
            cls = GuardError if res.status in (Status.GUARD, Status.INPUT) else Error
            msg = res.message
            if res.guard is not None:
                msg = "%s guard %s failed (node %s: %s)" % (res.kind, res.guard.expr, res.node,
                                                          res.guard.reason)
            e = cls(msg)
            e.status, e.position, e.result = res.status, None, res
            raise e
        return res.shapes

    def emit_c(self, prefix="symshape"):
        """Returns standalone C11 source with the ABI of SPEC section 8."""
        return self._p.emit_c(prefix)

    def __repr__(self):
        return "<Program: %d inputs, %d guards, %d tensors>" % (
            len(self.inputs), len(self.guards), len(self.tensors))


# ---- the guard cache ---------------------------------------------------------

Lookup = collections.namedtuple("Lookup", "answer variant label reason")
Lookup.__doc__ = """A guard cache answer: a CacheAnswer, the variant id and label on a
hit, the reason on invalid input."""


class GuardCache:
    """Compiled variants of one model, each with its own hints, and the
    answer for concrete input dims: which variant fits (HIT), that a
    recompile is needed (RECOMPILE), or that the input is invalid (INVALID)."""

    def __init__(self, model, capacity=8, ranges=None, allow_empty=False, ctx=None):
        self._data, self._kind = _model_source(model)
        self._opts = dict(ranges=_ranges_arg(ranges), allow_empty=bool(allow_empty), ctx=ctx)
        self._c = _symshape._GuardCache(capacity)
        base = self._infer(None)
        self._layout = InferResult(base)._input_layout()
        self._c.set_validity(base)

    def _infer(self, hints):
        o = self._opts
        return _symshape._infer(self._data, self._kind, hints, o["ranges"], o["allow_empty"], 0,
                                o["ctx"])

    def add(self, hints=None, label=None):
        """Compiles the variant of the hints ({symbol: int}) and returns its
        id; the least recently used variant is evicted when the cache is full."""
        if label is None:
            label = ",".join("%s=%d" % kv for kv in (hints or {}).items())
        return self._c.add(self._infer(hints), label)

    def lookup(self, dims):
        """Returns a Lookup for {input: dims}."""
        a, vid, reason = self._c.lookup(_flatten_dims(self._layout, dims, "lookup"))
        answer = CacheAnswer(a)
        hit = answer is CacheAnswer.HIT
        return Lookup(answer, vid if hit else None, self._c.label(vid) if hit else None, reason)

    def label(self, variant):
        """The label of a held variant, None once evicted."""
        return self._c.label(variant)

    def __len__(self):
        return self._c.size()


# ---- ONNX write-back ---------------------------------------------------------

Diff = collections.namedtuple("Diff", "answer witness reason")
Diff.__doc__ = """The answer of diff(): True (same), False (different) or None
(unknown); the witness {input of a: tuple of dims} at which the models were
run and disagree (empty unless different); the reason, how they disagree
or what could not be decided ("" for same)."""


def diff(a, b, map=None, ranges=None, allow_empty=False, ctx=None):
    """Decides whether two models (paths, bytes, JSON dicts, onnx.ModelProtos
    or InferResults of one Context) accept the same input shapes and give
    the same output shapes for each, as `symshape diff` does.

    Inputs and outputs pair by name, or by map {name in a: name in b};
    input dims pair by input and axis.  ranges {symbol of a: (lo, hi)} and
    allow_empty apply when the models are inferred here: b gets each range
    on the dim that pairs with the input dim the symbol of a comes from.
    Returns a Diff; ModelError when a model cannot be loaded or the models
    cannot be paired, ValueError for a range b has no symbol for.
    """
    map = dict(map or {})
    ra = a if isinstance(a, InferResult) else infer(a, ranges=ranges, allow_empty=allow_empty, ctx=ctx)
    if isinstance(b, InferResult):
        rb = b
    else:
        rb = infer(b, allow_empty=allow_empty, ctx=ra.context)
        if ranges:
            rb = infer(b, ranges=_ranges_in_b(ra, rb, ranges, map), allow_empty=allow_empty,
                       ctx=ra.context)
    answer, reason, witness = ra._g.diff(rb._g, map)
    return Diff({1: True, 0: False}.get(answer), dict(witness), reason)


def _ranges_in_b(ra, rb, ranges, map):
    """The ranges of a's symbols given to the symbols of b's paired dims."""
    out = {}
    for name, rng in ranges.items():
        src = next((s.source for s in ra.symbols if s.name == name), None)
        m = re.fullmatch(r"(.+)\.shape\[(\d+)\]", src or "")
        if not m:
            raise ValueError("ranges: %s is not an input dim symbol of a%s"
                             % (name, " (it is %s)" % src if src else ""))
        dims = rb.shapes.get(map.get(m.group(1), m.group(1)))
        axis = int(m.group(2))
        if dims is None or axis >= len(dims) or dims[axis].name is None:
            raise ValueError("ranges: %s.shape[%d] of a is no symbol of b's inputs" % (m.group(1), axis))
        out[dims[axis].name] = rng
    return out


def infer_shapes(model, hints=None, ranges=None, allow_empty=False, int_max=2**31 - 1,
                 auto_merge=False, guess_output_rank=False, verbose=0):
    """Returns the ONNX model with every inferred shape written in: a
    value_info for every tensor a node produces, the input and output
    shapes, symbolic dims as dim_param in the expression syntax, the guards
    and symbols as metadata_props.

    model is an onnx.ModelProto (an onnx.ModelProto is returned), bytes
    (bytes are returned) or a path.  int_max, auto_merge and
    guess_output_rank are ONNX Runtime's parameters, accepted so that a
    caller of its SymbolicShapeInference switches by its import: symshape's
    arithmetic is exact (no int_max), equal dims are guards rather than
    merges, and it never guesses a rank.  verbose > 0 prints the
    diagnostics to standard error.  ModelError when the model cannot be
    inferred.
    """
    del int_max, auto_merge, guess_output_rank
    data, kind = _model_source(model)
    if kind != "onnx":
        raise ModelError("infer_shapes takes an ONNX model")
    r = infer(data, hints=hints, ranges=ranges, allow_empty=allow_empty, ctx=Context())
    if verbose:
        for d in r.diagnostics:
            print("symshape: %s" % d.message, file=sys.stderr)
    out = r.to_onnx()
    if hasattr(model, "SerializeToString"):
        return type(model).FromString(out)
    if isinstance(model, (bytes, bytearray, memoryview)):
        return out
    import onnx
    return onnx.load_from_string(out)


class SymbolicShapeInference:
    """A stand-in for ONNX Runtime's class of that name:
    ``SymbolicShapeInference.infer_shapes(model_proto, int_max, auto_merge,
    guess_output_rank, verbose)`` is symshape.infer_shapes."""

    def __init__(self, int_max=2**31 - 1, auto_merge=False, guess_output_rank=False, verbose=0,
                 prefix=""):
        self.int_max, self.auto_merge = int_max, auto_merge
        self.guess_output_rank, self.verbose, self.prefix = guess_output_rank, verbose, prefix

    @staticmethod
    def infer_shapes(in_mp, int_max=2**31 - 1, auto_merge=False, guess_output_rank=False,
                     verbose=0):
        """Returns in_mp with the shapes written in (see symshape.infer_shapes)."""
        return infer_shapes(in_mp, int_max=int_max, auto_merge=auto_merge,
                            guess_output_rank=guess_output_rank, verbose=verbose)
