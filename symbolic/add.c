/* Sums: constant plus sorted distinct terms coefficient*monomial. */
#include "node_private.h"

#include <stdlib.h>

static const sym_num num_zero = {{0}, 1};
static const sym_num num_one = {{1}, 1};

void sym__lin_view(const sym_expr *e, sym_lin *v)
{
	v->tm = NULL, v->tk = NULL;
	if (e->kind == SYM_KIND_NUM) {
		v->c = node_num(e), v->tf = NULL, v->n = 0;
	} else if (e->kind == SYM_KIND_ADD) {
		v->c = node_add_const(e), v->n = e->n;
		if (e->flags & SYM_F_SMALL) {
			v->tf = NULL;
			v->tm = node_small_monos(e), v->tk = node_small_coefs(e) + 1;
		} else {
			v->tf = (const sym_term *)((const sym_num *)NODE_PAYLOAD(e) + 1);
		}
	} else {
		v->zero = num_zero;
		v->one.coef = num_one;
		v->one.m = e;
		v->c = &v->zero, v->tf = &v->one, v->n = 1;
	}
}

int sym__lin_int_monos(const sym_lin *v)
{
	size_t i;
	for (i = 0; i < v->n; i++)
		if (!sym__is_int(sym__lin_mono(v, i)))
			return 0;
	return 1;
}

void sym__lin_denom(const sym_lin *v, sym_num *d)
{
	sym_num t;
	size_t i;
	sym__num_init(&t);
	sym__num_denom(d, v->c);
	for (i = 0; i < v->n; i++) {
		sym__num_denom(&t, sym__lin_coef(v, i));
		sym__num_lcm(d, d, &t);
	}
	sym__num_clear(&t);
}

int sym__check_num(sym_ctx *ctx, const sym_expr *e)
{
	if (!e || sym__failed(ctx))
		return 0;
	if (e->flags & SYM_F_PRED) {
		sym__error(ctx, SYM_EDOMAIN, -1, "a predicate cannot be used as a number");
		return 0;
	}
	return 1;
}

void sym__sumb_init(sym_sumb *b, sym_ctx *ctx)
{
	b->ctx = ctx;
	sym__num_init(&b->c);
	b->t = b->inl;
	b->n = 0;
	b->cap = SYM_SUMB_INLINE;
	b->sorted = 1;
}

void sym__sumb_clear(sym_sumb *b)
{
	size_t i;
	for (i = 0; i < b->n; i++)
		sym__num_clear(&b->t[i].coef);
	sym__num_clear(&b->c);
	if (b->t != b->inl)
		sym__free(b->ctx, b->t, b->cap * sizeof(*b->t));
	b->t = b->inl;
	b->n = 0;
	b->cap = SYM_SUMB_INLINE;
}

int sym__sumb_add_term(sym_sumb *b, const sym_num *k, const sym_expr *m)
{
	sym_term *t;
	if (b->n == b->cap) {
		if ((b->cap ? b->cap * 2 : 8) > SYM_MAX_TERMS) {
			sym__error(b->ctx, SYM_ELIMIT, -1, "expression has more than %d terms",
			           SYM_MAX_TERMS);
			return 0;
		}
		if (b->t == b->inl) {
			/* the first heap array, twice the inline room */
			sym_term *nt = NULL;
			size_t nc = 0;
			if (SYM_GROW(b->ctx, nt, b->n + 1, nc, b->cap ? b->cap * 2 : 8) < 0)
				return 0;
			memcpy(nt, b->inl, b->n * sizeof(*nt));
			b->t = nt, b->cap = nc;
		} else if (SYM_GROW(b->ctx, b->t, b->n + 1, b->cap, 8) < 0) {
			return 0;
		}
	}
	t = &b->t[b->n++];
	sym__num_init(&t->coef);
	sym__num_set(&t->coef, k ? k : &num_one);
	t->m = m;
	if (b->n > 1 && b->sorted && sym__term_cmp(b->t[b->n - 2].m, m) >= 0)
		b->sorted = 0;
	return 1;
}

