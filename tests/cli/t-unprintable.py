"""Expressions too long to print (SYM_MAX_TEXT_BYTES) or out of memory while
printing them (docs/cli.md, "Expressions that cannot be printed").

The memory total of infer is a summary: too long, it is reported as not
printed (text) or null with total_bytes_error (JSON), the rest of the output
as usual.  Any other expression that cannot be printed fails the command:
status 1, one line on stderr naming it, nothing on stdout (never a "?",
which a model reads as a fresh unknown dim)."""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402
from clitest import check, report, run  # noqa: E402

TOO_LONG = "expression text too long (more than 1048576 bytes)"


def chain_model(n):
    """n chained broadcasts of fresh dims: t_i = Add(t_{i-1}, x_i [d_i]);
    each byte size holds max(d0, ..., di), so the total grows as n**2."""
    inputs = [{"name": "x0", "dtype": "float32", "shape": ["d0"]}]
    nodes, prev = [], "x0"
    for i in range(1, n + 1):
        inputs.append({"name": "x%d" % i, "dtype": "float32", "shape": ["d%d" % i]})
        nodes.append({"name": "add%d" % i, "op": "Add", "inputs": [prev, "x%d" % i],
                      "outputs": ["t%d" % i]})
        prev = "t%d" % i
    return {"opset": 18, "inputs": inputs, "initializers": [], "nodes": nodes, "outputs": [prev]}


def long_sum(names, digits, rnd):
    """A sum of names with coefficients of the given number of digits: few
    symbols, long text, no number past the library's 2**20 bits."""
    return " + ".join("%s*%s" % ("".join(rnd.choice("123456789") for _ in range(digits)), s)
                      for s in names)


def write(tmp, name, model):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(model, f)
    return path


def total_too_long(tmp):
    path = write(tmp, "chain1000.json", chain_model(1000))
    res = run(["infer", path])
    lines = res.out.splitlines()
    check("total_too_long_says_not_printed_in_text", res, 0,
          out="\nmemory:\n  total bytes: not printed: %s\n" % TOO_LONG,
          pred=lambda r: (r.err == "" and "unknown (a tensor has no known size)" not in r.out
                          and lines[-1] == "  total bytes: not printed: " + TOO_LONG) or "other output")
    check("total_too_long_keeps_the_byte_sizes_in_text", res, 0,
          pred=lambda r: (any(l.strip().startswith("bytes    32*((max(d0, d1, ") for l in lines)
                          and not any(l.strip() == "bytes    ?" for l in lines)) or "byte sizes lost")
    res = run(["infer", "--json", path])

    def json_total(r):
        d = r.json()
        if d is None:
            return "not JSON"
        if d["total_bytes"] is not None or d.get("total_bytes_error") != TOO_LONG:
            return "total_bytes %r, total_bytes_error %r" % (d["total_bytes"], d.get("total_bytes_error"))
        sizes = [t["bytes"] for t in d["tensors"].values()]
        if len(sizes) != 2001 or any(s == "?" or not isinstance(s, str) for s in sizes):
            return "byte sizes lost"
        if d["tensors"]["t1000"]["bytes"] != "32*((max(%s) + 7)//8)" % ", ".join(
                "d%d" % i for i in range(1001)):
            return "t1000's byte size %r" % d["tensors"]["t1000"]["bytes"][:80]
        return r.err == "" or "stderr"
    check("total_too_long_is_null_with_its_reason_in_json", res, 0, pred=json_total)


