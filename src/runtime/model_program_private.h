/* Model programs: what the tests see beyond the public API. */
#ifndef SYM_MODEL_PROGRAM_PRIVATE_H
#define SYM_MODEL_PROGRAM_PRIVATE_H

#include "program_private.h"
#include "symshape/model.h"

/* sym_model_program_run_segments, adding what the program executed to
 * *count (when not NULL): the tests count the guard evaluations. */
void sym__model_program_run_counted(const sym_model_program *mp, const int64_t *dims, int64_t *const *out,
                                    sym_model_run *res, sym__run_count *count);
/* The one runtime program of mp. */
const sym_program *sym__model_program_code(const sym_model_program *mp);
/* The longest guard text plus node name of mp (the bytes of the two
 * strings, without terminators): the cache sizes its reasons by it. */
size_t sym__model_program_longest_guard(const sym_model_program *mp);
/* Whether guard k (after the checks) of mp is an assert (else an expect). */
int sym__model_program_guard_is_assert(const sym_model_program *mp, size_t k);

#endif
