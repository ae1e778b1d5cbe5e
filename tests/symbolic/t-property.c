/* Seeded property tests over random expression trees in s0..s4: printing
 * re-parses to the same node, polynomial identities are decided by
 * construction, exact evaluation agrees with an independent big-rational
 * evaluator of the tree, simplification under random facts keeps the value
 * at admissible points and is idempotent, and sym_equal's answers are
 * checked at admissible points.
 *
 * SYM_TEST_SEED picks the seed (default 1); SYM_TEST_ITERS the number of
 * random expressions per property; SYM_TEST_LONG=1 makes it 100,000. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "symshape/gmp.h"
#include "symshape/symshape.h"
#include "eval_private.h"

#define NSYM 5

/* ---- seeded random numbers ------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static long rnd_range(long lo, long hi)
{
	return lo + (long)(rnd() % (uint64_t)(hi - lo + 1));
}

static uint64_t seed_from_env(void)
{
	const char *s = getenv("SYM_TEST_SEED");
	return s && *s ? strtoull(s, NULL, 10) : 1;
}

/* SYM_TEST_ITERS wins; else SYM_TEST_LONG=1 asks for LONG_ITERS random
 * expressions per property (the long run), else dflt (the `make test`
 * run). */
#define LONG_ITERS 100000

static long iters_from_env(long dflt)
{
	const char *s = getenv("SYM_TEST_ITERS"), *l = getenv("SYM_TEST_LONG");
	long v = s && *s ? atol(s) : 0;
	if (v <= 0 && l && *l && strcmp(l, "0"))
		v = LONG_ITERS;
	return v > 0 ? v : dflt;
}

