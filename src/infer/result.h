/* The inference result: the container every inference pass fills (symbols,
 * tensor shapes and values, guards, merge keys, storage shapes, byte sizes,
 * ranges, diagnostics).  It sits below the passes: result.c creates, grows,
 * looks up and frees it and answers the public accessors; the passes
 * (symbolize.c, infer.c, guards.c, mergekey.c, storage.c, ranges.c) fill it
 * and never call each other, except the driver calling each pass. */
#ifndef SYM_INFER_RESULT_H
#define SYM_INFER_RESULT_H

#include "model/ir.h"
#include "session.h"

typedef struct gsym {
	const sym_expr *sym;
	char *source;
	const sym_expr *min, *max;
} gsym;

typedef struct gtensor {
	char *name;
	sym_tval tv;   /* rank -2: not reached */
	long producer; /* node index, -1 for inputs and initializers */
	int is_input;
} gtensor;

typedef struct gkey {
	char *key;
	size_t n;
	const char **nodes;
} gkey;

/* A diagnostic: a problem of one node or tensor found while working
 * through the model, which inference goes on around (an unsupported
 * operator, domain or opset, an unknown rank, a declared shape that
 * disagrees, a node not reached).  The failure of sym_model_infer itself is
 * the context's error instead. */
typedef struct sym_diag {
	char *node;   /* the node, or the tensor's name for a declared input */
	char *op;     /* its operator; NULL when none */
	char *tensor; /* the tensor at fault; NULL when none */
	char *msg;    /* the whole message, naming node and operator */
} sym_diag;

/* The storage annotation of one tensor. */
typedef struct sym_tstorage {
	int origin, storage; /* -1: no format named */
	int rank;            /* storage rank; -1 when unknown */
	const sym_expr **dims;
	const sym_expr *bytes; /* NULL: no fixed size */
} sym_tstorage;

/* A caller's range of an input symbol. */
typedef struct sym_grange {
	const sym_expr *sym, *lo, *hi; /* NULL ends are open */
} sym_grange;

/* What the storage and ranges passes add; allocated on first use. */
struct sym_graph_ext {
	sym_grange *ranges; /* the caller's ranges of input symbols */
	size_t nranges;
	const sym_expr **fresh_max; /* symbolic upper bound of each fresh symbol */
	sym_tstorage *t;            /* one per tensor */
	const sym_expr *total;      /* NULL: some tensor has no size, or total_error */
	char *total_error;          /* why the total was not made (a limit), or NULL */
	int64_t align;
};

struct sym_graph_result {
	sym_ctx *ctx;
	sym_facts *facts;
	sym_infer inf;
	const sym_model *model;
	gsym *syms;
	size_t nsyms, capsyms;
	gtensor *tensors;
	size_t ntensors, captensors;
	uint64_t *table; /* (name hash << 32) | (tensor index + 1); 0: free */
	size_t tcap;
	size_t *symtab; /* symbol node hash -> syms index + 1 */
	size_t symcap;
	sym_guard *guards; /* after pruning */
	size_t nguards;
	gkey *keys;
	size_t nkeys;
	sym_diag *diags;
	size_t ndiags, capdiags;
	size_t *order; /* topological order of nodes */
	size_t norder;
	/* per node i, the tensor of each input, each outer name and each
	 * output, in that order, from tix + tix_at[i] ((size_t)-1 for an
	 * omitted input): names looked up once */
	size_t *tix, *tix_at;
	char **node_keys;          /* merge key of each node (model order) */
	struct sym_graph_ext *ext; /* storage shapes, byte sizes, ranges */
};

/* ---- result.c: the container's own operations --------------------------
 * Every int function returns 0, or -1 with the error recorded in r->ctx. */

/* A new, empty result for m in ctx (facts with the default minimum);
 * NULL when memory runs out. */
sym_graph_result *sym__result_new(sym_ctx *ctx, const sym_model *m, int allow_empty);
/* Adds a tensor (rank -2: not reached yet); a name defined twice is an
 * error naming what it is ("an input", "an initializer"; NULL for an
 * output of node producer). */
gtensor *sym__result_add_tensor(sym_graph_result *r, const char *name, long producer, const char *what);
/* Makes room for n tensors in all, the array and the name table sized once
 * for a model's tensors; returns 0, or -1 with the error recorded. */
int sym__result_reserve(sym_graph_result *r, size_t n);
/* Adds the model symbol s with its source, unless it is there already. */
int sym__result_add_sym(sym_graph_result *r, const sym_expr *s, const char *source);
/* Appends a diagnostic (sym_diag; op and tensor may be NULL) with the
 * printf-formatted message. */
int sym__result_add_diag(sym_graph_result *r, const char *node, const char *op, const char *tensor,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Records a SYM_EDOMAIN error (the failure of the call) and returns -1. */
int sym__result_fail(sym_graph_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Replaces the recorded error by a SYM_EDOMAIN error "<fmt...>: <its
 * message>" (out of memory stays as it is); returns -1. */
int sym__result_refail(sym_graph_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Records out of memory and returns -1. */
int sym__result_nomem(sym_graph_result *r);
/* Allocates r->ext when absent; -1 (error recorded) when out of memory. */
int sym__graph_ext_get(sym_graph_result *r);

/* Index of the tensor called name, or (size_t)-1. */
size_t sym__graph_find(const sym_graph_result *r, const char *name);
/* The model symbol s (input-dim or data-dependent), or NULL. */
gsym *sym__graph_find_sym(const sym_graph_result *r, const sym_expr *s);

#endif
