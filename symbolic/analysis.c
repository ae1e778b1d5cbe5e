/* Interval bounds of expressions under the facts, and the decisions of
 * relations that follow from bounds and residues. */
#include "facts_private.h"
#include "print_private.h"

/* ---- extended rationals ------------------------------------------------ */

static void x_init(sym_xnum *x)
{
	x->inf = 0, sym__num_init(&x->v);
}
static void x_clear(sym_xnum *x)
{
	sym__num_clear(&x->v);
}
static void x_set(sym_xnum *r, const sym_xnum *a)
{
	r->inf = a->inf;
	sym__num_set(&r->v, &a->v);
}
static void x_set_num(sym_xnum *r, const sym_num *v)
{
	r->inf = 0;
	sym__num_set(&r->v, v);
}
static void x_set_inf(sym_xnum *r, int s)
{
	r->inf = s;
	sym__num_set_si(&r->v, 0);
}
static int x_sgn(const sym_xnum *a)
{
	return a->inf ? a->inf : sym__num_sgn(&a->v);
}
static int x_cmp(const sym_xnum *a, const sym_xnum *b)
{
	if (a->inf || b->inf)
		return a->inf == b->inf ? 0 : a->inf < b->inf ? -1 : 1;
	return sym__num_cmp(&a->v, &b->v);
}
/* r = a + b, where not both are infinite with opposite signs. */
static void x_add(sym_xnum *r, const sym_xnum *a, const sym_xnum *b)
{
	if (a->inf || b->inf) {
		x_set_inf(r, a->inf ? a->inf : b->inf);
		return;
	}
	r->inf = 0;
	sym__num_add(&r->v, &a->v, &b->v);
}
/* r = a * b with 0 * inf = 0 (right for interval endpoints). */
static void x_mul(sym_xnum *r, const sym_xnum *a, const sym_xnum *b)
{
	int sa = x_sgn(a), sb = x_sgn(b);
	if (sa == 0 || sb == 0) {
		x_set_inf(r, 0);
		return;
	}
	if (a->inf || b->inf) {
		x_set_inf(r, sa * sb);
		return;
	}
	r->inf = 0;
	sym__num_mul(&r->v, &a->v, &b->v);
}
static void x_mul_num(sym_xnum *r, const sym_xnum *a, const sym_num *k)
{
	sym_xnum t;
	x_init(&t);
	x_set_num(&t, k);
	x_mul(r, a, &t);
	x_clear(&t);
}

void sym__ival_init(sym_ival *iv)
{
	x_init(&iv->lo);
	x_init(&iv->hi);
	iv->lo.inf = -1;
	iv->hi.inf = 1;
}
void sym__ival_clear(sym_ival *iv)
{
	x_clear(&iv->lo);
	x_clear(&iv->hi);
}
void sym__ival_set(sym_ival *r, const sym_ival *a)
{
	x_set(&r->lo, &a->lo);
	x_set(&r->hi, &a->hi);
}

static void ival_full(sym_ival *r)
{
	x_set_inf(&r->lo, -1);
	x_set_inf(&r->hi, 1);
}

static void ival_point(sym_ival *r, const sym_num *v)
{
	x_set_num(&r->lo, v);
	x_set_num(&r->hi, v);
}

static void ival_scale(sym_ival *r, const sym_ival *a, const sym_num *k)
{
	sym_xnum l, h;
	x_init(&l);
	x_init(&h);
	x_mul_num(&l, &a->lo, k);
	x_mul_num(&h, &a->hi, k);
	if (sym__num_sgn(k) >= 0) {
		x_set(&r->lo, &l);
		x_set(&r->hi, &h);
	} else {
		x_set(&r->lo, &h);
		x_set(&r->hi, &l);
	}
	x_clear(&l);
	x_clear(&h);
}

static void ival_mul(sym_ival *r, const sym_ival *a, const sym_ival *b)
{
	sym_xnum p[4];
	int i, lo = 0, hi = 0;
	for (i = 0; i < 4; i++)
		x_init(&p[i]);
	x_mul(&p[0], &a->lo, &b->lo);
	x_mul(&p[1], &a->lo, &b->hi);
	x_mul(&p[2], &a->hi, &b->lo);
	x_mul(&p[3], &a->hi, &b->hi);
	for (i = 1; i < 4; i++) {
		if (x_cmp(&p[i], &p[lo]) < 0)
			lo = i;
		if (x_cmp(&p[i], &p[hi]) > 0)
			hi = i;
	}
	x_set(&r->lo, &p[lo]);
	x_set(&r->hi, &p[hi]);
	for (i = 0; i < 4; i++)
		x_clear(&p[i]);
}

static void x_pow(sym_xnum *r, const sym_xnum *a, int64_t e)
{
	if (a->inf) {
		x_set_inf(r, (e % 2 == 0) ? 1 : a->inf);
		return;
	}
	r->inf = 0;
	if (!sym__num_pow(&r->v, &a->v, e, SYM_MAX_BITS))
		x_set_inf(r, (e % 2 == 0 || sym__num_sgn(&a->v) > 0) ? 1 : -1);
}

