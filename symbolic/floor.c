/* floor, and through it floor division, modulo and ceil; abs. */
#include "node_private.h"

static const sym_num num_one = {{1}, 1};
static const sym_num num_mone = {{-1}, 1};

#define check_num sym__check_num

static const sym_expr *floor_node(sym_ctx *ctx, const sym_expr *arg)
{
	struct sym_expr h = {0};
	h.kind = SYM_KIND_FLOOR;
	h.n = 1;
	return sym__intern(ctx, &h, &arg, sizeof(arg));
}

/* Returns the index of a term k*floor(E)... with coefficient 1/k for a
 * positive integer k such that every other coefficient and the constant
 * times k are integers, or -1.  (All monomials are integer-valued.)  Of
 * several, the one whose E has the smallest common denominator (then the
 * first): (x//2 + x//16*k)/3 merges x//2, the divisions stay small. */
static long mergeable_floor_term(const sym_expr *inner)
{
	sym_lin w, ev;
	sym_num k, u, best, de;
	size_t i, j;
	long found = -1;
	sym__lin_view(inner, &w);
	sym__num_init(&k);
	sym__num_init(&u);
	sym__num_init(&best);
	sym__num_init(&de);
	for (i = 0; i < w.n; i++) {
		int ok;
		if (sym__lin_mono(&w, i)->kind != SYM_KIND_FLOOR || sym__num_sgn(sym__lin_coef(&w, i)) <= 0)
			continue;
		sym__num_div(&k, &num_one, sym__lin_coef(&w, i));
		if (!sym__num_is_int(&k))
			continue;
		sym__num_mul(&u, w.c, &k);
		ok = sym__num_is_int(&u);
		for (j = 0; j < w.n && ok; j++) {
			if (j == i)
				continue;
			sym__num_mul(&u, sym__lin_coef(&w, j), &k);
			ok = sym__num_is_int(&u);
		}
		if (!ok)
			continue;
		sym__lin_view(node_kid(sym__lin_mono(&w, i)), &ev);
		sym__lin_denom(&ev, &de);
		if (found < 0 || sym__num_cmp(&de, &best) < 0) {
			found = (long)i;
			sym__num_set(&best, &de);
		}
	}
	sym__num_clear(&k);
	sym__num_clear(&u);
	sym__num_clear(&best);
	sym__num_clear(&de);
	return found;
}

/* floor((J - floor(E))/k), k >= 2 an integer, J*k and E's monomials
 * integer-valued, is floor((J + floor(E'))/k) with E' = -E + (d - 1)/d
 * (d*E integer-valued: -floor(E) == floor(E')), so the floors merge into
 * floor((J + E')/k).  NULL when e (in view v) has no such term. */
static const sym_expr *merge_negative_floor(sym_ctx *ctx, const sym_expr *e, const sym_lin *v)
{
	sym_num k, u, d;
	sym_lin w;
	size_t i, j;
	const sym_expr *r = NULL;
	sym__num_init(&k);
	sym__num_init(&u);
	sym__num_init(&d);
	for (i = 0; i < v->n && !r; i++) {
		int ok;
		const sym_expr *E, *a;
		if (sym__lin_mono(v, i)->kind != SYM_KIND_FLOOR || sym__num_sgn(sym__lin_coef(v, i)) >= 0)
			continue;
		sym__num_div(&k, &num_mone, sym__lin_coef(v, i));
		if (!sym__num_is_int(&k) || sym__num_is_one(&k))
			continue;
		sym__num_mul(&u, v->c, &k);
		ok = sym__num_is_int(&u);
		for (j = 0; j < v->n && ok; j++) {
			if (j == i)
				continue;
			sym__num_mul(&u, sym__lin_coef(v, j), &k);
			ok = sym__num_is_int(&u);
		}
		E = node_kid(sym__lin_mono(v, i));
		sym__lin_view(E, &w);
		if (!ok || !sym__lin_int_monos(&w))
			continue;
		sym__lin_denom(&w, &d);
		sym__num_sub(&u, &d, &num_one);
		sym__num_div(&u, &u, &d);
		/* e - coef*floor(E) + (-E + (d - 1)/d)/k */
		a = sym__add_num(ctx, sym_expr_neg(ctx, E), &u);
		sym__num_div(&u, &num_one, &k);
		a = sym__scale(ctx, &u, a);
		a = sym_expr_add(
		    ctx, sym_expr_sub(ctx, e, sym__scale(ctx, sym__lin_coef(v, i), sym__lin_mono(v, i))), a);
		if (!a)
			break;
		r = sym_expr_floor(ctx, a);
		if (!r)
			break;
	}
	sym__num_clear(&k);
	sym__num_clear(&u);
	sym__num_clear(&d);
	return r;
}

