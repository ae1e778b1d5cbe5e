/* The fact store: symbol ranges, residues and defining equalities, fed from
 * predicates. */
#include "facts_private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

sym_facts *sym_facts_new(sym_ctx *ctx)
{
	sym_facts *f = sym__alloc(ctx, sizeof(*f));
	if (!f)
		return NULL;
	memset(f, 0, sizeof(*f));
	f->ctx = ctx;
	sym__num_init(&f->default_min);
	return f;
}

void sym_facts_free(sym_facts *f)
{
	size_t i;
	if (!f)
		return;
	for (i = 0; i < f->ninfo; i++) {
		sym__num_clear(&f->info[i].lo);
		sym__num_clear(&f->info[i].hi);
		sym__num_clear(&f->info[i].mod);
		sym__num_clear(&f->info[i].res);
	}
	sym__num_clear(&f->default_min);
	sym__free(f->ctx, f->info, f->capinfo * sizeof(*f->info));
	sym__free(f->ctx, f->infoix, f->capix * sizeof(*f->infoix));
	sym__free(f->ctx, f->assumed, f->capassumed * sizeof(*f->assumed));
	sym__free(f->ctx, f->lin, f->caplin * sizeof(*f->lin));
	sym__bcache_clear(f);
	sym__fm_state_free(f);
	sym__aset_free(f);
	sym__simp_state_free(f);
	sym__free(f->ctx, f, sizeof(*f));
}

unsigned long sym_facts_version(const sym_facts *f)
{
	return f->version;
}

#define INFO_SCAN_MAX 8 /* symbols with facts looked up by a scan */

static size_t info_hash(const sym_expr *s)
{
	return (size_t)(((uintptr_t)s >> 4) * 0x9e3779b97f4a7c15ull);
}

const sym_syminfo *sym__facts_get(const sym_facts *f, const sym_expr *s)
{
	size_t i;
	if (!f)
		return NULL;
	if (f->infoix) {
		for (i = info_hash(s) & (f->capix - 1); f->infoix[i]; i = (i + 1) & (f->capix - 1))
			if (f->info[f->infoix[i] - 1].sym == s)
				return &f->info[f->infoix[i] - 1];
		return NULL;
	}
	for (i = 0; i < f->ninfo; i++)
		if (f->info[i].sym == s)
			return &f->info[i];
	return NULL;
}

/* Puts info[k] in the index, rebuilt at twice the size when half full;
 * 0 when memory runs out. */
static int index_info(sym_facts *f, size_t k)
{
	size_t i, j;
	if (2 * (k + 1) > f->capix) {
		size_t nc = f->capix ? 2 * f->capix : 4 * INFO_SCAN_MAX;
		size_t *nt = sym__alloc(f->ctx, nc * sizeof(*nt));
		if (!nt)
			return 0;
		memset(nt, 0, nc * sizeof(*nt));
		sym__free(f->ctx, f->infoix, f->capix * sizeof(*f->infoix));
		f->infoix = nt, f->capix = nc;
		for (j = 0; j < k; j++) {
			for (i = info_hash(f->info[j].sym) & (nc - 1); nt[i]; i = (i + 1) & (nc - 1))
				;
			nt[i] = j + 1;
		}
	}
	for (i = info_hash(f->info[k].sym) & (f->capix - 1); f->infoix[i]; i = (i + 1) & (f->capix - 1))
		;
	f->infoix[i] = k + 1;
	return 1;
}

static sym_syminfo *info_for(sym_facts *f, const sym_expr *s)
{
	sym_syminfo *si = (sym_syminfo *)sym__facts_get(f, s);
	if (si)
		return si;
	if (SYM_GROW(f->ctx, f->info, f->ninfo + 1, f->capinfo, 8) < 0)
		return NULL;
	si = &f->info[f->ninfo++];
	memset(si, 0, sizeof(*si));
	si->sym = s;
	sym__num_init(&si->lo);
	sym__num_init(&si->hi);
	sym__num_init(&si->mod);
	sym__num_init(&si->res);
	/* the index starts past INFO_SCAN_MAX symbols; it holds them all */
	if (f->ninfo > INFO_SCAN_MAX || f->infoix) {
		size_t k;
		for (k = f->infoix ? f->ninfo - 1 : 0; k < f->ninfo; k++)
			if (!index_info(f, k)) {
				/* out of memory: the new symbol is not kept, and the
				 * scan answers until the index is made again */
				sym__free(f->ctx, f->infoix, f->capix * sizeof(*f->infoix));
				f->infoix = NULL, f->capix = 0;
				f->ninfo--;
				return NULL;
			}
	}
	return si;
}

