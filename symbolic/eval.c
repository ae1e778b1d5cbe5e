/* Exact evaluation at integer points and substitution of symbols. */
#include "eval_private.h"

#include <stdlib.h>

/* ---- numeric evaluation ------------------------------------------------ */

/* Values of the inner nodes met so far: the canonical form is a DAG whose
 * tree can be exponentially larger (x*a0%b0*a1%b1... doubles per pair), so
 * each node is evaluated once per point. */
typedef struct evmemo {
	const sym_expr **k;
	sym_num *v;
	size_t cap, count;
} evmemo;

typedef struct env {
	sym_ctx *ctx;
	size_t n;
	const sym_expr *const *syms;
	const sym_num *vals;
	evmemo *memo;
} env;

static const sym_num *memo_find(const env *v, const sym_expr *e)
{
	const evmemo *m = v->memo;
	size_t j;
	if (!m->cap)
		return NULL;
	for (j = e->hash & (m->cap - 1); m->k[j]; j = (j + 1) & (m->cap - 1))
		if (m->k[j] == e)
			return &m->v[j];
	return NULL;
}

static int memo_add(const env *v, const sym_expr *e, const sym_num *val)
{
	evmemo *m = v->memo;
	size_t j, i;
	if ((m->count + 1) * 2 > m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		const sym_expr **nk = sym__alloc(v->ctx, nc * sizeof(*nk));
		sym_num *nv = nk ? sym__alloc(v->ctx, nc * sizeof(*nv)) : NULL;
		if (!nv) {
			sym__free(v->ctx, nk, nc * sizeof(*nk));
			return 0;
		}
		memset(nk, 0, nc * sizeof(*nk));
		for (i = 0; i < m->cap; i++)
			if (m->k[i]) {
				for (j = m->k[i]->hash & (nc - 1); nk[j]; j = (j + 1) & (nc - 1))
					;
				nk[j] = m->k[i], nv[j] = m->v[i]; /* the number moves */
			}
		sym__free(v->ctx, m->k, m->cap * sizeof(*m->k));
		sym__free(v->ctx, m->v, m->cap * sizeof(*m->v));
		m->k = nk, m->v = nv, m->cap = nc;
	}
	for (j = e->hash & (m->cap - 1); m->k[j]; j = (j + 1) & (m->cap - 1))
		;
	m->k[j] = e;
	sym__num_init(&m->v[j]);
	sym__num_set(&m->v[j], val);
	m->count++;
	return 1;
}

static void memo_free(sym_ctx *ctx, evmemo *m)
{
	size_t i;
	for (i = 0; i < m->cap; i++)
		if (m->k[i])
			sym__num_clear(&m->v[i]);
	sym__free(ctx, m->k, m->cap * sizeof(*m->k));
	sym__free(ctx, m->v, m->cap * sizeof(*m->v));
}

static int lookup(const env *v, const sym_expr *s, sym_num *out)
{
	size_t i;
	for (i = 0; i < v->n; i++)
		if (v->syms[i] == s) {
			sym__num_set(out, &v->vals[i]);
			return 1;
		}
	sym__error(v->ctx, SYM_EUNBOUND, -1, "unbound symbol '%s'", node_name(s));
	return 0;
}

static int ev(const env *v, const sym_expr *e, sym_num *out);

static int ev_pow(const env *v, const sym_expr *base, int64_t k, sym_num *out)
{
	sym_num b;
	int ok;
	sym__num_init(&b);
	ok = ev(v, base, &b);
	if (ok && k < 0 && sym__num_is_zero(&b)) {
		sym__error(v->ctx, SYM_EDIVZERO, -1, "division by zero");
		ok = 0;
	}
	if (ok && !sym__num_pow(out, &b, k, SYM_MAX_BITS)) {
		sym__error(v->ctx, SYM_ELIMIT, -1, "number too large (more than %lu bits)", SYM_MAX_BITS);
		ok = 0;
	}
	sym__num_clear(&b);
	return ok;
}

