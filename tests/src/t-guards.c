/* Guard pruning (src/infer/guards.c): every guard a rule stated that the
 * pass drops is implied by the guards it keeps and the symbol ranges.
 *
 * Seeded random models (SYM_TEST_SEED, default 1) state many guards over a
 * few pools of symbols, each node over one pool: window guards of MaxPool
 * over sums and multiples of symbols (`s0_1 + s0_2 >= 7`), broadcast
 * disjunctions of Add and equalities of Concat.  Pools share no symbol, so
 * the kept guards hold at a point exactly when each pool's kept guards hold
 * at its part; each pool's part runs over a grid of values, and at every
 * combination where the kept guards hold, each dropped guard must hold.
 * Models with up to 32 guards take the rule where each guard is proven
 * under every other one, models with more than 256 the rule of connected
 * guards; both must have dropped guards, so that the check is not
 * vacuous. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../counting_alloc.h"
#include "infer/passes.h"
#include "test_util.h"

#define POOL_SYMS 3
#define MAX_POOLS 70
#define MODELS 40

static const long long grid[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 24};
#define NGRID (sizeof(grid) / sizeof(grid[0]))
#define NPOINTS (NGRID * NGRID * NGRID)

typedef struct sbuf {
	char *s;
	size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* A dim over pool p: a symbol, a sum of two, a multiple, a symbol plus a
 * constant. */
static void put_dim(sbuf *b, int p, int linear)
{
	int a = (int)rng_range(0, POOL_SYMS - 1), c = (int)((a + rng_range(1, POOL_SYMS - 1)) % POOL_SYMS);
	switch (linear ? rng_range(0, 3) : 0) {
	case 0:
		put(b, "\"s%d_%d\"", p, a);
		break;
	case 1:
		put(b, "\"s%d_%d + s%d_%d\"", p, a, p, c);
		break;
	case 2:
		put(b, "\"%d*s%d_%d\"", (int)rng_range(2, 3), p, a);
		break;
	default:
		put(b, "\"s%d_%d + %d\"", p, a, (int)rng_range(1, 4));
	}
}

/* A random model of nnodes nodes over npools pools, as JSON text. */
static char *random_model(int nnodes, int npools)
{
	sbuf in = {0}, nodes = {0}, outs = {0}, all = {0};
	int i;
	for (i = 0; i < nnodes; i++) {
		int p = (int)rng_range(0, npools - 1), kind = (int)rng_range(0, 9);
		const char *sep = i ? ", " : "";
		if (kind <= 6) { /* MaxPool: windows A >= k1, B >= k2 */
			put(&in, "%s{\"name\": \"x%d\", \"dtype\": \"float32\", \"shape\": [1, 1, ", sep, i);
			put_dim(&in, p, 1);
			put(&in, ", ");
			put_dim(&in, p, 1);
			put(&in, "]}");
			put(&nodes,
			    "%s{\"name\": \"pool%d\", \"op\": \"MaxPool\", \"inputs\": [\"x%d\"], "
			    "\"outputs\": "
			    "[\"y%d\"], \"attrs\": {\"kernel_shape\": [%d, %d]}}",
			    sep, i, i, i, (int)rng_range(1, 12), (int)rng_range(1, 12));
		} else if (kind <= 8) { /* Add: a == 1 || a == b || b == 1 */
			put(&in, "%s{\"name\": \"x%d\", \"dtype\": \"float32\", \"shape\": [", sep, i);
			put_dim(&in, p, 0);
			put(&in, "]}, {\"name\": \"z%d\", \"dtype\": \"float32\", \"shape\": [", i);
			put_dim(&in, p, 0);
			put(&in, "]}");
			put(&nodes,
			    "%s{\"name\": \"add%d\", \"op\": \"Add\", \"inputs\": [\"x%d\", \"z%d\"], "
			    "\"outputs\": "
			    "[\"y%d\"]}",
			    sep, i, i, i, i);
		} else { /* Concat on axis 0: a == b */
			put(&in, "%s{\"name\": \"x%d\", \"dtype\": \"float32\", \"shape\": [2, ", sep, i);
			put_dim(&in, p, 0);
			put(&in, "]}, {\"name\": \"z%d\", \"dtype\": \"float32\", \"shape\": [3, ", i);
			put_dim(&in, p, 0);
			put(&in, "]}");
			put(&nodes,
			    "%s{\"name\": \"cat%d\", \"op\": \"Concat\", \"inputs\": [\"x%d\", \"z%d\"], "
			    "\"outputs\": "
			    "[\"y%d\"], \"attrs\": {\"axis\": 0}}",
			    sep, i, i, i, i);
		}
		put(&outs, "%s\"y%d\"", sep, i);
	}
	put(&all, "{\"inputs\": [%s], \"nodes\": [%s], \"outputs\": [%s]}", in.s, nodes.s, outs.s);
	free(in.s);
	free(nodes.s);
	free(outs.s);
	return all.s;
}

