/* Products: monomials of atoms with integer exponents, expansion of sums,
 * powers and exact division. */
#include "node_private.h"

#include <stdlib.h>

static const sym_num num_one = {{1}, 1};

#define SYM_MAX_EXP 1000000000LL
/* Terms one product step may form: (terms + 1) * (terms + 1) of the
 * operands.  Together with SYM_MAX_EXPAND_TERMS this keeps any expansion a
 * short text can ask for within tens of megabytes and a fraction of a
 * second, including what simplifying, proving and printing it costs. */
#define SYM_MAX_WORK 100000ULL

/* A product under construction: coefficient times sorted factors. */
typedef struct prod {
	sym_ctx *ctx;
	sym_num coef;
	sym_factor *f;
	size_t n, cap;
	sym_factor stack[16];
} prod;

static void prod_init(prod *p, sym_ctx *ctx)
{
	p->ctx = ctx;
	sym__num_init(&p->coef);
	sym__num_set_si(&p->coef, 1);
	p->f = p->stack;
	p->n = 0;
	p->cap = 16;
}

static void prod_clear(prod *p)
{
	sym__num_clear(&p->coef);
	if (p->f != p->stack)
		sym__free(p->ctx, p->f, p->cap * sizeof(*p->f));
	p->f = p->stack;
	p->n = 0;
	p->cap = 16;
}

static int prod_reserve(prod *p, size_t n)
{
	sym_factor *nf = NULL;
	size_t nc = 0;
	if (n <= p->cap)
		return 1;
	if (p->f != p->stack)
		return SYM_GROW(p->ctx, p->f, n, p->cap, 16) == 0;
	/* the first heap array, twice what is needed */
	if (SYM_GROW(p->ctx, nf, n, nc, n * 2) < 0)
		return 0;
	memcpy(nf, p->f, p->n * sizeof(*nf));
	p->f = nf, p->cap = nc;
	return 1;
}

/* The merge of the sorted factor lists x and y**k into out (room for
 * nx + ny), exponents added; returns the factors kept, or -1 when an
 * exponent of y**k passes the limit (recorded). */
static long merge_factors(sym_ctx *ctx, const sym_factor *x, size_t nx, const sym_factor *y, size_t ny,
                          int64_t k, sym_factor *out)
{
	size_t i = 0, j = 0, m = 0;
	while (i < nx || j < ny) {
		int c = i == nx ? 1 : j == ny ? -1 : sym__cmp(x[i].base, y[j].base);
		int64_t e;
		if (c < 0) {
			out[m++] = x[i++];
			continue;
		}
		if (__builtin_mul_overflow(y[j].exp, k, &e) || e > SYM_MAX_EXP || e < -SYM_MAX_EXP) {
			sym__error(ctx, SYM_ELIMIT, -1, "exponent too large");
			return -1;
		}
		if (c == 0)
			e += x[i++].exp;
		if (e != 0) {
			out[m].base = y[j].base;
			out[m++].exp = e;
		}
		j++;
	}
	return (long)m;
}

/* Multiplies p by the sorted factors f[0..n) each raised to k. */
static int prod_mul_factors(prod *p, const sym_factor *f, size_t n, int64_t k)
{
	sym_factor tmp[16], *out = tmp;
	size_t cap = p->n + n;
	long m;
	int ok = 1;
	if (cap > 16) {
		out = sym__alloc(p->ctx, cap * sizeof(*out));
		if (!out)
			return 0;
	}
	m = merge_factors(p->ctx, p->f, p->n, f, n, k, out);
	if (m >= 0 && prod_reserve(p, (size_t)m)) {
		memcpy(p->f, out, (size_t)m * sizeof(*out));
		p->n = (size_t)m;
	} else {
		ok = 0;
	}
	if (out != tmp)
		sym__free(p->ctx, out, cap * sizeof(*out));
	return ok;
}

const sym_expr *sym__monomial(sym_ctx *ctx, const sym_factor *f, size_t n)
{
	struct sym_expr h = {0};
	if (sym__failed(ctx))
		return NULL;
	if (n == 0)
		return ctx->one;
	if (n == 1 && f[0].exp == 1)
		return f[0].base;
	h.kind = SYM_KIND_MUL;
	h.n = (uint32_t)n;
	return sym__intern(ctx, &h, f, n * sizeof(*f));
}