/* A dim is at most SYM_DIM_MAX; while bounds are computed for printing
 * (dims_open), a dim without an upper end of its own keeps it open. */
static void dim_max(const sym_facts *f, sym_ival *out)
{
	sym_num m;
	if (out->hi.inf) {
		/* no upper end (the common case): SYM_DIM_MAX, or open */
		if (!f->dims_open) {
			out->hi.inf = 0;
			sym__num_set_si(&out->hi.v, SYM_DIM_MAX);
		}
		return;
	}
	if (!SYM_NUM_IS_BIG(&out->hi.v) && out->hi.v.q == 1) {
		/* an integer end, compared as it is */
		if (out->hi.v.p > SYM_DIM_MAX)
			sym__num_set_si(&out->hi.v, SYM_DIM_MAX);
		return;
	}
	sym__num_init(&m);
	sym__num_set_si(&m, SYM_DIM_MAX);
	if (out->hi.inf ? !f->dims_open : sym__num_cmp(&out->hi.v, &m) > 0) {
		out->hi.inf = 0;
		sym__num_set(&out->hi.v, &m);
	}
	sym__num_clear(&m);
}

void sym__facts_sym_range(const sym_facts *f, const sym_expr *s, sym_ival *out)
{
	const sym_syminfo *si = sym__facts_get(f, s);
	out->lo.inf = -1, out->hi.inf = 1;
	if (f && f->has_default_min && !(si && si->no_default)) {
		out->lo.inf = 0;
		sym__num_set(&out->lo.v, &f->default_min);
	}
	if (!si) {
		if (f && f->dims_bounded)
			dim_max(f, out);
		return;
	}
	if (si->has_lo && (out->lo.inf || sym__num_cmp(&si->lo, &out->lo.v) > 0)) {
		out->lo.inf = 0;
		sym__num_set(&out->lo.v, &si->lo);
	}
	if (si->has_hi) {
		out->hi.inf = 0;
		sym__num_set(&out->hi.v, &si->hi);
	}
	if (f->dims_bounded)
		dim_max(f, out);
	if (!sym__num_is_zero(&si->mod)) {
		/* round the ends into the residue class */
		sym_num t;
		sym__num_init(&t);
		if (!out->lo.inf) {
			/* the least value >= lo in the class: res + ceil((lo - res)/m)*m */
			sym__num_sub(&t, &out->lo.v, &si->res);
			sym__num_div(&t, &t, &si->mod);
			sym__num_ceil(&t, &t);
			sym__num_mul(&t, &t, &si->mod);
			sym__num_add(&out->lo.v, &t, &si->res);
		}
		if (!out->hi.inf) {
			sym__num_sub(&t, &out->hi.v, &si->res);
			sym__num_div(&t, &t, &si->mod);
			sym__num_floor(&t, &t);
			sym__num_mul(&t, &t, &si->mod);
			sym__num_add(&out->hi.v, &t, &si->res);
		}
		sym__num_clear(&t);
	}
}

static sym_status check_sym(sym_facts *f, const sym_expr *s);
static sym_status remember(sym_facts *f, const sym_expr *p);

/* After a change of what every symbol is bounded by: a new version, and
 * every symbol's range checked again (an empty one is an error). */
static sym_status recheck_symbols(sym_facts *f)
{
	size_t i;
	f->version++;
	if (f->has_default_min && f->dims_bounded) {
		/* a symbol without facts of its own has the default range */
		sym_num m;
		sym__num_init(&m);
		sym__num_set_si(&m, SYM_DIM_MAX);
		if (sym__num_cmp(&f->default_min, &m) >= 0)
			f->points = 1;
		sym__num_clear(&m);
	}
	for (i = 0; i < f->ninfo; i++) {
		sym_status st = check_sym(f, f->info[i].sym);
		if (st != SYM_EOK)
			return st;
	}
	return SYM_EOK;
}

sym_status sym_facts_set_default_min(sym_facts *f, long long lo)
{
	f->has_default_min = 1;
	sym__num_set_si(&f->default_min, lo);
	return recheck_symbols(f);
}

sym_status sym__facts_bound_dims(sym_facts *f)
{
	f->dims_bounded = 1;
	return recheck_symbols(f);
}

int sym__facts_dims_bounded(const sym_facts *f)
{
	return f && f->dims_bounded;
}

