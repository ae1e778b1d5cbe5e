/* symshape: runtime programs.
 *
 * A program is compiled from expressions and predicates over symbols into a
 * flat array of int64 instructions with common subexpressions shared.  It is
 * standalone (no pointer into the context), serialisable, read-only after
 * compilation so it may be shared between threads, and evaluated without
 * allocation.  Every arithmetic step is overflow-checked. */
#ifndef SYMSHAPE_PROGRAM_H
#define SYMSHAPE_PROGRAM_H

#include "symshape/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_program sym_program;

/* Compiles a program.  Inputs: the symbols syms[0..nsyms) in the order their
 * values will be passed to sym_program_run.  Guards: predicates checked in
 * order.  Outputs: numeric expressions computed in order.  Returns NULL on
 * error (recorded in ctx): a symbol of an expression that is not an input, a
 * number that does not fit int64. The program is allocated with ctx's
 * allocator hook and keeps a copy of it (the hook's ud must outlive the
 * program); it is freed with sym_program_free and does not depend on ctx
 * afterwards. */
SYM_API SYM_GIVE sym_program *sym_program_compile(sym_ctx *ctx, size_t nsyms, const sym_expr *const *syms,
                                                  size_t nguards, const sym_expr *const *guards, size_t nouts,
                                                  const sym_expr *const *outs);
SYM_API void sym_program_free(SYM_TAKE sym_program *p);

SYM_API size_t sym_program_num_inputs(const sym_program *p);
SYM_API size_t sym_program_num_guards(const sym_program *p);
SYM_API size_t sym_program_num_outputs(const sym_program *p);
/* Returns the number of instructions (after sharing). */
SYM_API size_t sym_program_num_instructions(const sym_program *p);
/* Returns the scratch size (number of int64 slots) sym_program_run needs. */
SYM_API size_t sym_program_scratch_size(const sym_program *p);

/* Runs the program on the input values in[0..num_inputs): checks the guards
 * in order, stopping at the first that fails (its index in *failed), then
 * writes every output to out[0..num_outputs).  scratch must hold
 * sym_program_scratch_size slots.  Never allocates.  Returns a status of
 * expr.h: SYM_EOK (every guard holds, every output computed), SYM_EGUARD
 * (a guard failed: its index in *failed), SYM_EOVERFLOW (an intermediate
 * value left int64), SYM_EDIVZERO (division or modulo by zero) or
 * SYM_EINEXACT (an output is not an integer). */
SYM_API sym_status sym_program_run(const sym_program *p, const int64_t *in, int64_t *out, int64_t *scratch,
                                   size_t *failed);
/* Checks the guards only. */
SYM_API sym_status sym_program_check(const sym_program *p, const int64_t *in, int64_t *scratch,
                                     size_t *failed);

/* Serialises the program to a self-contained byte string (caller frees with
 * free()); returns NULL when memory runs out. */
SYM_API SYM_GIVE unsigned char *sym_program_serialize(const sym_program *p, size_t *len);
/* Rebuilds a program from sym_program_serialize's bytes; NULL when the bytes
 * are malformed or truncated. */
SYM_API SYM_GIVE sym_program *sym_program_deserialize(const unsigned char *buf, size_t len);

/* Writes standalone C11 source (no symshape header needed) defining
 *   int P_check(const int64_t *dims);
 *   int P_shapes(const int64_t *dims, int64_t *out);
 *   extern const int P_num_guards;
 *   extern const char *const P_guard_text[];
 * with P = prefix (NULL or "": "symshape"): 0 when every guard holds, k+1
 * when guard k fails first, -1 on overflow, division by zero or an inexact
 * output; the same semantics as sym_program_run.  guard_text holds one
 * string per guard (may be NULL: then the texts are empty).  Returns a
 * string allocated through p's copy of the allocator hook (caller frees
 * with sym_program_str_free), or NULL when the prefix is not a C identifier
 * or memory runs out.  Calls the hook: emit where calling it is allowed. */
SYM_API SYM_GIVE char *sym_program_emit_c(const sym_program *p, const char *prefix,
                                          const char *const *guard_text);
/* Frees a text emitted from p (sym_program_emit_c) through p's hook, with
 * its size; NULL is ignored.  For a program of a context without a hook
 * (sym_ctx_new) or of sym_program_deserialize, that is free(). */
SYM_API void sym_program_str_free(const sym_program *p, SYM_TAKE char *s);
/* Returns 1 when s is a C identifier (a letter or '_', then letters, digits
 * and '_'), as the prefix of emitted C must be; 0 otherwise (NULL, ""). */
SYM_API int sym_program_is_c_identifier(const char *s);

#ifdef __cplusplus
}
#endif
#endif
