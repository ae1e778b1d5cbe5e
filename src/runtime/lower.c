/* The runtime program's lowering: expressions and predicates to flat int64
 * code with constants folded and common subexpressions shared.
 * program_private.h describes the instruction format, builder.c the code
 * builder; nodes are read through the seam's functions (seam.h), never
 * their layout. */
#include "lower_private.h"

#include <string.h>

/* ---- memo of lowered nodes --------------------------------------------- */

static int memo_get(const sym__code *c, const sym_expr *e, sym__vpair *out)
{
	size_t j;
	if (!c->mcap)
		return 0;
	for (j = sym__code_mix(sym_expr_hash(e)) & (c->mcap - 1); c->mkeys[j]; j = (j + 1) & (c->mcap - 1))
		if (c->mkeys[j] == e) {
			if (!sym__code_visible(c, c->mvals[j].n) || !sym__code_visible(c, c->mvals[j].d))
				return 0; /* lowered in another segment */
			*out = c->mvals[j];
			return 1;
		}
	return 0;
}

static int memo_put(sym__code *c, const sym_expr *e, sym__vpair v)
{
	size_t j;
	if ((c->mcount + 1) * 2 > c->mcap) {
		size_t nc = c->mcap ? c->mcap * 2 : 64, i;
		const sym_expr **nk = sym__alloc(c->ctx, nc * sizeof(*nk));
		sym__vpair *nv = nk ? sym__alloc(c->ctx, nc * sizeof(*nv)) : NULL;
		if (!nv) {
			sym__free(c->ctx, nk, nc * sizeof(*nk));
			return 0;
		}
		memset(nk, 0, nc * sizeof(*nk));
		for (i = 0; i < c->mcap; i++) {
			if (!c->mkeys[i])
				continue;
			for (j = sym__code_mix(sym_expr_hash(c->mkeys[i])) & (nc - 1); nk[j];
			     j = (j + 1) & (nc - 1))
				;
			nk[j] = c->mkeys[i];
			nv[j] = c->mvals[i];
		}
		sym__free(c->ctx, c->mkeys, c->mcap * sizeof(*c->mkeys));
		sym__free(c->ctx, c->mvals, c->mcap * sizeof(*c->mvals));
		c->mkeys = nk, c->mvals = nv, c->mcap = nc;
	}
	for (j = sym__code_mix(sym_expr_hash(e)) & (c->mcap - 1); c->mkeys[j]; j = (j + 1) & (c->mcap - 1))
		if (c->mkeys[j] == e) {
			/* the first binding wins, unless it is out of scope */
			if (!sym__code_visible(c, c->mvals[j].n) || !sym__code_visible(c, c->mvals[j].d))
				c->mvals[j] = v;
			return 1;
		}
	c->mkeys[j] = e;
	c->mvals[j] = v;
	c->mcount++;
	return 1;
}

/* ---- lowering ---------------------------------------------------------- */

static int lower(sym__code *c, const sym_expr *e, sym__vpair *out);

/* x**k for k >= 1 by squaring: no intermediate exceeds |x|**k. */
static int64_t power(sym__code *c, int64_t x, int64_t k)
{
	int64_t r = c->one, b = x;
	while (k > 0 && r >= 0 && b >= 0) {
		if (k & 1)
			r = sym__code_emit2(c, SYM_OP_MUL, r, b);
		k >>= 1;
		if (k)
			b = sym__code_emit2(c, SYM_OP_MUL, b, b);
	}
	return b < 0 ? -1 : r;
}

/* A sum: constant + sum of coef_i * m_i over the common constant
 * denominator L; terms with the same denominator register add their
 * numerators, distinct denominators are cross-multiplied. */