/* Interval of a**e for integer e != 0. */
static void ival_pow(sym_ival *r, const sym_ival *a, int64_t e)
{
	sym_ival t;
	sym__ival_init(&t);
	if (e < 0) {
		/* reciprocal, defined only when 0 is outside the interval */
		if (x_sgn(&a->lo) <= 0 && x_sgn(&a->hi) >= 0) {
			ival_full(r);
			sym__ival_clear(&t);
			return;
		}
		{
			static const sym_num one = {{1}, 1};
			sym_xnum *lo = &t.lo, *hi = &t.hi;
			if (a->hi.inf)
				x_set_inf(lo, 0);
			else {
				lo->inf = 0;
				sym__num_div(&lo->v, &one, &a->hi.v);
			}
			if (a->lo.inf)
				x_set_inf(hi, 0);
			else {
				hi->inf = 0;
				sym__num_div(&hi->v, &one, &a->lo.v);
			}
		}
		a = &t;
		e = -e;
	}
	{
		sym_xnum pl, ph;
		x_init(&pl);
		x_init(&ph);
		x_pow(&pl, &a->lo, e);
		x_pow(&ph, &a->hi, e);
		if (e % 2 == 1 || x_sgn(&a->lo) >= 0) {
			x_set(&r->lo, &pl);
			x_set(&r->hi, &ph);
		} else if (x_sgn(&a->hi) <= 0) {
			x_set(&r->lo, &ph);
			x_set(&r->hi, &pl);
		} else {
			x_set_inf(&r->lo, 0);
			x_set(&r->hi, x_cmp(&pl, &ph) > 0 ? &pl : &ph);
		}
		x_clear(&pl);
		x_clear(&ph);
	}
	sym__ival_clear(&t);
}

static void x_floor(sym_xnum *r, const sym_xnum *a)
{
	x_set(r, a);
	if (!a->inf)
		sym__num_floor(&r->v, &r->v);
}

/* Common monomial factor of every term of a sum without constant. */
const sym_expr *sym__common_factor(sym_ctx *ctx, const sym_expr *e, int ignore_const)
{
	sym_lin v;
	sym_factor common[16], one;
	size_t nc = 0, i, j, k;
	sym__lin_view(e, &v);
	if (v.n < 2 || (!ignore_const && !sym__num_is_zero(v.c)))
		return NULL;
	{
		const sym_expr *m = sym__lin_mono(&v, 0);
		const sym_factor *f =
		    m->kind == SYM_KIND_MUL ? node_factors(m) : (one.base = m, one.exp = 1, &one);
		size_t n = m->kind == SYM_KIND_MUL ? m->n : 1;
		for (j = 0; j < n && nc < 16; j++)
			if (f[j].exp > 0)
				common[nc++] = f[j];
	}
	for (i = 1; i < v.n && nc; i++) {
		const sym_expr *m = sym__lin_mono(&v, i);
		const sym_factor *f =
		    m->kind == SYM_KIND_MUL ? node_factors(m) : (one.base = m, one.exp = 1, &one);
		size_t n = m->kind == SYM_KIND_MUL ? m->n : 1, w = 0;
		for (k = 0; k < nc; k++)
			for (j = 0; j < n; j++)
				if (f[j].base == common[k].base && f[j].exp > 0) {
					common[w].base = common[k].base;
					common[w].exp = f[j].exp < common[k].exp ? f[j].exp : common[k].exp;
					w++;
					break;
				}
		nc = w;
	}
	if (!nc)
		return NULL;
	return sym__monomial(ctx, common, nc);
}

static void ival_meet(sym_ival *r, const sym_ival *a)
{
	if (x_cmp(&a->lo, &r->lo) > 0)
		x_set(&r->lo, &a->lo);
	if (x_cmp(&a->hi, &r->hi) < 0)
		x_set(&r->hi, &a->hi);
}

/* A sum holding k*(P % Q) with Q >= 1: P % Q lies in [0, hi(Q) - 1], and
 * in [0, hi(P)] too when P >= 0; narrows out accordingly. */
