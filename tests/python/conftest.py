"""Shared fixtures of the Python module's tests: the source tree, the CLI,
the seed of the property tests (SYM_TEST_SEED)."""

import json
import os
import random
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli_path():
    return os.environ.get("SYMSHAPE_CLI") or os.path.join(ROOT, "build", "symshape")


def run_cli(*args):
    """Runs the CLI; returns (status, stdout, stderr)."""
    p = subprocess.run([cli_path()] + list(args), capture_output=True, text=True, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    st, out, err = run_cli(*args)
    assert out, "no output from symshape %s: %s" % (" ".join(args), err)
    return st, json.loads(out)


@pytest.fixture
def rng():
    return random.Random(int(os.environ.get("SYM_TEST_SEED", "20261129")))
