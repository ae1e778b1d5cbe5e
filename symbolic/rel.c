/* Relations (a difference compared with 0) and connectives.  Negation is
 * pushed to the relations, so there is no negation node. */
#include "node_private.h"

#include <stdint.h>

#include <stdlib.h>

static const sym_num num_one = {{1}, 1};

#define check_num sym__check_num

static int check_pred(sym_ctx *ctx, const sym_expr *e)
{
	if (!e || sym__failed(ctx))
		return 0;
	if (!(e->flags & SYM_F_PRED)) {
		sym__error(ctx, SYM_EDOMAIN, -1, "a number cannot be used as a predicate");
		return 0;
	}
	return 1;
}

static const sym_expr *rel_node(sym_ctx *ctx, sym_kind kind, const sym_expr *d)
{
	struct sym_expr h = {0};
	if (!d)
		return NULL;
	h.kind = (uint8_t)kind;
	h.n = 1;
	return sym__intern(ctx, &h, &d, sizeof(d));
}

static int num_truth(sym_kind kind, const sym_num *v)
{
	int s = sym__num_sgn(v);
	switch (kind) {
	case SYM_KIND_EQ:
		return s == 0;
	case SYM_KIND_NE:
		return s != 0;
	case SYM_KIND_LE:
		return s <= 0;
	default:
		return s < 0;
	}
}

static const sym_expr *rel_canon(sym_ctx *ctx, sym_kind kind, const sym_expr *d);

/* Whether every monomial of e is integer-valued (so e is an integer-valued
 * expression divided by a constant). */
static int int_monos(const sym_expr *e)
{
	sym_lin v;
	sym__lin_view(e, &v);
	return sym__lin_int_monos(&v);
}

/* "P <= 0" where P is +-floor(E) + c: floor(E) <= k  <=>  E < k + 1 and
 * floor(E) >= k  <=>  E >= k for integer k, so the floor disappears. */
static const sym_expr *floor_rel(sym_ctx *ctx, const sym_expr *P)
{
	sym_lin v;
	sym_num t;
	const sym_expr *r;
	if (!P)
		return NULL;
	size_t i, fi = 0, nf = 0;
	const sym_expr *R;
	sym__lin_view(P, &v);
	sym__num_init(&t);
	/* one floor with coefficient +-1; every other term integer-valued
	 * (t is scratch: v.zero may be the view's constant) */
	for (i = 0; i < v.n; i++) {
		if (sym__lin_mono(&v, i)->kind == SYM_KIND_FLOOR &&
		    int_monos(node_kid(sym__lin_mono(&v, i)))) {
			sym__num_abs(&t, sym__lin_coef(&v, i));
			if (sym__num_is_one(&t))
				fi = i, nf++;
		}
	}
	if (nf != 1) {
		sym__num_clear(&t);
		return rel_node(ctx, SYM_KIND_LE, P);
	}
	/* R: everything but the floor, constant included */
	R = sym_expr_sub(ctx, P, sym__scale(ctx, sym__lin_coef(&v, fi), sym__lin_mono(&v, fi)));
	if (sym__num_is_one(sym__lin_coef(&v, fi))) {
		/* F + R <= 0  <=>  F <= -R  <=>  E < 1 - R  <=>  E + R - 1 < 0 */
		sym__num_neg(&t, &num_one);
		r = rel_canon(ctx, SYM_KIND_LT,
		              sym__add_num(ctx, sym_expr_add(ctx, node_kid(sym__lin_mono(&v, fi)), R), &t));
	} else {
		/* -F + R <= 0  <=>  F >= R  <=>  E >= R  <=>  R - E <= 0 */
		r = rel_canon(ctx, SYM_KIND_LE, sym_expr_sub(ctx, R, node_kid(sym__lin_mono(&v, fi))));
	}
	sym__num_clear(&t);
	return r;
}

/* max(A, x) == x  <=>  A <= x, and min(A, x) == x  <=>  A >= x: an
 * equation between a min/max and one of its arguments becomes relations.
 * Returns NULL when d is not of that form. */
