/* Runtime programs: lowering, the interpreter, serialisation.  Every result
 * is compared with exact evaluation (sym_expr_eval_si). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "prog_gen.h"

static const sym_expr *P(sym_ctx *ctx, const char *s)
{
	const sym_expr *e = sym_expr_from_str(ctx, s);
	if (!e)
		fail_msg("parse %s: %s", s, sym_ctx_last_message(ctx));
	return e;
}

static const char *status_name(sym_status st)
{
	return sym_status_message(st);
}

/* Counts of run statuses, indexed by sym_status. */
#define NSTATUS (SYM_EINEXACT + 1)

static sym_program *compile(sym_ctx *ctx, const sym_expr *const *syms, size_t ng, const sym_expr *const *g,
                            size_t no, const sym_expr *const *o)
{
	sym_program *p = sym_program_compile(ctx, NSYMS, syms, ng, g, no, o);
	if (!p)
		fail_msg("compile: %s", sym_ctx_last_message(ctx));
	return p;
}

/* Runs p at vals and compares with exact evaluation; returns the status. */
static sym_status run_and_compare(sym_ctx *ctx, sym_program *p, const sym_expr *const *syms, size_t ng,
                                  const sym_expr *const *g, size_t no, const sym_expr *const *o,
                                  const long long *vals)
{
	int64_t in[NSYMS], out[8], want[8], *scratch;
	size_t i, failed = 99, wfailed = 98;
	sym_status st, wst;
	for (i = 0; i < NSYMS; i++)
		in[i] = vals[i];
	scratch = malloc((sym_program_scratch_size(p) + 1) * sizeof(*scratch));
	assert_non_null(scratch);
	st = sym_program_run(p, in, out, scratch, &failed);
	wst = exact_expect(ctx, syms, ng, g, no, o, vals, &wfailed, want);
	if (st != wst || (st == SYM_EGUARD && failed != wfailed)) {
		char *t = no ? sym_expr_to_str(ctx, o[0]) : NULL;
		fail_msg("at s=(%lld,%lld,%lld,%lld) first output %s: program %s (guard %zu), exact %s "
		         "(guard %zu)",
		         vals[0], vals[1], vals[2], vals[3], t ? t : "-", status_name(st), failed,
		         status_name(wst), wfailed);
	}
	if (st == SYM_EOK)
		for (i = 0; i < no; i++)
			if (out[i] != want[i]) {
				char *t = sym_expr_to_str(ctx, o[i]);
				fail_msg("%s at s=(%lld,%lld,%lld,%lld): program %lld, exact %lld", t,
				         vals[0], vals[1], vals[2], vals[3], (long long)out[i],
				         (long long)want[i]);
			}
	/* checking the guards alone agrees with the guard part of the run */
	if (ng) {
		size_t cf = 97;
		sym_status cs = sym_program_check(p, in, scratch, &cf);
		if (st == SYM_EGUARD || ((st == SYM_EDIVZERO || st == SYM_EOVERFLOW) && cs != SYM_EOK)) {
			assert_int_equal(cs, st);
			if (st == SYM_EGUARD)
				assert_int_equal(cf, failed);
		} else {
			assert_int_equal(cs, SYM_EOK);
		}
	}
	free(scratch);
	return st;
}

static void random_point(long long *vals, long long lo, long long hi)
{
	int i;
	for (i = 0; i < NSYMS; i++)
		vals[i] = rng_range(lo, hi);
}

static void random_expressions_agree_with_exact_evaluation(void **state)
{
	int counts[NSTATUS] = {0}, iter, pt;
	(void)state;
	for (iter = 0; iter < 400; iter++) {
		sym_ctx *ctx = sym_ctx_new();
		gen g;
		const sym_expr *o[3];
		size_t no = (size_t)rng_range(1, 3), i;
		sym_program *p;
		gen_init(&g, ctx);
		for (i = 0; i < no; i++)
			o[i] = gen_expr(&g, (int)rng_range(1, 4));
		if (!o[0] || !o[no - 1] || (no > 1 && !o[1])) {
			/* a constant division by zero while building: not a program */
			sym_ctx_free(ctx);
			continue;
		}
		p = compile(ctx, g.s, 0, NULL, no, o);
		for (pt = 0; pt < 25; pt++) {
			long long vals[NSYMS];
			random_point(vals, -9, 9);
			counts[run_and_compare(ctx, p, g.s, 0, NULL, no, o, vals)]++;
		}
		sym_program_free(p);
		sym_ctx_free(ctx);
	}
	print_message("statuses: ok %d overflow %d divzero %d inexact %d\n", counts[SYM_EOK],
	              counts[SYM_EOVERFLOW], counts[SYM_EDIVZERO], counts[SYM_EINEXACT]);
	/* the mix exercises every outcome */
	assert_true(counts[SYM_EOK] > 1000);
	assert_true(counts[SYM_EDIVZERO] > 10);
	assert_true(counts[SYM_EINEXACT] > 10);
}

/* Near the ends of int64 a program may overflow where the exact value
 * fits (an intermediate left int64), but it never gives a wrong value and
 * never hides an error behind a value. */
