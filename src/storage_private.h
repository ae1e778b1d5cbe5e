/* Storage formats, byte sizes, shape ranges and data-dependent inputs: what
 * the graph result and the model program carry beyond origin shapes. */
#ifndef SYM_STORAGE_PRIVATE_H
#define SYM_STORAGE_PRIVATE_H

#include "infer/result.h"
#include "print_private.h"
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

/* ---- the graph's annotations ------------------------------------------- */

typedef struct sym_tstorage {
	int origin, storage; /* -1: no format named */
	int rank;            /* storage rank; -1 when unknown */
	const sym_expr **dims;
	const sym_expr *bytes; /* NULL: no fixed size */
} sym_tstorage;

typedef struct sym_grange {
	const sym_expr *sym, *lo, *hi; /* NULL ends are open */
} sym_grange;

struct sym_graph_ext {
	sym_grange *ranges; /* the caller's ranges of input symbols */
	size_t nranges;
	const sym_expr **fresh_max; /* symbolic upper bound of each fresh symbol */
	sym_tstorage *t;            /* one per tensor */
	const sym_expr *total;      /* NULL: some tensor has no size */
	int64_t align;
};

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
/* Computes storage shapes, byte sizes and the total; after inference. */
int sym__graph_storage(sym_graph_result *r, const sym_infer_options *opt);
void sym__graph_ext_free(sym_graph_result *r);
/* Allocates r->ext when absent; -1 (error recorded) when out of memory. */
int sym__graph_ext_get(sym_graph_result *r);

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
