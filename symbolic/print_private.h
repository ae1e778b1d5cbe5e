/* Growable strings allocated through the context. */
#ifndef SYM_PRINT_PRIVATE_H
#define SYM_PRINT_PRIVATE_H

#include "node_private.h"

typedef struct sym_sbuf {
	sym_ctx *ctx;
	char *s;
	size_t n, cap;
	int fail;  /* 1 out of memory, 2 longer than SYM_MAX_TEXT_BYTES (count) */
	int count; /* count the bytes only, up to SYM_MAX_TEXT_BYTES */
} sym_sbuf;

void sym__sbuf_init(sym_sbuf *b, sym_ctx *ctx);
void sym__sbuf_clear(sym_sbuf *b);
void sym__sbuf_put(sym_sbuf *b, const char *s, size_t len);
void sym__sbuf_puts(sym_sbuf *b, const char *s);
/* Appends printf-formatted text of any length. */
void sym__sbuf_printf(sym_sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
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

/* Appends the canonical text of e; returns 0 on failure.  The length of the
 * text is measured first, in time proportional to the number of distinct
 * nodes, and a text longer than SYM_MAX_TEXT_BYTES is a SYM_ELIMIT error
 * recorded in the context before anything is written. */
int sym__print(sym_sbuf *b, const sym_expr *e);

#endif