static void large_values_give_the_exact_result_or_overflow(void **state)
{
	int counts[NSTATUS] = {0}, iter, pt;
	(void)state;
	for (iter = 0; iter < 300; iter++) {
		sym_ctx *ctx = sym_ctx_new();
		gen g;
		const sym_expr *o[1];
		sym_program *p;
		int64_t *scratch;
		gen_init(&g, ctx);
		o[0] = gen_expr(&g, (int)rng_range(1, 4));
		if (!o[0]) {
			sym_ctx_free(ctx);
			continue;
		}
		p = compile(ctx, g.s, 0, NULL, 1, o);
		scratch = malloc((sym_program_scratch_size(p) + 1) * sizeof(*scratch));
		for (pt = 0; pt < 25; pt++) {
			long long vals[NSYMS];
			int64_t in[NSYMS], out[1] = {0}, want[1] = {0};
			size_t i, f;
			sym_status st, wst;
			int bits = (int)rng_range(1, 63);
			for (i = 0; i < NSYMS; i++) {
				in[i] = (int64_t)(rng_next() >> (64 - bits));
				if (rng_range(0, 1))
					in[i] = -in[i] - (bits == 63 ? rng_range(0, 1) : 0);
				vals[i] = in[i];
			}
			st = sym_program_run(p, in, out, scratch, &f);
			wst = exact_expect(ctx, g.s, 0, NULL, 1, o, vals, &f, want);
			counts[st]++;
			if (st == SYM_EOVERFLOW || (st == wst && (st != SYM_EOK || out[0] == want[0])))
				continue;
			fail_msg("%s at s=(%lld,%lld,%lld,%lld): program %s %lld, exact %s %lld",
			         sym_expr_to_str(ctx, o[0]), vals[0], vals[1], vals[2], vals[3],
			         status_name(st), (long long)out[0], status_name(wst), (long long)want[0]);
		}
		free(scratch);
		sym_program_free(p);
		sym_ctx_free(ctx);
	}
	print_message("statuses: ok %d overflow %d divzero %d inexact %d\n", counts[SYM_EOK],
	              counts[SYM_EOVERFLOW], counts[SYM_EDIVZERO], counts[SYM_EINEXACT]);
	assert_true(counts[SYM_EOK] > 100);
	assert_true(counts[SYM_EOVERFLOW] > 100);
}

static void random_guards_fail_in_order_and_stop_at_the_first(void **state)
{
	int counts[NSTATUS] = {0}, iter, pt;
	(void)state;
	for (iter = 0; iter < 300; iter++) {
		sym_ctx *ctx = sym_ctx_new();
		gen g;
		const sym_expr *gd[4], *o[2];
		size_t ng = (size_t)rng_range(1, 4), no = (size_t)rng_range(0, 2), i;
		int bad = 0;
		sym_program *p;
		gen_init(&g, ctx);
		for (i = 0; i < ng; i++)
			bad |= !(gd[i] = gen_pred(&g, (int)rng_range(0, 2)));
		for (i = 0; i < no; i++)
			bad |= !(o[i] = gen_expr(&g, 3));
		if (bad) {
			sym_ctx_free(ctx);
			continue;
		}
		p = compile(ctx, g.s, ng, gd, no, o);
		assert_int_equal(sym_program_num_guards(p), ng);
		assert_int_equal(sym_program_num_outputs(p), no);
		assert_int_equal(sym_program_num_inputs(p), NSYMS);
		for (pt = 0; pt < 25; pt++) {
			long long vals[NSYMS];
			random_point(vals, -6, 6);
			counts[run_and_compare(ctx, p, g.s, ng, gd, no, o, vals)]++;
		}
		sym_program_free(p);
		sym_ctx_free(ctx);
	}
	print_message("statuses: ok %d guard %d overflow %d divzero %d inexact %d\n", counts[SYM_EOK],
	              counts[SYM_EGUARD], counts[SYM_EOVERFLOW], counts[SYM_EDIVZERO], counts[SYM_EINEXACT]);
	assert_true(counts[SYM_EOK] > 100);
	assert_true(counts[SYM_EGUARD] > 100);
}

/* Expression, values of s0..s3, expected status and value. */
typedef struct rvec {
	const char *expr;
	long long v[NSYMS];
	sym_status st;
	long long want;
} rvec;

#define I64MIN INT64_MIN
#define I64MAX INT64_MAX

static void check_rvecs(const rvec *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		sym_ctx *ctx = sym_ctx_new();
		gen g;
		const sym_expr *e;
		sym_program *p;
		int64_t in[NSYMS], out[1] = {0}, scratch[256];
		size_t j, failed;
		sym_status st;
		gen_init(&g, ctx);
		e = P(ctx, v[i].expr);
		p = compile(ctx, g.s, 0, NULL, 1, &e);
		assert_true(sym_program_scratch_size(p) <= 256);
		for (j = 0; j < NSYMS; j++)
			in[j] = v[i].v[j];
		st = sym_program_run(p, in, out, scratch, &failed);
		if (st != v[i].st || (st == SYM_EOK && out[0] != v[i].want))
			fail_msg("%s at (%lld,%lld,%lld,%lld): got %s %lld, expected %s %lld", v[i].expr,
			         v[i].v[0], v[i].v[1], v[i].v[2], v[i].v[3], status_name(st),
			         (long long)out[0], status_name(v[i].st), v[i].want);
		sym_program_free(p);
		sym_ctx_free(ctx);
	}
}