static void mod_bounds(sym_ctx *ctx, const sym_facts *f, const sym_expr *e, sym_ival *out)
{
	modpart mp;
	const sym_expr *rest;
	sym_ival q, pr, r;
	sym__num_init(&mp.k);
	if (!sym__find_mod(ctx, e, &mp, &rest, 1)) {
		sym__num_clear(&mp.k);
		return;
	}
	sym__ival_init(&q);
	sym__ival_init(&pr);
	sym__ival_init(&r);
	if (sym__bounds(ctx, f, mp.Q, &q) && !q.lo.inf && sym__num_cmp(&q.lo.v, &(sym_num){{1}, 1}) >= 0 &&
	    sym__bounds(ctx, f, mp.P, &pr) && sym__bounds(ctx, f, rest, &r)) {
		sym_ival m;
		sym__ival_init(&m);
		x_set_inf(&m.lo, 0);
		if (q.hi.inf) {
			x_set_inf(&m.hi, 1);
		} else {
			m.hi.inf = 0;
			sym__num_sub(&m.hi.v, &q.hi.v, &(sym_num){{1}, 1});
		}
		if (x_sgn(&pr.lo) >= 0 && x_cmp(&pr.hi, &m.hi) < 0)
			x_set(&m.hi, &pr.hi);
		ival_scale(&m, &m, &mp.k);
		x_add(&m.lo, &m.lo, &r.lo);
		x_add(&m.hi, &m.hi, &r.hi);
		ival_meet(out, &m);
		sym__ival_clear(&m);
	}
	sym__ival_clear(&q);
	sym__ival_clear(&pr);
	sym__ival_clear(&r);
	sym__num_clear(&mp.k);
}

/* A sum c*floor(A) + h*G + R, with G an integer atom inside A and h/c an
 * integer, is c*floor(A + (h/c)*G) + R: the floor's coefficients are
 * floored at construction (floor(x/8 - G/2) is floor(x/8 + G/2) - G), and
 * the shifted argument may bound better (it may hold a modulo: x % 4 is
 * x - 4*G).  Narrows out with the bounds of the shifted form, for the first
 * floor term that shifts. */
static void shifted_floor_bounds(sym_ctx *ctx, const sym_facts *f, const sym_expr *e, sym_ival *out)
{
	size_t i, j, l;
	sym_num q;
	if (e->n > 16)
		return;
	sym__num_init(&q);
	for (i = 0; i < e->n; i++) {
		const sym_term tiv = node_term(e, i), *ti = &tiv;
		const sym_expr *A, *R;
		sym_sumb a, r;
		sym_lin w;
		int shifted = 0;
		if (ti->m->kind != SYM_KIND_FLOOR || !sym__num_is_int(&ti->coef))
			continue;
		A = node_kid(ti->m);
		sym__lin_view(A, &w);
		sym__sumb_init(&a, ctx);
		sym__sumb_init(&r, ctx);
		sym__sumb_add(&a, NULL, A);
		sym__num_set(&r.c, node_add_const(e));
		for (j = 0; j < e->n; j++) {
			const sym_term tjv = node_term(e, j), *tj = &tjv;
			int in = 0;
			if (j == i)
				continue;
			sym__num_div(&q, &tj->coef, &ti->coef);
			if (sym__is_int(tj->m) && sym__num_is_int(&q))
				for (l = 0; l < w.n && !in; l++)
					in = sym__lin_mono(&w, l) == tj->m;
			if (in) {
				sym__sumb_add_term(&a, &q, tj->m);
				shifted = 1;
			} else {
				sym__sumb_add_term(&r, &tj->coef, tj->m);
			}
		}
		A = sym__sumb_finish(&a);
		R = sym__sumb_finish(&r);
		if (shifted && A && R) {
			sym_ival x, y;
			sym__ival_init(&x);
			sym__ival_init(&y);
			if (sym__bounds(ctx, f, A, &x) && sym__bounds(ctx, f, R, &y)) {
				x_floor(&x.lo, &x.lo);
				x_floor(&x.hi, &x.hi);
				ival_scale(&x, &x, &ti->coef);
				x_add(&x.lo, &x.lo, &y.lo);
				x_add(&x.hi, &x.hi, &y.hi);
				ival_meet(out, &x);
			}
			sym__ival_clear(&x);
			sym__ival_clear(&y);
			break;
		}
		if (!A || !R)
			break;
	}
	sym__num_clear(&q);
}

void sym__bcache_clear(sym_facts *f)
{
	size_t i;
	for (i = 0; i < f->bcap; i++)
		if (f->bc[i].key)
			sym__ival_clear(&f->bc[i].iv);
	sym__free(f->ctx, f->bc, f->bcap * sizeof(*f->bc));
	f->bc = NULL;
	f->bcap = f->bcount = 0;
	for (i = 0; i < f->mbcap; i++)
		if (f->mb[i].e)
			sym__ival_clear(&f->mb[i].iv);
	sym__free(f->ctx, f->mb, f->mbcap * sizeof(*f->mb));
	f->mb = NULL;
	f->mbcap = f->mbcount = 0;
}

#define BCACHE_MIN 64
#define BCACHE_CAP 8192

/* Rehashes the cache into a table of cap slots (a power of two); the
 * intervals move with their keys.  0 when out of memory. */
static int bcache_resize(sym_facts *f, size_t cap)
{
	sym_bcache *nb = sym__alloc(f->ctx, cap * sizeof(*nb));
	size_t i, j;
	if (!nb) {
		sym_ctx_clear_error(f->ctx); /* the cache is optional */
		return 0;
	}
	memset(nb, 0, cap * sizeof(*nb));
	for (i = 0; i < f->bcap; i++) {
		if (!f->bc[i].key)
			continue;
		for (j = f->bc[i].key->hash & (cap - 1); nb[j].key; j = (j + 1) & (cap - 1))
			;
		nb[j] = f->bc[i];
	}
	sym__free(f->ctx, f->bc, f->bcap * sizeof(*f->bc));
	f->bc = nb;
	f->bcap = cap;
	return 1;
}

