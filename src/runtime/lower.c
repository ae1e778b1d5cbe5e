/* The runtime program's lowering: expressions and predicates to flat int64
 * code with constants folded and common subexpressions shared.
 * program_private.h describes the instruction format; nodes are read
 * through the seam's functions (seam.h), never their layout. */
#include "seam.h"
#include "program_private.h"

#include <string.h>

/* ---- compilation ------------------------------------------------------- */

/* While compiling, the number of constants is not known yet, so operands are
 * virtual: inputs as themselves, constants and temporaries tagged; the final
 * numbering is made once at the end. */
#define V_CONST ((int64_t)1 << 40)
#define V_TEMP ((int64_t)2 << 40)
#define V_IS_CONST(v) ((v) >= V_CONST && (v) < V_TEMP)

/* A lowered numeric value: numerator and (positive) denominator registers. */
typedef struct vpair {
	int64_t n, d;
} vpair;

typedef struct comp {
	sym_ctx *ctx;
	size_t nin;
	/* the constant pool and its hash index (entries are index + 1) */
	int64_t *kv;
	size_t nk, kcap;
	size_t *ktab;
	size_t ktcap;
	/* the code with virtual operands and its hash index (insn index + 1) */
	int64_t *code;
	size_t ninsns, codecap, ntemps;
	/* scopes: a temporary t is visible when t < prefix_temps (the check
	 * prefix) or t >= seg_temps (the segment being lowered) */
	size_t prefix_temps, seg_temps;
	size_t *itab;
	size_t itcap;
	/* node -> lowered value */
	const sym_expr **mkeys;
	vpair *mvals;
	size_t mcap, mcount;
	int64_t zero, one;
	/* at the end: the constants in use, renumbered densely */
	int64_t *kmap;
	size_t nkused;
} comp;

static uint64_t mix(uint64_t h)
{
	h ^= h >> 31;
	h *= 0x7fb5d329728ea185ULL;
	h ^= h >> 27;
	h *= 0x81dadef4bc2dd44dULL;
	h ^= h >> 33;
	return h;
}

/* Grows an open-addressing table of index + 1 entries to twice its size
 * (at least 64), rehashing with hash(i). */
static int table_grow(comp *c, size_t **tab, size_t *cap, uint64_t (*hash)(const comp *, size_t))
{
	size_t nc = *cap ? *cap * 2 : 64, i, j;
	size_t *nt = sym__alloc(c->ctx, nc * sizeof(*nt));
	if (!nt)
		return 0;
	memset(nt, 0, nc * sizeof(*nt));
	for (i = 0; i < *cap; i++) {
		if (!(*tab)[i])
			continue;
		for (j = hash(c, (*tab)[i] - 1) & (nc - 1); nt[j]; j = (j + 1) & (nc - 1))
			;
		nt[j] = (*tab)[i];
	}
	sym__free(c->ctx, *tab, *cap * sizeof(**tab));
	*tab = nt;
	*cap = nc;
	return 1;
}

static uint64_t const_hash(const comp *c, size_t i)
{
	return mix((uint64_t)c->kv[i]);
}

static uint64_t insn_hash_words(const int64_t *w)
{
	uint64_t h = mix((uint64_t)w[0] * 0x9e3779b97f4a7c15ULL);
	h = mix(h ^ (uint64_t)w[2]);
	h = mix(h ^ (uint64_t)w[3]);
	return mix(h ^ (uint64_t)w[4]);
}

static uint64_t insn_hash(const comp *c, size_t i)
{
	return insn_hash_words(c->code + i * SYM_INSN_WORDS);
}

