/* Printing internals: numbers into the string builder, the modulo and
 * quotient forms the printer shows, and the printer's state and parts that
 * print.c and print_choice.c share. */
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

/* The pattern of a small root for the spelling cache (print_cache.c):
 * its key bytes, and its symbols in the order the key meets them. */
#define SYM_PKEY_BYTES 512
#define SYM_PKEY_SYMS 8
typedef struct sym_pkey {
	unsigned char k[SYM_PKEY_BYTES];
	size_t n;
	const sym_expr *sym[SYM_PKEY_SYMS];
	size_t nsym;
	uint64_t hash;
} sym_pkey;
/* Makes the pattern of e; 0 when e is not cached: too large, a number
 * past 64 bits, no sum (nothing to choose) or no symbol. */
int sym__pcache_key(const sym_expr *e, sym_pkey *k);
/* Writes the kept text of k's pattern, with k's names, to b when it parses
 * back to e: 1, or 0 with nothing written (no text kept, or it does not
 * parse back). */
int sym__pcache_print(sym_sbuf *b, const sym_expr *e, const sym_pkey *k);
/* Keeps the n bytes at text, e's printed text, for k's pattern (nothing
 * when there is no room). */
void sym__pcache_add(sym_ctx *ctx, const sym_pkey *k, const char *text, size_t n);

/* Precedences of printed texts. */
enum { P_OR = 1, P_AND, P_REL, P_ADD, P_MUL, P_UNARY, P_POW, P_ATOM };

/* What print() gave for a node: the length of its text, its precedence and
 * its unsafe flag.  The text of a node does not depend on where it is
 * printed, so the measuring pass visits each distinct node once. */
typedef struct pmemo_ent {
	const sym_expr *e;
	size_t len;
	int prec, unsafe;
	char *alt; /* the node's text when made (a shorter spelling chosen or
	            * the default kept), or NULL */
} pmemo_ent;

typedef struct pmemo {
	pmemo_ent *t; /* open addressing, power-of-two capacity */
	size_t cap, n;
} pmemo;

/* Printer state: the output, whether the text just printed has `//` or `%`
 * at its top level (a unary minus in front would bind into it), and the
 * memo; with measure set the output only counts bytes and print() answers
 * from the memo. */
#define ALT_DEPTH 4
#define ALT_BUDGET 400 /* candidate parses per printed root */
/* texts of parts printed for candidates per printed root: a candidate's
 * rest is a new node, whose own candidates print more rests, and a total
 * of a few byte sizes made thousands of them (136M instructions for one
 * total of 8 nodes' sizes) without ever reaching the parse budget */
#define ALT_WORK 1000
#define MAX_MODS 8 /* modulos found in one sum */

typedef struct pr {
	sym_sbuf *b;
	sym_ctx *ctx;
	int unsafe;
	int measure;
	pmemo *memo;
	/* the choice of spellings: nodes whose candidates are being made
	 * (no cycles), and how many candidates may still be parsed */
	const sym_expr *busy[ALT_DEPTH];
	int depth;
	long budget, work;
	int long_offer; /* candidates of a long sum (alt_substitute) */
} pr;

/* The printer (print.c): prints e at the builder with the memo's choices,
 * returning its precedence; the node's own text; a product's factors (one
 * for a plain atom); a sum split into its positive and negative terms; a
 * modulo inside a sum (relax: also through a floor's other form) and
 * whether k*(P % Q) + rest rebuilds e. */
int sym__print_expr(pr *p, const sym_expr *e);
int sym__print_node(pr *p, const sym_expr *e);
const sym_factor *sym__print_mono_view(const sym_expr *m, sym_factor *one, size_t *n);
void sym__print_split_by_sign(sym_ctx *ctx, const sym_lin *v, sym_sumb *pos, sym_sumb *neg);
int sym__print_find_mod(sym_ctx *ctx, const sym_expr *e, modpart *mp, const sym_expr **rest, int frac,
                        int relax);
int sym__print_mod_is_exact(sym_ctx *ctx, const sym_expr *e, const modpart *mp, const sym_expr *rest);
/* The choice of spellings (print_choice.c): the cheapest verified spelling
 * of e when cheaper than its default text (*len bytes, precedence *prec,
 * *unsafe), else that default text when it was made, allocated in the
 * context; NULL when neither was made. */
char *sym__print_alternatives(pr *p, const sym_expr *e, size_t *len, int *prec, int *unsafe);

#endif