/* The cached bounds of e, or NULL.  The cache belongs to the facts and is
 * dropped whenever they change (their version moves); it starts small and
 * doubles up to BCACHE_CAP slots, after which it stops taking entries. */
static sym_bcache *bcache_slot(const sym_facts *cf, const sym_expr *e, int insert)
{
	sym_facts *f = (sym_facts *)cf; /* the cache is not part of the facts' value */
	size_t j;
	if (f->bversion != f->version) {
		sym__bcache_clear(f);
		f->bversion = f->version;
	}
	if (!f->bcap) {
		if (!insert || !bcache_resize(f, BCACHE_MIN))
			return NULL;
	}
	for (j = e->hash & (f->bcap - 1); f->bc[j].key; j = (j + 1) & (f->bcap - 1))
		if (f->bc[j].key == e && f->bc[j].open == f->dims_open)
			return &f->bc[j];
	if (!insert)
		return NULL;
	if (f->bcount * 2 >= f->bcap) {
		if (f->bcap >= BCACHE_CAP || !bcache_resize(f, f->bcap * 2))
			return NULL;
		for (j = e->hash & (f->bcap - 1); f->bc[j].key; j = (j + 1) & (f->bcap - 1))
			;
	}
	f->bc[j].key = e;
	f->bc[j].open = f->dims_open;
	sym__ival_init(&f->bc[j].iv);
	f->bcount++;
	return &f->bc[j];
}

static int bounds(sym_ctx *ctx, const sym_facts *f, const sym_expr *e, sym_ival *out);

/* Large mins and maxes (a chain of broadcasts grows max(d0, ..., dk) one
 * dim at a time) take their bounds from the one they extend by an argument
 * when it is cached: the bounds of max(S, p) are those of max(S) and p
 * combined, the same interval as the pass over every argument. */
#define MB_MIN_ARGS 8

/* The slot of key k in the min/max cache: the entry of e when e is not
 * NULL and cached, else (insert) a free slot; NULL when there is none. */
static sym_mbcache *mb_slot(sym_facts *f, uint64_t k, const sym_expr *e, int insert)
{
	size_t j, i;
	if (f->bversion != f->version) {
		sym__bcache_clear(f);
		f->bversion = f->version;
	}
	if (f->mbcap && (f->mbcount + 1) * 2 > f->mbcap && insert) {
		if (f->mbcap >= BCACHE_CAP)
			return NULL;
		{
			size_t cap = f->mbcap * 2;
			sym_mbcache *nb = sym__alloc(f->ctx, cap * sizeof(*nb));
			if (!nb) {
				sym_ctx_clear_error(f->ctx);
				return NULL;
			}
			memset(nb, 0, cap * sizeof(*nb));
			for (i = 0; i < f->mbcap; i++) {
				if (!f->mb[i].e)
					continue;
				for (j = f->mb[i].key & (cap - 1); nb[j].e; j = (j + 1) & (cap - 1))
					;
				nb[j] = f->mb[i];
			}
			sym__free(f->ctx, f->mb, f->mbcap * sizeof(*f->mb));
			f->mb = nb, f->mbcap = cap;
		}
	}
	if (!f->mbcap) {
		if (!insert || !(f->mb = sym__alloc(f->ctx, BCACHE_MIN * sizeof(*f->mb)))) {
			if (insert)
				sym_ctx_clear_error(f->ctx);
			return NULL;
		}
		memset(f->mb, 0, BCACHE_MIN * sizeof(*f->mb));
		f->mbcap = BCACHE_MIN;
	}
	for (j = k & (f->mbcap - 1); f->mb[j].e; j = (j + 1) & (f->mbcap - 1))
		if (e && f->mb[j].e == e && f->mb[j].open == f->dims_open)
			return &f->mb[j];
	return insert ? &f->mb[j] : NULL;
}

/* The cached min or max that e (key k) extends by one argument, whose
 * index goes to *at; NULL when there is none. */
static const sym_mbcache *mb_extended(sym_facts *f, const sym_expr *e, uint64_t k, size_t *at)
{
	size_t t, j;
	if (f->bversion != f->version || !f->mbcap)
		return NULL;
	for (t = 0; t < e->n; t++) {
		size_t i = sym__minmax_probe_at(e->n, t);
		uint64_t ki = k - sym__arg_mix(node_kids(e)[i]);
		for (j = ki & (f->mbcap - 1); f->mb[j].e; j = (j + 1) & (f->mbcap - 1))
			if (f->mb[j].key == ki && f->mb[j].open == f->dims_open &&
			    sym__minmax_is_without(f->mb[j].e, e, i))
				return *at = i, &f->mb[j];
	}
	return NULL;
}

