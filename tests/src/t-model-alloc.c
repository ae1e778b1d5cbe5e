/* Allocation failures in the model layer: a context allocator that fails its
 * Nth allocation.  For every N up to the number of allocations that loading,
 * inferring, compiling and emitting an example model make, the workload must
 * fail cleanly (NULL with an error message recorded, never a crash or a
 * changed answer), every free must pass back the size that was allocated,
 * every byte must be given back once the context is freed, and the same
 * context must give the full answer again after sym_ctx_clear_error.
 *
 * Loading, inference, the rules and compilation allocate through the
 * context allocator, the blocks of the compiled program included (the
 * program keeps a copy of the hook to give them back), and emission
 * through the program's copy (its scratch and the emitted text, which goes
 * back with sym_model_program_str_free), so every allocation of all five
 * is failed in turn.  Emission has no context to record its error in: a
 * NULL text is clean when the failed allocation was one of emission's.
 * What does not go through the hook (the scratch of a run past 4096
 * registers, the guard cache, cJSON's parse tree, protobuf-c's unpacked
 * message) is left to the sanitizer builds; a program that outlives its
 * context must give every block back through the hook when it is freed,
 * also by the guard cache that owns it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symshape/symshape.h"
#include "test_util.h"
#include "../counting_alloc.h"

/* ---- the failing allocator ------------------------------------------- */

/* ---- the workload ------------------------------------------------------- */

/* Appends s to *out. */
static int append(char **out, size_t *len, const char *s)
{
	size_t n = strlen(s);
	char *nb = realloc(*out, *len + n + 1);
	if (!nb)
		return -1;
	memcpy(nb + *len, s, n + 1);
	*out = nb, *len += n;
	return 0;
}

/* Appends the printed form of e ("-" for NULL) to *out. */
static int append_expr(sym_ctx *ctx, char **out, size_t *len, const sym_expr *e)
{
	char *t = e ? sym_expr_to_str(ctx, e) : NULL;
	int st;
	if (e && !t)
		return -1;
	st = append(out, len, t ? t : "-");
	sym_str_free(ctx, t);
	return st;
}

/* Loads (from ONNX bytes with onnx, else JSON text), infers, compiles and emits the model text; returns the
 * report (shapes, guards, merge keys, bytes, emitted C) in memory of the caller's, or NULL when a step
 * failed, with the failure's message in why.  c is the context's allocator: *emit_failed is 1 when
 * emission returned NULL with one of its own allocations failed (it has no context to record that). */
static char *workload(sym_ctx *ctx, const counting *c, const char *text, size_t len, int onnx,
                      const char **why, int *emit_failed)
{
	long before;
	sym_model *m;
	sym_graph_result *r = NULL;
	sym_model_program *mp = NULL;
	char *out = NULL, *code = NULL;
	size_t n = 0, i;
	int ok = 0;
	*why = NULL;
	*emit_failed = 0;
	if (!(m = onnx ? sym_model_from_onnx(ctx, text, len) : sym_model_from_json(ctx, text, len)))
		goto error;
	if (!(r = sym_model_infer(ctx, m, NULL)))
		goto error;
	for (i = 0; i < sym_graph_num_tensors(r); i++) {
		int rank, d;
		const sym_expr *const *dims;
		const char *name = sym_graph_tensor(r, i, &rank, &dims, NULL);
		if (append(&out, &n, name) < 0 || append(&out, &n, ":") < 0)
			goto error;
		for (d = 0; d < rank; d++)
			if (append(&out, &n, " ") < 0 || append_expr(ctx, &out, &n, dims[d]) < 0)
				goto error;
		if (append(&out, &n, " bytes ") < 0 ||
		    append_expr(ctx, &out, &n, sym_graph_tensor_bytes(r, i)) < 0 ||
		    append(&out, &n, "\n") < 0)
			goto error;
	}
	for (i = 0; i < sym_graph_num_guards(r); i++)
		if (append_expr(ctx, &out, &n, sym_graph_guard(r, i, NULL, NULL, NULL)) < 0 ||
		    append(&out, &n, "\n") < 0)
			goto error;
	for (i = 0; i < sym_graph_num_merge_keys(r); i++) {
		size_t nn, k;
		const char *const *nodes;
		const char *key = sym_graph_merge_key(r, i, &nn, &nodes);
		if (!key || append(&out, &n, key) < 0)
			goto error;
		for (k = 0; k < nn; k++)
			if (append(&out, &n, " ") < 0 || append(&out, &n, nodes[k]) < 0)
				goto error;
		if (append(&out, &n, "\n") < 0)
			goto error;
	}
	if (append_expr(ctx, &out, &n, sym_graph_total_bytes(r)) < 0 || append(&out, &n, "\n") < 0)
		goto error;
	if (!(mp = sym_graph_compile(ctx, r, 1)))
		goto error;
	before = c->calls;
	if (!(code = sym_model_program_emit_c(mp, "m"))) {
		if (c->fail_at > before && c->fail_at <= c->calls) {
			*emit_failed = 1;
			*why = "emission: out of memory";
		} else {
			*why = "emission failed without a failing allocation";
		}
		goto out;
	}
	if (append(&out, &n, code) < 0)
		goto error;
	ok = 1;
error:
	if (!ok)
		*why = sym_ctx_last_message(ctx);
out:
	if (!ok) {
		free(out);
		out = NULL;
	}
	sym_model_program_str_free(mp, code);
	sym_model_program_free(mp);
	sym_graph_result_free(r);
	sym_model_free(m);
	return out;
}