/* Returns the register of the constant v (-1 when memory runs out). */
static int64_t konst(comp *c, int64_t v)
{
	size_t j;
	if ((c->nk + 1) * 2 > c->ktcap && !table_grow(c, &c->ktab, &c->ktcap, const_hash))
		return -1;
	for (j = mix((uint64_t)v) & (c->ktcap - 1); c->ktab[j]; j = (j + 1) & (c->ktcap - 1))
		if (c->kv[c->ktab[j] - 1] == v)
			return V_CONST + (int64_t)(c->ktab[j] - 1);
	if (c->nk == c->kcap) {
		size_t nc = c->kcap ? c->kcap * 2 : 16;
		int64_t *nk = sym__realloc(c->ctx, c->kv, c->kcap * sizeof(*nk), nc * sizeof(*nk));
		if (!nk)
			return -1;
		c->kv = nk;
		c->kcap = nc;
	}
	c->kv[c->nk] = v;
	c->ktab[j] = ++c->nk;
	return V_CONST + (int64_t)(c->nk - 1);
}

static int is_const(const comp *c, int64_t v, int64_t *val)
{
	if (!V_IS_CONST(v))
		return 0;
	*val = c->kv[v - V_CONST];
	return 1;
}

static int is_const_val(const comp *c, int64_t v, int64_t want)
{
	int64_t x;
	return is_const(c, v, &x) && x == want;
}

/* Returns whether register v may be read by the code being lowered: an
 * input, a constant, or a temporary of the check prefix or of the current
 * segment. */
static int visible(const comp *c, int64_t v)
{
	size_t t;
	if (v < V_TEMP)
		return 1;
	t = (size_t)(v - V_TEMP);
	return t < c->prefix_temps || t >= c->seg_temps;
}

/* Appends an instruction without looking it up; returns its index. */
static int append(comp *c, const int64_t *w)
{
	if (c->ninsns == c->codecap) {
		size_t nc = c->codecap ? c->codecap * 2 : 64;
		int64_t *nw = sym__realloc(c->ctx, c->code, c->codecap * SYM_INSN_WORDS * sizeof(*nw),
		                           nc * SYM_INSN_WORDS * sizeof(*nw));
		if (!nw)
			return 0;
		c->code = nw;
		c->codecap = nc;
	}
	memcpy(c->code + c->ninsns * SYM_INSN_WORDS, w, SYM_INSN_WORDS * sizeof(*w));
	c->ninsns++;
	return 1;
}

static int is_commutative(int op)
{
	switch (op) {
	case SYM_OP_ADD:
	case SYM_OP_MUL:
	case SYM_OP_MIN:
	case SYM_OP_MAX:
	case SYM_OP_EQ:
	case SYM_OP_NE:
	case SYM_OP_AND:
	case SYM_OP_OR:
		return 1;
	default:
		return 0;
	}
}

/* Folds an instruction whose operands are all constants; returns 1 and the
 * value when it evaluates without error (an error is left to run time, where
 * it is reported). */
static int fold(const comp *c, int op, int64_t a, int64_t b, int64_t x, int64_t *val)
{
	int64_t r[4] = {0, 0, 0, 0}, w[SYM_INSN_WORDS] = {op, 3, 0, 1, 2};
	int ar = sym__op_arity(op);
	if (!is_const(c, a, &r[0]) || (ar >= 2 && !is_const(c, b, &r[1])) ||
	    (ar >= 3 && !is_const(c, x, &r[2])))
		return 0;
	if (sym__insn_exec(w, r) != SYM_EOK)
		return 0;
	*val = r[3];
	return 1;
}

/* Algebraic identities that need no instruction; returns the register or -1.
 * The operands are already computed, so dropping one never hides an error. */
static int64_t simplify_insn(comp *c, int op, int64_t a, int64_t b, int64_t x)
{
	int64_t k;
	switch (op) {
	case SYM_OP_ADD:
		return is_const_val(c, a, 0) ? b : is_const_val(c, b, 0) ? a : -1;
	case SYM_OP_SUB:
		return is_const_val(c, b, 0) ? a : -1;
	case SYM_OP_MUL:
		if (is_const_val(c, a, 1))
			return b;
		if (is_const_val(c, b, 1))
			return a;
		if (is_const_val(c, a, 0) || is_const_val(c, b, 0))
			return c->zero;
		return -1;
	case SYM_OP_FLOORDIV:
	case SYM_OP_EXACTDIV:
		return is_const_val(c, b, 1) ? a : -1;
	case SYM_OP_MIN:
	case SYM_OP_MAX:
		return a == b ? a : -1;
	case SYM_OP_NEGIF:
		return is_const(c, b, &k) && k >= 0 ? a : -1;
	case SYM_OP_SEL:
		if (is_const(c, a, &k))
			return k ? b : x;
		return b == x ? b : -1;
	default:
		return -1;
	}
}

