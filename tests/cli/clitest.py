"""The harness the model-command tests share: where the CLI is, running it,
checking a result and counting checks.

The CLI is found in $SYMSHAPE_CLI (set by meson), else in the first argument,
else at build/symshape.  A failed check prints its name, why it failed and
the command with what it got; main() prints "N passed, M failed" last and
returns 1 when any check failed.
"""

import json
import os
import shlex
import subprocess
import sys

CLI = os.environ.get("SYMSHAPE_CLI") or (sys.argv[1] if len(sys.argv) > 1 else "build/symshape")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 60

counts = {"passed": 0, "failed": 0}


class Result:
    def __init__(self, args, rc, out, err):
        self.args, self.rc, self.out, self.err = args, rc, out, err

    def describe(self):
        cmd = " ".join(shlex.quote(a) for a in [CLI] + self.args)
        return "\n".join(["  command: " + cmd, "  status:  %s" % self.rc,
                          "  stdout:  %r" % self.out[:800], "  stderr:  %r" % self.err[:600]])

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError:
            return None


def run(args):
    try:
        p = subprocess.run([CLI] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
        return Result(args, p.returncode, p.stdout.decode("utf-8", "replace"),
                      p.stderr.decode("utf-8", "replace"))
    except subprocess.TimeoutExpired:
        return Result(args, "timeout", "", "")


def report(name, ok, res=None, why=""):
    if ok:
        counts["passed"] += 1
        return
    counts["failed"] += 1
    print("FAIL %s%s" % (name, ": " + why if why else ""))
    if res is not None:
        print(res.describe())


def check(name, res, status=0, out=None, err=None, pred=None):
    """out/err: substrings (or lists of them) expected in stdout/stderr;
    pred(res) returns True, or what went wrong."""
    why = []
    if res.rc != status:
        why.append("status %s, expected %s" % (res.rc, status))
    for want, got, what in ((out, res.out, "stdout"), (err, res.err, "stderr")):
        for w in ([want] if isinstance(want, str) else want or []):
            if w not in got:
                why.append("%s lacks %r" % (what, w))
    if status and res.err.count("\n") < 1:
        why.append("no message on stderr")
    if pred is not None and not why:
        try:
            r = pred(res)
            if r is not True:
                why.append(r or "check failed")
        except Exception as e:  # a malformed output is a failure, not a crash
            why.append("%s: %s" % (type(e).__name__, e))
    report(name, not why, res, "; ".join(why))
    return not why


def parses_back(expr):
    """Every expression string in any output parses back (SPEC §5)."""
    return run(["simplify", expr]).rc == 0


def main(tests):
    if not os.access(CLI, os.X_OK):
        print("cannot run %s" % CLI)
        print("0 passed, 1 failed")
        return 1
    for t in tests:
        try:
            t()
        except Exception as e:  # an unexpected output fails the group, the run goes on
            report(t.__name__, False, None, "%s: %s" % (type(e).__name__, e))
    print("%d passed, %d failed" % (counts["passed"], counts["failed"]))
    return 1 if counts["failed"] else 0
