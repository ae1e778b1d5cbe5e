"""What the bench scripts share: running again under the system Python that
has the Debian packages, the load average, and finding a build."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SYSTEM_PYTHON = "/usr/bin/python3"


def has_modules(python, names):
    """Whether python imports every module of names."""
    code = "import " + ", ".join(names)
    return subprocess.run([python, "-c", code], capture_output=True).returncode == 0


def reexec_with(names):
    """Runs the script again with /usr/bin/python3 (where the python3-*
    Debian packages live) when the running Python lacks one of the modules
    names and that one has them all; returns otherwise."""
    if has_modules(sys.executable, names):
        return
    if (os.path.exists(SYSTEM_PYTHON) and os.environ.get("SYMSHAPE_BENCH_REEXEC") != "1"
            and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
            and has_modules(SYSTEM_PYTHON, names)):
        os.environ["SYMSHAPE_BENCH_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)


def loadavg():
    """The load averages as text, "?" where the system has none."""
    try:
        return " ".join("%.2f" % x for x in os.getloadavg())
    except OSError:
        return "?"


def find_build(arg, rel):
    """The build directory (arg, else build-bench, else build; as given or
    under the repository) that holds the executable rel, or None."""
    for cand in ([arg] if arg else []) + ["build-bench", "build"]:
        for base in (cand, os.path.join(ROOT, cand)):
            if os.access(os.path.join(base, rel), os.X_OK):
                return base
    return None


def find_cli(arg):
    """The symshape CLI of the build find_build picks, or None."""
    base = find_build(arg, "symshape")
    return os.path.join(base, "symshape") if base else None
