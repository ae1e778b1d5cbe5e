/* Equivalence: canonical identity, a proof of a - b == 0, or a witness found
 * by exact evaluation at admissible points. */
#include "facts_private.h"

#include <stdlib.h>

#define NCAND 12
#define RANDOM_POINTS 400

typedef struct cand {
	const sym_expr *sym;
	sym_num v[NCAND];
	size_t n;
	sym_ival range;
	int dim_top; /* range.hi is SYM_DIM_MAX, not an end of the symbol's own */
} cand;

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Candidate values of a free symbol: both ends of its range, small values
 * near the ends, and a few spread-out values; all admissible for its own
 * range and residue. */
static void make_cands(const sym_facts *f, cand *c)
{
	static const int64_t offs[] = {0, 1, 2, 3, 4, 5, 7, 8, 11, 16};
	const sym_syminfo *si = sym__facts_get(f, c->sym);
	sym_num step, t;
	size_t i;
	sym__num_init(&step);
	sym__num_init(&t);
	sym__num_set_si(&step, 1);
	if (si && !sym__num_is_zero(&si->mod))
		sym__num_set(&step, &si->mod);
	c->n = 0;
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]) && c->n < NCAND; i++) {
		sym_num k;
		sym__num_init(&k);
		sym__num_set_si(&k, offs[i]);
		sym__num_mul(&k, &k, &step);
		if (!c->range.lo.inf) {
			sym__num_add(&t, &c->range.lo.v, &k);
		} else if (!c->range.hi.inf) {
			sym__num_sub(&t, &c->range.hi.v, &k);
		} else {
			/* 0, 1, -1, 2, -2, ... in the residue class */
			int64_t j = (int64_t)(i + 1) / 2 * (i % 2 ? 1 : -1);
			sym__num_set_si(&t, j);
			sym__num_mul(&t, &t, &step);
			if (si && !sym__num_is_zero(&si->mod))
				sym__num_add(&t, &t, &si->res);
		}
		sym__num_clear(&k);
		if (!c->range.hi.inf && sym__num_cmp(&t, &c->range.hi.v) > 0)
			continue;
		if (!c->range.lo.inf && sym__num_cmp(&t, &c->range.lo.v) < 0)
			continue;
		sym__num_init(&c->v[c->n]);
		sym__num_set(&c->v[c->n++], &t);
	}
	if (!c->range.hi.inf && !c->dim_top && c->n < NCAND) {
		sym__num_init(&c->v[c->n]);
		sym__num_set(&c->v[c->n++], &c->range.hi.v);
	}
	sym__num_clear(&step);
	sym__num_clear(&t);
}

/* Evaluates everything at the point; returns 1 when it is admissible and a
 * and b differ there. */
static int try_point(sym_ctx *ctx, const sym_facts *f, const sym_expr *a, const sym_expr *b, size_t n,
                     const sym_expr **syms, sym_num *vals, size_t nfree)
{
	sym_num x, y;
	size_t i;
	int differ = 0;
	sym__num_init(&x);
	sym__num_init(&y);
	/* defined symbols get the value of their definition */
	for (i = nfree; i < n; i++) {
		const sym_syminfo *si = sym__facts_get(f, syms[i]);
		if (!sym__eval_num(ctx, si->def, nfree, syms, vals, &vals[i]) || !sym__num_is_int(&vals[i]))
			goto out;
	}
	for (i = 0; f && i < f->nassumed; i++) {
		if (!sym__eval_num(ctx, f->assumed[i], n, syms, vals, &x) || sym__num_is_zero(&x))
			goto out;
	}
	if (!sym__eval_num(ctx, a, n, syms, vals, &x) || !sym__eval_num(ctx, b, n, syms, vals, &y))
		goto out;
	differ = !sym__num_equal(&x, &y);
out:
	if (sym__failed(ctx) && sym_ctx_last_error(ctx) != SYM_ENOMEM)
		sym_ctx_clear_error(ctx); /* an inadmissible point, not an error */
	sym__num_clear(&x);
	sym__num_clear(&y);
	return differ;
}