static int setup_seed(void **state)
{
	(void)state;
	rng_state = seed_from_env();
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- expression trees ------------------------------------------------- */

enum top {
	T_SYM,
	T_CONST,
	T_ADD,
	T_SUB,
	T_MUL,
	T_DIV,
	T_FDIV,
	T_MOD,
	T_MIN,
	T_MAX,
	T_ABS,
	T_CEIL,
	T_FLOOR,
	T_POW,
	T_NEG
};

typedef struct tn {
	int op, s;
	long k;  /* exponent of T_POW */
	mpq_t c; /* value of T_CONST */
	struct tn *a, *b;
} tn;

static tn *tnew(int op)
{
	tn *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	t->op = op;
	mpq_init(t->c);
	return t;
}

static void tfree(tn *t)
{
	if (!t)
		return;
	tfree(t->a);
	tfree(t->b);
	mpq_clear(t->c);
	free(t);
}

static tn *tcopy(const tn *t)
{
	tn *r;
	if (!t)
		return NULL;
	r = tnew(t->op);
	r->s = t->s, r->k = t->k;
	mpq_set(r->c, t->c);
	r->a = tcopy(t->a);
	r->b = tcopy(t->b);
	return r;
}

static tn *tsym(int s)
{
	tn *t = tnew(T_SYM);
	t->s = s;
	return t;
}

static tn *tconst_si(long v)
{
	tn *t = tnew(T_CONST);
	mpq_set_si(t->c, v, 1);
	return t;
}

static tn *tbin(int op, tn *a, tn *b)
{
	tn *t = tnew(op);
	t->a = a, t->b = b;
	return t;
}

/* Small, huge (beyond 2^64) and occasionally fractional constants. */
static tn *gen_const(int nonzero, int positive)
{
	tn *t = tnew(T_CONST);
	do {
		switch (rnd() % 8) {
		case 0:
		case 1:
		case 2:
		case 3:
			mpq_set_si(t->c, rnd_range(-6, 9), 1);
			break;
		case 4:
			mpq_set_si(t->c, rnd_range(-1000, 1000), 1);
			break;
		case 5: /* +-(2^k + small), k in 62..100 */
			mpz_set_ui(mpq_numref(t->c), 1);
			mpz_mul_2exp(mpq_numref(t->c), mpq_numref(t->c), (mp_bitcnt_t)rnd_range(62, 100));
			mpz_add_ui(mpq_numref(t->c), mpq_numref(t->c), (unsigned long)rnd_range(0, 5));
			mpz_set_ui(mpq_denref(t->c), 1);
			if (rnd() & 1)
				mpq_neg(t->c, t->c);
			break;
		case 6:
			mpq_set_si(t->c, rnd_range(-7, 7), (unsigned long)rnd_range(2, 5));
			mpq_canonicalize(t->c);
			break;
		default:
			mpq_set_si(t->c, rnd_range(1, 16), 1);
			break;
		}
		if (positive && mpq_sgn(t->c) < 0)
			mpq_neg(t->c, t->c);
	} while ((nonzero || positive) && mpq_sgn(t->c) == 0);
	return t;
}

static tn *gen(int depth)
{
	int op;
	tn *t;
	if (depth <= 0 || rnd() % 5 == 0)
		return rnd() % 5 < 3 ? tsym((int)(rnd() % NSYM)) : gen_const(0, 0);
	op = (int)rnd_range(T_ADD, T_NEG);
	switch (op) {
	case T_ADD:
	case T_SUB:
	case T_MUL:
	case T_MIN:
	case T_MAX:
		return tbin(op, gen(depth - 1), gen(depth - 1));
	case T_DIV:
		/* by a nonzero constant or by a symbol */
		return tbin(op, gen(depth - 1), rnd() & 1 ? gen_const(1, 0) : tsym((int)(rnd() % NSYM)));
	case T_FDIV:
	case T_MOD:
		/* by a positive constant or by a symbol */
		return tbin(op, gen(depth - 1), rnd() & 1 ? gen_const(1, 1) : tsym((int)(rnd() % NSYM)));
	case T_POW:
		t = tbin(op, gen(depth - 2), NULL);
		t->k = rnd() % 8 == 0 ? -1 : rnd_range(0, 3);
		return t;
	default:
		return tbin(op, gen(depth - 1), NULL);
	}
}

/* The tree in the expression syntax, fully parenthesised. */
static void tprint(FILE *f, const tn *t)
{
	static const char *const ops[] = {
	    [T_ADD] = "+", [T_SUB] = "-", [T_MUL] = "*", [T_DIV] = "/", [T_FDIV] = "//", [T_MOD] = "%"};
	switch (t->op) {
	case T_SYM:
		fprintf(f, "s%d", t->s);
		break;
	case T_CONST:
		gmp_fprintf(f, "(%Qd)", t->c);
		break;
	case T_MIN:
	case T_MAX:
		fputs(t->op == T_MIN ? "min(" : "max(", f);
		tprint(f, t->a);
		fputs(", ", f);
		tprint(f, t->b);
		fputc(')', f);
		break;
	case T_ABS:
	case T_CEIL:
	case T_FLOOR:
		fputs(t->op == T_ABS ? "abs(" : t->op == T_CEIL ? "ceil(" : "floor(", f);
		tprint(f, t->a);
		fputc(')', f);
		break;
	case T_NEG:
		fputs("(-", f);
		tprint(f, t->a);
		fputc(')', f);
		break;
	case T_POW:
		fputc('(', f);
		tprint(f, t->a);
		fprintf(f, ")**(%ld)", t->k);
		break;
	default:
		fputc('(', f);
		tprint(f, t->a);
		fprintf(f, " %s ", ops[t->op]);
		tprint(f, t->b);
		fputc(')', f);
	}
}

static char *tstr(const tn *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	tprint(f, t);
	fclose(f);
	return buf;
}

/* Independent evaluator: exact rationals, Python's // and %.  Returns 0 on
 * a division by zero. */
static int teval(const tn *t, mpz_t *vals, mpq_ptr out)
{
	mpq_t x, y;
	int ok = 1;
	switch (t->op) {
	case T_SYM:
		mpq_set_z(out, vals[t->s]);
		return 1;
	case T_CONST:
		mpq_set(out, t->c);
		return 1;
	default:
		break;
	}
	mpq_inits(x, y, NULL);
	ok = teval(t->a, vals, x) && (!t->b || teval(t->b, vals, y));
	if (ok) {
		switch (t->op) {
		case T_ADD:
			mpq_add(out, x, y);
			break;
		case T_SUB:
			mpq_sub(out, x, y);
			break;
		case T_MUL:
			mpq_mul(out, x, y);
			break;
		case T_DIV:
			if (mpq_sgn(y) == 0)
				ok = 0;
			else
				mpq_div(out, x, y);
			break;
		case T_FDIV:
		case T_MOD:
			if (mpq_sgn(y) == 0) {
				ok = 0;
				break;
			}
			{
				mpq_t q;
				mpq_init(q);
				mpq_div(q, x, y);
				mpz_fdiv_q(mpq_numref(q), mpq_numref(q), mpq_denref(q));
				mpz_set_ui(mpq_denref(q), 1);
				if (t->op == T_FDIV) {
					mpq_set(out, q);
				} else {
					mpq_mul(q, q, y);
					mpq_sub(out, x, q);
				}
				mpq_clear(q);
			}
			break;
		case T_MIN:
			mpq_set(out, mpq_cmp(x, y) <= 0 ? x : y);
			break;
		case T_MAX:
			mpq_set(out, mpq_cmp(x, y) >= 0 ? x : y);
			break;
		case T_ABS:
			mpq_abs(out, x);
			break;
		case T_NEG:
			mpq_neg(out, x);
			break;
		case T_FLOOR:
			mpz_fdiv_q(mpq_numref(out), mpq_numref(x), mpq_denref(x));
			mpz_set_ui(mpq_denref(out), 1);
			break;
		case T_CEIL:
			mpz_cdiv_q(mpq_numref(out), mpq_numref(x), mpq_denref(x));
			mpz_set_ui(mpq_denref(out), 1);
			break;
		case T_POW: {
			unsigned long k = (unsigned long)(t->k < 0 ? -t->k : t->k);
			if (t->k < 0 && mpq_sgn(x) == 0) {
				ok = 0;
				break;
			}
			mpz_pow_ui(mpq_numref(out), mpq_numref(x), k);
			mpz_pow_ui(mpq_denref(out), mpq_denref(x), k);
			if (t->k < 0)
				mpq_inv(out, out);
			break;
		}
		default:
			fail_msg("bad tree op %d", t->op);
		}
	}
	mpq_clears(x, y, NULL);
	return ok;
}

/* The library node of a tree, through the constructors. */
static const sym_expr *tbuild(sym_ctx *ctx, const tn *t)
{
	char name[8];
	const sym_expr *a, *b, *v[2];
	switch (t->op) {
	case T_SYM:
		snprintf(name, sizeof(name), "s%d", t->s);
		return sym_expr_symbol(ctx, name);
	case T_CONST:
		return sym_expr_from_mpq(ctx, t->c);
	default:
		break;
	}
	a = tbuild(ctx, t->a);
	b = t->b ? tbuild(ctx, t->b) : NULL;
	v[0] = a, v[1] = b;
	switch (t->op) {
	case T_ADD:
		return sym_expr_add(ctx, a, b);
	case T_SUB:
		return sym_expr_sub(ctx, a, b);
	case T_MUL:
		return sym_expr_mul(ctx, a, b);
	case T_DIV:
		return sym_expr_div(ctx, a, b);
	case T_FDIV:
		return sym_expr_floordiv(ctx, a, b);
	case T_MOD:
		return sym_expr_mod(ctx, a, b);
	case T_MIN:
		return sym_expr_min(ctx, 2, v);
	case T_MAX:
		return sym_expr_max(ctx, 2, v);
	case T_ABS:
		return sym_expr_abs(ctx, a);
	case T_CEIL:
		return sym_expr_ceil(ctx, a);
	case T_FLOOR:
		return sym_expr_floor(ctx, a);
	case T_NEG:
		return sym_expr_neg(ctx, a);
	case T_POW:
		return sym_expr_pow_si(ctx, a, t->k);
	default:
		return NULL;
	}
}

static const sym_expr *build_checked(sym_ctx *ctx, const tn *t)
{
	const sym_expr *e = tbuild(ctx, t);
	if (!e) {
		char *s = tstr(t);
		fail_msg("building %s failed: %s", s, sym_ctx_last_message(ctx));
	}
	return e;
}

static const sym_expr *syms[NSYM];

static void rnd_value(mpz_ptr z);

/* A random tree of the given depth and its node.  A tree whose constant
 * part divides by zero (0**-1, x % (1/2) used as a divisor) is rejected by
 * the constructors with SYM_EDIVZERO; the independent evaluator must agree
 * that it is undefined, and another tree is drawn. */
static tn *gen_built(sym_ctx *ctx, int depth, const sym_expr **out)
{
	for (;;) {
		tn *t = gen(depth);
		const sym_expr *e = tbuild(ctx, t);
		mpz_t v[NSYM];
		mpq_t q;
		int i, p;
		if (e) {
			*out = e;
			return t;
		}
		if (sym_ctx_last_error(ctx) != SYM_EDIVZERO) {
			char *s = tstr(t);
			fail_msg("building %s failed: %s", s, sym_ctx_last_message(ctx));
		}
		for (i = 0; i < NSYM; i++)
			mpz_init(v[i]);
		mpq_init(q);
		for (p = 0; p < 4; p++) {
			for (i = 0; i < NSYM; i++)
				rnd_value(v[i]);
			if (teval(t, v, q)) {
				char *s = tstr(t);
				gmp_fprintf(stderr, "value at s0=%Zd s1=%Zd s2=%Zd s3=%Zd s4=%Zd: %Qd\n",
				            v[0], v[1], v[2], v[3], v[4], q);
				fail_msg("building %s reports '%s', but the expression has a value", s,
				         sym_ctx_last_message(ctx));
			}
		}
		for (i = 0; i < NSYM; i++)
			mpz_clear(v[i]);
		mpq_clear(q);
		sym_ctx_clear_error(ctx);
		tfree(t);
	}
}

static void make_syms(sym_ctx *ctx)
{
	int i;
	for (i = 0; i < NSYM; i++) {
		char name[8];
		snprintf(name, sizeof(name), "s%d", i);
		syms[i] = sym_expr_symbol(ctx, name);
		assert_non_null(syms[i]);
	}
}

static char *estr(sym_ctx *ctx, const sym_expr *e)
{
	static char buf[2][4096];
	static int k;
	char *s = sym_expr_to_str(ctx, e), *r = buf[k++ & 1];
	snprintf(r, 4096, "%s", s ? s : "(null)");
	sym_str_free(ctx, s);
	return r;
}

static const char *pstr(mpz_t *v)
{
	static char buf[1024];
	gmp_snprintf(buf, sizeof(buf), "s0=%Zd s1=%Zd s2=%Zd s3=%Zd s4=%Zd", v[0], v[1], v[2], v[3], v[4]);
	return buf;
}

/* ---- evaluating library nodes at big points --------------------------- */

/* Evaluates e at the point through the private evaluator and through the
 * public API (eval_si when every value fits, subst of constants otherwise).
 * Returns 1 with the value, or 0 with the error status in *st; fails when
 * the two paths disagree. */
static int lib_eval(sym_ctx *ctx, const sym_expr *e, mpz_t *vals, mpq_ptr out, sym_status *st)
{
	sym_num nv[NSYM], r;
	int i, ok1, ok2, fits = 1;
	const sym_expr *pub;
	mpq_t q2;
	sym__num_init(&r);
	for (i = 0; i < NSYM; i++) {
		sym__num_init(&nv[i]);
		sym__num_set_mpz(&nv[i], vals[i]);
		if (!mpz_fits_slong_p(vals[i]))
			fits = 0;
	}
	ok1 = sym__eval_num(ctx, e, NSYM, syms, nv, &r);
	*st = sym_ctx_last_error(ctx);
	if (ok1)
		sym__num_get_mpq(out, &r);
	sym_ctx_clear_error(ctx);
	if (fits) {
		long long lv[NSYM];
		for (i = 0; i < NSYM; i++)
			lv[i] = mpz_get_si(vals[i]);
		pub = sym_expr_eval_si(ctx, e, NSYM, syms, lv);
	} else {
		const sym_expr *by[NSYM];
		for (i = 0; i < NSYM; i++)
			by[i] = sym_expr_from_mpz(ctx, vals[i]);
		pub = sym_expr_subst(ctx, e, NSYM, syms, by);
	}
	ok2 = pub != NULL;
	mpq_init(q2);
	if (ok2 && !sym_expr_get_mpq(pub, q2))
		fail_msg("%s at %s: %s gives %s, not a constant", estr(ctx, e), pstr(vals),
		         fits ? "eval_si" : "subst", estr(ctx, pub));
	if (ok1 != ok2 || (ok1 && !mpq_equal(q2, out)) || (!ok1 && sym_ctx_last_error(ctx) != *st))
		fail_msg("%s at %s: the evaluator and %s disagree (%d/%d, %s / %s)", estr(ctx, e), pstr(vals),
		         fits ? "eval_si" : "subst", ok1, ok2, sym_status_message(*st),
		         sym_status_message(sym_ctx_last_error(ctx)));
	sym_ctx_clear_error(ctx);
	mpq_clear(q2);
	for (i = 0; i < NSYM; i++)
		sym__num_clear(&nv[i]);
	sym__num_clear(&r);
	return ok1;
}

/* A random value for an unconstrained symbol: mostly small, sometimes far
 * beyond 2^64. */
static void rnd_value(mpz_ptr z)
{
	switch (rnd() % 10) {
	case 0:
	case 1:
		mpz_set_si(z, rnd_range(-1000000, 1000000));
		break;
	case 2:
	case 3:
		mpz_set_ui(z, 1);
		mpz_mul_2exp(z, z, (mp_bitcnt_t)rnd_range(60, 130));
		mpz_add_ui(z, z, rnd() >> 1);
		if (rnd() & 1)
			mpz_neg(z, z);
		break;
	default:
		mpz_set_si(z, rnd_range(-8, 8));
		break;
	}
}

/* ---- (a) print then parse --------------------------------------------- */

static void printed_text_parses_back_to_the_same_node(void **state)
{
	long iters = iters_from_env(3000), it;
	sym_ctx *ctx = NULL, *other = NULL;
	(void)state;
	for (it = 0; it < iters; it++) {
		tn *t;
		const sym_expr *e, *back, *e2;
		char *s, *s2, *tx;
		if (it % 500 == 0) {
			sym_ctx_free(ctx);
			sym_ctx_free(other);
			ctx = sym_ctx_new();
			other = sym_ctx_new();
			assert_non_null(ctx);
			assert_non_null(other);
			make_syms(ctx);
		}
		t = gen_built(ctx, (int)rnd_range(1, 5), &e);
		/* the tree's own text parses to the node the constructors built */
		tx = tstr(t);
		back = sym_expr_from_str(ctx, tx);
		if (back != e)
			fail_msg("%s parses to %s, the constructors give %s", tx,
			         back ? estr(ctx, back) : sym_ctx_last_message(ctx), estr(ctx, e));
		s = sym_expr_to_str(ctx, e);
		assert_non_null(s);
		back = sym_expr_from_str(ctx, s);
		if (back != e)
			fail_msg("%s prints as %s, which parses to %s", tx, s,
			         back ? estr(ctx, back) : sym_ctx_last_message(ctx));
		/* and a fresh context gives the same text and hash */
		e2 = sym_expr_from_str(other, s);
		if (!e2)
			fail_msg("%s does not parse in another context: %s", s, sym_ctx_last_message(other));
		s2 = sym_expr_to_str(other, e2);
		if (strcmp(s, s2))
			fail_msg("%s prints as %s in another context", s, s2);
		if (sym_expr_hash(e) != sym_expr_hash(e2))
			fail_msg("%s hashes differently in another context", s);
		sym_str_free(ctx, s);
		sym_str_free(other, s2);
		free(tx);
		tfree(t);
	}
	sym_ctx_free(ctx);
	sym_ctx_free(other);
	printf("print/parse: %ld expressions\n", iters);
}

/* The text with each symbol s<i> renamed to the name names[i] (as long as
 * s<i>; function names such as abs are left alone). */
static char *renamed(const char *text, const char *const *names)
{
	size_t n = strlen(text), i, o = 0;
	char *r = malloc(n + 1);
	assert_non_null(r);
	for (i = 0; i < n; i++) {
		int start = i == 0 || !(text[i - 1] == '_' || (text[i - 1] >= 'a' && text[i - 1] <= 'z') ||
		                        (text[i - 1] >= '0' && text[i - 1] <= '9'));
		if (start && text[i] == 's' && text[i + 1] >= '0' && text[i + 1] < '0' + NSYM &&
		    !(text[i + 2] >= '0' && text[i + 2] <= '9')) {
			memcpy(r + o, names[text[i + 1] - '0'], 2);
			o += 2, i++;
			continue;
		}
		r[o++] = text[i];
	}
	r[o] = 0;
	return r;
}

/* The printer keeps the text it chose for a small root by its pattern and
 * writes it for the next root of that pattern with that root's names.  It
 * must be the text the printer makes afresh: the root is printed after a
 * root of its pattern (a renamed copy, same order and lengths) in one
 * context and first in a fresh one. */
static void spellings_from_the_cache_match_printing_afresh(void **state)
{
	static const char *const same_order[NSYM] = {"t0", "t1", "t2", "t3", "t4"};
	static const char *const other_order[NSYM] = {"u4", "u3", "u2", "u1", "u0"};
	long iters = iters_from_env(2000), it, kept = 0;
	sym_ctx *ctx = NULL;
	(void)state;
	for (it = 0; it < iters; it++) {
		tn *t;
		const sym_expr *e, *e2, *e3;
		char *s, *tx, *tx2, *s2, *s3, *want;
		sym_ctx *fresh;
		int k;
		if (it % 500 == 0) {
			sym_ctx_free(ctx);
			ctx = sym_ctx_new();
			assert_non_null(ctx);
			make_syms(ctx);
		}
		t = gen_built(ctx, (int)rnd_range(1, 5), &e);
		s = sym_expr_to_str(ctx, e);
		assert_non_null(s);
		tx = tstr(t);
		for (k = 0; k < 2; k++) {
			tx2 = renamed(tx, k ? other_order : same_order);
			e2 = sym_expr_from_str(ctx, tx2);
			if (!e2)
				fail_msg("%s does not parse: %s", tx2, sym_ctx_last_message(ctx));
			s2 = sym_expr_to_str(ctx, e2);
			assert_non_null(s2);
			fresh = sym_ctx_new();
			assert_non_null(fresh);
			e3 = sym_expr_from_str(fresh, tx2);
			if (!e3)
				fail_msg("%s does not parse in a fresh context: %s", tx2,
				         sym_ctx_last_message(fresh));
			s3 = sym_expr_to_str(fresh, e3);
			assert_non_null(s3);
			if (strcmp(s2, s3))
				fail_msg(
				    "%s prints as %s after %s (printed %s), but as %s in a fresh context",
				    tx2, s2, tx, s, s3);
			/* renamed in the same order, the text is the first one's with
			 * the new names */
			if (!k) {
				want = renamed(s, same_order);
				if (strcmp(s2, want))
					fail_msg("%s prints as %s, but %s prints as %s", tx, s, tx2, s2);
				free(want);
			}
			sym_str_free(ctx, s2);
			sym_str_free(fresh, s3);
			sym_ctx_free(fresh);
			free(tx2);
		}
		kept += ctx->pcache_count > 0;
		sym_str_free(ctx, s);
		free(tx);
		tfree(t);
	}
	/* the cache was used: most random roots hold a sum */
	assert_true(kept > iters / 2);
	sym_ctx_free(ctx);
	printf("spelling cache: %ld roots, renamed twice each\n", iters);
}

/* ---- (b) polynomial identities ---------------------------------------- */

static const sym_expr *sum_in_order(sym_ctx *ctx, const sym_expr **v, size_t n, const size_t *perm)
{
	const sym_expr *r = sym_expr_from_si(ctx, 0);
	size_t i;
	for (i = 0; i < n; i++)
		r = sym_expr_add(ctx, r, v[perm[i]]);
	return r;
}

static void shuffle(size_t *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n; i > 1; i--) {
		size_t j = (size_t)(rnd() % i), t = p[i - 1];
		p[i - 1] = p[j], p[j] = t;
	}
}