static const sym_expr *minmax_eq(sym_ctx *ctx, sym_kind kind, const sym_expr *d)
{
	sym_lin v;
	size_t i, j;
	sym__lin_view(d, &v);
	for (i = 0; i < v.n; i++) {
		const sym_expr *M = sym__lin_mono(&v, i), *X, *r;
		sym_num k;
		if (M->kind != SYM_KIND_MIN && M->kind != SYM_KIND_MAX)
			continue;
		/* c*M + R == 0  <=>  M == -R/c */
		sym__num_init(&k);
		sym__num_div(&k, &(sym_num){{-1}, 1}, sym__lin_coef(&v, i));
		X = sym__scale(ctx, &k, sym_expr_sub(ctx, d, sym__scale(ctx, sym__lin_coef(&v, i), M)));
		sym__num_clear(&k);
		if (!X)
			return NULL;
		for (j = 0; j < M->n && node_kids(M)[j] != X; j++)
			;
		if (j == M->n)
			continue;
		r = ctx->btrue;
		for (j = 0; j < M->n && r; j++) {
			const sym_expr *a = node_kids(M)[j];
			if (a == X)
				continue;
			r = sym_expr_and(ctx, r,
			                 M->kind == SYM_KIND_MAX ? sym_expr_rel(ctx, SYM_REL_LE, a, X)
			                                         : sym_expr_rel(ctx, SYM_REL_GE, a, X));
		}
		return kind == SYM_KIND_EQ ? r : sym_expr_not(ctx, r);
	}
	return NULL;
}

/* (N + r) % q == t, for 0 < r < q, is N % q == (t - r) mod q, and false
 * when t is not an integer in [0, q): d == a*((N + r) % q) + K, written
 * a*(N + r - q*floor((N + r)/q)) + K, with N integer-valued, t = -K/a.
 * Only when floor(N/q) is a plain floor node (its constant then is 0, so
 * the rule does not apply again).  NULL when d has no such form. */
static const sym_expr *mod_eq(sym_ctx *ctx, sym_kind kind, const sym_expr *d)
{
	sym_lin v, w;
	size_t i, f = SIZE_MAX;
	sym_num q, a, r, t, u;
	const sym_expr *A, *N, *K, *res = NULL, *fl, *modr;
	sym__lin_view(d, &v);
	for (i = 0; i < v.n; i++)
		if (sym__lin_mono(&v, i)->kind == SYM_KIND_FLOOR) {
			if (f != SIZE_MAX)
				return NULL;
			f = i;
		}
	if (f == SIZE_MAX)
		return NULL;
	A = node_kid(sym__lin_mono(&v, f));
	sym__lin_view(A, &w);
	if (!sym__lin_int_monos(&w) || sym__num_is_zero(w.c))
		return NULL;
	sym__num_init(&q);
	sym__num_init(&a);
	sym__num_init(&r);
	sym__num_init(&t);
	sym__num_init(&u);
	sym__lin_denom(&w, &q);
	sym__num_mul(&r, w.c, &q); /* 0 < r < q */
	N = sym__add_num(ctx, sym__scale(ctx, &q, A), &(sym_num){{0}, 1});
	sym__num_neg(&t, &r);
	N = sym__add_num(ctx, N, &t);
	/* a = -coef(F)/q; K = d - a*(N + r - q*F) */
	sym__num_div(&a, sym__lin_coef(&v, f), &q);
	sym__num_neg(&a, &a);
	modr = sym_expr_sub(ctx, sym__add_num(ctx, N, &r), sym__scale(ctx, &q, sym__lin_mono(&v, f)));
	K = sym_expr_sub(ctx, d, sym__scale(ctx, &a, modr));
	if (!N || !K || K->kind != SYM_KIND_NUM || !sym__num_is_int(&r))
		goto done;
	/* t = -K/a: the value of (N + r) % q */
	sym__num_div(&t, node_num(K), &a);
	sym__num_neg(&t, &t);
	if (!sym__num_is_int(&t) || sym__num_sgn(&t) < 0 || sym__num_cmp(&t, &q) >= 0) {
		res = sym_expr_bool(ctx, kind == SYM_KIND_NE);
		goto done;
	}
	/* u = (t - r) mod q */
	sym__num_sub(&u, &t, &r);
	if (sym__num_sgn(&u) < 0)
		sym__num_add(&u, &u, &q);
	fl = sym_expr_floor(ctx, sym_expr_div(ctx, N, sym__num_node(ctx, &q)));
	if (!fl || fl->kind != SYM_KIND_FLOOR)
		goto done;
	sym__lin_view(node_kid(fl), &w);
	if (!sym__num_is_zero(w.c))
		goto done;
	sym__num_neg(&u, &u);
	res = rel_canon(ctx, kind, sym__add_num(ctx, sym_expr_sub(ctx, N, sym__scale(ctx, &q, fl)), &u));
done:
	sym__num_clear(&q);
	sym__num_clear(&a);
	sym__num_clear(&r);
	sym__num_clear(&t);
	sym__num_clear(&u);
	return res;
}