/* ---- every failing allocation ------------------------------------------ */

/* Fails naming the first line where got differs from want. */
static void expect_same(const char *rel, long n, const char *when, const char *got, const char *want)
{
	size_t i = 0, line = 0;
	if (!strcmp(got, want))
		return;
	while (got[i] == want[i]) {
		if (got[i] == '\n')
			line = i + 1;
		i++;
	}
	fail_msg("%s: allocation %ld%s: the answer changed: '%.*s' instead of '%.*s'", rel, n, when,
	         (int)strcspn(got + line, "\n"), got + line, (int)strcspn(want + line, "\n"), want + line);
}

/* With same, a run that works around a failed allocation must give the
 * same answer; without, only the run after the failure must. */
static void every_failing_allocation_fails_cleanly_on(const char *rel, int same)
{
	counting c;
	sym_allocator a = {counting_realloc, &c};
	size_t len;
	char *text = read_text(rel, &len), *ref, *got;
	const char *why;
	long total, n, failures = 0, emit_failures = 0;
	int emit_failed;
	size_t rl = strlen(rel);
	int onnx = rl > 5 && !strcmp(rel + rl - 5, ".onnx");
	sym_ctx *ctx;
	memset(&c, 0, sizeof(c));
	ctx = sym_ctx_new_with_allocator(&a);
	assert_non_null(ctx);
	ref = workload(ctx, &c, text, len, onnx, &why, &emit_failed);
	if (!ref)
		fail_msg("%s: the workload fails without failing allocations: %s", rel, why ? why : "?");
	sym_ctx_free(ctx);
	total = c.calls;
	assert_int_equal(c.live, 0);
	assert_int_equal(c.bad_sizes, 0);
	for (n = 1; n <= total; n++) {
		memset(&c, 0, sizeof(c));
		c.fail_at = n;
		ctx = sym_ctx_new_with_allocator(&a);
		if (!ctx)
			continue; /* the context itself could not be made: NULL is clean */
		got = workload(ctx, &c, text, len, onnx, &why, &emit_failed);
		if (got) {
			/* a failure the library works around must not change the answer */
			if (same)
				expect_same(rel, n, " failing", got, ref);
		} else {
			failures++;
			if (emit_failed)
				emit_failures++;
			else if (sym_ctx_last_error(ctx) == SYM_EOK || !why || !*why)
				fail_msg("%s: allocation %ld failing: no error recorded (%s)", rel, n,
				         why ? why : "?");
		}
		free(got);
		c.fail_at = 0;
		sym_ctx_clear_error(ctx);
		got = workload(ctx, &c, text, len, onnx, &why, &emit_failed);
		if (!got)
			fail_msg("%s: allocation %ld failed earlier: the context does not work again: %s",
			         rel, n, why ? why : "?");
		expect_same(rel, n, " failed earlier", got, ref);
		free(got);
		sym_ctx_free(ctx);
		if (c.live || c.bytes)
			fail_msg("%s: allocation %ld failing: %ld blocks (%lld bytes) not freed", rel, n,
			         c.live, c.bytes);
		if (c.bad_sizes)
			fail_msg(
			    "%s: allocation %ld failing: %ld frees passed a wrong old size (%zu for %zu)",
			    rel, n, c.bad_sizes, c.bad_old, c.bad_real);
	}
	printf("%s: %ld allocations, each failed once (%ld runs saw a failure, %ld of them in emission)\n",
	       rel, total, failures, emit_failures);
	assert_true(emit_failures > 0);
	free(ref);
	free(text);
}