#define CHECK(tab) check_rvecs(tab, sizeof(tab) / sizeof(tab[0]))

static void intermediates_leaving_int64_are_overflow(void **state)
{
	static const rvec v[] = {
	    {"s0*s1*s2", {1LL << 31, 1LL << 31, 1, 0}, SYM_EOK, 1LL << 62},
	    {"s0*s1*s2", {1LL << 31, 1LL << 31, 2, 0}, SYM_EOVERFLOW, 0},
	    {"s0*s1*s2", {-(1LL << 31), 1LL << 31, 2, 0}, SYM_EOK, I64MIN},
	    {"s0*s1*s2", {-(1LL << 31), -(1LL << 31), 2, 0}, SYM_EOVERFLOW, 0},
	    {"s0*s1*s2", {3037000500LL, 3037000500LL, 1, 0}, SYM_EOVERFLOW, 0},
	    {"s0*s1*s2", {3037000499LL, 3037000499LL, 1, 0}, SYM_EOK, 3037000499LL * 3037000499LL},
	    {"s0 + s1", {1LL << 62, 1LL << 62, 0, 0}, SYM_EOVERFLOW, 0},
	    {"s0 + s1", {1LL << 62, (1LL << 62) - 1, 0, 0}, SYM_EOK, I64MAX},
	    {"s0 - s1", {I64MIN, 1, 0, 0}, SYM_EOVERFLOW, 0},
	    {"s0 - s1", {-1, I64MAX, 0, 0}, SYM_EOK, I64MIN},
	    {"s0 + 1", {I64MAX, 0, 0, 0}, SYM_EOVERFLOW, 0},
	    {"-s0", {I64MIN, 0, 0, 0}, SYM_EOVERFLOW, 0},
	    {"-s0", {I64MAX, 0, 0, 0}, SYM_EOK, -I64MAX},
	    {"abs(s0)", {I64MIN, 0, 0, 0}, SYM_EOVERFLOW, 0},
	    {"abs(s0)", {I64MIN + 1, 0, 0, 0}, SYM_EOK, I64MAX},
	    {"s0 // s1", {I64MIN, -1, 0, 0}, SYM_EOVERFLOW, 0},
	    {"s0 // s1", {I64MIN, 1, 0, 0}, SYM_EOK, I64MIN},
	    {"s0 // s1", {I64MIN, 2, 0, 0}, SYM_EOK, I64MIN / 2},
	    {"s0 // s1", {I64MAX, -1, 0, 0}, SYM_EOK, -I64MAX},
	    {"s0**3", {1LL << 21, 0, 0, 0}, SYM_EOVERFLOW, 0},
	    {"s0**3",
	     {(1LL << 21) - 1, 0, 0, 0},
	     SYM_EOK,
	     ((1LL << 21) - 1) * ((1LL << 21) - 1) * ((1LL << 21) - 1)},
	    {"s0**3", {-(1LL << 21), 0, 0, 0}, SYM_EOK, I64MIN},
	    {"4*s0", {1LL << 61, 0, 0, 0}, SYM_EOVERFLOW, 0},
	    {"4*s0", {-(1LL << 61), 0, 0, 0}, SYM_EOK, I64MIN},
	    {"max(s0, s1) + min(s0, s1)", {I64MAX, 1, 0, 0}, SYM_EOVERFLOW, 0},
	    {"s0*s1 - s0*s1 + s2", {1LL << 40, 1LL << 40, 5, 0}, SYM_EOK, 5}, /* cancelled when built */
	    /* exact results that fit but whose lowering passes outside int64 */
	    {"s0 % s1", {I64MIN, -1, 0, 0}, SYM_EOVERFLOW, 0},
	    {"(s0 + s1)//2", {I64MAX, I64MAX, 0, 0}, SYM_EOVERFLOW, 0},
	    {"9223372036854775807", {0, 0, 0, 0}, SYM_EOK, I64MAX},
	    {"-9223372036854775808", {0, 0, 0, 0}, SYM_EOK, I64MIN},
	    {"s0 - 9223372036854775808", {0, 0, 0, 0}, SYM_EOK, I64MIN},
	    {"s0 - 9223372036854775808", {-1, 0, 0, 0}, SYM_EOVERFLOW, 0},
	};
	(void)state;
	CHECK(v);
}

/* A relation of a symbol and a constant (every range check of a model
 * program) compares the two directly: exact for every int64, where the
 * difference would leave it; other relations still compute it. */