/* Views a monomial (atom, MUL or the number 1) as a factor list. */
static const sym_factor *mono_factors(const sym_expr *m, sym_factor *one, size_t *n)
{
	if (m->kind == SYM_KIND_MUL) {
		*n = m->n;
		return node_factors(m);
	}
	if (m->kind == SYM_KIND_NUM) {
		*n = 0;
		return one;
	}
	one->base = m, one->exp = 1;
	*n = 1;
	return one;
}

/* sym__mono_mul past its memo. */
static const sym_expr *mono_mul(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	prod p;
	sym_factor fa, fb;
	const sym_factor *x, *y;
	size_t nx, ny;
	const sym_expr *r = NULL;
	x = mono_factors(a, &fa, &nx);
	y = mono_factors(b, &fb, &ny);
	if (nx == 0)
		return b;
	if (ny == 0)
		return a;
	if (nx + ny <= 16) { /* on the stack */
		sym_factor out[16];
		long m = merge_factors(ctx, x, nx, y, ny, 1, out);
		return m < 0 ? NULL : sym__monomial(ctx, out, (size_t)m);
	}
	prod_init(&p, ctx);
	if (prod_reserve(&p, nx)) {
		memcpy(p.f, x, nx * sizeof(*x));
		p.n = nx;
		if (prod_mul_factors(&p, y, ny, 1))
			r = sym__monomial(ctx, p.f, p.n);
	}
	prod_clear(&p);
	return r;
}

const sym_expr *sym__mono_mul(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	size_t slot;
	const sym_expr *r;
	if (!a || !b)
		return NULL;
	slot = ((size_t)a->hash * 31 + b->hash) & (SYM_MONO_MEMO - 1);
	if (ctx->mono_memo[slot].a == a && ctx->mono_memo[slot].b == b && !sym__failed(ctx))
		return ctx->mono_memo[slot].r;
	if ((r = mono_mul(ctx, a, b))) {
		ctx->mono_memo[slot].a = a, ctx->mono_memo[slot].b = b;
		ctx->mono_memo[slot].r = r;
	}
	return r;
}

/* Splits a genuine sum s into content * primitive sum: the primitive sum has
 * integer coprime coefficients and a positive first term. */
static const sym_expr *sum_primitive(sym_ctx *ctx, const sym_expr *s, sym_num *content)
{
	sym_lin v;
	sym_num g, l, t;
	size_t i;
	const sym_expr *r;
	sym__lin_view(s, &v);
	sym__num_init(&g);
	sym__num_init(&l);
	sym__num_init(&t);
	sym__num_numer(&g, v.c);
	sym__num_denom(&l, v.c);
	for (i = 0; i < v.n; i++) {
		sym__num_numer(&t, sym__lin_coef(&v, i));
		sym__num_gcd(&g, &g, &t);
		sym__num_denom(&t, sym__lin_coef(&v, i));
		sym__num_lcm(&l, &l, &t);
	}
	sym__num_div(content, &g, &l);
	if (v.n && sym__num_sgn(sym__lin_coef(&v, 0)) < 0)
		sym__num_neg(content, content);
	sym__num_div(&t, &num_one, content);
	r = sym__scale(ctx, &t, s);
	sym__num_clear(&g);
	sym__num_clear(&l);
	sym__num_clear(&t);
	return r;
}

static int is_sum(const sym_expr *e)
{
	return e->kind == SYM_KIND_ADD && (e->n > 1 || !sym__num_is_zero(node_add_const(e)));
}