/* out, the bounds of a min (kind SYM_KIND_MIN) or max of some arguments,
 * joined with a, the bounds of one more: each end the min (max) of the
 * two. */
static void minmax_join(int kind, sym_ival *out, const sym_ival *a)
{
	int lo = x_cmp(&a->lo, &out->lo), hi = x_cmp(&a->hi, &out->hi);
	if (kind == SYM_KIND_MIN ? lo < 0 : lo > 0)
		x_set(&out->lo, &a->lo);
	if (kind == SYM_KIND_MIN ? hi < 0 : hi > 0)
		x_set(&out->hi, &a->hi);
}

/* Bounds of min or max e through the min/max cache: 1 with *out set when
 * e or the one it extends is cached (e recorded from here on), 0 when the
 * pass over every argument has to run, -1 on error. */
static int minmax_bounds_cached(sym_ctx *ctx, const sym_facts *cf, const sym_expr *e, uint64_t k,
                                sym_ival *out)
{
	sym_facts *f = (sym_facts *)cf; /* the cache is not part of the facts' value */
	const sym_mbcache *m;
	sym_mbcache *slot;
	sym_ival a;
	size_t at;
	if ((slot = mb_slot(f, k, e, 0))) {
		sym__ival_set(out, &slot->iv);
		return 1;
	}
	if (!(m = mb_extended(f, e, k, &at)))
		return 0;
	/* m's interval first: the argument's bounds may grow the table */
	sym__ival_set(out, &m->iv);
	sym__ival_init(&a);
	if (!sym__bounds(ctx, f, node_kids(e)[at], &a)) {
		sym__ival_clear(&a);
		return -1;
	}
	minmax_join(e->kind, out, &a);
	sym__ival_clear(&a);
	return 1;
}

/* Records the bounds iv of min or max e (key k); a failure only loses the
 * entry. */
static void minmax_bounds_put(const sym_facts *cf, const sym_expr *e, uint64_t k, const sym_ival *iv)
{
	sym_facts *f = (sym_facts *)cf;
	sym_mbcache *slot = mb_slot(f, k, e, 1);
	if (!slot || slot->e) /* no room, or e is there */
		return;
	slot->key = k;
	slot->e = e;
	slot->open = f->dims_open;
	sym__ival_init(&slot->iv);
	sym__ival_set(&slot->iv, iv);
	f->mbcount++;
}

int sym__bounds(sym_ctx *ctx, const sym_facts *f, const sym_expr *e, sym_ival *out)
{
	sym_bcache *c;
	if (!e || sym__failed(ctx))
		return 0;
	if (!f || e->kind == SYM_KIND_NUM || e->kind == SYM_KIND_SYM || e->n < 2)
		return bounds(ctx, f, e, out);
	if ((c = bcache_slot(f, e, 0))) {
		sym__ival_set(out, &c->iv);
		return 1;
	}
	if (!bounds(ctx, f, e, out))
		return 0;
	if ((c = bcache_slot(f, e, 1)))
		sym__ival_set(&c->iv, out);
	return 1;
}