def short_total_unchanged(tmp):
    path = write(tmp, "chain3.json", chain_model(3))
    total = ("32*((d0 + 7)//8 + (d1 + 7)//8 + (d2 + 7)//8 + (d3 + 7)//8 + (max(d0, d1) + 7)//8 + "
             "(max(d0, d1, d2) + 7)//8 + (max(d0, d1, d2, d3) + 7)//8)")
    check("short_total_is_printed_in_text", run(["infer", path]), 0,
          out="\nmemory:\n  total bytes: %s\n" % total)
    check("short_total_is_a_string_without_error_in_json", run(["infer", "--json", path]), 0,
          pred=lambda r: (r.json()["total_bytes"] == total
                          and "total_bytes_error" not in r.json()) or "other total")
    unknown = write(tmp, "unknown_rank.json", {
        "inputs": [{"name": "y", "dtype": "float32", "shape": None}],
        "nodes": [{"name": "r", "op": "Relu", "inputs": ["y"], "outputs": ["yr"]}],
        "outputs": ["yr"]})
    check("unknown_total_still_says_no_known_size_in_text", run(["infer", unknown]), 0,
          out="\n  total bytes: unknown (a tensor has no known size)\n")
    check("unknown_total_is_null_without_error_in_json", run(["infer", "--json", unknown]), 0,
          pred=lambda r: (r.json()["total_bytes"] is None
                          and "total_bytes_error" not in r.json()) or "other total")


def total_past_a_limit(tmp):
    """9 byte sizes of just under SYM_MAX_BITS bits: their sum is past the
    limit, so the total is not made; everything else is reported."""
    path = write(tmp, "big_total.json", {
        "inputs": [{"name": "x%d" % i, "dtype": "float32", "shape": ["2**1048571 + %d" % i]}
                   for i in range(9)],
        "nodes": [], "outputs": ["x0"]})
    why = "number too large (more than 1048576 bits)"
    res = run(["infer", path])
    check("total_past_a_limit_says_not_computed_in_text", res, 0,
          pred=lambda r: (r.err == "" and r.out.endswith("\n  total bytes: not computed: %s\n" % why)
                          and r.out.count("\n                   bytes    ") == 9) or "other output")

    def json_total(r):
        d = r.json()
        if d is None:
            return "not JSON"
        if d["total_bytes"] is not None or d.get("total_bytes_error") != why:
            return "total_bytes %r, total_bytes_error %r" % (
                d["total_bytes"] if d["total_bytes"] is None else d["total_bytes"][:40],
                d.get("total_bytes_error"))
        sizes = [t["bytes"] for t in d["tensors"].values()]
        return (len(sizes) == 9 and all(isinstance(s, str) and s.isdigit() for s in sizes)) or "byte sizes lost"
    check("total_past_a_limit_is_null_with_its_reason_in_json", run(["infer", "--json", path]), 0,
          pred=json_total)


def fails_cleanly(name, args, message):
    check(name, run(args), 1, pred=lambda r: (r.out == "" and r.err == "symshape: %s\n" % message)
          or "stdout %d bytes, stderr %r" % (len(r.out), r.err[:300]))


def dim_and_guard_too_long(tmp):
    rnd = random.Random(7)
    # 4 terms of 300,000 digits: a dim of 1.2 MB (inputs have no merge key,
    # which the library would fail on first)
    dim = write(tmp, "long_dim.json", {
        "inputs": [{"name": "x", "dtype": "float32", "shape": [2, long_sum("abcd", 300000, rnd)]}],
        "nodes": [], "outputs": ["x"]})
    for flag in ([], ["--json"]):
        fails_cleanly("dim_too_long_fails_naming_tensor_and_dim%s" % "_json"[:5 * len(flag)],
                      ["infer"] + flag + [dim], "%s: tensor 'x' dim 1: %s" % (dim, TOO_LONG))
    # two dims of 600 KB each that broadcast: the dims and the merge key
    # print, the guard relating them does not
    guard = write(tmp, "long_guard.json", {
        "inputs": [{"name": "x", "dtype": "float32", "shape": [long_sum("abcd", 150000, rnd)]},
                   {"name": "y", "dtype": "float32", "shape": [long_sum("efgh", 150000, rnd)]}],
        "nodes": [{"name": "add", "op": "Add", "inputs": ["x", "y"], "outputs": ["z"]}],
        "outputs": ["z"]})
    fails_cleanly("guard_too_long_fails_naming_guard_and_node_json", ["infer", "--json", guard],
                  "%s: guard 1 (node 'add'): %s" % (guard, TOO_LONG))
    # a node's output dim of 1.2 MB: inference itself fails at the node's
    # merge key, and says which node
    key = write(tmp, "long_key.json", {
        "inputs": [{"name": "x", "dtype": "float32", "shape": [2, long_sum("abcd", 300000, rnd)]}],
        "nodes": [{"name": "relu7", "op": "Relu", "inputs": ["x"], "outputs": ["y"]}],
        "outputs": ["y"]})
    for flag in ([], ["--json"]):
        fails_cleanly("merge_key_too_long_fails_naming_node%s" % "_json"[:5 * len(flag)],
                      ["infer"] + flag + [key], "%s: merge key of node 'relu7': %s" % (key, TOO_LONG))