/* Multiplies p by e**k (k = 1 or -1 here, or any k for non-sums). */
static int prod_mul_expr(prod *p, const sym_expr *e, int64_t k)
{
	sym_factor one;
	size_t n;
	const sym_factor *f;
	if (e->kind == SYM_KIND_NUM) {
		sym_num t;
		int ok;
		sym__num_init(&t);
		if (k < 0 && sym__num_is_zero(node_num(e))) {
			sym__error(p->ctx, SYM_EDIVZERO, -1, "division by zero");
			return 0;
		}
		ok = sym__num_pow(&t, node_num(e), k, SYM_MAX_BITS);
		if (!ok)
			sym__error(p->ctx, SYM_ELIMIT, -1, "number too large (more than %lu bits)",
			           SYM_MAX_BITS);
		else
			sym__num_mul(&p->coef, &p->coef, &t);
		sym__num_clear(&t);
		return ok;
	}
	if (e->kind == SYM_KIND_ADD && !is_sum(e)) {
		sym_num t;
		int ok;
		sym__num_init(&t);
		ok = sym__num_pow(&t, node_coef(e, 0), k, SYM_MAX_BITS);
		if (!ok)
			sym__error(p->ctx, SYM_ELIMIT, -1, "number too large (more than %lu bits)",
			           SYM_MAX_BITS);
		else
			sym__num_mul(&p->coef, &p->coef, &t);
		sym__num_clear(&t);
		return ok && prod_mul_expr(p, node_mono(e, 0), k);
	}
	if (e->kind == SYM_KIND_ADD) {
		sym_num c, t;
		const sym_expr *prim;
		int ok = 0;
		sym__num_init(&c);
		sym__num_init(&t);
		prim = sum_primitive(p->ctx, e, &c);
		if (prim && sym__num_pow(&t, &c, k, SYM_MAX_BITS)) {
			sym_factor fp = {prim, 1};
			sym__num_mul(&p->coef, &p->coef, &t);
			ok = prod_mul_factors(p, &fp, 1, k);
		} else if (prim) {
			sym__error(p->ctx, SYM_ELIMIT, -1, "number too large (more than %lu bits)",
			           SYM_MAX_BITS);
		}
		sym__num_clear(&c);
		sym__num_clear(&t);
		return ok;
	}
	f = mono_factors(e, &one, &n);
	return prod_mul_factors(p, f, n, k);
}

/* Whether every monomial of the sum s has only positive exponents. */
static int polynomial_terms(const sym_expr *s)
{
	sym_lin v;
	size_t i, j;
	sym__lin_view(s, &v);
	for (i = 0; i < v.n; i++)
		if (sym__lin_mono(&v, i)->kind == SYM_KIND_MUL)
			for (j = 0; j < sym__lin_mono(&v, i)->n; j++)
				if (node_factors(sym__lin_mono(&v, i))[j].exp < 0)
					return 0;
	return 1;
}

#define MAX_DIV_STEPS 2000
/* Term visits one exact division may make (the sum of the remainders'
 * sizes): past it the division gives up, so the sum factors are not
 * cancelled, which is sound and keeps a short text from dividing a long
 * expansion step by step (1 % (a + b)**-700 took 90 s). */
#define MAX_DIV_WORK 100000

/* Exact division of the polynomial a by the polynomial s: returns the
 * quotient, or NULL when s does not divide a (or the division is too
 * long).  Leading terms are the first terms of the canonical order. */
static const sym_expr *poly_div_exact(sym_ctx *ctx, const sym_expr *a, const sym_expr *s)
{
	const sym_expr *r = a, *q = ctx->zero;
	sym_lin vs, vr;
	int step;
	size_t work = 0;
	sym__lin_view(s, &vs);
	if (!vs.n || !polynomial_terms(a) || !polynomial_terms(s))
		return NULL;
	for (step = 0; step < MAX_DIV_STEPS && r; step++) {
		prod t;
		sym_factor one;
		const sym_factor *f;
		size_t n, i;
		const sym_expr *qt;
		int ok;
		if (r == ctx->zero)
			return q;
		sym__lin_view(r, &vr);
		if (!vr.n || (work += vr.n + vs.n) > MAX_DIV_WORK)
			return NULL;
		/* lt(r) / lt(s) must be a monomial */
		prod_init(&t, ctx);
		f = mono_factors(sym__lin_mono(&vr, 0), &one, &n);
		ok = prod_mul_factors(&t, f, n, 1);
		f = mono_factors(sym__lin_mono(&vs, 0), &one, &n);
		ok = ok && prod_mul_factors(&t, f, n, -1);
		for (i = 0; ok && i < t.n; i++)
			if (t.f[i].exp < 0)
				ok = 0;
		if (ok) {
			sym__num_div(&t.coef, sym__lin_coef(&vr, 0), sym__lin_coef(&vs, 0));
			qt = sym__scale(ctx, &t.coef, sym__monomial(ctx, t.f, t.n));
		}
		prod_clear(&t);
		if (!ok)
			return NULL;
		q = sym_expr_add(ctx, q, qt);
		r = sym_expr_sub(ctx, r, sym_expr_mul(ctx, qt, s));
	}
	return NULL;
}

