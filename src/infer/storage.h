/* Storage formats and byte sizes: the layout arithmetic of the storage
 * pass (storage.c), also used by the storage programs of the runtime. */
#ifndef SYM_INFER_STORAGE_H
#define SYM_INFER_STORAGE_H

#include "infer/result.h"
#include "symshape/storage.h"

/* Formats with their names and the rank of their full layout (0: any rank).
 * Origin formats come first; the storage-only ones split an axis. */
#define SYM_FORMAT_MAP(X)                                                                                    \
	X(ND, "ND", 0)                                                                                       \
	X(NCHW, "NCHW", 4)                                                                                   \
	X(NHWC, "NHWC", 4)                                                                                   \
	X(HWCN, "HWCN", 4)                                                                                   \
	X(NCDHW, "NCDHW", 5)                                                                                 \
	X(NDHWC, "NDHWC", 5)                                                                                 \
	X(NC1HWC0, "NC1HWC0", 5)                                                                             \
	X(NDC1HWC0, "NDC1HWC0", 6)                                                                           \
	X(FRACTAL_Z, "FRACTAL_Z", 4)                                                                         \
	X(FRACTAL_NZ, "FRACTAL_NZ", 0)

typedef enum sym_format {
#define SYM__FMT_ENUM(name, str, rank) SYM_FMT_##name,
	SYM_FORMAT_MAP(SYM__FMT_ENUM)
#undef SYM__FMT_ENUM
	    SYM_FMT_COUNT
} sym_format;

/* Returns the format called name (case-sensitive, "FRACTAL_Z" also as
 * "FZ", "FRACTAL_NZ" as "NZ"), or -1. */
int sym__format_from_name(const char *name);
const char *sym__format_name(int fmt);
/* C0, the split size of the channel axis, for an element type: 32 for
 * 1-byte types, 16 otherwise. */
int sym__format_c0(int dtype);

/* Expands a shape of lower rank to the full rank of an origin format (a [C]
 * bias in NCHW becomes [1, C, 1, 1]), then transfers it to the storage
 * format.  Writes at most 8 dims to out and their number to *out_rank.
 * Returns 0, or -1 with a message in ctx (a combination that has no
 * layout, a rank the format cannot hold). */
int sym__storage_shape(sym_ctx *ctx, int origin, int storage, int dtype, int rank,
                       const sym_expr *const *dims, const sym_expr **out, int *out_rank);
/* The byte size of a tensor: element count times element size, rounded up
 * to a multiple of align (>= 1).  NULL when the element type has no fixed
 * size (with no error recorded). */
const sym_expr *sym__storage_bytes(sym_ctx *ctx, int dtype, int rank, const sym_expr *const *dims,
                                   int64_t align);

#endif