/* k*M + R <= 0 (or < 0) with M = min(A_1, ..., A_n) or max(...) is the
 * "or" (min, k > 0; max, k < 0) or the "and" (otherwise) of the relations
 * k*A_i + R <= 0.  Taken when all of them but at most one are decided:
 * min(11, x) <= 9 is x <= 9, x + 2 - max(8, x) <= 0 is x <= 6.  NULL
 * otherwise. */
static const sym_expr *minmax_rel(sym_ctx *ctx, sym_kind kind, const sym_expr *d)
{
	sym_lin v;
	size_t i, at = SIZE_MAX, open = 0;
	const sym_expr *M, *R, *r, *rs[16] = {NULL};
	int is_or;
	sym__lin_view(d, &v);
	for (i = 0; i < v.n; i++)
		if (sym__lin_mono(&v, i)->kind == SYM_KIND_MIN ||
		    sym__lin_mono(&v, i)->kind == SYM_KIND_MAX) {
			if (at != SIZE_MAX)
				return NULL;
			at = i;
		}
	if (at == SIZE_MAX || sym__lin_mono(&v, at)->n > 16)
		return NULL;
	M = sym__lin_mono(&v, at);
	R = sym_expr_sub(ctx, d, sym__scale(ctx, sym__lin_coef(&v, at), M));
	if (!R)
		return NULL;
	is_or = (M->kind == SYM_KIND_MIN) == (sym__num_sgn(sym__lin_coef(&v, at)) > 0);
	for (i = 0; i < M->n; i++) {
		rs[i] = rel_canon(
		    ctx, kind, sym_expr_add(ctx, sym__scale(ctx, sym__lin_coef(&v, at), node_kids(M)[i]), R));
		if (!rs[i])
			return NULL;
		if (rs[i]->kind != SYM_KIND_BOOL && ++open > 1)
			return NULL;
	}
	r = rs[0];
	for (i = 1; i < M->n && r; i++)
		r = is_or ? sym_expr_or(ctx, r, rs[i]) : sym_expr_and(ctx, r, rs[i]);
	return r;
}

/* k*M + c0 == 0 with M = max(C..., O...), C the constant arguments, and
 * c = -c0/k: false when some C > c; max(O...) <= c when some C == c;
 * max(O...) == c when every C < c (and min likewise with the order
 * reversed): max(1, min(5, x)) == 3 is x == 3.  != is the negation.  NULL
 * when M has no constant argument or d no such form. */
static const sym_expr *minmax_eq_const(sym_ctx *ctx, sym_kind kind, const sym_expr *d)
{
	sym_lin v;
	const sym_expr *M, *O[16], *c, *r = NULL;
	sym_num cv;
	size_t i, no = 0, nc = 0;
	int hit = 0, over = 0, is_max;
	sym__lin_view(d, &v);
	if (v.n != 1 ||
	    (sym__lin_mono(&v, 0)->kind != SYM_KIND_MIN && sym__lin_mono(&v, 0)->kind != SYM_KIND_MAX) ||
	    sym__lin_mono(&v, 0)->n > 16)
		return NULL;
	M = sym__lin_mono(&v, 0);
	is_max = M->kind == SYM_KIND_MAX;
	sym__num_init(&cv);
	sym__num_div(&cv, v.c, sym__lin_coef(&v, 0));
	sym__num_neg(&cv, &cv);
	for (i = 0; i < M->n; i++) {
		const sym_expr *a = node_kids(M)[i];
		if (a->kind != SYM_KIND_NUM) {
			O[no++] = a;
			continue;
		}
		nc++;
		if (sym__num_equal(node_num(a), &cv))
			hit = 1;
		else if ((sym__num_cmp(node_num(a), &cv) > 0) == is_max)
			over = 1;
	}
	if (!nc || !no) {
		sym__num_clear(&cv);
		return NULL;
	}
	c = sym__num_node(ctx, &cv);
	sym__num_clear(&cv);
	if (over) {
		r = sym_expr_bool(ctx, 0);
	} else {
		const sym_expr *m = is_max ? sym_expr_max(ctx, no, O) : sym_expr_min(ctx, no, O);
		if (hit)
			r = sym_expr_rel(ctx, is_max ? SYM_REL_LE : SYM_REL_GE, m, c);
		else
			r = sym_expr_rel(ctx, SYM_REL_EQ, m, c);
	}
	return kind == SYM_KIND_NE ? sym_expr_not(ctx, r) : r;
}

