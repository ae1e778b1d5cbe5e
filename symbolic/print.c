/* The printer: canonical text in the input syntax with minimal parentheses.
 * Floors of exact quotients print as `P//Q`, and the pattern P - Q*(P//Q)
 * inside a sum prints as `P % Q`; parsing the text gives the same node. */
#include "print_private.h"

#include <stdarg.h>
#include <stdio.h>

enum { P_OR = 1, P_AND, P_REL, P_ADD, P_MUL, P_UNARY, P_POW, P_ATOM };

static const sym_num num_one = {{1}, 1};

void sym__sbuf_init(sym_sbuf *b, sym_ctx *ctx)
{
	memset(b, 0, sizeof(*b));
	b->ctx = ctx;
}

void sym__sbuf_init_hook(sym_sbuf *b, const sym_allocator *a)
{
	memset(b, 0, sizeof(*b));
	b->hook = *a;
}

/* The builder's allocator: the context's (recording out of memory there)
 * or the hook copy's. */
static void *sbuf_realloc(sym_sbuf *b, void *p, size_t old, size_t n)
{
	if (b->ctx) {
		if (n == 0) {
			sym__free(b->ctx, p, old);
			return NULL;
		}
		return sym__realloc(b->ctx, p, old, n);
	}
	if (n == 0 && !p)
		return NULL;
	return b->hook.realloc_fn(b->hook.ud, p, old, n);
}

void sym__sbuf_clear(sym_sbuf *b)
{
	sbuf_realloc(b, b->s, b->cap, 0);
	b->s = NULL;
	b->n = b->cap = 0;
}

char *sym__sbuf_take(sym_sbuf *b)
{
	char *s;
	if (b->fail || b->count) {
		sym__sbuf_clear(b);
		return NULL;
	}
	if (!b->s)
		sym__sbuf_put(b, "", 0);
	if (b->fail || !b->s) {
		sym__sbuf_clear(b);
		return NULL;
	}
	if (b->cap != b->n + 1) {
		if (!(s = sbuf_realloc(b, b->s, b->cap, b->n + 1))) {
			b->fail = 1;
			sym__sbuf_clear(b);
			return NULL;
		}
	} else {
		s = b->s;
	}
	b->s = NULL;
	b->n = b->cap = 0;
	return s;
}

void sym__sbuf_put(sym_sbuf *b, const char *s, size_t len)
{
	if (b->fail)
		return;
	if (b->count) {
		if (len > SYM_MAX_TEXT_BYTES - b->n)
			b->fail = 2; /* the text is too long: stop measuring */
		else
			b->n += len;
		return;
	}
	if (b->n + len + 1 > b->cap) {
		size_t nc = (b->n + len + 1) * 2;
		char *ns = sbuf_realloc(b, b->s, b->cap, nc);
		if (!ns) {
			b->fail = 1;
			return;
		}
		b->s = ns, b->cap = nc;
	}
	memcpy(b->s + b->n, s, len);
	b->n += len;
	b->s[b->n] = 0;
}

void sym__sbuf_puts(sym_sbuf *b, const char *s)
{
	sym__sbuf_put(b, s, strlen(s));
}

void sym__sbuf_printf(sym_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sym__sbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

void sym__sbuf_vprintf(sym_sbuf *b, const char *fmt, va_list ap0)
{
	char small[256], *big = NULL;
	va_list ap;
	int k;
	if (b->fail)
		return;
	if (!b->count && b->s && b->cap - b->n > 1) {
		/* straight into the room left, when it fits */
		size_t room = b->cap - b->n;
		va_copy(ap, ap0);
		k = vsnprintf(b->s + b->n, room, fmt, ap);
		va_end(ap);
		if (k >= 0 && (size_t)k < room) {
			b->n += (size_t)k;
			return;
		}
		b->s[b->n] = 0; /* what was cut off is written again below */
	}
	va_copy(ap, ap0);
	k = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (k < 0) {
		b->fail = 1;
		return;
	}
	if ((size_t)k < sizeof(small) || b->count) {
		sym__sbuf_put(b, small, (size_t)k);
		return;
	}
	big = sbuf_realloc(b, NULL, 0, (size_t)k + 1);
	if (!big) {
		b->fail = 1;
		return;
	}
	va_copy(ap, ap0);
	vsnprintf(big, (size_t)k + 1, fmt, ap);
	va_end(ap);
	sym__sbuf_put(b, big, (size_t)k);
	sbuf_realloc(b, big, (size_t)k + 1, 0);
}

void sym__sbuf_num(sym_sbuf *b, const sym_num *v)
{
	char buf[48];
	if (!SYM_NUM_IS_BIG(v)) {
		if (v->q == 1)
			snprintf(buf, sizeof(buf), "%lld", (long long)v->p);
		else
			snprintf(buf, sizeof(buf), "%lld/%lld", (long long)v->p, (long long)v->q);
		sym__sbuf_puts(b, buf);
	} else if (b->count && sym__num_bits(v) / 4 > SYM_MAX_TEXT_BYTES) {
		/* a lower bound of the digits (log10(2) > 1/4) is enough to fail */
		sym__sbuf_put(b, NULL, sym__num_bits(v) / 4);
	} else {
		char *s = sym__num_to_str(v);
		if (s)
			sym__sbuf_puts(b, s);
		else
			b->fail = 1;
		sym__num_str_free(s);
	}
}

/* What print() gave for a node: the length of its text, its precedence and
 * its unsafe flag.  The text of a node does not depend on where it is
 * printed, so the measuring pass visits each distinct node once. */
typedef struct pmemo_ent {
	const sym_expr *e;
	size_t len;
	int prec, unsafe;
	char *alt; /* a shorter spelling chosen for the node, or NULL */
} pmemo_ent;

typedef struct pmemo {
	pmemo_ent *t; /* open addressing, power-of-two capacity */
	size_t cap, n;
} pmemo;

/* Printer state: the output, whether the text just printed has `//` or `%`
 * at its top level (a unary minus in front would bind into it), and the
 * memo; with measure set the output only counts bytes and print() answers
 * from the memo. */
#define ALT_DEPTH 4

typedef struct pr {
	sym_sbuf *b;
	sym_ctx *ctx;
	int unsafe;
	int measure;
	pmemo *memo;
	/* the choice of spellings: nodes whose candidates are being made
	 * (no cycles), and how many candidates may still be parsed */
	const sym_expr *busy[ALT_DEPTH];
	int depth;
	long budget;
	int long_offer; /* candidates of a long sum (alt_substitute) */
} pr;

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

static int print_node(pr *p, const sym_expr *e);
static char *alternatives(pr *p, const sym_expr *e, size_t *len, int *prec, int *unsafe);

static int print(pr *p, const sym_expr *e)
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
	prec = print_node(p, e);
	if (p->measure && !p->b->fail) {
		size_t len = p->b->n - start;
		int unsafe = p->unsafe;
		alt = alternatives(p, e, &len, &prec, &unsafe);
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
	return print(p, x);
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
	prec = print(p, e);
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
		print(p, e);
		sym__sbuf_puts(p->b, ")");
		p->unsafe = 0;
	} else {
		print_at(p, e, min);
	}
}

