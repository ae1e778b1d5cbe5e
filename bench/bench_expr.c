/* bench_expr: the expression workloads W1-W5 of BENCH.md against symshape.
 *
 * Prints one measurement per line, `WORKLOAD METRIC VALUE` (times are
 * medians over the repetitions), `check WORKLOAD NAME VALUE ok|FAIL(...)` for
 * checksums, `mem`, `target` and `note` lines.  Each repetition runs in a
 * fresh context so that no run finds the previous run's nodes interned.
 * Random parameters come from MT19937 (init_genrand(0)), a fresh generator
 * per workload, all drawn before timing.  Exits 1 when a checksum fails or
 * the library reports an error.
 *
 * Usage: bench_expr [--reps N]   (default 11 repetitions) */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "symshape/symshape.h"
#include "symshape/json.h"

#include "bench_common.h"

#define NSYMS 8
#define W1_ITERS 2000
#define W1_TERMS 15372
#define W4_EXPRS 1000
#define W4_SUM 159174571LL
#define W5_PAIRS 10000
#define MAX_REPS 101

static int reps = 11;

static void target(const char *what, int met)
{
	printf("target %s %s\n", what, met ? "ok" : "miss");
}

/* Stops the run when the context holds an error: a NULL result means the
 * library failed, and no later number would mean anything. */
static void need(sym_ctx *ctx, const void *p, const char *where)
{
	if (p && sym_ctx_last_error(ctx) == SYM_EOK)
		return;
	printf("error %s: %s (status %d)\n", where, sym_ctx_last_message(ctx), (int)sym_ctx_last_error(ctx));
	fflush(stdout);
	exit(1);
}

static sym_ctx *new_ctx(const sym_expr **s)
{
	sym_ctx *ctx = sym_ctx_new();

	if (!ctx) {
		printf("error sym_ctx_new: out of memory\n");
		exit(1);
	}
	for (int i = 0; i < NSYMS; i++) {
		char name[8];

		snprintf(name, sizeof name, "s%d", i);
		s[i] = sym_expr_symbol(ctx, name);
		need(ctx, s[i], "sym_expr_symbol");
	}
	return ctx;
}

static char *to_str(sym_ctx *ctx, const sym_expr *e)
{
	char *t = sym_expr_to_str(ctx, e);

	need(ctx, t, "sym_expr_to_str");
	return t;
}

/* Counts the terms of a canonical sum (non-constant terms, plus one for a
 * nonzero constant) from its structure (the JSON form: the printed text may
 * show a product of sums factored). */
static long count_terms(sym_ctx *ctx, const sym_expr *e)
{
	long long v;
	long n;
	cJSON *j, *t, *c;

	if (sym_expr_get_si(e, &v) == 1)
		return v != 0;
	if (sym_expr_kind(e) != SYM_KIND_ADD)
		return 1;
	j = sym_expr_to_json(ctx, e);
	need(ctx, j, "sym_expr_to_json");
	t = cJSON_GetObjectItemCaseSensitive(j, "terms");
	c = cJSON_GetObjectItemCaseSensitive(j, "const");
	n = cJSON_GetArraySize(t) + (cJSON_IsString(c) && strcmp(c->valuestring, "0") != 0);
	cJSON_Delete(j);
	return n;
}

static long count_substr(const char *s, const char *sub)
{
	long n = 0;
	size_t len = strlen(sub);

	for (const char *p = strstr(s, sub); p; p = strstr(p + len, sub))
		n++;
	return n;
}

static void report_mem(const char *workload, sym_ctx *ctx, int limit)
{
	size_t bytes = 0;
	size_t nodes = sym_ctx_node_count(ctx, &bytes);
	double per = nodes ? (double)bytes / (double)nodes : 0.0;

	printf("mem %s nodes %zu\n", workload, nodes);
	printf("mem %s bytes %zu\n", workload, bytes);
	printf("mem %s bytes_per_node %.1f\n", workload, per);
	printf("target mem_%s bytes_per_node<%d %s\n", workload, limit, per < limit ? "ok" : "miss");
}

/* W1: small polynomials. */

typedef struct w1_param {
	int c[4], i[4], j[4], k;
} w1_param;

/* Evaluates every result at s_i = i + 2 and compares it with the same
 * polynomial computed in machine integers. */
