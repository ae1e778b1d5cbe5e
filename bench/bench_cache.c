/* bench_cache: the guard cache's lookup through its dispatch program beside
 * the sequential lookup it replaces (each variant's whole program in turn,
 * the validity program last), on caches of 1, 8 and 64 variants of
 * examples/transformer.json hinted at different dims, in one run.
 *
 * Two query streams, 4,096 queries each drawn before timing from MT19937
 * (init_genrand(0)):
 *   mixed  the variants take random branches (batch == mbatch or
 *          mbatch == 1, the same for seq and mseq) at random dims; the
 *          queries are random dims of that space, one in 16 invalid
 *          (mbatch = batch + 1): hits, recompiles (when no variant has
 *          the branches) and invalid input;
 *   miss   every variant is batch == mbatch, seq == mseq at its own dims;
 *          the queries have mseq = 1: valid, fitting no variant, so the
 *          sequential lookup runs every variant and the validity program.
 * Two caches are built alike for each size, one for each lookup, and run
 * the same stream; both answers are compared query by query (the run
 * fails when they differ).  The time per lookup is the median over the
 * repetitions of PASSES passes over the stream, the two lookups
 * interleaved round by round.
 *
 * Then the add of a variant to a full cache of 1, 8, 64 (each add evicts
 * the least recently used), ns per add with the dispatch program's upkeep.
 *
 * Prints `cache STREAM N METRIC VALUE` lines, the ratios, and `check`
 * lines; exits 1 when a step or a check fails.
 *
 * Usage: bench_cache [--reps N] [--model PATH]   (default 11 repetitions) */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symshape/symshape.h"
#include "cache_private.h"

#include "bench_common.h"

#define NQ 4096
#define PASSES 20
#define MAX_REPS 101
#define NDIMS 7

static int reps = 11;
static const char *model_path = "examples/transformer.json";
static int failures;

static void die(const char *what, const char *msg)
{
	printf("error %s: %s\n", what, msg);
	fflush(stdout);
	exit(1);
}

static const char *const names[] = {"batch", "mbatch", "seq", "mseq"};

/* Compiles the model with the hints vals (NULL: none). */
static sym_model_program *compile(sym_ctx *ctx, const sym_model *m, const long long *vals)
{
	sym_infer_options opt;
	sym_graph_result *r;
	sym_model_program *mp = NULL;
	memset(&opt, 0, sizeof(opt));
	if (vals)
		opt.nhints = 4, opt.hint_names = names, opt.hint_values = vals;
	r = sym_model_infer(ctx, m, &opt);
	if (r)
		mp = sym_graph_compile(ctx, r, 0);
	sym_graph_result_free(r);
	if (!mp)
		die("compile", sym_ctx_last_message(ctx));
	return mp;
}

/* A pair of broadcast dims (the input's, the mask's): equal, or the
 * mask's 1 (the input's 1 with a larger mask dim is invalid input:
 * merge_heads and context need mbatch <= batch, mseq <= seq). */
static void pair(mt19937 *g, int lo, int hi, long long *x, long long *y)
{
	long long v = mt_rand(g, lo, hi);
	if (mt_rand(g, 0, 1))
		*x = *y = v;
	else
		*x = v, *y = 1;
}

/* The hints of variant k of a stream. */
static void variant_hints(mt19937 *g, int miss, int k, long long *vals)
{
	if (miss) {
		vals[0] = vals[1] = 2 + k % 8;
		vals[2] = vals[3] = 16 * (1 + k / 8);
		return;
	}
	pair(g, 2, 16, &vals[0], &vals[1]);
	pair(g, 2, 512, &vals[2], &vals[3]);
}