static int lower_add(sym__code *c, const sym_expr *e, sym__vpair *out)
{
	int64_t *gn = NULL, *gd = NULL, lv = 1, kv, N, D;
	size_t i, j, ng = 0, nt = sym__expr_nargs(e), cap = nt + 1;
	int ok = 1;
	gn = sym__alloc(c->ctx, cap * sizeof(*gn));
	gd = gn ? sym__alloc(c->ctx, cap * sizeof(*gd)) : NULL;
	if (!gd || !sym__sum_denom_si(c->ctx, e, &lv))
		goto error;
	/* the constant first: 1 - x is then one subtraction */
	for (i = 0; i <= nt; i++) {
		sym__vpair p;
		int64_t v;
		if (i == 0) {
			if (!sym__sum_coef_si(c->ctx, e, 0, lv, &kv))
				goto error;
			if (kv == 0)
				continue;
			p.n = c->one, p.d = c->one;
		} else if (!lower(c, sym__expr_arg(e, i - 1), &p) ||
		           !sym__sum_coef_si(c->ctx, e, i, lv, &kv)) {
			goto error;
		}
		for (j = 0; j < ng && gd[j] != p.d; j++)
			;
		if (j < ng && kv == -1) {
			v = gn[j] = sym__code_emit2(c, SYM_OP_SUB, gn[j], p.n);
		} else {
			v = sym__code_emit2(c, SYM_OP_MUL, sym__code_const(c, kv), p.n);
			if (j == ng) {
				gn[ng] = v, gd[ng] = p.d;
				ng++;
			} else {
				gn[j] = sym__code_emit2(c, SYM_OP_ADD, gn[j], v);
			}
		}
		if (v < 0 || gn[j] < 0)
			goto error;
	}
	N = gn[0], D = gd[0];
	for (j = 1; j < ng; j++) {
		N = sym__code_emit2(c, SYM_OP_ADD, sym__code_emit2(c, SYM_OP_MUL, N, gd[j]),
		                    sym__code_emit2(c, SYM_OP_MUL, gn[j], D));
		D = sym__code_emit2(c, SYM_OP_MUL, D, gd[j]);
	}
	out->n = N;
	out->d = sym__code_emit2(c, SYM_OP_MUL, D, sym__code_const(c, lv));
	ok = N >= 0 && out->d >= 0;
	goto done;
error:
	ok = 0;
done:
	sym__free(c->ctx, gn, gn ? cap * sizeof(*gn) : 0);
	sym__free(c->ctx, gd, gd ? cap * sizeof(*gd) : 0);
	return ok;
}

/* A monomial: products of numerators and denominators; a negative power
 * moves its base to the other side, and the denominator's sign is then
 * moved to the numerator (DENOM reports a zero denominator). */
static int lower_mul(sym__code *c, const sym_expr *e, sym__vpair *out)
{
	int64_t N = c->one, D = c->one;
	int neg = 0;
	size_t i, nf = sym__expr_nargs(e);
	for (i = 0; i < nf; i++) {
		sym__vpair p;
		int64_t k = sym__expr_factor_exp(e, i);
		if (!lower(c, sym__expr_arg(e, i), &p))
			return 0;
		if (k < 0) {
			int64_t t = p.n;
			p.n = p.d, p.d = t;
			neg = 1;
			if (k == INT64_MIN) {
				sym__error(c->ctx, SYM_EOVERFLOW, -1, "exponent does not fit int64");
				return 0;
			}
			k = -k;
		}
		N = sym__code_emit2(c, SYM_OP_MUL, N, power(c, p.n, k));
		D = sym__code_emit2(c, SYM_OP_MUL, D, power(c, p.d, k));
	}
	if (neg) {
		int64_t x = D;
		D = sym__code_emit(c, SYM_OP_DENOM, x, 0, 0);
		N = sym__code_emit2(c, SYM_OP_NEGIF, N, x);
	}
	out->n = N, out->d = D;
	return N >= 0 && D >= 0;
}

/* min/max of pairs: integer operands directly, fractions compared by
 * cross-multiplication (denominators are positive). */
