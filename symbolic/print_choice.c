/* The printer's choice of spellings: candidate texts of a sum or a
 * relation, each parsed back, the cheapest that gives the same node. */
#include "eval_private.h"
#include "print_private.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const sym_num num_one = {{1}, 1};

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

#define ALT_MAX_TERMS 8    /* larger sums print as they are */
#define ALT_MAX_LEN 400    /* longer texts print as they are */
#define FOLD_BONUS 3       /* tokens a sum folded into one floor may add */
#define SUBST_MAX_TERMS 64 /* longer sums print as they are */
#define SUBST_MAX_LEN 4096 /* and so do longer texts */
#define SUBST_MAX_FLOORS 8
#define SIGN_COST 3 /* tokens a leading unary minus counts for */

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

/* Whether the text after a unary minus starts with a product: a name or
 * a number followed by `*` (-32*(...), -K*N), not -x//2. */
static int negates_a_product(const char *s)
{
	const char *t = s;
	while ((*t >= '0' && *t <= '9') || (*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || *t == '_')
		t++;
	return t > s && *t == '*';
}

/* What a candidate text costs: its tokens, and SIGN_COST more for each
 * unary minus in front of a product that starts a whole text, a
 * parenthesised part or an argument (one more inside a factor's
 * parentheses; -x//2 and -(x//2) are not charged).  A person writes a
 * byte size as 32*((L*n - n + 7)//8) rather than -32*((n - L*n)//8), which
 * has fewer tokens. */
static size_t text_cost(const char *s)
{
	size_t n = count_tokens(s);
	char prev = '(', prev2 = ' ';
	for (; *s; s++) {
		if (*s == ' ')
			continue;
		if (*s == '-' && (prev == '(' || prev == ',') && negates_a_product(s + 1))
			n += SIGN_COST + (prev == '(' && prev2 == '*'); /* 4*(-3*x//2) */
		prev2 = prev;
		prev = *s;
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
	if (p->work <= 0) {
		out->fail = out->fail ? out->fail : 3; /* no candidate from here */
		return 0;
	}
	p->work--;
	if (avoid)
		min = -min % 100;
	sym__sbuf_init(&cnt, p->ctx);
	cnt.count = 1;
	p->b = &cnt;
	p->measure = 1;
	prec = sym__print_expr(p, x);
	if (avoid && p->unsafe == avoid)
		prec = P_OR; /* parenthesised */
	if (!cnt.fail && !sym__failed(p->ctx) && cnt.n <= max) {
		p->b = out;
		p->measure = 0;
		if (prec < min)
			sym__sbuf_puts(out, "(");
		sym__print_expr(p, x);
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
		t = text_cost(c->s);
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
		un = un || it[0] == '-';
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
		/* a leading minus of the item would read as a second sign */
		int paren = it[0] == '-';
		sym__sbuf_puts(c, rest);
		sym__sbuf_puts(c, neg ? " - " : " + ");
		sym__sbuf_puts(c, paren ? "(" : "");
		sym__sbuf_puts(c, it);
		sym__sbuf_puts(c, paren ? ")" : "");
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
		if (sym__lin_mono(&w, j) == m)
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
		const sym_expr *F = sym__lin_mono(v, i / 2), *P, *Q, *restall, *T, *inner, *rem;
		const sym_num *k = sym__lin_coef(v, i / 2);
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
				if (j == i / 2 || !sym__is_int(sym__lin_mono(v, j)) ||
				    !has_mono(P, sym__lin_mono(v, j)))
					continue;
				sym__num_div(&q, sym__lin_coef(v, j), k);
				if (sym__num_is_int(&q))
					sym__sumb_add_term(&tb, sym__lin_coef(v, j), sym__lin_mono(v, j));
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
		if (!sym__num_is_int(sym__lin_coef(&v, i)))
			return P;
	if (!sym__num_is_int(v.c))
		return P;
	sym__num_init(&c);
	sym__num_init(&h);
	sym__sumb_init(&b, ctx);
	for (i = 0; i <= v.n; i++) {
		const sym_num *k = i < v.n ? sym__lin_coef(&v, i) : v.c;
		/* c = k - Q*floor(k/Q), then minus Q above Q/2 */
		sym__num_div(&c, k, Q);
		sym__num_floor(&c, &c);
		sym__num_mul(&c, &c, Q);
		sym__num_sub(&c, k, &c);
		sym__num_add(&h, &c, &c);
		if (sym__num_cmp(&h, Q) > 0)
			sym__num_sub(&c, &c, Q);
		if (i < v.n)
			sym__sumb_add_term(&b, &c, sym__lin_mono(&v, i));
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
	if (sym__print_find_mod(p->ctx, e, &mp, &rest, 0, 1) &&
	    sym__print_mod_is_exact(p->ctx, e, &mp, rest)) {
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
		f = sym__print_mono_view(sym__lin_mono(&v, i), &one, &n);
		for (j = 0; j < n; j++)
			if (f[j].exp < 0)
				return 1;
	}
	return 0;
}

/* Whether every coefficient and the constant of the sum x are integers:
 * a factor such as (w + 2/3) is not how a person factors. */
static int int_coefs(const sym_expr *x)
{
	sym_lin v;
	size_t i;
	sym__lin_view(x, &v);
	if (!sym__num_is_int(v.c))
		return 0;
	for (i = 0; i < v.n; i++)
		if (!sym__num_is_int(sym__lin_coef(&v, i)))
			return 0;
	return 1;
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
	f = sym__print_mono_view(sym__lin_mono(&v, 0), &one, &n);
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
			const sym_factor *g = sym__print_mono_view(sym__lin_mono(&v, i), &one2, &n2);
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
				sym__sumb_add(&s1, sym__lin_coef(&v, i),
				              sym_expr_div(p->ctx, sym__lin_mono(&v, i), A));
			else
				sym__sumb_add_term(&s0, sym__lin_coef(&v, i), sym__lin_mono(&v, i));
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
		if (!fa || !int_coefs(fa) || sym_expr_mul(p->ctx, fa, R1) != R)
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
		const sym_num *k2 = i < v->n ? sym__lin_coef(v, i) : v->c;
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
	if (v->n && sym__num_sgn(sym__lin_coef(v, 0)) < 0)
		sym__num_neg(&c0, &c0);
	/* the common monomial (positive exponents) */
	if (sym__num_is_zero(v->c) && v->n) {
		f = sym__print_mono_view(sym__lin_mono(v, 0), &one, &n);
		for (j = 0; j < n && nc < 16; j++)
			if (f[j].exp > 0)
				com[nc++] = f[j];
		for (i = 1; i < v->n && nc; i++) {
			size_t w = 0;
			f = sym__print_mono_view(sym__lin_mono(v, i), &one, &n);
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
	/* -(x + y) only adds parentheses to -x - y */
	if (nf == 1 && !nc && sym__num_sgn(&c0) < 0) {
		int64_t c1;
		if (sym__num_get_si(&c0, &c1) && c1 == -1)
			goto done;
	}
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

/* A sum with a constant: the rest printed with its own choice (factored,
 * say), then the constant: K*N*(H - 2)*(W - 2) + 15 rather than the
 * expansion of the product. */
static void alt_const_apart(pr *p, best *bt, const sym_expr *e, const sym_lin *v)
{
	const sym_expr *R;
	sym_sbuf c;
	sym_num a;
	if (sym__num_is_zero(v->c) || v->n < 2)
		return;
	sym__num_init(&a);
	sym__num_neg(&a, v->c);
	R = sym__add_num(p->ctx, e, &a);
	sym__num_abs(&a, v->c);
	if (!R || R->kind != SYM_KIND_ADD) {
		sym__num_clear(&a);
		return;
	}
	sym__sbuf_init(&c, p->ctx);
	node_text(p, R, &c, P_ADD);
	sym__sbuf_puts(&c, sym__num_sgn(v->c) < 0 ? " - " : " + ");
	put_num(&c, &a);
	sym__num_clear(&a);
	offer(p, bt, e, &c);
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
	sym__print_split_by_sign(p->ctx, &v, &pos, &neg);
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
			if (!strncmp(s, names[i], w) && !names[i][w])
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

/* How many times the whole word name occurs in text (as replace_names
 * sees words). */
static size_t count_word(const char *text, const char *name)
{
	size_t n = 0, len = strlen(name);
	const char *s = text;
	while (*s) {
		size_t w = 0;
		while ((s[w] >= 'a' && s[w] <= 'z') || (s[w] >= 'A' && s[w] <= 'Z') || s[w] == '_' ||
		       (s[w] >= '0' && s[w] <= '9'))
			w++;
		if (!w) {
			s++;
			continue;
		}
		n += w == len && !strncmp(s, name, w);
		s += w;
	}
	return n;
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
		const sym_factor *f = sym__print_mono_view(sym__lin_mono(v, i), &one, &n);
		const sym_expr *t = sym__num_node(ctx, sym__lin_coef(v, i));
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

/* Whether the symbol s occurs in e: a walk over e's distinct nodes
 * (symbols are compared, not remembered), so a max of many symbols costs
 * a look at each of them, not a sorted list of them.  -1 when memory runs
 * out. */
static int has_symbol(sym_memo *seen, const sym_expr *e, const sym_expr *s)
{
	size_t i, n;
	if (e == s)
		return 1;
	if (e->kind == SYM_KIND_SYM || e->kind == SYM_KIND_NUM || e->kind == SYM_KIND_BOOL)
		return 0;
	if (sym__memo_get(seen, e))
		return 0;
	if (!sym__memo_put(seen, e, e))
		return -1;
	n = sym__nslots(e);
	for (i = 0; i < n; i++) {
		int r = has_symbol(seen, sym__slot(e, i), s);
		if (r)
			return r;
	}
	return 0;
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
	size_t nf = 0, i, j, k, np = SIZE_MAX;
	for (i = 0; i < v->n && nf < SUBST_MAX_FLOORS; i++) {
		sym_factor one;
		size_t n;
		const sym_factor *f = sym__print_mono_view(sym__lin_mono(v, i), &one, &n);
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
	for (i = 0; i < nf; i++)
		gtext[i] = NULL, ginit[i] = 0;
	for (i = 0; i < nf; i++) {
		const sym_expr *P, *Q, *P2, *T;
		sym_lin w;
		sym_sumb tb;
		sym_num c, q1;
		sym_sbuf gt;
		size_t l;
		int in_e;
		snprintf(names[i], sizeof(names[i]), "g%zu__", i);
		gs[i] = sym_expr_symbol(p->ctx, names[i]);
		if (!gs[i])
			goto done;
		/* a name of e cannot stand for a floor: the symbols of e (the
		 * first 64 in the structural order) are listed only when the
		 * name occurs in e at all */
		{
			sym_memo seen;
			sym__memo_init(&seen, p->ctx);
			in_e = has_symbol(&seen, e, gs[i]);
			sym__memo_clear(&seen);
		}
		if (in_e < 0) {
			p->b->fail = 1;
			goto done;
		}
		if (in_e && np == SIZE_MAX)
			np = sym_expr_symbols(p->ctx, e, present, 64);
		for (l = 0; in_e && l < np && l < 64; l++)
			if (present[l] == gs[i])
				goto done;
		if (!sym__quotient_form(p->ctx, node_kid(F[i]), &P, &Q) || !P || !Q)
			goto done;
		sym__lin_view(P, &w);
		sym__sumb_init(&tb, p->ctx);
		sym__num_init(&c);
		sym__num_init(&q1);
		for (l = 0; l < w.n; l++) {
			if (sym__num_sgn(sym__lin_coef(&w, l)) <= 0)
				continue;
			sym__num_div(&c, sym__lin_coef(&w, l), node_num(Q));
			sym__num_ceil(&c, &c);
			sym__sumb_add_term(&tb, &c, sym__lin_mono(&w, l));
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
		size_t stok[SUBST_MAX_FLOORS]; /* tokens of stext[k], SIZE_MAX until counted */
		size_t ns = 0, cur = bt->tokens, tk;
		sym_sbuf keep;
		sym__sbuf_init(&keep, p->ctx);
		for (i = 0; i < nf; i++) {
			const sym_expr *es;
			sym_sbuf t, c;
			SF[ns] = F[i], SB[ns] = by[i], stext[ns] = gtext[i], stok[ns] = SIZE_MAX;
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
			/* the tokens of the text with the names replaced: each
			 * replacement is parenthesised, so it joins no token of
			 * its neighbours and the counts add up; the text is
			 * built only when it would be kept */
			tk = count_tokens(t.s);
			for (k = 0; k <= ns; k++) {
				size_t occ = count_word(t.s, snames[k]);
				if (stok[k] == SIZE_MAX)
					stok[k] = count_tokens(stext[k]);
				tk = tk - occ + occ * stok[k];
			}
			if (tk >= cur) {
				sym__sbuf_clear(&t);
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

/* A sum or relation holding a min or max of more arguments than this (the
 * dim of a long chain of broadcasts) prints as it is: each candidate would
 * print and parse that min or max again, and none is shorter for it. */
#define ALT_MAX_MINMAX_ARGS 16

/* Whether a term of the sum e, or of a sum inside one of its floors,
 * has a min or max of more than ALT_MAX_MINMAX_ARGS arguments among its
 * factors. */
static int has_big_minmax(const sym_expr *e, int depth)
{
	sym_lin v;
	size_t i, j, n;
	sym__lin_view(e, &v);
	for (i = 0; i < v.n; i++) {
		sym_factor one;
		const sym_factor *f = sym__print_mono_view(sym__lin_mono(&v, i), &one, &n);
		for (j = 0; j < n; j++) {
			const sym_expr *b = f[j].base;
			if ((b->kind == SYM_KIND_MIN || b->kind == SYM_KIND_MAX) &&
			    b->n > ALT_MAX_MINMAX_ARGS)
				return 1;
			if (b->kind == SYM_KIND_FLOOR && depth < 1 && has_big_minmax(node_kid(b), depth + 1))
				return 1;
		}
	}
	return 0;
}

/* Whether some term of v has a floor among its factors. */
static int has_floor_factor(const sym_lin *v)
{
	size_t i, j, n;
	for (i = 0; i < v->n; i++) {
		sym_factor one;
		const sym_factor *f = sym__print_mono_view(sym__lin_mono(v, i), &one, &n);
		for (j = 0; j < n; j++)
			if (f[j].base->kind == SYM_KIND_FLOOR)
				return 1;
	}
	return 0;
}

/* The text of e: its shortest verified spelling when shorter than the
 * default (*len bytes, precedence *prec) in tokens, else the default's
 * text once it was made; NULL when no text was made (the default, to be
 * written again). */
char *sym__print_alternatives(pr *p, const sym_expr *e, size_t *len, int *prec, int *unsafe)
{
	best bt;
	sym_sbuf def, *save;
	sym_lin v;
	int measure, i, pr0, un0;
	char *r = NULL;
	int long_sum;
	if (p->depth >= ALT_DEPTH || p->budget <= 0 || p->work <= 0 || *len > SUBST_MAX_LEN ||
	    sym__failed(p->ctx))
		return NULL;
	if (e->kind != SYM_KIND_ADD && !(node_is_rel(e) && node_kid(e)->kind == SYM_KIND_ADD))
		return NULL;
	sym__lin_view(e->kind == SYM_KIND_ADD ? e : node_kid(e), &v);
	long_sum = v.n > ALT_MAX_TERMS || *len > ALT_MAX_LEN;
	if (long_sum && (e->kind != SYM_KIND_ADD || v.n > SUBST_MAX_TERMS))
		return NULL;
	/* a long sum has candidates only through its floors (alt_substitute):
	 * without one, its default text is not even made */
	if (long_sum && !has_floor_factor(&v))
		return NULL;
	if (has_big_minmax(e->kind == SYM_KIND_ADD ? e : node_kid(e), 0))
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
	pr0 = sym__print_node(p, e);
	un0 = p->unsafe;
	p->b = save;
	p->measure = measure;
	if (def.fail || !def.s) {
		if (def.fail == 1)
			save->fail = 1;
		sym__sbuf_clear(&def);
		return NULL;
	}
	bt.tokens = text_cost(def.s);
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
		alt_const_apart(p, &bt, e, &v);
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
	} else if (!p->b->fail && def.n == *len) {
		/* the default it is: its text is kept too, since the writing pass
		 * and the candidates of enclosing nodes would make it again */
		r = sym__sbuf_take(&def);
		*prec = pr0, *unsafe = un0;
	}
	sym__sbuf_clear(&bt.s);
	sym__sbuf_clear(&def);
	return r;
}
