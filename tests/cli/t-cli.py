#!/usr/bin/env python3
"""Integration tests of the expression commands of the symshape CLI (SPEC §5).

The CLI is found in $SYMSHAPE_CLI (set by meson), else in the first argument,
else at build/symshape.  Every check prints its name, the command and what it
got when it fails; the last line is "N passed, M failed" and the exit status
is nonzero when any check failed.
"""

import os
import random
import re
import shlex
import subprocess
import sys
import time

CLI = os.environ.get("SYMSHAPE_CLI") or (sys.argv[1] if len(sys.argv) > 1 else "build/symshape")
TIMEOUT = 60

passed = 0
failed = 0


class Result:
    def __init__(self, args, stdin, rc, out, err):
        self.args, self.stdin, self.rc, self.out, self.err = args, stdin, rc, out, err

    def text(self):
        return self.out.decode("utf-8", "replace")

    def describe(self):
        cmd = " ".join(shlex.quote(a if len(a) < 120 else a[:100] + "...(%d chars)" % len(a))
                       for a in [CLI] + self.args)
        lines = ["  command: " + cmd]
        if self.stdin is not None:
            s = self.stdin if len(self.stdin) < 300 else self.stdin[:200] + b"...(%d bytes)" % len(self.stdin)
            lines.append("  stdin:   %r" % s)
        lines.append("  status:  %s" % self.rc)
        lines.append("  stdout:  %r" % clip(self.out))
        lines.append("  stderr:  %r" % clip(self.err))
        return "\n".join(lines)


def clip(b):
    return b if len(b) < 400 else b[:300] + b"...(%d bytes)" % len(b)