static void polynomial_identities_give_the_same_node(void **state)
{
	long iters = iters_from_env(3000), it;
	sym_ctx *ctx = NULL;
	(void)state;
	for (it = 0; it < iters; it++) {
		const sym_expr *atom[4], *a, *b, *c, *d, *l, *r;
		tn *ta[4];
		size_t i;
		if (it % 500 == 0) {
			sym_ctx_free(ctx);
			ctx = sym_ctx_new();
			make_syms(ctx);
		}
		/* atoms: symbols, or small non-polynomial subtrees */
		for (i = 0; i < 4; i++) {
			if (rnd() % 3)
				atom[i] = build_checked(ctx, ta[i] = tsym((int)(rnd() % NSYM)));
			else
				ta[i] = gen_built(ctx, 2, &atom[i]);
		}
		/* random sums of products, added up in two shuffled orders, with
		 * the factors of each product in shuffled order too */
		{
			const sym_expr *terms1[8], *terms2[8];
			size_t nt = (size_t)rnd_range(1, 8), p1[8], p2[8];
			for (i = 0; i < nt; i++) {
				tn *k = gen_const(0, 0);
				size_t nf = (size_t)rnd_range(0, 3), j, pf[4];
				const sym_expr *f[4], *m1 = sym_expr_from_mpq(ctx, k->c), *m2;
				for (j = 0; j < nf; j++) {
					f[j] = atom[rnd() % 4];
					/* SPEC §3 decides polynomials with reciprocals of
					 * symbols and other atoms; reciprocals of sums are
					 * covered by products_with_reciprocals_of_sums_... */
					if (rnd() % 4 == 0)
						f[j] = sym_expr_pow_si(ctx, f[j],
						                       sym_expr_kind(f[j]) == SYM_KIND_ADD ||
						                               sym_expr_kind(f[j]) ==
						                                   SYM_KIND_NUM
						                           ? rnd_range(0, 3)
						                           : rnd_range(-2, 3));
				}
				f[nf] = m1;
				shuffle(pf, nf + 1);
				m1 = sym_expr_from_si(ctx, 1);
				m2 = sym_expr_from_si(ctx, 1);
				for (j = 0; j <= nf; j++) {
					m1 = sym_expr_mul(ctx, m1, f[j]);
					m2 = sym_expr_mul(ctx, f[pf[j]], m2);
				}
				if (!m1 || !m2)
					fail_msg("building a product failed: %s", sym_ctx_last_message(ctx));
				if (m1 != m2) {
					char buf[4096];
					size_t len = 0;
					for (j = 0; j <= nf; j++)
						len +=
						    (size_t)snprintf(buf + len, sizeof(buf) - len, "%s[%s]",
						                     j ? " * " : "", estr(ctx, f[j]));
					fail_msg("the product %s is %s left to right but %s in the order of "
					         "the shuffle",
					         buf, estr(ctx, m1), estr(ctx, m2));
				}
				terms1[i] = m1, terms2[i] = m2;
				tfree(k);
			}
			shuffle(p1, nt);
			shuffle(p2, nt);
			l = sum_in_order(ctx, terms1, nt, p1);
			r = sum_in_order(ctx, terms2, nt, p2);
			if (!l || !r)
				fail_msg("building sums failed: %s", sym_ctx_last_message(ctx));
			if (l != r)
				fail_msg("the same sum of products gives %s and %s", estr(ctx, l),
				         estr(ctx, r));
			/* subtracting it term by term in a third order leaves 0 */
			shuffle(p1, nt);
			for (i = 0; i < nt; i++)
				l = sym_expr_sub(ctx, l, terms2[p1[i]]);
			if (l != sym_expr_from_si(ctx, 0))
				fail_msg("sum minus its terms is %s", estr(ctx, l));
		}
		a = atom[0], b = atom[1], c = atom[2], d = atom[3];
		/* (a + b)*(c + d) == a*c + a*d + b*c + b*d */
		l = sym_expr_mul(ctx, sym_expr_add(ctx, a, b), sym_expr_add(ctx, c, d));
		r = sym_expr_add(ctx, sym_expr_add(ctx, sym_expr_mul(ctx, b, d), sym_expr_mul(ctx, a, c)),
		                 sym_expr_add(ctx, sym_expr_mul(ctx, d, a), sym_expr_mul(ctx, c, b)));
		if (!l || !r || l != r)
			fail_msg("(a + b)*(c + d): %s vs %s", l ? estr(ctx, l) : "NULL",
			         r ? estr(ctx, r) : "NULL");
		/* (a + b)**2 == a**2 + 2*a*b + b**2, (a - b)*(a + b) == a*a - b*b */
		l = sym_expr_pow_si(ctx, sym_expr_add(ctx, a, b), 2);
		r = sym_expr_add(
		    ctx, sym_expr_mul(ctx, b, b),
		    sym_expr_add(ctx, sym_expr_mul(ctx, sym_expr_from_si(ctx, 2), sym_expr_mul(ctx, b, a)),
		                 sym_expr_pow_si(ctx, a, 2)));
		if (!l || !r || l != r)
			fail_msg("(a + b)**2: %s vs %s", l ? estr(ctx, l) : "NULL",
			         r ? estr(ctx, r) : "NULL");
		l = sym_expr_mul(ctx, sym_expr_sub(ctx, a, b), sym_expr_add(ctx, b, a));
		r = sym_expr_sub(ctx, sym_expr_mul(ctx, a, a), sym_expr_pow_si(ctx, b, 2));
		if (!l || !r || l != r)
			fail_msg("(a - b)*(a + b): %s vs %s", l ? estr(ctx, l) : "NULL",
			         r ? estr(ctx, r) : "NULL");
		/* a*m/m == a for a monomial m of symbols and a nonzero constant */
		{
			const sym_expr *m = sym_expr_mul(ctx, syms[rnd() % NSYM], syms[rnd() % NSYM]);
			tn *k = gen_const(1, 0);
			m = sym_expr_mul(ctx, m, sym_expr_from_mpq(ctx, k->c));
			tfree(k);
			l = sym_expr_div(ctx, sym_expr_mul(ctx, a, m), m);
			if (l != a)
				fail_msg("(a*m)/m with a = %s, m = %s gives %s", estr(ctx, a), estr(ctx, m),
				         l ? estr(ctx, l) : sym_ctx_last_message(ctx));
		}
		/* a - b + b == a, and -(-a) == a */
		if (sym_expr_add(ctx, sym_expr_sub(ctx, a, b), b) != a)
			fail_msg("a - b + b != a for a = %s, b = %s", estr(ctx, a), estr(ctx, b));
		if (sym_expr_neg(ctx, sym_expr_neg(ctx, c)) != c)
			fail_msg("-(-c) != c for c = %s", estr(ctx, c));
		for (i = 0; i < 4; i++)
			tfree(ta[i]);
	}
	sym_ctx_free(ctx);
	printf("polynomial identities: %ld groups\n", iters);
}