static void relations_of_a_symbol_and_a_constant_are_exact_at_the_int64_ends(void **state)
{
	static const rvec v[] = {
	    {"s0 <= -5", {I64MAX, 0, 0, 0}, SYM_EOK, 0},
	    {"s0 <= -5", {I64MIN, 0, 0, 0}, SYM_EOK, 1},
	    {"s0 >= 5", {I64MIN, 0, 0, 0}, SYM_EOK, 0},
	    {"s0 >= 5", {I64MAX, 0, 0, 0}, SYM_EOK, 1},
	    {"s0 < 5", {5, 0, 0, 0}, SYM_EOK, 0},
	    {"s0 > 5", {6, 0, 0, 0}, SYM_EOK, 1},
	    {"s0 == 3", {I64MIN, 0, 0, 0}, SYM_EOK, 0},
	    {"s0 != 3", {I64MIN, 0, 0, 0}, SYM_EOK, 1},
	    {"s0 == -3", {I64MAX, 0, 0, 0}, SYM_EOK, 0},
	    {"s0 <= 4611686018427387904", {I64MIN, 0, 0, 0}, SYM_EOK, 1},
	    {"s0 <= 4611686018427387904", {(1LL << 62) + 1, 0, 0, 0}, SYM_EOK, 0},
	    {"s0 <= 9223372036854775807", {I64MIN, 0, 0, 0}, SYM_EOK, 1},
	    /* a constant whose negation leaves int64, another coefficient:
	     * the difference is computed */
	    {"s0 <= 9223372036854775808", {-1, 0, 0, 0}, SYM_EOVERFLOW, 0},
	    {"2*s0 <= 5", {I64MAX, 0, 0, 0}, SYM_EOK, 0}, /* s0 <= 2 */
	    {"s0*s1 <= 5", {I64MAX, 2, 0, 0}, SYM_EOVERFLOW, 0},
	    {"s0 + s1 <= 5", {I64MAX, I64MAX, 0, 0}, SYM_EOVERFLOW, 0},
	};
	(void)state;
	CHECK(v);
}

static void division_by_a_symbol_bound_to_zero_is_divzero(void **state)
{
	static const rvec v[] = {
	    {"s0 // s1", {7, 0, 0, 0}, SYM_EDIVZERO, 0},
	    {"s0 % s1", {7, 0, 0, 0}, SYM_EDIVZERO, 0},
	    {"s0 / s1", {0, 0, 0, 0}, SYM_EDIVZERO, 0},
	    {"(s0 + 1) // (s1 - 2)", {7, 2, 0, 0}, SYM_EDIVZERO, 0},
	    {"(s0 + 1) // (s1 - 2)", {7, 3, 0, 0}, SYM_EOK, 8},
	    {"(s0 + 1) // (s1 - 2)", {7, 1, 0, 0}, SYM_EOK, -8},
	    {"s0 % (s1*s2)", {7, 3, 0, 0}, SYM_EDIVZERO, 0},
	    {"s0 % (s1*s2)", {-7, 3, 1, 0}, SYM_EOK, 2},
	    {"s0 % (s1*s2)", {7, -3, 1, 0}, SYM_EOK, -2},
	    {"min(s0 // s1, 3)", {7, 0, 0, 0}, SYM_EDIVZERO, 0},
	    {"1/(s0 - s1) * (s0 - s1)", {3, 3, 0, 0}, SYM_EOK, 1}, /* cancelled when built */
	    {"s0 / 2", {3, 0, 0, 0}, SYM_EINEXACT, 0},
	    {"s0 / 2", {-4, 0, 0, 0}, SYM_EOK, -2},
	    {"s0 / s1", {6, -3, 0, 0}, SYM_EOK, -2},
	    {"s0 / s1", {6, 4, 0, 0}, SYM_EINEXACT, 0},
	    {"ceil(s0 / s1)", {7, -2, 0, 0}, SYM_EOK, -3},
	    {"ceil(s0 / s1)", {-7, 2, 0, 0}, SYM_EOK, -3},
	    {"(s0 - 1) // -3", {-7, 0, 0, 0}, SYM_EOK, 2},
	};
	(void)state;
	CHECK(v);
}

static void guards_are_reported_by_index_in_order(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	gen g;
	const sym_expr *gd[3], *o[1];
	sym_program *p;
	int64_t in[NSYMS] = {0, 0, 0, 0}, out[1], scratch[128];
	size_t failed;
	(void)state;
	gen_init(&g, ctx);
	gd[0] = P(ctx, "s0 >= 1");
	gd[1] = P(ctx, "s1 % 8 == 0 && s1 >= 8");
	gd[2] = P(ctx, "s2 // s3 < 100");
	o[0] = P(ctx, "s0*s1 // 8 + s2");
	p = compile(ctx, g.s, 3, gd, 1, o);
	assert_true(sym_program_scratch_size(p) <= 128);
	/* guard 0 fails: later guards are not evaluated, not even s2 // 0 */
	in[0] = 0, in[1] = 3, in[3] = 0;
	assert_int_equal(sym_program_run(p, in, out, scratch, &failed), SYM_EGUARD);
	assert_int_equal(failed, 0);
	in[0] = 2;
	assert_int_equal(sym_program_run(p, in, out, scratch, &failed), SYM_EGUARD);
	assert_int_equal(failed, 1);
	in[1] = 16;
	assert_int_equal(sym_program_run(p, in, out, scratch, &failed), SYM_EDIVZERO);
	assert_int_equal(sym_program_check(p, in, scratch, &failed), SYM_EDIVZERO);
	in[3] = 1, in[2] = 100;
	assert_int_equal(sym_program_check(p, in, scratch, &failed), SYM_EGUARD);
	assert_int_equal(failed, 2);
	in[2] = 99;
	assert_int_equal(sym_program_check(p, in, scratch, NULL), SYM_EOK);
	assert_int_equal(sym_program_run(p, in, out, scratch, NULL), SYM_EOK);
	assert_int_equal(out[0], 2 * 16 / 8 + 99);
	sym_program_free(p);
	sym_ctx_free(ctx);
}

