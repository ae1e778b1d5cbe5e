/* symshape: GMP interop. */
#ifndef SYMSHAPE_GMP_H
#define SYMSHAPE_GMP_H

#include <gmp.h>

#include "symshape/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the constant with the value of v (which may alias nothing). */
SYM_API const sym_expr *sym_expr_from_mpq(sym_ctx *ctx, mpq_srcptr v);
SYM_API const sym_expr *sym_expr_from_mpz(sym_ctx *ctx, mpz_srcptr v);
/* Stores the value of the constant e in v (initialised by the caller) and
 * returns 1; returns 0 and leaves v alone when e is not a constant. */
SYM_API int sym_expr_get_mpq(const sym_expr *e, mpq_ptr v);

#ifdef __cplusplus
}
#endif
#endif