/* A positive sum factor divisible by a sum that is also a factor with a
 * negative exponent cancels: ((x + 1)*y) / (x + 1) is y.  Returns NULL when
 * no pair cancels. */
static const sym_expr *cancel_sum_factors(prod *p)
{
	sym_ctx *ctx = p->ctx;
	size_t i, j, k;
	for (i = 0; i < p->n; i++) {
		if (!(p->f[i].exp > 0 && p->f[i].base->kind == SYM_KIND_ADD))
			continue;
		for (j = 0; j < p->n; j++) {
			const sym_expr *q, *r;
			if (!(p->f[j].exp < 0 && p->f[j].base->kind == SYM_KIND_ADD))
				continue;
			q = poly_div_exact(ctx, p->f[i].base, p->f[j].base);
			if (!q)
				continue;
			/* coef * q * (the factors with one P and one 1/S fewer) */
			r = sym__num_node(ctx, &p->coef);
			r = sym_expr_mul(ctx, r, q);
			for (k = 0; k < p->n && r; k++) {
				int64_t e = p->f[k].exp - (k == i) + (k == j);
				if (e)
					r = sym_expr_mul(ctx, r, sym_expr_pow_si(ctx, p->f[k].base, e));
			}
			return r ? r : ctx->zero; /* NULL only on error, recorded */
		}
	}
	return NULL;
}

/* a*b for polynomial-like operands: every pair of terms once, one sort. */
static const sym_expr *distribute(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	sym_lin va, vb;
	sym_sumb s;
	sym_num t;
	size_t i, j;
	sym__lin_view(a, &va);
	sym__lin_view(b, &vb);
	if (va.n == 1 && vb.n == 1 && sym__num_is_zero(va.c) && sym__num_is_zero(vb.c)) {
		/* two terms: their coefficients' product times their monomials' */
		const sym_expr *m = sym__mono_mul(ctx, sym__lin_mono(&va, 0), sym__lin_mono(&vb, 0)), *r;
		sym__num_init(&t);
		sym__num_mul(&t, sym__lin_coef(&va, 0), sym__lin_coef(&vb, 0));
		r = sym__scale(ctx, &t, m);
		sym__num_clear(&t);
		return r;
	}
	if ((unsigned long long)(va.n + 1) * (vb.n + 1) > SYM_MAX_WORK)
		return sym__error(ctx, SYM_ELIMIT, -1, "expansion too large");
	sym__sumb_init(&s, ctx);
	sym__num_init(&t);
	sym__num_mul(&s.c, va.c, vb.c);
	for (i = 0; i < va.n; i++) {
		if (!sym__num_is_zero(vb.c)) {
			sym__num_mul(&t, sym__lin_coef(&va, i), vb.c);
			sym__sumb_add_term(&s, &t, sym__lin_mono(&va, i));
		}
		for (j = 0; j < vb.n; j++) {
			const sym_expr *m = sym__mono_mul(ctx, sym__lin_mono(&va, i), sym__lin_mono(&vb, j));
			if (!m)
				break;
			sym__num_mul(&t, sym__lin_coef(&va, i), sym__lin_coef(&vb, j));
			sym__sumb_add(&s, &t, m);
		}
	}
	if (!sym__num_is_zero(va.c))
		for (j = 0; j < vb.n; j++) {
			sym__num_mul(&t, va.c, sym__lin_coef(&vb, j));
			sym__sumb_add_term(&s, &t, sym__lin_mono(&vb, j));
		}
	sym__num_clear(&t);
	return sym__sumb_finish(&s);
}