static int ev(const env *v, const sym_expr *e, sym_num *out)
{
	sym_num t, u;
	size_t i;
	int ok = 1;
	switch (e->kind) {
	case SYM_KIND_NUM:
		sym__num_set(out, node_num(e));
		return 1;
	case SYM_KIND_SYM:
		return lookup(v, e, out);
	case SYM_KIND_BOOL:
		sym__num_set_si(out, *(const int64_t *)NODE_PAYLOAD(e));
		return 1;
	default:
		break;
	}
	{
		const sym_num *seen = memo_find(v, e);
		if (seen) {
			sym__num_set(out, seen);
			return 1;
		}
	}
	sym__num_init(&t);
	sym__num_init(&u);
	switch (e->kind) {
	case SYM_KIND_ADD:
		sym__num_set(&u, node_add_const(e));
		for (i = 0; i < e->n && ok; i++) {
			ok = ev(v, node_mono(e, i), &t);
			sym__num_mul(&t, &t, node_coef(e, i));
			sym__num_add(&u, &u, &t);
		}
		break;
	case SYM_KIND_MUL:
		sym__num_set_si(&u, 1);
		for (i = 0; i < e->n && ok; i++) {
			ok = ev_pow(v, node_factors(e)[i].base, node_factors(e)[i].exp, &t);
			sym__num_mul(&u, &u, &t);
		}
		break;
	case SYM_KIND_FLOOR:
		ok = ev(v, node_kid(e), &t);
		sym__num_floor(&u, &t);
		break;
	case SYM_KIND_ABS:
		ok = ev(v, node_kid(e), &t);
		sym__num_abs(&u, &t);
		break;
	case SYM_KIND_MIN:
	case SYM_KIND_MAX:
		for (i = 0; i < e->n && ok; i++) {
			ok = ev(v, node_kids(e)[i], &t);
			if (i == 0 ||
			    (e->kind == SYM_KIND_MIN ? sym__num_cmp(&t, &u) < 0 : sym__num_cmp(&t, &u) > 0))
				sym__num_set(&u, &t);
		}
		break;
	case SYM_KIND_EQ:
	case SYM_KIND_NE:
	case SYM_KIND_LE:
	case SYM_KIND_LT: {
		int s;
		ok = ev(v, node_kid(e), &t);
		s = sym__num_sgn(&t);
		s = e->kind == SYM_KIND_EQ   ? s == 0
		    : e->kind == SYM_KIND_NE ? s != 0
		    : e->kind == SYM_KIND_LE ? s <= 0
		                             : s < 0;
		sym__num_set_si(&u, s);
		break;
	}
	case SYM_KIND_AND:
	case SYM_KIND_OR: {
		/* every operand is evaluated so that errors are never hidden */
		int acc = e->kind == SYM_KIND_AND;
		for (i = 0; i < e->n && ok; i++) {
			ok = ev(v, node_kids(e)[i], &t);
			if (e->kind == SYM_KIND_AND)
				acc = acc && !sym__num_is_zero(&t);
			else
				acc = acc || !sym__num_is_zero(&t);
		}
		sym__num_set_si(&u, acc);
		break;
	}
	default:
		ok = 0;
		sym__error(v->ctx, SYM_EMISUSE, -1, "cannot evaluate node kind %d", e->kind);
	}
	if (ok && !sym__failed(v->ctx))
		ok = memo_add(v, e, &u);
	if (ok)
		sym__num_set(out, &u);
	sym__num_clear(&t);
	sym__num_clear(&u);
	return ok && !sym__failed(v->ctx);
}

int sym__eval_num(sym_ctx *ctx, const sym_expr *e, size_t n, const sym_expr *const *syms, const sym_num *vals,
                  sym_num *out)
{
	env v;
	evmemo m = {NULL, NULL, 0, 0};
	int ok;
	v.ctx = ctx, v.n = n, v.syms = syms, v.vals = vals, v.memo = &m;
	if (!e || sym__failed(ctx))
		return 0;
	ok = ev(&v, e, out);
	memo_free(ctx, &m);
	return ok;
}

