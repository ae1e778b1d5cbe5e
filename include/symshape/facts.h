/* symshape: facts about symbols, simplification and decisions.
 *
 * A fact store holds what is known about the symbols of one context: ranges,
 * residues (s % m == r) and equalities that define a symbol by an expression.
 * Facts only ever restrict the admissible assignments; a fact the store cannot
 * use is kept for checking witnesses and otherwise ignored, which is sound. */
#ifndef SYMSHAPE_FACTS_H
#define SYMSHAPE_FACTS_H

#include "symshape/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_facts sym_facts;

/* Returns a new empty fact store for ctx (every symbol unbounded), or NULL
 * when memory runs out.  It must be freed before the context. */
SYM_API SYM_GIVE sym_facts *sym_facts_new(sym_ctx *ctx);
/* Frees the store. */
SYM_API void sym_facts_free(SYM_TAKE sym_facts *facts);
/* Makes every symbol at least lo (the --dims default is 1).  Explicit facts
 * combine with it. Returns SYM_EOK or an error code. */
SYM_API sym_status sym_facts_set_default_min(sym_facts *facts, long long lo);
/* Adds the predicate pred as an assumption.  Returns SYM_EOK, or
 * SYM_ECONTRADICTION (recorded in the context) when the facts can no longer
 * all hold, or another error code. */
SYM_API sym_status sym_facts_assume(sym_facts *facts, const sym_expr *pred);
/* Gives the symbol s the range [lo, hi]; NULL for an open end.  A given
 * lower end replaces the default minimum for s. */
SYM_API sym_status sym_facts_set_range(sym_facts *facts, const sym_expr *s, const sym_expr *lo,
                                       const sym_expr *hi);
/* Returns a number that changes whenever a fact is added. */
SYM_API unsigned long sym_facts_version(const sym_facts *facts);

/* Returns the simplified canonical form of e under the facts (NULL facts:
 * no facts), or NULL on error.  The result has the same value as e for every
 * admissible assignment; simplifying it again returns the same pointer. */
SYM_API const sym_expr *sym_simplify(sym_ctx *ctx, sym_facts *facts, const sym_expr *e);
/* Decides the predicate p under the facts: SYM_TRUE when it holds for every
 * admissible assignment, SYM_FALSE when it holds for none, SYM_UNKNOWN
 * otherwise, SYM_ERROR on error. */
SYM_API sym_truth sym_prove(sym_ctx *ctx, sym_facts *facts, const sym_expr *p);

/* A witness: symbols and the integer values (constant expressions) at which
 * two expressions differ. Filled by sym_equal; free with sym_witness_clear. */
typedef struct sym_witness {
	size_t n;
	const sym_expr **syms;
	const sym_expr **vals;
} sym_witness;

/* Decides whether a and b are equal for every admissible assignment.  On
 * SYM_FALSE and a non-NULL w, stores an assignment at which they differ
 * (checked by exact evaluation; every assumption holds there). */
SYM_API sym_truth sym_equal(sym_ctx *ctx, sym_facts *facts, const sym_expr *a, const sym_expr *b,
                            sym_witness *w);
/* Frees the arrays of a witness filled by sym_equal. */
SYM_API void sym_witness_clear(sym_ctx *ctx, sym_witness *w);

#ifdef __cplusplus
}
#endif
#endif
