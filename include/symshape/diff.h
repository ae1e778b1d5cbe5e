/* symshape: equivalence of two models (SPEC §5, symshape diff).
 *
 * Two inference results of one context are compared: do the models accept
 * exactly the same input shapes, and give the same output shapes for every
 * one of them?  The answer is a proof (same), a witness checked by running
 * both model programs (different), or unknown with what could not be
 * decided. */
#ifndef SYMSHAPE_DIFF_H
#define SYMSHAPE_DIFF_H

#include "symshape/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_model_diff sym_model_diff;

/* Options of sym_graph_diff; zero-initialise.  Inputs and outputs pair by
 * name; the pair map_a[i] (a name in model A) = map_b[i] (in model B)
 * overrides that for one input or output. */
typedef struct sym_diff_options {
	size_t nmap;
	const char *const *map_a;
	const char *const *map_b;
} sym_diff_options;

/* Compares the results a and b, inferred in ctx.  Input dims pair by input
 * and axis; the answer is SYM_TRUE (same: every output dim proven equal,
 * each model's checks and guards proven to hold wherever the other's do),
 * SYM_FALSE (different: a witness at which one model accepts the inputs and
 * the other rejects them, or an output dim differs, found by running both
 * model programs; an input whose rank differs makes any point the model
 * of that rank accepts a witness) or SYM_UNKNOWN (the reason names the
 * output dim or guard that could not be decided).  Returns NULL with an
 * error in ctx when the models cannot be paired (an input or output
 * without a partner, an input of unknown rank) or memory runs out.  Free
 * with sym_model_diff_free, before ctx. */
SYM_API SYM_GIVE sym_model_diff *sym_graph_diff(sym_ctx *ctx, const sym_graph_result *a,
                                                const sym_graph_result *b, const sym_diff_options *opt);
SYM_API void sym_model_diff_free(SYM_TAKE sym_model_diff *d);
/* Returns SYM_TRUE (same), SYM_FALSE (different) or SYM_UNKNOWN. */
SYM_API sym_truth sym_model_diff_answer(const sym_model_diff *d);
/* Returns why the models differ (what the witness shows) or what could not
 * be decided; "" for same.  Owned by d. */
SYM_API const char *sym_model_diff_reason(const sym_model_diff *d);
/* The witness of a SYM_FALSE answer: the inputs of model A in its order
 * (0 for other answers), each with its rank and concrete dims. */
SYM_API size_t sym_model_diff_num_inputs(const sym_model_diff *d);
/* Returns the name of witness input i (of model A) with its rank and dims
 * (owned by d), or NULL past the end. */
SYM_API const char *sym_model_diff_input(const sym_model_diff *d, size_t i, int *rank, const int64_t **dims);

#ifdef __cplusplus
}
#endif
#endif