def run(args, stdin=None):
    args = [a if isinstance(a, str) else a.decode("latin-1") for a in args]
    try:
        p = subprocess.run([CLI] + args, input=stdin if stdin is not None else b"",
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        return Result(args, stdin, p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired as e:
        return Result(args, stdin, "timeout after %ds" % TIMEOUT, e.stdout or b"", e.stderr or b"")


def report(name, ok, res, why=""):
    global passed, failed
    if ok:
        passed += 1
        return True
    failed += 1
    print("FAIL %s%s" % (name, ": " + why if why else ""))
    if res is not None:
        print(res.describe())
    return False


def crashed(res):
    return not isinstance(res.rc, int) or res.rc < 0 or res.rc > 2


def one_line(b):
    return len(b) > 1 and b.endswith(b"\n") and b.count(b"\n") == 1


def expect_out(name, args, want, stdin=None):
    """The command succeeds and prints exactly the lines of want."""
    res = run(args, stdin)
    ok = res.rc == 0 and res.text() == want + "\n"
    return report(name, ok, res, "expected status 0 and output %r" % want)


def expect_user_error(name, args, stdin=None, mentions=()):
    """Status 1, empty stdout, a one-line message on stderr (naming what)."""
    res = run(args, stdin)
    if crashed(res):
        return report(name, False, res, "crashed (status above 2 or a signal)")
    if res.rc != 1:
        return report(name, False, res, "expected status 1")
    if res.out:
        return report(name, False, res, "expected nothing on stdout")
    if not one_line(res.err):
        return report(name, False, res, "expected a one-line message on stderr")
    msg = res.err.decode("utf-8", "replace")
    for m in mentions:
        if m not in msg:
            return report(name, False, res, "the message does not mention %r" % m)
    return report(name, True, res)


def expect_misuse(name, args):
    """Status 2, nothing on stdout, a reason on stderr."""
    res = run(args)
    ok = res.rc == 2 and not res.out and res.err.strip() != b""
    return report(name, ok, res, "expected status 2 with a message on stderr")


def eval_at(expr, binding):
    res = run(["eval", expr] + ["%s=%s" % kv for kv in binding])
    return res, (res.text().strip() if res.rc == 0 else None)


def expect_false_with_witness(name, args, a, b, dims=False):
    """equal prints false and a witness at which a and b really differ."""
    res = run(args)
    lines = res.text().split("\n")
    if res.rc != 0 or len(lines) != 3 or lines[0] != "false" or lines[2] != "":
        return report(name, False, res, "expected 'false' and a witness line")
    m = re.fullmatch(r"witness:((?: [A-Za-z_][A-Za-z0-9_]*=-?[0-9]+)+)", lines[1])
    if not m:
        return report(name, False, res, "malformed witness line %r" % lines[1])
    binding = [tuple(kv.split("=")) for kv in m.group(1).split()]
    if dims and any(int(v) < 1 for _, v in binding):
        return report(name, False, res, "witness breaks --dims (a value below 1)")
    ra, va = eval_at(a, binding)
    rb, vb = eval_at(b, binding)
    if va is None or vb is None:
        return report(name, False, ra if va is None else rb, "cannot evaluate a side at the witness")
    if va == vb:
        return report(name, False, res, "both sides are %s at the witness" % va)
    return report(name, True, res)


def expect_batch(name, args, stdin, want_lines, want_rc):
    res = run(args, stdin)
    ok = res.rc == want_rc and res.text() == "".join(l + "\n" for l in want_lines)
    return report(name, ok, res, "expected status %d and lines %r" % (want_rc, want_lines))


def same_value_when_printed(name, expr, binding):
    """The simplified text has the value of the input at the binding."""
    res = run(["simplify", expr])
    if res.rc != 0:
        return report(name, False, res, "simplify failed")
    printed = res.text().strip()
    r1, v1 = eval_at(expr, binding)
    r2, v2 = eval_at(printed, binding)
    if v1 is None or v2 is None:
        return report(name, False, r1 if v1 is None else r2, "evaluation failed")
    return report(name, v1 == v2, r2, "input is %s at %s, the printed form %r is %s"
                  % (v1, binding, printed, v2))


def simplify_is_idempotent_through_text(name, expr):
    """Simplifying the printed result prints the same text again."""
    r1 = run(["simplify", expr])
    if r1.rc != 0:
        return report(name, False, r1, "simplify failed")
    once = r1.text().strip()
    r2 = run(["simplify", once])
    return report(name, r2.rc == 0 and r2.text().strip() == once, r2,
                  "simplifying %r again gives another text" % once)


# --- the expression commands ------------------------------------

def test_expression_command_examples():
    expect_out("simplify_cancels_symbol_quotient", ["simplify", "(s0*s1)/s1"], "s0")
    expect_out("simplify_cancels_polynomial_identity", ["simplify", "(s0+1)**2 - s0**2 - 2*s0"], "1")
    expect_out("eval_is_exact_past_64_bits", ["eval", "s0*s0*s0", "s0=10000000000"],
               "1" + "0" * 30)
    expect_out("eval_floordiv_rounds_toward_minus_infinity", ["eval", "7 // -2"], "-4")
    expect_out("eval_mod_follows_divisor_sign", ["eval", "-7 % 3"], "2")
    expect_out("eval_rational_result", ["eval", "s0/s1", "s0=1", "s1=3"], "1/3")
    expect_out("eval_predicate", ["eval", "s0 >= 3", "s0=3"], "true")
    expect_out("eval_binding_past_64_bits", ["eval", "s0 + 1", "s0=99999999999999999999999999999"],
               "100000000000000000000000000000")
    expect_user_error("syntax_error_names_column", ["simplify", "s0 +* 2"], mentions=["column 5"])
    expect_false_with_witness("equal_product_and_sum_differ_at_witness",
                              ["equal", "s0*s1", "s0+s1"], "s0*s1", "s0+s1")
    expect_out("equal_identical_polynomials", ["equal", "(s0+1)**2", "s0**2 + 2*s0 + 1"], "true")


def test_bad_input():
    e = expect_user_error
    e("syntax_unclosed_paren", ["simplify", "(s0"], mentions=["column"])
    e("syntax_stray_paren", ["simplify", "s0)"], mentions=["column"])
    e("syntax_empty", ["simplify", ""])
    e("syntax_blank", ["simplify", "   "])
    e("syntax_two_operands", ["simplify", "s0 s1"], mentions=["column"])
    e("syntax_decimal_fraction", ["simplify", "1.5"])
    e("syntax_chained_relations", ["prove", "1 < 2 < 3"])
    e("syntax_symbolic_exponent", ["simplify", "s0 ** s1"])
    e("syntax_in_eval", ["eval", "1 +"])
    e("syntax_in_equal_second_side", ["equal", "s0", "s0 +"])
    e("unknown_function", ["simplify", "foo(s0)"], mentions=["foo"])
    e("function_arity", ["simplify", "abs(1, 2)"])
    e("empty_min", ["simplify", "min()"])
    e("predicate_used_as_number", ["simplify", "true + 1"])
    e("number_used_as_predicate", ["simplify", "!s0"])
    e("prove_number", ["prove", "s0 + 1"])
    e("equal_predicate_with_number", ["equal", "s0", "s0 > 1"])
    e("division_by_zero_constant", ["eval", "1/0"])
    e("division_by_zero_in_simplify", ["simplify", "s0 / (s1 - s1)"])
    e("floordiv_by_zero", ["simplify", "s0 // 0"])
    e("mod_by_zero", ["simplify", "s0 % 0"])
    e("zero_to_negative_power", ["simplify", "0 ** -1"])
    e("division_by_zero_at_eval_point", ["eval", "s0 // s1", "s0=1", "s1=0"])
    e("mod_by_zero_at_eval_point", ["eval", "s0 % s1", "s0=1", "s1=0"])
    e("unbound_symbol_in_eval", ["eval", "s0 + s1", "s0=1"], mentions=["s1"])
    e("bad_binding_value", ["eval", "s0", "s0=abc"])
    e("huge_tower_exponent", ["simplify", "10**10**10"])
    e("huge_tower_exponent_in_eval", ["eval", "10**10**10"])
    e("huge_negative_exponent", ["simplify", "s0**-1000000000000"])
    e("exponent_past_64_bits", ["simplify", "2**100000000000000000000"])
    e("contradicting_bounds", ["simplify", "--assume", "s0 >= 1", "--assume", "s0 < 0", "s0"])
    e("contradicting_residues", ["simplify", "--assume", "s0 % 2 == 0", "--assume", "s0 % 2 == 1", "s0"])
    e("contradicting_conjunction", ["prove", "--assume", "s0 >= 1 && s0 <= 0", "s0 > 0"])
    e("contradicting_dims", ["equal", "--dims", "--assume", "s0 <= 0", "s0", "s1"])
    e("assume_false", ["simplify", "--assume", "false", "s0"])
    e("assume_syntax_error", ["simplify", "--assume", "s0 >", "s0"], mentions=["s0 >"])
    e("assume_not_a_predicate", ["simplify", "--assume", "s0", "s0"])

    # Nesting: the deepest argument the kernel passes (128 KiB), then 100000
    # parentheses and a 1 MB expression through standard input.
    deep = "(" * 65000 + "s0" + ")" * 65000
    e("deep_nesting_argument", ["simplify", deep])
    e("deep_nesting_unclosed", ["simplify", "(" * 65000])
    e("deep_nesting_in_eval", ["eval", deep, "s0=1"])
    deep_line = ("(" * 100000 + "s0" + ")" * 100000 + "\n").encode()
    res = run(["simplify", "-"], deep_line)
    report("nesting_of_100000_parentheses_is_a_line_error",
           res.rc == 1 and res.out.startswith(b"error: ") and res.out.count(b"\n") == 1, res,
           "expected one 'error:' line and status 1")
    terms = " + ".join("%d*s%d" % (i % 97 + 1, i % 61) for i in range(120000))
    big = (terms + " +* 1\n").encode()
    res = run(["simplify", "-"], big)
    report("expression_of_1MB_with_syntax_error_is_a_line_error",
           len(big) > 1000000 and res.rc == 1 and res.out.startswith(b"error: ")
           and res.out.count(b"\n") == 1 and b"column" in res.out, res,
           "expected one 'error: column ...' line and status 1")
    res = run(["simplify", "-"], (terms + "\n").encode())
    report("expression_of_1MB_simplifies", res.rc == 0 and res.out.count(b"\n") == 1
           and not res.out.startswith(b"error"), res, "expected one answer line and status 0")

    # Binary garbage without NUL bytes, as an argument and on standard input.
    rng = random.Random(20261129)
    for i in range(12):
        garbage = bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 200)))
        if i % 2 == 0:
            garbage = b"s0 + " + garbage
        res = run(["simplify", garbage.decode("latin-1")])
        if crashed(res) or (res.rc == 0 and res.err) or (res.rc == 1 and (res.out or not one_line(res.err))) \
                or res.rc == 2:
            report("binary_garbage_%d" % i, False, res, "expected status 1 with a one-line message")
        else:
            report("binary_garbage_%d" % i, True, res)
        res = run(["prove", "-"], garbage.replace(b"\n", b" ") + b"\n")
        report("binary_garbage_batch_%d" % i, not crashed(res) and res.rc in (0, 1)
               and res.out.count(b"\n") == 1, res, "expected one answer line")