static int add_syms(sym_ctx *ctx, const sym_expr *e, const sym_expr ***all, size_t *n, size_t *cap)
{
	size_t k = sym_expr_symbols(ctx, e, NULL, 0), i, j;
	const sym_expr **tmp;
	if (!k)
		return 1;
	tmp = sym__alloc(ctx, k * sizeof(*tmp));
	if (!tmp)
		return 0;
	sym_expr_symbols(ctx, e, tmp, k);
	for (i = 0; i < k; i++) {
		int dup = 0;
		for (j = 0; j < *n; j++)
			if ((*all)[j] == tmp[i])
				dup = 1;
		if (dup)
			continue;
		if (SYM_GROW(ctx, *all, *n + 1, *cap, 16) < 0) {
			sym__free(ctx, tmp, k * sizeof(*tmp));
			return 0;
		}
		(*all)[(*n)++] = tmp[i];
	}
	sym__free(ctx, tmp, k * sizeof(*tmp));
	return 1;
}

/* Searches an admissible point where a and b differ. */
static int find_witness(sym_ctx *ctx, const sym_facts *f, const sym_expr *a, const sym_expr *b,
                        sym_witness *w)
{
	const sym_expr **all = NULL, **order = NULL;
	size_t n = 0, cap = 0, i, nfree = 0, k;
	cand *c = NULL;
	sym_num *vals = NULL;
	int found = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	if (!add_syms(ctx, a, &all, &n, &cap) || !add_syms(ctx, b, &all, &n, &cap))
		goto done;
	for (i = 0; f && i < f->nassumed; i++)
		if (!add_syms(ctx, f->assumed[i], &all, &n, &cap))
			goto done;
	for (i = 0; f && i < f->ninfo; i++) {
		if (!f->info[i].def)
			continue;
		if (!add_syms(ctx, f->info[i].sym, &all, &n, &cap) ||
		    !add_syms(ctx, f->info[i].def, &all, &n, &cap))
			goto done;
	}
	order = sym__alloc(ctx, (n ? n : 1) * sizeof(*order));
	vals = sym__alloc(ctx, (n ? n : 1) * sizeof(*vals));
	c = sym__alloc(ctx, (n ? n : 1) * sizeof(*c));
	if (!order || !vals || !c)
		goto done;
	/* free symbols first, then the defined ones */
	for (i = 0; i < n; i++) {
		const sym_syminfo *si = sym__facts_get(f, all[i]);
		if (!si || !si->def)
			order[nfree++] = all[i];
	}
	k = nfree;
	for (i = 0; i < n; i++) {
		const sym_syminfo *si = sym__facts_get(f, all[i]);
		if (si && si->def)
			order[k++] = all[i];
	}
	for (i = 0; i < n; i++)
		sym__num_init(&vals[i]);
	for (i = 0; i < nfree; i++) {
		c[i].sym = order[i];
		sym__ival_init(&c[i].range);
		sym__facts_sym_range(f, order[i], &c[i].range);
		c[i].dim_top = 0;
		if (f && f->dims_bounded && !c[i].range.hi.inf) {
			/* the largest dim is admissible but a poor witness (every
			 * byte size overflows there): tried after the others */
			sym_ival open;
			sym__ival_init(&open);
			int was = f->dims_open;
			((sym_facts *)f)->dims_open = 1;
			sym__facts_sym_range(f, order[i], &open);
			((sym_facts *)f)->dims_open = was;
			c[i].dim_top = open.hi.inf;
			sym__ival_clear(&open);
		}
		make_cands(f, &c[i]);
	}
	/* diagonal points, then random combinations of candidates */
	for (k = 0; k < NCAND + RANDOM_POINTS && !found; k++) {
		int ok = 1;
		for (i = 0; i < nfree; i++) {
			size_t idx;
			if (!c[i].n) {
				ok = 0;
				break;
			}
			if (k < NCAND)
				idx = k < c[i].n ? k : c[i].n - 1;
			else
				idx = (size_t)(rng_next(&seed) % c[i].n);
			sym__num_set(&vals[i], &c[i].v[idx]);
			if (k >= NCAND + RANDOM_POINTS / 2) {
				/* spread out further: add a random multiple of the step */
				const sym_syminfo *si = sym__facts_get(f, order[i]);
				sym_num t;
				sym__num_init(&t);
				sym__num_set_si(&t, (int64_t)(rng_next(&seed) % 97));
				if (si && !sym__num_is_zero(&si->mod))
					sym__num_mul(&t, &t, &si->mod);
				if (c[i].range.lo.inf && !c[i].range.hi.inf)
					sym__num_neg(&t, &t);
				else if (c[i].range.lo.inf && (rng_next(&seed) & 1))
					sym__num_neg(&t, &t);
				sym__num_add(&t, &vals[i], &t);
				if ((c[i].range.hi.inf || sym__num_cmp(&t, &c[i].range.hi.v) <= 0) &&
				    (c[i].range.lo.inf || sym__num_cmp(&t, &c[i].range.lo.v) >= 0))
					sym__num_set(&vals[i], &t);
				sym__num_clear(&t);
			}
		}
		if (!ok)
			break;
		found = try_point(ctx, f, a, b, n, order, vals, nfree);
	}
	if (!found) {
		/* the largest dim last, for the dims that have no end of their own */
		int top = 0, ok = 1;
		for (i = 0; i < nfree; i++) {
			if (c[i].dim_top)
				sym__num_set(&vals[i], &c[i].range.hi.v), top = 1;
			else if (c[i].n)
				sym__num_set(&vals[i], &c[i].v[0]);
			else
				ok = 0;
		}
		if (top && ok)
			found = try_point(ctx, f, a, b, n, order, vals, nfree);
	}
	if (found && w) {
		const sym_expr **ws = sym__alloc(ctx, (n ? n : 1) * sizeof(*ws));
		const sym_expr **wv = sym__alloc(ctx, (n ? n : 1) * sizeof(*wv));
		if (!ws || !wv) {
			sym__free(ctx, ws, (n ? n : 1) * sizeof(*ws));
			sym__free(ctx, wv, (n ? n : 1) * sizeof(*wv));
			found = 0;
			goto cleanup;
		}
		/* report every symbol, in canonical order */
		for (i = 0; i < n; i++)
			ws[i] = order[i];
		qsort(ws, n, sizeof(*ws), sym__cmp_q);
		for (i = 0; i < n; i++) {
			size_t j;
			for (j = 0; j < n; j++)
				if (order[j] == ws[i])
					wv[i] = sym__num_node(ctx, &vals[j]);
		}
		w->n = n, w->syms = ws, w->vals = wv;
	}
cleanup:
	for (i = 0; i < nfree; i++) {
		size_t j;
		for (j = 0; j < c[i].n; j++)
			sym__num_clear(&c[i].v[j]);
		sym__ival_clear(&c[i].range);
	}
	for (i = 0; i < n; i++)
		sym__num_clear(&vals[i]);
done:
	sym__free(ctx, all, cap * sizeof(*all));
	sym__free(ctx, order, (n ? n : 1) * sizeof(*order));
	sym__free(ctx, vals, (n ? n : 1) * sizeof(*vals));
	sym__free(ctx, c, (n ? n : 1) * sizeof(*c));
	return found && !sym__failed(ctx);
}