/* Expands coef * monomial * product of the positive sum factors. */
static const sym_expr *prod_finish(prod *p)
{
	sym_ctx *ctx = p->ctx;
	sym_factor *rest;
	size_t i, nr = 0, nsum = 0, nneg = 0;
	const sym_expr *acc, *mono;
	if (sym__failed(ctx))
		return NULL;
	for (i = 0; i < p->n; i++)
		if (p->f[i].exp < 0 && p->f[i].base->kind == SYM_KIND_ADD)
			nneg++;
	if (nneg) {
		const sym_expr *c = cancel_sum_factors(p);
		if (c || sym__failed(ctx))
			return sym__failed(ctx) ? NULL : c;
	}
	for (i = 0; i < p->n; i++)
		if (p->f[i].exp > 0 && p->f[i].base->kind == SYM_KIND_ADD)
			nsum++;
	if (sym__num_is_zero(&p->coef))
		return ctx->zero;
	if (nsum == 0) {
		mono = sym__monomial(ctx, p->f, p->n);
		return sym__scale(ctx, &p->coef, mono);
	}
	rest = sym__alloc(ctx, p->n * sizeof(*rest));
	if (!rest)
		return NULL;
	for (i = 0; i < p->n; i++)
		if (!(p->f[i].exp > 0 && p->f[i].base->kind == SYM_KIND_ADD))
			rest[nr++] = p->f[i];
	mono = sym__monomial(ctx, rest, nr);
	sym__free(ctx, rest, p->n * sizeof(*rest));
	acc = sym__scale(ctx, &p->coef, mono);
	for (i = 0; i < p->n && acc; i++) {
		const sym_expr *s = p->f[i].base;
		if (!(p->f[i].exp > 0 && s->kind == SYM_KIND_ADD))
			continue;
		/* a power of a sum expands once, under the multinomial's cost
		 * limit: distributing it factor by factor costs the square of
		 * its terms, and (x + y)**-7 // (x + y)**-700 reaches here with
		 * the sum to the power 693 */
		if (p->f[i].exp > 1)
			s = sym_expr_pow_si(ctx, s, p->f[i].exp);
		acc = s ? distribute(ctx, acc, s) : NULL; /* NULL: error recorded */
	}
	return acc;
}

#define check_num_operand sym__check_num

/* A sum each of whose terms has the reciprocal of the primitive sum s as a
 * factor, times s: the factor cancels termwise instead of expanding, so
 * ((x + 1)/(y + 1)) * (y + 1) is x + 1.  Returns NULL when not applicable. */
static const sym_expr *cancel_into_terms(sym_ctx *ctx, const sym_expr *a, const sym_expr *s)
{
	sym_num c, t;
	const sym_expr *prim;
	sym_lin v;
	sym_sumb b;
	size_t i, j;
	sym__lin_view(a, &v);
	if (!sym__num_is_zero(v.c) || v.n < 2)
		return NULL;
	sym__num_init(&c);
	sym__num_init(&t);
	prim = sum_primitive(ctx, s, &c);
	for (i = 0; prim && i < v.n; i++) {
		const sym_expr *m = sym__lin_mono(&v, i);
		int has = 0;
		if (m->kind == SYM_KIND_MUL)
			for (j = 0; j < m->n; j++)
				if (node_factors(m)[j].base == prim && node_factors(m)[j].exp < 0)
					has = 1;
		if (!has)
			break;
	}
	if (!prim || i < v.n) {
		sym__num_clear(&c);
		sym__num_clear(&t);
		return NULL;
	}
	sym__sumb_init(&b, ctx);
	for (i = 0; i < v.n; i++) {
		sym_factor fp = {prim, 1};
		const sym_expr *m = sym__mono_mul(ctx, sym__lin_mono(&v, i), sym__monomial(ctx, &fp, 1));
		sym__num_mul(&t, sym__lin_coef(&v, i), &c);
		sym__sumb_add(&b, &t, m);
	}
	sym__num_clear(&c);
	sym__num_clear(&t);
	return sym__sumb_finish(&b);
}