def test_misuse():
    m = expect_misuse
    m("no_command", [])
    m("unknown_command", ["simplfy", "s0"])
    m("simplify_without_expression", ["simplify"])
    m("simplify_two_expressions", ["simplify", "s0", "s1"])
    m("equal_with_one_expression", ["equal", "s0"])
    m("equal_with_three_expressions", ["equal", "s0", "s1", "s2"])
    m("prove_without_predicate", ["prove"])
    m("eval_without_expression", ["eval"])
    m("eval_binding_without_equals", ["eval", "s0", "s0"])
    m("unknown_option", ["simplify", "--bogus", "s0"])
    m("unknown_option_of_prove", ["prove", "--dim", "s0 > 0"])
    m("assume_without_predicate", ["simplify", "s0", "--assume"])


def test_unknown_options_and_commands_are_quoted_whole():
    """An unknown option or command is quoted whole (both were once cut at
    80 bytes) in the first line of the usage message."""
    for what, args in [("option", ["simplify", "--" + "o" * 300, "s0"]), ("command", ["c" * 300, "s0"])]:
        res = run(args)
        first = res.err.split(b"\n")[0].decode("utf-8", "replace")
        want = "symshape: unknown %s '%s'" % (what, args[0] if what == "command" else args[1])
        report("unknown_%s_is_quoted_whole" % what, res.rc == 2 and not res.out and first == want, res,
               "expected status 2 and the first line %r" % want[:60])
    res = run(["simplify", "--a\nb" + "o" * 300, "s0"])
    first = res.err.split(b"\n")[0]
    report("unknown_option_with_a_newline_is_one_line",
           res.rc == 2 and first.endswith(b"'--a\\x0ab" + b"o" * 300 + b"'"), res,
           "expected the option escaped in the first line")