static long w1_value_mismatches(sym_ctx *ctx, const sym_expr *const *s, const w1_param *p,
                                const sym_expr *const *res)
{
	long long v[NSYMS];
	long bad = 0;

	for (int i = 0; i < NSYMS; i++)
		v[i] = i + 2;
	for (int it = 0; it < W1_ITERS; it++) {
		const w1_param *q = &p[it];
		const sym_expr *c = sym_expr_eval_si(ctx, res[it], NSYMS, s, v);
		long long want = 0, got;

		need(ctx, c, "W1 eval");
		for (int m = 0; m < 4; m++)
			want += q->c[m] * v[q->i[m]] * v[q->j[m]];
		want *= v[q->k] + 1;
		if (sym_expr_get_si(c, &got) != 1 || got != want)
			bad++;
	}
	return bad;
}

/* Draws the parameters of one W1 iteration. */
static void w1_draw(mt19937 *g, w1_param *q)
{
	for (int m = 0; m < 4; m++) {
		q->c[m] = mt_rand(g, 1, 5);
		q->i[m] = mt_rand(g, 0, 7);
		q->j[m] = mt_rand(g, 0, 7);
	}
	q->k = mt_rand(g, 0, 7);
}

/* One W1 iteration: (sum of c_m*s_i*s_j) * (s_k + 1). */
static const sym_expr *w1_build_one(sym_ctx *ctx, const sym_expr *const *s, const w1_param *q)
{
	const sym_expr *e = sym_expr_from_si(ctx, 0);

	for (int m = 0; m < 4; m++) {
		const sym_expr *c = sym_expr_from_si(ctx, q->c[m]);

		e = sym_expr_add(ctx, e, sym_expr_mul(ctx, sym_expr_mul(ctx, c, s[q->i[m]]), s[q->j[m]]));
	}
	return sym_expr_mul(ctx, e, sym_expr_add(ctx, s[q->k], sym_expr_from_si(ctx, 1)));
}

static void w1(void)
{
	static w1_param p[W1_ITERS];
	static const sym_expr *res[W1_ITERS];
	double t[MAX_REPS];
	mt19937 g;

	mt_init(&g, 0);
	for (int it = 0; it < W1_ITERS; it++)
		w1_draw(&g, &p[it]);
	for (int r = 0; r < reps; r++) {
		const sym_expr *s[NSYMS];
		sym_ctx *ctx = new_ctx(s);
		double t0 = now_sec();

		for (int it = 0; it < W1_ITERS; it++)
			res[it] = w1_build_one(ctx, s, &p[it]);
		t[r] = now_sec() - t0;
		need(ctx, res[W1_ITERS - 1], "W1");
		if (r == 0) {
			long total = 0;

			printf("W1 iters %d\n", W1_ITERS);
			report_mem("W1", ctx, 64);
			for (int it = 0; it < W1_ITERS; it++) {
				need(ctx, res[it], "W1");
				total += count_terms(ctx, res[it]);
			}
			check_si("W1", "terms", total, W1_TERMS);
			check_si("W1", "value_mismatches", w1_value_mismatches(ctx, s, p, res), 0);
		}
		sym_ctx_free(ctx);
	}
	double us = median(t, reps) / W1_ITERS * 1e6;
	printf("W1 per_iter_us %.4g\n", us);
	target("W1 per_iter_us<2.4", us < 2.4);
}

/* W1's construction alone, once, for n iterations: what an instruction
 * count (compare.py runs it under callgrind for two n) divides by the
 * iterations, the parameters drawn in the loop as a caller would. */
static int w1_build(long n)
{
	const sym_expr *s[NSYMS], *e = NULL;
	sym_ctx *ctx = new_ctx(s);
	mt19937 g;

	mt_init(&g, 0);
	for (long it = 0; it < n; it++) {
		w1_param q;

		w1_draw(&g, &q);
		e = w1_build_one(ctx, s, &q);
	}
	need(ctx, e, "W1");
	printf("W1 built %ld\n", n);
	sym_ctx_free(ctx);
	return 0;
}

/* W2: convolution chain, then simplification under s0 >= 1. */

static const sym_expr *w2_chain(sym_ctx *ctx, const sym_expr *s0, int depth)
{
	const sym_expr *e = s0;
	const sym_expr *m1 = sym_expr_from_si(ctx, -1);
	const sym_expr *two = sym_expr_from_si(ctx, 2);
	const sym_expr *one = sym_expr_from_si(ctx, 1);

	for (int i = 0; i < depth; i++)
		e = sym_expr_add(ctx, sym_expr_floordiv(ctx, sym_expr_add(ctx, e, m1), two), one);
	return e;
}