static int bounds(sym_ctx *ctx, const sym_facts *f, const sym_expr *e, sym_ival *out)
{
	sym_ival a, b;
	size_t i;
	int ok = 1;
	if (!e || sym__failed(ctx))
		return 0;
	switch (e->kind) {
	case SYM_KIND_NUM:
		ival_point(out, node_num(e));
		return 1;
	case SYM_KIND_SYM:
		sym__facts_sym_range(f, e, out);
		return 1;
	default:
		break;
	}
	if (e->flags & SYM_F_PRED) {
		sym_num z;
		sym__num_init(&z);
		ival_point(out, &z);
		x_set_inf(&out->hi, 0);
		sym__num_set_si(&out->hi.v, 1);
		return 1;
	}
	sym__ival_init(&a);
	sym__ival_init(&b);
	switch (e->kind) {
	case SYM_KIND_ADD: {
		const sym_expr *cf;
		ival_point(out, node_add_const(e));
		for (i = 0; i < e->n && ok; i++) {
			ok = sym__bounds(ctx, f, node_mono(e, i), &a);
			ival_scale(&a, &a, node_coef(e, i));
			x_add(&out->lo, &out->lo, &a.lo);
			x_add(&out->hi, &out->hi, &a.hi);
		}
		if (ok)
			mod_bounds(ctx, f, e, out);
		if (ok)
			shifted_floor_bounds(ctx, f, e, out);
		cf = ok ? sym__common_factor(ctx, e, 0) : NULL;
		if (cf) {
			const sym_expr *q = sym_expr_div(ctx, e, cf);
			if (q && sym__bounds(ctx, f, cf, &a) && sym__bounds(ctx, f, q, &b)) {
				ival_mul(&a, &a, &b);
				ival_meet(out, &a);
			}
		}
		break;
	}
	case SYM_KIND_MUL: {
		static const sym_num one = {{1}, 1};
		ival_point(out, &one);
		for (i = 0; i < e->n && ok; i++) {
			ok = sym__bounds(ctx, f, node_factors(e)[i].base, &a);
			ival_pow(&a, &a, node_factors(e)[i].exp);
			ival_mul(out, out, &a);
		}
		break;
	}
	case SYM_KIND_FLOOR:
		ok = sym__bounds(ctx, f, node_kid(e), &a);
		x_floor(&out->lo, &a.lo);
		x_floor(&out->hi, &a.hi);
		break;
	case SYM_KIND_ABS:
		ok = sym__bounds(ctx, f, node_kid(e), &a);
		if (x_sgn(&a.lo) >= 0) {
			sym__ival_set(out, &a);
		} else if (x_sgn(&a.hi) <= 0) {
			static const sym_num m1 = {{-1}, 1};
			ival_scale(out, &a, &m1);
		} else {
			static const sym_num m1 = {{-1}, 1};
			x_mul_num(&b.lo, &a.lo, &m1);
			x_set_inf(&out->lo, 0);
			x_set(&out->hi, x_cmp(&b.lo, &a.hi) > 0 ? &b.lo : &a.hi);
		}
		break;
	case SYM_KIND_MIN:
	case SYM_KIND_MAX: {
		uint64_t k = 0;
		if (f && e->n >= MB_MIN_ARGS) {
			int r;
			k = sym__minmax_key(e);
			if ((r = minmax_bounds_cached(ctx, f, e, k, out)) != 0) {
				ok = r > 0;
				if (ok)
					minmax_bounds_put(f, e, k, out);
				break;
			}
		}
		for (i = 0; i < e->n && ok; i++) {
			ok = sym__bounds(ctx, f, node_kids(e)[i], &a);
			if (i == 0) {
				sym__ival_set(out, &a);
				continue;
			}
			minmax_join(e->kind, out, &a);
		}
		if (ok && f && e->n >= MB_MIN_ARGS && !sym__failed(ctx))
			minmax_bounds_put(f, e, k, out);
		break;
	}
	default:
		ival_full(out);
	}
	sym__ival_clear(&a);
	sym__ival_clear(&b);
	return ok && !sym__failed(ctx);
}

/* Residue of an integer-valued expression: e == r (mod m), m >= 0 (m == 0
 * means e == r exactly).  Returns 0 when e is not integer-valued. */
/* The residue of an integer atom: a symbol's residue fact, else any
 * integer (0 mod 1). */
static void atom_residue(const sym_facts *f, const sym_expr *a, sym_num *m, sym_num *r)
{
	const sym_syminfo *si = a->kind == SYM_KIND_SYM ? sym__facts_get(f, a) : NULL;
	if (si && !sym__num_is_zero(&si->mod)) {
		sym__num_set(m, &si->mod);
		sym__num_set(r, &si->res);
	} else {
		sym__num_set_si(m, 1);
		sym__num_set_si(r, 0);
	}
}

/* (m, r) := the residue of x*y for x == r (mod m) and y == r2 (mod m2):
 * with x = r + m*a and y = r2 + m2*b, x*y - r*r2 = r*m2*b + r2*m*a +
 * m*m2*a*b, so x*y == r*r2 modulo gcd(r*m2, r2*m, m*m2). */
static void residue_mul(sym_num *m, sym_num *r, const sym_num *m2, const sym_num *r2, sym_num *t)
{
	sym_num g;
	sym__num_init(&g);
	sym__num_mul(&g, m, m2);
	sym__num_mul(t, r, m2);
	sym__num_gcd(&g, &g, t);
	sym__num_mul(t, r2, m);
	sym__num_gcd(m, &g, t);
	sym__num_mul(r, r, r2);
	sym__num_clear(&g);
}

/* The residue of a monomial of integer atoms with positive exponents:
 * combined factor by factor; a power past a few factors keeps only
 * divisibility (x == 0 mod m gives x**k == 0 mod m), else any integer. */
static void mono_residue(const sym_facts *f, const sym_expr *mono, sym_num *m, sym_num *r)
{
	sym_num fm, fr, t;
	size_t i;
	int64_t k;
	sym__num_set_si(m, 0); /* exactly 1, the empty product */
	sym__num_set_si(r, 1);
	if (mono->kind != SYM_KIND_MUL) {
		atom_residue(f, mono, m, r);
		return;
	}
	sym__num_init(&fm);
	sym__num_init(&fr);
	sym__num_init(&t);
	for (i = 0; i < mono->n; i++) {
		const sym_factor *fc = &node_factors(mono)[i];
		atom_residue(f, fc->base, &fm, &fr);
		if (fc->exp < 0) {
			/* not an integer monomial: the caller's integer check
			 * covers the whole sum only, so claim nothing */
			sym__num_set_si(m, 1);
			sym__num_set_si(r, 0);
			break;
		}
		if (fc->exp > 8) {
			if (!sym__num_is_zero(&fr))
				sym__num_set_si(&fm, 1);
			sym__num_set_si(&fr, 0);
			residue_mul(m, r, &fm, &fr, &t);
			continue;
		}
		for (k = 0; k < fc->exp; k++)
			residue_mul(m, r, &fm, &fr, &t);
	}
	sym__num_clear(&fm);
	sym__num_clear(&fr);
	sym__num_clear(&t);
}