static const sym_expr *def_leaf(sym_ctx *ctx, const sym_expr *s, void *ud)
{
	const sym_syminfo *si = sym__facts_get(ud, s);
	(void)ctx;
	return si && si->def ? si->def : s;
}

const sym_expr *sym__facts_apply_defs(sym_ctx *ctx, const sym_facts *f, const sym_expr *e)
{
	sym_memo m;
	const sym_expr *r;
	size_t i;
	int any = 0;
	if (!f || !e)
		return e;
	for (i = 0; i < f->ninfo; i++)
		if (f->info[i].def)
			any = 1;
	if (!any)
		return e;
	sym__memo_init(&m, ctx);
	r = sym__transform(ctx, e, def_leaf, (void *)f, &m);
	sym__memo_clear(&m);
	return r;
}

static sym_status contradiction(sym_facts *f, const char *what)
{
	sym__error(f->ctx, SYM_ECONTRADICTION, -1, "contradicting assumptions: %s", what);
	return SYM_ECONTRADICTION;
}

/* Checks that the symbol's range still holds a value. */
static sym_status check_sym(sym_facts *f, const sym_expr *s)
{
	sym_ival iv;
	sym_status st = SYM_EOK;
	sym__ival_init(&iv);
	sym__facts_sym_range(f, s, &iv);
	if (!iv.lo.inf && !iv.hi.inf && sym__num_equal(&iv.lo.v, &iv.hi.v))
		f->points = 1;
	if (!iv.lo.inf && !iv.hi.inf && sym__num_cmp(&iv.lo.v, &iv.hi.v) > 0) {
		sym_num m;
		int past_max;
		sym__num_init(&m);
		sym__num_set_si(&m, SYM_DIM_MAX);
		past_max = f->dims_bounded && sym__num_cmp(&iv.lo.v, &m) > 0;
		sym__num_clear(&m);
		sym__error(f->ctx, SYM_ECONTRADICTION, -1,
		           "contradicting assumptions: no value of %s is left%s", node_name(s),
		           past_max ? " (a dim is at most 4611686018427387904)" : "");
		st = SYM_ECONTRADICTION;
	}
	sym__ival_clear(&iv);
	return st;
}

static sym_status set_bound(sym_facts *f, const sym_expr *s, const sym_num *v0, int is_hi)
{
	sym_syminfo *si = info_for(f, s);
	sym_num vi;
	const sym_num *v = &vi;
	sym_status st;
	if (!si)
		return SYM_ENOMEM;
	/* symbols are integers: round the end inwards */
	sym__num_init(&vi);
	if (is_hi)
		sym__num_floor(&vi, v0);
	else
		sym__num_ceil(&vi, v0);
	if (is_hi) {
		if (!si->has_hi || sym__num_cmp(v, &si->hi) < 0)
			sym__num_set(&si->hi, v);
		si->has_hi = 1;
	} else {
		if (!si->has_lo || sym__num_cmp(v, &si->lo) > 0)
			sym__num_set(&si->lo, v);
		si->has_lo = 1;
	}
	sym__num_clear(&vi);
	f->version++;
	st = check_sym(f, s);
	return st;
}

sym_status sym__facts_exempt_default(sym_facts *f, const sym_expr *s)
{
	sym_syminfo *si = info_for(f, s);
	if (!si)
		return SYM_ENOMEM;
	si->no_default = 1;
	f->version++;
	return SYM_EOK;
}

sym_status sym_facts_set_range(sym_facts *f, const sym_expr *s, const sym_expr *lo, const sym_expr *hi)
{
	sym_status st = SYM_EOK;
	if (!s || s->kind != SYM_KIND_SYM || (lo && lo->kind != SYM_KIND_NUM) ||
	    (hi && hi->kind != SYM_KIND_NUM)) {
		sym__error(f->ctx, SYM_EMISUSE, -1, "a range needs a symbol and constant ends");
		return SYM_EMISUSE;
	}
	/* an explicit range is the symbol's whole range: the default minimum
	 * no longer applies */
	if (lo)
		st = sym__facts_exempt_default(f, s);
	if (st == SYM_EOK && lo)
		st = set_bound(f, s, node_num(lo), 0);
	if (st == SYM_EOK && hi)
		st = set_bound(f, s, node_num(hi), 1);
	/* witnesses are checked against every fact */
	if (st == SYM_EOK && lo)
		st = remember(f, sym_expr_rel(f->ctx, SYM_REL_GE, s, lo));
	if (st == SYM_EOK && hi)
		st = remember(f, sym_expr_rel(f->ctx, SYM_REL_LE, s, hi));
	return st;
}