/* Whether the complement of the floor argument inner (every monomial
 * integer-valued, every coefficient in (0, 1), the constant r/d with
 * 0 <= r < d) comes first: its coefficients are 1 - c_i and its constant is
 * (d - 1 - r)/d.  The first term whose coefficient is not 1/2 decides (the
 * complement when c_i > 1/2), else the constant: all c_i = 1/2 makes d = 2
 * and r is 0 or 1, and the node keeps r = 0 (floor(x/2); ceil(x/2) and
 * floor((x + 1)/2) are x - floor(x/2)).  So exactly one of the two forms is
 * the node. */
static int complement_is_smaller(const sym_expr *inner, const sym_num *d)
{
	static const sym_num half = {{1}, 2};
	sym_lin w;
	sym_num t;
	size_t i;
	int s = 0;
	sym__lin_view(inner, &w);
	for (i = 0; i < w.n && !s; i++)
		s = sym__num_cmp(sym__lin_coef(&w, i), &half);
	if (!s) {
		/* 2*r/d vs (d - 1)/d */
		sym__num_init(&t);
		sym__num_add(&t, w.c, w.c);
		sym__num_mul(&t, &t, d);
		sym__num_add(&t, &t, &num_one);
		s = sym__num_cmp(&t, d);
		sym__num_clear(&t);
	}
	return s > 0;
}

/* floor(e).  Canonical form: integer-valued terms leave the floor; the
 * constant left inside is reduced to [0, 1), or to r/d with 0 <= r < d when
 * the rest is an integer-valued expression divided by d; a floor term with
 * coefficient 1/k (k a positive integer) merges with the outer floor when the
 * remaining terms times k are integer-valued, since
 * floor((floor(E) + J)/k) == floor((E + J)/k) for integer J. */
const sym_expr *sym_expr_floor(sym_ctx *ctx, const sym_expr *e)
{
	sym_lin v;
	sym_sumb out, in;
	sym_num c, d, t, q;
	size_t i;
	int all_int_monos = 1;
	const sym_expr *inner, *fl = NULL, *outer;
	if (!check_num(ctx, e))
		return NULL;
	if (e->kind == SYM_KIND_NUM) {
		sym_num f;
		const sym_expr *r;
		sym__num_init(&f);
		sym__num_floor(&f, node_num(e));
		r = sym__num_node(ctx, &f);
		sym__num_clear(&f);
		return r;
	}
	if (sym__is_int(e))
		return e;
	sym__lin_view(e, &v);
	if (sym__lin_int_monos(&v)) {
		const sym_expr *r = merge_negative_floor(ctx, e, &v);
		if (r || sym__failed(ctx))
			return r;
	}
	sym__sumb_init(&out, ctx);
	sym__sumb_init(&in, ctx);
	sym__num_init(&c);
	sym__num_init(&d);
	sym__num_init(&t);
	sym__num_init(&q);
	sym__num_set_si(&d, 1);
	for (i = 0; i < v.n; i++) {
		const sym_term tv = sym__lin_term(&v, i), *tm = &tv;
		if (sym__is_int(tm->m) && sym__num_is_int(&tm->coef)) {
			sym__sumb_add_term(&out, &tm->coef, tm->m);
			continue;
		}
		if (sym__is_int(tm->m)) {
			/* k*m leaves its integer part floor(k), so the
			 * coefficient left inside is in (0, 1): 7*x/2 is
			 * 3*x + x/2, -x/3 is -x + 2*x/3 */
			sym_num w, fr;
			sym__num_init(&w);
			sym__num_init(&fr);
			sym__num_floor(&w, &tm->coef);
			sym__num_sub(&fr, &tm->coef, &w);
			if (!sym__num_is_zero(&w))
				sym__sumb_add_term(&out, &w, tm->m);
			sym__num_denom(&t, &fr);
			sym__num_lcm(&d, &d, &t);
			sym__sumb_add_term(&in, &fr, tm->m);
			sym__num_clear(&w);
			sym__num_clear(&fr);
			continue;
		}
		if (!sym__is_int(tm->m))
			all_int_monos = 0;
		sym__num_denom(&t, &tm->coef);
		sym__num_lcm(&d, &d, &t);
		sym__sumb_add_term(&in, &tm->coef, tm->m);
	}
	if (all_int_monos) {
		/* floor((N + k)/d) == floor((N + floor(k))/d) for integer N */
		sym__num_mul(&t, v.c, &d);
		sym__num_floor(&t, &t);
		sym__num_div(&q, &t, &d);
		sym__num_floor(&q, &q);
		sym__num_mul(&c, &q, &d);
		sym__num_sub(&c, &t, &c);
		sym__num_div(&c, &c, &d);
	} else {
		sym__num_floor(&q, v.c);
		sym__num_sub(&c, v.c, &q);
	}
	sym__num_add(&out.c, &out.c, &q);
	sym__num_add(&in.c, &in.c, &c);
	inner = sym__sumb_finish(&in);
	if (inner && inner->kind == SYM_KIND_NUM) {
		fl = sym_expr_floor(ctx, inner);
	} else if (inner && all_int_monos) {
		long k = mergeable_floor_term(inner);
		if (k < 0 && complement_is_smaller(inner, &d)) {
			/* floor(E) == -floor(-E + (d - 1)/d) when d*E is
			 * integer-valued: the form with the smaller
			 * coefficients is the node */
			sym__num_sub(&t, &d, &num_one);
			sym__num_div(&t, &t, &d);
			fl = sym_expr_neg(
			    ctx, sym_expr_floor(ctx, sym__add_num(ctx, sym_expr_neg(ctx, inner), &t)));
		} else if (k >= 0) {
			const sym_term tv = node_term(inner, k), *tm = &tv;
			sym_sumb m;
			sym__sumb_init(&m, ctx);
			sym__sumb_add(&m, NULL, inner);
			sym__num_neg(&t, &tm->coef);
			sym__sumb_add_term(&m, &t, tm->m);
			sym__sumb_add(&m, &tm->coef, node_kid(tm->m));
			fl = sym_expr_floor(ctx, sym__sumb_finish(&m));
		} else {
			fl = floor_node(ctx, inner);
		}
	} else if (inner) {
		fl = floor_node(ctx, inner);
	}
	outer = sym__sumb_finish(&out);
	sym__num_clear(&c);
	sym__num_clear(&d);
	sym__num_clear(&t);
	sym__num_clear(&q);
	if (!fl || !outer)
		return NULL;
	return sym_expr_add(ctx, outer, fl);
}

