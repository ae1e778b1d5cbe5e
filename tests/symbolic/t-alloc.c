/* Allocation failures: a context allocator that fails its Nth allocation.
 * For every N up to the number of allocations a representative workload
 * makes, the workload must fail cleanly (NULL or SYM_ERROR with SYM_ENOMEM
 * recorded, never a wrong answer or a crash), give back every byte once the
 * context is freed, and the context must work again after
 * sym_ctx_clear_error once allocations succeed.
 *
 * Only the context allocator is tested: GMP's limb allocations and cJSON's
 * own nodes use the process allocators (sym_allocator documents this), and
 * are left to the sanitizer builds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symshape/json.h"
#include "symshape/symshape.h"
#include "../counting_alloc.h"

/* ---- the failing allocator ------------------------------------------- */

/* ---- the workload ------------------------------------------------------- */

#define MAX_STEPS 64

typedef struct run {
	sym_ctx *ctx;
	int nsteps;
	char *out[MAX_STEPS]; /* the text of each step's answer, NULL: failed */
	int failed;           /* a step failed */
	char problem[512];    /* a step failed uncleanly */
} run;

static void problem(run *r, const char *fmt, ...)
{
	va_list ap;
	if (r->problem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r->problem, sizeof(r->problem), fmt, ap);
	va_end(ap);
}

/* Records a step's answer: text on success, NULL on failure, which must
 * come with SYM_ENOMEM; an answer with an error recorded is a problem. */
static void step(run *r, const char *what, const char *text)
{
	sym_status st = sym_ctx_last_error(r->ctx);
	int i = r->nsteps++;
	assert_true(i < MAX_STEPS);
	if (text && st != SYM_EOK)
		problem(r, "step %d (%s) answered '%s' although %s was recorded", i, what, text,
		        sym_status_message(st));
	if (!text && st != SYM_ENOMEM)
		problem(r, "step %d (%s) failed with '%s' (%s), expected out of memory", i, what,
		        sym_status_message(st), sym_ctx_last_message(r->ctx));
	if (!text)
		r->failed = 1;
	r->out[i] = text ? strdup(text) : NULL;
}

static void step_expr(run *r, const char *what, const sym_expr *e)
{
	char *s = e ? sym_expr_to_str(r->ctx, e) : NULL;
	if (e && !s && sym_ctx_last_error(r->ctx) != SYM_ENOMEM)
		problem(r, "printing step %d (%s) failed with %s", r->nsteps, what,
		        sym_status_message(sym_ctx_last_error(r->ctx)));
	step(r, what, s);
	sym_str_free(r->ctx, s);
}

static void step_truth(run *r, const char *what, sym_truth t, const sym_witness *w)
{
	char buf[512];
	size_t len, i;
	if (t == SYM_ERROR) {
		step(r, what, NULL);
		return;
	}
	len = (size_t)snprintf(buf, sizeof(buf), "%s",
	                       t == SYM_TRUE    ? "true"
	                       : t == SYM_FALSE ? "false"
	                                        : "unknown");
	for (i = 0; w && i < w->n && len < sizeof(buf); i++) {
		long long v = 0;
		sym_expr_get_si(w->vals[i], &v);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, " %s=%lld",
		                        sym_expr_symbol_name(w->syms[i]), v);
	}
	step(r, what, buf);
}

static const char *const texts[] = {
    "s0*(s1 + 123456789012345678901234567890)//7 - 340282366920938463463374607431768211457",
    "min(s0//4, s1 % 8, max(s2, 3))",
    "(s0 + 1)**3 - s0**3 + floor(s0/3 + s1/5)",
    "(4*s0 + 3)//4 + (s2 - 1) % 4 + abs(s1 - 9)",
    "max(s0, s3 - 1)",
};
#define NTEXTS (sizeof(texts) / sizeof(texts[0]))

static const char *const facts_text[] = {"s0 >= 1", "s1 <= 7", "s2 % 4 == 1", "s3 == 2*s0 + 1"};