static void checking_the_guards_does_not_compute_the_outputs(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	gen g;
	const sym_expr *gd[1], *o[1];
	sym_program *p;
	int64_t in[NSYMS] = {3, 0, 0, 0}, out[1], scratch[64];
	(void)state;
	gen_init(&g, ctx);
	gd[0] = P(ctx, "s0 >= 1");
	o[0] = P(ctx, "s0 / 2 + s0 // s1");
	p = compile(ctx, g.s, 1, gd, 1, o);
	assert_int_equal(sym_program_check(p, in, scratch, NULL), SYM_EOK);
	assert_int_equal(sym_program_run(p, in, out, scratch, NULL), SYM_EDIVZERO);
	sym_program_free(p);
	sym_ctx_free(ctx);
}

static size_t count_insns(sym_ctx *ctx, const sym_expr *const *syms, size_t ng, const sym_expr *const *g,
                          size_t no, const sym_expr *const *o)
{
	sym_program *p = compile(ctx, syms, ng, g, no, o);
	size_t n = sym_program_num_instructions(p);
	sym_program_free(p);
	return n;
}

static void common_subexpressions_are_computed_once(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	gen g;
	const sym_expr *e, *f, *two[2], *pr[2], *gd[2];
	size_t once, twice, ne, nf, both;
	(void)state;
	gen_init(&g, ctx);
	e = P(ctx, "(s0*s1 + 3)//(s2 + 1) + max(s0*s1, s3 - 1)*s2");
	two[0] = e, two[1] = e;
	once = count_insns(ctx, g.s, 0, NULL, 1, two);
	twice = count_insns(ctx, g.s, 0, NULL, 2, two);
	assert_true(once > 0);
	assert_int_equal(once, twice);
	/* the same expression built twice from text is the same node */
	two[1] = P(ctx, "s2*max(s1*s0, -1 + s3) + (3 + s1*s0)//(1 + s2)");
	assert_ptr_equal(two[1], e);
	assert_int_equal(count_insns(ctx, g.s, 0, NULL, 2, two), once);
	/* distinct expressions share their common parts */
	f = P(ctx, "s0*s1*s2 + (s0*s1 + 3)//(s2 + 1)");
	ne = once;
	nf = count_insns(ctx, g.s, 0, NULL, 1, &f);
	pr[0] = e, pr[1] = f;
	both = count_insns(ctx, g.s, 0, NULL, 2, pr);
	assert_true(both < ne + nf);
	/* a guard and an output share too */
	gd[0] = P(ctx, "(s0*s1 + 3)//(s2 + 1) >= 2");
	assert_true(count_insns(ctx, g.s, 1, gd, 1, &e) <= once + 3);
	/* the same guard twice costs one GUARD more, nothing else */
	gd[1] = gd[0];
	assert_int_equal(count_insns(ctx, g.s, 2, gd, 0, NULL), count_insns(ctx, g.s, 1, gd, 0, NULL) + 1);
	sym_ctx_free(ctx);
}

static void compile_errors_name_the_problem(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	gen g;
	const sym_expr *e;
	(void)state;
	gen_init(&g, ctx);
	e = P(ctx, "s0 + batch*2");
	assert_null(sym_program_compile(ctx, NSYMS, g.s, 0, NULL, 1, &e));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EUNBOUND);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "'batch'"));
	sym_ctx_clear_error(ctx);
	e = P(ctx, "s0 >= batch");
	assert_null(sym_program_compile(ctx, NSYMS, g.s, 1, &e, 0, NULL));
	assert_non_null(strstr(sym_ctx_last_message(ctx), "'batch'"));
	sym_ctx_clear_error(ctx);
	e = P(ctx, "s0 + 2**70");
	assert_null(sym_program_compile(ctx, NSYMS, g.s, 0, NULL, 1, &e));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EOVERFLOW);
	assert_non_null(strstr(sym_ctx_last_message(ctx), "1180591620717411303424"));
	sym_ctx_clear_error(ctx);
	e = P(ctx, "s0 / 2**70");
	assert_null(sym_program_compile(ctx, NSYMS, g.s, 0, NULL, 1, &e));
	sym_ctx_clear_error(ctx);
	e = P(ctx, "s0 + 9223372036854775808");
	assert_null(sym_program_compile(ctx, NSYMS, g.s, 0, NULL, 1, &e));
	sym_ctx_clear_error(ctx);
	/* a number is not a guard */
	e = P(ctx, "s0 + 1");
	assert_null(sym_program_compile(ctx, NSYMS, g.s, 1, &e, 0, NULL));
	sym_ctx_clear_error(ctx);
	/* inputs must be symbols */
	{
		const sym_expr *bad[2] = {g.s[0], e};
		assert_null(sym_program_compile(ctx, 2, bad, 0, NULL, 1, &e));
		sym_ctx_clear_error(ctx);
	}
	/* an error already recorded gives NULL without a new one */
	sym_expr_div(ctx, g.s[0], k(&g, 0));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EDIVZERO);
	assert_null(sym_program_compile(ctx, NSYMS, g.s, 0, NULL, 1, &g.s[0]));
	assert_int_equal(sym_ctx_last_error(ctx), SYM_EDIVZERO);
	sym_ctx_free(ctx);
}

