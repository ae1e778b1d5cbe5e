/* The printer: canonical text in the input syntax with minimal parentheses.
 * Floors of exact quotients print as `P//Q`, and the pattern P - Q*(P//Q)
 * inside a sum prints as `P % Q`; parsing the text gives the same node. */
#include "print_private.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

static const sym_num num_one = {{1}, 1};

static const pmemo_ent *memo_find(const pmemo *m, const sym_expr *e)
{
	size_t i;
	if (!m->cap)
		return NULL;
	for (i = e->hash & (m->cap - 1); m->t[i].e; i = (i + 1) & (m->cap - 1))
		if (m->t[i].e == e)
			return &m->t[i];
	return NULL;
}

static int memo_put(pr *p, const sym_expr *e, size_t len, int prec, int unsafe, char *alt)
{
	pmemo *m = p->memo;
	size_t i;
	pmemo_ent *old = (pmemo_ent *)memo_find(m, e);
	if (old) {
		if (old->alt)
			sym__free(p->ctx, old->alt, strlen(old->alt) + 1);
		old->len = len, old->prec = prec, old->unsafe = unsafe, old->alt = alt;
		return 1;
	}
	if (2 * (m->n + 1) > m->cap) {
		/* small first: most texts are of a few nodes, and each print
		 * clears its table */
		size_t nc = m->cap ? 2 * m->cap : 16, j;
		pmemo_ent *nt = sym__alloc(p->ctx, nc * sizeof(*nt));
		if (!nt) {
			if (alt)
				sym__free(p->ctx, alt, strlen(alt) + 1);
			return 0;
		}
		memset(nt, 0, nc * sizeof(*nt));
		for (j = 0; j < m->cap; j++) {
			if (!m->t[j].e)
				continue;
			for (i = m->t[j].e->hash & (nc - 1); nt[i].e; i = (i + 1) & (nc - 1))
				;
			nt[i] = m->t[j];
		}
		sym__free(p->ctx, m->t, m->cap * sizeof(*m->t));
		m->t = nt, m->cap = nc;
	}
	for (i = e->hash & (m->cap - 1); m->t[i].e; i = (i + 1) & (m->cap - 1))
		;
	m->t[i].e = e, m->t[i].len = len, m->t[i].prec = prec, m->t[i].unsafe = unsafe;
	m->t[i].alt = alt;
	m->n++;
	return 1;
}

static int print_kept_text(pr *p, const sym_expr *e);
static void keep_text(pr *p, const sym_expr *e, size_t start);

int sym__print_expr(pr *p, const sym_expr *e)
{
	const pmemo_ent *m;
	size_t start;
	int prec;
	char *alt = NULL;
	p->unsafe = 0;
	if (!e) {
		/* a node built for printing could not be made (out of memory) */
		p->b->fail = 1;
		return P_ATOM;
	}
	if (p->b->fail || sym__failed(p->ctx))
		return P_ATOM;
	if (e->kind == SYM_KIND_SYM) {
		/* a name is its own text: no memo entry (a min or max of many
		 * symbols would fill the memo with them) */
		sym__sbuf_put(p->b, node_name(e), e->n);
		return P_ATOM;
	}
	m = memo_find(p->memo, e);
	if (m && (p->measure || m->alt)) {
		if (p->measure)
			sym__sbuf_put(p->b, NULL, m->len);
		else
			sym__sbuf_puts(p->b, m->alt);
		p->unsafe = m->unsafe;
		return m->prec;
	}
	start = p->b->n;
	prec = sym__print_node(p, e);
	if (p->measure && !p->b->fail) {
		size_t len = p->b->n - start;
		int unsafe = p->unsafe;
		alt = sym__print_alternatives(p, e, &len, &prec, &unsafe);
		if (alt) {
			p->b->n = start;
			sym__sbuf_put(p->b, NULL, len);
		}
		p->unsafe = unsafe;
		if (!p->b->fail && !memo_put(p, e, len, prec, unsafe, alt))
			p->b->fail = 1;
	}
	return prec;
}

typedef int (*print_fn)(pr *, const void *, const void *);

/* Runs fn in the measuring mode, writing nothing, and returns its
 * precedence (p->unsafe is set as fn leaves it); cheap once the nodes fn
 * prints are in the memo. */
static int peek(pr *p, print_fn fn, const void *x, const void *y)
{
	sym_sbuf cnt, *save = p->b;
	int measure = p->measure, prec;
	sym__sbuf_init(&cnt, p->ctx);
	cnt.count = 1;
	p->b = &cnt;
	p->measure = 1;
	prec = fn(p, x, y);
	p->b = save;
	p->measure = measure;
	if (cnt.fail)
		p->b->fail = cnt.fail;
	return prec;
}

static int item_print(pr *p, const void *x, const void *y)
{
	(void)y;
	return sym__print_expr(p, x);
}

/* Prints e, parenthesised when its precedence is below min. */
static void print_at(pr *p, const sym_expr *e, int min)
{
	const pmemo_ent *m = e && !p->measure ? memo_find(p->memo, e) : NULL;
	int prec = 0;
	if (!p->measure) {
		prec = m ? m->prec : peek(p, item_print, e, NULL);
		if (prec < min)
			sym__sbuf_puts(p->b, "(");
	}
	prec = sym__print_expr(p, e);
	if (prec < min) {
		sym__sbuf_puts(p->b, p->measure ? "()" : ")");
		p->unsafe = 0;
	}
}

/* Prints e at min, also parenthesised when its top level has the other
 * one of `//` (unsafe 1) and `%` (unsafe 2): (x % 4)//2, not x % 4//2. */
static void print_at_safe(pr *p, const sym_expr *e, int min, int avoid)
{
	const pmemo_ent *m = e && !p->measure ? memo_find(p->memo, e) : NULL;
	int un;
	if (!e) {
		p->b->fail = 1;
		return;
	}
	if (m)
		un = m->unsafe;
	else {
		peek(p, item_print, e, NULL);
		un = p->unsafe;
	}
	if (un == avoid) {
		sym__sbuf_puts(p->b, "(");
		sym__print_expr(p, e);
		sym__sbuf_puts(p->b, ")");
		p->unsafe = 0;
	} else {
		print_at(p, e, min);
	}
}