/* Multiplication is associative in the canonical form also when a factor
 * is the reciprocal of a sum: (a*m)*a**-k and a*(m*a**-k) are one node. */
/* Constructors fold abs of a nonnegative expression: abs(-abs(x)) is the
 * node abs(x), which is what its printed text parses to. */
static void abs_of_a_negated_abs_is_canonical(void **state)
{
	static const char *const v[][2] = {
	    {"abs(-abs(x))", "abs(x)"},
	    {"abs(abs(x)/(-1))", "abs(x)"},
	    {"abs(-abs(x % 934))", "abs(x % 934)"},
	    {"abs(-abs(x + 1))", "abs(x + 1)"},
	};
	sym_ctx *ctx = sym_ctx_new();
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const sym_expr *a = sym_expr_from_str(ctx, v[i][0]), *b = sym_expr_from_str(ctx, v[i][1]),
		               *back;
		char *s;
		assert_non_null(a);
		assert_non_null(b);
		s = sym_expr_to_str(ctx, a);
		back = sym_expr_from_str(ctx, s);
		if (a != b || back != a)
			fail_msg("%s is the node printed %s, which parses to %s; expected %s", v[i][0], s,
			         back ? estr(ctx, back) : "(error)", v[i][1]);
		sym_str_free(ctx, s);
	}
	sym_ctx_free(ctx);
}