/* Returns the register holding op(a, b, x): a constant when it folds, an
 * earlier identical instruction's register, or a new instruction's; -1 on
 * error. */
static int64_t emit(comp *c, int op, int64_t a, int64_t b, int64_t x)
{
	int64_t w[SYM_INSN_WORDS], v, r;
	size_t j;
	if (a < 0 || b < 0 || x < 0)
		return -1;
	if (is_commutative(op) && a > b) {
		int64_t t = a;
		a = b, b = t;
	}
	if (fold(c, op, a, b, x, &v))
		return konst(c, v);
	if (op == SYM_OP_MUL && (is_const_val(c, a, -1) || is_const_val(c, b, -1)))
		return emit(c, SYM_OP_NEG, is_const_val(c, a, -1) ? b : a, 0, 0);
	if (op == SYM_OP_NEGIF && is_const(c, b, &v) && v < 0)
		return emit(c, SYM_OP_NEG, a, 0, 0);
	if ((r = simplify_insn(c, op, a, b, x)) >= 0)
		return r;
	w[0] = op, w[1] = 0, w[2] = a, w[3] = sym__op_arity(op) >= 2 ? b : 0,
	w[4] = sym__op_arity(op) >= 3 ? x : 0;
	if ((c->ninsns + 1) * 2 > c->itcap && !table_grow(c, &c->itab, &c->itcap, insn_hash))
		return -1;
	for (j = insn_hash_words(w) & (c->itcap - 1); c->itab[j]; j = (j + 1) & (c->itcap - 1)) {
		const int64_t *o = c->code + (c->itab[j] - 1) * SYM_INSN_WORDS;
		if (o[0] == w[0] && o[2] == w[2] && o[3] == w[3] && o[4] == w[4]) {
			if (visible(c, o[1]))
				return o[1];
			break; /* of another segment: this slot takes the new one */
		}
	}
	w[1] = V_TEMP + (int64_t)c->ntemps;
	if (!append(c, w))
		return -1;
	c->ntemps++;
	c->itab[j] = c->ninsns;
	return w[1];
}

static int64_t emit2(comp *c, int op, int64_t a, int64_t b)
{
	return emit(c, op, a, b, 0);
}

/* ---- memo of lowered nodes --------------------------------------------- */

static int memo_get(const comp *c, const sym_expr *e, vpair *out)
{
	size_t j;
	if (!c->mcap)
		return 0;
	for (j = mix(sym_expr_hash(e)) & (c->mcap - 1); c->mkeys[j]; j = (j + 1) & (c->mcap - 1))
		if (c->mkeys[j] == e) {
			if (!visible(c, c->mvals[j].n) || !visible(c, c->mvals[j].d))
				return 0; /* lowered in another segment */
			*out = c->mvals[j];
			return 1;
		}
	return 0;
}