static int lower_minmax(sym__code *c, const sym_expr *e, sym__vpair *out)
{
	int op = sym_expr_kind(e) == SYM_KIND_MIN ? SYM_OP_MIN : SYM_OP_MAX;
	sym__vpair acc, p;
	size_t i, n = sym__expr_nargs(e);
	if (!lower(c, sym__expr_arg(e, 0), &acc))
		return 0;
	for (i = 1; i < n; i++) {
		int64_t lhs, rhs, cond;
		if (!lower(c, sym__expr_arg(e, i), &p))
			return 0;
		if (p.d == acc.d) {
			acc.n = sym__code_emit2(c, op, acc.n, p.n);
		} else {
			/* cond: p beats acc */
			lhs = sym__code_emit2(c, SYM_OP_MUL, p.n, acc.d);
			rhs = sym__code_emit2(c, SYM_OP_MUL, acc.n, p.d);
			cond = op == SYM_OP_MIN ? sym__code_emit2(c, SYM_OP_LT, lhs, rhs)
			                        : sym__code_emit2(c, SYM_OP_LT, rhs, lhs);
			acc.n = sym__code_emit(c, SYM_OP_SEL, cond, p.n, acc.n);
			acc.d = sym__code_emit(c, SYM_OP_SEL, cond, p.d, acc.d);
		}
		if (acc.n < 0 || acc.d < 0)
			return 0;
	}
	*out = acc;
	return 1;
}

/* d OP 0 for d = k*x + c0 with k = +-1, an integer c0 and an integer x:
 * x compared with the constant directly (x <= -c0, or c0 <= x), one
 * instruction fewer than the sum and exact for every x, as every range
 * check is.  Returns 1 with the result in *r, 0 when d has another form,
 * -1 on error. */
static int lower_rel_const(sym__code *c, int op, const sym_expr *d, sym__vpair *r)
{
	int64_t L, k, c0, kc;
	sym__vpair p;
	if (sym_expr_kind(d) != SYM_KIND_ADD || sym__expr_nargs(d) != 1)
		return 0;
	if (!sym__sum_denom_si(c->ctx, d, &L) || !sym__sum_coef_si(c->ctx, d, 0, L, &c0) ||
	    !sym__sum_coef_si(c->ctx, d, 1, L, &k))
		return -1;
	if (L != 1 || (k != 1 && k != -1) || c0 == INT64_MIN)
		return 0;
	if (!lower(c, sym__expr_arg(d, 0), &p))
		return -1;
	if (p.d != c->one)
		return 0;
	kc = sym__code_const(c, k == 1 ? -c0 : c0);
	r->n = k == 1 ? sym__code_emit2(c, op, p.n, kc) : sym__code_emit2(c, op, kc, p.n);
	return 1;
}