int sym__sumb_add(sym_sumb *b, const sym_num *k, const sym_expr *e)
{
	sym_lin v;
	size_t i;
	if (!e)
		return 0;
	if (e->flags & SYM_F_PRED) {
		sym__error(b->ctx, SYM_EDOMAIN, -1, "a predicate cannot be used as a number");
		return 0;
	}
	if (e->kind != SYM_KIND_NUM && e->kind != SYM_KIND_ADD)
		return sym__sumb_add_term(b, k, e); /* a monomial: one term */
	sym__lin_view(e, &v);
	if (k) {
		sym_num t;
		sym__num_init(&t);
		sym__num_mul(&t, k, v.c);
		sym__num_add(&b->c, &b->c, &t);
		for (i = 0; i < v.n; i++) {
			sym__num_mul(&t, k, sym__lin_coef(&v, i));
			if (!sym__sumb_add_term(b, &t, sym__lin_mono(&v, i))) {
				sym__num_clear(&t);
				return 0;
			}
		}
		sym__num_clear(&t);
	} else {
		sym__num_add(&b->c, &b->c, v.c);
		for (i = 0; i < v.n; i++)
			if (!sym__sumb_add_term(b, sym__lin_coef(&v, i), sym__lin_mono(&v, i)))
				return 0;
	}
	return 1;
}

static int term_qcmp(const void *x, const void *y)
{
	const sym_term *a = x, *b = y;
	return sym__term_cmp(a->m, b->m);
}

/* Builds the node for constant c and sorted, combined, nonzero terms. */
static const sym_expr *sum_node(sym_ctx *ctx, const sym_num *c, const sym_term *t, size_t n)
{
	if (n == 0)
		return sym__num_node(ctx, c);
	if (n == 1 && sym__num_is_zero(c) && sym__num_is_one(&t[0].coef))
		return t[0].m;
	return sym__intern_sum(ctx, c, t, n);
}

const sym_expr *sym__sumb_finish(sym_sumb *b)
{
	size_t i, j;
	const sym_expr *r;
	if (sym__failed(b->ctx)) {
		sym__sumb_clear(b);
		return NULL;
	}
	if (!b->sorted) {
		if (b->n <= 24) {
			/* insertion sort: few terms, no allocation */
			for (i = 1; i < b->n; i++) {
				sym_term x = b->t[i];
				for (j = i; j > 0 && sym__term_cmp(b->t[j - 1].m, x.m) > 0; j--)
					b->t[j] = b->t[j - 1];
				b->t[j] = x;
			}
		} else {
			qsort(b->t, b->n, sizeof(*b->t), term_qcmp);
		}
	}
	for (i = 0, j = 0; i < b->n; i++) {
		if (j > 0 && b->t[j - 1].m == b->t[i].m) {
			sym__num_add(&b->t[j - 1].coef, &b->t[j - 1].coef, &b->t[i].coef);
			sym__num_clear(&b->t[i].coef);
			continue;
		}
		if (j > 0 && sym__num_is_zero(&b->t[j - 1].coef))
			j--;
		if (i != j)
			b->t[j] = b->t[i];
		j++;
	}
	if (j > 0 && sym__num_is_zero(&b->t[j - 1].coef))
		j--;
	b->n = j;
	r = sum_node(b->ctx, &b->c, b->t, b->n);
	sym__sumb_clear(b);
	return r;
}

