/* The model program's storage part: the storage-shape and byte-size
 * programs and the range checks of data-dependent inputs (runtime.c,
 * runtime_storage.c).  The graph side lives in src/infer/. */
#ifndef SYM_STORAGE_PRIVATE_H
#define SYM_STORAGE_PRIVATE_H

#include "infer/passes.h"
#include "infer/storage.h"

/* ---- the model program's part ------------------------------------------ */

typedef struct sym_model_ext sym_model_ext;

/* The checks a model program adds to its binding checks: the range of
 * each data-dependent input, over the program's input
 * symbols (subst maps graph symbols to them).  Sets *n; *preds and *texts
 * are malloc'ed (texts too).  Returns 0 or -1. */
int sym__ext_bind_checks(sym_ctx *ctx, const sym_graph_result *r, size_t nsubst, const sym_expr *const *from,
                         const sym_expr *const *to, size_t *n, const sym_expr ***preds, char ***texts);
/* Compiles the storage-shape and byte-size programs over the inputs ins
 * (input dims then the data-dependent symbols). */
sym_model_ext *sym__ext_compile(sym_ctx *ctx, const sym_graph_result *r, int all_tensors, size_t nins,
                                const sym_expr *const *ins, size_t nsubst, const sym_expr *const *from,
                                const sym_expr *const *to);
void sym__ext_free(sym_model_ext *x);
/* Appends P_storage_shapes and P_bytes (and their inner programs). */
void sym__ext_emit_c(const sym_model_ext *x, const char *prefix, sym_sbuf *b);

/* The model program's part and the guard check (defined in runtime.c). */
const sym_model_ext *sym__model_program_ext(const sym_model_program *mp);
void sym__model_program_check(const sym_model_program *mp, const int64_t *dims, sym_model_run *res);
/* Checks the guards of mp, then runs p (one of its extra programs) on the
 * same dims into out; res as for sym_model_program_run. */
void sym__model_program_run_part(const sym_model_program *mp, const sym_program *p, const int64_t *dims,
                                 int64_t *out, sym_model_run *res);

#endif