/* Runs the workload once in r->ctx. */
static void workload(run *r)
{
	sym_ctx *ctx = r->ctx;
	const sym_expr *e[NTEXTS], *x, *y, *s[3];
	sym_facts *f;
	sym_witness w = {0, NULL, NULL};
	size_t i;
	for (i = 0; i < NTEXTS; i++) {
		e[i] = sym_expr_from_str(ctx, texts[i]);
		step_expr(r, "parse", e[i]);
	}
	f = sym_facts_new(ctx);
	/* a store may be made after an earlier failure; it is just not used */
	step(r, "facts_new", f && sym_ctx_last_error(ctx) == SYM_EOK ? "ok" : NULL);
	for (i = 0; f && i < sizeof(facts_text) / sizeof(facts_text[0]); i++) {
		const sym_expr *p = sym_expr_from_str(ctx, facts_text[i]);
		sym_status st = p ? sym_facts_assume(f, p) : sym_ctx_last_error(ctx);
		if (st != SYM_EOK && st != SYM_ENOMEM)
			problem(r, "assuming %s: %s", facts_text[i], sym_status_message(st));
		step(r, "assume", st == SYM_EOK ? "ok" : NULL);
	}
	for (i = 0; i < NTEXTS; i++)
		step_expr(r, "simplify", f ? sym_simplify(ctx, f, e[i]) : NULL);
	/* equal: true under the facts, and false with a witness */
	x = sym_expr_from_str(ctx, "(s2 - 1) % 4 + s0");
	y = sym_expr_from_str(ctx, "s0");
	step_truth(r, "equal true", f && x && y ? sym_equal(ctx, f, x, y, &w) : SYM_ERROR, NULL);
	sym_witness_clear(ctx, &w);
	x = sym_expr_from_str(ctx, "s0//4 + s1");
	y = sym_expr_from_str(ctx, "s0//8 + s1");
	step_truth(r, "equal false", f && x && y ? sym_equal(ctx, f, x, y, &w) : SYM_ERROR, &w);
	sym_witness_clear(ctx, &w);
	sym_facts_free(f);
	/* evaluation and substitution */
	s[0] = sym_expr_symbol(ctx, "s0");
	s[1] = sym_expr_symbol(ctx, "s1");
	s[2] = sym_expr_symbol(ctx, "s2");
	for (i = 0; i < NTEXTS; i++) {
		long long v[3] = {10000000000LL, -7, 5};
		step_expr(r, "eval full",
		          s[0] && s[1] && s[2] && e[i] ? sym_expr_eval_si(ctx, e[i], 3, s, v) : NULL);
		step_expr(r, "eval partial",
		          s[0] && s[1] && e[i] ? sym_expr_eval_si(ctx, e[i], 2, s, v) : NULL);
	}
	{
		const sym_expr *by[2];
		by[0] = sym_expr_from_str(ctx, "4*t + 3");
		by[1] = sym_expr_from_str(ctx, "t - 1");
		step_expr(r, "subst", by[0] && by[1] && e[3] ? sym_expr_subst(ctx, e[3], 2, s, by) : NULL);
	}
	/* JSON both ways */
	for (i = 0; i < NTEXTS; i++) {
		cJSON *j = e[i] ? sym_expr_to_json(ctx, e[i]) : NULL;
		char *txt = j ? cJSON_PrintUnformatted(j) : NULL;
		step(r, "to_json", txt);
		if (j) {
			const sym_expr *back = sym_expr_from_json(ctx, j);
			if (back && back != e[i])
				problem(r, "JSON of %s reads back as another node", texts[i]);
			step_expr(r, "from_json", back);
		} else {
			step_expr(r, "from_json", NULL);
		}
		free(txt);
		cJSON_Delete(j);
	}
	/* symbols of an expression */
	{
		const sym_expr *all[8];
		size_t n = e[0] ? sym_expr_symbols(ctx, e[0], all, 8) : 0;
		step(r, "symbols", n == 2 && sym_ctx_last_error(ctx) == SYM_EOK ? "2" : NULL);
	}
}

static void run_clear(run *r)
{
	int i;
	for (i = 0; i < r->nsteps; i++)
		free(r->out[i]);
	r->nsteps = 0;
	r->failed = 0;
	r->problem[0] = 0;
}

/* Unclean failures, reported once per kind (the text up to the first
 * quote) with the first N that shows them; the test fails at the end. */
static char seen[32][128];
static int nseen;

static void report(long n, long total, const char *msg)
{
	char key[128];
	size_t k = strcspn(msg, "'");
	int i;
	size_t o = 0, j;
	for (j = 0; j < k && o < sizeof(key) - 1; j++)
		if (msg[j] < '0' || msg[j] > '9') /* one kind whatever the step number */
			key[o++] = msg[j];
	key[o] = 0;
	for (i = 0; i < nseen; i++)
		if (!strcmp(seen[i], key))
			return;
	if (nseen < 32)
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", key);
	print_error("allocation %ld of %ld failing: %s\n", n, total, msg);
}

