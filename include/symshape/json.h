/* symshape: JSON interop (cJSON). */
#ifndef SYMSHAPE_JSON_H
#define SYMSHAPE_JSON_H

#include <cjson/cJSON.h>

#include "symshape/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the structural JSON tree of e (caller frees with cJSON_Delete), or
 * NULL on error.  Numbers are decimal strings ("3", "-7/2"), never floats. */
SYM_API SYM_GIVE cJSON *sym_expr_to_json(sym_ctx *ctx, const sym_expr *e);
/* Rebuilds the canonical node from a tree written by sym_expr_to_json; a JSON
 * string is parsed as expression text.  Returns NULL with a message naming
 * the offending field on malformed input. */
SYM_API const sym_expr *sym_expr_from_json(sym_ctx *ctx, const cJSON *j);

#ifdef __cplusplus
}
#endif
#endif