static int memo_put(comp *c, const sym_expr *e, vpair v)
{
	size_t j;
	if ((c->mcount + 1) * 2 > c->mcap) {
		size_t nc = c->mcap ? c->mcap * 2 : 64, i;
		const sym_expr **nk = sym__alloc(c->ctx, nc * sizeof(*nk));
		vpair *nv = nk ? sym__alloc(c->ctx, nc * sizeof(*nv)) : NULL;
		if (!nv) {
			sym__free(c->ctx, nk, nc * sizeof(*nk));
			return 0;
		}
		memset(nk, 0, nc * sizeof(*nk));
		for (i = 0; i < c->mcap; i++) {
			if (!c->mkeys[i])
				continue;
			for (j = mix(sym_expr_hash(c->mkeys[i])) & (nc - 1); nk[j]; j = (j + 1) & (nc - 1))
				;
			nk[j] = c->mkeys[i];
			nv[j] = c->mvals[i];
		}
		sym__free(c->ctx, c->mkeys, c->mcap * sizeof(*c->mkeys));
		sym__free(c->ctx, c->mvals, c->mcap * sizeof(*c->mvals));
		c->mkeys = nk, c->mvals = nv, c->mcap = nc;
	}
	for (j = mix(sym_expr_hash(e)) & (c->mcap - 1); c->mkeys[j]; j = (j + 1) & (c->mcap - 1))
		if (c->mkeys[j] == e) {
			/* the first binding wins, unless it is out of scope */
			if (!visible(c, c->mvals[j].n) || !visible(c, c->mvals[j].d))
				c->mvals[j] = v;
			return 1;
		}
	c->mkeys[j] = e;
	c->mvals[j] = v;
	c->mcount++;
	return 1;
}

/* ---- lowering ---------------------------------------------------------- */

static int lower(comp *c, const sym_expr *e, vpair *out);

/* x**k for k >= 1 by squaring: no intermediate exceeds |x|**k. */
static int64_t power(comp *c, int64_t x, int64_t k)
{
	int64_t r = c->one, b = x;
	while (k > 0 && r >= 0 && b >= 0) {
		if (k & 1)
			r = emit2(c, SYM_OP_MUL, r, b);
		k >>= 1;
		if (k)
			b = emit2(c, SYM_OP_MUL, b, b);
	}
	return b < 0 ? -1 : r;
}

/* A sum: constant + sum of coef_i * m_i over the common constant
 * denominator L; terms with the same denominator register add their
 * numerators, distinct denominators are cross-multiplied. */
static int lower_add(comp *c, const sym_expr *e, vpair *out)
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
		vpair p;
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
			v = gn[j] = emit2(c, SYM_OP_SUB, gn[j], p.n);
		} else {
			v = emit2(c, SYM_OP_MUL, konst(c, kv), p.n);
			if (j == ng) {
				gn[ng] = v, gd[ng] = p.d;
				ng++;
			} else {
				gn[j] = emit2(c, SYM_OP_ADD, gn[j], v);
			}
		}
		if (v < 0 || gn[j] < 0)
			goto error;
	}
	N = gn[0], D = gd[0];
	for (j = 1; j < ng; j++) {
		N = emit2(c, SYM_OP_ADD, emit2(c, SYM_OP_MUL, N, gd[j]), emit2(c, SYM_OP_MUL, gn[j], D));
		D = emit2(c, SYM_OP_MUL, D, gd[j]);
	}
	out->n = N;
	out->d = emit2(c, SYM_OP_MUL, D, konst(c, lv));
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
static int lower_mul(comp *c, const sym_expr *e, vpair *out)
{
	int64_t N = c->one, D = c->one;
	int neg = 0;
	size_t i, nf = sym__expr_nargs(e);
	for (i = 0; i < nf; i++) {
		vpair p;
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
		N = emit2(c, SYM_OP_MUL, N, power(c, p.n, k));
		D = emit2(c, SYM_OP_MUL, D, power(c, p.d, k));
	}
	if (neg) {
		int64_t x = D;
		D = emit(c, SYM_OP_DENOM, x, 0, 0);
		N = emit2(c, SYM_OP_NEGIF, N, x);
	}
	out->n = N, out->d = D;
	return N >= 0 && D >= 0;
}

/* min/max of pairs: integer operands directly, fractions compared by
 * cross-multiplication (denominators are positive). */