/* The canonical relation "d KIND 0". */
static const sym_expr *rel_canon(sym_ctx *ctx, sym_kind kind, const sym_expr *d)
{
	sym_lin v;
	sym_num g, l, t, c;
	size_t i;
	int all_int = 1;
	const sym_expr *r = NULL;
	if (!d)
		return NULL;
	if (d->kind == SYM_KIND_NUM)
		return sym_expr_bool(ctx, num_truth(kind, node_num(d)));
	if (kind == SYM_KIND_LE || kind == SYM_KIND_LT) {
		const sym_expr *mm = minmax_rel(ctx, kind, d);
		if (mm || sym__failed(ctx))
			return mm;
	}
	if (kind == SYM_KIND_EQ || kind == SYM_KIND_NE) {
		const sym_expr *mm = minmax_eq(ctx, kind, d);
		if (mm || sym__failed(ctx))
			return mm;
		if (int_monos(d) && (mm = mod_eq(ctx, kind, d)) != NULL)
			return mm;
		if (sym__failed(ctx))
			return NULL;
		if ((mm = minmax_eq_const(ctx, kind, d)) != NULL)
			return mm;
		if (sym__failed(ctx))
			return NULL;
	}
	sym__lin_view(d, &v);
	all_int = sym__lin_int_monos(&v);
	sym__num_init(&g);
	sym__num_init(&l);
	sym__num_init(&t);
	sym__num_init(&c);
	if (all_int) {
		/* integer-valued after clearing denominators: tighten */
		const sym_expr *D, *P;
		sym__lin_denom(&v, &l);
		D = sym__scale(ctx, &l, d);
		if (!D)
			goto done;
		sym__lin_view(D, &v);
		sym__num_set(&c, v.c);
		if (kind == SYM_KIND_LT) {
			kind = SYM_KIND_LE;
			sym__num_add(&c, &c, &num_one);
		}
		for (i = 0; i < v.n; i++)
			sym__num_gcd(&g, &g, sym__lin_coef(&v, i));
		if (kind == SYM_KIND_EQ || kind == SYM_KIND_NE) {
			sym__num_div(&t, &c, &g);
			if (!sym__num_is_int(&t)) {
				r = sym_expr_bool(ctx, kind == SYM_KIND_NE);
				goto done;
			}
			if (sym__num_sgn(sym__lin_coef(&v, 0)) < 0)
				sym__num_neg(&g, &g);
			sym__num_div(&t, &num_one, &g);
			P = sym__scale(ctx, &t, D);
			r = rel_node(ctx, kind, P);
			goto done;
		}
		/* g*P + c <= 0  <=>  P <= floor(-c/g) */
		sym__num_neg(&t, &c);
		sym__num_div(&t, &t, &g);
		sym__num_floor(&t, &t);
		{
			sym_num inv, k;
			sym__num_init(&inv);
			sym__num_init(&k);
			sym__num_div(&inv, &num_one, &g);
			/* P = (D - constD)/g; result P - t */
			sym__num_neg(&k, v.c);
			P = sym__add_num(ctx, D, &k);
			P = sym__scale(ctx, &inv, P);
			sym__num_neg(&k, &t);
			P = sym__add_num(ctx, P, &k);
			sym__num_clear(&inv);
			sym__num_clear(&k);
		}
		r = floor_rel(ctx, P);
		goto done;
	}
	/* general: divide by the positive content; EQ/NE also fix the sign */
	sym__num_numer(&g, v.c);
	sym__num_denom(&l, v.c);
	for (i = 0; i < v.n; i++) {
		sym__num_numer(&t, sym__lin_coef(&v, i));
		sym__num_gcd(&g, &g, &t);
		sym__num_denom(&t, sym__lin_coef(&v, i));
		sym__num_lcm(&l, &l, &t);
	}
	sym__num_div(&t, &l, &g);
	if ((kind == SYM_KIND_EQ || kind == SYM_KIND_NE) && sym__num_sgn(sym__lin_coef(&v, 0)) < 0)
		sym__num_neg(&t, &t);
	r = rel_node(ctx, kind, sym__scale(ctx, &t, d));
done:
	sym__num_clear(&g);
	sym__num_clear(&l);
	sym__num_clear(&t);
	sym__num_clear(&c);
	return r;
}