/* d times B, term by term: a term holding B**-k keeps one power fewer
 * (the factor cancels), any other term is multiplied out. */
static const sym_expr *mul_termwise(sym_ctx *ctx, const sym_expr *d, const sym_expr *B)
{
	sym_lin v;
	sym_sumb s;
	size_t i, j;
	sym__lin_view(d, &v);
	sym__sumb_init(&s, ctx);
	sym__sumb_add(&s, v.c, B);
	for (i = 0; i < v.n; i++) {
		const sym_expr *m = sym__lin_mono(&v, i);
		int has = 0;
		if (m->kind == SYM_KIND_MUL)
			for (j = 0; j < m->n; j++)
				if (node_factors(m)[j].base == B && node_factors(m)[j].exp < 0)
					has = 1;
		if (has)
			sym__sumb_add(&s, sym__lin_coef(&v, i), sym__mono_mul(ctx, m, B));
		else
			sym__sumb_add(&s, sym__lin_coef(&v, i), sym_expr_mul(ctx, m, B));
	}
	return sym__sumb_finish(&s);
}

#define MAX_DENOMS 16

/* Whether D*d is identically 0 for D the product of every reciprocal factor
 * of d: wherever both sides of d = a - b are defined, D is nonzero, so d is
 * 0 there.  Decides rational identities such as x/(y*(y + 1)) ==
 * x*(y + 1)**-1/y that the canonical form leaves apart. */
