/* The contextual simplifier: defining equalities substituted, then
 * range-driven rewrites bottom-up until nothing changes. */
#include "facts_private.h"

#define MAX_ROUNDS 16

typedef struct simp {
	sym_ctx *ctx;
	const sym_facts *f;
	sym_memo memo;
} simp;

static const sym_expr *simp_node(simp *s, const sym_expr *e);

/* floor(N/d) == (N - r)/d when N == r (mod d) is known for the integer
 * N = d*E. */
static const sym_expr *rw_floor_residue(simp *s, const sym_expr *e)
{
	sym_lin v;
	sym_num d, t, m, r;
	size_t i;
	const sym_expr *res = e, *N;
	sym__lin_view(node_kid(e), &v);
	sym__num_init(&d);
	sym__num_init(&t);
	sym__num_init(&m);
	sym__num_init(&r);
	sym__num_denom(&d, v.c);
	for (i = 0; i < v.n; i++) {
		sym__num_denom(&t, &v.t[i].coef);
		sym__num_lcm(&d, &d, &t);
	}
	N = sym__scale(s->ctx, &d, node_kid(e));
	if (N && !sym__num_is_one(&d) && sym__residue(s->f, N, &m, &r) && !sym__num_is_zero(&m)) {
		sym__num_div(&t, &m, &d);
		if (sym__num_is_int(&t)) {
			/* r mod d */
			sym__num_div(&t, &r, &d);
			sym__num_floor(&t, &t);
			sym__num_mul(&t, &t, &d);
			sym__num_sub(&r, &r, &t);
			sym__num_neg(&r, &r);
			res = sym__add_num(s->ctx, N, &r);
			sym__num_div(&t, &(sym_num){{1}, 1}, &d);
			res = sym__scale(s->ctx, &t, res);
		}
	}
	sym__num_clear(&d);
	sym__num_clear(&t);
	sym__num_clear(&m);
	sym__num_clear(&r);
	return res;
}

/* floor(E) is constant when E's bounds lie within one unit step. */
static const sym_expr *rw_floor(simp *s, const sym_expr *e)
{
	sym_ival iv;
	const sym_expr *r = e;
	if (s->f && (r = rw_floor_residue(s, e)) != e)
		return r;
	r = e;
	sym__ival_init(&iv);
	if (sym__bounds(s->ctx, s->f, node_kid(e), &iv) && !iv.lo.inf && !iv.hi.inf) {
		sym_num a, b;
		sym__num_init(&a);
		sym__num_init(&b);
		sym__num_floor(&a, &iv.lo.v);
		sym__num_floor(&b, &iv.hi.v);
		if (sym__num_equal(&a, &b))
			r = sym__num_node(s->ctx, &a);
		sym__num_clear(&a);
		sym__num_clear(&b);
	}
	sym__ival_clear(&iv);
	return r;
}

static const sym_expr *rw_abs(simp *s, const sym_expr *e)
{
	const sym_expr *x = node_kid(e);
	sym_truth t = sym__decide_rel(s->ctx, s->f, SYM_KIND_LE, sym_expr_neg(s->ctx, x));
	if (t == SYM_TRUE)
		return x;
	t = sym__decide_rel(s->ctx, s->f, SYM_KIND_LE, x);
	if (t == SYM_TRUE)
		return sym_expr_neg(s->ctx, x);
	return e;
}

/* Drops the arguments of min (max) proven not smaller (larger) than
 * another argument. */