static void products_with_reciprocals_of_sums_are_associative(void **state)
{
	static const char *const v[][2] = {
	    {"((x + 1)*y)*(x + 1)**-1", "y"},
	    {"(x + 1)*((x + 1)**-1*y)", "y"},
	    {"((x + 1)*y)*(x + 1)**-2", "y/(x + 1)"},
	    {"((x % 5)*y)*(x % 5)**-2", "y/(x % 5)"},
	};
	long iters = iters_from_env(3000) / 10 + 1, it;
	sym_ctx *ctx = sym_ctx_new();
	size_t i;
	(void)state;
	make_syms(ctx);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const sym_expr *a = sym_expr_from_str(ctx, v[i][0]), *b = sym_expr_from_str(ctx, v[i][1]);
		assert_non_null(a);
		assert_non_null(b);
		if (a != b)
			fail_msg("%s is %s, expected %s", v[i][0], estr(ctx, a), v[i][1]);
	}
	for (it = 0; it < iters; it++) {
		const sym_expr *a, *m, *l, *r;
		tn *ta, *tm;
		long k = rnd_range(-3, -1);
		do {
			ta = gen_built(ctx, 3, &a);
			if (sym_expr_kind(a) == SYM_KIND_ADD)
				break;
			tfree(ta);
		} while (1);
		tm = gen_built(ctx, 1, &m);
		l = sym_expr_mul(ctx, sym_expr_mul(ctx, a, m), sym_expr_pow_si(ctx, a, k));
		r = sym_expr_mul(ctx, a, sym_expr_mul(ctx, m, sym_expr_pow_si(ctx, a, k)));
		if (!l || !r)
			fail_msg("a = %s, m = %s: a product failed: %s", estr(ctx, a), estr(ctx, m),
			         sym_ctx_last_message(ctx));
		/* SPEC §3 makes only symbol reciprocals canonical: with reciprocals
		 * of sums the two groupings may differ in form, never in value */
		{
			int p;
			for (p = 0; p < 8; p++) {
				const sym_expr *syms[NSYM], *lv, *rv;
				long long vals[NSYM];
				int j;
				for (j = 0; j < NSYM; j++) {
					static const char *const nm[NSYM] = {"s0", "s1", "s2", "s3", "s4"};
					syms[j] = sym_expr_symbol(ctx, nm[j]);
					vals[j] = rnd_range(-20, 20);
				}
				lv = sym_expr_eval_si(ctx, l, NSYM, syms, vals);
				rv = sym_expr_eval_si(ctx, r, NSYM, syms, vals);
				if (!lv || !rv) {
					sym_ctx_clear_error(ctx);
					continue;
				}
				if (lv != rv)
					fail_msg("a = %s, m = %s: (a*m)*a**%ld = %s and a*(m*a**%ld) = %s "
					         "differ in value",
					         estr(ctx, a), estr(ctx, m), k, estr(ctx, l), k,
					         estr(ctx, r));
			}
		}
		tfree(ta);
		tfree(tm);
	}
	sym_ctx_free(ctx);
}

/* ---- (c) exact evaluation --------------------------------------------- */

/* Points where the written tree divides by zero but the library returns a
 * value: the canonical form cancelled the division (x/x is 1). */
/* Reads the written text of t with the values substituted while parsing;
 * returns 1 when that reports a division by zero. */
static int written_divides_by_zero(sym_ctx *ctx, const tn *t, mpz_t *vals)
{
	static const char *const names[NSYM] = {"s0", "s1", "s2", "s3", "s4"};
	const sym_expr *v[NSYM], *r;
	char *text = tstr(t);
	int i, dz;
	for (i = 0; i < NSYM; i++)
		v[i] = sym_expr_from_mpz(ctx, vals[i]);
	r = sym_expr_from_str_subst(ctx, text, NSYM, names, v);
	dz = !r && sym_ctx_last_error(ctx) == SYM_EDIVZERO;
	sym_ctx_clear_error(ctx);
	free(text);
	return dz;
}

static long cancelled_divisions;
static char cancelled_example[512];

static void evaluation_agrees_with_an_independent_evaluator(void **state)
{
	long iters = iters_from_env(3000), it, points = 0, divzero = 0;
	sym_ctx *ctx = NULL;
	mpz_t vals[NSYM];
	mpq_t ref, got;
	int i;
	(void)state;
	cancelled_divisions = 0;
	for (i = 0; i < NSYM; i++)
		mpz_init(vals[i]);
	mpq_inits(ref, got, NULL);
	for (it = 0; it < iters; it++) {
		tn *t;
		const sym_expr *e;
		int p;
		if (it % 500 == 0) {
			sym_ctx_free(ctx);
			ctx = sym_ctx_new();
			make_syms(ctx);
		}
		t = gen_built(ctx, (int)rnd_range(1, 5), &e);
		for (p = 0; p < 8; p++) {
			sym_status st;
			int rok, lok;
			for (i = 0; i < NSYM; i++)
				rnd_value(vals[i]);
			rok = teval(t, vals, ref);
			lok = lib_eval(ctx, e, vals, got, &st);
			points++;
			if (rok) {
				if (!lok) {
					char *s = tstr(t);
					fail_msg("%s (canonical %s) at %s: library error '%s', expected %s",
					         s, estr(ctx, e), pstr(vals), sym_status_message(st),
					         mpq_get_str(NULL, 10, ref));
				}
				if (!mpq_equal(ref, got)) {
					char *s = tstr(t);
					gmp_fprintf(stderr, "expected %Qd\ngot      %Qd\n", ref, got);
					fail_msg("%s (canonical %s) at %s: wrong value", s, estr(ctx, e),
					         pstr(vals));
				}
			} else {
				divzero++;
				/* the canonical form may have cancelled the division (x//x is
				 * 1 by SPEC §3); evaluated as written it must be an error */
				if (lok && !written_divides_by_zero(ctx, t, vals)) {
					if (!cancelled_divisions++) {
						char *s = tstr(t);
						gmp_snprintf(cancelled_example, sizeof(cancelled_example),
						             "%s (canonical %s) at %s gives %Qd", s,
						             estr(ctx, e), pstr(vals), got);
						free(s);
					}
				} else if (!lok && st != SYM_EDIVZERO) {
					char *s = tstr(t);
					fail_msg("%s at %s divides by zero; library status %s", s, pstr(vals),
					         sym_status_message(st));
				}
			}
		}
		tfree(t);
	}
	sym_ctx_free(ctx);
	for (i = 0; i < NSYM; i++)
		mpz_clear(vals[i]);
	mpq_clears(ref, got, NULL);
	printf("evaluation: %ld expressions, %ld points, %ld divide by zero (%ld of them cancelled in the "
	       "canonical form)\n",
	       iters, points, divzero, cancelled_divisions);
}

/* ---- the normal forms of floors, min and max --------------------------- */

static tn *t_sym(int i)
{
	tn *t = tnew(T_SYM);
	t->s = i;
	return t;
}

static tn *t_int(long v)
{
	tn *t = tnew(T_CONST);
	mpq_set_si(t->c, v, 1);
	return t;
}

static tn *t_op(int op, tn *a, tn *b)
{
	tn *t = tnew(op);
	t->a = a, t->b = b;
	return t;
}

/* a*s_i + b*s_j + c with small coefficients (b may be 0). */
static tn *t_lin(void)
{
	tn *t = t_op(T_MUL, t_int(rnd_range(-9, 9)), t_sym((int)rnd_range(0, 2)));
	if (rnd() % 2)
		t = t_op(T_ADD, t, t_op(T_MUL, t_int(rnd_range(-9, 9)), t_sym((int)rnd_range(0, 2))));
	return t_op(T_ADD, t, t_int(rnd_range(-20, 20)));
}

/* floor(lin/d) + k, floor(-lin/d), ceil(lin/d), or a floor of a floor. */
static tn *t_floor(long d)
{
	tn *t;
	switch (rnd() % 4) {
	case 0:
		t = t_op(T_FDIV, t_lin(), t_int(d));
		break;
	case 1:
		t = t_op(T_NEG, t_op(T_FDIV, t_op(T_NEG, t_lin(), NULL), t_int(d)), NULL);
		break;
	case 2:
		t = t_op(T_CEIL, t_op(T_DIV, t_lin(), t_int(d)), NULL);
		break;
	default:
		t = t_op(T_FDIV,
		         t_op(T_ADD, t_op(T_FDIV, t_lin(), t_int(rnd_range(2, 5))), t_int(rnd_range(-3, 3))),
		         t_int(d));
		break;
	}
	return rnd() % 2 ? t_op(T_ADD, t, t_int(rnd_range(-4, 4))) : t;
}

/* A tree in the shapes the normal forms rewrite: floors with negative or
 * complementary coefficients, min/max of floors with integer offsets,
 * min/max of negated arguments and of scaled min/max, a sum around a
 * min/max, and modulo with an offset. */