static int lower_minmax(comp *c, const sym_expr *e, vpair *out)
{
	int op = sym_expr_kind(e) == SYM_KIND_MIN ? SYM_OP_MIN : SYM_OP_MAX;
	vpair acc, p;
	size_t i, n = sym__expr_nargs(e);
	if (!lower(c, sym__expr_arg(e, 0), &acc))
		return 0;
	for (i = 1; i < n; i++) {
		int64_t lhs, rhs, cond;
		if (!lower(c, sym__expr_arg(e, i), &p))
			return 0;
		if (p.d == acc.d) {
			acc.n = emit2(c, op, acc.n, p.n);
		} else {
			/* cond: p beats acc */
			lhs = emit2(c, SYM_OP_MUL, p.n, acc.d);
			rhs = emit2(c, SYM_OP_MUL, acc.n, p.d);
			cond =
			    op == SYM_OP_MIN ? emit2(c, SYM_OP_LT, lhs, rhs) : emit2(c, SYM_OP_LT, rhs, lhs);
			acc.n = emit(c, SYM_OP_SEL, cond, p.n, acc.n);
			acc.d = emit(c, SYM_OP_SEL, cond, p.d, acc.d);
		}
		if (acc.n < 0 || acc.d < 0)
			return 0;
	}
	*out = acc;
	return 1;
}