static const sym_expr *mul_pow(sym_ctx *ctx, const sym_expr *a, const sym_expr *b, int64_t kb)
{
	prod p;
	const sym_expr *r = NULL;
	if (!check_num_operand(ctx, a) || !check_num_operand(ctx, b))
		return NULL;
	if (kb == 1 && is_sum(a) && is_sum(b)) {
		if ((r = cancel_into_terms(ctx, a, b)) || sym__failed(ctx))
			return r;
		if ((r = cancel_into_terms(ctx, b, a)) || sym__failed(ctx))
			return r;
	}
	prod_init(&p, ctx);
	if (prod_mul_expr(&p, a, 1) && prod_mul_expr(&p, b, kb))
		r = prod_finish(&p);
	prod_clear(&p);
	return r;
}

/* Whether no monomial of e has a reciprocal of a sum as a factor: then a
 * product needs no cancellation and distributes directly. */
/* Whether monomial m has no sum to a negative power. */
static int mono_polynomial_like(const sym_expr *m)
{
	size_t j;
	if (m->kind != SYM_KIND_MUL)
		return 1;
	for (j = 0; j < m->n; j++)
		if (node_factors(m)[j].exp < 0 && node_factors(m)[j].base->kind == SYM_KIND_ADD)
			return 0;
	return 1;
}

static int polynomial_like(const sym_expr *e)
{
	size_t i;
	if (e->kind != SYM_KIND_ADD)
		return e->kind == SYM_KIND_NUM || mono_polynomial_like(e);
	for (i = 0; i < e->n; i++)
		if (!mono_polynomial_like(node_mono(e, i)))
			return 0;
	return 1;
}

int sym__mul_gatherable(const sym_expr *e)
{
	size_t i;
	if (!e || (e->flags & SYM_F_PRED) || e->kind == SYM_KIND_NUM || e->kind == SYM_KIND_ADD)
		return 0;
	if (e->kind == SYM_KIND_MUL)
		for (i = 0; i < e->n; i++)
			if (node_factors(e)[i].base->kind == SYM_KIND_ADD)
				return 0;
	return 1;
}

typedef struct gfactor {
	sym_factor f;
	size_t pos; /* operand order: equal bases combine as the fold would */
} gfactor;

static int gfactor_cmp(const void *a, const void *b)
{
	const gfactor *x = a, *y = b;
	int c = sym__cmp(x->f.base, y->f.base);
	return c ? c : x->pos < y->pos ? -1 : x->pos > y->pos;
}

const sym_expr *sym__mul_list(sym_ctx *ctx, size_t n, const sym_expr *const *ops)
{
	gfactor *g;
	sym_factor *out;
	size_t total = 0, i, j, m = 0;
	const sym_expr *r = NULL;
	if (n == 1)
		return ops[0];
	for (i = 0; i < n; i++) {
		if (!ops[i] || !sym__mul_gatherable(ops[i]) || sym__failed(ctx)) {
			/* not a product of atoms: the operator one at a time */
			r = ops[0];
			for (j = 1; j < n && r; j++)
				r = sym_expr_mul(ctx, r, ops[j]);
			return r;
		}
		total += ops[i]->kind == SYM_KIND_MUL ? ops[i]->n : 1;
	}
	g = sym__alloc(ctx, total * sizeof(*g));
	out = g ? sym__alloc(ctx, total * sizeof(*out)) : NULL;
	if (!out)
		goto done;
	for (i = 0; i < n; i++) {
		sym_factor one;
		size_t nf, k;
		const sym_factor *f = mono_factors(ops[i], &one, &nf);
		for (k = 0; k < nf; k++, m++)
			g[m].f = f[k], g[m].pos = m;
	}
	qsort(g, total, sizeof(*g), gfactor_cmp);
	m = 0;
	for (i = 0; i < total; i = j) {
		int64_t e = 0;
		for (j = i; j < total && g[j].f.base == g[i].f.base; j++) {
			if (g[j].f.exp > SYM_MAX_EXP || g[j].f.exp < -SYM_MAX_EXP) {
				sym__error(ctx, SYM_ELIMIT, -1, "exponent too large");
				goto done;
			}
			e += g[j].f.exp;
		}
		if (e != 0) {
			out[m].base = g[i].f.base;
			out[m++].exp = e;
		}
	}
	r = sym__monomial(ctx, out, m);
done:
	sym__free(ctx, out, total * sizeof(*out));
	sym__free(ctx, g, total * sizeof(*g));
	return r;
}