/* The value of predicate p with pool p's symbols at grid point k (the
 * other pools' symbols do not occur in it): 1, 0, or -1 when it mentions
 * another symbol. */
static int holds_at(sym_ctx *ctx, const sym_expr *pred, const sym_expr *const *syms, size_t k)
{
	long long v[POOL_SYMS];
	const sym_expr *r;
	size_t j;
	for (j = 0; j < POOL_SYMS; j++, k /= NGRID)
		v[j] = grid[k % NGRID];
	r = sym_expr_eval_si(ctx, pred, POOL_SYMS, syms, v);
	assert_non_null(r);
	if (r == sym_expr_bool(ctx, 1))
		return 1;
	return r == sym_expr_bool(ctx, 0) ? 0 : -1;
}

/* Whether guard g is among the kept guards of r. */
static int is_kept(const sym_graph_result *r, const sym_expr *pred)
{
	size_t i;
	for (i = 0; i < r->nguards; i++)
		if (r->guards[i].pred == pred)
			return 1;
	return 0;
}

/* The pool a predicate is over (its first symbol's), or -1. */
static int pool_of(sym_ctx *ctx, const sym_expr *pred)
{
	const sym_expr *s[1];
	int p = -1, k;
	if (sym_expr_symbols(ctx, pred, s, 1) < 1)
		return -1;
	if (sscanf(sym_expr_symbol_name(s[0]), "s%d_%d", &p, &k) != 2)
		return -1;
	return p;
}

static void dropped_guards_are_implied_by_the_kept_ones(void **state)
{
	size_t dropped_exact = 0, dropped_connected = 0, checked = 0, models = 0;
	int m;
	(void)state;
	rng_seed(seed_from_env());
	for (m = 0; m < MODELS; m++) {
		/* small models take the rule of every other guard, large ones
		 * (past 256 guards) the rule of connected guards */
		int large = m % 8 == 7;
		int nnodes = large ? (int)rng_range(900, 1000) : (int)rng_range(6, 30);
		int npools = large ? (int)rng_range(60, MAX_POOLS) : (int)rng_range(1, 4), p;
		char *text = random_model(nnodes, npools);
		sym_ctx *ctx = sym_ctx_new();
		sym_model *model = sym_model_from_json(ctx, text, strlen(text));
		sym_graph_result *r;
		const sym_expr *syms[MAX_POOLS][POOL_SYMS];
		/* per pool: the grid points where its kept guards hold */
		unsigned char *ok = calloc(MAX_POOLS * NPOINTS, 1);
		int *kept_pool;
		size_t i, k, nok[MAX_POOLS] = {0};
		assert_non_null(ok);
		if (!model)
			fail_msg("model %d: %s\n%s", m, sym_ctx_last_message(ctx), text);
		r = sym_model_infer(ctx, model, NULL);
		if (!r) {
			/* a guard proven false (a window that no dim can cover) */
			sym_model_free(model);
			sym_ctx_free(ctx);
			free(text);
			free(ok);
			continue;
		}
		kept_pool = calloc(r->nguards + 1, sizeof(*kept_pool));
		assert_non_null(kept_pool);
		for (i = 0; i < r->nguards; i++)
			kept_pool[i] = pool_of(ctx, r->guards[i].pred);
		for (p = 0; p < npools; p++)
			for (k = 0; k < POOL_SYMS; k++) {
				char name[32];
				snprintf(name, sizeof(name), "s%d_%zu", p, k);
				syms[p][k] = sym_expr_symbol(ctx, name);
			}
		for (p = 0; p < npools; p++)
			for (k = 0; k < NPOINTS; k++) {
				int all = 1;
				for (i = 0; i < r->nguards && all; i++)
					if (kept_pool[i] == p)
						all = holds_at(ctx, r->guards[i].pred, syms[p], k) == 1;
				ok[p * NPOINTS + k] = (unsigned char)all;
				nok[p] += (size_t)all;
			}
		for (p = 0; p < npools; p++)
			if (!nok[p])
				break;
		models += p == npools;
		if (large)
			print_message("model %d: %zu guards stated, %zu kept%s\n", m, r->inf.nguards,
			              r->nguards, p == npools ? "" : " (a pool without a point)");
		for (i = 0; p == npools && i < r->inf.nguards; i++) {
			const sym_expr *g = r->inf.guards[i].pred;
			int gp = pool_of(ctx, g);
			if (is_kept(r, g))
				continue;
			if (r->inf.nguards <= 32)
				dropped_exact++;
			else if (r->inf.nguards > 256)
				dropped_connected++;
			if (gp < 0)
				continue; /* a constant guard */
			for (k = 0; k < NPOINTS; k++) {
				if (!ok[gp * NPOINTS + k])
					continue;
				checked++;
				if (holds_at(ctx, g, syms[gp], k) != 1) {
					char *t = sym_expr_to_str(ctx, g);
					fail_msg("model %d (seed %llu): dropped guard %s (node %s) fails "
					         "where the kept "
					         "ones hold, point %zu of pool %d\n%s",
					         m, (unsigned long long)seed_from_env(), t,
					         r->inf.guards[i].node, k, gp, text);
				}
			}
		}
		free(kept_pool);
		free(ok);
		sym_graph_result_free(r);
		sym_model_free(model);
		sym_ctx_free(ctx);
		free(text);
	}
	print_message("dropped guards: %zu (every other guard), %zu (connected guards); %zu models, %zu "
	              "points checked\n",
	              dropped_exact, dropped_connected, models, checked);
	assert_true(dropped_exact > 0);
	assert_true(dropped_connected > 0);
	assert_true(checked > 0);
}