/* ---- rebuilding and substitution -------------------------------------- */

/* Number of child slots of e for sym__rebuild. */
size_t sym__nslots(const sym_expr *e)
{
	switch (e->kind) {
	case SYM_KIND_NUM:
	case SYM_KIND_SYM:
	case SYM_KIND_BOOL:
		return 0;
	default:
		return e->n;
	}
}

const sym_expr *sym__slot(const sym_expr *e, size_t i)
{
	switch (e->kind) {
	case SYM_KIND_ADD:
		return node_mono(e, i);
	case SYM_KIND_MUL:
		return node_factors(e)[i].base;
	default:
		return node_kids(e)[i];
	}
}

const sym_expr *sym__rebuild(sym_ctx *ctx, const sym_expr *e, const sym_expr *const *k)
{
	size_t i;
	const sym_expr *r = NULL;
	for (i = 0; i < sym__nslots(e); i++)
		if (!k[i])
			return NULL;
	switch (e->kind) {
	case SYM_KIND_ADD: {
		sym_sumb b;
		sym__sumb_init(&b, ctx);
		sym__num_set(&b.c, node_add_const(e));
		for (i = 0; i < e->n; i++)
			sym__sumb_add(&b, node_coef(e, i), k[i]);
		return sym__sumb_finish(&b);
	}
	case SYM_KIND_MUL:
		r = ctx->one;
		for (i = 0; i < e->n && r; i++)
			r = sym_expr_mul(ctx, r, sym_expr_pow_si(ctx, k[i], node_factors(e)[i].exp));
		return r;
	case SYM_KIND_FLOOR:
		return sym_expr_floor(ctx, k[0]);
	case SYM_KIND_ABS:
		return sym_expr_abs(ctx, k[0]);
	case SYM_KIND_MIN:
		return sym_expr_min(ctx, e->n, k);
	case SYM_KIND_MAX:
		return sym_expr_max(ctx, e->n, k);
	case SYM_KIND_EQ:
		return sym_expr_rel(ctx, SYM_REL_EQ, k[0], ctx->zero);
	case SYM_KIND_NE:
		return sym_expr_rel(ctx, SYM_REL_NE, k[0], ctx->zero);
	case SYM_KIND_LE:
		return sym_expr_rel(ctx, SYM_REL_LE, k[0], ctx->zero);
	case SYM_KIND_LT:
		return sym_expr_rel(ctx, SYM_REL_LT, k[0], ctx->zero);
	case SYM_KIND_AND:
	case SYM_KIND_OR:
		r = sym_expr_bool(ctx, e->kind == SYM_KIND_AND);
		for (i = 0; i < e->n && r; i++)
			r = e->kind == SYM_KIND_AND ? sym_expr_and(ctx, r, k[i]) : sym_expr_or(ctx, r, k[i]);
		return r;
	default:
		return e;
	}
}

/* Memo of a bottom-up transformation: node -> result. */
void sym__memo_init(sym_memo *m, sym_ctx *ctx)
{
	m->ctx = ctx;
	m->t = NULL;
	m->cap = m->count = 0;
}

void sym__memo_clear(sym_memo *m)
{
	sym__free(m->ctx, m->t, m->cap * sizeof(*m->t));
	m->t = NULL;
	m->cap = m->count = 0;
}

void sym__memo_reset(sym_memo *m)
{
	if (m->count * 8 < m->cap) {
		/* sparse: zeroing every slot would cost more than regrowing */
		sym__memo_clear(m);
		return;
	}
	if (m->cap)
		memset(m->t, 0, m->cap * sizeof(*m->t));
	m->count = 0;
}

const sym_expr *sym__memo_get(const sym_memo *m, const sym_expr *k)
{
	size_t j;
	if (!m->cap)
		return NULL;
	for (j = k->hash & (m->cap - 1); m->t[j].key; j = (j + 1) & (m->cap - 1))
		if (m->t[j].key == k)
			return m->t[j].val;
	return NULL;
}

