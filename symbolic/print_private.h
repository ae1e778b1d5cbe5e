/* Printing internals: numbers into the string builder, the modulo and
 * quotient forms the printer shows. */
#ifndef SYM_PRINT_PRIVATE_H
#define SYM_PRINT_PRIVATE_H

#include "node_private.h"

/* sym_sbuf and its functions, and sym__print: seam.h. */
void sym__sbuf_num(sym_sbuf *b, const sym_num *v);
/* k * (P % Q), a modulo found inside a sum. */
typedef struct modpart {
	sym_num k;
	const sym_expr *P, *Q;
} modpart;
/* Finds a modulo k*(P % Q) inside the sum e (mp->k initialised by the
 * caller) and stores the rest of e in *rest; returns 0 when there is none.
 * With frac, k may be a fraction (the printer wants integers). */
int sym__find_mod(sym_ctx *ctx, const sym_expr *e, modpart *mp, const sym_expr **rest, int frac);
/* Writes the argument of a floor as P/Q with Q the common denominator times
 * the negative factors common to every term; returns 0 when Q would be 1. */
int sym__quotient_form(sym_ctx *ctx, const sym_expr *e, const sym_expr **P, const sym_expr **Q);

#endif