static sym_status set_residue(sym_facts *f, const sym_expr *s, const sym_num *m, const sym_num *r)
{
	sym_syminfo *si = info_for(f, s);
	sym_num rr, t;
	sym_status st = SYM_EOK;
	if (!si)
		return SYM_ENOMEM;
	sym__num_init(&rr);
	sym__num_init(&t);
	/* r mod m in [0, m) */
	sym__num_div(&t, r, m);
	sym__num_floor(&t, &t);
	sym__num_mul(&t, &t, m);
	sym__num_sub(&rr, r, &t);
	if (sym__num_is_one(m)) {
		/* x % 1 == 0 says nothing */
	} else if (sym__num_is_zero(&si->mod)) {
		sym__num_set(&si->mod, m);
		sym__num_set(&si->res, &rr);
	} else {
		/* combine two residue facts by the Chinese remainder theorem when
		 * the combined modulus is small; otherwise keep the first (sound) */
		sym_num l;
		int64_t L, a, ma, b, mb, x = 0;
		sym__num_init(&l);
		sym__num_lcm(&l, &si->mod, m);
		if (sym__num_get_si(&l, &L) && L <= 1000000 && sym__num_get_si(&si->res, &a) &&
		    sym__num_get_si(&si->mod, &ma) && sym__num_get_si(&rr, &b) && sym__num_get_si(m, &mb)) {
			for (x = a; x < L; x += ma)
				if (x % mb == b)
					break;
			if (x >= L) {
				st = contradiction(f, "the residues cannot both hold");
			} else {
				sym__num_set_si(&si->mod, L);
				sym__num_set_si(&si->res, x);
			}
		}
		sym__num_clear(&l);
	}
	sym__num_clear(&rr);
	sym__num_clear(&t);
	f->version++;
	if (st == SYM_EOK)
		st = check_sym(f, s);
	return st;
}

/* Recognises x - m*floor((x + c)/m) + k (times -1) as a residue fact about
 * x: the equation says (x + c) mod m == c - k. */
static int match_residue(const sym_expr *d, const sym_expr **x, sym_num *m, sym_num *r, int *valid)
{
	sym_lin v, w;
	sym_term t0, t1;
	const sym_term *ts, *tf;
	sym_num k, c, t, sgn;
	int ok = 0;
	sym__lin_view(d, &v);
	if (v.n != 2)
		return 0;
	t0 = sym__lin_term(&v, 0), t1 = sym__lin_term(&v, 1);
	if (t0.m->kind == SYM_KIND_SYM && t1.m->kind == SYM_KIND_FLOOR)
		ts = &t0, tf = &t1;
	else if (t1.m->kind == SYM_KIND_SYM && t0.m->kind == SYM_KIND_FLOOR)
		ts = &t1, tf = &t0;
	else
		return 0;
	sym__num_init(&k);
	sym__num_init(&c);
	sym__num_init(&t);
	sym__num_init(&sgn);
	sym__num_abs(&t, &ts->coef);
	if (!sym__num_is_one(&t))
		goto done;
	sym__num_set(&sgn, &ts->coef); /* +-1 */
	sym__lin_view(node_kid(tf->m), &w);
	if (w.n != 1 || sym__lin_mono(&w, 0) != ts->m)
		goto done;
	/* floor(x/m + c/m): m = 1/coef */
	sym__num_div(m, &sgn, &sgn);
	sym__num_div(m, m, sym__lin_coef(&w, 0));
	if (!sym__num_is_int(m) || sym__num_sgn(m) <= 0)
		goto done;
	sym__num_mul(&t, &tf->coef, &sgn);
	sym__num_neg(&t, &t);
	if (!sym__num_equal(&t, m))
		goto done;
	sym__num_mul(&c, w.c, m);
	sym__num_mul(&k, v.c, &sgn);
	/* (x + c) mod m == c - k */
	sym__num_sub(&t, &c, &k);
	*valid = sym__num_is_int(&t) && sym__num_sgn(&t) >= 0 && sym__num_cmp(&t, m) < 0;
	sym__num_neg(r, &k);
	*x = ts->m;
	ok = 1;
done:
	sym__num_clear(&k);
	sym__num_clear(&c);
	sym__num_clear(&t);
	sym__num_clear(&sgn);
	return ok;
}

