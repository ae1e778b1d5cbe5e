/* Growable strings allocated through the context. */
#ifndef SYM_PRINT_PRIVATE_H
#define SYM_PRINT_PRIVATE_H

#include "node_private.h"

typedef struct sym_sbuf {
	sym_ctx *ctx;
	char *s;
	size_t n, cap;
	int fail;
} sym_sbuf;

void sym__sbuf_init(sym_sbuf *b, sym_ctx *ctx);
void sym__sbuf_clear(sym_sbuf *b);
void sym__sbuf_put(sym_sbuf *b, const char *s, size_t len);
void sym__sbuf_puts(sym_sbuf *b, const char *s);
void sym__sbuf_num(sym_sbuf *b, const sym_num *v);
/* Appends the canonical text of e; returns 0 on failure. */
int sym__print(sym_sbuf *b, const sym_expr *e);

#endif