static int denominators_cancel(sym_ctx *ctx, const sym_expr *d)
{
	sym_factor den[MAX_DENOMS];
	size_t nd = 0, i, j, k;
	sym_lin v;
	int64_t e;
	if (!d)
		return 0;
	sym__lin_view(d, &v);
	for (i = 0; i < v.n; i++) {
		const sym_expr *m = sym__lin_mono(&v, i);
		if (m->kind != SYM_KIND_MUL)
			continue;
		for (j = 0; j < m->n; j++) {
			const sym_factor *fa = &node_factors(m)[j];
			if (fa->exp >= 0)
				continue;
			for (k = 0; k < nd && den[k].base != fa->base; k++)
				;
			if (k == nd) {
				if (nd == MAX_DENOMS)
					return 0;
				den[nd].base = fa->base, den[nd++].exp = 0;
			}
			if (-fa->exp > den[k].exp)
				den[k].exp = -fa->exp;
		}
	}
	if (!nd)
		return 0;
	for (i = 0; i < nd && d; i++)
		for (e = 0; e < den[i].exp && e < 8 && d; e++)
			d = mul_termwise(ctx, d, den[i].base);
	if (!d) {
		if (sym_ctx_last_error(ctx) == SYM_ELIMIT)
			sym_ctx_clear_error(ctx); /* too large to decide: unknown */
		return 0;
	}
	return d == ctx->zero;
}

sym_truth sym_equal(sym_ctx *ctx, sym_facts *f, const sym_expr *a, const sym_expr *b, sym_witness *w)
{
	const sym_expr *sa, *sb, *eq;
	sym_truth t;
	if (w)
		w->n = 0, w->syms = NULL, w->vals = NULL;
	if (!a || !b || sym__failed(ctx))
		return SYM_ERROR;
	if ((a->flags ^ b->flags) & SYM_F_PRED) {
		sym__error(ctx, SYM_EDOMAIN, -1, "cannot compare a predicate with a number");
		return SYM_ERROR;
	}
	if (a == b)
		return SYM_TRUE;
	sa = sym_simplify(ctx, f, a);
	sb = sym_simplify(ctx, f, b);
	if (!sa || !sb)
		return SYM_ERROR;
	if (sa == sb)
		return SYM_TRUE;
	if (a->flags & SYM_F_PRED) {
		/* p <=> q: both implications */
		eq = sym_expr_and(ctx, sym_expr_or(ctx, sym_expr_not(ctx, sa), sb),
		                  sym_expr_or(ctx, sym_expr_not(ctx, sb), sa));
	} else {
		eq = sym_expr_rel(ctx, SYM_REL_EQ, sa, sb);
	}
	t = sym_prove(ctx, f, eq);
	if (t == SYM_TRUE || t == SYM_ERROR)
		return t;
	if (!(a->flags & SYM_F_PRED) && denominators_cancel(ctx, sym_expr_sub(ctx, sa, sb)))
		return SYM_TRUE;
	if (sym__failed(ctx))
		return SYM_ERROR;
	if (find_witness(ctx, f, a, b, w))
		return SYM_FALSE;
	return sym__failed(ctx) ? SYM_ERROR : SYM_UNKNOWN;
}

void sym_witness_clear(sym_ctx *ctx, sym_witness *w)
{
	if (!w || !w->syms)
		return;
	sym__free(ctx, w->syms, (w->n ? w->n : 1) * sizeof(*w->syms));
	sym__free(ctx, w->vals, (w->n ? w->n : 1) * sizeof(*w->vals));
	w->n = 0, w->syms = NULL, w->vals = NULL;
}
