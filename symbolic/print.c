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
	b->ctx = ctx;
	b->s = NULL;
	b->n = b->cap = 0;
	b->fail = 0;
	b->count = 0;
}

void sym__sbuf_clear(sym_sbuf *b)
{
	sym__free(b->ctx, b->s, b->cap);
	b->s = NULL;
	b->n = b->cap = 0;
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
		char *ns = sym__realloc(b->ctx, b->s, b->cap, nc);
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

void sym__sbuf_puts(sym_sbuf *b, const char *s) { sym__sbuf_put(b, s, strlen(s)); }

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
	big = sym__alloc(b->ctx, (size_t)k + 1);
	if (!big) {
		b->fail = 1;
		return;
	}
	va_copy(ap, ap0);
	vsnprintf(big, (size_t)k + 1, fmt, ap);
	va_end(ap);
	sym__sbuf_put(b, big, (size_t)k);
	sym__free(b->ctx, big, (size_t)k + 1);
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
} pmemo_ent;

typedef struct pmemo {
	pmemo_ent *t; /* open addressing, power-of-two capacity */
	size_t cap, n;
} pmemo;

/* Printer state: the output, whether the text just printed has `//` or `%`
 * at its top level (a unary minus in front would bind into it), and the
 * memo; with measure set the output only counts bytes and print() answers
 * from the memo. */