static void programs_without_inputs_or_outputs_run(void **state)
{
	sym_ctx *ctx = sym_ctx_new();
	const sym_expr *o[3], *gd[1];
	sym_program *p;
	int64_t out[3], scratch[16];
	size_t failed;
	(void)state;
	o[0] = P(ctx, "7 // 2");
	o[1] = P(ctx, "-7 % 3");
	o[2] = P(ctx, "5");
	p = sym_program_compile(ctx, 0, NULL, 0, NULL, 3, o);
	assert_non_null(p);
	assert_true(sym_program_scratch_size(p) <= 16);
	assert_int_equal(sym_program_run(p, NULL, out, scratch, NULL), SYM_EOK);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 2);
	assert_int_equal(out[2], 5);
	sym_program_free(p);
	o[0] = P(ctx, "1/3");
	p = sym_program_compile(ctx, 0, NULL, 0, NULL, 1, o);
	assert_int_equal(sym_program_run(p, NULL, out, scratch, NULL), SYM_EINEXACT);
	sym_program_free(p);
	gd[0] = sym_expr_bool(ctx, 0);
	p = sym_program_compile(ctx, 0, NULL, 1, gd, 0, NULL);
	assert_int_equal(sym_program_check(p, NULL, scratch, &failed), SYM_EGUARD);
	assert_int_equal(failed, 0);
	sym_program_free(p);
	p = sym_program_compile(ctx, 0, NULL, 0, NULL, 0, NULL);
	assert_int_equal(sym_program_run(p, NULL, NULL, NULL, NULL), SYM_EOK);
	assert_int_equal(sym_program_num_instructions(p), 0);
	sym_program_free(p);
	sym_ctx_free(ctx);
}

/* Every opcode, written by hand (the compiler does not emit MOD), on
 * operands around the ends of int64. */