static const sym_expr *rw_minmax(simp *s, const sym_expr *e)
{
	const sym_expr *stack[16], **v;
	size_t n = e->n, i, j, m = 0;
	int changed = 0;
	const sym_expr *r = e;
	v = n <= 16 ? stack : sym__alloc(s->ctx, n * sizeof(*v));
	if (!v)
		return NULL;
	memcpy(v, node_kids(e), n * sizeof(*v));
	for (i = 0; i < n; i++) {
		if (!v[i])
			continue;
		for (j = 0; j < n; j++) {
			const sym_expr *d;
			if (j == i || !v[j])
				continue;
			/* min: v[i] <= v[j] drops v[j]; max: v[i] >= v[j] drops v[j] */
			d = e->kind == SYM_KIND_MIN ? sym_expr_sub(s->ctx, v[i], v[j]) : sym_expr_sub(s->ctx, v[j], v[i]);
			if (sym__decide_rel(s->ctx, s->f, SYM_KIND_LE, d) == SYM_TRUE) {
				v[j] = NULL;
				changed = 1;
			}
		}
	}
	if (changed) {
		for (i = 0; i < n; i++)
			if (v[i])
				v[m++] = v[i];
		r = e->kind == SYM_KIND_MIN ? sym_expr_min(s->ctx, m, v) : sym_expr_max(s->ctx, m, v);
	}
	if (v != stack)
		sym__free(s->ctx, v, n * sizeof(*v));
	return r;
}

static const sym_expr *rw_rel(simp *s, const sym_expr *e)
{
	sym_truth t = sym__decide_rel(s->ctx, s->f, (sym_kind)e->kind, node_kid(e));
	if (t == SYM_TRUE || t == SYM_FALSE)
		return sym_expr_bool(s->ctx, t == SYM_TRUE);
	return e;
}

static const sym_expr *rewrite(simp *s, const sym_expr *e)
{
	switch (e->kind) {
	case SYM_KIND_FLOOR: return rw_floor(s, e);
	case SYM_KIND_ABS: return rw_abs(s, e);
	case SYM_KIND_MIN:
	case SYM_KIND_MAX: return rw_minmax(s, e);
	case SYM_KIND_EQ:
	case SYM_KIND_NE:
	case SYM_KIND_LE:
	case SYM_KIND_LT: return rw_rel(s, e);
	default: return e;
	}
}

static const sym_expr *simp_node(simp *s, const sym_expr *e)
{
	const sym_expr *r, *stack[16], **k;
	size_t i, n;
	int same = 1;
	if (!e || sym__failed(s->ctx))
		return NULL;
	if ((r = sym__memo_get(&s->memo, e)))
		return r;
	n = sym__nslots(e);
	if (n == 0) {
		r = e;
	} else {
		k = n <= 16 ? stack : sym__alloc(s->ctx, n * sizeof(*k));
		if (!k)
			return NULL;
		for (i = 0; i < n; i++) {
			k[i] = simp_node(s, sym__slot(e, i));
			if (!k[i])
				break;
			if (k[i] != sym__slot(e, i))
				same = 0;
		}
		r = i < n ? NULL : same ? e : sym__rebuild(s->ctx, e, k);
		if (k != stack)
			sym__free(s->ctx, k, n * sizeof(*k));
		/* rewrite until this node is stable */
		for (i = 0; r && i < MAX_ROUNDS; i++) {
			const sym_expr *r2 = rewrite(s, r);
			if (r2 == r)
				break;
			r = r2 && r2->kind == r->kind ? r2 : simp_node(s, r2);
		}
	}
	if (r && !sym__memo_put(&s->memo, e, r))
		return NULL;
	return r;
}

const sym_expr *sym_simplify(sym_ctx *ctx, sym_facts *f, const sym_expr *e)
{
	simp s;
	const sym_expr *r;
	int round;
	if (!e || sym__failed(ctx))
		return NULL;
	r = sym__facts_apply_defs(ctx, f, e);
	s.ctx = ctx;
	s.f = f;
	for (round = 0; r && round < MAX_ROUNDS; round++) {
		const sym_expr *r2;
		sym__memo_init(&s.memo, ctx);
		r2 = simp_node(&s, r);
		sym__memo_clear(&s.memo);
		if (r2 == r)
			break;
		r = r2;
	}
	return r;
}
