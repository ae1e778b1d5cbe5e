"""simplify, prove and equal: answers under assumptions and dims=True, with
seeded checks that simplification keeps values and witnesses separate."""

import pytest

import symshape
from test_expr import build, gen

x, y, n = symshape.symbols("x y n")


def test_simplify_preserves_values_and_is_idempotent(rng):
    checked = 0
    for _ in range(250):
        try:
            e = build(gen(rng, 4))
        except symshape.Error:
            continue
        s = symshape.simplify(e, dims=True)
        assert symshape.simplify(s, dims=True) == s, str(e)
        for _ in range(4):
            env = {v: rng.randint(1, 20) for v in "xyz"}
            try:
                want = e.eval(env)
            except symshape.Error:
                continue
            assert s.eval(env) == want, "%s -> %s at %s" % (e, s, env)
            checked += 1
    assert checked > 400


def test_simplify_uses_ranges_and_divisibility():
    assert symshape.simplify("(x//2)//4") == x // 8
    assert symshape.simplify("(4*x + 3)//4") == x
    assert symshape.simplify(x % 8, assume=["x >= 0", "x < 8"]) == x
    assert symshape.simplify(symshape.min(x, x + y), dims=True) == x
    assert symshape.simplify(x // 8 * 8, assume=[symshape.eq(x % 8, 0)]) == x
    assert symshape.simplify((x + 2 * 1 - 3) // 2 + 1, dims=True) == (x + 1) // 2


def test_prove_answers_true_false_or_none():
    e = (x + 2 * 1 - 3) // 2 + 1
    assert symshape.prove(e >= 1, dims=True) is True
    assert symshape.prove(e >= 1) is None
    assert symshape.prove(x < x) is False
    assert symshape.prove("x*x >= 0") is True
    assert symshape.prove(x >= 3, assume=[x > 2]) is True
    assert symshape.prove(symshape.eq(x % 4, 3), assume=["x % 8 == 7"]) is True
    assert symshape.prove("x % 4 == 3", assume=["x % 8 == 7"]) is True
    with pytest.raises(TypeError, match="symshape.eq"):
        symshape.prove(x % 4 == 3)


def test_equal_gives_a_checked_witness():
    ans, w = symshape.equal(x // 2 * 2, x, assume=["x % 2 == 1"], dims=True)
    assert ans is False and set(w) == {"x"}
    assert w["x"] % 2 == 1 and w["x"] >= 1
    assert (x // 2 * 2).eval(w) != x.eval(w)
    assert symshape.equal((x + 1)**2, x**2 + 2 * x + 1) == (True, {})
    ans, w = symshape.equal(n // 2 + n // 2, n, dims=True)
    assert ans is False and (n // 2 + n // 2).eval(w) != w["n"]
    assert symshape.equal(x // 2 + (x + 1) // 2, x)[0] is True


def test_random_equal_answers_hold_at_admissible_points(rng):
    for _ in range(120):
        try:
            a, b = build(gen(rng, 3)), build(gen(rng, 3))
        except symshape.Error:
            continue
        ans, w = symshape.equal(a, b, dims=True)
        if ans is False:
            assert all(v >= 1 for v in w.values())
            full = dict({"x": 1, "y": 1, "z": 1}, **w)
            assert a.eval(full) != b.eval(full)
        elif ans is True:
            for _ in range(3):
                env = {v: rng.randint(1, 15) for v in "xyz"}
                try:
                    va = a.eval(env)
                except symshape.Error:
                    continue
                assert va == b.eval(env)


def test_contradicting_and_malformed_assumptions_are_errors():
    with pytest.raises(symshape.Error, match="contradicting") as err:
        symshape.simplify(x, assume=["x % 4 == 7"])
    assert err.value.status is symshape.Status.CONTRADICTION
    with pytest.raises(symshape.Error, match="not a predicate"):
        symshape.prove(x >= 1, assume=[x])
    with pytest.raises(TypeError):
        symshape.prove(x >= 1, assume="x >= 1")
    with pytest.raises(TypeError):
        symshape.prove(x >= 1, assume=[3.5])
    with pytest.raises(TypeError, match="symshape.eq"):
        symshape.prove(x >= 1, assume=[x % 8 == 0])
    with pytest.raises(symshape.ParseError):
        symshape.prove(x >= 1, assume=["x >="])
    with pytest.raises(symshape.Error, match="predicate"):
        symshape.prove(x + 1)