static tn *gen_form(void)
{
	long d = rnd_range(2, 9);
	int mm = rnd() % 2 ? T_MIN : T_MAX;
	switch (rnd() % 7) {
	case 0:
		return t_floor(d);
	case 1:
		return t_op(mm, t_floor(d), t_floor(rnd() % 3 ? d : rnd_range(2, 9)));
	case 2:
		return t_op(mm, t_op(T_NEG, t_lin(), NULL), t_op(T_NEG, t_lin(), NULL));
	case 3:
		return t_op(
		    mm, t_lin(),
		    t_op(T_MUL, t_int(rnd_range(-3, 3)), t_op(rnd() % 2 ? T_MIN : T_MAX, t_lin(), t_lin())));
	case 4:
		return t_op(T_ADD, t_op(mm, t_int(rnd_range(-2, 2)), t_lin()), t_lin());
	case 5:
		return t_op(T_MOD, t_op(T_ADD, t_lin(), t_int(rnd_range(0, 40))), t_int(d));
	default:
		return t_op(T_SUB, t_op(T_MOD, t_lin(), t_int(d)),
		            t_op(T_MOD, t_op(T_ADD, t_lin(), t_int(1)), t_int(d)));
	}
}

/* Each tree in the rewritten shapes: the canonical node has the tree's
 * value at random points, prints to a text that parses back to the same
 * pointer, and simplifies to a node of the same value that simplifies to
 * itself; (x + r) % q == c relations keep their truth value. */
static void floor_and_minmax_normal_forms_keep_the_value(void **state)
{
	long iters = iters_from_env(3000), it, points = 0;
	sym_ctx *ctx = NULL;
	mpz_t vals[NSYM];
	mpq_t ref, got, got2;
	int i;
	(void)state;
	for (i = 0; i < NSYM; i++)
		mpz_init(vals[i]);
	mpq_inits(ref, got, got2, NULL);
	for (it = 0; it < iters; it++) {
		tn *t = gen_form();
		const sym_expr *e, *sm, *back, *rel = NULL, *rels = NULL;
		char *s;
		long c = 0;
		int p;
		if (it % 500 == 0) {
			sym_ctx_free(ctx);
			ctx = sym_ctx_new();
			make_syms(ctx);
		}
		e = build_checked(ctx, t);
		s = sym_expr_to_str(ctx, e);
		assert_non_null(s);
		back = sym_expr_from_str(ctx, s);
		if (back != e) {
			char *w = tstr(t);
			fail_msg("%s: printed '%s' parses to '%s', another node", w, s,
			         back ? estr(ctx, back) : "error");
		}
		sym_str_free(ctx, s);
		sm = sym_simplify(ctx, NULL, e);
		assert_non_null(sm);
		if (sym_simplify(ctx, NULL, sm) != sm) {
			char *w = tstr(t);
			fail_msg("%s: simplify is not idempotent (%s)", w, estr(ctx, sm));
		}
		if (t->op == T_MOD) {
			c = rnd_range(-1, 9);
			rel = sym_expr_rel(ctx, SYM_REL_EQ, e, sym_expr_from_si(ctx, c));
			assert_non_null(rel);
			rels = sym_simplify(ctx, NULL, rel);
			assert_non_null(rels);
		}
		for (p = 0; p < 8; p++) {
			sym_status st;
			for (i = 0; i < NSYM; i++)
				mpz_set_si(vals[i],
				           rnd() % 4 ? rnd_range(-60, 60) : rnd_range(-1000000, 1000000));
			if (!teval(t, vals, ref))
				fail_msg("no value");
			points++;
			if (!lib_eval(ctx, e, vals, got, &st) || !mpq_equal(ref, got)) {
				char *w = tstr(t);
				fail_msg("%s (canonical %s) at %s: wrong value", w, estr(ctx, e), pstr(vals));
			}
			if (!lib_eval(ctx, sm, vals, got2, &st) || !mpq_equal(ref, got2)) {
				char *w = tstr(t);
				fail_msg("%s (simplified %s) at %s: wrong value", w, estr(ctx, sm),
				         pstr(vals));
			}
			if (rel) {
				int want = mpq_cmp_si(ref, c, 1) == 0;
				long long lv[NSYM];
				const sym_expr *tv = sym_expr_bool(ctx, want);
				for (i = 0; i < NSYM; i++)
					lv[i] = mpz_get_si(vals[i]);
				if (sym_expr_eval_si(ctx, rel, NSYM, syms, lv) != tv ||
				    sym_expr_eval_si(ctx, rels, NSYM, syms, lv) != tv) {
					char *w = tstr(t);
					fail_msg("%s == %ld (canonical %s, simplified %s) at %s: wrong truth "
					         "value",
					         w, c, estr(ctx, rel), estr(ctx, rels), pstr(vals));
				}
			}
		}
		tfree(t);
	}
	sym_ctx_free(ctx);
	for (i = 0; i < NSYM; i++)
		mpz_clear(vals[i]);
	mpq_clears(ref, got, got2, NULL);
	printf("normal forms: %ld expressions, %ld points\n", iters, points);
}

/* SPEC §2: "Division or modulo by zero is an error when evaluated, never a
 * silent value."  The canonical form (SPEC §3) cancels x/x to 1 before any
 * evaluation; the written form, read with the values substituted
 * (sym_expr_from_str_subst, what `symshape eval` does), must report it. */
static void division_by_zero_in_the_written_expression_is_reported(void **state)
{
	(void)state;
	if (cancelled_divisions)
		fail_msg("%ld points divide by zero as written but evaluate to a value; e.g. %s",
		         cancelled_divisions, cancelled_example);
}

/* ---- random facts ----------------------------------------------------- */

typedef struct facts_spec {
	int has_lo[NSYM], has_hi[NSYM];
	long lo[NSYM], hi[NSYM];
	long mod[NSYM], res[NSYM];
	long default_min;
	int has_default_min;
	/* s4 == c0 + sum ci*si (i < 4), when def is set */
	int def;
	long dc[NSYM];
	/* a linear fact kept for witnesses: s0 + s1 >= lin */
	int has_lin;
	long lin;
} facts_spec;

static void gen_facts(facts_spec *fs)
{
	int i;
	memset(fs, 0, sizeof(*fs));
	fs->def = rnd() % 5 == 0;
	fs->has_default_min = !fs->def && rnd() % 4 == 0;
	fs->default_min = rnd_range(0, 1);
	for (i = 0; i < NSYM; i++) {
		if (i == 4 && fs->def)
			break;
		if (rnd() % 2) {
			fs->has_lo[i] = 1;
			fs->lo[i] = rnd_range(-5, 5);
		}
		if (rnd() % 3 == 0) {
			fs->has_hi[i] = 1;
			long base = fs->has_lo[i] ? fs->lo[i] : rnd_range(-5, 5);
			if (fs->has_default_min && base < fs->default_min)
				base = fs->default_min;
			fs->hi[i] = base + rnd_range(9, 30); /* room for every residue class */
		}
		if (rnd() % 3 == 0) {
			static const long ms[] = {2, 3, 4, 8, 6};
			fs->mod[i] = ms[rnd() % 5];
			fs->res[i] = rnd_range(0, fs->mod[i] - 1);
		}
	}
	if (fs->def)
		for (i = 0; i < NSYM; i++)
			fs->dc[i] = rnd_range(-3, 3);
	fs->has_lin = rnd() % 4 == 0;
	fs->lin = rnd_range(0, 6);
}

/* The facts as predicates in the expression syntax; returns how many. */
static int facts_text(const facts_spec *fs, char out[][96])
{
	int i, n = 0;
	for (i = 0; i < NSYM; i++) {
		if (fs->has_lo[i])
			snprintf(out[n++], 96, "s%d >= %ld", i, fs->lo[i]);
		if (fs->has_hi[i])
			snprintf(out[n++], 96, "s%d <= %ld", i, fs->hi[i]);
		if (fs->mod[i])
			snprintf(out[n++], 96, "s%d %% %ld == %ld", i, fs->mod[i], fs->res[i]);
	}
	if (fs->def)
		snprintf(out[n++], 96, "s4 == %ld + %ld*s0 + %ld*s1 + %ld*s2 + %ld*s3", fs->dc[4], fs->dc[0],
		         fs->dc[1], fs->dc[2], fs->dc[3]);
	if (fs->has_lin)
		snprintf(out[n++], 96, "s0 + s1 >= %ld", fs->lin);
	return n;
}