const sym_factor *sym__print_mono_view(const sym_expr *m, sym_factor *one, size_t *n)
{
	if (m->kind == SYM_KIND_MUL) {
		*n = m->n;
		return node_factors(m);
	}
	if (m->kind == SYM_KIND_NUM) {
		*n = 0;
		return NULL;
	}
	one->base = m, one->exp = 1;
	*n = 1;
	return one;
}

/* Writes the argument of a floor as P/Q with Q the common denominator times
 * the negative factors common to every term; returns 0 when Q would be 1. */
int sym__quotient_form(sym_ctx *ctx, const sym_expr *e, const sym_expr **P, const sym_expr **Q)
{
	sym_lin v;
	sym_num d, t;
	sym_factor common[16], one;
	size_t i, j, k, nc = 0, n;
	const sym_factor *f;
	const sym_expr *den;
	sym__lin_view(e, &v);
	sym__num_init(&d);
	sym__num_init(&t);
	sym__lin_denom(&v, &d);
	if (sym__num_is_zero(v.c) && v.n) {
		f = sym__print_mono_view(sym__lin_mono(&v, 0), &one, &n);
		for (j = 0; j < n && nc < 16; j++)
			if (f[j].exp < 0)
				common[nc++] = f[j];
		for (i = 1; i < v.n && nc; i++) {
			size_t w = 0;
			f = sym__print_mono_view(sym__lin_mono(&v, i), &one, &n);
			for (k = 0; k < nc; k++) {
				int64_t e2 = 0;
				for (j = 0; j < n; j++)
					if (f[j].base == common[k].base && f[j].exp < 0)
						e2 = f[j].exp;
				if (e2 < 0) {
					common[w].base = common[k].base;
					common[w].exp = e2 > common[k].exp ? e2 : common[k].exp;
					w++;
				}
			}
			nc = w;
		}
	}
	/* a reciprocal of a sum stays out of Q unless it is Q's only factor
	 * with exponent 1: the text (a*(b + c)) or (b + c)**2 would expand */
	{
		size_t k2, nsum = 0, w = 0;
		for (k2 = 0; k2 < nc; k2++)
			if (common[k2].base->kind == SYM_KIND_ADD)
				nsum++;
		if (nsum && !(nc == 1 && common[0].exp == -1))
			for (k2 = 0; k2 < nc; k2++)
				if (common[k2].base->kind != SYM_KIND_ADD)
					common[w++] = common[k2];
		if (nsum && !(nc == 1 && common[0].exp == -1))
			nc = w;
	}
	if (sym__num_is_one(&d) && nc == 0) {
		sym__num_clear(&d);
		sym__num_clear(&t);
		return 0;
	}
	for (i = 0; i < nc; i++)
		common[i].exp = -common[i].exp;
	den = sym__scale(ctx, &d, sym__monomial(ctx, common, nc));
	sym__num_clear(&d);
	sym__num_clear(&t);
	*Q = den;
	*P = sym_expr_mul(ctx, e, den);
	return *P && *Q;
}

static void print_power(pr *p, const sym_expr *base, int64_t e)
{
	if (e == 1) {
		print_at(p, base, P_UNARY);
	} else {
		char buf[32];
		print_at(p, base, P_ATOM);
		snprintf(buf, sizeof(buf), "**%lld", (long long)e);
		sym__sbuf_puts(p->b, buf);
	}
}

/* A negative power of a sum stays in the numerator as `(s)**-k` unless it is
 * the only symbolic item of the denominator with exponent -1: the text
 * `1/(a*(b + c))` would parse to the reciprocal of the expanded product. */
static int neg_inline(const sym_factor *f, size_t n, size_t i)
{
	size_t j, nneg = 0;
	if (f[i].exp > 0 || f[i].base->kind != SYM_KIND_ADD)
		return 0;
	for (j = 0; j < n; j++)
		if (f[j].exp < 0)
			nneg++;
	return !(nneg == 1 && f[i].exp == -1);
}

/* Prints |k| * m and returns its precedence. */
static int print_term(pr *p, const sym_num *k, const sym_expr *m)
{
	sym_num a, num, den;
	sym_factor one;
	const sym_factor *f;
	size_t n, i, nnum = 0, nden = 0;
	int first = 1, prec = P_MUL;
	sym__num_init(&a);
	sym__num_init(&num);
	sym__num_init(&den);
	sym__num_abs(&a, k);
	sym__num_numer(&num, &a);
	sym__num_denom(&den, &a);
	f = sym__print_mono_view(m, &one, &n);
	for (i = 0; i < n; i++) {
		if (f[i].exp > 0 || neg_inline(f, n, i))
			nnum++;
		else
			nden++;
	}
	p->unsafe = 0;
	if (n == 1 && f[0].exp == 1 && sym__num_is_one(&a)) {
		prec = sym__print_expr(p, f[0].base); /* a lone atom keeps its precedence */
		goto done;
	}
	if (n == 0) {
		sym__sbuf_num(p->b, &a);
		prec = sym__num_is_one(&den) ? P_ATOM : P_MUL;
		goto done;
	}
	if (!sym__num_is_one(&num) || nnum == 0) {
		sym__sbuf_num(p->b, &num);
		first = 0;
	}
	for (i = 0; i < n; i++) {
		if (!(f[i].exp > 0 || neg_inline(f, n, i)))
			continue;
		if (!first)
			sym__sbuf_puts(p->b, "*");
		print_power(p, f[i].base, f[i].exp);
		first = 0;
	}
	nden += !sym__num_is_one(&den);
	if (nden) {
		sym__sbuf_puts(p->b, nden > 1 ? "/(" : "/");
		first = 1;
		if (!sym__num_is_one(&den)) {
			sym__sbuf_num(p->b, &den);
			first = 0;
		}
		for (i = 0; i < n; i++) {
			if (f[i].exp > 0 || neg_inline(f, n, i))
				continue;
			if (!first)
				sym__sbuf_puts(p->b, "*");
			if (nden == 1 && f[i].exp == -1)
				print_at(p, f[i].base, P_ATOM);
			else
				print_power(p, f[i].base, -f[i].exp);
			first = 0;
		}
		if (nden > 1)
			sym__sbuf_puts(p->b, ")");
	}
	p->unsafe = 0;
done:
	sym__num_clear(&a);
	sym__num_clear(&num);
	sym__num_clear(&den);
	return prec;
}

/* A modulo found in a sum: k * (P % Q). */