def test_batch():
    res = run(["simplify", "-"],
              b"(s0*s1)/s1\ns0 +* 2\n(s0+1)**2 - s0**2 - 2*s0\nfoo(s0)\nx - (x//4)*4\n")
    lines = res.text().split("\n")
    ok = (res.rc == 1 and len(lines) == 6 and lines[0] == "s0" and lines[1].startswith("error: ")
          and "column 5" in lines[1] and lines[2] == "1" and lines[3].startswith("error: ")
          and "foo" in lines[3] and lines[4] == "x % 4" and lines[5] == "")
    report("simplify_batch_answers_each_line_and_fails_at_the_end", ok, res)
    expect_batch("simplify_batch_all_good_exits_0", ["simplify", "-"], b"s0 + s0\n2*s1 - s1\n",
                 ["2*s0", "s1"], 0)
    expect_batch("simplify_batch_empty_input", ["simplify", "-"], b"", [], 0)
    expect_batch("simplify_batch_keeps_assumptions",
                 ["simplify", "--assume", "s0 >= 0", "--assume", "s0 < 8", "-"],
                 b"s0 % 8\ns0 // 8\n", ["s0", "0"], 0)
    expect_batch("simplify_batch_crlf_lines", ["simplify", "-"], b"s0 + s0\r\n", ["2*s0"], 0)

    res = run(["prove", "--dims", "-"], b"s0*s1 >= s0\ns0 < 0\ns0 >= 2\ns0 +\ns0 + 1\n")
    lines = res.text().split("\n")
    ok = (res.rc == 1 and len(lines) == 6 and lines[:3] == ["true", "false", "unknown"]
          and lines[3].startswith("error: ") and lines[4].startswith("error: ") and lines[5] == "")
    report("prove_batch_answers_each_line_and_fails_at_the_end", ok, res)
    expect_batch("prove_batch_all_good_exits_0", ["prove", "--dims", "-"], b"s0 >= 1\n", ["true"], 0)

    res = run(["equal", "-"], b"x - (x//4)*4\tx % 4\ns0*s1\ts0+s1\nno tab here\ns0\t(\n(s0+1)**2\ts0**2+2*s0+1\n")
    lines = res.text().split("\n")
    ok = (res.rc == 1 and len(lines) == 7 and lines[0] == "true" and lines[1] == "false"
          and lines[2].startswith("witness: ") and lines[3].startswith("error: ")
          and lines[4].startswith("error: ") and lines[5] == "true" and lines[6] == "")
    report("equal_batch_tab_separated_with_errors_in_place", ok, res)
    expect_batch("equal_batch_all_good_exits_0", ["equal", "--dims", "-"],
                 b"s0\ts0\n", ["true"], 0)