/* Compares the chain and its simplified form at points where s0 >= 1. */
static void w2_check_values(sym_ctx *ctx, const sym_expr *s0, const sym_expr *chain, const sym_expr *simp,
                            int depth)
{
	static const long long pts[] = {1,
	                                2,
	                                3,
	                                4,
	                                5,
	                                7,
	                                8,
	                                9,
	                                1000,
	                                65535,
	                                65536,
	                                65537,
	                                131073,
	                                4294967295LL,
	                                4294967296LL,
	                                4294967297LL,
	                                4611686018427387904LL,
	                                9223372036854775807LL};
	long bad = 0;

	for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
		long long a, b;
		const sym_expr *va = sym_expr_eval_si(ctx, chain, 1, &s0, &pts[i]);
		const sym_expr *vb = sym_expr_eval_si(ctx, simp, 1, &s0, &pts[i]);

		need(ctx, va, "W2 eval chain");
		need(ctx, vb, "W2 eval simplified");
		if (va != vb || sym_expr_get_si(va, &a) != 1 || sym_expr_get_si(vb, &b) != 1 || a != b) {
			if (!bad)
				printf("note W2 depth %d s0=%lld: chain and "
				       "simplified values differ\n",
				       depth, pts[i]);
			bad++;
		}
	}
	char name[32];

	snprintf(name, sizeof name, "value_mismatches%d", depth);
	check_si("W2", name, bad, 0);
}

static void w2(int depth)
{
	double tb[MAX_REPS], ts[MAX_REPS];

	for (int r = 0; r < reps; r++) {
		const sym_expr *s[NSYMS];
		sym_ctx *ctx = new_ctx(s);
		sym_facts *facts = sym_facts_new(ctx);
		const sym_expr *pred = sym_expr_from_str(ctx, "s0 >= 1");
		double t0, t1, t2;
		const sym_expr *chain, *simp;

		need(ctx, facts, "sym_facts_new");
		need(ctx, pred, "W2 parse s0 >= 1");
		if (sym_facts_assume(facts, pred) != SYM_EOK)
			need(ctx, NULL, "W2 sym_facts_assume");
		t0 = now_sec();
		chain = w2_chain(ctx, s[0], depth);
		t1 = now_sec();
		simp = sym_simplify(ctx, facts, chain);
		t2 = now_sec();
		need(ctx, chain, "W2 build");
		need(ctx, simp, "W2 sym_simplify");
		tb[r] = t1 - t0;
		ts[r] = t2 - t1;
		if (r == 0) {
			char *txt = to_str(ctx, simp);
			long floors = count_substr(txt, "//") + count_substr(txt, "floor(") +
			              count_substr(txt, "ceil(") + count_substr(txt, "%");
			char want[96];
			const sym_expr *expect;

			char *ctxt = to_str(ctx, chain);

			printf("W2 built%d %s\n", depth, ctxt);
			sym_str_free(ctx, ctxt);
			printf("W2 result%d %s\n", depth, txt);
			printf("W2 floors%d %ld\n", depth, floors);
			snprintf(want, sizeof want, "(s0 + 2**%d - 1)//2**%d", depth, depth);
			expect = sym_expr_from_str(ctx, want);
			need(ctx, expect, "W2 parse expected form");
			snprintf(want, sizeof want, "W2 one_floor%d", depth);
			target(want, floors == 1);
			snprintf(want, sizeof want, "W2 expected_form%d", depth);
			target(want, simp == expect);
			sym_str_free(ctx, txt);
			w2_check_values(ctx, s[0], chain, simp, depth);
		}
		sym_facts_free(facts);
		sym_ctx_free(ctx);
	}
	printf("W2 build%d_us %.4g\n", depth, median(tb, reps) * 1e6);
	printf("W2 simplify%d_us %.4g\n", depth, median(ts, reps) * 1e6);
	if (depth == 64)
		target("W2 simplify64_us<1000", median(ts, reps) * 1e6 < 1000);
}

/* W3: expansion of (s0+s1+s2+s3+1)**n. */