int sym__residue(const sym_facts *f, const sym_expr *e, sym_num *m, sym_num *r)
{
	sym_lin v;
	size_t i;
	sym_num t, mm, mr;
	if (!sym__is_int(e))
		return 0;
	sym__lin_view(e, &v);
	sym__num_set(r, v.c);
	sym__num_set_si(m, 0);
	sym__num_init(&t);
	sym__num_init(&mm);
	sym__num_init(&mr);
	for (i = 0; i < v.n; i++) {
		const sym_term tv = sym__lin_term(&v, i), *tm = &tv;
		mono_residue(f, tm->m, &mm, &mr);
		sym__num_mul(&t, &tm->coef, &mr);
		sym__num_add(r, r, &t);
		sym__num_mul(&t, &tm->coef, &mm);
		sym__num_gcd(m, m, &t);
	}
	sym__num_clear(&t);
	sym__num_clear(&mm);
	sym__num_clear(&mr);
	return 1;
}

/* The linear prover's decision of "d KIND 0" for an integer-valued d. */
static sym_truth decide_linear(sym_ctx *ctx, const sym_facts *f, sym_kind kind, const sym_expr *d)
{
	static const sym_num one = {{1}, 1};
	const sym_expr *nd1 = sym__add_num(ctx, sym_expr_neg(ctx, d), &one); /* -d + 1 */
	const sym_expr *d1 = sym__add_num(ctx, d, &one);                     /* d + 1 */
	if (!nd1 || !d1)
		return SYM_ERROR;
	switch (kind) {
	case SYM_KIND_LE:
		if (sym__fm_prove_le(ctx, f, d))
			return SYM_TRUE;
		return sym__fm_prove_le(ctx, f, nd1) ? SYM_FALSE : SYM_UNKNOWN;
	case SYM_KIND_LT:
		if (sym__fm_prove_le(ctx, f, d1))
			return SYM_TRUE;
		return sym__fm_prove_le(ctx, f, sym_expr_neg(ctx, d)) ? SYM_FALSE : SYM_UNKNOWN;
	case SYM_KIND_EQ:
	case SYM_KIND_NE: {
		int eq = -1;
		if (sym__fm_prove_le(ctx, f, d1) || sym__fm_prove_le(ctx, f, nd1))
			eq = 0;
		else if (sym__fm_prove_le(ctx, f, d) && sym__fm_prove_le(ctx, f, sym_expr_neg(ctx, d)))
			eq = 1;
		if (eq < 0)
			return SYM_UNKNOWN;
		return (kind == SYM_KIND_EQ) == (eq == 1) ? SYM_TRUE : SYM_FALSE;
	}
	default:
		return SYM_UNKNOWN;
	}
}

static sym_truth decide_rel_at(sym_ctx *ctx, const sym_facts *f, sym_kind kind, const sym_expr *d, int depth);

/* Whether the linear prover can prove nothing about the integer-valued d
 * that its bounds have not decided: every atom of d is a symbol in no
 * linear fact.  The prover's system is then one row (integer
 * coefficients) and each symbol's range (integer ends, no narrower than
 * the ranges the bounds of d are taken from), infeasible over the
 * integers exactly when it is over the reals (the row's minimum over the
 * box is at an integer corner), which is when the interval of d decides:
 * calling it would only cost. */
static int linear_adds_nothing(sym_ctx *ctx, const sym_facts *f, const sym_expr *d)
{
	sym_lin v;
	size_t i;
	sym__lin_view(d, &v);
	for (i = 0; i < v.n; i++)
		if (sym__lin_mono(&v, i)->kind != SYM_KIND_SYM ||
		    sym__fm_atom_in_facts(ctx, f, sym__lin_mono(&v, i)))
			return 0;
	return 1;
}

/* Deciding c*max(a_1, ..., a_n) + R <= 0 (or < 0) argument by argument:
 * for c > 0 it holds exactly when every c*a_i + R <= 0 holds, so it is true
 * when each is true and false when one is false; for c < 0 the sum is the
 * minimum of the c*a_i + R, so it is true when one is and false when all
 * are false.  min(...) is the same with the roles swapped.  The first max
 * or min term is split, at most SPLIT_ARGS arguments and SPLIT_DEPTH
 * levels, so that max(0, s - 10) <= s is true for s >= 1. */
#define SPLIT_ARGS 4
#define SPLIT_DEPTH 2