/* The floor factor (exponent 1) of a monomial, or NULL. */
static const sym_expr *floor_factor(const sym_expr *m)
{
	size_t j;
	if (m->kind == SYM_KIND_FLOOR)
		return m;
	if (m->kind == SYM_KIND_MUL)
		for (j = 0; j < m->n; j++)
			if (node_factors(m)[j].base->kind == SYM_KIND_FLOOR && node_factors(m)[j].exp == 1)
				return node_factors(m)[j].base;
	return NULL;
}

/* The monomials of a sum of many terms, by pointer: where each is among
 * its terms (open addressing, power-of-two capacity; NULL t when the sum
 * is small or memory ran out, and the terms are then scanned). */
typedef struct mono_ix {
	sym_ctx *ctx;
	const sym_lin *v;
	size_t *t; /* term index + 1, 0 for a free slot */
	size_t cap;
} mono_ix;

#define MONO_IX_MIN_TERMS 32

static size_t mono_hash(const sym_expr *m)
{
	return (size_t)(((uintptr_t)m >> 4) * 0x9e3779b97f4a7c15ull);
}

static void mono_ix_init(mono_ix *ix, sym_ctx *ctx, const sym_lin *v)
{
	size_t i, h;
	ix->ctx = ctx, ix->v = v, ix->t = NULL, ix->cap = 0;
	if (v->n < MONO_IX_MIN_TERMS)
		return;
	for (ix->cap = 64; ix->cap < 2 * v->n; ix->cap *= 2)
		;
	if (!(ix->t = sym__alloc(ctx, ix->cap * sizeof(*ix->t)))) {
		ix->cap = 0; /* out of memory is recorded: the scan answers */
		return;
	}
	memset(ix->t, 0, ix->cap * sizeof(*ix->t));
	for (i = 0; i < v->n; i++) {
		for (h = mono_hash(sym__lin_mono(v, i)) & (ix->cap - 1); ix->t[h];
		     h = (h + 1) & (ix->cap - 1))
			;
		ix->t[h] = i + 1;
	}
}

static void mono_ix_clear(mono_ix *ix)
{
	if (ix->t)
		sym__free(ix->ctx, ix->t, ix->cap * sizeof(*ix->t));
	ix->t = NULL;
}

/* The coefficient of monomial m in the indexed sum, or NULL. */
static const sym_num *mono_ix_find(const mono_ix *ix, const sym_expr *m)
{
	size_t h, l;
	if (!ix->t) {
		for (l = 0; l < ix->v->n; l++)
			if (sym__lin_mono(ix->v, l) == m)
				return sym__lin_coef(ix->v, l);
		return NULL;
	}
	for (h = mono_hash(m) & (ix->cap - 1); ix->t[h]; h = (h + 1) & (ix->cap - 1))
		if (sym__lin_mono(ix->v, ix->t[h] - 1) == m)
			return sym__lin_coef(ix->v, ix->t[h] - 1);
	return NULL;
}

/* Whether every nonconstant term of x appears in the indexed sum with the
 * same coefficient (its monomials are distinct: one term to look at). */
static int terms_within_ix(const sym_expr *x, const mono_ix *ix)
{
	sym_lin w;
	size_t j;
	sym__lin_view(x, &w);
	for (j = 0; j < w.n; j++) {
		const sym_num *c = mono_ix_find(ix, sym__lin_mono(&w, j));
		if (!c || !sym__num_equal(c, sym__lin_coef(&w, j)))
			return 0;
	}
	return 1;
}

/* Whether the first nonconstant monomial of x is in the indexed sum (x
 * has one), which every term of x being there needs. */
static int monos_met(const sym_expr *x, const mono_ix *ix)
{
	sym_lin w;
	sym__lin_view(x, &w);
	return !w.n || mono_ix_find(ix, sym__lin_mono(&w, 0)) != NULL;
}

/* Whether every nonconstant term of x appears in y with the same
 * coefficient. */
static int terms_within(const sym_expr *x, const sym_expr *y)
{
	sym_lin w, v;
	size_t j, l;
	sym__lin_view(x, &w);
	sym__lin_view(y, &v);
	for (j = 0; j < w.n; j++) {
		int ok = 0;
		for (l = 0; l < v.n && !ok; l++)
			ok = sym__lin_mono(&v, l) == sym__lin_mono(&w, j) &&
			     sym__num_equal(sym__lin_coef(&v, l), sym__lin_coef(&w, j));
		if (!ok)
			return 0;
	}
	return 1;
}

/* A modulo is looked for only in floors whose argument divides by small
 * sums: P % Q with a divisor of more terms than this prints longer than
 * its expansion, and finding the quotient form of such a floor costs a
 * pass over the divisor each time a sum holding it is printed. */
#define MOD_MAX_DIVISOR_TERMS 64
/* Sums with more terms are not searched for G - m*floor(G/m). */
#define MOD_MAX_G_TERMS 256

/* Whether the floor argument a has a reciprocal of a sum of more than
 * MOD_MAX_DIVISOR_TERMS terms among the factors of its first term. */
static int divides_by_a_large_sum(const sym_expr *a)
{
	sym_lin v;
	sym_factor one;
	const sym_factor *f;
	size_t j, n;
	sym__lin_view(a, &v);
	if (!v.n)
		return 0;
	f = sym__print_mono_view(sym__lin_mono(&v, 0), &one, &n);
	for (j = 0; j < n; j++)
		if (f[j].exp < 0 && f[j].base->kind == SYM_KIND_ADD) {
			sym_lin bv;
			sym__lin_view(f[j].base, &bv);
			if (bv.n > MOD_MAX_DIVISOR_TERMS)
				return 1;
		}
	return 0;
}

/* Finds k*(P % Q) == k*P - k*Q*floor(P/Q) inside the sum e; on success
 * stores it and the rest of e in *rest.  P is read from the floor's
 * argument (P/Q), or is another floor G with floor(G/Q) canonically equal
 * to the floor found (floor(floor(x/2)/4) is floor(x/8)). */

/* Terms of a sum, plus one for a nonzero constant and one for a negative
 * first term (a unary minus). */
static size_t lin_size(const sym_expr *e)
{
	sym_lin v;
	sym__lin_view(e, &v);
	return v.n + !sym__num_is_zero(v.c) + (v.n && sym__num_sgn(sym__lin_coef(&v, 0)) < 0);
}