typedef struct pr {
	sym_sbuf *b;
	sym_ctx *ctx;
	int unsafe;
	int measure;
	pmemo *memo;
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

static int memo_put(pr *p, const sym_expr *e, size_t len, int prec, int unsafe)
{
	pmemo *m = p->memo;
	size_t i;
	if (2 * (m->n + 1) > m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 256, j;
		pmemo_ent *nt = sym__alloc(p->ctx, nc * sizeof(*nt));
		if (!nt)
			return 0;
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
	m->n++;
	return 1;
}

static int print_node(pr *p, const sym_expr *e);

static int print(pr *p, const sym_expr *e)
{
	const pmemo_ent *m;
	size_t start;
	int prec;
	p->unsafe = 0;
	if (!e) {
		/* a node built for printing could not be made (out of memory) */
		p->b->fail = 1;
		return P_ATOM;
	}
	if (p->b->fail || sym__failed(p->ctx))
		return P_ATOM;
	if (p->measure && (m = memo_find(p->memo, e))) {
		sym__sbuf_put(p->b, NULL, m->len);
		p->unsafe = m->unsafe;
		return m->prec;
	}
	start = p->b->n;
	prec = print_node(p, e);
	if (p->measure && !p->b->fail && !memo_put(p, e, p->b->n - start, prec, p->unsafe))
		p->b->fail = 1;
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

/* Finds k*(P % Q) == k*P - k*Q*floor(P/Q) inside the sum e; on success
 * stores it and the rest of e in *rest.  P is read from the floor's
 * argument (P/Q), or is another floor G with floor(G/Q) canonically equal
 * to the floor found (floor(floor(x/2)/4) is floor(x/8)). */
int sym__find_mod(sym_ctx *ctx, const sym_expr *e, modpart *mp, const sym_expr **rest, int frac)
{
	sym_lin v;
	size_t i, j;
	sym__lin_view(e, &v);
	for (i = 0; i < v.n; i++) {
		const sym_expr *m = v.t[i].m, *F = floor_factor(m), *R, *ratio, *P, *Q, *S, *kP, *term;
		if (!F)
			continue;
		term = sym__scale(ctx, &v.t[i].coef, m);
		R = sym_expr_div(ctx, term, F);
		S = sym_expr_sub(ctx, e, term);
		if (!R || !S)
			return 0;
		if (sym__quotient_form(ctx, node_kid(F), &P, &Q)) {
			ratio = sym_expr_div(ctx, R, Q);
			if (ratio && ratio->kind == SYM_KIND_NUM && (frac || sym__num_is_int(node_num(ratio)))) {
				sym__num_neg(&mp->k, node_num(ratio));
				kP = sym__scale(ctx, &mp->k, P);
				if (!kP)
					return 0;
				if ((P->kind != SYM_KIND_NUM || Q->kind != SYM_KIND_NUM) && terms_within(kP, S) &&
				    (P->kind == SYM_KIND_NUM || kP->kind != SYM_KIND_NUM)) {
					mp->P = P, mp->Q = Q;
					*rest = sym_expr_sub(ctx, S, kP);
					return *rest != NULL;
				}
			}
		}
		/* G - m*floor(G/m) with G another floor term of the sum */
		if (R->kind != SYM_KIND_NUM || !sym__num_is_int(node_num(R)))
			continue;
		for (j = 0; j < v.n; j++) {
			const sym_expr *G = v.t[j].m, *Fm;
			sym_num mq;
			if (j == i || G->kind != SYM_KIND_FLOOR)
				continue;
			/* R = -mq * coef(G) */
			sym__num_init(&mq);
			sym__num_div(&mq, node_num(R), &v.t[j].coef);
			sym__num_neg(&mq, &mq);
			if (sym__num_is_int(&mq) && sym__num_sgn(&mq) > 0 && !sym__num_is_one(&mq)) {
				Q = sym__num_node(ctx, &mq);
				Fm = sym_expr_floordiv(ctx, G, Q);
				if (Fm == F) {
					sym__num_set(&mp->k, &v.t[j].coef);
					mp->P = G, mp->Q = Q;
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
	print_at(p, mp->P, P_MUL);
	sym__sbuf_puts(p->b, " % ");
	print_at(p, mp->Q, P_UNARY);
	if (!sym__num_is_one(&a))
		sym__sbuf_puts(p->b, ")");
	p->unsafe = sym__num_is_one(&a);
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

static int item_term(pr *p, const void *x, const void *y) { return print_term(p, x, y); }
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
	for (i = 0; i < v.n; i++)
		sum_item(p, &first, sym__num_sgn(&v.t[i].coef) < 0, item_term, &v.t[i].coef, v.t[i].m);
	for (i = 0; i < nm; i++)
		sum_item(p, &first, sym__num_sgn(&mods[i].k) < 0, item_mod, &mods[i], NULL);
	if (!skip_const && (!sym__num_is_zero(v.c) || first))
		sum_item(p, &first, sym__num_sgn(v.c) < 0, item_num, v.c, NULL);
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
	case SYM_KIND_EQ: return " == ";
	case SYM_KIND_NE: return " != ";
	case SYM_KIND_LE: return flip ? " >= " : " <= ";
	default: return flip ? " > " : " < ";
	}
}

static int print_rel(pr *p, const sym_expr *e)
{
	const sym_expr *d = node_kid(e), *rest;
	modpart mp;
	sym_lin v;
	sym_sumb pos, neg;
	size_t i;
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
	sym__sumb_init(&pos, p->ctx);
	sym__sumb_init(&neg, p->ctx);
	for (i = 0; i < v.n; i++) {
		if (sym__num_sgn(&v.t[i].coef) > 0) {
			sym__sumb_add_term(&pos, &v.t[i].coef, v.t[i].m);
		} else {
			sym__num_neg(&c, &v.t[i].coef);
			sym__sumb_add_term(&neg, &c, v.t[i].m);
		}
	}
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
		if (sym__quotient_form(p->ctx, node_kid(e), &P, &Q)) {
			print_at(p, P, P_MUL);
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
		sym__sbuf_puts(p->b, e->kind == SYM_KIND_ABS ? "abs(" : e->kind == SYM_KIND_MIN ? "min(" : "max(");
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

int sym__print(sym_sbuf *b, const sym_expr *e)
{
	pmemo memo = {NULL, 0, 0};
	sym_sbuf cnt;
	pr p;
	int ok;
	p.ctx = b->ctx;
	p.unsafe = 0;
	p.memo = &memo;
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