static int occurs(sym_ctx *ctx, const sym_expr *e, const sym_expr *s)
{
	const sym_expr *syms[64];
	size_t n = sym_expr_symbols(ctx, e, syms, 64), i;
	if (n > 64)
		return 1; /* conservative */
	for (i = 0; i < n; i++)
		if (syms[i] == s)
			return 1;
	return 0;
}

static sym_status add_def(sym_facts *f, const sym_expr *x, const sym_expr *def)
{
	sym_syminfo *si;
	size_t i;
	sym_ctx *ctx = f->ctx;
	for (i = 0; i < f->ninfo; i++) {
		/* keep every definition free of defined symbols */
		if (f->info[i].def) {
			const sym_expr *nd = sym_expr_subst(ctx, f->info[i].def, 1, &x, &def);
			if (!nd)
				return sym_ctx_last_error(ctx);
			f->info[i].def = nd;
		}
	}
	si = info_for(f, x);
	if (!si)
		return SYM_ENOMEM;
	si->def = def;
	f->version++;
	return SYM_EOK;
}

static sym_status add_lin(sym_facts *f, const sym_expr *p)
{
	if (!p)
		return sym_ctx_last_error(f->ctx);
	if (p->kind == SYM_KIND_BOOL)
		return *(const int64_t *)NODE_PAYLOAD(p) ? SYM_EOK
		                                         : contradiction(f, "a linear fact is false");
	if (p->kind != SYM_KIND_LE)
		return SYM_EOK;
	if (SYM_GROW(f->ctx, f->lin, f->nlin + 1, f->caplin, 8) < 0)
		return SYM_ENOMEM;
	f->lin[f->nlin++] = p;
	f->version++;
	return SYM_EOK;
}

static sym_status assume_rel(sym_facts *f, const sym_expr *p)
{
	sym_ctx *ctx = f->ctx;
	const sym_expr *d = node_kid(p), *x = NULL;
	sym_lin v;
	sym_num t, m, r;
	sym_status st = SYM_EOK;
	size_t i, k, alone = (size_t)-1;
	sym__lin_view(d, &v);
	sym__num_init(&t);
	sym__num_init(&m);
	sym__num_init(&r);
	if (v.n == 1 && sym__lin_mono(&v, 0)->kind == SYM_KIND_SYM && p->kind != SYM_KIND_NE) {
		/* a*x + c KIND 0 */
		const sym_num *a = sym__lin_coef(&v, 0);
		x = sym__lin_mono(&v, 0);
		sym__num_neg(&t, v.c);
		sym__num_div(&t, &t, a); /* x KIND' -c/a */
		if (p->kind == SYM_KIND_EQ) {
			if (!sym__num_is_int(&t)) {
				st = contradiction(f, "an integer symbol equal to a fraction");
			} else {
				st = set_bound(f, x, &t, 0);
				if (st == SYM_EOK)
					st = set_bound(f, x, &t, 1);
				if (st == SYM_EOK)
					st = add_def(f, x, sym__num_node(ctx, &t));
			}
		} else {
			int upper = sym__num_sgn(a) > 0;
			if (p->kind == SYM_KIND_LT) {
				/* strict: x < t or x > t for an integer x */
				if (upper) {
					sym__num_ceil(&t, &t);
					sym__num_sub(&t, &t, &(sym_num){{1}, 1});
				} else {
					sym__num_floor(&t, &t);
					sym__num_add(&t, &t, &(sym_num){{1}, 1});
				}
			} else if (upper) {
				sym__num_floor(&t, &t);
			} else {
				sym__num_ceil(&t, &t);
			}
			st = set_bound(f, x, &t, upper);
		}
		goto done;
	}
	if (p->kind == SYM_KIND_EQ) {
		int valid = 0;
		if (match_residue(d, &x, &m, &r, &valid)) {
			st = valid ? set_residue(f, x, &m, &r)
			           : contradiction(f, "a remainder outside [0, m)");
			goto done;
		}
		/* a symbol with coefficient +-1 that occurs nowhere else is defined:
		 * the one alone on its side of the equation when there is one
		 * (a == 4*d + m defines a), else the last in canonical order (a == b
		 * defines b, so the first stays) */
		{
			size_t npos = 0, ipos = 0, ineg = 0;
			for (i = 0; i < v.n; i++) {
				if (sym__num_sgn(sym__lin_coef(&v, i)) > 0)
					npos++, ipos = i;
				else
					ineg = i;
			}
			if (npos == 1 && v.n > 2)
				alone = ipos;
			else if (npos == v.n - 1 && v.n > 2)
				alone = ineg;
		}
		for (k = 0; k <= v.n; k++) {
			const sym_expr *s, *rest, *def;
			if (k == 0) {
				if (alone == (size_t)-1)
					continue;
				i = alone;
			} else {
				i = v.n - k;
			}
			s = sym__lin_mono(&v, i);
			sym__num_abs(&t, sym__lin_coef(&v, i));
			if (s->kind != SYM_KIND_SYM || !sym__num_is_one(&t))
				continue;
			rest = sym_expr_sub(ctx, d, sym__scale(ctx, sym__lin_coef(&v, i), s));
			if (!rest) {
				st = sym_ctx_last_error(ctx);
				goto done;
			}
			if (occurs(ctx, rest, s))
				continue;
			/* c*s + rest == 0  =>  s == -rest/c */
			sym__num_neg(&t, sym__lin_coef(&v, i));
			sym__num_div(&t, &(sym_num){{1}, 1}, &t);
			def = sym__scale(ctx, &t, rest);
			if (!def) {
				st = sym_ctx_last_error(ctx);
				goto done;
			}
			st = add_def(f, s, def);
			goto done;
		}
	}
	/* a linear fact over several atoms: kept for the linear prover */
	if (sym__is_int(d) && (p->kind == SYM_KIND_LE || p->kind == SYM_KIND_EQ)) {
		st = add_lin(f, p->kind == SYM_KIND_LE ? p : sym_expr_rel(ctx, SYM_REL_LE, d, ctx->zero));
		if (st == SYM_EOK && p->kind == SYM_KIND_EQ)
			st = add_lin(f, sym_expr_rel(ctx, SYM_REL_GE, d, ctx->zero));
	}
done:
	sym__num_clear(&t);
	sym__num_clear(&m);
	sym__num_clear(&r);
	return st;
}