/* Whether k*(P % Q) + rest, as the parser builds it from the printed text,
 * is e itself: a floor read through its other form, or over a sum that
 * holds a fraction of a sum, can equal e in value and still be another
 * node, and the text must parse back to e. */
int sym__print_mod_is_exact(sym_ctx *ctx, const sym_expr *e, const modpart *mp, const sym_expr *rest)
{
	const sym_expr *m = sym_expr_mod(ctx, mp->P, mp->Q);
	m = m ? sym__scale(ctx, &mp->k, m) : NULL;
	return m && rest && sym_expr_add(ctx, m, rest) == e;
}

int sym__find_mod(sym_ctx *ctx, const sym_expr *e, modpart *mp, const sym_expr **rest, int frac)
{
	return sym__print_find_mod(ctx, e, mp, rest, frac, 0) && sym__print_mod_is_exact(ctx, e, mp, *rest);
}

/* With relax, P's terms need not all be in the sum (the rest then has
 * their negation). */
/* Whether the terms of -k*P2, P2 = Q - 1 - P the other form's numerator
 * of floor(P/Q) (integer P and Q), are all in e: the check before the
 * other form is tried. */
static int other_form_within(sym_ctx *ctx, const mono_ix *e, const sym_expr *P, const sym_expr *Q,
                             const sym_num *k)
{
	sym_num q1, k2;
	const sym_expr *P2, *kP2;
	if (Q->kind != SYM_KIND_NUM || !sym__num_is_int(node_num(Q)) || !(P->flags & SYM_F_INT) ||
	    P->kind == SYM_KIND_NUM)
		return 0;
	sym__num_init(&q1);
	sym__num_init(&k2);
	sym__num_sub(&q1, node_num(Q), &(sym_num){{1}, 1});
	sym__num_neg(&k2, k);
	P2 = sym__add_num(ctx, sym_expr_neg(ctx, P), &q1);
	kP2 = P2 ? sym__scale(ctx, &k2, P2) : NULL;
	sym__num_clear(&q1);
	sym__num_clear(&k2);
	return kP2 && kP2->kind != SYM_KIND_NUM && terms_within_ix(kP2, e);
}

static int find_mod_at(sym_ctx *ctx, const sym_expr *e, const mono_ix *ix, modpart *mp, const sym_expr **rest,
                       int frac, int relax);

/* The terms of e are indexed once: a sum of many floors checks each
 * floor's few terms against it, not against every term. */
int sym__print_find_mod(sym_ctx *ctx, const sym_expr *e, modpart *mp, const sym_expr **rest, int frac,
                        int relax)
{
	sym_lin v;
	mono_ix ix;
	int r;
	sym__lin_view(e, &v);
	mono_ix_init(&ix, ctx, &v);
	r = find_mod_at(ctx, e, &ix, mp, rest, frac, relax);
	mono_ix_clear(&ix);
	return r;
}

