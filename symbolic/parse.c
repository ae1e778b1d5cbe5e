/* The expression parser: recursive descent with a nesting limit, exact
 * error positions, canonical nodes built as it goes. */
#include "node_private.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_NEST 200

typedef struct ps {
	sym_ctx *ctx;
	const char *s;
	size_t pos;
	int depth;
	/* symbols replaced while reading */
	size_t nsub;
	const char *const *sub_names;
	const sym_expr *const *sub_vals;
} ps;

static void skip_ws(ps *p)
{
	while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' || p->s[p->pos] == '\r')
		p->pos++;
}

/* Records "column N: <before><name><after> at '<excerpt>'": name (the
 * user's text, whole) between two fixed parts of the message. */
static const sym_expr *fail_name(ps *p, size_t pos, const char *before, const char *name, const char *after)
{
	char tok[24]; /* an excerpt of the input at the error, cut with "..." */
	size_t i;
	if (sym__failed(p->ctx))
		return NULL;
	if (!p->s[pos]) {
		sym__error(p->ctx, SYM_ESYNTAX, (long)pos, "column %zu: %s%s%s at end of input", pos + 1,
		           before, name, after);
		return NULL;
	}
	for (i = 0; i < sizeof(tok) - 4 && p->s[pos + i] && p->s[pos + i] != '\n'; i++)
		tok[i] = p->s[pos + i];
	tok[i] = 0;
	if (p->s[pos + i] && p->s[pos + i] != '\n')
		strcat(tok, "...");
	sym__error(p->ctx, SYM_ESYNTAX, (long)pos, "column %zu: %s%s%s at '%s'", pos + 1, before, name, after,
	           tok);
	return NULL;
}

static const sym_expr *fail(ps *p, size_t pos, const char *msg)
{
	return fail_name(p, pos, msg, "", "");
}

/* Gives an error recorded by a constructor the position of the operator. */
static const sym_expr *at(ps *p, size_t pos, const sym_expr *r)
{
	if (!r && sym__failed(p->ctx) && p->ctx->err_pos < 0) {
		/* the prefix goes in front of the whole message, in place: the
		 * one cut is the context's (its last bytes "...") */
		char pre[48], *msg = p->ctx->err_msg;
		size_t cap = sizeof(p->ctx->err_msg), n = strlen(msg);
		size_t k = (size_t)snprintf(pre, sizeof(pre), "column %zu: ", pos + 1);
		int cut = n + k >= cap;
		if (cut)
			n = cap - 1 - k;
		memmove(msg + k, msg, n);
		memcpy(msg, pre, k);
		msg[k + n] = 0;
		if (cut)
			memcpy(msg + cap - 4, "...", 4);
		p->ctx->err_pos = (long)pos;
	}
	return r;
}

static int accept(ps *p, const char *tok)
{
	size_t n = strlen(tok);
	skip_ws(p);
	if (strncmp(p->s + p->pos, tok, n) == 0) {
		p->pos += n;
		return 1;
	}
	return 0;
}

static const sym_expr *parse_or(ps *p);
static const sym_expr *parse_unary(ps *p);

static int enter(ps *p)
{
	if (++p->depth > MAX_NEST) {
		fail(p, p->pos, "expression nested too deeply");
		return 0;
	}
	return 1;
}