/* Whether floor(a/D), for an integer D >= 2, is the plain node floor(a/D)
 * with every term inside and nothing merged: sym_expr_floor above then
 * moves no term out, keeps the constant and merges no floor.  Then
 * floor(floor(a/D)/c) is floor(a/(D*c)) node for node, so a chain of
 * divisions may fold.  Over integer coefficients the check takes a few
 * comparisons and one gcd with D; otherwise it runs only while D has at
 * most PLAIN_CHECK_BITS bits.  0 is always a safe answer. */
#define PLAIN_CHECK_BITS 256

int sym__floor_is_plain(const sym_expr *a, const sym_num *D)
{
	static const sym_num one = {{1}, 1};
	sym_lin v;
	sym_num t, d, c, g;
	size_t i;
	int ok = 1, all_int = 1, int_coefs;
	if (a->kind == SYM_KIND_NUM)
		return 1;
	sym__lin_view(a, &v);
	int_coefs = sym__num_is_int(v.c);
	for (i = 0; i < v.n; i++) {
		if (!sym__is_int(sym__lin_mono(&v, i)))
			all_int = 0;
		if (!sym__num_is_int(sym__lin_coef(&v, i)))
			int_coefs = 0;
		if (sym__lin_mono(&v, i)->kind == SYM_KIND_FLOOR && sym__num_sgn(sym__lin_coef(&v, i)) > 0)
			return 0; /* a floor term that could merge */
	}
	if (!(all_int && int_coefs) && sym__num_bits(D) > PLAIN_CHECK_BITS)
		return 0;
	if (all_int && !int_coefs)
		return 0; /* the complement may come first */
	sym__num_init(&t);
	sym__num_init(&d);
	sym__num_init(&c);
	sym__num_init(&g);
	if (all_int && int_coefs) {
		/* |n_i| < D for every term; then the denominator of the terms
		 * is D/G with G = gcd(D, n_1, ..., n_k), and the constant stays
		 * when 0 <= c0 < D and G divides c0 */
		int s = 0;
		for (i = 0; i < v.n && ok; i++) {
			ok = sym__num_sgn(sym__lin_coef(&v, i)) > 0 &&
			     sym__num_cmp(sym__lin_coef(&v, i), D) < 0;
			sym__num_gcd(&g, &g, sym__lin_coef(&v, i));
			/* the complement comes first when n_i/D > 1/2 */
			if (!s) {
				sym__num_add(&t, sym__lin_coef(&v, i), sym__lin_coef(&v, i));
				s = sym__num_cmp(&t, D);
			}
		}
		ok = ok && sym__num_sgn(v.c) >= 0 && sym__num_cmp(v.c, D) < 0;
		sym__num_gcd(&g, &g, D);
		if (ok && !sym__num_is_one(&g)) {
			sym__num_div(&t, v.c, &g);
			ok = sym__num_is_int(&t);
		}
		if (ok && !s) {
			/* the constant decides: c0/D vs (d - 1)/(2*d), d = D/G */
			sym__num_div(&d, D, &g);
			sym__num_div(&c, v.c, D);
			sym__num_add(&c, &c, &c);
			sym__num_mul(&c, &c, &d);
			sym__num_add(&c, &c, &one);
			s = sym__num_cmp(&c, &d);
		}
		ok = ok && s < 0;
		goto done;
	}
	sym__num_set_si(&d, 1);
	for (i = 0; i < v.n && ok; i++) {
		sym__num_div(&t, sym__lin_coef(&v, i), D);
		if (sym__is_int(sym__lin_mono(&v, i))) {
			/* a term k*m leaves floor(k) unless 0 < k < 1 */
			ok = sym__num_sgn(&t) > 0 && sym__num_cmp(&t, &one) < 0;
		}
		sym__num_denom(&g, &t);
		sym__num_lcm(&d, &d, &g);
	}
	/* the constant stays: 0 <= c < 1, and c*d an integer over integer
	 * monomials */
	sym__num_div(&c, v.c, D);
	sym__num_mul(&t, &c, &d);
	ok = ok && sym__num_sgn(&c) >= 0 && sym__num_cmp(&c, &one) < 0 && (!all_int || sym__num_is_int(&t));
done:
	sym__num_clear(&t);
	sym__num_clear(&d);
	sym__num_clear(&c);
	sym__num_clear(&g);
	return ok;
}