static int find_mod_at(sym_ctx *ctx, const sym_expr *e, const mono_ix *ix, modpart *mp, const sym_expr **rest,
                       int frac, int relax)
{
	const sym_lin *vp = ix->v;
	size_t i, j;
	const sym_expr *lastF = NULL, *P = NULL, *Q = NULL;
	int q_ok = 0, try_q;
	for (i = 0; i < vp->n; i++) {
		const sym_expr *m = sym__lin_mono(vp, i), *F = floor_factor(m), *R, *ratio, *S, *kP, *term;
		int g_ok;
		if (!F)
			continue;
		/* The quotient form of a floor is the same for every term that has
		 * it (the terms of k*Q*floor(P/Q) all do): found once.  Only a
		 * single-term Q can make the term's ratio to Q a number, and only
		 * the floor alone (m == F) makes the ratio to F one: the other
		 * terms cost nothing, so a sum of many terms over one floor is
		 * searched in linear time. */
		if (F != lastF) {
			sym_lin qv;
			lastF = F;
			q_ok = !divides_by_a_large_sum(node_kid(F)) &&
			       sym__quotient_form(ctx, node_kid(F), &P, &Q);
			if (q_ok) {
				sym__lin_view(Q, &qv);
				q_ok = qv.n == 0 || (qv.n == 1 && sym__num_sgn(qv.c) == 0);
			}
		}
		g_ok = m == F;
		if (!q_ok && !g_ok)
			continue;
		/* k*(P % Q) needs P's terms in e (in either form of the floor,
		 * P's monomials are its argument's for a number Q): without
		 * them only the G - m*(G//m) form below is left */
		try_q = q_ok && (relax || Q->kind != SYM_KIND_NUM || monos_met(node_kid(F), ix));
		if (!try_q && vp->n > MOD_MAX_G_TERMS)
			continue;
		term = sym__scale(ctx, sym__lin_coef(vp, i), m);
		R = sym_expr_div(ctx, term, F);
		if (!R)
			return 0;
		/* the rest of the sum is built only for a term that matches: a
		 * sum of many terms over one floor builds it a few times, not
		 * once per term */
		S = NULL;
		if (try_q) {
			ratio = sym_expr_div(ctx, R, Q);
			if (ratio && ratio->kind == SYM_KIND_NUM &&
			    (frac || sym__num_is_int(node_num(ratio)))) {
				const sym_expr *P2 = NULL, *kP2, *rest1 = NULL;
				sym__num_neg(&mp->k, node_num(ratio));
				kP = sym__scale(ctx, &mp->k, P);
				if (!kP)
					return 0;
				/* the rest of the sum (e without the term) is built
				 * only when P's terms, or those of the other form's
				 * P2, are in e: on a sum of many floors each floor's
				 * check is a look at its few terms, not a new sum.
				 * P's terms have no floor F, so they are in e exactly
				 * when they are in the rest. */
				if (!relax && !terms_within_ix(kP, ix) &&
				    !other_form_within(ctx, ix, P, Q, &mp->k)) {
					if (sym__failed(ctx))
						return 0;
					goto next_g;
				}
				if (!(S = sym_expr_sub(ctx, e, term)))
					return 0;
				if ((P->kind != SYM_KIND_NUM || Q->kind != SYM_KIND_NUM) &&
				    (relax || terms_within(kP, S)) &&
				    (P->kind == SYM_KIND_NUM || kP->kind != SYM_KIND_NUM)) {
					if (!(rest1 = sym_expr_sub(ctx, S, kP)))
						return 0;
					if (rest1->kind == SYM_KIND_NUM &&
					    sym__num_is_zero(node_num(rest1))) {
						mp->P = P, mp->Q = Q;
						*rest = rest1;
						return 1;
					}
				}
				/* the floor's other form: floor(P/Q) == -floor(P2/Q)
				 * with P2 = Q - 1 - P for integer P and Q, so
				 * -k*Q*floor(P/Q) is k*Q*floor(P2/Q) */
				if (Q->kind == SYM_KIND_NUM && sym__num_is_int(node_num(Q)) &&
				    (P->flags & SYM_F_INT) && P->kind != SYM_KIND_NUM) {
					sym_num q1, k2;
					sym__num_init(&q1);
					sym__num_init(&k2);
					sym__num_sub(&q1, node_num(Q), &(sym_num){{1}, 1});
					P2 = sym__add_num(ctx, sym_expr_neg(ctx, P), &q1);
					sym__num_neg(&k2, &mp->k);
					kP2 = P2 ? sym__scale(ctx, &k2, P2) : NULL;
					/* a lone negated term only for the whole sum:
					 * -y % 4, but seq + -seq % 8 reads worse than
					 * 8*((seq + 7)//8) */
					sym_lin pv;
					sym__lin_view(P2 ? P2 : P, &pv);
					if (kP2 && pv.n == 1 && sym__num_sgn(sym__lin_coef(&pv, 0)) < 0) {
						const sym_expr *r2 = sym_expr_sub(ctx, S, kP2);
						if (!r2 || r2->kind != SYM_KIND_NUM ||
						    !sym__num_is_zero(node_num(r2)))
							kP2 = NULL;
					}
					if (kP2 && kP2->kind != SYM_KIND_NUM &&
					    (relax || terms_within(kP2, S))) {
						const sym_expr *rest2 = sym_expr_sub(ctx, S, kP2);
						if (rest2 && (!rest1 || lin_size(rest2) + lin_size(P2) <
						                            lin_size(rest1) + lin_size(P))) {
							sym__num_set(&mp->k, &k2);
							mp->P = P2, mp->Q = Q;
							*rest = rest2;
							sym__num_clear(&q1);
							sym__num_clear(&k2);
							return 1;
						}
					}
					sym__num_clear(&q1);
					sym__num_clear(&k2);
					if (sym__failed(ctx))
						return 0;
				}
				if (rest1) {
					mp->P = P, mp->Q = Q;
					*rest = rest1;
					return 1;
				}
			}
		}
	next_g:
		/* G - m*floor(G/m) with G another floor term of the sum (looked
		 * for in sums of at most MOD_MAX_G_TERMS terms: each pair costs
		 * a floor) */
		if (R->kind != SYM_KIND_NUM || !sym__num_is_int(node_num(R)) || vp->n > MOD_MAX_G_TERMS)
			continue;
		for (j = 0; j < vp->n; j++) {
			const sym_expr *G = sym__lin_mono(vp, j), *Fm, *Qm;
			sym_num mq;
			if (j == i || G->kind != SYM_KIND_FLOOR)
				continue;
			/* R = -mq * coef(G) */
			sym__num_init(&mq);
			sym__num_div(&mq, node_num(R), sym__lin_coef(vp, j));
			sym__num_neg(&mq, &mq);
			if (sym__num_is_int(&mq) && sym__num_sgn(&mq) > 0 && !sym__num_is_one(&mq)) {
				Qm = sym__num_node(ctx, &mq);
				Fm = sym_expr_floordiv(ctx, G, Qm);
				if (Fm == F) {
					sym__num_set(&mp->k, sym__lin_coef(vp, j));
					mp->P = G, mp->Q = Qm;
					if (!S && !(S = sym_expr_sub(ctx, e, term))) {
						sym__num_clear(&mq);
						return 0;
					}
					*rest =
					    sym_expr_sub(ctx, S, sym__scale(ctx, sym__lin_coef(vp, j), G));
					sym__num_clear(&mq);
					return *rest != NULL;
				}
			}
			sym__num_clear(&mq);
		}
	}
	return 0;
}

static void print_mod(pr *p, const modpart *mp)
{
	sym_num a;
	sym__num_init(&a);
	sym__num_abs(&a, &mp->k);
	if (!sym__num_is_one(&a)) {
		sym__sbuf_num(p->b, &a);
		sym__sbuf_puts(p->b, "*(");
	}
	print_at_safe(p, mp->P, P_MUL, 1);
	sym__sbuf_puts(p->b, " % ");
	print_at(p, mp->Q, P_UNARY);
	if (!sym__num_is_one(&a))
		sym__sbuf_puts(p->b, ")");
	p->unsafe = sym__num_is_one(&a) ? 2 : 0;
	sym__num_clear(&a);
}

/* Prints one signed item of a sum. */
static void sum_item(pr *p, int *first, int neg, print_fn fn, const void *x, const void *y)
{
	int paren = 0;
	if (*first && neg) {
		peek(p, fn, x, y);
		paren = p->unsafe;
		sym__sbuf_puts(p->b, paren ? "-(" : "-");
	} else if (!*first) {
		sym__sbuf_puts(p->b, neg ? " - " : " + ");
	}
	fn(p, x, y);
	if (paren)
		sym__sbuf_puts(p->b, ")");
	*first = 0;
}

static int item_term(pr *p, const void *x, const void *y)
{
	return print_term(p, x, y);
}
static int item_mod(pr *p, const void *x, const void *y)
{
	(void)y;
	print_mod(p, x);
	return P_MUL;
}
static int item_num(pr *p, const void *x, const void *y)
{
	sym_num a;
	(void)y;
	sym__num_init(&a);
	sym__num_abs(&a, x);
	sym__sbuf_num(p->b, &a);
	sym__num_clear(&a);
	p->unsafe = 0;
	return P_ATOM;
}

/* Prints a sum (or any numeric node through its linear view); with
 * skip_const the constant is left out. Returns the precedence. */
