"""The package's surface: the stubs name every public name, the status
enum mirrors the library's codes, and memory goes with the objects."""

import ast
import os

import symshape
from conftest import ROOT


def test_type_stubs_name_every_public_name():
    path = os.path.join(os.path.dirname(symshape.__file__), "__init__.pyi")
    with open(path) as f:
        tree = ast.parse(f.read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    missing = [n for n in symshape.__all__ if n not in names]
    assert not missing


def test_status_mirrors_the_library_codes_with_their_messages():
    assert symshape.Status.OK.value == 0
    assert symshape.Status.GUARD.message == "a guard failed"
    assert symshape.Status.INPUT.message == "invalid input dims"
    assert [s.name for s in symshape.Status][:3] == ["OK", "NOMEM", "SYNTAX"]


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_contexts_results_and_programs_are_freed_with_their_objects():
    path = os.path.join(ROOT, "examples", "transformer.json")

    def once():
        c = symshape.Context()
        r = symshape.infer(path, ctx=c)
        r.compile().shapes({"x": (2, 128, 768), "mask": (2, 1, 1, 128)})
        x = c.symbol("x")
        str(symshape.simplify((x + 1)**3 // 2, dims=True))

    for _ in range(30):
        once()
    before = rss_kib()
    for _ in range(200):
        once()
    # keeping each context alive costs about 130 KiB per round (26 MB here)
    assert rss_kib() - before < 6 * 1024


def test_threads_share_the_default_context_safely():
    import threading
    x, y = symshape.symbols("x y")
    formulas = [(x + i) // 2 * y - i for i in range(40)]
    want = [str(symshape.simplify(f, dims=True)) for f in formulas]
    got, errors = {}, []

    def worker(k):
        try:
            for _ in range(20):
                for i, f in enumerate(formulas):
                    s = symshape.simplify(f, dims=True)
                    assert s.eval(x=k + 1, y=3) == f.eval(x=k + 1, y=3)
                    got.setdefault(k, {})[i] = str(s)
        except Exception as e:  # reported below: an assertion in a thread is lost
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(4):
        assert [got[k][i] for i in range(len(formulas))] == want
