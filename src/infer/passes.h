/* The inference passes, each in its own file, called in this order by the
 * driver (infer.c, sym_model_infer).  Each fills its part of the result
 * (result.h) and calls no other pass.  Every int function returns 0, or -1
 * with the error recorded in r->ctx. */
#ifndef SYM_INFER_PASSES_H
#define SYM_INFER_PASSES_H

#include "infer/result.h"

/* ---- symbolize.c ---------------------------------------------------------- */

/* Gives every input dim an expression (a constant, the declared symbol or
 * expression, a fresh symbol for an anonymous dim) and every initializer
 * its shape and value. */
int sym__symbolize(sym_graph_result *r);

/* ---- ranges.c -------------------------------------------------------------- */

/* Records the ranges of opt in r's facts; before the nodes run.  Returns 0
 * or -1 (a name that is no symbol of the model, a contradiction). */
int sym__graph_assume(sym_graph_result *r, const sym_infer_options *opt);
/* Adds the ranges and the data-dependent dims' bounds to f (used when
 * guards are pruned with fresh facts). */
void sym__graph_assume_into(const sym_graph_result *r, sym_facts *f);
/* Returns new facts holding the input symbols' ranges alone (the default
 * minimum, the ranges, the data-dependent dims' bounds; no guard), as guards
 * are pruned and input dims are checked.  NULL when memory runs out. */
sym_facts *sym__graph_range_facts(const sym_graph_result *r);
/* Derives the bounds of the data-dependent symbols from the linear facts
 * that bound them (u0 <= 4*n with n <= 64 gives u0 <= 256). */
int sym__graph_fresh_bounds(sym_graph_result *r);

/* Stores the [min, max] of every model symbol under the facts. */
int sym__ranges_of_symbols(sym_graph_result *r);

/* ---- guards.c -------------------------------------------------------------- */

/* Prunes the guards the session stated (plus, with plain the result of the
 * same model inferred without hints, the asserts of plain that r lacks) into
 * r->guards, asserts before expects. */
int sym__guards_prune(sym_graph_result *r, const sym_graph_result *plain);

/* ---- final.c --------------------------------------------------------------- */

/* Simplifies every tensor's dims under the facts of the whole graph (every
 * guard stated, the symbol ranges); after the guards are pruned, before the
 * merge keys, ranges and storage read the shapes. */
int sym__final_shapes(sym_graph_result *r);

/* ---- mergekey.c ------------------------------------------------------------ */

/* The merge key of every node, and the nodes grouped by key. */
int sym__merge_keys(sym_graph_result *r);

/* ---- storage.c ------------------------------------------------------------- */

/* Computes storage shapes, byte sizes and the total; after inference. */
int sym__graph_storage(sym_graph_result *r, const sym_infer_options *opt);

#endif