static int print_sum(pr *p, const sym_expr *e, int skip_const, sym_num *rest_c)
{
	modpart mods[MAX_MODS];
	size_t nm = 0, i;
	const sym_expr *rest = e, *r2;
	sym_lin v;
	int first = 1, prec;
	while (nm < MAX_MODS) {
		sym__num_init(&mods[nm].k);
		if (!sym__find_mod(p->ctx, rest, &mods[nm], &r2, 0)) {
			sym__num_clear(&mods[nm].k);
			break;
		}
		rest = r2;
		nm++;
	}
	if (!rest) {
		p->b->fail = 1;
		return P_ATOM;
	}
	sym__lin_view(rest, &v);
	if (rest_c)
		sym__num_set(rest_c, v.c);
	{
		/* items: terms, modulos, the constant; a positive item leads
		 * when the first one is negative (2 - x//s, not -(x//s) + 2) */
		size_t nit = v.n + nm + (!skip_const && !sym__num_is_zero(v.c)), lead = 0, k;
		for (k = 0; k < nit; k++) {
			int sg = k < v.n        ? sym__num_sgn(sym__lin_coef(&v, k))
			         : k < v.n + nm ? sym__num_sgn(&mods[k - v.n].k)
			                        : sym__num_sgn(v.c);
			if (sg > 0) {
				lead = k;
				break;
			}
		}
		for (k = 0; k < nit; k++) {
			size_t j = k == 0 ? lead : k <= lead ? k - 1 : k;
			if (j < v.n)
				sum_item(p, &first, sym__num_sgn(sym__lin_coef(&v, j)) < 0, item_term,
				         sym__lin_coef(&v, j), sym__lin_mono(&v, j));
			else if (j < v.n + nm)
				sum_item(p, &first, sym__num_sgn(&mods[j - v.n].k) < 0, item_mod,
				         &mods[j - v.n], NULL);
			else
				sum_item(p, &first, sym__num_sgn(v.c) < 0, item_num, v.c, NULL);
		}
		if (!skip_const && first)
			sum_item(p, &first, 0, item_num, v.c, NULL);
	}
	for (i = 0; i < nm; i++)
		sym__num_clear(&mods[i].k);
	/* precedence: a single item keeps that item's precedence */
	prec = P_ADD;
	if (v.n + nm + (!skip_const && !sym__num_is_zero(v.c)) == 1) {
		int neg = 0;
		if (v.n == 1)
			neg = sym__num_sgn(sym__lin_coef(&v, 0)) < 0;
		else if (nm == 1)
			neg = sym__num_sgn(&mods[0].k) < 0;
		else
			neg = sym__num_sgn(v.c) < 0;
		prec = neg ? P_UNARY : P_MUL;
		if (!neg && v.n == 1) /* measuring again is cheap with the memo */
			prec = peek(p, item_term, sym__lin_coef(&v, 0), sym__lin_mono(&v, 0));
		if (!neg && v.n == 0 && nm == 0)
			prec = sym__num_is_int(v.c) ? P_ATOM : P_MUL;
		if (neg)
			p->unsafe = 0;
	} else {
		p->unsafe = 0;
	}
	return prec;
}

static const char *relop_text(sym_kind k, int flip)
{
	switch (k) {
	case SYM_KIND_EQ:
		return " == ";
	case SYM_KIND_NE:
		return " != ";
	case SYM_KIND_LE:
		return flip ? " >= " : " <= ";
	default:
		return flip ? " > " : " < ";
	}
}

/* Starts pos and neg as the terms of v with a positive coefficient and
 * the negated terms with a negative one (each side of a relation). */
void sym__print_split_by_sign(sym_ctx *ctx, const sym_lin *v, sym_sumb *pos, sym_sumb *neg)
{
	sym_num t;
	size_t i;
	sym__num_init(&t);
	sym__sumb_init(pos, ctx);
	sym__sumb_init(neg, ctx);
	for (i = 0; i < v->n; i++) {
		if (sym__num_sgn(sym__lin_coef(v, i)) > 0) {
			sym__sumb_add_term(pos, sym__lin_coef(v, i), sym__lin_mono(v, i));
		} else {
			sym__num_neg(&t, sym__lin_coef(v, i));
			sym__sumb_add_term(neg, &t, sym__lin_mono(v, i));
		}
	}
	sym__num_clear(&t);
}

static int print_rel(pr *p, const sym_expr *e)
{
	const sym_expr *d = node_kid(e), *rest;
	modpart mp;
	sym_lin v;
	sym_sumb pos, neg;
	const sym_expr *L, *R;
	sym_num c;
	sym__num_init(&mp.k);
	sym__num_init(&c);
	sym__lin_view(d, &v);
	if (sym__find_mod(p->ctx, d, &mp, &rest, 0)) {
		/* keep the modulo together: nonconstant part on the left, with a
		 * positive modulo (d <= 0 with -(x % 4) is x % 4 >= ...) */
		int flip = sym__num_sgn(&mp.k) < 0;
		const sym_expr *dd = flip ? sym_expr_neg(p->ctx, d) : d;
		sym_lin w;
		if (!dd) {
			p->b->fail = 1;
			goto done;
		}
		(void)w;
		print_sum(p, dd, 1, &c); /* c: the constant left after the modulos */
		sym__num_neg(&c, &c);
		sym__sbuf_puts(p->b, relop_text(e->kind, flip));
		sym__sbuf_num(p->b, &c);
		goto done;
	}
	sym__print_split_by_sign(p->ctx, &v, &pos, &neg);
	L = sym__sumb_finish(&pos);
	R = sym__sumb_finish(&neg);
	if (!L || !R) {
		p->b->fail = 1;
		goto done;
	}
	sym__num_neg(&c, v.c);
	if (L->kind == SYM_KIND_NUM) {
		/* no positive term: N flip(op) c */
		print_at(p, R, P_ADD);
		sym__sbuf_puts(p->b, relop_text(e->kind, 1));
		sym__num_neg(&c, &c);
		sym__sbuf_num(p->b, &c);
	} else {
		print_at(p, L, P_ADD);
		sym__sbuf_puts(p->b, relop_text(e->kind, 0));
		print_at(p, sym__add_num(p->ctx, R, &c), P_ADD);
	}
done:
	sym__num_clear(&mp.k);
	sym__num_clear(&c);
	p->unsafe = 0;
	return P_REL;
}

/* A min or max of symbols (SYM_F_SYMARGS): "max(" and the names, joined
 * by ", ", written straight into the output (its length is the names'
 * lengths and the separators), and kept by the context when long.  A
 * chain of 1,000 broadcasts prints 1,000 of them of up to 1,000 names. */