static sym_status remember(sym_facts *f, const sym_expr *p)
{
	if (!p)
		return sym_ctx_last_error(f->ctx);
	if (SYM_GROW(f->ctx, f->assumed, f->nassumed + 1, f->capassumed, 8) < 0)
		return SYM_ENOMEM;
	f->assumed[f->nassumed++] = p;
	return SYM_EOK;
}

static sym_status assume(sym_facts *f, const sym_expr *p)
{
	sym_ctx *ctx = f->ctx;
	const sym_expr *q;
	size_t i;
	if (!p)
		return sym_ctx_last_error(ctx);
	if (!(p->flags & SYM_F_PRED)) {
		sym__error(ctx, SYM_EDOMAIN, -1, "an assumption must be a predicate");
		return SYM_EDOMAIN;
	}
	/* use what is known already: definitions, then a decision */
	q = sym_simplify(ctx, f, p);
	if (!q)
		return sym_ctx_last_error(ctx);
	if (q->kind == SYM_KIND_BOOL) {
		if (*(const int64_t *)NODE_PAYLOAD(q))
			return SYM_EOK;
		return contradiction(f, "an assumption is false under the others");
	}
	if (q->kind == SYM_KIND_AND) {
		for (i = 0; i < q->n; i++) {
			sym_status st = assume(f, node_kids(q)[i]);
			if (st != SYM_EOK)
				return st;
		}
		return SYM_EOK;
	}
	if (node_is_rel(q))
		return assume_rel(f, q);
	return SYM_EOK; /* disjunctions: kept for witnesses only */
}

sym_status sym__facts_remember(sym_facts *f, const sym_expr *p)
{
	if (!p)
		return sym_ctx_last_error(f->ctx) != SYM_EOK ? sym_ctx_last_error(f->ctx) : SYM_EMISUSE;
	if (!(p->flags & SYM_F_PRED)) {
		sym__error(f->ctx, SYM_EDOMAIN, -1, "an assumption must be a predicate");
		return SYM_EDOMAIN;
	}
	return remember(f, p);
}

sym_status sym_facts_assume(sym_facts *f, const sym_expr *p)
{
	sym_status st;
	if (!p)
		return sym_ctx_last_error(f->ctx) != SYM_EOK ? sym_ctx_last_error(f->ctx) : SYM_EMISUSE;
	st = remember(f, p);
	if (st == SYM_EOK)
		st = assume(f, p);
	/* an error deep inside (out of memory) is never an "ok" */
	if (st == SYM_EOK && sym__failed(f->ctx))
		st = sym_ctx_last_error(f->ctx);
	return st;
}

int sym__facts_default_min(const sym_facts *f, int64_t *lo)
{
	return f->has_default_min && sym__num_get_si(&f->default_min, lo);
}