int sym__memo_put(sym_memo *m, const sym_expr *k, const sym_expr *v)
{
	size_t j;
	if ((m->count + 1) * 2 > m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64, i;
		sym_memo_slot *nt = sym__alloc(m->ctx, nc * sizeof(*nt));
		if (!nt)
			return 0;
		memset(nt, 0, nc * sizeof(*nt));
		for (i = 0; i < m->cap; i++)
			if (m->t[i].key) {
				for (j = m->t[i].key->hash & (nc - 1); nt[j].key; j = (j + 1) & (nc - 1))
					;
				nt[j] = m->t[i];
			}
		sym__free(m->ctx, m->t, m->cap * sizeof(*m->t));
		m->t = nt, m->cap = nc;
	}
	for (j = k->hash & (m->cap - 1); m->t[j].key; j = (j + 1) & (m->cap - 1))
		if (m->t[j].key == k) {
			m->t[j].val = v;
			return 1;
		}
	m->t[j].key = k, m->t[j].val = v;
	m->count++;
	return 1;
}

const sym_expr *sym__transform(sym_ctx *ctx, const sym_expr *e, sym_leaf_fn leaf, void *ud, sym_memo *memo)
{
	const sym_expr *r, *stack[16], **k;
	size_t i, n;
	if (!e || sym__failed(ctx))
		return NULL;
	if ((r = sym__memo_get(memo, e)))
		return r;
	if (e->kind == SYM_KIND_SYM)
		r = leaf(ctx, e, ud);
	else if (e->kind == SYM_KIND_NUM || e->kind == SYM_KIND_BOOL)
		r = e;
	else {
		int same = 1;
		n = sym__nslots(e);
		k = n <= 16 ? stack : sym__alloc(ctx, n * sizeof(*k));
		if (!k)
			return NULL;
		for (i = 0; i < n; i++) {
			k[i] = sym__transform(ctx, sym__slot(e, i), leaf, ud, memo);
			if (!k[i])
				break;
			if (k[i] != sym__slot(e, i))
				same = 0;
		}
		r = i < n ? NULL : same ? e : sym__rebuild(ctx, e, k);
		if (k != stack)
			sym__free(ctx, k, n * sizeof(*k));
	}
	if (r && !sym__memo_put(memo, e, r))
		return NULL;
	return r;
}

typedef struct subst_ud {
	size_t n;
	const sym_expr *const *syms;
	const sym_expr *const *by;
} subst_ud;

static const sym_expr *subst_leaf(sym_ctx *ctx, const sym_expr *s, void *ud)
{
	const subst_ud *u = ud;
	size_t i;
	(void)ctx;
	for (i = 0; i < u->n; i++)
		if (u->syms[i] == s)
			return u->by[i];
	return s;
}

const sym_expr *sym_expr_subst(sym_ctx *ctx, const sym_expr *e, size_t n, const sym_expr *const *syms,
                               const sym_expr *const *by)
{
	subst_ud u;
	sym_memo m;
	const sym_expr *r;
	size_t i;
	if (!e || sym__failed(ctx))
		return NULL;
	for (i = 0; i < n; i++) {
		if (!syms[i] || !by[i])
			return sym__error(ctx, SYM_EMISUSE, -1, "substitutions need symbols and values");
		if (syms[i]->kind != SYM_KIND_SYM)
			return sym__error(ctx, SYM_EMISUSE, -1, "only symbols can be substituted");
		if (by[i]->flags & SYM_F_PRED)
			return sym__error(ctx, SYM_EDOMAIN, -1, "a symbol cannot be replaced by a predicate");
	}
	u.n = n, u.syms = syms, u.by = by;
	sym__memo_init(&m, ctx);
	r = sym__transform(ctx, e, subst_leaf, &u, &m);
	sym__memo_clear(&m);
	return r;
}

