/* The simplifier's min and max rewrite against the pairwise rule it
 * replaces: an argument is dropped when another one is proven not smaller
 * (min: not larger), each argument compared with each other one in order.
 * The simplifier compares arguments that the decisions see by their bounds
 * alone in linear time; the result must be the same node.
 *
 * Seeded (SYM_TEST_SEED, default 1): random fact stores over x0..x9
 * (the default minimum, ranges, residues, linear facts between two
 * symbols) and random min and max of 3 to 40 arguments (symbols,
 * constants, and in half the cases sums x + c, which the decisions compare
 * by more than bounds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "facts_private.h"

#define NSYMS 10
#define CASES 1500
#define MAX_ARGS 40

static uint64_t rng_state;

static uint64_t seed_from_env(void)
{
	const char *s = getenv("SYM_TEST_SEED");
	uint64_t v = s && *s ? strtoull(s, NULL, 10) : 1;
	return v ? v : 1;
}

static uint64_t rng_next(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static long long rng_range(long long lo, long long hi)
{
	return lo + (long long)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* Assumes the predicate text; a fact that contradicts the others is left
 * out. */
static void assume(sym_ctx *ctx, sym_facts *f, const char *text)
{
	const sym_expr *p = sym_expr_from_str(ctx, text);
	assert_non_null(p);
	if (sym_facts_assume(f, p) != SYM_EOK)
		sym_ctx_clear_error(ctx);
}

static sym_facts *random_facts(sym_ctx *ctx)
{
	sym_facts *f = sym_facts_new(ctx);
	char buf[64];
	int i;
	assert_non_null(f);
	if (rng_range(0, 1))
		assert_int_equal(sym_facts_set_default_min(f, 1), SYM_EOK);
	for (i = 0; i < NSYMS; i++) {
		long long lo = rng_range(-3, 20), hi = lo + rng_range(1, 30);
		switch (rng_range(0, 5)) {
		case 0:
			snprintf(buf, sizeof(buf), "x%d >= %lld", i, lo);
			assume(ctx, f, buf);
			break;
		case 1:
			snprintf(buf, sizeof(buf), "x%d >= %lld && x%d <= %lld", i, lo, i, hi);
			assume(ctx, f, buf);
			break;
		case 2:
			snprintf(buf, sizeof(buf), "x%d <= %lld", i, hi);
			assume(ctx, f, buf);
			break;
		case 3:
			snprintf(buf, sizeof(buf), "x%d %% 4 == %d", i, (int)rng_range(0, 3));
			assume(ctx, f, buf);
			break;
		default:
			break;
		}
	}
	for (i = (int)rng_range(0, 3); i > 0; i--) {
		int a = (int)rng_range(0, NSYMS - 1), b = (int)rng_range(0, NSYMS - 1);
		if (a == b)
			continue;
		snprintf(buf, sizeof(buf), "x%d <= x%d + %d", a, b, (int)rng_range(-2, 3));
		assume(ctx, f, buf);
	}
	return f;
}

/* The pairwise rule on the arguments of e (min or max). */
static const sym_expr *pairwise(sym_ctx *ctx, sym_facts *f, const sym_expr *e)
{
	const sym_expr *v[MAX_ARGS * 2];
	size_t n = e->n, i, j, m = 0;
	int changed = 0;
	assert_true(n <= MAX_ARGS * 2);
	memcpy(v, node_kids(e), n * sizeof(*v));
	for (i = 0; i < n; i++) {
		if (!v[i])
			continue;
		for (j = 0; j < n; j++) {
			const sym_expr *d;
			if (j == i || !v[j])
				continue;
			d = e->kind == SYM_KIND_MIN ? sym_expr_sub(ctx, v[i], v[j])
			                            : sym_expr_sub(ctx, v[j], v[i]);
			if (sym__decide_rel(ctx, f, SYM_KIND_LE, d) == SYM_TRUE) {
				v[j] = NULL;
				changed = 1;
			}
		}
	}
	if (!changed)
		return e;
	for (i = 0; i < n; i++)
		if (v[i])
			v[m++] = v[i];
	return e->kind == SYM_KIND_MIN ? sym_expr_min(ctx, m, v) : sym_expr_max(ctx, m, v);
}

static const sym_expr *random_arg(sym_ctx *ctx, int sums)
{
	char buf[32];
	long long k = rng_range(0, 9);
	if (k < 6)
		snprintf(buf, sizeof(buf), "x%d", (int)rng_range(0, NSYMS - 1));
	else if (k < 8 || !sums)
		snprintf(buf, sizeof(buf), "%lld", rng_range(-5, 40));
	else
		snprintf(buf, sizeof(buf), "x%d + %lld", (int)rng_range(0, NSYMS - 1), rng_range(-4, 4));
	return sym_expr_from_str(ctx, buf);
}

