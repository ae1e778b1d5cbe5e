/* The code builder of lowering (builder.c), shared with the lowering of
 * nodes (lower.c): virtual registers, the constant pool, instructions with
 * constant folding and common subexpressions shared within their scope,
 * and the final numbering; the tables of the memo of lowered nodes (which
 * lower.c keeps).  program_private.h describes the instruction format. */
#ifndef SYM_LOWER_PRIVATE_H
#define SYM_LOWER_PRIVATE_H

#include "seam.h"
#include "program_private.h"

#include <stdint.h>

/* While compiling, the number of constants is not known yet, so operands are
 * virtual: inputs as themselves, constants and temporaries tagged; the final
 * numbering is made once at the end. */
#define V_CONST ((int64_t)1 << 40)
#define V_TEMP ((int64_t)2 << 40)
#define V_IS_CONST(v) ((v) >= V_CONST && (v) < V_TEMP)

/* A lowered numeric value: numerator and (positive) denominator registers. */
typedef struct sym__vpair {
	int64_t n, d;
} sym__vpair;

typedef struct sym__code {
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
	sym__vpair *mvals;
	size_t mcap, mcount;
	int64_t zero, one;
	/* at the end: the constants in use, renumbered densely */
	int64_t *kmap;
	size_t nkused;
} sym__code;

/* The hash mix of the builder's tables and the lowering's memo. */
static inline uint64_t sym__code_mix(uint64_t h)
{
	h ^= h >> 31;
	h *= 0x7fb5d329728ea185ULL;
	h ^= h >> 27;
	h *= 0x81dadef4bc2dd44dULL;
	h ^= h >> 33;
	return h;
}

/* Returns whether register v may be read by the code being lowered: an
 * input, a constant, or a temporary of the check prefix or of the current
 * segment. */
static inline int sym__code_visible(const sym__code *c, int64_t v)
{
	size_t t;
	if (v < V_TEMP)
		return 1;
	t = (size_t)(v - V_TEMP);
	return t < c->prefix_temps || t >= c->seg_temps;
}

/* Returns the register of the constant v (-1 when memory runs out). */
int64_t sym__code_const(sym__code *c, int64_t v);
/* Returns the register holding op(a, b, x): a constant when it folds, an
 * earlier identical instruction's register visible in the current scope,
 * or a new instruction's; -1 on error (an operand of -1 gives -1). */
int64_t sym__code_emit(sym__code *c, int op, int64_t a, int64_t b, int64_t x);
static inline int64_t sym__code_emit2(sym__code *c, int op, int64_t a, int64_t b)
{
	return sym__code_emit(c, op, a, b, 0);
}
/* Appends the instruction w (SYM_INSN_WORDS words) without looking it up;
 * returns 0 when memory runs out. */
int sym__code_append(sym__code *c, const int64_t *w);
/* Drops the constants no instruction or output (outv, nouts virtual
 * registers) reads and numbers the others densely; 0 when memory runs
 * out. */
int sym__code_compact(sym__code *c, const int64_t *outv, size_t nouts);
/* The final register of the virtual register v (after sym__code_compact). */
int64_t sym__code_renumber(const sym__code *c, int64_t v);
/* Frees every table of c. */
void sym__code_clear(sym__code *c);

#endif
