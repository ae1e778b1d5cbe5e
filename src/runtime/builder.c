/* The code builder of lowering: the constant pool, instructions with
 * constants folded, algebraic identities applied and common subexpressions
 * shared (within the check prefix and the current segment), and the final
 * numbering of registers (lower_private.h).  The memo of lowered nodes is
 * lower.c's. */
#include "lower_private.h"

#include <string.h>

/* Grows an open-addressing table of index + 1 entries to twice its size
 * (at least 64), rehashing with hash(i). */
static int table_grow(sym__code *c, size_t **tab, size_t *cap, uint64_t (*hash)(const sym__code *, size_t))
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

static uint64_t const_hash(const sym__code *c, size_t i)
{
	return sym__code_mix((uint64_t)c->kv[i]);
}

static uint64_t insn_hash_words(const int64_t *w)
{
	uint64_t h = sym__code_mix((uint64_t)w[0] * 0x9e3779b97f4a7c15ULL);
	h = sym__code_mix(h ^ (uint64_t)w[2]);
	h = sym__code_mix(h ^ (uint64_t)w[3]);
	return sym__code_mix(h ^ (uint64_t)w[4]);
}

static uint64_t insn_hash(const sym__code *c, size_t i)
{
	return insn_hash_words(c->code + i * SYM_INSN_WORDS);
}

/* Returns the register of the constant v (-1 when memory runs out). */
int64_t sym__code_const(sym__code *c, int64_t v)
{
	size_t j;
	if ((c->nk + 1) * 2 > c->ktcap && !table_grow(c, &c->ktab, &c->ktcap, const_hash))
		return -1;
	for (j = sym__code_mix((uint64_t)v) & (c->ktcap - 1); c->ktab[j]; j = (j + 1) & (c->ktcap - 1))
		if (c->kv[c->ktab[j] - 1] == v)
			return V_CONST + (int64_t)(c->ktab[j] - 1);
	if (SYM_GROW(c->ctx, c->kv, c->nk + 1, c->kcap, 16) < 0)
		return -1;
	c->kv[c->nk] = v;
	c->ktab[j] = ++c->nk;
	return V_CONST + (int64_t)(c->nk - 1);
}

static int is_const(const sym__code *c, int64_t v, int64_t *val)
{
	if (!V_IS_CONST(v))
		return 0;
	*val = c->kv[v - V_CONST];
	return 1;
}

static int is_const_val(const sym__code *c, int64_t v, int64_t want)
{
	int64_t x;
	return is_const(c, v, &x) && x == want;
}

int sym__code_append(sym__code *c, const int64_t *w)
{
	/* codecap counts instructions of SYM_INSN_WORDS words */
	if (c->ninsns == c->codecap &&
	    sym__grow(c->ctx, &c->code, &c->codecap, c->ninsns + 1, SYM_INSN_WORDS * sizeof(*w), 64) < 0)
		return 0;
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
static int fold(const sym__code *c, int op, int64_t a, int64_t b, int64_t x, int64_t *val)
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
static int64_t simplify_insn(sym__code *c, int op, int64_t a, int64_t b, int64_t x)
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
int64_t sym__code_emit(sym__code *c, int op, int64_t a, int64_t b, int64_t x)
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
		return sym__code_const(c, v);
	if (op == SYM_OP_MUL && (is_const_val(c, a, -1) || is_const_val(c, b, -1)))
		return sym__code_emit(c, SYM_OP_NEG, is_const_val(c, a, -1) ? b : a, 0, 0);
	if (op == SYM_OP_NEGIF && is_const(c, b, &v) && v < 0)
		return sym__code_emit(c, SYM_OP_NEG, a, 0, 0);
	if ((r = simplify_insn(c, op, a, b, x)) >= 0)
		return r;
	w[0] = op, w[1] = 0, w[2] = a, w[3] = sym__op_arity(op) >= 2 ? b : 0,
	w[4] = sym__op_arity(op) >= 3 ? x : 0;
	if ((c->ninsns + 1) * 2 > c->itcap && !table_grow(c, &c->itab, &c->itcap, insn_hash))
		return -1;
	for (j = insn_hash_words(w) & (c->itcap - 1); c->itab[j]; j = (j + 1) & (c->itcap - 1)) {
		const int64_t *o = c->code + (c->itab[j] - 1) * SYM_INSN_WORDS;
		if (o[0] == w[0] && o[2] == w[2] && o[3] == w[3] && o[4] == w[4]) {
			if (sym__code_visible(c, o[1]))
				return o[1];
			break; /* of another segment: this slot takes the new one */
		}
	}
	w[1] = V_TEMP + (int64_t)c->ntemps;
	if (!sym__code_append(c, w))
		return -1;
	c->ntemps++;
	c->itab[j] = c->ninsns;
	return w[1];
}

/* ---- the final numbering ------------------------------------------------ */

void sym__code_clear(sym__code *c)
{
	sym__free(c->ctx, c->kv, c->kcap * sizeof(*c->kv));
	sym__free(c->ctx, c->ktab, c->ktcap * sizeof(*c->ktab));
	sym__free(c->ctx, c->code, c->codecap * SYM_INSN_WORDS * sizeof(*c->code));
	sym__free(c->ctx, c->itab, c->itcap * sizeof(*c->itab));
	sym__free(c->ctx, c->mkeys, c->mcap * sizeof(*c->mkeys));
	sym__free(c->ctx, c->mvals, c->mcap * sizeof(*c->mvals));
	sym__free(c->ctx, c->kmap, (c->kcap ? c->kcap : 1) * sizeof(*c->kmap));
}

static void mark_const(sym__code *c, int64_t v)
{
	if (V_IS_CONST(v))
		c->kmap[v - V_CONST] = 1;
}

/* Drops the constants no instruction or output reads (folding leaves some
 * behind) and numbers the others densely. */
int sym__code_compact(sym__code *c, const int64_t *outv, size_t nouts)
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

int64_t sym__code_renumber(const sym__code *c, int64_t v)
{
	if (v < (int64_t)c->nin)
		return v;
	if (V_IS_CONST(v))
		return (int64_t)c->nin + c->kmap[v - V_CONST];
	return (int64_t)(c->nin + c->nkused) + (v - V_TEMP);
}