/* The allocations of inferring n chained broadcasts of fresh dims,
 * t_i = Add(t_{i-1}, x_i [d_i]): n guards d_i == 1 || d_i == max(d_0, ...)
 * || max(...) == 1, each pruned under every other one (n <= 32). */
static long chain_allocations(int n)
{
	sbuf b = {NULL, 0, 0};
	counting c = {0};
	sym_allocator a = {counting_realloc, &c};
	sym_ctx *ctx = sym_ctx_new_with_allocator(&a);
	sym_model *m;
	sym_graph_result *r;
	int i;
	assert_non_null(ctx);
	put(&b, "{\"inputs\": [{\"name\": \"x0\", \"dtype\": \"float32\", \"shape\": [\"d0\"]}");
	for (i = 1; i <= n; i++)
		put(&b, ", {\"name\": \"x%d\", \"dtype\": \"float32\", \"shape\": [\"d%d\"]}", i, i);
	put(&b, "], \"nodes\": [");
	for (i = 1; i <= n; i++)
		put(&b,
		    "%s{\"name\": \"add%d\", \"op\": \"Add\", \"inputs\": [\"%s%d\", \"x%d\"], "
		    "\"outputs\": [\"t%d\"]}",
		    i > 1 ? ", " : "", i, i > 1 ? "t" : "x", i - 1, i, i);
	put(&b, "], \"outputs\": [\"t%d\"]}", n);
	m = sym_model_from_json(ctx, b.s, b.len);
	assert_non_null(m);
	r = sym_model_infer(ctx, m, NULL);
	assert_non_null(r);
	assert_int_equal(sym_graph_num_errors(r), 0);
	assert_int_equal(r->nguards, n); /* none implies another */
	sym_graph_result_free(r);
	sym_model_free(m);
	sym_ctx_free(ctx);
	free(b.s);
	return c.calls;
}

/* Proving each of up to 32 guards under the others is n*n assumptions;
 * a disjunction over the max of many dims used to be simplified under the
 * facts at each one, hundreds of prover calls that cost 90% of inferring
 * 24 broadcasts (3,479 allocations per node at 16, 1,106 at 8). */
static void pruning_chained_broadcasts_costs_about_the_same_per_node(void **state)
{
	long small = chain_allocations(8), n;
	int sizes[] = {16, 24, 32}, k;
	(void)state;
	for (k = 0; k < 3; k++) {
		n = chain_allocations(sizes[k]);
		print_message("%d broadcasts: %ld allocations, %ld per node (8: %ld)\n", sizes[k], n,
		              n / sizes[k], small / 8);
		assert_true(n / sizes[k] <= 3 * (small / 8));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(dropped_guards_are_implied_by_the_kept_ones),
	    cmocka_unit_test(pruning_chained_broadcasts_costs_about_the_same_per_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