static void every_failing_allocation_fails_cleanly(void **state)
{
	counting c;
	sym_allocator a = {counting_realloc, &c};
	run ref;
	long total, n, failures = 0;
	int i;
	(void)state;
	nseen = 0;

	/* the reference run counts the allocations */
	memset(&c, 0, sizeof(c));
	memset(&ref, 0, sizeof(ref));
	ref.ctx = sym_ctx_new_with_allocator(&a);
	assert_non_null(ref.ctx);
	workload(&ref);
	if (ref.failed || ref.problem[0])
		fail_msg("the workload fails without failing allocations: %s %s", ref.problem,
		         sym_ctx_last_message(ref.ctx));
	sym_ctx_free(ref.ctx);
	total = c.calls;
	assert_int_equal(c.live, 0);
	assert_true(c.bytes == 0);
	assert_int_equal(c.bad_sizes, 0);

	for (n = 1; n <= total; n++) {
		run r;
		memset(&c, 0, sizeof(c));
		memset(&r, 0, sizeof(r));
		c.fail_at = n;
		r.ctx = sym_ctx_new_with_allocator(&a);
		if (r.ctx) {
			workload(&r);
			if (r.problem[0])
				report(n, total, r.problem);
			for (i = 0; i < r.nsteps; i++)
				if (r.out[i] && (i >= ref.nsteps || strcmp(r.out[i], ref.out[i]))) {
					char msg[1200];
					snprintf(msg, sizeof(msg),
					         "step %d answered '%.500s', expected '%.500s'", i, r.out[i],
					         i < ref.nsteps ? ref.out[i] : "(nothing)");
					report(n, total, msg);
				}
			if (r.failed)
				failures++;
			/* usable again once memory is back */
			c.fail_at = 0;
			sym_ctx_clear_error(r.ctx);
			run_clear(&r);
			workload(&r);
			if (r.failed || r.problem[0])
				fail_msg(
				    "allocation %ld failed earlier: the context does not work again: %s %s",
				    n, r.problem, sym_ctx_last_message(r.ctx));
			for (i = 0; i < r.nsteps; i++)
				if (strcmp(r.out[i], ref.out[i]))
					fail_msg("allocation %ld failed earlier: step %d now answers '%s', "
					         "expected '%s'",
					         n, i, r.out[i], ref.out[i]);
			run_clear(&r);
			sym_ctx_free(r.ctx);
		} else {
			failures++;
		}
		if (c.live != 0 || c.bytes != 0)
			fail_msg("allocation %ld failing: %ld blocks (%lld bytes) not freed", n, c.live,
			         c.bytes);
		if (c.bad_sizes)
			fail_msg("allocation %ld failing: %ld frees passed a wrong old size", n, c.bad_sizes);
	}
	run_clear(&ref);
	printf("alloc: %ld allocations in the workload, each failed once (%ld runs saw a failure)\n", total,
	       failures);
	if (nseen)
		fail_msg("%d kinds of unclean failure (listed above)", nseen);
}

/* Predicates: printing a relation builds nodes (its two sides), so it
 * allocates; a failure there must give NULL, never a crash. */
static void predicate_workload(run *r)
{
	sym_ctx *ctx = r->ctx;
	const sym_expr *p = sym_expr_from_str(ctx, "s0 % 4 == 1 && s1 >= 2 || s3 < s0"), *s[2];
	long long v[2] = {5, 1};
	sym_facts *f = sym_facts_new(ctx);
	step_expr(r, "parse", p);
	step_expr(r, "simplify", f && p ? sym_simplify(ctx, f, p) : NULL);
	sym_facts_free(f);
	s[0] = sym_expr_symbol(ctx, "s0");
	s[1] = sym_expr_symbol(ctx, "s1");
	step_expr(r, "eval partial", p && s[0] && s[1] ? sym_expr_eval_si(ctx, p, 2, s, v) : NULL);
}

static void predicates_fail_cleanly_too(void **state)
{
	counting c;
	sym_allocator a = {counting_realloc, &c};
	run ref, r;
	long total, n;
	int i;
	(void)state;
	memset(&c, 0, sizeof(c));
	memset(&ref, 0, sizeof(ref));
	ref.ctx = sym_ctx_new_with_allocator(&a);
	assert_non_null(ref.ctx);
	predicate_workload(&ref);
	assert_false(ref.failed);
	sym_ctx_free(ref.ctx);
	total = c.calls;
	nseen = 0;
	for (n = 1; n <= total; n++) {
		memset(&c, 0, sizeof(c));
		memset(&r, 0, sizeof(r));
		c.fail_at = n;
		r.ctx = sym_ctx_new_with_allocator(&a);
		if (!r.ctx)
			continue;
		predicate_workload(&r);
		if (r.problem[0])
			report(n, total, r.problem);
		for (i = 0; i < r.nsteps; i++)
			if (r.out[i] && strcmp(r.out[i], ref.out[i]))
				report(n, total, "a step answered differently");
		c.fail_at = 0;
		sym_ctx_clear_error(r.ctx);
		run_clear(&r);
		predicate_workload(&r);
		for (i = 0; i < r.nsteps; i++)
			if (!r.out[i] || strcmp(r.out[i], ref.out[i]))
				fail_msg("allocation %ld failed earlier: the context does not work again", n);
		run_clear(&r);
		sym_ctx_free(r.ctx);
		if (c.live != 0 || c.bytes != 0)
			fail_msg("allocation %ld failing: %ld blocks (%lld bytes) not freed", n, c.live,
			         c.bytes);
	}
	run_clear(&ref);
	if (nseen)
		fail_msg("%d kinds of unclean failure (listed above)", nseen);
}

static void a_context_that_cannot_start_returns_null(void **state)
{
	counting c;
	sym_allocator a = {counting_realloc, &c};
	(void)state;
	memset(&c, 0, sizeof(c));
	c.fail_at = 1;
	assert_null(sym_ctx_new_with_allocator(&a));
	assert_int_equal(c.live, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_context_that_cannot_start_returns_null),
	    cmocka_unit_test(every_failing_allocation_fails_cleanly),
	    cmocka_unit_test(predicates_fail_cleanly_too),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