static void handwritten_code_runs_every_opcode(void **state)
{
	static const struct {
		int op;
		int64_t a, b, c;
		sym_status st;
		int64_t want;
	} v[] = {
	    {SYM_OP_ADD, INT64_MAX, 1, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_ADD, INT64_MIN, -1, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_ADD, INT64_MIN, INT64_MAX, 0, SYM_EOK, -1},
	    {SYM_OP_SUB, INT64_MIN, 1, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_SUB, 0, INT64_MIN, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_SUB, -1, INT64_MAX, 0, SYM_EOK, INT64_MIN},
	    {SYM_OP_MUL, INT64_MIN, -1, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_MUL, 1LL << 32, 1LL << 31, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_MUL, -(1LL << 32), 1LL << 31, 0, SYM_EOK, INT64_MIN},
	    {SYM_OP_NEG, INT64_MIN, 0, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_NEG, INT64_MAX, 0, 0, SYM_EOK, -INT64_MAX},
	    {SYM_OP_ABS, INT64_MIN, 0, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_ABS, -5, 0, 0, SYM_EOK, 5},
	    {SYM_OP_FLOORDIV, -7, 2, 0, SYM_EOK, -4},
	    {SYM_OP_FLOORDIV, 7, -2, 0, SYM_EOK, -4},
	    {SYM_OP_FLOORDIV, -7, -2, 0, SYM_EOK, 3},
	    {SYM_OP_FLOORDIV, 7, 0, 0, SYM_EDIVZERO, 0},
	    {SYM_OP_FLOORDIV, INT64_MIN, -1, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_FLOORDIV, INT64_MIN, -2, 0, SYM_EOK, 1LL << 62},
	    {SYM_OP_MOD, -7, 3, 0, SYM_EOK, 2},
	    {SYM_OP_MOD, 7, -3, 0, SYM_EOK, -2},
	    {SYM_OP_MOD, -7, -3, 0, SYM_EOK, -1},
	    {SYM_OP_MOD, 7, 0, 0, SYM_EDIVZERO, 0},
	    {SYM_OP_MOD, INT64_MIN, -1, 0, SYM_EOK, 0},
	    {SYM_OP_MOD, INT64_MIN, INT64_MAX, 0, SYM_EOK, INT64_MAX - 1},
	    {SYM_OP_EXACTDIV, 12, -4, 0, SYM_EOK, -3},
	    {SYM_OP_EXACTDIV, 13, 4, 0, SYM_EINEXACT, 0},
	    {SYM_OP_EXACTDIV, 13, 0, 0, SYM_EDIVZERO, 0},
	    {SYM_OP_EXACTDIV, INT64_MIN, -1, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_MIN, 3, -4, 0, SYM_EOK, -4},
	    {SYM_OP_MAX, 3, -4, 0, SYM_EOK, 3},
	    {SYM_OP_EQ, 3, 3, 0, SYM_EOK, 1},
	    {SYM_OP_NE, 3, 3, 0, SYM_EOK, 0},
	    {SYM_OP_LE, 3, 3, 0, SYM_EOK, 1},
	    {SYM_OP_LT, 3, 3, 0, SYM_EOK, 0},
	    {SYM_OP_AND, 2, -1, 0, SYM_EOK, 1},
	    {SYM_OP_AND, 2, 0, 0, SYM_EOK, 0},
	    {SYM_OP_OR, 0, 0, 0, SYM_EOK, 0},
	    {SYM_OP_OR, 0, 5, 0, SYM_EOK, 1},
	    {SYM_OP_NEGIF, INT64_MIN, -1, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_NEGIF, INT64_MIN, 0, 0, SYM_EOK, INT64_MIN},
	    {SYM_OP_NEGIF, 5, -3, 0, SYM_EOK, -5},
	    {SYM_OP_DENOM, 0, 0, 0, SYM_EDIVZERO, 0},
	    {SYM_OP_DENOM, INT64_MIN, 0, 0, SYM_EOVERFLOW, 0},
	    {SYM_OP_DENOM, -9, 0, 0, SYM_EOK, 9},
	    {SYM_OP_SEL, 1, 7, 8, SYM_EOK, 7},
	    {SYM_OP_SEL, 0, 7, 8, SYM_EOK, 8},
	    {SYM_OP_GUARD, 0, 0, 0, SYM_EGUARD, 0},
	    {SYM_OP_GUARD, 2, 0, 0, SYM_EOK, 0},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sym_program *p = handwritten(v[i].op);
		int64_t in[3] = {v[i].a, v[i].b, v[i].c}, out[1] = {0}, scratch[8];
		size_t failed = 9;
		sym_status st;
		if (!p)
			fail_msg("case %zu: the handwritten program is refused", i);
		assert_true(sym_program_scratch_size(p) <= 8);
		st = sym_program_run(p, in, out, scratch, &failed);
		if (st != v[i].st || (st == SYM_EOK && v[i].op != SYM_OP_GUARD && out[0] != v[i].want))
			fail_msg("case %zu (op %d): got %s %lld, expected %s %lld", i, v[i].op,
			         status_name(st), (long long)out[0], status_name(v[i].st),
			         (long long)v[i].want);
		if (st == SYM_EGUARD)
			assert_int_equal(failed, 0);
		sym_program_free(p);
	}
}

/* A random program with guards and outputs for the serialisation tests. */
static sym_program *random_program(sym_ctx *ctx, gen *g, const sym_expr **gd, size_t *ng, const sym_expr **o,
                                   size_t *no)
{
	size_t i;
	for (;;) {
		int bad = 0;
		*ng = (size_t)rng_range(0, 3);
		*no = (size_t)rng_range(1, 3);
		for (i = 0; i < *ng; i++)
			bad |= !(gd[i] = gen_pred(g, 1));
		for (i = 0; i < *no; i++)
			bad |= !(o[i] = gen_expr(g, 3));
		if (!bad)
			return compile(ctx, g->s, *ng, gd, *no, o);
		sym_ctx_clear_error(ctx);
	}
}

static void serialized_programs_give_identical_results(void **state)
{
	int iter, pt;
	(void)state;
	for (iter = 0; iter < 100; iter++) {
		sym_ctx *ctx = sym_ctx_new();
		gen g;
		const sym_expr *gd[3], *o[3];
		size_t ng, no, len, len2;
		sym_program *p, *q;
		unsigned char *b, *b2;
		int64_t *s1, *s2;
		gen_init(&g, ctx);
		p = random_program(ctx, &g, gd, &ng, o, &no);
		b = sym_program_serialize(p, &len);
		assert_non_null(b);
		q = sym_program_deserialize(b, len);
		assert_non_null(q);
		assert_int_equal(sym_program_num_instructions(q), sym_program_num_instructions(p));
		assert_int_equal(sym_program_scratch_size(q), sym_program_scratch_size(p));
		assert_int_equal(sym_program_num_guards(q), ng);
		assert_int_equal(sym_program_num_outputs(q), no);
		b2 = sym_program_serialize(q, &len2);
		assert_int_equal(len, len2);
		assert_memory_equal(b, b2, len);
		s1 = malloc((sym_program_scratch_size(p) + 1) * sizeof(*s1));
		s2 = malloc((sym_program_scratch_size(p) + 1) * sizeof(*s2));
		for (pt = 0; pt < 20; pt++) {
			int64_t in[NSYMS], o1[3] = {0, 0, 0}, o2[3] = {0, 0, 0};
			size_t f1 = 0, f2 = 0, i;
			sym_status r1, r2;
			for (i = 0; i < NSYMS; i++)
				in[i] = rng_range(-6, 6);
			r1 = sym_program_run(p, in, o1, s1, &f1);
			r2 = sym_program_run(q, in, o2, s2, &f2);
			assert_int_equal(r1, r2);
			if (r1 == SYM_EGUARD)
				assert_int_equal(f1, f2);
			if (r1 == SYM_EOK)
				assert_memory_equal(o1, o2, sizeof(o1));
		}
		free(s1);
		free(s2);
		free(b);
		free(b2);
		sym_program_free(p);
		sym_program_free(q);
		sym_ctx_free(ctx);
	}
}