const sym_expr *sym_expr_rel(sym_ctx *ctx, sym_relop op, const sym_expr *a, const sym_expr *b)
{
	if (!check_num(ctx, a) || !check_num(ctx, b))
		return NULL;
	switch (op) {
	case SYM_REL_EQ:
		return rel_canon(ctx, SYM_KIND_EQ, sym_expr_sub(ctx, a, b));
	case SYM_REL_NE:
		return rel_canon(ctx, SYM_KIND_NE, sym_expr_sub(ctx, a, b));
	case SYM_REL_LT:
		return rel_canon(ctx, SYM_KIND_LT, sym_expr_sub(ctx, a, b));
	case SYM_REL_LE:
		return rel_canon(ctx, SYM_KIND_LE, sym_expr_sub(ctx, a, b));
	case SYM_REL_GT:
		return rel_canon(ctx, SYM_KIND_LT, sym_expr_sub(ctx, b, a));
	case SYM_REL_GE:
		return rel_canon(ctx, SYM_KIND_LE, sym_expr_sub(ctx, b, a));
	}
	return sym__error(ctx, SYM_EMISUSE, -1, "unknown relation operator %d", (int)op);
}

/* n-ary and/or of a and b: flattened, constants absorbed, sorted, unique. */
static const sym_expr *connective(sym_ctx *ctx, sym_kind kind, const sym_expr *a, const sym_expr *b)
{
	const sym_expr *in[2] = {a, b}, **v, *stack[16], *r = NULL;
	size_t i, j, m = 0, cap = 0;
	int unit = kind == SYM_KIND_AND; /* the neutral constant */
	struct sym_expr h = {0};
	if (!check_pred(ctx, a) || !check_pred(ctx, b))
		return NULL;
	for (i = 0; i < 2; i++) {
		if (in[i]->kind == SYM_KIND_BOOL) {
			if (*(const int64_t *)NODE_PAYLOAD(in[i]) != unit)
				return in[i];
			continue;
		}
		cap += in[i]->kind == kind ? in[i]->n : 1;
	}
	v = cap <= 16 ? stack : sym__alloc(ctx, cap * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < 2; i++) {
		if (in[i]->kind == SYM_KIND_BOOL)
			continue;
		if (in[i]->kind == kind)
			for (j = 0; j < in[i]->n; j++)
				v[m++] = node_kids(in[i])[j];
		else
			v[m++] = in[i];
	}
	qsort(v, m, sizeof(*v), sym__cmp_q);
	for (i = 0, j = 0; i < m; i++)
		if (j == 0 || v[j - 1] != v[i])
			v[j++] = v[i];
	m = j;
	if (m == 0) {
		r = sym_expr_bool(ctx, unit);
	} else if (m == 1) {
		r = v[0];
	} else {
		h.kind = (uint8_t)kind;
		h.n = (uint32_t)m;
		r = sym__intern(ctx, &h, v, m * sizeof(*v));
	}
	if (v != stack)
		sym__free(ctx, v, cap * sizeof(*v));
	return r;
}

const sym_expr *sym_expr_and(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	return connective(ctx, SYM_KIND_AND, a, b);
}

const sym_expr *sym_expr_or(sym_ctx *ctx, const sym_expr *a, const sym_expr *b)
{
	return connective(ctx, SYM_KIND_OR, a, b);
}

const sym_expr *sym_expr_not(sym_ctx *ctx, const sym_expr *a)
{
	size_t i;
	const sym_expr *r;
	if (!check_pred(ctx, a))
		return NULL;
	switch (a->kind) {
	case SYM_KIND_BOOL:
		return sym_expr_bool(ctx, !*(const int64_t *)NODE_PAYLOAD(a));
	case SYM_KIND_EQ:
		return rel_node(ctx, SYM_KIND_NE, node_kid(a));
	case SYM_KIND_NE:
		return rel_node(ctx, SYM_KIND_EQ, node_kid(a));
	case SYM_KIND_LE: /* !(d <= 0)  <=>  -d < 0 */
		return rel_canon(ctx, SYM_KIND_LT, sym_expr_neg(ctx, node_kid(a)));
	case SYM_KIND_LT:
		return rel_canon(ctx, SYM_KIND_LE, sym_expr_neg(ctx, node_kid(a)));
	case SYM_KIND_AND:
	case SYM_KIND_OR:
		r = sym_expr_bool(ctx, a->kind == SYM_KIND_AND ? 0 : 1);
		for (i = 0; i < a->n && r; i++) {
			const sym_expr *n = sym_expr_not(ctx, node_kids(a)[i]);
			r = a->kind == SYM_KIND_AND ? sym_expr_or(ctx, r, n) : sym_expr_and(ctx, r, n);
		}
		return r;
	default:
		return sym__error(ctx, SYM_EDOMAIN, -1, "not a predicate");
	}
}