/* ceil(E) == floor(E + (d - 1)/d) when d*E is integer-valued; otherwise
 * -floor(-E). */
const sym_expr *sym_expr_ceil(sym_ctx *ctx, const sym_expr *e)
{
	sym_lin v;
	if (!check_num(ctx, e))
		return NULL;
	sym__lin_view(e, &v);
	if (sym__lin_int_monos(&v)) {
		sym_num d, t;
		const sym_expr *r;
		sym__num_init(&d);
		sym__num_init(&t);
		sym__lin_denom(&v, &d);
		sym__num_sub(&t, &d, &num_one);
		sym__num_div(&t, &t, &d);
		r = sym_expr_floor(ctx, sym__add_num(ctx, e, &t));
		sym__num_clear(&d);
		sym__num_clear(&t);
		return r;
	}
	return sym_expr_neg(ctx, sym_expr_floor(ctx, sym_expr_neg(ctx, e)));
}

const sym_expr *sym_expr_floordiv(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	if (b && b->kind == SYM_KIND_NUM && sym__num_is_zero(node_num(b)) && !sym__failed(ctx))
		return sym__error(ctx, SYM_EDIVZERO, -1, "floor division by zero");
	return sym_expr_floor(ctx, sym_expr_div(ctx, a, b));
}

const sym_expr *sym_expr_mod(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	const sym_expr *q;
	if (b && b->kind == SYM_KIND_NUM && sym__num_is_zero(node_num(b)) && !sym__failed(ctx))
		return sym__error(ctx, SYM_EDIVZERO, -1, "modulo by zero");
	q = sym_expr_floordiv(ctx, a, b);
	return sym_expr_sub(ctx, a, sym_expr_mul(ctx, b, q));
}

/* Sign of the first term (the constant when there is no term). */
static int leading_sign(const sym_expr *e)
{
	sym_lin v;
	sym__lin_view(e, &v);
	if (v.n)
		return sym__num_sgn(sym__lin_coef(&v, 0));
	return sym__num_sgn(v.c);
}

const sym_expr *sym_expr_abs(sym_ctx *ctx, const sym_expr *e)
{
	struct sym_expr h = {0};
	if (!check_num(ctx, e))
		return NULL;
	if (e->kind == SYM_KIND_NUM) {
		sym_num a;
		const sym_expr *r;
		sym__num_init(&a);
		sym__num_abs(&a, node_num(e));
		r = sym__num_node(ctx, &a);
		sym__num_clear(&a);
		return r;
	}
	if (e->kind == SYM_KIND_ABS)
		return e;
	if (leading_sign(e) < 0)
		e = sym__scale(ctx, &num_mone, e);
	if (!e)
		return NULL;
	if (e->kind == SYM_KIND_ABS) /* abs(-abs(x)) */
		return e;
	if (e->kind == SYM_KIND_ADD && e->n == 1 && sym__num_is_zero(node_add_const(e))) {
		/* abs(c*m) == |c| * abs(m) */
		const sym_term tv = node_term(e, 0), *t = &tv;
		return sym__scale(ctx, &t->coef, sym_expr_abs(ctx, t->m));
	}
	h.kind = SYM_KIND_ABS;
	h.n = 1;
	return sym__intern(ctx, &h, &e, sizeof(e));
}