/* Runs a program that deserialised from damaged bytes: it must run
 * without a crash (ASan watches) on a few inputs. */
static void run_survivor(sym_program *q)
{
	size_t ni = sym_program_num_inputs(q), no = sym_program_num_outputs(q), i, failed;
	size_t ns = sym_program_scratch_size(q);
	int64_t *in = calloc(ni + 1, sizeof(*in)), *out = calloc(no + 1, sizeof(*out));
	int64_t *scratch = calloc(ns + 1, sizeof(*scratch));
	int r;
	assert_true(ni <= 1000 && ns <= 100000 && no <= 1000);
	assert_non_null(in);
	assert_non_null(out);
	assert_non_null(scratch);
	for (r = 0; r < 3; r++) {
		sym_status st;
		for (i = 0; i < ni; i++)
			in[i] = r == 2 ? (int64_t)rng_next() : rng_range(-5, 5);
		st = sym_program_run(q, in, out, scratch, &failed);
		assert_true(st >= SYM_EOK && st <= SYM_EINEXACT);
		if (st == SYM_EGUARD)
			assert_true(failed < sym_program_num_guards(q));
		st = sym_program_check(q, in, scratch, &failed);
		assert_true(st >= SYM_EOK && st <= SYM_EINEXACT);
	}
	free(in);
	free(out);
	free(scratch);
}

static void damaged_bytes_give_null_or_a_safe_program(void **state)
{
	int iter, flips, survivors = 0, rejected = 0;
	(void)state;
	for (iter = 0; iter < 40; iter++) {
		sym_ctx *ctx = sym_ctx_new();
		gen g;
		const sym_expr *gd[3], *o[3];
		size_t ng, no, len, cut;
		sym_program *p, *q;
		unsigned char *b, *d;
		gen_init(&g, ctx);
		p = random_program(ctx, &g, gd, &ng, o, &no);
		b = sym_program_serialize(p, &len);
		assert_non_null(b);
		/* every truncation is refused, and so is a trailing byte */
		for (cut = 0; cut < len; cut++) {
			d = malloc(cut + 1);
			memcpy(d, b, cut);
			assert_null(sym_program_deserialize(d, cut));
			free(d);
		}
		d = malloc(len + 1);
		memcpy(d, b, len);
		d[len] = 0;
		assert_null(sym_program_deserialize(d, len + 1));
		free(d);
		assert_null(sym_program_deserialize(NULL, 0));
		/* random flips: one to four bytes */
		for (flips = 0; flips < 200; flips++) {
			int nf = (int)rng_range(1, 4), f;
			d = malloc(len);
			memcpy(d, b, len);
			for (f = 0; f < nf; f++) {
				size_t at = (size_t)rng_range(0, (long long)len - 1);
				unsigned char x = (unsigned char)rng_range(1, 255);
				if (rng_range(0, 1))
					x = (unsigned char)(1u << rng_range(0, 7));
				d[at] ^= x;
			}
			q = sym_program_deserialize(d, len);
			if (q) {
				survivors++;
				run_survivor(q);
				sym_program_free(q);
			} else {
				rejected++;
			}
			free(d);
		}
		free(b);
		sym_program_free(p);
		sym_ctx_free(ctx);
	}
	print_message("damaged programs: %d rejected, %d accepted and run\n", rejected, survivors);
	assert_true(rejected > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(random_expressions_agree_with_exact_evaluation),
	    cmocka_unit_test(large_values_give_the_exact_result_or_overflow),
	    cmocka_unit_test(random_guards_fail_in_order_and_stop_at_the_first),
	    cmocka_unit_test(intermediates_leaving_int64_are_overflow),
	    cmocka_unit_test(relations_of_a_symbol_and_a_constant_are_exact_at_the_int64_ends),
	    cmocka_unit_test(division_by_a_symbol_bound_to_zero_is_divzero),
	    cmocka_unit_test(guards_are_reported_by_index_in_order),
	    cmocka_unit_test(checking_the_guards_does_not_compute_the_outputs),
	    cmocka_unit_test(common_subexpressions_are_computed_once),
	    cmocka_unit_test(compile_errors_name_the_problem),
	    cmocka_unit_test(programs_without_inputs_or_outputs_run),
	    cmocka_unit_test(handwritten_code_runs_every_opcode),
	    cmocka_unit_test(serialized_programs_give_identical_results),
	    cmocka_unit_test(damaged_bytes_give_null_or_a_safe_program),
	};
	uint64_t seed = seed_from_env();
	printf("SYM_TEST_SEED=%llu\n", (unsigned long long)seed);
	rng_seed(seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