static int lower(sym__code *c, const sym_expr *e, sym__vpair *out)
{
	sym__vpair r, p;
	size_t i, n;
	int64_t q;
	sym_kind kind;
	if (memo_get(c, e, out))
		return 1;
	r.n = -1;
	r.d = c->one;
	switch ((kind = sym_expr_kind(e))) {
	case SYM_KIND_NUM:
		if (!sym__expr_num_si(c->ctx, e, &r.n, &q))
			return 0;
		r.n = sym__code_const(c, r.n);
		r.d = sym__code_const(c, q);
		break;
	case SYM_KIND_SYM:
		sym__error(c->ctx, SYM_EUNBOUND, -1, "symbol '%s' is not an input of the program",
		           sym_expr_symbol_name(e));
		return 0;
	case SYM_KIND_BOOL:
		r.n = sym__code_const(c, e == sym__true(c->ctx));
		break;
	case SYM_KIND_ADD:
		if (!lower_add(c, e, &r))
			return 0;
		break;
	case SYM_KIND_MUL:
		if (!lower_mul(c, e, &r))
			return 0;
		break;
	case SYM_KIND_FLOOR:
		if (!lower(c, sym__expr_arg(e, 0), &p))
			return 0;
		r.n = sym__code_emit2(c, SYM_OP_FLOORDIV, p.n, p.d);
		break;
	case SYM_KIND_ABS:
		if (!lower(c, sym__expr_arg(e, 0), &p))
			return 0;
		r.n = sym__code_emit(c, SYM_OP_ABS, p.n, 0, 0);
		r.d = p.d;
		break;
	case SYM_KIND_MIN:
	case SYM_KIND_MAX:
		if (!lower_minmax(c, e, &r))
			return 0;
		break;
	case SYM_KIND_EQ:
	case SYM_KIND_NE:
	case SYM_KIND_LE:
	case SYM_KIND_LT: {
		static const int ops[] = {SYM_OP_EQ, SYM_OP_NE, SYM_OP_LE, SYM_OP_LT};
		int rc = lower_rel_const(c, ops[kind - SYM_KIND_EQ], sym__expr_arg(e, 0), &r);
		if (rc < 0)
			return 0;
		if (rc)
			break;
		if (!lower(c, sym__expr_arg(e, 0), &p))
			return 0;
		r.n = sym__code_emit2(c, ops[kind - SYM_KIND_EQ], p.n, c->zero);
		break;
	}
	case SYM_KIND_AND:
	case SYM_KIND_OR:
		/* every operand is evaluated, as in exact evaluation */
		r.n = sym__code_const(c, kind == SYM_KIND_AND);
		for (i = 0, n = sym__expr_nargs(e); i < n; i++) {
			if (!lower(c, sym__expr_arg(e, i), &p))
				return 0;
			/* predicates are 0 or 1 already */
			r.n = i == 0 ? p.n
			             : sym__code_emit2(c, kind == SYM_KIND_AND ? SYM_OP_AND : SYM_OP_OR, r.n,
			                               p.n);
		}
		break;
	default:
		sym__error(c->ctx, SYM_EMISUSE, -1, "cannot compile node kind %d", (int)kind);
		return 0;
	}
	if (r.n < 0 || r.d < 0 || sym__failed(c->ctx))
		return 0;
	if (!memo_put(c, e, r))
		return 0;
	*out = r;
	return 1;
}

/* ---- the program ------------------------------------------------------- */