static void print_symbol_minmax(pr *p, const sym_expr *e)
{
	const sym_expr *const *k = node_kids(e);
	size_t i, len = 5 + 2 * (e->n - 1), start = p->b->n;
	char *w;
	for (i = 0; i < e->n; i++)
		len += k[i]->n;
	if (p->measure || p->b->count) {
		sym__sbuf_put(p->b, NULL, len);
		p->unsafe = 0;
		return;
	}
	/* 8 bytes of room past the end: a short name is one 8-byte move of
	 * its zero-padded payload */
	if (p->b->n + len + 9 > p->b->cap) /* geometric: a root may hold many */
		sym__sbuf_reserve(p->b, len + 8 + p->b->cap);
	if (p->b->fail)
		return;
	w = p->b->s + start;
	memcpy(w, e->kind == SYM_KIND_MIN ? "min(" : "max(", 4);
	w += 4;
	for (i = 0; i < e->n; i++) {
		const sym_expr *x = k[i];
		if (i)
			*w++ = ',', *w++ = ' ';
		if (x->n < 8)
			memcpy(w, node_name(x), 8);
		else
			memcpy(w, node_name(x), x->n);
		w += x->n;
	}
	*w++ = ')';
	*w = 0;
	p->b->n = start + len;
	p->unsafe = 0;
	if (e->n >= SYM_PTEXT_MIN_ARGS)
		keep_text(p, e, start);
}

int sym__print_node(pr *p, const sym_expr *e)
{
	size_t i;
	switch (e->kind) {
	case SYM_KIND_NUM: {
		const sym_num *v = node_num(e);
		sym__sbuf_num(p->b, v);
		if (sym__num_sgn(v) < 0)
			return P_UNARY;
		return sym__num_is_int(v) ? P_ATOM : P_MUL;
	}
	case SYM_KIND_SYM:
		sym__sbuf_puts(p->b, node_name(e));
		return P_ATOM;
	case SYM_KIND_ADD:
		return print_sum(p, e, 0, NULL);
	case SYM_KIND_MUL:
		return print_term(p, &num_one, e);
	case SYM_KIND_FLOOR: {
		const sym_expr *P, *Q;
		/* P//Q parses to floor(P/Q): printed only when P/Q is the
		 * argument itself (a sum over a reciprocal that the constructors
		 * left uncancelled, x*F/S - 1/S with S == x*F - 1, would parse
		 * back to floor(1)) */
		if (sym__quotient_form(p->ctx, node_kid(e), &P, &Q) &&
		    sym_expr_div(p->ctx, P, Q) == node_kid(e)) {
			print_at_safe(p, P, P_MUL, 2);
			sym__sbuf_puts(p->b, "//");
			print_at(p, Q, P_UNARY);
			p->unsafe = 1;
			return P_MUL;
		}
		sym__sbuf_puts(p->b, "floor(");
		sym__print_expr(p, node_kid(e));
		sym__sbuf_puts(p->b, ")");
		p->unsafe = 0;
		return P_ATOM;
	}
	case SYM_KIND_MIN:
	case SYM_KIND_MAX:
		/* only a min or max of symbols has a kept text: the same
		 * wherever it prints */
		if (e->flags & SYM_F_SYMARGS) {
			if (e->n < SYM_PTEXT_MIN_ARGS || !print_kept_text(p, e))
				print_symbol_minmax(p, e);
			return P_ATOM;
		}
		/* fall through */
	case SYM_KIND_ABS:
		sym__sbuf_put(p->b,
		              e->kind == SYM_KIND_ABS   ? "abs("
		              : e->kind == SYM_KIND_MIN ? "min("
		                                        : "max(",
		              4);
		if (p->measure) {
			/* names and separators are counted together: a min or
			 * max of hundreds of symbols is a sum of lengths */
			size_t len = 2 * (e->n - 1) + 1;
			for (i = 0; i < e->n; i++) {
				const sym_expr *k = node_kids(e)[i];
				if (k->kind == SYM_KIND_SYM)
					len += k->n;
				else
					sym__print_expr(p, k);
			}
			sym__sbuf_put(p->b, NULL, len);
		} else {
			/* runs of names go through a small buffer: one append
			 * per few dozen arguments */
			char run[512];
			size_t rn = 0;
			for (i = 0; i < e->n; i++) {
				const sym_expr *k = node_kids(e)[i];
				size_t need = k->n + (i ? 2 : 0);
				/* room is kept for a separator, the `)` and the
				 * 8-byte move of a short name */
				if (k->kind == SYM_KIND_SYM && need <= sizeof(run) - 11) {
					if (rn + need > sizeof(run) - 11) {
						sym__sbuf_put(p->b, run, rn);
						rn = 0;
					}
					if (i)
						run[rn++] = ',', run[rn++] = ' ';
					/* a symbol's payload is its name padded with zeros
					 * to a multiple of 8 bytes past its end: a short
					 * name is one 8-byte move (room for it is kept) */
					if (k->n < 8)
						memcpy(run + rn, node_name(k), 8);
					else
						memcpy(run + rn, node_name(k), k->n);
					rn += k->n;
					continue;
				}
				if (i)
					run[rn++] = ',', run[rn++] = ' ';
				sym__sbuf_put(p->b, run, rn);
				rn = 0;
				sym__print_expr(p, k);
			}
			run[rn++] = ')';
			sym__sbuf_put(p->b, run, rn);
		}
		p->unsafe = 0;
		return P_ATOM;
	case SYM_KIND_BOOL:
		sym__sbuf_puts(p->b, *(const int64_t *)NODE_PAYLOAD(e) ? "true" : "false");
		return P_ATOM;
	case SYM_KIND_AND:
	case SYM_KIND_OR:
		for (i = 0; i < e->n; i++) {
			if (i)
				sym__sbuf_puts(p->b, e->kind == SYM_KIND_AND ? " && " : " || ");
			print_at(p, node_kids(e)[i], e->kind == SYM_KIND_AND ? P_REL : P_AND);
		}
		p->unsafe = 0;
		return e->kind == SYM_KIND_AND ? P_AND : P_OR;
	default:
		return print_rel(p, e);
	}
}

/* The slot of e among the texts the context keeps: e's, or the free
 * slot where it would go; NULL when there is no table. */
