/* The contextual simplifier and the decisions: table vectors in the
 * expression syntax.  A simplify vector is {assumptions, --dims, input,
 * canonical output}; every one is also checked for a printed form that parses
 * back to the same node, for idempotence, and for the same value as the input
 * at random admissible points.
 *
 * Each rewrite has a vector where it fires and one where its side condition
 * fails.  Published cases of other simplifiers (TVM's canonical and rewrite
 * simplifiers, MLIR's affine simplification) are restated in our syntax where
 * their division semantics agree with ours (floor division and floor modulo);
 * the cases we do not yet simplify as far sit in a table of known gaps that
 * records the peer result and asserts equivalence only.
 *
 * SYM_TEST_SEED picks the seed of the random points (default 1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "symshape/symshape.h"

#define MAX_ASSUME 8
#define MAX_SYMS 16
#define POINTS 200
#define TRIES 20000

typedef struct svec {
	const char *as[MAX_ASSUME]; /* NULL-terminated */
	int dims;
	const char *in, *out;
} svec;

/* A published case: our canonical output, and the peer's result in our
 * syntax, which must simplify to the same node. */
typedef struct pvec {
	const char *as[MAX_ASSUME];
	int dims;
	const char *in, *out, *peer;
} pvec;

/* A case we leave less simplified than the peer does: the peer's result must
 * have the same value; decided says that sym_equal proves it. */
typedef struct gvec {
	const char *as[MAX_ASSUME];
	int dims;
	const char *in, *peer;
	int decided;
} gvec;

typedef struct dvec {
	const char *as[MAX_ASSUME];
	int dims;
	const char *a, *b; /* b is NULL for prove */
	sym_truth truth;
} dvec;

#define NONE                                                                                                 \
	{                                                                                                    \
		NULL                                                                                         \
	}

/* ---- seeded random points ---------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static long long rnd_range(long long lo, long long hi)
{
	return lo + (long long)(rnd() % (uint64_t)(hi - lo + 1));
}

static uint64_t seed_from_env(void)
{
	const char *s = getenv("SYM_TEST_SEED");
	return s && *s ? strtoull(s, NULL, 10) : 1;
}

static int setup_seed(void **state)
{
	(void)state;
	rng_state = seed_from_env();
	return 0;
}

/* Small values most of the time (where remainders and divisor ranges bite),
 * sometimes larger ones. */
static long long rnd_value(int dims)
{
	long long lo = dims ? 1 : -12;
	switch (rnd() % 4) {
	case 0:
		return rnd_range(dims ? 1 : -1100, 11000);
	case 1:
		return rnd_range(lo, 40);
	default:
		return rnd_range(lo, 12);
	}
}

/* ---- helpers ----------------------------------------------------------- */

static const sym_expr *parse(sym_ctx *ctx, const char *text)
{
	const sym_expr *e = sym_expr_from_str(ctx, text);
	if (!e)
		fail_msg("parse '%s': %s", text, sym_ctx_last_message(ctx));
	return e;
}

static sym_facts *facts_for(sym_ctx *ctx, const char *const *as, int dims)
{
	sym_facts *f = sym_facts_new(ctx);
	size_t i;
	assert_non_null(f);
	if (dims)
		assert_int_equal(sym_facts_set_default_min(f, 1), SYM_EOK);
	for (i = 0; i < MAX_ASSUME && as[i]; i++) {
		sym_status st = sym_facts_assume(f, parse(ctx, as[i]));
		if (st != SYM_EOK)
			fail_msg("assume '%s': %s", as[i], sym_ctx_last_message(ctx));
	}
	return f;
}

static char *text_of(sym_ctx *ctx, const sym_expr *e)
{
	char *s = sym_expr_to_str(ctx, e);
	if (!s)
		fail_msg("printing failed: %s", sym_ctx_last_message(ctx));
	return s;
}

static void add_syms(sym_ctx *ctx, const sym_expr *e, const sym_expr **all, size_t *n)
{
	const sym_expr *s[MAX_SYMS];
	size_t k = sym_expr_symbols(ctx, e, s, MAX_SYMS), i, j;
	assert_true(k <= MAX_SYMS);
	for (i = 0; i < k; i++) {
		for (j = 0; j < *n && all[j] != s[i]; j++)
			;
		if (j == *n) {
			assert_true(*n < MAX_SYMS);
			all[(*n)++] = s[i];
		}
	}
}

/* Evaluates e at the point; NULL (error cleared) when it is undefined
 * there, such as a division by zero. */
static const sym_expr *value_at(sym_ctx *ctx, const sym_expr *e, size_t n, const sym_expr **syms,
                                const long long *vals)
{
	const sym_expr *r = sym_expr_eval_si(ctx, e, n, syms, vals);
	if (!r)
		sym_ctx_clear_error(ctx);
	return r;
}

static int holds_at(sym_ctx *ctx, const sym_expr *p, size_t n, const sym_expr **syms, const long long *vals)
{
	return value_at(ctx, p, n, syms, vals) == sym_expr_bool(ctx, 1);
}

/* Checks that a and b have the same value at random points where every
 * assumption holds (and every symbol is >= 1 under --dims). */
static void check_same_value(sym_ctx *ctx, const char *const *as, int dims, const sym_expr *a,
                             const sym_expr *b, const char *what)
{
	const sym_expr *syms[MAX_SYMS], *pred[MAX_ASSUME];
	long long vals[MAX_SYMS];
	size_t n = 0, np = 0, i;
	int tries, good = 0;
	add_syms(ctx, a, syms, &n);
	add_syms(ctx, b, syms, &n);
	for (i = 0; i < MAX_ASSUME && as[i]; i++) {
		pred[np] = parse(ctx, as[i]);
		add_syms(ctx, pred[np++], syms, &n);
	}
	for (tries = 0; tries < TRIES && good < POINTS; tries++) {
		const sym_expr *x, *y;
		int ok = 1;
		for (i = 0; i < n; i++)
			vals[i] = rnd_value(dims);
		for (i = 0; i < np && ok; i++)
			ok = holds_at(ctx, pred[i], n, syms, vals);
		if (!ok)
			continue;
		x = value_at(ctx, a, n, syms, vals);
		if (!x)
			continue;
		good++;
		y = value_at(ctx, b, n, syms, vals);
		if (x != y) {
			char buf[512];
			size_t off = 0;
			for (i = 0; i < n && off < sizeof(buf); i++)
				off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %s=%lld",
				                        sym_expr_symbol_name(syms[i]), vals[i]);
			fail_msg("%s: values differ at%s (seed %llu)", what, buf,
			         (unsigned long long)seed_from_env());
		}
	}
	if (!good)
		fail_msg("%s: no admissible point found", what);
}

/* Simplifies in under the vector's facts, checks the canonical text, the
 * round trip, idempotence and the value; returns the result. */
static const sym_expr *check_one(sym_ctx *ctx, sym_facts *f, const char *const *as, int dims, const char *in,
                                 const char *out)
{
	const sym_expr *e = parse(ctx, in), *r, *again;
	char *s;
	r = sym_simplify(ctx, f, e);
	if (!r)
		fail_msg("simplify '%s': %s", in, sym_ctx_last_message(ctx));
	s = text_of(ctx, r);
	if (strcmp(s, out))
		fail_msg("%s: expected '%s', got '%s'", in, out, s);
	if (sym_expr_from_str(ctx, s) != r)
		fail_msg("%s: the printed form '%s' does not parse back to the same node", in, s);
	again = sym_simplify(ctx, f, r);
	if (again != r) {
		char *t = text_of(ctx, again);
		fail_msg("%s: simplifying '%s' again gives '%s'", in, s, t);
	}
	sym_str_free(ctx, s);
	check_same_value(ctx, as, dims, e, r, in);
	return r;
}

static void check_simplify(const svec *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f;
		assert_non_null(ctx);
		f = facts_for(ctx, v[i].as, v[i].dims);
		check_one(ctx, f, v[i].as, v[i].dims, v[i].in, v[i].out);
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
}

static void check_peer(const pvec *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f;
		const sym_expr *r, *p;
		assert_non_null(ctx);
		f = facts_for(ctx, v[i].as, v[i].dims);
		r = check_one(ctx, f, v[i].as, v[i].dims, v[i].in, v[i].out);
		p = sym_simplify(ctx, f, parse(ctx, v[i].peer));
		if (p != r) {
			char *t = text_of(ctx, p);
			fail_msg("%s: the peer result '%s' simplifies to '%s', not to '%s'", v[i].in,
			         v[i].peer, t, v[i].out);
		}
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
}