sym_program *sym__program_compile(sym_ctx *ctx, size_t nsyms, const sym_expr *const *syms, size_t nchecks,
                                  size_t nguards, const sym_expr *const *guards, size_t nsegs,
                                  const size_t *seg_nouts, const sym_expr *const *outs)
{
	sym__code c;
	sym_program *p = NULL;
	int64_t *outv = NULL, *segv = NULL;
	size_t i, j, s, nouts = 0;
	if (!ctx || sym__failed(ctx))
		return NULL;
	for (s = 0; seg_nouts && s < nsegs; s++)
		nouts += seg_nouts[s];
	if ((nsyms && !syms) || (nguards && !guards) || (nouts && !outs) || nsyms > SYM_PROG_MAX_INPUTS ||
	    nchecks > nguards || nsegs < 1 || !seg_nouts) {
		sym__error(ctx, SYM_EMISUSE, -1, "sym_program_compile: invalid arguments");
		return NULL;
	}
	memset(&c, 0, sizeof(c));
	c.ctx = ctx;
	c.nin = nsyms;
	c.prefix_temps = (size_t)-1;
	for (i = 0; i < nsyms; i++) {
		sym__vpair v;
		if (!syms[i] || sym_expr_kind(syms[i]) != SYM_KIND_SYM) {
			sym__error(ctx, SYM_EMISUSE, -1, "program input %zu is not a symbol", i);
			goto error;
		}
		v.n = (int64_t)i, v.d = 0; /* d set below, once the constant 1 exists */
		if (!memo_put(&c, syms[i], v))
			goto error;
	}
	c.zero = sym__code_const(&c, 0);
	c.one = sym__code_const(&c, 1);
	if (c.zero < 0 || c.one < 0)
		goto error;
	for (i = 0; i < c.mcap; i++)
		if (c.mkeys[i])
			c.mvals[i].d = c.one;
	outv = sym__alloc(ctx, (nouts ? nouts : 1) * sizeof(*outv));
	segv = sym__alloc(ctx, 2 * nsegs * sizeof(*segv));
	if (!outv || !segv)
		goto error;
	for (i = 0; i < nguards; i++) {
		sym__vpair g;
		int64_t w[SYM_INSN_WORDS];
		if (!guards[i] || !sym_expr_is_pred(guards[i])) {
			sym__error(ctx, guards[i] ? SYM_EDOMAIN : SYM_EMISUSE, -1,
			           "guard %zu is not a predicate", i);
			goto error;
		}
		if (!lower(&c, guards[i], &g))
			goto error;
		w[0] = SYM_OP_GUARD, w[1] = 0, w[2] = g.n, w[3] = (int64_t)i, w[4] = 0;
		if (!sym__code_append(&c, w))
			goto error;
	}
	{
		size_t check_end = c.ninsns;
		sym_allocator hook = sym__ctx_allocator(ctx);
		c.prefix_temps = c.ntemps;
		for (s = 0, i = 0; s < nsegs; s++) {
			size_t end = i + seg_nouts[s];
			c.seg_temps = c.ntemps; /* a new scope: nothing of the segment before */
			for (; i < end; i++) {
				sym__vpair o;
				if (!outs[i]) {
					sym__error(ctx, SYM_EMISUSE, -1, "output %zu is NULL", i);
					goto error;
				}
				if (!lower(&c, outs[i], &o))
					goto error;
				outv[i] = sym__code_emit2(&c, SYM_OP_EXACTDIV, o.n, o.d);
				if (outv[i] < 0)
					goto error;
			}
			segv[2 * s] = (int64_t)c.ninsns;
			segv[2 * s + 1] = (int64_t)end;
		}
		if (!sym__code_compact(&c, outv, nouts))
			goto error;
		p = sym__program_alloc(&hook, c.nkused, c.ninsns, nouts, nsegs);
		if (!p) {
			sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
			goto error;
		}
		p->ninputs = nsyms, p->nguards = nguards, p->check_end = check_end, p->nchecks = nchecks;
		memcpy(p->segs, segv, 2 * nsegs * sizeof(*segv));
		p->nregs = c.nin + c.nkused + c.ntemps;
		if (c.nkused)
			memcpy(p->consts, c.kv, c.nkused * sizeof(*c.kv));
		for (i = 0; i < c.ninsns; i++) {
			const int64_t *w = c.code + i * SYM_INSN_WORDS;
			int64_t *d = p->code + i * SYM_INSN_WORDS;
			int ar = sym__op_arity(w[0]);
			d[0] = w[0];
			d[1] = w[0] == SYM_OP_GUARD ? 0 : sym__code_renumber(&c, w[1]);
			d[2] = sym__code_renumber(&c, w[2]);
			d[3] = w[0] == SYM_OP_GUARD ? w[3] : ar >= 2 ? sym__code_renumber(&c, w[3]) : 0;
			d[4] = ar >= 3 ? sym__code_renumber(&c, w[4]) : 0;
		}
		for (j = 0; j < nouts; j++)
			p->outs[j] = sym__code_renumber(&c, outv[j]);
	}
	sym__free(ctx, outv, (nouts ? nouts : 1) * sizeof(*outv));
	sym__free(ctx, segv, 2 * nsegs * sizeof(*segv));
	sym__code_clear(&c);
	return p;
error:
	if (outv)
		sym__free(ctx, outv, (nouts ? nouts : 1) * sizeof(*outv));
	if (segv)
		sym__free(ctx, segv, 2 * nsegs * sizeof(*segv));
	sym__code_clear(&c);
	if (!sym__failed(ctx))
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
	return NULL;
}

sym_program *sym_program_compile(sym_ctx *ctx, size_t nsyms, const sym_expr *const *syms, size_t nguards,
                                 const sym_expr *const *guards, size_t nouts, const sym_expr *const *outs)
{
	return sym__program_compile(ctx, nsyms, syms, 0, nguards, guards, 1, &nouts, outs);
}