/* Checks the expansion at s0..s3 = 1, 2, 3, 4, where the base is 11. */
static void w3_check_value(sym_ctx *ctx, const sym_expr *const *s, const sym_expr *e, int n)
{
	static const long long v[4] = {1, 2, 3, 4};
	const sym_expr *c = sym_expr_eval_si(ctx, e, 4, s, v);
	long long got = 0, want = 1;
	char name[16];

	need(ctx, c, "W3 eval");
	for (int i = 0; i < n; i++)
		want *= 11;
	if (sym_expr_get_si(c, &got) != 1)
		got = -1;
	snprintf(name, sizeof name, "value%d", n);
	check_si("W3", name, got, want);
}

static void w3(void)
{
	static const int pows[2] = {8, 16};
	static const long want[2] = {495, 4845};

	for (int k = 0; k < 2; k++) {
		double t[MAX_REPS];

		for (int r = 0; r < reps; r++) {
			const sym_expr *s[NSYMS];
			sym_ctx *ctx = new_ctx(s);
			const sym_expr *base = sym_expr_add(
			    ctx,
			    sym_expr_add(ctx, sym_expr_add(ctx, sym_expr_add(ctx, s[0], s[1]), s[2]), s[3]),
			    sym_expr_from_si(ctx, 1));
			const sym_expr *e;
			double t0;

			need(ctx, base, "W3 base");
			t0 = now_sec();
			e = sym_expr_pow_si(ctx, base, pows[k]);
			t[r] = now_sec() - t0;
			need(ctx, e, "W3 pow");
			if (r == 0) {
				char name[16];

				if (k == 1)
					report_mem("W3", ctx, 100);
				snprintf(name, sizeof name, "terms%d", pows[k]);
				check_si("W3", name, count_terms(ctx, e), want[k]);
				w3_check_value(ctx, s, e, pows[k]);
			}
			sym_ctx_free(ctx);
		}
		double ms = median(t, reps) * 1e3;

		printf("W3 pow%d_ms %.4g\n", pows[k], ms);
		if (k == 0)
			target("W3 pow8_ms<0.25", ms < 0.25);
	}
}

/* W4: exact evaluation of 1,000 small expanded products (the runtime
 * program is measured by bench_program). */

static void w4(void)
{
	static int shp[W4_EXPRS][5];
	static long long vals[W4_EXPRS][NSYMS];
	static const sym_expr *ex[W4_EXPRS];
	double t[MAX_REPS];
	mt19937 g;

	/* Every expression's parameters first, then every expression's
	 * values: the order that gives BENCH.md's checksum. */
	mt_init(&g, 0);
	for (int i = 0; i < W4_EXPRS; i++) {
		for (int m = 0; m < 3; m++)
			shp[i][m] = mt_rand(&g, 0, 7);
		shp[i][3] = mt_rand(&g, 1, 9);
		shp[i][4] = mt_rand(&g, 1, 9);
	}
	for (int i = 0; i < W4_EXPRS; i++)
		for (int m = 0; m < NSYMS; m++)
			vals[i][m] = mt_rand(&g, 1, 100);
	for (int r = 0; r < reps; r++) {
		const sym_expr *s[NSYMS];
		sym_ctx *ctx = new_ctx(s);
		long long sum = 0;
		int bad = 0;
		double t0;

		for (int i = 0; i < W4_EXPRS; i++) {
			const int *q = shp[i];

			ex[i] = sym_expr_mul(ctx, sym_expr_add(ctx, s[q[0]], sym_expr_from_si(ctx, q[3])),
			                     sym_expr_add(ctx, sym_expr_mul(ctx, s[q[1]], s[q[2]]),
			                                  sym_expr_from_si(ctx, q[4])));
			need(ctx, ex[i], "W4 build");
		}
		t0 = now_sec();
		for (int i = 0; i < W4_EXPRS; i++) {
			long long v;
			const sym_expr *c = sym_expr_eval_si(ctx, ex[i], NSYMS, s, vals[i]);

			if (sym_expr_get_si(c, &v) == 1)
				sum += v;
			else
				bad++;
		}
		t[r] = now_sec() - t0;
		if (bad)
			need(ctx, NULL, "W4 eval (not an integer constant)");
		if (r == 0)
			check_si("W4", "value_sum", sum, W4_SUM);
		sym_ctx_free(ctx);
	}
	printf("W4 n %d\n", W4_EXPRS);
	printf("W4 subst_per_expr_us %.4g\n", median(t, reps) / W4_EXPRS * 1e6);
}