static struct sym_ptext *ptext_slot(const sym_ctx *ctx, const sym_expr *e)
{
	size_t j;
	if (!ctx->ptext_cap)
		return NULL;
	for (j = e->hash & (ctx->ptext_cap - 1); ctx->ptext[j].e; j = (j + 1) & (ctx->ptext_cap - 1))
		if (ctx->ptext[j].e == e)
			break;
	return &ctx->ptext[j];
}

/* Drops every kept text, keeping the table. */
static void ptext_empty(sym_ctx *ctx)
{
	size_t i;
	for (i = 0; i < ctx->ptext_cap; i++)
		if (ctx->ptext[i].e) {
			sym__free(ctx, ctx->ptext[i].s, ctx->ptext[i].n + 1);
			ctx->ptext[i].e = NULL, ctx->ptext[i].s = NULL;
		}
	ctx->ptext_count = ctx->ptext_bytes = 0;
}

void sym__ptext_free(sym_ctx *ctx)
{
	ptext_empty(ctx);
	sym__free(ctx, ctx->ptext, ctx->ptext_cap * sizeof(*ctx->ptext));
	ctx->ptext = NULL;
	ctx->ptext_cap = 0;
}

/* Doubles the table of kept texts (the allocator itself: no room for the
 * cache is no error); 0 when there is no room. */
static int ptext_grow(sym_ctx *ctx)
{
	size_t cap = ctx->ptext_cap ? 2 * ctx->ptext_cap : 64, i, j;
	struct sym_ptext *t = ctx->alloc.realloc_fn(ctx->alloc.ud, NULL, 0, cap * sizeof(*t));
	if (!t)
		return 0;
	memset(t, 0, cap * sizeof(*t));
	for (i = 0; i < ctx->ptext_cap; i++) {
		if (!ctx->ptext[i].e)
			continue;
		for (j = ctx->ptext[i].e->hash & (cap - 1); t[j].e; j = (j + 1) & (cap - 1))
			;
		t[j] = ctx->ptext[i];
	}
	sym__free(ctx, ctx->ptext, ctx->ptext_cap * sizeof(*ctx->ptext));
	ctx->ptext = t, ctx->ptext_cap = cap;
	return 1;
}

/* Writes the text of a long min or max kept by the context; 0 when it has
 * none for e. */
static int print_kept_text(pr *p, const sym_expr *e)
{
	const struct sym_ptext *t = ptext_slot(p->ctx, e);
	if (!t || !t->e)
		return 0;
	sym__sbuf_put(p->b, p->measure ? NULL : t->s, t->n);
	p->unsafe = 0;
	return 1;
}

/* Keeps the text of min or max e of symbols (its text is then the same
 * wherever it prints), just written from byte start of the output. */
static void keep_text(pr *p, const sym_expr *e, size_t start)
{
	sym_ctx *ctx = p->ctx;
	size_t n = p->b->n - start;
	struct sym_ptext *t;
	char *s;
	if (p->measure || p->b->count || p->b->fail || !p->b->s || n + 1 > SYM_PTEXT_MAX_BYTES)
		return;
	if (ctx->ptext_bytes + n + 1 > SYM_PTEXT_MAX_BYTES)
		ptext_empty(ctx);
	if (2 * (ctx->ptext_count + 1) > ctx->ptext_cap && !ptext_grow(ctx))
		return;
	t = ptext_slot(ctx, e);
	if (t->e || !(s = ctx->alloc.realloc_fn(ctx->alloc.ud, NULL, 0, n + 1)))
		return;
	memcpy(s, p->b->s + start, n);
	s[n] = 0;
	t->e = e, t->s = s, t->n = n;
	ctx->ptext_count++;
	ctx->ptext_bytes += n + 1;
}

int sym__print(sym_sbuf *b, const sym_expr *e)
{
	pmemo memo = {NULL, 0, 0};
	sym_sbuf cnt;
	sym_pkey key;
	pr p;
	int ok, keyed;
	size_t start;
	if (!b->ctx) {
		b->fail = 1; /* printing builds nodes: a builder of a hook alone cannot */
		return 0;
	}
	keyed = e && !b->count && !b->fail && !sym__failed(b->ctx) && sym__pcache_key(e, &key);
	if (keyed && sym__pcache_print(b, e, &key))
		return !b->fail;
	start = b->n;
	p.ctx = b->ctx;
	p.unsafe = 0;
	p.memo = &memo;
	p.depth = 0;
	p.budget = ALT_BUDGET;
	p.work = ALT_WORK;
	p.long_offer = 0;
	/* measure first: the memo makes this linear in the distinct nodes,
	 * while the text of a shared node is written at each of its uses */
	sym__sbuf_init(&cnt, b->ctx);
	cnt.count = 1;
	p.b = &cnt;
	p.measure = 1;
	sym__print_expr(&p, e);
	ok = !cnt.fail && !sym__failed(b->ctx);
	if (cnt.fail == 2)
		sym__error(b->ctx, SYM_ELIMIT, -1, "expression text too long (more than %zu bytes)",
		           SYM_MAX_TEXT_BYTES);
	if (ok) {
		p.b = b;
		p.measure = 0;
		sym__sbuf_reserve(b, cnt.n); /* the text in one block */
		sym__print_expr(&p, e);
		ok = !b->fail && !sym__failed(b->ctx);
		if (ok && keyed && b->s)
			sym__pcache_add(b->ctx, &key, b->s + start, b->n - start);
	}
	for (size_t i = 0; i < memo.cap; i++)
		if (memo.t[i].e && memo.t[i].alt)
			sym__free(b->ctx, memo.t[i].alt, strlen(memo.t[i].alt) + 1);
	sym__free(b->ctx, memo.t, memo.cap * sizeof(*memo.t));
	return ok;
}

char *sym_expr_to_str(sym_ctx *ctx, const sym_expr *e)
{
	sym_sbuf b;
	char *r;
	if (!e)
		return NULL;
	sym__sbuf_init(&b, ctx);
	sym__sbuf_puts(&b, "");
	if (!sym__print(&b, e)) {
		sym__sbuf_clear(&b);
		if (!sym__failed(ctx))
			sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
		return NULL;
	}
	/* shrink to exact size so sym_str_free can pass the right size */
	r = sym__realloc(ctx, b.s, b.cap, b.n + 1);
	if (!r) {
		sym__sbuf_clear(&b);
		return NULL;
	}
	return r;
}

void sym_str_free(sym_ctx *ctx, char *s)
{
	if (s)
		sym__free(ctx, s, strlen(s) + 1);
}