FAILMALLOC = r"""
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static long calls, fail_at = -1;
static int ready;
static int fail_now(void)
{
	if (!ready) {
		const char *s = getenv("FAIL_ALLOC_AT");
		ready = 1;
		fail_at = s ? atol(s) : -1;
	}
	if (++calls != fail_at)
		return 0;
	errno = ENOMEM; /* as the C library's own failure */
	return 1;
}
void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void *calloc(size_t k, size_t n) { return fail_now() ? NULL : __libc_calloc(k, n); }
void *realloc(void *p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }
/* FAIL_ALLOC_AT=0: counts the allocations and writes the count on stderr */
__attribute__((destructor)) static void report(void)
{
	char b[32];
	int i = 31;
	long c = calls;
	if (fail_at != 0)
		return;
	b[i--] = '\n';
	do
		b[i--] = (char)('0' + c % 10);
	while (c /= 10);
	if (write(2, b + i + 1, (size_t)(31 - i)) < 0)
		_exit(3);
}
"""


def sanitized():
    """A sanitizer's runtime must come first: no LD_PRELOAD shim then."""
    with open(clitest.CLI, "rb") as f:
        binary = f.read()
    return b"__asan_init" in binary or b"__ubsan_handle" in binary


def out_of_memory_while_printing(tmp):
    """Fails the Nth allocation (an LD_PRELOAD shim over glibc's malloc) for
    every other N of infer on a small model: each run prints the whole
    output or fails with one line and nothing on stdout.  The CLI's own
    pool is off (SYMSHAPE_MALLOC=libc): every block comes from malloc."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc or not sys.platform.startswith("linux") or sanitized():
        print("skipped out_of_memory_while_printing (needs cc, glibc, no sanitizer)")
        return
    shim = os.path.join(tmp, "failmalloc.so")
    with open(shim + ".c", "w") as f:
        f.write(FAILMALLOC)
    if subprocess.run([cc, "-shared", "-fPIC", "-o", shim, shim + ".c"]).returncode:
        report("out_of_memory_shim_compiles", False, None, "cc failed")
        return
    path = write(tmp, "chain3_oom.json", chain_model(3))
    for flag in ([], ["--json"]):
        args = [clitest.CLI, "infer"] + flag + [path]
        name = "out_of_memory_while_printing_fails_cleanly%s" % "_json"[:5 * len(flag)]
        want = subprocess.run(args, stdout=subprocess.PIPE).stdout

        def under(n):
            env = dict(os.environ, LD_PRELOAD=shim, FAIL_ALLOC_AT=str(n), SYMSHAPE_MALLOC="libc")
            return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        total = int(under(0).stderr.split()[-1])
        bad = []
        for n in range(1, total + 1, 2):
            p = under(n)
            err = p.stderr.decode("utf-8", "replace")
            if p.returncode == 0 and p.stdout == want and not err:
                continue
            if (p.returncode == 1 and not p.stdout and err.count("\n") == 1
                    and err.startswith("symshape: ") and err.endswith("out of memory\n")):
                continue
            bad.append("allocation %d: status %s, %d bytes out, stderr %r"
                       % (n, p.returncode, len(p.stdout), err[:200]))
        report(name, not bad, None, "; ".join(bad[:3]) + (" (%d runs)" % len(bad) if bad else ""))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        return clitest.main([lambda: total_too_long(tmp), lambda: short_total_unchanged(tmp),
                             lambda: total_past_a_limit(tmp),
                             lambda: dim_and_guard_too_long(tmp),
                             lambda: out_of_memory_while_printing(tmp)])


if __name__ == "__main__":
    sys.exit(main())