static const char *facts_str(const facts_spec *fs);

static sym_facts *make_facts(sym_ctx *ctx, const facts_spec *fs)
{
	char txt[4 * NSYM + 4][96];
	int n = facts_text(fs, txt), i;
	sym_facts *f = sym_facts_new(ctx);
	assert_non_null(f);
	if (fs->has_default_min)
		assert_int_equal(sym_facts_set_default_min(f, fs->default_min), SYM_EOK);
	for (i = 0; i < n; i++) {
		const sym_expr *p = sym_expr_from_str(ctx, txt[i]);
		sym_status st;
		if (!p)
			fail_msg("%s: %s", txt[i], sym_ctx_last_message(ctx));
		st = sym_facts_assume(f, p);
		if (st != SYM_EOK)
			fail_msg("assuming %s after %s: %s", txt[i], facts_str(fs),
			         sym_ctx_last_message(ctx));
	}
	return f;
}

static const char *facts_str(const facts_spec *fs)
{
	static char buf[1024];
	char txt[4 * NSYM + 4][96];
	int n = facts_text(fs, txt), i;
	size_t len = 0;
	buf[0] = 0;
	if (fs->has_default_min)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "[default min %ld] ", fs->default_min);
	for (i = 0; i < n && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ", " : "", txt[i]);
	return buf;
}

/* Whether the point satisfies every fact. */
static int admissible(const facts_spec *fs, mpz_t *v)
{
	int i;
	mpz_t t;
	int ok = 1;
	mpz_init(t);
	for (i = 0; i < NSYM && ok; i++) {
		if (fs->def && i == 4)
			break;
		if (fs->has_default_min && mpz_cmp_si(v[i], fs->default_min) < 0)
			ok = 0;
		if (fs->has_lo[i] && mpz_cmp_si(v[i], fs->lo[i]) < 0)
			ok = 0;
		if (fs->has_hi[i] && mpz_cmp_si(v[i], fs->hi[i]) > 0)
			ok = 0;
		if (fs->mod[i] && mpz_fdiv_ui(v[i], (unsigned long)fs->mod[i]) != (unsigned long)fs->res[i])
			ok = 0;
	}
	if (ok && fs->def) {
		mpz_set_si(t, fs->dc[4]);
		for (i = 0; i < 4; i++) {
			mpz_t u;
			mpz_init(u);
			mpz_mul_si(u, v[i], fs->dc[i]);
			mpz_add(t, t, u);
			mpz_clear(u);
		}
		if (mpz_cmp(t, v[4]) != 0)
			ok = 0;
		if (fs->has_default_min && mpz_cmp_si(v[4], fs->default_min) < 0)
			ok = 0;
	}
	if (ok && fs->has_lin) {
		mpz_add(t, v[0], v[1]);
		if (mpz_cmp_si(t, fs->lin) < 0)
			ok = 0;
	}
	mpz_clear(t);
	return ok;
}

/* A random admissible point (rejection sampling over values drawn inside
 * each symbol's range and residue class).  Returns 0 when none was found. */
static int rnd_admissible(const facts_spec *fs, mpz_t *v)
{
	int tries, i;
	for (tries = 0; tries < 200; tries++) {
		for (i = 0; i < NSYM; i++) {
			long lo = fs->has_lo[i] ? fs->lo[i] : LONG_MIN;
			if (fs->has_default_min && fs->default_min > lo)
				lo = fs->default_min;
			if (fs->has_hi[i]) {
				long l = lo == LONG_MIN ? fs->hi[i] - 40 : lo;
				mpz_set_si(v[i], rnd_range(l, fs->hi[i]));
			} else {
				rnd_value(v[i]);
				if (lo != LONG_MIN && mpz_cmp_si(v[i], lo) < 0) {
					if (rnd() & 1)
						mpz_neg(v[i], v[i]);
					if (mpz_cmp_si(v[i], lo) < 0)
						mpz_set_si(v[i], lo + rnd_range(0, 10));
				}
			}
			if (fs->mod[i]) {
				/* move to the residue class, upwards */
				unsigned long r = mpz_fdiv_ui(v[i], (unsigned long)fs->mod[i]);
				long d = fs->res[i] - (long)r;
				if (d < 0)
					d += fs->mod[i];
				mpz_add_ui(v[i], v[i], (unsigned long)d);
			}
		}
		if (fs->def) {
			mpz_set_si(v[4], fs->dc[4]);
			for (i = 0; i < 4; i++) {
				mpz_t u;
				mpz_init(u);
				mpz_mul_si(u, v[i], fs->dc[i]);
				mpz_add(v[4], v[4], u);
				mpz_clear(u);
			}
		}
		if (admissible(fs, v))
			return 1;
	}
	return 0;
}

/* ---- (d) simplification under facts ----------------------------------- */

static void simplify_keeps_the_value_and_is_idempotent(void **state)
{
	long iters = iters_from_env(2000), it, points = 0, changed = 0;
	sym_ctx *ctx = NULL;
	sym_facts *f = NULL;
	facts_spec fs;
	mpz_t vals[NSYM];
	mpq_t ref, got;
	int i;
	double t0 = now();
	(void)state;
	for (i = 0; i < NSYM; i++)
		mpz_init(vals[i]);
	mpq_inits(ref, got, NULL);
	for (it = 0; it < iters; it++) {
		tn *t;
		const sym_expr *e, *s1, *s2;
		int p;
		if (it % 25 == 0) {
			sym_facts_free(f);
			if (it % 500 == 0) {
				sym_ctx_free(ctx);
				ctx = sym_ctx_new();
				make_syms(ctx);
			}
			gen_facts(&fs);
			f = make_facts(ctx, &fs);
		}
		t = gen_built(ctx, (int)rnd_range(1, 5), &e);
		s1 = sym_simplify(ctx, f, e);
		if (!s1 && sym_ctx_last_error(ctx) == SYM_EDIVZERO) {
			/* only sound when the expression is undefined at every
			 * admissible point: check the ones we can find */
			for (p = 0; p < 6; p++) {
				if (!rnd_admissible(&fs, vals))
					break;
				if (teval(t, vals, ref)) {
					char *s = tstr(t);
					fail_msg("simplify %s under %s reports division by zero, but at %s "
					         "the value is %s",
					         s, facts_str(&fs), pstr(vals), mpq_get_str(NULL, 10, ref));
				}
			}
			sym_ctx_clear_error(ctx);
			tfree(t);
			continue;
		}
		if (!s1) {
			char *s = tstr(t);
			fail_msg("simplify %s under %s failed: %s", s, facts_str(&fs),
			         sym_ctx_last_message(ctx));
		}
		if (s1 != e)
			changed++;
		s2 = sym_simplify(ctx, f, s1);
		if (s2 != s1) {
			char *s = tstr(t);
			fail_msg("simplify is not idempotent under %s: %s -> %s -> %s", facts_str(&fs), s,
			         estr(ctx, s1), s2 ? estr(ctx, s2) : sym_ctx_last_message(ctx));
		}
		for (p = 0; p < 6; p++) {
			sym_status st;
			if (!rnd_admissible(&fs, vals))
				break;
			if (!teval(t, vals, ref))
				continue; /* the written expression is undefined there */
			points++;
			if (!lib_eval(ctx, s1, vals, got, &st) || !mpq_equal(ref, got)) {
				char *s = tstr(t), *gs = mpq_get_str(NULL, 10, got),
				     *rs = mpq_get_str(NULL, 10, ref);
				fail_msg(
				    "under %s: %s simplifies to %s; at %s the value is %s, simplified %s",
				    facts_str(&fs), s, estr(ctx, s1), pstr(vals), rs,
				    st == SYM_EOK ? gs : sym_status_message(st));
			}
		}
		tfree(t);
	}
	sym_facts_free(f);
	sym_ctx_free(ctx);
	for (i = 0; i < NSYM; i++)
		mpz_clear(vals[i]);
	mpq_clears(ref, got, NULL);
	printf("simplify: %ld expressions (%ld changed), %ld admissible points checked, %.2f s\n", iters,
	       changed, points, now() - t0);
}

/* ---- (e) sym_equal ------------------------------------------------------ */

/* A tree that is 0 at every admissible point of fs but not canonically 0,
 * or NULL when fs gives nothing to build one from. */