static void every_failing_allocation_fails_cleanly_cnn(void **state)
{
	(void)state;
	every_failing_allocation_fails_cleanly_on("examples/cnn.json", 1);
}

static void every_failing_allocation_fails_cleanly_storage(void **state)
{
	(void)state;
	every_failing_allocation_fails_cleanly_on("examples/storage.json", 1);
}

static void every_failing_allocation_fails_cleanly_transformer(void **state)
{
	(void)state;
	every_failing_allocation_fails_cleanly_on("examples/transformer.json", 1);
}

static void every_failing_allocation_fails_cleanly_subgraphs(void **state)
{
	(void)state;
	/* If, Loop and Scan with a nested If; runtime-bound dims of If and
	 * Loop, whose names a second run in the same context keeps */
	every_failing_allocation_fails_cleanly_on("tests/models/control_flow.json", 1);
	every_failing_allocation_fails_cleanly_on("tests/models/if_branches.json", 1);
	every_failing_allocation_fails_cleanly_on("tests/models/loop_scan.json", 1);
}

static void every_failing_allocation_fails_cleanly_onnx_cnn(void **state)
{
	(void)state;
	every_failing_allocation_fails_cleanly_on("tests/fixtures/onnx/cnn.onnx", 1);
}

/* ---- programs outlive their context ----------------------------------- */

static void programs_free_through_the_hook_after_the_context(void **state)
{
	counting c;
	sym_allocator a = {counting_realloc, &c};
	size_t len;
	char *text = read_text("examples/cnn.json", &len), *code;
	sym_ctx *ctx;
	sym_model *m;
	sym_graph_result *r;
	sym_model_program *all, *outs, *generic;
	sym_program *p;
	sym_guard_cache *cache;
	const sym_expr *s, *twice;
	int64_t dims[4] = {1, 3, 224, 224}, out[64], in = 21, pout, scratch[16];
	sym_model_run res;
	long id;
	size_t failed;
	(void)state;
	memset(&c, 0, sizeof(c));
	ctx = sym_ctx_new_with_allocator(&a);
	assert_non_null(ctx);
	m = sym_model_from_json(ctx, text, len);
	assert_non_null(m);
	r = sym_model_infer(ctx, m, NULL);
	assert_non_null(r);
	all = sym_graph_compile(ctx, r, 1);
	outs = sym_graph_compile(ctx, r, 0);
	generic = sym_graph_compile(ctx, r, 0);
	s = sym_expr_symbol(ctx, "s");
	twice = sym_expr_mul(ctx, s, sym_expr_from_si(ctx, 2));
	p = sym_program_compile(ctx, 1, &s, 0, NULL, 1, &twice);
	assert_true(all && outs && generic && p);
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	/* the programs' blocks are still out, and nothing else */
	assert_true(c.live > 0);
	assert_int_equal(sym_model_program_num_dims(all), 4);
	assert_true(sym_model_program_num_out_dims(all) <= 64);
	sym_model_program_run(all, dims, out, &res);
	assert_int_equal(res.status, SYM_EOK);
	code = sym_model_program_emit_c(all, "m");
	assert_non_null(code);
	sym_model_program_str_free(all, code);
	assert_true(sym_program_scratch_size(p) <= 16);
	assert_int_equal(sym_program_run(p, &in, &pout, scratch, &failed), SYM_EOK);
	assert_int_equal(pout, 42);
	sym_program_free(p);
	sym_model_program_free(all);
	/* the cache frees the programs it took through their hooks */
	cache = sym_guard_cache_new(1);
	assert_non_null(cache);
	assert_int_equal(sym_guard_cache_set_validity(cache, generic), 0);
	id = sym_guard_cache_add(cache, outs, "generic");
	assert_int_equal(id, 0);
	assert_int_equal(sym_guard_cache_lookup(cache, dims, &id, NULL), SYM_CACHE_HIT);
	sym_guard_cache_free(cache);
	assert_int_equal(c.live, 0);
	assert_int_equal(c.bytes, 0);
	if (c.bad_sizes)
		fail_msg("%ld frees passed a wrong old size (%zu for %zu)", c.bad_sizes, c.bad_old,
		         c.bad_real);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_failing_allocation_fails_cleanly_cnn),
	    cmocka_unit_test(every_failing_allocation_fails_cleanly_storage),
	    cmocka_unit_test(every_failing_allocation_fails_cleanly_transformer),
	    cmocka_unit_test(every_failing_allocation_fails_cleanly_subgraphs),
	    cmocka_unit_test(every_failing_allocation_fails_cleanly_onnx_cnn),
	    cmocka_unit_test(programs_free_through_the_hook_after_the_context),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