static int lower(comp *c, const sym_expr *e, vpair *out)
{
	vpair r, p;
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
		r.n = konst(c, r.n);
		r.d = konst(c, q);
		break;
	case SYM_KIND_SYM:
		sym__error(c->ctx, SYM_EUNBOUND, -1, "symbol '%s' is not an input of the program",
		           sym_expr_symbol_name(e));
		return 0;
	case SYM_KIND_BOOL:
		r.n = konst(c, e == sym__true(c->ctx));
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
		r.n = emit2(c, SYM_OP_FLOORDIV, p.n, p.d);
		break;
	case SYM_KIND_ABS:
		if (!lower(c, sym__expr_arg(e, 0), &p))
			return 0;
		r.n = emit(c, SYM_OP_ABS, p.n, 0, 0);
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
		if (!lower(c, sym__expr_arg(e, 0), &p))
			return 0;
		r.n = emit2(c, ops[kind - SYM_KIND_EQ], p.n, c->zero);
		break;
	}
	case SYM_KIND_AND:
	case SYM_KIND_OR:
		/* every operand is evaluated, as in exact evaluation */
		r.n = konst(c, kind == SYM_KIND_AND);
		for (i = 0, n = sym__expr_nargs(e); i < n; i++) {
			if (!lower(c, sym__expr_arg(e, i), &p))
				return 0;
			/* predicates are 0 or 1 already */
			r.n =
			    i == 0 ? p.n : emit2(c, kind == SYM_KIND_AND ? SYM_OP_AND : SYM_OP_OR, r.n, p.n);
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

static void comp_clear(comp *c)
{
	sym__free(c->ctx, c->kv, c->kcap * sizeof(*c->kv));
	sym__free(c->ctx, c->ktab, c->ktcap * sizeof(*c->ktab));
	sym__free(c->ctx, c->code, c->codecap * SYM_INSN_WORDS * sizeof(*c->code));
	sym__free(c->ctx, c->itab, c->itcap * sizeof(*c->itab));
	sym__free(c->ctx, c->mkeys, c->mcap * sizeof(*c->mkeys));
	sym__free(c->ctx, c->mvals, c->mcap * sizeof(*c->mvals));
	sym__free(c->ctx, c->kmap, (c->kcap ? c->kcap : 1) * sizeof(*c->kmap));
}

static void mark_const(comp *c, int64_t v)
{
	if (V_IS_CONST(v))
		c->kmap[v - V_CONST] = 1;
}

/* Drops the constants no instruction or output reads (folding leaves some
 * behind) and numbers the others densely. */
static int compact_consts(comp *c, const int64_t *outv, size_t nouts)
{
	size_t i;
	int k;
	c->kmap = sym__alloc(c->ctx, (c->kcap ? c->kcap : 1) * sizeof(*c->kmap));
	if (!c->kmap)
		return 0;
	memset(c->kmap, 0, (c->kcap ? c->kcap : 1) * sizeof(*c->kmap));
	for (i = 0; i < c->ninsns; i++) {
		const int64_t *w = c->code + i * SYM_INSN_WORDS;
		for (k = 0; k < sym__op_arity(w[0]); k++)
			if (!(k == 1 && w[0] == SYM_OP_GUARD))
				mark_const(c, w[2 + k]);
	}
	for (i = 0; i < nouts; i++)
		mark_const(c, outv[i]);
	for (i = 0; i < c->nk; i++)
		if (c->kmap[i]) {
			c->kv[c->nkused] = c->kv[i];
			c->kmap[i] = (int64_t)c->nkused++;
		}
	return 1;
}

static int64_t renumber(const comp *c, int64_t v)
{
	if (v < (int64_t)c->nin)
		return v;
	if (V_IS_CONST(v))
		return (int64_t)c->nin + c->kmap[v - V_CONST];
	return (int64_t)(c->nin + c->nkused) + (v - V_TEMP);
}

sym_program *sym__program_compile(sym_ctx *ctx, size_t nsyms, const sym_expr *const *syms, size_t nchecks,
                                  size_t nguards, const sym_expr *const *guards, size_t nsegs,
                                  const size_t *seg_nouts, const sym_expr *const *outs)
{
	comp c;
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
		vpair v;
		if (!syms[i] || sym_expr_kind(syms[i]) != SYM_KIND_SYM) {
			sym__error(ctx, SYM_EMISUSE, -1, "program input %zu is not a symbol", i);
			goto error;
		}
		v.n = (int64_t)i, v.d = 0; /* d set below, once the constant 1 exists */
		if (!memo_put(&c, syms[i], v))
			goto error;
	}
	c.zero = konst(&c, 0);
	c.one = konst(&c, 1);
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
		vpair g;
		int64_t w[SYM_INSN_WORDS];
		if (!guards[i] || !sym_expr_is_pred(guards[i])) {
			sym__error(ctx, guards[i] ? SYM_EDOMAIN : SYM_EMISUSE, -1,
			           "guard %zu is not a predicate", i);
			goto error;
		}
		if (!lower(&c, guards[i], &g))
			goto error;
		w[0] = SYM_OP_GUARD, w[1] = 0, w[2] = g.n, w[3] = (int64_t)i, w[4] = 0;
		if (!append(&c, w))
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
				vpair o;
				if (!outs[i]) {
					sym__error(ctx, SYM_EMISUSE, -1, "output %zu is NULL", i);
					goto error;
				}
				if (!lower(&c, outs[i], &o))
					goto error;
				outv[i] = emit2(&c, SYM_OP_EXACTDIV, o.n, o.d);
				if (outv[i] < 0)
					goto error;
			}
			segv[2 * s] = (int64_t)c.ninsns;
			segv[2 * s + 1] = (int64_t)end;
		}
		if (!compact_consts(&c, outv, nouts))
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
			d[1] = w[0] == SYM_OP_GUARD ? 0 : renumber(&c, w[1]);
			d[2] = renumber(&c, w[2]);
			d[3] = w[0] == SYM_OP_GUARD ? w[3] : ar >= 2 ? renumber(&c, w[3]) : 0;
			d[4] = ar >= 3 ? renumber(&c, w[4]) : 0;
		}
		for (j = 0; j < nouts; j++)
			p->outs[j] = renumber(&c, outv[j]);
	}
	sym__free(ctx, outv, (nouts ? nouts : 1) * sizeof(*outv));
	sym__free(ctx, segv, 2 * nsegs * sizeof(*segv));
	comp_clear(&c);
	return p;
error:
	if (outv)
		sym__free(ctx, outv, (nouts ? nouts : 1) * sizeof(*outv));
	if (segv)
		sym__free(ctx, segv, 2 * nsegs * sizeof(*segv));
	comp_clear(&c);
	if (!sym__failed(ctx))
		sym__error(ctx, SYM_ENOMEM, -1, "out of memory");
	return NULL;
}

sym_program *sym_program_compile(sym_ctx *ctx, size_t nsyms, const sym_expr *const *syms, size_t nguards,
                                 const sym_expr *const *guards, size_t nouts, const sym_expr *const *outs)
{
	return sym__program_compile(ctx, nsyms, syms, 0, nguards, guards, 1, &nouts, outs);
}