const sym_expr *sym_expr_mul(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	if (a && b && a->kind == SYM_KIND_NUM)
		return sym__scale(ctx, node_num(a), b);
	if (a && b && b->kind == SYM_KIND_NUM)
		return sym__scale(ctx, node_num(b), a);
	if (a && b && !((a->flags | b->flags) & SYM_F_PRED) && !sym__failed(ctx) && polynomial_like(a) &&
	    polynomial_like(b))
		return distribute(ctx, a, b);
	return mul_pow(ctx, a, b, 1);
}

const sym_expr *sym_expr_div(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	if (a && b && b->kind == SYM_KIND_NUM && check_num_operand(ctx, a)) {
		sym_num t;
		const sym_expr *r;
		if (sym__num_is_zero(node_num(b)))
			return sym__error(ctx, SYM_EDIVZERO, -1, "division by zero");
		sym__num_init(&t);
		sym__num_div(&t, &num_one, node_num(b));
		r = sym__scale(ctx, &t, a);
		sym__num_clear(&t);
		return r;
	}
	return mul_pow(ctx, a, b, -1);
}

#define SYM_MAX_EXPAND_WORK 5e6
#define SYM_MAX_EXPAND_TERMS 30000.0

/* Estimated cost of expanding the sum a to the power n: steps times terms
 * of the result times the machine words of its coefficients. */
static double expansion_work(const sym_expr *a, long long n)
{
	sym_lin v;
	size_t i, bits = 1;
	double k, terms = 1, j;
	sym__lin_view(a, &v);
	k = (double)v.n + (sym__num_is_zero(v.c) ? 0 : 1);
	/* terms of (t1 + ... + tk)**n: C(n + k - 1, k - 1), capped */
	for (j = 1; j < k && terms < 1e12; j++)
		terms = terms * ((double)n + j) / j;
	for (i = 0; i < v.n; i++)
		if (sym__num_bits(sym__lin_coef(&v, i)) > bits)
			bits = sym__num_bits(sym__lin_coef(&v, i));
	if (sym__num_bits(v.c) > bits)
		bits = sym__num_bits(v.c);
	if (terms > SYM_MAX_EXPAND_TERMS)
		return 2 * SYM_MAX_EXPAND_WORK;
	/* coefficients grow like multinomials: about n*log2(k) + n*bits */
	return (double)n * terms * (1.0 + ((double)n * (bits + 2.0)) / 64.0);
}

/* One level of the multinomial expansion: every exponent a_i of term i
 * for a remaining total rem, the coefficient carrying
 * C(rem, a_i) * c_i**a_i and the monomial m_i**a_i. */
typedef struct mexp {
	sym_ctx *ctx;
	sym_lin v;
	size_t k; /* terms, the constant counted last when nonzero */
	sym_sumb *b;
} mexp;