static sym_truth decide_split(sym_ctx *ctx, const sym_facts *f, sym_kind kind, const sym_expr *d, int depth)
{
	sym_lin v;
	size_t i, k;
	sym_term tv;
	const sym_term *tm = NULL;
	const sym_expr *rest, *c;
	int all, seen_unknown = 0;
	sym__lin_view(d, &v);
	for (i = 0; i < v.n && !tm; i++)
		if ((sym__lin_mono(&v, i)->kind == SYM_KIND_MAX ||
		     sym__lin_mono(&v, i)->kind == SYM_KIND_MIN) &&
		    sym__lin_mono(&v, i)->n <= SPLIT_ARGS)
			tv = sym__lin_term(&v, i), tm = &tv;
	if (!tm)
		return SYM_UNKNOWN;
	c = sym__num_node(ctx, &tm->coef);
	rest = sym_expr_sub(ctx, d, sym_expr_mul(ctx, c, tm->m));
	all = (tm->m->kind == SYM_KIND_MAX) == (sym__num_sgn(&tm->coef) > 0);
	for (k = 0; k < tm->m->n && rest; k++) {
		const sym_expr *di = sym_expr_add(ctx, sym_expr_mul(ctx, c, node_kids(tm->m)[k]), rest);
		sym_truth t = di ? decide_rel_at(ctx, f, kind, di, depth + 1) : SYM_ERROR;
		if (t == SYM_ERROR)
			return SYM_ERROR;
		if (all && t == SYM_FALSE)
			return SYM_FALSE;
		if (!all && t == SYM_TRUE)
			return SYM_TRUE;
		if (t == SYM_UNKNOWN)
			seen_unknown = 1;
	}
	if (!rest)
		return SYM_ERROR;
	if (seen_unknown)
		return SYM_UNKNOWN;
	return all ? SYM_TRUE : SYM_FALSE;
}

sym_truth sym__decide_rel(sym_ctx *ctx, const sym_facts *f, sym_kind kind, const sym_expr *d)
{
	return decide_rel_at(ctx, f, kind, d, 0);
}

static sym_truth decide_rel_at(sym_ctx *ctx, const sym_facts *f, sym_kind kind, const sym_expr *d, int depth)
{
	sym_ival iv;
	int slo, shi;
	sym_truth res = SYM_UNKNOWN;
	sym__ival_init(&iv);
	if (!sym__bounds(ctx, f, d, &iv)) {
		sym__ival_clear(&iv);
		return SYM_ERROR;
	}
	slo = x_sgn(&iv.lo), shi = x_sgn(&iv.hi);
	switch (kind) {
	case SYM_KIND_LE:
		res = shi <= 0 ? SYM_TRUE : slo > 0 ? SYM_FALSE : SYM_UNKNOWN;
		break;
	case SYM_KIND_LT:
		res = shi < 0 ? SYM_TRUE : slo >= 0 ? SYM_FALSE : SYM_UNKNOWN;
		break;
	case SYM_KIND_EQ:
	case SYM_KIND_NE: {
		int eq = slo == 0 && shi == 0 ? 1 : (slo > 0 || shi < 0) ? 0 : -1;
		if (eq < 0 && f) {
			sym_num m, r, t;
			sym__num_init(&m);
			sym__num_init(&r);
			sym__num_init(&t);
			if (sym__residue(f, d, &m, &r) && !sym__num_is_zero(&m)) {
				sym__num_div(&t, &r, &m);
				if (!sym__num_is_int(&t))
					eq = 0;
			}
			sym__num_clear(&m);
			sym__num_clear(&r);
			sym__num_clear(&t);
		}
		if (eq >= 0)
			res = (kind == SYM_KIND_EQ) == (eq == 1) ? SYM_TRUE : SYM_FALSE;
		break;
	}
	default:
		break;
	}
	sym__ival_clear(&iv);
	if (res == SYM_UNKNOWN && sym__is_int(d) && !linear_adds_nothing(ctx, f, d))
		res = decide_linear(ctx, f, kind, d);
	if (res == SYM_UNKNOWN && depth < SPLIT_DEPTH && (kind == SYM_KIND_LE || kind == SYM_KIND_LT))
		res = decide_split(ctx, f, kind, d, depth);
	return res;
}

int sym__bounds_expr(sym_ctx *ctx, const sym_facts *f, const sym_expr *e, const sym_expr **lo,
                     const sym_expr **hi)
{
	sym_ival iv;
	int ok, was;
	*lo = *hi = NULL;
	sym__ival_init(&iv);
	/* printed bounds: a dim without an upper bound of its own is open
	 * above, not SYM_DIM_MAX (the cache keeps both kinds apart) */
	was = f ? f->dims_open : 0;
	if (f)
		((sym_facts *)f)->dims_open = 1;
	ok = sym__bounds(ctx, f, e, &iv);
	if (f)
		((sym_facts *)f)->dims_open = was;
	if (ok) {
		*lo = iv.lo.inf ? NULL : sym__num_node(ctx, &iv.lo.v);
		*hi = iv.hi.inf ? NULL : sym__num_node(ctx, &iv.hi.v);
	}
	sym__ival_clear(&iv);
	return ok && !sym__failed(ctx);
}