static const char *truth_name(sym_truth t)
{
	switch (t) {
	case SYM_TRUE:
		return "true";
	case SYM_FALSE:
		return "false";
	case SYM_UNKNOWN:
		return "unknown";
	default:
		return "error";
	}
}

/* Checks a witness of sym_equal by exact evaluation: every assumption holds
 * there and a and b differ. */
static void check_witness(sym_ctx *ctx, const dvec *v, const sym_expr *a, const sym_expr *b,
                          const sym_witness *w)
{
	const sym_expr *syms[MAX_SYMS];
	long long vals[MAX_SYMS];
	size_t i;
	assert_true(w->n > 0 && w->n <= MAX_SYMS);
	for (i = 0; i < w->n; i++) {
		syms[i] = w->syms[i];
		if (sym_expr_get_si(w->vals[i], &vals[i]) != 1)
			fail_msg("%s vs %s: a witness value is not a small integer", v->a, v->b);
		if (v->dims && vals[i] < 1)
			fail_msg("%s vs %s: witness %s=%lld is below the --dims minimum", v->a, v->b,
			         sym_expr_symbol_name(syms[i]), vals[i]);
	}
	for (i = 0; i < MAX_ASSUME && v->as[i]; i++)
		if (!holds_at(ctx, parse(ctx, v->as[i]), w->n, syms, vals))
			fail_msg("%s vs %s: the witness breaks the assumption '%s'", v->a, v->b, v->as[i]);
	{
		const sym_expr *x = value_at(ctx, a, w->n, syms, vals),
		               *y = value_at(ctx, b, w->n, syms, vals);
		if (!x || !y || x == y)
			fail_msg("%s vs %s: the two sides do not differ at the witness", v->a, v->b);
	}
}

static void check_decisions(const dvec *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f;
		const sym_expr *a;
		sym_truth t;
		assert_non_null(ctx);
		f = facts_for(ctx, v[i].as, v[i].dims);
		a = parse(ctx, v[i].a);
		if (!v[i].b) {
			t = sym_prove(ctx, f, a);
			if (t != v[i].truth)
				fail_msg("prove %s: expected %s, got %s", v[i].a, truth_name(v[i].truth),
				         truth_name(t));
		} else {
			const sym_expr *b = parse(ctx, v[i].b);
			sym_witness w;
			t = sym_equal(ctx, f, a, b, &w);
			if (t != v[i].truth)
				fail_msg("equal %s, %s: expected %s, got %s", v[i].a, v[i].b,
				         truth_name(v[i].truth), truth_name(t));
			if (t == SYM_FALSE)
				check_witness(ctx, &v[i], a, b, &w);
			if (t == SYM_TRUE)
				check_same_value(ctx, v[i].as, v[i].dims, a, b, v[i].a);
			sym_witness_clear(ctx, &w);
		}
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
}

#define CHECK(fn, tab) fn(tab, sizeof(tab) / sizeof(tab[0]))

/* ---- rewrites, each with its side condition both ways ------------------- */