static int is_alpha(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const sym_expr *parse_call(ps *p, const char *name, size_t npos)
{
	const sym_expr *args[64];
	const sym_expr *stack_args[64];
	size_t n = 0;
	(void)stack_args;
	skip_ws(p);
	if (accept(p, ")"))
		return fail(p, p->pos - 1, "missing function argument");
	for (;;) {
		const sym_expr *a;
		if (n == 64)
			return fail(p, p->pos, "too many function arguments (at most 64)");
		a = parse_or(p);
		if (!a)
			return NULL;
		args[n++] = a;
		if (accept(p, ","))
			continue;
		if (accept(p, ")"))
			break;
		return fail(p, p->pos, "expected ',' or ')'");
	}
	if (!strcmp(name, "min"))
		return at(p, npos, sym_expr_min(p->ctx, n, args));
	if (!strcmp(name, "max"))
		return at(p, npos, sym_expr_max(p->ctx, n, args));
	if (n != 1)
		return fail_name(p, npos, "", name, " takes one argument");
	if (!strcmp(name, "abs"))
		return at(p, npos, sym_expr_abs(p->ctx, args[0]));
	if (!strcmp(name, "floor"))
		return at(p, npos, sym_expr_floor(p->ctx, args[0]));
	return at(p, npos, sym_expr_ceil(p->ctx, args[0]));
}

static const sym_expr *parse_primary(ps *p)
{
	size_t start;
	skip_ws(p);
	start = p->pos;
	if (is_digit(p->s[p->pos])) {
		sym_num v;
		const sym_expr *r;
		while (is_digit(p->s[p->pos]))
			p->pos++;
		if (p->s[p->pos] == '.' || is_alpha(p->s[p->pos]))
			return fail(p, p->pos,
			            p->s[p->pos] == '.' ? "decimal fractions are not supported (write 3/2)"
			                                : "invalid number");
		sym__num_init(&v);
		sym__num_set_str(&v, p->s + start, p->pos - start);
		r = sym__num_node(p->ctx, &v);
		sym__num_clear(&v);
		return r;
	}
	if (is_alpha(p->s[p->pos])) {
		char name[256];
		size_t len;
		while (is_alpha(p->s[p->pos]) || is_digit(p->s[p->pos]))
			p->pos++;
		len = p->pos - start;
		if (len >= sizeof(name))
			return fail(p, start, "name too long (at most 255 characters)");
		memcpy(name, p->s + start, len);
		name[len] = 0;
		skip_ws(p);
		if (p->s[p->pos] == '(') {
			const sym_expr *r;
			if (strcmp(name, "min") && strcmp(name, "max") && strcmp(name, "abs") &&
			    strcmp(name, "floor") && strcmp(name, "ceil")) {
				return fail_name(p, start, "unknown function '", name, "'");
			}
			p->pos++;
			if (!enter(p))
				return NULL;
			r = parse_call(p, name, start);
			p->depth--;
			return r;
		}
		if (!strcmp(name, "true") || !strcmp(name, "false"))
			return sym_expr_bool(p->ctx, name[0] == 't');
		if (!strcmp(name, "min") || !strcmp(name, "max") || !strcmp(name, "abs") ||
		    !strcmp(name, "floor") || !strcmp(name, "ceil"))
			return fail(p, p->pos, "expected '(' after function name");
		{
			size_t i;
			for (i = 0; i < p->nsub; i++)
				if (!strcmp(p->sub_names[i], name))
					return p->sub_vals[i];
		}
		return at(p, start, sym_expr_symbol(p->ctx, name));
	}
	if (p->s[p->pos] == '(') {
		const sym_expr *r;
		p->pos++;
		if (!enter(p))
			return NULL;
		r = parse_or(p);
		p->depth--;
		if (!r)
			return NULL;
		if (!accept(p, ")"))
			return fail(p, p->pos, "expected ')'");
		return r;
	}
	if (!p->s[p->pos])
		return fail(p, p->pos, "expected an operand");
	return fail(p, p->pos, "expected an operand");
}

static const sym_expr *parse_power(ps *p)
{
	const sym_expr *b = parse_primary(p), *e;
	size_t opos;
	long long n;
	if (!b)
		return NULL;
	skip_ws(p);
	opos = p->pos;
	if (!accept(p, "**"))
		return b;
	if (!enter(p))
		return NULL;
	e = parse_unary(p);
	p->depth--;
	if (!e)
		return NULL;
	if (e->kind != SYM_KIND_NUM || sym_expr_get_si(e, &n) != 1)
		return fail(p, opos,
		            e->kind == SYM_KIND_NUM ? "exponent is not an integer that fits 64 bits"
		                                    : "exponent must be an integer constant");
	return at(p, opos, sym_expr_pow_si(p->ctx, b, n));
}

static const sym_expr *parse_unary(ps *p)
{
	size_t opos;
	skip_ws(p);
	opos = p->pos;
	if (p->s[p->pos] == '-' || p->s[p->pos] == '+') {
		const sym_expr *r;
		int neg = p->s[p->pos] == '-';
		p->pos++;
		if (!enter(p))
			return NULL;
		r = parse_unary(p);
		p->depth--;
		if (!r)
			return NULL;
		if (r->flags & SYM_F_PRED)
			return fail(p, opos, "a predicate cannot be used as a number");
		return neg ? at(p, opos, sym_expr_neg(p->ctx, r)) : r;
	}
	return parse_power(p);
}

/* A run of constant operands folds into one number before it meets the
 * expression: a*c1/c2 is a*(c1/c2) (the same node by construction), and
 * a//d1//d2 with positive integers d1 and d2 is a//(d1*d2) while floor(a/d1)
 * stays plain (sym__floor_is_plain: then the constructor itself would merge
 * the two floors into that node).  A chain of n operators then builds a few
 * nodes, not n nodes holding ever larger numbers (x//2//2... would keep 2,
 * 4, 8, ... up to 2**n). */
typedef struct chain {
	const sym_expr *a; /* the value is a*k, or a//d when d is nonzero */
	sym_num k, d;
	size_t kpos, dpos; /* the first folded operator of each */
} chain;

/* Whether the folded number may take the factor c: the product has at most
 * the bits of both, checked before the multiplication. */
static int fold_fits(ps *p, const sym_num *r, const sym_num *c, size_t opos)
{
	if (sym__num_bits(r) + sym__num_bits(c) <= SYM_MAX_BITS + 1)
		return 1;
	sym__error(p->ctx, SYM_ELIMIT, -1, "number too large (more than %lu bits)", SYM_MAX_BITS);
	at(p, opos, NULL);
	return 0;
}

/* Builds the value a chain stands for; the chain then holds just it. */
static const sym_expr *chain_value(ps *p, chain *ch)
{
	if (ch->a && !sym__num_is_zero(&ch->d)) {
		const sym_expr *d = sym__num_node(p->ctx, &ch->d);
		ch->a = at(p, ch->dpos, sym_expr_floordiv(p->ctx, ch->a, d));
		sym__num_set_si(&ch->d, 0);
	}
	if (ch->a && !sym__num_is_one(&ch->k)) {
		ch->a = at(p, ch->kpos, sym__scale(p->ctx, &ch->k, ch->a));
		sym__num_set_si(&ch->k, 1);
	}
	return ch->a;
}

/* Starts a chain of floor divisions on the value so far.  floor(floor(Y)/c)
 * is built as floor(Y/c) for c >= 2, so a floor starts from its argument;
 * over integer monomials Y is kept as N/L with integer coefficients in N,
 * where sym__floor_is_plain is quick.  The divisor so far is then L, else 1. */
static int chain_start(ps *p, chain *ch, size_t opos)
{
	sym_lin v;
	if (!chain_value(p, ch))
		return 0;
	ch->dpos = opos;
	sym__num_set_si(&ch->d, 1);
	if (ch->a->kind != SYM_KIND_FLOOR)
		return 1;
	ch->a = node_kid(ch->a);
	sym__lin_view(ch->a, &v);
	if (!sym__lin_int_monos(&v))
		return 1;
	sym__lin_denom(&v, &ch->d);
	ch->a = at(p, opos, sym__scale(p->ctx, &ch->d, ch->a));
	return ch->a != NULL;
}

/* Folds "* c", "/ c" or "// c" into the chain when c is a constant that
 * folds; returns 0 when the operator must be built as it stands, -1 on an
 * error. */
static int chain_fold(ps *p, chain *ch, int op, const sym_expr *b, size_t opos)
{
	const sym_num *c;
	if (b->kind != SYM_KIND_NUM || (ch->a->flags & SYM_F_PRED))
		return 0;
	c = node_num(b);
	if (op == 'f') {
		if (sym__num_cmp(c, &(sym_num){{1}, 1}) <= 0 || !sym__num_is_int(c))
			return 0;
		if (!sym__num_is_zero(&ch->d) && !sym__floor_is_plain(ch->a, &ch->d) && !chain_value(p, ch))
			return -1;
		if (sym__num_is_zero(&ch->d) && !chain_start(p, ch, opos))
			return -1;
		if (!fold_fits(p, &ch->d, c, opos))
			return -1;
		sym__num_mul(&ch->d, &ch->d, c);
		return 1;
	}
	if (op != '*' && op != '/')
		return 0;
	if (op == '/' && sym__num_is_zero(c)) {
		sym__error(p->ctx, SYM_EDIVZERO, -1, "division by zero");
		at(p, opos, NULL);
		return -1;
	}
	if (!sym__num_is_zero(&ch->d) && !chain_value(p, ch))
		return -1;
	if (!fold_fits(p, &ch->k, c, opos))
		return -1;
	if (sym__num_is_one(&ch->k))
		ch->kpos = opos;
	if (op == '*')
		sym__num_mul(&ch->k, &ch->k, c);
	else
		sym__num_div(&ch->k, &ch->k, c);
	return 1;
}

/* Multiplies out the run of atom products gathered so far (see parse_term). */
static void term_flush(ps *p, chain *ch, const sym_expr **run, size_t *n, size_t pos)
{
	if (*n) {
		ch->a = at(p, pos, sym__mul_list(p->ctx, *n, run));
		*n = 0;
	}
}

/* A run of products of atoms (x0*x1*...*xn) is gathered and multiplied in
 * one sort (n log n), not rebuilt at every operator. */
static const sym_expr *parse_term(ps *p)
{
	chain ch;
	const sym_expr *r, **run = NULL;
	size_t nrun = 0, caprun = 0, runpos = 0;
	ch.a = parse_unary(p);
	sym__num_init(&ch.k);
	sym__num_init(&ch.d);
	sym__num_set_si(&ch.k, 1);
	ch.kpos = ch.dpos = 0;
	while (ch.a) {
		size_t opos;
		const sym_expr *a, *b;
		int op, folded;
		skip_ws(p);
		opos = p->pos;
		if (accept(p, "//"))
			op = 'f';
		else if (accept(p, "**")) {
			ch.a = fail(p, opos, "unexpected '**'");
			break;
		} else if (accept(p, "*"))
			op = '*';
		else if (accept(p, "/"))
			op = '/';
		else if (accept(p, "%"))
			op = '%';
		else
			break;
		b = parse_unary(p);
		if (!b) {
			ch.a = NULL;
			break;
		}
		if (op == '*' && sym__mul_gatherable(b) && sym__num_is_one(&ch.k) &&
		    sym__num_is_zero(&ch.d) && (nrun || sym__mul_gatherable(ch.a))) {
			if (SYM_GROW(p->ctx, run, nrun + 2, caprun, 16) < 0) {
				ch.a = NULL;
				break;
			}
			if (!nrun) {
				run[nrun++] = ch.a;
				runpos = opos;
			}
			run[nrun++] = b;
			continue;
		}
		term_flush(p, &ch, run, &nrun, runpos);
		if (!ch.a)
			break;
		folded = chain_fold(p, &ch, op, b, opos);
		if (folded < 0)
			ch.a = NULL;
		if (folded)
			continue;
		a = chain_value(p, &ch);
		if (!a)
			break;
		switch (op) {
		case '*':
			ch.a = at(p, opos, sym_expr_mul(p->ctx, a, b));
			break;
		case '/':
			ch.a = at(p, opos, sym_expr_div(p->ctx, a, b));
			break;
		case 'f':
			ch.a = at(p, opos, sym_expr_floordiv(p->ctx, a, b));
			break;
		default:
			ch.a = at(p, opos, sym_expr_mod(p->ctx, a, b));
			break;
		}
	}
	if (ch.a)
		term_flush(p, &ch, run, &nrun, runpos);
	sym__free(p->ctx, run, caprun * sizeof(*run));
	r = chain_value(p, &ch);
	sym__num_clear(&ch.k);
	sym__num_clear(&ch.d);
	return r;
}

/* A sum of n operands is gathered and canonicalised once (n log n), not
 * rebuilt at every operator. */
static const sym_expr *parse_sum(ps *p)
{
	static const sym_num mone = {{-1}, 1};
	const sym_expr *a = parse_term(p);
	sym_sumb b;
	int many = 0;
	if (!a)
		return NULL;
	for (;;) {
		size_t opos;
		const sym_expr *t;
		int neg;
		skip_ws(p);
		opos = p->pos;
		if (p->s[p->pos] == '+')
			neg = 0;
		else if (p->s[p->pos] == '-')
			neg = 1;
		else
			break;
		p->pos++;
		t = parse_term(p);
		if (!t) {
			if (many)
				sym__sumb_clear(&b);
			return NULL;
		}
		if (!many) {
			sym__sumb_init(&b, p->ctx);
			many = 1;
			if (!sym__sumb_add(&b, NULL, a)) {
				sym__sumb_clear(&b);
				return at(p, opos, NULL);
			}
		}
		if (!sym__sumb_add(&b, neg ? &mone : NULL, t)) {
			sym__sumb_clear(&b);
			return at(p, opos, NULL);
		}
	}
	return many ? sym__sumb_finish(&b) : a;
}

static const sym_expr *parse_rel(ps *p)
{
	static const struct {
		const char *tok;
		sym_relop op;
	} ops[] = {{"==", SYM_REL_EQ}, {"!=", SYM_REL_NE}, {"<=", SYM_REL_LE},
	           {">=", SYM_REL_GE}, {"<", SYM_REL_LT},  {">", SYM_REL_GT}};
	const sym_expr *a = parse_sum(p), *b;
	size_t i, opos;
	if (!a)
		return NULL;
	skip_ws(p);
	opos = p->pos;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (accept(p, ops[i].tok))
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return a;
	b = parse_sum(p);
	if (!b)
		return NULL;
	skip_ws(p);
	if (p->s[p->pos] == '<' || p->s[p->pos] == '>' || (p->s[p->pos] == '=' && p->s[p->pos + 1] == '=') ||
	    (p->s[p->pos] == '!' && p->s[p->pos + 1] == '='))
		return fail(p, p->pos, "relations do not chain (use &&)");
	return at(p, opos, sym_expr_rel(p->ctx, ops[i].op, a, b));
}

static const sym_expr *parse_not(ps *p)
{
	size_t opos;
	skip_ws(p);
	opos = p->pos;
	if (p->s[p->pos] == '!' && p->s[p->pos + 1] != '=') {
		const sym_expr *r;
		p->pos++;
		if (!enter(p))
			return NULL;
		r = parse_not(p);
		p->depth--;
		return r ? at(p, opos, sym_expr_not(p->ctx, r)) : NULL;
	}
	return parse_rel(p);
}

static const sym_expr *parse_and(ps *p)
{
	const sym_expr *a = parse_not(p);
	while (a) {
		size_t opos;
		const sym_expr *b;
		skip_ws(p);
		opos = p->pos;
		if (!accept(p, "&&"))
			break;
		b = parse_not(p);
		if (!b)
			return NULL;
		a = at(p, opos, sym_expr_and(p->ctx, a, b));
	}
	return a;
}

static const sym_expr *parse_or(ps *p)
{
	const sym_expr *a = parse_and(p);
	while (a) {
		size_t opos;
		const sym_expr *b;
		skip_ws(p);
		opos = p->pos;
		if (!accept(p, "||"))
			break;
		b = parse_and(p);
		if (!b)
			return NULL;
		a = at(p, opos, sym_expr_or(p->ctx, a, b));
	}
	return a;
}

const sym_expr *sym_expr_from_str(sym_ctx *ctx, const char *text)
{
	return sym_expr_from_str_subst(ctx, text, 0, NULL, NULL);
}

const sym_expr *sym_expr_from_str_subst(sym_ctx *ctx, const char *text, size_t n, const char *const *names,
                                        const sym_expr *const *vals)
{
	ps p;
	const sym_expr *r;
	size_t i;
	if (sym__failed(ctx))
		return NULL;
	if (!text)
		return sym__error(ctx, SYM_EMISUSE, -1, "no text to parse");
	for (i = 0; i < n; i++)
		if (!names[i] || !vals[i] || (vals[i]->flags & SYM_F_PRED))
			return sym__error(ctx, SYM_EMISUSE, -1,
			                  "substitutions need names and numeric values");
	p.ctx = ctx;
	p.s = text;
	p.pos = 0;
	p.depth = 0;
	p.nsub = n;
	p.sub_names = names;
	p.sub_vals = vals;
	skip_ws(&p);
	if (!text[p.pos])
		return fail(&p, p.pos, "empty expression");
	r = parse_or(&p);
	if (!r) {
		if (!sym__failed(ctx))
			fail(&p, p.pos, "invalid expression");
		return NULL;
	}
	skip_ws(&p);
	if (text[p.pos])
		return fail(&p, p.pos, "unexpected text after the expression");
	return r;
}