static void mexp_level(mexp *x, size_t i, long long rem, const sym_num *coef, const sym_expr *mono)
{
	const sym_num *ci = i < x->v.n ? sym__lin_coef(&x->v, i) : x->v.c;
	const sym_expr *mi = i < x->v.n ? sym__lin_mono(&x->v, i) : NULL;
	sym_num c, binom, t;
	long long e;
	if (sym__failed(x->ctx))
		return;
	if (i + 1 == x->k) {
		/* the last term takes what remains */
		const sym_expr *m = mono;
		sym__num_init(&c);
		if (!sym__num_pow(&c, ci, rem, SYM_MAX_BITS)) {
			sym__error(x->ctx, SYM_ELIMIT, -1, "number too large (more than %lu bits)",
			           SYM_MAX_BITS);
			sym__num_clear(&c);
			return;
		}
		sym__num_mul(&c, &c, coef);
		if (mi && rem) {
			sym_factor f;
			f.base = mi, f.exp = rem;
			m = mi->kind == SYM_KIND_MUL ? sym_expr_pow_si(x->ctx, mi, rem)
			                             : sym__monomial(x->ctx, &f, 1);
			m = m ? sym__mono_mul(x->ctx, mono, m) : NULL;
		}
		if (m)
			sym__sumb_add(x->b, &c, m);
		sym__num_clear(&c);
		return;
	}
	sym__num_init(&c);
	sym__num_init(&binom);
	sym__num_init(&t);
	sym__num_set(&c, coef);
	sym__num_set_si(&binom, 1);
	for (e = 0; e <= rem && mono; e++) {
		sym__num_mul(&t, &c, &binom);
		mexp_level(x, i + 1, rem - e, &t, mono);
		/* next exponent: C(rem, e+1) = C(rem, e)*(rem - e)/(e + 1) */
		sym__num_set_si(&t, rem - e);
		sym__num_mul(&binom, &binom, &t);
		sym__num_set_si(&t, e + 1);
		sym__num_div(&binom, &binom, &t);
		sym__num_mul(&c, &c, ci);
		if (mi)
			mono = sym__mono_mul(x->ctx, mono, mi);
	}
	sym__num_clear(&c);
	sym__num_clear(&binom);
	sym__num_clear(&t);
}

/* (t_1 + ... + t_k)**n by the multinomial theorem: every term is built
 * once and the sum is sorted once. */
static const sym_expr *multinomial(sym_ctx *ctx, const sym_expr *a, long long n)
{
	mexp x;
	sym_sumb b;
	sym_num one;
	x.ctx = ctx;
	sym__lin_view(a, &x.v);
	x.k = x.v.n + !sym__num_is_zero(x.v.c);
	sym__sumb_init(&b, ctx);
	x.b = &b;
	sym__num_init(&one);
	sym__num_set_si(&one, 1);
	mexp_level(&x, 0, n, &one, ctx->one);
	sym__num_clear(&one);
	return sym__sumb_finish(&b);
}

const sym_expr *sym_expr_pow_si(sym_ctx *ctx, const sym_expr *a, long long n)
{
	prod p;
	const sym_expr *r = NULL;
	if (!check_num_operand(ctx, a))
		return NULL;
	if (n == 0)
		return ctx->one;
	if (n > SYM_MAX_EXP || n < -SYM_MAX_EXP)
		return sym__error(ctx, SYM_ELIMIT, -1, "exponent %lld too large", n);
	if (is_sum(a) && n > 1) {
		if (expansion_work(a, n) > SYM_MAX_EXPAND_WORK)
			return sym__error(ctx, SYM_ELIMIT, -1,
			                  "expanding a sum of %zu terms to the power %lld is too large",
			                  (size_t)a->n + !sym__num_is_zero(node_add_const(a)), n);
		return multinomial(ctx, a, n);
	}
	prod_init(&p, ctx);
	if (is_sum(a)) {
		if (prod_mul_expr(&p, a, n < 0 ? -1 : 1)) {
			if (n < -1) {
				/* the sum is now one factor; raise everything to |n| */
				size_t i;
				sym_num t;
				int ok = 1;
				sym__num_init(&t);
				for (i = 0; i < p.n && ok; i++)
					if (__builtin_mul_overflow(p.f[i].exp, -n, &p.f[i].exp) ||
					    p.f[i].exp > SYM_MAX_EXP || p.f[i].exp < -SYM_MAX_EXP)
						ok = 0;
				if (!ok)
					sym__error(ctx, SYM_ELIMIT, -1, "exponent too large");
				else if (!sym__num_pow(&t, &p.coef, -n, SYM_MAX_BITS))
					sym__error(ctx, SYM_ELIMIT, -1,
					           "number too large (more than %lu bits)", SYM_MAX_BITS);
				else
					sym__num_set(&p.coef, &t);
				sym__num_clear(&t);
			}
			r = prod_finish(&p);
		}
	} else if (prod_mul_expr(&p, a, n)) {
		r = prod_finish(&p);
	}
	prod_clear(&p);
	return r;
}