static tn *zero_under_facts(const facts_spec *fs)
{
	int i = (int)(rnd() % NSYM), k;
	for (k = 0; k < NSYM; k++, i = (i + 1) % NSYM) {
		if (fs->mod[i] && !(fs->def && i == 4)) /* s % m - r */
			return tbin(T_SUB, tbin(T_MOD, tsym(i), tconst_si(fs->mod[i])),
			            tconst_si(fs->res[i]));
		if (fs->has_lo[i] && !(fs->def && i == 4)) /* max(s, lo) - s */
			return tbin(T_SUB, tbin(T_MAX, tsym(i), tconst_si(fs->lo[i])), tsym(i));
		if (fs->has_hi[i] && !(fs->def && i == 4)) /* min(s, hi) - s */
			return tbin(T_SUB, tbin(T_MIN, tsym(i), tconst_si(fs->hi[i])), tsym(i));
	}
	if (fs->def) {
		tn *d = tconst_si(fs->dc[4]);
		for (i = 0; i < 4; i++)
			d = tbin(T_ADD, d, tbin(T_MUL, tconst_si(fs->dc[i]), tsym(i)));
		return tbin(T_SUB, tsym(4), d);
	}
	return NULL;
}

static void equal_answers_hold_at_admissible_points(void **state)
{
	long iters = iters_from_env(2000), it, ntrue = 0, nfalse = 0, nunknown = 0, witness_undefined = 0;
	sym_ctx *ctx = NULL;
	sym_facts *f = NULL;
	facts_spec fs;
	mpz_t vals[NSYM];
	mpq_t x, y;
	int i;
	(void)state;
	for (i = 0; i < NSYM; i++)
		mpz_init(vals[i]);
	mpq_inits(x, y, NULL);
	for (it = 0; it < iters; it++) {
		tn *t1, *t2;
		const sym_expr *a, *b;
		sym_witness w;
		sym_truth r;
		int p;
		if (it % 25 == 0) {
			sym_facts_free(f);
			if (it % 500 == 0) {
				sym_ctx_free(ctx);
				ctx = sym_ctx_new();
				make_syms(ctx);
			}
			gen_facts(&fs);
			f = make_facts(ctx, &fs);
		}
		t1 = gen_built(ctx, (int)rnd_range(1, 4), &a);
		switch (rnd() % 4) {
		case 0: /* equal under the facts */
			t2 = zero_under_facts(&fs);
			t2 = t2 ? tbin(T_ADD, tcopy(t1), t2) : tcopy(t1);
			break;
		case 1: /* differs by something that may or may not vanish */
			t2 = tbin(T_ADD, tcopy(t1), gen(2));
			break;
		case 2: /* off by one where a fact may or may not decide it */
			t2 = tbin(T_ADD, tcopy(t1), tbin(T_MOD, tsym((int)(rnd() % NSYM)), tconst_si(2)));
			break;
		default:
			t2 = gen((int)rnd_range(1, 4));
		}
		b = tbuild(ctx, t2);
		if (!b) {
			/* t2 added a constant division by zero: draw again */
			assert_int_equal(sym_ctx_last_error(ctx), SYM_EDIVZERO);
			sym_ctx_clear_error(ctx);
			tfree(t1);
			tfree(t2);
			continue;
		}
		r = sym_equal(ctx, f, a, b, &w);
		if (r == SYM_ERROR && sym_ctx_last_error(ctx) == SYM_EDIVZERO) {
			/* sound only when one side is undefined at every
			 * admissible point: check the ones we can find */
			for (p = 0; p < 8; p++) {
				if (!rnd_admissible(&fs, vals))
					break;
				if (teval(t1, vals, x) && teval(t2, vals, y)) {
					char *s1 = tstr(t1), *s2 = tstr(t2);
					fail_msg("equal(%s, %s) under %s reports division by zero, but both "
					         "are defined at %s",
					         s1, s2, facts_str(&fs), pstr(vals));
				}
			}
			sym_ctx_clear_error(ctx);
			tfree(t1);
			tfree(t2);
			continue;
		}
		if (r == SYM_ERROR) {
			char *s1 = tstr(t1), *s2 = tstr(t2);
			fail_msg("equal(%s, %s) under %s: %s", s1, s2, facts_str(&fs),
			         sym_ctx_last_message(ctx));
		}
		if (r == SYM_FALSE) {
			size_t j;
			nfalse++;
			/* symbols the witness leaves out take any admissible value */
			if (!rnd_admissible(&fs, vals))
				fail_msg("no admissible point under %s", facts_str(&fs));
			/* every symbol of a and b must have a value */
			{
				const sym_expr *need[NSYM * 2];
				size_t n1 = sym_expr_symbols(ctx, a, need, NSYM), n2, k;
				n2 = sym_expr_symbols(ctx, b, need + n1, NSYM);
				for (k = 0; k < n1 + n2; k++) {
					for (j = 0; j < w.n; j++)
						if (w.syms[j] == need[k])
							break;
					if (j == w.n)
						fail_msg("equal(%s, %s): the witness has no value for %s",
						         estr(ctx, a), estr(ctx, b),
						         sym_expr_symbol_name(need[k]));
				}
			}
			for (j = 0; j < w.n; j++) {
				const char *nm = sym_expr_symbol_name(w.syms[j]);
				mpq_t q;
				assert_non_null(nm);
				mpq_init(q);
				if (!sym_expr_get_mpq(w.vals[j], q) || mpz_cmp_ui(mpq_denref(q), 1) != 0)
					fail_msg("witness value of %s is not an integer", nm);
				mpz_set(vals[nm[1] - '0'], mpq_numref(q));
				mpq_clear(q);
			}
			if (!admissible(&fs, vals))
				fail_msg("equal(%s, %s) under %s: the witness %s is not admissible",
				         estr(ctx, a), estr(ctx, b), facts_str(&fs), pstr(vals));
			if (teval(t1, vals, x) && teval(t2, vals, y)) {
				if (mpq_equal(x, y))
					fail_msg("equal(%s, %s) under %s says false, but at the witness %s "
					         "both are %s",
					         estr(ctx, a), estr(ctx, b), facts_str(&fs), pstr(vals),
					         mpq_get_str(NULL, 10, x));
			} else {
				witness_undefined++;
			}
			sym_witness_clear(ctx, &w);
		} else if (r == SYM_TRUE) {
			ntrue++;
			for (p = 0; p < 16; p++) {
				if (!rnd_admissible(&fs, vals))
					break;
				if (teval(t1, vals, x) && teval(t2, vals, y) && !mpq_equal(x, y)) {
					char *s1 = tstr(t1), *s2 = tstr(t2);
					fail_msg("equal(%s, %s) under %s says true, but at %s they differ",
					         s1, s2, facts_str(&fs), pstr(vals));
				}
			}
		} else {
			nunknown++;
		}
		tfree(t1);
		tfree(t2);
	}
	sym_facts_free(f);
	sym_ctx_free(ctx);
	for (i = 0; i < NSYM; i++)
		mpz_clear(vals[i]);
	mpq_clears(x, y, NULL);
	printf(
	    "equal: %ld pairs: %ld true, %ld false (%ld witnesses where the written trees divide by zero), "
	    "%ld unknown\n",
	    iters, ntrue, nfalse, witness_undefined, nunknown);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(printed_text_parses_back_to_the_same_node, setup_seed),
	    cmocka_unit_test_setup(spellings_from_the_cache_match_printing_afresh, setup_seed),
	    cmocka_unit_test_setup(polynomial_identities_give_the_same_node, setup_seed),
	    cmocka_unit_test_setup(evaluation_agrees_with_an_independent_evaluator, setup_seed),
	    cmocka_unit_test_setup(simplify_keeps_the_value_and_is_idempotent, setup_seed),
	    cmocka_unit_test_setup(equal_answers_hold_at_admissible_points, setup_seed),
	    cmocka_unit_test(abs_of_a_negated_abs_is_canonical),
	    cmocka_unit_test_setup(products_with_reciprocals_of_sums_are_associative, setup_seed),
	    cmocka_unit_test(division_by_zero_in_the_written_expression_is_reported),
	    cmocka_unit_test_setup(floor_and_minmax_normal_forms_keep_the_value, setup_seed),
	};
	printf("SYM_TEST_SEED=%llu\n", (unsigned long long)seed_from_env());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