# --- facts, decisions ---------------------------------------------

def test_facts_and_decisions():
    expect_out("mod_disappears_inside_assumed_range",
               ["simplify", "--assume", "s0 >= 0", "--assume", "s0 < 8", "s0 % 8"], "s0")
    expect_out("assume_with_equals_sign", ["simplify", "--assume=s0 >= 0", "--assume=s0 < 8", "s0 % 8"], "s0")
    expect_out("floordiv_remainder_is_mod", ["simplify", "x - (x//4)*4"], "x % 4")
    expect_out("prove_product_of_dims_bounds_factor", ["prove", "--dims", "s0*s1 >= s0"], "true")
    expect_out("prove_dim_is_never_negative", ["prove", "--dims", "s0 < 0"], "false")
    expect_out("prove_dim_at_least_two_is_unknown", ["prove", "--dims", "s0 >= 2"], "unknown")
    expect_false_with_witness("equal_floordiv_times_divisor_differs_from_dim",
                              ["equal", "--dims", "(s0 // 2)*2", "s0"], "(s0 // 2)*2", "s0", dims=True)
    expect_out("equal_remainder_and_mod", ["equal", "x - (x//4)*4", "x % 4"], "true")
    expect_out("nested_ceil_halves_merge", ["simplify", "--dims", "((s0 + 1)//2 + 1)//2"], "(s0 + 3)//4")
    expect_out("nested_floordiv_merges", ["simplify", "(x // 2) // 4"], "x//8")


# --- printed forms -----------------------------------------------------------

def test_printed_forms():
    for i, e in enumerate(["(s0 + 3)//4", "x % 4", "(x + 1)//(y + 1)", "(x + 1) % (y + 1)",
                           "(x/(y + 1))//(y + 1)",
                           "m > 1 % b", "min(s0, s1) + max(s0, 2)", "s0/3 - 1/(s1 + 1)",
                           "abs(s0 - s1) // 2"]):
        simplify_is_idempotent_through_text("simplify_output_simplifies_to_itself_%d" % i, e)
    same_value_when_printed("constant_mod_in_equation_keeps_value", "1 % b == 0", [("b", "1")])
    same_value_when_printed("constant_mod_in_inequality_keeps_value", "m > 1 % b", [("b", "5"), ("m", "2")])
    same_value_when_printed("floordiv_by_sum_keeps_value", "(x + 1)//(y + 1)", [("x", "7"), ("y", "2")])


def sanitizer_factor():
    """Sanitizer builds are several times slower and need shadow memory."""
    if os.environ.get("ASAN_OPTIONS") is not None or os.environ.get("UBSAN_OPTIONS") is not None:
        return 10, 40
    return 1, 1


def children_cpu():
    import resource
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def expect_quick_user_error(name, args, mentions=(), seconds=2.0):
    """A user error (see expect_user_error) that comes within the given CPU
    time (CPU, not wall-clock time, so that a loaded machine does not fail
    it)."""
    start = children_cpu()
    ok = expect_user_error(name, args, mentions=mentions)
    took = children_cpu() - start
    seconds *= sanitizer_factor()[0]
    if ok and took > seconds:
        global passed
        passed -= 1
        report(name, False, None, "took %.1f s (at most %.1f s)" % (took, seconds))


def mod_chain(pairs):
    """x * a0 % b0 * a1 % b1 ...: a short text whose canonical form is a DAG
    that prints at least twice as long with each pair."""
    return "x" + "".join(" * a%d %% b%d" % (i, i) for i in range(pairs))