/* The dims of query: x [batch, seq, 768], mask [mbatch, 1, 1, mseq]. */
static void query_dims(mt19937 *g, int miss, int64_t *d)
{
	long long b, mb, s, ms;
	if (miss) {
		b = mb = mt_rand(g, 2, 16);
		s = mt_rand(g, 2, 512), ms = 1;
	} else {
		pair(g, 2, 16, &b, &mb);
		pair(g, 2, 512, &s, &ms);
		if (mt_rand(g, 0, 15) == 0)
			mb = b + 1; /* invalid: does not broadcast */
	}
	d[0] = b, d[1] = s, d[2] = 768, d[3] = mb, d[4] = 1, d[5] = 1, d[6] = ms;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

typedef sym_cache_answer (*lookup_fn)(sym_guard_cache *, const int64_t *, long *, const char **);

/* One repetition: PASSES passes over the stream; ns per lookup. */
static double time_pass(sym_guard_cache *c, lookup_fn f, int64_t (*q)[NDIMS], long *sum)
{
	double t0 = now_sec(), t1;
	int p, i;
	long s = 0;
	for (p = 0; p < PASSES; p++)
		for (i = 0; i < NQ; i++) {
			long id = -1;
			s += (long)f(c, q[i], &id, NULL) * 1000 + id;
		}
	t1 = now_sec();
	*sum += s;
	return (t1 - t0) * 1e9 / ((double)PASSES * NQ);
}

/* Builds a cache of n variants of the stream (with the validity program). */
static sym_guard_cache *build(sym_ctx *ctx, const sym_model *m, int miss, int n)
{
	sym_guard_cache *c = sym_guard_cache_new((size_t)n);
	mt19937 g;
	int k;
	if (!c)
		die("cache", "out of memory");
	mt_init(&g, 0);
	if (sym_guard_cache_set_validity(c, compile(ctx, m, NULL)) < 0)
		die("cache", "set_validity failed");
	for (k = 0; k < n; k++) {
		long long vals[4];
		char label[96];
		variant_hints(&g, miss, k, vals);
		snprintf(label, sizeof(label), "batch=%lld,mbatch=%lld,seq=%lld,mseq=%lld", vals[0], vals[1],
		         vals[2], vals[3]);
		if (sym_guard_cache_add(c, compile(ctx, m, vals), label) != k)
			die("cache", "add failed");
	}
	return c;
}

static int64_t queries[NQ][NDIMS];

/* Runs one stream over the sizes; fills the dispatch and sequential
 * medians. */
static void run_stream(sym_ctx *ctx, const sym_model *m, int miss, const int *sizes, int nsizes, double *disp,
                       double *seq)
{
	static const char *const stream[] = {"mixed", "miss"};
	mt19937 g;
	int si, i, r;
	mt_init(&g, 0);
	for (i = 0; i < NQ; i++)
		query_dims(&g, miss, queries[i]);
	for (si = 0; si < nsizes; si++) {
		sym_guard_cache *cd = build(ctx, m, miss, sizes[si]), *cs = build(ctx, m, miss, sizes[si]);
		double td[MAX_REPS], ts[MAX_REPS];
		long sd = 0, ss = 0, counts[3] = {0, 0, 0};
		const sym__dispatch *d = sym__guard_cache_dispatch(cd);
		/* the answers first, query by query, on caches of their own */
		{
			sym_guard_cache *a = build(ctx, m, miss, sizes[si]),
			                *b = build(ctx, m, miss, sizes[si]);
			int bad = 0;
			for (i = 0; i < NQ; i++) {
				long ia = -1, ib = -1;
				const char *ra = NULL, *rb = NULL;
				sym_cache_answer x = sym_guard_cache_lookup(a, queries[i], &ia, &ra);
				sym_cache_answer y =
				    sym__guard_cache_lookup_sequential(b, queries[i], &ib, &rb);
				counts[x]++;
				if (x != y || ia != ib || (ra && (!rb || strcmp(ra, rb))) || (!ra && rb))
					bad++;
			}
			printf("check cache %s %d answers %s\n", stream[miss], sizes[si],
			       bad ? "FAIL" : "ok");
			failures += bad != 0;
			sym_guard_cache_free(a), sym_guard_cache_free(b);
		}
		for (r = 0; r < reps; r++) {
			td[r] = time_pass(cd, sym_guard_cache_lookup, queries, &sd);
			ts[r] = time_pass(cs, sym__guard_cache_lookup_sequential, queries, &ss);
		}
		qsort(td, (size_t)reps, sizeof(double), cmp_double);
		qsort(ts, (size_t)reps, sizeof(double), cmp_double);
		disp[si] = td[reps / 2], seq[si] = ts[reps / 2];
		printf("cache %s %d answers hit=%ld recompile=%ld invalid=%ld\n", stream[miss], sizes[si],
		       counts[0], counts[1], counts[2]);
		printf("cache %s %d dispatch_code insns=%zu entries=%zu segment_insns=%zu\n", stream[miss],
		       sizes[si], d->ninsns, d->nent, d->nseg);
		printf("cache %s %d dispatch_ns %.1f\n", stream[miss], sizes[si], disp[si]);
		printf("cache %s %d sequential_ns %.1f\n", stream[miss], sizes[si], seq[si]);
		if (sd != ss) {
			printf("check cache %s %d checksum FAIL\n", stream[miss], sizes[si]);
			failures++;
		}
		sym_guard_cache_free(cd), sym_guard_cache_free(cs);
	}
}

#define NCHURN 192

/* Add and evict: a full cache of n variants of the mixed stream takes
 * NCHURN more (compiled before timing), each evicting the least recently
 * used; ns per add, the rebuilds included (amortised). */
static double time_churn(sym_ctx *ctx, const sym_model *m, int n)
{
	static sym_model_program *mps[NCHURN];
	sym_guard_cache *c = build(ctx, m, 0, n);
	mt19937 g;
	double t0, t1;
	int k;
	mt_init(&g, 7);
	for (k = 0; k < NCHURN; k++) {
		long long vals[4];
		variant_hints(&g, 0, k, vals);
		mps[k] = compile(ctx, m, vals);
	}
	t0 = now_sec();
	for (k = 0; k < NCHURN; k++)
		if (sym_guard_cache_add(c, mps[k], "churn") < 0)
			die("cache", "add failed");
	t1 = now_sec();
	sym_guard_cache_free(c);
	return (t1 - t0) * 1e9 / NCHURN;
}

int main(int argc, char **argv)
{
	static const int sizes[] = {1, 8, 64};
	double disp[3], seq[3];
	sym_ctx *ctx;
	sym_model *m;
	int i, miss;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--model") && i + 1 < argc)
			model_path = argv[++i];
		else
			die("usage", "bench_cache [--reps N] [--model PATH]");
	}
	if (reps < 1 || reps > MAX_REPS)
		die("usage", "--reps must be in [1, 101]");
	ctx = sym_ctx_new();
	if (!ctx || !(m = sym_model_load(ctx, model_path)))
		die("load", ctx ? sym_ctx_last_message(ctx) : "out of memory");
	{
		FILE *f = fopen("/proc/loadavg", "r");
		char la[64] = "unknown";
		if (f) {
			if (!fgets(la, sizeof(la), f))
				strcpy(la, "unknown");
			fclose(f);
			la[strcspn(la, "\n")] = 0;
		}
		printf("load average: %s\n", la);
	}
	printf("%-6s %8s %14s %16s %12s\n", "stream", "variants", "dispatch ns", "sequential ns", "seq/disp");
	for (miss = 0; miss < 2; miss++) {
		run_stream(ctx, m, miss, sizes, 3, disp, seq);
		for (i = 0; i < 3; i++)
			printf("%-6s %8d %14.1f %16.1f %11.1fx\n", miss ? "miss" : "mixed", sizes[i], disp[i],
			       seq[i], seq[i] / disp[i]);
		printf("cache %s ratio_64_over_1 dispatch %.2f sequential %.2f\n", miss ? "miss" : "mixed",
		       disp[2] / disp[0], seq[2] / seq[0]);
		printf("check cache %s 64 variants <= 4x one: %s\n", miss ? "miss" : "mixed",
		       disp[2] <= 4 * disp[0] ? "ok" : "MISSED");
	}
	for (i = 0; i < 3; i++) {
		double t[MAX_REPS];
		int r;
		for (r = 0; r < reps; r++)
			t[r] = time_churn(ctx, m, sizes[i]);
		qsort(t, (size_t)reps, sizeof(double), cmp_double);
		printf("cache add_evict %d add_ns %.1f\n", sizes[i], t[reps / 2]);
	}
	sym_model_free(m);
	sym_ctx_free(ctx);
	return failures ? 1 : 0;
}