/* W5: canonical equality of the same polynomial built in two orders. */

typedef struct w5_term {
	int c, d, f[3];
} w5_term;

typedef struct w5_param {
	int nt;
	w5_term t[6];
} w5_param;

static void w5(void)
{
	static w5_param p[W5_PAIRS];
	static const sym_expr *a[W5_PAIRS], *b[W5_PAIRS];
	double tb[MAX_REPS], te[MAX_REPS];
	mt19937 g;

	mt_init(&g, 0);
	for (int i = 0; i < W5_PAIRS; i++) {
		p[i].nt = mt_rand(&g, 3, 6);
		for (int k = 0; k < p[i].nt; k++) {
			w5_term *t = &p[i].t[k];

			t->c = mt_rand(&g, 1, 9);
			t->d = mt_rand(&g, 1, 3);
			for (int m = 0; m < t->d; m++)
				t->f[m] = mt_rand(&g, 0, 7);
		}
	}
	for (int r = 0; r < reps; r++) {
		const sym_expr *s[NSYMS];
		sym_ctx *ctx = new_ctx(s);
		const sym_expr *const *volatile pa = a;
		const sym_expr *const *volatile pb = b;
		long equal = 0;
		double t0, t1;

		t0 = now_sec();
		for (int i = 0; i < W5_PAIRS; i++) {
			const w5_param *q = &p[i];
			const sym_expr *ea = sym_expr_from_si(ctx, 0);
			const sym_expr *eb = sym_expr_from_si(ctx, 0);

			for (int k = 0; k < q->nt; k++) {
				const w5_term *t = &q->t[k];
				const sym_expr *x = sym_expr_from_si(ctx, t->c);

				for (int m = 0; m < t->d; m++)
					x = sym_expr_mul(ctx, x, s[t->f[m]]);
				ea = sym_expr_add(ctx, ea, x);
			}
			for (int k = q->nt - 1; k >= 0; k--) {
				const w5_term *t = &q->t[k];
				const sym_expr *x = s[t->f[t->d - 1]];

				for (int m = t->d - 2; m >= 0; m--)
					x = sym_expr_mul(ctx, x, s[t->f[m]]);
				x = sym_expr_mul(ctx, x, sym_expr_from_si(ctx, t->c));
				eb = sym_expr_add(ctx, eb, x);
			}
			a[i] = ea;
			b[i] = eb;
		}
		t1 = now_sec();
		tb[r] = t1 - t0;
		for (int i = 0; i < W5_PAIRS; i++) {
			need(ctx, a[i], "W5 build A");
			need(ctx, b[i], "W5 build B");
		}
		t0 = now_sec();
		for (int i = 0; i < W5_PAIRS; i++)
			equal += pa[i] == pb[i];
		te[r] = now_sec() - t0;
		if (r == 0)
			check_si("W5", "equal_pairs", equal, W5_PAIRS);
		sym_ctx_free(ctx);
	}
	printf("W5 n %d\n", W5_PAIRS);
	printf("W5 build_pair_us %.4g\n", median(tb, reps) / W5_PAIRS * 1e6);
	printf("W5 eq_ns %.4g\n", median(te, reps) / W5_PAIRS * 1e9);
}

int main(int argc, char **argv)
{
	mt19937 g;
	uint32_t first[3];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--w1-build") == 0 && i + 1 < argc && atol(argv[i + 1]) > 0) {
			return w1_build(atol(argv[i + 1]));
		} else {
			fprintf(stderr, "usage: %s [--reps N] [--w1-build ITERATIONS]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "bench_expr: --reps must be 1..%d\n", MAX_REPS);
		return 2;
	}
	mt_init(&g, 0);
	for (int i = 0; i < 3; i++)
		first[i] = mt_next(&g);
	check_si("mt19937", "first", first[0], 2357136044LL);
	check_si("mt19937", "second", first[1], 2546248239LL);
	check_si("mt19937", "third", first[2], 3071714933LL);
	printf("note reps %d (times are medians)\n", reps);
	fflush(stdout);
	w1();
	fflush(stdout);
	w2(64);
	w2(16);
	fflush(stdout);
	w3();
	fflush(stdout);
	w4();
	fflush(stdout);
	w5();
	return failed ? 1 : 0;
}