static void modulo_and_division_vanish_only_inside_the_divisor_range(void **state)
{
	static const svec v[] = {
	    {{"s0 >= 0", "s0 < 8"}, 0, "s0 % 8", "s0"},
	    {{"s0 >= 0", "s0 < 9"}, 0, "s0 % 8", "s0 % 8"},
	    {{"s0 >= -1", "s0 < 8"}, 0, "s0 % 8", "s0 % 8"},
	    {{"s0 >= 0", "s0 < 8"}, 0, "s0 // 8", "0"},
	    {{"s0 >= 0", "s0 < 9"}, 0, "s0 // 8", "s0//8"},
	    {{"s0 >= -8", "s0 < 0"}, 0, "s0 // 8", "-1"},
	    {{"s0 >= -8", "s0 < 0"}, 0, "s0 % 8", "s0 + 8"},
	    {{"s0 >= -9", "s0 < 0"}, 0, "s0 // 8", "s0//8"},
	    {NONE, 1, "s0 % 8", "s0 % 8"},
	    {{"s0 <= 7"}, 1, "s0 % 8", "s0"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void floor_of_an_argument_within_one_step_is_a_constant(void **state)
{
	static const svec v[] = {
	    {{"x >= 1", "x <= 4"}, 0, "(x + 3)//4", "1"},
	    {{"x >= 1", "x <= 5"}, 0, "(x + 3)//4", "(x + 3)//4"},
	    {{"s0 <= 8"}, 1, "(s0 + 7)//8", "1"},
	    {NONE, 1, "(s0 + 7)//8", "(s0 + 7)//8"},
	    {{"x >= 0", "x <= 5"}, 0, "(x % 8) // 6", "0"},
	    {{"x >= 0", "x <= 6"}, 0, "(x % 8) // 6", "x//6"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void residue_facts_fix_remainders_and_make_quotients_exact(void **state)
{
	static const svec v[] = {
	    {{"s1 % 8 == 0"}, 0, "s1 % 8", "0"},
	    {{"s1 % 8 == 0"}, 0, "s1 // 8", "s1/8"},
	    {{"s1 % 8 == 0"}, 0, "(s1 + 3)//8", "s1/8"},
	    {{"s1 % 8 == 0"}, 0, "(s1 + 8)//8", "s1/8 + 1"},
	    {{"s1 % 16 == 0"}, 0, "s1 % 8", "0"},
	    {{"s1 % 4 == 0"}, 0, "s1 % 8", "s1 % 8"},
	    {{"s1 % 8 == 0"}, 0, "s1 % 16", "s1 % 16"},
	    {{"x % 4 == 3"}, 0, "x % 4", "3"},
	    {{"x % 4 == 3"}, 0, "x % 2", "1"},
	    {{"x % 4 == 3"}, 0, "(x + 1) % 4", "0"},
	    {{"x % 4 == 3"}, 0, "x % 8", "x % 8"},
	    {{"x % 2 == 1", "x % 3 == 2"}, 0, "x % 6", "5"},
	    {NONE, 0, "s1 % 8", "s1 % 8"},
	    {NONE, 0, "(x*y) % 2", "x*y % 2"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

/* x == r (mod m) and y == r2 (mod m2) give x*y == r*r2 modulo
 * gcd(r*m2, r2*m, m*m2); one factor divisible by m makes the product so. */
static void residue_facts_carry_through_products(void **state)
{
	static const svec v[] = {
	    {{"s % 2 == 0"}, 0, "(b*s + 1)//2", "b*s/2"},
	    {{"s % 8 == 0"}, 0, "(b*c*s) % 4", "0"},
	    {{"x % 2 == 1", "y % 2 == 1"}, 0, "(x*y) % 2", "1"},
	    {{"x % 4 == 3", "y % 6 == 5"}, 0, "(x*y) % 2", "1"},
	    {{"x % 3 == 2", "y % 3 == 2"}, 0, "(x*y + 2) % 3", "0"},
	    {{"x % 4 == 3"}, 0, "(x*x) % 4", "1"},
	    {{"x % 4 == 2"}, 0, "(x**3) % 8", "0"},
	    {{"x % 4 == 3"}, 0, "(x*x) % 8", "x**2 % 8"},
	    {{"x % 2 == 1"}, 0, "(x*y) % 2", "x*y % 2"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

/* Sizes read as a person writes them: a floor under a negative factor in
 * its other form (a leading minus in front of a product costs more than
 * its tokens), the constant apart from a factored rest, no factor with a
 * fractional coefficient, no second sign after a binary minus. */
static void sizes_print_with_a_positive_leading_term(void **state)
{
	static const svec v[] = {
	    {NONE, 0, "32*ceil(K*N*(H-2)*(W-2)/16)", "32*((K*N*(H - 2)*(W - 2) + 15)//16)"},
	    {NONE, 0, "32*ceil(n*(L-1)/8)", "32*((L*n - n + 7)//8)"},
	    {NONE, 0, "3552*b*s - 4*floor(-3*b*s**2/2)", "4*((3*b*s**2 + 1)//2 + 888*b*s)"},
	    {NONE, 0, "min(3, s) + max(0, s - 2) + 1 - (-s)//2", "(s + 3)//2 + min(3, s) + max(0, s - 2)"},
	    {NONE, 0, "h*n*w + 6*h*n + 4*n*w + 7", "n*(h*w + 6*h + 4*w) + 7"},
	    {NONE, 0, "3*n*w*(h//2) + 2*n*(h//2) + 6*n*w + 4*n + 7", "n*(h//2 + 2)*(3*w + 2) + 7"},
	    {NONE, 0, "-x - y", "-x - y"},
	    {NONE, 0, "-x//2", "-x//2"},
	    {NONE, 0, "-(x//2)", "-(x//2)"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

/* Simplified forms whose printed text once parsed to another node: a floor
 * of a sum over a reciprocal the constructors left uncancelled
 * (floor(xn*F/S - 1/S) with S == xn*F - 1, whose P//Q spelling (S)//(S)
 * parses to 1), and a modulo folded from a floor over a sum that holds
 * 992/(n - 1 % xn).  Every printed form parses back to its node. */
static void printed_forms_of_simplified_expressions_parse_back(void **state)
{
	static const struct {
		const char *fact, *in;
	} v[] = {
	    {"1 % xn % 4 == y", "1 % xn % y"},
	    {"1 % xn % 4 == n - y", "992 % y % n % 4 == p"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const char *as[] = {v[i].fact, NULL};
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f = facts_for(ctx, as, 1);
		const sym_expr *r = sym_simplify(ctx, f, parse(ctx, v[i].in));
		char *t;
		assert_non_null(r);
		t = sym_expr_to_str(ctx, r);
		assert_non_null(t);
		if (sym_expr_from_str(ctx, t) != r)
			fail_msg("'%s' does not parse back to its node", t);
		sym_str_free(ctx, t);
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
}

static void nested_floor_by_symbolic_divisors_merges_only_when_both_are_positive(void **state)
{
	static const svec v[] = {
	    {{"a >= 1", "b >= 1"}, 0, "(x//a)//b", "x//(a*b)"},
	    {NONE, 1, "(x//a)//b", "x//(a*b)"},
	    {{"a >= 1", "b >= 0"}, 0, "(x//a)//b", "x//a//b"},
	    {{"a >= 1"}, 0, "(x//a)//b", "x//a//b"},
	    {NONE, 0, "(x//a)//b", "x//a//b"},
	    {NONE, 1, "(x//2)//a", "x//(2*a)"},
	    {NONE, 0, "(x//2)//a", "x//2//a"},
	    {NONE, 1, "(x//a)//3", "x//(3*a)"},
	    {{"a >= 1", "b >= 1"}, 0, "(x//a + 1)//b", "(x/a + 1)//b"},
	    {NONE, 1, "(x//a + y)//b", "(y + x/a)//b"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void floor_range_elimination_with_a_symbolic_divisor_needs_both_bounds(void **state)
{
	static const svec v[] = {
	    {{"n >= 1", "x >= 0", "x < n"}, 0, "x % n", "x"},
	    {{"n >= 1", "x >= 0", "x < n"}, 0, "x // n", "0"},
	    {{"n >= 1", "x >= -1", "x < n"}, 0, "x % n", "x % n"},
	    {{"n >= 1", "x >= 0", "x <= n"}, 0, "x % n", "x % n"},
	    {{"n >= 1", "x >= 0", "x <= n"}, 0, "x // n", "x//n"},
	    {{"n >= 1", "x >= -n", "x < 0"}, 0, "x // n", "-1"},
	    {{"n >= 1", "x >= -n", "x < 0"}, 0, "x % n", "n + x"},
	    {{"x < n"}, 1, "x % n", "x"},
	    {{"x < n"}, 1, "x // n", "0"},
	    {{"x <= n"}, 1, "x // n", "x//n"},
	    {{"x >= 0", "x < n"}, 0, "x // n", "x//n"}, /* n >= 1 is not assumed */
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void a_part_below_a_common_factor_of_the_divisor_cannot_carry(void **state)
{
	static const svec v[] = {
	    {{"y >= 0", "y < 32"}, 0, "(32*x + y)//64", "x//2"},
	    {{"y >= 0", "y < 32"}, 0, "(32*x + y) % 64", "y + 32*(x % 2)"},
	    {{"y >= 0", "y < 32", "z >= 0", "z < 4"}, 0, "(128*x + 4*y + z)//512", "x//4"},
	    /* must not fire: y may reach 32, or be negative */
	    {{"y >= 0", "y < 33"}, 0, "(32*x + y)//64", "(32*x + y)//64"},
	    {{"y >= -1", "y < 32"}, 0, "(32*x + y)//64", "(32*x + y)//64"},
	    {NONE, 0, "(32*x + y)//64", "(32*x + y)//64"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void relations_drop_a_part_that_cannot_carry_past_a_multiple(void **state)
{
	static const svec v[] = {
	    {{"y >= 0", "y < 8"}, 0, "8*x + y < 16", "x <= 1"},
	    {{"z >= 0", "z < 2"}, 0, "8*x + 4*z < 16", "x <= 1"},
	    {{"y >= 0", "y < 8"}, 0, "-8*x + y < 16", "x >= -1"},
	    {{"y >= 0", "y < 1024"}, 0, "1024*x + y < 7168*z", "x < 7*z"},
	    /* must not fire: y may carry, or the bound is not one below a multiple */
	    {{"y >= 0", "y < 9"}, 0, "8*x + y < 16", "8*x + y <= 15"},
	    {{"y >= 0", "y < 8"}, 0, "8*x + y < 15", "8*x + y <= 14"},
	    {{"y >= -1", "y < 8"}, 0, "8*x + y < 16", "8*x + y <= 15"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void relations_are_divided_by_a_positive_common_factor_only(void **state)
{
	static const svec v[] = {
	    {NONE, 1, "4*s0*s1*s2 > 4*s0*s2", "s1 >= 2"},
	    {NONE, 0, "4*s0*s1*s2 > 4*s0*s2", "s0*s2 < s0*s1*s2"},
	    {{"s0 >= 1"}, 0, "s0*s1 <= s0", "s1 <= 1"},
	    {NONE, 1, "s0*s1 == s0*s2", "s1 == s2"},
	    {NONE, 0, "s0*s1 == s0*s2", "s0*s1 == s0*s2"},
	    /* a constant c is absorbed when it is below the factor's minimum */
	    {{"s0 >= 1"}, 0, "s0*s1 + s0*s2 <= -1", "s1 + s2 < 0"},
	    {{"s0 >= 2"}, 0, "s0*s1 + s0*s2 <= -2", "s1 + s2 < 0"},
	    {{"s0 >= 2"}, 0, "s0*s1 + s0*s2 <= -3", "s0*s1 + s0*s2 <= -3"},
	    {{"s0 >= 2"}, 0, "s0*s1 + s0*s2 <= 1", "s1 + s2 <= 0"},
	    {{"s0 >= 1"}, 0, "s0*s1 + s0*s2 <= 1", "s0*s1 + s0*s2 <= 1"},
	    {{"s0 >= 2"}, 0, "s0*s1 + s0*s2 <= 2", "s0*s1 + s0*s2 <= 2"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void floor_relations_lose_their_floor(void **state)
{
	static const svec v[] = {
	    {NONE, 0, "x // 2 <= -1", "x < 0"},
	    {NONE, 0, "x // 2 >= 0", "x >= 0"},
	    {NONE, 0, "x // 2 < 3", "x <= 5"},
	    {NONE, 0, "x // 2 == 3", "x//2 == 3"},
	    {{"x >= 0"}, 0, "x // 2 <= -1", "false"},
	    {NONE, 0, "x - 4*((x + 2)//4) <= 0", "(x + 2) % 4 <= 2"},
	    {NONE, 0, "(x + 1) % 3 == 1", "x % 3 == 0"},
	    {NONE, 0, "(x + 1) % 3 == 0", "x % 3 == 2"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void defining_equalities_substitute_the_defined_symbol(void **state)
{
	static const svec v[] = {
	    {{"a == 4*d + m"}, 0, "a", "4*d + m"},
	    {{"a == 4*d + m"}, 0, "a + 1", "4*d + m + 1"},
	    {{"a == 4*d + m", "m >= 0", "m <= 3"}, 0, "a % 4", "m"},
	    {{"a == 4*d + m", "m >= 0", "m <= 3"}, 0, "a // 4", "d"},
	    {{"a == 4*d + m", "m >= 0", "m <= 4"}, 0, "a // 4", "d + m//4"},
	    {{"a == 4*d + m"}, 0, "a % 4", "m % 4"},
	    {{"a == b + 1"}, 0, "a - b", "1"},
	    {{"a == 4"}, 0, "a*x", "4*x"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

/* A symbol whose range is one value is that value wherever it occurs,
 * however the range came to be one value (bounds, a residue, the default
 * minimum of dims). */
static void symbols_pinned_by_their_range_are_their_value(void **state)
{
	static const svec v[] = {
	    {{"a >= 3", "a <= 3"}, 0, "a*x + max(a, y)", "3*x + max(3, y)"},
	    {{"a >= 4", "a <= 9", "a % 8 == 0"}, 0, "a + 1", "9"},
	    {{"a <= 1"}, 1, "a*x + min(a, y, z)", "x + 1"},
	    {{"a <= 2"}, 1, "a*x", "a*x"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void min_max_arguments_are_pruned_by_proofs(void **state)
{
	static const svec v[] = {
	    {{"s0 >= 1"}, 0, "max(s0, 1)", "s0"},
	    {NONE, 0, "max(s0, 1)", "max(1, s0)"},
	    {{"s0 >= 0"}, 0, "max(s0, 1)", "max(1, s0)"},
	    {NONE, 1, "max(s0, 1)", "s0"},
	    {NONE, 1, "min(s0, 0)", "0"},
	    {{"s0 <= s1"}, 0, "min(s0, s1)", "s0"},
	    {{"s0 <= s1"}, 0, "max(s0, s1)", "s1"},
	    {{"s0 <= s1 + 1"}, 0, "min(s0, s1)", "min(s0, s1)"},
	    {NONE, 1, "min(s0*s1, s0)", "s0"},
	    {NONE, 1, "max(s0*s1, s1, 1)", "s0*s1"},
	    {NONE, 0, "min(s0*s1, s0)", "min(s0, s0*s1)"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void abs_follows_a_proven_sign(void **state)
{
	static const svec v[] = {
	    {{"x >= 0"}, 0, "abs(x)", "x"},
	    {{"x <= 0"}, 0, "abs(x)", "-x"},
	    {{"x >= -1"}, 0, "abs(x)", "abs(x)"},
	    {{"s0 >= s1"}, 0, "abs(s0 - s1)", "s0 - s1"},
	    {{"s0 <= s1"}, 0, "abs(s0 - s1)", "s1 - s0"},
	    {NONE, 1, "abs(s0*s1)", "s0*s1"},
	    {NONE, 1, "abs(s0 - s1)", "abs(s0 - s1)"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

/* Two relations over one integer linear form that are one relation. */
static void relations_over_one_integer_form_merge(void **state)
{
	static const svec v[] = {
	    {NONE, 0, "a <= 2 && a >= 2", "a == 2"},
	    {NONE, 0, "a < 3 && a > 1", "a == 2"},
	    {NONE, 0, "a != 2 && a <= 2", "a <= 1"},
	    {NONE, 0, "a != 2 && 2 <= a", "a >= 3"},
	    {NONE, 0, "a == 2 || a <= 1", "a <= 2"},
	    {NONE, 0, "a == 2 || a >= 3", "a >= 2"},
	    {NONE, 0, "a <= 1 || a >= 3", "a != 2"},
	    {NONE, 0, "x + y != 4 && x + y >= 4", "x + y >= 5"},
	    {NONE, 0, "2*x + 2*y >= 4 && x + y <= 2", "x + y == 2"},
	    {NONE, 0, "a == 2 || a >= 3 || b <= 1", "a >= 2 || b <= 1"},
	    {NONE, 0, "a <= 2 && a >= 2 && b >= 3 && b <= 3", "a == 2 && b == 3"},
	    /* not adjacent, or not integer-valued: kept */
	    {NONE, 0, "a <= 1 || a >= 4", "a >= 4 || a <= 1"},
	    {NONE, 0, "x/2 == 1 || x/2 <= 0", "x == 2 || x <= 0"},
	    {NONE, 0, "x*y != 3 && x*y <= 3", "x*y <= 2"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void linear_prover_decides_relations_from_linear_facts(void **state)
{
	static const svec v[] = {
	    {{"x < n && x >= 0"}, 0, "x <= n", "true"},
	    {{"x <= n"}, 0, "x < n", "x < n"},
	    {{"x <= n", "y <= n"}, 0, "x + y <= 2*n", "true"},
	    {{"x <= n", "y <= n"}, 0, "x + y < 2*n", "x + y < 2*n"},
	    {{"x < n", "n <= m"}, 0, "x < m", "true"},
	    {{"x < n", "n <= m"}, 0, "x >= m", "false"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

static void modulo_aware_bounds_drop_redundant_modulo(void **state)
{
	static const svec v[] = {
	    {NONE, 0, "(x % 4) % 8", "x % 4"},
	    {NONE, 0, "(x % 8) % 4", "x % 4"},
	    {NONE, 0, "(x % 4) // 4", "0"},
	    {NONE, 0, "x % 4 < 4", "true"},
	    {NONE, 0, "x % 4 >= 0", "true"},
	    {NONE, 0, "x % 4 <= 2", "x % 4 <= 2"},
	    {{"n >= 1"}, 0, "(x % n) // n", "0"},
	    {{"n >= 1"}, 0, "(x % n) % n", "x % n"},
	    {{"n >= 1"}, 0, "x % n >= 0", "true"},
	    {{"x >= 0", "x <= 5"}, 0, "x % 8 + x % 16", "2*x"},
	    {{"x >= 0", "x <= 8"}, 0, "x % 8 + x % 16", "x % 8 + x"},
	};
	(void)state;
	CHECK(check_simplify, v);
}

/* ---- published cases of other simplifiers -------------------------------- */

/* TVM's canonical simplifier (floordiv / floormod cases; truncating ones
 * are left out). */
static void tvm_canonical_simplifier_cases_match(void **state)
{
	static const pvec v[] = {
	    {NONE, 0, "(x + x + y*3) % 2", "y % 2", "(y*3) % 2"},
	    {NONE, 0, "(x + y + x + y*3)//2", "x + 2*y", "y*2 + x"},
	    {NONE, 0, "(x + y + x + y*3) % 2", "0", "0"},
	    {NONE, 0, "(x + x + y*3)//2", "3*y//2 + x", "(y*3)//2 + x"},
	    {NONE, 0, "(x*5)//2", "5*x//2", "(x*5)//2"},
	    {NONE, 0, "(x//3)*3 + x % 3", "x", "x"},
	    {NONE, 0, "(x//6)*6 + ((x//3) % 2)*3 + x % 3", "x", "x"},
	    {NONE, 0, "((x % 16)//2*2)//4", "(x//4) % 4", "(x % 16)//4"},
	    {NONE, 0, "(x % 2)//8", "0", "0"},
	    {NONE, 0, "(x % 2)//7", "0", "0"},
	    {NONE, 0, "((x % 16)//2*2)//6", "(x % 16)//6", "(x % 16)//6"},
	    {{"x >= -1000", "x <= 10000"}, 0, "(16 + 48*x)//16", "3*x + 1", "x*3 + 1"},
	    {{"x >= -1000", "x <= 10000"}, 0, "(17 + 48*x)//16", "3*x + 1", "x*3 + 1"},
	    {{"x >= -1000", "x <= 10000"}, 0, "(17 + 47*x)//16", "(47*x + 17)//16", "(x*47 + 17)//16"},
	    {NONE, 0, "((x*4 + y - 466036) % 24528 - 24512) % 16", "(4*x + y + 12) % 16",
	     "(x*4 + y + 12) % 16"},
	    {NONE, 0, "((x*4) % 16) % 8", "4*(x % 2)", "(x % 2)*4"},
	    {NONE, 0, "(x*32*x) % x", "0", "0"},
	    {NONE, 0, "(z*x*32*x*y) % (x*z)", "0", "0"},
	    {NONE, 0, "(x*(2*y)*3)//(3*y)", "2*x", "x*2"},
	    {NONE, 0, "(x*2*x*z)//(4*x*x*x)", "z//(2*x)", "z//(x*2)"},
	    {NONE, 0, "(x*(2*y)*3)//(3*y*z)", "2*x//z", "(x*2)//z"},
	    {NONE, 0, "(x*10 + 1 + y*2 + 2) % 2", "1", "1"},
	    {{"y >= 0", "y < 8", "z >= 0", "z < 2"},
	     0,
	     "x*8 + y + z < 16",
	     "8*x + y + z <= 15",
	     "x*8 + y + z < 16"},
	    {{"tx >= 0", "tx < 32", "vec >= 0", "vec < 8"},
	     0,
	     "(tx//2) % 8 + vec < 8",
	     "2*vec + tx % 16 <= 15",
	     "(tx % 16)//2 + vec < 8"},
	};
	(void)state;
	CHECK(check_peer, v);
}

/* TVM's rewrite simplifier (floordiv / floormod classes, comparisons and
 * min/max; preconditions become assumptions). */
static void tvm_rewrite_simplifier_cases_match(void **state)
{
	static const pvec v[] = {
	    {NONE, 0, "(x//8)*8 + x % 8", "x", "x"},
	    {NONE, 0, "((x % 2) + 7)//2 + x//2", "(x + 7)//2", "(x + 7)//2"},
	    {NONE, 0, "x - (x//3)*3", "x % 3", "x % 3"},
	    {NONE, 0, "(x + 5)//3 - x//3", "(x + 5)//3 - (x//3)", "(x + 5)//3 - (x//3)"},
	    {NONE, 0, "(x + 5)//3 - (x + 2)//3", "1", "((x + 2) % 3)//3 + 1"},
	    {NONE, 0, "(y//3)*3 - y", "-(y % 3)", "0 - y % 3"},
	    {NONE, 0, "y - ((y - 6)//5)*5", "(y + 4) % 5 + 6", "(y + 4) % 5 + 6"},
	    {NONE, 0, "((y - 6)//5)*5 - y", "-y % 5 - 10", "-6 - (y + 4) % 5"},
	    {NONE, 0, "y - ((y + z)//5)*5", "(y + z) % 5 - z", "(y + z) % 5 - z"},
	    {NONE, 0, "((y + z)//5)*5 - y", "z - (y + z) % 5", "z - (y + z) % 5"},
	    {NONE, 0, "y*3 - (y//2)*6", "3*(y % 2)", "(y % 2)*3"},
	    {NONE, 0, "(y//3)*6 - y*2", "-2*(y % 3)", "(y % 3)*-2"},
	    {NONE, 0, "y*5 - ((y + z)//2)*10", "5*((y + z) % 2 - z)", "((y + z) % 2 - z)*5"},
	    {NONE, 0, "(x//2)//3", "x//6", "x//6"},
	    {NONE, 0, "(x//2 + 1)//3", "(x + 2)//6", "(x + 2)//6"},
	    {NONE, 0, "(x - x % 21)//21", "x//21", "x//21"},
	    {NONE, 0, "(x*2)//4", "x//2", "x//2"},
	    {NONE, 0, "(x*4)//2", "2*x", "x*2"},
	    {NONE, 0, "(x*8 + 7)//16", "x//2", "x//2"},
	    {NONE, 0, "(x*8 + 39)//16", "x//2 + 2", "x//2 + 2"},
	    {NONE, 0, "(x*8 - 1)//16", "(x - 1)//2", "(x*8 - 1)//16"},
	    {NONE, 0, "(x*8 - 9)//16", "x//2 - 1", "x//2 - 1"},
	    {{"x >= 0", "x < 2", "y >= 0", "y < 7"}, 0, "(x*360 + y)//16", "22*x", "x*22"},
	    {{"x >= 0", "x < 2", "y >= 0", "y < 7"}, 0, "(x*360 + y)//25", "14*x", "x*14"},
	    {NONE, 0, "(x*4 + y)//2", "2*x + y//2", "x*2 + y//2"},
	    {NONE, 0, "(x*6 + y + z)//2", "3*x + (y + z)//2", "x*3 + (y + z)//2"},
	    {NONE, 0, "(x + 4)//2", "x//2 + 2", "x//2 + 2"},
	    {{"x >= 1"}, 0, "(x + y)//x", "y//x + 1", "y//x + 1"},
	    {{"y >= 1"}, 0, "(x*y)//y", "x", "x"},
	    {{"z >= 1"}, 0, "(x*z + y)//z", "x + y//z", "x + y//z"},
	    {{"z >= 1"}, 0, "(x*z*2 + y)//(z*2)", "x + y//(2*z)", "x + y//(z*2)"},
	    {NONE, 0, "(x*10) % 2", "0", "0"},
	    {NONE, 0, "(x*9600) % 6400", "3200*(x % 2)", "(x*3200) % 6400"},
	    {NONE, 0, "(x*360 + y) % 16", "(8*x + y) % 16", "(x*8 + y) % 16"},
	    {NONE, 0, "(x*10 + y) % 2", "y % 2", "y % 2"},
	    {NONE, 0, "(x + 10) % 2", "x % 2", "x % 2"},
	    {NONE, 0, "(x + y*10) % 2", "x % 2", "x % 2"},
	    {NONE, 0, "(x - 10) % 2", "x % 2", "x % 2"},
	    {{"y >= 0", "y < 32"}, 0, "(x*32 - y) % 64", "(32*x - y) % 64", "(x*32 - y) % 64"},
	    {{"z >= 1"}, 0, "(x*z*2 + y) % (z*2)", "y % (2*z)", "y % (z*2)"},
	    {NONE, 0, "(x + 5)//2 - (x - 3)//2", "4", "4"},
	    {NONE, 0, "(x + 5) % 2", "1 - x % 2", "(x + 1) % 2"},
	    {NONE, 0, "(x - x % 9) % 9", "0", "0"},
	    {NONE, 0, "(x - x % -9) % 9", "0", "0"},
	    {NONE, 0, "(x + (-x) % 9) % 9", "0", "0"},
	    {NONE, 0, "(x + (8*x) % 9) % 9", "0", "0"},
	    {{"y >= 1"}, 0, "(x - x % y) % y", "0", "0"},
	    {{"y >= 1"}, 0, "(x + (-x) % y) % y", "0", "0"},
	    {NONE, 0, "min(x % 2, y % 2 + 10)", "x % 2", "x % 2"},
	    {NONE, 0, "max(x % 2, y % 2 + 10)", "y % 2 + 10", "y % 2 + 10"},
	    {NONE, 0, "min(x + 1, x + 10)", "x + 1", "x + 1"},
	    {NONE, 0, "min(max(x, y), min(x, y))", "min(x, y)", "min(x, y)"},
	    {NONE, 0, "min(max(x, y), x)", "x", "x"},
	    {NONE, 0, "max(min(x, y), x)", "x", "x"},
	    {NONE, 0, "min(min(x, y), x)", "min(x, y)", "min(x, y)"},
	    {NONE, 0, "min(x*3, 9)", "3*min(3, x)", "min(x, 3)*3"},
	    {NONE, 0, "min(x*2, 0)", "2*min(0, x)", "min(x, 0)*2"},
	    {NONE, 0, "max(x*2, 0)", "2*max(0, x)", "max(x, 0)*2"},
	    {NONE, 0, "min((x + 3)//4*4, x)", "x", "x"},
	    {NONE, 0, "max((x + 3)//4*4, x)", "4*((x + 3)//4)", "(x + 3)//4*4"},
	    {NONE, 0, "min(x, (x//4)*4)", "x - x % 4", "(x//4)*4"},
	    {NONE, 0, "max((x//4)*4, x)", "x", "x"},
	    {NONE, 0, "min(x + y, x + z)", "x + min(y, z)", "min(y, z) + x"},
	    {NONE, 0, "min(min(x, 11), 10)", "min(10, x)", "min(x, 10)"},
	    {NONE, 0, "x % 2 + 10 == 0", "false", "false"},
	    {NONE, 0, "x % 2 + 2 > 1", "true", "true"},
	    {NONE, 0, "x % 2 + 10 <= 1", "false", "false"},
	    {NONE, 0, "x*3 + 10 == 0", "false", "false"},
	    {NONE, 0, "x*3 + 10 != 0", "true", "true"},
	    {NONE, 0, "x//2 < 3", "x <= 5", "x < 6"},
	    {NONE, 0, "3 < x//2", "x >= 8", "7 < x"},
	    {NONE, 0, "-3 < x//2", "x >= -4", "-5 < x"},
	    {NONE, 0, "x//3 >= 0", "x >= 0", "0 <= x"},
	    {NONE, 0, "x//2 >= 1", "x >= 2", "2 <= x"},
	    {NONE, 0, "x//2 >= -1", "x >= -2", "-2 <= x"},
	    {NONE, 0, "x//2 <= 1", "x <= 3", "x <= 3"},
	    {NONE, 0, "x//2 <= -1", "x < 0", "x < 0"},
	    {NONE, 0, "(x//4)*4 < x", "x % 4 >= 1", "0 < x % 4"},
	    {NONE, 0, "(x//4)*4 < x - y", "y < x % 4", "y < x % 4"},
	    {NONE, 0, "(x + 2)//4*4 >= x", "(x + 2) % 4 <= 2", "(x + 2) % 4 <= 2"},
	    {NONE, 0, "(x + 2)//4*4 >= x + y", "y + (x + 2) % 4 <= 2", "(x + 2) % 4 + y <= 2"},
	    {NONE, 0, "(x + 2)//4*4 >= x - y", "(x + 2) % 4 - y <= 2", "(x + 2) % 4 <= y + 2"},
	    {NONE, 0, "min(x, 8) < 10", "true", "true"},
	    {{"x <= 10"}, 0, "x < 11", "true", "true"},
	    {{"x <= 10", "y <= 0"}, 0, "x + y <= 10", "true", "true"},
	    {{"x >= 0", "y >= -10"}, 0, "x + y >= -10", "true", "true"},
	    {{"z <= 5", "y >= -10"}, 0, "z - 5 <= y + 10", "true", "true"},
	    {{"x >= 0", "z <= 5"}, 0, "x > -1 && z <= x + 5", "true", "true"},
	    {{"x >= 0", "y <= 0"}, 0, "x*y <= 0", "true", "true"},
	    {{"x >= 0", "y <= 0"}, 0, "(x + 1)*(y - 1) < 0", "true", "true"},
	    {{"y <= 0"}, 0, "y*y >= 0", "true", "true"},
	    {{"x >= 0"}, 0, "x*6 <= -3", "false", "false"},
	    {NONE, 0, "x + y < x + z", "y < z", "y < z"},
	    {NONE, 0, "x*3 >= y*3", "y <= x", "y <= x"},
	    {NONE, 0, "x*4 >= 2", "x >= 1", "1 <= x"},
	    {NONE, 0, "x*-2 <= -3", "x >= 2", "2 <= x"},
	};
	(void)state;
	CHECK(check_peer, v);
}

/* MLIR's affine expression simplification (mod and floordiv by positive
 * constants are floor operations there too; ceildiv is ceil). */
static void mlir_affine_simplification_cases_match(void **state)
{
	static const pvec v[] = {
	    {NONE, 0, "(d0 - d0 % 4) % 4", "0", "0"},
	    {NONE, 0, "(d0 - d0 % 128 - 64) % 64", "0", "0"},
	    {NONE, 0, "((d0 - d0 % 2)*2) % 4", "0", "0"},
	    {NONE, 0, "(5*d1 + 8 - (5*d1 + 4) % 4) % 4", "0", "0"},
	    {NONE, 0, "ceil(d0/2)", "(d0 + 1)//2", "ceil(d0/2)"},
	    {NONE, 0, "ceil((2*d0 + 4 + 2*d0)/4)", "d0 + 1", "d0 + 1"},
	    {NONE, 0, "ceil((8*d1 + 3 + d1)/6)", "3*d1//2 + 1", "ceil((d1*3 + 1)/2)"},
	    {NONE, 0, "d0 - (d0//4)*4", "d0 % 4", "d0 % 4"},
	    {NONE, 0, "d0 - ((d0 + 1)//4)*4 + 1", "(d0 + 1) % 4", "(d0 + 1) % 4"},
	    {NONE, 0, "d1 + d0 - ((d0 + 2*d1)//4)*4 + d1", "(d0 + 2*d1) % 4", "(d0 + d1*2) % 4"},
	};
	(void)state;
	CHECK(check_peer, v);
}

/* Cases a peer simplifies further than we do.  Each entry gives the peer's
 * result and, in its comment, our current output; only equivalence is
 * asserted (sym_equal never says false, proves it when decided is set, and
 * our output agrees with the peer's result at random admissible points). */
static void known_gaps_against_peers_stay_equivalent(void **state)
{
	static const gvec v[] = {
	    /* TVM canonical: ours i + 2*(d % 4) */
	    {{"d >= 0", "d <= 7", "i >= 0", "i <= 1", "v >= 0", "v <= 7"},
	     0,
	     "((d*16 + i*8 + v) % 64)//8",
	     "(d*2 + i) % 8",
	     1},
	    /* TVM rewrite: ours min(y, 6*x)//2 */
	    {NONE, 0, "min(x*6, y)//2", "min(x*3, y//2)", 0},
	    /* TVM rewrite: ours max(y, 6*x)//2 */
	    {NONE, 0, "max(x*6, y)//2", "max(x*3, y//2)", 0},
	    /* TVM rewrite: ours 2*x - 2*(x//2) - 2*((x + 1)//2) + 1 */
	    {NONE, 0, "x % 2 + (x + 1) % 2", "1", 1},
	    /* TVM rewrite: ours -(x//2) + (x + 1)//2 */
	    {NONE, 0, "(x + 1)//2 - x//2", "x % 2", 1},
	    /* TVM rewrite: ours x//2 - (x + 1)//2 + 1 */
	    {NONE, 0, "x//2 - (x - 1)//2", "1 - x % 2", 1},
	    /* TVM rewrite: ours -(x//2) + (x + 1)//2 + 3 */
	    {NONE, 0, "(x + 5)//2 - (x - 2)//2", "x % 2 + 3", 1},
	    /* TVM rewrite: ours -(x//2) + (x + 1)//2 */
	    {NONE, 0, "(x % 2 + 1)//2", "x % 2", 1},
	    /* TVM rewrite: ours (x + 1)//2 - x % 2 */
	    {NONE, 0, "(x + 1)//2 - x % 2", "x//2", 1},
	    /* TVM rewrite: ours x - x//2 */
	    {NONE, 0, "x//2 + x % 2", "(x + 1)//2", 1},
	    /* TVM rewrite: ours min(2, -x + 3) */
	    {NONE, 0, "min(3 - x, 2)", "3 - max(x, 1)", 0},
	    /* TVM rewrite: ours max(1, -x + 3) */
	    {NONE, 0, "max(3 - x, 1)", "3 - min(x, 2)", 0},
	    /* TVM rewrite: ours 2*min(-2, -x) */
	    {NONE, 0, "min(x*-2, -4)", "max(x, 2)*-2", 0},
	    /* TVM rewrite: ours x + min(-y, -z) */
	    {NONE, 0, "min(x - y, x - z)", "x - max(y, z)", 0},
	    /* TVM rewrite: ours min(4*((x + 3)//4), max(4, x)) */
	    {{"x >= 1"}, 0, "min((x + 3)//4*4, max(x, 4))", "max(x, 4)", 0},
	    /* TVM rewrite: ours min(max(x, y), max(x, z)) */
	    {NONE, 0, "min(max(x, y), max(x, z))", "max(min(y, z), x)", 0},
	    /* TVM rewrite: ours x % 4 <= 0 (same set, other normal form) */
	    {NONE, 0, "(x//4)*4 >= x", "x % 4 == 0", 0},
	    /* TVM rewrite: ours min(11, x) <= 9 */
	    {NONE, 0, "min(x, 11) < 10", "x < 10", 0},
	    /* TVM rewrite: ours max(8, x) >= 11 */
	    {NONE, 0, "max(8, x) > 10", "10 < x", 0},
	    /* TVM rewrite: ours x <= max(8, x) - 2 */
	    {NONE, 0, "x + 1 < max(8, x)", "x < 7", 0},
	    /* TVM rewrite: ours x % 8 == 4 && x//8 == 3 */
	    {NONE, 0, "x//8 == 3 && x % 8 == 4", "x == 28", 0},
	    /* TVM rewrite: ours 5*y <= x && x <= 5*y + 4 */
	    {NONE, 0, "x - y*5 >= 0 && x - y*5 < 5", "y == x//5", 0},
	    /* TVM rewrite: ours x <= 19 && x % 5 <= 1 */
	    {NONE, 0, "x < 20 && x % 5 < 2", "x < 17 && x % 5 < 2", 0},
	    /* TVM rewrite: ours x//10 == 5 && x % 10 <= 6 */
	    {NONE, 0, "x//10 == 5 && x % 10 < 7", "50 <= x && x < 57", 0},
	    /* TVM rewrite: ours y <= x - 1 && x <= y */
	    {NONE, 0, "x <= y && y < x", "false", 0},
	    /* TVM rewrite: ours x <= 0 && x >= 1 */
	    {NONE, 0, "x < 1 && 0 < x", "false", 0},
	    /* TVM rewrite: ours x >= 2 && x <= 1 */
	    {NONE, 0, "x <= 1 && 2 <= x", "false", 0},
	    /* TVM rewrite: ours x == 1 && x != 2 */
	    {NONE, 0, "x == 1 && x != 2", "x == 1", 0},
	    /* TVM rewrite: ours x == 2 && x == 1 */
	    {NONE, 0, "x == 1 && x == 2", "false", 0},
	    /* TVM rewrite: ours y <= x - 1 || x <= y */
	    {NONE, 0, "x <= y || y < x", "true", 0},
	    /* TVM rewrite: ours x <= 0 || x >= 1 */
	    {NONE, 0, "x < 1 || 0 < x", "true", 0},
	    /* TVM rewrite: ours x == 2 || x != 1 */
	    {NONE, 0, "x != 1 || x == 2", "x != 1", 0},
	    /* TVM rewrite: ours x != 2 || x != 1 */
	    {NONE, 0, "x != 1 || x != 2", "true", 0},
	    /* own case: ours x % n, since n >= 1 follows from the first two
	     * facts and is then not recorded as a bound of n (assumed first,
	     * it gives x) */
	    {{"x >= 0", "x < n", "n >= 1"}, 0, "x % n", "x", 0},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f;
		const sym_expr *e, *p, *r;
		sym_truth t;
		assert_non_null(ctx);
		f = facts_for(ctx, v[i].as, v[i].dims);
		e = parse(ctx, v[i].in);
		p = parse(ctx, v[i].peer);
		r = sym_simplify(ctx, f, e);
		if (!r)
			fail_msg("simplify '%s': %s", v[i].in, sym_ctx_last_message(ctx));
		check_same_value(ctx, v[i].as, v[i].dims, r, p, v[i].in);
		t = sym_equal(ctx, f, e, p, NULL);
		if (t == SYM_FALSE || t == SYM_ERROR)
			fail_msg("equal %s, %s: %s", v[i].in, v[i].peer, truth_name(t));
		if (v[i].decided && t != SYM_TRUE)
			fail_msg("equal %s, %s: expected true, got %s", v[i].in, v[i].peer, truth_name(t));
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
}

/* ---- decisions ----------------------------------------------------------- */

static void prove_answers_true_false_or_unknown(void **state)
{
	static const dvec v[] = {
	    {NONE, 1, "s0 >= 1", NULL, SYM_TRUE},
	    {NONE, 1, "s0 >= 2", NULL, SYM_UNKNOWN},
	    {NONE, 1, "s0*s1 >= s0", NULL, SYM_TRUE},
	    {NONE, 1, "s0 <= s0*s1", NULL, SYM_TRUE},
	    {NONE, 1, "s0 + s1 <= 2", NULL, SYM_UNKNOWN},
	    {{"x % 4 == 3"}, 0, "x % 2 == 1", NULL, SYM_TRUE},
	    {{"x % 4 == 3"}, 0, "x == 7", NULL, SYM_UNKNOWN},
	    {{"s1 % 8 == 0"}, 0, "s1 != 12", NULL, SYM_TRUE},
	    {{"s1 % 8 == 0"}, 0, "s1 != 16", NULL, SYM_UNKNOWN},
	    {{"x < n && x >= 0"}, 0, "x <= n", NULL, SYM_TRUE},
	    {{"x < n && x >= 0"}, 0, "n >= 1", NULL, SYM_TRUE},
	    {{"x < n && x >= 0"}, 0, "x >= 1", NULL, SYM_UNKNOWN},
	    {{"x >= 1"}, 0, "(x + 1)//2 >= 1", NULL, SYM_TRUE},
	    {{"x >= 0", "x <= 7"}, 0, "x // 8 == 0", NULL, SYM_TRUE},
	    {NONE, 0, "min(s0, s1) <= s0", NULL, SYM_TRUE},
	    {NONE, 0, "abs(x) >= 0", NULL, SYM_TRUE},
	    {NONE, 0, "abs(x) >= 1", NULL, SYM_UNKNOWN},
	    {NONE, 0, "x % 4 <= 3", NULL, SYM_TRUE},
	    {NONE, 0, "x % 4 <= 2", NULL, SYM_UNKNOWN},
	    {NONE, 1, "x % 8 < x + 1", NULL, SYM_TRUE},
	};
	(void)state;
	CHECK(check_decisions, v);
}

/* c*max(a_i) + R <= 0 is decided argument by argument: every c*a_i + R
 * for c > 0, some for c < 0 (min the other way round). */
static void relations_of_max_and_min_are_decided_argument_by_argument(void **state)
{
	static const dvec v[] = {
	    {NONE, 1, "max(0, s0 - 10) <= s0", NULL, SYM_TRUE},
	    {NONE, 1, "max(a, b) <= a + b", NULL, SYM_TRUE},
	    {NONE, 1, "max(a, b) < a", NULL, SYM_FALSE},
	    {NONE, 1, "max(s0, s1) >= s0 + s1", NULL, SYM_FALSE},
	    {NONE, 1, "min(a, b) >= a + b", NULL, SYM_FALSE},
	    {NONE, 1, "min(a, b) < 0", NULL, SYM_FALSE},
	    {NONE, 1, "2*min(a, b) <= a + b", NULL, SYM_TRUE},
	    {NONE, 1, "max(a, b) <= 5", NULL, SYM_UNKNOWN},
	    {NONE, 1, "max(a - 1, b - 1) < a + b", NULL, SYM_TRUE},
	    {{"a <= 4", "b <= 3"}, 0, "max(a, b) + min(a, b) <= 7", NULL, SYM_TRUE},
	    {NONE, 0, "max(x, y) >= min(x, y)", NULL, SYM_TRUE},
	    {{"a <= b + 6"}, 0, "max(a - 5, b) <= b + 1", NULL, SYM_TRUE},
	    {{"a <= b + 7"}, 0, "max(a - 5, b) <= b + 1", NULL, SYM_UNKNOWN},
	};
	(void)state;
	CHECK(check_decisions, v);
}

static void prove_is_false_only_when_every_assignment_fails(void **state)
{
	static const dvec v[] = {
	    {NONE, 1, "s0 < 0", NULL, SYM_FALSE},
	    {NONE, 0, "s0 < 0", NULL, SYM_UNKNOWN},
	    {NONE, 1, "s0 + s1 <= 1", NULL, SYM_FALSE},
	    {NONE, 1, "s0*s1 <= 0", NULL, SYM_FALSE},
	    {{"x % 4 == 3"}, 0, "x % 2 == 0", NULL, SYM_FALSE},
	    {{"x % 4 == 3"}, 0, "x == 8", NULL, SYM_FALSE},
	    {{"s1 % 8 == 0"}, 0, "s1 == 4", NULL, SYM_FALSE},
	    {{"s1 % 8 == 0"}, 0, "s1 == 16", NULL, SYM_UNKNOWN},
	    {{"x < n && x >= 0"}, 0, "x > n", NULL, SYM_FALSE},
	    {{"x >= 0"}, 0, "x // 2 <= -1", NULL, SYM_FALSE},
	    {{"x >= -1"}, 0, "x // 2 <= -1", NULL, SYM_UNKNOWN},
	    {NONE, 0, "abs(x) < 0", NULL, SYM_FALSE},
	    {NONE, 0, "x % 4 == 4", NULL, SYM_FALSE},
	    {NONE, 0, "x == x + 1", NULL, SYM_FALSE},
	    {NONE, 0, "2*x == 2*y + 1", NULL, SYM_FALSE},
	};
	(void)state;
	CHECK(check_decisions, v);
}

/* Decisions that are settled but that we answer unknown: never the wrong
 * answer.  The true answer is in the comment. */
static void known_gaps_in_decisions_answer_unknown(void **state)
{
	static const dvec v[] = {
	    /* true: (x - 1)*(y - 1) >= 0 for x, y >= 1 */
	    {NONE, 1, "x*y + 1 >= x + y", NULL, SYM_UNKNOWN},
	};
	(void)state;
	CHECK(check_decisions, v);
}

/* The linear prover sees the relations of a conjunction together. */
static void conjunctions_without_solutions_are_decided(void **state)
{
	static const dvec v[] = {
	    /* no integer lies strictly between 0 and 1 */
	    {NONE, 0, "x < 1 && 0 < x", NULL, SYM_FALSE},
	    {NONE, 0, "x < 1 && 0 < x", "false", SYM_TRUE},
	    {NONE, 0, "x < y && y < z && z < x", NULL, SYM_FALSE},
	    {NONE, 0, "x <= y || y < x", NULL, SYM_TRUE},
	    /* satisfiable: stays unknown */
	    {NONE, 0, "x < 2 && 0 < x", NULL, SYM_UNKNOWN},
	    /* floor is monotone: a min of floors is the floor of the min */
	    {NONE, 0, "min(x//10, y//10)", "min(x, y)//10", SYM_TRUE},
	    {NONE, 0, "max(x//10, y//10)", "max(x, y)//10", SYM_TRUE},
	};
	(void)state;
	CHECK(check_decisions, v);
}

/* The linear prover knows n*(x//n) lies in [x - n + 1, x] for n >= 1. */
static void remainders_by_positive_symbolic_divisors_are_bounded(void **state)
{
	static const dvec v[] = {
	    /* a remainder by a positive symbolic divisor is in [0, n - 1] */
	    {{"n >= 1"}, 0, "x % n < n", NULL, SYM_TRUE},
	    {{"n >= 1"}, 0, "x % n >= 0", NULL, SYM_TRUE},
	    {NONE, 0, "x % n < n", NULL, SYM_UNKNOWN}, /* n may be negative */
	    {{"n >= 1"}, 0, "x % n < n - 1", NULL, SYM_UNKNOWN},
	};
	(void)state;
	CHECK(check_decisions, v);
}

/* equal multiplies a - b by every reciprocal factor it holds. */
static void rational_identities_are_decided_by_clearing_denominators(void **state)
{
	static const dvec v[] = {
	    {NONE, 0, "x/(y*(y + 1))", "x*(y + 1)**-1/y", SYM_TRUE},
	    {NONE, 0, "1/(x + 1) + 1/(x + 2)", "(2*x + 3)/((x + 1)*(x + 2))", SYM_TRUE},
	    {NONE, 0, "x/(x + 1)", "1 - 1/(x + 1)", SYM_TRUE},
	    {NONE, 0, "1/(x + 1)", "1/(x + 2)", SYM_FALSE},
	};
	(void)state;
	CHECK(check_decisions, v);
}

static void equal_gives_witnesses_that_evaluation_confirms(void **state)
{
	static const dvec v[] = {
	    {NONE, 0, "(x//2)//4", "x//8", SYM_TRUE},
	    {NONE, 0, "(x//2)*2", "x", SYM_FALSE},
	    {NONE, 1, "s0 % 8", "s0", SYM_FALSE},
	    {{"s0 >= 0", "s0 < 8"}, 0, "s0 % 8", "s0", SYM_TRUE},
	    {NONE, 0, "max(s0, 1)", "s0", SYM_FALSE},
	    {NONE, 1, "max(s0, 1)", "s0", SYM_TRUE},
	    {NONE, 0, "abs(x)", "x", SYM_FALSE},
	    {NONE, 0, "x % 4", "x - 4*(x//4)", SYM_TRUE},
	    {NONE, 0, "x % 2 + (x + 1) % 2", "1", SYM_TRUE},
	    {{"x >= 0", "x < 2", "y >= 0", "y < 7"}, 0, "(x*360 + y)//16", "22*x", SYM_TRUE},
	    {{"x >= 0", "x < 2", "y >= 0", "y < 17"}, 0, "(x*360 + y)//16", "22*x", SYM_FALSE},
	    {NONE, 0, "x//2 <= -1", "x < 0", SYM_TRUE},
	    {NONE, 0, "x <= 3", "x < 3", SYM_FALSE},
	    {{"x % 4 == 3"}, 0, "x % 8", "3", SYM_FALSE},
	    {{"a == 4*d + m"}, 0, "a % 4", "m", SYM_FALSE},
	    {{"a == 4*d + m", "m >= 0", "m <= 3"}, 0, "a % 4", "m", SYM_TRUE},
	    {NONE, 1, "s0*s1", "s0 + s1", SYM_FALSE},
	    {NONE, 1, "(s0 + 7)//8*8", "s0", SYM_FALSE},
	    {{"s0 % 8 == 0"}, 0, "(s0 + 7)//8*8", "s0", SYM_TRUE},
	};
	(void)state;
	CHECK(check_decisions, v);
}

/* ---- cost on large inputs ------------------------------------------------ */

static double seconds_since(clock_t t0)
{
	return (double)(clock() - t0) / CLOCKS_PER_SEC;
}

/* The rewrites that split a sum per coefficient try each distinct step once
 * and within a budget: thousands of terms with hundreds of distinct
 * coefficients stay quick (this took seconds). */
static void relations_of_sums_of_thousands_of_terms_are_decided_quickly(void **state)
{
	static const struct {
		const char *in;
		sym_truth truth;
	} v[] = {
	    {"(a+b+c+1)**30 >= (a+b+d+1)**30", SYM_UNKNOWN},
	    {"(a+b+c+1)**30 - 720719 <= (a+b+d+1)**30", SYM_UNKNOWN},
	    {"((a+b+c+1)**30 + 7)//720720 >= 1", SYM_TRUE},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f = facts_for(ctx, (const char *const[]){NULL}, 1);
		const sym_expr *p = parse(ctx, v[i].in);
		clock_t t0 = clock();
		sym_truth t = sym_prove(ctx, f, p);
		if (t != v[i].truth)
			fail_msg("prove %s: %s (%s)", v[i].in, truth_name(t), sym_ctx_last_message(ctx));
		if (seconds_since(t0) > 1.0)
			fail_msg("prove %s took %.2f s", v[i].in, seconds_since(t0));
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
}

/* Under x == 0 the defining equality makes every divisor x zero: the
 * value is an error at every admissible point, so simplify records it. */
static void division_by_a_symbol_defined_zero_is_an_error(void **state)
{
	static const char *const in[] = {"xx % x", "xx // x", "xx / x", "x + xx % x >= 1"};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		sym_ctx *ctx = sym_ctx_new();
		sym_facts *f = facts_for(ctx, (const char *const[]){"x == 0", NULL}, 0);
		const sym_expr *e = parse(ctx, in[i]);
		char *t;
		if (sym_simplify(ctx, f, e))
			fail_msg("simplify %s under x == 0: expected an error", in[i]);
		assert_int_equal(sym_ctx_last_error(ctx), SYM_EDIVZERO);
		/* printing afterwards neither hides nor changes the error */
		sym_ctx_clear_error(ctx);
		t = text_of(ctx, e);
		sym_str_free(ctx, t);
		assert_null(sym_simplify(ctx, f, e));
		assert_int_equal(sym_ctx_last_error(ctx), SYM_EDIVZERO);
		sym_facts_free(f);
		sym_ctx_free(ctx);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(modulo_and_division_vanish_only_inside_the_divisor_range),
	    cmocka_unit_test(floor_of_an_argument_within_one_step_is_a_constant),
	    cmocka_unit_test(residue_facts_fix_remainders_and_make_quotients_exact),
	    cmocka_unit_test(residue_facts_carry_through_products),
	    cmocka_unit_test(sizes_print_with_a_positive_leading_term),
	    cmocka_unit_test(printed_forms_of_simplified_expressions_parse_back),
	    cmocka_unit_test(nested_floor_by_symbolic_divisors_merges_only_when_both_are_positive),
	    cmocka_unit_test(floor_range_elimination_with_a_symbolic_divisor_needs_both_bounds),
	    cmocka_unit_test(a_part_below_a_common_factor_of_the_divisor_cannot_carry),
	    cmocka_unit_test(relations_drop_a_part_that_cannot_carry_past_a_multiple),
	    cmocka_unit_test(relations_are_divided_by_a_positive_common_factor_only),
	    cmocka_unit_test(floor_relations_lose_their_floor),
	    cmocka_unit_test(defining_equalities_substitute_the_defined_symbol),
	    cmocka_unit_test(symbols_pinned_by_their_range_are_their_value),
	    cmocka_unit_test(min_max_arguments_are_pruned_by_proofs),
	    cmocka_unit_test(abs_follows_a_proven_sign),
	    cmocka_unit_test(relations_over_one_integer_form_merge),
	    cmocka_unit_test(linear_prover_decides_relations_from_linear_facts),
	    cmocka_unit_test(modulo_aware_bounds_drop_redundant_modulo),
	    cmocka_unit_test(tvm_canonical_simplifier_cases_match),
	    cmocka_unit_test(tvm_rewrite_simplifier_cases_match),
	    cmocka_unit_test(mlir_affine_simplification_cases_match),
	    cmocka_unit_test(known_gaps_against_peers_stay_equivalent),
	    cmocka_unit_test(prove_answers_true_false_or_unknown),
	    cmocka_unit_test(relations_of_max_and_min_are_decided_argument_by_argument),
	    cmocka_unit_test(prove_is_false_only_when_every_assignment_fails),
	    cmocka_unit_test(known_gaps_in_decisions_answer_unknown),
	    cmocka_unit_test(conjunctions_without_solutions_are_decided),
	    cmocka_unit_test(remainders_by_positive_symbolic_divisors_are_bounded),
	    cmocka_unit_test(rational_identities_are_decided_by_clearing_denominators),
	    cmocka_unit_test(equal_gives_witnesses_that_evaluation_confirms),
	    cmocka_unit_test(relations_of_sums_of_thousands_of_terms_are_decided_quickly),
	    cmocka_unit_test(division_by_a_symbol_defined_zero_is_an_error),
	};
	printf("SYM_TEST_SEED=%llu\n", (unsigned long long)seed_from_env());
	return cmocka_run_group_tests(tests, setup_seed, NULL);
}