def expect_small_and_quick(name, args, stdin, want, seconds=1.0, megabytes=100):
    """The command prints want, within the given time and peak memory."""
    import tempfile
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout:
        fin.write(stdin)
        fin.seek(0)
        p = subprocess.Popen([CLI] + args, stdin=fin, stdout=fout, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        took = usage.ru_utime + usage.ru_stime  # CPU time: a loaded machine does not fail it
        p.returncode = os.waitstatus_to_exitcode(status)
        fout.seek(0)
        res = Result(args, stdin, p.returncode, fout.read(), p.stderr.read())
        p.stderr.close()
    mb = usage.ru_maxrss / 1024.0
    seconds, megabytes = seconds * sanitizer_factor()[0], megabytes * sanitizer_factor()[1]
    if res.rc != 0 or res.text().strip() != want:
        report(name, False, res, "expected %r" % want)
    elif took > seconds or mb > megabytes:
        report(name, False, res, "took %.2f s and %.0f MB (at most %.1f s, %d MB)" % (took, mb, seconds, megabytes))
    else:
        report(name, True, res)


def test_hostile_sizes():
    expect_small_and_quick("chain_of_constant_floor_divisions_is_read_in_linear_space",
                           ["simplify", "-"], b"x" + b"//2" * 100000 + b"\n",
                           run(["simplify", "x//2**100000"]).text().strip())
    expect_quick_user_error("simplify_of_a_text_past_the_size_limit_is_a_quick_error",
                            ["simplify", mod_chain(24)], mentions=("text too long",))
    expect_quick_user_error("power_of_a_sum_past_the_expansion_limit_is_a_quick_error",
                            ["simplify", "(a+b+c+d+1)**40"], mentions=("too large",), seconds=1.0)
    # every number a node or an evaluation holds prints within the text limit
    expect_quick_user_error("eval_of_a_power_past_the_number_limit_is_a_quick_error",
                            ["eval", "x**2**22*y", "x=7", "y=2"], mentions=("number too large",), seconds=1.0)
    # the printer looks for a % b in a sum of many terms over one floor once per floor
    expect_quick_user_error("modulo_by_a_power_of_a_sum_is_measured_quickly",
                            ["simplify", "(s + sor4) % (s1 - ss01 % b1)**66"], mentions=("text too long",),
                            seconds=1.0)
    expect_quick_user_error("power_of_a_sum_of_modulos_is_measured_quickly",
                            ["simplify", "(s + a % b % c % d)**26"], mentions=("text too long",), seconds=1.0)
    expect_quick_user_error("modulo_by_a_large_power_of_a_sum_is_measured_quickly",
                            ["simplify", "(s + ceiyyyy+ sor4) % ( + sor4) % (s1 - ssyy_h0 % -cesy% yOr2 % s1d)**26"],
                            mentions=("text too long",), seconds=1.5)
    expect_quick_user_error("modulo_by_a_reciprocal_power_of_a_sum_is_a_quick_error",
                            ["simplify", "1 % (a + b)**-700 - 1 % (a + b)**-700"], mentions=("too large",),
                            seconds=1.0)
    # a quotient of reciprocal powers of a sum is a positive power of the sum:
    # it expands under the power's cost limit, not factor by factor
    expect_quick_user_error("floor_division_by_a_reciprocal_power_of_a_sum_is_a_quick_error",
                            ["simplify", "(a+b)**-7//2 % (a+b)**-7000"], mentions=("too large",), seconds=1.0)
    expect_quick_user_error("modulo_by_a_reciprocal_power_of_a_sum_of_modulos_is_a_quick_error",
                            ["simplify", "(a + b % c)**-7 % (a + b % c)**-700"], mentions=("too large",),
                            seconds=1.0)
    expect_small_and_quick("modulo_by_a_smaller_reciprocal_power_of_a_sum_cancels",
                           ["simplify", "-"], b"(a+b)**-7 % (a+b)**-70\n", "0", seconds=1.0, megabytes=100)
    expect_quick_user_error("constant_past_the_number_limit_is_a_quick_error",
                            ["simplify", "10**2**20"], mentions=("number too large",), seconds=1.0)


def main():
    if not os.access(CLI, os.X_OK):
        print("cannot run %s" % CLI)
        print("0 passed, 1 failed")
        return 1
    test_expression_command_examples()
    test_bad_input()
    test_misuse()
    test_unknown_options_and_commands_are_quoted_whole()
    test_batch()
    test_facts_and_decisions()
    test_printed_forms()
    test_hostile_sizes()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