/* Merge of two canonical sums, scaling the second by k (NULL: 1). */
static const sym_expr *add_scaled(sym_ctx *ctx, const sym_expr *a, const sym_num *k, const sym_expr *b)
{
	sym_lin va, vb;
	sym_term stack[32], *out = stack;
	sym_num c, t;
	size_t i = 0, j = 0, n = 0, cap = 32;
	const sym_expr *r = NULL;
	if (!a || !b)
		return NULL;
	if ((a->flags | b->flags) & SYM_F_PRED)
		return sym__error(ctx, SYM_EDOMAIN, -1, "a predicate cannot be used as a number");
	sym__lin_view(a, &va);
	sym__lin_view(b, &vb);
	if (va.n + vb.n > cap) {
		cap = va.n + vb.n;
		if (cap > SYM_MAX_TERMS)
			return sym__error(ctx, SYM_ELIMIT, -1, "expression has more than %d terms",
			                  SYM_MAX_TERMS);
		out = sym__alloc(ctx, cap * sizeof(*out));
		if (!out)
			return NULL;
	}
	sym__num_init(&c);
	sym__num_init(&t);
	if (k)
		sym__num_mul(&t, k, vb.c);
	sym__num_add(&c, va.c, k ? &t : vb.c);
	while (i < va.n || j < vb.n) {
		int cmp = i == va.n   ? 1
		          : j == vb.n ? -1
		                      : sym__term_cmp(sym__lin_mono(&va, i), sym__lin_mono(&vb, j));
		sym_term *o = &out[n];
		sym__num_init(&o->coef);
		if (cmp < 0) {
			sym__num_set(&o->coef, sym__lin_coef(&va, i));
			o->m = sym__lin_mono(&va, i++);
		} else {
			if (k)
				sym__num_mul(&o->coef, k, sym__lin_coef(&vb, j));
			else
				sym__num_set(&o->coef, sym__lin_coef(&vb, j));
			o->m = sym__lin_mono(&vb, j++);
			if (cmp == 0)
				sym__num_add(&o->coef, &o->coef, sym__lin_coef(&va, i++));
		}
		if (sym__num_is_zero(&o->coef))
			continue;
		n++;
	}
	r = sum_node(ctx, &c, out, n);
	for (i = 0; i < n; i++)
		sym__num_clear(&out[i].coef);
	sym__num_clear(&c);
	sym__num_clear(&t);
	if (out != stack)
		sym__free(ctx, out, cap * sizeof(*out));
	return r;
}

const sym_expr *sym_expr_add(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	return add_scaled(ctx, a, NULL, b);
}

const sym_expr *sym_expr_sub(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	static const sym_num m1 = {{-1}, 1};
	return add_scaled(ctx, a, &m1, b);
}

/* k*e for a sum e of at most SCALE_INLINE terms, or a monomial: the terms
 * keep their order, so no merge. */
#define SCALE_INLINE 16

const sym_expr *sym__scale(sym_ctx *ctx, const sym_num *k, const sym_expr *e)
{
	sym_term t[SCALE_INLINE];
	sym_lin v;
	sym_num c;
	size_t i;
	const sym_expr *r;
	if (!e)
		return NULL;
	if (sym__num_is_one(k))
		return e;
	if (sym__num_is_zero(k) || (e->flags & SYM_F_PRED) || e->kind == SYM_KIND_NUM ||
	    (e->kind == SYM_KIND_ADD && e->n > SCALE_INLINE))
		return add_scaled(ctx, ctx->zero, k, e);
	if (sym__failed(ctx))
		return NULL;
	if (k->q == 1 && e->kind != SYM_KIND_ADD) {
		/* k*m: one term, remembered */
		size_t slot = ((size_t)e->hash * 31 + (size_t)k->p) & (SYM_MONO_MEMO - 1);
		sym_term one;
		if (ctx->scale_memo[slot].m == e && ctx->scale_memo[slot].k == k->p)
			return ctx->scale_memo[slot].r;
		one.coef = *k;
		one.m = e;
		if ((r = sum_node(ctx, &num_zero, &one, 1))) {
			ctx->scale_memo[slot].k = k->p, ctx->scale_memo[slot].m = e;
			ctx->scale_memo[slot].r = r;
		}
		return r;
	}
	sym__lin_view(e, &v);
	sym__num_init(&c);
	sym__num_mul(&c, k, v.c);
	for (i = 0; i < v.n; i++) {
		sym__num_init(&t[i].coef);
		sym__num_mul(&t[i].coef, k, sym__lin_coef(&v, i));
		t[i].m = sym__lin_mono(&v, i);
	}
	r = sum_node(ctx, &c, t, v.n);
	for (i = 0; i < v.n; i++)
		sym__num_clear(&t[i].coef);
	sym__num_clear(&c);
	return r;
}

const sym_expr *sym_expr_neg(sym_ctx *ctx, const sym_expr *a)
{
	static const sym_num m1 = {{-1}, 1};
	return sym__scale(ctx, &m1, a);
}

const sym_expr *sym__add_num(sym_ctx *ctx, const sym_expr *e, const sym_num *k)
{
	const sym_expr *kn;
	if (!e)
		return NULL;
	if (sym__num_is_zero(k))
		return e;
	kn = sym__num_node(ctx, k);
	return sym_expr_add(ctx, e, kn);
}