static const sym_factor *mono_view(const sym_expr *m, sym_factor *one, size_t *n)
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
		f = mono_view(v.t[0].m, &one, &n);
		for (j = 0; j < n && nc < 16; j++)
			if (f[j].exp < 0)
				common[nc++] = f[j];
		for (i = 1; i < v.n && nc; i++) {
			size_t w = 0;
			f = mono_view(v.t[i].m, &one, &n);
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
	f = mono_view(m, &one, &n);
	for (i = 0; i < n; i++) {
		if (f[i].exp > 0 || neg_inline(f, n, i))
			nnum++;
		else
			nden++;
	}
	p->unsafe = 0;
	if (n == 1 && f[0].exp == 1 && sym__num_is_one(&a)) {
		prec = print(p, f[0].base); /* a lone atom keeps its precedence */
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
			ok = v.t[l].m == w.t[j].m && sym__num_equal(&v.t[l].coef, &w.t[j].coef);
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
	f = mono_view(v.t[0].m, &one, &n);
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
static int find_mod_impl(sym_ctx *ctx, const sym_expr *e, modpart *mp, const sym_expr **rest, int frac,
                         int relax);

/* Terms of a sum, plus one for a nonzero constant and one for a negative
 * first term (a unary minus). */
static size_t lin_size(const sym_expr *e)
{
	sym_lin v;
	sym__lin_view(e, &v);
	return v.n + !sym__num_is_zero(v.c) + (v.n && sym__num_sgn(&v.t[0].coef) < 0);
}

/* Whether k*(P % Q) + rest, as the parser builds it from the printed text,
 * is e itself: a floor read through its other form, or over a sum that
 * holds a fraction of a sum, can equal e in value and still be another
 * node, and the text must parse back to e. */
static int mod_is_exact(sym_ctx *ctx, const sym_expr *e, const modpart *mp, const sym_expr *rest)
{
	const sym_expr *m = sym_expr_mod(ctx, mp->P, mp->Q);
	m = m ? sym__scale(ctx, &mp->k, m) : NULL;
	return m && rest && sym_expr_add(ctx, m, rest) == e;
}

int sym__find_mod(sym_ctx *ctx, const sym_expr *e, modpart *mp, const sym_expr **rest, int frac)
{
	return find_mod_impl(ctx, e, mp, rest, frac, 0) && mod_is_exact(ctx, e, mp, *rest);
}

/* With relax, P's terms need not all be in the sum (the rest then has
 * their negation). */
static int find_mod_impl(sym_ctx *ctx, const sym_expr *e, modpart *mp, const sym_expr **rest, int frac,
                         int relax)
{
	sym_lin v;
	size_t i, j;
	const sym_expr *lastF = NULL, *P = NULL, *Q = NULL;
	int q_ok = 0;
	sym__lin_view(e, &v);
	for (i = 0; i < v.n; i++) {
		const sym_expr *m = v.t[i].m, *F = floor_factor(m), *R, *ratio, *S, *kP, *term;
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
		term = sym__scale(ctx, &v.t[i].coef, m);
		R = sym_expr_div(ctx, term, F);
		if (!R)
			return 0;
		/* the rest of the sum is built only for a term that matches: a
		 * sum of many terms over one floor builds it a few times, not
		 * once per term */
		S = NULL;
		if (q_ok) {
			ratio = sym_expr_div(ctx, R, Q);
			if (ratio && ratio->kind == SYM_KIND_NUM &&
			    (frac || sym__num_is_int(node_num(ratio)))) {
				const sym_expr *P2 = NULL, *kP2, *rest1 = NULL;
				if (!(S = sym_expr_sub(ctx, e, term)))
					return 0;
				sym__num_neg(&mp->k, node_num(ratio));
				kP = sym__scale(ctx, &mp->k, P);
				if (!kP)
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
					if (kP2 && pv.n == 1 && sym__num_sgn(&pv.t[0].coef) < 0) {
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
		/* G - m*floor(G/m) with G another floor term of the sum */
		if (R->kind != SYM_KIND_NUM || !sym__num_is_int(node_num(R)))
			continue;
		if (!S && !(S = sym_expr_sub(ctx, e, term)))
			return 0;
		for (j = 0; j < v.n; j++) {
			const sym_expr *G = v.t[j].m, *Fm, *Qm;
			sym_num mq;
			if (j == i || G->kind != SYM_KIND_FLOOR)
				continue;
			/* R = -mq * coef(G) */
			sym__num_init(&mq);
			sym__num_div(&mq, node_num(R), &v.t[j].coef);
			sym__num_neg(&mq, &mq);
			if (sym__num_is_int(&mq) && sym__num_sgn(&mq) > 0 && !sym__num_is_one(&mq)) {
				Qm = sym__num_node(ctx, &mq);
				Fm = sym_expr_floordiv(ctx, G, Qm);
				if (Fm == F) {
					sym__num_set(&mp->k, &v.t[j].coef);
					mp->P = G, mp->Q = Qm;
					*rest = sym_expr_sub(ctx, S, sym__scale(ctx, &v.t[j].coef, G));
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

#define MAX_MODS 8

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
			int sg = k < v.n        ? sym__num_sgn(&v.t[k].coef)
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
				sum_item(p, &first, sym__num_sgn(&v.t[j].coef) < 0, item_term, &v.t[j].coef,
				         v.t[j].m);
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
			neg = sym__num_sgn(&v.t[0].coef) < 0;
		else if (nm == 1)
			neg = sym__num_sgn(&mods[0].k) < 0;
		else
			neg = sym__num_sgn(v.c) < 0;
		prec = neg ? P_UNARY : P_MUL;
		if (!neg && v.n == 1) /* measuring again is cheap with the memo */
			prec = peek(p, item_term, &v.t[0].coef, v.t[0].m);
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
static void split_by_sign(sym_ctx *ctx, const sym_lin *v, sym_sumb *pos, sym_sumb *neg)
{
	sym_num t;
	size_t i;
	sym__num_init(&t);
	sym__sumb_init(pos, ctx);
	sym__sumb_init(neg, ctx);
	for (i = 0; i < v->n; i++) {
		if (sym__num_sgn(&v->t[i].coef) > 0) {
			sym__sumb_add_term(pos, &v->t[i].coef, v->t[i].m);
		} else {
			sym__num_neg(&t, &v->t[i].coef);
			sym__sumb_add_term(neg, &t, v->t[i].m);
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
	split_by_sign(p->ctx, &v, &pos, &neg);
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

static int print_node(pr *p, const sym_expr *e)
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
		print(p, node_kid(e));
		sym__sbuf_puts(p->b, ")");
		p->unsafe = 0;
		return P_ATOM;
	}
	case SYM_KIND_ABS:
	case SYM_KIND_MIN:
	case SYM_KIND_MAX:
		sym__sbuf_puts(p->b, e->kind == SYM_KIND_ABS   ? "abs("
		                     : e->kind == SYM_KIND_MIN ? "min("
		                                               : "max(");
		for (i = 0; i < e->n; i++) {
			if (i)
				sym__sbuf_puts(p->b, ", ");
			print(p, node_kids(e)[i]);
		}
		sym__sbuf_puts(p->b, ")");
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

/* ---- The choice of spellings ----
 *
 * For a small numeric sum or relation, the printer makes candidate texts
 * (integer terms folded back into a floor, common content and products of
 * sums factored, a modulo re-folded with borrowed terms, a relation with its
 * terms on the side where they are positive and `<` for an off-by-one
 * `<=`), parses each back and keeps the one with the fewest tokens that
 * gives the same pointer.  The texts of the parts are the printer's own
 * (memoised) choices.  A candidate that does not parse back to the node is
 * never printed. */

#define ALT_BUDGET 400     /* candidate parses per printed root */
#define ALT_MAX_TERMS 8    /* larger sums print as they are */
#define ALT_MAX_LEN 400    /* longer texts print as they are */
#define FOLD_BONUS 3       /* tokens a sum folded into one floor may add */
#define SUBST_MAX_TERMS 64 /* longer sums print as they are */
#define SUBST_MAX_LEN 4096 /* and so do longer texts */
#define SUBST_MAX_FLOORS 8

/* Tokens of a text: names and numbers, two-character operators and single
 * characters other than spaces count one each. */
static size_t count_tokens(const char *s)
{
	size_t n = 0;
	while (*s) {
		if (*s == ' ') {
			s++;
			continue;
		}
		n++;
		if ((*s >= '0' && *s <= '9') || *s == '_' || (*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z')) {
			while ((*s >= '0' && *s <= '9') || *s == '_' || (*s >= 'a' && *s <= 'z') ||
			       (*s >= 'A' && *s <= 'Z'))
				s++;
			continue;
		}
		if (s[1] && strchr("/*<>=!&|", s[1]) &&
		    (!strncmp(s, "//", 2) || !strncmp(s, "**", 2) || !strncmp(s, "<=", 2) ||
		     !strncmp(s, ">=", 2) || !strncmp(s, "==", 2) || !strncmp(s, "!=", 2) ||
		     !strncmp(s, "&&", 2) || !strncmp(s, "||", 2)))
			s += 2;
		else
			s++;
	}
	return n;
}

/* The precedence of a numeric or relation text, and whether `//` or `%`
 * is at its top level (a unary minus in front would bind into it). */
static int classify(const char *s, int *unsafe)
{
	int depth = 0, add = 0, mul = 0, pow = 0, rel = 0, un = 0;
	size_t i;
	for (i = 0; s[i]; i++) {
		char c = s[i];
		if (c == '(')
			depth++;
		else if (c == ')')
			depth--;
		else if (depth)
			continue;
		else if (c == '<' || c == '>' || c == '=' || c == '!')
			rel = 1;
		else if ((c == '+' || c == '-') && i > 0 && s[i - 1] == ' ')
			add = 1;
		else if (c == '*' && s[i + 1] == '*')
			pow = 1, i++;
		else if (c == '/' && s[i + 1] == '/')
			mul = 1, un = 1, i++;
		else if (c == '%')
			mul = 1, un = 2;
		else if (c == '*' || c == '/')
			mul = 1;
	}
	*unsafe = 0;
	if (rel)
		return P_REL;
	if (add)
		return P_ADD;
	*unsafe = un;
	if (s[0] == '-')
		return mul && un ? P_MUL : P_UNARY;
	if (mul)
		return P_MUL;
	return pow ? P_POW : P_ATOM;
}

/* Appends the printer's text of x to out, parenthesised when its
 * precedence is below min; returns 0 on failure. */
static int node_text_max(pr *p, const sym_expr *x, sym_sbuf *out, int min, size_t max);

static int node_text(pr *p, const sym_expr *x, sym_sbuf *out, int min)
{
	return node_text_max(p, x, out, min, ALT_MAX_LEN);
}

static int node_text_max(pr *p, const sym_expr *x, sym_sbuf *out, int min, size_t max)
{
	sym_sbuf cnt, *save = p->b;
	int measure = p->measure, unsafe = p->unsafe, prec, avoid = min < 0 ? -min / 100 : 0;
	if (!x)
		return 0;
	if (avoid)
		min = -min % 100;
	sym__sbuf_init(&cnt, p->ctx);
	cnt.count = 1;
	p->b = &cnt;
	p->measure = 1;
	prec = print(p, x);
	if (avoid && p->unsafe == avoid)
		prec = P_OR; /* parenthesised */
	if (!cnt.fail && !sym__failed(p->ctx) && cnt.n <= max) {
		p->b = out;
		p->measure = 0;
		if (prec < min)
			sym__sbuf_puts(out, "(");
		print(p, x);
		if (prec < min)
			sym__sbuf_puts(out, ")");
	} else {
		out->fail = out->fail ? out->fail : 3;
	}
	p->b = save;
	p->measure = measure;
	p->unsafe = unsafe;
	if (cnt.fail == 1)
		save->fail = 1;
	return !out->fail;
}

static int put_num(sym_sbuf *b, const sym_num *v)
{
	sym__sbuf_num(b, v);
	return !b->fail;
}

/* Whether text parses back to e; failures of the parse other than running
 * out of memory are forgotten. */
static int parses_to(pr *p, const char *text, const sym_expr *e)
{
	const sym_expr *r;
	if (p->budget <= 0 || sym__failed(p->ctx))
		return 0;
	p->budget--;
	r = sym_expr_from_str(p->ctx, text);
	if (!r) {
		if (sym_ctx_last_error(p->ctx) == SYM_ENOMEM)
			p->b->fail = 1;
		else
			sym_ctx_clear_error(p->ctx);
		return 0;
	}
	return r == e;
}

/* The best text so far. */
typedef struct best {
	sym_sbuf s;
	size_t tokens, len;
	int have;
} best;

/* Offers a candidate text (consumed); bonus tokens are taken off its
 * count. */
static void offer_b(pr *p, best *bt, const sym_expr *e, sym_sbuf *c, size_t bonus)
{
	size_t t;
	if (!c->fail && c->s && c->n <= (p->long_offer ? SUBST_MAX_LEN : ALT_MAX_LEN)) {
		t = count_tokens(c->s);
		t = t > bonus ? t - bonus : 0;
		/* fewer tokens; as many, and shorter (by 2 bytes than the
		 * default: x >= 1 stays, it is not x > 0) */
		if ((t < bt->tokens || (t == bt->tokens && c->n + (bt->have ? 1 : 2) <= bt->len)) &&
		    parses_to(p, c->s, e)) {
			sym__sbuf_clear(&bt->s);
			bt->s = *c;
			bt->tokens = t;
			bt->len = c->n;
			bt->have = 1;
			return;
		}
	}
	sym__sbuf_clear(c);
}

static void offer(pr *p, best *bt, const sym_expr *e, sym_sbuf *c)
{
	offer_b(p, bt, e, c, 0);
}

/* Appends the sum of item (text it, negated with neg, unsafe under a
 * unary minus with un) and the text rest (a full numeric text, possibly
 * starting with a unary minus); item first or last. */
static void join2(sym_sbuf *c, int neg, const char *it, int un, const char *rest, int item_first)
{
	if (item_first) {
		if (neg)
			sym__sbuf_puts(c, un ? "-(" : "-");
		sym__sbuf_puts(c, it);
		if (neg && un)
			sym__sbuf_puts(c, ")");
		if (rest) {
			sym__sbuf_puts(c, rest[0] == '-' ? " - " : " + ");
			sym__sbuf_puts(c, rest[0] == '-' ? rest + 1 : rest);
		}
	} else {
		sym__sbuf_puts(c, rest);
		sym__sbuf_puts(c, neg ? " - " : " + ");
		sym__sbuf_puts(c, it);
	}
}

/* Offers item +- rest in both orders; rest NULL or the node 0 means the
 * item alone. */
static void offer_item(pr *p, best *bt, const sym_expr *e, int neg, sym_sbuf *it, int un,
                       const sym_expr *rest)
{
	sym_sbuf r, c;
	int k;
	int zero = rest && rest->kind == SYM_KIND_NUM && sym__num_is_zero(node_num(rest));
	if (it->fail || !it->s)
		return;
	sym__sbuf_init(&r, p->ctx);
	if (rest && !zero && !node_text(p, rest, &r, P_ADD)) {
		sym__sbuf_clear(&r);
		return;
	}
	for (k = 0; k < 2; k++) {
		if (k == 1 && (!r.s || (neg && 0)))
			break;
		sym__sbuf_init(&c, p->ctx);
		join2(&c, neg, it->s, un, r.s, k == 0);
		offer(p, bt, e, &c);
	}
	sym__sbuf_clear(&r);
}

/* Whether the sum P has a term with monomial m. */
static int has_mono(const sym_expr *P, const sym_expr *m)
{
	sym_lin w;
	size_t j;
	sym__lin_view(P, &w);
	for (j = 0; j < w.n; j++)
		if (w.t[j].m == m)
			return 1;
	return 0;
}

/* Integer terms folded back into a floor: k*floor(P/Q) + T + rest becomes
 * k*((P + Q*T/k)//Q) + rest, T the constant and the terms of P's monomials
 * that k divides (or one of the two). */
static void alt_floor_fold(pr *p, best *bt, const sym_expr *e, const sym_lin *v)
{
	size_t i, j;
	int mode, flip;
	for (i = 0; i < 2 * v->n; i++) {
		const sym_expr *F = v->t[i / 2].m, *P, *Q, *restall, *T, *inner, *rem;
		const sym_num *k = &v->t[i / 2].coef;
		sym_sumb tb;
		sym_num q, ak, kf;
		flip = (int)(i % 2);
		if (F->kind != SYM_KIND_FLOOR || !sym__num_is_int(k))
			continue;
		if (!sym__quotient_form(p->ctx, node_kid(F), &P, &Q))
			continue;
		restall = sym_expr_sub(p->ctx, e, sym__scale(p->ctx, k, F));
		if (!restall)
			return;
		sym__num_init(&kf);
		sym__num_set(&kf, k);
		if (flip) {
			/* floor(P/Q) == -floor((Q - 1 - P)/Q) for integer P and Q:
			 * the other form of the floor (the node keeps one) */
			sym_num q1;
			if (sym__num_sgn(k) > 0 || Q->kind != SYM_KIND_NUM || !sym__num_is_int(node_num(Q)) ||
			    !(P->flags & SYM_F_INT)) {
				sym__num_clear(&kf);
				continue;
			}
			sym__num_init(&q1);
			sym__num_sub(&q1, node_num(Q), &num_one);
			P = sym__add_num(p->ctx, sym_expr_neg(p->ctx, P), &q1);
			sym__num_clear(&q1);
			sym__num_neg(&kf, &kf);
			k = &kf;
			if (!P) {
				sym__num_clear(&kf);
				return;
			}
		}
		sym__num_init(&q);
		sym__num_init(&ak);
		sym__num_abs(&ak, k);
		for (mode = 0; mode < 3; mode++) {
			sym_sbuf it;
			sym__sumb_init(&tb, p->ctx);
			for (j = 0; j < v->n && mode != 1; j++) {
				if (j == i / 2 || !sym__is_int(v->t[j].m) || !has_mono(P, v->t[j].m))
					continue;
				sym__num_div(&q, &v->t[j].coef, k);
				if (sym__num_is_int(&q))
					sym__sumb_add_term(&tb, &v->t[j].coef, v->t[j].m);
			}
			if (mode != 2) {
				/* a small constant: (H + 7)//8 - 1 is (H - 1)//8,
				 * 927808 + 32*((3*H + 7)//8) stays */
				sym__num_div(&q, v->c, k);
				sym__num_abs(&q, &q);
				if (sym__num_is_int(&q) && Q->kind == SYM_KIND_NUM) {
					sym_num q4;
					sym__num_init(&q4);
					sym__num_set_si(&q4, 4);
					sym__num_mul(&q4, &q4, node_num(Q));
					if (sym__num_cmp(&q, &q4) <= 0)
						sym__sumb_add(&tb, NULL, sym__num_node(p->ctx, v->c));
					sym__num_clear(&q4);
				}
			}
			T = sym__sumb_finish(&tb);
			if (!T)
				break;
			if (T->kind == SYM_KIND_NUM && sym__num_is_zero(node_num(T)) && (!flip || mode != 1))
				continue;
			inner = sym_expr_add(
			    p->ctx, P,
			    sym_expr_mul(p->ctx, Q, sym_expr_div(p->ctx, T, sym__num_node(p->ctx, k))));
			rem = sym_expr_sub(p->ctx, restall, T);
			if (!inner || !rem)
				break;
			sym__sbuf_init(&it, p->ctx);
			if (!sym__num_is_one(&ak)) {
				put_num(&it, &ak);
				sym__sbuf_puts(&it, "*(");
			}
			node_text(p, inner, &it, -(200 + P_MUL));
			sym__sbuf_puts(&it, "//");
			node_text(p, Q, &it, P_UNARY);
			if (!sym__num_is_one(&ak))
				sym__sbuf_puts(&it, ")");
			if (flip && rem->kind == SYM_KIND_NUM && sym__num_is_zero(node_num(rem)) &&
			    !(T->kind == SYM_KIND_NUM && sym__num_is_zero(node_num(T)))) {
				/* one floor reads better than a difference with a
				 * floor: (x + 1)//2 rather than x - x//2 */
				offer_b(p, bt, e, &it, FOLD_BONUS);
				continue;
			}
			offer_item(p, bt, e, sym__num_sgn(k) < 0, &it, sym__num_is_one(&ak), rem);
			sym__sbuf_clear(&it);
		}
		sym__num_clear(&q);
		sym__num_clear(&ak);
		sym__num_clear(&kf);
	}
}

static int find_mod_impl(sym_ctx *ctx, const sym_expr *e, modpart *mp, const sym_expr **rest, int frac,
                         int relax);

/* A modulo re-folded with terms borrowed from the rest of the sum:
 * y - 5*((y + z)//5) is (y + z) % 5 - z. */
/* P with integer coefficients and constant reduced modulo the integer Q
 * into (-Q/2, Q/2]; P itself when some coefficient is not an integer. */
static const sym_expr *reduced_mod(sym_ctx *ctx, const sym_expr *P, const sym_num *Q)
{
	sym_lin v;
	sym_sumb b;
	sym_num c, h;
	size_t i;
	sym__lin_view(P, &v);
	for (i = 0; i < v.n; i++)
		if (!sym__num_is_int(&v.t[i].coef))
			return P;
	if (!sym__num_is_int(v.c))
		return P;
	sym__num_init(&c);
	sym__num_init(&h);
	sym__sumb_init(&b, ctx);
	for (i = 0; i <= v.n; i++) {
		const sym_num *k = i < v.n ? &v.t[i].coef : v.c;
		/* c = k - Q*floor(k/Q), then minus Q above Q/2 */
		sym__num_div(&c, k, Q);
		sym__num_floor(&c, &c);
		sym__num_mul(&c, &c, Q);
		sym__num_sub(&c, k, &c);
		sym__num_add(&h, &c, &c);
		if (sym__num_cmp(&h, Q) > 0)
			sym__num_sub(&c, &c, Q);
		if (i < v.n)
			sym__sumb_add_term(&b, &c, v.t[i].m);
		else
			sym__num_add(&b.c, &b.c, &c);
	}
	sym__num_clear(&c);
	sym__num_clear(&h);
	return sym__sumb_finish(&b);
}

static void alt_mod(pr *p, best *bt, const sym_expr *e)
{
	modpart mp;
	const sym_expr *rest;
	sym_sbuf it;
	sym_num a;
	sym__num_init(&mp.k);
	sym__num_init(&a);
	if (find_mod_impl(p->ctx, e, &mp, &rest, 0, 1) && mod_is_exact(p->ctx, e, &mp, rest)) {
		sym__num_abs(&a, &mp.k);
		sym__sbuf_init(&it, p->ctx);
		if (!sym__num_is_one(&a)) {
			put_num(&it, &a);
			sym__sbuf_puts(&it, "*(");
		}
		node_text(p, mp.P, &it, -(100 + P_MUL));
		sym__sbuf_puts(&it, " % ");
		node_text(p, mp.Q, &it, P_UNARY);
		if (!sym__num_is_one(&a))
			sym__sbuf_puts(&it, ")");
		offer_item(p, bt, e, sym__num_sgn(&mp.k) < 0, &it, sym__num_is_one(&a), rest);
		sym__sbuf_clear(&it);
		if (mp.Q->kind == SYM_KIND_NUM && sym__num_is_int(node_num(mp.Q)) &&
		    (mp.P->flags & SYM_F_INT)) {
			/* (P + Q*J) % Q == P % Q: the coefficients of P
			 * reduced into (-Q/2, Q/2], (-32*x - y) % 64 is
			 * (32*x - y) % 64 */
			const sym_expr *P2 = reduced_mod(p->ctx, mp.P, node_num(mp.Q));
			if (P2 && P2 != mp.P) {
				sym__sbuf_init(&it, p->ctx);
				if (!sym__num_is_one(&a)) {
					put_num(&it, &a);
					sym__sbuf_puts(&it, "*(");
				}
				node_text(p, P2, &it, -(100 + P_MUL));
				sym__sbuf_puts(&it, " % ");
				node_text(p, mp.Q, &it, P_UNARY);
				if (!sym__num_is_one(&a))
					sym__sbuf_puts(&it, ")");
				offer_item(p, bt, e, sym__num_sgn(&mp.k) < 0, &it, sym__num_is_one(&a), rest);
				sym__sbuf_clear(&it);
			}
		}
	}
	sym__num_clear(&mp.k);
	sym__num_clear(&a);
}

/* Whether some term of x has a reciprocal of a sum. */
static int has_sum_recip(const sym_expr *x)
{
	sym_lin v;
	size_t i, j, n;
	sym_factor one;
	const sym_factor *f;
	sym__lin_view(x, &v);
	for (i = 0; i < v.n; i++) {
		f = mono_view(v.t[i].m, &one, &n);
		for (j = 0; j < n; j++)
			if (f[j].exp < 0)
				return 1;
	}
	return 0;
}

/* Splits R into factors (A + Q)*R1*...: A an atom of R's first term of
 * degree 1 in R, Q = R0/R1 a polynomial.  Returns the number of factors
 * (1 when R does not split). */
static size_t split_factors(pr *p, const sym_expr *R, const sym_expr **out, size_t max)
{
	sym_lin v;
	sym_factor one;
	const sym_factor *f;
	size_t n, a, i, j, nf;
	sym__lin_view(R, &v);
	if (max < 2 || v.n < 2 || v.n > ALT_MAX_TERMS)
		goto whole;
	f = mono_view(v.t[0].m, &one, &n);
	for (a = 0; a < n; a++) {
		const sym_expr *A = f[a].base, *R1, *R0, *Qn, *fa;
		sym_sumb s1, s0;
		int ok = 1;
		if (f[a].exp != 1)
			continue;
		sym__sumb_init(&s1, p->ctx);
		sym__sumb_init(&s0, p->ctx);
		sym__sumb_add(&s0, NULL, sym__num_node(p->ctx, v.c));
		for (i = 0; i < v.n && ok; i++) {
			sym_factor one2;
			size_t n2;
			const sym_factor *g = mono_view(v.t[i].m, &one2, &n2);
			int e1 = 0;
			for (j = 0; j < n2; j++)
				if (g[j].base == A) {
					if (g[j].exp != 1)
						ok = 0;
					e1 = 1;
				}
			if (!ok)
				break;
			if (e1)
				sym__sumb_add(&s1, &v.t[i].coef, sym_expr_div(p->ctx, v.t[i].m, A));
			else
				sym__sumb_add_term(&s0, &v.t[i].coef, v.t[i].m);
		}
		R1 = sym__sumb_finish(&s1);
		R0 = sym__sumb_finish(&s0);
		if (!ok || !R1 || !R0 || (R0->kind == SYM_KIND_NUM && sym__num_is_zero(node_num(R0))))
			continue;
		if (R1->kind == SYM_KIND_NUM)
			continue;
		Qn = sym_expr_div(p->ctx, R0, R1);
		if (!Qn || has_sum_recip(Qn))
			continue;
		fa = sym_expr_add(p->ctx, A, Qn);
		if (!fa || sym_expr_mul(p->ctx, fa, R1) != R)
			continue;
		out[0] = fa;
		nf = split_factors(p, R1, out + 1, max - 1);
		return nf + 1;
	}
whole:
	out[0] = R;
	return 1;
}

/* Common content, a common monomial and a product of sums factored out:
 * 32*N + 32*((N + 3)//4) is 32*(N + (N + 3)//4), printed with the
 * factor's own choice. */
static void alt_factor(pr *p, best *bt, const sym_expr *e, const sym_lin *v)
{
	sym_num g, l, t, c0, num, den;
	sym_factor com[16], one;
	const sym_factor *f;
	size_t nc = 0, i, j, k, n, nf;
	const sym_expr *R, *gm, *facs[4];
	sym_sbuf c;
	int first = 1;
	sym__num_init(&g), sym__num_init(&l), sym__num_init(&t), sym__num_init(&c0);
	sym__num_init(&num), sym__num_init(&den);
	/* content: gcd of numerators over lcm of denominators, sign of the
	 * first term */
	sym__num_set_si(&l, 1);
	for (i = 0; i <= v->n; i++) {
		const sym_num *k2 = i < v->n ? &v->t[i].coef : v->c;
		if (i == v->n && sym__num_is_zero(k2))
			break;
		sym__num_numer(&num, k2);
		sym__num_abs(&num, &num);
		sym__num_denom(&den, k2);
		if (i == 0)
			sym__num_set(&g, &num);
		else
			sym__num_gcd(&g, &g, &num);
		sym__num_lcm(&l, &l, &den);
	}
	sym__num_div(&c0, &g, &l);
	if (v->n && sym__num_sgn(&v->t[0].coef) < 0)
		sym__num_neg(&c0, &c0);
	/* the common monomial (positive exponents) */
	if (sym__num_is_zero(v->c) && v->n) {
		f = mono_view(v->t[0].m, &one, &n);
		for (j = 0; j < n && nc < 16; j++)
			if (f[j].exp > 0)
				com[nc++] = f[j];
		for (i = 1; i < v->n && nc; i++) {
			size_t w = 0;
			f = mono_view(v->t[i].m, &one, &n);
			for (k = 0; k < nc; k++) {
				int64_t e2 = 0;
				for (j = 0; j < n; j++)
					if (f[j].base == com[k].base && f[j].exp > 0)
						e2 = f[j].exp;
				if (e2 > 0) {
					com[w].base = com[k].base;
					com[w].exp = e2 < com[k].exp ? e2 : com[k].exp;
					w++;
				}
			}
			nc = w;
		}
	}
	gm = sym__monomial(p->ctx, com, nc);
	R = gm ? sym_expr_div(p->ctx, sym_expr_div(p->ctx, e, sym__num_node(p->ctx, &c0)), gm) : NULL;
	if (!R || R->kind != SYM_KIND_ADD)
		goto done;
	nf = split_factors(p, R, facs, 4);
	if (nf == 1 && R == e)
		goto done;
	sym__sbuf_init(&c, p->ctx);
	sym__num_numer(&num, &c0);
	sym__num_denom(&den, &c0);
	if (sym__num_sgn(&num) < 0) {
		sym__sbuf_puts(&c, "-");
		sym__num_neg(&num, &num);
	}
	if (!sym__num_is_one(&num)) {
		put_num(&c, &num);
		first = 0;
	}
	if (nc) {
		if (!first)
			sym__sbuf_puts(&c, "*");
		node_text(p, gm, &c, P_MUL);
		first = 0;
	}
	for (i = 0; i < nf; i++) {
		if (!first)
			sym__sbuf_puts(&c, "*");
		node_text(p, facs[i], &c,
		          first && !sym__num_is_one(&den) ? P_UNARY : (first ? P_MUL : P_UNARY));
		first = 0;
	}
	if (!sym__num_is_one(&den)) {
		sym__sbuf_puts(&c, "/");
		put_num(&c, &den);
	}
	offer(p, bt, e, &c);
done:
	sym__num_clear(&g), sym__num_clear(&l), sym__num_clear(&t), sym__num_clear(&c0);
	sym__num_clear(&num), sym__num_clear(&den);
}

/* Relations: the terms on the side where they are positive, the constant
 * on either side, `<` for an off-by-one `<=` of integers, either
 * orientation. */
static void alt_rel(pr *p, best *bt, const sym_expr *e)
{
	const sym_expr *d = node_kid(e), *rest = d, *r2, *L, *R;
	modpart mods[MAX_MODS];
	size_t nm = 0, i;
	sym_sumb pos, neg;
	sym_lin v;
	sym_num c, t;
	int kind = e->kind, isint = sym__is_int(d), strict, cside, orient;
	while (nm < MAX_MODS) {
		sym__num_init(&mods[nm].k);
		if (!sym__find_mod(p->ctx, rest, &mods[nm], &r2, 0)) {
			sym__num_clear(&mods[nm].k);
			break;
		}
		rest = r2;
		nm++;
	}
	sym__num_init(&c);
	sym__num_init(&t);
	if (!rest)
		goto done;
	sym__lin_view(rest, &v);
	if (v.n + nm > ALT_MAX_TERMS)
		goto done;
	split_by_sign(p->ctx, &v, &pos, &neg);
	for (i = 0; i < nm; i++) {
		const sym_expr *md = sym_expr_mod(p->ctx, mods[i].P, mods[i].Q);
		if (sym__num_sgn(&mods[i].k) > 0) {
			sym__sumb_add(&pos, &mods[i].k, md);
		} else {
			sym__num_neg(&t, &mods[i].k);
			sym__sumb_add(&neg, &t, md);
		}
	}
	L = sym__sumb_finish(&pos);
	R = sym__sumb_finish(&neg);
	if (!L || !R)
		goto done;
	/* d = L - R + c */
	for (strict = 0; strict < 2; strict++) {
		int lt = kind == SYM_KIND_LT, op_lt;
		sym__num_set(&c, v.c);
		if (kind == SYM_KIND_EQ || kind == SYM_KIND_NE) {
			if (strict)
				break;
			op_lt = -1;
		} else if (strict == 0) {
			op_lt = lt;
		} else {
			/* d <= 0 is d - 1 < 0, d < 0 is d + 1 <= 0, for integers */
			if (!isint)
				break;
			sym__num_set_si(&t, lt ? 1 : -1);
			sym__num_add(&c, &c, &t);
			op_lt = !lt;
		}
		for (cside = 0; cside < 2; cside++) {
			const sym_expr *A, *B;
			sym__num_neg(&t, &c);
			A = cside ? L : sym__add_num(p->ctx, L, &c);
			B = cside ? sym__add_num(p->ctx, R, &t) : R;
			for (orient = 0; orient < 2; orient++) {
				sym_sbuf s;
				const char *op;
				if (op_lt < 0)
					op = kind == SYM_KIND_EQ ? " == " : " != ";
				else if (orient == 0)
					op = op_lt ? " < " : " <= ";
				else
					op = op_lt ? " > " : " >= ";
				sym__sbuf_init(&s, p->ctx);
				node_text(p, orient ? B : A, &s, P_ADD);
				sym__sbuf_puts(&s, op);
				node_text(p, orient ? A : B, &s, P_ADD);
				offer(p, bt, e, &s);
			}
		}
	}
done:
	for (i = 0; i < nm; i++)
		sym__num_clear(&mods[i].k);
	sym__num_clear(&c);
	sym__num_clear(&t);
}

/* Appends text to out with each whole word name[i] replaced by rep[i]. */
static void replace_names(sym_sbuf *out, const char *text, size_t n, char names[][16], char *const *rep)
{
	const char *s = text;
	while (*s) {
		size_t i, w = 0;
		int idc = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
		          (*s >= '0' && *s <= '9');
		if (!idc) {
			char c[2] = {*s++, 0};
			sym__sbuf_puts(out, c);
			continue;
		}
		while ((s[w] >= 'a' && s[w] <= 'z') || (s[w] >= 'A' && s[w] <= 'Z') || s[w] == '_' ||
		       (s[w] >= '0' && s[w] <= '9'))
			w++;
		for (i = 0; i < n; i++)
			if (strlen(names[i]) == w && !strncmp(s, names[i], w))
				break;
		if (i < n) {
			sym__sbuf_puts(out, rep[i]);
		} else {
			char buf[64];
			size_t k = 0;
			while (k < w) {
				size_t c = w - k < sizeof(buf) - 1 ? w - k : sizeof(buf) - 1;
				memcpy(buf, s + k, c);
				buf[c] = 0;
				sym__sbuf_puts(out, buf);
				k += c;
			}
		}
		s += w;
	}
}

/* The sum v with each factor F[k] of its monomials replaced by by[k]. */
static const sym_expr *subst_factors(sym_ctx *ctx, const sym_lin *v, size_t nf, const sym_expr *const *F,
                                     const sym_expr *const *by)
{
	const sym_expr *r = sym__num_node(ctx, v->c);
	size_t i, j, k;
	for (i = 0; i < v->n && r; i++) {
		sym_factor one;
		size_t n;
		const sym_factor *f = mono_view(v->t[i].m, &one, &n);
		const sym_expr *t = sym__num_node(ctx, &v->t[i].coef);
		for (j = 0; j < n && t; j++) {
			const sym_expr *b = f[j].base;
			for (k = 0; k < nf; k++)
				if (F[k] == b)
					b = by[k];
			t = sym_expr_mul(ctx, t, sym_expr_pow_si(ctx, b, f[j].exp));
		}
		r = sym_expr_add(ctx, r, t);
	}
	return r;
}

/* A long sum (past ALT_MAX_TERMS terms or ALT_MAX_LEN bytes) written with
 * each floor by a constant in its other form: floor(P/Q) == T - G with
 * G = floor((Q - 1 - P + Q*T)/Q) and T the positive terms of P rounded up
 * to multiples of Q, so that G's argument has no negative coefficient
 * (x//2 is x - (x + 1)//2).  The sum is rebuilt with G as a fresh symbol,
 * printed, and G's text put in its place: a byte size expanded from
 * 512*N*((H + 1)//2)*((W + 1)//2) prints as that product again.  The
 * floors join the replaced set one by one while the text gets shorter;
 * the result is one candidate, verified like every other. */
static void alt_substitute(pr *p, best *bt, const sym_expr *e, const sym_lin *v)
{
	const sym_expr *F[SUBST_MAX_FLOORS], *by[SUBST_MAX_FLOORS], *gs[SUBST_MAX_FLOORS], *present[64];
	char names[SUBST_MAX_FLOORS][16];
	char *gtext[SUBST_MAX_FLOORS];
	sym_sbuf gbuf[SUBST_MAX_FLOORS];
	int ginit[SUBST_MAX_FLOORS];
	size_t nf = 0, i, j, k, np;
	for (i = 0; i < v->n && nf < SUBST_MAX_FLOORS; i++) {
		sym_factor one;
		size_t n;
		const sym_factor *f = mono_view(v->t[i].m, &one, &n);
		for (j = 0; j < n && nf < SUBST_MAX_FLOORS; j++) {
			const sym_expr *P, *Q;
			if (f[j].base->kind != SYM_KIND_FLOOR)
				continue;
			for (k = 0; k < nf && F[k] != f[j].base; k++)
				;
			if (k < nf || !sym__quotient_form(p->ctx, node_kid(f[j].base), &P, &Q) ||
			    Q->kind != SYM_KIND_NUM || !sym__num_is_int(node_num(Q)) ||
			    !(P->flags & SYM_F_INT))
				continue;
			F[nf++] = f[j].base;
		}
	}
	if (!nf)
		return;
	np = sym_expr_symbols(p->ctx, e, present, 64);
	for (i = 0; i < nf; i++)
		gtext[i] = NULL, ginit[i] = 0;
	for (i = 0; i < nf; i++) {
		const sym_expr *P, *Q, *P2, *T;
		sym_lin w;
		sym_sumb tb;
		sym_num c, q1;
		sym_sbuf gt;
		size_t l;
		snprintf(names[i], sizeof(names[i]), "g%zu__", i);
		gs[i] = sym_expr_symbol(p->ctx, names[i]);
		for (l = 0; l < np && l < 64; l++)
			if (present[l] == gs[i])
				goto done;
		if (!sym__quotient_form(p->ctx, node_kid(F[i]), &P, &Q) || !P || !Q)
			goto done;
		sym__lin_view(P, &w);
		sym__sumb_init(&tb, p->ctx);
		sym__num_init(&c);
		sym__num_init(&q1);
		for (l = 0; l < w.n; l++) {
			if (sym__num_sgn(&w.t[l].coef) <= 0)
				continue;
			sym__num_div(&c, &w.t[l].coef, node_num(Q));
			sym__num_ceil(&c, &c);
			sym__sumb_add_term(&tb, &c, w.t[l].m);
		}
		T = sym__sumb_finish(&tb);
		sym__num_sub(&q1, node_num(Q), &num_one);
		P2 = sym_expr_add(p->ctx, sym__add_num(p->ctx, sym_expr_neg(p->ctx, P), &q1),
		                  sym_expr_mul(p->ctx, Q, T));
		sym__num_clear(&c);
		sym__num_clear(&q1);
		by[i] = sym_expr_sub(p->ctx, T, gs[i]);
		if (!P2 || !by[i])
			goto done;
		sym__sbuf_init(&gt, p->ctx);
		ginit[i] = 1;
		sym__sbuf_puts(&gt, "(");
		node_text(p, P2, &gt, -(200 + P_MUL));
		sym__sbuf_puts(&gt, "//");
		node_text(p, Q, &gt, P_UNARY);
		sym__sbuf_puts(&gt, ")");
		gbuf[i] = gt;
		if (gt.fail || !gt.s)
			goto done;
		gtext[i] = gt.s;
	}
	{
		/* greedily: a floor joins the replaced set when the text gets
		 * fewer tokens */
		const sym_expr *SF[SUBST_MAX_FLOORS], *SB[SUBST_MAX_FLOORS];
		char snames[SUBST_MAX_FLOORS][16];
		char *stext[SUBST_MAX_FLOORS];
		size_t ns = 0, cur = bt->tokens, tk;
		sym_sbuf keep;
		sym__sbuf_init(&keep, p->ctx);
		for (i = 0; i < nf; i++) {
			const sym_expr *es;
			sym_sbuf t, c;
			SF[ns] = F[i], SB[ns] = by[i], stext[ns] = gtext[i];
			memcpy(snames[ns], names[i], sizeof(names[i]));
			es = subst_factors(p->ctx, v, ns + 1, SF, SB);
			if (!es)
				break;
			sym__sbuf_init(&t, p->ctx);
			if (!node_text_max(p, es, &t, 0, SUBST_MAX_LEN) || !t.s) {
				int oom = t.fail == 1;
				sym__sbuf_clear(&t);
				if (oom)
					break;
				continue;
			}
			sym__sbuf_init(&c, p->ctx);
			replace_names(&c, t.s, ns + 1, snames, stext);
			sym__sbuf_clear(&t);
			if (c.fail || !c.s) {
				sym__sbuf_clear(&c);
				break;
			}
			tk = count_tokens(c.s);
			if (tk < cur) {
				cur = tk;
				ns++;
				sym__sbuf_clear(&keep);
				keep = c;
			} else {
				sym__sbuf_clear(&c);
			}
		}
		if (keep.s) {
			p->long_offer = 1;
			offer(p, bt, e, &keep);
			p->long_offer = 0;
		} else {
			sym__sbuf_clear(&keep);
		}
	}
done:
	for (i = 0; i < nf; i++)
		if (ginit[i])
			sym__sbuf_clear(&gbuf[i]);
}

/* The shortest verified spelling of e when shorter than the default
 * (*len bytes, precedence *prec) in tokens; NULL to keep the default. */
static char *alternatives(pr *p, const sym_expr *e, size_t *len, int *prec, int *unsafe)
{
	best bt;
	sym_sbuf def, *save;
	sym_lin v;
	int measure, i, pr0, un0;
	char *r = NULL;
	int long_sum;
	if (p->depth >= ALT_DEPTH || p->budget <= 0 || *len > SUBST_MAX_LEN || sym__failed(p->ctx))
		return NULL;
	if (e->kind != SYM_KIND_ADD && !(node_is_rel(e) && node_kid(e)->kind == SYM_KIND_ADD))
		return NULL;
	sym__lin_view(e->kind == SYM_KIND_ADD ? e : node_kid(e), &v);
	long_sum = v.n > ALT_MAX_TERMS || *len > ALT_MAX_LEN;
	if (long_sum && (e->kind != SYM_KIND_ADD || v.n > SUBST_MAX_TERMS))
		return NULL;
	for (i = 0; i < p->depth; i++)
		if (p->busy[i] == e)
			return NULL;
	/* the default text */
	sym__sbuf_init(&def, p->ctx);
	save = p->b;
	measure = p->measure;
	p->b = &def;
	p->measure = 0;
	pr0 = print_node(p, e);
	un0 = p->unsafe;
	p->b = save;
	p->measure = measure;
	if (def.fail || !def.s) {
		if (def.fail == 1)
			save->fail = 1;
		sym__sbuf_clear(&def);
		return NULL;
	}
	bt.tokens = count_tokens(def.s);
	bt.len = def.n;
	bt.have = 0;
	sym__sbuf_init(&bt.s, p->ctx);
	p->busy[p->depth++] = e;
	if (long_sum) {
		alt_substitute(p, &bt, e, &v);
	} else if (e->kind == SYM_KIND_ADD) {
		alt_floor_fold(p, &bt, e, &v);
		alt_mod(p, &bt, e);
		alt_factor(p, &bt, e, &v);
	} else {
		alt_rel(p, &bt, e);
	}
	p->depth--;
	if (sym__failed(p->ctx))
		p->b->fail = 1;
	if (bt.have && !p->b->fail) {
		r = sym__alloc(p->ctx, bt.s.n + 1);
		if (r) {
			memcpy(r, bt.s.s, bt.s.n + 1);
			*len = bt.s.n;
			*prec = classify(r, unsafe);
		} else {
			p->b->fail = 1;
		}
	}
	(void)pr0, (void)un0;
	sym__sbuf_clear(&bt.s);
	sym__sbuf_clear(&def);
	return r;
}

int sym__print(sym_sbuf *b, const sym_expr *e)
{
	pmemo memo = {NULL, 0, 0};
	sym_sbuf cnt;
	pr p;
	int ok;
	if (!b->ctx) {
		b->fail = 1; /* printing builds nodes: a builder of a hook alone cannot */
		return 0;
	}
	p.ctx = b->ctx;
	p.unsafe = 0;
	p.memo = &memo;
	p.depth = 0;
	p.budget = ALT_BUDGET;
	p.long_offer = 0;
	/* measure first: the memo makes this linear in the distinct nodes,
	 * while the text of a shared node is written at each of its uses */
	sym__sbuf_init(&cnt, b->ctx);
	cnt.count = 1;
	p.b = &cnt;
	p.measure = 1;
	print(&p, e);
	ok = !cnt.fail && !sym__failed(b->ctx);
	if (cnt.fail == 2)
		sym__error(b->ctx, SYM_ELIMIT, -1, "expression text too long (more than %zu bytes)",
		           SYM_MAX_TEXT_BYTES);
	if (ok) {
		p.b = b;
		p.measure = 0;
		print(&p, e);
		ok = !b->fail && !sym__failed(b->ctx);
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