const sym_expr *sym_expr_eval_si(sym_ctx *ctx, const sym_expr *e, size_t n, const sym_expr *const *syms,
                                 const long long *vals)
{
	const sym_expr *stack_syms[16], **all = NULL, *r = NULL;
	sym_num nv[16], *numv = nv, out;
	size_t i, ns;
	int bound_all = 1;
	if (!e || sym__failed(ctx))
		return NULL;
	for (i = 0; i < n; i++) {
		if (!syms[i])
			return sym__error(ctx, SYM_EMISUSE, -1, "only symbols can be bound");
		if (syms[i]->kind != SYM_KIND_SYM)
			return sym__error(ctx, SYM_EMISUSE, -1, "only symbols can be bound");
	}
	/* are all symbols of e bound? */
	ns = sym_expr_symbols(ctx, e, stack_syms, 16);
	if (ns > 16) {
		all = sym__alloc(ctx, ns * sizeof(*all));
		if (!all)
			return NULL;
		sym_expr_symbols(ctx, e, all, ns);
	} else {
		all = stack_syms;
	}
	for (i = 0; i < ns && bound_all; i++) {
		size_t j;
		int found = 0;
		for (j = 0; j < n; j++)
			if (syms[j] == all[i])
				found = 1;
		bound_all = found;
	}
	if (all != stack_syms)
		sym__free(ctx, all, ns * sizeof(*all));
	if (!bound_all) {
		/* partial: substitute constants and rebuild */
		const sym_expr **by = sym__alloc(ctx, (n ? n : 1) * sizeof(*by));
		if (!by)
			return NULL;
		for (i = 0; i < n; i++)
			by[i] = sym__num_node_si(ctx, vals[i]);
		r = sym_expr_subst(ctx, e, n, syms, by);
		sym__free(ctx, by, (n ? n : 1) * sizeof(*by));
		return r;
	}
	if (n > 16) {
		numv = sym__alloc(ctx, n * sizeof(*numv));
		if (!numv)
			return NULL;
	}
	for (i = 0; i < n; i++) {
		sym__num_init(&numv[i]);
		sym__num_set_si(&numv[i], vals[i]);
	}
	sym__num_init(&out);
	if (sym__eval_num(ctx, e, n, syms, numv, &out))
		r = (e->flags & SYM_F_PRED) ? sym_expr_bool(ctx, !sym__num_is_zero(&out))
		                            : sym__num_node(ctx, &out);
	sym__num_clear(&out);
	for (i = 0; i < n; i++)
		sym__num_clear(&numv[i]);
	if (numv != nv)
		sym__free(ctx, numv, n * sizeof(*numv));
	return r;
}

/* ---- symbols of an expression ----------------------------------------- */

static int collect(sym_ctx *ctx, const sym_expr *e, sym_memo *seen, const sym_expr ***out, size_t *n,
                   size_t *cap)
{
	size_t i;
	if (sym__memo_get(seen, e))
		return 1;
	if (!sym__memo_put(seen, e, e))
		return 0;
	if (e->kind == SYM_KIND_SYM) {
		if (SYM_GROW(ctx, *out, *n + 1, *cap, 8) < 0)
			return 0;
		(*out)[(*n)++] = e;
		return 1;
	}
	for (i = 0; i < sym__nslots(e); i++)
		if (!collect(ctx, sym__slot(e, i), seen, out, n, cap))
			return 0;
	return 1;
}

size_t sym_expr_symbols(sym_ctx *ctx, const sym_expr *e, const sym_expr **out, size_t cap)
{
	sym_memo seen;
	const sym_expr **all = NULL;
	size_t n = 0, acap = 0, i;
	if (!e)
		return 0;
	if (e->kind == SYM_KIND_SYM) {
		if (cap)
			out[0] = e;
		return 1;
	}
	sym__memo_init(&seen, ctx);
	if (!collect(ctx, e, &seen, &all, &n, &acap))
		n = 0;
	sym__memo_clear(&seen);
	if (n)
		qsort(all, n, sizeof(*all), sym__cmp_q);
	for (i = 0; i < n && i < cap; i++)
		out[i] = all[i];
	sym__free(ctx, all, acap * sizeof(*all));
	return n;
}