static void min_and_max_of_many_arguments_keep_the_pairwise_result(void **state)
{
	int c, dropped = 0, by_bounds = 0;
	(void)state;
	rng_state = seed_from_env() * 0x9e3779b97f4a7c15ULL + 1;
	for (c = 0; c < CASES; c++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f = random_facts(ctx);
		const sym_expr *args[MAX_ARGS], *e, *got, *want;
		size_t n = (size_t)rng_range(3, MAX_ARGS), i;
		int is_max = (int)rng_range(0, 1), sums = (int)rng_range(0, 1);
		for (i = 0; i < n; i++) {
			args[i] = random_arg(ctx, sums);
			assert_non_null(args[i]);
		}
		/* the arguments as the rewrite sees them: simplified first */
		for (i = 0; i < n; i++)
			args[i] = sym_simplify(ctx, f, args[i]);
		e = is_max ? sym_expr_max(ctx, n, args) : sym_expr_min(ctx, n, args);
		assert_non_null(e);
		got = sym_simplify(ctx, f, e);
		assert_non_null(got);
		want = e->kind == SYM_KIND_MIN || e->kind == SYM_KIND_MAX ? pairwise(ctx, f, e) : e;
		assert_non_null(want);
		if (got != want) {
			char *a = sym_expr_to_str(ctx, e), *g = sym_expr_to_str(ctx, got),
			     *w = sym_expr_to_str(ctx, want);
			fail_msg("case %d (seed %llu): %s simplifies to %s, the pairwise rule gives %s", c,
			         (unsigned long long)seed_from_env(), a, g, w);
		}
		dropped += got != e;
		by_bounds += !sums && got != e;
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
	print_message("%d of %d simplified (%d with symbols and constants only)\n", dropped, CASES,
	              by_bounds);
	assert_true(by_bounds > 0);
	assert_true(dropped > by_bounds);
}

/* One step of growing a min or max: acc extended by a and simplified must
 * be the pairwise rule's node (case c, step k for the message); counts the
 * steps and those that dropped an argument; returns the simplified node. */
static const sym_expr *grow_step(sym_ctx *ctx, sym_facts *f, int is_max, const sym_expr *acc,
                                 const sym_expr *a, int c, int k, int *steps, int *dropped)
{
	const sym_expr *pair[2] = {acc, a}, *e, *got, *want;
	e = is_max ? sym_expr_max(ctx, 2, pair) : sym_expr_min(ctx, 2, pair);
	assert_non_null(e);
	got = sym_simplify(ctx, f, e);
	assert_non_null(got);
	if (e->kind != SYM_KIND_MIN && e->kind != SYM_KIND_MAX)
		return got; /* construction moved a common part out: min(x, y) + 1 */
	want = pairwise(ctx, f, e);
	assert_non_null(want);
	if (got != want) {
		char *t = sym_expr_to_str(ctx, e), *g = sym_expr_to_str(ctx, got),
		     *w = sym_expr_to_str(ctx, want);
		fail_msg("case %d step %d (seed %llu): %s simplifies to %s, the pairwise rule gives %s", c, k,
		         (unsigned long long)seed_from_env(), t, g, w);
	}
	(*steps)++;
	*dropped += got != e;
	return got;
}

/* A min or max grown one argument at a time from its simplified form, as a
 * chain of broadcasts grows max(d0, ..., dk): the simplifier compares only
 * the new argument with the others, and must still give the pairwise
 * rule's node at every step. */
static void extending_a_simplified_min_or_max_keeps_the_pairwise_result(void **state)
{
	int c, steps = 0, dropped = 0;
	(void)state;
	rng_state = seed_from_env() * 0x9e3779b97f4a7c15ULL + 7;
	for (c = 0; c < CASES / 10; c++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f = random_facts(ctx);
		const sym_expr *acc = NULL;
		int is_max = (int)rng_range(0, 1), k, n = (int)rng_range(3, MAX_ARGS);
		for (k = 0; k < n; k++) {
			const sym_expr *a = sym_simplify(ctx, f, random_arg(ctx, 1));
			assert_non_null(a);
			if (!acc) {
				acc = a;
				continue;
			}
			acc = grow_step(ctx, f, is_max, acc, a, c, k, &steps, &dropped);
		}
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
	print_message("%d of %d steps dropped an argument\n", dropped, steps);
	assert_true(dropped > 0 && dropped < steps);
}

/* A max or min of ranged symbols grown one symbol at a time, each step
 * simplified, as a chain of broadcasts grows max(d0, ..., dk): most new
 * symbols compare with none of the others (the step is checked against
 * the recorded aggregate ends only), some dominate or are dominated (the
 * whole pass runs); every step gives the pairwise rule's node. */
static void growing_a_min_or_max_of_ranged_symbols_keeps_the_pairwise_result(void **state)
{
	int c, steps = 0, dropped = 0;
	(void)state;
	rng_state = seed_from_env() * 0x9e3779b97f4a7c15ULL + 11;
	for (c = 0; c < 40; c++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f = sym_facts_new(ctx);
		const sym_expr *acc = NULL;
		int is_max = c % 2, k, n = (int)rng_range(8, 40), wide = (int)rng_range(20, 400);
		char buf[96];
		assert_non_null(f);
		assert_int_equal(sym_facts_set_default_min(f, 1), SYM_EOK);
		/* the facts first: a new fact empties what the simplifier keeps */
		for (k = 0; k < n; k++) {
			long long lo = rng_range(1, wide), hi = lo + rng_range(1, wide);
			if (rng_range(0, 3)) {
				snprintf(buf, sizeof(buf), "y%d >= %lld && y%d <= %lld", k, lo, k, hi);
				assume(ctx, f, buf);
			}
		}
		for (k = 0; k < n; k++) {
			const sym_expr *a;
			snprintf(buf, sizeof(buf), "y%d", k);
			assert_non_null(a = sym_expr_from_str(ctx, buf));
			if (!acc) {
				acc = a;
				continue;
			}
			acc = grow_step(ctx, f, is_max, acc, a, c, k, &steps, &dropped);
		}
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
	print_message("%d of %d steps dropped an argument\n", dropped, steps);
	assert_true(dropped > 0 && dropped < steps);
}

/* The ends of xs as one number each way (infinite: the given sentinel),
 * for comparing intervals. */
static long long end_of(const sym_xnum *x, long long inf)
{
	int64_t v;
	if (x->inf)
		return inf;
	assert_true(sym__num_get_si(&x->v, &v));
	return v;
}

/* The bounds of a min or max grown one argument at a time (the later ones
 * taken from the one each extends) are at every step the min or max of
 * its arguments' ranges, each read from the facts alone. */
static void bounds_of_a_grown_min_or_max_are_those_of_its_arguments(void **state)
{
	int c, k;
	(void)state;
	rng_state = seed_from_env() * 0x9e3779b97f4a7c15ULL + 13;
	for (c = 0; c < 40; c++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f = sym_facts_new(ctx);
		const sym_expr *acc = NULL, *args[64];
		int is_max = c % 2, n = (int)rng_range(8, 60);
		char buf[96];
		assert_non_null(f);
		for (k = 0; k < n; k++) {
			long long lo = rng_range(-50, 50), hi = lo + rng_range(0, 100);
			/* half the cases give every symbol both ends, so that no
			 * open end hides the others */
			switch (c % 4 < 2 ? 0 : rng_range(0, 3)) {
			case 0:
				snprintf(buf, sizeof(buf), "y%d >= %lld && y%d <= %lld", k, lo, k, hi);
				assume(ctx, f, buf);
				break;
			case 1:
				snprintf(buf, sizeof(buf), "y%d >= %lld", k, lo);
				assume(ctx, f, buf);
				break;
			case 2:
				snprintf(buf, sizeof(buf), "y%d <= %lld", k, hi);
				assume(ctx, f, buf);
				break;
			default:
				break;
			}
		}
		for (k = 0; k < n; k++) {
			const sym_expr *pair[2];
			sym_ival got, one;
			long long lo = 0, hi = 0;
			int i, lo_inf = 0, hi_inf = 0;
			snprintf(buf, sizeof(buf), "y%d", k);
			assert_non_null(args[k] = sym_expr_from_str(ctx, buf));
			if (!acc) {
				acc = args[k];
				continue;
			}
			pair[0] = acc, pair[1] = args[k];
			assert_non_null(acc =
			                    is_max ? sym_expr_max(ctx, 2, pair) : sym_expr_min(ctx, 2, pair));
			sym__ival_init(&got);
			sym__ival_init(&one);
			assert_true(sym__bounds(ctx, f, acc, &got));
			for (i = 0; i <= k; i++) {
				long long l, h;
				sym__facts_sym_range(f, args[i], &one);
				l = end_of(&one.lo, LLONG_MIN), h = end_of(&one.hi, LLONG_MAX);
				if (i == 0 || (is_max ? l > lo : l < lo))
					lo = l;
				if (i == 0 || (is_max ? h > hi : h < hi))
					hi = h;
			}
			lo_inf = lo == LLONG_MIN, hi_inf = hi == LLONG_MAX;
			if (end_of(&got.lo, LLONG_MIN) != lo || end_of(&got.hi, LLONG_MAX) != hi ||
			    !!got.lo.inf != lo_inf || !!got.hi.inf != hi_inf)
				fail_msg("case %d step %d (seed %llu): bounds [%lld, %lld], the arguments "
				         "give [%lld, %lld]",
				         c, k, (unsigned long long)seed_from_env(),
				         end_of(&got.lo, LLONG_MIN), end_of(&got.hi, LLONG_MAX), lo, hi);
			sym__ival_clear(&got);
			sym__ival_clear(&one);
		}
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
}

/* A min or max of symbols grown by symbols (a chain of broadcasts grows
 * its max one dim a step) is made from its base's properties; the node
 * must be the one built from the whole argument list: same text, hash,
 * header and argument key, in a context that never grew it. */
static void min_or_max_of_symbols_grown_by_symbols_is_the_node_built_whole(void **state)
{
	uint64_t rng = 0x2545f4914f6cdd1dull;
	int round;
	(void)state;
	for (round = 0; round < 200; round++) {
		sym_ctx *a = sym_ctx_new(), *b = sym_ctx_new();
		const sym_expr *acc, *whole, *pa[40], *pb[40];
		int n = 3 + (int)(rng % 30), k, is_max = round % 2;
		const sym_expr *(*mk)(sym_ctx *, size_t, const sym_expr *const *) =
		    is_max ? sym_expr_max : sym_expr_min;
		char *ta, *tb;
		assert_non_null(a);
		assert_non_null(b);
		for (k = 0; k < n; k++) {
			char name[16];
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			/* names out of order, some repeated, of several lengths */
			snprintf(name, sizeof(name), "%s%d", rng % 3 ? "d" : "seq", (int)((rng >> 8) % 40));
			pa[k] = sym_expr_symbol(a, name);
			pb[k] = sym_expr_symbol(b, name);
			assert_non_null(pa[k]);
			assert_non_null(pb[k]);
		}
		/* a, grown by one to three symbols at a time */
		acc = mk(a, 2, pa);
		for (k = 2; k < n;) {
			const sym_expr *step[4];
			int j, m = 1 + (int)((rng >> (k % 50)) % 3);
			if (m > n - k)
				m = n - k;
			step[0] = acc;
			for (j = 0; j < m; j++)
				step[j + 1] = pa[k + j];
			acc = mk(a, (size_t)m + 1, step);
			assert_non_null(acc);
			k += m;
		}
		whole = mk(b, (size_t)n, pb);
		assert_non_null(whole);
		ta = sym_expr_to_str(a, acc);
		tb = sym_expr_to_str(b, whole);
		assert_non_null(ta);
		assert_non_null(tb);
		assert_string_equal(ta, tb);
		assert_int_equal(sym_expr_hash(acc), sym_expr_hash(whole));
		assert_int_equal(acc->kind, whole->kind);
		assert_int_equal(acc->n, whole->n);
		assert_int_equal(acc->flags, whole->flags);
		assert_int_equal(acc->depth, whole->depth);
		assert_int_equal(acc->degree, whole->degree);
		if (acc->kind == SYM_KIND_MIN || acc->kind == SYM_KIND_MAX) {
			assert_true((acc->flags & SYM_F_SYMARGS) != 0);
			assert_true(sym__minmax_key(acc) == sym__minmax_key(whole));
		}
		/* and the grown node is the one its context builds whole */
		assert_ptr_equal(mk(a, (size_t)n, pa), acc);
		sym_str_free(a, ta);
		sym_str_free(b, tb);
		sym_ctx_free(a);
		sym_ctx_free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(min_and_max_of_many_arguments_keep_the_pairwise_result),
	    cmocka_unit_test(min_or_max_of_symbols_grown_by_symbols_is_the_node_built_whole),
	    cmocka_unit_test(extending_a_simplified_min_or_max_keeps_the_pairwise_result),
	    cmocka_unit_test(growing_a_min_or_max_of_ranged_symbols_keeps_the_pairwise_result),
	    cmocka_unit_test(bounds_of_a_grown_min_or_max_are_those_of_its_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
