/* The binding of a model program's inputs: what the model program compiles
 * before the guards.  See docs/runtime.md "Model programs". */
#ifndef SYM_BIND_PRIVATE_H
#define SYM_BIND_PRIVATE_H

#include "infer/result.h"

/* A growable list of expressions, and one of strings; both allocated with
 * the context's allocator hook (the strings with sym__ctx_strdup's size
 * rule: strlen + 1). */
typedef struct sym__elist {
	const sym_expr **v;
	size_t n, cap;
} sym__elist;
typedef struct sym__slist {
	char **v;
	size_t n, cap;
} sym__slist;

/* Appends e (-1 when e is NULL or memory runs out, recorded in ctx). */
int sym__elist_push(sym_ctx *ctx, sym__elist *l, const sym_expr *e);
void sym__elist_free(sym_ctx *ctx, sym__elist *l);
/* Appends s, taken (freed on failure; -1 when s is NULL or memory runs
 * out). */
int sym__slist_push(sym_ctx *ctx, sym__slist *l, char *s);

/* The inputs of the program and the checks of its input dims:
 *   ins      one symbol _dK per input dim position, then the data-dependent
 *            symbols (bound once their producing kernels have run);
 *   from, to the substitution of every graph symbol by its value over ins
 *            (a bound position, or solved from a dim a*s + b);
 *   checks   the predicates over ins every input must pass, with texts
 *            (texts[k] the message of checks[k]): the dims equal their
 *            declared forms, the solved symbols are integers, every
 *            symbol lies in its range, every data-dependent dim in its. */
typedef struct sym__binding {
	sym__elist ins, from, to, checks;
	sym__slist texts;
	size_t ndims; /* the input dim positions (then the data-dependent symbols) */
} sym__binding;

/* Fills b (zero-initialised) from the inference result.  Returns 0, or -1
 * with an error in ctx (an input of unknown rank, a symbol that no input
 * dim binds, out of memory); b is freed either way by sym__binding_free. */
int sym__bind_inputs(sym_ctx *ctx, const sym_graph_result *r, sym__binding *b);
void sym__binding_free(sym_ctx *ctx, sym__binding *b);

#endif
