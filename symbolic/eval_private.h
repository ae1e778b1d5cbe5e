/* Evaluation, substitution and bottom-up transformation helpers. */
#ifndef SYM_EVAL_PRIVATE_H
#define SYM_EVAL_PRIVATE_H

#include "node_private.h"

/* Evaluates e exactly with the symbols syms[i] bound to vals[i]; predicates
 * give 0 or 1.  Returns 0 on error (recorded in ctx). */
int sym__eval_num(sym_ctx *ctx, const sym_expr *e, size_t n, const sym_expr *const *syms, const sym_num *vals,
                  sym_num *out);

/* A node -> node map used by transformations: open addressing over pairs,
 * so that a probe finds the value on the key's cache line. */
typedef struct sym_memo_slot {
	const sym_expr *key, *val;
} sym_memo_slot;
typedef struct sym_memo {
	sym_ctx *ctx;
	sym_memo_slot *t;
	size_t cap, count;
} sym_memo;
void sym__memo_init(sym_memo *m, sym_ctx *ctx);
/* Frees m's slots. */
void sym__memo_clear(sym_memo *m);
/* Empties m and keeps its slots for the next entries when they were an
 * eighth full or more (a memo filled again and again then grows and pages
 * in its slots once); frees sparser ones. */
void sym__memo_reset(sym_memo *m);
const sym_expr *sym__memo_get(const sym_memo *m, const sym_expr *k);
int sym__memo_put(sym_memo *m, const sym_expr *k, const sym_expr *v);

/* The child slots of a node (terms' monomials, factors' bases, children),
 * and the node rebuilt canonically from replaced slots. */
size_t sym__nslots(const sym_expr *e);
const sym_expr *sym__slot(const sym_expr *e, size_t i);
const sym_expr *sym__rebuild(sym_ctx *ctx, const sym_expr *e, const sym_expr *const *k);

/* Rebuilds e bottom-up with every symbol s replaced by leaf(ctx, s, ud). */
typedef const sym_expr *(*sym_leaf_fn)(sym_ctx *ctx, const sym_expr *s, void *ud);
const sym_expr *sym__transform(sym_ctx *ctx, const sym_expr *e, sym_leaf_fn leaf, void *ud, sym_memo *memo);

#endif
